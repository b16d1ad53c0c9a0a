"""The installer against hostile pip configuration (issue 13), with real pip/uv from an index on 127.0.0.1.

A ``pip.conf`` (the user's, one named by PIP_CONFIG_FILE, or one inside the target venv itself) whose
``requirement =`` adds a requirements file with an extra index and a package, and whose ``extra-index-url``
points at a decoy: rocmdoctor's install must take nothing from it (the package's code would otherwise run
when the verification starts the interpreter).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from install_helpers import build_rocm_world, build_wheel, make_venv, serve_index
from test_install_real import CLEAN_ENV, freeze, plan_for

from rocmdoctor.install.installer import install
from rocmdoctor.install.session import probe


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    root = tmp_path_factory.mktemp("hostile-world")
    dirs = build_rocm_world(root)
    marker = root / "evil-ran"
    # the attacker's package: a .pth file runs at every interpreter start-up (the verification included)
    build_wheel(root / "evil", "evilpkg", "1.0", "py3-none-any",
                {"evilpkg.pth": f"import pathlib; pathlib.Path({str(marker)!r}).write_text('ran')\n"})
    rocm_url, stop_rocm = serve_index([dirs["rocm"]])
    evil_url, stop_evil = serve_index([root / "evil", dirs["pypi"]])
    yield {"rocm": rocm_url, "evil": evil_url, "marker": str(marker), "root": str(root)}
    stop_rocm()
    stop_evil()


def _hostile_conf(where: Path, world: dict[str, str]) -> Path:
    reqs = where.parent / f"{where.stem}-reqs.txt"
    reqs.write_text(f"--extra-index-url {world['evil']}\nevilpkg\n")
    where.write_text(f"[global]\nextra-index-url = {world['evil']}\n[install]\nrequirement = {reqs}\n")
    return where


def _venv(tmp_path: Path) -> str:
    dest = tmp_path / "venv"
    make_venv(dest)
    return str(dest / "bin" / "python")


def test_the_hostile_config_is_a_real_threat_for_plain_pip(world: dict[str, str], tmp_path: Path) -> None:
    """Without rocmdoctor, the venv's own pip.conf adds evilpkg (and its code runs at the next start-up)."""
    py = _venv(tmp_path)
    _hostile_conf(Path(py).parent.parent / "pip.conf", world)
    subprocess.run([py, "-m", "pip", "install", "-q", "--index-url", world["rocm"], "filelock"], check=True,
                   env=CLEAN_ENV, capture_output=True)
    assert "evilpkg" in freeze(py).decode().lower()
    Path(world["marker"]).unlink(missing_ok=True)


@pytest.mark.parametrize("where", ["venv", "user", "env-var"])
@pytest.mark.parametrize("installer", ["pip", "uv"])
def test_no_pip_conf_adds_an_index_or_a_package(world: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                where: str, installer: str) -> None:
    if installer == "uv" and shutil.which("uv") is None:
        try:
            import uv  # noqa: F401
        except ImportError:
            pytest.skip("uv not installed")
    py = _venv(tmp_path)
    for key in [k for k in os.environ if k.startswith(("PIP_", "UV_"))]:
        monkeypatch.delenv(key)
    home = tmp_path / "home"
    (home / ".config" / "pip").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    if where == "venv":
        _hostile_conf(Path(py).parent.parent / "pip.conf", world)
    elif where == "user":
        _hostile_conf(home / ".config" / "pip" / "pip.conf", world)
    else:
        monkeypatch.setenv("PIP_CONFIG_FILE", str(_hostile_conf(tmp_path / "elsewhere.conf", world)))
        monkeypatch.setenv("PIP_REQUIREMENT", str(tmp_path / "elsewhere-reqs.txt"))
    Path(world["marker"]).unlink(missing_ok=True)
    result = install(plan_for(world["rocm"]), probe(py), installer, on_line=lambda _line: None)
    assert result.ok, (result.problems, result.output_tail)
    frozen = freeze(py).decode().lower()
    assert "evilpkg" not in frozen and "2.6.0" not in frozen and "99.0.0" not in frozen
    assert "torch==2.5.1+rocm6.2" in frozen
    assert not Path(world["marker"]).exists(), "the attacker's code ran"


def test_verification_fails_for_a_distribution_from_elsewhere(world: dict[str, str], tmp_path: Path) -> None:
    """Whatever put it there, a distribution the plan's index does not publish fails the verification."""
    from rocmdoctor.install.verify import verify_sources

    py = _venv(tmp_path)
    before = probe(py).dists
    plan = plan_for(world["rocm"])
    subprocess.run([py, "-m", "pip", "install", "-q", "--index-url", world["rocm"], "filelock==3.16.1"],
                   check=True, env={**CLEAN_ENV, "PIP_CONFIG_FILE": os.devnull}, capture_output=True)
    assert verify_sources(plan, before, py) == []  # published by the plan's index
    subprocess.run([py, "-m", "pip", "install", "-q", "--index-url", world["evil"], "evilpkg"],
                   check=True, env={**CLEAN_ENV, "PIP_CONFIG_FILE": os.devnull}, capture_output=True)
    Path(world["marker"]).unlink(missing_ok=True)
    problems = verify_sources(plan, before, py)
    assert len(problems) == 1 and problems[0].startswith("evilpkg 1.0 was installed, but ") \
        and "came from somewhere else" in problems[0]
