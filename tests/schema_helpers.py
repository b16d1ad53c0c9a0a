"""Validate rocmdoctor's JSON documents against the published JSON Schemas in docs/schemas/.

Every document names its kind and version in ``"schema": "rocmdoctor-<kind>/<n>"``; its schema is
``docs/schemas/<kind>.schema.json`` (shared parts: finding, host, summary, referenced by ``urn:rocmdoctor:*``).
The real validator (jsonschema, Draft 2020-12) checks them; an unknown kind is an error, not a pass.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

SCHEMAS = Path(__file__).resolve().parent.parent / "docs" / "schemas"
KIND = re.compile(r"^rocmdoctor-([a-z][a-z-]*)/([0-9]+)$")


@cache
def _registry():  # -> referencing.Registry
    from referencing import Registry, Resource

    resources = []
    for path in sorted(SCHEMAS.glob("*.schema.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        resources.append((doc["$id"], Resource.from_contents(doc)))
    return Registry().with_resources(resources)


@cache
def _validator(kind: str, version: str):  # -> jsonschema.Draft202012Validator
    from jsonschema import Draft202012Validator

    path = SCHEMAS / f"{kind}.schema.json"
    if not path.is_file():
        raise AssertionError(f"no published schema for rocmdoctor-{kind}/{version} (expected {path})")
    schema = json.loads(path.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema, registry=_registry())


def validate(doc: Any) -> Any:
    """``doc`` itself when it validates against the schema it names; AssertionError (all errors) otherwise."""
    assert isinstance(doc, dict), f"a rocmdoctor JSON document is an object, got {type(doc).__name__}"
    name = doc.get("schema")
    m = KIND.match(name) if isinstance(name, str) else None
    assert m, f"document without a valid 'schema' key: {str(name)[:80]!r}"
    errors = sorted(_validator(m.group(1), m.group(2)).iter_errors(doc), key=lambda e: list(e.absolute_path))
    assert not errors, f"{name}: " + "; ".join(
        f"{'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message[:200]}" for e in errors[:5])
    return doc


def loads(text: str) -> Any:
    """json.loads + validate: for CLI output that must be one rocmdoctor document."""
    return validate(json.loads(text))
