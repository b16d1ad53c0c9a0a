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
