"""A synthetic fleet audit whose per-node bundles are real fixtures, for the HTML report tests and its bench.

Every node is one of the bundled fixtures (real captures from public bug reports, or derived from them as
their NOTES.md say), judged by the same checks as ``rocmdoctor check``. What varies is made here and only
here: the host names (``node00001``...), a kernel upgraded on a few nodes, a GPU that fell off the bus on a
few (the same fixture with one GPU agent fewer), a few hosts that did not answer over SSH. Each distinct
variant is parsed and judged once; nodes of the same variant share its findings, as identical nodes would.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Callable, Optional

from rocmdoctor.bundle import load_host
from rocmdoctor.diagnose import judge_host
from rocmdoctor.fleet.aggregate import FleetReport, HostAudit, aggregate
from rocmdoctor.fleet.status import HostStatus
from rocmdoctor.model import Finding, Host
from rocmdoctor.paths import FIXTURES_DIR

HEALTHY = "derived-healthy-mi210-x4-rocm6.2.2"


def _newer_kernel(h: Host) -> None:
    h.kernel.release = "6.8.0-45-generic"  # an unattended-upgrade on a few nodes (the majority runs the fixture's)


def _gpu_lost(h: Host) -> None:
    h.gpus = h.gpus[:-1]


@dataclass(frozen=True)
class Variant:
    fixture: str
    every: int  # every Nth node (after the ones before it in VARIANTS claimed theirs)
    change: Optional[Callable[[Host], None]] = None
    status: HostStatus = HostStatus.OK
    detail: str = ""


# Order matters: the first variant whose `every` divides the node number wins; the rest are the majority.
VARIANTS = (
    Variant(HEALTHY, 997, status=HostStatus.UNREACHABLE,
            detail="ssh: connect to host {host} port 22: Connection refused"),
    Variant(HEALTHY, 331, _gpu_lost),
    Variant("derived-mi100-user-not-in-render", 211),
    Variant(HEALTHY, 97, _newer_kernel),
    Variant("mi210-x4-vllm-hip-invalid-argument", 53),
)


def _judged(v: Variant, cache: dict) -> tuple[Host, list[Finding]]:
    key = (v.fixture, v.change)
    if key not in cache:
        host = load_host(FIXTURES_DIR / v.fixture)
        if v.change is not None:
            host = copy.deepcopy(host)
            v.change(host)
        cache[key] = (host, judge_host(host))
    return cache[key]


def synthetic_audits(n: int, prefix: str = "node") -> list[HostAudit]:
    width = max(3, len(str(n)))
    cache: dict = {}
    out = []
    for i in range(1, n + 1):
        name = f"{prefix}{i:0{width}d}"
        v = next((v for v in VARIANTS if i % v.every == 0), Variant(HEALTHY, 1))
        if v.status != HostStatus.OK:
            out.append(HostAudit(name=name, status=v.status, seconds=10.0, detail=v.detail.format(host=name)))
            continue
        host, findings = _judged(v, cache)
        out.append(HostAudit(name=name, status=HostStatus.OK, seconds=1.5 + (i % 7) / 10, host=host,
                             findings=list(findings), bundle_path=f"bundles/{name}.tar.gz"))
    return out


def synthetic_report(n: int, prefix: str = "node") -> FleetReport:
    report = aggregate(synthetic_audits(n, prefix))
    report.created = "2026-11-30T12:00:00Z"
    return report
