#!/usr/bin/env bash
# Installs what the tool needs (setup.sh --tool: no test tools, no
# PyTorch), builds build/hetsim, then predicts the embedded default
# scenario (the source's 100 MLU370 + 100 A100 example).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --tool
./build/hetsim predict "$@"
