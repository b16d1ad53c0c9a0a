"""Fail closed at the top: a bug, a broken import of our own package included, is exit 3 with one line and a
bug-report hint; never a traceback (unless ROCMDOCTOR_DEBUG=1 or -v), never a report that says nothing failed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "fixtures" / "rx7900xtx-dkms-build-fails-kernel-6.5"

#: Runs the real console-script entry point with one module of ours made unimportable, as a broken install
#: (a file missing from the wheel, a syntax error after a bad merge) would leave it.
SHIM = """
import sys
BROKEN = sys.argv.pop(1)

class Broken:
    def find_spec(self, name, path=None, target=None):
        if name == BROKEN:
            raise ImportError(f"cannot import name 'x' from {name!r} (shim: a broken install)")
        return None

sys.meta_path.insert(0, Broken())
from rocmdoctor.cli.entry import main
sys.exit(main())
"""


def run(broken: str, *args: str, debug: bool = False) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "ROCMDOCTOR_DEBUG"}
    env["NO_COLOR"] = "1"
    if debug:
        env["ROCMDOCTOR_DEBUG"] = "1"
    return subprocess.run([sys.executable, "-c", SHIM, broken, *args], capture_output=True, text=True,
                          timeout=120, env=env, cwd=ROOT)


@pytest.mark.parametrize("broken", [
    "rocmdoctor.cli.app",          # the typer app itself, imported by the entry point
    "rocmdoctor.install.session",  # the entry point's first import (the early pip session)
    "rocmdoctor.report.render",    # deep inside `check`, after the command started
    "rocmdoctor.diagnose",
])
def test_a_broken_module_of_ours_is_exit_3_with_one_line(broken):
    proc = run(broken, "check", "--from", str(FIXTURE))
    assert proc.returncode == 3, (proc.returncode, proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert lines[0].startswith("rocmdoctor: internal error: ImportError:") and broken in lines[0]
    assert len(lines) == 2 and "issue tracker" in lines[1] and "rocmdoctor --version" in lines[1]
    assert "nothing failed" not in proc.stdout.lower()


def test_the_traceback_is_there_when_asked_for():
    for proc in (run("rocmdoctor.diagnose", "check", "--from", str(FIXTURE), debug=True),
                 run("rocmdoctor.diagnose", "check", "--from", str(FIXTURE), "-v")):
        assert proc.returncode == 3
        assert "Traceback (most recent call last)" in proc.stderr
        assert proc.stderr.strip().splitlines()[-2].startswith("rocmdoctor: internal error: ImportError:")


def test_the_shim_breaks_only_what_it_names():
    """The same run with an unrelated module named: the command works (exit 1: this fixture has problems)."""
    proc = run("rocmdoctor.not_a_module", "check", "--from", str(FIXTURE))
    assert proc.returncode == 1, proc.stderr[-2000:]
    assert "internal error" not in proc.stderr
