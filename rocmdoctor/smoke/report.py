"""One smoke run's outcome (:class:`SmokeReport`), as JSON (schema ``rocmdoctor-smoke/1``), as table rows
and as the data the HTML page draws.

The HTML renderer sits below smoke and must not import it: the report hands it plain data through
:meth:`SmokeReport.html_context`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from rocmdoctor.model import Finding, Severity
from rocmdoctor.smoke.model import ProcessRun
from rocmdoctor.smoke.options import SmokeOptions
from rocmdoctor.smoke.table import measured_rows, result_rows

SCHEMA = "rocmdoctor-smoke/1"


@dataclass
class SmokeReport:
    """One run: the per-device and collective processes, torch's enumeration, the findings."""

    options: SmokeOptions
    devices: list[ProcessRun] = field(default_factory=list)
    collectives: list[ProcessRun] = field(default_factory=list)
    enumeration: Optional[dict[str, Any]] = None
    findings: list[Finding] = field(default_factory=list)
    elapsed_s: float = 0.0

    @property
    def torch(self) -> Optional[dict[str, Any]]:
        e = self.enumeration
        if not e:
            return None
        return {"version": e.get("torch"), "hip": e.get("hip"), "cuda": e.get("cuda"),
                "arch_list": e.get("arch_list", []), "available": e.get("available"), "count": e.get("count")}

    def to_dict(self) -> dict[str, Any]:
        from rocmdoctor import __version__

        counts = {s.value: 0 for s in Severity}
        for f in self.findings:
            counts[f.severity.value] += 1
        return {"schema": SCHEMA, "tool": f"rocmdoctor {__version__}", "level": self.options.level,
                "mode": "cpu" if self.options.cpu else "gpu", "python": self.options.python,
                "torch": self.torch, "devices": [d.to_dict() for d in self.devices],
                "collectives": [c.to_dict() for c in self.collectives],
                "findings": [f.to_dict() for f in self.findings], "summary": counts,
                "elapsed_s": round(self.elapsed_s, 3)}

    def html_context(self) -> dict[str, Any]:
        """What the HTML page's smoke section draws, as plain data (the renderer does not import smoke)."""
        t = self.torch or {}
        return {"level": self.options.level, "python": self.options.python, "torch": t.get("version"),
                "hip": t.get("hip"), "cuda": t.get("cuda"), "cpu": self.options.cpu,
                "elapsed": f"{self.elapsed_s:.1f}", "gpus": measured_vs_peak(self), "rows": table_rows(self)}


def table_rows(report: SmokeReport) -> list[dict[str, str]]:
    """Per-GPU result rows for the terminal table: value, expected, % of peak, status."""
    return result_rows([*report.devices, *report.collectives])


def measured_vs_peak(report: SmokeReport) -> list[dict[str, Any]]:
    """Per GPU, each throughput measured, with the product's peak and the warn threshold, ready to draw."""
    return measured_rows(report.devices)
