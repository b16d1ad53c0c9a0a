"""ROCm user-space checks: is it there, is there more than one, does it match the kernel driver."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Optional

from rocmdoctor.judge.facts import ROCM_DOCS, finding, major_minor, ok, skip, system_rocm, torch_rocm
from rocmdoctor.judge.gpu_evidence import works_here
from rocmdoctor.judge.registry import check
from rocmdoctor.model import Finding, Fix, Severity
from rocmdoctor.sanitize import command, plausible

if TYPE_CHECKING:
    from rocmdoctor.matrix import Matrix
    from rocmdoctor.model import Fact, Host, Source


@check("rocm.not-installed", title="ROCm installation")
def rocm_installed(host: Host, matrix: Matrix) -> list[Finding]:
    sr = system_rocm(host)
    if sr:
        return [ok("rocm.not-installed", f"ROCm {sr[0]} installed", [str(sr[1])])]
    lib = next((r for r in host.rocm_installs if not r.version), None)
    if lib is not None:  # the linker cache's HIP runtime (a distribution's package): installed, release not named
        return [ok("rocm.not-installed", f"ROCm's HIP runtime installed in {lib.path} (its release not named)",
                   [str(lib.source or lib.path)])]
    if "rocminfo-failed" not in host.context and any("rocminfo" in g.gfx_by_source for g in host.gpus):
        return [ok("rocm.not-installed", "ROCm user space present (rocminfo lists the GPUs)")]
    mesa = host.context.get("opencl-mesa")
    if mesa is not None and "opencl-amd" not in host.context:  # FoldingAtHome/fah-client-bastet#425
        # a fail when the program shows the GPU it found as unsupported: that is the missing ROCm runtime (the
        # maintainer: 'Mesa is not supported by FAH', install ROCm), the run that broke
        refused = host.context.get("app-gpu-unsupported")
        return [finding(
            "rocm.not-installed", Severity.FAIL if refused is not None else Severity.WARN,
            f"The only OpenCL platform is Mesa's ({mesa.value}), not ROCm's",
            "The report lists Mesa's OpenCL and no ROCm platform (AMD Accelerated Parallel Processing): programs "
            "built for ROCm's OpenCL or HIP (Folding@home, BOINC projects, HIP applications) find no supported GPU.",
            [str(mesa.source)] + ([str(refused.source)] if refused is not None else []),
            Fix("Install ROCm's OpenCL runtime beside Mesa (it does not replace the display driver):",
                ["sudo amdgpu-install --usecase=opencl --no-dkms", "clinfo -l"],
                ROCM_DOCS + "install/quick-start.html"),
        )]
    if not host.tool:  # hand-made bundle / pasted file: absence of /opt/rocm proves nothing
        return [skip("rocm.not-installed", "ROCm installation not captured")]
    tr = torch_rocm(host)
    if tr:
        return [finding(
            "rocm.not-installed", Severity.INFO, f"No system ROCm; PyTorch uses the ROCm {tr} bundled in its wheel",
            "That is enough for PyTorch. rocminfo, rocm-smi and hipcc (HIP C++ builds) need a system install.",
        )]
    return [finding(
        "rocm.not-installed", Severity.WARN, "ROCm is not installed",
        "No /opt/rocm* install was found and rocminfo is not on PATH. PyTorch's ROCm wheels bundle their own "
        "runtime, but the kernel driver (amdgpu) must still be present, and tools like rocminfo help diagnosis.",
        [],
        Fix("Install PyTorch's ROCm wheels (they bring the runtime), and optionally ROCm for the tools:",
            ["rocmdoctor install torch", "sudo amdgpu-install --usecase=rocm --no-dkms"],
            ROCM_DOCS + "install/quick-start.html"),
    )]


_ROCM_LIB = re.compile(r"\blib(?:hsa-runtime64|hsakmt|amdhip64|hip\w{0,20}|roc\w{0,20}|MIOpen|rccl|amd_comgr)\.so")


def _mixed_by_upgrade(host: Host) -> Optional[Finding]:
    """An in-place upgrade that left two releases mixed (AMD: the removal of the old one 'did not go well'): ROCm's
    own tools cannot load ROCm's libraries after "updated rocm 3.8 to 3.9" (ROCm/ROCm#1302), or a tool of the new
    tree finds no file of that tree while the report says not all packages were updated (ROCm/ROCm#1260)."""
    upgraded, tree = host.context.get("rocm-upgraded"), host.context.get("rocm-tree-incomplete")
    behind = host.context.get("rocm-packages-behind")
    broken = [m for m in host.logs if m.finding_id == "log.missing-shared-library" and _ROCM_LIB.search(m.text)]
    if upgraded is not None and broken:
        told = f"the upgrade ({upgraded.value})"
        evidence = [str(upgraded.source), str(broken[0].source or broken[0].text)]
    elif tree is not None and (said := behind or upgraded) is not None:
        told, evidence = "an upgrade", [str(tree.source), str(said.source)]
    else:
        return None
    return finding(
        "rocm.multiple-versions", Severity.FAIL, f"ROCm is a mix of two releases after {told}",
        "An upgrade in place replaced some of ROCm's packages and left others from the old release (in its own "
        "/opt/rocm-X tree, or missing): ROCm's own tools then miss libraries or files of their release.",
        evidence,
        Fix("Remove every ROCm package, then install the release you want cleanly:",
            ["sudo amdgpu-install --uninstall", "sudo apt autoremove", "ls -d /opt/rocm*",
             "sudo amdgpu-install --usecase=rocm"]),
    )


def _hip_newer_than_hsa(host: Host) -> Optional[Finding]:
    """HIP dropping every GPU because the HSA runtime it loaded does not know an attribute its own release asks
    for ("HSA_AMD_AGENT_INFO_SCRATCH_LIMIT_MAX cannot be queried!"): libamdhip64 and libhsa-runtime64 come from
    different ROCm releases (ROCm/legacy-rocm-build#5924: several releases installed from the package manager;
    reinstalling ROCm 7.2.0 alone fixed it)."""
    said = host.context.get("hip-hsa-older")
    if said is None:
        return None
    return finding(
        "rocm.multiple-versions", Severity.FAIL, "HIP runs on the HSA runtime of an older ROCm release",
        f"HIP could not query {said.value.split()[0]} on a GPU agent: the libhsa-runtime64 it loaded predates this "
        "attribute, so HIP and the HSA runtime come from two ROCm releases, and HIP drops the device (no GPU).",
        [str(said.source)],
        Fix("Find which libhsa-runtime64 the program loads; keep one ROCm release (remove the others, then "
            "reinstall it):", ["ls -d /opt/rocm*", "ldconfig -p | grep -E 'libhsa-runtime64|libamdhip64'"],
            ROCM_DOCS + "install/install-methods/package-manager/package-manager-index.html"),
    )


_DISTRO_OUTRANKS = ("apt-distro-rocm-outranks-amd", "apt-resolver-distro-rocm-installed")


def _two_sources(host: Host) -> list[Finding]:
    """apt choosing the distribution's ROCm packages over AMD's repository (ROCm/legacy-rocm-build#1899): two
    sources of ROCm on one system, even before either is fully installed."""
    lines = [m for m in host.logs if m.signature in _DISTRO_OUTRANKS]
    fetched = host.context.get("apt-two-sources")
    if not lines and fetched is not None:
        return [finding(
            "rocm.multiple-versions", Severity.WARN, f"Two sources of ROCm: apt fetched {fetched.value}",
            "The distribution ships its own ROCm packages whose version strings sort above AMD's repository versions "
            "(AMD's encode the release at the end, 1.0.0.60200 for 6.2.0): an upgrade replaces AMD's package with "
            "the distribution's older one, and tools and libraries then come from different releases.",
            [str(fetched.source)],
            Fix("Pin repo.radeon.com above the distribution for ROCm packages, then reinstall AMD's:",
                [command("apt-cache", "policy", fetched.value.split()[0])],
                ROCM_DOCS + "install/install-methods/package-manager/package-manager-ubuntu.html"),
        )]
    if not lines:
        return _void_pin(host)
    mine = {m.groups.get("dep", ""): m.groups.get("have", "") for m in lines}
    code = lines[0].groups.get("rocm", "")
    amd = f"{int(code[0])}.{int(code[1:3])}.{int(code[3:])}" if len(code) == 5 and code.isdigit() else "?"
    pkgs = sorted(p for p in mine if plausible("package", p))
    # apt's resolver marking the distribution's package installed ('@ii') when AMD's release cannot be installed:
    # the old release is on the host and broke this install, not only a candidate from a second source
    # (ROCm/rocm-install-on-linux#583: rocminfo 5.7.1-3build1 @ii blocks rocm 7.0.1; removing it fixed the install)
    installed = any(m.signature == "apt-resolver-distro-rocm-installed" for m in lines)
    return [finding(
        "rocm.multiple-versions", Severity.FAIL if installed else Severity.WARN,
        f"Two sources of ROCm: the distribution's {', '.join(f'{p} {mine[p]}' for p in pkgs[:3])} beside AMD's "
        f"ROCm {amd}",
        "The distribution ships its own ROCm packages whose version strings sort above AMD's repository versions; "
        "apt then mixes the two and AMD's packages cannot be installed (or tools and libraries come from "
        "different releases).",
        [str(m.source) if m.source else m.text for m in lines[:3]],
        Fix("Remove the distribution's packages, then install AMD's ROCm (or pin repo.radeon.com higher):",
            [command("sudo", "apt", "remove", *pkgs)] if pkgs else [],
            ROCM_DOCS + "install/install-methods/package-manager/package-manager-ubuntu.html"),
    )]


def _two_header_trees(host: Host) -> list[Finding]:
    """HIP's headers in the distribution's /usr/include/hip and in AMD's /opt/rocm*/include/hip: a build may take
    one tree's headers and the other's libraries or compiler (ggml-org/llama.cpp#15196: Ubuntu's libamdhip64-dev
    beside ROCm 6.4.3, then ld.lld's 'duplicate symbol: __float2bfloat16'); a failure when the build failed so."""
    distro, amd = host.context.get("hip-headers-distro"), host.context.get("hip-headers-amd")
    if distro is None or amd is None:
        return []
    broke = host.context.get("duplicate-symbol")
    return [finding(
        "rocm.multiple-versions", Severity.FAIL if broke is not None else Severity.WARN,
        "HIP's headers are installed twice: the distribution's /usr/include/hip beside AMD's "
        + amd.value.split("/include/", 1)[0],
        "A build finds the distribution's HIP headers on the default include path and AMD's through ROCm's compiler: "
        "the two releases' inline functions are defined twice (ld.lld: duplicate symbol) or disagree.",
        [str(distro.source), str(amd.source)] + ([str(broke.source)] if broke is not None else []),
        Fix("Remove the distribution's HIP development packages (or build against them alone):",
            _by_family(host, "rpm -qf /usr/include/hip/hip_runtime.h", "dpkg -S /usr/include/hip/hip_runtime.h"),
            ROCM_DOCS + "install/install-methods/package-manager/package-manager-ubuntu.html"),
    )]


def _void_pin(host: Host) -> list[Finding]:
    """The pin meant to rank repo.radeon.com first was written with bash's echo without -e (ROCm/legacy-rocm-build
    #3946): apt ignores it, so the distribution's ROCm packages compete with AMD's."""
    pins = [m for m in host.logs if m.signature == "apt-pin-echo-without-e"]
    if not pins:
        return []
    return [finding(
        "rocm.multiple-versions", Severity.WARN,
        "Two sources of ROCm compete: the pin that should rank repo.radeon.com first is void",
        f"{pins[0].groups.get('file', 'The pin file')} was written with echo without -e, so it is one line with a "
        "literal '\\n' and apt ignores it: the distribution's own ROCm packages (Ubuntu ships some) can then "
        "outrank AMD's, and AMD's packages fail on their exact dependencies.",
        [str(m.source) if m.source else m.text for m in pins[:2]],
        Fix("Rewrite the pin (see log.apt-pin-ignored), then confirm AMD's candidates:", ["apt-cache policy rocminfo"],
            ROCM_DOCS + "install/install-methods/package-manager/package-manager-ubuntu.html"),
    )]


def _conda_hip(abort: Fact[str]) -> Finding:
    """conda-forge's HIP runtime aborting in hipRTC ('Unable to add internal header'): the hipRTC and comgr a conda
    environment brings (conda-forge's HIP stays at its own release) loaded beside the system's ROCm disagree
    (openmm/openmm#4675: hiding the environment's libhiprtc and libamd_comgr restored HIP and OpenCL)."""
    return finding(
        "rocm.multiple-versions", Severity.FAIL,
        "Two ROCm stacks in one process: conda-forge's HIP runtime aborts in hipRTC",
        "The HIP runtime that aborts was built by conda-forge (its feedstock's path): a conda environment brought "
        "its own hipRTC and comgr, of conda-forge's release, and the process mixes them with the system's ROCm. "
        "hipRTC cannot even add its internal header through that comgr.",
        [str(abort.source)],
        Fix("Use one ROCm: let the system's hipRTC and comgr load (move the environment's copies aside), or run "
            "the program against the environment's ROCm alone:",
            ['ls "$CONDA_PREFIX"/lib/libhiprtc.so* "$CONDA_PREFIX"/lib/libamd_comgr.so*', "ls -d /opt/rocm*"]),
    )


@check("rocm.multiple-versions", title="Several ROCm installs")
def multiple(host: Host, matrix: Matrix) -> list[Finding]:
    mixed = _mixed_by_upgrade(host) or _hip_newer_than_hsa(host)
    if mixed is not None:
        return [mixed]
    conda = host.context.get("conda-hiprtc-abort")
    if conda is not None:
        return [_conda_hip(conda)]
    sources = _two_sources(host) or _two_header_trees(host)
    if sources:
        return sources
    versions = sorted({r.version for r in host.rocm_installs if r.version})
    if len(versions) <= 1:
        return [ok("rocm.multiple-versions", "One ROCm install")] if versions else []
    paths = [f"{r.path} ({r.version})" for r in host.rocm_installs]
    if all(_WINDOWS_SDK.match(r.path) for r in host.rocm_installs):
        # the HIP SDK for Windows installs each release in its own folder; HIP_PATH names the one a build uses
        # (ROCm/hip#3899: 6.4 and 7.1 side by side, the fault was 7.1's runtime, not the pair)
        return [finding("rocm.multiple-versions", Severity.INFO,
                        f"HIP SDK releases side by side: {', '.join(versions)}",
                        r"On Windows each HIP SDK release installs in its own folder under C:\Program Files\AMD\ROCm; "
                        "a program uses the one HIP_PATH (or its own bundled runtime) names.", paths)]
    return [finding(
        "rocm.multiple-versions", Severity.WARN, f"{len(versions)} ROCm versions installed: {', '.join(versions)}",
        "Builds and the loader may pick libraries from one install and headers or tools from another "
        "(/opt/rocm points to one of them, LD_LIBRARY_PATH or ld.so.conf to another): mixed versions fail "
        "in confusing ways.",
        paths,
        Fix("Keep one, or make sure /opt/rocm, PATH and LD_LIBRARY_PATH all name the same version:",
            ["ls -ld /opt/rocm*", "readlink -f /opt/rocm", "sudo amdgpu-install --uninstall --rocmrelease=<old>"]),
    )]


_PACKAGED = re.compile(r"[/\\](?:site|dist)-packages[/\\]")
_WINDOWS_SDK = re.compile(r"[A-Za-z]:\\Program Files\\AMD\\ROCm\\\d", re.I)


def _extension_built_elsewhere(host: Host) -> Optional[Finding]:
    """bitsandbytes built from source (not under site-packages) looked for the library named after torch's ROCm
    and found none: its build used another ROCm (the system's hipconfig) than torch (ROCm/bitsandbytes#82)."""
    for m in host.logs:
        path, digits = m.groups.get("path", ""), m.groups.get("rocm", "")
        if m.signature != "bitsandbytes-rocm-binary-missing" or not digits or _PACKAGED.search(path):
            continue
        want = f"{digits[0]}.{digits[1:]}"
        return finding(
            "torch.rocm-mismatch", Severity.WARN,
            f"bitsandbytes was built against another ROCm than torch's ROCm {want}",
            "A source build of bitsandbytes names its library after the ROCm it was built with (the system's "
            f"hipconfig); at run time it asks for the one named after torch.version.hip ({want}), which the build "
            "did not produce.",
            [str(m.source) if m.source else m.text],
            Fix(f"Rebuild bitsandbytes against ROCm {want} (the ROCm torch uses), or install the torch for the "
                "system's ROCm and rebuild:", ["hipconfig --version", "rocmdoctor install torch --dry-run"]),
        )
    return None


def _extension_for_other_rocm(host: Host, tr: str, sr: tuple[str, object]) -> Finding:
    """An extension compiled here for a torch of another ROCm major release: torch's cpp_extension compiles with the
    system's hipcc (ROCM_HOME), whose clang and HIP headers are not the ones torch was built with; the flags torch's
    ROCm needs are unknown to the older compiler (Dao-AILab/flash-attention#1307: ROCm 5.7's hipcc for a rocm6.2
    torch). PyTorch itself refuses a CUDA toolkit of another major release than torch's for the same reason."""
    build = host.context["extension-build"]
    return finding(
        "torch.rocm-mismatch", Severity.FAIL,
        f"An extension is compiled with the system's ROCm {sr[0]} for a torch built with ROCm {tr}",
        "torch's cpp_extension compiles with the system's hipcc (ROCM_HOME), not with the ROCm the wheel bundles: a "
        "compiler and HIP headers from another major release reject torch's flags or build code its runtime "
        "cannot load.",
        [str(build.source), str(sr[1]), f"torch {host.torch.version if host.torch else tr}"],
        Fix(f"Build with a ROCm {tr} toolkit (ROCM_HOME/PATH pointing at it), or install the torch for the system's "
            "ROCm and rebuild:", ["which hipcc && hipcc --version", f"rocmdoctor install torch --rocm "
                                  f"{major_minor(sr[0])}"]),
    )


def _illegal_state_beside(host: Host) -> Optional[Source]:
    """HIP's 'the operation cannot be performed in the present state' (hipErrorIllegalState) in the report: beside a
    torch of another ROCm release than the system's, the mix is what fails (invoke-ai/InvokeAI#5738: torch
    2.1.2+rocm5.6 on ROCm 6.0.0 aborted every generation so; the torch built for ROCm 6.0 alone fixed it). Not in a
    virtual machine, where the same error is PCIe atomics the guest lacks (driver.pcie-atomics)."""
    state = host.context.get("hip-illegal-state")
    if state is None or "vm-passthrough" in host.context:
        return None
    return state.source


@check("torch.rocm-mismatch", title="PyTorch's ROCm vs the system")
def rocm_mismatch(host: Host, matrix: Matrix) -> list[Finding]:
    tr = torch_rocm(host)
    built_elsewhere = _extension_built_elsewhere(host)
    if not tr:
        if built_elsewhere:
            return [built_elsewhere]
        return [skip("torch.rocm-mismatch", "No ROCm build of torch to compare")]
    out: list[Finding] = [built_elsewhere] if built_elsewhere else []
    sr = system_rocm(host)
    if sr and sr[0].split(".")[0] != tr.split(".")[0] and "extension-build" in host.context:
        out.append(_extension_for_other_rocm(host, tr, sr))
    elif sr and major_minor(sr[0]) != major_minor(tr):
        state = _illegal_state_beside(host)
        # one major release, and the report's runs work (unslothai/unsloth#4720: a rocm7.1 torch on ROCm 7.2.0,
        # its test table all PASS): the mix is a risk that did not happen, information
        fine = sr[0].split(".")[0] == tr.split(".")[0] and works_here(host) is not None
        out.append(finding(
            "torch.rocm-mismatch", Severity.FAIL if state else Severity.INFO if fine else Severity.WARN,
            f"torch bundles ROCm {tr} but the system has ROCm {sr[0]}"
            + (", and HIP fails 'in the present state'" if state else ""),
            "The wheel loads its own bundled libraries; system ROCm libraries on LD_LIBRARY_PATH, or extensions "
            "built with the system hipcc, then mix two ROCm versions in one process."
            + (" HIP's hipErrorIllegalState beside it is that mix failing (invoke-ai/InvokeAI#5738: a rocm5.6 torch "
               "on ROCm 6.0; the torch built for ROCm 6.0 fixed it)." if state else ""),
            [str(sr[1]), f"torch {host.torch.version if host.torch else ''}"] + ([str(state)] if state else []),
            Fix("Install the torch variant matching the system ROCm, or keep system ROCm off the library path:",
                [f"rocmdoctor install torch --rocm {major_minor(sr[0])}", "unset LD_LIBRARY_PATH"]),
        ))
    dkms_rocm = None
    if host.dkms:
        for e in host.dkms.entries:
            if e.module == "amdgpu":
                dkms_rocm = matrix.rocm_for_dkms(e.version)
                if dkms_rocm:
                    break
    if dkms_rocm:
        allowed, rule = matrix.kmd_window(major_minor(tr) or tr, major_minor(dkms_rocm) or dkms_rocm)
        if allowed is False:
            out.append(finding(
                "torch.rocm-mismatch", Severity.WARN,
                f"torch's ROCm {tr} is outside the support window of the kernel driver from ROCm {dkms_rocm}",
                f"{rule}.",
                [f"amdgpu-dkms from ROCm {dkms_rocm}"],
                Fix("Upgrade amdgpu-dkms (or the in-tree kernel), or install torch for an older ROCm:",
                    [f"rocmdoctor install torch --rocm {major_minor(dkms_rocm)}"],
                    ROCM_DOCS + "reference/user-kernel-space-compat-matrix.html"),
            ))
    if out:
        return out
    if not sr and not dkms_rocm:
        return [skip("torch.rocm-mismatch", f"torch bundles ROCm {tr}; no system ROCm or kernel driver version to "
                                            "compare it with")]
    return [ok("torch.rocm-mismatch", f"torch's ROCm {tr} agrees with the system")]


def _operator_driver_not_in_use(host: Host) -> Optional[Finding]:
    """AMD's GPU operator loads its own amdgpu through the KMM worker, yet HIP's free-memory query is rejected (the
    triage of that error: a driver that does not match the user space): the kernel's in-tree amdgpu may still be the
    one loaded, when its blacklist never reached the initramfs (ROCm/gpu-operator#330, 'blacklist not applied'; the
    maintainer's RCA: 'it is using inbox driver'). The operator's own driver answers the query: a failure."""
    kmm = host.context.get("kmm-amdgpu")
    rejected = [m for m in host.logs if m.finding_id == "log.hip-invalid-argument"]
    if kmm is None or not rejected:
        return None
    return finding(
        "rocm.kmd-mismatch", Severity.FAIL,
        "The GPU operator loads its amdgpu, but HIP's memory query is rejected: the in-tree driver is still in use",
        "The operator's driver matches its ROCm user space; the kernel's own amdgpu does not. modprobe of the "
        "operator's module does nothing while the in-tree one is loaded, which happens when its blacklist is not in "
        "the initramfs.",
        [str(kmm.source)] + [str(m.source) if m.source else m.text for m in rejected[:1]],
        Fix("On the node: see which amdgpu is loaded; blacklist the in-tree one in the initramfs and reboot:",
            ["lsmod | grep amdgpu", "modinfo -F filename amdgpu", "cat /sys/module/amdgpu/version",
             "sudo update-initramfs -u"], ROCM_DOCS + "reference/user-kernel-space-compat-matrix.html"),
    )


def _dkms_module_not_in_use(host: Host) -> Optional[Finding]:
    """AMD's kernel driver package is installed (rocm-dkms, amdgpu-dkms), yet the running kernel's kfd rejects the GPU
    ('kfd not supported on this ASIC') and ROCm enumerates none: AMD's driver serves the GPUs its ROCm supports, so
    the amdgpu loaded is another one, the distribution's in-tree module (ROCm/amdgpu#57: RHEL 7.5 with rocm-dkms 1.9;
    the reporter confirmed that loading the DKMS module made rocminfo work). Not with an iGPU, a second GPU or a GPU
    kfd never serves: the line may then be about that GPU."""
    package = host.context.get("amd-packages")
    rejected = [m for m in host.logs if m.signature == "kfd-not-supported-on-asic"]
    if package is None or "dkms" not in package.value or not rejected or len(host.gpus) > 1 \
            or any(g.kfd_node is not None or g.chip_without_kfd or g.is_apu for g in host.gpus):
        return None
    return finding(
        "rocm.kmd-mismatch", Severity.FAIL,
        f"AMD's kernel driver ({package.value}) is installed, but the amdgpu loaded is not it",
        "The running amdgpu's compute interface (kfd) rejects this GPU, which AMD's own driver serves for the GPUs "
        "its ROCm supports: the kernel loaded its in-tree amdgpu instead of the DKMS build (the module was not "
        "built for this kernel, or the initramfs still carries the in-tree one).",
        [str(package.source)] + [str(m.source) if m.source else m.text for m in rejected[:1]],
        Fix("See which amdgpu is loaded (AMD's DKMS build lives under updates/ or extra/), rebuild the initramfs "
            "with it and reboot:",
            ["modinfo -F filename amdgpu", "dkms status",
             *_by_family(host, "sudo dracut -f", "sudo update-initramfs -u")],
            ROCM_DOCS + "reference/user-kernel-space-compat-matrix.html"),
    )


def _memory_query_rejected(host: Host) -> Optional[Finding]:
    """XLA's stream executor creating the GPU device: 'failed to query device memory info: HIP_ERROR_InvalidValue'.
    The free-memory query is answered by the kernel driver (KFD), and it rejects it when it is older than the ROCm
    user space: a ROCm 6.0 TensorFlow container on an MI250X host whose amdgpu is 5.16.9.22.20, of the ROCm 5.2 era
    (ROCm/tensorflow-upstream#2289: the site engineer named the host driver 'no matter the container version', the
    reporter confirmed). Only when the paste shows no amdgpu-dkms: a captured driver version is compared instead."""
    rejected = [m for m in host.logs if m.signature == "xla-device-memory-info-invalid-value"]
    if not rejected or any(e.module == "amdgpu" for e in (host.dkms.entries if host.dkms else [])):
        return None
    return finding(
        "rocm.kmd-mismatch", Severity.FAIL,
        "The kernel driver rejects the GPU memory query of this ROCm user space: the host amdgpu is older",
        "XLA asks the HIP runtime for the device's free memory when it creates the GPU device; the amdgpu kernel "
        "driver answers that query, and one older than the ROCm user space (a container's ROCm on an older host "
        "driver) rejects it with HIP_ERROR_InvalidValue, so TensorFlow/JAX get no GPU.",
        [str(m.source) if m.source else m.text for m in rejected[:1]],
        Fix("On the host (not in the container): see the amdgpu driver's version, then install the amdgpu-dkms of "
            "the container's ROCm release, or use an image whose ROCm that driver supports:",
            ["cat /sys/module/amdgpu/version", "dkms status"],
            ROCM_DOCS + "reference/user-kernel-space-compat-matrix.html"),
    )


def _by_family(host: Host, rpm_command: str, deb_command: str) -> list[str]:
    """The command of the OS's package family (RPM distributions, Debian's); both when the OS is not known."""
    family = {host.os.id or "", *host.os.id_like}
    rpm = bool(family & {"rhel", "fedora", "centos", "rocky", "almalinux", "ol", "sles", "suse", "opensuse"})
    deb = bool(family & {"debian", "ubuntu"})
    return [rpm_command] * (rpm or not deb) + [deb_command] * (deb or not rpm)


@check("rocm.kmd-mismatch", title="ROCm user space vs kernel driver")
def kmd_mismatch(host: Host, matrix: Matrix) -> list[Finding]:
    """System ROCm user space must be within the supported window of the amdgpu kernel driver's release. The
    runtime's own verdict comes first: 'Incompatible kernel and userspace ... disabled' (ROCm/legacy-rocm-build
    #1423, ROCm 4.1 on Fedora's stock kernel) is the mismatch observed, whatever the tables say."""
    said = [m for m in host.logs if m.finding_id == "log.kmd-incompatible"]
    debugger = [m for m in host.logs if m.finding_id == "log.debugger-kfd-unsupported"]
    if debugger and not said:  # ROCm/ROCgdb#6: the in-tree amdgpu lacked the KFD debug ioctls rocgdb needs
        return [finding(
            "rocm.kmd-mismatch", Severity.FAIL,
            "The kernel driver lacks the debug interface this ROCm's rocgdb needs",
            "rocgdb's debugger library could not get the KFD debug interface from the amdgpu kernel driver: a "
            "distribution kernel's in-tree driver without what AMD's driver of the same ROCm release has.",
            [str(m.source) if m.source else m.text for m in debugger[:2]],
            Fix("Install the kernel driver of the same ROCm release as the user space:",
                ["sudo amdgpu-install --usecase=dkms"], ROCM_DOCS + "reference/user-kernel-space-compat-matrix.html"),
        )]
    if said:
        return [finding(
            "rocm.kmd-mismatch", Severity.FAIL,
            "The ROCm runtime rejected the kernel driver: too old for this user space",
            "The HSA runtime found the amdgpu kernel driver lacking what this ROCm release needs and disabled the GPU "
            f"({said[0].groups.get('gpu', 'the GPU')}). Typical with a distribution kernel's in-tree amdgpu and "
            "a newer ROCm user space.",
            [str(m.source) if m.source else m.text for m in said[:2]],
            Fix("Install the kernel driver of the same ROCm release as the user space (or a user space the running "
                "kernel driver supports):", ["sudo amdgpu-install --usecase=dkms"],
                ROCM_DOCS + "reference/user-kernel-space-compat-matrix.html"),
        )]
    operator = _operator_driver_not_in_use(host) or _dkms_module_not_in_use(host) or _memory_query_rejected(host)
    if operator is not None:
        return [operator]
    sr = system_rocm(host)
    amdgpu = [e for e in (host.dkms.entries if host.dkms else []) if e.module == "amdgpu"]
    if not sr or not amdgpu:
        return [skip("rocm.kmd-mismatch", "System ROCm or amdgpu-dkms not captured")]
    dkms_rocm = matrix.rocm_for_dkms(amdgpu[0].version)
    rel = matrix.release(sr[0]) or matrix.release(major_minor(sr[0]) or sr[0])
    allowed, rule = (matrix.kmd_window(rel.series, major_minor(dkms_rocm) or dkms_rocm)
                     if dkms_rocm and rel is not None else (None, ""))
    if allowed is None:
        return [skip("rocm.kmd-mismatch", f"No driver window known for ROCm {sr[0]} / amdgpu-dkms {amdgpu[0].version}")]
    if allowed:
        return [ok("rocm.kmd-mismatch", f"ROCm {sr[0]} supports the amdgpu-dkms of ROCm {dkms_rocm}",
                   [str(sr[1]), str(amdgpu[0].source), f"rule: {rule}"])]
    return [finding(
        "rocm.kmd-mismatch", Severity.WARN,
        f"ROCm {sr[0]} user space is outside the support window of the ROCm {dkms_rocm} kernel driver",
        f"{rule}.",
        [str(sr[1]), str(amdgpu[0].source)],
        Fix("Install the amdgpu-dkms of the same ROCm release as the user space:",
            [f"sudo amdgpu-install --usecase=dkms --rocmrelease={sr[0]}"],
            ROCM_DOCS + "reference/user-kernel-space-compat-matrix.html"),
    )]
