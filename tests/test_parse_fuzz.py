"""Hypothesis: no parser raises on any input — arbitrary bytes, mangled real output, CRLF, cut-offs, huge text."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rocmdoctor.model import DkmsInfo, KernelInfo, OsInfo
from rocmdoctor.parse import (
    bandwidth,
    collect_env,
    dkms,
    docker_info,
    drm,
    env,
    kernel,
    kfd,
    lspci,
    osrelease,
    pip,
    rocminfo,
    smi,
    smi_monitor,
    sniff,
    torch_probe,
    users,
    versions,
)
from rocmdoctor.parse import text as text_helpers
from rocmdoctor.parse.logs import scan
from tests.parse_helpers import CAPTURES

FUZZ = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Every text parser, called the way bundle.py calls it.
PARSERS = {
    "os_release": lambda t: osrelease.parse_os_release(t),
    "lsb_release": lambda t: osrelease.parse_lsb_release(t, "f"),
    "os_from_prose": lambda t: osrelease.os_from_prose(t, "f"),
    "uname": lambda t: kernel.parse_uname(t, "f"),
    "uname_hostname": lambda t: kernel.uname_hostname(t),
    "proc_version": lambda t: kernel.parse_proc_version(t),
    "modules": lambda t: kernel.parse_modules(t, "f"),
    "module_version": lambda t: kernel.parse_module_version(t),
    "dmesg": lambda t: kernel.parse_dmesg(t, "f"),
    "kfd_node": lambda t: kfd.parse_kfd_node(t, "f", 1),
    "kfd_mem_bank": lambda t: kfd.parse_mem_bank(t),
    "drm": lambda t: drm.parse_drm_card("card0", {"vendor": t, "device": t, "revision": t, "uevent": t,
                                                  "mem_info_vram_total": t, "serial_number": t}, "d"),
    "rocminfo": lambda t: rocminfo.parse_rocminfo(t),
    "rocm_smi": lambda t: smi.parse_rocm_smi(t),
    "amd_smi": lambda t: smi.parse_amd_smi(t),
    "amd_smi_monitor": lambda t: smi_monitor.parse_amd_smi_monitor(t, "f"),
    "agent_enumerator": lambda t: smi.parse_agent_enumerator(t),
    "lspci": lambda t: lspci.parse_lspci(t),
    "dkms": lambda t: dkms.parse_dkms(t),
    "bandwidth": lambda t: bandwidth.parse_data_path(t, "f"),
    "rocm_version": lambda t: versions.parse_rocm_version_file(t, "f"),
    "hipconfig": lambda t: versions.parse_hipconfig(t),
    "pip_freeze": lambda t: pip.parse_pip_freeze(t),
    "pip_list": lambda t: pip.parse_pip_list_json(t),
    "pip_show": lambda t: pip.parse_pip_show(t, "f"),
    "torch_probe": lambda t: torch_probe.parse_torch_probe(t),
    "collect_env": lambda t: collect_env.parse_collect_env(t),
    "id": lambda t: users.parse_id(t),
    "stat_dev": lambda t: users.parse_stat_dev(t),
    "group": lambda t: users.parse_group_file(t),
    "env": lambda t: env.parse_env(t),
    "docker_info": lambda t: docker_info.parse_docker_info(t, stderr=t),
    "sniff": lambda t: sniff.sniff(t),
    "code_spans": lambda t: text_helpers.without_code_spans(t),
    "logs": lambda t: scan(t, "f"),
}


def _real_lines() -> list[str]:
    out: list[str] = []
    if CAPTURES.is_dir():
        for path in sorted(CAPTURES.glob("*/*.txt")):
            out.extend(path.read_bytes().decode("utf-8", "replace").splitlines()[:120])
    # Lines of the formats no capture has, so mutations reach their branches too.
    out += ["gfx_target_version 100301", "location_id 768", "simd_count 40", "cpu_cores_count 0",
            '{"gpu": 0, "asic": {"target_graphics_version": "gfx942", "device_id": "0x74a1"}}',
            '{"torch": {"version": "2.5.1+rocm6.2", "hip": null}, "python": {"tags": ["x"]}}',
            '[{"name": "torch", "version": "2.5.1+rocm6.2"}]', "GPU[0]\t\t: GFX Version: \t\tgfx1031",
            "uid=1000(a) gid=1000(a) groups=1000(a),44(video)", "/dev/kfd 660 root render 0 109",
            "render:x:109:", "HSA_OVERRIDE_GFX_VERSION=10.3.0", "ID=ubuntu", 'VERSION_ID="22.04"',
            "Linux h 6.5.0-14-generic #14 SMP x86_64 GNU/Linux", "PCI_SLOT_NAME=0000:03:00.0", "0x1002"]
    return out


REAL_LINES = _real_lines()

junk_text = st.binary(max_size=3000).map(lambda b: b.decode("utf-8", errors="replace"))
mangled_real = st.builds(
    lambda ls, sep, cut, pad: (sep.join(ls) + pad)[: cut if cut else None],
    st.lists(st.one_of(st.sampled_from(REAL_LINES), st.text(max_size=80)), max_size=60),
    st.sampled_from(["\n", "\r\n", "\r", "\n\n"]),
    st.integers(min_value=0, max_value=4000),
    st.sampled_from(["", "   ", "\x00", "\ufffd\ufffd", "\x1b[0m", "$ "]),
)
any_text = st.one_of(junk_text, mangled_real, st.text(max_size=500))


@FUZZ
@given(text=any_text)
def test_no_parser_raises(text):
    for name, parse in PARSERS.items():
        try:
            parse(text)
        except Exception as exc:  # pragma: no cover - the assertion message is the point
            raise AssertionError(f"parser {name} raised {exc!r} on {text[:200]!r}") from exc


@FUZZ
@given(value=st.integers(min_value=-10**12, max_value=10**12))
def test_gfx_target_version_is_total(value):
    gfx = kfd.gfx_from_target_version(value)
    assert gfx is None or (gfx.startswith("gfx") and 6 <= len(gfx) <= 8)


@FUZZ
@given(text=any_text)
def test_unwrapping_code_spans_keeps_every_offset(text):
    """Evidence line numbers and the free-text extractor's offsets are the paste's own: same length, same lines."""
    out = text_helpers.without_code_spans(text)
    assert len(out) == len(text) and out.count("\n") == text.count("\n")
    assert out.replace("`", "").split("\n")[0].strip() == text.replace("`", "").split("\n")[0].strip()


def test_types_of_empty_results():
    assert osrelease.parse_os_release("") == OsInfo()
    assert kernel.parse_uname("", "f") == KernelInfo()
    assert dkms.parse_dkms("") == DkmsInfo()
    assert rocminfo.parse_rocminfo("").gpus == []


def test_huge_inputs_are_bounded():
    rocm = (CAPTURES / "mi210-x4-gfx90a-rocm6.0-hip-invalid-argument" / "rocminfo.txt")
    block = rocm.read_text(errors="replace") if rocm.is_file() else "Agent 1\n  Name: gfx90a\n  Device Type: GPU\n"
    per_block = len(rocminfo.parse_rocminfo(block).gpus)  # 4 in the MI210 capture, 1 in the fallback
    assert per_block >= 1
    big = block * (3_000_000 // len(block))  # ~3 MB: many agents
    start = time.perf_counter()
    res = rocminfo.parse_rocminfo(big)
    assert len(res.gpus) >= per_block * (3_000_000 // len(block)) - per_block
    one_line = "x" * 20_000_000  # longer than MAX_CHARS, no newline
    for name in ("rocminfo", "dkms", "collect_env", "logs", "pip_freeze", "sniff", "amd_smi", "amd_smi_monitor"):
        PARSERS[name](one_line)
    # Not a benchmark: just a guard that nothing is quadratic (generous for a loaded 2-core machine).
    assert time.perf_counter() - start < 30


def test_real_captures_never_raise_anywhere():
    if not Path(CAPTURES).is_dir():
        pytest.skip(f"{CAPTURES} is absent (the shared captures sit beside the repository)")
    files = sorted(Path(CAPTURES).glob("*/*.txt"))
    assert len(files) > 10, f"no capture text under {CAPTURES}: the test would pass over nothing"
    for path in files:
        text = path.read_bytes().decode("utf-8", "replace")
        for parse in PARSERS.values():
            parse(text)
            parse(text.replace("\n", "\r\n")[: len(text) // 2])


ADVERSARIAL_TOKENS = ["a/", "Name: ", ":", "0x", "gfx90a ", "amdgpu, ", "[ 1.0] ", "uid=1(", "GPU[0] : ", "torch==",
                      "- ", "Linux ", "PyTorch version: ", '{"a":', "[[", "=", "/dev/kfd 6 ", "amdgcn-amd-amdhsa--",
                      "Agent 1 ", "(gfx", "[drm] ", "dkms.conf ", "Linux version ", "ROCk module version ", "a-",
                      "x" * 7, "\x1b[", "rocminfo ", "Error! ", "1000(a),", "(x", "`a", "`",
                      "GPU  POWER  GPU_T ", "  0  "]


def test_no_parser_is_quadratic_on_long_repetitive_lines():
    """One 150 kB line of a repeated token through every parser: linear parsers take milliseconds each."""
    start = time.perf_counter()
    for tok in ADVERSARIAL_TOKENS:
        line = tok * (150_000 // len(tok))
        for name, parse in PARSERS.items():
            t0 = time.perf_counter()
            parse(line)
            parse(line.replace(" ", "\n", 50))
            assert time.perf_counter() - t0 < 10, (tok, name)
    assert time.perf_counter() - start < 40
