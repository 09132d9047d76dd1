#!/usr/bin/env bash
# Doors of three to four body diameters: does a mouth arch? The gallery's `evacuation` with both
# exits set to each width, run three ways (its own walkers; `dt` 0.05 s and 26 m/s²; the rooms
# comparison's walkers: 1/30 s, 1.5 m/s, 45 m/s², a 4 m neighbour radius), each with
# `navigation.single_file_width` at 3 (no order at 2.4 m and wider) and at its default (4: the
# order `e^(−d/2r)`), to 500 s. Prints per case: width, walkers, order, walkers out of 800 and
# the last one's time (s). docs/benchmarks.md ("Doors of three to four diameters") has a run.
#
#   scripts/door-sweep.sh [WIDTH...]      (default 2.4 2.5 … 3.0 m)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
widths=("$@")
[ ${#widths[@]} -gt 0 ] || widths=(2.4 2.5 2.6 2.7 2.8 2.9 3.0)
out=$root/target/door-sweep
mkdir -p "$out"
cargo build --release -q -p steerkit-cli
sk=$root/target/release/steerkit
for w in "${widths[@]}"; do
    for walkers in evacuation dt0.05 rooms; do
        for order in none default; do
            f=$out/exits-$w-$walkers-$order.toml
            python3 - "$root/scenarios/evacuation.toml" "$w" "$walkers" "$order" > "$f" <<'PY'
import sys
src, w, walkers, order = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4]
s = open(src).read()
h = w / 2
# the exits' jambs, centred at y = ±7.5 in the wall at x = 25..25.5
for old, new in [("max = [25.5, -8.75]", f"max = [25.5, {-7.5 - h}]"),
                 ("min = [25.0, -6.25]", f"min = [25.0, {-7.5 + h}]"),
                 ("max = [25.5, 6.25]", f"max = [25.5, {7.5 - h}]"),
                 ("min = [25.0, 8.75]", f"min = [25.0, {7.5 + h}]"),
                 ("duration = 240.0", "duration = 500.0")]:
    assert s.count(old) == 1, old
    s = s.replace(old, new)
if walkers == "dt0.05":
    s = s.replace("dt = 0.1\n", "dt = 0.05\n").replace("max_acceleration = 13.0", "max_acceleration = 26.0")
elif walkers == "rooms":
    s = s.replace("dt = 0.1\n", "dt = 0.0333333333\n")
    s = s.replace("max_speed = 1.3, max_acceleration = 13.0", "max_speed = 1.5, max_acceleration = 45.0")
    s = s.replace("neighbour_radius = 3.0", "neighbour_radius = 4.0")
if order == "none":
    s = s.replace("[metrics]", "[navigation]\nsingle_file_width = 3\n\n[metrics]")
print(s, end="")
PY
            "$sk" run "$f" --out "$out/run" --threads 1 --trajectory-every 1000000 2>&1 |
                awk -v w="$w" -v k="$walkers" -v o="$order" \
                    '/^  (north|south) / { n += $3; if ($6 + 0 > t) t = $6 + 0 }
                     END { printf "%s m  %-10s %-8s %d out, last at %.1f s\n", w, k, o, n, t }'
        done
    done
done
