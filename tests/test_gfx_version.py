"""The one gfx converter (rocmdoctor.parse.kfd): gfx names <-> (major, minor, stepping), in KFD's integer form
and in HSA_OVERRIDE_GFX_VERSION's string form. Issue 15: three copies disagreed ("10.3.16" -> None in the
judge, "gfx10310" in install.resolve).

Expected values are upstream's, not the code's:
- ROCm/ROCR-Runtime src/core/runtime/isa.cpp: ISAREG_ENTRY_GEN("gfx90a", 9, 0, 10, ...),
  ("gfx90c", 9, 0, 12, ...), ("gfx942", 9, 4, 2, ...), ("gfx1030", 10, 3, 0, ...), ("gfx1151", 11, 5, 1, ...).
- Linux drivers/gpu/drm/amd/amdkfd/kfd_device.c: Aldebaran gfx_target_version = 90010, Renoir 90012,
  Navi14 100102 (gfx1012), Vega20 90006 (gfx906), Arcturus 90008 (gfx908).
- ROCT-Thunk-Interface src/topology.c: sscanf(envvar, "%u.%u.%u%c", ...) in decimal, major <= 63.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rocmdoctor.install.resolve import override_gfx
from rocmdoctor.judge.facts import override_in_effect
from rocmdoctor.model import GpuInfo, Host
from rocmdoctor.parse.kfd import (
    gfx_from_target_version,
    gfx_from_version,
    gfx_name,
    gfx_parts,
    target_version_of_gfx,
    version_of_gfx,
)

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# (gfx, version, KFD gfx_target_version) from the upstream sources above; several have a two-digit stepping
UPSTREAM = [
    ("gfx90a", (9, 0, 10), 90010),   # isa.cpp 9, 0, 10; kfd_device.c Aldebaran 90010
    ("gfx90c", (9, 0, 12), 90012),   # isa.cpp 9, 0, 12; kfd_device.c Renoir 90012
    ("gfx906", (9, 0, 6), 90006),    # kfd_device.c Vega20
    ("gfx908", (9, 0, 8), 90008),    # kfd_device.c Arcturus
    ("gfx942", (9, 4, 2), 90402),
    ("gfx1012", (10, 1, 2), 100102),  # kfd_device.c Navi14
    ("gfx1030", (10, 3, 0), 100300),
    ("gfx1100", (11, 0, 0), 110000),
    ("gfx1151", (11, 5, 1), 110501),
]


@pytest.mark.parametrize(("gfx", "version", "kfd"), UPSTREAM, ids=[u[0] for u in UPSTREAM])
def test_upstream_examples_in_every_form(gfx, version, kfd):
    text = ".".join(map(str, version))
    assert gfx_name(*version) == gfx and gfx_parts(gfx) == version
    assert gfx_from_target_version(kfd) == gfx and target_version_of_gfx(gfx) == kfd
    assert gfx_from_version(text) == gfx and version_of_gfx(gfx) == text
    assert override_gfx(text) == gfx  # install uses the same converter


@pytest.mark.parametrize("value", ["10.3.16", "9.0.16", "9.16.0", "10.3.255", "64.0.0", "0.0.0", "10.3", "10.3.0.1",
                                   "gfx1030", "1030", "", " ", "10.3.x", "-1.0.0", "9" * 5000 + ".0.0"])
def test_no_isa_has_these_versions(value):
    """A minor or stepping over 15 has no one-digit hex form and no entry in ROCR's ISA registry; "10.3.16" used
    to become gfx10310 in install.resolve (a five-digit name no ISA has)."""
    assert gfx_from_version(value) is None
    assert override_gfx(value) is None


@pytest.mark.parametrize("value", [100316, 91600, 90099, 640000, 0, -5, 10**12])
def test_no_isa_has_these_target_versions(value):
    assert gfx_from_target_version(value) is None


@pytest.mark.parametrize("gfx", ["gfx", "gfx1", "gfx10310", "gfx000", "gfx90A", "gfx90a:xnack-", "gfx0a0", "GFX90a"])
def test_not_a_gfx_name(gfx):
    assert gfx_parts(gfx) is None and version_of_gfx(gfx) is None and target_version_of_gfx(gfx) is None


def test_surrounding_whitespace_of_a_captured_value_is_ignored():
    assert gfx_from_version(" 10.3.0\n") == "gfx1030"


@FUZZ
@given(st.integers(1, 63), st.integers(0, 15), st.integers(0, 15))
def test_every_nameable_version_round_trips(major, minor, stepping):
    gfx = gfx_name(major, minor, stepping)
    assert gfx is not None and gfx_parts(gfx) == (major, minor, stepping)
    assert gfx_from_version(version_of_gfx(gfx) or "") == gfx
    assert gfx_from_target_version(target_version_of_gfx(gfx) or 0) == gfx


@FUZZ
@given(st.integers(0, 200), st.integers(0, 99), st.integers(0, 99))
def test_the_string_and_kfd_forms_agree(major, minor, stepping):
    assert gfx_from_version(f"{major}.{minor}.{stepping}") == \
        gfx_from_target_version(major * 10000 + minor * 100 + stepping)


@FUZZ
@given(st.text(max_size=40))
def test_gfx_from_version_is_total(text):
    gfx = gfx_from_version(text)
    assert gfx is None or gfx_parts(gfx) is not None


def test_the_judge_reads_the_override_with_the_same_converter():
    gpu = GpuInfo(index=0, gfx="gfx1031", gfx_by_source={"kfd": "gfx1031"})
    assert override_in_effect(Host(env={"HSA_OVERRIDE_GFX_VERSION": "10.3.0"}, gpus=[gpu]), gpu) == "gfx1030"
    assert override_in_effect(Host(env={"HSA_OVERRIDE_GFX_VERSION": "10.3.16"}, gpus=[gpu]), gpu) is None
