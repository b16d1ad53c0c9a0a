"""The torch probe: what the target interpreter's torch is, found without importing torch."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rocmdoctor import capture


def _probe(python: str, tmp_path: Path, env: dict | None = None) -> dict:
    import os

    run_env = dict(os.environ, **(env or {}))
    proc = subprocess.run([python, "-c", capture.TORCH_PROBE], capture_output=True, env=run_env, cwd=tmp_path,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.fixture(scope="module")
def real_torch() -> str:
    """The real CPU torch 2.13.0 in this interpreter (installed from the local wheel store if missing)."""
    try:
        import importlib.metadata as md

        version = md.version("torch")
    except Exception:
        version = None
    if version is None or not version.startswith("2.13.0"):
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "torch==2.13.0"], check=True, timeout=600)
    return sys.executable


def test_probe_real_cpu_torch(real_torch, tmp_path):
    out = _probe(real_torch, tmp_path)
    torch = out["torch"]
    assert torch["version"] in ("2.13.0", "2.13.0+cpu")
    assert torch["hip"] is None and torch["cuda"] is None
    assert torch["git_version"] and len(torch["git_version"]) >= 7
    assert Path(torch["location"]).name == "torch" and (Path(torch["location"]) / "version.py").is_file()
    assert not [lib for lib in torch["bundled_libs"] if lib.startswith(("libamdhip64", "libcudart"))]
    assert out["distributions"]["torch"] == torch["version"]
    py = out["python"]
    assert py["executable"] == sys.executable
    assert py["version"] == ".".join(map(str, sys.version_info[:3]))
    assert py["implementation"] == "cpython"
    tag = f"cp{sys.version_info[0]}{sys.version_info[1]}"
    assert py["tags"][0].startswith(f"{tag}-{tag}-manylinux_2_")
    assert f"{tag}-{tag}-manylinux_2_28_x86_64" in py["tags"]  # the local torch wheel's own tag
    assert py["tags"][-1] == "py3-none-any"


def test_probe_reads_rocm_wheel_without_importing_it(tmp_path):
    """A ROCm torch whose __init__ would leave a marker (and fail): the probe must not execute it."""
    site = tmp_path / "site"
    pkg = site / "torch"
    (pkg / "lib").mkdir(parents=True)
    marker = tmp_path / "IMPORTED"
    (pkg / "__init__.py").write_text(f"open({str(marker)!r}, 'w').close()\nraise SystemExit('imported!')\n")
    (pkg / "version.py").write_text(
        "from typing import Optional\n__all__ = ['__version__']\n__version__ = '2.5.1+rocm6.2'\ndebug = False\n"
        "cuda: Optional[str] = None\ngit_version = 'a8d6afb511a69687bbb2b7e88a3cf67917e1697e'\n"
        "hip: Optional[str] = '6.2.41133-dd7f95766'\n")
    for lib in ("libamdhip64.so", "libhsa-runtime64.so", "libMIOpen.so", "libtorch_hip.so", "libc10.so"):
        (pkg / "lib" / lib).write_bytes(b"")
    dist = site / "torch-2.5.1+rocm6.2.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: torch\nVersion: 2.5.1+rocm6.2\n")
    tri = site / "pytorch_triton_rocm-3.1.0.dist-info"
    tri.mkdir()
    (tri / "METADATA").write_text("Metadata-Version: 2.1\nName: pytorch-triton-rocm\nVersion: 3.1.0\n")
    out = _probe(sys.executable, tmp_path, {"PYTHONPATH": str(site)})
    assert not marker.exists()
    assert out["torch"] == {"version": "2.5.1+rocm6.2", "hip": "6.2.41133-dd7f95766", "cuda": None,
                            "git_version": "a8d6afb511a69687bbb2b7e88a3cf67917e1697e", "location": str(pkg),
                            "bundled_libs": ["libMIOpen.so", "libamdhip64.so", "libhsa-runtime64.so"]}
    assert out["distributions"]["torch"] == "2.5.1+rocm6.2"
    assert out["distributions"]["pytorch-triton-rocm"] == "3.1.0"


def test_probe_without_torch_is_null(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    out = _probe(str(venv / "bin/python"), tmp_path)
    assert out["torch"] is None
    assert "torch" not in out["distributions"]
    assert out["python"]["prefix"] == str(venv)


def test_probe_through_collect_with_python_option(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    files, manifest = capture.collect(python=str(venv / "bin/python"), root=str(tmp_path / "noroot"),
                                      skip=("pip-freeze", "pip-list", "dmesg", "docker-info"))
    probe = json.loads(files["cmd/torch-probe.json"])
    assert probe["torch"] is None and probe["python"]["executable"] == str(venv / "bin/python")
    entry = next(e for e in manifest["commands"] if e["file"] == "cmd/torch-probe.json")
    assert entry["exit"] == 0 and entry["argv"][0] == str(venv / "bin/python")
    assert manifest["python"] == str(venv / "bin/python")
