"""Schema of ``matrices/*.toml`` and the step that turns the parsed files into a ``Matrix``.

Pure (no file access except libdrm's ``amdgpu.ids``): ``load`` parses the files and hands them here.
The schema is deliberately small and our own (no jsonschema dependency): every table
entry names its fields, their types, and whether they are required; unknown fields are errors so a
typo in a reviewed data file cannot silently drop data.
"""

from __future__ import annotations

import re
from typing import Any, Optional, Union

from rocmdoctor.matrix.query import Matrix, _norm_pci, _norm_rev, _vtuple
from rocmdoctor.matrix.types import (
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

# ---- schema -------------------------------------------------------------------------------
# A field spec: "str" | "int" | "float" | "bool" | "num" | ("list", spec) | ("map", spec)
# | {"field": (spec, required)}
Spec = Union[str, tuple, dict]

STR_LIST = ("list", "str")
OS_GFX_ONLY = {"gfx": (STR_LIST, True), "source": ("str", True)}
GFX_OS_ONLY = {"os": (STR_LIST, True), "source": ("str", True)}

RELEASE: dict[str, tuple[Spec, bool]] = {
    "version": ("str", True),
    "date": ("str", False),
    "date_source": ("str", True),
    "source": ("str", True),
    "os": (STR_LIST, True),
    "os_source": ("str", False),
    "kernels": (("map", STR_LIST), True),
    "kernels_source": ("str", True),
    "gfx_known": ("bool", True),
    "gfx_supported": (STR_LIST, True),
    "gfx_deprecated": (STR_LIST, True),
    "gfx_removed": (STR_LIST, True),
    "dkms_base": ("str", False),
    "dkms_pattern": ("str", False),
    "dkms_source": ("str", False),
    "driver_window": ("str", True),
    "kmd_compatible": (STR_LIST, True),
    "kmd_source": ("str", True),
    "driver": (STR_LIST, False),
    "hip_prefix": ("str", False),
    "uncertain": (STR_LIST, True),
    "notes": (STR_LIST, False),
    "os_gfx_only": (("map", OS_GFX_ONLY), False),
    "gfx_os_only": (("map", GFX_OS_ONLY), False),
    "wsl": ("bool", False),  # false: AMD said this release has no WSL build
    "wsl_source": ("str", False),
}

PRODUCT: dict[str, tuple[Spec, bool]] = {
    "name": ("str", True),
    "pci_ids": (STR_LIST, True),
    "vram_gib": ("num", False),
    "compute_units": ("int", False),
    "peak_hbm_bw_gbs": ("num", False),
    "peak_fp16_tflops": ("num", False),
    "peak_bf16_tflops": ("num", False),
    "peak_source": ("str", False),
    "derivation": ("str", True),
    "uncertain": (STR_LIST, False),
    "source": ("str", True),
}

GPU: dict[str, tuple[Spec, bool]] = {
    "gfx": ("str", True),
    "family": ("str", True),
    "segment": ("str", True),
    "wavefront": ("int", False),
    "lds_kib": ("int", False),
    "is_apu": ("bool", True),
    "pci_ids": (STR_LIST, False),
    "source": ("str", True),
    "note": ("str", False),
    "product": (("list", PRODUCT), False),
}

OVERRIDE: dict[str, tuple[Spec, bool]] = {
    "gfx": ("str", True),
    "value": ("str", False),
    "status": ("str", True),  # works | unofficial | flaky | broken | none | harmful
    "note": ("str", True),
    "source": ("str", True),
}

TORCH_INDEX: dict[str, tuple[Spec, bool]] = {
    "rocm": ("str", True),
    "gfx": (STR_LIST, True),
    "source": ("str", True),
    "uncertain": (STR_LIST, False),
}

TORCH_RELEASE: dict[str, tuple[Spec, bool]] = {
    "torch": ("str", True),
    "rocm": (STR_LIST, True),
    "channel": ("str", True),
    "triton_package": ("str", False),
    "triton_version": ("str", False),
    "torchvision": ("str", False),
    "torchaudio": ("str", False),
    "pythons": (STR_LIST, True),
    "index_base": ("str", False),
    "local_label": ("str", False),
    "find_links": ("bool", False),
    "gfx": (STR_LIST, False),
    "source": ("str", True),
    "uncertain": (STR_LIST, True),
    "note": ("str", False),
}

TORCH_BUILD: dict[str, tuple[Spec, bool]] = {  # generated: rocmdoctor/matrix/derive.py
    "channel": ("str", True),
    "torch": ("str", True),
    "rocm": ("str", True),
    "gfx": (STR_LIST, True),
    "pythons": (STR_LIST, True),
    "source": ("str", True),
    "gfx_source": ("str", True),
    "not_credited": (STR_LIST, False),
    "extras": (STR_LIST, False),
    "torchvision": ("str", False),
    "torchaudio": ("str", False),
}

NIGHTLY_EPOCH: dict[str, tuple[Spec, bool]] = {  # generated: rocmdoctor/matrix/derive.py
    "rocm": ("str", True),
    "since": ("str", True),
    "until": ("str", True),
    "gfx": (STR_LIST, True),
    "uncertain": (STR_LIST, True),
    "gfx_source": ("str", True),
}

DKMS: dict[str, tuple[Spec, bool]] = {
    "rocm": ("str", True),
    "base": ("str", True),
    "build": ("str", False),
    "package": ("str", False),
    "source": ("str", True),
}

BREAKAGE: dict[str, tuple[Spec, bool]] = {
    "what": ("str", True),
    "dkms_base": ("str", True),
    "rocm": (STR_LIST, True),
    "kernel_min": ("str", True),
    "kernel_max": ("str", False),
    "issue": ("str", True),
    "source": ("str", True),
    "note": ("str", False),
    "uncertain": (STR_LIST, False),
    "fixed_in": ("str", False),
    "distro": (STR_LIST, False),
}

KMD_DECLARED: dict[str, tuple[Spec, bool]] = {
    "driver": ("str", True),
    "rocm": ("str", True),
    "user_space": (STR_LIST, True),
    "quote": ("str", True),
    "source": ("str", True),
}

KMD_RULE: dict[str, tuple[Spec, bool]] = {
    "quote": ("str", True),
    "source": ("str", True),
}

SMOKE: dict[str, tuple[Spec, bool]] = {
    "thresholds": (("map", "num"), True),
    "source": ("str", True),
    "rationale": ("str", True),
}

HEALTH_THRESHOLD: dict[str, tuple[Spec, bool]] = {
    "name": ("str", True),
    "value": ("num", True),
    "source": ("str", True),
    "note": ("str", False),
}

CHANNEL: dict[str, tuple[Spec, bool]] = {
    "index": ("str", True),
    "root": ("str", False),
    "note": ("str", False),
    "source": ("str", True),
}

# file stem -> {top-level key: (spec, required)}
FILES: dict[str, dict[str, tuple[Spec, bool]]] = {
    "releases": {"schema": ("int", True), "release": (("list", RELEASE), True)},
    "gpus": {"schema": ("int", True), "gpu": (("list", GPU), True)},
    "overrides": {"schema": ("int", True), "override": (("list", OVERRIDE), True)},
    "torch": {"schema": ("int", True), "index": (("list", TORCH_INDEX), False),
              "wheel": (("list", TORCH_RELEASE), True)},
    "torch_builds": {"schema": ("int", True), "build": (("list", TORCH_BUILD), True),
                     "nightly_epoch": (("list", NIGHTLY_EPOCH), False)},
    "driver": {"schema": ("int", True), "dkms": (("list", DKMS), True), "breakage": (("list", BREAKAGE), True),
               "kmd_rule": (KMD_RULE, False), "kmd_declared": (("list", KMD_DECLARED), False)},
    "smoke": {"schema": ("int", True), "smoke_thresholds": (SMOKE, True)},
    "health": {"schema": ("int", True), "threshold": (("list", HEALTH_THRESHOLD), True)},
    "channels": {"schema": ("int", True), "channel": (("map", CHANNEL), True)},
}


def _check(value: Any, spec: Spec, where: str, errors: list[str]) -> None:
    if isinstance(spec, dict):
        if not isinstance(value, dict):
            errors.append(f"{where}: expected a table")
            return
        for key in value:
            if key not in spec:
                errors.append(f"{where}: unknown field {key!r}")
        for key, (sub, required) in spec.items():
            if key in value:
                _check(value[key], sub, f"{where}.{key}", errors)
            elif required:
                errors.append(f"{where}: missing required field {key!r}")
        return
    if isinstance(spec, tuple):
        kind, sub = spec
        if kind == "list":
            if not isinstance(value, list):
                errors.append(f"{where}: expected a list")
                return
            for i, item in enumerate(value):
                _check(item, sub, f"{where}[{i}]", errors)
        elif kind == "map":
            if not isinstance(value, dict):
                errors.append(f"{where}: expected a table")
                return
            for key, item in value.items():
                _check(item, sub, f"{where}.{key}", errors)
        return
    ok = {
        "str": isinstance(value, str),
        "int": isinstance(value, int) and not isinstance(value, bool),
        "bool": isinstance(value, bool),
        "float": isinstance(value, float),
        "num": isinstance(value, (int, float)) and not isinstance(value, bool),
    }[spec]
    if not ok:
        errors.append(f"{where}: expected {spec}, got {type(value).__name__}")


SOURCE_RE = re.compile(r"^(?P<file>\S.*?) : (?P<where>\S.*)$")


def validate(raw: dict[str, dict[str, Any]]) -> list[str]:
    """Every schema error in the parsed data files (empty list = valid)."""
    errors: list[str] = []
    for stem, spec in FILES.items():
        if stem not in raw:
            errors.append(f"{stem}.toml: file missing")
            continue
        _check(raw[stem], spec, stem, errors)
    for stem in raw:
        if stem not in FILES:
            errors.append(f"{stem}.toml: no schema for this file")
    for where, src in iter_sources(raw):
        if not SOURCE_RE.match(src):
            errors.append(f"{where}: source {src!r} is not '<file or URL> : <row/section>'")
    errors.extend(_check_channels(raw))
    return errors


def _check_channels(raw: dict[str, dict[str, Any]]) -> list[str]:
    """A wheel row without its own index_base needs its channel's URL template (matrices/channels.toml), and
    `matrix update` needs the pytorch channel's root."""
    chfile, torch = raw.get("channels"), raw.get("torch")
    channels = chfile.get("channel") if isinstance(chfile, dict) else None
    wheels = torch.get("wheel") if isinstance(torch, dict) else None
    if not isinstance(channels, dict) or not isinstance(wheels, list):
        return []  # already reported by the schema check
    errors = [f"torch.wheel[{i}]: channel {w.get('channel')!r} has no index template in channels.toml"
              for i, w in enumerate(wheels)
              if isinstance(w, dict) and "index_base" not in w and w.get("channel") not in channels]
    if not isinstance(channels.get("pytorch"), dict) or not channels["pytorch"].get("root"):
        errors.append("channels.channel.pytorch: missing, or without the root `matrix update` scans")
    return errors


def iter_sources(raw: Any, where: str = "") -> list[tuple[str, str]]:
    """Every ``source``/``*_source`` string in the data, with its location (for the tests)."""
    out: list[tuple[str, str]] = []
    if isinstance(raw, dict):
        for key, val in raw.items():
            loc = f"{where}.{key}" if where else key
            if (key == "source" or key.endswith("_source")) and isinstance(val, str):
                out.append((loc, val))
            else:
                out.extend(iter_sources(val, loc))
    elif isinstance(raw, list):
        for i, val in enumerate(raw):
            out.extend(iter_sources(val, f"{where}[{i}]"))
    return out


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
            lds_kib=g.get("lds_kib"), products=tuple(prods), override=o.get("value"),
            override_broken=status in ("broken", "flaky", "harmful", "none"),
            override_note=(f"[{status}] " if status else "") + o.get("note", ""),
            is_apu=g["is_apu"], source=g["source"], override_source=o.get("source", ""), pci_ids=extra,
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
        kmd_declarations=declared, kmd_rule_source=driver.get("kmd_rule", {}).get("source", ""),
        health_thresholds={t["name"]: float(t["value"]) for t in raw.get("health", {}).get("threshold", [])},
        channels=channels,
        nightly_epochs=tuple(
            NightlyEpoch(rocm=e["rocm"], since=e["since"], until=e["until"], gfx=_t(e["gfx"]),
                         uncertain=_t(e["uncertain"]), source=e["gfx_source"])
            for e in raw.get("torch_builds", {}).get("nightly_epoch", [])),
    )
