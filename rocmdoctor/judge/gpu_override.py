"""The HSA_OVERRIDE_GFX_VERSION check: does the override in effect fit every GPU the process sees.

A global override that one GPU needs makes every other GPU present itself as that target too (code for another
ISA can fault or hang there); a malformed value finds no GPU; on native Windows nothing reads it at all.
Split from judge/gpu.py, which decides whether a GPU *needs* the override.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from rocmdoctor.judge.facts import (
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
    skip,
)
from rocmdoctor.judge.registry import check
from rocmdoctor.model import Finding, Fix, Severity
from rocmdoctor.parse.kfd import gfx_from_version, version_of_gfx

if TYPE_CHECKING:
    from rocmdoctor.matrix import Matrix
    from rocmdoctor.model import GpuInfo, Host


def _override_on_windows(host: Host) -> list[Finding]:
    """Native Windows: the override does nothing there (AMD: the Windows HIP runtime does not go through HSA,
    ROCm/TheRock#1719); ollama's Windows discovery even reads it and rejects every GPU (ollama#9614)."""
    named = host.context.get("override-named")
    if named is None:
        return [skip("gpu.override-mismatch", "Native Windows: HSA_OVERRIDE_GFX_VERSION is not used there")]
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
        return _override_on_windows(host)
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
    if value is None and shell is not None and shell.value and len(host.gpus) > 1:
        value = shell.value  # a report about a global override on a multi-GPU host
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
    out = []
    natives = {native_gfx(g) for g in host.gpus if native_gfx(g)}
    for gpu in host.gpus:
        gfx = native_gfx(gpu)
        if not gfx or gfx == forced:
            continue
        if ctx.version:
            native_ok = matrix.support_status(gfx, ctx.release.version if ctx.release else ctx.version) == "supported"
        else:
            native_ok = bool(matrix.releases_supporting(gfx=gfx))
        target = matrix.gpu(gfx)
        fits = target is not None and target.override == value
        if native_ok or (not fits and len(natives) > 1):
            visible = [str(g.index) for g in host.gpus if native_gfx(g) != gfx]
            out.append(finding(
                "gpu.override-mismatch", Severity.WARN,
                f"HSA_OVERRIDE_GFX_VERSION={value} also applies to {gpu_label(gpu)}",
                f"The override makes every GPU in the process present itself as {forced}. {gpu_label(gpu)} "
                + ("is natively supported" if native_ok else f"is a different ISA ({gfx})")
                + ": code built for another ISA can fault, hang or return wrong results on it.",
                [f"env.txt: HSA_OVERRIDE_GFX_VERSION={value}", *(str(s) for s in gpu.sources[:2])],
                _mismatch_fix(host, matrix, ctx.version, value, visible),
            ))
    return out or [ok("gpu.override-mismatch", f"HSA_OVERRIDE_GFX_VERSION={value} matches the GPUs it is needed for")]


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
