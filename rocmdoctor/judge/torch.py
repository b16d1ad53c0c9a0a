"""PyTorch and Python checks: is the right wheel installed, for this GPU, with matching companions."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Optional

from rocmdoctor.judge.apps import app_lacks
from rocmdoctor.judge.facts import (
    discrete_gpus,
    finding,
    gpu_label,
    major_minor,
    native_gfx,
    not_captured,
    ok,
    override_value,
    skip,
    torch_rocm,
    wheel_code,
    wheel_lib_missing,
)
from rocmdoctor.judge.pip_verdicts import no_versions, wheel_refused
from rocmdoctor.judge.registry import check
from rocmdoctor.judge.torch_kpack import image_refused, kpack_unusable
from rocmdoctor.judge.torch_unloaded import unproven
from rocmdoctor.model import Fact, Finding, Fix, Severity, TorchBuild, TorchInfo
from rocmdoctor.parse.freetext_rule import FREE_TEXT
from rocmdoctor.parse.kfd import gfx_from_version
from rocmdoctor.words import plural

if TYPE_CHECKING:
    from rocmdoctor.matrix import Matrix
    from rocmdoctor.model import Host

INSTALL_URL = "https://pytorch.org/get-started/locally/"


def _packages_seen(host: Host) -> bool:
    return bool({"pip", "torch-probe", "collect_env"} & host.captured) or bool(host.packages)


def _torch_evidence(host: Host) -> list[str]:
    t = host.torch
    if t is None:
        return []
    ev = [str(t.source)] if t.source else []
    ev += [str(s) for s in t.proof_sources if str(s) not in ev]
    if t.bundled_libs:
        ev.append("torch/lib: " + ", ".join(t.bundled_libs[:4]))
    return ev


@check("torch.not-installed", title="PyTorch installed")
def torch_installed(host: Host, matrix: Matrix) -> list[Finding]:
    if host.torch and host.torch.version:
        return [ok("torch.not-installed", f"torch {host.torch.version} installed", _torch_evidence(host))]
    if not _packages_seen(host):
        return [not_captured("torch.not-installed", "Python packages")]
    return [finding(
        "torch.not-installed", Severity.WARN, "PyTorch is not installed in the target Python",
        "No torch distribution was found in the captured environment.",
        [str(host.packages_source)] if host.packages_source else [],
        Fix("Install the ROCm build that fits this host:", ["rocmdoctor install torch"], INSTALL_URL),
    )]


@check("torch.not-rocm-build", title="PyTorch build")
def rocm_build(host: Host, matrix: Matrix) -> list[Finding]:
    t = host.torch
    if t is not None and not t.version and t.proven_build in (TorchBuild.CUDA, TorchBuild.CPU, TorchBuild.NOT_ROCM):
        what = {TorchBuild.CUDA: "a CUDA build", TorchBuild.CPU: "a CPU-only build",
                TorchBuild.NOT_ROCM: "not a ROCm build"}[TorchBuild(t.proven_build)]
        return [finding(
            "torch.not-rocm-build", Severity.FAIL, f"The torch that ran is {what}",
            (t.proof[0].upper() + t.proof[1:] + ": it cannot use an AMD GPU." if t.proof else
             "Its own error says so (it looked for an NVIDIA driver / was not compiled with GPU support): this "
             "wheel cannot use an AMD GPU. An installer, a custom node or a later `pip install` usually replaced "
             "the ROCm build with PyPI's default one."),
            _torch_evidence(host),
            Fix("Replace it with the ROCm build (rocmdoctor picks the index and pins companions):",
                ["pip uninstall -y torch torchvision torchaudio", "rocmdoctor install torch --yes"], INSTALL_URL),
        )]
    if t is not None and not t.version and t.proven_build == TorchBuild.ROCM and t.source is not None:
        # its own lines come only from a ROCm build (a HIP error, a library of the wheel's ROCm, Inductor's ROCm
        # backend on a stack: pytorch/pytorch#143687)
        return [ok("torch.not-rocm-build", "The torch that ran is a ROCm build (its own lines say so)",
                   [str(t.source)])]
    if t is None or not t.version:
        return [skip("torch.not-rocm-build", "No torch to judge")]
    build = t.build
    if build == TorchBuild.ROCM:
        return [ok("torch.not-rocm-build", f"torch {t.version} is a ROCm build (HIP {t.hip or torch_rocm(host)})",
                   _torch_evidence(host))]
    if build == TorchBuild.UNKNOWN:
        return [skip("torch.not-rocm-build", f"torch {t.version}: build kind not visible")]
    zluda = host.context.get("zluda")
    if build == TorchBuild.CUDA and zluda is not None:  # patientx/ComfyUI-Zluda#29
        return [finding("torch.not-rocm-build", Severity.INFO,
                        f"torch {t.version} is a CUDA build that runs on the AMD GPU through ZLUDA",
                        "ZLUDA translates CUDA to HIP, so the CUDA wheel is this setup's choice, not a mistake; ROCm's "
                        "own wheels and rocmdoctor's install advice do not apply to it.",
                        [str(zluda.source), *_torch_evidence(host)])]
    tag = re.search(r"\+cu(\d{2,3})", t.version or "")
    cuda = t.cuda or (f"{tag.group(1)[:-1]}.{tag.group(1)[-1]}" if tag else None)
    kind = {TorchBuild.CUDA: f"a CUDA build (CUDA {cuda})" if cuda else "a CUDA build",
            TorchBuild.CPU: "a CPU-only build",
            TorchBuild.NOT_ROCM: f"a CPU or CUDA build ({t.proof or 'torch.version.hip is None'})"}.get(
                build, f"a {build} build")
    return [finding(
        "torch.not-rocm-build", Severity.FAIL, f"torch {t.version} is {kind}, not a ROCm build",
        "This wheel cannot use an AMD GPU: torch.cuda.is_available() is False. It usually comes from PyPI "
        "(plain `pip install torch`), an --extra-index-url, or a later `pip install torchvision` that replaced "
        "the ROCm torch.",
        _torch_evidence(host),
        Fix("Replace it with the ROCm build for this GPU (rocmdoctor picks the index and pins companions):",
            ["rocmdoctor install torch --yes"], INSTALL_URL),
    )]


def _rocm_wheel_tags(host: Host) -> list[tuple[str, str]]:
    """(CPython tag, evidence) of every ROCm wheel file name the report lists ('...+rocm722-cp312-cp312-...whl')."""
    fact = host.context.get("rocm-wheels")
    if fact is None:
        return []
    out = []
    for name in fact.value.split():
        m = re.search(r"\+rocm[\w.]{1,20}-(cp\d{2,3})-(cp\d{2,3}|abi3)-", name)
        if m:
            out.append(("abi3" if m.group(2) == "abi3" else m.group(1), f"{fact.source}: {name}"))
    return out


def _label(t: TorchInfo) -> str:
    """'torch 2.6.0+rocm6.2', or where it came from when the paste never printed its version."""
    if t.version:
        return f"torch {t.version}"
    return f"the torch from TheRock's {t.therock_family} index" if t.therock_family else "the installed torch"


def _wheel_lacks(host: Host, matrix: Matrix) -> Optional[Finding]:
    """Direct evidence beats the table: rocBLAS inside the torch wheel said it has no kernels for a GPU's gfx. A
    target that runs another one's ISA through an override not set here (gfx1102 as 11.0.0) is gpu.override-needed's:
    the wheels ship no kernels for it, which is what the override answers (ROCm/legacy-rocm-build#3840, a W7600)."""
    hit = wheel_lib_missing(host)
    if hit is None:
        return None
    gfx, m = hit
    target = matrix.gpu(gfx)
    if target is not None and target.override and not override_value(host):
        return skip("torch.arch-missing", f"the wheel's rocBLAS has no {gfx} kernels: see gpu.override-needed")
    t = host.torch
    gpu = next((g for g in discrete_gpus(host) if native_gfx(g) == gfx), None)
    return finding(
        "torch.arch-missing", Severity.FAIL,
        f"{f'torch {t.version}' if t and t.version else 'The installed torch'} ships no rocBLAS kernels for "
        f"{gpu_label(gpu) if gpu else gfx}",
        f"The wheel's own rocBLAS (under site-packages/torch/lib) reports no TensileLibrary for {gfx}: every "
        "matrix multiply aborts, whatever the wheel's list of compiled targets says.",
        [str(m.source) if m.source else m.text],
        Fix(f"Install a torch whose bundled libraries include {gfx} (rocmdoctor picks one), or TheRock's "
            "per-GPU packages:", ["rocmdoctor install torch --dry-run"]),
    )


def _runtime_said_no_code(host: Host, matrix: Matrix, t: TorchInfo) -> Optional[Finding]:
    """A ROCm wheel the data does not list (torch 1.8.0+rocm4.0.1) is still judged when the HIP runtime said it:
    'hipErrorNoBinaryForGpu' from a process of a pytorch.org/AMD wheel (it bundles every ROCm library it loads),
    with no ISA override and one GPU target in the report, means the wheel has no code for that target
    (pytorch/pytorch#53738: an RX 470, gfx803)."""
    said = next((m for m in host.logs if m.finding_id in ("log.no-binary-for-gpu", "log.invalid-device-function")),
                None)
    targets = {native_gfx(g) for g in discrete_gpus(host)} - {None, ""}
    # a ROCm torch of unknown version, proven by its own HIP error; not when the report is about another framework
    # (PyTorch words it "HIP error: ...": a bare hipErrorNoBinaryForGpu may come from any HIP program)
    unversioned = (not t.version and t.build == TorchBuild.ROCM and "other-framework" not in host.context
                   and "HIP error:" in ((t.source.text or "") if t.source else ""))
    if said is None or not ("+rocm" in (t.version or "") or unversioned) or override_value(host) or len(targets) != 1:
        return None
    gpu = next(g for g in discrete_gpus(host) if native_gfx(g) in targets)
    gfx = native_gfx(gpu)
    target = matrix.gpu(gfx or "")
    if unversioned and (target is None or target.override):
        return None  # an override is the usual answer there (gpu.override-needed says it), or the target is unknown
    return finding(
        "torch.arch-missing", Severity.FAIL, f"{_label(t)} has no code objects for {gpu_label(gpu)}",
        f"The HIP runtime found no code for {gfx} in the process (the first evidence line), and this wheel "
        "bundles the ROCm libraries it loads: its build does not include the target (rocmdoctor's data does not "
        "list this wheel's targets).",
        [str(said.source) if said.source else said.text, *_torch_evidence(host), *(str(s) for s in gpu.sources[:1])],
        Fix("Install a torch whose ROCm variant includes this GPU (rocmdoctor picks one), or build from source "
            f"with PYTORCH_ROCM_ARCH={gfx}:", ["rocmdoctor install torch --dry-run"]),
    )


@check("torch.arch-missing", title="PyTorch code objects for this GPU")
def arch_missing(host: Host, matrix: Matrix) -> list[Finding]:
    t = host.torch
    # torch's own pack for the target, or the GPU's code, refused by HIP (ROCm/TheRock#7081, patientx/ComfyUI-Zluda#431)
    unusable = kpack_unusable(host) or image_refused(host, matrix)
    if unusable is not None:
        return [unusable]
    if t is None or t.build != TorchBuild.ROCM:
        return app_lacks(host, matrix) or [skip("torch.arch-missing", "No ROCm torch to judge")]
    if not host.gpus:
        return [skip("torch.arch-missing", "No GPU to judge")]
    direct = _wheel_lacks(host, matrix)
    if direct is not None:
        return [direct]
    unknown: tuple[str, ...] = ()
    family = matrix.therock_family(t.therock_family) if t.therock_family and not t.arch_list else None
    if t.arch_list:
        archs, where = [a.split(":")[0] for a in t.arch_list], "torch.cuda.get_arch_list()"
    elif family is not None:
        archs, where = list(family[0]), f"TheRock's per-family index {t.therock_family} ({family[1]})"
    else:
        v = wheel_code(host, matrix)
        if v is None and "+git" in (t.version or ""):
            return [skip("torch.arch-missing", f"torch {t.version} is a source build: its gfx targets are not in "
                         "rocmdoctor's data", "torch.cuda.get_arch_list() lists them.")]
        if v is None:
            said = _runtime_said_no_code(host, matrix, t)
            return [said] if said is not None else [
                skip("torch.arch-missing", f"torch {t.version}: its build is not in rocmdoctor's matrix")]
        if v.therock:  # its device code is whatever [device-*] extras were installed
            return [skip("torch.arch-missing", f"torch {t.version} is a TheRock multi-arch build: its GPU code "
                         "comes from the installed torch[device-*] extras, and get_arch_list() was not captured")]
        archs, where, unknown = list(v.gfx), f"{v.label} ({v.source})", v.uncertain
    forced = gfx_from_version(override_value(host) or "")
    out: list[Finding] = []
    via_override: list[str] = []
    for gpu in discrete_gpus(host):
        gfx = native_gfx(gpu)
        if not gfx:
            continue
        runs_as = forced or gfx
        if runs_as in archs:
            continue
        if runs_as in unknown:
            out.append(skip("torch.arch-missing", f"torch {t.version}: whether it has code objects for "
                            f"{runs_as} is not in rocmdoctor's data", f"{where}: {runs_as} is uncertain."))
            continue
        target = matrix.gpu(gfx)
        override = target.override if target is not None else None
        flaky = target is not None and target.override_broken and bool(t.arch_list)
        if not forced and override and gfx_from_version(override) in archs and not flaky:
            via_override.append(f"{gpu_label(gpu)} as {gfx_from_version(override)}")
            continue  # the wheel is fine once the override is set: gpu.override-needed says so
        hint = None
        out.append(finding(
            "torch.arch-missing", Severity.FAIL,
            f"{_label(t)} has no code objects for {gpu_label(gpu)}",
            f"Code objects per {where}: {', '.join(archs)}; the GPU runs {runs_as}. Kernels abort with "
            "'hipErrorNoBinaryForGpu' or 'invalid device function'.",
            _torch_evidence(host) + [str(s) for s in gpu.sources[:1]],
            Fix(("This GPU can run the wheel's code through the ISA override:" if hint else
                 "Install a torch whose ROCm variant includes this GPU (rocmdoctor picks one), or build from "
                 f"source with PYTORCH_ROCM_ARCH={gfx}:"),
                [hint] if hint else ["rocmdoctor install torch --dry-run"]),
        ))
    if out:
        return unproven(out, host)
    if via_override:
        return [ok("torch.arch-missing", f"torch {t.version} has code objects for every GPU once the ISA override "
                   "is set (see gpu.override-needed)", detail=f"per {where}: {'; '.join(via_override)}")]
    return [ok("torch.arch-missing", f"torch {t.version} includes code objects for every GPU", detail=f"per {where}")]


COMPANIONS = ("torchvision", "torchaudio")  # wheels built against one exact torch
# what says the report installs (or tried to install) torch: pip's index lines, its "from versions: none"
_INSTALL_CONTEXT = ("pip-index", "pip-no-versions", "rocm-wheels", "wheel-refused")


@check("torch.companion-mismatch", "torch.triton-mismatch", title="torchvision / torchaudio / triton")
def companions(host: Host, matrix: Matrix) -> list[Finding]:
    t = host.torch
    ptx = host.context.get("triton-nvidia")
    if ptx is not None and (host.gpus or (t is not None and t.build == TorchBuild.ROCM)):
        return [_nvidia_triton(ptx)]
    xformers = host.context.get("xformers-built-for")
    if xformers is not None and t is not None and t.build == TorchBuild.ROCM and "+rocm" not in xformers.value:
        return [finding(
            "torch.companion-mismatch", Severity.FAIL,
            f"xformers was built for torch {xformers.value}, beside torch {t.version}",
            "Its C++/CUDA extensions were compiled against another build of torch (CUDA or CPU), so they cannot "
            "load: xformers falls back or fails. Extensions must come from the same ROCm index as torch.",
            list(dict.fromkeys([str(xformers.source), *_torch_evidence(host)]))[:3],
            Fix("Remove it, then install xformers from the ROCm index torch came from (or build it against this "
                "torch):", ["pip uninstall -y xformers"]),
        )]
    pinned = host.context.get("companion-pinned")
    if pinned is not None:
        return [_pinned_elsewhere(pinned, host)]
    ck = host.context.get("xformers-rocm-ops")
    shown = {n: host.context[f"companion-{n}"] for n in COMPANIONS if f"companion-{n}" in host.context}
    if t is None or not t.version or not (host.packages or shown):
        if ck is not None and xformers is None:
            return [ok("torch.companion-mismatch", "xformers is a ROCm build: its Composable Kernel attention ops "
                       "load", [str(ck.source)], detail="xformers.info lists the CUDA-only ops (cutlass, smallk, "
                       "decoderF) as unavailable on every ROCm build; that is not a fault")]
        return []
    label = ([*t.version.split("+", 1), ""])[1]
    if re.fullmatch(r"[0-9a-f]{7,40}", label):
        label = ""  # a source build's git hash, not a wheel variant: companions carry their own hashes
    listed = host.packages or {n: f.value for n, f in shown.items()}  # a package list wins over prose
    bad = [f"{n} {v}" + ("" if "+" in v else " (no +rocm tag: PyPI's CUDA build)")
           for n, v in ((n, listed.get(n)) for n in COMPANIONS) if v and label and _other_variant(v, label)]
    where = [str(host.packages_source)] if host.packages and host.packages_source else \
        [str(f.source) for n, f in shown.items() if any(b.startswith(n + " ") for b in bad)]
    out = []
    if bad:
        out.append(finding(
            "torch.companion-mismatch", Severity.FAIL,
            f"{', '.join(bad)} built for another variant than torch {t.version}",
            "Companion wheels must come from the same index as torch; a CUDA torchvision drags in CUDA "
            "libraries or fails to load its C++ ops ('operator torchvision::nms does not exist').",
            where,
            Fix("Reinstall torch and its companions together from one index:",
                ["rocmdoctor install torch torchvision torchaudio"]),
        ))
    if t.build == TorchBuild.ROCM and "triton" in host.packages and not (
            {"pytorch-triton-rocm", "triton-rocm"} & set(host.packages)):
        out.append(finding(
            "torch.triton-mismatch", Severity.WARN,
            f"triton {host.packages['triton']} (the CUDA build from PyPI) is installed beside a ROCm torch",
            "torch.compile and Triton kernels need the ROCm Triton (pytorch-triton-rocm / triton-rocm) pinned by "
            "the torch wheel; PyPI's triton targets NVIDIA only.",
            [str(host.packages_source)] if host.packages_source else [],
            Fix("Replace it with the pinned ROCm Triton:", ["pip uninstall -y triton", "rocmdoctor install torch"]),
        ))
    return out


_ROCM_LINE = re.compile(r"rocm(\d{1,2})\.(\d{1,2})")


def _other_variant(version: str, torch_label: str) -> bool:
    """A companion's build tag that is not torch's ("+cu121" beside "+rocm6.0"), or none beside a ROCm torch: PyPI's
    own torchvision/torchaudio carry no tag and are CUDA builds on Linux (ROCm/pytorch#3109)."""
    if "+" not in version:
        return torch_label.startswith("rocm")
    tag = version.split("+", 1)[1]
    mine, theirs = _ROCM_LINE.match(tag), _ROCM_LINE.match(torch_label)
    if mine and theirs:  # "rocm7.0.0rc20250903" beside "rocm7.9.0rc20250923": two ROCm releases (ComfyUI#9604)
        return mine.groups() != theirs.groups()
    return tag.split(".git")[0][:6] != torch_label.split(".git")[0][:6]


def _pinned_elsewhere(pinned: Fact[str], host: Host) -> Finding:
    """pip's own verdict: "torchvision 0.26.0 requires torch==2.11.0, but you have torch 2.12.0.dev...+rocm7.1"."""
    m = re.match(r"(\S+) (\S+) requires torch==([^,\s]+),?\s+but you have torch (\S+)", pinned.value)
    name, version, wants, have = m.groups() if m else ("torchvision", "?", "?", "?")
    return finding(
        "torch.companion-mismatch", Severity.FAIL,
        f"{name} {version} was built for torch {wants}, but torch {have} is installed",
        f"{name} pins the exact torch its C++ ops were compiled against; beside another torch they do not load "
        f"('operator torchvision::nms does not exist' on import). Reinstalling torch alone leaves the old {name}.",
        list(dict.fromkeys([str(pinned.source), *_torch_evidence(host)]))[:3],
        Fix(f"Reinstall {name} from the index torch came from, with torch, in one command:",
            ["rocmdoctor install torch torchvision torchaudio"]),
    )


def _nvidia_triton(ptx: Fact[str]) -> Finding:
    """Triton compiling PTX for 'sm_110' on an AMD GPU: the CUDA triton took the place of the ROCm one (a ROCm torch
    reports gfx1100 as compute capability 11.0, which NVIDIA's backend turns into sm_110)."""
    return finding(
        "torch.triton-mismatch", Severity.FAIL, "Triton compiled for NVIDIA (PTX/ptxas) on an AMD GPU",
        "torch.compile and Triton kernels went through Triton's NVIDIA backend: the installed triton is PyPI's CUDA "
        "build, not the ROCm Triton (pytorch-triton-rocm) that the ROCm torch wheel pins. Eager mode still works.",
        [str(ptx.source)],
        Fix("Replace it with the ROCm Triton pinned by torch (reinstall torch and triton from one ROCm index):",
            ["pip uninstall -y triton", "rocmdoctor install torch"]),
    )


@check("torch.gpu-unavailable", title="torch sees the GPU")
def gpu_unavailable(host: Host, matrix: Matrix) -> list[Finding]:
    t = host.torch
    if t is None or t.cuda_available is None:
        return []
    if t.cuda_available:
        return [ok("torch.gpu-unavailable", "torch sees the GPU (torch.cuda.is_available() or its device count)",
                   _torch_evidence(host))]
    if t.build != TorchBuild.ROCM:
        return []  # torch.not-rocm-build already says why
    if host.kernel.is_wsl or "wsl" in host.context:
        return [finding(
            "torch.gpu-unavailable", Severity.FAIL, f"torch {t.version} sees no GPU under WSL",
            "Under WSL the GPU is reached through /dev/dxg by AMD's WSL runtime only; a ROCm wheel that bundles its "
            "own HSA runtime (torch/lib/libhsa-runtime64.so, as pytorch.org's do) looks for /dev/kfd and finds no "
            "GPU (OrsoEric/HOWTO-7900XTX-Win-ROCM#4: deleting the bundled library fixed it).",
            _torch_evidence(host),
            Fix("Install AMD's WSL runtime and use its libhsa-runtime64 instead of the wheel's (or AMD's WSL wheels):",
                ["python -c 'import torch, os; print(os.path.dirname(torch.__file__))'",
                 "rm <that directory>/lib/libhsa-runtime64.so*"],
                "https://rocm.docs.amd.com/projects/radeon/en/latest/docs/install/wsl/install-pytorch.html"),
        )]
    return [finding(
        "torch.gpu-unavailable", Severity.FAIL, f"torch {t.version} is a ROCm build but sees no GPU",
        "torch.cuda.is_available() returned False: the runtime found no usable GPU (driver not loaded, no "
        "access to /dev/kfd, the GPU hidden by *_VISIBLE_DEVICES, or an unsupported ISA).",
        _torch_evidence(host),
        Fix("The other findings name the cause; to see the runtime's own reason:",
            ["AMD_LOG_LEVEL=4 python -c 'import torch; print(torch.cuda.is_available())'"]),
    )]


def _wheel_pythons(matrix: Matrix) -> tuple[str, ...]:
    """The Pythons the data's ROCm torch wheels are built for, oldest first."""
    found = {p for v in matrix.torch_variants() for p in v.pythons if re.fullmatch(r"3\.\d{1,2}", p)}
    return tuple(sorted(found, key=lambda p: int(p.split(".")[1])))


def _torch_before_data(host: Host, matrix: Matrix) -> bool:
    """The report's torch is older than every torch release in the data (ROCm/pytorch#411: a ROCm source build
    '1.1.0a0+453c723' on Python 3.6 in 2019): it came with its era's Python, which today's wheel lists do not judge."""
    m = re.match(r"(\d{1,2})\.(\d{1,3})", host.torch.version or "") if host.torch is not None else None
    known = [(int(a), int(b)) for v in matrix.torch_variants() if (k := re.match(r"(\d{1,2})\.(\d{1,3})", v.torch))
             for a, b in [k.groups()]]
    return m is not None and bool(known) and (int(m[1]), int(m[2])) < min(known)


@check("python.no-rocm-wheel", title="Python version")
def python_wheel(host: Host, matrix: Matrix) -> list[Finding]:
    version = host.python.version
    refused = wheel_refused(host)
    if refused is not None:
        return [refused]
    if not version:
        return [not_captured("python.no-rocm-wheel", "Python version")]
    mm = major_minor(version) or version
    ev = [str(host.python.source)] if host.python.source else [f"Python {version}"]
    none = host.context.get("pip-no-versions")
    if none is not None and "pip-versions-listed" not in host.context:  # listed versions: the index serves this Python
        return [no_versions(host, mm, ev, none, _wheel_pythons(matrix))]
    listed = _rocm_wheel_tags(host)
    if listed and not any(t in ("abi3", "cp" + mm.replace(".", "")) for t, _ in listed):
        tags = sorted({t for t, _ in listed})
        return [finding(
            "python.no-rocm-wheel", Severity.FAIL,
            f"The ROCm wheels listed are for {', '.join(tags)} only: Python {mm} gets none of them",
            "pip rejects a wheel built for another CPython; with --extra-index-url it then takes PyPI's build of the "
            "same package (a CUDA wheel) instead of failing (vllm#44660).",
            [*ev, *(s for _, s in listed[:2])],
            Fix(f"Use the Python the ROCm wheels are built for ({', '.join(tags)}) in a new environment:",
                [f"uv venv --python {tags[0][2]}.{tags[0][3:]} .venv" if tags[0].startswith("cp")
                 else "uv venv .venv"]),
        )]
    other = host.context.get("other-framework")
    if host.torch is None and other is not None and not host.packages:
        return [skip("python.no-rocm-wheel", f"The report is about {other.value}, not PyTorch: PyTorch's wheels for "
                                             f"Python {mm} are not judged")]
    if host.torch is not None and host.torch.build == TorchBuild.ROCM:
        return [ok("python.no-rocm-wheel", f"Python {version}: torch {host.torch.version or ''} is already a ROCm "
                                           "build".replace("  ", " "), ev)]
    gfxs = [gfx for g in discrete_gpus(host) if (gfx := native_gfx(g))]
    any_for_python = matrix.torch_variants(python=mm)
    if not any_for_python:
        pythons = sorted({p for v in matrix.torch_variants() for p in v.pythons if p.replace(".", "").isdigit()},
                         key=lambda s: tuple(int(x) for x in s.split(".")))
        # with no install in the report and no torch to judge, a Python older than the data's releases may well have
        # had wheels then (ROCm/pytorch#513: torch imports in AMD's 2019 container on Python 3.6): not a failure
        said = host.python.source is not None and host.python.source.kind == FREE_TEXT  # a pasted banner, not a capture
        installing = not said or (host.torch is not None and not _torch_before_data(host, matrix)) \
            or host.packages or any(k in host.context for k in _INSTALL_CONTEXT)
        return [finding(
            "python.no-rocm-wheel", Severity.FAIL if installing else Severity.INFO,
            f"No PyTorch ROCm wheel exists for Python {mm}" + ("" if installing else " in the releases rocmdoctor "
                                                                                       "knows"),
            f"PyTorch publishes ROCm wheels for Python {', '.join(pythons)}; pip then silently falls back to "
            "another index or a CPU build.",
            ev,
            Fix("Create an environment with a supported Python:",
                [f"uv venv --python {pythons[-2] if len(pythons) > 1 else pythons[-1]} .venv"
                 if pythons else "uv venv .venv", "rocmdoctor install torch --python .venv/bin/python"]),
        )]
    if gfxs:
        def runs_as(g: str) -> set[Optional[str]]:
            t = matrix.gpu(g)
            return {g} | ({gfx_from_version(t.override)} if t is not None and t.override else set())

        fitting = [v for v in any_for_python if all(runs_as(g) & set(v.gfx) for g in gfxs)]
        if not fitting:
            return [finding(
                "python.no-rocm-wheel", Severity.WARN,
                f"No PyTorch ROCm wheel for Python {mm} includes {', '.join(sorted(set(gfxs)))}",
                "Wheels exist for this Python, but none is compiled for this GPU (see gpu.override-needed / "
                "gpu.arch-unsupported for what to do).",
                ev,
            )]
    variants = plural(len(any_for_python), "ROCm torch variant")
    return [ok("python.no-rocm-wheel", f"Python {version}: {variants} available", ev)]
