"""The host an install plans for: a captured bundle (``--from``), or this machine read by the capture module.

Kept out of :mod:`rocmdoctor.install.flow` (which prints) so that other features that plan wheels
(``container``) can read a host without pulling in the command's output.
"""

from __future__ import annotations

import tempfile
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported where used: `rocmdoctor --help` must not pay for the bundle reader and capture
    from rocmdoctor.model import Host


def load_bundle_host(path: str) -> Host:
    """``--from``: the host described by a capture bundle.

    :func:`resolve_source` refuses an empty path (never the current directory by accident) and, like
    ``check --from``, accepts a bundled fixture's name (NAME or fixtures/NAME).
    """
    from rocmdoctor.bundle import load_host
    from rocmdoctor.bundle.source import resolve_source

    return load_host(resolve_source(path))


def capture_local_host(python: str, timeout: float = 10.0) -> Host:
    """This machine, read by the capture module into a temporary bundle. The pip listing, the torch probe and
    docker are skipped: :func:`rocmdoctor.install.session.probe` reads the interpreter, and docker is beside
    the point."""
    from rocmdoctor.capture import QUICK_SKIP, capture_to_dir

    with tempfile.TemporaryDirectory(prefix="rocmdoctor-host-") as tmp:
        capture_to_dir(tmp, python, redact=False, timeout=timeout, root=None,
                       skip=(*QUICK_SKIP, "torch-probe", "docker-info"))
        return load_bundle_host(tmp)
