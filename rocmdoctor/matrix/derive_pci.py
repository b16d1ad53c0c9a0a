"""PCI ids the GPU table does not name: derived from pinned kernel and PCI ID Repository excerpts.

``matrices/gpus.toml`` maps the PCI ids of the GPUs in AMD's tables to their gfx. A report about an older or
unlisted board ("Opal XT [Radeon R7 M265] [1002:6604]", "amd radeon hd 8750m", "Navi 22") needs three more facts,
each from a machine-readable upstream file pinned under ``matrices/upstream/``:

* the chip the kernel drives for a PCI id: amdgpu's ``pciidlist`` (``{0x1002, 0x6604, ..., CHIP_OLAND|...}``),
  with its family from the ``#ifdef CONFIG_DRM_AMDGPU_SI`` / ``_CIK`` block it sits in;
* whether the kernel's compute driver serves that chip, and as which gfx target: kfd's ``kgd2kfd_probe``
  (``case CHIP_TONGA: gfx_target_version = 80002;``); a chip with no case there is "not supported in kfd", so
  no ROCm release can use it, whatever the user space;
* the codename and the product names the PCI ID Repository gives each AMD device id
  (``6600  Mars [Radeon HD 8670A/8670M/8750M / R7 M370]``), which is how people name their GPU in prose.

``rocmdoctor matrix update --offline`` rewrites ``matrices/pci_chips.toml`` from them; a test re-derives it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from rocmdoctor.errors import OperationFailed
from rocmdoctor.matrix.derive import Excerpt, read_excerpt
from rocmdoctor.parse.kfd import gfx_from_target_version

GENERATED = "matrices/pci_chips.toml"

_ID_ROW = re.compile(r"\{0x1002, 0x([0-9A-Fa-f]{4}), PCI_ANY_ID, PCI_ANY_ID, 0, 0, CHIP_([A-Z0-9_]+)")
_CASE = re.compile(r"^\s*case CHIP_([A-Z0-9_]+):")
_VERSION = re.compile(r"gfx_target_version = (\d{5,6});")
_DEVICE = re.compile(r"^\t([0-9a-f]{4})  (.+)$")
_FAMILIES = {"CONFIG_DRM_AMDGPU_SI": "GCN1 (SI)", "CONFIG_DRM_AMDGPU_CIK": "GCN2 (CIK)"}


@dataclass
class Chip:
    pci: str  # "0x6604"
    chip: str  # "OLAND"
    family: str  # "GCN1 (SI)"; "GCN3/4 (VI)" after the #ifdef blocks
    gfx: str = ""  # what kfd serves it as; "" when kfd has no case for the chip
    source: str = ""


@dataclass
class Names:
    pci: str
    codename: str  # "Mars", "Navi 22"
    products: list[str] = field(default_factory=list)  # "Radeon HD 8750M", "R7 M370"


@dataclass(frozen=True)
class PciSources:
    drv: Excerpt
    kfd: Excerpt
    ids: Excerpt


def load_sources(root: Path) -> PciSources:
    """The three excerpts (``root`` = ``matrices/upstream``); a missing one is an error, not an empty table."""
    drv = sorted((root / "linux").glob("*/amdgpu_drv.c.excerpt"))
    kfd = sorted((root / "linux").glob("*/kfd_device.c.excerpt"))
    ids = sorted((root / "pciutils" / "pciids").glob("*/pci.ids.excerpt"))
    if not (drv and kfd and ids):
        raise OperationFailed(f"incomplete PCI snapshots under {root}")
    return PciSources(read_excerpt(drv[-1]), read_excerpt(kfd[-1]), read_excerpt(ids[-1]))


def kfd_targets(ex: Excerpt) -> dict[str, str]:
    """CHIP name -> gfx for every ``case CHIP_X:`` of the legacy switch that sets a gfx_target_version."""
    out: dict[str, str] = {}
    pending: list[str] = []
    for _, line in ex.lines:
        m = _CASE.match(line)
        if m:
            pending.append(m.group(1))
            continue
        v = _VERSION.search(line)
        if v and pending:
            gfx = gfx_from_target_version(int(v.group(1)))
            for chip in pending:
                if gfx:
                    out[chip] = gfx
        if "break;" in line:
            pending = []
    if not out:
        raise OperationFailed(f"{ex.path}: no kfd targets parsed")
    return out


def chips(src: PciSources) -> list[Chip]:
    """Every PCI id of the pinned pciidlist with its chip, family and kfd target."""
    served = kfd_targets(src.kfd)
    family = "GCN3/4 (VI)"
    out: list[Chip] = []
    block: Optional[str] = None
    for _, line in src.drv.lines:
        t = line.strip()
        if t.startswith("#ifdef"):
            block = _FAMILIES.get(t.split()[-1])
            continue
        if t.startswith("#endif"):
            block = None
            continue
        m = _ID_ROW.search(line)
        if m:
            chip = m.group(2)
            out.append(Chip(f"0x{m.group(1).lower()}", chip, block or family, served.get(chip, ""),
                            src.drv.cite() + " ; " + src.kfd.cite()))
    if not out:
        raise OperationFailed(f"{src.drv.path}: no PCI ids parsed")
    return out


def _products(bracket: str) -> list[str]:
    """'Radeon HD 8670A/8670M/8750M / R7 M370' -> ['Radeon HD 8670A', 'Radeon HD 8670M', 'Radeon HD 8750M',
    'R7 M370']: a bare model number takes the series words of the name before it."""
    out: list[str] = []
    prefix = ""
    for group in bracket.split(" / "):
        for item in group.split("/"):
            item = item.strip()
            if not item:
                continue
            m = re.match(r"^(.*?)(\b[A-Z]{0,2}\d{3,4}[A-Z]{0,3}\b.*)$", item)
            if m and m.group(1).strip():
                prefix = m.group(1).strip()
                out.append(item)
            elif m and prefix:
                out.append(f"{prefix} {item}")
            else:
                out.append(item)
    return out


def names(src: PciSources) -> list[Names]:
    """Codename and product names of every AMD device id (vendor 1002 lines; subsystem lines skipped)."""
    out: list[Names] = []
    for _, line in src.ids.lines:
        m = _DEVICE.match(line)
        if not m:
            continue
        text = m.group(2).strip()
        b = re.search(r"\[([^\]]{1,200})\]\s*$", text)
        codename = text[:b.start()].strip() if b else text
        out.append(Names(f"0x{m.group(1)}", codename, _products(b.group(1)) if b else []))
    if len(out) < 100:
        raise OperationFailed(f"{src.ids.path}: too few AMD device ids parsed ({len(out)})")
    return out


def render(rows: list[Chip], named: list[Names], src: PciSources) -> str:
    out = ["# GENERATED by `rocmdoctor matrix update --offline` from matrices/upstream/ (matrix/derive_pci.py).",
           "# [[chip]]: amdgpu's pciidlist (the chip per PCI id) and kfd's kgd2kfd_probe (gfx = the target kfd serves",
           "# it as; \"\" = no case for the chip: 'not supported in kfd'). [[name]]: the PCI ID Repository's codename",
           "# and product names per AMD device id.",
           "schema = 1", f"chips_source = {json.dumps(src.drv.cite() + ' ; ' + src.kfd.cite())}",
           f"names_source = {json.dumps(src.ids.cite())}", ""]
    for c in rows:
        out += ["[[chip]]", f"pci = {json.dumps(c.pci)}", f"chip = {json.dumps(c.chip)}",
                f"family = {json.dumps(c.family)}", f"gfx = {json.dumps(c.gfx)}", ""]
    for n in named:
        out += ["[[name]]", f"pci = {json.dumps(n.pci)}", f"codename = {json.dumps(n.codename)}",
                "products = [" + ", ".join(json.dumps(p) for p in n.products) + "]", ""]
    return "\n".join(out)


def derive_text(root: Optional[Path] = None) -> str:
    from rocmdoctor.paths import MATRICES_DIR

    src = load_sources(root or Path(MATRICES_DIR) / "upstream")
    return render(chips(src), names(src), src)
