"""rocm-smi as a health source: ``rocm-smi --showrasinfo all`` (cmd/rocm-smi-rasinfo.txt) feeds the ECC and
XGMI checks where amd-smi and sysfs said nothing.

The one real output is tests/data/health/rocm-smi-showrasinfo-mi50.txt (SOURCE.md: a healthy 4x MI50 host);
every other input is derived from it, each derivation spelled out in DERIVED. The expected verdicts follow from
what the counters mean (rocm_smi.py showRasInfo prints rsmi_dev_ecc_count_get's counts, i.e. the kernel's
``ras/<block>_err_count``), never from the tool's output.
"""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from rocmdoctor.bundle import load_host
from rocmdoctor.diagnose import judge_host
from rocmdoctor.parse import health as parse_health
from rocmdoctor.parse.smi import parse_rocm_smi_ras
from tests.parse_helpers import write_bundle

DATA = Path(__file__).resolve().parent / "data" / "health"
REAL = "rocm-smi-showrasinfo-mi50.txt"
RSMI = "cmd/rocm-smi-rasinfo.txt"
HEALTH_IDS = ["health.ecc-uncorrectable", "health.bad-pages", "health.xgmi-link", "health.throttling",
              "health.gpu-reset", "gpu.pcie-speed"]
HEADER = "         Block       Status    Correctable Error  Uncorrectable Error  "
# ROCm 3.9-5.4 rocm_smi.py (rocm_smi_lib before 248c6f7): headings in the swapped order, values still CE, UE
OLD_HEADER = "         Block       Status    uncorrectable err  correctable err  "
COUNTED = ("UMC", "SDMA", "GFX", "MMHUB", "PCIE_BIF", "HDP")  # the real table's rows that carry counts


def row(block: str, state: str = "ENABLED", a: object = None, b: object = None, widths: tuple = (17, 19)) -> str:
    """A table row as printTableLog prints it: each cell right-aligned to its heading's width, two-space
    delimiter after every cell (rocm_smi.py); no counts when rsmi_dev_ecc_count_get did not answer."""
    cells = [f"{block:>14}", f"{state:>13}"] + ([f"{a:>{widths[0]}}", f"{b:>{widths[1]}}"] if a is not None else [])
    return "".join(c + "  " for c in cells)


# Every derived input: the real file with these (old line, new line) replacements, in order
DERIVED = {
    "umc-ue": [(row("UMC", a=0, b=0), row("UMC", a=0, b=2))],
    "umc-ce-many": [(row("UMC", a=0, b=0), row("UMC", a=5000, b=0))],
    "sdma-ue-and-ce": [(row("SDMA", a=0, b=0), row("SDMA", a=7, b=1))],
    "xgmi-ue": [(row("XGMI_WAFL", "DISABLED"), row("XGMI_WAFL", a=0, b=1))],
    "xgmi-ok": [(row("XGMI_WAFL", "DISABLED"), row("XGMI_WAFL", a=0, b=0))],
    "two-gpus-second-ue": [("_" * 84, "_" * 84 + "\n\nGPU[1]:         RAS INFO\n" + HEADER + "\n"
                            + row("UMC", a=0, b=1) + "\n" + "_" * 84)],
    # the old shape: the old headings, every counted row re-rendered to the old widths (17, 15)
    "old-header-zeros": [(HEADER, OLD_HEADER)] + [(row(b, a=0, b=0), row(b, a=0, b=0, widths=(17, 15)))
                                                  for b in COUNTED],
    "old-header-nonzero": [(HEADER, OLD_HEADER)] + [(row(b, a=0, b=0), row(b, a=3 if b == "UMC" else 0, b=0,
                                                                           widths=(17, 15))) for b in COUNTED],
    "unknown-header": [(HEADER, "         Block       Status    Errors A           Errors B             ")],
}

def derived(name: str) -> str:
    text = (DATA / REAL).read_text()
    for old, new in DERIVED[name]:
        assert old in text, (name, old)
        text = text.replace(old, new, 1)
    return text


def _write(tmp: Path, files: dict[str, str]) -> Path:
    manifest = json.dumps({"format": "rocmdoctor-capture/1", "hostname": "h"})
    return write_bundle(tmp, {**files, "manifest.json": manifest})


def judged(tmp: Path, files: dict[str, str]) -> dict[str, tuple[str, str]]:
    return {f.id: (f.severity.value, f.title) for f in judge_host(load_host(_write(tmp, files)), select=HEALTH_IDS)}


# ------------------------------------------------------------------------------------------- real output
def test_parse_real_mi50_table():
    (h,) = parse_rocm_smi_ras((DATA / REAL).read_text())
    assert h.gpu == "GPU[0]"
    # UMC, SDMA, GFX, MMHUB, PCIE_BIF, HDP have counts; ATHUB, DF, SMN, ... only a state
    assert h.ecc_uncorrectable.value == 0 and h.ecc_correctable.value == 0
    assert "6 blocks" in h.ecc_uncorrectable.source.text
    assert h.xgmi_errors is None  # XGMI_WAFL DISABLED, no count: not captured


def test_real_healthy_rocm_smi_is_not_a_problem(tmp_path):
    got = judged(tmp_path, {RSMI: (DATA / REAL).read_text()})
    assert got["health.ecc-uncorrectable"][0] == "ok"
    assert "health.xgmi-link" not in got or got["health.xgmi-link"][0] == "skip"
    assert not [k for k, (sev, _t) in got.items() if sev == "fail"]


def test_the_prompt_line_of_a_paste_is_ignored():
    text = "$ sudo rocm-smi --showrasinfo\n" + (DATA / REAL).read_text()
    assert parse_rocm_smi_ras(text)[0].ecc_uncorrectable.value == 0


# ------------------------------------------------------------------------------- each check, rocm-smi alone
def test_uncorrectable_from_rocm_smi_alone_fails(tmp_path):
    sev, title = judged(tmp_path, {RSMI: derived("umc-ue")})["health.ecc-uncorrectable"]
    assert sev == "fail" and "GPU[0]: 2" in title


def test_many_correctable_from_rocm_smi_alone_warn(tmp_path):
    sev, title = judged(tmp_path, {RSMI: derived("umc-ce-many")})["health.ecc-uncorrectable"]
    assert sev == "warn" and "correctable" in title and "GPU[0]: 5000" in title


def test_columns_follow_the_header_not_the_position():
    (h,) = parse_rocm_smi_ras(derived("sdma-ue-and-ce"))
    assert h.ecc_correctable.value == 7 and h.ecc_uncorrectable.value == 1
    assert h.ecc_uncorrectable.source.text == "SDMA ue: 1" and h.ecc_uncorrectable.source.line is not None


def test_xgmi_wafl_from_rocm_smi_alone(tmp_path):
    got = judged(tmp_path / "a", {RSMI: derived("xgmi-ue")})
    assert got["health.xgmi-link"][0] == "fail" and got["health.ecc-uncorrectable"][0] == "ok"
    assert judged(tmp_path / "b", {RSMI: derived("xgmi-ok")})["health.xgmi-link"][0] == "ok"


def test_second_gpu_is_named(tmp_path):
    sev, title = judged(tmp_path, {RSMI: derived("two-gpus-second-ue")})["health.ecc-uncorrectable"]
    assert sev == "fail" and "GPU[1]: 1" in title and "GPU[0]" not in title


def test_a_table_printed_twice_is_not_counted_twice():
    (h,) = parse_rocm_smi_ras(derived("umc-ue") + derived("umc-ue"))
    assert h.ecc_uncorrectable.value == 2


# ------------------------------------------------------------------------ the swapped-header rocm_smi.py
def test_swapped_header_all_zero_is_read():
    (h,) = parse_rocm_smi_ras(derived("old-header-zeros"))
    assert h.ecc_uncorrectable.value == 0 and h.ecc_correctable.value == 0


def test_swapped_header_with_a_count_is_not_guessed(tmp_path):
    assert parse_rocm_smi_ras(derived("old-header-nonzero")) == []
    card = "root/sys/class/drm/card0/device"  # a GPU the host sees (MI50, Vega 20: 0x66a1), no other RAS source
    got = judged(tmp_path, {RSMI: derived("old-header-nonzero"), f"{card}/vendor": "0x1002\n",
                            f"{card}/device": "0x66a1\n"})
    assert got["health.ecc-uncorrectable"][0] == "skip"  # unknown order = not captured, never healthy


def test_unknown_header_gives_nothing():
    assert parse_rocm_smi_ras(derived("unknown-header")) == []


# ------------------------------------------------------------------------------------------ precedence
def test_sysfs_counts_win_over_rocm_smi(tmp_path):
    card = "root/sys/class/drm/card0/device"
    files = {f"{card}/ras/umc_err_count": "ue: 0\nce: 0\n", RSMI: derived("umc-ue")}
    host = load_host(_write(tmp_path, files))
    assert [h.gpu for h in host.health] == ["card0"]  # the same counters, not counted twice


def test_amd_smi_counts_win_over_rocm_smi_but_xgmi_falls_back(tmp_path):
    files = {"cmd/amd-smi-metric.json": (DATA / "amd-smi-metric-rx6600.json").read_text(), RSMI: derived("xgmi-ue")}
    got = judged(tmp_path, files)
    assert got["health.ecc-uncorrectable"][0] == "ok"  # amd-smi's ECC totals are the ones judged
    sev, title = got["health.xgmi-link"]  # amd-smi's xgmi_err is N/A there: rocm-smi's XGMI_WAFL row tells
    assert sev == "fail" and "GPU[0]" in title


def test_fallback_keeps_only_what_is_missing():
    (rs,) = parse_rocm_smi_ras(derived("xgmi-ue"))
    assert parse_health.rocm_smi_fallback([], [rs]) == [rs]
    (sysfs,) = parse_health.from_bundle(["root/sys/class/drm/card0/device/ras/xgmi_wafl_err_count"],
                                        lambda _n: "ue: 0\nce: 0\n")
    assert parse_health.rocm_smi_fallback([sysfs], parse_rocm_smi_ras(derived("xgmi-ue")))[0].xgmi_errors is None


def test_capture_runs_showrasinfo_all():
    from rocmdoctor import capture

    spec = {s.name: s for s in capture.command_specs("python3")}["rocm-smi-rasinfo"]
    assert spec.argv == ["rocm-smi", "--showrasinfo", "all"] and spec.file == RSMI
    assert "rocm-smi-rasinfo" not in capture.QUICK_SKIP  # health is judged on quick captures too


# ---------------------------------------------------------------------------------------------- fuzzing
ROW = st.builds(lambda b, s, a, c: row(b, s, a, c),
                st.sampled_from(["UMC", "SDMA", "GFX", "XGMI_WAFL", "HDP", "X"]),
                st.sampled_from(["ENABLED", "DISABLED", "UNKNOWN ERROR", "NONE"]),
                st.integers(0, 10**19), st.integers(0, 10**19))


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=2000) | st.lists(st.one_of(ROW, st.sampled_from([HEADER, OLD_HEADER, "GPU[3]: \tRAS INFO",
                                                                          "_" * 84, ""]), st.text(max_size=40)),
                                         max_size=40).map("\n".join))
def test_ras_parser_never_raises_and_counts_are_sane(text):
    for h in parse_rocm_smi_ras(text):
        assert h.gpu.startswith("GPU[")
        for f in (h.ecc_uncorrectable, h.ecc_correctable):
            assert f is None or (isinstance(f.value, int) and f.value >= 0)
        assert h.xgmi_errors is None or h.xgmi_errors.value in ("no errors", "error")
