#!/usr/bin/env python3
"""Time `rocmdoctor check --from PASTE --json` on a 1 MB pasted log, beside its anchors.

The paste is built from the real outputs in ../shared/captures (every text file, concatenated in order and
repeated to 1 MiB: REPL sessions, pip commands, rocminfo, collect_env, dkms and docker logs), so every free-text
rule and signature gets real near-misses. Anchors: the same command on a small fixture (the fixed cost of a
check), `python -c pass` (interpreter start) and a fixed pure-Python loop (this machine's speed at this hour: a
shared machine's speed varies, so runs on different days compare by their ratio to it). Target (issue 12): < 0.3 s
for the 1 MB paste.
Also times the extractor alone, in process. Prints a table; writes bench/results/paste.json. Never asserts.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CAPTURES = ROOT.parent / "shared" / "captures"
PY = sys.executable
SIZE = 1 << 20
SPEED = "anchor: fixed pure-Python loop (machine speed)"


LOGS = ("780m-gfx1103-apu-ollama-unsupported-target/ollama_log.txt",
        "mi210-x4-gfx90a-rocm6.0-hip-invalid-argument/amd_log_level3.txt",
        "mi210-x4-gfx90a-rocm6.0-hip-invalid-argument/error.txt",
        "mi210-x4-gfx90a-rocm6.0-hip-invalid-argument/commenter_torch_repl.txt",
        "rx7900xtx-amdgpu-dkms-6.3.6-build-fails-kernel-6.5/install_log.txt",
        "docker-rocm-terminal-kfd-permission-denied-mi100/docker_run_and_rocminfo.txt",
        "wsl-rx7900-torch-rocm6.2-hipErrorNoDevice-radeon-wheels/fix_commands.txt")


def paste_text(kind: str = "log") -> str:
    """'log': the real application/installer logs repeated to 1 MiB (what a long pasted log is); 'unique': the
    same lines, each stamped with a distinct time; 'mixed': every capture (rocminfo, lspci, collect_env, dkms,
    ...) repeated, so every format parser runs on 1 MiB too."""
    if kind in ("log", "unique"):
        paths = [CAPTURES / p for p in LOGS]
    else:
        paths = [p for p in sorted(CAPTURES.rglob("*")) if p.is_file() and p.suffix in (".txt", ".log", "")]
    parts = [p.read_text(encoding="utf-8", errors="replace") for p in paths if p.is_file()]
    seed = "\n".join(parts) or "torch.__version__: 2.6.0+cu124\n"
    text = (seed * (SIZE // len(seed) + 1))[:SIZE]
    if kind == "unique":
        lines = text.split("\n")
        text = "\n".join(f"Nov 30 {i // 3600 % 24:02d}:{i // 60 % 60:02d}:{i % 60:02d}.{i:06d} {ln}"
                         for i, ln in enumerate(lines))[:SIZE]
    return text


def timed(argv: list[str], n: int) -> tuple[float, float, float]:
    """Median and min wall time, and median CPU time (user+sys of the child), of ``n`` runs."""
    times, cpus = [], []
    for _ in range(n):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT,
                       env=dict(os.environ, NO_COLOR="1"))
        times.append(time.perf_counter() - t0)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)
    return statistics.median(times), min(times), statistics.median(cpus)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("-n", type=int, default=7)
    ap.add_argument("--fixture", default="fixtures/rx7900xtx-dkms-build-fails-kernel-6.5")
    args = ap.parse_args()
    subprocess.run([PY, "-m", "compileall", "-q", str(ROOT / "rocmdoctor")], check=False, stdout=subprocess.DEVNULL)
    with tempfile.TemporaryDirectory() as tmp:
        pastes = {}
        for kind in ("log", "unique", "mixed"):
            pastes[kind] = Path(tmp) / f"{kind}.txt"
            pastes[kind].write_text(paste_text(kind), encoding="utf-8")
        cases = {
            "check --from 1 MiB pasted log --json": [PY, "-m", "rocmdoctor", "check", "--from", str(pastes["log"]),
                                                     "--json"],
            "check --from 1 MiB log, no line repeats --json": [PY, "-m", "rocmdoctor", "check", "--from",
                                                               str(pastes["unique"]), "--json"],
            "check --from 1 MiB mixed captures --json": [PY, "-m", "rocmdoctor", "check", "--from",
                                                         str(pastes["mixed"]), "--json"],
            "anchor: check --from small fixture --json": [PY, "-m", "rocmdoctor", "check", "--from", args.fixture,
                                                          "--json"],
            "anchor: python -c pass": [PY, "-c", "pass"],
            # the machine's speed: fixed pure-Python work, so runs on different days (or a shared machine's
            # different hours) compare by their ratio to it rather than by seconds
            SPEED: [PY, "-c", "sum(i * i for i in range(3_000_000))"],
        }
        results = {name: dict(zip(("median_s", "min_s", "cpu_median_s"), timed(argv, args.n)))
                   for name, argv in cases.items()}
        sys.path.insert(0, str(ROOT))
        from rocmdoctor.parse.freetext import extract
        from rocmdoctor.parse.logs import scan

        text = pastes["log"].read_text(encoding="utf-8")
        t0 = time.perf_counter()
        facts = extract(text, "paste.txt")
        t1 = time.perf_counter()
        scan(text, "paste.txt")
        t2 = time.perf_counter()
        results["in process: freetext.extract(1 MiB log)"] = {"median_s": t1 - t0, "min_s": t1 - t0,
                                                              "facts": len(facts.facts)}
        results["in process: logs.scan(1 MiB log)"] = {"median_s": t2 - t1, "min_s": t2 - t1}
    paste_s = results["check --from 1 MiB pasted log --json"]["median_s"]
    ratios = {
        "pasted log / target 0.3 s (target < 1)": paste_s / 0.3,
        "pasted log / small fixture": paste_s / results["anchor: check --from small fixture --json"]["median_s"],
        "pasted log / machine-speed anchor": paste_s / results[SPEED]["median_s"],
        "log, no line repeats / target 0.3 s": results["check --from 1 MiB log, no line repeats --json"]["median_s"]
        / 0.3,
    }
    print(f"{'case':48} {'median s':>9} {'min s':>7} {'cpu s':>7}")
    for name, r in results.items():
        cpu = f"{r['cpu_median_s']:7.3f}" if "cpu_median_s" in r else ""
        print(f"{name:48} {r['median_s']:9.3f} {r['min_s']:7.3f} {cpu}")
    for k, v in ratios.items():
        print(f"{k:48} {v:9.3f}")
    out = ROOT / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "paste.json").write_text(json.dumps({"results": results, "ratios": ratios}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
