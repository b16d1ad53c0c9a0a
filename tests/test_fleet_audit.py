"""fleet/audit.py fails closed: a check that cannot run on a host is an error on that host, never "healthy".

Before issue 15 the audit returned *no findings* when the judge raised NotImplementedError (or could not be
imported), so a broken install reported every host ok. These tests judge a real fixture's bundle (the same
bytes a host sends back) through the audit's own load-and-judge step with the judge made to raise.
"""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest

from rocmdoctor import matrix as matrix_mod
from rocmdoctor.fleet import audit as audit_mod
from rocmdoctor.fleet.aggregate import HostAudit, aggregate
from rocmdoctor.fleet.hosts import Target
from rocmdoctor.fleet.status import HostStatus
from rocmdoctor.fleet.transport import HostResult
from rocmdoctor.model import Severity
from rocmdoctor.paths import FIXTURES_DIR

HEALTHY = FIXTURES_DIR / "derived-healthy-mi210-x4-rocm6.2.2"


def _bundle(src: Path) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for part in ("root", "cmd"):
            if (src / part).exists():
                tar.add(src / part, arcname=f"rocmdoctor-capture/{part}")
    return buf.getvalue()


def _audit_host(name: str, tmp_path: Path) -> HostAudit:
    res = HostResult(target=Target(name), status=HostStatus.OK, bundle=_bundle(HEALTHY))
    audit = HostAudit(name=name, status=res.status)
    audit_mod._load_and_judge(audit, res, tmp_path, False, audit_mod.AuditOptions(), matrix_mod.load())
    return audit


@pytest.fixture(scope="module")
def healthy_is_ok(tmp_path_factory) -> HostAudit:
    """The control: the same bundle judged normally is a healthy host (so the failures below are the judge's)."""
    return _audit_host("good", tmp_path_factory.mktemp("good"))


def test_the_fixture_bundle_is_a_healthy_host(healthy_is_ok: HostAudit):
    assert healthy_is_ok.status == HostStatus.OK and healthy_is_ok.fingerprint is not None
    assert healthy_is_ok.worst.rank < Severity.FAIL.rank


@pytest.mark.parametrize("exc", [RuntimeError("boom"), NotImplementedError("check not written"),
                                 ImportError("cannot import name 'x'")])
def test_a_judge_exception_on_one_host_makes_that_host_an_error(exc, monkeypatch, tmp_path, healthy_is_ok):
    def judge(host, **kw):  # type: ignore[no-untyped-def]
        raise exc

    monkeypatch.setattr(audit_mod, "judge_host", judge)
    bad = _audit_host("bad", tmp_path)
    assert [f.id for f in bad.findings] == ["fleet.check-crashed"]
    assert bad.findings[0].severity == Severity.ERROR and type(exc).__name__ in bad.findings[0].detail
    report = aggregate([healthy_is_ok, bad])
    assert report.exit_code == 1
    assert [h for h, _, sev in report.drain] == ["bad"] and report.drain[0][2] == Severity.ERROR


def test_an_unloadable_matrix_is_a_crash_not_a_fleet_of_unjudged_hosts(monkeypatch):
    def broken() -> None:
        raise RuntimeError("matrix data missing")

    monkeypatch.setattr(audit_mod.matrix_mod, "load", broken)
    with pytest.raises(RuntimeError, match="matrix data missing"):
        audit_mod.run_audit([Target("h1")], audit_mod.AuditOptions())
