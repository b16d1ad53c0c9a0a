"""Fleet report writers: terminal tables (rich), ``rocmdoctor-fleet/1`` JSON, static HTML, Prometheus textfile.

All four render the same :class:`FleetReport`; the HTML is one self-contained file (inline CSS and SVG,
no scripts, no network assets: :mod:`rocmdoctor.fleet.htmlview`) so it can be mailed or archived; the
Prometheus file follows the node_exporter textfile-collector convention (written to a temp file, renamed).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Optional

from rocmdoctor import __version__
from rocmdoctor.fleet.aggregate import FIELD_TITLES, FINGERPRINT_FIELDS, FleetReport
from rocmdoctor.fleet.hosts import compress
from rocmdoctor.model import Severity
from rocmdoctor.report.htmlpage import write_atomic as _atomic_write
from rocmdoctor.sanitize import json_inert, one_line
from rocmdoctor.words import plural

FORMAT = "rocmdoctor-fleet/1"
SEV_STYLE = {"ok": "green", "info": "blue", "skip": "dim", "warn": "yellow", "fail": "red", "error": "magenta"}


def to_json(report: FleetReport) -> dict[str, Any]:
    """The versioned, stable JSON document (``schema: rocmdoctor-fleet/1``)."""
    return {
        "schema": FORMAT,
        "tool": f"rocmdoctor {__version__}",
        "created": report.created,
        "summary": report.summary(),
        "reference": {"kind": report.reference_kind, "fingerprint": report.reference,
                      **({"expect": report.expect} if report.expect is not None else {})},
        "hosts": [
            {
                "name": h.name,
                "status": h.status,
                "up": h.up,
                "seconds": round(h.seconds, 3),
                "detail": h.detail,
                "group": h.group,
                "fingerprint": h.fingerprint,
                "worst": h.worst.value,
                "bundle": h.bundle_path,
                "findings": [f.to_dict() for f in h.findings],
            }
            for h in report.hosts
        ],
        "groups": [
            {"id": g.id, "reference": g.reference, "count": len(g.hosts), "hosts": compress(g.hosts),
             "host_list": g.hosts, "fingerprint": g.fingerprint}
            for g in report.groups
        ],
        "findings": [
            {"id": f.id, "severity": f.severity.value, "title": f.title, "count": len(f.hosts),
             "hosts": f.hostset, "host_list": f.hosts, "details": f.details}
            for f in report.findings
        ],
        "drain": [{"host": h, "reason": r, "severity": s.value} for h, r, s in report.drain],
    }


def write_json(report: FleetReport, path: Path) -> None:
    _atomic_write(path, json.dumps(json_inert(to_json(report)), indent=2) + "\n")


# ---------------------------------------------------------------------------------------------- prometheus
def _label(v: str) -> str:
    return one_line(v).replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def prometheus_text(report: FleetReport, now: Optional[float] = None) -> str:
    lines = [
        "# HELP rocmdoctor_check A rocmdoctor finding on a host (1 = present), by check id and severity.",
        "# TYPE rocmdoctor_check gauge",
    ]
    for h in report.hosts:
        seen = dict.fromkeys((f.id, f.severity.value) for f in h.findings if f.severity != Severity.OK)
        for fid, sev in seen:  # one series per (host, check, severity): duplicates are invalid exposition
            lines.append(f'rocmdoctor_check{{host="{_label(h.name)}",check="{_label(fid)}",severity="{sev}"}} 1')
    lines += ["# HELP rocmdoctor_host_up 1 if the host answered the audit with a usable capture bundle.",
              "# TYPE rocmdoctor_host_up gauge"]
    lines += [f'rocmdoctor_host_up{{host="{_label(h.name)}"}} {1 if h.up else 0}' for h in report.hosts]
    lines += ["# HELP rocmdoctor_host_worst_severity Worst finding severity rank (0 ok .. 5 error).",
              "# TYPE rocmdoctor_host_worst_severity gauge"]
    lines += [f'rocmdoctor_host_worst_severity{{host="{_label(h.name)}"}} {h.worst.rank}' for h in report.hosts]
    lines += ["# HELP rocmdoctor_audit_timestamp_seconds When the fleet audit finished (unix time).",
              "# TYPE rocmdoctor_audit_timestamp_seconds gauge",
              f"rocmdoctor_audit_timestamp_seconds {now if now is not None else time.time():.3f}"]
    return "\n".join(lines) + "\n"


def write_prometheus(report: FleetReport, directory: Path) -> Path:
    path = directory / "rocmdoctor.prom"
    _atomic_write(path, prometheus_text(report))
    return path


# ---------------------------------------------------------------------------------------------- html
def html_text(report: FleetReport) -> str:
    """The self-contained HTML page (jinja2, imported only here): see :mod:`rocmdoctor.fleet.htmlview`."""
    from rocmdoctor.fleet.htmlview import html_text as render_page

    return render_page(report)


def write_html(report: FleetReport, path: Path) -> None:
    _atomic_write(path, html_text(report))


# ---------------------------------------------------------------------------------------------- terminal
def print_terminal(report: FleetReport, console: Any) -> None:
    """flutter-doctor-like summary: configurations, findings with folded host lists, the drain list.

    Node data (host names, kernel strings, dkms status, stray output) is passed to rich as ``Text``, never
    as markup: a ``[/]`` or ``[link=…]`` from a node is printed as it is, not parsed.
    """
    from rich.text import Text

    from rocmdoctor.report.tables import Column, print_table

    def t(value: object, style: str = "") -> Text:
        return Text(one_line(value), style=style)

    s = report.summary()
    head = (f"[bold]Fleet audit[/]: {plural(s['hosts'], 'host')}, {s['up']} answered, {s['down']} down, "
            f"{s['groups']} configuration(s), {s['seconds']:.1f} s")
    if report.interrupted:
        head += " [bold red](interrupted: partial results)[/]"
    console.print(head)
    if report.expect is not None:
        from rocmdoctor.fleet.baseline import show

        want = ", ".join(f"{k} {show(k, v)}" for k, v in report.expect.items())
        console.print(f"Held to the baseline file: {want}", highlight=False, markup=False)
    if report.groups:
        rows = []
        for g in report.groups:
            mark = " (baseline)" if g.reference and report.reference_kind == "baseline" else (
                " (majority)" if g.reference else "")
            rows.append([t(compress(g.hosts) + mark), str(len(g.hosts)),
                         *[t(g.fingerprint.get(k) or "-") for k in FINGERPRINT_FIELDS]])
        cols = [Column("hosts"), Column("n", "right"), *[Column(FIELD_TITLES[k]) for k in FINGERPRINT_FIELDS]]
        print_table(console, "Configurations", cols, rows)
    shown = [f for f in report.findings if f.severity.rank >= Severity.WARN.rank]
    if shown:
        rows = [[t(f.severity.value, SEV_STYLE.get(f.severity.value, "")), t(f.id),
                 t(f"{f.hostset} ({len(f.hosts)})"), t(f.title)] for f in shown]
        print_table(console, "Findings", [Column(c) for c in ("severity", "check", "hosts", "title")], rows)
    if report.drain:
        console.print("[bold]Drain these nodes:[/]")
        for host, reason, sev in report.drain:
            console.print(Text.assemble("  ", t(host, SEV_STYLE.get(sev.value, "")), "  ", t(reason)), highlight=False)
        console.print(t(f"drain list: {compress([h for h, _, _ in report.drain])}", "dim"), highlight=False)
    else:
        console.print("[green]No node needs draining.[/]")
