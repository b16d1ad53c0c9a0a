"""Applications with their own GPU lists (``matrices/apps.toml``).

vLLM's wheels and images carry GPU code only for the targets vLLM supports, whatever the ROCm release or the
GPU itself supports: an RX 6800 XT (gfx1030) runs ROCm 6.3 but no vLLM build (ROCm/legacy-rocm-build#4447,
AMD: "vLLM itself only supports gfx1100+"). The finding is ``torch.arch-missing``: the framework the
application bundles has no code for the GPU, and the first kernel fails with "invalid device function".
"""

from __future__ import annotations

import re
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
# built for a fixed list of targets: a GPU outside it gets no code object (log.no-binary-for-gpu): llama.cpp's
# Windows HIP Radeon release on a Radeon 860M, gfx1152 (ggml-org/llama.cpp#26127); AMD's AlphaFold image built for
# Instinct GPUs on an RX 6900 XT, gfx1030 (srinivamd/rocminstaller#6)
APP_CONTEXT = {"app-vllm": ("vllm", "torch.arch-missing"), "app-hipdf": ("hipdf", "log.unsupported-gpu-target"),
               "app-flash-attn-ck": ("flash-attn-ck", "log.unsupported-gpu-target"),
               "app-llamacpp-win-hip-radeon": ("llamacpp-win-hip-radeon", "log.no-binary-for-gpu"),
               "app-amd-alphafold-5.2": ("amd-alphafold-5.2", "log.no-binary-for-gpu")}
_BUILD = re.compile(r"\bb(\d{3,6})\b")


def _judged_release(app: AppSupport, said: str) -> bool:
    """A numbered release series is judged only through the build its data reaches (llama.cpp's b10107), and only
    when the report names the build: a later release may carry more targets."""
    return not app.through_build or _build_at_most(said, app.through_build)


def _build_at_most(said: str, bound: int) -> bool:
    """The report names a numbered build (llama.cpp's bNNNN) no newer than ``bound``."""
    build = _BUILD.search(said)
    return build is not None and int(build.group(1)) <= bound


def app_lacks(host: Host, matrix: Matrix, finding_id: str = "torch.arch-missing") -> list[Finding]:
    """One FAIL per GPU outside the list of an application the report runs; nothing when no such app is seen,
    the GPU is not known, or an ISA override makes it run as another target (the override's own checks judge)."""
    if override_value(host):
        return []
    out: list[Finding] = []
    for key, (name, fid) in APP_CONTEXT.items():
        used, app = host.context.get(key), matrix.app_gfx.get(name)
        if used is None or app is None or fid != finding_id or not _judged_release(app, used.value):
            continue
        # an earlier release built without targets a later change added (llama.cpp's Windows HIP Radeon release
        # through b6451 lacked gfx1200/gfx1201/gfx1151, ggml-org/llama.cpp#15972; an RX 9070 XT under b6346 failed
        # with 'invalid device function', ggml-org/llama.cpp#15106)
        earlier = app.earlier_lacks if _build_at_most(used.value, app.earlier_through_build) else ()
        for gpu in discrete_gpus(host):
            gfx = native_gfx(gpu)
            if not gfx or (gfx in app.gfx and gfx not in earlier):
                continue
            evidence = [str(used.source), *(str(s) for s in gpu.sources[:1])]
            out.append(_earlier_lacks(app, gfx, gpu_label(gpu), used.value, evidence) if gfx in earlier
                       else _prebuilt_lacks(app, gfx, gpu_label(gpu), evidence) if fid == "log.no-binary-for-gpu"
                       else _outside(app, gfx, gpu_label(gpu), fid == "torch.arch-missing", evidence))
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


def _prebuilt_lacks(app: AppSupport, gfx: str, label: str, evidence: list[str]) -> Finding:
    """A prebuilt (a release archive, a container image) compiled for a fixed list of targets, run on a GPU outside
    it: no code object for the GPU, so its kernels fail ('invalid device function', hipErrorNoBinaryForGpu)."""
    return finding(
        "log.no-binary-for-gpu", Severity.FAIL, f"{app.label} has no GPU code for {label}: it is built for "
        f"{', '.join(app.gfx)} only",
        f"Its GPU code is compiled for those targets; {gfx} is not one of them, so its first kernel fails with "
        "'invalid device function' or hipErrorNoBinaryForGpu even where ROCm itself supports the GPU.",
        [*evidence, app.source.split(" : ", 1)[0]],
        Fix(f"Use a build of it whose targets include {gfx} (or build it with -DGPU_TARGETS={gfx}), or a backend "
            "that does not need ROCm's target list (Vulkan).", [], app.source.split(" : ", 1)[0]),
    )


def _earlier_lacks(app: AppSupport, gfx: str, label: str, said: str, evidence: list[str]) -> Finding:
    """A release from before the change that added the GPU's target (``app.earlier_source``): no code object for it,
    though the series' later releases carry one."""
    lacks, through = ", ".join(app.earlier_lacks), f"b{app.earlier_through_build}"
    cited, build = app.earlier_source.split(" : ", 1)[0], _BUILD.search(said)
    return finding(
        "log.no-binary-for-gpu", Severity.FAIL, f"{app.label} {build.group(0) if build else said} has no GPU code for "
        f"{label}: releases through {through} were built without {lacks}",
        f"Its GPU code is compiled for a fixed list of targets, and {gfx} joined that list only after {through} "
        f"({cited}); so its first kernel fails with 'invalid device function' even where ROCm itself supports the GPU.",
        [*evidence, cited],
        Fix(f"Use a release after {through} (its targets include {gfx}), or a backend that does not need ROCm's "
            "target list (Vulkan).", [], cited),
    )
