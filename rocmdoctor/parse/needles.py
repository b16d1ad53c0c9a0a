"""Can a regex match this text at all? Literal prefilters shared by every scanner of one paste.

The free-text extractor, the signature scan and ``sniff`` skip a regex when a literal that every match
contains is absent (:func:`literal_needles` finds such literals in the parsed pattern): about 270
``needle in text`` tests per paste, each a full pass over the text (~0.5 ms per MiB). Logs repeat their
lines (the same warning a thousand times, a seed repeated to fill a paste), so the tests run on a *digest*:
the text's distinct lines, in first-seen order, joined by newlines. A needle without a newline occurs in
the text exactly when it occurs in the digest (it lies within one line, every line of the text is a line of
the digest, and it cannot span the joining newlines). A needle with a newline is searched in the text
itself. Where lines do not repeat (a journal stamps each with its time) the words still do: a needle can
only occur if each of its whitespace-free pieces lies within one word of the text, which the distinct
words, joined, answer cheaply; only a needle that passes that test is searched in the lines. The answers
are those of ``in``; only the cost changes: a few ms to build the digests once per text, then each test
runs over the distinct lines or words only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Optional

MIN_DIGEST = 64 * 1024  # below this a full pass costs microseconds: search the text itself


@dataclass
class _Digest:
    text: str
    distinct: str  # the distinct lines joined by newlines (or the text itself)
    lower: Optional[str] = None  # ``distinct.lower()`` once asked for, when the text is ASCII
    lowered: bool = False
    words: Optional[str] = None  # the distinct whitespace-separated words joined by newlines, where that is short
    worded: bool = False

    def may_hold(self, needle: str) -> bool:
        """False when some whitespace-free piece of ``needle`` lies in no word of the text (so the needle
        cannot occur); True means: search the lines."""
        if not self.worded:
            if len(self.distinct) >= MIN_DIGEST:
                words = "\n".join(dict.fromkeys(self.distinct.split()))
                self.words = words if len(words) * 2 < len(self.distinct) else None
            self.worded = True
        return self.words is None or all(piece in self.words for piece in needle.split())


_last: Optional[_Digest] = None  # the scanners of one paste share one digest


def _digest(text: str) -> _Digest:
    global _last
    last = _last
    if last is not None and last.text is text:
        return last
    if len(text) < MIN_DIGEST:
        return _Digest(text, text)
    lines = dict.fromkeys(text.split("\n"))
    out = _Digest(text, "\n".join(lines) if len(lines) * 2 < text.count("\n") + 1 else text)
    _last = out
    return out


def digest(text: str) -> str:
    """The distinct lines of ``text`` joined by newlines (``text`` itself when short or hardly repeated)."""
    return _digest(text).distinct


def occurs(text: str, needle: str) -> bool:
    """``needle in text``, answered from the digests of ``text`` where that is exact."""
    d = _digest(text)
    if not d.may_hold(needle):
        return False
    if "\n" in needle:
        return needle in text
    return needle in d.distinct


def _occurs_any_case(text: str, needle: str) -> bool:
    """``needle`` occurs in ``text`` ignoring case (True, i.e. "maybe", where that cannot be told cheaply and
    exactly: Unicode case folding matches 'ſ' to 's' and the Kelvin sign to 'k', so only ASCII is decided)."""
    if "\n" in needle or not needle.isascii():
        return True
    d = _digest(text)
    if not d.lowered:
        d.lower, d.lowered = (d.distinct.lower() if d.distinct.isascii() else None), True
    return d.lower is None or needle.lower() in d.lower


def may_match(text: str, pattern: re.Pattern[str]) -> bool:
    """False only when ``pattern`` cannot match ``text``: a literal every match contains is absent."""
    needles = _needles(pattern)
    if needles is None:
        return True
    if pattern.flags & re.IGNORECASE:
        return any(_occurs_any_case(text, n) for n in needles)
    return any(occurs(text, n) for n in needles)


def literal_needles(pattern: re.Pattern[str]) -> Optional[tuple[str, ...]]:
    """Strings of which every match of ``pattern`` contains at least one, or None when none are known (or the
    pattern ignores case: :func:`may_match` handles that). Lets a scanner skip a regex pass over 16 MiB."""
    return None if pattern.flags & re.IGNORECASE else _needles(pattern)


@lru_cache(maxsize=1024)
def _needles(pattern: re.Pattern[str]) -> Optional[tuple[str, ...]]:
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
