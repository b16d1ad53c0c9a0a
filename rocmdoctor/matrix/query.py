"""Lookups over the compatibility matrix: the questions the checks, the installer and the views ask.

Version matching rules (documented because callers depend on them):

* ``release("6.2")`` is the newest 6.2.x point release; ``release("6.2.4")`` is exact.
* OS versions match by dotted prefix in either direction: a host reporting Ubuntu ``22.04``
  (os-release ``VERSION_ID`` never carries the point release) matches every ``22.04.x`` the matrix
  lists, and a host reporting Oracle Linux ``9.4`` matches the matrix's ``9``.
* Kernels: a validated series ``"5.15"`` matches any ``5.15.*`` kernel (major.minor compare); a
  vendor kernel such as RHEL's ``"5.14.0-427"`` or SLES's ``"6.4.0-150700.51"`` matches any kernel
  starting with its numeric base ``5.14.0`` / ``6.4.0`` (vendors backport, so the build suffix is
  not compared).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from datetime import date
from typing import Optional

from rocmdoctor.matrix.derived_lookups import DerivedLookups, _norm_pci
from rocmdoctor.matrix.types import (
    Breakage,
    GpuProduct,
    GpuTarget,
    NightlyEpoch,
    OsSupport,
    RocmRelease,
    SupportStatus,
    TorchVariant,
)

# AMD's rule, quoted in the data (matrices/driver.toml [kmd_rule]); used when no column or declaration lists a pair
KMD_RULE_YEAR_FROM = (6, 4)  # "As of ROCm 6.4.0 ... up to a year apart. For earlier ROCm releases ... +/- 2 releases"


@functools.lru_cache(maxsize=4096)
def _vtuple(version: str) -> tuple[int, ...]:
    """Leading numeric components of a version: "6.8.0-49-generic" -> (6, 8, 0, 49).

    Cached: the checks and the fleet sort the same few hundred version strings for every host.
    """
    out: list[int] = []
    for part in re.split(r"[.\-+_]", version.strip()):
        m = re.match(r"\d+", part)
        if not m:
            break
        out.append(int(m.group()))
    return tuple(out)


def _norm_rev(revision: Optional[str]) -> Optional[str]:
    if revision is None:
        return None
    s = revision.strip().lower()
    s = s[2:] if s.startswith("0x") else s
    if not re.fullmatch(r"[0-9a-f]{1,2}", s):
        return None
    return "0x" + s.zfill(2)


def _os_version_matches(matrix_version: str, host_version: str) -> bool:
    """Dotted-prefix match both ways ("22.04" ~ "22.04.5", "9.4" ~ "9"); see the module docstring."""
    a, b = matrix_version.strip(), host_version.strip()
    if not a or not b:
        return False
    return a == b or a.startswith(b + ".") or b.startswith(a + ".")


def _point_release_step(matrix_version: str, host_version: str) -> int:
    """"24.04.3" against a listed "24.04.2": +1 (host later), "24.04.1" against "24.04.2": -1, else 0. AMD lists
    the point release current when its matrix was written, not the ones it excludes: ROCm 6.3.0's column names
    Ubuntu 24.04.2, released after 6.3.0 shipped (rocm/compatibility-matrix-historical-6.0.csv; ROCm/flash-attention
    #111 and ROCm/ROCm-docker#149 ran 6.3.0 on 24.04.1), and os-release's VERSION_ID "24.04" matches it anyway. Used
    only when no entry matches the host's own point release."""
    pa, pb = matrix_version.strip().split("."), host_version.strip().split(".")
    if not (len(pa) == 3 and len(pb) == 3 and pa[:2] == pb[:2] and pa[2].isdigit() and pb[2].isdigit()):
        return 0
    return (int(pb[2]) > int(pa[2])) - (int(pb[2]) < int(pa[2]))


def _days_between(a: str, b: str) -> int:
    """Whole days from ISO date ``a`` to ``b`` (a large number when either is malformed)."""
    try:
        return (date.fromisoformat(b) - date.fromisoformat(a)).days
    except ValueError:
        return 1 << 30


def kernel_matches(validated: str, kernel: str) -> bool:
    """Does a running ``kernel`` fall in the validated series ``validated``? (rules: module docstring)."""
    base = validated.split("-")[0].split(" ")[0]
    want = _vtuple(base)
    have = _vtuple(kernel)
    if not want or not have:
        return False
    if "-" in validated or len(want) >= 3:
        return have[: len(want)] == want
    return have[:2] == want[:2]


@dataclass(frozen=True)
class Matrix(DerivedLookups):
    """The built matrix (fields: ``types.MatrixData``) with its lookups; pure, no I/O."""

    # ---- releases -------------------------------------------------------------------------
    def _sorted_releases(self) -> list[RocmRelease]:
        return sorted(self.releases.values(), key=lambda r: _vtuple(r.version), reverse=True)

    def release(self, version: str) -> Optional[RocmRelease]:
        """Exact "6.2.4", or the newest point release of "6.2"."""
        v = version.strip().lstrip("vV")
        if v.lower().startswith("rocm"):
            v = v[4:].lstrip("-")
        if v in self.releases:
            return self.releases[v]
        want = _vtuple(v)
        if not want:
            return None
        for rel in self._sorted_releases():
            t = _vtuple(rel.version)
            if t[: len(want)] == want:
                return rel
        return None

    def latest_release(self) -> RocmRelease:
        """The newest release in the data (raises LookupError only if the matrix is empty)."""
        rels = self._sorted_releases()
        if not rels:
            raise LookupError("the compatibility matrix holds no ROCm releases")
        return rels[0]

    # ---- GPUs -----------------------------------------------------------------------------
    def gpu(self, key: str) -> Optional[GpuTarget]:
        """Look up by gfx ("gfx1100"), PCI id ("0x744c"/"744c"), or product name ("RX 7900 XTX")."""
        k = key.strip()
        if not k:
            return None
        low = k.lower()
        if low in self.gpus:
            return self.gpus[low]
        if re.fullmatch(r"(0x)?[0-9a-f]{4}(:(0x)?[0-9a-f]{1,2})?", low):
            dev, _, rev = low.partition(":")
            gfx = self.gfx_for_pci(dev, rev or None)
            if gfx:
                return self.gpus.get(gfx)
        # product name: exact (case-insensitive) first, then the shortest name containing the key as whole words
        # ("RX 570" is in "RX 470/480/570 ..." but not in "RX 5700": a loose substring made an RX 570 a gfx1010)
        whole = re.compile(r"(?<![0-9a-z])" + re.escape(low) + r"(?![0-9a-z])")
        hits: list[tuple[int, str, GpuTarget]] = []
        for tgt in self.gpus.values():
            for prod in tgt.products:
                name = prod.name.lower()
                if name == low:
                    return tgt
                if whole.search(name):
                    hits.append((len(name), name, tgt))
        if hits:
            hits.sort(key=lambda h: (h[0], h[1]))
            return hits[0][2]
        # last resort: libdrm marketing names ("780M" -> "AMD Radeon 780M Graphics" -> 0x15bf -> gfx1103)
        for pid, name in sorted(self.pci_names.items()):
            if whole.search(name.lower()):
                dev, _, rev = pid.partition(":")
                gfx = self.gfx_for_pci(dev, rev or None)
                if gfx:
                    return self.gpus.get(gfx)
        return None

    def product(self, key: str) -> Optional[GpuProduct]:
        """The product row for a PCI id or product-name key (None for a bare gfx key)."""
        low = key.strip().lower()
        dev, _, rev = low.partition(":")
        pid = _norm_pci(dev) if re.fullmatch(r"(0x)?[0-9a-f]{4}", dev) else None
        for tgt in self.gpus.values():
            for prod in tgt.products:
                if pid and (f"{pid}:{_norm_rev(rev)}" in prod.pci_ids if rev else False):
                    return prod
        for tgt in self.gpus.values():
            for prod in tgt.products:
                if pid and pid in {p.split(":")[0] for p in prod.pci_ids}:
                    return prod
                if not pid and low and low in prod.name.lower():
                    return prod
        return None

    def gfx_for_pci(self, device_id: str, revision: Optional[str] = None) -> Optional[str]:
        """gfx target of a PCI device id (revision refines only where one id spans targets)."""
        dev = _norm_pci(device_id)
        if dev is None:
            return None
        rev = _norm_rev(revision)
        if rev and f"{dev}:{rev}" in self.pci_gfx:
            return self.pci_gfx[f"{dev}:{rev}"]
        # then the kernel's pre-Vega chips kfd serves (matrices/pci_chips.toml: RX 560 = Polaris 11 = gfx803)
        return self.pci_gfx.get(dev) or (self.pci_chips.get(dev, ("", "", ""))[2] or None)

    def product_name_for_pci(self, device_id: str, revision: Optional[str] = None) -> Optional[str]:
        """From libdrm amdgpu.ids (shipped in rocmdoctor/data/amdgpu.ids)."""
        dev = _norm_pci(device_id)
        if dev is None:
            return None
        rev = _norm_rev(revision)
        if rev and f"{dev}:{rev}" in self.pci_names:
            return self.pci_names[f"{dev}:{rev}"]
        return self.pci_names.get(dev)

    # ---- support --------------------------------------------------------------------------
    def support_status(self, gfx: str, rocm: str) -> SupportStatus:
        """Status of a gfx target in a ROCm release (``UNKNOWN`` when the release or its GPU list is)."""
        rel = self.release(rocm)
        g = gfx.strip().lower()
        if rel is None or not g:
            return SupportStatus.UNKNOWN
        if g in rel.gfx_supported:
            return SupportStatus.SUPPORTED
        if g in rel.gfx_deprecated:
            return SupportStatus.DEPRECATED
        if g in rel.gfx_removed:
            return SupportStatus.REMOVED
        if not rel.gfx_known:
            return SupportStatus.UNKNOWN
        return SupportStatus.NEVER

    def gfx_os_allowed(self, rocm: str, gfx: str, os_id: str, os_version: str) -> Optional[bool]:
        """Per-GPU/per-OS footnote restrictions. None when the OS is not listed for the release."""
        rel = self.release(rocm)
        if rel is None:
            return None
        entries = [o for o in rel.os if o.os_id == os_id.lower() and _os_version_matches(o.version, os_version)]
        if not entries:
            return None
        g = gfx.lower()
        only = dict(rel.gfx_os_only).get(g)
        ok_entries = []
        for o in entries:
            if o.gfx_only and g not in o.gfx_only:
                continue
            if only is not None and f"{o.os_id} {o.version}" not in only:
                continue
            ok_entries.append(o)
        return bool(ok_entries)

    def releases_supporting(
        self, gfx: Optional[str] = None, os_id: Optional[str] = None, os_version: Optional[str] = None,
        kernel: Optional[str] = None,
    ) -> list[RocmRelease]:
        """Releases (newest first) that support ``gfx`` (supported or deprecated) on that OS/kernel."""
        out = []
        for rel in self._sorted_releases():
            if gfx and not self.support_status(gfx, rel.version).runs:
                continue
            if os_id and os_version:
                if not self.os_supported(rel.version, os_id, os_version):
                    continue
                if gfx and self.gfx_os_allowed(rel.version, gfx, os_id, os_version) is False:
                    continue
                if kernel and not self.kernel_validated(rel.version, os_id, os_version, kernel):
                    continue
            elif os_id and not any(o.os_id == os_id.lower() for o in rel.os):
                continue
            out.append(rel)
        return out

    def _os_entries(self, rocm: str, os_id: str, os_version: str) -> Optional[list[OsSupport]]:
        rel = self.release(rocm)
        if rel is None or not rel.os:
            return None
        same = [o for o in rel.os if o.os_id == os_id.strip().lower()]
        exact = [o for o in same if _os_version_matches(o.version, os_version)]
        if exact:
            return exact
        newest = max((o for o in same if _point_release_step(o.version, os_version) > 0),
                     key=lambda o: _vtuple(o.version), default=None)
        nearest = newest or min((o for o in same if _point_release_step(o.version, os_version) < 0),
                                key=lambda o: _vtuple(o.version), default=None)
        return [nearest] if nearest is not None else []

    def os_ever_listed(self, os_id: str, os_version: str = "") -> bool:
        """Whether any release lists this distribution (in this version, when one is given): AMD builds its
        packages for the listed ones only, whatever the release."""
        want = os_id.strip().lower()
        return any(o.os_id == want and (not os_version or _os_version_matches(o.version, os_version))
                   for rel in self.releases.values() for o in rel.os)

    def os_family_listed(self, rocm: str, os_id: str) -> bool:
        """Whether the release lists any version of this distribution (its OS list may omit a family entirely)."""
        rel = self.release(rocm)
        return rel is not None and any(o.os_id == os_id.strip().lower() for o in rel.os)

    def kernel_validated(self, rocm: str, os_id: str, os_version: str, kernel: str) -> Optional[bool]:
        """True/False, or None when the matrix has no data for that OS in that release. A distribution the
        release lists in no version at all had no kernel validated (Debian under ROCm 5.7: legacy-rocm-build#2451)."""
        entries = self._os_entries(rocm, os_id, os_version)
        if entries == [] and not self.os_family_listed(rocm, os_id):
            return False
        if not entries:
            return None
        kernels = [k for o in entries for k in o.kernels]
        if not kernels:
            return None
        return any(kernel_matches(k, kernel) for k in kernels)

    def validated_kernels(self, rocm: str, os_id: str, os_version: str) -> tuple[str, ...]:
        """The validated kernel series for that OS in that release (all matching point releases)."""
        entries = self._os_entries(rocm, os_id, os_version) or []
        seen: list[str] = []
        for o in entries:
            for k in o.kernels:
                if k not in seen:
                    seen.append(k)
        return tuple(seen)

    def os_supported(self, rocm: str, os_id: str, os_version: str) -> Optional[bool]:
        """True/False; None when the release is unknown or has no OS list."""
        entries = self._os_entries(rocm, os_id, os_version)
        if entries is None:
            return None
        return bool(entries)

    # ---- wheels ---------------------------------------------------------------------------
    def torch_variants(
        self, gfx: Optional[str] = None, python: Optional[str] = None, torch: Optional[str] = None,
        rocm: Optional[str] = None, channel: Optional[str] = None,
    ) -> list[TorchVariant]:
        """Newest first (torch version, then ROCm variant). ``torch``/``rocm`` match by dotted prefix."""
        out = []
        for v in self.torch:
            if gfx and gfx.lower() not in v.gfx:
                continue
            if python and python not in v.pythons:
                continue
            if torch and not (v.torch == torch or v.torch.startswith(torch + ".")):
                continue
            if rocm and not (v.rocm == rocm or v.rocm.startswith(rocm + ".")):
                continue
            if channel and v.channel != channel:
                continue
            out.append(v)
        out.sort(key=lambda v: (_vtuple(v.torch), _vtuple(v.rocm), v.channel == "pytorch"), reverse=True)
        return out

    def nightly_code(self, rocm: str, day: str) -> Optional[NightlyEpoch]:
        """The gfx list of the ``rocm`` nightly built on ``day`` (ISO date), or None when the data has no epoch
        for it (before the base, or an unknown ROCm variant).

        A nightly is built from main on its date, but a merge and the next nightly can be a day apart: a target
        that changes at an epoch boundary within a day of ``day`` is returned as uncertain, never as a fact."""
        rows = [e for e in self.nightly_epochs if e.rocm == rocm]
        hit = next((e for e in rows if e.since <= day and (not e.until or day < e.until)), None)
        if hit is None:
            return None
        near: set[str] = set()
        for other in rows:
            if other is hit:
                continue
            if other.until == hit.since and _days_between(hit.since, day) <= 1:
                near |= set(other.gfx) ^ set(hit.gfx)
            if hit.until and other.since == hit.until and _days_between(day, hit.until) <= 1:
                near |= set(other.gfx) ^ set(hit.gfx)
        if not near:
            return hit
        return NightlyEpoch(rocm=hit.rocm, since=hit.since, until=hit.until,
                            gfx=tuple(g for g in hit.gfx if g not in near),
                            uncertain=tuple(dict.fromkeys([*hit.uncertain, *sorted(near)])), source=hit.source)

    # ---- driver ---------------------------------------------------------------------------
    def rocm_releases_for_dkms(self, dkms_version: str) -> list[str]:
        """Exact ROCm point releases known to ship this amdgpu-dkms version (may be several)."""
        s = dkms_version.strip()
        if s.lower().startswith("amdgpu/"):
            s = s[7:]
        s = s.split(",")[0].strip()
        if ":" in s:  # package epoch "1:6.3.6.60000-1697589"
            s = s.split(":", 1)[1]
        m = re.match(r"(\d+\.\d+\.\d+)(?:\.(\d{5,}))?(?:-(\d+))?", s)
        if not m:
            return []
        base, code, build = m.group(1), m.group(2), m.group(3)
        hits = [b for b in self.dkms_builds if b.base == base]
        if build:
            exact = [b for b in hits if b.build == build]
            if exact:
                hits = exact
        if code and len(code) == 5:  # 60000 -> 6.0.0, 50700 -> 5.7.0
            decoded = f"{int(code[0])}.{int(code[1:3])}.{int(code[3:5])}"
            if decoded in self.releases or not hits:
                return [decoded]
        return sorted({b.rocm for b in hits}, key=_vtuple)

    def rocm_for_dkms(self, dkms_version: str) -> Optional[str]:
        """Which ROCm release shipped this amdgpu-dkms module version ("6.3.6-1697589.22.04" -> "6.0")."""
        rels = self.rocm_releases_for_dkms(dkms_version)
        if not rels:
            return None
        series = {".".join(r.split(".")[:2]) for r in rels}
        if len(series) == 1:
            return series.pop()
        return ".".join(rels[-1].split(".")[:2])  # newest series when a base spans two

    def _series_dates(self) -> dict[str, Optional[str]]:
        """"6.4" -> date of its first point release (None when unknown), for every series in the data."""
        out: dict[str, Optional[str]] = {}
        for rel in sorted(self.releases.values(), key=lambda r: _vtuple(r.version)):
            if rel.series not in out or (out[rel.series] is None and rel.date):
                out[rel.series] = rel.date
        return out

    def kmd_window(self, user: str, kmd: str) -> tuple[Optional[bool], str]:
        """May ROCm ``user`` user space run on the kernel driver of ROCm ``kmd`` (both "X.Y")? (verdict, rule).

        In order: the user-space release's compatibility-matrix column (accurate only as of its release day,
        so a missing entry refuses nothing by itself); the driver's own declaration (amdgpu docs); then AMD's
        stated rule: up to a year apart as of ROCm 6.4, +/- 2 releases before. None when nothing is known.
        """
        rel = self.release(user)
        us, ks = ".".join(user.split(".")[:2]), ".".join(kmd.split(".")[:2])
        if rel is not None:
            column = {".".join(c.split(".")[:2]) for c in rel.kmd_compatible}
            if ks in column:
                return True, (f"ROCm {rel.version}'s compatibility matrix lists the ROCm {ks} kernel driver "
                              f"[{self._kmd_source(rel)}]")
        for d in self.kmd_declarations:
            if d.rocm == ks and us in d.user_space:
                return True, (f"the ROCm {ks} kernel driver (amdgpu {d.driver}) declares ROCm "
                              f"{', '.join(d.user_space)} user space [{d.source}]")
        dates = self._series_dates()
        if us not in dates and rel is None:
            return None, f"ROCm {us} is not in the matrix"
        order = sorted(set(dates) | {us, ks}, key=_vtuple)
        apart = abs(order.index(us) - order.index(ks))
        rule = f"[{self.kmd_rule_source}]" if self.kmd_rule_source else ""
        newer = max(_vtuple(us)[:2], _vtuple(ks)[:2])
        if newer >= KMD_RULE_YEAR_FROM and dates.get(us) and dates.get(ks):
            days = abs((date.fromisoformat(str(dates[us])) - date.fromisoformat(str(dates[ks]))).days)
            if days <= 366 or apart <= 2:
                why = f"{days} days apart" if days <= 366 else f"{apart} releases apart"
                return True, f"AMD supports driver and user space up to a year apart from ROCm 6.4 ({why}) {rule}"
            return False, (f"ROCm {us} and {ks} are {days} days and {apart} releases apart: beyond AMD's stated window "
                           f"(a year from ROCm 6.4, +/- 2 releases before) {rule}")
        if apart <= 2:
            return True, f"AMD supports kernel driver and user space +/- 2 releases apart ({apart} here) {rule}"
        return False, f"ROCm {us} and {ks} are {apart} releases apart: beyond AMD's stated +/- 2 releases {rule}"

    @staticmethod
    def _kmd_source(rel: RocmRelease) -> str:
        return rel.kmd_source or rel.source

    def _exact_dkms_releases(self, dkms_version: str) -> set[str]:
        """ROCm releases this exact amdgpu-dkms build belongs to: by its build number, or by the release code
        of a package version ("1:6.12.12.60401-..."); empty when only the base version is known."""
        s = dkms_version.strip().split(",")[0].removeprefix("amdgpu/").split(":", 1)[-1]
        m = re.match(r"(\d+\.\d+\.\d+)(?:\.(\d{5}))?(?:-(\d+))?", s)
        if not m:
            return set()
        base, code, build = m.groups()
        if code:
            return {f"{int(code[0])}.{int(code[1:3])}.{int(code[3:5])}"}
        return {b.rocm for b in self.dkms_builds if b.base == base and build and b.build == build}

    def dkms_breakages(self, dkms_version: str, kernel: str, os_id: Optional[str] = None) -> list[Breakage]:
        """Known build failures of this amdgpu-dkms build on this kernel (and distribution).

        A row matches the dkms base version, then, when the build number maps to known ROCm releases, only if
        one of them is among the row's affected releases (a later, fixed build of the same base does not
        match); a distribution-specific row matches only a host known to run that distribution.
        """
        # amdgpu-dkms names its base X.Y.Z ("6.3.6-1718217.22.04"); rock-dkms, before ROCm 3.x, the ROCm release X.Y
        # ("1.9-211")
        m = re.search(r"(\d+\.\d+(?:\.\d+)?)", dkms_version.split(":", 1)[-1])
        have = _vtuple(kernel)
        if not m or not have:
            return []
        base = m.group(1)
        exact = self._exact_dkms_releases(dkms_version)
        out = []
        for b in self.breakages:
            if b.dkms_base != base:
                continue
            if exact and b.rocm and not exact & set(b.rocm):
                continue
            if b.distro and (not os_id or os_id.lower() not in b.distro):
                continue
            lo = _vtuple(b.kernel_min)
            if have[: len(lo)] < lo:
                continue
            if b.kernel_max is not None:
                hi = _vtuple(b.kernel_max)
                if have[: len(hi)] > hi:
                    continue
            out.append(b)
        return out
