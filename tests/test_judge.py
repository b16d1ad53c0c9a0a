"""The checks, one host fact at a time: each test builds the smallest Host that should (or should not) fire."""

from __future__ import annotations

import pytest

from rocmdoctor import matrix as matrix_mod
from rocmdoctor.diagnose import judge_host
from rocmdoctor.judge.registry import all_checks, all_ids, check, run_checks
from rocmdoctor.model import (
    DeviceNode,
    DkmsEntry,
    DkmsInfo,
    Fact,
    Finding,
    GpuInfo,
    Host,
    KernelInfo,
    LogMatch,
    OsInfo,
    PythonInfo,
    RocmInstall,
    Severity,
    Source,
    TorchInfo,
    UserInfo,
)
from rocmdoctor.parse.kfd import gfx_from_version, version_of_gfx

PUBLIC_IDS = [
    "gpu.none-found", "gpu.arch-unsupported", "gpu.override-needed", "gpu.override-mismatch", "gpu.igpu-visible",
    "gpu.arch-conflict", "driver.amdgpu-not-loaded", "driver.dkms-failed", "kernel.not-validated",
    "os.not-supported", "rocm.not-installed", "rocm.multiple-versions", "perm.kfd-access", "torch.not-installed",
    "torch.not-rocm-build", "torch.arch-missing", "torch.rocm-mismatch", "python.no-rocm-wheel",
    "env.ld-library-path", "log.no-binary-for-gpu", "log.invalid-device-function", "log.no-hip-gpus",
    "log.kfd-permission-denied", "log.dkms-build-error",
]

SRC = Source("test")


@pytest.fixture(scope="module")
def m():
    return matrix_mod.load()


def gpu(gfx: str, index: int = 0, source: str = "kfd", **kw) -> GpuInfo:
    return GpuInfo(index=index, gfx_by_source={source: gfx}, sources=[Source(f"{source}-test")], **kw)


def rocm_torch(version: str = "2.5.1+rocm6.2", hip: str = "6.2.41133-dd7f95766") -> TorchInfo:
    return TorchInfo(version=version, hip=hip, bundled_libs=["libamdhip64.so"], source=Source("cmd/torch-probe.json"))


def sev(findings: list[Finding], fid: str) -> list[str]:
    return [f.severity.value for f in findings if f.id == fid]


def problems(findings: list[Finding]) -> dict[str, str]:
    return {f.id: f.severity.value for f in findings if f.severity in (Severity.WARN, Severity.FAIL, Severity.ERROR)}


def test_public_ids_are_registered_and_there_are_30_checks():
    ids = all_ids()
    for i in PUBLIC_IDS:
        assert i in ids, i
    assert len(all_checks()) >= 30, [c.title for c in all_checks()]


def test_ids_are_unique_and_well_formed():
    ids = all_ids()
    assert len(ids) == len(set(ids))
    for i in ids:
        area, _, name = i.partition(".")
        assert area and name and i == i.lower() and " " not in i


def test_gfx_version_round_trip():
    assert gfx_from_version("10.3.0") == "gfx1030"
    assert gfx_from_version("9.0.10") == "gfx90a"
    assert gfx_from_version("11.0.0") == "gfx1100"
    assert gfx_from_version("1030") is None
    assert gfx_from_version("gfx1030") is None
    for g in ("gfx1031", "gfx90a", "gfx942", "gfx1100", "gfx906"):
        assert gfx_from_version(version_of_gfx(g)) == g


def test_no_gpu_when_sources_captured_is_a_failure():
    h = Host(captured={"rocminfo", "kfd"})
    assert sev(judge_host(h), "gpu.none-found") == ["fail"]


def test_no_gpu_sources_is_not_judged():
    h = Host()
    f = judge_host(h)
    assert "gpu.none-found" not in problems(f)
    assert all(x.severity != Severity.ERROR for x in f), [x.title for x in f if x.severity == Severity.ERROR]


def test_gfx1031_without_override_needs_it(m):
    h = Host(gpus=[gpu("gfx1031", source="pci-id")], env={}, captured={"drm", "env"}, torch=rocm_torch())
    f = judge_host(h, matrix=m)
    assert sev(f, "gpu.override-needed") == ["fail"]
    fix = next(x for x in f if x.id == "gpu.override-needed").fix
    assert fix is not None and "HSA_OVERRIDE_GFX_VERSION=10.3.0" in " ".join(fix.commands)
    assert "gpu.arch-unsupported" not in problems(f)


def test_gfx1031_with_override_is_fine(m):
    h = Host(gpus=[gpu("gfx1031", source="pci-id")], env={"HSA_OVERRIDE_GFX_VERSION": "10.3.0"},
             captured={"drm", "env"}, torch=rocm_torch())
    f = judge_host(h, matrix=m)
    assert sev(f, "gpu.override-needed") == ["ok"]
    assert "torch.arch-missing" not in problems(f)


def test_override_visible_in_rocminfo_counts_as_active_and_conflict_is_info(m):
    g = GpuInfo(index=0, gfx_by_source={"pci-id": "gfx1031", "rocminfo": "gfx1030"}, sources=[SRC])
    h = Host(gpus=[g], captured={"rocminfo", "drm"})
    f = judge_host(h, matrix=m)
    assert sev(f, "gpu.override-needed") == ["ok"]
    assert sev(f, "gpu.arch-conflict") == ["info"]


def test_unexplained_conflict_warns(m):
    g = GpuInfo(index=0, gfx_by_source={"kfd": "gfx90a", "rocminfo": "gfx1100"}, sources=[SRC])
    f = judge_host(Host(gpus=[g], captured={"rocminfo", "kfd"}), matrix=m)
    assert sev(f, "gpu.arch-conflict") == ["warn"]


def test_gfx1010_is_unsupported_with_no_override(m):
    h = Host(gpus=[gpu("gfx1010")], captured={"kfd"})
    f = judge_host(h, matrix=m)
    assert sev(f, "gpu.arch-unsupported") == ["fail"]
    assert "gpu.override-needed" not in problems(f)


def test_gfx906_is_deprecated_on_rocm6(m):
    h = Host(gpus=[gpu("gfx906")], captured={"kfd"}, rocm_version=Fact("6.2.2", SRC))
    assert sev(judge_host(h, matrix=m), "gpu.arch-unsupported") == ["warn"]
    # a wheel's bundled HIP is not an installed ROCm (fixtures/README.md rule 2): with no system ROCm known, a
    # wheel built for gfx906 (the matrix's list for torch 2.3.0+rocm6.0) runs it
    h = Host(gpus=[gpu("gfx906")], captured={"kfd"}, torch=rocm_torch("2.3.0+rocm6.0", "6.0.32830"))
    assert sev(judge_host(h, matrix=m), "gpu.arch-unsupported") == ["ok"]
    # ... while a known system ROCm keeps AMD's deprecation a warning, whatever the wheel bundles
    h = Host(gpus=[gpu("gfx906")], captured={"kfd"}, torch=rocm_torch("2.3.0+rocm6.0", "6.0.32830"),
             rocm_version=Fact("6.0.2", SRC))
    assert sev(judge_host(h, matrix=m), "gpu.arch-unsupported") == ["warn"]


def test_gfx906_is_removed_on_rocm7(m):
    h = Host(gpus=[gpu("gfx906")], captured={"kfd"}, rocm_version=Fact("7.0.0", SRC))
    assert sev(judge_host(h, matrix=m), "gpu.arch-unsupported") == ["fail"]


def test_gfx90a_on_rocm6_is_supported(m):
    h = Host(gpus=[gpu("gfx90a", i) for i in range(4)], captured={"kfd"}, torch=rocm_torch("2.1.2+rocm6.0", "6.0.3"))
    f = judge_host(h, matrix=m)
    assert set(sev(f, "gpu.arch-unsupported")) == {"ok"}
    assert not problems(f)


def test_override_set_on_natively_supported_gpu_warns(m):
    h = Host(gpus=[gpu("gfx1100")], env={"HSA_OVERRIDE_GFX_VERSION": "10.3.0"}, captured={"kfd", "env"})
    assert sev(judge_host(h, matrix=m), "gpu.override-mismatch") == ["warn"]


def test_global_override_on_mixed_host_warns(m):
    h = Host(gpus=[gpu("gfx1031", 0), gpu("gfx1100", 1)], env={"HSA_OVERRIDE_GFX_VERSION": "10.3.0"},
             captured={"kfd", "env"})
    f = judge_host(h, matrix=m)
    assert "warn" in sev(f, "gpu.override-mismatch")
    msg = next(x for x in f if x.id == "gpu.override-mismatch" and x.severity == Severity.WARN)
    assert "GPU 1" in msg.title


def test_malformed_override_fails(m):
    h = Host(gpus=[gpu("gfx1031")], env={"HSA_OVERRIDE_GFX_VERSION": "gfx1030"}, captured={"kfd", "env"})
    assert sev(judge_host(h, matrix=m), "gpu.override-mismatch") == ["fail"]


def test_igpu_beside_dgpu_warns_with_visible_devices_fix(m):
    h = Host(gpus=[gpu("gfx1100", 0), gpu("gfx1036", 1, is_apu=True)], captured={"kfd", "env"})
    f = judge_host(h, matrix=m)
    assert sev(f, "gpu.igpu-visible") == ["warn"]
    fix = next(x for x in f if x.id == "gpu.igpu-visible").fix
    assert "ROCR_VISIBLE_DEVICES=0" in " ".join(fix.commands)
    h.env = {"ROCR_VISIBLE_DEVICES": "0"}
    assert sev(judge_host(h, matrix=m), "gpu.igpu-visible") == ["ok"]


def test_amdgpu_not_loaded(m):
    h = Host(amdgpu_loaded=Fact(False, Source("root/proc/modules")), captured={"modules"})
    assert sev(judge_host(h, matrix=m), "driver.amdgpu-not-loaded") == ["fail"]


def test_dkms_not_built_for_running_kernel(m):
    e = DkmsEntry("amdgpu", "6.3.6-1697589.22.04", "6.2.0-39-generic", "x86_64", "installed", SRC)
    h = Host(kernel=KernelInfo(release="6.5.0-14-generic"), dkms=DkmsInfo(entries=[e]))
    f = judge_host(h, matrix=m)
    assert "fail" in sev(f, "driver.dkms-failed") + sev(f, "driver.dkms-breakage")


def test_dkms_known_breakage_on_kernel_65(m):
    # 'added' is no build result for the running kernel: the table only predicts (warn, and says so); the
    # module not being installed for the running kernel is the observed failure (issue 11: evidence first)
    e = DkmsEntry("amdgpu", "6.3.6-1718217.22.04", "6.5.0-14-generic", "x86_64", "added", SRC)
    h = Host(kernel=KernelInfo(release="6.5.0-14-generic"), dkms=DkmsInfo(entries=[e]))
    f = judge_host(h, matrix=m)
    assert sev(f, "driver.dkms-breakage") == ["warn"] and sev(f, "driver.dkms-failed") == ["fail"]
    assert "Prediction" in next(x.detail for x in f if x.id == "driver.dkms-breakage")


def test_dkms_build_failure_line(m):
    h = Host(dkms=DkmsInfo(build_failures=[Fact("Error! Bad return status for module build on kernel: 6.5.0", SRC)],
                           failed_kernels=["6.5.0"]))
    assert "fail" in sev(judge_host(h, matrix=m), "driver.dkms-failed")


def test_dkms_healthy(m):
    e = DkmsEntry("amdgpu", "6.16.6-2255209.24.04", "6.17.0-5-generic", "x86_64", "installed", SRC)
    h = Host(kernel=KernelInfo(release="6.17.0-5-generic"), dkms=DkmsInfo(entries=[e]))
    assert sev(judge_host(h, matrix=m), "driver.dkms-failed") == ["ok"]


def test_kernel_not_validated(m):
    h = Host(os=OsInfo(id="ubuntu", version_id="22.04", version="22.04.5"),
             kernel=KernelInfo(release="6.11.0-21-generic"), rocm_version=Fact("6.2.4", SRC))
    assert sev(judge_host(h, matrix=m), "kernel.not-validated") == ["warn"]
    h.kernel = KernelInfo(release="5.15.0-124-generic")
    assert sev(judge_host(h, matrix=m), "kernel.not-validated") == ["ok"]


def test_os_not_supported(m):
    h = Host(os=OsInfo(id="ubuntu", version_id="18.04", version="18.04.6"), rocm_version=Fact("6.2.4", SRC))
    assert sev(judge_host(h, matrix=m), "os.not-supported") == ["warn"]
    h.os = OsInfo(id="ubuntu", version_id="22.04", version="22.04.5")
    assert sev(judge_host(h, matrix=m), "os.not-supported") == ["ok"]


def test_multiple_rocm_versions(m):
    h = Host(rocm_installs=[RocmInstall("/opt/rocm-6.0.2", "6.0.2"), RocmInstall("/opt/rocm-6.2.4", "6.2.4")])
    assert sev(judge_host(h, matrix=m), "rocm.multiple-versions") == ["warn"]


def test_rocm_not_installed_only_judged_on_real_captures(m):
    assert "rocm.not-installed" not in problems(judge_host(Host(), matrix=m))
    assert sev(judge_host(Host(tool="rocmdoctor 0.1.0"), matrix=m), "rocm.not-installed") == ["warn"]
    assert sev(judge_host(Host(tool="rocmdoctor 0.1.0", torch=rocm_torch()), matrix=m),
               "rocm.not-installed") == ["info"]


def test_kfd_permission(m):
    nodes = [DeviceNode("/dev/kfd", "660", "root", "render", 0, 109),
             DeviceNode("/dev/dri/renderD128", "660", "root", "render", 0, 109)]
    h = Host(user=UserInfo("alice", 1000, ["alice", "sudo"], [1000, 27]), device_nodes=nodes)
    f = judge_host(h, matrix=m)
    assert sev(f, "perm.kfd-access") == ["fail"]
    assert "usermod -aG" in " ".join(next(x for x in f if x.id == "perm.kfd-access").fix.commands)
    h.user = UserInfo("alice", 1000, ["alice", "render", "video"], [1000, 109, 44])
    assert sev(judge_host(h, matrix=m), "perm.kfd-access") == ["ok"]
    h.user = UserInfo("root", 0, ["root"], [0])
    assert sev(judge_host(h, matrix=m), "perm.kfd-access") == ["ok"]


def test_kfd_missing_in_container(m):
    h = Host(device_nodes=[DeviceNode("/dev/kfd", exists=False)])
    assert sev(judge_host(h, matrix=m), "perm.kfd-missing") == ["fail"]


def test_cuda_torch_on_amd_host(m):
    t = TorchInfo(version="2.4.0+cu121", cuda="12.1", bundled_libs=["libcudart.so.12"], source=SRC)
    h = Host(gpus=[gpu("gfx1100")], torch=t, captured={"kfd", "torch-probe"})
    f = judge_host(h, matrix=m)
    assert sev(f, "torch.not-rocm-build") == ["fail"]
    assert "CUDA" in next(x for x in f if x.id == "torch.not-rocm-build").title


def test_cpu_torch_says_cpu(m):
    t = TorchInfo(version="1.13.1+cpu", source=SRC)
    f = judge_host(Host(gpus=[gpu("gfx1030")], torch=t), matrix=m)
    assert "CPU" in next(x for x in f if x.id == "torch.not-rocm-build").title


def test_torch_not_installed(m):
    h = Host(packages={"numpy": "1.26.4"}, captured={"pip"})
    assert sev(judge_host(h, matrix=m), "torch.not-installed") == ["warn"]
    assert "torch.not-installed" not in problems(judge_host(Host(), matrix=m))


def test_torch_arch_missing_from_wheel_gfx_list(m):
    h = Host(gpus=[gpu("gfx1201")], torch=rocm_torch("2.3.0+rocm6.0", "6.0.32830"), captured={"kfd"})
    assert sev(judge_host(h, matrix=m), "torch.arch-missing") == ["fail"]
    h.torch = rocm_torch("2.3.0+rocm6.0", "6.0.32830")
    h.gpus = [gpu("gfx90a")]
    assert sev(judge_host(h, matrix=m), "torch.arch-missing") == ["ok"]


def test_torch_arch_list_from_live_probe_wins(m):
    t = rocm_torch()
    t.arch_list = ["gfx900", "gfx906"]
    h = Host(gpus=[gpu("gfx90a")], torch=t)
    assert sev(judge_host(h, matrix=m), "torch.arch-missing") == ["fail"]


def test_torch_rocm_vs_system_rocm(m):
    h = Host(torch=rocm_torch("2.5.1+rocm6.2"), rocm_version=Fact("6.0.2", SRC))
    assert "warn" in sev(judge_host(h, matrix=m), "torch.rocm-mismatch")


def test_companion_mismatch(m):
    h = Host(torch=rocm_torch("2.5.1+rocm6.2"), packages={"torch": "2.5.1+rocm6.2", "torchvision": "0.20.1+cu124"})
    assert sev(judge_host(h, matrix=m), "torch.companion-mismatch") == ["fail"]


def test_python37_has_no_rocm_wheel(m):
    h = Host(python=PythonInfo(version="3.7.16"))
    assert sev(judge_host(h, matrix=m), "python.no-rocm-wheel") == ["fail"]
    h.python = PythonInfo(version="3.11.7")
    assert sev(judge_host(h, matrix=m), "python.no-rocm-wheel") == ["ok"]


def test_ld_library_path_shadowing(m):
    h = Host(env={"LD_LIBRARY_PATH": "/opt/rocm/lib:/usr/local/lib"}, torch=rocm_torch(), captured={"env"})
    assert sev(judge_host(h, matrix=m), "env.ld-library-path") == ["warn"]
    h.env = {"LD_LIBRARY_PATH": "/usr/local/lib"}
    assert sev(judge_host(h, matrix=m), "env.ld-library-path") == ["ok"]


def test_visible_devices_hiding_everything(m):
    h = Host(gpus=[gpu("gfx90a")], env={"HIP_VISIBLE_DEVICES": "3"}, captured={"env", "kfd"})
    assert sev(judge_host(h, matrix=m), "env.visible-devices") == ["fail"]


def test_visible_devices_past_the_count_need_an_enumeration(m):
    h = Host(gpus=[gpu("gfx90a")], env={"CUDA_VISIBLE_DEVICES": "0,1"}, captured={"env", "kfd"})
    assert sev(judge_host(h, matrix=m), "env.visible-devices") == ["warn"]
    h.captured = {"env", "logs"}  # GPUs only named in log lines (a cut rccl-tests device list): no count
    assert sev(judge_host(h, matrix=m), "env.visible-devices") == []


def test_log_signatures_become_findings(m):
    lm = LogMatch("no-binary-for-gpu", "log.no-binary-for-gpu",
                  "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!",
                  source=Source("logs/err.txt", 3))
    f = judge_host(Host(logs=[lm, lm]), matrix=m)
    assert sev(f, "log.no-binary-for-gpu") == ["fail"]  # the same line twice is reported once


def test_select_and_skip(m):
    h = Host(gpus=[gpu("gfx1031")], captured={"kfd", "env"})
    only = judge_host(h, select=["gpu.override-needed"], matrix=m)
    assert {f.id for f in only} == {"gpu.override-needed"}
    skipped = judge_host(h, skip=["gpu.override-needed"], matrix=m)
    assert "gpu.override-needed" not in {f.id for f in skipped}


def test_a_crashing_check_becomes_an_error_finding_and_others_still_run(m):
    from rocmdoctor.judge import registry

    @check("test.boom", title="Boom")
    def boom(host, matrix):
        raise ValueError("kaput")

    try:
        f = run_checks(Host(captured={"kfd"}), m)
        assert sev(f, "test.boom") == ["error"]
        assert sev(f, "gpu.none-found") == ["fail"]
    finally:
        registry._CHECKS[:] = [c for c in registry._CHECKS if c.func is not boom]


def test_cmdline_nomodeset_fails(m):
    h = Host(cmdline=Fact("BOOT_IMAGE=/vmlinuz ro quiet nomodeset", Source("root/proc/cmdline")))
    assert sev(judge_host(h, matrix=m), "kernel.cmdline") == ["fail"]
    h.cmdline = Fact("BOOT_IMAGE=/vmlinuz ro modprobe.blacklist=nouveau,amdgpu", Source("root/proc/cmdline"))
    assert sev(judge_host(h, matrix=m), "kernel.cmdline") == ["fail"]
    h.cmdline = Fact("BOOT_IMAGE=/vmlinuz ro quiet iommu=pt", Source("root/proc/cmdline"))
    assert sev(judge_host(h, matrix=m), "kernel.cmdline") == ["ok"]


def test_dmesg_errors_warn(m):
    lines = [Fact("[    3.1] amdgpu 0000:03:00.0: amdgpu: ring gfx_0.0.0 timeout, signaled seq=1",
                  Source("cmd/dmesg.txt", 4)),
             Fact("[    2.0] [drm] amdgpu kernel modesetting enabled.", Source("cmd/dmesg.txt", 1))]
    f = judge_host(Host(dmesg=lines, captured={"dmesg"}), matrix=m)
    assert sev(f, "driver.dmesg-errors") == ["warn"]
    assert len(next(x for x in f if x.id == "driver.dmesg-errors").evidence) == 1
    assert sev(judge_host(Host(dmesg=lines[1:], captured={"dmesg"}), matrix=m), "driver.dmesg-errors") == ["ok"]


def test_kmd_window(m):
    e = DkmsEntry("amdgpu", "6.3.6-1697589.22.04", "6.2.0-39-generic", "x86_64", "installed", SRC)
    far = Host(rocm_version=Fact("7.1.1", SRC), dkms=DkmsInfo(entries=[e]))
    near = Host(rocm_version=Fact("6.0.2", SRC), dkms=DkmsInfo(entries=[e]))
    assert sev(judge_host(near, matrix=m), "rocm.kmd-mismatch") == ["ok"]
    assert sev(judge_host(far, matrix=m), "rocm.kmd-mismatch") == ["warn"]


def test_render_group_missing_is_info(m):
    assert sev(judge_host(Host(groups_file={"video": 44}), matrix=m), "perm.render-group") == ["info"]
    assert sev(judge_host(Host(groups_file={"video": 44, "render": 109}), matrix=m), "perm.render-group") == ["ok"]


def test_one_finding_per_signature_with_every_line_as_evidence(m):
    a = LogMatch("invalid-device-function", "log.invalid-device-function", "HIP error: invalid device function",
                 source=Source("logs/a.txt", 3))
    b = LogMatch("invalid-device-function", "log.invalid-device-function", "HIP error: invalid device function",
                 source=Source("logs/b.txt", 9))
    f = [x for x in judge_host(Host(logs=[a, b]), matrix=m) if x.id == "log.invalid-device-function"]
    assert len(f) == 1 and f[0].severity == Severity.FAIL
    assert f[0].evidence == ["logs/a.txt:3", "logs/b.txt:9"] and "(2 times)" in f[0].title


def test_pcie_link_width_downgrade_warns(m):
    src = Source("root/sys/class/drm/card1/device/current_link_width", 1, "8")
    g = GpuInfo(index=0, gfx_by_source={"kfd": "gfx90a"}, pcie_width=8, pcie_max_width=16, sources=[src])
    f = judge_host(Host(gpus=[g], captured={"drm"}), matrix=m)
    assert sev(f, "gpu.pcie-link") == ["warn"] and "x8 of x16" in next(x for x in f if x.id == "gpu.pcie-link").title
    g.pcie_width = 16
    assert sev(judge_host(Host(gpus=[g], captured={"drm"}), matrix=m), "gpu.pcie-link") == ["ok"]


def test_pcie_link_parsed_from_drm_sysfs(tmp_path):
    from rocmdoctor.bundle import load_host

    dev = tmp_path / "root/sys/class/drm/card1/device"
    dev.mkdir(parents=True)
    for name, value in {"vendor": "0x1002", "device": "0x740f", "revision": "0x02", "current_link_width": "4",
                        "max_link_width": "16", "current_link_speed": "16.0 GT/s PCIe",
                        "max_link_speed": "16.0 GT/s PCIe"}.items():
        (dev / name).write_text(value + "\n")
    host = load_host(tmp_path)
    assert host.gpus[0].pcie_width == 4 and host.gpus[0].pcie_max_width == 16
    assert host.gpus[0].pcie_speed == "16.0 GT/s PCIe"
    assert sev(judge_host(host), "gpu.pcie-link") == ["warn"]


# A dated nightly is judged by the list of the day it was built (matrices/torch_builds.toml [[nightly_epoch]]),
# never by the later release's: pytorch/pytorch#164346 (gfx1151, torch 2.10.0.dev20250929+rocm7.0, "invalid
# device function"; gfx1151 joined the wheels with #167299 on 2025-11-07).
NIGHTLY_CASES = [
    ("2.10.0.dev20250929+rocm7.0", "fail", "#164346: a nightly from before #167299"),
    ("2.10.0+rocm7.0", "ok", "the torch 2.10 release builds have gfx1151 (#167299 before the 2.10 cut)"),
    ("2.10.0.dev20251120+rocm7.0", "ok", "a nightly after #167299"),
    ("2.10.0.dev20251107+rocm7.0", "skip", "built the day #167299 merged: not known either way"),
    ("2.10.0.dev+rocm7.0", "skip", "a dev build without a date: not the release's list"),
    ("2.4.0.dev20240301+rocm6.0", "skip", "before the replay's base (builder release/2.4)"),
]


@pytest.mark.parametrize(("version", "want", "why"), NIGHTLY_CASES, ids=[c[0] for c in NIGHTLY_CASES])
def test_arch_missing_reads_a_dated_nightly(version: str, want: str, why: str) -> None:
    h = Host(gpus=[gpu("gfx1151")], captured={"kfd"}, torch=rocm_torch(version, "7.0.51831-a3e329ad8"))
    assert sev(judge_host(h), "torch.arch-missing") == [want], why


def _apt_missing(package: str) -> LogMatch:
    return LogMatch("apt-unable-to-locate-package", "log.package-install-failed",
                    f"E: Unable to locate package {package}", {"package": package}, Source("paste.txt", 3))


def test_wsl_runtime_missing_is_the_installer_release_not_the_os() -> None:
    """ROCm/legacy-rocm-build#4064, #3051: apt cannot find AMD's WSL runtime -> the installer's release has no WSL
    build for this Ubuntu release (os.not-supported fail), even with the OS or the WSL kernel not captured."""
    h = Host(os=OsInfo(id="ubuntu", version_id="24.04"), logs=[_apt_missing("hsa-runtime-rocr4wsl-amdgpu")])
    got = [f for f in judge_host(h) if f.id == "os.not-supported"]
    assert [f.severity.value for f in got] == ["fail"]
    assert "WSL runtime" in got[0].title and "24.04" in got[0].title
    assert sev(judge_host(Host(logs=[_apt_missing("hsa-runtime-rocr4wsl-amdgpu")])), "os.not-supported") == ["fail"]


def test_other_missing_packages_do_not_condemn_the_os() -> None:
    h = Host(os=OsInfo(id="ubuntu", version_id="24.04"), logs=[_apt_missing("amdgpu-lib32")])
    assert "fail" not in sev(judge_host(h), "os.not-supported")


def test_source_build_is_not_judged_by_the_pytorch_org_list() -> None:
    """A '+git' torch (AMD's rocm/pytorch images, vllm-project/vllm#17170's 2.7.0a0+git1341794) compiles its own
    PYTORCH_ROCM_ARCH: pytorch.org's list for that release says nothing about it, either way."""
    h = Host(gpus=[gpu("gfx1201")], captured={"kfd"}, torch=rocm_torch("2.4.0a0+git1341794", "6.1.40091-a8dbc0c19"))
    assert sev(judge_host(h), "torch.arch-missing") == ["skip"]
    h.torch = rocm_torch("2.4.1+rocm6.1", "6.1.40091-a8dbc0c19")  # the pytorch.org wheel: no gfx1201 in 2.4
    assert sev(judge_host(h), "torch.arch-missing") == ["fail"]


DKMS3 = """Autoinstall of module amdgpu/6.16.13-2278356.24.04 for kernel 6.18.7-061807-generic (x86_64)
Building module(s)......(bad exit status: 2)
Failed command:
'make' KERNELVER=6.18.7-061807-generic
"""  # DKMS 3.x output, verbatim from ROCm/legacy-rocm-build#5905


def test_dkms3_build_failure_is_read_and_judged_for_its_kernel() -> None:
    """DKMS 3.x names the module version on its 'Autoinstall of module' line; with no running kernel in the
    paste, the failed build is judged for the kernel it failed on (the #5905 breakage row)."""
    from rocmdoctor.parse.dkms import parse_dkms

    info = parse_dkms(DKMS3, "paste.txt")
    assert info.failed_kernels == ["6.18.7-061807-generic"]
    assert [(e.module, e.version, e.status) for e in info.entries] == [
        ("amdgpu", "6.16.13-2278356.24.04", "build-failed")]
    found = judge_host(Host(dkms=info, os=OsInfo(id="ubuntu", version_id="25.10")))
    assert sev(found, "driver.dkms-breakage") == ["fail"]
    assert any("5905" in (f.fix.url or "") for f in found if f.id == "driver.dkms-breakage" and f.fix)


def test_a_rocm_release_without_a_wsl_build_is_not_supported_under_wsl() -> None:
    """ROCm/legacy-rocm-build#5106 (AMD: 'ROCm 6.4.2 does not have WSL support'); 6.4.1 is not marked."""
    h = Host(kernel=KernelInfo(release="6.6.87.2-microsoft-standard-WSL2", is_wsl=True),
             rocm_version=Fact("6.4.2", Source("paste.txt", 20)))
    found = [f for f in judge_host(h) if f.id == "os.not-supported"]
    assert [f.severity.value for f in found] == ["fail"] and "no WSL build" in found[0].title
    h.rocm_version = Fact("6.4.1", Source("paste.txt", 20))
    assert "fail" not in sev(judge_host(h), "os.not-supported")
    h.kernel = KernelInfo(release="6.8.0-45-generic")  # not WSL: 6.4.2 is fine
    h.rocm_version = Fact("6.4.2", Source("paste.txt", 20))
    assert "fail" not in sev(judge_host(h), "os.not-supported")


@pytest.mark.parametrize(("mode", "group", "logs", "want"), [
    ("660", "root", True, ["fail"]),   # Hal0ai/hal0#420: root:root 0660 and the runtime saw no device
    ("660", "root", False, ["warn"]),  # only root can open it: worth fixing before it bites
    ("666", "root", True, ["skip"]),   # others may read-write: the group does not matter (user not captured)
    ("660", "render", True, ["skip"]),
])
def test_kfd_owned_by_another_group(mode: str, group: str, logs: bool, want: list[str]) -> None:
    node = DeviceNode("/dev/kfd", mode=mode, owner="root", group=group, source=Source("paste.txt", 3))
    no_dev = [LogMatch("hip-error-no-device", "log.hip-error-no-device", "no ROCm-capable device is detected",
                       {}, Source("paste.txt", 4))] if logs else []
    assert sev(judge_host(Host(device_nodes=[node], logs=no_dev)), "perm.kfd-access") == want


def test_distribution_rocm_packages_outranking_amds_are_two_sources() -> None:
    """ROCm/legacy-rocm-build#1899: Ubuntu's rocminfo 5.0.0-1 sorts above AMD's 1.0.0.50400 (ROCm 5.4.0)."""
    from rocmdoctor.parse.logs import scan

    text = (" rocm-hip-runtime : Depends: rocminfo (= 1.0.0.50400-72~22.04) but 5.0.0-1 is to be installed\n"
            " rocm-hip-runtime-dev : Depends: rocm-device-libs (= 1.0.0.50400-72~22.04)"
            " but 5.0.0-1 is to be installed\n")
    found = [f for f in judge_host(Host(logs=scan(text, "paste.txt"))) if f.id == "rocm.multiple-versions"]
    assert [f.severity.value for f in found] == ["warn"]
    assert "ROCm 5.4.0" in found[0].title and found[0].fix is not None
    assert found[0].fix.commands == ["sudo apt remove rocm-device-libs rocminfo"]


def test_igpu_fix_names_no_index_the_input_does_not_order() -> None:
    """GPUs named in prose have no runtime order (ROCm/TheRock#5543: the iGPU is cuda:0 although the report names
    the dGPU first): the fix must not pick an index; on Windows it is PowerShell."""
    gpus = [gpu("gfx1100", source="log"), gpu("gfx1036", index=1, source="log")]
    found = [f for f in judge_host(Host(gpus=gpus)) if f.id == "gpu.igpu-visible"]
    assert found and found[0].fix is not None and "<index of the discrete GPU>" in found[0].fix.commands[0]
    win = Host(gpus=gpus, context={"windows": Fact("Windows 11", Source("paste.txt", 1))})
    cmds = [f.fix.commands for f in judge_host(win) if f.id == "gpu.igpu-visible" and f.fix]
    assert cmds and cmds[0][0].startswith("$env:HIP_VISIBLE_DEVICES=")
    enumerated = Host(gpus=[gpu("gfx1100"), gpu("gfx1036", index=1)], captured={"kfd"})
    cmds = [f.fix.commands for f in judge_host(enumerated) if f.id == "gpu.igpu-visible" and f.fix]
    assert cmds and cmds[0][0] == "export ROCR_VISIBLE_DEVICES=0"


def test_runtime_rejecting_the_kernel_driver_is_the_kmd_mismatch() -> None:
    """ROCm/legacy-rocm-build#1423: rocminfo's 'Incompatible kernel and userspace, Vega 20 [Radeon VII] disabled'."""
    from rocmdoctor.parse.logs import scan

    logs = scan("HSA Error:  Incompatible kernel and userspace, Vega 20 [Radeon VII] disabled. Upgrade amdgpu.\n", "p")
    assert sev(judge_host(Host(logs=logs)), "rocm.kmd-mismatch") == ["fail"]


def test_an_override_known_not_to_work_is_never_suggested(m) -> None:
    """matrices/overrides.toml marks gfx1150 -> 11.0.0 broken (HSA_STATUS_ERROR_INVALID_ISA): no 'needs' line."""
    found = judge_host(Host(gpus=[gpu("gfx1150")], captured={"kfd"}))
    assert not [f for f in found if f.id == "gpu.override-needed" and "HSA_OVERRIDE_GFX_VERSION=11.0.0" in f.title]
    assert m.gpu("gfx1150") is not None and m.gpu("gfx1150").override is None


def _scan(text: str) -> list[LogMatch]:
    from rocmdoctor.parse.logs import scan

    return scan(text, "paste.txt")


def test_an_override_the_report_ran_with_is_not_the_fix() -> None:
    """ggml-org/llama.cpp#4454: 'I'm using a 6700XT ... with HSA_OVERRIDE_GFX_VERSION=10.3.0' and still 'invalid
    device function': the build lacks the code; ROCm/legacy-rocm-build#3015: the override 'does *not* fix' gfx1036."""
    said = "(I'm using a 6700XT, which is gfx1031, with HSA_OVERRIDE_GFX_VERSION=10.3.0, on commit 948ff13)"
    err = "CUDA error 98 at ggml-cuda.cu:7788: invalid device function\n"
    h = Host(gpus=[gpu("gfx1031", source="log")], logs=_scan(err),
             context={"override-shell": Fact("10.3.0", Source("paste.txt", 1, said))})
    assert sev(judge_host(h), "log.invalid-device-function") == ["fail"]
    assert "fail" not in sev(judge_host(h), "gpu.override-needed")
    igpu = "adding HSA_OVERRIDE_GFX_VERSION=10.3.0 does *not* fix the issue"
    h2 = Host(gpus=[gpu("gfx1036", source="log")], context={"override-shell": Fact("10.3.0", Source("p", 22, igpu))},
              logs=_scan("rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: No such file"
                         " or directory for GPU arch : gfx1036\n"))
    assert "fail" in sev(judge_host(h2), "gpu.arch-unsupported")
    suggested = "try export HSA_OVERRIDE_GFX_VERSION=10.3.0"  # a fix suggested to them: still the override
    h3 = Host(gpus=[gpu("gfx1031", source="log")], logs=_scan("hipErrorNoBinaryForGpu: Unable to find code object\n"),
              context={"override-shell": Fact("10.3.0", Source("p", 3, suggested))})
    assert sev(judge_host(h3), "gpu.override-needed") == ["fail"]


def test_a_code_error_shows_the_process_ran_without_the_override() -> None:
    """ROCm/legacy-rocm-build#2061: an RX 6600 and hipErrorNoBinaryForGpu, no environment captured."""
    h = Host(gpus=[gpu("gfx1032", source="log")], logs=_scan("hipErrorNoBinaryForGpu: Unable to find code object for"
                                                             " all current devices!\n"))
    assert sev(judge_host(h), "gpu.override-needed") == ["fail"]
    assert len([f for f in judge_host(h) if f.id == "log.no-binary-for-gpu"]) == 1
    assert "times" not in next(f.title for f in judge_host(h) if f.id == "log.no-binary-for-gpu")  # one line


def test_a_hang_on_a_gpu_that_runs_only_as_another_isa_is_the_unsupported_target() -> None:
    """ROCm/legacy-rocm-build#4557 (AMD: gfx1103 is not supported; as gfx1100 it can need more VGPRs)."""
    h = Host(gpus=[gpu("gfx1103", source="log")],
             logs=_scan("HW Exception by GPU node-1 (Agent handle: 0x11dd2220) reason :GPU Hang\n"))
    assert sev(judge_host(h), "gpu.arch-unsupported") == ["fail"]
    assert sev(judge_host(h), "log.gpu-hang") == ["fail"]


def test_rocblas_of_the_rocm_in_use_lacking_an_unsupported_gfx_is_a_fail() -> None:
    """vllm-project/vllm#28460: the image's rocBLAS lists no gfx1150 file."""
    h = Host(gpus=[gpu("gfx1150", source="log")],
             logs=_scan("rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: Illegal seek "
                        "for GPU arch : gfx1150\n"))
    found = [f for f in judge_host(h) if f.id == "gpu.arch-unsupported"]
    assert [f.severity.value for f in found] == ["fail"] and "no rocBLAS kernels" in found[0].title


def test_a_rocminfo_cut_before_its_agents_is_no_evidence_of_no_gpu(tmp_path) -> None:
    """ROCm/legacy-rocm-build#4557: the paste's rocminfo stops before its agent list."""
    from rocmdoctor.bundle import load_host

    p = tmp_path / "paste.txt"
    p.write_text("ROCk module is loaded\n=====================\nHSA System Attributes\n=====================\n"
                 "Runtime Version:         1.1\nDMAbuf Support:          YES\n")
    assert "fail" not in sev(judge_host(load_host(p)), "gpu.none-found")


def test_amdsmi_init_failure_is_information_under_wsl() -> None:
    """ROCm/legacy-rocm-build#5000 (AMD: expected in WSL, amd-smi is not available there)."""
    line = "torch/cuda/__init__.py:721: UserWarning: Can't initialize amdsmi - Error code: 34\n"
    wsl = Host(kernel=KernelInfo(release="6.6.87.2-microsoft-standard-WSL2", is_wsl=True), logs=_scan(line))
    assert sev(judge_host(wsl), "log.amdsmi-init-failed") == ["info"]
    assert sev(judge_host(Host(logs=_scan(line))), "log.amdsmi-init-failed") == ["warn"]
