"""Data-only caches of parsed data files, and the ONE set of rules for when such a cache may be believed.

Parsing shipped TOML costs a command more than it does (the matrices ~35 ms, the signature table ~8 ms plus
~3 ms to import tomllib), so the parsed files are kept as JSON in the user cache directory, under a key that
pins the data files (names, sizes, mtimes) and the code that reads them.  The cache is data, never code: no
pickle, so reading a planted file can at worst give wrong facts — and it is read only when it and its
directory belong to the current user and nobody else can write them (a root process run with a user's
``HOME`` ignores the user's cache and writes none there).  A document is one header line
``{"format": N, "crc32": C}`` (C over the rest), then the JSON; a damaged, stale or untrusted cache is
silently ignored and rebuilt.  The matrix loader (rocmdoctor.matrix.load) and the table loaders
(signatures, causes) all go through this module, so there is one implementation of these checks.
"""

from __future__ import annotations

import json
import os
import stat
import zlib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Optional

MAX_CACHE_BYTES = 16 * 1024 * 1024  # the data is ~0.2 MB; anything far larger is not ours
TABLE_FORMAT = 1  # bump when a cached table document changes shape


def cache_dir() -> Path:
    """``$ROCMDOCTOR_CACHE_DIR``, else ``$XDG_CACHE_HOME/rocmdoctor``, else ``~/.cache/rocmdoctor``."""
    env = os.environ.get("ROCMDOCTOR_CACHE_DIR")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "rocmdoctor"


def cache_key(version: int, code: Iterable[Path], files: Iterable[Path]) -> str:
    """A key over the document format, the code that reads/validates the data, and the data files."""
    parts = [f"{version}:" + ":".join(str(p.stat().st_mtime_ns) for p in code)]
    for f in files:
        st = f.stat()
        parts.append(f"{f}:{st.st_size}:{st.st_mtime_ns}")
    blob = "\n".join(parts).encode()
    return f"{zlib.crc32(blob):08x}{zlib.adler32(blob):08x}"


def ours(st: os.stat_result) -> bool:
    """Owned by the effective user (never on a system without uids)."""
    geteuid = getattr(os, "geteuid", None)  # absent on Windows, where `check --from` may read a paste
    return geteuid is not None and st.st_uid == geteuid()


def trusted(st: os.stat_result) -> bool:
    """Ours alone: owned by the effective user and not writable by group or others."""
    return ours(st) and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def trusted_dir(directory: Path) -> bool:
    try:
        st = os.stat(directory)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and trusted(st)


def document(data: Any, version: int) -> bytes:
    """The header line, then ``data`` as JSON (TypeError/ValueError for a value JSON cannot hold)."""
    body = json.dumps(data, separators=(",", ":")).encode("utf-8")
    header = json.dumps({"format": version, "crc32": zlib.crc32(body)}).encode("utf-8")
    return header + b"\n" + body


def parse_document(blob: bytes, version: int) -> Optional[Any]:
    """The data when the header is ours and the checksum holds (then it is what was written), else None."""
    header, sep, body = blob.partition(b"\n")
    try:
        head = json.loads(header)
        if not sep or not isinstance(head, dict) or head.get("format") != version:
            return None
        if head.get("crc32") != zlib.crc32(body):
            return None
        return json.loads(body)
    except (ValueError, RecursionError):
        return None


def read(cache_file: Path, version: int) -> Optional[Any]:
    """The cached data, or None when absent, untrusted, oversized, damaged or not what we wrote."""
    if not trusted_dir(cache_file.parent):
        return None
    try:
        fd = os.open(cache_file, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())  # the file opened, not a name that may since point elsewhere
        if not stat.S_ISREG(st.st_mode) or not trusted(st) or st.st_size > MAX_CACHE_BYTES:
            return None
        try:
            blob = fh.read(MAX_CACHE_BYTES + 1)
        except OSError:
            return None
    return parse_document(blob, version)


def _tighten_default_dir(directory: Path) -> None:
    """Drop group/other write from our own default cache directory.

    Versions that pickled created it with the umask's mode (0775 under Ubuntu's usual umask 002), which
    the trust check would refuse forever.  Only the default location, and only when it is ours: a
    directory named by ``$ROCMDOCTOR_CACHE_DIR`` keeps the permissions its owner chose (and no cache).
    """
    if os.environ.get("ROCMDOCTOR_CACHE_DIR"):
        return
    st = os.stat(directory, follow_symlinks=False)
    if stat.S_ISDIR(st.st_mode) and ours(st) and st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        os.chmod(directory, stat.S_IMODE(st.st_mode) & ~(stat.S_IWGRP | stat.S_IWOTH))


def write(cache_file: Path, data: Any, version: int, stale: tuple[str, ...] = ()) -> None:
    """Best effort, atomically, into a directory only we can write: a read-only home must not break `check`.
    Files matching a ``stale`` glob (older keys of the same cache) are removed first."""
    directory = cache_file.parent
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        _tighten_default_dir(directory)
        if not trusted_dir(directory):  # e.g. root running with a user's HOME: leave that directory alone
            return
        for old in [p for pattern in stale for p in directory.glob(pattern)]:
            if old != cache_file:
                old.unlink(missing_ok=True)
        from rocmdoctor import atomic  # here, not at the top: tempfile is only worth importing on a miss

        atomic.write_bytes(cache_file, document(data, version), mode=0o600)
    except (OSError, TypeError, ValueError):  # TypeError/ValueError: a value JSON cannot hold (never in valid data)
        pass


def parse_toml(path: Path) -> dict[str, Any]:
    """Parse one data file (tomllib on 3.11+, tomli before); imported here, only when a file is parsed."""
    try:
        import tomllib  # type: ignore[import-not-found,unused-ignore]
    except ModuleNotFoundError:  # pragma: no cover - Python < 3.11
        import tomli as tomllib  # type: ignore[no-redef,import-not-found,unused-ignore]
    with open(path, "rb") as fh:
        return tomllib.load(fh)


def named_cache_file(name: str, inputs: list[Path]) -> Optional[Path]:
    """Where the cache ``name`` derived from ``inputs`` (data files and the code deriving from them) lives."""
    try:  # no HOME, odd XDG values, vanished files: just run without a cache
        return cache_dir() / f"{name}-{cache_key(TABLE_FORMAT, [Path(__file__)], inputs)}.json"
    except (OSError, RuntimeError, KeyError, ValueError):
        return None


def peek(name: str, inputs: list[Path], usable: Callable[[Any], bool]) -> Optional[Any]:
    """The cached ``name`` for these ``inputs`` when a trusted, usable one exists; None otherwise (nothing derived)."""
    cache_file = named_cache_file(name, inputs)
    data = read(cache_file, TABLE_FORMAT) if cache_file is not None else None
    return data if data is not None and usable(data) else None


def cached(name: str, inputs: list[Path], derive: Callable[[], Any], usable: Callable[[Any], bool]) -> Any:
    """``derive()`` (plain JSON data), from the cache when a trusted one for these ``inputs`` is ``usable``."""
    cache_file = named_cache_file(name, inputs)
    data = read(cache_file, TABLE_FORMAT) if cache_file is not None else None
    if data is not None and usable(data):
        return data
    data = derive()
    if cache_file is not None:
        write(cache_file, data, TABLE_FORMAT, stale=(f"{name}-*.json",))
    return data


def table_cache_file(name: str, path: Path) -> Optional[Path]:
    """Where the cached parse of the shipped table ``name`` lives (None when no cache can be named)."""
    return named_cache_file(name, [path])


def cached_table(name: str, path: Path) -> dict[str, Any]:
    """The shipped TOML table at ``path`` as parsed, from the cache when a trusted one matches the file.

    Only the parse is cached: the caller validates every row of what it gets, cached or not, so a broken
    row is reported the same either way.  OSError/ValueError as :func:`parse_toml` raises them."""
    data: dict[str, Any] = cached(name, [path], lambda: parse_toml(path), lambda d: isinstance(d, dict))
    return data
