"""KFD topology: ``/sys/class/kfd/kfd/topology/nodes/N/properties`` (``key value`` lines).

``gfx_target_version`` is decimal major*10000 + minor*100 + stepping and names the ISA the kernel
driver sees (HSA_OVERRIDE_GFX_VERSION does not change it, so it is the hardware's own target).
A CPU node has 0 there.
"""

from __future__ import annotations

from typing import Optional

from rocmdoctor.model import GpuInfo
from rocmdoctor.parse.text import bus_from_bdfid, hex_id, lines, src, to_int


def gfx_from_target_version(value: int) -> Optional[str]:
    """90010 -> gfx90a, 100301 -> gfx1031, 110000 -> gfx1100, 90402 -> gfx942; 0 (a CPU) -> None."""
    if value <= 0 or value >= 10_000_000:
        return None
    major, minor, step = value // 10000, (value // 100) % 100, value % 100
    if minor > 15 or step > 15:
        return None
    return f"gfx{major}{minor:x}{step:x}"


def parse_properties(text: str) -> dict[str, tuple[int, int, str]]:
    """``{key: (int value, line number, line)}``; lines that are not ``key integer`` are skipped."""
    props: dict[str, tuple[int, int, str]] = {}
    for n, line in lines(text):
        parts = line.split()
        if len(parts) != 2:
            continue
        value = to_int(parts[1])
        if value is not None and parts[0] not in props:
            props[parts[0]] = (value, n, line)
    return props


def parse_kfd_node(text: str, file: str, node: int, mem_bytes: Optional[int] = None) -> Optional[GpuInfo]:
    """One node's properties as a GPU, or ``None`` for a CPU node / unreadable text."""
    props = parse_properties(text)
    gtv = props.get("gfx_target_version")
    if gtv is None:
        return None
    gfx = gfx_from_target_version(gtv[0])
    if gfx is None:
        return None
    gpu = GpuInfo(index=0, kfd_node=node)
    gpu.gfx_by_source["kfd"] = gfx
    gpu.gfx = gfx
    gpu.sources.append(src(file, gtv[1], gtv[2]))

    def val(key: str) -> Optional[int]:
        p = props.get(key)
        return p[0] if p else None

    vendor = val("vendor_id")
    if vendor:
        gpu.pci_vendor_id = hex_id(vendor)
    device = val("device_id")
    if device:
        gpu.pci_device_id = hex_id(device)
    loc = val("location_id")
    if loc:
        gpu.pci_bus = bus_from_bdfid(loc, val("domain") or 0)
    cores = val("cpu_cores_count")
    simd = val("simd_count")
    if cores is not None and simd:
        gpu.is_apu = cores > 0
    per_cu = val("simd_per_cu")
    if simd and per_cu:
        gpu.compute_units = simd // per_cu
    minor = val("drm_render_minor")
    if minor is not None and minor >= 128:
        gpu.render_node = f"renderD{minor}"
    uid = val("unique_id")
    if uid:
        gpu.uuid = f"GPU-{uid:016x}"
    if mem_bytes:
        gpu.vram_bytes = mem_bytes
    return gpu


def parse_mem_bank(text: str) -> Optional[int]:
    """``mem_banks/M/properties`` ``size_in_bytes`` (heap_type 1/2 = VRAM public/private)."""
    props = parse_properties(text)
    heap = props.get("heap_type")
    size = props.get("size_in_bytes")
    if size is None or (heap is not None and heap[0] not in (1, 2)):
        return None
    return size[0] or None
