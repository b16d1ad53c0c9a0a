"""Findings about the processes themselves: no torch, no GPU, a hang, a crash, a known error on stderr.

These come before any check's result: a program that never reached a GPU verified nothing, and saying so
(with the reason the enumeration or stderr gives) is the point of the whole command.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from rocmdoctor.model import Finding, Fix, Host, Severity
from rocmdoctor.smoke.catalog import HANDLED_FATAL, fix_for
from rocmdoctor.smoke.model import ProcessRun, smoke_id, where
from rocmdoctor.smoke.report import SmokeReport
from rocmdoctor.smoke.signatures import SignatureHit, check_fix, scan_signatures

if TYPE_CHECKING:
    from rocmdoctor.matrix import Matrix

# fatal reason the program reported -> its finding
IMPORT_FATAL = {"no-torch": "smoke.no-torch", "torch-import-failed": "smoke.torch-import-failed"}


def process_findings(report: SmokeReport, host: Optional[Host], matrix: Optional[Matrix]) -> list[Finding]:
    """No torch, no GPU, hung programs, known errors on stderr and crashes, in that order."""
    out = _import_findings(report)
    out += _no_gpu_findings(report)
    out += _timeout_findings(report)
    out += _stderr_findings(report, host, matrix)
    return out


def _import_findings(report: SmokeReport) -> list[Finding]:
    """The target interpreter has no torch, or its torch does not import: one finding per reason."""
    out: list[Finding] = []
    allruns = [*report.devices, *report.collectives]
    for reason, fid in IMPORT_FATAL.items():
        hit = [r for r in allruns if r.fatal and r.fatal.get("reason") == reason]
        if hit:
            what = "has no torch" if reason == "no-torch" else "cannot import torch"
            out.append(Finding(fid, Severity.FAIL, f"The target interpreter {what}: nothing was verified",
                               detail=str(hit[0].fatal.get("detail", "")) if hit[0].fatal else "",
                               evidence=[f"python: {report.options.python}"], fix=fix_for(fid)))
    return out


def _no_gpu_findings(report: SmokeReport) -> list[Finding]:
    """torch runs but sees no GPU: nothing was verified, and the enumeration says why."""
    enum = report.enumeration
    no_gpu = [r for r in report.devices if r.fatal and r.fatal.get("reason") == "no-gpu"]
    if report.options.cpu or not (no_gpu or (enum is not None and not enum.get("available"))):
        return []
    ev = [f"torch {enum.get('torch')} (hip {enum.get('hip')}, cuda {enum.get('cuda')})"] if enum else []
    ev += [f"{k}={v}" for k, v in ((enum or {}).get("env") or {}).items()]
    detail, fix = _no_gpu_why(enum, report.options.python)
    return [Finding("smoke.no-gpu", Severity.FAIL, "torch sees no usable GPU: nothing was verified",
                    detail=detail, evidence=ev, fix=fix)]


def _timeout_findings(report: SmokeReport) -> list[Finding]:
    """Programs killed at their timeout, each with the last check it finished (where it hung)."""
    timed = [r for r in [*report.devices, *report.collectives] if r.timed_out]
    if not timed:
        return []
    ev = []
    for r in timed:
        last = next((x for x in reversed(r.records) if x.get("type") == "result"), None)
        after = f"last finished check: {last.get('check')}" if last else "no check had finished"
        ev.append(f"{r.label} (pid {r.pid}): killed after {report.options.process_timeout:g} s; {after}")
    title = f"Smoke program hung and was killed at its timeout on {where(timed)}"
    return [Finding("smoke.timeout", Severity.FAIL, title, evidence=ev, fix=fix_for("smoke.timeout"))]


def _stderr_findings(report: SmokeReport, host: Optional[Host], matrix: Optional[Matrix]) -> list[Finding]:
    """Known error signatures in stderr (and in a fatal record's or a failed check's text), one finding per
    signature finding id; then the runs that ended in a way no signature explains."""
    sig_hits: dict[str, tuple[SignatureHit, list[str], bool]] = {}
    crashed: list[ProcessRun] = []
    for r in [*report.devices, *report.collectives]:
        if r.timed_out:
            continue
        fatal = r.fatal.get("reason") if r.fatal is not None else None
        failed = (not r.completed and r.fatal is None) or fatal in IMPORT_FATAL
        text = r.stderr + ("\n" + str(r.fatal.get("detail", "")) if r.fatal else "")
        matches = scan_signatures(text)
        explains = [m for m in matches if m.signature.severity == "fail"]  # a warning on stderr explains no crash
        for hit in matches:
            _add_hit(sig_hits, hit, f"{r.label}: {hit.line}", failed and hit.signature.severity == "fail")
        if (failed and r.fatal is None and not explains) or (r.fatal is not None
                                                            and r.fatal.get("reason") not in HANDLED_FATAL):
            crashed.append(r)
        for row in r.rows:
            if row.cause is not None:
                _add_hit(sig_hits, row.cause, f"{r.label} {row.check}: {row.cause.line}", True)
    out = [_signature_finding(fid, hit, ev, failed, report, host, matrix)
           for fid, (hit, ev, failed) in sig_hits.items()]
    if crashed:
        out.append(_crash_finding(crashed))
    return out


def _add_hit(sig_hits: dict[str, tuple[SignatureHit, list[str], bool]], hit: SignatureHit, evidence: str,
             ended: bool) -> None:
    """Merge one more sighting of a signature into its finding's evidence (by smoke finding id)."""
    fid = smoke_id(hit.signature.finding)
    prev = sig_hits.get(fid)
    if prev is None:
        sig_hits[fid] = (hit, [evidence], ended)
    else:
        sig_hits[fid] = (prev[0], [*prev[1], evidence], prev[2] or ended)


def _signature_finding(fid: str, hit: SignatureHit, ev: list[str], failed: bool, report: SmokeReport,
                       host: Optional[Host], matrix: Optional[Matrix]) -> Finding:
    """One known error as a finding, with check's fix (and, for no-binary, this GPU's override first)."""
    sig = hit.signature
    fix = check_fix(hit, host, matrix)
    if fid == "smoke.no-binary-for-gpu":
        known = fix or Fix("", [])
        fix = Fix(known.explanation, _no_binary_commands(report, matrix) + known.commands, known.url)
    # the signature's own severity (hipBLASLt falling back is info), FAIL only for a fail-level one that ended
    # a run; a fail-level line in a run that still finished is a warning
    sev = {"info": Severity.INFO, "warn": Severity.WARN}.get(sig.severity, Severity.FAIL if failed else Severity.WARN)
    return Finding(fid, sev, sig.title, detail="Seen in the smoke program's output.", evidence=ev[:8], fix=fix)


def _crash_finding(crashed: list[ProcessRun]) -> Finding:
    """Runs that ended in a way nothing explains: signal or exit code and the end of stderr."""
    ev = []
    for r in crashed:
        how = r.signal_name or f"exit code {r.exit_code}"
        if r.fatal is not None:
            how = f"{r.fatal.get('reason')}: {r.fatal.get('detail', '')}"
        tail = " | ".join(r.stderr.strip().splitlines()[-3:])[-400:]
        ev.append(f"{r.label}: {how}" + (f"; stderr: {tail}" if tail else ""))
    return Finding("smoke.crashed", Severity.FAIL, f"Smoke program crashed on {where(crashed)}",
                   evidence=ev, fix=fix_for("smoke.crashed"))


def _no_gpu_why(enum: Optional[dict[str, Any]], python: str) -> tuple[str, Optional[Fix]]:
    """Why torch sees no GPU, as far as the enumeration tells: the build first (a CPU or CUDA wheel can never
    use an AMD GPU, the most common way an environment 'almost works'), else the host's side."""
    base = "torch.cuda.is_available() is False in the target interpreter."
    if not enum:
        return base, fix_for("smoke.no-gpu")
    version, hip, cuda = enum.get("torch"), enum.get("hip"), enum.get("cuda")
    install = f"rocmdoctor install torch --python {python}"
    if not hip and not cuda:
        return (f"{base} This torch ({version}) is a CPU-only build: it cannot use any GPU.",
                Fix("Replace it with a ROCm build of torch for this host's GPUs and ROCm driver.", [install]))
    if not hip:
        return (f"{base} This torch ({version}) is a CUDA build (CUDA {cuda}): it cannot use an AMD GPU.",
                Fix("On an AMD GPU host, replace it with a ROCm build of torch (on an NVIDIA host, check the "
                    "NVIDIA driver instead).", [install, "rocmdoctor check"]))
    return (f"{base} It is a ROCm build (HIP {hip}), so the driver, permissions or GPU support stop it.",
            fix_for("smoke.no-gpu"))


def _no_binary_commands(report: SmokeReport, matrix: Optional[Matrix]) -> list[str]:
    """The override for the GPU's gfx where the matrix knows a working one, and the right-wheel install."""
    cmds = []
    archs = sorted({r.arch for r in report.devices if r.arch and r.arch.startswith("gfx")})
    for arch in archs:
        target = matrix.gpu(arch) if matrix is not None else None
        if target is not None and target.override and not target.override_broken:
            cmds.append(f"export HSA_OVERRIDE_GFX_VERSION={target.override}  # {arch}: unofficial")
    cmds.append(f"rocmdoctor install torch --python {report.options.python}")
    return cmds
