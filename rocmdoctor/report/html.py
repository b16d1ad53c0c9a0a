"""The single-host HTML report (``check --format html``, ``smoke --format html``): one file to attach to a bug.

The same groups as the terminal (one section per area, its worst problem first, the fix commands under each
problem), the host's facts on top, root causes when the judge grouped findings under one (a ``cause`` on a
finding; absent, the section is not drawn), and, when smoke tests ran, each GPU's measured bandwidth and
TFLOPS drawn against the product's peak and the warn threshold. jinja2 is imported only when this runs.
"""

from __future__ import annotations

from typing import Any, Optional

from rocmdoctor import __version__
from rocmdoctor.model import Finding, Host, Severity

MEASURED_TITLES = {"bandwidth": "memory bandwidth", "tflops:fp16": "GEMM fp16", "tflops:bf16": "GEMM bf16"}


def _causes(findings: list[Finding]) -> list[dict[str, Any]]:
    """Findings grouped under the root cause the judge named (the cause's own finding first)."""
    from rocmdoctor.report.htmlpage import cause_of, finding_view

    groups: dict[str, list[Finding]] = {}
    for f in findings:
        c = cause_of(f)
        if c:
            groups.setdefault(c, []).append(f)
    out = []
    for cause, members in groups.items():
        head = next((f for f in findings if f.id == cause), None)
        rest = [f for f in members if f is not head]
        rest.sort(key=lambda f: -f.severity.rank)
        out.append({"cause": cause, "head": finding_view(head) if head else None,
                    "members": [finding_view(f) for f in rest],
                    "worst": max([f.severity for f in members] + ([head.severity] if head else []),
                                 key=lambda s: s.rank).value})
    out.sort(key=lambda c: -Severity(c["worst"]).rank)
    return out


def _areas(findings: list[Finding]) -> list[dict[str, Any]]:
    from rocmdoctor.report.htmlpage import finding_view
    from rocmdoctor.report.render import PROBLEMS, _group, area_status

    out = []
    for title, items in _group(findings):
        status = area_status(items)
        shown = sorted((f for f in items if f.severity in PROBLEMS or f.severity == Severity.INFO),
                       key=lambda f: -f.severity.rank)
        rest = [f for f in items if f not in shown]
        out.append({"title": title, "status": status.value, "area": items[0].area,
                    "problems": [finding_view(f) for f in shown], "passed": [finding_view(f) for f in rest]})
    return out


def _facts(host: Host) -> list[tuple[str, Any]]:
    from rocmdoctor.report.render import host_summary

    h = host_summary(host)
    t = h["torch"]
    torch = None if t is None else " ".join(x for x in (
        t["version"], f"({t['build']} build)", f"HIP {t['hip']}" if t["hip"] else "",
        f"CUDA {t['cuda']}" if t["cuda"] else "") if x)
    gpus = [f"{g['index']}: {g['name'] or 'unidentified GPU'} ({g['gfx'] or 'gfx not captured'})"
            + (f" [{g['pci_device_id']}]" if g["pci_device_id"] else "") for g in h["gpus"]]
    loaded = h["amdgpu_loaded"]
    return [
        ("host", h["hostname"]), ("source", h["origin"]),
        ("OS", h["os"]["pretty_name"] or " ".join(x for x in (h["os"]["id"], h["os"]["version"]) if x) or None),
        ("kernel", (h["kernel"] or "") + (" (WSL)" if h["wsl"] else "") or None),
        ("GPUs", gpus or None),
        ("amdgpu driver", None if loaded is None else ("loaded" if loaded else "not loaded")),
        ("ROCm", h["rocm"]["version"]),
        ("ROCm installs", [f"{r['path']} ({r['version'] or '?'})" for r in h["rocm"]["installs"]] or None),
        ("Python", h["python"]), ("torch", torch),
        ("captured", ", ".join(h["captured"]) or None),
    ]


def _num(v: Optional[float]) -> str:
    return "?" if v is None else f"{v:.4g}"


def measured_vs_peak(report: Any) -> list[dict[str, Any]]:
    """Per GPU, each throughput measured, with the product's peak and the warn threshold, ready to draw.

    Bars share one scale per row: the longer of measured and peak is the full width, so a result above the
    datasheet peak (a wrong peak, or a partition) is visible as such.
    """
    from rocmdoctor.smoke import PEAKS

    gpus = []
    for run in report.devices:
        rows = []
        for r in run.rows:
            if r.check not in PEAKS or r.value is None:
                continue
            scale = max(r.value, r.expected or 0.0) or 1.0
            rows.append({
                "check": r.check, "title": MEASURED_TITLES.get(r.check, r.check), "unit": r.unit or "",
                "value": _num(r.value), "expected": _num(r.expected) if r.expected else None,
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


def smoke_context(report: Any) -> dict[str, Any]:
    from rocmdoctor.smoke import table_rows

    t = report.torch or {}
    return {"level": report.options.level, "python": report.options.python, "torch": t.get("version"),
            "hip": t.get("hip"), "cuda": t.get("cuda"), "cpu": report.options.cpu,
            "elapsed": f"{report.elapsed_s:.1f}", "gpus": measured_vs_peak(report), "rows": table_rows(report)}


def to_html(host: Optional[Host], findings: list[Finding], smoke: Any = None, title: Optional[str] = None) -> str:
    """The page: header, host facts, root causes, one section per area, smoke measurements when given."""
    from rocmdoctor.report.htmlpage import render
    from rocmdoctor.report.render import gpu_summary, summary, summary_line

    where = (host.hostname or host.origin or "this host") if host is not None else None
    if title is None:
        if host is not None:
            title = f"rocmdoctor {__version__} — {where}: {gpu_summary(host) or 'no AMD GPU seen'}"
        elif smoke is not None:
            title = f"rocmdoctor {__version__} smoke level {smoke.options.level} — {smoke.options.python}"
        else:
            title = f"rocmdoctor {__version__} report"
    counts = summary(findings)
    return render("host.html.j2", title=title, facts=_facts(host) if host is not None else [],
                  counts=[(s, counts[s]) for s in ("error", "fail", "warn", "info", "ok", "skip") if counts[s]],
                  summary_line=summary_line(findings), causes=_causes(findings), areas=_areas(findings),
                  smoke=smoke_context(smoke) if smoke is not None else None)
