"""Node-health checks (health.*, gpu.pcie-speed) on real outputs from public threads (tests/data/health,
SOURCE.md) and on variants derived from them (each derivation is written out in DERIVED below).

Expectations come from what each thread established (a failed reset left the GPU dead, a recovered one
did not), never from the tool's output. Healthy inputs are cases too: a false fail is a bug.
"""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from rocmdoctor.bundle import load_host
from rocmdoctor.diagnose import judge_host
from rocmdoctor.parse import health as parse_health

DATA = Path(__file__).resolve().parent / "data" / "health"
HEALTH_IDS = ["health.ecc-uncorrectable", "health.bad-pages", "health.xgmi-link", "health.throttling",
              "health.gpu-reset", "gpu.pcie-speed"]

# Every derived input, spelled out: (base file, steps) -> what the variant is
DERIVED = {
    "ecc-ue": ("amd-smi-metric-rx6600.json", [('"total_uncorrectable_count": 0', '"total_uncorrectable_count": 2')]),
    "cache-ue": ("amd-smi-metric-rx6600.json",
                 [('"cache_uncorrectable_count": "N/A"', '"cache_uncorrectable_count": 1')]),
    "ecc-de": ("amd-smi-metric-rx6600.json", [('"total_deferred_count": 0', '"total_deferred_count": 3')]),
    "throttled": ("amd-smi-metric-rx6600.json", [('"UNTHROTTLED"', '"THROTTLED"')]),
    # the enum names amd-smi prints (amdsmi_cli: amdsmi_xgmi_status_t__enumvalues[status])
    "xgmi": ("amd-smi-metric-rx6600.json", [('"xgmi_err": "N/A"', '"xgmi_err": "AMDSMI_XGMI_STATUS_MULTIPLE_ERRORS"')]),
    "xgmi-ok": ("amd-smi-metric-rx6600.json", [('"xgmi_err": "N/A"', '"xgmi_err": "AMDSMI_XGMI_STATUS_NO_ERRORS"')]),
}


def derived(name: str) -> str:
    base, steps = DERIVED[name]
    text = (DATA / base).read_text()
    for old, new in steps:
        assert old in text, (name, old)
        text = text.replace(old, new)
    return text


def bundle(tmp: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        p = tmp / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    (tmp / "manifest.json").write_text(json.dumps({"format": "rocmdoctor-capture/1", "hostname": "h"}))
    return tmp


def judged(tmp: Path, files: dict[str, str]) -> dict[str, tuple[str, str]]:
    host = load_host(bundle(tmp, files))
    return {f.id: (f.severity.value, f.title) for f in judge_host(host, select=HEALTH_IDS)}


# ------------------------------------------------------------------------------------------- amd-smi
def test_real_healthy_amd_smi_metric_is_not_a_problem(tmp_path):
    got = judged(tmp_path, {"cmd/amd-smi-metric.json": (DATA / "amd-smi-metric-rx6600.json").read_text()})
    assert got["health.ecc-uncorrectable"][0] == "ok"
    assert got["health.throttling"][0] == "ok"
    assert "health.xgmi-link" not in got or got["health.xgmi-link"][0] == "skip"  # N/A is not captured


def test_parse_real_metric():
    (h,) = parse_health.parse_amd_smi_metric((DATA / "amd-smi-metric-rx6600.json").read_text())
    assert h.gpu == "gpu 0"
    assert h.ecc_uncorrectable.value == 0 and h.ecc_correctable.value == 0 and h.ecc_deferred.value == 0
    assert h.xgmi_errors is None and h.throttle.value == "UNTHROTTLED"


def test_uncorrectable_ecc_fails_and_names_the_gpu(tmp_path):
    got = judged(tmp_path, {"cmd/amd-smi-metric.json": derived("ecc-ue")})
    sev, title = got["health.ecc-uncorrectable"]
    assert sev == "fail" and "gpu 0: 2" in title


def test_cache_uncorrectable_counts_too(tmp_path):
    assert judged(tmp_path, {"cmd/amd-smi-metric.json": derived("cache-ue")})["health.ecc-uncorrectable"][0] == "fail"


def test_throttled_is_a_warning(tmp_path):
    assert judged(tmp_path, {"cmd/amd-smi-metric.json": derived("throttled")})["health.throttling"][0] == "warn"


def test_xgmi_errors_fail_no_errors_pass(tmp_path):
    assert judged(tmp_path / "a", {"cmd/amd-smi-metric.json": derived("xgmi")})["health.xgmi-link"][0] == "fail"
    assert judged(tmp_path / "b", {"cmd/amd-smi-metric.json": derived("xgmi-ok")})["health.xgmi-link"][0] == "ok"


def test_xgmi_status_forms():
    assert parse_health.xgmi_status("AMDSMI_XGMI_STATUS_NO_ERRORS") == "no errors"
    assert parse_health.xgmi_status("AMDSMI_XGMI_STATUS_ERROR") == "error"
    assert parse_health.xgmi_status(2) == "multiple errors"  # older CLIs print the number
    assert parse_health.xgmi_status(0) == "no errors"
    for unknown in ("N/A", "something new", 7, None, True):
        assert parse_health.xgmi_status(unknown) is None  # not understood = not captured, never "ok"


def test_ecc_blocks_are_summed_when_totals_are_missing():
    doc = {"gpu_data": [{"gpu": 3, "ecc": {"total_uncorrectable_count": "N/A"},
                         "ecc_blocks": {"UMC": {"correctable_count": 2, "uncorrectable_count": 0},
                                        "SDMA": {"correctable_count": 0, "uncorrectable_count": 1}}}]}
    (h,) = parse_health.parse_amd_smi_metric(json.dumps(doc))
    assert h.gpu == "gpu 3" and h.ecc_uncorrectable.value == 1 and h.ecc_correctable.value == 2


# --------------------------------------------------------------------------------------------- sysfs
def test_sysfs_ras_counts_and_bad_pages(tmp_path):
    card = "root/sys/class/drm/card1/device"
    got = judged(tmp_path, {
        f"{card}/vendor": "0x1002\n", f"{card}/device": "0x740f\n",
        # derived: the kernel's "ue: %lu\nce: %lu" with one uncorrectable UMC error
        f"{card}/ras/umc_err_count": "ue: 1\nce: 3\n",
        f"{card}/ras/gfx_err_count": "ue: 0\nce: 0\n",
        f"{card}/ras/gpu_vram_bad_pages": (DATA / "gpu_vram_bad_pages-kernel-example.txt").read_text(),
    })
    assert got["health.ecc-uncorrectable"][0] == "fail" and "card1: 1" in got["health.ecc-uncorrectable"][1]
    assert got["health.bad-pages"][0] == "fail" and "card1: 1" in got["health.bad-pages"][1]


def test_deferred_ecc_is_a_warning_naming_the_gpu(tmp_path):
    got = judged(tmp_path, {"cmd/amd-smi-metric.json": derived("ecc-de")})
    sev, title = got["health.ecc-uncorrectable"]
    assert sev == "warn" and "deferred" in title and "gpu 0: 3" in title


def test_uncorrectable_outranks_deferred(tmp_path):
    text = derived("ecc-de").replace('"total_uncorrectable_count": 0', '"total_uncorrectable_count": 2')
    assert judged(tmp_path, {"cmd/amd-smi-metric.json": text})["health.ecc-uncorrectable"][0] == "fail"


def test_sysfs_de_line_is_a_deferred_count(tmp_path):
    card = "root/sys/class/drm/card0/device"
    # derived: amdgpu_ras_aca_sysfs_read's "ue: %lu\nce: %lu\nde: %lu" with two deferred UMC errors
    got = judged(tmp_path, {f"{card}/ras/umc_err_count": "ue: 0\nce: 0\nde: 2\n"})
    assert got["health.ecc-uncorrectable"][0] == "warn" and "card0: 2" in got["health.ecc-uncorrectable"][1]
    healthy = judged(tmp_path, {f"{card}/ras/umc_err_count": "ue: 0\nce: 0\nde: 0\n"})
    assert healthy["health.ecc-uncorrectable"][0] == "ok"


def test_retired_pages_only_are_healthy(tmp_path):
    card = "root/sys/class/drm/card0/device"
    only_r = (DATA / "gpu_vram_bad_pages-kernel-example.txt").read_text().splitlines()[0] + "\n"  # derived: R row
    got = judged(tmp_path, {f"{card}/ras/gpu_vram_bad_pages": only_r, f"{card}/ras/umc_err_count": "ue: 0\nce: 0\n"})
    assert got["health.bad-pages"][0] == "ok" and got["health.ecc-uncorrectable"][0] == "ok"


def test_xgmi_wafl_ue_is_a_link_error_not_memory_ecc(tmp_path):
    card = "root/sys/class/drm/card0/device"
    got = judged(tmp_path, {f"{card}/ras/xgmi_wafl_err_count": "ue: 4\nce: 0\n",
                            f"{card}/ras/umc_err_count": "ue: 0\nce: 0\n"})
    assert got["health.xgmi-link"][0] == "fail" and got["health.ecc-uncorrectable"][0] == "ok"


def _pcie_card(speed: str, max_speed: str, dpm: str | None) -> dict[str, str]:
    card = "root/sys/class/drm/card0/device"
    files = {f"{card}/vendor": "0x1002\n", f"{card}/device": "0x740f\n", f"{card}/class": "0x038000\n",
             f"{card}/current_link_speed": speed + "\n", f"{card}/max_link_speed": max_speed + "\n",
             f"{card}/current_link_width": "16\n", f"{card}/max_link_width": "16\n"}
    if dpm is not None:
        files[f"{card}/pp_dpm_pcie"] = dpm
    return files


def test_pcie_speed_idle_downshift_is_not_a_warning(tmp_path):
    # derived: an idle GPU whose DPM can still reach Gen4 (level 1 = max) while the link sits at Gen1
    dpm = "0: 2.5GT/s, x16 97Mhz *\n1: 16.0GT/s, x16 619Mhz\n"
    got = judged(tmp_path, _pcie_card("2.5 GT/s PCIe", "16.0 GT/s PCIe", dpm))
    assert got["gpu.pcie-speed"][0] == "ok"
    got = judged(tmp_path / "b", _pcie_card("2.5 GT/s PCIe", "16.0 GT/s PCIe", None))
    assert got["gpu.pcie-speed"][0] == "info"


def test_pcie_speed_capped_below_the_gpu_warns(tmp_path):
    dpm = "0: 2.5GT/s, x16 97Mhz\n1: 8.0GT/s, x16 619Mhz *\n"  # derived: the fastest level is Gen3
    got = judged(tmp_path, _pcie_card("8.0 GT/s PCIe", "16.0 GT/s PCIe", dpm))
    assert got["gpu.pcie-speed"][0] == "warn" and "8.0GT/s, x16 of 16.0 GT/s" in got["gpu.pcie-speed"][1]


# --------------------------------------------------------------------------------------------- dmesg
def test_failed_reset_fails(tmp_path):
    got = judged(tmp_path, {"cmd/dmesg.txt": (DATA / "dmesg-reset-failed-navi10.txt").read_text()})
    assert got["health.gpu-reset"][0] == "fail"


def test_recovered_resets_warn(tmp_path):
    for name in ("dmesg-reset-recovered-raven.txt", "dmesg-ring-timeout-reset-rx5700xt.txt"):
        got = judged(tmp_path / name, {"cmd/dmesg.txt": (DATA / name).read_text()})
        assert got["health.gpu-reset"][0] == "warn", name  # "Ring ... reset failed" alone is not a failed GPU reset


def test_reset_with_no_outcome_fails(tmp_path):
    # derived: the Raven log cut after "GPU reset begin!" (the reset never finished)
    lines = (DATA / "dmesg-reset-recovered-raven.txt").read_text().splitlines(keepends=True)
    cut = "".join(lines[:5])
    assert cut.rstrip().endswith("GPU reset begin!")
    assert judged(tmp_path, {"cmd/dmesg.txt": cut})["health.gpu-reset"][0] == "fail"


def test_no_dmesg_is_not_healthy(tmp_path):
    got = judged(tmp_path, {"cmd/uname-r.txt": "6.8.0\n"})
    assert got["health.gpu-reset"][0] == "skip"


# ----------------------------------------------------------------------------------------- fuzzing
@settings(max_examples=200, deadline=None)
@given(st.text(max_size=2000))
def test_parsers_never_raise(text):
    parse_health.parse_amd_smi_metric(text)
    parse_health.parse_err_count(text)
    parse_health.parse_bad_pages(text)
    parse_health.parse_dpm_pcie(text)


@settings(max_examples=100, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=20),
                    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=20), kids, max_size=4),
                    max_leaves=30))
def test_metric_parser_takes_any_json(doc):
    for item in (doc, {"gpu_data": [doc]}, [{"gpu": 0, "ecc": doc, "ecc_blocks": doc, "power": doc, "xgmi_err": doc}]):
        for h in parse_health.parse_amd_smi_metric(json.dumps(item)):
            for attr in ("ecc_uncorrectable", "ecc_correctable", "ecc_deferred"):
                f = getattr(h, attr)
                assert f is None or (isinstance(f.value, int) and f.value >= 0)


def test_capture_reads_pp_dpm_pcie_only_from_an_awake_gpu(tmp_path):
    from rocmdoctor import capture

    for card, state in (("card0", "active"), ("card1", "suspended")):
        d = tmp_path / "sys/class/drm" / card / "device"
        (d / "power").mkdir(parents=True)
        (d / "power" / "runtime_status").write_text(state + "\n")
        (d / "pp_dpm_pcie").write_text("0: 2.5GT/s, x16 97Mhz *\n")
        (d / "vendor").write_text("0x1002\n")
        (d / "ras").mkdir()
        (d / "ras" / "umc_err_count").write_text("ue: 0\nce: 0\n")
    files, _manifest = capture.collect(root=str(tmp_path), timeout=5.0, budget=20.0)
    assert "root/sys/class/drm/card0/device/pp_dpm_pcie" in files
    assert "root/sys/class/drm/card1/device/pp_dpm_pcie" not in files  # reading it would wake the GPU
    assert "root/sys/class/drm/card1/device/ras/umc_err_count" in files


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=120)
       | st.builds(lambda a, w, b: a + w + b, st.text(max_size=20),
                   st.sampled_from(["amdgpu", "KFD", "hsa", "[drm] x AMD", "GPU reset", "ring gfx timeout",
                                    "Radeon", "Key was rejected by service", "Lockdown: m: unsigned module"]),
                   st.text(max_size=20)))
def test_dmesg_prefilter_keeps_exactly_what_the_regexes_keep(line):
    from rocmdoctor.parse import kernel

    want = bool(kernel._DMESG_KEEP.search(line) or kernel._DMESG_SECURE.search(line))
    assert kernel._keep_dmesg(line) == want


def test_hwmon_sensor_at_its_critical_limit_warns(tmp_path):
    # derived from the sysfs hwmon interface (millidegrees C; amdgpu labels edge/junction/mem,
    # Documentation/gpu/amdgpu/thermal.rst): junction 101 C against a 100 C critical limit
    hw = "root/sys/class/drm/card0/device/hwmon/hwmon3"
    got = judged(tmp_path, {f"{hw}/temp1_input": "45000\n", f"{hw}/temp1_crit": "100000\n",
                            f"{hw}/temp1_label": "edge\n", f"{hw}/temp2_input": "101000\n",
                            f"{hw}/temp2_crit": "100000\n", f"{hw}/temp2_label": "junction\n"})
    sev, title = got["health.throttling"]
    assert sev == "warn" and "junction 101 C (critical 100 C)" in title and "edge" not in title


def test_hwmon_below_critical_is_not_hot():
    files = {"root/sys/class/drm/card0/device/hwmon/hwmon0/temp1_input": "99999",
             "root/sys/class/drm/card0/device/hwmon/hwmon0/temp1_crit": "100000",
             "root/sys/class/drm/card0/device/hwmon/hwmon0/temp2_input": "90000"}  # no crit: not judged
    assert parse_health.hot_sensors(list(files), files.get) == {}
