"""The flow behind `rocmdoctor install torch`: read the host, resolve, confirm, install, verify, or restore.

Resolution lives in :mod:`rocmdoctor.install.resolve`, installing/verifying/restoring/locking in
:mod:`rocmdoctor.install.installer`; this module strings them together and prints. Human output on stdout (the plan,
the result); with ``--json`` stdout carries only the plan JSON and everything else goes to stderr.
``--from BUNDLE`` plans (and locks) for a captured host and installs nothing. Exit codes: 0 installed (or
planned), 1 refused / failed (environment restored), 2 bad input, 130 interrupted (environment restored).
"""

from __future__ import annotations

import os
import shlex
import sys
import tempfile
from typing import TYPE_CHECKING, Optional

import typer

if TYPE_CHECKING:
    from rich.console import Console

    from rocmdoctor.install.installer import Snapshot, Target
    from rocmdoctor.install.plan import Plan, Rejected
    from rocmdoctor.install.session import PipSession
    from rocmdoctor.model import Host


INSTALLERS = ("pip", "uv")


def _series(version: str) -> str:
    return ".".join(version.strip().split(".")[:2])


from rocmdoctor.install.session import default_python  # noqa: E402  (re-exported: its home is light)


def load_bundle_host(path: str) -> Host:
    """``--from``: the host described by a capture bundle."""
    from rocmdoctor.errors import BadInput

    try:
        from rocmdoctor.bundle import load_host
    except ImportError as exc:
        raise BadInput("reading capture bundles (rocmdoctor.bundle) is not available in this build") from exc
    from rocmdoctor.cli.check_flow import resolve_source

    # resolve_source refuses an empty path (never the current directory by accident) and, like
    # `check --from`, accepts a bundled fixture's name (NAME or fixtures/NAME).
    return load_host(resolve_source(path))


def capture_local_host(python: str, timeout: float = 10.0) -> Host:
    """This machine, read by the capture module into a temporary bundle. The pip listing, the torch probe and
    docker are skipped: :func:`rocmdoctor.install.installer.probe` reads the interpreter, and docker is beside
    the point."""
    from rocmdoctor.errors import BadInput

    try:
        from rocmdoctor.capture import QUICK_SKIP, capture_to_dir
    except ImportError as exc:
        raise BadInput("reading this host (rocmdoctor.capture) is not available in this build") from exc
    with tempfile.TemporaryDirectory(prefix="rocmdoctor-host-") as tmp:
        capture_to_dir(tmp, python, redact=False, timeout=timeout, root=None,
                       skip=(*QUICK_SKIP, "torch-probe", "docker-info"))
        return load_bundle_host(tmp)



def _check_lock_path(lock: str) -> None:
    """Exit 2 before minutes of resolving when --lock cannot be written (a directory, a missing parent, /proc)."""
    from pathlib import Path

    from rocmdoctor.cli.options import writable_file
    from rocmdoctor.errors import BadInput

    path = Path(lock)
    if lock.startswith("-") or path.is_dir():
        raise BadInput(f"--lock {lock!r}: expected a file path")
    writable_file("--lock", path)

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


def confirm_replace(target: Target, yes: bool, argv: list[str], err: Console) -> None:
    """A CUDA or CPU torch is only replaced with --yes or an interactive yes; else exit 1 with the command."""
    from rocmdoctor.errors import OperationFailed

    build = target.torch_build
    if build not in ("cuda", "cpu"):
        return
    err.print(f"! {target.executable} holds a {build.upper()} build of torch ({target.torch_version}); "
              "installing replaces it with the ROCm build.", style="bold yellow", markup=False)
    if yes:
        return
    if sys.stdin.isatty():
        if typer.confirm("Replace it?", default=False, err=True):
            return
        raise OperationFailed("nothing changed: you declined to replace the installed torch")
    rerun = shlex.join(["rocmdoctor", *argv, "--yes"])
    raise OperationFailed(f"nothing changed: not replacing the {build.upper()} torch without confirmation; "
                          f"to replace it, run: {rerun}")


def run(
    packages: list[str], python: Optional[str], source: Optional[str], python_version: Optional[str],
    torch_spec: Optional[str], rocm: Optional[str], channel: str, installer: str, index_url: Optional[str],
    find_links: Optional[str], dry_run: bool, lock: Optional[str], as_json: bool, yes: bool, argv: list[str],
) -> int:
    """The whole command: returns 0, or raises BadInput (2) / OperationFailed (1) / KeyboardInterrupt (130)."""
    from rocmdoctor.errors import BadInput

    if installer not in INSTALLERS:
        raise BadInput(f"--installer must be pip or uv, not {installer!r}")
    for opt, value in (("--index-url", index_url), ("--find-links", find_links)):
        if value is not None and value.startswith("-"):
            raise BadInput(f"{opt} {value!r} is not a URL")
    # An empty value (an unset shell variable: --from "$B") must never fall back to this host: with --from
    # that would turn a plan for another machine into a real install here.
    for opt, value in (("--from", source), ("--python", python), ("--lock", lock)):
        if value is not None and not value.strip():
            raise BadInput(f"{opt}: empty value")
    if lock:
        _check_lock_path(lock)
    from rocmdoctor.install.session import PipSession

    session: Optional[PipSession] = None
    held: list[Snapshot] = []  # a snapshot taken early, until install() owns it
    try:
        if source is None:
            # The target interpreter starts first: it answers the probe, then (to install with pip) loads pip
            # while this process imports, reads the host, resolves and takes the snapshot.
            session = PipSession.take_early(python or default_python(), prewarm=installer == "pip" and not dry_run)
        return _run(session, held, packages, source, python_version, torch_spec, rocm, channel, installer,
                    index_url, find_links, dry_run, lock, as_json, yes, argv)
    finally:
        for snap in held:
            snap.discard(background=True)
        if session is not None:
            session.close()


def _run(
    session: Optional[PipSession], held: list[Snapshot], packages: list[str], source: Optional[str],
    python_version: Optional[str], torch_spec: Optional[str], rocm: Optional[str], channel: str, installer: str,
    index_url: Optional[str], find_links: Optional[str], dry_run: bool, lock: Optional[str], as_json: bool,
    yes: bool, argv: list[str],
) -> int:
    import json

    from rich.console import Console

    from rocmdoctor import matrix as matrix_mod
    from rocmdoctor.errors import BadInput, OperationFailed
    from rocmdoctor.install.installer import Snapshot, install, resolve_closure, write_lock
    from rocmdoctor.install.resolve import Refused, ResolveOptions, resolve

    err = Console(stderr=True, highlight=False)
    out = Console(highlight=False) if not as_json else err
    target: Optional[Target] = None
    if source is not None:
        host = load_bundle_host(source)
        if not dry_run:
            err.print("--from: planning for the captured host only; nothing is installed here.")
        dry_run = True
    else:
        from concurrent.futures import ThreadPoolExecutor

        assert session is not None

        def probe_and_snapshot() -> Target:
            """The probe's answer, and the rollback snapshot while the host is still being read (unless a
            dry run, or a prompt that could keep the environment waiting for minutes, comes first)."""
            assert session is not None
            found = session.target()
            if not dry_run and (found.has_pip or installer != "pip") and (
                    yes or found.torch_build not in ("cuda", "cpu")):
                held.append(Snapshot.take(found))
            return found

        with ThreadPoolExecutor(max_workers=2) as pool:  # both mostly wait on subprocesses
            probing = pool.submit(probe_and_snapshot)
            capturing = pool.submit(capture_local_host, session.python)
            target = probing.result()
            host = capturing.result()
        if python_version and not dry_run and _series(python_version) != _series(target.version):
            raise BadInput(f"--python-version {python_version} differs from {target.executable} ({target.version}): "
                           "pick the interpreter with --python (or plan only, with --dry-run or --from)")
        host.python.version = target.version
        host.python.implementation = target.implementation
        host.python.executable = target.executable
    options = ResolveOptions(torch_spec=torch_spec, rocm=rocm, channel=channel, companions=tuple(packages),
                             python_version=python_version, index_url=index_url, find_links=find_links)
    try:
        plan = resolve(host, matrix_mod.load(), options)
    except Refused as exc:
        if as_json:
            typer.echo(json.dumps(exc.to_dict(), indent=2))
        err.print("Refused: ", style="bold red", end="")
        err.print(str(exc), markup=False)
        print_rejected(exc.rejected, err)
        for alt in exc.alternatives:
            err.print(f"  -> {alt}", markup=False)
        raise OperationFailed("no PyTorch ROCm build fits this host (details above); nothing was changed") from None
    if as_json:
        typer.echo(json.dumps(plan.to_dict(), indent=2))
    render_plan(plan, out if not as_json else err)
    if lock:
        with tempfile.TemporaryDirectory(prefix="rocmdoctor-lock-") as work:
            cons = os.path.join(work, "constraints.txt")
            with open(cons, "w") as fh:
                fh.write(plan.constraints())
            from rocmdoctor.install.installer import install_env

            env = install_env(plan, installer, cons, work)
            py = target.executable if target else sys.executable
            with err.status("resolving the full set of packages for the lock"):
                foreign = None if target and _series(target.version) == plan.python else plan.python
                closure = resolve_closure(plan, installer, py, foreign, work, env, cons)
            write_lock(plan, closure, lock)
        err.print(f"Wrote {lock} ({len(closure)} packages with sha256 hashes).")
    if dry_run:
        out.print("Dry run: nothing was changed.")
        return 0
    assert target is not None
    confirm_replace(target, yes, argv, err)
    if target.torch_build == "rocm":
        err.print(f"Replacing the ROCm torch {target.torch_version} in {target.executable}.", markup=False)
    with err.status(f"installing with {installer} into {target.executable}") as status:
        def on_line(line: str) -> None:
            from rich.markup import escape

            status.update(escape(f"[{installer}] {line[:100]}"))

        snapshot = held.pop() if held else None  # install() restores and discards it from here on
        try:
            result = install(plan, target, installer, gpu_check=bool(plan.gpus), lock=lock, on_line=on_line,
                             session=session, snapshot=snapshot)
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
