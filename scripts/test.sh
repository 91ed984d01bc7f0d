#!/usr/bin/env bash
# Installs, builds, then runs the whole test suite (CUnit executables through
# CTest).  Exits non-zero when any test fails.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
ctest --test-dir build --output-on-failure --timeout 900 "$@"
