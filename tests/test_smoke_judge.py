"""Judging smoke results: peaks and thresholds from the real matrix, enumeration vs the host model, and the
parser of the programs' output. Records here are exactly what rocmdoctor/programs/smoke_torch.py prints on a GPU."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rocmdoctor import matrix as matrix_mod
from rocmdoctor import smoke
from rocmdoctor.model import GpuInfo, Host, Severity
from rocmdoctor.smoke import ProcessRun, SmokeOptions, SmokeReport, _parse_line, judge, peaks_for

MATRIX = matrix_mod.load()
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def _enum(devices: list[dict], hip: str | None = "6.2.41133", env: dict | None = None) -> dict:
    return {"type": "enumeration", "mode": "gpu", "torch": "2.5.1+rocm6.2", "hip": hip, "cuda": None,
            "available": True, "count": len(devices), "arch_list": ["gfx90a", "gfx942"], "env": env or {},
            "devices": devices}


def _dev(i: int, name: str = "AMD Instinct MI300X", arch: str = "gfx942", cus: int = 304) -> dict:
    return {"index": i, "name": name, "arch": arch, "gcn_arch_name": f"{arch}:sramecc+:xnack-",
            "total_memory": 192 * 2**30, "multi_processor_count": cus}


def _device_run(i: int, results: list[dict]) -> ProcessRun:
    run = ProcessRun(f"cuda:{i}", "device", ["python"], index=i)
    run.records = [{"type": "start", "pid": 1}, *results, {"type": "done", "elapsed_s": 1.0}]
    run.exit_code = 0
    return run


def _report(runs: list[ProcessRun], enum: dict, level: int = 2) -> SmokeReport:
    rep = SmokeReport(options=SmokeOptions(python="/usr/bin/python3", level=level), devices=runs,
                      enumeration=enum)
    for r in runs:
        smoke._describe(r, enum)
    return rep


def _ids(findings) -> dict:
    return {f.id: f for f in findings}


def test_threshold_data_in_the_matrix_is_complete_and_sane() -> None:
    th = MATRIX.smoke_thresholds
    missing = [k for k in smoke.THRESHOLD_KEYS_FROM_MATRIX if k not in th]
    assert not missing, f"matrices/smoke.toml lacks {missing}"
    for k in ("bandwidth_min_fraction", "gemm_min_fraction"):
        assert 0 < th[k] <= 1, k
    for d in ("fp32", "fp16", "bf16"):
        assert 0 < th[f"{d}_rtol"] < 0.1 and 0 < th[f"{d}_atol"] < 0.1, d
    # looser dtypes get looser tolerances
    assert th["fp32_rtol"] < th["fp16_rtol"] <= th["bf16_rtol"]
    # every fallback the runner carries has the same keys as (and agrees with) the reviewed data
    for k in smoke.THRESHOLD_KEYS_FROM_MATRIX:
        assert math.isclose(smoke.DEFAULT_THRESHOLDS[k], th[k]), k
    assert 0 < smoke.DEFAULT_THRESHOLDS["stability_min_ratio"] <= 1


def test_products_with_peaks_resolve_from_torch_device_names() -> None:
    name, peaks = peaks_for(MATRIX, "AMD Instinct MI300X", "gfx942")
    assert name == "MI300X" and peaks["peak_hbm_bw_gbs"] > 1000 and peaks["peak_bf16_tflops"] > 100
    name, _ = peaks_for(MATRIX, "AMD Instinct MI250X", "gfx90a")
    assert name == "MI250X"  # not the shorter "MI250" also contained in the name
    assert peaks_for(MATRIX, "NVIDIA H200", "sm_90") == (None, {})
    assert peaks_for(None, "AMD Instinct MI300X", "gfx942") == (None, {})
    for product in smoke.PRODUCT_CUS:
        assert MATRIX.product(product) is not None, f"{product} is not a matrix product name"


@pytest.mark.parametrize(("value", "expected"), [(4200.0, Severity.OK), (1000.0, Severity.WARN)])
def test_bandwidth_is_judged_against_the_product_peak(value: float, expected: Severity) -> None:
    bw = {"type": "result", "check": "bandwidth", "status": "ok", "detail": "copy", "value": value, "unit": "GB/s"}
    run = _device_run(0, [bw])
    found = _ids(judge(_report([run], _enum([_dev(0)])), None, MATRIX))
    f = found["smoke.bandwidth-low"]
    assert f.severity == expected
    peak = MATRIX.product("MI300X").peak_hbm_bw_gbs
    assert f"of {peak:.4g} peak ({value / peak:.0%}" in f.evidence[0]
    row = run.rows[0]
    assert row.expected == peak and math.isclose(row.fraction, value / peak)
    if expected == Severity.WARN:
        assert f.fix is not None and f.fix.commands


def test_gemm_throughput_per_gcd_uses_the_gcd_share_of_the_peak() -> None:
    """An MI250X is two GCDs to torch: each is judged against half the package's peak."""
    peak = MATRIX.product("MI250X").peak_bf16_tflops
    tf = {"type": "result", "check": "tflops:bf16", "status": "ok", "detail": "", "value": peak * 0.4,
          "unit": "TFLOPS"}
    run = _device_run(0, [tf])
    found = _ids(judge(_report([run], _enum([_dev(0, "AMD Instinct MI250X", "gfx90a", 110)])), None, MATRIX))
    assert found["smoke.gemm-slow"].severity == Severity.OK  # 80 % of one GCD, not 40 % of the package
    assert math.isclose(run.rows[0].expected, peak / 2) and math.isclose(run.rows[0].fraction, 0.8)


def test_nvidia_device_reports_numbers_without_peak() -> None:
    tf = {"type": "result", "check": "tflops:fp16", "status": "ok", "detail": "8192^3", "value": 700.0,
          "unit": "TFLOPS"}
    run = _device_run(0, [tf])
    enum = _enum([_dev(0, "NVIDIA H200", "sm_90", 132)], hip=None)
    found = _ids(judge(_report([run], enum), None, MATRIX))
    assert found["smoke.gemm-slow"].severity == Severity.INFO
    assert found["smoke.enumeration-mismatch"].severity == Severity.OK


def test_worst_device_decides_and_every_device_is_in_the_evidence() -> None:
    ok = {"type": "result", "check": "copy", "status": "ok", "detail": "0 byte(s) differ"}
    bad = {"type": "result", "check": "copy", "status": "fail", "detail": "3 byte(s) differ"}
    runs = [_device_run(0, [ok]), _device_run(1, [bad]), _device_run(2, [ok])]
    found = _ids(judge(_report(runs, _enum([_dev(0), _dev(1), _dev(2)])), None, MATRIX))
    f = found["smoke.copy-mismatch"]
    assert f.severity == Severity.FAIL and "GPU 1" in f.title and "GPU 0" not in f.title
    assert len(f.evidence) == 3 and f.evidence[0].startswith("GPU 1")


def test_enumeration_is_compared_with_the_host_model() -> None:
    host = Host(gpus=[GpuInfo(index=0, name="MI300X", gfx="gfx942"), GpuInfo(index=1, name="MI300X", gfx="gfx942")])
    one = _report([_device_run(0, [])], _enum([_dev(0)]))
    f = _ids(judge(one, host, MATRIX))["smoke.enumeration-mismatch"]
    assert f.severity == Severity.WARN and "no *_VISIBLE_DEVICES" in f.detail
    hidden = _report([_device_run(0, [])], _enum([_dev(0)], env={"HIP_VISIBLE_DEVICES": "0"}))
    f = _ids(judge(hidden, host, MATRIX))["smoke.enumeration-mismatch"]
    assert f.severity == Severity.WARN and "HIP_VISIBLE_DEVICES=0" in f.detail
    both = _report([_device_run(0, []), _device_run(1, [])], _enum([_dev(0), _dev(1)]))
    assert _ids(judge(both, host, MATRIX))["smoke.enumeration-mismatch"].severity == Severity.OK
    other = _report([_device_run(0, []), _device_run(1, [])],
                    _enum([_dev(0, arch="gfx90a"), _dev(1, arch="gfx90a")]))
    assert _ids(judge(other, host, MATRIX))["smoke.enumeration-mismatch"].severity == Severity.WARN


def test_enumeration_memory_is_compared_with_the_driver_vram() -> None:
    """The real MI210 x4 fixture's rocminfo pools (64 GiB each) against torch's total_memory per GPU."""
    from rocmdoctor.bundle import load_host

    host = load_host(FIXTURES / "mi210-x4-vllm-hip-invalid-argument")
    assert [g.vram_bytes for g in host.gpus] == [68702699520] * 4

    def mi210(i: int, mem: int) -> dict:
        return {**_dev(i, "AMD Instinct MI210", "gfx90a", 104), "total_memory": mem}

    same = [mi210(i, 65520 * 2**20) for i in range(4)]  # 63.98 GiB: within the tolerance
    runs = [_device_run(i, []) for i in range(4)]
    f = _ids(judge(_report(runs, _enum(same)), host, MATRIX))["smoke.enumeration-mismatch"]
    assert f.severity == Severity.OK, f
    short = [*same[:3], mi210(3, 16 * 2**30)]
    f = _ids(judge(_report(runs, _enum(short)), host, MATRIX))["smoke.enumeration-mismatch"]
    assert f.severity == Severity.WARN and "memory" in f.title
    assert f.evidence[0] == "GPU 3: torch 16.0 GiB, driver 64.0 GiB (more than 10% apart)"
    apu = Host(gpus=[GpuInfo(index=0, gfx="gfx90a", is_apu=True, vram_bytes=512 * 2**20)])
    f = _ids(judge(_report(runs[:1], _enum(short[:1])), apu, MATRIX))["smoke.enumeration-mismatch"]
    assert f.severity == Severity.OK  # an APU's torch memory is its shared pool: not compared


def test_arch_missing_and_requested_gpu_absent() -> None:
    arch = {"type": "result", "check": "arch", "status": "fail", "detail": "gfx1031: not compiled into this torch"}
    run = _device_run(0, [arch])
    gone = ProcessRun("cuda:5", "device", ["python"], index=5)
    gone.records = [{"type": "start"}, {"type": "fatal", "reason": "no-such-device", "detail": "torch sees 1 GPU"}]
    gone.fatal, gone.exit_code = gone.records[1], 4
    found = _ids(judge(_report([run, gone], _enum([_dev(0, "AMD Radeon RX 6700 XT", "gfx1031", 40)])),
                       None, MATRIX))
    assert found["smoke.arch-missing"].severity == Severity.FAIL
    assert "rocmdoctor install torch" in found["smoke.arch-missing"].fix.commands
    assert found["smoke.enumeration-mismatch"].severity == Severity.FAIL
    assert "smoke.crashed" not in found


def test_no_binary_fix_offers_the_matrix_override_for_the_gfx() -> None:
    run = _device_run(0, [])
    run.records = run.records[:1]  # aborted before "done"
    run.exit_code = -6
    run.stderr = "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\n"
    enum = _enum([_dev(0, "AMD Radeon RX 6700 XT", "gfx1031", 40)])
    found = _ids(judge(_report([run], enum), None, MATRIX))
    cmds = found["smoke.no-binary-for-gpu"].fix.commands
    assert any(c.startswith(f"export HSA_OVERRIDE_GFX_VERSION={MATRIX.gpu('gfx1031').override}") for c in cmds)
    assert any(c.startswith("rocmdoctor install torch") for c in cmds)


def test_finding_ids_cover_the_issue_and_the_signatures() -> None:
    ids = smoke.FINDING_IDS
    for fid in ("smoke.no-gpu", "smoke.enumeration-mismatch", "smoke.copy-mismatch", "smoke.kernel-mismatch",
                "smoke.gemm-mismatch", "smoke.arch-missing", "smoke.triton-failed", "smoke.hip-failed",
                "smoke.bandwidth-low", "smoke.gemm-slow", "smoke.p2p-failed", "smoke.rccl-failed",
                "smoke.timeout", "smoke.crashed", "smoke.no-torch", "smoke.no-binary-for-gpu"):
        assert fid in ids
    assert all(fid.startswith("smoke.") for fid in ids)
    assert set(smoke.FIXES) <= set(ids)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_parse_line_never_raises_on_any_bytes(data: bytes) -> None:
    rec = _parse_line(data)
    assert rec is None or (isinstance(rec, dict) and isinstance(rec["type"], str))


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.sampled_from(["type", "check", "status", "value", "unit", "detail", "x"]),
                       st.one_of(st.none(), st.integers(), st.floats(allow_nan=False), st.text(max_size=20),
                                 st.lists(st.integers(), max_size=3))))
def test_judge_never_raises_on_odd_records(rec: dict) -> None:
    run = _device_run(0, [rec])
    findings = judge(_report([run], _enum([_dev(0)])), None, MATRIX)
    json.dumps([f.to_dict() for f in findings])


def test_a_program_that_cannot_start_or_says_nothing_never_passes(tmp_path) -> None:
    opts = SmokeOptions(python="/usr/bin/python3", timeout=30)
    cannot = ProcessRun("cuda:0", "device", [str(tmp_path / "no-such-interpreter")], index=0)
    silent = ProcessRun("cuda:1", "device", ["/bin/true"], index=1)
    smoke._run_processes([cannot, silent], opts)
    assert cannot.fatal is not None and cannot.fatal["reason"] == "spawn-failed"
    assert silent.exit_code == 0 and not silent.completed
    found = _ids(judge(SmokeReport(options=opts, devices=[cannot, silent]), None, MATRIX))
    f = found["smoke.crashed"]
    assert f.severity == Severity.FAIL
    assert any("spawn-failed" in e for e in f.evidence) and any(e.startswith("GPU 1") for e in f.evidence)


def _program():
    import importlib.util

    spec = importlib.util.spec_from_file_location("smoke_torch_program", smoke.PROGRAM)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize(("arch", "arch_list", "status"), [
    ("gfx90a", ["gfx900", "gfx906", "gfx908", "gfx90a", "gfx942"], "ok"),
    ("gfx942", ["gfx942:sramecc+:xnack-"], "ok"),
    ("gfx1031", ["gfx1030", "gfx1100"], "fail"),  # the override case: RX 6700 XT without HSA_OVERRIDE
    ("sm_90", ["sm_50", "sm_80", "sm_90"], "ok"),
    ("sm_89", ["sm_80", "sm_86"], "ok"),  # same-major cubin runs on a newer minor
    ("sm_90", ["sm_80", "compute_80"], "warn"),  # only PTX: JIT at first use
    ("sm_90", ["sm_80"], "fail"),
    ("sm_120", ["sm_90", "sm_100"], "fail"),
])
def test_arch_status_rocm_and_nvidia(arch: str, arch_list: list[str], status: str) -> None:
    assert _program().arch_status(arch, arch_list)[0] == status


def test_mi250x_gcd_name_from_torch_finds_its_peak() -> None:
    """torch names each MI250X GCD "AMD Instinct MI250X/MI250" (collect_env: "GPU models and configuration:
    AMD Instinct MI250X/MI250 (gfx90a:sramecc+:xnack-)"); was: no peak, every number 'not judged'."""
    product, peaks = peaks_for(MATRIX, "AMD Instinct MI250X/MI250", "gfx90a")
    assert product == "MI250X" and peaks.get("peak_hbm_bw_gbs")


HIPBLASLT = ("UserWarning: Attempting to use hipBLASLt on an unsupported architecture! Overriding blas backend to "
             "hipblas")


def test_an_info_signature_neither_warns_nor_explains_a_crash() -> None:
    ok = _device_run(0, [])
    ok.stderr = HIPBLASLT
    found = _ids(judge(_report([ok], _enum([_dev(0)])), None, MATRIX))
    assert found["smoke.hipblaslt-unsupported-arch"].severity == Severity.INFO
    dead = ProcessRun("cuda:0", "device", ["python"], index=0)
    dead.records, dead.exit_code, dead.stderr = [{"type": "start"}], -11, HIPBLASLT + "\n"
    found = _ids(judge(_report([dead], _enum([_dev(0)])), None, MATRIX))
    assert found["smoke.crashed"].severity == Severity.FAIL and "SIGSEGV" in found["smoke.crashed"].evidence[0]
    assert found["smoke.hipblaslt-unsupported-arch"].severity == Severity.INFO


@pytest.mark.parametrize(("hip", "cuda", "says", "command"), [
    (None, None, "CPU-only build", "rocmdoctor install torch --python /usr/bin/python3"),
    (None, "12.4", "CUDA build (CUDA 12.4)", "rocmdoctor install torch --python /usr/bin/python3"),
    ("6.2.41133", None, "ROCm build (HIP 6.2.41133)", "rocmdoctor check"),
])
def test_no_gpu_says_which_torch_build_it_is(hip, cuda, says: str, command: str) -> None:
    enum = {**_enum([]), "available": False, "count": 0, "hip": hip, "cuda": cuda}
    dead = ProcessRun("cuda:0", "device", ["python"], index=0)
    dead.records = [enum, {"type": "fatal", "reason": "no-gpu", "detail": "torch.cuda.is_available() is False"}]
    dead.fatal, dead.exit_code = dead.records[1], 4
    f = _ids(judge(_report([dead], enum), None, MATRIX))["smoke.no-gpu"]
    assert f.severity == Severity.FAIL and says in f.detail and f.fix.commands[0] == command
