"""``cmd/live-facts.json`` (written by :mod:`rocmdoctor.livefacts` on a live local check) -> LiveFacts.

The file is data from a bundle, so it is treated as hostile: every value is type-checked and bounded;
anything unexpected is left out (not captured), nothing raises.
"""

from __future__ import annotations

from typing import Any, Optional

from rocmdoctor.limits import LIMITS
from rocmdoctor.model import ContainerMapping, LiveFacts
from rocmdoctor.parse.smi import as_dict, load_json
from rocmdoctor.parse.text import src

MAX_ITEMS = LIMITS["live-items"]


def _int(v: Any) -> Optional[int]:
    return v if isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 1 << 62 else None


def _strs(v: Any, n: int = 64) -> list[str]:
    return [x[:256] for x in v[:n] if isinstance(x, str)] if isinstance(v, list) else []


def parse(text: str, file: str = "cmd/live-facts.json") -> Optional[LiveFacts]:
    data = load_json(text)
    if not isinstance(data, dict) or data.get("schema") != "rocmdoctor-live-facts/1":
        return None
    out = LiveFacts(source=src(file, None, "live facts (psutil, cgroup, docker SDK)"))
    mem = as_dict(data.get("memory"))
    out.ram_bytes, out.shm_bytes = _int(mem.get("ram_bytes")), _int(mem.get("shm_bytes"))
    holders = data.get("kfd_holders")
    if isinstance(holders, list):
        out.kfd_holders = [f"{_int(h.get('pid'))} {str(h.get('name', ''))[:64]} ({str(h.get('user', ''))[:64]})"
                           for h in holders[:MAX_ITEMS] if isinstance(h, dict)]
    cg = as_dict(data.get("cgroup"))
    out.cgroup_memory_max = _int(cg.get("memory_max_bytes"))
    conts = data.get("containers")
    if isinstance(conts, list):
        out.containers = [
            ContainerMapping(name=str(c.get("name", ""))[:128], image=str(c.get("image", ""))[:256],
                             devices=_strs(c.get("devices")), cdi=_strs(c.get("cdi")),
                             privileged=c.get("privileged") is True, gpu_env=_strs(c.get("gpu_env"), 16),
                             shm_bytes=_int(c.get("shm_bytes")))
            for c in conts[:MAX_ITEMS] if isinstance(c, dict)]
    return out
