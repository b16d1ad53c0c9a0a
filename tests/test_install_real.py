"""Real pip and real uv into real venvs from a real index on 127.0.0.1: pins, decoy, rollback, verify, lock.

The index serves small wheels named like the real ones (see ``install_helpers.build_rocm_world``); a second
index plays PyPI with a newer CUDA torch and is put in PIP_EXTRA_INDEX_URL / UV_EXTRA_INDEX_URL, as a user's
config would. Venvs are copied from one session template (``python -m venv`` costs seconds, a copy does not).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from rocmdoctor.errors import OperationFailed
from rocmdoctor.install.hashlock import resolve_closure, write_lock
from rocmdoctor.install.installer import install
from rocmdoctor.install.plan import Plan, Requirement
from rocmdoctor.install.resolve import ResolveOptions, resolve
from rocmdoctor.install.runner import install_argv, install_env
from rocmdoctor.install.session import PipSession, probe
from rocmdoctor.install.snapshot import Snapshot
from rocmdoctor.install.verify import Verifier, verify
from rocmdoctor.matrix import Matrix, TorchVariant

sys.path.insert(0, str(Path(__file__).parent))
from install_helpers import build_rocm_world, build_wheel, fake_torch_files, make_venv, serve_index, wait
from test_install_resolve import MATRIX, host

# pip and uv must see no configuration of this machine but what a test sets (the decoy among it).
CLEAN_ENV = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "UV_"))}


@pytest.fixture(scope="session")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    root = tmp_path_factory.mktemp("world")
    dirs = build_rocm_world(root)
    rocm_url, stop_rocm = serve_index([dirs["rocm"]])
    pypi_url, stop_pypi = serve_index([dirs["pypi"]])
    broken_url, stop_broken = serve_index([dirs["rocm"], dirs["broken"]])
    bare_url, stop_bare = serve_index([dirs["rocm"]], hashes=False)
    yield {"rocm": rocm_url, "pypi": pypi_url, "broken": broken_url, "nohash": bare_url, "rocm_dir": str(dirs["rocm"])}
    for stop in (stop_rocm, stop_pypi, stop_broken, stop_bare):
        stop()


@pytest.fixture(scope="session")
def template(tmp_path_factory: pytest.TempPathFactory, world: dict[str, str]) -> dict[str, Path]:
    """A bare venv with pip, and one that already holds the previous ROCm torch 2.4.1 (for rollbacks)."""
    base = tmp_path_factory.mktemp("venvs")
    bare = base / "bare"
    make_venv(bare)
    old = base / "old"
    shutil.copytree(bare, old, symlinks=True)
    pins = ["torch==2.4.1+rocm6.1", "torchaudio==2.4.1+rocm6.1"]
    subprocess.run([str(old / "bin/python"), "-m", "pip", "install", "-q", "--index-url", world["rocm"], *pins],
                   check=True, env={**CLEAN_ENV, "PIP_CONFIG_FILE": os.devnull})
    return {"bare": bare, "old": old}


def venv(template: dict[str, Path], kind: str, tmp_path: Path) -> str:
    dest = tmp_path / f"venv-{kind}"
    shutil.copytree(template[kind], dest, symlinks=True)
    return str(dest / "bin/python")


def freeze(python: str) -> bytes:
    return subprocess.run([python, "-m", "pip", "freeze", "--all"], check=True, capture_output=True,
                          env={**CLEAN_ENV, "PIP_CONFIG_FILE": os.devnull}).stdout


def torch_version(python: str) -> str:
    return subprocess.run([python, "-c", "import torch; print(torch.__version__)"], capture_output=True,
                          text=True).stdout.strip()


def plan_for(url: str, spec: str = "2.5", companions: tuple[str, ...] = ("torchvision", "torchaudio")) -> Plan:
    return resolve(host("gfx90a"), MATRIX, ResolveOptions(torch_spec=spec, companions=companions, index_url=url))


@pytest.fixture
def decoy_env(monkeypatch: pytest.MonkeyPatch, world: dict[str, str]) -> None:
    """The user's configuration points at "PyPI" with its newer CUDA torch, as in the bug reports."""
    monkeypatch.setenv("PIP_EXTRA_INDEX_URL", world["pypi"])
    monkeypatch.setenv("UV_EXTRA_INDEX_URL", world["pypi"])
    monkeypatch.setenv("UV_INDEX", world["pypi"])


def test_decoy_is_a_real_threat_for_a_bare_install(world: dict[str, str], template: dict[str, Path],
                                                   tmp_path: Path) -> None:
    """Without rocmdoctor, --index-url ROCm plus the configured extra index installs the CUDA torch."""
    py = venv(template, "bare", tmp_path)
    env = {**CLEAN_ENV, "PIP_CONFIG_FILE": os.devnull, "PIP_EXTRA_INDEX_URL": world["pypi"]}
    subprocess.run([py, "-m", "pip", "install", "-q", "--index-url", world["rocm"], "torch"], check=True, env=env)
    assert torch_version(py) == "2.6.0"


@pytest.mark.parametrize("installer", ["pip", "uv"])
@pytest.mark.usefixtures("decoy_env")
def test_install_picks_rocm_never_the_decoy(world: dict[str, str], template: dict[str, Path], tmp_path: Path,
                                            installer: str) -> None:
    py = venv(template, "bare", tmp_path)
    plan = plan_for(world["rocm"])
    lines: list[str] = []
    result = install(plan, probe(py), installer, on_line=lines.append)
    assert result.ok, (result.problems, result.output_tail)
    frozen = freeze(py).decode()
    for pin in ("torch==2.5.1+rocm6.2", "torchvision==0.20.1+rocm6.2", "torchaudio==2.5.1+rocm6.2",
                "pytorch_triton_rocm==3.1.0", "filelock==3.16.1", "numpy==2.1.3"):
        assert pin.replace("_", "-").lower() in frozen.replace("_", "-").lower()
    assert "99.0.0" not in frozen and "2.6.0" not in frozen
    target = probe(py)
    assert target.torch_build == "rocm" and target.torch_version == "2.5.1+rocm6.2"
    assert lines and wait(lambda: not any(Path(py).parent.parent.glob("lib/python3.*/.rocmdoctor-rollback-*")))


@pytest.mark.parametrize("installer", ["pip", "uv"])
def test_snapshot_undoes_a_bare_install_that_fails_midway(world: dict[str, str], template: dict[str, Path],
                                                          tmp_path: Path, installer: str) -> None:
    """The installer alone leaves a half-changed environment; Snapshot.restore makes it byte-identical."""
    py = venv(template, "old", tmp_path)
    before = freeze(py)
    target = probe(py)
    snap = Snapshot.take(target)
    plan = plan_for(world["broken"])
    cons = tmp_path / "c.txt"
    cons.write_text(plan.constraints())
    env = {**install_env(plan, installer, str(cons), str(tmp_path)), "PIP_CONFIG_FILE": os.devnull}
    proc = subprocess.run(install_argv(plan, installer, py, str(cons)), env=env, capture_output=True, text=True)
    assert proc.returncode != 0
    assert freeze(py) != before and snap.changed()  # the failure really changed things
    assert snap.restore() == []
    snap.discard()
    assert freeze(py) == before
    assert torch_version(py) == "2.4.1+rocm6.1"
    assert not snap.changed()


@pytest.mark.parametrize("installer,early", [("pip", False), ("uv", False), ("pip", True), ("uv", True)])
def test_install_failing_midway_restores_exactly(world: dict[str, str], template: dict[str, Path],
                                                 tmp_path: Path, installer: str, early: bool) -> None:
    """``early``: as the CLI runs it: the session probes (and for pip, installs), the snapshot comes first."""
    py = venv(template, "old", tmp_path)
    before = freeze(py)
    if early:
        session = PipSession(py, prewarm=installer == "pip")
        target = session.target()
        result = install(plan_for(world["broken"]), target, installer, session=session,
                         snapshot=Snapshot.take(target))
        session.close()
        assert session.proc.returncode is not None
    else:
        result = install(plan_for(world["broken"]), probe(py), installer)
    assert not result.ok and result.installer_rc != 0 and result.restored and result.restore_problems == []
    assert any("version.py" in p for p in result.problems), result.problems
    assert freeze(py) == before
    assert torch_version(py) == "2.4.1+rocm6.1"


def test_verification_failure_rolls_back(world: dict[str, str], template: dict[str, Path], tmp_path: Path) -> None:
    """A plan that (wrongly) points at the CUDA torch installs fine, fails verification, and is undone."""
    py = venv(template, "old", tmp_path)
    before = freeze(py)
    plan = Plan(index_url=world["pypi"], requirements=[Requirement("torch", "2.6.0")], python="3.11", rocm="6.2")
    result = install(plan, probe(py), "pip")
    assert result.installer_rc == 0 and not result.ok and result.restored
    text = " | ".join(result.problems)
    assert "not a ROCm build" in text and "torch.version.cuda is 12.4" in text and "libcudart" in text
    assert freeze(py) == before and torch_version(py) == "2.4.1+rocm6.1"


def test_verify_gpu_checks_on_a_gpu_host(world: dict[str, str], template: dict[str, Path], tmp_path: Path) -> None:
    py = venv(template, "old", tmp_path)
    plan = resolve(host("gfx90a"), MATRIX, ResolveOptions(torch_spec="2.4"))
    assert verify(plan, py, gpu_check=False) == []
    problems = verify(plan, py, gpu_check=True)  # the stand-in torch, like a real one here, sees no GPU
    assert any("is_available() is False" in p for p in problems)
    assert any("lacks gfx90a" in p for p in problems)
    other = plan_for(world["rocm"])
    assert any("plan asked for 2.5.1+rocm6.2" in p for p in verify(other, py, gpu_check=False))


@pytest.mark.parametrize("session", [False, True])
def test_interrupt_restores(world: dict[str, str], template: dict[str, Path], tmp_path: Path, session: bool) -> None:
    """SIGINT while pip runs (``session``: in the prewarmed target interpreter): the child stops, the environment
    is restored, KeyboardInterrupt propagates."""
    url, stop = serve_index([world["rocm_dir"]], delays={"torchaudio-2.5.1": 30})
    try:
        py = venv(template, "old", tmp_path)
        before = freeze(py)
        plan_file = tmp_path / "plan.json"
        plan_file.write_text(json.dumps(plan_for(url).to_dict()))
        call = ("s = PipSession(sys.argv[2], True); t = s.target(); install(plan, t, 'pip', session=s, "
                "snapshot=Snapshot.take(t))") if session else "install(plan, probe(sys.argv[2]), 'pip')"
        code = (
            "import json, sys\n"
            "from rocmdoctor.install.installer import install\n"
            "from rocmdoctor.install.session import PipSession, probe\n"
            "from rocmdoctor.install.snapshot import Snapshot\n"
            "from rocmdoctor.install.plan import Plan\n"
            "plan = Plan.from_dict(json.load(open(sys.argv[1])))\n"
            f"try:\n    {call}\n"
            "except KeyboardInterrupt:\n    print('INTERRUPTED-RESTORED'); sys.exit(130)\n"
        )
        proc = subprocess.Popen([sys.executable, "-c", code, str(plan_file), py], stdout=subprocess.PIPE, text=True,
                                env=CLEAN_ENV)
        assert stop.wait_for("torchaudio-2.5.1", timeout=60)
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=60)
        assert proc.returncode == 130 and "INTERRUPTED-RESTORED" in out
        assert freeze(py) == before
    finally:
        stop()


@pytest.mark.parametrize("installer", ["pip", "uv"])
def test_lock_installs_with_require_hashes(world: dict[str, str], template: dict[str, Path], tmp_path: Path,
                                           installer: str) -> None:
    plan = plan_for(world["rocm"])
    cons = tmp_path / "c.txt"
    cons.write_text(plan.constraints())
    env = install_env(plan, installer, str(cons), str(tmp_path))
    closure = resolve_closure(plan, installer, sys.executable, None, str(tmp_path), env, str(cons))
    assert sorted(n for n, _ in closure) == [
        "filelock", "numpy", "pytorch-triton-rocm", "torch", "torchaudio", "torchvision", "typing-extensions"]
    lock = tmp_path / "torch.lock"
    text = write_lock(plan, closure, str(lock))
    assert "torch==2.5.1+rocm6.2 \\\n    --hash=sha256:" in text
    assert text.count("--hash=sha256:") == len(closure)
    if installer == "pip":  # the lock really installs, with plain pip and --require-hashes
        py = venv(template, "bare", tmp_path)
        subprocess.run([py, "-m", "pip", "install", "-q", "--require-hashes", "-r", str(lock), "--index-url",
                        world["rocm"]], check=True, env={**CLEAN_ENV, "PIP_CONFIG_FILE": os.devnull})
        assert torch_version(py) == "2.5.1+rocm6.2"
        tampered = tmp_path / "tampered.lock"
        tampered.write_text(text.replace("--hash=sha256:", "--hash=sha256:0", 1).replace(
            "sha256:0" + text.split("--hash=sha256:")[1][:64], "sha256:" + "0" * 64, 1))
        py2 = venv(template, "bare", tmp_path / "t")
        bad = subprocess.run([py2, "-m", "pip", "install", "-q", "--require-hashes", "-r", str(tampered)],
                             capture_output=True, text=True, env={**CLEAN_ENV, "PIP_CONFIG_FILE": os.devnull})
        assert bad.returncode != 0 and "HASH" in bad.stdout + bad.stderr


def test_install_from_lock_with_require_hashes(world: dict[str, str], template: dict[str, Path],
                                               tmp_path: Path) -> None:
    plan = plan_for(world["rocm"], companions=())
    cons = tmp_path / "c.txt"
    cons.write_text(plan.constraints())
    env = install_env(plan, "pip", str(cons), str(tmp_path))
    lock = tmp_path / "torch.lock"
    write_lock(plan, resolve_closure(plan, "pip", sys.executable, "3.11", str(tmp_path), env, str(cons)), str(lock))
    py = venv(template, "bare", tmp_path)
    result = install(plan, probe(py), "pip", lock=str(lock))
    assert result.ok, result.problems
    assert torch_version(py) == "2.5.1+rocm6.2"


def test_lock_refuses_an_index_without_hashes(world: dict[str, str], tmp_path: Path) -> None:
    plan = plan_for(world["nohash"], companions=())
    with pytest.raises(OperationFailed, match="no sha256"):
        write_lock(plan, [("torch", "2.5.1+rocm6.2")], str(tmp_path / "x.lock"))


@pytest.mark.parametrize("installer", ["pip", "uv"])
def test_amd_channel_uses_find_links_and_beats_pypi(template: dict[str, Path], tmp_path: Path,
                                                    installer: str) -> None:
    """AMD's flat directory via --find-links; the dependency index ("PyPI") also offers CUDA torch 2.6.0 and a
    plain torchvision 0.21.0, which must lose to AMD's labelled builds."""
    tag = "cp311-cp311-linux_x86_64"
    flat, deps = tmp_path / "amd", tmp_path / "deps"
    label = "+rocm6.4.1.git1ded221d"
    build_wheel(flat, "torch", f"2.6.0{label}", tag, fake_torch_files(f"2.6.0{label}", "6.4.43482", None,
                ["libamdhip64.so"]), ["pytorch-triton-rocm==3.2.0+rocm6.4.1.git6da9e660", "filelock"])
    build_wheel(flat, "pytorch_triton_rocm", "3.2.0+rocm6.4.1.git6da9e660", tag, {"triton/__init__.py": ""})
    build_wheel(flat, "torchvision", "0.21.0+rocm6.4.1.git4040d51f", tag, {"torchvision/__init__.py": ""},
                ["torch==2.6.0"])
    build_wheel(deps, "torch", "2.6.0", tag, fake_torch_files("2.6.0", None, "12.4", ["libcudart.so.12"]))
    build_wheel(deps, "torchvision", "0.21.0", tag, {"torchvision/__init__.py": ""}, ["torch==2.6.0"])
    build_wheel(deps, "filelock", "3.16.1", "py3-none-any", {"filelock_stub/__init__.py": ""})
    amd_url, stop_amd = serve_index([flat])
    deps_url, stop_deps = serve_index([deps])
    try:
        amd = TorchVariant(
            torch="2.6.0", rocm="6.4.1", index_url="https://repo.radeon.com/rocm/manylinux/rocm-rel-6.4.1/",
            channel="amd", triton_package="pytorch-triton-rocm", triton_version="3.2.0", torchvision="0.21.0",
            torchaudio=None, pythons=("3.11",), gfx=("gfx942",), local_label=label, find_links=True,
        )
        m = Matrix(torch=(amd,), gpus=MATRIX.gpus, releases=MATRIX.releases)
        flat_url = amd_url.rsplit("/simple", 1)[0] + "/flat/"
        plan = resolve(host("gfx942"), m, ResolveOptions(channel="amd", companions=("torchvision",),
                                                          index_url=deps_url, find_links=flat_url))
        assert plan.find_links == [flat_url] and plan.index_url == deps_url
        assert [r.pin() for r in plan.requirements] == [
            f"torch==2.6.0{label}", "pytorch-triton-rocm==3.2.0", "torchvision==0.21.0"]
        py = venv(template, "bare", tmp_path)
        result = install(plan, probe(py), installer)
        assert result.ok, (result.problems, result.output_tail)
        frozen = freeze(py).decode().lower().replace("_", "-")
        assert f"torch==2.6.0{label}" in frozen and "torchvision==0.21.0+rocm6.4.1.git4040d51f" in frozen
        assert "pytorch-triton-rocm==3.2.0+rocm6.4.1.git6da9e660" in frozen
    finally:
        stop_amd()
        stop_deps()


# ---------------------------------------------------------------------------------------------- PipSession
def tree(root: Path) -> dict[str, tuple[int, int, int]]:
    """Every entry below ``root``: (mode, size, mtime_ns), directories and links included."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in [*dirnames, *filenames]:
            path = os.path.join(dirpath, name)
            st = os.lstat(path)
            out[os.path.relpath(path, root)] = (st.st_mode, st.st_size if not os.path.isdir(path) else 0,
                                                st.st_mtime_ns)
    return out


def pip_list(python: str) -> dict[str, str]:
    out = subprocess.run([python, "-m", "pip", "list", "--format", "json"], check=True, capture_output=True,
                         text=True, env={**CLEAN_ENV, "PIP_CONFIG_FILE": os.devnull}).stdout
    return {d["name"].lower().replace("_", "-").replace(".", "-"): d["version"] for d in json.loads(out)}


def test_session_probes_like_probe_and_like_pip(world: dict[str, str], template: dict[str, Path],
                                                tmp_path: Path) -> None:
    """The session's answer is probe()'s, and its distributions are what pip lists: a regular install, an
    editable install with an odd name, and a package in the working directory that is NOT installed."""
    py = venv(template, "old", tmp_path)
    proj = tmp_path / "odd"
    (proj / "Odd_Name").mkdir(parents=True)
    (proj / "Odd_Name" / "__init__.py").write_text("")
    # A development install (`setup.py develop`: no wheel package, no network): its metadata stays in the project
    # (an .egg-info reached through easy-install.pth), not in site-packages.
    (proj / "setup.py").write_text("from setuptools import setup\n"
                                   "setup(name='Odd_Name.Pkg', version='0.1.post1', packages=['Odd_Name'])\n")
    subprocess.run([py, "setup.py", "-q", "develop"], cwd=proj, check=True, capture_output=True,
                   env={**CLEAN_ENV, "PIP_CONFIG_FILE": os.devnull})
    cwd = tmp_path / "cwd"  # a stray torch (and a stray dist-info) where rocmdoctor is run: not installed
    (cwd / "torch").mkdir(parents=True)
    (cwd / "torch" / "__init__.py").write_text("")
    (cwd / "stray-1.0.dist-info").mkdir()
    (cwd / "stray-1.0.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: stray\nVersion: 1.0\n")
    old = os.getcwd()
    os.chdir(cwd)
    try:
        session = PipSession(py, prewarm=False)
        via_session = session.target()
        session.close()
        via_probe = probe(py)
    finally:
        os.chdir(old)
    assert via_session == via_probe
    assert via_session.dists == pip_list(py)
    assert via_session.dists["odd-name-pkg"] == "0.1.post1" and "stray" not in via_session.dists
    assert via_session.torch_version == "2.4.1+rocm6.1" and via_session.torch_build == "rocm"
    assert via_session.torch and str(via_session.torch["location"]).startswith(str(Path(py).parent.parent))


def test_session_closed_unused_writes_nothing(template: dict[str, Path], tmp_path: Path) -> None:
    """A dry run, a refusal, a declined prompt: the prewarmed interpreter (pip loaded) leaves the venv as it was,
    byte for byte and file for file, and exits."""
    py = venv(template, "bare", tmp_path)
    root = Path(py).parent.parent
    for pyc in root.glob("lib/python3.*/site-packages/pip/**/__pycache__"):  # force pip to be compiled afresh
        shutil.rmtree(pyc)
    before = tree(root)
    session = PipSession(py, prewarm=True)
    target = session.target()
    assert target.has_pip and session.can_install(target)
    time.sleep(1.0)  # let it load pip
    session.close()
    assert session.proc.returncode == 0
    assert tree(root) == before


# Other pips than the one venv seeds, fetched by scripts/setup.sh (the tests themselves stay offline): the
# session runs pip through runpy in a process that imported pip's modules early, which must not depend on
# one pip's internals.
PIP_WHEELS = sorted((Path(__file__).resolve().parent.parent / ".whl" / "pip").glob("pip-*.whl"))


@pytest.mark.parametrize("pip_wheel", [None, *PIP_WHEELS], ids=lambda w: w.name.split("-")[1] if w else "seeded")
def test_session_installs_what_python_m_pip_installs(world: dict[str, str], template: dict[str, Path],
                                                     tmp_path: Path, pip_wheel: Path | None) -> None:
    """The same plan through install() with a session and with a plain `python -m pip`: the same distributions,
    the same files (bytecode included), and pip's own files untouched."""
    plan = plan_for(world["rocm"])
    trees, frozen = [], []
    for kind in ("plain", "session"):
        py = venv(template, "bare", tmp_path / kind)
        if pip_wheel is not None:
            subprocess.run([py, "-m", "pip", "install", "-q", "--no-index", str(pip_wheel)], check=True,
                           env={**CLEAN_ENV, "PIP_CONFIG_FILE": os.devnull})
        root = Path(py).parent.parent
        pip_before = {k: v for k, v in tree(root).items() if "/site-packages/pip/" in k}
        if kind == "session":
            session = PipSession(py, prewarm=True)
            target = session.target()
            result = install(plan, target, "pip", session=session)
            assert session.proc.returncode == 0
        else:
            result = install(plan, probe(py), "pip")
        assert result.ok, (result.problems, result.output_tail)
        assert wait(lambda root=root: not any(root.glob("lib/python3.*/.rocmdoctor-rollback-*")))
        after = tree(root)
        assert {k: v for k, v in after.items() if "/site-packages/pip/" in k} == pip_before
        trees.append({k for k in after if "/site-packages/" in k and "/site-packages/pip/" not in k
                      and not k.endswith(("/RECORD", "/INSTALLER", "/direct_url.json"))})
        frozen.append(freeze(py))
    assert frozen[0] == frozen[1] and b"torch==2.5.1+rocm6.2" in frozen[0]
    assert trees[0] == trees[1]
    assert any(k.endswith(".pyc") and "/torch/" in k for k in trees[1])  # pip compiled what it installed


def test_session_for_a_wrong_interpreter_is_not_used(world: dict[str, str], template: dict[str, Path],
                                                     tmp_path: Path) -> None:
    """A session of another interpreter never installs: install() runs pip in the target and leaves it be."""
    py, other = venv(template, "bare", tmp_path / "a"), venv(template, "bare", tmp_path / "b")
    session = PipSession(other, prewarm=True)
    session.target()
    before_other = freeze(other)
    result = install(plan_for(world["rocm"]), probe(py), "pip", session=session)
    assert result.ok, result.problems
    assert torch_version(py) == "2.5.1+rocm6.2" and session.proc.poll() is None
    session.close()
    assert freeze(other) == before_other and session.proc.returncode == 0


# ---------------------------------------------------------------------------------------------- Verifier
def _put_torch(dest: Path, version: str = "2.5.1+rocm6.2") -> None:
    for rel, text in fake_torch_files(version, "6.2.41133-dd7f95766", None, ["libamdhip64.so"]).items():
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        (dest / rel).write_text(text)


def test_verifier_started_before_the_install_sees_what_a_fresh_start_sees(template: dict[str, Path],
                                                                          tmp_path: Path) -> None:
    """Started before torch exists, it still finds the torch installed meanwhile; and a torch reachable only
    through a .pth file the install added (read at start-up only) is found too: the verifier starts afresh."""
    plan = Plan(index_url="http://127.0.0.1:9/simple", requirements=[Requirement("torch", "2.5.1+rocm6.2")],
                python="3.11", rocm="6.2")
    py = venv(template, "bare", tmp_path)
    site = Path(probe(py).purelib)
    early = Verifier(plan, py)
    time.sleep(0.5)  # it has started, read its site directories and imported what they import
    _put_torch(site)
    assert verify(plan, py, gpu_check=False, started=early) == []
    shutil.rmtree(site / "torch")

    home = tmp_path / "torch-home"
    _put_torch(home)
    early = Verifier(plan, py)
    time.sleep(0.5)
    (site / "torch_home.pth").write_text(f"{home}\n")
    assert verify(plan, py, gpu_check=False, started=early) == []
    (site / "torch_home.pth").unlink()
    assert any("import torch failed" in p for p in verify(plan, py, gpu_check=False))  # the .pth was needed

    early = Verifier(plan, py)  # an unused verifier exits, having run nothing
    early.close()
    assert early.proc.returncode == 0
