"""Facts offered by many sources, merged into one :class:`Host` by ONE priority table (:data:`PRIORITY`).

A bundle often tells the same fact several times: the kernel release in ``uname -r``, ``/proc/version``,
collect_env's platform string and a pasted log line. Every handler offers what it read under the name of
its source; the table says which source beats which and why, so a partial paste still yields the facts it
holds and a full bundle always picks the most direct evidence. Free text (:mod:`rocmdoctor.bundle.text`)
is always last: prose proves less than any command's output.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any, Optional

from rocmdoctor.limits import LIMITS
from rocmdoctor.model import ContainerInfo, DkmsInfo, Fact, GpuInfo, Host, KernelInfo, RocmInstall, Source, TorchInfo
from rocmdoctor.parse import freetext, versions
from rocmdoctor.parse import logs as logscan
from rocmdoctor.parse.gpus import GFX_PRIORITY, MERGE_ORDER, merge_gpus
from rocmdoctor.sanitize import host_inert

# fact -> its sources, best first. The name is what a handler passes to Acc.offer/kernel/torch/packages.
PRIORITY: dict[str, tuple[str, ...]] = {
    # The capture's own record of the host name beats the second word of `uname -a`.
    "hostname": ("manifest", "uname"),
    # The kernel's own CPU table and lscpu (which reads it) beat rocminfo's CPU agent name.
    "cpu_model": ("cpuinfo", "lscpu", "rocminfo"),
    # /proc/modules is the kernel's answer; lsmod prints it; rocminfo's "ROCk module is loaded" line and
    # lspci's "Kernel driver in use" say it indirectly.
    # amd-smi names the driver it talks to (its DRIVER section) only when amdgpu is up.
    "amdgpu_loaded": ("proc-modules", "lsmod", "rocminfo", "amd-smi", "lspci"),
    # The loaded module's version file beats what rocminfo, amd-smi and the boot log print.
    "amdgpu_version": ("module-version", "rocminfo", "amd-smi", "dmesg"),
    # `hipconfig --version` is the bare version; `hipconfig --full` repeats it among other text.
    "hip_version": ("hipconfig", "hipconfig-full", "text"),
    # The interpreter that ran the probe beats collect_env's report; a major.minor in prose comes last.
    "python": ("torch-probe", "collect_env", "text", "text-minor"),
    # /etc/os-release overrides /usr/lib/os-release (os-release(5)); then lsb_release, collect_env's
    # "OS:" line, KEY=value lines quoted in a report and last the distribution named in prose.
    "os": ("etc-os-release", "usr-os-release", "lsb_release", "collect_env", "text-os-release", "text"),
    "user": ("id",),
    # `uname -r` is the release alone; `uname -a` and /proc/version carry it among other words;
    # collect_env reads it from Python's platform string.
    "kernel": ("uname-r", "uname-a", "proc-version", "collect_env", "text"),
    # The probe imported the very torch that runs; collect_env did too; pip show and a package list only
    # know what is installed (a package list still beats a version read from free text).
    "torch": ("torch-probe", "collect_env", "pip-show", "package-list", "text"),
    # `pip list --format json` is exact; freeze may show `@ url`; the probe lists only distributions it saw;
    # collect_env only "relevant libraries"; `pip show` only the packages asked for.
    "packages": ("pip-list", "pip-freeze", "torch-probe", "collect_env", "pip-show"),
    # GPU records are merged field by field in rocmdoctor.parse.gpus (shown here so the whole order is in
    # one place): the order lists become the base, and whose gfx wins when sources disagree.
    "gpu-records": MERGE_ORDER,
    "gpu-gfx": GFX_PRIORITY,
}


def rank(fact: str, source: str) -> int:
    """Position of ``source`` in ``PRIORITY[fact]`` (lower wins); a KeyError/ValueError is a bug in a handler."""
    return PRIORITY[fact].index(source)


class Acc:
    """Facts offered by the parsers, each ranked by :data:`PRIORITY`; folded into a Host by :func:`finish`."""

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

    def offer(self, key: str, source: str, value: Any) -> None:
        """``value`` for ``key`` from ``source``: kept when no better-ranked source offered one first."""
        if value is None:
            return
        prio = rank(key, source)
        cur = self.best.get(key)
        if cur is None or prio < cur[0]:
            self.best[key] = (prio, value)

    def get(self, key: str) -> Any:
        cur = self.best.get(key)
        return cur[1] if cur else None

    def kernel(self, source: str, info: KernelInfo) -> None:
        self.kernels.append((rank("kernel", source), info))

    def torch(self, source: str, info: TorchInfo) -> None:
        self.torches.append((rank("torch", source), info))

    def packages(self, source: str, pkgs: dict[str, str], where: Source) -> None:
        self.package_sets.append((rank("packages", source), pkgs, where))

    def gpus(self, source: str, gpus: list[GpuInfo]) -> None:
        self.gpu_lists.setdefault(source, []).append(gpus)

    def saw(self, part: str) -> None:
        self.host.captured.add(part)
        self.recognised = True

    def dkms_info(self) -> DkmsInfo:
        if self.dkms is None:
            self.dkms = DkmsInfo()
        return self.dkms

    def in_container(self, source: Source) -> None:
        self.container.in_container = True
        self.container.source = source
        self.container_seen = True


def finish(acc: Acc, links: dict[str, str], notes: list[str]) -> Host:
    """The Host: the best offer of every fact, merged lists, then ``notes`` (the reader's) and sanitising."""
    host = acc.host
    host.hostname = acc.get("hostname")
    if acc.get("os") is not None:
        host.os = acc.get("os")
    _finish_kernel(acc)
    host.cpu_model = acc.get("cpu_model")
    host.amdgpu_loaded = acc.get("amdgpu_loaded")
    host.amdgpu_version = acc.get("amdgpu_version")
    host.hip_version = acc.get("hip_version")
    host.user = acc.get("user")
    if acc.get("python") is not None:
        host.python = acc.get("python")
    host.dkms = acc.dkms
    _finish_rocm(acc, links)
    _finish_packages(acc)
    _finish_torch(acc)
    if acc.container_seen:
        host.container = acc.container
    _finish_gpus(acc)
    host.parse_notes.extend(notes)
    host.parse_notes.extend(logscan.LOAD_ERRORS)
    return host_inert(host)  # the one boundary: no host string carries a control character or a newline


def _finish_kernel(acc: Acc) -> None:
    host = acc.host
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


def _finish_gpus(acc: Acc) -> None:
    """No real node has more than a few dozen GPU agents; a pasted or hostile file with thousands would only make
    every check slow (each GPU is judged against the matrix), so keep the first ``LIMITS["gpus"]`` and say so."""
    host = acc.host
    most = LIMITS["gpus"]
    for lists in acc.gpu_lists.values():
        for i, found in enumerate(lists):
            if len(found) > most:
                host.parse_notes.append(f"{len(found)} GPU agents in one source; only the first {most} kept")
                lists[i] = found[:most]
    host.gpus = merge_gpus(acc.gpu_lists, host.parse_notes)


def _finish_rocm(acc: Acc, links: dict[str, str]) -> None:
    host = acc.host
    installs = acc.rocm_files
    named = {i.path: i for i in installs if i.path != "/opt/rocm"}
    default = next((i for i in installs if i.path == "/opt/rocm"), None)
    link = links.get("/opt/rocm")
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
    elif len(host.rocm_installs) > 1:
        host.parse_notes.append("several ROCm installs and no /opt/rocm link: no single ROCm version chosen")
    elif host.hip_version is not None:
        rocm = versions.hip_to_rocm(host.hip_version.value)
        if rocm:
            host.rocm_version = Fact(rocm, host.hip_version.source)


def _finish_packages(acc: Acc) -> None:
    if not acc.package_sets:
        return
    acc.package_sets.sort(key=lambda t: t[0])
    merged: dict[str, str] = {}
    for _, pkgs, _ in acc.package_sets:
        for k, v in pkgs.items():
            merged.setdefault(k, v)
    acc.host.packages = merged
    acc.host.packages_source = acc.package_sets[0][2]


def _finish_torch(acc: Acc) -> None:
    host = acc.host
    probed_python = acc.torch_probe_seen and acc.get("python") is not None  # the probe saw no torch: none there
    text = rank("torch", "text")
    if acc.torches and min(p for p, _ in acc.torches) >= text and host.packages.get("torch") and not probed_python:
        acc.torch("package-list", TorchInfo(version=host.packages["torch"], source=host.packages_source))
    if not acc.torches:
        version = host.packages.get("torch")
        if version and not probed_python:
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
