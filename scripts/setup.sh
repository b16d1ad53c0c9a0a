#!/usr/bin/env bash
# Set up a fresh machine for rocmdoctor development: system packages the tests use (sshd, docker, chromium,
# debootstrap, docker-compose), the daemons they need, and — in the project's own virtual environment (.venv,
# see scripts/venv.sh; never the system Python) — the package with its test extras and the CPU torch the
# smoke programs run on. Idempotent: skips what is already there.
#
#   ROCMDOCTOR_TORCH_INDEX  the PyTorch CPU wheel index torch for the tests comes from (a mirror of
#                           https://download.pytorch.org/whl/cpu); unset: a torch==2.13.0 this machine's pip
#                           configuration finds without an index (find-links), else that public CPU index.
#   ROCMDOCTOR_STARTED      a file; daemons this script starts are appended to it as "NAME PID" lines
#                           (scripts/test.sh passes one and stops them when the tests end).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/venv.sh
. scripts/venv.sh

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

if command -v apt-get >/dev/null 2>&1; then
  need=()
  [ -x /usr/sbin/sshd ] || need+=(openssh-server)
  command -v ssh >/dev/null 2>&1 || need+=(openssh-client)
  command -v ssh-keygen >/dev/null 2>&1 || need+=(openssh-client)
  command -v dockerd >/dev/null 2>&1 || need+=(docker.io)
  command -v chromium >/dev/null 2>&1 || need+=(chromium)
  command -v debootstrap >/dev/null 2>&1 || need+=(debootstrap)
  [ -x /usr/bin/docker-registry ] || need+=(docker-registry)
  command -v docker-compose >/dev/null 2>&1 || need+=(docker-compose)
  if [ "${#need[@]}" -gt 0 ]; then
    echo "setup: installing ${need[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
  fi
fi

# Docker daemon (the container tests build a generated Dockerfile for real).
if command -v dockerd >/dev/null 2>&1 && ! docker info >/dev/null 2>&1; then
  echo "setup: starting dockerd" >&2
  # setsid: the daemon outlives this script (test.sh stops it by the pid recorded here, nothing broader)
  setsid $SUDO dockerd >/tmp/rocmdoctor-dockerd.log 2>&1 < /dev/null &
  [ -n "${ROCMDOCTOR_STARTED:-}" ] && echo "dockerd $!" >> "$ROCMDOCTOR_STARTED"
  for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 0.5; done
  docker info >/dev/null 2>&1 || echo "setup: dockerd did not start; scripts/test.sh will stop unless ROCMDOCTOR_ALLOW_MISSING=docker (see /tmp/rocmdoctor-dockerd.log)" >&2
fi

rocmdoctor_venv
rocmdoctor_install '.[test]'
PY=$VENV_PY
# The CPU build of torch runs every code path of the smoke programs. ROCMDOCTOR_TORCH_INDEX names a CPU wheel
# index; without it, a torch==2.13.0 that this machine's pip configuration offers without any index (a local
# wheel under find-links, as here) is used as it is; else the PyTorch CPU index. Never a plain
# `pip install torch` from PyPI, which is the CUDA build (GBs).
TORCH='torch==2.13.0'
if ! "$PY" -c 'import torch' >/dev/null 2>&1; then
  idx=${ROCMDOCTOR_TORCH_INDEX:-}
  if [ -z "$idx" ] && ! "$PY" -m pip install -q --dry-run --no-deps --no-index "$TORCH" >/dev/null 2>&1; then
    idx=https://download.pytorch.org/whl/cpu
  fi
  echo "setup: installing $TORCH (CPU build) into $VENV${idx:+ from $idx}" >&2
  if [ -n "$idx" ]; then
    "$PY" -m pip install -q --index-url "$idx" "$TORCH"
  else
    "$PY" -m pip install -q "$TORCH"
  fi || echo "setup: could not install $TORCH (set ROCMDOCTOR_TORCH_INDEX to a CPU wheel index)" >&2
fi
# Older and newer pips than the venv's own: the install tests run the prewarmed pip session against each.
mkdir -p .whl/pip
for v in 22.0.4 26.3; do
  [ -f ".whl/pip/pip-$v-py3-none-any.whl" ] || "$PY" -m pip download -q --no-deps -d .whl/pip "pip==$v" \
    || echo "setup: could not fetch pip $v; its install test is skipped" >&2
done
# Triton's interpreter mode runs the smoke programs' Triton kernels on the CPU (it needs numpy there).
"$PY" -c 'import triton, numpy' >/dev/null 2>&1 || "$PY" -m pip install -q 'triton==3.8.0' numpy \
  || echo "setup: triton or numpy unavailable; Triton smoke paths will be skipped" >&2
