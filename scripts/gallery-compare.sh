#!/usr/bin/env bash
# Every gallery scenario run by this checkout and by another commit, and the four outputs of
# each (metrics.json, trajectories.csv, replay.html, snapshot.svg) compared byte for byte
# (metrics.json's two wall-clock fields, wall_seconds and updates_per_s, masked):
# the check that a change which should not change results did not.
#
#   scripts/gallery-compare.sh REV [SCENARIO...]
#
# REV is built by scripts/build-rev.sh (once, into target/against/<sha>); this checkout is
# built as usual. Prints one line per
# scenario (`same` or the files that differ) and exits 1 if any differ.
set -euo pipefail
rev=${1:?usage: scripts/gallery-compare.sh REV [SCENARIO...]}
shift
root=$(cd "$(dirname "$0")/.." && pwd)
sha=$(git -C "$root" rev-parse --short "$rev^{commit}")
old_bin=$("$root/scripts/build-rev.sh" "$sha")
cargo build --release -q -p steerkit-cli --manifest-path "$root/Cargo.toml"
new_bin=$root/target/release/steerkit
if [ $# -eq 0 ]; then
    set -- $("$new_bin" list | awk 'NF && $1 !~ /:$/ {print $1}')
fi
out=$root/target/gallery-compare
rm -rf "$out"
differ=0
for name in "$@"; do
    "$old_bin" run "$name" --out "$out/old/$name" >/dev/null
    "$new_bin" run "$name" --out "$out/new/$name" >/dev/null
    bad=""
    for f in metrics.json trajectories.csv replay.html snapshot.svg; do
        a=$out/old/$name/$f b=$out/new/$name/$f
        if [ "$f" = metrics.json ]; then
            # the two clock readings are the only fields that differ between identical runs
            for g in "$a" "$b"; do
                sed -E 's/"(wall_seconds|updates_per_s)": [^,]*/"\1": -/' "$g" >"$g.masked"
            done
            a=$a.masked b=$b.masked
        fi
        cmp -s "$a" "$b" || bad="$bad $f"
    done
    if [ -z "$bad" ]; then echo "same     $name"; else echo "DIFFERS  $name:$bad"; differ=1; fi
done
exit $differ
