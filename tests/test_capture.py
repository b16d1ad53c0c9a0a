"""Capture: the real (GPU-less) machine, a fake ROCMDOCTOR_ROOT built from real captures, the CLI."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from capture_helpers import HOSTNAME, MI210, RX6700, USER, build_fake_root

from rocmdoctor import __version__, capture
from rocmdoctor.cli.app import main


def _manifest_cmd(manifest: dict, file_or_name: str) -> dict:
    for entry in manifest["commands"]:
        if entry["file"] and Path(entry["file"]).stem == file_or_name:
            return entry
        if entry["argv"] and Path(entry["argv"][0]).name == file_or_name:
            return entry
    raise AssertionError(f"{file_or_name} not in manifest")


def test_live_capture_on_this_machine(tmp_path, monkeypatch):
    monkeypatch.setenv("HSA_OVERRIDE_GFX_VERSION", "10.3.0")
    monkeypatch.setenv("HIP_SECRET_TOKEN", "do-not-leak-1")
    monkeypatch.setenv("ROCM_API_KEY", "do-not-leak-2")
    monkeypatch.setenv("UNRELATED_VAR", "do-not-leak-3")
    monkeypatch.delenv("ROCMDOCTOR_ROOT", raising=False)
    manifest = capture.capture_to_dir(str(tmp_path / "b"), skip=capture.QUICK_SKIP)
    b = tmp_path / "b"
    on_disk = json.loads((b / "manifest.json").read_text())
    assert on_disk == manifest
    assert manifest["format"] == "rocmdoctor-capture/1"
    assert manifest["tool"] == f"rocmdoctor {__version__}"
    assert manifest["hostname"] == os.uname().nodename
    names = [e["name"] for e in manifest["commands"]]
    assert names == [s.name for s in capture.command_specs("py") if s.name not in capture.QUICK_SKIP] + ["stat-dev"]
    for entry in manifest["commands"]:
        tool = Path(entry["argv"][0]).name
        if entry.get("internal"):
            continue
        assert entry.get("missing", False) == (capture._which(tool) is None), entry
        if not entry.get("missing"):
            assert (b / entry["file"]).is_file()
    rocminfo = _manifest_cmd(manifest, "rocminfo")
    assert rocminfo.get("missing") is (shutil.which("rocminfo") is None or None)
    uname = subprocess.run(["uname", "-a"], capture_output=True, check=True).stdout
    assert (b / "cmd/uname-a.txt").read_bytes() == uname
    assert (b / "root/proc/version").read_bytes() == Path("/proc/version").read_bytes()
    assert (b / "root/etc/group").read_bytes() == Path("/etc/group").read_bytes()
    env = (b / "env.txt").read_text()
    assert "HSA_OVERRIDE_GFX_VERSION=10.3.0\n" in env
    assert f"PATH={os.environ['PATH']}\n" in env
    assert "do-not-leak" not in env
    probe = json.loads((b / "cmd/torch-probe.json").read_text())
    assert probe["python"]["executable"]
    # stat-dev: /dev/kfd does not exist here, recorded as stat would
    if not Path("/dev/kfd").exists():
        assert "/dev/kfd" in (b / "cmd/stat-dev.stderr").read_text()
        assert _manifest_cmd(manifest, "stat-dev")["exit"] == 1


def test_fake_root_reproduces_files(tmp_path):
    root = build_fake_root(tmp_path / "host")
    manifest = capture.capture_to_dir(str(tmp_path / "b"), root=str(root), skip=("pip-list", "torch-probe"))
    b = tmp_path / "b"
    assert (b / "cmd/rocminfo.txt").read_bytes() == (MI210 / "rocminfo.txt").read_bytes()
    assert (b / "cmd/rocm-smi.txt").read_bytes() == (RX6700 / "rocm-smi.txt").read_bytes()
    for rel in ("etc/os-release", "proc/version", "proc/modules", "sys/module/amdgpu/version", "etc/group",
                "sys/class/kfd/kfd/topology/nodes/1/properties", "sys/class/kfd/kfd/topology/nodes/1/name",
                "sys/class/kfd/kfd/topology/nodes/0/gpu_id", "sys/class/drm/card0/device/vendor",
                "sys/class/drm/card0/device/uevent", "sys/class/drm/card0/device/serial_number",
                "opt/rocm-6.0.2/.info/version", "opt/rocm-5.7.1/.info/version"):
        assert (b / "root" / rel).read_bytes() == (root / rel).read_bytes(), rel
    assert not (b / "root/sys/class/drm/card0-DP-1").exists()  # connectors are not cards
    assert not (b / "root/etc/passwd").exists()
    assert manifest["links"]["/opt/rocm"] == "rocm-6.0.2"
    assert manifest["hostname"] == HOSTNAME
    assert manifest["root"] == str(root)
    dkms = _manifest_cmd(manifest, "dkms-status")
    assert dkms["exit"] == 1 and dkms["recorded"] is True
    assert "dkms.conf" in (b / "cmd/dkms-status.stderr").read_text()
    lspci = _manifest_cmd(manifest, "lspci")
    assert lspci["missing"] is True and lspci["file"] is None
    assert not (b / "cmd/lspci.txt").exists()
    st = (root / "dev/kfd").stat()
    names = {0: "root", 1000: USER}  # from the fake root's passwd/group, not this machine's
    who = f"{names.get(st.st_uid, 'UNKNOWN')} {names.get(st.st_gid, 'UNKNOWN')} {st.st_uid} {st.st_gid}"
    assert (b / "cmd/stat-dev.txt").read_text().splitlines() == [
        f"/dev/kfd 660 {who}", f"/dev/dri/card0 600 {who}", f"/dev/dri/renderD128 660 {who}"]
    env = (b / "env.txt").read_text()
    assert "HSA_OVERRIDE_GFX_VERSION=9.0.10" in env and "SECRET" not in env and "HOME=" not in env
    assert _manifest_cmd(manifest, "pip-freeze")["recorded"] is True
    assert (b / "cmd/pip-freeze.txt").read_bytes() == (root / ".cmd/pip-freeze.txt").read_bytes()
    # skipped commands are not in the manifest at all; unrecorded ones really ran (uname -r is recorded)
    assert all(Path(e["file"] or "x").stem != "torch-probe" for e in manifest["commands"])


def test_rocmdoctor_root_env_and_missing_files_are_not_errors(tmp_path, monkeypatch):
    root = tmp_path / "empty"
    (root / ".cmd").mkdir(parents=True)
    (root / ".cmd/uname-a.txt").write_text("Linux node7 6.8.0 x86_64\n")
    unreadable = root / "sys/class/drm/card1/device/vendor"
    unreadable.parent.mkdir(parents=True)
    unreadable.mkdir()  # reading a directory fails with EISDIR: an error, recorded
    monkeypatch.setenv("ROCMDOCTOR_ROOT", str(root))
    files, manifest = capture.collect(skip=(*capture.QUICK_SKIP, "torch-probe", "dmesg", "docker-info"))
    assert manifest["root"] == str(root)
    assert manifest["hostname"] == "node7"  # from the recorded uname -a
    assert not [f for f in files if f.startswith("root/")]
    assert any("/sys/class/drm/card1/device/vendor" in e for e in manifest["errors"])


def test_tool_version_matches_package():
    assert __version__ == capture.TOOL_VERSION


def test_cli_writes_dir_and_tar(tmp_path, capsys):
    root = build_fake_root(tmp_path / "host")
    os.environ["ROCMDOCTOR_ROOT"] = str(root)
    try:
        assert main(["capture", "-o", str(tmp_path / "out"), "--timeout", "5"]) == 0
        err = capsys.readouterr().err
        assert "captured" in err and "tools missing" in err and "lspci" in err
        assert json.loads((tmp_path / "out/manifest.json").read_text())["format"] == "rocmdoctor-capture/1"
        # an earlier capture in the same directory is replaced, a foreign directory is refused
        assert main(["capture", "-o", str(tmp_path / "out")]) == 0
        assert main(["capture", "-o", str(tmp_path / "out.tar.gz"), "--redact"]) == 0
    finally:
        del os.environ["ROCMDOCTOR_ROOT"]
    with tarfile.open(tmp_path / "out.tar.gz") as tar:
        names = tar.getnames()
        manifest = json.load(tar.extractfile("rocmdoctor-capture/manifest.json"))
    assert "rocmdoctor-capture/cmd/rocminfo.txt" in names
    assert manifest["redacted"] is True and manifest["hostname"] != HOSTNAME


def test_cli_bad_destinations(tmp_path, capsys):
    (tmp_path / "file").write_text("x")
    (tmp_path / "full").mkdir()
    (tmp_path / "full/keep.txt").write_text("mine")
    for args in (["-o", str(tmp_path / "file" / "sub")], ["-o", str(tmp_path / "file" / "x.tar.gz")],
                 ["-o", str(tmp_path / "full")], [], ["-o", "-rf"], ["-o", str(tmp_path / "d"), "--python",
                                                                    str(tmp_path / "nopython")]):
        assert main(["capture", *args]) == 2, args
        err = capsys.readouterr().err
        assert err.startswith("rocmdoctor: error:") and "Traceback" not in err
    assert (tmp_path / "full/keep.txt").read_text() == "mine"


def _standalone(tmp_path: Path, args: list[str], python: str) -> subprocess.CompletedProcess:
    src = Path(capture.__file__).read_bytes()
    env = {k: v for k, v in os.environ.items() if k != "ROCMDOCTOR_ROOT"}
    return subprocess.run([python, "-I", "-", *args], input=src, capture_output=True, cwd=tmp_path, env=env,
                          timeout=60)


def test_standalone_stdin_stdout_tar(tmp_path):
    proc = _standalone(tmp_path, ["--stdout-tar", "--quick", "--redact"], os.environ.get("PYTHON", "python3"))
    assert proc.returncode == 0, proc.stderr
    (tmp_path / "b.tar.gz").write_bytes(proc.stdout)
    with tarfile.open(tmp_path / "b.tar.gz") as tar:
        manifest = json.load(tar.extractfile("rocmdoctor-capture/manifest.json"))
        assert all(m.uname == "" and m.uid == 0 for m in tar.getmembers())
    assert manifest["format"] == "rocmdoctor-capture/1" and manifest["redacted"] is True
    assert b"captured" in proc.stderr
    bad = _standalone(tmp_path, ["--bogus"], "python3")
    assert bad.returncode == 2 and b"unknown argument" in bad.stderr


def test_standalone_runs_on_python36(tmp_path):
    import glob

    found = [*glob.glob(os.path.expanduser("~/.pyenv/versions/3.6*/bin/python3.6")), "/usr/bin/python3.6"]
    found = [p for p in found if os.path.exists(p)]
    if not found:
        pytest.skip("no Python 3.6 interpreter on this machine (the ast check below still covers syntax)")
    py36 = found[0]
    root = build_fake_root(tmp_path / "host")
    proc = _standalone(tmp_path, ["-o", str(tmp_path / "out"), "--root", str(root), "--quick", "--redact"], py36)
    assert proc.returncode == 0, proc.stderr
    manifest = json.loads((tmp_path / "out/manifest.json").read_text())
    assert manifest["hostname"].startswith("host-") and manifest["redacted"] is True
    assert HOSTNAME not in (tmp_path / "out/cmd/rocm-smi.txt").read_text()
    probe = json.loads((tmp_path / "out/cmd/torch-probe.json").read_text())
    assert probe["python"]["version"].startswith("3.6.") and probe["torch"] is None
    assert probe["python"]["tags"][0].startswith("cp36-cp36m-")


def test_source_parses_as_python36():
    import ast

    src = Path(capture.__file__).read_text()
    ast.parse(src, feature_version=(3, 6))
    ast.parse(capture.TORCH_PROBE, feature_version=(3, 6))
    assert "from __future__ import annotations" not in src
    imports = {n.names[0].name.split(".")[0] for n in ast.walk(ast.parse(src)) if isinstance(n, ast.Import)}
    imports |= {n.module.split(".")[0] for n in ast.walk(ast.parse(src)) if isinstance(n, ast.ImportFrom)}
    # pyudev is the one optional import (live device enumeration, guarded): without it capture uses sysfs.
    assert imports <= set(sys.stdlib_module_names) | {"pyudev"}, imports - set(sys.stdlib_module_names)


def test_runs_without_site_packages_so_pyudev_falls_back_to_sysfs(tmp_path):
    script = Path(capture.__file__).read_bytes()
    proc = subprocess.run([sys.executable, "-I", "-S", "-", "--stdout-tar", "--quick"], input=script,
                          capture_output=True, timeout=60)
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    import io
    import tarfile

    with tarfile.open(fileobj=io.BytesIO(proc.stdout), mode="r:gz") as tar:
        assert any(n.endswith("manifest.json") for n in tar.getnames())


def test_user_not_in_summary_or_unredacted_names(tmp_path):
    # without --redact the bundle is verbatim: the fake user is there (redaction is opt-in)
    root = build_fake_root(tmp_path / "host")
    files, _ = capture.collect(root=str(root), skip=(*capture.QUICK_SKIP, "torch-probe"))
    assert USER.encode() in files["cmd/id.txt"]


def test_collect_env_only_on_request(tmp_path):
    from capture_helpers import fake_bin

    py = fake_bin(tmp_path / "bin", ["python"], 'if [ "$2" = torch.utils.collect_env ]; then '
                  'echo "PyTorch version: 2.13.0+cpu"; else echo "{}"; fi') / "python"
    skip = ("pip-freeze", "pip-list", "dmesg", "docker-info")
    files, manifest = capture.collect(python=str(py), root=str(tmp_path / "noroot"), skip=skip)
    assert "cmd/collect_env.txt" not in files
    files, manifest = capture.collect(python=str(py), root=str(tmp_path / "noroot"), skip=skip, collect_env=True)
    assert files["cmd/collect_env.txt"] == b"PyTorch version: 2.13.0+cpu\n"
    entry = next(e for e in manifest["commands"] if e["file"] == "cmd/collect_env.txt")
    assert entry["argv"] == [str(py), "-m", "torch.utils.collect_env"] and entry["exit"] == 0


def test_cli_tar_to_stdout(tmp_path):
    root = build_fake_root(tmp_path / "host")
    env = dict(os.environ, ROCMDOCTOR_ROOT=str(root))
    proc = subprocess.run([sys.executable, "-m", "rocmdoctor", "capture", "-o", "-", "--timeout", "5"],
                          capture_output=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.count(b"\n") == 1 and b"-> stdout" in proc.stderr
    with tarfile.open(fileobj=io.BytesIO(proc.stdout)) as tar:
        assert tar.extractfile("rocmdoctor-capture/cmd/rocminfo.txt").read() == (MI210 / "rocminfo.txt").read_bytes()


def test_the_torch_probe_inside_capture_is_linted_like_a_file():
    """capture.py ships as one file (``python3 - < capture.py`` over SSH), so its torch probe stays a string;
    ruff still reads it, with the project's rules, as the file it would be (issue 15: no program unseen)."""
    ruff = [sys.executable, "-m", "ruff"]
    probe = subprocess.run([*ruff, "check", "--stdin-filename", "rocmdoctor/programs/torch_probe.py", "-"],
                           input=capture.TORCH_PROBE, capture_output=True, text=True,
                           cwd=Path(capture.__file__).parents[1], timeout=60)
    assert probe.returncode == 0, probe.stdout + probe.stderr
    bad = subprocess.run([*ruff, "check", "--stdin-filename", "rocmdoctor/programs/torch_probe.py", "-"],
                         input="import shlex\n" + capture.TORCH_PROBE, capture_output=True, text=True,
                         cwd=Path(capture.__file__).parents[1], timeout=60)
    assert bad.returncode == 1 and "F401" in bad.stdout  # not vacuous: the same call sees an unused import
