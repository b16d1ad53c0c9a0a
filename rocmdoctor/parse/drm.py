"""DRM sysfs: ``/sys/class/drm/cardN/device/{vendor,device,revision,uevent,mem_info_vram_total,...}``.

Each file holds one value. Only AMD cards (vendor 0x1002) become GPUs; the PCI id is named
later (through libdrm's amdgpu.ids by the lead's enrichment), here we just record it.
"""

from __future__ import annotations

from typing import Optional

from rocmdoctor.model import GpuInfo
from rocmdoctor.parse.text import hex_id, lines, pci_bus, src, to_int

_LINK_FILES = (
    ("pcie_width", "current_link_width", True), ("pcie_max_width", "max_link_width", True),
    ("pcie_speed", "current_link_speed", False), ("pcie_max_speed", "max_link_speed", False),
)


def _first_line(text: Optional[str]) -> Optional[tuple[int, str]]:
    if text is None:
        return None
    for n, line in lines(text):
        if line.strip():
            return n, line.strip()
    return None


def parse_drm_card(card: str, files: dict[str, str], base: str) -> Optional[GpuInfo]:
    """``files`` maps a file name under ``device/`` to its text; ``base`` is the bundle path of ``device/``."""
    vendor_line = _first_line(files.get("vendor"))
    uevent = files.get("uevent") or ""
    ue: dict[str, tuple[int, str]] = {}
    for n, line in lines(uevent):
        if "=" in line:
            k, v = line.split("=", 1)
            ue[k.strip()] = (n, v.strip())
    vendor = hex_id(vendor_line[1]) if vendor_line else None
    device = None
    if vendor is None and "PCI_ID" in ue:
        ids = ue["PCI_ID"][1].split(":")
        if len(ids) == 2:
            vendor, device = hex_id(ids[0]), hex_id(ids[1])
    if vendor != "0x1002":
        return None
    gpu = GpuInfo(index=0, drm_card=card, pci_vendor_id=vendor)
    if vendor_line:
        gpu.sources.append(src(f"{base}/vendor", vendor_line[0], vendor_line[1]))
    dev_line = _first_line(files.get("device"))
    if dev_line:
        device = hex_id(dev_line[1]) or device
        gpu.sources.append(src(f"{base}/device", dev_line[0], dev_line[1]))
    gpu.pci_device_id = device
    rev_line = _first_line(files.get("revision"))
    if rev_line:
        gpu.pci_revision = hex_id(rev_line[1], width=2)
    if "PCI_SLOT_NAME" in ue:
        gpu.pci_bus = pci_bus(ue["PCI_SLOT_NAME"][1])
    vram = _first_line(files.get("mem_info_vram_total"))
    if vram:
        gpu.vram_bytes = to_int(vram[1]) or None
    product = _first_line(files.get("product_name"))
    if product and product[1] not in ("", "N/A"):
        gpu.name = product[1]
    for attr, name, as_int in _LINK_FILES:
        first = _first_line(files.get(name))
        if first and first[1] not in ("", "Unknown", "N/A"):
            setattr(gpu, attr, to_int(first[1]) if as_int else first[1])
            if name == "current_link_width":
                gpu.sources.append(src(f"{base}/{name}", first[0], first[1]))
    serial = _first_line(files.get("serial_number"))
    if serial and serial[1] not in ("", "N/A"):
        gpu.serial = serial[1]
    return gpu
