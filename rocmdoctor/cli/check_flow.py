"""The logic behind `rocmdoctor check` (kept out of the typer layer so tests can call it directly)."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from rocmdoctor.bundle.source import resolve_source
from rocmdoctor.errors import EXIT_USAGE, BadInput
from rocmdoctor.model import Host, Severity
from rocmdoctor.paths import FIXTURES_DIR

if TYPE_CHECKING:
    from rocmdoctor.report.html import SmokePage

DEMO_FIXTURE = "rx7900xtx-dkms-build-fails-kernel-6.5"
NOTHING_JUDGED = (
    "no fact rocmdoctor can judge (it reads rocminfo, rocm-smi/amd-smi, collect_env, dkms status, lspci, dmesg, "
    "pip freeze/show, uname, os-release, torch/pip/REPL/ollama/llama.cpp logs and known error lines); "
    "for a full picture run `rocmdoctor capture -o host.tar.gz` on the machine and pass that bundle"
)


def bundled_fixtures() -> list[str]:
    if not FIXTURES_DIR.is_dir():
        return []
    return sorted(p.name for p in FIXTURES_DIR.iterdir() if (p / "expected.json").is_file())


def load_source(source: Optional[str], python: Optional[str], timeout: float) -> Host:
    from rocmdoctor.bundle import load_host

    if source is not None:
        host = load_host(resolve_source(source))
        return host
    import tempfile  # here: only a live capture needs it (random, its import, is no cost of `check --from`)

    from rocmdoctor import capture

    with tempfile.TemporaryDirectory(prefix="rocmdoctor-capture-") as tmp:
        capture.capture_to_dir(tmp, python=python, redact=False, timeout=timeout, root=None,
                               skip=getattr(capture, "QUICK_SKIP", None))
        if not os.environ.get("ROCMDOCTOR_ROOT"):  # a fake machine has no live processes/containers of its own
            from rocmdoctor import livefacts

            livefacts.write(tmp)
        host = load_host(Path(tmp))
    host.origin = "live"
    return host


def has_amd_gpu_evidence(host: Host) -> bool:
    """Anything at all that says this machine has (or had) an AMD GPU stack."""
    return bool(host.gpus or (host.amdgpu_loaded and host.amdgpu_loaded.value) or host.rocm_installs
                or (host.dkms and host.dkms.entries) or "rocminfo" in host.captured)


@dataclass(frozen=True)
class CheckRequest:
    """One `rocmdoctor check` as the user asked for it: the typer callback builds it from the flags at once.

    ``select``/``skip`` are check ids or areas as typed (already split on commas); ``fmt`` is text, json,
    markdown or html; ``ascii_only`` None means "decide from the terminal".
    """

    source: Optional[str] = None
    fmt: str = "text"
    verbose: bool = False
    list_checks: bool = False
    select: tuple[str, ...] = ()
    skip: tuple[str, ...] = ()
    strict: bool = False
    live: bool = False
    python: Optional[str] = None
    timeout: float = 10.0
    ascii_only: Optional[bool] = None
    quiet: bool = False
    output: Optional[str] = None


def run_check(req: CheckRequest) -> int:
    """Judge the host the request names and render the report; the exit code (0 ok, 1 problems found)."""
    from rocmdoctor.judge.registry import all_checks, all_ids

    known = all_ids()
    if req.live:
        known = [*known, *_smoke_ids()]
    unknown = [i for i in (*req.select, *req.skip) if i not in known and not _is_area(i, known)]
    if unknown:
        raise BadInput(f"unknown check id(s): {', '.join(unknown)} (see `rocmdoctor check --list-checks`)")
    if req.list_checks:
        _print_checks(all_checks(), req.fmt)
        return 0
    select = _expand(list(req.select), known)
    skip = _expand(list(req.skip), known)
    python = _usable_python(req)
    if req.output is not None:
        from rocmdoctor.cli.options import writable_file

        writable_file("--output", Path(req.output))  # refused before the capture and the smoke tests, not after
    host = load_source(req.source, python, req.timeout)
    from rocmdoctor.diagnose import judge_host

    findings = judge_host(host, select=select or None, skip=skip or None)
    if req.source is not None and not select and all(f.severity == Severity.SKIP for f in findings):
        # Nothing at all could be judged: saying "nothing failed" would read as a healthy host.
        raise BadInput(f"{req.source}: {NOTHING_JUDGED}")
    smoke_report = None
    if req.live:
        from rocmdoctor.smoke import live_run

        with _spinner("Running the level-1 GPU smoke tests…", req.quiet):
            smoke, smoke_report = live_run(python, host, timeout=max(req.timeout, 60.0))
        findings.extend(f for f in smoke if (not select or f.id in select) and f.id not in skip)
    return _report(req, host, findings, smoke_report)


def _usable_python(req: CheckRequest) -> Optional[str]:
    """``--python`` resolved and known to be a Python 3; usage errors (exit 2), not findings."""
    if req.source is not None and (req.live or req.python is not None):
        # Both act on this machine; merged into another host's capture they would describe neither.
        raise BadInput(f"{'--live' if req.live else '--python'} inspects this machine and cannot be combined with "
                       "--from (a capture of another host)")
    if req.python is None:
        return None
    # A usage error, not a finding: /bin/false would otherwise be judged as "no torch" or "smoke crashed".
    from rocmdoctor.smoke import ensure_python3, resolve_python

    python = resolve_python(req.python)
    ensure_python3(python)
    return python


def _report(req: CheckRequest, host: Host, findings: list, smoke_report: Optional[SmokePage]) -> int:
    from rocmdoctor.report import render

    if req.source is None and not has_amd_gpu_evidence(host) and req.fmt == "text" and not req.quiet:
        demo = DEMO_FIXTURE if DEMO_FIXTURE in bundled_fixtures() else (bundled_fixtures() or ["<bundle>"])[0]
        print(f"No AMD GPU on this machine (no amdgpu driver, /dev/kfd or ROCm found). "
              f"To see a diagnosis, try: rocmdoctor check --from fixtures/{demo}")
        if not req.verbose:
            return render.exit_code(findings, req.strict)
    if req.fmt == "text":
        if req.output is None:
            render.render_terminal(host, findings, verbose=req.verbose, ascii_only=req.ascii_only, quiet=req.quiet)
        else:
            with open(req.output, "w", encoding="utf-8") as f:
                render.render_terminal(host, findings, verbose=req.verbose, file=f, ascii_only=req.ascii_only,
                                       quiet=req.quiet)
    else:
        emit(_document(req.fmt, host, findings, smoke_report), req.output)
    return render.exit_code(findings, req.strict)


def _document(fmt: str, host: Host, findings: list, smoke_report: Optional[SmokePage]) -> str:
    from rocmdoctor.report import render

    if fmt == "json":
        return render.to_json(host, findings) + "\n"
    if fmt == "markdown":
        return render.to_markdown(host, findings)
    from rocmdoctor.report.html import to_html  # jinja2: only when HTML was asked for

    return to_html(host, findings, smoke=smoke_report)


def emit(text: str, output: Optional[str]) -> None:
    """On stdout, or into ``output`` (written whole, then renamed) with one line on stderr saying where."""
    if output is None:
        sys.stdout.write(text)
        return
    from rocmdoctor.errors import OperationFailed
    from rocmdoctor.report.htmlpage import write_atomic

    try:
        write_atomic(Path(output), text)
    except OSError as exc:
        raise OperationFailed(f"cannot write --output {output}: {exc.strerror or exc}") from None
    print(f"report written to {output}", file=sys.stderr)


def _spinner(text: str, quiet: bool = False):
    """A rich spinner on stderr when it is a terminal; nothing otherwise (pipes, CI and -q stay clean)."""
    import contextlib

    if quiet or not sys.stderr.isatty():
        return contextlib.nullcontext()
    from rich.console import Console

    return Console(stderr=True).status(text)


def _smoke_ids() -> list[str]:
    from rocmdoctor import smoke  # a broken smoke package is a crash (exit 3), never "no smoke ids"

    return list(smoke.FINDING_IDS)


def _is_area(value: str, known: list[str]) -> bool:
    """`--select gpu` selects the whole area."""
    return "." not in value and any(k.startswith(value + ".") for k in known)


def _expand(values: Optional[list[str]], known: list[str]) -> list[str]:
    out: list[str] = []
    for v in values or []:
        out.extend([k for k in known if k.startswith(v + ".")] if _is_area(v, known) else [v])
    return out


def _print_checks(checks: list, fmt: str) -> None:
    if fmt == "json":
        import json

        print(json.dumps({"schema": "rocmdoctor-checks/1",
                          "checks": [{"ids": list(c.ids), "title": c.title, "area": c.area} for c in checks]},
                         indent=2))
        return
    for c in checks:
        for i in c.ids:
            print(f"{i:32} {c.title}")


__all__ = ["EXIT_USAGE", "CheckRequest", "run_check"]
