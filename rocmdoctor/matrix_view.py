"""`rocmdoctor matrix show|explain`: slicing the matrix into tables, JSON and cited sentences.

Pure functions over a ``Matrix`` (no I/O except the rich console passed in), so the CLI stays thin
and the logic is testable without it.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any, Optional

from rocmdoctor.errors import BadInput
from rocmdoctor.matrix import GpuTarget, Matrix, RocmRelease, TorchVariant, _vtuple

JSON_SCHEMA = "rocmdoctor-matrix/1"
EXPLAIN_SCHEMA = "rocmdoctor-matrix-explain/1"


def resolve_gpu(m: Matrix, key: Optional[str]) -> Optional[GpuTarget]:
    """The target for a --gpu value; BadInput when given but unknown."""
    if key is None:
        return None
    gpu = m.gpu(key)
    if gpu is None:
        raise BadInput(f"unknown GPU {key!r}: give a gfx target (gfx1100), a PCI id (0x744c) or a product name")
    return gpu


def resolve_release(m: Matrix, key: Optional[str]) -> Optional[RocmRelease]:
    """The release for a --rocm value; BadInput when given but unknown."""
    if key is None:
        return None
    rel = m.release(key)
    if rel is None:
        known = ", ".join(sorted({r.series for r in m.releases.values()}, key=_vtuple))
        raise BadInput(f"unknown ROCm release {key!r} (known: {known})")
    return rel


def select(m: Matrix, rocm: Optional[str] = None, gpu: Optional[str] = None,
           torch: Optional[str] = None) -> dict[str, Any]:
    """The slice `matrix show` prints: releases, GPUs and wheels narrowed by the given filters."""
    rel = resolve_release(m, rocm)
    tgt = resolve_gpu(m, gpu)
    if rel is not None:
        releases = [rel]
    elif tgt is not None:
        releases = [r for r in m._sorted_releases() if m.support_status(tgt.gfx, r.version) != "never"
                    and r.gfx_known]
    else:
        releases = m._sorted_releases()
    if tgt is not None:
        gpus = [tgt]
    elif rel is not None:
        gpus = [m.gpus[g] for g in (*rel.gfx_supported, *rel.gfx_deprecated) if g in m.gpus]
    else:
        gpus = list(m.gpus.values())
    wheels = m.torch_variants(gfx=tgt.gfx if tgt else None, torch=torch,
                              rocm=rel.series if rel is not None else None)
    if torch and not wheels and not m.torch_variants(torch=torch):
        raise BadInput(f"no torch release {torch!r} in the matrix")
    return {"releases": releases, "gpus": gpus, "wheels": wheels}


def to_json(sl: dict[str, Any], m: Matrix) -> dict[str, Any]:
    """Stable, versioned JSON for --json."""
    def rel(r: RocmRelease) -> dict[str, Any]:
        d = asdict(r)
        d["gfx_os_only"] = {g: list(v) for g, v in r.gfx_os_only}
        return d

    return {
        "schema": JSON_SCHEMA,
        "releases": [rel(r) for r in sl["releases"]],
        "gpus": [asdict(g) for g in sl["gpus"]],
        "torch": [asdict(v) for v in sl["wheels"]],
    }


def _short(items: tuple[str, ...] | list[str], n: int = 6) -> str:
    items = list(items)
    return ", ".join(items[:n]) + (f" (+{len(items) - n})" if len(items) > n else "")


def render(console: Any, sl: dict[str, Any], m: Matrix) -> None:
    """The tables of `matrix show` (full width on a pipe, records in a narrow terminal)."""
    from rocmdoctor.tables import Column, print_table

    if sl["releases"]:
        rows = []
        for r in sl["releases"]:
            gfx = _short(r.gfx_supported, 9) if r.gfx_known else "(not in references)"
            if r.gfx_deprecated:
                gfx += f" / {', '.join(r.gfx_deprecated)}"
            oses = _short([f"{o.os_id} {o.version}" for o in r.os], 5)
            rows.append([r.version, r.date or "?", gfx, oses, r.dkms_base or "?", r.hip_prefix or "?",
                         ", ".join(r.uncertain)])
        cols = ("ROCm", "date", "GPU targets (supported / deprecated)", "OS", "amdgpu-dkms", "HIP", "uncertain")
        print_table(console, "ROCm releases", [Column(c) for c in cols], rows)
    if sl["gpus"]:
        rows = []
        for g in sl["gpus"]:
            prods = "; ".join(f"{p.name} ({', '.join(p.pci_ids) or '-'})" for p in g.products[:4])
            if len(g.products) > 4:
                prods += f"; +{len(g.products) - 4}"
            ov = g.override or "-"
            if g.override_note:
                ov += " " + g.override_note.split("]")[0] + "]" if g.override_note.startswith("[") else ""
            rows.append([g.gfx, g.family, g.segment, str(g.wavefront or "?"), str(g.lds_kib or "?"), prods, ov])
        cols = ("gfx", "family", "segment", "wave", "LDS KiB", "products (PCI ids)", "HSA override")
        print_table(console, "GPU targets", [Column(c) for c in cols], rows)
    if sl["wheels"]:
        rows = []
        for v in sl["wheels"]:
            triton = f"{v.triton_package}=={v.triton_version}" if v.triton_version else (v.triton_package or "?")
            rows.append([v.torch, v.channel, v.rocm, v.index_url, triton,
                         f"{v.torchvision or '?'}/{v.torchaudio or '?'}", _short(v.pythons, 7), _short(v.gfx, 4)])
        cols = ("torch", "channel", "ROCm", "index / find-links", "triton", "vision/audio", "Python", "gfx")
        print_table(console, "PyTorch ROCm wheels (newest first)", [Column(c) for c in cols], rows)
    if not any(sl.values()):
        console.print("Nothing in the matrix matches these filters.")


def explain(m: Matrix, gpu: str, rocm: str, os_id: Optional[str] = None, os_version: Optional[str] = None,
            kernel: Optional[str] = None) -> tuple[bool, list[str]]:
    """Whether ``gpu`` works with ``rocm`` (and OS/kernel when given), in cited sentences."""
    tgt = resolve_gpu(m, gpu)
    rel = resolve_release(m, rocm)
    assert tgt is not None and rel is not None
    lines: list[str] = []
    works = True
    names = ", ".join(p.name for p in tgt.products[:3]) or "no named products"
    article = "an" if tgt.family[:1] in "AEIOU" else "a"
    lines.append(f"{tgt.gfx} is {article} {tgt.family} {tgt.segment} target ({names}). [{tgt.source}]")
    status = m.support_status(tgt.gfx, rel.version)
    cite = f"[{rel.source}]"
    if status == "supported":
        lines.append(f"ROCm {rel.version} supports {tgt.gfx}. {cite}")
    elif status == "deprecated":
        lines.append(f"ROCm {rel.version} still runs {tgt.gfx} but marks it deprecated: support will be removed "
                     f"in a later release. {cite}")
    elif status == "removed":
        later = [r.version for r in m._sorted_releases() if tgt.gfx in (*r.gfx_supported, *r.gfx_deprecated)]
        last = later[0] if later else "an earlier release"
        lines.append(f"ROCm {rel.version} no longer supports {tgt.gfx}; the last release listing it is {last}. {cite}")
        works = False
    elif status == "unknown":
        lines.append(f"The references give no GPU list for ROCm {rel.version}; support of {tgt.gfx} is unknown. {cite}")
        works = False
    else:
        lines.append(f"{tgt.gfx} is not in the ROCm {rel.version} support matrix. {cite}")
        works = False
        first = [r.version for r in sorted(m.releases.values(), key=lambda r: _vtuple(r.version))
                 if tgt.gfx in r.gfx_supported]
        if first:
            lines.append(f"It is supported from ROCm {first[0]} on.")
    if not works:
        if tgt.override and not tgt.override_broken:
            lines.append(f"Unofficial workaround: HSA_OVERRIDE_GFX_VERSION={tgt.override} ({tgt.override_note}). "
                         f"[{tgt.override_source}]")
        elif tgt.override_note:
            lines.append(f"HSA_OVERRIDE_GFX_VERSION: {tgt.override_note} [{tgt.override_source}]")
    if "gfx_supported" in rel.uncertain or ("gfx_deprecated" in rel.uncertain and status == "deprecated"):
        lines.append("Note: this release's GPU status is marked uncertain in the matrix.")
    for n in rel.notes:
        if tgt.gfx in n or any(p.name.split()[-1] in n for p in tgt.products if p.name.startswith("MI")):
            lines.append(f"Note: {n}")
    if os_id and os_version:
        ok = m.os_supported(rel.version, os_id, os_version)
        if ok is None:
            lines.append(f"The matrix has no OS list for ROCm {rel.version}.")
        elif not ok:
            works = False
            lines.append(f"{os_id} {os_version} is not a supported OS for ROCm {rel.version}. {cite}")
        else:
            allowed = m.gfx_os_allowed(rel.version, tgt.gfx, os_id, os_version)
            if allowed is False:
                works = False
                lines.append(f"ROCm {rel.version} supports {os_id} {os_version} only for other GPUs "
                             "(footnote restriction).")
            else:
                lines.append(f"{os_id} {os_version} is supported by ROCm {rel.version}.")
            if kernel:
                kv = m.kernel_validated(rel.version, os_id, os_version, kernel)
                series = ", ".join(m.validated_kernels(rel.version, os_id, os_version)) or "none listed"
                if kv is None:
                    lines.append(f"No validated kernel list for {os_id} {os_version} in ROCm {rel.version}.")
                elif kv:
                    lines.append(f"Kernel {kernel} is in a validated series ({series}).")
                else:
                    lines.append(f"Kernel {kernel} is outside the validated series ({series}); amdgpu-dkms may "
                                 "fail to build - use a validated kernel or the in-kernel driver (--no-dkms).")
                if rel.dkms_base:
                    major, minor, patch = [*_vtuple(rel.version), 0, 0, 0][:3]
                    build = f"1:{rel.dkms_base}.{major}{minor:02d}{patch:02d}"  # this release's own dkms build
                    for b in m.dkms_breakages(build, kernel, os_id):
                        works = False
                        span = f"{b.kernel_min}-{b.kernel_max}" if b.kernel_max else f">= {b.kernel_min}"
                        fixed = f"; fixed in ROCm {b.fixed_in}" if b.fixed_in else ""
                        lines.append(f"Known breakage: ROCm {rel.version}'s amdgpu-dkms {b.dkms_base} fails to build "
                                     f"on kernel {span}{' on ' + ', '.join(b.distro) if b.distro else ''}{fixed}: "
                                     f"{b.issue}")
    wheels = m.torch_variants(gfx=tgt.gfx, rocm=rel.series, channel="pytorch")
    lacking = [v.torch for v in m.torch_variants(rocm=rel.series, channel="pytorch") if tgt.gfx not in v.gfx]
    if wheels and lacking:  # the gfx list is per torch release, not per index (matrices/torch_builds.toml)
        lines.append(f"On the rocm{rel.series} index only torch {', '.join(v.torch for v in wheels)} carry "
                     f"{tgt.gfx}; torch {', '.join(lacking)} do not.")
    if wheels:
        w = wheels[0]
        lines.append(f"Newest pytorch.org wheel for ROCm {w.rocm} with {tgt.gfx}: torch {w.torch} "
                     f"(--index-url {w.index_url}). [{w.source}]")
    else:
        any_w = m.torch_variants(gfx=tgt.gfx, channel="pytorch")
        if any_w:
            w = any_w[0]
            lines.append(f"No pytorch.org wheel for ROCm {rel.series} includes {tgt.gfx}; the newest that does is "
                         f"torch {w.torch} for ROCm {w.rocm} ({w.index_url}).")
        else:
            lines.append(f"No pytorch.org ROCm wheel in the matrix includes {tgt.gfx}.")
    lines.append("Verdict: works." if works else "Verdict: does not work as an AMD-supported combination.")
    return works, lines


def wheel_summary(v: TorchVariant) -> str:
    """One line for a wheel variant (used by explain and by other commands' messages)."""
    return f"torch {v.torch}{v.local_label} ({v.channel}, {v.index_url})"
