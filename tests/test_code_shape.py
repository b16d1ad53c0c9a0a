"""The shape of the code (issue 15): small modules and functions a reader can hold in their head.

No module over 500 lines (capture.py and programs/smoke_torch.py excepted: one-file programs shipped
whole); no function over 80 lines or 8 parameters (``self``/``cls`` not counted). A typer command callback
is exempt from the parameter count only: each of its parameters is a declared flag (a default of
``typer.Option``/``typer.Argument``), and it builds a typed request at once. A nested function is measured
on its own and not counted in its parent.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAX_MODULE_LINES = 500
MAX_FUNCTION_LINES = 80
MAX_PARAMETERS = 8
#: One-file programs shipped whole to another interpreter or host (capture over SSH; the smoke program run by
#: `smoke` in the user's Python and streamed to fleet nodes by `fleet audit --live`): splitting them would mean
#: shipping a package. Their functions still obey the function limits.
MODULE_EXEMPT = {"rocmdoctor/capture.py", "rocmdoctor/programs/smoke_torch.py"}

#: Over the limits and not yet split. Empty since issue 15 landed: a new violator fails.
PENDING: dict[str, str] = {}


def _is_typer_param(default: ast.expr) -> bool:
    """``typer.Option(...)``/``typer.Argument(...)``, or a shared helper that returns one
    (``quiet_option()``, ``_opt_source()``)."""
    if not isinstance(default, ast.Call):
        return False
    func = default.func
    if isinstance(func, ast.Attribute):
        return isinstance(func.value, ast.Name) and func.value.id == "typer" and func.attr in {"Option", "Argument"}
    return isinstance(func, ast.Name) and bool(re.search(r"(^|_)(opt|option|arg|argument)(_|$)", func.id))


def _parameters(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[int, bool]:
    """(parameter count without self/cls, whether it is a typer command callback)."""
    a = fn.args
    names = [*a.posonlyargs, *a.args, *a.kwonlyargs]
    if a.vararg:
        names.append(a.vararg)
    if a.kwarg:
        names.append(a.kwarg)
    count = len([n for n in names if n.arg not in {"self", "cls"}])
    defaults = [*a.defaults, *[d for d in a.kw_defaults if d is not None]]
    # every parameter a declared flag: as many defaults as parameters, each an Option/Argument
    typer_cb = len(defaults) == count and count > 0 and all(_is_typer_param(d) for d in defaults)
    return count, typer_cb


def _own_lines(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Lines of the function, less the lines of the functions (and classes) nested in it."""
    start = min([fn.lineno, *(d.lineno for d in fn.decorator_list)])
    total = (fn.end_lineno or fn.lineno) - start + 1
    nested = 0
    for child in ast.walk(fn):
        if child is fn:
            continue
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and _outermost(fn, child):
            first = min([child.lineno, *(d.lineno for d in child.decorator_list)])
            nested += (child.end_lineno or child.lineno) - first + 1
    return total - nested


def _outermost(fn: ast.AST, node: ast.AST) -> bool:
    """Whether ``node`` is nested directly in ``fn`` (no other def or class between them)."""
    for child in ast.iter_child_nodes(fn):
        if child is node:
            return True
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if _outermost(child, node):
            return True
    return False


def violations(root: Path = ROOT) -> set[str]:
    found: set[str] = set()
    for path in sorted((root / "rocmdoctor").rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        text = path.read_text(encoding="utf-8")
        lines = len(text.splitlines())
        if lines > MAX_MODULE_LINES and rel not in MODULE_EXEMPT:
            found.add(f"module {rel}: {lines} lines")
        for node in ast.walk(ast.parse(text, filename=rel)):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            size = _own_lines(node)
            if size > MAX_FUNCTION_LINES:
                found.add(f"function {rel}:{node.name}: {size} lines")
            count, typer_cb = _parameters(node)
            if count > MAX_PARAMETERS and not typer_cb:
                found.add(f"function {rel}:{node.name}: {count} parameters")
    return found


def _key(violation: str) -> str:
    """What is over which limit, without the size: a pending entry still matches while it shrinks."""
    return re.sub(r": \d+ ", ": ", violation)


def test_no_new_oversized_code():
    found = violations()
    assert len(list((ROOT / "rocmdoctor").rglob("*.py"))) > 50  # not vacuous
    key = {_key(v) for v in found}
    pending = {_key(p) for p in PENDING}
    new = sorted(v for v in found if _key(v) not in pending)
    assert not new, "over the limits (split it, or pass a typed request):\n" + "\n".join(new)
    stale = sorted(p for p in PENDING if _key(p) not in key)
    assert not stale, "fixed: remove from PENDING in tests/test_code_shape.py:\n" + "\n".join(stale)


def test_the_measure(tmp_path):
    pkg = tmp_path / "rocmdoctor"
    pkg.mkdir()
    body = "\n".join(f"    x{i} = {i}" for i in range(79))
    (pkg / "a.py").write_text(
        "import typer\n"
        f"def fits(a, b, c, d, e, f, g, h):\n{body}\n"  # 80 lines, 8 parameters
        f"def long(self):\n{body}\n    x = 1\n"  # 81 lines
        "def many(self, a, b, c, d, e, f, g, h, i):\n    pass\n"
        "def cb(a=typer.Option(1), b=typer.Option(1), c=typer.Option(1), d=typer.Option(1), e=typer.Option(1),\n"
        "       f=typer.Option(1), g=typer.Option(1), h=typer.Option(1), i=typer.Argument(1), q=quiet_option()):\n"
        "    pass\n"
        "def notcb(a=typer.Option(1), b=typer.Option(1), c=typer.Option(1), d=typer.Option(1), e=typer.Option(1),\n"
        "          f=typer.Option(1), g=typer.Option(1), h=typer.Option(1), i=2):\n    pass\n"
        f"def parent():\n    def child():\n{body.replace('    ', '        ')}\n        y = 1\n    return child\n"
    )
    (pkg / "big.py").write_text("x = 1\n" * 501)
    assert violations(tmp_path) == {
        "function rocmdoctor/a.py:long: 81 lines",
        "function rocmdoctor/a.py:many: 9 parameters",
        "function rocmdoctor/a.py:notcb: 9 parameters",
        "function rocmdoctor/a.py:child: 81 lines",
        "module rocmdoctor/big.py: 501 lines",
    }
