"""Node-health checks: the telemetry that predicts the stalled job (ECC/RAS counters, retired VRAM pages,
XGMI link errors, PCIe link speed, throttling, GPU resets and ring timeouts in the kernel log).

What a GPU's counters mean comes from the driver; where a count becomes a problem is data in
``matrices/health.toml`` (:attr:`Matrix.health_thresholds`). A check whose source was not captured says so
(``skip``); none of them passes a host it could not see.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Callable, Optional

from rocmdoctor.judge.facts import finding, not_captured, ok
from rocmdoctor.judge.registry import check
from rocmdoctor.model import Finding, Fix, Severity
from rocmdoctor.words import plural

if TYPE_CHECKING:
    from rocmdoctor.matrix import Matrix
    from rocmdoctor.model import Fact, GpuHealth, GpuInfo, Host

RAS_URL = "https://rocm.docs.amd.com/projects/amdsmi/en/latest/how-to/amdsmi-cli-tool.html"
DRAIN_FIX = ["amd-smi metric --ecc --json", "amd-smi bad-pages", "sudo dmesg -T | grep -iE 'amdgpu|ras'"]

# kernel log lines (amdgpu_device.c / amdgpu_job.c); the kept dmesg lines are amdgpu/kfd ones only
_RESET_BEGIN = re.compile(r"GPU reset begin", re.I)
_RESET_OK = re.compile(r"GPU reset(?:\(\d+\))? succeeded|GPU reset end with ret = 0\b", re.I)
_RESET_FAILED = re.compile(r"GPU reset(?:\(\d+\))? failed|GPU recovery failed|GPU reset end with ret = -\d+", re.I)
_RING_TIMEOUT = re.compile(r"ring [\w.]+ timeout", re.I)
# amdgpu_ras.c on a fatal RAS interrupt: "amdgpu: uncorrectable hardware error(ERREVENT_ATHUB_INTERRUPT) detected!"
# (ROCm/legacy-rocm-build#1886: an MI50 reset after it, the SMU never answered again)
UE_LOGGED = re.compile(r"uncorrectable hardware error\(\w{1,40}\) detected", re.I)
REPORT, HAVE = ("reports", "report"), ("has", "have")  # the verb of a per-GPU title, singular and plural


def _limit(matrix: Matrix, name: str, default: float) -> float:
    """A threshold from matrices/health.toml; the default only guards a hand-trimmed data file."""
    return matrix.health_thresholds.get(name, default)


def _counted(host: Host, attr: str) -> list[tuple[GpuHealth, Fact[int]]]:
    return [(h, getattr(h, attr)) for h in host.health if getattr(h, attr) is not None]


def _per_gpu(fid: str, severity: Severity, verbs: tuple[str, str], what: str,
             items: Sequence[tuple[GpuHealth, Fact[Any]]], detail: str, fix: Fix,
             shape: str = "{gpu}: {value}") -> Finding:
    """The one shape of a per-GPU counter finding: '2 GPUs report uncorrectable ECC errors: card0: 3, card1: 1'
    (``verbs`` = singular, plural form; at most 8 GPUs named), the counters' sources (at most 6) as evidence."""
    n = len(items)
    title = (f"{plural(n, 'GPU')} {verbs[0] if n == 1 else verbs[1]} {what}: "
             + ", ".join(shape.format(gpu=h.gpu, value=f.value) for h, f in items[:8]))
    return finding(fid, severity, title, detail, [str(f.source) for _h, f in items[:6]], fix)


@check("health.ecc-uncorrectable", title="ECC errors")
def ecc(host: Host, matrix: Matrix) -> list[Finding]:
    """An uncorrectable ECC error means data on that GPU was lost since the driver loaded: the next job that
    lands there can crash or compute garbage. Correctable errors are only a warning when they pile up."""
    fid = "health.ecc-uncorrectable"
    ue = _counted(host, "ecc_uncorrectable")
    logged = _count(host, UE_LOGGED)
    if logged and not any(f.value > 0 for _h, f in ue):  # the kernel's own word beats counters read after a reset
        return [finding(
            fid, Severity.FAIL, "The kernel log shows an uncorrectable hardware error",
            "amdgpu took a fatal RAS interrupt: the hardware lost data it could not correct, and the driver resets the "
            "GPU. If it recurs (or the GPU does not come back), the card or its slot is failing.",
            [str(d.source or d.value) for d in logged[:3]],
            Fix("Drain the node, read the RAS state, then reseat or replace the GPU if it recurs:", DRAIN_FIX, RAS_URL),
        )]
    if not ue:
        return [not_captured(fid, "ECC counters (amd-smi metric, sysfs ras/*_err_count, rocm-smi --showrasinfo)")] \
            if host.gpus else []
    bad = [(h, f) for h, f in ue if f.value > _limit(matrix, "ecc_uncorrectable_max", 0)]
    if bad:
        return [_per_gpu(
            fid, Severity.FAIL, REPORT, "uncorrectable ECC errors", bad,
            "Uncorrectable memory errors lost data on the GPU; jobs on it crash or produce wrong results until "
            "the GPU is reset and the bad pages are retired. Drain the node, then reset or replace the GPU.",
            Fix("Drain the node and read the RAS state:", DRAIN_FIX, RAS_URL),
        )]
    # deferred: uncorrectable data the hardware poisoned and handed on instead of halting; the job that
    # reads it dies, so it outranks any correctable count (but the GPU itself kept running: warn, not fail)
    de = [(h, f) for h, f in _counted(host, "ecc_deferred") if f.value > _limit(matrix, "ecc_deferred_warn", 0)]
    if de:
        return [_per_gpu(
            fid, Severity.WARN, REPORT, "deferred ECC errors", de,
            "A deferred error is an uncorrectable one whose data was marked poisoned instead of stopping the GPU; "
            "the process that reads it is killed. More of them predict uncorrectable errors on that memory.",
            Fix("Read the RAS state and plan to drain the node:", DRAIN_FIX, RAS_URL),
        )]
    ce = [(h, f) for h, f in _counted(host, "ecc_correctable")
          if f.value > _limit(matrix, "ecc_correctable_warn", 1000)]
    if ce:
        return [_per_gpu(
            fid, Severity.WARN, HAVE, "many correctable ECC errors", ce,
            "Correctable errors are fixed by the hardware, but a large count predicts a failing memory stack.",
            Fix("Watch the count; if it keeps growing, plan to replace the GPU:", DRAIN_FIX[:1], RAS_URL),
        )]
    return [ok(fid, f"No uncorrectable ECC errors in {plural(len(ue), 'GPU report')}",
               [str(f.source) for _h, f in ue[:2]])]


@check("health.bad-pages", title="Retired VRAM pages")
def bad_pages(host: Host, matrix: Matrix) -> list[Finding]:
    """Pages the driver could not retire (``P``/``F`` in ``gpu_vram_bad_pages``) can be handed out again; many
    retired pages mean the GPU is close to the driver's own bad-page threshold."""
    fid = "health.bad-pages"
    pending = _counted(host, "bad_pages_pending")
    if not pending:
        return [not_captured(fid, "Retired page list (sysfs ras/gpu_vram_bad_pages)")] if host.gpus else []
    bad = [(h, f) for h, f in pending if f.value > _limit(matrix, "bad_pages_pending_max", 0)]
    if bad:
        return [_per_gpu(
            fid, Severity.FAIL, HAVE, "VRAM pages waiting to be retired", bad,
            "The driver found bad memory it has not (or could not) take out of use; a reboot or GPU reset retires "
            "pending pages, a page marked F stays dangerous.",
            Fix("Drain the node, reset the GPU (or reboot) and check the list again:",
                ["amd-smi bad-pages", "cat /sys/class/drm/card*/device/ras/gpu_vram_bad_pages"], RAS_URL),
        )]
    many = [(h, f) for h, f in _counted(host, "bad_pages_retired")
            if f.value > _limit(matrix, "bad_pages_retired_warn", 64)]
    if many:
        return [_per_gpu(
            fid, Severity.WARN, HAVE, "many retired VRAM pages", many,
            "Retired pages are safe, but a GPU past amdgpu's bad_page_threshold stops initialising.",
            Fix("Plan to replace the GPU:", ["amd-smi bad-pages"], RAS_URL),
        )]
    return [ok(fid, "No VRAM pages pending retirement", [str(f.source) for _h, f in pending[:2]])]


@check("health.xgmi-link", title="XGMI links")
def xgmi(host: Host, matrix: Matrix) -> list[Finding]:
    """Errors on the XGMI (Infinity Fabric) links between GPUs stall or corrupt RCCL collectives."""
    fid = "health.xgmi-link"
    seen = [(h, h.xgmi_errors) for h in host.health if h.xgmi_errors is not None]
    bridge = host.context.get("xgmi-bridge")
    psp = [m for m in host.logs if m.signature == "psp-create-ring-failed"]
    if not seen and bridge is not None and psp:
        # a fail: the PSP that could not start is the GPUs' failure to initialise, the run that broke; the bridge is
        # what the report adds to it (ROCm/legacy-rocm-build#2747: without it all four MI210s came up)
        return [finding(
            fid, Severity.FAIL, "The GPUs' PSP failed to start on GPUs joined by an XGMI bridge: suspect the bridge",
            "The PSP brings up the XGMI links during init; with a bridge fitted, a PSP ring failure on the GPUs it "
            "joins is often the bridge (a defective or badly seated one), not firmware. The paste cannot prove it: "
            "boot once without the bridge.",
            [str(bridge.source)] + [str(m.source) for m in psp[:1] if m.source],
            Fix("Power off, reseat or remove the XGMI bridge and boot: if every GPU initialises, replace the bridge.",
                ["sudo dmesg | grep -iE 'psp|xgmi'", "amd-smi xgmi"], RAS_URL),
        )]
    if not seen:
        return [not_captured(fid, "XGMI error status (amd-smi metric xgmi_err, sysfs ras/xgmi_wafl_err_count, "
                                  "rocm-smi --showrasinfo)")] \
            if len(host.gpus) > 1 else []
    bad = [(h, f) for h, f in seen if f.value != "no errors"]
    if bad:
        return [_per_gpu(
            fid, Severity.FAIL, REPORT, "XGMI link errors", bad,
            "Collectives (RCCL all-reduce) across these links stall or fail; the whole job waits on this node.",
            Fix("Drain the node and read the link state:", ["amd-smi xgmi", "amd-smi metric --xgmi-err"], RAS_URL),
            shape="{gpu} ({value})",
        )]
    return [ok(fid, "No XGMI link errors", [str(f.source) for _h, f in seen[:2]])]


def _gts(speed: Optional[str]) -> Optional[float]:
    m = re.match(r"\s*([\d.]+)\s*GT/s", speed or "")
    try:
        return float(m.group(1)) if m else None
    except ValueError:
        return None


@check("gpu.pcie-speed", title="PCIe link speed")
def pcie_speed(host: Host, matrix: Matrix) -> list[Finding]:
    """A link that *can* only train to a lower generation (a Gen3 riser under a Gen4 GPU) halves host-device
    bandwidth. The current speed alone is not proof: amdgpu lowers it at idle (PCIe DPM), so only the fastest
    DPM level (``pp_dpm_pcie``) below the GPU's own maximum is a warning."""
    fid = "gpu.pcie-speed"
    known = [g for g in host.gpus if _gts(g.pcie_max_speed)]
    if not known:
        return [not_captured(fid, "PCIe link speed (drm sysfs max_link_speed)")] if host.gpus else []
    tops = {h.gpu: h.pcie_dpm_max_speed for h in host.health if h.pcie_dpm_max_speed is not None}
    slow: list[tuple[GpuInfo, Fact[str]]] = []
    idle: list[GpuInfo] = []
    for g in known:
        top = tops.get(g.drm_card or "")
        best = _gts(top.value) if top else None
        if top is not None and best is not None and best < (_gts(g.pcie_max_speed) or 0):
            slow.append((g, top))
        elif best is None and (_gts(g.pcie_speed) or 1e9) < (_gts(g.pcie_max_speed) or 0):
            idle.append(g)
    if slow:
        return [finding(
            fid, Severity.WARN,
            f"{plural(len(slow), 'GPU')} cannot reach their PCIe speed: "
            + ", ".join(f"GPU {g.index} at most {t.value} of {g.pcie_max_speed}" for g, t in slow),
            "The link trained below the GPU's generation (slot, riser or BIOS setting); host-device copies and "
            "data loading run at a fraction of the speed.",
            [str(t.source) for _g, t in slow[:6]],
            Fix("Compare the link capability with the slot's:", ["sudo lspci -vv -d 1002: | grep -E 'LnkCap|LnkSta'"]),
        )]
    if idle:
        return [finding(
            fid, Severity.INFO,
            ("1 GPU runs below its" if len(idle) == 1 else f"{len(idle)} GPUs run below their")
            + " maximum PCIe speed right now (normal at idle)",
            "amdgpu lowers the link speed when the GPU is idle; run a transfer and look again if copies are slow.",
            [f"GPU {g.index}: {g.pcie_speed} of {g.pcie_max_speed}" for g in idle[:6]],
        )]
    return [ok(fid, "Every GPU can reach its full PCIe speed",
               [f"GPU {g.index}: {g.pcie_max_speed}" for g in known[:2]])]


@check("health.throttling", title="Throttling")
def throttling(host: Host, matrix: Matrix) -> list[Finding]:
    """A GPU throttled by power or temperature runs a fraction of its peak and drags a synchronous job down.
    Only a warning: some firmwares keep a hotspot bit set at idle (ROCm/rocm-systems#11781)."""
    fid = "health.throttling"
    seen = [(h, h.throttle) for h in host.health if h.throttle is not None]
    seen += [(h, h.hot) for h in host.health if h.hot is not None]
    drops = host.context.get("perf-drops")
    if not seen and drops is not None:
        return [finding(
            fid, Severity.WARN, "Suspected throttling: the report says performance falls after sustained load",
            "Speed that drops after minutes of load and does not recover is the pattern of a thermal or power limit "
            "(Radeon cards cap their fan speed at an acoustic limit and lower clocks when hot). The report has no "
            "temperature or clock readings to confirm it.",
            [str(drops.source)],
            Fix("Watch temperature, power and clocks while the slowdown happens:",
                ["watch -n1 rocm-smi --showtemp --showpower --showclocks"]),
        )]
    if not seen:
        return [not_captured(fid, "Throttle status (amd-smi metric power.throttle_status)")] if host.gpus else []
    hot = [(h, f) for h, f in seen if f.value.strip().upper() == "THROTTLED" or f is h.hot]
    if hot:
        return [finding(
            fid, Severity.WARN,
            f"{plural(len(hot), 'GPU')} throttled or at a critical temperature: "
            + ", ".join(h.gpu if f is not h.hot else f"{h.gpu} {f.value}" for h, f in hot[:8]),
            "Power or thermal limits hold the clocks down; check cooling, power caps and the violation counters. "
            "On some Radeon firmwares the flag is set even at idle.",
            [str(f.source) for _h, f in hot[:6]],
            Fix("See which limit is hit:", ["amd-smi metric --power --temperature --throttle"]),
        )]
    return [ok(fid, "No GPU reports throttling", [str(f.source) for _h, f in seen[:2]])]


def _count(host: Host, pattern: re.Pattern[str]) -> list[Fact[str]]:
    return [d for d in host.dmesg if pattern.search(d.value)]


@check("health.gpu-reset", title="GPU resets and hangs")
def gpu_reset(host: Host, matrix: Matrix) -> list[Finding]:
    """A ring timeout is a GPU hang; the driver then resets the GPU. A reset that failed leaves the GPU
    unusable until reboot; one that succeeded still killed the job that hung (and VRAM may be lost)."""
    fid = "health.gpu-reset"
    if "dmesg" not in host.captured:
        return [not_captured(fid, "Kernel log (dmesg)")]
    begins, oks, fails = (_count(host, p) for p in (_RESET_BEGIN, _RESET_OK, _RESET_FAILED))
    timeouts = _count(host, _RING_TIMEOUT)
    last_begin = max((i for i, d in enumerate(host.dmesg) if _RESET_BEGIN.search(d.value)), default=-1)
    recovered_after = any(_RESET_OK.search(d.value) for d in host.dmesg[last_begin + 1:])
    ev: Callable[[list[Fact[str]]], list[str]] = lambda xs: [str(d.source or d.value) for d in xs[:3]]  # noqa: E731
    if fails or (last_begin >= 0 and not recovered_after):
        what = plural(len(fails), "failed GPU reset") if fails else "a GPU reset with no 'succeeded' after it"
        return [finding(
            fid, Severity.FAIL, f"The kernel log shows {what}",
            "A GPU whose reset failed stays hung until the node reboots; every job that lands on it stalls.",
            ev(fails) + ev(begins[-1:]) + ev(timeouts[-2:]),
            Fix("Drain the node and reboot it; if it recurs, collect the log for AMD:",
                ["sudo dmesg -T | grep -iE 'amdgpu.*(reset|timeout)'"]),
        )]
    if len(begins) > _limit(matrix, "gpu_resets_warn", 0) or len(timeouts) > _limit(matrix, "ring_timeouts_warn", 0):
        return [finding(
            fid, Severity.WARN,
            f"The kernel log shows {plural(len(timeouts), 'ring timeout')} and {plural(len(begins), 'GPU reset')} "
            "since boot",
            "The GPU hung and the driver recovered it; the job that was running died and VRAM may have been lost. "
            "Repeated hangs point at a failing GPU, firmware or a driver bug.",
            ev(timeouts) + ev(begins) + ev(oks),
            Fix("Read the log around the hang:", ["sudo dmesg -T | grep -iE 'amdgpu.*(reset|timeout)' | tail"]),
        )]
    return [ok(fid, "No GPU hangs or resets in the kernel log")]
