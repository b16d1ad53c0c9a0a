"""Rules taught by the blind field rounds (fixtures/README.md, "Field fixtures"): each test states the general
rule with the thread it came from, and a look-alike that must not trigger it."""

from __future__ import annotations

from pathlib import Path

from rocmdoctor.bundle import load_host
from rocmdoctor.diagnose import judge_host
from rocmdoctor.model import Severity


def judged(tmp_path: Path, text: str, name: str = "paste.txt") -> dict[str, list]:
    p = tmp_path / name
    p.write_text(text)
    out: dict[str, list] = {}
    for f in judge_host(load_host(p)):
        out.setdefault(f.id, []).append(f)
    return out


def problems(found: dict[str, list]) -> dict[str, str]:
    return {fid: max((f.severity for f in fs), key=lambda s: s.rank).value for fid, fs in found.items()
            if any(f.severity in (Severity.WARN, Severity.FAIL) for f in fs)}


def test_a_source_built_bitsandbytes_looking_for_torchs_rocm_library_is_a_rocm_mismatch(tmp_path: Path) -> None:
    """ROCm/bitsandbytes#82: built with the system's ROCm 6.4, asked at run time for the rocm63 library."""
    line = ("Could not find the bitsandbytes ROCm binary at PosixPath('/home/u/src/bitsandbytes/bitsandbytes/"
            "libbitsandbytes_rocm63.so')\n")
    found = problems(judged(tmp_path, line))
    assert found == {"torch.rocm-mismatch": "warn", "log.bitsandbytes-no-gpu": "warn"}
    # a pip-installed bitsandbytes lacking the library is a release without it, not a build against another ROCm
    wheel = line.replace("/home/u/src/bitsandbytes/", "/home/u/.venv/lib/python3.12/site-packages/")
    assert problems(judged(tmp_path, wheel, "w.txt")) == {"log.bitsandbytes-no-gpu": "warn"}
