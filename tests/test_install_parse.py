"""The index-page parser behind --lock: PEP 691 JSON, PEP 503 HTML and flat pages; never crashes on any bytes."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from rocmdoctor.install.index import parse_index_page

H1, H2 = "a" * 64, "B" * 64


def test_pep691_json() -> None:
    body = json.dumps({"files": [
        {"filename": "torch-2.5.1+rocm6.2-cp311-cp311-linux_x86_64.whl", "hashes": {"sha256": H1}},
        {"filename": "torch-2.5.1+rocm6.2-cp312-cp312-linux_x86_64.whl", "hashes": {"sha256": H2}},
        {"filename": "torch-2.4.1+rocm6.1-cp311-cp311-linux_x86_64.whl", "hashes": {}},
        {"filename": "torchvision-0.20.1+rocm6.2-cp311-cp311-linux_x86_64.whl", "hashes": {"sha256": H1}},
    ]}).encode()
    out = parse_index_page(body, "application/vnd.pypi.simple.v1+json", "torch")
    assert out == {"2.5.1+rocm6.2": {"torch-2.5.1+rocm6.2-cp311-cp311-linux_x86_64.whl": H1,
                                     "torch-2.5.1+rocm6.2-cp312-cp312-linux_x86_64.whl": H2.lower()}}


def test_pep503_html_and_flat_pages() -> None:
    body = (
        '<a href="/files/pytorch_triton_rocm-3.1.0-cp311-cp311-linux_x86_64.whl#sha256=' + H1 + '">x</a>\n'
        '<a href="https://repo.radeon.com/rocm/manylinux/rocm-rel-6.4.1/'
        'torch-2.6.0%2Brocm6.4.1.git1ded221d-cp312-cp312-linux_x86_64.whl#sha256=' + H2 + '">y</a>\n'
        '<a href="/files/pytorch_triton_rocm-3.0.0-cp311-cp311-linux_x86_64.whl">no hash</a>'
    ).encode()
    assert parse_index_page(body, "text/html", "pytorch-triton-rocm") == {
        "3.1.0": {"pytorch_triton_rocm-3.1.0-cp311-cp311-linux_x86_64.whl": H1}}
    assert parse_index_page(body, "text/html", "torch") == {
        "2.6.0+rocm6.4.1.git1ded221d": {"torch-2.6.0+rocm6.4.1.git1ded221d-cp312-cp312-linux_x86_64.whl": H2.lower()}}


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=2000), st.sampled_from(["text/html", "application/vnd.pypi.simple.v1+json", ""]))
def test_never_crashes(body: bytes, ctype: str) -> None:
    out = parse_index_page(body, ctype, "torch")
    assert isinstance(out, dict)


@settings(max_examples=100, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=20),
                    lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=10), c, max_size=4)))
def test_never_crashes_on_odd_json(value: object) -> None:
    assert isinstance(parse_index_page(json.dumps({"files": value}).encode(), "application/json", "torch"), dict)
