"""Root causes (data/causes.toml, judge.causes) and the wrong conclusions issue 12 lists, through the real CLI
and the real pipeline. Inputs are real lines: the DKMS fixture (ROCm/ROCm#2886) and rocminfo's own failure text."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from rocmdoctor.bundle import load_host
from rocmdoctor.diagnose import judge_host
from rocmdoctor.judge.causes import assign, problems, rules
from rocmdoctor.model import Finding, Fix, GpuInfo, Host, Severity, TorchInfo

ROOT = Path(__file__).resolve().parent.parent
DKMS = ROOT / "fixtures" / "rx7900xtx-dkms-build-fails-kernel-6.5"
ROCMINFO_FAILED = (
    "$ rocminfo\nROCk module is loaded\n"
    "hsa api call failure at: /long_pathname_so_that_rpms_can_package_the_debug_info/src/rocminfo/rocminfo.cc:1306\n"
    "Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources.\n"
)


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rocmdoctor", *args], capture_output=True, text=True, timeout=60,
                          cwd=ROOT, env=dict(os.environ, NO_COLOR="1", COLUMNS="200"))


def test_dkms_chain_is_one_problem_with_its_evidence():
    report = json.loads(cli("check", "--from", str(DKMS), "--json").stdout)
    by_id = {}
    for f in report["findings"]:
        by_id.setdefault(f["id"], []).append(f)
    assert all("cause" in f for f in report["findings"])
    assert [p["cause"] for p in report["problems"]] == ["driver.dkms-breakage"]
    assert report["problems"][0]["try_first"] is True
    for fid in ("driver.dkms-failed", "log.dkms-build-error", "log.dkms-crash-report"):
        assert {f["cause"] for f in by_id[fid]} == {"driver.dkms-breakage"}, fid
    assert by_id["driver.dkms-breakage"][0]["cause"] is None
    # the stale crash report is evidence, never its own failure with `rm`
    crash = by_id["log.dkms-crash-report"][0]
    assert crash["severity"] == "info"
    assert not any("rm " in c for c in (crash["fix"] or {}).get("commands", []))


def test_human_output_says_one_problem_and_shows_the_chain_under_v():
    plain = cli("check", "--from", str(DKMS)).stdout
    assert plain.strip().splitlines()[-1].startswith("! rocmdoctor found 1 problem (")
    assert "follow from this (-v shows them)" in plain
    assert "log.dkms-build-error" not in plain.split("Known errors in logs")[-1].split("\n!")[0].replace(
        "follows from", "")
    verbose = cli("check", "--from", str(DKMS), "-v").stdout
    assert re.search(r"↳ .*log\.dkms-crash-report", verbose)


def test_fixes_are_ordered_and_the_first_is_marked():
    fs = [
        Finding("torch.not-rocm-build", Severity.FAIL, "cuda torch",
                fix=Fix("reinstall", ["rocmdoctor install torch"])),
        Finding("torch.gpu-unavailable", Severity.FAIL, "no gpu"),
        Finding("perm.kfd-access", Severity.FAIL, "no access", fix=Fix("groups", ["sudo usermod -aG render me"])),
        Finding("gpu.igpu-visible", Severity.WARN, "igpu"),
    ]
    roots = assign(fs)
    assert [r.id for r in roots] == ["perm.kfd-access", "torch.not-rocm-build", "gpu.igpu-visible"]
    assert fs[1].cause == "perm.kfd-access"  # the first rule that applies wins
    probs = problems(fs)
    assert [p["try_first"] for p in probs] == [True, False, False]
    from io import StringIO

    from rocmdoctor.report.render import render_terminal

    class Out(StringIO):
        encoding = "utf-8"

    out = Out()
    render_terminal(None, fs, file=out)
    assert out.getvalue().count("Fix (try this first):") == 1
    assert "3 problems (4 findings" in out.getvalue()


def test_chains_resolve_to_the_deepest_cause():
    fs = [Finding("log.no-hip-gpus", Severity.FAIL, "x"), Finding("driver.amdgpu-not-loaded", Severity.FAIL, "y"),
          Finding("driver.dkms-failed", Severity.FAIL, "z")]
    assign(fs)
    assert [f.cause for f in fs] == ["driver.dkms-failed", "driver.dkms-failed", None]


def test_an_unlisted_distribution_does_not_explain_a_runtime_failure():
    """A rule with when = "fail" holds only for a failing cause: ROCm under WSL on an unsupported release explains
    rocminfo failing; Arch merely not on AMD's list (a warning) does not (ROCm/ROCm#6166: an iGPU unit broke kfd)."""
    warned = [Finding("os.not-supported", Severity.WARN, "x"), Finding("rocm.runtime-failed", Severity.FAIL, "y"),
              Finding("log.package-install-failed", Severity.FAIL, "z")]
    assign(warned)
    assert [f.cause for f in warned] == [None, None, "os.not-supported"]
    failed = [Finding("os.not-supported", Severity.FAIL, "x"), Finding("rocm.runtime-failed", Severity.FAIL, "y")]
    assign(failed)
    assert [f.cause for f in failed] == [None, "os.not-supported"]


def test_cause_rules_are_well_formed_data():
    assert len(rules()) >= 10
    for r in rules():
        assert re.fullmatch(r"[a-z]+\.[a-z0-9-]+", r.cause)
        assert r.cause not in r.explains
        assert all(re.fullmatch(r"[a-z]+\.[a-z0-9-]+", e) for e in r.explains)


# ------------------------------------------------------------------------------ wrong conclusions


def paste(tmp_path: Path, text: str) -> Host:
    p = tmp_path / "paste.txt"
    p.write_text(text)
    return load_host(p)


def test_rocminfo_failing_with_rock_loaded_is_not_none_found(tmp_path: Path):
    host = paste(tmp_path, ROCMINFO_FAILED)
    found = {f.id: f for f in judge_host(host)}
    assert found["rocm.runtime-failed"].severity == Severity.FAIL
    assert "gpu.none-found" not in found
    assert found["rocm.not-installed"].severity != Severity.OK  # a failed rocminfo is not "user space present"


def test_rocminfo_permission_denied_is_permissions_not_runtime(tmp_path: Path):
    host = paste(tmp_path, "ROCk module is loaded\nUnable to open /dev/kfd read-write: Permission denied\n")
    ids = {f.id for f in judge_host(host) if f.severity in (Severity.WARN, Severity.FAIL)}
    assert "perm.kfd-access" in ids and "rocm.runtime-failed" not in ids


def test_no_modprobe_on_wsl(tmp_path: Path):
    host = paste(tmp_path, "Linux DESKTOP 5.15.167.4-microsoft-standard-WSL2 #1 SMP Tue Nov 5 00:21:55 UTC 2024 "
                           "x86_64 x86_64 x86_64 GNU/Linux\nRuntimeError: No HIP GPUs are available\n")
    assert host.kernel.is_wsl
    for f in judge_host(host):
        assert not (f.fix and any("modprobe" in c for c in f.fix.commands)), f.id
        assert not (f.id == "driver.amdgpu-not-loaded" and f.severity == Severity.FAIL)


def test_rocm_newer_than_the_data_is_not_unsupported():
    from rocmdoctor import matrix as matrix_mod

    m = matrix_mod.load()
    host = Host(gpus=[GpuInfo(index=0, name="AMD Instinct MI300X", gfx_by_source={"kfd": "gfx942"})],
                torch=TorchInfo(version="2.10.0.dev20251001+rocm7.13"))
    found = [f for f in judge_host(host, matrix=m) if f.id == "gpu.arch-unsupported"]
    assert found and all(f.severity == Severity.INFO for f in found), [(f.severity, f.title) for f in found]
    assert "newer than rocmdoctor's data" in found[0].title
    assert "6.0.0" not in found[0].detail or "through" in found[0].detail


@pytest.mark.parametrize("text", ["hello\nplease help, my GPU does not work\n", "\n\n   x\n"])
def test_nothing_judged_exits_2_with_one_line(tmp_path: Path, text: str):
    p = tmp_path / "paste.txt"
    p.write_text(text)
    proc = cli("check", "--from", str(p))
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1
    assert "rocmdoctor capture" in proc.stderr and "nothing failed" not in proc.stdout.lower()


def test_discrete_gfx906_named_like_an_apu_is_not_integrated():
    from rocmdoctor import matrix as matrix_mod
    from rocmdoctor.diagnose import enrich

    m = matrix_mod.load()
    host = Host(gpus=[GpuInfo(index=0, name="AMD Radeon Graphics", is_apu=True, gfx_by_source={"rocminfo": "gfx906"}),
                      GpuInfo(index=1, name="AMD Radeon Graphics", is_apu=True, gfx_by_source={"rocminfo": "gfx1036"})])
    enrich(host, m)
    assert [g.is_apu for g in host.gpus] == [False, True]


def test_every_id_in_the_cause_rules_is_a_reported_id():
    from rocmdoctor.judge.registry import all_ids

    known = set(all_ids())
    used = {i for r in rules() for i in (r.cause, *r.explains)}
    assert not used - known, sorted(used - known)
