"""The install plan: what ``install torch`` resolved, shared with ``container`` (which renders it).

INTERFACE — owned by the install helper; the container generator reads it. Extend, don't break.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

# What each machine field of a plan may look like (see :meth:`Plan.validate`).
FIELD_PATTERNS = {
    "url": r"(?:https?|file)://[A-Za-z0-9._~:/?#\[\]@!%+,;=*-]{1,2000}",  # no quote, space, $, `, \\, <, >
    "package name": r"[A-Za-z0-9](?:[A-Za-z0-9._-]{0,126}[A-Za-z0-9])?",
    # PEP 440 (epoch, release, pre/post/dev, local label) plus the ".*" wildcard of a requirement
    "version": r"(?:[0-9]+!)?[0-9]+(?:\.[0-9]+)*(?:[._-]?[A-Za-z]+[0-9]*)*(?:\+[A-Za-z0-9]+(?:[._-][A-Za-z0-9]+)*)?"
               r"(?:\.\*)?",
    "sha256": r"(?:sha256:)?[0-9a-fA-F]{64}",
    "python": r"3\.[0-9]{1,2}",
    "rocm": r"[0-9]{1,2}\.[0-9]{1,2}(?:\.[0-9]{1,3})?",
    "channel": r"[a-z][a-z0-9-]{0,31}",
    "environment variable name": r"[A-Za-z_][A-Za-z0-9_]{0,127}",
    "environment value": r"[A-Za-z0-9 ._:;,/=+@%-]{0,1024}",  # HSA_OVERRIDE_GFX_VERSION=10.3.0, "gfx90a;gfx942"
    "gfx target": r"gfx[0-9a-f]{3,5}(?:-generic)?",
}


@dataclass
class Rejected:
    candidate: str  # "torch 2.6.0 (rocm6.2.4)"
    reason: str


@dataclass
class Requirement:
    name: str  # "torch"
    version: str  # "2.5.1+rocm6.2"
    sha256: list[str] = field(default_factory=list)  # filled when a lock is written
    extras: tuple[str, ...] = ()  # TheRock: ("device-gfx1100",) selects the GPU code to install

    def pin(self) -> str:
        """``name==version``: what a constraints file may hold (pip forbids extras there)."""
        return f"{self.name}=={self.version}"

    def spec(self) -> str:
        """What to install: ``name[extra,...]==version``."""
        return f"{self.name}[{','.join(self.extras)}]=={self.version}" if self.extras else self.pin()


@dataclass
class Plan:
    index_url: str
    requirements: list[Requirement]
    python: str  # "3.11"
    rocm: str  # "6.2"
    channel: str = "pytorch"
    env: dict[str, str] = field(default_factory=dict)  # e.g. {"HSA_OVERRIDE_GFX_VERSION": "10.3.0"}
    reasons: list[str] = field(default_factory=list)
    rejected: list[Rejected] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    find_links: list[str] = field(default_factory=list)  # AMD's flat repo.radeon.com directories (`pip -f`)
    pre: bool = False  # nightly channel: pre-releases allowed
    gpus: list[str] = field(default_factory=list)  # gfx of the GPUs the plan was made for ("gfx90a")

    def validate(self) -> Plan:
        """Type- and pattern-check every field (a plan read from a file is hostile); ValueError names the field.

        Machine fields (names, versions, URLs, env, rocm, python, gpus) must match :data:`FIELD_PATTERNS`
        or the plan is refused; free-text fields (reasons, warnings, rejected) are made inert one-liners.
        Renderers still escape for their own format: this is the first of two walls, not the only one.
        """
        from rocmdoctor.sanitize import one_line

        def check(field_name: str, value: str, pattern: str, allow_empty: bool = False) -> None:
            if not isinstance(value, str) or (value == "" and not allow_empty):
                raise ValueError(f"{field_name!r} is missing or not a string")
            if value and not re.fullmatch(FIELD_PATTERNS[pattern], value):
                raise ValueError(f"{field_name!r} = {one_line(value)[:80]!r} is not a valid {pattern}")

        check("index_url", self.index_url, "url", allow_empty=True)
        for url in self.find_links:
            check("find_links", url, "url")
        for r in self.requirements:
            check("requirements", r.name, "package name")
            check(f"requirements ({r.name})", r.version, "version")
            for h in r.sha256:
                check(f"hashes ({r.name})", h, "sha256")
        check("python", self.python, "python", allow_empty=True)
        check("rocm", self.rocm, "rocm", allow_empty=True)
        check("channel", self.channel, "channel")
        for key, value in self.env.items():
            check("env", key, "environment variable name")
            check(f"env ({key})", value, "environment value", allow_empty=True)
        for gfx in self.gpus:
            check("gpus", gfx, "gfx target")
        self.reasons = [one_line(x) for x in self.reasons]
        self.warnings = [one_line(x) for x in self.warnings]
        self.rejected = [Rejected(one_line(r.candidate), one_line(r.reason)) for r in self.rejected]
        return self

    def constraints(self) -> str:
        """A pip/uv constraints file pinning every requirement, so no companion can drag in another torch."""
        return "".join(f"{r.pin()}\n" for r in self.requirements)

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": "rocmdoctor-plan/1",
            "index_url": self.index_url,
            "requirements": [r.spec() for r in self.requirements],
            "env": dict(self.env),
            "python": self.python,
            "rocm": self.rocm,
            "channel": self.channel,
            "reasons": list(self.reasons),
            "rejected": [{"candidate": r.candidate, "reason": r.reason} for r in self.rejected],
            "warnings": list(self.warnings),
            "find_links": list(self.find_links),
            "pre": self.pre,
            "gpus": list(self.gpus),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Plan:
        """Inverse of :meth:`to_dict` (for plans written with ``install torch --json``).

        Strict about types, because plans are hand-edited: a JSON number ``3.10`` would read as Python
        "3.1", and a string where a list belongs would be split into characters. ValueError names the field.
        """
        reqs = []
        for pin in _list(d, "requirements"):
            name, _, version = pin.partition("==")
            m = re.fullmatch(r"\s*([A-Za-z0-9._-]+)\s*(?:\[([A-Za-z0-9._,\s-]*)\])?\s*", name)
            if m is None:
                raise ValueError(f"requirement {pin!r} is not NAME[EXTRAS]==VERSION")
            extras = tuple(x.strip() for x in (m.group(2) or "").split(",") if x.strip())
            reqs.append(Requirement(m.group(1), version.strip(), extras=extras))
        python = _str(d, "python", "")
        if python and not re.fullmatch(r"3\.\d{1,2}", python):
            raise ValueError(f"'python' must be a string such as \"3.11\", not {python!r}")
        env = d.get("env", {})
        if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
            raise ValueError("'env' must be an object of strings")
        rejected = d.get("rejected", [])
        if not isinstance(rejected, list) or not all(isinstance(r, dict) for r in rejected):
            raise ValueError("'rejected' must be a list of objects")
        pre = d.get("pre", False)
        if not isinstance(pre, bool):
            raise ValueError(f"'pre' must be true or false, not {pre!r}")
        return cls(  # validated: every field of a plan read from a file is checked before any renderer sees it
            index_url=_str(d, "index_url", ""),
            requirements=reqs,
            python=python,
            rocm=_str(d, "rocm", ""),
            channel=_str(d, "channel", "pytorch"),
            env={str(k): v for k, v in env.items()},
            reasons=_list(d, "reasons"),
            rejected=[Rejected(str(r.get("candidate", "")), str(r.get("reason", ""))) for r in rejected],
            warnings=_list(d, "warnings"),
            find_links=_list(d, "find_links"),
            pre=pre,
            gpus=_list(d, "gpus"),
        ).validate()


def _str(d: dict[str, Any], key: str, default: str) -> str:
    value = d.get(key, default)
    if not isinstance(value, str):
        raise ValueError(f"{key!r} must be a string, not {type(value).__name__} {value!r}")
    return value


def _list(d: dict[str, Any], key: str) -> list[str]:
    value = d.get(key, [])
    if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
        raise ValueError(f"{key!r} must be a list of strings")
    return list(value)
