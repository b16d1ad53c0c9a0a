"""The check registry: every check is a pure function ``(Host, Matrix) -> list[Finding]``.

Checks register themselves with :func:`check`, declaring the finding ids they may emit. Those ids are
public API (users search, ``--select`` and ``--skip`` them), so a check may only emit ids it declared;
:func:`run_checks` enforces that and turns a crashing check into an ``error`` finding instead of
letting it stop the others (flutter doctor's "crash" result).
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Optional

from rocmdoctor.model import Finding, Severity

if TYPE_CHECKING:
    from rocmdoctor.matrix import Matrix
    from rocmdoctor.model import Host

CheckFunc = Callable[["Host", "Matrix"], list[Finding]]

AREA_TITLES = {
    "os": "Operating system",
    "kernel": "Kernel",
    "driver": "Kernel driver (amdgpu)",
    "secureboot": "Secure Boot",
    "gpu": "GPUs",
    "health": "GPU health (ECC, retired pages, links, resets)",
    "rocm": "ROCm user space",
    "perm": "Permissions",
    "python": "Python",
    "torch": "PyTorch",
    "env": "Environment",
    "container": "Containers",
    "host": "Host resources (live)",
    "log": "Known errors in logs",
    "smoke": "Live GPU smoke tests",
}
AREA_ORDER = list(AREA_TITLES)


@dataclass(frozen=True)
class CheckSpec:
    ids: tuple[str, ...]
    title: str
    func: CheckFunc

    @property
    def area(self) -> str:
        return self.ids[0].split(".", 1)[0]


_CHECKS: list[CheckSpec] = []


def check(*ids: str, title: str) -> Callable[[CheckFunc], CheckFunc]:
    """Register ``func`` as the check that may emit ``ids`` (first id names its area)."""

    def deco(func: CheckFunc) -> CheckFunc:
        _CHECKS.append(CheckSpec(ids=tuple(ids), title=title, func=func))
        return func

    return deco


def all_checks() -> list[CheckSpec]:
    """Every registered check, in registration order (the package ``__init__`` imported every check module
    before this module could be reached)."""
    return list(_CHECKS)


def all_ids() -> list[str]:
    seen: list[str] = []
    for spec in all_checks():
        for i in spec.ids:
            if i not in seen:
                seen.append(i)
    return seen


def run_checks(
    host: Host, matrix: Matrix, select: Optional[list[str]] = None, skip: Optional[list[str]] = None
) -> list[Finding]:
    """Run the selected checks; a crash becomes an ``error`` finding, never an exception."""
    wanted = set(select or [])
    skipped = set(skip or [])
    out: list[Finding] = []
    for spec in all_checks():
        ids = set(spec.ids)
        if wanted and not ids & wanted:
            continue
        if ids <= skipped:
            continue
        try:
            found = spec.func(host, matrix)
        except Exception as exc:  # a broken check must not hide the others
            tb = traceback.format_exc(limit=4).strip().splitlines()
            out.append(
                Finding(
                    id=spec.ids[0],
                    severity=Severity.ERROR,
                    title=f"{spec.title}: the check itself crashed ({type(exc).__name__}: {exc})",
                    detail="This is a bug in rocmdoctor, not in your setup. Please report it with --format markdown.",
                    evidence=tb[-4:],
                )
            )
            continue
        for f in found:
            if f.id not in ids:
                f = Finding(
                    id=spec.ids[0], severity=Severity.ERROR,
                    title=f"{spec.title}: emitted undeclared id {f.id!r}",
                    detail="rocmdoctor bug: every finding id must be declared by its check.",
                )
            if wanted and f.id not in wanted:
                continue
            if f.id in skipped:
                continue
            out.append(f)
    return out
