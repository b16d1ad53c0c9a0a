"""Reading ``matrices/*.toml`` (the only code that opens them), validating it, and its data-only cache.

Parsing the TOML costs ~35 ms of a ~50 ms load; `check --from` on a pasted file has a 0.3 s budget, so
the parsed files (plain dicts, lists, strings and numbers) are cached as JSON in the user cache directory,
keyed by the data files' names, sizes and mtimes.  The cache is data, never code: no pickle, so reading a
planted file can at worst give wrong facts — and it is read only when it and its directory belong to the
current user and nobody else can write them (a root process run with a user's ``HOME`` ignores the user's
cache and writes none there).  The cache holds the files exactly as parsed and validated, with a CRC32 of
them, under a key that pins the data files, the schema (``build.py``) and this reader; so it is built
without validating again (~7 ms), and a damaged, stale or untrusted cache is silently rebuilt.  The trust
rules and the document format are rocmdoctor.datacache's (shared with the signature and cause tables).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

from rocmdoctor import datacache, paths
from rocmdoctor.datacache import MAX_CACHE_BYTES, cache_dir
from rocmdoctor.errors import OperationFailed
from rocmdoctor.matrix.build import build
from rocmdoctor.matrix.query import Matrix
from rocmdoctor.matrix.schema import FILES, validate

__all__ = ["CACHE_GLOB", "FORMAT_VERSION", "MAX_CACHE_BYTES", "cache_dir", "load", "load_raw", "read_toml"]

FORMAT_VERSION = 6  # bump when the cached document changes shape (6: JSON of the parsed files, was a pickle)
CACHE_GLOB = "matrix-*.json"

_LOADED: Optional[Matrix] = None  # the in-process memo: one load per process


def _data_files() -> list[Path]:
    files = sorted(Path(paths.MATRICES_DIR).glob("*.toml"))
    if Path(paths.AMDGPU_IDS).is_file():
        files.append(Path(paths.AMDGPU_IDS))
    return files


def _cache_key(files: list[Path]) -> str:
    here = Path(__file__)  # this reader and the schema/build step it trusts the cached files against
    return datacache.cache_key(FORMAT_VERSION, [here, here.with_name("schema.py"), here.with_name("build.py")], files)


def read_toml(path: Path) -> dict[str, Any]:
    """Parse one data file (tomllib on 3.11+, tomli before)."""
    return datacache.parse_toml(path)


def load_raw() -> dict[str, dict[str, Any]]:
    """Every data file parsed, keyed by file stem (for the schema test and `matrix update`)."""
    return {p.stem: read_toml(p) for p in sorted(Path(paths.MATRICES_DIR).glob("*.toml"))}


def _cache_document(raw: dict[str, dict[str, Any]]) -> bytes:
    """One header line ``{"format": N, "crc32": C}`` (C over the rest), then the parsed files as JSON."""
    return datacache.document(raw, FORMAT_VERSION)


def _read_cache(cache_file: Path) -> Optional[dict[str, dict[str, Any]]]:
    """The cached parsed files, or None when absent, untrusted, damaged or not every data file."""
    raw = datacache.read(cache_file, FORMAT_VERSION)
    return raw if isinstance(raw, dict) and set(raw) == set(FILES) else None  # every data file, nothing else


def _write_cache(cache_file: Path, raw: dict[str, dict[str, Any]]) -> None:
    """Best effort (see rocmdoctor.datacache.write); old keys and pickles of older versions are removed."""
    datacache.write(cache_file, raw, FORMAT_VERSION, stale=(CACHE_GLOB, "matrix-*.pickle"))


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
