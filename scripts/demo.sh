#!/usr/bin/env bash
# Set up rocmdoctor in its own virtual environment (.venv; see scripts/venv.sh) and run the main job:
# diagnose this machine, or, on a machine without an AMD GPU, a bundled real-world fixture (an RX 7900 XTX
# host whose amdgpu-dkms fails to build on kernel 6.5, from a public bug report).
# Exit code: rocmdoctor check's (0 nothing failed, 1 a check failed, 2 bad input or setup failed).
set -uo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/venv.sh
. scripts/venv.sh
rocmdoctor_venv || exit 2
rocmdoctor_install . || exit 2
if [ -n "${ROCMDOCTOR_JUST_INSTALLED:-}" ]; then
  echo "rocmdoctor: installed in $VENV: run $VENV/bin/rocmdoctor (or '. $VENV/bin/activate', then rocmdoctor)" >&2
fi
if [ -e /dev/kfd ] || grep -qs '^amdgpu ' /proc/modules; then
  exec "$VENV/bin/rocmdoctor" check "$@"
fi
echo "(no AMD GPU here: judging the bundled fixture fixtures/rx7900xtx-dkms-build-fails-kernel-6.5)" >&2
exec "$VENV/bin/rocmdoctor" check --from fixtures/rx7900xtx-dkms-build-fails-kernel-6.5 "$@"
