"""Channel URL templates: one home (matrices/channels.toml), read through rocmdoctor.matrix, used by every row."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from rocmdoctor import matrix as mx
from rocmdoctor.matrix.schema import validate

PACKAGE = Path(mx.__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def m():
    return mx.load(use_cache=False)


@pytest.fixture(scope="module")
def raw():
    return mx.load_raw()


def test_every_wheel_channel_has_a_cited_template(m):
    assert {v.channel for v in m.torch} <= set(m.channels)
    for ch in m.channels.values():
        assert ch.source and " : " in ch.source, ch.name


@pytest.mark.parametrize("channel, rocm, url", [  # the URLs pip is told, as the install docs give them
    ("pytorch", "6.2", "https://download.pytorch.org/whl/rocm6.2"),
    ("nightly", "7.2", "https://download.pytorch.org/whl/nightly/rocm7.2"),
    ("amd", "6.4.1", "https://repo.radeon.com/rocm/manylinux/rocm-rel-6.4.1/"),
    ("therock", "7.15", "https://rocm.nightlies.amd.com/whl-multi-arch/"),
])
def test_templates_give_the_documented_index(m, channel, rocm, url):
    assert m.channels[channel].index_url(rocm) == url
    rows = [v for v in m.torch if v.channel == channel and v.rocm == rocm]
    assert rows and {v.index_url for v in rows} == {url}


def test_rows_without_their_own_base_take_the_channel_template(m, raw):
    own = {(w["torch"], w["channel"]) for w in raw["torch"]["wheel"] if "index_base" in w}
    for v in m.torch:
        if (v.torch, v.channel) not in own:
            assert v.index_url == m.channels[v.channel].index_url(v.rocm), v


def test_update_scans_the_pytorch_root_by_default(m):
    assert m.channels["pytorch"].root == "https://download.pytorch.org/whl"


def test_a_channel_without_a_template_is_a_schema_error(raw):
    bad = copy.deepcopy(raw)
    del bad["channels"]["channel"]["amd"]
    errs = validate(bad)
    assert any("channel 'amd' has no index template" in e for e in errs), errs
    bad = copy.deepcopy(raw)
    del bad["channels"]["channel"]["pytorch"]["root"]
    assert any("channels.channel.pytorch" in e for e in validate(bad))


def test_no_channel_url_is_spelt_out_in_the_code():
    """The templates live in matrices/channels.toml only; code reads them through the matrix."""
    needles = ("download.pytorch.org/whl", "repo.radeon.com/rocm/manylinux", "rocm.nightlies.amd.com/whl-multi-arch")
    hits = [(str(py.relative_to(PACKAGE)), n) for py in PACKAGE.rglob("*.py") if "__pycache__" not in py.parts
            for n in needles if n in py.read_text(encoding="utf-8")]
    assert hits == []


def test_matrix_update_cli_defaults_to_the_channel_root(monkeypatch):
    from typer.testing import CliRunner

    from rocmdoctor.cli.app import app
    from rocmdoctor.matrix import update

    seen: list[str] = []
    monkeypatch.setattr(update, "run_update", lambda url, timeout: (seen.append(url), ("", "no changes"))[1])
    r = CliRunner().invoke(app, ["matrix", "update"])
    assert r.exit_code == 0, r.output
    assert seen == [mx.load().channels["pytorch"].root]
