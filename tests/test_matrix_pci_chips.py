"""matrices/pci_chips.toml is derived by code from pinned Linux and PCI ID Repository excerpts; each spot fact
below was read in the upstream file (line given), never taken from the tool's output."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from rocmdoctor import matrix as mx
from rocmdoctor.errors import OperationFailed
from rocmdoctor.matrix import derive_pci as dp
from rocmdoctor.model import GpuInfo, Host, Severity

REPO = Path(__file__).resolve().parent.parent
UPSTREAM = REPO / "matrices" / "upstream"


@pytest.fixture(scope="module")
def m() -> mx.Matrix:
    return mx.load(use_cache=False)


def test_committed_table_is_the_derivation() -> None:
    assert (REPO / "matrices" / "pci_chips.toml").read_text(encoding="utf-8") == dp.derive_text(UPSTREAM)


@pytest.mark.parametrize(("pci", "chip", "family", "gfx"), [
    ("0x6604", "OLAND", "GCN1 (SI)", ""),  # amdgpu_drv.c L1617; no case CHIP_OLAND in kgd2kfd_probe
    ("0x6780", "TAHITI", "GCN1 (SI)", ""),  # L1588
    ("0x6649", "BONAIRE", "GCN2 (CIK)", ""),  # L1690; no case CHIP_BONAIRE
    ("0x67a0", "HAWAII", "GCN2 (CIK)", "gfx701"),  # L1698; kfd_device.c L211-212: gfx_target_version = 70001
    ("0x6939", "TONGA", "GCN3/4 (VI)", "gfx802"),  # L1760; kfd_device.c L221-222: 80002
    ("0x67ef", "POLARIS11", "GCN3/4 (VI)", "gfx803"),  # L1777; kfd_device.c L234-235: 80003
    ("0x98e4", "STONEY", "GCN3/4 (VI)", ""),  # L1771; no case CHIP_STONEY
])
def test_chip_family_and_kfd_target(m: mx.Matrix, pci: str, chip: str, family: str, gfx: str) -> None:
    assert m.legacy_chip(pci) == (chip, family, gfx)


def test_pci_id_repository_names(m: mx.Matrix) -> None:
    # pci.ids L2311: "6600  Mars [Radeon HD 8670A/8670M/8750M / R7 M370]", L4110: "73df  Navi 22 [Radeon RX 6700/...]"
    assert m.pci_ids_named("AMD Radeon HD 8750M") == ("0x6600",)
    assert m.pci_ids_named("radeon r7 m370") == ("0x6600",)
    assert "0x73df" in m.pci_ids_named("Navi 22")
    assert m.pci_ids_named("Radeon HD 9999M") == ()


def test_a_missing_or_empty_excerpt_fails_closed(tmp_path: Path) -> None:
    root = tmp_path / "upstream"
    shutil.copytree(UPSTREAM, root)
    shutil.rmtree(root / "linux")
    with pytest.raises(OperationFailed, match="incomplete"):
        dp.load_sources(root)
    shutil.copytree(UPSTREAM / "linux", root / "linux")
    kfd = next((root / "linux").glob("*/kfd_device.c.excerpt"))
    head = kfd.read_text(encoding="utf-8").split("---\n")[0]
    kfd.write_text(head.replace("# lines: 193-251", "# lines: 1-1") + "---\n    1| nothing here\n", encoding="utf-8")
    with pytest.raises(OperationFailed, match="no kfd targets"):
        dp.derive_text(root)


@pytest.mark.parametrize(("line", "verdict"), [
    # ROCm/legacy-rocm-build#1492: lspci's Opal XT (Oland) is no ROCm GPU
    ("05:00.0 Display controller [0380]: Advanced Micro Devices, Inc. [AMD/ATI] Opal XT [Radeon R7 M265/M365X/M465] "
     "[1002:6604]", Severity.FAIL),
    ("GPU: amd radeon hd 8750m", Severity.FAIL),  # ROCm/legacy-rocm-build#3897 (pci.ids 6600 Mars -> OLAND)
])
def test_a_gpu_kfd_never_serves_is_unsupported(tmp_path: Path, line: str, verdict: Severity) -> None:
    from rocmdoctor.bundle import load_host
    from rocmdoctor.diagnose import judge_host

    p = tmp_path / "paste.txt"
    p.write_text(line + "\n")
    found = [f for f in judge_host(load_host(p)) if f.id == "gpu.arch-unsupported"]
    assert [f.severity for f in found] == [verdict]
    assert "Oland" in found[0].title


def test_a_kfd_served_legacy_chip_gets_its_gfx(m: mx.Matrix) -> None:
    from rocmdoctor.diagnose import enrich

    host = Host(gpus=[GpuInfo(index=0, pci_device_id="0x67a0")])  # Hawaii: kfd serves it as gfx701
    enrich(host, m)
    assert host.gpus[0].gfx == "gfx701" and host.gpus[0].chip_without_kfd is None


@pytest.mark.parametrize(("name", "gfx"), [
    ("RX 570", "gfx803"),  # amdgpu.ids 67DF 'AMD Radeon RX 570 Series'; it had matched 'RX 5700' (gfx1010)
    ("RX 5700", "gfx1010"),
    ("RX 560", "gfx803"),  # amdgpu.ids 67EF 'AMD Radeon RX 560 Series' -> Polaris 11, kfd: 80003
    ("RX 6700", "gfx1031"),
])
def test_product_names_match_whole_words(m: mx.Matrix, name: str, gfx: str) -> None:
    target = m.gpu(name)
    assert target is not None and target.gfx == gfx
