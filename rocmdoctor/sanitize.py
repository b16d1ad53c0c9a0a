"""The one boundary where text from another machine or person becomes data: never markup, never control.

Host-derived strings (a bundle's hostname, a kernel release, dkms output, a torch version, a fleet node's
stray stderr) are cleaned once when they enter the model (:func:`host_inert`, called by the bundle
loader) and again by every renderer (:func:`one_line`, :func:`rich_text`, :func:`md_text`), so that an
escape sequence cannot retitle the window or plant an OSC 8 link, a newline cannot forge a "Fix:" block,
and a ``[/]`` or ``[link=…]`` is printed as text instead of crashing or becoming a link.

Fix commands are built from argument lists (:func:`command`) and shell-quoted; a value that is not a
plausible kernel release / user / group / package name (:func:`plausible`) is refused in the command:
the caller puts a placeholder there and keeps the raw value as evidence only.
"""

from __future__ import annotations

import dataclasses
import re
import shlex
from typing import Any, Optional, Union

# C0 controls (tab and newline handled apart), DEL, C1 controls, and the Unicode bidi/format characters
# that reorder what a terminal shows (CVE-2021-42574 "Trojan Source"), plus line/paragraph separators.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]")
_BREAKS = re.compile(r"[\t\n]+")
_ANSI = re.compile(r"\x1b(?:\[[0-9;?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")

# What a value must look like to be put into a command a user copies into a root shell.
PLAUSIBLE = {
    "kernel": re.compile(r"[0-9][A-Za-z0-9._+~-]{0,127}"),  # 6.5.0-14-generic, 5.15.0-1040-azure
    "user": re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{0,31}\$?"),  # useradd's NAME_REGEX, plus upper case
    "group": re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{0,31}"),
    "package": re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._+-]{0,126}[A-Za-z0-9+])?"),  # deb/rpm/PEP 508 names
    "version": re.compile(r"[A-Za-z0-9][A-Za-z0-9._+~:-]{0,127}"),  # 6.3.6-1697589.22.04, 2.5.1+rocm6.2
    "env-name": re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}"),
    "pci-bus": re.compile(r"[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]"),
    "gfx": re.compile(r"gfx[0-9a-f]{3,5}(?:-generic)?"),
}


def strip_controls(text: str, multiline: bool = False) -> str:
    """``text`` without escape sequences and control characters; newline/tab kept only if ``multiline``."""
    if type(text) is str and text.isascii() and text.isprintable():
        return text  # nothing to strip (most strings of a host): the subs below would return it unchanged too
    if "\x1b" in text or "\x9b" in text:
        text = _ANSI.sub("", text)
    if not multiline:
        text = _BREAKS.sub(" ", text)
    return _CONTROL.sub("", text.replace("\r\n", "\n").replace("\r", "\n") if multiline else text)


def one_line(value: object) -> str:
    """Any value as one inert line of text (None -> '')."""
    return "" if value is None else strip_controls(str(value))


def plausible(kind: str, value: Optional[str]) -> bool:
    """True if ``value`` looks like a ``kind`` (see :data:`PLAUSIBLE`) and may enter a fix command."""
    return isinstance(value, str) and PLAUSIBLE[kind].fullmatch(value) is not None


class Raw(str):
    """A constant shell word rocmdoctor wrote itself (``$USER``, ``"$(uname -r)"``): never quoted."""


def command(*argv: Union[str, Raw]) -> str:
    """A copy-pasteable command line: every argument shell-quoted except rocmdoctor's own :class:`Raw` words."""
    return " ".join(a if isinstance(a, Raw) else shlex.quote(one_line(a)) for a in argv)


def word(kind: str, value: Optional[str], placeholder: str, prefix: str = "") -> Union[str, Raw]:
    """``prefix + value`` if ``value`` is a plausible ``kind``, else rocmdoctor's own ``placeholder`` (:class:`Raw`).

    The placeholder is what the user should type instead (``"$(uname -r)"`` on the host itself, ``$USER``);
    the raw value stays in the finding's evidence, where it is only text.
    """
    return prefix + value if value is not None and plausible(kind, value) else Raw(placeholder)


# ---------------------------------------------------------------------------------------- the model


def _inert(value: Any, multiline: bool, depth: int = 0) -> Any:
    if isinstance(value, str):
        return strip_controls(value, multiline)
    if depth > 16 or value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, (list, tuple)):
        return type(value)(_inert(v, multiline, depth + 1) for v in value)
    if isinstance(value, set):
        return {_inert(v, multiline, depth + 1) for v in value}
    if isinstance(value, dict):
        return {_inert(k, False, depth + 1): _inert(v, multiline, depth + 1) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            cur = getattr(value, f.name)
            new = _inert(cur, multiline, depth + 1)
            if new is not cur and new != cur:
                object.__setattr__(value, f.name, new)  # Source and Fact are frozen: they are ours to clean
            elif isinstance(cur, (list, dict, set)):
                object.__setattr__(value, f.name, new)
    return value


def host_inert(host: Any) -> Any:
    """Clean every string of a parsed :class:`~rocmdoctor.model.Host` in place (one line each) and return it.

    Every host fact is a single value or a single line of evidence (multi-line outputs are split into lines
    by the parsers), so no host string keeps a newline: a torch version cannot carry a forged "Fix:" line.
    """
    return _inert(host, multiline=False)


def json_inert(doc: Any) -> Any:
    """A JSON document with every string cleaned (JSON escapes C0 controls itself, but not C1 or bidi ones)."""
    return _inert(doc, multiline=True)


def finding_inert(finding: Any) -> Any:
    """Clean a finding in place: one-line title, id and commands; detail and evidence may keep newlines."""
    finding.id = one_line(finding.id)
    finding.title = one_line(finding.title)
    finding.detail = strip_controls(finding.detail or "", multiline=True)
    finding.evidence = [strip_controls(str(e), multiline=True) for e in finding.evidence]
    fix = finding.fix
    if fix is not None:
        fix.explanation = one_line(fix.explanation)
        fix.commands = [one_line(c) for c in fix.commands]
        fix.url = one_line(fix.url) if fix.url else fix.url
    return finding


# ---------------------------------------------------------------------------------------- renderers


def rich_text(value: object, multiline: bool = False) -> str:
    """Host text ready for a Rich markup string: controls stripped, ``[`` escaped (no style, no link)."""
    from rich.markup import escape

    return escape("" if value is None else strip_controls(str(value), multiline))


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>|#!&])")


def md_text(value: object) -> str:
    """One line of host text for Markdown prose or a table cell: inert (no link, no HTML, no cell break)."""
    return _MD_SPECIAL.sub(r"\\\1", one_line(value))


def md_fence(lines: list[str]) -> str:
    """A fence longer than any backtick run in ``lines``, so evidence cannot close its code block."""
    longest = max((len(m) for ln in lines for m in re.findall(r"`+", ln)), default=0)
    return "`" * max(3, longest + 1)
