"""`rocmdoctor smoke`: run kernels on every GPU inside the target interpreter and check the results."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Callable, Optional, TextIO

import typer

from rocmdoctor.cli.options import quiet_option, wants_json

if TYPE_CHECKING:
    from rocmdoctor.model import Host
    from rocmdoctor.smoke import SmokeOptions, SmokeReport  # imported where used: keeps CLI start-up light


class SmokeFormat(str, Enum):
    """``smoke --format``: text for people, one JSON document, or an HTML page (measured vs peak per GPU)."""

    text = "text"
    json = "json"
    html = "html"


def register(app: typer.Typer) -> None:
    """Add this module's command(s) to the root app."""

    @app.command("smoke")
    def smoke_cmd(
        python: Optional[str] = typer.Option(None, "--python", help="Target interpreter (default: this one)."),
        level: int = typer.Option(1, "--level", min=1, max=3,
                                  help="1: seconds (copies, kernels, GEMM vs CPU); 2: Triton, HIP, bandwidth, "
                                       "GEMM TFLOPS, P2P, all-reduce; 3: minutes of stress and memory tests."),
        devices: Optional[str] = typer.Option(None, "--devices", metavar="0,2", help="Only these GPU indices."),
        device: Optional[str] = typer.Option(None, "--device", metavar="cpu",
                                             help="'cpu': run every check on the CPU (developer/test mode)."),
        fmt: SmokeFormat = typer.Option(SmokeFormat.text, "--format", metavar="text|json|html",
                                        help="Output format; html draws each GPU's measured bandwidth/TFLOPS vs "
                                             "its peak."),
        as_json: bool = typer.Option(False, "--json", help="JSON (schema rocmdoctor-smoke/1) on stdout."),
        quiet: bool = quiet_option(),
        output: Optional[str] = typer.Option(None, "-o", "--output", metavar="FILE",
                                             help="Write the report to FILE instead of stdout."),
        timeout: Optional[float] = typer.Option(None, "--timeout", metavar="S",
                                                help="Hard per-process timeout (default 60/300/1800 s by level)."),
        duration: Optional[float] = typer.Option(None, "--duration", metavar="S",
                                                 help="Level 3: seconds of sustained GEMM per GPU (default 60)."),
        verbose: bool = typer.Option(False, "--verbose", "-v", help="Show passing checks and all evidence."),
        quick: bool = typer.Option(False, "--quick", hidden=True, help="Tiny sizes (rocmdoctor's own tests)."),
    ) -> None:
        """Run GPU smoke tests in the target Python and compare results with the CPU and the card's peak.

        Exit codes: 0 nothing failed, 1 a check failed or no usable GPU (nothing verified), 2 usage error.
        """
        run_request(SmokeRequest(python=python, level=level, devices=devices, device=device, fmt=fmt,
                                 as_json=as_json, quiet=quiet, output=output, timeout=timeout, duration=duration,
                                 verbose=verbose, quick=quick))


@dataclass(frozen=True)
class SmokeRequest:
    """``rocmdoctor smoke``'s flags as one typed value (the callback builds it and does nothing else)."""

    python: Optional[str] = None
    level: int = 1
    devices: Optional[str] = None  # "0,2", validated by parse_devices
    device: Optional[str] = None  # "cpu" or None
    fmt: SmokeFormat = SmokeFormat.text
    as_json: bool = False
    quiet: bool = False
    output: Optional[str] = None
    timeout: Optional[float] = None
    duration: Optional[float] = None
    verbose: bool = False
    quick: bool = False


def _options(req: SmokeRequest) -> SmokeOptions:
    """The runner's options from the flags; BadInput (exit 2) for any flag that does not make sense."""
    from rocmdoctor.errors import BadInput
    from rocmdoctor.smoke import SmokeOptions, check_options, ensure_python3, parse_devices, resolve_python

    if req.device is not None and req.device != "cpu":
        raise BadInput(f"--device {req.device!r}: only 'cpu' is accepted (use --devices 0,2 for GPUs)")
    opts = SmokeOptions(python=resolve_python(req.python), level=req.level, devices=parse_devices(req.devices),
                        cpu=req.device == "cpu", timeout=req.timeout, quick=req.quick, duration=req.duration)
    check_options(opts)
    if req.output is not None:
        from pathlib import Path

        from rocmdoctor.cli.options import writable_file

        writable_file("--output", Path(req.output))
    if req.python is not None:
        ensure_python3(opts.python)
    return opts


def run_request(req: SmokeRequest) -> None:
    """Validate, run, render; ends with ``typer.Exit`` carrying the documented exit code."""
    from rocmdoctor.report.render import exit_code
    from rocmdoctor.smoke import run_smoke

    fmt_name = "json" if wants_json(req.fmt, req.as_json) else req.fmt.value
    opts = _options(req)
    progress = _progress(fmt_name != "text" or req.quiet)
    host_source = None if opts.cpu else _live_host(opts.python)
    try:
        report = run_smoke(opts, host_source=host_source, progress=progress)
    finally:
        progress(None)
    if fmt_name == "text" and req.output is None:
        _render(report, req.verbose, req.quiet)
    else:
        _write(report, fmt_name, req.verbose, req.output)
    raise typer.Exit(exit_code(report.findings))


def _write(report: SmokeReport, fmt: str, verbose: bool, output: Optional[str]) -> None:
    """JSON, HTML, or the terminal text into a file (``-o``)."""
    import io
    import json

    from rocmdoctor.cli.check_flow import emit

    if fmt == "json":
        text = json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n"
    elif fmt == "html":
        from rocmdoctor.report.html import to_html

        text = to_html(None, report.findings, smoke=report)
    else:
        buf = io.StringIO()
        _render(report, verbose, file=buf)
        text = buf.getvalue()
    emit(text, output)


def _live_host(python: str) -> Callable[[], Host]:
    """A live capture (run in a thread while the GPUs work) to compare torch's GPUs with the driver's."""

    def capture() -> Host:
        from rocmdoctor.cli.check_flow import load_source

        return load_source(None, python, timeout=10.0)

    return capture


def _progress(quiet: bool) -> Callable[[Optional[str]], None]:
    """Progress lines on stderr only (and only on a terminal); ``progress(None)`` ends it."""
    import sys

    if quiet or not sys.stderr.isatty():
        return lambda _msg: None
    from rich.console import Console

    con = Console(stderr=True)
    status = con.status("smoke: starting")
    state = {"started": False}

    def update(msg: Optional[str]) -> None:
        if msg is None:
            if state["started"]:
                status.stop()
            return
        if not state["started"]:
            status.start()
            state["started"] = True
        status.update(f"smoke: {msg}")

    return update


def _render(report: SmokeReport, verbose: bool, quiet: bool = False, file: Optional[TextIO] = None) -> None:
    """Header, the per-GPU table (value, expected, % of peak), then the findings like `check` prints them."""
    import sys

    from rich.text import Text

    from rocmdoctor.report import render
    from rocmdoctor.report.tables import Column, console, print_table
    from rocmdoctor.smoke import table_rows

    header = f"rocmdoctor smoke level {report.options.level} — {report.options.python}: {_describe(report)}"
    con = console(file or sys.stdout)
    if not quiet:  # first, as `check` prints it (ASCII terminals get ASCII punctuation there too)
        from rich.markup import escape

        text = header.translate(render._ASCII_TEXT) if render._use_ascii(file or sys.stdout) else header
        con.print(escape(text) + ("" if verbose else "  [dim](details: -v)[/dim]"), soft_wrap=True)
    rows = [] if quiet else table_rows(report)
    if rows:
        from rocmdoctor.sanitize import one_line

        cols = [Column(c, j) for c, j in (("device", "left"), ("check", "left"), ("value", "right"),
                                          ("expected", "right"), ("% of peak", "right"), ("status", "left"))]
        # device names and values come from the GPU's driver: text, never markup (print_table takes str as text)
        print_table(con, "Per-GPU results", cols, [
            [*(one_line(r[k]) for k in ("device", "check", "value", "expected", "peak")),
             Text(one_line(r["status"]), style=render.STYLE.get(r["status"], ""))] for r in rows], compact=True)
        con.print()
    render.render_terminal(None, report.findings, verbose=verbose, quiet=quiet, file=file)


def _describe(report: SmokeReport) -> str:
    """What the run found, and only that: 'torch 2.5.1 (ROCm 6.2), 2 GPUs, 3.1 s' or 'no torch, 0.3 s'."""
    statuses = {run.status for run in report.devices}
    t = report.torch or {}
    if not t.get("version"):
        what = ("torch failed to import" if "torch-import-failed" in statuses
                else "no torch" if "no-torch" in statuses else "torch not reached")
        return f"{what}, {report.elapsed_s:.1f} s"
    build = f"ROCm {t['hip']}" if t.get("hip") else (f"CUDA {t['cuda']}" if t.get("cuda") else "CPU-only build")
    enum = report.enumeration or {}
    seen = int(enum.get("count") or 0) if enum.get("available") else 0
    if report.options.cpu:
        mode = "on the CPU (developer mode)"
    else:
        mode = f"{seen} GPU{'s' if seen != 1 else ''}" if seen else "no GPU visible to torch"
    return f"torch {t['version']} ({build}), {mode}, {report.elapsed_s:.1f} s"
