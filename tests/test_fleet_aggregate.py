"""Fleet aggregation and outputs on synthetic host results: fingerprints, drift, drain, JSON, Prometheus, HTML."""

from __future__ import annotations

import io
import json
import re
import tarfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from rocmdoctor.fleet import report as report_mod
from rocmdoctor.fleet.aggregate import HostAudit, aggregate, fingerprint, fingerprint_id
from rocmdoctor.fleet.hosts import Target
from rocmdoctor.fleet.transport import Outcome, SshSettings, check_targz, classify, ssh_argv
from rocmdoctor.model import Fact, Finding, GpuInfo, Host, KernelInfo, Severity, Source, TorchInfo


def _host(kernel="6.5.0", rocm="6.0.2", driver="6.3.6", gpus=4, gfx="gfx90a", torch="2.3.0+rocm6.0") -> Host:
    return Host(
        kernel=KernelInfo(release=kernel),
        rocm_version=Fact(rocm, Source("x")),
        amdgpu_version=Fact(driver, Source("y")),
        gpus=[GpuInfo(index=i, gfx=gfx) for i in range(gpus)],
        torch=TorchInfo(version=torch, hip="6.0.32830"),
    )


def _audit(name, **kw) -> HostAudit:
    return HostAudit(name=name, status="ok", host=_host(**kw))


def test_fingerprint_fields():
    fp = fingerprint(_host())
    assert fp == {"kernel": "6.5.0", "driver": "6.3.6", "rocm": "6.0.2", "torch": "2.3.0+rocm6.0",
                  "torch_hip": "6.0.32830", "gpus": "gfx90a x4"}
    assert fingerprint_id(fp) == fingerprint_id(dict(fp))
    assert fingerprint_id(fp) != fingerprint_id({**fp, "kernel": "6.8.0"})


def test_groups_drift_vs_majority_and_gpu_missing_drains():
    audits = [_audit(f"n{i}") for i in range(1, 5)]
    audits.append(_audit("n5", kernel="6.8.0"))
    audits.append(_audit("n6", gpus=3))
    audits.append(HostAudit(name="n7", status="unreachable", detail="Connection refused"))
    r = aggregate(audits)
    assert r.reference_kind == "majority"
    assert [len(g.hosts) for g in r.groups] == [4, 1, 1] and r.groups[0].reference
    by_id = {f.id: f for f in r.findings}
    assert by_id["fleet.drift-kernel"].hosts == ["n5"] and by_id["fleet.drift-kernel"].severity == Severity.WARN
    assert by_id["fleet.gpu-missing"].hosts == ["n6"] and by_id["fleet.gpu-missing"].severity == Severity.FAIL
    assert "1 x gfx90a missing" in by_id["fleet.gpu-missing"].details["n6"]
    assert by_id["fleet.unreachable"].hosts == ["n7"]
    assert [h for h, _, _ in r.drain] == ["n6", "n7"]
    assert "Connection refused" in dict((h, why) for h, why, _ in r.drain)["n7"]
    assert r.exit_code == 1


def test_no_majority_on_tie_but_baseline_decides():
    audits = [_audit("a1"), _audit("a2", kernel="6.8.0")]
    r = aggregate(audits)
    assert r.reference_kind == "none" and not any(f.id.startswith("fleet.drift") for f in r.findings)
    assert r.exit_code == 0
    r2 = aggregate([_audit("a1"), _audit("a2", kernel="6.8.0")], baseline=fingerprint(_host(kernel="6.8.0")))
    drift = {f.id: f.hosts for f in r2.findings}
    assert r2.reference_kind == "baseline" and drift["fleet.drift-kernel"] == ["a1"]


def test_per_finding_host_lists_are_compressed():
    audits = []
    for i in (3, 17, 18, 19, 20):
        a = _audit(f"node{i:03d}")
        if i != 20:
            a.findings.append(Finding(id="torch.arch-missing", severity=Severity.FAIL, title="t"))
        audits.append(a)
    r = aggregate(audits)
    f = next(f for f in r.findings if f.id == "torch.arch-missing")
    assert f.hostset == "node[003,017-019]"


def test_json_document_is_versioned_and_complete(tmp_path: Path):
    r = aggregate([_audit("n1"), _audit("n2"), HostAudit(name="n3", status="timeout", detail="killed")])
    p = tmp_path / "out" / "fleet.json"
    report_mod.write_json(r, p)
    d = json.loads(p.read_text())
    assert d["schema"] == "rocmdoctor-fleet/1"
    assert {h["name"] for h in d["hosts"]} == {"n1", "n2", "n3"}
    assert d["groups"][0]["hosts"] == "n[1-2]" and d["groups"][0]["reference"] is True
    assert d["findings"][0]["id"] == "fleet.timeout" and d["findings"][0]["hosts"] == "n3"
    assert d["drain"] == [{"host": "n3", "reason": "fleet.timeout: killed", "severity": "fail"}]
    assert d["summary"]["exit"] == 1 and d["summary"]["down"] == 1


_PROM_LINE = re.compile(r'^[a-z_]+(\{([a-z_]+="(?:[^"\\]|\\.)*",?)*\})? -?[0-9.e+]+$')


def test_prometheus_textfile_is_valid_and_unique(tmp_path: Path):
    a = _audit('we"ird\\host')
    a.findings += [Finding(id="gpu.x", severity=Severity.FAIL, title="t")] * 3
    r = aggregate([a, HostAudit(name="down1", status="auth-failed", detail="Permission denied")])
    path = report_mod.write_prometheus(r, tmp_path)
    text = path.read_text()
    samples = [ln for ln in text.splitlines() if not ln.startswith("#")]
    assert all(_PROM_LINE.match(ln) for ln in samples), samples
    assert len(samples) == len(set(ln.rsplit(" ", 1)[0] for ln in samples))  # no duplicate series
    assert 'rocmdoctor_check{host="we\\"ird\\\\host",check="gpu.x",severity="fail"} 1' in samples
    assert 'rocmdoctor_host_up{host="down1"} 0' in samples
    assert any(ln.startswith("rocmdoctor_audit_timestamp_seconds ") for ln in samples)
    assert not list(tmp_path.glob(".rocmdoctor.prom*"))  # temp file renamed away


def test_html_escapes_host_text():
    a = HostAudit(name="n1", status="bad-capture", detail="<script>alert(1)</script>")
    html = report_mod.html_text(aggregate([a]))
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "http://" not in html and "https://" not in html


def test_ssh_argv_forces_batchmode_and_puts_host_after_double_dash():
    argv = ssh_argv(SshSettings(connect_timeout=7), Target("node1"))
    assert argv[:1] == ["ssh"] and "-F" not in argv
    assert "BatchMode=yes" in argv and "ConnectTimeout=7" in argv
    assert not any("StrictHostKeyChecking" in a for a in argv)
    assert argv[-3:] == ["--", "node1", "sh -s"]
    argv = ssh_argv(SshSettings(config=Path("/c"), accept_new_host_keys=True),
                    Target("n", address="10.0.0.1", port=2222, user="ops", identity="/k"))
    assert argv[1:3] == ["-F", "/c"] and "StrictHostKeyChecking=accept-new" in argv
    assert argv[-3:] == ["--", "10.0.0.1", "sh -s"] and argv[argv.index("-p"):argv.index("-p") + 2] == ["-p", "2222"]


def _targz(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def test_check_targz_accepts_whole_and_rejects_cut_or_junk():
    whole = _targz({"rocmdoctor-capture/manifest.json": b"{}" * 5000})
    assert check_targz(whole) is None
    assert "ended early" in (check_targz(whole[: len(whole) // 2]) or "")
    assert "not a tar.gz" in (check_targz(b"Traceback (most recent call last)\n") or "")
    assert check_targz(b"") is not None


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=2000), st.sampled_from([0, 1, 255, None]), st.text(max_size=200))
def test_classify_never_raises(data, rc, err):
    res = classify(Target("h"), Outcome(rc=rc, stdout=data, stderr=err, seconds=0.1), 5)
    assert res.status in {"ok", "unreachable", "auth-failed", "timeout", "bad-capture"}


def test_classify_statuses():
    t = Target("h")
    assert classify(t, Outcome(255, b"", "root@h: Permission denied (publickey).", 0.1), 5).status == "auth-failed"
    assert classify(t, Outcome(255, b"", "Host key verification failed.", 0.1), 5).status == "auth-failed"
    assert classify(t, Outcome(255, b"", "connect to host h port 22: Connection refused", 0.1), 5).status \
        == "unreachable"
    assert classify(t, Outcome(None, b"", "", 5.0, timed_out=True), 5).status == "timeout"
    assert classify(t, Outcome(0, b"junk", "", 0.1), 5).status == "bad-capture"
    assert classify(t, Outcome(0, _targz({"a": b"1"}), "", 0.1), 5).status == "ok"
