"""The container and fleet packages only import downwards: no cycle among their modules (function-level and
TYPE_CHECKING imports included, as grimp reads them), nothing of the CLI, nothing of install.flow (a module
that prints), and no module of theirs imports its own package's ``__init__``."""

from __future__ import annotations

import grimp
import pytest

PACKAGES = ("rocmdoctor.container", "rocmdoctor.fleet")


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("rocmdoctor")


def _modules(graph: grimp.ImportGraph) -> list[str]:
    mods = sorted(m for m in graph.modules if m.startswith(PACKAGES) and m not in PACKAGES)
    assert len(mods) > 15  # both packages were found (a wrong name would make every check below vacuous)
    return mods


def test_no_cycle_among_container_and_fleet_modules(graph: grimp.ImportGraph):
    mods = _modules(graph)
    cycles = [(a, b) for i, a in enumerate(mods) for b in mods[i + 1:]
              if graph.chain_exists(a, b) and graph.chain_exists(b, a)]
    assert cycles == []


@pytest.mark.parametrize("above", ["rocmdoctor.cli", "rocmdoctor.install.flow"])
def test_nothing_reaches_up(graph: grimp.ImportGraph, above: str):
    ups = {m: sorted(i for i in graph.find_modules_directly_imported_by(m) if i == above or i.startswith(above + "."))
           for m in _modules(graph)}
    assert {m: i for m, i in ups.items() if i} == {}


def test_no_module_imports_its_own_package_init(graph: grimp.ImportGraph):
    own = {m: m.rsplit(".", 1)[0] for m in _modules(graph)}
    assert [m for m, pkg in own.items() if pkg in graph.find_modules_directly_imported_by(m)] == []
