"""The ``rocmdoctor`` command line: thin typer wiring; every command's logic lives in its own module.

Each ``rocmdoctor.cli.commands.<name>`` module exposes ``register(app)``; heavy imports happen inside the
command functions so that ``rocmdoctor --help`` and ``check --from`` start fast.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
from collections.abc import Iterable

import typer

from rocmdoctor import __version__
from rocmdoctor.errors import EXIT_RESOURCES, EXIT_USAGE, RocmdoctorError, report_internal_error

# Each top-level command and the module (rocmdoctor.cli.commands.<module>) that registers it, in the order the help
# lists them.
COMMAND_MODULES = {"check": "check", "capture": "capture", "matrix": "matrix", "install": "install",
                   "smoke": "smoke", "container": "container", "fleet": "fleet"}


def _version(value: bool) -> None:
    if value:
        typer.echo(f"rocmdoctor {__version__}")
        raise typer.Exit(0)


def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version."),
) -> None:
    """rocmdoctor: a doctor and installer for AMD GPU (ROCm) machines."""


def build_app(names: Iterable[str] = tuple(COMMAND_MODULES)) -> typer.Typer:
    """The root app with the named top-level commands registered.

    Why not always all of them: typer builds a click command from every registered function's signature on each
    run, and importing the command modules costs too; :func:`main` registers only the command a command line
    names (about 30 ms of a `check --from` on a slow machine), and everything when it names none."""
    root = typer.Typer(
        name="rocmdoctor",
        help="Find out why PyTorch cannot use your AMD GPU, and fix what can safely be fixed.",
        no_args_is_help=True,
        add_completion=True,  # --install-completion / --show-completion [bash|zsh|fish|powershell]
        pretty_exceptions_enable=False,
        context_settings={"help_option_names": ["-h", "--help"]},
    )
    root.callback()(_root)
    for name in dict.fromkeys(names):
        importlib.import_module(f"rocmdoctor.cli.commands.{COMMAND_MODULES[name]}").register(root)
    return root


def __getattr__(name: str) -> typer.Typer:
    """``app``: the whole command line, built on first use (tests and tools import it)."""
    if name == "app":
        whole = build_app()
        globals()["app"] = whole
        return whole
    raise AttributeError(name)


def _app_for(args: list[str]) -> typer.Typer:
    """Only the command ``args`` invoke; the whole app for anything else (help, completion, a typo)."""
    first = args[0] if args else ""
    if first in COMMAND_MODULES and not os.environ.get("_ROCMDOCTOR_COMPLETE"):
        return build_app([first])
    return build_app()


def _say_once(exc: Exception) -> None:
    """Click 8.2+ appends "Did you mean 'check'?" to an unknown command itself, and typer adds its own to
    the message: with both, the user reads the suggestion twice. Keep click's (older clicks have none)."""
    message = getattr(exc, "message", None)
    if getattr(exc, "possibilities", None) and isinstance(message, str):
        exc.message = re.sub(r"\s*Did you mean [^?]*\?$", "", message)  # type: ignore[attr-defined]


def main(argv: list[str] | None = None) -> int:
    """Entry point: maps our errors to exit 2/1, out of memory to 4, a bug to 3, each with one clear line and
    never a traceback (unless ROCMDOCTOR_DEBUG=1 or -v asks for it on a bug)."""
    for stream in (sys.stdout, sys.stderr):  # an ASCII-only terminal gets '?' for ✓/—, not a UnicodeEncodeError
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors="replace")
            except (ValueError, OSError):
                pass
    args = list(sys.argv[1:] if argv is None else argv)
    if "fleet" in args[:3]:
        from rocmdoctor.cli.commands import fleet

        args = fleet.legacy_argv(args)
    try:
        rv = _app_for(args)(args=args, prog_name="rocmdoctor", standalone_mode=False)  # also under `python -m`
    except RocmdoctorError as exc:
        typer.echo(f"rocmdoctor: error: {exc}", err=True)
        return exc.exit_code
    except typer.Exit as exc:
        return int(exc.exit_code or 0)
    except typer.Abort:
        typer.echo("rocmdoctor: aborted", err=True)
        return 130
    except KeyboardInterrupt:
        typer.echo("rocmdoctor: interrupted", err=True)
        return 130
    except MemoryError:
        typer.echo("rocmdoctor: error: out of memory (the input is larger than this machine can hold; "
                   "see the limits in rocmdoctor/limits.py)", err=True)
        return EXIT_RESOURCES
    except Exception as exc:  # click usage errors (typer vendors click: match by shape) and anything unexpected
        show, code = getattr(exc, "show", None), getattr(exc, "exit_code", None)
        if callable(show) and isinstance(code, int):
            _say_once(exc)
            show()
            return code if code else EXIT_USAGE
        if type(exc).__name__ == "Exit" and isinstance(code, int):
            return code
        return report_internal_error(exc, args)
    return rv if isinstance(rv, int) else 0


if __name__ == "__main__":
    sys.exit(main())
