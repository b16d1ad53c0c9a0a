#!/usr/bin/env bash
# Set up a fresh machine for rocmdoctor development: system packages the tests use (sshd, docker, chromium,
# debootstrap, docker-compose), the daemons they need, the package itself with its test extras, and the CPU
# torch the smoke programs run on. Idempotent: skips what is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

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
  ($SUDO dockerd >/tmp/rocmdoctor-dockerd.log 2>&1 &)
  for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 0.5; done
  docker info >/dev/null 2>&1 || echo "setup: dockerd did not start; docker tests will be skipped (see /tmp/rocmdoctor-dockerd.log)" >&2
fi

PY=${PYTHON:-python3}
"$PY" -m pip install -q -e '.[test]'
# Test-only reference tools (in the [test] extra; checked here because the fleet tests lean on them):
# ClusterShell's NodeSet for host lists, the Kubernetes OpenAPI schemas, Prometheus' text parser.
"$PY" -c 'import ClusterShell, kubernetes_validate, prometheus_client' >/dev/null 2>&1 \
  || "$PY" -m pip install -q 'ClusterShell>=1.9' 'kubernetes-validate>=1.28' 'prometheus-client>=0.20'
# The CPU build of torch runs every code path of the smoke programs (it lies on local disk here).
"$PY" -c 'import torch' >/dev/null 2>&1 || "$PY" -m pip install -q 'torch==2.13.0'
# Older and newer pips than the venv's own: the install tests run the prewarmed pip session against each.
mkdir -p .whl/pip
for v in 22.0.4 26.3; do
  [ -f ".whl/pip/pip-$v-py3-none-any.whl" ] || "$PY" -m pip download -q --no-deps -d .whl/pip "pip==$v" \
    || echo "setup: could not fetch pip $v; its install test is skipped" >&2
done
# Triton's interpreter mode runs the smoke programs' Triton kernels on the CPU.
"$PY" -c 'import triton' >/dev/null 2>&1 || "$PY" -m pip install -q 'triton==3.8.0' || echo "setup: triton unavailable; Triton smoke paths will be skipped" >&2
