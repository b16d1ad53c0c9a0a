"""GPU topology checks: an integrated GPU enumerated beside a discrete one, sources that disagree on a GPU's
identity, and the PCIe link each GPU trained to."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Optional

from rocmdoctor.judge.facts import (
    finding,
    gpu_label,
    gpu_sources_captured,
    native_gfx,
    not_captured,
    ok,
    override_fits,
    override_value,
    relabelled,
    reported_user_space_gfx,
    skip,
)
from rocmdoctor.judge.gpu_evidence import CODE_ERRORS, NO_DEVICE, RUN_FAILURES, failed_here
from rocmdoctor.judge.registry import check
from rocmdoctor.model import Finding, Fix, GpuHealth, Severity
from rocmdoctor.parse.kfd import gfx_from_version, version_of_gfx
from rocmdoctor.words import plural

if TYPE_CHECKING:
    from rocmdoctor.matrix import Matrix
    from rocmdoctor.model import Fact, GpuInfo, Host, LogMatch


@check("gpu.igpu-visible", title="Integrated GPU")
def igpu_visible(host: Host, matrix: Matrix) -> list[Finding]:
    apus = [g for g in host.gpus if g.is_apu]
    dgpus = [g for g in host.gpus if not g.is_apu]
    said = _igpu_said(host, apus, dgpus)
    if said is not None:
        return [said]
    if not (apus and dgpus):
        unknown = [g for g in host.gpus if not (native_gfx(g) or g.name or g.pci_device_id)]
        if unknown:  # an application's device count alone: which of them is an iGPU cannot be told
            return [skip("gpu.igpu-visible", f"{plural(len(unknown), 'GPU')} not identified (no name, gfx or PCI id)")]
        if host.gpus and not gpu_sources_captured(host) and "app-log" not in host.captured:
            # GPUs named in prose ("GPU: RX7900XTX"): nothing listed what ROCm sees, so say only what was named
            return [ok("gpu.igpu-visible", "No integrated GPU among the GPUs the report names (no enumeration of "
                                           "what ROCm sees, such as rocminfo, is in it)")]
        return [ok("gpu.igpu-visible", "No integrated GPU beside a discrete one")] if host.gpus else []
    # a profiler enumerates the runtime's agents, which HIP_VISIBLE_DEVICES does not hide (ROCm/rocprofiler-sdk#148)
    profiler = next((m for m in host.logs if m.finding_id == "log.profiler-gpu-unsupported"), None)
    limiter = next((k for k in ("ROCR_VISIBLE_DEVICES",) + (() if profiler else ("HIP_VISIBLE_DEVICES",
                                                                                 "CUDA_VISIBLE_DEVICES"))
                    if host.env.get(k)), None)
    if limiter:
        return [ok("gpu.igpu-visible", f"Integrated GPU present but {limiter}={host.env[limiter]} limits the devices")]
    if (tried := host.context.get("igpu-hiding-no-help")) is not None:  # lamikr/rocm_sdk_builder#246
        return [finding("gpu.igpu-visible", Severity.INFO, f"Integrated {gpu_label(apus[0])} is visible beside the "
                        "discrete GPU, but the report says hiding it left the error as it was",
                        "The iGPU is not what breaks this run: the failure stayed with only the discrete GPU visible.",
                        [str(tried.source)])]
    # Indices are the runtime's only when an enumeration listed the GPUs; GPUs named in prose have no order
    ordered = bool(gpu_sources_captured(host))
    keep = ",".join(str(g.index) for g in dgpus) if ordered else "<index of the discrete GPU>"
    discrete = "discrete GPU" if len(dgpus) == 1 else "discrete GPUs"
    windows = "windows" in host.context and not host.kernel.release
    commands = ([f'$env:HIP_VISIBLE_DEVICES="{keep}"'] if windows
                else [f"export ROCR_VISIBLE_DEVICES={keep}", f"export HIP_VISIBLE_DEVICES={keep}"])
    if not ordered:
        commands.append("python -c 'import torch; print([torch.cuda.get_device_name(i) for i in "
                        "range(torch.cuda.device_count())])'")
    ran = _failed_on(host, apus)
    listed = host.context.get("enumerated")
    first = (listed.value.split() or [""])[0] if listed is not None else ""
    if ran is None and first and first in {native_gfx(g) for g in apus}:
        return [finding(  # ROCm/ROCm#4390: the HIP SDK's amdgpu-arch printed the Ryzen's gfx1036, not the RX 6800 XT
            "gpu.igpu-visible", Severity.FAIL,
            f"ROCm's device 0 is the integrated GPU ({first}), not the {discrete}",
            "The runtime's own device list starts with the iGPU: every program that uses the default device runs on "
            "it, and ROCm's libraries carry no code for it.",
            [str(listed.source)] + [str(s) for g in dgpus for s in g.sources[:1]],  # type: ignore[union-attr]
            Fix(f"Expose only the {discrete} to ROCm (or disable the iGPU in the BIOS):", commands),
        )]
    if ran is None and profiler is not None and not profiler.groups.get("gfx"):  # (one naming a dGPU is its own)
        return [finding(
            "gpu.igpu-visible", Severity.FAIL, f"The profiler aborts on the integrated {gpu_label(apus[0])}",
            "The profiler sets up counters on every GPU agent the runtime enumerates, the iGPU too, and aborts on it "
            "before it reaches the discrete GPU; HIP_VISIBLE_DEVICES does not hide an agent from it.",
            [str(profiler.source) if profiler.source else profiler.text] + [str(s) for s in apus[0].sources[:1]],
            Fix(f"Expose only the {discrete} to the runtime (or disable the iGPU in the BIOS):", commands[:1]),
        )]
    if ran is not None:
        return [finding(
            "gpu.igpu-visible", Severity.FAIL,
            f"The program ran on the integrated {gpu_label(apus[0])}, not the {discrete}",
            "The runtime enumerated the iGPU too and the program used it: its error names the iGPU's target. "
            "Hide the iGPU so that device 0 is the discrete GPU.",
            [str(ran.source) if ran.source else ran.text],
            Fix(f"Expose only the {discrete} to ROCm (or disable the iGPU in the BIOS):", commands),
        )]
    zero = _dgpu_is_device_0(host, dgpus[0]) if len(dgpus) == 1 else None
    if zero is not None:
        return [_device_0_info(apus, dgpus[0], zero, commands)]
    return [finding(
        "gpu.igpu-visible", Severity.WARN,
        f"Integrated {gpu_label(apus[0])} is visible beside the {discrete}",
        "PyTorch enumerates the iGPU as a device too: device 0 may be the iGPU, kernels may lack code objects "
        "for it (hipErrorNoBinaryForGpu), and RCCL/multi-GPU code picks it up.",
        [str(s) for g in apus for s in g.sources[:2]],
        Fix(f"Expose only the {discrete} to ROCm (or disable the iGPU in the BIOS)"
            + ("" if ordered else "; the device list below gives the discrete GPU's index") + ":", commands),
    )]


# the discrete GPU named as torch's device 0 on the program's own device line: "Using torch device: [AMD Radeon RX
# 7900 XTX (cuda:0), AMD Radeon 760M Graphics (cuda:1)]" (invoke-ai/InvokeAI#9490), ComfyUI's "Device: cuda:0 AMD
# Radeon RX 7900 XTX : native"
_AFTER_NAME_0 = re.compile(r"[ \w]{0,24}\(cuda:0\)")
_BEFORE_NAME_0 = re.compile(r"\bcuda:0 (?:AMD )?(?:Radeon )?$")


def _device_0_info(apus: list[GpuInfo], dgpu: GpuInfo, zero: str, commands: list[str]) -> Finding:
    """The iGPU beside a discrete GPU the program names as its device 0, nothing failing: information."""
    return finding(
        "gpu.igpu-visible", Severity.INFO,
        f"Integrated {gpu_label(apus[0])} is visible beside the discrete GPU; the program's device 0 is "
        f"{gpu_label(dgpu)}",
        "The program lists the discrete GPU as torch's device 0, and nothing in the report fails: work on the "
        "default device runs on it. Multi-GPU code would still pick the iGPU up.",
        [zero] + [str(s) for g in apus for s in g.sources[:1]],
        Fix("Only for multi-GPU work: expose only the discrete GPU to ROCm:", commands),
    )


def _dgpu_is_device_0(host: Host, dgpu: GpuInfo) -> Optional[str]:
    """The line where the program names the discrete GPU as torch's device 0, when no line of the report shows a
    run failing (the iGPU beside it then takes no default work: invoke-ai/InvokeAI#9490, a 7900 XTX beside a 760M)."""
    if not dgpu.name or failed_here(host) or any(k in host.context for k in ("crash-said", "no-gpu-said")):
        return None
    for s in dgpu.sources:
        text = s.text or ""
        at = text.find(dgpu.name)
        if at >= 0 and (_AFTER_NAME_0.match(text, at + len(dgpu.name)) or _BEFORE_NAME_0.search(text[:at])):
            return str(s)
    return None


# work the runtime placed on a GPU that failed: not ollama's discovery skipping a target (nothing ran there), nor a
# runtime that enumerated no GPU at all (HSA's out-of-resources at start-up, no HIP or OpenCL device): an iGPU
# cannot have broken a run that never reached a device
_WORK_FAILED = (frozenset(CODE_ERRORS) | frozenset(RUN_FAILURES)) - frozenset(NO_DEVICE) - {
    "log.unsupported-gpu-target", "log.hsa-out-of-resources"}


def _igpu_said(host: Host, apus: list[GpuInfo], dgpus: list[GpuInfo]) -> Optional[Finding]:
    """An iGPU no enumeration shows, known from the report's words: hiding it made the program work (FAIL,
    ggml-org/llama.cpp#23152), or the CPU is an APU by its name beside a named discrete GPU (WARN, ROCm/ROCm#3401:
    a 3400G's Vega iGPU took HIP's device 0 beside an RX 6600)."""
    if not apus and (told := host.context.get("igpu-device-said")) is not None:
        return _igpu_device_said(host, told, dgpus)
    if apus or not dgpus:
        return None
    dgpu = gpu_label(dgpus[0])
    hidden = host.context.get("igpu-hiding-works")
    if hidden is not None:
        return finding(
            "gpu.igpu-visible", Severity.FAIL, f"The integrated GPU beside the {dgpu} breaks the run",
            "The report says the program works once the iGPU is hidden from it: the runtime enumerates the iGPU too, "
            "and the program (or a library) trips on it even when asked for the discrete GPU.",
            [str(hidden.source)] + [str(s) for s in dgpus[0].sources[:1]],
            Fix("Hide the iGPU for good (or disable it in the BIOS):",
                ['$env:HIP_VISIBLE_DEVICES="<index of the discrete GPU>"' if "windows" in host.context
                 else "export HIP_VISIBLE_DEVICES=<index of the discrete GPU>"]),
        )
    apu_cpu = host.context.get("apu-cpu")
    if apu_cpu is None and ("crash-said" in host.context or any(m.finding_id in _WORK_FAILED for m in host.logs)):
        # a model number whose family always carries an iGPU ("CPU: 7800X3D", data/cpu_igpu.toml), read as the
        # APU's name only beside work that failed on a GPU: the number says nothing of a BIOS that turned the iGPU
        # off, and working hosts name such CPUs beside their discrete GPUs all the time (ollama/ollama#2054)
        apu_cpu = host.context.get("igpu-cpu-model")
    if apu_cpu is None or gpu_sources_captured(host) or "app-log" in host.captured:
        return None
    if any(m.finding_id == "log.package-install-failed" for m in host.logs):
        # ROCm's packages could not even be installed: no runtime enumerates anything yet, so the guess from the
        # CPU's name is beside the point (ROCm/legacy-rocm-build#3191: a 6900HS laptop whose zypper repo was a 404)
        return None
    return finding(
        "gpu.igpu-visible", Severity.WARN, f"The CPU's integrated GPU is likely visible beside the {dgpu}",
        f"{apu_cpu.value} carries an integrated Radeon GPU: unless the firmware disables it, ROCm enumerates it "
        "too, and it may be device 0 (programs then run on a GPU ROCm's libraries have no code for). Nothing in the "
        "report lists what ROCm sees.",
        [str(apu_cpu.source)] + [str(s) for s in dgpus[0].sources[:1]],
        Fix("List the GPUs ROCm sees; expose only the discrete one if the iGPU is among them:",
            ["rocminfo | grep -E 'Marketing Name|Name: +gfx'",
             "export HIP_VISIBLE_DEVICES=<index of the discrete GPU>"]),
    )


def _igpu_device_said(host: Host, told: Fact, dgpus: list[GpuInfo]) -> Finding:
    """The report says in words that ROCm lists the iGPU as a device of its own ("the discrete GPU will be ROCm
    Device 0, and the iGPU ROCm Device 1", oobabooga/textgen#7319; AMD: "a known issue when ROCm enumerates both
    your discrete GPU and the Ryzen 9000's integrated GPU"). A warning: the words describe the hazard, not a crash
    shown here."""
    # (a variable in the same prose is the remedy it recommends, not the environment of a process)
    limiter = next((k for k in ("ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES") if host.env.get(k)), None)
    if limiter and "env" in host.captured:
        return ok("gpu.igpu-visible", f"The report says ROCm lists the iGPU, but {limiter}={host.env[limiter]} "
                                      "limits the devices")
    dgpu = gpu_label(dgpus[0]) if dgpus else "discrete GPU"
    return finding(
        "gpu.igpu-visible", Severity.WARN, f"ROCm enumerates the integrated GPU beside the {dgpu}",
        "The report says the runtime lists the iGPU as a device of its own: programs that use every device (or the "
        "wrong index) load work onto it, and ROCm's libraries have no code for it or it lacks the memory; the usual "
        "outcome is a crash.",
        [str(told.source)] + [str(s) for s in dgpus[0].sources[:1]] if dgpus else [str(told.source)],
        Fix("Expose only the discrete GPU to the runtime (or disable the iGPU in the BIOS):",
            ["rocminfo | grep -E 'Marketing Name|Name: +gfx'",
             "export ROCR_VISIBLE_DEVICES=<index of the discrete GPU>"]),
    )


def _failed_on(host: Host, apus: list[GpuInfo]) -> Optional[LogMatch]:
    """A GPU-code error or a crash whose line names an iGPU's target: the program ran on the iGPU. Not a runtime's
    discovery refusing a target (ollama's 'unsupported GPU target' skips the iGPU: nothing ran there)."""
    targets = {native_gfx(g) for g in apus} - {None}
    ran = (set(CODE_ERRORS) | set(RUN_FAILURES)) - {"log.unsupported-gpu-target"}
    return next((m for m in host.logs if m.finding_id in ran
                 and (m.groups.get("gfx") in targets or m.groups.get("arch") in targets)), None)


@check("gpu.arch-conflict", title="GPU identity across sources")
def arch_conflict(host: Host, matrix: Matrix) -> list[Finding]:
    out = []
    for gpu in host.gpus:
        opinions = {v for v in gpu.gfx_by_source.values() if v}
        if len(opinions) <= 1:
            continue
        native = native_gfx(gpu)
        reported = reported_user_space_gfx(gpu)
        value = override_value(host)
        listing = ", ".join(f"{k} says {v}" for k, v in gpu.gfx_by_source.items())
        target = matrix.gpu(native) if native else None
        explained = reported is not None and (
            (value is not None and gfx_from_version(value) == reported)
            or (value is None and target is not None and target.override
                and gfx_from_version(target.override) == reported)
        )
        if explained:
            out.append(finding(
                "gpu.arch-conflict", Severity.INFO,
                f"{gpu_label(gpu)}: runtime reports {reported}, hardware is {native} (override active)",
                f"{listing}. This is what HSA_OVERRIDE_GFX_VERSION={version_of_gfx(reported or '')} does; "
                "fine for this GPU, but it applies to every GPU in the process.",
                [str(s) for s in gpu.sources[:3]],
            ))
        else:
            out.append(finding(
                "gpu.arch-conflict", Severity.WARN, f"{gpu_label(gpu)}: sources disagree on the GPU's ISA",
                f"{listing}. The PCI id / kernel topology is the hardware; the runtime may be overridden or "
                "a tool may be out of date.",
                [str(s) for s in gpu.sources[:3]],
                Fix("Check for an HSA_OVERRIDE_GFX_VERSION in the environment or a container image:",
                    ["env | grep HSA_OVERRIDE", "rocminfo | grep -E 'Name: +gfx'"]),
            ))
    moved = relabelled(host) if not out else None
    if moved:
        fact = host.context["vulkan-gfx"]
        out.append(finding(
            "gpu.arch-conflict", Severity.INFO if override_fits(matrix, *moved) else Severity.WARN,
            f"The kernel driver and ROCm disagree on the GPUs' ISAs: {', '.join(moved[0])} is reported as "
            f"{', '.join(moved[1])}",
            f"Vulkan (the kernel driver's view) lists {fact.value.replace(',', ', ')}; ROCm lists "
            f"{', '.join(g for g in (reported_user_space_gfx(x) for x in host.gpus) if g)}.",
            [str(fact.source), *[str(s) for g in host.gpus for s in g.sources[:1]]][:3],
            Fix("Check for an HSA_OVERRIDE_GFX_VERSION in the environment:", ["env | grep HSA_OVERRIDE"]),
        ))
    return out


@check("gpu.pcie-link", title="PCIe link")
def pcie_link(host: Host, matrix: Matrix) -> list[Finding]:
    """A GPU trained to fewer lanes than it can use (bad riser, slot, or seating) moves data at a fraction
    of the speed: copies, RCCL and data loading slow down with no error anywhere. A lower link *speed* alone
    is usually power management at idle, so only the width is a warning."""
    corrupt = [h for h in host.health if h.data_path is not None]
    if corrupt:
        return [_corrupting_link(corrupt)]
    seen = [g for g in host.gpus if g.pcie_width and g.pcie_max_width]
    if not seen:
        return [not_captured("gpu.pcie-link", "PCIe link state (drm sysfs)")] if host.gpus else []
    narrow = [g for g in seen if g.pcie_width < g.pcie_max_width]  # type: ignore[operator]
    if not narrow:
        return [ok("gpu.pcie-link", f"Every GPU runs its full PCIe width (x{seen[0].pcie_max_width})",
                   [s for g in seen for s in g.sources if "link_width" in s.file][:2])]
    return [finding(
        "gpu.pcie-link", Severity.WARN,
        f"{plural(len(narrow), 'GPU runs', 'GPUs run')} a narrower PCIe link than they support: "
        + ", ".join(f"GPU {g.index} x{g.pcie_width} of x{g.pcie_max_width}" for g in narrow),
        "Host-device copies, peer-to-peer and RCCL traffic over PCIe slow down in proportion; nothing reports "
        "an error. Usual causes: the card in a slot wired for fewer lanes, a riser, or a badly seated card.",
        [str(s) for g in narrow for s in g.sources if "link_width" in s.file][:6],
        Fix("Compare the link with the slot's wiring, reseat the card or move it; then measure:",
            ["sudo lspci -vv -s <bus> | grep -E 'LnkCap|LnkSta'", "rocmdoctor smoke --level 2"]),
    )]


def _corrupting_link(corrupt: list[GpuHealth]) -> Finding:
    """Copies that arrive corrupted: a measured fault of the link, so stronger evidence than its width."""
    return finding(
        "gpu.pcie-link", Severity.WARN,
        f"Data copied to or from {', '.join(h.gpu for h in corrupt)} arrives corrupted (rocm_bandwidth_test)",
        "rocm_bandwidth_test -v validates every copy it makes; a FAIL between the CPU and a GPU means the PCIe "
        "link itself corrupts transfers (a riser or extender, a damaged slot or card edge, signal integrity at "
        "this link speed). Programs on that GPU may crash or compute wrong results without any error.",
        [f"{h.data_path.source}: {h.data_path.value}" if h.data_path.source else h.data_path.value
         for h in corrupt if h.data_path is not None][:6],
        Fix("Seat the GPU directly in a CPU-attached slot (no riser or extender), or force a lower PCIe "
            "generation in the firmware setup, then validate again:", ["rocm_bandwidth_test -v"]),
    )
