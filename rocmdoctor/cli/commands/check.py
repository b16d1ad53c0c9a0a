"""`rocmdoctor check`: diagnose this host, a capture bundle, a fixture or one pasted file."""

from __future__ import annotations

from enum import Enum
from typing import Optional

import typer

from rocmdoctor.cli.options import quiet_option


class Format(str, Enum):
    text = "text"
    json = "json"
    markdown = "markdown"
    html = "html"


def _split(values: Optional[list[str]]) -> tuple[str, ...]:
    """``--select a,b --select c`` -> ("a", "b", "c")."""
    return tuple(v.strip() for item in values or [] for v in item.split(",") if v.strip())


def register(app: typer.Typer) -> None:
    @app.command("check")
    def check_cmd(
        source: Optional[str] = typer.Option(
            None, "--from", metavar="PATH",
            help="Judge a capture bundle (dir or .tar.gz), a fixture, or one pasted rocminfo/collect_env/log file."),
        fmt: Format = typer.Option(Format.text, "--format", "-f", help="Output format."),
        as_json: bool = typer.Option(False, "--json", help="Same as --format json."),
        output: Optional[str] = typer.Option(
            None, "-o", "--output", metavar="FILE",
            help="Write the report to FILE instead of stdout (e.g. --format html -o report.html)."),
        verbose: bool = typer.Option(False, "--verbose", "-v", help="Show passing checks, details and evidence."),
        list_checks: bool = typer.Option(False, "--list-checks", help="List every check id and exit."),
        select: Optional[list[str]] = typer.Option(None, "--select", help="Only these check ids (comma-separated)."),
        skip: Optional[list[str]] = typer.Option(None, "--skip", help="Skip these check ids (comma-separated)."),
        strict: bool = typer.Option(False, "--strict", help="Exit 1 on warnings too."),
        live: bool = typer.Option(False, "--live", help="Also run the level-1 GPU smoke tests (needs torch)."),
        python: Optional[str] = typer.Option(None, "--python", help="Target interpreter (default: this one)."),
        timeout: float = typer.Option(10.0, "--timeout", help="Per-command timeout of the live capture (s)."),
        ascii_only: bool = typer.Option(False, "--ascii", help="ASCII status boxes."),
        quiet: bool = quiet_option(),
    ) -> None:
        """Diagnose why PyTorch can't use the AMD GPU(s), and say how to fix it.

        Exit codes: 0 nothing failed, 1 a check failed, 2 usage error or unreadable input.
        """
        from rocmdoctor.cli.check_flow import CheckRequest, run_check
        from rocmdoctor.cli.options import seconds

        seconds("--timeout", timeout)
        request = CheckRequest(
            source=source, fmt="json" if as_json else fmt.value, verbose=verbose, list_checks=list_checks,
            select=_split(select), skip=_split(skip), strict=strict, live=live, python=python, timeout=timeout,
            ascii_only=ascii_only or None, quiet=quiet, output=output,
        )
        raise typer.Exit(run_check(request))
