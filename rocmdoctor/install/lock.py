"""Crash safety for ``install``: one install per environment at a time, and recovery of an interrupted one.

An install is a transaction on site-packages: :class:`~rocmdoctor.install.snapshot.Snapshot` backs the files up
into ``.rocmdoctor-rollback-*`` beside site-packages, pip changes them, and success or a restore discards
the backup. Ctrl-C and SIGTERM restore on the spot; a SIGKILL, a power cut or an OOM kill cannot. So:

* the snapshot writes a journal (``journal.json``: what every file was, and its backup) before pip starts;
* :func:`lock` holds an exclusive ``flock`` on the environment for the whole transaction (a second
  ``rocmdoctor install`` into the same environment is refused, it never interleaves);
* :func:`rocmdoctor.install.snapshot.recover`, called under that lock before a new snapshot, finds what an
  earlier run left behind:
  a journal means pip may have run half-way, so the environment is rolled back to the journal exactly;
  a backup without a journal (killed while snapshotting, before pip started) or one marked for deletion is
  removed; ``rocmdoctor-install-*`` work directories of processes that no longer exist are removed. Each is
  reported, never silently cleaned;
* pip (and the prewarmed interpreter that runs it) die with rocmdoctor
  (:func:`rocmdoctor.install.session.die_with_parent_hook`), so no
  orphaned pip finishes an unverified install after rocmdoctor was killed.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import tempfile
import time
from typing import Any, Optional

from rocmdoctor.errors import OperationFailed

ROLLBACK_PREFIX = ".rocmdoctor-rollback-"
WORK_PREFIX = "rocmdoctor-install-"
JOURNAL = "journal.json"
LOCK_NAME = ".rocmdoctor-install.lock"


class EnvLock:
    """An exclusive, non-blocking ``flock`` on one environment, released by :meth:`release` or process death."""

    def __init__(self, path: str, fd: int) -> None:
        self.path = path
        self.fd: Optional[int] = fd

    def release(self) -> None:
        if self.fd is not None:
            with contextlib.suppress(OSError):
                os.close(self.fd)
            self.fd = None


def lock(site_parent: str) -> EnvLock:
    """Lock the environment whose site-packages sit in ``site_parent``; OperationFailed if another install runs."""
    import fcntl

    path = os.path.join(site_parent, LOCK_NAME)
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:  # a read-only parent: lock in the temp directory, keyed by the environment
        key = hashlib.sha256(site_parent.encode()).hexdigest()[:16]
        path = os.path.join(tempfile.gettempdir(), f"rocmdoctor-install-{key}.lock")
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        try:
            holder = os.read(fd, 32).decode("ascii", "replace").strip() or "?"
        finally:
            os.close(fd)
        raise OperationFailed(f"another rocmdoctor install into this environment is running (pid {holder}); "
                              f"wait for it to finish (lock: {path})") from None
    os.ftruncate(fd, 0)
    os.write(fd, f"{os.getpid()}\n".encode())
    return EnvLock(path, fd)


def write_journal(backup: str, roots: list[tuple[str, bool]], entries: list[dict[str, Any]],
                  saved: list[dict[str, str]]) -> None:
    """Record the snapshot beside its backup (atomically) so that a later run can restore it."""
    from rocmdoctor import atomic

    doc = {"schema": "rocmdoctor-rollback/1", "pid": os.getpid(), "created": time.time(),
           "roots": [[r, s] for r, s in roots],
           "entries": [{rel: [e.kind, e.ino, e.size, e.mtime_ns, e.link] for rel, e in ent.items()} for ent in entries],
           "saved": saved}
    atomic.write_text(os.path.join(backup, JOURNAL), json.dumps(doc, separators=(",", ":")))


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def stale_workdirs() -> list[str]:
    """Remove the work directories of installs whose process is gone; what was removed."""
    done: list[str] = []
    tmp = tempfile.gettempdir()
    try:
        names = os.listdir(tmp)
    except OSError:
        return done
    for name in names:
        if not name.startswith(WORK_PREFIX):
            continue
        path = os.path.join(tmp, name)
        try:
            with open(os.path.join(path, "pid")) as fh:
                pid = int(fh.read().strip())
        except (OSError, ValueError):
            continue  # not ours to judge (no pid file: an older rocmdoctor, or not a work directory)
        if not _pid_alive(pid):
            shutil.rmtree(path, ignore_errors=True)
            done.append(f"removed {path}: the work directory of an install that was killed (pid {pid})")
    return done


def new_workdir() -> str:
    """A work directory that says which process owns it (so a later run can tell it was abandoned)."""
    work = tempfile.mkdtemp(prefix=WORK_PREFIX)
    with open(os.path.join(work, "pid"), "w") as fh:
        fh.write(f"{os.getpid()}\n")
    return work
