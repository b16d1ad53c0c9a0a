#!/usr/bin/env bash
# Set up rocmdoctor and run the main job: diagnose this machine, or, on a machine without an AMD GPU,
# a bundled real-world fixture (an RX 7900 XTX host whose amdgpu-dkms fails to build on kernel 6.5, from a public bug report).
set -uo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
"$PY" -m pip install -q -e . || exit 2
if [ -e /dev/kfd ] || grep -qs '^amdgpu ' /proc/modules; then
  exec rocmdoctor check "$@"
fi
echo "(no AMD GPU here: judging the bundled fixture fixtures/rx7900xtx-dkms-build-fails-kernel-6.5)" >&2
exec rocmdoctor check --from fixtures/rx7900xtx-dkms-build-fails-kernel-6.5 "$@"
