"""Torch's view of the GPUs against the driver's: a GPU torch does not see is a GPU nothing tests.

Compares the first program's enumeration record with the host model (captured live while the programs run).
"""

from __future__ import annotations

from typing import Any, Optional

from rocmdoctor.model import Finding, Host, Severity
from rocmdoctor.smoke.catalog import DEFAULT_THRESHOLDS, fix_for
from rocmdoctor.smoke.model import where
from rocmdoctor.smoke.report import SmokeReport
from rocmdoctor.words import plural


def enumeration_findings(report: SmokeReport, host: Optional[Host],
                          thresholds: Optional[dict[str, float]] = None) -> list[Finding]:
    """Does torch see the GPUs the driver sees (count, architectures, memory)? Only compared when the host
    model is there and torch is a ROCm build; a mismatch the *_VISIBLE_DEVICES variables explain is no gap."""
    enum = report.enumeration
    fid = "smoke.enumeration-mismatch"
    if report.options.cpu:
        return [Finding(fid, Severity.SKIP, "GPU enumeration not checked (--device cpu)")]
    if not enum or not enum.get("available"):
        return []
    devs = [d for d in enum.get("devices") or [] if isinstance(d, dict)]
    ev = [f"torch GPU {d.get('index')}: {d.get('name')} ({d.get('gcn_arch_name') or d.get('arch')}, "
          f"{(d.get('total_memory') or 0) / 2**30:.0f} GiB)" for d in devs]
    ev += [f"{k}={v}" for k, v in (enum.get("env") or {}).items()]
    missing = [r for r in report.devices if r.fatal and r.fatal.get("reason") == "no-such-device"]
    if missing:
        return [Finding(fid, Severity.FAIL, f"Requested GPU(s) not visible to torch: {where(missing)}",
                        detail=str(missing[0].fatal.get("detail", "")) if missing[0].fatal else "",
                        evidence=ev, fix=fix_for(fid))]
    title_ok = f"torch sees {plural(len(devs), 'GPU')}: " + ", ".join(sorted({str(d.get('name')) for d in devs}))
    if host is None or not host.gpus or not enum.get("hip"):
        why = ("host model not available" if host is None or not host.gpus
               else "not a ROCm torch: the host model lists AMD GPUs only")
        return [Finding(fid, Severity.OK, title_ok, detail=f"Not compared with the driver's view ({why}).",
                        evidence=ev)]
    host_gfx = sorted(g.gfx or "?" for g in host.gpus)
    torch_gfx = sorted(str(d.get("arch")) for d in devs)
    ev += [f"host GPU {g.index}: {g.name or '?'} ({g.gfx or '?'})" for g in host.gpus]
    visible = {k: v for k, v in (enum.get("env") or {}).items() if k.endswith("VISIBLE_DEVICES")}
    override = (enum.get("env") or {}).get("HSA_OVERRIDE_GFX_VERSION")
    if len(devs) != len(host.gpus):
        why = (f"{', '.join(f'{k}={v}' for k, v in visible.items())} limits what torch sees" if visible
               else "no *_VISIBLE_DEVICES variable explains it")
        return [Finding(fid, Severity.WARN, f"torch sees {plural(len(devs), 'GPU')}, the driver {len(host.gpus)}",
                        detail=why + ".", evidence=ev, fix=fix_for(fid))]
    if host_gfx != torch_gfx and not override and not visible:
        return [Finding(fid, Severity.WARN, "torch reports other GPU architectures than the driver",
                        detail=f"driver: {', '.join(host_gfx)}; torch: {', '.join(torch_gfx)}.", evidence=ev,
                        fix=fix_for(fid))]
    gaps = _memory_gaps(devs, host, (thresholds or DEFAULT_THRESHOLDS)["memory_match_tolerance"])
    if gaps and not visible:
        return [Finding(fid, Severity.WARN, "torch reports other GPU memory sizes than the driver",
                        detail="A memory partition mode (NPS), a carve-out setting or a driver problem leaves torch "
                               "with a different amount of memory than the driver reports for the GPU.",
                        evidence=gaps + ev, fix=fix_for(fid))]
    return [Finding(fid, Severity.OK, title_ok + " — as the driver does", evidence=ev)]


def _memory_gaps(devs: list[dict[str, Any]], host: Host, tolerance: float) -> list[str]:
    """Pairs (torch GPU i, host GPU i) whose memory differs by more than ``tolerance``; APUs and GPUs whose
    VRAM the capture did not record are not compared (an APU's torch memory is its shared pool)."""
    out = []
    for d, g in zip(sorted(devs, key=lambda d: d.get("index") or 0), sorted(host.gpus, key=lambda g: g.index)):
        mem = d.get("total_memory")
        if g.is_apu or not g.vram_bytes or not isinstance(mem, (int, float)) or mem <= 0:
            continue
        if abs(mem - g.vram_bytes) > tolerance * g.vram_bytes:
            out.append(f"GPU {d.get('index')}: torch {mem / 2**30:.1f} GiB, driver {g.vram_bytes / 2**30:.1f} GiB "
                       f"(more than {tolerance:.0%} apart)")
    return out
