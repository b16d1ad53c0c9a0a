"""The product figures smoke judges with come from the matrix (rocmdoctor/matrix/peaks.py over
matrices/gpus.toml), not from a table in Python."""

from __future__ import annotations

from rocmdoctor import matrix as matrix_mod
from rocmdoctor.matrix.peaks import PEAK_FIELDS, device_peaks, device_product

MATRIX = matrix_mod.load()


def test_every_product_with_a_peak_has_its_compute_units() -> None:
    """Without them a GCD (MI250X) or a partition (MI300X CPX) would be judged against the whole package's peak:
    a false 'below threshold' on a healthy GPU."""
    missing = [p.name for t in MATRIX.gpus.values() for p in t.products
               if any(getattr(p, f) for f in PEAK_FIELDS) and not p.compute_units]
    assert not missing


def test_a_device_resolves_to_its_product_and_that_products_figures() -> None:
    found = device_peaks(MATRIX, "AMD Instinct MI250X / MI250", "gfx90a")
    prod = MATRIX.product("MI250X")
    assert found is not None and prod is not None and found.product == "MI250X"
    assert found.compute_units == prod.compute_units
    assert found.peaks == {f: getattr(prod, f) for f in PEAK_FIELDS if getattr(prod, f)}


def test_what_is_no_amd_product_has_no_peaks() -> None:
    assert device_peaks(MATRIX, "NVIDIA H200", "sm_90") is None
    assert device_product(MATRIX, "AMD Instinct MI300X", None) is None  # no gfx: no guess from the name alone
    assert device_product(MATRIX, None, "gfx1030") is None  # several products share gfx1030: no name, no guess
