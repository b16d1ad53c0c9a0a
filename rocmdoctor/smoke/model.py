"""What one smoke run is made of: the processes it started and the judged rows each reported.

Plain dataclasses and the small naming helpers every other smoke module shares; no I/O here, so the runner,
the judge, the table and ``fleet`` (which rebuilds runs from a remote host's lines) agree on one shape.
"""

from __future__ import annotations

import signal
from dataclasses import dataclass, field
from typing import Any, Optional

from rocmdoctor.model import Severity
from rocmdoctor.smoke.signatures import SignatureHit
from rocmdoctor.words import plural


def smoke_id(log_finding: str) -> str:
    """The smoke finding id for a signature's log finding: ``log.no-binary-for-gpu`` -> ``smoke.no-binary-for-gpu``."""
    return "smoke." + log_finding.split(".", 1)[-1]


@dataclass
class CheckRow:
    """One measured or verified thing on one device, judged."""

    check: str
    status: str  # as the program said: ok | warn | fail | skip | error
    severity: Severity
    detail: str = ""
    value: Optional[float] = None
    unit: Optional[str] = None
    expected: Optional[float] = None  # the product's peak, where the matrix has it
    fraction: Optional[float] = None  # value / expected
    threshold: Optional[float] = None  # warn below this fraction
    extra: dict[str, Any] = field(default_factory=dict)
    cause: Optional[SignatureHit] = None  # a known error found in the failure's text (log signature table)

    def to_dict(self) -> dict[str, Any]:
        return {"check": self.check, "status": self.status, "severity": self.severity.value,
                "value": self.value, "unit": self.unit, "expected": self.expected,
                "fraction_of_peak": self.fraction, "threshold": self.threshold, "detail": self.detail,
                **({"cause": smoke_id(self.cause.signature.finding)} if self.cause is not None else {}),
                **({"extra": self.extra} if self.extra else {})}


@dataclass
class ProcessRun:
    """One subprocess (a GPU's checks, the p2p pass, or one all-reduce rank) and what it reported."""

    key: str  # "cuda:0", "cpu", "p2p", "allreduce:1"
    kind: str  # device | p2p | allreduce
    argv: list[str]
    index: Optional[int] = None
    name: Optional[str] = None
    arch: Optional[str] = None
    memory_bytes: Optional[int] = None
    compute_units: Optional[int] = None
    product: Optional[str] = None
    peak_share: Optional[float] = None  # this device's share of the product (one GCD / partition)
    pid: Optional[int] = None
    exit_code: Optional[int] = None
    timed_out: bool = False
    elapsed_s: float = 0.0
    records: list[dict[str, Any]] = field(default_factory=list)
    rows: list[CheckRow] = field(default_factory=list)
    fatal: Optional[dict[str, Any]] = None
    stderr: str = ""
    children: list[int] = field(default_factory=list)  # pids a fault injection reported

    @property
    def label(self) -> str:
        if self.kind == "p2p":
            return "GPU pairs"
        if self.kind == "allreduce":
            return f"rank {self.index}"
        if self.key == "cpu":
            return "cpu"
        return f"GPU {self.index}"

    @property
    def signal_name(self) -> Optional[str]:
        if self.exit_code is not None and self.exit_code < 0:
            try:
                return signal.Signals(-self.exit_code).name
            except ValueError:
                return f"signal {-self.exit_code}"
        return None

    @property
    def completed(self) -> bool:
        return not self.timed_out and self.exit_code == 0 and self.fatal is None and any(
            r.get("type") == "done" for r in self.records)

    @property
    def status(self) -> str:
        if self.timed_out:
            return "timeout"
        if self.fatal is not None:
            return str(self.fatal.get("reason", "fatal"))
        if not self.completed:
            return "crashed"
        return "fail" if any(r.severity in (Severity.FAIL, Severity.ERROR) for r in self.rows) else (
            "warn" if any(r.severity == Severity.WARN for r in self.rows) else "ok")

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "kind": self.kind, "index": self.index, "name": self.name, "arch": self.arch,
                "memory_bytes": self.memory_bytes, "compute_units": self.compute_units, "product": self.product,
                "peak_share": self.peak_share, "status": self.status,
                "pid": self.pid, "exit_code": self.exit_code, "signal": self.signal_name,
                "timed_out": self.timed_out, "elapsed_s": round(self.elapsed_s, 3),
                "checks": [r.to_dict() for r in self.rows], "fatal": self.fatal,
                "stderr_tail": self.stderr[-2000:] or None}


def where(runs: list[ProcessRun]) -> str:
    """'GPU 0, GPU 2', '6 GPUs' or '2 ranks': where a finding's problem was seen, short enough for a title."""
    if runs and all(r.kind == "allreduce" for r in runs):
        return plural(len(runs), "rank")
    labels = [r.label for r in runs]
    return ", ".join(labels) if len(labels) <= 4 else f"{len(labels)} GPUs"
