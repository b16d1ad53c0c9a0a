"""The compatibility matrix as frozen, typed rows: what ``matrices/*.toml`` holds once built.

Kept apart from the lookups (``query``) and the reading of the files (``load``) so that judge checks,
the installer and the tests can name a row type without pulling in either.  ``SupportStatus`` is a
``str`` enum: JSON output and callers that still compare with plain strings keep working.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Optional


class SupportStatus(str, Enum):
    """A gfx target's status in one ROCm release (see ``Matrix.support_status``)."""

    SUPPORTED = "supported"
    DEPRECATED = "deprecated"  # still runs, marked for removal
    REMOVED = "removed"  # listed in an earlier release, gone from this one
    NEVER = "never"  # never in this release's list
    UNKNOWN = "unknown"  # the release is unknown or its references give no GPU list (5.0-5.5)

    def __str__(self) -> str:  # "supported", not "SupportStatus.SUPPORTED", in messages
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)

    @property
    def runs(self) -> bool:
        """Supported or deprecated: the release ships code for the target."""
        return self in (SupportStatus.SUPPORTED, SupportStatus.DEPRECATED)


@dataclass(frozen=True)
class OsSupport:
    os_id: str  # os-release ID: "ubuntu", "rhel", "sles", "debian", "ol", "rocky", "azurelinux", "centos"
    version: str  # "22.04.5", "9.4", "15.6" (SLES SP as 15.N)
    kernels: tuple[str, ...] = ()  # validated kernel series: ("5.15", "6.8") or ("5.14.0-427",)
    gfx_only: tuple[str, ...] = ()  # per-GPU restriction from footnotes: only these targets on this OS
    source: str = ""
    note: str = ""  # footnote text behind gfx_only, product-level detail the gfx list cannot carry


@dataclass(frozen=True)
class RocmRelease:
    version: str  # "6.2.4"
    date: Optional[str]
    os: tuple[OsSupport, ...]
    gfx_supported: tuple[str, ...]
    gfx_deprecated: tuple[str, ...]
    gfx_removed: tuple[str, ...]  # removed in or before this release (was supported earlier)
    dkms_base: Optional[str]  # amdgpu-dkms base version "6.8.5"
    dkms_pattern: Optional[str]  # regex matching `dkms status` version for this release
    driver_window: Optional[str]  # prose: "±2 releases" / "up to a year apart"
    kmd_compatible: tuple[str, ...]  # kernel-driver (KMD) release series this user space supports: ("6.0", "6.1", ...)
    hip_prefix: Optional[str]  # "6.2.41133"
    source: str = ""
    uncertain: tuple[str, ...] = ()  # names of fields marked uncertain
    gfx_known: bool = True  # False: no GPU list in the references for this release (5.0-5.5)
    gfx_os_only: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (gfx, ("ubuntu 24.04.2", ...)) footnotes
    driver: tuple[str, ...] = ()  # "AMD GPU Driver (amdgpu)" versions listed for 7.x ("30.10.2", ...)
    notes: tuple[str, ...] = ()
    kmd_source: str = ""  # where kmd_compatible comes from
    wsl: Optional[bool] = None  # False: AMD said this release has no WSL build; None: not in the data
    wsl_source: str = ""

    @property
    def series(self) -> str:
        """"6.2" for "6.2.4": the granularity of wheel indexes and dkms mapping."""
        return ".".join(self.version.split(".")[:2])


@dataclass(frozen=True)
class GpuProduct:
    name: str
    pci_ids: tuple[str, ...]  # "0x740f" (lower-case, 0x-prefixed); revision-specific entries as "0x73df:0xc1"
    peak_hbm_bw_gbs: Optional[float] = None
    peak_fp16_tflops: Optional[float] = None
    peak_bf16_tflops: Optional[float] = None
    source: str = ""
    vram_gib: Optional[float] = None
    compute_units: Optional[int] = None
    uncertain: tuple[str, ...] = ()
    derivation: str = ""  # how the PCI ids were matched (amdgpu.ids name match, by hand, ...)


@dataclass(frozen=True)
class GpuTarget:
    gfx: str
    family: str  # "CDNA2", "RDNA3", "GCN5", "APU-RDNA3", ...
    segment: str  # "Instinct", "Radeon PRO", "Radeon", "APU"
    wavefront: Optional[int]
    lds_kib: Optional[int]
    products: tuple[GpuProduct, ...]
    override: Optional[str] = None  # HSA_OVERRIDE_GFX_VERSION value, e.g. "10.3.0"
    override_broken: bool = False  # override known to hang or fault for this target
    override_note: str = ""
    is_apu: bool = False
    source: str = ""
    override_source: str = ""
    pci_ids: tuple[str, ...] = ()  # device ids known for this target without a product row (APUs)
    wsl: Optional[bool] = None  # False: AMD said ROCm on WSL does not support it; None: not in the data
    wsl_source: str = ""
    wsl_driver_through: str = ""  # "25.5.1": not on WSL with Windows drivers up to this one; later ones not judged
    wsl_driver_source: str = ""


@dataclass(frozen=True)
class TorchVariant:
    torch: str  # "2.5.1"
    rocm: str  # "6.2"
    index_url: str  # the pytorch channel for rocm 6.2: ".../whl/rocm6.2" (matrices/channels.toml)
    channel: str  # "pytorch" | "amd" | "nightly"
    triton_package: Optional[str]  # "pytorch-triton-rocm" | "triton-rocm"
    triton_version: Optional[str]
    torchvision: Optional[str]
    torchaudio: Optional[str]
    pythons: tuple[str, ...]  # ("3.9", "3.10", ...)
    gfx: tuple[str, ...]  # targets compiled into the wheel
    local_label: str = ""  # "+rocm6.2" or AMD's "+rocm6.4.1.git1ded221d"
    source: str = ""
    uncertain: tuple[str, ...] = ()
    find_links: bool = False  # True: a flat directory for `pip -f`, not a PEP 503 index
    device_extras: tuple[str, ...] = ()  # TheRock: the pip extra selecting each gfx's code, aligned with gfx
    note: str = ""


@dataclass(frozen=True)
class NightlyEpoch:
    """The gfx list of the pytorch.org nightlies of one ROCm variant built in [since, until) (ISO dates;
    until "" = still current): a dated nightly's code objects (matrices/torch_builds.toml)."""

    rocm: str
    since: str
    until: str
    gfx: tuple[str, ...]
    uncertain: tuple[str, ...]  # targets whose arrival in this window is not in our sources
    source: str


@dataclass(frozen=True)
class Breakage:
    what: str  # "amdgpu-dkms"
    dkms_base: str  # "6.3.6"
    kernel_min: str  # first kernel (inclusive) on which it fails to build
    kernel_max: Optional[str]  # last failing kernel (inclusive), None = open-ended
    issue: str  # URL
    source: str = ""
    rocm: tuple[str, ...] = ()  # the exact ROCm releases whose amdgpu-dkms fails
    note: str = ""
    fixed_in: Optional[str] = None  # first ROCm release whose amdgpu-dkms builds there again
    distro: tuple[str, ...] = ()  # os-release IDs when the failure is distribution-specific


@dataclass(frozen=True)
class KmdDeclaration:
    """A kernel-driver release's own statement of the user space it supports (amdgpu driver docs)."""

    driver: str  # "30.10.1"
    rocm: str  # the ROCm series that shipped it: "7.0"
    user_space: tuple[str, ...]  # ("7.0", "6.4", "6.3", "6.2")
    source: str = ""


@dataclass(frozen=True)
class DkmsBuild:
    """One observed amdgpu-dkms build: ``<base>-<build>`` shipped with a ROCm release."""

    rocm: str  # "6.0.0"
    base: str  # "6.3.6"
    build: Optional[str]  # "1697589"
    package: str = ""  # full package version when known: "1:6.3.6.60000-1697589"
    source: str = ""


@dataclass(frozen=True)
class AppSupport:
    """The GPU targets an application states it supports (``matrices/apps.toml``), and what upstream says to use on
    a GPU outside them: a fix that names the application's own alternative beats a generic one."""

    label: str  # "vLLM"
    gfx: tuple[str, ...]
    source: str
    instead: str = ""  # FlashAttention: "Build FlashAttention's Triton backend instead ..."
    instead_commands: tuple[str, ...] = ()
    instead_source: str = ""
    through_build: int = 0  # a numbered release (llama.cpp's bNNNN): newer ones are not judged; 0: every one
    through_source: str = ""
    # releases through this build were built without ``earlier_lacks`` (llama.cpp's b6451: gfx1200, gfx1201, gfx1151,
    # added by ggml-org/llama.cpp#15972); 0: no such earlier release known
    earlier_through_build: int = 0
    earlier_lacks: tuple[str, ...] = ()
    earlier_source: str = ""


@dataclass(frozen=True)
class Channel:
    """Where one torch wheel channel lives (``matrices/channels.toml``): the one home of its URL template."""

    name: str  # "pytorch" | "nightly" | "amd" | "therock"
    index: str  # URL template, "{rocm}" = the ROCm variant: ".../whl/rocm{rocm}"
    root: str = ""  # the index root `matrix update` scans (pytorch: ".../whl")
    source: str = ""
    note: str = ""

    def index_url(self, rocm: str) -> str:
        """The index (or find-links directory) of this channel for one ROCm variant."""
        return self.index.format(rocm=rocm)


@dataclass(frozen=True)
class MatrixData:
    """The whole built matrix as data; ``query.Matrix`` adds the lookups on top of these fields."""

    releases: dict[str, RocmRelease] = field(default_factory=dict)
    gpus: dict[str, GpuTarget] = field(default_factory=dict)
    torch: tuple[TorchVariant, ...] = ()
    breakages: tuple[Breakage, ...] = ()
    smoke_thresholds: dict[str, float] = field(default_factory=dict)
    pci_names: dict[str, str] = field(default_factory=dict)  # "0x744c:0xc8" and "0x744c" -> marketing name
    pci_gfx: dict[str, str] = field(default_factory=dict)  # "0x744c" / "0x744c:0xc8" -> gfx
    dkms_builds: tuple[DkmsBuild, ...] = ()
    smoke_sources: dict[str, str] = field(default_factory=dict)
    kmd_declarations: tuple[KmdDeclaration, ...] = ()
    # matrices/driver.toml [[upstream_kfd]]: gfx -> (first upstream kernel whose amdgpu/kfd serves it, source)
    upstream_kfd: dict[str, tuple[str, str]] = field(default_factory=dict)
    kmd_rule_source: str = ""
    health_thresholds: dict[str, float] = field(default_factory=dict)  # matrices/health.toml name -> value
    channels: dict[str, Channel] = field(default_factory=dict)  # matrices/channels.toml name -> Channel
    nightly_epochs: tuple[NightlyEpoch, ...] = ()  # dated nightlies' gfx lists (matrices/torch_builds.toml)
    # matrices/pci_chips.toml: PCI id -> (kernel chip, family, gfx kfd serves it as or ""), its source; PCI ID
    # Repository product names and codenames (lower case) -> PCI ids
    pci_chips: dict[str, tuple[str, str, str]] = field(default_factory=dict)
    pci_chips_source: str = ""
    pci_by_name: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # TheRock's per-family index name -> (gfx targets it served, source) (matrices/torch_builds.toml)
    therock_families: dict[str, tuple[tuple[str, ...], str]] = field(default_factory=dict)
    # matrices/apps.toml: application -> its label, the gfx targets it states it supports, and its alternative
    app_gfx: dict[str, AppSupport] = field(default_factory=dict)
    # matrices/apps.toml: application -> (its newest release known not to run under WSL, source)
    app_not_on_wsl: dict[str, tuple[str, str]] = field(default_factory=dict)
    # matrices/windows.toml: HIP SDK for Windows release -> (Runtime targets, HIP SDK targets, listed targets, source)
    windows_sdk: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], str]] = field(default_factory=dict)
