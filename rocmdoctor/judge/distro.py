"""The operating system: is the distribution one ROCm supports, and WSL (its own runtime, its own rules)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Optional

from rocmdoctor.judge.facts import ROCM_DOCS, finding, not_captured, ok, rocm_context, self_built_rocm, skip
from rocmdoctor.judge.registry import check
from rocmdoctor.matrix.query import _vtuple
from rocmdoctor.model import Finding, Fix, Severity

if TYPE_CHECKING:
    from rocmdoctor.matrix import Matrix
    from rocmdoctor.matrix.types import OsSupport
    from rocmdoctor.model import Host

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
    label = os_label(host) if host.os.id else "this distribution release"
    return [finding(
        "os.not-supported", Severity.FAIL,
        f"The amdgpu-install release in use has no WSL runtime for {label}",
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


def os_label(host: Host) -> str:
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
    started = host.context.get("rocm-runtime-started")
    if started is not None:  # direct evidence beats AMD's list: rocminfo's runtime initialised here
        return [finding(
            "os.not-supported", Severity.INFO,
            f"ROCm {ctx.version} is not a WSL release AMD lists, but its runtime starts here",
            f"AMD said {ctx.version} has no WSL build ({ctx.release.wsl_source}); this report's rocminfo printed the "
            "runtime's system attributes under WSL, which it does only once the runtime has started.",
            [ctx.why, str(started.source)])]
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
            "os.not-supported", Severity.FAIL, f"{os_label(host)} under WSL is not a configuration ROCm supports",
            "AMD's ROCm for WSL supports Ubuntu distributions only (the WSL compatibility matrix); other distributions "
            "under WSL have no WSL-aware HSA runtime, and rocminfo fails (HSA_STATUS_ERROR_OUT_OF_RESOURCES).",
            [str(host.os.source)] if host.os.source else [],
            Fix("Use an Ubuntu release AMD lists for WSL, with ROCm for WSL (amdgpu-install --usecase=wsl,rocm "
                "--no-dkms):", ["wsl --install -d Ubuntu-22.04"], WSL_URL),
        )]
    built = self_built_rocm(host)
    if built:  # lamikr/rocm_sdk_builder#246: built on this host (rocm_context resolves no AMD release for it)
        return [skip("os.not-supported", f"{os_label(host)}: the ROCm here ({built}) was built on this host "
                     "(ROCm SDK Builder), not installed from AMD's packages: AMD's OS list is not its verdict")]
    ctx = rocm_context(host, matrix, system_only=True)
    version = host.os.version or host.os.version_id or ""
    if not ctx.version:
        return _amd_packages_elsewhere(host, matrix, version) or _maintainers_refused(host) or _own_rocm(host) or [
            skip("os.not-supported", f"{os_label(host)}: no installed ROCm version to judge against")]
    verdict = matrix.os_supported(ctx.version or "", host.os.id, version) if ctx.version else None
    ev = [str(host.os.source)] if host.os.source else []
    if verdict is None:
        return [skip("os.not-supported", f"{os_label(host)}: no data for ROCm {ctx.version}")]
    if verdict:
        return [ok("os.not-supported", f"{os_label(host)} is supported by ROCm {ctx.version}", ev)]
    rebuild = _rhel_rebuild(host, matrix, ctx.version, version, ev)
    if rebuild:
        return rebuild
    # direct evidence: AMD's repository answered 404 for this unlisted distribution (ROCm/ROCm#3191, Tumbleweed)
    refused = [m for m in host.logs if m.signature in _AMD_REPOSITORY_MISSING]
    return [finding(
        "os.not-supported", Severity.FAIL if refused else Severity.WARN,
        f"{os_label(host)} is not supported by ROCm {ctx.version}",
        f"AMD does not validate ROCm {ctx.version} on this OS ({ctx.why}); "
        + ("AMD's repository has no packages for it (404), so nothing installs. " if refused else
           "packages may not install and the amdgpu-dkms module may not build. ")
        + "Supported: " + _supported_list(ctx.release.os if ctx.release else ()),
        ev + [str(m.source) if m.source else m.text for m in refused[:1]],
        Fix("Use a supported distribution release, or a ROCm container on this host.",
            [f"rocmdoctor matrix show --rocm {ctx.version}"], ROCM_DOCS + "reference/system-requirements.html"),
    )]


# Rebuilds of RHEL that track its minor releases package for package (os-release ID_LIKE "rhel"); AMD names Rocky
# Linux only from ROCm 7.0 (rocm/compatibility-matrix-historical-6.0.csv) and ships it RHEL's packages.
_RHEL_REBUILDS = frozenset({"rocky", "almalinux"})


def _rhel_rebuild(host: Host, matrix: Matrix, rocm: str, version: str, ev: list[str]) -> list[Finding]:
    """A RHEL rebuild in a RHEL minor release the ROCm release lists runs AMD's RHEL packages unchanged: not named
    in AMD's list, but no evidence against the host (an MI300X on Rocky Linux 9.4 with ROCm 6.3.0, profiled
    without trouble: ROCm/rocprofiler-sdk#61)."""
    if host.os.id not in _RHEL_REBUILDS or not matrix.os_supported(rocm, "rhel", version):
        return []
    return [finding(
        "os.not-supported", Severity.INFO, f"{os_label(host)} is a RHEL {version} rebuild, which ROCm {rocm} lists",
        f"AMD does not name {host.os.id} for ROCm {rocm}, but it lists RHEL {version}, whose packages this "
        "rebuild installs unchanged.", ev)]


# Distributions AMD's maintainers said they do not support, whatever the ROCm release (os-release ID: their word).
_REFUSED_DISTROS = {
    "talos": "ROCm/k8s-device-plugin#23, y2kenny (AMD), 2022-03-24: \"Talos is not a Linux distribution we currently "
             "support\"",
}


def _maintainers_refused(host: Host) -> list[Finding]:
    """A distribution AMD's maintainers said they do not support needs no ROCm release to be judged: no release
    lists it, and AMD said so (Talos, whose kernel then lacked KFD: ROCm/k8s-device-plugin#23)."""
    said = _REFUSED_DISTROS.get(host.os.id or "")
    if said is None:
        return []
    return [finding(
        "os.not-supported", Severity.WARN, f"{os_label(host)} is not a distribution AMD supports for ROCm",
        f"No ROCm release lists it, and AMD said so ({said}): its kernel may lack the amdgpu/KFD features ROCm needs, "
        "and AMD's packages and kernel driver are not built for it.",
        [str(host.os.source)] if host.os.source else [],
        Fix("Use a distribution release AMD lists for the ROCm release, or check that this distribution's kernel "
            "enables amdgpu with HSA (CONFIG_HSA_AMD) and exposes /dev/kfd:", ["ls -l /dev/kfd"],
            ROCM_DOCS + "reference/system-requirements.html"),
    )]


def _own_rocm(host: Host) -> list[Finding]:
    """The distribution's own ROCm packages (nixpkgs' rocmPackages, Arch's, Fedora's) and none of AMD's: AMD's OS list
    is not the verdict on them, the distribution builds and supports them (NixOS/nixpkgs#265095: nixpkgs' hipcc,
    answered by nixpkgs' ROCm maintainer). Information, so a report naming only these is judged, not refused."""
    own = host.context.get("distro-rocm")
    if own is None or "amd-packages" in host.context:
        return []
    return [finding(
        "os.not-supported", Severity.INFO, f"{os_label(host)} with its own ROCm packages",
        "ROCm here comes from the distribution's packages, not from AMD's repositories: AMD's list of distributions "
        "is not the verdict on them; the distribution's ROCm maintainers are.",
        [str(own.source)] + ([str(host.os.source)] if host.os.source else []))]


_ROLLING_SUITES = frozenset({"testing", "unstable", "sid"})  # Debian's: no ROCm release lists one
_AMD_REPOSITORY_MISSING = ("amd-repository-release-missing", "amd-repository-metadata-missing-zypper")


def _amd_packages_elsewhere(host: Host, matrix: Matrix, version: str) -> list[Finding]:
    """AMD's own packages (rocm-dkms, amdgpu-install, repo.radeon.com) on a distribution that no ROCm release lists:
    unsupported whichever release it is (ROCm/ROCm#631, Debian testing; #780, openSUSE Tumbleweed). A distribution's
    own ROCm packages (Arch, Fedora) are that distribution's to support: they are not evidence here."""
    amd = host.context.get("amd-packages")
    ids = [host.os.id or "", *host.os.id_like]
    rolling = host.os.id == "opensuse-tumbleweed" or version in _ROLLING_SUITES
    # a listed family in an unlisted version may be one an older release (before the data) supported: not judged
    if amd is None or not host.os.id or (any(matrix.os_ever_listed(i) for i in ids) and not rolling):
        return []
    return [finding(
        "os.not-supported", Severity.WARN, f"{os_label(host)} is not a distribution AMD builds ROCm for",
        f"AMD's packages ({amd.value}) are built and validated only for the distributions its releases list, and no "
        "ROCm release lists this one: they may not install, and amdgpu-dkms may not build. The kernel's own amdgpu "
        "(with the distribution's ROCm packages, where it has them) is the usual way on such a system.",
        [str(amd.source)] + ([str(host.os.source)] if host.os.source else []),
        Fix("Use a distribution release AMD lists, a ROCm container, or the distribution's own ROCm packages:",
            ["rocmdoctor matrix show"], ROCM_DOCS + "reference/system-requirements.html"),
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
    app = _app_not_on_wsl(host, matrix)
    if app is not None:
        return [app]
    return [finding(
        "os.wsl", Severity.INFO, "Running under WSL",
        "Under WSL there is no /dev/kfd and no amdgpu module: the GPU is reached through /dev/dxg and AMD's "
        "WSL-specific runtime. Only AMD's Radeon-on-WSL wheels work; download.pytorch.org ROCm wheels fail "
        "with 'No HIP GPUs are available' / hipErrorNoDevice.",
        [host.kernel.version_text or ""],
        Fix("Install ROCm for WSL and the matching AMD wheels, then replace the wheel's bundled HSA runtime "
            "as AMD's guide says.", [], WSL_URL),
    )]


def _app_not_on_wsl(host: Host, matrix: Matrix) -> Optional[Finding]:
    """An application release known unable to run ROCm under WSL (matrices/apps.toml): vLLM through 0.9.1 detects ROCm
    by initialising amd-smi, which does not work there, although ROCm and torch do (ROCm/legacy-rocm-build#5007)."""
    named, row = host.context.get("vllm-version"), matrix.app_not_on_wsl.get("vllm")
    if named is None or row is None or _vtuple(str(named.value)) > _vtuple(row[0]):
        return None
    return finding(
        "os.wsl", Severity.FAIL, f"vLLM {named.value} cannot use the GPU under WSL",
        "ROCm itself works under WSL, but vLLM decides whether to run on ROCm by initialising amd-smi, which does not "
        f"work under WSL; releases through {row[0]} have no other way to detect ROCm (AMD), so vLLM does not "
        "recognise the ROCm platform.",
        [str(named.source), host.kernel.version_text or "WSL"],
        Fix("Run vLLM on native Linux (or in a container on a Linux host); under WSL, a vLLM release newer than "
            f"{row[0]} may detect ROCm through amd-smi's WSL support (not checked by rocmdoctor).", [],
            row[1].split(" : ", 1)[0]),
    )
