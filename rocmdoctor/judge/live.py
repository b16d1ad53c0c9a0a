"""Checks on live facts of this machine (psutil, cgroups, the docker SDK; ``Host.live``): host memory and
/dev/shm against the GPUs, processes that already hold /dev/kfd, running containers without /dev/kfd.
Only a live local check sees these; a bundle from elsewhere skips them (not captured).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rocmdoctor.judge.facts import finding, ok
from rocmdoctor.judge.registry import check
from rocmdoctor.model import Finding, Fix, Severity
from rocmdoctor.words import plural

if TYPE_CHECKING:
    from rocmdoctor.matrix import Matrix
    from rocmdoctor.model import ContainerMapping, Host

GIB = 1 << 30
# images that exist to use the GPU (AMD's and the common inference/training ones built on ROCm)
_GPU_IMAGE = re.compile(r"(^|[/_:-])(rocm|pytorch|vllm|sglang|primus|megatron|jax|tensorflow)", re.I)


def _vram_total(host: Host) -> int:
    return sum(g.vram_bytes or 0 for g in host.gpus if not g.is_apu)


@check("host.shm-small", "host.ram-below-vram", title="Host memory for the GPUs")
def host_memory(host: Host, matrix: Matrix) -> list[Finding]:
    """DataLoader workers hand batches over /dev/shm; checkpoints are staged in host RAM. A 64 MiB /dev/shm
    (Docker's default) kills workers with 'bus error'; RAM (or a cgroup limit) below the GPUs' memory makes
    loading a model that fills them swap or get OOM-killed."""
    live = host.live
    if live is None or not host.gpus:
        return []
    out: list[Finding] = []
    need = matrix.health_thresholds.get("shm_min_bytes", 8 * GIB)
    if live.shm_bytes is not None and live.shm_bytes < need:
        out.append(finding(
            "host.shm-small", Severity.WARN,
            f"/dev/shm is {live.shm_bytes / GIB:.2f} GiB (AMD runs PyTorch with at least {need / GIB:.0f} GiB)",
            "PyTorch DataLoader workers pass tensors through shared memory; a small /dev/shm makes them die with "
            "'bus error' or 'unable to write to file </torch_...>'.",
            [str(live.source)],
            Fix("In a container, give it more shared memory (or the host's IPC namespace):",
                ["docker run --shm-size 16g ...", "docker run --ipc=host ..."]),
        ))
    elif live.shm_bytes is not None:
        out.append(ok("host.shm-small", f"/dev/shm is {live.shm_bytes / GIB:.1f} GiB", [str(live.source)]))
    vram = _vram_total(host)
    limits = [("RAM", live.ram_bytes), ("cgroup memory.max", live.cgroup_memory_max)]
    low = [(what, v) for what, v in limits if v is not None and vram and v < vram]
    if low:
        what, v = min(low, key=lambda x: x[1])
        out.append(finding(
            "host.ram-below-vram", Severity.INFO,
            f"{what} ({v / GIB:.0f} GiB) is smaller than the GPUs' memory ({vram / GIB:.0f} GiB)",
            "Loading a checkpoint that fills the GPUs stages it in host memory first; with less RAM than VRAM "
            "that swaps or is OOM-killed. Load sharded/memory-mapped checkpoints or raise the limit.",
            [str(live.source)],
        ))
    elif vram and live.ram_bytes:
        out.append(ok("host.ram-below-vram", "Host RAM is at least the GPUs' memory", [str(live.source)]))
    return out


@check("host.kfd-in-use", title="Processes using the GPUs")
def kfd_in_use(host: Host, matrix: Matrix) -> list[Finding]:
    """A process that already holds /dev/kfd may own the GPU memory a new job expects (a leaked job)."""
    live = host.live
    if live is None or live.kfd_holders is None:
        return []
    if not live.kfd_holders:
        return [ok("host.kfd-in-use", "No process has /dev/kfd open", [str(live.source)])]
    return [finding(
        "host.kfd-in-use", Severity.INFO,
        f"{len(live.kfd_holders)} process(es) have /dev/kfd open: " + ", ".join(live.kfd_holders[:4]),
        "Another process may hold GPU memory or a device the next job needs (a leaked job, a monitoring agent).",
        live.kfd_holders[:8],
        Fix("See what they use:", ["amd-smi process", "ps -o pid,user,etime,cmd -p <pid>"]),
    )]


def _gpu_intended(c: ContainerMapping) -> bool:
    return bool(_GPU_IMAGE.search(c.image) or c.gpu_env or any(d.startswith("/dev/dri") for d in c.devices))


def _has_kfd(c: ContainerMapping) -> bool:
    return c.privileged or "/dev/kfd" in c.devices or any(i.startswith("amd.com/gpu") for i in c.cdi)


@check("container.running-without-kfd", title="Running GPU containers")
def running_without_kfd(host: Host, matrix: Matrix) -> list[Finding]:
    """A ROCm container started without ``--device /dev/kfd`` sees no GPU at all: torch falls back to the CPU
    and the job runs 100x slower instead of failing."""
    fid = "container.running-without-kfd"
    live = host.live
    if live is None or live.containers is None:
        return []
    gpu = [c for c in live.containers if _gpu_intended(c)]
    bad = [c for c in gpu if not _has_kfd(c)]
    if bad:
        return [finding(
            fid, Severity.WARN,
            f"{plural(len(bad), 'running GPU container')} {'has' if len(bad) == 1 else 'have'} no /dev/kfd: "
            + ", ".join(f"{c.name} ({c.image})" for c in bad[:4]),
            "ROCm needs /dev/kfd (compute) and /dev/dri (render nodes) inside the container; without /dev/kfd "
            "the runtime finds no GPU and PyTorch silently uses the CPU.",
            [f"{c.name}: devices {c.devices or 'none'}" for c in bad[:6]],
            Fix("Recreate it with the GPU devices (or the AMD container toolkit's CDI device):",
                ["docker run --device /dev/kfd --device /dev/dri --group-add video --group-add render ...",
                 "docker run --device amd.com/gpu=all ..."]),
        )]
    return [ok(fid, f"{len(gpu)} running GPU container(s), all with /dev/kfd")] if gpu else \
        [ok(fid, "No running GPU containers")]
