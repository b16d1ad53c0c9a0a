"""Lookups into the tables derived from pinned upstream excerpts (matrices/pci_chips.toml, matrices/windows.toml,
the TheRock families of matrices/torch_builds.toml): split from matrix/query.py, which holds the compatibility
lookups."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from rocmdoctor.matrix.types import MatrixData


def _norm_pci(device_id: str) -> Optional[str]:
    """"744C", "0x744c", "1002:744c" -> "0x744c"; None when it is not a 16-bit hex id."""
    s = device_id.strip().lower()
    if ":" in s and not s.startswith("0x"):
        s = s.split(":")[-1]
    s = s[2:] if s.startswith("0x") else s
    if not re.fullmatch(r"[0-9a-f]{1,4}", s):
        return None
    return "0x" + s.zfill(4)


@dataclass(frozen=True)
class DerivedLookups(MatrixData):
    """The derived tables' lookups (Matrix inherits them)."""

    def legacy_chip(self, device_id: str) -> Optional[tuple[str, str, str]]:
        """(chip, family, gfx kfd serves it as or "") for a PCI id of amdgpu's pre-Vega pciidlist."""
        dev = _norm_pci(device_id)
        return self.pci_chips.get(dev) if dev else None

    def pci_ids_named(self, name: str) -> tuple[str, ...]:
        """PCI ids the PCI ID Repository gives this product name or codename ('Radeon HD 8750M', 'Navi 22');
        the 'AMD'/'Radeon' prefixes are optional."""
        key = " ".join(name.lower().replace("(tm)", "").split())
        key = key.removeprefix("amd ").removeprefix("ati ")
        for k in (key, "radeon " + key, key.removeprefix("radeon ")):
            if k in self.pci_by_name:
                return self.pci_by_name[k]
        return ()

    def therock_family(self, name: str) -> Optional[tuple[tuple[str, ...], str]]:
        """(gfx targets, source) of one of TheRock's per-family indexes ("gfx110X-dgpu"), None when unknown."""
        return self.therock_families.get(name.strip().strip("/").lower())

    def windows_list(self, version: str) -> Optional[tuple[frozenset[str], frozenset[str], tuple[str, ...]]]:
        """The HIP SDK for Windows' GPU list for a release named by major.minor ('6.2', from 'C:\\...\\ROCm\\6.2')
        or in full: (targets with Runtime ✅ in any of that series' releases, targets on any row, sources); None when
        no release of the series is in the data (before 6.0, after 6.2.4)."""
        series = ".".join(version.split(".")[:2])
        rows = [(v, row) for v, row in self.windows_sdk.items() if v == version or v.rsplit(".", 1)[0] == series]
        if not rows:
            return None
        return (frozenset(g for _, row in rows for g in row[0]), frozenset(g for _, row in rows for g in row[2]),
                tuple(row[3] for _, row in rows))
