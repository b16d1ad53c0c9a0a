"""Live facts with the design card's libraries, for real: psutil on this machine, a process holding a file
found through /proc (as /dev/kfd would be), and running containers inspected through the docker SDK
against the real Docker daemon (a container started without /dev/kfd is named, one with it is not)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from rocmdoctor import livefacts
from rocmdoctor.bundle import load_host
from rocmdoctor.diagnose import judge_host
from rocmdoctor.model import Fact, GpuInfo, Source
from rocmdoctor.parse import livefacts as parse_live

IMAGE = "rocmdoctor-test-base:bookworm"


def _host_with(tmp: Path, facts: dict, gpus: int = 1):
    (tmp / "cmd").mkdir(parents=True, exist_ok=True)
    (tmp / "cmd" / "live-facts.json").write_text(json.dumps(facts))
    (tmp / "manifest.json").write_text(json.dumps({"format": "rocmdoctor-capture/1"}))
    h = load_host(tmp)
    h.gpus = [GpuInfo(index=i, gfx="gfx90a", vram_bytes=64 << 30) for i in range(gpus)]
    h.rocm_version = Fact("6.2.2", Source("x"))
    return h


def _sev(findings, fid):
    return [(f.severity.value, f.title) for f in findings if f.id == fid]


def test_gather_on_this_machine_with_psutil():
    facts = livefacts.gather()
    import psutil

    assert facts["memory"]["ram_bytes"] == psutil.virtual_memory().total > 0
    assert facts["memory"]["shm_bytes"] > 0
    parsed = parse_live.parse(json.dumps(facts))
    assert parsed is not None and parsed.ram_bytes == facts["memory"]["ram_bytes"]


def test_what_the_machine_will_not_tell_is_left_out_but_a_bug_is_not(monkeypatch):
    import psutil

    def denied():
        raise psutil.AccessDenied(1)

    monkeypatch.setattr(livefacts, "kfd_holders", denied)
    assert "kfd_holders" not in livefacts.gather()

    def bug():
        raise TypeError("a bug of ours")

    monkeypatch.setattr(livefacts, "memory", bug)
    with pytest.raises(TypeError):
        livefacts.gather()  # a crash (exit 3), not a host that simply has no memory facts


def test_a_process_holding_the_device_is_found(tmp_path, monkeypatch):
    dev = tmp_path / "kfd"
    dev.write_text("")
    child = subprocess.Popen([sys.executable, "-c", f"f = open({str(dev)!r}); import time; time.sleep(30)"])
    try:
        monkeypatch.setattr(livefacts, "KFD", str(dev))
        for _ in range(50):
            holders = livefacts.kfd_holders()
            if holders and any(h["pid"] == child.pid for h in holders):
                break
            time.sleep(0.1)
        assert any(h["pid"] == child.pid for h in holders)
    finally:
        child.kill()
        child.wait()


def test_small_shm_warns_and_a_large_one_passes(tmp_path):
    small = _host_with(tmp_path / "a", {"schema": "rocmdoctor-live-facts/1",
                                        "memory": {"ram_bytes": 512 << 30, "shm_bytes": 64 << 20}})
    assert _sev(judge_host(small, select=["host.shm-small"]), "host.shm-small")[0][0] == "warn"
    big = _host_with(tmp_path / "b", {"schema": "rocmdoctor-live-facts/1",
                                      "memory": {"ram_bytes": 512 << 30, "shm_bytes": 256 << 30}})
    assert _sev(judge_host(big, select=["host.shm-small"]), "host.shm-small")[0][0] == "ok"


def test_ram_or_cgroup_below_vram_is_info(tmp_path):
    h = _host_with(tmp_path, {"schema": "rocmdoctor-live-facts/1", "memory": {"ram_bytes": 1024 << 30},
                              "cgroup": {"memory_max_bytes": 32 << 30}}, gpus=8)
    (sev, title), = _sev(judge_host(h, select=["host.ram-below-vram"]), "host.ram-below-vram")
    assert sev == "info" and "cgroup memory.max" in title


def test_hostile_live_facts_are_ignored_not_crashed():
    for doc in ("[]", '{"schema": "x"}', '{"schema": "rocmdoctor-live-facts/1", "memory": [1], '
                '"kfd_holders": "x", "containers": [1, {"devices": "x", "name": 5}]}'):
        parse_live.parse(doc)


@pytest.mark.skipif(shutil.which("docker") is None, reason="needs docker")
def test_running_container_without_kfd_is_named(tmp_path):
    probe = subprocess.run(["docker", "image", "inspect", IMAGE], capture_output=True)
    if probe.returncode != 0:
        pytest.skip(f"{IMAGE} not built (tests/container_helpers builds it)")
    tag = uuid.uuid4().hex[:8]
    bad, good = f"rd-nokfd-{tag}", f"rd-kfd-{tag}"
    try:
        for name, extra in ((bad, []), (good, ["--device", "/dev/null:/dev/kfd"])):
            subprocess.run(["docker", "run", "-d", "--rm", "--name", name, "-e", "HIP_VISIBLE_DEVICES=0", *extra,
                            IMAGE, "sleep", "60"], check=True, capture_output=True, timeout=60)
        seen = livefacts.containers()
        assert seen is not None
        names = {c["name"] for c in seen}
        assert {bad, good} <= names
        h = _host_with(tmp_path, {"schema": "rocmdoctor-live-facts/1", "containers": seen})
        (sev, title), = _sev(judge_host(h, select=["container.running-without-kfd"]), "container.running-without-kfd")
        assert sev == "warn" and bad in title and good not in title
    finally:
        subprocess.run(["docker", "rm", "-f", bad, good], capture_output=True, timeout=60)


def test_pyudev_enumerator_agrees_with_the_sysfs_fallback():
    """Live capture enumerates PCI devices through udev (pyudev) and falls back to the sysfs glob: same set."""
    import os

    pyudev = pytest.importorskip("pyudev")
    try:
        names = sorted(d.sys_name for d in pyudev.Context().list_devices(subsystem="pci"))
    except Exception as exc:  # no libudev in this environment
        pytest.skip(f"libudev unavailable: {exc}")
    from rocmdoctor.capture import Collector

    live = [os.path.basename(p) for p in Collector("/", sys.executable, 5.0, 10.0).pci_devices()]
    fallback = [os.path.basename(p) for p in Collector("/fake-root-that-forces-sysfs", sys.executable, 5.0,
                                                       10.0).pci_devices()]
    assert live == names
    assert fallback == []  # a fake root never asks udev about the real machine
    assert sorted(os.listdir("/sys/bus/pci/devices")) == names
