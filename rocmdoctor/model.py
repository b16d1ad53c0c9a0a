"""The typed host model: everything rocmdoctor knows about one host, each fact with its source.

Capture writes a bundle, the parsers in :mod:`rocmdoctor.parse` fill a :class:`Host` from it, and the
checks in :mod:`rocmdoctor.judge` judge that ``Host`` against the matrix. Nothing in this
module reads files or runs commands: it is plain data, so that a laptop, a pasted bug report, a
fixture and a fleet node all end up as the same object.

A value of ``None`` always means "not captured" (we could not see it), never "absent": checks must
tell the two apart and say "not captured" instead of passing silently.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import Enum
from typing import Any, Generic, Optional, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Source:
    """Where a fact came from: a bundle-relative file and, where known, a 1-based line number."""

    file: str
    line: Optional[int] = None
    text: Optional[str] = None  # the source line itself, stripped, when it helps the reader
    # How much to trust it: "capture" (a tool's output read by its format parser) or "free-text" (a line of
    # prose, a REPL answer, a pip log: rocmdoctor.parse.freetext). A format parser's fact wins over free text.
    kind: str = "capture"

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.text}" if self.text else where


@dataclass(frozen=True)
class Fact(Generic[T]):
    """A value plus the source it was read from."""

    value: T
    source: Source


@dataclass
class OsInfo:
    id: Optional[str] = None  # os-release ID: ubuntu, rhel, sles, debian, ol, rocky, azurelinux, ...
    version_id: Optional[str] = None  # os-release VERSION_ID: "22.04", "9.4", "15.5"
    version: Optional[str] = None  # full version where known: "22.04.5" (from PRETTY_NAME / VERSION)
    pretty_name: Optional[str] = None
    id_like: list[str] = field(default_factory=list)
    source: Optional[Source] = None


@dataclass
class KernelInfo:
    release: Optional[str] = None  # uname -r: "6.5.0-14-generic"
    version_text: Optional[str] = None  # /proc/version or uname -a
    machine: Optional[str] = None  # x86_64
    is_wsl: bool = False
    source: Optional[Source] = None


# Which source tells a GPU's *real* ISA, most authoritative first. Kernel-side and PCI sources are not affected by
# HSA_OVERRIDE_GFX_VERSION; the user-space ones (rocminfo, rocm_agent_enumerator, torch's collect_env, a log line)
# report the overridden ISA. Here, beside GpuInfo.gfx_by_source, because parse, diagnose and judge all rank by it.
GFX_PRIORITY = ("kfd", "pci-id", "amd-smi", "rocm-smi", "lspci", "name", "rocminfo", "rocm_agent_enumerator",
                "collect_env", "log")
USER_SPACE_SOURCES = ("rocminfo", "rocm_agent_enumerator", "collect_env", "log")


@dataclass
class GpuInfo:
    """One GPU agent. ``gfx_by_source`` keeps every source's opinion so conflicts stay visible."""

    index: int  # order of enumeration within the host (0-based, GPUs only)
    name: Optional[str] = None  # marketing name: "AMD Instinct MI210", "AMD Radeon RX 6700 XT"
    gfx: Optional[str] = None  # the best-supported guess: "gfx90a" (first of gfx_by_source by priority)
    gfx_by_source: dict[str, str] = field(default_factory=dict)  # {"rocminfo": "gfx1030", "pci-id": "gfx1031"}
    pci_vendor_id: Optional[str] = None  # "0x1002"
    pci_device_id: Optional[str] = None  # "0x73df" (lower-case hex with 0x)
    pci_revision: Optional[str] = None  # "0xc1"
    pci_bus: Optional[str] = None  # "0000:03:00.0"
    is_apu: Optional[bool] = None  # integrated GPU (shares system memory)
    vram_bytes: Optional[int] = None
    compute_units: Optional[int] = None
    kfd_node: Optional[int] = None
    drm_card: Optional[str] = None  # "card0"
    render_node: Optional[str] = None  # "renderD128"
    uuid: Optional[str] = None
    serial: Optional[str] = None
    pci_driver: Optional[str] = None  # driver bound on the PCI bus: "amdgpu", "vfio-pci"; "" none; None unknown
    pcie_width: Optional[int] = None  # drm current_link_width: lanes in use
    pcie_max_width: Optional[int] = None  # max_link_width: lanes the device/slot pair can do
    pcie_speed: Optional[str] = None  # current_link_speed: "16.0 GT/s PCIe"
    pcie_max_speed: Optional[str] = None
    # the kernel's chip for a PCI id the GPU table lacks ("OLAND (GCN1 (SI))") when kfd has no case for it:
    # no ROCm can use the GPU (matrices/pci_chips.toml)
    chip_without_kfd: Optional[str] = None
    sources: list[Source] = field(default_factory=list)


@dataclass
class DkmsEntry:
    module: str  # "amdgpu"
    version: str  # "6.3.6-1697589.22.04"
    kernel: Optional[str] = None  # "6.5.0-14-generic"; None for "added" lines without kernel
    arch: Optional[str] = None
    status: str = ""  # "installed", "built", "added", "broken", ...
    source: Optional[Source] = None


@dataclass
class DkmsInfo:
    entries: list[DkmsEntry] = field(default_factory=list)
    errors: list[Fact[str]] = field(default_factory=list)  # dkms status itself failed / stale tree messages
    build_failures: list[Fact[str]] = field(default_factory=list)  # "Error! Bad return status for module build"
    failed_kernels: list[str] = field(default_factory=list)  # kernels named in build-failure lines


@dataclass
class RocmInstall:
    path: str  # "/opt/rocm-6.0.2"
    version: Optional[str]  # "6.0.2"
    source: Optional[Source] = None


@dataclass
class PythonInfo:
    executable: Optional[str] = None
    version: Optional[str] = None  # "3.11.7"
    implementation: Optional[str] = None  # "cpython"
    platform_tags: list[str] = field(default_factory=list)  # most specific first: "cp311-cp311-manylinux_2_28_x86_64"
    source: Optional[Source] = None


class TorchBuild(str, Enum):
    """What kind of wheel a torch is: a closed set the checks branch on. The JSON report writes the value."""

    ROCM = "rocm"
    CUDA = "cuda"
    CPU = "cpu"
    NOT_ROCM = "not-rocm"  # torch.version.hip is None: a CPU or a CUDA build
    UNKNOWN = "unknown"

    def __str__(self) -> str:  # f"{build}" is "rocm" on every Python (3.12 formats a mixed-in Enum by str())
        return self.value


@dataclass
class TorchInfo:
    """The target interpreter's torch, as far as it could be seen without importing it."""

    version: Optional[str] = None  # "2.5.1+rocm6.2"
    hip: Optional[str] = None  # "6.2.41133-dd7f95766"
    cuda: Optional[str] = None  # "12.4"
    git_version: Optional[str] = None
    bundled_libs: list[str] = field(default_factory=list)  # file names under torch/lib matching GPU runtimes
    arch_list: list[str] = field(default_factory=list)  # from a live probe or a log, when known
    cuda_available: Optional[bool] = None  # from collect_env "Is CUDA available" or a REPL log
    location: Optional[str] = None
    source: Optional[Source] = None
    # What free text proved about the build when the version does not say: "cuda" (torch.version.hip None
    # and torch.version.cuda set, or pip pulled nvidia-*-cu12), "cpu" (both None), "not-rocm" (hip None).
    proven_build: Optional[str] = None
    therock_family: Optional[str] = None  # installed from TheRock's per-family index "gfx110X-dgpu" (its targets only)
    proof: Optional[str] = None  # why, when the proof is an inference over several lines rather than torch's own words
    proof_sources: list[Source] = field(default_factory=list)  # those other lines

    @property
    def build(self) -> TorchBuild:
        """What kind of wheel this is, from the strongest evidence: the version label, HIP/CUDA versions, the
        bundled runtime libraries."""
        v = self.version or ""
        if self.proven_build and not self.hip and "+rocm" not in v:
            try:
                return TorchBuild(self.proven_build)
            except ValueError:
                return TorchBuild.UNKNOWN
        if self.hip or "+rocm" in v:
            return TorchBuild.ROCM
        if self.cuda or "+cu" in v:
            return TorchBuild.CUDA
        if "+cpu" in v:
            return TorchBuild.CPU
        if any("amdhip" in lib for lib in self.bundled_libs):
            return TorchBuild.ROCM
        if any("cudart" in lib or "libcuda" in lib for lib in self.bundled_libs):
            return TorchBuild.CUDA
        if self.version and self.hip is None and self.cuda is None and self.source is not None:
            # version.py read and neither hip nor cuda set: a CPU build.
            return TorchBuild.CPU if self.source.file.endswith("torch-probe.json") else TorchBuild.UNKNOWN
        return TorchBuild.UNKNOWN


@dataclass
class UserInfo:
    name: Optional[str] = None
    uid: Optional[int] = None
    groups: list[str] = field(default_factory=list)
    gids: list[int] = field(default_factory=list)
    source: Optional[Source] = None


@dataclass
class DeviceNode:
    path: str  # "/dev/kfd", "/dev/dri/renderD128"
    mode: Optional[str] = None  # octal string "660"
    owner: Optional[str] = None
    group: Optional[str] = None
    uid: Optional[int] = None
    gid: Optional[int] = None
    exists: bool = True
    source: Optional[Source] = None


@dataclass
class LogMatch:
    """A known error signature found in free text (logs, stderr, collect_env crash)."""

    signature: str  # id from the signatures table, e.g. "no-binary-for-gpu"
    finding_id: str  # "log.no-binary-for-gpu"
    text: str  # the matched line
    groups: dict[str, str] = field(default_factory=dict)  # named groups, e.g. {"gfx": "gfx1031"}
    source: Optional[Source] = None


@dataclass
class ContainerInfo:
    in_container: Optional[bool] = None
    docker_reachable: Optional[bool] = None
    docker_runtimes: list[str] = field(default_factory=list)
    docker_default_runtime: Optional[str] = None
    docker_error: Optional[str] = None
    source: Optional[Source] = None


@dataclass
class GpuHealth:
    """One GPU's health telemetry (RAS/ECC counters, retired pages, link and throttle state).

    ``gpu`` names the GPU the way its source does ("gpu 0" for amd-smi, "card1" for sysfs); every
    counter is ``None`` when that source did not report it (amd-smi prints "N/A" on GPUs without RAS).
    """

    gpu: str
    ecc_correctable: Optional[Fact[int]] = None
    ecc_uncorrectable: Optional[Fact[int]] = None
    ecc_deferred: Optional[Fact[int]] = None
    bad_pages_retired: Optional[Fact[int]] = None  # gpu_vram_bad_pages rows flagged R (reserved)
    bad_pages_pending: Optional[Fact[int]] = None  # rows flagged P (pending) or F (could not be reserved)
    xgmi_errors: Optional[Fact[str]] = None  # amd-smi xgmi_err / ras xgmi_wafl ue count, as text
    throttle: Optional[Fact[str]] = None  # amd-smi power.throttle_status: THROTTLED / UNTHROTTLED
    pcie_dpm_max_speed: Optional[Fact[str]] = None  # top level of pp_dpm_pcie: "16.0GT/s, x16"
    hot: Optional[Fact[str]] = None  # a hwmon sensor at/over its critical limit: "junction 101 C (crit 100 C)"
    data_path: Optional[Fact[str]] = None  # rocm_bandwidth_test -v: a copy to/from this GPU failed validation


@dataclass
class ContainerMapping:
    """A running container as the docker SDK shows it (only what GPU access depends on)."""

    name: str
    image: str
    devices: list[str] = field(default_factory=list)  # each --device as the container sees it (PathInContainer)
    cdi: list[str] = field(default_factory=list)  # DeviceRequests ids (CDI: amd.com/gpu=all)
    privileged: bool = False
    gpu_env: list[str] = field(default_factory=list)  # HIP_/ROCR_/HSA_ variable names set in it
    shm_bytes: Optional[int] = None


@dataclass
class LiveFacts:
    """What a live check on this machine saw with psutil / cgroups / the docker SDK (None = not seen)."""

    ram_bytes: Optional[int] = None
    shm_bytes: Optional[int] = None
    kfd_holders: Optional[list[str]] = None  # "pid name (user)" of processes with /dev/kfd open
    cgroup_memory_max: Optional[int] = None  # bytes; None = unlimited or not seen
    containers: Optional[list[ContainerMapping]] = None
    source: Optional[Source] = None


@dataclass
class Host:
    """One host at one moment. Every field may be empty; ``captured`` lists what was seen."""

    hostname: Optional[str] = None
    origin: str = ""  # path of the bundle / file this came from, or "live"
    created: Optional[str] = None
    tool: Optional[str] = None
    os: OsInfo = field(default_factory=OsInfo)
    kernel: KernelInfo = field(default_factory=KernelInfo)
    cpu_model: Optional[str] = None
    gpus: list[GpuInfo] = field(default_factory=list)
    cmdline: Optional[Fact[str]] = None  # /proc/cmdline (nomodeset, modprobe.blacklist=amdgpu, iommu=pt)
    amdgpu_loaded: Optional[Fact[bool]] = None
    amdgpu_version: Optional[Fact[str]] = None  # /sys/module/amdgpu/version or modinfo
    dkms: Optional[DkmsInfo] = None
    rocm_installs: list[RocmInstall] = field(default_factory=list)
    rocm_version: Optional[Fact[str]] = None  # best single answer: /opt/rocm -> version, rocminfo runtime, ...
    hip_version: Optional[Fact[str]] = None  # hipconfig
    python: PythonInfo = field(default_factory=PythonInfo)
    packages: dict[str, str] = field(default_factory=dict)  # normalised name -> version (pip freeze/list)
    packages_source: Optional[Source] = None
    torch: Optional[TorchInfo] = None
    user: Optional[UserInfo] = None
    device_nodes: list[DeviceNode] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    env_source: Optional[Source] = None
    dmesg: list[Fact[str]] = field(default_factory=list)  # amdgpu/kfd related lines only
    logs: list[LogMatch] = field(default_factory=list)
    container: Optional[ContainerInfo] = None
    groups_file: dict[str, int] = field(default_factory=dict)  # /etc/group name -> gid (render, video)
    health: list[GpuHealth] = field(default_factory=list)  # RAS/ECC/throttle telemetry, one per GPU and source
    secure_boot: Optional[Fact[bool]] = None  # mokutil --sb-state / SecureBoot efivar: True = enforced
    live: Optional[LiveFacts] = None  # cmd/live-facts.json: psutil/cgroup/docker facts of a live local check
    captured: set[str] = field(default_factory=set)  # which parts were seen: "rocminfo", "kfd", "drm", ...
    commands_missing: list[str] = field(default_factory=list)  # tools the capture found absent
    parse_notes: list[str] = field(default_factory=list)  # what a parser could not understand
    # Where the report was written and what ran the failing process, from free text: "wsl", "windows",
    # "container", "venv", "service" (a systemd unit), "rocminfo-failed",
    # "rocm-runtime-started" (rocminfo's system attributes: hsa_init succeeded here). Each with the line that says so.
    context: dict[str, Fact[str]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary for reports (sets become sorted lists)."""
        d = asdict(self)
        d["captured"] = sorted(self.captured)
        return d


class Severity(str, Enum):
    """Ordered from best to worst for exit-code purposes (``skip`` and ``info`` never fail)."""

    OK = "ok"
    INFO = "info"
    SKIP = "skip"
    WARN = "warn"
    FAIL = "fail"
    ERROR = "error"

    @property
    def rank(self) -> int:
        return _RANK[self]


_RANK = {
    Severity.OK: 0,
    Severity.SKIP: 1,
    Severity.INFO: 2,
    Severity.WARN: 3,
    Severity.FAIL: 4,
    Severity.ERROR: 5,
}


@dataclass
class Fix:
    """How to fix a finding: prose, the exact commands, and where to read more."""

    explanation: str = ""
    commands: list[str] = field(default_factory=list)
    url: Optional[str] = None


@dataclass
class Finding:
    id: str  # stable, public: "torch.arch-missing"
    severity: Severity
    title: str
    detail: str = ""
    evidence: list[str] = field(default_factory=list)
    fix: Optional[Fix] = None
    # The id of the root-cause finding this one follows from (rocmdoctor.judge.causes, data/causes.toml);
    # None for a root cause or an unrelated finding.
    cause: Optional[str] = None
    # set by a check whose evidence is the root by itself (the reporter says the machine has no AMD GPU): the cause
    # table never makes it a consequence (not serialised; the JSON says it by a null cause)
    root: bool = False

    @property
    def area(self) -> str:
        return self.id.split(".", 1)[0]

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "severity": self.severity.value,
            "title": self.title,
            "detail": self.detail,
            "evidence": list(self.evidence),
            "fix": None
            if self.fix is None
            else {"explanation": self.fix.explanation, "commands": list(self.fix.commands), "url": self.fix.url},
            "cause": self.cause,
        }
