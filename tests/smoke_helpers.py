"""Shared helpers for the smoke tests: real runs of rocmdoctor/programs/smoke_torch.py with the real CPU torch."""

from __future__ import annotations

import importlib.util
import os
import stat
import sys
from pathlib import Path
from typing import Optional

from rocmdoctor.model import Finding, Severity
from rocmdoctor.smoke import SmokeOptions, SmokeReport, run_smoke

HAS_TORCH = importlib.util.find_spec("torch") is not None
HAS_TRITON = importlib.util.find_spec("triton") is not None
TORCH_REASON = "needs the CPU torch in this interpreter: pip install torch==2.13.0"
TRITON_REASON = "needs triton (interpreter mode on CPU): pip install triton==3.8.0"


def env_with(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ROCMDOCTOR_SMOKE_") and k != "HIPCC"}
    env.update(extra)
    return env


def run(level: int = 1, cpu: bool = True, timeout: float = 180.0, env: Optional[dict[str, str]] = None,
        python: Optional[str] = None, duration: Optional[float] = None) -> SmokeReport:
    opts = SmokeOptions(python=python or sys.executable, level=level, cpu=cpu, timeout=timeout, quick=True,
                        duration=duration, env=env if env is not None else env_with())
    return run_smoke(opts)


def by_id(findings: list[Finding]) -> dict[str, Finding]:
    out: dict[str, Finding] = {}
    for f in findings:
        assert f.id not in out, f"duplicate finding id {f.id}"
        out[f.id] = f
    return out


def problems(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if f.severity in (Severity.WARN, Severity.FAIL, Severity.ERROR)]


def fake_hipcc(dirpath: Path, works: bool) -> Path:
    """A stand-in for hipcc (no ROCm toolchain or GPU can exist here): it 'builds' an executable that prints
    what the real axpy program prints, or fails like a compiler that does not know the target."""
    path = dirpath / ("hipcc-ok" if works else "hipcc-broken")
    if works:
        body = (
            "import os, sys\n"
            "out = sys.argv[sys.argv.index('-o') + 1]\n"
            "open(out, 'w').write('#!/bin/sh\\necho ROCMDOCTOR_HIP n=1048576 bad=0\\n')\n"
            "os.chmod(out, 0o755)\n"
        )
    else:
        body = ("import sys\n"
                "sys.stderr.write('clang: error: unsupported HIP gpu architecture: gfx000\\n')\n"
                "sys.exit(1)\n")
    path.write_text(f"#!{sys.executable}\n{body}")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def process_gone(pid: int) -> bool:
    """True when ``pid`` no longer runs (absent, or a zombie waiting for its reaper)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            state = fh.read().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return True
    return state in ("Z", "X")
