#!/usr/bin/env python3
"""GPU smoke tests that run inside the *target* interpreter: the one whose torch is being judged.

rocmdoctor starts this file with the user's python (``python smoke_torch.py --device cuda:0 --level 1``),
one process per GPU, so that a hang or an abort in one GPU's driver call cannot take the others down.
It is standalone on purpose: it imports nothing from rocmdoctor, only the standard library, torch and
(where present) triton, so it can be copied to another host or piped over SSH unchanged.

Every result is one JSON object on one line of stdout; rocmdoctor parses them and turns them into
findings. The program never judges against peaks or the host model (rocmdoctor does that); it only
measures and compares results with a CPU reference.

It only uses the ``torch.cuda`` API, which PyTorch's ROCm build shares, so it runs unchanged on AMD and
NVIDIA GPUs; ``--device cpu`` runs every code path on the CPU (a developer and test mode, with Triton in
its interpreter mode).

Modes: ``device`` (per-GPU checks of a level), ``p2p`` (peer copies between GPUs), ``allreduce`` (one rank
of a torch.distributed all-reduce). Fault injection for rocmdoctor's own tests:
``ROCMDOCTOR_SMOKE_FAULT=hang|abort-nobinary|abort|wrong-result[:check,check...]`` (hang: sleeps at start with
a grandchild; abort-nobinary: prints the exact hipErrorNoBinaryForGpu text to stderr and calls os.abort() where
the first kernel would launch; abort: the same with an unknown text; wrong-result: one element flipped in the
named checks' results, the matrix products by default). ``HIPCC`` names the compiler for the HIP check (and
enables it on ``--device cpu``, for tests with a stand-in).
"""

from __future__ import annotations

import argparse
import atexit
import importlib.util
import json
import math
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

FAULT = os.environ.get("ROCMDOCTOR_SMOKE_FAULT", "")
NO_BINARY_TEXT = "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!"

# (rtol, atol) per dtype for products of inputs scaled so that results are O(1); rocmdoctor passes the
# matrix's values with --tolerances, these are only the fallback when run by hand.
DEFAULT_TOLERANCES = {"fp32": (1.3e-5, 1e-4), "fp16": (1e-2, 1e-2), "bf16": (1.6e-2, 2e-2)}

# Problem sizes: full run on a GPU, and --quick (rocmdoctor's tests on a 2-core CPU).
SIZES = {
    "full": {
        "alloc_mb": 256, "copy_mb": 64, "elementwise": 1 << 22, "gemm": 1024, "triton_mm": 128,
        "bw_mb": 1024, "bw_iters": 20, "tflops_n": 8192, "tflops_iters": 10, "p2p_mb": 64,
        "allreduce_mb": 64, "stress_n": 4096, "stress_s": 60.0, "mem_fraction": 0.8, "mem_mb": None,
        "mem_chunk_mb": 256, "min_time": 0.2,
    },
    "quick": {
        "alloc_mb": 4, "copy_mb": 2, "elementwise": 1 << 14, "gemm": 96, "triton_mm": 32,
        "bw_mb": 8, "bw_iters": 3, "tflops_n": 128, "tflops_iters": 2, "p2p_mb": 1,
        "allreduce_mb": 1, "stress_n": 64, "stress_s": 0.5, "mem_fraction": None, "mem_mb": 8, "mem_chunk_mb": 2,
        "min_time": 0.0,
    },
}
HIPCC_TIMEOUT = 90  # well inside the level-2 process timeout: a stuck compiler is a `hip` failure, not a hang
CPU_MEMTEST_MB = 64  # "most of the VRAM" has no meaning on the CPU device: test a fixed amount

HIP_SOURCE = r"""
#include <hip/hip_runtime.h>
#include <cstdio>
#include <cstdlib>
__global__ void axpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
int main(int argc, char** argv) {
  int dev = argc > 1 ? atoi(argv[1]) : 0;
  const int n = 1 << 20;
  if (hipSetDevice(dev) != hipSuccess) { printf("ROCMDOCTOR_HIP error=set_device\n"); return 2; }
  float *hx = (float*)malloc(n * sizeof(float)), *hy = (float*)malloc(n * sizeof(float));
  for (int i = 0; i < n; ++i) { hx[i] = (float)(i % 1000); hy[i] = 1.0f; }
  float *dx, *dy;
  if (hipMalloc(&dx, n * sizeof(float)) != hipSuccess || hipMalloc(&dy, n * sizeof(float)) != hipSuccess) {
    printf("ROCMDOCTOR_HIP error=malloc\n"); return 2;
  }
  hipMemcpy(dx, hx, n * sizeof(float), hipMemcpyHostToDevice);
  hipMemcpy(dy, hy, n * sizeof(float), hipMemcpyHostToDevice);
  hipLaunchKernelGGL(axpy, dim3((n + 255) / 256), dim3(256), 0, 0, n, 2.0f, dx, dy);
  hipError_t err = hipDeviceSynchronize();
  if (err != hipSuccess) { printf("ROCMDOCTOR_HIP error=%s\n", hipGetErrorString(err)); return 2; }
  hipMemcpy(hy, dy, n * sizeof(float), hipMemcpyDeviceToHost);
  int bad = 0;
  for (int i = 0; i < n; ++i) if (hy[i] != 2.0f * (float)(i % 1000) + 1.0f) ++bad;
  printf("ROCMDOCTOR_HIP n=%d bad=%d\n", n, bad);
  return bad ? 1 : 0;
}
"""

TRITON_SOURCE = '''
import triton
import triton.language as tl


@triton.jit
def vadd(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
           BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * sam + (k0 + rk)[None, :] * sak,
                    mask=(rm[:, None] < M) & ((k0 + rk)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k0 + rk)[:, None] * sbk + rn[None, :] * sbn,
                    mask=((k0 + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))
'''


# ----------------------------------------------------------------------------------------------- output
def _clean(value):
    """JSON has no NaN/inf: report them as strings so the line stays parseable everywhere."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value


def emit(record):
    sys.stdout.write(json.dumps(_clean(record), allow_nan=False) + "\n")
    sys.stdout.flush()


def result(check, status, detail="", value=None, unit=None, **extra):
    """One check's outcome. status: ok | warn | fail | skip | error."""
    rec = {"type": "result", "check": check, "status": status, "detail": detail}
    if value is not None:
        rec["value"] = value
    if unit is not None:
        rec["unit"] = unit
    rec.update(extra)
    emit(rec)


def fatal(reason, detail, code):
    emit({"type": "fatal", "reason": reason, "detail": detail})
    sys.exit(code)


def fault_targets(check):
    """True when ``ROCMDOCTOR_SMOKE_FAULT`` asks to corrupt this check's result (tests only).

    ``wrong-result`` corrupts the matrix products; ``wrong-result:copy,triton`` the listed checks."""
    if not FAULT.startswith("wrong-result"):
        return False
    _, _, targets = FAULT.partition(":")
    return any(check.startswith(t) for t in (targets or "gemm").split(",") if t)


def _short(exc):
    text = f"{type(exc).__name__}: {exc}"
    return text if len(text) <= 600 else text[:600] + "..."


# ----------------------------------------------------------------------------------------------- helpers
class Dev:
    """The device under test and the few calls that differ between a GPU and the CPU."""

    def __init__(self, torch, spec):
        self.torch = torch
        self.spec = spec
        self.device = torch.device(spec)
        self.is_gpu = self.device.type == "cuda"
        self.index = self.device.index if self.is_gpu and self.device.index is not None else 0

    def sync(self):
        if self.is_gpu:
            self.torch.cuda.synchronize(self.device)

    def free_bytes(self):
        if self.is_gpu:
            try:
                self.torch.cuda.empty_cache()  # blocks torch keeps cached count as used for the driver
                free, _total = self.torch.cuda.mem_get_info(self.device)
                return int(free)
            except Exception:
                return int(self.torch.cuda.get_device_properties(self.index).total_memory // 2)
        return CPU_MEMTEST_MB << 20

    def timed(self, fn, iters, warmup=1, min_seconds=0.0):
        return timed(fn, self.sync, iters, warmup, min_seconds)


def timed(fn, sync, iters, warmup=1, min_seconds=0.0):
    """(seconds, calls) for repeated calls of ``fn``, ``sync`` after each batch.

    A fast GPU finishes a handful of calls in a millisecond, right after idling (clocks down) while the CPU
    computed a reference: so warm up for a quarter of ``min_seconds`` too, then repeat ``iters`` calls
    until ``min_seconds`` of work has been timed."""
    t0 = time.perf_counter()
    done = 0
    while done < warmup or time.perf_counter() - t0 < min_seconds / 4:
        for _ in range(max(1, warmup if done < warmup else iters)):
            fn()
            done += 1
        sync()
    calls = 0
    t0 = time.perf_counter()
    while True:
        for _ in range(iters):
            fn()
        sync()
        calls += iters
        secs = time.perf_counter() - t0
        if secs >= min_seconds:
            return max(secs, 1e-9), calls


def arch_of(torch, index):
    """(arch, raw): ``gfx90a`` (raw ``gfx90a:sramecc+:xnack-``) on a ROCm torch, ``sm_90`` on a CUDA torch.

    Only a ROCm build's ``gcnArchName`` is an architecture: a CUDA build binds the same attribute to the
    device *name* (``"NVIDIA H200"``; torch/csrc/cuda/Module.cpp, "HIP-only property; reuse name attribute
    for CUDA builds"), so the vendor is decided by ``torch.version.hip``, never by the attribute existing.
    A ROCm torch too old to have it gives ``("unknown", None)``: its major/minor are not a gfx target.
    """
    props = torch.cuda.get_device_properties(index)
    if getattr(torch.version, "hip", None):
        gcn = str(getattr(props, "gcnArchName", "") or "").strip()
        if gcn.startswith("gfx"):
            return gcn.split(":")[0], gcn
        return "unknown", gcn or None
    return "sm_%d%d" % (int(props.major), int(props.minor)), None  # noqa: UP031


def cpu_name():
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "cpu"


def describe_devices(torch, cpu_mode):
    if cpu_mode:
        mem = None
        try:
            mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        except (ValueError, OSError, AttributeError):
            pass
        return [{"index": 0, "name": cpu_name(), "arch": "cpu", "total_memory": mem}]
    out = []
    for i in range(torch.cuda.device_count()):
        try:
            props = torch.cuda.get_device_properties(i)
            arch, raw = arch_of(torch, i)
        except Exception as exc:  # one GPU that cannot be queried must not hide the others
            out.append({"index": i, "name": None, "arch": None, "error": _short(exc)})
            continue
        out.append({
            "index": i, "name": props.name, "arch": arch, "gcn_arch_name": raw,
            "total_memory": int(props.total_memory), "major": props.major, "minor": props.minor,
            "multi_processor_count": getattr(props, "multi_processor_count", None),
            "uuid": str(getattr(props, "uuid", "") or "") or None,
        })
    return out


def enumeration(torch, cpu_mode):
    try:
        arch_list = list(torch.cuda.get_arch_list())
    except Exception:
        arch_list = []
    available = bool(torch.cuda.is_available())
    rec = {
        "type": "enumeration", "mode": "cpu" if cpu_mode else "gpu",
        "torch": torch.__version__, "hip": getattr(torch.version, "hip", None),
        "cuda": getattr(torch.version, "cuda", None), "available": available,
        "count": torch.cuda.device_count() if available else 0, "arch_list": arch_list,
        "python": sys.version.split()[0], "executable": sys.executable,
        "env": {k: os.environ[k] for k in ("HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES",
                                           "HSA_OVERRIDE_GFX_VERSION", "GPU_ENABLE_WGP_MODE") if k in os.environ},
    }
    rec["devices"] = describe_devices(torch, cpu_mode) if (cpu_mode or available) else []
    emit(rec)
    return rec


def max_scaled_error(torch, got, ref, rtol, atol):
    """Largest |got-ref| / (atol + rtol*|ref|): <= 1 means within tolerance. NaN/inf count as failures."""
    got = got.double()
    ref = ref.double()
    if not bool(torch.isfinite(got).all()):
        return float("inf"), int((~torch.isfinite(got)).sum())
    ratio = (got - ref).abs() / (atol + rtol * ref.abs())
    return float(ratio.max()), int((ratio > 1.0).sum())


# ----------------------------------------------------------------------------------------------- level 1
def arch_status(arch, arch_list):
    """(status, how) for a device arch ("gfx90a" / "sm_90") against torch.cuda.get_arch_list().

    Never raises: an architecture it cannot read is a ``skip``, not a crash of every later check."""
    bases = [str(a).split(":")[0] for a in arch_list]
    if arch.startswith("gfx"):
        if arch in bases:
            return "ok", "compiled in"
        return "fail", "not compiled into this torch"
    dev = _sm(arch, "sm_")
    if dev is None:
        return "skip", "GPU architecture not known to this torch's device properties"
    # NVIDIA: a cubin runs on its own major at the same or a newer minor, except arch-specific ones
    # (sm_90a) which run on exactly that arch; compute_XY is PTX that the driver JITs for newer GPUs.
    exact = [v[:2] for v in (_sm(b, "sm_") for b in bases) if v is not None]
    family = [v[:2] for v in (_sm(b, "sm_") for b in bases) if v is not None and not v[2]]
    ptx = [v[:2] for v in (_sm(b, "compute_") for b in bases) if v is not None and not v[2]]
    if dev[:2] in exact:
        return "ok", "compiled in"
    if any(m == dev[0] and n <= dev[1] for m, n in family):
        return "ok", "binary-compatible cubin compiled in"
    if any(v <= dev[:2] for v in ptx):
        return "warn", "only PTX for an older architecture: kernels are JIT-compiled at first use"
    return "fail", "not compiled into this torch"


def _sm(text, prefix):
    """``sm_90`` -> (9, 0, False), ``sm_120`` -> (12, 0, False), ``sm_90a`` -> (9, 0, True); None otherwise."""
    digits = text[len(prefix):] if text.startswith(prefix) else ""
    specific = digits[-1:] in ("a", "f")
    if specific:
        digits = digits[:-1]
    if len(digits) < 2 or not digits.isdigit():
        return None
    return int(digits[:-1]), int(digits[-1]), specific


def check_arch(torch, dev, arch_list):
    if not dev.is_gpu:
        result("arch", "skip", "CPU device: no GPU architecture to check")
        return
    arch, raw = arch_of(torch, dev.index)
    if not arch_list:
        result("arch", "skip", "torch.cuda.get_arch_list() is empty", arch=arch)
        return
    status, how = arch_status(arch, arch_list)
    result("arch", status, f"{raw or arch}: {how}", arch=arch, arch_list=arch_list,
           override=os.environ.get("HSA_OVERRIDE_GFX_VERSION"))


def check_alloc(torch, dev, mb):
    n = mb << 20
    try:
        t = torch.empty(n, dtype=torch.uint8, device=dev.device)
        t.fill_(0xA5)
        good = int((t == 0xA5).sum())
        dev.sync()
    except Exception as exc:
        result("alloc", "fail", _short(exc), value=mb, unit="MiB")
        return
    status = "ok" if good == n else "fail"
    result("alloc", status, f"{mb} MiB: {good} of {n} bytes read back as written", value=n - good,
           unit="bytes wrong", mismatches=n - good, size_mb=mb)
    del t


def check_copy(torch, dev, mb):
    n = mb << 20
    gen = torch.Generator().manual_seed(1234)
    host = torch.randint(0, 256, (n,), dtype=torch.uint8, generator=gen)
    try:
        d = host.to(dev.device)
        d2 = d.clone()  # device-to-device
        back = d2.to("cpu")
        pinned_ok = None
        if dev.is_gpu:
            pinned = host.pin_memory()
            d3 = pinned.to(dev.device, non_blocking=True)
            back_pinned = torch.empty_like(pinned).pin_memory()
            back_pinned.copy_(d3, non_blocking=True)
            dev.sync()
            pinned_ok = bool(torch.equal(back_pinned, host))
        dev.sync()
    except Exception as exc:
        result("copy", "fail", _short(exc), value=mb, unit="MiB")
        return
    if fault_targets("copy"):
        back[n // 3] ^= 0xFF
    mismatches = int((back != host).sum())
    ok = mismatches == 0 and pinned_ok is not False
    detail = f"{mb} MiB host->device->device->host: {mismatches} byte(s) differ"
    if pinned_ok is not None:
        detail += "; pinned round trip " + ("exact" if pinned_ok else "DIFFERS")
    result("copy", "ok" if ok else "fail", detail, value=mismatches, unit="bytes wrong", mismatches=mismatches,
           pinned_ok=pinned_ok, size_mb=mb)


def check_elementwise(torch, dev, n):
    gen = torch.Generator().manual_seed(99)
    a = torch.randn(n, generator=gen)
    b = torch.randn(n, generator=gen)
    ia = torch.randint(-1000, 1000, (n,), dtype=torch.int32, generator=gen)
    ib = torch.randint(-1000, 1000, (n,), dtype=torch.int32, generator=gen)
    try:
        got = (a.to(dev.device) * 2.0 + b.to(dev.device)).to("cpu")  # a*2 is exact: no FMA ambiguity
        igot = (ia.to(dev.device) * 3 - ib.to(dev.device)).to("cpu")
    except Exception as exc:
        result("elementwise", "fail", _short(exc))
        return
    if fault_targets("elementwise"):
        got[n // 2] = -got[n // 2] + 1.0
    ref = a * 2.0 + b
    err, bad = max_scaled_error(torch, got, ref, 1e-6, 1e-6)
    ibad = int((igot != ia * 3 - ib).sum())
    status = "ok" if bad == 0 and ibad == 0 else "fail"
    result("elementwise", status, f"{n} fp32 and {n} int32 elements vs CPU: {bad} + {ibad} differ",
           value=err, unit="x tolerance", mismatches=bad + ibad)


def check_gemm(torch, dev, n, dtype_name, tolerances):
    dtype = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}[dtype_name]
    rtol, atol = tolerances.get(dtype_name, DEFAULT_TOLERANCES[dtype_name])
    gen = torch.Generator().manual_seed(7)
    # Inputs rounded to the dtype on the CPU, scaled so each product element is ~N(0, 1) for any n.
    a = (torch.randn(n, n, generator=gen) / math.sqrt(n)).to(dtype)
    b = torch.randn(n, n, generator=gen).to(dtype)
    ref = a.double() @ b.double()
    try:
        got = (a.to(dev.device) @ b.to(dev.device)).to("cpu")
    except Exception as exc:
        result("gemm:" + dtype_name, "fail", _short(exc), dtype=dtype_name)
        return
    if fault_targets("gemm:" + dtype_name):
        got.view(-1)[n + 1] = got.view(-1)[n + 1] + 64.0
    err, bad = max_scaled_error(torch, got, ref, rtol, atol)
    status = "ok" if bad == 0 else "fail"
    result("gemm:" + dtype_name, status,
           f"{n}x{n} {dtype_name} matmul vs CPU float64: {bad} element(s) outside rtol={rtol:g} atol={atol:g}"
           f" (worst {err:.3g} x tolerance)",
           value=err, unit="x tolerance", dtype=dtype_name, mismatches=bad, n=n, rtol=rtol, atol=atol)


# ----------------------------------------------------------------------------------------------- level 2
def scratch_dir(prefix):
    """A temporary directory removed when the program exits normally (a kill leaves it in /tmp)."""
    path = tempfile.mkdtemp(prefix=prefix)
    atexit.register(shutil.rmtree, path, True)
    return path


def load_triton():
    """Import triton and our kernels from a real file (triton reads kernel source with inspect)."""
    import triton  # type: ignore[import-untyped, import-not-found, unused-ignore]  # optional, untyped

    tmp = scratch_dir("rocmdoctor-triton-")
    path = os.path.join(tmp, "rocmdoctor_triton_kernels.py")
    with open(path, "w") as fh:
        fh.write(TRITON_SOURCE)
    spec = importlib.util.spec_from_file_location("rocmdoctor_triton_kernels", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return triton, mod


def triton_absent(exc):
    """True only when triton itself is not installed (a skip). Any other error while importing it, including a
    module triton needs that is missing (``No module named 'numpy'``), is a broken triton: a failed check, or a
    torch whose compile path is broken would pass smoke as "triton not installed"."""
    return isinstance(exc, ModuleNotFoundError) and exc.name == "triton"


def check_triton(torch, dev, mm_n, tolerances):
    try:
        triton, kernels = load_triton()
    except Exception as exc:  # whatever importing triton raises is this check's result
        if triton_absent(exc):
            for name in ("triton:add", "triton:matmul"):
                result(name, "skip", f"triton is not installed in this interpreter ({exc})")
        else:  # a triton that is there but does not import (numpy missing, a broken build) fails the check
            for name in ("triton:add", "triton:matmul"):
                result(name, "fail", "importing triton failed: " + _short(exc))
        return
    mode = "interpreter" if os.environ.get("TRITON_INTERPRET") == "1" else "compiled"
    version = getattr(triton, "__version__", None)
    n = 98432
    try:
        x = torch.rand(n, device=dev.device)
        y = torch.rand(n, device=dev.device)
        out = torch.empty_like(x)
        kernels.vadd[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
        dev.sync()
        if fault_targets("triton"):
            out[7] += 1.0
        bad = int((out != x + y).sum())
        result("triton:add", "ok" if bad == 0 else "fail",
               f"vector add ({n} elements, {mode} mode) vs torch: {bad} differ",
               mismatches=bad, triton=version, triton_mode=mode)
    except Exception as exc:
        result("triton:add", "fail", f"compile/run failed ({mode} mode): {_short(exc)}",
               triton=version, triton_mode=mode)
    rtol, atol = tolerances.get("fp16", DEFAULT_TOLERANCES["fp16"])
    try:
        gen = torch.Generator().manual_seed(5)
        a = (torch.randn(mm_n, mm_n, generator=gen) / math.sqrt(mm_n)).half()
        b = torch.randn(mm_n, mm_n, generator=gen).half()
        ad, bd = a.to(dev.device), b.to(dev.device)
        c = torch.empty(mm_n, mm_n, dtype=torch.float32, device=dev.device)
        blk = 32
        grid = (triton.cdiv(mm_n, blk), triton.cdiv(mm_n, blk))
        kernels.matmul[grid](ad, bd, c, mm_n, mm_n, mm_n, ad.stride(0), ad.stride(1), bd.stride(0), bd.stride(1),
                             c.stride(0), c.stride(1), BM=blk, BN=blk, BK=blk)
        dev.sync()
        got = c.to("cpu")
        if fault_targets("triton"):
            got[1, 1] += 64.0
        err, bad = max_scaled_error(torch, got, a.double() @ b.double(), rtol, atol)
        result("triton:matmul", "ok" if bad == 0 else "fail",
               f"{mm_n}x{mm_n} fp16 tl.dot matmul ({mode} mode) vs CPU float64: {bad} outside tolerance"
               f" (worst {err:.3g} x)", value=err, unit="x tolerance", mismatches=bad,
               triton=version, triton_mode=mode)
    except Exception as exc:
        result("triton:matmul", "fail", f"compile/run failed ({mode} mode): {_short(exc)}",
               triton=version, triton_mode=mode)


def check_hip(torch, dev):
    hipcc = os.environ.get("HIPCC") or shutil.which("hipcc")
    if not dev.is_gpu and not os.environ.get("HIPCC"):
        result("hip", "skip", "CPU device: a HIP kernel needs a GPU")
        return
    if not hipcc:
        result("hip", "skip", "hipcc is not on PATH: HIP C++ kernel not built")
        return
    tmp = scratch_dir("rocmdoctor-hip-")
    src, exe = os.path.join(tmp, "axpy.hip"), os.path.join(tmp, "axpy")
    with open(src, "w") as fh:
        fh.write(HIP_SOURCE)
    cmd = [hipcc, "-O2", "-o", exe, src]
    if dev.is_gpu and getattr(torch.version, "hip", None):
        cmd.insert(1, "--offload-arch=" + (arch_of(torch, dev.index)[1] or arch_of(torch, dev.index)[0]))
    try:
        build = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=HIPCC_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired) as exc:
        result("hip", "fail", "hipcc could not run: " + _short(exc), compiler=hipcc)
        return
    if build.returncode != 0:
        result("hip", "fail", f"hipcc failed (exit {build.returncode}): {_tail(build.stdout)}",
               compiler=hipcc)
        return
    try:
        run = subprocess.run([exe, str(dev.index)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        result("hip", "fail", "HIP kernel did not run: " + _short(exc), compiler=hipcc)
        return
    text = run.stdout.decode("utf-8", "replace")
    line = next((ln for ln in text.splitlines() if ln.startswith("ROCMDOCTOR_HIP")), "")
    fields = dict(kv.split("=", 1) for kv in line.split()[1:] if "=" in kv)
    if run.returncode == 0 and fields.get("bad") == "0":
        result("hip", "ok", f"hipcc-built axpy kernel: {fields.get('n', '?')} elements exact", compiler=hipcc)
    else:
        result("hip", "fail", f"HIP kernel exit {run.returncode}: {_tail(run.stdout)}", compiler=hipcc)


def sig4(x):
    """Four significant digits: 0.0061 TFLOPS stays 0.0061, 1307.41 stays 1307."""
    return float("%.4g" % x) if math.isfinite(x) else x  # noqa: UP031


def _tail(data, limit=800):
    text = data.decode("utf-8", "replace").strip() if isinstance(data, bytes) else str(data)
    return text if len(text) <= limit else "..." + text[-limit:]


def check_bandwidth(torch, dev, mb, iters, min_seconds=0.0):
    mb = max(1, min(mb, dev.free_bytes() // (4 << 20)))  # src + dst within half the free memory
    n = mb << 20
    try:
        src = torch.empty(n // 4, dtype=torch.float32, device=dev.device).fill_(1.5)
        dst = torch.empty_like(src)
        secs, iters = dev.timed(lambda: dst.copy_(src), iters, warmup=2, min_seconds=min_seconds)
        exact = bool(torch.equal(dst, src))
    except Exception as exc:
        result("bandwidth", "fail", _short(exc))
        return
    gbs = 2.0 * n * iters / secs / 1e9  # each copy reads and writes n bytes
    result("bandwidth", "ok" if exact else "fail",
           f"device copy of {mb} MiB x {iters}: {gbs:.1f} GB/s (read+write)" + ("" if exact else "; DIFFERS"),
           value=sig4(gbs), unit="GB/s", size_mb=mb, iters=iters)


def check_tflops(torch, dev, n, iters, dtype_name, min_seconds=0.0):
    dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}[dtype_name]
    while n > 256 and 3 * n * n * 2 > dev.free_bytes() // 4:
        n //= 2
    try:
        a = torch.randn(n, n, device=dev.device).to(dtype)
        b = torch.randn(n, n, device=dev.device).to(dtype)
        c = torch.empty(n, n, device=dev.device, dtype=dtype)
        secs, iters = dev.timed(lambda: torch.matmul(a, b, out=c), iters, warmup=2, min_seconds=min_seconds)
    except Exception as exc:
        result("tflops:" + dtype_name, "fail", _short(exc), dtype=dtype_name)
        return
    tflops = 2.0 * n ** 3 * iters / secs / 1e12
    result("tflops:" + dtype_name, "ok", f"{n}^3 {dtype_name} matmul x {iters}: {tflops:.2f} TFLOPS",
           value=sig4(tflops), unit="TFLOPS", dtype=dtype_name, n=n, iters=iters)


# ----------------------------------------------------------------------------------------------- level 3
def check_stress(torch, dev, n, seconds, tolerances):
    """Sustained fp16 GEMM: every result compared with the first, which is checked against the CPU.

    Throughput samples are taken only after a warm-up (a fifth of the run, at most 2 s) and once the batch
    stopped growing, into output buffers allocated before the timed window: the first batches would
    otherwise time memory allocation and clocks ramping up after the CPU reference, and a healthy fast GPU
    would look unstable. Stability is the 10th percentile over the median, not the single slowest sample."""
    rtol, atol = tolerances.get("fp16", DEFAULT_TOLERANCES["fp16"])
    gen = torch.Generator().manual_seed(11)
    a = (torch.randn(n, n, generator=gen) / math.sqrt(n)).half()
    b = torch.randn(n, n, generator=gen).half()
    try:
        ad, bd = a.to(dev.device), b.to(dev.device)
        first = ad @ bd
        err, bad = max_scaled_error(torch, first.to("cpu"), a.double() @ b.double(), rtol, atol)
        ref = first.float()
        samples, iters, worst, bad_iters, not_bitwise = [], 0, err, 1 if bad else 0, 0
        start = time.perf_counter()
        deadline = start + seconds
        warm_until = start + min(2.0, seconds / 5)
        batch = 4
        max_batch = max(1, min(4096, dev.free_bytes() // 8 // (n * n * 2)))  # results held per batch
        bufs = [torch.empty_like(first) for _ in range(min(batch, max_batch))]
        while True:
            grew = False
            dev.sync()
            t0 = time.perf_counter()
            for out in bufs:
                torch.matmul(ad, bd, out=out)
            dev.sync()
            now = time.perf_counter()
            secs = max(now - t0, 1e-9)
            if fault_targets("stress") and iters == 0:
                bufs[-1].view(-1)[3] += 64.0
            for out in bufs:
                ratio = float(((out.float() - ref).abs() / (atol + rtol * ref.abs())).max())
                if not math.isfinite(ratio) or ratio > 1.0:
                    bad_iters += 1
                elif not bool(torch.equal(out, first)):
                    not_bitwise += 1  # within tolerance; rocBLAS/hipBLASLt atomics may reorder sums
                worst = max(worst, ratio if math.isfinite(ratio) else float("inf"))
            timed = len(bufs)
            iters += timed
            if secs < 0.05 and len(bufs) * 2 <= max_batch:
                bufs += [torch.empty_like(first) for _ in range(len(bufs))]  # keep samples long enough
                grew = True
            if (now >= warm_until and not grew) or (now >= deadline and not samples):
                samples.append(2.0 * n ** 3 * timed / secs / 1e12)
            if now >= deadline and samples:
                break
    except Exception as exc:
        result("stress", "fail", _short(exc))
        return
    detail = (f"{iters} x {n}^3 fp16 matmuls over {seconds:.1f} s: {bad_iters} result(s) differ from the verified "
              "first one")
    if not_bitwise:
        detail += f"; {not_bitwise} within tolerance but not bit-identical"
    result("stress", "ok" if bad_iters == 0 else "fail", detail, value=iters, unit="matmuls", mismatches=bad_iters,
           worst=worst, not_bitwise=not_bitwise)
    samples.sort()
    median = samples[len(samples) // 2]
    low = samples[len(samples) // 10]
    result("stability", "ok", f"throughput p10/median/max {low:.3g}/{median:.3g}/{samples[-1]:.3g} TFLOPS"
           f" over {len(samples)} samples (slowest {samples[0]:.3g})",
           value=round(low / median, 4) if median > 0 else None, unit="p10/median",
           tflops_min=samples[0], tflops_p10=low, tflops_median=median, tflops_max=samples[-1],
           samples=len(samples))


def check_memtest(torch, dev, sizes):
    """Pattern test over most of the free memory: all chunks held at once, every pattern verified."""
    chunk_mb = sizes["mem_chunk_mb"]
    if sizes["mem_mb"]:
        total = sizes["mem_mb"] << 20
    elif dev.is_gpu:
        total = int(dev.free_bytes() * sizes["mem_fraction"])
    else:
        total = CPU_MEMTEST_MB << 20
    chunk = chunk_mb << 20
    chunks = []
    try:
        while len(chunks) * chunk + chunk <= total:
            chunks.append(torch.empty(chunk // 8, dtype=torch.int64, device=dev.device))
    except Exception:
        pass  # fragmentation or another tenant: test what we could get
    if not chunks:
        result("memtest", "fail", f"could not allocate a single {chunk_mb} MiB chunk")
        return
    errors = 0
    patterns = (0, -1, 0x5555555555555555, -0x5555555555555556)  # zeros, ones, 0101.., 1010..
    try:
        for pat in patterns:
            for t in chunks:
                t.fill_(pat)
            if fault_targets("memtest") and pat == 0:
                chunks[0][5] = 1
            for t in chunks:
                errors += int((t != pat).sum())
        for i, t in enumerate(chunks):  # own-address pattern: every word holds its index, written in place
            torch.arange(i * t.numel(), (i + 1) * t.numel(), dtype=torch.int64, device=dev.device, out=t)
        ref = torch.arange(0, chunks[0].numel(), dtype=torch.int64, device=dev.device)  # one chunk, reused
        for i, t in enumerate(chunks):
            errors += int((t.sub_(i * t.numel()) != ref).sum())
        dev.sync()
    except Exception as exc:
        if _is_oom(exc) and errors == 0:
            # another tenant took memory while every chunk was held: not a memory error, nothing proven
            result("memtest", "skip", f"not completed: ran out of device memory during the test "
                   f"({len(chunks) * chunk_mb} MiB held; another process?): {_short(exc)}")
        else:
            result("memtest", "fail", _short(exc))
        return
    tested = len(chunks) * chunk
    result("memtest", "ok" if errors == 0 else "fail",
           f"{tested >> 20} MiB in {len(chunks)} chunks, 5 patterns: {errors} word(s) wrong",
           value=errors, unit="words wrong", errors=errors, size_mb=tested >> 20)


def _is_oom(exc):
    """torch.cuda.OutOfMemoryError (torch >= 1.13) or the RuntimeError older builds raise for it."""
    return type(exc).__name__ == "OutOfMemoryError" or "out of memory" in str(exc).lower()


# ----------------------------------------------------------------------------------------------- modes
def parse_tolerances(text):
    out = dict(DEFAULT_TOLERANCES)
    if text:
        for key, pair in json.loads(text).items():
            out[key] = (float(pair[0]), float(pair[1]))
    return out


def inject_fault(stage):
    """Faults for rocmdoctor's tests: a hang (at start) or an abort (where the first kernel would launch)."""
    if FAULT == "hang" and stage == "start":
        # A grandchild too, so rocmdoctor's kill of the whole process group is observable.
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        emit({"type": "fault", "fault": "hang", "child_pid": child.pid})
        time.sleep(600)
    if FAULT in ("abort-nobinary", "abort") and stage == "kernel":
        text = NO_BINARY_TEXT if FAULT == "abort-nobinary" else "terminate called: rocmdoctor test fault"
        sys.stderr.write(text + "\n")
        sys.stderr.flush()
        os.abort()


def run_device(torch, args, sizes, tolerances):
    cpu_mode = args.device == "cpu"
    enum = enumeration(torch, cpu_mode) if args.enumerate else None
    if not cpu_mode:
        if not torch.cuda.is_available():
            fatal("no-gpu", "torch.cuda.is_available() is False", 4)
        dev_index = torch.device(args.device).index or 0
        if dev_index >= torch.cuda.device_count():
            fatal("no-such-device", f"torch sees {torch.cuda.device_count()} GPU(s); {args.device} does not exist", 4)
        torch.cuda.set_device(dev_index)
    dev = Dev(torch, args.device)
    arch_list = enum["arch_list"] if enum else []
    if not enum:
        try:
            arch_list = list(torch.cuda.get_arch_list())
        except Exception:
            arch_list = []
    pin_precision(torch)
    inject_fault("kernel")
    steps = [("arch", check_arch, (torch, dev, arch_list)),
             ("alloc", check_alloc, (torch, dev, sizes["alloc_mb"])),
             ("copy", check_copy, (torch, dev, sizes["copy_mb"])),
             ("elementwise", check_elementwise, (torch, dev, sizes["elementwise"]))]
    steps += [("gemm:" + name, check_gemm, (torch, dev, sizes["gemm"], name, tolerances))
              for name in ("fp32", "fp16", "bf16")]
    if args.level >= 2:
        steps += [("triton:add", check_triton, (torch, dev, sizes["triton_mm"], tolerances)),
                  ("hip", check_hip, (torch, dev)),
                  ("bandwidth", check_bandwidth, (torch, dev, sizes["bw_mb"], sizes["bw_iters"], sizes["min_time"]))]
        steps += [("tflops:" + name, check_tflops,
                   (torch, dev, sizes["tflops_n"], sizes["tflops_iters"], name, sizes["min_time"]))
                  for name in ("fp16", "bf16")]
    if args.level >= 3:
        seconds = args.duration if args.duration is not None else sizes["stress_s"]
        steps += [("stress", check_stress, (torch, dev, sizes["stress_n"], seconds, tolerances)),
                  ("memtest", check_memtest, (torch, dev, sizes))]
    for name, fn, fn_args in steps:
        guarded(name, fn, *fn_args)


def pin_precision(torch):
    """Full fp32 and full-precision reductions for the results compared with float64 on the CPU.

    Inherited settings would turn a correct GPU into a false mismatch: TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1
    (or HIPBLASLT_ALLOW_TF32 on ROCm) makes fp32 GEMMs TF32, and the default reduced-precision split-K
    reductions for fp16/bf16 can exceed the bf16 tolerance at K=1024. Attributes an older torch lacks are
    skipped one by one."""
    settings = (("backends.cuda.matmul", "allow_tf32", False), ("backends.cudnn", "allow_tf32", False),
                ("backends.cuda.matmul", "allow_fp16_reduced_precision_reduction", False),
                ("backends.cuda.matmul", "allow_bf16_reduced_precision_reduction", False))
    for path, attr, value in settings:
        try:
            obj = torch
            for part in path.split("."):
                obj = getattr(obj, part)
            setattr(obj, attr, value)
        except Exception:
            pass
    try:
        torch.set_float32_matmul_precision("highest")
    except Exception:
        pass


def guarded(name, fn, *args):
    """Run one check; an exception the check did not expect becomes its ``error`` result, and the next
    check still runs (a bug in one check, or a torch API that differs, must not cost the others)."""
    try:
        fn(*args)
    except Exception as exc:
        result(name, "error", "the check itself raised " + _short(exc))


def run_p2p(torch, args, sizes):
    """Copies between every ordered pair of the listed devices, byte-checked, with GB/s per pair."""
    specs = [s for s in args.peers.split(",") if s]
    n = sizes["p2p_mb"] << 20
    host = torch.randint(0, 256, (n,), dtype=torch.uint8, generator=torch.Generator().manual_seed(3))
    worst_bw, pairs, failed = None, [], []
    srcs = {}
    inject_fault("kernel")
    try:
        for spec in specs:
            srcs[spec] = host.to(spec)
    except Exception as exc:
        result("p2p", "fail", f"copying {n >> 20} MiB to every device failed: {_short(exc)}", pairs=[])
        return
    for i, a in enumerate(specs):
        for j, b in enumerate(specs):
            if i == j:
                continue
            da, db = torch.device(a), torch.device(b)
            peer = None
            try:
                if da.type == "cuda" and db.type == "cuda":
                    peer = bool(torch.cuda.can_device_access_peer(da.index or 0, db.index or 0))
                dst = torch.empty(n, dtype=torch.uint8, device=db)

                def sync(da=da, db=db):
                    for d in (da, db):
                        if d.type == "cuda":
                            torch.cuda.synchronize(d)

                # 64 MiB over XGMI takes < 1 ms: timed like the device checks, over at least min_time
                secs, iters = timed(lambda dst=dst, src=srcs[a]: dst.copy_(src), sync, 5, 1, sizes["min_time"])
                back = dst.to("cpu")
                if fault_targets("p2p") and not pairs:
                    back[11] ^= 0x01
                bad = int((back != host).sum())
            except Exception as exc:
                failed.append(f"{a}->{b}: {_short(exc)}")
                continue
            gbs = n * iters / secs / 1e9
            pairs.append({"src": a, "dst": b, "gbs": sig4(gbs), "peer_access": peer, "mismatches": bad})
            if bad:
                failed.append(f"{a}->{b}: {bad} byte(s) differ")
            worst_bw = gbs if worst_bw is None else min(worst_bw, gbs)
    status = "fail" if failed else "ok"
    detail = (f"{len(pairs)} pair(s) of {n >> 20} MiB copies exact; slowest {worst_bw or 0.0:.1f} GB/s"
              if not failed else "; ".join(failed[:8]))
    result("p2p", status, detail, value=sig4(worst_bw) if worst_bw else None, unit="GB/s", pairs=pairs)


def run_allreduce(torch, args, sizes):
    """One rank of an all-reduce over torch.distributed (nccl = RCCL on ROCm, gloo on the CPU)."""
    import datetime

    import torch.distributed as dist

    rank, world = args.rank, args.world_size
    if not dist.is_available():
        result("allreduce", "skip", "torch.distributed is not available in this torch build", rank=rank)
        return
    if args.backend == "nccl" and not dist.is_nccl_available():
        result("allreduce", "skip", "this torch has no NCCL/RCCL backend", rank=rank)
        return
    inject_fault("kernel")
    try:
        if args.device != "cpu":
            torch.cuda.set_device(torch.device(args.device).index or 0)
        dist.init_process_group(args.backend, init_method=args.init_method, rank=rank, world_size=world,
                                timeout=datetime.timedelta(seconds=args.collective_timeout))
        n = (sizes["allreduce_mb"] << 20) // 4
        t = torch.full((n,), float(rank + 1), device=args.device)
        dist.all_reduce(t)  # warm-up and correctness: sum of 1..world in every element
        if fault_targets("allreduce") and rank == world - 1:
            t[17] += 1.0
        expect = world * (world + 1) / 2.0
        bad = int((t != expect).sum())
        iters = 5
        work = torch.ones(n, device=args.device)
        dist.barrier()
        if args.device != "cpu":
            torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(iters):
            dist.all_reduce(work)
        if args.device != "cpu":
            torch.cuda.synchronize()
        secs = max(time.perf_counter() - t0, 1e-9) / iters
        dist.destroy_process_group()
    except Exception as exc:
        result("allreduce", "fail", f"rank {rank}: {_short(exc)}", rank=rank, backend=args.backend)
        return
    algbw = n * 4 / secs / 1e9
    busbw = algbw * 2.0 * (world - 1) / world
    head = f"rank {rank}/{world} {args.backend} all-reduce of {(n * 4) >> 20} MiB: {bad} element(s) wrong; "
    if world == 1:  # one GPU: the library loaded, initialised and reduced, but nothing crossed a link
        result("allreduce", "ok" if bad == 0 else "fail", head + "one rank, so no bus bandwidth to measure",
               rank=rank, world_size=world, backend=args.backend, algbw=sig4(algbw), mismatches=bad)
        return
    result("allreduce", "ok" if bad == 0 else "fail", head + f"bus bandwidth {busbw:.2f} GB/s",
           value=sig4(busbw), unit="GB/s", rank=rank, world_size=world, backend=args.backend,
           algbw=sig4(algbw), mismatches=bad)


def main(argv=None):
    p = argparse.ArgumentParser(description="rocmdoctor GPU smoke tests (JSON lines on stdout)")
    p.add_argument("--mode", choices=("device", "p2p", "allreduce"), default="device")
    p.add_argument("--device", default="cuda:0", help="cuda:N or cpu")
    p.add_argument("--level", type=int, choices=(1, 2, 3), default=1)
    p.add_argument("--enumerate", action="store_true", help="describe every visible GPU first")
    p.add_argument("--quick", action="store_true", help="tiny sizes (rocmdoctor's own tests)")
    p.add_argument("--tolerances", default="", help='JSON {"fp16": [rtol, atol], ...}')
    p.add_argument("--duration", type=float, default=None, help="level 3 sustained GEMM seconds")
    p.add_argument("--peers", default="", help="p2p: comma-separated devices")
    p.add_argument("--rank", type=int, default=0)
    p.add_argument("--world-size", type=int, default=1)
    p.add_argument("--init-method", default="tcp://127.0.0.1:29500")
    p.add_argument("--backend", default="nccl")
    p.add_argument("--collective-timeout", type=float, default=60.0)
    args = p.parse_args(argv)
    if args.device == "cpu" and args.level >= 2:
        os.environ.setdefault("TRITON_INTERPRET", "1")  # must precede any triton import
    emit({"type": "start", "pid": os.getpid(), "mode": args.mode, "device": args.device, "level": args.level,
          "python": sys.version.split()[0]})
    inject_fault("start")
    try:
        import torch
    except ImportError as exc:
        fatal("no-torch", _short(exc), 3)
    except Exception as exc:  # a broken install: missing shared library, ABI mismatch
        fatal("torch-import-failed", _short(exc), 3)
    sizes = SIZES["quick" if args.quick else "full"]
    tolerances = parse_tolerances(args.tolerances)
    t0 = time.perf_counter()
    if args.mode == "device":
        run_device(torch, args, sizes, tolerances)
    elif args.mode == "p2p":
        run_p2p(torch, args, sizes)
    else:
        run_allreduce(torch, args, sizes)
    emit({"type": "done", "elapsed_s": round(time.perf_counter() - t0, 3)})
    return 0


if __name__ == "__main__":
    sys.exit(main())
