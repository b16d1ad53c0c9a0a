"""Plain, honest words: not captured is not absent, counts agree with their nouns, a fix is an action.

Each case comes from a first-five-minutes report (issue 14): "no AMD GPU seen" on a fixture of a host that
has one, "[✓] GPUs" on a GPU-less bundle, "1 area(s)", "1 hosts", `$ uname -r` under "Fix:".
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from rocmdoctor.cli.app import main
from rocmdoctor.model import Finding, Severity
from rocmdoctor.report.render import summary_line
from rocmdoctor.words import plural

REPO = Path(__file__).resolve().parent.parent
FIXTURES = sorted(p for p in (REPO / "fixtures").iterdir() if (p / "expected.json").is_file())
# Commands that only print a fact the capture already holds: never a fix.
LOOKUPS = {"uname -r", "uname -a", "cat /etc/os-release", "lsb_release -a", "python --version",
           "python3 --version", "hostname"}


def _run(capsys, *argv: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main(list(argv))
    return code, capsys.readouterr().out


def test_plural():
    assert [plural(n, "area") for n in (0, 1, 2)] == ["0 areas", "1 area", "2 areas"]
    assert plural(1, "GPU runs", "GPUs run") == "1 GPU runs" and plural(3, "GPU runs", "GPUs run") == "3 GPUs run"


def test_summary_line_counts_in_words():
    fail = Finding("driver.dkms-failed", Severity.FAIL, "x")
    warn = Finding("gpu.override-mismatch", Severity.WARN, "y")
    # problems are counted by root cause (issue 12), findings in words (never "1 area(s)", "1 findings")
    assert summary_line([fail]) == "! rocmdoctor found 1 problem (1 finding: 1 failed)."
    assert summary_line([fail, warn]) == "! rocmdoctor found 2 problems (2 findings: 1 failed, 1 warning)."
    assert "(1 check passed" in summary_line([Finding("os.not-supported", Severity.OK, "z")])


def test_header_says_not_captured_when_no_gpu_source_was_captured(capsys):
    # The RX 7900 XTX host of ROCm/ROCm#2886: only its install log and uname were captured.
    code, out = _run(capsys, "check", "--from", str(REPO / "fixtures" / "rx7900xtx-dkms-build-fails-kernel-6.5"))
    assert code == 1
    header = out.splitlines()[0]
    assert header.endswith("GPUs not captured  (details: -v)") and "no AMD GPU" not in header


def test_gpu_less_bundle_never_shows_a_passing_gpu_area(capsys, tmp_path):
    # A real fixture with its GPU sources removed: a host whose GPUs were not captured at all.
    src = REPO / "fixtures" / "derived-healthy-rx7900xtx-rocm6.2.2"
    bundle = tmp_path / "bundle"
    shutil.copytree(src, bundle)
    for p in bundle.rglob("*"):
        if p.is_file() and any(k in p.name for k in ("rocminfo", "rocm-smi", "amd-smi", "lspci", "agent")):
            p.unlink()
    for d in ("root/sys/class/drm", "root/sys/class/kfd", "root/sys/devices/virtual/kfd"):
        shutil.rmtree(bundle / d, ignore_errors=True)
    _, doc_text = _run(capsys, "check", "--from", str(bundle), "--json")
    doc = json.loads(doc_text)
    if doc["host"]["gpus"]:
        pytest.skip("the bundle still names a GPU through a source this test does not remove")
    _, out = _run(capsys, "check", "--from", str(bundle))
    gpu_line = next(line for line in out.splitlines() if " GPUs" in line and line.startswith("["))
    assert not gpu_line.startswith(("[✓]", "[OK]")), gpu_line
    assert "no AMD GPU" not in out.splitlines()[0] or "found" in out.splitlines()[0]


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda p: p.name)
def test_no_fix_is_only_a_look_up(capsys, fixture):
    code, out = _run(capsys, "check", "--from", str(fixture), "--json")
    if code == 2:  # a field paste with nothing to judge: no document, no fix at all (tests/test_schemas.py)
        assert fixture.name.startswith("field-") and out == ""
        return
    for f in json.loads(out)["findings"]:
        for cmd in (f["fix"] or {}).get("commands", []):
            assert cmd.strip() not in LOOKUPS, (f["id"], cmd)
    _, text = _run(capsys, "check", "--from", str(fixture))
    assert "(s)" not in text and " 1 areas" not in text and " 1 checks" not in text
