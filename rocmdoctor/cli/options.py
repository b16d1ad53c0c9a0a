"""Option vocabulary shared by the commands, and checks on values typer's ranges let through.

One vocabulary: ``--json`` is JSON on stdout, ``--format`` chooses among formats, ``-o/--output PATH``
writes a file, ``-q/--quiet`` keeps only problems; a renamed spelling keeps working for one release
with a warning on stderr (:func:`deprecated`).

Value checks: nan and inf pass typer's ``min=``/``max=`` checks.

A timeout of nan or 1e400 would otherwise reach ``select()``/``time_t`` deep inside a worker and end as a
traceback; a negative one would silently time every command out. Rejected here with one clear line (exit 2).
"""

from __future__ import annotations

import math
from enum import Enum
from pathlib import Path
from typing import Any, Optional

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


class OutputFormat(str, Enum):
    """``--format`` for commands that print either text for people or one JSON document."""

    text = "text"
    json = "json"


def wants_json(fmt: OutputFormat | str, as_json: bool) -> bool:
    """``--json`` is shorthand for ``--format json`` (JSON on stdout) everywhere."""
    return as_json or str(getattr(fmt, "value", fmt)) == "json"


def format_option(kinds: str = "text|json") -> Any:
    """The ``--format`` option (no short flag: ``-f`` would mean --format here and --hostfile elsewhere)."""
    import typer

    return typer.Option(OutputFormat.text, "--format", metavar=kinds,
                        help="Output format on stdout (--json = --format json).")


def quiet_option() -> Any:
    import typer

    return typer.Option(False, "--quiet", "-q", help="Only problems and errors: no header, progress or notes.")


def deprecated(old: str, new: str) -> None:
    """One line on stderr for a spelling kept for one release; the command then runs as with ``new``."""
    import sys

    print(f"rocmdoctor: warning: {old} is deprecated and will be removed in the next release; use {new}",
          file=sys.stderr)
