"""Benchmark: cost of `rocmdoctor.matrix.load()` against its 20 ms target, with and without its cache.

Each sample runs in a fresh Python process (so nothing is memoised in-process) and reports:
  load (warm cache)   - load() served from the JSON cache (the path `check` takes), excluding the import
  import+load (warm)  - importing rocmdoctor.matrix plus that load()
  load (no cache)     - load(use_cache=False): parse the TOML, validate, build; no cache read or written
  import+load (none)  - importing rocmdoctor.matrix plus that load()
  load (cold)         - load() with an empty cache directory (parse + validate + build + cache write)
The cache is worth keeping while "no cache" minus "warm cache" is a sizeable share of the 0.3 s
`check --from` budget. Byte-compile first (`python -m compileall -q rocmdoctor`): with
PYTHONDONTWRITEBYTECODE=1 every sample would otherwise recompile the imports.
Prints the median of N runs (default 7) and the ratio to the 20 ms target (< 1.0 = within target).
Usage: python bench/bench_matrix.py [N]
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile

TARGET_MS = 20.0
PROBE = r"""
import sys, time
t0 = time.perf_counter()
import rocmdoctor.matrix as mx
t1 = time.perf_counter()
m = mx.load(use_cache=sys.argv[1] == "cache")
t2 = time.perf_counter()
assert m.releases and m.gpus and m.torch
print(f"{(t2 - t1) * 1000:.3f} {(t2 - t0) * 1000:.3f}")
"""


def sample(cache_dir: str, use_cache: bool = True) -> tuple[float, float]:
    env = dict(os.environ, ROCMDOCTOR_CACHE_DIR=cache_dir)
    out = subprocess.run([sys.executable, "-c", PROBE, "cache" if use_cache else "none"], env=env, check=True,
                         capture_output=True, text=True)
    load_ms, total_ms = (float(x) for x in out.stdout.split())
    return load_ms, total_ms


def main() -> int:
    n = max(5, int(sys.argv[1]) if len(sys.argv) > 1 else 7)
    warm_dir = tempfile.mkdtemp(prefix="rocmdoctor-bench-")  # mkdtemp: 0700, ours, as the cache requires
    sample(warm_dir)  # populate the cache
    warm = [sample(warm_dir) for _ in range(n)]
    none = [sample(warm_dir, use_cache=False) for _ in range(n)]
    cold = [sample(tempfile.mkdtemp(prefix="rocmdoctor-bench-cold-"))[0] for _ in range(n)]
    rows = [
        ("load (warm cache)", statistics.median(w[0] for w in warm)),
        ("import+load (warm)", statistics.median(w[1] for w in warm)),
        ("load (no cache)", statistics.median(w[0] for w in none)),
        ("import+load (none)", statistics.median(w[1] for w in none)),
        ("load (cold: parse + write)", statistics.median(cold)),
    ]
    print(f"rocmdoctor.matrix.load() - median of {n} fresh processes; target {TARGET_MS:.0f} ms")
    for name, ms in rows:
        print(f"  {name:26s} {ms:8.2f} ms   ratio {ms / TARGET_MS:5.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
