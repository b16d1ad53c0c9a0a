"""GPUs from the sysfs files a bundle keeps under ``root/sys``: kfd topology nodes, DRM cards and PCI functions.

Each GPU is spread over many small files (``nodes/<n>/properties`` plus one file per memory bank,
``card<n>/device/<attr>``, ``devices/<bus>/<attr>``), so the files are first grouped by the object they
describe (:meth:`SysfsGpus.take`, driven by the :data:`_GROUPS` table) and then read object by object.
"""

from __future__ import annotations

import re
from typing import Optional

from rocmdoctor.bundle.archive import Tree
from rocmdoctor.bundle.merge import Acc
from rocmdoctor.model import GpuInfo
from rocmdoctor.parse import drm, kfd
from rocmdoctor.parse.text import hex_id, src

_KFD_NODE = re.compile(r"/sys/class/kfd/kfd/topology/nodes/(\d+)/properties")
_MEM_BANK = re.compile(r"/sys/class/kfd/kfd/topology/nodes/(\d+)/mem_banks/\d+/properties")
_DRM_CARD = re.compile(r"/sys/class/drm/(card\d+)/device/([\w.-]+)")
_PCI_DEV = re.compile(r"/sys/bus/pci/devices/([0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])/(\w+)")
_RENDER_UEVENT = re.compile(r"/sys/class/drm/(renderD\d+)/device/uevent")
_PCI_SLOT = re.compile(r"^PCI_SLOT_NAME=(\S+)", re.M)


class SysfsGpus:
    """The sysfs files of one bundle grouped by kfd node, DRM card, PCI function and render node."""

    def __init__(self) -> None:
        self.kfd_nodes: dict[int, str] = {}
        self.mem_banks: dict[int, list[str]] = {}
        self.cards: dict[str, dict[str, str]] = {}
        self.render_by_slot: dict[str, str] = {}
        self.pci_devs: dict[str, dict[str, str]] = {}

    def take(self, tree: Tree, name: str, host_path: str) -> bool:
        """Group ``name`` (``root/`` + ``host_path``) when it is one of the sysfs files read here."""
        for pattern, group in _GROUPS:
            m = pattern.fullmatch(host_path)
            if m:
                group(self, tree, name, m)
                return True
        return False

    def _kfd_node(self, tree: Tree, name: str, m: re.Match[str]) -> None:
        self.kfd_nodes[int(m.group(1))] = name

    def _mem_bank(self, tree: Tree, name: str, m: re.Match[str]) -> None:
        self.mem_banks.setdefault(int(m.group(1)), []).append(name)

    def _card_file(self, tree: Tree, name: str, m: re.Match[str]) -> None:
        self.cards.setdefault(m.group(1), {})[m.group(2)] = name

    def _pci_file(self, tree: Tree, name: str, m: re.Match[str]) -> None:
        self.pci_devs.setdefault(m.group(1).lower(), {})[m.group(2)] = name

    def _render_uevent(self, tree: Tree, name: str, m: re.Match[str]) -> None:
        slot = _PCI_SLOT.search(tree.text(name) or "")
        if slot:
            self.render_by_slot[slot.group(1).lower()] = m.group(1)

    def read(self, acc: Acc, tree: Tree) -> None:
        """Offer the GPUs of every source found (kfd, pci, drm)."""
        if self.kfd_nodes:
            acc.saw("kfd")
            acc.gpus("kfd", self._kfd_gpus(tree))
        if self.pci_devs:
            acc.saw("pci")
            acc.gpus("pci", self._pci_gpus(tree, bool(acc.host.tool)))
        if self.cards:
            acc.saw("drm")
            acc.gpus("drm", self._drm_gpus(tree))

    def _kfd_gpus(self, tree: Tree) -> list[GpuInfo]:
        gpus = []
        for node in sorted(self.kfd_nodes):
            vram: Optional[int] = None
            for bank in self.mem_banks.get(node, []):
                size = kfd.parse_mem_bank(tree.text(bank) or "")
                if size:
                    vram = (vram or 0) + size
            gpu = kfd.parse_kfd_node(tree.text(self.kfd_nodes[node]) or "", self.kfd_nodes[node], node, vram)
            if gpu is not None:
                gpus.append(gpu)
        return gpus

    def _pci_gpus(self, tree: Tree, our_capture: bool) -> list[GpuInfo]:
        """AMD GPUs on the PCI bus and the driver bound to each (from the manifest's `driver` links)."""
        gpus = []
        for bus in sorted(self.pci_devs):
            paths = self.pci_devs[bus]
            files = {k: (tree.text(v) or "").strip() for k, v in paths.items()}
            if files.get("vendor", "").lower() != "0x1002":
                continue
            if files.get("class") and not files["class"].lower().startswith(("0x03", "0x12")):
                continue  # the GPU's HDMI audio function and other non-GPU AMD functions
            gpu = GpuInfo(index=0, pci_vendor_id="0x1002", pci_bus=bus,
                          pci_device_id=hex_id(files.get("device", "")) if files.get("device") else None,
                          pci_revision=hex_id(files.get("revision", ""), width=2) if files.get("revision") else None)
            gpu.sources.append(src(paths.get("device") or paths["vendor"], 1, files.get("device")))
            link = tree.links.get(f"/sys/bus/pci/devices/{bus}/driver")
            if link is not None:
                gpu.pci_driver = link.rstrip("/").rsplit("/", 1)[-1]
            elif our_capture:  # our capture records the link whenever one exists: none means no driver bound
                gpu.pci_driver = ""
            gpus.append(gpu)
        return gpus

    def _drm_gpus(self, tree: Tree) -> list[GpuInfo]:
        gpus = []
        for card in sorted(self.cards, key=lambda c: int(c[4:])):
            files = {k: tree.text(v) or "" for k, v in self.cards[card].items()}
            gpu = drm.parse_drm_card(card, files, f"root/sys/class/drm/{card}/device")
            if gpu is None:
                continue
            if gpu.pci_bus and gpu.pci_bus in self.render_by_slot:
                gpu.render_node = self.render_by_slot[gpu.pci_bus]
            gpus.append(gpu)
        return gpus


# host path pattern -> how a file matching it is grouped (checked in this order; the first match wins)
_GROUPS = (
    (_KFD_NODE, SysfsGpus._kfd_node),
    (_MEM_BANK, SysfsGpus._mem_bank),
    (_DRM_CARD, SysfsGpus._card_file),
    (_PCI_DEV, SysfsGpus._pci_file),
    (_RENDER_UEVENT, SysfsGpus._render_uevent),
)
