"""Slurm host-list syntax checked against ClusterShell's NodeSet (test-only reference implementation).

ClusterShell is what pdsh/clush users fold and expand with; Slurm's SLURM_JOB_NODELIST uses the same
syntax. Expansion must give the same names; folding must give a list that expands back to exactly the
input and that ClusterShell reads as the same set.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rocmdoctor.errors import BadInput
from rocmdoctor.fleet.hosts import MAX_EXPANDED, collect_targets, compress, expand

NodeSet = pytest.importorskip("ClusterShell.NodeSet").NodeSet

CASES = [
    "node[1-3],gpu[1-2]",
    "node[001-003,7]",
    "n[1-2]-ib[3-4]",
    "rack[1-2]-node[01-03],login1",
    "a[1,3]b[2-3]c",
    "gpu[08-11]",
    "x[9-11],y[099-101]",
    "cn[0001-0004,0010],cn[0020-0021]",
    "mi300x-[1-2]-[a1,b1]",  # text-only items stay literal
]


@pytest.mark.parametrize("text", [c for c in CASES if "[a1" not in c])
def test_expansion_matches_clustershell(text):
    assert sorted(expand(text)) == sorted(NodeSet(text))


@pytest.mark.parametrize("text", CASES[:-1])
def test_folding_round_trips_and_clustershell_agrees(text):
    names = expand(text)
    folded = compress(names)
    assert sorted(expand(folded)) == sorted(set(names))
    assert NodeSet(folded) == NodeSet(text)


def test_multi_dimension_fold_is_one_pattern():
    assert compress(["n1-ib3", "n1-ib4", "n2-ib3", "n2-ib4"]) == "n[1-2]-ib[3-4]"
    assert compress(["node003", "node017", "node018", "node019"]) == "node[003,017-019]"
    assert compress(["node7", "node007"]) in ("node7,node007", "node007,node7")


def test_bounds_hold_over_the_whole_list():
    with pytest.raises(BadInput, match="more than"):
        expand("a[1-99999][1-99999]")
    half = MAX_EXPANDED // 2 + 1
    with pytest.raises(BadInput, match="more than"):
        expand(f"a[1-{half}],b[1-{half}]")
    for bad in ("a[1-3", "a]1[", "a[[1]]", "a[3-1]", "-oProxyCommand=x", "a[1-2],-x"):
        with pytest.raises(BadInput):
            expand(bad)


def test_slurm_job_nodelist_when_no_hosts_are_given(monkeypatch):
    monkeypatch.setenv("SLURM_JOB_NODELIST", "gpu[01-02],login1")
    assert [t.name for t in collect_targets([])] == ["gpu01", "gpu02", "login1"]
    assert [t.name for t in collect_targets(["other"])] == ["other"]  # named hosts win
    monkeypatch.delenv("SLURM_JOB_NODELIST")
    with pytest.raises(BadInput, match="SLURM_JOB_NODELIST"):
        collect_targets([])


_name = st.builds(lambda p, n, w, q, m: f"{p}{str(n).zfill(w)}{q}{'' if m is None else m}",
                  st.sampled_from(["node", "gpu", "n", "rack1-n"]), st.integers(0, 120), st.sampled_from([0, 2, 3]),
                  st.sampled_from(["", "-ib", "x"]), st.none() | st.integers(0, 5))


@settings(max_examples=300, deadline=None)
@given(st.lists(_name, min_size=1, max_size=40))
def test_fold_any_set_like_clustershell(names):
    folded = compress(names)
    assert sorted(expand(folded)) == sorted(set(names))
    assert NodeSet(folded) == NodeSet.fromlist(names)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="ab01-[],:", max_size=30))
def test_expand_never_crashes(text):
    try:
        out = expand(text)
    except BadInput:
        return
    assert len(out) <= MAX_EXPANDED
