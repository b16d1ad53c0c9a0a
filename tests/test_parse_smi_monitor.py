"""``amd-smi monitor`` tables: ECC columns read as health facts, cut at the header's column ends.

The table is the real one in fixtures/field-healthy-amd-smi-monitor-2-gpus-idle-maintainer-answer-rocm-smi-loop-request
(ROCm/amdsmi, a maintainer's ``amd-smi monitor -w 1``); every variant below is derived from it and says how.
"""

from __future__ import annotations

from pathlib import Path

from rocmdoctor.parse.smi_monitor import MAX_GPUS, parse_amd_smi_monitor
from rocmdoctor.parse.sniff import sniff

ROOT = Path(__file__).resolve().parent.parent
REAL = (ROOT / "fixtures" / "field-healthy-amd-smi-monitor-2-gpus-idle-maintainer-answer-rocm-smi-loop-request"
        / "paste.txt").read_text(encoding="utf-8")
HEADER, ROW = [line for line in REAL.splitlines() if "TIMESTAMP" in line or line.startswith("1740686195")]


def _with_double_ecc(row: str, value: str) -> str:
    """The real row with its DOUBLE_ECC cell replaced, right-aligned as amd-smi prints it."""
    end = HEADER.index("DOUBLE_ECC") + len("DOUBLE_ECC")
    return row[:end - len(value)] + value + row[end:]


def test_the_real_table_is_sniffed_and_read() -> None:
    assert "amd-smi-monitor" in sniff(REAL)
    (h,) = parse_amd_smi_monitor(REAL, "paste.txt")
    assert h.gpu == "gpu 0"
    assert h.ecc_uncorrectable is not None and h.ecc_uncorrectable.value == 0
    assert h.ecc_correctable is not None and h.ecc_correctable.value == 0
    assert h.ecc_uncorrectable.source.line == 6 and "DOUBLE_ECC: 0" in h.ecc_uncorrectable.source.text


def test_a_cell_is_cut_at_its_column_not_split_on_spaces() -> None:
    """Derived: DOUBLE_ECC 3 in the real row; '8 W' and 'N/A Mb/s' hold spaces and must not shift the columns."""
    (h,) = parse_amd_smi_monitor(f"{HEADER}\n{_with_double_ecc(ROW, '3')}\n", "f")
    assert h.ecc_uncorrectable is not None and h.ecc_uncorrectable.value == 3
    assert h.ecc_correctable is not None and h.ecc_correctable.value == 0


def test_na_counters_stay_unknown_and_later_samples_win() -> None:
    """Derived: 'N/A' where a GPU has no RAS; a second sample (-w) of the same GPU replaces the first."""
    (h,) = parse_amd_smi_monitor(f"{HEADER}\n{_with_double_ecc(ROW, 'N/A')}\n", "f")
    assert h.ecc_uncorrectable is None
    (h,) = parse_amd_smi_monitor(f"{HEADER}\n{ROW}\n{_with_double_ecc(ROW, '7')}\n", "f")
    assert h.ecc_uncorrectable is not None and h.ecc_uncorrectable.value == 7


def test_rows_stop_at_the_first_line_that_is_not_a_row() -> None:
    """Derived: prose after the table, and a row with text past the last column, are not GPUs."""
    assert len(parse_amd_smi_monitor(f"{HEADER}\n{ROW}\nthen the next GPU showed 0\n", "f")) == 1
    assert parse_amd_smi_monitor(f"{HEADER}\n{ROW}   extra words\n", "f") == []
    assert parse_amd_smi_monitor(f"{HEADER}\n\n{ROW}\n", "f") == []


def test_gpus_are_bounded() -> None:
    """Derived: the real row renumbered past the GPU bound."""
    gpu_end = HEADER.index(" GPU ") + 4
    rows = [ROW[:gpu_end - 4] + f"{i:>4}" + ROW[gpu_end:] for i in range(MAX_GPUS + 5)]
    assert len(parse_amd_smi_monitor(HEADER + "\n" + "\n".join(rows) + "\n", "f")) == MAX_GPUS
