"""What a report itself shows about a GPU, beside AMD's support list: a program failing on it, a ROCm runtime
listing it, a distribution's own ROCm build, or nothing installed and nothing failing.

:mod:`rocmdoctor.judge.gpu` asks these before it turns AMD's list into a verdict: direct evidence beats the table,
and where nothing was installed or run, the table is information, not a diagnosis. Split from gpu.py (500-line
limit)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Optional

from rocmdoctor.judge.facts import PROMPT_RUN, discrete_gpus, finding, gpu_label, log_gfx, said_ran_with, skip
from rocmdoctor.matrix.query import _vtuple
from rocmdoctor.model import Finding, Fix, Severity
from rocmdoctor.parse.kfd import gfx_from_version
from rocmdoctor.parse.signatures import by_id

if TYPE_CHECKING:
    from rocmdoctor.judge.facts import RocmContext
    from rocmdoctor.matrix import Matrix
    from rocmdoctor.matrix.types import GpuTarget
    from rocmdoctor.model import Fact, GpuInfo, Host, LogMatch

WINDOWS_LIST_URL = "https://rocm.docs.amd.com/projects/install-on-windows/en/latest/reference/system-requirements.html"

# a program that failed on the GPU, beyond missing code (a run that shows these is no proof the GPU works)
RUN_FAILURES = ("log.gpu-memory-access-fault", "log.gpu-hang", "log.segfault", "log.hsa-out-of-resources",
                "log.no-hip-gpus", "log.hip-invalid-device", "log.opencl-no-devices", "log.profiler-gpu-unsupported")
# a runtime that enumerated no GPU at all (OpenCL's platform with 0 devices, HIP's hipErrorNoDevice)
NO_DEVICE = ("log.opencl-no-devices", "log.hip-error-no-device", "log.no-hip-gpus")
# errors that say the program had no code for the GPU it ran on (ollama says "not supported" when the process
# had no override: ollama/ollama#8679)
CODE_ERRORS = ("log.no-binary-for-gpu", "log.invalid-device-function", "log.hip-invalid-image",
               "log.unsupported-gpu-target")
# the kernel refused the GPU before any program ran
KERNEL_FAILURES = ("log.pcie-atomics-missing", "log.kfd-unsupported-device", "log.amdgpu-init-failed")


def gpu_evidence(gpu: GpuInfo) -> list[str]:
    """The lines that named this GPU (or, when none were kept, which source said which gfx)."""
    return [str(s) for s in gpu.sources[:3]] or [f"{k}: {v}" for k, v in gpu.gfx_by_source.items()]


def override_helps(m: LogMatch) -> bool:
    """Whether an ISA override could supply what the line says is missing: not where a library's own architecture
    table lacks the GPU's whole family (cubecl-hip 0.5.0 on an RDNA2 GPU, tracel-ai/burn#3129)."""
    sig = by_id().get(m.signature)
    return sig is None or sig.override_helps


def override_would_help(host: Host) -> bool:
    """A missing-GPU-code error in the report that an ISA override could answer: the process ran without one."""
    return any(m.finding_id in CODE_ERRORS and override_helps(m) for m in host.logs)


def failed_here(host: Host) -> bool:
    """A line of the report says a program failed on the GPU (missing code, a fault, a hang)."""
    return any(m.finding_id in CODE_ERRORS or m.finding_id in RUN_FAILURES for m in host.logs)


def hung_under_override(host: Host, gpu: GpuInfo) -> bool:
    """A GPU hang or memory fault on *this* GPU, and no missing-code error: on a target that runs only as another
    ISA, the process had the override, and that ISA's code is what hung (AMD on a 780M as gfx1100: it 'can need
    more VGPRs than the 780M has', ROCm/legacy-rocm-build#4557). The fault names its kfd node; with several GPUs
    and no node known, it is not pinned on this one (ROCm/legacy-rocm-build#5238: the MI210 faulted, not the
    RX 6600 beside it)."""
    faults = [m for m in host.logs if m.finding_id in ("log.gpu-hang", "log.gpu-memory-access-fault")]
    if not faults or any(m.finding_id in CODE_ERRORS for m in host.logs):
        return False
    nodes = {m.groups.get("node") for m in faults}
    if gpu.kfd_node is not None and str(gpu.kfd_node) in nodes:
        return True
    return len(discrete_gpus(host)) == 1 and gpu.kfd_node is None


def override_cannot_run(host: Host, matrix: Matrix, ctx: RocmContext, gpu: GpuInfo, target: GpuTarget) -> bool:
    """The override that would run this GPU as another ISA cannot help here: the process ran the other ISA's code
    and hung (:func:`hung_under_override`), or the installed ROCm predates every release that lists the ISA the
    override names and its runtime enumerated no GPU. FoldingAtHome/containers#36: a Radeon 780M (gfx1103, run as
    gfx1100) under the image's 'ROCm in container: 5.0.0-49', whose OpenCL platform lists 'Number of devices: 0';
    the first release listing gfx1100 is 5.7, and ROCm 5.0 predates RDNA3."""
    if hung_under_override(host, gpu) or isa_rejected_under_override(host, gpu):
        return True
    if not ctx.version or ctx.release is None or not target.override or len(host.gpus) != 1:
        return False
    runs = matrix.releases_supporting(gfx=gfx_from_version(target.override))
    if not runs or _vtuple(ctx.version) >= _vtuple(runs[-1].version):
        return False
    return any(m.finding_id in NO_DEVICE for m in host.logs)


def isa_rejected_under_override(host: Host, gpu: GpuInfo) -> bool:
    """A queue aborting with HSA_STATUS_ERROR_INVALID_ISA on the only discrete GPU, and no missing-code error: on a
    target that runs only as another ISA, the runtime loaded no code of the GPU's own (that is
    hipErrorNoBinaryForGpu), so the code that ran was the borrowed target's, under an override or a build for another
    target, and the GPU rejected its instructions (fixtures/README.md judging rule 27; ROCm/ROCm#3054: an RX 7600 XT,
    gfx1102, under AMD's torch 2.1.2+rocm6.1 wheel, 'not supported with latest ROCm 6.1.2'). The override is what
    failed, not the remedy."""
    if not any(m.finding_id == "log.invalid-isa" for m in host.logs) or any(m.finding_id in CODE_ERRORS
                                                                             for m in host.logs):
        return False
    return len(discrete_gpus(host)) == 1 and not gpu.is_apu


def nothing_failed(host: Host) -> bool:
    """No error line, no crash or missing GPU told, no torch, program log or process environment: beside rocminfo's
    own listing of the target (AMD's tool, not the program), a table's "needs the override" is then a prediction for
    builds without the target's code, not an observation (ROCm/ROCm-docker#149: a gfx1102 in rocm/pytorch:latest,
    the report asking only about torch.version.cuda). A program's own device list (llama.cpp, ollama) is the program
    that lacks the code: not this."""
    return not host.logs and host.torch is None and not ({"env", "app-log"} & host.captured) and not any(
        k in host.context for k in ("crash-said", "no-gpu-said", "cpu-device"))


def failed_elsewhere(host: Host, gpu: GpuInfo, gfx: str) -> bool:
    """Every failure line of the report names another GPU's target, and this GPU is only named in prose: nothing
    shows a program ran on it, so its gfx in the report is no runtime's word that no override was in effect
    (ROCm/rocprofiler#138: rocprofv2 aborted on the gfx90c iGPU; the gfx1032 beside it was only named)."""
    prose = bool(gpu.sources) and all(s.kind == "free-text" for s in gpu.sources) and "app-log" not in host.captured
    named = [m.groups.get("gfx") or m.groups.get("arch") for m in host.logs
             if m.finding_id in CODE_ERRORS or m.finding_id in RUN_FAILURES]
    return prose and bool(named) and all(n and n != gfx for n in named)


def _after_the_run(host: Host, ids: tuple[str, ...]) -> list[LogMatch]:
    """The report's lines of these finding ids, less those above a pasted session's command run with the override
    (`$ HSA_OVERRIDE_GFX_VERSION=9.0.0 python3`): its errors print below it; one above came from an earlier run
    without it (ROCm/legacy-rocm-build#1799)."""
    shell = host.context.get("override-shell")
    run = shell.source if shell is not None and shell.source and PROMPT_RUN.match(shell.source.text or "") else None
    return [m for m in host.logs if m.finding_id in ids and (
        run is None or m.source is None or m.source.file != run.file or (m.source.line or 0) > (run.line or 0))]


def override_tried(host: Host, value: str) -> bool:
    """The report ran with this override and a missing-GPU-code error is still in it: the override is not the
    missing piece."""
    return said_ran_with(host, value) and bool(_after_the_run(host, CODE_ERRORS))


def works_here(host: Host) -> Optional[Fact[str]]:
    """The report shows a run finishing on the GPU ("gpu-run-ok") or says its program works ("works-said": "I got it
    to work by adding ... HSA_OVERRIDE_GFX_VERSION=10.3.0", ollama/ollama#9184), and no line shows a run failing nor
    is a crash or a missing GPU told: direct evidence that beats a table's caution."""
    said = host.context.get("gpu-run-ok") or host.context.get("works-said")
    if said is None or failed_here(host) or any(k in host.context for k in ("crash-said", "no-gpu-said")):
        return None
    return said


def failed_under_override(host: Host) -> bool:
    """A line says a program failed on the GPU, not counting a run before a pasted session's override run."""
    return bool(_after_the_run(host, CODE_ERRORS + RUN_FAILURES))


def code_missing(host: Host, ctx: RocmContext, gpu: GpuInfo, gfx: str) -> bool:
    """An error line says the installed ROCm has no code for this discrete GPU: "it usually works" is disproved
    (an RX 9070 XT under the HIP SDK 6.2, githubcto/FramePack-ZLUDA#4); not a program's own target list (XLA's,
    TensorFlow's: that build lacks the GPU, whatever ROCm is installed; elixir-nx/xla#63)."""
    return bool(ctx.version) and not gpu.is_apu and any(m.finding_id in CODE_ERRORS and not m.groups.get("supported")
                                                        and gfx in (m.groups.get("gfx"), m.groups.get("arch"))
                                                        for m in host.logs)


def refused_by_own_list(host: Host, ctx: RocmContext, gpu: GpuInfo, gfx: str) -> Optional[Finding]:
    """A program refused this GPU by its own build's target list ("StreamExecutor ROCM device (0) is of unsupported
    AMDGPU version : gfx1100. The supported AMDGPU versions are ...", elixir-nx/xla#63): that build is what lacks the
    GPU (log.unsupported-gpu-target), so "not on AMD's list for the installed ROCm, but it usually works" is context
    beside it, not a second problem."""
    if not any(m.finding_id == "log.unsupported-gpu-target" and m.groups.get("supported") and log_gfx(m) == gfx
               for m in host.logs):
        return None
    return finding(
        "gpu.arch-unsupported", Severity.INFO,
        f"{gpu_label(gpu)}: {gfx} is not on AMD's list for ROCm {ctx.version}; the program's own build refuses it",
        f"The program checks the GPU against the targets it was built for and {gfx} is not among them (see "
        "log.unsupported-gpu-target): a build that includes it is the fix, whatever AMD's list says.",
        [ctx.why, *gpu_evidence(gpu)])


def runs_here(host: Host, gpu: GpuInfo) -> bool:
    """An application's ROCm runtime or rocminfo listed this GPU as an agent (llama.cpp's device list, torch's device
    properties; rocminfo of an old rocm-dkms, ROCm/legacy-rocm-build#795) and no line says a program failed on it:
    direct evidence the host's ROCm runs it, whatever the table says."""
    listed = ("app-log" in host.captured and "log" in gpu.gfx_by_source) or "rocminfo" in gpu.gfx_by_source
    return listed and not failed_here(host)


def distribution_build(host: Host, gpu: GpuInfo, gfx: str, since: str, evidence: list[str]) -> Optional[Finding]:
    """A distribution's own ROCm packages (Arch, Fedora) with no GPU-code error: information, not AMD's verdict
    (ROCm/legacy-rocm-build#887: Arch's packages ran an RX 5700, gfx1010)."""
    distro = host.context.get("distro-rocm")
    if distro is None or failed_here(host):
        return None
    return finding(
        "gpu.arch-unsupported", Severity.INFO,
        f"{gpu_label(gpu)}: {gfx} is in no AMD ROCm release since {since}, but the report uses a distribution's own "
        "ROCm packages",
        "Distributions (Arch, Fedora) build ROCm and PyTorch for their own, wider target lists; AMD's list does not "
        "decide whether their packages run this GPU, and the report shows no GPU-code error.",
        [str(distro.source), *evidence])


def named_only(host: Host, gpu: GpuInfo, gfx: str, since: str, evidence: list[str]) -> Optional[Finding]:
    """A GPU only named in a report, with no installed ROCm and nothing failing on it: AMD's list is no verdict on an
    application's own ROCm build (ollama/ollama#7723: an RX 5700 XT under ollama; the failure was /dev/kfd's
    permissions). A GPU from this host's own capture keeps AMD's verdict, and so does one beside AMD's own framework
    wheel (``pip install tensorflow-rocm``: AMD built it with its release, ROCm/tensorflow-upstream#1305), or one the
    report says ROCm's own tools do not see ("`clinfo`, `rocminfo` ... show 0 gpus", ROCm/ROCm#2119). A pasted PCI
    listing with nothing else is the same: the card is on the bus, and nothing in the report uses ROCm
    (clbr/radeontop#106: an RX 580 that 'works great with the `amdgpu` driver', a request to a monitoring tool)."""
    prose = bool(gpu.sources) and all(s.kind == "free-text" for s in gpu.sources)
    listing_only = host.origin != "live" and host.captured <= {"lspci", "logs"} and not host.context
    if not (prose or listing_only) or failed_here(host) or any(m.finding_id in KERNEL_FAILURES for m in host.logs) \
            or "amd-framework-wheel" in host.context or "no-gpu-said" in host.context:
        return None
    return finding("gpu.arch-unsupported", Severity.INFO,
                   f"{gpu_label(gpu)}: {gfx} is in no AMD ROCm release since {since}; no installed ROCm or failure "
                   "on it is in the report",
                   "An application's own ROCm build may include it; AMD's releases and wheels do not.", evidence)


def os_before_gpu_lists(host: Host, matrix: Matrix, gpu: GpuInfo, gfx: str) -> Optional[Finding]:
    """No ROCm version in the report, and its OS release is one that only releases older than rocmdoctor's GPU lists
    support (Ubuntu 18.04: ROCm 5.2.3 and older): the ROCm it runs is one of those, so the newest list is no verdict
    (ROCm/ROCm#755, 2019: an RX 580 then supported, 'the RX580's are listed as supported GPUs')."""
    version = host.os.version_id or host.os.version or ""
    if not host.os.id or not version:
        return None
    listing = [r for r in matrix.releases.values() if matrix.os_supported(r.version, host.os.id, version)]
    if not listing or any(r.gfx_known for r in listing):
        return None
    newest = max((r.version for r in listing), key=_vtuple)
    return skip("gpu.arch-unsupported", f"{gpu_label(gpu)}: no ROCm version in the report, and "
                f"{host.os.pretty_name or version} is supported only by ROCm {newest} and older, whose GPU lists are "
                f"not in rocmdoctor's data: its support for {gfx} is not judged")


def isa_build_error(host: Host, gpu: GpuInfo, gfx: str, evidence: list[str]) -> Optional[Finding]:
    """The compiler refused the program's own GPU code for this GPU ("error: instruction not supported on this GPU"
    building vLLM's custom kernels on an MI50, vllm-project/vllm#6565): the program does not support the target,
    whatever ROCm release is installed. One GPU only: the line does not say which target it compiled for."""
    said = host.context.get("isa-build-error")
    if said is None or len(host.gpus) != 1:
        return None
    return finding(
        "gpu.arch-unsupported", Severity.FAIL,
        f"{gpu_label(gpu)}: the program being built uses GPU instructions that {gfx} does not have",
        "Its own kernels (inline assembly or intrinsics) were written for newer targets; the compiler refuses them "
        f"for {gfx}, so this program, at this version, does not support this GPU.",
        [str(said.source), *evidence],
        Fix("Use a release of the program that still supports this target, or build it without the kernels that "
            f"need newer instructions; check the targets it is built for (PYTORCH_ROCM_ARCH / --offload-arch={gfx}).",
            []),
    )


def override_worked(host: Host) -> Optional[Fact[str]]:
    """The override the report's program ran with and that worked: one it says works, or one the report names for
    its run ("Just tested this ... using `HSA_OVERRIDE_GFX_VERSION=11.0.1`") beside that run's success on the only
    GPU ("100% GPU" in `ollama ps`) and no failure (ollama/ollama#6282: a 780M run as gfx1101)."""
    said = host.context.get("override-works")
    if said is not None:
        return said
    shell = host.context.get("override-shell")
    if shell is None or not shell.value or "gpu-run-ok" not in host.context or "env" in host.captured:
        return None
    return shell if len(host.gpus) == 1 and not failed_here(host) and said_ran_with(host, shell.value) else None


def override_said_to_work(host: Host, gpu: GpuInfo, gfx: str, evidence: list[str]) -> Optional[Finding]:
    """The report says its program runs with HSA_OVERRIDE_GFX_VERSION=X ("If I use HSA_OVERRIDE_GFX_VERSION=11.5.1 the
    container is running ... recognised as 1150 I only get segmentation fault": a gfx1150 under a gfx1151-only
    image). Direct evidence beats the table: the program needs X, whatever rocmdoctor's data says of this target's
    overrides. A failure in the report is the run without it (fail); with none, the override is simply in use."""
    said = override_worked(host)
    if said is None or len(host.gpus) != 1:
        return None
    wanted = gfx_from_version(said.value)
    if wanted == gfx:
        return None  # its own target: nothing is overridden
    if not failed_here(host):
        return finding("gpu.override-needed", Severity.OK,
                       f"{gpu_label(gpu)} runs as {wanted} through HSA_OVERRIDE_GFX_VERSION={said.value} (the report "
                       "says the program works with it)", "", [str(said.source), *evidence])
    return finding(
        "gpu.override-needed", Severity.FAIL,
        f"{gpu_label(gpu)} needs HSA_OVERRIDE_GFX_VERSION={said.value} for this program: the report says it runs "
        "with it",
        f"The program (or the image it runs in) carries no code for {gfx}; with the override the GPU runs {wanted}'s "
        "code, and the failure in the report is the run without it.",
        [str(said.source), *evidence],
        Fix("Set it for the process that uses the GPU (the container's or service's environment, not only a shell):",
            [f"export HSA_OVERRIDE_GFX_VERSION={said.value}"]),
    )


def override_said_needed(host: Host) -> Optional[Finding]:
    """No GPU named, but the report says its program needs HSA_OVERRIDE_GFX_VERSION=X ("I always had to start python
    main.py with HSA_OVERRIDE_GFX_VERSION=10.3.0") beside a missing-GPU-code error from a launcher that did not pass
    it (mcmonkeyprojects/SwarmUI#592): the GPU needs X, whatever it is."""
    said = host.context.get("override-works")
    if said is None or host.gpus or not override_would_help(host):
        return None
    return finding(
        "gpu.override-needed", Severity.FAIL,
        f"The GPU needs HSA_OVERRIDE_GFX_VERSION={said.value} for this program: the report says it runs with it",
        f"The program carries no code for the GPU's own target; with the override the GPU runs "
        f"{gfx_from_version(said.value) or 'another target'}'s code, and the failure in the report is the run without "
        "it (a launcher, service or container that does not pass the shell's variable).",
        [str(said.source)],
        Fix("Set it for the process that uses the GPU (the launcher's, service's or container's environment, not only "
            "a shell):", [f"export HSA_OVERRIDE_GFX_VERSION={said.value}"]),
    )


def _driver_too_old(host: Host, target: GpuTarget) -> Optional[str]:
    """The Windows driver the report names, where AMD said the target is not on WSL with drivers up to the data's
    bound (ROCm/legacy-rocm-build#4809: a Radeon 8060S, gfx1151, with driver 25.5.1); a later driver or none named
    is not judged."""
    named = host.context.get("windows-driver")
    if not target.wsl_driver_through or named is None:
        return None
    return str(named.source) if _vtuple(named.value) <= _vtuple(target.wsl_driver_through) else None


def not_on_wsl(host: Host, gpu: GpuInfo, target: Optional[GpuTarget], evidence: list[str]) -> Optional[Finding]:
    """Under WSL only the GPUs on AMD's WSL list run, a narrower list than native Linux's: a target AMD said is not
    on it fails whatever the Linux tables say (ROCm/ROCm#4503: an RX 6950 XT, gfx1030), and so does one AMD said
    is not on it with the Windows driver the report names (ROCm/legacy-rocm-build#4809)."""
    if target is None or not (host.kernel.is_wsl or "wsl" in host.context):
        return None
    driver = _driver_too_old(host, target)
    if driver is not None:
        return finding(
            "gpu.arch-unsupported", Severity.FAIL,
            f"{gpu_label(gpu)}: ROCm on WSL does not support {target.gfx} with this Windows driver",
            f"ROCm under WSL reaches the GPU through the Windows driver, which exposes only the GPUs on AMD's WSL "
            f"list; AMD said {target.gfx} is not on it with drivers up to {target.wsl_driver_through}, the one this "
            "report names or older.",
            [*evidence, driver, target.wsl_driver_source],
            Fix("Use native Linux for this GPU, or a newer Windows driver and ROCm release whose WSL list names it:",
                [], "https://rocm.docs.amd.com/projects/radeon/en/latest/docs/compatibility/wsl/wsl_compatibility.html"),
        )
    if target.wsl is not False:
        return None
    return finding(
        "gpu.arch-unsupported", Severity.FAIL, f"{gpu_label(gpu)}: ROCm on WSL does not support {target.gfx}",
        "ROCm under WSL reaches the GPU through the Windows driver, and only the GPUs on AMD's WSL compatibility "
        f"list are exposed; {target.gfx} is not on it (native Linux supports it).",
        [*evidence, target.wsl_source],
        Fix("Use native Linux for this GPU (or a GPU on AMD's WSL list):", [],
            "https://rocm.docs.amd.com/projects/radeon/en/latest/docs/compatibility/wsl/wsl_compatibility.html"),
    )


def not_on_platform_list(host: Host, matrix: Matrix, gpu: GpuInfo, gfx: str,
                         target: Optional[GpuTarget]) -> Optional[Finding]:
    """WSL, native Windows and an application's own ROCm engine have their own GPU lists, narrower than Linux's:
    judged by them first."""
    return (not_on_wsl(host, gpu, target, gpu_evidence(gpu)) or not_on_windows_list(host, matrix, gpu, gfx)
            or not_in_app_engine(host, gpu, gfx) or not_in_bundled_build(host, matrix, gpu, gfx))


def not_in_app_engine(host: Host, gpu: GpuInfo, gfx: str) -> Optional[Finding]:
    """LM Studio's ROCm engine bundles its own ROCm and llama.cpp, built for a fixed list of targets: on a GPU outside
    it the engine's hardware survey fails while the Vulkan engine runs (lmstudio-ai/lmstudio-bug-tracker#1306, an
    RX 9070's gfx1201; #1004, a Radeon 8060S's gfx1151 beside a working system ROCm 6.4.3)."""
    survey = host.context.get("lmstudio-rocm-survey")
    if survey is None:
        return None
    return finding(
        "gpu.arch-unsupported", Severity.FAIL,
        f"{gpu_label(gpu)}: LM Studio's ROCm engine cannot run on {gfx} (its hardware survey failed)",
        "LM Studio's ROCm llama.cpp engine carries its own ROCm libraries and code for a fixed list of GPU targets, "
        f"whatever ROCm the system has; its survey finds no GPU it can use when {gfx} is not on that list. The "
        "Vulkan engine is built for any GPU and keeps working.",
        list(dict.fromkeys([str(survey.source), *gpu_evidence(gpu)])),
        Fix("Use LM Studio's Vulkan engine on this GPU, or update the ROCm engine (its runtime's release notes list "
            "the GPU targets each release adds):", []),
    )


def not_in_bundled_build(host: Host, matrix: Matrix, gpu: GpuInfo, gfx: str) -> Optional[Finding]:
    """KoboldCpp-ROCm's Windows executables bundle their own HIP code and rocBLAS, built for a fixed list of targets
    (matrices/apps.toml): on a GPU outside it their ROCm backend fails while Vulkan runs (YellowRoseCx/koboldcpp-rocm
    #116: an RX 9070 XT, gfx1201, under 'Version 1.85.yr0-ROCm-Build2': 'failed to initialize ROCm: no ROCm-capable
    device is detected'). Judged on native Windows, for a release the data reaches, beside that failure only."""
    used, app = host.context.get("app-koboldcpp-rocm"), matrix.app_gfx.get("koboldcpp-rocm-windows")
    if used is None or app is None or "windows" not in host.context or gfx in app.gfx:
        return None
    minor = re.match(r"1\.(\d{1,3})\b", used.value)
    if minor is None or int(minor.group(1)) > app.through_build:
        return None
    if not any(m.finding_id in NO_DEVICE or m.finding_id in CODE_ERRORS for m in host.logs):
        return None
    return finding(
        "gpu.arch-unsupported", Severity.FAIL, f"{gpu_label(gpu)}: {app.label} carries no code for {gfx}",
        f"{app.label} ({used.value}) bundles its own ROCm libraries, built for {', '.join(app.gfx)} only; {gfx} is not "
        "one of them, so its ROCm backend fails on this GPU whatever the driver supports, and on native Windows no "
        "override can make it run another target's code.",
        list(dict.fromkeys([str(used.source), *gpu_evidence(gpu), app.source.split(" : ", 1)[0]])),
        Fix("Use its Vulkan backend on this GPU, or a build whose targets include it (a newer release, or one built "
            f"with -DAMDGPU_TARGETS={gfx}).", [], app.source.split(" : ", 1)[0]),
    )


def not_on_windows_list(host: Host, matrix: Matrix, gpu: GpuInfo, gfx: str) -> Optional[Finding]:
    """Native Windows with a HIP SDK release known from its install path (``C:\\Program Files\\AMD\\ROCm\\6.2``):
    AMD's Windows list for that release decides, not Linux's. A target with Runtime ✅ on no row of it fails: the
    SDK's libraries carry no code for it (an RX 9060 XT, gfx1200, under the HIP SDK 6.2: rocBLAS has no
    TensileLibrary for it). Runtime-only targets (gfx1031, gfx1032) and releases outside the data are left to the
    other checks."""
    if "windows" not in host.context or host.kernel.release or host.kernel.is_wsl or "wsl" in host.context:
        return None
    sdk = next((i for i in host.rocm_installs if i.version and "\\ROCm\\" in i.path), None)
    listed = matrix.windows_list(sdk.version) if sdk is not None and sdk.version else None
    if sdk is None or listed is None or gfx in listed[0]:
        return None
    where = "is marked unsupported on" if gfx in listed[1] else "is not on"
    return finding(
        "gpu.arch-unsupported", Severity.FAIL,
        f"{gpu_label(gpu)}: {gfx} {where} AMD's Windows list for the HIP SDK {sdk.version}",
        f"The HIP SDK for Windows supports only the GPUs its own list names (narrower than Linux's); its libraries "
        f"(rocBLAS, MIOpen) carry no code for {gfx}, and HSA_OVERRIDE_GFX_VERSION does nothing on Windows. AMD: "
        "'If a GPU is not listed on this table, it is not officially supported by AMD.'",
        list(dict.fromkeys([str(sdk.source) if sdk.source else sdk.path, *gpu_evidence(gpu), listed[2][-1]])),
        Fix("Install a HIP SDK release whose Windows list includes this GPU, or use Linux, whose list differs:", [],
            WINDOWS_LIST_URL),
    )


def unlisted_words(gpu: GpuInfo, first: str) -> tuple[str, str]:
    """How to say that AMD's matrix lacks a GPU's target, and what a host running it anyway shows. For a Ryzen APU the
    matrix is silent (it lists none), not a verdict: ROCm 7 runs a Radeon 8060S (gfx1151) that it does not list
    (kyuz0/amd-strix-halo-toolboxes#62)."""
    if gpu.is_apu:
        return ("not in AMD's ROCm compatibility matrix (which lists no Ryzen APU)",
                "A ROCm build that includes the target is in use (a distribution's, a community one, or a release "
                "whose Radeon and Ryzen pages list the APU).")
    return (f"supported by no AMD ROCm release since {first}",
            "A community or older ROCm build that includes the target is in use (ollama#2453: a gfx803 container); "
            "AMD's current releases and wheels will not run it.")


def built_without(host: Host, gpu: GpuInfo, gfx: str) -> Optional[Finding]:
    """On native Windows, a program the report built for other targets only (``-DAMDGPU_TARGETS=gfx1100``) has no
    code for this GPU, and the override that would run another target's code is not read there
    (ggml-org/llama.cpp#6509: a gfx1103 with a gfx1100 build and HSA_OVERRIDE_GFX_VERSION=11.0.0)."""
    targets = host.context.get("build-targets")
    if targets is None or gfx in targets.value.replace(",", ";").split(";"):
        return None
    return finding(
        "gpu.arch-unsupported", Severity.FAIL,
        f"{gpu_label(gpu)}: the program was built for {targets.value} only, and Windows does not read the override",
        f"Its GPU code is for {targets.value}; {gfx} runs none of it. On Linux HSA_OVERRIDE_GFX_VERSION can make the "
        "runtime load another target's code; on native Windows the HIP runtime does not read it (ROCm/TheRock#1719).",
        [str(targets.source), *gpu_evidence(gpu)[:1]],
        Fix(f"Build for {gfx} itself if the HIP SDK in use supports it (-DAMDGPU_TARGETS={gfx}), or use a backend "
            "that does not need ROCm's target list (Vulkan):", []),
    )


def built_for_family(host: Host, gpu: GpuInfo, gfx: str) -> Optional[Finding]:
    """A prebuilt named for a GPU family that holds this GPU's target ("running the `rocm-gfx110X` prebuilt" on an
    RX 7700S, gfx1102: unslothai/unsloth#7272): the program carries the GPU's own code, so no override is needed."""
    family = host.context.get("build-family")
    if family is None or not re.fullmatch(family.value.replace("X", "[0-9a-f]"), gfx):
        return None
    return finding("gpu.override-needed", Severity.OK,
                   f"{gpu_label(gpu)}: the {family.value} build in use carries {gfx} code; no override is needed",
                   "", [str(family.source), *gpu_evidence(gpu)[:1]])
