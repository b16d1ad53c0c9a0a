"""Facts in free text: what people paste into bug reports besides well-formed tool output.

A report rarely holds a full capture. It holds a REPL session (``torch.__version__`` -> ``'2.6.0+cu124'``),
a pip log (``Looking in indexes``, ``Downloading torch-2.6.0-...whl``, ``nvidia-cublas-cu12``), a shell prompt
(``(.venv) root@c0cb9814a02b:/#``, ``PS C:\\Users\\me>``), an application's GPU list (llama.cpp's
``Device 0: AMD Radeon Graphics, gfx1152``, ollama's ``inference compute`` line), a ``docker run`` line, a
dmesg excerpt with a PCI id, a product name in prose. Each rule below finds one such fact anywhere in the
text; the bundle reader folds them into the same :class:`~rocmdoctor.model.Host` the format parsers fill, at
a lower priority, so a real capture always wins over a sentence.

Why it is built this way:

* Rules are data (:data:`RULES`): a kind, a regex with a ``v`` group, and nothing else. Every regex has
  bounded quantifiers and is run with ``finditer`` over the whole text (linear, in C), at most
  :data:`MAX_PER_RULE` matches each, so a 16 MiB paste costs a few regex passes, not a Python loop per line.
* Facts carry their line as evidence, with ``Source.kind == "free-text"`` (lower confidence).
* Pure and total: ``extract`` never raises, whatever it is given.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Optional

from rocmdoctor.model import Source
from rocmdoctor.parse import needles
from rocmdoctor.parse.freetext_rules import CODENAME, FREE_TEXT, MAX_PER_RULE, RULES, Rule
from rocmdoctor.parse.needles import occurs
from rocmdoctor.parse.text import MAX_CHARS, clean

__all__ = ["CODENAME", "FREE_TEXT", "MAX_PER_RULE", "RULES", "Rule", "TextFact", "TextFacts", "app_gpu", "extract",
           "product_name", "python_minor", "torch_from_wheel"]


# Facts that say "this process runs in a container".
CONTAINER_HINTS = ("prompt.container",)


@dataclass(frozen=True)
class TextFact:
    """One fact found in free text: its kind (a :data:`RULES` kind), value, and line."""

    kind: str
    value: str
    source: Source


@dataclass
class TextFacts:
    facts: list[TextFact] = field(default_factory=list)

    def all(self, kind: str) -> list[TextFact]:
        return [f for f in self.facts if f.kind == kind]

    def first(self, kind: str) -> Optional[TextFact]:
        return next((f for f in self.facts if f.kind == kind), None)

    def kinds(self) -> set[str]:
        return {f.kind for f in self.facts}


# What extract() reads a character as: Markdown code spans ("- PyTorch: `2.12.0.dev20260408+rocm7.2`") lose their
# backticks; CJK input methods type a full-width colon ("ROCm： 5.7.1", ROCm/rocBLAS#1380), read as ':'
_READ_AS = (("`", " "), ("\uff1a", ":"))
MAX_HITS_PER_NEEDLE = 2000  # needle occurrences looked at per rule: bounds a paste full of near-misses
MAX_REMEMBERED = 1024  # windows whose matches one rule keeps (a log repeats far fewer distinct ones)
_WINDOW = 4096  # characters around a hit the regex sees (its line and the next; bounded on one huge line)


def _line_start(text: str, at: int) -> int:
    i = text.rfind("\n", max(0, at - _WINDOW), at)
    return i + 1 if i != -1 else max(0, at - _WINDOW)


def _line_end(text: str, at: int) -> int:
    """Offset of the newline ending the line at ``at`` (or a bounded end on a huge line / at the end of text)."""
    i = text.find("\n", at, at + _WINDOW)
    return i if i != -1 else min(len(text), at + _WINDOW)


def _after(text: str, end: int, lines: int = 1) -> int:
    """The end of the ``lines``-th line after the line ending at ``end``."""
    n = len(text)
    for _ in range(lines):
        if end >= n:
            return n
        end = _line_end(text, end + 1)
    return end


class _Occurrences:
    """Where one needle occurs in one text: (offset of its line part, end of its line) of each occurrence, the
    next one searched after that line, at most :data:`MAX_HITS_PER_NEEDLE`. Found on demand and kept, so the
    rules sharing a needle ("gfx", "/dev/kfd", "0M") search a long paste for it once, not once each."""

    def __init__(self, text: str, needle: str) -> None:
        self.text, self.needle = text, needle
        self.skip = 1 if needle.startswith("\n") else 0
        self.found: list[tuple[int, int]] = []
        # where the next search starts (None: no more); most needles are absent: ruled out on the digest
        self.start: Optional[int] = 0 if occurs(text, needle) else None

    def __iter__(self) -> Iterator[tuple[int, int]]:
        i = 0
        while i < len(self.found) or self._next():
            yield self.found[i]
            i += 1

    def _next(self) -> bool:
        """Find one more occurrence; False when there is none (or the cap is reached)."""
        if self.start is None or len(self.found) >= MAX_HITS_PER_NEEDLE:
            return False
        pos = self.text.find(self.needle, self.start)
        if pos == -1:
            self.start = None
            return False
        at = pos + self.skip
        end = _line_end(self.text, at)
        self.found.append((at, end))
        self.start = None if end >= len(self.text) else end + 1 - self.skip
        return True


def _windows(text: str, needle: str, lines: int = 1,
             occurrences: Optional[dict[str, _Occurrences]] = None) -> Iterator[tuple[int, int]]:
    """(start, end) of the line holding each occurrence of ``needle``, plus ``lines`` lines after it (where a REPL
    prints its answer; where an issue template's "### ROCm Version" heading has its answer, after a blank line).
    A needle starting with a newline matches at the start of a line (or of the text). ``occurrences``: the
    needles' occurrences found so far in ``text`` (shared by the rules of one :func:`extract`)."""
    if needle.startswith("\n") and text.startswith(needle[1:]):
        end = _line_end(text, 0)
        yield 0, _after(text, end, lines)
    occ = occurrences.get(needle) if occurrences is not None else None
    if occ is None:
        occ = _Occurrences(text, needle)
        if occurrences is not None:
            occurrences[needle] = occ
    for at, end in occ:
        yield _line_start(text, at), _after(text, end, lines)


def extract(text: str, file: str) -> TextFacts:
    """Every fact :data:`RULES` finds in ``text``, in line order (never raises; bounded time)."""
    out = TextFacts()
    try:
        if not isinstance(text, str) or not text:
            return out
        if len(text) > MAX_CHARS:
            text = text[:MAX_CHARS]
        read = text
        for char, read_as in _READ_AS:  # same offsets
            text = text.replace(char, read_as)
        needles.replaced(read, text, _READ_AS)  # the needle tests reuse the digests the other scanners built
        found: list[tuple[int, int, str, str]] = []  # (offset of the value, rule order, kind, value)
        occurrences: dict[str, _Occurrences] = {}
        once = _lines_once(text)
        for order, rule in enumerate(RULES):
            found.extend((at, order, rule.kind, value) for at, value in _rule_facts(text, rule, occurrences, once))
        found.sort()
        out.facts = _with_lines(text, found, file)
    except (RecursionError, MemoryError, re.error, ValueError, TypeError):  # pragma: no cover - defensive
        return out
    return out


def _lines_once(text: str) -> Optional[str]:
    """The first line of ``text``, then every distinct line of it once, each after a newline; None when its lines
    hardly repeat (or this would be a long text itself: its digest must not replace that of ``text``).

    Every window a rule reading one line (``lines_after`` 0) is shown in ``text`` is a window of this text too,
    with the same character before it (the first line alone starts the text, as there), the same end, and the
    same cut on a huge line (a line's occurrences are found from its start, whatever precedes it): so a needle
    whose windows here give such a rule no value gives it none in ``text`` either (:func:`_gives_nothing`)."""
    distinct = needles.digest(text)
    if distinct is text:
        return None
    first = text.find("\n")
    once = (text if first == -1 else text[:first]) + "\n" + distinct
    return once if len(once) < needles.MIN_DIGEST else None


def _gives_nothing(once: str, needle: str, rule: Rule) -> bool:
    """True when no window of ``needle`` in ``once`` (:func:`_lines_once`) gives ``rule`` a value; False also
    when the windows looked at reach the cap (an answer for some of them only)."""
    for count, (lo, hi) in enumerate(_windows(once, needle, 0), 1):
        if count >= MAX_HITS_PER_NEEDLE or any(m.start("v") >= 0 for m in rule.pattern.finditer(once, lo, hi)):
            return False
    return True


def _rule_facts(text: str, rule: Rule, occurrences: Optional[dict[str, _Occurrences]] = None,
                once: Optional[str] = None) -> list[tuple[int, str]]:
    """(offset, value) of the first :data:`MAX_PER_RULE` values ``rule`` finds in the windows of its needles.

    A log repeats its lines, so the matches of one window are remembered by the window's text and the
    character before it (every lookbehind of :data:`RULES` is one character wide, ``^`` and ``\\b`` look no
    further, and the regex sees nothing past the window's end): a repeated window costs a dict lookup. For the
    same reason a rule reading one line is first tried on the distinct lines (``once``, :func:`_lines_once`): a
    needle that gives it nothing there is not searched for in the whole text."""
    starts: set[int] = set()
    out: list[tuple[int, str]] = []
    seen: dict[tuple[bool, str], list[tuple[int, str]]] = {}
    one_line = once is not None and rule.lines_after == 0
    for needle in rule.needles:
        if one_line and "\n" not in needle[1:] and _gives_nothing(once or "", needle, rule):
            continue
        for lo, hi in _windows(text, needle, rule.lines_after, occurrences):
            key = (lo == 0, text[lo - 1 if lo else 0:hi])
            hits = seen.get(key)
            if hits is None:
                hits = [(m.start("v") - lo, clean(m.group("v").strip())[:400])
                        for m in rule.pattern.finditer(text, lo, hi) if m.start("v") >= 0]
                if len(seen) < MAX_REMEMBERED:  # bounded memory on a paste of distinct long lines
                    seen[key] = hits
            for rel, value in hits:
                if lo + rel not in starts:
                    starts.add(lo + rel)
                    out.append((lo + rel, value))
            if len(starts) >= MAX_PER_RULE:
                return out
    return out


def _with_lines(text: str, found: list[tuple[int, int, str, str]], file: str) -> list[TextFact]:
    """The facts with their line number and line text (newlines counted once, in offset order)."""
    facts: list[TextFact] = []
    line_no, counted = 1, 0
    for at, _, kind, value in found:
        line_no += text.count("\n", counted, at)
        counted = at
        line = clean(text[_line_start(text, at):_line_end(text, at)]).strip()
        if len(line) > 300:
            line = line[:297] + "..."
        facts.append(TextFact(kind, value, Source(file, line_no, line, FREE_TEXT)))
    return facts


# ------------------------------------------------------------------------------------ value helpers


def torch_from_wheel(wheel: str) -> Optional[str]:
    """'torch-2.3.0.dev20240101%2Brocm6.0-cp310-cp310-linux_x86_64.whl' -> '2.3.0.dev20240101+rocm6.0'."""
    name = wheel.replace("%2B", "+").replace("%2b", "+")
    m = re.match(r"torch-(\d{1,2}\.\d{1,3}\.\d{1,3}[\w.]{0,30}(?:\+[A-Za-z0-9.]{1,40})?)-", name)
    return m.group(1) if m else None


_APP_LLAMA = re.compile(r"Device (\d{1,3}): ([^,]{1,120}), (gfx[0-9a-f]{3,5})")
_APP_OLLAMA_GFX = re.compile(r"\bcompute=(gfx[0-9a-f]{3,5})")
_APP_OLLAMA_ID = re.compile(r"\b(?:name|id)=1002:([0-9a-fA-F]{4})\b")
_APP_OLLAMA_NAME = re.compile(r"\bdescription=\"([^\"]{1,120})\"")
_APP_TORCH = re.compile(r"name='([^']{1,120})'.{0,400}?gcnArchName='(gfx[0-9a-f]{3,5})")


def app_gpu(value: str) -> Optional[tuple[Optional[str], Optional[str], Optional[str], Optional[str]]]:
    """(index, name, gfx, pci id) of one GPU an application listed; None when the line is not one."""
    m = _APP_LLAMA.search(value)
    if m:
        return m.group(1), m.group(2).strip(), m.group(3), None
    m = _APP_TORCH.search(value)
    if m:
        return None, m.group(1), m.group(2), None
    g = _APP_OLLAMA_GFX.search(value)
    if g:
        pid = _APP_OLLAMA_ID.search(value)
        name = _APP_OLLAMA_NAME.search(value)
        return None, name.group(1) if name else None, g.group(1), ("0x" + pid.group(1).lower()) if pid else None
    return None


def python_minor(value: str) -> str:
    """'3.10' stays; a wheel's tag '310' becomes '3.10'."""
    return value if "." in value else f"{value[0]}.{value[1:]}"


def product_name(value: str) -> str:
    """'RX6600' -> 'RX 6600', '9060XT' -> 'RX 9060 XT', 'Radeon(TM) 780M' -> 'Radeon 780M' (the matrix's spelling)."""
    name = re.sub(r"\s+", " ", value.replace("(TM)", "")).strip()
    if re.fullmatch(r"[6-9][0-9]0[mM]", name):  # "780m": the Radeon iGPU of that name
        return f"Radeon {name.upper()}"
    if re.fullmatch(r"[5-7]\d{2}0[mM]", name):  # "6800m": the RX mobile part
        return f"RX {name.upper()}"
    if re.fullmatch(r"Vega (?:56|64)", name):
        return f"RX {name}"
    if name[:2] == "Mi" and name[2:3].isdigit():  # "Mi50": the Instinct MI50
        return "MI" + name[2:]
    if name[:2].lower() == "rx" and name[2:3] in " 0123456789vV":  # "rx 6600", "rx6800"
        name = "RX " + name[2:].strip().upper().replace("VEGA", "Vega")
    name = re.sub(r"(?<=\d) ?(xtx|xt|gre)$", lambda s: " " + s.group(1).upper(), name)  # "6700 xt"
    if re.fullmatch(r"AMD [5-9]\d{2}0M", name):  # "AMD 6700M": the RX mobile part
        return "RX " + name[4:]
    m = re.fullmatch(r"(?:(AMD )?(Radeon )?RX ?)?(\d{3,4})([A-Z]?) ?(XTX|XT|GRE|X)?", name)
    if m and (m.group(5) or name.upper().startswith(("RX", "AMD", "RADEON"))):
        return f"RX {m.group(3)}{m.group(4)}" + (f" {m.group(5)}" if m.group(5) else "")
    return name
