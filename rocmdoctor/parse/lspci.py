"""``lspci -k`` / ``lspci -nnk``: AMD display-class devices, their ids and the kernel driver in use."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

from rocmdoctor.model import GpuInfo
from rocmdoctor.parse.text import hex_id, lines, pci_bus, src, strip_prompt

_DEVICE = re.compile(
    r"^(?:([0-9a-fA-F]{4}):)?([0-9a-fA-F]{2}):([0-9a-fA-F]{2})\.([0-7])\s+([^:\[]+?)(?:\s*\[[0-9a-f]{4}\])?:\s+(.*)$"
)
_CLASSES = ("vga compatible controller", "display controller", "3d controller", "processing accelerators")
_AMD = re.compile(r"\[1002:|Advanced Micro Devices|\bAMD/ATI\b|ATI Technologies")
_IDS = re.compile(r"\[1002:([0-9a-fA-F]{4})\]")
_REV = re.compile(r"\(rev ([0-9a-fA-F]{1,2})\)")
_BARE_ID = re.compile(r"(?:\[AMD/ATI\]|\[AMD\]|Advanced Micro Devices, Inc\.) Device ([0-9a-fA-F]{4})\b")
# a report's field label before a pasted lspci line: "GPU：    83:00.0 VGA compatible controller: ..." (ROCm/ROCm#2536)
_LABEL = re.compile(r"^[A-Za-z][\w ]{0,15}[:\uff1a]\s+(?=(?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]\s)")
_VENDOR_PREFIX = re.compile(r"^(?:Advanced Micro Devices, Inc\.|ATI Technologies Inc)\s*(?:\[AMD/ATI\]|\[AMD\])?\s*")


@dataclass
class LspciResult:
    gpus: list[GpuInfo] = field(default_factory=list)
    drivers: list[tuple[GpuInfo, Optional[str]]] = field(default_factory=list)  # driver in use per GPU


def parse_lspci(text: str, file: str = "cmd/lspci.txt") -> LspciResult:
    res = LspciResult()
    current: Optional[GpuInfo] = None
    for n, line in lines(text):
        body, _ = strip_prompt(line)
        m = _DEVICE.match(body)
        if m is None and (":" in body[:20] or "\uff1a" in body[:20]):
            body = _LABEL.sub("", body, count=1)
            m = _DEVICE.match(body)
        if m:
            current = None
            if m.group(5).strip().lower() not in _CLASSES or not _AMD.search(body):
                continue
            gpu = GpuInfo(index=len(res.gpus), pci_vendor_id="0x1002")
            dom = m.group(1) or "0000"
            gpu.pci_bus = pci_bus(f"{dom}:{m.group(2)}:{m.group(3)}.{m.group(4)}")
            ids = _IDS.search(body)
            if ids:
                gpu.pci_device_id = hex_id(ids.group(1))
            bare = _BARE_ID.search(body) if not ids else None
            if bare:  # plain `lspci` names a device its database lacks by its id: "[AMD/ATI] Device 164e (rev c1)"
                gpu.pci_device_id = hex_id(bare.group(1))
            rev = _REV.search(body)
            if rev:
                gpu.pci_revision = hex_id(rev.group(1), width=2)
            desc = _REV.sub("", _IDS.sub("", m.group(6))).strip()
            desc = _VENDOR_PREFIX.sub("", re.sub(r"\(prog-if [^)\n]{0,40}\)", "", desc)).strip()
            # "Device 164e" is no name: the PCI id is named from amdgpu.ids later
            gpu.name = None if not desc or re.fullmatch(r"Device [0-9a-fA-F]{4}", desc) else desc
            gpu.sources.append(src(file, n, body))
            res.gpus.append(gpu)
            res.drivers.append((gpu, None))
            current = gpu
            continue
        if current is not None and "Kernel driver in use:" in body:
            driver = body.split(":", 1)[1].strip()
            res.drivers[-1] = (current, driver or None)
            current.pci_driver = driver or None
            current.sources.append(src(file, n, body))
        elif current is not None and "Kernel modules:" in body and current.pci_driver is None:
            # -k/-v print "Kernel driver in use:" first when a driver is bound: modules without it mean none took the
            # device (ROCm/legacy-rocm-build#1357: an MI100 whose amdgpu probe failed on missing firmware)
            current.pci_driver = ""
            current.sources.append(src(file, n, body))
    return res
