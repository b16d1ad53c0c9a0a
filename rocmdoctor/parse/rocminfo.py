"""``rocminfo`` output: every format since ROCm 2.x, complete or as a ``grep`` excerpt.

An agent starts at ``Agent N`` (or, in an excerpt without headers, at the next agent-level
``Name:``). GPUs are agents with ``Device Type: GPU``, or, when that line was cut, a ``gfx`` name or
a ``GPU-`` uuid. Their order is the KFD node order, which is how they are merged with sysfs.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Optional

from rocmdoctor.model import Fact, GpuInfo, Source
from rocmdoctor.parse.text import bus_from_bdfid, gfx_base, hex_id, lines_holding, looks_like_apu, src, to_int

_KEY = re.compile(
    r"^(?:\S+?[:-])?\s*(Marketing Name|Vendor Name|Device Type|Name|Uuid|Chip ID|BDFID|Compute Unit|Node"
    r"|Segment|Size|Memory Properties)\s*:\s*(.*)$"
)
_AGENT = re.compile(r"^\s*Agent\s+(\d+)\s*$")
_ROCK = re.compile(r"ROCk module(?: version (\S{1,64}))? is (NOT )?loaded")
_GPU_MARKETING = re.compile(r"Instinct|Radeon|FirePro|\bVega\b|\bNavi\b", re.I)
_CPU_MARKETING = re.compile(r"Ryzen|EPYC|Threadripper|Xeon|Core\(TM\)|\bCore\b|Processor|Opteron|Intel", re.I)


@dataclass
class _Agent:
    name: Optional[tuple[str, int, str]] = None
    marketing: Optional[str] = None
    device_type: Optional[str] = None
    uuid: Optional[str] = None
    isa: Optional[tuple[str, int, str]] = None
    chip_id: Optional[int] = None
    bdfid: Optional[int] = None
    compute_units: Optional[int] = None
    node: Optional[int] = None
    vram_kb: Optional[int] = None
    apu_memory: bool = False
    segment: Optional[str] = None
    first_line: Optional[tuple[int, str]] = None

    def is_gpu(self) -> bool:
        if self.device_type:
            return self.device_type.upper().startswith("GPU")
        if self.name and gfx_base(self.name[0]) and self.name[0].lower().startswith("gfx"):
            return True
        if self.uuid and self.uuid.upper().startswith("GPU-"):
            return True
        if self.isa:
            return True
        if self.name is None and self.marketing:
            return bool(_GPU_MARKETING.search(self.marketing)) and not _CPU_MARKETING.search(self.marketing)
        return False


@dataclass
class RocminfoResult:
    gpus: list[GpuInfo] = field(default_factory=list)
    cpu_names: list[str] = field(default_factory=list)
    rock_loaded: Optional[Fact[bool]] = None
    rock_version: Optional[Fact[str]] = None
    agents_seen: int = 0


class _Reader:
    """The agents of one rocminfo output, built line by line (an excerpt may lack the ``Agent N`` headers)."""

    def __init__(self) -> None:
        self.agents: list[_Agent] = []
        self.cur: Optional[_Agent] = None
        self.headers = False  # the output has "Agent N" lines: only they start an agent
        self.done_at: Optional[int] = None  # agents read when a headed output ended (``*** Done ***``)

    def new(self, n: int, line: str) -> _Agent:
        self.cur = _Agent(first_line=(n, line))
        self.agents.append(self.cur)
        return self.cur

    def name(self, value: str, n: int, line: str) -> None:
        """``Name:`` is either the agent's name or (``amdgcn-amd-amdhsa--gfx...``) one of its ISAs."""
        cur = self.cur
        if value.lower().startswith("amdgcn-") or "amdhsa" in value:
            if "generic" in value:
                return
            if cur is None or (not self.headers and cur.isa is not None):
                cur = self.new(n, line)
            if cur.isa is None:
                cur.isa = (value, n, line)
            return
        # (an excerpt without headers whose agent so far is a CPU's Marketing Name: a GPU's Name starts the next agent;
        # within one agent rocminfo prints Name before Marketing Name: warpfront/hipfire#353's grep of both)
        cpu_before = (not self.headers and cur is not None and cur.name is None and cur.marketing is not None
                      and bool(_CPU_MARKETING.search(cur.marketing)) and value.lower().startswith("gfx"))
        if cur is None or cur.name is not None or cpu_before:
            cur = self.new(n, line)
        cur.name = (value, n, line)

    def key(self, key: str, value: str, n: int, line: str) -> None:
        if key == "Name":
            self.name(value, n, line)
            return
        cur = self.cur
        if cur is None:
            if key not in ("Marketing Name", "Device Type", "Uuid"):
                return
            cur = self.new(n, line)
        if key == "Marketing Name" and cur.marketing is not None and not self.headers:
            cur = self.new(n, line)
        _set(cur, key, value)


def _set(a: _Agent, key: str, value: str) -> None:
    """One agent-level ``key: value`` into ``a``."""
    if key == "Marketing Name":
        a.marketing = value
    elif key == "Device Type":
        a.device_type = value
    elif key == "Uuid":
        a.uuid = value
    elif key in _INT_KEYS:
        setattr(a, _INT_KEYS[key], to_int(value))
    elif key == "Segment":
        a.segment = value.upper()
    elif key == "Size":
        if a.vram_kb is None and a.segment and "GLOBAL" in a.segment and "COARSE" in a.segment:
            size = to_int(value)
            if size is not None and "KB" in value.upper():
                a.vram_kb = size
    elif key == "Memory Properties":
        a.apu_memory = "APU" in value.upper()


_INT_KEYS = {"Chip ID": "chip_id", "BDFID": "bdfid", "Compute Unit": "compute_units", "Node": "node"}
# A literal of each line parse_rocminfo acts on: "ROCk module", the end of an output, _AGENT's "Agent" and each of
# _KEY's keys.
_NEEDLES = ("ROCk module", "*** Done ***", "Agent", "Name", "Device Type", "Uuid", "Chip ID", "BDFID", "Compute Unit",
            "Node", "Segment", "Size", "Memory Properties")


def parse_rocminfo(text: str, file: str = "cmd/rocminfo.txt") -> RocminfoResult:
    """GPUs (with ``gfx_by_source['rocminfo']``), CPU names and the ROCk (kfd driver) line."""
    res = RocminfoResult()
    reader = _Reader()
    for n, line in lines_holding(text, _NEEDLES):  # only such a line changes what is read
        if "ROCk module" in line:
            m = _ROCK.search(line)
            if m and res.rock_loaded is None:
                res.rock_loaded = Fact(m.group(2) is None, src(file, n, line))
                if m.group(1):
                    res.rock_version = Fact(m.group(1), src(file, n, line))
            continue
        if "*** Done ***" in line:
            if reader.headers and reader.done_at is None:
                reader.done_at = len(reader.agents)
            reader.headers, reader.cur = False, None  # what follows is another listing
            continue
        if _AGENT.match(line):
            reader.headers = True
            reader.new(n, line)
            continue
        m = _KEY.match(line)
        if m is not None:
            reader.key(m.group(1), m.group(2).strip(), n, line)
    agents = _without_relisting(reader)
    res.agents_seen = len(agents)
    for a in agents:
        if not a.is_gpu():
            label = a.marketing or (a.name[0] if a.name else "")
            is_cpu = a.device_type.upper().startswith("CPU") if a.device_type else bool(_CPU_MARKETING.search(label))
            if is_cpu and label:
                res.cpu_names.append(label)
            continue
        res.gpus.append(_to_gpu(a, file, len(res.gpus)))
    return res


def _gpu_key(a: _Agent) -> tuple[str, str]:
    return (a.name[0] if a.name else "", a.marketing or "")


def _without_relisting(reader: _Reader) -> list[_Agent]:
    """The agents, less a later listing that only repeats the GPUs of a complete rocminfo output before it: a
    ``rocminfo | grep Name`` under the full output names the same GPUs again, not more of them (ROCm/ROCm#5924:
    three GPUs listed, then grepped, had been counted as six)."""
    if reader.done_at is None or reader.done_at >= len(reader.agents):
        return reader.agents
    head, tail = reader.agents[:reader.done_at], reader.agents[reader.done_at:]
    seen = Counter(_gpu_key(a) for a in head if a.is_gpu())
    again = Counter(_gpu_key(a) for a in tail if a.is_gpu())
    if again and all(seen[k] >= n for k, n in again.items()):
        return head
    return reader.agents


def _to_gpu(a: _Agent, file: str, index: int) -> GpuInfo:
    gpu = GpuInfo(index=index)
    gfx = gfx_base(a.name[0]) if a.name and a.name[0].lower().startswith("gfx") else None
    where: Optional[Source] = None
    if gfx and a.name:
        where = src(file, a.name[1], a.name[2])
    elif a.isa:
        gfx = gfx_base(a.isa[0])
        where = src(file, a.isa[1], a.isa[2])
    if gfx:
        gpu.gfx_by_source["rocminfo"] = gfx
        gpu.gfx = gfx
    if where is None and a.first_line:
        where = src(file, a.first_line[0], a.first_line[1])
    if where is not None:
        gpu.sources.append(where)
    if a.marketing and a.marketing.lower() not in ("", "n/a"):
        gpu.name = a.marketing
    if a.uuid and a.uuid.upper().startswith("GPU-") and a.uuid.upper() != "GPU-XX":
        gpu.uuid = a.uuid
    if a.chip_id:
        gpu.pci_device_id = hex_id(a.chip_id)
        gpu.pci_vendor_id = "0x1002"
    if a.bdfid:
        gpu.pci_bus = bus_from_bdfid(a.bdfid)
    gpu.compute_units = a.compute_units or None
    gpu.kfd_node = a.node
    if a.vram_kb:
        gpu.vram_bytes = a.vram_kb * 1024
    if a.apu_memory:
        gpu.is_apu = True
        gpu.sources.append(Source(file, None, APU_MEMORY))
    elif looks_like_apu(a.marketing):
        gpu.is_apu = True  # a guess from the name: the matrix overrules it for a discrete-only gfx (pipeline.enrich)
    return gpu


APU_MEMORY = "Memory Properties: APU"
