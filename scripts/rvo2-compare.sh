#!/usr/bin/env bash
# Side-by-side reference runs of RVO2 (the C++ ORCA library) against steerkit's ORCA, opt-in:
# the project itself needs no C++ toolchain.
#
#   scripts/rvo2-compare.sh RVO2_CHECKOUT [ROUNDS]
#
# RVO2_CHECKOUT is a checkout of https://github.com/snape/RVO2 (its src/ is compiled here with
# g++ -O3 -march=native, single-threaded, into target/rvo2-compare together with
# scripts/rvo2/compare.cpp). Prints RVO2's Circle (N = 50, 250) and Blocks results (time until
# every agent is home, deepest overlap of two bodies) and its agent-updates per second on the
# Circle at 1 000 and 10 000 agents alternated ROUNDS times (default 3) with steerkit's
# `bench --only orca_circle2d` for the same sizes, in the same run, then the min and median
# of each and their ratios.
set -euo pipefail
src=${1:?usage: scripts/rvo2-compare.sh RVO2_CHECKOUT [ROUNDS]}
rounds=${2:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$root/target/rvo2-compare
mkdir -p "$root/target"
g++ -std=c++11 -O3 -march=native -DRVO_STATIC_DEFINE -I"$src/src" "$src"/src/*.cc \
    "$root/scripts/rvo2/compare.cpp" -o "$bin"
echo "# RVO2, preferred speed 2 m/s (steerkit's gallery setting) and 1 m/s (RVO2's examples)"
for speed in 2 1; do
    "$bin" circle 50 "$speed"
    "$bin" circle 250 "$speed"
    "$bin" blocks "$speed"
done
echo "# throughput, one thread, alternated $rounds times: RVO2's Circle (the sparse start of the"
echo "# run) then steerkit's orca_circle2d; cpu_ns = process CPU time per agent-update"
cargo build --release -q -p steerkit-cli
sk=$root/target/release/steerkit
runs=$(mktemp)
trap 'rm -f "$runs"' EXIT
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
