"""A real Docker daemon builds a generated Dockerfile and runs rocmdoctor inside the image.

Base: a Debian bookworm image made with debootstrap (cached by tag; pushed once to a loopback registry
for a real digest). Wheels: the real CPU torch 2.13.0 and rocmdoctor's dependencies from this machine's
on-disk mirror, plus a wheel of this checkout, served by a PEP 503 index on 127.0.0.1 (build with
network_mode=host). Nothing leaves loopback.
"""

from __future__ import annotations

import importlib.metadata as md
import json
import re
import uuid
from pathlib import Path

import pytest
from container_helpers import (
    BASE_PYTHON,
    TEST_LABEL,
    docker_client,
    ensure_base_digest,
    installed_versions,
    local_wheel,
    self_wheel,
    serve_wheels,
    sha256_file,
    wheel_name_version,
)

from rocmdoctor.container.render_docker import render_context
from rocmdoctor.container.render_runargs import RunOptions
from rocmdoctor.container.spec import build_spec
from rocmdoctor.container.test_image import test_image
from rocmdoctor.install.plan import Plan, Requirement
from rocmdoctor.model import Severity

pytestmark = [pytest.mark.docker, pytest.mark.slow]

# Not on this machine's mirror, and not imported by `rocmdoctor check`: left out of the image.
ABSENT_OK = {"pyudev"}
IMAGE = "rocmdoctor-test-image"


def _closure(root: str) -> list[str]:
    """rocmdoctor's runtime dependency closure, from the installed distributions' metadata."""
    from packaging.requirements import Requirement as Req

    seen: list[str] = []
    todo = [root]
    while todo:
        name = todo.pop()
        for text in md.requires(name) or []:
            req = Req(text)
            if req.marker is not None and not req.marker.evaluate({"extra": ""}):
                continue
            key = re.sub(r"[-_.]+", "-", req.name).lower()
            if key not in seen and key not in ABSENT_OK:
                seen.append(key)
                todo.append(key)
    return sorted(seen)


def _dep_wheel(name: str) -> Path:
    """The mirror's wheel of the version installed here (the set rocmdoctor is tested with)."""
    version = md.version(name)
    stem = re.sub(r"[-_.]+", "_", name)
    found = local_wheel(f"{stem}-{version}-*.whl") or local_wheel(f"{stem}-*.whl")
    if found is None:
        pytest.skip(f"no wheel for {name} on this machine's mirror")
    return found


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    client = docker_client()
    if client is None:
        pytest.skip("Docker daemon not reachable (start dockerd: see .ci/run)")
    base = ensure_base_digest(client)
    if base is None:
        pytest.skip("docker-registry (Debian package) missing: no way to give the local base a digest")
    torch = local_wheel("torch-2.13.0*cp311*.whl")
    if torch is None:
        pytest.skip("torch 2.13.0 CPU wheel not on local disk (/opt/wheels)")
    wheels = [torch, *(_dep_wheel(n) for n in _closure("rocmdoctor")), self_wheel(tmp_path_factory.mktemp("self"))]
    try:  # the previous run's image: superseded by this run's build, removed at the end like ours
        _BUILT.append(client.images.get(f"{IMAGE}:test").id)
    except Exception:
        pass
    url, stop = serve_wheels(wheels)
    pins = installed_versions(client, base, [f"python{BASE_PYTHON}", f"python{BASE_PYTHON}-venv"])
    reqs = [Requirement(*wheel_name_version(w), sha256=[sha256_file(w)]) for w in wheels]
    plan = Plan(index_url=url, requirements=reqs, python=BASE_PYTHON, rocm="6.2",
                env={"HSA_OVERRIDE_GFX_VERSION": "10.3.0"})
    spec = build_spec(plan, base=base, apt_pins=pins, app_dir="app")
    ctx = tmp_path_factory.mktemp("ctx")
    for name, text in render_context(spec).items():
        (ctx / name).write_text(text)
    (ctx / "app").mkdir()
    (ctx / "app" / "train.py").write_text("print('hello from the app')\n")
    yield {"client": client, "ctx": ctx, "spec": spec, "plan": plan, "base": base}
    stop()
    current = client.images.get(f"{IMAGE}:test").id
    for image_id in set(_BUILT) - {current}:  # superseded builds of this session (shared layers stay)
        try:
            client.images.remove(image_id)
        except Exception as exc:
            print("could not remove", image_id, exc)


_BUILT: list[str] = []  # image ids this session built: untagged leftovers are removed at the end


def _build(client, ctx: Path) -> tuple[str, list[str]]:
    lines: list[str] = []
    for chunk in client.api.build(path=str(ctx), tag=f"{IMAGE}:test", network_mode="host", rm=True,
                                  forcerm=True, decode=True, labels={TEST_LABEL: "1"}):
        if "error" in chunk:
            raise AssertionError(f"docker build failed: {chunk['error']}\n{''.join(lines[-30:])}")
        if "stream" in chunk:
            lines.append(chunk["stream"])
    image_id = client.images.get(f"{IMAGE}:test").id
    _BUILT.append(image_id)
    return image_id, "".join(lines).splitlines()


def _step_cached(log: list[str], pattern: str) -> bool:
    """Whether the legacy builder reused its cache for the step whose instruction matches ``pattern``."""
    for i, line in enumerate(log):
        if line.startswith("Step ") and re.search(pattern, line):
            for nxt in log[i + 1:]:
                if nxt.startswith("Step "):
                    return False
                if "Using cache" in nxt:
                    return True
            return False
    raise AssertionError(f"no build step matches {pattern!r}")


@pytest.fixture(scope="module")
def built(world):
    image_id, log = _build(world["client"], world["ctx"])
    return {**world, "image_id": image_id, "log": log}


def test_image_metadata_records_plan_base_and_healthcheck(built):
    attrs = built["client"].images.get(built["image_id"]).attrs["Config"]
    labels = attrs["Labels"]
    assert labels["org.opencontainers.image.base.name"] == "127.0.0.1:47614/rocmdoctor-test-base:bookworm"
    assert labels["org.opencontainers.image.base.digest"] == built["base"].split("@")[1]
    plan = json.loads(labels["io.rocmdoctor.plan"])
    torch = next(r for r in built["plan"].requirements if r.name == "torch")
    assert plan["hashes"]["torch"] == torch.sha256
    assert sorted(plan["requirements"]) == sorted(r.pin() for r in built["plan"].requirements)
    assert attrs["Healthcheck"]["Test"] == ["CMD", "rocmdoctor", "smoke", "--level", "1"]
    assert attrs["User"] == "1000"
    assert "HSA_OVERRIDE_GFX_VERSION=10.3.0" in attrs["Env"]
    assert "SOURCE_DATE_EPOCH=0" in attrs["Env"]


def test_rocmdoctor_check_json_runs_inside_the_image(built):
    client = built["client"]
    container = client.containers.create(built["image_id"], ["rocmdoctor", "check", "--json"])
    try:
        container.start()
        code = container.wait(timeout=120)["StatusCode"]
        out = container.logs(stdout=True, stderr=False).decode()
    finally:
        container.remove(force=True)
    doc = json.loads(out)
    assert doc["schema"] == "rocmdoctor-report/1"
    severities = {f["severity"] for f in doc["findings"]}
    assert code == (1 if severities & {"fail", "error"} else 0)  # the documented exit rule
    # the image's own torch is what check saw (read from metadata, without importing it)
    assert (doc["host"]["torch"] or {}).get("version", "").startswith("2.13.0")


def test_container_test_command_reports_inside_findings(built):
    findings, runs = test_image(built["image_id"], RunOptions(render_gid=None), client=built["client"],
                                timeout=120, smoke=False)
    by_id = {f.id: f for f in findings}
    assert by_id["container.test.daemon"].severity == Severity.OK
    assert by_id["container.test.image"].severity == Severity.OK
    # this machine has no /dev/kfd: the flag is dropped with a finding, and the run goes ahead
    assert by_id["container.test.devices"].severity == Severity.WARN
    assert "/dev/kfd" in by_id["container.test.devices"].title
    assert by_id["container.test.check"].severity == Severity.OK, by_id["container.test.check"]
    assert runs and runs[0].argv == ("rocmdoctor", "check", "--json")
    assert any(f.title.startswith("[in container]") for f in findings)


def test_missing_image_is_a_failure_not_a_pull(built):
    findings, runs = test_image("rocmdoctor-no-such-image:1", RunOptions(), client=built["client"])
    assert [f.severity for f in findings if f.id == "container.test.image"] == [Severity.FAIL]
    assert runs == []


def test_app_change_reuses_the_torch_layer(built):
    ctx = built["ctx"]
    (ctx / "app" / "train.py").write_text(f"print('changed {uuid.uuid4().hex}')\n")  # new on every run
    _, log = _build(built["client"], ctx)
    assert _step_cached(log, r"RUN pip install .*requirements\.lock"), "\n".join(log)
    assert _step_cached(log, r"RUN pip install .*rocmdoctor\.lock")
    assert not _step_cached(log, r"COPY .*app/ /app/")  # the app layer itself was rebuilt


def test_container_test_cli_end_to_end(built):
    """`rocmdoctor container test IMAGE --json`: check and smoke inside, the shared JSON report, exit 0/1."""
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-m", "rocmdoctor", "container", "test", f"{IMAGE}:test", "--json",
                           "--timeout", "120"], capture_output=True, text=True, timeout=400)
    doc = json.loads(proc.stdout)
    assert doc["schema"] == "rocmdoctor-report/1"
    ids = {f["id"]: f["severity"] for f in doc["findings"]}
    assert ids["container.test.check"] == "ok" and "container.test.smoke" in ids
    assert [r["argv"][:2] for r in doc["runs"]] == [["rocmdoctor", "check"], ["rocmdoctor", "smoke"]]
    worst_bad = any(f["severity"] in ("fail", "error") for f in doc["findings"])
    assert proc.returncode == (1 if worst_bad else 0), proc.stderr
