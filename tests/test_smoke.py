"""`rocmdoctor smoke` for real: rocmdoctor/programs/smoke_torch.py runs in real subprocesses with the real CPU torch.

Every level's CPU path runs; every fault is injected inside the real program (a hang, the exact
hipErrorNoBinaryForGpu abort, an unknown abort, corrupted results) and an interpreter without torch is a real
venv. Only hipcc is a stand-in (no ROCm toolchain or GPU can exist here), see smoke_helpers.fake_hipcc.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from smoke_helpers import (
    HAS_TORCH,
    HAS_TRITON,
    TORCH_REASON,
    by_id,
    env_with,
    fake_hipcc,
    problems,
    process_gone,
    run,
)

from rocmdoctor.cli.app import main
from rocmdoctor.model import Severity
from rocmdoctor.smoke import PROGRAM, ProcessRun, SmokeOptions, _run_processes
from rocmdoctor.smoke import runner as smoke

needs_torch = pytest.mark.skipif(not HAS_TORCH, reason=TORCH_REASON)

NO_BINARY = "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!"


@needs_torch
def test_level1_cpu_passes_with_numbers_in_evidence() -> None:
    report = run(level=1)
    found = by_id(report.findings)
    assert not problems(report.findings), [f.to_dict() for f in problems(report.findings)]
    for fid in ("smoke.alloc-failed", "smoke.copy-mismatch", "smoke.kernel-mismatch", "smoke.gemm-mismatch"):
        assert found[fid].severity == Severity.OK, found[fid]
    gemm = found["smoke.gemm-mismatch"]
    assert len(gemm.evidence) == 3 and all("x tolerance" in e for e in gemm.evidence)
    assert any("bf16 matmul vs CPU float64: 0 element(s)" in e for e in gemm.evidence)
    # level 1 runs no level-2 check
    assert "smoke.triton-failed" not in found and "smoke.rccl-failed" not in found
    (dev,) = report.devices
    assert dev.completed and dev.exit_code == 0 and dev.key == "cpu"
    checks = {r.check: r for r in dev.rows}
    assert set(checks) >= {"alloc", "copy", "elementwise", "gemm:fp32", "gemm:fp16", "gemm:bf16"}
    assert checks["gemm:fp32"].value is not None and 0 <= checks["gemm:fp32"].value <= 1
    doc = report.to_dict()
    assert doc["schema"] == "rocmdoctor-smoke/1" and doc["mode"] == "cpu" and doc["level"] == 1
    assert doc["torch"]["version"].startswith("2.")
    json.dumps(doc, allow_nan=False)  # strict JSON


@needs_torch
def test_level3_cpu_runs_every_level_with_triton_interpreter_and_collectives(tmp_path) -> None:
    """Level 3 includes levels 1 and 2: Triton (interpreter mode), HIP (stand-in hipcc), bandwidth, TFLOPS,
    p2p between two CPU 'devices', a 2-process gloo all-reduce, sustained GEMM and the memory pattern test."""
    env = env_with(HIPCC=str(fake_hipcc(tmp_path, works=True)))
    report = run(level=3, env=env, duration=0.3)
    found = by_id(report.findings)
    assert not [f for f in problems(report.findings) if f.id != "smoke.throughput-unstable"], [
        f.to_dict() for f in problems(report.findings)]
    for fid in ("smoke.hip-failed", "smoke.p2p-failed", "smoke.rccl-failed", "smoke.stress-mismatch",
                "smoke.memory-errors"):
        assert found[fid].severity == Severity.OK, found[fid]
    if HAS_TRITON:
        assert found["smoke.triton-failed"].severity == Severity.OK
        assert any("interpreter mode" in e for e in found["smoke.triton-failed"].evidence)
    else:
        assert found["smoke.triton-failed"].severity == Severity.SKIP
    # performance is measured and reported; the CPU has no peak in the matrix, so it is not judged
    for fid in ("smoke.bandwidth-low", "smoke.gemm-slow"):
        assert found[fid].severity == Severity.INFO and "no peak known" in " ".join(found[fid].evidence)
    rows = {r.check: r for r in report.devices[0].rows}
    assert rows["bandwidth"].value > 0 and rows["bandwidth"].unit == "GB/s"
    assert rows["tflops:fp16"].value > 0 and rows["tflops:bf16"].value > 0
    assert rows["memtest"].extra["errors"] == 0 and rows["stress"].value >= 1
    assert 0 < rows["stability"].value <= 1
    ranks = [c for c in report.collectives if c.kind == "allreduce"]
    assert len(ranks) == 2 and all(c.completed for c in ranks)
    ar = [r for c in ranks for r in c.rows if r.check == "allreduce"]
    assert all(r.extra["backend"] == "gloo" and r.extra["mismatches"] == 0 and r.value > 0 for r in ar)
    p2p = next(c for c in report.collectives if c.kind == "p2p")
    assert p2p.rows[0].extra["pairs"][0]["mismatches"] == 0


@needs_torch
def test_wrong_results_at_level1_map_to_their_findings() -> None:
    report = run(level=1, env=env_with(ROCMDOCTOR_SMOKE_FAULT="wrong-result:copy,elementwise,gemm"))
    found = by_id(report.findings)
    for fid in ("smoke.copy-mismatch", "smoke.kernel-mismatch", "smoke.gemm-mismatch"):
        assert found[fid].severity == Severity.FAIL, found[fid]
        assert found[fid].fix is not None
    assert "1 byte(s) differ" in found["smoke.copy-mismatch"].detail
    assert found["smoke.alloc-failed"].severity == Severity.OK
    assert "smoke.crashed" not in found


@needs_torch
def test_wrong_results_at_levels_2_and_3_and_a_failing_hipcc(tmp_path) -> None:
    env = env_with(ROCMDOCTOR_SMOKE_FAULT="wrong-result:triton,p2p,allreduce,stress,memtest",
                   HIPCC=str(fake_hipcc(tmp_path, works=False)))
    report = run(level=3, env=env, duration=0.2)
    found = by_id(report.findings)
    expect = ["smoke.p2p-failed", "smoke.rccl-failed", "smoke.stress-mismatch", "smoke.memory-errors",
              "smoke.hip-failed"] + (["smoke.triton-failed"] if HAS_TRITON else [])
    for fid in expect:
        assert found[fid].severity == Severity.FAIL, found[fid]
    assert "unsupported HIP gpu architecture" in found["smoke.hip-failed"].detail
    assert found["smoke.gemm-mismatch"].severity == Severity.OK  # only the listed checks were corrupted
    assert "1 word(s) wrong" in " ".join(found["smoke.memory-errors"].evidence)


@needs_torch
def test_hang_is_killed_at_timeout_with_its_whole_process_group() -> None:
    t0 = time.monotonic()
    report = run(level=1, timeout=4.0, env=env_with(ROCMDOCTOR_SMOKE_FAULT="hang"))
    assert time.monotonic() - t0 < 60
    found = by_id(report.findings)
    assert found["smoke.timeout"].severity == Severity.FAIL
    assert "killed after 4 s" in found["smoke.timeout"].evidence[0]
    (dev,) = report.devices
    assert dev.timed_out and dev.exit_code == -9
    assert dev.children, "the hang fault reports its grandchild"
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not all(process_gone(p) for p in [dev.pid, *dev.children]):
        time.sleep(0.1)
    assert process_gone(dev.pid) and all(process_gone(p) for p in dev.children)
    assert "smoke.crashed" not in found


@needs_torch
def test_abort_with_no_binary_for_gpu_maps_to_its_finding_and_fix() -> None:
    report = run(level=1, env=env_with(ROCMDOCTOR_SMOKE_FAULT="abort-nobinary"))
    found = by_id(report.findings)
    f = found["smoke.no-binary-for-gpu"]
    assert f.severity == Severity.FAIL
    assert any(NO_BINARY in e for e in f.evidence)
    assert f.fix is not None and any("rocmdoctor install torch" in c for c in f.fix.commands)
    assert "HSA_OVERRIDE_GFX_VERSION" in f.fix.explanation
    assert "smoke.crashed" not in found  # a known signature is not "unknown"
    assert report.devices[0].signal_name == "SIGABRT"
    assert NO_BINARY in report.devices[0].stderr


@needs_torch
def test_abort_with_unknown_text_is_crashed() -> None:
    report = run(level=1, env=env_with(ROCMDOCTOR_SMOKE_FAULT="abort"))
    found = by_id(report.findings)
    assert found["smoke.crashed"].severity == Severity.FAIL
    assert "SIGABRT" in found["smoke.crashed"].evidence[0]
    assert "rocmdoctor test fault" in found["smoke.crashed"].evidence[0]


def test_interpreter_without_torch_is_no_torch(tmp_path) -> None:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "venv")], check=True,
                   timeout=120)
    py = tmp_path / "venv" / "bin" / "python"
    env = env_with()
    env.pop("PYTHONPATH", None)
    report = run(level=1, python=str(py), env=env)
    found = by_id(report.findings)
    assert found["smoke.no-torch"].severity == Severity.FAIL
    assert "torch" in found["smoke.no-torch"].detail
    assert [f.id for f in problems(report.findings)] == ["smoke.no-torch"]


@needs_torch
def test_no_usable_gpu_fails_and_never_pretends() -> None:
    """The CPU torch has no GPU: `check --live`'s entry point must say so, as a failure."""
    findings = smoke.live_findings(sys.executable, None, timeout=120)
    found = by_id(findings)
    assert found["smoke.no-gpu"].severity == Severity.FAIL
    assert "CPU-only build" in found["smoke.no-gpu"].detail  # the real CPU torch says why, not just "no GPU"
    assert found["smoke.no-gpu"].fix.commands == [f"rocmdoctor install torch --python {sys.executable}"]
    assert not [f for f in findings if f.severity == Severity.OK]  # nothing was verified


@needs_torch
def test_cli_json_and_exit_codes(capsys) -> None:
    code = main(["smoke", "--device", "cpu", "--level", "1", "--json", "--quick"])
    out = capsys.readouterr().out
    doc = json.loads(out)
    assert code == 0
    assert doc["schema"] == "rocmdoctor-smoke/1" and doc["devices"][0]["status"] == "ok"
    assert {c["check"] for c in doc["devices"][0]["checks"]} >= {"copy", "gemm:bf16"}
    assert all(f["severity"] in ("ok", "skip", "info") for f in doc["findings"])

    code = main(["smoke", "--level", "1", "--quick"])  # GPU mode with a CPU torch: nothing verified
    out = capsys.readouterr().out
    assert code == 1 and "smoke.no-gpu" in out, out


@pytest.mark.parametrize("argv", [
    ["smoke", "--python", "/nonexistent/python3"],
    ["smoke", "--devices", "0,x"],
    ["smoke", "--devices", "1,1"],
    ["smoke", "--device", "gpu"],
    ["smoke", "--device", "cpu", "--devices", "0"],
    ["smoke", "--timeout", "-3"],
    ["smoke", "--level", "4"],
])
def test_bad_input_exits_2_with_one_line(argv, capsys) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.strip()


def test_runner_isolates_a_hung_process_from_a_healthy_one() -> None:
    """Per-process deadlines: a program that never answers is killed; the other one's records survive."""
    opts = SmokeOptions(python=sys.executable, timeout=3.0)
    hung = ProcessRun("hung", "device", [sys.executable, "-c", "import time; time.sleep(60)"])
    ok = ProcessRun("ok", "device", [sys.executable, "-c", 'print(\'{"type": "done", "elapsed_s": 0}\')'])
    started: list[str] = []

    def on_record(run: ProcessRun, rec: dict) -> list[ProcessRun]:
        started.append(run.key)
        if run.key == "ok":  # like the enumeration record naming more GPUs: start one more
            return [ProcessRun("late", "device", [sys.executable, "-c", "print('not json')"])]
        return []

    runs = [hung, ok]
    t0 = time.monotonic()
    _run_processes(runs, opts, on_record)
    assert time.monotonic() - t0 < 30
    assert hung.timed_out and hung.exit_code == -9 and process_gone(hung.pid)
    assert ok.completed and not ok.timed_out
    late = runs[-1]
    assert late.key == "late" and late.exit_code == 0 and late.records == []  # garbage lines are ignored
    assert started == ["ok"]


def test_program_is_standalone() -> None:
    """rocmdoctor/programs/smoke_torch.py must not import rocmdoctor (it runs in the user's interpreter)."""
    text = PROGRAM.read_text()
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(("import ", "from ")):
            assert "rocmdoctor" not in stripped, line


def test_runner_returns_even_when_a_grandchild_keeps_the_pipes_open(monkeypatch) -> None:
    """A killed program whose daemonised grandchild (own session, out of reach of the group kill) still holds
    stdout: the runner stops waiting after a grace period instead of hanging."""
    monkeypatch.setattr(smoke, "KILL_GRACE", 1.0)
    code = ("import json, subprocess, sys, time\n"
            "p = subprocess.Popen([sys.executable, '-c', 'import os, time; os.setsid(); time.sleep(60)'])\n"
            "print(json.dumps({'type': 'fault', 'child_pid': p.pid}), flush=True)\n"
            "time.sleep(60)\n")
    run = ProcessRun("cuda:0", "device", [sys.executable, "-c", code], index=0)
    t0 = time.monotonic()
    try:
        _run_processes([run], SmokeOptions(python=sys.executable, timeout=2.0))
        assert time.monotonic() - t0 < 20
        assert run.timed_out and run.children
        assert process_gone(run.pid)  # killed (a zombie until its reader reaps it)
    finally:
        for pid in run.children:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


@pytest.mark.parametrize(("usable", "cpu", "level", "plan"), [
    (["cuda:0"], False, 2, ([], ["cuda:0"])),  # one GPU: no peer copies, a one-rank all-reduce
    (["cuda:0", "cuda:1"], False, 2, (["cuda:0", "cuda:1"], ["cuda:0", "cuda:1"])),
    (["cuda:0", "cuda:2"], False, 3, (["cuda:0", "cuda:2"], ["cuda:0", "cuda:2"])),
    (["cuda:0", "cuda:1"], False, 1, ([], [])),  # level 1 runs no collectives
    ([], False, 2, ([], [])),  # no GPU finished its checks: nothing to pair
    (["cpu"], True, 2, (["cpu", "cpu"], ["cpu", "cpu"])),  # the developer mode runs two gloo ranks
])
def test_collective_plan(usable: list[str], cpu: bool, level: int, plan: tuple) -> None:
    assert smoke.collective_plan(usable, SmokeOptions(python="python3", level=level, cpu=cpu)) == plan


@needs_torch
def test_single_rank_allreduce_verifies_the_library_without_a_bus_bandwidth() -> None:
    """What one GPU runs at level 2 (a world of one), here through gloo on the CPU, judged."""
    argv = [sys.executable, str(PROGRAM), "--mode", "allreduce", "--device", "cpu", "--level", "2", "--quick",
            "--rank", "0", "--world-size", "1", "--backend", "gloo",
            "--init-method", f"tcp://127.0.0.1:{smoke._free_port()}"]
    rank = ProcessRun("allreduce:0", "allreduce", argv, index=0)
    _run_processes([rank], SmokeOptions(python=sys.executable, level=2, timeout=120, env=env_with()))
    assert rank.completed, rank.stderr
    rec = next(r for r in rank.records if r.get("check") == "allreduce")
    assert rec["status"] == "ok" and rec["world_size"] == 1 and "value" not in rec, rec
    assert "no bus bandwidth" in rec["detail"]
    dev = ProcessRun("cuda:0", "device", ["python"], index=0)
    dev.records, dev.exit_code = [{"type": "start"}, {"type": "done"}], 0
    report = smoke.SmokeReport(options=SmokeOptions(python="python3", level=2), devices=[dev], collectives=[rank])
    found = by_id(smoke.judge(report, None, None))
    assert found["smoke.rccl-failed"].severity == Severity.OK
    assert found["smoke.p2p-failed"].severity == Severity.SKIP and "one GPU" in found["smoke.p2p-failed"].title


def _sysfs(root, vendors: list[str], nvidia: int = 0):
    """A /sys/class/drm (and /proc/driver/nvidia) tree with the layout the kernel exposes, one node per vendor."""
    for i, vendor in enumerate(vendors):
        dev = root / "sys" / "class" / "drm" / f"renderD{128 + i}" / "device"
        dev.mkdir(parents=True)
        (dev / "vendor").write_text(vendor + "\n")
    (root / "sys" / "class" / "drm" / "card0").mkdir(parents=True, exist_ok=True)  # not a render node
    for i in range(nvidia):
        (root / "proc" / "driver" / "nvidia" / "gpus" / f"0000:{i:02x}:00.0").mkdir(parents=True)
    return str(root)


@pytest.mark.parametrize(("vendors", "nvidia", "env", "hint"), [
    (["0x1002"] * 8, 0, {}, 8),  # an 8-GPU MI300X node
    (["0x1002", "0x8086"], 0, {}, 1),  # an Intel iGPU's render node is not counted
    (["0x1002"] * 8, 0, {"HIP_VISIBLE_DEVICES": "0,1"}, 2),
    (["0x1002"] * 8, 0, {"ROCR_VISIBLE_DEVICES": ""}, 0),
    ([], 1, {}, 1),  # an H200 without nvidia-drm render nodes
    ([], 0, {}, 0),
])
def test_gpu_count_hint(tmp_path, vendors: list[str], nvidia: int, env: dict, hint: int) -> None:
    assert smoke.gpu_count_hint(env, root=_sysfs(tmp_path, vendors, nvidia)) == hint


@needs_torch
def test_guessed_gpus_that_torch_does_not_see_are_dropped(monkeypatch) -> None:
    """Three processes start at once on the hint; the CPU torch sees none: one no-gpu finding, no ghosts."""
    monkeypatch.setattr(smoke, "gpu_count_hint", lambda env=None, root="/": 3)
    opts = SmokeOptions(python=sys.executable, level=1, timeout=120, quick=True, env=env_with())
    said: list[str] = []
    report = smoke.run_smoke(opts, progress=said.append)
    assert said[0] == "level 1: starting 3 process(es)"
    assert [r.key for r in report.devices] == ["cuda:0"]
    found = by_id(report.findings)
    assert found["smoke.no-gpu"].severity == Severity.FAIL
    assert "smoke.enumeration-mismatch" not in found and "smoke.crashed" not in found


def test_level3_timeout_grows_with_the_asked_duration() -> None:
    """Was: `--level 3 --duration 1800` killed at 1800 s and reported as a hung GPU."""
    assert SmokeOptions(python="p", level=3, duration=1800).process_timeout == smoke.DEFAULT_TIMEOUT[3] + 1800
    assert SmokeOptions(python="p", level=3, duration=1800, timeout=50).process_timeout == 50
    assert SmokeOptions(python="p", level=2, duration=1800).process_timeout == smoke.DEFAULT_TIMEOUT[2]
    assert smoke.DEFAULT_TIMEOUT[2] / 2 > _program_module().HIPCC_TIMEOUT  # a stuck hipcc is a `hip` failure


def _program_module():
    import importlib.util

    spec = importlib.util.spec_from_file_location("smoke_torch_t", PROGRAM)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _program_records(*args: str, env: dict | None = None) -> tuple[ProcessRun, list[dict]]:
    run_ = ProcessRun("x", "device", [sys.executable, str(PROGRAM), "--quick", *args])
    _run_processes([run_], SmokeOptions(python=sys.executable, timeout=120, env=env or env_with()))
    return run_, [r for r in run_.records if r.get("type") == "result"]


@needs_torch
@pytest.mark.parametrize("args", [
    ("--mode", "p2p", "--device", "cpu", "--peers", "cpu,cuda:1"),  # the CPU torch has no cuda:1
    ("--mode", "allreduce", "--device", "cuda:0", "--backend", "gloo", "--world-size", "1"),
], ids=["p2p", "allreduce"])
def test_collective_modes_report_a_failing_device_as_a_result_not_a_traceback(args: tuple[str, ...]) -> None:
    run_, results = _program_records(*args)
    assert run_.completed and "Traceback" not in run_.stderr, run_.stderr
    assert len(results) == 1 and results[0]["status"] == "fail", results


@needs_torch
def test_inherited_tunableop_is_turned_off_for_the_programs(tmp_path) -> None:
    """TunableOp would tune every GEMM shape inside the timed checks and write CSVs into the user's cwd."""
    probe = tmp_path / "probe.py"
    probe.write_text("import json, os\nprint(json.dumps({'type': 'env', 'v': os.environ.get("
                     "'PYTORCH_TUNABLEOP_ENABLED')}))\n")
    run_ = ProcessRun("x", "device", [sys.executable, str(probe)])
    _run_processes([run_], SmokeOptions(python=sys.executable, timeout=60,
                                        env=env_with(PYTORCH_TUNABLEOP_ENABLED="1")))
    assert run_.records == [{"type": "env", "v": "0"}]


@needs_torch
def test_stress_reports_bitwise_repeatability_and_a_percentile_stability() -> None:
    _run, results = _program_records("--device", "cpu", "--level", "3", "--duration", "0.5")
    by_check = {r["check"]: r for r in results}
    assert by_check["stress"]["status"] == "ok" and by_check["stress"]["not_bitwise"] == 0
    st = by_check["stability"]
    assert st["unit"] == "p10/median" and st["tflops_min"] <= st["tflops_p10"] <= st["tflops_median"]
    assert 0 < st["value"] <= 1
