"""The programs that run in another interpreter (rocmdoctor/programs/*.py) are real files: standalone (nothing
from rocmdoctor), and what the install runs from them answers as before."""

from __future__ import annotations

import ast
import json
import subprocess
import sys

from hypothesis import given
from hypothesis import strategies as st
from packaging.utils import canonicalize_name

from rocmdoctor.install.session import SESSION_MARK, TARGET_PROGRAM, PipSession, probe, program_text
from rocmdoctor.install.verify import VERIFY_PROGRAM, VERIFY_WAIT
from rocmdoctor.paths import PROGRAMS_DIR

PROGRAMS = sorted(p for p in PROGRAMS_DIR.glob("*.py") if p.name != "__init__.py")


def _imported(path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            names.add("." * node.level + (node.module or ""))
    return names


def test_programs_import_nothing_from_rocmdoctor() -> None:
    names = {p.name for p in PROGRAMS}
    assert {TARGET_PROGRAM, VERIFY_PROGRAM, VERIFY_WAIT, "smoke_torch.py"} <= names
    for p in PROGRAMS:
        bad = sorted(n for n in _imported(p) if n.split(".")[0] == "rocmdoctor" or n.startswith("."))
        assert not bad, f"{p.name} imports {bad}: a program runs where rocmdoctor may not be installed"


def test_install_programs_use_the_standard_library_only() -> None:
    """The probe and the verification wait run in any target interpreter: no third-party import (torch is the
    verification's subject, imported inside its try)."""
    stdlib = set(sys.stdlib_module_names) | {"__future__"}
    for name in (TARGET_PROGRAM, VERIFY_WAIT, VERIFY_PROGRAM):
        extra = {n.split(".")[0] for n in _imported(PROGRAMS_DIR / name)} - stdlib
        assert extra <= ({"torch"} if name == VERIFY_PROGRAM else set()), (name, extra)


def test_probe_text_is_the_file_and_answers_what_target_needs() -> None:
    assert program_text(TARGET_PROGRAM) == (PROGRAMS_DIR / TARGET_PROGRAM).read_text(encoding="utf-8")
    out = subprocess.run([sys.executable, "-c", program_text(TARGET_PROGRAM)], capture_output=True, text=True,
                         check=True, timeout=60).stdout
    d = json.loads(out.strip().splitlines()[-1])
    assert d["executable"] == sys.executable and d["pip"] is True
    assert d["version"] == ".".join(str(x) for x in sys.version_info[:3])
    assert "packaging" in d["dists"] and all(canonicalize_name(n) == n for n in d["dists"])


def test_session_answers_the_same_probe_and_exits_untouched_on_end_of_input() -> None:
    session = PipSession(sys.executable, prewarm=False)
    try:
        assert session.target() == probe(sys.executable)
    finally:
        session.close()
    assert session.proc.returncode == 0
    proc = subprocess.run([sys.executable, "-B", "-c", program_text(TARGET_PROGRAM), "pip", SESSION_MARK],
                          input="", capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.startswith(SESSION_MARK)


def test_verify_wait_runs_the_check_as_python_c_would() -> None:
    """No torch here: the check reports the ImportError in `error`, through the waiting interpreter."""
    code = ("import sys, json; print(json.dumps({'argv': sys.argv, 'name': __name__}))")
    proc = subprocess.run([sys.executable, "-B", "-c", program_text(VERIFY_WAIT), code], input="nogpu\n",
                          capture_output=True, text=True, timeout=60)
    assert json.loads(proc.stdout) == {"argv": ["-c", "nogpu"], "name": "__main__"}
    proc = subprocess.run([sys.executable, "-B", "-c", program_text(VERIFY_WAIT), code], input="",
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout == ""


_NAME = st.text(alphabet=st.sampled_from("aAzZ09-_. "), max_size=20)


def _probe_namespace() -> dict[str, object]:
    """The probe program's functions, loaded without running it (it is not __main__ here)."""
    ns: dict[str, object] = {"__name__": "probe_copy"}
    saved = list(sys.path)
    try:
        exec(compile(program_text(TARGET_PROGRAM), "target_session.py", "exec"), ns)
    finally:
        sys.path[:] = saved
    return ns


_CANONICAL = _probe_namespace()["_canonical"]


@given(_NAME)
def test_the_probe_s_name_normalisation_is_packaging_s(name: str) -> None:
    """The probe keeps a local copy (the target may lack packaging): it must equal canonicalize_name."""
    assert _CANONICAL(name) == canonicalize_name(name)  # type: ignore[operator]


def test_verification_that_prints_no_object_is_a_problem_not_a_crash(monkeypatch) -> None:
    """A sitecustomize (or a broken torch) can leave any JSON on the last line: not an object -> a problem."""
    from rocmdoctor.install import verify as verify_mod
    from rocmdoctor.install.plan import Plan, Requirement

    real = verify_mod.program_text
    plan = Plan("http://127.0.0.1/simple", [Requirement("torch", "2.5.1+rocm6.2")], "3.11", "6.2")
    for printed, problem in (("[1]", "printed list, not an object"),
                             ('{"version": "2.5.1+rocm6.2", "hip": "6.2", "libs": []}', None)):
        monkeypatch.setattr(verify_mod, "program_text",
                            lambda name, p=printed: real(name) if name == VERIFY_WAIT else f"print({p!r})")
        got = verify_mod.verify(plan, sys.executable, gpu_check=False, timeout=60)
        assert (got == []) if problem is None else (len(got) == 1 and problem in got[0]), got
