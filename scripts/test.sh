#!/usr/bin/env bash
# Create .venv if needed, install the project with test extras, run the whole suite
# in parallel.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[test]'
# Both cores (pytest-xdist), the Hypothesis profile that searches as far as each
# test asks; "-n0" after this script's name runs serially (for --pdb, say).
export HYPOTHESIS_PROFILE=${HYPOTHESIS_PROFILE:-ci}
exec .venv/bin/python -m pytest -n auto "$@"
