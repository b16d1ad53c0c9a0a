"""The resolver's rules, on hand-built hosts and a small matrix with the real wheels' data (installers.md §3-4)."""

from __future__ import annotations

import pytest

from rocmdoctor.errors import BadInput
from rocmdoctor.install.plan import Plan
from rocmdoctor.install.resolve import Refused, ResolveOptions, override_gfx, resolve, torch_specifier
from rocmdoctor.matrix import GpuTarget, Matrix, RocmRelease, TorchVariant
from rocmdoctor.model import DkmsEntry, DkmsInfo, Fact, GpuInfo, Host, KernelInfo, PythonInfo, Source

GFX_62 = ("gfx900", "gfx906", "gfx908", "gfx90a", "gfx1030", "gfx1100", "gfx942")
GFX_63 = (*GFX_62, "gfx1101", "gfx1102", "gfx1200", "gfx1201")


def variant(
    torch: str, rocm: str, triton: str, vision: str, pythons: tuple[str, ...], gfx: tuple[str, ...],
) -> TorchVariant:
    return TorchVariant(
        torch=torch, rocm=rocm, index_url=f"https://download.pytorch.org/whl/rocm{rocm}", channel="pytorch",
        triton_package="pytorch-triton-rocm", triton_version=triton, torchvision=vision, torchaudio=torch,
        pythons=pythons, gfx=gfx, local_label=f"+rocm{rocm}",
    )


def release(version: str, kmd: tuple[str, ...]) -> RocmRelease:
    return RocmRelease(
        version=version, date=None, os=(), gfx_supported=(), gfx_deprecated=(), gfx_removed=(), dkms_base=None,
        dkms_pattern=None, driver_window=None, kmd_compatible=kmd, hip_prefix=None,
    )


def target(gfx: str, override: str | None = None, broken: bool = False, apu: bool = False) -> GpuTarget:
    return GpuTarget(gfx=gfx, family="", segment="", wavefront=None, lds_kib=None, products=(), override=override,
                     override_broken=broken, is_apu=apu)


PY39_312 = ("3.9", "3.10", "3.11", "3.12")
MATRIX = Matrix(
    torch=(
        variant("2.4.1", "6.1", "3.0.0", "0.19.1", ("3.8", *PY39_312), (*GFX_62, "gfx1101")),
        variant("2.5.1", "6.2", "3.1.0", "0.20.1", PY39_312, GFX_62),
        variant("2.5.1", "6.1", "3.1.0", "0.20.1", PY39_312, (*GFX_62, "gfx1101")),
        variant("2.7.1", "6.3", "3.3.1", "0.22.1", (*PY39_312, "3.13"), GFX_63),
    ),
    gpus={
        "gfx1031": target("gfx1031", "10.3.0"),
        "gfx1032": target("gfx1032", "10.3.0"),
        "gfx1010": target("gfx1010", "10.3.0", broken=True),
        "gfx1036": target("gfx1036", "10.3.0", apu=True),
        "gfx1103": target("gfx1103", "11.0.0", broken=True, apu=True),
    },
    releases={
        "6.1.2": release("6.1.2", ("6.3", "6.2", "6.1", "6.0", "5.7")),
        "6.2.4": release("6.2.4", ("6.4", "6.3", "6.2", "6.1", "6.0")),
        "6.3.3": release("6.3.3", ("6.5", "6.4", "6.3", "6.2", "6.1")),
    },
)


def host(*gfx: str, python: str = "3.11.7", apu: tuple[bool, ...] = ()) -> Host:
    gpus = [GpuInfo(index=i, gfx=g, is_apu=apu[i] if i < len(apu) else None) for i, g in enumerate(gfx)]
    return Host(gpus=gpus, python=PythonInfo(version=python), kernel=KernelInfo(machine="x86_64"))


def test_newest_torch_for_gfx942() -> None:
    plan = resolve(host("gfx942"), MATRIX, ResolveOptions())
    assert [r.pin() for r in plan.requirements] == ["torch==2.7.1+rocm6.3", "pytorch-triton-rocm==3.3.1"]
    assert plan.index_url == "https://download.pytorch.org/whl/rocm6.3"
    assert plan.env == {} and plan.rejected == [] and plan.gpus == ["gfx942"]
    d = plan.to_dict()
    assert d["schema"] == "rocmdoctor-plan/1" and d["requirements"][0] == "torch==2.7.1+rocm6.3"
    assert Plan.from_dict(d).to_dict() == d


def test_spec_selects_series_and_newest_rocm_of_it_gfx90a() -> None:
    plan = resolve(host("gfx90a"), MATRIX, ResolveOptions(torch_spec="2.5", companions=("torchvision", "torchaudio")))
    assert [r.pin() for r in plan.requirements] == [
        "torch==2.5.1+rocm6.2", "pytorch-triton-rocm==3.1.0",
        "torchvision==0.20.1+rocm6.2", "torchaudio==2.5.1+rocm6.2",
    ]
    assert "torchvision==0.20.1+rocm6.2" in plan.constraints().splitlines()


@pytest.mark.parametrize(
    ("spec", "rocm", "expected"),
    [("==2.5.1", "6.1", "2.5.1+rocm6.1"), (">=2.4,<2.6", None, "2.5.1+rocm6.2"), ("2.4.1", None, "2.4.1+rocm6.1")],
)
def test_specifiers_and_rocm_filter(spec: str, rocm: str | None, expected: str) -> None:
    plan = resolve(host("gfx90a"), MATRIX, ResolveOptions(torch_spec=spec, rocm=rocm))
    assert plan.requirements[0].version == expected


def test_gfx1100_native_and_gfx1201_needs_rocm63() -> None:
    assert resolve(host("gfx1100"), MATRIX, ResolveOptions()).requirements[0].version == "2.7.1+rocm6.3"
    plan = resolve(host("gfx1201"), MATRIX, ResolveOptions(torch_spec=">=2.4"))
    assert plan.requirements[0].version == "2.7.1+rocm6.3"
    with pytest.raises(Refused) as exc:
        resolve(host("gfx1201"), MATRIX, ResolveOptions(torch_spec="2.5"))
    candidates = {r.candidate for r in exc.value.rejected}
    assert candidates == {"torch 2.5.1 (rocm6.2, pytorch)", "torch 2.5.1 (rocm6.1, pytorch)"}
    assert all("no code objects for gfx1201" in r.reason for r in exc.value.rejected)


def test_gfx1031_gets_override_loudly() -> None:
    plan = resolve(host("gfx1031"), MATRIX, ResolveOptions(torch_spec="2.5"))
    assert plan.env == {"HSA_OVERRIDE_GFX_VERSION": "10.3.0"}
    assert any("OVERRIDE NEEDED" in w and "gfx1030" in w for w in plan.warnings)
    assert override_gfx("10.3.0") == "gfx1030" and override_gfx("9.0.10") == "gfx90a" and override_gfx("x") is None


def test_gfx1010_is_refused_with_alternatives_never_cpu() -> None:
    with pytest.raises(Refused) as exc:
        resolve(host("gfx1010"), MATRIX, ResolveOptions())
    err = exc.value
    assert "gfx1010" in str(err) and "CPU" in str(err) and err.exit_code == 1
    assert any("source" in a for a in err.alternatives) and any("gfx1100" in a for a in err.alternatives)
    assert len(err.rejected) == 4 and all("known to hang" in r.reason for r in err.rejected)
    assert err.to_dict()["refused"] is True


def test_python37_refusal_names_pythons_with_wheels() -> None:
    with pytest.raises(Refused) as exc:
        resolve(host("gfx90a", python="3.7.16"), MATRIX, ResolveOptions())
    msg = str(exc.value)
    assert "Python 3.7" in msg and "3.8, 3.9, 3.10, 3.11, 3.12, 3.13" in msg
    assert "python3.13 -m venv" in exc.value.alternatives[0]


def test_python_version_option_overrides_host() -> None:
    plan = resolve(host("gfx90a", python="3.7.16"), MATRIX, ResolveOptions(python_version="3.13"))
    assert plan.python == "3.13" and plan.requirements[0].version == "2.7.1+rocm6.3"
    plan = resolve(host("gfx90a"), MATRIX, ResolveOptions(python_version="3.8"))
    assert plan.requirements[0].version == "2.4.1+rocm6.1"
    assert plan.rejected[0].candidate == "torch 2.7.1 (rocm6.3, pytorch)"
    with pytest.raises(BadInput):
        resolve(Host(gpus=[GpuInfo(index=0, gfx="gfx90a")]), MATRIX, ResolveOptions())


def test_igpu_beside_dgpu_is_hidden() -> None:
    # iGPU first (device 0), as on many desktop Ryzen boards; is_apu comes from the matrix when not captured.
    plan = resolve(host("gfx1036", "gfx1100"), MATRIX, ResolveOptions())
    assert plan.env == {"HIP_VISIBLE_DEVICES": "1", "ROCR_VISIBLE_DEVICES": "1"}
    assert plan.gpus == ["gfx1100"] and any("IGNORING the integrated GPU" in w for w in plan.warnings)
    assert "HSA_OVERRIDE_GFX_VERSION" not in plan.env


def test_mixed_overrides_refused() -> None:
    with pytest.raises(Refused) as exc:
        resolve(host("gfx1031", "gfx1100"), MATRIX, ResolveOptions(), )
    assert "single global setting" in str(exc.value)
    assert all("one global value" in r.reason for r in exc.value.rejected)
    # Same effective target: one override serves both.
    plan = resolve(host("gfx1031", "gfx1032", "gfx1030"), MATRIX, ResolveOptions())
    assert plan.env == {"HSA_OVERRIDE_GFX_VERSION": "10.3.0"}


def test_kernel_driver_window() -> None:
    h = host("gfx90a")
    h.dkms = DkmsInfo(entries=[DkmsEntry(module="amdgpu", version="6.3.6-1697589.22.04", status="installed")])
    m = Matrix(torch=MATRIX.torch, gpus=MATRIX.gpus, releases=MATRIX.releases)
    object.__setattr__(m, "rocm_for_dkms", lambda v: "6.0" if v.startswith("6.3.6") else None)
    plan = resolve(h, m, ResolveOptions())
    # rocm6.3 user space does not support the ROCm 6.0 driver; rocm6.2 does.
    assert plan.requirements[0].version == "2.5.1+rocm6.2"
    assert "kernel driver from ROCm 6.0" in plan.rejected[0].reason
    assert any("within ROCm 6.2's support window" in r for r in plan.reasons)
    h.dkms = None
    h.amdgpu_version = Fact("1.2.3", Source("sys/module/amdgpu/version"))
    plan = resolve(h, m, ResolveOptions())
    assert plan.requirements[0].version == "2.7.1+rocm6.3"
    assert any("not checked" in r and "1.2.3" in r for r in plan.reasons)


def test_bad_input() -> None:
    with pytest.raises(BadInput):
        torch_specifier("two point five")
    with pytest.raises(BadInput):
        resolve(host("gfx90a"), MATRIX, ResolveOptions(companions=("numpy",)))
    with pytest.raises(BadInput):
        resolve(host("gfx90a"), MATRIX, ResolveOptions(channel="pypi"))
    assert str(torch_specifier("2.5")) == "==2.5.*" and str(torch_specifier("2.5.1")) == "==2.5.1"


def test_platform_refusal() -> None:
    h = host("gfx90a")
    h.kernel.machine = "aarch64"
    with pytest.raises(Refused, match="x86_64"):
        resolve(h, MATRIX, ResolveOptions())


def test_amd_find_links_channel() -> None:
    amd = TorchVariant(
        torch="2.6.0", rocm="6.4.1", index_url="https://repo.radeon.com/rocm/manylinux/rocm-rel-6.4.1/",
        channel="amd", triton_package="pytorch-triton-rocm", triton_version="3.2.0+rocm6.4.1.git6da9e660",
        torchvision="0.21.0+rocm6.4.1.git4040d51f", torchaudio=None, pythons=("3.12",), gfx=GFX_63,
        local_label="+rocm6.4.1.git1ded221d", find_links=True,
    )
    m = Matrix(torch=(*MATRIX.torch, amd), gpus=MATRIX.gpus, releases=MATRIX.releases)
    plan = resolve(host("gfx942", python="3.12.3"), m, ResolveOptions(channel="amd", companions=("torchvision",)))
    assert plan.find_links == ["https://repo.radeon.com/rocm/manylinux/rocm-rel-6.4.1/"]
    assert plan.index_url == "https://pypi.org/simple"
    assert [r.pin() for r in plan.requirements] == [
        "torch==2.6.0+rocm6.4.1.git1ded221d", "pytorch-triton-rocm==3.2.0+rocm6.4.1.git6da9e660",
        "torchvision==0.21.0+rocm6.4.1.git4040d51f",
    ]
    with pytest.raises(Refused):  # no torchaudio published on that channel
        resolve(host("gfx942", python="3.12"), m, ResolveOptions(channel="amd", companions=("torchaudio",)))
