"""The command line as a user meets it: live check on this GPU-less machine, usage errors, version."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rocmdoctor", *args], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, NO_COLOR="1"), cwd=ROOT)


def test_live_check_without_amd_gpu_says_so_in_one_line_and_points_to_a_fixture():
    proc = cli("check")
    assert proc.returncode == 1
    lines = [ln for ln in proc.stdout.splitlines() if ln.strip()]
    assert len(lines) == 1, proc.stdout
    assert "No AMD GPU" in lines[0] and "rocmdoctor check --from fixtures/" in lines[0]
    fixture = lines[0].rsplit("--from ", 1)[1].strip()
    again = cli("check", "--from", fixture, "--json")
    assert json.loads(again.stdout)["schema"] == "rocmdoctor-report/1"


def test_live_check_json_reports_the_real_host():
    proc = cli("check", "--json")
    report = json.loads(proc.stdout)
    assert report["host"]["origin"] == "live"
    assert report["host"]["gpus"] == []
    assert report["host"]["kernel"] == os.uname().release
    findings = {f["id"]: f for f in report["findings"]}
    torch_version = (report["host"]["torch"] or {}).get("version")
    if torch_version:  # scripts/setup.sh installs the CPU torch: it must be called out as not a ROCm build
        assert findings["torch.not-rocm-build"]["severity"] == "fail"
        assert "CPU-only build" in findings["torch.not-rocm-build"]["title"]
    else:
        assert findings["torch.not-installed"]["severity"] == "warn"


def test_unknown_option_is_usage_error_not_traceback():
    proc = cli("check", "--bogus")
    assert proc.returncode == 2
    assert "No such option" in proc.stderr and "Traceback" not in proc.stderr


def test_version_and_help():
    assert cli("--version").stdout.startswith("rocmdoctor ")
    proc = cli("--help")
    assert proc.returncode == 0
    for cmd in ("check", "capture", "matrix", "install", "smoke", "container", "fleet"):
        assert cmd in proc.stdout


def test_check_live_merges_smoke_findings_and_never_pretends():
    proc = cli("check", "--live", "--json")
    assert proc.returncode == 1
    ids = {f["id"]: f["severity"] for f in json.loads(proc.stdout)["findings"]}
    assert ids.get("smoke.no-gpu") == "fail"  # no GPU here: nothing was verified, so it must not pass


def test_select_smoke_id_requires_live():
    assert cli("check", "--select", "smoke.no-gpu").returncode == 2
