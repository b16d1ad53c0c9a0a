"""GPU checks: is there a GPU, which ISA is it really, and can the ROCm in use drive it."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Optional

from rocmdoctor.judge.facts import (
    PER_NODE_PREFIX,
    discrete_gpus,
    finding,
    gpu_label,
    gpu_sources_captured,
    gpu_summary,
    log_gfx,
    native_gfx,
    not_captured,
    ok,
    override_for,
    override_in_effect,
    per_node_overrides,
    per_node_supported,
    reported_user_space_gfx,
    rocm_context,
    said_ran_with,
    skip,
    torch_rocm,
    wheel_code,
    wheel_lib_missing,
)
from rocmdoctor.judge.gpu_evidence import (
    built_for_family,
    built_without,
    code_missing,
    distribution_build,
    failed_elsewhere,
    failed_here,
    gpu_evidence,
    isa_build_error,
    named_only,
    not_on_platform_list,
    nothing_failed,
    os_before_gpu_lists,
    override_cannot_run,
    override_said_needed,
    override_said_to_work,
    override_tried,
    override_would_help,
    refused_by_own_list,
    runs_here,
    unlisted_words,
    works_here,
)
from rocmdoctor.judge.gpu_history import first_listing as _first_listing
from rocmdoctor.judge.gpu_history import older_release_never_listed, older_than_data
from rocmdoctor.judge.gpu_unnamed import override_unnamed
from rocmdoctor.judge.registry import check
from rocmdoctor.judge.torch_kpack import image_refused
from rocmdoctor.matrix.types import SupportStatus
from rocmdoctor.model import Finding, Fix, Severity
from rocmdoctor.parse.kfd import gfx_from_version

if TYPE_CHECKING:
    from rocmdoctor.judge.facts import RocmContext
    from rocmdoctor.matrix import GpuTarget, Matrix
    from rocmdoctor.model import GpuInfo, Host, LogMatch

SUPPORT_URL = "https://rocm.docs.amd.com/projects/install-on-linux/en/latest/reference/system-requirements.html"


@check("gpu.none-found", "gpu.detected", title="GPU inventory")
def gpus_present(host: Host, matrix: Matrix) -> list[Finding]:
    seen = gpu_sources_captured(host)
    said = host.context.get("no-gpu-said")
    if said is not None and not host.gpus:  # the reporter's own word (ROCm/rocm-systems#1153)
        return [replace(finding(
            "gpu.none-found", Severity.FAIL, "The machine has no AMD GPU (the report says so)",
            "Without an AMD GPU the ROCm runtime has nothing to open: rocminfo fails (under WSL with "
            "HSA_STATUS_ERROR_OUT_OF_RESOURCES) and every GPU program falls back or stops. Compiling for AMD GPUs "
            "needs no GPU; running does.",
            [str(said.source)],
            Fix("Run GPU code on a machine with a supported AMD GPU; compile-only work needs no runtime check:",
                ["lspci -nn -d 1002:"], SUPPORT_URL),
        ), root=True)]
    if "rocminfo-failed" in host.context:
        # a rocminfo that failed lists no agents because the runtime could not start, not because there is no GPU
        seen = [s for s in seen if s != "rocminfo"]
        if not seen and not host.gpus:
            return [skip("gpu.detected", "rocminfo failed before listing GPUs (see rocm.runtime-failed)")]
    if not seen:
        return [not_captured("gpu.detected", "GPU enumeration (rocminfo, kfd topology, drm sysfs, rocm-smi)")]
    if not host.gpus and (shown := host.context.get("gpu-shown-said")) is not None:  # an excerpt, not the list
        return [skip("gpu.detected", f"The report says '{shown.value}', but its excerpt lists none: not judged")]
    if not host.gpus:
        return [finding(
            "gpu.none-found", Severity.FAIL, "No AMD GPU found",
            f"None of the captured GPU sources ({', '.join(seen)}) lists an AMD GPU agent.",
            [f"captured: {', '.join(seen)}"],
            Fix("Check that the card is seated and visible on the PCI bus, that the amdgpu driver is loaded, "
                "and, in a container, that /dev/kfd and /dev/dri were passed through.",
                ["lspci -nn -d 1002:", "lsmod | grep amdgpu", "ls -l /dev/kfd /dev/dri"], SUPPORT_URL),
        )]
    names = gpu_summary(host)
    evidence = [s for g in host.gpus for s in gpu_evidence(g)][:4]
    return [ok("gpu.detected", f"Found {names}", evidence)]


@check("gpu.arch-unsupported", "gpu.override-needed", title="GPU target support")
def arch_support(host: Host, matrix: Matrix) -> list[Finding]:
    """Judge each discrete GPU's real ISA against the ROCm that will drive it (the wheel's, else the system's)."""
    if not host.gpus:
        return [override_said_needed(host) or override_unnamed(host) or skip("gpu.arch-unsupported", "No GPU to judge")]
    ctx = rocm_context(host, matrix, allow_latest=False)
    return [_arch_finding(host, matrix, ctx, gpu) for gpu in discrete_gpus(host)]


def _arch_finding(host: Host, matrix: Matrix, ctx: RocmContext, gpu: GpuInfo) -> Finding:
    """One GPU's ISA decides its finding; an override target is judged on the override, not on AMD's list."""
    gfx = native_gfx(gpu)
    if not gfx and gpu.chip_without_kfd:
        return _no_kfd_chip(gpu)
    if not gfx:
        return skip("gpu.arch-unsupported", f"{gpu_label(gpu)}: ISA not known")
    if not (ctx.version and matrix.support_status(gfx, ctx.version) == "supported"):
        said = override_said_to_work(host, gpu, gfx, gpu_evidence(gpu))
        if said is not None:
            return said
    target = matrix.gpu(gfx)
    if (listed := not_on_platform_list(host, matrix, gpu, gfx, target)) is not None:
        return listed
    wheel = _wheel_only_targets(host, matrix, ctx)
    if wheel is not None and gfx in wheel[0] and (wheel_lib_missing(host) or ("",))[0] != gfx:
        return ok("gpu.arch-unsupported", f"{gpu_label(gpu)}: {gfx} is a target of the installed torch wheel, "
                  f"which bundles its own ROCm {ctx.version} (no system ROCm to judge)", [wheel[1], ctx.why])
    if ctx.version and ctx.release is None and newer_than_data(matrix, ctx.version):
        return _newer_than_data(matrix, ctx, gpu, gfx)
    if ctx.version and ctx.release is None and older_than_data(matrix, ctx.version):
        return older_release_never_listed(host, matrix, ctx, gpu, gfx, target) or skip(
            "gpu.arch-unsupported", f"{gpu_label(gpu)}: ROCm {ctx.version} is older than rocmdoctor's data (its GPU "
            f"lists start at {_first_listing(matrix)}), so its support for {gfx} is not judged")
    if ctx.version:
        # the release the context resolved (a patch release missing from the data is judged by its series':
        # 'ROCm 6.2.3' by 6.2.4's list, not as a release that lists nothing; flash-attention#93)
        status = matrix.support_status(gfx, ctx.release.version if ctx.release is not None else ctx.version)
    elif target is not None and not matrix.releases_supporting(gfx=gfx):
        status = SupportStatus.NEVER  # whatever the ROCm version, none supports it
    else:
        return isa_build_error(host, gpu, gfx, gpu_evidence(gpu)) or skip("gpu.arch-unsupported",
                                                                          f"{gpu_label(gpu)}: {ctx.why}")
    if status == "supported":
        return ok("gpu.arch-unsupported", f"{gpu_label(gpu)} is supported by ROCm {ctx.version}", [ctx.why])
    if status == "deprecated":
        return _deprecated(host, matrix, ctx, gpu, gfx)
    if target is not None and target.override:
        return _by_override(host, matrix, ctx, gpu, gfx, status, target)
    if status == "unknown" and target is None:
        return skip("gpu.arch-unsupported", f"{gpu_label(gpu)}: {gfx} is not in rocmdoctor's matrix")
    if status == "unknown" and ctx.release is not None and not ctx.release.gfx_known:
        # the data has the release but not its GPU list (ROCm 5.2): no verdict (pytorch/pytorch#100795, a
        # working RX 6900 XT under torch 1.13.1+rocm5.2, had been called unsupported)
        return skip("gpu.arch-unsupported", f"{gpu_label(gpu)}: ROCm {ctx.version}'s GPU list is not in rocmdoctor's "
                    "data, so its support for " + gfx + " is not judged")
    distro = None if ctx.version else distribution_build(host, gpu, gfx, _first_listing(matrix), gpu_evidence(gpu))
    if distro is not None:
        return distro
    if not ctx.version and runs_here(host, gpu):
        words, why = unlisted_words(gpu, _first_listing(matrix))
        return finding("gpu.arch-unsupported", Severity.INFO, f"{gpu_label(gpu)}: {gfx} is {words}, but this host's "
                       "ROCm runtime enumerated it and the report shows no GPU-code error", why, gpu_evidence(gpu))
    lacks = _rocblas_lacks(host, gfx)
    if lacks is not None and not matrix.releases_supporting(gfx=gfx):
        return finding(
            "gpu.arch-unsupported", Severity.FAIL,
            f"{gpu_label(gpu)}: the ROCm in use ships no rocBLAS kernels for {gfx}",
            f"rocBLAS itself says it has no TensileLibrary for {gfx} (its list of available files lacks it), and no "
            "ROCm release in rocmdoctor's data supports this target: every matrix multiply fails.",
            [str(lacks.source) if lacks.source else lacks.text, *(gpu_evidence(gpu))],
            Fix(f"Use a ROCm build that carries {gfx} (AMD's TheRock packages are built per GPU family), or a "
                "container image built for it:", [f"rocmdoctor matrix show --gpu {gfx}"], SUPPORT_URL),
        )
    if wheel is not None:  # only the wheel's ROCm is known and this gfx is not among its targets: the wheel's
        # list decides (torch.arch-missing), not AMD's list for a ROCm that is not installed (rule 2 above)
        return skip("gpu.arch-unsupported", f"{gpu_label(gpu)}: the installed torch wheel has no code for {gfx} "
                    "(see torch.arch-missing); no system ROCm to judge")
    # pytorch.org/AMD wheels; TheRock's multi-arch index carries nearly every target as an opt-in extra
    if status == "never" and any(v.channel != "therock" for v in matrix.torch_variants(gfx=gfx)) \
            and not code_missing(host, ctx, gpu, gfx):
        return refused_by_own_list(host, ctx, gpu, gfx) or _unofficial(ctx, gpu, gfx)
    named = None if ctx.version else (os_before_gpu_lists(host, matrix, gpu, gfx)
                                      or named_only(host, gpu, gfx, _first_listing(matrix), gpu_evidence(gpu)))
    if named is not None:
        return named
    return _unsupported(matrix, ctx, gpu, gfx, status, target)


def _by_override(host: Host, matrix: Matrix, ctx: RocmContext, gpu: GpuInfo, gfx: str, status: str,
                 target: GpuTarget) -> Finding:
    """A target that runs another ISA's code under HSA_OVERRIDE_GFX_VERSION: judged on the override (never
    offered where nothing reads it), or unsupported where the override demonstrably did not help."""
    if "windows" in host.context:
        return built_without(host, gpu, gfx) or skip(
            "gpu.override-needed", f"{gpu_label(gpu)}: on native Windows nothing reads HSA_OVERRIDE_GFX_VERSION (the "
            f"HIP runtime there bypasses HSA, ROCm/TheRock#1719): {gfx} runs only with a build that includes it")
    if host.kernel.is_wsl or "wsl" in host.context:
        if status == "never" and not matrix.releases_supporting(gfx=gfx):  # WSL's list is a subset of these
            return _unsupported(matrix, ctx, gpu, gfx, status, target, under_wsl=True)
        return skip("gpu.override-needed", f"{gpu_label(gpu)}: under WSL the override does not work (AMD, "
                    "ROCm/legacy-rocm-build#3402): only the GPUs on AMD's WSL list run there")
    if override_cannot_run(host, matrix, ctx, gpu, target):  # a hang or an invalid-ISA abort under it (rule 27),
        return _unsupported(matrix, ctx, gpu, gfx, status, target)  # or a ROCm older than its ISA
    if override_tried(host, target.override or ""):
        if target.override_broken:  # the report tried the unreliable override and the error stayed
            return _unsupported(matrix, ctx, gpu, gfx, status, target)
        return skip("gpu.override-needed", f"{gpu_label(gpu)}: the report runs with HSA_OVERRIDE_GFX_VERSION="
                    f"{target.override} and the error remains: the program itself lacks the code (see the "
                    "log findings)")
    if image_refused(host, matrix) is not None:  # the build lacks the target (patientx/ComfyUI-Zluda#431)
        return skip("gpu.override-needed", f"{gpu_label(gpu)}: HIP refused the code image (see torch.arch-missing)")
    return _override_needed(host, matrix, ctx, gpu, gfx, target)


def _rocblas_lacks(host: Host, gfx: str) -> Optional[LogMatch]:
    """rocBLAS outside the torch wheel (a system or container ROCm) saying it has no kernels for ``gfx``."""
    hit = wheel_lib_missing(host)
    for m in host.logs:
        if m.signature == "rocblas-tensile-missing-arch" and log_gfx(m) == gfx and (hit is None or hit[1] is not m):
            return m
    return None


def _only_wheel_rocm(host: Host, matrix: Matrix, ctx: RocmContext) -> bool:
    """True when the ROCm judged against is the torch wheel's and no system ROCm or driver release is known."""
    tr = torch_rocm(host)
    return tr is not None and ctx.version == tr and rocm_context(host, matrix, True, False).version is None


def _wheel_only_targets(host: Host, matrix: Matrix, ctx: RocmContext) -> Optional[tuple[list[str], str]]:
    """The gfx targets of the torch wheel, when the only ROCm known is the one that wheel bundles; else None.

    A wheel's bundled HIP is not an installed ROCm (fixtures/README.md rule 2): AMD's deprecation or removal
    of a gfx in ROCm X is a verdict on an installed ROCm X, while a wheel built for ROCm X runs every target it
    was compiled for (torch.cuda.get_arch_list(), else the matrix's per-build list). When a system ROCm or a
    driver release is known, AMD's verdict for it stands and this answers None."""
    if host.torch is None or not _only_wheel_rocm(host, matrix, ctx):
        return None
    if host.torch.arch_list:
        return [a.split(":")[0] for a in host.torch.arch_list], "torch.cuda.get_arch_list()"
    v = wheel_code(host, matrix)
    if v is None or v.therock:  # TheRock: the targets are the installed [device-*] extras
        return None
    return list(v.gfx), f"{v.label}: built for {', '.join(v.gfx)} ({v.source})"


def _newer_than_data(matrix: Matrix, ctx: RocmContext, gpu: GpuInfo, gfx: str) -> Finding:
    return finding(
        "gpu.arch-unsupported", Severity.INFO,
        f"{gpu_label(gpu)}: ROCm {ctx.version} is newer than rocmdoctor's data",
        f"{ctx.why}. rocmdoctor's matrix ends at ROCm {matrix.latest_release().version}, so it cannot say "
        f"whether {ctx.version} supports {gfx}"
        + (f" (the data lists it through {_last(matrix, gfx)})." if _last(matrix, gfx) else "."),
        [ctx.why, *(gpu_evidence(gpu))])


def _deprecated(host: Host, matrix: Matrix, ctx: RocmContext, gpu: GpuInfo, gfx: str) -> Finding:
    """A wheel's bundled HIP is not an installed ROCm (fixtures/README.md rule 2): with no system ROCm known
    the deprecation is worth knowing, not a warning (a wheel built for this gfx never gets here: it is ok).
    With a system ROCm known, AMD's deprecation is about the installed stack: a warning."""
    from_wheel = _only_wheel_rocm(host, matrix, ctx)
    return finding(
        "gpu.arch-unsupported", Severity.INFO if from_wheel else Severity.WARN,
        f"{gpu_label(gpu)} is deprecated in ROCm {ctx.version}",
        f"AMD marks {gfx} as deprecated in ROCm {ctx.version} ({ctx.why}): it still works but receives no "
        "fixes and will be removed in a later release.",
        [ctx.why, *(gpu_evidence(gpu))],
        Fix("Pin this ROCm / PyTorch release on this machine; do not upgrade past the last release that "
            "supports it (see `rocmdoctor matrix show --gpu " + gfx + "`).",
            [f"rocmdoctor matrix show --gpu {gfx}"], SUPPORT_URL),
    )


def _override_needed(host: Host, matrix: Matrix, ctx: RocmContext, gpu: GpuInfo, gfx: str,
                     target: GpuTarget) -> Finding:
    """A GPU the ROCm libraries ship no code for, but that runs another ISA's code under
    HSA_OVERRIDE_GFX_VERSION: fine when the override is active, a failure when it is visibly missing."""
    override = target.override or ""
    active = override_in_effect(host, gpu, ctx.version)
    setting = override_for(host, gpu, ctx.version)
    wanted = gfx_from_version(override)
    flaky = target.override_broken
    note = target.override_note
    # An override only *mentioned* in a report (prose, not the failing process's environment) is the fix discussed.
    mentioned = "env" not in host.captured and "override-shell" in host.context and len(host.gpus) == 1
    if flaky and host.torch is not None and host.torch.arch_list and wanted in host.torch.arch_list:
        return skip("gpu.override-needed", f"{gpu_label(gpu)}: the override to {wanted} is known to be "
                                           "unstable here; see torch.arch-missing")
    if active and active == wanted:  # (a shell export in prose never reaches host.env: active is real)
        reported = reported_user_space_gfx(gpu)
        # the run working under it beats the data's caution (ollama/ollama#9184: a 680M at 100% GPU under 10.3.0)
        return finding(
            "gpu.override-needed", Severity.WARN if flaky and works_here(host) is None else Severity.OK,
            f"{gpu_label(gpu)} runs as {wanted} through {setting[0] if setting else 'an override'}={override}"
            + (" (known to be unstable on this GPU)" if flaky else ""),
            note if flaky else "",
            [f"rocminfo reports {reported}" if reported
             else f"env.txt: {setting[0]}={setting[1]}" if setting else "override active"])
    # a missing-GPU-code error in the input is the process telling that it ran without the override
    code_error = override_would_help(host)
    ran_with = said_ran_with(host, override) and not code_error  # "I tried HSA_OVERRIDE_...=10.3.0 python main.py"
    # a crash the report tells of or shows (a segfault: ROCm/hip#3282, gfx90c), with the override named nowhere in
    # it: it ran without (pytorch/pytorch#111355)
    told = ("crash-said" in host.context or any(m.finding_id == "log.segfault" for m in host.logs)) \
        and not any(k.startswith("override-") for k in host.context)
    runtime_saw = reported_user_space_gfx(gpu) and not failed_elsewhere(host, gpu, gfx)
    unseen = "env" not in host.captured and not runtime_saw and not (mentioned or code_error or told)
    if ran_with or unseen:
        return skip("gpu.override-needed", f"{gpu_label(gpu)} needs HSA_OVERRIDE_GFX_VERSION={override}; " +
                    ("the report ran with it" if ran_with else "whether it is set was not captured"))
    if (built := built_for_family(host, gpu, gfx)) is not None:
        return built
    ran = host.context.get("gpu-run-ok")
    if ran is not None and not failed_here(host) and len(host.gpus) == 1:  # (failed_here includes code errors)
        # direct evidence beats the table: work ran on the GPU under its own target (a distribution's or the
        # program's own build carries code for it; ggml-org/llama.cpp#26454, gfx90c on Fedora 44)
        return finding("gpu.override-needed", Severity.OK,
                       f"{gpu_label(gpu)} runs its own {gfx} code: a program ran on it without the override",
                       "", [str(ran.source), *gpu_evidence(gpu)[:1]])
    # rocminfo names the GPU's own target (no override in effect) and nothing failed: the table's prediction for builds
    # without its code is information (ROCm/ROCm-docker#149, a gfx1102; warpfront/hipfire#353, a gfx1152 under HIP 7.2)
    quiet = "rocminfo" in gpu.gfx_by_source and not mentioned and nothing_failed(host)
    return finding(
        "gpu.override-needed", Severity.INFO if quiet else Severity.FAIL,
        f"{gpu_label(gpu)} needs HSA_OVERRIDE_GFX_VERSION={override}" + (" where a build lacks its code" if quiet
                                                                          else ""),
        (f"AMD's support list and older PyTorch wheels carry no code objects for {gfx}; nothing in the report shows "
         "a program failing, so this is the fix if one does" if quiet
         else f"ROCm and the PyTorch wheels ship no code objects for {gfx}") + f", but it runs the {wanted} ISA. "
        f"Without the override, kernels fail with 'hipErrorNoBinaryForGpu' or 'invalid device function'."
        # an override to an ISA no ROCm release supports (gfx1013 runs as gfx1010) helps only libraries that carry it
        + (f" Caution: {note}" if (flaky or not matrix.releases_supporting(gfx=wanted)) and note else "")
        + _ignored_per_node(host, gpu, ctx.version),
        gpu_evidence(gpu) + _override_evidence(host),
        _override_fix(host, gpu, override, ctx.version),
    )


def _no_kfd_chip(gpu: GpuInfo) -> Finding:
    return finding(
        "gpu.arch-unsupported", Severity.FAIL,
        f"{gpu_label(gpu)}: its chip ({gpu.chip_without_kfd}) is not served by the kernel's compute driver; no "
        "ROCm release can use it",
        "The kernel's compute driver (kfd) has no case for this chip ('not supported in kfd'), so /dev/kfd never "
        "offers it to ROCm, whatever user space is installed. It still works for display and OpenGL/Vulkan.",
        gpu_evidence(gpu),
        Fix("Use a GPU ROCm supports, or a non-ROCm backend (Vulkan, OpenCL from Mesa) for this one:",
            ["rocmdoctor matrix show"], SUPPORT_URL),
    )


def _unofficial(ctx: RocmContext, gpu: GpuInfo, gfx: str) -> Finding:
    """Not on AMD's list but in PyTorch's wheels: a warning about an installed ROCm that does not list it. With no
    ROCm version known there is nothing installed to warn about, and for a Ryzen APU the list is silent, not a
    verdict (AMD's Radeon/Ryzen pages, which list some APUs, are not in the data): information."""
    if not ctx.version or gpu.is_apu:
        # AMD's compatibility matrix (the data's source) lists no Ryzen APU at all: its silence is no verdict
        return finding(
            "gpu.arch-unsupported", Severity.INFO,
            f"{gpu_label(gpu)}: {gfx} is not in AMD's ROCm compatibility matrix",
            f"{gfx} is in no ROCm release of rocmdoctor's data (AMD's compatibility matrix, which lists no Ryzen "
            "APU; AMD's Radeon and Ryzen pages may list it), and PyTorch's ROCm wheels include code objects for "
            f"it ({ctx.why}).",
            [ctx.why, *(gpu_evidence(gpu))],
            Fix("No action needed if it works; use `rocmdoctor smoke` to prove it.", ["rocmdoctor smoke"],
                SUPPORT_URL),
        )
    return finding(
        "gpu.arch-unsupported", Severity.WARN,
        f"{gpu_label(gpu)} is not officially supported by ROCm {ctx.version}",
        f"{gfx} is not in AMD's support list for ROCm {ctx.version}, but PyTorch's ROCm wheels include "
        "code objects for it: it usually works, without AMD's validation.",
        [ctx.why, *(gpu_evidence(gpu))],
        Fix("No action needed if it works; use `rocmdoctor smoke` to prove it.", ["rocmdoctor smoke"], SUPPORT_URL),
    )


def _unsupported(matrix: Matrix, ctx: RocmContext, gpu: GpuInfo, gfx: str, status: str,
                 target: Optional[GpuTarget], under_wsl: bool = False) -> Finding:
    last = [r.version for r in matrix.releases_supporting(gfx=gfx)]
    first = last[-1] if last else None  # newest first: a "never" before the first release that lists it is "not yet"
    why = {"removed": f"support for {gfx} was removed by ROCm {ctx.version}",
           "never": (f"ROCm {ctx.version} predates support for {gfx} (first listed in ROCm {first})" if first
                     and ctx.version else
                     f"no ROCm release in rocmdoctor's data ({_first_listing(matrix)} and later) supports {gfx}"),
           "unknown": f"ROCm {ctx.version} does not list {gfx}"}.get(status, status)
    broken = target.override_note if target is not None and target.override_broken else ""
    wheels = [v.torch for v in matrix.torch_variants(gfx=gfx) if v.channel == "pytorch"]  # newest first
    if under_wsl:  # the override that runs it on Linux does not work there (AMD, ROCm/legacy-rocm-build#3402)
        broken = ("Under WSL HSA_OVERRIDE_GFX_VERSION does not work, and AMD's WSL list holds only GPUs its Linux "
                  "releases support: this GPU cannot run ROCm under WSL.")
    return finding(
        "gpu.arch-unsupported", Severity.FAIL,
        f"{gpu_label(gpu)} is not supported by ROCm {ctx.version}" if ctx.version
        else f"{gpu_label(gpu)} is supported by no ROCm release since {_first_listing(matrix)}",
        f"{why[:1].upper()}{why[1:]} ({ctx.why}). {broken}".strip(),
        gpu_evidence(gpu),
        Fix((f"Use ROCm {first} or newer, which supports it" if status == "never" and first and ctx.version else
             f"Use a ROCm release that still supports it (last: {last[0]})" if last else
             f"No ROCm release supports this GPU; pytorch.org's ROCm wheels carry code for {gfx} from torch "
             f"{wheels[-1]} on: use one of those without an override, or a supported card." if wheels else
             "No prebuilt ROCm or PyTorch supports this GPU: build PyTorch from source with "
             f"PYTORCH_ROCM_ARCH={gfx}, or use a supported card.")
            + ("" if not last else f"; see `rocmdoctor matrix show --gpu {gfx}`."),
            [f"rocmdoctor matrix show --gpu {gfx}"], SUPPORT_URL),
    )


def _override_evidence(host: Host) -> list[str]:
    """What the report says about the override in the failing process, the service and the shell."""
    out = []
    for key, what in (("override-process", "the failing process had HSA_OVERRIDE_GFX_VERSION={}"),
                      ("override-service", "the service sets HSA_OVERRIDE_GFX_VERSION={}"),
                      ("override-shell", "the shell exports HSA_OVERRIDE_GFX_VERSION={}")):
        fact = host.context.get(key)
        if fact is not None:
            out.append(f"{what.format(fact.value or '(empty)')} — {fact.source}")
    return out


def _context_override_fix(host: Host, override: str) -> Fix:
    """The override where the failing process reads it: a systemd service (ollama) does not see the shell's
    environment, a container needs -e, a shell needs export."""
    proc = host.context.get("override-process")
    shell = host.context.get("override-shell")
    if "service" in host.context or (proc is not None and not proc.value):
        ollama = "ollama" in str(host.context.get("service", "")).lower() or proc is not None
        unit = "ollama.service" if ollama else "<unit>.service"
        lead = ("The failing process is a service and did not have the override"
                + (" (the shell's export does not reach it)" if shell is not None else "")
                + "; set it in the unit:")
        return Fix(lead, [f"sudo systemctl edit {unit}",
                          f'# add: [Service]  Environment="HSA_OVERRIDE_GFX_VERSION={override}"',
                          f"sudo systemctl restart {unit}"], SUPPORT_URL)
    if "container" in host.context or "container-run" in host.context:
        return Fix("Pass the override into the container:", [f"docker run -e HSA_OVERRIDE_GFX_VERSION={override} ..."],
                   SUPPORT_URL)
    return Fix("Set the override for the processes that use this GPU (not globally on a host with other "
               "GPU models):", [f"export HSA_OVERRIDE_GFX_VERSION={override}"], SUPPORT_URL)


def newer_than_data(matrix: Matrix, version: str) -> bool:
    """A release past the newest one the matrix knows (a nightly '+rocm7.13'): not judged as unsupported."""
    from rocmdoctor.judge.facts import _vkey

    try:
        latest = matrix.latest_release().version
    except LookupError:
        return True
    return _vkey(version) > _vkey(latest)


def _last(matrix: Matrix, gfx: str) -> str:
    rels = [r.version for r in matrix.releases_supporting(gfx=gfx)]
    return rels[0] if rels else ""  # releases_supporting lists the newest first


def _mixed(host: Host) -> bool:
    return len({native_gfx(g) for g in host.gpus if native_gfx(g)}) > 1


def _ignored_per_node(host: Host, gpu: GpuInfo, rocm: Optional[str]) -> str:
    """Why a per-node override that is set does not count (a release older than 6.2 does not read it)."""
    if gpu.kfd_node is None or gpu.kfd_node not in per_node_overrides(host):
        return ""
    if per_node_supported(rocm) is False:
        return (f" {PER_NODE_PREFIX}{gpu.kfd_node} is set, but ROCm {rocm} does not read per-GPU overrides "
                "(ROCm 6.2 and later do).")
    return ""


def _override_fix(host: Host, gpu: GpuInfo, value: str, rocm: Optional[str]) -> Fix:
    """On a host with several GPU models the global variable would change them all: where the ROCm in use
    reads ``HSA_OVERRIDE_GFX_VERSION_<node>`` (6.2+), set it for this GPU's KFD node only."""
    if _mixed(host) and gpu.kfd_node is not None and per_node_supported(rocm):
        return Fix(f"Override only this GPU (KFD node {gpu.kfd_node}; ROCm {rocm} reads per-GPU overrides), so the "
                   "other GPUs keep their own ISA:", [f"export {PER_NODE_PREFIX}{gpu.kfd_node}={value}"],
                   "https://github.com/ROCm/ROCT-Thunk-Interface/pull/104")
    if _mixed(host):  # an index is the runtime's only where something enumerated the GPUs (not prose's order)
        index = str(gpu.index) if gpu_sources_captured(host) or "app-log" in host.captured else "<index of this GPU>"
        return Fix("The override is one global value here (per-GPU overrides need ROCm 6.2+): set it only for "
                   "processes that see this GPU alone:",
                   [f"HIP_VISIBLE_DEVICES={index} HSA_OVERRIDE_GFX_VERSION={value} python train.py"], SUPPORT_URL)
    return _context_override_fix(host, value)  # one GPU model: where the failing process reads it
