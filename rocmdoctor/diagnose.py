"""Glue for the one pipeline: bundle or live host -> Host -> enrich with the matrix -> findings.

``check``, ``fleet audit``, ``container test`` and ``install --from`` all go through here so that a
laptop, a pasted bug report, a fixture and a fleet node are judged by exactly the same code.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from rocmdoctor.model import GFX_PRIORITY, Finding, GpuInfo, Host, Source
from rocmdoctor.parse.rocminfo import APU_MEMORY

if TYPE_CHECKING:
    from rocmdoctor.matrix import Matrix

def enrich(host: Host, matrix: Matrix) -> Host:
    """Name GPUs from their PCI ids (libdrm amdgpu.ids via the matrix) and pick each GPU's real gfx."""
    for gpu in host.gpus:
        if gpu.pci_device_id:
            try:
                gfx = matrix.gfx_for_pci(gpu.pci_device_id, gpu.pci_revision)
                if gfx and "pci-id" not in gpu.gfx_by_source:
                    gpu.gfx_by_source["pci-id"] = gfx
                if not gpu.name:
                    gpu.name = matrix.product_name_for_pci(gpu.pci_device_id, gpu.pci_revision)
                if not gfx:
                    _legacy(gpu, matrix, gpu.pci_device_id, "pci-id")
            except NotImplementedError:
                pass
        if gpu.name and not any(k in gpu.gfx_by_source for k in ("kfd", "pci-id", "amd-smi", "rocm-smi", "lspci")):
            target = _target_by_name(matrix, gpu.name)
            if target is not None:  # a marketing name (collect_env, rocm-smi) names the hardware
                gpu.gfx_by_source.setdefault("name", target.gfx)
            elif not gpu.gfx_by_source:  # a board the GPU table lacks: the PCI ID Repository's names, the kernel
                ids = matrix.pci_ids_named(gpu.name)
                known = {g for g in (matrix.gfx_for_pci(d) for d in ids) if g}
                if len(known) == 1:  # every device of that name runs one target ("Navi 22": 73df -> gfx1031)
                    gpu.gfx_by_source["name"] = known.pop()
                elif not known and ids:
                    _legacy(gpu, matrix, ids[0], "name")
        igpu = _igpu_in_the_log(gpu, matrix)
        if igpu is not None:
            igpu.index = len(host.gpus)
            host.gpus.append(igpu)  # enrich() visits it too: the loop sees the list grow
        for src in GFX_PRIORITY:
            if src in gpu.gfx_by_source:
                gpu.gfx = gpu.gfx_by_source[src]
                break
        else:
            if gpu.gfx_by_source:
                gpu.gfx = next(iter(gpu.gfx_by_source.values()))
        if gpu.is_apu and gpu.gfx and not any(s.text == APU_MEMORY for s in gpu.sources):
            target = matrix.gpu(gpu.gfx)
            if target is not None and not target.is_apu:
                # "AMD Radeon Graphics" is also what discrete MI50/MI60 (gfx906) report: the ISA decides
                gpu.is_apu = False
        if gpu.is_apu is None and gpu.gfx:
            target = matrix.gpu(gpu.gfx)
            if target is not None and target.is_apu:
                gpu.is_apu = True
                gpu.sources.append(Source("matrix", text=f"{gpu.gfx} is an APU target"))
    _drop_own_targets(host)
    return host


def _drop_own_targets(host: Host) -> None:
    """A build target a program was told (``TRITON_OVERRIDE_ARCH=gfx1200``) is a problem only beside a known GPU that
    runs neither it natively nor under its override (patientx/ComfyUI-Zluda#263: gfx1200 for an RX 9070 XT, a gfx1201).
    Such a match (a signature's ``other_gfx_only``) is dropped where no GPU's target is known or one GPU runs it."""
    from rocmdoctor.parse.kfd import gfx_from_version
    from rocmdoctor.parse.signatures import by_id

    table = by_id()
    if not any((sig := table.get(m.signature)) is not None and sig.other_gfx_only for m in host.logs):
        return
    runs = {g for gpu in host.gpus for g in (gpu.gfx, *gpu.gfx_by_source.values()) if g}
    if runs:
        said = [host.env.get("HSA_OVERRIDE_GFX_VERSION"), *(f.value for k, f in host.context.items()
                                                            if k.startswith("override-"))]
        runs |= {g for v in said if isinstance(v, str) and (g := gfx_from_version(v.strip()))}
    host.logs = [m for m in host.logs if not ((sig := table.get(m.signature)) is not None and sig.other_gfx_only
                                              and (not runs or m.groups.get("gfx", "").lower() in runs))]


def _igpu_in_the_log(gpu: GpuInfo, matrix: Matrix) -> Optional[GpuInfo]:
    """A report's discrete GPU (by name) and an error line's APU target are two GPUs, not one GPU seen two ways: the
    program ran on the iGPU enumerated beside it (an RX 6800 XT named, rocBLAS failing 'for GPU arch : gfx1036',
    CS1o/Stable-Diffusion-Info#6). The log's target moves to a GPU of its own."""
    named, logged = gpu.gfx_by_source.get("name"), gpu.gfx_by_source.get("log")
    if not named or not logged or named == logged or gpu.pci_device_id:
        return None
    dgpu, apu = matrix.gpu(named), matrix.gpu(logged)
    if dgpu is None or apu is None or dgpu.is_apu or not apu.is_apu:
        return None
    del gpu.gfx_by_source["log"]
    other = GpuInfo(index=-1, gfx=logged, gfx_by_source={"log": logged}, is_apu=True)  # the caller numbers it
    other.sources.extend([*gpu.sources[:1], Source("matrix", text=f"{logged} is an APU target")])
    return other


def _legacy(gpu: GpuInfo, matrix: Matrix, device_id: str, how: str) -> None:
    """A pre-Vega chip from the kernel's tables: the gfx kfd serves it as, or that kfd does not serve it."""
    chip = matrix.legacy_chip(device_id)
    if chip is None:
        return
    name, family, gfx = chip
    if gfx:
        gpu.gfx_by_source.setdefault(how, gfx)
    else:
        gpu.chip_without_kfd = f"{name.title()}, {family}"
        why = f"PCI {device_id} is {name} in amdgpu's pciidlist; kfd's kgd2kfd_probe has no case for it"
        gpu.sources.append(Source("matrix", text=why + " (Linux 5.18, matrices/pci_chips.toml)"))


def _target_by_name(matrix: Matrix, name: str):  # type: ignore[no-untyped-def]
    """The matrix target for a marketing name, also lspci's 'Navi 14 [Radeon RX 5500/5500M / Pro 5500M]'. Not for a
    bare chip codename: 'Vega 10' is the PCI ID Repository's chip (gfx900) as well as an APU's marketing name in
    libdrm ('AMD Radeon Vega 10 Graphics', gfx902), so the codename table decides (ROCm/legacy-rocm-build#559)."""
    import re

    from rocmdoctor.parse.freetext import CODENAME

    if CODENAME.fullmatch(name.strip()):
        return None
    target = matrix.gpu(name)
    if target is None:
        m = re.search(r"\[([^\]]{3,80})\]", name)
        if m:
            first = m.group(1).split("/")[0].strip()
            target = matrix.gpu(first) or matrix.gpu(first.replace("Radeon ", ""))
    return target


def judge_host(
    host: Host,
    select: Optional[list[str]] = None,
    skip: Optional[list[str]] = None,
    matrix: Optional[Matrix] = None,
) -> list[Finding]:
    """Enrich ``host`` and run every selected check on it (the same checks as ``rocmdoctor check``)."""
    from rocmdoctor import matrix as matrix_mod
    from rocmdoctor.judge.registry import run_checks

    m = matrix if matrix is not None else matrix_mod.load()
    enrich(host, m)
    findings = run_checks(host, m, select=select, skip=skip)
    from rocmdoctor.judge.causes import assign

    assign(findings)
    return findings
