#!/usr/bin/env bash
# Builds and runs every benchmark under bench/ (figures, not tests).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
for b in build/bench/bench_*; do
  [ -x "$b" ] || continue
  echo "== $b"
  "$b"
done
