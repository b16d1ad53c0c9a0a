"""A bounded tar reader for bundles and fleet replies: one pass over a decompressing stream, every size capped.

Why not :mod:`tarfile`: it reads a GNU long-name or pax header whole into memory whatever its declared
size (a 1 MB archive declaring a 1 GB name took 3 GB), its pax parser is quadratic on CPython < 3.11.10 /
3.12.6 (CVE-2024-6232; 3.11.7 here), and it cannot stop a decompression bomb before inflating it. Here
each header is checked against :data:`rocmdoctor.limits.LIMITS` before a byte of it is read, pax records are
parsed by a linear loop, and every decompressed byte (read or skipped) counts toward ``bundle-bytes``.

Only what a bundle needs is understood (regular files, directories, hard and symbolic links, GNU long
names, pax ``path``/``linkpath``/``size``); devices, fifos and sparse files are reported as such so the
caller can refuse them.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO, Optional

from rocmdoctor.errors import BadInput
from rocmdoctor.limits import LIMITS, LimitExceeded

BLOCK = 512
_FILE, _HARD, _SYM, _DIR, _SPECIAL, _OTHER = "file", "hardlink", "symlink", "dir", "special", "other"
_TYPES = {b"0": _FILE, b"\0": _FILE, b"7": _FILE, b"1": _HARD, b"2": _SYM, b"5": _DIR,
          b"3": _SPECIAL, b"4": _SPECIAL, b"6": _SPECIAL, b"S": _SPECIAL}
# Exceptions a corrupt or cut-off compressed stream raises (zlib.error and lzma.LZMAError are not OSError).
STREAM_ERRORS = (OSError, EOFError, zlib.error, lzma.LZMAError, ValueError)


class CorruptArchive(BadInput):
    """Not a well-formed tar (bad checksum, cut off, garbage in a header)."""


@dataclass
class Member:
    name: str
    kind: str  # file | hardlink | symlink | dir | special | other
    size: int = 0
    linkname: str = ""
    data: Optional[bytes] = None  # files only: at most ``file-bytes``
    cut: bool = False  # the file was longer than ``file-bytes``


def open_stream(raw: BinaryIO) -> BinaryIO:
    """The decompressed stream of ``raw`` (gzip, bzip2, xz or plain tar, by magic bytes)."""
    head = raw.read(6)
    raw.seek(0)
    if head[:2] == b"\x1f\x8b":
        return gzip.GzipFile(fileobj=raw, mode="rb")  # type: ignore[return-value]
    if head[:3] == b"BZh":
        return bz2.BZ2File(raw)  # type: ignore[return-value]
    if head[:6] == b"\xfd7zXZ\0":
        return lzma.LZMAFile(raw)  # type: ignore[return-value]
    return raw


class _Counted:
    """Reads from the decompressed stream, counting every byte against ``bundle-bytes``."""

    def __init__(self, stream: BinaryIO, label: str) -> None:
        self.stream = stream
        self.label = label
        self.total = 0

    def read(self, n: int) -> bytes:
        out = bytearray()
        while len(out) < n:
            chunk = self.stream.read(min(n - len(out), 1 << 20))
            if not chunk:
                break
            out += chunk
            self.total += len(chunk)
            if self.total > LIMITS["bundle-bytes"]:
                raise LimitExceeded("bundle-bytes", f"{self.label}: more than {LIMITS['bundle-bytes']:,} bytes "
                                                    "once decompressed")
        return bytes(out)

    def exact(self, n: int) -> bytes:
        data = self.read(n)
        if len(data) != n:
            raise CorruptArchive(f"{self.label}: corrupt or truncated archive (unexpected end of data)")
        return data

    def skip(self, n: int) -> None:
        while n > 0:
            got = len(self.read(min(n, 1 << 20)))
            if got == 0:
                raise CorruptArchive(f"{self.label}: corrupt or truncated archive (unexpected end of data)")
            n -= got


def _padded(size: int) -> int:
    return (size + BLOCK - 1) // BLOCK * BLOCK


def _number(field: bytes, label: str) -> int:
    if field[:1] and field[0] & 0x80:  # GNU base-256
        value = int.from_bytes(field[1:], "big")
        return -value if field[0] & 0x40 else value
    text = field.split(b"\0", 1)[0].strip(b" \0")
    if not text:
        return 0
    try:
        return int(text, 8)
    except ValueError:
        raise CorruptArchive(f"{label}: corrupt or truncated archive (bad number in a tar header)") from None


def _text(field: bytes) -> str:
    return field.split(b"\0", 1)[0].decode("utf-8", "surrogateescape")


def checksum_ok(block: bytes) -> bool:
    stored = block[148:156]
    if not stored.strip(b" \0"):
        return False
    try:
        want = int(stored.split(b"\0", 1)[0].strip(b" \0") or b"0", 8)
    except ValueError:
        return False
    unsigned = sum(block[:148]) + 8 * 32 + sum(block[156:])
    signed = sum((b - 256 if b > 127 else b) for b in block[:148] + block[156:]) + 8 * 32
    return want in (unsigned, signed)


def _pax(data: bytes, label: str) -> dict[str, str]:
    """pax extended-header records (``LEN KEY=VALUE\\n``), parsed in one linear pass."""
    out: dict[str, str] = {}
    pos = 0
    while pos < len(data):
        if data[pos:pos + 1] == b"\0":
            break
        space = data.find(b" ", pos, pos + 20)
        if space < 0 or not data[pos:space].isdigit():
            raise CorruptArchive(f"{label}: corrupt or truncated archive (bad pax header)")
        length = int(data[pos:space])
        record = data[space + 1:pos + length]
        if length <= space - pos or pos + length > len(data) or not record.endswith(b"\n") or b"=" not in record:
            raise CorruptArchive(f"{label}: corrupt or truncated archive (bad pax header)")
        key, _, value = record[:-1].partition(b"=")
        out[key.decode("utf-8", "replace")] = value.decode("utf-8", "surrogateescape")
        pos += length
    return out


def _header_data(src: _Counted, size: int, kind: str, label: str) -> bytes:
    if size < 0 or size > LIMITS["tar-header-bytes"]:
        raise LimitExceeded("tar-header-bytes", f"{label}: a {kind} header of {size:,} bytes")
    data = src.exact(_padded(size))
    return data[:size]


def members(stream: BinaryIO, label: str) -> Iterator[Member]:
    """Each member of the decompressed tar ``stream``, file data read (bounded) or skipped.

    Raises :class:`LimitExceeded` over any limit and :class:`CorruptArchive` for a malformed archive.
    """
    src = _Counted(stream, label)
    count = names_total = 0
    long_name: Optional[str] = None
    long_link: Optional[str] = None
    pax: dict[str, str] = {}
    while True:
        try:
            block = src.read(BLOCK)
        except STREAM_ERRORS as exc:
            raise CorruptArchive(f"{label}: corrupt or truncated archive ({_why(exc)})") from None
        if not block:
            if count == 0:
                raise CorruptArchive(f"{label}: corrupt or truncated archive (no tar data)")
            return  # a missing end-of-archive marker is tolerated, as GNU tar does
        if len(block) < BLOCK:
            raise CorruptArchive(f"{label}: corrupt or truncated archive (unexpected end of data)")
        if block == bytes(BLOCK):
            return
        if not checksum_ok(block):
            raise CorruptArchive(f"{label}: corrupt or truncated archive (bad tar header checksum)")
        try:
            member = _one(src, block, label, pax)
        except STREAM_ERRORS as exc:
            raise CorruptArchive(f"{label}: corrupt or truncated archive ({_why(exc)})") from None
        if member is None:
            continue
        if isinstance(member, tuple):  # a metadata header for the next member
            what, value = member
            if what == "L":
                long_name = value  # type: ignore[assignment]
            elif what == "K":
                long_link = value  # type: ignore[assignment]
            else:
                pax.update(value)  # type: ignore[arg-type]
            continue
        member.name = pax.get("path") or long_name or member.name
        member.linkname = pax.get("linkpath") or long_link or member.linkname
        long_name = long_link = None
        pax = {}
        count += 1
        if count > LIMITS["members"]:
            raise LimitExceeded("members", f"{label}: more than {LIMITS['members']:,} members")
        size = len(member.name.encode("utf-8", "surrogateescape"))
        names_total += size + len(member.linkname)
        if size > LIMITS["name-bytes"]:
            raise LimitExceeded("name-bytes", f"{label}: a member name of {size:,} bytes")
        if names_total > LIMITS["names-total-bytes"]:
            raise LimitExceeded("names-total-bytes", f"{label}: member names of more than "
                                                     f"{LIMITS['names-total-bytes']:,} bytes in all")
        if member.name.count("/") >= LIMITS["depth"]:
            raise LimitExceeded("depth", f"{label}: a member nested {member.name.count('/') + 1} levels deep")
        yield member


def _why(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:120] or type(exc).__name__


def _one(src: _Counted, block: bytes, label: str, pax: dict[str, str]):  # type: ignore[no-untyped-def]
    """One header block -> a Member, a ('L'|'K'|'x', value) metadata tuple, or None (skipped)."""
    flag = block[156:157]
    size = _number(block[124:136], label)
    if "size" in pax and flag not in (b"L", b"K", b"x", b"g"):
        if not pax["size"].isdigit():
            raise CorruptArchive(f"{label}: corrupt or truncated archive (bad pax size)")
        size = int(pax["size"])
    if size < 0 or size > 1 << 40:
        raise CorruptArchive(f"{label}: corrupt or truncated archive (member size {size})")
    if flag in (b"L", b"K"):
        data = _header_data(src, size, "GNU long-name" if flag == b"L" else "GNU long-link", label)
        return flag.decode(), data.split(b"\0", 1)[0].decode("utf-8", "surrogateescape")
    if flag in (b"x", b"g"):
        data = _header_data(src, size, "pax", label)
        return ("x", _pax(data, label)) if flag == b"x" else None
    name = _text(block[0:100])
    if block[257:263] == b"ustar\x00" and block[345:346] != b"\0":
        name = _text(block[345:500]) + "/" + name
    kind = _TYPES.get(flag, _OTHER)
    member = Member(name=name, kind=kind, size=size, linkname=_text(block[157:257]))
    if kind in (_HARD, _SYM, _DIR):
        src.skip(_padded(size) if kind == _DIR else 0)
        return member
    if kind == _FILE:
        keep = min(size, LIMITS["file-bytes"])
        member.data = src.exact(keep)
        member.cut = size > keep
        src.skip(_padded(size) - keep)
        return member
    src.skip(_padded(size))  # special files carry no data; unknown types are skipped whole
    return member


def read_all(raw: bytes, label: str) -> list[Member]:
    """Every member of an in-memory archive (a fleet reply), with the same limits as a bundle on disk."""
    try:
        return list(members(open_stream(io.BytesIO(raw)), label))
    except STREAM_ERRORS as exc:
        raise CorruptArchive(f"{label}: corrupt or truncated archive ({_why(exc)})") from None
