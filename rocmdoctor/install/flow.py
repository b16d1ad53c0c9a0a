"""The flow behind `rocmdoctor install torch`: read the host, resolve, confirm, install, verify, or restore.

Resolution lives in :mod:`rocmdoctor.install.resolve`, installing/verifying/restoring in
:mod:`rocmdoctor.install.installer` and the modules it names, the hash lock in :mod:`rocmdoctor.install.hashlock`;
this module strings them together and prints. Human output on stdout (the plan, the result); with ``--json``
stdout carries only the plan JSON and everything else goes to stderr. ``--from BUNDLE`` plans (and locks) for a
captured host and installs nothing. Exit codes: 0 installed (or planned), 1 refused / failed (environment
restored), 2 bad input, 130 interrupted (environment restored).

The command line arrives as one :class:`InstallRequest`, built by the typer command
(:mod:`rocmdoctor.cli.commands.install`), which has already checked that ``--lock`` can be written.
"""

from __future__ import annotations

import os
import shlex
import sys
import tempfile
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Callable, Optional

from rocmdoctor.errors import BadInput, OperationFailed
from rocmdoctor.install.host import capture_local_host, load_bundle_host
from rocmdoctor.install.session import PipSession, default_python
from rocmdoctor.install.target import Installer, TorchBuild

if TYPE_CHECKING:
    from rich.console import Console

    from rocmdoctor.install.plan import Plan, Rejected
    from rocmdoctor.install.snapshot import Snapshot
    from rocmdoctor.install.target import Target
    from rocmdoctor.model import Host

__all__ = ["InstallRequest", "capture_local_host", "default_python", "load_bundle_host", "run"]

INSTALLERS = tuple(i.value for i in Installer)


@dataclass(frozen=True)
class InstallRequest:
    """One `install torch` command line, typed. ``argv``: the command as typed (for the "rerun with --yes"
    hint); ``confirm``: how to ask a yes/no question on a terminal (the CLI's prompt; None: never ask)."""

    packages: tuple[str, ...] = ()
    python: Optional[str] = None
    source: Optional[str] = None
    python_version: Optional[str] = None
    torch_spec: Optional[str] = None
    rocm: Optional[str] = None
    channel: str = "pytorch"
    installer: str = Installer.PIP
    index_url: Optional[str] = None
    find_links: Optional[str] = None
    dry_run: bool = False
    lock: Optional[str] = None
    as_json: bool = False
    yes: bool = False
    argv: tuple[str, ...] = ()
    confirm: Optional[Callable[[str], bool]] = None

    def validate(self) -> None:
        """:class:`BadInput` (exit 2) for a value no step could use, before anything starts."""
        if self.installer not in INSTALLERS:
            raise BadInput(f"--installer must be pip or uv, not {self.installer!r}")
        for opt, value in (("--index-url", self.index_url), ("--find-links", self.find_links)):
            if value is not None and value.startswith("-"):
                raise BadInput(f"{opt} {value!r} is not a URL")
        # An empty value (an unset shell variable: --from "$B") must never fall back to this host: with --from
        # that would turn a plan for another machine into a real install here.
        for opt, value in (("--from", self.source), ("--python", self.python), ("--lock", self.lock)):
            if value is not None and not value.strip():
                raise BadInput(f"{opt}: empty value")


def _series(version: str) -> str:
    return ".".join(version.strip().split(".")[:2])


def render_plan(plan: Plan, con: Console) -> None:
    """The plan as a reader wants it: what, why, what was rejected, and the loud warnings."""
    from rich.markup import escape as e

    con.print(f"[bold]Plan[/bold] for Python {e(plan.python)}: ROCm {e(plan.rocm)} build from the "
              f"{e(plan.channel)} channel")
    con.print(f"  index: {e(plan.index_url)}" + "".join(f"\n  find-links: {e(fl)}" for fl in plan.find_links))
    for r in plan.requirements:
        con.print(f"  [green]+[/green] {e(r.pin())}")
    for k, v in plan.env.items():
        con.print(f"  [yellow]env[/yellow] {e(k)}={e(v)}")
    for w in plan.warnings:
        con.print(f"[bold yellow]! {e(w)}[/bold yellow]")
    con.print("[bold]Why[/bold]")
    for reason in plan.reasons:
        con.print(f"  - {e(reason)}")
    if plan.rejected:
        con.print("[bold]Rejected[/bold]")
        print_rejected(plan.rejected, con)


def print_rejected(rejected: list[Rejected], con: Console, limit: int = 6) -> None:
    """The rejected candidates, the first few in full (``--json`` has them all)."""
    from rich.markup import escape

    for rej in rejected[:limit]:
        con.print(f"  x {escape(rej.candidate)}: {escape(rej.reason)}")
    if len(rejected) > limit:
        con.print(f"  x ... and {len(rejected) - limit} older builds (all listed with --json)")


def confirm_replace(target: Target, request: InstallRequest, err: Console) -> None:
    """A CUDA or CPU torch is only replaced with --yes or an interactive yes; else exit 1 with the command."""
    build = target.torch_build
    if build not in (TorchBuild.CUDA, TorchBuild.CPU):
        return
    assert build is not None
    err.print(f"! {target.executable} holds a {build.upper()} build of torch ({target.torch_version}); "
              "installing replaces it with the ROCm build.", style="bold yellow", markup=False)
    if request.yes:
        return
    if sys.stdin.isatty() and request.confirm is not None:
        if request.confirm("Replace it?"):
            return
        raise OperationFailed("nothing changed: you declined to replace the installed torch")
    rerun = shlex.join(["rocmdoctor", *request.argv, "--yes"])
    raise OperationFailed(f"nothing changed: not replacing the {build.upper()} torch without confirmation; "
                          f"to replace it, run: {rerun}")


def _emit_json(doc: dict[str, object]) -> None:
    import json

    sys.stdout.write(json.dumps(doc, indent=2) + "\n")
    sys.stdout.flush()


def run(request: InstallRequest) -> int:
    """The whole command: returns 0, or raises BadInput (2) / OperationFailed (1) / KeyboardInterrupt (130)."""
    request.validate()
    session: Optional[PipSession] = None
    held: list[Snapshot] = []  # a snapshot taken early, until install() owns it
    try:
        if request.source is None:
            # The target interpreter starts first: it answers the probe, then (to install with pip) loads pip
            # while this process imports, reads the host, resolves and takes the snapshot.
            session = PipSession.take_early(request.python or default_python(),
                                            prewarm=request.installer == Installer.PIP and not request.dry_run)
        return _run(request, session, held)
    finally:
        for snap in held:
            snap.discard(background=True)
        if session is not None:
            session.close()


def _probe_and_capture(request: InstallRequest, session: PipSession, held: list[Snapshot]) -> tuple[Target, Host]:
    """This host and its target interpreter, read side by side; the rollback snapshot is taken while the host
    is still being read (unless a dry run, or a prompt that could keep the environment waiting, comes first)."""
    from concurrent.futures import ThreadPoolExecutor

    from rocmdoctor.install.snapshot import Snapshot

    def probe_and_snapshot() -> Target:
        found = session.target()
        if not request.dry_run and (found.has_pip or request.installer != Installer.PIP) and (
                request.yes or found.torch_build not in (TorchBuild.CUDA, TorchBuild.CPU)):
            held.append(Snapshot.take(found))
        return found

    with ThreadPoolExecutor(max_workers=2) as pool:  # both mostly wait on subprocesses
        probing = pool.submit(probe_and_snapshot)
        capturing = pool.submit(capture_local_host, session.python)
        target = probing.result()
        host = capturing.result()
    pv = request.python_version
    if pv and not request.dry_run and _series(pv) != _series(target.version):
        raise BadInput(f"--python-version {pv} differs from {target.executable} ({target.version}): "
                       "pick the interpreter with --python (or plan only, with --dry-run or --from)")
    host.python.version = target.version
    host.python.implementation = target.implementation
    host.python.executable = target.executable
    return target, host


def _plan(request: InstallRequest, host: Host, out: Console, err: Console) -> Plan:
    """Resolve and print the plan; a refusal is printed with its reasons and raised as exit 1."""
    from rocmdoctor import matrix as matrix_mod
    from rocmdoctor.install.resolve import Refused, ResolveOptions, resolve

    options = ResolveOptions(torch_spec=request.torch_spec, rocm=request.rocm, channel=request.channel,
                             companions=request.packages, python_version=request.python_version,
                             index_url=request.index_url, find_links=request.find_links)
    try:
        plan = resolve(host, matrix_mod.load(), options)
    except Refused as exc:
        if request.as_json:
            _emit_json(exc.to_dict())
        err.print("Refused: ", style="bold red", end="")
        err.print(str(exc), markup=False)
        print_rejected(exc.rejected, err)
        for alt in exc.alternatives:
            err.print(f"  -> {alt}", markup=False)
        raise OperationFailed("no PyTorch ROCm build fits this host (details above); nothing was changed") from None
    if request.as_json:
        _emit_json(plan.to_dict())
    render_plan(plan, out if not request.as_json else err)
    return plan


def _write_lock(request: InstallRequest, plan: Plan, target: Optional[Target], lock: str, err: Console) -> None:
    """``--lock``: resolve the full closure for the target's Python (or the plan's) and write the hash lock."""
    from rocmdoctor.install.hashlock import resolve_closure, write_lock
    from rocmdoctor.install.runner import install_env

    with tempfile.TemporaryDirectory(prefix="rocmdoctor-lock-") as work:
        cons = os.path.join(work, "constraints.txt")
        with open(cons, "w") as fh:
            fh.write(plan.constraints())
        env = install_env(plan, request.installer, cons, work)
        py = target.executable if target else sys.executable
        with err.status("resolving the full set of packages for the lock"):
            foreign = None if target and _series(target.version) == plan.python else plan.python
            closure = resolve_closure(plan, request.installer, py, foreign, work, env, cons)
        write_lock(plan, closure, lock)
    err.print(f"Wrote {lock} ({len(closure)} packages with sha256 hashes).")


def _run(request: InstallRequest, session: Optional[PipSession], held: list[Snapshot]) -> int:
    from rich.console import Console

    err = Console(stderr=True, highlight=False)
    out = Console(highlight=False) if not request.as_json else err
    target: Optional[Target] = None
    if request.source is not None:
        host = load_bundle_host(request.source)
        if not request.dry_run:
            err.print("--from: planning for the captured host only; nothing is installed here.")
        request = replace(request, dry_run=True)
    else:
        assert session is not None
        target, host = _probe_and_capture(request, session, held)
    plan = _plan(request, host, out, err)
    if request.lock:
        _write_lock(request, plan, target, request.lock, err)
    if request.dry_run:
        out.print("Dry run: nothing was changed.")
        return 0
    assert target is not None
    confirm_replace(target, request, err)
    if target.torch_build == TorchBuild.ROCM:
        err.print(f"Replacing the ROCm torch {target.torch_version} in {target.executable}.", markup=False)
    snapshot = held.pop() if held else None  # install() restores and discards it from here on
    return _install_and_report(request, plan, target, (session, snapshot), (out, err))


def _install_and_report(request: InstallRequest, plan: Plan, target: Target,
                        carried: tuple[Optional[PipSession], Optional[Snapshot]],
                        consoles: tuple[Console, Console]) -> int:
    """Install with a live status line, then say what happened (0, or OperationFailed / KeyboardInterrupt)."""
    from rocmdoctor.install.installer import install

    session, snapshot = carried
    out, err = consoles
    installer = request.installer
    with err.status(f"installing with {installer} into {target.executable}") as status:
        def on_line(line: str) -> None:
            from rich.markup import escape

            status.update(escape(f"[{installer}] {line[:100]}"))

        try:
            result = install(plan, target, installer, gpu_check=bool(plan.gpus), lock=request.lock,
                             on_line=on_line, session=session, snapshot=snapshot)
        except KeyboardInterrupt as exc:
            problems = getattr(exc, "restore_problems", [])
            for p in problems:
                err.print(f"  restore: {p}", markup=False)
            err.print("Interrupted: " + ("the environment could NOT be fully restored (see above)." if problems
                                         else "the environment was restored to what it was before."), style="bold red")
            raise
    for note in result.recovered:  # an earlier install was killed: say what was found and finished
        err.print("Recovered: ", style="bold yellow", end="")
        err.print(note, markup=False)
    if result.ok:
        out.print("Installed ", style="bold green", end="")
        out.print(f"{', '.join(r.pin() for r in plan.requirements)} into {target.executable} in {result.seconds:.1f}s; "
                  "verified: ROCm build, torch.version.hip set, no CUDA runtime"
                  + (", the GPU visible with its gfx in the wheel." if plan.gpus else "."), markup=False)
        if plan.env:
            exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in plan.env.items())
            out.print(f"Set these before running PyTorch: export {exports}", markup=False, style="bold")
        return 0
    err.print("Install failed:", style="bold red")
    for p in result.problems:
        err.print(f"  {p}", markup=False)
    for p in result.restore_problems:
        err.print(f"  restore: {p}", markup=False)
    if result.restore_problems:
        raise OperationFailed("install failed and the environment could NOT be fully restored (see above)")
    raise OperationFailed("install failed; the environment was restored exactly to what it was before")
