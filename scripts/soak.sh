#!/usr/bin/env bash
# Soak test (opt-in): runs the flocking scenario for STEPS steps (default 1 000 000), samples
# the process's resident memory every 2 s, and checks every output file for non-finite values.
# Memory should stay flat: recordings and trajectory files are budgeted, the crowd reuses its
# buffers. Usage: scripts/soak.sh [STEPS] [SCENARIO]
set -euo pipefail
cd "$(dirname "$0")/.."
steps="${1:-1000000}"
scenario="${2:-flocking}"
out="$(mktemp -d)"
cargo build --release --quiet
./target/release/steerkit run "$scenario" --steps "$steps" --out "$out" >"$out/summary.txt" &
pid=$!
samples=()
while kill -0 "$pid" 2>/dev/null; do
  rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
  [ -n "$rss" ] && samples+=("$rss")
  sleep 2
done
wait "$pid"
# resident memory at each quarter of the run (the budgeted outputs grow it steadily; a leak
# would grow it beyond them)
printf '%s\n' "${samples[@]}" | awk '
  {n++; v[n] = $1; if (n == 1 || $1 > max) max = $1}
  END {printf "rss over %d samples (KiB): 25%% %d, 50%% %d, 75%% %d, end %d, max %d\n",
       n, v[int(n/4)+1], v[int(n/2)+1], v[int(3*n/4)+1], v[n], max}'
python3 - "$out" <<'PY'
import json, math, sys, pathlib
out = pathlib.Path(sys.argv[1])
bad = []
metrics = json.loads((out / "metrics.json").read_text())
for g in metrics["groups"]:
    if not isinstance(g["final_mean_speed"], (int, float)) or not math.isfinite(g["final_mean_speed"]):
        bad.append(f"final_mean_speed of {g['name']}")
with open(out / "trajectories.csv") as f:
    next(f)
    for n, line in enumerate(f):
        if any(not math.isfinite(float(x)) for x in line.split(",")[4:]):
            bad.append(f"trajectories.csv row {n}")
            break
svg = (out / "snapshot.svg").read_text()
if "NaN" in svg or "inf" in svg:
    bad.append("snapshot.svg")
print("outputs finite" if not bad else "NON-FINITE: " + ", ".join(bad))
sys.exit(1 if bad else 0)
PY
tail -n 3 "$out/summary.txt"
