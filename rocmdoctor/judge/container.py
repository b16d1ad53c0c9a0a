"""Container checks for ``rocmdoctor check``: is Docker usable, and is the AMD container runtime set up?

They judge the captured ``docker info`` (``cmd/docker-info.json`` -> ``Host.container``) and the user's
groups. Docker is optional: when it is not installed or ``docker info`` was not captured the checks
skip, saying so, rather than warn about a tool the user may never run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from rocmdoctor.judge.registry import check
from rocmdoctor.model import Finding, Fix, Severity

if TYPE_CHECKING:
    from rocmdoctor.matrix import Matrix
    from rocmdoctor.model import Host

TOOLKIT_URL = "https://instinct.docs.amd.com/projects/container-toolkit/en/latest/"
DOCKER_GROUP_URL = "https://docs.docker.com/engine/install/linux-postinstall/"
_NOT_INSTALLED = ("command not found", "no such file or directory: 'docker'", "not installed",
                  "executable file not found")
_PERMISSION = ("permission denied",)


def _docker_missing(host: Host) -> bool:
    err = (host.container.docker_error or "").lower() if host.container else ""
    return "docker" in host.commands_missing or any(s in err for s in _NOT_INSTALLED)


def _skip(ids: tuple[str, ...], why: str) -> list[Finding]:
    return [Finding(id=i, severity=Severity.SKIP, title=why) for i in ids]


IDS = ("container.docker-unreachable", "container.docker-group", "container.amd-runtime")


@check(*IDS, title="Docker")
def docker_checks(host: Host, matrix: Matrix) -> list[Finding]:
    """Daemon reachable, user allowed to reach it, AMD runtime registered when Docker is in use."""
    del matrix
    info = host.container
    if _docker_missing(host):
        return _skip(IDS, "Docker is not installed (containers not checked)")
    if info is None or info.docker_reachable is None:
        return _skip(IDS, "docker info was not captured")
    return [_reachable(host), _group(host), _runtime(host)]


def _reachable(host: Host) -> Finding:
    info = host.container
    assert info is not None
    if info.docker_reachable:
        return Finding(id=IDS[0], severity=Severity.OK, title="Docker daemon reachable")
    err = (info.docker_error or "").strip()
    if any(s in err.lower() for s in _PERMISSION):
        return Finding(
            id=IDS[0], severity=Severity.WARN,
            title="Docker daemon refuses this user (permission denied on its socket)",
            detail="The daemon runs, but this user may not talk to it; see container.docker-group.",
            evidence=[err[:300]] if err else [],
        )
    return Finding(
        id=IDS[0], severity=Severity.WARN, title="Docker is installed but its daemon cannot be reached",
        detail="`docker run` and `rocmdoctor container test` need a running daemon.",
        evidence=[err[:300]] if err else [],
        fix=Fix(explanation="Start the daemon (and enable it at boot).",
                commands=["sudo systemctl enable --now docker"]),
    )


def _user_groups(host: Host) -> Optional[set[str]]:
    if host.user is None or not (host.user.groups or host.user.uid is not None):
        return None
    return set(host.user.groups)


def _group(host: Host) -> Finding:
    info = host.container
    assert info is not None
    groups = _user_groups(host)
    name = host.user.name if host.user and host.user.name else "this user"
    if groups is None:
        return Finding(id=IDS[1], severity=Severity.SKIP, title="user's groups were not captured")
    if host.user is not None and host.user.uid == 0:
        return Finding(id=IDS[1], severity=Severity.OK, title="running as root: the Docker socket is reachable")
    if "docker" in groups:
        return Finding(id=IDS[1], severity=Severity.OK, title=f"{name} is in the docker group")
    if info.docker_reachable:
        return Finding(id=IDS[1], severity=Severity.OK,
                       title=f"{name} is not in the docker group, but reaches the daemon (rootless or socket ACL)")
    return Finding(
        id=IDS[1], severity=Severity.WARN, title=f"{name} is not in the docker group",
        detail="Without it every docker command needs sudo, and containers started with sudo run as root.",
        evidence=[f"groups: {' '.join(sorted(groups)) or '(none)'}"],
        fix=Fix(explanation="Add the user to the docker group, then log out and back in (or run `newgrp docker`).",
                commands=["sudo usermod -aG docker $USER"], url=DOCKER_GROUP_URL),
    )


def _runtime(host: Host) -> Finding:
    info = host.container
    assert info is not None
    if not info.docker_reachable:
        return Finding(id=IDS[2], severity=Severity.SKIP, title="Docker daemon not reachable: runtimes unknown")
    runtimes = sorted(info.docker_runtimes)
    default = info.docker_default_runtime
    evidence = [f"runtimes: {', '.join(runtimes) or '(none)'}; default: {default or '(unknown)'}"]
    if "amd" in runtimes:
        how = "the default runtime" if default == "amd" else "use it with --runtime=amd -e AMD_VISIBLE_DEVICES=all"
        return Finding(id=IDS[2], severity=Severity.OK,
                       title=f"AMD Container Toolkit runtime configured ({how})", evidence=evidence)
    if default == "amd":
        return Finding(
            id=IDS[2], severity=Severity.WARN,
            title="Docker's default runtime is 'amd' but no 'amd' runtime is registered",
            detail="Every `docker run` will fail until the runtime is registered again.",
            evidence=evidence,
            fix=Fix(explanation="Re-register the AMD runtime with the toolkit.",
                    commands=["sudo amd-ctk runtime configure --runtime=docker", "sudo systemctl restart docker"],
                    url=TOOLKIT_URL),
        )
    return Finding(
        id=IDS[2], severity=Severity.INFO,
        title="AMD Container Toolkit runtime not configured (plain --device flags still work)",
        detail="`rocmdoctor container run-args` prints the --device /dev/kfd --device /dev/dri flags; the toolkit "
               "adds --runtime=amd and CDI (--device amd.com/gpu=all) GPU selection.",
        evidence=evidence,
        fix=Fix(explanation="Optional: install the AMD Container Toolkit and register its runtime.",
                commands=["sudo amd-ctk runtime configure --runtime=docker", "sudo systemctl restart docker"],
                url=TOOLKIT_URL),
    )
