"""KFD topology: ``/sys/class/kfd/kfd/topology/nodes/N/properties`` (``key value`` lines), and the one
place in rocmdoctor that turns a gfx version (major, minor, stepping) into a gfx name and back.

``gfx_target_version`` is decimal major*10000 + minor*100 + stepping and names the ISA the kernel
driver sees (HSA_OVERRIDE_GFX_VERSION does not change it, so it is the hardware's own target).
A CPU node has 0 there.
"""

from __future__ import annotations

import re
from typing import Optional

from rocmdoctor.model import GpuInfo
from rocmdoctor.parse.text import bus_from_bdfid, hex_id, lines, src, to_int

# -- gfx names <-> versions --------------------------------------------------------------------------------------
# The rule and its upstream sources: gfx_name's docstring (pinned by tests/test_gfx_version.py).
MAX_MAJOR = 63
_GFX_NAME = re.compile(r"gfx(\d{1,2}?)([0-9a-f])([0-9a-f])")
_VERSION = re.compile(r"\s*(\d{1,9})\.(\d{1,9})\.(\d{1,9})\s*")  # bounded: no 5,000-digit int() from a paste


def gfx_name(major: int, minor: int, stepping: int) -> Optional[str]:
    """(9, 0, 10) -> 'gfx90a', (10, 3, 0) -> 'gfx1030'; None when no ISA name can carry the version.

    The rule is upstream's:

    * ROCm/ROCR-Runtime ``src/core/runtime/isa.cpp`` registers every ISA by name and version, e.g.
      ``ISAREG_ENTRY_GEN("gfx90a", 9, 0, 10, ...)`` and ``ISAREG_ENTRY_GEN("gfx90c", 9, 0, 12, ...)``: a name
      is "gfx", the major in decimal, then minor and stepping as ONE hex digit each. A version whose minor or
      stepping is over 15 has no name and no entry there (the runtime finds no usable agent), so None.
    * The kernel's amdkfd (``drivers/gpu/drm/amd/amdkfd/kfd_device.c``) publishes ``gfx_target_version`` as
      decimal major*10000 + minor*100 + stepping: Aldebaran (MI210, gfx90a) 90010, Renoir (gfx90c) 90012,
      Navi14 (gfx1012) 100102.
    * The thunk (ROCT-Thunk-Interface ``src/topology.c``, now libhsakmt in ROCR-Runtime) reads
      HSA_OVERRIDE_GFX_VERSION with ``sscanf("%u.%u.%u")`` in decimal, rejects major > 63 or minor/stepping
      > 255 and keeps the major in 6 bits (``major & 0x3f``): "10.3.0" -> gfx1030, "9.0.10" -> gfx90a.
    """
    if not (1 <= major <= MAX_MAJOR and 0 <= minor <= 15 and 0 <= stepping <= 15):
        return None
    return f"gfx{major}{minor:x}{stepping:x}"


def gfx_parts(gfx: str) -> Optional[tuple[int, int, int]]:
    """'gfx90a' -> (9, 0, 10), 'gfx1031' -> (10, 3, 1): the inverse of :func:`gfx_name`; None when not a name."""
    m = _GFX_NAME.fullmatch(gfx or "")
    if not m:
        return None
    parts = int(m.group(1)), int(m.group(2), 16), int(m.group(3), 16)
    return parts if gfx_name(*parts) == gfx else None


def gfx_from_target_version(value: int) -> Optional[str]:
    """KFD ``gfx_target_version``: 90010 -> gfx90a, 100301 -> gfx1031, 110000 -> gfx1100, 90402 -> gfx942;
    0 (a CPU node) -> None."""
    if value <= 0:
        return None
    return gfx_name(value // 10000, (value // 100) % 100, value % 100)


def target_version_of_gfx(gfx: str) -> Optional[int]:
    """'gfx90a' -> 90010: the inverse of :func:`gfx_from_target_version`."""
    parts = gfx_parts(gfx)
    return parts[0] * 10000 + parts[1] * 100 + parts[2] if parts else None


def gfx_from_version(value: str) -> Optional[str]:
    """HSA_OVERRIDE_GFX_VERSION form: '10.3.0' -> 'gfx1030', '9.0.10' -> 'gfx90a', '11.0.0' -> 'gfx1100';
    None when malformed or when no ISA has that version ('10.3.16')."""
    m = _VERSION.fullmatch(value or "")
    if not m:
        return None
    major, minor, stepping = (int(x) for x in m.groups())
    return gfx_name(major, minor, stepping)


def version_of_gfx(gfx: str) -> Optional[str]:
    """'gfx1031' -> '10.3.1', 'gfx90a' -> '9.0.10' (the form HSA_OVERRIDE_GFX_VERSION takes)."""
    parts = gfx_parts(gfx)
    return ".".join(str(p) for p in parts) if parts else None


# -- topology ----------------------------------------------------------------------------------------------------


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
