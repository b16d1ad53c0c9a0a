"""``rocm-smi`` (concise table, ``--showhw``, ``--showproductname``/``--showbus`` key lines, the
``--showrasinfo`` RAS table) and ``amd-smi static|metric --json`` (values may be ``"N/A"`` or
``{"value": .., "unit": ..}``)."""

from __future__ import annotations

import json
import re
from typing import Any, Optional

from rocmdoctor.limits import LIMITS
from rocmdoctor.model import Fact, GpuHealth, GpuInfo
from rocmdoctor.parse.text import (
    MAX_CHARS,
    MAX_LINE,
    clean,
    gfx_base,
    hex_id,
    lines,
    looks_like_apu,
    pci_bus,
    src,
    to_int,
)
from rocmdoctor.words import plural

_ROW_INDEX = re.compile(r"^\s*(\d{1,3})\s+\S")
_DID = re.compile(r"\b0x([0-9a-fA-F]{4})\b")
_GFX_WORD = re.compile(r"\bgfx[0-9a-f]{3,5}\b")
_BUS = re.compile(r"\b[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]\b")
_KEYLINE = re.compile(r"^\s*(?:GPU|card)\[(\d{1,3})\]\s*:\s*([^:]+?)\s*:\s*(.*)$")
# rocm-smi's message about one device ("ERROR: GPU[0]\t: Unable to set Power OverDrive"): the device is enumerated
# (ROCm/rocm_smi_lib#190: a healthy MI100 pair refusing a power cap under its floor)
_MESSAGE = re.compile(r"^\s*(?:ERROR|WARNING): GPU\[(\d{1,3})\]\s*:")  # (as _STARTS admits it)
# ``rocm-smi --showrasinfo`` (rocm_smi.py showRasInfo + printTableLog): per GPU a title, a header, one row per
# RAS block: the block, its state (rsmi_ras_err_stale_machine, upper-cased; "UNKNOWN ERROR" is two words)
# and, where rsmi_dev_ecc_count_get answered, two counts right-aligned under the header.
_RAS_TITLE = re.compile(r"^\s*GPU\[(\d{1,3})\]\s*:\s*RAS INFO\s*$")
_RAS_ROW = re.compile(r"^\s*([A-Z][A-Z0-9_]{0,15})\s+([A-Z]+(?: [A-Z]+)?)(?:\s+(\d{1,19})\s+(\d{1,19}))?\s*$")
# The header names the order of the two counts. rocm_smi.py of ROCm 3.9-5.4 printed the values CE, UE under
# the headings "uncorrectable err", "correctable err" (fixed by rocm_smi_lib 248c6f7, ROCm 5.5): that shape's
# order is not trusted, so only an all-zero table (where order does not matter) is read from it.
RAS_HEADERS: dict[tuple[str, ...], Optional[tuple[str, str]]] = {
    ("correctable error", "uncorrectable error"): ("ce", "ue"),
    ("uncorrectable err", "correctable err"): None,
}
RAS_LINK_BLOCKS = ("XGMI_WAFL",)  # the links between GPUs: judged as XGMI errors, not memory ECC (as in sysfs)
# How a key line (_KEYLINE) or a table's header begins, after its indentation; one at the text's start or
# after a newline (a literal prefix: the regex engine jumps from newline to newline).
_START = re.compile(r"[^\S\n]*(?:GPU|Device|card\[|ERROR: GPU\[|WARNING: GPU\[)")
_STARTS = ("GPU", "card[", "Device", "ERROR: GPU[", "WARNING: GPU[")
_START_AFTER_NEWLINE = re.compile(r"\n[^\S\n]*(?:GPU|Device|card\[|ERROR: GPU\[|WARNING: GPU\[)")


def _first_line(text: str) -> Optional[int]:
    """The number of the first line that may begin a key line or a table (None: no line does). The lines
    before it change nothing in :func:`parse_rocm_smi`, so a long log is not read line by line until then.
    What :func:`~rocmdoctor.parse.text.clean` removes (CR, NUL, escapes) could hide such a start: a text
    with escapes is read from its first line, CR and NUL are removed before the search (lines keep their
    numbers)."""
    if "\x1b" in text:
        return 1
    if len(text) > MAX_CHARS:
        text = text[:MAX_CHARS]
    plain = text.replace("\r", "").replace("\x00", "") if "\r" in text or "\x00" in text else text
    if _START.match(plain):
        return 1
    m = _START_AFTER_NEWLINE.search(plain)
    return None if m is None else plain.count("\n", 0, m.start()) + 2


def _start_lines(body: str) -> set[int]:
    """1-based numbers of the lines that start (after blanks) with GPU / Device / card[: one regex pass, so a long
    log's other lines cost a set lookup each instead of a strip and a compare."""
    out: set[int] = set()
    line, pos = 1, 0
    if _START.match(body):
        out.add(1)
    for m in _START_AFTER_NEWLINE.finditer(body):
        line += body.count("\n", pos, m.start() + 1)
        pos = m.start() + 1
        out.add(line)
    return out


# a job launcher's prefix on every line of a node's output, before rocm-smi's banner: "nid005113 out: ==== ROCm System
# Management Interface ====" (a Slurm/Cray job log, wandb/wandb#5449), pdsh's "node01: "
_PREFIXED_BANNER = re.compile(
    r"^(?P<p>[^\n=]{0,60}?[^\s=][:>\]] {0,2})={3,120}[ \t]{0,8}ROCm System Management Interface", re.M)
# a concise-table row rocm-smi printed ("0    47.0c  91.0W ..."), with whatever precedes it on the line
_TABLE_ROW = re.compile(r"^[^\n]{0,80}?(?<![\w.])\d{1,3}[ \t]{1,16}(?:\d{1,3}\.\d{1,2}c|N/A)[ \t]", re.M)


def without_line_prefix(text: str) -> str:
    """The output with the launcher's per-line prefix removed (same lines, so evidence line numbers hold); the text
    unchanged when rocm-smi's banner has no prefix."""
    head = text[:MAX_CHARS]
    at = head.find("ROCm System Management Interface")  # the banner's line only: no regex over a 1 MiB log
    m = _PREFIXED_BANNER.match(head, head.rfind("\n", 0, at) + 1) if at >= 0 else None
    if m is None:
        return text
    p = m.group("p")
    return "\n".join(line[len(p):] if line.startswith(p) else line for line in text.split("\n"))


def unread_rows(text: str, gpus: list[GpuInfo]) -> bool:
    """True when rocm-smi printed table rows that :func:`parse_rocm_smi` did not turn into GPUs: such an output is
    no evidence that the host has none (fail closed: unreadable is not 'no GPU')."""
    return not gpus and _TABLE_ROW.search(text[:MAX_CHARS]) is not None


def parse_rocm_smi(text: str, file: str = "cmd/rocm-smi.txt") -> list[GpuInfo]:
    """GPUs in device-index order; device id / gfx / bus filled where the output shows them."""
    gpus: dict[int, GpuInfo] = {}
    header: Optional[list[str]] = None
    first = _first_line(text)
    if first is None:
        return []
    body = text[:MAX_CHARS] if len(text) > MAX_CHARS else text
    rows = body.split("\n")
    dirty = "\x1b" in body or "\r" in body or "\x00" in body  # per-line test only when the text has such bytes
    starts = None if dirty else _start_lines(body)
    for n in range(first, len(rows) + 1):
        raw = rows[n - 1]
        # Outside a table only key lines ("GPU[0] : ...") and table headers matter: a long log's other lines are
        # passed over before any cleaning (a line clean() would change is always read whole).
        if header is None and (n not in starts if starts is not None else not raw.lstrip().startswith(_STARTS)
                               and not ("\x1b" in raw or "\r" in raw or "\x00" in raw)):
            continue
        line = clean(raw[:MAX_LINE] if len(raw) > MAX_LINE else raw)
        m = _KEYLINE.match(line)
        if m is None and (said := _MESSAGE.match(line)) is not None:
            gpus.setdefault(int(said.group(1)), GpuInfo(index=int(said.group(1)), sources=[src(file, n, line)]))
            continue
        if m:
            idx = int(m.group(1))
            gpu = gpus.setdefault(idx, GpuInfo(index=idx, sources=[src(file, n, line)]))
            _keyline(gpu, m.group(2).strip().lower(), m.group(3).strip())
            continue
        stripped = line.strip()
        words = stripped.split()
        # a table header ("Device  Node  IDs  Temp ..."), not an application's device line ("Device 0: AMD ...")
        if words and words[0] in ("GPU", "Device") and len(words) > 2 and not words[1].rstrip(":").isdigit():
            header = [w.upper() for w in words]
            continue
        if stripped.startswith("=") or not stripped:
            if stripped.startswith("=") and header is not None and "END" in stripped.upper():
                header = None
            continue
        if header is None:
            continue
        rm = _ROW_INDEX.match(line)
        if rm is None:
            continue
        idx = int(rm.group(1))
        gpu = gpus.setdefault(idx, GpuInfo(index=idx, sources=[src(file, n, line)]))
        if len(header) > 1 and header[1] == "NODE" and len(words) > 1 and words[1].isdigit():
            gpu.kfd_node = int(words[1])
        if "DID" in header or "IDS" in header or any("DID" in h for h in header):
            d = _DID.search(line)
            if d:
                gpu.pci_device_id = hex_id(d.group(1))
                gpu.pci_vendor_id = "0x1002"
        g = _GFX_WORD.search(line)
        if g:
            gpu.gfx_by_source["rocm-smi"] = g.group(0)
        b = _BUS.search(line)
        if b:
            gpu.pci_bus = pci_bus(b.group(0))
    out = [gpus[k] for k in sorted(gpus)]
    for i, gpu in enumerate(out):
        gpu.index = i
        gpu.gfx = gpu.gfx_by_source.get("rocm-smi")
    return out


def _keyline(gpu: GpuInfo, key: str, value: str) -> None:
    if key in ("gfx version", "gfx ver"):
        gfx = gfx_base(value)
        if gfx:
            gpu.gfx_by_source["rocm-smi"] = gfx
    elif key in ("device id", "did"):
        gpu.pci_device_id = hex_id(value) or gpu.pci_device_id
        gpu.pci_vendor_id = "0x1002"
    elif key in ("device rev", "revision id"):
        gpu.pci_revision = hex_id(value, width=2)
    elif key in ("pci bus",):
        gpu.pci_bus = pci_bus(value) or gpu.pci_bus
    elif key in ("node id",):
        gpu.kfd_node = to_int(value)
    elif key in ("card series", "card sku", "market name", "marketing name") and value and value != "N/A":
        if gpu.name is None or key in ("market name", "marketing name"):
            gpu.name = value
    elif key in ("serial number",) and value not in ("", "N/A"):
        gpu.serial = value
    elif key.startswith("vram total memory"):
        gpu.vram_bytes = to_int(value)


def na(value: Any) -> Any:
    """``None`` for amd-smi's missing values ('N/A', '', None)."""
    if value is None:
        return None
    if isinstance(value, str) and value.strip().upper() in ("N/A", "NA", "", "UNKNOWN"):
        return None
    return value


def quantity_bytes(value: Any) -> Optional[int]:
    """``{"value": 65520, "unit": "MB"}`` or ``"65520 MB"`` or a plain number (taken as MB) -> bytes."""
    unit = "MB"
    if isinstance(value, dict):
        unit = str(value.get("unit") or "MB")
        value = value.get("value")
    value = na(value)
    if value is None:
        return None
    if isinstance(value, str):
        m = re.match(r"^\s*([\d.]+)\s*([KMGT]i?B|B)?\s*$", value, re.I)
        if m is None:
            return None
        value, unit = m.group(1), m.group(2) or unit
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    scale = {"B": 1, "KB": 1024, "KIB": 1024, "MB": 1024**2, "MIB": 1024**2, "GB": 1024**3, "GIB": 1024**3,
             "TB": 1024**4, "TIB": 1024**4}.get(unit.upper().strip())
    if scale is None or number < 0 or number > 1e15:
        return None
    return int(number * scale)


def as_dict(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else an empty one: a missing or mistyped section reads as absent."""
    return value if isinstance(value, dict) else {}


def _gpu_items(data: Any) -> list[dict[str, Any]]:
    if isinstance(data, dict):
        for key in ("gpu_data", "gpus", "data"):
            if isinstance(data.get(key), list):
                data = data[key]
                break
        else:
            data = [data] if "gpu" in data else []
    if not isinstance(data, list):
        return []
    return [d for d in data if isinstance(d, dict)]


def load_json(text: str) -> Any:
    """JSON or ``None``; tolerates a prompt line or padding around the document."""
    if len(text) > MAX_CHARS:
        return None
    s = text.strip()
    start = min((i for i in (s.find("{"), s.find("[")) if i >= 0), default=-1)
    if start < 0:
        return None
    try:
        return json.loads(s[start:])
    except (ValueError, RecursionError):
        try:
            return json.JSONDecoder().raw_decode(s[start:])[0]
        except (ValueError, RecursionError):
            return None


_AMD_SMI_GPU = re.compile(r"^GPU: (\d{1,3})\s*$")
_AMD_SMI_KEY = re.compile(r"^([ \t]+)([A-Z][A-Z0-9_]{0,48}):[ \t]*(.*?)\s*$")


def amd_smi_text_items(text: str) -> list[dict[str, Any]]:
    """``amd-smi static`` without ``--json``: each "GPU: N" block as the JSON form's item ({"gpu": N, "asic":
    {"market_name": ...}, "bus": {...}, "driver": {...}}, keys lower-cased); deeper sub-sections are skipped."""
    items: list[dict[str, Any]] = []
    cur: Optional[dict[str, Any]] = None
    section: Optional[dict[str, Any]] = None
    section_indent = 0
    for _, line in lines(text):
        m = _AMD_SMI_GPU.match(line)
        if m:
            cur = {"gpu": int(m.group(1))}
            items.append(cur)
            section = None
            continue
        km = _AMD_SMI_KEY.match(line) if cur is not None else None
        if km is None or cur is None:
            continue
        indent, key, value = len(km.group(1).expandtabs(4)), km.group(2).lower(), km.group(3)
        if section is None or indent <= section_indent:
            if value:
                cur[key] = value
                section = None
            else:  # "    ASIC:" opens a section
                section, section_indent = {}, indent
                cur[key] = section
        elif value and section is not None:
            section.setdefault(key, value)
        if len(items) > 256:
            break
    return items


def amd_smi_driver(text: str) -> Optional[str]:
    """The amdgpu version amd-smi static reports in its DRIVER section ("6.18.3"), JSON or text."""
    data = load_json(text)
    for item in (_gpu_items(data) if data is not None else amd_smi_text_items(text)):
        drv = as_dict(item.get("driver"))
        name, version = na(drv.get("name")), na(drv.get("version"))
        if name == "amdgpu" and isinstance(version, str) and re.fullmatch(r"\d{1,3}(?:\.\d{1,6}){1,4}", version):
            return version
    return None


def parse_amd_smi(text: str, file: str = "cmd/amd-smi-static.json") -> list[GpuInfo]:
    """``amd-smi static --json`` (and ``metric --json`` for VRAM totals), or its plain-text form."""
    data = load_json(text)
    out: list[GpuInfo] = []
    items = _gpu_items(data) if data is not None else amd_smi_text_items(text)
    for i, item in enumerate(items):
        gpu = GpuInfo(index=len(out))
        idx = to_int(item.get("gpu"))
        gpu.sources.append(src(file, None, f"gpu {idx if idx is not None else i}"))
        asic = as_dict(item.get("asic"))
        gfx = na(asic.get("target_graphics_version"))
        if isinstance(gfx, str) and gfx_base(gfx):
            gpu.gfx_by_source["amd-smi"] = gfx_base(gfx) or ""
            gpu.gfx = gpu.gfx_by_source["amd-smi"]
        name = na(asic.get("market_name"))
        board = as_dict(item.get("board"))
        name = name or na(board.get("product_name"))
        if isinstance(name, str):
            gpu.name = name
            if looks_like_apu(name):
                gpu.is_apu = True
        vendor = na(asic.get("vendor_id"))
        gpu.pci_vendor_id = hex_id(vendor) if vendor is not None else None
        dev = na(asic.get("device_id"))
        gpu.pci_device_id = hex_id(dev) if dev is not None else None
        rev = na(asic.get("rev_id"))
        gpu.pci_revision = hex_id(rev, width=2) if rev is not None else None
        cus = to_int(na(asic.get("num_compute_units")))
        gpu.compute_units = cus or None
        serial = na(asic.get("asic_serial")) or na(board.get("product_serial"))
        if isinstance(serial, str):
            gpu.serial = serial
        bus = as_dict(item.get("bus"))
        bdf = na(bus.get("bdf")) or na(item.get("bdf"))
        if isinstance(bdf, str):
            gpu.pci_bus = pci_bus(bdf)
        vram = as_dict(item.get("vram"))
        gpu.vram_bytes = quantity_bytes(vram.get("size"))
        mem = as_dict(item.get("mem_usage"))
        if gpu.vram_bytes is None and mem:
            gpu.vram_bytes = quantity_bytes(mem.get("total_vram"))
        uuid = na(item.get("uuid")) or na((item.get("asic") or {}).get("uuid") if asic else None)
        if isinstance(uuid, str):
            gpu.uuid = uuid
        out.append(gpu)
    return out


def parse_agent_enumerator(text: str, file: str = "cmd/rocm_agent_enumerator.txt") -> list[GpuInfo]:
    """One gfx name per line; ``gfx000`` is the CPU agent and is skipped."""
    out: list[GpuInfo] = []
    for n, line in lines(text):
        word = line.strip()
        if not word or not re.fullmatch(r"gfx[0-9a-f]{3,5}", word) or word == "gfx000":
            continue
        gpu = GpuInfo(index=len(out), gfx=word, gfx_by_source={"rocm_agent_enumerator": word})
        gpu.sources.append(src(file, n, line))
        out.append(gpu)
    return out


def parse_rocm_smi_ras(text: str, file: str = "cmd/rocm-smi-rasinfo.txt") -> list[GpuHealth]:
    """``rocm-smi --showrasinfo all`` -> one :class:`GpuHealth` ("GPU[0]") per table whose header is known.

    The counts are rocm_smi_lib's ``rsmi_dev_ecc_count_get``: the same ``ras/<block>_err_count`` files the
    sysfs reader sees. Rows without counts (the block has no counter) add nothing; a GPU with no counted row
    gets no ECC fact (not captured, never healthy)."""
    tables: dict[int, list[tuple[int, str, str, int, int]]] = {}
    order: dict[int, Optional[tuple[str, str]]] = {}
    gpu: Optional[int] = None
    for n, line in lines(text):
        title = _RAS_TITLE.match(line)
        if title:
            gpu = int(title.group(1))
            if gpu not in tables and len(tables) >= LIMITS["gpus"]:
                gpu = None
            else:  # a GPU's table printed twice (two runs in one paste): the last one counts, never the sum
                tables[gpu] = []
                order.pop(gpu, None)
            continue
        cells = tuple(c.lower() for c in re.split(r"\s{2,}|\t", line.strip()))
        if gpu is not None and cells[:2] == ("block", "status"):
            order[gpu] = RAS_HEADERS.get(cells[2:], ("?", "?"))
            continue
        row = _RAS_ROW.match(line)
        if gpu is not None and gpu in order and row and row.group(3) is not None:
            tables[gpu].append((n, row.group(1), row.group(2), int(row.group(3)), int(row.group(4))))
        elif line.strip().startswith("____"):
            gpu = None
    return [h for idx in sorted(tables) if (h := _ras_health(idx, tables[idx], order.get(idx), file))]


def _ras_health(idx: int, rows: list[tuple[int, str, str, int, int]], cols: Optional[tuple[str, str]],
                file: str) -> Optional[GpuHealth]:
    """One GPU's table as facts; ``cols`` None = the swapped-header shape (zeros only), ("?", "?") = unknown."""
    if not rows or cols == ("?", "?") or (cols is None and any(a or b for _n, _b, _s, a, b in rows)):
        return None
    cols = cols or ("ce", "ue")  # all zero: either order reads the same
    h = GpuHealth(gpu=f"GPU[{idx}]")
    memory = [(n, block, dict(zip(cols, (a, b)))) for n, block, _s, a, b in rows if block not in RAS_LINK_BLOCKS]
    for attr, key in (("ecc_uncorrectable", "ue"), ("ecc_correctable", "ce")):
        if not memory:
            break
        total = sum(c[key] for _n, _b, c in memory)
        hits = [(n, f"{block} {key}: {c[key]}") for n, block, c in memory if c[key]]
        where = hits[0][0] if hits else memory[0][0]
        what = "; ".join(t for _n, t in hits) or f"{plural(len(memory), 'block')}, {key} 0 in each"
        setattr(h, attr, Fact(total, src(file, where, what[:200])))
    for n, block, _s, a, b in rows:
        if block in RAS_LINK_BLOCKS:
            ue = dict(zip(cols, (a, b)))["ue"]
            h.xgmi_errors = Fact("no errors" if ue == 0 else "error", src(file, n, f"{block} ue: {ue}"))
    return h
