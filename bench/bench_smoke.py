#!/usr/bin/env python3
"""Level 1's own overhead, measured on the CPU path, side by side with its anchor.

Anchor (issue 5): a bare ``python -c 'import torch'`` — interpreter start plus the torch import, the floor
any smoke test inside the user's Python pays. Measured: ``rocmdoctor smoke --device cpu --level 1`` (the
real runner: CLI start, spawning the program in its own process group, the real checks at full level-1
sizes, JSON-line parsing, judging) and the program alone (``python rocmdoctor/programs/smoke_torch.py --device cpu``).
Runs alternate per round; medians of N fresh processes. Reported: the ratios smoke/anchor and
program/anchor, and what the runner itself adds (smoke - program). Also shows that per-GPU processes start
in parallel: K concurrent programs take about max(), not sum(), on a machine with >= K free cores.

Never asserts: numbers are reported, not tested. Writes bench/results/smoke.json.
usage: bench_smoke.py [--runs 5] [--full] [--parallel 2]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
PROGRAM = ROOT / "rocmdoctor" / "programs" / "smoke_torch.py"


def timed(argv: list[str]) -> float:
    t0 = time.perf_counter()
    proc = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT,
                          env=dict(os.environ, NO_COLOR="1"))
    dt = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode}): {proc.stderr.decode()[-400:]}")
    return dt


def parallel(k: int, quick: list[str]) -> float:
    """Wall time of k level-1 programs started at once (what the runner does for k GPUs)."""
    t0 = time.perf_counter()
    procs = [subprocess.Popen([PY, str(PROGRAM), "--device", "cpu", *quick], stdout=subprocess.DEVNULL)
             for _ in range(k)]
    for p in procs:
        p.wait()
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--full", action="store_true",
                    help="full level-1 sizes (slow on a CPU: fp16 GEMM has no fast CPU kernel); default --quick "
                         "sizes, so that the overhead (start, imports, scheduling) is what is measured")
    ap.add_argument("--parallel", type=int, default=2, help="concurrent programs for the parallel-start check")
    a = ap.parse_args()
    quick = [] if a.full else ["--quick"]
    cmds = {
        "anchor: python -c 'import torch'": [PY, "-c", "import torch"],
        "program: programs/smoke_torch.py --device cpu": [PY, str(PROGRAM), "--device", "cpu", "--enumerate", *quick],
        "rocmdoctor smoke --device cpu --level 1": [PY, "-m", "rocmdoctor", "smoke", "--device", "cpu",
                                                     "--level", "1", "--json", *quick],
    }
    for argv in cmds.values():  # warm the page cache
        timed(argv)
    samples: dict[str, list[float]] = {k: [] for k in cmds}
    for _ in range(a.runs):
        for name, argv in cmds.items():
            samples[name].append(timed(argv))
    med = {k: statistics.median(v) for k, v in samples.items()}
    anchor, program, smoke = (med[k] for k in cmds)
    one = statistics.median(parallel(1, quick) for _ in range(3))
    many = statistics.median(parallel(a.parallel, quick) for _ in range(3))
    print(f"{'command':50} {'median s':>9} {'min':>7} {'max':>7} {'x anchor':>9}")
    for name, vals in samples.items():
        print(f"{name:50} {med[name]:9.3f} {min(vals):7.3f} {max(vals):7.3f} {med[name] / anchor:9.2f}")
    print(f"runner overhead (smoke - program): {smoke - program:.3f} s")
    print(f"parallel start: 1 program {one:.3f} s, {a.parallel} at once {many:.3f} s "
          f"(sum would be {one * a.parallel:.3f} s; {os.cpu_count()} CPUs)")
    out = {"runs": a.runs, "quick": not a.full, "cpus": os.cpu_count(), "load": os.getloadavg(),
           "median_s": med, "samples_s": samples, "ratio_smoke_to_anchor": smoke / anchor,
           "ratio_program_to_anchor": program / anchor, "runner_overhead_s": smoke - program,
           "parallel": {"one_s": one, "k": a.parallel, "k_s": many}}
    results = ROOT / "bench" / "results"
    results.mkdir(parents=True, exist_ok=True)
    (results / "smoke.json").write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
