"""No amdgpu driver ROCm can use for the GPU: amdgpu-dkms is not installed for the running kernel, and that kernel
is older than the first upstream kernel whose own amdgpu/amdkfd serves the GPU's gfx (matrices/driver.toml
``[[upstream_kfd]]``, from AMD's ROCm README). Read by ``driver.amdgpu-not-loaded`` when no module list was captured.

ROCm/legacy-rocm-build#624: Ubuntu 16.04's 4.4 kernel, ``dkms status`` ``amdgpu, 1.9-307: added`` (never built), a
Vega 10 (gfx900; upstream KFD serves it from 4.18): no amdgpu bound the GPU and rocminfo failed with 4104.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Optional

from rocmdoctor.judge.facts import finding
from rocmdoctor.matrix.query import _vtuple
from rocmdoctor.model import Finding, Fix, Severity

if TYPE_CHECKING:
    from rocmdoctor.matrix import Matrix
    from rocmdoctor.model import GpuInfo, Host

FID = "driver.amdgpu-not-loaded"
# kernels whose distribution backports the DRM tree (RHEL's "3.10.0-957.el7", SUSE's "-default"): their upstream
# number does not say which GPUs their own amdgpu serves, so they are not judged by it
_BACKPORTING = re.compile(r"\.el\d|-default\b|\.x86_64$")


def _too_old_for(host: Host, matrix: Matrix, release: str) -> list[tuple[GpuInfo, str, str]]:
    """The GPUs (with the first kernel that serves them, and its source) the running kernel is older than."""
    have = _vtuple(release)[:2]
    out = []
    for g in host.gpus:
        first = matrix.upstream_kfd.get(g.gfx or "")
        if first is not None and have and have < _vtuple(first[0])[:2]:
            out.append((g, first[0], first[1]))
    return out


def no_driver_for_gpu(host: Host, matrix: Matrix) -> Optional[Finding]:
    """A fail when neither amdgpu-dkms (listed by `dkms status`, not installed for the running kernel) nor the
    running kernel's own amdgpu can drive the GPU for ROCm; None when anything says otherwise or is unknown."""
    release = host.kernel.release
    if not release or host.kernel.is_wsl or host.dkms is None or _BACKPORTING.search(release):
        return None
    amdgpu = [e for e in host.dkms.entries if e.module == "amdgpu"]
    if not amdgpu or any(e.kernel == release and e.status.startswith("installed") for e in amdgpu):
        return None
    too_old = _too_old_for(host, matrix, release)
    if not too_old:
        return None
    gpu, first, source = too_old[0]
    name = f"{gpu.name or 'GPU'} ({gpu.gfx})"
    states = ", ".join(dict.fromkeys(f"{e.version}: {e.status}" + (f" for {e.kernel}" if e.kernel else "")
                                     for e in amdgpu))
    evidence = [str(e.source) for e in amdgpu if e.source][:2]
    if host.kernel.source:
        evidence.insert(0, str(host.kernel.source))
    return finding(
        FID, Severity.FAIL, f"No amdgpu driver can serve the {name} on kernel {release}",
        f"amdgpu-dkms is not installed for this kernel ({states}), and the kernel's own amdgpu serves {gpu.gfx} "
        f"for ROCm only from Linux {first} [{source}]. So no amdgpu module with KFD drives the GPU: there is no "
        "/dev/kfd for it and ROCm sees no GPU.",
        evidence,
        Fix(f"Boot a kernel the installed amdgpu-dkms builds for (with its headers) and build the module, or a "
            f"kernel of {first} or newer with a ROCm that uses its in-tree amdgpu:",
            ["dkms status", "sudo dkms autoinstall"]),
    )
