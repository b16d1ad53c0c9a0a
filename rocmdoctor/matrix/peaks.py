"""Which matrix product a torch device is, and that product's datasheet peaks and compute units.

The numbers are matrix data (``matrices/gpus.toml``: ``peak_hbm_bw_gbs``, ``peak_fp16_tflops``,
``peak_bf16_tflops`` with their ``peak_source``, and ``compute_units`` from rocm/gpu-arch-specs.rst); this
module only answers the query, so no product figure lives in Python. It reads the loaded matrix through the
small protocols below instead of importing the package's ``__init__`` (a submodule never does).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Optional, Protocol

# The product fields that hold a peak a smoke measurement can be compared with.
PEAK_FIELDS = ("peak_hbm_bw_gbs", "peak_fp16_tflops", "peak_bf16_tflops")


class _Product(Protocol):
    """What this module reads of a product (``GpuProduct``; peaks are read by field name)."""

    @property
    def name(self) -> str: ...
    @property
    def compute_units(self) -> Optional[int]: ...


class _Target(Protocol):
    """What this module reads of a gfx target (``GpuTarget``)."""

    @property
    def products(self) -> Sequence[_Product]: ...


class _Matrix(Protocol):
    """What this module reads of the loaded matrix (``Matrix``)."""

    @property
    def gpus(self) -> Mapping[str, _Target]: ...
    def gpu(self, key: str) -> Optional[_Target]: ...


@dataclass(frozen=True)
class DevicePeaks:
    """A device's product and the whole product's figures (a GCD or a partition gets a share of them)."""

    product: str
    peaks: dict[str, float]  # PEAK_FIELDS name -> peak of the whole product, only those the matrix has
    compute_units: Optional[int]  # CUs of the whole product (an MI250X: both GCDs)


def device_product(matrix: _Matrix, name: Optional[str], arch: Optional[str]) -> Optional[_Product]:
    """The matrix product a torch device is: the longest product name inside torch's device name ("AMD Instinct
    MI300X" -> "MI300X"), preferring the products of the device's gfx target; a gfx target with a single
    product needs no name. Anything else (an NVIDIA GPU, a generic name) is no product."""
    if not arch or not arch.startswith("gfx"):
        return None
    target = matrix.gpu(arch)
    own = list(target.products) if target is not None else []
    prod = _name_match(own, name) or _name_match([p for t in matrix.gpus.values() for p in t.products], name)
    if prod is None and len(own) == 1:
        prod = own[0]
    return prod


def device_peaks(matrix: _Matrix, name: Optional[str], arch: Optional[str]) -> Optional[DevicePeaks]:
    """:func:`device_product` with its peaks (None when the device is no matrix product)."""
    prod = device_product(matrix, name, arch)
    if prod is None:
        return None
    peaks = {f: float(v) for f in PEAK_FIELDS if (v := getattr(prod, f, None))}
    return DevicePeaks(prod.name, peaks, prod.compute_units)


def product_compute_units(matrix: _Matrix) -> dict[str, int]:
    """Product name -> compute units of the whole product, for every product with a peak to scale."""
    return {p.name: p.compute_units for t in matrix.gpus.values() for p in t.products
            if p.compute_units and any(getattr(p, f, None) for f in PEAK_FIELDS)}


def _name_match(products: Iterable[_Product], name: Optional[str]) -> Optional[_Product]:
    """The product whose whole name appears in ``name`` as words; the longest when several do."""
    if not name:
        return None
    low = f" {' '.join(name.lower().replace('/', ' ').split())} "  # "AMD Instinct MI250X/MI250": one GCD
    hits = [p for p in products if f" {' '.join(p.name.lower().split())} " in low]
    return max(hits, key=lambda p: len(p.name), default=None)
