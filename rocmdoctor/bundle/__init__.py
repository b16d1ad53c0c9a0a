"""Open a capture bundle — a directory, a ``.tar.gz`` of one, or one bare pasted file — as a :class:`Host`.

Why it is built this way:

* A tar is never extracted to disk. Members are validated (no absolute paths, no ``..``, no device
  files, no links leaving the bundle, bounded count and size) and read into memory, so a hostile
  bundle from a fleet node or a bug report cannot write anywhere or exhaust the disk.
* Every file is optional and every parser is total: what cannot be read becomes "not captured"
  plus a note in ``Host.parse_notes``, never an exception. Only an unusable *path* (missing,
  unreadable, corrupt archive, nothing recognisable) raises :class:`~rocmdoctor.errors.BadInput`.
* Sources are offered with a priority and the best one wins (``uname -r`` over ``/proc/version``
  over collect_env's platform string), so a partial paste still yields the facts it holds.

Standard library only: this is on the path of ``rocmdoctor check --from``, which must stay fast.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Callable
from dataclasses import fields
from pathlib import Path, PurePosixPath
from typing import Any, Optional, Union

from rocmdoctor.errors import BadInput
from rocmdoctor.limits import LIMITS, LimitExceeded
from rocmdoctor.model import (
    ContainerInfo,
    DkmsInfo,
    Fact,
    GpuInfo,
    Host,
    KernelInfo,
    RocmInstall,
    Source,
    TorchInfo,
)
from rocmdoctor.parse import (
    collect_env,
    dkms,
    docker_info,
    drm,
    env,
    freetext,
    health,
    kernel,
    kfd,
    livefacts,
    lspci,
    osrelease,
    pip,
    rocminfo,
    secureboot,
    smi,
    torch_probe,
    users,
    versions,
)
from rocmdoctor.parse import logs as logscan
from rocmdoctor.parse.gpus import merge_gpus
from rocmdoctor.parse.text import decode, hex_id, is_binary, src
from rocmdoctor.sanitize import host_inert

MAX_FILE_BYTES = LIMITS["file-bytes"]  # one file is read up to this size; the rest is cut (and noted)

_LAYOUT_TOP = ("manifest.json", "env.txt")
_LAYOUT_DIRS = ("root", "cmd", "logs")
_IGNORED_LOOSE = re.compile(r"(?i)\.md$|^expected\.json$|^\.|\.(?:png|jpe?g|gif|pdf|zip|whl)$")


# ---------------------------------------------------------------------------------------------- files


class _Tree:
    """The bundle's files by bundle-relative POSIX path, read lazily (dir) or held in memory (tar)."""

    def __init__(self) -> None:
        self.readers: dict[str, Callable[[], bytes]] = {}
        self.links: dict[str, str] = {}  # host path -> link target ("/opt/rocm" -> "rocm-6.0.2")
        self.notes: list[str] = []
        self.alias: dict[str, str] = {}  # a link's name -> its target's name: the target's text serves both
        self._cache: dict[str, str] = {}

    def names(self) -> list[str]:
        return sorted(self.readers)

    def has(self, name: str) -> bool:
        return name in self.readers

    def canonical(self, name: str) -> str:
        return self.alias.get(name, name)

    def text(self, name: str) -> Optional[str]:
        if name not in self.readers:
            return None
        name = self.canonical(name)
        if name in self._cache:
            return self._cache[name]
        reader = self.readers.get(name)
        if reader is None:
            return None
        try:
            data = reader()
        except OSError as exc:
            self.notes.append(f"{name}: unreadable ({exc.strerror or exc})")
            return None
        if len(data) > MAX_FILE_BYTES:
            self.notes.append(f"{name}: larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB; only the start was read")
            data = data[:MAX_FILE_BYTES]
        text = _cap_lines(decode(data), name, self.notes)
        self._cache[name] = text
        return text


def _cap_lines(text: str, name: str, notes: list[str]) -> str:
    """``text`` cut after ``file-lines`` lines (a log of millions of short lines costs every parser dearly)."""
    most = LIMITS["file-lines"]
    if text.count("\n", 0, most * 2) < most and text.count("\n") < most:  # cheap check first
        return text
    pos = -1
    for _ in range(most):
        pos = text.find("\n", pos + 1)
        if pos < 0:
            return text
    notes.append(f"{name}: more than {most:,} lines; only the first {most:,} were read")
    return text[: pos + 1]


def _file_reader(path: Path) -> Callable[[], bytes]:
    def read() -> bytes:
        with open(path, "rb") as fh:
            return fh.read(MAX_FILE_BYTES + 1)

    return read


def _dir_tree(top: Path) -> _Tree:
    """Walk a bundle directory (bounded); links that leave it are skipped, never followed."""
    tree = _Tree()
    try:
        real_top = top.resolve(strict=True)
    except OSError as exc:
        raise BadInput(f"{top}: cannot open directory ({exc.strerror or exc})") from None
    if not os.access(real_top, os.R_OK | os.X_OK):
        raise BadInput(f"{top}: directory is not readable")
    count = links = 0
    symlinks: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(real_top, followlinks=False, onerror=None):
        dirnames.sort()
        rel_dir = Path(dirpath).relative_to(real_top)
        if len(rel_dir.parts) >= LIMITS["depth"]:
            raise LimitExceeded("depth", f"{top}: directories nested more than {LIMITS['depth']} levels deep")
        for name in sorted(filenames) + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
            count += 1
            if count > LIMITS["members"]:
                raise LimitExceeded("members", f"{top}: more than {LIMITS['members']:,} files")
            full = Path(dirpath) / name
            rel = (rel_dir / name).as_posix()
            if full.is_symlink():
                links += 1
                if links > LIMITS["links"]:
                    raise LimitExceeded("links", f"{top}: more than {LIMITS['links']:,} links")
                try:
                    target = full.resolve(strict=True)
                except (OSError, RuntimeError):
                    tree.notes.append(f"{rel}: dangling link skipped")
                    continue
                if real_top != target and real_top not in target.parents:
                    tree.notes.append(f"{rel}: link pointing outside the bundle skipped")
                    continue
                if rel.startswith("root/"):
                    tree.links["/" + rel[len("root/"):]] = os.readlink(full)
                if not target.is_file():
                    continue
                symlinks[rel] = target.relative_to(real_top).as_posix()
                full = target
            try:
                st = full.stat()
            except OSError:
                continue
            if not stat.S_ISREG(st.st_mode):
                continue
            tree.readers[rel] = _file_reader(full)
    tree.alias = {rel: target for rel, target in symlinks.items() if target in tree.readers and target != rel}
    return tree


def _safe_member_name(name: str) -> str:
    """The member's bundle path, or BadInput for absolute paths and ``..``."""
    if name.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:[\\/]", name):
        raise BadInput(f"unsafe bundle: member {name!r} has an absolute path")
    parts = [p for p in PurePosixPath(name.replace("\\", "/")).parts if p not in ("", ".")]
    if ".." in parts:
        raise BadInput(f"unsafe bundle: member {name!r} points outside the bundle ('..')")
    return "/".join(parts)


def _link_inside(member: str, target: str, hard: bool) -> Optional[str]:
    """The bundle path a link resolves to, or ``None`` when it leaves the bundle."""
    if target.startswith("/") or re.match(r"^[A-Za-z]:[\\/]", target):
        return None
    base = [] if hard else member.split("/")[:-1]
    out: list[str] = list(base)
    for part in target.replace("\\", "/").split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if not out:
                return None
            out.pop()
        else:
            out.append(part)
    return "/".join(out)


def _tar_tree(path: Path) -> _Tree:
    """Read a tar(.gz) bundle into memory after validating every member (bounded: :mod:`.tarstream`)."""
    from rocmdoctor.bundle import tarstream

    tree = _Tree()
    data: dict[str, bytes] = {}
    aliases: dict[str, str] = {}  # link name -> the member it points to (its text is read and cached once)
    links = 0
    label = str(path)
    try:
        raw = open(path, "rb")  # noqa: SIM115 - closed by the ``with raw`` below
    except OSError as exc:
        raise BadInput(f"{path}: cannot read ({exc.strerror or exc})") from None
    with raw:
        head = raw.read(512)
        raw.seek(0)
        if head[:2] not in (b"\x1f\x8b", b"BZ") and head[:6] != b"\xfd7zXZ\0" and head[257:262] != b"ustar" \
                and not _plain_tar_header(head):
            raise BadInput(f"{path}: not a readable .tar.gz bundle (no gzip, bzip2, xz or tar data)")
        try:
            for m in tarstream.members(tarstream.open_stream(raw), label):
                name = _safe_member_name(m.name)
                if m.kind == "special":
                    raise BadInput(f"unsafe bundle: member {m.name!r} is a device or fifo (or a sparse file)")
                if m.kind in ("symlink", "hardlink"):
                    inside = _link_inside(name, m.linkname, hard=m.kind == "hardlink")
                    if inside is None:
                        raise BadInput(f"unsafe bundle: link {m.name!r} -> {m.linkname!r} points outside the bundle")
                    links += 1
                    if links > LIMITS["links"]:
                        raise LimitExceeded("links", f"{path}: more than {LIMITS['links']:,} links")
                    if m.kind == "symlink" and name.startswith("root/"):
                        tree.links["/" + name[len("root/"):]] = m.linkname
                    aliases[name] = inside
                    continue
                if m.kind != "file" or m.data is None:
                    continue
                data[name] = m.data
                if m.cut:
                    tree.notes.append(f"{name}: larger than {LIMITS['file-bytes'] >> 20} MiB; only the start was read")
        except BadInput:
            raise
        except tarstream.STREAM_ERRORS as exc:
            raise BadInput(f"{path}: corrupt or truncated archive ({exc})") from None
    for name, target in aliases.items():
        while target in aliases and target != name and aliases[target] != name:
            target = aliases[target]
        if target in data and name not in data:
            tree.alias[name] = target
    # A tar of "bundle-name/..." is read as if its single top-level directory were the bundle.
    everything = list(data) + list(tree.alias)
    tops = {n.split("/", 1)[0] for n in everything}
    if len(tops) == 1 and all("/" in n for n in everything):
        top = next(iter(tops))
        if top not in _LAYOUT_DIRS:
            cut = len(top) + 1
            data = {n[cut:]: b for n, b in data.items()}
            tree.alias = {n[cut:]: t[cut:] for n, t in tree.alias.items()}
    for name, blob in data.items():
        tree.readers[name] = (lambda b=blob: b)
    for name, target in tree.alias.items():
        tree.readers[name] = tree.readers[target]
    return tree


def _plain_tar_header(head: bytes) -> bool:
    """A v7 tar (no ustar magic) still has a valid header checksum."""
    from rocmdoctor.bundle.tarstream import _checksum_ok

    return len(head) == 512 and _checksum_ok(head)


def _is_tar(path: Path) -> bool:
    name = path.name.lower()
    if name.endswith((".tar.gz", ".tgz", ".tar", ".tar.xz", ".tar.bz2")):
        return True
    try:
        with open(path, "rb") as fh:
            head = fh.read(512)
    except OSError:
        return False
    if head[:2] == b"\x1f\x8b":
        return True
    return len(head) >= 262 and head[257:262] == b"ustar"


# --------------------------------------------------------------------------------------- accumulator


class _Acc:
    """Facts offered by the parsers, each with a priority (lower wins); folded into a Host at the end."""

    def __init__(self, origin: str) -> None:
        self.host = Host(origin=origin)
        self.best: dict[str, tuple[int, Any]] = {}
        self.gpu_lists: dict[str, list[list[GpuInfo]]] = {}
        self.kernels: list[tuple[int, KernelInfo]] = []
        self.torches: list[tuple[int, TorchInfo]] = []
        self.package_sets: list[tuple[int, dict[str, str], Source]] = []
        self.dkms: Optional[DkmsInfo] = None
        self.rocm_files: list[RocmInstall] = []
        self.container = ContainerInfo()
        self.container_seen = False
        self.torch_probe_seen = False
        self.recognised = False
        self.text = freetext.TextFacts()  # facts found in free text, folded in last (rocmdoctor.bundle.text)

    def scan_text(self, text: str, file: str) -> None:
        """Free-text facts and known error lines of one input."""
        self.text.facts.extend(freetext.extract(text, file).facts)

    def offer(self, key: str, prio: int, value: Any) -> None:
        if value is None:
            return
        cur = self.best.get(key)
        if cur is None or prio < cur[0]:
            self.best[key] = (prio, value)

    def get(self, key: str) -> Any:
        cur = self.best.get(key)
        return cur[1] if cur else None

    def gpus(self, source: str, gpus: list[GpuInfo]) -> None:
        self.gpu_lists.setdefault(source, []).append(gpus)

    def saw(self, part: str) -> None:
        self.host.captured.add(part)
        self.recognised = True

    def dkms_info(self) -> DkmsInfo:
        if self.dkms is None:
            self.dkms = DkmsInfo()
        return self.dkms


# ----------------------------------------------------------------------------------- kind handlers
# Each handler reads one kind of output (whether it came from cmd/<name> or a sniffed bare file).


def _h_rocminfo(acc: _Acc, text: str, file: str) -> None:
    res = rocminfo.parse_rocminfo(text, file)
    acc.saw("rocminfo")
    acc.gpus("rocminfo", res.gpus)
    if res.cpu_names:
        acc.offer("cpu_model", 2, res.cpu_names[0])
    acc.offer("amdgpu_loaded", 2, res.rock_loaded)
    acc.offer("amdgpu_version", 1, res.rock_version)
    if not res.gpus and res.agents_seen == 0:
        failed = _ROCMINFO_FAILED.search(text)
        if failed:
            line = failed.group(0).strip()
            acc.host.context.setdefault("rocminfo-failed", Fact(line, src(file, text.count("\n", 0, failed.start()) + 1,
                                                                          line)))


# rocminfo ran and the HSA runtime did not initialise (the GPU may well be there: see rocm.runtime-failed).
_ROCMINFO_FAILED = re.compile(r"hsa api call failure[^\n]{0,200}|Unable to open /dev/kfd[^\n]{0,200}|"
                              r"HSA_STATUS_ERROR\w{0,60}[^\n]{0,200}|Failed to get user name[^\n]{0,100}")


def _h_rocm_smi(acc: _Acc, text: str, file: str) -> None:
    acc.saw("rocm-smi")
    acc.gpus("rocm-smi", smi.parse_rocm_smi(text, file))


def _h_amd_smi(acc: _Acc, text: str, file: str) -> None:
    gpus = smi.parse_amd_smi(text, file)
    if gpus or smi.load_json(text) is not None:
        acc.saw("amd-smi")
    acc.gpus("amd-smi", gpus)


def _h_enumerator(acc: _Acc, text: str, file: str) -> None:
    acc.saw("rocm_agent_enumerator")
    acc.gpus("rocm_agent_enumerator", smi.parse_agent_enumerator(text, file))


def _h_dkms(acc: _Acc, text: str, file: str) -> None:
    info = dkms.parse_dkms(dkms.log_lines(text), file)
    d = acc.dkms_info()
    d.entries.extend(info.entries)
    d.errors.extend(info.errors)
    d.build_failures.extend(info.build_failures)
    for k in info.failed_kernels:
        if k not in d.failed_kernels:
            d.failed_kernels.append(k)
    acc.saw("dkms" if (info.entries or info.errors or "dkms-status" in file) else "dkms-log")


def _h_hipconfig(acc: _Acc, text: str, file: str) -> None:
    fact = versions.parse_hipconfig(text, file)
    if fact is not None:
        acc.saw("hipconfig")
        acc.offer("hip_version", 0 if "full" not in file else 1, fact)


def _h_lspci(acc: _Acc, text: str, file: str) -> None:
    res = lspci.parse_lspci(text, file)
    acc.saw("lspci")
    acc.gpus("lspci", res.gpus)
    for gpu, driver in res.drivers:
        if driver == "amdgpu":
            acc.offer("amdgpu_loaded", 3, Fact(True, gpu.sources[-1]))
            break


def _h_dmesg(acc: _Acc, text: str, file: str) -> None:
    kept, version = kernel.parse_dmesg(text, file)
    acc.saw("dmesg")
    acc.host.dmesg.extend(kept)
    acc.offer("amdgpu_version", 2, version)


def _h_pip_freeze(acc: _Acc, text: str, file: str) -> None:
    pkgs = pip.parse_pip_freeze(text)
    if pkgs:
        acc.saw("pip")
        acc.package_sets.append((1, pkgs, src(file, None)))


def _h_pip_list(acc: _Acc, text: str, file: str) -> None:
    pkgs = pip.parse_pip_list_json(text)
    if pkgs:
        acc.saw("pip")
        acc.package_sets.append((0, pkgs, src(file, None)))


def _h_pip_show(acc: _Acc, text: str, file: str) -> None:
    shown = pip.parse_pip_show(text, file)
    if not shown:
        return
    acc.saw("pip-show")
    acc.package_sets.append((4, {n: v for n, v, _, _ in shown}, shown[0][3]))
    for name, version, location, where in shown:
        if name == "torch":
            acc.torches.append((3, TorchInfo(version=version, location=location, source=where)))


def _h_torch_probe(acc: _Acc, text: str, file: str) -> None:
    res = torch_probe.parse_torch_probe(text, file)
    if not res.valid:
        acc.host.parse_notes.append(f"{file}: not a torch probe JSON document")
        return
    acc.saw("torch-probe")
    acc.torch_probe_seen = res.torch_seen
    acc.offer("python", 0, res.python)
    if res.torch is not None:
        acc.torches.append((0, res.torch))
    if res.distributions:
        acc.package_sets.append((2, res.distributions, src(file, None)))


def _h_collect_env(acc: _Acc, text: str, file: str) -> None:
    res = collect_env.parse_collect_env(text, file)
    if not res.recognised:
        return
    acc.saw("collect_env")
    if res.torch is not None:
        acc.torches.append((1, res.torch))
    acc.offer("python", 1, res.python)
    acc.offer("os", 3, res.os if res.os and res.os.id else None)
    if res.kernel_release is not None:
        acc.kernels.append((4, KernelInfo(release=res.kernel_release.value, source=res.kernel_release.source,
                                          is_wsl=kernel.is_wsl_text(res.kernel_release.value))))
    acc.gpus("collect_env", res.gpus)
    if res.packages:
        acc.package_sets.append((3, res.packages, src(file, None, "Versions of relevant libraries")))


def _h_id(acc: _Acc, text: str, file: str) -> None:
    user = users.parse_id(text, file)
    if user is not None:
        acc.saw("id")
        acc.offer("user", 0, user)


def _h_stat_dev(acc: _Acc, text: str, file: str) -> None:
    nodes = users.parse_stat_dev(text, file)
    acc.saw("stat-dev")
    acc.host.device_nodes.extend(nodes)


def _h_docker_info(acc: _Acc, text: str, file: str, stderr: Optional[str] = None) -> None:
    info = docker_info.parse_docker_info(text, file, stderr)
    acc.saw("docker-info")
    acc.container_seen = True
    c = acc.container
    c.docker_reachable = info.docker_reachable
    c.docker_runtimes = info.docker_runtimes
    c.docker_default_runtime = info.docker_default_runtime
    c.docker_error = info.docker_error
    c.source = info.source


def _h_uname(acc: _Acc, text: str, file: str) -> None:
    info = kernel.parse_uname(text, file)
    if info.release:
        acc.saw("uname")
        prio = 0 if (file.endswith("uname-r.txt") or info.version_text is None) else 1
        acc.kernels.append((prio, info))
        acc.offer("hostname", 1, kernel.uname_hostname(text))


def _h_proc_version(acc: _Acc, text: str, file: str) -> None:
    info = kernel.parse_proc_version(text, file)
    if info.release:
        acc.saw("proc-version")
        acc.kernels.append((2, info))


def _h_os_release(acc: _Acc, text: str, file: str) -> None:
    info = osrelease.parse_os_release(text, file)
    if info.id:
        acc.saw("os-release")
        acc.offer("os", 0 if "etc/os-release" in file else 1, info)


def _h_lsb(acc: _Acc, text: str, file: str) -> None:
    info = osrelease.parse_lsb_release(text, file)
    if info.id is None:
        kv = osrelease.parse_os_release(
            text.replace("DISTRIB_ID=", "ID=").replace("DISTRIB_RELEASE=", "VERSION_ID=")
            .replace("DISTRIB_DESCRIPTION=", "PRETTY_NAME="), file)
        info = kv
    if info.id:
        acc.saw("lsb_release")
        acc.offer("os", 2, info)


def _h_modules(acc: _Acc, text: str, file: str) -> None:
    fact = kernel.parse_modules(text, file)
    if fact is not None:
        acc.saw("modules")
        acc.offer("amdgpu_loaded", 0 if file.endswith("proc/modules") else 1, fact)


def _h_module_version(acc: _Acc, text: str, file: str) -> None:
    fact = kernel.parse_module_version(text, file)
    if fact is not None:
        acc.saw("module-version")
        acc.offer("amdgpu_version", 0, fact)


def _h_env(acc: _Acc, text: str, file: str) -> None:
    values, _ = env.parse_env(text)
    acc.saw("env")
    acc.host.env.update(values)
    acc.host.env_source = src(file, None)


def _h_kfd_properties(acc: _Acc, text: str, file: str) -> None:
    gpu = kfd.parse_kfd_node(text, file, 0)
    acc.saw("kfd")
    if gpu is not None:
        gpu.kfd_node = None
        acc.gpus("kfd", [gpu])


def _h_rocm_version(acc: _Acc, text: str, file: str) -> None:
    fact = versions.parse_rocm_version_file(text, file)
    if fact is not None:
        acc.saw("rocm-info-version")
        acc.rocm_files.append(RocmInstall(path="/opt/rocm", version=fact.value, source=fact.source))


def _h_lscpu(acc: _Acc, text: str, file: str) -> None:
    for line in text.splitlines():
        if line.strip().startswith("Model name:"):
            acc.saw("lscpu")
            acc.offer("cpu_model", 0, line.split(":", 1)[1].strip() or None)
            return


def _h_live_facts(acc: _Acc, text: str, file: str) -> None:
    acc.host.live = livefacts.parse(text, file)
    if acc.host.live is not None:
        acc.saw("live-facts")


def _h_mokutil(acc: _Acc, text: str, file: str) -> None:
    acc.host.secure_boot = secureboot.parse_mokutil(text, file)


def _h_group(acc: _Acc, text: str, file: str) -> None:
    acc.saw("group")
    acc.host.groups_file.update(users.parse_group_file(text))


Handler = Callable[[_Acc, str, str], None]

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
    "pip-freeze": _h_pip_freeze,
    "pip-list": _h_pip_list,
    "pip-show": _h_pip_show,
    "torch-probe": _h_torch_probe,
    "collect_env": _h_collect_env,
    "id": _h_id,
    "stat-dev": _h_stat_dev,
    "docker-info": _h_docker_info,
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
_SCAN_KINDS = frozenset({"rocminfo", "collect_env", "dkms", "rocm-smi", "rocm_agent_enumerator", "hipconfig"})


# ------------------------------------------------------------------------------------------ building


def _read_manifest(acc: _Acc, tree: _Tree) -> dict[str, dict[str, Any]]:
    """Manifest facts; returns ``{cmd name: manifest entry}``."""
    text = tree.text("manifest.json")
    if text is None:
        return {}
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        acc.host.parse_notes.append("manifest.json: not valid JSON; ignored")
        return {}
    if not isinstance(data, dict):
        acc.host.parse_notes.append("manifest.json: not a JSON object; ignored")
        return {}
    acc.recognised = True
    for key in ("hostname", "created", "tool"):
        if isinstance(data.get(key), str):
            if key == "hostname":
                acc.offer("hostname", 0, data[key] or None)
            else:
                setattr(acc.host, key, data[key])
    links = data.get("links")
    if isinstance(links, dict):
        for k, v in links.items():
            if isinstance(k, str) and isinstance(v, str):
                tree.links.setdefault(k, v)
    errors = data.get("errors")
    if isinstance(errors, list):
        acc.host.parse_notes.extend(f"capture: {e}"[:300] for e in errors[:50] if isinstance(e, str))
    entries: dict[str, dict[str, Any]] = {}
    commands = data.get("commands")
    if isinstance(commands, list):
        for entry in commands:
            if not isinstance(entry, dict):
                continue
            argv = entry.get("argv") if isinstance(entry.get("argv"), list) else []
            file = entry.get("file") if isinstance(entry.get("file"), str) else None
            name = None
            if file:
                name = PurePosixPath(file).name.rsplit(".", 1)[0]
            if entry.get("missing") is True or entry.get("exit") == 127:
                tool = os.path.basename(str(argv[0])) if argv else (name or "?")
                if tool not in acc.host.commands_missing:
                    acc.host.commands_missing.append(tool)
            if name:
                entries[name] = entry
    return entries


def _read_root(acc: _Acc, tree: _Tree) -> None:
    kfd_nodes: dict[int, str] = {}
    mem_banks: dict[int, list[str]] = {}
    cards: dict[str, dict[str, str]] = {}
    render_by_slot: dict[str, str] = {}
    pci_devs: dict[str, dict[str, str]] = {}
    for name in tree.names():
        if not name.startswith("root/"):
            continue
        host_path = name[4:]
        m = re.fullmatch(r"/sys/class/kfd/kfd/topology/nodes/(\d+)/properties", host_path)
        if m:
            kfd_nodes[int(m.group(1))] = name
            continue
        m = re.fullmatch(r"/sys/class/kfd/kfd/topology/nodes/(\d+)/mem_banks/\d+/properties", host_path)
        if m:
            mem_banks.setdefault(int(m.group(1)), []).append(name)
            continue
        m = re.fullmatch(r"/sys/class/drm/(card\d+)/device/([\w.-]+)", host_path)
        if m:
            cards.setdefault(m.group(1), {})[m.group(2)] = name
            continue
        m = re.fullmatch(r"/sys/bus/pci/devices/([0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])/(\w+)", host_path)
        if m:
            pci_devs.setdefault(m.group(1).lower(), {})[m.group(2)] = name
            continue
        m = re.fullmatch(r"/sys/class/drm/(renderD\d+)/device/uevent", host_path)
        if m:
            text = tree.text(name) or ""
            slot = re.search(r"^PCI_SLOT_NAME=(\S+)", text, re.M)
            if slot:
                render_by_slot[slot.group(1).lower()] = m.group(1)
            continue
        m = re.fullmatch(r"/opt/(rocm[^/]*)/\.info/version", host_path)
        if m:
            fact = versions.parse_rocm_version_file(tree.text(name) or "", name)
            acc.saw("rocm-info-version")
            if fact is not None:
                acc.rocm_files.append(RocmInstall(path=f"/opt/{m.group(1)}", version=fact.value, source=fact.source))
            continue
        handler = _ROOT_FILES.get(host_path)
        if handler is not None:
            text = tree.text(name)
            if text is not None:
                handler(acc, text, name)
            continue
        if host_path in ("/.dockerenv", "/run/.containerenv"):
            acc.container.in_container = True
            acc.container.source = src(name, None, f"{host_path} exists")
            acc.container_seen = True
        elif host_path == "/proc/1/cgroup":
            text = tree.text(name) or ""
            if re.search(r"docker|containerd|kubepods|libpod|lxc", text):
                acc.container.in_container = True
                acc.container.source = src(name, None, "container cgroup")
                acc.container_seen = True
        elif host_path == "/proc/cmdline":
            text = (tree.text(name) or "").strip()
            acc.saw("cmdline")
            acc.host.cmdline = Fact(text, src(name, 1, text))
        elif host_path == "/proc/cpuinfo":
            cm = re.search(r"^model name\s*:\s*(.+)$", tree.text(name) or "", re.M)
            if cm:
                acc.offer("cpu_model", 0, cm.group(1).strip())
    if kfd_nodes:
        acc.saw("kfd")
        gpus = []
        for node in sorted(kfd_nodes):
            vram = None
            for bank in mem_banks.get(node, []):
                size = kfd.parse_mem_bank(tree.text(bank) or "")
                if size:
                    vram = (vram or 0) + size
            gpu = kfd.parse_kfd_node(tree.text(kfd_nodes[node]) or "", kfd_nodes[node], node, vram)
            if gpu is not None:
                gpus.append(gpu)
        acc.gpus("kfd", gpus)
    if pci_devs:
        _read_pci(acc, tree, pci_devs)
    if cards:
        acc.saw("drm")
        gpus = []
        for card in sorted(cards, key=lambda c: int(c[4:])):
            files = {k: tree.text(v) or "" for k, v in cards[card].items()}
            base = f"root/sys/class/drm/{card}/device"
            gpu = drm.parse_drm_card(card, files, base)
            if gpu is None:
                continue
            if gpu.pci_bus and gpu.pci_bus in render_by_slot:
                gpu.render_node = render_by_slot[gpu.pci_bus]
            gpus.append(gpu)
        acc.gpus("drm", gpus)


MAX_GPUS = 256


def _read_pci(acc: _Acc, tree: _Tree, pci_devs: dict[str, dict[str, str]]) -> None:
    """AMD GPUs on the PCI bus and the driver bound to each (from the manifest's `driver` links)."""
    acc.saw("pci")
    gpus = []
    for bus in sorted(pci_devs):
        files = {k: (tree.text(v) or "").strip() for k, v in pci_devs[bus].items()}
        if files.get("vendor", "").lower() != "0x1002":
            continue
        if files.get("class") and not files["class"].lower().startswith(("0x03", "0x12")):
            continue  # the GPU's HDMI audio function and other non-GPU AMD functions
        gpu = GpuInfo(index=0, pci_vendor_id="0x1002", pci_bus=bus,
                      pci_device_id=hex_id(files.get("device", "")) if files.get("device") else None,
                      pci_revision=hex_id(files.get("revision", ""), width=2) if files.get("revision") else None)
        gpu.sources.append(src(pci_devs[bus].get("device") or pci_devs[bus]["vendor"], 1, files.get("device")))
        link = tree.links.get(f"/sys/bus/pci/devices/{bus}/driver")
        if link is not None:
            gpu.pci_driver = link.rstrip("/").rsplit("/", 1)[-1]
        elif acc.host.tool:  # our capture records the link whenever one exists: none means no driver bound
            gpu.pci_driver = ""
        gpus.append(gpu)
    acc.gpus("pci", gpus)


_ROOT_FILES: dict[str, Handler] = {
    "/etc/os-release": _h_os_release,
    "/usr/lib/os-release": _h_os_release,
    "/etc/lsb-release": _h_lsb,
    "/proc/version": _h_proc_version,
    "/proc/modules": _h_modules,
    "/sys/module/amdgpu/version": _h_module_version,
    "/etc/group": _h_group,
}


def _read_cmds(acc: _Acc, tree: _Tree, entries: dict[str, dict[str, Any]]) -> None:
    seen: set[str] = set()
    for name in tree.names():
        if not name.startswith("cmd/") or name.count("/") != 1:
            continue
        if tree.canonical(name) in seen:
            continue  # a link to an output already read
        seen.add(tree.canonical(name))
        base, _, ext = name[4:].rpartition(".")
        if not base or ext not in ("txt", "json"):
            continue
        entry = entries.get(base, {})
        if entry.get("missing") is True:
            continue
        text = tree.text(name)
        if text is None:
            continue
        stderr = tree.text(f"cmd/{base}.stderr")
        kind = CMD_KINDS.get(base)
        kinds = [kind] if kind else _sniff(text)
        for k in kinds:
            if k == "docker-info":
                _h_docker_info(acc, text, name, stderr)
            else:
                KIND_HANDLERS[k](acc, text, name)
            if k in _SCAN_KINDS:
                acc.host.logs.extend(logscan.scan(text, name))
        acc.scan_text(text, name)
        if entry.get("timed_out"):
            acc.host.parse_notes.append(f"{name}: the command timed out; its output may be cut off")
        if base == "dkms-status" and isinstance(entry.get("exit"), int) and entry["exit"] not in (0, 127):
            acc.dkms_info().errors.append(
                Fact(f"dkms status exited with status {entry['exit']}", src(name, None, "exit status"))
            )
    for name in tree.names():
        if name.startswith("cmd/") and name.endswith(".stderr"):
            text = tree.text(name)
            if text:
                acc.host.logs.extend(logscan.scan(text, name))
                acc.scan_text(text, name)
                if name == "cmd/dkms-status.stderr":
                    _h_dkms(acc, text, name)
                elif name == "cmd/docker-info.stderr" and not tree.has("cmd/docker-info.json"):
                    _h_docker_info(acc, "", "cmd/docker-info.json", text)


def _read_logs(acc: _Acc, tree: _Tree) -> None:
    seen: set[str] = set()
    for name in tree.names():
        if not name.startswith("logs/"):
            continue
        if tree.canonical(name) in seen:
            continue  # a link to a log already read: the same text is scanned once
        seen.add(tree.canonical(name))
        text = tree.text(name)
        if text is None:
            continue
        acc.saw("logs")
        acc.host.logs.extend(logscan.scan(text, name))
        acc.scan_text(text, name)
        info = dkms.parse_dkms(dkms.log_lines(text), name) if dkms.may_hold_build_failure(text) else None
        if info is not None and info.build_failures:
            _h_dkms(acc, text, name)


def _sniff(text: str) -> list[str]:
    from rocmdoctor.parse.sniff import sniff  # only bare files and unknown commands need it

    return sniff(text)


def _apply_bare(acc: _Acc, text: str, file: str) -> list[str]:
    """Treat one pasted file as the parts of a bundle that its content shows."""
    kinds = _sniff(text)
    for k in kinds:
        KIND_HANDLERS[k](acc, text, file)
    matches = logscan.scan(text, file)
    acc.host.logs.extend(matches)
    acc.scan_text(text, file)
    if not kinds:
        acc.host.captured.add("logs")
        if matches:
            acc.recognised = True
        info = dkms.parse_dkms(dkms.log_lines(text), file) if dkms.may_hold_build_failure(text) else None
        if info is not None and info.build_failures:
            _h_dkms(acc, text, file)
    return kinds


def _finish(acc: _Acc, tree: Optional[_Tree]) -> Host:
    from rocmdoctor.bundle.text import fold

    fold(acc, acc.text)
    host = acc.host
    host.hostname = acc.get("hostname")
    if acc.get("os") is not None:
        host.os = acc.get("os")
    if acc.kernels:
        acc.kernels.sort(key=lambda t: t[0])
        best = acc.kernels[0][1]
        host.kernel = KernelInfo(
            release=best.release,
            version_text=next((k.version_text for _, k in acc.kernels if k.version_text), None),
            machine=next((k.machine for _, k in acc.kernels if k.machine), None),
            is_wsl=any(k.is_wsl for _, k in acc.kernels),
            source=best.source,
        )
    if "wsl" in host.context:
        host.kernel.is_wsl = True
    host.cpu_model = acc.get("cpu_model")
    host.amdgpu_loaded = acc.get("amdgpu_loaded")
    host.amdgpu_version = acc.get("amdgpu_version")
    host.hip_version = acc.get("hip_version")
    host.user = acc.get("user")
    if acc.get("python") is not None:
        host.python = acc.get("python")
    host.dkms = acc.dkms
    _finish_rocm(acc, tree)
    _finish_packages(acc)
    _finish_torch(acc)
    if acc.container_seen:
        host.container = acc.container
    # No real node has more than a few dozen GPU agents; a pasted or hostile file with thousands would only make
    # every check slow (each GPU is judged against the matrix), so keep the first MAX_GPUS and say so.
    for lists in acc.gpu_lists.values():
        for i, found in enumerate(lists):
            if len(found) > MAX_GPUS:
                host.parse_notes.append(f"{len(found)} GPU agents in one source; only the first {MAX_GPUS} kept")
                lists[i] = found[:MAX_GPUS]
    host.gpus = merge_gpus(acc.gpu_lists, host.parse_notes)
    if tree is not None:
        host.parse_notes.extend(tree.notes)
    host.parse_notes.extend(logscan.LOAD_ERRORS)
    return host_inert(host)  # the one boundary: no host string carries a control character or a newline


def _finish_rocm(acc: _Acc, tree: Optional[_Tree]) -> None:
    host = acc.host
    installs = acc.rocm_files
    named = {i.path: i for i in installs if i.path != "/opt/rocm"}
    default = next((i for i in installs if i.path == "/opt/rocm"), None)
    link = tree.links.get("/opt/rocm") if tree is not None else None
    if link:
        target = "/opt/" + link.rstrip("/").rsplit("/", 1)[-1]
        if target in named:
            default = default or named[target]
    for inst in installs:
        if inst.path == "/opt/rocm" and any(i.version == inst.version for i in named.values()):
            continue  # /opt/rocm is the link to one of the versioned installs
        host.rocm_installs.append(inst)
    if default is not None and default.version:
        host.rocm_version = Fact(default.version, default.source or Source("root/opt/rocm/.info/version"))
    elif len({i.version for i in host.rocm_installs if i.version}) == 1:
        inst = host.rocm_installs[0]
        host.rocm_version = Fact(inst.version or "", inst.source or Source(inst.path))
    elif host.rocm_installs:
        host.parse_notes.append("several ROCm installs and no /opt/rocm link: no single ROCm version chosen")
    elif host.hip_version is not None:
        rocm = versions.hip_to_rocm(host.hip_version.value)
        if rocm:
            host.rocm_version = Fact(rocm, host.hip_version.source)


def _finish_packages(acc: _Acc) -> None:
    if not acc.package_sets:
        return
    acc.package_sets.sort(key=lambda t: t[0])
    merged: dict[str, str] = {}
    for _, pkgs, _ in acc.package_sets:
        for k, v in pkgs.items():
            merged.setdefault(k, v)
    acc.host.packages = merged
    acc.host.packages_source = acc.package_sets[0][2]


def _finish_torch(acc: _Acc) -> None:
    host = acc.host
    from rocmdoctor.bundle.text import PRIO

    if acc.torches and min(p for p, _ in acc.torches) >= PRIO and host.packages.get("torch") \
            and not (acc.torch_probe_seen and acc.get("python") is not None):
        # a package list is a capture: it beats a version read from free text
        acc.torches.append((PRIO - 1, TorchInfo(version=host.packages["torch"], source=host.packages_source)))
    if not acc.torches:
        version = host.packages.get("torch")
        if version and not (acc.torch_probe_seen and acc.get("python") is not None):
            host.torch = TorchInfo(version=version, source=host.packages_source)
        return
    acc.torches.sort(key=lambda t: t[0])
    best = acc.torches[0][1]
    for _, other in acc.torches[1:]:
        if other.version and best.version and other.version != best.version:
            continue  # a different torch (another env): do not mix its facts in
        for f in fields(TorchInfo):
            if f.name == "source":
                continue
            if getattr(best, f.name) in (None, []) and getattr(other, f.name) not in (None, []):
                setattr(best, f.name, getattr(other, f.name))
    host.torch = best


# ---------------------------------------------------------------------------------------------- API


def load_host(path: Union[str, Path]) -> Host:
    """A :class:`Host` from a bundle directory, a ``.tar.gz`` of one, or one bare pasted file.

    Raises :class:`BadInput` (exit 2) for a missing or unreadable path, a corrupt or unsafe archive,
    an empty or binary file, or a directory with nothing rocmdoctor recognises.
    """
    p = Path(path)
    try:
        st = p.stat()
    except FileNotFoundError:
        raise BadInput(f"{path}: no such file or directory") from None
    except OSError as exc:
        raise BadInput(f"{path}: cannot read ({exc.strerror or exc})") from None
    origin = str(path)
    if stat.S_ISDIR(st.st_mode):
        return _from_tree(_dir_tree(p), origin, str(path))
    if not stat.S_ISREG(st.st_mode):
        raise BadInput(f"{path}: not a regular file or directory")
    if _is_tar(p):
        return _from_tree(_tar_tree(p), origin, str(path))
    return _from_bare(p, origin)


def _from_tree(tree: _Tree, origin: str, label: str) -> Host:
    acc = _Acc(origin)
    names = tree.names()
    layout = any(n in _LAYOUT_TOP or (n.split("/", 1)[0] in _LAYOUT_DIRS and "/" in n) for n in names)
    if layout:
        # Any file where a bundle keeps its parts makes this a bundle (everything in it is optional).
        acc.recognised = any(n == "env.txt" or n.split("/", 1)[0] in _LAYOUT_DIRS for n in names)
        entries = _read_manifest(acc, tree)
        _read_root(acc, tree)
        _read_cmds(acc, tree, entries)
        env_text = tree.text("env.txt")
        if env_text is not None:
            _h_env(acc, env_text, "env.txt")
        _read_logs(acc, tree)
        acc.host.health = health.from_bundle(names, tree.text)
        if acc.host.health:
            acc.saw("health")
        if acc.host.secure_boot is None:  # mokutil's answer (read with cmd/) first, else the efivar
            acc.host.secure_boot = secureboot.from_bundle(names, tree.text)
    else:
        # A directory of loose pasted files (a bug report's attachments): each one is read exactly as it would
        # be alone (`check --from paste.txt`), free text included; if nothing in them can be judged, `check`
        # says so (exit 2) instead of this loader refusing what a single file would accept.
        for name in names:
            if "/" in name or _IGNORED_LOOSE.search(name):
                continue
            text = tree.text(name)
            if text is None or not text.strip() or is_binary(text):
                continue
            _apply_bare(acc, text, name)
            acc.recognised = True
    if not acc.recognised:
        raise BadInput(
            f"{label}: nothing rocmdoctor recognises (expected a capture bundle with manifest.json, root/, cmd/, "
            "env.txt or logs/, or pasted rocminfo / collect_env / dkms status / error output)"
        )
    return _finish(acc, tree)


def _from_bare(path: Path, origin: str) -> Host:
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise BadInput(f"{path}: cannot read ({exc.strerror or exc})") from None
    acc = _Acc(origin)
    if len(data) > MAX_FILE_BYTES:
        acc.host.parse_notes.append(f"{path.name}: larger than {MAX_FILE_BYTES >> 20} MiB; only the start was read")
        data = data[:MAX_FILE_BYTES]
    text = decode(data)
    if not text.strip():
        raise BadInput(f"{path}: the file is empty")
    if is_binary(text):
        raise BadInput(f"{path}: binary data, not a capture bundle or pasted text")
    kinds = _apply_bare(acc, text, path.name)
    if not kinds:
        acc.host.parse_notes.append(f"{path.name}: read as free text (no known command output recognised)")
    return _finish(acc, None)
