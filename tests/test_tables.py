"""Terminal tables never lose a cell: piped output holds every cell a wide terminal shows, and a narrow terminal
gets readable records (no line wider than the terminal, every cell whole) instead of one-word columns.

Every table-printing command is covered: `matrix show` through the real CLI (piped, and as a terminal via
rich's TTY_COMPATIBLE/COLUMNS), the fleet audit's terminal report and the smoke per-GPU table through the
functions the commands call, on a non-terminal stream and on forced terminals of 1000 and 60 columns.
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from fleet_synth import synthetic_report

from rocmdoctor.fleet import report as report_mod
from rocmdoctor.report.tables import console

ROOT = Path(__file__).resolve().parent.parent
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
BARS = re.compile("[│┃]")


def cells(wide: str) -> list[str]:
    """The cells of every table row in a wide-terminal rendering."""
    out = []
    for line in wide.splitlines():
        if BARS.search(line):
            out += [c.strip() for c in BARS.split(line) if c.strip()]
    return out


def squeeze(text: str) -> str:
    return re.sub(r"\s+", "", text)


def assert_complete(wide: str, piped: str, narrow: str, narrow_width: int) -> None:
    wide, piped, narrow = ANSI.sub("", wide), ANSI.sub("", piped), ANSI.sub("", narrow)
    found = cells(wide)
    assert len(found) > 10, wide  # the wide rendering really is a table
    piped_lines = {line.rstrip() for line in piped.splitlines()}
    missing_rows = [line for line in wide.splitlines() if BARS.search(line) and line.rstrip() not in piped_lines]
    assert not missing_rows, missing_rows[:3]  # every row one line, exactly as a wide terminal shows it
    assert [c for c in found if c not in piped] == []
    flat = squeeze(narrow)
    assert [c for c in found if squeeze(c) not in flat] == []  # records: every cell whole (maybe wrapped)
    assert max(len(line) for line in narrow.splitlines()) <= narrow_width
    # records, not columns one word wide: a table drawn in the narrow terminal is one that fits as it is,
    # row for row what the wide terminal shows
    wide_lines = {line.rstrip() for line in wide.splitlines()}
    assert [line for line in narrow.splitlines() if BARS.search(line) and line.rstrip() not in wide_lines] == []


def rd(*args: str, env: dict) -> str:
    r = subprocess.run([sys.executable, "-m", "rocmdoctor", *args], capture_output=True, text=True, timeout=120,
                       env={**os.environ, "NO_COLOR": "1", **env}, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    return r.stdout


def terminal(width: int) -> dict:
    return {"TTY_COMPATIBLE": "1", "COLUMNS": str(width), "TERM": "xterm"}


@pytest.mark.parametrize("args", [[], ["--rocm", "6.2"], ["--gpu", "gfx90a"], ["--torch", "2.5"]])
def test_matrix_show_piped_keeps_every_cell(args):
    piped = rd("matrix", "show", *args, env={"TTY_COMPATIBLE": "0", "COLUMNS": "80"})
    wide = rd("matrix", "show", *args, env=terminal(1000))
    narrow = rd("matrix", "show", *args, env=terminal(60))
    assert_complete(wide, piped, narrow, 60)


def _render_fleet(con) -> None:
    report_mod.print_terminal(synthetic_report(300), con)


def _render_smoke(con) -> None:
    from test_html_reports import _smoke_report

    from rocmdoctor.cli.commands.smoke import _render

    _render(_smoke_report()[0], verbose=False, file=con.file)


def _forced(width: int):
    from rich.console import Console

    return Console(file=io.StringIO(), force_terminal=True, width=width, color_system=None, highlight=False)


@pytest.mark.parametrize("draw", [_render_fleet, _render_smoke], ids=["fleet-audit", "smoke"])
def test_command_tables_piped_keep_every_cell(draw, monkeypatch):
    piped = console(io.StringIO())  # what the commands build on a pipe
    assert not piped.is_terminal
    draw(piped)
    wide, narrow = _forced(1000), _forced(60)
    if draw is _render_smoke:  # it builds its console from the stream it is given: make that a terminal
        monkeypatch.setattr("rocmdoctor.report.tables.console", lambda file=None, stderr=False: {id(wide.file): wide,
                                                                                         id(narrow.file): narrow}
                            .get(id(file), piped))
    draw(wide)
    draw(narrow)
    # smoke's header line above its table and its findings below are check's flutter-style lines (soft-wrapped by
    # the terminal itself): the table is from its title to the blank line
    narrow_out = narrow.file.getvalue()
    tables = narrow_out[narrow_out.find("Per-GPU results") if draw is _render_smoke else 0:].split("\n\n")[0]
    assert_complete(wide.file.getvalue(), piped.file.getvalue(), tables, 60)


def test_fleet_configuration_table_keeps_its_gpu_column_on_a_pipe():
    """The bug the issue names: piped, the configuration table lost its GPU column at 80 columns."""
    con = console(io.StringIO())
    report_mod.print_terminal(synthetic_report(700), con)  # nodes 331 and 662 lost a GPU
    out = con.file.getvalue()
    header = next(line for line in out.splitlines() if "hosts" in line and "kernel" in line)
    assert "GPU set" in header
    assert "gfx90a x4" in out and "gfx90a x3" in out
