"""``amd-smi monitor`` tables: a header of upper-case column names, then one row per GPU (per sample, with ``-w``).

amdsmi's logger right-justifies every value to its column's width (``string_value.rjust(12)`` for the ECC
columns), so a value ends where its header name ends: ``28 °C`` under ``GPU_TEMP``. The row is cut at the header's
column ends, never split on spaces (values hold spaces: ``8 W``, ``N/A Mb/s``). A pasted table from a working host
(ROCm/amdsmi, a maintainer's ``amd-smi monitor -w 1``) carries the ECC counters ``SINGLE_ECC`` / ``DOUBLE_ECC``:
health facts like ``amd-smi metric``'s, read into :class:`GpuHealth`.

Pure and bounded: at most :data:`MAX_GPUS` GPUs and :data:`MAX_ROWS` rows, the newest sample of a GPU wins;
nothing raises.
"""

from __future__ import annotations

import re

from rocmdoctor.limits import LIMITS
from rocmdoctor.model import Fact, GpuHealth
from rocmdoctor.parse.text import src

MAX_GPUS = LIMITS["gpus"]
MAX_ROWS = 4096  # samples read in all (``-w 1`` for an hour is 3600 rows per GPU: the newest ones are not needed)
MAX_HEADERS = 64
MAX_ROW_CHARS = 1024

# the header: "TIMESTAMP  GPU  POWER  GPU_TEMP ..." (-w), "GPU  POWER  GPU_TEMP ...", "GPU  XCP  POWER ..." (MI300
# partitions); every name is upper case with digits and underscores. HEADER_START is also sniff's marker.
HEADER_START = r"^[ \t]{0,16}(?:TIMESTAMP[ \t]{1,8})?GPU(?:[ \t]{1,8}XCP)?[ \t]{1,8}POWER[ \t]{1,8}GPU_T"
HEADER = re.compile(HEADER_START + r"(?:EMP)?(?:[ \t]{1,16}[A-Z][A-Z0-9_%]{0,24}){0,60}[ \t]{0,8}$", re.M)
_NAME = re.compile(r"[A-Z][A-Z0-9_%]{0,24}")
# column name -> GpuHealth attribute (amdsmi's 'single_bit_ecc' / 'double_bit_ecc' print as SINGLE_ECC / DOUBLE_ECC)
_COUNTERS = {"SINGLE_ECC": "ecc_correctable", "DOUBLE_ECC": "ecc_uncorrectable"}
_COUNT = re.compile(r"^\d{1,15}$")


def parse_amd_smi_monitor(text: str, file: str) -> list[GpuHealth]:
    """One :class:`GpuHealth` per GPU index seen under a header; counters only where the cell is a number
    ("N/A" on a GPU without RAS stays None)."""
    found: dict[str, GpuHealth] = {}
    rows = 0
    for header in list(HEADER.finditer(text))[:MAX_HEADERS]:
        columns = [(m.group(), m.end()) for m in _NAME.finditer(header.group())]
        first = text.count("\n", 0, header.start()) + 2
        body = text[header.end() + 1:header.end() + 1 + MAX_ROW_CHARS * (MAX_ROWS - rows)].split("\n")
        for k, row in enumerate(body[:MAX_ROWS - rows], start=first):
            cells = _cells(row.rstrip("\r"), columns)
            gpu = cells.get("GPU", "")
            if not gpu.isdigit() or (gpu not in found and len(found) >= MAX_GPUS):
                break
            rows += 1
            h = found[gpu] = GpuHealth(gpu=f"gpu {gpu}")
            for name, attr in _COUNTERS.items():
                value = cells.get(name, "")
                if _COUNT.match(value):
                    setattr(h, attr, Fact(int(value), src(file, k, f"amd-smi monitor GPU {gpu} {name}: {value}")))
    return list(found.values())


def _cells(row: str, columns: list[tuple[str, int]]) -> dict[str, str]:
    """The row cut at each column's end (values are right-aligned under their names); the first column may begin
    anywhere before its end."""
    out: dict[str, str] = {}
    begin = 0
    for name, end in columns:
        out[name] = row[begin:end].strip()
        begin = end
    if row[begin:].strip():  # text past the last column: not a row of this table
        return {}
    return out
