"""OS, kernel and kernel-driver checks: the layer below ROCm user space."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from rocmdoctor.judge.facts import ROCM_DOCS, finding, not_captured, ok, rocm_context, skip
from rocmdoctor.judge.registry import check
from rocmdoctor.matrix.query import _vtuple
from rocmdoctor.model import DkmsEntry, Finding, Fix, Severity
from rocmdoctor.sanitize import command, word
from rocmdoctor.words import plural

if TYPE_CHECKING:
    from rocmdoctor.matrix import Matrix
    from rocmdoctor.matrix.types import OsSupport
    from rocmdoctor.model import DkmsEntry, DkmsInfo, Host

WSL_URL = "https://rocm.docs.amd.com/projects/radeon/en/latest/docs/install/wsl/install-radeon.html"
WSL_MATRIX_URL = "https://rocm.docs.amd.com/projects/radeon/en/latest/docs/compatibility/wsl/wsl_compatibility.html"
# AMD's WSL runtime, the package amdgpu-install's `wsl` usecase installs; apt not finding it means the installer's
# ROCm release publishes no WSL build for this distribution release (ROCm/legacy-rocm-build#4064, #3051, #4406,
# #5361).
WSL_RUNTIME_PACKAGE = "hsa-runtime-rocr4wsl-amdgpu"


def _wsl_runtime_missing(host: Host, matrix: Matrix) -> list[Finding]:
    """apt cannot find AMD's WSL runtime: direct evidence that this amdgpu-install release has no WSL build for
    this distribution release, whatever the tables say (AMD: "there is no ROCm 6.3.3 release for WSL", #4406;
    "24.04 support was introduced in ROCm 6.2.0", #4064)."""
    lines = [m for m in host.logs if m.finding_id == "log.package-install-failed"
             and m.groups.get("package") == WSL_RUNTIME_PACKAGE]
    if not lines:
        return []
    os_label = _os_label(host) if host.os.id else "this distribution release"
    return [finding(
        "os.not-supported", Severity.FAIL,
        f"The amdgpu-install release in use has no WSL runtime for {os_label}",
        f"apt cannot find {WSL_RUNTIME_PACKAGE}, AMD's ROCm runtime for WSL: the installer's ROCm release publishes "
        "no WSL packages for this distribution release (each WSL release lists its Ubuntu releases; some ROCm "
        "releases have no WSL build at all). Without it rocminfo fails with HSA_STATUS_ERROR_OUT_OF_RESOURCES.",
        [str(m.source) if m.source else m.text for m in lines[:2]]
        + ([str(host.os.source)] if host.os.source else []),
        Fix("amdgpu-install is release-specific: remove it, install the amdgpu-install package of a ROCm release "
            "that AMD's WSL matrix lists for this Ubuntu release, then run its WSL usecase "
            "(amdgpu-install -y --usecase=wsl,rocm --no-dkms):",
            ["sudo apt purge amdgpu-install"], WSL_MATRIX_URL),
    )]


def _os_label(host: Host) -> str:
    o = host.os
    return o.pretty_name or " ".join(x for x in (o.id, o.version or o.version_id) if x) or "unknown OS"


def _native_rocm_under_wsl(host: Host) -> list[Finding]:
    """Under WSL, a ROCm that looks for the kernel driver (rocminfo: 'ROCk module is NOT loaded', no /dev/kfd) is
    the native Linux stack: it can never work there. AMD's WSL runtime announces itself ('WSL environment
    detected.') and reaches the GPU through /dev/dxg (ROCm/legacy-rocm-build#1361, before any WSL release)."""
    if not host.kernel.is_wsl or any(m.finding_id == "log.wsl-environment" for m in host.logs):
        return []
    # rocminfo's own lines (a container's 'adding custom device /dev/kfd' is container.wsl-dxg-device's case)
    native = [m for m in host.logs if m.signature in ("rock-not-loaded", "kfd-open-no-such-file")]
    if not native:
        return []
    return [finding(
        "os.not-supported", Severity.FAIL, "The native Linux ROCm is installed inside WSL: it cannot reach the GPU",
        "WSL has no amdgpu kernel driver and no /dev/kfd; only AMD's ROCm for WSL (from ROCm 6.1.3, on the Ubuntu "
        "releases its WSL matrix lists, with Adrenalin on Windows) talks to the GPU, through /dev/dxg.",
        [str(m.source) if m.source else m.text for m in native[:2]],
        Fix("Install AMD's ROCm for WSL instead (the release the WSL matrix lists for your Ubuntu), or run ROCm on "
            "a native Linux install:", ["sudo amdgpu-install -y --usecase=wsl,rocm --no-dkms"], WSL_MATRIX_URL),
    )]


def _wsl_release(host: Host, matrix: Matrix) -> list[Finding]:
    """Under WSL only the releases AMD publishes for WSL work; a release AMD said has no WSL build cannot start
    its runtime there (rocminfo: HSA_STATUS_ERROR_OUT_OF_RESOURCES), whatever the distribution."""
    if not host.kernel.is_wsl:
        return []
    ctx = rocm_context(host, matrix, system_only=True, allow_latest=False)
    if ctx.release is None or ctx.release.wsl is not False:
        return []
    return [finding(
        "os.not-supported", Severity.FAIL, f"ROCm {ctx.version} has no WSL build",
        f"AMD publishes only some ROCm releases for WSL, and {ctx.version} is not one of them "
        f"({ctx.release.wsl_source}). Its runtime cannot reach the GPU through WSL, so rocminfo and every "
        "ROCm program fail.",
        [ctx.why] + ([str(host.os.source)] if host.os.source else []),
        Fix("Install the ROCm release AMD's WSL matrix lists for your Ubuntu release (amdgpu-install of that "
            "release, then its WSL usecase), and the matching AMD wheels:",
            ["sudo apt purge amdgpu-install"], WSL_MATRIX_URL),
    )]


@check("os.not-supported", title="Operating system")
def os_supported(host: Host, matrix: Matrix) -> list[Finding]:
    wsl_missing = _wsl_runtime_missing(host, matrix) or _wsl_release(host, matrix) or _native_rocm_under_wsl(host)
    if wsl_missing:
        return wsl_missing
    built_elsewhere = [m for m in host.logs if m.signature == "apt-rocm-depends-not-installable"]
    if built_elsewhere:  # direct evidence beats the table (and needs no version)
        return [finding(
            "os.not-supported", Severity.FAIL,
            "The ROCm packages being installed were not built for this distribution release",
            "apt says a ROCm package depends on something this release does not provide at all (not a version held "
            "back): the repository or installer is the one for another release. Packages will not install.",
            [str(m.source) if m.source else m.text for m in built_elsewhere[:2]]
            + ([str(host.os.source)] if host.os.source else []),
            Fix("Use the ROCm release and repository built for this release (check the codename in the source "
                "list), or install on the release the packages were built for:",
                ["lsb_release -cs", "grep -r repo.radeon.com /etc/apt/sources.list.d/"], ROCM_DOCS +
                "reference/system-requirements.html"),
        )]
    if not host.os.id:
        return [not_captured("os.not-supported", "OS release (/etc/os-release)")]
    if host.kernel.is_wsl and host.os.id != "ubuntu":
        return [finding(
            "os.not-supported", Severity.FAIL, f"{_os_label(host)} under WSL is not a configuration ROCm supports",
            "AMD's ROCm for WSL supports Ubuntu distributions only (the WSL compatibility matrix); other distributions "
            "under WSL have no WSL-aware HSA runtime, and rocminfo fails (HSA_STATUS_ERROR_OUT_OF_RESOURCES).",
            [str(host.os.source)] if host.os.source else [],
            Fix("Use an Ubuntu release AMD lists for WSL, with ROCm for WSL (amdgpu-install --usecase=wsl,rocm "
                "--no-dkms):", ["wsl --install -d Ubuntu-22.04"], WSL_URL),
        )]
    ctx = rocm_context(host, matrix, system_only=True)
    if not ctx.version:
        return [skip("os.not-supported", f"{_os_label(host)}: no installed ROCm version to judge against")]
    version = host.os.version or host.os.version_id or ""
    verdict = matrix.os_supported(ctx.version or "", host.os.id, version) if ctx.version else None
    ev = [str(host.os.source)] if host.os.source else []
    if verdict is None:
        return [skip("os.not-supported", f"{_os_label(host)}: no data for ROCm {ctx.version}")]
    if verdict:
        return [ok("os.not-supported", f"{_os_label(host)} is supported by ROCm {ctx.version}", ev)]
    return [finding(
        "os.not-supported", Severity.WARN, f"{_os_label(host)} is not supported by ROCm {ctx.version}",
        f"AMD does not validate ROCm {ctx.version} on this OS ({ctx.why}); packages may not install and "
        "the amdgpu-dkms module may not build. Supported: " + _supported_list(ctx.release.os if ctx.release else ()),
        ev,
        Fix("Use a supported distribution release, or a ROCm container on this host.",
            [f"rocmdoctor matrix show --rocm {ctx.version}"], ROCM_DOCS + "reference/system-requirements.html"),
    )]


def _supported_list(entries: Iterable[OsSupport]) -> str:
    """One entry per distribution with its releases ("ubuntu 22.04.5/24.04.3"), every distribution shown: a cut
    alphabetical list of releases hid Ubuntu behind Debian, Oracle Linux and RHEL."""
    by_os: dict[str, set[str]] = {}
    for o in entries:
        by_os.setdefault(o.os_id, set()).add(o.version)
    return ", ".join(f"{os_id} {'/'.join(sorted(v, key=_vtuple))}" for os_id, v in sorted(by_os.items()))


@check("os.wsl", title="Windows Subsystem for Linux")
def wsl(host: Host, matrix: Matrix) -> list[Finding]:
    if not host.kernel.is_wsl:
        return []
    return [finding(
        "os.wsl", Severity.INFO, "Running under WSL",
        "Under WSL there is no /dev/kfd and no amdgpu module: the GPU is reached through /dev/dxg and AMD's "
        "WSL-specific runtime. Only AMD's Radeon-on-WSL wheels work; download.pytorch.org ROCm wheels fail "
        "with 'No HIP GPUs are available' / hipErrorNoDevice.",
        [host.kernel.version_text or ""],
        Fix("Install ROCm for WSL and the matching AMD wheels, then replace the wheel's bundled HSA runtime "
            "as AMD's guide says.", [], WSL_URL),
    )]


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
    if not host.os.id:
        return [skip("kernel.not-validated", f"Kernel {release}: OS not captured, cannot judge")]
    ctx = rocm_context(host, matrix, system_only=True)
    if not ctx.version:
        return [skip("kernel.not-validated", f"Kernel {release}: no installed ROCm version to judge against")]
    version = host.os.version or host.os.version_id or ""
    verdict = matrix.kernel_validated(ctx.version or "", host.os.id, version, release) if ctx.version else None
    ev = [str(host.kernel.source)] if host.kernel.source and not target else [release]
    if target and host.dkms is not None and host.dkms.build_failures:
        first = host.dkms.build_failures[0]
        ev = [str(first.source) if first.source else first.value]
    if verdict is None:
        return [skip("kernel.not-validated", f"Kernel {release}: no kernel data for {host.os.id} {version} "
                                             f"in ROCm {ctx.version}")]
    if verdict:
        return [ok("kernel.not-validated", f"Kernel {release} is validated for ROCm {ctx.version} on "
                                           f"{host.os.id} {version}", ev)]
    kernels = sorted({k for o in (ctx.release.os if ctx.release else ()) if o.os_id == host.os.id
                      and (o.version.startswith(version) or version.startswith(o.version)) for k in o.kernels})
    return [finding(
        "kernel.not-validated", Severity.WARN,
        f"Kernel {release}{' (amdgpu-dkms failed to build for it)' if target else ''} is not one ROCm "
        f"{ctx.version} was validated with on {_os_label(host)}",
        _validated_with(ctx.version or "", host.os.id, version, kernels, matrix.os_family_listed(ctx.version or "",
                                                                                                 host.os.id))
        + "Newer kernels often break the amdgpu-dkms build or change KFD behaviour.",
        ev,
        Fix("Boot a validated kernel (GA or HWE of your release), or use the in-tree amdgpu driver "
            "(no amdgpu-dkms) with a new enough ROCm.", [_KERNELS_INSTALLED.get(host.os.id or "", "uname -r")],
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
        return [not_captured("driver.amdgpu-not-loaded", "Loaded kernel modules")]
    if fact.value:
        ver = f" (version {host.amdgpu_version.value})" if host.amdgpu_version else ""
        return [ok("driver.amdgpu-not-loaded", f"amdgpu kernel module loaded{ver}", [str(fact.source)])]
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
            fixed = [b.fixed_in] if b.fixed_in else _dkms_fixed(matrix, e.version, kernel)
            upgrade = f" (the first that builds there: ROCm {fixed[0]})" if fixed else ""
            span = f"{b.kernel_min}–{b.kernel_max}" if b.kernel_max else f"{b.kernel_min} and newer"
            where = f" on {', '.join(b.distro)}" if b.distro else ""
            releases = f" (ROCm {', '.join(b.rocm)})" if b.rocm else ""
            if direct:
                title = f"amdgpu-dkms {e.version} failed to build on kernel {kernel}: a known breakage"
                why = (f"The input shows the build failing for kernel {kernel}, and amdgpu-dkms {b.dkms_base}"
                       f"{releases} is known to fail on kernels {span}{where} ({b.issue}).")
            else:
                title = f"amdgpu-dkms {e.version} is predicted not to build on kernel {kernel}"
                why = (f"Prediction from the breakage table, not an observation: the bundle has no build result for "
                       f"{kernel}. amdgpu-dkms {b.dkms_base}{releases} fails on kernels {span}{where} ({b.issue}).")
            out.append(finding(
                "driver.dkms-breakage", Severity.FAIL if direct else Severity.WARN, title,
                why + (f" Fixed in ROCm {b.fixed_in}." if b.fixed_in else ""),
                [str(e.source)] if e.source else [],
                Fix("Boot an older (validated) kernel, or install a ROCm release whose amdgpu-dkms builds on "
                    f"this kernel{upgrade}.",
                    ["rocmdoctor matrix show" + (f" --rocm {fixed[0]}" if fixed else "")],
                    b.issue),
            ))
    return out


@check("driver.dkms-failed", "driver.dkms-breakage", title="amdgpu-dkms")
def dkms(host: Host, matrix: Matrix) -> list[Finding]:
    info = host.dkms
    if info is None:
        return [not_captured("driver.dkms-failed", "dkms status")]
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


@check("driver.dmesg-errors", title="amdgpu errors in the kernel log")
def dmesg_errors(host: Host, matrix: Matrix) -> list[Finding]:
    if "dmesg" not in host.captured:
        return [not_captured("driver.dmesg-errors", "Kernel log (dmesg)")]
    import re

    bad = re.compile(r"(?i)(fail|error|timeout|timed out|hang|reset|fault|not supported|unable)")
    # the PSP trusted-application firmware (*_ta.bin) is optional: ROCm compute does not need it
    harmless = re.compile(r"(?i)(failed to load firmware.*optional|ras: .*not supported|error_count 0|_ta\.bin)")
    known = {m.source.line for m in host.logs if m.source is not None}  # lines a known error already explains
    hits = [d for d in host.dmesg if bad.search(d.value) and not harmless.search(d.value)
            and not (d.source is not None and d.source.line in known)]
    if not hits:
        return [ok("driver.dmesg-errors", "No amdgpu/kfd errors in the kernel log")]
    kernel_side = [m for m in host.logs if m.finding_id.split(".", 1)[0] in ("driver", "gpu", "secureboot")
                   or m.finding_id in ("log.kfd-unsupported-device", "log.pcie-atomics-missing",
                                       "log.amdgpu-init-failed", "log.module-key-rejected", "log.gpu-hang")]
    return [finding(
        # a known kernel-side error already names the problem: the other lines are its context
        "driver.dmesg-errors", Severity.INFO if kernel_side else Severity.WARN,
        f"{plural(len(hits), 'amdgpu/kfd error line')} in the kernel log",
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
