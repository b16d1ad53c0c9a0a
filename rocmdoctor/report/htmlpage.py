"""HTML reports: one jinja2 environment (autoescape on), shared style and macros, self-contained pages.

Every page is one file: inline CSS and SVG, no script, no font, no image, no network (a Content-Security-
Policy of ``default-src 'none'`` says so to the browser too), so it can be attached to a bug report, mailed
or archived. Filters are CSS (``:has()`` on ``<select>``), so they need no script and everything is listed
when a browser lacks them. Every string that came from a host is hostile: jinja2 escapes it, and
:func:`clean` first strips control and bidi-override characters (a host name with ``\\x1b[2J`` or U+202E
would otherwise reach the reader's screen). jinja2 is imported here only: never on the ``check`` path
unless ``--format html`` was asked for.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

from rocmdoctor import __version__
from rocmdoctor.paths import DATA_DIR

TEMPLATES = DATA_DIR / "templates"
# C0 (but tab and newline), DEL, C1, and the bidi embeddings/overrides/isolates that reorder text on screen
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")

# The severity's words and icons: colour is never the only signal.
SEVERITY_ORDER = ("error", "fail", "warn", "info", "skip", "ok")
ICONS = {"ok": "✓", "info": "ℹ", "skip": "–", "warn": "⚠", "fail": "✗", "error": "☠"}
LABELS = {"ok": "passed", "info": "info", "skip": "not judged", "warn": "warning", "fail": "failed",
          "error": "crashed"}


def clean(value: Any) -> Any:
    """A host-derived string without control characters; anything else unchanged (markup from macros too)."""
    if type(value) is str:  # not Markup (a str subclass): macro output is already escaped and clean
        return _CONTROL.sub("", value)
    return value


def _safe_url(url: Any) -> str:
    """Only http(s) URLs become links (``javascript:`` and friends stay text)."""
    text = clean(str(url or ""))
    return text if re.match(r"^https?://[^\s\"'<>]+$", text) else ""


@functools.lru_cache(maxsize=1)
def environment() -> Any:
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)), autoescape=True, finalize=clean,
        undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    env.globals.update(ICONS=ICONS, LABELS=LABELS, SEVERITY_ORDER=SEVERITY_ORDER, version=__version__)
    env.filters["clean"] = clean
    env.filters["safe_url"] = _safe_url
    return env


def render(template: str, **context: Any) -> str:
    return environment().get_template(template).render(**context)


def write_atomic(path: Path, text: str) -> None:
    """Write the page next to its final name, then rename: a reader never sees half a report
    (:mod:`rocmdoctor.atomic` is the one writer; this creates the parent directory first)."""
    from rocmdoctor import atomic

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic.write_text(path, text)


def cause_of(finding: Any) -> Any:
    """The root cause a finding is grouped under, when the judge named one (absent: None).

    Tolerant of its shape: a string id, a dict or an object with ``id``/``title``.
    """
    c = getattr(finding, "cause", None)
    if isinstance(c, dict):
        c = c.get("id") or c.get("title")
    elif c is not None and not isinstance(c, str):
        c = getattr(c, "id", None) or getattr(c, "title", None) or str(c)
    return c or None


def finding_view(finding: Any) -> dict[str, Any]:
    """A finding as the templates read it (the JSON shape, plus its cause)."""
    d = finding.to_dict()
    d["cause"] = cause_of(finding)
    return d
