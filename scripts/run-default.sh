#!/usr/bin/env bash
# Installs, builds, then predicts the embedded default scenario (the source's
# 100 MLU370 + 100 A100 example) and validates it against the replay.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
./build/hetsim predict "$@"
