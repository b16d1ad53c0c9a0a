"""The HSA_OVERRIDE_GFX_VERSION check: does the override in effect fit every GPU the process sees.

A global override that one GPU needs makes every other GPU present itself as that target too (code for another
ISA can fault or hang there); a malformed value finds no GPU; on native Windows nothing reads it at all.
Split from judge/gpu.py, which decides whether a GPU *needs* the override.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from rocmdoctor.judge.facts import (
    DID_NOT_HELP,
    PER_NODE_PREFIX,
    finding,
    gpu_label,
    native_gfx,
    not_captured,
    ok,
    override_fits,
    override_value,
    per_node_overrides,
    per_node_supported,
    relabelled,
    reported_user_space_gfx,
    rocm_context,
    said_ran_with,
    skip,
)
from rocmdoctor.judge.gpu import newer_than_data
from rocmdoctor.judge.gpu_evidence import (
    built_without,
    failed_here,
    failed_under_override,
    override_worked,
    works_here,
)
from rocmdoctor.judge.registry import check
from rocmdoctor.model import Finding, Fix, Severity
from rocmdoctor.parse.kfd import gfx_from_version, gfx_parts, version_of_gfx

if TYPE_CHECKING:
    from rocmdoctor.judge.facts import RocmContext
    from rocmdoctor.matrix import Matrix
    from rocmdoctor.model import Fact, GpuInfo, Host


def _override_on_windows(host: Host, matrix: Matrix) -> list[Finding]:
    """Native Windows: the override does nothing there (AMD: the Windows HIP runtime does not go through HSA,
    ROCm/TheRock#1719); ollama's Windows discovery even reads it and rejects every GPU (ollama#9614). Where
    gpu.arch-unsupported already fails on it (a program built for another target, run under the override that
    Windows ignores: ggml-org/llama.cpp#6509), the override is that verdict's reason, said once there."""
    named = host.context.get("override-named")
    if named is None:
        return [skip("gpu.override-mismatch", "Native Windows: HSA_OVERRIDE_GFX_VERSION is not used there")]
    if any((t := matrix.gpu(gfx := native_gfx(g) or "")) is not None and t.override and built_without(host, g, gfx)
           for g in host.gpus):
        return [finding("gpu.override-mismatch", Severity.INFO,
                        f"HSA_OVERRIDE_GFX_VERSION={named.value} is set on Windows, where nothing reads it (see "
                        "gpu.arch-unsupported)", "The program carries no code for this GPU's own target, and the "
                        "override that would run another target's code is not read on Windows: gpu.arch-unsupported "
                        "gives the verdict and the fix.", [str(named.source)] if named.source else [])]
    return [finding(
        "gpu.override-mismatch", Severity.WARN,
        f"HSA_OVERRIDE_GFX_VERSION={named.value} is set on Windows, where nothing reads it",
        "ROCr, the Linux HSA runtime, reads this variable; the Windows HIP runtime does not go through HSA, so it "
        "cannot make a GPU run another target's code. ollama's Windows GPU discovery (before its runner-based "
        "discovery) even skipped its support list when it was set and then rejected every GPU with 'supported "
        "types:[]' (ollama#9614).",
        [str(named.source)] if named.source else [],
        Fix("Remove it from the environment (PowerShell), restart the program, and use a build that includes this "
            "GPU (ollama: its Vulkan backend):",
            ["[Environment]::SetEnvironmentVariable('HSA_OVERRIDE_GFX_VERSION', $null, 'User')"]),
    )]


def _inferred_broken_override(host: Host, matrix: Matrix) -> list[Finding]:
    """A runtime reported a GPU as another target than its hardware (ollama's 'compute=gfx1100' for an 890M, which is
    gfx1150): an override is in effect even if the environment was not captured; where the data knows that override
    to fail on this GPU it is a warning (ollama, Crosstalk-Solutions/project-nomad#1074)."""
    out = []
    for gpu in host.gpus:
        native, reported = native_gfx(gpu), reported_user_space_gfx(gpu)
        target = matrix.gpu(native or "")
        if not native or not reported or native == reported or target is None or not target.override_broken:
            continue
        if reported == gfx_from_version(target.override or "") and works_here(host) is not None:
            continue  # its own override, and the run works under it (ollama/ollama#9184: a 680M at 100% GPU under
            # 10.3.0): the data's caution is gpu.override-needed's, not a wrong override
        out.append(finding(
            "gpu.override-mismatch", Severity.WARN,
            f"{gpu_label(gpu)} runs as {reported}: an HSA_OVERRIDE_GFX_VERSION is in effect that fails on {native}",
            f"The runtime reports the GPU as {reported} although the hardware is {native}: the process has an "
            "override. "
            + (target.override_note or "This override is known to fail on this GPU."),
            [str(s) for s in gpu.sources[:2]],
            Fix("Remove the override from the process's environment (the service unit or the container) and use a "
                "build that includes this GPU's own target:", ["unset HSA_OVERRIDE_GFX_VERSION"]),
        ))
    return out


def _relabelled_override(host: Host, missing: list[str], extra: list[str]) -> Finding:
    forced = extra[0]
    version = version_of_gfx(forced) or "?"
    fact = host.context["vulkan-gfx"]
    return finding(
        "gpu.override-mismatch", Severity.WARN,
        f"The runtime reports {', '.join(missing)} as {forced}: HSA_OVERRIDE_GFX_VERSION={version} is in effect for "
        "every GPU",
        f"The kernel driver (Vulkan) knows these GPUs as {fact.value.replace(',', ', ')}; ROCm reports "
        f"{forced} for a board that is {', '.join(missing)}. A global override set for the {forced} GPU (a shell "
        "profile, a service unit) makes every GPU in the process present itself as that ISA, and code built for "
        "it can fault or hang on the other board.",
        [str(fact.source), *[str(s) for g in host.gpus for s in g.sources[:1]]][:3],
        Fix("Find the override and set it per device instead (or drop it: the other board may need none):",
            ["grep -rn HSA_OVERRIDE_GFX_VERSION ~/.bashrc ~/.profile /etc/environment /etc/profile.d",
             "unset HSA_OVERRIDE_GFX_VERSION"]),
    )


def _fault_on_a_mixed_host(host: Host, matrix: Matrix) -> Optional[Finding]:
    """A GPU fault on a host that mixes a GPU needing an override with a natively supported one, environment not
    captured: the usual cause is the override exported for the first, which re-targets the second (an MI210 beside
    an RX 6600 faulting under a forgotten HSA_OVERRIDE_GFX_VERSION=10.3.0, ROCm/legacy-rocm-build#5238); a discrete
    GPU needing it, not an iGPU. A warning
    that names what to look for, not a verdict: the variable itself is not in the report."""
    fault = next((m for m in host.logs if m.finding_id in ("log.gpu-memory-access-fault", "log.gpu-hang")), None)
    if fault is None or len(host.gpus) < 2:
        return None
    # an iGPU is not what people export the override for beside a discrete GPU (its visibility is
    # gpu.igpu-visible's: ROCm/ROCm#6137, a W7900 hanging beside a Raphael iGPU, no override anywhere)
    needy = [(g, t.override) for g in host.gpus
             if (t := matrix.gpu(native_gfx(g) or "")) is not None and t.override and not g.is_apu
             and not matrix.releases_supporting(gfx=native_gfx(g))]
    if not needy:
        return None
    gpu, value = needy[0]
    forced = gfx_from_version(value)
    native = [g for g in host.gpus if (gfx := native_gfx(g)) and gfx != forced and matrix.releases_supporting(gfx=gfx)]
    if not native:
        return None
    return finding(
        "gpu.override-mismatch", Severity.WARN,
        f"A GPU fault beside {gpu_label(gpu)}: an HSA_OVERRIDE_GFX_VERSION={value} for it would also re-target "
        f"{gpu_label(native[0])}",
        f"{gpu_label(gpu)} runs only with the override; exported globally (a shell profile, a service unit) it makes "
        f"every GPU in the process present itself as {forced}, and code for {forced} faults on "
        f"{native_gfx(native[0])}. The report does not show the environment, so check it first.",
        [str(fault.source) if fault.source else fault.text,
         *[str(s) for s in gpu.sources[:1]]],
        Fix("Look for the override, and set it per device instead of globally:",
            ["env | grep HSA_OVERRIDE", "unset HSA_OVERRIDE_GFX_VERSION"]),
    )


@check("gpu.override-mismatch", title="HSA_OVERRIDE_GFX_VERSION")
def override_mismatch(host: Host, matrix: Matrix) -> list[Finding]:
    if "windows" in host.context:
        return _override_on_windows(host, matrix)
    value = override_value(host)
    inferred = _inferred_broken_override(host, matrix) if value is None else []
    if inferred:
        return inferred
    moved = relabelled(host) if value is None else None
    if moved and not override_fits(matrix, *moved):
        return [_relabelled_override(host, *moved)]
    suspected = _fault_on_a_mixed_host(host, matrix) if value is None and "env" not in host.captured else None
    if suspected is not None:
        return [suspected]
    shell = host.context.get("override-shell")
    if value is None and shell is not None and shell.value and (len(host.gpus) > 1 or _runs_with(host, shell)):
        value = shell.value  # a global override on a multi-GPU host, or the one the report's process runs with
    if "env" not in host.captured and value is None:
        return [not_captured("gpu.override-mismatch", "Environment")]
    bad = [(n, v) for n, v in sorted(per_node_overrides(host).items()) if gfx_from_version(v) is None]
    if bad:
        n, v = bad[0]
        return [finding(
            "gpu.override-mismatch", Severity.FAIL, f"{PER_NODE_PREFIX}{n}={v!r} is malformed",
            "The runtime expects MAJOR.MINOR.STEPPING in decimal (10.3.0 for gfx1030); the thunk refuses a "
            "malformed value and no GPU is found.",
            [f"env.txt: {PER_NODE_PREFIX}{n}={v}"],
            Fix("Set it in the documented form, or unset it:", [f"unset {PER_NODE_PREFIX}{n}"]),
        )]
    if value is None:
        # Without a GPU "not set" proves nothing about one: a skip, so a GPU-less host never shows "[✓] GPUs".
        if not host.gpus:
            return [skip("gpu.override-mismatch", "HSA_OVERRIDE_GFX_VERSION is not set (no GPU to judge)")]
        return [ok("gpu.override-mismatch", "HSA_OVERRIDE_GFX_VERSION is not set")]
    forced = gfx_from_version(value)
    if forced is None:
        return [finding(
            "gpu.override-mismatch", Severity.FAIL, f"HSA_OVERRIDE_GFX_VERSION={value!r} is malformed",
            "The runtime expects MAJOR.MINOR.STEPPING in decimal, e.g. 10.3.0 for gfx1030 or 11.0.0 for gfx1100; "
            "a malformed value is ignored or makes the runtime fail to find any GPU.",
            [f"env.txt: HSA_OVERRIDE_GFX_VERSION={value}"],
            Fix("Set it in the documented form, or unset it:", ["export HSA_OVERRIDE_GFX_VERSION=10.3.0",
                                                                "unset HSA_OVERRIDE_GFX_VERSION"]),
        )]
    if not host.gpus:
        return [skip("gpu.override-mismatch", "No GPU to compare the override with")]
    ctx = rocm_context(host, matrix, allow_latest=True)
    natives = {native_gfx(g) for g in host.gpus if native_gfx(g)}
    out = [f for gpu in host.gpus if (f := _applies_to(host, matrix, ctx, gpu, value, len(natives))) is not None]
    return out or [ok("gpu.override-mismatch", f"HSA_OVERRIDE_GFX_VERSION={value} matches the GPUs it is needed for")]


def _applies_to(host: Host, matrix: Matrix, ctx: RocmContext, gpu: GpuInfo, value: str,
                kinds: int) -> Optional[Finding]:
    """The override seen from one GPU: a warning where it re-targets a GPU that runs its own code (or another ISA
    on a host of several kinds), a failure where it takes the only GPU to another generation."""
    gfx, forced = native_gfx(gpu), gfx_from_version(value) or ""
    if not gfx or gfx == forced:
        return None
    if ctx.version and (ctx.release is not None or not newer_than_data(matrix, ctx.version)):
        native_ok = matrix.support_status(gfx, ctx.release.version if ctx.release else ctx.version) == "supported"
    else:
        native_ok = bool(matrix.releases_supporting(gfx=gfx))
    target = matrix.gpu(gfx)
    # the data knows overrides to fail on it, unless the report says its program works under this one; its own
    # override, with nothing failing under it, is no suspect (ROCm/legacy-rocm-build#1799: 9.0.0 on a gfx90c,
    # torch.cuda.is_available() True): its flakiness is gpu.override-needed's caution
    failing = failed_under_override(host) or "crash-said" in host.context
    own_fine = target is not None and target.override == value and not failing
    broken = target is not None and target.override_broken and override_worked(host) is None and not own_fine
    if not (native_ok or broken or (kinds > 1 and (target is None or target.override != value))):
        return None
    alone = _only_gpu_other_generation(host, gfx, forced)
    shell = host.context.get("override-shell")
    said = f"{shell.source}" if shell is not None and shell.source and "env" not in host.captured else ""
    visible = [str(g.index) for g in host.gpus if native_gfx(g) != gfx]
    return finding(
        "gpu.override-mismatch", Severity.FAIL if alone else Severity.WARN,
        f"HSA_OVERRIDE_GFX_VERSION={value} " + (f"makes {gpu_label(gpu)} run {forced} code" if alone
                                                else f"also applies to {gpu_label(gpu)}"),
        f"The override makes every GPU in the process present itself as {forced}. {gpu_label(gpu)} "
        + ("is natively supported" if native_ok else "is known to fail under an override" if broken
           else f"is a different ISA ({gfx})")
        + ": code built for another ISA can fault, hang or return wrong results on it."
        + (" Here no GPU needs it, and the target is another generation: AMD's thunk now refuses such an override "
           "(ROCm/rocm-systems#5686)." if alone else ""),
        [said or f"env.txt: HSA_OVERRIDE_GFX_VERSION={value}", *(str(s) for s in gpu.sources[:2])],
        Fix("Remove the override (wherever the program gets it: the shell, a service unit, a container's -e):",
            ["unset HSA_OVERRIDE_GFX_VERSION"]) if alone else _mismatch_fix(host, matrix, ctx.version, value, visible),
    )


def _runs_with(host: Host, shell: Fact[str]) -> bool:
    """The report's program runs with the override it names ("When running comfyui with ..."), not one it tried
    and dropped because it did not help ("adding ... does *not* fix the issue", ROCm/legacy-rocm-build#3015)."""
    said = shell.source.text or "" if shell.source else ""
    return said_ran_with(host, shell.value) and not DID_NOT_HELP.search(said)


def _only_gpu_other_generation(host: Host, gfx: str, forced: str) -> bool:
    """The override re-targets the host's only GPU to another major generation (gfx1151 run as gfx1201) and the
    report shows the run failing: no GPU needs it, and another generation's code crashes there
    (ROCm/rocm-systems#3531: KFD 'ih_fifo overflow' and a kernel crash); AMD's thunk now refuses such an override
    (ROCm/rocm-systems#5686, cross-major validation). Without a failure it is the risk, a warning; within a
    generation (11.0.0 on a gfx1101) it usually runs, as on a host with other GPUs."""
    own, other = gfx_parts(gfx), gfx_parts(forced)
    broke = failed_here(host) or "crash-said" in host.context  # the report shows the run failing, not only the risk
    return broke and len(host.gpus) == 1 and own is not None and other is not None and own[0] != other[0]


def _mismatch_fix(host: Host, matrix: Matrix, rocm: Optional[str], value: str, visible: list[str]) -> Fix:
    """Replace the global override by per-GPU ones where the ROCm in use reads them (6.2+)."""
    def needs(g: GpuInfo) -> bool:
        target = matrix.gpu(native_gfx(g) or "")
        return target is not None and target.override == value

    needy = [g for g in host.gpus if needs(g)]
    if per_node_supported(rocm) and needy and all(g.kfd_node is not None for g in needy):
        return Fix(f"ROCm {rocm} reads per-GPU overrides: set the override only for the GPUs that need it:",
                   ["unset HSA_OVERRIDE_GFX_VERSION"]
                   + [f"export {PER_NODE_PREFIX}{g.kfd_node}={value}  # GPU {g.index}" for g in needy],
                   "https://github.com/ROCm/ROCT-Thunk-Interface/pull/104")
    return Fix("Set the override only for the processes that need it, and hide the other GPUs from them:",
               [f"HIP_VISIBLE_DEVICES={','.join(visible) or '0'} HSA_OVERRIDE_GFX_VERSION={value} python train.py",
                "unset HSA_OVERRIDE_GFX_VERSION  # in the global shell profile"])
