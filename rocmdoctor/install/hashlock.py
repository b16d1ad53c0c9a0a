"""``--lock``: resolve the full closure of a plan and write every pin with the sha256 its index publishes.

Why a separate step: pip's own ``--require-hashes`` needs every package of the closure pinned with its
hashes, and only a resolver run (pip ``--dry-run --report`` or ``uv pip compile``) knows the closure.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Optional

from packaging.utils import canonicalize_name

from rocmdoctor import atomic
from rocmdoctor.errors import BadInput, OperationFailed
from rocmdoctor.install.index import index_hashes
from rocmdoctor.install.plan import Plan
from rocmdoctor.install.runner import find_uv, install_argv, installer_error


def resolve_closure(plan: Plan, installer: str, python: str, python_version: Optional[str], workdir: str,
                    env: dict[str, str], constraints: str) -> list[tuple[str, str]]:
    """Every (name, version) the install would bring, already-installed ones included (for the lock)."""
    if installer == "uv":
        reqs = os.path.join(workdir, "requirements.in")
        Path(reqs).write_text("".join(f"{r.spec()}\n" for r in plan.requirements))
        argv = [find_uv(), "pip", "compile", "--no-config", "--quiet", "--no-header", "--no-annotate",
                "--index-url", plan.index_url, "--index-strategy", "first-index", "-c", constraints, reqs]
        argv += ["--python-version", python_version] if python_version else ["--python", python]
        argv += [x for fl in plan.find_links for x in ("--find-links", fl)]
        if plan.pre:
            argv += ["--prerelease", "allow"]
        proc = subprocess.run(argv, capture_output=True, text=True, env=env)
        if proc.returncode != 0:
            raise OperationFailed(f"could not resolve the lock with uv: {installer_error(proc.stderr)}")
        pins = [line.split("==", 1) for line in proc.stdout.splitlines() if "==" in line and not line.startswith("#")]
        return [(canonicalize_name(n.strip()), v.split()[0].strip()) for n, v in pins]
    report = os.path.join(workdir, "report.json")
    argv = install_argv(plan, "pip", python if not python_version else sys.executable, constraints)
    argv[4:4] = ["--dry-run", "--ignore-installed", "--quiet", "--report", report]
    if python_version:
        argv[4:4] = ["--python-version", python_version, "--implementation", "cp", "--platform", "linux_x86_64",
                     "--platform", "manylinux_2_28_x86_64", "--platform", "manylinux2014_x86_64",
                     "--target", os.path.join(workdir, "target")]  # pip demands a target here; --dry-run writes none
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL)
    if proc.returncode != 0:
        raise OperationFailed(f"could not resolve the lock with pip: {installer_error(proc.stdout + proc.stderr)}")
    data = json.loads(Path(report).read_text())
    return [(canonicalize_name(i["metadata"]["name"]), str(i["metadata"]["version"])) for i in data.get("install", [])]


def write_lock(plan: Plan, closure: list[tuple[str, str]], path: str) -> str:
    """Write a ``--require-hashes`` requirements file; :class:`OperationFailed` when a hash is missing."""
    lines = [
        "# Written by `rocmdoctor install torch --lock`: every package with the sha256 the index publishes.",
        f"# Install with: pip install --require-hashes --index-url {plan.index_url} -r {os.path.basename(path)}",
        f"--index-url {plan.index_url}",
        *(f"--find-links {fl}" for fl in plan.find_links),
    ]
    missing = []
    for name, version in sorted(closure):
        hashes = index_hashes(plan.index_url, name, tuple(plan.find_links)).get(version)
        if not hashes:
            missing.append(f"{name}=={version}")
            continue
        lines.append(f"{name}=={version} \\")
        digests = sorted(set(hashes.values()))
        lines += [f"    --hash=sha256:{d}" + (" \\" if i < len(digests) - 1 else "") for i, d in enumerate(digests)]
    if missing:
        raise OperationFailed(f"the index publishes no sha256 for {', '.join(missing)}: cannot write a hash lock")
    text = "\n".join(lines) + "\n"
    try:
        atomic.write_text(path, text)
    except OSError as exc:
        raise BadInput(f"cannot write the lock file {path}: {exc}") from exc
    return text
