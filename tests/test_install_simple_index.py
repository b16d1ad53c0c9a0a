"""The one simple-index parser (rocmdoctor.parse.simple_index): PEP 503 HTML and PEP 691 JSON mean the same, the
PEP 658/714 metadata and PEP 592 yanked markers are read, input is bounded, and no bytes make it raise."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from rocmdoctor.install.index import parse_index_page as installer_page
from rocmdoctor.matrix.update import parse_index_page as update_page
from rocmdoctor.parse import simple_index
from rocmdoctor.parse.simple_index import IndexLink, parse_simple_index

H = "ab" * 32
WHL = "torch-2.5.1+rocm6.2-cp311-cp311-linux_x86_64.whl"
BASE = "http://127.0.0.1/simple/torch/"


def test_html_and_json_pages_of_the_same_files_agree() -> None:
    html = (f'<a href="../../f/torch-2.5.1%2Brocm6.2-cp311-cp311-linux_x86_64.whl#sha256={H.upper()}" '
            f'data-dist-info-metadata="sha256={H}" data-yanked="broken ABI" data-requires-python="&gt;=3.9">'
            f'{WHL}</a>')
    js = json.dumps({"meta": {"api-version": "1.1"}, "files": [{
        "filename": WHL, "url": "../../f/torch-2.5.1%2Brocm6.2-cp311-cp311-linux_x86_64.whl",
        "hashes": {"sha256": H.upper()}, "dist-info-metadata": {"sha256": H}, "yanked": "broken ABI",
        "requires-python": ">=3.9"}]})
    (a,) = parse_simple_index(html, "text/html", BASE)
    (b,) = parse_simple_index(js.encode(), "application/vnd.pypi.simple.v1+json", BASE)
    for link in (a, b):
        assert link.filename == WHL
        assert link.url.startswith("http://127.0.0.1/f/torch-2.5.1%2Brocm6.2")
        assert link.hashes == {"sha256": H} and link.metadata and link.yanked == "broken ABI"
        assert link.requires_python == ">=3.9"
    assert a.text == WHL and b.text == ""


def test_core_metadata_false_and_unyanked() -> None:
    html = (f'<a href="{WHL}" data-core-metadata="false">x</a><a href="{WHL}" data-core-metadata="true" '
            'data-yanked>y</a><a href="no-close.whl" data-core-metadata>z')
    links = parse_simple_index(html, "text/html")
    assert [(x.metadata, x.yanked) for x in links] == [(False, None), (True, ""), (False, None)]
    assert links[2].filename == "no-close.whl" and links[2].text == "z"  # an unclosed last anchor still counts
    js = {"files": [{"filename": WHL, "core-metadata": False, "dist-info-metadata": True, "yanked": True},
                    {"filename": WHL, "yanked": False}]}
    links = parse_simple_index(json.dumps(js), "application/vnd.pypi.simple.v1+json")
    assert [(x.metadata, x.yanked) for x in links] == [(False, ""), (False, None)]


def test_anchors_without_href_and_non_hex_fragments_are_ignored() -> None:
    html = f'<a name="top">top</a><a href="{WHL}#md5=xyz">x</a><a href="{WHL}#sha256={H}">y</a>'
    links = parse_simple_index(html, "text/html")
    assert [x.hashes for x in links] == [{}, {"sha256": H}]


def test_over_the_bound_is_refused_whole(monkeypatch) -> None:
    page = f'<a href="{WHL}#sha256={H}">x</a>'
    assert parse_simple_index(page, "text/html")
    monkeypatch.setattr(simple_index, "MAX_PAGE_CHARS", len(page) - 1)
    assert parse_simple_index(page, "text/html") == []
    monkeypatch.setattr(simple_index, "MAX_PAGE_CHARS", 10 ** 9)
    monkeypatch.setattr(simple_index, "MAX_LINKS", 2)
    assert len(parse_simple_index(page * 5, "text/html")) == 2
    assert len(parse_simple_index(json.dumps({"files": [{"filename": WHL}] * 5}), "application/json")) == 2


def test_deeply_nested_json_is_no_crash() -> None:
    assert parse_simple_index("[" * 100_000, "application/json") == []
    assert parse_simple_index('{"files": ' + "[" * 100_000 + "]" * 100_000 + "}", "application/json") == []


def test_both_features_read_the_same_page_the_same_way() -> None:
    page = (f'<a href="/f/{WHL}#sha256={H}" data-core-metadata="true">{WHL}</a>'
            f'<a href="/f/torchvision-0.20.1-cp311-cp311-linux_x86_64.whl">v</a>').encode()
    assert installer_page(page, "text/html", "torch") == {"2.5.1+rocm6.2": {WHL: H}}
    files = update_page(page.decode(), "text/html", BASE)
    assert [(f.filename, f.url, f.has_metadata) for f in files] == [
        (WHL, f"http://127.0.0.1/f/{WHL}#sha256={H}", True),
        ("torchvision-0.20.1-cp311-cp311-linux_x86_64.whl",
         "http://127.0.0.1/f/torchvision-0.20.1-cp311-cp311-linux_x86_64.whl", False)]


_TAG = st.sampled_from(["a", "A", "p", "br", "a href", "/a", "!--", "script"])
_ATTR = st.sampled_from(["href", "data-core-metadata", "data-dist-info-metadata", "data-yanked",
                         "data-requires-python", "HREF"])


@st.composite
def _html(draw: st.DrawFn) -> str:
    parts = []
    for _ in range(draw(st.integers(0, 12))):
        attrs = " ".join(f'{draw(_ATTR)}="{draw(st.text(max_size=30))}"'
                         for _ in range(draw(st.integers(0, 3))))
        parts.append(f"<{draw(_TAG)} {attrs}>{draw(st.text(max_size=20))}")
    return "".join(parts)


@settings(max_examples=300, deadline=None)
@given(st.one_of(_html(), st.text(max_size=2000), st.binary(max_size=2000)),
       st.sampled_from(["text/html", "application/vnd.pypi.simple.v1+json", "", "application/json"]),
       st.sampled_from(["", BASE, "not a url", "http://[::1"]))
def test_never_raises_and_yields_well_formed_links(body: object, ctype: str, base: str) -> None:
    assert isinstance(body, (str, bytes))
    links = parse_simple_index(body, ctype, base)
    for link in links:
        assert isinstance(link, IndexLink) and isinstance(link.filename, str) and isinstance(link.url, str)
        assert all(isinstance(k, str) and isinstance(v, str) for k, v in link.hashes.items())
        assert link.yanked is None or isinstance(link.yanked, str)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.dictionaries(
    st.sampled_from(["filename", "url", "hashes", "core-metadata", "dist-info-metadata", "yanked",
                     "requires-python"]),
    st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=20),
                 lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=8), c, max_size=3)),
    max_size=7), max_size=6))
def test_json_files_of_any_shape(files: list[dict[str, object]]) -> None:
    links = parse_simple_index(json.dumps({"files": files}), "application/vnd.pypi.simple.v1+json", BASE)
    assert len(links) <= sum(isinstance(f.get("filename"), str) for f in files)
    assert all(isinstance(x.filename, str) and x.url.startswith("http://127.0.0.1/") for x in links)


def test_a_link_that_is_no_url_is_left_out() -> None:
    """urljoin/urlsplit raise ValueError on a bracketed host that does not close: such a link is skipped."""
    html = f'<a href="http://[::1/{WHL}">x</a><a href="{WHL}">y</a>'
    assert [x.filename for x in parse_simple_index(html, "text/html", BASE)] == [WHL]
    assert [x.filename for x in parse_simple_index(html, "text/html", "http://[::1")] == []
    js = json.dumps({"files": [{"filename": WHL, "url": "http://[::1/x"}, {"filename": WHL}]})
    assert len(parse_simple_index(js, "application/json", BASE)) == 1
