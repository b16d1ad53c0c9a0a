"""Hostile fleet nodes (issue 13) against real sshd daemons on 127.0.0.x (tests/fleet_harness.py).

One node's markup (`[/]`, `[link=…]`) in its driver/kernel/dkms strings or stray stdout must neither crash
the audit nor become a link, and must not stop the JSON/HTML/Prometheus files; one node's 3 MB gzip bomb
must not take the controller's memory nor stall another host's timeout; SIGTERM keeps the partial report.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fleet_harness import Fleet, HostSpec, sshd_available
from hostile_helpers import RSS_BOUND_MB, gzip_bomb, run_measured

pytestmark = [
    pytest.mark.sshd,
    pytest.mark.skipif(not sshd_available(), reason="needs /usr/sbin/sshd (apt-get install openssh-server)"),
]

MARKUP = "[/][link=https://evil.example/]click[/link][bold red]"
ESC = "\x1b]8;;https://evil.example/\x1b\\x\x1b]8;;\x1b\\\x1b]0;pwned\x07"
TIMEOUT = 8


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    base = tmp_path_factory.mktemp("hostilefleet")
    bomb = gzip_bomb(base / "bomb.tar.gz", "rocmdoctor-capture/logs/zeros.log", 3 << 30)
    stray = base / "stray.txt"
    stray.write_text(f"{MARKUP} {ESC}\nmore {MARKUP}\n")
    specs = [
        HostSpec("good1"),
        HostSpec("good2"),
        HostSpec("marked", root_args={"driver": f"6.3.6{MARKUP}", "kernel": f"6.5.0-14-generic{MARKUP}"},
                 files={".cmd/dkms-status.txt": f"amdgpu/6.3.6-1697589.22.04, 6.5.0-14-generic, x86_64: "
                                                f"built {MARKUP}\n"}),
        HostSpec("stray", "reply", reply=str(stray)),
        HostSpec("bomb", "reply", reply=str(bomb)),
        HostSpec("hang", "hang"),
    ]
    f = Fleet(base, specs).start()
    yield f
    f.stop()


def test_markup_stray_output_and_a_gzip_bomb_are_inert_and_bounded(fleet, tmp_path):
    out = tmp_path / "out"
    m = run_measured("fleet", "audit", "--ssh-config", str(fleet.ssh_config), "good1", "good2", "marked", "stray",
                     "bomb", "hang", "--timeout", str(TIMEOUT), "--json", str(out / "f.json"),
                     "--html", str(out / "f.html"), "--prometheus", str(out / "prom"), timeout=120)
    print(f"fleet with bomb+markup: rc={m.rc} rss={m.rss_mb:.0f}MB {m.seconds:.2f}s")
    assert m.rc == 1, m.err[-3000:]
    assert "Traceback" not in m.err and "internal error" not in m.err
    assert m.rss_mb < RSS_BOUND_MB
    # the markup is printed as text, never parsed: no OSC 8 hyperlink, no escape sequence at all
    assert "[/]" in m.out and "[link=https://evil.example/]" in m.out
    assert "\x1b" not in m.out and "\x07" not in m.out
    doc = json.loads((out / "f.json").read_text())
    hosts = {h["name"]: h for h in doc["hosts"]}
    assert hosts["good1"]["status"] == hosts["marked"]["status"] == "ok"
    assert hosts["stray"]["status"] == "bad-capture"
    assert hosts["bomb"]["status"] == "bad-capture"
    assert "over the limit bundle-bytes" in hosts["bomb"]["detail"], hosts["bomb"]
    # the hung host was killed at its own timeout: the bomb next to it did not stall the event loop
    assert hosts["hang"]["status"] == "timeout"
    assert hosts["hang"]["seconds"] < TIMEOUT + 3, hosts["hang"]
    text = json.dumps(doc)
    assert "\\u001b" not in text and "\\u0007" not in text
    html = (out / "f.html").read_text()
    assert "[link=https://evil.example/]" in html and "evil.example/\"" not in html and "\x1b" not in html
    assert 'href="https://evil' not in html  # only the matrix's own documentation URLs are links
    prom = (out / "prom" / "rocmdoctor.prom").read_text()
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f]", prom)
    sample = re.compile(r'^[a-z_]+(\{(?:[a-z]+="(?:[^"\\\n]|\\.)*",?)*\})? [0-9.e+-]+$')
    for line in prom.splitlines():
        assert line.startswith("# ") or sample.match(line), line


def test_the_files_are_written_even_if_the_terminal_fails(fleet, tmp_path):
    # the terminal renderer crashes (as it did on a `[/]`): the JSON/HTML/Prometheus files are still written
    code = (
        "import sys\nfrom rocmdoctor.fleet import report\n"
        "def boom(*a, **k):\n    raise RuntimeError('terminal broke')\n"
        "report.print_terminal = boom\nfrom rocmdoctor.cli.app import main\nsys.exit(main(sys.argv[1:]))\n"
    )
    out = tmp_path / "o"
    p = subprocess.run([sys.executable, "-c", code, "fleet", "audit", "--ssh-config", str(fleet.ssh_config),
                        "good1", "--timeout", str(TIMEOUT), "--json", str(out / "f.json"), "--html",
                        str(out / "f.html"), "--prometheus", str(out / "prom")],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 3, p.stderr[-2000:]
    assert json.loads((out / "f.json").read_text())["hosts"][0]["status"] == "ok"
    assert (out / "f.html").stat().st_size and (out / "prom" / "rocmdoctor.prom").stat().st_size


def _ssh_children(pid: int) -> list[str]:
    out = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            ppid = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
            if ppid == pid:
                out.append((d / "cmdline").read_bytes().replace(b"\0", b" ").decode())
        except (OSError, ValueError, IndexError):
            continue
    return [c for c in out if c.startswith("ssh ")]


def test_sigterm_keeps_the_partial_report_like_ctrl_c(fleet, tmp_path):
    p = subprocess.Popen([sys.executable, "-m", "rocmdoctor", "fleet", "audit", "--ssh-config",
                          str(fleet.ssh_config), "good1", "hang", "--timeout", "60", "--json",
                          str(tmp_path / "t.json")], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    seen_good1 = False  # good1's ssh must have run and gone, not merely not have started yet
    while time.monotonic() < deadline:
        kids = _ssh_children(p.pid)
        seen_good1 = seen_good1 or any("good1" in c for c in kids)
        if seen_good1 and kids and all("hang" in c for c in kids):
            break
        time.sleep(0.02)
    else:
        p.kill()
        pytest.fail("the audit never reached the state with only the hung host in flight")
    os.kill(p.pid, signal.SIGTERM)
    out, err = p.communicate(timeout=30)
    assert p.returncode == 130, err
    assert "interrupted" in out
    doc = json.loads((tmp_path / "t.json").read_text())
    assert {h["name"]: h["status"] for h in doc["hosts"]} == {"good1": "ok", "hang": "interrupted"}
    assert not _ssh_children(p.pid)
