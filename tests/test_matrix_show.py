"""`rocmdoctor matrix show`: every filter narrows every table, an 80-column terminal gets lines within 80
columns, the product asked for is named, no internal field names as text (issue 11, point 6), and nothing is
cut on the way (issue 17, point 3). Run through the real CLI: as an 80-column terminal (rich's TTY_COMPATIBLE
and COLUMNS, as tests/test_tables.py does) and piped, where the tables are whole and parsed cell by cell."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from rocmdoctor.cli.app import app

INTERNAL = ("hip_prefix", "kmd_compatible", "gfx_supported", "gfx_deprecated", "gfx_removed", "dkms_base",
            "triton_version", "triton_package", "local_label", "driver_window", "gfx_known")
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
PIPE = {"TTY_COMPATIBLE": "0", "COLUMNS": "80"}
TERMINAL_80 = {"TTY_COMPATIBLE": "1", "COLUMNS": "80", "TERM": "xterm"}
WHEELS = "PyTorch ROCm wheels (newest first)"


def show(*args: str, env: dict[str, str] = PIPE) -> str:
    r = CliRunner().invoke(app, ["matrix", "show", *args], env={**env, "NO_COLOR": "1"})
    assert r.exit_code == 0, r.output
    return ANSI.sub("", r.stdout)


def as_json(*args: str) -> dict:
    return json.loads(show(*args, "--json"))


def section(text: str, title: str) -> list[list[str]]:
    """The cells of each data row of one piped table (after its title, up to the blank line)."""
    lines = text.splitlines()
    if title not in lines:
        return []
    rows = []
    for line in lines[lines.index(title) + 1:]:
        if not line.strip():
            break
        if "│" in line:  # data rows; the header row is drawn with the heavy bar
            rows.append([c.strip() for c in line.split("│")[1:-1]])
    return rows


def test_piped_table_parsing_sees_every_row() -> None:
    """The parser the tests below rely on: each piped table has one parsed row per JSON row."""
    out, data = show(), as_json()
    assert [r[0] for r in section(out, "ROCm releases")] == [r["version"] for r in data["releases"]]
    assert [r[0] for r in section(out, "GPU targets")] == [g["gfx"] for g in data["gpus"]]
    assert [r[:3] for r in section(out, WHEELS)] == [[w["torch"], w["channel"], w["rocm"]] for w in data["torch"]]


@pytest.mark.parametrize("args", [(), ("-v",), ("--torch", "2.5"), ("--torch", "2.5", "-v"), ("--gpu", "RX 7900 XTX"),
                                  ("--rocm", "7.2", "-v"), ("--gpu", "gfx1151", "--torch", "2.14", "-v")],
                         ids=lambda a: " ".join(a) or "all")
def test_fits_80_columns_and_names_no_internal_field(args: tuple[str, ...]) -> None:
    out = show(*args, env=TERMINAL_80)
    assert max(len(line) for line in out.splitlines()) <= 80
    assert not [w for w in INTERNAL if w in out]
    # nothing is cut to fit: every cell of the piped tables is in the terminal's records (maybe wrapped)
    piped, flat = show(*args), re.sub(r"\s+", "", out)
    cells = [c for t in ("ROCm releases", "GPU targets", WHEELS) for row in section(piped, t) for c in row]
    assert cells and [c for c in cells if re.sub(r"\s+", "", c) not in flat] == []


def test_torch_filter_narrows_every_table() -> None:
    out = show("--torch", "2.5")
    rels = [r[0] for r in section(out, "ROCm releases")]
    assert rels and all(v.startswith(("6.1.", "6.2.")) for v in rels)  # 2.5 was built for rocm6.1 and rocm6.2
    wheels = [r[0] for r in section(out, WHEELS)]
    assert wheels and all(w.startswith("2.5.") for w in wheels)
    gpus = {r[0] for r in section(out, "GPU targets")}
    # the 2.5 wheels carry exactly these (builder release/2.4 list; uv#14086 get_arch_list of 2.5.1+rocm6.2)
    assert gpus == {"gfx900", "gfx906", "gfx908", "gfx90a", "gfx1030", "gfx1100", "gfx942"}
    data = as_json("--torch", "2.5")  # --json narrows the same way
    assert [r["version"] for r in data["releases"]] == rels and {g["gfx"] for g in data["gpus"]} == gpus


def test_rocm_filter_narrows_every_table() -> None:
    out = show("--rocm", "6.2")
    assert [r[0] for r in section(out, "ROCm releases")] == ["6.2.4"]
    wheels = section(out, WHEELS)
    assert wheels and all(r[2].startswith("6.2") for r in wheels)
    assert {r[0] for r in section(out, "GPU targets")} == {"gfx1100", "gfx1030", "gfx942", "gfx90a", "gfx908",
                                                            "gfx906"}


def test_product_asked_for_is_named() -> None:
    out = show("--gpu", "RX 7900 XTX")
    assert out.splitlines()[0] == "Radeon RX 7900 XTX is gfx1100."
    [row] = section(out, "GPU targets")
    assert row[0] == "gfx1100" and row[3].startswith("Radeon RX 7900 XTX")  # named first, not in a "(+N)"
    assert show("--gpu", "RX 7900 XTX", env=TERMINAL_80).splitlines()[0] == "Radeon RX 7900 XTX is gfx1100."
    out = show("--gpu", "0x744c")
    assert out.splitlines()[0].endswith("is gfx1100.")


def test_gpu_filter_keeps_only_wheels_and_releases_with_it() -> None:
    out = show("--gpu", "gfx1101")
    pytorch = [r[0] for r in section(out, WHEELS) if r[1] == "pytorch"]
    assert pytorch and min(tuple(int(x) for x in v.split(".")[:2]) for v in pytorch) == (2, 6)  # pytorch#141667
    rels = [r[0] for r in section(out, "ROCm releases")]
    assert rels and all(tuple(int(x) for x in v.split(".")[:2]) >= (6, 4) for v in rels)


def test_details_are_under_verbose_only() -> None:
    short, long = show("--torch", "2.6"), show("--torch", "2.6", "-v")
    assert "download.pytorch.org/whl/rocm6.1" not in short and "add -v" in short
    assert "index: https://download.pytorch.org/whl/rocm6.1" in long and "source:" in long


def test_verbose_details_are_whole_when_piped_and_folded_on_a_terminal() -> None:
    """-v detail lines are never cut: one line each on a pipe, folded within 80 columns on a terminal."""
    args = ("--gpu", "gfx1100", "-v")
    data = as_json(*args)
    expected = [f"  source: {w['source']}" for w in data["torch"]] + [f"  source: {r['source']}"
                                                                      for r in data["releases"]]
    assert max(map(len, expected)) > 80  # the check below is about lines a width limit would have cut
    piped = show(*args).splitlines()
    assert [line for line in expected if line not in piped] == []
    flat = re.sub(r"\s+", "", show(*args, env=TERMINAL_80))
    assert [line for line in expected if re.sub(r"\s+", "", line) not in flat] == []
