"""One project or root page of a Python package index: PEP 503 HTML or PEP 691 JSON, and flat find-links pages.

Two features read these pages: the installer (the sha256 of every file, for ``--lock`` and to check where
an installed distribution came from) and ``matrix update`` (which wheels exist, and whether PEP 658 metadata
is offered). Both read them through :func:`parse_simple_index`, so that a page means the same to both.

Pure and total: an index page comes from the network and is hostile until proven otherwise, so input is
bounded (:data:`MAX_PAGE_CHARS`, :data:`MAX_LINKS`) and a page that cannot be read yields no links, never an
exception. Standard library only.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Optional, Union
from urllib.parse import unquote, urljoin, urlsplit

#: A project page larger than this is refused whole (PyPI's torch page is a few MB).
MAX_PAGE_CHARS = 64 * 1024 * 1024
#: Links read from one page; the rest are ignored (PyPI's largest project pages list tens of thousands).
MAX_LINKS = 500_000


@dataclass(frozen=True)
class IndexLink:
    """One file (or, on a root page, one project) a page links to.

    ``filename``: the last path component of the link, percent-decoded (PEP 503: it must equal the anchor's
    text). ``url``: absolute when the page's own URL was given. ``text``: the anchor's text (HTML only).
    ``hashes``: algorithm -> lower-case hex digest (the ``#sha256=`` fragment of an HTML link, the ``hashes``
    object of a JSON file). ``metadata``: whether PEP 658/714 metadata is offered. ``yanked``: None, or the
    reason (PEP 592; ``""`` when none is given).
    """

    filename: str
    url: str
    text: str = ""
    hashes: dict[str, str] = field(default_factory=dict)
    metadata: bool = False
    yanked: Optional[str] = None
    requires_python: Optional[str] = None


def parse_simple_index(body: Union[bytes, str], content_type: str, base_url: str = "") -> list[IndexLink]:
    """The links of one page (JSON when ``content_type`` says so, else HTML). Never raises."""
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    if len(text) > MAX_PAGE_CHARS:
        return []
    if "json" in content_type:
        return _from_json(text, base_url)
    return _from_html(text, base_url)


def _join(base_url: str, href: str) -> Optional[str]:
    """``href`` made absolute against the page's URL; None when either is not a URL (``http://[::1``)."""
    try:
        url = urljoin(base_url, href)
        urlsplit(url)
    except ValueError:
        return None
    return url


def _filename(url: str) -> str:
    return unquote(urlsplit(url).path.rstrip("/").rsplit("/", 1)[-1])


def _hash_fragment(url: str) -> dict[str, str]:
    """``{"sha256": digest}`` from a ``#sha256=<hex>`` fragment (any algorithm name, hex digests only)."""
    frag = urlsplit(url).fragment
    algo, eq, digest = frag.partition("=")
    if eq and algo.isalnum() and digest and all(c in "0123456789abcdefABCDEF" for c in digest):
        return {algo.lower(): digest.lower()}
    return {}


def _from_json(text: str, base_url: str) -> list[IndexLink]:
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return []
    files = data.get("files", []) if isinstance(data, dict) else []
    out: list[IndexLink] = []
    for f in files[:MAX_LINKS] if isinstance(files, list) else []:
        if not isinstance(f, dict) or not isinstance(f.get("filename"), str):
            continue
        raw = f.get("hashes")
        hashes = {k.lower(): v.lower() for k, v in raw.items()
                  if isinstance(k, str) and isinstance(v, str)} if isinstance(raw, dict) else {}
        meta = f.get("core-metadata", f.get("dist-info-metadata", False))
        yanked = f.get("yanked", False)
        rp = f.get("requires-python")
        url = _join(base_url, str(f.get("url", f["filename"])))
        if url is None:
            continue
        out.append(IndexLink(
            filename=f["filename"], url=url,
            hashes=hashes, metadata=bool(meta),
            yanked=(yanked if isinstance(yanked, str) else "") if yanked else None,
            requires_python=rp if isinstance(rp, str) else None))
    return out


class _Anchors(HTMLParser):
    """Every ``<a href>`` of a page, with its attributes and text (an unclosed anchor ends at the next one)."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[tuple[str, str, dict[str, Optional[str]]]] = []
        self._cur: Optional[tuple[str, dict[str, Optional[str]]]] = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, Optional[str]]]) -> None:
        if tag != "a":
            return
        self._flush()
        d = dict(attrs)
        if d.get("href") and len(self.links) < MAX_LINKS:
            self._cur = (d["href"] or "", d)
            self._text = []

    def handle_data(self, data: str) -> None:
        if self._cur is not None and len(self._text) < 64:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "a":
            self._flush()

    def _flush(self) -> None:
        if self._cur is not None:
            self.links.append((self._cur[0], "".join(self._text).strip(), self._cur[1]))
            self._cur = None


def _from_html(text: str, base_url: str) -> list[IndexLink]:
    parser = _Anchors()
    try:
        parser.feed(text)
        parser.close()
    except Exception:  # html.parser is lenient, but a page is never worth a crash
        pass
    parser._flush()
    out: list[IndexLink] = []
    for href, label, attrs in parser.links:
        url = _join(base_url, href)
        if url is None:
            continue
        meta = attrs.get("data-core-metadata") or attrs.get("data-dist-info-metadata")
        yanked = attrs.get("data-yanked")
        out.append(IndexLink(
            filename=_filename(url), url=url, text=label, hashes=_hash_fragment(href),
            metadata=bool(meta) and meta != "false",
            yanked=None if "data-yanked" not in attrs else (yanked or ""),
            requires_python=attrs.get("data-requires-python")))
    return out
