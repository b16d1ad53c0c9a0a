"""Facts derived from a Host that several checks need (one place, so checks agree with each other).

Also the small constructors checks use to build findings, so every check phrases "not captured"
the same way.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

from rocmdoctor.model import GFX_PRIORITY, USER_SPACE_SOURCES, Finding, Fix, GpuInfo, Host, LogMatch, Severity, Source
from rocmdoctor.parse.kfd import gfx_from_version

if TYPE_CHECKING:
    from rocmdoctor.matrix import Matrix, RocmRelease, TorchVariant

# "app-log": an application's own ROCm device enumeration in its log (llama.cpp's "found 8 ROCm devices", its
# "Device N: ..., gfxNNNN" lines, ollama's "inference compute" lines), not a GPU named in prose
# "collect_env GPU list": collect_env's "GPU models and configuration" line was there (a cut paste often ends
# before it: its absence is no GPU list, pytorch/pytorch#148850)
GPU_SOURCES = ("rocminfo", "kfd", "drm", "rocm-smi", "amd-smi", "lspci", "rocm_agent_enumerator",
               "collect_env GPU list", "app-log")
ROCM_DOCS = "https://rocm.docs.amd.com/projects/install-on-linux/en/latest/"


def finding(
    id: str, severity: Severity, title: str, detail: str = "", evidence: Optional[list] = None,
    fix: Optional[Fix] = None,
) -> Finding:
    return Finding(id=id, severity=severity, title=title, detail=detail,
                   evidence=[str(e) for e in (evidence or []) if e is not None], fix=fix)


def ok(id: str, title: str, evidence: Optional[list] = None, detail: str = "") -> Finding:
    return finding(id, Severity.OK, title, detail, evidence)


def skip(id: str, title: str, detail: str = "") -> Finding:
    return finding(id, Severity.SKIP, title, detail)


def not_captured(id: str, what: str) -> Finding:
    return skip(id, f"{what} not captured", "rocmdoctor could not see this part of the host, so it was not judged.")


def major_minor(version: Optional[str]) -> Optional[str]:
    m = re.match(r"(\d+)\.(\d+)", version or "")
    return f"{m.group(1)}.{m.group(2)}" if m else None


def gpu_label(gpu: GpuInfo) -> str:
    name = gpu.name or "GPU"
    isa = gpu.gfx or (gpu.chip_without_kfd.split(",")[0] if gpu.chip_without_kfd else "gfx unknown")
    return f"GPU {gpu.index} ({name}, {isa})"


def gpu_summary(host: Host) -> str:
    """'4× AMD Instinct MI210 (gfx90a), AMD Radeon Graphics (gfx1036)' — identical GPUs counted once.

    Here, not in the report, because ``gpu.detected`` says the same words as the report's header."""
    counts: dict[str, int] = {}
    for g in host.gpus:
        isa = g.gfx or (g.chip_without_kfd.split(",")[0] if g.chip_without_kfd else "gfx not captured")
        label = f"{g.name or 'unidentified GPU'} ({isa})"
        counts[label] = counts.get(label, 0) + 1
    return ", ".join(f"{n}× {label}" if n > 1 else label for label, n in counts.items())


def gpu_sources_captured(host: Host) -> list[str]:
    return [s for s in GPU_SOURCES if s in host.captured]


def discrete_gpus(host: Host) -> list[GpuInfo]:
    """The GPUs PyTorch work should run on: discrete ones, or the APUs when nothing else exists."""
    dgpus = [g for g in host.gpus if not g.is_apu]
    return dgpus or list(host.gpus)


def native_gfx(gpu: GpuInfo) -> Optional[str]:
    """The GPU's real ISA: from a kernel-side / PCI source when any, else whatever was reported."""
    for src in GFX_PRIORITY:
        if src in gpu.gfx_by_source and src not in USER_SPACE_SOURCES:
            return gpu.gfx_by_source[src]
    return gpu.gfx


def reported_user_space_gfx(gpu: GpuInfo) -> Optional[str]:
    for src in USER_SPACE_SOURCES:
        if src in gpu.gfx_by_source:
            return gpu.gfx_by_source[src]
    return None


def relabelled(host: Host) -> Optional[tuple[list[str], list[str]]]:
    """(hardware ISAs no GPU reports, reported ISAs beyond the hardware's) when a multi-GPU host's runtime reports
    one GPU as another's ISA: the kernel driver's own list (Vulkan/RADV) and the runtime's count the same boards and
    the surplus ISA is one the hardware has (a global override for one board relabels every board,
    ROCm/legacy-rocm-build#5696). None when the lists cannot be compared or agree."""
    fact = host.context.get("vulkan-gfx")
    if fact is None:
        return None
    hardware = Counter(fact.value.split(","))
    runtime = Counter(g for g in (reported_user_space_gfx(x) for x in host.gpus) if g)
    if sum(hardware.values()) < 2 or sum(hardware.values()) != sum(runtime.values()) or hardware == runtime:
        return None
    missing, extra = sorted((hardware - runtime).elements()), sorted((runtime - hardware).elements())
    return (missing, extra) if set(extra) <= set(hardware) else None


def override_fits(matrix: Matrix, missing: list[str], extra: list[str]) -> bool:
    """The relabelling is the override each relabelled GPU itself needs (an RX 6700 XT, gfx1031, run as gfx1030
    beside an RX 6800): one global value then suits every board, and nothing is wrong."""
    forced = set(extra)
    return len(forced) == 1 and all((t := matrix.gpu(g)) is not None and t.override is not None
                                    and gfx_from_version(t.override) in forced for g in missing)


def override_value(host: Host) -> Optional[str]:
    v = host.env.get("HSA_OVERRIDE_GFX_VERSION")
    return v.strip() if v is not None else None


# ROCm 6.2's thunk (libhsakmt topology.c) reads HSA_OVERRIDE_GFX_VERSION_<KFD node id> before the global
# variable: https://github.com/ROCm/ROCT-Thunk-Interface/pull/104 ("we'll try to get this released in ROCm
# 6.2"), confirmed in https://github.com/ROCm/legacy-rocm-build/issues/5069 ("This feature got merged back
# in ROCm 6.2, in the thunk"). The node id counts the CPU node(s) too: the first GPU is usually node 1.
PER_NODE_OVERRIDE_SINCE = (6, 2)
PER_NODE_PREFIX = "HSA_OVERRIDE_GFX_VERSION_"


def per_node_overrides(host: Host) -> dict[int, str]:
    """``{kfd node id: value}`` of every ``HSA_OVERRIDE_GFX_VERSION_<n>`` in the environment."""
    out: dict[int, str] = {}
    for key, value in host.env.items():
        if key.startswith(PER_NODE_PREFIX) and key[len(PER_NODE_PREFIX):].isdigit():
            out[int(key[len(PER_NODE_PREFIX):])] = value.strip()
    return out


def per_node_supported(version: Optional[str]) -> Optional[bool]:
    """Does this ROCm release read the per-node override? None when the release is unknown."""
    m = re.match(r"^\s*(\d+)\.(\d+)", version or "")
    return (int(m.group(1)), int(m.group(2))) >= PER_NODE_OVERRIDE_SINCE if m else None


def override_for(host: Host, gpu: GpuInfo, rocm: Optional[str] = None) -> Optional[tuple[str, str]]:
    """(variable, value) that sets this GPU's ISA: its own ``HSA_OVERRIDE_GFX_VERSION_<node>`` where the ROCm
    in use reads it (or is unknown), else the global one."""
    if gpu.kfd_node is not None and per_node_supported(rocm) is not False:
        value = per_node_overrides(host).get(gpu.kfd_node)
        if value:
            return f"{PER_NODE_PREFIX}{gpu.kfd_node}", value
    value = override_value(host)
    return ("HSA_OVERRIDE_GFX_VERSION", value) if value else None


def override_in_effect(host: Host, gpu: GpuInfo, rocm: Optional[str] = None) -> Optional[str]:
    """The gfx the runtime presents this GPU as, if an override is set or visibly active."""
    found = override_for(host, gpu, rocm)
    if found:
        return gfx_from_version(found[1])
    reported = reported_user_space_gfx(gpu)
    native = native_gfx(gpu)
    if reported and native and reported != native:
        return reported  # rocminfo shows another ISA than the hardware: an override was active there
    return None


@dataclass(frozen=True)
class RocmContext:
    """Which ROCm release the GPU will actually be driven by, and how we know."""

    version: Optional[str]  # "6.2" / "6.2.4"
    why: str
    release: Optional[RocmRelease]


def log_gfx(m: LogMatch) -> Optional[str]:
    """The gfx a matched log line names ("... TensileLibrary_gfx1031.dat", "... for GPU arch : gfx900")."""
    return m.groups.get("gfx") or m.groups.get("arch")


_WHEEL_LIB = re.compile(r"[/\\](?:site|dist)-packages[/\\]torch[/\\]lib[/\\]")


# "adding HSA_OVERRIDE_GFX_VERSION=10.3.0 does *not* fix the issue": tried, and dropped because it did not help
DID_NOT_HELP = re.compile(r"HSA_OVERRIDE_GFX_VERSION[^\n]{0,80}?\b(?:do(?:es)?|did)\s?"
                          r"(?:\*{1,2}|_)?n[o']t(?:\*{1,2}|_)?\s(?:fix|help|work|change)", re.I)
# "with HSA_OVERRIDE_GFX_VERSION=10.3.0", "even with", "I tried", DID_NOT_HELP, or a pasted session's command run with
# the override as its environment ("$ HSA_OVERRIDE_GFX_VERSION=9.0.0 python3", ROCm/legacy-rocm-build#1799): the
# override is what the reporter ran with, not the fix being suggested to them; so is a shell prompt's own
# `export HSA_OVERRIDE_GFX_VERSION=10.3.0` in the pasted session, the prompt a user's or a container's path
# (`/dockerx# export ...`, AshleyYakeley/stable-diffusion-rocm#4): the commands after it ran with it
PROMPT_RUN = re.compile(r"^(?:[\w.-]{1,64}@[\w.-]{1,64}(?::\S{0,256})?[ \t]?|/[\w./-]{0,200}[ \t]?)?[$#❯][ \t]{1,4}"
                        r"(?:(?:\w{1,64}=\S{0,200}[ \t]{1,4}){0,6}HSA_OVERRIDE_GFX_VERSION=\S{1,20}[ \t]{1,4}[\w./]"
                        r"|export[ \t]{1,4}HSA_OVERRIDE_GFX_VERSION=['\"]?\d{1,2}\.\d{1,2}\.\d{1,2}['\"]?[ \t]*$)")
TRIED = re.compile(r"\b(?:with|even with|tried|trying|already|I(?:'m| am) using|I set|setting)\b[^\n]{0,40}"
                   r"HSA_OVERRIDE_GFX_VERSION|" + DID_NOT_HELP.pattern + "|" + PROMPT_RUN.pattern, re.I)


def said_ran_with(host: Host, value: str) -> bool:
    """The report says its process ran with HSA_OVERRIDE_GFX_VERSION=``value`` (not that it should be set)."""
    said = host.context.get("override-shell")
    if said is None or "env" in host.captured or said.value.strip("'\" ") != value:
        return False
    if "service" in host.context and "override-service" not in host.context:
        return False  # a shell's export never reaches a systemd service (ollama#6152): it did not run with it
    return bool(TRIED.search(said.source.text or "")) if said.source else False


def wheel_lib_missing(host: Host) -> Optional[tuple[str, LogMatch]]:
    """(gfx, line) when rocBLAS *inside the torch wheel* said it has no kernels for that gfx: direct evidence
    that beats the wheel's list of compiled targets (pytorch/pytorch#179865: the rocm7.2 nightly's rocBLAS has no
    gfx900 Tensile files although torch's own kernels list gfx900)."""
    only = {g for g in (native_gfx(x) for x in discrete_gpus(host)) if g}
    for m in host.logs:
        # rocBLAS's bare "Cannot read .../TensileLibrary.dat" names no gfx: it is the GPU it runs on, which is
        # known when the host has one kind of GPU (pytorch/pytorch#96964: torch 2.0.0's wheel on an RX 7900 XTX)
        gfx = log_gfx(m) or (next(iter(only)) if len(only) == 1 else None)
        if m.signature == "rocblas-tensile-missing-arch" and gfx and _WHEEL_LIB.search(m.text):
            return gfx, m
    return None


def torch_rocm(host: Host) -> Optional[str]:
    """The ROCm the installed torch wheel bundles: '+rocm6.2' label or the hip version string."""
    t = host.torch
    if t is None:
        return None
    m = re.search(r"\+rocm(\d+\.\d+(?:\.\d+)?)", t.version or "")
    if m:
        return m.group(1)
    if t.hip:
        return major_minor(t.hip)
    return None


@dataclass(frozen=True)
class WheelCode:
    """The gfx targets compiled into the installed torch wheel, by the matrix: a release row, or the epoch of a
    dated nightly. ``uncertain``: targets the data cannot place (never read as present or absent)."""

    gfx: tuple[str, ...]
    uncertain: tuple[str, ...]
    label: str  # "the torch 2.6 rocm6.1 wheels", "the rocm7.0 nightly of 2025-09-29"
    source: str
    therock: bool = False  # TheRock multi-arch: the code is whatever [device-*] extras were installed


_DEV_DATE = re.compile(r"^\d+\.\d+(?:\.\d+)?\.dev(\d{4})(\d{2})(\d{2})")


def wheel_code(host: Host, matrix: Matrix) -> Optional[WheelCode]:
    """What the installed torch wheel was compiled for, from the data. A ``X.Y.Z.devYYYYMMDD`` nightly is built
    from main on that day, so its list is that day's (``Matrix.nightly_code``), never the later release's: the
    torch 2.10 release has gfx1151 but a 2.10.0.dev20250929 nightly does not. None when the data cannot say."""
    t = host.torch
    if t is None or not t.version or "+git" in t.version:
        return None  # a source build (AMD's rocm/pytorch images, distributions) compiles its own PYTORCH_ROCM_ARCH
    dev = _DEV_DATE.match(t.version)
    if dev is not None or ".dev" in t.version:
        rocm = torch_rocm(host)
        if dev is None or not rocm:
            return None
        day = "-".join(dev.groups())
        e = matrix.nightly_code(rocm, day) or matrix.nightly_code(major_minor(rocm) or rocm, day)
        if e is None:
            return None
        return WheelCode(e.gfx, e.uncertain, f"the rocm{e.rocm} nightly of {day}", e.source)
    v = wheel_variant(host, matrix)
    if v is None:
        return None
    return WheelCode(v.gfx, (), f"the torch {v.torch} rocm{v.rocm} wheels", v.source, therock=v.channel == "therock")


def wheel_variant(host: Host, matrix: Matrix) -> Optional[TorchVariant]:
    """The matrix's row for the installed torch wheel (its version and ROCm variant): the gfx targets it was
    compiled for. None when torch, its ROCm variant or the row is unknown."""
    t = host.torch
    if t is None or not t.version:
        return None
    base = re.match(r"\d+\.\d+(?:\.\d+)?", t.version)
    rocm = torch_rocm(host)
    if not base or not rocm:
        return None
    found = matrix.torch_variants(torch=base.group(0), rocm=rocm) or matrix.torch_variants(
        torch=base.group(0), rocm=major_minor(rocm))
    if not found:
        mm = ".".join(base.group(0).split(".")[:2])
        found = [v for v in matrix.torch_variants(rocm=major_minor(rocm)) if v.torch.startswith(mm)]
    return found[0] if found else None


def system_rocm(host: Host) -> Optional[tuple[str, Source]]:
    if host.rocm_version is not None:
        return host.rocm_version.value, host.rocm_version.source
    versions = [r for r in host.rocm_installs if r.version]
    if versions:
        newest = max(versions, key=lambda r: _vkey(r.version or ""))
        return newest.version or "", newest.source or Source(newest.path)
    return None


def self_built_rocm(host: Host) -> Optional[str]:
    """The path of a ROCm built on this host (ROCm SDK Builder's /opt/rocm_sdk_612 = 6.1.2) when it is the only
    ROCm the report shows: its version is the sources', but its GPU targets are whatever its build chose, so
    AMD's per-release lists give no verdict on it (lamikr/rocm_sdk_builder#246)."""
    installs = host.rocm_installs
    if not installs or not all(i.path.startswith("/opt/rocm_sdk_") for i in installs):
        return None
    if host.rocm_version is not None and host.rocm_version.value not in {i.version for i in installs}:
        return None  # another ROCm's version file beside it
    return installs[0].path


def _vkey(v: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", v)[:3])


def rocm_context(host: Host, matrix: Matrix, system_only: bool = False, allow_latest: bool = True) -> RocmContext:
    """Which ROCm drives the GPU: PyTorch's bundled one, else the system install, else the driver's release.

    ``system_only`` ignores the wheel (OS and kernel validation concern the installed stack, not a
    manylinux wheel). When ROCm is visibly present but its version unknown, the version is None
    (checks skip); when nothing at all is known, the newest release is assumed if ``allow_latest``.
    """
    candidates: list[tuple[str, str]] = []
    tr = None if system_only else torch_rocm(host)
    if tr:
        candidates.append((tr, f"the installed torch {host.torch.version if host.torch else ''} bundles ROCm {tr}"))
    built = self_built_rocm(host)
    sr = None if built else system_rocm(host)
    if sr:
        candidates.append((sr[0], f"system ROCm {sr[0]} ({sr[1].file})"))
    if host.dkms and host.dkms.entries:
        for e in host.dkms.entries:
            r = matrix.rocm_for_dkms(e.version)
            if r:
                candidates.append((r, f"amdgpu-dkms {e.version} ships with ROCm {r}"))
                break
    for version, why in candidates:
        rel = matrix.release(version) or matrix.release(major_minor(version) or version)
        if rel is not None:
            return RocmContext(version, why, rel)
    if candidates:
        return RocmContext(candidates[0][0], candidates[0][1] + " (not in rocmdoctor's matrix)", None)
    if built:
        return RocmContext(None, f"the ROCm here ({built}) was built on this host (ROCm SDK Builder) for the targets "
                           "its build chose: AMD's per-release lists do not judge it", None)
    if "rocminfo" in host.captured or host.rocm_installs:
        return RocmContext(None, "ROCm is installed but its version was not captured", None)
    if system_only or not allow_latest:
        return RocmContext(None, "no ROCm version found", None)
    latest = matrix.latest_release()
    return RocmContext(latest.version, f"no ROCm found on the host; judged against the newest release {latest.version}",
                       latest)


def groups_of_user(host: Host) -> Optional[set]:
    if host.user is None:
        return None
    return set(host.user.groups) | {str(g) for g in host.user.gids}
