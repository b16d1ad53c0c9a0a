"""`rocmdoctor smoke`: run kernels on every GPU inside the target interpreter and check the results."""

from __future__ import annotations

from typing import Optional

import typer


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
        as_json: bool = typer.Option(False, "--json", help="JSON (schema rocmdoctor-smoke/1) on stdout."),
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
        from rocmdoctor.errors import BadInput
        from rocmdoctor.smoke import SmokeOptions, check_options, parse_devices, resolve_python, run_smoke

        if device is not None and device != "cpu":
            raise BadInput(f"--device {device!r}: only 'cpu' is accepted (use --devices 0,2 for GPUs)")
        opts = SmokeOptions(python=resolve_python(python), level=level, devices=parse_devices(devices),
                            cpu=device == "cpu", timeout=timeout, quick=quick, duration=duration)
        check_options(opts)
        if python is not None:
            from rocmdoctor.smoke import ensure_python3

            ensure_python3(opts.python)
        progress = _progress(as_json)
        host_source = None if opts.cpu else _live_host(opts.python)
        try:
            report = run_smoke(opts, host_source=host_source, progress=progress)
        finally:
            progress(None)
        if as_json:
            import json

            typer.echo(json.dumps(report.to_dict(), indent=2, ensure_ascii=False))
        else:
            _render(report, verbose)
        from rocmdoctor.render import exit_code

        raise typer.Exit(exit_code(report.findings))


def _live_host(python: str):
    """A live capture (run in a thread while the GPUs work) to compare torch's GPUs with the driver's."""

    def capture():
        from rocmdoctor.checkrun import load_source

        return load_source(None, python, timeout=10.0)

    return capture


def _progress(quiet: bool):
    """Progress lines on stderr only (and only on a terminal); ``progress(None)`` ends it."""
    import sys

    if quiet or not sys.stderr.isatty():
        return lambda _msg: None
    from rich.console import Console

    con = Console(stderr=True)
    status = con.status("smoke: starting")
    state = {"started": False}

    def update(msg):
        if msg is None:
            if state["started"]:
                status.stop()
            return
        if not state["started"]:
            status.start()
            state["started"] = True
        status.update(f"smoke: {msg}")

    return update


def _render(report, verbose: bool) -> None:
    """Header, the per-GPU table (value, expected, % of peak), then the findings like `check` prints them."""
    import sys

    from rich.console import Console
    from rich.table import Table

    from rocmdoctor import render
    from rocmdoctor.smoke import table_rows

    t = report.torch or {}
    build = f"ROCm {t['hip']}" if t.get("hip") else (f"CUDA {t['cuda']}" if t.get("cuda") else "CPU build")
    seen = int((report.enumeration or {}).get("count") or 0) if (report.enumeration or {}).get("available") else 0
    mode = "CPU (developer mode)" if report.options.cpu else (f"{seen} GPU(s)" if seen else "no GPU visible to torch")
    header = (f"rocmdoctor smoke level {report.options.level} — {report.options.python}: "
              f"torch {t.get('version', '?')} ({build}), {mode}, {report.elapsed_s:.1f} s")
    con = Console(file=sys.stdout, highlight=False, soft_wrap=False)
    rows = table_rows(report)
    if rows:
        table = Table(title="Per-GPU results", title_justify="left", show_edge=False, pad_edge=False)
        for col, just in (("device", "left"), ("check", "left"), ("value", "right"), ("expected", "right"),
                          ("% of peak", "right"), ("status", "left")):
            table.add_column(col, justify=just)  # type: ignore[arg-type]
        from rich.text import Text

        from rocmdoctor.sanitize import one_line

        for r in rows:  # device names and values come from the GPU's driver: text, never markup
            table.add_row(*(Text(one_line(r[k])) for k in ("device", "check", "value", "expected", "peak")),
                          Text(one_line(r["status"]), style=render.STYLE.get(r["status"], "")))
        con.print(table)
        con.print()
    render.render_terminal(None, report.findings, verbose=verbose, header=header)
