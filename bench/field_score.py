#!/usr/bin/env python3
"""Score `rocmdoctor check` on the field fixtures (issue 12's 'done when' figures), without asserting anything.

For every fixtures/field-*/paste.txt: run `check --from paste.txt --json` and compare with expected.json.
Reports (1) on fixtures whose cause is known (`cause_known`), the share where the `cause` id is reported as
warn/fail, whether or not the cause's evidence is in the paste (a cause the thread shows only outside it,
`cause_outside_paste`, counts as not named unless the tool names it); (2) the healthy fixtures that got any
fail (false alarms); (3) the fixtures whose expectation does not match exactly yet (`pending` ones and any
regression). Writes bench/results/field_score.json.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROBLEM = {"warn", "fail", "error"}


def severities(paste: Path) -> tuple[int, dict[str, set[str]]]:
    proc = subprocess.run([sys.executable, "-m", "rocmdoctor", "check", "--from", str(paste), "--json"],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    try:
        report = json.loads(proc.stdout)
    except ValueError:
        return proc.returncode, {}
    out: dict[str, set[str]] = {}
    for f in report.get("findings", []):
        out.setdefault(f["id"], set()).add(f["severity"])
    return proc.returncode, out


def main() -> int:
    rows = []
    for fixture in sorted((ROOT / "fixtures").glob("field-*")):
        exp = json.loads((fixture / "expected.json").read_text(encoding="utf-8"))
        rc, sev = severities(fixture / "paste.txt")
        problems = {k: v & PROBLEM for k, v in sev.items() if v & PROBLEM}
        exact = (all(v in sev.get(k, set()) for k, v in exp["findings"].items())
                 and all(exp["findings"].get(k) in v for k, v in problems.items())
                 and not any(sev.get(a, set()) - {"ok", "skip", "info"} for a in exp["absent"]) and rc == exp["exit"])
        rows.append({"fixture": fixture.name, "cause_known": exp["cause_known"], "cause": exp["cause"],
                     "cause_named": bool(exp["cause"] and sev.get(exp["cause"], set()) & {"warn", "fail"}),
                     "healthy": exp["healthy"], "false_fail": exp["healthy"] and any("fail" in v for v in sev.values()),
                     "exact": exact, "pending": "pending" in exp,
                     "cause_outside_paste": "cause_outside_paste" in exp})
    known = [r for r in rows if r["cause_known"]]
    named = [r for r in known if r["cause_named"]]
    healthy = [r for r in rows if r["healthy"]]
    print(f"field fixtures: {len(rows)} ({len(healthy)} healthy, {len(known)} with a known cause)")
    print(f"cause named as warn/fail: {len(named)}/{len(known)} = {100 * len(named) / max(len(known), 1):.0f}%")
    print(f"healthy hosts with a fail: {sum(r['false_fail'] for r in healthy)}/{len(healthy)}")
    print(f"exact match with expected.json: {sum(r['exact'] for r in rows)}/{len(rows)}")
    for r in rows:
        if r["cause_known"] and not r["cause_named"]:
            where = " - its evidence lies outside the paste" if r["cause_outside_paste"] else ""
            print(f"  cause not named: {r['fixture']} ({r['cause']}){where}")
    out = ROOT / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "field_score.json").write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
