"""``fleet audit --live``: run smoke level 1 on each host whose ``python3`` has torch.

The smoke program (``rocmdoctor/programs/smoke_torch.py``: stdlib + torch only, one JSON record a line) is streamed
over the same kind of ssh call as the capture, inside a small constant driver that saves it to a temp
file on the host, runs it for GPU 0 with ``--enumerate`` and then for every other GPU torch sees (one
process each, in parallel, as ``rocmdoctor smoke`` does locally), and tags every line with its device.
The records are judged locally by :func:`rocmdoctor.smoke.judge`, so a fleet node's smoke findings are
the same as ``rocmdoctor smoke`` on that node. A host without an importable torch gets one ``skip``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

from rocmdoctor import smoke
from rocmdoctor.fleet import transport
from rocmdoctor.fleet.hosts import Target
from rocmdoctor.model import Finding, Fix, Severity
from rocmdoctor.paths import PROGRAMS_DIR

NO_TORCH_EXIT = 86
LIVE_TIMEOUT_S = 60.0
_PROG_EOF = "__ROCMDOCTOR_SMOKE_EOF__"

# Runs on the host under python3 -c, after the source of rocmdoctor.smoke.gpu_count_hint (see payload).
DRIVER = PROGRAMS_DIR / "fleet_smoke_driver.py"


def program() -> Optional[Path]:
    """The shipped smoke program, or None if it is missing from this install (each host then says so)."""
    p = Path(smoke.PROGRAM)
    return p if p.is_file() else None


def payload(prog_text: str, per_process_timeout: float) -> bytes:
    """sh script: run the driver with python3, the smoke program on the driver's stdin (a here-doc)."""
    if f"\n{_PROG_EOF}\n" in f"\n{prog_text}\n":
        raise ValueError("program contains the here-document delimiter")
    import inspect

    source = inspect.getsource(smoke.gpu_count_hint) + "\n\n" + DRIVER.read_text(encoding="utf-8")
    driver = source.replace("'", "'\\''")
    return (
        "command -v python3 >/dev/null 2>&1 || { echo 'rocmdoctor: no python3' >&2; exit 86; }\n"
        f"python3 -c '{driver}' {float(per_process_timeout):g} <<'{_PROG_EOF}'\n{prog_text}\n{_PROG_EOF}\n"
    ).encode()


def _skip(detail: str) -> list[Finding]:
    return [Finding(id="fleet.live-skipped", severity=Severity.SKIP,
                    title="Live smoke tests skipped: no python3 with torch on this host", detail=detail,
                    fix=Fix(explanation="install torch for the host's python3 to run `--live` smoke tests there"))]


def judge_records(lines: list[dict[str, Any]]) -> list[Finding]:
    """Rebuild one ProcessRun per device from the tagged lines and judge them like `rocmdoctor smoke`."""
    runs: dict[int, Any] = {}
    report = smoke.SmokeReport(options=smoke.SmokeOptions(python="python3", level=1))
    for item in lines:
        dev = item.get("dev")
        if not isinstance(dev, int):
            continue
        run = runs.get(dev)
        if run is None:
            run = runs[dev] = smoke.ProcessRun(key=f"cuda:{dev}", kind="device", argv=["python3", "-"], index=dev)
        if "line" in item:
            try:
                rec = json.loads(str(item["line"]))
            except ValueError:
                continue
            if not isinstance(rec, dict) or not isinstance(rec.get("type"), str):
                continue
            run.records.append(rec)
            if rec["type"] == "fatal":
                run.fatal = rec
            if rec["type"] == "enumeration" and report.enumeration is None:
                report.enumeration = rec
        else:
            run.exit_code = item.get("exit")
            run.timed_out = bool(item.get("timed_out"))
            run.stderr = str(item.get("stderr") or "")
    report.devices = smoke.drop_guessed([runs[k] for k in sorted(runs)], report.enumeration,
                                         {f"cuda:{k}" for k in runs if k > 0})
    for run in report.devices:
        smoke._describe(run, report.enumeration)
    return smoke.judge(report, None, None)


async def run_live(target: Target, ssh: transport.SshSettings, timeout: float,
                   prog: Optional[Path]) -> list[Finding]:
    """Smoke level 1 on ``target``: findings from the smoke judge, a skip when torch is absent there.

    ``timeout`` is the audit's per-host timeout; each smoke process gets at most :data:`LIVE_TIMEOUT_S`."""
    if prog is None:
        return [Finding(id="fleet.live-skipped", severity=Severity.SKIP, title="No smoke program shipped",
                        detail="this rocmdoctor has no programs/smoke_torch.py")]
    limit = min(timeout, LIVE_TIMEOUT_S)
    try:
        data = payload(prog.read_text(encoding="utf-8"), limit)
    except (OSError, ValueError) as exc:
        return [Finding(id="fleet.live-failed", severity=Severity.ERROR, title="Smoke program unreadable",
                        detail=str(exc))]
    res = await transport.run_ssh(transport.ssh_argv(ssh, target), data, limit * 2 + 10)
    if res.timed_out:
        return [Finding(id="fleet.live-timeout", severity=Severity.FAIL, title="Live smoke tests did not finish",
                        detail=f"no answer within {limit * 2 + 10:g} s")]
    if res.rc == NO_TORCH_EXIT:
        return _skip((res.stderr.strip().splitlines() or [""])[-1])
    lines = []
    for raw in res.stdout.decode("utf-8", "replace").splitlines():
        try:
            item = json.loads(raw)
        except ValueError:
            continue
        if isinstance(item, dict):
            lines.append(item)
    if not lines:
        tail = (res.stderr.strip().splitlines() or [""])[-1][:200]
        return [Finding(id="fleet.live-failed", severity=Severity.FAIL, title="Live smoke tests did not run",
                        detail=f"ssh exit {res.rc}: {tail}")]
    try:
        return judge_records(lines)
    except Exception as exc:  # the smoke judge must not take the audit down
        return [Finding(id="fleet.live-failed", severity=Severity.ERROR, title="Judging smoke results crashed",
                        detail=f"{type(exc).__name__}: {exc}")]
