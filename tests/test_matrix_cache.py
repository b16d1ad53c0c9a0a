"""The matrix cache: data only (JSON, never pickle), read only when it is ours alone, rebuilt otherwise.

Each untrusted case plants a cache that is valid but carries one wrong fact (gfx1100 removed from its
releases) and checks the answer is the true one; the trusted case plants the same file and checks it IS
served, so the untrusted cases cannot pass merely because the cache is never read.
"""

from __future__ import annotations

import importlib
import json
import os
import zlib
from pathlib import Path

import pytest

from rocmdoctor import matrix as mx

mload = importlib.import_module("rocmdoctor.matrix.load")  # the module: the package re-exports its load()

NOBODY = 65534


@pytest.fixture(autouse=True)
def _memo(monkeypatch):
    """No in-process memo during a test, and the process's own memo back after it: the matrices these tests
    load carry planted wrong facts, which must not leak into later tests."""
    monkeypatch.setattr(mload, "_LOADED", None)


@pytest.fixture()
def cache(tmp_path, monkeypatch):
    """A fresh, private cache directory."""
    d = tmp_path / "cache"
    d.mkdir(mode=0o700)
    monkeypatch.setenv("ROCMDOCTOR_CACHE_DIR", str(d))
    return d


def _fresh() -> mx.Matrix:
    mload._LOADED = None
    return mx.load()


def _plant_wrong_fact(cache_dir: Path) -> Path:
    """Write the cache load() would look for, with gfx1100 dropped from every release's supported list."""
    raw = mx.load_raw()
    for rel in raw["releases"]["release"]:
        rel["gfx_supported"] = [g for g in rel["gfx_supported"] if g != "gfx1100"]
    path = mload._cache_file(mload._data_files())
    assert path is not None and path.parent == cache_dir
    path.write_bytes(mload._cache_document(raw))
    os.chmod(path, 0o600)
    return path


def _cached_raw(path: Path) -> dict:
    header, _, body = path.read_bytes().partition(b"\n")
    assert json.loads(header)["format"] == mload.FORMAT_VERSION
    return json.loads(body)


def test_round_trip_writes_private_json_and_serves_it(cache):
    first = _fresh()
    files = list(cache.iterdir())
    assert [p.suffix for p in files] == [".json"]
    assert files[0].stat().st_mode & 0o777 == 0o600
    assert _cached_raw(files[0]) == mx.load_raw()
    assert _fresh() == first


def test_a_trusted_cache_is_what_load_serves(cache):
    """The control for the cases below: the planted wrong fact does come back when the file is ours."""
    _plant_wrong_fact(cache)
    assert _fresh().support_status("gfx1100", "6.2") == "never"


@pytest.mark.parametrize("mode", [0o620, 0o602], ids=oct)
def test_group_or_world_writable_cache_is_ignored(cache, mode):
    path = _plant_wrong_fact(cache)
    os.chmod(path, mode)
    assert _fresh().support_status("gfx1100", "6.2") == mx.SupportStatus.SUPPORTED


@pytest.mark.parametrize("mode", [0o770, 0o707, 0o1777], ids=oct)
def test_cache_in_a_directory_others_can_write_is_ignored_and_not_written(cache, mode):
    path = _plant_wrong_fact(cache)
    os.chmod(cache, mode)
    assert _fresh().support_status("gfx1100", "6.2") == "supported"
    assert _cached_raw(path) != mx.load_raw()  # not rewritten there either


def _other_owner(path: Path, monkeypatch) -> None:
    """Make ``path`` belong to someone else: really (chown to nobody) as root, else by changing who we are."""
    if os.geteuid() == 0:
        os.chown(path, NOBODY, NOBODY)
    else:
        me = os.geteuid()
        monkeypatch.setattr(os, "geteuid", lambda: me + 1)


def test_cache_owned_by_another_user_is_ignored(cache, monkeypatch):
    path = _plant_wrong_fact(cache)
    _other_owner(path, monkeypatch)
    assert _fresh().support_status("gfx1100", "6.2") == "supported"


def test_cache_directory_owned_by_another_user_is_ignored_and_left_alone(cache, monkeypatch):
    """A root process run with a user's HOME reads nothing from the user's cache and writes nothing there."""
    path = _plant_wrong_fact(cache)
    _other_owner(cache, monkeypatch)
    assert _fresh().support_status("gfx1100", "6.2") == "supported"
    assert [p.name for p in cache.iterdir()] == [path.name]


def test_symlinked_cache_is_not_followed(cache, tmp_path):
    target = _plant_wrong_fact(cache)
    elsewhere = tmp_path / "elsewhere.json"
    target.rename(elsewhere)
    target.symlink_to(elsewhere)
    assert _fresh().support_status("gfx1100", "6.2") == "supported"


def _header(**kw) -> bytes:
    return json.dumps({"format": mload.FORMAT_VERSION, **kw}).encode()


@pytest.mark.parametrize("content", [
    b"\x80\x04not json",  # what a pickle looks like: never unpickled, just not ours
    _header(crc32=0),  # no body
    _header(crc32=0) + b"\n{}",  # checksum does not hold
    _header(crc32=zlib.crc32(b'{"releases": []}')) + b'\n{"releases": []}',  # holds, wrong shape: build fails
    _header(crc32=zlib.crc32(b"[" * 100_000)) + b"\n" + b"[" * 100_000,  # deeper than the parser's limit
    b'{"format": 5, "crc32": 0}\n{}',  # another format
], ids=["pickle", "no-body", "bad-crc", "wrong-shape", "deep", "old-format"])
def test_corrupt_cache_is_rebuilt_not_fatal(cache, content):
    path = mload._cache_file(mload._data_files())
    path.write_bytes(content)
    os.chmod(path, 0o600)
    assert _fresh().support_status("gfx1100", "6.2") == "supported"
    assert _cached_raw(path) == mx.load_raw()  # replaced by a good one


def test_one_flipped_byte_in_the_payload_is_caught(cache):
    path = _plant_wrong_fact(cache)
    blob = bytearray(path.read_bytes())
    at = blob.index(b'"gfx90a"')  # stays valid JSON: a different target name, no longer what was validated
    blob[at + 6] = ord("b")
    path.write_bytes(bytes(blob))
    assert _fresh().support_status("gfx1100", "6.2") == "supported"


def test_the_package_imports_no_code_loading_serialiser():
    """pickle/marshal/shelve can build code or call it on load; the cache must stay plain JSON."""
    import ast

    root = Path(mload.__file__).parent
    for py in root.glob("*.py"):
        for node in ast.walk(ast.parse(py.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            assert not {n.split(".")[0] for n in names} & {"pickle", "marshal", "shelve", "dill"}, py.name


def test_our_default_directory_left_group_writable_by_old_versions_is_tightened(tmp_path, monkeypatch):
    """Pickling versions made ~/.cache/rocmdoctor with the umask's 0775: tighten it so the cache works again."""
    monkeypatch.delenv("ROCMDOCTOR_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    d = tmp_path / "rocmdoctor"
    d.mkdir()
    os.chmod(d, 0o775)
    (d / "matrix-0123456789abcdef.pickle").write_bytes(b"\x80\x04old")
    _fresh()
    assert d.stat().st_mode & 0o777 == 0o755
    assert [p.suffix for p in d.iterdir()] == [".json"]  # the old pickle is gone, the JSON cache written
    _plant_wrong_fact(d)
    assert _fresh().support_status("gfx1100", "6.2") == "never"  # and now served


def test_a_directory_named_by_the_environment_keeps_its_mode(cache):
    os.chmod(cache, 0o775)
    _fresh()
    assert cache.stat().st_mode & 0o777 == 0o775 and list(cache.iterdir()) == []


def test_without_user_ids_there_is_no_cache_and_no_crash(cache, monkeypatch):
    _plant_wrong_fact(cache)
    monkeypatch.delattr(os, "geteuid")
    assert _fresh().support_status("gfx1100", "6.2") == "supported"


# The shipped signature and cause tables: their parse is cached by the same module (rocmdoctor.datacache)
# under the same trust rules, and every row is still validated when a cached parse is loaded.

def _load_signatures_afresh(path: str):
    from rocmdoctor.parse import signatures as sigs

    return sigs._load.__wrapped__(path)  # past the per-process memo: the production loader itself


def _signature_titles() -> list[str]:
    from rocmdoctor.parse import signatures as sigs

    return [s.title for s in _load_signatures_afresh(str(sigs.SIGNATURES_FILE))]


def _cause_ids() -> list[str]:
    from rocmdoctor.judge import causes

    return [r.cause for r in causes.rules.__wrapped__()]


def _plant_table(name: str) -> tuple[Path, str]:
    """Write the cache the loader would look for, with a wrong first row; return it and the planted value."""
    from rocmdoctor import datacache
    from rocmdoctor.judge.causes import CAUSES_FILE
    from rocmdoctor.parse.signatures import SIGNATURES_FILE

    source = {"signatures": SIGNATURES_FILE, "causes": CAUSES_FILE}[name]
    data = datacache.parse_toml(source)
    if name == "signatures":
        data["signature"][0]["title"] = planted = "PLANTED title"
    else:
        data["rule"][0]["cause"] = planted = "planted.cause"
    path = datacache.table_cache_file(name, source)
    assert path is not None
    path.write_bytes(datacache.document(data, datacache.TABLE_FORMAT))
    os.chmod(path, 0o600)
    return path, planted


def _first(name: str) -> str:
    return (_signature_titles() if name == "signatures" else _cause_ids())[0]


TABLES = ["signatures", "causes"]


@pytest.mark.parametrize("name", TABLES)
def test_table_cache_round_trip_is_private_and_equal_to_the_file(cache, name):
    before = _first(name)
    files = [p for p in cache.iterdir() if p.name.startswith(name + "-")]
    assert len(files) == 1 and files[0].stat().st_mode & 0o777 == 0o600
    assert _first(name) == before  # served from the cache: the same rows


@pytest.mark.parametrize("name", TABLES)
def test_a_trusted_table_cache_is_what_the_loader_serves(cache, name):
    """The control for the cases below: the planted row does come back when the file is ours."""
    _, planted = _plant_table(name)
    assert _first(name) == planted


@pytest.mark.parametrize("name", TABLES)
@pytest.mark.parametrize("how", ["file-0620", "file-0602", "dir-0770", "dir-1777", "other-owner", "other-dir-owner",
                                 "symlink", "no-uids"])
def test_an_untrusted_table_cache_is_not_believed(cache, tmp_path, monkeypatch, name, how):
    path, planted = _plant_table(name)
    if how.startswith("file-"):
        os.chmod(path, int(how[5:], 8))
    elif how.startswith("dir-"):
        os.chmod(cache, int(how[4:], 8))
    elif how == "other-owner":
        _other_owner(path, monkeypatch)
    elif how == "other-dir-owner":
        _other_owner(cache, monkeypatch)
    elif how == "symlink":
        elsewhere = tmp_path / "elsewhere.json"
        path.rename(elsewhere)
        path.symlink_to(elsewhere)
    else:
        monkeypatch.delattr(os, "geteuid")
    assert _first(name) != planted


@pytest.mark.parametrize("name", TABLES)
def test_a_damaged_table_cache_is_rebuilt(cache, name):
    path, planted = _plant_table(name)
    blob = bytearray(path.read_bytes())
    at = blob.index(planted.encode())
    blob[at] = ord("Q")  # still valid JSON, no longer what was written
    path.write_bytes(bytes(blob))
    assert _first(name) != planted and not _first(name).startswith("Q")


def test_a_broken_row_in_a_trusted_cached_table_is_still_reported(cache):
    """Only the parse is cached: the rows are validated on every load, so a bad one is reported, not used."""
    from rocmdoctor import datacache
    from rocmdoctor.parse.signatures import LOAD_ERRORS, SIGNATURES_FILE

    data = datacache.parse_toml(SIGNATURES_FILE)
    data["signature"][0]["pattern"] = "(unclosed"
    bad_id = data["signature"][0]["id"]
    path = datacache.table_cache_file("signatures", SIGNATURES_FILE)
    assert path is not None
    path.write_bytes(datacache.document(data, datacache.TABLE_FORMAT))
    os.chmod(path, 0o600)
    before = len(LOAD_ERRORS)
    try:
        table = _load_signatures_afresh(str(SIGNATURES_FILE))
        assert bad_id not in {s.id for s in table}
        assert any(bad_id in e and "does not compile" in e for e in LOAD_ERRORS[before:])
    finally:
        del LOAD_ERRORS[before:]


# The scan's prefilter literals of the shipped signatures (rocmdoctor.parse.needles) are cached the same way:
# a planted literal would make the scan skip a signature, so an untrusted cache must not be believed.

def _plant_needles() -> str:
    from rocmdoctor import datacache
    from rocmdoctor.parse import needles
    from rocmdoctor.parse import signatures as sigs

    rows = _load_signatures_afresh(str(sigs.SIGNATURES_FILE))
    path = datacache.named_cache_file("signature-needles",
                                      [sigs.SIGNATURES_FILE, Path(needles.__file__), Path(sigs.__file__)])
    assert path is not None
    entries = [[s.pattern.pattern, s.pattern.flags, ["PLANTED-NEEDLE"]] for s in rows]
    path.write_bytes(datacache.document(entries, datacache.TABLE_FORMAT))
    os.chmod(path, 0o600)
    return rows[0].pattern.pattern


def _first_needles(monkeypatch) -> tuple:
    from rocmdoctor.parse import needles
    from rocmdoctor.parse import signatures as sigs

    monkeypatch.setattr(needles, "KNOWN", {})  # this test's knowledge only, gone after it
    first = _load_signatures_afresh(str(sigs.SIGNATURES_FILE))[0].pattern
    return needles._needles.__wrapped__(first)


def test_signature_needles_round_trip_equal_what_the_parser_finds(cache, monkeypatch):
    from rocmdoctor.parse import needles

    _first_needles(monkeypatch)  # no cache yet: worked out by the parser, and written
    assert [p for p in cache.iterdir() if p.name.startswith("signature-needles-")]
    derived = dict(needles.KNOWN)
    assert len(derived) >= 90
    _first_needles(monkeypatch)  # served from the cache now
    assert derived == needles.KNOWN


def test_a_trusted_needle_cache_is_what_the_scan_uses(cache, monkeypatch):
    """The control for the case below: the planted literal does come back when the file is ours."""
    _plant_needles()
    assert _first_needles(monkeypatch) == ("PLANTED-NEEDLE",)


@pytest.mark.parametrize("how", ["file-0620", "dir-0770", "other-owner"])
def test_an_untrusted_needle_cache_is_not_believed(cache, monkeypatch, how):
    from rocmdoctor import datacache
    from rocmdoctor.parse import needles
    from rocmdoctor.parse import signatures as sigs

    _plant_needles()
    path = datacache.named_cache_file("signature-needles",
                                      [sigs.SIGNATURES_FILE, Path(needles.__file__), Path(sigs.__file__)])
    if how == "file-0620":
        os.chmod(path, 0o620)
    elif how == "dir-0770":
        os.chmod(cache, 0o770)
    else:
        _other_owner(path, monkeypatch)
    assert _first_needles(monkeypatch) != ("PLANTED-NEEDLE",)
