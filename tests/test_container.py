"""Container specs: golden files per renderer, reproducibility, refusal of unpinned bases, run flags, CLI.

Golden files live in tests/golden/container/; regenerate with ROCMDOCTOR_UPDATE_GOLDEN=1 after a
deliberate change and review the diff.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from rocmdoctor.container.lint import lint
from rocmdoctor.container.render_apptainer import render_apptainer
from rocmdoctor.container.render_ci import render_github, render_gitlab
from rocmdoctor.container.render_compose import render_compose
from rocmdoctor.container.render_docker import render_context, render_dockerfile
from rocmdoctor.container.render_runargs import (
    RunOptions,
    render_gid_from_host,
    render_gid_live,
    render_json,
    render_text,
    run_flags,
)
from rocmdoctor.container.spec import build_spec, parse_image, plan_from_json, read_lock
from rocmdoctor.errors import BadInput
from rocmdoctor.install.plan import Plan, Requirement
from rocmdoctor.model import DeviceNode, Host

GOLDEN = Path(__file__).parent / "golden" / "container"
REPO = Path(__file__).resolve().parent.parent
DIGEST = "sha256:" + "5" * 64
BASE = f"rocm/dev-ubuntu-22.04:6.2.4@{DIGEST}"


def _h(c: str) -> str:
    return c * 64


def sample_plan() -> Plan:
    return Plan(
        index_url="https://download.pytorch.org/whl/rocm6.2",
        requirements=[
            Requirement("torch", "2.5.1+rocm6.2", [_h("b"), _h("a")]),
            Requirement("pytorch-triton-rocm", "3.1.0", [_h("c")]),
            Requirement("rocmdoctor", "0.1.0", [_h("d")]),
            Requirement("filelock", "3.16.1", [_h("e")]),
        ],
        python="3.10",
        rocm="6.2",
        env={"HSA_OVERRIDE_GFX_VERSION": "10.3.0"},
        reasons=["torch 2.5.1 is the newest build that fits"],
    )


def sample_spec(**kw):
    args = {"base": BASE, "apt_pins": {"python3.10": "3.10.12-1~22.04.9", "python3.10-venv": "3.10.12-1~22.04.9"},
            "app_dir": "app"}
    args.update(kw)
    return build_spec(sample_plan(), **args)


def check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("ROCMDOCTOR_UPDATE_GOLDEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    assert path.exists(), f"missing golden {path}: run with ROCMDOCTOR_UPDATE_GOLDEN=1"
    assert text == path.read_text(), f"{name} differs from its golden file"


# ------------------------------------------------------------------------------------------ goldens


def test_golden_dockerfile_and_locks():
    files = render_context(sample_spec())
    check_golden("Dockerfile", files["Dockerfile"])
    check_golden("requirements.lock", files["requirements.lock"])
    check_golden("rocmdoctor.lock", files["rocmdoctor.lock"])


def test_golden_dockerfile_unpinned_apt():
    check_golden("Dockerfile.unpinned", render_dockerfile(sample_spec(apt_pins={}, app_dir=None)))


def test_golden_apptainer():
    check_golden("rocm.def", render_apptainer(sample_spec()))


@pytest.mark.parametrize("access", ["devices", "runtime", "cdi"])
def test_golden_compose(access):
    text = render_compose(RunOptions(access=access, render_gid=110), "rocm-app:1.0")
    check_golden(f"compose.{access}.yaml", text)
    svc = yaml.safe_load(text)["services"]["rocm"]
    assert svc["group_add"] == ["110", "video"]
    assert svc["ipc"] == "host" and svc["shm_size"] == "16g" and svc["security_opt"] == ["seccomp=unconfined"]
    if access == "devices":
        assert svc["devices"] == ["/dev/kfd", "/dev/dri"]
    elif access == "runtime":
        assert svc["runtime"] == "amd" and svc["environment"] == {"AMD_VISIBLE_DEVICES": "all"}
    else:
        assert svc["devices"] == ["amd.com/gpu=all"]


COMPOSE = shutil.which("docker-compose")


@pytest.mark.skipif(COMPOSE is None, reason="docker-compose is not installed (scripts/setup.sh installs it)")
@pytest.mark.parametrize("access", ["devices", "runtime", "cdi"])
def test_compose_file_is_accepted_by_the_real_docker_compose(access, tmp_path):
    """docker-compose itself parses and normalises the file: the GPU fields survive its schema validation."""
    (tmp_path / "docker-compose.yml").write_text(render_compose(RunOptions(access=access, render_gid=110), "app:1.0"))
    proc = subprocess.run([COMPOSE, "config"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    svc = yaml.safe_load(proc.stdout)["services"]["rocm"]
    assert svc["group_add"] == ["110", "video"] and svc["ipc"] == "host" and svc["shm_size"] == "16g"
    assert svc["security_opt"] == ["seccomp=unconfined"] and svc["image"] == "app:1.0"
    if access == "devices":
        assert svc["devices"] == ["/dev/kfd", "/dev/dri"]
    elif access == "runtime":
        assert svc["runtime"] == "amd"
    # the same tool refuses a broken file: the acceptance above means something
    (tmp_path / "docker-compose.yml").write_text(
        render_compose(RunOptions(access=access, render_gid=110), "app:1.0").replace("ipc:", "ipcx:"))
    bad = subprocess.run([COMPOSE, "config", "-q"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert bad.returncode != 0 and "ipcx" in bad.stderr


def test_golden_run_args():
    text = "".join(render_text(RunOptions(access=a, render_gid=110), "rocm-app:1.0") for a in
                   ("devices", "runtime", "cdi"))
    text += render_text(RunOptions(engine="podman", render_gid=110), "rocm-app:1.0")
    check_golden("run-args.txt", text)


@pytest.mark.parametrize("kind", ["github", "gitlab"])
def test_golden_ci(kind):
    text = render_github() if kind == "github" else render_gitlab()
    check_golden(f"ci.{kind}.yml", text)
    doc = yaml.safe_load(text)
    steps = doc["jobs"]["rocm-smoke"]["steps"] if kind == "github" else doc["rocm-smoke"]["script"]
    runs = [s["run"] for s in steps if "run" in s] if kind == "github" else steps
    assert any(r.startswith("docker build") for r in runs)
    smoke = [r for r in runs if r.endswith("rocmdoctor smoke --level 1")]
    assert smoke and "--device /dev/kfd" in smoke[0] and '--group-add "$(stat -c %g /dev/kfd)"' in smoke[0]
    labels = doc["jobs"]["rocm-smoke"]["runs-on"] if kind == "github" else doc["rocm-smoke"]["tags"]
    assert "amd-gpu" in labels


def test_ci_refuses_hostile_labels():
    with pytest.raises(BadInput):
        render_github("img", ("x\n  evil: 1",))
    with pytest.raises(BadInput):
        render_gitlab("Bad Image")


# ------------------------------------------------------------------------------------ reproducibility


def test_same_inputs_same_bytes_twice():
    assert render_context(sample_spec()) == render_context(sample_spec())
    assert render_apptainer(sample_spec()) == render_apptainer(sample_spec())


_SCRIPT = """
import sys
sys.path.insert(0, {tests!r})
from test_container import sample_spec
from rocmdoctor.container.render_docker import render_context
from rocmdoctor.container.render_apptainer import render_apptainer
files = render_context(sample_spec())
sys.stdout.write("".join(files[k] for k in sorted(files)) + render_apptainer(sample_spec()))
"""


def test_same_inputs_same_bytes_across_processes():
    outs = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        proc = subprocess.run([sys.executable, "-c", _SCRIPT.format(tests=str(Path(__file__).parent))],
                              capture_output=True, env=env, check=True)
        outs.append(proc.stdout)
    assert outs[0] == outs[1]
    files = render_context(sample_spec())
    assert outs[0].decode() == "".join(files[k] for k in sorted(files)) + render_apptainer(sample_spec())


def test_requirement_order_does_not_change_output():
    plan = sample_plan()
    plan.requirements.reverse()
    plan.requirements[0].sha256.reverse()
    assert render_context(build_spec(plan, base=BASE, apt_pins={"python3.10": "3.10.12-1~22.04.9",
                                                                "python3.10-venv": "3.10.12-1~22.04.9"},
                                     app_dir="app")) == render_context(sample_spec())


def test_layer_order_keeps_torch_before_app_and_metadata():
    text = render_dockerfile(sample_spec())
    positions = [
        text.index("apt-get install"), text.index("-m venv"),
        text.index("-r /opt/rocmdoctor/requirements.lock"), text.index("-r /opt/rocmdoctor/rocmdoctor.lock"),
        text.index("useradd"), text.index("COPY --chown=1000:1000 app/"), text.index("ENV HSA_OVERRIDE"),
        text.index("LABEL"), text.index("HEALTHCHECK"),
    ]
    assert positions == sorted(positions)
    assert "--require-hashes --only-binary :all: --no-deps" in text
    assert "ARG SOURCE_DATE_EPOCH=0" in text and "ENV SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH}" in text
    assert f"FROM rocm/dev-ubuntu-22.04:6.2.4@{DIGEST}\n" in text
    assert 'org.opencontainers.image.base.name="rocm/dev-ubuntu-22.04:6.2.4"' in text


def test_plan_label_round_trips_with_hashes():
    text = render_dockerfile(sample_spec())
    line = next(ln for ln in text.splitlines() if "io.rocmdoctor.plan=" in ln)
    label = json.loads(line.split("io.rocmdoctor.plan=", 1)[1])
    doc = json.loads(label)
    assert doc["schema"] == "rocmdoctor-plan/1"
    assert doc["hashes"]["torch"] == [_h("a"), _h("b")]
    back = plan_from_json(doc)
    assert {r.pin() for r in back.requirements} == {r.pin() for r in sample_plan().requirements}
    assert sorted(next(r for r in back.requirements if r.name == "torch").sha256) == [_h("a"), _h("b")]


# ------------------------------------------------------------------------------------------ refusals


@pytest.mark.parametrize("ref", ["rocm/pytorch", "rocm/pytorch:latest", "rocm/pytorch:latest@" + DIGEST,
                                 "-rm", "rocm/pytorch@" + DIGEST, "Rocm/Pytorch:1", "x:1@sha256:abc", ""])
def test_unpinned_or_bad_bases_are_refused(ref):
    with pytest.raises(BadInput):
        parse_image(ref)


def test_base_forms_accepted():
    r = parse_image("localhost:5000/rocm/dev-ubuntu-22.04:6.2@" + DIGEST)
    assert (r.name, r.tag, r.digest) == ("localhost:5000/rocm/dev-ubuntu-22.04", "6.2", DIGEST)
    assert parse_image("rocm/dev-almalinux-8:6.2").digest is None


def test_plan_without_hashes_is_refused():
    plan = sample_plan()
    plan.requirements[0].sha256 = []
    with pytest.raises(BadInput, match="--require-hashes"):
        build_spec(plan, base=BASE)


@pytest.mark.parametrize("name,version", [("torch", "1\n--index-url http://evil"), ("-r x", "1"), ("a b", "1")])
def test_hostile_pins_are_refused(name, version):
    plan = sample_plan()
    plan.requirements.append(Requirement(name, version, [_h("f")]))
    with pytest.raises(BadInput):
        build_spec(plan, base=BASE)


def test_plan_without_rocmdoctor_needs_no_healthcheck():
    plan = sample_plan()
    plan.requirements = [r for r in plan.requirements if r.name != "rocmdoctor"]
    with pytest.raises(BadInput, match="--with rocmdoctor=="):
        build_spec(plan, base=BASE)
    text = render_dockerfile(build_spec(plan, base=BASE, healthcheck=False))
    assert "HEALTHCHECK" not in text and "rocmdoctor.lock" not in text


@pytest.mark.parametrize("kw", [{"apt_pins": {"curl": "1"}}, {"apt_pins": {"python3.10": "1 2"}},
                                {"user": "root"}, {"uid": 0}, {"app_dir": "../x"}, {"app_dir": "/abs"}])
def test_bad_spec_options_refused(kw):
    with pytest.raises(BadInput):
        build_spec(sample_plan(), base=BASE, **kw)


def test_dnf_family_from_image_name():
    spec = build_spec(sample_plan(), base="rocm/dev-almalinux-8:6.2", apt_pins={"python3.10": "3.10.13-1.el8"})
    text = render_dockerfile(spec)
    assert "dnf install -y --setopt=install_weak_deps=False python3.10-3.10.13-1.el8" in text
    assert "apt-get" not in text


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_parse_image_never_crashes(text):
    try:
        ref = parse_image(text)
    except BadInput:
        return
    assert ref.tag != "latest" and ref.tag


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_read_lock_never_crashes(text):
    try:
        read_lock(text)
    except BadInput:
        pass


_json = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=20),
                     lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=12), kids, max_size=4),
                     max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(["requirements", "env", "rejected", "hashes", "python", "index_url",
                                        "find_links", "plan", "refused"]), _json, max_size=6),
       st.one_of(st.none(), st.text(max_size=200)))
def test_plan_from_json_never_crashes(data, lock):
    try:
        plan = plan_from_json(data, lock)
        spec = build_spec(plan, base=BASE, healthcheck=False)
    except BadInput:
        return
    assert lint(render_dockerfile(spec)) == []  # whatever got through renders a clean Dockerfile


# ------------------------------------------------------------------------------------------ run flags


def test_run_flags_devices_with_numeric_render_gid():
    assert run_flags(RunOptions(render_gid=109)) == [
        "--device", "/dev/kfd", "--device", "/dev/dri", "--group-add", "109", "--group-add", "video",
        "--security-opt", "seccomp=unconfined", "--ipc=host", "--shm-size", "16g"]


def test_run_flags_toolkit_and_cdi_and_podman():
    assert run_flags(RunOptions(access="runtime"))[:3] == ["--runtime=amd", "-e", "AMD_VISIBLE_DEVICES=all"]
    assert run_flags(RunOptions(access="cdi", gpus="0,1"))[:2] == ["--device", "amd.com/gpu=0,1"]
    assert "keep-groups" in run_flags(RunOptions(engine="podman"))
    doc = render_json(RunOptions(render_gid=5), "img:1", ("python", "-V"))
    assert doc["apptainer"] == ["apptainer", "run", "--rocm", "img:1", "python", "-V"]
    assert doc["argv"][-3:] == ["img:1", "python", "-V"]


@pytest.mark.parametrize("kw", [{"engine": "lxc"}, {"access": "magic"}, {"shm_size": "lots"}, {"gpus": "$(x)"}])
def test_run_flags_refuse_bad_options(kw):
    with pytest.raises(BadInput):
        run_flags(RunOptions(**kw))


def test_render_gid_prefers_kfd_owner_over_etc_group():
    host = Host(device_nodes=[DeviceNode("/dev/kfd", gid=993, group="render")], groups_file={"render": 110})
    assert render_gid_from_host(host)[0] == 993
    assert render_gid_from_host(Host(groups_file={"render": 110, "video": 44}))[0] == 110
    assert render_gid_from_host(Host())[0] is None


def test_render_gid_live_reads_a_root(tmp_path):
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc/group").write_text("video:x:44:\nrender:x:992:alice\n")
    assert render_gid_live(str(tmp_path)) == (992, "render group in /etc/group")
    (tmp_path / "etc/group").write_text("video:x:44:\n")
    assert render_gid_live(str(tmp_path))[0] is None


# ------------------------------------------------------------------------------------------ CLI


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rocmdoctor", "container", *args], capture_output=True,
                          text=True, cwd=cwd, env={**os.environ, "NO_COLOR": "1"})


def _plan_files(tmp_path: Path) -> tuple[Path, Path]:
    plan = sample_plan()
    plan_json = tmp_path / "plan.json"
    plan_json.write_text(json.dumps(plan.to_dict()))
    lock = tmp_path / "install.lock"
    lock.write_text(
        f"--index-url {plan.index_url}\n" + "".join(
            f"{r.name}=={r.version} \\\n" + " \\\n".join(f"    --hash=sha256:{h}" for h in r.sha256) + "\n"
            for r in plan.requirements)
    )
    return plan_json, lock


def test_cli_dockerfile_writes_context_equal_to_library(tmp_path):
    plan_json, lock = _plan_files(tmp_path)
    out = tmp_path / "ctx"
    proc = _cli("dockerfile", "--plan", str(plan_json), "--lock", str(lock), "--base", BASE,
                "--apt-pin", "python3.10=3.10.12-1~22.04.9", "--apt-pin", "python3.10-venv=3.10.12-1~22.04.9",
                "--app", "app", "-o", str(out) + "/", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    for name, text in render_context(sample_spec()).items():
        assert (out / name).read_text() == text


def test_cli_refuses_latest_with_exit_2(tmp_path):
    plan_json, lock = _plan_files(tmp_path)
    proc = _cli("dockerfile", "--plan", str(plan_json), "--lock", str(lock), "--base", "rocm/pytorch:latest",
                cwd=tmp_path)
    assert proc.returncode == 2
    assert "latest" in proc.stderr and "Traceback" not in proc.stderr
    proc = _cli("dockerfile", "--plan", str(plan_json), "--base", "rocm/pytorch", cwd=tmp_path)
    assert proc.returncode == 2 and "no tag" in proc.stderr


def test_cli_plan_without_lock_is_refused_clearly(tmp_path):
    plan_json, _ = _plan_files(tmp_path)
    data = json.loads(plan_json.read_text())
    plan_json.write_text(json.dumps(data))
    proc = _cli("dockerfile", "--plan", str(plan_json), "--base", BASE, cwd=tmp_path)
    assert proc.returncode == 2 and "sha256" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize(("image", "noted"), [
    ("rocm/pytorch:latest", "uses 'latest'"),
    ("rocm/pytorch", "has no tag"),
    ("localhost:5000/team/img", "has no tag"),  # the port is not a tag
    ("rocm/pytorch:latest@sha256:" + "a" * 64, None),  # pinned by digest: the tag is informational
    ("rocm/pytorch:rocm6.2_ubuntu22.04_py3.10_pytorch_release_2.3.0", None),
    ("./img.sif", None),
])
def test_run_args_notes_unpinned_images(image, noted):
    """Running an unpinned image is allowed, but a CI job built on it is not reproducible: say so."""
    from rocmdoctor.container.render_runargs import RunOptions, render_json, render_text

    opts = RunOptions(render_gid=109)
    text = render_text(opts, image)
    notes = render_json(opts, image)["notes"]
    if noted is None:
        assert notes == [] and "#" not in text
    else:
        assert len(notes) == 1 and noted in notes[0] and "@sha256:DIGEST" in notes[0]
        assert text.splitlines()[1] == "# " + notes[0]


def test_cli_run_args_from_bundle_render_gid(tmp_path):
    proc = _cli("run-args", "img:1", "--render-gid", "107", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["schema"] == "rocmdoctor-run-args/1"
    assert doc["argv"][:2] == ["docker", "run"] and "107" in doc["flags"]
    proc = _cli("run-args", "--apptainer", "img.sif", cwd=tmp_path)
    assert proc.stdout.strip() == "apptainer run --rocm img.sif"


def test_cli_lint_exit_codes(tmp_path):
    good = tmp_path / "Dockerfile"
    good.write_text(render_dockerfile(sample_spec()))
    assert _cli("lint", str(good), cwd=tmp_path).returncode == 0
    bad = tmp_path / "Bad"
    bad.write_text("FROM ubuntu\nRUN apt-get install -y curl\n")
    proc = _cli("lint", "--json", str(bad), cwd=tmp_path)
    assert {i["code"] for i in json.loads(proc.stdout)["issues"]} == {"DL3006", "DL3008", "DL3015"}
    assert proc.returncode == 1
    assert _cli("lint", str(tmp_path / "missing"), cwd=tmp_path).returncode == 2


def test_cli_ci_needs_exactly_one_kind(tmp_path):
    assert _cli("ci", cwd=tmp_path).returncode == 2
    proc = _cli("ci", "--gitlab", "--runner-label", "mi300x", cwd=tmp_path)
    assert proc.returncode == 0 and yaml.safe_load(proc.stdout)["rocm-smoke"]["tags"] == ["mi300x"]


def test_generated_files_pass_our_lint():
    assert lint(render_dockerfile(sample_spec())) == []
    assert lint(render_dockerfile(sample_spec(apt_pins={}))) == []  # unpinned: said, and ignored by pragma


FIXTURE = REPO / "fixtures" / "derived-healthy-rx6700xt-override-env"


@pytest.mark.skipif(not FIXTURE.is_dir(), reason="fixture missing")
def test_cli_from_bundle_uses_the_real_resolver(tmp_path):
    """--from BUNDLE: the install resolver picks the wheels and the override env; the lock gives the hashes."""
    proc = subprocess.run([sys.executable, "-m", "rocmdoctor", "install", "torch", "--from", str(FIXTURE),
                           "--python-version", "3.10", "--json"], capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    plan = json.loads(proc.stdout)
    pins = [*plan["requirements"], "rocmdoctor==0.1.0"]
    lock = tmp_path / "install.lock"
    lock.write_text(f"--index-url {plan['index_url']}\n" + "".join(
        f"{p} --hash=sha256:{_h('0123456789abcdef'[i % 16])}\n" for i, p in enumerate(pins)))
    proc = _cli("dockerfile", "--from", str(FIXTURE), "--python", "3.10", "--lock", str(lock), "--base", BASE,
                "-o", str(tmp_path / "ctx") + "/", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    text = (tmp_path / "ctx" / "Dockerfile").read_text()
    for key, value in plan["env"].items():
        assert f'{key}="{value}"' in text
    locked = read_lock((tmp_path / "ctx" / "requirements.lock").read_text())[2]
    assert {f"{n}=={v}" for n, (v, _) in locked.items()} == set(plan["requirements"])
    assert "rocmdoctor==0.1.0" in (tmp_path / "ctx" / "rocmdoctor.lock").read_text()


def test_cli_from_unreadable_bundle_exit_2(tmp_path):
    proc = _cli("dockerfile", "--from", str(tmp_path / "nope"), "--base", BASE, cwd=tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr


def test_cli_apptainer_to_file_path_honours_source_date_epoch(tmp_path):
    plan_json, lock = _plan_files(tmp_path)
    target = tmp_path / "out" / "my.def"
    proc = subprocess.run(
        [sys.executable, "-m", "rocmdoctor", "container", "apptainer", "--plan", str(plan_json), "--lock", str(lock),
         "--base", BASE, "-o", str(target)],
        capture_output=True, text=True, cwd=tmp_path, env={**os.environ, "SOURCE_DATE_EPOCH": "1700000000"})
    assert proc.returncode == 0, proc.stderr
    text = target.read_text()
    assert "export SOURCE_DATE_EPOCH=1700000000" in text
    assert "org.opencontainers.image.created 2023-11-14T22:13:20Z" in text
    assert (target.parent / "requirements.lock").is_file() and (target.parent / "rocmdoctor.lock").is_file()
