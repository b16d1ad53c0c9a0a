"""The README's first command, `bash scripts/demo.sh`, on a fresh Debian 12 whose python3 is externally managed.

Debian 12 (like Ubuntu 24.04) marks its system Python as externally managed (PEP 668): `pip install` into
it stops with `externally-managed-environment`. The script must make the project's own virtual environment
and run the tool from it. The container is the suite's debootstrapped bookworm base (real Debian packages:
python3.11, python3.11-venv and the wheels Debian ships for ensurepip), run without a network; the
package's dependencies come from a directory of wheels made here with this machine's pip, the way a user
behind a mirror or offline would point pip at one (PIP_FIND_LINKS, PIP_NO_INDEX).
"""

from __future__ import annotations

import io
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from container_helpers import BASE_PYTHON, BASE_TAG, REPO, docker_client, ensure_base_image

pytestmark = [pytest.mark.docker, pytest.mark.slow]

FIXTURE = "fixtures/rx7900xtx-dkms-build-fails-kernel-6.5"
UID = 1000  # an ordinary user, as on a fresh desktop: no root, no sudo


def _clean_copy_files() -> list[Path]:
    """What a fresh clone holds: tracked and untracked-but-not-ignored files (no .venv, no build outputs)."""
    out = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z", "-co", "--exclude-standard"],
                         capture_output=True, check=False)
    if out.returncode != 0:
        pytest.skip("not a git checkout: cannot tell a clean copy from build outputs")
    files = [REPO / p for p in out.stdout.decode().split("\0") if p]
    return [f for f in files if f.is_file() and not f.is_symlink()]


def _wheelhouse(dest: Path) -> Path:
    """Wheels for the package's dependencies and its build backend, fetched with this machine's pip."""
    cmd = [sys.executable, "-m", "pip", "download", "-q", "--only-binary=:all:", "-d", str(dest),
           "--python-version", BASE_PYTHON, str(REPO), "setuptools>=70.1"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        pytest.skip(f"no wheel index reachable from this machine for the demo's dependencies: {r.stderr[-300:]}")
    return dest


def _tar(files: list[tuple[str, Path]]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for d in ("src", "wheels", "home"):
            info = tarfile.TarInfo(d)
            info.type, info.mode, info.uid, info.gid = tarfile.DIRTYPE, 0o755, UID, UID
            tar.addfile(info)
        for name, path in files:
            info = tar.gettarinfo(str(path), arcname=name)
            info.uid = info.gid = UID
            info.uname = info.gname = ""
            with path.open("rb") as f:
                tar.addfile(info, f)
    return buf.getvalue()


SCRIPT = f"""
set -u
# The python3 package is only this symlink (and the man page) over python{BASE_PYTHON}; debootstrap's minbase
# with --include=python{BASE_PYTHON} leaves it out.
[ -e /usr/bin/python3 ] || ln -s python{BASE_PYTHON} /usr/bin/python3
test -f /usr/lib/python{BASE_PYTHON}/EXTERNALLY-MANAGED && echo MARKER:externally-managed
su -s /bin/bash -c 'cd /src && bash scripts/demo.sh; echo "MARKER:demo-exit=$?"; \
  bash scripts/demo.sh >/dev/null 2>&1; echo "MARKER:second-exit=$?"; \
  .venv/bin/rocmdoctor check --help >/dev/null; echo "MARKER:help-exit=$?"' \
  "$(getent passwd {UID} | cut -d: -f1)"
python3 -c 'import typer' 2>/dev/null && echo MARKER:system-python-touched
echo MARKER:done
"""


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory):
    client = docker_client()
    if client is None:
        pytest.skip("Docker daemon not reachable (start dockerd: see scripts/setup.sh)")
    ensure_base_image(client)
    wheels = _wheelhouse(tmp_path_factory.mktemp("wheelhouse"))
    members = [(f"src/{p.relative_to(REPO).as_posix()}", p) for p in _clean_copy_files()]
    members += [(f"wheels/{w.name}", w) for w in sorted(wheels.iterdir())]
    user = f"useradd -m -u {UID} newuser 2>/dev/null || true; "
    container = client.containers.create(
        BASE_TAG, ["bash", "-c", user + SCRIPT], network_disabled=True, working_dir="/",
        environment={"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": "/wheels", "PIP_DISABLE_PIP_VERSION_CHECK": "1",
                     "NO_COLOR": "1", "LANG": "C.UTF-8"},
        labels={"io.rocmdoctor.test": "1"},
    )
    try:
        container.put_archive("/", _tar(members))
        container.start()
        status = container.wait(timeout=900)
        out = container.logs(stdout=True, stderr=False).decode(errors="replace")
        err = container.logs(stdout=False, stderr=True).decode(errors="replace")
    finally:
        container.remove(force=True)
    return {"status": status, "out": out, "err": err}


def test_demo_runs_in_its_own_venv_on_an_externally_managed_python(demo_run):
    out, err = demo_run["out"], demo_run["err"]
    assert "MARKER:done" in out, err[-2000:]
    assert "MARKER:externally-managed" in out  # the premise: pip would refuse the system Python here
    # The fixture's established cause (ROCm/ROCm#2886): amdgpu-dkms 6.3.6 does not build on kernel 6.5.
    assert "MARKER:demo-exit=1" in out, (out[-3000:], err[-3000:])
    assert "driver.dkms-breakage" in out and "amdgpu-dkms 6.3.6" in out
    assert f"judging the bundled fixture {FIXTURE}" in err
    assert "creating the virtual environment .venv" in err
    assert "externally-managed-environment" not in out + err
    # A second run reuses the environment; the tool runs from it; the system Python got nothing.
    assert "MARKER:second-exit=1" in out
    assert "MARKER:help-exit=0" in out
    assert "MARKER:system-python-touched" not in out

