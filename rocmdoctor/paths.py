"""Where the shipped data lives, in a source checkout and in an installed wheel alike."""

from __future__ import annotations

from pathlib import Path

_PKG = Path(__file__).resolve().parent


def _shipped(name: str) -> Path:
    """``rocmdoctor/<name>`` in a wheel (package-dir mapping), ``<repo>/<name>`` in a checkout."""
    inside = _PKG / name
    if inside.is_dir():
        return inside
    return _PKG.parent / name


MATRICES_DIR = _shipped("matrices")
PROGRAMS_DIR = _PKG / "programs"  # programs that run in another interpreter or on another host
DATA_DIR = _PKG / "data"
AMDGPU_IDS = DATA_DIR / "amdgpu.ids"
FIXTURES_DIR = _shipped("fixtures")  # real hosts from bug reports; `check --from fixtures/NAME` finds them
