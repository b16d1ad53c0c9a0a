"""Host lists for `fleet audit`: ranges, host files, Ansible inventories, option-looking names, folding."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rocmdoctor.errors import BadInput
from rocmdoctor.fleet.hosts import (
    collect_targets,
    compress,
    expand,
    natural_sorted,
    read_hostfile,
    read_inventory,
    validate_host,
)


def test_expand_zero_padded_range_and_list():
    assert expand("node[001-003,007]") == ["node001", "node002", "node003", "node007"]
    assert len(expand("node[001-128]")) == 128
    assert expand("node[001-128]")[-1] == "node128"


def test_expand_multiplies_groups_and_ansible_colon_syntax():
    assert expand("r[1-2]n[1-2]") == ["r1n1", "r1n2", "r2n1", "r2n2"]
    assert expand("web[01:03].example.com") == ["web01.example.com", "web02.example.com", "web03.example.com"]


@pytest.mark.parametrize("bad", ["node[3-1]", "node[1-", "node[]", "node[a-1]", "node]1["])
def test_expand_rejects_bad_ranges(bad):
    with pytest.raises(BadInput):
        expand(bad)


@pytest.mark.parametrize("bad", ["-oProxyCommand=touch /tmp/pwned", "-p22", "-", "a b", "host;rm", "a/b", ""])
def test_option_looking_or_odd_hosts_are_rejected(bad):
    with pytest.raises(BadInput):
        validate_host(bad)
    with pytest.raises(BadInput):
        collect_targets([bad])


def test_compress_folds_like_nodeset():
    assert compress(["node003", "node017", "node018", "node019"]) == "node[003,017-019]"
    assert compress(["node1", "node2", "node3", "node10"]) == "node[1-3,10]"
    assert compress(["a1", "b", "a2"]) == "a[1-2],b"
    assert compress(["node7", "node007"]) in ("node7,node007", "node007,node7")
    assert compress(["x"]) == "x"


@settings(max_examples=200, deadline=None)
@given(st.sets(st.integers(min_value=0, max_value=400), min_size=1, max_size=40), st.booleans())
def test_compress_then_expand_round_trips(nums, padded):
    names = [f"gpu{n:03d}" if padded else f"gpu{n}" for n in nums]
    folded = compress(names)
    back: list[str] = []
    for part in _split_top(folded):
        back.extend(expand(part))
    assert sorted(back) == sorted(names)


def _split_top(text: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in text:
        depth += ch == "["
        depth -= ch == "]"
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    return [*out, cur]


def test_natural_sort():
    assert natural_sorted(["n10", "n2", "n1"]) == ["n1", "n2", "n10"]


def test_natural_sort_of_digits_int_refuses():
    """'²' is str.isdigit() but int() refuses it (it sorts as text); '٣' is a decimal digit int() reads as 3."""
    assert natural_sorted(["n²", "n1", "n٣", "n10"]) == ["n1", "n٣", "n10", "n²"]


def test_hostfile(tmp_path: Path):
    p = tmp_path / "hosts"
    p.write_text("# fleet\nnode[1-3]  # rack 1\n\ngpu-a gpu-b\n")
    assert [t.name for t in read_hostfile(p)] == ["node1", "node2", "node3", "gpu-a", "gpu-b"]
    p.write_text("node1\n-oProxyCommand=id\n")
    with pytest.raises(BadInput):
        read_hostfile(p)
    with pytest.raises(BadInput):
        read_hostfile(tmp_path / "missing")


def test_inventory_hosts_vars_and_children(tmp_path: Path):
    p = tmp_path / "inv.ini"
    p.write_text(
        "[gpu]\nnode[01:02] ansible_port=2222\nnode03 ansible_host=10.0.0.3 ansible_user=ops\n"
        "[cpu]\nlogin1\n[all:vars]\nansible_user=root\n[gpu:vars]\nansible_ssh_private_key_file=/k/id\n"
        "[cluster:children]\ngpu\ncpu\n"
    )
    ts = {t.name: t for t in read_inventory(p)}
    assert set(ts) == {"node01", "node02", "node03", "login1"}
    assert ts["node01"].port == 2222 and ts["node01"].user == "root" and ts["node01"].identity == "/k/id"
    assert ts["node03"].destination == "10.0.0.3" and ts["node03"].user == "ops"
    assert ts["login1"].identity is None and ts["login1"].user == "root"


@pytest.mark.parametrize("line", ["evil ansible_host=-oProxyCommand=id", "-oProxyCommand=id",
                                  "h ansible_port=abc", "h ansible_user=-lroot"])
def test_inventory_rejects_option_looking_values(tmp_path: Path, line: str):
    p = tmp_path / "inv.ini"
    p.write_text(f"[all]\n{line}\n")
    with pytest.raises(BadInput):
        read_inventory(p)


def test_collect_dedupes_and_requires_hosts(tmp_path: Path):
    f = tmp_path / "h"
    f.write_text("a1\na2\n")
    assert [t.name for t in collect_targets(["a[1-3]"], f)] == ["a1", "a2", "a3"]
    with pytest.raises(BadInput):
        collect_targets([])


def test_cli_rejects_option_looking_host_with_exit_2(tmp_path: Path):
    canary = tmp_path / "pwned"
    r = subprocess.run([sys.executable, "-m", "rocmdoctor", "fleet", "audit", "--",
                        f"-oProxyCommand=touch {canary}"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2, r.stderr
    assert "starts with '-'" in r.stderr
    assert "Traceback" not in r.stderr
    assert not canary.exists()


def test_cli_no_hosts_is_usage_error():
    r = subprocess.run([sys.executable, "-m", "rocmdoctor", "fleet", "audit"], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 2
    assert "no hosts" in r.stderr


def test_cli_bad_paths_are_usage_errors(tmp_path: Path):
    f = tmp_path / "file"
    f.write_text("x")
    for args in (["--baseline", str(tmp_path / "nope.tar.gz")], ["--prometheus", str(f)],
                 ["-o", str(tmp_path)], ["--hostfile", str(tmp_path / "missing")],
                 ["--ssh-config", str(tmp_path / "missing")]):
        r = subprocess.run([sys.executable, "-m", "rocmdoctor", "fleet", "audit", "h1", *args],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 2, (args, r.stderr)
        assert "Traceback" not in r.stderr and "rocmdoctor: error:" in r.stderr
