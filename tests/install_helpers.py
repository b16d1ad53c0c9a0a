"""Real wheels and a real package index on 127.0.0.1, for the installer tests (and the container tests).

Two helpers, importable by anyone who needs to serve wheels over loopback:

* :func:`build_wheel` writes a small but valid wheel (``dist-info`` METADATA, WHEEL, RECORD with sha256)
  named exactly like the real ones, e.g. ``torch-2.5.1+rocm6.2-cp311-cp311-linux_x86_64.whl``.
* :func:`serve_index` serves one or more directories of wheels as a PEP 503 simple index (HTML with
  ``#sha256=`` fragments) and PEP 691 JSON (chosen by the ``Accept`` header), plus ``/files/<name>``
  downloads and a flat ``/flat/`` find-links page. It returns ``(url, stop)``: ``url`` is the index URL
  (``http://127.0.0.1:PORT/simple``) and ``stop()`` shuts the server down. ``stop.requests`` lists the
  paths requested so far, which lets a test wait until pip reached a given wheel.

The fake PyTorch world the tests build lives in :func:`build_rocm_world`: ROCm torch/triton/companions
plus tiny stand-ins for their PyPI dependencies (filelock, typing-extensions, numpy), so pip and uv can
resolve everything from one index with no network. A second, "PyPI-like" directory holds a newer
CUDA-labelled torch as the decoy.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import html
import io
import json
import re
import threading
import time
import urllib.parse
import zipfile
from collections.abc import Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Callable, Optional

__all__ = [
    "Stop", "build_rocm_world", "build_wheel", "build_world_for_pins", "fake_torch_files", "make_venv", "normalize",
    "serve_index", "wait",
]


def normalize(name: str) -> str:
    """PEP 503 project name normalisation."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _record_hash(data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"sha256={digest}"


def build_wheel(
    dir: Path | str,
    name: str,
    version: str,
    tag: str = "py3-none-any",
    files: Optional[dict[str, str | bytes]] = None,
    requires: Optional[list[str]] = None,
    *,
    corrupt_record: bool = False,
) -> Path:
    """Write ``<dir>/<name>-<version>-<tag>.whl`` and return its path.

    ``files`` maps paths inside the wheel (``"torch/__init__.py"``) to their content; ``requires`` are
    ``Requires-Dist`` lines. ``corrupt_record=True`` writes a RECORD whose hash for the first file is
    wrong and whose last line is malformed — installers refuse such a wheel part-way through.
    """
    out = Path(dir)
    out.mkdir(parents=True, exist_ok=True)
    dist = re.sub(r"[-_.]+", "_", name)
    distinfo = f"{dist}-{version}.dist-info"
    filename = f"{dist}-{version}-{tag}.whl"
    metadata = "Metadata-Version: 2.1\n" f"Name: {name}\n" f"Version: {version}\n"
    metadata += "".join(f"Requires-Dist: {r}\n" for r in requires or [])
    plat = tag.split("-")[2]
    wheel_meta = (
        "Wheel-Version: 1.0\nGenerator: rocmdoctor-tests\n"
        f"Root-Is-Purelib: {'true' if plat == 'any' else 'false'}\nTag: {tag}\n"
    )
    entries: list[tuple[str, bytes]] = [
        (p, c.encode() if isinstance(c, str) else c) for p, c in (files or {}).items()
    ]
    entries += [(f"{distinfo}/METADATA", metadata.encode()), (f"{distinfo}/WHEEL", wheel_meta.encode())]
    rows = [[path, _record_hash(data), str(len(data))] for path, data in entries]
    if corrupt_record and rows:
        rows[0][1] = _record_hash(b"not the content")
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows([*rows, [f"{distinfo}/RECORD", "", ""]])
    record = buf.getvalue()
    if corrupt_record:
        record += '"unterminated,quote\n'
    path = out / filename
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for p, data in entries:
            zf.writestr(p, data)
        zf.writestr(f"{distinfo}/RECORD", record)
    return path


class Stop:
    """Callable that stops the index server; ``requests`` holds the request paths seen so far."""

    def __init__(self, server: ThreadingHTTPServer, thread: threading.Thread, requests: list[str]) -> None:
        self._server = server
        self._thread = thread
        self.requests = requests

    def __call__(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def wait_for(self, substring: str, timeout: float = 30.0) -> bool:
        """Block until a request path containing ``substring`` arrived (True) or ``timeout`` passed."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if any(substring in r for r in list(self.requests)):
                return True
            time.sleep(0.02)
        return False


def _wheel_project(filename: str) -> str:
    return normalize(filename.split("-", 1)[0])


def serve_index(
    dirs: Iterable[Path | str],
    *,
    delays: Optional[dict[str, float]] = None,
    hashes: bool = True,
) -> tuple[str, Stop]:
    """Serve the ``*.whl`` files of ``dirs`` on 127.0.0.1 as a PEP 503 + PEP 691 index.

    ``delays`` maps a file-name substring to seconds to sleep before sending that file (to interrupt an
    install mid-download); ``hashes=False`` serves links without sha256 (to test a lock refusal).
    Returns ``(index_url, stop)``.
    """
    files: dict[str, Path] = {}
    for d in dirs:
        for p in sorted(Path(d).glob("*.whl")):
            files[p.name] = p
    digests = {n: hashlib.sha256(p.read_bytes()).hexdigest() for n, p in files.items()}
    requests: list[str] = []
    slow = dict(delays or {})

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:  # silence stderr
            pass

        def _send(self, body: bytes, ctype: str, code: int = 200) -> None:
            self.send_response(code)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def do_HEAD(self) -> None:
            self.do_GET()

        def do_GET(self) -> None:
            requests.append(self.path)
            path = urllib.parse.unquote(self.path.split("?", 1)[0])
            parts = [p for p in path.split("/") if p]
            want_json = "application/vnd.pypi.simple.v1+json" in self.headers.get("Accept", "")
            if parts[:1] == ["files"] and len(parts) == 2 and parts[1] in files:
                for key, seconds in slow.items():
                    if key in parts[1]:
                        time.sleep(seconds)
                self._send(files[parts[1]].read_bytes(), "application/octet-stream")
            elif parts == ["simple"]:
                projects = sorted({_wheel_project(n) for n in files})
                if want_json:
                    body = {"meta": {"api-version": "1.0"}, "projects": [{"name": p} for p in projects]}
                    self._send(json.dumps(body).encode(), "application/vnd.pypi.simple.v1+json")
                else:
                    links = "".join(f'<a href="/simple/{p}/">{p}</a>\n' for p in projects)
                    self._send(f"<!DOCTYPE html><html><body>\n{links}</body></html>".encode(), "text/html")
            elif parts[:1] == ["simple"] and len(parts) == 2:
                names = [n for n in files if _wheel_project(n) == normalize(parts[1])]
                if not names:
                    self._send(b"not found", "text/plain", 404)
                elif want_json:
                    entries = [
                        {"filename": n, "url": f"/files/{n}", "hashes": {"sha256": digests[n]} if hashes else {}}
                        for n in names
                    ]
                    body = {"meta": {"api-version": "1.0"}, "name": normalize(parts[1]), "files": entries}
                    self._send(json.dumps(body).encode(), "application/vnd.pypi.simple.v1+json")
                else:
                    self._send(_html_links(names, digests if hashes else {}).encode(), "text/html")
            elif parts == ["flat"]:
                self._send(_html_links(sorted(files), digests if hashes else {}).encode(), "text/html")
            else:
                self._send(b"not found", "text/plain", 404)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return f"http://127.0.0.1:{server.server_address[1]}/simple", Stop(server, thread, requests)


def _html_links(names: Iterable[str], digests: dict[str, str]) -> str:
    links = []
    for n in names:
        frag = f"#sha256={digests[n]}" if n in digests else ""
        links.append(f'<a href="/files/{html.escape(n)}{frag}">{html.escape(n)}</a>')
    return "<!DOCTYPE html><html><body>\n" + "\n".join(links) + "\n</body></html>\n"


def fake_torch_files(version: str, hip: Optional[str], cuda: Optional[str], libs: Iterable[str]) -> dict[str, str]:
    """The files of a stand-in torch wheel: ``torch/version.py`` like the real one, ``torch.cuda`` stubs
    that behave like a real wheel on a machine without a GPU, and placeholder runtime libraries."""
    files = {
        "torch/__init__.py": "from torch import cuda, version\nfrom torch.version import __version__\n",
        "torch/version.py": (
            "from typing import Optional\n"
            f"__version__ = {version!r}\n"
            "debug = False\n"
            f"cuda: Optional[str] = {cuda!r}\n"
            f"hip: Optional[str] = {hip!r}\n"
            "git_version = '0000000000000000000000000000000000000000'\n"
        ),
        "torch/cuda.py": "def is_available():\n    return False\n\n\ndef get_arch_list():\n    return []\n",
    }
    for lib in libs:
        files[f"torch/lib/{lib}"] = "placeholder\n"
    return files


def build_rocm_world(root: Path, py: str = "cp311") -> dict[str, Path]:
    """Build the fake PyTorch ROCm index and the decoy "PyPI" index under ``root``.

    Returns ``{"rocm": dir, "pypi": dir, "broken": dir}``. ``rocm`` holds torch 2.5.1+rocm6.2 and
    2.4.1+rocm6.1 with their triton and companions, plus the plain PyPI deps; ``pypi`` holds a newer
    CUDA torch 2.6.0 (and 2.5.1 without label) that must never be chosen; ``broken`` holds a
    torchaudio 2.5.1+rocm6.2 that ships a file below ``torch/version.py/`` (installs, then collides
    with torch's files: an install that fails part-way, in pip and in uv alike).
    """
    rocm, pypi, broken = root / "rocm", root / "pypi", root / "broken"
    tag = f"{py}-{py}-linux_x86_64"
    builds = (("2.5.1", "6.2", "3.1.0", "0.20.1"), ("2.4.1", "6.1", "3.0.0", "0.19.1"))
    for torch_v, rocm_v, triton_v, vision_v in builds:
        label = f"+rocm{rocm_v}"
        build_wheel(
            rocm, "torch", torch_v + label, tag,
            fake_torch_files(torch_v + label, f"{rocm_v}.41133-dd7f95766", None, ["libamdhip64.so"]),
            [f"pytorch-triton-rocm=={triton_v}", "filelock", "typing-extensions>=4.8.0"],
        )
        build_wheel(rocm, "pytorch_triton_rocm", triton_v, tag, {"triton/__init__.py": f"__version__ = {triton_v!r}\n"})
        build_wheel(
            rocm, "torchvision", vision_v + label, tag,
            {"torchvision/__init__.py": f"__version__ = {vision_v + label!r}\n"}, [f"torch=={torch_v}", "numpy"],
        )
        build_wheel(
            rocm, "torchaudio", torch_v + label, tag,
            {"torchaudio/__init__.py": f"__version__ = {torch_v + label!r}\n"}, [f"torch=={torch_v}"],
        )
    for name, version in (("filelock", "3.16.1"), ("typing_extensions", "4.12.2"), ("numpy", "2.1.3")):
        build_wheel(rocm, name, version, "py3-none-any", {f"{name}_stub/__init__.py": f"__version__ = {version!r}\n"})
    # The decoy: newer CUDA torch and newer deps, as PyPI would offer them.
    for v in ("2.6.0", "2.5.1"):
        build_wheel(
            pypi, "torch", v, tag, fake_torch_files(v, None, "12.4", ["libcudart.so.12"]),
            ["filelock", "typing-extensions>=4.8.0"],
        )
    build_wheel(pypi, "filelock", "99.0.0", "py3-none-any", {"filelock_stub/__init__.py": "__version__ = '99'\n"})
    # A path that collides with torch's own torch/version.py file: valid wheel, fails while installing.
    build_wheel(
        broken, "torchaudio", "2.5.1+rocm6.2", tag,
        {"torchaudio/__init__.py": "x = 1\n", "torch/version.py/collision.txt": "boom\n"}, ["torch==2.5.1"],
    )
    return {"rocm": rocm, "pypi": pypi, "broken": broken}


def wait(predicate: Callable[[], bool], timeout: float = 10.0) -> bool:
    """Poll ``predicate`` until true or ``timeout``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return False


def build_world_for_pins(root: Path, pins: Iterable[str], py: str = "cp311") -> Path:
    """Wheels for exactly these ``name==version`` pins (as a plan lists them), plus the plain deps.

    torch gets ROCm-like files (``hip`` set, libamdhip64) and requires its triton pin; companions require
    ``torch==<public version>`` like the real ones. Lets a test follow whatever the real matrix resolves.
    """
    pins = list(pins)
    versions = {p.split("==", 1)[0]: p.split("==", 1)[1] for p in pins}
    torch_v = versions.get("torch", "0")
    public = torch_v.split("+", 1)[0]
    tag = f"{py}-{py}-linux_x86_64"
    triton = [f"{n}=={v}" for n, v in versions.items() if "triton" in n]
    for name, version in versions.items():
        if name == "torch":
            build_wheel(root, "torch", version, tag, fake_torch_files(version, "7.0.0-fake", None, ["libamdhip64.so"]),
                        [*triton, "filelock"])
        else:
            mod = normalize(name).replace("-", "_")
            build_wheel(root, name, version, tag, {f"{mod}/__init__.py": f"__version__ = {version!r}\n"},
                        [] if "triton" in name else [f"torch=={public}"])
    build_wheel(root, "filelock", "3.16.1", "py3-none-any", {"filelock_stub/__init__.py": "__version__ = '3.16.1'\n"})
    return root


_TEMPLATE: dict[str, Path] = {}


def make_venv(dest: Path | str) -> str:
    """A fresh venv with pip at ``dest``; returns its interpreter. ``python -m venv`` runs once per process
    (it costs seconds); every later venv is a copy of that template (sys.prefix follows the copy)."""
    import atexit
    import shutil
    import subprocess
    import sys
    import tempfile

    if "bare" not in _TEMPLATE:
        base = Path(tempfile.mkdtemp(prefix="rocmdoctor-venv-template-"))
        atexit.register(shutil.rmtree, base, True)
        subprocess.run([sys.executable, "-m", "venv", str(base / "bare")], check=True)
        _TEMPLATE["bare"] = base / "bare"
    shutil.copytree(_TEMPLATE["bare"], dest, symlinks=True)
    return str(Path(dest) / "bin" / "python")
