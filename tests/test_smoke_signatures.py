"""`smoke` and `check` give the same fix for the same known error (issue 15: they used to differ).

The check side is the real command (`rocmdoctor check --from <pasted text> --json` in a subprocess); the smoke
side judges a program run whose stderr, or whose failed check, carries the same line.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rocmdoctor import matrix as matrix_mod
from rocmdoctor.model import Severity
from rocmdoctor.smoke import ProcessRun, SmokeOptions, SmokeReport, judge

# Error lines as the HIP/CUDA runtimes print them (the messages the signature table's sources quote).
LINES = {
    "log.invalid-device-function": "RuntimeError: HIP error: invalid device function",
    "log.no-binary-for-gpu": "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!",
    "log.no-binary-for-gpu/cuda": "RuntimeError: CUDA error: no kernel image is available for execution on the device",
}


def _check_fix(tmp_path: Path, line: str, finding_id: str) -> dict:
    paste = tmp_path / "paste.txt"
    paste.write_text(f"Traceback (most recent call last):\n{line}\n")
    proc = subprocess.run([sys.executable, "-m", "rocmdoctor", "check", "--from", str(paste), "--json"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    found = {f["id"]: f for f in json.loads(proc.stdout)["findings"]}
    assert found[finding_id]["fix"], found[finding_id]
    return found[finding_id]["fix"]


def _smoke(run: ProcessRun) -> dict:
    report = SmokeReport(options=SmokeOptions(python="python3"), devices=[run])
    return {f.id: f for f in judge(report, None, matrix_mod.load())}


@pytest.mark.parametrize("key", sorted(LINES))
def test_a_known_error_on_stderr_has_checks_fix(tmp_path: Path, key: str) -> None:
    line, finding_id = LINES[key], key.split("/")[0]
    want = _check_fix(tmp_path, line, finding_id)
    run = ProcessRun("cuda:0", "device", ["python3"], index=0, exit_code=-6, stderr=f"{line}\n")
    f = _smoke(run)["smoke." + finding_id.split(".", 1)[1]]
    assert f.severity == Severity.FAIL and f.fix is not None
    assert f.fix.explanation == want["explanation"] and f.fix.url == want["url"]
    # no-binary-for-gpu puts the override/install commands for this GPU first; check's follow unchanged
    assert f.fix.commands[len(f.fix.commands) - len(want["commands"]):] == want["commands"]


@pytest.mark.parametrize("key", sorted(LINES))
def test_a_check_failing_with_a_known_error_points_at_checks_fix(tmp_path: Path, key: str) -> None:
    line, finding_id = LINES[key], key.split("/")[0]
    want = _check_fix(tmp_path, line, finding_id)
    cause = "smoke." + finding_id.split(".", 1)[1]
    run = ProcessRun("cuda:0", "device", ["python3"], index=0, exit_code=0, records=[
        {"type": "start"}, {"type": "result", "check": "gemm:fp32", "status": "fail", "detail": line},
        {"type": "done"}])
    gemm = _smoke(run)["smoke.gemm-mismatch"]
    assert gemm.fix is not None and gemm.fix.explanation == f"See {cause}: {want['explanation']}"
    assert gemm.fix.commands == want["commands"]
