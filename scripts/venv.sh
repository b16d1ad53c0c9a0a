# Sourced by demo.sh, setup.sh and test.sh: rocmdoctor runs from its own virtual environment, never from the
# system Python (Debian 12 and Ubuntu 24.04 mark theirs externally managed, PEP 668: pip refuses to touch it).
#
#   ROCMDOCTOR_VENV  where the environment lives (default: .venv in the repository, git-ignored)
#   PYTHON           the interpreter that creates it (default: python3; 3.9 or newer)
#
# `python3 -m venv` first; when that cannot work (Debian/Ubuntu without python3-venv) and uv is on PATH,
# `uv venv --seed`. Packages always go in with the environment's own pip, so this machine's pip
# configuration (mirrors, find-links, constraints in /etc/pip.conf, /etc/xdg/pip, ~/.config/pip, PIP_*)
# applies exactly as it does to any other pip.

VENV=${ROCMDOCTOR_VENV:-.venv}
VENV_PY="$VENV/bin/python"

rocmdoctor_venv() {
  if [ -x "$VENV_PY" ] && "$VENV_PY" -c 'import pip' >/dev/null 2>&1; then
    return 0
  fi
  local base=${PYTHON:-python3}
  if ! command -v "$base" >/dev/null 2>&1; then
    echo "rocmdoctor: no '$base' found: install Python 3.9 or newer (Debian/Ubuntu: sudo apt install python3 python3-venv)" >&2
    return 2
  fi
  if ! "$base" -c 'import sys; sys.exit(sys.version_info < (3, 9))'; then
    echo "rocmdoctor: $base is $("$base" -c 'import platform; print(platform.python_version())'); rocmdoctor needs Python 3.9 or newer (set PYTHON=/path/to/python3.X)" >&2
    return 2
  fi
  # A half-made environment (an earlier failed attempt, a moved interpreter) is ours to replace; any other
  # directory at that path is not.
  if [ -e "$VENV" ]; then
    if [ -f "$VENV/pyvenv.cfg" ]; then rm -rf "$VENV"; else
      echo "rocmdoctor: $VENV exists and is not a virtual environment; move it away or set ROCMDOCTOR_VENV" >&2
      return 2
    fi
  fi
  echo "rocmdoctor: creating the virtual environment $VENV (with $base)" >&2
  local err
  if err=$("$base" -m venv "$VENV" 2>&1) && "$VENV_PY" -c 'import pip' >/dev/null 2>&1; then
    return 0
  fi
  rm -rf "$VENV"
  if command -v uv >/dev/null 2>&1 && uv venv -q --seed --python "$(command -v "$base")" "$VENV" >&2; then
    return 0
  fi
  rm -rf "$VENV"
  echo "$err" | tail -n 3 >&2
  echo "rocmdoctor: cannot create a virtual environment with $base: install its venv module (Debian/Ubuntu: sudo apt install python3-venv) or uv (https://docs.astral.sh/uv/), then run this again" >&2
  return 2
}

# rocmdoctor_install SPEC: pip install -e SPEC ('.' or '.[test]') into the environment, skipped while
# pyproject.toml is unchanged since the last successful install of SPEC or of a superset ('.[test]' covers
# '.'); the stamp lives inside the environment.
rocmdoctor_install() {
  local spec=$1 stamp="$VENV/.rocmdoctor-installed" sum have=""
  sum=$(cksum < pyproject.toml)
  [ -f "$stamp" ] && have=$(cat "$stamp")
  if { [ "$have" = "$spec $sum" ] || [ "$have" = ".[test] $sum" ]; } \
      && "$VENV_PY" -c 'import rocmdoctor' >/dev/null 2>&1; then
    return 0
  fi
  echo "rocmdoctor: installing $spec into $VENV" >&2
  "$VENV_PY" -m pip install -q -e "$spec" || return 2
  printf '%s' "$spec $sum" > "$stamp"
  ROCMDOCTOR_JUST_INSTALLED=1
}
