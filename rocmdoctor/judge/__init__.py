"""Judging: the check registry and the check modules (each registers its checks when imported).

Every check module is imported here, by name. Python runs this file before any ``rocmdoctor.judge.*``
module can be used, so the registry is complete whenever :func:`rocmdoctor.judge.registry.all_checks`
runs, and the registry needs no import of the check modules (no cycle). There is deliberately no
``try``: a check module that fails to import is a broken install, and dropping its area would turn the
host "healthy" (fail open); the ImportError propagates and the CLI exits 3 (internal error).

The import order is the order the checks run and their findings are listed in.
"""

from __future__ import annotations

# isort: off
import rocmdoctor.judge.distro as distro
import rocmdoctor.judge.system as system
import rocmdoctor.judge.gpu as gpu
import rocmdoctor.judge.gpu_override as gpu_override
import rocmdoctor.judge.gpu_topology as gpu_topology
import rocmdoctor.judge.rocm as rocm
import rocmdoctor.judge.perm as perm
import rocmdoctor.judge.torch as torch
import rocmdoctor.judge.env as env
import rocmdoctor.judge.logs as logs
import rocmdoctor.judge.container as container
import rocmdoctor.judge.context as context
import rocmdoctor.judge.health as health
import rocmdoctor.judge.secureboot as secureboot
import rocmdoctor.judge.live as live
# isort: on

CHECK_MODULES = (distro, system, gpu, gpu_override, gpu_topology, rocm, perm, torch, env, logs, container, context,
                 health, secureboot, live)
