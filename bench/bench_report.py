#!/usr/bin/env python3
"""Size and load time of the fleet HTML report at 1,000 and 10,000 nodes, in headless Chromium.

The audit is synthetic, its per-node bundles are real fixtures (tests/fleet_synth.py: host names vary, a
kernel upgraded on every 97th node, a GPU lost on every 331st, a permission problem on every 211th, a vLLM
HIP error on every 53rd, every 997th unreachable). Anchor, side by side: the least any page listing those
nodes costs, a bare HTML table of host / status / worst severity, loaded the same way. ``--unique`` adds a
distinct finding to every node so that none fold together (the drill-down's worst case).

Load time = navigation start to two animation frames after the load event (the page drawn), measured in
the page (performance.now) over fresh browsers (new empty profile each, network cut): medians reported.
Filter time = setting the severity filter and computing every drill-down's style again.
Never asserts: numbers are reported, not tested. Writes bench/results/report.json.
"""

from __future__ import annotations

import argparse
import gzip
import html
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from browser import load  # noqa: E402
from fleet_synth import synthetic_report  # noqa: E402

from rocmdoctor.fleet import report as report_mod  # noqa: E402
from rocmdoctor.model import Finding, Severity  # noqa: E402


def anchor_page(report) -> str:  # type: ignore[no-untyped-def]
    rows = "".join(f"<tr><td>{html.escape(h.name)}</td><td>{h.status}</td><td>{h.worst.value}</td></tr>"
                   for h in report.hosts)
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>anchor</title></head><body><table>"
            f"<tr><th>host</th><th>status</th><th>worst</th></tr>{rows}</table></body></html>")


# Time to apply one filter (severity "fail or worse") and have every drill-down's style computed again.
FILTER = ("(() => { const t = performance.now(); const s = document.querySelector('#fs'); if (!s) return -1;"
          " s.value = 'fail'; document.querySelectorAll('details.node, #checks tbody tr').forEach("
          "e => getComputedStyle(e).display); return performance.now() - t; })()")


def measure(path: Path, runs: int, work: Path) -> dict[str, float]:
    loads, painted, dcl, walls, filters = [], [], [], [], []
    for i in range(runs):
        res = load(path.as_uri(), work / f"run{i}", screenshot=None if i else path.stem, dark=False,
                   expressions={"filter_ms": FILTER})
        filters.append(res.evaluated["filter_ms"])
        if res.errors or res.requests:
            raise SystemExit(f"{path.name}: console {res.errors} requests {res.requests}")
        dcl.append(res.timing["domContentLoaded"])
        loads.append(res.timing["load"])
        painted.append(res.timing["painted"])
        walls.append(res.wall_ms)
    return {"dom_content_loaded_ms": statistics.median(dcl), "load_ms": statistics.median(loads),
            "painted_ms": statistics.median(painted), "wall_ms": statistics.median(walls),
            "filter_ms": statistics.median(filters), "runs": runs}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, nargs="+", default=[1000, 10000])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--unique", action="store_true", help="no two nodes fold together (worst case)")
    ap.add_argument("--keep", help="write the pages and screenshots here instead of a temp dir")
    a = ap.parse_args()
    work = Path(a.keep or tempfile.mkdtemp(prefix="rd-reportbench-"))
    work.mkdir(parents=True, exist_ok=True)
    results = {}
    for n in a.nodes:
        t0 = time.perf_counter()
        report = synthetic_report(n)
        if a.unique:
            for i, h in enumerate(report.hosts):
                h.findings.append(Finding("fleet.bench-unique", Severity.INFO, "bench: distinct per node",
                                          detail=f"distinct value {i}"))
        t1 = time.perf_counter()
        page = report_mod.html_text(report)
        t2 = time.perf_counter()
        path = work / f"fleet-{n}{'-unique' if a.unique else ''}.html"
        path.write_text(page, encoding="utf-8")
        anchor = work / f"anchor-{n}.html"
        anchor.write_text(anchor_page(report), encoding="utf-8")
        raw = page.encode()
        r = {"nodes": n, "node_classes": page.count('<details class="node '), "build_s": t1 - t0,
             "render_s": t2 - t1, "bytes": len(raw), "gzip_bytes": len(gzip.compress(raw)),
             "bytes_per_node": len(raw) / n, "report": measure(path, a.runs, work / f"b{n}"),
             "anchor": measure(anchor, a.runs, work / f"a{n}"), "anchor_bytes": anchor.stat().st_size}
        r["load_ratio_vs_anchor"] = r["report"]["painted_ms"] / r["anchor"]["painted_ms"]
        results[str(n)] = r
        print(f"{n:>6} nodes: {r['node_classes']} node classes, {len(raw) / 2**20:.2f} MiB "
              f"({r['gzip_bytes'] / 2**10:.0f} KiB gzip), render {r['render_s']:.2f} s; in Chromium: "
              f"DOMContentLoaded {r['report']['dom_content_loaded_ms']:.0f} ms, load {r['report']['load_ms']:.0f} ms,"
              f" drawn {r['report']['painted_ms']:.0f} ms, a filter applied in {r['report']['filter_ms']:.0f} ms; "
              f"anchor (bare {n}-row table, "
              f"{r['anchor_bytes'] / 2**20:.2f} MiB) drawn {r['anchor']['painted_ms']:.0f} ms; "
              f"ratio {r['load_ratio_vs_anchor']:.2f}x")
    out = ROOT / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    name = "report-unique.json" if a.unique else "report.json"
    (out / name).write_text(json.dumps(results, indent=2))
    print(f"pages and screenshots: {work}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
