"""sniff tests a paste's lines by their shape (every digit read as 0): the kinds it answers are those of the
plain count of the lines themselves, on real captures, on journals whose lines differ only in their time stamp,
and on generated pip-freeze lists, agent lists and lone version lines; and the regexes it applies to the body
cannot tell one digit from another (so a new one that could fails here, not on a user's paste)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rocmdoctor.parse import needles, sniff
from tests.parse_helpers import CAPTURES

ROOT = Path(__file__).resolve().parent.parent


def _plain_body(text: str) -> Counter[str]:
    """sniff._body before shapes: the lines themselves."""
    out: Counter[str] = Counter()
    for raw, n in Counter(text.split("\n")).items():
        ln = raw.strip()
        if ln and not ln.startswith(("$ ", "λ ", "# ", "> ", "❯ ")):
            out[ln] += n
    return out


def _plain_sniff(text: str, monkeypatch) -> list[str]:
    with monkeypatch.context() as m:
        m.setattr(sniff, "_body", _plain_body)
        return sniff.sniff(text)


def _texts() -> list[str]:
    out = [p.read_text(encoding="utf-8", errors="replace")
           for p in sorted(CAPTURES.rglob("*")) if p.is_file() and p.suffix in (".txt", ".log", "")]
    out += [p.read_text(encoding="utf-8", errors="replace") for p in sorted((ROOT / "fixtures").glob("*/paste.txt"))]
    return out


def test_same_kinds_as_the_plain_body_on_real_texts(monkeypatch) -> None:
    texts = _texts()
    assert len(texts) > 30
    for text in texts:
        for body in (text, "\n".join(f"12:00:{i:02d}.{i:06d} {ln}" for i, ln in enumerate(text.split("\n")))):
            needles._last = None
            assert sniff.sniff(body) == _plain_sniff(body, monkeypatch)


_LINE = st.one_of(
    st.sampled_from(["gfx90a", "gfx1100", "gfx000", "gfx9", "torch==2.6.0+rocm6.2", "numpy==1.26.4", "6.2.4",
                     "6.2.4-120", "6.5.0-14-generic", "pip @ file:///x", "$ pip freeze", "", "  ", "# x", "9.9",
                     "Name: torch", "Version: 2.6.0", "ROCk module is loaded", "a==1", "x" * 3]),
    st.from_regex(r"[a-z0-9][a-z0-9._-]{0,8}==[0-9][0-9.]{0,6}", fullmatch=True),
    st.from_regex(r"gfx[0-9a-f]{2,6}", fullmatch=True),
    st.from_regex(r"[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}(-[0-9a-z.]{1,8}){0,2}", fullmatch=True),
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(st.lists(_LINE, min_size=1, max_size=12), st.integers(1, 3))
def test_same_kinds_as_the_plain_body_on_generated_lines(monkeypatch, lines: list[str], times: int) -> None:
    text = "\n".join(lines * times)
    needles._last = None
    assert sniff.sniff(text) == _plain_sniff(text, monkeypatch)


@pytest.mark.parametrize("rx", [sniff._ENUMERATOR_LINE, sniff._FREEZE_LINE, sniff._ROCM_VERSION, sniff._UNAME_R])
def test_the_body_regexes_are_blind_to_which_digit(rx) -> None:
    """Each digit of a pattern sits in a class that holds all ten digits (no literal 7, no [0-5])."""
    from re import _parser as sre_parse  # type: ignore[attr-defined]

    digits = set(range(ord("0"), ord("9") + 1))

    def walk(items) -> None:
        for op, av in items:
            name = str(op)
            assert not (name == "LITERAL" and av in digits), (rx.pattern, chr(av))
            if name == "IN":
                held: set[int] = set()
                for k, v in av:
                    if str(k) == "LITERAL":
                        held.add(v)
                    elif str(k) == "RANGE":
                        held.update(range(v[0], v[1] + 1))
                    elif str(k) == "CATEGORY":
                        held.update(digits if "DIGIT" in str(v) or "WORD" in str(v) else ())
                    elif str(k) == "NEGATE":
                        held = set(digits)  # a negated class: checked by the fuzz above
                assert not (held & digits) or digits <= held, rx.pattern
            for sub in av if isinstance(av, (list, tuple)) else ():
                if isinstance(sub, sre_parse.SubPattern):
                    walk(sub)
                elif isinstance(sub, (list, tuple)):
                    for s in sub:
                        if isinstance(s, sre_parse.SubPattern):
                            walk(s)

    walk(sre_parse.parse(rx.pattern, rx.flags))
