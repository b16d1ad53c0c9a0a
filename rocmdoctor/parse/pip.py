"""Installed Python packages: ``pip freeze``, ``pip list`` (columns or ``--format json``), ``pip show``."""

from __future__ import annotations

import json
import re
from typing import Optional

from rocmdoctor.model import Source
from rocmdoctor.parse.text import MAX_CHARS, lines, src, strip_prompt

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


def parse_pip_show(text: str, file: str) -> list[tuple[str, str, Optional[str], Source]]:
    """``pip show``: (name, version, location, source) per package block."""
    out = []
    name: Optional[tuple[str, int, str]] = None
    version: Optional[str] = None
    location: Optional[str] = None

    def flush() -> None:
        if name and version:
            out.append((normalize(name[0]), version, location, src(file, name[1], name[2])))

    for n, line in lines(text):
        body, _ = strip_prompt(line)
        if body.startswith("Name:"):
            flush()
            name, version, location = (body[5:].strip(), n, body), None, None
        elif body.startswith("Version:") and name:
            version = body[8:].strip() or None
        elif body.startswith("Location:") and name:
            location = body[9:].strip() or None
    flush()
    return out


def pip_show_requires(text: str) -> dict[str, list[str]]:
    """``pip show``: each package's ``Requires:`` list (normalized names). PyPI's default Linux torch requires
    nvidia-cublas-cu12 and its siblings: a CUDA build, whatever its version says (easydiffusion/easydiffusion#1895)."""
    out: dict[str, list[str]] = {}
    name: Optional[str] = None
    for _n, line in lines(text):
        body, _ = strip_prompt(line)
        if body.startswith("Name:"):
            name = normalize(body[5:].strip())
        elif body.startswith("Requires:") and name:
            out[name] = [normalize(r.strip()) for r in body[9:].split(",") if r.strip()][:200]
    return out
