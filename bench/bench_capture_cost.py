#!/usr/bin/env python3
"""The capture's own cost on one node: what `fleet audit` makes each host spend, side by side with the
fleetlab anchor workload (``workload.sh``: cat 25 small /etc,/proc,/sys files + uname/id/python3 version).

Runs the exact payload the audit streams (``sh -s`` fed ``remote.capture_script``) on this machine, with
``ROCMDOCTOR_ROOT`` presenting a fake MI210 node with recorded command outputs (as bench_fleet.py's hosts),
and once against the real machine (``/``, real commands: rocminfo etc. are absent here). CPU = user+sys of
the child processes (rusage), medians of --runs. Never asserts; prints JSON.

usage: bench_capture_cost.py [--runs 10]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tests"))
WORKLOAD = Path(os.environ.get("FLEETLAB", "/work/shared/tools/fleetlab")) / "workload.sh"


def run(argv: list[str], stdin: bytes, env: dict) -> tuple[float, float, int]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(argv, input=stdin, capture_output=True, env=env)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, len(p.stdout)


def measure(payload: bytes, env: dict, runs: int) -> dict:
    walls, cpus, size = [], [], 0
    for _ in range(runs):
        w, c, size = run(["sh", "-s"], payload, env)
        walls.append(w)
        cpus.append(c)
    return {"wall_s": round(statistics.median(walls), 3), "cpu_s": round(statistics.median(cpus), 3),
            "stdout_bytes": size}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=10)
    a = ap.parse_args()
    from bench_fleet import FIXTURE, recorded_extras
    from fleet_harness import make_root

    from rocmdoctor.fleet import remote

    payload = remote.capture_script(60.0)
    with tempfile.TemporaryDirectory(prefix="rd-capcost-") as tmp:
        t = Path(tmp)
        root = make_root(t / "host1", "host1", rocm="6.2.2")
        for d in ("root", "cmd"):
            if (FIXTURE / d).is_dir():
                shutil.copytree(FIXTURE / d, root if d == "root" else root / ".cmd", dirs_exist_ok=True)
        shutil.copytree(recorded_extras(t), root / ".cmd", dirs_exist_ok=True)
        env = {**os.environ, "ROCMDOCTOR_ROOT": str(root), "HOME": str(t)}
        bare = {k: v for k, v in os.environ.items() if k != "ROCMDOCTOR_ROOT"}
        out = {
            "runs": a.runs,
            "capture_fake_node": measure(payload, env, a.runs),
            "capture_this_machine": measure(payload, bare, a.runs),
            "anchor_workload_sh": measure(WORKLOAD.read_bytes(), bare, a.runs) if WORKLOAD.is_file() else None,
        }
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
