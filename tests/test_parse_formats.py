"""Parsers on the formats no capture covers yet (written from the tools' documented output)."""

from __future__ import annotations

import pytest

from rocmdoctor.parse import (
    collect_env,
    dkms,
    docker_info,
    env,
    kernel,
    kfd,
    lspci,
    osrelease,
    pip,
    rocminfo,
    smi,
    torch_probe,
    users,
    versions,
)
from rocmdoctor.parse.gpus import merge_gpus
from rocmdoctor.parse.text import bus_from_bdfid, hex_id, lines, pci_bus, strip_prompt
from tests.parse_helpers import kfd_gpu


@pytest.mark.parametrize(
    ("value", "gfx"),
    [(90010, "gfx90a"), (100301, "gfx1031"), (110000, "gfx1100"), (90402, "gfx942"), (90000, "gfx900"),
     (120001, "gfx1201"), (110501, "gfx1151"), (90012, "gfx90c"), (0, None), (-5, None), (91600, None)],
)
def test_gfx_target_version(value, gfx):
    assert kfd.gfx_from_target_version(value) == gfx


def test_kfd_gpu_node_and_apu_and_cpu_node():
    gpu = kfd.parse_kfd_node(kfd_gpu(90010, 29711, 18432), "root/p", 2)
    assert gpu is not None
    assert (gpu.gfx, gpu.pci_device_id, gpu.pci_vendor_id) == ("gfx90a", "0x740f", "0x1002")
    assert gpu.pci_bus == "0000:48:00.0"
    assert (gpu.is_apu, gpu.compute_units, gpu.render_node, gpu.kfd_node) == (False, 40, "renderD128", 2)
    apu = kfd.parse_kfd_node(kfd_gpu(110003, 0x15BF, 0xC100, cores=16, simd=24), "root/p", 1)
    assert apu is not None and apu.is_apu is True and apu.gfx == "gfx1103"
    assert kfd.parse_kfd_node("cpu_cores_count 8\nsimd_count 0\ngfx_target_version 0\n", "f", 0) is None


def test_dkms_formats_and_broken_tree():
    info = dkms.parse_dkms(
        "$ dkms status\n"
        "amdgpu, 5.11.32, 5.4.0-54-generic, x86_64: installed\n"
        "amdgpu/6.3.6-1697589.22.04, 6.5.0-14-generic, x86_64: installed (Original modules exist)\n"
        "amdgpu/6.3.6-1697589.22.04: added\r\n"
        "amdgpu/6.3.6-1697589.22.04, 6.5.0-17-generic, x86_64: built\n"
        "Error! Could not locate dkms.conf file.\n"
        "File: /var/lib/dkms/amdgpu/5.18.13-1538762.22.04/source/dkms.conf does not exist.\n"
    )
    got = [(e.version, e.kernel, e.arch, e.status) for e in info.entries]
    assert got == [
        ("5.11.32", "5.4.0-54-generic", "x86_64", "installed"),
        ("6.3.6-1697589.22.04", "6.5.0-14-generic", "x86_64", "installed"),
        ("6.3.6-1697589.22.04", None, None, "added"),
        ("6.3.6-1697589.22.04", "6.5.0-17-generic", "x86_64", "built"),
    ]
    assert len(info.errors) == 2 and info.errors[0].source.line == 6


def test_rocm_smi_showhw_and_productname():
    hw = smi.parse_rocm_smi(
        "============================ Concise Hardware Info =============================\n"
        "GPU  NODE  DID     GUID   GFX VER  GFX RAS  SDMA RAS  UMC RAS  VBIOS           BUS           PARTITION ID\n"
        "0    2     0x740f  8321   gfx90a   ENABLED  ENABLED   ENABLED  113-D67301-063  0000:48:00.0  0\n"
        "1    3     0x740f  12345  gfx90a   ENABLED  ENABLED   ENABLED  113-D67301-063  0000:4B:00.0  0\n"
    )
    assert [(g.kfd_node, g.pci_device_id, g.gfx, g.pci_bus) for g in hw] == [
        (2, "0x740f", "gfx90a", "0000:48:00.0"), (3, "0x740f", "gfx90a", "0000:4b:00.0")]
    pn = smi.parse_rocm_smi(
        "GPU[0]\t\t: Card series: \t\tNavi 22 [Radeon RX 6700 XT]\nGPU[0]\t\t: Device ID: \t\t0x73df\n"
        "GPU[0]\t\t: Device Rev: \t\t0xc1\nGPU[0]\t\t: GFX Version: \t\tgfx1031\n"
        "GPU[0]\t\t: PCI Bus: \t\t0000:03:00.0\n"
    )
    assert [(g.pci_device_id, g.pci_revision, g.gfx, g.pci_bus) for g in pn] == [
        ("0x73df", "0xc1", "gfx1031", "0000:03:00.0")]


def test_amd_smi_json_shapes():
    old = smi.parse_amd_smi(
        '[{"gpu": 0, "asic": {"market_name": "AMD Instinct MI300X", "vendor_id": "0x1002", "device_id": "0x74a1",'
        ' "rev_id": "0x00", "target_graphics_version": "gfx942", "num_compute_units": 304, "asic_serial": "N/A"},'
        ' "bus": {"bdf": "0000:05:00.0"}, "vram": {"type": "HBM", "size": {"value": 196592, "unit": "MB"}}}]'
    )
    assert [(g.gfx, g.name, g.pci_device_id, g.pci_bus, g.vram_bytes, g.serial) for g in old] == [
        ("gfx942", "AMD Instinct MI300X", "0x74a1", "0000:05:00.0", 196592 * 2**20, None)]
    new = smi.parse_amd_smi('{"gpu_data": [{"gpu": 0, "asic": {"market_name": "N/A", "device_id": 29663,'
                            ' "target_graphics_version": "N/A"}, "vram": {"size": "12272 MB"}}]}')
    assert [(g.gfx, g.name, g.pci_device_id, g.vram_bytes) for g in new] == [(None, None, "0x73df", 12272 * 2**20)]
    assert smi.parse_amd_smi("not json {") == []


def test_agent_enumerator_skips_cpu_and_prompt():
    gpus = smi.parse_agent_enumerator("λ rocm_agent_enumerator\r\ngfx000\r\ngfx1100\r\ngfx1036\r\n")
    assert [g.gfx_by_source for g in gpus] == [
        {"rocm_agent_enumerator": "gfx1100"}, {"rocm_agent_enumerator": "gfx1036"}]


def test_rocminfo_grep_excerpt_with_prompt_yields_gpus():
    res = rocminfo.parse_rocminfo("$ rocminfo | grep gfx\r\n  Name:                    gfx1031\r\n"
                                  "      Name:                    amdgcn-amd-amdhsa--gfx1031\r\n"
                                  "  Name:                    gfx1036\n      Name:      amdgcn-amd-amdhsa--gfx1036\n")
    assert [g.gfx for g in res.gpus] == ["gfx1031", "gfx1036"]
    isa_only = rocminfo.parse_rocminfo("amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-\n".join(["Name: ", "Name: ", ""]))
    assert [g.gfx for g in isa_only.gpus] == ["gfx90a", "gfx90a"]


def test_rocminfo_grep_name_excerpt_with_cpu_dgpu_and_igpu():
    res = rocminfo.parse_rocminfo(
        "$ rocminfo | grep Name\n  Name:                    AMD Ryzen 9 7950X 16-Core Processor\n"
        "  Marketing Name:          AMD Ryzen 9 7950X 16-Core Processor\n  Vendor Name:             CPU\n"
        "  Name:                    gfx1100\n  Marketing Name:          Radeon RX 7900 XTX\n"
        "  Vendor Name:             AMD\n      Name:                    amdgcn-amd-amdhsa--gfx1100\n"
        "  Name:                    gfx1036\n  Marketing Name:          AMD Radeon Graphics\n"
        "      Name:                    amdgcn-amd-amdhsa--gfx1036\n      Name:   amdgcn-amd-amdhsa--gfx10-3-generic\n"
    )
    assert res.cpu_names == ["AMD Ryzen 9 7950X 16-Core Processor"]
    assert [(g.gfx, g.name, g.is_apu) for g in res.gpus] == [
        ("gfx1100", "Radeon RX 7900 XTX", None), ("gfx1036", "AMD Radeon Graphics", True)]


def test_rocminfo_new_apu_memory_property_and_not_loaded():
    res = rocminfo.parse_rocminfo("ROCk module version 6.8.5 is loaded\nAgent 2\n  Name: gfx1151\n"
                                  "  Marketing Name: AMD Radeon 8060S Graphics\n  Device Type: GPU\n"
                                  "  Memory Properties:       APU\n")
    assert res.gpus[0].is_apu is True and res.rock_version is not None and res.rock_version.value == "6.8.5"
    off = rocminfo.parse_rocminfo("ROCk module is NOT loaded, possibly no GPU devices\n")
    assert off.rock_loaded is not None and off.rock_loaded.value is False


def test_collect_env_new_format_and_cpu_build():
    res = collect_env.parse_collect_env(
        "PyTorch version: 2.5.1+rocm6.2\nIs debug build: False\nCUDA used to build PyTorch: N/A\n"
        "ROCM used to build PyTorch: 6.2.41133-dd7f95766\n\nOS: Red Hat Enterprise Linux 9.4 (Plow) (x86_64)\n"
        "Python version: 3.11.7 (main, Dec 15 2023) [GCC 11.2.0] (64-bit runtime)\n"
        "Python platform: Linux-5.14.0-427.13.1.el9_4.x86_64-x86_64-with-glibc2.34\nIs CUDA available: True\n"
        "GPU models and configuration: AMD Instinct MI300X (gfx942:sramecc+:xnack-)\n\n"
        "Versions of relevant libraries:\n[pip3] pytorch-triton-rocm==3.1.0\n[pip3] torch==2.5.1+rocm6.2\n"
        "[conda] numpy                     1.26.4            pypi_0    pypi\n"
    )
    assert res.torch is not None and (res.torch.hip, res.torch.cuda_available) == ("6.2.41133-dd7f95766", True)
    assert res.os is not None and (res.os.id, res.os.version_id) == ("rhel", "9.4")
    assert res.kernel_release is not None and res.kernel_release.value == "5.14.0-427.13.1.el9_4.x86_64"
    assert [(g.name, g.gfx) for g in res.gpus] == [("AMD Instinct MI300X", "gfx942")]
    assert res.packages == {"pytorch-triton-rocm": "3.1.0", "torch": "2.5.1+rocm6.2", "numpy": "1.26.4"}
    cpu = collect_env.parse_collect_env("PyTorch version: 2.1.0+cpu\nCUDA used to build PyTorch: None\n"
                                        "GPU models and configuration: \nGPU 0: AMD Radeon RX 7900 XTX (gfx1100)\n"
                                        "GPU 1: AMD Radeon Graphics (gfx1036)\nNvidia driver version: N/A\n")
    assert cpu.torch is not None and cpu.torch.build == "cpu"
    assert [(g.gfx, g.is_apu) for g in cpu.gpus] == [("gfx1100", None), ("gfx1036", True)]


def test_pip_formats():
    freeze = pip.parse_pip_freeze(
        "$ pip freeze\r\ntorch==2.3.0+rocm6.2.3\r\n"
        "Torch_Vision @ file:///tmp/torchvision-0.18.0%2Brocm6.2.3-cp310-cp310-linux_x86_64.whl\r\n"
        "-e git+https://example.invalid/x#egg=foo\nnumpy===1.26\n"
    )
    assert freeze == {"torch": "2.3.0+rocm6.2.3", "torch-vision": "0.18.0+rocm6.2.3", "numpy": "1.26"}
    columns = pip.parse_pip_freeze("Package Version\n------- -------\ntorch   2.1.0+rocm5.6\n")
    assert columns == {"torch": "2.1.0+rocm5.6"}
    assert pip.parse_pip_list_json('[{"name": "Torch", "version": "2.4.1+rocm6.1"}, {"name": 3}]') == {
        "torch": "2.4.1+rocm6.1"}
    assert pip.parse_pip_list_json("[1, 2") == {}


def test_torch_probe_lenient():
    probe = torch_probe.parse_torch_probe(
        '{"python": {"executable": "/usr/bin/python3", "version": "3.11.7", "implementation": "CPython",'
        ' "tags": ["cp311-cp311-manylinux_2_28_x86_64", 3]}, "distributions": {"Torch": "2.5.1+rocm6.2"},'
        ' "torch": {"version": "2.5.1+rocm6.2", "hip": "6.2.41133-dd7f95766", "cuda": null,'
        ' "bundled_libs": ["libamdhip64.so", null]}}'
    )
    assert probe.python is not None and probe.python.implementation == "cpython"
    assert probe.python.platform_tags == ["cp311-cp311-manylinux_2_28_x86_64"]
    assert probe.torch is not None and probe.torch.build == "rocm" and probe.torch.bundled_libs == ["libamdhip64.so"]
    assert probe.distributions == {"torch": "2.5.1+rocm6.2"}
    none = torch_probe.parse_torch_probe('{"torch": null}')
    assert none.torch is None and none.torch_seen is True
    cpu = torch_probe.parse_torch_probe('{"torch": {"version": "2.13.0"}}')
    assert cpu.torch is not None and cpu.torch.build == "cpu"
    assert torch_probe.parse_torch_probe("[]").valid is False


def test_id_stat_group_env():
    user = users.parse_id("uid=1000(alice) gid=1000(alice) groups=1000(alice),4(adm),44(video),109(render)\n")
    assert user is not None and (user.name, user.uid) == ("alice", 1000)
    assert (user.groups, user.gids) == (["alice", "adm", "video", "render"], [1000, 4, 44, 109])
    nodes = users.parse_stat_dev("/dev/kfd 660 root render 0 109\n/dev/dri/renderD128 2660 root render 0 109\n"
                                 "stat: cannot statx '/dev/dri/renderD129': No such file or directory\n")
    assert [(n.path, n.mode, n.group, n.gid, n.exists) for n in nodes] == [
        ("/dev/kfd", "660", "render", 109, True), ("/dev/dri/renderD128", "660", "render", 109, True),
        ("/dev/dri/renderD129", None, None, None, False)]
    assert users.parse_group_file("root:x:0:\nvideo:x:44:alice\nrender:x:109:\nbad line\n") == {
        "root": 0, "video": 44, "render": 109}
    values, where = env.parse_env("HSA_OVERRIDE_GFX_VERSION=10.3.0\nHF_TOKEN=abc\nPATH=/usr/bin\n"
                                  "ROCM_TOKEN=y\nexport HIP_VISIBLE_DEVICES='0'\nHOME=/root\n")
    assert values == {"HSA_OVERRIDE_GFX_VERSION": "10.3.0", "PATH": "/usr/bin", "HIP_VISIBLE_DEVICES": "0"}
    assert where["HIP_VISIBLE_DEVICES"] == 5


def test_env_value_of_a_command_prefix_ends_at_the_blank_a_path_keeps_its_spaces():
    # llama.cpp#26702 pasted `HSA_OVERRIDE_GFX_VERSION=10.3.0 ~/.../llama-server \`: the override is 10.3.0, not
    # the rest of the command line (read whole, it was judged malformed on a working host)
    values, _ = env.parse_env("HSA_OVERRIDE_GFX_VERSION=10.3.0 ~/Projects/build-rocm/bin/llama-server \\\n"
                              "PATH=/mnt/c/Program Files/AMD/bin:/usr/bin\n"
                              "HIP_PATH=C:\\Program Files\\AMD\\ROCm\\5.7\\\n"
                              "ROCR_VISIBLE_DEVICES=\"0 1\"\n")
    assert values == {"HSA_OVERRIDE_GFX_VERSION": "10.3.0", "PATH": "/mnt/c/Program Files/AMD/bin:/usr/bin",
                      "HIP_PATH": "C:\\Program Files\\AMD\\ROCm\\5.7\\", "ROCR_VISIBLE_DEVICES": "0 1"}


def test_docker_info_ok_and_unreachable():
    ok = docker_info.parse_docker_info('{"ServerVersion": "24.0", "Runtimes": {"runc": {}, "amd": {}},'
                                       ' "DefaultRuntime": "runc"}')
    assert (ok.docker_reachable, ok.docker_runtimes, ok.docker_default_runtime) == (True, ["amd", "runc"], "runc")
    bad = docker_info.parse_docker_info("", stderr="Cannot connect to the Docker daemon at unix:///x.sock.\n")
    assert bad.docker_reachable is False and bad.docker_error is not None


def test_lspci_nn_ids_and_apu_display_controller():
    res = lspci.parse_lspci(
        "03:00.0 VGA compatible controller [0300]: Advanced Micro Devices, Inc. [AMD/ATI] Navi 22 "
        "[Radeon RX 6700/6700 XT/6750 XT / 6800M/6850M XT] [1002:73df] (rev c1)\n\tKernel driver in use: amdgpu\n"
        "0000:c1:00.0 Display controller [0380]: Advanced Micro Devices, Inc. [AMD/ATI] Phoenix1 [1002:15bf] (rev c4)\n"
        "c1:00.1 Audio device [0403]: Advanced Micro Devices, Inc. [AMD/ATI] Rembrandt Radeon HD Audio [1002:1640]\n"
    )
    assert [(g.pci_bus, g.pci_device_id, g.pci_revision) for g in res.gpus] == [
        ("0000:03:00.0", "0x73df", "0xc1"), ("0000:c1:00.0", "0x15bf", "0xc4")]
    assert [d for _, d in res.drivers] == ["amdgpu", None]


def test_os_release_uname_proc_version_versions():
    info = osrelease.parse_os_release('NAME="Ubuntu"\nVERSION="22.04.5 LTS (Jammy Jellyfish)"\nID=ubuntu\n'
                                      'ID_LIKE=debian\nPRETTY_NAME="Ubuntu 22.04.5 LTS"\nVERSION_ID="22.04"\n')
    assert (info.id, info.version_id, info.version, info.id_like) == ("ubuntu", "22.04", "22.04.5", ["debian"])
    wsl = kernel.parse_uname("Linux DESKTOP-1 5.15.153.1-microsoft-standard-WSL2 #1 SMP Fri Mar 29 2024 x86_64 "
                             "x86_64 x86_64 GNU/Linux\n", "cmd/uname-a.txt")
    assert (wsl.release, wsl.is_wsl, wsl.machine) == ("5.15.153.1-microsoft-standard-WSL2", True, "x86_64")
    pv = kernel.parse_proc_version("Linux version 6.5.0-14-generic (buildd@lcy02) (gcc-12) #14~22.04.1-Ubuntu SMP\n")
    assert (pv.release, pv.is_wsl) == ("6.5.0-14-generic", False)
    assert kernel.parse_module_version("6.8.5\n") is not None
    fact = versions.parse_rocm_version_file("6.0.2-115\n", "root/opt/rocm-6.0.2/.info/version")
    assert fact is not None and fact.value == "6.0.2"
    hip = versions.parse_hipconfig("HIP version  : 6.0.32830-d62f6a171\n")
    assert hip is not None and hip.value == "6.0.32830-d62f6a171"
    assert versions.hip_to_rocm("6.0.32830-d62f6a171") == "6.0"


def test_text_helpers():
    assert strip_prompt("$ rocminfo | grep gfx") == ("rocminfo | grep gfx", True)
    assert strip_prompt("λ rocm_agent_enumerator") == ("rocm_agent_enumerator", True)
    assert strip_prompt("root@box:/# python3 -m torch.utils.collect_env")[1] is True
    assert strip_prompt("  Name:   gfx90a")[1] is False
    assert list(lines("\x1b[37mROCk\x1b[0m  \r\nb")) == [(1, "ROCk"), (2, "b")]
    assert (hex_id("0x73DF"), hex_id("73df"), hex_id(29663), hex_id("zz")) == ("0x73df", "0x73df", "0x73df", None)
    assert pci_bus("03:00.0") == "0000:03:00.0" and pci_bus("nonsense") is None
    assert bus_from_bdfid(768) == "0000:03:00.0" and bus_from_bdfid(0) is None


def test_merge_keeps_both_opinions_when_rocminfo_is_overridden():
    k = kfd.parse_kfd_node(kfd_gpu(100301, 0x73DF, 768), "root/k", 1)
    assert k is not None
    ri = rocminfo.parse_rocminfo("Agent 2\n  Name: gfx1030\n  Node: 1\n  Device Type: GPU\n  BDFID: 768\n").gpus
    merged = merge_gpus({"kfd": [[k]], "rocminfo": [ri]})
    assert len(merged) == 1
    assert merged[0].gfx_by_source == {"kfd": "gfx1031", "rocminfo": "gfx1030"}
    assert merged[0].gfx == "gfx1031"


def test_merge_igpu_and_dgpu_by_bus_and_extra_drm_card():
    a = kfd.parse_kfd_node(kfd_gpu(110000, 0x744C, 0x0300), "root/k1", 1)
    b = kfd.parse_kfd_node(kfd_gpu(100306, 0x164E, 0xC100, cores=16), "root/k2", 2)
    assert a is not None and b is not None
    smi_list = smi.parse_rocm_smi("GPU[0] : PCI Bus: 0000:c1:00.0\nGPU[0] : GFX Version: gfx1036\n"
                                  "GPU[1] : PCI Bus: 0000:03:00.0\nGPU[1] : GFX Version: gfx1100\n")
    notes: list[str] = []
    merged = merge_gpus({"kfd": [[a, b]], "rocm-smi": [smi_list]}, notes)
    assert [(g.gfx, g.is_apu, g.gfx_by_source.get("rocm-smi")) for g in merged] == [
        ("gfx1100", False, "gfx1100"), ("gfx1036", True, "gfx1036")]
    assert notes == []


# One real-world line per signature (from the captures' threads and the notes); each must match its own.
SIGNATURE_EXAMPLES = {
    "no-binary-for-gpu": "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!",
    "rocblas-tensile-missing-arch": "rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: "
                                    "No such file or directory for GPU arch : gfx1031",
    "invalid-device-function": "RuntimeError: HIP error: invalid device function",
    "cuda-no-kernel-image": "torch.AcceleratorError: CUDA error: no kernel image is available for execution on the "
                            "device",
    "no-hip-gpus": "RuntimeError: No HIP GPUs are available",
    "hip-error-no-device": "RuntimeError: HIP error: hipErrorNoDevice",
    "kfd-permission-denied": "Unable to open /dev/kfd read-write: Permission denied",
    "dkms-build-error": "Error! Bad return status for module build on kernel: 6.5.0-17-generic (x86_64)",
    "dkms-dpkg-configure-failed": "dpkg: error processing package amdgpu-dkms (--configure):",
    "dkms-crash-report": "ERROR: Cannot create report: [Errno 17] File exists: '/var/crash/amdgpu-dkms.0.crash'",
    "hip-invalid-argument": "RuntimeError: HIP error: invalid argument",
    "hsa-memory-avail-query-failed": ":1:rocdevice.cpp :1885: [pid:1] HSA_AMD_AGENT_INFO_MEMORY_AVAIL query failed.",
    "collect-env-crash": 'File "/x/site-packages/torch/utils/collect_env.py", line 437, in get_env_info',
    "ollama-unsupported-gpu-target": 'msg="amdgpu [0] gfx1103 is not supported by /tmp/o/rocm [gfx1030 gfx1100]"',
    "ollama-unsupported-gpu-type": 'level=WARN msg="amdgpu is not supported" gpu=0 gpu_type=gfx1103 library=/usr/lib',
    "invalid-isa": "HSA_STATUS_ERROR_INVALID_ISA: The instruction set architecture is invalid.",
    "hip-invalid-image": "hipErrorInvalidImage",
    "hipblaslt-unsupported-arch": "UserWarning: Attempting to use hipBLASLt on an unsupported architecture!",
    "missing-shared-library": "ImportError: librocm_smi64.so.1: cannot open shared object file: No such file",
    "gpu-memory-access-fault": "Memory access fault by GPU node-1 (Agent handle: 0x55d0) on address 0x7f. Reason: x",
    "segfault": "Segmentation fault (core dumped)",
    "rock-not-loaded": "ROCk module is NOT loaded, possibly no GPU devices",
    "pip-extra-index-url": "pip3 install --pre torch --extra-index-url https://download.pytorch.org/whl/nightly/rocm5.4.3/",
}


def test_signature_table_is_complete_and_each_example_matches_its_own_signature():
    from rocmdoctor.parse.logs import load_signatures, scan, signature

    sigs = load_signatures()
    # The original entries' examples live here; newer ones carry an `example` (tests/test_signatures_cited.py).
    assert set(SIGNATURE_EXAMPLES) <= {s.id for s in sigs}
    sigs = tuple(s for s in sigs if s.id in SIGNATURE_EXAMPLES)
    for core in ("log.no-binary-for-gpu", "log.invalid-device-function", "log.no-hip-gpus",
                 "log.kfd-permission-denied", "log.dkms-build-error"):
        assert core in {s.finding for s in sigs}
    for s in sigs:
        assert s.source and s.title and s.explanation and s.fix and s.severity in ("info", "warn", "fail")
        got = [m.signature for m in scan(SIGNATURE_EXAMPLES[s.id] + "\n", "log")]
        assert s.id in got, (s.id, got)
    sig = signature("dkms-build-error")
    assert sig is not None and sig.groups == ("kernel",)
    assert scan(SIGNATURE_EXAMPLES["dkms-build-error"], "l")[0].groups == {"kernel": "6.5.0-17-generic"}
    assert scan("x\n" * 3 + SIGNATURE_EXAMPLES["segfault"] * 2 + "\n", "l")[0].source.line == 4


def test_scan_caps_repeats_per_signature():
    from rocmdoctor.parse.logs import MAX_MATCHES_PER_SIGNATURE, scan

    matches = scan("RuntimeError: No HIP GPUs are available\n" * 100, "l")
    assert len(matches) == MAX_MATCHES_PER_SIGNATURE
    assert [m.source.line for m in matches] == list(range(1, MAX_MATCHES_PER_SIGNATURE + 1))


def test_scan_keeps_distinct_lines_of_one_signature():
    """apt names six packages it cannot find; the sixth (AMD's WSL runtime, ROCm/legacy-rocm-build#4064) is the
    one that names the cause, so the cap is per repeated line, not per signature; the scan stays bounded."""
    from rocmdoctor.parse.logs import MAX_SCANNED_PER_SIGNATURE, scan

    pkgs = ["amdgpu-lib", "amdgpu-lib32", "rocm-opencl-runtime", "rocm-hip-runtime", "amdgpu-dkms",
            "hsa-runtime-rocr4wsl-amdgpu"]
    matches = scan("".join(f"E: Unable to locate package {p}\n" for p in pkgs), "l")
    assert [m.groups["package"] for m in matches] == pkgs
    many = scan("".join(f"E: Unable to locate package p{i}\n" for i in range(500)), "l")
    assert len(many) == MAX_SCANNED_PER_SIGNATURE
    quoted = scan("throws error 'Unable to locate package hsa-runtime-rocr4wsl-amdgpu'\n", "l")
    assert [m.groups["package"] for m in quoted] == ["hsa-runtime-rocr4wsl-amdgpu"]


def test_lines_a_signature_exempts_do_not_use_up_its_scan():
    """Twenty pip commands that pin torch's ROCm build beside --extra-index-url (exempt by the signature's
    ``unless_line``) come before the one that does not: that one is still found; a paste of exempt lines alone
    finds nothing, and past the exemption bound (256 exempt lines) the scan stops."""
    from rocmdoctor.parse.logs import MAX_EXEMPT_PER_SIGNATURE, MAX_SCANNED_PER_SIGNATURE, scan

    url = "--extra-index-url https://download.pytorch.org/whl/rocm6.2"
    exempt = "".join(f"pip install torch==2.5.1+rocm6.2 torchvision=={i} {url}\n" for i in range(20))
    assert MAX_SCANNED_PER_SIGNATURE < 20
    found = [m for m in scan(exempt + f"pip install torch {url}\n", "l") if m.signature == "pip-extra-index-url"]
    assert [m.source.line for m in found] == [21]
    assert not [m for m in scan(exempt, "l") if m.signature == "pip-extra-index-url"]
    many = exempt * (MAX_EXEMPT_PER_SIGNATURE // 10) + f"pip install torch {url}\n"
    assert not [m for m in scan(many, "l") if m.signature == "pip-extra-index-url"]


def test_signature_patterns_use_bounded_repetition():
    """An unbounded ``\\S*`` before a literal makes a long log line quadratic; the table must bound them."""
    import re

    from rocmdoctor.parse.logs import load_signatures

    for s in load_signatures():
        outside_classes = re.sub(r"\[(?:\\.|[^\]\\])*\]", "[]", s.pattern.pattern)
        assert not re.search(r"(?<!\\)[*+]", outside_classes.replace("\\\\", "")), s.id


def test_scan_is_linear_on_adversarial_lines():
    import time

    from rocmdoctor.parse.logs import scan

    lines = ["x--extra-index-url=download.pytorch.org/whl/" * 20000, "rocBLAS error: Cannot read " * 50000,
             'File "' * 100000, "amdgpu is not supported " * 50000, "pip install --extra-index-url " * 50000]
    start = time.perf_counter()
    for line in lines:
        scan(line, "x")
    assert time.perf_counter() - start < 20  # quadratic behaviour would take minutes here


AMD_SMI_TEXT = """GPU: 0
    ASIC:
        MARKET_NAME: AMD Instinct MI350X
        DEVICE_ID: 0x75a0
        REV_ID: 0x00
        TARGET_GRAPHICS_VERSION: gfx950
    BUS:
        BDF: 0000:05:00.0
    DRIVER:
        NAME: amdgpu
        VERSION: 6.18.3
    BOARD:
        PRODUCT_NAME: AMD Instinct MI350 OAM
"""  # ROCm/rocm-systems#2987's `amd-smi static` (plain text), trimmed to the fields read


def test_amd_smi_static_text_is_one_gpu_per_block() -> None:
    """The board's PRODUCT_NAME is the same GPU, not a second one; the DRIVER section says amdgpu is up."""
    from rocmdoctor.parse import smi
    from rocmdoctor.parse.sniff import sniff

    assert "amd-smi" in sniff(AMD_SMI_TEXT)
    gpus = smi.parse_amd_smi(AMD_SMI_TEXT, "paste.txt")
    assert [(g.name, g.gfx, g.pci_device_id, g.pci_bus) for g in gpus] == [
        ("AMD Instinct MI350X", "gfx950", "0x75a0", "0000:05:00.0")]
    assert smi.amd_smi_driver(AMD_SMI_TEXT) == "6.18.3"


def test_dmesg_with_wall_clock_stamps_is_dmesg() -> None:
    from rocmdoctor.parse.sniff import sniff

    line = "[Mon Dec 18 08:34:36 2023] [drm:psp_hw_start [amdgpu]] *ERROR* PSP create ring failed!\n"
    assert "dmesg" in sniff(line)  # dmesg -T (ROCm/legacy-rocm-build#2747)
