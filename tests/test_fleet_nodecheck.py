"""`rocmdoctor fleet node-check` as a Slurm HealthCheckProgram/NHC check and an NPD custom plugin.

The Slurm wrapper and the NPD plugin config are taken verbatim from docs/fleet.md and run here; only
`scontrol` is a recording stub (no Slurm controller can run in this sandbox).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from rocmdoctor.fleet.healthcheck import verdict
from rocmdoctor.model import Finding, Severity

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "fleet.md"
HEALTHY = ROOT / "fixtures" / "derived-healthy-mi210-x4-rocm6.2.2"
BROKEN = ROOT / "fixtures" / "rx7900xtx-dkms-build-fails-kernel-6.5"

needs_fixtures = pytest.mark.skipif(not (HEALTHY.is_dir() and BROKEN.is_dir()), reason="fixtures not present")


def _block(marker: str) -> str:
    text = DOC.read_text()
    after = text.split(f"<!-- {marker} -->", 1)[1]
    m = re.search(r"```\w*\n(.*?)```", after, re.S)
    assert m, marker
    return m.group(1)


def _bin(tmp: Path) -> Path:
    """A PATH dir with `rocmdoctor` (this checkout) and a recording `scontrol` stub."""
    b = tmp / "bin"
    b.mkdir()
    rd = b / "rocmdoctor"
    rd.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m rocmdoctor "$@"\n')
    sc = b / "scontrol"
    sc.write_text('#!/bin/sh\nif [ "$1" = show ]; then printf "NodeName=%s State=IDLE\\n   Reason=%s [root@t]\\n" '
                  '"$3" "$(cat "$SC_REASON" 2>/dev/null)"; exit 0; fi\n'
                  'printf "%s\\n" "$*" >> "$SC_LOG"\n')
    for p in (rd, sc):
        p.chmod(0o755)
    return b


def test_verdict_lines():
    ok = [Finding(id="a.b", severity=Severity.OK, title="fine")]
    assert verdict(ok) == (0, "rocmdoctor: ok")
    warn = [Finding(id="a.w", severity=Severity.WARN, title="meh")]
    assert verdict(warn) == (0, "rocmdoctor: ok (1 warning)")
    assert verdict(warn, strict=True)[0] == 1
    bad = [Finding(id="torch.arch-missing", severity=Severity.FAIL, title="x " * 100),
           Finding(id="e.e", severity=Severity.ERROR, title="crashed")]
    code, line = verdict(bad, max_len=80)
    assert code == 1 and len(line) <= 80 and line.startswith("rocmdoctor: error e.e")
    assert line.endswith("(+1 more)")


@needs_fixtures
@pytest.mark.parametrize(("fixture", "code"), [(HEALTHY, 0), (BROKEN, 1)])
def test_node_check_exit_and_one_line(fixture, code):
    r = subprocess.run([sys.executable, "-m", "rocmdoctor", "fleet", "node-check", "--from", str(fixture)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == code, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == 1 and len(lines[0]) <= 80 and lines[0].startswith("rocmdoctor: ")
    assert ("fail" in lines[0]) == (code == 1)


def test_node_check_unreadable_input_is_unknown_for_npd(tmp_path):
    r = subprocess.run([sys.executable, "-m", "rocmdoctor", "fleet", "node-check", "--from",
                        str(tmp_path / "missing")], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and r.stdout == "" and "Traceback" not in r.stderr


@needs_fixtures
def test_slurm_wrapper_drains_and_resumes_only_its_own(tmp_path):
    script = tmp_path / "rocmdoctor-healthcheck"
    script.write_text(_block("slurm-healthcheck"))
    script.chmod(0o755)
    b = _bin(tmp_path)
    log, reason = tmp_path / "scontrol.log", tmp_path / "reason"
    env = dict(os.environ, PATH=f"{b}:{os.environ['PATH']}", SC_LOG=str(log), SC_REASON=str(reason))

    def run(fixture: Path, current_reason: str) -> list[str]:
        reason.write_text(current_reason)
        log.unlink(missing_ok=True)
        r = subprocess.run(["/bin/sh", str(script)], env={**env, "ROCMDOCTOR_NODECHECK_ARGS": f"--from {fixture}"},
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        return log.read_text().splitlines() if log.exists() else []

    calls = run(BROKEN, "")
    assert len(calls) == 1 and "State=DRAIN" in calls[0] and "Reason=rocmdoctor: fail driver.dkms-failed" in calls[0]
    node = os.uname().nodename.split(".")[0]
    assert run(HEALTHY, "rocmdoctor: fail driver.dkms-failed: x") == [f"update NodeName={node} State=RESUME"]
    assert run(HEALTHY, "admin: bad DIMM") == []  # someone else's drain is left alone


@needs_fixtures
def test_npd_plugin_config_runs_as_npd_would(tmp_path):
    cfg = json.loads(_block("npd-config"))
    assert cfg["plugin"] == "custom"
    limit = cfg["pluginConfig"]["max_output_length"]
    rule = cfg["rules"][0]
    assert rule["condition"] == cfg["conditions"][0]["type"]
    b = _bin(tmp_path)
    for fixture, want in ((HEALTHY, 0), (BROKEN, 1)):
        argv = [str(b / "rocmdoctor"), *rule["args"], "--from", str(fixture)]
        r = subprocess.run(argv, capture_output=True, text=True, timeout=60)
        assert r.returncode == want  # NPD: 0 OK, 1 NonOK
        assert len(r.stdout.strip()) <= limit and "\n" not in r.stdout.strip()
