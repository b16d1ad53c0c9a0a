#!/usr/bin/env python3
"""The import graph of the rocmdoctor package and the layering rules it must keep (docs/ARCHITECTURE.md).

Why a script of our own and not grimp: it is ``ast`` only (no dependency, no import of the package, so a
broken module cannot hide its edges), and it sees every import a reader would: module level, inside
functions, under ``if TYPE_CHECKING:``, relative ones, and ``importlib.import_module("rocmdoctor.…")`` /
``__import__`` with a literal name (an f-string with a literal ``rocmdoctor.pkg.`` prefix counts as an
import of every module directly in that package).

    python scripts/import_graph.py            # package-level graph, layer by layer (violations marked !)
    python scripts/import_graph.py --modules  # module-level graph
    python scripts/import_graph.py --check    # list the violations; exit 1 when there is any
    python scripts/import_graph.py --root DIR # the graph of another checkout (git archive REV | tar -x -C DIR)

``tests/test_layering.py`` uses :func:`violations` with its list of known, pending violations.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "rocmdoctor"

#: The layers, low to high: an import may point to a lower layer, or stay inside its own unit.
#: Each entry is (layer name, units); a unit is a module or a package (every module under it).
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("base", ("rocmdoctor", "rocmdoctor.errors", "rocmdoctor.limits", "rocmdoctor.paths", "rocmdoctor.sanitize",
              "rocmdoctor.atomic", "rocmdoctor.datacache", "rocmdoctor.words", "rocmdoctor.model", "rocmdoctor.http",
              "rocmdoctor.data")),
    ("capture", ("rocmdoctor.capture", "rocmdoctor.livefacts", "rocmdoctor.programs")),
    ("parse", ("rocmdoctor.parse",)),
    ("bundle", ("rocmdoctor.bundle",)),
    ("matrix", ("rocmdoctor.matrix",)),  # less matrix.view and matrix.update: features
    ("judge", ("rocmdoctor.judge",)),
    ("diagnose", ("rocmdoctor.diagnose",)),
    ("report", ("rocmdoctor.report",)),
    ("features", ("rocmdoctor.install", "rocmdoctor.smoke", "rocmdoctor.matrix.view", "rocmdoctor.matrix.update")),
    ("container", ("rocmdoctor.container",)),
    ("fleet", ("rocmdoctor.fleet",)),
    ("cli", ("rocmdoctor.cli", "rocmdoctor.__main__")),
)
#: Layers whose units may use each other (never in a cycle): the base modules, and `python -m` -> cli.
SHARED_UNIT_LAYERS = frozenset({"base", "cli"})
#: Units that may import nothing from rocmdoctor: they run in another interpreter or on another host.
STANDALONE = ("rocmdoctor.capture", "rocmdoctor.programs")
#: The features a higher feature may use; any other feature is out of bounds for it.
FEATURE_USES = {"rocmdoctor.container": ("rocmdoctor.install",), "rocmdoctor.fleet": ("rocmdoctor.smoke",)}


def module_files(root: Path = ROOT) -> dict[str, Path]:
    """Every module of the package by its dotted name (a package by its ``__init__``)."""
    out: dict[str, Path] = {}
    for path in sorted((root / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _is_package(path: Path) -> bool:
    return path.name == "__init__.py"


def _resolve(name: str, modules: Iterable[str]) -> Optional[str]:
    """The longest prefix of ``name`` that is one of our modules (``a.b.func`` -> ``a.b``)."""
    known = set(modules)
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in known:
            return candidate
        parts.pop()
    return None


def _literal_prefix(node: ast.AST) -> Optional[tuple[str, bool]]:
    """The module name a call's first argument spells: (name, exact) or None when it spells nothing."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value, True
    if isinstance(node, ast.JoinedStr) and node.values:
        first = node.values[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            return first.value, False
    return None


def _dynamic_names(call: ast.Call) -> Optional[tuple[str, bool]]:
    func = call.func
    named = (isinstance(func, ast.Attribute) and func.attr == "import_module") or (
        isinstance(func, ast.Name) and func.id in {"import_module", "__import__"})
    if not named or not call.args:
        return None
    return _literal_prefix(call.args[0])


def imports_of(module: str, path: Path, modules: Iterable[str]) -> set[str]:
    """The rocmdoctor modules ``module`` imports anywhere in its file."""
    known = sorted(modules)
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = module if _is_package(path) else module.rpartition(".")[0]
    out: set[str] = set()

    def add(name: str) -> None:
        target = _resolve(name, known)
        if target is not None and target != module:
            out.add(target)

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base_parts = package.split(".")
                base_parts = base_parts[: len(base_parts) - (node.level - 1)]
                base = ".".join(base_parts + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            if not (base == PACKAGE or base.startswith(PACKAGE + ".")):
                continue
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                add(sub if sub in known else base)
        elif isinstance(node, ast.Call):
            spelled = _dynamic_names(node)
            if spelled is None:
                continue
            name, exact = spelled
            if exact:
                add(name)
            elif name.endswith(".") and name[:-1] in known:
                prefix = name
                for other in known:
                    if other.startswith(prefix) and "." not in other[len(prefix):]:
                        add(other)
            else:
                add(name)
    return out


def graph(root: Path = ROOT) -> dict[str, set[str]]:
    """Module -> the rocmdoctor modules it imports."""
    files = module_files(root)
    return {name: imports_of(name, path, files) for name, path in files.items()}


def _within(module: str, unit: str) -> bool:
    return module == unit or module.startswith(unit + ".")


def unit_of(module: str) -> tuple[int, str]:
    """(layer index, unit) of a module: the most specific unit that holds it."""
    best: Optional[tuple[int, int, str]] = None
    for index, (_layer, units) in enumerate(LAYERS):
        for unit in units:
            if _within(module, unit) or (unit == PACKAGE and module == PACKAGE):
                if unit == PACKAGE and module != PACKAGE:
                    continue  # the top-level __init__ only, not everything under it
                depth = unit.count(".")
                if best is None or depth > best[1]:
                    best = (index, depth, unit)
    if best is None:
        raise ValueError(f"{module} is in no layer: add it to LAYERS in scripts/import_graph.py")
    return best[0], best[2]


def layer_name(module: str) -> str:
    return LAYERS[unit_of(module)[0]][0]


def _edge_violation(src: str, dst: str, init_imports_subs: set[str]) -> Optional[str]:
    src_layer, src_unit = unit_of(src)
    dst_layer, dst_unit = unit_of(dst)
    if any(_within(src, s) for s in STANDALONE):
        return "standalone"  # capture and programs import nothing from rocmdoctor
    parent = src.rpartition(".")[0]
    while parent and parent != PACKAGE:
        if dst == parent and parent in init_imports_subs:
            return "own-init"
        parent = parent.rpartition(".")[0]
    if src_unit == dst_unit:
        return None
    if dst_layer > src_layer:
        return "up"
    if dst_layer == src_layer:
        return None if LAYERS[src_layer][0] in SHARED_UNIT_LAYERS else "sideways"
    for unit, allowed in FEATURE_USES.items():
        if _within(src, unit) and LAYERS[dst_layer][0] == "features" and dst_unit not in allowed:
            return "feature"
    return None


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for start in sorted(edges):
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


@dataclass(frozen=True)
class Violation:
    kind: str  # up, sideways, feature, standalone, own-init, cycle
    text: str  # "src -> dst" or, for a cycle, its modules joined by " <-> "

    def __str__(self) -> str:
        return f"{self.kind}: {self.text}"


def violations(edges: Optional[dict[str, set[str]]] = None) -> list[Violation]:
    """Every broken rule, sorted: edges that point up, sideways or out of a standalone unit, a submodule
    importing its package's ``__init__`` (which imports submodules), and every import cycle."""
    edges = graph() if edges is None else edges
    init_imports_subs = {m for m, deps in edges.items() if any(d.startswith(m + ".") for d in deps)}
    found = set()
    for src in sorted(edges):
        for dst in sorted(edges[src]):
            kind = _edge_violation(src, dst, init_imports_subs)
            if kind is not None:
                found.add(Violation(kind, f"{src} -> {dst}"))
    for component in cycles(edges):
        found.add(Violation("cycle", " <-> ".join(component)))
    return sorted(found, key=lambda v: (v.kind, v.text))


def package_of(module: str) -> str:
    """The node a module is drawn as in the package-level graph: its unit."""
    return unit_of(module)[1]


def package_graph(edges: dict[str, set[str]]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for src, deps in edges.items():
        node = package_of(src)
        out.setdefault(node, set())
        for dst in deps:
            if package_of(dst) != node:
                out[node].add(package_of(dst))
    return out


def _print_graph(nodes: dict[str, set[str]], bad: set[tuple[str, str]]) -> None:
    short = lambda name: name[len(PACKAGE) + 1:] if name.startswith(PACKAGE + ".") else name  # noqa: E731
    for index, (layer, _units) in enumerate(LAYERS):
        members = sorted(n for n in nodes if unit_of(n)[0] == index)
        if not members:
            continue
        print(f"[{index}] {layer}")
        for node in members:
            deps = sorted(nodes[node], key=lambda d: (unit_of(d)[0], d))
            shown = ", ".join(("!" if (node, d) in bad else "") + short(d) for d in deps)
            print(f"    {short(node)} -> {shown or '(nothing)'}")


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--modules", action="store_true", help="draw modules, not packages")
    parser.add_argument("--check", action="store_true", help="list the violations; exit 1 when there is any")
    parser.add_argument("--root", type=Path, default=ROOT,
                        help="the checkout to read (default: this one), e.g. an export of an older commit")
    args = parser.parse_args(argv)
    edges = graph(args.root)
    found = violations(edges)
    if args.check:
        for violation in found:
            print(violation)
        print(f"{len(found)} violation(s) of the layering rules", file=sys.stderr)
        return 1 if found else 0
    bad_modules = {tuple(v.text.split(" -> ")) for v in found if v.kind != "cycle"}
    if args.modules:
        _print_graph(edges, bad_modules)  # type: ignore[arg-type]
    else:
        bad = {(package_of(s), package_of(d)) for s, d in bad_modules}
        _print_graph(package_graph(edges), bad)
    cyc = [v for v in found if v.kind == "cycle"]
    for v in cyc:
        print(f"cycle: {v.text}")
    print(f"{len(found)} violation(s); '!' marks an edge that breaks a rule (--check lists them)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
