"""A Triton that is installed but does not import is a failed smoke check, never "not installed" or a skip.

Real processes and the real CPU torch: a fake ``triton`` package first on PYTHONPATH stands for a broken
install (the real failure seen in the field: triton's ``__init__`` imports numpy, which is missing), and the
smoke program must report ``smoke.triton-failed`` with the error text.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from smoke_helpers import HAS_TORCH, TORCH_REASON, by_id, env_with, run

from rocmdoctor.model import Severity

pytestmark = pytest.mark.skipif(not HAS_TORCH, reason=TORCH_REASON)

BROKEN = {
    # the module triton needs really is missing: Python raises ModuleNotFoundError(name="rocmdoctor_no_such_dep")
    "missing-dependency": ("import rocmdoctor_no_such_dep\n", "No module named 'rocmdoctor_no_such_dep'"),
    # a plain ImportError from inside triton (a shared library that does not load)
    "import-error": ("raise ImportError('libtriton.so: cannot open shared object file')\n", "libtriton.so"),
    # anything else triton's import raises
    "runtime-error": ("raise RuntimeError('triton: unsupported backend')\n", "unsupported backend"),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_a_triton_that_does_not_import_fails_the_triton_check(tmp_path: Path, case: str) -> None:
    body, says = BROKEN[case]
    pkg = tmp_path / "site" / "triton"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(body)
    path = os.pathsep.join(p for p in (str(tmp_path / "site"), os.environ.get("PYTHONPATH")) if p)
    report = run(level=2, env=env_with(PYTHONPATH=path))
    f = by_id(report.findings)["smoke.triton-failed"]
    assert f.severity == Severity.FAIL, f.to_dict()
    assert says in f.detail and "not installed" not in f.detail, f.to_dict()
    rows = [r for d in report.devices for r in d.rows if r.check.startswith("triton:")]
    assert {r.check for r in rows} == {"triton:add", "triton:matmul"} and {r.status for r in rows} == {"fail"}


def _program():  # the standalone program, loaded as a module (it imports nothing from rocmdoctor)
    import importlib.util

    from rocmdoctor.smoke import PROGRAM

    spec = importlib.util.spec_from_file_location("smoke_torch_triton_t", PROGRAM)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _import_error(name: str, monkeypatch: pytest.MonkeyPatch) -> Exception:
    """The exception a real ``import name`` raises here, with ``name`` made absent (None in sys.modules)."""
    import importlib
    import sys

    monkeypatch.setitem(sys.modules, name, None)
    try:
        importlib.import_module(name)
    except Exception as exc:
        return exc
    raise AssertionError(f"import {name} did not fail")


def test_only_triton_itself_missing_is_not_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    absent = _program().triton_absent
    assert absent(_import_error("triton", monkeypatch))  # ModuleNotFoundError, name == "triton": a skip
    assert not absent(_import_error("numpy", monkeypatch))  # triton's dependency: a failure
    assert not absent(ImportError("cannot import name 'jit' from 'triton'", name="triton"))  # not "not found"
    assert not absent(RuntimeError("triton"))
