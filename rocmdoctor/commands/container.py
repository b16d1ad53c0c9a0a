"""`rocmdoctor container dockerfile|apptainer|compose|run-args|ci|lint|test` — reproducible ROCm containers.

Thin wiring: the spec lives in :mod:`rocmdoctor.container.spec`, each output format in its own renderer,
the image test in :mod:`rocmdoctor.container.test_image`. Heavy imports happen inside the commands.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Optional

import typer

container_app = typer.Typer(
    name="container",
    help="Generate pinned, reproducible ROCm container specs from the install plan, lint and test them.",
    no_args_is_help=True,
)

_PLAN_HELP = "Plan JSON from `rocmdoctor install torch --json` (instead of resolving here)."
_LOCK_HELP = "Hash lock from `rocmdoctor install torch --lock` (sha256 of every wheel)."


def _read(path: str, what: str) -> str:
    from rocmdoctor.errors import BadInput

    if path.startswith("-"):
        raise BadInput(f"{what} {path!r}: not a file name")
    try:
        with open(path, "rb") as fh:
            return fh.read().decode("utf-8", "replace")
    except OSError as exc:
        raise BadInput(f"cannot read {what} {path}: {exc.strerror or exc}") from None


def _split_with(with_: list[str]) -> tuple[list[str], list[tuple[str, str]]]:
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


def load_plan(plan_file: Optional[str], lock_file: Optional[str], source: Optional[str], torch: Optional[str],
              rocm: Optional[str], python: Optional[str], with_: list[str], index_url: Optional[str],
              self_install: bool) -> Any:
    """The locked Plan: from --plan/--lock files, or resolved here for --from BUNDLE / this host."""
    import json

    from rocmdoctor import __version__
    from rocmdoctor.container.spec import plan_from_json, plan_from_lock
    from rocmdoctor.errors import BadInput
    from rocmdoctor.plan import Requirement

    lock_text = _read(lock_file, "--lock") if lock_file else None
    companions, pins = _split_with(with_)
    if self_install and not any(n.lower() == "rocmdoctor" for n, _ in pins):
        pins.append(("rocmdoctor", __version__))
    if plan_file:
        try:
            data = json.loads(_read(plan_file, "--plan"))
        except ValueError as exc:
            raise BadInput(f"--plan {plan_file}: not JSON ({exc})") from None
        plan = plan_from_json(data, None)
    elif lock_text is not None and not (source or torch):
        if not python or not rocm:
            raise BadInput("--lock without --plan needs --python X.Y and --rocm X.Y (the lock does not say them)")
        plan = plan_from_lock(lock_text, python, rocm)
    else:
        plan = _resolve_here(source, torch, rocm, python, companions, index_url)
    have = {r.name.lower().replace("_", "-") for r in plan.requirements}
    for name, version in pins:
        if name.lower().replace("_", "-") not in have:
            plan.requirements.append(Requirement(name=name, version=version))
    if lock_text is None and any(not r.sha256 for r in plan.requirements) and not plan_file:
        lock_text = _lock_here(plan)
    if lock_text is not None:
        plan = plan_from_json({**plan.to_dict(), "hashes": {r.name: r.sha256 for r in plan.requirements if r.sha256}},
                              lock_text)
    return plan


def _resolve_here(source: Optional[str], torch: Optional[str], rocm: Optional[str], python: Optional[str],
                  companions: list[str], index_url: Optional[str]) -> Any:
    from rocmdoctor.errors import BadInput

    try:
        from rocmdoctor import matrix as matrix_mod
        from rocmdoctor.commands.install import capture_local_host, load_bundle_host
        from rocmdoctor.resolve import ResolveOptions, resolve
    except ImportError as exc:
        raise BadInput(f"the install resolver is not available in this build ({exc}); pass --plan and --lock") from None
    host = load_bundle_host(source) if source else capture_local_host(sys.executable)
    options = ResolveOptions(torch_spec=torch, rocm=rocm, companions=tuple(companions), python_version=python,
                             index_url=index_url)
    return resolve(host, matrix_mod.load(), options)


def _lock_here(plan: Any) -> str:
    """Resolve the full closure against the plan's index and write the hash lock (as `install --lock` does)."""
    import tempfile

    from rocmdoctor.installer import resolve_closure, write_lock

    with tempfile.TemporaryDirectory(prefix="rocmdoctor-container-lock-") as work:
        cons = os.path.join(work, "constraints.txt")
        with open(cons, "w") as fh:
            fh.write(plan.constraints())
        typer.echo("resolving the full set of wheels for the hash lock ...", err=True)
        closure = resolve_closure(plan, "pip", sys.executable, plan.python, work, dict(os.environ), cons)
        return write_lock(plan, closure, os.path.join(work, "requirements.lock"))


def _apt_pins(values: list[str]) -> dict[str, str]:
    from rocmdoctor.errors import BadInput

    pins = {}
    for v in values:
        name, sep, version = v.partition("=")
        if not sep or not name or not version:
            raise BadInput(f"--apt-pin {v!r}: expected NAME=VERSION")
        pins[name] = version
    return pins


def _write_outputs(files: dict[str, str], main_name: str, output: Optional[str]) -> None:
    """Print the main file (no -o), or write every file: -o is the main file's path or a directory."""
    from rocmdoctor.errors import BadInput

    if output is None:
        typer.echo(files[main_name], nl=False)
        others = [n for n in files if n != main_name]
        if others:
            typer.echo(f"note: {', '.join(others)} not written; use -o DIR to write the whole build context",
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
            with open(path, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(text)
    except OSError as exc:
        raise BadInput(f"cannot write to {output}: {exc.strerror or exc}") from None
    typer.echo(f"wrote {main_path} and {', '.join(n for n in files if n != main_name) or 'nothing else'}", err=True)


def _spec(plan_file: Optional[str], lock: Optional[str], source: Optional[str], torch: Optional[str],
          rocm: Optional[str], python: Optional[str], base: Optional[str], with_: list[str], apt_pin: list[str],
          os_package: list[str], app: Optional[str], user: str, uid: int, sde: int, healthcheck: bool,
          index_url: Optional[str]) -> Any:
    from rocmdoctor.container.spec import build_spec, parse_image

    if base:
        parse_image(base)  # refuse latest/untagged before any resolving work
    plan = load_plan(plan_file, lock, source, torch, rocm, python, with_, index_url, healthcheck)
    return build_spec(plan, base=base, apt_pins=_apt_pins(apt_pin), extra_os_packages=tuple(os_package),
                      app_dir=app, user=user, uid=uid, source_date_epoch=sde, healthcheck=healthcheck)


def _render_options(source: Optional[str], render_gid: Optional[int]) -> tuple[Optional[int], tuple[str, ...]]:
    """The host's render gid: --render-gid, else the bundle's, else this machine's (with a note when none)."""
    from rocmdoctor.container.render_runargs import render_gid_from_host, render_gid_live

    if render_gid is not None:
        return render_gid, ()
    if source:
        from rocmdoctor.commands.install import load_bundle_host

        gid, why = render_gid_from_host(load_bundle_host(source))
    else:
        gid, why = render_gid_live()
    if gid is None:
        return None, (f"no --group-add for render: {why}; pass --render-gid N on the GPU host",)
    return gid, ()


# Typer option declarations shared by the spec commands (dockerfile, apptainer).
def _opt_source() -> Any:
    return typer.Option(None, "--from", metavar="BUNDLE", help="Plan for this captured host (bundle dir/.tar.gz).")


def register(app: typer.Typer) -> None:
    """Add ``rocmdoctor container ...`` to the root app."""

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
        output: Optional[str] = typer.Option(None, "-o", "--output", metavar="PATH", help="Dockerfile path or dir."),
    ) -> None:
        """A pinned Dockerfile (+ requirements.lock, rocmdoctor.lock beside it)."""
        from rocmdoctor.container.render_docker import render_context

        spec = _spec(plan_file, lock, source, torch, rocm, python, base, with_, apt_pin, os_package, app_dir,
                     user, uid, sde, not no_healthcheck, index_url)
        _write_outputs(render_context(spec), "Dockerfile", output)

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
        output: Optional[str] = typer.Option(None, "-o", "--output", metavar="PATH", help="rocm.def path or dir."),
    ) -> None:
        """An Apptainer definition (+ its lock files); run with `apptainer run --rocm`."""
        from rocmdoctor.container.render_apptainer import render_apptainer

        spec = _spec(plan_file, lock, source, torch, rocm, python, base, with_, apt_pin, os_package, app_dir,
                     "rocm", 1000, sde, not no_healthcheck, index_url)
        files = {"rocm.def": render_apptainer(spec), **{lk.filename: lk.text() for lk in spec.locks}}
        _write_outputs(files, "rocm.def", output)

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
        from rocmdoctor.container.render_compose import render_compose
        from rocmdoctor.container.render_runargs import RunOptions

        gid, notes = _render_options(source, render_gid)
        opts = RunOptions(access=access, render_gid=gid, shm_size=shm_size, gpus=gpus, notes=notes)
        _write_outputs({"compose.yaml": render_compose(opts, image, service)}, "compose.yaml", output)

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
        as_json: bool = typer.Option(False, "--json", help="All variants as JSON (rocmdoctor-run-args/1)."),
    ) -> None:
        """The docker/podman (or apptainer) command line with the right GPU flags for this host."""
        import json
        import shlex

        from rocmdoctor.container.render_runargs import RunOptions, apptainer_argv, render_json, render_text

        cmd = tuple(command or ())
        if apptainer and not as_json:
            typer.echo(shlex.join(apptainer_argv(image, cmd)))
            return
        gid, notes = _render_options(source, render_gid)
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
        _write_outputs({name: text}, name, output)

    @container_app.command("lint")
    def lint_cmd(
        path: str = typer.Argument(..., help="Dockerfile to lint."),
        as_json: bool = typer.Option(False, "--json", help="hadolint-style JSON list."),
    ) -> None:
        """Our hadolint subset (DL3006/3007/3008/3013/3015/3042/4006); exit 1 when anything is found."""
        import json

        from rocmdoctor.container.lint import lint, render_text

        issues = lint(_read(path, "Dockerfile"))
        if as_json:
            typer.echo(json.dumps([{"file": path, **i.to_dict()} for i in issues], indent=2))
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
        as_json: bool = typer.Option(False, "--json", help="JSON report (rocmdoctor-report/1)."),
        verbose: bool = typer.Option(False, "-v", "--verbose"),
    ) -> None:
        """Run the image with the generated flags; report `rocmdoctor check` and `smoke` from inside it."""
        from rocmdoctor.container.render_runargs import RunOptions
        from rocmdoctor.container.test_image import test_image
        from rocmdoctor.errors import BadInput
        from rocmdoctor.render import exit_code, render_terminal, to_json

        if image.startswith("-"):
            raise BadInput(f"image {image!r}: not an image name")
        gid, notes = _render_options(None, render_gid)
        opts = RunOptions(access=access, render_gid=gid, notes=notes)
        findings, runs = test_image(image, opts, timeout=timeout, smoke=not no_smoke)
        if as_json:
            typer.echo(to_json(None, findings, image=image, runs=[
                {"argv": list(r.argv), "exit": r.exit_code} for r in runs]))
        else:
            for note in notes:
                typer.echo(f"note: {note}", err=True)
            render_terminal(None, findings, verbose=verbose, header=f"rocmdoctor container test {image}")
        raise typer.Exit(exit_code(findings))

    app.add_typer(container_app, name="container")
