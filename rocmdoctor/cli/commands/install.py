"""`rocmdoctor install torch`: thin typer wiring over :mod:`rocmdoctor.install.flow`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer

from rocmdoctor.cli.options import OutputFormat, format_option, wants_json, writable_file
from rocmdoctor.errors import BadInput


def _check_lock_path(lock: Optional[str]) -> None:
    """Exit 2 before minutes of resolving when --lock cannot be written (a directory, a missing parent, /proc).
    An empty value is left to :meth:`InstallRequest.validate` (``--lock: empty value``)."""
    if not lock or not lock.strip():
        return
    path = Path(lock)
    if lock.startswith("-") or path.is_dir():
        raise BadInput(f"--lock {lock!r}: expected a file path")
    writable_file("--lock", path)


def _confirm(question: str) -> bool:
    return typer.confirm(question, default=False, err=True)


def register(app: typer.Typer) -> None:
    """Add ``rocmdoctor install torch``."""
    group = typer.Typer(help="Install software for the AMD GPU (the right builds, safely).", no_args_is_help=True)

    @group.command("torch")
    def torch_cmd(
        packages: Optional[list[str]] = typer.Argument(
            None, help="Companions from the same build: torchvision torchaudio."),
        python: Optional[str] = typer.Option(None, "--python", metavar="PATH",
                                             help="Target interpreter (default: the active venv's, else this one)."),
        source: Optional[str] = typer.Option(None, "--from", metavar="BUNDLE",
                                             help="Plan for a captured host (implies --dry-run)."),
        python_version: Optional[str] = typer.Option(None, "--python-version", metavar="X.Y",
                                                     help="Plan for this Python version instead of the host's."),
        torch_spec: Optional[str] = typer.Option(None, "--torch", metavar="SPEC", help="2.5, ==2.5.1, >=2.4,<2.6"),
        rocm: Optional[str] = typer.Option(None, "--rocm", metavar="X.Y", help="Only builds for this ROCm."),
        channel: str = typer.Option("pytorch", "--channel", metavar="pytorch|amd|nightly|therock",
                                    help="Where the wheels come from: download.pytorch.org, AMD's repo.radeon.com, "
                                    "the nightly index, or AMD's TheRock multi-arch index (GPU chosen by "
                                    "torch[device-gfxNNNN] extras)."),
        installer: str = typer.Option("pip", "--installer", metavar="pip|uv", help="Which installer runs."),
        index_url: Optional[str] = typer.Option(None, "--index-url", metavar="URL",
                                                help="A mirror of the channel's index (--channel amd: of PyPI)."),
        find_links: Optional[str] = typer.Option(None, "--find-links", metavar="URL",
                                                 help="--channel amd: a mirror of AMD's repo.radeon.com directory."),
        dry_run: bool = typer.Option(False, "--dry-run", help="Print the plan; change nothing."),
        lock: Optional[str] = typer.Option(None, "--lock", metavar="FILE",
                                           help="Write a --require-hashes requirements file (and install from it)."),
        fmt: OutputFormat = format_option(),
        as_json: bool = typer.Option(False, "--json", help="The plan as JSON on stdout (rocmdoctor-plan/1)."),
        yes: bool = typer.Option(False, "--yes", "-y", help="Replace a CUDA/CPU torch without asking."),
    ) -> None:
        """Install the ROCm PyTorch build that fits this host's GPUs, driver and Python, verified and undoable.

        Exit codes: 0 installed (or planned), 1 refused or failed (environment restored), 2 bad input.
        """
        from rocmdoctor.install.flow import InstallRequest, run  # here: `check` and `--help` never load the installer

        request = InstallRequest(
            packages=tuple(packages or ()), python=python, source=source, python_version=python_version,
            torch_spec=torch_spec, rocm=rocm, channel=channel, installer=installer, index_url=index_url,
            find_links=find_links, dry_run=dry_run, lock=lock, as_json=wants_json(fmt, as_json), yes=yes,
            argv=tuple(sys.argv[1:]), confirm=_confirm,
        )
        request.validate()
        _check_lock_path(lock)
        raise typer.Exit(run(request))

    app.add_typer(group, name="install")
