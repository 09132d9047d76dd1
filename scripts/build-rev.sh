#!/usr/bin/env bash
# Builds `steerkit` at another commit, for side-by-side comparisons (bench-against.sh,
# gallery-compare.sh), and prints the binary's path.
#
#   scripts/build-rev.sh REV
#
# REV (a commit, tag or branch) is exported with `git archive` into target/against/<sha>/src
# and built there in release, once; a later call reuses the binary.
set -euo pipefail
rev=${1:?usage: scripts/build-rev.sh REV}
root=$(cd "$(dirname "$0")/.." && pwd)
sha=$(git -C "$root" rev-parse --short "$rev^{commit}")
old=$root/target/against/$sha
if [ ! -x "$old/target/release/steerkit" ]; then
    rm -rf "$old/src"
    mkdir -p "$old/src"
    git -C "$root" archive "$sha" | tar -x -C "$old/src"
    # the old tree may read ../shared like this one
    [ -e "$root/../shared" ] && ln -sfn "$root/../shared" "$old/shared"
    CARGO_TARGET_DIR=$old/target cargo build --release -q -p steerkit-cli \
        --manifest-path "$old/src/Cargo.toml" >&2
fi
echo "$old/target/release/steerkit"
