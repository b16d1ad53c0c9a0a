"""``dkms status`` (old comma format and new ``module/version`` format, broken-tree errors) and DKMS
build failures in install logs (``Error! Bad return status for module build on kernel: K (arch)``)."""

from __future__ import annotations

import re

from rocmdoctor.model import DkmsEntry, DkmsInfo, Fact
from rocmdoctor.parse.text import lines, src, strip_prompt

_NEW = re.compile(
    r"^(?P<mod>[\w.+-]+)/(?P<ver>[^,\s:]+)(?:,\s*(?P<kernel>[^,\s:]+))?(?:,\s*(?P<arch>[\w-]+))?:\s*(?P<status>.+)$"
)
_OLD = re.compile(
    r"^(?P<mod>[\w.+-]+),\s*(?P<ver>[^,\s:]+)(?:,\s*(?P<kernel>[^,\s:]+))?(?:,\s*(?P<arch>[\w-]+))?:\s*(?P<status>.+)$"
)
_STATUS = re.compile(r"^(installed|built|added|broken|removed|unbuilt)\b", re.I)
_BUILD_FAIL = re.compile(
    r"Bad return status for module build on kernel:\s*(\S{1,128})|\(bad exit status:\s*\d+\)", re.I
)
_BUILD_FAIL_KERNEL = re.compile(r"(?:Building (?:initial )?module(?:\(s\))? for|for kernel)\s+(\d[\w.+~-]{0,127})")
_DPKG_DKMS = re.compile(r"(?:error processing package|Error occurred:?)\s*(amdgpu-dkms|rock-dkms)|^\s*amdgpu-dkms\s*$")
_LOADING = re.compile(r"Loading new (?P<mod>[\w+-]{1,64}?)-(?P<ver>\d[\w.+~-]{0,127}) DKMS files")
_TREE_ERROR = re.compile(r"^Error!|dkms\.conf.{0,200}?(?:does not exist|could not)|Could not locate dkms\.conf", re.I)


_MAY_FAIL = re.compile(r"bad (?:return|exit) status|error processing package|Error occurred", re.I)


def may_hold_build_failure(text: str) -> bool:
    """One C-level scan: could this log hold a DKMS build failure? (a 1 MiB paste skips the per-line parse)."""
    return _MAY_FAIL.search(text) is not None


_WORDS = ("status", "kernel", "Loading new", "dkms", "DKMS", "Error", "error", "installed", "built", "added",
          "broken", "removed")


def log_lines(text: str) -> str:
    """``text`` with every line that cannot matter to :func:`parse_dkms` blanked (line numbers kept): a long
    pasted log costs a substring test per line instead of four regex searches."""
    return "\n".join(ln if any(w in ln for w in _WORDS) else "" for ln in text.split("\n"))


def parse_dkms(text: str, file: str = "cmd/dkms-status.txt") -> DkmsInfo:
    """Entries, broken-tree errors, build failures and the kernels they failed for."""
    info = DkmsInfo()
    last_kernel = None
    loading = None  # (module, version, line) from "Loading new amdgpu-6.3.6-1718217.22.04 DKMS files..."
    for n, line in lines(text):
        body = strip_prompt(line)[0].strip()
        if not body:
            continue
        lm = _LOADING.search(body)
        if lm:
            loading = (lm.group("mod"), lm.group("ver"), n)
        km = _BUILD_FAIL_KERNEL.search(body)
        if km:
            last_kernel = km.group(1)
        fm = _BUILD_FAIL.search(body)
        if fm:
            info.build_failures.append(Fact(body, src(file, n, body)))
            kernel = fm.group(1) or last_kernel
            if kernel and kernel not in info.failed_kernels:
                info.failed_kernels.append(kernel)
            if loading is not None and kernel:
                # an install log names the module version it failed to build: known breakages can be matched
                info.entries.append(DkmsEntry(module=loading[0], version=loading[1], kernel=kernel,
                                              status="build-failed", source=src(file, loading[2])))
            continue
        if _DPKG_DKMS.search(body) and "error" in body.lower():
            info.build_failures.append(Fact(body, src(file, n, body)))
            continue
        if _TREE_ERROR.search(body):
            info.errors.append(Fact(body, src(file, n, body)))
            continue
        m = _NEW.match(body) or _OLD.match(body)
        if m is None:
            continue
        status = m.group("status").strip()
        sm = _STATUS.match(status)
        if sm is None:
            continue
        info.entries.append(
            DkmsEntry(
                module=m.group("mod"),
                version=m.group("ver"),
                kernel=m.group("kernel"),
                arch=m.group("arch"),
                status=sm.group(1).lower(),
                source=src(file, n, body),
            )
        )
    return info
