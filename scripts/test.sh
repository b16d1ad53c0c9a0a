#!/usr/bin/env bash
# Set up (scripts/setup.sh) and run the whole test suite. Exit 0 only when every test passed.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh || { echo "test: setup failed" >&2; exit 1; }
PY=${PYTHON:-python3}
"$PY" -m ruff check . || exit 1
"$PY" -m pytest -q -p no:cacheprovider "$@"
rc=$?
# pytest exits 5 when no test was collected: that is a broken suite, not a pass.
if [ "$rc" -eq 5 ]; then echo "test: no tests were collected" >&2; exit 1; fi
exit "$rc"
