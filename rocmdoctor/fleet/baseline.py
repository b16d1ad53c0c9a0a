"""Baselines: what a node *must* have (GPU count and models, gfx, VRAM, driver, ROCm, kernel, torch).

A baseline is a small JSON file (``rocmdoctor-baseline/1``) written by hand or by ``fleet audit
--write-baseline`` from the fleet's majority configuration. ``fleet node-check --expect FILE`` and ``fleet
audit --baseline FILE`` compare each node against it; every difference is a ``fail`` naming what was
expected and what the node has, so a node with one GPU missing, another driver or no GPU at all never
passes. A key left out of the file is not checked.

The file is input from another person: it is read with a size cap, every key and type is validated, and a
bad file is a usage error (exit 2), never a silently empty expectation.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Union

from rocmdoctor.errors import BadInput
from rocmdoctor.model import Finding, Fix, Host, Severity

FORMAT = "rocmdoctor-baseline/1"
MAX_BYTES = 256 * 1024
VRAM_TOLERANCE = 0.02  # sources round VRAM differently (amd-smi MB, kfd bytes): 2 % is the same memory

# key -> (finding id, what it is, JSON type)
FIELDS: dict[str, tuple[str, str, type]] = {
    "gpu_count": ("fleet.baseline-gpu-count", "GPU count", int),
    "gfx": ("fleet.baseline-gfx", "GPU targets", dict),
    "models": ("fleet.baseline-models", "GPU models (PCI device ids)", dict),
    "vram_bytes": ("fleet.baseline-vram", "VRAM per GPU", int),
    "driver": ("fleet.baseline-driver", "amdgpu driver", str),
    "rocm": ("fleet.baseline-rocm", "ROCm", str),
    "kernel": ("fleet.baseline-kernel", "kernel", str),
    "torch": ("fleet.baseline-torch", "torch", str),
}
MIN_GPUS_ID = "fleet.expect-gpus"

Facts = dict[str, Any]


@dataclass(frozen=True)
class Baseline:
    expect: Facts  # only the keys to check
    origin: str = ""  # where it came from: a path, "majority of 32 hosts"


def facts(host: Host) -> Facts:
    """The baseline keys as this host shows them (``None`` = not seen)."""
    gfx: Counter[str] = Counter(g.gfx or "unknown" for g in host.gpus)
    # the PCI device id where known: the hardware itself, the same whichever tool named it (a node whose
    # rocminfo hung must not "differ" from its neighbours by a marketing-name spelling)
    models: Counter[str] = Counter(g.pci_device_id or g.name or "unknown" for g in host.gpus)
    vram = [g.vram_bytes for g in host.gpus if g.vram_bytes]
    return {
        "gpu_count": len(host.gpus),
        "gfx": dict(sorted(gfx.items())),
        "models": dict(sorted(models.items())),
        "vram_bytes": min(vram) if vram and len(vram) == len(host.gpus) else None,
        "driver": host.amdgpu_version.value if host.amdgpu_version else None,
        "rocm": host.rocm_version.value if host.rocm_version else None,
        "kernel": host.kernel.release,
        "torch": host.torch.version if host.torch else None,
    }


def show(key: str, value: Any) -> str:
    """A baseline value for people: GPU maps as 'gfx90a x4', VRAM in GiB, None as 'not seen'."""
    if value is None:
        return "not seen"
    if isinstance(value, dict):
        return " + ".join(f"{k} x{n}" for k, n in value.items()) if value else "none"
    if key == "vram_bytes":
        return f"{value / 2**30:.1f} GiB"
    return str(value)


def _same(key: str, have: Any, want: Any) -> bool:
    if key == "vram_bytes" and isinstance(have, int) and isinstance(want, int):
        return abs(have - want) <= VRAM_TOLERANCE * want
    return bool(have == want)


def _only_fewer(mine: dict[str, int], want: dict[str, int]) -> bool:
    """Every kind the node has is expected, in no larger number: the count difference says it all."""
    return all(k in want and n <= want[k] for k, n in mine.items())


def compare(have: Facts, baseline: Baseline, against: str = "the baseline") -> list[Finding]:
    """One ``fail`` per expected key the node does not match. One root cause: when GPUs are simply missing
    (the node has a subset of the expected kinds), the GPU-count finding names which ones and the gfx/model
    keys are not repeated; a GPU of another kind is reported under gfx/models as well."""
    out: list[Finding] = []
    want_n, mine_n = baseline.expect.get("gpu_count"), have.get("gpu_count")
    missing_only = isinstance(want_n, int) and isinstance(mine_n, int) and mine_n < want_n
    for key, (fid, title, _t) in FIELDS.items():  # FIELDS order: the GPU count first, the root cause
        if key not in baseline.expect:
            continue
        want = baseline.expect[key]
        mine = have.get(key)
        if key == "gfx" or key == "models":
            # a GPU with no known name/gfx on a host that sees none is the same "none"
            mine = mine if mine else {}
            if missing_only and _only_fewer(mine, want):
                continue
        if _same(key, mine, want):
            continue
        detail = f"{title}: expected {show(key, want)}, this node has {show(key, mine)}"
        if key == "gpu_count" and isinstance(mine, int) and mine < want:
            kinds = baseline.expect.get("gfx")
            seen = have.get("gfx") or {}
            which = f" ({show('gfx', seen) if seen else 'none'} of {show('gfx', kinds)})" if kinds else ""
            detail = (f"{want - mine} GPU(s) missing: expected {want}, this node sees "
                      f"{mine if mine else 'no GPU at all'}{which}")
        out.append(Finding(
            id=fid, severity=Severity.FAIL, title=detail, detail=f"{title} differs from {against}: {detail}",
            evidence=[f"{key}: {mine!r} vs expected {want!r}"],
            fix=Fix("Bring the node back to the baseline (or update the baseline if the change is intended):",
                    ["rocmdoctor check -v"]),
        ))
    return out


def expect_gpus(have: Facts, minimum: int) -> list[Finding]:
    """``--expect-gpus N``: at least N GPUs (a node with none never says ok)."""
    n = have.get("gpu_count") or 0
    if n >= minimum:
        return []
    seen = f"sees {n}" if n else "sees no GPU at all"
    return [Finding(id=MIN_GPUS_ID, severity=Severity.FAIL,
                    title=f"expected at least {minimum} GPU(s), this node {seen}",
                    detail="Fewer GPUs than --expect-gpus asks for: the driver did not probe them or they are gone.",
                    evidence=[f"gpu_count: {n}"],
                    fix=Fix("Check the driver loaded and every GPU probed:",
                            ["sudo dmesg | grep -i amdgpu", "lspci -nnk -d 1002:"]))]


def _validate(data: Any, label: str) -> Facts:
    if not isinstance(data, dict):
        raise BadInput(f"{label}: not a JSON object")
    if data.get("schema") != FORMAT:
        raise BadInput(f"{label}: not a {FORMAT} file (schema: {str(data.get('schema'))[:40]!r})")
    expect = data.get("expect")
    if not isinstance(expect, dict) or not expect:
        raise BadInput(f"{label}: 'expect' must be a non-empty object")
    out: Facts = {}
    for key, value in expect.items():
        if key not in FIELDS:
            raise BadInput(f"{label}: unknown key expect.{str(key)[:40]!r} (known: {', '.join(FIELDS)})")
        want = FIELDS[key][2]
        if want is int and (not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 2**62):
            raise BadInput(f"{label}: expect.{key} must be a non-negative integer")
        if want is str and (not isinstance(value, str) or not value or len(value) > 200):
            raise BadInput(f"{label}: expect.{key} must be a non-empty string")
        if want is dict:
            if not isinstance(value, dict) or len(value) > 64 or not all(
                    isinstance(k, str) and 0 < len(k) <= 120 and isinstance(n, int) and not isinstance(n, bool)
                    and 0 < n <= 4096 for k, n in value.items()):
                raise BadInput(f"{label}: expect.{key} must map names to GPU counts")
            value = dict(sorted(value.items()))
        out[key] = value
    return out


def load(path: Union[str, Path]) -> Baseline:
    """Read and validate a baseline file; BadInput (exit 2) on anything else."""
    p = Path(path)
    try:
        with open(p, "rb") as f:
            raw = f.read(MAX_BYTES + 1)
    except OSError as exc:
        raise BadInput(f"baseline {p}: {exc.strerror or exc}") from None
    if len(raw) > MAX_BYTES:
        raise BadInput(f"baseline {p}: larger than {MAX_BYTES} bytes")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise BadInput(f"baseline {p}: not JSON ({str(exc)[:80]})") from None
    return Baseline(expect=_validate(data, f"baseline {p}"), origin=str(p))


def is_baseline_file(path: Path) -> bool:
    """A JSON baseline (as opposed to a capture bundle, which ``--baseline`` also accepts)."""
    if not path.is_file() or path.name.endswith((".tar.gz", ".tgz")):
        return False
    try:
        with open(path, "rb") as f:
            head = f.read(4096).lstrip()
    except OSError:
        return False
    return head.startswith(b"{") and FORMAT.encode() in head


def majority(all_facts: list[Facts]) -> Optional[Baseline]:
    """The configuration most hosts share (strictly more than any other), as a baseline; None on a tie."""
    blobs = Counter(json.dumps(f, sort_keys=True) for f in all_facts)
    if not blobs:
        return None
    ranked = blobs.most_common(2)
    if len(ranked) > 1 and ranked[0][1] == ranked[1][1]:
        return None
    winner = json.loads(ranked[0][0])
    expect = {k: v for k, v in winner.items() if v is not None and k in FIELDS}
    return Baseline(expect=expect, origin=f"majority of {len(all_facts)} hosts ({ranked[0][1]} share it)")


def dumps(baseline: Baseline) -> str:
    return json.dumps({"schema": FORMAT, "origin": baseline.origin, "expect": baseline.expect}, indent=2) + "\n"
