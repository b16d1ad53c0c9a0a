"""One vocabulary across commands: --json is JSON on stdout, --format where there are formats, -o writes a
file, no short flag with two meanings, -q/--quiet, completion, fixture names in every --from, old spellings
kept for one release with a warning on stderr, and plain wording (no doubled suggestion, no 'area(s)')."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer.main

from rocmdoctor.cli.app import app, main
from rocmdoctor.cli.commands.fleet import legacy_argv

REPO = Path(__file__).resolve().parent.parent
FIXTURE = "derived-cuda-torch-on-rx7900xtx"


def _commands(cmd=None, path=()):  # -> Iterator[tuple[tuple[str, ...], click.Command]]
    cmd = cmd or typer.main.get_command(app)
    sub = getattr(cmd, "commands", None)
    if sub is None:
        yield path, cmd
        return
    for name, child in sub.items():
        yield from _commands(child, (*path, name))


def _options(cmd):
    return [p for p in cmd.params if getattr(p, "opts", None) and p.param_type_name == "option"]


def test_no_short_flag_has_two_meanings():
    meaning: dict[str, set[str]] = {}
    for _, cmd in _commands():
        for p in _options(cmd):
            if p.hidden:
                continue
            longs = sorted(o for o in p.opts if o.startswith("--"))
            for short in (o for o in p.opts if not o.startswith("--")):
                meaning.setdefault(short, set()).add(longs[0] if longs else "?")
    doubled = {s: m for s, m in meaning.items() if len(m) > 1}
    assert not doubled, doubled
    assert meaning["-o"] == {"--output"} and meaning["-q"] == {"--quiet"} and meaning["-f"] == {"--format"}


def test_json_is_a_flag_and_comes_with_format_everywhere():
    seen = []
    for path, cmd in _commands():
        opts = {o: p for p in _options(cmd) for o in p.opts}
        if "--json" not in opts:
            continue
        seen.append(" ".join(path))
        assert opts["--json"].is_flag, path  # JSON on stdout, never a file name
        assert "--format" in opts, path
        assert "json" in [c.value if hasattr(c, "value") else c for c in opts["--format"].type.choices], path
    assert {"check", "smoke", "fleet audit", "install torch", "matrix show", "container lint"} <= set(seen)


def test_quiet_and_completion_and_version():
    for path, cmd in _commands():
        if path in (("check",), ("smoke",), ("fleet", "audit")):
            assert any("-q" in p.opts and "--quiet" in p.opts for p in _options(cmd)), path
    root = typer.main.get_command(app)
    names = {o for p in root.params for o in getattr(p, "opts", [])}
    assert {"--install-completion", "--show-completion", "--version"} <= names
    r = subprocess.run([sys.executable, "-m", "rocmdoctor", "--show-completion", "bash"], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0 and "complete -o default -F _rocmdoctor_completion rocmdoctor" in r.stdout
    env = {**os.environ, "_ROCMDOCTOR_COMPLETE": "complete_bash", "COMP_WORDS": "rocmdoctor check --fo",
           "COMP_CWORD": "2"}
    r = subprocess.run([sys.executable, "-m", "rocmdoctor"], capture_output=True, text=True, env=env, timeout=60)
    assert r.stdout.split() == ["--format"]


@pytest.mark.parametrize(("argv", "expected", "warned"), [
    (["fleet", "audit", "n1", "--json", "out/fleet.json"], ["fleet", "audit", "n1", "-o", "out/fleet.json",
                                                              "--format", "json"], "--json out/fleet.json"),
    (["fleet", "audit", "--json=a.json", "n1"], ["fleet", "audit", "-o", "a.json", "--format", "json", "n1"],
     "--json=a.json"),
    (["fleet", "audit", "-f", "hosts.txt"], ["fleet", "audit", "--hostfile", "hosts.txt"], "-f hosts.txt"),
    (["fleet", "audit", "--json", "node[1-4]"], ["fleet", "audit", "--json", "node[1-4]"], None),  # a host
    (["fleet", "audit", "n1", "--json"], ["fleet", "audit", "n1", "--json"], None),
    (["check", "-f", "json"], ["check", "-f", "json"], None),  # -f is --format outside fleet audit
    (["fleet", "audit", "--", "-f", "x"], ["fleet", "audit", "--", "-f", "x"], None),
])
def test_old_fleet_spellings_are_rewritten_with_a_warning(capsys, argv, expected, warned):
    assert legacy_argv(argv) == expected
    err = capsys.readouterr().err
    if warned:
        assert f"warning: {warned} is deprecated" in err and "next release" in err
    else:
        assert err == ""


def test_old_fleet_json_file_spelling_still_reaches_the_output_check(tmp_path):
    r = subprocess.run([sys.executable, "-m", "rocmdoctor", "fleet", "audit", "h1", "--json", str(tmp_path)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    assert "is deprecated" in r.stderr and f"-o {tmp_path}: is a directory" in r.stderr


@pytest.mark.parametrize("argv", [
    ["install", "torch", "--from", FIXTURE, "--python-version", "3.11", "--json"],
    ["install", "torch", "--from", f"fixtures/{FIXTURE}", "--python-version", "3.11", "--json"],
    ["check", "--from", FIXTURE, "--json"],
    ["container", "run-args", "img:1", "--from", FIXTURE, "--json"],
])
def test_every_from_takes_a_bundled_fixture_name(tmp_path, argv):
    r = subprocess.run([sys.executable, "-m", "rocmdoctor", *argv], capture_output=True, text=True, cwd=tmp_path,
                       timeout=120)
    assert r.returncode in (0, 1), r.stderr
    assert json.loads(r.stdout)["schema"].startswith("rocmdoctor-")
    r = subprocess.run([sys.executable, "-m", "rocmdoctor", "fleet", "node-check", "--from", FIXTURE],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert r.returncode == 1 and r.stdout.startswith("rocmdoctor: fail ")


def test_suggestion_is_given_once(capsys):
    assert main(["chek"]) == 2
    err = capsys.readouterr().err
    assert err.count("Did you mean 'check'?") == 1


def test_quiet_check_prints_only_the_problems(capsys):
    fixture = str(REPO / "fixtures" / "rx7900xtx-dkms-build-fails-kernel-6.5")
    assert main(["check", "--from", fixture]) == 1
    loud = capsys.readouterr().out
    assert main(["check", "--from", fixture, "-q"]) == 1
    quiet = capsys.readouterr().out
    assert "rocmdoctor 0." in loud and "rocmdoctor 0." not in quiet  # no header
    assert "[-] Python" in loud and "Python" not in quiet  # no area without a problem
    assert "driver.dkms-breakage" in quiet
    assert quiet.rstrip().endswith("found 1 problem (4 findings: 4 failed).")


def test_fleet_report_json_on_stdout_or_in_a_file_html_by_format(capsys, tmp_path):
    from test_fleet_aggregate import _audit

    from rocmdoctor.cli.commands.fleet import _emit
    from rocmdoctor.fleet.aggregate import aggregate

    report = aggregate([_audit("n1"), _audit("n2")])
    _emit(report, None, None, None, as_json=True)
    out = capsys.readouterr().out
    assert json.loads(out)["schema"] == "rocmdoctor-fleet/1" and "Fleet audit" not in out  # JSON only
    _emit(report, tmp_path / "f.json", tmp_path / "f.html", None, quiet=True)
    assert capsys.readouterr().out == ""  # -q: no table
    assert json.loads((tmp_path / "f.json").read_text())["hosts"][0]["name"] == "n1"
    assert (tmp_path / "f.html").read_text().lstrip().lower().startswith("<!doctype html")
    _emit(report, None, None, None)
    assert "Fleet audit: 2 hosts" in capsys.readouterr().out


def test_fleet_output_html_and_html_option_are_one_report(tmp_path):
    r = subprocess.run([sys.executable, "-m", "rocmdoctor", "fleet", "audit", "h1", "-o", str(tmp_path / "a.html"),
                        "--format", "html", "--html", str(tmp_path / "b.html")], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 2 and "give the HTML report once" in r.stderr


def test_a_command_line_registers_only_the_command_it_names():
    """`main` builds the app with only the invoked command (start-up: typer builds a click command per registered
    function); the table it uses must name every top-level command, each built alone the same as in the whole."""
    from rocmdoctor.cli.app import COMMAND_MODULES, _app_for, build_app

    whole = typer.main.get_command(app)
    assert sorted(whole.commands) == sorted(COMMAND_MODULES)  # type: ignore[attr-defined]
    for name in COMMAND_MODULES:
        alone = typer.main.get_command(_app_for([name, "--help"]))
        assert list(alone.commands) == [name]  # type: ignore[attr-defined]
        assert [p.name for p in alone.commands[name].params] == \
            [p.name for p in whole.commands[name].params]  # type: ignore[attr-defined]
    for args in ([], ["--help"], ["chek"], ["--version"]):
        assert sorted(typer.main.get_command(_app_for(args)).commands) == sorted(COMMAND_MODULES)  # type: ignore
    assert not typer.main.get_command(build_app([])).commands  # type: ignore[attr-defined]
