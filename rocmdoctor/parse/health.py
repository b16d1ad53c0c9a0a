"""GPU health telemetry from a bundle: ``amd-smi metric --json`` (ECC totals, XGMI error status, throttle
status), amdgpu's RAS sysfs files (``ras/<block>_err_count``, ``ras/gpu_vram_bad_pages``, ``pp_dpm_pcie``) and,
where neither told, ``rocm-smi --showrasinfo all`` (ECC and XGMI_WAFL counts: :func:`parse_rocm_smi_ras`).

Formats, from the kernel (drivers/gpu/drm/amd/amdgpu/amdgpu_ras.c, amdgpu_pm.c):

- ``ras/umc_err_count`` (and gfx/sdma/mmhub/xgmi_wafl/...): lines ``ue: N`` and ``ce: N`` (and ``de: N``,
  deferred, where the kernel counts them).
- ``ras/gpu_vram_bad_pages``: one row per page, ``0x<pfn> : 0x<size> : <flag>`` with flag ``R`` reserved
  (retired), ``P`` pending to be reserved, ``F`` could not be reserved.
- ``pp_dpm_pcie``: one line per DPM level, ``1: 16.0GT/s, x16 619Mhz *`` (``*`` = current level).

Pure functions over ``(name, text)``; every value may be missing (``None``), nothing raises.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Optional

from rocmdoctor.limits import LIMITS
from rocmdoctor.model import Fact, GpuHealth
from rocmdoctor.parse.smi import _gpu_items, as_dict, load_json, na, parse_rocm_smi_ras
from rocmdoctor.parse.text import lines, src, to_int

MAX_GPUS = LIMITS["gpus"]
MAX_BAD_PAGE_ROWS = LIMITS["bad-page-rows"]  # capture caps the file at 2 MiB; rows beyond are not counted

_ERR_COUNT = re.compile(r"^\s*(ue|ce|de)\s*:\s*(\d{1,12})\s*$")
_BAD_PAGE = re.compile(r"^\s*0x[0-9a-fA-F]+\s*:\s*0x[0-9a-fA-F]+\s*:\s*([RPF])\s*$")
_DPM_PCIE = re.compile(r"^\s*\d+:\s*([\d.]+\s*GT/s)\s*,\s*x(\d+)")
_RAS_FILE = re.compile(r"^root/sys/class/drm/(card\d+)/device/ras/(\w+)_err_count$")
_BAD_PAGES_FILE = re.compile(r"^root/sys/class/drm/(card\d+)/device/ras/gpu_vram_bad_pages$")
_DPM_FILE = re.compile(r"^root/sys/class/drm/(card\d+)/device/pp_dpm_pcie$")
_HWMON_FILE = re.compile(r"^root/sys/class/drm/(card\d+)/device/hwmon/hwmon\d+/(temp\d+)_(input|crit|label)$")


def _count(value: Any) -> Optional[int]:
    v = to_int(na(value))
    return v if v is not None and 0 <= v < 1 << 63 else None


def parse_amd_smi_metric(text: str, file: str = "cmd/amd-smi-metric.json") -> list[GpuHealth]:
    """One :class:`GpuHealth` per ``gpu_data`` entry; totals fall back to the sum of ``ecc_blocks``."""
    out: list[GpuHealth] = []
    for i, item in enumerate(_gpu_items(load_json(text))[:MAX_GPUS]):
        idx = to_int(item.get("gpu"))
        label = f"gpu {idx if idx is not None else i}"
        h = GpuHealth(gpu=label)
        ecc = as_dict(item.get("ecc"))
        blocks = as_dict(item.get("ecc_blocks"))
        for attr, total_key, cache_key, block_key in (
            ("ecc_uncorrectable", "total_uncorrectable_count", "cache_uncorrectable_count", "uncorrectable_count"),
            ("ecc_correctable", "total_correctable_count", "cache_correctable_count", "correctable_count"),
            ("ecc_deferred", "total_deferred_count", None, "deferred_count"),
        ):
            total = _count(ecc.get(total_key))
            where = f"{label} ecc.{total_key}"
            if total is None:
                per_block = [_count(b.get(block_key)) for b in blocks.values() if isinstance(b, dict)]
                known = [v for v in per_block if v is not None]
                if known:
                    total, where = sum(known), f"{label} ecc_blocks.*.{block_key}"
            cache = _count(ecc.get(cache_key)) if cache_key else None
            if cache:  # cache errors are counted apart from the memory total
                total, where = (total or 0) + cache, f"{where} + {cache_key}"
            if total is not None:
                setattr(h, attr, Fact(total, src(file, None, f"{where}: {total}")))
        xgmi = xgmi_status(item.get("xgmi_err"))
        if xgmi is not None:
            raw = str(item.get("xgmi_err"))[:80]
            h.xgmi_errors = Fact(xgmi, src(file, None, f"{label} xgmi_err: {raw}"))
        power = as_dict(item.get("power"))
        throttle = na(power.get("throttle_status"))
        if isinstance(throttle, str):
            h.throttle = Fact(throttle.strip()[:40], src(file, None, f"{label} power.throttle_status: {throttle}"))
        out.append(h)
    return out


# amdsmi.h amdsmi_xgmi_status_t; the CLI prints the enum name (amdsmi_xgmi_status_t__enumvalues) in newer
# releases and the number in older ones
XGMI_STATUS = {0: "no errors", 1: "error", 2: "multiple errors"}


def xgmi_status(value: Any) -> Optional[str]:
    """``"no errors"`` / ``"error"`` / ``"multiple errors"``; None when absent or not understood."""
    value = na(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return XGMI_STATUS.get(value)
    if not isinstance(value, str):
        return None
    key = value.strip().upper().removeprefix("AMDSMI_XGMI_STATUS_").replace("_", " ").lower()
    if key.isdigit():
        return XGMI_STATUS.get(int(key))
    return key if key in XGMI_STATUS.values() else None


def parse_err_count(text: str) -> dict[str, int]:
    """``ue: 0`` / ``ce: 3`` lines -> ``{"ue": 0, "ce": 3}``."""
    out: dict[str, int] = {}
    for _n, line in lines(text):
        m = _ERR_COUNT.match(line)
        if m:
            out[m.group(1)] = int(m.group(2))
    return out


def parse_bad_pages(text: str) -> tuple[int, int]:
    """(retired, pending-or-failed) rows of ``gpu_vram_bad_pages``."""
    retired = pending = 0
    for n, line in lines(text):
        if n > MAX_BAD_PAGE_ROWS:
            break
        m = _BAD_PAGE.match(line)
        if m:
            if m.group(1) == "R":
                retired += 1
            else:
                pending += 1
    return retired, pending


def parse_dpm_pcie(text: str) -> Optional[str]:
    """The fastest level of ``pp_dpm_pcie`` as ``"16.0GT/s, x16"`` (what the link can be driven to)."""
    best: Optional[tuple[float, int, str]] = None
    for _n, line in lines(text):
        m = _DPM_PCIE.match(line)
        if not m:
            continue
        speed = m.group(1).replace(" ", "")
        try:
            key = (float(speed[:-4]), int(m.group(2)), f"{speed}, x{m.group(2)}")
        except ValueError:
            continue
        if best is None or key[:2] > best[:2]:
            best = key
    return best[2] if best else None


def from_bundle(names: list[str], read: Callable[[str], Optional[str]]) -> list[GpuHealth]:
    """Every health source in a bundle: amd-smi metric first, then the sysfs RAS files per card, then
    ``rocm-smi --showrasinfo`` for what neither of them reported (:func:`rocm_smi_fallback`)."""
    out: list[GpuHealth] = []
    for name in ("cmd/amd-smi-metric.json", "cmd/amd-smi-metric.txt"):
        if name in names:
            out.extend(parse_amd_smi_metric(read(name) or "", name))
            break
    cards: dict[str, GpuHealth] = {}
    for name in names:
        m = _RAS_FILE.match(name) or _BAD_PAGES_FILE.match(name) or _DPM_FILE.match(name)
        if m is None or (len(cards) >= MAX_GPUS and m.group(1) not in cards):
            continue
        text = read(name) or ""
        h = cards.setdefault(m.group(1), GpuHealth(gpu=m.group(1)))
        if name.endswith("_err_count"):
            block = m.group(2)
            counts = parse_err_count(text)
            if block.startswith("xgmi"):  # the links between GPUs, judged apart from memory ECC
                if "ue" in counts:
                    h.xgmi_errors = Fact("no errors" if counts["ue"] == 0 else "error",
                                         src(name, None, f"ue: {counts['ue']}"))
                continue
            # "de" (deferred) is printed by kernels whose RAS reports it (amdgpu_ras.c amdgpu_ras_aca_sysfs_read)
            for key, attr in (("ue", "ecc_uncorrectable"), ("ce", "ecc_correctable"), ("de", "ecc_deferred")):
                if key not in counts:
                    continue
                prev = getattr(h, attr)
                total = (prev.value if prev else 0) + counts[key]
                what = f"{block} {key}: {counts[key]}"
                if prev is not None:
                    what = f"{prev.source.text}; {what}"
                setattr(h, attr, Fact(total, src(name if prev is None else prev.source.file, None, what[:200])))
        elif name.endswith("gpu_vram_bad_pages"):
            retired, pending = parse_bad_pages(text)
            h.bad_pages_retired = Fact(retired, src(name, None, f"{retired} page(s) flagged R"))
            h.bad_pages_pending = Fact(pending, src(name, None, f"{pending} page(s) flagged P/F"))
        else:
            top = parse_dpm_pcie(text)
            if top:
                h.pcie_dpm_max_speed = Fact(top, src(name, None, f"fastest level {top}"))
    for card, fact in hot_sensors(names, read).items():
        if len(cards) < MAX_GPUS or card in cards:
            cards.setdefault(card, GpuHealth(gpu=card)).hot = fact
    out.extend(cards[c] for c in sorted(cards, key=lambda c: int(c[4:])))
    if RSMI_RAS in names:
        out.extend(rocm_smi_fallback(out, parse_rocm_smi_ras(read(RSMI_RAS) or "", RSMI_RAS)))
    return out


RSMI_RAS = "cmd/rocm-smi-rasinfo.txt"


def rocm_smi_fallback(seen: list[GpuHealth], rsmi: list[GpuHealth]) -> list[GpuHealth]:
    """rocm-smi's counts only where amd-smi and sysfs said nothing of that kind on this node: rocm_smi_lib
    reads the same ``ras/<block>_err_count`` files, so taking both would count every error twice."""
    has_ecc = any(h.ecc_uncorrectable is not None or h.ecc_correctable is not None for h in seen)
    has_xgmi = any(h.xgmi_errors is not None for h in seen)
    kept = []
    for h in rsmi:
        if has_ecc:
            h.ecc_uncorrectable = h.ecc_correctable = None
        if has_xgmi:
            h.xgmi_errors = None
        if h.ecc_uncorrectable is not None or h.ecc_correctable is not None or h.xgmi_errors is not None:
            kept.append(h)
    return kept


def hot_sensors(names: list[str], read: Callable[[str], Optional[str]]) -> dict[str, Fact[str]]:
    """Per card, the first hwmon temperature at or above its critical limit (millidegrees C in sysfs,
    Documentation/hwmon/sysfs-interface.rst; amdgpu labels them edge / junction / mem)."""
    sensors: dict[tuple[str, str], dict[str, str]] = {}
    where: dict[tuple[str, str], str] = {}
    for name in names:
        m = _HWMON_FILE.match(name)
        if m:
            key = (m.group(1), name.rsplit("/", 1)[0] + "/" + m.group(2))
            sensors.setdefault(key, {})[m.group(3)] = (read(name) or "").strip()[:32]
            if m.group(3) == "input":
                where[key] = name
    out: dict[str, Fact[str]] = {}
    for (card, _sensor), vals in sorted(sensors.items()):
        now, crit = to_int(vals.get("input")), to_int(vals.get("crit"))
        if card in out or now is None or not crit or crit <= 0 or now < crit:
            continue
        label = re.sub(r"[^\w -]", "", vals.get("label") or _sensor.rsplit("/", 1)[-1])[:20]
        text = f"{label} {now // 1000} C (critical {crit // 1000} C)"
        out[card] = Fact(text, src(where[(card, _sensor)], None, text))
    return out
