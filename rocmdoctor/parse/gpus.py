"""Merge the GPU lists that different sources report into one list of :class:`GpuInfo`.

Sources are merged in order of authority (kfd first). Two records are the same GPU when their PCI
addresses agree, else their KFD node numbers, else (equal counts) their position, else a shared gfx
name or marketing name. Every source's gfx stays in ``gfx_by_source`` so that a disagreement (an
HSA_OVERRIDE_GFX_VERSION in effect) stays visible to the checks.
"""

from __future__ import annotations

from typing import Optional

from rocmdoctor.model import GFX_PRIORITY, GpuInfo  # the one ranking (its "name" source exists only after diagnose)

# Order in which sources become the base list and are merged into it.
MERGE_ORDER = ("kfd", "rocminfo", "amd-smi", "rocm-smi", "drm", "lspci", "rocm_agent_enumerator", "collect_env")
_BUS_SOURCES = ("kfd", "drm", "pci", "lspci", "amd-smi", "rocm-smi", "rocminfo")
_FILL = ("name", "pci_vendor_id", "pci_device_id", "pci_revision", "pci_bus", "vram_bytes", "compute_units",
         "kfd_node", "drm_card", "render_node", "uuid", "serial", "pcie_width", "pcie_max_width", "pcie_speed",
         "pcie_max_speed", "pci_driver")


def best_gfx(gfx_by_source: dict[str, str]) -> Optional[str]:
    for key in GFX_PRIORITY:
        if gfx_by_source.get(key):
            return gfx_by_source[key]
    return next((v for v in gfx_by_source.values() if v), None)


def _absorb(into: GpuInfo, other: GpuInfo) -> None:
    for attr in _FILL:
        if getattr(into, attr) is None and getattr(other, attr) is not None:
            setattr(into, attr, getattr(other, attr))
    for k, v in other.gfx_by_source.items():
        into.gfx_by_source.setdefault(k, v)
    if other.is_apu is not None and into.is_apu is not True:
        into.is_apu = other.is_apu
    for s in other.sources:
        if s not in into.sources:
            into.sources.append(s)


def _gfx_set(g: GpuInfo) -> set[str]:
    return {v for v in g.gfx_by_source.values() if v}


def _compatible(a: GpuInfo, b: GpuInfo) -> bool:
    """Nothing says these are different GPUs."""
    for attr in ("name", "pci_device_id", "pci_bus", "uuid"):
        x, y = getattr(a, attr), getattr(b, attr)
        if x and y and x != y:
            return False
    ga, gb = _gfx_set(a), _gfx_set(b)
    return not (ga and gb and not ga & gb)


def _pair(base: list[GpuInfo], other: list[GpuInfo]) -> tuple[dict[int, int], list[int]]:
    """Map other-index -> base-index; also the other-indices left unmatched."""
    pairs: dict[int, int] = {}
    used: set[int] = set()
    by_bus = {g.pci_bus: i for i, g in enumerate(base) if g.pci_bus}
    by_node = {g.kfd_node: i for i, g in enumerate(base) if g.kfd_node is not None}
    for j, o in enumerate(other):
        i = None
        if o.pci_bus and o.pci_bus in by_bus:
            i = by_bus[o.pci_bus]
        elif o.kfd_node is not None and o.kfd_node in by_node:
            i = by_node[o.kfd_node]
        if i is not None and i not in used:
            pairs[j] = i
            used.add(i)
    rest = [j for j in range(len(other)) if j not in pairs]
    free = [i for i in range(len(base)) if i not in used]
    if rest and len(rest) == len(free) and not any(other[j].pci_bus and base[i].pci_bus for j, i in zip(rest, free)):
        for j, i in zip(rest, free):
            pairs[j] = i
        return pairs, []
    # Unequal counts: pair on a shared gfx or marketing name, in order; then what is left in order,
    # when nothing contradicts it (an excerpt of one source beside the full list of another).
    for j in list(rest):
        o = other[j]
        for i in free:
            b = base[i]
            if (_gfx_set(o) & _gfx_set(b)) or (o.name and b.name and o.name == b.name):
                pairs[j] = i
                free.remove(i)
                rest.remove(j)
                break
    for j in list(rest):
        if not free:
            break
        i = free[0]
        if _compatible(base[i], other[j]):
            pairs[j] = i
            free.remove(i)
            rest.remove(j)
    return pairs, rest


def merge_gpus(by_source: dict[str, list[list[GpuInfo]]], notes: Optional[list[str]] = None) -> list[GpuInfo]:
    """One GPU list from every source's lists (``{"kfd": [[...]], "rocminfo": [[...]], ...}``)."""
    lists: list[tuple[str, list[GpuInfo]]] = []
    for name in MERGE_ORDER:
        for lst in by_source.get(name, []):
            if lst:
                lists.append((name, lst))
    for name, lsts in by_source.items():
        if name not in MERGE_ORDER:
            lists.extend((name, lst) for lst in lsts if lst)
    if not lists:
        return []
    # The longest list is the base (an excerpt must not hide GPUs a full list shows); ties go by authority.
    first = max(range(len(lists)), key=lambda k: (len(lists[k][1]), -k))
    lists.insert(0, lists.pop(first))
    base = list(lists[0][1])
    for name, other in lists[1:]:
        pairs, rest = _pair(base, other)
        for j, i in pairs.items():
            _absorb(base[i], other[j])
        for j in rest:
            o = other[j]
            if name in _BUS_SOURCES and o.pci_bus and any(b.pci_bus for b in base):
                base.append(o)
            elif notes is not None:
                notes.append(f"{name}: GPU {j} could not be matched to the other sources; ignored")
    for i, g in enumerate(base):
        g.index = i
        g.gfx = best_gfx(g.gfx_by_source)
    return base
