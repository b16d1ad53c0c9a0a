#!/usr/bin/env python3
"""Time `rocmdoctor check` against its anchors, side by side, medians of N fresh processes.

Anchors (issue 2): PyTorch's `python -m torch.utils.collect_env` (what bug reporters paste today) and the
bare import of typer+rich (the floor any typer CLI pays). Targets: `check --from <fixture> --json`
<= 0.15x collect_env and <= 2x typer+rich import; peak RSS < 60 MiB; live `check` < 0.5 s on a GPU-less box.
Prints a table; writes bench/results/check.json. Never asserts: numbers are reported, not tested.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable


def run(argv: list[str], n: int) -> tuple[float, float, float]:
    """(median wall s, min, max peak RSS MiB of the child) over n runs."""
    times, rss = [], []
    for _ in range(n):
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        t0 = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT,
                       env=dict(os.environ, NO_COLOR="1"))
        times.append(time.perf_counter() - t0)
        after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        rss.append(max(after, before) / 1024)
    return statistics.median(times), min(times), max(rss)


def peak_rss(argv: list[str]) -> float:
    """Peak RSS (MiB) of one run, measured with /usr/bin/time when present, else wait4."""
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    _, _, ru = os.wait4(proc.pid, 0)
    return ru.ru_maxrss / 1024


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("-n", type=int, default=7)
    ap.add_argument("--fixture", default="fixtures/rx7900xtx-dkms-build-fails-kernel-6.5")
    args = ap.parse_args()
    # A pip install byte-compiles the package; this workplace sets PYTHONDONTWRITEBYTECODE, so an editable
    # checkout would otherwise recompile every module on every run. Compile once, as an install would.
    subprocess.run([PY, "-m", "compileall", "-q", str(ROOT / "rocmdoctor")], check=False,
                   stdout=subprocess.DEVNULL)
    cases = {
        "check --from fixture --json": [PY, "-m", "rocmdoctor", "check", "--from", args.fixture, "--json"],
        "check (live, this host)": [PY, "-m", "rocmdoctor", "check", "--json"],
        "anchor: import typer+rich": [PY, "-c", "import typer, rich.console"],
        "anchor: python -m torch.utils.collect_env": [PY, "-m", "torch.utils.collect_env"],
    }
    results = {}
    for name, argv in cases.items():
        n = max(3, args.n // 2) if "collect_env" in name else args.n
        med, lo, _ = run(argv, n)
        results[name] = {"median_s": med, "min_s": lo, "runs": n, "peak_rss_mib": peak_rss(argv)}
    fx = results["check --from fixture --json"]["median_s"]
    ratios = {
        "check/collect_env (target <= 0.15)": fx / results["anchor: python -m torch.utils.collect_env"]["median_s"],
        "check/import typer+rich (target <= 2)": fx / results["anchor: import typer+rich"]["median_s"],
    }
    print(f"{'case':45} {'median s':>9} {'min s':>7} {'peak MiB':>9}")
    for name, r in results.items():
        print(f"{name:45} {r['median_s']:9.3f} {r['min_s']:7.3f} {r['peak_rss_mib']:9.1f}")
    for k, v in ratios.items():
        print(f"{k:45} {v:9.3f}")
    out = ROOT / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "check.json").write_text(json.dumps({"results": results, "ratios": ratios}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
