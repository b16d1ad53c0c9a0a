"""Pick the right PyTorch ROCm wheels for one host: ``(Host, Matrix, ResolveOptions) -> Plan`` or a refusal.

Pure: reads nothing and runs nothing, so a plan for a server can be made on a laptop from its bundle, and
every rule is tested with hand-built hosts. The rules, in the order the candidates are judged:

1. newest torch first (then newest ROCm build of it) among the variants of the chosen channel that match
   the user's ``--torch`` spec and ``--rocm``;
2. the variant has a wheel for the target Python;
3. it has code objects for every visible *discrete* GPU — natively, or through the matrix's
   ``HSA_OVERRIDE_GFX_VERSION`` for that target (stated loudly; one global value only, so GPUs that need
   different effective targets are refused);
4. its ROCm user space is within the kernel driver's support window (unknown driver: said, not rejected).

Never a CPU wheel: when nothing fits, :class:`Refused` explains why and what the alternatives are.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Optional

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from rocmdoctor.errors import BadInput
from rocmdoctor.install.plan import Plan, Rejected, Requirement
from rocmdoctor.install.refusal import RefusalContext, Refused, Reject, add_alternatives, refusal_for
from rocmdoctor.matrix import Matrix, TorchVariant
from rocmdoctor.model import GpuInfo, Host
from rocmdoctor.parse.kfd import gfx_from_version as override_gfx  # the one gfx converter (issue 15)

__all__ = ["CHANNELS", "COMPANIONS", "Refused", "ResolveOptions", "override_gfx", "resolve", "torch_specifier"]

COMPANIONS = ("torchvision", "torchaudio")
CHANNELS = ("pytorch", "amd", "nightly", "therock")
# TheRock's legacy per-family indexes (rocm.nightlies.amd.com/v2/gfx110X-all/ ...): no longer produced
_PER_FAMILY_RE = re.compile(r"/v2(?:-staging)?/(gfx[0-9a-z]+(?:-[a-z]+)?)/?", re.I)
PER_FAMILY_SOURCE = ("https://github.com/ROCm/TheRock/issues/5954 ; ROCm/TheRock "
                     "docs/packaging/legacy_per_family_releases.md lines 4-9 (matrices/upstream/ROCm/TheRock)")
PYPI_SIMPLE = "https://pypi.org/simple"  # where AMD's find-links wheels get their plain dependencies


@dataclass
class ResolveOptions:
    torch_spec: Optional[str] = None  # "2.5", "==2.5.1", ">=2.4,<2.6"
    rocm: Optional[str] = None  # "6.2"
    channel: str = "pytorch"
    companions: tuple[str, ...] = ()  # ("torchvision", "torchaudio")
    python_version: Optional[str] = None  # overrides the host's interpreter ("3.11")
    index_url: Optional[str] = None  # a mirror of the channel's index (for --channel amd: of PyPI)
    find_links: Optional[str] = None  # a mirror of AMD's repo.radeon.com directory (--channel amd only)


@dataclass
class _Target:
    """A GPU the wheel must run on, and how: natively or through an override."""

    gpu: GpuInfo
    gfx: str
    label: str


@dataclass
class _Verdict:
    reasons: list[str] = field(default_factory=list)  # why this variant fails ([] = accepted)
    kinds: set[Reject] = field(default_factory=set)
    env: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    serving: list[str] = field(default_factory=list)  # "gfx90a", "gfx1031 (as gfx1030 through the override)"


def torch_specifier(spec: Optional[str]) -> SpecifierSet:
    """``2.5`` means any 2.5.x, ``2.5.1`` exactly that release; anything else is a PEP 440 specifier set."""
    if spec is None or not spec.strip():
        return SpecifierSet()
    s = spec.strip()
    if re.fullmatch(r"\d+(\.\d+)?", s):
        return SpecifierSet(f"=={s}.*")
    if re.fullmatch(r"\d+\.\d+\.\d+\S*", s):
        s = f"=={s}"
    try:
        return SpecifierSet(s)
    except InvalidSpecifier as exc:
        raise BadInput(
            f"--torch {spec!r} is not a version or version specifier (try 2.5, ==2.5.1 or >=2.4,<2.6)"
        ) from exc


def _vkey(text: str) -> Version:
    try:
        return Version(text)
    except InvalidVersion:
        return Version("0")


def _series(version: str) -> str:
    return ".".join(version.split(".")[:2])


def _gpu_label(gpu: GpuInfo) -> str:
    name = f", {gpu.name}" if gpu.name else ""
    return f"GPU {gpu.index} ({gpu.gfx or 'unknown target'}{name})"


def _python_version(host: Host, options: ResolveOptions) -> str:
    raw = options.python_version or host.python.version
    if not raw:
        raise BadInput("the Python version of the target is not known; pass --python-version X.Y")
    m = re.fullmatch(r"\s*(\d+)\.(\d+)(\.\S*)?\s*", raw)
    if not m:
        raise BadInput(f"Python version {raw!r} is not of the form X.Y")
    return f"{m.group(1)}.{m.group(2)}"


def _check_platform(host: Host) -> None:
    """PyTorch ROCm wheels exist for CPython on Linux x86_64 only."""
    machine = (host.kernel.machine or "").lower()
    if machine and machine not in ("x86_64", "amd64"):
        raise Refused(
            f"PyTorch ROCm wheels exist only for Linux x86_64; this host is {machine}.",
            [], ["build PyTorch from source for this architecture", "use an x86_64 host"],
        )
    impl = (host.python.implementation or "").lower()
    if impl and impl != "cpython":
        raise Refused(
            f"PyTorch ROCm wheels are built for CPython only; the target interpreter is {impl}.",
            [], ["use a CPython interpreter (python3 -m venv with a CPython)"],
        )


def _hardware_gfx(host: Host, matrix: Matrix) -> tuple[list[GpuInfo], list[str]]:
    """GPUs with their real gfx: with HSA_OVERRIDE_GFX_VERSION set, rocminfo reports the override, not the chip."""
    override = host.env.get("HSA_OVERRIDE_GFX_VERSION")
    if not override:
        return list(host.gpus), []
    gpus, notes = [], []
    for g in host.gpus:
        real = matrix.gfx_for_pci(g.pci_device_id, g.pci_revision) if g.pci_device_id else None
        if real and g.gfx and real != g.gfx.lower():
            notes.append(f"GPU {g.index} reports {g.gfx} because HSA_OVERRIDE_GFX_VERSION={override} is set on the "
                         f"host; the chip is {real}, and the plan is made for the chip.")
            g = replace(g, gfx=real)
        gpus.append(g)
    return gpus, notes


def _visible(host: Host, matrix: Matrix) -> tuple[list[GpuInfo], list[str]]:
    """The GPUs the runtime will show, honouring a HIP/ROCR_VISIBLE_DEVICES already set on the host."""
    gpus, notes = _hardware_gfx(host, matrix)
    for var in ("ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES"):
        value = host.env.get(var)
        if value is None:
            continue
        wanted = {p.strip() for p in value.split(",") if p.strip()}
        if all(p.isdigit() for p in wanted):
            gpus = [g for g in gpus if str(g.index) in wanted]
            notes.append(f"{var}={value} is set on the host: planning for GPU(s) {', '.join(sorted(wanted))} only.")
    return gpus, notes


def _targets(host: Host, matrix: Matrix) -> tuple[list[GpuInfo], list[str], list[str], dict[str, str]]:
    """(GPUs that must be served, notes, warnings, env): an iGPU beside a dGPU is hidden, loudly."""
    gpus, notes = _visible(host, matrix)
    warnings: list[str] = []
    env: dict[str, str] = {}

    def is_apu(g: GpuInfo) -> bool:
        if g.is_apu is not None:
            return g.is_apu
        tgt = matrix.gpu(g.gfx) if g.gfx else None
        return bool(tgt and tgt.is_apu)

    igpus = [g for g in gpus if is_apu(g)]
    dgpus = [g for g in gpus if not is_apu(g)]
    if igpus and dgpus:
        keep = ",".join(str(g.index) for g in dgpus)
        env["HIP_VISIBLE_DEVICES"] = keep
        env["ROCR_VISIBLE_DEVICES"] = keep
        warnings.append(
            "IGNORING the integrated GPU "
            + ", ".join(_gpu_label(g) for g in igpus)
            + f" beside the discrete GPU(s): the plan sets HIP_VISIBLE_DEVICES={keep} and ROCR_VISIBLE_DEVICES={keep} "
            "so PyTorch uses only the discrete GPU(s); without them the iGPU is often device 0 and breaks kernels."
        )
        return dgpus, notes, warnings, env
    return (dgpus or igpus), notes, warnings, env


def _kmd_series(host: Host, matrix: Matrix) -> tuple[Optional[str], str]:
    """(ROCm series of the kernel driver or None, how it was found)."""
    versions = []
    if host.dkms:
        versions += [e.version for e in host.dkms.entries if e.module == "amdgpu" and "install" in e.status]
        versions += [e.version for e in host.dkms.entries if e.module == "amdgpu"]
    if host.amdgpu_version:
        versions.append(host.amdgpu_version.value)
    for v in versions:
        series = matrix.rocm_for_dkms(v)
        if series:
            return series, f"amdgpu driver {v} (shipped with ROCm {series})"
    if versions:
        return None, f"amdgpu driver {versions[0]} is not in the matrix"
    from rocmdoctor.judge.facts import major_minor, system_rocm

    sr = system_rocm(host)
    if sr and major_minor(sr[0]):
        # amdgpu-install puts the kernel driver and user space of one release on the host together.
        return major_minor(sr[0]), (f"the kernel driver was not captured; assumed to come with the installed "
                                    f"ROCm {sr[0]}")
    return None, "the kernel driver version was not captured"


def _judge(
    v: TorchVariant, targets: list[GpuInfo], python: str, kmd: Optional[str], kmd_how: str,
    companions: tuple[str, ...], matrix: Matrix,
) -> _Verdict:
    out = _Verdict()
    if python not in v.pythons:
        out.kinds.add(Reject.PYTHON)
        out.reasons.append(f"no wheel for Python {python} (wheels for {', '.join(v.pythons) or 'none'})")
    wheel_gfx = {g.lower() for g in v.gfx}
    serving: list[_Target] = []
    for gpu in targets:
        if not gpu.gfx:
            out.warnings.append(f"{_gpu_label(gpu)}: its gfx target is unknown, so code objects cannot be checked.")
            continue
        gfx = gpu.gfx.lower()
        if gfx in wheel_gfx:
            serving.append(_Target(gpu, gfx, "native"))
            continue
        tgt = matrix.gpu(gfx)
        via = override_gfx(tgt.override) if tgt and tgt.override else None
        if tgt and tgt.override and via in wheel_gfx and not tgt.override_broken:
            serving.append(_Target(gpu, via, tgt.override))
            continue
        out.kinds.add(Reject.GPU)
        why = f"no code objects for {gfx} (GPU {gpu.index}{', ' + gpu.name if gpu.name else ''})"
        if tgt and tgt.override and tgt.override_broken:
            why += f"; HSA_OVERRIDE_GFX_VERSION={tgt.override} is known to hang or fault on it"
        out.reasons.append(why)
    out.serving = sorted({t.gfx if t.label == "native" else f"{t.gpu.gfx} (as {t.gfx} through the override)"
                          for t in serving})
    overrides = {t.label for t in serving if t.label != "native"}
    effective = {t.gfx for t in serving}
    if overrides and (len(overrides) > 1 or len(effective) > 1):
        out.kinds.add(Reject.MIXED)
        out.reasons.append(
            "the GPUs need different targets ("
            + ", ".join(f"{t.gpu.gfx} as {t.gfx}" for t in serving)
            + "): HSA_OVERRIDE_GFX_VERSION is one global value for every device, so no single setting serves them all"
        )
    elif overrides:
        value = overrides.pop()
        out.env["HSA_OVERRIDE_GFX_VERSION"] = value
        for t in serving:
            if t.label != "native":
                note = matrix.gpu(t.gpu.gfx or "")
                out.warnings.append(
                    f"OVERRIDE NEEDED: {_gpu_label(t.gpu)} has no code objects of its own in this wheel; the plan sets "
                    f"HSA_OVERRIDE_GFX_VERSION={value} so it runs the {t.gfx} code. AMD does not support this; "
                    "it usually works for the same ISA family but can give wrong results or hangs."
                    + (f" ({note.override_note.strip()})" if note and note.override_note else "")
                )
    if kmd:
        allowed, rule = matrix.kmd_window(_series(v.rocm), kmd)
        if allowed is False:
            out.kinds.add(Reject.DRIVER)
            out.reasons.append(f"ROCm {v.rocm} user space does not support the kernel driver from ROCm {kmd}: {rule}")
        elif allowed:
            out.notes.append(f"The kernel driver ({kmd_how}) is within ROCm {_series(v.rocm)}'s support window: "
                             f"{rule}.")
        else:
            out.notes.append(f"The matrix has no driver window for ROCm {v.rocm}; {kmd_how} was not checked.")
    else:
        out.notes.append(f"Kernel driver compatibility not checked: {kmd_how}.")
    for c in companions:
        if not getattr(v, c, None):
            out.kinds.add(Reject.COMPANION)
            out.reasons.append(f"the matrix knows no {c} build published with it")
    return out


def _pin(version: str, label: str, channel: str = "pytorch") -> str:
    """The exact version to pin.

    A nightly ("2.14.0.dev") pins the dated builds by prefix ("2.14.0.dev*"). AMD's wheels carry a git hash per
    package ("+rocm6.4.1.git1ded221d"): a full label is pinned as is, otherwise the public version is pinned —
    it matches AMD's labelled build, which pip ranks above an unlabelled PyPI one (verification checks the rest).
    """
    if channel == "nightly":
        return version if version.endswith("*") else f"{version}*"
    if channel == "therock":  # one series ("2.14"): builds carry dated +rocm7.15.0aYYYYMMDD labels
        return version if version.endswith("*") else f"{version}.*"
    if "+" in version or not label:
        return version
    if channel == "amd" and ".git" not in label:
        return version
    return f"{version}{label}"


_URL_RE = re.compile(r"(https?|file)://[^\s]+\Z")

def resolve(host: Host, matrix: Matrix, options: ResolveOptions) -> Plan:
    """The newest fitting build, or :class:`Refused` (never a CPU wheel); see the module docstring."""
    if options.channel not in CHANNELS:
        raise BadInput(f"--channel must be one of {', '.join(CHANNELS)}, not {options.channel!r}")
    bad = [c for c in options.companions if c not in COMPANIONS]
    if bad:
        raise BadInput(
            f"install torch only installs PyTorch and its companions ({', '.join(COMPANIONS)}), not {', '.join(bad)}; "
            "install other packages afterwards with `pip install -c <constraints>` so they keep this torch"
        )
    if options.find_links and options.channel != "amd":
        raise BadInput("--find-links only applies to --channel amd (AMD's flat repo.radeon.com directories)")
    if options.index_url is not None and not _URL_RE.match(options.index_url):
        # Checked here, not by pip later: a plan (and a Dockerfile) must never carry a non-URL index.
        raise BadInput(f"--index-url {options.index_url!r} is not an http(s):// or file:// URL")
    python = _python_version(host, options)
    _check_platform(host)
    spec = torch_specifier(options.torch_spec)
    spec_text = (f"torch {options.torch_spec}" if options.torch_spec else "any torch version") + (
        f" for ROCm {options.rocm}" if options.rocm else "") + f" on the {options.channel} channel"
    variants = [
        v for v in matrix.torch_variants(rocm=options.rocm, channel=options.channel)
        if spec.contains(_vkey(v.torch), prereleases=True)
    ]
    targets, notes, warnings, env = _targets(host, matrix)
    if not host.gpus:
        warnings.append("No GPU was seen on this host: the plan cannot check that the wheel has code for your GPU.")
    kmd, kmd_how = _kmd_series(host, matrix)
    companions = tuple(dict.fromkeys(options.companions))
    rejected: list[Rejected] = []
    kinds: set[Reject] = set()
    for v in variants:
        verdict = _judge(v, targets, python, kmd, kmd_how, companions, matrix)
        if verdict.reasons:
            rejected.append(Rejected(f"torch {v.torch} (rocm{v.rocm}, {v.channel})", "; ".join(verdict.reasons)))
            kinds |= verdict.kinds
            continue
        ctx = _Context(host, matrix, options, python, companions, spec_text, [g.gfx for g in targets if g.gfx])
        return _plan(v, ctx, verdict, rejected, notes + verdict.notes,
                     warnings + _frozen_index(options) + verdict.warnings, {**env, **verdict.env})
    refusal = refusal_for(python, targets, rejected, kinds, variants, spec_text)
    need = [g.gfx.lower() for g in targets if g.gfx]
    add_alternatives(refusal, RefusalContext(matrix, python, need, options.torch_spec, options.rocm, options.channel),
                     kinds)
    raise refusal


def _frozen_index(options: ResolveOptions) -> list[str]:
    """A warning when the index given is one of TheRock's old per-family indexes (no longer produced)."""
    m = _PER_FAMILY_RE.search(options.index_url or "")
    if not m:
        return []
    return [f"FROZEN INDEX: {options.index_url} is TheRock's per-family index for {m.group(1)}; AMD no longer "
            "produces per-family releases (the newest there is frozen and may be deleted). Use the multi-arch index "
            f"with a device extra instead: --channel therock. [{PER_FAMILY_SOURCE}]"]


def _device_extras(v: TorchVariant, host: Host) -> tuple[str, ...]:
    """TheRock: one [device-*] extra per distinct GPU target on the host (every GPU, so a later
    HIP_VISIBLE_DEVICES change still finds code); device-all when no GPU was seen."""
    if v.channel != "therock":
        return ()
    by_gfx = dict(zip(v.gfx, v.device_extras))
    wanted = [by_gfx[g.gfx.lower()] for g in host.gpus if g.gfx and g.gfx.lower() in by_gfx]
    return tuple(dict.fromkeys(sorted(wanted))) or ("device-all",)


def _only_source(v: TorchVariant, host: Host, matrix: Matrix) -> str:
    """A sentence when no pytorch.org stable wheel carries code for a GPU the TheRock plan serves."""
    lacking = sorted({g.gfx.lower() for g in host.gpus if g.gfx and g.gfx.lower() in v.gfx
                      and not matrix.torch_variants(gfx=g.gfx.lower(), channel="pytorch")})
    if not lacking:
        return ""
    return (f"No pytorch.org stable wheel carries code for {', '.join(lacking)}: TheRock's index is the only source "
            "of prebuilt PyTorch for it.")


@dataclass(frozen=True)
class _Context:
    """What :func:`resolve` settled before judging candidates: the plan of the one that fits is made of it."""

    host: Host
    matrix: Matrix
    options: ResolveOptions
    python: str
    companions: tuple[str, ...]
    spec_text: str
    gfx: list[str]  # the gfx targets the plan serves (what verification expects torch to carry)


def _plan(
    v: TorchVariant, ctx: _Context, verdict: _Verdict, rejected: list[Rejected], notes: list[str],
    warnings: list[str], env: dict[str, str],
) -> Plan:
    """The plan for the accepted variant ``v``."""
    host, options, python, companions, spec_text = ctx.host, ctx.options, ctx.python, ctx.companions, ctx.spec_text
    serving = verdict.serving
    extras = _device_extras(v, host)
    reqs = [Requirement("torch", _pin(v.torch, v.local_label, v.channel), extras=extras)]
    if v.triton_package and v.triton_version and v.channel != "nightly":  # a nightly pins its own dated triton
        reqs.append(Requirement(v.triton_package, v.triton_version))
    # Companions of AMD's channel carry their own git hash, so only the public version can be pinned.
    label = "" if v.channel == "amd" else v.local_label
    for c in companions:
        # torchvision has device code too on TheRock's index; torchaudio has none
        reqs.append(Requirement(c, _pin(getattr(v, c), label, v.channel),
                                extras=extras if c == "torchvision" else ()))
    reasons = [
        f"torch {v.torch} is the newest build matching {spec_text} that fits this host "
        f"(ROCm {v.rocm} build from the {v.channel} channel).",
        f"It has a wheel for Python {python}.",
    ]
    if serving:
        reasons.append(f"It carries code objects for the GPUs it will run on: {', '.join(serving)}.")
    if any(r.name == v.triton_package for r in reqs):
        reasons.append(f"{v.triton_package} {v.triton_version} is the Triton build this torch requires.")
    if extras:
        reasons.append(
            f"TheRock's multi-arch index serves one torch for every GPU; the extra{'s' if len(extras) > 1 else ''} "
            f"[{', '.join(extras)}] install{'s' if len(extras) == 1 else ''} the device code for "
            + ("every supported GPU (no GPU was seen)." if extras == ("device-all",) else
               f"the GPU(s) on this host ({', '.join(sorted({g.gfx for g in host.gpus if g.gfx}))}).")
        )
        only = _only_source(v, host, ctx.matrix)
        if only:
            reasons.append(only)
    reasons += notes
    if host.rocm_version and _series(host.rocm_version.value) != _series(v.rocm):
        reasons.append(
            f"The system has ROCm {host.rocm_version.value}; the wheel bundles its own ROCm {v.rocm} libraries "
            "and does not use the system ones."
        )
    if "/opt/rocm" in host.env.get("LD_LIBRARY_PATH", ""):
        warnings.append(
            "LD_LIBRARY_PATH points into /opt/rocm: it can make the wheel load the system ROCm libraries instead "
            "of its own; unset it for PyTorch."
        )
    index_url = options.index_url or v.index_url
    find_links: list[str] = []
    if v.find_links:
        find_links = [options.find_links or v.index_url]
        index_url = options.index_url or PYPI_SIMPLE
    return Plan(
        index_url=index_url,
        requirements=reqs,
        python=python,
        rocm=v.rocm,
        channel=v.channel,
        env=env,
        reasons=reasons,
        rejected=rejected,
        warnings=warnings,
        find_links=find_links,
        pre=v.channel == "nightly",
        gpus=ctx.gfx,
    )
