"""The layering of the package, read from its import graph (scripts/import_graph.py, ast only).

Layers, low to high (docs/ARCHITECTURE.md): base -> capture/livefacts/programs -> parse -> bundle -> matrix ->
judge -> diagnose -> report -> features (install, smoke, matrix.view, matrix.update) -> container -> fleet ->
cli. An import points down or stays inside its own package; capture and programs import nothing of ours; a
submodule does not import its package's ``__init__`` when that ``__init__`` imports submodules; no cycle,
function-level imports included.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _load_graph_module():
    spec = importlib.util.spec_from_file_location("import_graph", ROOT / "scripts" / "import_graph.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


ig = _load_graph_module()

#: Known violations, each with the area that fixes it. Empty since issue 15 landed (the exact list it started
#: from is in git history); a new violation, or an entry here that no longer happens, fails.
PENDING: dict[str, str] = {}  # empty since issue 15 landed: any violation fails


@pytest.fixture(scope="module")
def edges() -> dict[str, set[str]]:
    return ig.graph()


def test_the_graph_covers_the_package(edges):
    """Not vacuous: every module is in the graph and in a layer, and the graph has the edges we know of."""
    on_disk = {p for p in (ROOT / "rocmdoctor").rglob("*.py")}
    assert len(edges) == len(on_disk) > 50
    assert sum(len(d) for d in edges.values()) > 200
    for module in edges:
        ig.unit_of(module)  # raises for a module in no layer
    assert any(d.startswith("rocmdoctor.parse") for m, ds in edges.items() if m.startswith("rocmdoctor.bundle")
               for d in ds)
    assert "rocmdoctor.cli.entry" in edges["rocmdoctor.__main__"]


def test_no_new_layering_violation(edges):
    found = {str(v) for v in ig.violations(edges)}
    new = sorted(found - set(PENDING))
    assert not new, "imports that break the layering (docs/ARCHITECTURE.md):\n" + "\n".join(new)


def test_pending_list_is_exact(edges):
    """A fixed violation leaves PENDING, so that it cannot come back unnoticed."""
    found = {str(v) for v in ig.violations(edges)}
    stale = sorted(set(PENDING) - found)
    assert not stale, "fixed: remove from PENDING in tests/test_layering.py:\n" + "\n".join(stale)


# The rules themselves, on small made-up packages.

def _tree(tmp_path: Path, files: dict[str, str]) -> dict[str, set[str]]:
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return ig.graph(tmp_path)


def test_imports_inside_functions_and_by_name_are_edges(tmp_path):
    edges = _tree(tmp_path, {
        "rocmdoctor/__init__.py": "",
        "rocmdoctor/model.py": "",
        "rocmdoctor/parse/__init__.py": "",
        "rocmdoctor/parse/a.py": "def f():\n    from rocmdoctor import diagnose\n",
        "rocmdoctor/parse/b.py": "import importlib\nimportlib.import_module('rocmdoctor.judge.x')\n",
        "rocmdoctor/parse/c.py": "from . import a\nfrom ..model import Host\n",
        "rocmdoctor/judge/__init__.py": "import importlib\nfor n in ('x',):\n"
                                        "    importlib.import_module(f'rocmdoctor.judge.{n}')\n",
        "rocmdoctor/judge/x.py": "",
        "rocmdoctor/diagnose.py": "",
    })
    assert edges["rocmdoctor.parse.a"] == {"rocmdoctor.diagnose"}
    assert edges["rocmdoctor.parse.b"] == {"rocmdoctor.judge.x"}
    assert edges["rocmdoctor.parse.c"] == {"rocmdoctor.parse.a", "rocmdoctor.model"}
    assert edges["rocmdoctor.judge"] == {"rocmdoctor.judge.x"}
    found = {str(v) for v in ig.violations(edges)}
    assert found == {"up: rocmdoctor.parse.a -> rocmdoctor.diagnose", "up: rocmdoctor.parse.b -> rocmdoctor.judge.x"}


def test_each_rule(tmp_path):
    edges = _tree(tmp_path, {
        "rocmdoctor/__init__.py": "",
        "rocmdoctor/errors.py": "",
        "rocmdoctor/capture.py": "from rocmdoctor import errors\n",
        "rocmdoctor/programs/__init__.py": "",
        "rocmdoctor/programs/p.py": "import rocmdoctor.errors\n",
        "rocmdoctor/install/__init__.py": "",
        "rocmdoctor/install/a.py": "from rocmdoctor.smoke import run\n",
        "rocmdoctor/smoke/__init__.py": "from rocmdoctor.smoke import t\n",
        "rocmdoctor/smoke/t.py": "from rocmdoctor.smoke import x\n",
        "rocmdoctor/container/__init__.py": "from rocmdoctor.install import a\nfrom rocmdoctor.smoke import t\n",
        "rocmdoctor/fleet/__init__.py": "from rocmdoctor.smoke import t\nfrom rocmdoctor import container\n",
        "rocmdoctor/parse/__init__.py": "",
        "rocmdoctor/parse/x.py": "from rocmdoctor.parse import y\n",
        "rocmdoctor/parse/y.py": "def f():\n    from rocmdoctor.parse import x\n",
    })
    found = {str(v) for v in ig.violations(edges)}
    assert found == {
        "standalone: rocmdoctor.capture -> rocmdoctor.errors",
        "standalone: rocmdoctor.programs.p -> rocmdoctor.errors",
        "sideways: rocmdoctor.install.a -> rocmdoctor.smoke",
        "own-init: rocmdoctor.smoke.t -> rocmdoctor.smoke",
        "cycle: rocmdoctor.smoke <-> rocmdoctor.smoke.t",
        "feature: rocmdoctor.container -> rocmdoctor.smoke.t",
        "cycle: rocmdoctor.parse.x <-> rocmdoctor.parse.y",
    }


def test_the_script_prints_and_checks():
    import subprocess

    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "import_graph.py")], capture_output=True,
                         text=True, check=True).stdout
    assert "[0] base" in out and "cli ->" in out
    check = subprocess.run([sys.executable, str(ROOT / "scripts" / "import_graph.py"), "--check"],
                           capture_output=True, text=True)
    assert check.returncode == (1 if PENDING else 0)
    assert set(check.stdout.splitlines()) == set(PENDING)
