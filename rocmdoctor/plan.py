"""The install plan: what ``install torch`` resolved, shared with ``container`` (which renders it).

INTERFACE — owned by the install helper; the container generator reads it. Extend, don't break.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any


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
        return cls(
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
        )


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
