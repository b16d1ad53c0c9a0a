#!/usr/bin/env bash
# Set up rocmdoctor and run the main job: diagnose this machine, or, on a machine without an AMD GPU,
# a bundled real-world fixture (a 4x MI210 host from a public bug report).
set -uo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
"$PY" -m pip install -q -e . || exit 2
if [ -e /dev/kfd ] || grep -qs '^amdgpu ' /proc/modules; then
  exec rocmdoctor check "$@"
fi
echo "(no AMD GPU here: judging the bundled fixture fixtures/mi210-x4-gfx90a-rocm6.0-hip-invalid-argument)" >&2
exec rocmdoctor check --from fixtures/mi210-x4-gfx90a-rocm6.0-hip-invalid-argument "$@"
