"""Records -> judged rows -> findings: each measured value against its product's peak, each failure against
the known errors, then one finding per check id with every device's numbers as evidence.

Pure: no processes, no I/O beyond the matrix and signature table it is handed or loads; ``fleet`` judges a
remote node's records with the same :func:`judge`, so a node's smoke findings equal a local run's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from rocmdoctor.matrix.peaks import device_peaks
from rocmdoctor.model import Finding, Fix, Host, Severity
from rocmdoctor.smoke.catalog import CHECKS, DEFAULT_THRESHOLDS, PEAKS, fix_for
from rocmdoctor.smoke.enumeration import enumeration_findings
from rocmdoctor.smoke.faults import process_findings
from rocmdoctor.smoke.model import CheckRow, ProcessRun, smoke_id, where
from rocmdoctor.smoke.report import SmokeReport
from rocmdoctor.smoke.signatures import check_fix, scan_signatures
from rocmdoctor.smoke.table import fmt

if TYPE_CHECKING:
    from rocmdoctor.matrix import Matrix

_SEV = {"ok": Severity.OK, "warn": Severity.WARN, "fail": Severity.FAIL, "skip": Severity.SKIP,
        "error": Severity.ERROR}


def judge(report: SmokeReport, host: Optional[Host], matrix: Optional[Matrix],
          thresholds: Optional[dict[str, float]] = None) -> list[Finding]:
    """Turn the processes' records into findings: process problems first, then one finding per check id."""
    thresholds = thresholds or thresholds_from(matrix)
    for run in [*report.devices, *report.collectives]:
        _rows(run, matrix, thresholds)
    findings: list[Finding] = []
    findings += process_findings(report, host, matrix)
    findings += enumeration_findings(report, host, thresholds)
    findings += _check_findings(report, host, matrix)
    if not any(r.completed for r in report.devices) and not any(
            f.severity in (Severity.FAIL, Severity.ERROR) for f in findings):
        # Never pretend: no program finished, so nothing was verified, whatever the reason.
        findings.append(Finding("smoke.crashed", Severity.FAIL, "No smoke program finished: nothing was verified",
                                evidence=[f"{r.label}: {r.status}, exit code {r.exit_code}" for r in report.devices],
                                fix=fix_for("smoke.crashed")))
    return findings


def thresholds_from(matrix: Optional[Matrix]) -> dict[str, float]:
    """The pass marks: ``matrices/smoke.toml`` over the built-in fallbacks (a run without a matrix, fleet)."""
    out = dict(DEFAULT_THRESHOLDS)
    if matrix is not None:
        for k, v in (matrix.smoke_thresholds or {}).items():
            if isinstance(v, (int, float)):
                out[k] = float(v)
    return out


def peaks_for(matrix: Optional[Matrix], name: Optional[str], arch: Optional[str],
              ) -> tuple[Optional[str], dict[str, float]]:
    """(product name, {peak field: whole product's peak}) for a torch device; (None, {}) when it is no matrix
    product (an NVIDIA GPU, a generic name) or there is no matrix."""
    found = device_peaks(matrix, name, arch) if matrix is not None else None
    return (found.product, dict(found.peaks)) if found is not None else (None, {})


def _rows(run: ProcessRun, matrix: Optional[Matrix], thresholds: dict[str, float]) -> None:
    """Judge each result record of ``run`` into a :class:`CheckRow` (in place: ``run.rows``)."""
    peaks = _device_share(run, matrix)
    run.rows = [_row(rec, peaks, thresholds) for rec in run.records
                if rec.get("type") == "result" and isinstance(rec.get("check"), str)]


def _device_share(run: ProcessRun, matrix: Optional[Matrix]) -> dict[str, float]:
    """This device's peaks: its product's, scaled to its share of the product's compute units (an MI250X is two
    GCDs to torch, an MI300X in CPX mode eight partitions). Sets ``run.product`` and ``run.peak_share``."""
    found = device_peaks(matrix, run.name, run.arch) if run.kind == "device" and matrix is not None else None
    run.product = found.product if found is not None else None
    if found is None:
        return {}
    peaks = dict(found.peaks)
    full = found.compute_units
    if full and run.compute_units and run.compute_units < full:
        run.peak_share = run.compute_units / full
        peaks = {k: v * run.peak_share for k, v in peaks.items()}
    return peaks


def _row(rec: dict[str, Any], peaks: dict[str, float], thresholds: dict[str, float]) -> CheckRow:
    """One result record judged: against the device's peak, its known error, the stability mark."""
    status = str(rec.get("status", "error"))
    value = rec.get("value")
    row = CheckRow(check=rec["check"], status=status, severity=_SEV.get(status, Severity.ERROR),
                   detail=str(rec.get("detail", ""))[:2000],
                   value=float(value) if isinstance(value, (int, float)) else None,
                   unit=rec.get("unit") if isinstance(rec.get("unit"), str) else None,
                   extra={k: v for k, v in rec.items()
                          if k not in ("type", "check", "status", "detail", "value", "unit")})
    if row.check in PEAKS and row.status == "ok" and row.value is not None:
        peak_field, key = PEAKS[row.check]
        row.threshold = thresholds.get(key)
        row.expected = peaks.get(peak_field)
        if row.expected:
            row.fraction = row.value / row.expected
            if row.threshold is not None and row.fraction < row.threshold:
                row.severity = Severity.WARN
        else:
            row.severity = Severity.INFO  # measured, but nothing to compare it with
    if row.severity in (Severity.FAIL, Severity.ERROR) and row.detail:
        # "no kernel image is available", "invalid device function": a failed check whose exception is a
        # known error is that error (wheel/override), not the hardware problem the check's own fix suspects
        hits = [h for h in scan_signatures(row.detail) if h.signature.severity == "fail"]
        if hits:
            row.cause = hits[0]
    if row.check == "stability" and row.status == "ok" and row.value is not None:
        row.threshold = thresholds.get("stability_min_ratio")
        if row.threshold is not None and row.value < row.threshold:
            row.severity = Severity.WARN
    return row


def _evidence(run: ProcessRun, row: CheckRow) -> str:
    """One evidence line: device, check and its numbers against the peak (or why there is none)."""
    head = run.label if run.kind != "device" or not run.name else f"{run.label} ({run.name}, {run.arch})"
    if row.check in PEAKS or row.check == "stability":
        if row.expected:
            tail = (f"{fmt(row.value)} {row.unit} of {fmt(row.expected)} peak ({row.fraction:.0%}; warn below "
                    f"{row.threshold:.0%})" if row.fraction is not None and row.threshold is not None
                    else f"{fmt(row.value)} {row.unit}")
            if run.product:
                tail += f"; peak of {run.product}"
            if run.peak_share:
                tail += f" scaled to this device's {run.compute_units} CUs ({run.peak_share:.0%})"
        elif row.check == "stability":
            tail = row.detail + (f" (p10/median {fmt(row.value)}; warn below {row.threshold})"
                                 if row.threshold is not None else "")
        else:
            tail = row.detail + ("; no peak known for this product" if row.status == "ok" else "")
        return f"{head} {row.check}: {tail}"
    return f"{head} {row.check}: {row.detail}"


def _check_findings(report: SmokeReport, host: Optional[Host], matrix: Optional[Matrix]) -> list[Finding]:
    """One finding per check id, worst severity across devices, every device's numbers in the evidence."""
    groups: dict[str, list[tuple[ProcessRun, CheckRow]]] = {}
    for run in [*report.devices, *report.collectives]:
        for row in run.rows:
            prefix = row.check.split(":", 1)[0]
            if prefix in CHECKS:
                groups.setdefault(prefix, []).append((run, row))
    out = []
    one_gpu = len([r for r in report.devices if r.completed]) == 1
    if report.options.level >= 2 and one_gpu and not any(c.kind == "p2p" for c in report.collectives):
        fid, what, _bad = CHECKS["p2p"]
        out.append(Finding(fid, Severity.SKIP, f"{what}: not run (one GPU)"))
    for prefix, (fid, what, bad) in CHECKS.items():
        items = groups.get(prefix)
        if items:
            out.append(_check_finding(fid, what, bad, items, host, matrix))
    return out


def _check_finding(fid: str, what: str, bad: str, items: list[tuple[ProcessRun, CheckRow]], host: Optional[Host],
                   matrix: Optional[Matrix]) -> Finding:
    """One check id's finding across devices: the worst severity, titled with where it happened."""
    sev = max((row.severity for _r, row in items), key=lambda s: s.rank)
    fix: Optional[Fix] = None
    detail = ""
    if sev in (Severity.WARN, Severity.FAIL, Severity.ERROR):
        title = f"{what}: {bad} on {where(_runs(items, sev))}"
        detail = next(row.detail for _r, row in items if row.severity == sev)
        fix = fix_for(fid)
        cause = next((row.cause for _r, row in items if row.severity == sev and row.cause is not None), None)
        if cause is not None:  # the known error explains it: check's fix for it, not the check's hardware advice
            title += f" ({cause.signature.title})"
            known = check_fix(cause, host, matrix) or Fix("", [])
            fix = Fix(f"See {smoke_id(cause.signature.finding)}: " + known.explanation, list(known.commands),
                      known.url)
    elif sev == Severity.SKIP:
        title, detail = f"{what}: not run", items[0][1].detail
    elif sev == Severity.INFO:
        title = f"{what}: measured (no peak known to compare with)"
    else:
        title = f"{what}: passed on {where(_runs(items, None))}"
    ordered = sorted(items, key=lambda it: -it[1].severity.rank)
    return Finding(fid, sev, title, detail=detail, evidence=[_evidence(r, row) for r, row in ordered][:24], fix=fix)


def _runs(items: list[tuple[ProcessRun, CheckRow]], sev: Optional[Severity]) -> list[ProcessRun]:
    """The runs (in first-seen order, once each) with a row of severity ``sev`` (any when None)."""
    out: list[ProcessRun] = []
    for run, row in items:
        if (sev is None or row.severity == sev) and run not in out:
            out.append(run)
    return out
