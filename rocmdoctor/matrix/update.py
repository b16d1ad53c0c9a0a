"""`rocmdoctor matrix update`: refresh the pytorch.org wheel rows of ``matrices/torch.toml`` from a live index.

Reads a PEP 503 simple index (asking for PEP 691 JSON first and falling back to HTML), parses wheel
file names with ``packaging.utils.parse_wheel_filename``, reads Triton pins from PEP 658 metadata
when the index offers it, and returns a unified diff of ``torch.toml`` for a human to review; it
never rewrites the data file itself.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Optional
from urllib.parse import unquote

from rocmdoctor.errors import BadInput, OperationFailed
from rocmdoctor.matrix.derive import make_diff
from rocmdoctor.parse.simple_index import parse_simple_index

ACCEPT = "application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html;q=0.2, text/html;q=0.1"
PACKAGES = ("torch", "torchvision", "torchaudio", "pytorch-triton-rocm", "triton-rocm")
TRITON = ("pytorch-triton-rocm", "triton-rocm")


@dataclass
class IndexFile:
    filename: str
    url: str
    has_metadata: bool = False


def parse_index_page(body: str, content_type: str, base_url: str) -> list[IndexFile]:
    """Files listed on one project page (PEP 691 JSON or PEP 503 HTML). Never raises on bad input.

    The page is read by :func:`rocmdoctor.parse.simple_index.parse_simple_index` (the installer's parser too);
    an HTML anchor whose text is a file name names the file, as PEP 503 says it must match the link.
    """
    out: list[IndexFile] = []
    for link in parse_simple_index(body, content_type, base_url):
        name = unquote(link.text) if link.text.endswith((".whl", ".tar.gz", ".zip")) else link.filename
        out.append(IndexFile(name, link.url, link.metadata))
    return out


def python_of(tag_interpreter: str, abi: str) -> Optional[str]:
    """cp312/cp312 -> "3.12", cp314/cp314t -> "3.14t"."""
    m = re.fullmatch(r"cp(\d)(\d+)", tag_interpreter)
    if not m:
        return None
    py = f"{m.group(1)}.{m.group(2)}"
    return py + "t" if abi.endswith("t") else py


@dataclass
class VariantScan:
    """What one ROCm index holds: public torch version -> pythons, and companion versions seen."""

    rocm: str
    torch: dict[str, set[str]] = field(default_factory=dict)
    triton_pin: dict[str, tuple[str, str]] = field(default_factory=dict)  # torch -> (package, version)
    companions: dict[str, set[str]] = field(default_factory=dict)  # package -> versions


def scan_names(rocm: str, files: dict[str, list[IndexFile]]) -> VariantScan:
    """Turn the file lists of one variant's project pages into a VariantScan."""
    from packaging.utils import InvalidWheelFilename, parse_wheel_filename

    scan = VariantScan(rocm)
    for pkg, entries in files.items():
        for f in entries:
            if not f.filename.endswith(".whl"):
                continue
            try:
                name, version, _build, tags = parse_wheel_filename(f.filename)
            except (InvalidWheelFilename, ValueError):
                continue
            if pkg == "torch" and name == "torch":
                if version.local is None or not version.local.startswith("rocm"):
                    continue
                if version.is_devrelease or version.is_prerelease:
                    continue
                pub = version.public
                pys = scan.torch.setdefault(pub, set())
                for t in tags:
                    if t.platform.startswith(("linux", "manylinux")):
                        py = python_of(t.interpreter, t.abi)
                        if py:
                            pys.add(py)
            else:
                scan.companions.setdefault(str(name), set()).add(version.public)
    return scan


class Fetcher:
    """requests-based GETs with PEP 691 negotiation (one session; loopback in tests)."""

    def __init__(self, timeout: float) -> None:
        from rocmdoctor.http import session

        self.session = session()  # the user's proxy settings, retries on 429/5xx
        self.timeout = timeout

    def get(self, url: str, accept: str = ACCEPT) -> tuple[int, str, str]:
        import requests

        try:
            r = self.session.get(url, headers={"Accept": accept}, timeout=self.timeout)
        except requests.RequestException as exc:
            raise OperationFailed(f"cannot fetch {url}: {exc.__class__.__name__}") from exc
        return r.status_code, r.headers.get("Content-Type", ""), r.text

    def project(self, variant_url: str, pkg: str) -> list[IndexFile]:
        url = variant_url.rstrip("/") + f"/{pkg}/"
        status, ctype, body = self.get(url)
        if status == 404:
            return []
        if status != 200:
            raise OperationFailed(f"{url}: HTTP {status}")
        return parse_index_page(body, ctype, url)

    def triton_pin(self, f: IndexFile) -> Optional[tuple[str, str]]:
        """Triton requirement from the wheel's PEP 658 metadata (None when not offered)."""
        if not f.has_metadata:
            return None
        status, _ctype, body = self.get(f.url.split("#")[0] + ".metadata", accept="*/*")
        if status != 200:
            return None
        for line in body.splitlines():
            m = re.match(r"Requires-Dist:\s*(pytorch-triton-rocm|triton-rocm)\s*\(?==\s*([\w.+]+)", line)
            if m:
                return m.group(1), m.group(2).split("+")[0]
        return None


def discover_variants(fetch: Fetcher, root: str, known: list[str]) -> list[str]:
    """ROCm variants the root page links to (rocmX.Y[.Z]); the known ones when the root lists none."""
    status, ctype, body = fetch.get(root.rstrip("/") + "/")
    found: list[str] = []
    if status == 200:
        for f in parse_index_page(body, ctype, root.rstrip("/") + "/"):
            m = re.fullmatch(r"rocm(\d+(?:\.\d+){1,2})/?", f.filename.strip("/").split("/")[-1])
            if m and m.group(1) not in found:
                found.append(m.group(1))
    return found or known


def scan_index(root: str, known: list[str], timeout: float = 20.0) -> list[VariantScan]:
    """Scan every ROCm variant under ``root``."""
    if not re.match(r"https?://", root):
        raise BadInput(f"--index-url must be an http(s) URL, got {root!r}")
    fetch = Fetcher(timeout)
    scans = []
    for rocm in discover_variants(fetch, root, known):
        vurl = root.rstrip("/") + f"/rocm{rocm}"
        files = {pkg: fetch.project(vurl, pkg) for pkg in PACKAGES}
        scan = scan_names(rocm, files)
        newest: dict[str, IndexFile] = {}
        for f in files["torch"]:
            m = re.match(r"torch-([^-]+)-", f.filename)
            if m:
                pub = m.group(1).split("+")[0].replace("%2B", "+")
                if pub in scan.torch:
                    newest.setdefault(pub, f)
        for pub, f in newest.items():
            pin = fetch.triton_pin(f)
            if pin:
                scan.triton_pin[pub] = pin
        if scan.torch:
            scans.append(scan)
    return scans


def _vkey(v: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", v)[:4])


def _q(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)


def _arr(xs: list[str]) -> str:
    return "[" + ", ".join(_q(x) for x in xs) + "]"


def _py_key(p: str) -> tuple[int, int, int]:
    m = re.match(r"(\d+)\.(\d+)(t?)", p)
    return (int(m.group(1)), int(m.group(2)), 1 if m.group(3) else 0) if m else (0, 0, 0)


def propose(current_text: str, current: dict[str, Any], scans: list[VariantScan]) -> str:
    """The proposed torch.toml: pytorch-channel [[wheel]] rows updated/added from the scans.

    Known rows keep their reviewed fields (sources, companions) and gain the ROCm variants and Python
    versions the index shows (a partial or mirrored index must not propose deletions, so nothing is
    removed); the Triton pin is taken from PEP 658 metadata when offered. New torch releases are
    added with their unknown fields listed in ``uncertain``.
    """
    seen: dict[str, dict[str, Any]] = {}
    for s in scans:
        for tv, pys in s.torch.items():
            e = seen.setdefault(tv, {"rocm": set(), "pythons": set(), "pin": None})
            e["rocm"].add(s.rocm)
            e["pythons"] |= pys
            if tv in s.triton_pin:
                e["pin"] = s.triton_pin[tv]
    rows = [w for w in current.get("wheel", []) if w.get("channel") == "pytorch"]
    by_torch = {w["torch"]: dict(w) for w in rows}
    for tv, e in seen.items():
        w = by_torch.get(tv)
        if w is None:
            w = {"torch": tv, "channel": "pytorch", "uncertain": ["torchvision", "torchaudio"],
                 "source": "rocmdoctor matrix update : scanned index (review companions before merging)"}
            if e["pin"] is None:
                w["uncertain"] = ["triton_package", "triton_version", *w["uncertain"]]
            by_torch[tv] = w
        w["rocm"] = sorted(set(w.get("rocm", [])) | e["rocm"], key=_vkey)
        w["pythons"] = sorted(set(w.get("pythons", [])) | e["pythons"], key=_py_key)
        if e["pin"]:
            w["triton_package"], w["triton_version"] = e["pin"]
            w["uncertain"] = [u for u in w.get("uncertain", []) if u not in ("triton_package", "triton_version")]
    ordered = sorted(by_torch.values(), key=lambda w: _vkey(w["torch"]), reverse=True)
    blocks = []
    for w in ordered:
        lines = ["[[wheel]]", f"torch = {_q(w['torch'])}", f"rocm = {_arr(w['rocm'])}", 'channel = "pytorch"']
        for k in ("triton_package", "triton_version", "torchvision", "torchaudio"):
            if w.get(k):
                lines.append(f"{k} = {_q(w[k])}")
        lines += [f"pythons = {_arr(w['pythons'])}", f"uncertain = {_arr(w.get('uncertain', []))}",
                  f"source = {_q(w['source'])}"]
        if w.get("note"):
            lines.append(f"note = {_q(w['note'])}")
        blocks.append("\n".join(lines) + "\n")
    # splice: replace the run of pytorch-channel [[wheel]] blocks, keep everything else verbatim
    parts = re.split(r"(?m)^(?=\[\[)", current_text)
    head, out, inserted = parts[0], [], False
    for p in parts[1:]:
        if p.startswith("[[wheel]]") and re.search(r'(?m)^channel = "pytorch"$', p):
            if not inserted:
                out.append("\n".join(blocks) + "\n")
                inserted = True
            continue
        out.append(p)
    if not inserted:
        out.append("\n".join(blocks))
    text = head + "".join(x if x.endswith("\n") else x + "\n" for x in out)
    return text


def run_update(index_url: str, timeout: float = 20.0) -> tuple[str, str]:
    """(diff, one-line summary) for `rocmdoctor matrix update`."""
    from pathlib import Path

    from rocmdoctor.matrix.load import read_toml
    from rocmdoctor.paths import MATRICES_DIR

    path = Path(MATRICES_DIR) / "torch.toml"
    text = path.read_text(encoding="utf-8")
    current = read_toml(path)
    builds = read_toml(Path(MATRICES_DIR) / "torch_builds.toml").get("build", [])
    known = sorted({str(b["rocm"]) for b in builds if b.get("torch") != "nightly"}, key=_vkey)
    scans = scan_index(index_url, known, timeout=timeout)
    if not scans:
        raise OperationFailed(f"no ROCm torch wheels found under {index_url}")
    diff = make_diff(text, propose(text, current, scans))
    n = sum(len(s.torch) for s in scans)
    summary = (f"scanned {len(scans)} ROCm variant(s), {n} torch release/variant pair(s); "
               + ("no changes" if not diff else f"{diff.count(chr(10))} diff lines to review"))
    return diff, summary
