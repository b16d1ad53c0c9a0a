"""ROCm and HIP versions: ``/opt/rocm*/.info/version`` and ``hipconfig``."""

from __future__ import annotations

import re
from typing import Optional

from rocmdoctor.model import Fact
from rocmdoctor.parse.text import lines, src, strip_prompt

_ROCM = re.compile(r"^(\d+\.\d+(?:\.\d+)?)(?:[-.][\w.~+-]*)?$")
_HIP_KEY = re.compile(r"^HIP version\s*:\s*(\d[\w.+-]*)", re.I)
_HIP_BARE = re.compile(r"^(\d+\.\d+\.\d+[\w.+-]*)$")
_ROCM_PATH = re.compile(r"^ROCM_PATH\s*:\s*(\S+)")


def parse_rocm_version_file(text: str, file: str) -> Optional[Fact[str]]:
    """'6.0.2-115' -> '6.0.2' (the build number is dropped; the line is kept as evidence)."""
    for n, line in lines(text):
        m = _ROCM.match(line.strip())
        if m:
            return Fact(m.group(1), src(file, n, line))
    return None


def parse_hipconfig(text: str, file: str = "cmd/hipconfig.txt") -> Optional[Fact[str]]:
    """``hipconfig`` ('HIP version  : 6.0.32830-d62f6a171') or ``hipconfig --version`` (bare version)."""
    bare: Optional[Fact[str]] = None
    for n, line in lines(text):
        body = strip_prompt(line)[0].strip()
        m = _HIP_KEY.match(body)
        if m:
            return Fact(m.group(1), src(file, n, body))
        m = _HIP_BARE.match(body)
        if m and bare is None:
            bare = Fact(m.group(1), src(file, n, body))
    return bare


def hip_to_rocm(hip: str) -> Optional[str]:
    """HIP '6.0.32830-d62f6a171' -> ROCm '6.0' (HIP's major.minor follow ROCm's)."""
    m = re.match(r"^(\d+)\.(\d+)\.", hip)
    return f"{m.group(1)}.{m.group(2)}" if m else None
