"""Fake machines for the capture tests: a ROCMDOCTOR_ROOT built from real captures in ../shared/captures."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

CAPTURES = Path("/work/shared/captures")
MI210 = CAPTURES / "mi210-x4-gfx90a-rocm6.0-hip-invalid-argument"
RX6700 = CAPTURES / "rx6700xt-gfx1031-override-in-rocminfo"

# Identifying values planted in the fake host; --redact must remove every one of them.
HOSTNAME = "grom-desktop"  # the real host name in the rx6700xt rocm-smi paste
USER = "zelda"
OTHER_USER = "ganondorf"
GPU_UUIDS = ("209951be100ce86a", "2c0c6a9ce4219723", "28245c4c823f5e8d", "b34d8a37a141e632")  # MI210 rocminfo
DRM_SERIAL = "692251000581"
DRM_UNIQUE_ID = "8c4f5b1e2a3d7f90"
KFD_UNIQUE_ID = "9876543210123456789"
SMI_UUID = "de74a2f1-0000-1000-80c2-7e1a3b9d5f22"
ASIC_SERIAL = "0x8C4F5B1E2A3D7F91"
PRODUCT_SERIAL = "PCB7788990011"
MAC = "3c:7c:3f:1a:2b:4c"
SECRETS = (HOSTNAME, USER, OTHER_USER, *GPU_UUIDS, DRM_SERIAL, DRM_UNIQUE_ID, KFD_UNIQUE_ID, SMI_UUID,
           ASIC_SERIAL, PRODUCT_SERIAL, MAC)

KFD_GPU_PROPERTIES = f"""cpu_cores_count 0
simd_count 416
gfx_target_version 90010
vendor_id 4098
device_id 29711
location_id 49920
domain 0
unique_id {KFD_UNIQUE_ID}
"""


def _write(root: Path, rel: str, text: str | bytes, mode: int | None = None) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    if mode is not None:
        path.chmod(mode)
    return path


def build_fake_root(root: Path) -> Path:
    """A 4x MI210 host presented below ``root``: sysfs/etc files plus recorded command outputs in .cmd/."""
    _write(root, "etc/os-release", 'NAME="Ubuntu"\nID=ubuntu\nVERSION_ID="22.04"\nPRETTY_NAME="Ubuntu 22.04.3 LTS"\n')
    _write(root, "etc/hostname", HOSTNAME + "\n")
    _write(root, "proc/version", "Linux version 6.5.0-14-generic (buildd@lcy02-amd64-110) (gcc 12.3.0) #14~22.04.1\n")
    _write(root, "proc/cmdline", "BOOT_IMAGE=/vmlinuz-6.5.0-14-generic root=/dev/nvme0n1p2 ro quiet\n")
    _write(root, "proc/modules", "amdgpu 17100800 4 - Live 0x0000000000000000\namdxcp 16384 1 amdgpu, Live 0x0\n")
    _write(root, "sys/module/amdgpu/version", "6.3.6\n")
    _write(root, "etc/passwd", f"root:x:0:0:root:/root:/bin/bash\nsyslog:x:104:110::/home/syslog:/usr/sbin/nologin\n"
           f"{USER}:x:1000:1000:Zelda:/home/{USER}:/bin/bash\n{OTHER_USER}:x:1001:1001::/home/{OTHER_USER}:/bin/sh\n")
    _write(root, "etc/group", f"root:x:0:\nadm:x:4:syslog,{USER}\nvideo:x:44:{USER}\nrender:x:109:{USER},{OTHER_USER}\n"
           f"{USER}:x:1000:\ndocker:x:998:{OTHER_USER}\n")
    for node, name in ((0, ""), (1, "gfx90a")):
        base = f"sys/class/kfd/kfd/topology/nodes/{node}"
        _write(root, f"{base}/properties", KFD_GPU_PROPERTIES if node else "cpu_cores_count 64\nsimd_count 0\n")
        _write(root, f"{base}/name", name + "\n")
        _write(root, f"{base}/gpu_id", ("0" if node == 0 else "61797") + "\n")
    dev = "sys/class/drm/card0/device"
    for name, value in (("vendor", "0x1002"), ("device", "0x740f"), ("revision", "0x02"),
                        ("subsystem_vendor", "0x1002"), ("subsystem_device", "0x0c34"),
                        ("current_link_speed", "16.0 GT/s PCIe"), ("current_link_width", "16"),
                        ("uevent", "DRIVER=amdgpu\nPCI_ID=1002:740F\nPCI_SLOT_NAME=0000:c1:00.0\n"),
                        ("serial_number", DRM_SERIAL), ("unique_id", DRM_UNIQUE_ID)):
        _write(root, f"{dev}/{name}", value + "\n")
    _write(root, "sys/class/drm/card0-DP-1/device/vendor", "0xdead\n")  # a connector: must not be copied
    _write(root, "sys/class/drm/card0-DP-1/status", "disconnected\n")
    _write(root, "opt/rocm-6.0.2/.info/version", "6.0.2-115\n")
    _write(root, "opt/rocm-5.7.1/.info/version", "5.7.1-98\n")
    os.symlink("rocm-6.0.2", root / "opt/rocm")
    _write(root, "dev/kfd", b"", 0o660)
    _write(root, "dev/dri/renderD128", b"", 0o660)
    _write(root, "dev/dri/card0", b"", 0o600)

    cmd = root / ".cmd"
    cmd.mkdir()
    (cmd / "rocminfo.txt").write_bytes((MI210 / "rocminfo.txt").read_bytes())
    (cmd / "rocm-smi.txt").write_bytes((RX6700 / "rocm-smi.txt").read_bytes())  # header names grom-desktop
    (cmd / "uname-a.txt").write_text(f"Linux {HOSTNAME} 6.5.0-14-generic #14~22.04.1-Ubuntu SMP x86_64 GNU/Linux\n")
    (cmd / "uname-r.txt").write_text("6.5.0-14-generic\n")
    (cmd / "id.txt").write_text(f"uid=1000({USER}) gid=1000({USER}) groups=1000({USER}),44(video),109(render)\n")
    (cmd / "amd-smi-static.json").write_text(json.dumps([{
        "gpu": 0, "asic": {"market_name": "AMD Instinct MI210", "device_id": "0x740f", "asic_serial": ASIC_SERIAL},
        "board": {"product_serial": PRODUCT_SERIAL, "product_name": "N/A"}, "uuid": SMI_UUID}], indent=2))
    (cmd / "dkms-status.txt").write_text("amdgpu/6.3.6-1718217.22.04, 6.5.0-14-generic, x86_64: installed\n")
    (cmd / "dkms-status.stderr").write_text("Error! Could not locate dkms.conf file.\n")
    (cmd / "dkms-status.exit").write_text("1\n")
    (cmd / "dmesg.txt").write_text(f"[    2.1] igb 0000:05:00.0 enp5s0: renamed, MAC {MAC}\n"
                                   f"[    9.9] amdgpu 0000:c1:00.0: amdgpu: SMU is initialized successfully!\n"
                                   f"[   12.0] systemd-hostnamed: hostname set to {HOSTNAME}\n")
    (cmd / "pip-freeze.txt").write_text(f"torch==2.1.2+rocm5.6\nmypkg @ file:///home/{USER}/src/mypkg\n")
    (cmd / "env.txt").write_text(f"PATH=/home/{USER}/.local/bin:/usr/bin\nHSA_OVERRIDE_GFX_VERSION=9.0.10\n"
                                 f"HF_TOKEN=hf_abcdefSECRET\nAMD_API_KEY=sk-SECRET\nHOME=/home/{USER}\n")
    for missing in ("lspci", "docker-info", "rocm-smi-showhw", "rocm-smi-productname", "amd-smi-metric",
                    "hipconfig", "hipconfig-full", "rocm_agent_enumerator", "pip-list"):
        (cmd / f"{missing}.missing").write_text("")
    return root


def fake_bin(directory: Path, names: list[str], body: str) -> Path:
    """Executable shell scripts named ``names`` in ``directory`` (first on PATH in the tests)."""
    directory.mkdir(parents=True, exist_ok=True)
    for name in names:
        path = directory / name
        path.write_text("#!/bin/sh\n" + body + "\n")
        path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return directory
