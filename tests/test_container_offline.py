"""`container dockerfile` without surprises: the Python comes from the host or the bundle, and with no index
reachable the error names the three ways forward; --no-hashes writes version pins that say they are not
hash-locked (and still lint clean with our rules and the real hadolint)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_container import sample_plan

from rocmdoctor.container.lint import lint
from rocmdoctor.container.render_docker import render_context
from rocmdoctor.container.spec import build_spec

REPO = Path(__file__).resolve().parent.parent
CLOSED = "http://127.0.0.1:9/simple"  # the discard port: nothing listens, the connection is refused at once
HERE = f"{sys.version_info[0]}.{sys.version_info[1]}"


def _dockerfile(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rocmdoctor", "container", "dockerfile", *args],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300,
                          env={**os.environ, "NO_COLOR": "1"})


def test_no_index_reachable_names_the_three_ways_forward(tmp_path):
    r = _dockerfile(tmp_path, "--index-url", CLOSED, "-o", "out/")
    assert r.returncode == 1, r.stderr
    assert f"Python {HERE} in the image (this host's" in r.stderr  # not "the Python version is not known"
    err = r.stderr.split("rocmdoctor: error: ", 1)[1]
    assert err.startswith("could not hash-lock the image's wheels: cannot reach the index")
    for way in ("--index-url URL", "--plan plan.json --lock requirements.lock",
                "rocmdoctor install torch --dry-run --json --lock requirements.lock > plan.json", "--no-hashes"):
        assert way in err, way
    assert "Traceback" not in r.stderr and not (tmp_path / "out").exists()


def test_no_hashes_writes_pins_that_say_they_are_not_hash_locked(tmp_path):
    r = _dockerfile(tmp_path, "--index-url", CLOSED, "--no-hashes", "--torch", "2.5", "--rocm", "6.2", "-o", "out/")
    assert r.returncode == 0, r.stderr
    docker = (tmp_path / "out" / "Dockerfile").read_text()
    lock = (tmp_path / "out" / "requirements.lock").read_text()
    assert "NOT hash-locked (written with --no-hashes)" in lock and "--hash=" not in lock
    assert f"--index-url {CLOSED}" in lock and "torch==2.5.1+rocm6.2" in lock
    assert "--require-hashes" not in docker and "NOT hash-checked (--no-hashes)" in docker
    assert "version-pinned (NOT hash-locked) install plan" in docker
    assert f"python{HERE}" in docker  # this host's Python, though none was given
    assert lint(docker) == []
    hadolint = shutil.which("hadolint") or str(Path(sys.executable).parent / "hadolint")
    if os.path.exists(hadolint):
        h = subprocess.run([hadolint, "--no-color", "-"], input=docker, capture_output=True, text=True, timeout=60)
        assert h.returncode == 0, h.stdout


def test_no_hashes_and_a_lock_contradict(tmp_path):
    (tmp_path / "req.lock").write_text("torch==2.5.1 --hash=sha256:" + "a" * 64 + "\n")
    r = _dockerfile(tmp_path, "--no-hashes", "--lock", "req.lock", "--python", "3.11", "--rocm", "6.2")
    assert r.returncode == 2 and "contradict" in r.stderr


def test_python_comes_from_the_bundle_and_a_bundle_without_one_says_so(tmp_path):
    healthy = "derived-healthy-rx7900xtx-rocm6.2.2"
    r = _dockerfile(tmp_path, "--from", healthy, "--no-hashes", "--index-url", CLOSED, "-o", "a/")
    assert r.returncode == 0, r.stderr
    assert "python3.10 " in (tmp_path / "a" / "Dockerfile").read_text()  # the bundle's Python 3.10.12
    r = _dockerfile(tmp_path, "--from", "rx7900xtx-dkms-build-fails-kernel-6.5", "--no-hashes", "-o", "b/")
    assert r.returncode == 2
    assert "does not say which Python the image is for; pass --python X.Y" in r.stderr


def test_the_hash_locked_spec_is_unchanged_by_the_no_hashes_option():
    locked = render_context(build_spec(sample_plan(), base="rocm/dev-ubuntu-22.04:6.2"))
    assert "--require-hashes" in locked["Dockerfile"] and "NOT" not in locked["requirements.lock"]
    pinned = render_context(build_spec(sample_plan(), base="rocm/dev-ubuntu-22.04:6.2", hashed=False))
    assert "--require-hashes" not in pinned["Dockerfile"] and "NOT hash-locked" in pinned["requirements.lock"]
    with pytest.raises(Exception, match="--no-hashes"):
        plan = sample_plan()
        plan.requirements[0].sha256 = []
        build_spec(plan, base="rocm/dev-ubuntu-22.04:6.2")
