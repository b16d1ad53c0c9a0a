"""The step that turns the parsed, validated ``matrices/*.toml`` (``matrix.schema``) into a ``Matrix``.

Pure (no file access except libdrm's ``amdgpu.ids``): ``load`` parses the files and hands them here.
"""

from __future__ import annotations

from typing import Any, Optional

from rocmdoctor.matrix.query import Matrix, _norm_pci, _norm_rev, _vtuple
from rocmdoctor.matrix.types import (
    AppSupport,
    Breakage,
    Channel,
    DkmsBuild,
    GpuProduct,
    GpuTarget,
    KmdDeclaration,
    NightlyEpoch,
    OsSupport,
    RocmRelease,
    TorchVariant,
)

# ---- build --------------------------------------------------------------------------------

def _t(xs: Any) -> tuple[str, ...]:
    return tuple(xs or ())


def _build_releases(raw: dict[str, Any]) -> dict[str, RocmRelease]:
    entries = sorted(raw.get("release", []), key=lambda r: _vtuple(r["version"]))
    ever: list[str] = []  # targets supported or deprecated in some earlier release
    out: dict[str, RocmRelease] = {}
    for r in entries:
        restrict = r.get("os_gfx_only", {})
        oses = []
        for name in r["os"]:
            os_id, _, ver = name.partition(" ")
            rs = restrict.get(name, {})
            oses.append(OsSupport(
                os_id=os_id, version=ver, kernels=_t(r["kernels"].get(name)), gfx_only=_t(rs.get("gfx")),
                source=r.get("os_source", r["source"]) + " ; kernels: " + r["kernels_source"],
                note=rs.get("source", ""),
            ))
        current = set(r["gfx_supported"]) | set(r["gfx_deprecated"])
        removed = list(r["gfx_removed"])
        if r["gfx_known"]:
            removed += [g for g in ever if g not in current and g not in removed]  # derived: dropped since
        out[r["version"]] = RocmRelease(
            version=r["version"], date=r.get("date"), os=tuple(oses),
            gfx_supported=_t(r["gfx_supported"]), gfx_deprecated=_t(r["gfx_deprecated"]),
            gfx_removed=tuple(removed), dkms_base=r.get("dkms_base"), dkms_pattern=r.get("dkms_pattern"),
            driver_window=r.get("driver_window"), kmd_compatible=_t(r["kmd_compatible"]),
            hip_prefix=r.get("hip_prefix"), source=r["source"], uncertain=_t(r["uncertain"]),
            gfx_known=r["gfx_known"],
            gfx_os_only=tuple((g, _t(v["os"])) for g, v in r.get("gfx_os_only", {}).items()),
            driver=_t(r.get("driver")), notes=_t(r.get("notes")), kmd_source=r["kmd_source"],
            wsl=r.get("wsl"), wsl_source=r.get("wsl_source", ""),
        )
        for g in list(r["gfx_supported"]) + list(r["gfx_deprecated"]):
            if g not in ever:
                ever.append(g)
    return out


def _pci_key(pid: str) -> str:
    dev, _, rev = pid.partition(":")
    nd = _norm_pci(dev) or dev
    nr = _norm_rev(rev) if rev else None
    return f"{nd}:{nr}" if nr else nd


def _build_gpus(raw: dict[str, Any], overrides: dict[str, Any]) -> tuple[dict[str, GpuTarget], dict[str, str]]:
    ov = {o["gfx"]: o for o in overrides.get("override", [])}
    gpus: dict[str, GpuTarget] = {}
    pci_gfx: dict[str, str] = {}
    for g in raw.get("gpu", []):
        prods = []
        for p in g.get("product", []):
            ids = tuple(_pci_key(x) for x in p["pci_ids"])
            prods.append(GpuProduct(
                name=p["name"], pci_ids=ids, peak_hbm_bw_gbs=p.get("peak_hbm_bw_gbs"),
                peak_fp16_tflops=p.get("peak_fp16_tflops"), peak_bf16_tflops=p.get("peak_bf16_tflops"),
                source=p["source"] + (f" ; peaks: {p['peak_source']}" if p.get("peak_source") else ""),
                vram_gib=p.get("vram_gib"), compute_units=p.get("compute_units"), uncertain=_t(p.get("uncertain")),
                derivation=p["derivation"],
            ))
            for pid in ids:
                pci_gfx.setdefault(pid, g["gfx"])
                pci_gfx.setdefault(pid.split(":")[0], g["gfx"])
        extra = tuple(_pci_key(x) for x in g.get("pci_ids", []))
        for pid in extra:
            pci_gfx.setdefault(pid, g["gfx"])
            pci_gfx.setdefault(pid.split(":")[0], g["gfx"])
        o = ov.get(g["gfx"], {})
        status = o.get("status", "")
        gpus[g["gfx"]] = GpuTarget(
            gfx=g["gfx"], family=g["family"], segment=g["segment"], wavefront=g.get("wavefront"),
            # an override known not to work ("broken": 11.0.0 on gfx1150 gives INVALID_ISA) is never suggested
            lds_kib=g.get("lds_kib"), products=tuple(prods),
            override=o.get("value") if status not in ("broken", "none", "harmful") else None,
            override_broken=status in ("broken", "flaky", "harmful", "none"),
            override_note=(f"[{status}] " if status else "") + o.get("note", ""),
            is_apu=g["is_apu"], source=g["source"], override_source=o.get("source", ""), pci_ids=extra,
            wsl=g.get("wsl"), wsl_source=g.get("wsl_source", ""),
            wsl_driver_through=g.get("wsl_driver_through", ""), wsl_driver_source=g.get("wsl_driver_source", ""),
        )
    return gpus, pci_gfx


def _derived_key(channel: str, torch: str, rocm: str) -> tuple[str, str, str]:
    """Key of a derived build: ("pytorch", "2.6", "6.1") for 2.6.0+rocm6.1, ("nightly", "nightly", "7.2") for
    the nightly channel, ("therock", "2.14", "multi-arch") for TheRock's one index."""
    if channel == "nightly":
        return ("nightly", "nightly", rocm)
    if channel == "therock":
        return ("therock", ".".join(torch.split(".")[:2]), "multi-arch")
    return (channel, ".".join(torch.split(".")[:2]), rocm)


def _build_torch(raw: dict[str, Any], channels: dict[str, Channel],
                 derived: Optional[dict[str, Any]] = None) -> tuple[TorchVariant, ...]:
    """Wheel rows x ROCm variants. The gfx list of a pytorch.org build comes from the derived per-release
    table (torch_builds.toml) when it has the pair; a row it lacks (a release `matrix update` just found) gets
    no gfx list and is marked uncertain, so the resolver refuses it rather than guess."""
    idx = {i["rocm"]: i for i in raw.get("index", [])}
    builds = {(b["channel"], b["torch"], b["rocm"]): b for b in (derived or {}).get("build", [])}
    out = []
    for w in raw.get("wheel", []):
        for rocm in w["rocm"]:
            ch = w["channel"]
            base = w.get("index_base") or channels[ch].index
            gfx = w.get("gfx")
            unc = list(w["uncertain"])
            src = w["source"]
            der = builds.get(_derived_key(ch, w["torch"], rocm))
            extras: tuple[str, ...] = ()
            if der is not None:
                gfx = der["gfx"]
                extras = _t(der.get("extras"))
                unc = [u for u in unc if u != "gfx"]
                src = f"{src} ; gfx: {der['gfx_source']}"
            elif gfx is None:
                ientry = idx.get(rocm)
                gfx = ientry["gfx"] if ientry else []
                unc.append("gfx")
            label = w.get("local_label", "+rocm{rocm}")
            out.append(TorchVariant(
                torch=w["torch"], rocm=rocm, index_url=base.format(rocm=rocm), channel=ch,
                triton_package=w.get("triton_package"), triton_version=w.get("triton_version"),
                torchvision=w.get("torchvision"), torchaudio=w.get("torchaudio"), pythons=_t(w["pythons"]),
                gfx=_t(gfx), local_label=label.format(rocm=rocm), source=src, uncertain=tuple(unc),
                find_links=bool(w.get("find_links", False)), device_extras=extras, note=w.get("note", ""),
            ))
    return tuple(out)


def _parse_amdgpu_ids() -> dict[str, str]:
    """libdrm's ``device_id, revision, name`` table -> {"0x744c:0xc8": name, "0x744c": first name}."""
    from rocmdoctor.paths import AMDGPU_IDS

    names: dict[str, str] = {}
    try:
        with open(AMDGPU_IDS, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
    except OSError:
        return names
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.split(",", 2)]
        if len(parts) != 3:
            continue
        dev, rev, name = _norm_pci(parts[0]), _norm_rev(parts[1]), parts[2]
        if not dev or not rev:
            continue
        names[f"{dev}:{rev}"] = name
        names.setdefault(dev, name)
    return names


def _pci_by_name(rows: list[dict]) -> dict[str, tuple[str, ...]]:
    """'radeon hd 8750m' / 'navi 22' -> the PCI ids whose PCI ID Repository entry names it."""
    out: dict[str, list[str]] = {}
    for r in rows:
        for name in [r["codename"], *r["products"]]:
            key = " ".join(name.lower().split())
            if key and r["pci"] not in out.setdefault(key, []):
                out[key].append(r["pci"])
    return {k: tuple(v) for k, v in out.items()}


def build(raw: dict[str, dict[str, Any]]) -> Matrix:
    """Parsed files -> Matrix. Tolerates missing files (partial data) so consumers keep working."""
    releases = _build_releases(raw.get("releases", {}))
    gpus, pci_gfx = _build_gpus(raw.get("gpus", {}), raw.get("overrides", {}))
    driver = raw.get("driver", {})
    breakages = tuple(
        Breakage(what=b["what"], dkms_base=b["dkms_base"], kernel_min=b["kernel_min"],
                 kernel_max=b.get("kernel_max"), issue=b["issue"], source=b["source"], rocm=_t(b["rocm"]),
                 note=b.get("note", ""), fixed_in=b.get("fixed_in"), distro=_t(b.get("distro")))
        for b in driver.get("breakage", [])
    )
    dkms = tuple(
        DkmsBuild(rocm=d["rocm"], base=d["base"], build=d.get("build"), package=d.get("package", ""),
                  source=d["source"])
        for d in driver.get("dkms", [])
    )
    smoke = raw.get("smoke", {}).get("smoke_thresholds", {})
    declared = tuple(KmdDeclaration(driver=d["driver"], rocm=d["rocm"], user_space=_t(d["user_space"]),
                                    source=d["source"]) for d in driver.get("kmd_declared", []))
    channels = {name: Channel(name=name, index=c["index"], root=c.get("root", ""), source=c["source"],
                              note=c.get("note", ""))
                for name, c in raw.get("channels", {}).get("channel", {}).items()}
    return Matrix(
        releases=releases, gpus=gpus, torch=_build_torch(raw.get("torch", {}), channels, raw.get("torch_builds")),
        breakages=breakages,
        smoke_thresholds={k: float(v) for k, v in smoke.get("thresholds", {}).items()},
        pci_names=_parse_amdgpu_ids(), pci_gfx=pci_gfx, dkms_builds=dkms,
        smoke_sources={"source": smoke.get("source", ""), "rationale": smoke.get("rationale", "")},
        upstream_kfd={u["gfx"]: (u["kernel_min"], u["source"]) for u in driver.get("upstream_kfd", [])},
        kmd_declarations=declared, kmd_rule_source=driver.get("kmd_rule", {}).get("source", ""),
        health_thresholds={t["name"]: float(t["value"]) for t in raw.get("health", {}).get("threshold", [])},
        app_gfx={a["name"]: AppSupport(a["label"], _t(a["gfx"]), a["source"], a.get("instead", ""),
                                       _t(a.get("instead_commands", [])), a.get("instead_source", ""),
                                       int(a.get("through_build", 0)), a.get("through_source", ""),
                                       int(a.get("earlier_through_build", 0)), _t(a.get("earlier_lacks", [])),
                                       a.get("earlier_source", ""))
                 for a in raw.get("apps", {}).get("app", [])},
        app_not_on_wsl={a["name"]: (a["not_on_wsl_through"], a.get("not_on_wsl_source", ""))
                        for a in raw.get("apps", {}).get("app", []) if a.get("not_on_wsl_through")},
        windows_sdk={w["version"]: (_t(w["runtime"]), _t(w["hip_sdk"]), _t(w["listed"]), w["source"])
                     for w in raw.get("windows", {}).get("hip_sdk", [])},
        channels=channels,
        nightly_epochs=tuple(
            NightlyEpoch(rocm=e["rocm"], since=e["since"], until=e["until"], gfx=_t(e["gfx"]),
                         uncertain=_t(e["uncertain"]), source=e["gfx_source"])
            for e in raw.get("torch_builds", {}).get("nightly_epoch", [])),
        pci_chips={c["pci"]: (c["chip"], c["family"], c["gfx"]) for c in raw.get("pci_chips", {}).get("chip", [])},
        pci_chips_source=raw.get("pci_chips", {}).get("chips_source", ""),
        pci_by_name=_pci_by_name(raw.get("pci_chips", {}).get("name", [])),
        therock_families={f["name"].lower(): (_t(f["gfx"]), f["source"])
                          for f in raw.get("torch_builds", {}).get("therock_family", [])},
    )
