#!/usr/bin/env bash
# Runs every fuzz target for SECONDS each (default 60) with the gallery as seed corpus.
# Needs the nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`). Crashes land in
# fuzz/artifacts/<target>/; each one found becomes a regression test in the crate it breaks.
set -euo pipefail
cd "$(dirname "$0")"
seconds="${1:-60}"
for target in load_toml load_json run_scenario; do
  mkdir -p "corpus/$target"
done
cp ../scenarios/*.toml corpus/load_toml/
cp ../scenarios/*.toml corpus/run_scenario/
# JSON seeds: the gallery's TOML files converted by the loader's own format
if command -v python3 >/dev/null 2>&1; then
  for f in ../scenarios/*.toml; do
    python3 -c 'import json,sys,tomllib; print(json.dumps(tomllib.load(open(sys.argv[1],"rb"))))' \
      "$f" > "corpus/load_json/$(basename "$f" .toml).json" 2>/dev/null || true
  done
fi
for target in load_toml load_json run_scenario; do
  echo "== $target: ${seconds} s"
  cargo +nightly fuzz run "$target" "corpus/$target" -- \
    -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=4096 2>&1 | tail -n 4
done
