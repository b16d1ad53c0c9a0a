"""``cmd/torch-probe.json``: the target interpreter and its torch, found without importing torch.

Shape (written by capture; every key may be missing)::

    {"python": {"executable", "version", "implementation", "tags": [...]},
     "distributions": {name: version},
     "torch": {"version", "hip", "cuda", "git_version", "location", "bundled_libs": [...]} | null}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from rocmdoctor.model import PythonInfo, TorchInfo
from rocmdoctor.parse.pip import normalize
from rocmdoctor.parse.smi import load_json
from rocmdoctor.parse.text import src


@dataclass
class TorchProbe:
    python: Optional[PythonInfo] = None
    torch: Optional[TorchInfo] = None
    torch_seen: bool = False  # the probe looked: ``torch`` key present (None = not installed)
    distributions: dict[str, str] = field(default_factory=dict)
    valid: bool = False


def _s(d: dict[str, Any], key: str) -> Optional[str]:
    v = d.get(key)
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        v = str(v)
    return v.strip() or None if isinstance(v, str) else None


def parse_torch_probe(text: str, file: str = "cmd/torch-probe.json") -> TorchProbe:
    data = load_json(text)
    res = TorchProbe()
    if not isinstance(data, dict):
        return res
    res.valid = True
    where = src(file, None)
    py = data.get("python")
    if isinstance(py, dict):
        tags = py.get("tags")
        res.python = PythonInfo(
            executable=_s(py, "executable"),
            version=_s(py, "version"),
            implementation=(_s(py, "implementation") or "").lower() or None,
            platform_tags=[t for t in tags if isinstance(t, str)] if isinstance(tags, list) else [],
            source=where,
        )
    dists = data.get("distributions")
    if isinstance(dists, dict):
        for k, v in dists.items():
            if isinstance(k, str) and isinstance(v, str):
                res.distributions[normalize(k)] = v
    if "torch" in data:
        res.torch_seen = True
        t = data.get("torch")
        if isinstance(t, dict):
            libs = t.get("bundled_libs")
            res.torch = TorchInfo(
                version=_s(t, "version") or res.distributions.get("torch"),
                hip=_s(t, "hip"),
                cuda=_s(t, "cuda"),
                git_version=_s(t, "git_version"),
                location=_s(t, "location"),
                bundled_libs=[x for x in libs if isinstance(x, str)] if isinstance(libs, list) else [],
                source=src(file, None, f"torch {_s(t, 'version') or '?'}"),
            )
    return res
