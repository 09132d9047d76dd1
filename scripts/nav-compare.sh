#!/usr/bin/env bash
# steerkit's side of the navigation comparison with DetourCrowd (scripts/detour-compare.sh):
# the same three levels, starts and goals (scripts/detour/levels/*.json) as scenario files,
# run by `steerkit run` on one thread with the defaults of the navigate leaf and ORCA.
#
#   scripts/nav-compare.sh [LEVEL...]
#
# Each level (default: rooms pillars corridor) at N = 100, 500 and 1000 becomes
# target/nav-compare/LEVEL-N.toml: the walkable box, the obstacle boxes, one group with every
# agent's start and goal, radius 0.4 m, 1.5 m/s, dt 1/30 s, 300 s, arrival within 1 m,
# `navigate` with ORCA (horizons 2 s and 1 s, 10 neighbours; max_acceleration = max_speed/dt,
# so ORCA's velocity is reached in a step). Prints per case: arrived, all home at once (s),
# mean arrival (s), deepest overlap, and the CPU per agent-update of the whole run (navigation,
# ORCA, the step and the run's measuring: an upper bound on the step's own cost).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
levels=("$@")
[ ${#levels[@]} -gt 0 ] || levels=(rooms pillars corridor)
out=$root/target/nav-compare
mkdir -p "$out"
cargo build --release -q -p steerkit-cli
sk=$root/target/release/steerkit
for level in "${levels[@]}"; do
    for n in 100 500 1000; do
        python3 - "$root/scripts/detour/levels/$level.json" "$n" "$out/$level-$n.toml" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); n = int(sys.argv[2])
case = next(c for c in d["cases"] if c["n"] == n)
x0, y0, x1, y1 = d["walkable"]
dt = d["dt"]
lines = [f'name = "{d["name"]}_{n}"', f"dt = {dt}", f"duration = {d['time_limit']}", "",
         "[world]", f"min = [{x0}, {y0}]", f"max = [{x1}, {y1}]", "neighbour_radius = 4.0", ""]
for b in d["obstacles"]:
    lines += ["[[obstacles]]", 'shape = "box"', f"min = [{b[0]}, {b[1]}]", f"max = [{b[2]}, {b[3]}]"]
agents = ", ".join(f"{{ position = [{s[0]}, {s[1]}], goal = [{g[0]}, {g[1]}] }}"
                   for s, g in zip(case["starts"], case["goals"]))
speed = d["max_speed"]
lines += ["", "[[groups]]", 'name = "agents"', f"agents = [{agents}]",
          f"arrive_radius = {d['arrival_distance']}", f"radius = {d['agent_radius']}",
          "non_penetration = true",
          "orca = { time_horizon = 2.0, obstacle_time_horizon = 1.0, max_neighbours = 10 }",
          f"limits = {{ max_speed = {speed}, max_acceleration = {speed / dt:.1f}, max_rotation = 4.0, max_angular_acceleration = 20.0 }}",
          'behaviour = { kind = "navigate", target_radius = 0.05, braking = true, time_to_target = 0.25 }',
          "", "[metrics]",
          'collect = ["arrivals", "agent_overlaps", "min_separation", "obstacle_penetrations"]',
          f"overlap_tolerance = {0.01 * d['agent_radius']}"]
open(sys.argv[3], "w").write("\n".join(lines) + "\n")
PY
        "$sk" run "$out/$level-$n.toml" --out "$out/$level-$n" --threads 1 \
            --trajectory-every 100000 >/dev/null
        python3 - "$out/$level-$n/metrics.json" "$level" "$n" <<'PY'
import json, sys
m = json.load(open(sys.argv[1])); g = m["groups"][0]
cpu = m["wall_seconds"] / (m["agents"] * m["steps"]) * 1e9
home = m["all_home_time"]
print("steerkit level=%s n=%s arrived=%s home_at_end=%s all_home=%s mean_arrival=%s "
      "deepest_overlap=%.4f cpu_ns_per_update=%.0f" % (
          sys.argv[2], sys.argv[3], m["arrived"], m["home_at_end"],
          "never" if home is None else "%.1f" % home,
          "-" if g["mean_arrival_time"] is None else "%.1f" % g["mean_arrival_time"],
          m["max_overlap"] or 0.0, cpu))
PY
    done
done
