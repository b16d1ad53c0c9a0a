"""PyTorch's ``python -m torch.utils.collect_env`` text, any version, complete or cut off, plus the
REPL lines people paste beside it (``torch.cuda.is_available()`` followed by ``True``/``False``)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

from rocmdoctor.model import Fact, GpuInfo, OsInfo, PythonInfo, Source, TorchInfo
from rocmdoctor.parse.osrelease import os_from_prose
from rocmdoctor.parse.pip import normalize
from rocmdoctor.parse.text import gfx_base, lines, looks_like_apu, src, strip_prompt

_KEYS = (
    "PyTorch version",
    "Is debug build",
    "CUDA used to build PyTorch",
    "ROCM used to build PyTorch",
    "OS",
    "Python version",
    "Python platform",
    "Is CUDA available",
    "GPU models and configuration",
    "HIP runtime version",
    "MIOpen runtime version",
    "Versions of relevant libraries",
)
_KEY = re.compile(r"^(" + "|".join(re.escape(k) for k in _KEYS) + r")\s*:\s*(.*)$")
_PKG = re.compile(r"^\[(pip3?|conda)\]\s+([A-Za-z0-9_.\-]+)(?:==|\s+)([^\s=]+)")
_GPU_LINE = re.compile(r"^GPU\s*(\d+)\s*:\s*(.+)$")
# "Linux-6.8.0-45-generic-x86_64-with-glibc2.35"; some builds add the processor: "Linux-6.17.9-gentoo-x86_64-AMD_Ryzen_
# Threadripper_3960X_24-Core_Processor-with-glibc2.43" (vllm-project/vllm#45372)
_PLATFORM = re.compile(r"^Linux-(.+?)-(x86_64|aarch64|ppc64le)(?:-[\w.-]{1,120}?)?(?:-with|$)")
_IS_AVAILABLE = re.compile(r"torch\.cuda\.is_available\(\)")
_NOT_COLLECTED = {"n/a", "none", "could not collect", "", "no cuda"}


@dataclass
class CollectEnvResult:
    torch: Optional[TorchInfo] = None
    python: Optional[PythonInfo] = None
    os: Optional[OsInfo] = None
    kernel_release: Optional[Fact[str]] = None
    gpus: list[GpuInfo] = field(default_factory=list)
    packages: dict[str, str] = field(default_factory=dict)
    hip_runtime: Optional[Fact[str]] = None
    miopen: Optional[Fact[str]] = None
    crashed: Optional[Source] = None  # collect_env itself raised (traceback through collect_env.py)
    recognised: bool = False
    gpu_line: bool = False  # its "GPU models and configuration" line is there (a cut paste often ends before it)


def _value(v: str) -> Optional[str]:
    v = v.strip()
    return None if v.lower() in _NOT_COLLECTED else v


def parse_collect_env(text: str, file: str = "cmd/collect_env.txt") -> CollectEnvResult:
    res = CollectEnvResult()
    torch = TorchInfo()
    gpu_block = False
    in_libs = False
    repl_pending = False
    seen_torch = False
    for n, raw in lines(text):
        line, prompted = strip_prompt(raw)
        s = line.strip()
        if "collect_env.py" in s and "File " in s and res.crashed is None:
            res.crashed = src(file, n, s)
            res.recognised = True
        if repl_pending and s in ("True", "False"):
            torch.cuda_available = s == "True"
            repl_pending = False
            if torch.source is None:
                torch.source = src(file, n, s)
            continue
        if _IS_AVAILABLE.search(s) and (prompted or s.startswith(("python", ">>>"))):
            repl_pending = True
            continue
        if prompted:
            repl_pending = False
        m = _KEY.match(s)
        if m:
            res.recognised = True
            gpu_block = in_libs = False
            key, val = m.group(1), m.group(2)
            v = _value(val)
            where = src(file, n, s)
            if key == "PyTorch version" and v:
                torch.version = v
                torch.source = where
                seen_torch = True
            elif key == "CUDA used to build PyTorch":
                torch.cuda = v
            elif key == "ROCM used to build PyTorch":
                torch.hip = v
            elif key == "Is CUDA available" and v:
                torch.cuda_available = v.lower() in ("true", "yes")
            elif key == "OS" and v:
                res.os = os_from_prose(v, file, n)
            elif key == "Python version" and v:
                pv = re.match(r"(\d+\.\d+(?:\.\d+)?)", v)
                if pv:
                    res.python = PythonInfo(version=pv.group(1), implementation="cpython", source=where)
            elif key == "Python platform" and v:
                pm = _PLATFORM.match(v)
                if pm:
                    res.kernel_release = Fact(pm.group(1), where)
            elif key == "GPU models and configuration":
                gpu_block = res.gpu_line = True
                if v:
                    _add_gpu(res, v, where)
            elif key == "HIP runtime version" and v:
                res.hip_runtime = Fact(v, where)
            elif key == "MIOpen runtime version" and v:
                res.miopen = Fact(v, where)
            elif key == "Versions of relevant libraries":
                in_libs = True
            continue
        if gpu_block:
            g = _GPU_LINE.match(s)
            if g:
                _add_gpu(res, g.group(2), src(file, n, s))
                continue
            gpu_block = False
        pkg = _PKG.match(s)
        if pkg and (in_libs or res.recognised):
            res.packages.setdefault(normalize(pkg.group(2)), pkg.group(3))
    if seen_torch or torch.cuda_available is not None:
        res.torch = torch
        res.recognised = True
    return res


def _add_gpu(res: CollectEnvResult, text: str, where: Source) -> None:
    """'AMD Instinct MI300X (gfx942:sramecc+:xnack-)' or 'AMD Radeon RX 6750 XT'."""
    m = re.match(r"^(.*?)\s*\((gfx[^)]{0,64})\)\s*$", text)
    name, gfx = (m.group(1), gfx_base(m.group(2))) if m else (text, None)
    if name.startswith("GPU ") and ":" in name:
        name = name.split(":", 1)[1].strip()
    gpu = GpuInfo(index=len(res.gpus), name=name or None, sources=[where])
    if gfx:
        gpu.gfx_by_source["collect_env"] = gfx
        gpu.gfx = gfx
    if looks_like_apu(name):
        gpu.is_apu = True
    res.gpus.append(gpu)
