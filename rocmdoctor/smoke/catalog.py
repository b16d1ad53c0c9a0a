"""What each smoke check proves, the finding it reports and the fix to try first: data, not code.

Also the fallback pass marks (the reviewed ones live in ``matrices/smoke.toml``) and the check-to-peak mapping
that the judge and the table share, so that one place says which measured value is compared with which peak.
"""

from __future__ import annotations

from typing import Optional

from rocmdoctor.model import Fix
from rocmdoctor.parse.logs import load_signatures
from rocmdoctor.smoke.model import smoke_id

# Fallbacks when the matrix cannot be read; the reviewed values live in matrices/smoke.toml.
DEFAULT_THRESHOLDS = {
    "bandwidth_min_fraction": 0.5, "gemm_min_fraction": 0.3, "stability_min_ratio": 0.8,
    "memory_match_tolerance": 0.1,
    "fp32_rtol": 1.3e-5, "fp32_atol": 1e-4, "fp16_rtol": 1e-2, "fp16_atol": 1e-2,
    "bf16_rtol": 1.6e-2, "bf16_atol": 2e-2,
}
THRESHOLD_KEYS_FROM_MATRIX = ("bandwidth_min_fraction", "gemm_min_fraction", "stability_min_ratio",
                              "memory_match_tolerance", "fp32_rtol", "fp32_atol", "fp16_rtol", "fp16_atol",
                              "bf16_rtol", "bf16_atol")

# What each program check proves: check-name prefix -> (finding id, what, word for a problem).
CHECKS: dict[str, tuple[str, str, str]] = {
    "arch": ("smoke.arch-missing", "GPU architecture compiled into torch", "missing"),
    "alloc": ("smoke.alloc-failed", "Device memory allocation", "failed"),
    "copy": ("smoke.copy-mismatch", "Host↔device copies, byte for byte", "corrupted data"),
    "elementwise": ("smoke.kernel-mismatch", "Elementwise kernel vs CPU", "wrong results"),
    "gemm": ("smoke.gemm-mismatch", "fp32/fp16/bf16 matrix products vs CPU", "wrong results"),
    "triton": ("smoke.triton-failed", "Triton JIT kernels (vector add, matmul)", "failed"),
    "hip": ("smoke.hip-failed", "HIP C++ kernel built with hipcc", "failed"),
    "bandwidth": ("smoke.bandwidth-low", "Device memory bandwidth", "below threshold"),
    "tflops": ("smoke.gemm-slow", "Dense fp16/bf16 GEMM throughput", "below threshold"),
    "p2p": ("smoke.p2p-failed", "Peer-to-peer copies between GPUs", "failed"),
    "allreduce": ("smoke.rccl-failed", "All-reduce across GPUs (torch.distributed)", "failed"),
    "stress": ("smoke.stress-mismatch", "Sustained GEMM, every result checked", "wrong results"),
    "memtest": ("smoke.memory-errors", "Memory pattern test", "errors found"),
    "stability": ("smoke.throughput-unstable", "Throughput stability under sustained load", "unstable"),
}
# Measured value -> (matrix product field holding the peak, threshold key).
PEAKS = {
    "bandwidth": ("peak_hbm_bw_gbs", "bandwidth_min_fraction"),
    "tflops:fp16": ("peak_fp16_tflops", "gemm_min_fraction"),
    "tflops:bf16": ("peak_bf16_tflops", "gemm_min_fraction"),
}
HANDLED_FATAL = ("no-torch", "torch-import-failed", "no-gpu", "no-such-device")  # each has its own finding
PROCESS_IDS = ("smoke.no-gpu", "smoke.no-torch", "smoke.torch-import-failed", "smoke.enumeration-mismatch",
               "smoke.timeout", "smoke.crashed")

_HW = ("Results that differ from the CPU on a GPU that otherwise works point at hardware, firmware or a "
       "driver problem. Re-run to see whether it repeats on the same GPU, look for amdgpu/ECC errors in the "
       "kernel log, and drain that GPU if it does.")
FIXES: dict[str, Fix] = {
    "smoke.no-gpu": Fix("torch cannot use any GPU here, so nothing was verified. `rocmdoctor check` says why "
                        "(driver, permissions, a CPU-only or wrong-ROCm torch, an unsupported GPU).",
                        ["rocmdoctor check"]),
    "smoke.no-torch": Fix("The target interpreter has no torch. Install a ROCm build into it, or point "
                          "--python at the interpreter that has it.", ["rocmdoctor install torch"]),
    "smoke.torch-import-failed": Fix("torch is installed but does not import (a missing or mismatched shared "
                                     "library, a broken install). Reinstall it.", ["rocmdoctor install torch"]),
    "smoke.enumeration-mismatch": Fix("torch sees a different set of GPUs than the driver. Check the "
                                      "*_VISIBLE_DEVICES variables, the render-node permissions of each GPU, "
                                      "and HSA_OVERRIDE_GFX_VERSION.", ["env | grep -E 'VISIBLE_DEVICES|HSA_'"]),
    "smoke.arch-missing": Fix("This torch has no kernels for the GPU's architecture: install a wheel whose "
                              "ROCm variant includes it, or (consumer RDNA cards only) set "
                              "HSA_OVERRIDE_GFX_VERSION to a compatible supported target.",
                              ["rocmdoctor install torch"]),
    "smoke.alloc-failed": Fix("Device memory could not be allocated or did not read back. Look for other "
                              "processes holding the GPU and for amdgpu errors in the kernel log.",
                              ["amd-smi process", "sudo dmesg | grep -iE 'amdgpu|kfd' | tail -n 50"]),
    "smoke.copy-mismatch": Fix(_HW, ["sudo dmesg | grep -iE 'amdgpu|kfd|ecc' | tail -n 50"]),
    "smoke.kernel-mismatch": Fix(_HW, ["sudo dmesg | grep -iE 'amdgpu|kfd|ecc' | tail -n 50"]),
    "smoke.gemm-mismatch": Fix(_HW + " A mismatch on one dtype only can also be a BLAS library bug: compare "
                               "with another torch/ROCm version.", ["amd-smi metric --ecc"]),
    "smoke.stress-mismatch": Fix(_HW, ["amd-smi metric --ecc"]),
    "smoke.memory-errors": Fix(_HW, ["amd-smi metric --ecc", "amd-smi bad-pages"]),
    "smoke.triton-failed": Fix("Triton could not compile or run a kernel: install the Triton build that "
                               "matches this torch (pytorch-triton-rocm / triton-rocm for ROCm wheels), and "
                               "check that the ROCm compiler (ld.lld) it needs is present.",
                               ["rocmdoctor install torch"]),
    "smoke.hip-failed": Fix("hipcc is present but could not build or run a trivial kernel for this GPU: "
                            "check that the ROCm toolchain matches the driver and supports this gfx target.",
                            ["hipcc --version", "hipconfig --full"]),
    "smoke.bandwidth-low": Fix("Memory bandwidth is far below the product's peak: look for a GPU stuck in a "
                               "low power/clock state, thermal throttling, or other work on the GPU.",
                               ["amd-smi metric --clock --power --temperature", "amd-smi process"]),
    "smoke.gemm-slow": Fix("Dense GEMM is far below the product's peak: a slow library path (hipBLAS instead "
                           "of hipBLASLt, a fallback kernel for an overridden gfx), low clocks or throttling.",
                           ["amd-smi metric --clock --power --temperature"]),
    "smoke.throughput-unstable": Fix("Throughput varied a lot under sustained load: typical of thermal or "
                                     "power throttling, or of other work sharing the GPU.",
                                     ["amd-smi metric --clock --power --temperature"]),
    "smoke.p2p-failed": Fix("Copies between GPUs failed or corrupted data: check the XGMI/PCIe topology, "
                            "IOMMU mode (iommu=pt) and PCIe ACS settings.", ["amd-smi topology"]),
    "smoke.rccl-failed": Fix("The all-reduce failed or produced wrong sums. Re-run with NCCL_DEBUG=INFO to see "
                             "RCCL's transport choice; check IOMMU (iommu=pt), PCIe ACS and /dev/shm size.",
                             ["NCCL_DEBUG=INFO rocmdoctor smoke --level 2"]),
    "smoke.timeout": Fix("A GPU did not answer within the timeout: a driver call hung. Look for amdgpu errors "
                         "in the kernel log; the GPU may need a reset or the node a reboot.",
                         ["sudo dmesg | grep -iE 'amdgpu|kfd' | tail -n 50"]),
    "smoke.crashed": Fix("The smoke program crashed with an error rocmdoctor does not know; the evidence holds "
                         "the end of its stderr.", []),
}


def finding_ids() -> list[str]:
    """Every finding id smoke can report (for ``check --select`` and the docs): its own and one per signature."""
    ids = [*PROCESS_IDS, *(v[0] for v in CHECKS.values())]
    ids += [smoke_id(s.finding) for s in load_signatures()]
    return sorted(set(ids))


def fix_for(fid: str) -> Optional[Fix]:
    """A fresh copy of ``fid``'s fix (a caller may extend its commands without changing the table)."""
    f = FIXES.get(fid)
    return None if f is None else Fix(f.explanation, list(f.commands), f.url)
