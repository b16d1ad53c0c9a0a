"""Verify an install: the torch now in the target is the ROCm build the plan meant, from where the plan said.

:func:`verify` imports torch in a subprocess of the target (``programs/verify_torch.py``, run by a
:class:`Verifier` started while the installer runs, so that its start-up is off the critical path);
:func:`verify_sources` checks that every distribution the install added is published by the plan's index.
"""

from __future__ import annotations

import json
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Optional

from packaging.version import InvalidVersion, Version

from rocmdoctor.errors import BadInput
from rocmdoctor.install.index import index_hashes
from rocmdoctor.install.plan import Plan
from rocmdoctor.install.resolve import override_gfx
from rocmdoctor.install.session import probe, program_text

#: The program that imports torch and reports it (``rocmdoctor/programs/verify_torch.py``).
VERIFY_PROGRAM = "verify_torch.py"
#: The program that waits for the install to end, then runs :data:`VERIFY_PROGRAM` (``programs/verify_wait.py``).
VERIFY_WAIT = "verify_wait.py"


class Verifier:
    """A ``programs/verify_wait.py`` interpreter of ``python`` in the plan's environment, started ahead of the check."""

    def __init__(self, plan: Plan, python: str) -> None:
        argv = [python, "-B", "-c", program_text(VERIFY_WAIT), program_text(VERIFY_PROGRAM)]
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     env={**os.environ, **plan.env})

    def answer(self, gpu_check: bool, timeout: float) -> dict[str, Any]:
        """Run the check now; the JSON it printed (OSError, TimeoutExpired, ValueError, IndexError on failure)."""
        try:
            out, _ = self.proc.communicate(("gpu" if gpu_check else "nogpu") + "\n", timeout=timeout)
        except BaseException:
            self.proc.kill()
            self.proc.wait()
            raise
        answer = json.loads(out.strip().splitlines()[-1])
        if not isinstance(answer, dict):
            raise ValueError(f"the verification printed {type(answer).__name__}, not an object")
        return answer

    def close(self) -> None:
        """Let it go unused (end of input: it exits having run nothing)."""
        if self.proc.returncode is not None:
            return
        try:
            self.proc.communicate("", timeout=10)
        except (OSError, ValueError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()


def verify(plan: Plan, python: str, gpu_check: bool, timeout: float = 300.0,
           started: Optional[Verifier] = None) -> list[str]:
    """Problems with the torch now installed in ``python`` (empty = it is the ROCm build we meant).
    ``started``: a :class:`Verifier` of ``python`` for ``plan`` started earlier (else one starts now)."""
    try:
        d = (started or Verifier(plan, python)).answer(gpu_check, timeout)
    except (OSError, subprocess.TimeoutExpired, ValueError, IndexError) as exc:
        return [f"could not run the verification in {python}: {exc}"]
    if "error" in d and "version" not in d:
        return [f"import torch failed: {d['error']}"]
    problems = []
    version = str(d.get("version", ""))
    wanted = next((r.version for r in plan.requirements if r.name == "torch"), "")
    if "+rocm" not in version:
        problems.append(f"torch {version} is not a ROCm build (its version has no +rocm label)")
    elif wanted and not wanted.endswith("*") and version != wanted:
        problems.append(f"torch {version} is installed, but the plan asked for {wanted}")
    if not d.get("hip"):
        problems.append("torch.version.hip is not set: this torch was not built for ROCm")
    if d.get("cuda"):
        problems.append(f"torch.version.cuda is {d['cuda']}: this is a CUDA build")
    cudart = [x for x in d.get("libs", []) if "cudart" in x]
    if cudart:
        problems.append(f"torch/lib bundles the CUDA runtime ({', '.join(cudart)})")
    if "error" in d:
        problems.append(f"torch check failed: {d['error']}")
    elif gpu_check:
        if not d.get("available"):
            problems.append("torch.cuda.is_available() is False: PyTorch cannot see the GPU (run `rocmdoctor check`)")
        override = plan.env.get("HSA_OVERRIDE_GFX_VERSION")
        expected = {override_gfx(override)} if override else set(plan.gpus)
        archs = {a.split(":")[0] for a in d.get("arch_list", [])}
        missing = sorted(g for g in expected if g and g not in archs)
        if missing:
            problems.append(f"torch.cuda.get_arch_list() lacks {', '.join(missing)} (has {', '.join(sorted(archs))})")
    return problems



def verify_sources(plan: Plan, before: dict[str, str], python: str) -> list[str]:
    """Problems if a distribution the install added or changed is not published by the plan's index or find-links.

    The plan names where every wheel comes from (``index_url``, ``find_links``); pip and uv run isolated from
    any other configuration, and this checks the outcome rather than trusting it: each distribution now in
    ``python`` at a version it did not have before must be offered, at that version, by those pages.
    """
    def norm(v: str) -> str:
        try:
            return str(Version(v))
        except InvalidVersion:
            return v

    try:
        now = probe(python).dists
    except (BadInput, OSError, ValueError) as exc:
        return [f"could not list the installed distributions to check where they came from: {exc}"]
    changed = {n: v for n, v in now.items() if before.get(n) != v}
    if not changed:
        return []
    where = " and ".join([plan.index_url, *plan.find_links])
    with ThreadPoolExecutor(max_workers=8) as pool:
        published = dict(zip(changed, pool.map(
            lambda n: {norm(v) for v in index_hashes(plan.index_url, n, tuple(plan.find_links))}, changed)))
    return [f"{name} {version} was installed, but {where} does not publish it: it came from somewhere else"
            for name, version in sorted(changed.items()) if norm(version) not in published[name]]

