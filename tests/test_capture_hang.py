"""Every tool hangs: the capture still finishes within its budget, records timed_out, leaves no process."""

from __future__ import annotations

import os
import time
from pathlib import Path

from capture_helpers import fake_bin

from rocmdoctor import capture

TOOLS = ["uname", "id", "rocminfo", "rocm-smi", "amd-smi", "rocm_agent_enumerator", "dkms", "hipconfig", "lspci",
         "dmesg", "mokutil", "docker"]


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def test_every_command_hangs_capture_finishes_within_budget(tmp_path, monkeypatch):
    pids = tmp_path / "pids"
    pids.mkdir()
    # each fake tool starts a grandchild that ignores SIGTERM, records both pids, then waits forever
    body = (f"trap '' TERM\nsleep 1000 &\necho $! > {pids}/$$.child\necho $$ > {pids}/$$.self\n"
            "echo partial output\nwait")
    bindir = fake_bin(tmp_path / "bin", [*TOOLS, "python"], body)
    monkeypatch.setenv("PATH", f"{bindir}:/usr/bin:/bin")
    monkeypatch.delenv("ROCMDOCTOR_ROOT", raising=False)
    budget = 3.0
    start = time.monotonic()
    files, manifest = capture.collect(python=str(bindir / "python"), timeout=1.0, budget=budget,
                                      root=str(tmp_path / "noroot"))
    elapsed = time.monotonic() - start
    assert elapsed < budget + 2.0, elapsed
    ran = [e for e in manifest["commands"] if not e.get("internal")]
    assert ran and all(e["timed_out"] for e in ran), [e for e in ran if not e["timed_out"]]
    assert all(Path(e["argv"][0]).parent == bindir for e in ran)
    assert b"partial output" in files["cmd/rocminfo.txt"]
    time.sleep(0.2)
    recorded = [int(p.read_text()) for p in pids.iterdir()]
    assert len(recorded) >= 2 * len(ran) - 2  # nearly all started before the deadline
    assert not [pid for pid in recorded if _alive(pid)]


def test_budget_shorter_than_timeout(tmp_path, monkeypatch):
    bindir = fake_bin(tmp_path / "bin", ["rocminfo", "dkms"], "exec sleep 1000")
    monkeypatch.setenv("PATH", f"{bindir}:{os.environ['PATH']}")
    start = time.monotonic()
    files, manifest = capture.collect(timeout=100.0, budget=1.0, root=str(tmp_path / "noroot"),
                                      skip=(*capture.QUICK_SKIP, "torch-probe", "docker-info"))
    assert time.monotonic() - start < 3.0
    timed = {Path(e["argv"][0]).name for e in manifest["commands"] if e["timed_out"]}
    assert timed == {"rocminfo", "dkms"}
    assert files["cmd/rocminfo.txt"] == b""
    assert next(e for e in manifest["commands"] if e["file"] == "cmd/uname-a.txt")["exit"] == 0


def test_missing_tool_and_unrunnable_tool(tmp_path, monkeypatch):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    broken = bindir / "rocminfo"
    broken.write_text("#!/nonexistent/interpreter\n")
    broken.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}:/usr/bin:/bin")
    files, manifest = capture.collect(root=str(tmp_path / "noroot"),
                                      skip=(*capture.QUICK_SKIP, "torch-probe", "docker-info", "dmesg"))
    rocminfo = next(e for e in manifest["commands"] if e["file"] == "cmd/rocminfo.txt")
    assert rocminfo["exit"] == 127 and not rocminfo["timed_out"]
    assert b"cannot run" in files["cmd/rocminfo.stderr"]
    amd_smi = [e for e in manifest["commands"] if Path(e["argv"][0]).name == "amd-smi"]
    assert amd_smi and all(e["missing"] and e["file"] is None for e in amd_smi)


def test_output_is_capped_and_closed_pipes_do_not_hide_a_hang(tmp_path, monkeypatch):
    bindir = fake_bin(tmp_path / "bin", ["rocminfo"], "head -c 100000 /dev/zero")
    fake_bin(bindir, ["dkms"], "echo started; exec >&- 2>&-; sleep 1000")  # closes its output, keeps running
    monkeypatch.setenv("PATH", f"{bindir}:/usr/bin:/bin")
    monkeypatch.setattr(capture, "MAX_OUTPUT_BYTES", 1000)
    files, manifest = capture.collect(timeout=1.0, budget=5.0, root=str(tmp_path / "noroot"),
                                      skip=(*capture.QUICK_SKIP, "torch-probe", "docker-info", "dmesg"))
    rocminfo = next(e for e in manifest["commands"] if e["file"] == "cmd/rocminfo.txt")
    assert files["cmd/rocminfo.txt"] == b"\0" * 1000
    assert rocminfo["truncated"] is True and rocminfo["exit"] == 0 and not rocminfo["timed_out"]
    dkms = next(e for e in manifest["commands"] if e["file"] == "cmd/dkms-status.txt")
    assert dkms["timed_out"] is True and files["cmd/dkms-status.txt"] == b"started\n"
