"""matrices/apps.toml: each application's gfx list is exactly the targets its pinned upstream excerpt names."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rocmdoctor.matrix import load
from rocmdoctor.matrix.load import load_raw

UPSTREAM = Path(__file__).resolve().parent.parent / "matrices" / "upstream"
APPS = load_raw()["apps"]["app"]


def targets_in(excerpt: str) -> list[str]:
    """Every target the excerpt's lines name in parentheses, in order: '(gfx1100/1101)' names gfx1100 and gfx1101
    (vLLM's docs), '(gfx90a, gfx942, gfx1100)' three targets (hipDF's README)."""
    body = excerpt.split("\n---\n", 1)[1]
    out: list[str] = []
    for group in re.findall(r"\((gfx[0-9a-f]{2,5}(?:\s{0,2}[/,]\s{0,2}(?:gfx)?[0-9a-f]{2,5})*)\)", body):
        out += [t if t.startswith("gfx") else f"gfx{t}" for t in re.split(r"\s{0,2}[/,]\s{0,2}", group)]
    return out


def test_there_is_an_app_table() -> None:
    assert {a["name"] for a in APPS} >= {"vllm", "hipdf"}


@pytest.mark.parametrize("app", APPS, ids=[a["name"] for a in APPS])
def test_app_targets_are_the_excerpts(app: dict) -> None:
    excerpt = (UPSTREAM / app["excerpt"]).read_text(encoding="utf-8")
    commit = re.search(r"^# commit: ([0-9a-f]{40})$", excerpt, re.M)
    assert commit and commit.group(1) in app["source"], "the source cites the excerpt's commit"
    assert app["gfx"] == targets_in(excerpt)


def test_matrix_serves_the_app_lists() -> None:
    label, gfx, source = load().app_gfx["vllm"]
    assert label == "vLLM" and "gfx1030" not in gfx and "gfx942" in gfx and source.startswith("https://github.com/")
