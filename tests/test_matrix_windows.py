"""matrices/windows.toml is derived by code from pinned excerpts of AMD's HIP SDK for Windows documentation; each
spot fact below was read in the upstream file (branch and line given), never taken from the tool's output."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocmdoctor import matrix as mx
from rocmdoctor.matrix import derive_windows as dw
from rocmdoctor.matrix.offline import run_offline

REPO = Path(__file__).resolve().parent.parent
UPSTREAM = REPO / "matrices" / "upstream"


@pytest.fixture(scope="module")
def m() -> mx.Matrix:
    return mx.load(use_cache=False)


def test_committed_table_is_the_derivation() -> None:
    assert (REPO / "matrices" / "windows.toml").read_text(encoding="utf-8") == dw.derive_text(UPSTREAM)


def test_offline_update_covers_the_windows_table() -> None:
    diff, summary = run_offline(write=False)
    assert diff == "" and "9 Windows HIP SDK lists" in summary


@pytest.mark.parametrize(("release", "gfx", "runtime", "sdk", "listed"), [
    ("6.0.0", "gfx1100", True, True, True),  # docs/6.0.0 L40: "AMD Radeon Pro™ W7900", "RDNA3", "gfx1100", ✅, ✅
    ("6.0.0", "gfx1101", False, False, False),  # docs/6.0.0: no RDNA3 gfx1101 row (W7700 arrives in 6.0.2)
    ("6.0.2", "gfx1101", True, True, True),  # docs/6.0.2 L44: "AMD Radeon PRO W7700", "RDNA3", "gfx1101", ✅, ✅
    ("6.2.4", "gfx1031", True, False, True),  # docs/6.2.4 L66: "AMD Radeon RX 6750 XT", "gfx1031", ✅, ❌
    ("6.2.4", "gfx906", False, False, True),  # docs/6.2.4 L48: "AMD Radeon PRO VII", "GCN5.1", "gfx906", ❌, ❌
    ("6.2.4", "gfx1200", False, False, False),  # no RDNA4 row before the docs' 6.4 tables
])
def test_spot_facts(m: mx.Matrix, release: str, gfx: str, runtime: bool, sdk: bool, listed: bool) -> None:
    rt, hip_sdk, on_rows, source = m.windows_sdk[release]
    assert (gfx in rt, gfx in hip_sdk, gfx in on_rows) == (runtime, sdk, listed)
    assert source.startswith("https://github.com/ROCm/rocm-install-on-windows/blob/")


def test_a_series_is_the_union_of_its_releases(m: mx.Matrix) -> None:
    listed = m.windows_list("6.0")
    assert listed is not None and "gfx1101" in listed[0] and len(listed[2]) == 2  # 6.0.0 and 6.0.2
    assert m.windows_list("6.0.0") is not None and "gfx1101" in m.windows_list("6.0")[0]
    assert m.windows_list("6.4") is None and m.windows_list("5.7") is None and m.windows_list("7.2") is None
