"""Install a :class:`~rocmdoctor.install.plan.Plan` into a target interpreter, and lose nothing if anything fails.

:func:`install` is the transaction; each step lives in a module named for it and is testable on its own:

* :mod:`~rocmdoctor.install.session` asks the target interpreter what it is (:func:`probe`) and keeps it
  as a :class:`PipSession` that loads pip while rocmdoctor reads the host (one interpreter start, not two);
* :mod:`~rocmdoctor.install.snapshot` backs site-packages up (hard links) and restores it exactly;
* :mod:`~rocmdoctor.install.runner` builds and runs the pip/uv command, isolated from the user's configuration;
* :mod:`~rocmdoctor.install.verify` checks the torch now installed, and where every new distribution came from;
* :mod:`~rocmdoctor.install.hashlock` writes the ``--require-hashes`` lock;
* :mod:`~rocmdoctor.install.lock` holds the environment and keeps the journal a killed run is recovered from.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from rocmdoctor.errors import BadInput
from rocmdoctor.install import lock as txn
from rocmdoctor.install.plan import Plan
from rocmdoctor.install.runner import find_uv, install_argv, install_env, run_streaming
from rocmdoctor.install.session import PipSession, probe
from rocmdoctor.install.snapshot import Snapshot
from rocmdoctor.install.target import Installer, Target
from rocmdoctor.install.verify import Verifier, verify, verify_sources


@contextlib.contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM, SIGHUP (the terminal closed) and SIGQUIT during the install are handled like Ctrl-C: pip is
    stopped, the environment restored, then rocmdoctor exits. (SIGKILL cannot be caught: pip dies with us,
    see :func:`rocmdoctor.install.session.die_with_parent_hook`, and the next run rolls back from the journal.)"""

    def handler(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    saved = {}
    try:
        for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
            saved[sig] = signal.signal(sig, handler)
    except ValueError:  # not the main thread
        pass
    try:
        yield
    finally:
        for sig, old in saved.items():
            signal.signal(sig, old)


@contextlib.contextmanager
def _signals_ignored() -> Iterator[None]:
    """SIGINT/SIGTERM ignored for the duration (main thread only; elsewhere a no-op)."""
    saved = {}
    try:
        for sig in (signal.SIGINT, signal.SIGTERM):
            saved[sig] = signal.signal(sig, signal.SIG_IGN)
    except ValueError:  # not the main thread
        pass
    try:
        yield
    finally:
        for sig, old in saved.items():
            signal.signal(sig, old)


@dataclass
class InstallResult:
    ok: bool
    installer_rc: Optional[int] = None
    problems: list[str] = field(default_factory=list)  # verification problems / installer error lines
    restored: bool = False
    restore_problems: list[str] = field(default_factory=list)
    seconds: float = 0.0
    output_tail: list[str] = field(default_factory=list)
    recovered: list[str] = field(default_factory=list)  # an earlier interrupted install, finished first


def _restore_and_check(snap: Snapshot, target: Target) -> list[str]:
    """Restore the files (a second Ctrl-C cannot cut this short), then ask the interpreter again: the
    distribution list must be the one we saw first."""
    with _signals_ignored():
        problems = snap.restore()
    try:
        now = probe(target.executable).dists
    except BadInput as exc:
        return [*problems, f"could not re-read the environment after restoring it: {exc}"]
    for name in sorted(set(now) | set(target.dists)):
        if now.get(name) != target.dists.get(name):
            problems.append(f"{name}: {target.dists.get(name) or 'absent'} before, {now.get(name) or 'absent'} now")
    return problems



@dataclass
class _Prepared:
    """The install's command line and environment, written into its work directory."""

    argv: list[str]
    env: dict[str, str]


def _prepare(plan: Plan, target: Target, installer: Installer, lock: Optional[str], work: str) -> _Prepared:
    """The constraints file, an empty find-links directory, the scrubbed environment and the command."""
    if installer == Installer.PIP and not target.has_pip:
        raise BadInput(f"{target.executable} has no pip: use --installer uv, "
                       f"or run `{target.executable} -m ensurepip`")
    uv = find_uv() if installer == Installer.UV else None
    constraints = os.path.join(work, "constraints.txt")
    Path(constraints).write_text(plan.constraints())
    empty = os.path.join(work, "no-find-links")
    os.makedirs(empty, exist_ok=True)
    env = install_env(plan, installer, constraints, empty)
    return _Prepared(install_argv(plan, installer, target.executable, constraints, lock, uv), env)


def _run_and_verify(plan: Plan, target: Target, installer: Installer, gpu_check: bool, prepared: _Prepared,
                    session: Optional[PipSession], on_line: Callable[[str], None], result: InstallResult) -> None:
    """Run the installer (in ``session`` when it can), then verify; fills ``result`` (ok, rc, problems)."""
    argv, env = prepared.argv, prepared.env
    use_session = session is not None and installer == Installer.PIP and session.can_install(target)
    verifier = Verifier(plan, target.executable)  # its start-up overlaps the install
    try:
        if use_session:
            assert session is not None and argv[:3] == [target.executable, "-m", "pip"]
            rc, lines = session.run(argv[3:], env, on_line)
        else:
            rc, lines = run_streaming(argv, env, on_line)
        result.installer_rc, result.output_tail = rc, lines[-40:]
        if rc != 0:
            errors = [x for x in lines if re.match(r"\s*(ERROR|error|cause)\b", x)]
            result.problems = errors[-6:] or lines[-6:] or [f"{installer} exited with {rc}"]
            return
        on_line("verifying the installed torch")
        result.problems = verify(plan, target.executable, gpu_check, started=verifier)
        if not result.problems:
            result.problems = verify_sources(plan, target.dists, target.executable)
        result.ok = not result.problems
    finally:
        verifier.close()


def install(
    plan: Plan, target: Target, installer: str = "pip", gpu_check: bool = False, lock: Optional[str] = None,
    on_line: Callable[[str], None] = lambda line: None, session: Optional[PipSession] = None,
    snapshot: Optional[Snapshot] = None,
) -> InstallResult:
    """Snapshot, install, verify; on any failure or interrupt restore the snapshot exactly.

    ``installer``: an :class:`Installer` (or its value). ``session``: a :class:`PipSession` of ``target``
    that runs pip (else a fresh ``python -m pip``; a session that cannot is left alone). ``snapshot``: one
    :meth:`Snapshot.take` of ``target`` made since nothing else changed it (else taken here); either way it
    is this function's to restore and discard.
    Returns an :class:`InstallResult` (``ok=False`` with ``restored=True`` after a failure); a Ctrl-C
    restores and then re-raises ``KeyboardInterrupt`` (carrying ``restore_problems``).
    """
    start = time.monotonic()
    work: Optional[str] = None
    snap = snapshot
    result = InstallResult(ok=False)
    try:
        if installer not in tuple(Installer):
            raise BadInput(f"--installer must be pip or uv, not {installer!r}")
        kind = Installer(installer)
        work = txn.new_workdir()
        prepared = _prepare(plan, target, kind, lock, work)
        if snap is None:
            snap = Snapshot.take(target)
        result.recovered = list(snap.recovered)
        for note in snap.recovered:
            on_line(note)
        with _sigterm_as_interrupt():
            try:
                _run_and_verify(plan, target, kind, gpu_check, prepared, session, on_line, result)
            except KeyboardInterrupt as exc:
                result.restore_problems = _restore_and_check(snap, target)
                result.restored = True
                exc.restore_problems = result.restore_problems  # type: ignore[attr-defined]
                raise
            if not result.ok:
                on_line("restoring the environment")
                result.restore_problems = _restore_and_check(snap, target)
                result.restored = True
    finally:
        if snap is not None:
            snap.discard(background=True)
        if work:
            shutil.rmtree(work, ignore_errors=True)
        result.seconds = time.monotonic() - start
    return result
