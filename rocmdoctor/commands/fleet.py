"""`rocmdoctor fleet audit`: agentless audits of many hosts over the system OpenSSH client.

Thin typer wiring; the logic lives in :mod:`rocmdoctor.fleet` (imported lazily inside the command).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

import typer


def register(app: typer.Typer) -> None:
    """Add ``rocmdoctor fleet audit`` to the root app."""
    fleet_app = typer.Typer(help="Audit many hosts over SSH (agentless) and tell what to drain.",
                            no_args_is_help=True)

    @fleet_app.command("audit")
    def audit(
        hosts: Optional[list[str]] = typer.Argument(None, help="Hosts or ranges, e.g. node[001-128]."),
        hostfile: Optional[Path] = typer.Option(None, "-f", "--hostfile", help="File with one host/range a line."),
        inventory: Optional[Path] = typer.Option(None, "--inventory", help="Ansible INI inventory."),
        ssh_config: Optional[Path] = typer.Option(None, "--ssh-config", help="ssh -F FILE (default: ~/.ssh/config)."),
        jobs: int = typer.Option(64, "-j", "--jobs", min=1, max=4096, help="At most N ssh connections at once."),
        timeout: float = typer.Option(60.0, "--timeout", min=1.0, help="Per-host timeout in seconds."),
        live: bool = typer.Option(False, "--live", help="Also run smoke level 1 where torch exists remotely."),
        baseline: Optional[Path] = typer.Option(None, "--baseline", help="Bundle of a known-good node."),
        json_file: Optional[Path] = typer.Option(None, "--json", help="Write rocmdoctor-fleet/1 JSON here."),
        html_file: Optional[Path] = typer.Option(None, "--html", help="Write a self-contained HTML report."),
        prometheus: Optional[Path] = typer.Option(None, "--prometheus", help="Write DIR/rocmdoctor.prom."),
        save_bundles: Optional[Path] = typer.Option(None, "--save-bundles", help="Keep each host's bundle here."),
        accept_new: bool = typer.Option(False, "--accept-new-host-keys",
                                        help="StrictHostKeyChecking=accept-new (first contact only)."),
    ) -> None:
        """Capture every host over SSH, judge locally, group configurations, report drift and a drain list.

        Exit 0 if no host has a fail/error finding, 1 otherwise, 2 for usage errors.
        """
        from rocmdoctor.errors import BadInput
        from rocmdoctor.fleet import audit as audit_mod
        from rocmdoctor.fleet import hosts as hosts_mod
        from rocmdoctor.fleet import transport
        from rocmdoctor.options import seconds, writable_file

        seconds("--timeout", timeout, minimum=1.0)
        for name, p in (("--ssh-config", ssh_config), ("-f", hostfile), ("--inventory", inventory)):
            # ssh -F /dev/null is the usual way to say "no config"; other devices (/dev/zero) never end.
            if p is not None and not p.is_file() and not (name == "--ssh-config" and str(p) == os.devnull):
                raise BadInput(f"{name} {p}: {'is a directory' if p.is_dir() else 'not a regular file'}"
                               if p.exists() else f"{name} {p}: no such file")
        targets = hosts_mod.collect_targets(hosts or [], hostfile, inventory)
        if not transport.ssh_available():
            raise BadInput("no `ssh` client found on PATH (install openssh-client)")
        base_fp = audit_mod.load_baseline(baseline) if baseline is not None else None
        # Every output is checked before the audit (a report that cannot be written after an hour of
        # fan-out would be lost), and after every other check (a usage error creates nothing).
        for name, p in (("--prometheus", prometheus), ("--save-bundles", save_bundles)):
            if p is None:
                continue
            if p.exists() and not p.is_dir():
                raise BadInput(f"{name} {p}: exists and is not a directory")
            try:
                p.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise BadInput(f"{name} {p}: cannot create the directory ({exc.strerror or exc})") from None
        for name, p in (("--json", json_file), ("--html", html_file)):
            if p is None:
                continue
            writable_file(name, p)
        opts = audit_mod.AuditOptions(
            jobs=jobs, timeout=timeout, live=live, save_bundles=save_bundles,
            ssh=transport.SshSettings(config=ssh_config, connect_timeout=int(min(10.0, timeout)),
                                      accept_new_host_keys=accept_new),
        )
        report = _run_with_progress(targets, opts, base_fp)
        _emit(report, json_file, html_file, prometheus)
        raise typer.Exit(130 if report.interrupted else report.exit_code)

    @fleet_app.command("node-check")
    def node_check(
        source: Optional[str] = typer.Option(None, "--from", metavar="PATH",
                                             help="Judge this bundle instead of capturing this host."),
        max_length: int = typer.Option(80, "--max-length", min=20, help="Cut the line here (NPD default 80)."),
        strict: bool = typer.Option(False, "--strict", help="Warnings count as problems too."),
        timeout: float = typer.Option(10.0, "--timeout", min=1.0, help="Per-command capture timeout (s)."),
    ) -> None:
        """One line + exit code for Slurm HealthCheckProgram / NHC wrappers and Kubernetes NPD plugins.

        Exit 0 healthy, 1 a problem (drain), 2 the check could not run (NPD: Unknown).
        """
        from rocmdoctor.checkrun import load_source
        from rocmdoctor.fleet.healthcheck import verdict
        from rocmdoctor.options import seconds
        from rocmdoctor.pipeline import judge_host

        seconds("--timeout", timeout, minimum=1.0)
        host = load_source(source, None, timeout)
        code, line = verdict(judge_host(host), strict=strict, max_len=max_length)
        typer.echo(line)
        raise typer.Exit(code)

    app.add_typer(fleet_app, name="fleet")


def _run_with_progress(targets, opts, base_fp):  # type: ignore[no-untyped-def]
    """Run the audit with a rich progress bar on stderr (done / failed / in flight)."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from rocmdoctor.fleet import audit as audit_mod

    err = Console(stderr=True)
    counts = {"done": 0, "failed": 0, "flight": 0}
    with Progress(TextColumn("[bold]fleet audit"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("{task.fields[info]}"), TimeElapsedColumn(), console=err, transient=True,
                  disable=not err.is_terminal) as progress:
        task = progress.add_task("audit", total=len(targets), info="")

        def hook(event, target, res):  # type: ignore[no-untyped-def]
            if event == "start":
                counts["flight"] += 1
            else:
                counts["flight"] -= 1
                counts["done"] += 1
                if res is not None and res.status != "ok":
                    counts["failed"] += 1
            progress.update(task, completed=counts["done"],
                            info=f"failed {counts['failed']}  in flight {counts['flight']}")

        return audit_mod.run_audit(targets, opts, hook=hook, baseline=base_fp)


def _emit(report, json_file, html_file, prometheus) -> None:  # type: ignore[no-untyped-def]
    from rocmdoctor.errors import OperationFailed
    from rocmdoctor.fleet import report as report_mod
    from rocmdoctor.tables import console

    report_mod.print_terminal(report, console())
    writers = ((json_file, report_mod.write_json, "--json"), (html_file, report_mod.write_html, "--html"),
               (prometheus, report_mod.write_prometheus, "--prometheus"))
    for path, write, flag in writers:
        if path is None:
            continue
        try:
            write(report, path)
        except OSError as exc:
            raise OperationFailed(f"cannot write {flag} {path}: {exc.strerror or exc}") from None
