"""Live facts that only the local machine can give and that need the design card's libraries: psutil
(RAM, /dev/shm, processes holding /dev/kfd), the cgroup limits of this process, and the docker SDK (the
device mappings of running containers).

Why not in capture.py: capture is stdlib-only so it can be streamed to remote hosts; these facts are
gathered only by a live ``rocmdoctor check`` / ``fleet node-check`` on this machine, after the capture, and
stored in the bundle as ``cmd/live-facts.json`` so that the parse -> judge path stays the same. Every part
is optional and bounded: a missing library, daemon or permission leaves that key out (= not captured).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Optional

FILE = "cmd/live-facts.json"
MAX_PROCS = 4096  # processes scanned for /dev/kfd
MAX_CONTAINERS = 256
KFD = "/dev/kfd"


def memory() -> dict[str, Any]:
    import psutil

    out: dict[str, Any] = {"ram_bytes": int(psutil.virtual_memory().total)}
    try:
        out["shm_bytes"] = int(psutil.disk_usage("/dev/shm").total)
    except OSError:
        pass
    return out


def kfd_holders(limit: int = MAX_PROCS) -> Optional[list[dict[str, Any]]]:
    """Processes with /dev/kfd open (pid, name, user): "another process owns the GPU". None = could not look."""
    import psutil

    holders: list[dict[str, Any]] = []
    denied = 0
    for n, proc in enumerate(psutil.process_iter(["pid", "name", "username"])):
        if n >= limit:
            break
        try:
            fds = os.listdir(f"/proc/{proc.pid}/fd")
        except (PermissionError, FileNotFoundError, ProcessLookupError):
            denied += 1
            continue
        for fd in fds[:4096]:
            try:
                if os.readlink(f"/proc/{proc.pid}/fd/{fd}") == KFD:
                    holders.append({"pid": proc.pid, "name": (proc.info.get("name") or "")[:64],
                                    "user": (proc.info.get("username") or "")[:64]})
                    break
            except OSError:
                continue
    if denied and not holders and os.geteuid() != 0:
        return None  # other users' processes were invisible: "none" would be a guess
    return holders


def cgroup_limits(root: str = "/sys/fs/cgroup") -> dict[str, Any]:
    """cgroup v2 limits of this process: memory.max (bytes or None = unlimited) and cpu.max (CPUs)."""
    out: dict[str, Any] = {}
    try:
        rel = next(line.split(":", 2)[2].strip() for line in Path("/proc/self/cgroup").read_text().splitlines()
                   if line.startswith("0::"))
    except (OSError, StopIteration, IndexError):
        return out
    base = Path(root) / rel.lstrip("/")
    try:
        mem = (base / "memory.max").read_text().strip()
        out["memory_max_bytes"] = None if mem == "max" else int(mem)
    except (OSError, ValueError):
        pass
    try:
        quota, period = (base / "cpu.max").read_text().split()[:2]
        out["cpu_max"] = None if quota == "max" else round(int(quota) / int(period), 2)
    except (OSError, ValueError):
        pass
    return out


def containers(limit: int = MAX_CONTAINERS) -> Optional[list[dict[str, Any]]]:
    """Running containers with their GPU-relevant mappings (docker SDK); None when no daemon answers."""
    try:
        import docker

        client = docker.from_env(timeout=5)
        running = client.containers.list(limit=limit)
    except Exception:  # no SDK, no daemon, no permission: not captured
        return None
    out: list[dict[str, Any]] = []
    for c in running[:limit]:
        attrs = c.attrs or {}
        hc = attrs.get("HostConfig") or {}
        cfg = attrs.get("Config") or {}
        # the path the container sees (what ROCm opens inside it), else the host's
        devices = [str(d.get("PathInContainer") or d.get("PathOnHost") or "") for d in (hc.get("Devices") or [])
                   if isinstance(d, dict)]
        cdi = [i for r in (hc.get("DeviceRequests") or []) if isinstance(r, dict)
               for i in (r.get("DeviceIDs") or []) if isinstance(i, str)]
        env = [e.split("=", 1)[0] for e in (cfg.get("Env") or []) if isinstance(e, str)]
        out.append({
            "name": str(attrs.get("Name", c.name) or "").lstrip("/")[:128],
            "image": str(cfg.get("Image") or "")[:256],
            "devices": [d[:128] for d in devices[:64]],
            "cdi": [d[:128] for d in cdi[:64]],
            "privileged": bool(hc.get("Privileged")),
            "gpu_env": sorted(k for k in env if k.startswith(("HIP_", "ROCR_", "HSA_", "AMD_VISIBLE")))[:16],
            "group_add": [str(g)[:32] for g in (hc.get("GroupAdd") or [])[:16]],
            "shm_bytes": hc.get("ShmSize") if isinstance(hc.get("ShmSize"), int) else None,
        })
    return out


def _unavailable() -> tuple[type[BaseException], ...]:
    """What "this machine would not tell" looks like: a library missing, the OS or psutil refusing."""
    kinds: list[type[BaseException]] = [ImportError, OSError]
    try:
        import psutil

        kinds.append(psutil.Error)  # AccessDenied, NoSuchProcess, ZombieProcess (not OSError subclasses)
    except ImportError:
        pass
    return tuple(kinds)


def gather() -> dict[str, Any]:
    """Everything that could be seen; a part the machine would not tell is left out (= not captured, never a
    guess). Any other exception is a bug of ours and propagates: the check ends as an internal error (exit 3)
    instead of quietly reporting fewer facts."""
    facts: dict[str, Any] = {"schema": "rocmdoctor-live-facts/1"}
    unavailable = _unavailable()
    for key, fn in (("memory", memory), ("kfd_holders", kfd_holders), ("cgroup", cgroup_limits),
                    ("containers", containers)):
        try:
            value = fn()
        except unavailable:
            continue
        if value is not None:
            facts[key] = value
    return facts


def write(bundle_dir: str) -> None:
    path = Path(bundle_dir) / FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(gather(), indent=1, sort_keys=True) + "\n")
