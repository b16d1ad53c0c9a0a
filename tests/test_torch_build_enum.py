"""TorchInfo.build is a closed set (model.TorchBuild, a str-valued Enum): the checks branch on its members while
every text and the JSON report keep the plain value ("rocm", not "TorchBuild.ROCM")."""

from __future__ import annotations

import json

import pytest

from rocmdoctor.model import Host, Source, TorchBuild, TorchInfo
from rocmdoctor.report.render import to_json


@pytest.mark.parametrize(("info", "build"), [
    (TorchInfo(version="2.5.1+rocm6.2"), TorchBuild.ROCM),
    (TorchInfo(version="2.5.1", hip="6.2.41133"), TorchBuild.ROCM),
    (TorchInfo(version="2.5.1+cu124"), TorchBuild.CUDA),
    (TorchInfo(version="2.5.1+cpu"), TorchBuild.CPU),
    (TorchInfo(bundled_libs=["libamdhip64.so"]), TorchBuild.ROCM),
    (TorchInfo(version="2.5.1", source=Source("root/torch-probe.json")), TorchBuild.CPU),
    (TorchInfo(version="2.5.1", source=Source("pip.txt")), TorchBuild.UNKNOWN),
    (TorchInfo(proven_build="not-rocm"), TorchBuild.NOT_ROCM),
    (TorchInfo(proven_build="something-else"), TorchBuild.UNKNOWN),  # never a crash on an unexpected word
    (TorchInfo(), TorchBuild.UNKNOWN),
])
def test_build_kind(info, build):
    assert info.build is build


def test_the_value_is_what_text_and_json_show():
    assert f"a {TorchBuild.NOT_ROCM} build" == "a not-rocm build" and str(TorchBuild.ROCM) == "rocm"
    assert TorchBuild.ROCM == "rocm" and "cuda" in {TorchBuild.CUDA}
    doc = json.loads(to_json(Host(torch=TorchInfo(version="2.5.1+rocm6.2")), []))
    assert doc["host"]["torch"]["build"] == "rocm"
