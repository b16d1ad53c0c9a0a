"""Every fixture through the real CLI (`rocmdoctor check --from fixtures/NAME --json`), against its expected.json."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = sorted(p for p in (ROOT / "fixtures").iterdir()  # field-* pastes: tests/test_field_fixtures.py
                  if (p / "expected.json").is_file() and not p.name.startswith("field-")) \
    if (ROOT / "fixtures").is_dir() else []
PROBLEM = {"warn", "fail", "error"}


def run_cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    e = dict(os.environ, NO_COLOR="1", COLUMNS="120")
    e.update(env or {})
    return subprocess.run([sys.executable, "-m", "rocmdoctor", *args], capture_output=True, text=True,
                          timeout=60, env=e, cwd=ROOT)


def test_there_are_at_least_12_fixtures():
    assert len(FIXTURES) >= 12, [p.name for p in FIXTURES]


@pytest.mark.parametrize("fixture", FIXTURES, ids=[p.name for p in FIXTURES])
def test_fixture_findings_match_expected(fixture: Path):
    expected = json.loads((fixture / "expected.json").read_text())
    proc = run_cli("check", "--from", str(fixture), "--json")
    assert proc.returncode in (0, 1), proc.stderr
    report = json.loads(proc.stdout)
    assert report["schema"] == "rocmdoctor-report/1"
    got = {f["id"]: f["severity"] for f in report["findings"] if f["severity"] in PROBLEM}
    got_all: dict[str, set] = {}
    for f in report["findings"]:
        got_all.setdefault(f["id"], set()).add(f["severity"])
    want = expected.get("findings", {})
    assert "error" not in got.values(), [f for f in report["findings"] if f["severity"] == "error"]
    missing = {k: v for k, v in want.items() if v not in got_all.get(k, set())}
    unexpected = {k: v for k, v in got.items() if want.get(k) != v and v not in {want.get(k)}}
    assert not missing and not unexpected, f"missing={missing} unexpected={unexpected}"
    for fid in expected.get("absent", []):
        assert not (got_all.get(fid, set()) - {"ok", "skip"}), f"{fid} should be absent: {got_all.get(fid)}"
    assert proc.returncode == expected.get("exit", 1 if "fail" in got.values() else 0)


def test_text_output_is_grouped_with_boxes_and_fixes():
    fx = next((p for p in FIXTURES if "1031" in p.name), None)
    if fx is None:
        pytest.skip("no gfx1031 fixture")
    proc = run_cli("check", "--from", str(fx))
    assert "[✗]" in proc.stdout or "[!]" in proc.stdout or "[✓]" in proc.stdout
    assert "\x1b[" not in proc.stdout  # NO_COLOR honoured
    assert proc.stdout.strip().splitlines()[-1].startswith(("!", "•"))


def test_markdown_output():
    proc = run_cli("check", "--from", str(FIXTURES[0]), "--format", "markdown")
    assert proc.stdout.startswith("## rocmdoctor")
    assert "| status | check | finding |" in proc.stdout


def test_unknown_check_id_is_a_usage_error():
    proc = run_cli("check", "--from", str(FIXTURES[0]), "--select", "gpu.nonsense")
    assert proc.returncode == 2
    assert "unknown check id" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_missing_source_is_a_usage_error():
    proc = run_cli("check", "--from", "/nonexistent/bundle")
    assert proc.returncode == 2
    assert "no such file" in proc.stderr and "Traceback" not in proc.stderr


def test_garbage_file_is_a_clear_error(tmp_path):
    junk = tmp_path / "junk.tar.gz"
    junk.write_bytes(b"\x1f\x8b\x08garbage" * 10)
    proc = run_cli("check", "--from", str(junk))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr and proc.stderr.strip()


def test_list_checks_names_every_public_id():
    proc = run_cli("check", "--list-checks")
    assert proc.returncode == 0
    for fid in ("gpu.override-needed", "torch.arch-missing", "log.no-binary-for-gpu", "perm.kfd-access"):
        assert fid in proc.stdout


def test_strict_makes_warnings_fail():
    warn_only = [p for p in FIXTURES if set(json.loads((p / "expected.json").read_text())
                                             .get("findings", {}).values()) == {"warn"}]
    if not warn_only:
        pytest.skip("no warn-only fixture")
    assert run_cli("check", "--from", str(warn_only[0]), "--json").returncode == 0
    assert run_cli("check", "--from", str(warn_only[0]), "--json", "--strict").returncode == 1


def test_json_report_shape_is_pinned():
    proc = run_cli("check", "--from", str(FIXTURES[0]), "--json")
    report = json.loads(proc.stdout)
    assert set(report) == {"schema", "tool", "host", "findings", "summary"}
    assert set(report["host"]) >= {"hostname", "os", "kernel", "gpus", "rocm", "python", "torch", "captured"}
    for f in report["findings"]:
        assert set(f) == {"id", "severity", "title", "detail", "evidence", "fix"}
        assert f["severity"] in {"ok", "info", "skip", "warn", "fail", "error"}
        if f["fix"] is not None:
            assert set(f["fix"]) == {"explanation", "commands", "url"}
