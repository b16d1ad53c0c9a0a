"""Can a regex match this text at all? Literal prefilters shared by every scanner of one paste.

The free-text extractor, the signature scan and ``sniff`` skip a regex when a literal that every match
contains is absent (:func:`literal_needles` finds such literals in the parsed pattern): about 270
``needle in text`` tests per paste, each a full pass over the text (~0.5 ms per MiB). Logs repeat their
lines (the same warning a thousand times, a seed repeated to fill a paste), and where they do not, it is
mostly for their numbers (a journal or dmesg stamps each line with its time, a pid, a counter). So the tests
run on a *shape digest*: the text in UTF-8 with every ASCII digit read as ``0``, cut into lines, each distinct
line once, joined by newlines. For a needle without a newline and without a digit the answer is exact: the
digit positions of the text all read ``0`` in the shape, so an occurrence in the shape covers none of them and
is an occurrence in the text; it lies within one line, and every line of the text has its shape in the digest.
A needle with a digit is ruled out when its own shape is absent, and otherwise searched in the text's distinct
lines; a needle with a newline is searched in the text itself. Where even the shapes of the lines do not
repeat, the words still do: a needle can only occur if each of its whitespace-free pieces lies within one word
of the shape, which the distinct words, joined, answer cheaply. The answers are those of ``in``; only the cost
changes: a few ms to build the digests once per text, then each test runs over the distinct shapes only.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache
from typing import Any, Optional

MIN_DIGEST = 64 * 1024  # below this a full pass costs microseconds: search the text itself
_DIGITS = bytes.maketrans(b"123456789", b"000000000")  # the shape of a text: every ASCII digit read as 0
_HAS_DIGIT = re.compile(rb"[0-9]")
# The only non-ASCII characters ``re.IGNORECASE`` matches to an ASCII one (checked over all of Unicode on
# Python 3.11; tests/test_needles.py checks it again on the running Python): İ and ı to i, ſ to s, the Kelvin sign
# to k.
_ASCII_FOLDS = tuple((c.encode("utf-8"), a) for c, a in (("\u0130", b"i"), ("\u0131", b"i"), ("\u017f", b"s"),
                                                          ("\u212a", b"k")))


def _ascii_folded(data: bytes) -> bytes:
    """UTF-8 ``data`` lowered as ``re.IGNORECASE`` matches it to ASCII: the characters of :data:`_ASCII_FOLDS`
    replaced, then the ASCII letters lowered (``bytes.lower`` touches nothing else)."""
    if not data.isascii():
        for char, ascii_char in _ASCII_FOLDS:
            data = data.replace(char, ascii_char)
    return data.lower()


def _shape(s: str) -> bytes:
    """``s`` in UTF-8 (lone surrogates too: a generated text may hold them) with every ASCII digit read as 0.
    UTF-8 keeps ``in``: an encoded needle can only match at a character boundary of the encoded text."""
    return s.encode("utf-8", "surrogatepass").translate(_DIGITS)


class _Digest:
    """The digests of one long text, each built on first use."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._distinct: Optional[str] = None
        self._shape: Optional[bytes] = None
        self._counts: Optional[Counter[bytes]] = None
        self._words: Optional[bytes] = None
        self._worded = False
        self._lower: Optional[bytes] = None

    @property
    def distinct(self) -> str:
        """The distinct lines joined by newlines (or the text itself, when its lines hardly repeat)."""
        if self._distinct is None:
            lines = dict.fromkeys(self.text.split("\n"))
            self._distinct = "\n".join(lines) if len(lines) * 2 < self.text.count("\n") + 1 else self.text
        return self._distinct

    @property
    def shape_counts(self) -> Counter[bytes]:
        """Each distinct line of the text's shape (:func:`_shape`), with how many lines have it."""
        if self._counts is None:
            self._counts = Counter(_shape(self.text).split(b"\n"))
        return self._counts

    @property
    def shape(self) -> bytes:
        """The distinct lines of the text's shape, joined by newlines."""
        if self._shape is None:
            self._shape = b"\n".join(self.shape_counts)
        return self._shape

    def may_hold(self, needle: str) -> bool:
        """False when some whitespace-free piece of ``needle`` lies in no word of the shape (so the needle
        cannot occur); True means: search further."""
        if not self._worded:
            if len(self.shape) >= MIN_DIGEST:
                words = b"\n".join(dict.fromkeys(self.shape.split()))
                self._words = words if len(words) * 2 < len(self.shape) else None
            self._worded = True
        return self._words is None or all(_shape(piece) in self._words for piece in needle.split())

    def holds(self, needle: str) -> bool:
        """``needle in self.text``."""
        if not self.may_hold(needle):
            return False
        if "\n" in needle:
            return needle in self.text
        encoded = needle.encode("utf-8", "surrogatepass")
        if _HAS_DIGIT.search(encoded) is None:
            return encoded in self.shape  # exact: see the module's docstring
        return encoded.translate(_DIGITS) in self.shape and needle in self.distinct

    def may_hold_any_case(self, needle: str) -> bool:
        """False only when the ASCII ``needle`` occurs in the text in no letter case. Exact for any text: under
        ``re.IGNORECASE`` only four non-ASCII characters match an ASCII one (:data:`_ASCII_FOLDS`), so with them
        replaced, lowering the UTF-8 bytes (``bytes.lower`` touches ASCII only) decides it."""
        if self._lower is None:
            self._lower = _ascii_folded(self.shape)
        return _shape(needle.lower()) in self._lower


_last: Optional[_Digest] = None  # the scanners of one paste share one digest


def _digest(text: str) -> _Digest:
    global _last
    last = _last
    if last is not None and last.text is text:
        return last
    out = _Digest(text)
    if len(text) >= MIN_DIGEST:
        _last = out
    return out


def replaced(text: str, new: str, pairs: tuple[tuple[str, str], ...]) -> None:
    """Say that ``new`` is ``text`` with each first character of ``pairs`` replaced by the second (no newline or
    ASCII digit among them): the digests of ``new`` are then those of ``text`` already built, the same replacement
    made in each distinct line, instead of a pass over the whole of ``new`` (the free-text extractor reads a paste
    with its backticks as spaces). Exact: the replacement keeps every line apart and touches no digit, and in
    UTF-8 a character's bytes occur only as that character. Does nothing unless ``text``'s lines repeat."""
    global _last
    last = _last
    if last is None or last.text is not text or new is text or last._counts is None or len(new) != len(text):
        return
    counts = last._counts
    if len(counts) * 4 > sum(counts.values()):  # lines hardly repeat: a pass over ``new`` costs no more
        return
    table = [(old.encode("utf-8"), by.encode("utf-8")) for old, by in pairs]
    mapped: Counter[bytes] = Counter()
    for line, n in counts.items():
        for old_b, by_b in table:
            line = line.replace(old_b, by_b)
        mapped[line] += n
    out = _Digest(new)
    out._counts = mapped
    if last._distinct is not None and last._distinct is not text:
        distinct = last._distinct
        for old, by in pairs:
            distinct = distinct.replace(old, by)
        out._distinct = "\n".join(dict.fromkeys(distinct.split("\n")))
    _last = out


def digest(text: str) -> str:
    """The distinct lines of ``text`` joined by newlines (``text`` itself when short or hardly repeated)."""
    if len(text) < MIN_DIGEST:
        return text
    return _digest(text).distinct


def line_shapes(text: str) -> Counter[str]:
    """Each distinct line of ``text`` with every ASCII digit read as 0, and how many lines have that shape: for
    a test no digit can change (a regex whose digits all sit in classes holding every digit), a long log whose
    lines differ only in their numbers costs a few distinct lines. Shared with the scanners' digest."""
    return Counter({k.decode("utf-8", "surrogatepass"): n for k, n in _digest(text).shape_counts.items()})


def occurs(text: str, needle: str) -> bool:
    """``needle in text``, answered from the digests of ``text`` where that is exact."""
    if len(text) < MIN_DIGEST:
        return needle in text
    return _digest(text).holds(needle)


def _occurs_any_case(text: str, needle: str) -> bool:
    """``needle`` occurs in ``text`` ignoring case as ``re.IGNORECASE`` does (True, i.e. "maybe", for a needle
    with a newline or a non-ASCII character, and for one with digits in a long text: see :func:`_ascii_folded`)."""
    if "\n" in needle or not needle.isascii():
        return True
    if len(text) < MIN_DIGEST:
        return needle.lower().encode() in _ascii_folded(text.encode("utf-8", "surrogatepass"))
    return _digest(text).may_hold_any_case(needle)


def may_match(text: str, pattern: re.Pattern[str]) -> bool:
    """False only when ``pattern`` cannot match ``text``: a literal every match contains is absent."""
    needles = _needles(pattern)
    if needles is None:
        return True
    if pattern.flags & re.IGNORECASE:
        return any(_occurs_any_case(text, n) for n in needles)
    return any(occurs(text, n) for n in needles)


def may_match_source(text: str, regex: str, flags: int) -> Optional[bool]:
    """:func:`may_match` for a pattern not compiled yet, when its needles are already known (None: unknown,
    compile it and ask :func:`may_match`). Saves compiling the signatures a text cannot match."""
    key = (regex, flags | re.UNICODE)  # a compiled str pattern's flags include UNICODE
    if key not in KNOWN:
        return None
    needles = KNOWN[key]
    if needles is None:
        return True
    if flags & re.IGNORECASE:
        return any(_occurs_any_case(text, n) for n in needles)
    return any(occurs(text, n) for n in needles)


def literal_needles(pattern: re.Pattern[str]) -> Optional[tuple[str, ...]]:
    """Strings of which every match of ``pattern`` contains at least one, or None when none are known (or the
    pattern ignores case: :func:`may_match` handles that). Lets a scanner skip a regex pass over 16 MiB."""
    return None if pattern.flags & re.IGNORECASE else _needles(pattern)


def pattern_needles(pattern: re.Pattern[str]) -> Optional[tuple[str, ...]]:
    """The literals :func:`may_match` tests for ``pattern`` (None: none known, the regex always runs)."""
    return _needles(pattern)


#: Needles worked out by an earlier process, keyed by (pattern text, flags): rocmdoctor.parse.signatures
#: fills this from its data-only cache, since parsing the ~100 shipped patterns again costs ~5 ms per run.
KNOWN: dict[tuple[str, int], Optional[tuple[str, ...]]] = {}


@lru_cache(maxsize=1024)
def _needles(pattern: re.Pattern[str]) -> Optional[tuple[str, ...]]:
    if (pattern.pattern, pattern.flags) in KNOWN:
        return KNOWN[(pattern.pattern, pattern.flags)]
    try:
        try:
            from re import _parser as sre_parse  # type: ignore[attr-defined]  # Python >= 3.11
        except ImportError:  # pragma: no cover - Python < 3.11
            import sre_parse  # type: ignore[no-redef]
        parsed = list(sre_parse.parse(pattern.pattern, pattern.flags))
    except Exception:  # any parser quirk means: no prefilter, run the regex
        return None
    return _of_sequence(parsed)


def _of_sequence(items: list[tuple[Any, Any]]) -> Optional[tuple[str, ...]]:
    """Needles of a sequence of parsed items: its longest literal run (3+ characters), else the needles of a
    group or alternation that every match passes through (each of its alternatives must have some).
    Repeats, lookarounds and groups with their own flags are not looked into: they may match nothing."""
    best, run = "", ""
    groups: list[tuple[str, ...]] = []
    for op, av in items:
        name = str(op)
        if name == "LITERAL":
            run += chr(av)
            best = max(best, run, key=len)
            continue
        run = ""
        sub: Optional[tuple[str, ...]] = None
        if name == "BRANCH":
            alternatives = [_of_sequence(list(b)) for b in av[1]]
            if alternatives and all(a is not None for a in alternatives):
                sub = tuple(n for a in alternatives if a is not None for n in a)
        elif name == "SUBPATTERN" and not av[1] and not av[2]:  # (group, add_flags, del_flags, pattern)
            sub = _of_sequence(list(av[3]))
        if sub is not None:
            groups.append(sub)
    if len(best) >= 3:
        return (best,)
    return min(groups, key=len) if groups else None
