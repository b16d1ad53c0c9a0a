"""Judging: the registry and the check modules (each registers its checks on import)."""

from __future__ import annotations

import importlib

CHECK_MODULES = ("system", "gpu", "rocm", "perm", "torch", "env", "logs", "container", "context", "health",
                 "secureboot", "live")
_loaded = False


def load_all() -> None:
    """Import every check module once; a module that is missing (optional area) is skipped."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    for name in CHECK_MODULES:
        try:
            importlib.import_module(f"rocmdoctor.judge.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"rocmdoctor.judge.{name}":
                raise
