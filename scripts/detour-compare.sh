#!/usr/bin/env bash
# Reference runs of DetourCrowd (recastnavigation's crowd on a Recast navmesh) on the three
# navigation levels, opt-in: the project itself needs no C++ toolchain.
#
#   scripts/detour-compare.sh RECAST_CHECKOUT [LEVEL...]
#
# RECAST_CHECKOUT is a checkout of https://github.com/recastnavigation/recastnavigation; its
# Recast, Detour and DetourCrowd sources are compiled here with g++ -O3 -march=native into
# target/detour-compare/ together with scripts/detour/compare.cpp (objects are reused while
# newer than their source). LEVELs default to rooms pillars corridor, each run with N = 100,
# 500 and 1000, in two modes: keep (DetourCrowd's own behaviour, arrived agents keep their
# target) and remove (agents leave the crowd on arrival). Home = within 1 m of the goal.
# Prints one key=value line per case, then a table.
set -euo pipefail
src=${1:?usage: scripts/detour-compare.sh RECAST_CHECKOUT [LEVEL...]}
shift
levels=("$@")
[ ${#levels[@]} -gt 0 ] || levels=(rooms pillars corridor)
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/target/detour-compare
mkdir -p "$out/obj"
flags=(-std=c++11 -O3 -march=native -DNDEBUG)
incs=(-I"$src/Recast/Include" -I"$src/Detour/Include" -I"$src/DetourCrowd/Include")
objs=()
for f in "$src"/Recast/Source/*.cpp "$src"/Detour/Source/*.cpp "$src"/DetourCrowd/Source/*.cpp; do
    o=$out/obj/$(basename "$(dirname "$(dirname "$f")")")-$(basename "${f%.cpp}").o
    if [ ! -f "$o" ] || [ "$f" -nt "$o" ]; then
        g++ "${flags[@]}" "${incs[@]}" -c "$f" -o "$o"
    fi
    objs+=("$o")
done
g++ "${flags[@]}" "${incs[@]}" "$root/scripts/detour/compare.cpp" "${objs[@]}" -o "$out/compare"

# the level files are what the steerkit side reads: they must match the driver
for level in "${levels[@]}"; do
    if ! "$out/compare" level "$level" | cmp -s - "$root/scripts/detour/levels/$level.json"; then
        echo "scripts/detour/levels/$level.json differs from: $out/compare level $level" >&2
        exit 1
    fi
done

runs=$out/runs.txt
: >"$runs"
for level in "${levels[@]}"; do
    for n in 100 500 1000; do
        "$out/compare" run "$level" "$n" | tee -a "$runs"
    done
done
python3 - "$runs" <<'PY'
import sys
rows = [dict(kv.split("=", 1) for kv in line.split()[1:]) for line in open(sys.argv[1])]
head = ("level", "N", "mode", "arrived", "all home (s)", "mean arr. (s)", "deepest overlap",
        ">10% overlap", "CPU/agent-update", "navmesh", "all paths (s)")
fmt = "%-8s %5s %-6s %8s %12s %13s %16s %12s %16s %9s %13s"
print(fmt % head)
for r in rows:
    print(fmt % (r["level"], r["n"], r["mode"], "%s/%s" % (r["arrived"], r["n"]),
                 r["home_time"], r["mean_arrival"],
                 "%s m %s%%" % (r["deepest_overlap"], r["deepest_overlap_pct"]),
                 r["overlapped_pct"] + "%", r["cpu_ns_per_update"] + " ns",
                 r["navmesh_ms"] + " ms", r["path_time"]))
PY
