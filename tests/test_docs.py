"""docs/checks.md lists every public check id (users search for them)."""

from __future__ import annotations

from pathlib import Path

from rocmdoctor.judge.registry import all_ids

ROOT = Path(__file__).resolve().parent.parent


def test_every_check_id_is_documented():
    text = (ROOT / "docs" / "checks.md").read_text()
    missing = [i for i in all_ids() if f"`{i}`" not in text]
    assert not missing, f"add to docs/checks.md: {missing}"
