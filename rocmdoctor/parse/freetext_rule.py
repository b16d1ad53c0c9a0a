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
    span: int = 0  # lines after the needle's line a rule written for continued lines reads (a `docker run \`)

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
            return max(2, self.span)
        return 1 if takes_newline(self.regex) else 0


# What can take a newline, read from the regex's text (cheap: a rule's span is needed on every paste): the
# escapes \s \W \D \Z (and \x.. \u.... \N{..} and back-references, which may), a DOTALL flag, a negated class
# without \n, a class holding any of those. Conservative: tests/test_freetext.py checks it never says no where an
# exact reading of the parsed regex says yes, for every shipped rule.
_TAKES_NEWLINE = re.compile(r"\\(?:[sWDZ]|x|u|U|N|[1-9])|\(\?P=|\(\?[a-zA-Z]*s")
_CLASS_TAKES_NEWLINE = re.compile(r"\\(?:[sWDn]|x|u|U|N|t-)")


def takes_newline(regex: str) -> bool:
    """Whether some part of ``regex`` may match or look at a newline (False only when none can)."""
    if _TAKES_NEWLINE.search(_CHAR_CLASS.sub("", regex)):
        return True
    for cls in _CHAR_CLASS.findall(regex):
        inner = cls[1:-1]
        if inner.startswith("^") and "\\n" not in inner:
            return True
        if not inner.startswith("^") and _CLASS_TAKES_NEWLINE.search(inner):
            return True
    return False


def rule(kind: str, needles: tuple[str, ...], *pattern: str, span: int = 0) -> Rule:
    return Rule(kind, "".join(pattern), needles, span)
