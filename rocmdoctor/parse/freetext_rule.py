"""What a free-text rule is (:class:`Rule`) and the regex pieces the rule tables share.

The tables are data: ``freetext_rules_torch`` (PyTorch and pip) and ``freetext_rules`` (everything else, and
:data:`~rocmdoctor.parse.freetext_rules.RULES`, the one sequence the extractor runs). Split so that each table
module stays small.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

FREE_TEXT = "free-text"  # Source.kind of every fact found here
MAX_PER_RULE = 20  # matches kept per rule: a log repeating a line a thousand times needs only a few

VER = r"\d{1,3}\.\d{1,3}(?:\.\d{1,5})?"
# NVIDIA's CUDA libraries on PyPI ("nvidia-cublas-cu12"): PyPI's default Linux torch requires them
NVIDIA_CUDA_PACKAGE = r"nvidia-[a-z0-9-]{2,40}-cu1[1-3]"
TORCH_VER = r"\d{1,2}\.\d{1,3}\.\d{1,3}(?:(?:a|b|rc|\.dev|\.post)\d{0,10})?(?:\+[A-Za-z0-9.]{1,40})?"

_CHAR_CLASS = re.compile(r"\[(?:\\.|[^\]\\])*\]")  # a regex's bracket expressions ("[^\n]" spans no line)


@dataclass(frozen=True)
class Rule:
    """A fact's regex and the literal strings every match contains (``needles``): the text is searched for a
    needle first (``str.find``, C speed) and the regex runs only on the one or two lines around each hit.
    The regex is compiled on first use: a paste holds the needles of a few rules, not of all seventy."""

    kind: str
    regex: str
    needles: tuple[str, ...]

    @functools.cached_property
    def pattern(self) -> re.Pattern[str]:
        return re.compile(self.regex, re.MULTILINE)

    @functools.cached_property
    def lines_after(self) -> int:
        """Lines after the needle's line the regex may need: two for a rule written across lines (an issue
        template's heading, a blank line, its answer), one where some part of it can take a newline (a REPL's
        answer under its prompt, after ``\\s*``), none where nothing in it can: then every match lies within
        the line of the needle it holds (most rules; half the text for the regex to read on a long paste)."""
        if "\\n" in _CHAR_CLASS.sub("", self.regex):
            return 2
        return 1 if takes_newline(self.regex) else 0


_NEWLINE = ord("\n")
# what a class's category item says of a newline (an unknown category: it may take one)
_CATEGORY_TAKES_NEWLINE = {"CATEGORY_SPACE": True, "CATEGORY_NOT_SPACE": False, "CATEGORY_DIGIT": False,
                           "CATEGORY_NOT_DIGIT": True, "CATEGORY_WORD": False, "CATEGORY_NOT_WORD": True,
                           "CATEGORY_LINEBREAK": True, "CATEGORY_NOT_LINEBREAK": False}


def takes_newline(regex: str) -> bool:
    """Whether some part of ``regex`` (compiled MULTILINE) can match or look at a newline: False only when
    every character it consumes or asserts on is known not to be one (lookarounds count as looking)."""
    try:
        from re import _parser as sre_parse  # type: ignore[attr-defined]  # Python >= 3.11

        parsed = sre_parse.parse(regex, re.MULTILINE)
    except Exception:  # pragma: no cover - any parser quirk: assume it can
        return True
    return bool(parsed.state.flags & re.DOTALL) or _seq_takes_newline(list(parsed))


def _seq_takes_newline(items: list[tuple[object, object]]) -> bool:
    return any(_item_takes_newline(str(op), av) for op, av in items)


def _item_takes_newline(op: str, av: object) -> bool:
    if op == "LITERAL":
        return av == _NEWLINE
    if op == "NOT_LITERAL":
        return av != _NEWLINE
    if op in ("AT", "GROUPREF"):
        return op == "GROUPREF"  # ^, $, \\b assert on a position; a back-reference repeats what a group took
    if op == "ANY":
        return False  # '.' takes no newline without DOTALL (set for the whole regex or a group: see above)
    if op == "IN":
        items = list(av)  # type: ignore[call-overload]
        negate = bool(items) and str(items[0][0]) == "NEGATE"
        holds = any(_class_item_holds_newline(str(k), v) for k, v in items[negate:])
        return holds != negate
    if op == "SUBPATTERN":  # (group, flags added, flags removed, items): a scoped (?s:...) may take one
        return bool(av[1] & re.DOTALL) or _seq_takes_newline(list(av[-1]))  # type: ignore[index]
    if op == "BRANCH":
        return any(_seq_takes_newline(list(b)) for b in av[1])  # type: ignore[index]
    if op in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
        return _seq_takes_newline(list(av[2]))  # type: ignore[index]
    if op in ("ASSERT", "ASSERT_NOT"):
        return _seq_takes_newline(list(av[1]))  # type: ignore[index]
    if op == "ATOMIC_GROUP":
        return _seq_takes_newline(list(av))  # type: ignore[call-overload]
    return True  # anything else: assume it can


def _class_item_holds_newline(kind: str, value: object) -> bool:
    if kind == "LITERAL":
        return value == _NEWLINE
    if kind == "RANGE":
        bounds: tuple[int, int] = value  # type: ignore[assignment]
        return bounds[0] <= _NEWLINE <= bounds[1]
    if kind == "CATEGORY":
        return _CATEGORY_TAKES_NEWLINE.get(str(value), True)
    return True


def rule(kind: str, needles: tuple[str, ...], *pattern: str) -> Rule:
    return Rule(kind, "".join(pattern), needles)
