#!/usr/bin/env python3
"""The physical-limit anchor for `fleet audit`: a bare asyncio OpenSSH fan-out that only cats files.

usage: fleet_anchor.py SSH_CONFIG NAMES_FILE SCRIPT [-j N]

Runs ``ssh -F SSH_CONFIG -o BatchMode=yes -- HOST 'sh -s'`` for every host with SCRIPT on stdin, at
most N at a time, and keeps every byte of output in memory (as the audit does). No parsing, no
judging: what is left is the cost of the SSH sessions and of reading the files. Exit 1 unless every
host's output ends with the line ``AUDIT-END``.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time


async def _one(sem: asyncio.Semaphore, cfg: str, host: str, script: bytes) -> tuple[str, int, bytes]:
    async with sem:
        proc = await asyncio.create_subprocess_exec(
            "ssh", "-F", cfg, "-o", "BatchMode=yes", "--", host, "sh -s",
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        out, _ = await proc.communicate(script)
        return host, proc.returncode or 0, out


async def _main(cfg: str, names: list[str], script: bytes, jobs: int) -> int:
    sem = asyncio.Semaphore(jobs)
    t0 = time.monotonic()
    results = await asyncio.gather(*(_one(sem, cfg, h, script) for h in names))
    bad = [h for h, rc, out in results if rc != 0 or not out.rstrip().endswith(b"AUDIT-END")]
    total = sum(len(out) for _, _, out in results)
    print(f"anchor: {len(names) - len(bad)}/{len(names)} ok, {total} bytes, {time.monotonic() - t0:.2f}s",
          file=sys.stderr)
    return 1 if bad else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("ssh_config")
    ap.add_argument("names")
    ap.add_argument("script")
    ap.add_argument("-j", "--jobs", type=int, default=64)
    a = ap.parse_args()
    with open(a.names) as f:
        names = [ln.strip() for ln in f if ln.strip() and not ln.startswith("#")]
    with open(a.script, "rb") as f:
        script = f.read()
    return asyncio.run(_main(a.ssh_config, names, script, a.jobs))


if __name__ == "__main__":
    sys.exit(main())
