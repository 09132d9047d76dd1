#!/usr/bin/env bash
# Side-by-side benchmark of this checkout against another commit, for claims of the form "N×
# the code before": on a shared machine absolute figures move by 2× between runs, so both
# builds are alternated in one run and compared by their min and median.
#
#   scripts/bench-against.sh REV [ROUNDS] [ONLY] [THREADS]
#
# REV (a commit, tag or branch) is built by scripts/build-rev.sh (once, into
# target/against/<sha>); this checkout is built as usual. Then `steerkit bench --only
# ONLY --threads THREADS --seconds 1 --json` runs ROUNDS times (default 5) for each build in
# turn (ONLY defaults to `2d`, THREADS to 1). Printed per workload and size: process CPU ns
# per agent-update for one thread (steadier than wall time under interference), wall ns per
# agent-update for more, as min / median of each build, and the ratio old ÷ new (above 1:
# this checkout is faster).
set -euo pipefail
rev=${1:?usage: scripts/bench-against.sh REV [ROUNDS] [ONLY] [THREADS]}
rounds=${2:-5}
only=${3:-2d}
threads=${4:-1}
root=$(cd "$(dirname "$0")/.." && pwd)
sha=$(git -C "$root" rev-parse --short "$rev^{commit}")
old_bin=$("$root/scripts/build-rev.sh" "$sha")
cargo build --release -q -p steerkit-cli --manifest-path "$root/Cargo.toml"
runs=$(mktemp)
trap 'rm -f "$runs"' EXIT
for _ in $(seq "$rounds"); do
    for who in "$sha:$old_bin" "this:$root/target/release/steerkit"; do
        "${who#*:}" bench --only "$only" --threads "$threads" --seconds 1 --json |
            python3 -c '
import json, sys
for m in json.load(sys.stdin):
    ns = m["cpu_ns_per_agent"] if m["threads"] == 1 and m.get("cpu_ns_per_agent") else m["ns_per_agent"]
    print(sys.argv[1], m["name"], m["agents"], m["threads"], ns)' "${who%%:*}"
    done
done | tee "$runs"
# interference only ever adds time: the minimum is the steadiest figure, the median the typical
python3 - "$runs" "$sha" <<'PY'
import statistics, sys
runs, old = {}, sys.argv[2]
for line in open(sys.argv[1]):
    who, name, agents, threads, ns = line.split()
    runs.setdefault((name, int(agents), int(threads)), {}).setdefault(who, []).append(float(ns))
print("# ns per agent-update (CPU for one thread, wall for more): min / median; %s / this" % old)
for (name, agents, threads), by in sorted(runs.items()):
    a, b = by.get(old, []), by.get("this", [])
    if a and b:
        print("%-14s n=%-8d threads=%d  %s %.0f / %.0f  this %.0f / %.0f  ratio %.2fx / %.2fx" % (
            name, agents, threads, old, min(a), statistics.median(a), min(b),
            statistics.median(b), min(a) / min(b), statistics.median(a) / statistics.median(b)))
PY
