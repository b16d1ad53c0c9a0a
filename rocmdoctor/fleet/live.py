"""``fleet audit --live``: run smoke level 1 on each host that has python3 and torch.

The smoke programs (``checks/*.py``, written to run inside a Python that has torch) are streamed to
``python3 -`` over the same kind of ssh call as the capture; they print JSON lines which become
findings. A host without an importable torch gets one ``skip`` finding, never a failure.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from rocmdoctor.fleet import remote, transport
from rocmdoctor.model import Finding, Fix, Severity

if TYPE_CHECKING:
    from rocmdoctor.fleet.audit import AuditOptions
    from rocmdoctor.fleet.hosts import Target

_LEVEL1 = re.compile(r"^LEVEL\s*(?::\s*int\s*)?=\s*1\b", re.M)
LIVE_TIMEOUT_S = 60.0


def programs(explicit: Optional[list[Path]] = None) -> list[Path]:
    """The level-1 smoke programs: the smoke module's own list if it offers one, else ``LEVEL = 1`` files."""
    if explicit is not None:
        return list(explicit)
    try:
        from rocmdoctor import smoke  # type: ignore[attr-defined]

        listed = smoke.level_programs(1)  # type: ignore[attr-defined]
        return [Path(p) for p in listed]
    except (ImportError, AttributeError, NotImplementedError, TypeError):
        pass
    from rocmdoctor.paths import CHECKS_DIR

    out = []
    for p in sorted(Path(CHECKS_DIR).glob("*.py")):
        if p.name.startswith("_"):
            continue
        try:
            if _LEVEL1.search(p.read_text(encoding="utf-8")):
                out.append(p)
        except OSError:
            continue
    return out


def parse_lines(name: str, text: str) -> list[Finding]:
    """JSON lines with id + severity become findings; anything else is ignored (stderr noise, logs)."""
    out: list[Finding] = []
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if not isinstance(obj, dict) or "id" not in obj or "severity" not in obj:
            continue
        try:
            sev = Severity(str(obj["severity"]))
        except ValueError:
            continue
        ev = obj.get("evidence")
        out.append(Finding(id=str(obj["id"]), severity=sev, title=str(obj.get("title", obj["id"])),
                           detail=str(obj.get("detail", "")),
                           evidence=[str(e) for e in ev] if isinstance(ev, list) else [f"program {name}"]))
    return out


async def run_live(target: Target, opts: AuditOptions, progs: list[Path]) -> list[Finding]:
    """Run each program on ``target``; findings from their JSON lines, skip when torch is absent."""
    if not progs:
        return [Finding(id="fleet.live-skipped", severity=Severity.SKIP, title="No level-1 smoke programs found",
                        detail="this rocmdoctor ships no level-1 smoke programs")]
    out: list[Finding] = []
    for prog in progs:
        try:
            payload = remote.program_script(prog.read_text(encoding="utf-8"), ["--level", "1"])
        except (OSError, ValueError) as exc:
            out.append(Finding(id="fleet.live-failed", severity=Severity.ERROR, title="Smoke program unreadable",
                               detail=f"{prog.name}: {exc}"))
            continue
        argv = transport.ssh_argv(opts.ssh, target)
        res = await transport.run_ssh(argv, payload, min(opts.timeout, LIVE_TIMEOUT_S) if opts.timeout else
                                      LIVE_TIMEOUT_S)
        text = res.stdout.decode("utf-8", "replace")
        if res.timed_out:
            out.append(Finding(id="fleet.live-timeout", severity=Severity.FAIL,
                               title="Smoke program did not finish in time", detail=f"{prog.name} killed"))
            continue
        if res.rc == remote.NO_TORCH_EXIT:
            return [Finding(id="fleet.live-skipped", severity=Severity.SKIP,
                            title="Live smoke tests skipped: no python3 with torch on this host",
                            detail=res.stderr.strip().splitlines()[-1] if res.stderr.strip() else "",
                            fix=Fix(explanation="install torch on the host to run `--live` smoke tests there"))]
        found = parse_lines(prog.name, text)
        if res.rc != 0 and not any(f.severity.rank >= Severity.FAIL.rank for f in found):
            tail = (res.stderr.strip().splitlines() or [""])[-1][:200]
            found.append(Finding(id="fleet.live-failed", severity=Severity.FAIL,
                                 title="Smoke program failed on this host",
                                 detail=f"{prog.name} exit {res.rc}: {tail}"))
        out.extend(found)
    return out
