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
# Compiled modules are cached in __pycache__ (ignored by git): where the
# environment sets PYTHONDONTWRITEBYTECODE, each of the two workers and every
# command-line subprocess the tests start would compile the sources again, and
# pytest would rewrite every test module's asserts again (0.3-1 s a process
# on a 2-core machine, ~12 s of assert rewriting in a suite run).
unset PYTHONDONTWRITEBYTECODE
# Both cores (pytest-xdist; a worker that runs out steals from the other, so
# neither waits idle at the end), the Hypothesis profile that searches as far
# as each test asks; "-n0" after this script's name runs serially (--pdb, say).
export HYPOTHESIS_PROFILE=${HYPOTHESIS_PROFILE:-ci}
exec .venv/bin/python -m pytest -n auto --dist worksteal "$@"
