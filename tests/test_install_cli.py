"""`rocmdoctor install torch` as a user runs it: a subprocess, exit codes, JSON on stdout, real installs."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from rocmdoctor.paths import FIXTURES_DIR

sys.path.insert(0, str(Path(__file__).parent))
from install_helpers import build_wheel, build_world_for_pins, fake_torch_files, make_venv, serve_index, wait

CLEAN_ENV = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "UV_"))}
MI210 = FIXTURES_DIR / "derived-healthy-mi210-x4-rocm6.2.2"
IGPU = FIXTURES_DIR / "derived-igpu-780m-plus-rx7900xtx"
OVERRIDE = FIXTURES_DIR / "derived-healthy-rx6700xt-override-env"


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rocmdoctor", "install", "torch", *args], capture_output=True,
                          text=True, env={**CLEAN_ENV, **(env or {})}, stdin=subprocess.DEVNULL, timeout=300)


def need(path: Path) -> None:
    if not path.is_dir():
        pytest.skip(f"fixture {path.name} not present")


def test_from_bundle_json_plan_on_stdout() -> None:
    need(MI210)
    r = cli("--from", str(MI210), "--json", "torchvision")
    assert r.returncode == 0, r.stderr
    plan = json.loads(r.stdout)  # stdout is the JSON and nothing else
    assert plan["schema"] == "rocmdoctor-plan/1" and plan["python"] == "3.10"
    assert plan["requirements"][0].startswith("torch==") and "+rocm" in plan["requirements"][0]
    assert any(p.startswith("torchvision==") for p in plan["requirements"])
    assert plan["gpus"] == ["gfx90a"] * 4 and plan["env"] == {}
    assert "planning for the captured host only" in r.stderr


def test_from_bundle_python_version_and_rocm_filter() -> None:
    need(MI210)
    r = cli("--from", str(MI210), "--json", "--python-version", "3.12", "--torch", ">=2.4,<2.6", "--rocm", "6.1")
    assert r.returncode == 0, r.stderr
    plan = json.loads(r.stdout)
    assert plan["python"] == "3.12" and plan["rocm"] == "6.1"
    assert plan["requirements"][0].startswith("torch==2.5.") and plan["requirements"][0].endswith("+rocm6.1")


def test_igpu_fixture_hides_the_igpu() -> None:
    need(IGPU)
    r = cli("--from", str(IGPU), "--python-version", "3.12", "--json")
    plan = json.loads(r.stdout)
    assert r.returncode == 0 and plan["env"]["HIP_VISIBLE_DEVICES"] == "0" == plan["env"]["ROCR_VISIBLE_DEVICES"]
    assert plan["gpus"] == ["gfx1100"] and "IGNORING the integrated GPU" in " ".join(plan["warnings"])


def test_override_fixture_plans_for_the_chip() -> None:
    need(OVERRIDE)
    r = cli("--from", str(OVERRIDE), "--python-version", "3.12", "--json")
    plan = json.loads(r.stdout)
    assert r.returncode == 0 and plan["env"] == {"HSA_OVERRIDE_GFX_VERSION": "10.3.0"}
    assert plan["gpus"] == ["gfx1031"] and "OVERRIDE NEEDED" in " ".join(plan["warnings"])


def test_refusals_exit_1(tmp_path: Path) -> None:
    need(MI210)
    r = cli("--from", str(MI210), "--python-version", "3.7", "--json")
    out = json.loads(r.stdout)
    assert r.returncode == 1 and out["refused"] is True and "Python 3.7" in out["error"]
    assert "3.10" in out["error"] and "Traceback" not in r.stderr
    bundle = tmp_path / "rx5700"
    (bundle / "cmd").mkdir(parents=True)
    (bundle / "cmd/rocm_agent_enumerator.txt").write_text("gfx000\ngfx1010\n")
    r = cli("--from", str(bundle), "--python-version", "3.11")
    assert r.returncode == 1 and "gfx1010" in r.stderr and "from source" in r.stderr and "CPU-only" in r.stderr
    assert r.stderr.rstrip().splitlines()[-1].startswith("rocmdoctor: error:")


@pytest.mark.parametrize(
    "args",
    [
        ("--torch", "two point five", "--dry-run"),
        ("--python", "/nonexistent/python3", "--dry-run"),
        ("--python", "-c", "--dry-run"),
        ("--installer", "conda", "--dry-run"),
        ("--from", "/nonexistent/bundle"),
        ("numpy", "--dry-run"),
        ("--find-links", "http://127.0.0.1:9/flat/", "--dry-run"),
        ("--python-version", "3.7"),
    ],
)
def test_bad_input_exit_2(args: tuple[str, ...]) -> None:
    r = cli(*args)
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr and r.stdout == ""


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str, list[str]]]:
    """An index holding exactly what the real matrix resolves for `--torch 2.5 torchvision` on this Python,
    and a decoy index with a newer CUDA torch."""
    probe = cli("--torch", "2.5", "--dry-run", "--json", "torchvision")
    assert probe.returncode == 0, probe.stderr
    pins = json.loads(probe.stdout)["requirements"]
    root = tmp_path_factory.mktemp("cli-world")
    build_world_for_pins(root / "rocm", pins)
    build_wheel(root / "pypi", "torch", "2.99.0", "cp311-cp311-linux_x86_64",
                fake_torch_files("2.99.0", None, "12.4", ["libcudart.so.12"]))
    url, stop = serve_index([root / "rocm"])
    decoy, stop_decoy = serve_index([root / "pypi"])
    yield url, decoy, pins
    stop()
    stop_decoy()


def test_cli_install_verify_and_cuda_confirmation(index: tuple[str, str, list[str]], tmp_path: Path) -> None:
    url, decoy, pins = index
    py = make_venv(tmp_path / "venv")
    # A CUDA torch is present (from "PyPI"): without --yes and without a TTY, nothing changes.
    subprocess.run([py, "-m", "pip", "install", "-q", "--index-url", decoy, "torch"], check=True,
                   env={**CLEAN_ENV, "PIP_CONFIG_FILE": os.devnull})
    freeze = [py, "-m", "pip", "freeze", "--all"]
    before = subprocess.run(freeze, capture_output=True, env={**CLEAN_ENV, "PIP_CONFIG_FILE": os.devnull}).stdout
    decoy_env = {"PIP_EXTRA_INDEX_URL": decoy, "UV_EXTRA_INDEX_URL": decoy}
    args = ("--python", py, "--torch", "2.5", "--index-url", url, "torchvision")
    r = cli(*args, env=decoy_env)
    assert r.returncode == 1 and "CUDA build of torch (2.99.0)" in r.stderr.replace("\n", " ")
    assert "--yes" in r.stderr
    after = subprocess.run(freeze, capture_output=True, env={**CLEAN_ENV, "PIP_CONFIG_FILE": os.devnull}).stdout
    assert after == before
    # With --yes it is replaced by the ROCm build, verified, and --json keeps stdout pure.
    r = cli(*args, "--yes", "--json", env=decoy_env)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["requirements"] == pins
    version = subprocess.run([py, "-c", "import torch; print(torch.__version__, torch.version.hip)"],
                             capture_output=True, text=True).stdout.split()
    assert version[0] == pins[0].split("==")[1] and version[1] != "None"


def test_cli_lock_with_uv(index: tuple[str, str, list[str]], tmp_path: Path) -> None:
    url, _, pins = index
    uv = shutil.which("uv")
    if uv is None:
        pytest.skip("uv not installed")
    venv = tmp_path / "uvenv"
    subprocess.run([uv, "venv", "-q", str(venv)], check=True, env=CLEAN_ENV)
    lock = tmp_path / "torch.lock"
    r = cli("--python", str(venv / "bin/python"), "--torch", "2.5", "--index-url", url, "--installer", "uv",
            "--lock", str(lock), "torchvision")
    assert r.returncode == 0, r.stderr
    text = lock.read_text()
    for pin in pins:
        assert f"{pin} \\\n    --hash=sha256:" in text
    assert "filelock==3.16.1 \\" in text
    frozen = subprocess.run([uv, "pip", "freeze", "--python", str(venv / "bin/python")], capture_output=True,
                            text=True, env=CLEAN_ENV).stdout
    assert pins[0] in frozen


def _tree(root: Path) -> dict[str, tuple[int, int]]:
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in [*dirnames, *filenames]:
            st = os.lstat(os.path.join(dirpath, name))
            out[os.path.relpath(os.path.join(dirpath, name), root)] = (st.st_mode, st.st_mtime_ns)
    return out


def test_cli_failed_install_restores_exactly_and_dry_run_touches_nothing(
        index: tuple[str, str, list[str]], tmp_path: Path) -> None:
    """The CLI takes its snapshot while it reads the host and installs through the interpreter it probed: a
    companion that breaks the install part-way leaves `pip freeze` byte-identical (and no rollback litter);
    a dry run leaves every file of the venv as it was."""
    _, _, pins = index
    world = build_world_for_pins(tmp_path / "broken", pins)
    vision = next(p for p in pins if p.startswith("torchvision=="))
    for old in world.glob("torchvision-*.whl"):
        old.unlink()
    build_wheel(world, "torchvision", vision.split("==")[1], "cp311-cp311-linux_x86_64",
                {"torchvision/__init__.py": "", "torch/version.py/collision.txt": "boom\n"},
                [f"torch=={pins[0].split('==')[1].split('+')[0]}"])
    url, stop = serve_index([world])
    try:
        py = make_venv(tmp_path / "venv")
        root = Path(py).parent.parent
        freeze = [py, "-m", "pip", "freeze", "--all"]
        before = subprocess.run(freeze, capture_output=True, env={**CLEAN_ENV, "PIP_CONFIG_FILE": os.devnull}).stdout
        tree = _tree(root)
        r = cli("--python", py, "--torch", "2.5", "--index-url", url, "torchvision", "--dry-run")
        assert r.returncode == 0, r.stderr
        assert _tree(root) == tree
        r = cli("--python", py, "--torch", "2.5", "--index-url", url, "torchvision")
        assert r.returncode == 1 and "restored exactly" in r.stderr, r.stderr
        after = subprocess.run(freeze, capture_output=True, env={**CLEAN_ENV, "PIP_CONFIG_FILE": os.devnull}).stdout
        assert after == before
        assert wait(lambda: not any(root.glob("lib/python3.*/.rocmdoctor-rollback-*")))
    finally:
        stop()


@pytest.mark.parametrize(("args", "early"), [
    (["install", "torch", "--python", sys.executable, "--index-url", "http://127.0.0.1:9/simple"], True),
    (["install", "torch", f"--python={sys.executable}", "--installer=pip", "torchvision"], True),
    (["install", "torch", "--python", sys.executable, "--dry-run"], False),  # nothing will be installed
    (["install", "torch", "--from", str(MI210)], False),
    (["install", "torch", "--python", sys.executable, "--installer", "uv"], False),  # uv is not a pip session
    (["install", "torch", "--python", ""], False),  # an empty value is the command's usage error
    (["install", "torch", "--python", "-c"], False),  # never an option for the interpreter
    (["install", "torch", "--help"], False),
    (["check", "--python", sys.executable], False),
])
def test_which_command_lines_start_the_target_early(args: list[str], early: bool) -> None:
    from rocmdoctor.install import session as pipsession

    pipsession.start_early(args)
    try:
        assert len(pipsession._EARLY) == (1 if early else 0)
        if early:
            assert pipsession._EARLY[0].python == sys.executable and pipsession._EARLY[0].prewarm
    finally:
        pipsession.close_early()
    assert not pipsession._EARLY


def test_an_early_target_is_ended_when_the_command_line_is_bad(tmp_path: Path) -> None:
    """The target interpreter starts before the arguments are parsed; a usage error must not leave it behind."""
    pidfile = tmp_path / "pid"
    wrapper = tmp_path / "python"
    wrapper.write_text(f"#!/bin/sh\necho $$ > {pidfile}\nexec {sys.executable} \"$@\"\n")
    wrapper.chmod(0o755)
    r = cli("--python", str(wrapper), "--no-such-option")
    assert r.returncode == 2, r.stderr
    assert pidfile.exists(), "the early session did not start: this test would prove nothing"
    pid = int(pidfile.read_text())

    def gone() -> bool:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return False

    assert wait(gone, 2.5), f"the early target interpreter {pid} outlived the command"
