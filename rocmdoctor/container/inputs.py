"""Inputs of the container commands: the plan (given, or resolved here), its hash lock, and writing outputs.

Kept out of :mod:`rocmdoctor.cli.commands.container` so the typer layer stays thin and this stays testable.
The resolver is :mod:`rocmdoctor.install.resolve` itself (pure); the host it resolves for comes from the
caller's :data:`~rocmdoctor.container.request.HostReader`. Progress notes go to stderr.
"""

from __future__ import annotations

import os
import sys
from typing import Optional

from packaging.utils import canonicalize_name

from rocmdoctor.container.request import ContainerOptions, HostReader, PlanRequest
from rocmdoctor.container.spec import ContainerSpec, SpecOptions
from rocmdoctor.install.plan import Plan


def _echo(message: str, err: bool = False, nl: bool = True) -> None:
    stream = sys.stderr if err else sys.stdout
    stream.write(message + ("\n" if nl else ""))
    stream.flush()


MAX_INPUT_BYTES = 16 << 20  # plans, locks and Dockerfiles are kilobytes


def read(path: str, what: str) -> str:
    from rocmdoctor.errors import BadInput

    if path.startswith("-"):
        raise BadInput(f"{what} {path!r}: not a file name")
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_INPUT_BYTES + 1)  # bounded: /dev/zero or a wrong huge file must not eat memory
    except OSError as exc:
        raise BadInput(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    if len(data) > MAX_INPUT_BYTES:
        raise BadInput(f"{what} {path}: larger than {MAX_INPUT_BYTES >> 20} MiB; refusing to read it")
    return data.decode("utf-8", "replace")


def split_with(with_: list[str]) -> tuple[list[str], list[tuple[str, str]]]:
    """--with values: torch companions by name, everything else NAME==VERSION."""
    from rocmdoctor.errors import BadInput

    companions, pins = [], []
    for w in with_:
        name, sep, version = w.partition("==")
        if not sep:
            if name in ("torchvision", "torchaudio"):
                companions.append(name)
                continue
            raise BadInput(f"--with {w!r}: pin it as NAME==VERSION (every wheel in the image is locked)")
        if not name or not version or name.startswith("-"):
            raise BadInput(f"--with {w!r}: expected NAME==VERSION")
        if name in ("torchvision", "torchaudio"):
            companions.append(name)
        else:
            pins.append((name, version))
    return companions, pins


def load_plan(req: PlanRequest, read_host: HostReader) -> Plan:
    """The locked Plan: from --plan/--lock files, or resolved here for --from BUNDLE / this host.

    ``req.no_hashes``: version pins only, no hash lock (and so no index needed after the plan).
    """
    import json

    from rocmdoctor import __version__
    from rocmdoctor.container.spec import plan_from_json, plan_from_lock
    from rocmdoctor.errors import BadInput
    from rocmdoctor.install.plan import Requirement

    if req.no_hashes and req.lock_file:
        raise BadInput("--no-hashes and --lock contradict each other: the lock's hashes are the point of it")
    lock_text = read(req.lock_file, "--lock") if req.lock_file else None
    companions, pins = split_with(list(req.with_))
    if req.self_install and not any(canonicalize_name(n) == "rocmdoctor" for n, _ in pins):
        pins.append(("rocmdoctor", __version__))
    if req.plan_file:
        try:
            data = json.loads(read(req.plan_file, "--plan"))
        except ValueError as exc:
            raise BadInput(f"--plan {req.plan_file}: not JSON ({exc})") from None
        plan = plan_from_json(data, None)
    elif lock_text is not None and not (req.source or req.torch):
        if not req.python or not req.rocm:
            raise BadInput("--lock without --plan needs --python X.Y and --rocm X.Y (the lock does not say them)")
        plan = plan_from_lock(lock_text, req.python, req.rocm)
    else:
        plan = resolve_here(req, companions, read_host)
    have = {canonicalize_name(r.name) for r in plan.requirements}
    for name, version in pins:
        if canonicalize_name(name) not in have:
            plan.requirements.append(Requirement(name=name, version=version))
    if req.no_hashes:
        return plan
    if lock_text is None and any(not r.sha256 for r in plan.requirements) and not req.plan_file:
        lock_text = lock_here(plan, req.index_url)
    if lock_text is not None:
        plan = plan_from_json({**plan.to_dict(), "hashes": {r.name: r.sha256 for r in plan.requirements if r.sha256}},
                              lock_text)
    return plan


def resolve_here(req: PlanRequest, companions: list[str], read_host: HostReader) -> Plan:
    """Resolve the plan as ``install torch`` would, for the --from bundle's host or this one."""
    from rocmdoctor import matrix as matrix_mod
    from rocmdoctor.errors import BadInput
    from rocmdoctor.install.resolve import ResolveOptions, resolve

    source, python = req.source, req.python
    host = read_host(source)
    if not python and host.python.version:
        python = ".".join(host.python.version.split(".")[:2])
    elif not python and source is None:  # this host: the interpreter running rocmdoctor is its Python
        python = f"{sys.version_info[0]}.{sys.version_info[1]}"
    if not python:  # the resolver's own hint names install's --python-version
        raise BadInput(f"the bundle {source} does not say which Python the image is for; pass --python X.Y")
    if python and not source:
        _echo(f"Python {python} in the image (this host's; --python X.Y for another)", err=True)
    options = ResolveOptions(torch_spec=req.torch, rocm=req.rocm, companions=tuple(companions),
                             python_version=python, index_url=req.index_url)
    return resolve(host, matrix_mod.load(), options)


def lock_here(plan: Plan, index_url: Optional[str] = None) -> str:
    """Resolve the full closure against the plan's index and write the hash lock (as `install --lock` does).

    When that fails (no index reachable, a mirror without the wheels), the error names the three ways
    forward instead of only pip's reason: a mirror, a lock made elsewhere, or an explicit --no-hashes.
    """
    import tempfile

    from rocmdoctor.errors import OperationFailed
    from rocmdoctor.install.hashlock import resolve_closure, write_lock

    try:
        with tempfile.TemporaryDirectory(prefix="rocmdoctor-container-lock-") as work:
            cons = os.path.join(work, "constraints.txt")
            with open(cons, "w") as fh:
                fh.write(plan.constraints())
            _echo(f"resolving the full set of wheels for the hash lock from {plan.index_url} ...", err=True)
            closure = resolve_closure(plan, "pip", sys.executable, plan.python, work, dict(os.environ), cons)
            return write_lock(plan, closure, os.path.join(work, "requirements.lock"))
    except (OperationFailed, OSError) as exc:
        reason = str(exc).removeprefix("could not resolve the lock with pip: ")
        mirror = "" if index_url else f" (a mirror of {plan.index_url})"
        raise OperationFailed(
            f"could not hash-lock the image's wheels: {reason}. Three ways forward:\n"
            f"  1. --index-url URL{mirror} that this machine reaches;\n"
            "  2. --plan plan.json --lock requirements.lock, made where the index is reachable with "
            "`rocmdoctor install torch --dry-run --json --lock requirements.lock > plan.json` "
            "(add --from BUNDLE to plan for this host);\n"
            "  3. --no-hashes: a version-pinned requirements file that says in it that it is not hash-locked."
        ) from None


def apt_pins(values: list[str]) -> dict[str, str]:
    from rocmdoctor.errors import BadInput

    pins = {}
    for v in values:
        name, sep, version = v.partition("=")
        if not sep or not name or not version:
            raise BadInput(f"--apt-pin {v!r}: expected NAME=VERSION")
        pins[name] = version
    return pins


def write_outputs(files: dict[str, str], main_name: str, output: Optional[str]) -> None:
    """Print the main file (no -o), or write every file: -o is the main file's path or a directory."""
    from rocmdoctor.errors import BadInput

    if output is None:
        _echo(files[main_name], nl=False)
        others = [n for n in files if n != main_name]
        if others:
            _echo(f"note: {', '.join(others)} not written; use -o DIR to write the whole build context",
                       err=True)
        return
    if output.startswith("-"):
        raise BadInput(f"-o {output!r}: not a path")
    if os.path.isdir(output) or output.endswith("/"):
        directory, main_path = output, os.path.join(output, main_name)
    else:
        directory, main_path = os.path.dirname(output) or ".", output
    try:
        os.makedirs(directory, exist_ok=True)
        for name, text in files.items():
            path = main_path if name == main_name else os.path.join(directory, name)
            from rocmdoctor import atomic

            atomic.write_text(path, text)
    except OSError as exc:
        raise BadInput(f"cannot write to {output}: {exc.strerror or exc}") from None
    _echo(f"wrote {main_path} and {', '.join(n for n in files if n != main_name) or 'nothing else'}", err=True)


def spec_from_options(opts: ContainerOptions, read_host: HostReader) -> ContainerSpec:
    """The spec for ``container dockerfile|apptainer``: the plan (loaded or resolved), then the image around it."""
    from rocmdoctor.container.spec import build_spec, parse_image

    if opts.base:
        parse_image(opts.base)  # refuse latest/untagged before any resolving work
    plan = load_plan(opts.plan, read_host)
    return build_spec(plan, SpecOptions(
        base=opts.base, apt_pins=apt_pins(list(opts.apt_pin)), extra_os_packages=tuple(opts.os_package),
        app_dir=opts.app_dir, user=opts.user, uid=opts.uid, source_date_epoch=opts.source_date_epoch,
        healthcheck=opts.plan.self_install, hashed=not opts.plan.no_hashes))


def render_options(source: Optional[str], render_gid: Optional[int],
                   read_host: HostReader) -> tuple[Optional[int], tuple[str, ...]]:
    """The host's render gid: --render-gid, else the bundle's, else this machine's (with a note when none)."""
    from rocmdoctor.container.render_runargs import render_gid_from_host, render_gid_live

    if render_gid is not None:
        return render_gid, ()
    if source is not None:
        gid, why = render_gid_from_host(read_host(source))
    else:
        gid, why = render_gid_live()
    if gid is None:
        return None, (f"no --group-add for render: {why}; pass --render-gid N on the GPU host",)
    return gid, ()
