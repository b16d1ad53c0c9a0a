"""`rocmdoctor matrix show`: every filter narrows every table, 80 columns, the product asked for is named,
no internal field names as text (issue 11, point 6). Run through the real CLI."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from rocmdoctor.cli import app

INTERNAL = ("hip_prefix", "kmd_compatible", "gfx_supported", "gfx_deprecated", "gfx_removed", "dkms_base",
            "triton_version", "triton_package", "local_label", "driver_window", "gfx_known")


def show(*args: str) -> str:
    r = CliRunner().invoke(app, ["matrix", "show", *args], env={"COLUMNS": "80", "NO_COLOR": "1"})
    assert r.exit_code == 0, r.output
    return r.stdout


def section(text: str, title: str) -> list[str]:
    """The data rows of one table (after its title and header line, up to the blank line)."""
    lines = text.splitlines()
    if title not in lines:
        return []
    i = lines.index(title) + 2
    rows = []
    while i < len(lines) and lines[i].strip():
        rows.append(lines[i])
        i += 1
    return rows


@pytest.mark.parametrize("args", [(), ("-v",), ("--torch", "2.5"), ("--torch", "2.5", "-v"), ("--gpu", "RX 7900 XTX"),
                                  ("--rocm", "7.2", "-v"), ("--gpu", "gfx1151", "--torch", "2.14", "-v")],
                         ids=lambda a: " ".join(a) or "all")
def test_fits_80_columns_and_names_no_internal_field(args: tuple[str, ...]) -> None:
    out = show(*args)
    assert max(len(line) for line in out.splitlines()) <= 80
    assert not [w for w in INTERNAL if w in out]


def test_torch_filter_narrows_every_table() -> None:
    out = show("--torch", "2.5")
    rels = [r.split()[0] for r in section(out, "ROCm releases")]
    assert rels and all(v.startswith(("6.1.", "6.2.")) for v in rels)  # 2.5 was built for rocm6.1 and rocm6.2
    wheels = [r.split()[0] for r in section(out, "PyTorch ROCm wheels (newest first)")]
    assert wheels and all(w.startswith("2.5.") for w in wheels)
    gpus = {r.split()[0] for r in section(out, "GPU targets")}
    # the 2.5 wheels carry exactly these (builder release/2.4 list; uv#14086 get_arch_list of 2.5.1+rocm6.2)
    assert gpus == {"gfx900", "gfx906", "gfx908", "gfx90a", "gfx1030", "gfx1100", "gfx942"}


def test_rocm_filter_narrows_every_table() -> None:
    out = show("--rocm", "6.2")
    assert [r.split()[0] for r in section(out, "ROCm releases")] == ["6.2.4"]
    assert all(r.split()[2].startswith("6.2") for r in section(out, "PyTorch ROCm wheels (newest first)"))
    assert {r.split()[0] for r in section(out, "GPU targets")} == {"gfx1100", "gfx1030", "gfx942", "gfx90a",
                                                                    "gfx908", "gfx906"}


def test_product_asked_for_is_named() -> None:
    out = show("--gpu", "RX 7900 XTX")
    assert out.splitlines()[0] == "Radeon RX 7900 XTX is gfx1100."
    row = section(out, "GPU targets")[0]
    assert row.split()[0] == "gfx1100" and "Radeon RX 7900 XTX" in row and not re.search(r"\(\+\d+\)\s*$", row[:60])
    out = show("--gpu", "0x744c")
    assert out.splitlines()[0].endswith("is gfx1100.")


def test_gpu_filter_keeps_only_wheels_and_releases_with_it() -> None:
    out = show("--gpu", "gfx1101")
    wheels = section(out, "PyTorch ROCm wheels (newest first)")
    pytorch = [r.split()[0] for r in wheels if r.split()[1] == "pytorch"]
    assert pytorch and min(tuple(int(x) for x in v.split(".")[:2]) for v in pytorch) == (2, 6)  # pytorch#141667
    rels = [r.split()[0] for r in section(out, "ROCm releases")]
    assert rels and all(tuple(int(x) for x in v.split(".")[:2]) >= (6, 4) for v in rels)


def test_details_are_under_verbose_only() -> None:
    short, long = show("--torch", "2.6"), show("--torch", "2.6", "-v")
    assert "download.pytorch.org/whl/rocm6.1" not in short and "add -v" in short
    assert "index: https://download.pytorch.org/whl/rocm6.1" in long and "source:" in long
