"""docs/checks.md lists every public check id (users search for them)."""

from __future__ import annotations

from pathlib import Path

from rocmdoctor.judge.registry import all_ids

ROOT = Path(__file__).resolve().parent.parent


def test_every_check_id_is_documented():
    text = (ROOT / "docs" / "checks.md").read_text()
    missing = [i for i in all_ids() if f"`{i}`" not in text]
    assert not missing, f"add to docs/checks.md: {missing}"


def test_every_smoke_id_is_documented():
    from rocmdoctor import smoke

    text = (ROOT / "docs" / "checks.md").read_text()
    core = [*smoke.PROCESS_IDS, *(v[0] for v in smoke.CHECKS.values())]
    missing = [i for i in core if f"`{i}`" not in text]
    assert not missing, f"add to docs/checks.md: {missing}"
    # the others are the signature table's log.* ids under smoke.*: documented as such
    derived = [i for i in smoke.finding_ids() if i not in core]
    from rocmdoctor.parse.logs import load_signatures

    # a signature may name a finding of another area (driver.pcie-atomics): that id is the documented one
    source = {smoke._smoke_id(s.finding): s.finding for s in load_signatures()}
    assert derived and all(f"`{source.get(i, 'log.' + i.split('.', 1)[1])}`" in text for i in derived)
