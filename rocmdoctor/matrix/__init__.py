"""The compatibility data in ``matrices/`` as a typed, cached ``Matrix`` (the only package that reads it).

Re-exports only: the rows live in ``types``, the lookups in ``query``, reading/validating/caching in
``load``, the schema and build step in ``build``; ``derive``/``update`` refresh the data and ``view``
prints it.  Submodules import each other directly, never this file.
"""

from __future__ import annotations

from rocmdoctor.matrix.load import load, load_raw, read_toml
from rocmdoctor.matrix.query import KMD_RULE_YEAR_FROM, Matrix, _vtuple, kernel_matches
from rocmdoctor.matrix.types import (
    Breakage,
    Channel,
    DkmsBuild,
    GpuProduct,
    GpuTarget,
    KmdDeclaration,
    OsSupport,
    RocmRelease,
    SupportStatus,
    TorchVariant,
)

__all__ = [
    "KMD_RULE_YEAR_FROM", "Breakage", "Channel", "DkmsBuild", "GpuProduct", "GpuTarget", "KmdDeclaration",
    "Matrix", "OsSupport", "RocmRelease", "SupportStatus", "TorchVariant", "_vtuple", "kernel_matches", "load",
    "load_raw", "read_toml",
]
