#!/bin/bash
# test_python: pytest on tests/python, then docs/whatif.ipynb executed
# headless (jupyter nbconvert --execute), so the notebook cannot rot.
#   run.sh PYTHON SRC     (HETSIM, HETSIM_LIBRARY, PYTHONPATH from CTest)
set -eu
PY=$1 SRC=$2
# scripts/setup.sh installs these for Debian's python3: a missing one is a
# failure, not a reason to skip (the notebook must run in CI)
for m in pytest numpy matplotlib nbconvert; do
    "$PY" -c "import $m" 2>/dev/null ||
        { echo "test_python: FAIL: $PY lacks $m (scripts/setup.sh installs it)"; exit 1; }
done
"$PY" -m pytest -q -p no:cacheprovider "$SRC/tests/python"
{
    T=$(mktemp -d)
    trap 'rm -rf "$T"' EXIT
    (cd "$SRC" && "$PY" -m nbconvert --to notebook --execute \
        --ExecutePreprocessor.timeout=120 --output-dir "$T" docs/whatif.ipynb)
    echo "test_python: docs/whatif.ipynb ran"
}
