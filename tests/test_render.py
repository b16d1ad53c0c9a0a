"""Renderers: terminal boxes (and ASCII fallback), JSON shape, Markdown, exit codes."""

from __future__ import annotations

import io
import json

from rocmdoctor.model import Finding, Fix, GpuInfo, Host, Severity
from rocmdoctor.report import render

F = [
    Finding("gpu.override-needed", Severity.FAIL, "GPU 0 needs HSA_OVERRIDE_GFX_VERSION=10.3.0", "why it fails",
            ["cmd/rocminfo.txt:76: Name: gfx1030"], Fix("Set it:", ["export HSA_OVERRIDE_GFX_VERSION=10.3.0"], "https://x")),
    Finding("gpu.detected", Severity.OK, "1 AMD GPU(s)"),
    Finding("env.ld-library-path", Severity.WARN, "LD_LIBRARY_PATH shadows", "detail"),
    Finding("os.not-supported", Severity.SKIP, "OS release not captured"),
]
HOST = Host(hostname="box", gpus=[GpuInfo(index=0, name="AMD Radeon RX 6700 XT", gfx="gfx1031")])


class Utf8(io.StringIO):
    encoding = "utf-8"


class Latin1(io.StringIO):
    encoding = "latin-1"


def test_terminal_groups_areas_and_shows_fix_commands():
    out = Utf8()
    render.render_terminal(HOST, F, file=out)
    text = out.getvalue()
    assert "[✗] GPUs" in text and "[!] Environment" in text
    assert "$ export HSA_OVERRIDE_GFX_VERSION=10.3.0" in text
    assert "gpu.override-needed" in text
    assert "[-] Operating system — OS release not captured" in text  # one status line per area
    assert "1 AMD GPU(s)" not in text  # passing checks inside a failing area only under -v
    assert text.strip().splitlines()[-1].startswith("! rocmdoctor found 2 problems")


def test_verbose_shows_passing_checks_and_evidence():
    out = Utf8()
    render.render_terminal(HOST, F, verbose=True, file=out)
    assert "evidence: cmd/rocminfo.txt:76" in out.getvalue()
    assert "OS release not captured" in out.getvalue()


def test_ascii_fallback_on_non_utf8_stream():
    out = Latin1()
    render.render_terminal(HOST, F, file=out)
    assert "[x] GPUs" in out.getvalue() and "✗" not in out.getvalue()


def test_no_issues_line():
    out = Utf8()
    render.render_terminal(HOST, [F[1]], file=out)
    assert out.getvalue().strip().splitlines()[-1].startswith("• No issues found!")


def test_json_and_exit_codes():
    doc = json.loads(render.to_json(HOST, F))
    assert doc["schema"] == "rocmdoctor-report/1"
    assert doc["summary"]["fail"] == 1 and doc["summary"]["warn"] == 1
    assert doc["host"]["gpus"][0]["gfx"] == "gfx1031"
    assert render.exit_code(F) == 1
    assert render.exit_code(F[1:]) == 0
    assert render.exit_code(F[1:], strict=True) == 1
    assert render.exit_code([Finding("x.y", Severity.ERROR, "crashed")]) == 1


def test_markdown_escapes_pipes_and_lists_fixes():
    md = render.to_markdown(HOST, [Finding("a.b", Severity.FAIL, "x | y", "d", [], Fix("f", ["cmd"]))])
    assert "x \\| y" in md and "```sh\ncmd\n```" in md
