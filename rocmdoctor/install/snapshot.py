"""A transaction on site-packages: :class:`Snapshot` backs an environment's files up and restores them exactly.

:class:`Snapshot` records every file under the target's site-packages (and its scripts directory) and keeps a
hard-linked backup of each (a copy where links are impossible). Installers unlink files before writing them,
so the backup keeps the old content for free. :meth:`Snapshot.restore` makes the tree exactly what it was:
files that were not there are deleted, files that are not the recorded inode are put back. This undoes a
half-extracted wheel, pip's partial "installed torch, failed on torchaudio", a Ctrl-C and a failed
verification alike, without the network and without knowing what pip did. :func:`recover` does the same
from the journal a killed run left behind (see :mod:`rocmdoctor.install.lock`).
"""

from __future__ import annotations

import contextlib
import csv
import json
import os
import shutil
import stat
import subprocess
import tempfile
import time
from dataclasses import dataclass
from typing import Any, Optional

from packaging.utils import canonicalize_name

from rocmdoctor.install import lock as txn
from rocmdoctor.install.target import Target


@dataclass(frozen=True)
class _Entry:
    kind: str  # "f" file, "l" symlink, "d" directory
    ino: int = 0
    size: int = 0
    mtime_ns: int = 0
    link: str = ""


def _scan(root: str, shallow: bool) -> dict[str, _Entry]:
    """Every entry below ``root`` by relative path (files only at the top level when ``shallow``)."""
    out: dict[str, _Entry] = {}
    stack = [""]
    while stack:
        rel = stack.pop()
        try:
            it = os.scandir(os.path.join(root, rel) if rel else root)
        except FileNotFoundError:
            continue
        with it:
            for e in it:
                r = f"{rel}/{e.name}" if rel else e.name
                st = e.stat(follow_symlinks=False)
                if stat.S_ISLNK(st.st_mode):
                    out[r] = _Entry("l", link=os.readlink(e.path))
                elif stat.S_ISDIR(st.st_mode):
                    if not shallow:
                        out[r] = _Entry("d")
                        stack.append(r)
                else:
                    out[r] = _Entry("f", st.st_ino, st.st_size, st.st_mtime_ns)
    return out


def _record_files(site: str, names: tuple[str, ...]) -> set[str]:
    """Absolute paths listed in the RECORD of the named distributions installed in ``site``."""
    out: set[str] = set()
    wanted = {canonicalize_name(n) for n in names}
    try:
        infos = [e for e in os.scandir(site) if e.name.endswith(".dist-info")]
    except OSError:
        return out
    for info in infos:
        if canonicalize_name(info.name[: -len(".dist-info")].rsplit("-", 1)[0]) not in wanted:
            continue
        try:
            with open(os.path.join(info.path, "RECORD"), newline="") as fh:
                out.update(os.path.normpath(os.path.join(site, row[0])) for row in csv.reader(fh) if row)
        except OSError:
            continue
    return out


class Snapshot:
    """The files of an environment at one moment, with a backup that makes restoring them exact."""

    def __init__(self, roots: list[tuple[str, bool]], backup: str) -> None:
        self.roots = roots  # (directory, shallow)
        self.backup = backup
        self.entries: list[dict[str, _Entry]] = []
        self.saved: list[dict[str, str]] = []  # per root: relative path -> its backup (a flat name in ``backup``)
        self.copied = 0  # files that had to be copied because a hard link was impossible
        self.lock: Optional[txn.EnvLock] = None  # held from take() to discard(): one install per environment
        self.recovered: list[str] = []  # what an earlier, interrupted install left and take() finished

    @classmethod
    def take(cls, target: Target, untouched: tuple[str, ...] = ("pip",)) -> Snapshot:
        """Record and back up site-packages (purelib/platlib) and the top level of the scripts directory.

        The files of the ``untouched`` distributions (the installer's own pip, never part of a torch closure)
        are recorded but not backed up: that halves the cost in a fresh venv. Should they change anyway,
        :meth:`restore` reports it instead of pretending.
        """
        roots: list[tuple[str, bool]] = []
        for d in (target.purelib, target.platlib):
            if d not in [r for r, _ in roots]:
                roots.append((d, False))
        if not any(target.scripts.startswith(r + os.sep) for r, _ in roots):
            roots.append((target.scripts, True))
        parent = os.path.dirname(os.path.abspath(target.purelib))
        env_lock = txn.lock(parent)
        try:
            recovered = recover(parent)
            try:
                backup = tempfile.mkdtemp(prefix=txn.ROLLBACK_PREFIX, dir=parent)
            except OSError:
                backup = tempfile.mkdtemp(prefix="rocmdoctor-rollback-")
            snap = cls(roots, backup)
            snap.lock, snap.recovered = env_lock, recovered
            snap._take(target, untouched)
        except BaseException:
            env_lock.release()
            raise
        return snap

    @classmethod
    def from_journal(cls, doc: dict[str, Any], backup: str) -> Snapshot:
        """The snapshot a journal (:func:`txn.write_journal`) describes, its backup in ``backup``."""
        snap = cls([(r, bool(s)) for r, s in doc["roots"]], backup)
        snap.entries = [{rel: _Entry(*v) for rel, v in ent.items()} for ent in doc["entries"]]
        snap.saved = doc["saved"]
        return snap

    def _take(self, target: Target, untouched: tuple[str, ...]) -> None:
        snap, roots, backup = self, self.roots, self.backup
        skip = _record_files(target.purelib, untouched)
        for i, (root, shallow) in enumerate(roots):
            entries = _scan(root, shallow)
            snap.entries.append(entries)
            saved: dict[str, str] = {}
            snap.saved.append(saved)
            for rel, e in entries.items():
                if e.kind != "f" or os.path.join(root, rel) in skip:
                    continue
                # Flat: one directory holds every backup. Mirroring the tree cost a mkdir per directory, and a
                # mkdir costs more than the hard links it holds (0.5 ms against 15 us here; torch has thousands).
                dest = os.path.join(backup, f"{i}-{len(saved)}")
                try:
                    os.link(os.path.join(root, rel), dest)
                except OSError:
                    shutil.copy2(os.path.join(root, rel), dest)
                    snap.copied += 1
                saved[rel] = dest
        # the journal last: its presence says the backup is complete and pip may have run since
        txn.write_journal(backup, roots, snap.entries, snap.saved)

    def changed(self) -> bool:
        """Whether anything differs from the snapshot (cheap: inode/kind comparison)."""
        return any(_scan(root, shallow) != before for (root, shallow), before in zip(self.roots, self.entries))

    def restore(self) -> list[str]:
        """Make every root exactly what it was; returns the problems (empty = restored exactly)."""
        problems: list[str] = []
        for i, ((root, shallow), before) in enumerate(zip(self.roots, self.entries)):
            now = _scan(root, shallow)
            # 1. remove what was not there (or changed kind), top-down so a removed directory takes its content
            for rel in sorted(now, key=lambda r: (r.count("/"), r)):
                e = now[rel]
                old = before.get(rel)
                path = os.path.join(root, rel)
                if old is not None and old.kind == e.kind and (e.kind != "l" or old.link == e.link):
                    continue
                if not os.path.lexists(path):
                    continue  # already gone with its directory
                try:
                    if e.kind == "d":
                        shutil.rmtree(path)
                    else:
                        os.unlink(path)
                except OSError as exc:
                    problems.append(f"could not remove {path}: {exc}")
            # 2. put back what was there
            for rel in sorted(before, key=lambda r: (r.count("/"), r)):
                e = before[rel]
                path = os.path.join(root, rel)
                try:
                    if e.kind == "d":
                        os.makedirs(path, exist_ok=True)
                    elif e.kind == "l":
                        if not os.path.lexists(path):
                            os.makedirs(os.path.dirname(path), exist_ok=True)
                            os.symlink(e.link, path)
                    else:
                        self._restore_file(i, rel, e, path, problems)
                except OSError as exc:
                    problems.append(f"could not restore {path}: {exc}")
        return problems

    def _restore_file(self, i: int, rel: str, e: _Entry, path: str, problems: list[str]) -> None:
        try:
            st = os.lstat(path)
            if st.st_ino == e.ino and st.st_size == e.size and st.st_mtime_ns == e.mtime_ns:
                return
        except FileNotFoundError:
            pass
        src = self.saved[i].get(rel, "")
        try:
            bst = os.stat(src)
        except FileNotFoundError:
            problems.append(f"{path} changed, but it belongs to a distribution that was not backed up")
            return
        if bst.st_size != e.size or bst.st_mtime_ns != e.mtime_ns:
            problems.append(f"{path} was modified in place by the installer; its old content is lost")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = f"{path}.rocmdoctor-restore"
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        try:
            os.link(src, tmp)
        except OSError:
            shutil.copy2(src, tmp)
        os.replace(tmp, path)

    def discard(self, background: bool = False) -> None:
        """Drop the backup (after success, or after a restore). ``background``: hand the deletion of the
        (possibly tens of thousands of) links to a detached ``rm`` so the user does not wait for it."""
        try:
            if background and shutil.which("rm"):
                trash = f"{self.backup}.trash"
                try:
                    os.rename(self.backup, trash)
                    subprocess.Popen(["rm", "-rf", "--", trash], stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
                    return
                except OSError:
                    pass
            shutil.rmtree(self.backup, ignore_errors=True)
        finally:
            if self.lock is not None:
                self.lock.release()
                self.lock = None


def recover(site_parent: str) -> list[str]:
    """Finish what an interrupted install left in ``site_parent`` (call with :func:`txn.lock` held); what was done."""
    done: list[str] = []
    try:
        names = sorted(os.listdir(site_parent))
    except OSError:
        names = []
    for name in names:
        path = os.path.join(site_parent, name)
        if not name.startswith(txn.ROLLBACK_PREFIX) or not os.path.isdir(path):
            continue
        if name.endswith(".trash"):
            shutil.rmtree(path, ignore_errors=True)
            done.append(f"removed {path}: the backup of a finished install that was still being deleted")
            continue
        try:
            with open(os.path.join(path, txn.JOURNAL), encoding="utf-8") as fh:
                doc = json.load(fh)
        except FileNotFoundError:
            shutil.rmtree(path, ignore_errors=True)
            done.append(f"removed {path}: an install stopped while taking its backup, before anything changed")
            continue
        except (OSError, ValueError) as exc:
            done.append(f"left {path} in place: its journal is unreadable ({exc}); remove it by hand")
            continue
        done.append(_roll_back(Snapshot.from_journal(doc, path), doc, path))
    done += txn.stale_workdirs()
    return done


def _roll_back(snap: Snapshot, doc: dict[str, Any], path: str) -> str:
    """Restore a journalled snapshot; what happened, in one line (the backup is kept if anything failed)."""
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(doc.get("created", 0)))
    problems = snap.restore()
    if problems:
        return (f"an install interrupted at {when} (pid {doc.get('pid')}) was rolled back with problems: "
                + "; ".join(problems[:5]) + f" (backup kept in {path})")
    shutil.rmtree(path, ignore_errors=True)
    return (f"an install interrupted at {when} (pid {doc.get('pid')}) was found and rolled back: "
            "the environment is what it was before it")
