"""``fleet audit --live``'s host-side driver, run for real here with ``sh`` (the same bytes ssh would carry):
a hung GPU program is killed with its process group and reported as ``smoke.timeout`` without losing what was
printed; the node's TunableOp setting does not reach the programs; guessed GPUs are dropped like locally."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time

import pytest

from rocmdoctor import smoke
from rocmdoctor.fleet import live
from rocmdoctor.model import Severity

needs_torch = pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="needs the CPU torch")


def _drive(prog_text: str, limit: float, **env: str) -> tuple[list[dict], float]:
    """The payload through sh, with this interpreter as the host's python3."""
    bindir = os.path.dirname(sys.executable)
    full = {**{k: v for k, v in os.environ.items() if not k.startswith("ROCMDOCTOR_SMOKE_")},
            "PATH": bindir + os.pathsep + os.environ.get("PATH", ""), **env}
    t0 = time.monotonic()
    proc = subprocess.run(["sh"], input=live.payload(prog_text, limit), capture_output=True, env=full, timeout=120)
    lines = [json.loads(x) for x in proc.stdout.decode().splitlines() if x.startswith("{")]
    return lines, time.monotonic() - t0


@needs_torch
def test_a_hung_gpu_program_is_killed_with_its_group_and_judged_as_timeout() -> None:
    lines, took = _drive(smoke.PROGRAM.read_text(), 3, ROCMDOCTOR_SMOKE_FAULT="hang")
    end = [x for x in lines if "exit" in x]
    assert end and end[0]["timed_out"] is True and end[0]["dev"] == 0, lines
    assert took < 20  # not the fault's 600 s sleep, nor the grandchild holding the pipes
    assert any('"fault"' in x.get("line", "") for x in lines)  # what it printed before the hang is kept
    found = {f.id: f for f in live.judge_records(lines)}
    assert found["smoke.timeout"].severity == Severity.FAIL


@needs_torch
def test_the_nodes_tunableop_does_not_reach_the_programs() -> None:
    probe = ("import json, os\nprint(json.dumps({'type': 'env', 'tunableop': os.environ.get("
             "'PYTORCH_TUNABLEOP_ENABLED')}))\n")
    lines, _ = _drive(probe, 30, PYTORCH_TUNABLEOP_ENABLED="1")
    recs = [json.loads(x["line"]) for x in lines if "line" in x]
    assert recs == [{"type": "env", "tunableop": "0"}]


def test_guessed_gpus_torch_does_not_count_are_dropped() -> None:
    enum = {"type": "enumeration", "available": True, "count": 1, "hip": "6.2", "env": {},
            "devices": [{"index": 0, "name": "AMD Instinct MI210", "arch": "gfx90a", "multi_processor_count": 104}]}
    done = {"type": "done", "elapsed_s": 1.0}
    lines = [{"dev": 0, "line": json.dumps(enum)}, {"dev": 0, "line": json.dumps(done)},
             {"dev": 0, "exit": 0, "timed_out": False, "stderr": ""},
             {"dev": 1, "line": json.dumps({"type": "fatal", "reason": "no-such-device", "detail": "torch sees 1"})},
             {"dev": 1, "exit": 4, "timed_out": False, "stderr": ""}]
    found = {f.id: f for f in live.judge_records(lines)}
    assert "smoke.crashed" not in found
    assert found["smoke.enumeration-mismatch"].severity == Severity.OK  # not "requested GPU not visible"
