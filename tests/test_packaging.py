"""The wheel ships what the README promises (matrices, smoke programs, fixtures, data); the package list is complete."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_every_python_package_is_listed_in_pyproject():
    try:
        import tomllib
    except ModuleNotFoundError:  # pragma: no cover
        import tomli as tomllib
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    on_disk = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "rocmdoctor").rglob("__init__.py")
               if "__pycache__" not in p.parts}
    assert on_disk <= listed, on_disk - listed


@pytest.mark.slow
def test_wheel_contains_data_programs_and_fixtures(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                           "-w", str(tmp_path), str(ROOT)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    wheel = next(tmp_path.glob("rocmdoctor-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for must in ("rocmdoctor/matrices/releases.toml", "rocmdoctor/matrices/gpus.toml",
                 "rocmdoctor/matrices/torch_builds.toml",  # derived; its sources ship too (matrix update --offline)
                 "rocmdoctor/matrices/upstream/pytorch/pytorch/arch-changes.toml",
                 "rocmdoctor/matrices/upstream/pytorch/test-infra/release-2.6/generate_binary_build_matrix.py.excerpt",
                 "rocmdoctor/programs/smoke_torch.py",
                 "rocmdoctor/data/amdgpu.ids", "rocmdoctor/data/signatures.toml", "rocmdoctor/capture.py",
                 "rocmdoctor/data/templates/fleet.html.j2", "rocmdoctor/data/templates/host.html.j2",
                 "rocmdoctor/data/templates/_base.html.j2", "rocmdoctor/data/templates/_macros.html.j2",
                 "rocmdoctor/fixtures/rx7900xtx-dkms-build-fails-kernel-6.5/expected.json"):
        assert must in names, must
    assert any(n.startswith("rocmdoctor/fixtures/") and n.endswith("/cmd/rocminfo.txt") for n in names)


@pytest.mark.slow
def test_installed_wheel_judges_a_bundled_fixture_from_anywhere(tmp_path):
    wheels = tmp_path / "w"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(wheels),
                    str(ROOT)], check=True, capture_output=True, timeout=300)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    py = venv / "bin" / "python"
    # Its dependencies come from the environment running this test (typer, rich, ... of the [test] venv), appended
    # to sys.path by a .pth file. Not --system-site-packages: that is the base interpreter's, which on a fresh
    # machine has none of them. A path line adds the directory only: the editable rocmdoctor there (its own .pth
    # hook) is not activated, so `import rocmdoctor` can only find the installed wheel.
    site_dir = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                              check=True, capture_output=True, text=True).stdout.strip()
    here = sysconfig.get_paths()
    (Path(site_dir) / "_test_deps.pth").write_text("\n".join(sorted({here["purelib"], here["platlib"]})) + "\n")
    # install the wheel into the venv
    subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "-q", "--no-deps", "--no-index",
                    str(next(wheels.glob("*.whl")))], check=True, capture_output=True, timeout=300)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    proc = subprocess.run([str(py), "-I", "-m", "rocmdoctor", "check", "--from",
                           "fixtures/rx7900xtx-dkms-build-fails-kernel-6.5", "--json"],
                          capture_output=True, text=True, cwd=elsewhere, timeout=120)
    assert proc.returncode == 1, proc.stderr
    import json

    report = json.loads(proc.stdout)
    assert "site-packages/rocmdoctor/fixtures" in report["host"]["origin"]
    assert any(f["id"] == "driver.dkms-failed" and f["severity"] == "fail" for f in report["findings"])
    # the HTML report's templates ship too
    proc = subprocess.run([str(py), "-I", "-m", "rocmdoctor", "check", "--from",
                           "fixtures/rx7900xtx-dkms-build-fails-kernel-6.5", "--format", "html", "-o", "r.html"],
                          capture_output=True, text=True, cwd=elsewhere, timeout=120)
    assert proc.returncode == 1, proc.stderr
    assert "driver.dkms-failed" in (elsewhere / "r.html").read_text()
