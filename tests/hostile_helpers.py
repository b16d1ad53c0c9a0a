"""Shared by the hostile-input tests: run the real CLI in a subprocess and measure its peak memory.

``resource.getrusage(RUSAGE_CHILDREN).ru_maxrss`` is the largest child ever waited for by the calling
process, so each measured run goes through a tiny wrapper process whose only child is the CLI: the
figure is that run's own peak, whatever ran before it in the test session.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parent.parent
HEALTHY = ROOT / "fixtures" / "derived-healthy-rx7900xtx-rocm6.2.2"
RSS_BOUND_MB = 400  # the bound for any bundle under 10 MB

_WRAPPER = r"""
import json, resource, subprocess, sys, time
t0 = time.monotonic()
p = subprocess.run(sys.argv[2:], stdin=subprocess.DEVNULL, capture_output=True, timeout=float(sys.argv[1]))
sys.stdout.write(json.dumps({"rc": p.returncode, "out": p.stdout.decode("utf-8", "replace"),
                             "err": p.stderr.decode("utf-8", "replace"), "seconds": time.monotonic() - t0,
                             "maxrss_kb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))
"""


@dataclass
class Measured:
    rc: int
    out: str
    err: str
    seconds: float
    rss_mb: float


def run_measured(*args: str, timeout: float = 300, env: Optional[dict] = None) -> Measured:
    """``rocmdoctor ARGS`` in a subprocess; its exit code, output, wall time and peak RSS (MB)."""
    full_env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "120", **(env or {})}
    p = subprocess.run([sys.executable, "-c", _WRAPPER, str(timeout), sys.executable, "-m", "rocmdoctor", *args],
                       capture_output=True, text=True, env=full_env, cwd=ROOT, timeout=timeout + 30)
    assert p.returncode == 0, p.stderr[-2000:]
    d = json.loads(p.stdout)
    return Measured(d["rc"], d["out"], d["err"], d["seconds"], d["maxrss_kb"] / 1024)


def copy_healthy(dest: Path) -> Path:
    """A writable copy of a healthy real-derived bundle (fixtures/derived-healthy-rx7900xtx-rocm6.2.2)."""
    shutil.copytree(HEALTHY, dest, ignore=shutil.ignore_patterns("expected.json", "NOTES.md", "sources.json"))
    return dest


def tar_gz_of(directory: Path, dest: Path, prefix: str = "rocmdoctor-capture") -> Path:
    with tarfile.open(dest, "w:gz") as tf:
        tf.add(directory, arcname=prefix)
    return dest


def tar_header(name: str, size: int, typeflag: bytes = b"0", linkname: str = "") -> bytes:
    """One raw ustar header block (checksum filled), for headers :mod:`tarfile` would not write."""
    block = bytearray(512)
    block[0:100] = name.encode()[:100].ljust(100, b"\0")
    block[100:108] = b"0000644\0"
    block[108:116] = block[116:124] = b"0000000\0"
    block[124:136] = f"{size:011o}\0".encode()
    block[136:148] = b"00000000000\0"
    block[148:156] = b" " * 8
    block[156:157] = typeflag
    block[157:257] = linkname.encode()[:100].ljust(100, b"\0")
    block[257:265] = b"ustar\x0000"
    block[148:156] = f"{sum(block):06o}\0 ".encode()
    return bytes(block)


def pad(data: bytes) -> bytes:
    return data + b"\0" * (-len(data) % 512)


def gzip_bomb(path: Path, member: str, zeros: int, chunk: int = 1 << 20) -> Path:
    """A valid tar.gz holding ``member`` = ``zeros`` zero bytes, built without ever holding them: the
    deflate output of one all-zero chunk after a full flush is the same every time, so it is repeated
    (and the gzip trailer's CRC-32 and length are computed for the real content)."""
    head = tar_header(member, zeros)
    comp = zlib.compressobj(9, zlib.DEFLATED, -15)
    body = io.BytesIO()
    body.write(comp.compress(head) + comp.flush(zlib.Z_FULL_FLUSH))
    block = bytes(chunk)
    first = comp.compress(block) + comp.flush(zlib.Z_FULL_FLUSH)
    again = comp.compress(block) + comp.flush(zlib.Z_FULL_FLUSH)
    assert first == again or len(again) < 2048
    body.write(first)
    crc = zlib.crc32(head)
    crc = zlib.crc32(block, crc)
    n = zeros // chunk
    for _ in range(n - 1):
        body.write(again)
        crc = zlib.crc32(block, crc)
    rest = zeros - n * chunk
    tail = bytes(rest) + bytes(-zeros % 512) + bytes(1024)
    body.write(comp.compress(tail) + comp.flush(zlib.Z_FINISH))
    crc = zlib.crc32(tail, crc)
    total = len(head) + n * chunk + len(tail)
    with open(path, "wb") as f:
        f.write(b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff")
        f.write(body.getvalue())
        f.write((crc & 0xFFFFFFFF).to_bytes(4, "little") + (total & 0xFFFFFFFF).to_bytes(4, "little"))
    return path


def gz(data: bytes) -> bytes:
    return gzip.compress(data, 6)
