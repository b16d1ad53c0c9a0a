"""Shared helpers for the parser and bundle tests: where the real captures are, and a bundle writer."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

CAPTURES = Path(os.environ.get("ROCMDOCTOR_CAPTURES", Path(__file__).resolve().parents[2] / "shared" / "captures"))


def capture(name: str, file: str) -> str:
    """The text of one real capture file (skips the test where ../shared is not present)."""
    path = CAPTURES / name / file
    if not path.is_file():
        pytest.skip(f"capture {name}/{file} not available")
    return path.read_bytes().decode("utf-8", errors="replace")


def write_bundle(top: Path, files: dict[str, str | bytes]) -> Path:
    """Write ``{bundle path: content}`` below ``top`` and return ``top``."""
    for rel, content in files.items():
        path = top / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, str):
            path.write_text(content, encoding="utf-8")
        else:
            path.write_bytes(content)
    return top


KFD_CPU = "cpu_cores_count 8\nsimd_count 0\nmem_banks_count 1\ngfx_target_version 0\nvendor_id 0\ndevice_id 0\n"


def kfd_gpu(gtv: int, device_id: int, location_id: int, cores: int = 0, simd: int = 80) -> str:
    """A KFD node properties file as the kernel writes it."""
    return (
        f"cpu_cores_count {cores}\nsimd_count {simd}\nmem_banks_count 1\ncaches_count 70\n"
        f"gfx_target_version {gtv}\nvendor_id 4098\ndevice_id {device_id}\nlocation_id {location_id}\n"
        f"domain 0\ndrm_render_minor 128\nsimd_per_cu 2\n"
    )
