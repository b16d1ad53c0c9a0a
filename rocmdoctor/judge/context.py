"""Checks on what a report's context shows: a failed ROCm runtime, a container started without the AMD
devices, a Windows host, a wheel that loads the system's ROCm libraries.

These read ``Host.context`` (filled from free text by :mod:`rocmdoctor.bundle.text`) and the matched lines
of known errors: a signature's verdict depends on what its line says (a path under the system's
``/opt/rocm-6.0.0`` while the GPU is supported means the wheel loaded system libraries, not that kernels
for the GPU are missing).
"""

from __future__ import annotations

import re
import shlex
from typing import TYPE_CHECKING

from rocmdoctor.judge.facts import discrete_gpus, finding, log_gfx, native_gfx, ok
from rocmdoctor.judge.gpu_evidence import failed_here
from rocmdoctor.judge.registry import check
from rocmdoctor.model import Finding, Fix, Severity, TorchBuild

if TYPE_CHECKING:
    from rocmdoctor.matrix import Matrix
    from rocmdoctor.model import Host

RADEON_WINDOWS_URL = "https://rocm.docs.amd.com/projects/radeon/en/latest/"
DOCKER_URL = "https://rocm.docs.amd.com/projects/install-on-linux/en/latest/how-to/docker.html"
_DEVICE_FLAGS = ["--device=/dev/kfd", "--device=/dev/dri", "--group-add", "video", "--group-add", "render"]


@check("rocm.runtime-failed", title="ROCm runtime initialisation")
def runtime_failed(host: Host, matrix: Matrix) -> list[Finding]:
    """rocminfo ran and failed: the GPU may be present (the driver is loaded), but the runtime cannot use it."""
    failed = host.context.get("rocminfo-failed")
    if failed is None:
        ran = host.context.get("gpu-run-ok")
        if ran is not None and not failed_here(host):
            # a healthy report is often only a working program's log: that is evidence, not "nothing readable"
            return [ok("rocm.runtime-failed", f"A program ran on the GPU (the report: '{ran.value}')",
                       [str(ran.source)])]
        return []
    if any(m.finding_id in ("log.kfd-permission-denied", "perm.kfd-access") for m in host.logs) \
            or "permission denied" in failed.value.lower():
        return []  # perm.kfd-access names the cause
    named = [m for m in host.logs if m.finding_id.split(".", 1)[0] in ("driver", "gpu", "secureboot", "os")
             or m.finding_id in _SPECIFIC]
    if named or any(_never_supported(matrix, g) for g in host.gpus):
        return []  # a known error or gpu.arch-unsupported names why the runtime failed
    if any(m.finding_id == "log.hsa-init-failed" for m in host.logs):
        # the report says hsa_init failed ("`hsa_init` fails with `1008`", ROCm/legacy-rocm-build#3144): that
        # finding is this failure in the runtime's own name; a second one would repeat it
        return []
    loaded = host.amdgpu_loaded.value if host.amdgpu_loaded else None
    if host.kernel.is_wsl:
        why = ("Under WSL, rocminfo works only with AMD's WSL runtime (ROCm for WSL); the GPU is reached through "
               "/dev/dxg, not /dev/kfd.")
        fix = Fix("Install ROCm for WSL as AMD's guide says, and check the Windows Adrenalin driver version.", [],
                  RADEON_WINDOWS_URL)
    else:
        why = ("The kernel driver is loaded" if loaded else "rocminfo ran") + (
            ", but the HSA runtime could not open a GPU: an ASIC the kernel's kfd does not support, a PCIe slot "
            "without atomics (kfd then skips the device), missing firmware, or a mismatch between the driver and "
            "ROCm. The kernel log says which.")
        fix = Fix("Read the kernel's reason:", ["sudo dmesg | grep -iE 'kfd|amdgpu' | tail -40",
                                                "lspci -nn -d 1002:"])
    return [finding("rocm.runtime-failed", Severity.FAIL,
                    "rocminfo fails: the ROCm runtime cannot initialise the GPU", why,
                    [str(failed.source)] + ([str(host.amdgpu_loaded.source)] if host.amdgpu_loaded else []), fix)]


# Known errors that say *why* the runtime failed (their findings are the cause; rocm.runtime-failed would repeat it).
_SPECIFIC = frozenset({"log.kfd-unsupported-device", "log.pcie-atomics-missing", "log.amdgpu-init-failed",
                       "log.firmware-load-failed", "log.secure-boot-rejected", "log.module-signature-rejected"})


def _never_supported(matrix: Matrix, gpu) -> bool:  # type: ignore[no-untyped-def]
    gfx = native_gfx(gpu)
    return bool(gfx) and matrix.gpu(gfx or "") is not None and not matrix.releases_supporting(gfx=gfx)


def _container_text(host: Host) -> str:
    parts = [host.context[k].value for k in ("container-run", "compose-items") if k in host.context]
    return " ".join(parts)


def started_without_kfd(host: Host) -> bool:
    """The report starts its container without /dev/kfd (a `docker run` or compose file that does not pass it)."""
    return ("container-run" in host.context or "compose-items" in host.context) and "/dev/kfd" not in \
        _container_text(host)


# A container whose whole command is a Python import: it reproduces an import error and asks nothing of the GPU.
_IMPORT_ONLY = re.compile(r"""\bpython[\d.]{0,5} -c (["'])\s*(?:(?:import|from) [\w., ]{1,200};?\s*)+\1\s*$""")


@check("container.no-kfd-device", title="Container started with the AMD devices")
def container_devices(host: Host, matrix: Matrix) -> list[Finding]:
    """A `docker run` / compose file for a GPU workload without /dev/kfd: ROCm inside sees no GPU.
    `--gpus all` is NVIDIA's flag; on an AMD host it passes nothing ROCm can use."""
    run = host.context.get("container-run")
    compose = host.context.get("compose")
    absent = host.context.get("devices-absent")
    if run is None and compose is None and absent is not None:  # said in prose (ROCm/TheRock#7705)
        return [finding(
            "container.no-kfd-device", Severity.FAIL, "The container does not get /dev/kfd and /dev/dri",
            "The report says the devices are not visible inside the container: ROCm there finds no GPU (rocminfo "
            "fails, 'No HIP GPUs are available').", [str(absent.source)],
            Fix("Pass the AMD devices and their groups:",
                ["docker run " + " ".join(shlex.quote(a) for a in _DEVICE_FLAGS) + " IMAGE ..."], DOCKER_URL),
        )]
    if run is None and compose is None:
        return []
    text = _container_text(host)
    gpu_workload = re.search(r"--gpus|rocm|/dev/kfd|/dev/dri|ollama|vllm|pytorch|comfy", text, re.I)
    if run is not None and compose is None and (not gpu_workload or _IMPORT_ONLY.search(run.value)):
        return []  # not a GPU workload; or `python -c "import torchvision"`, which needs no device (ROCm/pytorch#3109)
    has_kfd = "/dev/kfd" in text
    has_dri = "/dev/dri" in text
    gpus_all = re.search(r"--gpus[= ]\S+", text)
    if has_kfd and has_dri:
        return [finding("container.no-kfd-device", Severity.OK, "The container gets /dev/kfd and /dev/dri", "",
                        [str((run or compose).source)])]  # type: ignore[union-attr]
    missing = [d for d, ok in (("/dev/kfd", has_kfd), ("/dev/dri", has_dri)) if not ok]
    src = (run or compose).source  # type: ignore[union-attr]
    title = f"The container is started without {' and '.join(missing)}"
    if gpus_all:
        title += f" ({gpus_all.group(0)} is NVIDIA's flag; it gives an AMD GPU nothing)"
    commands = ["docker run " + " ".join(shlex.quote(a) for a in _DEVICE_FLAGS) + " IMAGE ..."]
    if compose is not None and run is None:
        commands = ["devices: [/dev/kfd, /dev/dri]", "group_add: [video, render]"]
    return [finding(
        "container.no-kfd-device", Severity.FAIL, title,
        "ROCm in a container needs the host's /dev/kfd and /dev/dri render nodes passed in, and the groups that "
        "own them: without them the runtime finds no GPU ('No HIP GPUs are available', hipErrorNoDevice).",
        [str(src)],
        Fix("Pass the AMD devices and their groups:", commands, DOCKER_URL),
    )]


@check("os.windows-native", title="Windows")
def windows_native(host: Host, matrix: Matrix) -> list[Finding]:
    """A report from native Windows (PowerShell prompt, C:\\ paths, `py -3.x`): Linux ROCm advice does not apply."""
    hint = host.context.get("windows")
    if hint is None or host.kernel.is_wsl:
        return []
    t = host.torch
    wrong_torch = t is not None and t.build not in (TorchBuild.ROCM, TorchBuild.UNKNOWN)
    linux_container = next((host.context[k] for k in ("kfd-missing", "container-run", "compose") if k in host.context),
                           None)
    severity = Severity.FAIL if wrong_torch or linux_container else Severity.INFO
    if linux_container is not None:
        title = "A ROCm Linux container asks for /dev/kfd on a Windows host, which has none"
    elif wrong_torch and t is not None:
        title = f"torch {t.version or ''} is not a ROCm build: download.pytorch.org has no ROCm wheels for Windows"
    else:
        title = "The report comes from native Windows"
    return [finding(
        "os.windows-native", severity, " ".join(title.split()),
        "On Windows, `pip install torch` (PyPI or download.pytorch.org) installs a CPU or CUDA build: the ROCm "
        "wheels there are Linux-only. AMD GPUs run PyTorch on Windows only through AMD's own Windows wheels for "
        "supported Radeon GPUs, or under WSL2 with ROCm for WSL.",
        [str(hint.source)] + ([str(t.source)] if t is not None and t.source else [])
        + ([str(linux_container.source)] if linux_container is not None else []),
        Fix("Use AMD's PyTorch for Windows (supported Radeon GPUs) or WSL2 with ROCm for WSL; `modprobe`, "
            "groups and /dev/kfd do not exist on Windows.", [], RADEON_WINDOWS_URL),
    )]


_SYSTEM_PATH = re.compile(r"/opt/rocm(?:-(\d+\.\d+(?:\.\d+)?))?/")


def shadowed(host: Host, matrix: Matrix, m) -> bool:  # type: ignore[no-untyped-def]
    """The verdict of a rocBLAS 'TensileLibrary' line read from the line itself: a path under the system's
    /opt/rocm* while the GPU is a supported target means the wheel loaded the system's rocBLAS (not 'no kernels
    for this GPU'). Used by this check and by the log check, which then leaves the line to it."""
    if m.signature != "rocblas-tensile-missing-arch" or not _SYSTEM_PATH.search(m.text):
        return False
    t = host.torch
    if t is not None and t.build not in (TorchBuild.ROCM, TorchBuild.UNKNOWN, TorchBuild.NOT_ROCM):
        return False
    gfx = log_gfx(m) or next((native_gfx(g) for g in discrete_gpus(host) if native_gfx(g)), None)
    return bool(gfx) and bool(matrix.releases_supporting(gfx=gfx or ""))


@check("rocm.system-libs-shadow-wheel", title="Libraries the wheel loads")
def system_libs(host: Host, matrix: Matrix) -> list[Finding]:
    """A rocBLAS/Tensile 'cannot read TensileLibrary' line whose path is the *system* ROCm while the GPU is
    supported: the wheel loaded the system's libraries (LD_LIBRARY_PATH, ld.so.conf, a conda/venv mix), whose
    release lacks kernels the wheel expects — not a GPU without kernels."""
    lines = [m for m in host.logs if shadowed(host, matrix, m)]
    if not lines:
        return _nix_wheel_ops_unloaded(host)
    m = lines[0]
    path = _SYSTEM_PATH.search(m.text)
    gfx = log_gfx(m) or next((native_gfx(g) for g in discrete_gpus(host) if native_gfx(g)), None)
    supported = bool(gfx) and bool(matrix.releases_supporting(gfx=gfx or ""))
    where = path.group(0).rstrip("/") if path else "/opt/rocm"
    return [finding(
        "rocm.system-libs-shadow-wheel", Severity.FAIL,
        f"rocBLAS is loaded from the system's {where}, not from the torch wheel",
        f"The failing path is the system ROCm{f' ({path.group(1)})' if path and path.group(1) else ''}"
        + (f" and {gfx} is a supported target" if gfx and supported else "")
        + ": the process loaded the system's rocBLAS instead of the one the wheel bundles, and that install has "
        "no Tensile kernels for this GPU or this build. Usually LD_LIBRARY_PATH, /etc/ld.so.conf.d, or ROCM_PATH "
        "points at /opt/rocm.",
        [str(m.source) if m.source else m.text],
        Fix("Keep the system ROCm off the library path for the process that runs torch:",
            ["unset LD_LIBRARY_PATH", "python -c 'import torch; print(torch.__file__)'",
             "cat /proc/$(pgrep -n python)/maps | grep -E 'rocblas|amdhip'"]),
    )]


def _nix_wheel_ops_unloaded(host: Host) -> list[Finding]:
    """Under Nix, a ROCm torch *wheel* (its version carries '+rocmX.Y': nixpkgs builds its own torch) whose
    torchvision ops never registered ('operator torchvision::nms does not exist') with no companion version shown:
    Nix programs get the system's GPU libraries from /run/opengl-driver/lib, which with ROCm enabled holds nixpkgs'
    libamdhip64 of another release; first on LD_LIBRARY_PATH it shadows the wheel's bundled ROCm and torchvision's
    _C.so fails to load silently (utensils/comfyui-nix#46: libamdhip64.so.6 shadowing torch 2.10.0+rocm7.1's .so.7,
    fixed by the library order, no version changed). A listed torchvision version is read by torch.companion-mismatch
    instead."""
    ops, t = host.context.get("torchvision-ops-missing"), host.torch
    nix = host.context.get("nix")
    if ops is None or t is None or "+rocm" not in (t.version or "") or (nix is None and host.os.id != "nixos"):
        return []
    if {"companion-pinned", "companion-torchvision"} & set(host.context) or "torchvision" in host.packages:
        return []
    return [finding(
        "rocm.system-libs-shadow-wheel", Severity.FAIL,
        f"Under Nix, torch {t.version}'s bundled ROCm libraries are shadowed: torchvision's ops did not load",
        "Nix gives programs the system's GPU libraries through /run/opengl-driver/lib; with ROCm enabled it holds "
        "nixpkgs' libamdhip64 of another release. First on LD_LIBRARY_PATH, it is loaded instead of the libraries "
        "the torch wheel bundles, and torchvision's C++ extension then fails to load without a word: its operators "
        f"('{ops.value}') are never registered.",
        [str(ops.source)] + ([str(t.source)] if t.source else []) + ([str(nix.source)] if nix is not None else []),
        Fix("Put the wheel's own libraries before /run/opengl-driver/lib and see which libamdhip64 is loaded:",
            ["echo \"$LD_LIBRARY_PATH\"",
             "python -c 'import torch, os; print(os.path.join(os.path.dirname(torch.__file__), \"lib\"))'",
             "cat /proc/$(pgrep -n python)/maps | grep -E 'amdhip|rocblas'"]),
    )]


@check("container.wsl-dxg-device", title="Containers under WSL")
def wsl_container(host: Host, matrix: Matrix) -> list[Finding]:
    """Under WSL there is no /dev/kfd: a ROCm container gets the GPU through /dev/dxg and the WSL libraries."""
    if not host.kernel.is_wsl:
        return []
    ask = next((host.context[k] for k in ("kfd-missing", "container-run", "compose") if k in host.context), None)
    if ask is None or ("kfd-missing" not in host.context and "/dev/kfd" not in _container_text(host)):
        return []
    return [finding(
        "container.wsl-dxg-device", Severity.FAIL, "The container asks for /dev/kfd, which WSL never has",
        "ROCm under WSL reaches the GPU through /dev/dxg and the Windows driver's libraries (libdxcore, the WSL HSA "
        "runtime); a container started with --device=/dev/kfd fails ('adding custom device \"/dev/kfd\": no such "
        "file or directory') and one without /dev/dxg sees no GPU.",
        [str(ask.source)],
        Fix("Pass /dev/dxg and the WSL libraries instead of /dev/kfd and /dev/dri:",
            ["docker run --device=/dev/dxg -v /usr/lib/wsl/lib/libdxcore.so:/usr/lib/libdxcore.so "
             "-v /opt/rocm/lib/libhsa-runtime64.so.1:/opt/rocm/lib/libhsa-runtime64.so.1 IMAGE ..."],
            "https://rocm.docs.amd.com/projects/radeon/en/latest/docs/install/wsl/install-radeon.html"),
    )]


@check("secureboot.module-rejected", title="Secure Boot and the amdgpu module")
def secure_boot(host: Host, matrix: Matrix) -> list[Finding]:
    """Secure Boot refusing the unsigned DKMS amdgpu module (the kernel's 'Key was rejected by service' /
    'module verification failed', or a report saying Secure Boot blocked it): the driver never loads."""
    lines = [m for m in host.logs if m.finding_id in ("log.module-key-rejected", "log.module-signature-rejected")]
    said = host.context.get("secureboot")
    if not lines and said is None:
        return []
    return [finding(
        "secureboot.module-rejected", Severity.FAIL, "Secure Boot keeps the amdgpu DKMS module from loading",
        "amdgpu-dkms builds an out-of-tree module; with Secure Boot on, the kernel loads it only when it is signed "
        "with a key enrolled in the firmware (MOK). Otherwise modprobe fails ('Key was rejected by service') and "
        "there is no /dev/kfd.",
        [str(m.source) if m.source else m.text for m in lines[:2]] + ([str(said.source)] if said else []),
        Fix("Enroll the DKMS signing key (reboot, confirm in the MOK manager), or disable Secure Boot:",
            ["mokutil --sb-state", "sudo mokutil --import /var/lib/shim-signed/mok/MOK.der", "sudo reboot"],
            "https://rocm.docs.amd.com/projects/install-on-linux/en/latest/install/prerequisites.html"),
    )]


@check("driver.pcie-atomics", title="PCIe atomics")
def pcie_atomics(host: Host, matrix: Matrix) -> list[Finding]:
    """kfd skips a GPU whose PCIe path cannot do atomics (old CPU/chipset, some risers, a bridge): no compute."""
    lines = [m for m in host.logs if m.finding_id == "log.pcie-atomics-missing"]
    vm, state = host.context.get("vm-passthrough"), host.context.get("hip-illegal-state")
    if not lines and vm is not None and state is not None:
        return [finding(
            "driver.pcie-atomics", Severity.FAIL,
            "A GPU passed through to a virtual machine, and every kernel fails 'in the present state': suspect "
            "PCIe atomics",
            "A guest's virtual PCIe path usually offers no atomics, and ROCm builds that use device-to-host atomics "
            "then fail each kernel launch with hipErrorIllegalState (pytorch/pytorch#115734: an MI100 under "
            "libvirt; AMD's builds that avoid the atomics worked in the same VM).",
            [str(vm.source), str(state.source)],
            Fix("Check what the guest's kernel says; run on the host, or give the VM a PCIe topology with atomics "
                "(or use a build that does not need them):",
                ["sudo dmesg | grep -i atomic", "lspci -vvv | grep -i atomic"],
                "https://rocm.docs.amd.com/en/latest/conceptual/pcie-atomics.html"),
        )]
    vmware = host.context.get("vmware-guest")
    if not lines and vm is not None and vmware is not None:
        return [finding(
            "driver.pcie-atomics", Severity.WARN,
            "A GPU passed through to a VMware guest: its virtual PCIe root port may offer no atomics",
            "ROCm's kfd needs PCIe atomics on the path to most GPUs; AMD found that ESXi did not pass them to a "
            "passed-through GPU (ROCm/ROCm#307), so kfd skips the device and nothing runs. Newer ESXi releases AMD "
            "validates for Instinct GPUs may differ: the guest's kernel log tells.",
            [str(vm.source), str(vmware.source)],
            Fix("Check what the guest's kernel says about atomics; if kfd skipped the GPU, run on the host or on a "
                "hypervisor configuration AMD lists for this GPU:",
                ["sudo dmesg | grep -iE 'atomic|kfd'", "lspci -vvv | grep -i atomic"],
                "https://rocm.docs.amd.com/en/latest/conceptual/pcie-atomics.html"),
        )]
    if not lines:
        return []
    return [finding(
        "driver.pcie-atomics", Severity.FAIL, "The GPU's PCIe path does not support atomics: kfd skipped the GPU",
        "ROCm needs PCIe atomic operations between the CPU and this GPU (all gfx8 and most consumer GPUs); the "
        "platform (CPU/chipset, a riser, a PCIe switch or a second-slot bridge) rejects them, so kfd ignores the "
        "device and the runtime sees none.",
        [str(m.source) if m.source else m.text for m in lines[:2]],
        Fix("Put the GPU in a CPU-attached slot of a platform with PCIe atomics (PCIe 3.0+ root port), without "
            "risers or switches; check what the kernel says:",
            ["sudo dmesg | grep -i atomic", "lspci -vvv | grep -i atomic"],
            "https://rocm.docs.amd.com/en/latest/conceptual/pcie-atomics.html"),
    )]


@check("driver.firmware-missing", title="amdgpu firmware")
def firmware_missing(host: Host, matrix: Matrix) -> list[Finding]:
    """A firmware file that failed to load *and* a failed GPU init: the firmware is the cause (a missing optional
    firmware alone is harmless: log.firmware-load-failed stays info)."""
    fw = [m for m in host.logs if m.finding_id == "log.firmware-load-failed"]
    init = [m for m in host.logs if m.finding_id == "log.amdgpu-init-failed"]
    if not (fw and init):
        return []
    names = sorted({m.groups.get("fw", "") for m in fw if m.groups.get("fw")})
    freebsd = any(m.signature == "freebsd-firmware-not-loaded" for m in fw)
    return [finding(
        "driver.firmware-missing", Severity.FAIL,
        f"amdgpu cannot initialise the GPU: firmware {', '.join(names[:3]) or 'files'} missing",
        "The kernel's amdgpu needs firmware files for this GPU (linux-firmware, the amdgpu-dkms-firmware package "
        "for ROCm's driver, FreeBSD's gpu-firmware-amd-kmod packages); without them the init fails and no GPU "
        "appears.",
        [str(m.source) if m.source else m.text for m in (fw[:2] + init[:1])],
        _freebsd_firmware_fix(names) if freebsd else
        Fix("Install the firmware for this kernel/driver, rebuild the initramfs and reboot:",
            ["sudo apt install --reinstall linux-firmware amdgpu-dkms-firmware", "sudo update-initramfs -u",
             "sudo reboot"]),
    )]


# a chip-named firmware file ("amdgpu/navy_flounder_sos.bin") and FreeBSD's package of that chip's firmware
# (gpu-firmware-amd-kmod-navy-flounder, freebsd/drm-kmod#323); IP-versioned files (psp_13_0_0_sos.bin) have no
# such name: fwget(8) picks those from the PCI ids
_CHIP_FIRMWARE = re.compile(r"amdgpu/([a-z]{2,20}(?:_[a-z]{2,20}){0,2}\d{0,2})_(?:sos|asd|toc|smc|ce|me|mec2?|pfp|rlc"
                            r"|sdma1?|vcn|dmcub|mc|uvd|vce)\.bin")


def _freebsd_firmware_fix(names: list[str]) -> Fix:
    """FreeBSD: firmware comes as kernel-module packages, not linux-firmware; commands from the parsed file names."""
    chips = sorted({m.group(1).replace("_", "-") for n in names if (m := _CHIP_FIRMWARE.fullmatch(n))})
    return Fix("On FreeBSD the firmware is a package per GPU: install it (fwget finds the GPU's), then reboot:",
               ["sudo fwget", *(f"sudo pkg install gpu-firmware-amd-kmod-{c}" for c in chips[:2]), "sudo reboot"])
