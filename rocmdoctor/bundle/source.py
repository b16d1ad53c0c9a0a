"""What a ``--from`` argument names: a bundle directory, a ``.tar.gz``, a pasted file, or a bundled fixture.

One answer for every command that reads a captured host (``check``, ``smoke``, ``fleet``, ``install torch``,
``container``), so that ``--from NAME`` means the same everywhere.
"""

from __future__ import annotations

from pathlib import Path

from rocmdoctor.errors import BadInput
from rocmdoctor.paths import FIXTURES_DIR


def resolve_source(source: str) -> Path:
    """A path as given; else the name of a bundled fixture (``fixtures/NAME`` or ``NAME``).

    Refuses an empty value: ``Path("")`` is ``.``, and an unset shell variable (``--from "$B"``) must never
    make a command judge, or plan for, the current directory by accident.
    """
    if not source.strip():
        raise BadInput("--from: empty path (give a bundle directory, a .tar.gz or a pasted file)")
    p = Path(source).expanduser()
    if p.exists():
        return p
    name = p.name if p.parent.name == "fixtures" or str(p.parent) == "." else None
    if name and (FIXTURES_DIR / name).is_dir():
        return FIXTURES_DIR / name
    raise BadInput(f"{source}: no such file or directory")
