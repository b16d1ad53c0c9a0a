"""GPUs seen on the PCI bus with or without a driver: real capture of a fake root -> bundle -> checks."""

from __future__ import annotations

import os
from pathlib import Path

from rocmdoctor import capture
from rocmdoctor.bundle import load_host
from rocmdoctor.diagnose import judge_host


def fake_pci(root: Path, bus: str, klass: str, driver: str | None, device: str = "0x740f") -> None:
    dev = root / "sys/bus/pci/devices" / bus
    dev.mkdir(parents=True)
    for name, value in {"vendor": "0x1002", "device": device, "revision": "0x02", "class": klass,
                        "subsystem_vendor": "0x1002", "subsystem_device": "0x0c34"}.items():
        (dev / name).write_text(value + "\n")
    if driver is not None:
        target = root / "sys/bus/pci/drivers" / driver
        target.mkdir(parents=True, exist_ok=True)
        os.symlink(f"../../../bus/pci/drivers/{driver}", dev / "driver")


def judged(root: Path, tmp: Path):
    out = tmp / "bundle"
    capture.capture_to_dir(str(out), python=None, redact=False, timeout=5, root=str(root), skip=capture.QUICK_SKIP)
    host = load_host(out)
    return host, {f.id + ":" + f.severity.value for f in judge_host(host, select=["driver.not-bound"])}


def test_gpu_without_driver_fails_and_audio_function_is_ignored(tmp_path):
    root = tmp_path / "root"
    fake_pci(root, "0000:03:00.0", "0x038000", None)
    fake_pci(root, "0000:03:00.1", "0x040300", "snd_hda_intel", device="0xab28")  # the card's HDMI audio
    host, found = judged(root, tmp_path)
    assert [g.pci_bus for g in host.gpus] == ["0000:03:00.0"]
    assert host.gpus[0].pci_driver == "" and host.gpus[0].gfx == "gfx90a"  # named from the PCI id
    assert found == {"driver.not-bound:fail"}


def test_gpu_bound_to_amdgpu_is_ok_and_vfio_is_info(tmp_path):
    root = tmp_path / "root"
    fake_pci(root, "0000:03:00.0", "0x038000", "amdgpu")
    fake_pci(root, "0000:83:00.0", "0x120000", "vfio-pci")
    host, found = judged(root, tmp_path)
    assert {g.pci_driver for g in host.gpus} == {"amdgpu", "vfio-pci"}
    assert found == {"driver.not-bound:info"}


def test_hand_made_bundle_without_manifest_does_not_claim_unbound(tmp_path):
    dev = tmp_path / "b/root/sys/bus/pci/devices/0000:03:00.0"
    dev.mkdir(parents=True)
    (dev / "vendor").write_text("0x1002\n")
    (dev / "device").write_text("0x744c\n")
    (dev / "class").write_text("0x030000\n")
    host = load_host(tmp_path / "b")
    assert host.gpus and host.gpus[0].pci_driver is None
    assert {f.severity.value for f in judge_host(host, select=["driver.not-bound"])} == {"skip"}
