"""Fold the facts :mod:`rocmdoctor.parse.freetext` found in free text into the bundle's accumulator.

Called once by :mod:`rocmdoctor.bundle.load`, after every format parser ran. A free-text fact is offered
as source ``"text"``, last in every row of :data:`rocmdoctor.bundle.merge.PRIORITY`, so it fills only what
no capture told; GPUs named in prose are used only when no enumeration source (rocminfo, kfd, drm, lspci,
smi, collect_env) listed any GPU.
"""

from __future__ import annotations

import re
from typing import Optional, Union

from rocmdoctor.bundle.context_kinds import CONTEXT_KINDS
from rocmdoctor.bundle.merge import Acc
from rocmdoctor.bundle.text_perm import root_only
from rocmdoctor.bundle.text_template import gpu_names, stated_over_template
from rocmdoctor.limits import LIMITS
from rocmdoctor.model import (
    DeviceNode,
    DkmsEntry,
    Fact,
    GpuInfo,
    KernelInfo,
    PythonInfo,
    RocmInstall,
    Source,
    TorchInfo,
)
from rocmdoctor.parse import kernel, osrelease
from rocmdoctor.parse.cpu_igpu import igpu_of
from rocmdoctor.parse.freetext import (
    CODENAME,
    TextFact,
    TextFacts,
    app_gpu,
    product_name,
    python_minor,
    torch_from_wheel,
)

AppGpu = tuple[Optional[str], Optional[str], Optional[str], Optional[str]]  # freetext.app_gpu's answer
MAX_TEXT_GPUS = LIMITS["text-gpus"]


# A Windows report's "On linux, a similar problem ... can be resolved with ... HSA_OVERRIDE_GFX_VERSION = 10.3.0"
# (leejet/stable-diffusion.cpp#160) names the variable as Linux's remedy; nothing set it on this host.
_SAID_OF_LINUX = re.compile(r"(?i)\b(?:on|in|under|for) linux\b|\bcan be (?:resolved|fixed|solved)\b")
# a board the report only means to buy: "This makes me thinking of buying a bunch of rx6600 ( Non XT )s"
# (ROCm/legacy-rocm-build#1786, an RX 6500 XT host): not a GPU of this host
_TO_BUY = re.compile(r"(?i)\b(?:buy|buying|purchas(?:e|ing)|order(?:ing)?)\b(?: (?:a|an|one|two|some|a bunch of|a few|"
                     r"more|another|new)){0,3}[ \t]{1,3}$")
# a board of another, working setup the report compares with (the text before the name, in its sentence):
# "The same setup works fine with my RX 550 because it is too old for rocm, so it defaults to CPU" (ollama/ollama
# #8851: the GPU that faults is a Navi 22 the paste does not name), "on my other machine with an RX 6800 it works",
# "it worked with my old RX 580", "my previous card, an RX 580": not a GPU of this host
_WORKS = (r"\b(?:works?|worked|working|runs?|ran|running)"
          r"(?: (?:just )?(?:fine|well|perfectly|great|flawlessly|ok|okay))?")
_ELSEWHERE = re.compile(
    r"(?i)\b(?:same|identical) (?:\w{1,20} ){0,2}?(?:setup|config\w{0,7}|code|container|image|compose\w{0,5}|script"
    r"|command|docker\w{0,8}|program|install\w{0,7}|environment|steps|system)\b[^.!?\n]{0,40}?"
    + _WORKS + r" (?:with|on|using) (?:my |an? |the )?[ \t]{0,3}$"
    + r"|" + _WORKS + r" (?:with|on|using) (?:my|the|an?) (?:old|older|previous|former) (?:card |gpu )?$"
    + r"|\b(?:my|an?|the) (?:other|another|second|previous|former|old|older) (?:machine|computer|pc|system|box|laptop"
    r"|desktop|server|rig|workstation|host)\b[^.!?\n]{0,40}$"
    + r"|\b(?:my|the) (?:previous|former|old|older) (?:graphics card|video card|card|gpu)\b[^.!?\n]{0,20}$")


def _fact(f: TextFact, value: object = None) -> Fact:
    return Fact(f.value if value is None else value, f.source)


def fold(acc: Acc, facts: TextFacts) -> None:
    """Offer every free-text fact to ``acc`` below the format parsers' priority."""
    if not facts.facts:
        return
    host = acc.host
    for f in facts.facts:
        key = CONTEXT_KINDS.get(f.kind) or ("pip-index" if f.kind == "pip.index" else None)
        if key == "override-named" and _SAID_OF_LINUX.search(f.source.text or ""):
            continue  # said of another system, not set on this one
        if key and key not in host.context:
            host.context[key] = _fact(f)
    done, device = facts.first("run.steps-done"), next(
        (f for f in facts.all("gpu.name") if re.search(r"\bDevice: cuda:\d", f.source.text or "")),
        facts.first("run.torch-device"))
    if done is not None and device is not None:  # ComfyUI on "Device: cuda:0 AMD Radeon ..." finished its steps
        host.context.setdefault("gpu-run-ok", _fact(done))
    vulkan = facts.all("gpu.vulkan")
    if vulkan:  # one entry per board, in Vulkan's order: the hardware's ISAs beside the runtime's
        host.context["vulkan-gfx"] = Fact(",".join(f.value.lower() for f in vulkan[:MAX_TEXT_GPUS]), vulkan[0].source)
    groups = sorted({f.value for f in facts.all("container.group-add")})
    if groups:
        first = facts.first("container.group-add")
        host.context["group-add"] = Fact(",".join(groups), first.source if first else Source("?"))
    for f in facts.all("container.compose-item"):
        host.context.setdefault("compose-items", Fact("", f.source))
        prev = host.context["compose-items"]
        host.context["compose-items"] = Fact((prev.value + " " + f.value).strip(), prev.source)
    for f in facts.all("companion.version"):  # "torchvision:  0.24.1": the package and its version
        name, _, version = re.sub(r"(?: version)?\s*(?::|==)\s*", " ", f.value, count=1).partition(" ")
        host.context.setdefault("companion-" + name, Fact(version, f.source))
    # "CPU: 7800X3D": a model number the data says always carries an iGPU (the judge weighs it below an APU's name)
    apu = next((f for f in facts.all("cpu.model") if igpu_of(f.value) is not None), None)
    if apu is not None:
        host.context.setdefault("igpu-cpu-model", _fact(apu))
    wheels = facts.all("wheel.rocm-cp")
    if wheels:
        host.context["rocm-wheels"] = Fact(" ".join(dict.fromkeys(f.value for f in wheels[:8])), wheels[0].source)
    root_only(acc, facts)
    _apt_sources(acc, facts)
    if "container" in host.context and not acc.container_seen:
        acc.in_container(host.context["container"].source)
    _torch(acc, facts)
    _python(acc, facts)
    _system(acc, facts)
    _gpus(acc, facts)
    _env(acc, facts)
    _kfd_node(acc, facts)


def _apt_sources(acc: Acc, facts: TextFacts) -> None:
    """A package apt fetched both from repo.radeon.com and from the distribution's archive (apt's 'Get:' lines):
    two sources of ROCm, the distribution's version string outranking AMD's (ROCm/legacy-rocm-build#3656)."""
    seen: dict[str, dict[str, tuple[str, TextFact]]] = {}  # package -> host -> (version, fact)
    for f in facts.all("apt.get"):
        parts = f.value.split()
        if len(parts) >= 6:  # url, suite, arch, package, arch, version (the rule's shape)
            seen.setdefault(parts[3], {}).setdefault(parts[0].split("/")[2], (parts[5], f))
    for package, hosts in sorted(seen.items()):
        other = next(((h, v) for h, v in hosts.items() if h != "repo.radeon.com"), None)
        if "repo.radeon.com" in hosts and other is not None:
            (oh, (ov, of)), av = other, hosts["repo.radeon.com"][0]
            acc.host.context.setdefault("apt-two-sources", Fact(f"{package} {ov} ({oh}) beside {av} (repo.radeon.com)",
                                                                 of.source))
            return


def _kfd_node(acc: Acc, facts: TextFacts) -> None:
    """/dev/kfd's mode, owner and group quoted from ``ls -l`` in text, when no capture stat'ed the node."""
    f = facts.first("dev.kfd-ls")
    if f is None or any(n.path == "/dev/kfd" for n in acc.host.device_nodes):
        return
    perms, *rest = f.value.split()
    if len(rest) < 2:
        return
    owner, group = rest[-2], rest[-1]
    bits = perms[1:10]
    mode = "".join(str(sum(v for c, v in zip(bits[i:i + 3], (4, 2, 1)) if c != "-")) for i in (0, 3, 6))
    acc.host.device_nodes.append(DeviceNode(path="/dev/kfd", mode=mode, owner=owner, group=group, source=f.source))


_PYPI_LINUX_X86 = re.compile(r"-manylinux[\w.]{0,40}_x86_64\.whl$")


# a variable named as unset, or as the thing not to do ("Do NOT set HIP_VISIBLE_DEVICES=-1", ollama/ollama#14855)
_NOT_SET = (r"(?i)\b(?:not using|not setting|without|unless|instead of|rather than|do not set|don't set|never set"
            r"|do not use|don't use|avoid)\s{1,3}")
# a section listing what was tried and failed: the settings under it are not the host's
_TRIED = re.compile(r"(?i)\b(?:doesn'?t|does not|didn'?t|did not|won'?t|don'?t) work|\bnot working\b|\bwhat fail|"
                    r"\b(?:tried|attempts?)\b")

_STAYED = ("the ROCm torch install failed (pip/uv found no matching wheel on the ROCm index) and the report says "
           "the program ran on the CPU: the torch that stayed is the default (CUDA or CPU) build")


def _failed_rocm_install(facts: TextFacts) -> Optional[TextFact]:
    """The report's "it runs on the CPU" beside an install from a ROCm index that could not be resolved
    (InvokeAI#7146, VoiceStudio#987): the installer kept PyPI's default torch. Returns the CPU line."""
    cpu = facts.first("torch.cpu-device")
    if cpu is None or _install_failure(facts) is None:
        return None
    return cpu


def _install_failure(facts: TextFacts) -> Optional[tuple[TextFact, TextFact]]:
    """pip's/uv's failure and the ROCm index it was resolving against: the nearest index line before it."""
    failed = facts.first("pip.no-versions")
    if failed is None:
        return None
    line = failed.source.line or 0
    indexes = [f for f in facts.all("rocm.index") if (f.source.line or 0) <= line] or facts.all("rocm.index")
    if not indexes:
        return None
    return failed, max(indexes, key=lambda f: f.source.line or 0)



def _rocm_torch_line(facts: TextFacts) -> Optional[TextFact]:
    """A line only a ROCm torch prints: torch's own "HIP error: <reason>" (c10), a bare hipError name only in a report
    that names PyTorch (rccl-tests and Blender print the same names: ROCm/rccl-tests#16, ROCm/hip#3353), a library of
    the wheel's ROCm."""
    named = facts.first("torch.named") is not None
    return next((f for f in facts.all("torch.hip-error") if named or f.value.startswith("HIP error: ")),
                None) or facts.first("torch.rocm-lib")

def _torch(acc: Acc, facts: TextFacts) -> None:
    version_fact = facts.first("torch.version")
    version = version_fact.value if version_fact else None
    source: Optional[Source] = version_fact.source if version_fact else None
    pypi_cuda = False  # PyPI's Linux x86_64 torch wheel (no local label) is the CUDA build
    if version is None:
        refused = _refused_lines(facts)  # a wheel pip refused was never installed
        for w in facts.all("torch.wheel"):
            if (w.source.file, w.source.line) in refused:
                continue
            v = torch_from_wheel(w.value)
            if v:
                version, source = v, w.source
                pypi_cuda = "+" not in v and "%2B" not in w.value and bool(_PYPI_LINUX_X86.search(w.value))
                break
    hip = facts.first("torch.hip")
    cuda = facts.first("torch.cuda")
    avail = facts.first("torch.available")
    counted = facts.first("torch.device-count") or facts.first("torch.device-objects")  # how many GPUs torch sees
    nvidia = facts.first("pip.nvidia")
    no_driver = facts.first("torch.no-nvidia-driver") or facts.first("torch.cpu-installed")
    arch = facts.first("torch.arch-list")
    hip_error = _rocm_torch_line(facts)
    stayed = _failed_rocm_install(facts)
    said = facts.all("torch.installed-from")
    installed = max(said, key=lambda f: f.source.line or 0) if said else None  # the reporter's last install
    pins = facts.all("torch.pinned")
    if version is None and pins and not (hip or cuda or avail or nvidia or no_driver or installed or stayed
                                         or facts.first("pip.no-versions")):
        # an install step's pin, when nothing else tells the build: the torch the report runs (a pin beside a CUDA
        # torch's own error is the fix being told, StabilityMatrix: 'I fix this ... pip install torch==...+rocm6.0')
        version, source = pins[-1].value, pins[-1].source
    family = facts.first("torch.therock-family")
    first = hip or cuda or avail or counted or nvidia or no_driver or arch or hip_error or stayed or family or installed
    if not (version or first):
        return
    t = TorchInfo(version=version, source=source or (first.source if first else None))
    if arch is not None:
        t.arch_list = re.findall(r"gfx[0-9a-f]{3,5}", arch.value)
    if family is not None:
        t.therock_family = family.value
    if hip and hip.value != "None":
        t.hip = hip.value
    if cuda and cuda.value != "None":
        t.cuda = cuda.value
    if avail:
        t.cuda_available = avail.value == "True"
    elif counted:
        t.cuda_available = (counted.value.count("device object") if "<" in counted.value else int(counted.value)) > 0
    rocm_tagged = "+rocm" in (version or "") or t.hip is not None
    if not rocm_tagged:
        if hip and hip.value == "None":
            t.proven_build = "cuda" if t.cuda else ("cpu" if cuda and cuda.value == "None" else "not-rocm")
        elif no_driver and ("NVIDIA" in no_driver.value.upper() or "CUDA driver" in no_driver.value):
            t.proven_build = "cuda"
        elif no_driver:
            t.proven_build = "cpu"
        elif nvidia and version and "+" not in version:
            t.proven_build = "cuda"  # PyPI's default Linux torch pulls nvidia-*-cu12
        elif installed is not None and not version and not installed.value.startswith("rocm"):
            t.proven_build = "cuda" if installed.value.startswith("cu") else "cpu"
            t.proof = f"the report installed torch from PyTorch's {installed.value} index last"
            t.proof_sources = [installed.source]
        elif pypi_cuda:
            # "Using cached torch-2.0.0-cp310-cp310-manylinux1_x86_64.whl" (AUTOMATIC1111#9402): pytorch.org's ROCm
            # and CPU wheels carry +rocmX / +cpu in the file name
            t.proven_build = "cuda"
        elif hip_error is not None or (arch is not None and not version) or (family is not None and not version):
            t.proven_build = "rocm"  # "HIP error: ..." comes only from a HIP build; TheRock serves only ROCm builds
        elif stayed is not None and not version:
            t.proven_build = "not-rocm"
            t.proof = _STAYED
            t.proof_sources = [f.source for f in _install_failure(facts) or ()]
    _installer_said(t, facts)
    if t.version is None and t.hip is None and t.cuda is None and t.proven_build is None and t.cuda_available is None:
        return
    acc.torch("text", t)


def _installer_said(t: TorchInfo, facts: TextFacts) -> None:
    """What an installer's own lines prove about the torch it left: uv's summary replacing a ROCm torch with an
    untagged one, '- torch==2.11.0+rocm7.13.0' then '+ torch==2.10.0' (unslothai/unsloth#7275: a dependency's
    resolve pulled PyPI's torch); SD.Next finding the HIP SDK on Windows with no ROCm torch for it
    (vladmandic/sdnext#3108: it installs the CPU-only torch)."""
    if t.hip or "+rocm" in (t.version or ""):
        return
    swapped = facts.first("torch.replaced")
    cpu = facts.first("torch.cpu-installed")
    pulled = facts.first("torch.pulled")
    if pulled is not None and not t.proven_build and (new := torch_from_wheel(pulled.value)):
        # pip fetching PyPI's torch for a dependency (ROCm/pytorch#411): that wheel, not the one shown, is the torch
        was = f"the installed torch {t.version}" if t.version else "the installed torch"
        t.version, t.source, t.proven_build = new, pulled.source, "not-rocm"
        t.proof = f"pip is replacing {was} with PyPI's, fetched as another package's dependency"
        t.proof_sources = [pulled.source]
    elif swapped is not None and not t.proven_build and "+rocm" not in swapped.value:
        t.proven_build = "not-rocm"
        t.proof = "the installer's resolver replaced the ROCm torch with this one"
        t.proof_sources = [swapped.source]
    elif cpu is not None and t.proven_build == "cpu":
        t.proof = "the installer found no ROCm torch for Windows and installed PyTorch's CPU-only one"
        t.proof_sources = [cpu.source]


def _refused_lines(facts: TextFacts) -> set[tuple[str, Optional[int]]]:
    """Lines where pip refused a wheel (evshiron/rocm_lab#6): their wheel name is neither installed nor the host's."""
    return {(r.source.file, r.source.line) for r in facts.all("pip.wheel-refused")}


def _python(acc: Acc, facts: TextFacts) -> None:
    f = facts.first("python.version")
    if f is not None:
        acc.offer("python", "text", PythonInfo(version=f.value, source=f.source))
        return
    # a wheel pip refused names the Python it is for, not the one running (evshiron/rocm_lab#6)
    refused = _refused_lines(facts)
    f = next((m for m in facts.all("python.minor") if (m.source.file, m.source.line) not in refused), None)
    if f is not None:
        acc.offer("python", "text-minor", PythonInfo(version=python_minor(f.value), source=f.source))


def _system(acc: Acc, facts: TextFacts) -> None:
    f = facts.first("kernel.release")
    if f is not None:
        acc.kernel("text", KernelInfo(release=f.value, source=f.source, is_wsl=kernel.is_wsl_text(f.value)))
    for f in facts.all("os.name"):
        if f.source.text and re.search(r"e\.g\.,? (?:Linux )?" + re.escape(f.value), f.source.text):
            continue  # a template's example: "OS Platform and Distribution (e.g., Linux Ubuntu 16.04): Ubuntu 20.04"
        info = osrelease.os_from_prose(f.value, f.source.file, f.source.line)
        if info.id:
            info.source = f.source
            acc.offer("os", "text", info)
            break
    kv = {f.value.split("=", 1)[0]: f for f in facts.all("os.release-kv")}
    if "NAME" in kv:
        name = kv["NAME"].value.split("=", 1)[1].strip("\"' ")
        version = kv["VERSION"].value.split("=", 1)[1].strip("\"' ") if "VERSION" in kv else ""
        info = osrelease.os_from_prose(f"{name} {version}".strip(), kv["NAME"].source.file, kv["NAME"].source.line)
        if info.id:
            info.source = kv["NAME"].source
            acc.offer("os", "text-os-release", info)
    if not acc.rocm_files:
        seen: set[str] = set()
        for f in facts.all("rocm.path"):
            ver = f.value.rsplit("-", 1)[-1]
            sdk = re.fullmatch(r"/opt/rocm_sdk_(\d)(\d)(\d)", f.value)
            if sdk:
                ver = ".".join(sdk.groups())
            windows = re.search(r"\\ROCm\\(\d{1,2}\.\d{1,2})$", f.value)
            if windows:  # the HIP SDK for Windows
                ver = windows.group(1)
            if f.value not in seen and len(seen) < 4:
                seen.add(f.value)
                acc.rocm_files.append(RocmInstall(path=f.value, version=ver, source=f.source))
        if seen:
            # a release named in prose beside a path of another one: remnants of two installs
            have = {".".join(i.version.split(".")[:2]) for i in acc.rocm_files if i.version}
            for f in facts.all("rocm.named"):
                mm = ".".join(f.value.split(".")[:2])
                if mm not in have and len(have) < 4:
                    have.add(mm)
                    acc.rocm_files.append(RocmInstall(path=f"ROCm {f.value} (named in the report)", version=f.value,
                                                      source=f.source))
        if not seen:
            # a release named in prose counts when nothing better says which one ("If you installed ROCm-3.9 with
            # gfx803", ROCm/legacy-rocm-build#1269)
            f = facts.first("rocm.core") or stated_over_template(facts) or facts.first("rocm.version") \
                or facts.first("rocm.named")
            up = facts.first("rocm.upgraded")
            if up is not None and (f is None or f.kind != "rocm.core"):
                # "After updating from ROCm 6.4 to 7.0" (JuliaGPU/AMDGPU.jl#841): the release installed now is the last
                acc.rocm_files.append(RocmInstall(path="/opt/rocm", version=up.value.split()[-1], source=up.source))
            elif f is not None:
                acc.rocm_files.append(RocmInstall(path="/opt/rocm", version=f.value, source=f.source))
            elif (f := facts.first("rocm.package-file")) is not None:  # "40200" is 4.2.0
                code = int(f.value)
                acc.rocm_files.append(RocmInstall(path="/opt/rocm", version=f"{code // 10000}.{code // 100 % 100}."
                                                  f"{code % 100}", source=f.source))
            elif (f := facts.first("rocm.lib-dir")) is not None:  # the HIP runtime's directory, its release unknown
                acc.rocm_files.append(RocmInstall(path=f.value, version=None, source=f.source))
    f = facts.first("hip.version")
    if f is not None:
        acc.offer("hip_version", "text", _fact(f))
    named = facts.first("dkms.amdgpu-named")
    for f in facts.all("dkms.failed-on"):
        # "DKMS fails on kernel 6.16": a build result, with no module version (the judge takes the release's, or
        # the one the report names by its package or DKMS tree)
        built = acc.dkms_info()
        if not any(k == f.value or k.startswith(f.value + ".") or k.startswith(f.value + "-")
                   for k in built.failed_kernels):
            built.failed_kernels.append(f.value)
            built.build_failures.append(Fact(f.source.text or f.value, f.source))
            if named is not None and not any(e.module == "amdgpu" for e in built.entries):
                built.entries.append(DkmsEntry("amdgpu", named.value, f.value, None, "build-failed", named.source))


def _gpus(acc: Acc, facts: TextFacts) -> None:
    """GPUs named in text, only when no enumeration source listed any (prose proves no absence)."""
    if any(lst for lists in acc.gpu_lists.values() for lst in lists):
        return
    gpus: list[GpuInfo] = []
    seen: set[Union[AppGpu, str]] = set()  # a GPU an application listed, or a gfx / PCI id / name already used
    for f in facts.all("gpu.app"):
        parsed = app_gpu(f.value)
        if parsed is None:
            continue
        index, name, gfx, pci = parsed
        key = (index, name, gfx, pci)
        if key in seen:
            continue
        seen.add(key)
        g = GpuInfo(index=len(gpus), name=name, pci_device_id=pci, pci_vendor_id="0x1002" if pci else None)
        if gfx:
            g.gfx_by_source["log"] = gfx
        g.sources.append(f.source)
        gpus.append(g)
    if gpus:
        acc.host.captured.add("app-log")  # the application's runtime enumerated them, in its order
    names = list(dict.fromkeys(product_name(f.value) for f in facts.all("gpu.name") if not _not_this_host(f)))
    if not gpus:
        listed = [(gfx, f.source) for f in facts.all("gpu.enumerated") for gfx in f.value.split() if gfx != "gfx000"]
        ran = [("gfx" + f.value.lower(), f.source) for f in facts.all("gpu.tensile-isa")]
        for gfx, source in listed + [(f.value.lower(), f.source) for f in facts.all("gpu.gfx")] + ran:
            if gfx in seen:
                continue
            seen.add(gfx)
            g = GpuInfo(index=len(gpus), gfx_by_source={"log": gfx})
            g.sources.append(source)
            gpus.append(g)
        if len(gpus) == 1 and len(names) == 1:
            gpus[0].name = names[0]
    if not gpus:
        for f in facts.all("gpu.pci"):
            pid = "0x" + f.value.lower()
            if pid in seen:
                continue
            seen.add(pid)
            g = GpuInfo(index=len(gpus), pci_vendor_id="0x1002", pci_device_id=pid)
            g.sources.append(f.source)
            gpus.append(g)
    if not gpus:
        named = gpu_names(facts, [f for f in facts.all("gpu.name") if not _not_this_host(f)])
        boards = [f for f in named if not CODENAME.fullmatch(f.value)]
        for f in boards or named:  # "Navi 22 ... a 6700 xt" is one board: a codename counts only alone
            name = product_name(f.value)
            norm = name.lower().removeprefix("amd ").removeprefix("radeon ").removeprefix("instinct ").replace(" ", "")
            if norm in seen:
                continue
            seen.add(norm)
            g = GpuInfo(index=len(gpus), name=name)
            g.sources.append(f.source)
            gpus.append(g)
    counted = facts.first("gpu.rocm-count")
    if not gpus and counted is not None:  # llama.cpp's HIP build: "found 8 ROCm devices:" (names often empty)
        for i in range(min(int(counted.value), MAX_TEXT_GPUS)):
            g = GpuInfo(index=i)
            g.sources.append(counted.source)
            gpus.append(g)
        acc.host.captured.add("app-log")
    if gpus:
        acc.gpus("text", gpus[:MAX_TEXT_GPUS])


def _not_this_host(f: TextFact) -> bool:
    """The board is named as one to buy, or as that of another, working setup the report compares with: not one
    the host has."""
    line = f.source.text or ""
    at = line.lower().find(f.value.lower())
    return at > 0 and bool(_TO_BUY.search(line[:at]) or _ELSEWHERE.search(line[:at]))


def _env(acc: Acc, facts: TextFacts) -> None:
    """HSA_OVERRIDE_GFX_VERSION as the failing process had it (ollama prints its own environment) or, failing
    that, as the user's shell exported it (not marked as a captured environment: other variables are unknown)."""
    host = acc.host
    proc = facts.first("env.override.process")
    if proc is not None and "env" not in host.captured:
        host.captured.add("env")
        host.env_source = proc.source
        if proc.value:
            host.env.setdefault("HSA_OVERRIDE_GFX_VERSION", proc.value)
        return
    if "env" in host.captured:
        return
    headings = [(h.source.line or 0, h.value) for h in facts.all("md.heading")]
    for f in facts.all("env.visible"):
        line = f.source.text or ""
        if re.search(_NOT_SET + r"\W{0,2}" + re.escape(f.value), line):
            continue  # "if i let it use my iGPU by not using HIP_VISIBLE_DEVICES=0" (llama.cpp#8618): not set
        above = [title for at, title in headings if at < (f.source.line or 0)]
        if above and _TRIED.search(above[-1]):
            continue  # under "## What doesn't work": a setting that was tried, not the host's
        key, _, value = f.value.partition("=")
        host.env.setdefault(key.strip(), value.strip().strip("'\""))
        host.context.setdefault("env-" + key.strip(), Fact(value.strip(), f.source))
    # A shell `export`/`VAR=x cmd` in a report is the setting being discussed (often the fix), not the failing
    # process's environment: it stays in host.context["override-shell"], never in host.env.
