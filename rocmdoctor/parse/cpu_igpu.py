"""Which AMD CPU model numbers carry an integrated Radeon GPU (``rocmdoctor/data/cpu_igpu.toml``, cited there).

The free-text reader finds a CPU's model number ("CPU: 7800X3D", "AMD Ryzen 9 7950X 16-Core Processor"); the
bundle asks :func:`igpu_of` whether the model's family always carries an iGPU (Ryzen 7000/9000 desktop, the G
APUs), as AMD's "... with Radeon Graphics" name says for the APUs that carry it in their name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Optional

from rocmdoctor import datacache
from rocmdoctor.paths import DATA_DIR

CPU_IGPU_FILE = DATA_DIR / "cpu_igpu.toml"


@dataclass(frozen=True)
class CpuFamily:
    name: str
    graphics: str
    models: re.Pattern[str]
    source: str
    not_models: tuple[str, ...] = ()


@lru_cache(maxsize=1)
def families() -> tuple[CpuFamily, ...]:
    """The table's families. The table ships with rocmdoctor: an unreadable file or a broken row raises (an internal
    error, exit 3) rather than quietly making no claim, which would read as "no iGPU" on every host."""
    data = datacache.cached_table("cpu-igpu", CPU_IGPU_FILE)
    return tuple(CpuFamily(str(row["name"]), str(row["graphics"]), re.compile(str(row["models"])), str(row["source"]),
                           tuple(str(m) for m in row.get("not", ()))) for row in data.get("family", []))


def igpu_of(model: str) -> Optional[CpuFamily]:
    """The family whose every model carries an iGPU, for a model number ("7800X3D", "Ryzen 7 7800x3d"); None
    when no family claims it (the F models, Ryzen 5000 and older without G, anything unknown)."""
    number = model.split()[-1].upper() if model.split() else ""
    return next((f for f in families() if f.models.fullmatch(number)), None)
