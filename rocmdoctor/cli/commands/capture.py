"""`rocmdoctor capture`: write this host's bundle to a directory or a .tar.gz (logic in rocmdoctor.capture)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Optional

import typer

_BUNDLE_NAMES = ("manifest.json", "cmd", "root", "env.txt")


def _is_tar(out: str) -> bool:
    return out == "-" or out.endswith((".tar.gz", ".tgz"))


def _prepare(out: str) -> None:
    """Fail early (exit 2) when the destination cannot be written; never write into a foreign directory."""
    from rocmdoctor.errors import BadInput

    if out.startswith("-") and out != "-":
        raise BadInput(f"-o {out!r}: a destination may not start with '-' (write ./{out} instead)")
    if out == "-":
        import sys

        if sys.stdout is None:  # fd 1 closed: nowhere to write the archive
            raise BadInput("-o -: standard output is closed (write to a file with -o FILE.tar.gz)")
        if sys.stdout.isatty():
            raise BadInput("-o -: refusing to write a .tar.gz to a terminal (redirect stdout to a file)")
        return
    path = Path(out)
    if _is_tar(out):
        parent = path.parent if str(path.parent) else Path(".")
        if path.is_dir():
            raise BadInput(f"cannot write {out}: it is a directory")
        if not parent.is_dir() or not os.access(parent, os.W_OK):
            raise BadInput(f"cannot write {out}: {parent} is not a writable directory")
        return
    if path.exists() and not path.is_dir():
        raise BadInput(f"cannot write {out}: it exists and is not a directory")
    if path.is_dir():
        entries = set(os.listdir(path))
        if entries and "manifest.json" not in entries:
            raise BadInput(f"cannot write {out}: directory is not empty and holds no earlier capture")
        for name in _BUNDLE_NAMES:  # replace an earlier capture in place
            target = path / name
            if target.is_dir():
                shutil.rmtree(target, ignore_errors=True)
            elif target.exists():
                target.unlink()
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BadInput(f"cannot write {out}: {exc.strerror or exc}") from exc
    if not os.access(path, os.W_OK):
        raise BadInput(f"cannot write {out}: permission denied")


def register(app: typer.Typer) -> None:
    """Add ``rocmdoctor capture`` to the root app."""

    @app.command("capture")
    def capture_cmd(
        output: Optional[str] = typer.Option(
            None, "-o", "--output", help="Directory, FILE.tar.gz, or - for a tar.gz on stdout (required)."
        ),
        redact: bool = typer.Option(False, "--redact", help="Replace host name, user names, UUIDs, serials."),
        python: Optional[str] = typer.Option(None, "--python", help="Interpreter to probe (default: this one)."),
        timeout: float = typer.Option(10.0, "--timeout", min=0.1, help="Seconds allowed per command."),
        budget: Optional[float] = typer.Option(
            None, "--budget", min=0.1, help="Seconds for the whole capture (default 2*timeout+2)."
        ),
        collect_env: bool = typer.Option(
            False, "--collect-env", help="Also run PyTorch's collect_env (imports torch: slow)."
        ),
    ) -> None:
        """Record this host (files, tool outputs, torch probe) into a bundle for `check --from` or a bug report."""
        import sys

        from rocmdoctor import capture
        from rocmdoctor.errors import BadInput

        if not output:
            raise BadInput("give a destination: rocmdoctor capture -o DIR or -o FILE.tar.gz")
        from rocmdoctor.cli.options import seconds

        seconds("--timeout", timeout)
        seconds("--budget", budget)
        if python is not None:
            found = shutil.which(python) if os.sep not in python else python
            if not found or not os.path.isfile(found) or not os.access(found, os.X_OK):
                raise BadInput(f"--python {python!r}: no such executable interpreter")
            python = os.path.abspath(found)
        _prepare(output)
        write = capture.capture_to_tar if _is_tar(output) else capture.capture_to_dir
        try:
            manifest = write(output, python, redact, timeout, budget=budget, collect_env=collect_env)
        except OSError as exc:
            raise BadInput(f"cannot write {output}: {exc.strerror or exc}") from exc
        where = "stdout" if output == "-" else output
        print(f"rocmdoctor capture: {capture.summary(manifest)} -> {where}", file=sys.stderr)
        raise typer.Exit(0)
