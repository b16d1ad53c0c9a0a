"""Free text (logs, stderr, pastes) matched against the known error signatures in
``rocmdoctor/data/signatures.toml``. The table is data: adding a signature needs no code. It is read and typed
by :mod:`rocmdoctor.parse.signatures` (the one loader); the names below are re-exported from there."""

from __future__ import annotations

import re
from typing import Optional

from rocmdoctor.model import LogMatch
from rocmdoctor.parse.needles import literal_needles, may_match, may_match_source
from rocmdoctor.parse.signatures import (
    LOAD_ERRORS,
    SIGNATURES_FILE,
    Placeholders,
    Signature,
    load_signatures,
    signature,
)
from rocmdoctor.parse.text import MAX_CHARS, MAX_LINE, clean, src

__all__ = ["LOAD_ERRORS", "MAX_MATCHES_PER_SIGNATURE", "SIGNATURES_FILE", "Placeholders", "Signature",
           "literal_needles", "load_signatures", "scan", "signature"]

MAX_MATCHES_PER_SIGNATURE = 5  # per file and matched text: a log repeating one error a thousand times needs a few
# per file and signature, matches read at all: distinct lines of one signature (apt's "Unable to locate package X"
# for six packages, the sixth being the one that names the cause) are all kept, and the scan stays bounded
MAX_SCANNED_PER_SIGNATURE = 16
# per file and signature, matches its ``unless_line`` exempts: they do not count toward the cap above (sixteen exempt
# lines must not hide the seventeenth, real one), and this bound keeps a paste of a million exempt lines cheap
MAX_EXEMPT_PER_SIGNATURE = 256


def scan(text: str, file: str, signatures: Optional[tuple[Signature, ...]] = None,
         prefilter: bool = True) -> list[LogMatch]:
    """Every signature found in ``text``, in line order, at most a few per signature."""
    if len(text) > MAX_CHARS:
        text = text[:MAX_CHARS]
    sigs = load_signatures() if signatures is None else signatures
    hits: list[tuple[int, Signature, re.Match[str]]] = []
    for sig in sigs:
        if prefilter:  # a substring test on the distinct lines rules the signature out without running its regex
            known = may_match_source(text, sig.regex, sig.flags)
            if known is False or (known is None and not may_match(text, sig.pattern)):
                continue
        repeats: dict[str, int] = {}
        idle = 0  # matches in a row that added nothing: a log repeating its lines has shown them all
        scanned = exempt = 0
        unless = sig.unless
        for m in sig.pattern.finditer(text):
            if unless is not None and unless.search(_line_at(text, m.start())):
                exempt += 1
                if exempt >= MAX_EXEMPT_PER_SIGNATURE:
                    break
                continue
            scanned += 1
            seen = repeats.get(m.group(0), 0)
            if seen < MAX_MATCHES_PER_SIGNATURE:
                repeats[m.group(0)] = seen + 1
                hits.append((m.start(), sig, m))
                idle = 0
            else:
                idle += 1
            if scanned >= MAX_SCANNED_PER_SIGNATURE or idle >= MAX_MATCHES_PER_SIGNATURE:
                break
    # Line numbers: newlines counted once, in offset order (no per-character index of a 16 MiB paste).
    hits.sort(key=lambda h: h[0])
    found: list[LogMatch] = []
    line_no, counted = 1, 0
    seen_lines: set[tuple[str, int]] = set()  # one finding per signature and line ("A|B" can match twice)
    for at, sig, m in hits:
        line_no += text.count("\n", counted, at)
        counted = at
        if (sig.id, line_no) in seen_lines:
            continue
        seen_lines.add((sig.id, line_no))
        line = _line_at(text, at)
        groups = {k: v for k, v in m.groupdict().items() if v}
        found.append(LogMatch(sig.id, sig.finding, line.strip()[:300], groups, src(file, line_no, line)))
    return found


def _line_at(text: str, at: int) -> str:
    """The cleaned line holding offset ``at``, at most :data:`MAX_LINE` characters either side (a huge line)."""
    start = text.rfind("\n", max(0, at - MAX_LINE), at) + 1 or max(0, at - MAX_LINE)
    end = text.find("\n", at, at + MAX_LINE)
    return clean(text[start:end if end != -1 else min(len(text), at + MAX_LINE)])
