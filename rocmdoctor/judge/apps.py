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
    from rocmdoctor.matrix import AppSupport, Matrix
    from rocmdoctor.model import Host

# host.context key (set from free text: rocmdoctor.bundle.text) -> matrices/apps.toml name, and the finding a GPU
# outside its list gets: the framework an application bundles (torch.arch-missing), or a GPU library's own support
# (log.unsupported-gpu-target: hipDF on an RX 9060 XT, ROCm/legacy-rocm-build#6383; FlashAttention's CK extension
# built for a Strix Halo gfx1151, ROCm/flash-attention#111)
APP_CONTEXT = {"app-vllm": ("vllm", "torch.arch-missing"), "app-hipdf": ("hipdf", "log.unsupported-gpu-target"),
               "app-flash-attn-ck": ("flash-attn-ck", "log.unsupported-gpu-target")}


def app_lacks(host: Host, matrix: Matrix, finding_id: str = "torch.arch-missing") -> list[Finding]:
    """One FAIL per GPU outside the list of an application the report runs; nothing when no such app is seen,
    the GPU is not known, or an ISA override makes it run as another target (the override's own checks judge)."""
    if override_value(host):
        return []
    out: list[Finding] = []
    for key, (name, fid) in APP_CONTEXT.items():
        used, app = host.context.get(key), matrix.app_gfx.get(name)
        if used is None or app is None or fid != finding_id:
            continue
        for gpu in discrete_gpus(host):
            gfx = native_gfx(gpu)
            if gfx and gfx not in app.gfx:
                out.append(_outside(app, gfx, gpu_label(gpu), fid == "torch.arch-missing",
                                    [str(used.source), *(str(s) for s in gpu.sources[:1])]))
    return out


def _outside(app: AppSupport, gfx: str, label: str, bundled: bool, evidence: list[str]) -> Finding:
    """The finding for one GPU outside an application's list; the fix is upstream's own alternative where it
    names one (FlashAttention's Triton backend), else another runtime or a GPU the list names."""
    targets = ", ".join(app.gfx)
    if app.instead:
        fix = Fix(app.instead, list(app.instead_commands), app.instead_source.split(" : ", 1)[0])
    elif bundled:
        fix = Fix(f"Serve the model with a runtime built for {gfx} (llama.cpp, ollama), or run {app.label} on a GPU "
                  "its list names.", [], app.source.split(" : ", 1)[0])
    else:
        fix = Fix(f"Run {app.label} on a GPU its list names, or use a CPU/other library for this GPU.", [],
                  app.source.split(" : ", 1)[0])
    return finding(
        "torch.arch-missing" if bundled else "log.unsupported-gpu-target", Severity.FAIL,
        f"{app.label} has no GPU code for {label}: it is built for {targets} only" if bundled else
        f"{app.label} does not support {label}: it supports {targets} only",
        (f"{app.label}'s ROCm builds and images (and the PyTorch they bundle) are compiled for the targets "
         f"{app.label} supports; {gfx} is not one of them, so its kernels fail with 'invalid device function' "
         "even where ROCm itself supports the GPU.") if bundled else
        (f"{app.label} supports only {targets}; {gfx} is not one of them, so it fails on this GPU "
         "(a build error, a crash or a fault) even where ROCm itself supports the GPU."),
        evidence, fix)
