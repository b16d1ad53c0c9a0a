"""Live GPU smoke tests: run ``rocmdoctor/programs/smoke_torch.py`` inside the target interpreter and judge the results.

A static check says the environment *should* work; only kernels that ran prove it. The package:

- :mod:`~rocmdoctor.smoke.options`: what a run is asked to do (:class:`SmokeOptions`) and its validation;
- :mod:`~rocmdoctor.smoke.runner`: starting and supervising one process per GPU, timeouts, the phases;
- :mod:`~rocmdoctor.smoke.judge`: records -> rows -> findings, measured values against the product's peak
  (:mod:`~rocmdoctor.smoke.faults` for the processes themselves, :mod:`~rocmdoctor.smoke.enumeration` for
  torch's view of the GPUs against the driver's, :mod:`~rocmdoctor.smoke.signatures` for known errors, with the
  same fixes as ``check``);
- :mod:`~rocmdoctor.smoke.catalog`: what each check proves and its fix (data);
- :mod:`~rocmdoctor.smoke.model`, :mod:`~rocmdoctor.smoke.report`, :mod:`~rocmdoctor.smoke.table`: the run's
  shape, its JSON and the table/HTML rows.

This ``__init__`` only re-exports the names other packages and the tests use.
"""

from __future__ import annotations

from typing import Any

from rocmdoctor.smoke.catalog import (
    CHECKS,
    DEFAULT_THRESHOLDS,
    FIXES,
    HANDLED_FATAL,
    PEAKS,
    PROCESS_IDS,
    THRESHOLD_KEYS_FROM_MATRIX,
    finding_ids,
)
from rocmdoctor.smoke.judge import _rows, judge, peaks_for, thresholds_from
from rocmdoctor.smoke.model import CheckRow, ProcessRun
from rocmdoctor.smoke.model import smoke_id as _smoke_id
from rocmdoctor.smoke.options import (
    DEFAULT_TIMEOUT,
    SmokeOptions,
    check_options,
    ensure_python3,
    parse_devices,
    resolve_python,
)
from rocmdoctor.smoke.report import SCHEMA, SmokeReport, measured_vs_peak, table_rows
from rocmdoctor.smoke.runner import (
    KILL_GRACE,
    PROGRAM,
    _describe,
    _free_port,
    _parse_line,
    _run_processes,
    collective_plan,
    drop_guessed,
    gpu_count_hint,
    live_findings,
    live_run,
    run_smoke,
)

__all__ = [
    "CHECKS", "DEFAULT_THRESHOLDS", "DEFAULT_TIMEOUT", "FIXES", "HANDLED_FATAL", "KILL_GRACE", "PEAKS",
    "PROCESS_IDS", "PROGRAM", "SCHEMA", "THRESHOLD_KEYS_FROM_MATRIX", "CheckRow", "ProcessRun", "SmokeOptions",
    "SmokeReport", "_describe", "_free_port", "_parse_line", "_rows", "_run_processes", "_smoke_id",
    "check_options", "collective_plan", "drop_guessed", "ensure_python3", "finding_ids", "gpu_count_hint",
    "judge", "live_findings", "live_run", "measured_vs_peak", "parse_devices", "peaks_for", "resolve_python",
    "run_smoke", "table_rows", "thresholds_from",
]


def __getattr__(name: str) -> Any:
    """Names computed from data on first use: ``FINDING_IDS`` (for ``check --select``: it includes the signature
    table) and ``PRODUCT_CUS`` (product -> compute units of the whole product, read from the matrix)."""
    if name == "FINDING_IDS":
        return finding_ids()
    if name == "PRODUCT_CUS":
        from rocmdoctor.matrix import load
        from rocmdoctor.matrix.peaks import product_compute_units

        return product_compute_units(load())
    raise AttributeError(name)
