"""Read a bundle's files safely into a :class:`Tree`: a directory, a tar(.gz/.bz2/.xz) of one, or one pasted file.

Why it is built this way:

* A tar is never extracted to disk. Members are validated (no absolute paths, no ``..``, no device
  files, no links leaving the bundle, bounded count and size) and read into memory by the bounded
  reader in :mod:`rocmdoctor.bundle.tarstream`, so a hostile bundle from a fleet node or a bug report
  cannot write anywhere or exhaust the disk or memory.
* A directory is walked without following links out of it, bounded in files, links and depth.
* Every file is read up to ``file-bytes`` and ``file-lines`` (:data:`rocmdoctor.limits.LIMITS`); what is cut
  is noted, never refused. Only an unusable *path* raises :class:`~rocmdoctor.errors.BadInput` (exit 2).
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Optional

from rocmdoctor.errors import BadInput
from rocmdoctor.limits import LIMITS, LimitExceeded
from rocmdoctor.parse.text import decode, is_binary

if TYPE_CHECKING:  # the tar reader (gzip, its dataclass) is imported by the functions that read a tar
    from rocmdoctor.bundle.tarstream import Member

MAX_FILE_BYTES = LIMITS["file-bytes"]  # one file is read up to this size; the rest is cut (and noted)

# A tar of "bundle-name/..." is read as its single top-level directory, unless that directory is a bundle part.
LAYOUT_DIRS = ("root", "cmd", "logs")
_DRIVE = re.compile(r"^[A-Za-z]:[\\/]")


class Tree:
    """The bundle's files by bundle-relative POSIX path, read lazily (dir) or held in memory (tar)."""

    def __init__(self) -> None:
        self.readers: dict[str, Callable[[], bytes]] = {}
        self.links: dict[str, str] = {}  # host path -> link target ("/opt/rocm" -> "rocm-6.0.2")
        self.notes: list[str] = []
        self.alias: dict[str, str] = {}  # a link's name -> its target's name: the target's text serves both
        self._cache: dict[str, str] = {}

    def names(self) -> list[str]:
        return sorted(self.readers)

    def has(self, name: str) -> bool:
        return name in self.readers

    def canonical(self, name: str) -> str:
        """The file a link name stands for (its own name when it is not a link): read each text once."""
        return self.alias.get(name, name)

    def text(self, name: str) -> Optional[str]:
        if name not in self.readers:
            return None
        name = self.canonical(name)
        if name in self._cache:
            return self._cache[name]
        reader = self.readers.get(name)
        if reader is None:
            return None
        try:
            data = reader()
        except OSError as exc:
            self.notes.append(f"{name}: unreadable ({exc.strerror or exc})")
            return None
        if len(data) > MAX_FILE_BYTES:
            self.notes.append(f"{name}: larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB; only the start was read")
            data = data[:MAX_FILE_BYTES]
        text = _cap_lines(decode(data), name, self.notes)
        self._cache[name] = text
        return text


def _cap_lines(text: str, name: str, notes: list[str]) -> str:
    """``text`` cut after ``file-lines`` lines (a log of millions of short lines costs every parser dearly)."""
    most = LIMITS["file-lines"]
    if text.count("\n", 0, most * 2) < most and text.count("\n") < most:  # cheap check first
        return text
    pos = -1
    for _ in range(most):
        pos = text.find("\n", pos + 1)
        if pos < 0:
            return text
    notes.append(f"{name}: more than {most:,} lines; only the first {most:,} were read")
    return text[: pos + 1]


def _file_reader(path: Path) -> Callable[[], bytes]:
    def read() -> bytes:
        with open(path, "rb") as fh:
            return fh.read(MAX_FILE_BYTES + 1)

    return read


def _blob_reader(blob: bytes) -> Callable[[], bytes]:
    return lambda: blob


# ------------------------------------------------------------------------------------------ directory


class _DirWalk:
    """Counts and link bookkeeping of one bounded walk over a bundle directory."""

    def __init__(self, top: Path, real_top: Path) -> None:
        self.top = top
        self.real_top = real_top
        self.tree = Tree()
        self.count = 0
        self.links = 0
        self.symlinks: dict[str, str] = {}  # bundle path of a link -> bundle path of its target

    def count_entry(self) -> None:
        self.count += 1
        if self.count > LIMITS["members"]:
            raise LimitExceeded("members", f"{self.top}: more than {LIMITS['members']:,} files")

    def follow(self, full: Path, rel: str) -> Optional[Path]:
        """The file a link inside the bundle points to; ``None`` (and a note) for one that leaves it."""
        self.links += 1
        if self.links > LIMITS["links"]:
            raise LimitExceeded("links", f"{self.top}: more than {LIMITS['links']:,} links")
        try:
            target = full.resolve(strict=True)
        except (OSError, RuntimeError):
            self.tree.notes.append(f"{rel}: dangling link skipped")
            return None
        if self.real_top != target and self.real_top not in target.parents:
            self.tree.notes.append(f"{rel}: link pointing outside the bundle skipped")
            return None
        if rel.startswith("root/"):
            self.tree.links["/" + rel[len("root/"):]] = os.readlink(full)
        if not target.is_file():
            return None
        self.symlinks[rel] = target.relative_to(self.real_top).as_posix()
        return target

    def add(self, full: Path, rel: str) -> None:
        if full.is_symlink():
            target = self.follow(full, rel)
            if target is None:
                return
            full = target
        try:
            st = full.stat()
        except OSError:
            return
        if stat.S_ISREG(st.st_mode):
            self.tree.readers[rel] = _file_reader(full)


def dir_tree(top: Path) -> Tree:
    """Walk a bundle directory (bounded); links that leave it are skipped, never followed."""
    try:
        real_top = top.resolve(strict=True)
    except OSError as exc:
        raise BadInput(f"{top}: cannot open directory ({exc.strerror or exc})") from None
    if not os.access(real_top, os.R_OK | os.X_OK):
        raise BadInput(f"{top}: directory is not readable")
    walk = _DirWalk(top, real_top)
    for dirpath, dirnames, filenames in os.walk(real_top, followlinks=False, onerror=None):
        dirnames.sort()
        rel_dir = Path(dirpath).relative_to(real_top)
        if len(rel_dir.parts) >= LIMITS["depth"]:
            raise LimitExceeded("depth", f"{top}: directories nested more than {LIMITS['depth']} levels deep")
        for name in sorted(filenames) + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
            walk.count_entry()
            walk.add(Path(dirpath) / name, (rel_dir / name).as_posix())
    tree = walk.tree
    tree.alias = {rel: target for rel, target in walk.symlinks.items() if target in tree.readers and target != rel}
    return tree


# ------------------------------------------------------------------------------------------------ tar


def _safe_member_name(name: str) -> str:
    """The member's bundle path, or BadInput for absolute paths and ``..``."""
    if name.startswith(("/", "\\")) or _DRIVE.match(name):
        raise BadInput(f"unsafe bundle: member {name!r} has an absolute path")
    parts = [p for p in PurePosixPath(name.replace("\\", "/")).parts if p not in ("", ".")]
    if ".." in parts:
        raise BadInput(f"unsafe bundle: member {name!r} points outside the bundle ('..')")
    return "/".join(parts)


def _link_inside(member: str, target: str, hard: bool) -> Optional[str]:
    """The bundle path a link resolves to, or ``None`` when it leaves the bundle."""
    if target.startswith("/") or _DRIVE.match(target):
        return None
    out: list[str] = [] if hard else member.split("/")[:-1]
    for part in target.replace("\\", "/").split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if not out:
                return None
            out.pop()
        else:
            out.append(part)
    return "/".join(out)


class _TarRead:
    """What one pass over a tar's members collected: file bytes, link aliases, host links, notes."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.tree = Tree()
        self.data: dict[str, bytes] = {}
        self.aliases: dict[str, str] = {}  # link name -> the member it points to (its text is read once)
        self.links = 0

    def add(self, m: Member) -> None:
        name = _safe_member_name(m.name)
        if m.kind == "special":
            raise BadInput(f"unsafe bundle: member {m.name!r} is a device or fifo (or a sparse file)")
        if m.kind in ("symlink", "hardlink"):
            self.add_link(m, name)
            return
        if m.kind != "file" or m.data is None:
            return
        self.data[name] = m.data
        if m.cut:
            self.tree.notes.append(f"{name}: larger than {LIMITS['file-bytes'] >> 20} MiB; only the start was read")

    def add_link(self, m: Member, name: str) -> None:
        inside = _link_inside(name, m.linkname, hard=m.kind == "hardlink")
        if inside is None:
            raise BadInput(f"unsafe bundle: link {m.name!r} -> {m.linkname!r} points outside the bundle")
        self.links += 1
        if self.links > LIMITS["links"]:
            raise LimitExceeded("links", f"{self.label}: more than {LIMITS['links']:,} links")
        if m.kind == "symlink" and name.startswith("root/"):
            self.tree.links["/" + name[len("root/"):]] = m.linkname
        self.aliases[name] = inside

    def finish(self) -> Tree:
        """Resolve link chains, drop a single wrapping directory and hand out readers."""
        tree, data = self.tree, self.data
        for name, target in self.aliases.items():
            while target in self.aliases and target != name and self.aliases[target] != name:
                target = self.aliases[target]
            if target in data and name not in data:
                tree.alias[name] = target
        everything = list(data) + list(tree.alias)
        tops = {n.split("/", 1)[0] for n in everything}
        if len(tops) == 1 and all("/" in n for n in everything):
            top = next(iter(tops))
            if top not in LAYOUT_DIRS:
                cut = len(top) + 1
                data = {n[cut:]: b for n, b in data.items()}
                tree.alias = {n[cut:]: t[cut:] for n, t in tree.alias.items()}
        for name, blob in data.items():
            tree.readers[name] = _blob_reader(blob)
        for name, target in tree.alias.items():
            tree.readers[name] = tree.readers[target]
        return tree


def _looks_like_archive(head: bytes) -> bool:
    return head[:2] in (b"\x1f\x8b", b"BZ") or head[:6] == b"\xfd7zXZ\0" or head[257:262] == b"ustar" \
        or _plain_tar_header(head)


def tar_tree(path: Path) -> Tree:
    """Read a tar(.gz) bundle into memory after validating every member (bounded: :mod:`.tarstream`)."""
    from rocmdoctor.bundle.tarstream import STREAM_ERRORS, members, open_stream  # only a tar needs it

    reading = _TarRead(str(path))
    try:
        raw = open(path, "rb")  # noqa: SIM115 - closed by the ``with raw`` below
    except OSError as exc:
        raise BadInput(f"{path}: cannot read ({exc.strerror or exc})") from None
    with raw:
        head = raw.read(512)
        raw.seek(0)
        if not _looks_like_archive(head):
            raise BadInput(f"{path}: not a readable .tar.gz bundle (no gzip, bzip2, xz or tar data)")
        try:
            for m in members(open_stream(raw), reading.label):
                reading.add(m)
        except BadInput:
            raise
        except STREAM_ERRORS as exc:
            raise BadInput(f"{path}: corrupt or truncated archive ({exc})") from None
    return reading.finish()


def _plain_tar_header(head: bytes) -> bool:
    """A v7 tar (no ustar magic) still has a valid header checksum."""
    from rocmdoctor.bundle.tarstream import checksum_ok

    return len(head) == 512 and checksum_ok(head)


def is_tar(path: Path) -> bool:
    name = path.name.lower()
    if name.endswith((".tar.gz", ".tgz", ".tar", ".tar.xz", ".tar.bz2")):
        return True
    try:
        with open(path, "rb") as fh:
            head = fh.read(512)
    except OSError:
        return False
    if head[:2] == b"\x1f\x8b":
        return True
    return len(head) >= 262 and head[257:262] == b"ustar"


# -------------------------------------------------------------------------------------------- pasted


def pasted_text(path: Path) -> tuple[str, list[str]]:
    """One pasted file's text (bounded) and the notes on what was cut; BadInput when it is empty or binary."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise BadInput(f"{path}: cannot read ({exc.strerror or exc})") from None
    notes: list[str] = []
    if len(data) > MAX_FILE_BYTES:
        notes.append(f"{path.name}: larger than {MAX_FILE_BYTES >> 20} MiB; only the start was read")
        data = data[:MAX_FILE_BYTES]
    text = decode(data)
    if not text.strip():
        raise BadInput(f"{path}: the file is empty")
    if is_binary(text):
        raise BadInput(f"{path}: binary data, not a capture bundle or pasted text")
    return text, notes
