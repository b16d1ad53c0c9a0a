"""One-line node verdicts for schedulers: Slurm ``HealthCheckProgram``/NHC wrappers and Kubernetes
node-problem-detector (NPD) custom plugins.

Both expect the same shape: exit 0 = healthy, 1 = a problem (drain / NodeCondition true), anything else
= the check itself could not run ("Unknown" for NPD); and one short line on stdout that becomes the
drain reason or the condition message (NPD cuts it at ``max_output_length``, 80 by default). The
verdict comes from the same checks as ``rocmdoctor check``.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Optional

from rocmdoctor.model import Finding, Severity

PREFIX = "rocmdoctor:"  # like NHC's "NHC:" note prefix: a wrapper only clears drains it set itself


def verdict(findings: list[Finding], strict: bool = False, max_len: int = 80) -> tuple[int, str]:
    """(exit code, one line): the worst finding first, then how many more problems there are."""
    floor = Severity.WARN if strict else Severity.FAIL
    bad = sorted((f for f in findings if f.severity.rank >= floor.rank), key=lambda f: -f.severity.rank)
    if not bad:
        warns = sum(1 for f in findings if f.severity == Severity.WARN)
        line = f"{PREFIX} ok" + (f" ({warns} warning{'s' if warns != 1 else ''})" if warns else "")
        return 0, _cut(line, max_len)
    first = bad[0]
    more = f" (+{len(bad) - 1} more)" if len(bad) > 1 else ""
    head = f"{PREFIX} {first.severity.value} {first.id}"
    title = " ".join(first.title.split())
    room = max_len - len(head) - len(more) - 2
    line = f"{head}: {_cut(title, room)}{more}" if room >= 8 else f"{head}{more}"
    return 1, _cut(line, max_len)


def _cut(text: str, n: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: max(0, n - 3)].rstrip() + "..."


def prometheus_text(findings: list[Finding], code: int, gpus: Optional[int], now: Optional[float] = None) -> str:
    """node_exporter textfile-collector exposition of one node-check (``--prometheus PATH``)."""
    from rocmdoctor.fleet.report import _label

    lines = ["# HELP rocmdoctor_node_check_status Exit status of the last node-check (0 ok, 1 problem, 2 not run).",
             "# TYPE rocmdoctor_node_check_status gauge", f"rocmdoctor_node_check_status {code}",
             "# HELP rocmdoctor_node_check_finding A finding of the last node-check (1 = present), by id and severity.",
             "# TYPE rocmdoctor_node_check_finding gauge"]
    seen = dict.fromkeys((f.id, f.severity.value) for f in findings
                         if f.severity not in (Severity.OK, Severity.SKIP))
    lines += [f'rocmdoctor_node_check_finding{{check="{_label(fid)}",severity="{sev}"}} 1' for fid, sev in seen]
    if gpus is not None:
        lines += ["# HELP rocmdoctor_node_gpus GPUs the node-check saw.", "# TYPE rocmdoctor_node_gpus gauge",
                  f"rocmdoctor_node_gpus {gpus}"]
    lines += ["# HELP rocmdoctor_node_check_timestamp_seconds When the node-check ran (unix time).",
              "# TYPE rocmdoctor_node_check_timestamp_seconds gauge",
              f"rocmdoctor_node_check_timestamp_seconds {now if now is not None else time.time():.3f}"]
    return "\n".join(lines) + "\n"


def write_textfile(path: Path, text: str) -> None:
    """Atomically (temp file + rename in the same directory): node_exporter never reads half a file."""
    from rocmdoctor.fleet.report import _atomic_write

    _atomic_write(path, text)
