"""The install plan: what ``install torch`` resolved, shared with ``container`` (which renders it).

INTERFACE — owned by the install helper; the container generator reads it. Extend, don't break.
"""

from __future__ import annotations

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

    def pin(self) -> str:
        return f"{self.name}=={self.version}"


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
            "requirements": [r.pin() for r in self.requirements],
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
        """Inverse of :meth:`to_dict` (for plans written with ``install torch --json``)."""
        reqs = []
        for pin in d.get("requirements", []):
            name, _, version = str(pin).partition("==")
            reqs.append(Requirement(name.strip(), version.strip()))
        return cls(
            index_url=str(d.get("index_url", "")),
            requirements=reqs,
            python=str(d.get("python", "")),
            rocm=str(d.get("rocm", "")),
            channel=str(d.get("channel", "pytorch")),
            env={str(k): str(v) for k, v in dict(d.get("env", {})).items()},
            reasons=[str(x) for x in d.get("reasons", [])],
            rejected=[
                Rejected(str(r.get("candidate", "")), str(r.get("reason", ""))) for r in d.get("rejected", [])
            ],
            warnings=[str(x) for x in d.get("warnings", [])],
            find_links=[str(x) for x in d.get("find_links", [])],
            pre=bool(d.get("pre", False)),
            gpus=[str(x) for x in d.get("gpus", [])],
        )
