"""Kernel facts: ``uname -a``/``-r``, ``/proc/version``, ``/proc/modules`` or ``lsmod``, the amdgpu
module version, and the amdgpu/kfd lines of ``dmesg``."""

from __future__ import annotations

import re
from typing import Optional

from rocmdoctor.limits import LIMITS
from rocmdoctor.model import Fact, KernelInfo
from rocmdoctor.parse.text import lines, src, strip_prompt

_RELEASE = re.compile(r"^\d+\.\d+(?:\.\d+)?[\w.+~-]*$")
_MACHINES = ("x86_64", "aarch64", "ppc64le", "s390x", "riscv64", "i686", "armv7l")
_PROC_VERSION = re.compile(r"Linux version (\S{1,200})")
_DMESG_KEEP = re.compile(r"amdgpu|\bkfd\b|amdkfd|\bhsa\b|\[drm\].{0,200}?amd|gpu reset|ring \w+ timeout|radeon", re.I)
# Secure Boot refusing a module (judged by secureboot.module-rejected); a substring test first keeps the cost
# off the ordinary lines
_DMESG_SECURE = re.compile(r"Key was rejected by service|Lockdown: .{0,40}unsigned module", re.I)
_DMESG_VERSION = re.compile(r"\[drm\] amdgpu version:\s*(\S{1,64})")
# journalctl -k / syslog's prefix of a kernel line (also what rocmdoctor.parse.sniff recognises a kernel log by)
JOURNAL_KERNEL_PREFIX = r"[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \S+ kernel:"
# The prefix the kernel log gives each line: dmesg's '[    5.51]', dmesg -T's '[Mon Dec  1 10:00:00 2025]', and
# journalctl/syslog's 'Dec 01 10:00:00 host kernel:' (also in ISO form); a markdown quote may stand before it.
_KERNEL_STAMP = re.compile(r"^[ \t>]*(?:\[\s*\d+\.\d+\]"
                           r"|\[(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) [A-Z][a-z]{2} [ \d]\d \d\d:\d\d"
                           rf"|{JOURNAL_KERNEL_PREFIX}|\d{{4}}-\d\d-\d\dT\d\d:\d\d\S* \S+ kernel:)", re.M)
MAX_DMESG_LINES = LIMITS["dmesg-lines"]


def is_wsl_text(text: str) -> bool:
    """WSL kernels say so in their release ('5.15.153.1-microsoft-standard-WSL2')."""
    low = text.lower()
    return "microsoft" in low or "wsl" in low


def _first_command_output(text: str) -> list[tuple[int, str]]:
    out = []
    for n, line in lines(text):
        body, prompted = strip_prompt(line)
        if prompted or not body.strip():
            continue
        out.append((n, body.strip()))
    return out


def parse_uname(text: str, file: str) -> KernelInfo:
    """``uname -a`` ('Linux host 6.5.0-14-generic #14~22.04.1-Ubuntu SMP ... x86_64 GNU/Linux') or
    ``uname -r`` ('6.5.0-14-generic')."""
    info = KernelInfo()
    found = _first_command_output(text)
    # a `uname -a` line anywhere wins over a bare version line above it (a template's "2.14.0.600" answer)
    for n, line in sorted(found, key=lambda nl: not nl[1].startswith("Linux ")):
        words = line.split()
        if words[0] == "Linux" and _uname_a(words):
            info.release = words[2]
            info.version_text = line
            info.machine = next((w for w in reversed(words) if w in _MACHINES), None)
        elif len(words) == 1 and _RELEASE.match(words[0]):
            info.release = words[0]
        else:
            continue
        info.is_wsl = is_wsl_text(line)
        info.source = src(file, n, line)
        return info
    return info


def _uname_a(words: list[str]) -> bool:
    """'Linux host 6.5.0-14-generic #14~22.04.1-Ubuntu ...' (its build number after the release), or `uname -snr`'s
    'Linux host 6.5.0-14-generic'; not prose such as 'Linux Ubuntu 22.04'."""
    if len(words) < 3 or not _RELEASE.match(words[2]):
        return False
    return words[3].startswith("#") if len(words) > 3 else "-" in words[2]


def uname_hostname(text: str) -> Optional[str]:
    """The node name from ``uname -a`` (second word), used when there is no manifest."""
    for _, line in _first_command_output(text):
        words = line.split()
        if words[0] == "Linux" and _uname_a(words):
            return words[1]
    return None


def parse_proc_version(text: str, file: str = "root/proc/version") -> KernelInfo:
    info = KernelInfo()
    for n, line in lines(text):
        m = _PROC_VERSION.search(line)
        if m:
            info.release = m.group(1)
            info.version_text = line.strip()
            info.is_wsl = is_wsl_text(line)
            info.source = src(file, n, line)
            return info
    return info


def parse_modules(text: str, file: str) -> Optional[Fact[bool]]:
    """``/proc/modules`` or ``lsmod``: is ``amdgpu`` loaded? ``None`` if the text is not a module list."""
    seen_module_line = False
    for n, line in lines(text):
        body, _ = strip_prompt(line)
        words = body.split()
        if len(words) >= 3 and words[1].isdigit() and words[2].lstrip("-").isdigit():
            seen_module_line = True
            if words[0] == "amdgpu":
                return Fact(True, src(file, n, body))
    if not seen_module_line:
        return None
    return Fact(False, src(file, None, "no amdgpu line in the module list"))


def parse_module_version(text: str, file: str = "root/sys/module/amdgpu/version") -> Optional[Fact[str]]:
    for n, line in lines(text):
        v = line.strip()
        if v and re.match(r"^\d[\w.+~-]*$", v) and len(v) < 64:
            return Fact(v, src(file, n, v))
    return None


# Every alternative of _DMESG_KEEP contains one of these words: a substring test on the casefolded line
# skips the (case-insensitive, ~20 us) regex for the ordinary lines, which on a real node are most of a
# dmesg of thousands of lines (the fleet controller parses one per host).
_KEEP_WORDS = ("amd", "kfd", "hsa", "gpu reset", "timeout", "radeon")


def _keep_dmesg(line: str) -> bool:
    low = line.casefold()
    if "amdxdna" in low and "amdgpu" not in low and "kfd" not in low:
        return False  # the Ryzen AI NPU's driver: another device, not the GPU's (amd/xdna-driver#389)
    if any(w in low for w in _KEEP_WORDS) and _DMESG_KEEP.search(line):
        return True
    return ("rejected" in low or "lockdown" in low) and _DMESG_SECURE.search(line) is not None


def parse_dmesg(text: str, file: str) -> tuple[list[Fact[str]], Optional[Fact[str]]]:
    """amdgpu/kfd related dmesg lines (the last :data:`MAX_DMESG_LINES`) and the DKMS driver version
    that the module prints (``[drm] amdgpu version: 6.16.6``)."""
    kept: list[Fact[str]] = []
    version: Optional[Fact[str]] = None
    # Where the log's lines carry the kernel's time stamp, a line without one is not the kernel's: the
    # reporter's prose around a pasted dmesg ("I do early loading of amdgpu driver", amd/xdna-driver#389) or a
    # command they typed. Secure Boot's refusal is kept either way: modprobe prints it, not the kernel log.
    stamped = _KERNEL_STAMP.search(text) is not None
    for n, line in lines(text):
        if not _keep_dmesg(line):
            continue
        if stamped and not _KERNEL_STAMP.match(line) and _DMESG_SECURE.search(line) is None:
            continue
        body = strip_prompt(line)[0].strip()
        kept.append(Fact(body, src(file, n, body)))
        if version is None:
            m = _DMESG_VERSION.search(line)
            if m:
                version = Fact(m.group(1), src(file, n, body))
    return kept[-MAX_DMESG_LINES:], version
