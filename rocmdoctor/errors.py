"""Errors that the CLI turns into a clear message and a documented exit code, never a traceback."""

from __future__ import annotations

EXIT_OK = 0
EXIT_PROBLEMS = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3  # a bug: an unexpected exception (reported with its type, never a traceback)
EXIT_RESOURCES = 4  # out of memory: the input or the machine is too large for what was asked


class RocmdoctorError(Exception):
    """Base: carries the exit code the CLI should use."""

    exit_code = EXIT_USAGE


class BadInput(RocmdoctorError):
    """Unreadable bundle, garbage file, unknown check id, bad option value: exit 2."""

    exit_code = EXIT_USAGE


class OperationFailed(RocmdoctorError):
    """An install, a container build or a remote step failed (the environment was restored): exit 1."""

    exit_code = EXIT_PROBLEMS


def debug_wanted(argv: list[str]) -> bool:
    """Tracebacks are for whoever debugs: ``ROCMDOCTOR_DEBUG=1`` or ``-v``/``--verbose`` on the command line."""
    import os

    flag = os.environ.get("ROCMDOCTOR_DEBUG", "").strip().lower()
    return flag not in {"", "0", "no", "false"} or any(a in {"-v", "--verbose"} for a in argv)


def report_internal_error(exc: BaseException, argv: list[str]) -> int:
    """A bug reached the top (any exception we did not map, a broken import of our own package included):
    one line saying what, one saying where to report it, and exit 3, never "healthy" and never a traceback
    unless asked for (:func:`debug_wanted`). Standard library only: it must work when the rest cannot import.
    """
    import sys

    from rocmdoctor import __version__

    if debug_wanted(argv):
        import traceback

        traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)
    reason = " ".join(str(exc).split()) or "(no message)"
    print(f"rocmdoctor: internal error: {type(exc).__name__}: {reason}", file=sys.stderr)
    print(f"This is a bug in rocmdoctor {__version__}: please report it on the rocmdoctor issue tracker with the "
          "command you ran, this message and the output of `rocmdoctor --version` "
          "(ROCMDOCTOR_DEBUG=1 or -v shows the traceback).", file=sys.stderr)
    return EXIT_INTERNAL
