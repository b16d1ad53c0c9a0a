"""Smoke fails closed: what breaks is reported as broken, never as "not installed", "not compared" or healthy.

A Triton that is installed but does not import is a failed check (real processes and the real CPU torch: a
fake ``triton`` package first on PYTHONPATH stands for a broken install, as in the field when triton's
``__init__`` imports numpy and numpy is missing). A host capture that fails with a bug, or a matrix that
does not load, is an error of the run, not a quiet "host model not available" or "no peak known".
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from smoke_helpers import HAS_TORCH, TORCH_REASON, by_id, env_with, run

from rocmdoctor.errors import BadInput
from rocmdoctor.model import Severity
from rocmdoctor.smoke import SmokeOptions, run_smoke

needs_torch = pytest.mark.skipif(not HAS_TORCH, reason=TORCH_REASON)

BROKEN = {
    # the module triton needs really is missing: Python raises ModuleNotFoundError(name="rocmdoctor_no_such_dep")
    "missing-dependency": ("import rocmdoctor_no_such_dep\n", "No module named 'rocmdoctor_no_such_dep'"),
    # a plain ImportError from inside triton (a shared library that does not load)
    "import-error": ("raise ImportError('libtriton.so: cannot open shared object file')\n", "libtriton.so"),
    # anything else triton's import raises
    "runtime-error": ("raise RuntimeError('triton: unsupported backend')\n", "unsupported backend"),
}


@needs_torch
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


def _opts() -> SmokeOptions:
    import sys

    return SmokeOptions(python=sys.executable, level=1, cpu=True, timeout=120, quick=True, env=env_with())


@needs_torch
def test_a_capture_that_fails_as_captures_do_only_means_not_compared() -> None:
    def capture() -> None:
        raise BadInput("rocminfo: permission denied")

    report = run_smoke(_opts(), host_source=capture)
    assert report.devices and report.devices[0].completed


@needs_torch
def test_a_capture_that_fails_with_a_bug_is_raised_not_read_as_no_host() -> None:
    def capture() -> None:
        raise KeyError("a parser bug")

    with pytest.raises(KeyError, match="a parser bug"):
        run_smoke(_opts(), host_source=capture)


def test_a_matrix_that_does_not_load_is_an_error_not_no_peaks(monkeypatch: pytest.MonkeyPatch) -> None:
    import rocmdoctor.matrix

    def broken(use_cache: bool = True) -> None:
        raise ValueError("matrices/gpus.toml: broken")

    monkeypatch.setattr(rocmdoctor.matrix, "load", broken)
    with pytest.raises(ValueError, match="broken"):
        run_smoke(_opts())
