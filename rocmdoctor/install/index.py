"""What the plan's index publishes: the sha256 of every file of a project, read from its simple-index pages.

Used for the hash lock (:mod:`rocmdoctor.install.hashlock`) and to check that what an install added came
from where the plan said (:func:`rocmdoctor.install.verify.verify_sources`). Pages are fetched bounded
(:data:`INDEX_PAGE_MAX_BYTES`) and parsed by :mod:`rocmdoctor.parse.simple_index`, the parser
``matrix update`` uses too.
"""

from __future__ import annotations

import re
from typing import Optional

from packaging.utils import (
    InvalidSdistFilename,
    InvalidWheelFilename,
    canonicalize_name,
    parse_sdist_filename,
    parse_wheel_filename,
)

from rocmdoctor.parse.simple_index import parse_simple_index

INDEX_PAGE_MAX_BYTES = 64 * 1024 * 1024  # one simple-index page (PyPI's torch page is a few MB): beyond is hostile
_SHA256 = re.compile(r"[0-9a-fA-F]{64}")


def _file_version(filename: str) -> Optional[tuple[str, str]]:
    """(normalised name, version) of a wheel or sdist file name, None for anything else."""
    try:
        if filename.endswith(".whl"):
            name, version, _, _ = parse_wheel_filename(filename)
        elif filename.endswith((".tar.gz", ".zip")):
            name, version = parse_sdist_filename(filename)
        else:
            return None
    except (InvalidWheelFilename, InvalidSdistFilename):
        return None
    return canonicalize_name(name), str(version)


def _fetch(url: str, accept: str) -> tuple[str, bytes]:
    """One index or find-links page: over HTTP(S) through :func:`rocmdoctor.http.session` (the user's proxy
    settings, retries on 429/5xx), a ``file://`` page with urllib; at most :data:`INDEX_PAGE_MAX_BYTES`.
    Raises ``OSError`` (requests' errors are ``OSError`` too) or ``ValueError``."""
    if not url.startswith(("http://", "https://")):
        import urllib.request  # here: its import (http.client, ssl) would delay every install's start

        req = urllib.request.Request(url, headers={"Accept": accept, "User-Agent": "rocmdoctor"})
        with urllib.request.urlopen(req, timeout=60) as resp:
            body = resp.read(INDEX_PAGE_MAX_BYTES + 1)
            ctype = resp.headers.get("Content-Type", "")
    else:
        from rocmdoctor import http

        with http.session().get(url, headers={"Accept": accept}, timeout=60, stream=True) as resp:
            if resp.status_code >= 400:
                raise OSError(f"{url}: HTTP {resp.status_code}")
            body = resp.raw.read(INDEX_PAGE_MAX_BYTES + 1, decode_content=True)
            ctype = resp.headers.get("Content-Type", "")
    if len(body) > INDEX_PAGE_MAX_BYTES:
        raise ValueError(f"{url}: index page larger than {INDEX_PAGE_MAX_BYTES} bytes")
    return ctype, body


def index_hashes(index_url: str, name: str, find_links: tuple[str, ...] = ()) -> dict[str, dict[str, str]]:
    """``{version: {filename: sha256}}`` for a project, from a PEP 691 JSON or PEP 503 HTML page
    (and flat find-links pages, whose ``#sha256=`` fragments carry the hashes)."""
    out: dict[str, dict[str, str]] = {}
    project = canonicalize_name(name)
    for page in (f"{index_url.rstrip('/')}/{project}/", *find_links):
        try:
            ctype, body = _fetch(page, "application/vnd.pypi.simple.v1+json, text/html;q=0.1")
        except (OSError, ValueError):
            continue
        for version, files in parse_index_page(body, ctype, project).items():
            out.setdefault(version, {}).update(files)
    return out


def parse_index_page(body: bytes, content_type: str, project: str) -> dict[str, dict[str, str]]:
    """``{version: {filename: sha256}}`` of ``project`` from one PEP 691 JSON / PEP 503 HTML / flat page.
    Never raises: a page it cannot read yields nothing; a file without a sha256 is left out."""
    out: dict[str, dict[str, str]] = {}
    wanted = canonicalize_name(project)
    for link in parse_simple_index(body, content_type):
        digest = link.hashes.get("sha256", "")
        if not _SHA256.fullmatch(digest):
            continue
        parsed = _file_version(link.filename)
        if parsed and parsed[0] == wanted:
            out.setdefault(parsed[1], {})[link.filename] = digest
    return out
