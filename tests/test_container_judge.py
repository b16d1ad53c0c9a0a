"""Container checks of `rocmdoctor check`: daemon reachable, docker group, AMD container runtime."""

from __future__ import annotations

import pytest

from rocmdoctor.judge.container import IDS, docker_checks
from rocmdoctor.judge.registry import all_ids, run_checks
from rocmdoctor.model import ContainerInfo, Host, Severity, UserInfo


def _host(reachable=True, runtimes=("runc",), default="runc", error=None, groups=("alice", "docker"), uid=1000,
          missing=()):
    return Host(
        container=ContainerInfo(docker_reachable=reachable, docker_runtimes=list(runtimes),
                                docker_default_runtime=default, docker_error=error),
        user=UserInfo(name="alice", uid=uid, groups=list(groups)),
        commands_missing=list(missing),
    )


def _sev(host):
    return {f.id: f.severity for f in docker_checks(host, None)}


def test_ids_are_registered():
    assert set(IDS) <= set(all_ids())


def test_healthy_docker_with_amd_runtime():
    assert _sev(_host(runtimes=("runc", "amd"))) == dict.fromkeys(IDS, Severity.OK)


def test_runtime_absent_is_info_with_a_fix():
    found = {f.id: f for f in docker_checks(_host(), None)}
    assert found["container.amd-runtime"].severity == Severity.INFO
    assert "amd-ctk runtime configure --runtime=docker" in found["container.amd-runtime"].fix.commands[0]


def test_default_amd_runtime_missing_is_a_warning():
    assert _sev(_host(default="amd"))["container.amd-runtime"] == Severity.WARN


def test_permission_denied_warns_about_group():
    sev = _sev(_host(reachable=False, groups=("alice",),
                     error="permission denied while trying to connect to the Docker daemon socket"))
    assert sev["container.docker-unreachable"] == Severity.WARN
    assert sev["container.docker-group"] == Severity.WARN
    assert sev["container.amd-runtime"] == Severity.SKIP


def test_stopped_daemon_warns_with_start_fix():
    found = {f.id: f for f in docker_checks(_host(reachable=False, error="Cannot connect to the Docker daemon"),
                                            None)}
    assert found["container.docker-unreachable"].severity == Severity.WARN
    assert "systemctl" in found["container.docker-unreachable"].fix.commands[0]
    assert found["container.docker-group"].severity == Severity.OK  # in the group already


def test_reachable_without_group_is_fine_and_root_is_fine():
    assert _sev(_host(groups=("alice",)))["container.docker-group"] == Severity.OK
    assert _sev(_host(reachable=False, groups=(), uid=0, error="x"))["container.docker-group"] == Severity.OK


@pytest.mark.parametrize("host", [
    Host(),
    Host(container=ContainerInfo()),
    _host(reachable=False, missing=("docker",)),
    _host(reachable=False, error="exec: \"docker\": executable file not found in $PATH"),
])
def test_skips_when_not_captured_or_not_installed(host):
    assert set(_sev(host).values()) == {Severity.SKIP}


def test_through_the_registry():
    found = run_checks(_host(reachable=False, groups=("alice",), error="permission denied"), None,
                       select=list(IDS))
    assert {f.id for f in found} == set(IDS)
    assert all(f.severity != Severity.ERROR for f in found)
