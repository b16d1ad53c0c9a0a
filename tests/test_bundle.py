"""load_host: bundle directories, tar bundles (safely), bare pasted files, and what is refused."""

from __future__ import annotations

import io
import json
import os
import tarfile
from pathlib import Path

import pytest

from rocmdoctor.bundle import load_host
from rocmdoctor.errors import BadInput
from rocmdoctor.limits import LIMITS
from tests.parse_helpers import CAPTURES, KFD_CPU, capture, kfd_gpu, write_bundle

RX6700 = "rx6700xt-gfx1031-override-in-rocminfo"


def full_bundle(top: Path) -> Path:
    """A bundle of an RX 6700 XT host with HSA_OVERRIDE_GFX_VERSION set (real rocminfo/rocm-smi text)."""
    manifest = {
        "format": "rocmdoctor-capture/1", "created": "2026-04-12T21:17:48Z", "tool": "rocmdoctor 0.1.0",
        "hostname": "grom-desktop", "links": {"/opt/rocm": "rocm-6.2.2"},
        "commands": [
            {"argv": ["rocminfo"], "file": "cmd/rocminfo.txt", "exit": 0},
            {"argv": ["amd-smi", "static", "--json"], "file": None, "exit": None, "missing": True},
            {"argv": ["dkms", "status"], "file": "cmd/dkms-status.txt", "exit": 3},
        ],
        "errors": [],
    }
    return write_bundle(top, {
        "manifest.json": json.dumps(manifest),
        "root/etc/os-release": 'NAME="Ubuntu"\nVERSION="22.04.4 LTS (Jammy Jellyfish)"\nID=ubuntu\n'
                               'ID_LIKE=debian\nVERSION_ID="22.04"\n',
        "root/proc/version": "Linux version 6.5.0-14-generic (buildd@x) (gcc) #14~22.04.1-Ubuntu SMP\n",
        "root/proc/cmdline": "BOOT_IMAGE=/vmlinuz-6.5.0-14-generic ro quiet splash\n",
        "root/proc/modules": "amdgpu 15286272 12 - Live 0x0000000000000000\ndrm 1 0 - Live 0x0\n",
        "root/sys/module/amdgpu/version": "6.8.5\n",
        "root/sys/class/kfd/kfd/topology/nodes/0/properties": KFD_CPU,
        "root/sys/class/kfd/kfd/topology/nodes/1/properties": kfd_gpu(100301, 0x73DF, 768),
        "root/sys/class/drm/card0/device/vendor": "0x1002\n",
        "root/sys/class/drm/card0/device/device": "0x73df\n",
        "root/sys/class/drm/card0/device/revision": "0xc1\n",
        "root/sys/class/drm/card0/device/uevent": "DRIVER=amdgpu\nPCI_ID=1002:73DF\nPCI_SLOT_NAME=0000:03:00.0\n",
        "root/sys/class/drm/card0/device/mem_info_vram_total": "12868124672\n",
        "root/sys/class/drm/card1/device/vendor": "0x8086\n",
        "root/sys/class/drm/card0-DP-1/device/vendor": "0x1002\n",
        "root/sys/class/drm/renderD128/device/uevent": "PCI_SLOT_NAME=0000:03:00.0\n",
        "root/opt/rocm/.info/version": "6.2.2-116\n",
        "root/opt/rocm-6.2.2/.info/version": "6.2.2-116\n",
        "root/opt/rocm-5.7.1/.info/version": "5.7.1-98\n",
        "root/etc/group": "root:x:0:\nvideo:x:44:alex\nrender:x:110:\n",
        "root/.dockerenv": "",
        "cmd/rocminfo.txt": capture(RX6700, "rocminfo.txt"),
        "cmd/rocm-smi.txt": capture(RX6700, "rocm-smi.txt"),
        "cmd/uname-a.txt": "Linux grom-desktop 6.5.0-14-generic #14~22.04.1-Ubuntu SMP x86_64 GNU/Linux\n",
        "cmd/uname-r.txt": "6.5.0-14-generic\n",
        "cmd/id.txt": "uid=1000(alex) gid=1000(alex) groups=1000(alex),44(video)\n",
        "cmd/stat-dev.txt": "/dev/kfd 660 root render 0 110\n/dev/dri/renderD128 660 root render 0 110\n",
        "cmd/dkms-status.txt": "",
        "cmd/dkms-status.stderr": "Error! Could not locate dkms.conf file.\n",
        "cmd/hipconfig.txt": "6.2.41133-dd7f95766\n",
        "cmd/pip-freeze.txt": "torch==2.5.1+rocm6.2\nnumpy==1.26.4\n",
        "cmd/torch-probe.json": json.dumps({
            "python": {"executable": "/home/alex/venv/bin/python", "version": "3.11.7",
                       "implementation": "cpython", "tags": ["cp311-cp311-manylinux_2_28_x86_64"]},
            "distributions": {"torch": "2.5.1+rocm6.2"},
            "torch": {"version": "2.5.1+rocm6.2", "hip": "6.2.41133-dd7f95766", "cuda": None,
                      "bundled_libs": ["libamdhip64.so"]}}),
        "cmd/docker-info.json": '{"ServerVersion": "24.0.7", "Runtimes": {"runc": {}}, "DefaultRuntime": "runc"}',
        "cmd/rocm_agent_enumerator.txt": "gfx000\ngfx1030\n",
        "env.txt": "HSA_OVERRIDE_GFX_VERSION=10.3.0\nPATH=/usr/bin\nHIP_API_TOKEN=secret\nHOME=/home/alex\n",
        "logs/train.log": "step 1\nRuntimeError: HIP error: invalid device function\n",
        "expected.json": "{}",
        "NOTES.md": "hipErrorNoDevice mentioned in notes must not count",
    })


def test_full_bundle_directory(tmp_path):
    host = load_host(full_bundle(tmp_path / "b"))
    assert host.hostname == "grom-desktop" and host.created == "2026-04-12T21:17:48Z"
    assert {"rocminfo", "kfd", "drm", "os-release", "uname", "dkms", "pip", "torch-probe", "id", "stat-dev",
            "env", "logs", "rocm-smi", "modules", "rocm-info-version", "hipconfig", "docker-info", "group",
            "rocm_agent_enumerator", "proc-version", "cmdline", "module-version"} <= host.captured
    assert "amd-smi" not in host.captured and host.commands_missing == ["amd-smi"]
    assert (host.os.id, host.os.version_id, host.os.version) == ("ubuntu", "22.04", "22.04.4")
    assert host.kernel.release == "6.5.0-14-generic" and host.kernel.source is not None
    assert host.kernel.source.file == "cmd/uname-r.txt" and host.kernel.machine == "x86_64"
    assert host.cmdline is not None and host.cmdline.value.endswith("quiet splash")
    assert host.amdgpu_loaded is not None and host.amdgpu_loaded.value is True
    assert host.amdgpu_loaded.source.file == "root/proc/modules"
    assert host.amdgpu_version is not None and host.amdgpu_version.value == "6.8.5"
    # One GPU, seen by five sources; the override stays visible.
    assert len(host.gpus) == 1
    gpu = host.gpus[0]
    assert gpu.gfx_by_source == {"kfd": "gfx1031", "rocminfo": "gfx1030", "rocm_agent_enumerator": "gfx1030"}
    assert gpu.gfx == "gfx1031"
    assert (gpu.pci_device_id, gpu.pci_revision, gpu.pci_bus) == ("0x73df", "0xc1", "0000:03:00.0")
    assert (gpu.drm_card, gpu.render_node, gpu.kfd_node) == ("card0", "renderD128", 1)
    assert gpu.name == "AMD Radeon RX 6700 XT"
    assert {s.file for s in gpu.sources} >= {"root/sys/class/kfd/kfd/topology/nodes/1/properties",
                                             "cmd/rocminfo.txt", "root/sys/class/drm/card0/device/vendor"}
    assert host.cpu_model == "12th Gen Intel(R) Core(TM) i3-12100F"
    # /opt/rocm is the link to rocm-6.2.2: two installs, the default is 6.2.2.
    assert sorted((i.path, i.version) for i in host.rocm_installs) == [("/opt/rocm-5.7.1", "5.7.1"),
                                                                         ("/opt/rocm-6.2.2", "6.2.2")]
    assert host.rocm_version is not None and host.rocm_version.value == "6.2.2"
    assert host.hip_version is not None and host.hip_version.value == "6.2.41133-dd7f95766"
    assert host.dkms is not None and {e.value for e in host.dkms.errors} == {
        "Error! Could not locate dkms.conf file.", "dkms status exited with status 3"}
    assert host.torch is not None and host.torch.build == "rocm" and host.torch.source.file == "cmd/torch-probe.json"
    assert host.python.platform_tags == ["cp311-cp311-manylinux_2_28_x86_64"]
    assert host.packages["torch"] == "2.5.1+rocm6.2" and host.packages["numpy"] == "1.26.4"
    assert host.user is not None and host.user.groups == ["alex", "video"]
    assert [(n.path, n.group) for n in host.device_nodes] == [("/dev/kfd", "render"), ("/dev/dri/renderD128", "render")]
    assert host.groups_file == {"root": 0, "video": 44, "render": 110}
    assert host.env == {"HSA_OVERRIDE_GFX_VERSION": "10.3.0", "PATH": "/usr/bin"}
    assert [(m.signature, m.source.file, m.source.line) for m in host.logs] == [
        ("invalid-device-function", "logs/train.log", 2)]
    assert host.container is not None and host.container.in_container is True
    assert host.container.docker_reachable is True and host.container.docker_runtimes == ["runc"]
    json.dumps(host.to_dict(), default=str)  # report-ready


def _tar(path: Path, src: Path, prefix: str = "") -> Path:
    with tarfile.open(path, "w:gz") as tf:
        for p in sorted(src.rglob("*")):
            tf.add(p, arcname=prefix + p.relative_to(src).as_posix(), recursive=False)
    return path


@pytest.mark.parametrize("prefix", ["", "bundle-host1/"])
def test_tar_bundle_reads_like_the_directory(tmp_path, prefix):
    d = full_bundle(tmp_path / "b")
    from_dir = load_host(d).to_dict()
    from_tar = load_host(_tar(tmp_path / "b.tar.gz", d, prefix)).to_dict()
    from_dir.pop("origin")
    from_tar.pop("origin")
    assert from_tar == from_dir


def _evil(tmp_path: Path, add) -> Path:
    path = tmp_path / "evil.tar.gz"
    with tarfile.open(path, "w:gz") as tf:
        ok = tarfile.TarInfo("cmd/uname-r.txt")
        ok.size = 6
        tf.addfile(ok, io.BytesIO(b"6.5.0\n"))
        add(tf)
    return path


def _member(name: str, kind: bytes = tarfile.REGTYPE, link: str = "", data: bytes = b"x"):
    def add(tf: tarfile.TarFile) -> None:
        info = tarfile.TarInfo(name)
        info.type = kind
        info.linkname = link
        info.size = len(data) if kind == tarfile.REGTYPE else 0
        tf.addfile(info, io.BytesIO(data) if kind == tarfile.REGTYPE else None)
    return add


@pytest.mark.parametrize(
    ("add", "message"),
    [
        (_member("/etc/passwd"), "absolute path"),
        (_member("../../outside.txt"), "'..'"),
        (_member("cmd/../../x"), "'..'"),
        (_member("root/opt/rocm", tarfile.SYMTYPE, "/opt/rocm-6.0.2"), "points outside"),
        (_member("logs/a", tarfile.SYMTYPE, "../../../etc/shadow"), "points outside"),
        (_member("logs/b", tarfile.LNKTYPE, "../etc/shadow"), "points outside"),
        (_member("root/dev/kfd", tarfile.CHRTYPE), "device"),
        (_member("root/dev/fifo", tarfile.FIFOTYPE), "device or fifo"),
    ],
)
def test_unsafe_tar_members_are_refused(tmp_path, add, message):
    with pytest.raises(BadInput, match=message.replace("(", r"\(").replace(".", r"\.")):
        load_host(_evil(tmp_path, add))
    assert not (tmp_path.parent / "outside.txt").exists()


def test_link_inside_the_bundle_is_fine(tmp_path):
    host = load_host(_evil(tmp_path, _member("logs/copy", tarfile.SYMTYPE, "../cmd/uname-r.txt")))
    assert host.kernel.release == "6.5.0"


def test_size_bomb_and_member_flood_are_refused(tmp_path, monkeypatch):
    monkeypatch.setitem(LIMITS, "bundle-bytes", 1024 * 1024)
    zeros = 8 * 1024 * 1024
    bomb = _evil(tmp_path, _member("logs/zeros.log", data=b"\0" * zeros))
    assert bomb.stat().st_size < zeros // 100  # compresses to almost nothing: a real bomb for this limit
    with pytest.raises(BadInput, match="over the limit bundle-bytes"):
        load_host(bomb)
    monkeypatch.setitem(LIMITS, "members", 50)
    path = tmp_path / "many.tar.gz"
    with tarfile.open(path, "w:gz") as tf:
        for i in range(60):
            info = tarfile.TarInfo(f"logs/{i}.log")
            tf.addfile(info, io.BytesIO(b""))
    with pytest.raises(BadInput, match=r"more than 50 members.*over the limit members"):
        load_host(path)


def test_corrupt_and_truncated_archives(tmp_path):
    good = _tar(tmp_path / "b.tar.gz", full_bundle(tmp_path / "b"))
    cut = tmp_path / "cut.tar.gz"
    cut.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    with pytest.raises(BadInput, match="corrupt or truncated"):
        load_host(cut)
    junk = tmp_path / "junk.tgz"
    junk.write_bytes(b"this is not a tar file at all\n" * 10)
    with pytest.raises(BadInput, match="not a readable"):
        load_host(junk)


def test_bad_paths(tmp_path):
    with pytest.raises(BadInput, match="no such file"):
        load_host(tmp_path / "missing")
    (tmp_path / "empty.txt").write_text("  \n")
    with pytest.raises(BadInput, match="empty"):
        load_host(tmp_path / "empty.txt")
    (tmp_path / "blob.bin").write_bytes(bytes(range(256)) * 64)
    with pytest.raises(BadInput, match="binary"):
        load_host(tmp_path / "blob.bin")
    (tmp_path / "emptydir").mkdir()
    with pytest.raises(BadInput, match="nothing rocmdoctor recognises"):
        load_host(tmp_path / "emptydir")
    (tmp_path / "pics").mkdir()
    (tmp_path / "pics" / "shot.png").write_bytes(b"\x89PNG\r\n")
    (tmp_path / "pics" / "README.md").write_text("hipErrorNoDevice")
    with pytest.raises(BadInput, match="nothing rocmdoctor recognises"):
        load_host(tmp_path / "pics")


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root reads any file")
def test_unreadable_file(tmp_path):
    f = tmp_path / "rocminfo.txt"
    f.write_text("Name: gfx90a\n")
    f.chmod(0)
    try:
        with pytest.raises(BadInput, match="cannot read"):
            load_host(f)
    finally:
        f.chmod(0o644)


def test_directory_link_leaving_the_bundle_is_skipped(tmp_path):
    outside = tmp_path / "secret.txt"
    outside.write_text("uid=0(root) gid=0(root)\n")
    d = write_bundle(tmp_path / "b", {"cmd/uname-r.txt": "6.5.0-14-generic\n"})
    os.symlink(outside, d / "cmd" / "id.txt")
    host = load_host(d)
    assert host.user is None
    assert any("outside the bundle" in n for n in host.parse_notes)


BARE = [
    ("rocminfo.txt", "$ rocminfo | grep gfx\n  Name:                    gfx1031\n", "rocminfo",
     lambda h: [g.gfx for g in h.gpus] == ["gfx1031"]),
    ("ce.txt", "PyTorch version: 2.3.0+rocm6.0\nIs debug build: False\nIs CUDA available: False\n", "collect_env",
     lambda h: h.torch is not None and h.torch.cuda_available is False),
    ("d.txt", "amdgpu/6.3.6-1697589.22.04, 6.5.0-14-generic, x86_64: installed\n", "dkms",
     lambda h: h.dkms is not None and h.dkms.entries[0].kernel == "6.5.0-14-generic"),
    ("smi.txt", "GPU[0]\t\t: GFX Version: \t\tgfx90a\n", "rocm-smi", lambda h: h.gpus[0].gfx == "gfx90a"),
    ("a.json", '[{"gpu": 0, "asic": {"target_graphics_version": "gfx942", "device_id": "0x74a1"}}]', "amd-smi",
     lambda h: h.gpus[0].gfx_by_source == {"amd-smi": "gfx942"}),
    ("f.txt", "torch==2.4.1+rocm6.1\ntorchvision==0.19.1+rocm6.1\n", "pip",
     lambda h: h.torch is not None and h.torch.version == "2.4.1+rocm6.1"),
    ("l.json", '[{"name": "torch", "version": "2.4.1+cpu"}]', "pip", lambda h: h.packages == {"torch": "2.4.1+cpu"}),
    ("e.txt", "λ rocm_agent_enumerator\r\ngfx000\r\ngfx1100\r\n", "rocm_agent_enumerator",
     lambda h: [g.gfx for g in h.gpus] == ["gfx1100"]),
    ("p.txt", "03:00.0 VGA compatible controller [0300]: Advanced Micro Devices, Inc. [AMD/ATI] Navi 31 "
              "[1002:744c] (rev c8)\n\tKernel driver in use: amdgpu\n", "lspci",
     lambda h: h.gpus[0].pci_device_id == "0x744c" and h.amdgpu_loaded is not None),
    ("t.json", '{"python": {"version": "3.12.1"}, "torch": null}', "torch-probe",
     lambda h: h.torch is None and h.python.version == "3.12.1"),
    ("k.txt", "gfx_target_version 110000\nvendor_id 4098\ndevice_id 29772\n", "kfd",
     lambda h: h.gpus[0].gfx_by_source == {"kfd": "gfx1100"}),
    ("u.txt", "Linux box 5.15.153.1-microsoft-standard-WSL2 #1 SMP x86_64 GNU/Linux\n", "uname",
     lambda h: h.kernel.is_wsl and h.hostname == "box"),
    ("i.txt", "uid=1000(bob) gid=1000(bob) groups=1000(bob),44(video)\n", "id", lambda h: h.user.name == "bob"),
    ("s.txt", "/dev/kfd 660 root render 0 109\n", "stat-dev", lambda h: h.device_nodes[0].gid == 109),
    ("o.txt", 'PRETTY_NAME="Ubuntu 24.04.1 LTS"\nID=ubuntu\nVERSION_ID="24.04"\n', "os-release",
     lambda h: h.os.version == "24.04.1"),
    ("dm.txt", "[    4.1] [drm] amdgpu version: 6.8.5\n[    4.2] amdgpu 0000:03:00.0: amdgpu: SMU is initialized\n",
     "dmesg", lambda h: h.amdgpu_version.value == "6.8.5" and len(h.dmesg) == 2),
    ("m.txt", "amdgpu  20152320  0\ndrm_ttm_helper 16384 2 qxl,amdgpu\n", "modules", lambda h: h.amdgpu_loaded.value),
    ("h.txt", "HIP version  : 6.0.32830-d62f6a171\n", "hipconfig", lambda h: h.rocm_version.value == "6.0"),
    ("v.txt", "6.2.2-116\n", "rocm-info-version", lambda h: h.rocm_version.value == "6.2.2"),
    ("dk.json", '{"ServerVersion": "24.0", "Runtimes": {"runc": {}}}', "docker-info",
     lambda h: h.container.docker_reachable),
    ("dk.txt", "$ dkms status\nError! Could not locate dkms.conf file.\nFile: /var/lib/dkms/amdgpu/x/source/dkms.conf "
               "does not exist.\n", "dkms", lambda h: len(h.dkms.errors) == 2 and h.dkms.entries == []),
    ("lsb.txt", "Distributor ID: Ubuntu\nDescription:    Ubuntu 22.04.5 LTS\nRelease:        22.04\n", "lsb_release",
     lambda h: (h.os.id, h.os.version) == ("ubuntu", "22.04.5")),
    ("cpu.txt", "$ lscpu\nModel name:             AMD Ryzen 7 PRO 7840U w/ Radeon 780M Graphics\n", "lscpu",
     lambda h: h.cpu_model.startswith("AMD Ryzen 7")),
    ("show.txt", "Name: torch\nVersion: 2.6.0.dev20240918+rocm6.2\nLocation: /x/site-packages\n", "pip-show",
     lambda h: h.torch.version == "2.6.0.dev20240918+rocm6.2" and h.torch.location == "/x/site-packages"),
    ("env.txt", "HSA_OVERRIDE_GFX_VERSION=11.0.0\nGITHUB_TOKEN=x\n", "env",
     lambda h: h.env == {"HSA_OVERRIDE_GFX_VERSION": "11.0.0"}),
    ("pv.txt", "Linux version 5.15.153.1-microsoft-standard-WSL2 (root@x) (gcc) #1 SMP\n", "proc-version",
     lambda h: h.kernel.is_wsl),
    ("err.log", "Traceback...\nRuntimeError: No HIP GPUs are available\n", "logs",
     lambda h: [m.finding_id for m in h.logs] == ["log.no-hip-gpus"]),
]


@pytest.mark.parametrize(("name", "text", "part", "check"), BARE, ids=[b[2] + ":" + b[0] for b in BARE])
def test_bare_file_is_sniffed(tmp_path, name, text, part, check):
    f = tmp_path / name
    f.write_bytes(text.encode())
    host = load_host(f)
    assert part in host.captured, host.captured
    assert check(host)
    assert all(s.file == name for g in host.gpus for s in g.sources)


def test_bare_free_text_without_signature_is_accepted_as_a_log(tmp_path):
    f = tmp_path / "notes.txt"
    f.write_bytes(b"some words \xff\xfe that are not any tool output\r\n")
    host = load_host(f)
    assert host.captured == {"logs"} and host.logs == []
    assert any("free text" in n for n in host.parse_notes)


@pytest.mark.parametrize(
    ("name", "gpus", "gfx"),
    [
        ("mi210-x4-gfx90a-rocm6.0-hip-invalid-argument", 4, "gfx90a"),
        ("vega20-gfx906-8gpu-epyc-rocm2x", 8, "gfx906"),
        ("rx6700xt-gfx1031-override-in-rocminfo", 1, "gfx1030"),
        ("780m-gfx1103-apu-ollama-unsupported-target", 1, "gfx1103"),
    ],
)
def test_loose_capture_directories(name, gpus, gfx):
    if not (CAPTURES / name).is_dir():
        pytest.skip("captures not available")
    host = load_host(CAPTURES / name)
    assert len(host.gpus) == gpus
    assert {g.gfx for g in host.gpus} == {gfx}
    assert not any(m.source.file == "SOURCE.md" for m in host.logs)


def test_loose_vega20_merges_lspci_by_bus():
    if not CAPTURES.is_dir():
        pytest.skip("captures not available")
    host = load_host(CAPTURES / "vega20-gfx906-8gpu-epyc-rocm2x")
    assert [g.pci_bus for g in host.gpus][:2] == ["0000:07:00.0", "0000:0a:00.0"]
    assert all(g.pci_revision == "0x02" and g.pci_device_id == "0x66a1" for g in host.gpus)
    assert {s.file for s in host.gpus[0].sources} == {"rocminfo.txt", "lspci-k.txt"}


def test_a_fifo_is_not_a_bundle(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(BadInput, match="not a regular file"):
        load_host(fifo)
