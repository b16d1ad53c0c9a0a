"""The firmware rule over dmesg: the optional PSP trusted-application firmware is not a problem, a required
firmware that fails to load (and takes GPU init with it) is.

The lines are real. Optional: ROCm/legacy-rocm-build#912 (two Radeon VII, ROCm 2.9; AMD: "not a requirement for
basic ROCm functionality"), and amdgpu's psp_v11_0_init_microcode only logs a missing *_ta.bin with dev_info and
goes on. Required: geerlingguy/raspberry-pi-pcie-devices#331 (Radeon Pro WX2100, polaris12_mc.bin: sw_init of
gmc_v8_0 fails) and kernelci/kernelci-core#2238 (fixtures/field-psp-toc-firmware-missing-fatal-gpu-init).
"""

from __future__ import annotations

from pathlib import Path

from rocmdoctor.bundle import load_host
from rocmdoctor.diagnose import judge_host
from rocmdoctor.model import Severity
from rocmdoctor.parse.logs import scan

ROOT = Path(__file__).resolve().parent.parent

TA = """\
[    3.353884] amdgpu 0000:19:00.0: Direct firmware load for amdgpu/vega20_ta.bin failed with error -2
[    3.353886] amdgpu 0000:19:00.0: psp v11.0: Failed to load firmware "amdgpu/vega20_ta.bin"
"""
WX2100 = """\
[    4.825127] amdgpu 0000:01:00.0: Direct firmware load for amdgpu/polaris12_mc.bin failed with error -2
[    4.825152] amdgpu: mc: Failed to load firmware "amdgpu/polaris12_mc.bin"
[    4.825578] [drm:gmc_v8_0_sw_init [amdgpu]] *ERROR* Failed to load mc firmware!
[    4.825981] [drm:amdgpu_device_init [amdgpu]] *ERROR* sw_init of IP block <gmc_v8_0> failed -2
[    4.826015] amdgpu 0000:01:00.0: amdgpu: amdgpu_device_ip_init failed
[    4.826030] amdgpu 0000:01:00.0: amdgpu: Fatal error during GPU init
"""


def findings(tmp_path: Path, text: str) -> dict[str, set[Severity]]:
    p = tmp_path / "paste.txt"
    p.write_text(text)
    out: dict[str, set[Severity]] = {}
    for f in judge_host(load_host(p)):
        out.setdefault(f.id, set()).add(f.severity)
    return out


def test_optional_ta_firmware_is_not_a_firmware_failure():
    found = [m.finding_id for m in scan(TA, "paste.txt")]
    assert not [f for f in found if f.startswith(("log.firmware", "log.amdgpu"))], found


def test_optional_ta_firmware_alone_raises_nothing(tmp_path: Path):
    got = findings(tmp_path, TA)
    loud = {k: v for k, v in got.items() if v - {Severity.OK, Severity.SKIP}}
    assert "log.firmware-load-failed" not in loud and "driver.dmesg-errors" not in loud, loud
    assert "driver.firmware-missing" not in got


def test_required_firmware_failure_is_still_named(tmp_path: Path):
    scanned = {(m.finding_id, m.groups.get("fw")) for m in scan(WX2100, "paste.txt")}
    assert ("log.firmware-load-failed", "amdgpu/polaris12_mc.bin") in scanned
    got = findings(tmp_path, WX2100)
    assert got["driver.firmware-missing"] == {Severity.FAIL}
    assert Severity.FAIL in got["log.amdgpu-init-failed"]


def test_required_firmware_next_to_a_ta_line_is_still_named(tmp_path: Path):
    """The TA exception is by file name, not by line: a missing required file beside it still counts."""
    got = findings(tmp_path, TA + WX2100)
    assert got["driver.firmware-missing"] == {Severity.FAIL}


def test_psp_toc_field_paste_is_still_a_fail(tmp_path: Path):
    text = (ROOT / "fixtures" / "field-psp-toc-firmware-missing-fatal-gpu-init" / "paste.txt").read_text()
    assert findings(tmp_path, text)["driver.firmware-missing"] == {Severity.FAIL}
