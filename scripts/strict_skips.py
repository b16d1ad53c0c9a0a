"""A pytest plugin for `.ci/run` (scripts/test.sh loads it with ``-p strict_skips``): a skip that would leave a
whole area unverified fails the run instead of hiding in the summary.

Why: scripts/test.sh already refuses to start when a prerequisite is missing (Docker daemon, sshd, the CPU
torch, ../shared), but a test can still skip at run time for the same reason (the daemon went away, the
Python client cannot reach it, a capture file is gone), and a parametrized test over an empty glob is
reported as one quiet skip. Here such a skip is a failure, unless that prerequisite was let off with
``ROCMDOCTOR_ALLOW_MISSING`` (names, comma-separated, or ``all``; see scripts/test.sh):

* a reason naming one of the four prerequisites (patterns below);
* ``got empty parameter set`` (pytest's skip for a parametrization over nothing): the inputs are fixtures or
  ../shared captures, so it is let off only with ``shared``;
* a bundled fixture reported missing, a test dependency that cannot be imported (``importorskip``), or a tool
  the [test] extra installs (uv, hadolint, shellcheck) not found: the repository and the [test] extra always
  have them, so these are never let off.

Any other skip (a Python 3.6 interpreter this machine lacks, running as root) stays a skip.
"""

from __future__ import annotations

import os
import re
from typing import Optional

import pytest

#: prerequisite -> what a skip reason for its absence says
PREREQUISITES = {
    "docker": re.compile(r"docker daemon", re.I),
    "sshd": re.compile(r"\bsshd\b|openssh-server", re.I),
    "torch": re.compile(r"CPU torch|torch [\d.]+ CPU wheel", re.I),
    "shared": re.compile(r"\.\./shared|shared captures|captures? (\S+ )?(not available|absent)|got empty parameter set",
                         re.I),
}
NEVER_ALLOWED = re.compile(r"fixtures? (not present|missing)|\bno ([\w-]+ )?fixture\b|could not import|no module named"
                           r"|\b(uv|hadolint|shellcheck) (is )?not installed", re.I)


def allowed_missing() -> set[str]:
    return {n.strip() for n in os.environ.get("ROCMDOCTOR_ALLOW_MISSING", "").split(",") if n.strip()}


def verdict(reason: str, allowed: set[str]) -> Optional[str]:
    """Why this skip must fail the run, or None when it may stay a skip."""
    if NEVER_ALLOWED.search(reason):
        return "its input is part of the repository or of the [test] extra"
    if "all" in allowed:
        return None
    for name, pattern in PREREQUISITES.items():
        if pattern.search(reason) and name not in allowed:
            return f"prerequisite '{name}' is missing (ROCMDOCTOR_ALLOW_MISSING={name} lets it off)"
    return None


def _reason(report: pytest.TestReport | pytest.CollectReport) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2])
    return str(longrepr)


def _harden(report: pytest.TestReport | pytest.CollectReport) -> None:
    if not report.skipped or hasattr(report, "wasxfail"):
        return
    reason = _reason(report)
    why = verdict(reason, allowed_missing())
    if why is not None:
        report.outcome = "failed"
        report.longrepr = f"skipped under .ci/run, which does not allow it: {why}\n  {reason}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):  # type: ignore[no-untyped-def]
    outcome = yield
    _harden(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):  # type: ignore[no-untyped-def]
    outcome = yield
    _harden(outcome.get_result())
