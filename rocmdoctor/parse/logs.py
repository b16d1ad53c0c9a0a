"""Free text (logs, stderr, pastes) matched against the known error signatures in
``rocmdoctor/data/signatures.toml``. The table is data: adding a signature needs no code."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Optional

from rocmdoctor.model import LogMatch
from rocmdoctor.parse.needles import occurs
from rocmdoctor.parse.text import MAX_CHARS, MAX_LINE, clean, src
from rocmdoctor.paths import DATA_DIR

SIGNATURES_FILE = DATA_DIR / "signatures.toml"
MAX_MATCHES_PER_SIGNATURE = 5  # per file: a log repeating one error a thousand times needs only a few


@dataclass(frozen=True)
class Signature:
    id: str
    finding: str
    pattern: re.Pattern[str]
    title: str
    severity: str = "fail"
    fix: str = ""
    explanation: str = ""
    commands: tuple[str, ...] = ()
    url: Optional[str] = None
    source: str = ""
    groups: tuple[str, ...] = field(default=())

    def filled(self, groups: dict[str, str]) -> Signature:
        """This signature with ``{group}`` placeholders in its title, explanation and commands filled from a
        match's named groups (one a match lacks stays as written)."""
        fmt = Placeholders(groups)
        return replace(self, title=self.title.format_map(fmt), explanation=self.explanation.format_map(fmt),
                       commands=tuple(c.format_map(fmt) for c in self.commands))


class Placeholders(dict):  # type: ignore[type-arg]
    """``str.format_map`` values where a missing ``{key}`` stays ``{key}`` instead of raising."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def _load_toml(path: str) -> dict:
    try:
        import tomllib  # type: ignore[import-not-found]
    except ModuleNotFoundError:  # Python < 3.11
        import tomli as tomllib  # type: ignore[no-redef]
    with open(path, "rb") as fh:
        return tomllib.load(fh)


LOAD_ERRORS: list[str] = []  # why (part of) the table could not be used; bundle.py turns these into notes


@lru_cache(maxsize=4)
def load_signatures(path: Optional[str] = None) -> tuple[Signature, ...]:
    """The signature table, compiled once per process (a broken row is skipped and reported, never raised)."""
    try:
        data = _load_toml(path or str(SIGNATURES_FILE))
    except (ImportError, OSError, ValueError) as exc:
        LOAD_ERRORS.append(f"signature table unreadable: {exc}")
        return ()
    out = []
    for item in data.get("signature", []):
        try:
            # ignorecase = true: the emitting program varies its case ("Permission denied" / "permission denied")
            pattern = re.compile(item["pattern"], re.IGNORECASE if item.get("ignorecase") is True else 0)
        except (KeyError, TypeError, re.error) as exc:
            LOAD_ERRORS.append(f"signature {item.get('id', '?')!r} skipped: {exc}")
            continue
        out.append(
            Signature(
                id=str(item.get("id", "")),
                finding=str(item.get("finding", "")),
                pattern=pattern,
                title=item.get("title", item["id"]),
                severity=item.get("severity", "fail"),
                fix=item.get("fix", ""),
                explanation=item.get("explanation", ""),
                commands=tuple(item.get("commands", ())),
                url=item.get("url"),
                source=item.get("source", ""),
                groups=tuple(pattern.groupindex),
            )
        )
    return tuple(out)


def signature(sig_id: str) -> Optional[Signature]:
    """Look a signature up by id (checks use this for the title, explanation and fix)."""
    return next((s for s in load_signatures() if s.id == sig_id), None)


def scan(text: str, file: str, signatures: Optional[tuple[Signature, ...]] = None,
         prefilter: bool = True) -> list[LogMatch]:
    """Every signature found in ``text``, in line order, at most a few per signature."""
    if len(text) > MAX_CHARS:
        text = text[:MAX_CHARS]
    sigs = load_signatures() if signatures is None else signatures
    hits: list[tuple[int, Signature, re.Match[str]]] = []
    for sig in sigs:
        needles = literal_needles(sig.pattern) if prefilter else None
        if needles is not None and not any(occurs(text, n) for n in needles):
            continue  # a substring test (memchr speed) rules the signature out without running its regex
        for count, m in enumerate(sig.pattern.finditer(text), 1):
            hits.append((m.start(), sig, m))
            if count >= MAX_MATCHES_PER_SIGNATURE:
                break
    # Line numbers: newlines counted once, in offset order (no per-character index of a 16 MiB paste).
    hits.sort(key=lambda h: h[0])
    found: list[LogMatch] = []
    line_no, counted = 1, 0
    for at, sig, m in hits:
        line_no += text.count("\n", counted, at)
        counted = at
        start = text.rfind("\n", max(0, at - MAX_LINE), at) + 1 or max(0, at - MAX_LINE)  # bounded on a huge line
        end = text.find("\n", at, at + MAX_LINE)
        line = clean(text[start:end if end != -1 else min(len(text), at + MAX_LINE)])
        groups = {k: v for k, v in m.groupdict().items() if v}
        found.append(LogMatch(sig.id, sig.finding, line.strip()[:300], groups, src(file, line_no, line)))
    return found


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
