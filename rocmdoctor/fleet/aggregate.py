"""Aggregate like clubak, judge like NHC: fingerprints, groups, drift, per-finding host lists, drain list.

Input is one :class:`HostAudit` per host (the transport status, the parsed :class:`Host` when a bundle
came back, and that host's findings from the same checks as ``rocmdoctor check``). Output is a
:class:`FleetReport`: plain data that the terminal, JSON, HTML and Prometheus writers all render.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Literal, Optional

from rocmdoctor.fleet.baseline import Baseline, compare
from rocmdoctor.fleet.baseline import facts as baseline_facts
from rocmdoctor.fleet.hosts import compress, natural_key
from rocmdoctor.fleet.status import HostStatus
from rocmdoctor.model import Finding, Host, Severity

FINGERPRINT_FIELDS = ("kernel", "driver", "rocm", "torch", "torch_hip", "gpus")
FIELD_TITLES = {
    "kernel": "kernel",
    "driver": "amdgpu driver",
    "rocm": "ROCm",
    "torch": "torch",
    "torch_hip": "torch's HIP",
    "gpus": "GPU set",
}

# transport status -> (finding id, title, one-line fix) — data, not an if-chain
TRANSPORT_FINDINGS: dict[HostStatus, tuple[str, str, str]] = {
    HostStatus.UNREACHABLE: ("fleet.unreachable", "Host unreachable over SSH", "check the host is up and sshd listens"),
    HostStatus.AUTH_FAILED: (
        "fleet.auth-failed",
        "SSH authentication failed",
        "install the audit key / known_hosts entry for this host (BatchMode never prompts)",
    ),
    HostStatus.TIMEOUT: (
        "fleet.timeout", "Host did not answer in time", "log in and look for a hung driver or full disk"),
    HostStatus.BAD_CAPTURE: (
        "fleet.bad-capture",
        "Host returned no usable capture bundle",
        "run `rocmdoctor capture` on the host by hand and read its stderr",
    ),
    HostStatus.INTERRUPTED: ("fleet.not-audited", "Audit interrupted before this host finished", "rerun the audit"),
}


ReferenceKind = Literal["majority", "baseline", "none"]  # what drift is measured against (JSON: reference.kind)


@dataclass
class HostAudit:
    """Everything known about one host after the audit."""

    name: str
    status: HostStatus  # the transport's outcome (or bad-capture when the bundle did not load)
    seconds: float = 0.0
    detail: str = ""
    host: Optional[Host] = None
    findings: list[Finding] = field(default_factory=list)
    bundle_path: Optional[str] = None
    fingerprint: Optional[dict[str, Optional[str]]] = None
    group: Optional[str] = None
    facts: Optional[dict[str, Any]] = None  # baseline.facts(host): what a baseline compares (kept, Host dropped)

    @property
    def worst(self) -> Severity:
        return max((f.severity for f in self.findings), key=lambda s: s.rank, default=Severity.OK)

    @property
    def up(self) -> bool:
        return self.status == HostStatus.OK


def fingerprint(host: Host) -> dict[str, Optional[str]]:
    """The configuration that must match across a fleet: kernel, driver, ROCm, torch (+HIP), GPU set."""
    gpus: Counter[str] = Counter()
    for g in host.gpus:
        gpus[g.gfx or g.name or g.pci_device_id or "unknown"] += 1
    gpu_text = " + ".join(f"{k} x{n}" for k, n in sorted(gpus.items())) if gpus else None
    torch = host.torch
    return {
        "kernel": host.kernel.release,
        "driver": host.amdgpu_version.value if host.amdgpu_version else None,
        "rocm": host.rocm_version.value if host.rocm_version else None,
        "torch": torch.version if torch else None,
        "torch_hip": torch.hip if torch else None,
        "gpus": gpu_text,
    }


def fingerprint_id(fp: dict[str, Optional[str]]) -> str:
    """A short stable id for a fingerprint (same config -> same id across runs)."""
    blob = json.dumps([fp.get(k) for k in FINGERPRINT_FIELDS]).encode()
    return hashlib.sha256(blob).hexdigest()[:8]


def _gpu_counts(text: Optional[str]) -> Counter[str]:
    out: Counter[str] = Counter()
    for part in (text or "").split(" + "):
        name, _, n = part.rpartition(" x")
        if name and n.isdigit():
            out[name] += int(n)
    return out


def drift_findings(fp: dict[str, Optional[str]], ref: dict[str, Optional[str]], against: str) -> list[Finding]:
    """One finding per field that differs from the reference (the majority or the baseline)."""
    out: list[Finding] = []
    for key in FINGERPRINT_FIELDS:
        mine, theirs = fp.get(key), ref.get(key)
        if mine == theirs or theirs is None:
            continue
        title = FIELD_TITLES[key]
        sev = Severity.WARN
        fid = f"fleet.drift-{key.replace('_', '-')}"
        detail = f"{title} {mine or 'not captured'} differs from {against} {theirs}"
        if key == "gpus":
            have, want = _gpu_counts(mine), _gpu_counts(theirs)
            missing = {k: want[k] - have.get(k, 0) for k in want if have.get(k, 0) < want[k]}
            if missing:
                sev = Severity.FAIL
                fid = "fleet.gpu-missing"
                gone = ", ".join(f"{n} x {k}" for k, n in sorted(missing.items()))
                detail = f"{gone} missing: sees {mine or 'no GPUs'}, {against} has {theirs}"
        out.append(Finding(id=fid, severity=sev, title=f"{title} differs from {against}", detail=detail,
                           evidence=[f"{key}: {mine!r} vs {theirs!r}"]))
    return out


def _specific(f: Finding) -> str:
    """The line that says what is wrong on *this* host: fleet findings put it in the detail (their title is
    generic), the checks put it in the title (their detail explains the cause)."""
    return (f.detail or f.title) if f.id.startswith("fleet.") else (f.title or f.detail)


def transport_finding(audit: HostAudit) -> Optional[Finding]:
    spec = TRANSPORT_FINDINGS.get(audit.status)
    if spec is None:
        return None
    fid, title, fix = spec
    from rocmdoctor.model import Fix

    sev = Severity.SKIP if audit.status == HostStatus.INTERRUPTED else Severity.FAIL
    return Finding(id=fid, severity=sev, title=title, detail=audit.detail or title,
                   evidence=[audit.detail] if audit.detail else [], fix=Fix(explanation=fix))


@dataclass
class Group:
    id: str
    fingerprint: dict[str, Optional[str]]
    hosts: list[str]
    reference: bool = False  # the majority (or the baseline's fingerprint)


@dataclass
class FleetFinding:
    id: str
    severity: Severity
    title: str
    hosts: list[str]
    details: dict[str, str]  # host -> detail (kept short)

    @property
    def hostset(self) -> str:
        return compress(self.hosts)


@dataclass
class FleetReport:
    hosts: list[HostAudit]
    groups: list[Group]
    findings: list[FleetFinding]
    drain: list[tuple[str, str, Severity]]  # host, one-line reason, worst severity
    reference: Optional[dict[str, Optional[str]]]
    reference_kind: ReferenceKind
    interrupted: bool = False
    created: str = ""
    seconds: float = 0.0
    expect: Optional[dict[str, Any]] = None  # the baseline file's expectations, when one was the reference

    @property
    def worst(self) -> Severity:
        return max((h.worst for h in self.hosts), key=lambda s: s.rank, default=Severity.OK)

    @property
    def exit_code(self) -> int:
        """0 nothing failed; 1 any host has a fail/error finding (drain list not empty)."""
        return 1 if self.worst.rank >= Severity.FAIL.rank else 0

    def summary(self) -> dict[str, Any]:
        up = sum(1 for h in self.hosts if h.up)
        return {
            "hosts": len(self.hosts),
            "up": up,
            "down": len(self.hosts) - up,
            "groups": len(self.groups),
            "drain": len(self.drain),
            "worst": self.worst.value,
            "exit": self.exit_code,
            "interrupted": self.interrupted,
            "seconds": round(self.seconds, 3),
        }


def aggregate(
    audits: list[HostAudit],
    baseline: Optional[dict[str, Optional[str]]] = None,
    interrupted: bool = False,
    expect: Optional[Baseline] = None,
) -> FleetReport:
    """Group by fingerprint, add drift findings vs the baseline or the majority, fold per-finding host lists.

    ``expect`` (a baseline file) replaces the majority: each host is compared with what it must have and
    every difference is a ``fail``; majority drift is then not reported (the baseline is the reference).
    """
    audits = sorted(audits, key=lambda a: natural_key(a.name))
    for a in audits:
        tf = transport_finding(a)
        if tf is not None and not any(f.id == tf.id for f in a.findings):
            a.findings.insert(0, tf)
        if a.host is not None and a.fingerprint is None:
            a.fingerprint = fingerprint(a.host)
        if a.host is not None and a.facts is None:
            a.facts = baseline_facts(a.host)
        if expect is not None and a.facts is not None:
            a.findings.extend(compare(a.facts, expect))
    groups = _groups(audits)
    ref, kind = _reference(groups, baseline, expect)
    if ref is not None:
        ref_id = fingerprint_id(ref)
        for g in groups:
            g.reference = g.id == ref_id
        against = "the baseline" if kind == "baseline" else "the fleet majority"
        for a in audits:
            if a.fingerprint is not None:
                a.findings.extend(drift_findings(a.fingerprint, ref, against))
    return FleetReport(hosts=audits, groups=groups, findings=_fold(audits), drain=_drain(audits), reference=ref,
                       reference_kind=kind, interrupted=interrupted,
                       expect=dict(expect.expect) if expect is not None else None)


def _groups(audits: list[HostAudit]) -> list[Group]:
    """One group per fingerprint (each host's ``group`` set), largest first."""
    by_fp: dict[str, list[HostAudit]] = {}
    for a in audits:
        if a.fingerprint is not None:
            gid = fingerprint_id(a.fingerprint)
            a.group = gid
            by_fp.setdefault(gid, []).append(a)
    groups = [Group(id=gid, fingerprint=members[0].fingerprint or {}, hosts=[m.name for m in members])
              for gid, members in by_fp.items()]
    groups.sort(key=lambda g: (-len(g.hosts), natural_key(g.hosts[0])))
    return groups


def _reference(groups: list[Group], baseline: Optional[dict[str, Optional[str]]],
               expect: Optional[Baseline]) -> tuple[Optional[dict[str, Optional[str]]], ReferenceKind]:
    """What drift is measured against: a baseline file (compared per host, no fingerprint), a known-good
    node's fingerprint, the strict majority, or nothing (a tie: no majority to call the others drifted)."""
    if expect is not None:
        return None, "baseline"
    if baseline is not None:
        return baseline, "baseline"
    if groups and (len(groups) == 1 or len(groups[0].hosts) > len(groups[1].hosts)):
        return groups[0].fingerprint, "majority"
    return None, "none"


def _fold(audits: list[HostAudit]) -> list[FleetFinding]:
    """Per-finding host lists (only what needs attention: info and worse, no ok/skip noise), worst first."""
    folded: dict[tuple[str, Severity], FleetFinding] = {}
    for a in audits:
        seen: set[tuple[str, Severity]] = set()
        for f in a.findings:
            if f.severity in (Severity.OK, Severity.SKIP) and not f.id.startswith("fleet."):
                continue
            key = (f.id, f.severity)
            if key in seen:
                continue
            seen.add(key)
            ff = folded.setdefault(key, FleetFinding(id=f.id, severity=f.severity, title=f.title, hosts=[],
                                                      details={}))
            ff.hosts.append(a.name)
            ff.details[a.name] = (_specific(f).splitlines() or [""])[0][:200]
    return sorted(folded.values(), key=lambda x: (-x.severity.rank, -len(x.hosts), x.id))


def _drain(audits: list[HostAudit]) -> list[tuple[str, str, Severity]]:
    """Each host with a fail/error finding, the worst one as its one-line reason."""
    drain: list[tuple[str, str, Severity]] = []
    for a in audits:
        bad = [f for f in a.findings if f.severity.rank >= Severity.FAIL.rank]
        if not bad:
            continue
        bad.sort(key=lambda f: -f.severity.rank)
        first = bad[0]
        reason = f"{first.id}: {((_specific(first) or '').strip().splitlines() or [''])[0][:120]}"
        if len(bad) > 1:
            reason += f" (+{len(bad) - 1} more)"
        drain.append((a.name, reason, first.severity))
    return drain
