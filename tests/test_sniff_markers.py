"""The line-start fast path of :func:`rocmdoctor.parse.sniff._found` answers exactly what ``rx.search`` answers:
on every real capture, on every capture with its first line removed (a marker that is no longer at the start of
the text) and on generated text built from marker fragments."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rocmdoctor.parse.sniff import _MARKERS, _after_newline, _found
from tests.parse_helpers import CAPTURES

TEXTS = sorted(p for p in CAPTURES.rglob("*") if p.is_file() and p.name != "SOURCE.md" and p.stat().st_size < 4_000_000)


def test_line_anchored_markers_take_the_fast_path() -> None:
    fast = {kind for kind, rx in _MARKERS if _after_newline(rx) is not None}
    assert {"lspci", "os-release", "dmesg", "env"} <= fast
    assert "rocminfo" not in fast and "collect_env" not in fast  # some alternative is not at a line start


def test_without_multiline_caret_is_text_start_only() -> None:
    assert _after_newline(re.compile(r"^Linux version \d")) is None
    assert not _found(re.compile(r"^Linux version \d"), "x\nLinux version 6")


@pytest.mark.parametrize("path", TEXTS, ids=lambda p: str(p.relative_to(CAPTURES)))
def test_same_answer_as_search_on_real_captures(path) -> None:
    text = path.read_text(encoding="utf-8", errors="replace").replace("\r", "")
    for body in (text, text.split("\n", 1)[-1], "noise\n" + text):
        for kind, rx in _MARKERS:
            assert _found(rx, body) == (rx.search(body) is not None), kind


_PIECES = st.sampled_from(["\n", " ", "  ", "$ ", "Linux version 6", "PRETTY_NAME=x", "HSA_OVERRIDE_GFX_VERSION=1",
                           "[  1.5] amdgpu", "amdgpu 123 0", "03:00.0 VGA compatible controller", "HIP version :",
                           "Name:  torch\nVersion: 2", "Model name:   AMD", "/dev/kfd 666 root render 1 2",
                           "gfx_target_version 110000", "Distributor ID:\tUbuntu", "x"])


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, max_size=12).map("".join))
def test_same_answer_as_search_on_generated_text(text: str) -> None:
    for kind, rx in _MARKERS:
        assert _found(rx, text) == (rx.search(text) is not None), kind
