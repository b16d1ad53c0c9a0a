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
    (vLLM's docs), '(gfx90a, gfx942, gfx1100)' three targets (hipDF's README); or the gfx strings of a setup.py's
    'allowed_archs = [...]' ('native' builds for the machine's own GPU, so it is no target)."""
    body = excerpt.split("\n---\n", 1)[1]
    listed = re.search(r"allowed_archs = \[([^\]]{1,400})\]", body)  # a setup.py's list (FlashAttention's CK build)
    if listed:
        return re.findall(r'"(gfx[0-9a-f]{2,5})"', listed.group(1))
    out: list[str] = []
    for group in re.findall(r"\((gfx[0-9a-f]{2,5}(?:\s{0,2}[/,]\s{0,2}(?:gfx)?[0-9a-f]{2,5})*)\)", body):
        out += [t if t.startswith("gfx") else f"gfx{t}" for t in re.split(r"\s{0,2}[/,]\s{0,2}", group)]
    return out


def test_there_is_an_app_table() -> None:
    assert {a["name"] for a in APPS} >= {"vllm", "hipdf", "flash-attn-ck"}


@pytest.mark.parametrize("app", [a for a in APPS if "excerpt" in a], ids=[a["name"] for a in APPS if "excerpt" in a])
def test_app_targets_are_the_excerpts(app: dict) -> None:
    excerpt = (UPSTREAM / app["excerpt"]).read_text(encoding="utf-8")
    commit = re.search(r"^# commit: ([0-9a-f]{40})$", excerpt, re.M)
    assert commit and commit.group(1) in app["source"], "the source cites the excerpt's commit"
    assert app["gfx"] == targets_in(excerpt)


def test_matrix_serves_the_app_lists() -> None:
    app = load().app_gfx["vllm"]
    assert app.label == "vLLM" and "gfx1030" not in app.gfx and "gfx942" in app.gfx
    assert app.source.startswith("https://github.com/") and not app.instead
    ck = load().app_gfx["flash-attn-ck"]
    assert "gfx1151" not in ck.gfx and "FLASH_ATTENTION_TRITON_AMD_ENABLE=TRUE" in ck.instead_commands[0]


@pytest.mark.parametrize("app", [a for a in APPS if "excerpt" not in a],
                         ids=[a["name"] for a in APPS if "excerpt" not in a])
def test_app_targets_without_excerpt_are_the_quoted_words(app: dict) -> None:
    """An entry with no pinned excerpt: the source is a thread (a container image whose maintainer stated its targets)
    or a file at a commit (a CI release job), and its quote names exactly the entry's targets, as backticked words
    or as the job's `gpu_targets: "gfx...;gfx..."` (or its cmake's `-DAMDGPU_TARGETS="gfx...;gfx..."`) line."""
    url, quote = app["source"].split(" : ", 1)
    assert re.match(r"https://github\.com/[\w.-]+/[\w.-]+/(?:(?:issues|pull|discussions)/\d+"
                    r"|blob/[0-9a-f]{40}/[\w./-]+)$", url)
    job = re.search(r'(?:gpu_targets: |AMDGPU_TARGETS=)\\?"(gfx[0-9a-f;gfx]{3,400})\\?"', quote)
    assert app["gfx"] == (job.group(1).split(";") if job else re.findall(r"`(gfx[0-9a-f]{3,5})`", quote))


def test_numbered_release_is_judged_through_its_build() -> None:
    app = load().app_gfx["llamacpp-win-hip-radeon"]
    assert app.through_build == 10107 and "gfx1152" not in app.gfx and "gfx1151" in app.gfx


@pytest.mark.parametrize("app", [a for a in APPS if "earlier_lacks" in a],
                         ids=[a["name"] for a in APPS if "earlier_lacks" in a])
def test_earlier_lacks_are_the_targets_the_cited_change_added(app: dict) -> None:
    """An entry's earlier releases lacked exactly the targets its cited change says it added ('add gfx1200, gfx1201,
    gfx1151': ggml-org/llama.cpp#15972), all of them on the newer list, and the earlier bound is below the newer one;
    the bound's own source is a dated citation too."""
    url, quote = app["earlier_source"].split(" : ", 1)
    assert re.match(r"https://github\.com/[\w.-]+/[\w.-]+/(?:issues|pull)/\d+$", url)
    added = re.search(r"\badd (gfx[0-9a-f]{3,5}(?:, gfx[0-9a-f]{3,5})*)", quote)
    assert added and app["earlier_lacks"] == added.group(1).split(", ")
    assert set(app["earlier_lacks"]) <= set(app["gfx"])
    assert 0 < app["earlier_through_build"] < app.get("through_build", 10**9)
    assert f"b{app['earlier_through_build']}" in app["earlier_through_source"]
    assert app["earlier_through_source"].startswith("https://github.com/")
