"""``dkms status`` (old comma format and new ``module/version`` format, broken-tree errors) and DKMS
build failures in install logs (``Error! Bad return status for module build on kernel: K (arch)``)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from rocmdoctor.model import DkmsEntry, DkmsInfo, Fact
from rocmdoctor.parse.text import MAX_CHARS, MAX_LINE, clean, src, strip_prompt

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
# DKMS 3.x also names the module: "Building initial module amdgpu/6.16.13-2341068.24.04 for 7.0.0-15-generic"
_BUILD_FAIL_KERNEL = re.compile(r"(?:Building (?:initial )?module(?:\(s\))?(?: [\w+-]{1,64}/\S{1,80})? for|for kernel)"
                                r"\s+(\d[\w.+~-]{0,127})")
_DPKG_DKMS = re.compile(r"(?:error processing package|Error occurred:?)\s*(amdgpu-dkms|rock-dkms)|^\s*amdgpu-dkms\s*$")
_LOADING = re.compile(r"Loading new (?P<mod>[\w+-]{1,64}?)[-/](?P<ver>\d[\w.+~-]{0,127}) DKMS files"
                      # DKMS 3.x: "Autoinstall of module amdgpu/6.16.13-2278356.24.04 for kernel 6.18.7-... (x86_64)"
                      r"|Autoinstall of module (?P<mod3>[\w+-]{1,64})/(?P<ver3>\d[\w.+~-]{0,127}) for kernel"
                      # the header of a pasted make.log: "DKMS make.log for amdgpu-6.2.4-1683306.22.04 for kernel ..."
                      r"|DKMS make\.log for (?P<mod4>[\w+-]{1,64}?)-(?P<ver4>\d[\w.+~-]{0,127}) for kernel")
# a make.log's own failure ("make: *** [...Makefile:246: __sub-make] Error 2"): counted only after a DKMS make.log
# header, so another program's failed make is not a DKMS build failure (ROCm/ROCm#2451's pasted make.log)
_MAKE_ERROR = re.compile(r"^make(?:\[\d{1,3}\])?: \*\*\* .{0,400}\bError \d{1,3}$")
_TREE_ERROR = re.compile(r"^Error!|dkms\.conf.{0,200}?(?:does not exist|could not)|Could not locate dkms\.conf", re.I)


# DKMS's pointer after a failure names the tree it failed to build: "Consult /var/lib/dkms/amdgpu/1.8-151/build/make.log
# for more information." (ROCm/ROCm#449, rock-dkms 1.8 on Ubuntu 16.04's HWE 4.15 kernel, with no "Loading new" line)
_CONSULT = re.compile(r"Consult /var/lib/dkms/(?P<mod>[\w+-]{1,64})/(?P<ver>\d[\w.+~-]{0,127})/build/make\.log")
_MAY_FAIL = re.compile(r"bad (?:return|exit) status|error processing package|Error occurred|DKMS make\.log for", re.I)


def may_hold_build_failure(text: str) -> bool:
    """One C-level scan: could this log hold a DKMS build failure? (a 1 MiB paste skips the per-line parse)."""
    return _MAY_FAIL.search(text) is not None


_WORDS = ("status", "kernel", "loading new", "autoinstall", "dkms", "error", "installed", "built", "added", "broken",
          "removed")
# One C-level search per lower-cased line, not ten tests. Case-insensitive like the regexes it guards (_STATUS,
# _BUILD_FAIL, _TREE_ERROR: an "ERROR!" line must reach them), but not with re.I, which made the search ten times
# slower; a non-ASCII line is kept whole, since a case-insensitive regex folds characters lower() keeps ('ſ').
_ANY_WORD = re.compile("|".join(re.escape(w) for w in _WORDS))


def log_lines(text: str) -> str:
    """``text`` with every line that cannot matter to :func:`parse_dkms` blanked (line numbers kept): a long
    pasted log costs one search per distinct line for the words above instead of the regex searches per line."""
    rows = text.split("\n")
    keep = {ln for ln in dict.fromkeys(rows) if not ln.isascii() or _ANY_WORD.search(ln.lower())}
    return "\n".join(ln if ln in keep else "" for ln in rows)


MAX_REMEMBERED = 65536  # distinct lines whose reading parse_dkms keeps (a log repeats far fewer)
_Entry = tuple[str, str, Optional[str], Optional[str], str]  # module, version, kernel, arch, status


@dataclass(frozen=True)
class _Line:
    """What one line says on its own (the parser's state, the last kernel and module seen, is applied after):
    a log repeating a line costs its regex searches once."""

    body: str
    loading: Optional[tuple[str, str]]  # (module, version) of "Loading new amdgpu-6.3.6-... DKMS files"
    kernel: Optional[str]  # "Building module for 6.5.0-14-generic"
    kind: str  # "failed" (a build failed), "build-failure" (dpkg), "error" (broken tree), "consult", "entry" or ""
    failed_kernel: Optional[str] = None  # the kernel a "failed" line names
    entry: Optional[_Entry] = None  # a dkms status line


def _read_line(body: str) -> _Line:
    # Literal guards before the searches (a log's lines seldom hold them): every match of _LOADING holds
    # "Loading new", of _BUILD_FAIL_KERNEL "for", of _DPKG_DKMS "-dkms"; the case-insensitive ones are guarded
    # on the lower-cased line only when it is ASCII (Unicode folding matches 'ſ' to 's', which lower() does not).
    low = body.lower() if body.isascii() else None
    lm = _LOADING.search(body) if "Loading new" in body or "Autoinstall of" in body or "make.log for" in body \
        else None
    km = _BUILD_FAIL_KERNEL.search(body) if "for" in body else None
    loading = (lm.group("mod") or lm.group("mod3") or lm.group("mod4"),
               lm.group("ver") or lm.group("ver3") or lm.group("ver4")) if lm else None
    if lm is not None and lm.group("mod4"):
        return _Line(body, loading, kernel=km.group(1) if km else None, kind="makelog")
    cm = _CONSULT.search(body) if "Consult /var/lib/dkms/" in body else None
    if cm:
        return _Line(body, loading, None, "consult", entry=(cm["mod"], cm["ver"], None, None, "build-failed"))
    if body.startswith("make") and "***" in body and _MAKE_ERROR.match(body):
        return _Line(body, loading, None, "make-error")
    kernel = km.group(1) if km else None
    fm = _BUILD_FAIL.search(body) if low is None or "bad" in low else None
    if fm:
        return _Line(body, loading, kernel, "failed", failed_kernel=fm.group(1))
    if "-dkms" in body and _DPKG_DKMS.search(body) and "error" in body.lower():
        return _Line(body, loading, kernel, "build-failure")
    if (low is None or "error!" in low or "dkms.conf" in low) and _TREE_ERROR.search(body):
        return _Line(body, loading, kernel, "error")
    m = _NEW.match(body) or _OLD.match(body)
    sm = _STATUS.match(m.group("status").strip()) if m else None
    if m is None or sm is None:
        return _Line(body, loading, kernel, "")
    entry = (m.group("mod"), m.group("ver"), m.group("kernel"), m.group("arch"), sm.group(1).lower())
    return _Line(body, loading, kernel, "entry", entry=entry)


def parse_dkms(text: str, file: str = "cmd/dkms-status.txt") -> DkmsInfo:
    """Entries, broken-tree errors, build failures and the kernels they failed for."""
    info = DkmsInfo()
    last_kernel = None
    loading = None  # (module, version, line) from "Loading new amdgpu-6.3.6-1718217.22.04 DKMS files..."
    seen: dict[str, Optional[_Line]] = {"": None}
    makelog = made_error = False  # a DKMS make.log header was seen / its failure recorded
    unnamed = None  # (kernel, line) of the last build failure that no "Loading new" line named the module of
    for n, raw in enumerate(text[:MAX_CHARS].split("\n"), 1):  # parse.text.lines(), minus its empty lines
        if raw in seen:
            r = seen[raw]
        else:
            body = strip_prompt(clean(raw[:MAX_LINE]))[0].strip()
            r = _read_line(body) if body else None
            if len(seen) < MAX_REMEMBERED:  # bounded memory on a hostile paste of a million distinct lines
                seen[raw] = r
        if r is None:
            continue
        if r.loading is not None:
            loading = (r.loading[0], r.loading[1], n)
        if r.kernel is not None:
            last_kernel = r.kernel
        if r.kind == "makelog":
            makelog = True
        if r.kind == "failed" or (r.kind == "make-error" and makelog and not made_error):
            made_error = made_error or r.kind == "make-error"  # one failure per make.log, not one per make level
            info.build_failures.append(Fact(r.body, src(file, n, r.body)))
            kernel = r.failed_kernel or last_kernel
            if kernel and kernel not in info.failed_kernels:
                info.failed_kernels.append(kernel)
            if loading is not None and kernel:
                # an install log names the module version it failed to build: known breakages can be matched
                info.entries.append(DkmsEntry(module=loading[0], version=loading[1], kernel=kernel,
                                              status="build-failed", source=src(file, loading[2])))
            unnamed = (kernel, n) if loading is None and kernel else None
        elif r.kind == "consult":  # never a status line of its own (a named failure already has its entry)
            if r.entry is not None and unnamed is not None and n - unnamed[1] <= 2:
                # the failure's own "Consult .../<module>/<version>/build/make.log" line, right after it, names it
                info.entries.append(DkmsEntry(module=r.entry[0], version=r.entry[1], kernel=unnamed[0],
                                              status="build-failed", source=src(file, n, r.body)))
            unnamed = None
        elif r.kind == "build-failure":
            info.build_failures.append(Fact(r.body, src(file, n, r.body)))
        elif r.kind == "error":
            info.errors.append(Fact(r.body, src(file, n, r.body)))
        elif r.entry is not None:
            mod, ver, kernel, arch, status = r.entry
            info.entries.append(DkmsEntry(module=mod, version=ver, kernel=kernel, arch=arch, status=status,
                                          source=src(file, n, r.body)))
    return info
