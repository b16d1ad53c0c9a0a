"""Reading ``matrices/*.toml`` (the only code that opens them), validating it, and its data-only cache.

Parsing the TOML costs ~35 ms of a ~50 ms load; `check --from` on a pasted file has a 0.3 s budget, so
the parsed files (plain dicts, lists, strings and numbers) are cached as JSON in the user cache directory,
keyed by the data files' names, sizes and mtimes.  The cache is data, never code: no pickle, so reading a
planted file can at worst give wrong facts — and it is read only when it and its directory belong to the
current user and nobody else can write them (a root process run with a user's ``HOME`` ignores the user's
cache and writes none there).  The cache holds the files exactly as parsed and validated, with a CRC32 of
them, under a key that pins the data files, the schema (``build.py``) and this reader; so it is built
without validating again (~7 ms), and a damaged, stale or untrusted cache is silently rebuilt.
"""

from __future__ import annotations

import json
import os
import stat
import zlib
from pathlib import Path
from typing import Any, Optional

from rocmdoctor import paths
from rocmdoctor.errors import OperationFailed
from rocmdoctor.matrix.build import FILES, build, validate
from rocmdoctor.matrix.query import Matrix

FORMAT_VERSION = 6  # bump when the cached document changes shape (6: JSON of the parsed files, was a pickle)
CACHE_GLOB = "matrix-*.json"
MAX_CACHE_BYTES = 16 * 1024 * 1024  # the data is ~0.2 MB; anything far larger is not ours

_LOADED: Optional[Matrix] = None  # the in-process memo: one load per process


def _data_files() -> list[Path]:
    files = sorted(Path(paths.MATRICES_DIR).glob("*.toml"))
    if Path(paths.AMDGPU_IDS).is_file():
        files.append(Path(paths.AMDGPU_IDS))
    return files


def cache_dir() -> Path:
    """``$ROCMDOCTOR_CACHE_DIR``, else ``$XDG_CACHE_HOME/rocmdoctor``, else ``~/.cache/rocmdoctor``."""
    env = os.environ.get("ROCMDOCTOR_CACHE_DIR")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "rocmdoctor"


def _cache_key(files: list[Path]) -> str:
    here = Path(__file__)  # this reader and the schema/build step it trusts the cached files against
    parts = [f"{FORMAT_VERSION}:{here.stat().st_mtime_ns}:{here.with_name('build.py').stat().st_mtime_ns}"]
    for f in files:
        st = f.stat()
        parts.append(f"{f}:{st.st_size}:{st.st_mtime_ns}")
    blob = "\n".join(parts).encode()
    return f"{zlib.crc32(blob):08x}{zlib.adler32(blob):08x}"


def _ours(st: os.stat_result) -> bool:
    """Owned by the effective user (never on a system without uids)."""
    geteuid = getattr(os, "geteuid", None)  # absent on Windows, where `check --from` may read a paste
    return geteuid is not None and st.st_uid == geteuid()


def _trusted(st: os.stat_result) -> bool:
    """Ours alone: owned by the effective user and not writable by group or others."""
    return _ours(st) and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def _trusted_dir(directory: Path) -> bool:
    try:
        st = os.stat(directory)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and _trusted(st)


def read_toml(path: Path) -> dict[str, Any]:
    """Parse one data file (tomllib on 3.11+, tomli before)."""
    try:
        import tomllib  # type: ignore[import-not-found,unused-ignore]
    except ModuleNotFoundError:  # pragma: no cover - Python < 3.11
        import tomli as tomllib  # type: ignore[no-redef,import-not-found,unused-ignore]
    with open(path, "rb") as fh:
        return tomllib.load(fh)


def load_raw() -> dict[str, dict[str, Any]]:
    """Every data file parsed, keyed by file stem (for the schema test and `matrix update`)."""
    return {p.stem: read_toml(p) for p in sorted(Path(paths.MATRICES_DIR).glob("*.toml"))}


def _cache_document(raw: dict[str, dict[str, Any]]) -> bytes:
    """One header line ``{"format": N, "crc32": C}`` (C over the rest), then the parsed files as JSON."""
    body = json.dumps(raw, separators=(",", ":")).encode("utf-8")
    header = json.dumps({"format": FORMAT_VERSION, "crc32": zlib.crc32(body)}).encode("utf-8")
    return header + b"\n" + body


def _parse_cache_document(blob: bytes) -> Optional[dict[str, dict[str, Any]]]:
    """The parsed files when the header is ours and the checksum holds (then they are what was validated)."""
    header, sep, body = blob.partition(b"\n")
    try:
        head = json.loads(header)
        if not sep or not isinstance(head, dict) or head.get("format") != FORMAT_VERSION:
            return None
        if head.get("crc32") != zlib.crc32(body):
            return None
        raw = json.loads(body)
    except (ValueError, RecursionError):
        return None
    return raw if isinstance(raw, dict) and set(raw) == set(FILES) else None  # every data file, nothing else


def _read_cache(cache_file: Path) -> Optional[dict[str, dict[str, Any]]]:
    """The cached parsed files, or None when absent, untrusted, oversized, damaged or not what we wrote."""
    if not _trusted_dir(cache_file.parent):
        return None
    try:
        fd = os.open(cache_file, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())  # the file opened, not a name that may since point elsewhere
        if not stat.S_ISREG(st.st_mode) or not _trusted(st) or st.st_size > MAX_CACHE_BYTES:
            return None
        try:
            blob = fh.read(MAX_CACHE_BYTES + 1)
        except OSError:
            return None
    return _parse_cache_document(blob)


def _tighten_default_dir(directory: Path) -> None:
    """Drop group/other write from our own default cache directory.

    Versions that pickled created it with the umask's mode (0775 under Ubuntu's usual umask 002), which
    the trust check would refuse forever.  Only the default location, and only when it is ours: a
    directory named by ``$ROCMDOCTOR_CACHE_DIR`` keeps the permissions its owner chose (and no cache).
    """
    if os.environ.get("ROCMDOCTOR_CACHE_DIR"):
        return
    st = os.stat(directory, follow_symlinks=False)
    if stat.S_ISDIR(st.st_mode) and _ours(st) and st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        os.chmod(directory, stat.S_IMODE(st.st_mode) & ~(stat.S_IWGRP | stat.S_IWOTH))


def _write_cache(cache_file: Path, raw: dict[str, dict[str, Any]]) -> None:
    """Best effort, atomically, into a directory only we can write: a read-only home must not break `check`."""
    directory = cache_file.parent
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        _tighten_default_dir(directory)
        if not _trusted_dir(directory):  # e.g. root running with a user's HOME: leave that directory alone
            return
        for old in [*directory.glob(CACHE_GLOB), *directory.glob("matrix-*.pickle")]:
            if old != cache_file:
                old.unlink(missing_ok=True)
        from rocmdoctor import atomic  # here, not at the top: tempfile is only worth importing on a miss

        atomic.write_bytes(cache_file, _cache_document(raw), mode=0o600)
    except (OSError, TypeError, ValueError):  # TypeError/ValueError: a value JSON cannot hold (never in valid data)
        pass


def _cache_file(files: list[Path]) -> Optional[Path]:
    try:  # no HOME, odd XDG values, vanished files: just run without a cache
        return cache_dir() / f"matrix-{_cache_key(files)}.json"
    except (OSError, RuntimeError, KeyError, ValueError):
        return None


def _parsed_and_valid() -> dict[str, dict[str, Any]]:
    raw = load_raw()
    problems = validate(raw)
    if problems:  # a hand-edited data file: say where, instead of a KeyError deep in build()
        more = f" (+{len(problems) - 3} more)" if len(problems) > 3 else ""
        raise OperationFailed("compatibility matrix data is invalid: " + "; ".join(problems[:3]) + more)
    return raw


def load(use_cache: bool = True) -> Matrix:
    """The whole matrix, once per process; ``use_cache=False`` reads and validates the files afresh."""
    global _LOADED
    if _LOADED is not None and use_cache:
        return _LOADED
    cache_file = _cache_file(_data_files()) if use_cache else None
    cached = _read_cache(cache_file) if cache_file is not None else None
    matrix: Optional[Matrix] = None
    if cached is not None:  # validated when written; the key pins the files, the schema and this reader
        try:
            matrix = build(cached)
        except (KeyError, TypeError, ValueError, AttributeError, IndexError):  # written by hand: rebuild
            matrix = None
    if matrix is None:
        raw = _parsed_and_valid()
        matrix = build(raw)
        if cache_file is not None:
            _write_cache(cache_file, raw)
    if use_cache:
        _LOADED = matrix
    return matrix
