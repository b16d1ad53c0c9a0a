"""Per-GPU overrides (``HSA_OVERRIDE_GFX_VERSION_<KFD node>``, read by ROCm 6.2+).

The case is https://github.com/ROCm/legacy-rocm-build/issues/5069: an RX 9060 XT (gfx1200, native) and an
RX 6600 (gfx1032, runs as gfx1030 with an override) in one host on ROCm 6.4; the global override turned
the 9060 XT into a gfx1030 too. AMD's answer there: the per-node variable, in the thunk since ROCm 6.2
(https://github.com/ROCm/ROCT-Thunk-Interface/pull/104, whose example numbers the GPUs from KFD node 1).
The hosts below are that report's hardware as the model sees it (KFD nodes 1 and 2; node 0 is the CPU),
with the variables each variant sets.
"""

from __future__ import annotations

from rocmdoctor.diagnose import judge_host
from rocmdoctor.model import Fact, GpuInfo, Host, Source

IDS = ["gpu.override-needed", "gpu.override-mismatch", "gpu.arch-unsupported"]


def host(env: dict[str, str], rocm: str = "6.4.1") -> Host:
    h = Host(gpus=[
        GpuInfo(index=0, name="AMD Radeon RX 9060 XT", gfx="gfx1200", gfx_by_source={"kfd": "gfx1200"}, kfd_node=1),
        GpuInfo(index=1, name="AMD Radeon RX 6600", gfx="gfx1032", gfx_by_source={"kfd": "gfx1032"}, kfd_node=2),
    ])
    h.env = dict(env)
    h.captured = {"env", "kfd"}
    h.rocm_version = Fact(rocm, Source("root/opt/rocm/.info/version"))
    return h


def judged(h: Host) -> list:
    return judge_host(h, select=IDS)


def by_id(findings: list, fid: str) -> list:
    return [f for f in findings if f.id == fid]


def test_per_node_override_set_correctly_is_not_a_fail():
    fs = judged(host({"HSA_OVERRIDE_GFX_VERSION_2": "10.3.0"}))
    needed = by_id(fs, "gpu.override-needed")
    assert needed and all(f.severity.value in ("ok", "warn") for f in needed), [(f.severity, f.title) for f in needed]
    assert any("HSA_OVERRIDE_GFX_VERSION_2=10.3.0" in f.title for f in needed)
    assert all(f.severity.value == "ok" for f in by_id(fs, "gpu.override-mismatch"))


def test_missing_override_on_a_mixed_host_recommends_the_per_node_variable():
    (f,) = by_id(judged(host({})), "gpu.override-needed")
    assert f.severity.value == "fail" and "RX 6600" in f.title
    assert f.fix is not None and f.fix.commands == ["export HSA_OVERRIDE_GFX_VERSION_2=10.3.0"]


def test_global_override_on_a_mixed_host_is_replaced_by_the_per_node_one():
    fs = judged(host({"HSA_OVERRIDE_GFX_VERSION": "10.3.0"}))
    mism = [f for f in by_id(fs, "gpu.override-mismatch") if f.severity.value == "warn"]
    assert mism and "RX 9060 XT" in mism[0].title
    assert mism[0].fix.commands == ["unset HSA_OVERRIDE_GFX_VERSION",
                                    "export HSA_OVERRIDE_GFX_VERSION_2=10.3.0  # GPU 1"]


def test_older_rocm_ignores_the_per_node_variable_and_says_so():
    fs = judged(host({"HSA_OVERRIDE_GFX_VERSION_2": "10.3.0"}, rocm="6.1.3"))
    (f,) = [f for f in by_id(fs, "gpu.override-needed") if "RX 6600" in f.title]
    assert f.severity.value == "fail" and "ROCm 6.1.3 does not read per-GPU overrides" in f.detail
    assert "HIP_VISIBLE_DEVICES=1" in f.fix.commands[0]  # no per-node fix where it would do nothing


def test_malformed_per_node_value_fails():
    (f,) = by_id(judged(host({"HSA_OVERRIDE_GFX_VERSION_2": "gfx1030"})), "gpu.override-mismatch")
    assert f.severity.value == "fail" and "HSA_OVERRIDE_GFX_VERSION_2" in f.title


def test_single_gpu_host_keeps_the_global_fix():
    h = host({})
    h.gpus = h.gpus[1:]
    (f,) = by_id(judged(h), "gpu.override-needed")
    assert f.fix.commands == ["export HSA_OVERRIDE_GFX_VERSION=10.3.0"]
