"""`capture --redact` against a planted dmesg, environment and config set (issue 13): URL credentials (also in
allow-listed variables), IPv4/IPv6 addresses, private host names, unlabelled serials and token=/key=/secret=
values must not survive anywhere in the bundle bytes, while what the checks need stays verbatim."""

from __future__ import annotations

import gzip
import io
import json
import tarfile

from capture_helpers import build_fake_root

from rocmdoctor import capture
from rocmdoctor.bundle import load_host

PLANTED = {
    "url-cred": "s3cr3tpw",
    "url-user": "deployuser",
    "ipv4": "10.20.30.40",
    "ipv4-public": "203.0.113.77",
    "ipv6": "2001:db8:85a3::8a2e:370:7334",
    "ipv6-full": "fe80:0:0:0:202:b3ff:fe1e:8329",
    "fqdn": "gpu-node-17.hpc.corp.example.com",
    "fqdn2": "storage01.cluster.internal",
    "disk-serial": "S4EWNX0N123456B",
    "token": "ghp_abcdefABCDEF0123456789",
    "api-key": "AKIAIOSFODNN7EXAMPLE",
    "secret": "hunter2hunter2",
    "password": "Tr0ub4dor",
}


def _plant(root) -> None:
    p = PLANTED
    cmd = root / ".cmd"
    (cmd / "dmesg.txt").write_text(
        "[    1.0] amdgpu 0000:c1:00.0: amdgpu: SMU is initialized successfully!\n"
        f"[    3.2] ata1.00: ATA-11: Samsung SSD 870 EVO 1TB, {p['disk-serial']}, SVT02B6Q, max UDMA/133\n"
        f"[    5.0] igb 0000:05:00.0 enp5s0: link up, address {p['ipv4']} gateway {p['ipv4-public']}\n"
        f"[    5.1] IPv6: ADDRCONF(NETDEV_CHANGE): enp5s0 {p['ipv6']} and {p['ipv6-full']}\n"
        f"[    6.0] nfs: server {p['fqdn']} not responding, still trying\n"
        f"[    6.1] nfs: mounted {p['fqdn2']}:/export token={p['token']} with key={p['api-key']}\n"
        "[    7.0] amdgpu: ROCm 6.0 see https://rocm.docs.amd.com/en/latest/ and https://github.com/ROCm/ROCm\n")
    (cmd / "env.txt").write_text(
        f"PATH=/usr/bin\nHSA_OVERRIDE_GFX_VERSION=9.0.10\n"
        f"ROCM_REPO=https://{p['url-user']}:{p['url-cred']}@repo.corp.example.com/rocm/\n"
        f"PYTORCH_INDEX=https://{p['url-user']}:{p['url-cred']}@pypi.corp.example.com/simple secret={p['secret']}\n"
        f"AMD_LOG_LEVEL=1\n")
    conf = root / "etc" / "modprobe.d"
    conf.mkdir(parents=True, exist_ok=True)
    (conf / "site.conf").write_text(f"# fetched from http://{p['ipv4']}:8080/ by ansible (password={p['password']})\n"
                                    "options amdgpu ppfeaturemask=0xffffffff\n")


def _bundle(tmp_path, monkeypatch, redact: bool = True):
    root = tmp_path / "host"
    if not root.exists():
        build_fake_root(root)
        _plant(root)
    monkeypatch.setenv("ROCMDOCTOR_ROOT", str(root))
    out = tmp_path / f"b-{redact}.tar.gz"
    capture.capture_to_tar(str(out), redact=redact, skip=("torch-probe",))
    with tarfile.open(fileobj=io.BytesIO(out.read_bytes())) as tar:
        files = {m.name.split("/", 1)[1]: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}
    return files, gzip.decompress(out.read_bytes()), out


def test_planted_secrets_do_not_survive_redaction(tmp_path, monkeypatch):
    _files, raw, _ = _bundle(tmp_path, monkeypatch)
    leaks = {k: v for k, v in PLANTED.items() if v.lower().encode() in raw.lower()}
    assert not leaks
    for part in ("corp.example.com", "cluster.internal"):
        assert part.encode() not in raw


def test_redaction_keeps_public_domains_and_what_checks_need(tmp_path, monkeypatch):
    files, _, out = _bundle(tmp_path, monkeypatch)
    dmesg = files["cmd/dmesg.txt"].decode()
    assert "https://rocm.docs.amd.com/en/latest/" in dmesg and "https://github.com/ROCm/ROCm" in dmesg
    assert "amdgpu 0000:c1:00.0" in dmesg and "SMU is initialized" in dmesg
    env = files["env.txt"].decode()
    assert "HSA_OVERRIDE_GFX_VERSION=9.0.10" in env and "AMD_LOG_LEVEL=1" in env
    assert "https://cred-" in env  # the URL stays a URL, its user-info a placeholder
    assert "ppfeaturemask=0xffffffff" in files["root/etc/modprobe.d/site.conf"].decode()
    assert json.loads(files["manifest.json"])["redacted"] is True
    host = load_host(out)
    assert host.kernel.release == "6.5.0-14-generic" and host.amdgpu_version.value == "6.3.6"
    assert host.env.get("HSA_OVERRIDE_GFX_VERSION") == "9.0.10"
    # the same judgement as the unredacted bundle of the same host
    from rocmdoctor.diagnose import judge_host

    _, _, plain = _bundle(tmp_path, monkeypatch, redact=False)
    verdict = sorted((f.id, f.severity.value) for f in judge_host(host))
    assert verdict == sorted((f.id, f.severity.value) for f in judge_host(load_host(plain)))
