"""`rocmdoctor fleet audit`: agentless audits of many hosts over the system OpenSSH client.

Thin typer wiring; the logic lives in :mod:`rocmdoctor.fleet` (imported lazily inside the command).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Optional

import typer

from rocmdoctor.cli.options import deprecated, quiet_option

if TYPE_CHECKING:
    from rocmdoctor.fleet.aggregate import FleetReport
    from rocmdoctor.fleet.audit import AuditOptions
    from rocmdoctor.fleet.baseline import Baseline
    from rocmdoctor.fleet.hosts import Target
    from rocmdoctor.fleet.transport import HostResult


class FleetFormat(str, Enum):
    json = "json"
    html = "html"


def legacy_argv(argv: list[str]) -> list[str]:
    """Spellings of `fleet audit` kept for one release, rewritten with a warning on stderr.

    ``--json FILE`` wrote a file (now ``-o FILE``; ``--json`` alone is JSON on stdout, as everywhere) and
    ``-f FILE`` was ``--hostfile`` (``-f`` is ``--format`` in ``check``). ``--json`` followed by something
    that looks like a file (ends in .json or holds a '/'; host names and ranges do neither) is the old form.
    """
    words = [a for a in argv[:3] if not a.startswith("-")]
    if words[:2] != ["fleet", "audit"]:
        return argv
    out: list[str] = []
    i = 0
    while i < len(argv):
        a, nxt = argv[i], argv[i + 1] if i + 1 < len(argv) else None
        if a == "--":
            out.extend(argv[i:])
            break
        if a.startswith("--json="):
            path = a.split("=", 1)[1]
            deprecated(f"--json={path}", f"-o {path}")
            out += ["-o", path, "--format", "json"]
        elif a == "--json" and nxt is not None and not nxt.startswith("-") and (nxt.endswith(".json") or "/" in nxt):
            deprecated(f"--json {nxt}", f"-o {nxt} (--json alone prints the JSON on stdout)")
            out += ["-o", nxt, "--format", "json"]
            i += 1
        elif a == "-f" and nxt is not None:
            deprecated(f"-f {nxt}", f"--hostfile {nxt}")
            out += ["--hostfile", nxt]
            i += 1
        else:
            out.append(a)
        i += 1
    return out


fleet_app = typer.Typer(help="Audit many hosts over SSH (agentless) and tell what to drain.", no_args_is_help=True)


@dataclass(frozen=True)
class AuditRequest:
    """Every flag of ``fleet audit``, as given (the typer callback builds it; :func:`run_audit_command` acts)."""

    hosts: tuple[str, ...] = ()
    hostfile: Optional[Path] = None
    inventory: Optional[Path] = None
    ssh_config: Optional[Path] = None
    jobs: int = 64
    timeout: float = 60.0
    live: bool = False
    baseline: Optional[Path] = None  # a rocmdoctor-baseline/1 file, or a known-good node's bundle
    write_baseline: Optional[Path] = None
    as_json: bool = False
    output: Optional[Path] = None  # -o, written in ``fmt``
    fmt: FleetFormat = FleetFormat.json
    html_file: Optional[Path] = None
    prometheus: Optional[Path] = None  # a directory: DIR/rocmdoctor.prom
    save_bundles: Optional[Path] = None
    accept_new_host_keys: bool = False
    quiet: bool = False

    @property
    def json_file(self) -> Optional[Path]:
        return self.output if self.output is not None and self.fmt == FleetFormat.json else None


@fleet_app.command("audit")
def audit(
    hosts: Optional[list[str]] = typer.Argument(None, help="Hosts or ranges, e.g. node[001-128]."),
    hostfile: Optional[Path] = typer.Option(None, "--hostfile", help="File with one host/range a line."),
    inventory: Optional[Path] = typer.Option(None, "--inventory", help="Ansible INI inventory."),
    ssh_config: Optional[Path] = typer.Option(None, "--ssh-config", help="ssh -F FILE (default: ~/.ssh/config)."),
    jobs: int = typer.Option(64, "-j", "--jobs", min=1, max=4096, help="At most N ssh connections at once."),
    timeout: float = typer.Option(60.0, "--timeout", min=1.0, help="Per-host timeout in seconds."),
    live: bool = typer.Option(False, "--live", help="Also run smoke level 1 where torch exists remotely."),
    baseline: Optional[Path] = typer.Option(
        None, "--baseline", help="A rocmdoctor-baseline/1 JSON file, or a bundle of a known-good node."),
    write_baseline: Optional[Path] = typer.Option(
        None, "--write-baseline", help="Write the fleet's majority configuration as a baseline file."),
    as_json: bool = typer.Option(False, "--json", help="The rocmdoctor-fleet/1 JSON on stdout (no table)."),
    output: Optional[Path] = typer.Option(None, "-o", "--output", metavar="PATH",
                                          help="Write the report here, in --format (default: json)."),
    fmt: FleetFormat = typer.Option(FleetFormat.json, "--format", metavar="json|html",
                                    help="Format of -o: rocmdoctor-fleet/1 JSON or a self-contained HTML page."),
    html_file: Optional[Path] = typer.Option(None, "--html", help="Also write a self-contained HTML report."),
    prometheus: Optional[Path] = typer.Option(None, "--prometheus", help="Write DIR/rocmdoctor.prom."),
    save_bundles: Optional[Path] = typer.Option(None, "--save-bundles", help="Keep each host's bundle here."),
    accept_new: bool = typer.Option(False, "--accept-new-host-keys",
                                    help="StrictHostKeyChecking=accept-new (first contact only)."),
    quiet: bool = quiet_option(),
) -> None:
    """Capture every host over SSH, judge locally, group configurations, report drift and a drain list.

    Exit 0 if no host has a fail/error finding, 1 otherwise, 2 for usage errors.
    """
    req = AuditRequest(hosts=tuple(hosts or ()), hostfile=hostfile, inventory=inventory, ssh_config=ssh_config,
                       jobs=jobs, timeout=timeout, live=live, baseline=baseline, write_baseline=write_baseline,
                       as_json=as_json, output=output, fmt=fmt, html_file=html_file, prometheus=prometheus,
                       save_bundles=save_bundles, accept_new_host_keys=accept_new, quiet=quiet)
    raise typer.Exit(run_audit_command(req))


def run_audit_command(req: AuditRequest) -> int:
    """Check every input and output, run the audit, write the reports; the exit code (130 when interrupted)."""
    from rocmdoctor.cli.options import seconds
    from rocmdoctor.errors import BadInput
    from rocmdoctor.fleet import audit as audit_mod
    from rocmdoctor.fleet import hosts as hosts_mod
    from rocmdoctor.fleet import transport

    seconds("--timeout", req.timeout, minimum=1.0)
    html_file = req.html_file
    if req.output is not None and req.fmt == FleetFormat.html:
        if html_file is not None:
            raise BadInput("give the HTML report once: -o PATH --format html, or --html PATH")
        html_file = req.output
    for name, p in (("--ssh-config", req.ssh_config), ("--hostfile", req.hostfile), ("--inventory", req.inventory)):
        # ssh -F /dev/null is the usual way to say "no config"; other devices (/dev/zero) never end.
        if p is not None and not p.is_file() and not (name == "--ssh-config" and str(p) == os.devnull):
            raise BadInput(f"{name} {p}: {'is a directory' if p.is_dir() else 'not a regular file'}"
                           if p.exists() else f"{name} {p}: no such file")
    targets = hosts_mod.collect_targets(list(req.hosts), req.hostfile, req.inventory)
    if not transport.ssh_available():
        raise BadInput("no `ssh` client found on PATH (install openssh-client)")
    base_fp, expect = _load_reference(req.baseline)
    _prepare_outputs(req, html_file)
    opts = audit_mod.AuditOptions(
        jobs=req.jobs, timeout=req.timeout, live=req.live, save_bundles=req.save_bundles,
        ssh=transport.SshSettings(config=req.ssh_config, connect_timeout=int(min(10.0, req.timeout)),
                                  accept_new_host_keys=req.accept_new_host_keys),
    )
    report = _run_with_progress(targets, opts, base_fp, req.quiet or req.as_json, expect)
    _emit(report, req.json_file, html_file, req.prometheus, as_json=req.as_json, quiet=req.quiet)
    if req.write_baseline is not None:
        _write_baseline(report, req.write_baseline)
    return 130 if report.interrupted else report.exit_code


def _load_reference(baseline: Optional[Path]) -> tuple[Optional[dict[str, Optional[str]]], Optional[Baseline]]:
    """--baseline: a baseline file (what every host must have) or a known-good node's bundle (its fingerprint)."""
    from rocmdoctor.fleet import audit as audit_mod
    from rocmdoctor.fleet import baseline as baseline_mod

    if baseline is None:
        return None, None
    if baseline_mod.is_baseline_file(baseline):
        return None, baseline_mod.load(baseline)
    return audit_mod.load_baseline(baseline), None


def _prepare_outputs(req: AuditRequest, html_file: Optional[Path]) -> None:
    """Every output is checked before the audit (a report that cannot be written after an hour of fan-out
    would be lost), and after every other check (a usage error creates nothing)."""
    from rocmdoctor.cli.options import writable_file
    from rocmdoctor.errors import BadInput

    for name, p in (("--prometheus", req.prometheus), ("--save-bundles", req.save_bundles)):
        if p is None:
            continue
        if p.exists() and not p.is_dir():
            raise BadInput(f"{name} {p}: exists and is not a directory")
        try:
            p.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise BadInput(f"{name} {p}: cannot create the directory ({exc.strerror or exc})") from None
    for name, f in (("-o", req.json_file), ("--html", html_file), ("--write-baseline", req.write_baseline)):
        if f is not None:
            writable_file(name, f)


@fleet_app.command("node-check")
def node_check(
    source: Optional[str] = typer.Option(None, "--from", metavar="PATH",
                                         help="Judge this bundle instead of capturing this host."),
    max_length: int = typer.Option(80, "--max-length", min=20, help="Cut the line here (NPD default 80)."),
    strict: bool = typer.Option(False, "--strict", help="Warnings count as problems too."),
    timeout: float = typer.Option(10.0, "--timeout", min=1.0, help="Per-command capture timeout (s)."),
    expect: Optional[Path] = typer.Option(
        None, "--expect", help="A rocmdoctor-baseline/1 file: what this node must have (fail on any difference)."),
    expect_gpus: Optional[int] = typer.Option(
        None, "--expect-gpus", min=1, max=4096, help="Fail unless at least N GPUs are seen."),
    prometheus: Optional[Path] = typer.Option(
        None, "--prometheus", metavar="PATH", help="Also write a node_exporter textfile (atomically) here."),
) -> None:
    """One line + exit code for Slurm HealthCheckProgram / NHC wrappers and Kubernetes NPD plugins.

    Exit 0 healthy, 1 a problem (drain), 2 the check could not run (NPD: Unknown).
    """
    from rocmdoctor.cli.check_flow import load_source
    from rocmdoctor.cli.options import seconds, writable_file
    from rocmdoctor.diagnose import judge_host
    from rocmdoctor.fleet import baseline as baseline_mod
    from rocmdoctor.fleet.healthcheck import prometheus_text, verdict, write_textfile

    seconds("--timeout", timeout, minimum=1.0)
    if prometheus is not None:
        writable_file("--prometheus", prometheus)
    try:
        expected = baseline_mod.load(expect) if expect is not None else None  # bad file: exit 2 before capture
        host = load_source(source, None, timeout)
        findings = judge_host(host)
    except BaseException:
        if prometheus is not None:  # fail closed: the collector sees "not run", never a stale "ok"
            write_textfile(prometheus, prometheus_text([], 2, None))
        raise
    have = baseline_mod.facts(host)
    if expected is not None:
        findings = baseline_mod.compare(have, expected) + findings
    if expect_gpus is not None:
        findings = baseline_mod.expect_gpus(have, expect_gpus) + findings
    code, line = verdict(findings, strict=strict, max_len=max_length)
    if prometheus is not None:
        write_textfile(prometheus, prometheus_text(findings, code, have.get("gpu_count")))
    typer.echo(line)
    raise typer.Exit(code)


@fleet_app.command("k8s")
def k8s(
    image: str = typer.Option(..., "--image", help="Pinned image with rocmdoctor on PATH (name:tag or @sha256)."),
    namespace: str = typer.Option("kube-system", "--namespace", help="Namespace of the DaemonSet/ConfigMap."),
    interval: int = typer.Option(300, "--interval", help="Seconds between node checks."),
    node_selector: Optional[list[str]] = typer.Option(
        None, "--node-selector", metavar="KEY=VALUE",
        help="Nodes to run on (default: feature.node.kubernetes.io/amd-gpu=true)."),
    expect_gpus: Optional[int] = typer.Option(None, "--expect-gpus", min=1, max=4096,
                                              help="Pass --expect-gpus N to every node-check."),
    output: Optional[Path] = typer.Option(None, "-o", "--output",
                                          help="Write the manifests here (default stdout)."),
) -> None:
    """Kubernetes manifests: a node-problem-detector custom-plugin ConfigMap and a node-check DaemonSet
    that writes node_exporter textfiles. Apply with `kubectl apply -f`."""
    from rocmdoctor.errors import BadInput
    from rocmdoctor.fleet import k8s as k8s_mod

    selector = dict(k8s_mod.DEFAULT_NODE_SELECTOR)
    if node_selector:
        selector = {}
        for item in node_selector:
            key, eq, value = item.partition("=")
            if not eq:
                raise BadInput(f"--node-selector {item[:60]!r}: expected KEY=VALUE")
            selector[key] = value
    opts = k8s_mod.K8sOptions(image=image, namespace=namespace, interval_s=interval, node_selector=selector,
                              extra_args=["--expect-gpus", str(expect_gpus)] if expect_gpus else [])
    text = k8s_mod.render(k8s_mod.manifests(opts))
    if output is None:
        typer.echo(text, nl=False)
    else:
        from rocmdoctor.fleet.healthcheck import write_textfile

        write_textfile(output, text)


def register(app: typer.Typer) -> None:
    """Add ``rocmdoctor fleet ...`` to the root app."""
    app.add_typer(fleet_app, name="fleet")


def _write_baseline(report: FleetReport, path: Path) -> None:
    """The majority configuration of the hosts that answered, as a baseline file (written atomically)."""
    from rocmdoctor.errors import OperationFailed
    from rocmdoctor.fleet import baseline as baseline_mod
    from rocmdoctor.fleet import report as report_mod

    found = baseline_mod.majority([h.facts for h in report.hosts if h.up and h.facts is not None])
    if found is None:
        raise OperationFailed(f"--write-baseline {path}: no majority configuration (no host answered, or a tie)")
    try:
        report_mod._atomic_write(path, baseline_mod.dumps(found))
    except OSError as exc:
        raise OperationFailed(f"cannot write --write-baseline {path}: {exc.strerror or exc}") from None
    print(f"baseline written to {path} ({found.origin})", file=sys.stderr)


def _run_with_progress(targets: list[Target], opts: AuditOptions, base_fp: Optional[dict[str, Optional[str]]],
                       quiet: bool = False, expect: Optional[Baseline] = None) -> FleetReport:
    """Run the audit with a rich progress bar on stderr (done / failed / in flight)."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from rocmdoctor.fleet import audit as audit_mod

    err = Console(stderr=True)
    counts = {"done": 0, "failed": 0, "flight": 0}
    with Progress(TextColumn("[bold]fleet audit"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("{task.fields[info]}"), TimeElapsedColumn(), console=err, transient=True,
                  disable=quiet or not err.is_terminal) as progress:
        task = progress.add_task("audit", total=len(targets), info="")

        def hook(event: Literal["start", "done"], target: Target, res: Optional[HostResult]) -> None:
            if event == "start":
                counts["flight"] += 1
            else:
                counts["flight"] -= 1
                counts["done"] += 1
                if res is not None and res.status != "ok":
                    counts["failed"] += 1
            progress.update(task, completed=counts["done"],
                            info=f"failed {counts['failed']}  in flight {counts['flight']}")

        return audit_mod.run_audit(targets, opts, hook=hook, baseline=base_fp, expect=expect)


def _emit(report: FleetReport, json_file: Optional[Path], html_file: Optional[Path], prometheus: Optional[Path],
          as_json: bool = False, quiet: bool = False) -> None:
    from rocmdoctor.errors import OperationFailed
    from rocmdoctor.fleet import report as report_mod
    from rocmdoctor.report.tables import console

    # The files first, each on its own: an hour of fan-out must not be lost to a terminal that fails.
    writers = ((json_file, report_mod.write_json, "-o"), (html_file, report_mod.write_html, "--html"),
               (prometheus, report_mod.write_prometheus, "--prometheus"))
    failed: list[str] = []
    for path, write, flag in writers:
        if path is None:
            continue
        try:
            write(report, path)
        except OSError as exc:
            failed.append(f"cannot write {flag} {path}: {exc.strerror or exc}")
    if as_json:
        import json

        typer.echo(json.dumps(report_mod.to_json(report), indent=2))
    elif not quiet:
        report_mod.print_terminal(report, console())
    if failed:
        raise OperationFailed("; ".join(failed))
