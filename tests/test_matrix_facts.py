"""Spot facts of the DKMS breakage ranges, the kernel-driver windows and the smaller facts fixed in issue 11.

Each case names its source in its parametrize id or a comment (the upstream thread or reference file), and
was written from that source, not from the tool's output. Also: the order of evidence in `check` (a bundle's
own `installed` for the running kernel beats any table row).
"""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest

from rocmdoctor import matrix as mx
from rocmdoctor.diagnose import judge_host
from rocmdoctor.install.resolve import ResolveOptions, resolve
from rocmdoctor.matrix import Breakage
from rocmdoctor.model import DkmsEntry, DkmsInfo, Fact, Finding, GpuInfo, Host, KernelInfo, OsInfo, PythonInfo, Source

REPO = Path(__file__).resolve().parent.parent
SRC = Source("cmd/dkms-status.txt", 1)


@pytest.fixture(scope="module")
def m() -> mx.Matrix:
    return mx.load(use_cache=False)


ISSUE = "https://github.com/ROCm/ROCm/issues/"
BREAKAGES = [
    # (dkms version as `dkms status` prints it, running kernel, os-release ID, issues expected, source)
    ("6.8.5-2009582.24.04", "6.8.0-44-generic", "ubuntu", ["3701"], ISSUE + "3701 6.2.0's dkms KO on 6.8.0-44"),
    ("6.8.5-2009582.24.04", "6.8.0-41-generic", "ubuntu", [], ISSUE + "3701 6.8.0-40/41 build OK"),
    ("1:6.8.5.60201-2020000.24.04", "6.8.0-44-generic", "ubuntu", [], ISSUE + "3701 fixed in ROCm 6.2.1"),
    ("6.10.5-2084815.22.04", "6.8.0-49-generic", "ubuntu", [], ISSUE + "4164 not reproduced by AMD: not a breakage"),
    ("6.12.12-2164967.24.04", "6.14.0-24-generic", "ubuntu", ["4619"], ISSUE + "4619 6.4.1 on 6.14 (ROCm/amdgpu#192)"),
    ("1:6.12.12.60402-1.24.04", "6.14.0-24-generic", "ubuntu", [], ISSUE + "5074 6.4.2 driver builds on 6.14"),
    ("1:6.12.12.60402-1.24.04", "6.15.8", "ubuntu", ["5109"], ISSUE + "5109 6.4.2 fails on 6.15.8"),
    ("6.12.12-2147987", "6.11.0-29-generic", "ubuntu", [], ISSUE + "5074 6.11 built fine with 6.4.x"),
    ("6.3.6-1718217.22.04", "6.5.0-17-generic", None, ["2886"], ISSUE + "2886 segfault on 6.5.0-17"),
    ("6.3.6-1718217.22.04", "6.6.0-14-generic", "ubuntu", [], ISSUE + "2767 AMD: 6.0's 6.3.6 builds on 6.6"),
    ("6.3.6-1718217.22.04", "6.6.13-amd64", "debian", ["2451"], ISSUE + "2451 Debian 6.6.13 objtool"),
    ("6.2.4-1683306.22.04", "6.5.0-14-generic", "ubuntu", ["2694"], ISSUE + "2694 5.7 already fails on 6.5"),
    ("6.2.4-1683306.22.04", "6.2.0-39-generic", "ubuntu", [], ISSUE + "2694 5.7 validated at 6.2"),
    ("6.7.0-1781449.22.04", "6.8.12-amd64", "debian", ["3379"], ISSUE + "3379 Debian objtool SRCARCH"),
    ("6.7.0-1781449.22.04", "6.8.0-31-generic", "ubuntu", [], ISSUE + "3379 Debian-specific"),
    ("6.16.13-2278356.24.04", "6.18.7-061807-generic", "ubuntu", ["5905"], ISSUE + "5905 7.2.0 on 6.18.7"),
    ("6.16.13-2341068.24.04", "7.0.0-14-generic", "ubuntu", ["6193"], ISSUE + "6193 7.2.4 on 7.0"),
    ("6.16.13-2341068.24.04", "6.18.7-061807-generic", "ubuntu", [], ISSUE + "5905 row covers 7.2.0 only"),
    ("6.12.12-2164967.24.04", "6.12.48+deb13-amd64", "debian", ["5111"], ISSUE + "5111 Debian 13 kernel 6.12"),
    ("6.12.12-2164967.24.04", "6.12.10-061210-generic", "ubuntu", [], ISSUE + "5111 Debian-specific"),
]


@pytest.mark.parametrize(("dkms", "kernel", "os_id", "issues", "source"), BREAKAGES,
                         ids=[f"{d}@{k}-{o}" for d, k, o, _, _ in BREAKAGES])
def test_breakage_ranges(m, dkms: str, kernel: str, os_id: str | None, issues: list[str], source: str) -> None:
    got = [b.issue.rsplit("/", 1)[-1] for b in m.dkms_breakages(dkms, kernel, os_id)]
    assert got == issues, source


def test_issue_4164_is_not_in_the_table(m) -> None:
    # AMD could not reproduce it; a local package problem (issue 11 audit of ROCm/ROCm#4164)
    assert not any(b.issue.endswith("/4164") for b in m.breakages)


def test_breakage_rows_carry_fix_and_distro_where_known(m) -> None:
    by = {b.issue.rsplit("/", 1)[-1]: b for b in m.breakages}
    assert by["3701"].fixed_in == "6.2.1" and by["3701"].distro == ("ubuntu",) and by["3701"].rocm == ("6.2.0",)
    assert by["4619"].fixed_in == "6.4.2" and by["4619"].rocm == ("6.4.0", "6.4.1")
    assert by["2451"].distro == ("debian",) and by["3379"].distro == ("debian",)
    assert by["2694"].kernel_min == "6.5" and by["2694"].kernel_max is None  # open
    assert by["2886"].kernel_max == "6.5"


# ---- order of evidence in check ----------------------------------------------------------------------------

def _sev(findings: list[Finding], fid: str) -> list[str]:
    return [f.severity.value for f in findings if f.id == fid]


def _always_broken(m: mx.Matrix, base: str, rocm: tuple[str, ...]) -> mx.Matrix:
    """The real matrix plus a row that claims this very build never builds on any kernel >= 6.0."""
    row = Breakage(what="amdgpu-dkms", dkms_base=base, kernel_min="6.0", kernel_max=None,
                   issue="https://example.invalid/synthetic", rocm=rocm)
    return dataclasses.replace(m, breakages=(*m.breakages, row))


@pytest.mark.parametrize("status", ["installed", "installed (Original modules exist)", "built"])
def test_own_build_result_for_running_kernel_beats_any_table_row(m, status: str) -> None:
    mm = _always_broken(m, "6.16.6", ("7.1.1",))
    e = DkmsEntry("amdgpu", "6.16.6-2255209.24.04", "6.17.0-8-generic", "x86_64", status, SRC)
    h = Host(kernel=KernelInfo(release="6.17.0-8-generic"), os=OsInfo(id="ubuntu", version_id="25.10"),
             dkms=DkmsInfo(entries=[e]))
    assert _sev(judge_host(h, matrix=mm), "driver.dkms-breakage") == []
    # control: the synthetic row does match this build when the bundle has no build result for the kernel
    h.dkms = DkmsInfo(entries=[dataclasses.replace(e, status="added")])
    assert _sev(judge_host(h, matrix=mm), "driver.dkms-breakage") == ["warn"]


def test_real_healthy_fixture_and_a_derived_variant_with_its_kernel(m, tmp_path: Path) -> None:
    # fixtures/dkms-healthy-rocm7.1.1-kernel-6.17 (ROCm/ROCm#5624, AMD's verification: `installed` for 6.17.0-5
    # and 6.17.0-8). Derived variant: the same verbatim files plus the running kernel (6.17.0-8-generic, one of the
    # two listed) so the breakage table is consulted, and a table row that claims this build never builds.
    from rocmdoctor.bundle import load_host

    src = REPO / "fixtures" / "dkms-healthy-rocm7.1.1-kernel-6.17"
    h = load_host(src)
    assert _sev(judge_host(h, matrix=m), "driver.dkms-breakage") == []
    variant = tmp_path / "variant"
    shutil.copytree(src, variant)
    (variant / "cmd" / "uname-r.txt").write_text("6.17.0-8-generic\n", encoding="utf-8")
    hv = load_host(variant)
    assert hv.kernel.release == "6.17.0-8-generic"
    f = judge_host(hv, matrix=_always_broken(m, "6.16.6", ("7.1.1",)))
    assert _sev(f, "driver.dkms-breakage") == [] and _sev(f, "driver.dkms-failed") == ["ok"]
    # control: running a third kernel the bundle has no result for, the same row predicts
    (variant / "cmd" / "uname-r.txt").write_text("6.17.0-9-generic\n", encoding="utf-8")
    f = judge_host(load_host(variant), matrix=_always_broken(m, "6.16.6", ("7.1.1",)))
    assert _sev(f, "driver.dkms-breakage") == ["warn"]


def test_a_failed_build_for_the_running_kernel_names_the_known_cause(m) -> None:
    # ROCm/ROCm#2886: install log `Loading new amdgpu-6.3.6-1718217.22.04 DKMS files`, build fails on 6.5.0-17
    e = DkmsEntry("amdgpu", "6.3.6-1718217.22.04", "6.5.0-17-generic", None, "build-failed", SRC)
    h = Host(kernel=KernelInfo(release="6.5.0-17-generic"),
             dkms=DkmsInfo(entries=[e], build_failures=[Fact("Error! Bad return status", SRC)],
                           failed_kernels=["6.5.0-17-generic"]))
    f = judge_host(h, matrix=m)
    assert _sev(f, "driver.dkms-breakage") == ["fail"] and "2886" in str([x.to_dict() for x in f])


def test_without_a_build_result_the_table_only_predicts(m) -> None:
    # built for the previous kernel only; ROCm 6.2.0's dkms on Ubuntu 6.8.0-44 (ROCm/ROCm#3701)
    e = DkmsEntry("amdgpu", "6.8.5-2009582.24.04", "6.8.0-41-generic", "x86_64", "installed", SRC)
    h = Host(kernel=KernelInfo(release="6.8.0-44-generic"), os=OsInfo(id="ubuntu", version_id="24.04"),
             dkms=DkmsInfo(entries=[e]))
    f = judge_host(h, matrix=m)
    pred = [x for x in f if x.id == "driver.dkms-breakage"]
    assert [p.severity.value for p in pred] == ["warn"]
    assert "Prediction" in pred[0].detail and "6.2.1" in pred[0].detail
    assert _sev(f, "driver.dkms-failed") == ["fail"]  # observed: not built for the running kernel


# ---- kernel driver <-> user space --------------------------------------------------------------------------

RULE = "rocm/compatibility-matrix.rst footnote kfd_support"
DOCS = "https://github.com/ROCm/amdgpu-docs/blob/67902e24/docs/compatibility/compatibility-matrix.rst#L9"
KMD = [
    # (user space series, kernel-driver series, allowed, words of the rule, source)
    ("6.4", "7.1", True, "year", RULE + ": up to a year apart as of 6.4"),
    ("6.4", "7.2", True, "year", RULE),
    ("6.3", "7.0", True, "30.10", DOCS + " (30.10 is compatible with 7.0.x, 6.4.x, 6.3.x, 6.2.x)"),
    ("6.2", "7.0", True, "30.10", DOCS),
    ("6.3", "7.2", False, "beyond", RULE),
    ("6.0", "6.2", True, "compatibility matrix", "rocm/compatibility-matrix-historical-6.0.csv column 6.0.x"),
    ("5.7", "6.2", False, "+/- 2", "rocm/system-requirements/rocm-6.2.4_user-kernel-space-compat-matrix.rst"),
    ("6.1", "6.3", True, "", "rocm-6.2.4_user-kernel-space-compat-matrix.rst: +/- 2 releases"),
    ("7.2", "6.4", True, "compatibility matrix", "rocm/compatibility-matrix.rst AMD GPU Driver row, 7.2"),
    ("7.1", "7.0", True, "", RULE),
]


@pytest.mark.parametrize(("user", "kmd", "allowed", "words", "source"), KMD,
                         ids=[f"user{u}-kmd{k}" for u, k, *_ in KMD])
def test_kmd_windows(m, user: str, kmd: str, allowed: bool, words: str, source: str) -> None:
    ok, rule = m.kmd_window(user, kmd)
    assert ok is allowed, source
    assert words in rule and "[" in rule  # every verdict names its rule and cites it


def test_rocm71_driver_is_not_refused_torch29_rocm64_wheels(m) -> None:
    # issue 11: a host with the ROCm 7.1 driver (amdgpu-dkms 6.16.6-2255209, ROCm/ROCm#5624) was refused +rocm6.4
    h = Host(gpus=[GpuInfo(index=0, gfx="gfx1100")], python=PythonInfo(version="3.12.3"),
             kernel=KernelInfo(machine="x86_64"),
             dkms=DkmsInfo(entries=[DkmsEntry("amdgpu", "6.16.6-2255209.24.04", None, None, "installed", SRC)]))
    plan = resolve(h, m, ResolveOptions(torch_spec="2.9"))
    assert plan.requirements[0].version == "2.9.1+rocm6.4"
    assert any("support window" in r and "year apart" in r for r in plan.reasons)


# ---- smaller facts -----------------------------------------------------------------------------------------

def test_sles15sp7_kernel_for_64x(m) -> None:
    # the 6.4.3 table prints "6.11.0+" for SLES 15 SP7 (typo); SLES 15 SP7 ships 6.4.0-150700.51
    # (rocm/history/compatibility-matrix_rocm-7.1.1_6af62fd30ab8.rst line 213)
    for ver in ("6.4.2", "6.4.3"):
        assert m.validated_kernels(ver, "sles", "15.7") == ("6.4.0-150700.51",)
        assert m.kernel_validated(ver, "sles", "15.7", "6.4.0-150700.53-default") is True


@pytest.mark.parametrize(("rocm", "status"), [("6.0.0", "supported"), ("6.0.2", "deprecated"),
                                              ("6.4.0", "removed"), ("6.4.3", "removed")],
                         ids=["6.0.0-radeon-vii-supported-rocm-6.0.0-sysreq", "6.0.2-deprecated-sysreq",
                              "6.4.0-no-tensile-files-ROCm-4625", "6.4.3-no-tensile-files-ROCm-4625"])
def test_gfx906_status(m, rocm: str, status: str) -> None:
    assert m.support_status("gfx906", rocm) == status


def test_override_citation_claims_only_what_its_source_says(m) -> None:
    # ROCm/Tensile#1907: AMD's "ISA is identical to gfx1030" is about gfx1036 only
    assert "gfx1036 only" in m.gpus["gfx1035"].override_source
    assert "uncertain" in m.gpus["gfx1035"].override_note


def test_nightly_channel_has_rocm_714(m) -> None:
    # pytorch/test-infra main ROCM_ARCHES_DICT nightly = ["7.2", "7.14"] (matrices/upstream/pytorch/test-infra)
    assert {v.rocm for v in m.torch_variants(channel="nightly")} == {"7.2", "7.14"}
    v = m.torch_variants(channel="nightly", rocm="7.14")[0]
    assert v.index_url == "https://download.pytorch.org/whl/nightly/rocm7.14" and "gfx906" not in v.gfx


def test_check_does_not_warn_torch_rocm64_on_the_rocm71_driver(m) -> None:
    # same pair as above, judged by `check`: torch 2.9.1+rocm6.4 on the ROCm 7.1.1 amdgpu-dkms (a year rule)
    from rocmdoctor.model import TorchInfo

    h = Host(torch=TorchInfo(version="2.9.1+rocm6.4", hip="6.4.43484-123"),
             dkms=DkmsInfo(entries=[DkmsEntry("amdgpu", "6.16.6-2255209.24.04", None, None, "installed", SRC)]))
    assert _sev(judge_host(h, matrix=m), "torch.rocm-mismatch") == ["ok"]
    h.torch = TorchInfo(version="2.3.1+rocm5.7", hip="5.7.31921-d1770ee1b")
    f = [x for x in judge_host(h, matrix=m) if x.id == "torch.rocm-mismatch"]
    assert [x.severity.value for x in f] == ["warn"] and "apart" in f[0].detail
