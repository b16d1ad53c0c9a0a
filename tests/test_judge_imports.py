"""The judge fails closed on a broken install, and its import arrows point down (issue 15).

A check module that cannot be imported used to be skipped silently (``except ModuleNotFoundError``), so a
broken install dropped a whole area of checks and reported the host healthy. Now the ImportError reaches
the CLI, which exits 3 (internal error).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parent.parent
HEALTHY = ROOT / "fixtures" / "derived-healthy-rx7900xtx-rocm6.2.2"

# A meta-path finder placed before the real ones: importing the named module fails exactly as it does when its
# file is missing from an install (ModuleNotFoundError whose .name is the module itself, the case the old code
# swallowed), or as when one of its own imports is broken (ImportError).
SHIM = textwrap.dedent('''
    import os, sys

    class _Broken:
        def find_spec(self, name, path=None, target=None):
            if name == os.environ["ROCMDOCTOR_TEST_BREAK"]:
                if os.environ.get("ROCMDOCTOR_TEST_BREAK_KIND") == "missing":
                    raise ModuleNotFoundError(f"No module named {name!r}", name=name)
                raise ImportError(f"cannot import name 'x' from partially initialized module {name!r}", name=name)
            return None

    sys.meta_path.insert(0, _Broken())
''')


def _check_with_broken(tmp_path: Path, module: str, kind: str, *args: str) -> subprocess.CompletedProcess:
    (tmp_path / "sitecustomize.py").write_text(SHIM)
    env = dict(os.environ, NO_COLOR="1", COLUMNS="120", ROCMDOCTOR_TEST_BREAK=module, ROCMDOCTOR_TEST_BREAK_KIND=kind,
               PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT), os.environ.get("PYTHONPATH", "")]))
    return subprocess.run([sys.executable, "-m", "rocmdoctor", "check", "--from", str(HEALTHY), *args],
                          capture_output=True, text=True, timeout=120, env=env, cwd=ROOT)


def test_the_healthy_fixture_is_healthy_without_the_shim(tmp_path: Path):
    """The control: the same fixture, shim installed but breaking nothing, is healthy (exit 0)."""
    proc = _check_with_broken(tmp_path, "rocmdoctor.judge.no-such-module", "missing", "--json")
    assert proc.returncode == 0, proc.stderr
    assert '"schema": "rocmdoctor-report/1"' in proc.stdout


@pytest.mark.parametrize("kind", ["missing", "broken"])
@pytest.mark.parametrize("module", ["rocmdoctor.judge.health", "rocmdoctor.judge.secureboot"])
@pytest.mark.parametrize("fmt", [(), ("--json",)], ids=["text", "json"])
def test_a_check_module_that_fails_to_import_exits_3(tmp_path: Path, module: str, kind: str, fmt: tuple[str, ...]):
    proc = _check_with_broken(tmp_path, module, kind, *fmt)
    assert proc.returncode == 3, (proc.returncode, proc.stdout, proc.stderr)
    assert "internal error" in proc.stderr and module in proc.stderr
    assert proc.stdout.strip() == "", proc.stdout  # no report at all, least of all a healthy one
    assert "[✓]" not in proc.stdout + proc.stderr and "rocmdoctor-report" not in proc.stdout


# -- arrows -----------------------------------------------------------------------------------------------------

ABOVE_JUDGE = ("rocmdoctor.diagnose", "rocmdoctor.report", "rocmdoctor.install", "rocmdoctor.smoke",
               "rocmdoctor.container", "rocmdoctor.fleet", "rocmdoctor.cli", "rocmdoctor.matrix.view",
               "rocmdoctor.matrix.update")
# the judge/report core this test guards (report.html belongs to the report feature's own layering test)
CORE = ("rocmdoctor.judge", "rocmdoctor.diagnose", "rocmdoctor.report.render", "rocmdoctor.report.tables",
        "rocmdoctor.report.htmlpage", "rocmdoctor.model")


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("rocmdoctor", include_external_packages=False)  # function-level imports included


def _in(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def test_judge_imports_nothing_above_it(graph: grimp.ImportGraph):
    judge = {m for m in graph.modules if _in(m, ("rocmdoctor.judge",))}
    assert len(judge) > 10
    up = sorted((m, i) for m in judge for i in graph.find_modules_directly_imported_by(m) if _in(i, ABOVE_JUDGE))
    assert up == []


def test_no_cycle_in_the_judge_report_core(graph: grimp.ImportGraph):
    core = {m for m in graph.modules if _in(m, CORE)}
    edges = {m: {i for i in graph.find_modules_directly_imported_by(m) if i in core and i != m} for m in core}
    # the package __init__ imports its check modules (it only re-exports); a submodule importing the package
    # itself would be the cycle
    assert not [m for m in core if m.startswith("rocmdoctor.judge.") and "rocmdoctor.judge" in edges[m]]
    edges["rocmdoctor.judge"] = set()  # parent -> child edges are the re-exports, not arrows
    seen: dict[str, int] = {}

    def visit(m: str, stack: list[str]) -> None:
        seen[m] = 1
        for n in sorted(edges[m]):
            assert seen.get(n) != 1, " -> ".join([*stack, m, n])
            if n not in seen:
                visit(n, [*stack, m])
        seen[m] = 2

    for m in sorted(core):
        if m not in seen:
            visit(m, [])
