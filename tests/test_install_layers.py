"""The install feature's import arrows: down only (never into cli/, typer, container/ or fleet/), no cycles
among its own modules (function-level imports included), and an ImportError of our own package is a crash."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

INSTALL = Path(__file__).resolve().parent.parent / "rocmdoctor" / "install"
UPWARD = ("typer", "click", "rocmdoctor.cli", "rocmdoctor.container", "rocmdoctor.fleet", "rocmdoctor.smoke")


def _imports(path: Path) -> set[str]:
    """Every module ``path`` imports, at any level of the file (``from a import b`` counts as a and a.b)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            out |= {f"{node.module}.{a.name}" for a in node.names}
    return out


MODULES = {f"rocmdoctor.install.{p.stem}": _imports(p) for p in sorted(INSTALL.glob("*.py")) if p.stem != "__init__"}


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_arrow_points_up(module: str) -> None:
    bad = sorted(i for i in MODULES[module] if i.startswith(UPWARD))
    assert not bad, f"{module} imports {bad}"


def test_no_cycles_among_install_modules() -> None:
    graph = {m: {i for i in imps if i in MODULES and i != m} for m, imps in MODULES.items()}
    seen: dict[str, int] = {}  # 1 on the stack, 2 done

    def visit(m: str, path: list[str]) -> None:
        seen[m] = 1
        for n in sorted(graph[m]):
            assert seen.get(n) != 1, " -> ".join([*path, m, n])
            if n not in seen:
                visit(n, [*path, m])
        seen[m] = 2

    for m in sorted(graph):
        if m not in seen:
            visit(m, [])


def test_no_module_degrades_on_an_import_error_of_our_own() -> None:
    """Fail closed: no `except ImportError` around rocmdoctor's own imports ("not available in this build")."""
    for path in INSTALL.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Try):
                continue
            catches = {ast.unparse(h.type) for h in node.handlers if h.type is not None}
            if not any("ImportError" in c for c in catches):
                continue
            guarded = {i for stmt in node.body for n in ast.walk(stmt)
                       for i in ([n.module or ""] if isinstance(n, ast.ImportFrom) else
                                 [a.name for a in n.names] if isinstance(n, ast.Import) else [])}
            assert not any(g.startswith("rocmdoctor") for g in guarded), f"{path.name}: {sorted(guarded)}"


def test_request_validation_is_usage_error() -> None:
    from rocmdoctor.errors import BadInput
    from rocmdoctor.install.flow import InstallRequest, run

    for request, message in ((InstallRequest(installer="conda"), "--installer must be pip or uv"),
                             (InstallRequest(index_url="--evil"), "is not a URL"),
                             (InstallRequest(source="  "), "--from: empty value")):
        with pytest.raises(BadInput, match=message):
            run(request)
