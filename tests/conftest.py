"""Suite-wide: every rocmdoctor JSON document a test parses is validated against its published schema.

Tests read the CLI's JSON with ``json.loads``; while the suite runs, a call made from a test module whose
result is an object naming a ``rocmdoctor-<kind>/<n>`` schema is checked against docs/schemas/ (see
schema_helpers). Calls from rocmdoctor itself (reading plans, manifests, hostile input) are left alone.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

_TESTS = str(Path(__file__).resolve().parent) + "/"
_real_loads = json.loads


def _checked_loads(s, *args, **kwargs):  # type: ignore[no-untyped-def]
    doc = _real_loads(s, *args, **kwargs)
    if (isinstance(doc, dict) and isinstance(doc.get("schema"), str) and doc["schema"].startswith("rocmdoctor-")
            and sys._getframe(1).f_code.co_filename.startswith(_TESTS)):
        from schema_helpers import validate

        validate(doc)
    return doc


@pytest.fixture(autouse=True, scope="session")
def _validate_parsed_documents():
    json.loads = _checked_loads
    yield
    json.loads = _real_loads
