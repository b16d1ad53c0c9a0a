"""Environment-variable checks: library paths and device masks that silently change what runs."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rocmdoctor.judge.facts import finding, gpu_sources_captured, not_captured, ok
from rocmdoctor.judge.registry import check
from rocmdoctor.model import Finding, Fix, Severity, TorchBuild
from rocmdoctor.words import plural

if TYPE_CHECKING:
    from rocmdoctor.matrix import Matrix
    from rocmdoctor.model import Host

MASKS = ("HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL")


@check("env.ld-library-path", title="LD_LIBRARY_PATH")
def ld_library_path(host: Host, matrix: Matrix) -> list[Finding]:
    if "env" not in host.captured:
        return [not_captured("env.ld-library-path", "Environment")]
    value = host.env.get("LD_LIBRARY_PATH", "")
    rocm_dirs = [d for d in value.split(":") if re.search(r"/opt/rocm[^/]*/(lib|lib64|hip/lib|llvm/lib)", d)]
    if not rocm_dirs:
        return [ok("env.ld-library-path", "LD_LIBRARY_PATH does not put system ROCm libraries first")]
    t = host.torch
    bundles = t is not None and t.build == TorchBuild.ROCM and (
        not t.bundled_libs or any("amdhip" in lib or "hsa" in lib for lib in t.bundled_libs))
    if t is None or not bundles:
        return [ok("env.ld-library-path", "LD_LIBRARY_PATH names system ROCm (no wheel-bundled ROCm to shadow)")]
    return [finding(
        "env.ld-library-path", Severity.WARN,
        f"LD_LIBRARY_PATH puts system ROCm ({', '.join(rocm_dirs)}) before the wheel's own libraries",
        f"torch {t.version} bundles its own ROCm runtime. Libraries found first on LD_LIBRARY_PATH "
        "(libamdhip64, libhsa-runtime64, librocblas, MIOpen) replace it at load time: mismatched versions give "
        "'undefined symbol', segfaults or 'invalid device function'.",
        [f"{host.env_source or 'env.txt'}: LD_LIBRARY_PATH={value}"],
        Fix("Remove the ROCm entries for Python work (keep them only for native HIP builds):",
            ["export LD_LIBRARY_PATH=$(echo \"$LD_LIBRARY_PATH\" | tr ':' '\\n' | grep -v '/opt/rocm' | paste -sd:)"]),
    )]


# the indexes the tasks printed, at the end of the context's value (its lines are joined by spaces)
_PRINTED_INDEXES = re.compile(r"(?:\s\d{1,3}){4,128}\s*$")
# a launcher that gives each task GPUs of its own: Flux's "-g 1", Slurm's "--gpus-per-task=1"
_ONE_GPU_PER_TASK = re.compile(r"\bflux (?:run|submit|alloc)\b[^\n]{0,120}?\s-g ?1\b|--gpus-per-task[= ]1\b")


@check("env.visible-devices", title="GPU visibility variables")
def visible_devices(host: Host, matrix: Matrix) -> list[Finding]:
    shared = _tasks_share_gpus(host)
    if shared is not None:
        return [shared]
    if "env" not in host.captured and not any(f"env-{k}" in host.context for k in MASKS):
        return []  # (a report's `export HIP_VISIBLE_DEVICES=...` counts too)
    chained = _rocr_then_hip(host)
    if chained is not None:
        return [chained]
    out = []
    # the GPU count is the host's only when an enumeration (rocminfo, kfd topology, smi) listed them: a paste's
    # device lines may show a few of eight (rccl-tests' '# Using devices' cut off; crickett-hpe/hpc-ai-envs#13)
    n = len(host.gpus) if gpu_sources_captured(host) else 0
    for key in MASKS:
        if key not in host.env:
            continue
        value = host.env[key].strip()
        idx = [int(x) for x in re.findall(r"\d+", value)] if re.fullmatch(r"[\d,\s]*", value) else []
        if value in ("", "-1") or (n and idx and all(i >= n for i in idx)):
            out.append(finding(
                "env.visible-devices", Severity.FAIL, f"{key}={value!r} hides every GPU",
                f"The host has {plural(n, 'GPU') if n else 'some GPUs'}, but {key} selects none of them: "
                "PyTorch reports "
                "'No HIP GPUs are available'.",
                [f"{host.env_source or 'env.txt'}: {key}={value}"],
                Fix("Unset it or list valid device indices:", [f"unset {key}", f"export {key}=0"]),
            ))
        elif n and idx and any(i >= n for i in idx):
            out.append(finding(
                "env.visible-devices", Severity.WARN, f"{key}={value} names devices that do not exist",
                f"Only {plural(n, 'GPU')} {'is' if n == 1 else 'are'} present (indices 0–{n - 1}).",
                [f"{host.env_source or 'env.txt'}: {key}={value}"],
            ))
    return out


def _tasks_share_gpus(host: Host) -> Finding | None:
    """Each task asked its launcher for a GPU of its own (Flux's -g 1), yet the visible-device indexes the tasks
    printed repeat: the launcher's binding stacked several tasks on each of a few GPUs and left the others idle
    (llnl/mpibind#45: 24 tasks on 24 MI300A partitions all got 18-23)."""
    said = host.context.get("per-task-visible")
    tail = _PRINTED_INDEXES.search(said.value) if said is not None else None
    if said is None or tail is None:
        return None
    command, indexes = said.value[:tail.start()], [int(x) for x in tail.group().split()]
    distinct = sorted(set(indexes))
    if not _ONE_GPU_PER_TASK.search(command) or len(indexes) < 4 or len(distinct) == len(indexes):
        return None
    return finding(
        "env.visible-devices", Severity.FAIL,
        f"{len(indexes)} tasks each asked for a GPU of their own, but share {plural(len(distinct), 'GPU')} "
        f"({distinct[0]}-{distinct[-1]})",
        "The launcher's GPU binding set the same visible device for several tasks: they compete for a few GPUs "
        "while the node's others stay idle. The variable is right to exist; its values are the launcher's.",
        [str(said.source)],
        Fix("Check the launcher's GPU binding (Flux's mpibind plugin, Slurm's --gpu-bind), then count the devices "
            "the tasks get:", [_recount(command, len(indexes))]),
    )


def _recount(command: str, tasks: int) -> str:
    """The launcher's command rebuilt from what rocmdoctor knows (never the pasted text): one line per GPU, the
    number of tasks on it."""
    var = re.search(r"(?:ROCR|HIP|CUDA)_VISIBLE_DEVICES", command)
    name = var.group() if var else "ROCR_VISIBLE_DEVICES"
    launch = f"flux run -n {tasks} -g 1" if "flux" in command else f"srun -n {tasks} --gpus-per-task=1"
    return f"{launch} bash -c 'echo ${name}' | sort -n | uniq -c"


def _indexes(value: str) -> list[int] | None:
    parts = [p.strip() for p in value.split(",") if p.strip()]
    if not parts or not all(re.fullmatch(r"-?\d{1,3}", p) for p in parts):
        return None
    return [int(p) for p in parts]


def _rocr_then_hip(host: Host) -> Finding | None:
    """ROCR_VISIBLE_DEVICES filters first and renumbers what it leaves from 0; HIP_VISIBLE_DEVICES and
    CUDA_VISIBLE_DEVICES then index into that list. Both set to the same physical index hides every GPU."""
    rocr = host.env.get("ROCR_VISIBLE_DEVICES")
    visible = _indexes(rocr) if rocr is not None else None
    if visible is None:
        return None
    hidden = [f"{k}={host.env[k]}" for k in ("HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES") if k in host.env
              and (idx := _indexes(host.env[k])) is not None and all(i >= len(visible) or i < 0 for i in idx)]
    ev = [str(host.context[f"env-{k}"].source) for k in ("ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES",
                                                          "CUDA_VISIBLE_DEVICES") if f"env-{k}" in host.context]
    past = [f"{k}={host.env[k]}" for k in ("HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES") if k in host.env
            and (idx := _indexes(host.env[k])) is not None and any(i >= len(visible) for i in idx)]
    if not hidden and past:  # vllm#12572: ROCR=1 leaves one GPU (now 0); CUDA=0,1 then asks for a device 1
        return finding(
            "env.visible-devices", Severity.FAIL,
            f"ROCR_VISIBLE_DEVICES={rocr} and {', '.join(past)} together name a GPU that does not exist",
            f"ROCR_VISIBLE_DEVICES={rocr} leaves {plural(len(visible), 'GPU')}, renumbered from 0; {', '.join(past)} "
            "then asks for an index past them: 'invalid device ordinal' when that device is used (a launcher such as "
            "Ray sets ROCR_VISIBLE_DEVICES per worker while the parent's CUDA/HIP_VISIBLE_DEVICES is inherited).",
            ev or [f"{host.env_source or 'env.txt'}: ROCR_VISIBLE_DEVICES={rocr}", *past],
            Fix("Select the GPUs with one variable only (for Ray workers: RAY_EXPERIMENTAL_NOSET_HIP_VISIBLE_DEVICES=1 "
                "and its own per-worker setting, or unset the inherited one):",
                ["unset HIP_VISIBLE_DEVICES CUDA_VISIBLE_DEVICES", f"export ROCR_VISIBLE_DEVICES={rocr}"]),
        )
    if not hidden:
        return None
    return finding(
        "env.visible-devices", Severity.FAIL, f"ROCR_VISIBLE_DEVICES={rocr} and {', '.join(hidden)} together hide "
        "every GPU",
        f"ROCR_VISIBLE_DEVICES={rocr} leaves {plural(len(visible), 'GPU')}, renumbered from 0; "
        f"{', '.join(hidden)} then "
        "indexes past them: the runtime sees no GPU (torch.cuda.is_available() is False).",
        ev or [f"{host.env_source or 'env.txt'}: ROCR_VISIBLE_DEVICES={rocr}", *hidden],
        Fix("Select the GPU with one variable only:", ["unset HIP_VISIBLE_DEVICES CUDA_VISIBLE_DEVICES",
                                                       f"export ROCR_VISIBLE_DEVICES={rocr}"]),
    )
