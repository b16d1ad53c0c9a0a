"""The per-release torch build table is derived by code from pinned upstream excerpts (matrices/upstream/).

Spot facts below cite their source in the parametrize id or a comment; each was checked against the upstream
file or PR thread, never against the tool's output.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rocmdoctor import matrix as mx
from rocmdoctor.install.resolve import Refused, ResolveOptions, resolve
from rocmdoctor.matrix import derive as d
from rocmdoctor.model import GpuInfo, Host, KernelInfo, PythonInfo

REPO = Path(__file__).resolve().parent.parent
UPSTREAM = REPO / "matrices" / "upstream"


@pytest.fixture(scope="module")
def builds() -> dict[tuple[str, str], d.Build]:
    return {(b.torch, b.rocm): b for b in d.derive(d.load_sources(UPSTREAM)) if b.channel != "therock"}


@pytest.fixture(scope="module")
def m() -> mx.Matrix:
    return mx.load(use_cache=False)


def test_committed_table_is_the_derivation() -> None:
    assert (REPO / "matrices" / "torch_builds.toml").read_text(encoding="utf-8") == d.derive_text(UPSTREAM)


@pytest.mark.parametrize("rocm", ["6.4", "7.2", "7.14"])
def test_replaying_the_recorded_prs_reaches_main_exactly(rocm: str) -> None:
    # builder release/2.4 + arch-changes.toml must equal pytorch main's build.sh (027375bf) for that ROCm:
    # a change missing from (or invented in) arch-changes.toml shows up here.
    replay, main = d.replay_to_main(d.load_sources(UPSTREAM), rocm)
    assert sorted(replay) == sorted(main)


def test_every_excerpt_is_pinned_to_a_commit_and_line_range() -> None:
    files = sorted(UPSTREAM.rglob("*.excerpt"))
    assert len(files) >= 20
    for p in files:
        ex = d.read_excerpt(p)
        assert re.fullmatch(r"[0-9a-f]{40}", ex.header["commit"]), p
        assert ex.header["commit"] in ex.header["url"] and ex.header["repo"] in ex.header["url"], p
        spans = [tuple(int(x) for x in s.split("-")) for s in ex.header["lines"].split(",")]
        numbers = [n for n, _ in ex.lines]
        assert numbers == [n for a, b in spans for n in range(a, b + 1)], p  # quoted lines = declared range


def test_next_branch_release_channel_names_the_previous_release() -> None:
    # test-infra release/X.(Y+1)'s "release" channel is what torch X.Y shipped (the "test" channel of release/X.Y),
    # unless that branch was edited after its own release and names itself (release/2.2, release/2.5 heads)
    src = d.load_sources(UPSTREAM)
    minors = sorted((k for k in src.test_infra if k != "main"), key=d._minor_key)
    for a, b in zip(minors, minors[1:]):
        da, db = d.python_dicts(src.test_infra[a]), d.python_dicts(src.test_infra[b])
        rel = db["ROCM_ARCHES_DICT"]["release"]
        assert rel in (da["ROCM_ARCHES_DICT"]["test"], db["ROCM_ARCHES_DICT"]["test"]), (a, b)


def test_a_broken_excerpt_fails_closed(tmp_path: Path) -> None:
    p = tmp_path / "x.excerpt"
    p.write_text("# repo: a/b\n---\n   1| x\n", encoding="utf-8")
    with pytest.raises(d.OperationFailed, match="lacks"):
        d.read_excerpt(p)
    p.write_text("# repo: a/b\n# path: p\n# commit: c\n# lines: 1-1\n# url: u\n# ref: r\n---\nno number\n",
                 encoding="utf-8")
    with pytest.raises(d.OperationFailed, match="malformed"):
        d.read_excerpt(p)


PR141667 = "https://github.com/pytorch/pytorch/pull/141667"
PR147761 = "https://github.com/pytorch/pytorch/pull/147761"
PR148562 = "https://github.com/pytorch/pytorch/pull/148562"
PR167299 = "https://github.com/pytorch/pytorch/pull/167299"
PR179653 = "https://github.com/pytorch/pytorch/pull/179653"
B = "https://github.com/pytorch/builder/blob/{}/manywheel/build_docker.sh"
MAIN = "https://github.com/pytorch/pytorch/blob/027375bf/.ci/docker/manywheel/build.sh#L111-L112"

GFX_FACTS = [
    # (torch, rocm, gfx, in the wheel?, source)
    ("2.6", "6.1", "gfx1101", True, PR141667 + " merged 2024-12-04, 2.6 cut 2024-12-11"),
    ("2.6", "6.2.4", "gfx1101", True, PR141667),
    ("2.5", "6.1", "gfx1101", False, PR141667 + " merged after the 2.5 cut 2024-09-09"),
    ("2.5", "6.2", "gfx1101", False, PR141667),
    ("2.4", "6.1", "gfx1101", False, B.format("release/2.4") + "#L93"),
    ("2.4", "6.0", "gfx1101", False, B.format("release/2.4") + "#L93"),
    ("2.6", "6.2.4", "gfx1201", False, PR148562 + " merged 2025-03-05, after the 2.6 cut"),
    ("2.6", "6.2.4", "gfx1200", False, PR148562),
    ("2.6", "6.2.4", "gfx1102", False, PR147761 + " merged 2025-02-24, after the 2.6 cut"),
    ("2.7", "6.2.4", "gfx1102", True, PR147761 + " before the 2.7 cut 2025-03-12"),
    ("2.7", "6.2.4", "gfx1200", True, PR148562 + " before the 2.7 cut 2025-03-12"),
    ("2.7", "6.2.4", "gfx1201", True, PR148562),
    ("2.7", "6.3", "gfx1201", True, PR148562),
    ("2.9", "6.4", "gfx950", False, PR167299 + " merged 2025-11-07, after the 2.9 cut 2025-09-09"),
    ("2.9", "6.4", "gfx1151", False, PR167299),
    ("2.10", "7.0", "gfx950", True, PR167299 + " before the 2.10 cut 2025-12-10"),
    ("2.10", "7.0", "gfx1150", True, PR167299),
    ("2.10", "7.1", "gfx1151", True, PR167299),
    ("2.12", "7.2", "gfx1103", False, PR179653 + " absent from release/2.12 (unslothai/unsloth#9829)"),
    ("2.13", "7.2", "gfx1103", False, PR179653 + " release unknown: not credited"),
    ("nightly", "7.2", "gfx1103", True, MAIN),
    ("nightly", "7.14", "gfx900", False, MAIN + " (7.14 path: common list only)"),
    ("nightly", "7.14", "gfx906", False, MAIN),
    ("nightly", "7.2", "gfx906", True, MAIN + " (legacy path adds gfx900;gfx906)"),
    ("2.3", "5.7", "gfx942", False, B.format("release/2.3") + " : gfx942 only for ROCM_VERSION_INT >= 60000"),
    ("2.3", "6.0", "gfx942", True, B.format("release/2.3")),
    ("2.0", "5.4.2", "gfx1100", False, B.format("release/2.0") + "#L48"),
    ("2.1", "5.5", "gfx1100", True, B.format("release/2.1") + "#L52"),
    ("2.0", "5.3", "gfx90a", True, B.format("release/2.0") + " : gfx90a;gfx1030 for ROCm >= 4.3"),
    ("2.14", "7.14", "gfx906", False, MAIN),
]


@pytest.mark.parametrize(("torch", "rocm", "gfx", "present", "source"), GFX_FACTS,
                         ids=[f"{t}+rocm{r}-{g}-{'yes' if p else 'no'}" for t, r, g, p, _ in GFX_FACTS])
def test_gfx_per_release(builds, torch: str, rocm: str, gfx: str, present: bool, source: str) -> None:
    assert (gfx in builds[(torch, rocm)].gfx) is present, source


# torch.cuda.get_arch_list() of real wheels, quoted in https://github.com/astral-sh/uv/issues/14086
MEASURED = {
    ("2.4", "6.0"): {"gfx900", "gfx906", "gfx908", "gfx90a", "gfx1030", "gfx1100", "gfx942"},
    ("2.5", "6.2"): {"gfx900", "gfx906", "gfx908", "gfx90a", "gfx1030", "gfx1100", "gfx942"},
    ("2.7", "6.2.4"): {"gfx900", "gfx906", "gfx908", "gfx90a", "gfx942", "gfx1030", "gfx1100", "gfx1101",
                       "gfx1102", "gfx1200", "gfx1201"},
    ("2.7", "6.3"): {"gfx900", "gfx906", "gfx908", "gfx90a", "gfx942", "gfx1030", "gfx1100", "gfx1101",
                     "gfx1102", "gfx1200", "gfx1201"},
}


@pytest.mark.parametrize("key", sorted(MEASURED), ids=[f"uv-14086-{t}+rocm{r}" for t, r in sorted(MEASURED)])
def test_derivation_matches_measured_arch_lists(builds, key: tuple[str, str]) -> None:
    assert set(builds[key].gfx) == MEASURED[key]


TI = "https://github.com/pytorch/test-infra/blob/release/{}/tools/scripts/generate_binary_build_matrix.py"
VARIANTS = [
    ("2.0", ["5.3", "5.4.2"], TI.format("2.1") + " : release channel"),
    ("2.4", ["6.0", "6.1"], TI.format("2.4")),
    ("2.5", ["6.1", "6.2"], TI.format("2.5")),
    ("2.6", ["6.1", "6.2.4"], TI.format("2.6")),
    ("2.7", ["6.2.4", "6.3"], TI.format("2.7")),
    ("2.9", ["6.3", "6.4"], TI.format("2.9")),
    ("2.10", ["7.0", "7.1"], TI.format("2.10")),
    ("2.13", ["7.1", "7.2"], TI.format("2.13")),
    ("nightly", ["7.2", "7.14"], "https://github.com/pytorch/test-infra/blob/61a77570/tools/scripts/"
                                 "generate_binary_build_matrix.py#L52-L56"),
]


@pytest.mark.parametrize(("torch", "rocms", "source"), VARIANTS, ids=[v[0] for v in VARIANTS])
def test_rocm_variants_per_release(builds, torch: str, rocms: list[str], source: str) -> None:
    assert sorted(r for t, r in builds if t == torch) == sorted(rocms), source


@pytest.mark.parametrize(("torch", "python", "present"), [
    ("2.6", "3.13", True), ("2.5", "3.13", False), ("2.0", "3.12", False), ("2.2", "3.12", True),
    ("nightly", "3.15", True), ("2.13", "3.15", False),
], ids=lambda x: str(x))
def test_pythons_per_release(builds, torch: str, python: str, present: bool) -> None:
    # test-infra release/X.Y PYTHON_ARCHES_DICT["test"] (main's "nightly" for the nightly channel)
    pys = next(b.pythons for (t, _), b in builds.items() if t == torch)
    assert (python in pys) is present


def test_wheel_rows_agree_with_the_derivation(m, builds) -> None:
    # every pytorch.org wheel row's ROCm list is what upstream built; its Pythons are a subset of what it built
    seen = 0
    for v in m.torch:
        if v.channel != "pytorch":
            continue
        key = (".".join(v.torch.split(".")[:2]), v.rocm)
        assert key in builds, key
        assert set(v.pythons) <= set(builds[key].pythons), (key, set(v.pythons) - set(builds[key].pythons))
        assert v.gfx == tuple(builds[key].gfx) and "gfx" not in v.uncertain
        seen += 1
    assert seen >= 50


def _host(gfx: str) -> Host:
    return Host(gpus=[GpuInfo(index=0, gfx=gfx)], python=PythonInfo(version="3.12.3"),
                kernel=KernelInfo(machine="x86_64"))


def test_rx9070xt_torch26_is_not_planned_onto_a_wheel_without_gfx1201(m) -> None:
    # issue 11: 2.6.0+rocm6.2.4 was planned "carrying gfx1201"; gfx1201 reached the wheels with 2.7 (#148562)
    with pytest.raises(Refused) as exc:
        resolve(_host("gfx1201"), m, ResolveOptions(torch_spec="2.6"))
    assert any("2.6.0" in r.candidate and "rocm6.2.4" in r.candidate and "gfx1201" in r.reason
               for r in exc.value.rejected)
    assert exc.value.alternatives[0].startswith("torch ") and "--torch" in exc.value.alternatives[0]
    assert resolve(_host("gfx1201"), m, ResolveOptions(torch_spec="2.7")).requirements[0].version.startswith("2.7.1+")


def test_rx7800xt_torch24_never_gets_a_plain_plan(m) -> None:
    # issue 11: 2.4.1+rocm6.1 has no gfx1101 (builder release/2.4), so a plan needs the override, loudly
    try:
        plan = resolve(_host("gfx1101"), m, ResolveOptions(torch_spec="2.4"))
    except Refused:
        return
    assert plan.env.get("HSA_OVERRIDE_GFX_VERSION") == "11.0.0"
    assert any("OVERRIDE NEEDED" in w for w in plan.warnings)
    # with 2.6 the same GPU runs natively (#141667)
    assert resolve(_host("gfx1101"), m, ResolveOptions(torch_spec="2.6")).env == {}


def test_explain_names_the_releases_of_an_index_that_lack_the_gpu(m) -> None:
    from rocmdoctor.matrix.view import explain

    _works, lines = explain(m, "RX 7800 XT", "6.1")
    assert "On the rocm6.1 index only torch 2.6.0 carry gfx1101; torch 2.5.1, 2.5.0, 2.4.1, 2.4.0 do not." in lines


def test_cli_offline_update_is_in_sync() -> None:
    from typer.testing import CliRunner

    from rocmdoctor.cli.app import app

    r = CliRunner().invoke(app, ["matrix", "update", "--offline"])
    assert r.exit_code == 0 and r.stdout == "" and "in sync" in r.stderr


# ---- dated nightlies: X.Y.Z.devYYYYMMDD is built from main on that day, not from the release branch ----------
PR163860 = "https://github.com/pytorch/pytorch/pull/163860 merged 2025-09-25 (gfx950 for ROCm >= 7.0)"
NIGHTLY_FACTS = [
    # (rocm, build day, gfx, True present / False absent / None uncertain, source)
    ("7.0", "2025-09-29", "gfx1151", False, PR167299 + " merged 2025-11-07: pytorch/pytorch#164346's nightly"),
    ("7.0", "2025-09-29", "gfx950", True, PR163860),
    ("7.0", "2025-09-20", "gfx950", False, PR163860 + ": not yet merged"),
    ("7.0", "2025-09-26", "gfx950", None, PR163860 + ": a day after the merge, the nightly may predate it"),
    ("7.0", "2025-11-07", "gfx1151", None, PR167299 + ": built the day of the merge"),
    ("7.0", "2025-11-20", "gfx1151", True, PR167299),
    ("6.2", "2025-01-10", "gfx1101", True, PR141667 + " merged 2024-12-04"),
    ("6.2", "2025-01-10", "gfx1102", False, PR147761 + " merged 2025-02-24"),
    ("6.3", "2025-03-20", "gfx1201", True, PR148562 + " merged 2025-03-05"),
    ("6.4", "2025-08-01", "gfx950", False, PR163860 + ": ROCm >= 7.0 only, and #167299 was not merged yet"),
    ("7.2", "2026-03-01", "gfx1103", False, PR179653 + " absent from release/2.12 (cut 2026-04-15)"),
    ("7.2", "2026-10-01", "gfx1103", None, PR179653 + " merge date unknown"),
    ("7.14", "2026-10-01", "gfx906", False, MAIN + " (7.14 path: common list only)"),
]


@pytest.mark.parametrize(("rocm", "day", "gfx", "present", "source"), NIGHTLY_FACTS,
                         ids=[f"rocm{r}-{d}-{g}" for r, d, g, _, _ in NIGHTLY_FACTS])
def test_gfx_per_dated_nightly(m, rocm: str, day: str, gfx: str, present: bool | None, source: str) -> None:
    e = m.nightly_code(rocm, day)
    assert e is not None, (rocm, day)
    got = True if gfx in e.gfx else (None if gfx in e.uncertain else False)
    assert got is present, source


def test_dated_nightly_before_the_base_is_not_known(m) -> None:
    """The replay starts from builder release/2.4 (cut 2024-06-10): an older nightly's list is not in the data."""
    assert m.nightly_code("6.0", "2024-03-01") is None
    assert m.nightly_code("6.1", "2024-03-01") is None
    assert m.nightly_code("6.2", "2024-06-10") is not None


@pytest.mark.parametrize("rocm", ["7.2", "7.14"])
def test_newest_epoch_is_main(m, builds, rocm: str) -> None:
    """The open epoch of a variant main still builds carries main's list (uncertain targets included)."""
    last = [e for e in m.nightly_epochs if e.rocm == rocm and not e.until]
    assert len(last) == 1
    assert set(last[0].gfx) | set(last[0].uncertain) == set(builds[("nightly", rocm)].gfx)
