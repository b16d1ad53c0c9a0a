"""`rocmdoctor fleet k8s` manifests and `fleet node-check --prometheus`, checked with the real tools:
kubernetes-validate (the Kubernetes OpenAPI schemas, offline, strict) and prometheus_client's text parser
(what node_exporter's textfile collector accepts)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

kv = pytest.importorskip("kubernetes_validate")
parser = pytest.importorskip("prometheus_client.parser")
yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parent.parent
HEALTHY = ROOT / "fixtures" / "derived-healthy-mi210-x4-rocm6.2.2"
BROKEN = ROOT / "fixtures" / "rx7900xtx-dkms-build-fails-kernel-6.5"
IMAGE = "ghcr.io/example/rocmdoctor:0.1.0"


def rd(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rocmdoctor", *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **(env or {})})


def docs(*extra: str) -> list[dict]:
    r = rd("fleet", "k8s", "--image", IMAGE, *extra)
    assert r.returncode == 0, r.stderr
    return [d for d in yaml.safe_load_all(r.stdout) if d is not None]


@pytest.mark.parametrize("version", ["1.28", "1.31", kv.latest_version()])
def test_manifests_validate_against_the_kubernetes_schemas(version):
    out = docs("--expect-gpus", "8", "--node-selector", "amd.com/gpu.family=MI300")
    assert [d["kind"] for d in out] == ["ConfigMap", "DaemonSet"]
    for d in out:
        kv.validate(d, version, strict=True)  # raises ValidationError on any unknown or mistyped field


def test_other_namespace_drops_the_node_critical_priority():
    out = docs("--namespace", "gpu-health")
    ds = out[1]
    assert ds["metadata"]["namespace"] == "gpu-health" and "priorityClassName" not in ds["spec"]["template"]["spec"]
    kv.validate(ds, kv.latest_version(), strict=True)


def test_npd_config_in_the_configmap_is_the_documented_contract():
    cm = docs("--expect-gpus", "8")[0]
    cfg = json.loads(cm["data"]["rocmdoctor.json"])
    assert cfg["plugin"] == "custom" and cfg["pluginConfig"]["max_output_length"] == 80
    rule = cfg["rules"][0]
    assert rule["condition"] == cfg["conditions"][0]["type"] and rule["type"] == "permanent"
    assert rule["args"] == ["fleet", "node-check", "--max-length", "80", "--expect-gpus", "8"]


@pytest.mark.skipif(not HEALTHY.is_dir() or not BROKEN.is_dir(), reason="fixtures not present")
def test_daemonset_command_runs_and_writes_a_parseable_textfile(tmp_path):
    """Run the container's exact command line once (loop body), with this checkout's rocmdoctor and a bundle."""
    ds = docs()[1]
    c = ds["spec"]["template"]["spec"]["containers"][0]
    assert c["command"][:2] == ["/bin/sh", "-c"] and c["command"][3] == "--"
    argv = c["command"][4:]
    prom_idx = argv.index("--prometheus") + 1
    shim = tmp_path / "rocmdoctor"
    shim.write_text(f"#!/bin/sh\nexec {sys.executable} -m rocmdoctor \"$@\"\n")
    shim.chmod(0o755)
    for fixture, status in ((HEALTHY, 0), (BROKEN, 1)):
        out = tmp_path / f"{fixture.name}.prom"
        run = [str(shim), *argv[1:prom_idx], str(out), "--from", str(fixture)]
        r = subprocess.run(run, capture_output=True, text=True, timeout=120)
        assert r.returncode == status, r.stdout + r.stderr
        fams = {f.name: f for f in parser.text_string_to_metric_families(out.read_text())}
        assert fams["rocmdoctor_node_check_status"].samples[0].value == status
        found = {(s.labels["check"], s.labels["severity"]) for s in fams["rocmdoctor_node_check_finding"].samples}
        assert (status == 1) == any(sev == "fail" for _c, sev in found)


def test_node_check_textfile_fails_closed_and_replaces_atomically(tmp_path):
    out = tmp_path / "node.prom"
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    r = rd("fleet", "node-check", "--from", str(HEALTHY), "--expect", str(bad), "--prometheus", str(out))
    assert r.returncode == 2
    fams = {f.name: f for f in parser.text_string_to_metric_families(out.read_text())}
    assert fams["rocmdoctor_node_check_status"].samples[0].value == 2
    r = rd("fleet", "node-check", "--from", str(HEALTHY), "--expect-gpus", "4", "--prometheus", str(out))
    assert r.returncode == 0, r.stdout + r.stderr
    fams = {f.name: f for f in parser.text_string_to_metric_families(out.read_text())}
    assert fams["rocmdoctor_node_check_status"].samples[0].value == 0
    assert fams["rocmdoctor_node_gpus"].samples[0].value == 4
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".node.prom")] == []  # no temp file left


def test_label_values_are_escaped():
    from rocmdoctor.fleet.healthcheck import prometheus_text
    from rocmdoctor.model import Finding, Severity

    text = prometheus_text([Finding(id='x"y\\z\nw', severity=Severity.FAIL, title="t")], 1, 0, now=1.0)
    (fam,) = [f for f in parser.text_string_to_metric_families(text) if f.name == "rocmdoctor_node_check_finding"]
    # quote and backslash survive escaping; a newline is folded to a space by the sanitising boundary
    # (rocmdoctor.sanitize: host-derived text is one line), so it can never start a new sample line
    assert fam.samples[0].labels["check"] == 'x"y\\z w'
    assert len([ln for ln in text.splitlines() if ln.startswith("rocmdoctor_node_check_finding{")]) == 1


@pytest.mark.parametrize("args,msg", [
    (["--image", "rocmdoctor"], "pinned"),
    (["--image", "ghcr.io/x/rocmdoctor:latest"], "latest"),
    (["--image", IMAGE, "--namespace", "Bad_NS"], "namespace"),
    (["--image", IMAGE, "--node-selector", "nokey"], "KEY=VALUE"),
    (["--image", IMAGE, "--node-selector", "a=b c"], "label"),
    (["--image", IMAGE, "--interval", "5"], "interval"),
])
def test_bad_options_are_usage_errors(args, msg):
    r = rd("fleet", "k8s", *args)
    assert r.returncode == 2 and msg in (r.stdout + r.stderr) and r.stdout.count("---") == 0


def test_generated_npd_config_is_the_one_docs_fleet_md_shows():
    import re

    from rocmdoctor.fleet import k8s

    text = (ROOT / "docs" / "fleet.md").read_text()
    block = re.search(r"<!-- npd-config -->\s*```json\n(.*?)```", text, re.S)
    assert block is not None
    assert k8s.npd_config(k8s.K8sOptions(image=IMAGE)) == json.loads(block.group(1))
