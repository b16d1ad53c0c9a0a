"""Kernel and kernel-driver checks: the layer below ROCm user space (the OS itself: judge/distro.py)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Optional

from rocmdoctor.judge.context import started_without_kfd
from rocmdoctor.judge.distro import os_label
from rocmdoctor.judge.driver_upstream import no_driver_for_gpu
from rocmdoctor.judge.facts import ROCM_DOCS, finding, not_captured, ok, rocm_context, skip
from rocmdoctor.judge.gpu_evidence import KERNEL_FAILURES, RUN_FAILURES
from rocmdoctor.judge.registry import check
from rocmdoctor.matrix.query import _vtuple
from rocmdoctor.model import DkmsEntry, Finding, Fix, Severity
from rocmdoctor.sanitize import command, word
from rocmdoctor.words import plural

if TYPE_CHECKING:
    from rocmdoctor.matrix import Matrix
    from rocmdoctor.model import DkmsEntry, DkmsInfo, Host

# the kernels installed beside the running one, in the distribution's own package manager
_KERNELS_INSTALLED = {
    **dict.fromkeys(("ubuntu", "debian", "linuxmint", "pop"), "apt list --installed 'linux-image-*'"),
    **dict.fromkeys(("rhel", "rocky", "almalinux", "centos", "ol", "fedora", "azurelinux"), "rpm -q kernel"),
    **dict.fromkeys(("sles", "opensuse-leap"), "rpm -q kernel-default"),
    "arch": "pacman -Q linux",
}


def _validated_with(rocm: str, os_id: str, version: str, kernels: list[str], listed: bool) -> str:
    if not listed:
        return f"AMD validated no {os_id} kernel with ROCm {rocm}: the release lists no {os_id} version. "
    if kernels:
        return f"AMD validated ROCm {rocm} on {os_id} {version} with {'kernel' if len(kernels) == 1 else 'kernels'} " \
               f"{', '.join(kernels)}. "
    return f"AMD validated ROCm {rocm} on {os_id} {version} with other kernels. "


def _ubuntu_kernel_build(host: Host, release: str) -> Optional[str]:
    """The Ubuntu release the running kernel was built for, from its own banner ("#40~22.04.1-Ubuntu", or the
    "~16.04" of its compiler package in the `Linux version` line: ROCm/legacy-rocm-build#624), when no OS
    release was captured: AMD's validated kernels are listed per Ubuntu release, and an Ubuntu kernel package is
    that release's kernel even on a derivative."""
    fact = host.context.get("kernel-ubuntu-build")
    if fact is None or not release:
        return None
    m = re.fullmatch(r"(\S{1,60}) [^\n]{1,200}~(\d{2}\.\d{2})", fact.value)
    return m.group(2) if m and m.group(1) == release else None


@check("kernel.not-validated", title="Kernel")
def kernel_validated(host: Host, matrix: Matrix) -> list[Finding]:
    """The running kernel against AMD's validated list; with none captured, the kernel amdgpu-dkms was seen
    failing to build for (the one about to be booted: ROCm/legacy-rocm-build#5110 compiled 6.16 for it)."""
    release = host.kernel.release
    target = not release and host.dkms is not None and bool(host.dkms.failed_kernels)
    if target and host.dkms is not None:
        release = host.dkms.failed_kernels[0]
    if not release:
        return [not_captured("kernel.not-validated", "Kernel release (uname -r)")]
    if host.kernel.is_wsl:
        return [skip("kernel.not-validated", f"Kernel {release} is a WSL kernel (not judged)")]
    os_id, version, label = host.os.id, host.os.version or host.os.version_id or "", os_label(host)
    if not os_id and (built_for := _ubuntu_kernel_build(host, release)):
        os_id, version, label = "ubuntu", built_for, f"Ubuntu {built_for} (the kernel is built for it)"
    if not os_id:
        return [skip("kernel.not-validated", f"Kernel {release}: OS not captured, cannot judge")]
    ctx = rocm_context(host, matrix, system_only=True)
    if not ctx.version:
        return [skip("kernel.not-validated", f"Kernel {release}: no installed ROCm version to judge against")]
    verdict = matrix.kernel_validated(ctx.version or "", os_id, version, release) if ctx.version else None
    ev = [str(host.kernel.source)] if host.kernel.source and not target else [release]
    if target and host.dkms is not None and host.dkms.build_failures:
        first = host.dkms.build_failures[0]
        ev = [str(first.source) if first.source else first.value]
    banner = host.context.get("kernel-ubuntu-build") if os_id != host.os.id else None
    if banner is not None and banner.source is not None:
        ev.append(str(banner.source))  # where the OS was read
    if verdict is None:
        return [skip("kernel.not-validated", f"Kernel {release}: no kernel data for {os_id} {version} "
                                             f"in ROCm {ctx.version}")]
    if verdict:
        return [ok("kernel.not-validated", f"Kernel {release} is validated for ROCm {ctx.version} on "
                                           f"{os_id} {version}", ev)]
    kernels = sorted({k for o in (ctx.release.os if ctx.release else ()) if o.os_id == os_id
                      and (o.version.startswith(version) or version.startswith(o.version)) for k in o.kernels})
    return [finding(
        "kernel.not-validated", Severity.WARN,
        f"Kernel {release}{' (amdgpu-dkms failed to build for it)' if target else ''} is not one ROCm "
        f"{ctx.version} was validated with on {label}",
        _validated_with(ctx.version or "", os_id, version, kernels, matrix.os_family_listed(ctx.version or "", os_id))
        + ("" if kernels and _vtuple(release)[:2] < min(_vtuple(k)[:2] for k in kernels)
           else "Newer kernels often break the amdgpu-dkms build or change KFD behaviour."),
        ev,
        Fix("Boot a validated kernel (GA or HWE of your release), or use the in-tree amdgpu driver "
            "(no amdgpu-dkms) with a new enough ROCm.", [_KERNELS_INSTALLED.get(os_id or "", "uname -r")],
            ROCM_DOCS + "reference/system-requirements.html"),
    )]


@check("driver.amdgpu-not-loaded", title="amdgpu kernel module")
def amdgpu_loaded(host: Host, matrix: Matrix) -> list[Finding]:
    fact = host.amdgpu_loaded
    if host.kernel.is_wsl:
        return [skip("driver.amdgpu-not-loaded", "WSL: there is no amdgpu module in the WSL kernel (the GPU is "
                                                 "reached through /dev/dxg and the Windows driver)")]
    if fact is None:
        if host.gpus and "rocminfo" in host.captured and any("rocminfo" in g.gfx_by_source for g in host.gpus):
            return [ok("driver.amdgpu-not-loaded", "amdgpu is working (rocminfo lists GPU agents)")]
        # no module list, but no driver that could serve the GPU (ROCm/legacy-rocm-build#624)
        none_for_gpu = no_driver_for_gpu(host, matrix)
        return [none_for_gpu or not_captured("driver.amdgpu-not-loaded", "Loaded kernel modules")]
    if fact.value:
        ver = f" (version {host.amdgpu_version.value})" if host.amdgpu_version else ""
        return [ok("driver.amdgpu-not-loaded", f"amdgpu kernel module loaded{ver}", [str(fact.source)])]
    if "ROCk module" in (fact.source.text or "") and started_without_kfd(host):
        # rocminfo inside a container started without /dev/kfd (robertrosenbusch/gfx803_rocm#6): it cannot see the
        # host's module, so its "NOT loaded" says nothing about the host (container.no-kfd-device is the cause)
        return [skip("driver.amdgpu-not-loaded", "rocminfo ran in a container started without /dev/kfd: the host's "
                                                 "module is not judged from it")]
    return [finding(
        "driver.amdgpu-not-loaded", Severity.FAIL, "The amdgpu kernel module is not loaded",
        "Without amdgpu there is no /dev/kfd and ROCm sees no GPU. Common causes: amdgpu-dkms failed to build "
        "for this kernel, 'nomodeset' or 'modprobe.blacklist=amdgpu' on the kernel command line, Secure Boot "
        "refusing an unsigned DKMS module.",
        [str(fact.source)],
        Fix("Load it and read why it failed:", ["sudo modprobe amdgpu", "sudo dmesg | grep -i amdgpu",
                                               "cat /proc/cmdline", "dkms status"]),
    )]


def _dkms_fixed(matrix: Matrix, dkms_version: str, kernel: str) -> list[str]:
    """ROCm releases newer than the one that shipped ``dkms_version`` whose amdgpu-dkms has no known breakage
    on ``kernel``, oldest first."""
    from rocmdoctor.judge.facts import _vkey

    shipped = matrix.rocm_for_dkms(dkms_version) or "0"
    newer = [r for r in matrix.releases.values() if _vkey(r.version) > _vkey(shipped) and r.dkms_base
             and r.version.split(".")[:2] != shipped.split(".")[:2]]
    return [r.version for r in sorted(newer, key=lambda r: _vkey(r.version))
            if not matrix.dkms_breakages(f"{r.dkms_base}-0", kernel)]


def _breakages(host: Host, matrix: Matrix, info: DkmsInfo, amdgpu: list[DkmsEntry], on_kernel: list[DkmsEntry],
               kernel: str) -> list[Finding]:
    """Known amdgpu-dkms breakages, in order of evidence.

    The bundle's own build result for the running kernel comes first: `installed`/`built` means the module
    built, so no table row can say otherwise (nothing is reported). A failed build for this kernel (install log,
    make.log, crash) is a FAIL, and a matching row names the known cause. Only when the bundle has no build
    result for this kernel does the table predict, as a WARN that says it is a prediction.
    """
    if any(e.status.split()[:1] in (["installed"], ["built"]) for e in on_kernel):
        return []
    failed = [e for e in on_kernel if e.status == "build-failed"]
    direct = bool(failed) or kernel in info.failed_kernels
    os_id = host.os.id if host.os else None
    out: list[Finding] = []
    seen: set[tuple[str, str]] = set()
    for e in failed or amdgpu:
        for b in matrix.dkms_breakages(e.version, kernel, os_id):
            if (e.version, b.issue) in seen:
                continue
            seen.add((e.version, b.issue))
            if b.fixed_in:
                fixed = [b.fixed_in]
            else:  # the releases the data gives a dkms base start at 5.7: none is "the first" after a rock-dkms
                fixed = _dkms_fixed(matrix, e.version, kernel) if b.what == "amdgpu-dkms" else []
            upgrade = f" (the first that builds there: ROCm {fixed[0]})" if fixed else ""
            span = f"{b.kernel_min}–{b.kernel_max}" if b.kernel_max else f"{b.kernel_min} and newer"
            where = f" on {', '.join(b.distro)}" if b.distro else ""
            releases = f" (ROCm {', '.join(b.rocm)})" if b.rocm else ""
            if direct:
                title = f"{b.what} {e.version} failed to build on kernel {kernel}: a known breakage"
                why = (f"The input shows the build failing for kernel {kernel}, and {b.what} {b.dkms_base}"
                       f"{releases} is known to fail on kernels {span}{where} ({b.issue}).")
            else:
                title = f"{b.what} {e.version} is predicted not to build on kernel {kernel}"
                why = (f"Prediction from the breakage table, not an observation: the bundle has no build result for "
                       f"{kernel}. {b.what} {b.dkms_base}{releases} fails on kernels {span}{where} ({b.issue}).")
            out.append(finding(
                "driver.dkms-breakage", Severity.FAIL if direct else Severity.WARN, title,
                why + (f" Fixed in ROCm {b.fixed_in}." if b.fixed_in else ""),
                [str(e.source)] if e.source else [],
                Fix(f"Boot an older (validated) kernel, or install a ROCm release whose {b.what} builds on "
                    f"this kernel{upgrade}.",
                    ["rocmdoctor matrix show" + (f" --rocm {fixed[0]}" if fixed else "")],
                    b.issue),
            ))
    return out


RUNTIME_FAILURES = frozenset(RUN_FAILURES) | frozenset(KERNEL_FAILURES) | {"log.hsa-init-failed", "log.rock-not-loaded"}


def _driver_release_tested(host: Host) -> Optional[Finding]:
    """The report's own test of two kernel driver releases beats any table: the ROCm runtime fails with the one it
    installed and works with the other on the same hardware and user space (ROCm/ROCm#5433: amdgpu 6.14.14 on a
    gfx1150 APU, where 6.12.12 works)."""
    good, bad = host.context.get("driver-works-with"), host.context.get("driver-named")
    failed = [m for m in host.logs if m.finding_id in RUNTIME_FAILURES]
    if good is None or bad is None or good.value == bad.value or not failed:
        return None
    debian = host.os is not None and host.os.id in ("ubuntu", "debian")
    return finding(
        "driver.dkms-breakage", Severity.FAIL,
        f"amdgpu {bad.value} breaks ROCm on this host; the report shows amdgpu {good.value} working",
        f"The ROCm runtime fails under the kernel driver amdgpu {bad.value}, and the report says the same hardware and "
        f"ROCm user space work under amdgpu {good.value}: the driver release is the cause, not the GPU or ROCm.",
        [str(bad.source), str(good.source), *(str(m.source) if m.source else m.text for m in failed[:1])],
        Fix(f"Go back to the driver that works (amdgpu {good.value}, or the kernel's own amdgpu: ROCm installed "
            "without DKMS):", ["sudo apt remove --purge amdgpu-dkms amdgpu-dkms-firmware",
                                "sudo amdgpu-install --usecase=rocm --no-dkms"] if debian else [],
            ROCM_DOCS + "reference/user-kernel-space-compat-matrix.html"),
    )


@check("driver.dkms-failed", "driver.dkms-breakage", title="amdgpu-dkms")
def dkms(host: Host, matrix: Matrix) -> list[Finding]:
    info = host.dkms
    tested = _driver_release_tested(host)
    if info is None:
        return [tested] if tested else [not_captured("driver.dkms-failed", "dkms status")]
    out: list[Finding] = []
    kernel = host.kernel.release
    for err in info.errors:
        out.append(finding(
            "driver.dkms-failed", Severity.FAIL, "`dkms status` itself fails",
            "A stale or half-removed DKMS tree makes dkms error out, so no module can be (re)built for a new "
            "kernel. Usually left over from an uninstalled amdgpu-dkms.",
            [str(err.source) if err.source else err.value],
            Fix("Remove the broken tree and reinstall the driver package:",
                ["ls /var/lib/dkms/amdgpu", "sudo rm -r /var/lib/dkms/amdgpu/<broken-version>",
                 "sudo apt install --reinstall amdgpu-dkms"]),
        ))
    if info.build_failures:
        evidence = [str(f.source) if f.source else f.value for f in info.build_failures]
        out.append(finding(
            "driver.dkms-failed", Severity.FAIL, "amdgpu-dkms failed to build",
            "The amdgpu DKMS module did not build"
            + (f" for {', '.join(info.failed_kernels)}" if info.failed_kernels else "") + ":"
            " the system boots with the in-tree amdgpu (or none), which may not match ROCm user space.",
            list(dict.fromkeys(evidence)),
            Fix("Read the make.log; boot a kernel this amdgpu-dkms supports, or upgrade ROCm/amdgpu-dkms:",
                ["cat /var/lib/dkms/amdgpu/*/build/make.log | tail -50", "dkms status"],
                ROCM_DOCS + "reference/user-kernel-space-compat-matrix.html"),
        ))
    amdgpu = [e for e in info.entries if e.module == "amdgpu"]
    # a build seen failing is judged for the kernel it failed on (direct evidence), whether or not that kernel is
    # the running one (a pasted install log builds for every installed kernel: #6193 failed on 7.0.0-15 while
    # 7.0.0-22 ran)
    seen_failing = False
    for k in dict.fromkeys(e.kernel for e in amdgpu if e.status == "build-failed" and e.kernel and e.kernel != kernel):
        found = _breakages(host, matrix, info, amdgpu, [e for e in amdgpu if e.kernel == k], k or "")
        seen_failing = seen_failing or any(f.id == "driver.dkms-breakage" for f in found)
        out += found
    if kernel and amdgpu:
        on_kernel = [e for e in amdgpu if e.kernel == kernel]
        if not (seen_failing and not on_kernel):  # the failed build already says it; no prediction beside it
            out += _breakages(host, matrix, info, amdgpu, on_kernel, kernel)
        if not on_kernel and not info.build_failures and not info.errors:
            out.append(finding(
                "driver.dkms-failed", Severity.FAIL, f"amdgpu-dkms is not built for the running kernel {kernel}",
                "dkms lists amdgpu only for other kernels: after a kernel upgrade the module was not rebuilt.",
                [str(e.source) for e in amdgpu if e.source][:3],
                Fix("Build it for this kernel (needs the matching headers):",
                    [command("sudo", "apt", "install", word("kernel", kernel, 'linux-headers-"$(uname -r)"',
                                                            prefix="linux-headers-")),
                     "sudo dkms autoinstall", "dkms status"]),
            ))
        for e in on_kernel:
            if e.status == "build-failed":
                continue  # reported above with the log lines
            if e.status.split()[0:1] != ["installed"]:
                out.append(finding(
                    "driver.dkms-failed", Severity.FAIL,
                    f"amdgpu-dkms {e.version} is '{e.status}' for kernel {kernel}, not installed",
                    "The module is built but not installed for the running kernel.",
                    [str(e.source)] if e.source else [],
                    Fix("Install it:", [command("sudo", "dkms", "install",
                                                word("version", e.version, "amdgpu/VERSION", prefix="amdgpu/"),
                                                "-k", word("kernel", kernel, '"$(uname -r)"'))]),
                ))
    if not amdgpu and info.failed_kernels:  # said in prose: a kernel, no module version; the release ships one
        ctx = rocm_context(host, matrix, system_only=True)
        base = ctx.release.dkms_base if ctx.release else None
        src = info.build_failures[0].source if info.build_failures else None
        for k in info.failed_kernels if base else ():
            said = DkmsEntry("amdgpu", base or "", k, None, "build-failed", src)
            out += _breakages(host, matrix, info, [said], [said], k)
    if not out:
        if amdgpu:
            out.append(ok("driver.dkms-failed", f"amdgpu-dkms {amdgpu[0].version} installed"
                          + (f" for {kernel}" if kernel else ""), [str(amdgpu[0].source)]))
        else:
            out.append(ok("driver.dkms-failed", "No amdgpu-dkms module (in-tree amdgpu driver in use)"))
    return out


@check("kernel.cmdline", title="Kernel command line")
def cmdline(host: Host, matrix: Matrix) -> list[Finding]:
    fact = host.cmdline
    if fact is None:
        return [not_captured("kernel.cmdline", "Kernel command line (/proc/cmdline)")]
    args = fact.value.split()
    blockers = [a for a in args if a == "nomodeset" or a in ("amdgpu.modeset=0", "modprobe.blacklist=amdgpu")
                or (a.startswith("modprobe.blacklist=") and "amdgpu" in a.split("=", 1)[1].split(","))]
    if blockers:
        return [finding(
            "kernel.cmdline", Severity.FAIL, f"The kernel command line disables amdgpu ({' '.join(blockers)})",
            "With these parameters amdgpu does not bind to the GPU: no /dev/kfd, no ROCm.",
            [str(fact.source)],
            Fix("Remove them from GRUB_CMDLINE_LINUX_DEFAULT in /etc/default/grub, then:",
                ["sudo update-grub", "sudo reboot"]),
        )]
    return [ok("kernel.cmdline", "The kernel command line does not disable amdgpu", [str(fact.source)])]


# the GPU's own processors not answering amdgpu: the SMU ('Failed to send message 0x26, response 0x0': no response,
# then powerplay cannot set or disable DPM; ROCm/legacy-rocm-build#1886, an MI50 after a RAS error) and the PSP's
# ring ('Fail to stop psp ring', 'Trying to clear memory with ring turned off'; ROCm/legacy-rocm-build#2747, MI210s
# whose PSP ring could not be created), or whose PSP could not even boot its firmware ('socket: 2, aid: 0, fw_status:
# 0xe6985b2d, firmware load failed at boot time' beside 'get invalid ip discovery binary signature' on every MI300X
# of a Dell XE9680; ROCm/legacy-rocm-build#4454: a faulty GPU, replaced)
_UNANSWERED = re.compile(r"Failed to send message 0x[0-9a-fA-F]{1,4}, response 0x0\b|Fail to stop psp ring"
                         r"|Trying to clear memory with ring turned off"
                         r"|fw_status: 0x[0-9a-f]{1,8}, firmware load failed at boot time")


@check("driver.dmesg-errors", title="amdgpu errors in the kernel log")
def dmesg_errors(host: Host, matrix: Matrix) -> list[Finding]:
    if "dmesg" not in host.captured:
        return [not_captured("driver.dmesg-errors", "Kernel log (dmesg)")]
    bad = re.compile(r"(?i)(fail|error|timeout|timed out|hang|reset|fault|not supported|unable)")
    # the PSP trusted-application firmware (*_ta.bin) is optional: ROCm compute does not need it. amdgpu's "PCIE atomic
    # ops is not supported" notes the link's capability; kfd's own "PCI rejects atomics" is the verdict, read as
    # log.pcie-atomics-missing (ROCm/legacy-rocm-build#157: Fedora's ROCm OpenCL works on an RX 6600 XT behind PCIe 2.0)
    harmless = re.compile(r"(?i)(failed to load firmware.*optional|ras: .*not supported|error_count 0|_ta\.bin"
                          r"|amdgpu: PCIE atomic ops is not supported)")
    known = {m.source.line for m in host.logs if m.source is not None}  # lines a known error already explains
    hits = [d for d in host.dmesg if bad.search(d.value) and not harmless.search(d.value)
            and not (d.source is not None and d.source.line in known)]
    if not hits:
        return [ok("driver.dmesg-errors", "No amdgpu/kfd errors in the kernel log")]
    kernel_side = [m for m in host.logs if m.finding_id.split(".", 1)[0] in ("driver", "gpu", "secureboot")
                   or m.finding_id in ("log.kfd-unsupported-device", "log.pcie-atomics-missing",
                                       "log.amdgpu-init-failed", "log.module-key-rejected", "log.gpu-hang")]
    dead = [d for d in hits if _UNANSWERED.search(d.value)]
    return [finding(
        # a known kernel-side error already names the problem: the other lines are its context, unless they show
        # the GPU's own processors no longer answering the driver (the GPU stays unusable until a reboot)
        "driver.dmesg-errors", Severity.FAIL if dead else Severity.INFO if kernel_side else Severity.WARN,
        f"{plural(len(hits), 'amdgpu/kfd error line')} in the kernel log"
        + (": the GPU's SMU or PSP failed or stopped answering the driver" if dead else ""),
        "The driver reported problems (firmware load, ring timeouts, GPU resets, probe failures); they explain "
        "hangs and missing GPUs that user-space tools only see as 'no device'.",
        [f"{d.source}: {d.value}" if d.source and not d.source.text else str(d.source or d.value) for d in hits[:6]],
        Fix("Read the full log around these lines:", ["sudo dmesg -T | grep -iE 'amdgpu|kfd' | tail -50"]),
    )]


@check("driver.not-bound", title="Driver bound to each GPU")
def driver_bound(host: Host, matrix: Matrix) -> list[Finding]:
    """The PCI bus sees every GPU even when no driver took it: the clearest proof that amdgpu failed to probe."""
    if host.kernel.is_wsl:
        return [skip("driver.not-bound", "WSL: GPUs are not on the WSL kernel's PCI bus")]
    known = [g for g in host.gpus if g.pci_driver is not None]
    if not known:
        return [not_captured("driver.not-bound", "PCI driver binding (/sys/bus/pci/devices/*/driver)")] \
            if "pci" in host.captured or host.gpus else []
    out: list[Finding] = []
    for g in known:
        where = f"GPU {g.index} ({g.name or g.pci_device_id or 'AMD GPU'}, PCI {g.pci_bus})"
        if g.pci_driver == "amdgpu":
            continue
        if g.pci_driver == "":
            out.append(finding(
                "driver.not-bound", Severity.FAIL, f"{where} has no driver bound",
                "The card is on the PCI bus but amdgpu did not take it: the module is not loaded, failed to "
                "probe (firmware missing, unsupported kernel), or is blacklisted.",
                [str(s) for s in g.sources[:2]],
                Fix("Load amdgpu and read why it failed:", ["sudo modprobe amdgpu", "sudo dmesg | grep -i amdgpu",
                                                            f"lspci -k -s {g.pci_bus}"]),
            ))
        elif (g.pci_driver or "").startswith("vfio"):
            out.append(finding(
                "driver.not-bound", Severity.INFO, f"{where} is bound to {g.pci_driver} (passed through to a VM)",
                "This host cannot use it; the guest that owns it can.", [str(s) for s in g.sources[:1]],
            ))
        else:
            out.append(finding(
                "driver.not-bound", Severity.FAIL, f"{where} is driven by {g.pci_driver}, not amdgpu",
                "ROCm only works through amdgpu. Older GCN cards default to the radeon driver.",
                [str(s) for s in g.sources[:1]],
                Fix("Let amdgpu take GCN 1/2 cards (kernel parameters), then reboot:",
                    ["radeon.si_support=0 amdgpu.si_support=1 radeon.cik_support=0 amdgpu.cik_support=1"]),
            ))
    return out or [ok("driver.not-bound", "amdgpu drives every AMD GPU on the PCI bus")]
