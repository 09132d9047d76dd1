#!/usr/bin/env bash
# Side-by-side reference runs of RVO2 (the C++ ORCA library) against steerkit's ORCA, opt-in:
# the project itself needs no C++ toolchain.
#
#   scripts/rvo2-compare.sh RVO2_CHECKOUT [ROUNDS] [STEPS_10000]
#
# RVO2_CHECKOUT is a checkout of https://github.com/snape/RVO2 (its src/ is compiled here with
# g++ -O3 -march=native, single-threaded, into target/rvo2-compare together with
# scripts/rvo2/compare.cpp). Prints RVO2's Circle (N = 50, 250) and Blocks results (time until
# every agent is home, deepest overlap of two bodies) and its agent-updates per second on the
# Circle at 1 000 and 10 000 agents alternated ROUNDS times (default 3) with steerkit's
# `bench --only orca_circle2d` for the same sizes, in the same run, then the min and median
# of each and their ratios.
#
# Then whole runs, alternated ROUNDS times: RVO2 (`compare whole`) and steerkit (`steerkit bench
# --scenario`) each run Circle-1000 (`orca_circle_1000`) and Blocks (`orca_blocks`, each agent to
# its mirrored spot) from the start until every agent is home, and Circle-10000 (the same file
# with 10 000 agents on an 8 000 m ring) for its first STEPS_10000 steps (default 8000: the ring
# closes up body to body from about step 6 500; 0 leaves it out), with no outputs. Each prints
# its steps and its CPU per agent-update in the sparse phase, the dense phase (from the first
# step whose mean count of other agents within 15 m is at least 10 to the last) and overall;
# the summary gives min / median and steerkit's advantage (RVO2's CPU ÷ steerkit's).
# WHOLE_ONLY=1 runs only the whole runs. STEERKIT_BASE=PATH, another build of the steerkit
# command (e.g. STEERKIT_BASE=$(scripts/build-rev.sh REV)), joins the whole runs' alternation
# as `base`, so a change is measured beside the code before it and RVO2 in one run.
set -euo pipefail
src=${1:?usage: scripts/rvo2-compare.sh RVO2_CHECKOUT [ROUNDS] [STEPS_10000]}
rounds=${2:-3}
steps_10000=${3:-8000}
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$root/target/rvo2-compare
mkdir -p "$root/target"
g++ -std=c++11 -O3 -march=native -DRVO_STATIC_DEFINE -I"$src/src" "$src"/src/*.cc \
    "$root/scripts/rvo2/compare.cpp" -o "$bin"
cargo build --release -q -p steerkit-cli
sk=$root/target/release/steerkit
runs=$(mktemp)
whole=$(mktemp -d)
trap 'rm -rf "$runs" "$whole"' EXIT
if [ "${WHOLE_ONLY:-0}" != 1 ]; then
echo "# RVO2, preferred speed 2 m/s (steerkit's gallery setting) and 1 m/s (RVO2's examples)"
for speed in 2 1; do
    "$bin" circle 50 "$speed"
    "$bin" circle 250 "$speed"
    "$bin" blocks "$speed"
done
echo "# throughput, one thread, alternated $rounds times: RVO2's Circle (the sparse start of the"
echo "# run) then steerkit's orca_circle2d; cpu_ns = process CPU time per agent-update"
for _ in $(seq "$rounds"); do
    "$bin" circle 1000 2 400
    "$bin" circle 10000 2 60
    "$sk" bench --only orca_circle2d --threads 1 --seconds 2 --json | python3 -c '
import json, sys
for m in json.load(sys.stdin):
    print("steerkit orca_circle2d n=%d updates_per_s=%.0f cpu_ns_per_update=%.1f"
          % (m["agents"], m["updates_per_s"], m["cpu_ns_per_agent"]))'
done | tee "$runs"
# interference only ever adds time: the minimum is the steadiest figure, the median the typical
python3 - "$runs" <<'PY'
import re, statistics, sys
runs = {}
for line in open(sys.argv[1]):
    m = re.search(r"n=(\d+) .*cpu_ns_per_update=([\d.]+)", line)
    if m:
        who = "steerkit" if line.startswith("steerkit") else "RVO2"
        runs.setdefault((int(m.group(1)), who), []).append(float(m.group(2)))
print("# cpu_ns_per_update over the rounds: min / median")
for (n, who), v in sorted(runs.items()):
    print("%-8s n=%-6d %.0f / %.0f" % (who, n, min(v), statistics.median(v)))
for n in sorted({n for n, _ in runs}):
    if (n, "RVO2") in runs and (n, "steerkit") in runs:
        r, s = runs[(n, "RVO2")], runs[(n, "steerkit")]
        print("n=%-6d steerkit is %.2fx (min) / %.2fx (median) RVO2's throughput"
              % (n, min(r) / min(s), statistics.median(r) / statistics.median(s)))
PY
echo "# steerkit on two threads"
"$sk" bench --only orca_circle2d --threads 2
fi

echo "# whole runs, one thread, alternated $rounds times (cpu_ns = process CPU per agent-update)"
# Circle-10000: orca_circle_1000.toml with ten times the agents on a ten times wider ring
sed -e 's/^name = .*/name = "orca_circle_10000"/' -e 's/count = 1000/count = 10000/' \
    -e 's/radius = 800.0/radius = 8000.0/' -e 's/830.0/8030.0/g' -e 's/^duration = .*/duration = 100000.0/' \
    "$root/scenarios/orca_circle_1000.toml" >"$whole/orca_circle_10000.toml"
base=${STEERKIT_BASE:-}
# this build's whole run, then the base build's (its lines say `whole base`)
steerkits() {
    "$sk" bench --threads 1 "$@"
    if [ -n "$base" ]; then
        "$base" bench --threads 1 "$@" | sed 's/^whole steerkit /whole base /'
    fi
}
for _ in $(seq "$rounds"); do
    "$bin" whole circle 1000 2
    steerkits --scenario orca_circle_1000
    "$bin" whole blocks-own 2
    steerkits --scenario orca_blocks
    if [ "$steps_10000" -gt 0 ]; then
        "$bin" whole circle 10000 2 "$steps_10000"
        steerkits --scenario "$whole/orca_circle_10000.toml" --max-steps "$steps_10000"
    fi
done | tee "$whole/runs"
python3 - "$whole/runs" <<'PY'
import re, statistics, sys
scene = {"circle-1000": "Circle-1000", "orca_circle_1000": "Circle-1000",
         "blocks-own": "Blocks", "orca_blocks": "Blocks",
         "circle-10000": "Circle-10000", "orca_circle_10000": "Circle-10000"}
runs, steps = {}, {}
for line in open(sys.argv[1]):
    m = re.match(r"whole (\S+) (\S+) n=\d+ steps=(\d+) all_home=(\S+) .*dense=(\S+) "
                 r"cpu_ns_sparse=([\d.]+) cpu_ns_dense=([\d.]+) cpu_ns_all=([\d.]+)", line)
    if not m:
        continue
    who, name = m.group(1), scene.get(m.group(2), m.group(2))
    steps[(name, who)] = "%s steps (all home: %s), dense %s" % (m.group(3), m.group(4), m.group(5))
    for phase, v in zip(("sparse", "dense", "all"), m.group(6, 7, 8)):
        runs.setdefault((name, who, phase), []).append(float(v))
print("# whole runs: cpu_ns_per_update min / median; steerkit's advantage = RVO2 / steerkit")
for name in ("Circle-1000", "Blocks", "Circle-10000"):
    for who in ("RVO2", "steerkit", "base"):
        if (name, who) in steps:
            print("%-12s %-8s %s" % (name, who, steps[(name, who)]))
    for phase in ("sparse", "dense", "all"):
        r, s = runs.get((name, "RVO2", phase)), runs.get((name, "steerkit", phase))
        if r and s and min(s) > 0 and statistics.median(s) > 0:
            print("%-12s %-6s RVO2 %.0f / %.0f  steerkit %.0f / %.0f  advantage %.2fx / %.2fx"
                  % (name, phase, min(r), statistics.median(r), min(s), statistics.median(s),
                     min(r) / min(s), statistics.median(r) / statistics.median(s)))
        b = runs.get((name, "base", phase))
        if b and s and min(s) > 0 and statistics.median(s) > 0:
            print("%-12s %-6s base %.0f / %.0f  speed-up over base %.2fx / %.2fx"
                  % (name, phase, min(b), statistics.median(b),
                     min(b) / min(s), statistics.median(b) / statistics.median(s)))
PY
