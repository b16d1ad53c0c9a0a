"""AMD's TheRock channel: one multi-arch index, the GPU chosen by `torch[device-gfxNNNN]` extras.

Facts from ROCm/TheRock RELEASES.md @89553ce3 (lines 106-107: the unified index; 281-309: the [device-*] extras
table; 325-330: torch/torchvision/torchaudio series) and docs/packaging/legacy_per_family_releases.md (per-family
indexes no longer produced; ROCm/TheRock#5954). Pure resolver: nothing here touches the network.
"""

from __future__ import annotations

import pytest

from rocmdoctor import matrix as mx
from rocmdoctor.install.plan import Plan
from rocmdoctor.install.resolve import Refused, ResolveOptions, resolve
from rocmdoctor.model import GpuInfo, Host, KernelInfo, PythonInfo

RELEASES = "https://github.com/ROCm/TheRock/blob/89553ce3/RELEASES.md"


@pytest.fixture(scope="module")
def m() -> mx.Matrix:
    return mx.load(use_cache=False)


def host(*gfx: str, python: str = "3.12.3") -> Host:
    return Host(gpus=[GpuInfo(index=i, gfx=g) for i, g in enumerate(gfx)], python=PythonInfo(version=python),
                kernel=KernelInfo(machine="x86_64"))


@pytest.mark.parametrize(("gfx", "extra"), [
    ("gfx1151", "device-gfx1151"), ("gfx1201", "device-gfx1201"), ("gfx1103", "device-gfx1103"),
    ("gfx942", "device-gfx942"), ("gfx1031", "device-gfx1031"), ("gfx1010", "device-gfx1010"),
], ids=lambda x: f"{RELEASES}#L281-L309:{x}")
def test_extras_table(m, gfx: str, extra: str) -> None:
    v = m.torch_variants(channel="therock")[0]
    assert dict(zip(v.gfx, v.device_extras))[gfx] == extra


def test_torch_series_and_companions(m) -> None:
    # RELEASES.md lines 325-330: 2.14 -> torchvision 0.29 / torchaudio 2.11 ... 2.11 -> 0.26 / 2.11
    vs = {v.torch: v for v in m.torch_variants(channel="therock")}
    assert sorted(vs) == ["2.11", "2.12", "2.13", "2.14"]
    assert (vs["2.14"].torchvision, vs["2.14"].torchaudio) == ("0.29", "2.11")
    assert (vs["2.11"].torchvision, vs["2.11"].torchaudio) == ("0.26", "2.11")
    assert all(v.index_url == "https://rocm.nightlies.amd.com/whl-multi-arch/" for v in vs.values())


def test_strix_halo_plan_has_its_extra_and_says_it_is_the_only_source_for_rdna35_igpu(m) -> None:
    plan = resolve(host("gfx1151"), m, ResolveOptions(channel="therock", companions=("torchvision", "torchaudio")))
    specs = [r.spec() for r in plan.requirements]
    assert specs == ["torch[device-gfx1151]==2.14.*", "torchvision[device-gfx1151]==0.29.*", "torchaudio==2.11.*"]
    assert plan.constraints().splitlines()[0] == "torch==2.14.*"  # constraints never carry extras
    assert plan.index_url == "https://rocm.nightlies.amd.com/whl-multi-arch/"
    assert not any("only source" in r for r in plan.reasons)  # pytorch.org has gfx1151 from torch 2.10
    d = plan.to_dict()
    assert d["requirements"][0] == "torch[device-gfx1151]==2.14.*"
    assert Plan.from_dict(d).to_dict() == d


def test_gfx1103_is_only_on_therock(m) -> None:
    # no stable pytorch.org wheel carries gfx1103 (pytorch#179653 reached nightlies only)
    with pytest.raises(Refused) as exc:
        resolve(host("gfx1103"), m, ResolveOptions())
    assert "--channel therock" in exc.value.alternatives[0] and "torch[device-gfx1103]" in exc.value.alternatives[0]
    plan = resolve(host("gfx1103"), m, ResolveOptions(channel="therock"))
    assert plan.requirements[0].extras == ("device-gfx1103",)
    assert any("only source" in r and "gfx1103" in r for r in plan.reasons)


def test_extras_for_every_gpu_on_the_host(m) -> None:
    plan = resolve(host("gfx1100", "gfx1201", "gfx1100"), m, ResolveOptions(channel="therock"))
    assert plan.requirements[0].extras == ("device-gfx1100", "device-gfx1201")


def test_no_gpu_seen_gets_device_all(m) -> None:
    plan = resolve(host(), m, ResolveOptions(channel="therock"))
    assert plan.requirements[0].spec() == "torch[device-all]==2.14.*"


def test_frozen_per_family_index_warns(m) -> None:
    # ROCm/TheRock#5954: "the per-family releases (v2/[GPU FAMILY]) are no longer being produced"
    opts = ResolveOptions(channel="therock", index_url="https://rocm.nightlies.amd.com/v2/gfx110X-all/")
    plan = resolve(host("gfx1100"), m, opts)
    assert any(w.startswith("FROZEN INDEX") and "gfx110X-all" in w for w in plan.warnings)
    assert not any("FROZEN" in w for w in resolve(host("gfx1100"), m, ResolveOptions(channel="therock")).warnings)


def test_from_dict_rejects_a_malformed_requirement() -> None:
    with pytest.raises(ValueError):
        Plan.from_dict({"requirements": ["torch[device gfx1100==2.14.*"]})


def test_explain_names_therock_when_it_is_the_only_source(m) -> None:
    from rocmdoctor.matrix.view import explain

    _works, lines = explain(m, "780M", "7.2")  # gfx1103: no stable pytorch.org wheel (pytorch#179653)
    assert any("only source" in x and "torch[device-gfx1103]" in x for x in lines)
    _works, lines = explain(m, "RX 7900 XTX", "7.2")  # gfx1100 is on pytorch.org: no TheRock line
    assert not any("TheRock" in x for x in lines)
