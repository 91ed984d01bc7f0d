#!/bin/bash
# test_python: pytest on tests/python, then docs/whatif.ipynb executed
# headless (jupyter nbconvert --execute), so the notebook cannot rot.
#   run.sh PYTHON SRC     (HETSIM, HETSIM_LIBRARY, PYTHONPATH from CTest)
set -eu
PY=$1 SRC=$2
for m in pytest numpy; do
    "$PY" -c "import $m" 2>/dev/null ||
        { echo "test_python: SKIP: $PY lacks $m (scripts/setup.sh)"; exit 77; }
done
"$PY" -m pytest -q -p no:cacheprovider "$SRC/tests/python"
if "$PY" -c "import matplotlib, nbconvert" 2>/dev/null; then
    T=$(mktemp -d)
    trap 'rm -rf "$T"' EXIT
    (cd "$SRC" && "$PY" -m nbconvert --to notebook --execute \
        --ExecutePreprocessor.timeout=120 --output-dir "$T" docs/whatif.ipynb)
    echo "test_python: docs/whatif.ipynb ran"
else
    echo "test_python: the notebook is left out: no matplotlib or nbconvert"
fi
