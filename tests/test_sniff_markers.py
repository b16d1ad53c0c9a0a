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


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["torch==2.5.1", "numpy==2.1.0", "pkg @ file:///x", "  ", "$ pip freeze",
                                 "Successfully installed torch", "rocm-smi", "", "a==1", "b===2"]), max_size=30))
def test_freeze_vote_stops_early_with_the_same_answer(lines: list[str]) -> None:
    """sniff counts each distinct line once and stops the pip-freeze vote when it is decided: same answer as
    counting every line."""
    from rocmdoctor.parse.sniff import _FREEZE_LINE, _body, _mostly_freeze

    text = "\n".join(lines)
    plain = [ln.strip() for ln in text.split("\n")]
    plain = [ln for ln in plain if ln and not ln.startswith(("$ ", "λ ", "# ", "> ", "❯ "))]
    body = _body(text)  # the lines' shapes: every ASCII digit read as 0 (tests/test_sniff_shapes.py)
    assert sum(body.values()) == len(plain)
    assert set(body) == {ln.translate(str.maketrans("123456789", "000000000")) for ln in plain}
    expected = bool(plain) and sum(1 for ln in plain if _FREEZE_LINE.match(ln)) >= max(1, len(plain) * 0.6)
    assert (bool(body) and _mostly_freeze(body, len(plain))) == expected
