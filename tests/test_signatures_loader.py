"""One typed loader for the signature table (issue 15: two loaders had drifted apart).

``check`` (judge.logs), the scanner (parse.logs) and smoke read the same frozen ``Signature`` rows, parsed
once per process; a row that cannot be used is reported when the table is loaded and never raised.
"""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from rocmdoctor.model import Fix, Host, LogMatch, Severity, Source
from rocmdoctor.parse import logs as parse_logs
from rocmdoctor.parse import signatures as sigs
from rocmdoctor.parse.signatures import LOAD_ERRORS, Signature, by_id, load_signatures, signature

ROOT = Path(__file__).resolve().parent.parent


def test_rows_are_typed_and_frozen() -> None:
    table = load_signatures()
    assert len(table) >= 90
    for s in table:
        assert isinstance(s, Signature) and isinstance(s.pattern, re.Pattern)
        assert isinstance(s.severity, Severity) and s.severity in (Severity.INFO, Severity.WARN, Severity.FAIL)
        assert isinstance(s.commands, tuple) and all(isinstance(c, str) for c in s.commands)
        assert s.groups == tuple(s.pattern.groupindex)
    with pytest.raises(dataclasses.FrozenInstanceError):
        table[0].title = "x"  # type: ignore[misc]
    with pytest.raises(TypeError):
        by_id()["x"] = table[0]  # type: ignore[index]


def test_the_old_names_are_the_one_loader() -> None:
    """parse.logs keeps its public names (smoke and the tests import them from there)."""
    assert parse_logs.load_signatures is load_signatures
    assert parse_logs.signature is signature
    assert parse_logs.Signature is Signature
    assert parse_logs.LOAD_ERRORS is LOAD_ERRORS
    assert parse_logs.SIGNATURES_FILE == sigs.SIGNATURES_FILE


def test_the_table_is_read_once_per_process() -> None:
    from rocmdoctor.judge import logs as judge_logs

    load_signatures()
    before = sigs._load.cache_info().misses
    assert load_signatures() is load_signatures(None) is load_signatures(str(sigs.SIGNATURES_FILE))
    assert judge_logs.signatures() is by_id()
    assert signature("dkms-build-error") is by_id()["dkms-build-error"]
    assert sigs._load.cache_info().misses == before


def test_broken_rows_are_reported_when_the_table_is_loaded(tmp_path: Path) -> None:
    table = tmp_path / "signatures.toml"
    table.write_text('''
[[signature]]
id = "good"
finding = "log.good"
pattern = 'Good (?P<what>thing)'
title = "A good {what}"
severity = "WARN"
fix = "Fix the {what}."
commands = ["echo {what}", "sudo modprobe amdgpu"]

[[signature]]
id = "bad-regex"
finding = "log.bad"
pattern = '(unclosed'

[[signature]]
id = "no-finding"
pattern = 'x'

[[signature]]
id = "bad-severity"
finding = "log.bad"
pattern = 'y'
severity = "catastrophic"

[[signature]]
id = "bad-commands"
finding = "log.bad"
pattern = 'z'
commands = "rm -rf /"
''', encoding="utf-8")
    del LOAD_ERRORS[:]
    loaded = load_signatures(str(table))
    assert [s.id for s in loaded] == ["good"]
    assert len(LOAD_ERRORS) == 4
    for sig_id, why in (("bad-regex", "does not compile"), ("no-finding", "no finding"),
                        ("bad-severity", "unknown severity"), ("bad-commands", "not a list")):
        assert any(sig_id in e and why in e for e in LOAD_ERRORS), (sig_id, LOAD_ERRORS)
    good = loaded[0]
    assert good.severity is Severity.WARN and good.groups == ("what",)
    assert good.fix_for({"what": "cable"}) == Fix("Fix the cable.", ["echo cable", "sudo modprobe amdgpu"], None)
    assert good.fix_for({"what": "cable"}, wsl=True).commands == ["echo cable"]  # no modprobe on WSL
    assert good.filled({}).title == "A good {what}"  # a group the match lacks stays as written
    del LOAD_ERRORS[:]


def test_an_unreadable_table_is_an_error_not_an_empty_success(tmp_path: Path) -> None:
    del LOAD_ERRORS[:]
    assert load_signatures(str(tmp_path / "missing.toml")) == ()
    (tmp_path / "bad.toml").write_text("[[signature]\n", encoding="utf-8")
    assert load_signatures(str(tmp_path / "bad.toml")) == ()
    assert len(LOAD_ERRORS) == 2 and all("unreadable" in e for e in LOAD_ERRORS)
    del LOAD_ERRORS[:]


def test_check_shows_the_loaders_title_detail_and_fix() -> None:
    """judge.logs builds its finding from the same row: title and detail filled, fix from Signature.fix_for."""
    from rocmdoctor.judge.logs import log_matches
    from rocmdoctor.matrix import load

    sig = signature("dkms-build-error")
    assert sig is not None
    line = "Error! Bad return status for module build on kernel: 6.5.0-17-generic (x86_64)"
    groups = {"kernel": "6.5.0-17-generic"}
    host = Host()
    host.logs = [LogMatch(sig.id, sig.finding, line, groups, Source("install.log", n, line)) for n in (3, 9)]
    (f,) = log_matches(host, load(), sig.finding)
    assert f.title == sig.filled(groups).title + " (2 times)"
    assert f.detail == sig.filled(groups).explanation
    assert f.fix == sig.fix_for(groups)
    assert f.severity is sig.severity
    assert f.evidence == ["install.log:3: " + line, "install.log:9: " + line]


def test_check_json_carries_the_tables_fix_text(tmp_path: Path) -> None:
    paste = tmp_path / "paste.txt"
    paste.write_text("Error! Bad return status for module build on kernel: 6.5.0-17-generic (x86_64)\n",
                     encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "rocmdoctor", "check", "--from", str(paste), "--json"],
                         capture_output=True, text=True, cwd=ROOT, timeout=120)
    doc = json.loads(out.stdout)
    sig = signature("dkms-build-error")
    assert sig is not None
    found = [f for f in doc["findings"] if f["id"] == sig.finding]
    fix = sig.fix_for({"kernel": "6.5.0-17-generic"})
    assert fix is not None and fix.explanation == sig.fix
    assert found and found[0]["fix"]["explanation"] == fix.explanation
    assert found[0]["fix"]["commands"] == fix.commands


def test_the_shipped_table_compiles_lazily_only_when_its_needles_are_cached(tmp_path, monkeypatch) -> None:
    """With a trusted needle cache (written when every pattern compiled) the shipped patterns are compiled on
    first use; without one every row is compiled at load, so a broken pattern is still reported, never raised."""
    import rocmdoctor.parse.signatures as sg

    monkeypatch.setenv("ROCMDOCTOR_CACHE_DIR", str(tmp_path))
    sg._load.cache_clear()
    first = sg.load_signatures()  # no cache yet: compiled at load, needles cached
    assert all("pattern" in s.__dict__ for s in first)
    sg._load.cache_clear()
    again = sg.load_signatures()
    assert [s.id for s in again] == [s.id for s in first]
    assert not any("pattern" in s.__dict__ for s in again)  # nothing compiled yet
    assert again[0].pattern.pattern == first[0].pattern.pattern
    sg._load.cache_clear()


def test_every_shipped_text_formats_with_and_without_its_groups() -> None:
    """A '{...}' that is not a placeholder ('${ROCM_PATH:-/opt/rocm}') made the check crash at run time."""
    for sig in load_signatures():
        for groups in ({}, {g: "x" for g in sig.groups}):
            sig.filled(groups)
            sig.fix_for(groups)
            sig.fix_for(groups, wsl=True)


def test_unless_line_drops_a_match_whose_line_holds_it_and_must_compile(tmp_path: Path) -> None:
    """``unless_line`` is checked per match after the pattern (which keeps its literal start): a match on a line
    holding it is no match; a row whose ``unless_line`` does not compile is reported, not loaded."""
    from rocmdoctor.parse.logs import scan

    table = tmp_path / "signatures.toml"
    table.write_text('''
[[signature]]
id = "extra"
finding = "log.extra"
pattern = '--extra-index-url'
unless_line = '\\btorch==\\d[\\w.]{0,30}\\+rocm'

[[signature]]
id = "bad-unless"
finding = "log.bad"
pattern = 'x'
unless_line = '(unclosed'
''', encoding="utf-8")
    del LOAD_ERRORS[:]
    loaded = load_signatures(str(table))
    assert [s.id for s in loaded] == ["extra"]
    assert any("bad-unless" in e and "does not compile" in e for e in LOAD_ERRORS), LOAD_ERRORS
    del LOAD_ERRORS[:]
    text = ("pip install torch==2.5.1+rocm6.2 --extra-index-url https://download.pytorch.org/whl/rocm6.2\n"
            "pip install torch --extra-index-url https://download.pytorch.org/whl/rocm6.2\n")
    assert [m.source.line for m in scan(text, "p.txt", loaded, prefilter=False) if m.source] == [2]
