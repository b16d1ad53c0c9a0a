"""The literal prefilters (rocmdoctor.parse.needles) change how fast a paste is read, never what is read.

* ``occurs`` answers ``needle in text`` from the text's distinct lines: checked against ``in`` on long,
  repetitive texts built from real capture lines (the digest is only used above ``MIN_DIGEST``).
* ``may_match`` never says "no" where the regex matches: on every signature, sniff marker and free-text rule,
  on real lines, in other cases (the table's case-insensitive signature) and with Unicode case folding.
* The free-text extractor, which now skips absent needles on the digest and remembers each window's matches,
  gives exactly what the plain algorithm (every needle searched, every window matched) gives.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rocmdoctor.parse import needles
from rocmdoctor.parse.freetext import MAX_PER_RULE, RULES, _line_end, _line_start, extract
from rocmdoctor.parse.logs import literal_needles, load_signatures
from rocmdoctor.parse.needles import _needles, may_match, occurs
from rocmdoctor.parse.sniff import _MARKERS
from rocmdoctor.parse.text import clean
from tests.parse_helpers import CAPTURES

ROOT = Path(__file__).resolve().parent.parent


def _real_lines() -> list[str]:
    out: list[str] = []
    for p in sorted((ROOT / "fixtures").glob("*/paste.txt"))[:60]:
        out.extend(p.read_text(encoding="utf-8", errors="replace").splitlines()[:80])
    for p in sorted(CAPTURES.rglob("*.txt"))[:40] if CAPTURES.is_dir() else []:
        out.extend(p.read_text(encoding="utf-8", errors="replace").splitlines()[:80])
    assert len(out) > 200, "no real lines found: fixtures/ is part of the repository"
    return out


LINES = _real_lines()
PATTERNS = ([s.pattern for s in load_signatures()] + [rx for _, rx in _MARKERS] + [r.pattern for r in RULES])


@pytest.fixture(autouse=True)
def _small_digest(monkeypatch):
    """Use the digest on short texts too, so that generated examples exercise it."""
    monkeypatch.setattr(needles, "MIN_DIGEST", 0)
    monkeypatch.setattr(needles, "_last", None)


def _repeated(lines: list[str], times: int, sep: str = "\n") -> str:
    return sep.join(lines * times)


_TEXTS = st.builds(_repeated, st.lists(st.sampled_from(LINES), min_size=1, max_size=20),
                   st.integers(1, 6), st.sampled_from(["\n", "\r\n"]))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(_TEXTS, st.data())
def test_occurs_is_in(text: str, data) -> None:
    needles._last = None
    samples = ["\n", "\n\n", "x" * 5, "rocm", "ROCm", text[:7]]
    for _ in range(6):
        a = data.draw(st.integers(0, len(text)))
        samples.append(text[a:a + data.draw(st.integers(1, 40))])  # a substring, maybe across lines
    for s in samples:
        assert occurs(text, s) == (s in text), s


def _stamped(lines: list[str], times: int, first: int) -> str:
    """Lines that never repeat, as in a journal: each stamped with its own time (the digits differ)."""
    return "\n".join(f"Nov 30 {i // 60 % 60:02d}:{i % 60:02d}.{i:06d} {ln}"
                     for i, ln in enumerate(lines * times, first))


_STAMPED = st.builds(_stamped, st.lists(st.sampled_from(LINES), min_size=1, max_size=12), st.integers(1, 5),
                     st.integers(0, 10 ** 6))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(_STAMPED, st.data())
def test_occurs_is_in_where_only_the_numbers_differ(text: str, data) -> None:
    """The shape digest reads every digit as 0: a needle with digits is still answered as ``in`` answers."""
    needles._last = None
    samples = ["00:00", "Nov 30 00:", "30 0", "000000", "\u00e9", "\udc80", "Nov 3", text[:9]]
    for _ in range(8):
        a = data.draw(st.integers(0, len(text)))
        s = text[a:a + data.draw(st.integers(1, 30))]
        samples += [s, s.translate(str.maketrans("0123456789", "1234567890"))]  # present, and maybe absent
    for s in samples:
        assert occurs(text, s) == (s in text), s


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(_STAMPED, st.data())
def test_any_case_is_never_no_where_a_case_insensitive_search_finds_it(text: str, data) -> None:
    needles._last = None
    for _ in range(8):
        a = data.draw(st.integers(0, len(text)))
        s = text[a:a + data.draw(st.integers(1, 30))]
        for sample in (s, s.upper(), s.swapcase(), s + "q", s.translate(str.maketrans("0123456789", "9876543210"))):
            found = re.search(re.escape(sample), text, re.I) is not None
            assert needles._occurs_any_case(text, sample) or not found, sample
            if sample.isascii() and text.isascii() and "\n" not in sample and not any(c.isdigit() for c in sample):
                assert needles._occurs_any_case(text, sample) == found, sample  # decided exactly


def test_the_shape_digest_is_small_for_stamped_lines() -> None:
    """What makes a journal cheap: its lines' shapes repeat although the lines do not."""
    text = _stamped(LINES[:50], 40, 0)
    assert len(set(text.split("\n"))) == 2000  # no line repeats
    assert len(needles._Digest(text).shape) * 20 < len(text.encode())


def test_the_digest_holds_each_distinct_line_once() -> None:
    text = "b\na\nb\na\nc\n" * 5
    assert needles.digest(text) == "b\na\nc\n"
    assert needles.digest(text) is needles.digest(text)  # one digest per text, shared by the scanners


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(_TEXTS)
def test_may_match_never_rules_out_a_match(text: str) -> None:
    needles._last = None
    for rx in PATTERNS:
        if not may_match(text, rx):
            assert rx.search(text) is None, rx.pattern


@pytest.mark.parametrize("line", [
    "Error: open /dev/kfd: permission denied",  # ollama's lower case
    "ERROR: /DEV/KFD PERMISSION DENIED",
    "hipErrorNoDevice: /dev/kfd Permission Denied",
])
def test_case_insensitive_signature_is_decided_on_ascii_text(line: str) -> None:
    sig = next(s for s in load_signatures()
               if s.pattern.flags & re.IGNORECASE and s.finding == "log.kfd-permission-denied")
    assert sig.pattern.search(line), "example must match the table's case-insensitive signature"
    for text in (line, ("noise line\n" * 50) + line + "\n" + "noise line\n" * 50):
        needles._last = None
        assert may_match(text, sig.pattern)
    needles._last = None
    assert not may_match("noise line\n" * 100, sig.pattern)


def test_unicode_case_folding_is_never_ruled_out() -> None:
    """re.IGNORECASE matches the Kelvin sign to 'k' and the long s to 's': no ASCII lower-casing decides those."""
    for rx, text in ((re.compile(r"kfd device", re.I), "\u212afd device"),
                     (re.compile(r"missing file", re.I), "mi\u017f\u017fing file")):
        assert rx.search(text)
        needles._last = None
        assert may_match(text * 3, rx)


@pytest.mark.parametrize(("rx", "expected"), [
    (r"abc(?:def)?ghij", ("ghij",)),
    (r"(?:abc|defg)x", ("abc", "defg")),  # the only literal run is one character: the group's alternatives
    (r"(?:abc|de)x", None),  # an alternative without three literal characters
    (r"(?i:abcdef)x", None),  # a group with its own flags is not looked into
    (r"(?:abcdef)*x", None),  # a repeat may match nothing
    (r"^(?:PRETTY_NAME|VERSION_ID)=", ("PRETTY_NAME", "VERSION_ID")),
    (r"Bad return|error processing", ("Bad return", "error processing")),
])
def test_needles_of_groups_and_alternations(rx: str, expected) -> None:
    assert _needles(re.compile(rx)) == expected


def test_literal_needles_keeps_its_contract() -> None:
    """Public name (re-exported by parse.logs): None for a pattern that ignores case."""
    assert literal_needles(re.compile("abcdef", re.I)) is None
    assert literal_needles(re.compile("abcdef")) == ("abcdef",)


# ------------------------------------------------------------------------- the free-text extractor


def test_rules_compile_and_look_back_one_character_at_most() -> None:
    """The window memo of freetext keys a window by its text and ONE character before it: that is all a rule
    may look at. A wider lookbehind (or ``\\A``) would make two equal windows answer differently."""
    from re import _parser as sre_parse  # type: ignore[attr-defined]

    def walk(items) -> Iterator[tuple[str, object]]:
        for op, av in items:
            yield str(op), av
            for sub in (av if isinstance(av, (list, tuple)) else ()):
                if isinstance(sub, sre_parse.SubPattern):
                    yield from walk(sub)
                elif isinstance(sub, (list, tuple)):
                    for s in sub:
                        if isinstance(s, sre_parse.SubPattern):
                            yield from walk(s)

    lookbehinds = 0
    for rule in RULES:
        parsed = sre_parse.parse(rule.pattern.pattern, rule.pattern.flags)
        for op, av in walk(parsed):
            assert not (op == "AT" and str(av) == "AT_BEGINNING_STRING"), rule.kind
            if op in ("ASSERT", "ASSERT_NOT") and av[0] == -1:  # (direction, pattern): a lookbehind
                lookbehinds += 1
                assert av[1].getwidth() == (1, 1), (rule.kind, rule.pattern.pattern)
    assert lookbehinds >= 3  # the walk does reach them (the rules have a few)


def _plain_extract(text: str) -> list[tuple[str, str, int]]:
    """The extractor without digest or memo: every needle searched with str.find, every window matched."""
    text = text.replace("`", " ")  # markdown code spans: the extractor reads "`2.6.0+rocm6.2`" as the version
    found = []
    for order, rule in enumerate(RULES):
        starts: set[int] = set()
        for needle in rule.needles:
            for lo, hi in _plain_windows(text, needle, rule.lines_after):
                for m in rule.pattern.finditer(text, lo, hi):
                    at = m.start("v")
                    if at < 0 or at in starts:
                        continue
                    starts.add(at)
                    found.append((at, order, rule.kind, clean(m.group("v").strip())[:400]))
                if len(starts) >= MAX_PER_RULE:
                    break
            if len(starts) >= MAX_PER_RULE:
                break
    found.sort()
    return [(kind, value, text.count("\n", 0, at) + 1) for at, _, kind, value in found]


def _more_lines(text: str, end: int, lines: int) -> int:
    for _ in range(lines):
        if end >= len(text):
            return len(text)
        end = _line_end(text, end + 1)
    return end


def _plain_windows(text: str, needle: str, lines: int) -> Iterator[tuple[int, int]]:
    n = len(text)
    line_start_needle = needle.startswith("\n")
    if line_start_needle and text.startswith(needle[1:]):
        end = _line_end(text, 0)
        yield 0, _more_lines(text, end, lines)
    pos, hits = text.find(needle), 0
    while pos != -1 and hits < 2000:
        hits += 1
        at = pos + 1 if line_start_needle else pos
        end = _line_end(text, at)
        yield _line_start(text, at), _more_lines(text, end, lines)
        if end >= n:
            break
        pos = text.find(needle, end if line_start_needle else end + 1)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(_TEXTS)
def test_extract_equals_the_plain_algorithm(text: str) -> None:
    needles._last = None
    got = [(f.kind, f.value, f.source.line) for f in extract(text, "paste.txt").facts]
    assert got == _plain_extract(text)


def test_extract_equals_the_plain_algorithm_on_a_long_repetitive_paste() -> None:
    """What bench/bench_paste.py feeds it: real lines repeated far beyond MAX_PER_RULE (the caps matter)."""
    text = "\n".join(LINES[:400]) * 8
    got = [(f.kind, f.value, f.source.line) for f in extract(text, "paste.txt").facts]
    assert got == _plain_extract(text)
    assert len(got) > 50


def test_the_ascii_folds_are_every_non_ascii_character_ignorecase_matches_to_ascii() -> None:
    """The exact any-case test rests on this table: checked over all of Unicode on the running Python."""
    any_ascii = re.compile(r"[\x00-\x7f]", re.I)
    found = {chr(cp) for cp in range(128, 0x110000) if any_ascii.fullmatch(chr(cp))}
    assert {c.decode("utf-8") for c, _ in needles._ASCII_FOLDS} == found
    for char, ascii_char in needles._ASCII_FOLDS:
        assert re.fullmatch(re.escape(ascii_char.decode()), char.decode("utf-8"), re.I)


_FOLDED = st.text(alphabet=st.sampled_from(list("abKkSsIi .:-\u0130\u0131\u017f\u212a\u00e9\u00df")), max_size=40)


@settings(max_examples=200, deadline=None)
@given(st.lists(_FOLDED, min_size=1, max_size=8), st.integers(1, 3000), st.data())
def test_any_case_is_decided_exactly_on_non_ascii_text(lines: list[str], repeat: int, data) -> None:
    """A pasted log with accents, dotted capitals or a Kelvin sign: the any-case test still answers exactly,
    short text or long (the long one through the digest), as a case-insensitive regex search would."""
    needles._last = None
    text = "\n".join(lines * repeat)
    samples = [data.draw(st.text(alphabet=st.sampled_from(list("abKkSsIi .:-")), min_size=1, max_size=6))
               for _ in range(6)]
    for sample in samples + [s.upper() for s in samples]:
        found = re.search(re.escape(sample), text, re.I) is not None
        assert needles._occurs_any_case(text, sample) == found, (sample, len(text))


def test_every_shipped_signature_has_needles_so_no_regex_runs_on_every_line() -> None:
    """A signature whose literals cannot be worked out runs its regex over every distinct line of a paste: one such
    pattern (a scoped `(?i:...)` group) cost 15 ms on a 1 MiB log whose lines do not repeat (nineteenth session)."""
    from rocmdoctor.parse.logs import load_signatures
    from rocmdoctor.parse.needles import pattern_needles

    assert [s.id for s in load_signatures() if pattern_needles(s.pattern) is None] == []
