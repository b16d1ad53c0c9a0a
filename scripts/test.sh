#!/usr/bin/env bash
# Set up (scripts/setup.sh: system packages, daemons, the project's .venv) and run the whole test suite in
# that virtual environment. Exit 0 only when every test passed.
#
# Before the tests: `ruff check .` and `mypy rocmdoctor`; either failing fails the run.
#
# The suite needs a Docker daemon, OpenSSH's sshd, the CPU torch and ../shared (the capture contract and the
# reference data); a missing one fails the run before any test, naming it, and a test that still skips for
# one of them at run time fails too (scripts/strict_skips.py). To run the rest anyway:
#   ROCMDOCTOR_ALLOW_MISSING=docker,sshd bash scripts/test.sh      (names: docker, sshd, torch, shared; or =all;
#                                                                   their tests are then skipped)
#
# The machine is left as found: daemons setup.sh started for this run are stopped, and images the suite
# built (label io.rocmdoctor.test) that were not there before are removed (ROCMDOCTOR_KEEP_TEST_IMAGES=1
# keeps them, e.g. the Debian base image that takes minutes to make).
set -uo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/venv.sh
. scripts/venv.sh

ROCMDOCTOR_STARTED=$(mktemp "${TMPDIR:-/tmp}/rocmdoctor-started.XXXXXX")
export ROCMDOCTOR_STARTED
LABEL=io.rocmdoctor.test
images_before=""
snapshot=""  # set once images_before is known: nothing is pruned before that

test_images() { docker images -q --no-trunc --filter "label=$LABEL" 2>/dev/null | sort -u; }

cleanup() {
  if [ -n "$snapshot" ] && [ -z "${ROCMDOCTOR_KEEP_TEST_IMAGES:-}" ] && docker info >/dev/null 2>&1; then
    local new round
    new=$(comm -13 <(printf '%s\n' "$images_before") <(test_images) | grep . || true)
    if [ -n "$new" ]; then
      echo "test: removing the images this run built: $(echo "$new" | wc -l)" >&2
      # a parent listed before its child is refused ("has dependent child images") even with -f: retry what is left
      for round in 1 2 3; do
        # shellcheck disable=SC2086
        docker rmi -f $new >/dev/null 2>&1 || true
        new=$(comm -13 <(printf '%s\n' "$images_before") <(test_images) | grep . || true)
        [ -z "$new" ] && break
        [ "$round" -lt 3 ] || echo "test: could not remove every image labelled $LABEL" >&2
      done
    fi
  fi
  local name pid
  while read -r name pid; do
    [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || continue
    echo "test: stopping $name (pid $pid), started for this run" >&2
    kill -TERM "$pid" 2>/dev/null
    for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null
  done < "$ROCMDOCTOR_STARTED"
  rm -f "$ROCMDOCTOR_STARTED"
}
trap cleanup EXIT

bash scripts/setup.sh || { echo "test: setup failed" >&2; exit 1; }
PY=$VENV_PY

# Prerequisites: fail (not skip) when one is missing, unless it is allowed to be.
allowed=",${ROCMDOCTOR_ALLOW_MISSING:-},"
missing=()
need() {  # need NAME WHY: record NAME as missing unless allowed
  case "$allowed" in *",$1,"*|*",all,"*) echo "test: $1 missing ($2): its tests will be skipped (allowed)" >&2 ;;
    *) missing+=("$1: $2") ;; esac
}
docker info >/dev/null 2>&1 || need docker "no Docker daemon answers 'docker info'"
[ -x /usr/sbin/sshd ] || need sshd "/usr/sbin/sshd not found (openssh-server)"
"$PY" -c 'import torch' >/dev/null 2>&1 || need torch "the CPU torch is not importable in $VENV (see ROCMDOCTOR_TORCH_INDEX in scripts/setup.sh)"
[ -d ../shared ] || need shared "../shared (capture contract, reference data) is not beside the repository"
if [ "${#missing[@]}" -gt 0 ]; then
  for m in "${missing[@]}"; do echo "test: prerequisite missing: $m" >&2; done
  names=$(printf '%s\n' "${missing[@]}" | cut -d: -f1 | paste -sd, -)
  echo "test: to run the rest anyway: ROCMDOCTOR_ALLOW_MISSING=$names bash scripts/test.sh" >&2
  exit 1
fi
images_before=$(test_images)
snapshot=1

"$PY" -m ruff check . || { echo "test: ruff found problems" >&2; exit 1; }
"$PY" -m mypy rocmdoctor || { echo "test: mypy found type errors" >&2; exit 1; }
# strict_skips (scripts/strict_skips.py): a test that skips for a missing prerequisite that was not let off
# with ROCMDOCTOR_ALLOW_MISSING, over an empty parameter set, or for want of a bundled fixture fails instead.
# The venv's bin first on PATH, as `activate` does: the [test] extra's tools (uv, hadolint, shellcheck) are
# found there on a fresh machine, not only when this machine happens to have them elsewhere.
PATH="$(dirname "$PY"):$PATH" PYTHONPATH="scripts${PYTHONPATH:+:$PYTHONPATH}" \
  "$PY" -m pytest -q -p no:cacheprovider -p strict_skips "$@"
rc=$?
# pytest exits 5 when no test was collected: that is a broken suite, not a pass.
if [ "$rc" -eq 5 ]; then echo "test: no tests were collected" >&2; exit 1; fi
exit "$rc"
