"""The published JSON Schemas (docs/schemas/) and every JSON document the CLI prints, validated against them.

Beyond these commands, tests/conftest.py validates every rocmdoctor document any test parses (smoke,
fleet, container test, capture manifests), so a field renamed in code and not in its schema fails the suite.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from schema_helpers import SCHEMAS, validate

from rocmdoctor.cli.app import main

REPO = Path(__file__).resolve().parent.parent
FIXTURES = sorted(p.name for p in (REPO / "fixtures").iterdir() if (p / "expected.json").is_file())


def _emit(capsys, *argv: str) -> tuple[int, dict]:
    capsys.readouterr()
    code = main(list(argv))
    out = capsys.readouterr().out
    return code, json.loads(out)


def test_every_schema_is_a_valid_draft_2020_12_schema_with_a_unique_id():
    from jsonschema import Draft202012Validator

    ids = {}
    for path in sorted(SCHEMAS.glob("*.schema.json")):
        doc = json.loads(path.read_text())
        Draft202012Validator.check_schema(doc)
        assert doc["$id"] not in ids, (path, ids.get(doc["$id"]))
        ids[doc["$id"]] = path
        kind = path.name.removesuffix(".schema.json")
        if "schema" in doc.get("properties", {}) or "oneOf" in doc:  # a document, not a shared part
            assert doc["title"] == f"rocmdoctor-{kind}/1" or doc["title"].startswith(f"rocmdoctor-{kind}/1 ")
    assert len(ids) >= 10


def test_every_document_kind_in_the_code_has_a_published_schema():
    kinds = set()
    for path in (REPO / "rocmdoctor").rglob("*.py"):
        kinds |= set(re.findall(r"\"rocmdoctor-([a-z][a-z-]*)/[0-9]+\"", path.read_text(encoding="utf-8")))
    assert {"report", "plan", "smoke", "fleet", "capture"} <= kinds
    missing = sorted(k for k in kinds if not (SCHEMAS / f"{k}.schema.json").is_file())
    assert not missing, f"documents without a schema in docs/schemas/: {missing}"


def test_validator_rejects_what_the_schema_forbids_and_tolerates_new_fields(capsys):
    _, doc = _emit(capsys, "check", "--from", str(REPO / "fixtures" / FIXTURES[0]), "--json")
    doc["findings"][0]["cause"] = "driver.dkms-failed"  # a field another release adds: tolerated
    doc["host"]["new_fact"] = {"anything": 1}
    validate(doc)
    broken = json.loads(json.dumps(doc))
    del broken["findings"][0]["severity"]
    with pytest.raises(AssertionError, match="severity"):
        validate(broken)
    broken = json.loads(json.dumps(doc))
    broken["findings"][0]["severity"] = "fatal"
    with pytest.raises(AssertionError, match="fatal"):
        validate(broken)
    with pytest.raises(AssertionError, match="no published schema"):
        validate({**doc, "schema": "rocmdoctor-nonesuch/1"})
    with pytest.raises(AssertionError, match="schema"):
        validate({k: v for k, v in doc.items() if k != "schema"})


@pytest.mark.parametrize("fixture", FIXTURES)
def test_check_and_install_json_of_every_fixture_validate(capsys, fixture):
    path = str(REPO / "fixtures" / fixture)
    capsys.readouterr()
    if main(["check", "--from", path, "--json"]) == 2:
        # a paste from which nothing can be judged (issue 12): exit 2 with one line on stderr and no document
        # at all — never a report that reads as "healthy"; only field pastes may be like that
        out, err = capsys.readouterr()
        assert fixture.startswith("field-") and out == "" and "no fact rocmdoctor can judge" in err
    else:
        code, doc = _emit(capsys, "check", "--from", path, "--json")
        assert code in (0, 1) and validate(doc)["schema"] == "rocmdoctor-report/1"
        code, doc = _emit(capsys, "check", "--from", path, "--format", "json", "-v")
        assert validate(doc)["findings"]
    capsys.readouterr()
    if main(["install", "torch", "--from", path, "--json"]) == 2:  # no Python captured: exit 2, one line, no JSON
        assert capsys.readouterr().out == ""
        code, plan = _emit(capsys, "install", "torch", "--from", path, "--python-version", "3.10", "--json")
    else:
        code, plan = _emit(capsys, "install", "torch", "--from", path, "--json")
    assert code in (0, 1) and validate(plan)["schema"] == "rocmdoctor-plan/1"
    assert ("refused" in plan) == (code == 1)


@pytest.mark.parametrize("argv", [
    ("check", "--list-checks", "--json"),
    ("matrix", "show", "--json"),
    ("matrix", "show", "--gpu", "RX 7900 XTX", "--json"),
    ("matrix", "show", "--rocm", "6.2", "--torch", "2.5", "--json"),
    ("matrix", "explain", "--gpu", "gfx1031", "--rocm", "6.2", "--json"),
    ("matrix", "explain", "--gpu", "gfx1100", "--rocm", "6.2", "--json"),
    ("container", "run-args", "img:1", "--render-gid", "107", "--json"),
    ("container", "run-args", "img:1", "--access", "cdi", "--json"),
])
def test_other_json_outputs_validate(capsys, argv):
    code, doc = _emit(capsys, *argv)
    assert code in (0, 1)
    validate(doc)


def test_lint_json_validates(capsys, tmp_path):
    bad = tmp_path / "Dockerfile"
    bad.write_text("FROM ubuntu\nRUN apt-get install -y curl\n")
    code, doc = _emit(capsys, "container", "lint", str(bad), "--json")
    assert code == 1 and len(validate(doc)["issues"]) == 3
