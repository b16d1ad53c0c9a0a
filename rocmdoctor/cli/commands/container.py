"""`rocmdoctor container dockerfile|apptainer|compose|run-args|ci|lint|test` — reproducible ROCm containers.

Thin wiring: each command builds its typed request (:mod:`rocmdoctor.container.request`) and calls into
:mod:`rocmdoctor.container`: the spec lives in :mod:`~rocmdoctor.container.spec`, each output format in its own
renderer, the image test in :mod:`~rocmdoctor.container.test_image`. Heavy imports happen inside the commands.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

import typer

from rocmdoctor.cli.options import OutputFormat, format_option, wants_json

if TYPE_CHECKING:
    from rocmdoctor.model import Host

container_app = typer.Typer(
    name="container",
    help="Generate pinned, reproducible ROCm container specs from the install plan, lint and test them.",
    no_args_is_help=True,
)

_PLAN_HELP = "Plan JSON from `rocmdoctor install torch --json` (instead of resolving here)."
_LOCK_HELP = "Hash lock from `rocmdoctor install torch --lock` (sha256 of every wheel)."
_NO_HASHES_HELP = ("No hash lock (no index needed): versions pinned, not verified; the files say so. "
                   "Prefer --index-url MIRROR or --plan/--lock made where the index is reachable.")


# Typer option declarations shared by the spec commands (dockerfile, apptainer).
def _opt_source() -> Any:
    return typer.Option(None, "--from", metavar="BUNDLE", help="Plan for this captured host (bundle dir/.tar.gz).")


def read_host(source: Optional[str]) -> Host:
    """``--from`` as `check --from` reads it (a path, or a bundled fixture's name); None: this machine, captured
    quickly (no pip listing, torch probe or docker: the resolver reads the interpreter itself)."""
    import sys

    from rocmdoctor.install.host import capture_local_host, load_bundle_host

    return load_bundle_host(source) if source is not None else capture_local_host(sys.executable)


@container_app.command("dockerfile")
def dockerfile_cmd(
    source: Optional[str] = _opt_source(),
    torch: Optional[str] = typer.Option(None, "--torch", metavar="SPEC", help="torch version spec: 2.5, ==2.5.1"),
    rocm: Optional[str] = typer.Option(None, "--rocm", metavar="X.Y", help="ROCm series of the wheels."),
    python: Optional[str] = typer.Option(None, "--python", metavar="X.Y", help="Python in the image."),
    base: Optional[str] = typer.Option(None, "--base", metavar="IMAGE:TAG[@sha256:D]", help="Base image."),
    with_: list[str] = typer.Option([], "--with", metavar="PKG==VER", help="Extra locked packages."),
    plan_file: Optional[str] = typer.Option(None, "--plan", metavar="FILE", help=_PLAN_HELP),
    lock: Optional[str] = typer.Option(None, "--lock", metavar="FILE", help=_LOCK_HELP),
    apt_pin: list[str] = typer.Option([], "--apt-pin", metavar="PKG=VER", help="Pin an OS package version."),
    os_package: list[str] = typer.Option([], "--os-package", metavar="PKG", help="Extra OS package."),
    app_dir: Optional[str] = typer.Option(None, "--app", metavar="DIR", help="Context dir copied to /app last."),
    user: str = typer.Option("rocm", "--user", help="Non-root user created in the image."),
    uid: int = typer.Option(1000, "--uid", help="Its uid."),
    sde: int = typer.Option(0, "--source-date-epoch", envvar="SOURCE_DATE_EPOCH", help="Timestamps (s)."),
    no_healthcheck: bool = typer.Option(False, "--no-healthcheck", help="No rocmdoctor in the image."),
    index_url: Optional[str] = typer.Option(None, "--index-url", help="Mirror of the wheel index."),
    no_hashes: bool = typer.Option(False, "--no-hashes", help=_NO_HASHES_HELP),
    output: Optional[str] = typer.Option(None, "-o", "--output", metavar="PATH", help="Dockerfile path or dir."),
) -> None:
    """A pinned Dockerfile (+ requirements.lock, rocmdoctor.lock beside it)."""
    from rocmdoctor.container.inputs import spec_from_options, write_outputs
    from rocmdoctor.container.render_docker import render_context
    from rocmdoctor.container.request import ContainerOptions, PlanRequest

    plan = PlanRequest(plan_file=plan_file, lock_file=lock, source=source, torch=torch, rocm=rocm, python=python,
                       with_=tuple(with_), index_url=index_url, self_install=not no_healthcheck, no_hashes=no_hashes)
    opts = ContainerOptions(plan=plan, base=base, apt_pin=tuple(apt_pin), os_package=tuple(os_package),
                            app_dir=app_dir, user=user, uid=uid, source_date_epoch=sde)
    write_outputs(render_context(spec_from_options(opts, read_host)), "Dockerfile", output)


@container_app.command("apptainer")
def apptainer_cmd(
    source: Optional[str] = _opt_source(),
    torch: Optional[str] = typer.Option(None, "--torch", metavar="SPEC"),
    rocm: Optional[str] = typer.Option(None, "--rocm", metavar="X.Y"),
    python: Optional[str] = typer.Option(None, "--python", metavar="X.Y"),
    base: Optional[str] = typer.Option(None, "--base", metavar="IMAGE:TAG[@sha256:D]"),
    with_: list[str] = typer.Option([], "--with", metavar="PKG==VER"),
    plan_file: Optional[str] = typer.Option(None, "--plan", metavar="FILE", help=_PLAN_HELP),
    lock: Optional[str] = typer.Option(None, "--lock", metavar="FILE", help=_LOCK_HELP),
    apt_pin: list[str] = typer.Option([], "--apt-pin", metavar="PKG=VER"),
    os_package: list[str] = typer.Option([], "--os-package", metavar="PKG"),
    app_dir: Optional[str] = typer.Option(None, "--app", metavar="DIR"),
    sde: int = typer.Option(0, "--source-date-epoch", envvar="SOURCE_DATE_EPOCH"),
    no_healthcheck: bool = typer.Option(False, "--no-healthcheck", help="No rocmdoctor / %test."),
    index_url: Optional[str] = typer.Option(None, "--index-url"),
    no_hashes: bool = typer.Option(False, "--no-hashes", help=_NO_HASHES_HELP),
    output: Optional[str] = typer.Option(None, "-o", "--output", metavar="PATH", help="rocm.def path or dir."),
) -> None:
    """An Apptainer definition (+ its lock files); run with `apptainer run --rocm`."""
    from rocmdoctor.container.inputs import spec_from_options, write_outputs
    from rocmdoctor.container.render_apptainer import render_apptainer
    from rocmdoctor.container.request import ContainerOptions, PlanRequest

    plan = PlanRequest(plan_file=plan_file, lock_file=lock, source=source, torch=torch, rocm=rocm, python=python,
                       with_=tuple(with_), index_url=index_url, self_install=not no_healthcheck, no_hashes=no_hashes)
    opts = ContainerOptions(plan=plan, base=base, apt_pin=tuple(apt_pin), os_package=tuple(os_package),
                            app_dir=app_dir, source_date_epoch=sde)
    spec = spec_from_options(opts, read_host)
    files = {"rocm.def": render_apptainer(spec), **{lk.filename: lk.text() for lk in spec.locks}}
    write_outputs(files, "rocm.def", output)


@container_app.command("compose")
def compose_cmd(
    image: str = typer.Option("rocm-app:dev", "--image", help="Image name for the service."),
    source: Optional[str] = _opt_source(),
    render_gid: Optional[int] = typer.Option(None, "--render-gid", help="Host render gid (default: read)."),
    access: str = typer.Option("devices", "--access", help="devices | runtime (amd-ctk) | cdi"),
    gpus: str = typer.Option("all", "--gpus", help="AMD_VISIBLE_DEVICES / CDI selector."),
    shm_size: str = typer.Option("16g", "--shm-size"),
    service: str = typer.Option("rocm", "--service"),
    output: Optional[str] = typer.Option(None, "-o", "--output", metavar="PATH"),
) -> None:
    """A docker-compose service with devices, group_add, ipc, shm_size and security_opt."""
    from rocmdoctor.container.inputs import render_options, write_outputs
    from rocmdoctor.container.render_compose import render_compose
    from rocmdoctor.container.render_runargs import RunOptions

    gid, notes = render_options(source, render_gid, read_host)
    opts = RunOptions(access=access, render_gid=gid, shm_size=shm_size, gpus=gpus, notes=notes)
    write_outputs({"compose.yaml": render_compose(opts, image, service)}, "compose.yaml", output)


@container_app.command("run-args")
def run_args_cmd(
    image: str = typer.Argument(..., help="Image to run."),
    command: Optional[list[str]] = typer.Argument(None, help="Command to run in it."),
    source: Optional[str] = _opt_source(),
    render_gid: Optional[int] = typer.Option(None, "--render-gid", help="Host render gid (default: read)."),
    engine: str = typer.Option("docker", "--engine", help="docker | podman"),
    access: str = typer.Option("devices", "--access", help="devices | runtime (amd-ctk) | cdi"),
    gpus: str = typer.Option("all", "--gpus"),
    shm_size: str = typer.Option("16g", "--shm-size"),
    apptainer: bool = typer.Option(False, "--apptainer", help="Print the apptainer command instead."),
    fmt: OutputFormat = format_option(),
    as_json: bool = typer.Option(False, "--json", help="All variants as JSON (rocmdoctor-run-args/1)."),
) -> None:
    """The docker/podman (or apptainer) command line with the right GPU flags for this host."""
    as_json = wants_json(fmt, as_json)
    import json
    import shlex

    from rocmdoctor.container.inputs import render_options
    from rocmdoctor.container.render_runargs import RunOptions, apptainer_argv, render_json, render_text

    cmd = tuple(command or ())
    if apptainer and not as_json:
        typer.echo(shlex.join(apptainer_argv(image, cmd)))
        return
    gid, notes = render_options(source, render_gid, read_host)
    opts = RunOptions(engine=engine, access=access, render_gid=gid, shm_size=shm_size, gpus=gpus, notes=notes)
    if as_json:
        typer.echo(json.dumps(render_json(opts, image, cmd), indent=2))
    else:
        typer.echo(render_text(opts, image, cmd), nl=False)


@container_app.command("ci")
def ci_cmd(
    github: bool = typer.Option(False, "--github", help="GitHub Actions workflow."),
    gitlab: bool = typer.Option(False, "--gitlab", help="GitLab CI job."),
    image: str = typer.Option("rocm-app", "--image", help="Image name (tagged with the commit sha)."),
    runner_label: list[str] = typer.Option([], "--runner-label", help="Runner label(s) of the AMD runner."),
    dockerfile: str = typer.Option("Dockerfile", "--dockerfile"),
    output: Optional[str] = typer.Option(None, "-o", "--output", metavar="PATH"),
) -> None:
    """A CI job for a self-hosted AMD runner: build the image, run check and the smoke test in it."""
    from rocmdoctor.container.inputs import write_outputs
    from rocmdoctor.container.render_ci import render_github, render_gitlab
    from rocmdoctor.errors import BadInput

    if github == gitlab:
        raise BadInput("choose one of --github or --gitlab")
    if dockerfile.startswith("-") or any(c.isspace() or c in "\"'$`\\" for c in dockerfile):
        raise BadInput(f"--dockerfile {dockerfile!r}: a plain relative path")
    if github:
        labels = tuple(runner_label) or ("self-hosted", "linux", "amd-gpu")
        text, name = render_github(image, labels, dockerfile), "rocm-smoke.yml"
    else:
        text, name = render_gitlab(image, tuple(runner_label) or ("amd-gpu",), dockerfile), ".gitlab-ci.yml"
    write_outputs({name: text}, name, output)


@container_app.command("lint")
def lint_cmd(
    path: str = typer.Argument(..., help="Dockerfile to lint."),
    fmt: OutputFormat = format_option(),
    as_json: bool = typer.Option(False, "--json",
                                 help="JSON on stdout (rocmdoctor-lint/1: hadolint's list as 'issues')."),
) -> None:
    """Our hadolint subset (DL3006/3007/3008/3013/3015/3042/4006); exit 1 when anything is found."""
    as_json = wants_json(fmt, as_json)
    import json

    from rocmdoctor.container.inputs import read
    from rocmdoctor.container.lint import lint, parse, render_text
    from rocmdoctor.errors import BadInput

    text = read(path, "Dockerfile")
    # "no issues" for a binary file or an empty one would be a false all-clear: docker cannot build either.
    if "\x00" in text or not any(ins.keyword == "FROM" for ins in parse(text)):
        raise BadInput(f"{path}: not a Dockerfile (no FROM instruction)")
    issues = lint(text)
    if as_json:
        typer.echo(json.dumps({"schema": "rocmdoctor-lint/1",
                               "issues": [{"file": path, **i.to_dict()} for i in issues]}, indent=2))
    else:
        typer.echo(render_text(path, issues) or f"{path}: no issues\n", nl=False)
    raise typer.Exit(1 if issues else 0)


@container_app.command("test")
def test_cmd(
    image: str = typer.Argument(..., help="Local image to test (never pulled)."),
    render_gid: Optional[int] = typer.Option(None, "--render-gid", help="Host render gid (default: read)."),
    access: str = typer.Option("devices", "--access", help="devices | runtime (amd-ctk) | cdi"),
    timeout: float = typer.Option(300.0, "--timeout", help="Seconds per command inside the image."),
    no_smoke: bool = typer.Option(False, "--no-smoke", help="Only `rocmdoctor check` inside."),
    fmt: OutputFormat = format_option(),
    as_json: bool = typer.Option(False, "--json", help="JSON report (rocmdoctor-report/1) on stdout."),
    verbose: bool = typer.Option(False, "-v", "--verbose"),
) -> None:
    """Run the image with the generated flags; report `rocmdoctor check` and `smoke` from inside it."""
    as_json = wants_json(fmt, as_json)
    from rocmdoctor.container.inputs import render_options
    from rocmdoctor.container.render_runargs import RunOptions
    from rocmdoctor.container.test_image import test_image
    from rocmdoctor.errors import BadInput
    from rocmdoctor.report.render import exit_code, render_terminal, to_json

    if image.startswith("-"):
        raise BadInput(f"image {image!r}: not an image name")
    from rocmdoctor.cli.options import seconds
    from rocmdoctor.container.render_runargs import validate

    seconds("--timeout", timeout)
    gid, notes = render_options(None, render_gid, read_host)
    opts = RunOptions(access=access, render_gid=gid, notes=notes)
    validate(opts)  # bad options are exit 2 here, not a failed finding after talking to the daemon
    findings, runs = test_image(image, opts, timeout=timeout, smoke=not no_smoke)
    if as_json:
        typer.echo(to_json(None, findings, image=image, runs=[
            {"argv": list(r.argv), "exit": r.exit_code} for r in runs]))
    else:
        for note in notes:
            typer.echo(f"note: {note}", err=True)
        render_terminal(None, findings, verbose=verbose, header=f"rocmdoctor container test {image}")
    raise typer.Exit(exit_code(findings))


def register(app: typer.Typer) -> None:
    """Add ``rocmdoctor container ...`` to the root app."""
    app.add_typer(container_app, name="container")
