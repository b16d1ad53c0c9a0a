"""What reads each kind of output: one handler per kind, chosen from tables (data, not an if-chain).

A kind is the same whether it came from ``cmd/<name>.txt`` (:data:`CMD_KINDS`), a host file under ``root/``
(:data:`ROOT_FILES`) or a bare pasted file whose content :mod:`rocmdoctor.parse.sniff` recognised. A handler
parses with :mod:`rocmdoctor.parse` and offers what it found to the accumulator under its source's name; which
source wins is decided in one place, :data:`rocmdoctor.bundle.merge.PRIORITY`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Optional

from rocmdoctor.bundle.merge import Acc
from rocmdoctor.model import Fact, KernelInfo, RocmInstall, TorchInfo

# The parsers of outputs a long paste seldom holds (lspci, pip, collect_env, id, docker info, env, live facts)
# are imported by their handler, on first use: their regexes are compiled at import, and `check --from
# paste.txt` pays only for the kinds it found.
from rocmdoctor.parse import dkms, kernel, kfd, osrelease, rocminfo, secureboot, smi, versions
from rocmdoctor.parse.freetext_rules import NVIDIA_CUDA_PACKAGE
from rocmdoctor.parse.text import src


def _h_rocminfo(acc: Acc, text: str, file: str) -> None:
    res = rocminfo.parse_rocminfo(text, file)
    failed = _ROCMINFO_FAILED.search(text) if not res.gpus and res.agents_seen == 0 else None
    # an excerpt cut before its agent list (ROCm/legacy-rocm-build#4557), or inside it before its "*** Done ***"
    # with only the CPU listed (ROCm/amdsmi#75: a working WSL host's paste stops in the CPU agent), enumerated
    # nothing: it is no evidence that the host has no GPU
    cut = not res.gpus and res.agents_seen > 0 and "*** Done ***" not in text
    if (res.agents_seen and not cut) or failed or res.gpus:
        acc.saw("rocminfo")
    acc.gpus("rocminfo", res.gpus)
    if res.cpu_names:
        acc.offer("cpu_model", "rocminfo", res.cpu_names[0])
    acc.offer("amdgpu_loaded", "rocminfo", res.rock_loaded)
    acc.offer("amdgpu_version", "rocminfo", res.rock_version)
    if failed:  # (only searched when rocminfo listed no agent)
        line = failed.group(0).strip()
        acc.host.context.setdefault("rocminfo-failed", Fact(line, src(file, text.count("\n", 0, failed.start()) + 1,
                                                                      line)))
    started = _ROCMINFO_STARTED.search(text) if not failed and "HSA System Attributes" in text else None
    if started:  # rocminfo prints its system attributes only once hsa_init succeeded
        line = started.group(0).strip()
        acc.host.context.setdefault("rocm-runtime-started",
                                    Fact(line, src(file, text.count("\n", 0, started.start()) + 1, line)))


# rocminfo ran and the HSA runtime did not initialise (the GPU may well be there: see rocm.runtime-failed).
_ROCMINFO_FAILED = re.compile(r"hsa api call failure[^\n]{0,200}|Unable to open /dev/kfd[^\n]{0,200}|"
                              r"HSA_STATUS_ERROR\w{0,60}[^\n]{0,200}|Failed to get user name[^\n]{0,100}")


# rocminfo's first line after its "HSA System Attributes" header, printed only once the runtime initialised
_ROCMINFO_STARTED = re.compile(r"^[ \t]{0,8}Runtime Version:[ \t]{1,40}\d{1,3}\.\d{1,3}[^\n]{0,40}", re.M)


def _h_rocm_smi(acc: Acc, text: str, file: str) -> None:
    text = smi.without_line_prefix(text)
    gpus = smi.parse_rocm_smi(text, file)
    if not smi.unread_rows(text, gpus):  # rows it could not read say nothing about how many GPUs there are
        acc.saw("rocm-smi")
    acc.gpus("rocm-smi", gpus)


def _h_amd_smi(acc: Acc, text: str, file: str) -> None:
    gpus = smi.parse_amd_smi(text, file)
    if gpus or smi.load_json(text) is not None:
        acc.saw("amd-smi")
    acc.gpus("amd-smi", gpus)
    version = smi.amd_smi_driver(text) if gpus else None
    if version is not None:
        where = src(file, None, f"amd-smi static: DRIVER amdgpu {version}")
        acc.offer("amdgpu_loaded", "amd-smi", Fact(True, where))
        acc.offer("amdgpu_version", "amd-smi", Fact(version, where))


def _h_enumerator(acc: Acc, text: str, file: str) -> None:
    acc.saw("rocm_agent_enumerator")
    acc.gpus("rocm_agent_enumerator", smi.parse_agent_enumerator(text, file))


def _h_dkms(acc: Acc, text: str, file: str) -> None:
    info = dkms.parse_dkms(dkms.log_lines(text), file)
    d = acc.dkms_info()
    d.entries.extend(info.entries)
    d.errors.extend(info.errors)
    d.build_failures.extend(info.build_failures)
    for k in info.failed_kernels:
        if k not in d.failed_kernels:
            d.failed_kernels.append(k)
    acc.saw("dkms" if (info.entries or info.errors or "dkms-status" in file) else "dkms-log")


def _h_hipconfig(acc: Acc, text: str, file: str) -> None:
    fact = versions.parse_hipconfig(text, file)
    if fact is not None:
        acc.saw("hipconfig")
        acc.offer("hip_version", "hipconfig-full" if "full" in file else "hipconfig", fact)


def _h_lspci(acc: Acc, text: str, file: str) -> None:
    from rocmdoctor.parse import lspci

    res = lspci.parse_lspci(text, file)
    acc.saw("lspci")
    acc.gpus("lspci", res.gpus)
    for gpu, driver in res.drivers:
        if driver == "amdgpu":
            acc.offer("amdgpu_loaded", "lspci", Fact(True, gpu.sources[-1]))
            break


def _h_dmesg(acc: Acc, text: str, file: str) -> None:
    kept, version = kernel.parse_dmesg(text, file)
    acc.saw("dmesg")
    acc.host.dmesg.extend(kept)
    acc.offer("amdgpu_version", "dmesg", version)


def _h_bandwidth(acc: Acc, text: str, file: str) -> None:
    from rocmdoctor.parse import bandwidth

    found = bandwidth.parse_data_path(text, file)
    acc.saw("bandwidth-test")
    if found:
        acc.host.health.extend(found)
        acc.saw("health")


def _h_amd_smi_monitor(acc: Acc, text: str, file: str) -> None:
    """``amd-smi monitor``: its ECC columns are health facts; its rows are no GPU enumeration (no name, no gfx)."""
    from rocmdoctor.parse import smi_monitor

    found = smi_monitor.parse_amd_smi_monitor(text, file)
    if found:
        acc.host.health.extend(found)
        acc.saw("health")


def _h_pip_freeze(acc: Acc, text: str, file: str) -> None:
    from rocmdoctor.parse import pip

    pkgs = pip.parse_pip_freeze(text)
    if pkgs:
        acc.saw("pip")
        acc.packages("pip-freeze", pkgs, src(file, None))


def _h_pip_list(acc: Acc, text: str, file: str) -> None:
    from rocmdoctor.parse import pip

    pkgs = pip.parse_pip_list_json(text)
    if pkgs:
        acc.saw("pip")
        acc.packages("pip-list", pkgs, src(file, None))


def _h_pip_show(acc: Acc, text: str, file: str) -> None:
    from rocmdoctor.parse import pip

    shown = pip.parse_pip_show(text, file)
    if not shown:
        return
    acc.saw("pip-show")
    acc.packages("pip-show", {n: v for n, v, _, _ in shown}, shown[0][3])
    requires: Optional[dict[str, list[str]]] = None  # read once: a paste can show torch many times
    for name, version, location, where in shown:
        if name == "torch":
            t = TorchInfo(version=version, location=location, source=where)
            requires = pip.pip_show_requires(text) if requires is None else requires
            cuda_deps = [r for r in requires.get("torch", []) if re.fullmatch(NVIDIA_CUDA_PACKAGE, r)]
            if cuda_deps and "+" not in version:  # PyPI's default Linux wheel: the CUDA build
                t.proven_build = "cuda"
                t.proof = f"pip show torch: it requires {cuda_deps[0]} (PyPI's CUDA build)"
                t.proof_sources = [where]
            acc.torch("pip-show", t)


def _h_torch_probe(acc: Acc, text: str, file: str) -> None:
    from rocmdoctor.parse import torch_probe

    res = torch_probe.parse_torch_probe(text, file)
    if not res.valid:
        acc.host.parse_notes.append(f"{file}: not a torch probe JSON document")
        return
    acc.saw("torch-probe")
    acc.torch_probe_seen = res.torch_seen
    acc.offer("python", "torch-probe", res.python)
    if res.torch is not None:
        acc.torch("torch-probe", res.torch)
    if res.distributions:
        acc.packages("torch-probe", res.distributions, src(file, None))


def _h_collect_env(acc: Acc, text: str, file: str) -> None:
    from rocmdoctor.parse import collect_env

    res = collect_env.parse_collect_env(text, file)
    if not res.recognised:
        return
    if res.crashed is not None and res.torch is None and res.python is None and not res.gpus:
        return  # only its traceback: it crashed before printing a GPU list or torch, so neither was captured
    acc.saw("collect_env")
    if res.torch is not None:
        acc.torch("collect_env", res.torch)
    acc.offer("python", "collect_env", res.python)
    acc.offer("os", "collect_env", res.os if res.os and res.os.id else None)
    if res.kernel_release is not None:
        acc.kernel("collect_env", KernelInfo(release=res.kernel_release.value, source=res.kernel_release.source,
                                          is_wsl=kernel.is_wsl_text(res.kernel_release.value)))
    if res.gpu_line or res.gpus:  # a paste cut before the GPU line lists no GPU: that is not "no GPU"
        acc.host.captured.add("collect_env GPU list")
        acc.gpus("collect_env", res.gpus)
    if res.packages:
        acc.packages("collect_env", res.packages, src(file, None, "Versions of relevant libraries"))


def _h_id(acc: Acc, text: str, file: str) -> None:
    from rocmdoctor.parse import users

    user = users.parse_id(text, file)
    if user is not None:
        acc.saw("id")
        acc.offer("user", "id", user)


def _h_stat_dev(acc: Acc, text: str, file: str) -> None:
    from rocmdoctor.parse import users

    nodes = users.parse_stat_dev(text, file)
    acc.saw("stat-dev")
    acc.host.device_nodes.extend(nodes)


def read_docker_info(acc: Acc, text: str, file: str, stderr: Optional[str] = None) -> None:
    from rocmdoctor.parse import docker_info

    info = docker_info.parse_docker_info(text, file, stderr)
    acc.saw("docker-info")
    acc.container_seen = True
    c = acc.container
    c.docker_reachable = info.docker_reachable
    c.docker_runtimes = info.docker_runtimes
    c.docker_default_runtime = info.docker_default_runtime
    c.docker_error = info.docker_error
    c.source = info.source


def _h_uname(acc: Acc, text: str, file: str) -> None:
    info = kernel.parse_uname(text, file)
    if info.release:
        acc.saw("uname")
        # `uname -a` without its version words is as good as `uname -r`
        acc.kernel("uname-r" if (file.endswith("uname-r.txt") or info.version_text is None) else "uname-a", info)
        acc.offer("hostname", "uname", kernel.uname_hostname(text))


def _h_proc_version(acc: Acc, text: str, file: str) -> None:
    info = kernel.parse_proc_version(text, file)
    if info.release:
        acc.saw("proc-version")
        acc.kernel("proc-version", info)


def _h_os_release(acc: Acc, text: str, file: str) -> None:
    info = osrelease.parse_os_release(text, file)
    if info.id:
        acc.saw("os-release")
        acc.offer("os", "etc-os-release" if "etc/os-release" in file else "usr-os-release", info)


def _h_lsb(acc: Acc, text: str, file: str) -> None:
    info = osrelease.parse_lsb_release(text, file)
    if info.id is None:
        kv = osrelease.parse_os_release(
            text.replace("DISTRIB_ID=", "ID=").replace("DISTRIB_RELEASE=", "VERSION_ID=")
            .replace("DISTRIB_DESCRIPTION=", "PRETTY_NAME="), file)
        info = kv
    if info.id:
        acc.saw("lsb_release")
        acc.offer("os", "lsb_release", info)


def _h_modules(acc: Acc, text: str, file: str) -> None:
    fact = kernel.parse_modules(text, file)
    if fact is not None:
        acc.saw("modules")
        acc.offer("amdgpu_loaded", "proc-modules" if file.endswith("proc/modules") else "lsmod", fact)


def _h_module_version(acc: Acc, text: str, file: str) -> None:
    fact = kernel.parse_module_version(text, file)
    if fact is not None:
        acc.saw("module-version")
        acc.offer("amdgpu_version", "module-version", fact)


def _h_env(acc: Acc, text: str, file: str) -> None:
    from rocmdoctor.parse import env

    values, _ = env.parse_env(text)
    acc.saw("env")
    acc.host.env.update(values)
    acc.host.env_source = src(file, None)


def _h_kfd_properties(acc: Acc, text: str, file: str) -> None:
    gpu = kfd.parse_kfd_node(text, file, 0)
    acc.saw("kfd")
    if gpu is not None:
        gpu.kfd_node = None
        acc.gpus("kfd", [gpu])


def _h_rocm_version(acc: Acc, text: str, file: str) -> None:
    fact = versions.parse_rocm_version_file(text, file)
    if fact is not None:
        acc.saw("rocm-info-version")
        acc.rocm_files.append(RocmInstall(path="/opt/rocm", version=fact.value, source=fact.source))


def _h_lscpu(acc: Acc, text: str, file: str) -> None:
    for line in text.splitlines():
        if line.strip().startswith("Model name:"):
            acc.saw("lscpu")
            acc.offer("cpu_model", "lscpu", line.split(":", 1)[1].strip() or None)
            return


def _h_live_facts(acc: Acc, text: str, file: str) -> None:
    from rocmdoctor.parse import livefacts

    acc.host.live = livefacts.parse(text, file)
    if acc.host.live is not None:
        acc.saw("live-facts")


def _h_mokutil(acc: Acc, text: str, file: str) -> None:
    acc.host.secure_boot = secureboot.parse_mokutil(text, file)


def _h_group(acc: Acc, text: str, file: str) -> None:
    from rocmdoctor.parse import users

    acc.saw("group")
    acc.host.groups_file.update(users.parse_group_file(text))


Handler = Callable[[Acc, str, str], None]

# What each kind of output is read by (sniffed kinds and cmd/<name> kinds alike).
KIND_HANDLERS: dict[str, Handler] = {
    "rocminfo": _h_rocminfo,
    "rocm-smi": _h_rocm_smi,
    "amd-smi": _h_amd_smi,
    "rocm_agent_enumerator": _h_enumerator,
    "dkms": _h_dkms,
    "hipconfig": _h_hipconfig,
    "lspci": _h_lspci,
    "dmesg": _h_dmesg,
    "rocm-bandwidth-test": _h_bandwidth,
    "amd-smi-monitor": _h_amd_smi_monitor,
    "pip-freeze": _h_pip_freeze,
    "pip-list": _h_pip_list,
    "pip-show": _h_pip_show,
    "torch-probe": _h_torch_probe,
    "collect_env": _h_collect_env,
    "id": _h_id,
    "stat-dev": _h_stat_dev,
    "docker-info": read_docker_info,
    "uname": _h_uname,
    "proc-version": _h_proc_version,
    "os-release": _h_os_release,
    "lsb_release": _h_lsb,
    "modules": _h_modules,
    "env": _h_env,
    "kfd-properties": _h_kfd_properties,
    "rocm-info-version": _h_rocm_version,
    "lscpu": _h_lscpu,
    "live-facts": _h_live_facts,
    "mokutil": _h_mokutil,
}

# cmd/<name>.{txt,json} -> kind (names from capture-format.md and rocmdoctor.capture).
CMD_KINDS: dict[str, str] = {
    "uname-a": "uname",
    "uname-r": "uname",
    "id": "id",
    "rocminfo": "rocminfo",
    "rocm-smi": "rocm-smi",
    "rocm-smi-showhw": "rocm-smi",
    "rocm-smi-productname": "rocm-smi",
    "amd-smi-static": "amd-smi",
    "amd-smi-metric": "amd-smi",
    "rocm_agent_enumerator": "rocm_agent_enumerator",
    "dkms-status": "dkms",
    "hipconfig": "hipconfig",
    "hipconfig-full": "hipconfig",
    "lspci": "lspci",
    "dmesg": "dmesg",
    "pip-freeze": "pip-freeze",
    "pip-list": "pip-list",
    "pip-show": "pip-show",
    "collect_env": "collect_env",
    "torch-probe": "torch-probe",
    "stat-dev": "stat-dev",
    "docker-info": "docker-info",
    "lsmod": "modules",
    "lsb_release": "lsb_release",
    "lscpu": "lscpu",
    "live-facts": "live-facts",
    "mokutil-sb-state": "mokutil",
}
# Outputs that may carry an error message worth matching against the signature table.
SCAN_KINDS = frozenset({"rocminfo", "collect_env", "dkms", "rocm-smi", "rocm_agent_enumerator", "hipconfig"})


# ------------------------------------------------------------------------------------------ root/ files


def _h_cmdline(acc: Acc, text: str, file: str) -> None:
    text = text.strip()
    acc.saw("cmdline")
    acc.host.cmdline = Fact(text, src(file, 1, text))


def _h_cpuinfo(acc: Acc, text: str, file: str) -> None:
    cm = re.search(r"^model name\s*:\s*(.+)$", text, re.M)
    if cm:
        acc.offer("cpu_model", "cpuinfo", cm.group(1).strip())


def _h_pid1_cgroup(acc: Acc, text: str, file: str) -> None:
    if re.search(r"docker|containerd|kubepods|libpod|lxc", text):
        acc.in_container(src(file, None, "container cgroup"))


def rocm_install_version(acc: Acc, text: str, file: str, install: str) -> None:
    """``root/opt/<install>/.info/version``: one ROCm install and its version."""
    fact = versions.parse_rocm_version_file(text, file)
    acc.saw("rocm-info-version")
    if fact is not None:
        acc.rocm_files.append(RocmInstall(path=f"/opt/{install}", version=fact.value, source=fact.source))


# Host files (under root/) read by a handler when their text could be read.
ROOT_FILES: dict[str, Handler] = {
    "/etc/os-release": _h_os_release,
    "/usr/lib/os-release": _h_os_release,
    "/etc/lsb-release": _h_lsb,
    "/proc/version": _h_proc_version,
    "/proc/modules": _h_modules,
    "/sys/module/amdgpu/version": _h_module_version,
    "/etc/group": _h_group,
    "/proc/cmdline": _h_cmdline,
    "/proc/cpuinfo": _h_cpuinfo,
    "/proc/1/cgroup": _h_pid1_cgroup,
}
# Host files whose mere presence says "inside a container" (docker, podman).
CONTAINER_MARKERS = frozenset({"/.dockerenv", "/run/.containerenv"})
