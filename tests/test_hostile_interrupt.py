"""Interrupted installs (issue 13), with real pip into a real venv from an index on 127.0.0.1.

SIGKILL of rocmdoctor while pip runs: pip dies with it (it no longer finishes an unverified install), and the
next run finds the backup and journal it left beside site-packages and its work directory, rolls the
environment back exactly and says so. A second install into the same environment is refused while one runs.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from install_helpers import serve_index, wait
from test_install_real import CLEAN_ENV, freeze, plan_for, template, venv, world  # noqa: F401 - fixtures

from rocmdoctor.errors import OperationFailed
from rocmdoctor.install.installer import install
from rocmdoctor.install.lock import lock
from rocmdoctor.install.session import probe
from rocmdoctor.install.snapshot import Snapshot


def _children(pid: int) -> list[int]:
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if int((d / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    out.append(int(d.name))
            except (OSError, ValueError, IndexError):
                continue
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.parametrize("session", [False, True])
def test_sigkill_mid_install_kills_pip_and_the_next_run_rolls_back(world, template, tmp_path, session):  # noqa: F811
    url, stop = serve_index([world["rocm_dir"]], delays={"torchaudio-2.5.1": 60})
    try:
        py = venv(template, "old", tmp_path)
        before = freeze(py)
        site = Path(probe(py).purelib)
        torch_init = site / "torch" / "__init__.py"
        original = torch_init.read_bytes()
        plan_file = tmp_path / "plan.json"
        plan_file.write_text(json.dumps(plan_for(url).to_dict()))
        call = ("s = PipSession(sys.argv[2], True); t = s.target(); install(plan, t, 'pip', session=s)"
                if session else "install(plan, probe(sys.argv[2]), 'pip')")
        code = ("import json, sys\nfrom rocmdoctor.install.installer import install\n"
                "from rocmdoctor.install.session import PipSession, probe\n"
                "from rocmdoctor.install.plan import Plan\n"
                "plan = Plan.from_dict(json.load(open(sys.argv[1])))\n" + call + "\n")
        proc = subprocess.Popen([sys.executable, "-c", code, str(plan_file), py], env=CLEAN_ENV)
        assert stop.wait_for("torchaudio-2.5.1", timeout=60)
        kids = [k for k in _children(proc.pid) if _alive(k)]
        assert kids, "pip is not running"
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        assert wait(lambda: not any(_alive(k) for k in kids), timeout=15), "pip outlived rocmdoctor"
        left = list(site.parent.glob(".rocmdoctor-rollback-*"))
        assert len(left) == 1 and (left[0] / "journal.json").is_file()
        work = [p for p in Path(tempfile.gettempdir()).glob("rocmdoctor-install-*")
                if (p / "pid").is_file() and (p / "pid").read_text().strip() == str(proc.pid)]
        assert work
        # what pip leaves when it dies while unpacking: a file replaced (pip writes a new file, never into the old
        # one, whose backup is a hard link), one removed, a new one half-written
        partial = torch_init.with_name("__init__.py.partial")
        partial.write_text("# half-written by an installer that was killed\n")
        os.replace(partial, torch_init)
        (site / "torch" / "version.py").unlink()
        (site / "torch_new_partial.py").write_text("x = 1\n")
        # the next run: under the lock, before its own snapshot, it rolls the environment back and says so
        snap = Snapshot.take(probe(py))
        try:
            notes = snap.recovered
        finally:
            snap.discard()
        assert any("was found and rolled back" in n for n in notes), notes
        assert any(str(work[0]) in n for n in notes), notes
        assert torch_init.read_bytes() == original and (site / "torch" / "version.py").is_file()
        assert not (site / "torch_new_partial.py").exists()
        assert freeze(py) == before
        assert not list(site.parent.glob(".rocmdoctor-rollback-*")) and not work[0].exists()
    finally:
        stop()


def test_a_second_install_into_the_same_environment_is_refused(world, template, tmp_path):  # noqa: F811
    py = venv(template, "bare", tmp_path)
    target = probe(py)
    held = lock(str(Path(target.purelib).parent))
    try:
        with pytest.raises(OperationFailed, match="another rocmdoctor install into this environment is running"):
            install(plan_for(world["rocm"]), target, "pip")
    finally:
        held.release()
    result = install(plan_for(world["rocm"]), target, "pip")
    assert result.ok, result.problems
    assert wait(lambda: not list(Path(target.purelib).parent.glob(".rocmdoctor-rollback-*")), timeout=10)
    time.sleep(0)
    assert os.path.exists(Path(target.purelib).parent / ".rocmdoctor-install.lock")
