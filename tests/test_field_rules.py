"""Rules taught by the blind field rounds (fixtures/README.md, "Field fixtures"): each test states the general
rule with the thread it came from, and a look-alike that must not trigger it."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import pytest

from rocmdoctor.bundle import load_host
from rocmdoctor.diagnose import judge_host
from rocmdoctor.errors import BadInput
from rocmdoctor.model import Host, Severity


def judged(tmp_path: Path, text: str, name: str = "paste.txt") -> dict[str, list]:
    p = tmp_path / name
    p.write_text(text)
    out: dict[str, list] = {}
    for f in judge_host(load_host(p)):
        out.setdefault(f.id, []).append(f)
    return out


def _write(tmp_path: Path, text: str, name: str = "paste.txt") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def problems(found: dict[str, list]) -> dict[str, str]:
    return {fid: max((f.severity for f in fs), key=lambda s: s.rank).value for fid, fs in found.items()
            if any(f.severity in (Severity.WARN, Severity.FAIL) for f in fs)}


def _problems_if_read(tmp_path: Path, text: str, name: str) -> dict[str, str]:
    """:func:`problems` of ``text``, or none when nothing in it can be read (the paste is refused, exit 2)."""
    try:
        return problems(judged(tmp_path, text, name))
    except BadInput:
        return {}


def _ran_on_the_gpu(tmp_path: Path, text: str, *look_alikes: str) -> None:
    """``text`` is a judged, healthy report that a program ran on the GPU; none of ``look_alikes`` says so."""
    host = load_host(_write(tmp_path, text))
    assert "gpu-run-ok" in host.context and problems(judged(tmp_path, text)) == {}
    for n, other in enumerate(look_alikes):
        read = _host_if_read(tmp_path, other, f"other{n}.txt")
        assert read is None or "gpu-run-ok" not in read.context


def _the_one_fail(tmp_path: Path, text: str, fid: str, in_title: str) -> None:
    """``text`` gets exactly one problem, ``fid`` as a fail, whose title names ``in_title``."""
    found = judged(tmp_path, text)
    assert problems(found) == {fid: "fail"}
    assert in_title in found[fid][0].title


def _host_if_read(tmp_path: Path, text: str, name: str) -> Optional[Host]:
    """The host ``text`` describes, or None when nothing in it can be read (the paste is refused, exit 2)."""
    try:
        return load_host(_write(tmp_path, text, name))
    except BadInput:
        return None


def _one_problem(tmp_path: Path, text: str, want: tuple[str, str, str], look_alike: str) -> None:
    """``text`` gives exactly one problem (id, severity, a word of its title); ``look_alike`` gives none."""
    fid, severity, word = want
    found = judged(tmp_path, text)
    assert problems(found) == {fid: severity}
    assert word in found[fid][0].title
    assert problems(judged(tmp_path, look_alike, "look-alike.txt")) == {}


def _fires_only_in(tmp_path: Path, text: str, quiet: str, other: str, want: tuple[str, str]) -> None:
    """``text`` raises no problem ``quiet``; ``other`` (its look-alike) raises problem ``want`` (id, severity)."""
    assert quiet not in problems(judged(tmp_path, text))
    assert problems(judged(tmp_path, other, "other.txt")).get(want[0]) == want[1]


def _fires_unless(tmp_path: Path, text: str, want: tuple[str, str], change: tuple[str, str]) -> None:
    """``text`` gives problem ``want`` (id, severity) among any others; ``text`` with ``change`` made does not."""
    fid, severity = want
    assert problems(judged(tmp_path, text)).get(fid) == severity
    assert change[0] in text
    assert fid not in problems(judged(tmp_path, text.replace(*change), "look-alike.txt"))


def test_a_source_built_bitsandbytes_looking_for_torchs_rocm_library_is_a_rocm_mismatch(tmp_path: Path) -> None:
    """ROCm/bitsandbytes#82: built with the system's ROCm 6.4, asked at run time for the rocm63 library."""
    line = ("Could not find the bitsandbytes ROCm binary at PosixPath('/home/u/src/bitsandbytes/bitsandbytes/"
            "libbitsandbytes_rocm63.so')\n")
    found = problems(judged(tmp_path, line))
    assert found == {"torch.rocm-mismatch": "warn", "log.bitsandbytes-no-gpu": "warn"}
    # a pip-installed bitsandbytes lacking the library is a release without it, not a build against another ROCm
    wheel = line.replace("/home/u/src/bitsandbytes/", "/home/u/.venv/lib/python3.12/site-packages/")
    assert problems(judged(tmp_path, wheel, "w.txt")) == {"log.bitsandbytes-no-gpu": "warn"}


def test_a_therock_per_family_index_without_the_gpus_target_is_arch_missing(tmp_path: Path) -> None:
    """ROCm/TheRock#1079: the gfx110X-dgpu index's torch on a machine whose only GPU is gfx1151."""
    line = ("python -m pip install --index-url=https://d2awnip2yjpvqn.cloudfront.net/v2/gfx110X-dgpu "
            "torch==2.7.0a0+rocm7.0.0rc20250717\n")
    found = judged(tmp_path, "I installed these wheels on a device with only gfx1151:\n" + line)
    assert problems(found) == {"torch.arch-missing": "fail"}
    assert "gfx110X-dgpu" in found["torch.arch-missing"][0].title
    # the family that holds the GPU's target is no problem: the index's own table lists gfx1103 in gfx110X-all
    ok = judged(tmp_path, "on a device with only gfx1103\nrocm-sdk-libraries-gfx110X-all==6.5.0rc20250610\n", "b.txt")
    assert [f.severity for f in ok["torch.arch-missing"]] == [Severity.OK]
    # a family the data does not know is not judged by its name
    unknown = judged(tmp_path, "on a device with only gfx1151\n.../v2/gfx90X-dcgpu/ torch\n", "c.txt")
    assert "torch.arch-missing" not in problems(unknown)


def test_a_radeon_model_number_in_lower_case_prose_names_the_gpu(tmp_path: Path) -> None:
    """AshleyYakeley/stable-diffusion-rocm#4: 'don't try running this on a 6700/6700 xt/6750' beside
    hipErrorNoBinaryForGpu: the RX 6700 XT (gfx1031) needs the 10.3.0 override."""
    text = ('"hipErrorNoBinaryForGpu: Unable to find code object for all current devices!"\n'
            "Navi 22 isn't supported as of yet so don't trying running this on a 6700/6700 xt/6750 etc.\n")
    found = judged(tmp_path, text)
    assert problems(found) == {"gpu.override-needed": "fail", "log.no-binary-for-gpu": "fail"}
    assert "10.3.0" in found["gpu.override-needed"][0].title
    # a number followed by other words is not a GPU
    unnamed = text.replace("6700 xt", "6700 units").replace("Navi 22", "It")  # (the codename names it too)
    assert "gpu.override-needed" not in problems(judged(tmp_path, unnamed, "b.txt"))


def test_an_apt_pin_written_with_echo_without_e_is_void(tmp_path: Path) -> None:
    """ROCm/legacy-rocm-build#3946: bash's echo wrote the pin's \\n literally; Ubuntu's ROCm packages won."""
    pin = 'echo "Package: *\\nPin: release o=repo.radeon.com\\nPin-Priority: 600" | sudo tee /etc/apt/preferences.d/r\n'
    found = judged(tmp_path, pin)
    assert problems(found) == {"log.apt-pin-ignored": "warn", "rocm.multiple-versions": "warn"}
    for good in (pin.replace("echo ", "echo -e "), pin.replace("echo ", "printf ")):
        assert problems(judged(tmp_path, good, "g.txt")) == {}, good


def test_the_wheels_own_rocblas_without_a_gfx_names_the_only_gpu(tmp_path: Path) -> None:
    """pytorch/pytorch#96964: torch 2.0.0's bundled rocBLAS has no gfx1100 library; its error names no gfx, and
    the only GPU is an RX 7900 XTX ('GPU：AMD 7900XTX', 'Pytorch: 2.0.0')."""
    text = ("rocBLAS error: Cannot read /home/k/env/lib/python3.9/site-packages/torch/lib/rocblas/library/"
            "TensileLibrary.dat: No such file or directory\nGPU：AMD 7900XTX\nPytorch: 2.0.0\n")
    found = judged(tmp_path, text)
    assert problems(found) == {"torch.arch-missing": "fail", "log.no-binary-for-gpu": "fail"}
    assert "torch 2.0.0" in found["torch.arch-missing"][0].title
    # the system's rocBLAS (not the wheel's) is not the wheel's fault
    system = judged(tmp_path, text.replace("/home/k/env/lib/python3.9/site-packages/torch/lib", "/opt/rocm/lib"),
                    "s.txt")
    assert "torch.arch-missing" not in problems(system)


def test_no_override_advice_on_native_windows(tmp_path: Path) -> None:
    """ollama#12071: on Windows nothing reads HSA_OVERRIDE_GFX_VERSION (AMD, ROCm/TheRock#1719); one that is set
    there is a warning to remove it, never the fix."""
    log = ('time=... level=WARN msg="amdgpu is not supported (supported types:[])" gpu_type=gfx1032 gpu=0 '
           'library=C:\\Users\\me\\AppData\\Local\\Programs\\Ollama\\lib\\ollama\\rocm\nGPU: AMD Radeon RX 6600\n')
    found = judged(tmp_path, log + "### OS\n\nwindows\n")
    assert "gpu.override-needed" not in problems(found)
    assert "gpu.override-mismatch" not in problems(found)
    set_too = judged(tmp_path, log + "### OS\n\nwindows\nset HSA_OVERRIDE_GFX_VERSION=10.3.0\n", "b.txt")
    assert problems(set_too).get("gpu.override-mismatch") == "warn"
    assert "gpu.override-needed" not in problems(set_too)
    # the same log from Linux keeps the override advice (the process ran without it)
    linux = judged(tmp_path, log.replace("C:\\Users\\me\\AppData\\Local\\Programs\\Ollama", "/usr"), "c.txt")
    assert problems(linux).get("gpu.override-needed") == "fail"


def test_hipblaslts_runtime_error_is_fatal_and_its_warning_is_not(tmp_path: Path) -> None:
    """ROCm/hipBLASLt#1243: 'RuntimeError: ... on a unsupported architecture!' stops the program (a torch nightly
    regression); the 'on an unsupported architecture' UserWarning only falls back to hipBLAS."""
    fatal = judged(tmp_path, '"RuntimeError: Attempting to use hipBLASLt on a unsupported architecture!"\n'
                             "This is with\ntorch==2.6.0.dev20241015+rocm6.2\n")
    assert problems(fatal) == {"log.hipblaslt-unsupported-arch": "fail"}
    warn = judged(tmp_path, "UserWarning: Attempting to use hipBLASLt on an unsupported architecture! Overriding "
                            "blas backend to hipblas\n", "w.txt")
    assert problems(warn) == {}
    assert [f.severity for f in warn["log.hipblaslt-unsupported-arch"]] == [Severity.INFO]


def test_a_gpu_seen_as_root_and_not_as_the_user_is_a_permission_problem(tmp_path: Path) -> None:
    """ROCm/legacy-rocm-build#1826: clinfo lists gfx1033 as root and nothing as the user (in video, not render)."""
    text = ("I can't list devices as user:\n\nillwieckz@test:~$ clinfo --list\n\nBut I can do it as root:\n\n"
            "Note: the user is already in the `video` group.\n")
    found = judged(tmp_path, text)
    assert problems(found) == {"perm.kfd-access": "fail"}
    assert "render" in found["perm.kfd-access"][0].detail
    # one half alone is no evidence: "as root" alone, or a failure as user without root working
    assert problems(judged(tmp_path, "But I can do it as root:\n", "a.txt")) == {}
    assert problems(judged(tmp_path, "I can't list devices as user:\n", "b.txt")) == {}


def test_kernel_and_rocm_in_markdown_lists_and_tables_and_a_walker_error_are_read(tmp_path: Path) -> None:
    """ROCm/legacy-rocm-build#6146 ('- **Kernel**: Linux 6.17.0-20-generic') and ROCm/amdgpu#213 ('| **ROCm** | 7.1.1
    (Docker...) |', 'on kernel 6.17.0-1017-oem', 'WALKER_ERROR: 0x1'): kernels AMD did not validate for the ROCm."""
    listed = judged(tmp_path, "- **ROCm**: 7.2.1 (70201-81~24.04)\n- **OS**: Ubuntu 24.04.4 LTS\n"
                              "- **Kernel**: Linux 6.17.0-20-generic\nMemory access fault by GPU node-1 (Agent handle: "
                              "0x...)\n")
    assert problems(listed) == {"kernel.not-validated": "warn", "log.gpu-memory-access-fault": "fail"}
    table = judged(tmp_path, "faults with WALKER_ERROR: 0x1 on kernel 6.17.0-1017-oem and 6.17.0-20-generic.\n\n"
                             "| Field | Value |\n|---|---|\n| **OS** | Ubuntu 24.04 LTS |\n"
                             "| **ROCm** | 7.1.1 (Docker) |\n",
                   "t.txt")
    assert problems(table) == {"kernel.not-validated": "warn", "log.gpu-memory-access-fault": "fail"}
    assert "6.17.0-1017-oem" in table["kernel.not-validated"][0].title
    # a validated kernel is no warning; WALKER_ERROR: 0x0 is no fault
    good = judged(tmp_path, "- **ROCm**: 7.2.1\n- **OS**: Ubuntu 24.04.4 LTS\n- **Kernel**: Linux 6.8.0-45-generic\n"
                            "WALKER_ERROR: 0x0\n", "g.txt")
    assert problems(good) == {}


def test_a_rocm_package_depending_on_what_the_release_lacks_is_an_unsupported_os(tmp_path: Path) -> None:
    """ROCm/legacy-rocm-build#1730: ROCm 5.2's rocm-llvm needs 'python' and libstdc++-5-dev, which Ubuntu 22.04
    does not ship: direct evidence the packages were built for another release."""
    apt = ("The following packages have unmet dependencies:\n rocm-llvm : Depends: python but it is not installable\n"
           "E: Unable to correct problems, you have held broken packages.\n")
    found = judged(tmp_path, apt)
    assert problems(found) == {"os.not-supported": "fail", "log.package-install-failed": "fail"}
    # a version held back, or a non-ROCm package, is not this
    held = apt.replace("Depends: python but it is not installable", "Depends: python3 (>= 3.10) but 3.8.2 is to be "
                                                                    "installed")
    assert "os.not-supported" not in problems(judged(tmp_path, held, "h.txt"))
    other = apt.replace("rocm-llvm", "gimp")
    assert "os.not-supported" not in problems(judged(tmp_path, other, "o.txt"))


def test_old_rocminfo_4104_and_only_works_with_sudo(tmp_path: Path) -> None:
    """ROCm/ROCm-docker#36: a non-root container user's rocminfo returns 4104 (0x1008, out of resources); 'rocm
    only works when using sudo': a permission problem, the 4104 its symptom."""
    text = ("within docker we now have something unexpected: rocm only works when using sudo.\n"
            "hsa api call failure at line 900, file: /rocmdata/jedwards/git/compute/rocrinfo/rocminfo.cc. "
            "Call returned 4104\n")
    found = judged(tmp_path, text)
    assert problems(found) == {"perm.kfd-access": "fail", "log.hsa-out-of-resources": "fail"}
    assert found["log.hsa-out-of-resources"][0].cause == "perm.kfd-access"


def test_a_release_older_than_the_data_is_never_called_unsupported(tmp_path: Path) -> None:
    """ROCm/legacy-rocm-build#415: an RX 570 (gfx803) under ROCm 1.8 (rocminfo's build path) was supported then;
    the data starts later, so no verdict (it had said 'not supported by ROCm 1.8'). 'RX 570' is not an RX 5700."""
    text = ("Yes its amdgpu driver loaded by default with RX570\nhsa api call failure at line 900, file: /home/"
            "jenkins/jenkins-root/workspace/compute-rocm-rel-1.8/rocminfo/rocminfo.cc. Call returned 4104\n")
    found = judged(tmp_path, text)
    assert problems(found) == {"log.hsa-out-of-resources": "fail"}
    assert [f.severity for f in found["gpu.arch-unsupported"]] == [Severity.SKIP]
    assert "older than rocmdoctor's data" in found["gpu.arch-unsupported"][0].title


def test_devices_missing_from_a_container_said_in_prose(tmp_path: Path) -> None:
    """ROCm/TheRock#7705: 'the container only passes --ipc host, so /dev/kfd and /dev/dri are not visible inside
    the container'."""
    found = judged(tmp_path, "the container only passes --ipc host, so /dev/kfd and /dev/dri are not visible "
                             "inside the container and rocminfo fails\n")
    assert problems(found) == {"container.no-kfd-device": "fail"}


@pytest.mark.parametrize(("codename", "gfx"), [("Navi 22", "gfx1031"), ("Navi 10", "gfx1010"), ("Vega 20", "gfx906"),
                                               ("Ellesmere", "gfx803"), ("Vega 10", "gfx900")])
def test_a_chip_codename_in_prose_names_the_gpu(tmp_path: Path, codename: str, gfx: str) -> None:
    """'Navi 22 isn't supported' (stable-diffusion-rocm#4): the PCI ID Repository's codename -> its devices' gfx. A
    codename that is also an APU's libdrm marketing name ('AMD Radeon Vega 10 Graphics', gfx902) is the chip
    (ROCm/legacy-rocm-build#559: 'Vega 10 XTX [Radeon Vega Frontier Edition]')."""
    from rocmdoctor.bundle import load_host
    from rocmdoctor.diagnose import enrich
    from rocmdoctor.matrix import load

    p = tmp_path / "paste.txt"
    p.write_text(f"{codename} isn't supported as of yet\n")
    host = enrich(load_host(p), load())
    assert [g.gfx for g in host.gpus] == [gfx]


def test_an_ambiguous_codename_names_no_target(tmp_path: Path) -> None:
    """'Aqua Vanjaram' is the MI300 family and the MI350 one (gfx942 and gfx950): no guess."""
    from rocmdoctor.bundle import load_host
    from rocmdoctor.diagnose import enrich
    from rocmdoctor.matrix import load

    p = tmp_path / "paste.txt"
    p.write_text("our Aqua Vanjaram nodes\n")
    host = enrich(load_host(p), load())
    assert all(g.gfx is None for g in host.gpus)


def test_probe_error_12_points_at_bar_space_and_absorbs_the_generic_init_failure(tmp_path: Path) -> None:
    """lamikr/rocm_sdk_builder#180: 'Fatal error during GPU init' + 'probe ... failed with error -12' is one problem,
    and its fix is Above 4G decoding, not the generic firmware advice."""
    text = ("[    5.408757] amdgpu 0000:03:00.0: amdgpu: Fatal error during GPU init\n"
            "[    5.408787] amdgpu 0000:03:00.0: probe with driver amdgpu failed with error -12\n")
    found = judged(tmp_path, text)
    assert [f.title for f in found["log.amdgpu-init-failed"]] == [
        "amdgpu could not map the GPU's memory (probe error -12: no PCI address space for its BARs) (2 times)"]
    fix = found["log.amdgpu-init-failed"][0].fix
    assert fix is not None and "Above 4G" in fix.explanation
    # alone, the generic line keeps its own finding
    alone = judged(tmp_path, text.splitlines()[0] + "\n", "a.txt")
    assert [f.title for f in alone["log.amdgpu-init-failed"]] == ["amdgpu could not initialise the GPU"]


def test_library_errors_after_a_path_and_from_ldd(tmp_path: Path) -> None:
    """ROCm/rocm-jax#160 (dlopen's '<plugin>.so: libdw.so.1: cannot open shared object file') and ROCm/TheRock#8163
    (ldd's 'librocm_sysdeps_hwloc.so.5 => not found')."""
    dl = ("jaxlib._jax.XlaRuntimeError: INTERNAL: Failed to open /usr/lib/python3/dist-packages/jax_plugins/xla_rocm7/"
          "xla_rocm_plugin.so: libdw.so.1: cannot open shared object file: No such file or directory\n")
    assert problems(judged(tmp_path, dl)) == {"log.missing-shared-library": "fail"}
    ldd = "$ ldd xla_rocm_plugin.so | grep 'not found'\n    librocm_sysdeps_hwloc.so.5 => not found\n"
    found = judged(tmp_path, ldd, "l.txt")
    assert problems(found) == {"log.missing-shared-library": "fail"}
    assert "librocm_sysdeps_hwloc.so.5" in found["log.missing-shared-library"][0].title
    # a resolved dependency is nothing
    assert problems(judged(tmp_path, "    libdw.so.1 => /lib/x86_64-linux-gnu/libdw.so.1 (0x7f)\n", "ok.txt")) == {}


def test_a_psp_failure_with_an_xgmi_bridge_fitted_suspects_the_bridge(tmp_path: Path) -> None:
    """ROCm/legacy-rocm-build#2747: four MI210s 'with a Infinity Fabric bridge' fail PSP ring creation; the
    reporter's unplugging test found a defective bridge. The bridge is a suspicion the paste cannot prove, but the PSP
    that could not start is the GPUs' failure to come up, a broken run: a fail that says 'suspect'."""
    psp = "[    6.1] amdgpu 0000:43:00.0: amdgpu: *ERROR* PSP create ring failed!\n"
    found = judged(tmp_path, "I have a server installed 4x MI210 GPUs with a Infinity Fabric bridge.\n" + psp)
    assert problems(found).get("health.xgmi-link") == "fail"
    assert "suspect" in found["health.xgmi-link"][0].title
    bridge_only = "I have a server installed 4x MI210 GPUs with a Infinity Fabric bridge.\n"
    assert "health.xgmi-link" not in problems(judged(tmp_path, bridge_only, "c.txt"))  # no failure: nothing broke
    assert "health.xgmi-link" not in problems(judged(tmp_path, psp, "b.txt"))  # no bridge said: firmware first


def test_a_shell_export_does_not_reach_the_ollama_service(tmp_path: Path) -> None:
    """ollama#6152: 'export HSA_OVERRIDE_GFX_VERSION=10.3.0 doesn't help' for a 6700M (gfx1031) whose ollama runs as
    a systemd service: the service never had it, so the override is still the fix, in the unit."""
    text = ("ok, the AMD 6700M GPU is not supported  export HSA_OVERRIDE_GFX_VERSION=10.3.0 doesn't help.\n\n"
            "journalctl -u ollama\nago 02 20:27:15 host systemd[1]: Started Ollama Service.\n")
    found = judged(tmp_path, text)
    assert problems(found) == {"gpu.override-needed": "fail"}
    fix = found["gpu.override-needed"][0].fix
    assert fix is not None and any("systemctl edit ollama.service" in c for c in fix.commands)


def test_ollama_dropping_the_only_gpu_is_a_failure_and_its_compute_shows_an_override(tmp_path: Path) -> None:
    """project-nomad#1074: ollama 0.30 drops the 890M (the host's only GPU) without OLLAMA_IGPU_ENABLE=1; its
    'compute=gfx1100' for a gfx1150 shows an override that fails on gfx1150."""
    line = ('msg="dropping integrated GPU; to enable, set OLLAMA_IGPU_ENABLE=1" library=ROCm compute=gfx1100 '
            'name=ROCm0 description="AMD Radeon 890M Graphics"\n')
    found = judged(tmp_path, line)
    assert problems(found) == {"log.igpu-skipped": "fail", "gpu.override-mismatch": "warn",
                               "gpu.arch-conflict": "warn"}
    # beside a discrete GPU dropping the iGPU is right: information only
    both = judged(tmp_path, line + "  Device 0: AMD Radeon RX 7900 XTX, gfx1100 (0x1100), VMM: no\n", "b.txt")
    assert [f.severity for f in both["log.igpu-skipped"]] == [Severity.INFO]


def test_no_override_advice_under_wsl_and_rocr_rejecting_the_gpu_is_the_cause(tmp_path: Path) -> None:
    """ROCm/legacy-rocm-build#3402: WSL's runtime rejects an RX 7800 XT ('ROCR: unsupported GPU'); AMD: the override
    does not work under WSL."""
    text = ("I am planning to use ROCm 6.1.3 on Windows WSL2 ... my RX 7800 XT\nROCR: unsupported GPU\n"
            "hsa api call failure at: ./sources/wsl/tools/rocminfo/rocminfo.cc:1087\n"
            "Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed\n")
    found = judged(tmp_path, text)
    assert problems(found) == {"log.unsupported-gpu-target": "fail", "log.hsa-out-of-resources": "fail"}
    assert found["log.hsa-out-of-resources"][0].cause == "log.unsupported-gpu-target"
    assert "gpu.override-needed" not in problems(found)


def test_a_native_rocminfo_line_quoted_in_a_wsl_report_is_not_this_hosts(tmp_path: Path) -> None:
    """ROCm/rocm-systems#1153 quotes native Linux's 'ROCk module is NOT loaded' beside WSL's own rocminfo output."""
    wsl = "WSL environment detected.\nhsa api call failure at: rocminfo.cc:1304\n"
    quoted = "On a proper Linux system rocminfo returns:\nROCk module is NOT loaded, possibly no GPU devices\n"
    found = judged(tmp_path, quoted + wsl)
    assert [f.severity for f in found["log.rock-not-loaded"]] == [Severity.INFO]
    alone = judged(tmp_path, quoted, "n.txt")  # without WSL's own line it is this host's rocminfo
    assert problems(alone).get("log.rock-not-loaded") == "fail"


def test_rocr_leaving_fewer_gpus_than_cuda_visible_devices_names(tmp_path: Path) -> None:
    """vllm#12572: Ray sets ROCR_VISIBLE_DEVICES="1" per worker while CUDA_VISIBLE_DEVICES="0,1" is inherited: one GPU
    left (now 0), and CUDA asks for 1 too ('invalid device ordinal')."""
    found = judged(tmp_path, 'ROCR_VISIBLE_DEVICES="1"\nCUDA_VISIBLE_DEVICES="0,1"\n')
    assert problems(found) == {"env.visible-devices": "fail"}
    assert "name a GPU that does not exist" in found["env.visible-devices"][0].title
    fine = judged(tmp_path, 'ROCR_VISIBLE_DEVICES="0,1"\nCUDA_VISIBLE_DEVICES="0,1"\n', "f.txt")
    assert "env.visible-devices" not in problems(fine)


def test_plain_lspci_names_a_device_by_its_id(tmp_path: Path) -> None:
    """ROCm/rccl#876: `lspci -v` without -nn prints '[AMD/ATI] Device 164e (rev c1)' for the Raphael iGPU beside two
    RX 7900 XTX: the id names it (gfx1036), so the visible iGPU is found."""
    text = ("06:00.0 VGA compatible controller: Advanced Micro Devices, Inc. [AMD/ATI] Device 744c (rev c8) "
            "(prog-if 00 [VGA controller])\n\tKernel driver in use: amdgpu\n"
            "16:00.0 VGA compatible controller: Advanced Micro Devices, Inc. [AMD/ATI] Device 164e (rev c1) "
            "(prog-if 00 [VGA controller])\n\tKernel driver in use: amdgpu\n")
    found = judged(tmp_path, text)
    assert problems(found) == {"gpu.igpu-visible": "warn"}


def test_a_report_saying_the_machine_has_no_amd_gpu_is_the_root(tmp_path: Path) -> None:
    """ROCm/rocm-systems#1153: 'a system without any AMD card on purpose'; WSL's rocminfo then fails."""
    text = ("I am running ROCm on a system without any AMD card on purpose.\nWSL environment detected.\n"
            "Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed\n")
    found = judged(tmp_path, text)
    assert found["gpu.none-found"][0].severity == Severity.FAIL and found["gpu.none-found"][0].cause is None
    from rocmdoctor.judge.causes import assign

    flat = [f for fs in found.values() for f in fs]
    roots = assign(flat)
    assert [r.id for r in roots] == ["gpu.none-found"]


def test_dkms_3_install_logs_and_a_pasted_make_log_are_build_results(tmp_path: Path) -> None:
    """ROCm/legacy-rocm-build#6193 (DKMS 3.x: 'Loading new amdgpu/6.16.13-... DKMS files', 'Building initial module
    amdgpu/... for 7.0.0-15-generic', then 'Bad return status ... 7.0.0-15-generic' while 7.0.0-22 runs) and
    ROCm/ROCm#2451 (a pasted make.log of amdgpu 6.2.4 on Debian 6.6.13)."""
    log = ("Kernel: Linux 7.0.0-22-generic\nLoading new amdgpu/6.16.13-2341068.24.04 DKMS files...\n"
           "Building initial module amdgpu/6.16.13-2341068.24.04 for 7.0.0-15-generic\n"
           "Building module(s)........(bad exit status: 2)\n"
           "Error! Bad return status for module build on kernel: 7.0.0-15-generic (x86_64)\n")
    found = judged(tmp_path, log)
    assert problems(found).get("driver.dkms-breakage") == "fail"  # observed on 7.0.0-15, not only predicted
    make = ("DKMS make.log for amdgpu-6.2.4-1683306.22.04 for kernel 6.6.13-amd64 (x86_64)\n"
            "make[1]: *** [/usr/src/linux-headers-6.6.13-common/Makefile:1938: /var/lib/dkms/amdgpu/build] Error 2\n"
            "make: *** [/usr/src/linux-headers-6.6.13-common/Makefile:246: __sub-make] Error 2\n")
    assert problems(judged(tmp_path, make, "m.txt")).get("driver.dkms-breakage") == "fail"
    # another program's failed make is no DKMS result
    other = "make: *** [Makefile:12: ggml-hip.o] Error 1\n"
    assert "driver.dkms-failed" not in problems(judged(tmp_path, other, "o.txt"))


def test_a_variable_named_as_not_set_is_not_set(tmp_path: Path) -> None:
    """llama.cpp#8618: 'if i let it use my iGPU by not using HIP_VISIBLE_DEVICES=0' - the crash happens unset."""
    devices = ("  Device 0: AMD Radeon RX 7700S, compute capability 11.0, VMM: no\n"
               "  Device 1: AMD Radeon 780M, compute capability 11.0, VMM: no\n")
    found = judged(tmp_path, devices + "it crashes if i let it use my iGPU by not using HIP_VISIBLE_DEVICES=0.\n")
    assert problems(found).get("gpu.igpu-visible") == "warn"
    masked = judged(tmp_path, devices + "I run it with HIP_VISIBLE_DEVICES=0 and it works\n", "m.txt")
    assert "gpu.igpu-visible" not in problems(masked)


def test_rocm_wheels_listed_for_another_python(tmp_path: Path) -> None:
    """vllm#44660: the ROCm index lists only cp312 wheels; the host runs Python 3.11."""
    text = ("an AMD/ROCm host running Python 3.11 via the --extra-index-url method\n"
            "vllm-0.22.1+rocm722-cp312-cp312-manylinux_2_34_x86_64.whl\n")
    extra = {"log.pip-extra-index-url": "warn"}  # the install method the report names (its own finding)
    assert problems(judged(tmp_path, text)) == {"python.no-rocm-wheel": "fail", **extra}
    fits = text.replace("Python 3.11", "Python 3.12")
    assert problems(judged(tmp_path, fits, "f.txt")) == extra


def test_every_run_failure_id_is_a_documented_finding() -> None:
    """RUN_FAILURES decides whether a listed GPU 'runs here': an id no check reports would be dead weight."""
    from rocmdoctor.judge.gpu_evidence import CODE_ERRORS, RUN_FAILURES

    docs = (Path(__file__).resolve().parent.parent / "docs" / "checks.md").read_text(encoding="utf-8")
    assert all(f"`{fid}`" in docs for fid in (*RUN_FAILURES, *CODE_ERRORS))


def test_extra_index_url_named_as_the_install_method(tmp_path: Path) -> None:
    """vllm#44660 says it installed 'via the `--extra-index-url` method'; advice against it is no such statement."""
    said = "Installing on Python 3.11 via the `--extra-index-url` method from the release page gives a CUDA wheel\n"
    assert problems(judged(tmp_path, said)).get("log.pip-extra-index-url") == "warn"
    advice = "Use --index-url instead of using --extra-index-url, so pip cannot pick PyPI's wheel\n"
    assert "log.pip-extra-index-url" not in problems(judged(tmp_path, advice, "a.txt"))


def test_dkms_failure_said_in_prose_is_a_build_result(tmp_path: Path) -> None:
    """ROCm/legacy-rocm-build#5110: 'AMDGPU/ROCm DKMS fails on kernel 6.16' with ROCm 6.4.2 named: the build
    failed (prose is the only evidence), 6.4.2's amdgpu-dkms is known not to build on 6.15.8+, and 6.16 is not
    a kernel AMD validated for 6.4.2 on Ubuntu 24.04."""
    text = ("AMDGPU/ROCm DKMS fails on kernel 6.16\n\n### Operating System\n\nUbuntu 24.04.2 LTS\n\n"
            "### ROCm Version\n\nROCm 6.4.2\n")
    got = problems(judged(tmp_path, text))
    assert got == {"driver.dkms-failed": "fail", "driver.dkms-breakage": "fail", "kernel.not-validated": "warn"}
    # a kernel the 6.4.2 driver builds on: the failure stays, no known breakage is claimed
    older = problems(judged(tmp_path, text.replace("6.16", "6.11"), "o.txt"))
    assert older.get("driver.dkms-failed") == "fail" and "driver.dkms-breakage" not in older
    # look-alikes: a fixed build and a sentence with no failure
    for i, line in enumerate(("DKMS no longer fails on kernel 6.16 with ROCm 6.4.3\n",
                              "DKMS builds fine on kernel 6.16\n")):
        assert "driver.dkms-failed" not in problems(judged(tmp_path, line, f"n{i}.txt"))


def test_amdgpu_dkms_configure_probe_failure(tmp_path: Path) -> None:
    """ROCm/legacy-rocm-build#2451: amdgpu-dkms's Makefile stops at 'dma_resv->seq is missing. exit....'."""
    line = ("/var/lib/dkms/amdgpu/6.2.4-1683306.22.04/build/Makefile:52: *** dma_resv->seq is missing. exit....  "
            "Stop.\n")
    assert problems(judged(tmp_path, line)).get("log.dkms-build-error") == "fail"
    other = "checking for dma_resv->seq... no\n"  # a configure probe's own answer is no failure
    assert "log.dkms-build-error" not in problems(judged(tmp_path, other, "o.txt"))


def test_bandwidth_test_data_path_failure_is_a_corrupting_link(tmp_path: Path) -> None:
    """ROCm/legacy-rocm-build#559: rocm_bandwidth_test -v's Data Path Validation FAILs between the CPU and a Vega
    FE on a PCIe riser; AMD: the PCIe link is producing errors. All PASS is a healthy link (no finding)."""
    table = ("    Device: 0,  Intel(R) Xeon(R) CPU E5-2620 v4 @ 2.10GHz\n"
             "    Device: 1,  Vega 10 XTX [Radeon Vega Frontier Edition]\n\n"
             "    Data Path Validation\n\n    D/D       0           1\n\n"
             "    0         N/A         FAIL\n\n    1         FAIL        PASS\n")
    found = judged(tmp_path, table)
    assert problems(found) == {"gpu.pcie-link": "warn"}
    (link,) = found["gpu.pcie-link"]
    assert "device 1 (Vega 10 XTX" in link.title and "0->1" in " ".join(link.evidence)
    healthy = table.replace("FAIL", "PASS")
    assert "gpu.pcie-link" not in problems(judged(tmp_path, healthy, "h.txt"))


def test_vllm_on_a_gpu_outside_its_list(tmp_path: Path) -> None:
    """ROCm/legacy-rocm-build#4447: AMD's MI300 vLLM image on an RX 6800 XT (gfx1030); AMD: vLLM only supports
    gfx1100+. The same image on an RX 7900 XTX, and vLLM named only in prose, get no such finding."""
    text = ("I have an AMD GPU (RX 6800 XT) and am unable to run Docker with vLLM.\n"
            "export DOCKER_IMG=rocm/vllm:rocm6.3.1_mi300_ubuntu22.04_py3.12_vllm_0.6.6\n")
    assert problems(judged(tmp_path, text)) == {"torch.arch-missing": "fail"}
    supported = text.replace("RX 6800 XT", "RX 7900 XTX")
    assert "torch.arch-missing" not in problems(judged(tmp_path, supported, "s.txt"))
    prose = "I have an AMD GPU (RX 6800 XT) and read that vllm might work on it.\n"
    assert "torch.arch-missing" not in problems(judged(tmp_path, prose, "p.txt"))


def test_flash_attention_target_refusal_in_either_form(tmp_path: Path) -> None:
    """ROCm/flash-attention#93 quotes the refusal bare, with two spaces ('gfx1100  is invalid or not supported by
    Flash-Attention'); setup.py's own form names a list. A sentence about the target alone is no refusal."""
    for i, line in enumerate(("gfx1100  is invalid or not supported by Flash-Attention\n",
                              "AssertionError: One of GPU archs of ['gfx908'] is invalid or not supported by "
                              "Flash-Attention\n")):
        assert problems(judged(tmp_path, line, f"f{i}.txt")).get("log.unsupported-gpu-target") == "fail"
    assert "log.unsupported-gpu-target" not in problems(judged(tmp_path, "gfx1100 is supported by ROCm 6.2\n", "o.txt"))


def test_a_patch_release_missing_from_the_data_is_judged_by_its_series(tmp_path: Path) -> None:
    """ROCm 6.2.3 is not in the data; its series lists gfx1100: an RX 7900 XTX is not 'unsupported by 6.2.3' (the
    wrong conclusion on ROCm/flash-attention#93). gfx1010 on the same release still is."""
    text = "### GPU\n\nRadeon RX 7900 XTX\n\n### ROCm Version\n\nROCm 6.2.3\n"
    _fires_only_in(tmp_path, text, "gpu.arch-unsupported", text.replace("RX 7900 XTX", "RX 5700 XT"),
                   ("gpu.arch-unsupported", "fail"))


def test_triton_nvidia_backend_on_an_amd_gpu(tmp_path: Path) -> None:
    """ROCm/ROCm#3060: torch.compile on an RX 7900 XTX fails in Triton's PTX codegen ('sm_110'): the CUDA triton
    replaced the ROCm one. The same ptxas line with no AMD GPU or ROCm torch in the report says nothing here."""
    err = ("RuntimeError: Internal Triton PTX codegen error: \n"
           "ptxas fatal   : Value 'sm_110' is not defined for option 'gpu-name'\n")
    amd = judged(tmp_path, "### GPU\n\nAMD Radeon RX 7900 XTX\n\n" + err)
    assert problems(amd).get("torch.triton-mismatch") == "fail"
    assert "torch.triton-mismatch" not in problems(judged(tmp_path, err, "n.txt"))


def test_xformers_built_for_another_torch_build(tmp_path: Path) -> None:
    """facebookresearch/xformers#1070: xFormers built for 2.3.1+cu121 beside torch 2.3.1+rocm6.0. Built for the
    same ROCm torch, the message (a version mismatch only) is no backend mismatch."""
    text = ("WARNING:xformers:WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n"
            "    PyTorch 2.3.1+cu121 with CUDA 1201 (you have 2.3.1+rocm6.0)\n")
    assert problems(judged(tmp_path, text)) == {"torch.companion-mismatch": "fail"}
    same = text.replace("2.3.1+cu121 with CUDA 1201", "2.3.0+rocm6.0 with CUDA None")
    assert "torch.companion-mismatch" not in problems(judged(tmp_path, same, "s.txt"))


def test_runtime_no_code_error_judges_a_wheel_older_than_the_data(tmp_path: Path) -> None:
    """pytorch/pytorch#53738: torch 1.8.0+rocm4.0.1 (older than the data) on an RX 470 (gfx803) says
    hipErrorNoBinaryForGpu: the wheel lacks the target. With an override set, the runtime ran another target."""
    text = ("result in ``hipErrorNoBinaryForGpu: Coudn't find binary for current devices!``\n"
            "- PyTorch Version: 1.8 (https://download.pytorch.org/whl/rocm4.0.1/torch-1.8.0%2Brocm4.0.1-cp39-cp39-"
            "linux_x86_64.whl)\n- RX470 (gfx803)+ I7 4770\n")
    assert problems(judged(tmp_path, text)).get("torch.arch-missing") == "fail"
    forced = text + "export HSA_OVERRIDE_GFX_VERSION=9.0.0\n"
    assert "torch.arch-missing" not in problems(judged(tmp_path, forced, "o.txt"))


def test_distribution_rocm_packages_are_not_judged_by_amds_list(tmp_path: Path) -> None:
    """ROCm/legacy-rocm-build#887: Arch's own ROCm and PyTorch packages on an RX 5700 (gfx1010), working: AMD's list
    (no gfx1010) is information there. A GPU-code error in the same report makes it a failure again."""
    text = ("I used manjaro and  RX5700. I installed the ROCM and pytorch-rocm from archlinux repo.\n"
            "sudo pacman -Syy rocm-hip-sdk rocm-opencl-sdk\nsudo pacman -Syy python-pytorch-rocm\n")
    found = judged(tmp_path, text)
    assert "gpu.arch-unsupported" not in problems(found) and "gpu.arch-unsupported" in found
    failing = text + "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\n"
    assert "gpu.arch-unsupported" in problems(judged(tmp_path, failing, "f.txt"))


def test_apt_fetching_one_package_from_two_sources(tmp_path: Path) -> None:
    """ROCm/legacy-rocm-build#3656: rocminfo from Ubuntu's universe (5.7.1) and from repo.radeon.com (1.0.0.60200).
    Two packages from AMD's repository alone are one source."""
    ubuntu = "Get:1 http://archive.ubuntu.com/ubuntu noble/universe amd64 rocminfo amd64 5.7.1-3build1 [25.6 kB]\n"
    amd = "Get:1 https://repo.radeon.com/rocm/apt/6.2 noble/main amd64 rocminfo amd64 1.0.0.60200-66~24.04 [29.3 kB]\n"
    assert problems(judged(tmp_path, ubuntu + amd)) == {"rocm.multiple-versions": "warn"}
    amd2 = amd.replace("rocminfo amd64 1.0.0", "rocm-smi-lib amd64 7.3.0")
    assert "rocm.multiple-versions" not in problems(judged(tmp_path, amd + amd2, "a.txt"))


def test_secure_boot_rejecting_amdgpu_itself_is_a_failure(tmp_path: Path) -> None:
    """ROCm/legacy-rocm-build#4330: 'could not insert 'amdgpu': Key was rejected by service' (Debian 12): the ROCm
    driver does not load. Another module rejected the same way stays a warning."""
    line = "modprobe: ERROR: could not insert 'amdgpu': Key was rejected by service\n"
    assert problems(judged(tmp_path, line)).get("log.module-key-rejected") == "fail"
    other = line.replace("amdgpu", "rtw_8723du")
    assert problems(judged(tmp_path, other, "o.txt")).get("log.module-key-rejected") == "warn"


def test_out_of_memory_on_a_sub_gigabyte_gpu_is_the_carveout(tmp_path: Path) -> None:
    """YanWenKun/ComfyUI-Docker#54: a Ryzen 7700 iGPU with 512 MiB in all ('total capacty', PyTorch's typo). A real
    GPU running out stays a warning."""
    tiny = ("HIP out of memory. Tried to allocate 72.00 MiB. GPU 0 has a total capacty of 512.00 MiB of which "
            "17179869183.96 GiB is free.\n")
    assert problems(judged(tmp_path, tiny)).get("log.gpu-out-of-memory") == "fail"
    big = "HIP out of memory. Tried to allocate 16.00 GiB. GPU 0 has a total capacity of 15.24 GiB of which 1 GiB\n"
    assert problems(judged(tmp_path, big, "b.txt")).get("log.gpu-out-of-memory") == "warn"


def test_lspci_block_without_a_driver_in_use_is_unbound(tmp_path: Path) -> None:
    """ROCm/legacy-rocm-build#1357: `lspci -vvv` of an MI100 lists 'Kernel modules: amdgpu' and no 'Kernel driver in
    use:' line: amdgpu did not take it. With the driver line it is bound."""
    block = ("23:00.0 Display controller: Advanced Micro Devices, Inc. [AMD/ATI] Device 738c (rev 01)\n"
             "\tSubsystem: Advanced Micro Devices, Inc. [AMD/ATI] Device 0c34\n\tKernel modules: amdgpu\n")
    _fires_unless(tmp_path, block, ("driver.not-bound", "fail"),
                  ("\tKernel modules", "\tKernel driver in use: amdgpu\n\tKernel modules"))


def test_rocminfo_listing_an_old_target_is_evidence_it_runs(tmp_path: Path) -> None:
    """ROCm/legacy-rocm-build#795: an old rocm-dkms whose rocminfo lists the RX 570 (gfx803), release unknown: no
    'unsupported' fail. The same listing beside a missing-code error is a failure again."""
    agent = ("HSA Agents\n*******\nAgent 2\n*******\n  Name:                    gfx803\n"
             "  Marketing Name:          Ellesmere [Radeon RX 470/480/570/570X/580/580X]\n"
             "  Device Type:             GPU\n")
    failing = agent + "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\n"
    _fires_only_in(tmp_path, agent, "gpu.arch-unsupported", failing, ("gpu.arch-unsupported", "fail"))


def test_ollama_names_the_gpu_it_rejected(tmp_path: Path) -> None:
    """ollama/ollama#8772: 'amdgpu is not supported (supported types:[gfx1030 ...])' gpu_type=gfx1031: an RX 6750
    that needs the 10.3.0 override the service did not get."""
    line = ('level=WARN source=amd_linux.go:378 msg="amdgpu is not supported (supported types:[gfx1030 gfx1100])" '
            "gpu_type=gfx1031 gpu=0 library=/usr/local/lib/ollama\n")
    assert problems(judged(tmp_path, line)).get("gpu.override-needed") == "fail"


def test_pip_refusing_a_wheel_for_another_python(tmp_path: Path) -> None:
    """evshiron/rocm_lab#6: a cp310 wheel refused on another Python; the refused wheel is not the installed torch
    and its tag is not the host's Python. When the report's Python is 3.10 the platform, not Python, was refused."""
    line = "ERROR: torch-2.0.1+gite19229c-cp310-cp310-linux_x86_64.whl is not a supported wheel on this platform.\n"
    found = judged(tmp_path, line)
    assert problems(found) == {"python.no-rocm-wheel": "fail"}
    same = "Python 3.10.12\n" + line
    assert "python.no-rocm-wheel" not in problems(judged(tmp_path, same, "s.txt"))


def test_the_torch_the_reporter_installed_last(tmp_path: Path) -> None:
    """Comfy-Org/ComfyUI#5138: the ROCm torch, uninstalled, then 'I tried nightly pip install --pre torch ...
    --index-url .../whl/nightly/cu124': a CUDA torch; the override the report ran with is not offered as the fix.
    An install line someone suggests is no statement of what is installed."""
    text = ("I'm on Linux Mint 22.0 and have an RX 6600\n"
            "first i installed pytorch with: pip install torch --index-url https://download.pytorch.org/whl/rocm6.1\n"
            "then I tried nightly pip install --pre torch --index-url https://download.pytorch.org/whl/nightly/cu124\n"
            "and I tried HSA_OVERRIDE_GFX_VERSION=10.3.0 python main.py but I get the same error\n"
            "RuntimeError: No HIP GPUs are available\n")
    got = problems(judged(tmp_path, text))
    assert got.get("torch.not-rocm-build") == "fail" and "gpu.override-needed" not in got
    advice = "You can pip install --pre torch --index-url https://download.pytorch.org/whl/nightly/cu124 if needed\n"
    assert "torch.not-rocm-build" not in problems(judged(tmp_path, advice, "a.txt"))


def test_paraphrased_no_nvidia_driver_error(tmp_path: Path) -> None:
    """HAMM3REXTREME/ComfyUI-Installer#15 quotes it as 'the "No Nvidia drivers found on your system" error'."""
    said = 'Afterwards it gives me the "No Nvidia drivers found on your system" error.\n'
    got = problems(judged(tmp_path, said))
    assert got.get("log.cuda-torch-on-amd") == "fail" and got.get("torch.not-rocm-build") == "fail"


def test_a_rocm_torch_of_unknown_version_without_the_gpus_code(tmp_path: Path) -> None:
    """Comfy-Org/ComfyUI#2842: PyTorch's 'HIP error: invalid device function' on an RX 5700 XT (gfx1010, no override
    target): the wheel has no code for it. A bare runtime code (any HIP program), or a GPU whose usual answer is the
    override (RX 6600), is not pinned on torch."""
    text = "My GPU is a Radeon RX 5700 XT\nHIP error: invalid device function\n"
    assert problems(judged(tmp_path, text)).get("torch.arch-missing") == "fail"
    bare = "My GPU is a Radeon RX 5700 XT\nhipErrorNoBinaryForGpu: Unable to find code object for all current devices\n"
    assert "torch.arch-missing" not in problems(judged(tmp_path, bare, "b.txt"))
    override = text.replace("RX 5700 XT", "RX 6600")
    assert "torch.arch-missing" not in problems(judged(tmp_path, override, "o.txt"))


def test_a_gpu_named_in_a_report_with_nothing_installed_or_failing(tmp_path: Path) -> None:
    """ollama/ollama#7723: an RX 5700 XT (gfx1010, in no AMD release) named in an ollama report whose failure is
    /dev/kfd's permissions: AMD's list is information, not the cause. A missing-code error on it is a failure."""
    text = ("GPU: AMD Sapphire Nitro+ RX 5700 XT\n"
            'Error: llama runner process has terminated: error:open /dev/kfd: permission denied\n')
    got = problems(judged(tmp_path, text))
    assert got.get("perm.kfd-access") == "fail" and "gpu.arch-unsupported" not in got
    failing = "GPU: AMD Sapphire Nitro+ RX 5700 XT\nhipErrorNoBinaryForGpu: Unable to find code object for all\n"
    assert problems(judged(tmp_path, failing, "f.txt")).get("gpu.arch-unsupported") == "fail"


def test_a_distribution_named_without_a_release_that_the_rocm_release_does_not_list(tmp_path: Path) -> None:
    """ROCm/legacy-rocm-build#2451: "On Debian with kernels 6.5.0 and 6.6.13" and an amdgpu-dkms 6.2.4 make.log.
    ROCm 5.7 lists no Debian at all, so no Debian kernel was validated with it: kernel.not-validated, and the OS
    itself is not one AMD supports for that release."""
    log = ("DKMS make.log for amdgpu-6.2.4-1683306.22.04 for kernel 6.6.13-amd64 (x86_64)\n"
           "/var/lib/dkms/amdgpu/6.2.4-1683306.22.04/build/Makefile:52: *** dma_resv->seq is missing. exit....  "
           "Stop.\n"
           "make[1]: *** [/usr/src/linux-headers-6.6.13-common/Makefile:1938: /var/lib/dkms/amdgpu/"
           "6.2.4-1683306.22.04/build] Error 2\n")
    found = problems(judged(tmp_path, "On Debian with kernels 6.5.0 and 6.6.13, there is this build error:\n" + log))
    assert found.get("kernel.not-validated") == "warn" and found.get("os.not-supported") == "warn", found
    # "Debian-based" or a name with its release are not this prose rule's (the release-bearing rule reads those)
    for prose in ("On Debian-based distros there is this build error:\n", "I run Ubuntu here, not Debian.\n"):
        other = problems(judged(tmp_path, prose + log, "o.txt"))
        assert "kernel.not-validated" not in other and "os.not-supported" not in other, (prose, other)


def test_a_package_nothing_provides_is_an_install_failure(tmp_path: Path) -> None:
    """ROCm/legacy-rocm-build#1827: zypper stops amdgpu-install on a Perl module no enabled repository has."""
    zypper = ("Problem: nothing provides 'perl-URI-Encode' needed by the to be installed "
              "hip-devel-5.3.22061.50300-sles153.63.x86_64\n")
    assert problems(judged(tmp_path, zypper)) == {"log.package-install-failed": "fail"}
    dnf = " - nothing provides perl(URI::Encode) needed by hip-devel-5.4.22803.50400-74.el8.x86_64\n"
    assert problems(judged(tmp_path, dnf, "d.txt")) == {"log.package-install-failed": "fail"}
    # prose with the same words and no package relation is no solver error
    assert "log.package-install-failed" not in problems(judged(
        tmp_path, "nothing provides a better speedup than the MI300X, torch 2.4.0+rocm6.1 here\n", "p.txt"))


def test_a_bitsandbytes_library_the_loader_refuses(tmp_path: Path) -> None:
    """bitsandbytes-foundation/bitsandbytes#1508: the rocm62 library is there, matches ROCm 6.2.4, and lacks one of
    its own kernels (a broken preview wheel): bitsandbytes cannot run on the GPU at all, and no ROCm mismatch."""
    line = ("Could not load bitsandbytes native library: /opt/sm/venv/lib/python3.10/site-packages/bitsandbytes/"
            "libbitsandbytes_rocm62.so: undefined symbol: _Z36__device_stub__kOptimizer32bit1StateI12hip_bfloat16Li2E"
            "EvPT_S2_PfS3_ffffffiffbi\n")
    assert problems(judged(tmp_path, line)) == {"log.bitsandbytes-no-gpu": "fail"}
    # a library that is simply absent stays the warning it was (only its GPU features are missing)
    absent = ("Could not find the bitsandbytes ROCm binary at PosixPath('/opt/sm/venv/lib/python3.10/site-packages/"
              "bitsandbytes/libbitsandbytes_rocm62.so')\n")
    assert problems(judged(tmp_path, absent, "a.txt")) == {"log.bitsandbytes-no-gpu": "warn"}


def test_xformers_info_of_a_rocm_build_is_judged_healthy(tmp_path: Path) -> None:
    """ROCm/xformers#21: `python -m xformers.info` with the CK ops available and cutlass/smallk unavailable (as on
    every ROCm build) is a working xformers, judged ok rather than unreadable; a CUDA build's listing is not."""
    info = ("xFormers 0.0.27+7a04357.d20240822\n"
            "memory_efficient_attention.ckF:                    available\n"
            "memory_efficient_attention.cutlassF:               unavailable\n")
    found = judged(tmp_path, info)
    assert [f.severity for f in found["torch.companion-mismatch"]] == [Severity.OK]
    assert not problems(found)
    cuda = info.replace("ckF:                    available", "ckF:                    unavailable")
    assert "torch.companion-mismatch" not in judged(tmp_path, cuda, "c.txt")


def test_a_global_override_relabelling_the_other_gpu(tmp_path: Path) -> None:
    """ROCm/legacy-rocm-build#5696: Vulkan (the kernel driver) knows an R9700 (gfx1201) and a Radeon 8060S
    (gfx1151); ROCm's OpenCL reports both as gfx1201: an HSA_OVERRIDE_GFX_VERSION=12.0.1 from .bashrc."""
    vulkan = ("\t\tGPU id = 0 (AMD Radeon AI PRO R9700 (RADV GFX1201))\n"
              "\t\tGPU id = 1 (Radeon 8060S Graphics (RADV GFX1151))\n")
    clinfo = ("  Board name:\t\t\t\t\t AMD Radeon AI PRO R9700\n  Name:\t\t\t\t\t\t gfx1201\n"
              "  Board name:\t\t\t\t\t Radeon 8060S Graphics\n  Name:\t\t\t\t\t\t gfx1201\n")
    found = problems(judged(tmp_path, vulkan + clinfo))
    assert found == {"gpu.override-mismatch": "warn", "gpu.arch-conflict": "warn"}, found
    # the runtime agreeing with the hardware is no relabelling
    same = clinfo[::-1].replace("1021xfg", "1511xfg", 1)[::-1]
    agreed = problems(judged(tmp_path, vulkan + same, "s.txt"))
    assert "gpu.override-mismatch" not in agreed and "gpu.arch-conflict" not in agreed, agreed
    # one GPU running as its sibling (the usual single-GPU override) is not this rule's
    single = "\t\tGPU id = 0 (AMD Radeon RX 6600 (RADV GFX1032))\n  Name:\t\t\t\t\t\t gfx1030\n"
    assert "gpu.override-mismatch" not in problems(judged(tmp_path, single, "o.txt"))


def test_a_gpu_fault_on_a_host_mixing_an_override_gpu_with_a_native_one(tmp_path: Path) -> None:
    """ROCm/legacy-rocm-build#5238: an MI210 beside an RX 6600 faults; the cause was a forgotten global
    HSA_OVERRIDE_GFX_VERSION=10.3.0 for the RX 6600. With the environment not in the report: a warning to look."""
    fault = "Memory access fault by GPU node-2 (Agent handle: 0x63155be5d980) on address (nil). Reason: Unknown.\n"
    found = problems(judged(tmp_path, "### GPU\n\nAMD Instinct MI210, AMD Radeon RX 6600\n\n" + fault))
    assert found == {"gpu.override-mismatch": "warn", "log.gpu-memory-access-fault": "fail"}, found
    # one GPU alone, or a sibling that is itself the override's target (RX 6800 is gfx1030), is not this rule's
    alone = problems(judged(tmp_path, "### GPU\n\nAMD Instinct MI210\n\n" + fault, "a.txt"))
    assert "gpu.override-mismatch" not in alone, alone
    sibling = problems(judged(tmp_path, "### GPU\n\nAMD Radeon RX 6800, AMD Radeon RX 6600\n\n" + fault, "s.txt"))
    assert "gpu.override-mismatch" not in sibling, sibling
    # an iGPU needing the override beside a native GPU: nobody exports it for the iGPU (ROCm/ROCm#6137, a W7900 beside
    # a Raphael iGPU hanging with no override anywhere): gpu.igpu-visible's business, not this rule's
    igpu = problems(judged(tmp_path, "### GPU\n\nAMD Radeon Pro W7900, AMD Radeon 610M\n\n" + fault, "i.txt"))
    assert "gpu.override-mismatch" not in igpu, igpu


def test_a_working_programs_log_is_evidence_not_an_unreadable_paste(tmp_path: Path) -> None:
    """A healthy report is often only a working program's output (ollama offloading layers, rccl-tests checking
    its sums, AMD's pytorch-micro-benchmarking): judged as a runtime that ran, not refused as unreadable."""
    for line in ('msg="offloaded 15/49 layers to GPU"', "# Out of bounds values : 0 OK",
                 "OK: finished running benchmark..",
                 "Peak MFMA FLOPs (F16), GPU ID: 0, workgroupSize:256, workgroups:32768, experiments:100, "
                 "FLOP:4294967296000, duration:4.20 ms, mean:1022032.9 GFLOPS, stdev:18570.0 GFLOPS"):
        found = judged(tmp_path, line + "\n")
        assert [f.severity for f in found["rocm.runtime-failed"]] == [Severity.OK], line
    # nothing on the GPU, a failed result check, or a fault beside the line is no such evidence
    for text in ('msg="offloaded 0/49 layers to GPU"\n', "# Out of bounds values : 3 FAILED\n",
                 "Peak MFMA FLOPs (F16), GPU ID: 0, workgroupSize:256, mean:0.0 GFLOPS\n",
                 'msg="offloaded 15/49 layers to GPU"\nMemory access fault by GPU node-1 (Agent handle: 0x1) on '
                 "address 0x7f. Reason: Page not present or supervisor privilege.\n"):
        found = judged(tmp_path, text, "n.txt")
        assert not any(f.severity == Severity.OK for f in found.get("rocm.runtime-failed", [])), text


def test_a_collect_env_cut_before_its_gpu_line_is_no_gpu_list(tmp_path: Path) -> None:
    """pytorch/pytorch#148850 and #102968: the stored collect_env ends before 'GPU models and configuration'; that
    is a GPU list not captured, not a host with no GPU (both hosts ran the reporter's kernels on their GPU)."""
    head = ("Collecting environment information...\nPyTorch version: 2.7.0.dev20250309+rocm6.3\n"
            "Is debug build: False\nCUDA used to build PyTorch: N/A\n"
            "ROCM used to build PyTorch: 6.3.42131-fa1d09cbd\n\n"
            "OS: Arch Linux (x86_64)\nGCC version: (GCC) 14.2.1 20250207\n")
    found = judged(tmp_path, head)
    assert all(f.severity == Severity.SKIP for f in found.get("gpu.none-found", [])), found.get("gpu.none-found")
    # the same report with its GPU line, empty, still says no GPU was listed
    whole = head + "Is CUDA available: False\nGPU models and configuration: Could not collect\n"
    assert problems(judged(tmp_path, whole, "w.txt")).get("gpu.none-found") == "fail"


def test_toolchain_and_hipblaslt_lines_from_round_15(tmp_path: Path) -> None:
    """ROCm/legacy-rocm-build#5998 (XLA without ROCm's ld.lld), ROCm/TheRock#1880 (a runtime-only ROCm root given to
    CMake), Comfy-Org/ComfyUI#3698 (hipBLASLt without a Radeon VII's kernels): each line names its cause; look-alikes
    from other tools do not."""
    cases = {
        "jax.errors.JaxRuntimeError: INTERNAL: unable to find ld.lld in PATH: No such file or directory\n":
            {"log.hip-toolchain": "fail"},
        "  does not contain the HIP runtime CMake package, expected at one of:\n": {"log.hip-toolchain": "fail"},
        "rocblaslt warning: No paths matched /v/lib/python3.10/site-packages/torch/lib/hipblaslt/library/*gfx906*co. "
        "Make sure that HIPBLASLT_TENSILE_LIBPATH is set correctly.\n": {"log.hipblaslt-unsupported-arch": "fail"},
    }
    for i, (line, want) in enumerate(cases.items()):
        assert problems(judged(tmp_path, line, f"{i}.txt")) == want, line
    for i, other in enumerate(("ld.lld: error: undefined symbol: foo\n",
                               "CMake Error: The source directory does not contain a CMakeLists.txt file.\n",
                               "rocblaslt warning: No paths matched /v/torch/lib/rocblas/library/*gfx906*co.\n")):
        assert not problems(judged(tmp_path, other, f"o{i}.txt")), other


def test_performance_falling_after_minutes_of_load_is_suspected_throttling(tmp_path: Path) -> None:
    """ROCm/legacy-rocm-build#564: 'After about 190 seconds, the performance starts to drop and never recovers'
    (six Polaris GPUs; AMD: the fans cap at an acoustic limit and the clocks throttle): a warning that says it is a
    suspicion, with what to watch. Other slowdowns said in prose are not this rule's."""
    said = ("At first, the performance is good. After about 190 seconds, the performance starts to drop and never "
            "recovers.\n")
    assert problems(judged(tmp_path, said)) == {"health.throttling": "warn"}
    for i, other in enumerate(("After 10 minutes, the performance is the same as on the first run.\n",
                               "The performance drops after a driver update.\n")):
        assert "health.throttling" not in problems(judged(tmp_path, other, f"o{i}.txt")), other


def test_a_rocblas_error_for_the_igpu_beside_a_named_discrete_gpu(tmp_path: Path) -> None:
    """CS1o/Stable-Diffusion-Info#6: an RX 6800 XT is named, rocBLAS fails 'for GPU arch : gfx1036' (the Ryzen
    iGPU) under a Windows path with spaces: the program ran on the iGPU (fail), not one GPU with two identities."""
    report = ("- AMD 6800XT\n\nrocBLAS error: Cannot read C:\\Program Files\\AMD\\ROCm\\6.1\\bin\\/rocblas/library/"
              "TensileLibrary.dat: No such file or directory for GPU arch : gfx1036\n")
    found = problems(judged(tmp_path, report))
    assert found.get("gpu.igpu-visible") == "fail" and found.get("log.no-binary-for-gpu") == "fail", found
    assert "gpu.arch-conflict" not in found, found
    # the discrete GPU's own target in the error is no iGPU
    own = problems(judged(tmp_path, report.replace("gfx1036", "gfx1030"), "own.txt"))
    assert "gpu.igpu-visible" not in own, own


def test_the_windows_hip_sdk_path_names_the_release(tmp_path: Path) -> None:
    """githubcto/FramePack-ZLUDA#4: 'C:\\Program Files\\AMD\\ROCm\\6.2\\bin' is the HIP SDK 6.2; with rocBLAS
    lacking the RX 9070 XT's gfx1201 (the line's first letter lost in the paste) it predates that GPU: AMD's Windows
    list for the HIP SDK 6.2 (matrices/windows.toml) has no gfx1201 row."""
    line = ("> ocBLAS error: Cannot read C:\\Program Files\\AMD\\ROCm\\6.2\\bin\\/rocblas/library/TensileLibrary.dat: "
            "No such file or directory for GPU arch : gfx1201\n")
    found = judged(tmp_path, line)
    unsupported = [f for f in found["gpu.arch-unsupported"] if f.severity == Severity.FAIL]
    assert unsupported and "gfx1201 is not on AMD's Windows list for the HIP SDK 6.2" in unsupported[0].title
    assert "HIP SDK release whose Windows list includes this GPU" in (unsupported[0].fix.explanation
                                                                       if unsupported[0].fix else "")


def test_an_issue_templates_os_answer_and_wsls_own_rocminfo(tmp_path: Path) -> None:
    """ROCm/ROCm#6166: '### Operating System' answered 'Arch Linux (Linux 6.19.12-arch1-1)' gives the OS and the
    kernel (no Arch kernel is validated: a warning, with pacman's command, not apt's); ROCm/ROCm#3413: 'Using WSL' and
    ROCm for WSL's rocminfo path ('./sources/wsl/tools/rocminfo') put the report under WSL, where no override is the
    fix for 'unsupported GPU'."""
    template = ("### Operating System\n\nArch Linux (Linux 6.19.12-arch1-1)\n\n### ROCm Version\n\nROCm 7.2.2\n\n"
                "```\nROCk module is loaded\nUnable to open /dev/kfd read-write: Invalid argument\n"
                "x1unix is member of render group\n```\n")
    found = judged(tmp_path, template)
    kernel = [f for f in found["kernel.not-validated"] if f.severity == Severity.WARN]
    assert kernel and kernel[0].fix and kernel[0].fix.commands == ["pacman -Q linux"], found["kernel.not-validated"]
    runtime = [f for f in found["rocm.runtime-failed"] if f.severity == Severity.FAIL]
    assert runtime and runtime[0].cause is None, runtime  # its own problem, not "follows from" Arch being unlisted
    wsl = ("Using WSL\n`hsa api call failure at: ./sources/wsl/tools/rocminfo/rocminfo.cc:1087\n"
           "Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources.\n")
    assert "os.wsl" in judged(tmp_path, wsl, "w.txt")
    # a word that merely contains the letters, or a Linux path, is no WSL
    assert "os.wsl" not in judged(tmp_path, "Using WSLg-free setups on bare metal: /usr/src/wslinfo\n", "n.txt")


def test_the_supported_os_list_shows_every_distribution(tmp_path: Path) -> None:
    """An alphabetical list of releases cut at twelve hid Ubuntu behind Debian, Oracle Linux and RHEL (ROCm 7.2.2 on
    Arch, ROCm/ROCm#6166): one entry per distribution, with its releases, names every one AMD lists."""
    found = judged(tmp_path, "### Operating System\n\nArch Linux (Linux 6.19.12-arch1-1)\n\n### ROCm Version\n\n"
                             "ROCm 7.2.2\n")
    detail = next(f.detail for f in found["os.not-supported"] if f.severity == Severity.WARN)
    listed = detail.split("Supported: ", 1)[1]
    assert "ubuntu 22.04.5/24.04" in listed and "rhel 8.10/9.4" in listed, listed
    assert len(listed.split(", ")) == len({part.split(" ")[0] for part in listed.split(", ")}), listed


def test_a_global_override_that_suits_every_board_is_no_mismatch(tmp_path: Path) -> None:
    """The look-alike of ROCm/legacy-rocm-build#5696: an RX 6700 XT (gfx1031) run as gfx1030 beside an RX 6800
    (gfx1030) is the override the RX 6700 XT needs anyway (10.3.0): information, not a warning."""
    vulkan = ("\t\tGPU id = 0 (AMD Radeon RX 6800 (RADV GFX1030))\n"
              "\t\tGPU id = 1 (AMD Radeon RX 6700 XT (RADV GFX1031))\n")
    clinfo = ("  Board name:\t\t\t\t\t AMD Radeon RX 6800\n  Name:\t\t\t\t\t\t gfx1030\n"
              "  Board name:\t\t\t\t\t AMD Radeon RX 6700 XT\n  Name:\t\t\t\t\t\t gfx1030\n")
    found = judged(tmp_path, vulkan + clinfo)
    assert "gpu.override-mismatch" not in problems(found) and "gpu.arch-conflict" not in problems(found), found
    assert [f.severity for f in found["gpu.arch-conflict"]] == [Severity.INFO]


def test_tensorflow_naming_the_gpu_it_ignores_gives_its_target(tmp_path: Path) -> None:
    """ROCm/legacy-rocm-build#2353: TensorFlow 'Ignoring visible gpu device (...) with AMDGPU version : gfx1031':
    the RX 6800M's gfx1031 is not in the build's list; the 10.3.0 override maps it onto the listed gfx1030."""
    line = ('Tensorflow says "Ignoring visible gpu device (device: 0, name: , pci bus id: 0000:03:00.0) with AMDGPU '
            'version : gfx1031. The supported AMDGPU versions are gfx1030, gfx900, gfx906, gfx908, gfx90a."\n')
    # the same line for a GPU with its own code (gfx1030) asks for no override
    _one_problem(tmp_path, line, ("gpu.override-needed", "fail", "10.3.0"), line.replace("gfx1031.", "gfx1030."))


def test_a_ui_start_up_log_names_the_torch_build_and_its_hip(tmp_path: Path) -> None:
    """bmaltais/kohya_ss#2667: kohya_ss/SD.Next print 'INFO     Torch 2.3.0+rocm6.0' and 'Torch backend: AMD ROCm
    HIP 6.0.32830-d62f6a171' at start-up: the installed torch is a ROCm 6.0 build."""
    text = ("15:45:16-129105 INFO     Torch 2.3.0+rocm6.0\n"
            "15:45:16-130098 INFO     Torch backend: AMD ROCm HIP 6.0.32830-d62f6a171\n")
    host = load_host(_write(tmp_path, text))
    assert host.torch is not None and host.torch.version is not None
    assert host.torch.version == "2.3.0+rocm6.0"
    assert (host.torch.hip or "").startswith("6.0.32830")
    # a suggested install command is not the installed build
    other = load_host(_write(tmp_path, "then run: pip install Torch 2.3.0+rocm6.0\n", "b.txt"))
    assert other.torch is None or other.torch.version is None


def test_apt_missing_an_amd_package_is_a_repository_gap_not_the_os(tmp_path: Path) -> None:
    """ROCm/ROCm#1614: ROCm 4.5's rocm-dkms 'Depends: rock-dkms but it is not installable': AMD moved the driver to
    amdgpu-dkms in its own repository; the distribution release is not at fault."""
    apt = " rocm-dkms : Depends: rock-dkms but it is not installable\nE: Unable to correct problems\n"
    found = judged(tmp_path, apt)
    assert problems(found) == {"log.package-install-failed": "fail"}
    assert "rock-dkms" in found["log.package-install-failed"][0].title
    # a dependency the distribution release lacks (python on Ubuntu 22.04) still says the OS
    assert problems(judged(tmp_path, apt.replace("rock-dkms", "python"), "b.txt"))["os.not-supported"] == "fail"


def test_an_issue_templates_os_answer_before_a_heading_is_not_uname(tmp_path: Path) -> None:
    """ROCm/tensorflow-upstream#2404: '### TensorFlow version' / '2.14.0.600' ... 'Linux Ubuntu 22.04' then the
    next '### ...' heading: neither is a kernel release."""
    text = "### TensorFlow version\n\n2.14.0.600\n\n### OS platform and distribution\n\nLinux Ubuntu 22.04\n\n### GPU\n"
    assert load_host(_write(tmp_path, text)).kernel.release is None
    # a real uname -a below such an answer is read
    real = text + "$ uname -a\nLinux box 6.5.0-14-generic #14~22.04.1-Ubuntu SMP x86_64 GNU/Linux\n"
    assert load_host(_write(tmp_path, real, "b.txt")).kernel.release == "6.5.0-14-generic"


@pytest.mark.parametrize(("said", "name"), [
    ("My device is 6800m (Asus G513QY laptop).", "RX 6800M"),  # ROCm/legacy-rocm-build#2353
    ("one node with 8x MI300X", "MI300X"),
    ("i run an rx6800", "RX 6800"),
    ("I have a Vega 64", "RX Vega 64"),
])
def test_a_gpu_named_bare_in_prose_is_read(said: str, name: str) -> None:
    """People write a GPU's bare model: a mobile RX by its number, an Instinct by its model, 'rx' glued to it."""
    from rocmdoctor.parse.freetext import extract, product_name

    assert [product_name(f.value) for f in extract(said + "\n", "p").facts if f.kind == "gpu.name"] == [name]


@pytest.mark.parametrize("said", ["rx_bytes 6800", "proxy6800 started", "AMI300X board", "MI3000 series",
                                  "version 5.6.0m", "Radeon Vega 8 Graphics"])
def test_look_alikes_of_bare_gpu_names_are_not_gpus(said: str) -> None:
    from rocmdoctor.parse.freetext import extract

    assert [f.value for f in extract(said + "\n", "p").facts if f.kind == "gpu.name"] == []


def test_a_crash_inside_the_rocm_runtime_is_the_failure(tmp_path: Path) -> None:
    """unslothai/unsloth#6276: prebuilts 'crash with SIGSEGV on startup ... inside the bundled
    libhsa-runtime64.so.1.21.0': every GPU program using that copy dies, so it fails (the generic line folds in)."""
    text = ("The prebuilts crash with SIGSEGV on startup. The crash occurs inside the bundled "
            "libhsa-runtime64.so.1.21.0 during GPU agent initialization.\n")
    found = judged(tmp_path, text)
    assert problems(found) == {"log.segfault": "fail"}
    assert len(found["log.segfault"]) == 1 and "libhsa-runtime64.so.1.21.0" in found["log.segfault"][0].title
    # a segfault elsewhere, with the runtime library only named on another line, stays a warning
    other = judged(tmp_path, "Segmentation fault (core dumped)\nlinked against libhsa-runtime64.so.1\n", "b.txt")
    assert problems(other) == {"log.segfault": "warn"}


def test_a_benchmark_that_ran_on_the_gpu_needs_no_override(tmp_path: Path) -> None:
    """ggml-org/llama.cpp#26454: llama-bench on a Ryzen 5700G's gfx90c under Fedora 44's ROCm ran on the ROCm
    backend with no override: that build has gfx90c code, so 'needs HSA_OVERRIDE_GFX_VERSION' is no failure."""
    text = ("ggml_cuda_init: found 1 ROCm devices (Total VRAM: 31825 MiB):\n"
            "  Device 0: AMD Radeon Graphics, gfx90c:xnack+ (0x90c), VMM: no, Wave Size: 64, VRAM: 31825 MiB\n"
            "| model | size | params | backend | threads | test | t/s |\n"
            "| qwen2 1.5B F16 |   3.31 GiB |     1.78 B | ROCm,BLAS  |       8 |           pp512 |  188.64 ± 0.00 |\n")
    found = judged(tmp_path, text)
    assert problems(found) == {}
    assert [f.severity for f in found["gpu.override-needed"]] == [Severity.OK]
    # the device list alone (no result on the GPU) still says the override is missing
    alone = judged(tmp_path, "\n".join(text.splitlines()[:2]) + "\n", "b.txt")
    assert problems(alone) == {"gpu.override-needed": "fail"}
    # a CPU backend row proves nothing about the GPU
    cpu = judged(tmp_path, text.replace("ROCm,BLAS", "CPU"), "c.txt")
    assert problems(cpu) == {"gpu.override-needed": "fail"}


def test_a_host_said_to_have_no_kfd_is_kfd_missing(tmp_path: Path) -> None:
    """siderolabs/extensions#307 (Talos without CONFIG_HSA_AMD): 'the `kfd` device is not present'; ROCm's k8s node
    labeller: 'Fail to glob topology properties' (ROCm/k8s-device-plugin#23)."""
    said = judged(tmp_path, "I can verify it's loaded, however, the `kfd` device is not present.\n")
    assert problems(said) == {"perm.kfd-missing": "fail"}
    labeller = judged(tmp_path, '{"level":"error","logger":"amdgpu-node-labeller","msg":"Fail to glob topology '
                                'properties"}\n', "b.txt")
    assert problems(labeller) == {"perm.kfd-missing": "fail"}
    # inside a container it is the container's flags, not the host's kernel
    inside = judged(tmp_path, "/dev/kfd is not present inside the container\n", "c.txt")
    assert "perm.kfd-missing" not in problems(inside)
    # and under WSL there is never a /dev/kfd
    wsl = judged(tmp_path, "Using WSL\n/dev/kfd does not exist\n", "d.txt")
    assert "perm.kfd-missing" not in problems(wsl)


def test_windows_dll_load_failure_is_a_missing_library(tmp_path: Path) -> None:
    """ROCm/TheRock#1309: 'import torch' fails with 'OSError: [WinError 126]' loading torch\\lib\\shm.dll or one of
    its dependencies (libomp140.x86_64.dll was missing)."""
    line = ('OSError: [WinError 126] The specified module could not be found. Error loading '
            '"C:\\venv\\Lib\\site-packages\\torch\\lib\\shm.dll" or one of its dependencies.\n')
    # another Windows error (5, access denied: its own text) is not this
    _one_problem(tmp_path, line, ("log.missing-shared-library", "fail", "shm.dll"),
                 line.replace("126] The specified module could not be found.", "5] Access is denied."))


def test_an_ollama_issue_template_answered_windows_is_native_windows(tmp_path: Path) -> None:
    """ollama/ollama#4962: '### OS' / 'Windows' and ollama's own 'source=amd_windows.go' lines: native Windows,
    where nothing reads HSA_OVERRIDE_GFX_VERSION, so an RX 7600 (gfx1102) is offered no override."""
    log = ('time=2024-06-10T11:52:39.496-03:00 level=INFO source=types.go:71 msg="inference compute" id=0 '
           'library=rocm compute=gfx1102 driver=0.0 name="AMD Radeon RX 7600" total="8.0 GiB"\n')
    template = judged(tmp_path, log + "\n### OS\n\nWindows\n\n### GPU\n\nAMD\n")
    assert "gpu.override-needed" not in problems(template)
    assert "windows" in load_host(_write(tmp_path, log + "\n### OS\n\nWindows\n", "w.txt")).context
    source = log.replace("source=types.go:71", "source=amd_windows.go:90")
    assert "windows" in load_host(_write(tmp_path, source, "s.txt")).context
    # the same log answered Linux is judged on Linux
    linux = load_host(_write(tmp_path, log + "\n### OS\n\nLinux\n", "l.txt"))
    assert "windows" not in linux.context


def test_a_gpu_passed_through_to_a_vm_failing_in_the_present_state_lacks_pcie_atomics(tmp_path: Path) -> None:
    """pytorch/pytorch#115734: an MI100 passed through to a libvirt VM; every kernel fails 'HIP error: the operation
    cannot be performed in the present state'; AMD's wheels that avoid PCIe atomics worked in the same VM."""
    vm = "I passthrough a MI 100 GPU to a virtual machine powered by libvirt running with Ubuntu 22.04\n"
    err = "RuntimeError: HIP error: the operation cannot be performed in the present state\n"
    assert problems(judged(tmp_path, vm + err)) == {"driver.pcie-atomics": "fail"}
    # either alone is no evidence of missing atomics
    assert "driver.pcie-atomics" not in problems(judged(tmp_path, err, "b.txt"))
    assert "driver.pcie-atomics" not in problems(judged(tmp_path, vm, "c.txt"))


def test_miopendriver_verifying_on_the_gpu_is_a_program_that_ran(tmp_path: Path) -> None:
    """ROCm/MIOpen#161: 'Forward Convolution Verifies on CPU and GPU (2.19793e-08)': MIOpen ran on the GPU and its
    result matched the CPU's; a report of that is a working host, not 'nothing to judge'."""
    found = judged(tmp_path, "Forward Convolution Verifies on CPU and GPU (2.19793e-08)\n")
    assert [f.severity for f in found["rocm.runtime-failed"]] == [Severity.OK]
    # 'FAILED: ... does not verify' is no such evidence
    assert "rocm.runtime-failed" not in judged(tmp_path, "Forward Convolution FAILED: 0.5\n", "b.txt")


def test_a_setting_listed_as_what_not_to_do_is_not_the_hosts(tmp_path: Path) -> None:
    """ollama/ollama#14855: a working Strix Halo write-up lists 'HIP_VISIBLE_DEVICES=-1' under '## What doesn't work'
    and 'Do NOT set `HIP_VISIBLE_DEVICES=-1`': neither is the host's environment."""
    text = ("## What doesn't work\n- **Vulkan backend** (`OLLAMA_VULKAN=1` + `HIP_VISIBLE_DEVICES=-1`): Hangs\n"
            "## Key points\n- Do NOT set `HIP_VISIBLE_DEVICES=-1` (this disables ROCm GPU access)\n")
    host = load_host(_write(tmp_path, text))
    assert "HIP_VISIBLE_DEVICES" not in host.env
    # the same value exported under a neutral heading is the host's
    set_ = load_host(_write(tmp_path, "## Setup\nexport HIP_VISIBLE_DEVICES=-1\n", "b.txt"))
    assert set_.env.get("HIP_VISIBLE_DEVICES") == "-1"


def test_ollama_finding_too_little_gpu_memory_for_any_layer_is_out_of_memory(tmp_path: Path) -> None:
    """ollama/ollama#6572: 'gpu has too little memory to allocate any layers' on a 780M with a 2 GiB carve-out."""
    line = ('level=DEBUG source=memory.go:168 msg="gpu has too little memory to allocate any layers" '
            'gpu="{memInfo:{TotalMemory:2147483648 FreeMemory:1376280576 FreeSwap:0} Library:rocm}"\n')
    # enough memory for the layers is no such line
    _one_problem(tmp_path, line, ("log.gpu-out-of-memory", "fail", "too little GPU memory"),
                 line.replace("has too little memory to allocate any layers", "offload to rocm"))


def test_comfyui_start_up_lines_name_torch_and_the_gpu_target(tmp_path: Path) -> None:
    """utensils/comfyui-nix#46: ComfyUI prints 'pytorch version: 2.10.0+rocm7.1' and 'AMD arch: gfx1100'."""
    host = load_host(_write(tmp_path, "pytorch version: 2.10.0+rocm7.1\nAMD arch: gfx1100\n"))
    assert host.torch is not None and host.torch.version == "2.10.0+rocm7.1"
    assert [g.gfx for g in host.gpus] == ["gfx1100"]
    # a word merely ending in it is not the line
    other = load_host(_write(tmp_path, "xpytorch version: 2.1.0+cpu\nSMD arch: gfx1100\n", "b.txt"))
    assert other.torch is None or other.torch.version is None
    assert other.gpus == []


def test_comfyui_finishing_its_steps_on_the_gpu_proves_the_gpu_ran(tmp_path: Path) -> None:
    """A working ComfyUI on an RX 6600 XT (gfx1032, TheRock's Windows wheel): 'Device: cuda:0 AMD Radeon RX 6600 XT'
    and a completed '30/30' sampling bar: its own gfx1032 code ran, so no override is missing."""
    text = ("AMD arch: gfx1032\nDevice: cuda:0 AMD Radeon RX 6600 XT : native\n"
            "100%|██████████| 30/30 [01:12<00:00,  2.42s/it]\n")
    found = judged(tmp_path, text)
    assert problems(found) == {}
    assert [f.severity for f in found["gpu.override-needed"]] == [Severity.OK]
    # an unfinished bar, or a finished one with the CPU as the device, proves nothing about the GPU
    assert problems(judged(tmp_path, text.replace("30/30", "12/30"), "b.txt")) == {"gpu.override-needed": "fail"}
    cpu = text.replace("Device: cuda:0 AMD Radeon RX 6600 XT : native", "Device: cpu")
    assert problems(judged(tmp_path, cpu, "c.txt")) == {"gpu.override-needed": "fail"}


def test_hip_finding_no_code_object_in_a_librarys_bundle(tmp_path: Path) -> None:
    """ROCm/rocm-libraries#8838: ':1:hip_fatbin.cpp:780 : Cannot find CO in the bundle' / '/usr/lib64/librocblas.so.4.4
    for ISA: amdgcn-amd-amdhsa--gfx1013:xnack-' (Fedora's rocBLAS without gfx1013), wrapped over two lines."""
    text = (":1:hip_fatbin.cpp:780 : Cannot find CO in the bundle\n"
            "    /usr/lib64/librocblas.so.4.4 for ISA: amdgcn-amd-amdhsa--gfx1013:xnack-\n")
    found = judged(tmp_path, text)
    assert problems(found)["log.no-binary-for-gpu"] == "fail"
    assert "gfx1013" in found["log.no-binary-for-gpu"][0].title
    assert "log.no-binary-for-gpu" not in problems(judged(tmp_path, "Cannot find CO in the bundle\n", "b.txt"))


def test_an_instinct_named_with_and_without_its_brand_is_one_gpu(tmp_path: Path) -> None:
    """ROCm/ROCgdb#28: an issue template's CPU 'AMD Instinct MI300A' and GPU 'MI300A' are one APU."""
    host = load_host(_write(tmp_path, "### CPU\n\nAMD Instinct MI300A\n\n### GPU\n\nMI300A\n"))
    assert len(host.gpus) == 1


def test_a_compiler_refusing_the_programs_gpu_code_means_the_program_lacks_the_target(tmp_path: Path) -> None:
    """vllm-project/vllm#6565: building vLLM's custom kernels on an MI50 (gfx906): 'custom_kernels.hip:404:17: error:
    instruction not supported on this GPU': this vLLM does not support gfx906, whatever ROCm is installed."""
    text = ("But when I tried to compile it in MI50 machine, I got this:\n"
            "/root/vllm/csrc/custom/custom_kernels.hip:404:17: error: instruction not supported on this GPU\n")
    # the GPU alone, with no build error, is not judged without a ROCm release
    _one_problem(tmp_path, text, ("gpu.arch-unsupported", "fail", "gfx906"), "It runs on an MI50.\n")


def test_pip_show_torch_requiring_nvidia_libraries_is_the_cuda_build(tmp_path: Path) -> None:
    """easydiffusion/easydiffusion#1895: 'pip show torch' on an AMD host: 'Version: 2.4.1' and 'Requires: ...,
    nvidia-cublas-cu12, ...': PyPI's CUDA build."""
    show = ("$ python -m pip show torch\nName: torch\nVersion: 2.4.1\nSummary: Tensors\n"
            "Location: /env/lib/python3.8/site-packages\n"
            "Requires: filelock, fsspec, nvidia-cublas-cu12, nvidia-cudnn-cu12, sympy, triton\n")
    found = judged(tmp_path, show)
    assert problems(found) == {"torch.not-rocm-build": "fail"}
    # the ROCm build's own requirements name no nvidia package
    rocm = show.replace("Version: 2.4.1", "Version: 2.4.1+rocm6.1").replace(
        "nvidia-cublas-cu12, nvidia-cudnn-cu12, ", "pytorch-triton-rocm, ")
    assert "torch.not-rocm-build" not in problems(judged(tmp_path, rocm, "b.txt"))


def test_a_report_saying_the_program_runs_under_an_override_is_direct_evidence(tmp_path: Path) -> None:
    """A gfx1150 under a gfx1151-only toolbox image: 'It seems that it is using a gfx1150. If I use ...
    HSA_OVERRIDE_GFX_VERSION=11.5.1 / The docker container is running with llama. If the iGPU is recognized as 1150 I
    only get segmentation fault results': this program needs 11.5.1, whatever the data says of gfx1150's overrides."""
    text = ("It seems that it is using a gfx1150.\nIf I use the following environment:\n"
            "HSA_OVERRIDE_GFX_VERSION=11.5.1\nThe docker container is running with llama. If the iGPU is recognized "
            "as 1150 I only get segmentation fault results.\n")
    found = judged(tmp_path, text)
    assert problems(found) == {"gpu.override-needed": "fail", "log.segfault": "warn"}
    assert "11.5.1" in found["gpu.override-needed"][0].title
    # an override the report says does not help is no such evidence
    failing = text.replace("The docker container is running with llama.", "It is still not working.")
    assert "gpu.override-needed" not in problems(judged(tmp_path, failing, "b.txt"))


def test_under_wsl_a_gpu_no_rocm_release_supports_cannot_run(tmp_path: Path) -> None:
    """ROCm/ROCm#3413-like WSL report on an RX 7600 XT (gfx1102): no ROCm release supports it, and under WSL the
    override that runs it on Linux does not work (ROCm/legacy-rocm-build#3402): AMD 'the 7600XT is not currently
    supported for WSL'."""
    text = "Using WSL\nGPU: RX 7600 XT\nROCm 6.1.0\nROCR: unsupported GPU\n"
    found = judged(tmp_path, text)
    assert problems(found)["gpu.arch-unsupported"] == "fail"
    assert "WSL" in found["gpu.arch-unsupported"][0].detail
    # on native Linux the same GPU runs under its override (not judged unsupported)
    linux = judged(tmp_path, text.replace("Using WSL\n", ""), "b.txt")
    assert "gpu.arch-unsupported" not in problems(linux)


def test_pips_verdict_that_torchvision_was_built_for_another_torch_is_a_companion_mismatch(tmp_path: Path) -> None:
    """pytorch/torchtitan#3002: torch reinstalled alone from the nightly index left torchvision 0.26.0 behind."""
    _one_problem(tmp_path, "torchvision 0.26.0 requires torch==2.11.0,\n"
                           "  but you have torch 2.12.0.dev20260411+rocm7.1 which is incompatible.\n",
                 ("torch.companion-mismatch", "fail", "2.11.0"),
                 "pip install torchvision==0.26.0 torch==2.11.0 --index-url https://download.pytorch.org/whl/rocm7.1\n")


def test_an_untagged_torchvision_beside_a_rocm_torch_is_pypis_cuda_build(tmp_path: Path) -> None:
    """ROCm/pytorch#3109: the image's versions, aligned; the release numbers pair, the builds do not."""
    versions = "torch:        2.9.1+rocm7.2.1.lw.gitff65f5bc\ntorchvision:  {tv}\nPython:       3.12\n"
    _one_problem(tmp_path, versions.format(tv="0.24.1"), ("torch.companion-mismatch", "fail", "torchvision 0.24.1"),
                 versions.format(tv="0.24.1+rocm7.2.1.lw.gitff65f5bc"))


def test_tensorflow_ignoring_a_gpu_its_list_lacks_is_an_unsupported_target(tmp_path: Path) -> None:
    """ROCm/tensorflow-upstream#2118 (gfx1100 not listed); #2404's list holds gfx1100 behind a missing comma."""
    line = ("I tensorflow/core/common_runtime/gpu/gpu_device.cc:1990] Ignoring visible gpu device (device: 0, name: , "
            "pci bus id: 0000:23:00.0) with AMDGPU version : gfx1100. The supported AMDGPU versions are {}.\n")
    _one_problem(tmp_path, line.format("gfx1030, gfx900, gfx906, gfx908, gfx90a"),
                 ("log.unsupported-gpu-target", "fail", "gfx1100"),
                 line.format("gfx1030gfx1100, gfx900, gfx906, gfx908, gfx90a, gfx940, gfx941, gfx942"))


def test_a_container_that_only_imports_a_module_needs_no_gpu_device(tmp_path: Path) -> None:
    """ROCm/pytorch#3109 reproduces an import error with `docker run ... python3 -c "import torchvision"`."""
    run = "docker run --rm rocm/pytorch:latest python3 -c {}\n"
    _one_problem(tmp_path, run.format("\"import torch; print(torch.cuda.is_available())\""),
                 ("container.no-kfd-device", "fail", "/dev/kfd"), run.format("\"import torchvision\""))


def test_an_override_named_as_linuxs_remedy_is_not_set_on_windows(tmp_path: Path) -> None:
    """leejet/stable-diffusion.cpp#160: a Windows report asking whether Linux's override has a Windows equivalent."""
    prompt = "PS C:\\Users\\ale\\Desktop\\sd> ./sd -m ./sd-v1-4.ckpt -p \"a lovely cat\"\n"
    _one_problem(tmp_path, prompt + "I set HSA_OVERRIDE_GFX_VERSION=10.3.0 and it still fails.\n",
                 ("gpu.override-mismatch", "warn", "Windows"),
                 prompt + "On linux, a similar problem with rocm can be resolved with the definition of the env "
                          "variable HSA_OVERRIDE_GFX_VERSION = 10.3.0.\n")


def test_amds_packages_on_a_distribution_no_release_lists_are_unsupported(tmp_path: Path) -> None:
    """ROCm/ROCm#631 (Debian testing, rocm-dkms); a distribution's own ROCm packages are not AMD's (Arch)."""
    _one_problem(tmp_path, "On Debian/testing, apt install rocm-dkms fails\n",
                 ("os.not-supported", "warn", "Debian"),
                 "On Arch Linux I ran sudo pacman -S rocm-hip-sdk python-pytorch-rocm\n")
    # AMD's Python wheels fit any distribution; an unlisted Ubuntu may be one a release older than the data supported
    assert problems(judged(tmp_path, "On Fedora 43 I use the wheels from https://repo.radeon.com/rocm/manylinux/\n",
                           "wheels.txt")) == {}
    assert problems(judged(tmp_path, "Ubuntu 16.04 LTS\nsudo apt install rocm-dkms\n", "old.txt")) == {}


def test_ollama_skipping_one_gpu_while_it_supports_another_is_information(tmp_path: Path) -> None:
    """ollama/ollama#3088: an RX 7900 XTX is used and the Ryzen's gfx1036 iGPU is skipped: a working host."""
    supported = 'level=INFO source=amd_linux.go:119 msg="amdgpu [0] gfx1100 is supported"\n'
    skipped = ('level=WARN source=amd_linux.go:114 msg="amdgpu [1] gfx1036 is not supported by /tmp/ollama24/rocm '
               '[gfx1030 gfx1100 gfx1101 gfx1102 gfx900 gfx906 gfx908 gfx90a gfx940 gfx941 gfx942]"\n')
    assert problems(judged(tmp_path, supported + skipped)) == {}
    assert problems(judged(tmp_path, skipped, "alone.txt")) == {"log.unsupported-gpu-target": "fail"}


def test_ggml_aborting_on_a_rocm_invalid_argument_is_a_failure(tmp_path: Path) -> None:
    """ollama/ollama#9302: ggml stops on 'ROCm error: invalid argument' from hipMemGetInfo; HIP's own wording of the
    same error, with no abort in sight, stays a warning (it may be logged and survived)."""
    found = problems(judged(tmp_path, "ROCm error: invalid argument\n  current device: 0, in function "
                                      "ggml_backend_cuda_device_get_memory at ggml-cuda.cu:2740\n"))
    assert found == {"log.hip-invalid-argument": "fail"}
    hip = problems(judged(tmp_path, "HIP error: invalid argument\n", "hip.txt"))
    assert hip == {"log.hip-invalid-argument": "warn"}


def test_windows_loader_wording_without_its_error_number_is_a_missing_dll(tmp_path: Path) -> None:
    """ROCm/TheRock#1167: the paste lost the '[WinError 126]' prefix; the loader's sentence still names the DLL."""
    _one_problem(tmp_path, 'The specified module could not be found. Error loading "C:\\venv\\Lib\\site-packages\\'
                           'torch\\lib\\fbgemm.dll" or one of its dependencies.\n',
                 ("log.missing-shared-library", "fail", "fbgemm.dll"),
                 "The specified module could not be found in the docs; error loading settings.\n")


def test_both_kernel_wordings_of_a_probe_enomem_give_the_bios_advice(tmp_path: Path) -> None:
    """ROCm/rocm-install-on-linux#615: 'amdgpu: probe of 0000:83:00.0 failed with error -12', fixed in the BIOS."""
    for line in ("[    9.292551] amdgpu: probe of 0000:83:00.0 failed with error -12\n",
                 "[    5.408787] amdgpu 0000:03:00.0: probe with driver amdgpu failed with error -12\n"):
        found = judged(tmp_path, line)
        assert problems(found) == {"log.amdgpu-init-failed": "fail"}
        assert "BARs" in found["log.amdgpu-init-failed"][0].title
    other = judged(tmp_path, "[    9.29] amdgpu: probe of 0000:83:00.0 failed with error -22\n", "o.txt")
    assert not any("BARs" in f.title for fs in other.values() for f in fs)  # another errno: not the BIOS case


def test_the_rocm_a_report_says_it_uses_is_the_systems(tmp_path: Path) -> None:
    """invoke-ai/InvokeAI#5738: 'I am using ROCm version 6.0.0' beside a torch built for ROCm 5.6."""
    _one_problem(tmp_path, "torch 2.1.2+rocm5.6\nI am using ROCm version 6.0.0. Here is a trace:\n",
                 ("torch.rocm-mismatch", "warn", "6.0.0"),
                 "torch 2.1.2+rocm5.6\nI am using ROCm on this machine. Here is a trace:\n")


def test_rocms_enumerator_listing_the_igpu_first_puts_programs_on_it(tmp_path: Path) -> None:
    """ROCm/ROCm#4390: the HIP SDK's amdgpu-arch printed the Ryzen 5 9600X's gfx1036 for an RX 6800 XT owner."""
    def report(gfx: str) -> str:
        return ("With ROCm 6.1 my ASUS TUF 6800XT does not work.\n"
                f"PS C:\\Users\\b> & 'C:\\Program Files\\AMD\\ROCm\\6.1\\bin\\amdgpu-arch.exe'\n{gfx}\n"
                "PS C:\\Users\\b> (Get-WmiObject win32_VideoController).Name\nAMD Radeon RX 6800 XT\n")
    found = judged(tmp_path, report("gfx1036"))
    assert problems(found) == {"gpu.igpu-visible": "fail"}
    assert "device 0" in found["gpu.igpu-visible"][0].title
    assert problems(judged(tmp_path, report("gfx1030"), "dgpu.txt")) == {}


def test_no_gpu_inside_distrobox_while_the_host_works_is_the_users_access(tmp_path: Path) -> None:
    """kyuz0/amd-r9700-vllm-toolboxes#1: Distrobox shares /dev; the container user's groups were not the host's."""
    error = "RuntimeError: No HIP GPUs are available\n"
    said = ("Following the README for Distrobox, vllm fails.  LM Studio using rocm engine on host OS is confirmed "
            "working.\n")
    found = judged(tmp_path, said + error)
    assert problems(found) == {"perm.kfd-access": "fail", "log.no-hip-gpus": "fail"}
    assert "Distrobox" in found["perm.kfd-access"][0].title
    # without the host's word that the GPU works there, the driver is as likely as the groups: no verdict on access
    assert problems(judged(tmp_path, "Following the README for Distrobox, vllm fails.\n" + error, "b.txt")) \
        == {"log.no-hip-gpus": "fail"}


def test_pip_finding_no_tensorflow_rocm_for_the_reports_python_is_no_rocm_wheel(tmp_path: Path) -> None:
    """ROCm/tensorflow-upstream#890: no tensorflow-rocm 2.1.0 wheel for Python 3.8 ('from versions: none')."""
    pip = ("ERROR: Could not find a version that satisfies the requirement tensorflow-rocm==2.1.0 (from versions: "
           "none)\nERROR: No matching distribution found for tensorflow-rocm==2.1.0\n")
    found = judged(tmp_path, "There are no packages for Python 3.8, as of yet.\n" + pip)
    assert problems(found) == {"python.no-rocm-wheel": "fail", "log.no-matching-wheel": "fail"}
    assert "tensorflow-rocm" in found["python.no-rocm-wheel"][0].title


def test_a_dependency_whose_versions_pip_lists_is_not_a_python_without_wheels(tmp_path: Path) -> None:
    """pytorch/pytorch#118233: a torch wheel file installed without its index; pip lists triton's PyPI versions."""
    pip = ("Processing ./torch-2.2.0+rocm5.7-cp38-cp38-linux_x86_64.whl\nERROR: Could not find a version that "
           "satisfies the requirement pytorch-triton-rocm==2.2.0 (from torch==2.2.0+rocm5.7) (from versions: 0.0.1, "
           "2.0.0, 2.1.0)\nERROR: No matching distribution found for pytorch-triton-rocm==2.2.0\n")
    assert "python.no-rocm-wheel" not in problems(judged(tmp_path, pip))


def test_an_old_python_in_a_repl_that_imports_torch_is_not_a_failure(tmp_path: Path) -> None:
    """ROCm/pytorch#513: AMD's 2019 container, Python 3.6.9, `import torch` works; no install in the report."""
    repl = "Python 3.6.9 (default, Jul  3 2019, 15:36:16)\n[GCC 5.4.0 20160609] on linux\n>>> import torch\n"
    assert problems(judged(tmp_path, repl)) == {}
    installing = "Looking in indexes: https://download.pytorch.org/whl/rocm6.2\n" + repl
    assert problems(judged(tmp_path, installing, "pip.txt")) == {"python.no-rocm-wheel": "fail"}


def test_cmd_variables_and_an_msvc_build_say_native_windows(tmp_path: Path) -> None:
    """ggml-org/llama.cpp#6509: gfx1103 on Windows: no override is offered where nothing reads it."""
    text = ("I am using a gfx1103.\nset PATH=%HIP_PATH%\\bin;%PATH%\nmain: built with  for x86_64-pc-windows-msvc\n")
    found = problems(judged(tmp_path, text))
    assert "gpu.override-needed" not in found
    assert "windows" in load_host(_write(tmp_path, text, "w.txt")).context
    assert "windows" not in load_host(_write(tmp_path, "I am using a gfx1103.\n", "l.txt")).context


def test_a_report_that_works_once_the_igpu_is_hidden_names_the_igpu(tmp_path: Path) -> None:
    """ggml-org/llama.cpp#23152: an RX 9070 XT with the iGPU active crashes; hiding the iGPU makes it work."""
    text = ("With the AMD 9070 XT (and having IGPU active) llama.cpp crashes.\n"
            "I have to use an environment variable to block the knowledge of the IGPU from llama.cpp and then it "
            "works.\n")
    _one_problem(tmp_path, text, ("gpu.igpu-visible", "fail", "integrated"),
                 "With the AMD 9070 XT llama.cpp crashes.\nI have to block the iGPU fan curve tool and it still "
                 "fails.\n")


def test_an_apu_cpu_beside_a_named_discrete_gpu_warns_of_its_igpu(tmp_path: Path) -> None:
    """ROCm/ROCm#3401: a Ryzen 5 3400G's Vega iGPU took HIP's device 0 beside an RX 6600."""
    cpu = "CPU: AMD Ryzen 5 3400G with Radeon Vega Graphics\nGPU: AMD Radeon RX 6800\n"
    _one_problem(tmp_path, cpu, ("gpu.igpu-visible", "warn", "integrated"),
                 "CPU: AMD Ryzen 5 3600 6-Core Processor\nGPU: AMD Radeon RX 6800\n")


def test_a_crash_told_with_no_override_named_is_a_run_without_it(tmp_path: Path) -> None:
    """pytorch/pytorch#111355: an RX 6700 XT (gfx1031) and 'demucs causes Python ... to crash', no override named."""
    gpu = "GPU models and configuration: AMD Radeon RX 6700 XT\n"
    _one_problem(tmp_path, gpu + "demucs causes Python 3.11 and 3.9 to crash.\n",
                 ("gpu.override-needed", "fail", "10.3.0"), gpu + "demucs is slow on this machine.\n")
    assert "gpu.override-needed" not in problems(judged(tmp_path, gpu + "demucs causes Python to crash even with "
                                                                  "HSA_OVERRIDE_GFX_VERSION=10.3.0 set.\n", "o.txt"))


def test_the_gpu_operators_driver_with_a_rejected_memory_query_fails_on_the_in_tree_driver(tmp_path: Path) -> None:
    """ROCm/gpu-operator#330: the KMM worker loads amdgpu, torch.cuda.mem_get_info() fails: blacklist not applied
    (RCA done: 'it is using inbox driver'); the query the operator's own driver answers stops the program. Derived
    look-alikes: the error alone stays the signature's warning (mi210-x4-*: no cause named), the worker's log alone
    and a modprobe of another module are no problem."""
    kmm = ('I0918 11:09:32.942374  1 modprobe.go:33] "Running modprobe" logger="kmm-worker" '
           'command="/sbin/modprobe -vd /tmp/opt amdgpu"\n')
    error = "RuntimeError: HIP error: invalid argument\n"
    found = judged(tmp_path, kmm + error)
    assert problems(found) == {"rocm.kmd-mismatch": "fail", "log.hip-invalid-argument": "fail"}
    assert all(f.cause == "rocm.kmd-mismatch" for f in found["log.hip-invalid-argument"])
    assert problems(judged(tmp_path, error, "e.txt")) == {"log.hip-invalid-argument": "warn"}
    assert problems(judged(tmp_path, error + kmm.replace("amdgpu", "ast"), "o.txt")) == \
        {"log.hip-invalid-argument": "warn"}
    assert _problems_if_read(tmp_path, kmm, "k.txt") == {}


def test_a_gpu_amd_said_is_not_on_its_wsl_list_fails_under_wsl(tmp_path: Path) -> None:
    """ROCm/ROCm#4503: 'Does 6950xt support ROCm via wsl?' AMD: gfx1030 is not on the WSL compatibility matrix."""
    _one_problem(tmp_path, "Does 6950xt support ROCm via wsl?\nrocminfo can not get amdgpu info.\n",
                 ("gpu.arch-unsupported", "fail", "WSL"), "Does 7900xtx support ROCm via wsl?\n")


def _windows_list_titles(tmp_path: Path, text: str, name: str) -> list[str]:
    found = judged(tmp_path, text, name)
    return [f.title for f in found.get("gpu.arch-unsupported", []) if "Windows list" in f.title]


@pytest.mark.parametrize(("path", "gfx", "verdict"), [
    ("C:\\Program Files\\AMD\\ROCm\\6.2\\bin\\", "gfx1200", "is not on"),  # githubcto/FramePack-ZLUDA: RX 9060 XT
    ("C:\\Program Files\\AMD\\ROCm\\6.0\\bin\\", "gfx1101", None),  # the RX 7800 XT row arrives in 6.0.2
    ("C:\\Program Files\\AMD\\ROCm\\6.1\\bin\\", "gfx1101", None),
    ("C:\\Program Files\\AMD\\ROCm\\6.2\\bin\\", "gfx1100", None),
    ("C:\\Program Files\\AMD\\ROCm\\6.2\\bin\\", "gfx1031", None),  # Runtime only: left to the other checks
    ("C:\\Program Files\\AMD\\ROCm\\6.2\\bin\\", "gfx906", "is marked unsupported on"),  # Radeon PRO VII: ❌ ❌
    ("C:\\Program Files\\AMD\\ROCm\\6.4\\bin\\", "gfx1200", None),  # newer than the pinned lists: no verdict
    ("C:\\Program Files\\AMD\\ROCm\\5.7\\bin\\", "gfx1200", None),  # older: ROCm/ROCm's own docs, not pinned
    ("/opt/rocm-6.2.0/lib/", "gfx1200", None),  # Linux: judged by Linux's lists
])
def test_native_windows_is_judged_by_the_hip_sdks_windows_list(tmp_path: Path, path: str, gfx: str,
                                                                verdict: str) -> None:
    """A HIP SDK install path on native Windows names the release; AMD's Windows list for it decides (matrices/
    windows.toml). The rocBLAS line is githubcto/FramePack-ZLUDA's shape with its path and target varied."""
    line = (f'"rocBLAS error: Cannot read {path}/rocblas/library/TensileLibrary.dat: No such file or directory '
            f"for GPU arch : {gfx}\n")
    titles = _windows_list_titles(tmp_path, line, "w.txt")
    assert titles == ([f"GPU 0 (GPU, {gfx}): {gfx} {verdict} AMD's Windows list for the HIP SDK "
                       f"{path.split(chr(92))[-3]}"] if verdict else [])


_FA_STEPS = ("2. Install PyTorch 2.5.1: `pip install -v torch==2.5.1+rocm6.2 --index-url "
             "https://download.pytorch.org/whl/rocm6.2`\n")
_FA_HIPCC = ("HIP version: 5.7.31921-1949b1621\n"
             "AMD clang version 17.0.0 (https://github.com/RadeonOpenCompute/llvm-project roc-5.7.1 23382 "
             "f3e174a1d286158c06e4cc8276366b1d4bc0c914)\nTarget: x86_64-unknown-linux-gnu\nThread model: posix\n"
             "InstalledDir: /opt/rocm-5.7.1/llvm/bin\n")
_FA_BUILD = "5. Try compiling: `BUILD_TARGET=rocm python setup.py install`\n"


def test_an_extension_built_with_another_major_rocm_than_torchs_fails(tmp_path: Path) -> None:
    """Dao-AILab/flash-attention#1307: a pinned rocm6.2 torch, the system's ROCm 5.7 hipcc, and setup.py install."""
    found = judged(tmp_path, _FA_STEPS + _FA_BUILD + _FA_HIPCC)
    assert problems(found) == {"torch.rocm-mismatch": "fail"}
    assert "system's ROCm 5.7.1 for a torch built with ROCm 6.2" in found["torch.rocm-mismatch"][0].title
    # no extension compiled here: the wheel runs its own bundled ROCm, a warning as before
    assert problems(judged(tmp_path, _FA_STEPS + _FA_HIPCC, "run.txt")) == {"torch.rocm-mismatch": "warn"}
    # the same major release (6.0 system, 6.2 torch): a warning, not a failure
    same = _FA_HIPCC.replace("5.7.1", "6.0.2").replace("5.7.31921", "6.0.32831")
    assert problems(judged(tmp_path, _FA_STEPS + _FA_BUILD + same, "same.txt")) == {"torch.rocm-mismatch": "warn"}


def test_a_pin_beside_a_cuda_torchs_own_error_is_the_fix_being_told(tmp_path: Path) -> None:
    """LykosAI/StabilityMatrix (fixture stabilitymatrix-comfyui-cuda-torch-rx7900xt): 'I fix this ... pip install
    torch==2.3.1+rocm6.0': the torch that failed is the CUDA one its error names, not the pin."""
    text = ("> RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and "
            "installed a driver from\n\nI fix this from the console:\n\npip install torch==2.3.1+rocm6.0 "
            "--index-url https://download.pytorch.org/whl/rocm6.0\n")
    host = load_host(_write(tmp_path, text))
    assert host.torch is not None and host.torch.version is None and host.torch.proven_build == "cuda"
    pinned = load_host(_write(tmp_path, text.split("\n\n", 1)[1], "pin.txt"))
    assert pinned.torch is not None and pinned.torch.version == "2.3.1+rocm6.0"


def test_nvcc_flags_rejected_by_rocms_clang_are_a_toolchain_failure(tmp_path: Path) -> None:
    """facebookresearch/xformers#1162: a CUDA toolkit beside a ROCm torch sent setup.py down its CUDA path."""
    _one_problem(tmp_path, "clang++: error: unknown argument: '--use_fast_math'\n",
                 ("log.hip-toolchain", "fail", "nvcc"),
                 "clang++: warning: argument unused during compilation: '-fno-gpu-rdc'\n")


def test_a_model_load_out_of_rocm_memory_fails(tmp_path: Path) -> None:
    """antirez/ds4#475: a Strix Halo's GTT too small for the model; a CPU allocation failing is not the GPU's."""
    line = "ds4: ROCm model arena alloc failed for tensor-span:105 (1792.00 MiB chunk): out of memory\n"
    _one_problem(tmp_path, line, ("log.gpu-out-of-memory", "fail", "too small for the model"),
                 "ds4: model arena alloc failed for tensor-span:105 (1792.00 MiB chunk): out of memory\n")


_LMS = ("GPU: AMD Radeon RX 9070 (RADV GFX1201)\n\nROCm llama.cpp (Linux) appears compatible in the download list, but "
        "after downloading it, an “Error surveying hardware” message appears, making it unusable. The Vulkan version "
        "functions normally.\n")


def test_lm_studios_rocm_engine_failing_its_survey_is_the_engine_lacking_the_gpu(tmp_path: Path) -> None:
    """lmstudio-ai/lmstudio-bug-tracker#1306 (RX 9070) and #1004 (Radeon 8060S): the engine's own GPU list."""
    found = judged(tmp_path, _LMS)
    assert problems(found) == {"gpu.arch-unsupported": "fail"}
    assert "LM Studio's ROCm engine cannot run on gfx1201" in found["gpu.arch-unsupported"][0].title
    # the Vulkan engine's survey, or the ROCm engine named without a failed survey: no verdict from it
    assert problems(judged(tmp_path, _LMS.replace("ROCm llama.cpp", "Vulkan llama.cpp"), "v.txt")) == {}
    ok = "GPU: AMD Radeon RX 9070 (RADV GFX1201)\nROCm llama.cpp (Linux) v1.50.2 runs the model at 40 tok/s.\n"
    assert problems(judged(tmp_path, ok, "ok.txt")) == {}


_AB = ("On a APU (PCI ID 1002:150e, gfx11), ROCr init fails with:\n\nhsa api call failure at .../rocminfo.cc:1304\n"
       "HSA_STATUS_ERROR_OUT_OF_RESOURCES\n\nwhen using AMDGPU 6.14.14 + amdgpu-dkms-firmware 30.10.1 on Ubuntu "
       "24.04.\n"
       "The same hardware and ROCm user-space works when the kernel module/firmware is AMDGPU 6.12.12.\n")


def test_the_reports_own_test_of_two_driver_releases_names_the_breakage(tmp_path: Path) -> None:
    """ROCm/ROCm#5433: the runtime fails under amdgpu 6.14.14 and works under 6.12.12 on the same host."""
    found = judged(tmp_path, _AB)
    assert problems(found) == {"driver.dkms-breakage": "fail", "log.hsa-out-of-resources": "fail"}
    assert found["driver.dkms-breakage"][0].title.startswith("amdgpu 6.14.14 breaks ROCm on this host")
    # no failure shown, or one release named twice: nothing to blame on the driver
    calm = _AB.replace("ROCr init fails with:\n\nhsa api call failure at .../rocminfo.cc:1304\n"
                       "HSA_STATUS_ERROR_OUT_OF_RESOURCES\n", "everything runs\n")
    assert "driver.dkms-breakage" not in problems(judged(tmp_path, calm, "calm.txt"))
    same = _AB.replace("AMDGPU 6.12.12", "AMDGPU 6.14.14")
    assert "driver.dkms-breakage" not in problems(judged(tmp_path, same, "same.txt"))


def test_a_pastes_device_lines_are_no_gpu_count_for_the_visibility_mask(tmp_path: Path) -> None:
    """crickett-hpe/hpc-ai-envs#13: rccl-tests' device list cut after one of eight MI250X GCDs beside
    CUDA_VISIBLE_DEVICES=0,...,7 (a healthy run). With an enumeration the count holds: tests/test_judge.py."""
    text = ("CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7\n# nThread 1 nGpus 8 minBytes 8 maxBytes 134217728\n# Using devices\n"
            "#   Rank  0 Pid 993996 on pinoak0003 device  0 [0000:c1:00.0] AMD Instinct MI250X\n")
    assert "env.visible-devices" not in problems(judged(tmp_path, text))


_UPGRADED = ("/opt/rocm/bin/rocminfo: error while loading shared libraries: libhsa-runtime64.so.1: cannot open shared "
             "object file: No such file or directory\n\nI don't know how this error reproduce.but when  i updated  "
             "rocm 3.8 to 3.9,this error has happened.\n")


def test_an_in_place_upgrade_with_rocms_own_libraries_missing_is_a_mixed_install(tmp_path: Path) -> None:
    """ROCm/ROCm#1302: rocminfo cannot load libhsa-runtime64 after 'updated rocm 3.8 to 3.9'."""
    found = judged(tmp_path, _UPGRADED)
    assert problems(found) == {"rocm.multiple-versions": "fail", "log.missing-shared-library": "fail"}
    assert "after the upgrade (3.8 to 3.9)" in found["rocm.multiple-versions"][0].title
    # the same library error with no upgrade told, or an upgrade told beside another program's library: no verdict
    alone = _UPGRADED.split("\n\n")[0] + "\n"
    assert "rocm.multiple-versions" not in problems(judged(tmp_path, alone, "alone.txt"))
    other = _UPGRADED.replace("libhsa-runtime64.so.1", "libpng16.so.16")
    assert "rocm.multiple-versions" not in problems(judged(tmp_path, other, "other.txt"))


def test_a_rocm_tree_missing_its_own_compiler_after_an_upgrade_is_a_mixed_install(tmp_path: Path) -> None:
    """ROCm/ROCm#1260: llvm-amdgpu stayed in /opt/rocm-3.7.0, so /opt/rocm-3.8.0's clang-ocl finds no clang; MIOpen
    then cannot compile its kernels."""
    said = "with the release of 3.8.0 not all packages have been updated to reflect the version change\n"
    tree = "/opt/rocm-3.8.0/bin/clang-ocl: line 49: /opt/rocm-3.8.0/llvm/bin/clang: No such file or directory\n"
    miopen = ("MIOpen Error: /root/driver/MLOpen/src/tmp_dir.cpp:47: Can't execute cd /tmp/miopen-Im2d2Col.cl-a714"
              "; /opt/rocm-3.8.0/bin/clang-ocl  -mcpu=gfx900 MIOpenIm2d2Col.cl\n")
    assert problems(judged(tmp_path, said + tree + miopen)) == {"rocm.multiple-versions": "fail",
                                                                 "log.miopen-error": "fail"}
    # the missing file alone (no upgrade told) is no evidence of two releases
    assert problems(judged(tmp_path, tree + miopen, "tree.txt")) == {"log.miopen-error": "fail"}


@pytest.mark.parametrize(("line", "read"), [
    ("- podman run by **user**, all `/dev/dri/renderD*` devices passed in\n", False),  # ROCm/ROCm#3144: prose
    ("The docker run command fails on this host\n", False),
    ("$ podman run --device /dev/dri rocm/dev-ubuntu-22.04 rocminfo\n", True),
])
def test_prose_about_a_container_run_is_no_command(tmp_path: Path, line: str, read: bool) -> None:
    assert ("container.no-kfd-device" in problems(judged(tmp_path, line))) is read


@pytest.mark.parametrize(("device", "words"), [
    ("Device 0: AMD Radeon Graphics, gfx1151 (0x1151), VMM: no, Wave Size: 32", "which lists no Ryzen APU"),
    ("Device 0: Radeon RX 570 Series, gfx803 (0x803), VMM: no, Wave Size: 64", "supported by no AMD ROCm release"),
])
def test_a_target_outside_amds_matrix_that_runs_here_is_worded_by_kind(tmp_path: Path, device: str,
                                                                       words: str) -> None:
    """kyuz0/amd-strix-halo-toolboxes#62: ROCm 7.2 runs a Radeon 8060S that AMD's matrix does not list (it lists no
    Ryzen APU: silence, not a verdict); robertrosenbusch/gfx803_rocm#2: a community build runs an RX 570."""
    found = judged(tmp_path, "ggml_cuda_init: found 1 ROCm devices:\n  " + device + "\n")
    info = [f for f in found["gpu.arch-unsupported"] if f.severity == Severity.INFO]
    assert info and words in info[0].title, [f.title for f in found["gpu.arch-unsupported"]]


_WSL_642 = ("### Operating System\n\nUbuntu 24.04.2 LTS (Noble Numbat) (WSL2 through Windows 11 24H2 26100.4652)\n\n"
            "### GPU\n\nAMD Radeon 9070 XT\n\n### ROCm Version\n\nROCm 6.4.2\n\n")


def test_a_wsl_runtime_that_starts_beats_amds_list_of_wsl_releases(tmp_path: Path) -> None:
    """ROCm/AMDMIGraphX#4164: ROCm 6.4.2 is no WSL release AMD lists, but the report's rocminfo printed the
    runtime's system attributes under WSL (it does so only once hsa_init succeeded): no fail. Look-alike: the same
    report whose rocminfo stops at the WSL line keeps AMD's verdict."""
    started = ("/opt/rocm/bin/rocminfo --support\nWSL environment detected.\n=====================\n"
               "HSA System Attributes\n=====================\nRuntime Version:         1.1\n"
               "Runtime Ext Version:     1.7\n")
    found = judged(tmp_path, _WSL_642 + started)
    assert [f.severity for f in found["os.not-supported"]] == [Severity.INFO]
    assert "starts here" in found["os.not-supported"][0].title
    failed = "/opt/rocm/bin/rocminfo --support\nWSL environment detected.\nhsa api call failure at: rocminfo.cc:1304\n"
    assert problems(judged(tmp_path, _WSL_642 + failed, "f.txt")).get("os.not-supported") == "fail"


def test_a_torch_version_stated_as_what_an_install_produced_is_the_installed_torch(tmp_path: Path) -> None:
    """deepspeedai/DeepSpeed#2796: 'This line causes the following version of torch to be installed on our CI
    nodes:' then '`1.13.1+cu117`' on an AMD CI: a CUDA torch. Look-alike: a version without a build tag."""
    text = ("pip install torch torchvision --extra-index-url https://download.pytorch.org/whl/rocm5.3\n"
            "This line causes the following version of torch to be installed on our CI nodes:\n`1.13.1+cu117`\n")
    _fires_unless(tmp_path, text, ("torch.not-rocm-build", "fail"), ("`1.13.1+cu117`", "`1.13.1`"))


def test_amds_own_tensorflow_wheel_keeps_amds_verdict_on_a_gpu_named_in_prose(tmp_path: Path) -> None:
    """ROCm/tensorflow-upstream#1305: an RX 570 (gfx803) named in the template beside 'pip install tensorflow-rocm
    --upgrade': AMD built that wheel with its release, so AMD's list is the verdict (fail). Look-alike: the same GPU
    under a plain 'pip install tensorflow' is an application's own build: information."""
    text = "- GPU model and memory: RX 570\n\n`pip install tensorflow-rocm --upgrade`\n"
    assert problems(judged(tmp_path, text)) == {"gpu.arch-unsupported": "fail"}
    other = text.replace("tensorflow-rocm", "tensorflow")
    found = judged(tmp_path, other, "o.txt")
    assert problems(found) == {} and found["gpu.arch-unsupported"][0].severity == Severity.INFO


_VMWARE_LSPCI = ("00:0f.0 VGA compatible controller: VMware SVGA II Adapter\n"
                 "00:15.0 PCI bridge: VMware PCI Express Root Port (rev 01)\n"
                 "00:15.1 PCI bridge: VMware PCI Express Root Port (rev 01)\n")


def test_a_gpu_passed_through_to_a_vmware_guest_is_a_pcie_atomics_warning(tmp_path: Path) -> None:
    """ROCm/ROCm#307: a GPU passed through to an ESXi guest (VMware's PCIe root ports in lspci): AMD found ESXi gave
    it no PCIe atomics (warn: newer ESXi validated for Instinct may differ). The reporter says the GPU shows in
    lspci, so an excerpt that stops before its line is no 'no GPU'. Look-alikes: a VMware guest without
    passthrough; a VMware lspci with no GPU and no such sentence is a listing without a GPU."""
    prose = ("I'm trying to use OpenCL on a GPU that's available in a VM through PCI passthrough, and the GPU shows "
             "up in dmesg and lspci:\n")
    found = judged(tmp_path, prose + _VMWARE_LSPCI)
    assert problems(found) == {"driver.pcie-atomics": "warn"}
    assert "VMware" in found["driver.pcie-atomics"][0].title
    assert "driver.pcie-atomics" not in problems(judged(tmp_path, "A VMware guest.\n" + _VMWARE_LSPCI, "v.txt"))
    assert problems(judged(tmp_path, _VMWARE_LSPCI, "n.txt")).get("gpu.none-found") == "fail"


@pytest.mark.parametrize(("line", "version"), [
    ("- ROCm/MIOpen version: 4.2.0", "4.2.0"),  # TensorFlow's issue template (ROCm/tensorflow-upstream#1398)
    ("- ROCm version: 6.1.2", "6.1.2"),
    ("- ROCm/MIOpen version: N/A", None),
])
def test_tensorflows_template_names_the_installed_rocm(line: str, version: str | None) -> None:
    from rocmdoctor.parse.freetext import extract

    got = [f.value for f in extract(line + "\n", "p.txt").facts if f.kind == "rocm.version"]
    assert got == ([version] if version else [])


def test_a_diffs_removed_lines_are_not_what_the_report_ran(tmp_path: Path) -> None:
    """deepspeedai/DeepSpeed#2796: a ```diff block's '-pip install ... rocm5.1.1' is what the change took out; only
    its '+' line is the install. Outside a diff block a line starting with '-' is read as usual."""
    from rocmdoctor.parse.text import without_removed_lines

    diff = ("```diff\n@@ -29,7 +29,7 @@ jobs:\n"
            "-          pip install torch --extra-index-url https://download.pytorch.org/whl/rocm5.1.1\n"
            "+          pip install torch --extra-index-url https://download.pytorch.org/whl/rocm5.3\n```\n")
    blanked = without_removed_lines(diff)
    assert len(blanked) == len(diff) and blanked.count("\n") == diff.count("\n")
    assert "rocm5.1.1" not in blanked and "rocm5.3" in blanked
    found = judged(tmp_path, diff)["log.pip-extra-index-url"]
    assert [e for f in found for e in f.evidence if "rocm5.1.1" in e] == []
    bullet = "- pip install torch --extra-index-url https://download.pytorch.org/whl/rocm5.1.1\n"
    assert without_removed_lines("```\n" + bullet + "```\n") == "```\n" + bullet + "```\n"


def test_a_missing_nvidia_library_on_an_amd_host_is_a_cuda_build_not_a_missing_library(tmp_path: Path) -> None:
    """tile-ai/tilelang#90, gpustack/gpustack#1238: 'libnvrtc.so.12' / 'libcudart.so.12: cannot open shared object
    file' means the program is a CUDA build (the fix is its ROCm build), not that a library should be installed.
    Look-alike: a missing ROCm library stays log.missing-shared-library."""
    cuda = "OSError: libnvrtc.so.12: cannot open shared object file: No such file or directory\n"
    assert problems(judged(tmp_path, cuda)) == {"log.cuda-build-on-amd": "fail"}
    rocm = "OSError: libamdhip64.so.6: cannot open shared object file: No such file or directory\n"
    assert problems(judged(tmp_path, rocm, "r.txt")) == {"log.missing-shared-library": "fail"}


def test_a_self_built_rocm_is_not_judged_by_amds_os_list(tmp_path: Path) -> None:
    """lamikr/rocm_sdk_builder#246: ROCm built on the host under /opt/rocm_sdk_612, on Ubuntu 24.04: AMD's OS list is
    for its packages. Look-alike: AMD's /opt/rocm-6.1.2 on the same release keeps the warning."""
    text = "I'm running Ubuntu 24.04 LTS.\n$ /opt/rocm_sdk_612/bin/hipcc hello_world.o -fPIE -o hello_world\n"
    found = judged(tmp_path, text)
    assert "os.not-supported" not in problems(found)
    assert any("built on this host" in f.title for f in found["os.not-supported"])
    amd = text.replace("/opt/rocm_sdk_612/", "/opt/rocm-6.1.2/")
    assert problems(judged(tmp_path, amd, "a.txt")).get("os.not-supported") == "warn"


@pytest.mark.parametrize(("line", "version"), [
    ("I'm using Ubuntu 20.04.1, ROCM 3.7, RX570.", "3.7"),  # ROCm/rocHPCG#22
    ("running on Ubuntu 22.04 and ROCm 6.1.2", "6.1.2"),
    ("hsa api call failure at line 900, file: /data/jenkins_workspace/sandbox-centos/rocm-rel-2.1/"
     "rocm-2.1-96-20190201/centos/rocminfo/rocminfo.cc. Call returned 4104", "2.1"),  # ROCm/legacy-rocm-build#804
    ("I am on ROCm 6.2 and want to upgrade to ROCm 6.3", None),
    ("with torch, rocm 6.2 wheels are slow", None),
    ("wget http://repo.radeon.com/rocm/manylinux/rocm-rel-6.1/torch-2.1.2%2Brocm6.1-cp310-cp310-linux_x86_64.whl",
     None),
])
def test_the_installed_rocm_from_an_environment_list_or_rocminfos_build_path(line: str, version: str | None) -> None:
    from rocmdoctor.parse.freetext import extract

    got = [f.value for f in extract(line + "\n", "p.txt").facts if f.kind in ("rocm.named", "rocm.version")]
    assert got == ([version] if version else [])


def test_a_root_only_kfd_node_listed_by_name_fails_when_rocm_runs_for_root_only(tmp_path: Path) -> None:
    """ROCm/ROCT-Thunk-Interface#36: 'ls -la /dev | grep kfd' prints 'crw-------   1 root    root    234,   0 Mai 21
    05:13 kfd' beside 'ROCm only runs for root': /dev/kfd keeps everyone else out. Look-alike: a render-owned 0660
    node."""
    text = ("my `/dev/kfd` device has the wrong permissions, which means that ROCm only runs for root.\n"
            "$ ls -la /dev | grep kfd\ncrw-------   1 root    root    234,   0 Mai 21 05:13 kfd\n")
    _fires_unless(tmp_path, text, ("perm.kfd-access", "fail"),
                  ("crw-------   1 root    root  ", "crw-rw----   1 root    render"))


def test_a_windows_build_for_other_targets_has_no_code_for_the_gpu(tmp_path: Path) -> None:
    """ggml-org/llama.cpp#6509: a gfx1103 on native Windows, llama.cpp configured with -DAMDGPU_TARGETS=gfx1100 and
    HSA_OVERRIDE_GFX_VERSION=11.0.0, which the Windows HIP runtime does not read: the program has no code for the
    GPU. Look-alike: the same build with gfx1103 among its targets."""
    text = ("I am using a gfx1103 and try to run llama.cpp on Windows.\n"
            "PS C:\\llama.cpp\\build> cmake -G Ninja -DAMDGPU_TARGETS=gfx1100 -DLLAMA_HIPBLAS=ON ..\n")
    found = judged(tmp_path, text)
    assert problems(found).get("gpu.arch-unsupported") == "fail"
    assert "built for gfx1100 only" in found["gpu.arch-unsupported"][0].title
    both = text.replace("TARGETS=gfx1100", "TARGETS=gfx1100;gfx1103")
    assert "gpu.arch-unsupported" not in problems(judged(tmp_path, both, "b.txt"))


def test_an_override_the_report_ran_with_that_takes_the_only_gpu_to_another_generation_fails(tmp_path: Path) -> None:
    """ROCm/rocm-systems#3531: a Strix Halo (gfx1151) run with HSA_OVERRIDE_GFX_VERSION=12.0.1 crashed the kernel;
    AMD's thunk now refuses an override across generations (ROCm/rocm-systems#5686). The rocminfo lines and the
    sentence are the report's; the 11.0.0 variant (same generation) is derived from it."""
    text = ("  Name:                    gfx1151\n"
            "  Marketing Name:          Radeon 8060S Graphics\n"
            "When running comfyui with HSA_OVERRIDE_GFX_VERSION=12.0.1 (which is wrong for this board) the kernel "
            "crashes pretty badly.\n")
    _fires_unless(tmp_path, text, ("gpu.override-mismatch", "fail"),
                  ("When running comfyui with", "Would it help to export"))
    found = judged(tmp_path, text)
    assert "run gfx1201 code" in found["gpu.override-mismatch"][0].title
    assert found["gpu.override-mismatch"][0].fix.commands == ["unset HSA_OVERRIDE_GFX_VERSION"]
    same = problems(judged(tmp_path, text.replace("12.0.1", "11.0.0"), "same-generation.txt"))
    assert same.get("gpu.override-mismatch") == "warn"
    # without a failure told, the override is the risk, not the cause
    calm = text.replace("the kernel crashes pretty badly", "the kernel no longer crashes")
    assert problems(judged(tmp_path, calm, "calm.txt")).get("gpu.override-mismatch") == "warn"


def test_composable_kernels_xdl_op_rejecting_every_problem_fails_on_a_gpu_without_matrix_cores(tmp_path: Path) -> None:
    """ROCm/flash-attention#29: CK's XDL attention op 'does not support this problem' on an MI50 (gfx906), which has
    no matrix cores (AMD will not support FA there, ROCm/triton#461); on an MI250X the same line is the problem's
    shape, not the GPU (the MI250X variant is derived)."""
    text = ("Trying to run flash attention on the Mi50 delivered the following error:\n"
            "RuntimeError: DeviceGroupedMultiheadAttentionForward_Xdl_CShuffle_V2<256, 128, 128, 32, 8, 8, 128, 128, "
            "32, 2, Default, ASpecDefault, B0SpecDefault, B1SpecDefault, CSpecDefault, MaskUpperTriangleFromTopLeft> "
            "does not support this problem\n")
    _fires_unless(tmp_path, text, ("log.unsupported-gpu-target", "fail"), ("Mi50", "MI250X"))
    found = judged(tmp_path, text.replace("Mi50", "MI250X"), "mi250x.txt")
    assert found["log.unsupported-gpu-target"][0].severity == Severity.INFO
    assert "shape" in found["log.unsupported-gpu-target"][0].detail


def test_an_ipython_session_failing_at_its_first_gpu_tensor_on_a_gfx1031_is_a_missing_override(tmp_path: Path) -> None:
    """ROCm/ROCm#2536: lspci's line behind a 'GPU：' label (one device, whatever its bracket lists), IPython's
    'Out[2]:' answer naming torch, and the first tensor moved to the GPU raising: ran without the override."""
    dashes = "-" * 75
    text = ("GPU：    83:00.0 VGA compatible controller: Advanced Micro Devices, Inc. [AMD/ATI] Navi 22 [Radeon RX "
            "6700/6700 XT/6750 XT / 6800M/6850M XT] (rev c1)\n\n"
            "In [2]: torch.__version__\nOut[2]: '2.2.0.dev20231010+rocm5.7'\n\n"
            f"In [9]: torch.rand(3, 3).to(device)\nOut[9]: {dashes}\n"
            "RuntimeError                              Traceback (most recent call last)\n")
    host = load_host(_write(tmp_path, text, "host.txt"))
    assert len(host.gpus) == 1 and host.torch is not None and host.torch.version == "2.2.0.dev20231010+rocm5.7"
    _fires_unless(tmp_path, text, ("gpu.override-needed", "fail"),
                  (f"Out[9]: {dashes}\nRuntimeError ", "Out[9]: tensor([[0.1, 0.2, 0.3]], device='cuda:0')\n# "))


def test_an_override_the_report_tried_and_dropped_is_not_in_effect(tmp_path: Path) -> None:
    """ROCm/legacy-rocm-build#3015: 'adding HSA_OVERRIDE_GFX_VERSION=10.3.0 does *not* fix the issue' on a gfx1036
    iGPU: the override was tried and dropped, so it is no override in effect for gpu.override-mismatch to judge."""
    text = ("rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: No such file or directory "
            "for GPU arch : gfx1036\n"
            "FWIW, adding HSA_OVERRIDE_GFX_VERSION=10.3.0 does *not* fix the issue, that sometimes produces either "
            "segfaults\n")
    kept = text.replace("FWIW, adding HSA_OVERRIDE_GFX_VERSION=10.3.0 does *not* fix the issue",
                        "I am using HSA_OVERRIDE_GFX_VERSION=10.3.0")
    _fires_only_in(tmp_path, text, "gpu.override-mismatch", kept, ("gpu.override-mismatch", "warn"))


def test_an_exact_distribution_dependency_older_than_the_installed_one_is_a_missing_updates_suite(
        tmp_path: Path) -> None:
    """ROCm/ROCm#4565: Ubuntu 24.04 with 'Suites: noble' and 'noble-security' only: python3-dev wants the release's
    python3 while the updated one is installed. A ROCm-encoded version is the distribution's ROCm outranking AMD's
    (ROCm/legacy-rocm-build#1899), another signature with its own fix."""
    line = " python3-dev : Depends: python3 (= 3.12.3-0ubuntu1) but 3.12.3-0ubuntu2 is to be installed\n"
    found = judged(tmp_path, line)
    assert problems(found) == {"log.package-install-failed": "fail"}
    assert "noble-updates" in found["log.package-install-failed"][0].fix.explanation
    rocm = " rocm-hip-runtime : Depends: rocminfo (= 1.0.0.50400-72~22.04) but 5.0.0-1 is to be installed\n"
    other = judged(tmp_path, rocm, "rocm.txt")["log.package-install-failed"]
    assert len(other) == 1 and "outranks" in other[0].title


def test_amds_repository_without_the_release_asked_for_is_an_install_failure(tmp_path: Path) -> None:
    """ROCm/legacy-rocm-build#1736 (apt) and ROCm/ROCm#3191 (zypper): repo.radeon.com answered 404 for the
    configured path. Another vendor's repository missing a Release file is not AMD's (derived look-alike)."""
    apt = "E: The repository 'http://repo.radeon.com/rocm/apt/debian xenial Release' does not have a Release file.\n"
    _fires_unless(tmp_path, apt, ("log.package-install-failed", "fail"), ("repo.radeon.com", "dl.example.org"))
    zypper = ("[amdgpu|https://repo.radeon.com/amdgpu/6.1.1/sle/20240524/main/x86_64] Valid metadata not found at "
              "specified URL\n")
    found = judged(tmp_path, zypper, "zypper.txt")
    assert problems(found) == {"log.package-install-failed": "fail"}
    assert "sle/20240524" in found["log.package-install-failed"][0].title


def test_amds_repository_answering_404_on_an_unlisted_distribution_fails_os_support(tmp_path: Path) -> None:
    """ROCm/ROCm#3191: openSUSE Tumbleweed (an issue template's answer) with ROCm 6.1.1: AMD's SLE repository path
    answered 404, so nothing installs (fail); without that line the OS is only unvalidated (a warning)."""
    text = ("ROCM version: 6.1.1\n\n### Operating System\n\nopenSUSE Tumbleweed\n\n"
            "[amdgpu|https://repo.radeon.com/amdgpu/6.1.1/sle/20240524/main/x86_64] Valid metadata not found at "
            "specified URL\n")
    assert problems(judged(tmp_path, text)).get("os.not-supported") == "fail"
    plain = text.split("[amdgpu|")[0]
    assert problems(judged(tmp_path, plain, "plain.txt")).get("os.not-supported") == "warn"


def test_xla_refusing_a_gpu_its_build_lacks_is_the_programs_build_not_rocms(tmp_path: Path) -> None:
    """elixir-nx/xla#63: XLA's ROCm build lists gfx900..gfx1030 and refuses a gfx1100; the host's ROCm 5.6.0 does not
    list gfx1100 either, but the program's own list is what failed: AMD's list is context beside it (information; it
    was a warning until elixir's fixture was taught, one verdict instead of two)."""
    line = ("18:10:28.124 [info] StreamExecutor ROCM device (0) is of unsupported AMDGPU version : gfx1100. The "
            "supported AMDGPU versions are gfx900, gfx906, gfx908, gfx90a, gfx1030.\n")
    text = 'GPU: RX 7900 XTX\n"ROCM_PATH" => "/opt/rocm-5.6.0"\n' + line
    judgement = judged(tmp_path, text)
    found = problems(judgement)
    assert found["log.unsupported-gpu-target"] == "fail" and "gpu.arch-unsupported" not in found
    assert [f.severity for f in judgement["gpu.arch-unsupported"]] == [Severity.INFO]
    listed = text.replace("gfx1030.", "gfx1030, gfx1100.")  # a list that holds the GPU's own target: no refusal
    assert "log.unsupported-gpu-target" not in problems(judged(tmp_path, listed, "listed.txt"))


def test_offload_images_for_another_gpu_and_a_gpu_name_given_to_the_host_compile(tmp_path: Path) -> None:
    """llvm/llvm-project#60221: an OpenMP offload image for gfx90a refused on a gfx906; ROCm/aomp#2013: -march=gfx1151
    reached the x86-64 host compile."""
    mismatch = ("Target AMDGPU RTL --> Incompatible: Processor mismatch \t[Image: gfx90a]\t:\t"
                "[Env: gfx906:sramecc+:xnack-]\n")
    found = judged(tmp_path, mismatch)
    assert problems(found) == {"log.no-binary-for-gpu": "fail"}
    assert "gfx90a" in found["log.no-binary-for-gpu"][0].title
    host = ("'gfx1151' is not a recognized processor for this target (ignoring processor)\n"
            "LLVM ERROR: 64-bit code requested on a subtarget that doesn't support it!\n")
    _fires_unless(tmp_path, host, ("log.hip-toolchain", "fail"), ("64-bit code requested", "out of memory in"))


def test_rocms_opencl_platform_without_a_device_is_a_failure_on_the_named_gpu(tmp_path: Path) -> None:
    """ROCm/clr#269: clinfo lists AMD's platform with no device for an RX 570 (gfx803), which ROCm 7 rejects: a
    failure on the GPU makes AMD's list a verdict (fail), not information about a GPU only named."""
    text = ("clinfo doesn't show info about my RX570:\n"
            "  clGetDeviceIDs(NULL, CL_DEVICE_TYPE_ALL, ...)   No devices found in platform [AMD Accelerated Parallel "
            "Processing?]\n")
    found = problems(judged(tmp_path, text))
    assert found == {"gpu.arch-unsupported": "fail", "log.opencl-no-devices": "fail"}
    mesa = text.replace("AMD Accelerated Parallel Processing?]", "Clover?]")  # Mesa's platform: not ROCm's runtime
    assert problems(judged(tmp_path, mesa, "mesa.txt")) == {}


def test_hip_sdk_releases_side_by_side_on_windows_are_no_mix(tmp_path: Path) -> None:
    """ROCm/hip#3899: hipInfo of HIP SDK 7.1 and amdgpu-arch of 6.4, each in its own folder under C:\\Program
    Files\\AMD\\ROCm: the SDK's layout, not two ROCm releases mixed (the fault was 7.1's runtime). Two /opt/rocm-X
    trees stay a warning (derived look-alike)."""
    text = ('PS C:\\Users\\u> & "C:\\Program Files\\AMD\\ROCm\\7.1\\bin\\hipInfo.exe"\n'
            'PS C:\\Users\\u> & "C:\\Program Files\\AMD\\ROCm\\6.4\\bin\\amdgpu-arch.exe"\n')
    found = judged(tmp_path, text)
    assert "rocm.multiple-versions" not in problems(found)
    assert found["rocm.multiple-versions"][0].severity == Severity.INFO
    linux = ("ls /opt\nrocm-6.4.0\nrocm-7.1.0\n"
             "$ ls /opt/rocm-6.4.0/lib/libamdhip64.so /opt/rocm-7.1.0/lib/libamdhip64.so\n")
    assert problems(judged(tmp_path, linux, "linux.txt")).get("rocm.multiple-versions") == "warn"


def test_no_hip_device_on_native_windows_gets_windows_advice(tmp_path: Path) -> None:
    """ROCm/hip#3899: hipInfo of HIP SDK 7.1 on Windows finds no RX 6800 XT. The advice there is the Adrenalin driver
    and the SDK's own hipInfo, never WSL wheels or amdgpu (which Linux and WSL reports keep)."""
    text = ('PS C:\\Users\\u> & "C:\\Program Files\\AMD\\ROCm\\7.1\\bin\\hipInfo.exe"\n'
            "no ROCm-capable device is detected\n")
    found = judged(tmp_path, text)["log.hip-error-no-device"][0]
    assert "Adrenalin" in found.fix.explanation and "hipInfo.exe" in found.fix.commands[0]
    assert "WSL" not in found.detail and "amdgpu" not in found.fix.explanation
    linux = judged(tmp_path, "no ROCm-capable device is detected\n", "linux.txt")["log.hip-error-no-device"][0]
    assert "WSL" in linux.fix.explanation


def test_hipblaslt_missing_its_lazy_library_is_a_warning_until_a_gemm_fails(tmp_path: Path) -> None:
    """mudler/LocalAI#10660: an R9700 (gfx1201) logs hipBLASLt's missing lazy library and works (rocBLAS falls back);
    ROCm/TheRock#754: torch routed a GEMM to hipBLASLt and it failed (HIPBLAS_STATUS_INVALID_VALUE)."""
    lazy = 'rocblaslt error: Cannot read "TensileLibrary_lazy_gfx1201.dat": No such file or directory\n'
    assert problems(judged(tmp_path, lazy)) == {"log.hipblaslt-library-missing": "warn"}
    gemm = ("Error in Linear: CUDA error: HIPBLAS_STATUS_INVALID_VALUE when calling `hipblasLtMatmulAlgoGetHeuristic( "
            "ltHandle, computeDesc.descriptor(), Adesc.descriptor(), Bdesc.descriptor(), Cdesc.descriptor(), "
            "Cdesc.descriptor(), preference.descriptor(), 1, &heuristicResult, &returnedResult)`\n")
    assert problems(judged(tmp_path, lazy + gemm, "gemm.txt")) == {"log.hipblaslt-library-missing": "fail"}


def test_a_profiler_aborting_on_the_igpu_beside_a_dgpu_is_the_igpu(tmp_path: Path) -> None:
    """ROCm/rocprofiler#138: "It has a gfx90c (not supported) and a gfx1032 (supported)", and rocprofv2 aborts with
    'GFXIP is not supported(gfx90c)': both GPUs are read from the one sentence, and the program failed on the iGPU.
    The same abort on the discrete GPU (derived look-alike) is the profiler's own, not the iGPU's."""
    text = ("It has a gfx90c (not supported) and a gfx1032 (supported). I cannot run rocprof:\n"
            "  what():  Translate(), ImportMetrics: bad block name 'GRBM', GFXIP is not supported(gfx90c)\n")
    found = judged(tmp_path, text)
    assert problems(found)["gpu.igpu-visible"] == "fail"
    assert found["log.profiler-gpu-unsupported"][0].cause == "gpu.igpu-visible"
    # the failure names the iGPU: the gfx1032 is only named, no runtime said it ran without an override
    assert "gpu.override-needed" not in problems(found)
    dgpu = text.replace("supported(gfx90c)", "supported(gfx1032)")
    found = judged(tmp_path, dgpu, "dgpu.txt")
    assert problems(found).get("gpu.igpu-visible") == "warn"
    # GPUs named in prose have no runtime order: the override's fix names no index it cannot know
    override = found["gpu.override-needed"][0]
    assert override.severity == Severity.FAIL and override.fix is not None
    assert override.fix.commands[0].startswith("HIP_VISIBLE_DEVICES=<index of this GPU> ")
    one = "It has a gfx90c and uses it.\n"  # one GPU named: no second target read
    assert "gpu.igpu-visible" not in problems(judged(tmp_path, one, "one.txt"))


def test_the_debuggers_missing_kfd_interface_is_a_kernel_driver_mismatch(tmp_path: Path) -> None:
    """ROCm/ROCgdb#6: ROCm 4.1's rocgdb on Ubuntu's kernel 5.8 (in-tree amdgpu): 'amd-dbgapi: fatal error:
    KFD_IOC_DBG_TRAP_GET_VERSION failed' (the maintainer: the ioctls were only in ROCk). Another amd-dbgapi fatal
    error (derived look-alike) names no driver."""
    line = "amd-dbgapi: fatal error: KFD_IOC_DBG_TRAP_GET_VERSION failed\n"
    found = judged(tmp_path, line)
    assert problems(found) == {"rocm.kmd-mismatch": "fail", "log.debugger-kfd-unsupported": "fail"}
    assert found["log.debugger-kfd-unsupported"][0].cause == "rocm.kmd-mismatch"
    other = "amd-dbgapi: fatal error: queue_snapshot failed (rc=-1)\n"
    assert "rocm.kmd-mismatch" not in problems(judged(tmp_path, other, "other.txt"))


def test_a_repl_device_count_says_torch_sees_the_gpus(tmp_path: Path) -> None:
    """spack/spack#31115: a REPL lists eight '<torch.cuda.device object at 0x...>' entries; a ROCm torch whose
    'torch.cuda.device_count()' answers 0 (derived look-alike) sees none."""
    objects = ", ".join(f"<torch.cuda.device object at 0x7f2132935e{i}0>" for i in range(8))
    text = f">>> available_gpus\n[{objects}]\n"
    found = judged(tmp_path, text)
    assert [f.severity for f in found["torch.gpu-unavailable"]] == [Severity.OK]
    zero = ">>> torch.__version__\n'2.0.1+rocm5.4.2'\n>>> torch.cuda.device_count()\n0\n"
    assert problems(judged(tmp_path, zero, "zero.txt")).get("torch.gpu-unavailable") == "fail"


def test_cpythons_msvc_banner_is_native_windows(tmp_path: Path) -> None:
    """ROCm/ROCm#4846: ComfyUI's 'Python version: 3.13.9 (main, Oct 14 2025, 21:22:32) [MSC v.1944 64 bit (AMD64)]'
    is an MSVC build of CPython, so native Windows; Linux's '[GCC 12.2.0]' banner (derived look-alike) is not."""
    line = "Python version: 3.13.9 (main, Oct 14 2025, 21:22:32) [MSC v.1944 64 bit (AMD64)]\n"
    assert "os.windows-native" in judged(tmp_path, line)
    linux = "Python version: 3.11.7 (main, May  9 2026, 07:35:25) [GCC 12.2.0]\n"
    assert "os.windows-native" not in judged(tmp_path, linux, "linux.txt")


def test_lm_studios_rocm_engine_refusing_the_gpu_is_an_unsupported_target(tmp_path: Path) -> None:
    """lmstudio-ai/lmstudio-bug-tracker#883: the ROCm engine's '"message": "No compatible ROCm GPUs found on device"'
    for a gfx1150; its hardware survey reporting the GPU compatible (derived look-alike) is no such refusal."""
    text = ('[\n  {\n    "status": "No supported GPUs",\n'
            '    "message": "No compatible ROCm GPUs found on device"\n  }\n]\n')
    assert problems(judged(tmp_path, text)) == {"log.unsupported-gpu-target": "fail"}
    fine = text.replace("No compatible ROCm GPUs found on device", "Compatible ROCm GPUs found on device")
    assert "log.unsupported-gpu-target" not in problems(judged(tmp_path, fine + "Ubuntu 24.04\n", "fine.txt"))


def test_a_gpu_left_hung_until_a_reset_is_a_hang(tmp_path: Path) -> None:
    """ROCm/legacy-rocm-build#6012: 'leaving the GPU in a hung state (100% busy, 0 compute) that requires `rocm-smi
    --gpureset` to recover'. A report that only asks how to reset a GPU (derived look-alike) tells of no hang."""
    text = ("leaving the GPU in a hung state\n(100% busy, 0 compute) that requires `rocm-smi --gpureset` to recover.\n"
            "| OS | Fedora Linux 43 (Workstation Edition) |\n")
    assert problems(judged(tmp_path, text))["log.gpu-hang"] == "fail"
    asked = "How do I use `rocm-smi --gpureset` on a node?\n| OS | Fedora Linux 43 (Workstation Edition) |\n"
    assert "log.gpu-hang" not in problems(judged(tmp_path, asked, "asked.txt"))


def test_a_gfx_in_parentheses_after_the_gpu_is_a_is_the_gpu(tmp_path: Path) -> None:
    """rocm-arch/python-pytorch-rocm#26: 'The GPU is a AMD Ryzen 3 PRO 2300U w (gfx902)' names the GPU's target;
    a build's target list in parentheses after other words (derived look-alike) names no GPU."""
    line = "The GPU is a AMD Ryzen 3 PRO 2300U w (gfx902) which I know is not officially supported by ROCm\n"
    host = load_host(_write(tmp_path, line))
    assert [g.gfx_by_source.get("log") for g in host.gpus] == ["gfx902"]
    other = "The wheel is built for (gfx902) and more\n"
    read = _host_if_read(tmp_path, other, "other.txt")
    assert read is None or read.gpus == []


def test_uv_replacing_the_rocm_torch_with_an_untagged_one_is_not_a_rocm_build(tmp_path: Path) -> None:
    """unslothai/unsloth#7275: uv's summary ' - torch==2.11.0+rocm7.13.0' then ' + torch==2.10.0': a dependency's
    resolve pulled PyPI's torch. Replacing it with another ROCm torch (derived look-alike) is no such fault."""
    text = "   - torch==2.11.0+rocm7.13.0\n   + torch==2.10.0\n"
    found = judged(tmp_path, text)
    assert problems(found) == {"torch.not-rocm-build": "fail"}
    assert "replaced the ROCm torch" in found["torch.not-rocm-build"][0].title
    rocm = text.replace("+ torch==2.10.0", "+ torch==2.10.0+rocm7.13.0")
    assert problems(judged(tmp_path, rocm, "rocm.txt")) == {}


def test_sdnext_installing_cpu_torch_beside_the_hip_sdk_is_a_cpu_torch(tmp_path: Path) -> None:
    """vladmandic/sdnext#3108: 'HIP SDK is detected, but no Torch release for Windows available' then 'Using CPU-only
    torch'. 'Using CPU-only torch' alone (derived look-alike; SD.Next prints it on Linux --use-zluda runs whose ROCm
    torch works) is no such fault."""
    text = ("12:11:51-558951 WARNING  HIP SDK is detected, but no Torch release for Windows available\n"
            "12:11:51-561950 INFO     Using CPU-only torch\n")
    assert problems(judged(tmp_path, text)) == {"torch.not-rocm-build": "fail", "log.cpu-torch": "fail"}
    alone = "12:11:51-561950 INFO     Using CPU-only torch\nUbuntu 22.04\n"
    assert problems(judged(tmp_path, alone, "alone.txt")) == {}


def test_vllms_padded_collect_env_is_read(tmp_path: Path) -> None:
    """vllm-project/vllm#45372: vLLM's collect_env pads its keys ('ROCM used to build PyTorch   : 7.2.53211') and its
    Python platform names the processor; the same text with the keys misspelt (derived look-alike) is no collect_env."""
    text = ("PyTorch version              : 2.12.0a0+git0d62256\n"
            "ROCM used to build PyTorch   : 7.2.53211\n"
            "Python platform              : Linux-6.17.9-gentoo-x86_64-AMD_Ryzen_Threadripper_3960X_24-Core_Processor"
            "-with-glibc2.43\n")
    host = load_host(_write(tmp_path, text))
    assert host.torch is not None and host.torch.hip == "7.2.53211"
    assert host.kernel.release == "6.17.9-gentoo"
    other = text.replace("PyTorch version", "Torch versions").replace("ROCM used", "ROCM was used")
    read = _host_if_read(tmp_path, other, "other.txt")
    assert read is None or read.torch is None or read.torch.hip is None


def test_a_pci_name_listing_several_boards_is_one_board(tmp_path: Path) -> None:
    """ROCm/ROCm#2119: lshw's 'Ellesmere [Radeon RX 470/480/570/570X/580/580X/590]' is one board the PCI ID Repository
    names by its whole family, not an RX 470 beside the RX 480 the prose names; 'RX 470' alone (derived look-alike) is
    that board."""
    text = "I use an RX 480.\n       product: Ellesmere [Radeon RX 470/480/570/570X/580/580X/590]\n"
    assert [g.name for g in load_host(_write(tmp_path, text)).gpus] == ["RX 480"]
    alone = "product: Radeon RX 470\n"
    assert [g.name for g in load_host(_write(tmp_path, alone, "alone.txt")).gpus] == ["RX 470"]


def test_hipdf_on_a_gpu_outside_its_list_is_an_unsupported_target(tmp_path: Path) -> None:
    """ROCm/legacy-rocm-build#6383: 'import hipdf' on an RX 9060 XT (gfx1200), which ROCm 7.2.4 supports but hipDF
    does not (its README: gfx90a, gfx942, gfx1100); the same script on an RX 7900 XTX (derived look-alike) is in it."""
    text = "### GPU\n\nAMD Radeon RX 9060 XT\n\n```python\nimport hipdf\ndf = hipdf.DataFrame({'a': [1]})\n```\n"
    found = judged(tmp_path, text)
    assert problems(found).get("log.unsupported-gpu-target") == "fail"
    assert "hipDF" in found["log.unsupported-gpu-target"][0].title
    listed = text.replace("RX 9060 XT", "RX 7900 XTX")
    assert "log.unsupported-gpu-target" not in problems(judged(tmp_path, listed, "listed.txt"))


def test_flash_attention_ck_built_for_a_gpu_outside_its_list_names_the_triton_backend(tmp_path: Path) -> None:
    """ROCm/flash-attention#111: building the CK extension ('building 'flash_attn_2_cuda' extension') for a GFX1151,
    outside setup.py's allowed_archs (gfx90a, gfx950, gfx942); AMD: 'CK backend is for MI cards only', use Triton.
    The same build on an MI300X (gfx942) and prose that only names the extension (derived look-alikes) are not."""
    text = ("### GPU\n\nGFX1151\n\n### ROCm Version\n\nROCm 6.3.0\n\n"
            "  building 'flash_attn_2_cuda' extension\n  creating build/temp.linux-x86_64-cpython-312/build\n")
    found = judged(tmp_path, text)
    assert problems(found).get("log.unsupported-gpu-target") == "fail"
    hit = found["log.unsupported-gpu-target"][0]
    assert "FlashAttention" in hit.title and hit.fix and "FLASH_ATTENTION_TRITON_AMD_ENABLE=TRUE" in hit.fix.commands[0]
    listed = text.replace("GFX1151", "AMD Instinct MI300X")
    assert "log.unsupported-gpu-target" not in problems(judged(tmp_path, listed, "listed.txt"))
    prose = text.replace("  building 'flash_attn_2_cuda' extension", "it fails to import flash_attn_2_cuda")
    assert "log.unsupported-gpu-target" not in problems(judged(tmp_path, prose, "prose.txt"))


def test_deepspeed_ds_report_names_the_torch_build(tmp_path: Path) -> None:
    """DeepSpeed's ds_report pads its keys with dots: the CUDA sample of deepspeedai/DeepSpeed#6762 ('torch version
    .... 2.3.0+cu121', 'torch hip version .... None') is a CUDA torch, the ROCm sample of #1906 ('torch hip version
    .... 5.1.20531-cacfa990') a ROCm build; the wheel line 'deepspeed wheel compiled w. ...... torch 1.10, hip 5.1'
    (same sample) names no installed torch."""
    cuda = ("DeepSpeed general environment info:\n"
            "torch version .................... 2.3.0+cu121\n"
            "torch cuda version ............... 12.1\n"
            "torch hip version ................ None\n")
    assert problems(judged(tmp_path, cuda)).get("torch.not-rocm-build") == "fail"
    rocm = ("torch version .................... 1.10.0a0+git539d476\n"
            "torch cuda version ............... None\n"
            "torch hip version ................ 5.1.20531-cacfa990\n")
    found = judged(tmp_path, rocm, "rocm.txt")
    assert [f.severity.value for f in found["torch.not-rocm-build"]] == ["ok"]
    wheel_only = "deepspeed wheel compiled w. ...... torch 1.10, hip 5.1\n"
    assert load_host(_write(tmp_path, wheel_only, "wheel.txt")).torch is None


def test_amd_dkms_installed_while_kfd_rejects_the_gpu_is_the_in_tree_driver_loaded(tmp_path: Path) -> None:
    """ROCm/amdgpu#57: rocm-dkms 1.9 installed on RHEL 7.5, 'kfd not supported on this ASIC' for the Vega FE and
    rocminfo's 4104; the in-tree amdgpu was the one loaded (confirmed by the reporter). The same lines without AMD's
    DKMS package (derived look-alike) name only the kernel line."""
    text = ("This is on a very clean, just installed **RHEL 7.5**, Vega Frontier Edition Air cooled vs "
            "**rocm-dkms-1.9.211-1.x86_64**.\n```\n[    2.131266] amdgpu 0000:03:00.0: kfd not supported on this ASIC\n"
            "```\n```\n# /opt/rocm/bin/rocminfo \nhsa api call failure at line 900, file: /home/1019/git/"
            "rocm-rel-1.9-211/rocminfo/rocminfo.cc. Call returned 4104\n```\n")
    found = judged(tmp_path, text)
    assert problems(found).get("rocm.kmd-mismatch") == "fail"
    fix = found["rocm.kmd-mismatch"][0].fix
    assert fix is not None and "sudo dracut -f" in fix.commands
    inbox = text.replace(" vs **rocm-dkms-1.9.211-1.x86_64**", "")
    assert "rocm.kmd-mismatch" not in problems(judged(tmp_path, inbox, "inbox.txt"))


def test_an_os_only_old_releases_support_is_no_verdict_on_the_gpu(tmp_path: Path) -> None:
    """ROCm/ROCm#755 (2019): eight RX 580s on Ubuntu 18.04, no ROCm version named; only ROCm 5.2.3 and older list
    18.04 and their GPU lists are not in the data, so gfx803 is not judged by the newest list. On Ubuntu 22.04
    (derived look-alike) the newest list stands."""
    text = ('did a completely clean install of ROCm on Ubuntu 18.04 and 7 of my 8 GPUs get "PCI rejects atomics"\n'
            "CPU is a Intel(R) Core(TM) i7-6700K CPU @ 4.00GHz and the RX580's are listed as supported GPUs\n")
    assert "gpu.arch-unsupported" not in problems(judged(tmp_path, text))
    newer = text.replace("Ubuntu 18.04", "Ubuntu 22.04")
    assert problems(judged(tmp_path, newer, "newer.txt")).get("gpu.arch-unsupported") == "fail"


def test_a_rocm_smi_table_under_a_launcher_prefix_lists_its_gpus(tmp_path: Path) -> None:
    """wandb/wandb#5449: eight MI250X GCDs in a job log whose every line starts 'nid005113 out: '; read as eight GPUs,
    never 'no AMD GPU found'. Rows that cannot be read (derived: the prefix differs on the banner) are no evidence
    of an empty host either."""
    rows = "".join(f"nid005113 out: {i}    47.0c  91.0W   800Mhz  1600Mhz  0%   auto  560.0W    0%   0%\n"
                   for i in range(8))
    text = ("nid005113 out: ======================= ROCm System Management Interface =======================\n"
            "nid005113 out: ================================= Concise Info =================================\n"
            "nid005113 out: GPU  Temp   AvgPwr  SCLK    MCLK     Fan  Perf  PwrCap  VRAM%  GPU%\n" + rows +
            "nid005113 out: ============================= End of ROCm SMI Log ==============================\n")
    assert len(load_host(_write(tmp_path, text)).gpus) == 8
    assert "gpu.none-found" not in problems(judged(tmp_path, text))
    other = text.replace("nid005113 out: ==", "nid005114 err: ==", 1)
    assert "gpu.none-found" not in problems(judged(tmp_path, other, "other.txt"))


def test_a_model_guard_naming_its_only_rocm_target_is_an_unsupported_target(tmp_path: Path) -> None:
    """vllm-project/recipes#858: 'NotImplementedError: glm 5 next currently supports ROCm gfx950 only.' on an MI325X
    (gfx942). Prose naming a ROCm release the recipe supports (derived look-alike) is no refusal."""
    text = ("Deployed the recipe on MI325X (gfx942)\n"
            "NotImplementedError: glm 5 next currently supports ROCm gfx950 only.\n")
    found = judged(tmp_path, text)
    assert problems(found).get("log.unsupported-gpu-target") == "fail"
    assert "gfx950" in found["log.unsupported-gpu-target"][0].title
    prose = "Deployed the recipe on MI325X (gfx942)\nThe image currently supports ROCm 7.0 only.\n"
    assert "log.unsupported-gpu-target" not in problems(judged(tmp_path, prose, "prose.txt"))


def test_tasks_that_each_asked_for_a_gpu_but_share_a_few_are_a_binding_fault(tmp_path: Path) -> None:
    """llnl/mpibind#45: 'flux run -N 1 -n 24 -g 1 bash -c "echo \\$ROCR_VISIBLE_DEVICES"' printed 18-23 for 24 tasks.
    Distinct indexes (derived), or tasks that asked for no GPU of their own (derived: no -g), are no fault."""
    shared = [19, 19, 18, 18, 19, 20, 19, 20, 20, 20, 21, 21, 21, 21, 22, 22, 22, 22, 23, 23, 23, 23, 18, 18]
    head = ' flux run -N 1 -n 24 -g 1  bash -c "echo \\$ROCR_VISIBLE_DEVICES"\n'
    text = head + "".join(f"{i}\n" for i in shared)
    found = judged(tmp_path, text)
    assert problems(found).get("env.visible-devices") == "fail"
    assert "share 6 GPUs" in found["env.visible-devices"][0].title
    fix = found["env.visible-devices"][0].fix
    assert fix is not None
    assert fix.commands == ["flux run -n 24 -g 1 bash -c 'echo $ROCR_VISIBLE_DEVICES' | sort -n | uniq -c"]
    distinct = head + "".join(f"{i}\n" for i in range(24))
    assert "env.visible-devices" not in problems(judged(tmp_path, distinct, "distinct.txt"))
    no_request = text.replace(" -g 1", "")
    assert "env.visible-devices" not in problems(judged(tmp_path, no_request, "no_request.txt"))


def test_companions_from_another_rocm_release_than_torch_are_a_mismatch(tmp_path: Path) -> None:
    """Comfy-Org/ComfyUI#9604: torch==2.7.1+rocm7.9.0rc20250923 beside torchaudio==2.8.0a0+rocm7.0.0rc20250903 (two
    ROCm releases of TheRock's index). The same index's own pair (a healthy fixture: torch 2.9.0a0 and torchaudio
    2.8.0a0, both +rocm7.0.0rc20250805) is no mismatch."""
    text = ("$ python -m pip freeze --all | grep torch\ntorch==2.7.1+rocm7.9.0rc20250923\n"
            "torchaudio==2.8.0a0+rocm7.0.0rc20250903\ntorchvision==0.22.1+rocm7.9.0rc20250923\n")
    found = judged(tmp_path, text)
    assert problems(found).get("torch.companion-mismatch") == "fail"
    assert "torchaudio" in found["torch.companion-mismatch"][0].title
    same = ("torch==2.9.0a0+rocm7.0.0rc20250805\ntorchaudio==2.8.0a0+rocm7.0.0rc20250805\n"
            "torchvision==0.24.0a0+rocm7.0.0rc20250805\n")
    assert "torch.companion-mismatch" not in problems(judged(tmp_path, same, "same.txt"))


def test_a_backend_speed_is_no_rocm_version(tmp_path: Path) -> None:
    """ROCm/ROCm#4722: LM Studio's 'ROCm : 16.91 tok/sec, 1514 tokens' is a speed; 'ROCm : 6.4' (derived) a version."""
    speed = "ROCm : 16.91 tok/sec, 1514 tokens, 3.49s to first token, Stop reason: EOS Token Found\n"
    assert load_host(_write(tmp_path, speed)).rocm_installs == []
    version = "ROCm : 6.4\n"
    assert [i.version for i in load_host(_write(tmp_path, version, "v.txt")).rocm_installs] == ["6.4"]


def test_an_index_that_served_torch_for_this_python_lacks_the_companion_not_the_python(tmp_path: Path) -> None:
    """pytorch/pytorch#131793: the rocm6.1 index served torch-2.4.0+rocm6.1-cp312 and no torchaudio ('from versions:
    none'): the index's gap (log.no-matching-wheel), not Python 3.12. torch itself missing (derived look-alike, with
    no torch wheel downloaded) still blames the Python."""
    text = ("Looking in indexes: https://download.pytorch.org/whl/rocm6.1\nCollecting torch\n  Downloading "
            "https://download.pytorch.org/whl/rocm6.1/torch-2.4.0%2Brocm6.1-cp312-cp312-linux_x86_64.whl (2662.1 MB)\n"
            "ERROR: Could not find a version that satisfies the requirement torchaudio (from versions: none)\n"
            "ERROR: No matching distribution found for torchaudio\n")
    found = judged(tmp_path, text)
    assert problems(found).get("log.no-matching-wheel") == "fail" and "python.no-rocm-wheel" not in problems(found)
    fix = found["python.no-rocm-wheel"][0].fix
    assert fix is not None
    assert fix.commands == ["pip index versions torchaudio --index-url https://download.pytorch.org/whl/rocm6.1"]
    torch_missing = ("Python 3.14.0\nLooking in indexes: https://download.pytorch.org/whl/rocm6.1\n"
                     "ERROR: Could not find a version that satisfies the requirement torch (from versions: none)\n"
                     "ERROR: No matching distribution found for torch\n")
    assert problems(judged(tmp_path, torch_missing, "torch.txt")).get("python.no-rocm-wheel") == "fail"


def test_a_groups_remedy_after_a_cpu_only_run_names_the_device_permissions(tmp_path: Path) -> None:
    """unslothai/unsloth#10466: 'Uses CPU only', then the remedy 'sudo usermod -a -G render,video $LOGNAME' and 'Now,
    GPU can be used via ROCm or Vulkan backends.' The remedy in a setup that never failed, or a failure whose report
    does not say the remedy worked (derived look-alikes), names nothing."""
    failed = "**Actual behavior:**\n\nUses CPU only (confirmed via htop high CPU usage, and nothing on amd-smi).\n\n"
    remedy = ("## Remedy\n\nHave to manually run \n\n`sudo usermod -a -G render,video $LOGNAME`\n\nand reboot/re-login."
              "\n\nNow, GPU can be used via ROCm or Vulkan backends.\n")
    assert problems(judged(tmp_path, failed + remedy)).get("perm.kfd-access") == "fail"
    assert "perm.kfd-access" not in problems(judged(tmp_path, remedy, "setup.txt"))
    unsaid = failed + remedy.replace("Now, GPU can be used via ROCm or Vulkan backends.", "Still the same.")
    assert "perm.kfd-access" not in problems(judged(tmp_path, unsaid, "unsaid.txt"))


def test_a_speed_on_the_rocm_backend_is_a_run_on_the_gpus_own_target(tmp_path: Path) -> None:
    """lemonade-sdk/lemonade#2186: llama.cpp's 'Device 0: AMD Radeon 860M Graphics, gfx1152 (0x1152)' and 'llama.cpp
    Bonsai-1.8B ROCM - 88.7tps': the build runs the 860M's own target, no override needed. The same device line with
    the run failing (derived look-alike) still asks for the override."""
    device = ("Tested with `Device 0: AMD Radeon 860M Graphics, gfx1152 (0x1152), VMM: no, Wave Size: 32, VRAM: "
              "81920 MiB`\n\n")
    ran = device + "llama.cpp Bonsai-1.8B ROCM - 88.7tps\n"
    assert "gpu.override-needed" not in problems(judged(tmp_path, ran))
    failed = device + "llama.cpp Bonsai-1.8B ROCM - crashes at load\nSegmentation fault (core dumped)\n"
    assert problems(judged(tmp_path, failed, "failed.txt")).get("gpu.override-needed") == "fail"


def test_hip_headers_in_the_distributions_tree_and_amds_are_two_installs(tmp_path: Path) -> None:
    """ggml-org/llama.cpp#15196: 'find / -name hip_bf16.h' lists /usr/include/hip/hip_bf16.h and /opt/rocm-6.4.3/
    include/hip/hip_bf16.h after ld.lld's 'duplicate symbol: __float2bfloat16(float)'. AMD's tree alone (derived
    look-alike) is one install; both trees with no failed build (derived) are a warning."""
    listing = "/usr/include/hip/hip_bf16.h\n/opt/rocm-6.4.3/include/hip/hip_bf16.h\n"
    broke = "ld.lld: error: duplicate symbol: __float2bfloat16(float)\n```\n"
    assert problems(judged(tmp_path, broke + listing)).get("rocm.multiple-versions") == "fail"
    assert problems(judged(tmp_path, listing, "calm.txt")).get("rocm.multiple-versions") == "warn"
    amd_only = broke + "/opt/rocm-6.4.3/include/hip/hip_bf16.h\n"
    assert "rocm.multiple-versions" not in problems(judged(tmp_path, amd_only, "amd.txt"))


def test_a_library_table_lacking_the_family_asks_for_no_override(tmp_path: Path) -> None:
    """tracel-ai/burn#3129: cubecl-hip 0.5.0 panics at runtime.rs:85 on an RX 6700 XT (its table has no gfx10); an
    override to 10.3.0 stays gfx10, so gpu.override-needed is not read from it. rocBLAS's missing code objects for the
    same GPU (derived look-alike) are what the override supplies."""
    text = ("I have a 6700xt\nthread 'main' panicked at /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/"
            "cubecl-hip-0.5.0/src/runtime.rs:85:5:\n")
    assert problems(judged(tmp_path, text)) == {"log.unsupported-gpu-target": "fail"}
    rocblas = "I have a 6700xt\nrocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: " \
              "No such file or directory for GPU arch : gfx1031\n"
    assert problems(judged(tmp_path, rocblas, "rocblas.txt")).get("gpu.override-needed") == "fail"


def test_a_torch_build_named_in_prose_with_its_tag_is_the_installed_torch(tmp_path: Path) -> None:
    """debpalash/VoiceStudio#1665: "`uv sync` ... installs the lockfile CUDA torch build (`2.8.0+cu128`)" on an RX 6800
    XT is a CUDA torch on an AMD host. An install command naming the same build (derived look-alike) is no state."""
    gpu = "On a source install with an AMD GPU (RX 6800 XT, Linux), the app always reports no GPU acceleration.\n"
    said = "- `uv sync` (via `setup:api`) installs the lockfile CUDA torch build (`2.8.0+cu128`).\n"
    command = "- run `uv pip install torch build (`2.8.0+cu128`)` to get it\n"
    _fires_unless(tmp_path, gpu + said, ("torch.not-rocm-build", "fail"), (said, command))


def test_a_count_of_devices_is_no_compose_devices_key(tmp_path: Path) -> None:
    """mcmonkeyprojects/SwarmUI#1531: a torch check printing "devices: 0" is a count, not a compose service's
    `devices:` list, so no container finding; a compose service with `devices:` and no /dev/kfd still is one."""
    printout = "torch: 2.14.0+cu130\nHIP: None\nCUDA available: False\ndevices: 0\n"
    compose = ("services:\n  ollama:\n    image: ollama/ollama:rocm\n    devices:\n      - /dev/dri\n"
               "    group_add:\n      - video\n")
    _fires_only_in(tmp_path, printout, "container.no-kfd-device", compose, ("container.no-kfd-device", "fail"))


def test_extra_index_url_beside_an_exact_rocm_pin_is_no_risk(tmp_path: Path) -> None:
    """SWivid/F5-TTS#1236: `pip install torch==2.5.1+rocm6.2 ... --extra-index-url .../rocm6.2` can only install the
    ROCm build (PyPI has no +rocm version); the same command without the pin (derived look-alike) keeps the warning."""
    pinned = ("`pip install torch==2.5.1+rocm6.2 torchaudio==2.5.1+rocm6.2 --extra-index-url "
              "https://download.pytorch.org/whl/rocm6.2`\n")
    loose = pinned.replace("torch==2.5.1+rocm6.2", "torch==2.5.1")
    _fires_unless(tmp_path, loose, ("log.pip-extra-index-url", "warn"), ("torch==2.5.1 ", "torch==2.5.1+rocm6.2 "))


def test_onnxruntimes_provider_load_error_names_the_missing_library(tmp_path: Path) -> None:
    """ROCm/TheRock#1995: onnxruntime's "Failed to load library libonnxruntime_providers_rocm.so with error:
    librocm_smi64.so.7: cannot open shared object file"; a CUDA library in the same place (derived look-alike) is not
    a ROCm host's missing library."""
    line = ("[ONNXRuntimeError] : 1 : FAIL : Failed to load library libonnxruntime_providers_rocm.so with error: "
            "librocm_smi64.so.7: cannot open shared object file: No such file or directory\n")
    _fires_unless(tmp_path, line, ("log.missing-shared-library", "fail"), ("librocm_smi64.so.7", "libcudart.so.12"))
    assert "librocm_smi64.so.7" in judged(tmp_path, line)["log.missing-shared-library"][0].title


def test_clinfos_summary_counting_no_device_on_amds_platform_is_no_gpu(tmp_path: Path) -> None:
    """pobthebuilder/rocm-flatpak#1: clinfo's summary names AMD's platform, then "Number of devices  0" (an RX 580 that
    the Flatpak's ROCm no longer enumerates). Another platform with no device (Mesa's Clover, derived look-alike) says
    nothing about ROCm, and neither does AMD's platform with a device."""
    amd = ("  Platform Name                                   AMD Accelerated Parallel Processing\n"
           "Number of devices                                 0\n\nNULL platform behavior\n")
    assert problems(judged(tmp_path, amd)) == {"log.opencl-no-devices": "fail"}
    clover = amd.replace("AMD Accelerated Parallel Processing", "Clover")
    # (Mesa's platform alone says that ROCm's OpenCL is not installed: that warning, not a missing GPU)
    assert problems(judged(tmp_path, clover, "clover.txt")) == {"rocm.not-installed": "warn"}
    one = amd.replace("0\n\nNULL", "1\n\nNULL")
    assert problems(judged(tmp_path, one, "one.txt")) == {}


def test_a_session_started_with_the_override_ran_with_it(tmp_path: Path) -> None:
    """ROCm/legacy-rocm-build#1799: `$ HSA_OVERRIDE_GFX_VERSION=9.0.0 python3` then `torch.cuda.is_available()` True on
    a gfx90c: the session ran with the override (no override-needed fail), and the GPU's own override value is no
    mismatch. The same command as advice without a prompt, with the code-object error after it (derived look-alike),
    is no proof of a run with it; an error printed *before* the prompted run came from a run without it."""
    gpu = "It is a gfx90c iGPU, not officially supported. But there is a hack, just run like this.\n"
    session = "$ HSA_OVERRIDE_GFX_VERSION=9.0.0 python3\n>>> import torch\n>>> torch.cuda.is_available()\nTrue\n"
    assert problems(judged(tmp_path, gpu + session)) == {}
    error = '"hipErrorNoBinaryForGpu: Unable to find code object for all current devices!"\nAborted (core dumped)\n'
    advice = "Try HSA_OVERRIDE_GFX_VERSION=9.0.0 python3 next time.\n"
    assert problems(judged(tmp_path, gpu + error + advice, "advice.txt")).get("gpu.override-needed") == "fail"
    before = ">>> torch.cuda.is_available()\n" + error + "After the override:\n" + session
    assert problems(judged(tmp_path, gpu + before, "before.txt")).get("gpu.override-needed") == "fail"
    other = session.replace("9.0.0", "10.3.0")  # another generation's value on the only GPU
    assert problems(judged(tmp_path, gpu + other, "other.txt")).get("gpu.override-mismatch") == "warn"


def test_pip_saying_jax_has_no_rocm_extra_is_no_rocm_backend(tmp_path: Path) -> None:
    """jax-ml/jax#25856: `pip3 install jax[rocm]` answered "WARNING: jax 0.4.31 does not provide the extra 'rocm'"
    installs a CPU-only jax. Another extra missing (derived look-alike) says nothing about ROCm."""
    line = "WARNING: jax 0.4.31 does not provide the extra 'rocm'\n"
    found = judged(tmp_path, line)
    assert problems(found) == {"log.jax-no-rocm-backend": "fail"}
    assert "0.4.31" in found["log.jax-no-rocm-backend"][0].title
    assert problems(judged(tmp_path, line.replace("'rocm'", "'cuda12'"), "cuda.txt")) == {}


def test_hip_1_5s_no_device_code_is_no_binary_for_the_gpu(tmp_path: Path) -> None:
    """ROCm/rocRAND#17: HIP 1.5 throwing "No device code available for function: _ZN12rocrand_host..." (rocRAND
    built without the Carrizo's gfx801). A function that is merely not found by name (derived look-alike) is not."""
    line = ("  what():  No device code available for function: "
            "_ZN12rocrand_host6detail19init_engines_kernelEPN14rocrand_device13xorwow_engineEyy\n")
    assert problems(judged(tmp_path, line)) == {"log.no-binary-for-gpu": "fail"}
    assert problems(judged(tmp_path, line.replace("No device code available", "No symbol named"), "sym.txt")) == {}


def test_a_report_that_rocm_does_not_work_on_a_gpu_needing_the_override_is_a_run_without_it(tmp_path: Path) -> None:
    """ROCm/legacy-rocm-build#1848: "I just got an Advantage Edition laptop (full AMD) with an amd 6800M. To my
    surprise I couldn't get hip and rocm to work." (fixed by HSA_OVERRIDE_GFX_VERSION=10.3.0). Saying it works
    (derived look-alike) is no failure."""
    text = ("I just got an Advantage Edition laptop (full AMD) with an amd 6800M.\n\n"
            "To my surprise I couldn't get hip and rocm to work.\n")
    _fires_unless(tmp_path, text, ("gpu.override-needed", "fail"), ("couldn't get", "could get"))


def test_a_raven_apu_has_no_override_in_the_data(tmp_path: Path) -> None:
    """rocm-arch/python-pytorch-rocm#26: a gfx902 (Ryzen 3 PRO 2300U) with hipErrorNoBinaryForGpu is a GPU no ROCm
    supports. matrices/overrides.toml has no gfx902 row: the one it had rested on gfx90c reports by analogy, with no
    source for gfx902 itself. A gfx90c, whose override is sourced (ROCm/ROCm#1743), keeps override-needed."""
    text = ("The GPU is a AMD Ryzen 3 PRO 2300U w (gfx902) which I know is not officially supported by ROCm\n"
            '`guarantee(false && "hipErrorNoBinaryForGpu: Coudn\'t find binary for current devices!")`\n')
    found = problems(judged(tmp_path, text))
    assert found.get("gpu.arch-unsupported") == "fail" and "gpu.override-needed" not in found
    renoir = problems(judged(tmp_path, text.replace("gfx902", "gfx90c"), "renoir.txt"))
    assert renoir.get("gpu.override-needed") == "fail"


def test_hsa_init_failing_under_wsl_where_the_dxg_variable_lists_the_gpu_is_a_run_without_it(tmp_path: Path) -> None:
    """unslothai/unsloth#9729: `rocminfo` prints 'hsa_init Failed' under WSL, and `HSA_ENABLE_DXG_DETECTION=1 rocminfo`
    lists the gfx1201: the failure is a run without the variable (information with the fix), not a broken runtime.
    The variable set with rocminfo listing nothing (derived look-alike) explains nothing."""
    text = ("unset HSA_ENABLE_DXG_DETECTION\nrocminfo\n# WSL environment detected.\n"
            "# hsa_init Failed, possibly no supported GPU devices\n# exit 1\n\n"
            "HSA_ENABLE_DXG_DETECTION=1 rocminfo | grep -A2 '^Agent 2'\n#   Name:            gfx1201\n"
            "#   Marketing Name:  AMD Radeon AI PRO R9700\n")
    found = judged(tmp_path, text)
    assert "log.hsa-init-failed" not in problems(found)
    assert "HSA_ENABLE_DXG_DETECTION=1" in found["log.hsa-init-failed"][0].detail
    empty = text.replace("#   Name:            gfx1201\n", "# (nothing)\n")
    assert problems(judged(tmp_path, empty, "empty.txt")).get("log.hsa-init-failed") == "fail"


def test_the_node_labellers_device_id_names_the_gpu(tmp_path: Path) -> None:
    """ROCm/gpu-operator#266: `k describe no` listing "amd.com/gpu.device-id=74b5" names the node's GPU (an MI300X VF),
    so the paste is read (exit 0, no finding) instead of refused. Another vendor's label (derived look-alike) names
    no AMD GPU."""
    labels = ("                    amd.com/gpu.cu-count=304\n                    amd.com/gpu.device-id=74b5\n"
              "                    amd.com/gpu.driver-version=6.12.12\n")
    host = load_host(_write(tmp_path, labels))
    assert [g.pci_device_id for g in host.gpus] == ["0x74b5"]
    assert problems(judged(tmp_path, labels)) == {}
    other = labels.replace("amd.com/gpu.device-id", "nvidia.com/gpu.device-id")
    read = _host_if_read(tmp_path, other, "other.txt")
    assert read is None or read.gpus == []


def test_a_docker_run_continued_over_lines_is_read_whole(tmp_path: Path) -> None:
    """sgl-project/sglang#15252: `docker run -it -v $HOME:$HOME \\` continued over lines, `--device=/dev/kfd
    --device=/dev/dri \\` among them, then the ROCm image: the container gets the devices. The same command with the
    device line dropped (derived look-alike) does not; a next command after a line with no backslash is not part of
    the run."""
    run = ("docker run -it -v $HOME:$HOME \\\n               --cap-add=SYS_PTRACE \\\n"
           "               --device=/dev/kfd --device=/dev/dri \\\n               --group-add video \\\n"
           "               lmsysorg/sglang:v0.5.6.post1-rocm700-mi30x\n")
    found = judged(tmp_path, run)
    assert found["container.no-kfd-device"][0].severity == Severity.OK
    bare = run.replace("               --device=/dev/kfd --device=/dev/dri \\\n", "")
    assert problems(judged(tmp_path, bare, "bare.txt")).get("container.no-kfd-device") == "fail"
    after = bare.replace("mi30x\n", "mi30x\n# later, in another shell: --device=/dev/kfd --device=/dev/dri\n")
    assert problems(judged(tmp_path, after, "after.txt")).get("container.no-kfd-device") == "fail"


def test_a_release_named_with_a_parenthesis_before_installed_is_read(tmp_path: Path) -> None:
    """ROCm/ROCm-OpenCL-Runtime#122: "with ROCm 3.5.1 (`rocm-dkms`) installed" names the installed release, so a gfx900
    is judged against ROCm 3.5.1 (older than the data: not judged) instead of today's list. Without "installed"
    (derived look-alike) the sentence names no installed release."""
    text = "I'm using Ubuntu 18.04 LTS with ROCm 3.5.1 (`rocm-dkms`) installed as in the docs.\n"
    host = load_host(_write(tmp_path, text + "GPU: RX Vega 64\n"))
    assert [r.version for r in host.rocm_installs] == ["3.5.1"]
    other = text.replace(" installed", " mentioned")
    assert not load_host(_write(tmp_path, other + "GPU: RX Vega 64\n", "other.txt")).rocm_installs


def test_an_override_to_an_isa_no_release_supports_carries_its_caution(tmp_path: Path) -> None:
    """ROCm/rocm-libraries#8838: a BC-250's gfx1013 with Fedora's rocBLAS lacking it runs as gfx1010 under
    HSA_OVERRIDE_GFX_VERSION=10.1.0, which helps only libraries that carry gfx1010 code (no ROCm release supports it):
    the fix comes with that caution. The same error on a gfx1031 (derived look-alike) gets 10.3.0, whose gfx1030 is
    supported, without a caution."""
    text = (":1:hip_fatbin.cpp:780 : Cannot find CO in the bundle\n"
            "    /usr/lib64/librocblas.so.4.4 for ISA: amdgcn-amd-amdhsa--gfx1013:xnack-\n")
    found = judged(tmp_path, text)
    needed = found["gpu.override-needed"][0]
    assert needed.severity == Severity.FAIL and "10.1.0" in needed.title
    assert "Caution" in needed.detail and "gfx1010" in needed.detail
    other = judged(tmp_path, text.replace("gfx1013", "gfx1031"), "other.txt")["gpu.override-needed"][0]
    assert other.severity == Severity.FAIL and "10.3.0" in other.title and "Caution" not in other.detail


def test_jax_listing_only_the_cpu_has_no_rocm_backend(tmp_path: Path) -> None:
    """jax-ml/jax#18747: `jax.devices()` answering `[CpuDevice(id=0)]` in AMD's rocm/jax image means JAX started no
    ROCm backend. A list with a GPU device in it (derived look-alike) is a working backend."""
    text = ">>> import jax\n>>> jax.devices()\n[CpuDevice(id=0)]\n"
    assert problems(judged(tmp_path, text)).get("log.jax-no-rocm-backend") == "fail"
    gpu = text.replace("[CpuDevice(id=0)]", "[RocmDevice(id=0)]")
    assert "log.jax-no-rocm-backend" not in _problems_if_read(tmp_path, gpu, "gpu.txt")


def test_composable_kernel_without_a_buffer_resource_for_the_target_lacks_the_gpu(tmp_path: Path) -> None:
    """ROCm/xformers#12: `use of undeclared identifier 'CK_BUFFER_RESOURCE_3RD_DWORD'` while building CK for a
    gfx1030 is CK lacking the target (log.unsupported-gpu-target). Another undeclared identifier (derived look-alike)
    is an ordinary compile error."""
    line = ("/home/xformers/third_party/composable_kernel_tiled/include/ck/utility/amd_buffer_addressing.hpp:33:48: "
            "error: use of undeclared identifier 'CK_BUFFER_RESOURCE_3RD_DWORD'\n"
            "GPU models and configuration: AMD Radeon RX 6950 XT (gfx1030)\n")
    _fires_unless(tmp_path, line, ("log.unsupported-gpu-target", "fail"),
                  ("CK_BUFFER_RESOURCE_3RD_DWORD", "CK_USE_AMD_MFMA"))


def test_an_issue_templates_gpu_answered_with_a_target_names_the_gpu(tmp_path: Path) -> None:
    """ROCm/flash-attention#111: "### GPU", a blank line, "GFX1151" names the GPU (gfx1151, lowered). The same
    answer under "### CPU" (derived look-alike) names no GPU."""
    text = "### CPU\n\nAMD Ryzen AI Max+ 395\n\n### GPU\n\nGFX1151\n\n### ROCm Version\n\nROCm 6.3.0\n"
    assert [g.gfx for g in load_host(_write(tmp_path, text)).gpus] == ["gfx1151"]
    other = text.replace("### GPU\n\nGFX1151", "### CPU model\n\nGFX1151")
    assert load_host(_write(tmp_path, other, "other.txt")).gpus == []


def test_a_json_dependency_list_names_the_installed_torch(tmp_path: Path) -> None:
    """invoke-ai/InvokeAI#7520: the issue template's dependency JSON, `"torch": "2.4.1+cu121",`, is the installed
    torch: a CUDA build on an RX 6800. A companion's line (`"torchvision": "0.19.1"`, derived look-alike) is not."""
    text = '### GPU model\n\nRX 6800\n\n```\n{\n  "cuda": "12.1",\n  "torch": "2.4.1+cu121",\n}\n```\n'
    _fires_unless(tmp_path, text, ("torch.not-rocm-build", "fail"), ('"torch": "2.4.1+cu121"',
                                                                     '"torchvision": "0.19.1+cu121"'))


def test_a_koboldcpp_dll_or_a_hip_sdk_release_is_native_windows(tmp_path: Path) -> None:
    """YellowRoseCx/koboldcpp-rocm#116 ("Initializing dynamic library: koboldcpp_hipblas.dll") and LostRuins/
    koboldcpp#655 ("I am using HIP SDK 5.7.1") come from native Windows: HIP's no-device error gets the Windows
    advice, not WSL's. A shared object loaded the same way (derived look-alike) is not Windows."""
    error = "ggml_cuda_init: failed to initialize ROCm: no ROCm-capable device is detected\n"
    for said in ("Initializing dynamic library: koboldcpp_hipblas.dll\n", "I am using HIP SDK 5.7.1\n"):
        host = load_host(_write(tmp_path, said + error))
        assert "windows" in host.context
        assert "Adrenalin" in judged(tmp_path, said + error)["log.hip-error-no-device"][0].detail
    linux = load_host(_write(tmp_path, "Initializing dynamic library: koboldcpp_hipblas.so\n" + error, "so.txt"))
    assert "windows" not in linux.context


def test_vllm_releases_that_detect_rocm_through_amd_smi_fail_under_wsl(tmp_path: Path) -> None:
    """ROCm/legacy-rocm-build#5007: vLLM 0.8.2 under WSL2 does not detect ROCm (its platform check initialises
    amd-smi, which does not work there; AMD), although rocminfo and torch see the GPU: os.wsl fails. A release newer
    than the data's bound (derived look-alike) is not judged: WSL stays information."""
    text = ("1. Windows 10 latest version with WSL2 Ubuntu 22.04\n2. GPU: RX 9070 XT; CPU: Ryzen 7 9700X\n"
            "3. ROCm 6.4.1; PyTorch 2.6.0; vLLM 0.8.2 (using 0.8.2 because vLLM 0.9.1 requires PyTorch 2.7.0)\n")
    wsl = judged(tmp_path, text)["os.wsl"][0]
    assert wsl.severity == Severity.FAIL and "vLLM 0.8.2" in wsl.title
    newer = text.replace("vLLM 0.8.2 (using 0.8.2 because vLLM 0.9.1 requires", "vLLM 0.11.0 (it requires")
    assert judged(tmp_path, newer, "newer.txt")["os.wsl"][0].severity == Severity.INFO


def test_rocm_smis_message_about_a_device_shows_it_enumerated(tmp_path: Path) -> None:
    """ROCm/rocm_smi_lib#190: `rocm-smi --setpoweroverdrive` answering `ERROR: GPU[0]\\t: Unable to set Power
    OverDrive` for two MI100s, above a `rocm-smi` table cut after its header: rocm-smi enumerated both GPUs, so no
    gpu.none-found. An error that names no device (derived look-alike) shows none."""
    head = ("=========== ROCm System Management Interface ===========\n"
            "=============== Set GPU Power OverDrive ================\n")
    said = ("ERROR: GPU[0]\t: Unable to set Power OverDrive\nERROR: GPU[0]\t\t: Value cannot be less than: 290W \n"
            "ERROR: GPU[1]\t: Unable to set Power OverDrive\nERROR: GPU[1]\t\t: Value cannot be less than: 290W \n")
    table = ("=============== Concise Info ===============\n"
             "Device  Node  IDs              Temp    Power  Partitions          SCLK    MCLK     Fan  Perf\n")
    found = judged(tmp_path, head + said + "=========== End of ROCm SMI Log ===========\n" + table)
    assert "gpu.none-found" not in problems(found)
    assert len(load_host(_write(tmp_path, head + said + table, "again.txt")).gpus) == 2
    bare = head + "ERROR: Unable to set Power OverDrive\n=========== End of ROCm SMI Log ===========\n" + table
    assert problems(judged(tmp_path, bare, "bare.txt")).get("gpu.none-found") == "fail"


def test_amdgpus_uncorrectable_hardware_error_line_is_an_uncorrectable_error(tmp_path: Path) -> None:
    """ROCm/legacy-rocm-build#1886: `amdgpu: uncorrectable hardware error(ERREVENT_ATHUB_INTERRUPT) detected!` in an
    MI50's kernel log is a fatal RAS error (health.ecc-uncorrectable fail). The ECC lines around it alone (derived
    look-alike) report nothing lost."""
    log = ("[Sat Jan  7 14:25:56 2023] amdgpu 0000:e3:00.0: amdgpu: MEM ECC is active.\n"
           "[Sat Jan  7 14:25:56 2023] amdgpu 0000:e3:00.0: amdgpu: SRAM ECC is active.\n")
    fatal = ("[Sat Jan  7 14:25:56 2023] amdgpu 0000:e3:00.0: amdgpu: uncorrectable hardware "
             "error(ERREVENT_ATHUB_INTERRUPT) detected!\n")
    assert problems(judged(tmp_path, log + fatal)).get("health.ecc-uncorrectable") == "fail"
    assert "health.ecc-uncorrectable" not in problems(judged(tmp_path, log, "ecc.txt"))


def test_miopens_sqlite_and_kernel_build_failures_are_failures(tmp_path: Path) -> None:
    """AMDResearch/hpcfund#87 (`Internal error while accessing SQLite database: disk I/O error`, the remedy from
    ROCm/tensorflow-upstream#1419) and ROCm/MIOpen#1204 (`Code object build failed`): MIOpen stopped the layer, a
    failure. MIOpen's warning that it cannot read its system database (derived look-alike) is not one."""
    sqlite = ("MIOpen Error: /src/rocm-libraries/projects/miopen/src/sqlite_db.cpp:227: Internal error while accessing "
              "SQLite database: disk I/O error\n\nRuntimeError: miopenStatusInternalError\n")
    build = ("MIOpen Error: /MIOpen/src/hipoc/hipoc_program.cpp:286: Code object build failed. "
             "Source: MIOpenIm2d2Col.cl\n")
    for text in (sqlite, build):
        assert problems(judged(tmp_path, text)).get("log.miopen-error") == "fail"
    warning = ("MIOpen(HIP): Warning [SQLiteBase] Unable to read system database file:/opt/rocm/miopen/share/miopen/"
               "db/gfx900_64.kdb Performance may degrade\n")
    assert _problems_if_read(tmp_path, warning, "warning.txt").get("log.miopen-error") != "fail"


def test_an_ubuntu_lts_named_by_its_codename_is_ubuntu(tmp_path: Path) -> None:
    """ROCm/rocm-install-on-linux#293: "### Operating System", then "24.04.1 LTS (Noble Numbat)", is Ubuntu 24.04.1, so
    ROCm 6.2.0's amdgpu-dkms 6.8.5 failing on Ubuntu's 6.8.0-45 is the known breakage (an Ubuntu-only row). The
    release without its codename (derived look-alike) names no distribution."""
    text = ("### Operating System\n\n24.04.1 LTS (Noble Numbat)\n\n### ROCm Version\n\nROCm 6.2.0\n\n"
            "Setting up amdgpu-dkms (1:6.8.5.60200-2009582.24.04) ...\n"
            "Loading new amdgpu-6.8.5-2009582.24.04 DKMS files...\nBuilding for 6.8.0-45-generic\n"
            "Building initial module for 6.8.0-45-generic\n"
            "Error! Bad return status for module build on kernel: 6.8.0-45-generic (x86_64)\n")
    host = load_host(_write(tmp_path, text))
    assert host.os is not None and host.os.id == "ubuntu" and host.os.pretty_name == "Ubuntu 24.04.1 LTS"
    assert problems(judged(tmp_path, text)).get("driver.dkms-breakage") == "fail"
    bare = text.replace(" (Noble Numbat)", "")
    assert "driver.dkms-breakage" not in problems(judged(tmp_path, bare, "bare.txt"))


def test_a_dkms_package_said_to_fail_against_a_kernel_is_a_build_failure(tmp_path: Path) -> None:
    """ROCm/amdgpu#209: "`amdgpu-dkms_6.16.13.30300000-2278356.24.04_all.deb` fails to rebuild against 6.18.x" names
    the module and the kernel: the known breakage of 6.16.13 on 6.18 (a failed build, fail). The package said to
    build against it (derived look-alike) is no failure."""
    text = ("but the currently released `amdgpu-dkms_6.16.13.30300000-2278356.24.04_all.deb` fails to rebuild "
            "against 6.18.x or 6.19.x.\n$ uname -a\nLinux x 6.18.14-061814-generic #202602262345 SMP "
            "PREEMPT_DYNAMIC Fri Feb 27 02:50:55 UTC 2026 x86_64 x86_64 x86_64 GNU/Linux\n")
    _fires_unless(tmp_path, text, ("driver.dkms-breakage", "fail"), ("fails to rebuild against", "rebuilds against"))


def test_a_profiler_aborting_beside_an_igpu_is_not_hidden_by_hip_visible_devices(tmp_path: Path) -> None:
    """ROCm/rocprofiler-sdk#148: `rocprofv3 --pmc` throws `std::out_of_range: unordered_map::at` on a host with a
    gfx1036 iGPU beside gfx1100s, under HIP_VISIBLE_DEVICES=0: the profiler enumerates the runtime's agents, so the
    iGPU is the cause (fail). ROCR_VISIBLE_DEVICES (derived look-alike) does hide it."""
    text = ("`rocprofv3 --pmc` crashes with `std::out_of_range: unordered_map::at` on systems that have both a "
            "discrete GPU (gfx1100) and an integrated GPU (gfx1036).\n\n```bash\n"
            "HIP_VISIBLE_DEVICES=0 rocprofv3 --pmc SQ_WAVES -- ./test\n```\n")
    found = judged(tmp_path, text)
    assert problems(found).get("gpu.igpu-visible") == "fail"
    assert problems(found).get("log.profiler-gpu-unsupported") == "fail"
    rocr = text.replace("HIP_VISIBLE_DEVICES=0", "ROCR_VISIBLE_DEVICES=0")
    assert "gpu.igpu-visible" not in problems(judged(tmp_path, rocr, "rocr.txt"))


def test_selinux_said_to_keep_the_gpu_away_is_a_device_permission_failure(tmp_path: Path) -> None:
    """BOINC/boinc#6634: BOINC finds the GPU once SELinux is permissive (`setenforce 0`), and BOINC's
    `[coproc] OpenCL library present but no OpenCL-capable devices found`: SELinux keeps the service from /dev/kfd
    (perm.kfd-access fail, log.opencl-no-devices fail). SELinux merely named as enforcing (derived look-alike) says
    nothing about the GPU."""
    text = ("[coproc] OpenCL library present but no OpenCL-capable devices found\n\n"
            "If I temporarily set SELinux to permissive (`sudo setenforce 0`), BOINC immediately detects the GPU and "
            "lists it in `/var/lib/boinc/coproc_info.xml`.\n")
    found = problems(judged(tmp_path, text))
    assert found.get("perm.kfd-access") == "fail" and found.get("log.opencl-no-devices") == "fail"
    other = text.replace("If I temporarily set SELinux to permissive (`sudo setenforce 0`), BOINC immediately detects "
                         "the GPU and", "SELinux is enforcing on this host. BOINC")
    assert "perm.kfd-access" not in problems(judged(tmp_path, other, "other.txt"))


def test_clinfos_short_form_of_an_empty_rocm_platform(tmp_path: Path) -> None:
    """FoldingAtHome/containers#36: "Platform Name: AMD Accelerated Parallel Processing" then "Number of devices: 0" is
    ROCm's OpenCL platform with no GPU. One device (derived look-alike) is a working platform."""
    text = "Platform Name: AMD Accelerated Parallel Processing\nNumber of devices: 0\n"
    _fires_unless(tmp_path, text + "GPU: AMD Radeon 780M\n", ("log.opencl-no-devices", "fail"),
                  ("Number of devices: 0", "Number of devices: 1"))


def test_a_gpu_family_or_a_pci_name_pair_is_not_another_gpu(tmp_path: Path) -> None:
    """FoldingAtHome/containers#36: "RX 7000 series" names a family, and "Phoenix/Hawk Point [Radeon 760M/780M]" one
    board: the host has one GPU, the Radeon 780M. "RX 7900 XTX" (derived look-alike) is a GPU."""
    text = ("- GPU: AMD Radeon 780M (Phoenix/Hawk Point APU)\n"
            "gpu:198:0 Phoenix/Hawk Point [Radeon 760M/780M]. Disabling.\n"
            "These newer cards (780M/760M APUs, RX 7000 series) need at least ROCm 5.7\n")
    assert [g.name for g in load_host(_write(tmp_path, text)).gpus] == ["AMD Radeon 780M"]
    other = text.replace("RX 7000 series", "RX 7900 XTX")
    assert len(load_host(_write(tmp_path, other, "other.txt")).gpus) == 2


def test_only_mesas_opencl_means_rocms_is_not_installed(tmp_path: Path) -> None:
    """FoldingAtHome/fah-client-bastet#425: the only OpenCL platform is Mesa's ("Platform: rusticl (Mesa/X.org)"), so
    programs built for ROCm's OpenCL find no GPU (rocm.not-installed warn). ROCm's platform listed too (derived
    look-alike) is no finding."""
    text = "- GPU: AMD Radeon 890M Graphics (Strix Point, gfx1150, RDNA 3.5)\n- Platform: rusticl (Mesa/X.org)\n"
    assert problems(judged(tmp_path, text)).get("rocm.not-installed") == "warn"
    both = text + "- Platform: AMD Accelerated Parallel Processing\n"
    assert "rocm.not-installed" not in problems(judged(tmp_path, both, "both.txt"))


def test_a_cuda_torch_under_zluda_is_the_setup_not_a_mistake(tmp_path: Path) -> None:
    """patientx/ComfyUI-Zluda#29: "pytorch version: 2.3.0+cu118" beside "ZLUDA detected" and "Device: cuda:0 AMD Radeon
    RX 7800 XT [ZLUDA] : native" runs on the AMD GPU through ZLUDA: information, not torch.not-rocm-build. The same
    torch without ZLUDA's lines (derived look-alike) cannot use the GPU."""
    text = ("pytorch version: 2.3.0+cu118\n  ::  ZLUDA detected, disabling non-supported functions.\n"
            "  ::  Device: cuda:0 AMD Radeon RX 7800 XT [ZLUDA] : native\n")
    found = judged(tmp_path, text)
    assert found["torch.not-rocm-build"][0].severity == Severity.INFO
    bare = "pytorch version: 2.3.0+cu118\nGPU: AMD Radeon RX 7800 XT\n"
    assert problems(judged(tmp_path, bare, "bare.txt")).get("torch.not-rocm-build") == "fail"


def test_a_distribution_and_a_release_written_together_are_read(tmp_path: Path) -> None:
    """ROCm/ROCm#5861: "I clean install an ubuntu24.04 and install rocm7.1.1" names Ubuntu 24.04 and ROCm 7.1.1 (a
    supported pair). A package revision such as "1ubuntu24.04" and a path's "rocm7.1.1/" (derived look-alikes) name
    neither."""
    text = "I clean install an ubuntu24.04 and install rocm7.1.1. I use mblas-bench to do a benchmark.\n"
    host = load_host(_write(tmp_path, text))
    assert host.os is not None and (host.os.id, host.os.version_id) == ("ubuntu", "24.04")
    assert [r.version for r in host.rocm_installs] == ["7.1.1"]
    assert problems(judged(tmp_path, text)) == {}
    other = "libfoo 2.0-1ubuntu24.04 from /opt/rocm7.1.1/lib\n"
    read = _host_if_read(tmp_path, other, "other.txt")
    assert read is None or ((read.os is None or read.os.id is None) and not read.rocm_installs)


def test_a_full_width_colon_reads_like_an_ascii_one(tmp_path: Path) -> None:
    """ROCm/rocBLAS#1380: a CJK input method's "ROCm： 5.7.1" (U+FF1A) beside "Ubuntu 22.04.3 LTS" names ROCm 5.7.1,
    a supported pair: a healthy report, not an unreadable one. The version left out (derived look-alike) names no
    ROCm release."""
    text = "Ubuntu 22.04.3 LTS\nROCm\uff1a 5.7.1\nrocBLAS\uff1a https://github.com/ROCm/rocBLAS.git branch develop\n"
    host = load_host(_write(tmp_path, text))
    assert [r.version for r in host.rocm_installs] == ["5.7.1"]
    assert problems(judged(tmp_path, text)) == {}
    other = text.replace("ROCm\uff1a 5.7.1", "ROCm\uff1a latest")
    read = _host_if_read(tmp_path, other, "other.txt")
    assert read is None or not read.rocm_installs


def test_a_sentence_opening_on_a_gfx_names_the_reporters_gpu(tmp_path: Path) -> None:
    """ROCm/rocm-libraries#10861: "On gfx1201, I am getting unusually poor performance" names the reporter's GPU.
    "It also runs on gfx1100, I think" and "Built on gfx90a. It" (derived look-alikes) name no GPU of theirs."""
    text = "On gfx1201, I am getting unusually poor performance for float32 calculations.\n"
    assert [g.gfx for g in load_host(_write(tmp_path, text)).gpus] == ["gfx1201"]
    for n, other in enumerate(("The kernel also runs on gfx1100, I think.\n", "Built on gfx90a. It is slow.\n")):
        read = _host_if_read(tmp_path, other, f"other{n}.txt")
        assert read is None or not read.gpus


def test_nixos_rocm_override_option_is_the_services_override(tmp_path: Path) -> None:
    """NixOS/nixos-hardware#1240 (ollama on a Framework 16): 'services.ollama.rocmOverrideGfx = "11.0.2";' sets
    HSA_OVERRIDE_GFX_VERSION in the ollama service's environment (nixpkgs' nixos/modules/services/misc/ollama.nix),
    not the shell's. The option left unset (derived look-alike, "= null;") sets nothing."""
    text = 'services.ollama.acceleration = "rocm";\nservices.ollama.rocmOverrideGfx = "11.0.2";\nGPU: RX 7700S\n'
    fact = load_host(_write(tmp_path, text)).context.get("override-service")
    assert fact is not None and fact.value == "11.0.2"
    other = text.replace('"11.0.2"', "null")
    assert load_host(_write(tmp_path, other, "other.txt")).context.get("override-service") is None


def test_a_binarys_bundled_code_objects_are_not_gpus_and_a_package_file_names_its_release(tmp_path: Path) -> None:
    """ROCm/rocRAND#177: HIP's "Bundled Code Objects:" list ("hipv4-amdgcn-amd-amdhsa--gfx900:xnack- - [code object v4
    is amdgcn-amd-amdhsa--gfx900:xnack-]") names the binary's targets, not GPUs: the host has one, the gfx803 under
    "Devices:". "rocrand4.2.0_2.10.9.40200-21_amd64.deb" is ROCm 4.2.0, older than the data: gfx803 is not called
    unsupported. Another package's file (derived look-alike) names no ROCm release."""
    text = ("**rocrand4.2.0_2.10.9.40200-21_amd64.deb**\n"
            ":1:hip_code_object.cpp      :456 : 15814696557 us: hipErrorNoBinaryForGpu: Unable to find code object "
            "for all current devices!\n"
            ":1:hip_code_object.cpp      :458 : 15814696572 us:   Devices:\n"
            ":1:hip_code_object.cpp      :460 : 15814696575 us:     amdgcn-amd-amdhsa--gfx803 - [Not Found]\n"
            ":1:hip_code_object.cpp      :465 : 15814696578 us:   Bundled Code Objects:\n"
            ":1:hip_code_object.cpp      :479 : 15814696585 us:     hipv4-amdgcn-amd-amdhsa--gfx900:xnack- - [code "
            "object v4 is amdgcn-amd-amdhsa--gfx900:xnack-]\n")
    host = load_host(_write(tmp_path, text))
    assert [g.gfx for g in host.gpus] == ["gfx803"]
    assert [r.version for r in host.rocm_installs] == ["4.2.0"]
    assert problems(judged(tmp_path, text)) == {"log.no-binary-for-gpu": "fail"}
    other = text.replace("rocrand4.2.0_2.10.9.40200-21", "libfoo_2.10.9.40200-21")
    assert not load_host(_write(tmp_path, other, "other.txt")).rocm_installs


def test_a_host_rocblas_bound_in_by_apptainer_is_not_a_missing_gpu_target(tmp_path: Path) -> None:
    """apptainer/apptainer#1621: "rocBLAS error: Cannot read /.singularity.d/libs/rocblas/library/TensileLibrary.dat:
    Illegal seek" is the host's rocBLAS that `--rocm` bound in without its data (log.rocblas-library-missing), not a
    GPU the libraries lack. The same line under /opt/rocm (derived look-alike) is the missing-target reading."""
    text = "rocBLAS error: Cannot read /.singularity.d/libs/rocblas/library/TensileLibrary.dat: Illegal seek\n"
    assert problems(judged(tmp_path, text)) == {"log.rocblas-library-missing": "fail"}
    other = text.replace("/.singularity.d/libs/", "/opt/rocm/lib/")
    assert problems(judged(tmp_path, other, "other.txt")).get("log.no-binary-for-gpu") == "fail"
    assert "log.rocblas-library-missing" not in problems(judged(tmp_path, other, "other2.txt"))


def test_an_output_line_wrapped_in_a_code_span_is_read_like_the_bare_line(tmp_path: Path) -> None:
    """ROCm/rccl#1562: "`amdgpu, 6.8.5-2038383.20.04, 5.15.0-1078-azure, x86_64: installed`" under "> 1. dkms status"
    is dkms status's own line: the module is built for that kernel (alone and in a bundle's logs/). The same words
    inside a sentence (derived look-alike) are prose, not dkms output."""
    text = "> 1. dkms status\n\n`amdgpu, 6.8.5-2038383.20.04, 5.15.0-1078-azure, x86_64: installed`\n"
    for target in (_write(tmp_path, text), tmp_path / "bundle"):
        if target.name == "bundle":
            (target / "logs").mkdir(parents=True)
            (target / "logs" / "paste.txt").write_text(text)
        dkms = load_host(target).dkms
        assert dkms is not None
        assert [(e.module, e.version, e.kernel, e.status) for e in dkms.entries] == [
            ("amdgpu", "6.8.5-2038383.20.04", "5.15.0-1078-azure", "installed")]
    other = "It said `amdgpu, 6.8.5-2038383.20.04, 5.15.0-1078-azure, x86_64: installed` here.\n"
    read = _host_if_read(tmp_path, other, "other.txt")
    assert read is None or read.dkms is None or not read.dkms.entries


def test_a_compose_files_environment_is_the_containers_own(tmp_path: Path) -> None:
    """ollama/ollama#5426: a 780M under `ollama/ollama:rocm` with "environment:" then
    "- HSA_OVERRIDE_GFX_VERSION=11.0.0" in its docker-compose.yaml runs with the override: no "needs the override"
    failure. The override named in prose (derived look-alike) is the fix being discussed, not the container's
    environment."""
    compose = ("I have Minisforum UM790 Pro with AMD Ryzen 9 7940HS w/ Radeon 780M Graphics\n"
               "services:\n  ollama:\n    image: ollama/ollama:rocm\n    devices:\n      - \"/dev/kfd\"\n"
               "      - \"/dev/dri\"\n    environment:\n      - HSA_OVERRIDE_GFX_VERSION=11.0.0\n")
    host = load_host(_write(tmp_path, compose))
    assert host.env.get("HSA_OVERRIDE_GFX_VERSION") == "11.0.0"
    assert problems(judged(tmp_path, compose)).get("gpu.override-needed") != "fail"
    shell = ("I have Minisforum UM790 Pro with AMD Ryzen 9 7940HS w/ Radeon 780M Graphics\n"
             "It should be enough to set HSA_OVERRIDE_GFX_VERSION=11.0.0 for ollama.\n")
    assert "HSA_OVERRIDE_GFX_VERSION" not in load_host(_write(tmp_path, shell, "shell.txt")).env
    assert problems(judged(tmp_path, shell, "shell2.txt")).get("gpu.override-needed") == "fail"


def test_an_easybuild_test_reports_host_line_and_version_suffix_are_read(tmp_path: Path) -> None:
    """easybuilders/easybuild-easyconfigs#25637 (LUMI): the test report's host line "..., 1 x AMD AMD INSTINCT MI200
    (MCM) OAM LC MBA HPE C2 (model: 0x7408, driver: 6.10.5), ..." names the GPU by its PCI id (MI250X, gfx90a) and
    the install path's EasyBuild suffix "-ROCm-6.4.1" the ROCm it runs on: a healthy, judged report. An NVIDIA board
    on the same line and an easyconfig's file name (derived look-alikes) name neither."""
    text = ("nid005107 - Linux SLES 15.6, x86_64, AMD EPYC 7A53 64-Core Processor (zen3), 1 x AMD AMD INSTINCT MI200 "
            "(MCM) OAM LC MBA HPE C2 (model: 0x7408, driver: 6.10.5), Python 3.13.4\n"
            "Data prefix:  /users/j/eessi/software/GROMACS/2025.1-rocm-compilers-19.0.0-ROCm-6.4.1\n")
    host = load_host(_write(tmp_path, text))
    assert [g.pci_device_id for g in host.gpus] == ["0x7408"]
    assert [r.version for r in host.rocm_installs] == ["6.4.1"]
    found = judged(tmp_path, text)
    assert problems(found) == {}
    verdict = found["gpu.arch-unsupported"][0]
    assert "gfx90a" in verdict.title and verdict.severity == Severity.OK
    other = text.replace("1 x AMD AMD INSTINCT MI200 (MCM) OAM LC MBA HPE C2", "1 x NVIDIA A100").replace(
        "2025.1-rocm-compilers-19.0.0-ROCm-6.4.1", "GROMACS-2025.1-foss-2023b-ROCm-6.4.1.eb")
    host = load_host(_write(tmp_path, other, "other.txt"))
    assert not host.gpus and not host.rocm_installs


def test_a_board_the_report_means_to_buy_is_not_a_gpu_of_the_host(tmp_path: Path) -> None:
    """ROCm/legacy-rocm-build#1786: on an RX 6500 XT, "This makes me thinking of buying a bunch of rx6600 ( Non XT )s"
    names a board to buy, not a second GPU. "running it on my rx6600 too" (derived look-alike) is the host's."""
    text = ("GPU: RX 6500 XT\n"
            "This makes me thinking of buying a bunch of rx6600 ( Non XT )s for machine learning farm?\n")
    assert [g.name for g in load_host(_write(tmp_path, text)).gpus] == ["RX 6500 XT"]
    other = text.replace("buying a bunch of rx6600", "running it on my rx6600 too")
    assert len(load_host(_write(tmp_path, other, "other.txt")).gpus) == 2


def test_a_board_of_another_working_setup_the_report_compares_with_is_not_the_hosts_gpu(tmp_path: Path) -> None:
    """ollama/ollama#8851: beside a memory access fault, "The same setup works fine with my RX 550 because it is too
    old for rocm, so it defaults to CPU" names the card of another, working setup (the GPU that faults, a Navi 22, is
    not in the paste): no GPU verdict on it. Other comparisons (derived): "on my other machine with an RX 550 it
    works", "It worked with my old RX 550", "my previous card, an RX 550". The same words naming this host's board
    ("I have an RX 550 and rocm fails", "GPU: RX 550") still read it, and gpu.arch-unsupported fails on it."""
    said = "The same setup works fine with my RX 550 because it is too old for rocm, so it defaults to CPU."
    text = ("ollama  | Memory access fault by GPU node-1 (Agent handle: 0x559ee9967590) on address 0x7fe05f439000. "
            "Reason: Page not present or supervisor privilege.\n\n" + said + " Such is my assumption anyways\n\n"
            "    image: ollama/ollama:rocm\n    environment:\n      HSA_OVERRIDE_GFX_VERSION: 11.0.0\n")
    assert not load_host(_write(tmp_path, text)).gpus
    assert problems(judged(tmp_path, text)) == {"log.gpu-memory-access-fault": "fail"}
    for n, other in enumerate(("On my other machine with an RX 550 it works.", "It worked with my old RX 550.",
                               "My previous card, an RX 550, ran it on the GPU.")):
        assert not load_host(_write(tmp_path, text.replace(said, other), f"other{n}.txt")).gpus
    for n, own in enumerate(("I have an RX 550 and rocm fails.", "GPU: RX 550")):
        mine = text.replace(said, own)
        assert [g.name for g in load_host(_write(tmp_path, mine, f"own{n}.txt")).gpus] == ["RX 550"]
        assert problems(judged(tmp_path, mine, f"own{n}.txt")) == {"gpu.arch-unsupported": "fail",
                                                                    "log.gpu-memory-access-fault": "fail"}
    # beside the host's own board, the compared one is not a second GPU
    both = "GPU: RX 6700 XT\nOn my other machine with an RX 550 it works.\n"
    assert [g.name for g in load_host(_write(tmp_path, both, "both.txt")).gpus] == ["RX 6700 XT"]


def test_amdgpus_note_on_pcie_atomics_is_not_an_error_and_kfds_rejection_is(tmp_path: Path) -> None:
    """ROCm/legacy-rocm-build#157: "[    2.759942] amdgpu 0000:05:00.0: amdgpu: PCIE atomic ops is not supported" on a
    Fedora host whose ROCm OpenCL works is the link's capability, not a driver error (kfd did not skip the GPU).
    kfd's own "[    2.694307] kfd kfd: amdgpu: skipped device 1002:7340, PCI rejects atomics" (a real line from another
    report, xuhuisheng/rocm-build#18, appended: derived look-alike) is the failure."""
    text = ("[espionage724@Oak ~]$ dmesg | grep atomic\n"
            "[    0.850468] atomic64_test: passed for x86-64 platform with CX8 and with SSE\n"
            "[    2.759942] amdgpu 0000:05:00.0: amdgpu: PCIE atomic ops is not supported\n")
    other = text + "[    2.694307] kfd kfd: amdgpu: skipped device 1002:7340, PCI rejects atomics\n"
    _fires_only_in(tmp_path, text, "driver.dmesg-errors", other, ("driver.pcie-atomics", "fail"))


def test_a_tensile_kernel_rocprof_saw_dispatched_names_the_gpu_and_a_rocm_version_is_read(tmp_path: Path) -> None:
    """ROCm/legacy-rocm-build#3122: "ROCM version is 5.6" names the release, and rocprof's 'dispatch[0], gpu-id(2),
    ..., kernel-name("Cijk_..._ISA90a_...")' a kernel that ran on a gfx90a: a judged, healthy report. The kernel name
    alone, outside a dispatch record, and "The HIP version is 5.6" (derived look-alikes) name neither."""
    kernel = ('kernel-name("Cijk_Ailk_Bjlk_SB_MT64x32x32_MI16x16x4x1_SE_1LDSB0_APM1_GLS0_ISA90a_IU1_K1_KLA_LBSPP0_'
              'WG32_8_1_WGM1.kd"), time(15277600032233532,15277600042830898,15277600043827538,15277600043857508)')
    text = ("I did some tests to understand the metrics meanings. ROCM version is 5.6\n"
            "> dispatch[0], gpu-id(2), queue-id(1), queue-index(0), pid(270193), tid(270193), grd(131072), wgr(256), "
            + kernel + "\n>   VALUBusy (13.5734378537)\n")
    host = load_host(_write(tmp_path, text))
    assert [g.gfx for g in host.gpus] == ["gfx90a"] and [r.version for r in host.rocm_installs] == ["5.6"]
    assert problems(judged(tmp_path, text)) == {}
    other = "The HIP version is 5.6\n" + kernel + "\n"
    read = _host_if_read(tmp_path, other, "other.txt")
    assert read is None or (not read.gpus and not read.rocm_installs)


def test_a_rocminfo_paste_cut_inside_its_cpu_agent_proves_no_missing_gpu(tmp_path: Path) -> None:
    """ROCm/amdsmi#75: a working WSL host's rocminfo, pasted up to its first agent (the CPU) and cut there, lists no
    GPU because the paste stops, not because there is none: no gpu.none-found. The same listing ended by rocminfo's
    own "*** Done ***" (derived look-alike) is a full enumeration without a GPU."""
    text = ("WSL environment detected.\n=====================\nHSA System Attributes\n=====================\n"
            "Runtime Version:         1.1\n==========\nHSA Agents\n==========\n*******\nAgent 1\n*******\n"
            "  Name:                    AMD Ryzen 9 7900X 12-Core Processor\n"
            "  Marketing Name:          AMD Ryzen 9 7900X 12-Core Processor\n"
            "  Vendor Name:             CPU\n  Feature:                 None specified\n")
    whole = text + "  Device Type:             CPU\n*** Done ***\n"
    _fires_only_in(tmp_path, text, "gpu.none-found", whole, ("gpu.none-found", "fail"))


def test_an_override_named_for_a_run_that_ollama_ps_shows_on_the_gpu_worked(tmp_path: Path) -> None:
    """ollama/ollama#6282: "Just tested this on my FW13 (16 × AMD Ryzen 7 7840U w/ Radeon  780M Graphics) ... using
    `HSA_OVERRIDE_GFX_VERSION=11.0.1`" (the CPU name's double space kept) and `ollama ps` listing the model at
    "100% GPU": the override worked on the only GPU, so neither "needs 11.0.0" nor "11.0.1 is known to fail" holds.
    The same report with ollama's rocBLAS line for gfx1103 (fixtures/field-ollama-bundled-rocblas-lacks-gfx1103,
    appended: derived look-alike) is a run that failed: the override the table asks for is the fix."""
    text = ("Just tested this on my FW13 (16 × AMD Ryzen 7 7840U w/ Radeon  780M Graphics) with 64GB of RAM using "
            "`HSA_OVERRIDE_GFX_VERSION=11.0.1` and `HCC_AMDGPU_TARGET=gfx1103`.\n\n```\n❯ ollama ps\n"
            "NAME                       ID              SIZE     PROCESSOR    UNTIL\n"
            "mistral-small3.1:latest    b9aaf0c2586a    26 GB    100% GPU     4 minutes from now\n```\n")
    host = load_host(_write(tmp_path, text))
    assert [g.name for g in host.gpus] == ["Radeon 780M"] and "gpu-run-ok" in host.context
    assert problems(judged(tmp_path, text)) == {}
    failed = text + ("rocBLAS error: Cannot read /usr/local/lib/ollama/rocm/rocblas/library/TensileLibrary.dat: "
                     "Illegal seek for GPU arch : gfx1103\n")
    assert problems(judged(tmp_path, failed, "failed.txt")).get("gpu.override-needed") == "fail"
    split = text.replace("100% GPU", "48%/52% CPU/GPU")
    assert "gpu-run-ok" not in load_host(_write(tmp_path, split, "split.txt")).context


def test_the_linker_caches_hip_runtime_is_an_installed_rocm_of_unknown_release(tmp_path: Path) -> None:
    """warpfront/hipfire#64: `ldconfig -p | grep libamdhip64` printing "libamdhip64.so.6 (libc6,x86-64) =>
    /lib64/libamdhip64.so.6" (Fedora's rocm-hip package) is an installed HIP runtime, its release not named: the
    paste is read (not refused) and no ROCm is reported missing. The library named in prose without the cache's
    arrow (derived look-alike) is no installation."""
    text = ("```bash\nldconfig -p | grep libamdhip64\n"
            "        libamdhip64.so.6 (libc6,x86-64) => /lib64/libamdhip64.so.6\n```\n")
    host = load_host(_write(tmp_path, text))
    assert [(r.path, r.version) for r in host.rocm_installs] == [("/lib64", None)]
    found = judged(tmp_path, text)
    assert problems(found) == {} and found["rocm.not-installed"][0].severity == Severity.OK
    other = _host_if_read(tmp_path, "it doesn't detect: libamdhip64.so.6 (stable ABI variant)\n", "other.txt")
    assert other is None or not other.rocm_installs


def test_an_upgrade_told_in_prose_names_the_release_it_went_to(tmp_path: Path) -> None:
    """JuliaGPU/AMDGPU.jl#841: "After updating from ROCm 6.4 to 7.0, `using AMDGPU` tries to load libxml2.so.2" is a
    host on ROCm 7.0 now, not 6.4. The sentence without its upgrade ("I am using ROCm 6.4, ...", derived look-alike)
    names 6.4."""
    text = ("After updating from ROCm 6.4 to 7.0, `using AMDGPU` tries to load libxml2.so.2, whereas libxml2.so.16 is "
            "the one installed.\n")
    assert [r.version for r in load_host(_write(tmp_path, text)).rocm_installs] == ["7.0"]
    other = text.replace("After updating from ROCm 6.4 to 7.0", "I am using ROCm 6.4")
    assert [r.version for r in load_host(_write(tmp_path, other, "other.txt")).rocm_installs] == ["6.4"]


def test_a_program_the_report_always_started_with_an_override_needs_it_when_no_gpu_is_named(tmp_path: Path) -> None:
    """mcmonkeyprojects/SwarmUI#592: "I always had to start python main.py with HSA_OVERRIDE_GFX_VERSION=10.3.0" and
    SwarmUI's ComfyUI backend failing with "HIP error: invalid device function": the GPU, never named, needs 10.3.0
    (a fail, with the error under it). "I never had to start ..." (derived look-alike) says no such thing."""
    text = ("I used to use comfyui directly and I always had to start python main.py with "
            "HSA_OVERRIDE_GFX_VERSION=10.3.0 - now I wanted to try SwarmUI, but unfortunately I get the error:\n"
            "ComfyUI execution error: HIP error: invalid device function\n")
    found = judged(tmp_path, text)
    assert problems(found).get("gpu.override-needed") == "fail"
    assert "10.3.0" in found["gpu.override-needed"][0].title
    assert found["gpu.override-needed"][0].fix.commands == ["export HSA_OVERRIDE_GFX_VERSION=10.3.0"]
    other = text.replace("I always had to", "I never had to")
    assert "gpu.override-needed" not in problems(judged(tmp_path, other, "other.txt"))


def test_apts_resolver_trace_with_the_distributions_rocm_installed_is_two_rocm_sources(tmp_path: Path) -> None:
    """ROCm/rocm-install-on-linux#583: "Broken rocm:amd64 Depends on rocminfo:amd64 < 5.7.1-3build1 @ii mK > (=
    1.0.0.70001-42~24.04)": the distribution's rocminfo is installed and AMD's ROCm 7.0.1 needs its own. The same
    trace line for a sibling not installed yet ("< none | 0.14.0.70001-42~24.04 @un uH >", the next line of that
    paste) is no clash."""
    text = ("Broken rocm:amd64 Depends on rocminfo:amd64 < 5.7.1-3build1 @ii mK > (= 1.0.0.70001-42~24.04)\n"
            "  Considering rocminfo:amd64 1 as a solution to rocm:amd64 9999\n")
    found = problems(judged(tmp_path, text))
    # a fail: the installed old release broke AMD's install (test_an_installed_distribution_rocm_package_...)
    assert found == {"rocm.multiple-versions": "fail", "log.package-install-failed": "fail"}
    other = ("Broken rocm:amd64 Depends on rocm-cmake:amd64 < none | 0.14.0.70001-42~24.04 @un uH > "
             "(= 0.14.0.70001-42~24.04)\n")
    assert "rocm.multiple-versions" not in _problems_if_read(tmp_path, other, "other.txt")


def test_no_kfd_folder_in_dev_and_a_kernel_in_parentheses_are_read(tmp_path: Path) -> None:
    """ROCm/ROCm#753: "a clean Ubuntu 18.04 installation (kernel 4.18)" names the running kernel, and "there is no kfd
    folder in /dev" a host without /dev/kfd. "there is no kfd folder in /dev inside the container" (derived look-alike)
    is a container's, not the host's."""
    text = ("I have a clean Ubuntu 18.04 installation (kernel 4.18), and I am trying to install ROCm, version 2.2.\n"
            "`dmesg | grep kfd` produces no output at all. I also see that there is no kfd folder in /dev.\n")
    host = load_host(_write(tmp_path, text))
    assert host.kernel.release == "4.18" and "kfd-absent" in host.context
    other = text.replace("in /dev.", "in /dev inside the container.")
    assert "kfd-absent" not in load_host(_write(tmp_path, other, "other.txt")).context


def test_rocm_2_2s_readme_kernels_judge_the_kernel_and_no_gpu_list_is_invented(tmp_path: Path) -> None:
    """ROCm/ROCm#753: Ubuntu 18.04 with kernel 4.18 under ROCm 2.2, whose README lists kernels 4.13-4.15 (the
    reporter: "supported kernels are 4.13 - 4.15, so I downgraded to 4.15. Now it works"): kernel.not-validated
    warns; with 4.15 (derived look-alike) it does not. The 2.x entries hold no GPU list, so a Vega 64 under ROCm
    3.5.1, between them and the first GPU list, is not called unsupported."""
    text = ("I have a clean Ubuntu 18.04 installation (kernel 4.18), and I am trying to install ROCm, version 2.2. "
            "My GPU is a Radeon VII.\n>hsa api call failure at line 900, file: /data/jenkins_workspace/"
            "compute-rocm-rel-2.2/rocminfo/rocminfo.cc. Call returned 4104\n")
    assert problems(judged(tmp_path, text)).get("kernel.not-validated") == "warn"
    other = text.replace("(kernel 4.18)", "(kernel 4.15)")
    assert "kernel.not-validated" not in problems(judged(tmp_path, other, "other.txt"))
    vega = "I am using ROCm 3.5.1 on Ubuntu 18.04 with a Radeon RX Vega 64.\n"
    assert "gpu.arch-unsupported" not in problems(judged(tmp_path, vega, "vega.txt"))


def test_an_upgrade_to_a_release_and_a_default_kernel_in_parentheses_are_read(tmp_path: Path) -> None:
    """ROCm/ROCm#731: "My system is running Ubuntu 18.04 with default kernel (4.18), previously it ran fine on ROCm
    2.1. Today I upgraded to ROCm 2.2 through apt": ROCm 2.2 on kernel 4.18, which its README does not list. Without
    the upgrade sentence (derived look-alike) no release is named, and nothing is judged against one."""
    text = ("My system is running Ubuntu 18.04 with default kernel (4.18), previously it ran fine on ROCm 2.1. Today I "
            "upgraded to ROCm 2.2 through apt and ROCK-dkms fails to build:\n")
    host = load_host(_write(tmp_path, text))
    assert host.kernel.release == "4.18" and [r.version for r in host.rocm_installs] == ["2.2"]
    assert problems(judged(tmp_path, text)).get("kernel.not-validated") == "warn"
    other = text.replace(" Today I upgraded to ROCm 2.2 through apt and", "")
    assert "kernel.not-validated" not in _problems_if_read(tmp_path, other, "other.txt")


def test_rock_dkms_1_9_on_kernel_4_17_is_a_known_breakage_with_no_invented_fixed_release(tmp_path: Path) -> None:
    """ROCm/ROCm#546: rock-dkms 1.9-211 failing on 4.17.0-041700-generic is the known breakage of ROCm 1.9's driver on
    kernels 4.17 and newer (AMD in ROCm/ROCm#624: lower than 4.17), and no "first release that builds there" is
    offered (the data's amdgpu-dkms bases start at ROCm 5.7). The same failure on 4.16 (derived look-alike) is a
    failed build, not that breakage."""
    text = ("Setting up rock-dkms (1.9-211) ...\nLoading new amdgpu-1.9-211 DKMS files...\n"
            "Building for 4.17.0-041700-generic\n"
            "Error! Bad return status for module build on kernel: 4.17.0-041700-generic (x86_64)\n"
            "Consult /var/lib/dkms/amdgpu/1.9-211/build/make.log for more information.\n"
            "root@test123:/home/frolo# uname -r\n4.17.0-041700-generic\n")
    found = judged(tmp_path, text)
    assert problems(found).get("driver.dkms-breakage") == "fail"
    broke = found["driver.dkms-breakage"][0]
    assert broke.title.startswith("rock-dkms 1.9-211") and broke.fix.commands == ["rocmdoctor matrix show"]
    other = text.replace("4.17.0-041700", "4.16.0-041600")
    assert "driver.dkms-breakage" not in problems(judged(tmp_path, other, "other.txt"))


def test_dpp_broadcasts_refused_for_an_rdna_target_is_code_older_than_the_gpu(tmp_path: Path) -> None:
    """ROCm/rocm-examples#45: "error: Illegal instruction detected: Invalid dpp_ctrl value: broadcasts are not supported
    on GFX10+" then "1 error generated when compiling for gfx1102": the image's hipCUB predates RDNA. Another LLVM
    DPP complaint (derived look-alike: "Invalid dpp_ctrl value: row_share is not supported") is not this."""
    text = ("error: Illegal instruction detected: Invalid dpp_ctrl value: broadcasts are not supported on GFX10+\n"
            "1 error generated when compiling for gfx1102.\n")
    assert problems(judged(tmp_path, text)) == {"log.unsupported-gpu-target": "fail"}
    other = text.replace("broadcasts are not supported on GFX10+", "row_share is not supported")
    assert "log.unsupported-gpu-target" not in _problems_if_read(tmp_path, other, "other.txt")


def test_a_gpu_the_runtime_lists_with_nothing_failing_gets_the_override_as_a_prediction(tmp_path: Path) -> None:
    """ROCm/ROCm-docker#149: rocminfo's gfx1102 (an RX 7600 XT) in AMD's rocm/pytorch:latest under ROCm 6.3.0, the
    report asking only why torch.version.cuda is None: nothing failed and no torch is named, so the table's "needs
    HSA_OVERRIDE_GFX_VERSION=11.0.0" is a prediction the host's own runtime does not bear out: information (it was a
    warning until the healthy fixture's expectation was taught), never a failure. With HIP's missing-code line
    appended (derived look-alike) the run failed and it is the fix."""
    fixture = Path(__file__).resolve().parent.parent / "fixtures" / (
        "field-healthy-rocm-pytorch-latest-rx7600xt-gfx1102-torch-version-cuda-none")
    text = (fixture / "paste.txt").read_text(encoding="utf-8")
    found = judged(tmp_path, text)
    assert [f.severity for f in found["gpu.override-needed"]] == [Severity.INFO]
    failed = text + '"hipErrorNoBinaryForGpu: Unable to find code object for all current devices!"\n'
    assert problems(judged(tmp_path, failed, "failed.txt")).get("gpu.override-needed") == "fail"


def test_rocblas_missing_its_tensile_library_told_in_prose_is_read(tmp_path: Path) -> None:
    """ROCm/rocBLAS#1286: "When I tried to run rocblas-test, I got an error, that the **TensileLibrary.dat file could
    not be found**" (fixed by ROCBLAS_TENSILE_LIBPATH) is rocBLAS without its kernel library. "the TensileLibrary.dat
    file was found" (derived look-alike) is not."""
    text = ("When I tried to run rocblas-test, I got an error, that the **TensileLibrary.dat file could not be "
            "found**. It doesn't exist/isn't included in the RHEL installation.\n")
    assert problems(judged(tmp_path, text)) == {"log.rocblas-library-missing": "fail"}
    other = text.replace("could not be found", "was found")
    assert "log.rocblas-library-missing" not in _problems_if_read(tmp_path, other, "other.txt")


def test_a_rocm_library_test_binary_passing_its_tests_is_a_run_on_the_gpu(tmp_path: Path) -> None:
    """ROCm/rocm-libraries#485: gtest's "[  PASSED  ] 38680 tests." then "command line: ./build/release/clients/
    staging/hipblaslt-test" is hipBLASLt's GPU test suite passing: a judged, healthy report (not refused as unreadable).
    The same summary from a program that is not a ROCm library's test binary (derived look-alike: "./my-app-test")
    proves nothing about a GPU."""
    text = ("[==========] 38680 tests from 11 test suites ran. (289742 ms total)\n[  PASSED  ] 38680 tests.\n"
            "hipBLASLt version: 100100\nhipBLASLt git version:\n"
            "command line: ./build/release/clients/staging/hipblaslt-test\n")
    _ran_on_the_gpu(tmp_path, text, text.replace("hipblaslt-test", "my-app-test"))


def test_strix_halo_named_in_prose_is_the_gfx1151_apu(tmp_path: Path) -> None:
    """lhl/strix-halo-testing#33: "I've just got my Strix Halo device" above a llama-bench table: the PCI ID
    Repository's codename for the Radeon 8050S/8060S APU (0x1586), so the report names a gfx1151 and is judged, not
    refused as unreadable. "Strix Point" (derived look-alike) is another chip and is not read as one."""
    text = ("I've just got my Strix Halo device and was playing with different llama.cpp builds.\n"
            "| gpt-oss 120B MXFP4 MoE | 59.02 GiB | 116.83 B |            tg32 |  47.41 ± 0.00 |\n")
    host = load_host(_write(tmp_path, text))
    found = judged(tmp_path, text)
    assert [g.name for g in host.gpus] == ["Strix Halo"] and problems(found) == {}
    assert "gfx1151" in found["gpu.arch-unsupported"][0].title
    other = _host_if_read(tmp_path, text.replace("Strix Halo", "Strix Point"), "other.txt")
    assert other is None or not other.gpus


def test_hips_directed_tests_nearly_all_passing_under_ctest_are_a_run_on_the_gpu(tmp_path: Path) -> None:
    """ROCm/hip#2449 (Debian's packaged HIP): ctest's "99% tests passed, 3 tests failed out of 403" with the failures
    named "103 - directed_tests/ipc/hipMultiProcIpcMem.tst (Timeout)": hundreds of HIP tests ran on the GPU, a judged,
    healthy report. The same summary over tests that are not HIP's (derived look-alike: "tests/unit/parser.tst")
    proves nothing about a GPU, nor does a suite that mostly failed ("41% tests passed")."""
    text = ("99% tests passed, 3 tests failed out of 403\n\nTotal Test time (real) = 3933.38 sec\n\n"
            "The following tests FAILED:\n103 - directed_tests/ipc/hipMultiProcIpcMem.tst (Timeout)\n")
    _ran_on_the_gpu(tmp_path, text, text.replace("directed_tests/ipc/", "tests/unit/"), text.replace("99%", "41%"))


def test_comfyui_loading_its_models_on_cuda0_and_finishing_its_steps_ran_on_the_gpu(tmp_path: Path) -> None:
    """Comfy-Org/ComfyUI#15674 (an RX 9070 XT): "CLIP/text encoder model load device: cuda:0, offload device: cpu" and a
    completed "20/20" sampling bar whose blocks fill 240 columns: the models ran on the GPU, a judged, healthy report.
    With "load device: cpu" (derived look-alike) nothing says a GPU ran."""
    bar = "█" * 240
    text = ("[INFO] CLIP/text encoder model load device: cuda:0, offload device: cpu, current: cpu, dtype: "
            f"torch.float16\n[INFO] Requested to load SDXL\n100%|{bar}| 20/20 [00:30<00:00,  1.52s/it]\n"
            "[INFO] Prompt executed in 85.21 seconds\n")
    _ran_on_the_gpu(tmp_path, text, text.replace("device: cuda:0,", "device: cpu,"))


def test_a_pasted_pci_listing_alone_is_no_verdict_on_an_old_gpu_target(tmp_path: Path) -> None:
    """clbr/radeontop#106: an RX 580 2048SP that 'works great with the `amdgpu` driver', its `lspci -v` entry pasted
    in a request to a monitoring tool. Nothing in the report uses ROCm, so gfx803 being in no ROCm release since 5.6
    is information, not a fail. The same listing beside a ROCm program's failure (derived look-alike: rocBLAS's
    'Cannot read .../TensileLibrary.dat') keeps AMD's verdict."""
    text = ("43:00.0 VGA compatible controller: Advanced Micro Devices, Inc. [AMD/ATI] Polaris 20 XL [Radeon RX 580 "
            "2048SP] (rev ef) (prog-if 00 [VGA controller])\n        Flags: bus master, fast devsel, latency 0\n")
    found = judged(tmp_path, text)
    assert problems(found) == {} and [f.severity for f in found["gpu.arch-unsupported"]] == [Severity.INFO]
    failing = text + "rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: No such file\n"
    assert problems(judged(tmp_path, failing, "b.txt")).get("gpu.arch-unsupported") == "fail"


def test_a_triton_target_override_for_another_gpu_is_code_the_gpu_cannot_run(tmp_path: Path) -> None:
    """patientx/ComfyUI-Zluda#263: the launcher's "Detected GPU via Windows registry: AMD Radeon RX 9070 XT" (gfx1201)
    then "Set TRITON_OVERRIDE_ARCH=gfx1200": Triton builds for another target (HIP error 209); the fix was gfx1201.
    Derived look-alikes: the same line for a gfx1200 GPU (RX 9060 XT), for a gfx1031 run with
    HSA_OVERRIDE_GFX_VERSION=10.3.0 and TRITON_OVERRIDE_ARCH=gfx1030 (both agree), and with no GPU named."""
    text = ("** Platform: Windows\n  ::  Detected GPU via Windows registry: AMD Radeon RX 9070 XT\n"
            "  ::  Set TRITON_OVERRIDE_ARCH=gfx1200\n  ::  Triton core imported successfully\n")
    _the_one_fail(tmp_path, text, "log.no-binary-for-gpu", "gfx1200")
    own = text.replace("RX 9070 XT", "RX 9060 XT")
    assert "log.no-binary-for-gpu" not in _problems_if_read(tmp_path, own, "own.txt")
    agreed = ("GPU: AMD Radeon RX 6700 XT\nexport HSA_OVERRIDE_GFX_VERSION=10.3.0\n"
              "export TRITON_OVERRIDE_ARCH=gfx1030\n")
    assert "log.no-binary-for-gpu" not in _problems_if_read(tmp_path, agreed, "agreed.txt")
    alone = text.replace("  ::  Detected GPU via Windows registry: AMD Radeon RX 9070 XT\n", "")
    assert "log.no-binary-for-gpu" not in _problems_if_read(tmp_path, alone, "alone.txt")


def test_freebsds_firmware_load_failure_before_a_failed_init_is_missing_firmware(tmp_path: Path) -> None:
    """freebsd/drm-kmod-firmware#27: "drmn0: could not load firmware image 'amdgpu/navy_flounder_sos.bin'", then
    "sw_init of IP block <psp> failed -2" and "Fatal error during GPU init"; fixed by installing the navy-flounder
    firmware package. The fix is FreeBSD's (fwget, the chip's package), not apt's. Derived look-alike: the optional
    trusted-application file (navy_flounder_ta.bin) is not the cause of the same failed init."""
    text = ("May 15 22:34:16 Home kernel: drmn0: could not load firmware image 'amdgpu/navy_flounder_sos.bin'\n"
            "May 15 22:34:16 Home kernel: [drm ERROR :amdgpu_device_ip_init] sw_init of IP block <psp> failed -2\n"
            "May 15 22:34:16 Home kernel: drmn0: Fatal error during GPU init\n")
    found = judged(tmp_path, text)
    assert problems(found).get("driver.firmware-missing") == "fail"
    fix = found["driver.firmware-missing"][0].fix
    assert fix is not None
    assert fix.commands[:2] == ["sudo fwget", "sudo pkg install gpu-firmware-amd-kmod-navy-flounder"]
    assert not any("apt" in c for c in fix.commands)
    optional = text.replace("navy_flounder_sos.bin", "navy_flounder_ta.bin")
    assert "driver.firmware-missing" not in problems(judged(tmp_path, optional, "b.txt"))


def test_an_instinct_named_with_a_lower_case_x_is_that_instinct(tmp_path: Path) -> None:
    """ROCm/flash-attention#44: "benchmarking results comparing different implementation of attention on an MI250x":
    the MI250X (gfx90a) as people write it, a judged report with the GPU named. "MI250" alone stays the MI250; a
    model number inside a word (derived look-alike "AMI300x") is no GPU."""
    host = load_host(_write(tmp_path, "results comparing different implementation of attention on an MI250x.\n"))
    assert [g.name for g in host.gpus] == ["MI250x"]
    assert judged(tmp_path, "a node of eight MI300x GPUs\n", "b.txt")["gpu.igpu-visible"][0].severity == Severity.OK
    other = _host_if_read(tmp_path, "the AMI300x board\n", "c.txt")
    assert other is None or other.gpus == []


def test_no_device_behind_visibility_variables_that_select_none_is_one_problem(tmp_path: Path) -> None:
    """unslothai/unsloth#6175: "HIP_VISIBLE_DEVICES=1 ROCR_VISIBLE_DEVICES=1 llama-server --list-devices shows no
    device" on two R9700s, and llama.cpp's "no ROCm-capable device is detected": the variables are the cause and the
    error their symptom, one problem with its evidence, not two."""
    text = ("**Environment:** 2× Radeon AI PRO R9700 (gfx1201), ROCm 7.1.1, torch 2.10.0+rocm7.1.\n"
            "`llama-server` logs `ggml_cuda_init: failed to initialize ROCm: no ROCm-capable device is detected`.\n"
            "Confirmed: `HIP_VISIBLE_DEVICES=1 ROCR_VISIBLE_DEVICES=1 llama-server --list-devices` shows no device\n")
    found = judged(tmp_path, text)
    assert problems(found).get("env.visible-devices") == "fail"
    symptoms = [f for fid, fs in found.items() if fid != "env.visible-devices" for f in fs
                if f.severity in (Severity.WARN, Severity.FAIL)]
    assert symptoms and all(f.cause == "env.visible-devices" for f in symptoms)


def test_pip_fetching_pypis_torch_as_a_dependency_replaces_the_rocm_build(tmp_path: Path) -> None:
    """ROCm/pytorch#411: a ROCm source build ('1.1.0a0+453c723', Python 3.6, 2019), then `pip install --upgrade
    torchvision` printing "Collecting torch>=1.1.0 (from torchvision)" and downloading PyPI's
    torch-1.1.0-cp36-cp36m-manylinux1_x86_64.whl: the ROCm build is being replaced (fixed with --no-deps). Its Python
    3.6 is no 'no ROCm wheel' failure: that torch predates every release in the data. Derived look-alike: the
    dependency fetched from PyTorch's ROCm index (torch-1.1.0%2Brocm...) replaces nothing with a non-ROCm build."""
    text = (">>> import torch\n>>> print(torch.__version__)\n1.1.0a0+453c723\n>>> exit()\n\n"
            "$ pip install --upgrade torchvision\nCollecting torchvision\nCollecting torch>=1.1.0 (from torchvision)\n"
            "  Downloading https://files.pythonhosted.org/packages/69/60/f685fb/torch-1.1.0-cp36-cp36m-"
            "manylinux1_x86_64.whl (676.9MB)\n")
    text = "Python 3.6.8 |Anaconda, Inc.| (default, Dec 30 2018, 01:22:34)\n" + text
    found = judged(tmp_path, text)
    assert problems(found) == {"torch.not-rocm-build": "fail"}
    assert "torch 1.1.0 " in found["torch.not-rocm-build"][0].title
    rocm = text.replace("torch-1.1.0-cp36", "torch-1.1.0%2Brocm-cp36")
    assert "torch.not-rocm-build" not in problems(judged(tmp_path, rocm, "b.txt"))


def test_no_python_build_of_torch_told_in_prose_is_a_python_without_wheels(tmp_path: Path) -> None:
    """AUTOMATIC1111/stable-diffusion-webui#14530: "pip encounters an error because there is no python 3.12 or 3.11
    build of this package available for this version of pytorch" (the rocm5.4.2 torch): no ROCm wheel for the running
    Python 3.12. The fix offers another Python, never 3.12 itself. Derived look-alike: "there is a python 3.12 build
    of this package available" says the opposite."""
    text = ("Turns out what is happening is that while installing `rocm5.4.2` pip encounters an error because there is "
            "no python 3.12 or 3.11 build of this package available for this version of pytorch..\n")
    found = judged(tmp_path, text)
    assert problems(found) == {"python.no-rocm-wheel": "fail"}
    fix = found["python.no-rocm-wheel"][0].fix
    assert fix is not None and "3.12" not in " ".join(fix.commands) and "uv venv --python 3.11 .venv" in fix.commands
    other = text.replace("no python 3.12 or 3.11 build", "a python 3.12 build")
    assert "python.no-rocm-wheel" not in _problems_if_read(tmp_path, other, "b.txt")


def test_a_library_linked_by_its_full_path_or_a_profilers_missing_tool_library_is_a_missing_library(
        tmp_path: Path) -> None:
    """ROCm/rocm-systems#2641: "sleep: error while loading shared libraries: /usr/local/lib/libsqlite3.so: cannot open
    shared object file" under rocprofv3 (its tool library names SQLite by the build machine's path);
    ROCm/rocprofiler-sdk#70: "Fatal error: .../_rocm_sdk_core/lib/rocprofiler-sdk/librocprofiler-sdk-tool.so does not
    exist" (TheRock's wheel ships only the versioned name). Derived look-alikes: a CUDA library by path is still not
    ROCm's problem; Python's OSError for a package's own file by path is that package's fallback (bitsandbytes);
    "does not exist" for a file that is no library names nothing."""
    path = ("sleep: error while loading shared libraries: /usr/local/lib/libsqlite3.so: cannot open shared object "
            "file: No such file or directory\n")
    _the_one_fail(tmp_path, path, "log.missing-shared-library", "/usr/local/lib/libsqlite3.so")
    cuda = path.replace("/usr/local/lib/libsqlite3.so", "/usr/local/cuda/lib64/libcudart.so.12")
    assert "log.missing-shared-library" not in _problems_if_read(tmp_path, cuda, "cuda.txt")
    own = "OSError: /home/u/bitsandbytes/libbitsandbytes_cpu.so: cannot open shared object file: No such file\n"
    assert "log.missing-shared-library" not in _problems_if_read(tmp_path, own, "own.txt")  # a package's own file
    tool = ("Fatal error: /home/u/rocm-venv/lib/python3.12/site-packages/_rocm_sdk_core/lib/rocprofiler-sdk/"
            "librocprofiler-sdk-tool.so does not exist\n")
    assert problems(judged(tmp_path, tool, "tool.txt")) == {"log.missing-shared-library": "fail"}
    other = tool.replace("librocprofiler-sdk-tool.so", "results.csv")
    assert "log.missing-shared-library" not in _problems_if_read(tmp_path, other, "other.txt")


def test_an_instinct_in_lower_case_after_the_vendor_is_that_instinct(tmp_path: Path) -> None:
    """Syllo/nvtop#300: an issue template answered "gpu: amd mi250" (gfx90a), nvtop's own assertion below it: a judged
    report with the GPU named, not refused as unreadable. A bare "mi250" with no vendor (derived look-alike, as in a
    file name "mi250_results.csv") names no GPU."""
    host = load_host(_write(tmp_path, "os: ubuntu 22.04\ngpu: amd mi250\nno desktop\n"))
    assert [g.name for g in host.gpus] == ["mi250"]
    assert judged(tmp_path, "gpu: amd mi250\n", "b.txt")["gpu.igpu-visible"][0].severity == Severity.OK
    other = _host_if_read(tmp_path, "wrote mi250_results.csv and mi250 notes\n", "c.txt")
    assert other is None or other.gpus == []


def test_a_runtime_failure_that_works_as_root_is_a_device_permission_problem(tmp_path: Path) -> None:
    """ROCm/ROCm#1080 (ROCm 3.3, an RX 580): rocminfo fails with HSA_STATUS_ERROR_OUT_OF_RESOURCES, then "But if I run
    it as **root**, it works as intended": the user cannot open the GPU's device nodes (3.3 moved them to the render
    group). Derived look-alikes: without the root sentence the failure is only the runtime's; "it fails as **root**
    too" says nothing about permissions."""
    text = ("When I run **rocminfo**, I get this error\nROCk module is loaded\nxeon is member of video group\n"
            "`hsa api call failure at: /data/jenkins-workspace/compute-rocm-rel-3.3/rocminfo/rocminfo.cc:1102\n"
            "Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources.\n"
            "`\n\nBut if I run it as **root**, it works as intended\n")
    assert problems(judged(tmp_path, text)).get("perm.kfd-access") == "fail"
    alone = text.replace("But if I run it as **root**, it works as intended\n", "")
    assert "perm.kfd-access" not in problems(judged(tmp_path, alone, "b.txt"))
    also = text.replace("it works as intended", "it fails the same way")
    assert "perm.kfd-access" not in problems(judged(tmp_path, also, "c.txt"))


def test_rocminfo_in_a_container_without_kfd_says_nothing_about_the_hosts_module(tmp_path: Path) -> None:
    """robertrosenbusch/gfx803_rocm#6: `docker run -it --rm --group-add=video ... rocm63_pt25:latest`, then inside it
    `ls /dev/kfd` fails and rocminfo prints "ROCk module is NOT loaded, possibly no GPU devices": the container got no
    /dev/kfd; the host's amdgpu is not judged from it, and the rocminfo line follows from the container. Derived
    look-alike: the same rocminfo line on the host itself (no container) is the driver not loaded."""
    text = ("c@archb gfx803_rocm$ docker run -it --rm   --group-add=video  --ipc=host --name test_rocm "
            "rocm63_pt25:latest /bin/bash -c bash\nroot@c0cb9814a02b:/audio# ls /dev/kfd\n"
            "ls: cannot access '/dev/kfd': No such file or directory\nroot@c0cb9814a02b:/audio# rocminfo\n"
            "ROCk module is NOT loaded, possibly no GPU devices\n")
    found = judged(tmp_path, text)
    assert problems(found).get("container.no-kfd-device") == "fail"
    assert "driver.amdgpu-not-loaded" not in problems(found)
    assert all(f.cause == "container.no-kfd-device" for f in found.get("log.rock-not-loaded", []))
    host = "c@archb ~$ rocminfo\nROCk module is NOT loaded, possibly no GPU devices\n"
    assert problems(judged(tmp_path, host, "b.txt")).get("driver.amdgpu-not-loaded") == "fail"


def test_a_barcelo_igpu_from_a_cut_lspci_line_that_segfaults_needs_its_override(tmp_path: Path) -> None:
    """ROCm/hip#3282: Arch's pytorch-opt-rocm segfaulting in libamdhip64 ("exit code 139 (interrupted by signal 11:
    SIGSEGV)") on "My iGPU is an: VGA compatible controller: Advanced Micro Devices, Inc. [AMD/ATI] Barcelo (rev c1)"
    (0x15e7, a CHIP_RENOIR id in the kernel's pciidlist: gfx90c); the reporter confirmed 9.0.0. gdb's frame #0 in
    libamdhip64 makes the crash ROCm's runtime's. Derived look-alikes: frame #0 in libc stays a hint; "Barcelo" in prose
    with no lspci vendor tag names no GPU; without the crash nothing says the program ran without."""
    text = ("I get following message: Process finished with exit code 139 (interrupted by signal 11: SIGSEGV)\n"
            "#0  0x00007fffa6ed9cd8 in  () at /opt/rocm/hip/lib/libamdhip64.so.5\n"
            " My iGPU is an: VGA compatible controller: Advanced Micro Devices, Inc. [AMD/ATI] Barcelo (rev c1) "
            "(prog-if 00 [VGA controller])\n")
    found = judged(tmp_path, text)
    assert problems(found).get("gpu.override-needed") == "fail"
    assert "9.0.0" in found["gpu.override-needed"][0].title
    assert problems(found).get("log.segfault") == "fail"  # gdb's frame #0 is in ROCm's runtime: the crash site
    libc = text.replace("/opt/rocm/hip/lib/libamdhip64.so.5", "/usr/lib/libc.so.6")
    assert problems(judged(tmp_path, libc, "libc.txt")).get("log.segfault") == "warn"
    prose = _host_if_read(tmp_path, "my laptop is a Barcelo refresh of Cezanne\n", "b.txt")
    assert prose is None or prose.gpus == []
    quiet = text.split("\n", 2)[2]
    assert "gpu.override-needed" not in problems(judged(tmp_path, quiet, "c.txt"))


def test_a_grep_of_rocminfo_names_pairs_each_gpu_name_with_the_marketing_name_after_it(tmp_path: Path) -> None:
    """warpfront/hipfire#353: a diag tool's grep of rocminfo's 'Marketing Name' and 'Name' lines on an APU: the CPU
    agent's "AMD Ryzen AI 7 PRO 350 w/ Radeon 860M", then the GPU's "Name: gfx1152", its "AMD Radeon 860M Graphics" and
    its ISA line. One GPU, not two (the CPU's marketing name is no GPU)."""
    text = ("rocminfo GPUs:\n  Marketing Name:          AMD Ryzen AI 7 PRO 350 w/ Radeon 860M\n"
            "  Name:                    gfx1152\n  Marketing Name:          AMD Radeon 860M Graphics\n"
            "  Name:                    amdgcn-amd-amdhsa--gfx1152\n")
    host = load_host(_write(tmp_path, text))
    assert [(g.name, g.gfx) for g in host.gpus] == [("AMD Radeon 860M Graphics", "gfx1152")]


def test_bitsandbytes_told_to_look_for_another_rocm_library_has_no_native_library(tmp_path: Path) -> None:
    """bitsandbytes-foundation/bitsandbytes#1890: under a `+rocm7.12` torch bitsandbytes 0.49 looks for
    libbitsandbytes_rocm82.so, told in prose ("libbitsandbytes_rocm82.so instead of libbitsandbytes_rocm712.so").
    Derived look-alikes: the same library name twice, and one name alone, say nothing."""
    text = ("This causes the library loader to search for a non-existent .so file (e.g., libbitsandbytes_rocm82.so "
            "instead of libbitsandbytes_rocm712.so).\n")
    found = judged(tmp_path, text)
    assert problems(found).get("log.bitsandbytes-no-gpu") == "warn"
    assert "libbitsandbytes_rocm82.so" in found["log.bitsandbytes-no-gpu"][0].title
    same = text.replace("rocm82", "rocm712")
    assert "log.bitsandbytes-no-gpu" not in _problems_if_read(tmp_path, same, "b.txt")
    alone = "bitsandbytes ships libbitsandbytes_rocm712.so in its wheel\n"
    assert "log.bitsandbytes-no-gpu" not in _problems_if_read(tmp_path, alone, "c.txt")


def test_an_instinct_series_without_its_suffix_is_that_instinct(tmp_path: Path) -> None:
    """vllm-project/recipes#561: "Add GLM-5.2 recipe for MI300 and MI355 for AMD/ROCm" names the GPUs the evaluation
    ran on: a judged report, not refused as unreadable. A model number that is not an Instinct series ("MI3000", a
    part number "MI3001") names none."""
    host = load_host(_write(tmp_path, "Add GLM-5.2 recipe for MI300 and MI355 for AMD/ROCm,\n"))
    assert [g.name for g in host.gpus] == ["MI300", "MI355"]
    assert problems(judged(tmp_path, "Add GLM-5.2 recipe for MI300 and MI355 for AMD/ROCm,\n", "b.txt")) == {}
    for n, other in enumerate(("Add a recipe for MI3000 and MI3001\n", "Add a recipe for MI30 and MI35\n")):
        read = _host_if_read(tmp_path, other, f"other{n}.txt")
        assert read is None or read.gpus == []


def test_the_container_toolkits_and_a_kubernetes_nodes_gpu_count_are_gpus_detected(tmp_path: Path) -> None:
    """bottlerocket-os/bottlerocket-core-kit#778: `amd-ctk cdi list` printing "Found 8 AMD GPU devices";
    ROCm/gpu-operator#382: a node's "Capacity:" with "amd.com/spx_nps1:   63" beside "amd.com/gpu:        0". Both
    are counts of GPUs the host has (gpu.detected ok). Look-alikes: prose that found them elsewhere, a count of 0 for
    every AMD resource, and a non-AMD resource, say nothing."""
    ctk = "bash-5.1# amd-ctk cdi list\nFound 8 AMD GPU devices\namd.com/gpu=all\namd.com/gpu=0\n  /dev/dri/renderD128\n"
    node = ("                    rocm=6.3.2\nCapacity:\n  amd.com/gpu:        0\n  amd.com/spx_nps1:   63\n"
            "Allocatable:\n  amd.com/gpu:        0\n")
    for n, text in enumerate((ctk, node)):
        found = judged(tmp_path, text, f"yes{n}.txt")
        assert found["gpu.detected"][0].severity == Severity.OK and problems(found) == {}
    for n, other in enumerate((ctk.replace("Found 8", "I found 8"), node.replace("63", "0"),
                               node.replace("amd.com/spx_nps1", "nvidia.com/gpu"))):
        read = _host_if_read(tmp_path, other, f"other{n}.txt")
        assert read is None or read.gpus == []


def test_the_report_saying_its_rocm_pytorch_works_is_a_run_on_the_gpu(tmp_path: Path) -> None:
    """deepspeedai/DeepSpeed#2080: "I have ROCm but it is installed into the system, not into `/opt/rocm` ...
    ROCm PyTorch is working fine." (Gentoo): the report's own word that a ROCm program runs on its GPU. Not when it
    is not working, or only hoped for."""
    said = "I have ROCm but it is installed into the system, not into `/opt/rocm`. ROCm PyTorch is working fine.\n"
    _ran_on_the_gpu(tmp_path, said, said.replace("is working", "is not working"),
                    "If ROCm PyTorch is working fine, the GPU is set up.\n", "CUDA PyTorch is working fine.\n")


def test_prose_that_rocm_lists_the_igpu_as_a_device_warns_of_the_igpu(tmp_path: Path) -> None:
    """oobabooga/textgen#7319: "the discrete GPU will be ROCm Device 0, and the iGPU ROCm Device 1. Hence, setting the
    environment variable `HIP_VISIBLE_DEVICES=0` is necessary" (AMD: ROCm enumerating a Ryzen 9000's iGPU crashes it).
    A warning: the words, not a crash shown; the variable in the prose is the remedy, not the process's environment.
    Derived look-alikes: the iGPU said to be disabled, and the same prose without the iGPU, say nothing of it."""
    text = ("On most systems in this state, the discrete GPU will be ROCm Device 0, and the iGPU ROCm Device 1. "
            "Hence, setting the environment variable `HIP_VISIBLE_DEVICES=0` is necessary.\n")
    assert problems(judged(tmp_path, text)) == {"gpu.igpu-visible": "warn"}
    for n, other in enumerate((text.replace("and the iGPU ROCm Device 1", "and the iGPU is disabled"),
                               text.replace(", and the iGPU ROCm Device 1", ""))):
        assert "gpu.igpu-visible" not in _problems_if_read(tmp_path, other, f"other{n}.txt")


def test_a_segfault_during_hsa_enumeration_beside_an_igpu_is_a_crash_not_a_missing_override(tmp_path: Path) -> None:
    """unslothai/unsloth#7272: an RX 7700S (gfx1102) beside a 780M (gfx1103) running the `rocm-gfx110X` prebuilt;
    "`llama-server` **segfaults during HSA device enumeration**" until ROCR_VISIBLE_DEVICES hides the iGPU. The
    family build carries gfx1102: no override; the crash in the runtime's enumeration is a fail. Derived look-alikes:
    without the build's family named the dGPU needs its override; a segfault said of something else stays a hint."""
    text = ("On my machine that is a Radeon RX 7700S (gfx1102) next to the integrated Radeon 780M (gfx1103), running "
            "the `rocm-gfx110X` prebuilt.\n"
            "`llama-server` **segfaults during HSA device enumeration** on the unsupported iGPU.\n")
    found = problems(judged(tmp_path, text))
    assert found == {"gpu.igpu-visible": "warn", "log.segfault": "fail"}
    no_family = text.replace("the `rocm-gfx110X` prebuilt", "the prebuilt")
    assert problems(judged(tmp_path, no_family, "b.txt")).get("gpu.override-needed") == "fail"
    other = text.replace("segfaults during HSA device enumeration", "hits a Segmentation fault on exit")
    assert problems(judged(tmp_path, other, "c.txt")).get("log.segfault") == "warn"


def test_an_apus_name_says_nothing_of_its_igpu_when_rocm_could_not_be_installed(tmp_path: Path) -> None:
    """ROCm/legacy-rocm-build#3191: "AMD Ryzen 9 6900HS with Radeon Graphics" beside an RX 6700S, and zypper's
    "Valid metadata not found at specified URL" for AMD's repository (404): no ROCm is installed to enumerate the
    iGPU. Derived look-alike: the same CPU and GPU without the failed install keep the warning."""
    cpu = "CPU: AMD Ryzen 9 6900HS with Radeon Graphics\nGPU: AMD Radeon RX6700S\n"
    repo = ("Retrieving repository 'amdgpu' metadata ...[error]\n"
            "Repository 'amdgpu' is invalid.\n"
            "[amdgpu|https://repo.radeon.com/amdgpu/6.1.1/sle/20240524/main/x86_64] Valid metadata not found at "
            "specified URL\n")
    found = problems(judged(tmp_path, cpu + repo))
    assert found.get("log.package-install-failed") == "fail" and "gpu.igpu-visible" not in found
    assert problems(judged(tmp_path, cpu, "b.txt")).get("gpu.igpu-visible") == "warn"


def test_a_prebuilt_pytorchs_missing_code_with_no_gpu_named_asks_for_the_override(tmp_path: Path) -> None:
    """oobabooga/textgen#5 ("hipErrorNoBinaryForGpu ... even with torch* set to +rocm5.2", fixed by 10.3.0 before the
    GPU was ever named), ROCm/legacy-rocm-build#1815 (a Python session importing torch on a Steam Deck), #2914 (the
    torch wheel's rocBLAS missing TensileLibrary.dat on an RX 7600 XT, 11.0.0), gbtb/nix-stable-diffusion#10
    (`$ python scripts/preload_models.py` on an RX 5700 XT): a prebuilt Python stack without code for an unnamed GPU
    is, overwhelmingly, a consumer sibling of a wheel target. Derived look-alikes: the same error in prose with no
    prebuilt program (a stack the report rebuilt itself: rocm-arch's rocrand), with the override set, or under
    another framework, is not this."""
    error = '"hipErrorNoBinaryForGpu: Unable to find code object for all current devices!"\n'
    for n, text in enumerate((f"I'm getting `{error.strip()}` even with torch* set to +rocm5.2\n",
                              f">>> import torch\n>>> torch.cuda.is_available()\n{error}Aborted (core dumped)\n",
                              f"$ python scripts/preload_models.py\n{error}",
                              "rocBLAS error: Cannot read /home/u/env/lib/python3.11/site-packages/torch/lib/rocblas/"
                              "library/TensileLibrary.dat: No such file or directory\nAborted (core dumped)\n")):
        found = judged(tmp_path, text, f"p{n}.txt")
        assert problems(found) == {"gpu.override-needed": "fail", "log.no-binary-for-gpu": "fail"}, text
        assert "does not name the GPU" in found["gpu.override-needed"][0].title
    rebuilt = f"recently i've started to get error `{error.strip()}`\nso recompiled every dependency.\n"
    for n, other in enumerate((rebuilt,
                               f"$ HSA_OVERRIDE_GFX_VERSION=10.3.0 python scripts/preload_models.py\n{error}",
                               f"$ python train.py\nUsing tensorflow-rocm 2.4\n{error}")):
        assert "gpu.override-needed" not in problems(judged(tmp_path, other, f"o{n}.txt")), other


def test_only_one_engine_working_is_a_failure_told_for_a_gpu_that_needs_the_override(tmp_path: Path) -> None:
    """mkiol/dsnote#296: "In text-to-speech, I can use successfully only Piper models" (the ROCm engines fail) beside
    the app's `gpu device str: ("ROCm", " 0", " AMD Radeon RX 6700 XT")`, no override anywhere: fixed by 10.3.0.
    Derived look-alikes: the device line alone, an amount ("I can only use 4 GB"), and the override named."""
    device = 'gpu device str: ("ROCm", " 0", " AMD Radeon RX 6700 XT")\n'
    said = "In text-to-speech, I can use successfully only Piper models.\n"
    _the_one_fail(tmp_path, said + device, "gpu.override-needed", "10.3.0")
    for n, other in enumerate((device, "With it I can only use 4 GB of VRAM.\n" + device,
                               said + "I run it with HSA_OVERRIDE_GFX_VERSION=10.3.0 set.\n" + device)):
        assert "gpu.override-needed" not in problems(judged(tmp_path, other, f"o{n}.txt")), other


def test_a_report_that_the_rocm_runtime_library_crashes_is_the_failure(tmp_path: Path) -> None:
    """kyuz0/amd-strix-halo-vllm-toolboxes#61: "the 0609-0612 gfx1151/gfx1150 nightlies have a `libhsa-runtime64`
    crash in `rocr::AMD::GpuAgent::InitDma()`" beside "SIGSEGV (exit 139)": the report places the crash in ROCm's
    runtime, so it fails (the generic SIGSEGV folds in). Derived look-alikes: the library only named beside a crash,
    a crash verb after another library, and the runtime named with no crash stay a warning or nothing."""
    text = ("# -> SIGSEGV (exit 139), no traceback\n"
            "The nightlies have a `libhsa-runtime64` crash in `rocr::AMD::GpuAgent::InitDma()` (jumps to a bogus "
            "address)\n")
    found = judged(tmp_path, text)
    assert problems(found) == {"log.segfault": "fail"}
    assert len(found["log.segfault"]) == 1 and "libhsa-runtime64" in found["log.segfault"][0].title
    hip = judged(tmp_path, "libamdhip64.so.6 segfaults during hipInit\n", "b.txt")
    assert problems(hip) == {"log.segfault": "fail"}
    named = text.replace("`libhsa-runtime64` crash in", "`libhsa-runtime64` loaded, then a crash in")
    assert problems(judged(tmp_path, named, "c.txt")) == {"log.segfault": "warn"}
    other = text.replace("libhsa-runtime64", "libpython3.12")
    assert problems(judged(tmp_path, other, "d.txt")) == {"log.segfault": "warn"}
    assert _problems_if_read(tmp_path, "libhsa-runtime64 crash-free since 6.2, runs fine\n", "e.txt") == {}


def test_an_earlier_ubuntu_point_release_of_a_listed_release_is_that_release(tmp_path: Path) -> None:
    """ROCm/flash-attention#111, ROCm/ROCm-docker#149: ROCm 6.3.0 on "Ubuntu 24.04.1"; AMD's 6.3.0 column names
    24.04.2, released after 6.3.0 shipped, so the point release is the one current when the matrix was written.
    Derived look-alikes: an Ubuntu release the list does not name at all (23.10) still warns, and so does an earlier
    point release of a release ROCm 5.7.1 never listed (24.04.1)."""
    text = "### Operating System\n\nUbuntu 24.04.1 LTS (Noble Numbat)\n\n### ROCm Version\n\nROCm 6.3.0\n"
    assert "os.not-supported" not in problems(judged(tmp_path, text))
    other = text.replace("24.04.1 LTS (Noble Numbat)", "23.10 (Mantic Minotaur)")
    assert problems(judged(tmp_path, other, "b.txt")).get("os.not-supported") == "warn"
    old = text.replace("ROCm 6.3.0", "ROCm 5.7.1")
    assert problems(judged(tmp_path, old, "c.txt")).get("os.not-supported") == "warn"


def test_a_rhel_rebuild_in_a_listed_rhel_minor_release_is_not_warned(tmp_path: Path) -> None:
    """ROCm/rocprofiler-sdk#61: an MI300X on "Rocky Linux 9.4 (Blue Onyx)" with ROCm 6.3.0, which lists RHEL 9.4 (and
    Rocky only from 7.0): a note, not a warning. Derived look-alikes: Rocky in a minor release RHEL's list lacks (9.2)
    still warns, and so does a distribution that is no RHEL rebuild (Fedora 40)."""
    text = "### Operating System\n\nRocky Linux 9.4 (Blue Onyx)\n\n### ROCm Version\n\nROCm 6.3.0\n"
    found = judged(tmp_path, text)
    assert "os.not-supported" not in problems(found)
    assert any(f.severity == Severity.INFO for f in found["os.not-supported"])
    _fires_unless(tmp_path, text.replace("9.4 (Blue Onyx)", "9.2 (Blue Onyx)"), ("os.not-supported", "warn"),
                  ("9.2 (Blue Onyx)", "9.4 (Blue Onyx)"))
    fedora = text.replace("Rocky Linux 9.4 (Blue Onyx)", "Fedora Linux 40 (Workstation Edition)")
    assert problems(judged(tmp_path, fedora, "c.txt")).get("os.not-supported") == "warn"


def test_talos_is_a_distribution_amds_maintainers_said_they_do_not_support(tmp_path: Path) -> None:
    """ROCm/k8s-device-plugin#23: "On Talos `/dev/kfd` isn't present"; AMD: "Talos is not a Linux distribution we
    currently support". A warning with no ROCm release named. Derived look-alikes: Raptor's "Talos II" workstation is
    no OS, and a distribution named the same way that AMD never refused (Fedora) is not judged without a release."""
    text = "On Talos `/dev/kfd` isn't present causing this in logs\n"
    assert problems(judged(tmp_path, text)).get("os.not-supported") == "warn"
    workstation = "On Talos II `/dev/kfd` isn't present causing this in logs\n"
    assert "os.not-supported" not in problems(judged(tmp_path, workstation, "b.txt"))
    fedora = "On Fedora `/dev/kfd` isn't present causing this in logs\n"
    assert "os.not-supported" not in problems(judged(tmp_path, fedora, "c.txt"))


def test_a_wheels_rocblas_lacking_an_override_target_is_the_override_not_the_wheel(tmp_path: Path) -> None:
    """ROCm/legacy-rocm-build#3840: lspci's "Navi 33 [... PRO W7600]" (gfx1102) and the torch wheel's "rocBLAS error:
    Cannot read .../site-packages/torch/lib/rocblas/library/TensileLibrary.dat: Illegal seek"; AMD: set
    HSA_OVERRIDE_GFX_VERSION. Derived look-alikes: the same line on a Navi 31 (gfx1100, no override to take) is the
    wheel lacking the GPU, and so it is on the gfx1102 once the override is set."""
    text = ("03:00.0 VGA compatible controller: Advanced Micro Devices, Inc. [AMD/ATI] Navi 33 [Radeon RX 7700S/7600/"
            "7600S/7600M XT/PRO W7600] (rev c0)\nrocBLAS error: Cannot read /home/u/venv/lib/python3.12/site-packages/"
            "torch/lib/rocblas/library/TensileLibrary.dat: Illegal seek\n")
    found = problems(judged(tmp_path, text))
    assert found.get("gpu.override-needed") == "fail" and "torch.arch-missing" not in found
    navi31 = text.replace("Navi 33 [Radeon RX 7700S/7600/7600S/7600M XT/PRO W7600]",
                          "Navi 31 [Radeon RX 7900 XT/7900 XTX/7900 GRE/7900M]")
    assert problems(judged(tmp_path, navi31, "b.txt")).get("torch.arch-missing") == "fail"
    forced = "export HSA_OVERRIDE_GFX_VERSION=11.0.0\n" + text
    assert problems(judged(tmp_path, forced, "c.txt")).get("torch.arch-missing") == "fail"


def test_nixpkgs_rocm_is_the_distributions_own_and_nix_info_names_the_os(tmp_path: Path) -> None:
    """NixOS/nixpkgs#265095: nixpkgs' issue template's `nix-info -m` (" - host os: `Linux 6.1.59, NixOS, 23.11
    (Tapir), 23.11pre-git`") and a store path of nixpkgs' hipcc: the kernel, NixOS 23.11, and ROCm from the
    distribution's own packages, which AMD's OS list does not judge (information: the report is read, not
    refused). Derived look-alikes: AMD's own packages on NixOS are not the distribution's; no ROCm package at all is
    no verdict."""
    text = ("3. `Can't exec \"/usr/local/cuda/bin/nvcc\": No such file or directory at "
            "/nix/store/xs85f29kps1d5p69fhrcgl47a466zscs-hipcc-5.7.0/bin//hipcc.pl line 634.\n"
            "```console\n - system: `\"x86_64-linux\"`\n"
            " - host os: `Linux 6.1.59, NixOS, 23.11 (Tapir), 23.11pre-git`\n```\n")
    host = load_host(_write(tmp_path, text))
    assert (host.os.id, host.os.version, host.kernel.release) == ("nixos", "23.11", "6.1.59")
    found = judged(tmp_path, text, "b.txt")
    assert [f.severity for f in found["os.not-supported"]] == [Severity.INFO]
    assert "own ROCm packages" in found["os.not-supported"][0].title
    amd = text + "sudo amdgpu-install --usecase=rocm\n"
    assert all(f.severity != Severity.INFO for f in judged(tmp_path, amd, "c.txt")["os.not-supported"])
    bare = text.replace("/nix/store/xs85f29kps1d5p69fhrcgl47a466zscs-hipcc-5.7.0/bin//hipcc.pl", "/usr/bin/hipcc.pl")
    assert _host_if_read(tmp_path, bare, "d.txt") is None or all(
        f.severity == Severity.SKIP for f in judged(tmp_path, bare, "e.txt")["os.not-supported"])


def test_a_torch_of_another_rocm_release_failing_in_the_present_state_fails(tmp_path: Path) -> None:
    """invoke-ai/InvokeAI#5738: torch 2.1.2+rocm5.6 on a host with 'ROCm version 6.0.0' aborted every generation with
    'HIP error: the operation cannot be performed in the present state'; the torch built for ROCm 6.0 alone fixed it.
    Derived look-alikes: the mismatch without the error stays a warning; the error with a torch of the system's
    release names no mismatch; in a VM passthrough the error is PCIe atomics (driver.pcie-atomics), not the wheel."""
    torch = "torch 2.1.2+rocm5.6\nI am using ROCm version 6.0.0.\n"
    err = "RuntimeError: HIP error: the operation cannot be performed in the present state\n"
    found = judged(tmp_path, torch + err)
    assert problems(found) == {"torch.rocm-mismatch": "fail"}
    assert "present state" in found["torch.rocm-mismatch"][0].title
    assert problems(judged(tmp_path, torch, "a.txt")) == {"torch.rocm-mismatch": "warn"}
    same = torch.replace("rocm5.6", "rocm6.0")
    assert "torch.rocm-mismatch" not in problems(judged(tmp_path, same + err, "b.txt"))
    vm = "I passthrough a MI 100 GPU to a virtual machine powered by libvirt\n"
    assert problems(judged(tmp_path, vm + torch + err, "c.txt")) == \
        {"driver.pcie-atomics": "fail", "torch.rocm-mismatch": "warn"}


def test_an_installed_distribution_rocm_package_that_breaks_amds_install_is_two_releases_failing(
        tmp_path: Path) -> None:
    """ROCm/rocm-install-on-linux#583: apt's resolver trace 'Broken rocm:amd64 Depends on rocminfo:amd64 <
    5.7.1-3build1 @ii mK > (= 1.0.0.70001-42~24.04)': the distribution's ROCm 5.7 rocminfo is installed ('@ii') and
    AMD's rocm 7.0.1 cannot be installed beside it; removing the old packages fixed it. Derived look-alikes: the same
    clash where the distribution's package is only apt's candidate ('but 5.0.0-1 is to be installed',
    legacy-rocm-build#1899) stays a warning; AMD's own package installed ('1.0.0.70000') is no second source."""
    head = "sudo apt install rocm\nStarting pkgProblemResolver with broken count: 1\n"
    text = head + "Broken rocm:amd64 Depends on rocminfo:amd64 < 5.7.1-3build1 @ii mK > (= 1.0.0.70001-42~24.04)\n"
    found = problems(judged(tmp_path, text))
    assert found.get("rocm.multiple-versions") == "fail" and found.get("log.package-install-failed") == "fail"
    candidate = (" rocm-hip-runtime : Depends: rocminfo (= 1.0.0.50400-72~22.04) but 5.0.0-1 is to be installed\n")
    assert problems(judged(tmp_path, candidate, "b.txt")).get("rocm.multiple-versions") == "warn"
    amd = text.replace("5.7.1-3build1", "1.0.0.70000-17~24.04")
    assert "rocm.multiple-versions" not in problems(judged(tmp_path, amd, "c.txt"))


def test_a_program_showing_the_gpu_unsupported_on_mesa_only_opencl_is_rocm_missing(tmp_path: Path) -> None:
    """FoldingAtHome/fah-client-bastet#425: the only OpenCL platform is 'rusticl (Mesa/X.org)' and 'The GPU is
    detected by FAH client but shown as "Unsupported"'; the maintainer: Mesa is not supported, install ROCm. The
    program refusing the GPU makes the missing ROCm runtime a fail. Derived look-alikes: Mesa's platform alone stays a
    warning; with ROCm's platform listed too, ROCm is there; 'unsupported' said of something else raises nothing."""
    mesa = "OpenCL status:\n- Platform: rusticl (Mesa/X.org)\n- Device: AMD Radeon 890M Graphics (radeonsi, gfx1150)\n"
    refused = 'The GPU is detected by FAH client but shown as "Unsupported".\n'
    assert problems(judged(tmp_path, mesa + refused)).get("rocm.not-installed") == "fail"
    assert problems(judged(tmp_path, mesa, "b.txt")).get("rocm.not-installed") == "warn"
    both = mesa + "- Platform: AMD Accelerated Parallel Processing\n" + refused
    assert "rocm.not-installed" not in problems(judged(tmp_path, both, "c.txt"))
    other = mesa + "The GPU is detected by FAH client; this feature is unsupported on Mesa.\n"
    assert problems(judged(tmp_path, other, "d.txt")).get("rocm.not-installed") == "warn"


def test_an_smu_that_no_longer_answers_after_a_ras_error_fails_the_kernel_log_and_is_no_hang(tmp_path: Path) -> None:
    """ROCm/legacy-rocm-build#1886: an MI50 logs 'uncorrectable hardware error(ERREVENT_ATHUB_INTERRUPT) detected!',
    'GPU reset begin!', then the SMU no longer answers ('Failed to send message 0x26, response 0x0') and powerplay
    cannot set or disable DPM: the kernel log's errors are a fail, and the reset is RAS recovery, not a hang.
    Derived look-alikes: an SMU that answered with an error code ('response 0xfffffffb') is no silence; the same reset
    without the RAS line stays log.gpu-hang."""
    ts = "[Sat Jan  7 14:25:56 2023] amdgpu 0000:e3:00.0: amdgpu: "
    ras = ts + "uncorrectable hardware error(ERREVENT_ATHUB_INTERRUPT) detected!\n"
    reset = ts + "GPU reset begin!\n"
    smu = (ts + "Failed to send message 0x26, response 0x0\n"
           "[Sat Jan  7 14:25:59 2023] amdgpu: [powerplay] Failed to upload DPM Bootup Levels!\n")
    found = problems(judged(tmp_path, ras + reset + smu))
    assert found.get("driver.dmesg-errors") == "fail" and "log.gpu-hang" not in found
    assert found.get("health.ecc-uncorrectable") == "fail"
    answered = smu.replace("response 0x0", "response 0xfffffffb")
    assert problems(judged(tmp_path, ras + reset + answered, "b.txt")).get("driver.dmesg-errors") != "fail"
    assert problems(judged(tmp_path, reset + smu, "c.txt")).get("log.gpu-hang") == "warn"


def test_a_psp_ring_that_cannot_stop_fails_the_kernel_log(tmp_path: Path) -> None:
    """ROCm/legacy-rocm-build#2747: after '*ERROR* PSP create ring failed!' amdgpu logs '*ERROR* Fail to stop psp
    ring' and '*ERROR* Trying to clear memory with ring turned off.': the GPU's security processor no longer answers,
    the GPU stays down. Derived look-alike: the PSP failure alone leaves the kernel log's other lines unjudged."""
    ts = "[Mon Dec 18 08:34:37 2023] "
    psp = ts + "[drm:psp_hw_start [amdgpu]] *ERROR* PSP create ring failed!\n"
    dead = (ts + "[drm:psp_v13_0_ring_destroy [amdgpu]] *ERROR* Fail to stop psp ring\n"
            + ts + "[drm:amdgpu_fill_buffer [amdgpu]] *ERROR* Trying to clear memory with ring turned off.\n")
    found = judged(tmp_path, psp + dead)
    assert problems(found).get("driver.dmesg-errors") == "fail"
    assert "stopped answering" in found["driver.dmesg-errors"][0].title
    assert "driver.dmesg-errors" not in problems(judged(tmp_path, psp, "b.txt"))


def test_a_psp_that_cannot_boot_its_firmware_fails_the_kernel_log(tmp_path: Path) -> None:
    """ROCm/legacy-rocm-build#4454: every MI300X of a Dell XE9680 logs 'get invalid ip discovery binary signature',
    a failed init, and 'socket: 2, aid: 0, fw_status: 0xe6985b2d, firmware load failed at boot time': the GPU's PSP
    never booted (a faulty GPU, replaced). Derived look-alike: the failed init without the PSP's line keeps the kernel
    log's lines as the init failure's context."""
    ts = "[   54.198293] amdgpu 0000:5f:00.0: amdgpu: "
    init = (ts + "get invalid ip discovery binary signature\n" + ts + "Fatal error during GPU init\n"
            "[   54.2] amdgpu: probe of 0000:5f:00.0 failed with error -22\n")
    boot = ts + "socket: 2, aid: 0, fw_status: 0xe6985b2d, firmware load failed at boot time\n"
    found = judged(tmp_path, init + boot)
    assert problems(found).get("driver.dmesg-errors") == "fail"
    assert "PSP failed" in found["driver.dmesg-errors"][0].title
    assert problems(judged(tmp_path, init, "b.txt")).get("driver.dmesg-errors") != "fail"


def test_rocminfo_saying_rock_not_loaded_in_a_container_started_without_kfd_is_no_driver_failure(
        tmp_path: Path) -> None:
    """robertrosenbusch/gfx803_rocm#6: `docker run -it --rm --group-add=video --ipc=host ... rocm63_pt25:latest`
    passes no /dev/kfd, and rocminfo inside prints 'ROCk module is NOT loaded, possibly no GPU devices': the missing
    device node (container.no-kfd-device) is the failure, not the host's driver. Derived look-alikes: the same session
    in a container given /dev/kfd and /dev/dri, and the line on a host without any container, keep log.rock-not-loaded
    a fail."""
    run = ("$ docker run -it --rm --group-add=video --ipc=host --cap-add=SYS_PTRACE --security-opt seccomp=unconfined "
           "--name test_rocm rocm63_pt25:latest /bin/bash -c bash\n")
    inside = ("root@c0cb9814a02b:/audio# ls /dev/kfd\nls: cannot access '/dev/kfd': No such file or directory\n"
              "root@c0cb9814a02b:/audio# rocminfo\nROCk module is NOT loaded, possibly no GPU devices\n")
    _the_one_fail(tmp_path, run + inside, "container.no-kfd-device", "/dev/kfd")
    given = run.replace("--group-add=video", "--device=/dev/kfd --device=/dev/dri --group-add=video")
    assert problems(judged(tmp_path, given + inside, "b.txt")).get("log.rock-not-loaded") == "fail"
    host = "$ rocminfo\nROCk module is NOT loaded, possibly no GPU devices\n"
    assert problems(judged(tmp_path, host, "c.txt")).get("log.rock-not-loaded") == "fail"


def test_a_report_that_hsa_init_fails_with_a_status_is_the_runtime_failure_said_once(tmp_path: Path) -> None:
    """ROCm/legacy-rocm-build#3144: in a rootless Podman container given one render node, "`hsa_init` fails with
    `1008`" and rocminfo stops at 'hsa api call failure at: .../rocminfo.cc:1250': log.hsa-init-failed is that
    failure in the runtime's own name, and rocm.runtime-failed would repeat it. Derived look-alikes: rocminfo's line
    without the sentence stays rocm.runtime-failed; 'if hsa_init fails, ...' (a condition) and 'hsa_init succeeded'
    report no failure."""
    said = "podman run by **user**, one single `/dev/dri/renderD128` passed in\n  =>  `hsa_init` fails  with `1008`\n"
    rocminfo = ("# rocminfo\nROCk module is loaded\nhsa api call failure at: "
                "/long_pathname_so_that_rpms_can_package_the_debug_info/src/rocminfo/rocminfo.cc:1250\n")
    _the_one_fail(tmp_path, said + rocminfo, "log.hsa-init-failed", "HSA runtime")
    alone = problems(judged(tmp_path, rocminfo, "b.txt"))
    assert alone.get("rocm.runtime-failed") == "fail" and "log.hsa-init-failed" not in alone
    for n, other in enumerate(("If hsa_init fails, the program exits with an error.\n",
                               "hsa_init succeeded, 1 GPU agent found\n")):
        assert "log.hsa-init-failed" not in _problems_if_read(tmp_path, other, f"o{n}.txt")


def test_llamacpp_windows_hip_radeon_release_has_no_code_for_a_gpu_off_its_targets(tmp_path: Path) -> None:
    """ggml-org/llama.cpp#26127: 'llama-b10107-bin-win-hip-radeon-x64.zip' on 'GPU architecture: gfx1152' (a Radeon
    860M): the release's windows-hip job builds gfx1150;gfx1151;gfx1200;gfx1201;gfx1100;gfx1101;gfx1102;gfx1030;
    gfx1031;gfx1032 only, so the program has no code for the GPU. Derived look-alikes: the same release on a gfx1151
    (in the list), a release after b10107 (a later list adds gfx1152), the release without its build number, and a
    gfx1152 with no release named raise nothing."""
    gpu = "OS: Windows 11 Enterprise 64-bit, build 26200\nGPU: AMD Radeon(TM) 860M Graphics\nGPU architecture: {gfx}\n"
    asset = "Release asset:\n\nllama-b10107-bin-win-hip-radeon-x64.zip\n"
    _the_one_fail(tmp_path, asset + gpu.format(gfx="gfx1152"), "log.no-binary-for-gpu", "gfx1152")
    listed = gpu.replace("860M", "8060S").format(gfx="gfx1151")
    for n, other in enumerate((asset + listed,
                               asset.replace("b10107", "b10999") + gpu.format(gfx="gfx1152"),
                               asset.replace("b10107-", "") + gpu.format(gfx="gfx1152"),
                               gpu.format(gfx="gfx1152"))):
        assert "log.no-binary-for-gpu" not in _problems_if_read(tmp_path, other, f"other{n}.txt")


def test_llamacpp_windows_hip_radeon_release_before_rdna4_has_no_code_for_a_gfx1201(tmp_path: Path) -> None:
    """ggml-org/llama.cpp#15106: "I've used this build/release: llama-b6346-bin-win-hip-radeon-x64" on a 9070XT
    (gfx1201), then 'ROCm error: invalid device function': the release's Windows HIP targets gained gfx1200, gfx1201
    and gfx1151 only with ggml-org/llama.cpp#15972 ('releases : update ROCM, add gfx1200, gfx1201, gfx1151', opened
    2025-09-13; b6451 was published 2025-09-12), so releases through b6451 have no code for the GPU. Derived
    look-alikes: a release after b6451 (its list has gfx1201), a llama.cpp built locally, the release without its
    build number, and a GPU inside the earlier list (an RX 7900 XTX, gfx1100) raise no log.no-binary-for-gpu."""
    gpu = "I've got a 9070XT as well, Windows 11, I've also got the latest AMD HIP SDK 6.4 installed.\n"
    asset = ("I've used this build/release: llama-b6346-bin-win-hip-radeon-x64. The gpu gets detected with "
             "--list-devices, but when I try to load a model I get this error:\n")
    error = "```\nggml_cuda_compute_forward: SCALE failed\nROCm error: invalid device function\n```\n"
    found = judged(tmp_path, gpu + asset + error)
    assert problems(found) == {"log.no-binary-for-gpu": "fail", "log.invalid-device-function": "fail"}
    assert "b6451" in found["log.no-binary-for-gpu"][0].title and "gfx1201" in found["log.no-binary-for-gpu"][0].title
    assert "log.no-binary-for-gpu" in problems(judged(tmp_path, gpu + asset.replace("b6346", "b6451") + error, "b.txt"))
    for n, other in enumerate((gpu + asset.replace("b6346", "b6452") + error,
                               gpu + asset.replace("b6346", "b6500") + error,
                               gpu + "I built llama.cpp myself with cmake -B build -DGGML_HIP=ON and ran it.\n" + error,
                               gpu + asset.replace("b6346-", "") + error,
                               gpu.replace("9070XT", "RX 7900 XTX") + asset + error)):
        assert "log.no-binary-for-gpu" not in _problems_if_read(tmp_path, other, f"other{n}.txt")


def test_amd_alphafold_image_built_for_instinct_has_no_code_for_a_radeon(tmp_path: Path) -> None:
    """srinivamd/rocminstaller#6: 'docker run ... amddcgpuce/rocmalphafold_22_tf29:5.2.0-ub20 ...' with
    'rocminfo | grep gfx' showing gfx1030 (an RX 6900 XT); the image's maintainer: 'The docker image was built with
    support for gfx906, gfx908 and gfx90a', so it has no code for the GPU (hipErrorNoBinaryForGpu). Derived
    look-alikes: the same image on an MI210 (gfx90a), and another image on the gfx1030, raise nothing."""
    run = ("docker run -it --device=/dev/kfd --device=/dev/dri --group-add video "
           "amddcgpuce/rocmalphafold_22_tf29:5.2.0-ub20 /bin/bash -c \"python3 ./run_alphafold.py\"\n")
    gfx = "```\n  Name:                    {g}\n      Name:                    amdgcn-amd-amdhsa--{g}\n```\n"
    _the_one_fail(tmp_path, run + gfx.format(g="gfx1030"), "log.no-binary-for-gpu", "gfx906, gfx908, gfx90a")
    assert problems(judged(tmp_path, run + gfx.format(g="gfx90a"), "b.txt")) == {}
    other = run.replace("amddcgpuce/rocmalphafold_22_tf29:5.2.0-ub20", "rocm/tensorflow:latest")
    assert problems(judged(tmp_path, other + gfx.format(g="gfx1030"), "c.txt")) == {}


def test_torch_kpack_named_beside_an_invalid_image_is_torch_without_usable_code(tmp_path: Path) -> None:
    """ROCm/TheRock#7081: 'I get the error message `hipErrorInvalidImage`' with Torch 2.12 on gfx90a, and 'I believe
    the issue is due to the files + `torch_gfx90a:xnack+.kpack` + `torch_gfx90a:xnack-.kpack`': torch's own code
    objects for the GPU cannot be loaded (torch.arch-missing fail). Derived look-alikes: the kpack files listed
    without the error, the error without a torch kpack named, and another library's kpack beside the error raise no
    torch.arch-missing."""
    error = "When I run any kernel using Torch, then I get the error message `hipErrorInvalidImage`.\n"
    files = "I believe the issue is due to the files\n+ `torch_gfx90a:xnack+.kpack`\n+ `torch_gfx90a:xnack-.kpack`\n"
    found = judged(tmp_path, error + files)
    assert problems(found).get("torch.arch-missing") == "fail" and "gfx90a" in found["torch.arch-missing"][0].title
    for n, other in enumerate((files, error, error + files.replace("torch_gfx90a", "rocblas_gfx90a"))):
        assert "torch.arch-missing" not in _problems_if_read(tmp_path, other, f"other{n}.txt")


_UNIT_680M = ('[Service]\nEnvironment="HSA_OVERRIDE_GFX_VERSION=10.3.0"\nEnvironment="OLLAMA_IGPU_ENABLE=1"\n'
              'You can check if its working properly by running journalctl -u ollama and look for msg="inference '
              'compute" ... library=ROCm compute=gfx1030 name=ROCm0 description="AMD Radeon 680M" ... type=iGPU\n')


def test_a_run_said_to_work_under_its_own_flaky_override_is_no_warning(tmp_path: Path) -> None:
    """ollama/ollama#9184: "I got it to work by adding OLLAMA_IGPU_ENABLE=1 to the overrides" beside a service unit
    with Environment="HSA_OVERRIDE_GFX_VERSION=10.3.0" and ollama reporting the 680M (gfx1035) as compute=gfx1030: the
    program had the override the data calls flaky, and the run works: neither gpu.override-needed's caution nor
    gpu.override-mismatch's 'an override is in effect that fails' is a warning. Derived look-alikes: without the
    sentence, or with 'I never got it to work', both warnings stay."""
    said = "Not sure if this is still an issue for OP but sharing. I got it to work by adding OLLAMA_IGPU_ENABLE=1:\n"
    assert load_host(_write(tmp_path, said + _UNIT_680M)).context.get("works-said") is not None
    assert problems(judged(tmp_path, said + _UNIT_680M)) == {}
    warned = {"gpu.override-needed": "warn", "gpu.override-mismatch": "warn"}
    assert problems(judged(tmp_path, _UNIT_680M, "b.txt")) == warned
    never = said.replace("I got it to work", "I never got it to work")
    assert problems(judged(tmp_path, never + _UNIT_680M, "c.txt")) == warned


def test_a_model_said_loaded_fully_in_vram_under_the_compose_override_is_no_warning(tmp_path: Path) -> None:
    """ollama/ollama#5426: a UM790 Pro's Radeon 780M (gfx1103) runs ollama:rocm with the compose file's
    `- HSA_OVERRIDE_GFX_VERSION=11.0.0`, and "llama3:8b loaded fully in vram": the override the data calls unstable
    on the 780M is in use and works, no warning. Derived look-alikes: 'not loaded fully in vram', or no such line,
    keep the caution."""
    base = ("Hi.  I have Minisforum UM790 Pro with AMD Ryzen 9 7940HS w/ Radeon 780M Graphics, 96gb ram.\n"
            "services:\n  ollama:\n    image: ollama/ollama:rocm\n    devices:\n      - \"/dev/kfd\"\n"
            "      - \"/dev/dri\"\n    environment:\n      - HSA_OVERRIDE_GFX_VERSION=11.0.0\n")
    ran = "I setup frame buffer to 16gb, llama3:8b loaded fully in vram, stats:\neval rate:  17.23 tokens/s\n"
    assert problems(judged(tmp_path, base + ran)) == {}
    assert problems(judged(tmp_path, base, "b.txt")) == {"gpu.override-needed": "warn"}
    assert problems(judged(tmp_path, base + ran.replace("loaded", "not loaded"), "c.txt")) == {
        "gpu.override-needed": "warn"}


def test_rocminfo_naming_the_gpus_own_target_with_nothing_failing_makes_the_override_information(
        tmp_path: Path) -> None:
    """ROCm/ROCm-docker#149 (an RX 7600 XT, gfx1102, in rocm/pytorch:latest under ROCm 6.3.0) and warpfront/hipfire
    #353 (a Radeon 860M, gfx1152, 'rocminfo GPUs: ... Name: gfx1152' under HIP 7.2): rocminfo reports the GPU's own
    target, so no override is in effect, and nothing in the report fails: the table's 'needs
    HSA_OVERRIDE_GFX_VERSION' is a prediction for builds without the target's code, information. Derived look-alike:
    the same with hipErrorNoBinaryForGpu in the report keeps the fail."""
    text = ("### GPU\n\nGPU:   Name:                    gfx1102\n  Marketing Name:          AMD Radeon RX 7600 XT\n"
            "  Name:                    amdgcn-amd-amdhsa--gfx1102\n\n### ROCm Version\n\nROCm 6.3.0\n")
    found = judged(tmp_path, text)
    assert "gpu.override-needed" not in problems(found)
    assert [f.severity for f in found["gpu.override-needed"]] == [Severity.INFO]
    failing = text + "HIP error: hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\n"
    assert problems(judged(tmp_path, failing, "b.txt")).get("gpu.override-needed") == "fail"


def test_hipblaslts_lazy_library_missing_beside_a_report_that_everything_works_is_information(tmp_path: Path) -> None:
    """mudler/LocalAI#10660: an R9700 (gfx1201) in LocalAI's hipblas image logs 'rocblaslt error: Cannot read
    "TensileLibrary_lazy_gfx1201.dat"' and the reporter says "While from what I can tell everything works I think it's
    failing to find this file and using a fallback instead?": rocBLAS's fallback served the run, information.
    Derived look-alikes: the lines alone, or 'if everything works', stay a warning; beside torch's
    HIPBLAS_STATUS_INVALID_VALUE (the GEMM routed to hipBLASLt failing) it is a fail."""
    lines = ('7:39:10 pm.745stderrrocblaslt error: Cannot read "TensileLibrary_lazy_gfx1201.dat": No such file or '
             'directory\n7:39:10 pm.745stderrrocblaslt error: Could not load "TensileLibrary_lazy_gfx1201.dat"\n')
    said = "While from what I can tell everything works I think it's failing to find this file and using a fallback.\n"
    found = judged(tmp_path, said + lines)
    assert problems(found) == {} and [f.severity for f in found["log.hipblaslt-library-missing"]] == [Severity.INFO]
    assert problems(judged(tmp_path, lines, "b.txt")) == {"log.hipblaslt-library-missing": "warn"}
    unsure = said.replace("everything works", "I wonder if everything works")
    assert problems(judged(tmp_path, unsure + lines, "c.txt")) == {"log.hipblaslt-library-missing": "warn"}
    gemm = ("Error in Linear: CUDA error: HIPBLAS_STATUS_INVALID_VALUE when calling `hipblasLtMatmulAlgoGetHeuristic("
            " ltHandle, computeDesc.descriptor())`\n")
    assert problems(judged(tmp_path, said + lines + gemm, "d.txt")) == {"log.hipblaslt-library-missing": "fail"}


def test_a_torch_one_minor_rocm_release_off_beside_a_passing_test_report_is_information(tmp_path: Path) -> None:
    """unslothai/unsloth#4720: an MI300X VF with '- **ROCm**: 7.2.0' and '- **PyTorch**: 2.10.0+rocm7.1', its test
    report '#### GGUF Inference (4 models, all PASS)': the mix of two ROCm minor releases is a risk the runs show did
    not happen, information. Derived look-alikes: without the passing line, or with a torch of another major ROCm
    release (+rocm6.4), torch.rocm-mismatch stays a warning."""
    env = ("### Environment\n- **GPU**: AMD Instinct MI300X VF (192GB VRAM, gfx942 CDNA3)\n- **ROCm**: 7.2.0\n"
           "- **PyTorch**: 2.10.0+rocm7.1\n")
    passed = "#### GGUF Inference (4 models, all PASS)\n"
    found = judged(tmp_path, env + passed)
    assert "torch.rocm-mismatch" not in problems(found)
    assert [f.severity for f in found["torch.rocm-mismatch"]] == [Severity.INFO]
    assert problems(judged(tmp_path, env, "b.txt")).get("torch.rocm-mismatch") == "warn"
    older = env.replace("+rocm7.1", "+rocm6.4")
    assert problems(judged(tmp_path, older + passed, "c.txt")).get("torch.rocm-mismatch") == "warn"


def test_a_windows_build_for_another_target_run_under_the_override_is_one_verdict(tmp_path: Path) -> None:
    """ggml-org/llama.cpp#6509: a gfx1103 on native Windows (`set PATH=%HIP_PATH%\\bin`), llama.cpp built with
    -DAMDGPU_TARGETS=gfx1100 and `set HSA_OVERRIDE_GFX_VERSION=11.0.0`: gpu.arch-unsupported fails because Windows
    does not read the override, so the override is that verdict's reason, not a second warning. Derived look-alike:
    the same report without the build line (nothing fails on the override) keeps gpu.override-mismatch's warning."""
    head = ("I am using a gfx1103 and try to run llama.cpp on Windows.\n"
            "* created environment variable `set HSA_OVERRIDE_GFX_VERSION=11.0.0`\n"
            "set PATH=%HIP_PATH%\\bin;%PATH%\n")
    build = "cmake -G Ninja -DAMDGPU_TARGETS=gfx1100 -DLLAMA_HIPBLAS=ON ..\n"
    found = judged(tmp_path, head + build)
    assert problems(found) == {"gpu.arch-unsupported": "fail"}
    assert found["gpu.override-mismatch"][0].severity == Severity.INFO
    assert problems(judged(tmp_path, head, "b.txt")).get("gpu.override-mismatch") == "warn"


def test_a_programs_own_target_list_refusing_the_gpu_is_no_second_support_warning(tmp_path: Path) -> None:
    """elixir-nx/xla#63: EXLA's XLA logs 'StreamExecutor ROCM device (0) is of unsupported AMDGPU version : gfx1100.
    The supported AMDGPU versions are gfx900, gfx906, gfx908, gfx90a, gfx1030.' on a host with ROCm 5.6.0: the
    program's build lacks the GPU (log.unsupported-gpu-target), and 'not on AMD's list for 5.6.0, but it usually
    works' is context beside it. Derived look-alikes: the same host without XLA's line keeps the warning; XLA's line
    for another GPU's target does not quiet it."""
    host = "ROCM_PATH=/opt/rocm-5.6.0\nI have an AMD Radeon RX 7900 XTX.\n"
    xla = ("18:10:28.124 [info] StreamExecutor ROCM device (0) is of unsupported AMDGPU version : {gfx}. The supported "
           "AMDGPU versions are gfx900, gfx906, gfx908, gfx90a, gfx1030.\n")
    found = judged(tmp_path, host + xla.format(gfx="gfx1100"))
    assert problems(found) == {"log.unsupported-gpu-target": "fail"}
    assert found["gpu.arch-unsupported"][0].severity == Severity.INFO
    assert problems(judged(tmp_path, host, "b.txt")).get("gpu.arch-unsupported") == "warn"
    assert problems(judged(tmp_path, host + xla.format(gfx="gfx1101"), "c.txt")).get("gpu.arch-unsupported") == "warn"


def test_a_host_named_by_its_count_of_amd_gpus_is_judged(tmp_path: Path) -> None:
    """bottlerocket-os/bottlerocket-kernel-kit#326 ('successfully launched it on hardware with 8 AMD GPUs') and
    BLAST-WarpX/warpx#4594 ('on the 8 AMD-GPU node using exactly 8 MPI ranks'): the host's GPU count, no problem.
    Derived look-alikes: a count without 'on'/'with', a count the host lacks or means to buy, an NVIDIA count."""
    for text in ("Built a custom AMI and successfully launched it on hardware with 8 AMD GPUs.\n",
                 "i get these warning on the 8 AMD-GPU node using exactly 8 MPI ranks:\n"):
        found = judged(tmp_path, text)
        assert problems(found) == {} and "8×" in found["gpu.detected"][0].title
    for n, other in enumerate(("We need 8 AMD GPUs for this.\n", "It runs without 8 AMD GPUs.\n",
                               "on a node with 8 AMD GPUs would be nice, I could buy them\n",
                               "on hardware with 8 NVIDIA GPUs.\n")):
        read = _host_if_read(tmp_path, other, f"o{n}.txt")
        assert read is None or not read.gpus


def test_a_finished_sglang_gsm8k_benchmark_and_a_built_binary_that_runs_are_runs_on_the_gpu(tmp_path: Path) -> None:
    """sgl-project/sglang#12819 (the gsm8k block 'Accuracy: 0.000 / Invalid: 1.000 / Latency: 80.200 s / Output
    throughput: 8420.568 token/s': the server generated, a wrong-answer rate is no setup fault) and
    ggml-org/llama.cpp#5966 ('The resulting binary did not crash for me, the build seems fine.'). Derived
    look-alikes: the block without its throughput line, a binary that runs 'but only on the CPU', 'if the resulting
    binary runs'."""
    block = "Accuracy: 0.000\nInvalid: 1.000\nLatency: 80.200 s\nOutput throughput: 8420.568 token/s\n"
    built = "The resulting binary did not crash for me, the build seems fine.\n"
    _ran_on_the_gpu(tmp_path, block, "Accuracy: 0.000\nInvalid: 1.000\nLatency: 80.200 s\n")
    _ran_on_the_gpu(tmp_path, built, "The resulting binary runs, but only on the CPU.\n",
                    "I do not know if the resulting binary runs.\n", "The resulting binary crashed.\n")


def test_inductors_rocm_backend_on_a_stack_is_a_rocm_torch(tmp_path: Path) -> None:
    """pytorch/pytorch#143687: py-spy's stack through 'ensure_dll_loaded (torch/_inductor/codegen/rocm/
    rocm_benchmark_request.py:136)' (Inductor's CK backend, chosen only when torch.version.hip is set): the torch
    that ran is a ROCm build. Derived look-alikes: the path named in prose, or Inductor's CUDA backend's frame."""
    stack = ("    compile (torch/_inductor/codecache.py:3187)\n"
             "    ensure_dll_loaded (torch/_inductor/codegen/rocm/rocm_benchmark_request.py:136)\n")
    found = judged(tmp_path, stack)
    assert problems(found) == {} and found["torch.not-rocm-build"][0].severity == Severity.OK
    for n, other in enumerate(("See torch/_inductor/codegen/rocm/rocm_benchmark_request.py for the code.\n",
                               stack.replace("codegen/rocm/rocm_", "codegen/cuda/cuda_"))):
        read = _host_if_read(tmp_path, other, f"o{n}.txt")
        assert read is None or read.torch is None


def test_ollamas_kfd_refusal_after_the_amd_card_was_replaced_by_an_nvidia_one_is_no_permission_fault(
        tmp_path: Path) -> None:
    """ollama/ollama#2392: 'Radeon card detected, but permissions not set up properly' and 'I had a firepro w7100
    but some days ago , i removed it and now i am using an nvidia 3060': the amdgpu module stayed loaded, there is
    no AMD GPU to give access to. Derived look-alikes: the error alone, or beside an AMD card kept, is the fail."""
    err = ("Error: unable to initialize llm library Radeon card detected, but permissions not set up properly.  "
           "Either run ollama as root, or add you user account to the render group.\n")
    said = "I had a firepro w7100 but some days ago , i removed it and now i am using an nvidia 3060.\n"
    found = judged(tmp_path, err + said)
    assert problems(found) == {}
    assert found["perm.kfd-access"][0].severity == Severity.INFO
    assert problems(judged(tmp_path, err, "b.txt")) == {"perm.kfd-access": "fail", "log.kfd-permission-denied": "fail"}
    kept = "I had a firepro w7100 and now i am also using an nvidia 3060.\n"
    assert problems(judged(tmp_path, err + kept, "c.txt")).get("perm.kfd-access") == "fail"
    swapped = "I replaced my Radeon RX 580 with an RTX 3060 last week.\n"
    assert problems(judged(tmp_path, err + swapped, "d.txt")) == {}


def test_a_programs_device_0_being_the_discrete_gpu_makes_the_visible_igpu_information(tmp_path: Path) -> None:
    """invoke-ai/InvokeAI#9490: 'Using torch device: [AMD Radeon RX 7900 XTX (cuda:0), AMD Radeon 760M Graphics
    (cuda:1)]' and nothing failing: the default device is the dGPU. Derived look-alikes: the iGPU as cuda:0, or the
    same list beside a segfault, keep the warning."""
    line = "INFO --> Using torch device: [AMD Radeon RX 7900 XTX (cuda:0), AMD Radeon 760M Graphics (cuda:1)]\n"
    found = judged(tmp_path, line)
    assert problems(found) == {} and found["gpu.igpu-visible"][0].severity == Severity.INFO
    swapped = "INFO --> Using torch device: [AMD Radeon 760M Graphics (cuda:0), AMD Radeon RX 7900 XTX (cuda:1)]\n"
    assert problems(judged(tmp_path, swapped, "b.txt")).get("gpu.igpu-visible") == "warn"
    crashed = line + "Segmentation fault (core dumped)\n"
    assert problems(judged(tmp_path, crashed, "c.txt")).get("gpu.igpu-visible") in ("warn", "fail")


def test_conda_forges_hip_aborting_in_hiprtc_is_two_rocm_stacks_mixed(tmp_path: Path) -> None:
    """openmm/openmm#4675: ':0:/home/conda/feedstock_root/build_artifacts/hip_1718643748184/work/clr/hipamd/src/
    hiprtc/hiprtcInternal.hpp:105 : ... Unable to add internal header': conda-forge's HIP 6.0 hipRTC and comgr
    loaded beside the system's ROCm (hiding them restored HIP). Derived look-alikes: the same abort from a HIP that
    is not conda-forge's, or conda-forge's HIP with another message, are not read as the mix."""
    line = (":0:/home/conda/feedstock_root/build_artifacts/hip_1718643748184/work/clr/hipamd/src/hiprtc/"
            "hiprtcInternal.hpp:105 : 1162859498287 us: [pid:661320 tid:0x7f61459e7740] Unable to add internal header\n"
            "Aborted (core dumped)\n")
    _the_one_fail(tmp_path, line, "rocm.multiple-versions", "conda-forge")
    for n, other in enumerate((line.replace("/home/conda/feedstock_root/build_artifacts/hip_1718643748184/work",
                                            "/long_pathname_so_that_rpms_can_package_the_debug_info/src/external"),
                               line.replace("Unable to add internal header", "Error in hiprtc: unable to compile"))):
        assert "rocm.multiple-versions" not in _problems_if_read(tmp_path, other, f"o{n}.txt")


def test_an_invalid_image_on_a_gpu_run_through_an_override_is_the_builds_missing_target(tmp_path: Path) -> None:
    """patientx/ComfyUI-Zluda#431: wheels built for gfx1030 and gfx1032 on an RX 6750 XT (gfx1031): 'HIP error: device
    kernel image is invalid' (hipErrorInvalidImage). HIP refused the code the build has: the build lacks the target
    (torch.arch-missing), which the override does not answer (a missing override shows as hipErrorNoBinaryForGpu or
    'invalid device function'). Derived look-alikes: the same GPU with 'invalid device function' stays
    gpu.override-needed; the invalid image with the override set, or on a gfx1100 (no override target), is no
    torch.arch-missing."""
    error = ("HIP error: device kernel image is invalid\nSearch for `hipErrorInvalidImage' in "
             "https://rocm.docs.amd.com/projects/HIP/en/latest/index.html for more information.\n")
    text = 'Getting this error on 1031 (6750xt) "CLIPTextEncode\n' + error
    found = judged(tmp_path, text)
    assert problems(found) == {"torch.arch-missing": "fail", "log.hip-invalid-image": "fail"}
    assert "gfx1031" in found["torch.arch-missing"][0].title
    function = text.replace(error, "HIP error: invalid device function\n")
    got = problems(judged(tmp_path, function, "b.txt"))
    assert got.get("gpu.override-needed") == "fail" and "torch.arch-missing" not in got
    overridden = "export HSA_OVERRIDE_GFX_VERSION=10.3.0\n" + text
    assert "torch.arch-missing" not in problems(judged(tmp_path, overridden, "c.txt"))
    rdna3 = text.replace("1031 (6750xt)", "my RX 7900 XTX")
    assert "torch.arch-missing" not in problems(judged(tmp_path, rdna3, "d.txt"))


def test_a_gpu_family_no_rocm_release_listed_is_unsupported_by_a_release_older_than_the_data(tmp_path: Path) -> None:
    """ROCm/tensorflow-upstream#1398: '- ROCm/MIOpen version: 4.2.0' beside '- GPU model and memory: gfx1010  AMD
    Radeon RX 5600 XT': ROCm 4.2 is older than the data's GPU lists, but no ROCm release ever listed an RDNA1 GPU
    (2.x-4.x named GFX7/8/9 and MI100; 5.6 and later no gfx101x): unsupported ('ROCm didnot support gfx1010').
    Derived look-alikes: an RDNA2 card (gfx1030, listed from ROCm 5.0) or a GFX8 card (gfx803, listed by 2.x-4.x) on
    the same ROCm 4.2 is not judged; the RX 5600 XT that the report shows running (rocminfo lists it, nothing
    fails) is not called unsupported."""
    tmpl = "- ROCm/MIOpen version: 4.2.0\n- GPU model and memory: {gpu} and 8.5 GB\n"
    _the_one_fail(tmp_path, tmpl.format(gpu="gfx1010  AMD Radeon RX 5600 XT"), "gpu.arch-unsupported", "4.2.0")
    for n, gpu in enumerate(("gfx1030  AMD Radeon RX 6800 XT", "gfx803  AMD Radeon RX 580")):
        assert "gpu.arch-unsupported" not in problems(judged(tmp_path, tmpl.format(gpu=gpu), f"o{n}.txt"))
    rocminfo = ("ROCk module is loaded\nHSA Agents\n*******\nAgent 2\n*******\n  Name:                    gfx1010\n"
                "  Marketing Name:          AMD Radeon RX 5600 XT\n  Device Type:             GPU\n")
    ran = tmpl.format(gpu="gfx1010  AMD Radeon RX 5600 XT") + rocminfo
    assert "gpu.arch-unsupported" not in problems(judged(tmp_path, ran, "ran.txt"))


def test_hip_unable_to_query_an_hsa_attribute_of_its_release_is_two_rocm_releases_mixed(tmp_path: Path) -> None:
    """ROCm/legacy-rocm-build#5924: HIP 7.2's 'AMD_LOG_LEVEL=4' log ':2:rocdevice.cpp :1076: ...
    HSA_AMD_AGENT_INFO_SCRATCH_LIMIT_MAX cannot be queried!' for every agent, then 'populateOCLDeviceConstants
    failed': the HSA runtime it loaded predates the attribute (several ROCm releases installed; one release alone
    fixed it). Derived look-alikes: the same HIP log without the line (a healthy start), and the attribute named in
    code or prose outside HIP's log, give no rocm.multiple-versions problem."""
    head = (":3:rocdevice.cpp            :415 : 11623516219 us: [pid:307076 tid: 0x7f195a24d400] Initalizing runtime "
            "stack, Enumerated GPU agents = 3\n:3:comgrctx.cpp             :126 : 11623516320 us: [pid:307076 tid: "
            "0x7f195a24d400] Loaded COMGR library version 3.0.\n")
    line = (":2:rocdevice.cpp            :1076: 11623516337 us: [pid:307076 tid: 0x7f195a24d400] "
            "HSA_AMD_AGENT_INFO_SCRATCH_LIMIT_MAX cannot be queried!\n")
    found = judged(tmp_path, head + line)
    assert problems(found).get("rocm.multiple-versions") == "fail"
    assert "older ROCm release" in next(f for f in found["rocm.multiple-versions"] if f.severity == Severity.FAIL).title
    for n, other in enumerate((head, "hsa_agent_get_info(agent, HSA_AMD_AGENT_INFO_SCRATCH_LIMIT_MAX, &v);\n" + head,
                               "Why would HSA_AMD_AGENT_INFO_SCRATCH_LIMIT_MAX cannot be queried! appear?\n" + head)):
        assert "rocm.multiple-versions" not in _problems_if_read(tmp_path, other, f"o{n}.txt")


def test_a_rocm_older_than_the_overrides_isa_with_no_device_enumerated_is_unsupported(tmp_path: Path) -> None:
    """FoldingAtHome/containers#36: a Radeon 780M (gfx1103, which runs only as gfx1100 under the override) in an
    image 'using ROCm 5.0.0', which predates every release that lists gfx1100 (5.7), and OpenCL lists
    'Number of devices: 0': no override can help, gpu.arch-unsupported fails. Derived look-alikes: the same report
    on ROCm 6.1.0 (which lists gfx1100: the override decides, as before), and without the empty device list (no
    failure seen: the override is still the open question)."""
    gpu = "The container is using ROCm 5.0.0.\n- GPU: AMD Radeon 780M (Phoenix/Hawk Point APU)\n"
    empty = "Platform Name: AMD Accelerated Parallel Processing\nNumber of devices: 0\n"
    found = judged(tmp_path, gpu + empty)
    assert problems(found) == {"gpu.arch-unsupported": "fail", "log.opencl-no-devices": "fail"}
    assert "ROCm 5.0.0" in found["gpu.arch-unsupported"][0].title
    newer = gpu.replace("5.0.0", "6.1.0")
    assert "gpu.arch-unsupported" not in problems(judged(tmp_path, newer + empty, "b.txt"))
    assert "gpu.arch-unsupported" not in problems(judged(tmp_path, gpu, "c.txt"))


def test_koboldcpp_rocms_windows_build_without_the_gpus_target_is_unsupported(tmp_path: Path) -> None:
    """YellowRoseCx/koboldcpp-rocm#116: 'Welcome to KoboldCpp - Version 1.85.yr0-ROCm-Build2' on an RX 9070 XT
    (gfx1201) stops at 'ggml_cuda_init: failed to initialize ROCm: no ROCm-capable device is detected' while Vulkan
    works: the Windows build's own target list (matrices/apps.toml) lacks gfx1201. Derived look-alikes: the same
    report on an RX 7900 XTX (gfx1100, on the list), without the failure line, and from a release after the data
    (1.110)."""
    gpu = "Same here with my 9070 XT on koboldcpp_rocm.exe. The GUI shows my GPU as gfx1201.\n"
    fail = "ggml_cuda_init: failed to initialize ROCm: no ROCm-capable device is detected\n"
    banner = ("Welcome to KoboldCpp - Version 1.85.yr0-ROCm-Build2\n"
              "Initializing dynamic library: koboldcpp_hipblas.dll\n")
    found = judged(tmp_path, gpu + fail + banner)
    assert problems(found).get("gpu.arch-unsupported") == "fail"
    assert "KoboldCpp-ROCm" in found["gpu.arch-unsupported"][0].title
    listed = gpu.replace("9070 XT", "7900 XTX").replace("gfx1201", "gfx1100")
    assert "gpu.arch-unsupported" not in problems(judged(tmp_path, listed + fail + banner, "b.txt"))
    assert "gpu.arch-unsupported" not in problems(judged(tmp_path, gpu + banner, "c.txt"))
    later = banner.replace("1.85.", "1.110.")
    assert "gpu.arch-unsupported" not in problems(judged(tmp_path, gpu + fail + later, "d.txt"))


def test_xlas_rejected_device_memory_query_is_a_kernel_driver_older_than_the_user_space(tmp_path: Path) -> None:
    """ROCm/tensorflow-upstream#2289: 'ROCM 6.0 and tensorflow 2.14 still do not work on MI250X' with XLA's
    'failed to query device memory info: HIP_ERROR_InvalidValue': the host amdgpu (5.16.9.22.20, ROCm 5.2 era) was
    older than the container's ROCm, so rocm.kmd-mismatch fails. Derived look-alikes: the same words without XLA's
    line, HSA's own memory-avail line (a warning that names no cause), and XLA's line beside a shown amdgpu-dkms
    (compared by version instead) do not give this verdict."""
    said = "I also confirm that ROCM 6.0 and tensorflow 2.14 still do not work on MI250X, the same error pops up:\n"
    xla = ("2024-01-10 20:25:42.726550: E tensorflow/compiler/xla/stream_executor/rocm/rocm_driver.cc:1294] failed "
           "to query device memory info: HIP_ERROR_InvalidValue\n")
    found = judged(tmp_path, said + xla)
    assert problems(found) == {"rocm.kmd-mismatch": "fail", "log.hip-invalid-argument": "fail"}
    assert "older" in found["rocm.kmd-mismatch"][0].title
    assert "rocm.kmd-mismatch" not in _problems_if_read(tmp_path, said, "b.txt")
    hsa = ":1:rocdevice.cpp :2352: 0000000000 us: [pid:1 tid:0x1] HSA_AMD_AGENT_INFO_MEMORY_AVAIL query failed.\n"
    assert "rocm.kmd-mismatch" not in _problems_if_read(tmp_path, said + hsa, "c.txt")
    dkms = "$ dkms status\namdgpu/6.3.6-1697589.22.04, 5.15.0-91-generic, x86_64: installed\n"
    got = judged(tmp_path, said + dkms + xla, "d.txt")
    assert not any("older" in f.title for f in got.get("rocm.kmd-mismatch", []))


def test_torchvisions_ops_missing_under_nix_with_a_rocm_wheel_are_system_libraries_shadowing_it(tmp_path: Path) -> None:
    """utensils/comfyui-nix#46: `nix run github:utensils/comfyui-nix#rocm`, 'pytorch version: 2.10.0+rocm7.1' and
    'RuntimeError: operator torchvision::nms does not exist': /run/opengl-driver/lib (nixpkgs' libamdhip64.so.6)
    shadowed the wheel's ROCm 7.1 libraries, so rocm.system-libs-shadow-wheel fails. Derived look-alikes: the same
    log off Nix, under Nix without the nms line, with nixpkgs' own torch (no +rocm tag), or beside a listed
    torchvision version (a companion question) do not give this verdict."""
    nix = "```\nnix run github:utensils/comfyui-nix#rocm -- --enable-manager\n```\n"
    log = ("pytorch version: 2.10.0+rocm7.1\nAMD arch: gfx1100\nDevice: cuda:0 AMD Radeon RX 7900 XTX : native\n"
           '    @torch.library.register_fake("torchvision::nms")\n'
           "RuntimeError: operator torchvision::nms does not exist\n")
    _the_one_fail(tmp_path, nix + log, "rocm.system-libs-shadow-wheel", "shadowed")
    _the_one_fail(tmp_path, "- NixOS 25.11 unstable, kernel 6.19.10\n" + log,
                  "rocm.system-libs-shadow-wheel", "shadowed")
    shadow = "rocm.system-libs-shadow-wheel"
    assert shadow not in _problems_if_read(tmp_path, log, "b.txt")
    assert shadow not in _problems_if_read(tmp_path, nix + log.split("    @torch")[0], "c.txt")
    assert shadow not in _problems_if_read(tmp_path, nix + log.replace("+rocm7.1", ""), "d.txt")
    listed = "- torchvision: 0.25.0\n"
    assert shadow not in _problems_if_read(tmp_path, nix + listed + log, "e.txt")


def test_a_plain_segfault_after_missing_kernels_is_a_warning_beside_the_cause(tmp_path: Path) -> None:
    """fixtures/README.md judging rule 9. JuliaGPU/AMDGPU.jl#314: rocBLAS's 'No paths matched
    .../library/*gfx1031*co' then Julia's 'signal (11): Segmentation fault': the missing kernels are the fail, the
    plain segfault that follows is their consequence, a warning (as for the gfx1152/gfx1150 llama.cpp segfaults).
    Derived look-alikes: a crash whose site is ROCm's runtime library fails; the segfault alone stays a warning."""
    missing = ("rocBLAS warning: No paths matched /home/leios/.julia/artifacts/1fd17828/lib/rocblas/library/"
               "*gfx1031*co. Make sure that ROCBLAS_TENSILE_LIBPATH is set correctly.\n")
    crash = "[5708] signal (11): Segmentation fault\nSegmentation fault (core dumped)\n"
    assert problems(judged(tmp_path, missing + crash)) == {"log.no-binary-for-gpu": "fail", "log.segfault": "warn"}
    in_runtime = "Thread 1 received signal SIGSEGV, Segmentation fault in /opt/rocm/lib/libamdhip64.so.6\n"
    assert problems(judged(tmp_path, missing + in_runtime, "b.txt")).get("log.segfault") == "fail"
    assert problems(judged(tmp_path, crash, "c.txt")) == {"log.segfault": "warn"}


def test_the_causes_own_known_line_is_listed_at_its_signatures_severity(tmp_path: Path) -> None:
    """fixtures/README.md judging rule 8. lemonade-sdk/lemonade#2799: 'rocminfo inside of docker shows Permission
    denied for /dev/kfd' is perm.kfd-access with log.kfd-permission-denied fail beside it (as in the ollama
    render-group fixtures); unslothai/unsloth#6175: 'HIP_VISIBLE_DEVICES=1 ROCR_VISIBLE_DEVICES=1' with llama.cpp's
    'no ROCm-capable device is detected' is env.visible-devices with log.hip-error-no-device fail beside it.
    Derived look-alikes: /dev/dri alone denied is neither; HIP's mask alone leaves only the no-device line."""
    kfd = "rocminfo inside of docker shows Permission denied for /dev/kfd and /dev/dri\n"
    assert problems(judged(tmp_path, kfd)) == {"perm.kfd-access": "fail", "log.kfd-permission-denied": "fail"}
    assert problems(judged(tmp_path, kfd.replace("/dev/kfd and ", ""), "b.txt")) == {}
    masks = ("**Environment:** 2× Radeon AI PRO R9700 (gfx1201), ROCm 7.1.1\n`llama-server` logs `ggml_cuda_init: "
             "failed to initialize ROCm: no ROCm-capable device is detected`.\nConfirmed: `HIP_VISIBLE_DEVICES=1 "
             "ROCR_VISIBLE_DEVICES=1` gives no device\n")
    assert problems(judged(tmp_path, masks, "c.txt")) == {"env.visible-devices": "fail",
                                                          "log.hip-error-no-device": "fail"}
    alone = masks.replace(" ROCR_VISIBLE_DEVICES=1", "")
    assert problems(judged(tmp_path, alone, "d.txt")) == {"log.hip-error-no-device": "fail"}


def test_a_missing_firmware_line_before_a_failed_init_stays_information(tmp_path: Path) -> None:
    """fixtures/README.md judging rule 8. freebsd/drm-kmod-firmware#27: FreeBSD's 'could not load firmware image
    'amdgpu/navy_flounder_sos.bin'' then 'sw_init of IP block <psp> failed -2': driver.firmware-missing fails and
    the firmware line itself is information (as in the PSP TOC fixture). Derived look-alike: the firmware line
    without a failed init is no problem."""
    fw = "May 15 22:34:16 Home kernel: drmn0: could not load firmware image 'amdgpu/navy_flounder_sos.bin'\n"
    init = ("May 15 22:34:16 Home kernel: [drm ERROR :amdgpu_device_ip_init] sw_init of IP block <psp> failed -2\n"
            "May 15 22:34:16 Home kernel: drmn0: Fatal error during GPU init\n")
    found = judged(tmp_path, fw + init)
    assert problems(found) == {"driver.firmware-missing": "fail", "log.amdgpu-init-failed": "fail"}
    assert [f.severity for f in found["log.firmware-load-failed"]] == [Severity.INFO]
    assert problems(judged(tmp_path, fw, "b.txt")) == {}


def test_no_runtime_failed_beside_kfd_refusing_the_gpu_for_atomics(tmp_path: Path) -> None:
    """fixtures/README.md judging rule 10. ROCm/legacy-rocm-build#804: rocminfo's 'Call returned 4104' with kfd's
    'skipped device 1002:67c4, PCI rejects atomics': the atomics are the cause, rocm.runtime-failed would restate
    it. Derived look-alike: the failed rocminfo without kfd's reason is rocm.runtime-failed."""
    rocminfo = ("$ rocminfo\nROCk module is loaded\nhsa api call failure at line 900, file: /data/jenkins_workspace/"
                "sandbox-centos/rocm-rel-2.1/rocm-2.1-96-20190201/centos/rocminfo/rocminfo.cc. Call returned 4104\n")
    kfd = "[    2.562957] kfd kfd: skipped device 1002:67c4, PCI rejects atomics\n"
    found = problems(judged(tmp_path, rocminfo + kfd))
    assert found.get("driver.pcie-atomics") == "fail" and "rocm.runtime-failed" not in found
    assert problems(judged(tmp_path, rocminfo, "b.txt")).get("rocm.runtime-failed") == "fail"


def test_ubuntu_25_10_under_rocm_7_2_is_an_os_warning(tmp_path: Path) -> None:
    """fixtures/README.md judging rule 11. ROCm/legacy-rocm-build#6383 (hipDF) and ROCm/ROCm#5905 (DKMS on 6.18.7):
    Ubuntu 25.10 with ROCm 7.2.x is not on AMD's list for the release, a warning whether or not the thread discusses
    it. Derived look-alikes: Ubuntu 24.04 with the same ROCm, or 25.10 without an installed ROCm, are no problem."""
    text = ("### Operating System\n\nUbuntu 25.10 (Questing Quokka)\n\n### GPU\n\nAMD Radeon RX 9060 XT\n\n"
            "### ROCm Version\n\nROCm 7.2.4\n")
    assert problems(judged(tmp_path, text)) == {"os.not-supported": "warn"}
    noble = text.replace("25.10 (Questing Quokka)", "24.04.3 LTS (Noble Numbat)")
    assert problems(judged(tmp_path, noble, "b.txt")) == {}
    assert problems(judged(tmp_path, text.replace("ROCm 7.2.4", "n/a"), "c.txt")) == {}


def test_a_torch_lacking_the_target_is_a_warning_while_torch_itself_never_loaded(tmp_path: Path) -> None:
    """ROCm/TheRock#1167: a Radeon 860M (gfx1152) with the torch from TheRock's gfx1151 index, whose `import torch`
    stops on 'Error loading "...\\torch\\lib\\fbgemm.dll" or one of its dependencies' (AMD: install the MSVC build
    tools): no kernel ran, so the wheel's missing gfx1152 code is likely, not shown (warn); the DLL is the fail.
    Derived look-alikes: the same install where torch loads keeps torch.arch-missing a fail; another package's DLL
    (onnxruntime's) failing does not say torch never loaded."""
    host = ("AMD Ryzen AI 7 350 w/ Radeon 860M, 2000MHz, 8 cores, 16 logical processors\n"
            "1. `python -m pip install --index-url https://d2awnip2yjpvqn.cloudfront.net/v2/gfx1151/ torch`\n")
    dll = ('The specified module could not be found. Error loading "C:\\venv\\Lib\\site-packages\\{pkg}\\{lib}" or '
           'one of its dependencies.\n')
    found = judged(tmp_path, host + dll.format(pkg="torch", lib="lib\\fbgemm.dll"))
    assert problems(found) == {"log.missing-shared-library": "fail", "torch.arch-missing": "warn"}
    assert "gfx1152" in found["torch.arch-missing"][0].title
    assert problems(judged(tmp_path, host, "b.txt")) == {"torch.arch-missing": "fail"}
    other = dll.format(pkg="onnxruntime", lib="capi\\onnxruntime_providers_shared.dll")
    assert problems(judged(tmp_path, host + other, "c.txt")).get("torch.arch-missing") == "fail"


def test_dkms_consult_line_after_a_failure_names_the_module_for_the_breakage_table(tmp_path: Path) -> None:
    """ROCm/ROCm#449: Ubuntu 16.04's HWE moved to 4.15.0-24-generic and DKMS printed 'Error! Bad return status for
    module build on kernel: 4.15.0-24-generic (x86_64)' then 'Consult /var/lib/dkms/amdgpu/1.8-151/build/make.log',
    quoted with '> ': the Consult line names rock-dkms 1.8, whose breakage row (kernels 4.15 and newer) is the cause.
    Derived look-alikes: the same failure on 4.13 (below the row) is a failed build only; a Consult line with no
    failure before it names nothing; another release's tree (1.7-...) does not match the 1.8 row."""
    text = ("> /etc/kernel/postinst.d/dkms:\n"
            "> Error! Bad return status for module build on kernel: 4.15.0-24-generic (x86_64)\n"
            "> Consult /var/lib/dkms/amdgpu/1.8-151/build/make.log for more information.\n")
    found = judged(tmp_path, text)
    assert problems(found) == {"driver.dkms-breakage": "fail", "driver.dkms-failed": "fail",
                               "log.dkms-build-error": "fail"}
    assert found["driver.dkms-breakage"][0].title.startswith("rock-dkms 1.8-151")
    older = text.replace("4.15.0-24", "4.13.0-45")
    assert "driver.dkms-breakage" not in problems(judged(tmp_path, older, "b.txt"))
    alone = "> Consult /var/lib/dkms/amdgpu/1.8-151/build/make.log for more information.\n"
    assert "driver.dkms-breakage" not in _problems_if_read(tmp_path, alone, "c.txt")
    other = text.replace("1.8-151", "1.7-137")
    assert "driver.dkms-breakage" not in problems(judged(tmp_path, other, "d.txt"))


def test_an_os_the_stated_release_does_not_list_warns_beside_another_cause(tmp_path: Path) -> None:
    """fixtures/README.md judging rule 14 (ROCm/legacy-rocm-build#3840, a W7600): the template's 'Ubuntu 24.04.1'
    with its 'ROCm Version: ROCm 5.7.1' is an OS that release does not list: a warning beside the thread's cause,
    never a fail. Derived look-alikes: Ubuntu 22.04.3, which 5.7.1 lists, gives nothing; no ROCm version, nothing."""
    text = ('### Operating System\n\nOS: NAME="Ubuntu" VERSION="24.04.1 LTS (Noble Numbat)"\n\n'
            "### ROCm Version\n\nROCm 5.7.1\n")
    assert problems(judged(tmp_path, text)).get("os.not-supported") == "warn"
    listed = text.replace("24.04.1 LTS (Noble Numbat)", "22.04.3 LTS (Jammy Jellyfish)")
    assert "os.not-supported" not in _problems_if_read(tmp_path, listed, "b.txt")
    unstated = text.split("### ROCm Version")[0]
    assert "os.not-supported" not in _problems_if_read(tmp_path, unstated, "c.txt")


def test_a_no_code_error_on_a_gpu_that_runs_only_through_an_override_names_the_override(tmp_path: Path) -> None:
    """fixtures/README.md judging rule 23. AshleyYakeley/stable-diffusion-rocm#9: a laptop's 'Radeon RX 6600M'
    (gfx1032) in prose, then hipErrorNoBinaryForGpu inside the container with no override set: the override is named
    beside the error, a fail, whether or not the thread tried it (as in the same repository's #4, a Navi 22).
    Derived look-alikes: an RX 6800 (gfx1030, native code) gets no override; a report that ran with the override and
    kept the error gets none; the GPU named with no error gets nothing."""
    text = ("I'm using a gaming laptop running Fedora 36 with a Ryzen 7 5800H CPU and a Radeon RX 6600M GPU.\n\n"
            "```\n/dockerx# python scripts/txt2img.py --outdir /output --plms\n"
            '"hipErrorNoBinaryForGpu: Unable to find code object for all current devices!"\n'
            "Aborted (core dumped)\n```\n")
    found = judged(tmp_path, text)
    assert problems(found) == {"gpu.override-needed": "fail", "log.no-binary-for-gpu": "fail"}
    assert "10.3.0" in found["gpu.override-needed"][0].title
    native = problems(judged(tmp_path, text.replace("RX 6600M", "RX 6800"), "b.txt"))
    assert native == {"log.no-binary-for-gpu": "fail"}
    tried = text.replace("```\n/dockerx", "I run it with HSA_OVERRIDE_GFX_VERSION=10.3.0 set.\n```\n/dockerx")
    assert problems(judged(tmp_path, tried, "c.txt")) == {"log.no-binary-for-gpu": "fail"}
    assert problems(judged(tmp_path, text.split("```")[0], "d.txt")) == {}


def test_docker_missing_dev_kfd_under_wsl_fails_beside_another_cause(tmp_path: Path) -> None:
    """fixtures/README.md judging rule 24. ROCm/ROCm#3413: an RX 7600 XT under WSL that the WSL runtime rejects
    ('ROCR: unsupported GPU'), and docker's 'adding custom device "/dev/kfd": no such file or directory': the
    container run broke for a reason of its own (WSL has /dev/dxg, never /dev/kfd), so container.wsl-dxg-device and
    the line's log.kfd-device-missing fail beside the unsupported GPU. Derived look-alikes: the same report without
    the docker line gets no container finding; the docker line on a host not said to be WSL is no WSL advice."""
    wsl = 'Using WSL\nNAME="Ubuntu"\nVERSION="22.04.3 LTS (Jammy Jellyfish)"\n\nGPU: 7600XT\n\n'
    rocr = ("when I run `rocminfo`\n`ROCR: unsupported GPU`\n`hsa api call failure at: ./sources/wsl/tools/rocminfo/"
            "rocminfo.cc:1087\nCall returned HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the "
            "necessary resources.`\n")
    docker = ("pulled image but upon running...\n`docker: Error response from daemon: error gathering device "
              'information while adding custom device "/dev/kfd": no such file or directory.`\n')
    assert problems(judged(tmp_path, wsl + docker + rocr)) == {
        "container.wsl-dxg-device": "fail", "log.kfd-device-missing": "fail", "gpu.arch-unsupported": "fail",
        "log.unsupported-gpu-target": "fail", "log.hsa-out-of-resources": "fail"}
    alone = problems(judged(tmp_path, wsl + rocr, "b.txt"))
    assert "container.wsl-dxg-device" not in alone and "log.kfd-device-missing" not in alone
    native = problems(judged(tmp_path, wsl.replace("Using WSL\n", "") + docker, "c.txt"))
    assert native == {"log.kfd-device-missing": "fail"}


def test_an_igpu_known_from_the_cpus_name_alone_is_a_warning(tmp_path: Path) -> None:
    """fixtures/README.md judging rule 25. ROCm/ROCm#3401: 'CPU: AMD Ryzen 5 3400G with Radeon Vega Graphics' beside
    'GPU: AMD Radeon RX 6600', the error only in a screenshot: the iGPU is likely visible (warn), not shown breaking
    the run. Derived look-alike: the report saying that hiding the iGPU made it work is the fail."""
    text = ("OS: Ubuntu 22.04.4 LTS\n\nCPU: AMD Ryzen 5 3400G with Radeon Vega Graphics\n"
            "GPU: AMD Radeon RX 7900 XTX\n")
    assert problems(judged(tmp_path, text)).get("gpu.igpu-visible") == "warn"
    hidden = text + "Setting HIP_VISIBLE_DEVICES=0 to hide the integrated GPU fixed it, now it works.\n"
    assert problems(judged(tmp_path, hidden, "b.txt")).get("gpu.igpu-visible") == "fail"


def test_an_export_of_the_override_at_the_sessions_prompt_is_the_override_the_failing_run_had(tmp_path: Path) -> None:
    """AshleyYakeley/stable-diffusion-rocm#4 pastes a container session whose prompt is its path (`/dockerx# ...`);
    a session that runs `export HSA_OVERRIDE_GFX_VERSION=10.3.0` at its prompt and then the program that fails with
    hipErrorNoBinaryForGpu ran with the override: asking for it again would repeat what the user did (the missing
    code is the program's). Derived look-alikes: the same session without the export, the export advised in prose,
    and the export typed after the failing run keep `gpu.override-needed` fail."""
    run = ("/dockerx# python scripts/txt2img.py --outdir /output --plms\n"
           '"hipErrorNoBinaryForGpu: Unable to find code object for all current devices!"\nAborted (core dumped)\n')
    gpu = "I have a Radeon RX 6600M GPU.\n\n"
    export = "/dockerx# export HSA_OVERRIDE_GFX_VERSION=10.3.0\n"
    assert problems(judged(tmp_path, gpu + export + run)) == {"log.no-binary-for-gpu": "fail"}
    dollar = gpu + export.replace("/dockerx#", "user@box:~$") + run
    assert problems(judged(tmp_path, dollar, "b.txt")) == {"log.no-binary-for-gpu": "fail"}
    failing = {"gpu.override-needed": "fail", "log.no-binary-for-gpu": "fail"}
    assert problems(judged(tmp_path, gpu + run, "c.txt")) == failing
    advised = gpu + run + "\nYou should export HSA_OVERRIDE_GFX_VERSION=10.3.0 first.\n"
    assert problems(judged(tmp_path, advised, "d.txt")) == failing
    assert problems(judged(tmp_path, gpu + run + export, "e.txt")) == failing


def test_a_workload_out_of_memory_is_a_warning_even_when_the_run_stopped(tmp_path: Path) -> None:
    """fixtures/README.md judging rule 19 (ROCm/ROCm#4468, a QLoRA run on a 48 GB W7900 fixed by other
    TrainingArguments): the allocator's OOM on a GPU with its ordinary memory is a warning, the run having stopped
    or not. Derived look-alike: the same line on a 512 MiB carve-out is the setup's limit, a fail."""
    text = ("--> 520 output = torch.nn.functional.linear(A, F.dequantize_4bit(B, quant_state).to(A.dtype).t(), bias)\n"
            "\nOutOfMemoryError: HIP out of memory. Tried to allocate 224.00 MiB. GPU \n")
    assert problems(judged(tmp_path, text)) == {"log.gpu-out-of-memory": "warn"}
    tiny = text.replace("GPU \n", "GPU 0 has a total capacity of 512.00 MiB of which 1.00 MiB is free.\n")
    assert problems(judged(tmp_path, tiny, "b.txt")).get("log.gpu-out-of-memory") == "fail"


def test_a_vmware_guest_without_atomics_fails_only_with_a_failing_run(tmp_path: Path) -> None:
    """fixtures/README.md judging rule 20 (ROCm/ROCm#307): VMware's PCIe root ports alone make driver.pcie-atomics a
    warning (no run failed in the paste); the same guest with HIP's 'cannot be performed in the present state' or
    kfd's 'PCI rejects atomics' is the failure itself."""
    text = ("I'm trying to get use OpenCL on a GPU that's available in a VM through PCI passthrough. I'm already using "
            "PCI passthrough with this hypervisor, and the GPU shows up in dmesg and lspci:\n" + _VMWARE_LSPCI)
    assert problems(judged(tmp_path, text)) == {"driver.pcie-atomics": "warn"}
    failed = text + "RuntimeError: HIP error: the operation cannot be performed in the present state\n"
    assert problems(judged(tmp_path, failed, "b.txt")).get("driver.pcie-atomics") == "fail"


_ROCMINFO_TWO = ("ROCk module version 6.16.13 is loaded\n*******\nAgent 1\n*******\n  Name:                    gfx90a\n"
                 "  Marketing Name:          AMD Instinct MI210\n  Device Type:             GPU\n*******\nAgent 2\n"
                 "*******\n  Name:                    gfx908\n  Marketing Name:          AMD Instinct MI100\n"
                 "  Device Type:             GPU\n*** Done ***\n")


def test_a_grep_of_rocminfo_under_its_full_output_is_the_same_gpus(tmp_path: Path) -> None:
    """ROCm/ROCm#5924: a full rocminfo, then the template's 'GPU:' grep of its Name lines: the same GPUs listed again,
    not twice as many. Derived look-alike: a later listing naming another GPU is kept."""
    from rocmdoctor.parse.rocminfo import parse_rocminfo
    grep = ("GPU:\n  Name:                    gfx90a\n  Marketing Name:          AMD Instinct MI210\n"
            "      Name:                    amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-\n"
            "  Name:                    gfx908\n  Marketing Name:          AMD Instinct MI100\n")
    assert [g.gfx for g in parse_rocminfo(_ROCMINFO_TWO + grep).gpus] == ["gfx90a", "gfx908"]
    other = grep.replace("gfx908", "gfx1030").replace("MI100", "Radeon RX 6800")
    assert len(parse_rocminfo(_ROCMINFO_TWO + other).gpus) == 4


_SDK_NO_CO = (
    "tharvey@tharvey-AM5:/opt/rocm_sdk_612/docs/examples/hipcc/hello_world$ ./build.sh\n"
    " Agent name: AMD Radeon RX 7800 XT\n"
    ":1:hip_fatbin.cpp           :272 : 3169196830 us: [pid:9111  tid:0x79a41865cb80] Cannot find CO in the bundle "
    "/opt/rocm_sdk_612/lib/libmagma.so for ISA: amdgcn-amd-amdhsa--gfx1101\n"
    ":1:hip_fatbin.cpp           :125 : 3169196832 us: [pid:9111  tid:0x79a41865cb80] Missing CO for these ISAs - \n"
    ":1:hip_fatbin.cpp           :128 : 3169196833 us: [pid:9111  tid:0x79a41865cb80]      amdgcn-amd-amdhsa--gfx1036\n"
    ":1:hip_fatbin.cpp           :128 : 3169196834 us: [pid:9111  tid:0x79a41865cb80]      amdgcn-amd-amdhsa--gfx1101\n"
    ":3:hip_platform.cpp         :703 : 3169196836 us: [pid:9111  tid:0x79a41865cb80] init: Returned "
    "hipErrorNoBinaryForGpu : continue parsing remaining modules\n\n"
    "I've noticed as well looking at the above that it's trying to find binaries for the IGPU on my CPU, so I've set "
    "it only visible to the GPU with the ROCR_VISIBLE_DEVICES environment variable, but the error is the same as "
    "above, only it doesn't mention the gfx1036 anymore.\n")


def test_a_rocm_built_on_the_host_is_not_judged_by_amds_lists(tmp_path: Path) -> None:
    """fixtures/README.md judging rule 21 (lamikr/rocm_sdk_builder#246): ROCm SDK Builder's /opt/rocm_sdk_612 built for
    gfx1100 on an RX 7800 XT (gfx1101): the no-code-object line is the verdict, not AMD's 6.1.2 list (which lacks
    gfx1101, so offered the override). Derived look-alike: AMD's /opt/rocm-6.1.2 is judged by that list."""
    assert problems(judged(tmp_path, _SDK_NO_CO)) == {"log.no-binary-for-gpu": "fail"}
    amd = _SDK_NO_CO.replace("/opt/rocm_sdk_612", "/opt/rocm-6.1.2")
    assert problems(judged(tmp_path, amd, "b.txt")).get("gpu.override-needed") == "fail"


def test_an_igpu_the_report_hid_without_effect_is_information(tmp_path: Path) -> None:
    """fixtures/README.md judging rule 22 (lamikr/rocm_sdk_builder#246): 'I've set it only visible to the GPU with the
    ROCR_VISIBLE_DEVICES environment variable, but the error is the same': the iGPU is ruled out, information.
    Derived look-alikes: the same sentence without its outcome, and one where hiding it fixed the run, warn."""
    found = judged(tmp_path, _SDK_NO_CO)
    assert "gpu.igpu-visible" not in problems(found) and found["gpu.igpu-visible"][0].severity == Severity.INFO
    untold = _SDK_NO_CO.replace(", but the error is the same as above, only it doesn't mention the gfx1036 anymore",
                                "")
    assert problems(judged(tmp_path, untold, "b.txt")).get("gpu.igpu-visible") == "warn"
    fixed = _SDK_NO_CO.replace("but the error is the same as above", "and now it works")
    assert problems(judged(tmp_path, fixed, "c.txt")).get("gpu.igpu-visible") == "warn"


def test_an_apu_under_wsl_with_a_windows_driver_amd_said_lacks_it_is_unsupported(tmp_path: Path) -> None:
    """ROCm/legacy-rocm-build#4809: a Radeon 8060S (gfx1151) under WSL2 with the Windows driver 25.5.1 shows no GPU;
    AMD: 'the Radeon 8060S and other APUs are not yet supported by ROCm on WSL'. Derived look-alikes: no driver
    named, a later driver, the same lines without WSL, a Linux-style driver version (month 40), and a GPU the data
    bounds no driver for give no fail."""
    text = ("After installing the AMD GPU driver, the system fails to recognize the Radeon 8060S graphics card. "
            "Only the CPU is detected.\n\n**Environment:**\n- WSL2 version: 2.4.13.0\n"
            "- Windows version: Windows 11\n- AMDGPU driver version: 25.5.1\n- Radeon model: 8060S\n")
    _the_one_fail(tmp_path, text, "gpu.arch-unsupported", "with this Windows driver")
    adrenalin = text.replace("AMDGPU driver version: 25.5.1", "Adrenalin 25.3.1 driver")
    assert problems(judged(tmp_path, adrenalin, "a.txt")) == {"gpu.arch-unsupported": "fail"}
    for n, other in enumerate((text.replace("- AMDGPU driver version: 25.5.1\n", ""),
                               text.replace("25.5.1", "25.8.1"),
                               text.replace("- WSL2 version: 2.4.13.0\n", ""),
                               text.replace("25.5.1", "23.40.2"),
                               text.replace("8060S", "RX 7900 XTX"))):
        assert "gpu.arch-unsupported" not in problems(judged(tmp_path, other, f"other{n}.txt")), other


@pytest.mark.parametrize(("text", "rocm_torch"), [
    # ROCm/rccl-tests#16: a HIP program that is not PyTorch prints the same error name
    ("When I was testing rccl installation using the rccl-tests I get Test HIP failure common.cu:1129 "
     "'hipErrorInvalidDevice'\n", False),
    # ROCm/hip#3353: Blender's HIP log
    (":3:hip_context.cpp          :153 : 0365257343 us: [pid:19635 tid:0x7f1dcaebe580] hipInit: Returned "
     "hipErrorInvalidDevice : \nHIP hipInit: Invalid device\n", False),
    # ROCm/legacy-rocm-build#1911: the same name from torch's own warning
    ("/home/rocm-user/.local/lib/python3.8/site-packages/torch/cuda/__init__.py:88: UserWarning: HIP initialization: "
     "Unexpected error from hipGetDeviceCount(). Error 101: hipErrorInvalidDevice\n", True),
    # Comfy-Org/ComfyUI#2842: torch's own "HIP error: <reason>"; derived: a bare name beside torch's DSA hint
    ("Error occurred when executing CLIPTextEncode:\nHIP error: invalid device function\n", True),
    ("hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\nCompile with "
     "`TORCH_USE_HIP_DSA` to enable device-side assertions.\n", True),
])
def test_a_bare_hip_error_proves_a_rocm_torch_only_in_a_report_naming_pytorch(tmp_path: Path, text: str,
                                                                             rocm_torch: bool):
    """A bare hipError name proves a ROCm torch ran only in a report that names PyTorch at all (torch's own 'HIP
    error: <reason>' always does): rccl-tests, Blender, TensorFlow and rocRAND print the same names, and 'the torch
    that ran is a ROCm build' was said of 19 field reports that ran no torch."""
    verdicts = [f.severity for f in judged(tmp_path, text).get("torch.not-rocm-build", [])]
    if rocm_torch:
        assert verdicts == [Severity.OK]
    else:
        assert all(v == Severity.SKIP for v in verdicts), verdicts


def test_a_report_saying_the_amdgpu_module_fails_to_load_is_an_init_failure(tmp_path: Path) -> None:
    """ROCm/legacy-rocm-build#1552: 'the GPU is not detected. The amdgpu kernel module appears to have an issue
    loading.' (an MI50; AMD read 'Fatal error during GPU init' in the attached dmesg). Derived look-alikes: the module
    loading fine or loaded, 'no issue loading', a negation, a question, a condition, firmware as the object, another
    module, a modprobe command give no init failure."""
    head = "Hi there, I have a AMD Radeon Instinct Mi50 GPU which I am trying to use on a Ubuntu 20.04 server. "
    for n, said in enumerate(("I'm seeing the GPU is not detected. The amdgpu kernel module appears to have an issue "
                              "loading.", "The amdgpu module fails to load after the update.",
                              "The amdgpu driver failed to initialize the GPU.")):
        found = judged(tmp_path, head + said + "\n", f"said{n}.txt")
        assert problems(found) == {"log.amdgpu-init-failed": "fail"}, said
        assert "the report says" in found["log.amdgpu-init-failed"][0].title
    for n, other in enumerate(("The amdgpu kernel module loads fine.", "The amdgpu kernel module is loaded.",
                               "There is no issue loading the amdgpu module.",
                               "The amdgpu kernel module has no issue loading.",
                               "The amdgpu module no longer fails to load.", "The amdgpu module doesn't fail to load.",
                               "Does the amdgpu kernel module have an issue loading?",
                               "If the amdgpu module fails to load, read dmesg.",
                               "The amdgpu driver fails to load the firmware vega20_sos.bin.",
                               "The nvidia kernel module appears to have an issue loading.",
                               "$ sudo modprobe amdgpu\n$ lsmod | grep amdgpu")):
        assert "log.amdgpu-init-failed" not in _problems_if_read(tmp_path, head + other + "\n", f"o{n}.txt"), other


_RX7600XT_INVALID_ISA = (
    "### Problem Description\n\nHi, I have rx 7600 xt. I install rocm 6.1. and today i install wheel pytorch version "
    "at venv\nhttp://repo.radeon.com/rocm/manylinux/rocm-rel-6.1/torch-2.1.2%2Brocm6.1-cp310-cp310-linux_x86_64.whl\n\n"
    "but when i run that, \n`:0:rocdevice.cpp            :2879: 3764010792 us: [pid:10952 tid:0x75a40ebff640] "
    "Callback: Queue 0x75a278c00000 aborting with error : HSA_STATUS_ERROR_INVALID_ISA: The instruction set "
    "architecture is invalid. code: 0x100f`\nthe error occur\n\n### Operating System\n\n"
    'OS: NAME="Ubuntu" VERSION="22.04.4 LTS (Jammy Jellyfish)"\n\n'
    "### GPU\n\nAMD Radeon RX 7900 XT\n\n### ROCm Version\n\nROCm 6.0.0\n")


def test_the_reporters_own_gpu_and_release_outrank_the_templates_dropdowns(tmp_path: Path) -> None:
    """fixtures/README.md judging rule 27 (ROCm/ROCm#3054): ROCm's issue template picks the GPU and the release from
    fixed lists; 'Hi, I have rx 7600 xt. I install rocm 6.1.' is the host, not the dropdowns' 'AMD Radeon RX 7900 XT'
    and 'ROCm 6.0.0' (no second GPU, no torch.rocm-mismatch against 6.0.0). Derived look-alikes: without the
    first-person sentence the dropdown's answer stands; prose agreeing with it changes nothing."""
    host = load_host(_write(tmp_path, _RX7600XT_INVALID_ISA))
    assert [g.name for g in host.gpus] == ["RX 7600 XT"]
    assert host.rocm_version is not None and host.rocm_version.value == "6.1"
    assert "torch.rocm-mismatch" not in problems(judged(tmp_path, _RX7600XT_INVALID_ISA))
    no_gpu_said = load_host(_write(tmp_path, _RX7600XT_INVALID_ISA.replace("Hi, I have rx 7600 xt. ", ""), "a.txt"))
    assert [g.name for g in no_gpu_said.gpus] == ["RX 7900 XT"]
    same_gpu = load_host(_write(tmp_path, _RX7600XT_INVALID_ISA.replace("rx 7600 xt", "rx 7900 xt"), "b.txt"))
    assert [g.name for g in same_gpu.gpus] == ["RX 7900 XT"]
    unsaid = _RX7600XT_INVALID_ISA.replace("I install rocm 6.1. ", "")
    assert problems(judged(tmp_path, unsaid, "c.txt")).get("torch.rocm-mismatch") == "warn"
    agreeing = load_host(_write(tmp_path, _RX7600XT_INVALID_ISA.replace("rocm 6.1.", "rocm 6.0."), "d.txt"))
    assert agreeing.rocm_version is not None and agreeing.rocm_version.value == "6.0.0"


def test_an_invalid_isa_abort_on_a_gpu_that_runs_only_through_an_override_is_unsupported(tmp_path: Path) -> None:
    """fixtures/README.md judging rule 27 (ROCm/ROCm#3054): an RX 7600 XT (gfx1102, on no ROCm Linux list) aborts with
    HSA_STATUS_ERROR_INVALID_ISA under AMD's torch 2.1.2+rocm6.1 wheel; AMD: 'not supported with latest ROCm 6.1.2'.
    Another target's code ran on it (no gfx1102 code is in the wheel) and the GPU rejected it: gpu.arch-unsupported,
    not the override as the remedy. Derived look-alikes: the missing-code error instead is the run without the
    override (rule 23); a supported RX 7900 XTX with the same line, and the report without the line, get no
    gpu.arch-unsupported."""
    found = judged(tmp_path, _RX7600XT_INVALID_ISA)
    assert problems(found) == {"gpu.arch-unsupported": "fail", "log.invalid-isa": "fail"}
    assert "gfx1102" in found["gpu.arch-unsupported"][0].title
    no_code = _RX7600XT_INVALID_ISA.replace(
        "HSA_STATUS_ERROR_INVALID_ISA: The instruction set architecture is invalid. code: 0x100f",
        "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!")
    got = problems(judged(tmp_path, no_code, "a.txt"))
    assert got.get("gpu.override-needed") == "fail" and "gpu.arch-unsupported" not in got
    supported = _RX7600XT_INVALID_ISA.replace("rx 7600 xt", "rx 7900 xtx")
    assert problems(judged(tmp_path, supported, "b.txt")) == {"log.invalid-isa": "fail"}
    quiet = _RX7600XT_INVALID_ISA.split("but when")[0] + _RX7600XT_INVALID_ISA.split("the error occur\n")[1]
    assert problems(judged(tmp_path, quiet, "c.txt")) == {}


_OLLAMA_7800X3D = ("When running version 0.1.20 on my computer the ollama server crashes when loading any model.\n\n"
                   "Computer Specs:\n* GPU: RX7900XTX\n* CPU: 7800X3D\n* RAM: 32G\n* OS: Arch Linux\n"
                   "* ROCM Version: 5.7.1\n")


def test_a_cpu_model_that_carries_an_igpu_beside_a_dgpu_and_a_crash_warns_as_its_apu_name_does(tmp_path: Path) -> None:
    """fixtures/README.md judging rules 5 and 25 (ollama/ollama#2054): 'CPU: 7800X3D' beside 'GPU: RX7900XTX' and a
    crash: the Ryzen 7000's Raphael iGPU (data/cpu_igpu.toml, AMD's spec table) is likely enumerated too, a warning,
    as 'AMD Ryzen 7 7800X3D with Radeon Graphics' gives. Derived look-alikes: a 5800X3D, a 7500F (no iGPU), the
    7800X3D with no discrete GPU named, a working host, a crash denied; a segfault line is a failure too."""
    found = judged(tmp_path, _OLLAMA_7800X3D)
    assert problems(found) == {"gpu.igpu-visible": "warn"}
    assert "7800X3D" in found["gpu.igpu-visible"][0].detail
    named = _OLLAMA_7800X3D.replace("CPU: 7800X3D", "CPU: AMD Ryzen 7 7800X3D with Radeon Graphics")
    assert problems(judged(tmp_path, named, "named.txt")) == {"gpu.igpu-visible": "warn"}
    for n, cpu in enumerate(("7950X", "AMD Ryzen 9 9950X3D", "Ryzen 5 8600G", "AMD Ryzen 9 7900X 12-Core Processor")):
        other = _OLLAMA_7800X3D.replace("7800X3D", cpu)
        assert problems(judged(tmp_path, other, f"has{n}.txt")) == {"gpu.igpu-visible": "warn"}, cpu
    for n, cpu in enumerate(("5800X3D", "7500F", "AMD Ryzen 5 8400F", "Ryzen 9 5950X", "Threadripper 7960X")):
        other = _OLLAMA_7800X3D.replace("7800X3D", cpu)
        assert "gpu.igpu-visible" not in problems(judged(tmp_path, other, f"none{n}.txt")), cpu
    alone = _OLLAMA_7800X3D.replace("* GPU: RX7900XTX\n", "")
    assert "gpu.igpu-visible" not in problems(judged(tmp_path, alone, "alone.txt"))
    # a bare model number is weaker than the marketing name (a BIOS may have turned the iGPU off): it warns only
    # beside work that failed, and a working host that names its 7800X3D gets nothing (its "with Radeon Graphics"
    # name warns there, as before); nor does a report whose crash is denied
    healthy = ("GPU: RX 7900 XTX\nCPU: 7800X3D\nROCm 6.1.2 on Ubuntu 22.04. llama3:8b loaded fully in vram and "
               "everything works; just asking about speed.\n")
    assert "gpu.igpu-visible" not in problems(judged(tmp_path, healthy, "healthy.txt"))
    fixed = _OLLAMA_7800X3D.replace("the ollama server crashes", "the ollama server no longer crashes")
    assert "gpu.igpu-visible" not in problems(judged(tmp_path, fixed, "fixed.txt"))
    segv = _OLLAMA_7800X3D.replace("the ollama server crashes when loading any model", "ollama fails") + (
        "Segmentation fault (core dumped)\n")
    assert problems(judged(tmp_path, segv, "segv.txt")).get("gpu.igpu-visible") == "warn"


def test_the_cpu_igpu_table_names_no_model_without_an_igpu() -> None:
    """data/cpu_igpu.toml: every family's `not` models (the F models, Ryzen 5000 and older without G) match no
    family, and the models its sources list with graphics do."""
    from rocmdoctor.parse.cpu_igpu import families, igpu_of
    assert families()
    for fam in families():
        for model in fam.not_models:
            assert igpu_of(model) is None, (fam.name, model)
    for model in ("7800X3D", "7950X3D", "7600", "7700", "Ryzen 9 PRO 7945", "9800x3d", "9600", "5600G", "5600GT",
                  "8700G", "3400GE", "2200G"):
        assert igpu_of(model) is not None, model


_ROCK_1_9_ADDED = (
    "Hi, I am trying to install ROCm 1.9.2 on desktop with vega10\nCPU AMD Ryzen 7 1700 Eight-Core Processor\n\n"
    "> uname -a\nLinux wukong 4.4.0-139-generic #165-Ubuntu SMP Wed Oct 24 10:58:50 UTC 2018 x86_64 x86_64 x86_64 "
    "GNU/Linux\n\n> dmesg | grep amd\n[    0.000000] Linux version 4.4.0-139-generic (buildd@lcy01-amd64-006) (gcc "
    "version 5.4.0 20160609 (Ubuntu 5.4.0-6ubuntu1~16.04.10) ) #165-Ubuntu SMP Wed Oct 24 10:58:50 UTC 2018 (Ubuntu "
    "4.4.0-139.165-generic 4.4.160)\n[    0.566793] amd_nb: Cannot enumerate AMD northbridges\n\n"
    "> lspci | grep -i vga\n0b:00.0 VGA compatible controller: Advanced Micro Devices, Inc. [AMD/ATI] Device 687f "
    "(rev c1)\n\n> dkms status\namdgpu, 1.9-307: added\n\nThe rocminfo doesn't work, and looks the gpu driver is not "
    "installed correctly.\n")


def test_a_kernel_below_rocm_1_9s_kernels_on_the_ubuntu_it_was_built_for_is_not_validated(tmp_path: Path) -> None:
    """fixtures/README.md judging rule 13 (ROCm/legacy-rocm-build#624): ROCm 1.9.2 on Ubuntu 16.04's 4.4 kernel; the
    1.9.x README: 'Ubuntu 16.04 &. 18.04 (Version 16.04.3 and newer or kernels 4.13 and newer)', AMD's maintainer:
    lower than 4.17. With no os-release, the Ubuntu release is the kernel's own ('~16.04' of its compiler package in
    the `Linux version` banner, or an HWE build tag). Derived look-alikes: no banner (OS unknown), a banner of another
    kernel, no ROCm release named, and 16.04's HWE 4.15 kernel (validated) give no warning."""
    assert problems(judged(tmp_path, _ROCK_1_9_ADDED)).get("kernel.not-validated") == "warn"
    no_banner = _ROCK_1_9_ADDED.replace("Ubuntu 5.4.0-6ubuntu1~16.04.10", "Ubuntu 5.3.1-14ubuntu2")
    other_kernel = _ROCK_1_9_ADDED.replace("Linux version 4.4.0-139-generic", "Linux version 4.4.0-138-generic")
    no_release = _ROCK_1_9_ADDED.replace("trying to install ROCm 1.9.2", "trying to install ROCm")
    hwe = _ROCK_1_9_ADDED.replace("4.4.0-139-generic #165-Ubuntu SMP", "4.15.0-45-generic #48~16.04.1-Ubuntu SMP")
    hwe = hwe.replace("Linux version 4.4.0-139-generic", "Linux version 4.15.0-45-generic")
    for n, other in enumerate((no_banner, other_kernel, no_release, hwe)):
        assert "kernel.not-validated" not in problems(judged(tmp_path, other, f"other{n}.txt")), n
    hwe_tag = judged(tmp_path, hwe, "hwe.txt")["kernel.not-validated"][0]
    assert hwe_tag.severity == Severity.OK and "ubuntu 16.04" in hwe_tag.title


def test_dkms_not_installed_on_a_kernel_older_than_upstream_kfd_for_the_gpu_is_no_amdgpu(tmp_path: Path) -> None:
    """ROCm/legacy-rocm-build#624: `dkms status` 'amdgpu, 1.9-307: added' (never built) on Ubuntu 16.04's 4.4 with a
    Vega 10 (1002:687f): the ROCm 1.9.2 README lists upstream KFD for Vega10 from 4.18, so no amdgpu driver ROCm can
    use serves the GPU. Derived look-alikes: the module installed for the running kernel, a kernel new enough for
    the GPU, no `dkms status`, and a RHEL-family kernel (DRM backported) give no driver.amdgpu-not-loaded problem."""
    found = judged(tmp_path, _ROCK_1_9_ADDED)
    assert problems(found).get("driver.amdgpu-not-loaded") == "fail"
    assert "Vega" in found["driver.amdgpu-not-loaded"][0].title
    installed = _ROCK_1_9_ADDED.replace("amdgpu, 1.9-307: added",
                                        "amdgpu, 1.9-307, 4.4.0-139-generic, x86_64: installed")
    new_enough = _ROCK_1_9_ADDED.replace("4.4.0-139-generic #165-Ubuntu", "4.18.0-10-generic #11-Ubuntu")
    no_dkms = _ROCK_1_9_ADDED.replace("> dkms status\namdgpu, 1.9-307: added\n", "")
    # CentOS 7's 3.10 backports the DRM tree: its upstream number says nothing of its amdgpu
    centos = _ROCK_1_9_ADDED.replace("4.4.0-139-generic #165-Ubuntu", "3.10.0-957.el7.x86_64 #1")
    for n, other in enumerate((installed, new_enough, no_dkms, centos)):
        assert "driver.amdgpu-not-loaded" not in problems(judged(tmp_path, other, f"other{n}.txt")), n
    # a Polaris 10 (gfx803: upstream KFD from 4.17) on 16.04's HWE 4.15 with the module only added: the same
    polaris = _ROCK_1_9_ADDED.replace("4.4.0-139-generic #165-Ubuntu", "4.15.0-45-generic #48~16.04.1-Ubuntu")
    polaris = polaris.replace("Device 687f (rev c1)", "Ellesmere [Radeon RX 470/480/570/570X/580/580X/590] (rev e7)")
    assert problems(judged(tmp_path, polaris, "polaris.txt")).get("driver.amdgpu-not-loaded") == "fail"
