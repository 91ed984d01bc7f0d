#!/usr/bin/env bash
# Installs, builds, then runs the whole test suite (CUnit executables through
# CTest, verbose so that every CUnit run summary is in the log).  Exits
# non-zero when any test fails.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
ctest --test-dir build --verbose --timeout 900 "$@"
