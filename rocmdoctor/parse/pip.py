"""Installed Python packages: ``pip freeze``, ``pip list`` (columns or ``--format json``), ``pip show``."""

from __future__ import annotations

import json
import re
from typing import Optional

from rocmdoctor.model import Source
from rocmdoctor.parse.text import MAX_CHARS, lines, lines_holding, src, strip_prompt

_FREEZE = re.compile(r"^([A-Za-z0-9][A-Za-z0-9_.\-]*)(?:\[[^\]]*\])?\s*(?:===?|@)\s*(\S.*)$")
_COLUMNS = re.compile(r"^([A-Za-z0-9][A-Za-z0-9_.\-]*)\s+(\d[\w.+!\-]*)(?:\s+\S.*)?$")


def normalize(name: str) -> str:
    """PEP 503 name (lower case, runs of ``-_.`` become ``-``) by packaging's ``canonicalize_name``, the one
    implementation in the project. Imported on first use: ``check --from`` does not otherwise load packaging."""
    from packaging.utils import canonicalize_name

    return canonicalize_name(name)


def parse_pip_freeze(text: str) -> dict[str, str]:
    """``name==version`` lines; ``name @ url`` keeps the url's ``+local`` version if it has one."""
    out: dict[str, str] = {}
    for _, line in lines(text):
        body, _ = strip_prompt(line)
        m = _FREEZE.match(body.strip())
        if m is None:
            m2 = _COLUMNS.match(body.strip())
            if m2 and m2.group(1).lower() not in ("package",):
                out.setdefault(normalize(m2.group(1)), m2.group(2))
            continue
        value = m.group(2).strip()
        if "://" in value or value.startswith("file:"):
            wheel = re.search(r"/[A-Za-z0-9_.]+-(\d[\w.!]*(?:(?:\+|%2B)[\w.]+)?)-[\w.]+-[\w.]+-[\w.]+\.whl", value)
            if wheel is None:
                continue
            value = wheel.group(1).replace("%2B", "+")
        out.setdefault(normalize(m.group(1)), value.split()[0])
    return out


def parse_pip_list_json(text: str) -> dict[str, str]:
    """``pip list --format json``: ``[{"name": .., "version": ..}, ...]``."""
    if len(text) > MAX_CHARS:
        return {}
    s = text.strip()
    start = s.find("[")
    if start < 0:
        return {}
    try:
        data = json.loads(s[start:])
    except (ValueError, RecursionError):
        return {}
    out: dict[str, str] = {}
    if isinstance(data, list):
        for item in data:
            if isinstance(item, dict) and isinstance(item.get("name"), str) and isinstance(item.get("version"), str):
                out.setdefault(normalize(item["name"]), item["version"])
    return out


_SHOW_NEEDLES = ("Name:", "Version:", "Location:", "Requires:")


def _show_blocks(text: str) -> list[tuple[int, str, dict[str, str]]]:
    """``pip show``'s package blocks: (line number, the "Name:" line, its fields: Name, Version, Location, Requires)."""
    out: list[tuple[int, str, dict[str, str]]] = []
    for n, line in lines_holding(text, _SHOW_NEEDLES):  # each field's line holds "<key>:"
        body, _ = strip_prompt(line)
        key, sep, value = body.partition(":")
        if not sep or key not in ("Name", "Version", "Location", "Requires"):
            continue
        if key == "Name":
            out.append((n, body, {}))
        if out:
            out[-1][2].setdefault(key, value.strip())
    return out


def parse_pip_show(text: str, file: str) -> list[tuple[str, str, Optional[str], Source]]:
    """``pip show``: (name, version, location, source) per package block."""
    return [(normalize(f["Name"]), f["Version"], f.get("Location") or None, src(file, n, line))
            for n, line, f in _show_blocks(text) if f.get("Name") and f.get("Version")]


def pip_show_requires(text: str) -> dict[str, list[str]]:
    """``pip show``: each package's ``Requires:`` list (normalized names). PyPI's default Linux torch requires
    nvidia-cublas-cu12 and its siblings: a CUDA build, whatever its version says (easydiffusion/easydiffusion#1895)."""
    return {normalize(f["Name"]): [normalize(r.strip()) for r in f["Requires"].split(",") if r.strip()][:200]
            for _n, _line, f in _show_blocks(text) if f.get("Name") and "Requires" in f}
