"""Every parser on the real outputs in ../shared/captures (specific values, not just "no crash")."""

from __future__ import annotations

from rocmdoctor.parse import collect_env, dkms, kernel, lspci, osrelease, pip, rocminfo, smi
from rocmdoctor.parse.logs import scan
from tests.parse_helpers import capture

MI210 = "mi210-x4-gfx90a-rocm6.0-hip-invalid-argument"
VEGA = "vega20-gfx906-8gpu-epyc-rocm2x"
RX6700 = "rx6700xt-gfx1031-override-in-rocminfo"
APU = "780m-gfx1103-apu-ollama-unsupported-target"
KFD_DENIED = "docker-rocm-terminal-kfd-permission-denied-mi100"
DKMS_OK = "dkms-healthy-amdgpu-6.16.6-rocm7.1.1-kernel-6.17"
DKMS_FAIL = "rx7900xtx-amdgpu-dkms-6.3.6-build-fails-kernel-6.5"
RX6750 = "rx6750xt-gfx1031-torch-nightly-rocm5.7-collect_env"
CE_CRASH = "rocm5.4.2-wheel-collect_env-crash-hip-runtime-indexerror"


def test_rocminfo_mi210_four_gfx90a_with_pci_facts():
    res = rocminfo.parse_rocminfo(capture(MI210, "rocminfo.txt"))
    assert [g.gfx for g in res.gpus] == ["gfx90a"] * 4
    assert {g.name for g in res.gpus} == {"AMD Instinct MI210"}
    assert {g.pci_device_id for g in res.gpus} == {"0x740f"}
    assert [g.kfd_node for g in res.gpus] == [2, 3, 4, 5]
    assert res.gpus[0].pci_bus == "0000:48:00.0"  # BDFID 18432
    assert res.gpus[0].uuid == "GPU-209951be100ce86a"
    assert res.gpus[0].compute_units == 104
    assert res.gpus[0].vram_bytes == 67092480 * 1024
    assert res.cpu_names == ["AMD EPYC 9554 64-Core Processor"] * 2
    assert res.rock_loaded is not None and res.rock_loaded.value is True
    assert res.gpus[0].sources[0].line == 125


def test_rocminfo_vega20_old_format_eight_gfx906():
    res = rocminfo.parse_rocminfo(capture(VEGA, "rocminfo.txt"))
    assert [g.gfx for g in res.gpus] == ["gfx906"] * 8
    assert {g.pci_device_id for g in res.gpus} == {"0x66a1"}
    assert len(res.cpu_names) == 4
    assert all(g.uuid is None for g in res.gpus)  # ROCm 2.x printed no Uuid lines


def test_rocminfo_rx6700xt_reports_overridden_gfx1030_for_a_73df_card():
    res = rocminfo.parse_rocminfo(capture(RX6700, "rocminfo.txt"))
    assert len(res.gpus) == 1
    gpu = res.gpus[0]
    assert gpu.gfx_by_source == {"rocminfo": "gfx1030"}
    assert gpu.pci_device_id == "0x73df"  # what the lead's PCI lookup turns into gfx1031
    assert gpu.name == "AMD Radeon RX 6700 XT"
    assert gpu.is_apu is None
    assert res.rock_loaded is not None and res.rock_loaded.value  # the ANSI-coloured first line


def test_rocminfo_partial_apu_paste_with_prompt_and_padding():
    res = rocminfo.parse_rocminfo(capture(APU, "rocminfo.partial.txt"))
    assert [g.gfx for g in res.gpus] == ["gfx1103"]
    assert res.gpus[0].is_apu is True  # "AMD Radeon Graphics" is what APUs report
    assert res.gpus[0].uuid is None  # the "GPU-XX" placeholder is not a uuid


def test_rocminfo_permission_denied_output_has_no_gpus_but_rock_loaded():
    res = rocminfo.parse_rocminfo(capture(KFD_DENIED, "docker_run_and_rocminfo.txt"))
    assert res.gpus == []
    assert res.rock_loaded is not None and res.rock_loaded.value is True


def test_rocminfo_grep_excerpt_of_marketing_name_is_a_gpu():
    res = rocminfo.parse_rocminfo(capture(KFD_DENIED, "rocminfo_working_container.txt"))
    assert [g.name for g in res.gpus] == ["AMD Instinct MI100"]


def test_rocm_smi_concise_tables_old_and_new():
    gpus = smi.parse_rocm_smi(capture(KFD_DENIED, "docker_run_and_rocminfo.txt"))
    assert [g.index for g in gpus] == [0, 1, 2, 3]
    gpus = smi.parse_rocm_smi(capture(RX6700, "rocm-smi.txt"))
    assert len(gpus) == 1
    assert gpus[0].pci_device_id == "0x73df"
    assert gpus[0].kfd_node == 1


def test_lspci_vega20_eight_amd_gpus_on_amdgpu_and_not_the_aspeed():
    res = lspci.parse_lspci(capture(VEGA, "lspci-k.txt"))
    assert len(res.gpus) == 8
    assert res.gpus[0].pci_bus == "0000:07:00.0"
    assert res.gpus[0].pci_revision == "0x02"
    assert res.gpus[0].name == "Vega 20"
    assert {d for _, d in res.drivers} == {"amdgpu"}


def test_dkms_new_format_two_installed_kernels():
    info = dkms.parse_dkms(capture(DKMS_OK, "dkms_status.txt"))
    assert [(e.module, e.version, e.kernel, e.arch, e.status) for e in info.entries] == [
        ("amdgpu", "6.16.6-2255209.24.04", "6.17.0-5-generic", "x86_64", "installed"),
        ("amdgpu", "6.16.6-2255209.24.04", "6.17.0-8-generic", "x86_64", "installed"),
    ]
    assert info.errors == [] and info.build_failures == []


def test_dkms_install_log_build_failure_names_the_kernel():
    info = dkms.parse_dkms(capture(DKMS_FAIL, "install_log.txt"), "logs/install_log.txt")
    assert info.failed_kernels == ["6.5.0-17-generic"]
    assert info.build_failures[0].source.line == 9
    # the install log names the module version it was building: one entry, so known breakages can match
    assert [(e.module, e.version, e.kernel, e.status) for e in info.entries] == [
        ("amdgpu", "6.3.6-1718217.22.04", "6.5.0-17-generic", "build-failed")]


def test_lsmod_and_dmesg_of_the_healthy_dkms_host():
    fact = kernel.parse_modules(capture(DKMS_OK, "lsmod_grep_amdgpu.txt"), "cmd/lsmod.txt")
    assert fact is not None and fact.value is True and fact.source.line == 1
    kept, version = kernel.parse_dmesg(capture(DKMS_OK, "dmesg_grep_amdgpu.txt"), "cmd/dmesg.txt")
    assert version is not None and version.value == "6.16.6"
    assert len(kept) == 4


def test_prose_beside_a_time_stamped_dmesg_is_not_a_kernel_line():
    """amd/xdna-driver#389: the reporter's sentence under a pasted dmesg names amdgpu but is no kernel line;
    in a log whose lines carry the kernel's stamp, a line without one is dropped. Secure Boot's refusal comes
    from modprobe, not the kernel log, and is kept; a log without stamps (dmesg --notime) keeps every line."""
    stamped = ("[    5.653266] amdxdna 0000:c6:00.1: probe with driver amdxdna failed with error -22\n"
               "Worth to add: Currently I do early loading of amdgpu driver. The same error happens regardless of "
               "early or late load of amdxdna.\n")
    assert kernel.parse_dmesg(stamped, "paste.txt")[0] == []
    # ROCm/rocm-systems#3531's journalctl line
    journal = "Feb 25 14:40:39 framework-desktop kernel: amdgpu 0000:c2:00.0: amdgpu: KFD node 0 ih_fifo overflow\n"
    kept = kernel.parse_dmesg(stamped + journal, "paste.txt")[0]
    assert [k.source.line for k in kept] == [3]
    modprobe = "modprobe: ERROR: could not insert 'amdgpu': Key was rejected by service\n"
    assert [k.source.line for k in kernel.parse_dmesg(stamped + modprobe, "paste.txt")[0]] == [3]
    # a field fixture's real probe line with its stamp removed: what dmesg --notime prints
    notime = "amdgpu 0000:03:00.0: probe with driver amdgpu failed with error -12\n"
    assert len(kernel.parse_dmesg(notime + stamped.split("\n")[1], "cmd/dmesg.txt")[0]) == 2


def test_uname_r_file():
    info = kernel.parse_uname(capture(DKMS_FAIL, "uname_r.txt"), "cmd/uname-r.txt")
    assert info.release == "6.5.0-17-generic" and info.is_wsl is False


def test_collect_env_partial_rx6750xt_with_repl_lines():
    res = collect_env.parse_collect_env(capture(RX6750, "collect_env.partial.txt"))
    assert res.torch is not None
    assert res.torch.version == "2.2.0.dev20230928+rocm5.7"
    assert res.torch.hip == "5.7.31921-d1770ee1b"
    assert res.torch.cuda is None and res.torch.cuda_available is True
    assert res.torch.build == "rocm"
    assert res.python is not None and res.python.version == "3.9.18"
    assert res.os is not None and (res.os.id, res.os.version_id, res.os.version) == ("ubuntu", "20.04", "20.04.6")
    assert res.kernel_release is not None and res.kernel_release.value == "6.2.0-33-generic"
    assert [(g.name, g.gfx) for g in res.gpus] == [("AMD Radeon RX 6750 XT", None)]
    assert res.hip_runtime is not None and res.hip_runtime.value == "5.7.31921"


def test_collect_env_crash_traceback():
    res = collect_env.parse_collect_env(capture(CE_CRASH, "collect_env_error.txt"))
    assert res.crashed is not None and res.crashed.line == 1
    assert res.torch is None


def test_lsb_release_and_pip_show_from_the_mi210_commenter():
    info = osrelease.parse_lsb_release(capture(MI210, "commenter_lsb_release.txt"), "lsb.txt")
    assert (info.id, info.version_id, info.version) == ("ubuntu", "22.04", "22.04.5")
    shown = pip.parse_pip_show(capture(MI210, "commenter_pip_show_torch.txt"), "pip-show.txt")
    assert [(n, v) for n, v, _, _ in shown] == [("torch", "2.6.0.dev20240918+rocm6.2")]
    assert shown[0][2] == "/home/eacloud/miniconda3/envs/vllm6_env/lib/python3.10/site-packages"


def test_signatures_on_every_capture_with_a_known_error():
    def ids(name: str, file: str) -> list[str]:
        return [m.signature for m in scan(capture(name, file), file)]

    assert ids(APU, "ollama_log.txt") == ["ollama-unsupported-gpu-target"]
    assert scan(capture(APU, "ollama_log.txt"), "x")[0].groups["gfx"] == "gfx1103"
    assert ids(KFD_DENIED, "docker_run_and_rocminfo.txt") == ["kfd-permission-denied"]
    assert "hip-invalid-argument" in ids(MI210, "error.txt")
    assert ids(MI210, "amd_log_level3.txt") == ["hsa-memory-avail-query-failed", "hip-invalid-argument"]
    assert ids(MI210, "commenter_torch_repl.txt") == ["hip-invalid-argument"]
    assert ids(CE_CRASH, "collect_env_error.txt") == ["collect-env-crash"]
    fail = scan(capture(DKMS_FAIL, "install_log.txt"), "logs/install_log.txt")
    # apport's stale crash report is evidence of the build failure (its own id, info), not a third build error
    assert [m.finding_id for m in fail] == ["log.dkms-crash-report", "log.dkms-build-error", "log.dkms-build-error"]
    assert next(m for m in fail if m.signature == "dkms-build-error").groups == {"kernel": "6.5.0-17-generic"}
    # Healthy outputs match nothing.
    assert ids(VEGA, "rocminfo.txt") == []
    assert ids(DKMS_OK, "dkms_status.txt") == []
    assert ids(RX6750, "collect_env.partial.txt") == []


def test_extra_index_url_install_is_flagged_but_index_url_is_not():
    risky = scan(capture("rx6800-cpu-torch-wheel-py37-is_available-false", "install_command.txt"), "logs/i.txt")
    assert [(m.signature, m.groups["index"]) for m in risky] == [
        ("pip-extra-index-url", "https://download.pytorch.org/whl/nightly/rocm5.4.3/")]
    fine = scan(capture("wsl-rx7900-torch-rocm6.2-hipErrorNoDevice-radeon-wheels", "fix_commands.txt"), "l")
    assert fine == []
