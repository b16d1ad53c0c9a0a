"""One fleet audit end to end: fan out over SSH, load and judge each bundle locally, aggregate.

Kept apart from the typer command so tests (and other tools) can run an audit as a function call.
"""

from __future__ import annotations

import re
import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Optional

from rocmdoctor import atomic
from rocmdoctor import matrix as matrix_mod
from rocmdoctor.bundle import load_host
from rocmdoctor.diagnose import judge_host
from rocmdoctor.errors import BadInput
from rocmdoctor.fleet import remote, transport
from rocmdoctor.fleet.aggregate import FleetReport, HostAudit, aggregate, fingerprint
from rocmdoctor.fleet.baseline import Baseline
from rocmdoctor.fleet.baseline import facts as baseline_facts
from rocmdoctor.fleet.hosts import Target
from rocmdoctor.fleet.status import HostStatus
from rocmdoctor.matrix import Matrix
from rocmdoctor.model import Finding, Host, Severity


@dataclass
class AuditOptions:
    """How one audit runs (the CLI's flags after checking, or a test's): fan-out limits, ssh, what to judge."""

    jobs: int = 64
    timeout: float = 60.0
    live: bool = False
    save_bundles: Optional[Path] = None
    ssh: transport.SshSettings = field(default_factory=transport.SshSettings)
    stagger: float = transport.DEFAULT_STAGGER_S
    select: Optional[list[str]] = None
    skip: Optional[list[str]] = None
    live_program: Optional[Path] = None  # None -> the shipped smoke program (rocmdoctor/programs/smoke_torch.py)


def load_bundle(path: Path) -> Host:
    """A node's saved bundle as a :class:`Host` (:func:`rocmdoctor.bundle.load_host`: BadInput on garbage).

    No fallback reader: a broken install must crash (exit 3), never judge a node from fewer facts."""
    return load_host(path)


def _judge(host: Host, opts: AuditOptions, matrix: Matrix) -> list[Finding]:
    """The checks of ``rocmdoctor check`` on one host. Never "no findings" for a check that did not run:
    an exception (NotImplementedError included) is an ``error`` finding that puts the host on the drain list."""
    try:
        return judge_host(host, select=opts.select, skip=opts.skip, matrix=matrix)
    except BadInput:
        raise
    except Exception as exc:  # one host's odd bundle must not stop the audit of the others
        return [Finding(id="fleet.check-crashed", severity=Severity.ERROR, title="Checks crashed on this host",
                        detail=f"{type(exc).__name__}: {exc}")]


def safe_filename(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._@%-]", "_", name)


def load_baseline(path: Path) -> dict[str, Optional[str]]:
    """The fingerprint of a known-good node's bundle (dir or .tar.gz); BadInput if unreadable."""
    if not path.exists():
        raise BadInput(f"baseline bundle {path} does not exist")
    return fingerprint(load_bundle(path))


def run_audit(
    targets: list[Target],
    opts: AuditOptions,
    hook: Optional[transport.ProgressHook] = None,
    baseline: Optional[dict[str, Optional[str]]] = None,
    expect: Optional[Baseline] = None,
) -> FleetReport:
    """Audit every target; Ctrl-C returns the partial report (``interrupted=True``).

    Each bundle is loaded and judged in a worker thread as soon as it arrives, so local judging
    overlaps the fan-out instead of adding a serial tail after the slowest host.
    """
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    t0 = time.monotonic()
    created = datetime.now(timezone.utc).isoformat(timespec="seconds")
    payload = remote.capture_script(opts.timeout)
    after = None
    if opts.live:
        from rocmdoctor.fleet import live  # only with --live: it imports the smoke package

        prog = opts.live_program or live.program()

        async def after(res: transport.HostResult) -> None:
            res.extra["live"] = await live.run_live(res.target, opts.ssh, opts.timeout, prog)

    matrix = matrix_mod.load()  # a broken matrix is a crash (exit 3), not a fleet of unjudged "ok" hosts
    keep = opts.save_bundles
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
    done: dict[str, HostAudit] = {}
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rocmdoctor-judge")
    with tempfile.TemporaryDirectory(prefix="rocmdoctor-fleet-") as tmp:
        where = Path(keep or tmp)

        def process(res: transport.HostResult) -> None:
            t = res.target
            audit = HostAudit(name=t.name, status=res.status, seconds=res.seconds, detail=res.detail)
            if res.status == HostStatus.OK:
                _load_and_judge(audit, res, where, keep is not None, opts, matrix)
            done[t.name] = audit

        async def post(res: transport.HostResult) -> None:
            await asyncio.get_running_loop().run_in_executor(pool, process, res)

        try:
            _results, interrupted = transport.run_fan_out(transport.FanOutRequest(
                targets, opts.ssh, payload, opts.jobs, opts.timeout, hook=hook, stagger=opts.stagger,
                after=after, post=post,
            ))
        finally:
            pool.shutdown(wait=True)
    audits = [done.get(t.name) or HostAudit(name=t.name, status=HostStatus.INTERRUPTED, detail="not finished")
              for t in targets]
    report = aggregate(audits, baseline=baseline, interrupted=interrupted, expect=expect)
    report.created = created
    report.seconds = time.monotonic() - t0
    return report


def _load_and_judge(audit: HostAudit, res: transport.HostResult, where: Path, keep: bool,
                    opts: AuditOptions, matrix: Matrix) -> None:
    path = where / f"{safe_filename(audit.name)}.tar.gz"
    atomic.write_bytes(path, res.bundle)
    if keep:
        audit.bundle_path = str(path)
    try:
        host = load_bundle(path)
    except BadInput as exc:
        audit.status = HostStatus.BAD_CAPTURE
        audit.detail = f"bundle could not be read: {exc}"
        return
    except Exception as exc:
        audit.status = HostStatus.BAD_CAPTURE
        audit.detail = f"bundle could not be read: {type(exc).__name__}: {exc}"
        return
    if not host.hostname:
        host.hostname = audit.name
    audit.findings.extend(_judge(host, opts, matrix))
    audit.findings.extend(res.extra.get("live", []))
    # keep the fingerprint, drop the parsed Host and the bundle bytes: 10,000 hosts must fit in memory
    audit.fingerprint = fingerprint(host)
    audit.facts = baseline_facts(host)
    res.bundle = b""


ProgressFactory = Callable[[int], transport.ProgressHook]
