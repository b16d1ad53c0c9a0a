"""Smoke results as rows: the terminal table (value, expected, % of peak, status) and the HTML page's bars.

Both views read the judged rows only; what is measured against which peak is :data:`catalog.PEAKS`.
"""

from __future__ import annotations

from typing import Any, Optional

from rocmdoctor.model import Severity
from rocmdoctor.smoke.catalog import PEAKS
from rocmdoctor.smoke.model import ProcessRun

EXPECT_BY_UNIT = {"x tolerance": "≤ 1", "bytes wrong": "0", "words wrong": "0"}
# A program that ended with one of these never had a device to test (no torch, no GPU, no such index).
NO_DEVICE_STATUSES = ("no-torch", "torch-import-failed", "no-gpu", "no-such-device", "spawn-failed")
MEASURED_TITLES = {"bandwidth": "memory bandwidth", "tflops:fp16": "GEMM fp16", "tflops:bf16": "GEMM bf16"}


def fmt(v: Optional[float]) -> str:
    """A measured number with 4 significant digits, '?' when missing."""
    if v is None:
        return "?"
    return f"{v:.4g}"


def result_rows(runs: list[ProcessRun]) -> list[dict[str, str]]:
    """Per-GPU result rows for the terminal table (and the HTML page): value, expected, % of peak, status."""
    rows = []
    for run in runs:
        if run.status in NO_DEVICE_STATUSES and not run.rows:
            continue  # the process never reached a device: the finding says why, a "GPU 0" row would invent one
        who = run.label if not run.name else f"{run.label} {run.name}"
        if run.status in ("timeout", "crashed", *NO_DEVICE_STATUSES):
            rows.append({"device": who, "check": "(process)", "value": run.status, "expected": "", "peak": "",
                         "status": "fail"})
        for row in run.rows:
            if row.check in PEAKS or row.check in ("stability", "p2p", "allreduce") or row.severity.rank >= 3:
                value = f"{fmt(row.value)} {row.unit or ''}".strip() if row.value is not None else row.status
                rows.append({
                    "device": who, "check": row.check, "value": value,
                    "expected": f"{fmt(row.expected)} {row.unit or ''}".strip() if row.expected
                    else EXPECT_BY_UNIT.get(row.unit or "", ""),
                    "peak": f"{row.fraction:.0%}" if row.fraction is not None else "",
                    "status": row.severity.value,
                })
        shown = ("stability", "p2p", "allreduce")  # already a row of their own above
        passed = [r for r in run.rows if r.check not in PEAKS and r.check not in shown and r.severity == Severity.OK]
        if passed:
            rows.append({"device": who, "check": "correctness", "value": f"{len(passed)} passed",
                         "expected": "", "peak": "", "status": "ok"})
    return rows


def measured_rows(devices: list[ProcessRun]) -> list[dict[str, Any]]:
    """Per GPU, each throughput measured, with the product's peak and the warn threshold, ready to draw.

    Bars share one scale per row: the longer of measured and peak is the full width, so a result above the
    datasheet peak (a wrong peak, or a partition) is visible as such.
    """
    gpus = []
    for run in devices:
        rows = []
        for r in run.rows:
            if r.check not in PEAKS or r.value is None:
                continue
            scale = max(r.value, r.expected or 0.0) or 1.0
            rows.append({
                "check": r.check, "title": MEASURED_TITLES.get(r.check, r.check), "unit": r.unit or "",
                "value": fmt(r.value), "expected": fmt(r.expected) if r.expected else None,
                "fraction": f"{r.fraction:.0%}" if r.fraction is not None else None,
                "threshold": f"{r.threshold:.0%}" if r.threshold is not None else None,
                "severity": r.severity.value,
                "w_value": 100.0 * r.value / scale,
                "x_peak": 100.0 * r.expected / scale if r.expected else None,
                "x_threshold": 100.0 * r.expected * r.threshold / scale if r.expected and r.threshold else None,
            })
        gpus.append({"label": run.label, "name": run.name, "arch": run.arch, "product": run.product,
                     "status": run.status, "rows": rows,
                     "share": f"{run.peak_share:.0%}" if run.peak_share else None})
    return gpus
