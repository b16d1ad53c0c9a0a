"""Does a literal string occur in a text? One cheap answer shared by every scanner of one paste.

The free-text extractor, the signature scan and ``sniff`` all skip a regex when a literal that every match
contains is absent: about 270 ``needle in text`` tests, each a full pass over the text (~0.5 ms per MiB).
Logs repeat their lines (the same warning a thousand times, a seed repeated to fill a paste), so the tests
run on a *digest*: the text's distinct lines, in first-seen order, joined by newlines. A needle without a
newline occurs in the text exactly when it occurs in the digest (it lies within one line, and every line
of the text is a line of the digest; it cannot span the joining newlines). A needle with a newline is
searched in the text itself. The answers are the same as ``in``; only the cost changes: a few ms to build
the digest, then each test runs over the distinct lines only.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Optional

MIN_DIGEST = 64 * 1024  # below this a full pass costs microseconds: search the text itself

_last: Optional[tuple[str, str]] = None  # (text, its digest): the scanners of one paste share one digest


def digest(text: str) -> str:
    """The distinct lines of ``text`` joined by newlines (``text`` itself when it is short)."""
    global _last
    last = _last
    if last is not None and last[0] is text:
        return last[1]
    if len(text) < MIN_DIGEST:
        return text
    lines = dict.fromkeys(text.split("\n"))
    out = "\n".join(lines) if len(lines) * 2 < text.count("\n") + 1 else text
    _last = (text, out)
    return out


def occurs(text: str, needle: str) -> bool:
    """``needle in text``, answered from the digest of ``text`` where that is exact."""
    if "\n" in needle:
        return needle in text
    return needle in digest(text)


@lru_cache(maxsize=1024)
def literal_needles(pattern: re.Pattern[str]) -> Optional[tuple[str, ...]]:
    """Strings of which every match of ``pattern`` contains at least one (the longest literal run of each
    top-level alternative), or None when some alternative has no literal of 3+ characters (or the pattern
    ignores case). Lets :func:`scan` skip a signature with ``in`` instead of a regex pass over 16 MiB."""
    if pattern.flags & re.IGNORECASE:
        return None
    try:
        try:
            from re import _parser as sre_parse  # type: ignore[attr-defined]  # Python >= 3.11
        except ImportError:  # pragma: no cover - Python < 3.11
            import sre_parse  # type: ignore[no-redef]
        parsed = list(sre_parse.parse(pattern.pattern, pattern.flags))
    except Exception:  # any parser quirk means: no prefilter, run the regex
        return None
    branches = [parsed]
    if len(parsed) == 1 and str(parsed[0][0]) == "BRANCH":
        branches = [list(b) for b in parsed[0][1][1]]
    out = []
    for items in branches:
        best, run = "", ""
        for op, av in items:
            if str(op) == "LITERAL":
                run += chr(av)
                best = max(best, run, key=len)
            else:
                run = ""
        if len(best) < 3:
            return None
        out.append(best)
    return tuple(out)
