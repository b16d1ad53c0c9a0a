"""Benchmark `rocmdoctor install torch` against its anchors; prints a table of medians and ratios.

* resolution from a bundle: ``install torch --from BUNDLE --dry-run --json`` (whole CLI, and in-process
  load_host + resolve), anchored on ``rocmdoctor --version`` (the CLI's bare start-up); target < 150 ms;
* end-to-end install into a fresh venv: rocmdoctor (probe, capture, resolve, snapshot, pip, verify) vs a bare
  ``pip install --index-url URL <same pins>``; target <= 1.10x. Measured twice: with tiny wheels (the fixed
  overhead laid bare) and with a torch wheel carrying ``--torch-mb`` MB of incompressible library (real ROCm
  torch wheels are 3-4 GB, so even this is kind to the fixed costs);
* ``--installer uv`` vs pip (and vs a bare ``uv pip install``).

Everything runs against a real index on 127.0.0.1 serving wheels built by tests/install_helpers.py.
Usage: python bench/bench_install.py [--runs 5] [--install-runs 3] [--torch-mb 1024]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

from install_helpers import build_rocm_world, build_wheel, fake_torch_files, make_venv, serve_index  # noqa: E402

ENV = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "UV_"))}
ENV["PIP_CONFIG_FILE"] = os.devnull  # the anchor and rocmdoctor see the same (empty) pip configuration
PINS = ["torch==2.5.1+rocm6.2", "pytorch-triton-rocm==3.1.0",
        "torchvision==0.20.1+rocm6.2", "torchaudio==2.5.1+rocm6.2"]
BUNDLE = REPO / "fixtures" / "derived-healthy-mi210-x4-rocm6.2.2"


def timed(fn: Callable[[], object]) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def run(argv: list[str]) -> None:
    proc = subprocess.run(argv, env=ENV, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if proc.returncode != 0:
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(argv)}\n{proc.stdout[-800:]}{proc.stderr[-800:]}")


def median(samples: list[float]) -> float:
    return statistics.median(samples)


def bench_resolution(runs: int) -> list[tuple[str, float]]:
    from rocmdoctor import matrix
    from rocmdoctor.bundle import load_host
    from rocmdoctor.install.resolve import ResolveOptions, resolve

    rd = [sys.executable, "-m", "rocmdoctor"]
    cli = [*rd, "install", "torch", "--from", str(BUNDLE), "--dry-run", "--json", "torchvision"]
    run(cli)  # warm the matrix cache, as any second run would find it
    anchor = [timed(lambda: run([*rd, "--version"])) for _ in range(runs)]
    whole = [timed(lambda: run(cli)) for _ in range(runs)]

    def in_process() -> None:
        resolve(load_host(str(BUNDLE)), matrix.load(use_cache=False), ResolveOptions(companions=("torchvision",)))

    inproc = [timed(in_process) for _ in range(runs)]
    return [("rocmdoctor --version (CLI start-up anchor)", median(anchor)),
            ("install torch --from BUNDLE --dry-run (whole CLI)", median(whole)),
            ("load_host + matrix.load + resolve (in process)", median(inproc))]


def bench_install(world: Path, runs: int, label: str) -> list[tuple[str, float]]:
    url, stop = serve_index([world])
    rd = [sys.executable, "-m", "rocmdoctor", "install", "torch", "--torch", "2.5", "--index-url", url,
          "torchvision", "torchaudio"]
    uv = shutil.which("uv") or "uv"
    samples: dict[str, list[float]] = {"bare pip": [], "rocmdoctor (pip)": [], "bare uv": [], "rocmdoctor (uv)": []}
    tmp = Path(tempfile.mkdtemp(prefix="bench-install-"))
    try:
        for i in range(runs):
            for name in samples:
                py = make_venv(tmp / f"{i}-{name.replace(' ', '_')}")
                if name == "bare pip":
                    argv = [py, "-m", "pip", "install", "-q", "--index-url", url, *PINS]
                elif name == "bare uv":
                    argv = [uv, "pip", "install", "-q", "--python", py, "--index-url", url, *PINS]
                else:
                    argv = [*rd, "--python", py, "--installer", "uv" if "uv" in name else "pip"]
                samples[name].append(timed(lambda argv=argv: run(argv)))
                shutil.rmtree(Path(py).parent.parent, ignore_errors=True)
    finally:
        stop()
        shutil.rmtree(tmp, ignore_errors=True)
    return [(f"{label}: {name}", median(s)) for name, s in samples.items()]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5, help="repetitions for the resolution timings (>= 5)")
    ap.add_argument("--install-runs", type=int, default=3, help="repetitions of each install")
    ap.add_argument("--torch-mb", type=int, default=1024, help="size of the library inside the large torch wheel")
    args = ap.parse_args()
    rows = bench_resolution(max(args.runs, 5))
    base = Path(tempfile.mkdtemp(prefix="bench-world-"))
    try:
        tiny = build_rocm_world(base / "tiny")["rocm"]
        big = build_rocm_world(base / "big")["rocm"]
        version = "2.5.1+rocm6.2"
        (big / f"torch-{version}-cp311-cp311-linux_x86_64.whl").unlink()
        files = {**fake_torch_files(version, "6.2.41133-dd7f95766", None, ["libamdhip64.so"]),
                 "torch/lib/libtorch_hip.so": os.urandom(args.torch_mb * 1024 * 1024)}
        build_wheel(big, "torch", version, "cp311-cp311-linux_x86_64", files,
                    ["pytorch-triton-rocm==3.1.0", "filelock", "typing-extensions>=4.8.0"])
        rows += bench_install(tiny, args.install_runs, "tiny wheels")
        rows += bench_install(big, args.install_runs, f"{args.torch_mb} MB torch")
    finally:
        shutil.rmtree(base, ignore_errors=True)
    d = dict(rows)
    print(f"{'measurement':<62} {'median':>10}")
    for name, value in rows:
        print(f"{name:<62} {value * 1000:>8.0f}ms")
    print()
    print("ratios (target)")
    cli = d["install torch --from BUNDLE --dry-run (whole CLI)"]
    anchor = d["rocmdoctor --version (CLI start-up anchor)"]
    print(f"  resolution in process: {d['load_host + matrix.load + resolve (in process)'] * 1000:.0f} ms (< 150 ms)")
    print(f"  resolution CLI / CLI start-up: {cli / anchor:.2f}x ({cli * 1000:.0f} ms whole CLI)")
    for label in ("tiny wheels", f"{args.torch_mb} MB torch"):
        ours, bare = d[f"{label}: rocmdoctor (pip)"], d[f"{label}: bare pip"]
        ours_uv, bare_uv = d[f"{label}: rocmdoctor (uv)"], d[f"{label}: bare uv"]
        print(f"  {label}: rocmdoctor(pip) / bare pip = {ours / bare:.2f}x (<= 1.10x); "
              f"rocmdoctor(uv) / rocmdoctor(pip) = {ours_uv / ours:.2f}x (< 1); "
              f"rocmdoctor(uv) / bare uv = {ours_uv / bare_uv:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
