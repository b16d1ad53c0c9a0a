"""Shared helpers for the parsers: turn pasted terminal text into clean, numbered lines.

Pasted material arrives with ANSI colours, CRLF line ends, shell prompts (``$ rocminfo | grep gfx``,
``λ rocm_agent_enumerator``, ``root@box:/# ...``), trailing padding and bytes that are not UTF-8.
Every parser goes through :func:`lines` so that each of them handles all of this the same way and
keeps the original 1-based line numbers for evidence.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Optional, Union

from rocmdoctor.limits import LIMITS
from rocmdoctor.model import Source
from rocmdoctor.parse.needles import occurs

# A parser never looks at more than this many characters of one input (or of one line): beyond it, text
# is cut. This bounds the time and memory one huge paste can cost; no real tool output has longer lines.
MAX_CHARS = LIMITS["text-chars"]
MAX_LINE = LIMITS["line-chars"]

_ANSI = re.compile(r"\x1b\[[0-9;?]{0,32}[ -/]{0,4}[@-~]|\x1b[@-Z\\-_]")
# Shell prompts: "$ cmd", "# cmd", "λ cmd", "> cmd", "user@host:~$ cmd", "root@host:/# cmd", "(venv) $ cmd".
_PROMPT = re.compile(
    r"^\s*(?:\([^)\s]{1,64}\)\s+)?"
    r"(?:[\w.-]{1,64}@[\w.-]{1,64}(?::[^\s$#]{0,256})?\s?[$#]|[$#λ❯➜%]|>>>|PS [^>]{0,256}>)\s+"
)


def decode(data: Union[bytes, str]) -> str:
    """Bytes from a bundle as text: UTF-8 with replacement, never an exception."""
    if isinstance(data, str):
        return data
    return data.decode("utf-8", errors="replace")


def clean(line: str) -> str:
    """One line without ANSI escapes, carriage returns, NULs or trailing padding."""
    if "\x1b" in line:
        line = _ANSI.sub("", line)
    if "\r" in line or "\x00" in line:
        line = line.replace("\r", "").replace("\x00", "")
    return line.rstrip()


def lines(text: str, first: int = 1) -> Iterator[tuple[int, str]]:
    """(1-based line number, cleaned line) for every line of ``text`` (cut at :data:`MAX_CHARS`), from line
    ``first`` on (the lines before it are not cleaned at all)."""
    if len(text) > MAX_CHARS:
        text = text[:MAX_CHARS]
    rows = text.split("\n")
    for number, raw in enumerate(rows[first - 1:] if first > 1 else rows, max(first, 1)):
        yield number, clean(raw[:MAX_LINE] if len(raw) > MAX_LINE else raw)


def lines_holding(text: str, needles: tuple[str, ...]) -> Iterator[tuple[int, str]]:
    """The (number, line) of :func:`lines` whose cleaned line holds one of ``needles`` (none holds a newline),
    without cleaning the others: each needle is found by C-level searches over the text, and only the lines
    it lies in are cleaned and tested. For a parser whose state only a line holding a needle changes, a long
    paste then costs a few searches instead of a regex per line. Exact: the characters :func:`clean` removes
    (CR, NUL) could join a needle, so they are removed from the text searched; a text with terminal escapes
    is filtered line by line, and so is one where the needles lie in most lines (a bound on a hostile text)."""
    if len(text) > MAX_CHARS:
        text = text[:MAX_CHARS]
    rows = text.split("\n")
    plain = text.replace("\r", "").replace("\x00", "") if "\r" in text or "\x00" in text else text
    starts: set[int] = set()  # offsets in ``plain`` of the lines a needle lies in
    budget = len(rows) // 4 + 16
    escaped = "\x1b" in text
    # Most needles are absent: ruled out on the paste's shared digest rather than by a full search each.
    present = () if escaped else tuple(n for n in needles if plain is not text or occurs(text, n))
    for needle in present:
        pos = plain.find(needle)
        while pos != -1 and budget > 0:
            budget -= 1
            starts.add(plain.rfind("\n", 0, pos) + 1)
            end = plain.find("\n", pos)
            pos = plain.find(needle, end) if end != -1 else -1
    numbered = lines(text) if escaped or budget <= 0 else _numbered(plain, rows, sorted(starts))
    for number, line in numbered:
        if any(needle in line for needle in needles):
            yield number, line


def _numbered(plain: str, rows: list[str], starts: list[int]) -> Iterator[tuple[int, str]]:
    """(number, cleaned line) of the lines of ``plain`` that begin at ``starts`` (``rows``: the raw lines)."""
    number, counted = 1, 0
    for at in starts:
        number += plain.count("\n", counted, at)
        counted = at
        raw = rows[number - 1]
        yield number, clean(raw[:MAX_LINE] if len(raw) > MAX_LINE else raw)


_DIFF_BLOCK = re.compile(r"(^[ \t]{0,3}```[ \t]{0,4}diff[ \t]*\n)(.{0,200000}?)(^[ \t]{0,3}```|\Z)", re.M | re.S)
_REMOVED_LINE = re.compile(r"^-[^\n]*", re.M)


def without_removed_lines(text: str) -> str:
    """``text`` with the removed lines of its markdown ``diff`` blocks blanked (same length, same lines): a
    ``-pip install ... rocm5.1.1`` line is what a change took out, not a command the report ran
    (deepspeedai/DeepSpeed#2796). Offsets and line numbers stay those of the paste."""
    if "```" not in text or "diff" not in text:
        return text
    return _DIFF_BLOCK.sub(lambda m: m.group(1) + _REMOVED_LINE.sub(lambda r: " " * len(r.group(0)), m.group(2))
                           + m.group(3), text)


_WHOLE_LINE_SPAN = re.compile(r"^([ \t>*-]{0,8})`([^`\n]{1,2000})`([ \t]*)$", re.M)
# the same after a newline: a literal first character lets the engine jump from line to line, where ``^`` is tried
# at every character of the text (a 1 MiB paste: ~6 ms against ~1 ms)
_SPAN_AFTER_NEWLINE = re.compile(r"\n([ \t>*-]{0,8})`([^`\n]{1,2000})`([ \t]*)$", re.M)


def _unwrapped(m: re.Match[str]) -> str:
    return m.group(1) + m.group(2) + m.group(3) + "  "


def without_code_spans(text: str) -> str:
    """``text`` with every line that is one markdown code span unwrapped (same length, same lines): a report's
    "`amdgpu/6.3.6-1697589.22.04, 6.5.0-35-generic, x86_64: installed`" is dkms status's own line, read by its
    parser like the bare one (issue templates and chat pastes wrap single output lines in backticks). The first
    line is read by :data:`_WHOLE_LINE_SPAN`, every other by :data:`_SPAN_AFTER_NEWLINE` (a span never holds a
    newline, so the lines are read apart either way)."""
    if "`" not in text:
        return text
    first = _WHOLE_LINE_SPAN.match(text)
    rest = text if first is None else text[first.end():]
    rest = _SPAN_AFTER_NEWLINE.sub(lambda m: "\n" + _unwrapped(m), rest)
    return rest if first is None else _unwrapped(first) + rest


def strip_prompt(line: str) -> tuple[str, bool]:
    """``("rocminfo | grep gfx", True)`` for ``"$ rocminfo | grep gfx"``; the line unchanged otherwise."""
    m = _PROMPT.match(line)
    if m is None:
        return line, False
    return line[m.end() :], True


def src(file: str, line: Optional[int], text: Optional[str] = None) -> Source:
    """A Source whose text is stripped and bounded (evidence lines stay readable)."""
    if text is not None:
        text = text.strip()
        if len(text) > 300:
            text = text[:297] + "..."
    return Source(file, line, text)


def to_int(value: object) -> Optional[int]:
    """Lenient int: ``"104"``, ``"0x740f"``, ``"29711(0x740f)"``, ``12``; ``None`` when not a number."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if value == value and abs(value) < 1e30 else None
    if not isinstance(value, str):
        return None
    s = value.strip()
    m = re.match(r"^(0[xX][0-9a-fA-F]+|-?\d+)", s)
    if m is None:
        return None
    tok = m.group(1)
    try:
        return int(tok, 16) if tok[:2] in ("0x", "0X") else int(tok)
    except ValueError:
        return None


def hex_id(value: object, width: int = 4) -> Optional[str]:
    """A PCI id as ``0x73df``: lower case, 0x-prefixed, zero-padded; ``None`` if it is not one."""
    if isinstance(value, str):
        s = value.strip().lower()
        n = int(s, 16) if re.fullmatch(r"(0x)?[0-9a-f]{1,8}", s) else to_int(s)
    else:
        n = to_int(value)
    if n is None or n < 0 or n > 0xFFFFFFFF:
        return None
    return f"0x{n:0{width}x}"


def pci_bus(value: str) -> Optional[str]:
    """Normalise a PCI address to ``0000:03:00.0`` (``03:00.0`` gains the 0000 domain)."""
    m = re.fullmatch(r"\s*(?:([0-9a-fA-F]{1,8}):)?([0-9a-fA-F]{1,2}):([0-9a-fA-F]{1,2})\.([0-7])\s*", value or "")
    if m is None:
        return None
    dom = int(m.group(1) or "0", 16)
    return f"{dom:04x}:{int(m.group(2), 16):02x}:{int(m.group(3), 16):02x}.{m.group(4)}"


def bus_from_bdfid(bdfid: int, domain: int = 0) -> Optional[str]:
    """rocminfo ``BDFID`` / kfd ``location_id`` (bus<<8 | dev<<3 | fn) as a PCI address."""
    if bdfid <= 0 or bdfid > 0xFFFF or domain < 0 or domain > 0xFFFFFFFF:
        return None
    return f"{domain:04x}:{(bdfid >> 8) & 0xFF:02x}:{(bdfid >> 3) & 0x1F:02x}.{bdfid & 0x7}"


def is_binary(text: str) -> bool:
    """True when decoded text looks like binary data (many NULs or replacement characters)."""
    sample = text[:65536]
    if not sample:
        return False
    bad = sample.count("\x00") + sample.count("\ufffd")
    return bad > max(8, len(sample) // 20)


_GFX = re.compile(r"gfx[0-9a-f]{3,5}")


def gfx_base(name: str) -> Optional[str]:
    """``gfx90a`` from ``gfx90a:sramecc+:xnack-`` or ``amdgcn-amd-amdhsa--gfx90a``; ``None`` otherwise."""
    m = _GFX.search(name.lower()) if name else None
    return m.group(0) if m else None


# Marketing names that integrated GPUs report ("AMD Radeon Graphics" is what rocminfo prints for
# most Ryzen APUs; the numbered ones are the 680M/780M/890M/8060S family).
_APU_NAME = re.compile(
    r"^\s*AMD Radeon(?:\(TM\))? Graphics\s*$|Radeon(?:\(TM\))?\s+\d{3}M\b|Radeon(?:\(TM\))?\s+80[56]0S\b"
    r"|Radeon Vega \d+ Graphics|\bVega \d+ Graphics|Radeon\(TM\) Vega|Radeon Vega Mobile|Radeon 610M",
    re.I,
)


def looks_like_apu(name: Optional[str]) -> bool:
    """True for marketing names only integrated GPUs use."""
    return bool(name) and bool(_APU_NAME.search(name or ""))
