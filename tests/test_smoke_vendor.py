"""The vendor-specific surface of programs/smoke_torch.py: what differs between a ROCm torch, a CUDA torch and an
old ROCm torch. No GPU can exist here, so ``torch.cuda`` is a stand-in built from what real builds report:

- ROCm: ``_CudaDeviceProperties(name='AMD Instinct MI300X', major=9, minor=4,
  gcnArchName='gfx942:sramecc+:xnack-', total_memory=196592MB, multi_processor_count=304, ...)``
  (printed on an MI300X in pytorch/ao#2853). major/minor 9.4 are *not* a CUDA compute capability.
- CUDA: the same attribute exists but holds the device name — torch/csrc/cuda/Module.cpp binds
  ``gcnArchName`` to ``cudaDeviceProp::name`` on CUDA builds ("HIP-only property; reuse name attribute for
  CUDA builds"). An H200 is compute capability 9.0 with 132 SMs.

Everything else in the program (tensors, copies, GEMMs, Triton, collectives) runs for real on the CPU torch in
tests/test_smoke.py; these tests pin down the part that cannot.
"""

from __future__ import annotations

import importlib.util
import json
from types import SimpleNamespace

import pytest
from smoke_helpers import HAS_TORCH, TORCH_REASON

from rocmdoctor import matrix as matrix_mod
from rocmdoctor import smoke
from rocmdoctor.model import Severity
from rocmdoctor.smoke import ProcessRun, SmokeOptions, SmokeReport, judge

MI300X = SimpleNamespace(name="AMD Instinct MI300X", major=9, minor=4, gcnArchName="gfx942:sramecc+:xnack-",
                         total_memory=196592 * 2**20, multi_processor_count=304, uuid="65303434-3830-3136")
H200 = SimpleNamespace(name="NVIDIA H200", major=9, minor=0, gcnArchName="NVIDIA H200",
                       total_memory=143771 * 2**20, multi_processor_count=132, uuid="GPU-5d1c")
OLD_ROCM = SimpleNamespace(name="AMD Radeon PRO W6800", major=10, minor=3, total_memory=32 * 2**30,
                           multi_processor_count=30)  # before gcnArchName existed


def _program():
    spec = importlib.util.spec_from_file_location("smoke_torch_vendor", smoke.PROGRAM)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _torch(props, hip: str | None, cuda: str | None, arch_list: list[str]) -> SimpleNamespace:
    """A torch whose ``torch.cuda`` answers like one real GPU of that build (device objects are real)."""
    import torch as real

    cuda_ns = SimpleNamespace(
        is_available=lambda: True, device_count=lambda: 1, get_arch_list=lambda: list(arch_list),
        get_device_properties=lambda i: props)
    return SimpleNamespace(__version__="2.5.1", version=SimpleNamespace(hip=hip, cuda=cuda), cuda=cuda_ns,
                           device=real.device)


BUILDS = {
    "rocm-mi300x": (MI300X, "6.2.41133", None, ["gfx900", "gfx906", "gfx908", "gfx90a", "gfx942", "gfx1030"]),
    "cuda-h200": (H200, None, "12.8", ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]),
    "rocm-old": (OLD_ROCM, "5.4.22803", None, ["gfx900", "gfx906", "gfx908", "gfx90a", "gfx1030"]),
}


@pytest.mark.skipif(not HAS_TORCH, reason=TORCH_REASON)
@pytest.mark.parametrize(("build", "arch", "raw"), [
    ("rocm-mi300x", "gfx942", "gfx942:sramecc+:xnack-"),
    ("cuda-h200", "sm_90", None),  # not "NVIDIA H200", which is what gcnArchName holds on CUDA builds
    ("rocm-old", "unknown", None),  # major/minor 10.3 must not become "sm_103"
])
def test_arch_of_follows_the_build_not_the_attribute(build: str, arch: str, raw: str | None) -> None:
    assert _program().arch_of(_torch(*BUILDS[build]), 0) == (arch, raw)


@pytest.mark.skipif(not HAS_TORCH, reason=TORCH_REASON)
@pytest.mark.parametrize(("build", "status"), [("rocm-mi300x", "ok"), ("cuda-h200", "ok"), ("rocm-old", "skip")])
def test_arch_check_records_on_each_build(build: str, status: str, capsys) -> None:
    prog = _program()
    torch = _torch(*BUILDS[build])
    dev = prog.Dev(torch, "cuda:0")
    prog.check_arch(torch, dev, BUILDS[build][3])
    rec = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert (rec["check"], rec["status"]) == ("arch", status), rec


@pytest.mark.skipif(not HAS_TORCH, reason=TORCH_REASON)
def test_h200_enumeration_judged_as_numbers_without_peak(capsys) -> None:
    """The CUDA build's enumeration flows through the judge: sm_90, no AMD peak, no host comparison."""
    prog = _program()
    rec = prog.enumeration(_torch(*BUILDS["cuda-h200"]), cpu_mode=False)
    capsys.readouterr()
    assert rec["devices"][0]["arch"] == "sm_90" and rec["devices"][0]["gcn_arch_name"] is None
    run = ProcessRun("cuda:0", "device", ["python"], index=0)
    run.records = [{"type": "start"}, {"type": "result", "check": "bandwidth", "status": "ok", "value": 3900.0,
                                       "unit": "GB/s"}, {"type": "done"}]
    run.exit_code = 0
    report = SmokeReport(options=SmokeOptions(python="python3", level=2), devices=[run], enumeration=rec)
    smoke._describe(run, rec)
    findings = {f.id: f for f in judge(report, None, matrix_mod.load())}
    assert run.arch == "sm_90" and run.compute_units == 132
    assert findings["smoke.bandwidth-low"].severity == Severity.INFO
    assert findings["smoke.enumeration-mismatch"].severity == Severity.OK


@pytest.mark.parametrize(("arch", "arch_list", "status"), [
    ("NVIDIA H200", ["sm_90"], "skip"),  # never raises on a name where an arch was expected
    ("unknown", ["gfx90a"], "skip"),
    ("sm_90", ["sm_90a"], "ok"),  # arch-specific cubin for exactly this GPU
    ("sm_100", ["sm_90a"], "fail"),  # ... and for no other
    ("sm_100", ["sm_90", "compute_90"], "warn"),
    ("sm_", ["sm_90"], "skip"),
])
def test_arch_status_never_raises(arch: str, arch_list: list[str], status: str) -> None:
    assert _program().arch_status(arch, arch_list)[0] == status


def test_a_check_that_raises_is_an_error_and_the_next_check_runs(capsys) -> None:
    prog = _program()

    def broken() -> None:
        raise AttributeError("'_CudaDeviceProperties' object has no attribute 'gcnArchName'")

    prog.guarded("arch", broken)
    prog.guarded("alloc", lambda: prog.result("alloc", "ok", "fine"))
    recs = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["check"], r["status"]) for r in recs] == [("arch", "error"), ("alloc", "ok")]
    assert "gcnArchName" in recs[0]["detail"]
    run = ProcessRun("cuda:0", "device", ["python"], index=0)
    run.records = [{"type": "start"}, *recs, {"type": "done"}]
    run.exit_code = 0
    findings = {f.id: f for f in judge(SmokeReport(options=SmokeOptions(python="python3"), devices=[run]), None,
                                       None)}
    assert findings["smoke.arch-missing"].severity == Severity.ERROR
    assert findings["smoke.alloc-failed"].severity == Severity.OK


@pytest.mark.skipif(not HAS_TORCH, reason=TORCH_REASON)
def test_one_gpu_that_cannot_be_queried_does_not_hide_the_others(capsys) -> None:
    prog = _program()
    torch = _torch(*BUILDS["rocm-mi300x"])

    def props(i: int):
        if i == 1:
            raise RuntimeError("HIP error: invalid argument")
        return MI300X

    torch.cuda.get_device_properties = props
    torch.cuda.device_count = lambda: 3
    devs = prog.describe_devices(torch, cpu_mode=False)
    assert [d["arch"] for d in devs] == ["gfx942", None, "gfx942"]
    assert "invalid argument" in devs[1]["error"]


@pytest.mark.skipif(not HAS_TORCH, reason=TORCH_REASON)
def test_precision_is_pinned_whatever_the_environment_set() -> None:
    """TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1 / HIPBLASLT_ALLOW_TF32 and the reduced-precision split-K defaults would
    fail a correct GPU's fp32/bf16 comparison with float64: the program turns them off before its GEMMs."""
    import torch

    m = torch.backends.cuda.matmul
    saved = (m.allow_tf32, m.allow_fp16_reduced_precision_reduction, m.allow_bf16_reduced_precision_reduction,
             torch.get_float32_matmul_precision())
    try:
        m.allow_tf32 = True
        m.allow_fp16_reduced_precision_reduction = True
        m.allow_bf16_reduced_precision_reduction = True
        torch.set_float32_matmul_precision("high")
        _program().pin_precision(torch)
        assert not m.allow_tf32 and not m.allow_fp16_reduced_precision_reduction
        assert not m.allow_bf16_reduced_precision_reduction
        assert torch.get_float32_matmul_precision() == "highest"
    finally:
        m.allow_tf32, m.allow_fp16_reduced_precision_reduction, m.allow_bf16_reduced_precision_reduction = saved[:3]
        torch.set_float32_matmul_precision(saved[3])


@pytest.mark.skipif(not HAS_TORCH, reason=TORCH_REASON)
def test_timed_windows_cover_the_minimum_time() -> None:
    """20 copies of 1 GiB take ~10 ms on an MI300X: too short to mean anything after an idle period."""
    import torch

    prog = _program()
    dev = prog.Dev(torch, "cpu")
    calls = []
    secs, n = dev.timed(lambda: calls.append(1), 3, warmup=2, min_seconds=0.05)
    assert secs >= 0.05 and n % 3 == 0 and n >= 3
    assert len(calls) > n  # the warm-up ran too, and is not part of the timed calls
    secs, n = dev.timed(lambda: None, 3, warmup=2)  # --quick / CPU: exactly the asked iterations
    assert n == 3


@pytest.mark.parametrize(("name", "arch", "mpc", "env", "cus"), [
    ("AMD Radeon PRO W7900", "gfx1100", 48, {}, 96),  # HIP counts WGPs on RDNA: 48 WGPs = 96 CUs
    ("AMD Radeon PRO W7900", "gfx1100", 96, {"GPU_ENABLE_WGP_MODE": "0"}, 96),  # CU mode counts CUs
    ("AMD Instinct MI300X", "gfx942", 304, {}, 304),  # CDNA counts CUs
    ("AMD Instinct MI300X", "gfx942", 38, {}, 38),  # a CPX partition: 1/8 of the CUs
])
def test_rdna_work_group_processors_are_counted_as_cus(name: str, arch: str, mpc: int, env: dict, cus: int) -> None:
    """Was: an RDNA card compared with half its product's peak (a false pass below 25% of real bandwidth)."""
    enum = {"type": "enumeration", "available": True, "count": 1, "env": env, "hip": "6.2",
            "devices": [{"index": 0, "name": name, "arch": arch, "multi_processor_count": mpc}]}
    run = ProcessRun("cuda:0", "device", ["python"], index=0)
    smoke._describe(run, enum)
    assert run.compute_units == cus
    run.records = [{"type": "result", "check": "bandwidth", "status": "ok", "value": 100.0, "unit": "GB/s"}]
    smoke._rows(run, matrix_mod.load(), smoke.DEFAULT_THRESHOLDS)
    assert (run.peak_share is None) == (cus >= smoke.PRODUCT_CUS[run.product])


@pytest.mark.parametrize(("detail", "cause"), [
    ("RuntimeError: CUDA error: no kernel image is available for execution on the device", "smoke.no-binary-for-gpu"),
    ("RuntimeError: HIP error: invalid device function", "smoke.invalid-device-function"),
])
def test_a_known_error_inside_a_check_is_that_error_not_a_hardware_fault(detail: str, cause: str) -> None:
    run = ProcessRun("cuda:0", "device", ["python"], index=0)
    run.records = [{"type": "start"}, {"type": "result", "check": "gemm:fp32", "status": "fail", "detail": detail},
                   {"type": "done"}]
    run.exit_code = 0
    found = {f.id: f for f in judge(SmokeReport(options=SmokeOptions(python="python3"), devices=[run]), None,
                                    matrix_mod.load())}
    assert found[cause].severity == Severity.FAIL
    assert found[cause].evidence == [f"GPU 0 gemm:fp32: {detail}"]
    gemm = found["smoke.gemm-mismatch"]
    assert gemm.severity == Severity.FAIL and gemm.fix.explanation.startswith(f"See {cause}: ")
    assert "hardware" not in gemm.fix.explanation


@pytest.mark.skipif(not HAS_TORCH, reason=TORCH_REASON)
def test_memtest_running_out_of_memory_is_not_a_memory_error(capsys) -> None:
    """Every chunk is held at once over most of the free VRAM; if another tenant takes memory meanwhile, the
    allocator's OutOfMemoryError must not be judged as "Memory pattern test: errors found" (drain the GPU)."""
    import torch as real

    class OutOfMemoryError(RuntimeError):  # the name torch.cuda.OutOfMemoryError carries
        pass

    class Tight:
        def __getattr__(self, name):
            return getattr(real, name)

        @staticmethod
        def arange(*args, **kwargs):
            raise OutOfMemoryError("HIP out of memory. Tried to allocate 256.00 MiB")

    prog = _program()
    sizes = {"mem_chunk_mb": 2, "mem_mb": 8, "mem_fraction": None}
    prog.check_memtest(Tight(), prog.Dev(real, "cpu"), sizes)
    rec = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert rec["check"] == "memtest" and rec["status"] == "skip" and "out of device memory" in rec["detail"]
    prog.check_memtest(real, prog.Dev(real, "cpu"), sizes)  # and the real thing still passes
    rec = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert rec["status"] == "ok" and rec["errors"] == 0 and rec["size_mb"] == 8
