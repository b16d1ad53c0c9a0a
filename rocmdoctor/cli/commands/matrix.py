"""`rocmdoctor matrix show|explain|update`: browse and refresh the compatibility matrix."""

from __future__ import annotations

from typing import Optional

import typer

from rocmdoctor.cli.options import OutputFormat, format_option, wants_json


def register(app: typer.Typer) -> None:
    """Add the `matrix` command group to the root app."""
    sub = typer.Typer(help="Browse the ROCm compatibility matrix (releases, GPUs, OS/kernels, torch wheels).",
                      no_args_is_help=True)
    sub.command("show")(show)
    sub.command("explain")(explain_cmd)
    sub.command("update")(update)
    app.add_typer(sub, name="matrix")


def show(
    rocm: Optional[str] = typer.Option(None, "--rocm", help="ROCm release, e.g. 6.2 or 6.2.4."),
    gpu: Optional[str] = typer.Option(None, "--gpu", help='gfx target, PCI id or product name ("RX 7900 XTX").'),
    torch: Optional[str] = typer.Option(None, "--torch", help="torch release, e.g. 2.5."),
    fmt: OutputFormat = format_option(),
    as_json: bool = typer.Option(False, "--json", help="JSON on stdout (rocmdoctor-matrix/1)."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Every detail and source under each table."),
) -> None:
    """Print the slice of the matrix matching the filters (each filter narrows every table)."""
    import json

    from rocmdoctor.matrix import load
    from rocmdoctor.matrix.view import render, select, to_json

    m = load()
    sl = select(m, rocm=rocm, gpu=gpu, torch=torch)
    if wants_json(fmt, as_json):
        typer.echo(json.dumps(to_json(sl, m), indent=2))
        return
    from rocmdoctor.report.tables import console

    render(console(), sl, m, verbose=verbose)


def explain_cmd(
    gpu: str = typer.Option(..., "--gpu", help="gfx target, PCI id or product name."),
    rocm: str = typer.Option(..., "--rocm", help="ROCm release, e.g. 6.2."),
    os_name: Optional[str] = typer.Option(
        None, "--os", help='OS as "<os-release ID> <VERSION_ID>", e.g. "ubuntu 22.04".'),
    kernel: Optional[str] = typer.Option(None, "--kernel", help="Kernel release (uname -r)."),
    fmt: OutputFormat = format_option(),
    as_json: bool = typer.Option(False, "--json", help="JSON on stdout (rocmdoctor-matrix-explain/1)."),
) -> None:
    """Say in sentences whether the combination works and why (exit 1 when it does not)."""
    from rocmdoctor.errors import BadInput
    from rocmdoctor.matrix import load
    from rocmdoctor.matrix.view import EXPLAIN_SCHEMA, explain

    os_id = os_version = None
    if os_name:
        parts = os_name.split()
        if len(parts) != 2:
            raise BadInput(f'--os wants "<id> <version>", e.g. "ubuntu 22.04"; got {os_name!r}')
        os_id, os_version = parts[0].lower(), parts[1]
    works, lines = explain(load(), gpu, rocm, os_id, os_version, kernel)
    if wants_json(fmt, as_json):
        import json

        typer.echo(json.dumps({"schema": EXPLAIN_SCHEMA, "works": works, "explanation": lines}, indent=2))
    else:
        for line in lines:
            typer.echo(line)
    raise typer.Exit(0 if works else 1)


def update(
    index_url: Optional[str] = typer.Option(None, "--index-url", help=(
        "PEP 503/691 index root (…/whl); default: the pytorch channel's root in matrices/channels.toml.")),
    output: Optional[str] = typer.Option(None, "-o", "--output", help="Write the diff here (default: stdout)."),
    timeout: float = typer.Option(20.0, "--timeout", help="Seconds per HTTP request."),
    offline: bool = typer.Option(False, "--offline", help=(
        "No network: re-derive matrices/torch_builds.toml (gfx, ROCm and Python lists per torch release) "
        "from the pinned upstream excerpts in matrices/upstream/ and print the diff.")),
) -> None:
    """Fetch the torch/triton wheel tables from an index and write a reviewable diff of torch.toml.

    With --offline, re-derive the per-release build table from matrices/upstream/ instead."""
    import os
    from pathlib import Path

    from rocmdoctor.cli.options import seconds
    from rocmdoctor.errors import BadInput, OperationFailed
    from rocmdoctor.matrix.update import run_update

    seconds("--timeout", timeout)
    if output:  # fail before the fetch, not after it
        parent = Path(output).parent
        if Path(output).is_dir() or not parent.is_dir() or not os.access(parent, os.W_OK):
            raise BadInput(f"-o {output}: not a writable file path")
    if offline:
        from rocmdoctor.matrix.offline import run_offline

        diff, summary = run_offline()
    else:
        diff, summary = run_update(_pytorch_root() if index_url is None else index_url, timeout=timeout)
    typer.echo(summary, err=True)
    if output:
        try:
            from rocmdoctor import atomic

            atomic.write_text(output, diff)
        except OSError as exc:
            raise OperationFailed(f"cannot write {output}: {exc.strerror or exc}") from None
        typer.echo(f"diff written to {output} (review, then apply with `patch -p1 < {output}`)", err=True)
    else:
        typer.echo(diff, nl=False)


def _pytorch_root() -> str:
    """The index root `matrix update` scans by default: the pytorch channel of matrices/channels.toml."""
    from rocmdoctor.matrix import load

    return load().channels["pytorch"].root
