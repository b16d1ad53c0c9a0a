"""Baselines (`fleet node-check --expect`, `fleet audit --baseline FILE / --write-baseline FILE`).

The end-to-end case is the one operators meet: 32 nodes on real sshd daemons (tests/fleet_harness.py),
two of them drifted from the fleet (one GPU gone, one GPU with an uncorrectable ECC count in its RAS
sysfs). The audit writes the majority as a baseline, a second audit against that baseline names exactly
those two nodes with the difference, and `node-check --expect` fails on each of them alone.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from fleet_harness import Fleet, HostSpec, make_root, sshd_available

from rocmdoctor.errors import BadInput
from rocmdoctor.fleet import baseline as bl
from rocmdoctor.model import GpuInfo, Host, Severity

ROOT = Path(__file__).resolve().parent.parent
TORCH_PROBE = (ROOT / "fixtures" / "derived-healthy-mi210-x4-rocm6.2.2" / "cmd" / "torch-probe.json").read_text()
HEALTHY = {"rocm": "6.2.2"}
# derived from the kernel's own format (amdgpu_ras.c sysfs read: "ue: %lu\nce: %lu\n"), one uncorrectable
UMC_UE = "ue: 1\nce: 0\n"


def rd(*args: str, env: dict | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rocmdoctor", *args], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **(env or {})})


def node_root(base: Path, name: str, **kw) -> Path:
    root = make_root(base / name, name, **{**HEALTHY, **kw})
    (root / ".cmd").mkdir(exist_ok=True)
    (root / ".cmd" / "torch-probe.json").write_text(TORCH_PROBE)
    return root


def ecc_bad(root: Path) -> None:
    p = root / "sys/class/drm/card2/device/ras/umc_err_count"
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(UMC_UE)
    for card in ("card0", "card1", "card3"):
        q = root / f"sys/class/drm/{card}/device/ras/umc_err_count"
        q.parent.mkdir(parents=True, exist_ok=True)
        q.write_text("ue: 0\nce: 0\n")


# ----------------------------------------------------------------------------------------- unit level
def _host(n: int, gfx: str = "gfx90a", driver: str = "6.3.6") -> Host:
    from rocmdoctor.model import Fact, Source

    h = Host(gpus=[GpuInfo(index=i, gfx=gfx, name="AMD Instinct MI210", pci_device_id="0x740f",
                            vram_bytes=64 * 2**30) for i in range(n)])
    h.amdgpu_version = Fact(driver, Source("x"))
    h.kernel.release = "6.5.0-14-generic"
    return h


def test_compare_names_the_exact_difference():
    want = bl.Baseline(expect=bl.facts(_host(4)))
    assert bl.compare(bl.facts(_host(4)), want) == []
    missing = bl.compare(bl.facts(_host(3)), want)
    (count,) = missing  # one root cause: the gfx/model maps are a subset, not repeated
    assert count.id == "fleet.baseline-gpu-count" and count.severity == Severity.FAIL
    assert count.title == "1 GPU(s) missing: expected 4, this node sees 3 (gfx90a x3 of gfx90a x4)"
    other = bl.compare(bl.facts(_host(4, gfx="gfx942")), want)
    assert {f.id for f in other} == {"fleet.baseline-gfx"}  # same count, another kind: named as such
    none = bl.compare(bl.facts(Host()), want)
    assert any("sees no GPU at all" in f.title for f in none)
    assert any(f.id == "fleet.baseline-driver" and "not seen" in f.title for f in none)
    drv = bl.compare(bl.facts(_host(4, driver="6.7.0")), want)
    assert [(f.id, f.title) for f in drv] == [
        ("fleet.baseline-driver", "amdgpu driver: expected 6.3.6, this node has 6.7.0")]


def test_vram_tolerates_rounding_but_not_a_smaller_gpu():
    want = bl.Baseline(expect={"vram_bytes": 64 * 2**30})
    assert bl.compare({"vram_bytes": 64 * 2**30 - 2**20}, want) == []
    assert bl.compare({"vram_bytes": 32 * 2**30}, want)[0].id == "fleet.baseline-vram"


def test_expect_gpus_fails_a_node_without_gpus():
    assert bl.expect_gpus(bl.facts(_host(8)), 1) == []
    f = bl.expect_gpus(bl.facts(Host()), 1)
    assert f[0].severity == Severity.FAIL and "sees no GPU at all" in f[0].title


def test_majority_and_tie():
    a, b = bl.facts(_host(4)), bl.facts(_host(3))
    m = bl.majority([a, a, b])
    assert m is not None and m.expect["gpu_count"] == 4 and "vram_bytes" in m.expect
    assert bl.majority([a, b]) is None
    assert bl.majority([]) is None


@pytest.mark.parametrize("doc,msg", [
    ("[]", "not a JSON object"),
    ('{"schema": "x", "expect": {"gpu_count": 1}}', "not a rocmdoctor-baseline/1"),
    ('{"schema": "rocmdoctor-baseline/1", "expect": {}}', "non-empty object"),
    ('{"schema": "rocmdoctor-baseline/1", "expect": {"colour": 1}}', "unknown key"),
    ('{"schema": "rocmdoctor-baseline/1", "expect": {"gpu_count": -1}}', "non-negative"),
    ('{"schema": "rocmdoctor-baseline/1", "expect": {"gpu_count": true}}', "non-negative"),
    ('{"schema": "rocmdoctor-baseline/1", "expect": {"gfx": {"gfx90a": "4"}}}', "map names"),
    ('{"schema": "rocmdoctor-baseline/1", "expect": {"driver": ""}}', "non-empty string"),
    ("{" * 100000, "not JSON"),
])
def test_bad_baseline_files_are_usage_errors(tmp_path, doc, msg):
    p = tmp_path / "b.json"
    p.write_text(doc)
    with pytest.raises(BadInput, match=msg):
        bl.load(p)


def test_oversized_baseline_is_refused(tmp_path):
    p = tmp_path / "b.json"
    p.write_text(" " * (bl.MAX_BYTES + 1))
    with pytest.raises(BadInput, match="larger than"):
        bl.load(p)


# ------------------------------------------------------------------------------ node-check, one node
def test_node_check_expect_and_expect_gpus(tmp_path):
    good = node_root(tmp_path, "good")
    nogpu = node_root(tmp_path, "nogpu", gpus=0)
    r = rd("fleet", "node-check", env={"ROCMDOCTOR_ROOT": str(good)})
    assert r.returncode == 0, r.stdout + r.stderr
    # without an expectation, a node with no GPU has nothing "wrong" that check alone calls a fail ...
    r0 = rd("fleet", "node-check", "--expect-gpus", "1", env={"ROCMDOCTOR_ROOT": str(nogpu)})
    assert r0.returncode == 1 and "fleet.expect-gpus" in r0.stdout, r0.stdout + r0.stderr
    base = tmp_path / "b.json"
    base.write_text(bl.dumps(bl.Baseline(expect={"gpu_count": 4, "gfx": {"gfx90a": 4}, "driver": "6.3.6"})))
    r1 = rd("fleet", "node-check", "--expect", str(base), "--max-length", "200", env={"ROCMDOCTOR_ROOT": str(nogpu)})
    assert r1.returncode == 1 and "fleet.baseline-gpu-count" in r1.stdout and "no GPU at all" in r1.stdout
    r2 = rd("fleet", "node-check", "--expect", str(base), env={"ROCMDOCTOR_ROOT": str(good)})
    assert r2.returncode == 0, r2.stdout
    bad = tmp_path / "bad.json"
    bad.write_text("{nope")
    r3 = rd("fleet", "node-check", "--expect", str(bad), env={"ROCMDOCTOR_ROOT": str(good)})
    assert r3.returncode == 2 and "not JSON" in r3.stderr + r3.stdout


# ------------------------------------------------------------------------- 32 hosts on real sshd
N = 32
MISSING, ECC = "node07", "node19"


@pytest.mark.sshd
@pytest.mark.skipif(not sshd_available(), reason="needs /usr/sbin/sshd (apt-get install openssh-server)")
def test_32_host_audit_names_exactly_the_two_drifted_nodes(tmp_path):
    specs = [HostSpec(f"node{i:02d}", root_args={**HEALTHY, **({"gpus": 3} if f"node{i:02d}" == MISSING else {})})
             for i in range(1, N + 1)]
    fleet = Fleet(tmp_path / "fleet", specs).start()
    try:
        for h in fleet.hosts.values():
            (h.root / ".cmd").mkdir(exist_ok=True)
            (h.root / ".cmd" / "torch-probe.json").write_text(TORCH_PROBE)
        ecc_bad(fleet.hosts[ECC].root)
        base = tmp_path / "baseline.json"
        first = rd("fleet", "audit", "--ssh-config", str(fleet.ssh_config), f"node[01-{N}]", "-j", "32",
                   "--timeout", "60", "--write-baseline", str(base))
        assert base.is_file(), first.stdout + first.stderr
        written = json.loads(base.read_text())
        assert written["schema"] == "rocmdoctor-baseline/1" and written["expect"]["gpu_count"] == 4
        assert written["origin"].startswith(f"majority of {N} hosts (31 share it)")

        out = tmp_path / "fleet.json"
        r = rd("fleet", "audit", "--ssh-config", str(fleet.ssh_config), f"node[01-{N}]", "-j", "32",
               "--timeout", "60", "--baseline", str(base), "--json", str(out))
        doc = json.loads(out.read_text())
        assert r.returncode == 1, r.stdout + r.stderr
        assert doc["summary"]["up"] == N
        assert sorted(d["host"] for d in doc["drain"]) == [MISSING, ECC], doc["drain"]
        assert doc["reference"]["kind"] == "baseline" and doc["reference"]["expect"] == written["expect"]
        reasons = {d["host"]: d["reason"] for d in doc["drain"]}
        assert "1 GPU(s) missing: expected 4, this node sees 3" in reasons[MISSING]
        assert "uncorrectable ECC" in reasons[ECC] and "card2: 1" in reasons[ECC]
        ecc_finding = next(f for f in doc["findings"] if f["id"] == "health.ecc-uncorrectable")
        assert ecc_finding["host_list"] == [ECC] and ecc_finding["severity"] == "fail"
        failing = {f["id"]: f["host_list"] for f in doc["findings"] if f["severity"] in ("fail", "error")}
        assert set().union(*failing.values()) == {MISSING, ECC}, failing

        for name, want in ((MISSING, "fleet.baseline-gpu-count"), (ECC, "health.ecc-uncorrectable")):
            one = rd("fleet", "node-check", "--expect", str(base), "--max-length", "200",
                     env={"ROCMDOCTOR_ROOT": str(fleet.hosts[name].root)})
            assert one.returncode == 1 and want in one.stdout, one.stdout + one.stderr
        fine = rd("fleet", "node-check", "--expect", str(base),
                  env={"ROCMDOCTOR_ROOT": str(fleet.hosts["node01"].root)})
        assert fine.returncode == 0, fine.stdout
    finally:
        fleet.stop()


def test_write_baseline_writes_the_majority_and_refuses_a_tie(tmp_path):
    from rocmdoctor.cli.commands.fleet import _write_baseline
    from rocmdoctor.errors import OperationFailed
    from rocmdoctor.fleet.aggregate import HostAudit, aggregate

    four, three = bl.facts(_host(4)), bl.facts(_host(3))
    tie = aggregate([HostAudit("n1", "ok", facts=four), HostAudit("n2", "ok", facts=three)])
    with pytest.raises(OperationFailed, match="no majority"):
        _write_baseline(tie, tmp_path / "tie.json")
    assert not (tmp_path / "tie.json").exists()
    rep = aggregate([HostAudit(f"n{i}", "ok", facts=four) for i in range(3)]
                    + [HostAudit("n9", "ok", facts=three), HostAudit("down", "unreachable")])
    _write_baseline(rep, tmp_path / "b.json")
    loaded = bl.load(tmp_path / "b.json")
    assert loaded.expect["gpu_count"] == 4 and bl.compare(three, loaded)[0].id == "fleet.baseline-gpu-count"
