"""``rocmdoctor container test IMAGE``: run the image the way users will, and ask rocmdoctor inside it.

Uses the Docker SDK (the ``docker`` package) against the local daemon: is it reachable, is the image
there (never pulled: a test must test the image you built), then ``rocmdoctor check --json`` and
``rocmdoctor smoke --level 1 --json`` run in containers started with the generated run flags. Device
flags for nodes this host does not have are dropped with a finding saying so, and the run goes ahead:
that is what lets the image be tested on a build machine without a GPU.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, replace
from typing import Any, Callable, Optional

from rocmdoctor.container.render_runargs import RunOptions, validate
from rocmdoctor.model import Finding, Fix, Severity

_SEVERITIES = {s.value: s for s in Severity}


@dataclass(frozen=True)
class InnerRun:
    argv: tuple[str, ...]
    exit_code: Optional[int]  # None: timed out
    stdout: str
    stderr: str


def sdk_run_kwargs(opts: RunOptions) -> dict[str, Any]:
    """The Docker SDK equivalent of :func:`render_runargs.run_flags` (same options, same meaning)."""
    validate(opts)
    kw: dict[str, Any] = {
        "group_add": ([str(opts.render_gid)] if opts.render_gid is not None else []) + ["video"],
        "security_opt": ["seccomp=unconfined"],
        "ipc_mode": "host",
        "shm_size": opts.shm_size,
    }
    if opts.access == "devices":
        kw["devices"] = [f"{d}:{d}:rwm" for d in opts.devices]
    elif opts.access == "runtime":
        kw["runtime"] = "amd"
        kw["environment"] = {"AMD_VISIBLE_DEVICES": opts.gpus}
    else:
        from docker.types import DeviceRequest  # type: ignore[import-untyped]  # docker-py ships no types

        kw["device_requests"] = [DeviceRequest(driver="cdi", device_ids=[f"amd.com/gpu={opts.gpus}"])]
    return kw


def _run(client: Any, image: str, argv: tuple[str, ...], kwargs: dict[str, Any], timeout: float) -> InnerRun:
    container = client.containers.create(image, list(argv), detach=True, **kwargs)
    try:
        container.start()
        try:
            code: Optional[int] = int(container.wait(timeout=timeout).get("StatusCode", -1))
        except Exception:  # requests' ReadTimeout: the run outlived its budget
            container.kill()
            code = None
        out = container.logs(stdout=True, stderr=False).decode("utf-8", "replace")
        err = container.logs(stdout=False, stderr=True).decode("utf-8", "replace")
        return InnerRun(argv, code, out, err)
    finally:
        container.remove(force=True)


def _inner_findings(what: str, run: InnerRun) -> list[Finding]:
    """One finding for the run itself, then the findings it reported (titles marked as from inside)."""
    shown = " ".join(run.argv)
    if run.exit_code is None:
        return [Finding(id=f"container.test.{what}", severity=Severity.FAIL, title=f"`{shown}` timed out in the image")]
    try:
        doc = json.loads(run.stdout)
        items = doc["findings"]
        assert isinstance(items, list)
    except (ValueError, KeyError, TypeError, AssertionError):
        tail = (run.stderr.strip() or run.stdout.strip())[-400:]
        return [Finding(
            id=f"container.test.{what}", severity=Severity.FAIL,
            title=f"`{shown}` did not produce a JSON report in the image (exit {run.exit_code})",
            detail="Is rocmdoctor installed in the image (the generated Dockerfile installs it from rocmdoctor.lock)?",
            evidence=[tail] if tail else [],
        )]
    out: list[Finding] = []
    for item in items:
        if not isinstance(item, dict):
            continue
        sev = _SEVERITIES.get(str(item.get("severity")), Severity.ERROR)
        out.append(Finding(id=str(item.get("id", f"container.test.{what}")), severity=sev,
                           title=f"[in container] {item.get('title', '')}", detail=str(item.get("detail") or ""),
                           evidence=[str(e) for e in item.get("evidence") or []][:6]))
    worst = max((f.severity for f in out), key=lambda s: s.rank, default=Severity.OK)
    ran_ok = run.exit_code == 0 or (run.exit_code == 1 and worst in (Severity.FAIL, Severity.ERROR, Severity.WARN))
    head = Finding(
        id=f"container.test.{what}", severity=Severity.OK if ran_ok else Severity.FAIL,
        title=f"`{shown}` ran in the image: exit {run.exit_code}, {len(out)} findings",
        evidence=[f"schema: {doc.get('schema')}"] if isinstance(doc, dict) else [],
    )
    return [head, *out]


def test_image(
    image: str,
    opts: RunOptions,
    client: Any = None,
    timeout: float = 300.0,
    smoke: bool = True,
    device_exists: Callable[[str], bool] = os.path.exists,
) -> tuple[list[Finding], list[InnerRun]]:
    """Findings about ``image`` (and the raw inner runs, for ``--json``); never raises on daemon trouble."""
    findings: list[Finding] = []
    if client is None:
        try:
            import docker  # type: ignore[import-untyped]  # docker-py ships no types

            client = docker.from_env(timeout=int(timeout) + 30)
            client.ping()
        except Exception as exc:
            findings.append(Finding(
                id="container.test.daemon", severity=Severity.FAIL, title="Docker daemon not reachable",
                detail=f"{type(exc).__name__}: {str(exc)[:300]}",
                fix=Fix(explanation="Start Docker and make sure this user may use it.",
                        commands=["sudo systemctl enable --now docker", "sudo usermod -aG docker $USER"]),
            ))
            return findings, []
    findings.append(Finding(id="container.test.daemon", severity=Severity.OK, title="Docker daemon reachable"))
    try:
        client.images.get(image)
    except Exception as exc:
        findings.append(Finding(
            id="container.test.image", severity=Severity.FAIL, title=f"image {image} is not in the local daemon",
            detail=f"{type(exc).__name__}: {str(exc)[:200]}. `container test` never pulls: build or pull it first.",
        ))
        return findings, []
    findings.append(Finding(id="container.test.image", severity=Severity.OK, title=f"image {image} found"))
    if opts.access == "devices":
        missing = [d for d in opts.devices if not device_exists(d)]
        if missing:
            opts = replace(opts, devices=tuple(d for d in opts.devices if d not in missing))
            findings.append(Finding(
                id="container.test.devices", severity=Severity.WARN,
                title=f"{', '.join(missing)} not present on this host: run without those --device flags",
                detail="The image is tested anyway; GPU checks inside it will report no GPU. "
                       "Run `container test` on an AMD GPU host for the full test.",
            ))
        else:
            findings.append(Finding(id="container.test.devices", severity=Severity.OK,
                                    title=f"passing {', '.join(opts.devices)} to the container"))
    kwargs = sdk_run_kwargs(opts)
    runs: list[InnerRun] = []
    commands: list[tuple[str, tuple[str, ...]]] = [("check", ("rocmdoctor", "check", "--json"))]
    if smoke:
        commands.append(("smoke", ("rocmdoctor", "smoke", "--level", "1", "--json")))
    for what, argv in commands:
        try:
            run = _run(client, image, argv, kwargs, timeout)
        except Exception as exc:  # the daemon refused the container (bad runtime, unknown group, ...)
            findings.append(Finding(id=f"container.test.{what}", severity=Severity.FAIL,
                                    title=f"could not start the image for `{' '.join(argv)}`",
                                    detail=f"{type(exc).__name__}: {str(exc)[:400]}"))
            continue
        runs.append(run)
        findings += _inner_findings(what, run)
    return findings, runs


test_image.__test__ = False  # type: ignore[attr-defined]  # not a pytest test despite its name
