"""`rocmdoctor matrix show|explain`: slicing the matrix into tables, JSON and cited sentences.

Pure functions over a ``Matrix`` (no I/O except the rich console passed in to :func:`render`), so the CLI stays thin
and the logic is testable without it.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any, Optional, Union

from rocmdoctor.errors import BadInput
from rocmdoctor.matrix.query import Matrix, _vtuple
from rocmdoctor.matrix.types import GpuTarget, RocmRelease, SupportStatus, TorchVariant
from rocmdoctor.report.tables import Column, print_table

JSON_SCHEMA = "rocmdoctor-matrix/1"
EXPLAIN_SCHEMA = "rocmdoctor-matrix-explain/1"  # `matrix explain --json` (docs/schemas/matrix-explain.schema.json)


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
    """The slice `matrix show` prints: every filter narrows every table (releases, GPUs and wheels).

    ``--torch`` keeps its wheels, the ROCm releases they were built for and the GPU targets they carry;
    ``--gpu`` keeps the releases and wheels that have the target; ``--rocm`` keeps one release, its GPUs and
    its wheels. Filters combine by intersection. ``product`` names the product asked for (a --gpu given as
    a product name or PCI id), so the tables can say it.
    """
    rel = resolve_release(m, rocm)
    tgt = resolve_gpu(m, gpu)
    wheels = m.torch_variants(gfx=tgt.gfx if tgt else None, torch=torch,
                              rocm=rel.series if rel is not None else None)
    if torch and not wheels and not m.torch_variants(torch=torch):
        raise BadInput(f"no torch release {torch!r} in the matrix")
    releases = [rel] if rel is not None else m._sorted_releases()
    if tgt is not None:
        never = SupportStatus.NEVER
        releases = [r for r in releases if r.gfx_known and m.support_status(tgt.gfx, r.version) is not never]
    if torch:
        series = {".".join(v.rocm.split(".")[:2]) for v in wheels}
        releases = [r for r in releases if r.series in series]
    if tgt is not None:
        gpus = [tgt]
    else:
        keep: Optional[set[str]] = None
        if rel is not None:
            keep = set(rel.gfx_supported) | set(rel.gfx_deprecated)
        if torch:
            carried = {g for v in wheels for g in v.gfx}
            keep = carried if keep is None else keep & carried
        gpus = [g for g in m.gpus.values() if keep is None or g.gfx in keep]
    product = None
    if gpu is not None and tgt is not None and gpu.strip().lower() != tgt.gfx:
        prod = m.product(gpu)
        product = prod.name if prod is not None and tgt.gfx == m.gfx_for_pci(prod.pci_ids[0].split(":")[0]) \
            else (m.product_name_for_pci(gpu) if re.fullmatch(r"(0x)?[0-9a-fA-F]{4}", gpu.strip()) else gpu.strip())
    return {"releases": releases, "gpus": gpus, "wheels": wheels, "product": product}


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


# words for the data's field names, so the tables never print an internal name
FIELD_WORDS = {
    "date": "release date", "dkms_base": "amdgpu-dkms version", "driver": "driver versions",
    "hip_prefix": "HIP version", "kmd_compatible": "kernel-driver window", "os": "OS list",
    "gfx_supported": "GPU list", "gfx_deprecated": "deprecated GPUs", "gfx_removed": "removed GPUs",
    "kernels": "kernel list", "triton_version": "Triton version", "triton_package": "Triton package",
    "torchvision": "torchvision version", "torchaudio": "torchaudio version", "pythons": "Python list",
    "gfx": "GPU list", "local_label": "version label", "rocm": "ROCm version", "torch": "torch version",
}


def _words(fields: tuple[str, ...] | list[str]) -> str:
    return ", ".join(FIELD_WORDS.get(f, f.replace("_", " ")) for f in fields)


@dataclass(frozen=True)
class TableBlock:
    """One table of the `matrix show` content; drawn by :func:`rocmdoctor.report.tables.print_table`."""

    title: str
    columns: list[Column]
    rows: list[list[str]]


Block = Union[str, TableBlock]  # a text line (a -v detail, the product line) or a table


def _table(title: str, header: list[str], rows: list[list[str]]) -> list[Block]:
    return [TableBlock(title, [Column(h) for h in header], rows), ""] if rows else []


def _gfx_summary(r: RocmRelease) -> str:
    if not r.gfx_known:
        return "not in the references"
    text = f"{len(r.gfx_supported)}: {' '.join(r.gfx_supported)}"
    return text + (f"; deprecated {' '.join(r.gfx_deprecated)}" if r.gfx_deprecated else "")


def content(sl: dict[str, Any], m: Matrix, verbose: bool = False) -> list[Block]:
    """What `matrix show` says, independent of the output width: short tables (few columns, whole cells);
    ``verbose`` adds one detail block per row. :func:`render` decides how it fits the screen."""
    out: list[Block] = []
    product = sl.get("product")
    if product and sl["gpus"]:
        out += [f"{product} is {sl['gpus'][0].gfx}.", ""]
    rels: list[RocmRelease] = sl["releases"]
    out += _table("ROCm releases", ["ROCm", "released", "amdgpu-dkms", "GPU targets"],
                  [[r.version, r.date or "?", r.dkms_base or "?", _gfx_summary(r)] for r in rels])
    if verbose:
        for r in rels:
            out.append(f"ROCm {r.version}")
            out.append(f"  GPUs: {_gfx_summary(r)}")
            oses = ", ".join(o.os_id + " " + o.version for o in r.os) or "not listed"
            out.append(f"  OS: {oses}")
            out.append(f"  HIP {r.hip_prefix or '?'}; kernel drivers of ROCm {', '.join(r.kmd_compatible) or '?'}")
            if r.uncertain:
                out.append(f"  uncertain: {_words(r.uncertain)}")
            out.append(f"  source: {r.source}")
        out.append("")
    gpu_rows = []
    for g in sl["gpus"]:
        names = [p.name for p in g.products]
        if product and product in names:
            names.remove(product)
            names.insert(0, product)
        prods = ", ".join(names[:2]) + (f" (+{len(names) - 2})" if len(names) > 2 else "") if names else "-"
        gpu_rows.append([g.gfx, g.family, g.override or "-", prods])
    out += _table("GPU targets", ["gfx", "family", "override", "products"], gpu_rows)
    if verbose:
        for g in sl["gpus"]:
            prods = "; ".join(p.name + " (" + (", ".join(p.pci_ids) or "-") + ")" for p in g.products)
            out.append(f"{g.gfx}: {prods}")
            if g.override_note:
                out.append(f"  HSA_OVERRIDE_GFX_VERSION={g.override or '-'}: {g.override_note}")
        if sl["gpus"]:
            out.append("")
    wheel_rows = []
    for v in sl["wheels"]:
        pys = v.pythons[0] + "-" + v.pythons[-1] if len(v.pythons) > 1 else "".join(v.pythons)
        wheel_rows.append([v.torch, v.channel, v.rocm, pys, f"{len(v.gfx)}: {' '.join(v.gfx)}"])
    out += _table("PyTorch ROCm wheels (newest first)", ["torch", "channel", "ROCm", "Python", "GPU targets"],
                  wheel_rows)
    if verbose:
        for v in sl["wheels"]:
            out.append(f"torch {v.torch} ({v.channel}, ROCm {v.rocm})")
            out.append(f"  {'find-links' if v.find_links else 'index'}: {v.index_url}")
            triton = f"{v.triton_package} {v.triton_version}" if v.triton_version else (v.triton_package or "none")
            out.append(f"  Triton: {triton}; torchvision {v.torchvision or '?'}; torchaudio {v.torchaudio or '?'}")
            out.append(f"  Python: {', '.join(v.pythons)}; GPU targets: {', '.join(v.gfx)}")
            if v.device_extras:
                out.append("  GPU chosen by the extras torch[device-gfxNNNN] (device-all: every GPU)")
            if v.uncertain:
                out.append(f"  uncertain: {_words(v.uncertain)}")
            out.append(f"  source: {v.source}")
    elif sl["wheels"]:
        out.append("Indexes, Triton and companion versions, sources: add -v.")
    if not (sl["releases"] or sl["gpus"] or sl["wheels"]):
        out.append("Nothing in the matrix matches these filters.")
    while out and not out[-1]:
        out.pop()
    return out


def _wrap(line: str, width: int) -> list[str]:
    """Fold a text line wider than a terminal of ``width`` columns, continuation lines indented under it."""
    import textwrap

    if len(line) <= width:
        return [line]
    indent = " " * (len(line) - len(line.lstrip()) + 4)
    return textwrap.wrap(line, width=width, subsequent_indent=indent, break_on_hyphens=False,
                         break_long_words=True)


def render(console: Any, sl: dict[str, Any], m: Matrix, verbose: bool = False) -> None:
    """Print the `matrix show` content. Tables go through :func:`rocmdoctor.report.tables.print_table` (whole on a pipe,
    a table on a terminal wide enough, records on a narrow one); text lines are folded only on a terminal,
    never cut, and printed whole on a pipe or into a file."""
    width = console.width if console.is_terminal else None
    for block in content(sl, m, verbose=verbose):
        if isinstance(block, TableBlock):
            print_table(console, block.title, block.columns, block.rows)
            continue
        for line in _wrap(block, width) if width else [block]:
            console.print(line, markup=False, highlight=False, soft_wrap=True)


def explain(m: Matrix, gpu: str, rocm: str, os_id: Optional[str] = None, os_version: Optional[str] = None,
            kernel: Optional[str] = None) -> tuple[bool, list[str]]:
    """Whether ``gpu`` works with ``rocm`` (and OS/kernel when given), in cited sentences."""
    tgt = resolve_gpu(m, gpu)
    rel = resolve_release(m, rocm)
    assert tgt is not None and rel is not None
    names = ", ".join(p.name for p in tgt.products[:3]) or "no named products"
    article = "an" if tgt.family[:1] in "AEIOU" else "a"
    lines = [f"{tgt.gfx} is {article} {tgt.family} {tgt.segment} target ({names}). [{tgt.source}]"]
    works = _explain_status(m, tgt, rel, lines)
    if os_id and os_version:
        works = _explain_os(m, tgt, rel, (os_id, os_version, kernel), lines) and works
    lines.extend(_explain_wheels(m, tgt, rel))
    lines.append("Verdict: works." if works else "Verdict: does not work as an AMD-supported combination.")
    return works, lines


def _explain_status(m: Matrix, tgt: GpuTarget, rel: RocmRelease, lines: list[str]) -> bool:
    """The target's status in the release, the override when it does not run, and the release's notes."""
    status = m.support_status(tgt.gfx, rel.version)
    cite = f"[{rel.source}]"
    works = status.runs
    if status is SupportStatus.SUPPORTED:
        lines.append(f"ROCm {rel.version} supports {tgt.gfx}. {cite}")
    elif status is SupportStatus.DEPRECATED:
        lines.append(f"ROCm {rel.version} still runs {tgt.gfx} but marks it deprecated: support will be removed "
                     f"in a later release. {cite}")
    elif status is SupportStatus.REMOVED:
        later = [r.version for r in m._sorted_releases() if tgt.gfx in (*r.gfx_supported, *r.gfx_deprecated)]
        last = later[0] if later else "an earlier release"
        lines.append(f"ROCm {rel.version} no longer supports {tgt.gfx}; the last release listing it is {last}. {cite}")
    elif status is SupportStatus.UNKNOWN:
        lines.append(f"The references give no GPU list for ROCm {rel.version}; support of {tgt.gfx} is unknown. {cite}")
    else:
        lines.append(f"{tgt.gfx} is not in the ROCm {rel.version} support matrix. {cite}")
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
    if "gfx_supported" in rel.uncertain or ("gfx_deprecated" in rel.uncertain and status is SupportStatus.DEPRECATED):
        lines.append("Note: this release's GPU status is marked uncertain in the matrix.")
    for n in rel.notes:
        if tgt.gfx in n or any(p.name.split()[-1] in n for p in tgt.products if p.name.startswith("MI")):
            lines.append(f"Note: {n}")
    return works


def _explain_os(m: Matrix, tgt: GpuTarget, rel: RocmRelease, host: tuple[str, str, Optional[str]],
                lines: list[str]) -> bool:
    """The OS (and kernel) verdict; ``host`` is (os-release ID, VERSION_ID, kernel or None)."""
    os_id, os_version, kernel = host
    ok = m.os_supported(rel.version, os_id, os_version)
    if ok is None:
        lines.append(f"The matrix has no OS list for ROCm {rel.version}.")
        return True
    if not ok:
        lines.append(f"{os_id} {os_version} is not a supported OS for ROCm {rel.version}. [{rel.source}]")
        return False
    works = True
    if m.gfx_os_allowed(rel.version, tgt.gfx, os_id, os_version) is False:
        works = False
        lines.append(f"ROCm {rel.version} supports {os_id} {os_version} only for other GPUs "
                     "(footnote restriction).")
    else:
        lines.append(f"{os_id} {os_version} is supported by ROCm {rel.version}.")
    if kernel:
        works = _explain_kernel(m, rel, (os_id, os_version, kernel), lines) and works
    return works


def _explain_kernel(m: Matrix, rel: RocmRelease, host: tuple[str, str, str], lines: list[str]) -> bool:
    """Is the kernel validated, and does this release's own amdgpu-dkms build on it?"""
    os_id, os_version, kernel = host
    kv = m.kernel_validated(rel.version, os_id, os_version, kernel)
    series = ", ".join(m.validated_kernels(rel.version, os_id, os_version)) or "none listed"
    if kv is None:
        lines.append(f"No validated kernel list for {os_id} {os_version} in ROCm {rel.version}.")
    elif kv:
        lines.append(f"Kernel {kernel} is in a validated series ({series}).")
    else:
        lines.append(f"Kernel {kernel} is outside the validated series ({series}); amdgpu-dkms may "
                     "fail to build - use a validated kernel or the in-kernel driver (--no-dkms).")
    if not rel.dkms_base:
        return True
    major, minor, patch = [*_vtuple(rel.version), 0, 0, 0][:3]
    build = f"1:{rel.dkms_base}.{major}{minor:02d}{patch:02d}"  # this release's own dkms build
    works = True
    for b in m.dkms_breakages(build, kernel, os_id):
        works = False
        span = f"{b.kernel_min}-{b.kernel_max}" if b.kernel_max else f">= {b.kernel_min}"
        fixed = f"; fixed in ROCm {b.fixed_in}" if b.fixed_in else ""
        lines.append(f"Known breakage: ROCm {rel.version}'s amdgpu-dkms {b.dkms_base} fails to build "
                     f"on kernel {span}{' on ' + ', '.join(b.distro) if b.distro else ''}{fixed}: "
                     f"{b.issue}")
    return works


def _explain_wheels(m: Matrix, tgt: GpuTarget, rel: RocmRelease) -> list[str]:
    """Which pytorch.org (or, failing that, TheRock) wheels carry the target."""
    lines: list[str] = []
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
    rock = m.torch_variants(gfx=tgt.gfx, channel="therock")
    if rock and not m.torch_variants(gfx=tgt.gfx, channel="pytorch"):
        extra = dict(zip(rock[0].gfx, rock[0].device_extras)).get(tgt.gfx, "device-all")
        lines.append(f"AMD's TheRock multi-arch index is the only source of prebuilt PyTorch with {tgt.gfx} code: "
                     f"torch[{extra}] from {rock[0].index_url} (rocmdoctor install torch --channel therock). "
                     f"[{rock[0].source.split(' ; ')[0]}]")
    return lines


def wheel_summary(v: TorchVariant) -> str:
    """One line for a wheel variant (used by explain and by other commands' messages)."""
    return f"torch {v.torch}{v.local_label} ({v.channel}, {v.index_url})"
