"""Every known-error signature is evidence-based: it cites where the message was seen and matches a real line.

Entries carry an ``example`` (a line as it appears in the cited thread) or, for the original entries, an
example in ``tests/test_parse_formats.py``. The example must be found by the real scanner as that signature,
and the cited source of an entry with its own example must be the thread's URL.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from rocmdoctor.judge.registry import all_ids
from rocmdoctor.parse.logs import SIGNATURES_FILE, load_signatures, scan
from tests.test_parse_formats import SIGNATURE_EXAMPLES

ROOT = Path(__file__).resolve().parent.parent


def table() -> list[dict]:
    import tomllib

    return tomllib.loads(SIGNATURES_FILE.read_text(encoding="utf-8"))["signature"]


ROWS = table()
THREAD_URL = re.compile(r"^https://github\.com/[\w.-]+/[\w.-]+/(issues|pull|discussions)/\d+$")


def test_there_are_at_least_90_signatures_with_unique_ids():
    ids = [r["id"] for r in ROWS]
    assert len(ids) >= 90, len(ids)
    assert len(set(ids)) == len(ids), sorted({i for i in ids if ids.count(i) > 1})
    assert len(load_signatures()) == len(ROWS), "a row failed to compile (see parse.logs.LOAD_ERRORS)"


@pytest.mark.parametrize("row", ROWS, ids=[r["id"] for r in ROWS])
def test_signature_cites_a_source_and_matches_its_example(row: dict):
    assert str(row.get("source", "")).strip(), f"{row['id']}: no source"
    example = row.get("example", SIGNATURE_EXAMPLES.get(row["id"]))
    assert example, f"{row['id']}: no example line (add `example` with the line from the cited thread)"
    if "example" in row:
        assert THREAD_URL.match(row["source"]), f"{row['id']}: source must be the thread URL: {row['source']!r}"
    assert row.get("severity") in {"info", "warn", "fail"}, row["id"]
    assert row.get("title") and row.get("fix") and row.get("explanation"), row["id"]
    got = [m.signature for m in scan(example + "\n", "paste.txt")]
    assert row["id"] in got, (row["id"], got)


def test_every_signature_finding_is_a_registered_check():
    registered = set(all_ids())
    missing = sorted({r["finding"] for r in ROWS} - registered)
    assert not missing, f"signature findings without a check: {missing}"


def test_a_signature_does_not_fire_on_other_wording():
    """The patterns are specific: near misses of real messages do not match."""
    near_misses = [
        "kfd kfd: amdgpu: added device 1002:73bf",  # a healthy kfd line, not 'skipped ... rejects atomics'
        "amdgpu 0000:02:00.0: firmware: direct-loading firmware amdgpu/polaris12_mc.bin",  # a successful load
        "pip3 install torch --index-url https://download.pytorch.org/whl/rocm6.2",  # an install, not a failure
        "ggml_init_cublas: found 8 ROCm devices:",
        "MIOpen(HIP): Info [Something] ok",
        "Could not find a version that satisfies the requirement numpy==1.0 (from versions: none)",  # not torch
    ]
    for line in near_misses:
        assert [m.signature for m in scan(line + "\n", "l") if m.finding_id != "log.cpu-fallback"] == [], line


def test_fail_signatures_stay_quiet_on_healthy_field_pastes():
    """A working host's paste must not trip a fail-level signature (false alarms are bugs)."""
    severity = {r["id"]: r.get("severity", "fail") for r in ROWS}
    quiet_if = {r["id"]: r.get("not_here_if", ()) for r in ROWS}
    healthy = [p for p in sorted((ROOT / "fixtures").glob("field-*"))
               if json.loads((p / "expected.json").read_text())["healthy"]]
    assert healthy
    for fixture in healthy:
        text = (fixture / "paste.txt").read_text(encoding="utf-8")
        found = scan(text, "paste.txt")
        present = {m.signature for m in found}
        # a signature whose not_here_if companion is in the same paste is reported as information, not a fail
        # (ollama's "gfx1036 is not supported" beside "gfx1100 is supported": the iGPU skipped, ollama/ollama#3088)
        loud = [m.signature for m in found if severity[m.signature] == "fail"
                and not present & set(quiet_if.get(m.signature, ()))]
        assert not loud, (fixture.name, loud)
