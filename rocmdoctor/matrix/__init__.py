"""The compatibility data in ``matrices/`` as a typed, cached ``Matrix`` (the only package that reads it).

Re-exports only: the rows live in ``types``, the lookups in ``query``, reading/validating/caching in
``load``, the schema and build step in ``build``; ``derive``/``update`` refresh the data and ``view``
prints it.  Submodules import each other directly, never this file.  Note: ``rocmdoctor.matrix.load`` as an
attribute is the function; reach the module with ``from rocmdoctor.matrix.load import ...`` or importlib.
"""

from __future__ import annotations

from rocmdoctor.matrix.load import load, load_raw, read_toml
from rocmdoctor.matrix.query import Matrix, _vtuple, kernel_matches
from rocmdoctor.matrix.types import (
    AppSupport,
    Breakage,
    Channel,
    DkmsBuild,
    GpuProduct,
    GpuTarget,
    KmdDeclaration,
    NightlyEpoch,
    OsSupport,
    RocmRelease,
    SupportStatus,
    TorchVariant,
)

__all__ = [  # the row types are the public shape of Matrix's fields; _vtuple stays for the tests that use it
    "AppSupport", "Breakage", "Channel", "DkmsBuild", "GpuProduct", "GpuTarget", "KmdDeclaration",
    "Matrix", "NightlyEpoch", "OsSupport", "RocmRelease", "SupportStatus", "TorchVariant", "_vtuple",
    "kernel_matches", "load", "load_raw", "read_toml",
]
