"""The compatibility matrix: schema, sources, facts checked against the reference files, query API."""

from __future__ import annotations

import csv
import importlib
import re
from pathlib import Path

import pytest

from rocmdoctor import matrix as mx
from rocmdoctor.matrix.schema import FILES, iter_sources, validate

mload = importlib.import_module("rocmdoctor.matrix.load")  # the module: the package re-exports its load()

REPO = Path(__file__).resolve().parent.parent
REFERENCE = REPO.parent / "shared" / "reference"
needs_ref = pytest.mark.skipif(not REFERENCE.is_dir(), reason="../shared/reference not present")


@pytest.fixture(scope="module")
def raw():
    return mx.load_raw()


@pytest.fixture(scope="module")
def m(tmp_path_factory):
    return mx.load(use_cache=False)


# ---- schema & sources -------------------------------------------------------------------------

def test_every_data_file_matches_the_schema(raw):
    assert set(raw) == set(FILES)
    assert validate(raw) == []


def test_schema_validator_rejects_bad_data(raw):
    import copy

    bad = copy.deepcopy(raw)
    bad["releases"]["release"][0]["gfx_supported"] = "gfx1100"  # not a list
    bad["releases"]["release"][1]["colour"] = "red"  # unknown field
    del bad["gpus"]["gpu"][0]["family"]  # missing required
    bad["driver"]["breakage"][0]["source"] = "no separator here"
    errs = validate(bad)
    assert any("gfx_supported: expected a list" in e for e in errs)
    assert any("unknown field 'colour'" in e for e in errs)
    assert any("missing required field 'family'" in e for e in errs)
    assert any("is not '<file or URL> : <row/section>'" in e for e in errs)


@needs_ref
def test_every_source_resolves_to_a_reference_file_or_url(raw):
    sources = iter_sources(raw)
    assert len(sources) > 150
    bad = []
    for where, src in sources:
        for piece in src.split(" ; "):
            file_part = piece.split(" : ", 1)[0].strip()
            if re.match(r"https?://\S+$", file_part):
                continue
            if not (REFERENCE / file_part).is_file():
                bad.append((where, file_part))
    assert bad == []


def test_every_entry_carries_a_source(raw):
    for r in raw["releases"]["release"]:
        assert r["source"] and r["kernels_source"] and r["date_source"]
    for g in raw["gpus"]["gpu"]:
        assert g["source"]
        for p in g.get("product", []):
            assert p["source"] and p["derivation"]
    for w in raw["torch"]["wheel"] + raw["torch_builds"]["build"]:
        assert w["source"]


# ---- facts checked against the reference files themselves --------------------------------------

def _csv_rows() -> list[list[str]]:
    with open(REFERENCE / "rocm/compatibility-matrix-historical-6.0.csv", encoding="utf-8") as fh:
        return list(csv.reader(fh))


def _csv_columns():
    rows = _csv_rows()
    header = [h.strip() for h in rows[0]]
    start = next(i for i, r in enumerate(rows) if "GPU / LLVM target" in r[0])
    gfx_rows = []
    for r in rows[start:]:
        if not any(c.strip().startswith("gfx") for c in r[1:]):
            break
        gfx_rows.append(r)
    return header, gfx_rows


@needs_ref
def test_gpu_lists_match_the_amd_csv_for_every_6x_7x_column(m):
    header, gfx_rows = _csv_columns()
    checked = 0
    # the CSV leaves out gfx906 in 6.0.0, but that release's own system-requirements page marks Radeon VII and
    # Radeon Pro VII supported (rocm/system-requirements/rocm-6.0.0_system-requirements.rst lines 44, 54)
    more_specific = {"6.0.0": {"gfx906"}}
    for i, col in enumerate(header[1:], start=1):
        want = {r[i].strip() for r in gfx_rows if r[i].strip()}
        for ver in col.split("/"):
            rel = m.releases[ver.strip()]
            assert set(rel.gfx_supported) == want | more_specific.get(ver.strip(), set()), ver
            checked += 1
    assert checked >= 24


@needs_ref
def test_release_dates_match_versions_md(m):
    text = (REFERENCE / "rocm/versions.md").read_text(encoding="utf-8")
    found = re.findall(r"\| \[([\d.]+)\]\([^)]*\) \| ([^|]+) \|", text)
    assert len(found) > 40
    for ver, _date in found:
        assert ver in m.releases, ver
        assert m.releases[ver].date is not None


@needs_ref
def test_hip_versions_match_csv_from_6_1(m):
    rows = _csv_rows()
    header = [h.strip() for h in rows[0]]
    hip = next(r for r in rows if r[0].strip().startswith(":doc:`HIP <"))
    for i, col in enumerate(header[1:], start=1):
        for ver in col.split("/"):
            if ver.startswith("6.0"):
                assert "hip_prefix" in m.releases[ver].uncertain  # CSV typo 6.1.x for 6.0.x, marked
                continue
            assert m.releases[ver.strip()].hip_prefix == hip[i].strip()


@needs_ref
def test_pci_ids_agree_with_amdgpu_ids(m):
    names = {}
    for line in (REFERENCE / "libdrm/amdgpu.ids").read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or "," not in line:
            continue
        d, r, n = (p.strip() for p in line.split(",", 2))
        names[f"0x{d.lower()}:0x{r.lower()}"] = n
    count = 0
    for g in m.gpus.values():
        for p in g.products:
            for pid in p.pci_ids:
                if ":" in pid:
                    assert pid in names, (p.name, pid)
                    if "name match" in p.derivation:
                        assert p.name.replace("Radeon ", "").split()[-1] in names[pid], (p.name, names[pid])
                    count += 1
    assert count > 40


@pytest.mark.parametrize("gfx, rocm, status", [
    # 6.4: rocBLAS ships no gfx906 Tensile files (https://github.com/ROCm/ROCm/issues/4625); 6.0.0: Radeon VII /
    # Pro VII supported (rocm-6.0.0_system-requirements.rst); 6.0 = 6.0.2, where all gfx906 products are deprecated
    ("gfx906", "6.0", "deprecated"), ("gfx906", "6.2", "deprecated"), ("gfx906", "6.4", "removed"),
    ("gfx906", "6.0.0", "supported"), ("gfx906", "6.3", "deprecated"),
    ("gfx906", "7.0", "removed"), ("gfx906", "7.2", "removed"), ("gfx906", "5.7", "supported"),
    ("gfx1201", "6.4.0", "never"), ("gfx1201", "6.4.1", "supported"), ("gfx1200", "6.4.1", "supported"),
    ("gfx950", "6.4", "never"), ("gfx950", "7.0.0", "supported"), ("gfx942", "6.0.0", "supported"),
    ("gfx1100", "6.0", "supported"), ("gfx1030", "5.6", "supported"), ("gfx900", "5.7", "removed"),
    ("gfx1031", "6.2", "never"), ("gfx90a", "5.0", "unknown"), ("gfx1101", "6.4.1", "supported"),
    ("gfx1101", "6.3", "never"), ("gfx908", "7.2", "supported"), ("gfx1100", "99.1", "unknown"),
])
def test_support_status_facts(m, gfx, rocm, status):
    assert m.support_status(gfx, rocm) == status


def test_gfx906_absent_from_every_7x_release(m):
    sevens = [r for r in m.releases.values() if r.version.startswith("7.")]
    assert len(sevens) >= 10
    for r in sevens:
        assert "gfx906" not in r.gfx_supported and "gfx906" not in r.gfx_deprecated


@pytest.mark.parametrize("rocm, os_id, ver, kernel, expected", [
    ("6.2.4", "ubuntu", "22.04.5", "5.15.0-119-generic", True),
    ("6.2.4", "ubuntu", "22.04.5", "6.8.0-45-generic", True),
    ("6.2.4", "ubuntu", "22.04.5", "6.5.0-17-generic", False),
    ("6.2.4", "ubuntu", "22.04", "6.5.0-17-generic", True),  # "22.04" matches 22.04.4 (6.5 HWE) too
    ("7.0.2", "rhel", "9.4", "5.14.0-427.13.1.el9_4.x86_64", True),
    ("7.0.2", "rhel", "9.6", "5.14.0-570.12.1.el9_6.x86_64", True),
    ("7.0.2", "rhel", "9.6", "6.1.0", False),
    ("6.0.0", "ubuntu", "22.04.3", "6.2.0-39-generic", True),
    ("6.0.0", "ubuntu", "22.04.3", "6.5.0-17-generic", False),
    ("7.1.1", "ubuntu", "24.04.3", "6.14.0-29-generic", True),
    ("7.1.1", "sles", "15.7", "6.4.0-150700.53.3-default", True),
    ("7.1.1", "debian", "13", "6.12.43+deb13-amd64", True),
    ("5.7.1", "ubuntu", "22.04.3", "6.2.0-33-generic", True),
    # a distribution the release lists in no version: no kernel of it was validated (legacy-rocm-build#2451)
    ("6.2.4", "fedora", "40", "6.8.0", False),
    ("6.2.4", "ubuntu", "23.10", "6.5.0-9-generic", None),  # a listed distribution, an unlisted release: no data
    ("9.9.9", "ubuntu", "22.04", "6.8.0-45-generic", None),  # a release rocmdoctor has no data for
])
def test_kernel_validated_facts(m, rocm, os_id, ver, kernel, expected):
    assert m.kernel_validated(rocm, os_id, ver, kernel) is expected


def test_ubuntu_22045_validated_with_515_and_68(m):
    assert m.validated_kernels("7.2.0", "ubuntu", "22.04.5") == ("5.15", "6.8")
    assert m.validated_kernels("6.4.3", "ubuntu", "22.04.5") == ("5.15", "6.8")


def test_os_support_facts(m):
    assert m.os_supported("6.1.2", "centos", "7") is True
    assert m.os_supported("6.2.0", "centos", "7") is False
    assert m.os_supported("7.0.2", "azurelinux", "3.0") is True
    assert m.os_supported("7.1.0", "azurelinux", "3.0") is False
    assert m.os_supported("7.1.1", "rhel", "10.1") is True
    assert m.os_supported("7.1.0", "rhel", "10.1") is False
    assert m.os_supported("6.4.1", "sles", "15.6") is True and m.os_supported("6.4.2", "sles", "15.5") is False
    assert m.os_supported("6.3.0", "ubuntu", "20.04") is False and m.os_supported("6.1.5", "ubuntu", "20.04") is True
    assert m.os_supported("42.0", "ubuntu", "22.04") is None


def test_footnote_restrictions(m):
    assert m.gfx_os_allowed("6.4.0", "gfx1100", "ol", "9") is False  # Oracle Linux MI300X only before 7.0
    assert m.gfx_os_allowed("6.4.0", "gfx942", "ol", "9") is True
    assert m.gfx_os_allowed("7.0.2", "gfx1201", "sles", "15.7") is False
    assert m.gfx_os_allowed("7.0.2", "gfx1201", "ubuntu", "24.04") is True
    rels = m.releases_supporting(gfx="gfx90a", os_id="ubuntu", os_version="22.04", kernel="6.8.0-40")
    gfx = [r.version for r in rels]
    assert "6.2.4" in gfx and "7.2.0" in gfx and "6.0.0" not in gfx


def test_torch_facts(m):
    t25 = m.torch_variants(torch="2.5", channel="pytorch")
    assert {v.rocm for v in t25} == {"6.1", "6.2"}
    assert {(v.triton_package, v.triton_version) for v in t25} == {("pytorch-triton-rocm", "3.1.0")}
    t211 = m.torch_variants(torch="2.11.0")
    assert {v.triton_package for v in t211} == {"triton-rocm"} and {v.rocm for v in t211} == {"7.1", "7.2"}
    assert all(v.triton_package == "pytorch-triton-rocm" for v in m.torch_variants(torch="2.9", channel="pytorch"))
    v = m.torch_variants(torch="2.5.1", rocm="6.2")[0]
    assert v.index_url == "https://download.pytorch.org/whl/rocm6.2" and v.torchvision == "0.20.1"
    assert v.local_label == "+rocm6.2" and "gfx1101" not in v.gfx
    assert "3.13" in m.torch_variants(torch="2.6.0", rocm="6.2.4")[0].pythons
    assert m.torch_variants(torch="2.6.0", rocm="6.2.4")[0].index_url.endswith("/whl/rocm6.2.4")


def test_torch_variants_are_newest_first_and_filter(m):
    vs = m.torch_variants(gfx="gfx1100", python="3.12")
    assert vs and all("gfx1100" in v.gfx and "3.12" in v.pythons for v in vs)
    keys = [mx._vtuple(v.torch) for v in vs]
    assert keys == sorted(keys, reverse=True)
    assert m.torch_variants(gfx="gfx1031", channel="pytorch") == []
    # TheRock's multi-arch index does carry gfx1031 (ROCm/TheRock RELEASES.md @89553ce3 line 301, device-gfx1031)
    assert m.torch_variants(gfx="gfx1031", channel="therock")
    # gfx1151 reached the wheels with pytorch#167299 (merged 2025-11-07, before the 2.10 cut): every build from
    # torch 2.10 on, none before (the old per-index table said rocm7.2 only)
    hits = m.torch_variants(gfx="gfx1151", channel="pytorch")
    assert hits and min(mx._vtuple(v.torch) for v in hits) == (2, 10, 0)
    assert {v.rocm for v in hits} == {"7.0", "7.1", "7.2"}
    amd = m.torch_variants(channel="amd", rocm="6.4.1")
    assert amd[0].local_label == "+rocm6.4.1.git1ded221d" and amd[0].find_links


def test_gpu_lookup_by_gfx_pci_and_name(m):
    assert m.gpu("gfx1100").gfx == "gfx1100"
    assert m.gpu("GFX90A").gfx == "gfx90a"
    assert m.gpu("0x744c").gfx == "gfx1100" and m.gpu("744C").gfx == "gfx1100"
    assert m.gpu("RX 7900 XTX").gfx == "gfx1100" and m.gpu("rx 7900 xtx").gfx == "gfx1100"
    assert m.gpu("MI300X").gfx == "gfx942" and m.gpu("MI210").gfx == "gfx90a"
    assert m.gpu("Radeon VII").gfx == "gfx906" and m.gpu("RX 9070 XT").gfx == "gfx1201"
    assert m.gpu("no such card") is None and m.gpu("") is None
    assert m.gpu("780M").gfx == "gfx1103" and m.gpu("8060S").gfx == "gfx1151"  # via amdgpu.ids names
    assert m.gfx_for_pci("0x73df") == "gfx1031" and m.gfx_for_pci("15bf") == "gfx1103"
    assert m.gfx_for_pci("0x1586") == "gfx1151" and m.gfx_for_pci("zzzz") is None
    assert m.product_name_for_pci("0x744c", "0xc8") == "AMD Radeon RX 7900 XTX"
    assert m.product_name_for_pci("744c", "cc") == "AMD Radeon RX 7900 XT"
    assert m.product_name_for_pci("0x66a1", "02") == "AMD Instinct MI60 / MI50"


def test_gpu_catalog_facts(m):
    for g in ("gfx803", "gfx900", "gfx906", "gfx908", "gfx90a", "gfx942", "gfx950", "gfx1010", "gfx1030",
              "gfx1031", "gfx1032", "gfx1100", "gfx1101", "gfx1102", "gfx1103", "gfx1150", "gfx1151", "gfx1200",
              "gfx1201"):
        assert g in m.gpus, g
    assert m.gpus["gfx942"].family == "CDNA3" and m.gpus["gfx942"].wavefront == 64
    assert m.gpus["gfx950"].lds_kib == 160 and m.gpus["gfx1100"].lds_kib == 128
    assert m.gpus["gfx1100"].wavefront == 32 and m.gpus["gfx1151"].is_apu
    assert m.gpus["gfx1103"].family.startswith("APU") and m.gpus["gfx90a"].segment == "Instinct"


def test_hsa_override_mapping(m):
    for g in ("gfx1031", "gfx1032", "gfx1034", "gfx1035", "gfx1036"):
        assert m.gpus[g].override == "10.3.0", g
    assert not m.gpus["gfx1031"].override_broken
    assert m.gpus["gfx1103"].override == "11.0.0" and m.gpus["gfx1103"].override_broken  # APU: flaky
    assert m.gpus["gfx1010"].override is None and m.gpus["gfx1010"].override_broken  # no compatible ISA
    assert m.gpus["gfx1150"].override_broken and m.gpus["gfx1201"].override_broken
    assert m.gpus["gfx1100"].override is None and not m.gpus["gfx1100"].override_broken


def test_dkms_mapping_and_breakages(m):
    assert m.rocm_for_dkms("6.3.6-1697589.22.04") == "6.0"
    assert m.rocm_releases_for_dkms("6.3.6-1697589.22.04") == ["6.0.0"]
    assert m.rocm_releases_for_dkms("amdgpu/6.3.6-1718217.22.04, 6.5.0-17-generic, x86_64: installed") == ["6.0.2"]
    assert m.rocm_for_dkms("1:6.8.5.60200-2009582.24.04") == "6.2"
    assert m.rocm_for_dkms("6.16.6-2255209.24.04") == "7.1"
    assert m.rocm_for_dkms("1:6.16.13.30300400-2341068.24.04") == "7.2"
    assert m.rocm_for_dkms("9.9.9-1") is None and m.rocm_for_dkms("garbage") is None
    hits = m.dkms_breakages("6.3.6-1718217.22.04", "6.5.0-17-generic")
    assert [b.issue for b in hits] == ["https://github.com/ROCm/ROCm/issues/2886"]
    assert m.dkms_breakages("6.3.6-1718217.22.04", "6.2.0-39-generic") == []
    assert m.dkms_breakages("6.12.12-2147987", "6.14.0-15-generic")
    assert m.dkms_breakages("6.16.6-2255209", "6.17.0-5-generic") == []
    assert m.releases["6.0.0"].dkms_base == "6.3.6" and re.match(m.releases["6.0.0"].dkms_pattern, "6.3.6-1697589")


def test_release_lookup(m):
    assert m.release("6.2").version == "6.2.4" and m.release("6.2.1").version == "6.2.1"
    assert m.release("rocm-7.0").version == "7.0.2" and m.release("8.0") is None
    assert m.latest_release().version == max(m.releases, key=mx._vtuple)
    r = m.release("6.2.0")
    assert r.kmd_compatible[:1] == ("6.4",) and r.driver_window == "±2 releases"
    assert m.release("6.4.0").driver_window == "up to a year apart"
    assert "30.10" in m.release("7.0.0").driver


def test_smoke_thresholds(m):
    t = m.smoke_thresholds
    assert t["bandwidth_min_fraction"] == 0.5 and t["gemm_min_fraction"] == 0.3
    for dt in ("fp32", "fp16", "bf16"):
        assert 0 < t[f"{dt}_rtol"] < 0.1 and 0 < t[f"{dt}_atol"] < 0.1
    assert "policy" in m.smoke_sources["source"]


def test_kernel_matching_rules():
    assert mx.kernel_matches("5.15", "5.15.0-119-generic")
    assert not mx.kernel_matches("5.15", "5.19.0")
    assert mx.kernel_matches("5.14.0-427", "5.14.0-503.el9")
    assert not mx.kernel_matches("5.14.0-427", "5.14.21")
    assert not mx.kernel_matches("6.8", "garbage")


@needs_ref
def test_products_citing_amdgpu_ids_use_ids_present_there(m):
    present = set()
    for line in (REFERENCE / "libdrm/amdgpu.ids").read_text(encoding="utf-8").splitlines():
        if "," in line and not line.startswith("#"):
            present.add("0x" + line.split(",")[0].strip().lower())
    for g in m.gpus.values():
        for p in g.products:
            if p.source.startswith("libdrm/amdgpu.ids"):
                for pid in p.pci_ids:
                    assert pid.split(":")[0] in present, (g.gfx, p.name, pid)


def test_invalid_data_gives_one_clear_error(tmp_path, monkeypatch):
    import shutil

    from rocmdoctor import paths
    from rocmdoctor.errors import OperationFailed

    data = tmp_path / "matrices"
    shutil.copytree(paths.MATRICES_DIR, data, ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    text = (data / "smoke.toml").read_text(encoding="utf-8").replace("[smoke_thresholds.thresholds]", "[oops]")
    (data / "smoke.toml").write_text(text, encoding="utf-8")
    monkeypatch.setattr(paths, "MATRICES_DIR", data)
    monkeypatch.setenv("ROCMDOCTOR_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(mload, "_LOADED", None)
    with pytest.raises(OperationFailed, match="smoke"):
        mx.load()
    monkeypatch.setattr(mload, "_LOADED", None)


def test_query_api_never_crashes_on_any_text(m):
    from hypothesis import given, settings
    from hypothesis import strategies as st

    @settings(max_examples=150, deadline=None)
    @given(st.text(max_size=40), st.text(max_size=20))
    def run(a, b):
        m.gpu(a)
        m.release(a)
        m.support_status(a, b)
        m.gfx_for_pci(a, b)
        m.product_name_for_pci(a, b)
        m.kernel_validated(b, "ubuntu", a, a)
        m.os_supported(b, a, a)
        m.rocm_for_dkms(a)
        m.dkms_breakages(a, b)
        m.torch_variants(gfx=a, python=b, torch=a, rocm=b)
        mx.kernel_matches(a, b)

    run()
