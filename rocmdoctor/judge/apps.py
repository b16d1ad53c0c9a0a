"""Applications with their own GPU lists (``matrices/apps.toml``).

vLLM's wheels and images carry GPU code only for the targets vLLM supports, whatever the ROCm release or the
GPU itself supports: an RX 6800 XT (gfx1030) runs ROCm 6.3 but no vLLM build (ROCm/legacy-rocm-build#4447,
AMD: "vLLM itself only supports gfx1100+"). The finding is ``torch.arch-missing``: the framework the
application bundles has no code for the GPU, and the first kernel fails with "invalid device function".
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rocmdoctor.judge.facts import discrete_gpus, finding, gpu_label, native_gfx, override_value
from rocmdoctor.model import Finding, Fix, Severity

if TYPE_CHECKING:
    from rocmdoctor.matrix import Matrix
    from rocmdoctor.model import Host

# host.context key (set from free text: rocmdoctor.bundle.text) -> matrices/apps.toml name, and the finding a GPU
# outside its list gets: the framework an application bundles (torch.arch-missing), or a GPU library's own support
# (log.unsupported-gpu-target: hipDF on an RX 9060 XT, ROCm/legacy-rocm-build#6383)
APP_CONTEXT = {"app-vllm": ("vllm", "torch.arch-missing"), "app-hipdf": ("hipdf", "log.unsupported-gpu-target")}


def app_lacks(host: Host, matrix: Matrix, finding_id: str = "torch.arch-missing") -> list[Finding]:
    """One FAIL per GPU outside the list of an application the report runs; nothing when no such app is seen,
    the GPU is not known, or an ISA override makes it run as another target (the override's own checks judge)."""
    if override_value(host):
        return []
    out: list[Finding] = []
    for key, (name, fid) in APP_CONTEXT.items():
        used, row = host.context.get(key), matrix.app_gfx.get(name)
        if used is None or row is None or fid != finding_id:
            continue
        label, targets, source = row
        for gpu in discrete_gpus(host):
            gfx = native_gfx(gpu)
            if not gfx or gfx in targets:
                continue
            bundled = fid == "torch.arch-missing"
            out.append(finding(
                fid, Severity.FAIL,
                f"{label} has no GPU code for {gpu_label(gpu)}: it is built for {', '.join(targets)} only",
                (f"{label}'s ROCm builds and images (and the PyTorch they bundle) are compiled for the targets "
                 f"{label} supports; {gfx} is not one of them, so its kernels fail with 'invalid device function' "
                 "even where ROCm itself supports the GPU.") if bundled else
                (f"{label} supports only {', '.join(targets)}; {gfx} is not one of them, so it fails on this GPU "
                 "(a crash or a fault) even where ROCm itself supports the GPU."),
                [str(used.source), *(str(s) for s in gpu.sources[:1])],
                Fix(f"Serve the model with a runtime built for {gfx} (llama.cpp, ollama), or run {label} on a GPU "
                    "its list names." if bundled else f"Run {label} on a GPU its list names, or use a CPU/other "
                    "library for this GPU.", [], source.split(" : ", 1)[0]),
            ))
    return out
