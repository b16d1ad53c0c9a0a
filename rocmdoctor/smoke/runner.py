"""Start and supervise the smoke programs: one per GPU in parallel, then the peer-copy and all-reduce passes.

The programs run as subprocesses of the user's python (interpreter start and ``import torch`` dominate level 1),
each in its own process group with a hard timeout, because a stuck driver call or an abort in one GPU must
neither hang rocmdoctor nor take the other GPUs' results down. Each program prints JSON lines; the runner
collects them per process and hands the report to :func:`rocmdoctor.smoke.judge.judge`.
"""

from __future__ import annotations

import io
import json
import os
import queue
import signal
import socket
import subprocess
import threading
import time
from collections import deque
from typing import TYPE_CHECKING, Any, Callable, Optional, cast

from rocmdoctor.errors import BadInput, RocmdoctorError
from rocmdoctor.model import Finding, Host, Severity
from rocmdoctor.paths import PROGRAMS_DIR
from rocmdoctor.smoke.catalog import HANDLED_FATAL, fix_for
from rocmdoctor.smoke.judge import judge, thresholds_from
from rocmdoctor.smoke.model import ProcessRun
from rocmdoctor.smoke.options import DEFAULT_TIMEOUT, SmokeOptions, resolve_python
from rocmdoctor.smoke.report import SmokeReport

if TYPE_CHECKING:
    from rocmdoctor.matrix import Matrix

    _Events = queue.Queue[tuple["_Proc", Optional[dict[str, Any]]]]  # (process, record; None: it exited)

PROGRAM = PROGRAMS_DIR / "smoke_torch.py"
STDERR_KEEP = 64 * 1024
KILL_GRACE = 5.0  # seconds to wait for a killed program's pipes to close
MAX_LINE = 1 << 20
__all__ = ["DEFAULT_TIMEOUT", "PROGRAM", "SmokeReport", "judge", "live_findings", "live_run", "run_smoke"]


class _Proc:
    """A program in its own session/process group; reader threads feed one event queue."""

    def __init__(self, run: ProcessRun, env: dict[str, str], timeout: float, events: _Events) -> None:
        self.run = run
        self.events = events
        self.start = time.monotonic()
        self.deadline = self.start + timeout
        self.done = False
        self._err: deque[bytes] = deque()
        self._err_len = 0
        self.popen = subprocess.Popen(run.argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, env=env, start_new_session=True)
        run.pid = self.popen.pid
        self._err_thread = threading.Thread(target=self._read_err, daemon=True)
        self._err_thread.start()
        threading.Thread(target=self._read_out, daemon=True).start()

    def _read_err(self) -> None:
        stream = cast("io.BufferedReader", self.popen.stderr)  # a PIPE with the default buffering
        for chunk in iter(lambda: stream.read1(65536), b""):
            self._err.append(chunk)
            self._err_len += len(chunk)
            while self._err_len - len(self._err[0]) >= STDERR_KEEP and len(self._err) > 1:
                self._err_len -= len(self._err.popleft())

    def _read_out(self) -> None:
        assert self.popen.stdout is not None
        while True:
            line = self.popen.stdout.readline(MAX_LINE)
            if not line:
                break
            rec = _parse_line(line)
            if rec is not None:
                self.events.put((self, rec))
        self.popen.wait()
        self._err_thread.join(timeout=5)
        self.run.stderr = b"".join(self._err).decode("utf-8", "replace")[-STDERR_KEEP:]
        self.run.exit_code = self.popen.returncode
        self.run.elapsed_s = time.monotonic() - self.start
        self.events.put((self, None))

    def kill(self) -> None:
        """SIGKILL the whole group: a GPU call stuck in the driver ignores anything gentler."""
        self.run.timed_out = True
        self.deadline = time.monotonic() + KILL_GRACE  # then stop waiting for the pipes (see abandon)
        try:
            os.killpg(self.popen.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


    def abandon(self) -> None:
        """Killed, yet its pipes stay open (a grandchild that left the group holds them): stop waiting."""
        self.done = True
        self.run.exit_code = self.popen.poll()
        self.run.stderr = b"".join(list(self._err)).decode("utf-8", "replace")[-STDERR_KEEP:]
        self.run.elapsed_s = time.monotonic() - self.start


def _parse_line(line: bytes) -> Optional[dict[str, Any]]:
    """A JSON object with a "type", or None (the user's sitecustomize may print anything)."""
    try:
        rec = json.loads(line.decode("utf-8", "replace"))
    except ValueError:
        return None
    return rec if isinstance(rec, dict) and isinstance(rec.get("type"), str) else None


def _run_processes(runs: list[ProcessRun], opts: SmokeOptions,
                   on_record: Optional[Callable[[ProcessRun, dict[str, Any]], list[ProcessRun]]] = None) -> None:
    """Start every run at once, collect records until all have exited or been killed at their deadline.

    ``on_record`` may return more runs to start (the first GPU's enumeration names the others)."""
    env = dict(os.environ if opts.env is None else opts.env)
    env["PYTHONUNBUFFERED"] = "1"
    # An inherited PyTorch TunableOp (AMD recommends it on MI300X) would tune every GEMM shape inside the
    # timed checks and write its CSV results into the user's working directory.
    env["PYTORCH_TUNABLEOP_ENABLED"] = "0"
    events: _Events = queue.Queue()
    live: list[_Proc] = []

    def start(run: ProcessRun) -> None:
        try:
            live.append(_Proc(run, env, opts.process_timeout, events))
        except OSError as exc:
            run.fatal = {"reason": "spawn-failed", "detail": f"{type(exc).__name__}: {exc}"}
            run.exit_code = None

    for r in runs:
        start(r)
    while any(not p.done for p in live):
        now = time.monotonic()
        wait = max(0.0, min(p.deadline for p in live if not p.done) - now)
        try:
            proc, rec = events.get(timeout=min(wait, 1.0) + 0.01)
        except queue.Empty:
            proc, rec = None, None
        if proc is not None:
            if rec is None:
                proc.done = True
            else:
                proc.run.records.append(rec)
                if rec.get("type") == "fatal":
                    proc.run.fatal = rec
                elif rec.get("type") == "fault" and isinstance(rec.get("child_pid"), int):
                    proc.run.children.append(rec["child_pid"])
                if on_record is not None:
                    for extra in on_record(proc.run, rec):
                        runs.append(extra)
                        start(extra)
        now = time.monotonic()
        for p in live:
            if not p.done and now >= p.deadline:
                if p.run.timed_out:
                    p.abandon()
                else:
                    p.kill()


# ------------------------------------------------------------------------------------------------ orchestration
def run_smoke(opts: SmokeOptions, host: Optional[Host] = None, matrix: Optional[Matrix] = None,
              host_source: Optional[Callable[[], Optional[Host]]] = None,
              progress: Optional[Callable[[str], None]] = None) -> SmokeReport:
    """Run every level-``opts.level`` check and judge the results (never raises for a broken GPU stack).

    ``host_source`` is called in a thread while the programs run (a live capture costs a second or two)."""
    t0 = time.monotonic()
    say = progress or (lambda _msg: None)
    report = SmokeReport(options=opts)
    if matrix is None:
        matrix = _load_matrix()
    thresholds = thresholds_from(matrix)
    host_result = _capture_in_background(host, host_source)
    _device_phase(report, thresholds, say)
    _collective_phase(report, say)
    report.findings = judge(report, host_result(opts.process_timeout), matrix, thresholds)
    report.elapsed_s = time.monotonic() - t0
    return report


def _capture_in_background(host: Optional[Host], host_source: Optional[Callable[[], Optional[Host]]],
                           ) -> Callable[[float], Optional[Host]]:
    """``host``, or ``host_source()`` started in a thread now; the returned function waits for it (at most its
    timeout). A capture that fails as captures do (no permission, a tool missing: OSError, RocmdoctorError)
    only means "not compared"; any other exception is a bug and is raised here, never read as a host."""
    if host is not None or host_source is None:
        return lambda _timeout: host
    box: dict[str, Any] = {"host": None, "error": None}

    def capture() -> None:
        try:
            box["host"] = host_source()
        except (OSError, RocmdoctorError, subprocess.SubprocessError):
            box["host"] = None
        except BaseException as exc:  # re-raised in the caller's thread
            box["error"] = exc

    thread = threading.Thread(target=capture, daemon=True)
    thread.start()

    def result(timeout: float) -> Optional[Host]:
        thread.join(timeout=timeout)
        if box["error"] is not None:
            raise box["error"]
        host_found: Optional[Host] = box["host"]
        return host_found

    return result


def _device_phase(report: SmokeReport, thresholds: dict[str, float], say: Callable[[str], None]) -> None:
    """The per-device programs, in parallel; the first also enumerates.

    Without --devices, one process per GPU that sysfs shows starts at once (importing torch takes seconds:
    starting the others only after the first one's enumeration would pay for it twice); GPUs that the
    enumeration names beyond that start as soon as it arrives, and guessed ones that torch does not see are
    dropped."""
    opts = report.options
    tol = {d: [thresholds[f"{d}_rtol"], thresholds[f"{d}_atol"]] for d in ("fp32", "fp16", "bf16")}
    tol_arg = ["--tolerances", json.dumps(tol)]
    speculative: set[str] = set()
    if opts.cpu:
        specs = ["cpu"]
    elif opts.devices:
        specs = [f"cuda:{i}" for i in opts.devices]
    else:
        specs = [f"cuda:{i}" for i in range(max(1, gpu_count_hint(opts.env)))]
        speculative = set(specs[1:])
    runs = [_device_run(opts, spec, i == 0, tol_arg) for i, spec in enumerate(specs)]
    say(f"level {opts.level}: starting {len(specs)} process(es)")

    def on_record(run: ProcessRun, rec: dict[str, Any]) -> list[ProcessRun]:
        if rec.get("type") != "enumeration":
            return []
        report.enumeration = rec
        if opts.cpu or opts.devices or not rec.get("available"):
            return []
        count = int(rec.get("count") or 0)
        started = {r.key for r in runs}
        more = [f"cuda:{i}" for i in range(1, count) if f"cuda:{i}" not in started]
        if more:
            say(f"torch sees {count} GPUs: starting {len(more)} more process(es)")
        return [_device_run(opts, spec, False, tol_arg) for spec in more]

    _run_processes(runs, opts, on_record)
    report.devices = drop_guessed(runs, report.enumeration, speculative)
    for run in report.devices:
        _describe(run, report.enumeration)


def _collective_phase(report: SmokeReport, say: Callable[[str], None]) -> None:
    """Level 2+: peer copies between the GPUs that finished, then one all-reduce rank per GPU."""
    opts = report.options
    peers, ranks_on = collective_plan([r.key for r in report.devices if r.completed], opts)
    if peers:
        say("peer-to-peer copies")
        p2p = ProcessRun("p2p", "p2p", _argv(opts, "--mode", "p2p", "--device", peers[0], "--peers", ",".join(peers)))
        _run_processes([p2p], opts)
        report.collectives.append(p2p)
    if ranks_on:
        say("all-reduce")
        port = _free_port()
        backend = "gloo" if opts.cpu else "nccl"
        ranks = [ProcessRun(f"allreduce:{i}", "allreduce", _argv(
            opts, "--mode", "allreduce", "--device", spec, "--rank", str(i), "--world-size", str(len(ranks_on)),
            "--backend", backend, "--init-method", f"tcp://127.0.0.1:{port}",
            "--collective-timeout", str(max(10.0, opts.process_timeout * 0.8))), index=i)
            for i, spec in enumerate(ranks_on)]
        _run_processes(ranks, opts)
        report.collectives += ranks


def _free_port() -> int:
    """A free TCP port on 127.0.0.1 for the all-reduce rendezvous."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _argv(opts: SmokeOptions, *extra: str) -> list[str]:
    """The command line of one program run (level, --quick, --duration and ``extra``)."""
    argv = [opts.python, "-u", str(PROGRAM), "--level", str(opts.level), *extra]
    if opts.quick:
        argv.append("--quick")
    if opts.duration is not None:
        argv += ["--duration", str(opts.duration)]
    return argv


def gpu_count_hint(env: "Optional[dict[str, str]]" = None, root: "str" = "/") -> "int":  # noqa: UP037
    """How many GPUs torch will probably see, read from sysfs in a millisecond instead of importing torch.

    AMD and NVIDIA render nodes (``/sys/class/drm/renderD*/device/vendor``) and NVIDIA's
    ``/proc/driver/nvidia/gpus``, capped by the ``*_VISIBLE_DEVICES`` variables. Only a hint: a guess too high
    costs one process that finds no such device (dropped), one too low is corrected by the enumeration.
    Its source is also shipped to fleet hosts (``fleet audit --live``), hence Python 3.6 and quoted hints."""
    env = dict(os.environ if env is None else env)
    drm = os.path.join(root, "sys", "class", "drm")
    amd = 0
    try:
        nodes = [n for n in os.listdir(drm) if n.startswith("renderD")]
    except OSError:
        nodes = []
    for node in nodes:
        try:
            with open(os.path.join(drm, node, "device", "vendor")) as fh:
                amd += fh.read().strip().lower() == "0x1002"
        except OSError:
            continue
    try:
        nvidia = len(os.listdir(os.path.join(root, "proc", "driver", "nvidia", "gpus")))
    except OSError:
        nvidia = 0
    n = max(amd, nvidia)
    for var in ("ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES"):
        if var in env:
            n = min(n, len([x for x in env[var].split(",") if x.strip()]))
    return min(n, 64)


def drop_guessed(runs: list[ProcessRun], enumeration: Optional[dict[str, Any]], guessed: set[str]) -> list[ProcessRun]:
    """The runs that stand for a GPU: a guessed one (started from :func:`gpu_count_hint`) only when torch's
    enumeration counts its index, or, without an enumeration, when it did not end like the first one (no torch,
    no GPU) — its result would be a duplicate, or a GPU that is not there."""
    count = int((enumeration or {}).get("count") or 0)

    def keep(r: ProcessRun) -> bool:
        if r.key not in guessed:
            return True
        if enumeration:
            return (r.index or 0) < count
        return not (r.fatal and r.fatal.get("reason") in HANDLED_FATAL)

    return [r for r in runs if keep(r)]


def collective_plan(usable: list[str], opts: SmokeOptions) -> tuple[list[str], list[str]]:
    """(devices for the peer-copy pass, one all-reduce rank per device) for level >= 2, after the per-device
    phase so that they do not disturb its bandwidth numbers.

    One GPU has no peer to copy to, but its all-reduce still runs as a single rank: RCCL must load, initialise
    and reduce there too (a missing or mismatched librccl fails exactly this way). ``--device cpu`` runs two
    ranks on the CPU so that the gloo path of every collective is exercised by the tests."""
    if opts.level < 2 or not usable:
        return [], []
    if opts.cpu:
        return ["cpu", "cpu"], ["cpu", "cpu"]
    return (list(usable) if len(usable) >= 2 else []), list(usable)


def _device_run(opts: SmokeOptions, spec: str, enumerate_first: bool, tol_arg: list[str]) -> ProcessRun:
    """The run for one device (``cuda:N`` or ``cpu``); the first one also enumerates."""
    extra = ["--mode", "device", "--device", spec, *tol_arg]
    if enumerate_first:
        extra.append("--enumerate")
    index = None if spec == "cpu" else int(spec.split(":")[1])
    return ProcessRun(spec, "device", _argv(opts, *extra), index=index)


def _describe(run: ProcessRun, enum: Optional[dict[str, Any]]) -> None:
    """Fill the run's name, arch, memory and compute units from torch's enumeration of its device."""
    for dev in (enum or {}).get("devices", []) or []:
        if not isinstance(dev, dict):
            continue
        if (run.key == "cpu" and dev.get("arch") == "cpu") or (run.index is not None and dev.get("index") == run.index
                                                               and dev.get("arch") != "cpu"):
            run.name = dev.get("name")
            run.arch = dev.get("arch")
            mem = dev.get("total_memory")
            run.memory_bytes = int(mem) if isinstance(mem, (int, float)) else None
            cus = dev.get("multi_processor_count")
            run.compute_units = int(cus) if isinstance(cus, int) and cus > 0 else None
            wgp_mode = ((enum or {}).get("env") or {}).get("GPU_ENABLE_WGP_MODE") != "0"
            if run.compute_units and wgp_mode and str(run.arch or "").startswith(("gfx10", "gfx11", "gfx12")):
                # RDNA runs in WGP mode: HIP counts work-group processors of 2 CUs each (ROCm/hip#3767,
                # ROCm/legacy-rocm-build#2082); GPU_ENABLE_WGP_MODE=0 makes it count CUs.
                run.compute_units *= 2


def _load_matrix() -> Matrix:
    """The matrix (peaks, thresholds, overrides). Not optional: a package whose matrix does not load is broken,
    and a smoke run without it would judge nothing against a peak while looking complete."""
    from rocmdoctor import matrix as matrix_mod

    return matrix_mod.load()


def live_findings(python: Optional[str], host: Optional[Host], timeout: float) -> list[Finding]:
    """Level 1 on every GPU the target interpreter's torch sees, as findings for ``check --live``."""
    return live_run(python, host, timeout)[0]


def live_run(python: Optional[str], host: Optional[Host],
             timeout: float) -> tuple[list[Finding], Optional[SmokeReport]]:
    """:func:`live_findings` and the report they came from (None when the interpreter cannot be run)."""
    try:
        py = resolve_python(python)
    except BadInput as exc:
        return [Finding("smoke.no-torch", Severity.FAIL, "The target interpreter cannot be run", detail=str(exc),
                        fix=fix_for("smoke.no-torch"))], None
    report = run_smoke(SmokeOptions(python=py, level=1, timeout=timeout), host=host)
    return report.findings, report
