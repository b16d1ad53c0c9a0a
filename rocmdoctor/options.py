"""Checks on option values that typer's ranges let through: nan and inf pass ``min=``/``max=`` checks.

A timeout of nan or 1e400 would otherwise reach ``select()``/``time_t`` deep inside a worker and end as a
traceback; a negative one would silently time every command out. Rejected here with one clear line (exit 2).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Optional

from rocmdoctor.errors import BadInput

MAX_SECONDS = 86400.0


def seconds(option: str, value: Optional[float], minimum: float = 0.1,
            maximum: float = MAX_SECONDS) -> Optional[float]:
    """``value`` when it is a finite number of seconds in [minimum, maximum]; else BadInput (exit 2)."""
    if value is None:
        return None
    if not math.isfinite(value) or not minimum <= value <= maximum:
        raise BadInput(f"{option} {value:g}: expected seconds between {minimum:g} and {maximum:g}")
    return value


def writable_file(option: str, path: Path) -> None:
    """Refuse (exit 2) an output file that cannot be written, before any slow work produces its content.

    A real probe, not permission bits: those say yes to root even under /proc. A file the probe created is
    removed again, so a refused run leaves nothing behind.
    """
    if path.is_dir():
        raise BadInput(f"{option} {path}: is a directory")
    existed = path.exists()
    try:
        with open(path, "a"):
            pass
    except OSError as exc:
        raise BadInput(f"{option} {path}: cannot write ({exc.strerror or exc})") from None
    if not existed:
        path.unlink()
