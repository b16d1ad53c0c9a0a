"""``rocm_bandwidth_test -v``: its device list and the "Data Path Validation" matrix.

The test copies a buffer between every pair of devices and checks what arrived; a ``FAIL`` cell means data was
corrupted on the way. Between the CPU and a GPU that is the PCIe link itself (a riser, an extender, a bad slot:
ROCm/legacy-rocm-build#559, where AMD answered "your PCIe link is still producing errors"), which nothing else in a
report shows.
Only the failed cells are kept, one fact per GPU, with the matrix row as evidence.
"""

from __future__ import annotations

import re

from rocmdoctor.model import Fact, GpuHealth, Source

_DEVICE = re.compile(r"^\s{0,16}Device:\s{0,4}(\d{1,3}),\s{1,8}([^,\n]{1,120})")
_TITLE = re.compile(r"^\s{0,16}Data Path Validation\s*$")
_HEADER = re.compile(r"^\s{0,16}D/D((?:\s{1,16}\d{1,3}){1,256})\s*$")
_ROW = re.compile(r"^\s{0,16}(\d{1,3})((?:\s{1,16}(?:PASS|FAIL|N/A|\d{1,3})){1,256})\s*$")
MAX_LINES = 600  # a matrix of up to 256 devices with blank lines between rows


def parse_data_path(text: str, file: str) -> list[GpuHealth]:
    """One :class:`GpuHealth` per GPU with a failed copy to or from it (``data_path`` says with which device).

    A pair is pinned on its non-CPU side: the devices the test lists first without a GPU's name are host CPUs;
    when both sides are GPUs, both get the fact."""
    lines = text.splitlines()
    names = {int(m.group(1)): m.group(2).strip() for m in map(_DEVICE.match, lines) if m}
    failed: dict[int, list[str]] = {}  # GPU -> "0->1" copies that failed
    first: dict[int, Source] = {}
    for start, line in enumerate(lines):
        if not _TITLE.match(line):
            continue
        columns: list[int] = []
        for offset, row in enumerate(lines[start + 1:start + 1 + MAX_LINES], start + 2):
            if not row.strip():
                continue
            head = _HEADER.match(row)
            if head and not columns:
                columns = [int(c) for c in head.group(1).split()]
                continue
            m = _ROW.match(row)
            if not m or not columns:
                break
            src = int(m.group(1))
            for dst, cell in zip(columns, m.group(2).split()):
                if cell != "FAIL":
                    continue
                for dev in (src, dst):
                    if _is_cpu(dev, names) and not (_is_cpu(src, names) and _is_cpu(dst, names)):
                        continue
                    failed.setdefault(dev, []).append(f"{src}->{dst}")
                    first.setdefault(dev, Source(file, offset, row.strip()))
    out = []
    for dev in sorted(failed):
        copies = list(dict.fromkeys(failed[dev]))[:8]
        out.append(GpuHealth(gpu=_label(dev, names), data_path=Fact(
            f"copies {', '.join(copies)} failed rocm_bandwidth_test's data path validation", first[dev])))
    return out


def _label(dev: int, names: dict[int, str]) -> str:
    return f"device {dev} ({names[dev]})" if dev in names else f"device {dev}"


def _is_cpu(dev: int, names: dict[int, str]) -> bool:
    """The test names a CPU agent by the processor's brand string."""
    name = names.get(dev, "")
    return bool(re.search(r"\b(?:CPU|Xeon|EPYC|Ryzen|Core\(TM\)|Threadripper)\b", name)) and "Radeon" not in name
