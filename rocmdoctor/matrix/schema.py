"""The schema of ``matrices/*.toml``: every table entry names its fields, their types and whether they are
required; unknown fields are errors, so a typo in a reviewed data file cannot silently drop data. Deliberately
small and our own (no jsonschema dependency); ``load`` validates the parsed files with it before ``build``."""

from __future__ import annotations

import re
from typing import Any, Union

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
    "wsl": ("bool", False),  # false: AMD said ROCm on WSL does not support this target
    "wsl_source": ("str", False),
    "wsl_driver_through": ("str", False),  # the newest Windows driver (Adrenalin YY.M.N) AMD said lacks it on WSL
    "wsl_driver_source": ("str", False),
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

THEROCK_FAMILY: dict[str, tuple[Spec, bool]] = {  # generated: rocmdoctor/matrix/derive.py
    "name": ("str", True),
    "gfx": (STR_LIST, True),
    "source": ("str", True),
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

# the first upstream kernel whose amdgpu/amdkfd serves a gfx target for ROCm (as AMD's ROCm README lists it)
UPSTREAM_KFD: dict[str, tuple[Spec, bool]] = {
    "gfx": ("str", True),
    "kernel_min": ("str", True),
    "chips": (STR_LIST, True),
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

APP: dict[str, tuple[Spec, bool]] = {
    "name": ("str", True),
    "label": ("str", True),
    "gfx": (STR_LIST, True),
    "excerpt": ("str", False),  # the pinned upstream file; absent where a maintainer's words are the source
    "source": ("str", True),
    "note": ("str", False),
    "through_build": ("int", False),  # a numbered release series: releases after this build are not judged
    "through_source": ("str", False),
    "earlier_through_build": ("int", False),  # releases through this build lacked earlier_lacks (a later PR added them)
    "earlier_lacks": (STR_LIST, False),
    "earlier_source": ("str", False),  # the change that added earlier_lacks
    "earlier_through_source": ("str", False),  # why releases through earlier_through_build predate it
    "not_on_wsl_through": ("str", False),  # the newest release known unable to run under WSL
    "not_on_wsl_source": ("str", False),
    "instead": ("str", False),  # the fix for a GPU outside the list, where upstream names one
    "instead_commands": (STR_LIST, False),
    "instead_source": ("str", False),
}

CHANNEL: dict[str, tuple[Spec, bool]] = {
    "index": ("str", True),
    "root": ("str", False),
    "note": ("str", False),
    "source": ("str", True),
}

# file stem -> {top-level key: (spec, required)}
PCI_CHIP: dict[str, tuple[Spec, bool]] = {  # generated: rocmdoctor/matrix/derive_pci.py
    "pci": ("str", True),
    "chip": ("str", True),
    "family": ("str", True),
    "gfx": ("str", True),
}

PCI_NAME: dict[str, tuple[Spec, bool]] = {  # generated: rocmdoctor/matrix/derive_pci.py
    "pci": ("str", True),
    "codename": ("str", True),
    "products": (STR_LIST, True),
}

WINDOWS_SDK: dict[str, tuple[Spec, bool]] = {  # generated: rocmdoctor/matrix/derive_windows.py
    "version": ("str", True),
    "runtime": (STR_LIST, True),
    "hip_sdk": (STR_LIST, True),
    "listed": (STR_LIST, True),
    "source": ("str", True),
}

FILES: dict[str, dict[str, tuple[Spec, bool]]] = {
    "releases": {"schema": ("int", True), "release": (("list", RELEASE), True)},
    "gpus": {"schema": ("int", True), "gpu": (("list", GPU), True)},
    "pci_chips": {"schema": ("int", True), "chips_source": ("str", True), "names_source": ("str", True),
                  "chip": (("list", PCI_CHIP), True), "name": (("list", PCI_NAME), True)},
    "overrides": {"schema": ("int", True), "override": (("list", OVERRIDE), True)},
    "torch": {"schema": ("int", True), "index": (("list", TORCH_INDEX), False),
              "wheel": (("list", TORCH_RELEASE), True)},
    "torch_builds": {"schema": ("int", True), "build": (("list", TORCH_BUILD), True),
                     "nightly_epoch": (("list", NIGHTLY_EPOCH), False),
                     "therock_family": (("list", THEROCK_FAMILY), False)},
    "driver": {"schema": ("int", True), "dkms": (("list", DKMS), True), "breakage": (("list", BREAKAGE), True),
               "kmd_rule": (KMD_RULE, False), "kmd_declared": (("list", KMD_DECLARED), False),
               "upstream_kfd": (("list", UPSTREAM_KFD), False)},
    "smoke": {"schema": ("int", True), "smoke_thresholds": (SMOKE, True)},
    "health": {"schema": ("int", True), "threshold": (("list", HEALTH_THRESHOLD), True)},
    "channels": {"schema": ("int", True), "channel": (("map", CHANNEL), True)},
    "apps": {"schema": ("int", True), "app": (("list", APP), True)},
    "windows": {"schema": ("int", True), "hip_sdk": (("list", WINDOWS_SDK), True)},
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
