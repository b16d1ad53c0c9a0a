"""Atomic output files: written beside their destination, fsync'd, then renamed over it.

Every file rocmdoctor writes for the user (reports, lock files, generated Dockerfiles, saved bundles)
goes through here, so a full disk, a kill or an exception mid-way leaves the old file (or none), never a
truncated one that looks whole. (``capture.py`` has its own copy: it must stay standard-library only.)
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Union


def write_bytes(path: Union[str, Path], data: bytes, mode: int = 0o644) -> None:
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=str(path.parent))
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_text(path: Union[str, Path], text: str, mode: int = 0o644) -> None:
    write_bytes(path, text.encode("utf-8"), mode)
