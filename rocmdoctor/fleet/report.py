"""Fleet report writers: terminal tables (rich), ``rocmdoctor-fleet/1`` JSON, static HTML, Prometheus textfile.

All four render the same :class:`FleetReport`; the HTML is one self-contained file (inline CSS, no
scripts, no network assets) so it can be mailed or archived; the Prometheus file follows the
node_exporter textfile-collector convention (written to a temp file, then renamed).
"""

from __future__ import annotations

import html
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any, Optional

from rocmdoctor import __version__
from rocmdoctor.fleet.aggregate import FIELD_TITLES, FINGERPRINT_FIELDS, FleetReport
from rocmdoctor.fleet.hosts import compress
from rocmdoctor.model import Severity

FORMAT = "rocmdoctor-fleet/1"
SEV_STYLE = {"ok": "green", "info": "blue", "skip": "dim", "warn": "yellow", "fail": "red", "error": "magenta"}


def to_json(report: FleetReport) -> dict[str, Any]:
    """The versioned, stable JSON document (``format: rocmdoctor-fleet/1``)."""
    return {
        "format": FORMAT,
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
    _atomic_write(path, json.dumps(to_json(report), indent=2) + "\n")


def _atomic_write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=str(path.parent))
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


# ---------------------------------------------------------------------------------------------- prometheus
def _label(v: str) -> str:
    return v.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


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
_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:1.5em;color:#1b1b1b;background:#fff}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em}
table{border-collapse:collapse;margin:.5em 0;font-size:.92em}
th,td{border:1px solid #ccc;padding:.25em .6em;text-align:left;vertical-align:top}
th{background:#f2f2f2}code{font-family:ui-monospace,monospace}
.sev{font-weight:600;text-transform:uppercase;font-size:.85em}
.ok{color:#1a7f37}.info{color:#0969da}.skip{color:#6e7781}.warn{color:#9a6700}.fail{color:#cf222e}
.error{color:#8250df}.ref{background:#eef7ee}.summary span{margin-right:1.5em}
"""


def _e(v: object) -> str:
    return html.escape("" if v is None else str(v), quote=True)


def html_text(report: FleetReport) -> str:
    s = report.summary()
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; style-src \'unsafe-inline\'">',
        f"<title>rocmdoctor fleet audit {_e(report.created)}</title><style>{_CSS}</style></head><body>",
        "<h1>rocmdoctor fleet audit</h1>",
        f'<p class="summary" id="summary"><span>{s["hosts"]} hosts</span><span>{s["up"]} answered</span>'
        f'<span>{s["down"]} down</span><span>{s["groups"]} configurations</span>'
        f'<span>{s["drain"]} to drain</span><span>worst: <b class="sev {s["worst"]}">{s["worst"]}</b></span>'
        f"<span>{_e(report.created)}</span></p>",
    ]
    if report.interrupted:
        out.append("<p><b>Interrupted:</b> partial results.</p>")
    out.append('<h2>Drain these nodes</h2><table id="drain"><tr><th>host</th><th>severity</th><th>reason</th></tr>')
    for host, reason, sev in report.drain:
        out.append(f'<tr><td>{_e(host)}</td><td class="sev {sev.value}">{sev.value}</td><td>{_e(reason)}</td></tr>')
    if not report.drain:
        out.append('<tr><td colspan="3">none</td></tr>')
    out.append("</table>")
    out.append('<h2>Configurations</h2><table id="groups"><tr><th>hosts</th><th>n</th>')
    out += [f"<th>{_e(FIELD_TITLES[k])}</th>" for k in FINGERPRINT_FIELDS]
    out.append("</tr>")
    for g in report.groups:
        cls = ' class="ref"' if g.reference else ""
        cells = "".join(f"<td>{_e(g.fingerprint.get(k) or '-')}</td>" for k in FINGERPRINT_FIELDS)
        out.append(f"<tr{cls}><td>{_e(compress(g.hosts))}</td><td>{len(g.hosts)}</td>{cells}</tr>")
    out.append("</table>")
    out.append('<h2>Findings</h2><table id="findings"><tr><th>severity</th><th>check</th><th>hosts</th>'
               "<th>n</th><th>title</th></tr>")
    for f in report.findings:
        out.append(f'<tr><td class="sev {f.severity.value}">{f.severity.value}</td><td><code>{_e(f.id)}</code></td>'
                   f"<td>{_e(f.hostset)}</td><td>{len(f.hosts)}</td><td>{_e(f.title)}</td></tr>")
    out.append("</table>")
    out.append('<h2>Hosts</h2><table id="hosts"><tr><th>host</th><th>status</th><th>worst</th><th>seconds</th>'
               "<th>detail</th></tr>")
    for h in report.hosts:
        out.append(f'<tr><td>{_e(h.name)}</td><td>{_e(h.status)}</td><td class="sev {h.worst.value}">'
                   f"{h.worst.value}</td><td>{h.seconds:.2f}</td><td>{_e(h.detail)}</td></tr>")
    out.append(f"</table><p><small>{_e(FORMAT)} · rocmdoctor {_e(__version__)}</small></p></body></html>")
    return "\n".join(out) + "\n"


def write_html(report: FleetReport, path: Path) -> None:
    _atomic_write(path, html_text(report))


# ---------------------------------------------------------------------------------------------- terminal
def print_terminal(report: FleetReport, console: Any) -> None:
    """flutter-doctor-like summary: configurations, findings with folded host lists, the drain list."""
    from rich.table import Table

    s = report.summary()
    head = (f"[bold]Fleet audit[/]: {s['hosts']} hosts, {s['up']} answered, {s['down']} down, "
            f"{s['groups']} configuration(s), {s['seconds']:.1f} s")
    if report.interrupted:
        head += " [bold red](interrupted: partial results)[/]"
    console.print(head)
    if report.expect is not None:
        from rocmdoctor.fleet.baseline import show

        want = ", ".join(f"{k} {show(k, v)}" for k, v in report.expect.items())
        console.print(f"Held to the baseline file: {want}", highlight=False, markup=False)
    if report.groups:
        t = Table(title="Configurations", title_justify="left")
        t.add_column("hosts", overflow="fold", min_width=12)
        t.add_column("n", justify="right")
        for k in FINGERPRINT_FIELDS:
            t.add_column(FIELD_TITLES[k], overflow="fold")
        for g in report.groups:
            mark = " (baseline)" if g.reference and report.reference_kind == "baseline" else (
                " (majority)" if g.reference else "")
            t.add_row(compress(g.hosts) + mark, str(len(g.hosts)), *[g.fingerprint.get(k) or "-"
                                                                    for k in FINGERPRINT_FIELDS])
        console.print(t)
    shown = [f for f in report.findings if f.severity.rank >= Severity.WARN.rank]
    if shown:
        t = Table(title="Findings", title_justify="left")
        for col in ("severity", "check", "hosts", "title"):
            t.add_column(col, overflow="fold")
        for f in shown:
            st = SEV_STYLE.get(f.severity.value, "")
            t.add_row(f"[{st}]{f.severity.value}[/]", f.id, f"{f.hostset} ({len(f.hosts)})", f.title)
        console.print(t)
    if report.drain:
        console.print("[bold]Drain these nodes:[/]")
        for host, reason, sev in report.drain:
            console.print(f"  [{SEV_STYLE.get(sev.value, '')}]{host}[/]  {reason}", highlight=False)
        console.print(f"[dim]drain list: {compress([h for h, _, _ in report.drain])}[/]", highlight=False)
    else:
        console.print("[green]No node needs draining.[/]")
