"""The single-host HTML report (``check --format html``, ``smoke --format html``): one file to attach to a bug.

The same groups as the terminal (one section per area, its worst problem first, the fix commands under each
problem), the host's facts on top, root causes when the judge grouped findings under one (a ``cause`` on a
finding; absent, the section is not drawn), and, when smoke tests ran, each GPU's measured bandwidth and
TFLOPS drawn against the product's peak and the warn threshold (smoke hands that section over as data, see
:class:`SmokePage`). jinja2 is imported only when this runs.
"""

from __future__ import annotations

from typing import Any, Optional, Protocol

from rocmdoctor import __version__
from rocmdoctor.model import Finding, Host, Severity


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


class SmokePage(Protocol):
    """What the page needs from a smoke run: its section as plain data (``SmokeReport.html_context``). A
    protocol, because smoke sits above report and report must not import it."""

    def html_context(self) -> dict[str, Any]: ...


def to_html(host: Optional[Host], findings: list[Finding], smoke: Optional[SmokePage] = None,
            title: Optional[str] = None) -> str:
    """The page: header, host facts, root causes, one section per area, smoke measurements when given."""
    from rocmdoctor.report.htmlpage import render
    from rocmdoctor.report.render import gpu_summary, summary, summary_line

    ctx = smoke.html_context() if smoke is not None else None
    where = (host.hostname or host.origin or "this host") if host is not None else None
    if title is None:
        if host is not None:
            title = f"rocmdoctor {__version__} — {where}: {gpu_summary(host) or 'no AMD GPU seen'}"
        elif ctx is not None:
            title = f"rocmdoctor {__version__} smoke level {ctx['level']} — {ctx['python']}"
        else:
            title = f"rocmdoctor {__version__} report"
    counts = summary(findings)
    return render("host.html.j2", title=title, facts=_facts(host) if host is not None else [],
                  counts=[(s, counts[s]) for s in ("error", "fail", "warn", "info", "ok", "skip") if counts[s]],
                  summary_line=summary_line(findings), causes=_causes(findings), areas=_areas(findings),
                  smoke=ctx)
