"""Live GPU smoke tests: run ``rocmdoctor/programs/smoke_torch.py`` inside the target interpreter and judge the results.

A static check says the environment *should* work; only kernels that ran prove it. The programs run as
subprocesses of the user's python, **one per GPU and in parallel** (interpreter start and ``import torch``
dominate level 1), each in its own process group with a hard timeout, because a stuck driver call or an
abort in one GPU must neither hang rocmdoctor nor take the other GPUs' results down. Each program prints
JSON lines; this module parses them, maps known aborts on stderr (``hipErrorNoBinaryForGpu``...) to their
findings through the shared signature table, compares measured bandwidth and GEMM throughput with the
matrix's peak for the product, and builds the same :class:`Finding` objects as ``rocmdoctor check``.

Standard library only at import time (the matrix, the signature table and the host capture are imported
lazily and are optional), so ``python -m rocmdoctor.smoke --json`` works where typer/rich are missing.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Optional

from rocmdoctor.errors import BadInput
from rocmdoctor.model import Finding, Fix, Host, Severity
from rocmdoctor.paths import PROGRAMS_DIR
from rocmdoctor.words import plural

if TYPE_CHECKING:
    from rocmdoctor.matrix import Matrix

SCHEMA = "rocmdoctor-smoke/1"
PROGRAM = PROGRAMS_DIR / "smoke_torch.py"
DEFAULT_TIMEOUT = {1: 60.0, 2: 300.0, 3: 1800.0}  # per process; level 1 itself should take < 20 s
STDERR_KEEP = 64 * 1024
KILL_GRACE = 5.0  # seconds to wait for a killed program's pipes to close
MAX_LINE = 1 << 20

# Fallbacks when the matrix cannot be read; the reviewed values live in matrices/smoke.toml.
DEFAULT_THRESHOLDS = {
    "bandwidth_min_fraction": 0.5, "gemm_min_fraction": 0.3, "stability_min_ratio": 0.8,
    "memory_match_tolerance": 0.1,
    "fp32_rtol": 1.3e-5, "fp32_atol": 1e-4, "fp16_rtol": 1e-2, "fp16_atol": 1e-2,
    "bf16_rtol": 1.6e-2, "bf16_atol": 2e-2,
}
THRESHOLD_KEYS_FROM_MATRIX = ("bandwidth_min_fraction", "gemm_min_fraction", "stability_min_ratio",
                              "memory_match_tolerance", "fp32_rtol", "fp32_atol", "fp16_rtol", "fp16_atol",
                              "bf16_rtol", "bf16_atol")

# What each program check proves: check-name prefix -> (finding id, what, word for a problem).
CHECKS: dict[str, tuple[str, str, str]] = {
    "arch": ("smoke.arch-missing", "GPU architecture compiled into torch", "missing"),
    "alloc": ("smoke.alloc-failed", "Device memory allocation", "failed"),
    "copy": ("smoke.copy-mismatch", "Host↔device copies, byte for byte", "corrupted data"),
    "elementwise": ("smoke.kernel-mismatch", "Elementwise kernel vs CPU", "wrong results"),
    "gemm": ("smoke.gemm-mismatch", "fp32/fp16/bf16 matrix products vs CPU", "wrong results"),
    "triton": ("smoke.triton-failed", "Triton JIT kernels (vector add, matmul)", "failed"),
    "hip": ("smoke.hip-failed", "HIP C++ kernel built with hipcc", "failed"),
    "bandwidth": ("smoke.bandwidth-low", "Device memory bandwidth", "below threshold"),
    "tflops": ("smoke.gemm-slow", "Dense fp16/bf16 GEMM throughput", "below threshold"),
    "p2p": ("smoke.p2p-failed", "Peer-to-peer copies between GPUs", "failed"),
    "allreduce": ("smoke.rccl-failed", "All-reduce across GPUs (torch.distributed)", "failed"),
    "stress": ("smoke.stress-mismatch", "Sustained GEMM, every result checked", "wrong results"),
    "memtest": ("smoke.memory-errors", "Memory pattern test", "errors found"),
    "stability": ("smoke.throughput-unstable", "Throughput stability under sustained load", "unstable"),
}
# Measured value -> (matrix product field holding the peak, threshold key).
PEAKS = {
    "bandwidth": ("peak_hbm_bw_gbs", "bandwidth_min_fraction"),
    "tflops:fp16": ("peak_fp16_tflops", "gemm_min_fraction"),
    "tflops:bf16": ("peak_bf16_tflops", "gemm_min_fraction"),
}
# Compute units of the whole product, to scale its peak to what one torch device is: an MI250X shows up as
# two GCDs and an MI300X in CPX mode as eight partitions, each with its share of the CUs (AMD product specs).
PRODUCT_CUS = {"MI50 (32GB)": 60, "MI50 (16GB)": 60, "MI100": 120, "MI210": 104, "MI250": 208, "MI250X": 220,
               "MI300A": 228, "MI300X": 304, "MI325X": 304, "MI350X": 256, "MI355X": 256, "Radeon PRO W6800": 60,
               "Radeon RX 6900 XT": 80, "Radeon PRO W7900": 96, "Radeon RX 7800 XT": 60}
HANDLED_FATAL = ("no-torch", "torch-import-failed", "no-gpu", "no-such-device")  # each has its own finding
PROCESS_IDS = ("smoke.no-gpu", "smoke.no-torch", "smoke.torch-import-failed", "smoke.enumeration-mismatch",
               "smoke.timeout", "smoke.crashed")

_HW = ("Results that differ from the CPU on a GPU that otherwise works point at hardware, firmware or a "
       "driver problem. Re-run to see whether it repeats on the same GPU, look for amdgpu/ECC errors in the "
       "kernel log, and drain that GPU if it does.")
FIXES: dict[str, Fix] = {
    "smoke.no-gpu": Fix("torch cannot use any GPU here, so nothing was verified. `rocmdoctor check` says why "
                        "(driver, permissions, a CPU-only or wrong-ROCm torch, an unsupported GPU).",
                        ["rocmdoctor check"]),
    "smoke.no-torch": Fix("The target interpreter has no torch. Install a ROCm build into it, or point "
                          "--python at the interpreter that has it.", ["rocmdoctor install torch"]),
    "smoke.torch-import-failed": Fix("torch is installed but does not import (a missing or mismatched shared "
                                     "library, a broken install). Reinstall it.", ["rocmdoctor install torch"]),
    "smoke.enumeration-mismatch": Fix("torch sees a different set of GPUs than the driver. Check the "
                                      "*_VISIBLE_DEVICES variables, the render-node permissions of each GPU, "
                                      "and HSA_OVERRIDE_GFX_VERSION.", ["env | grep -E 'VISIBLE_DEVICES|HSA_'"]),
    "smoke.arch-missing": Fix("This torch has no kernels for the GPU's architecture: install a wheel whose "
                              "ROCm variant includes it, or (consumer RDNA cards only) set "
                              "HSA_OVERRIDE_GFX_VERSION to a compatible supported target.",
                              ["rocmdoctor install torch"]),
    "smoke.alloc-failed": Fix("Device memory could not be allocated or did not read back. Look for other "
                              "processes holding the GPU and for amdgpu errors in the kernel log.",
                              ["amd-smi process", "sudo dmesg | grep -iE 'amdgpu|kfd' | tail -n 50"]),
    "smoke.copy-mismatch": Fix(_HW, ["sudo dmesg | grep -iE 'amdgpu|kfd|ecc' | tail -n 50"]),
    "smoke.kernel-mismatch": Fix(_HW, ["sudo dmesg | grep -iE 'amdgpu|kfd|ecc' | tail -n 50"]),
    "smoke.gemm-mismatch": Fix(_HW + " A mismatch on one dtype only can also be a BLAS library bug: compare "
                               "with another torch/ROCm version.", ["amd-smi metric --ecc"]),
    "smoke.stress-mismatch": Fix(_HW, ["amd-smi metric --ecc"]),
    "smoke.memory-errors": Fix(_HW, ["amd-smi metric --ecc", "amd-smi bad-pages"]),
    "smoke.triton-failed": Fix("Triton could not compile or run a kernel: install the Triton build that "
                               "matches this torch (pytorch-triton-rocm / triton-rocm for ROCm wheels), and "
                               "check that the ROCm compiler (ld.lld) it needs is present.",
                               ["rocmdoctor install torch"]),
    "smoke.hip-failed": Fix("hipcc is present but could not build or run a trivial kernel for this GPU: "
                            "check that the ROCm toolchain matches the driver and supports this gfx target.",
                            ["hipcc --version", "hipconfig --full"]),
    "smoke.bandwidth-low": Fix("Memory bandwidth is far below the product's peak: look for a GPU stuck in a "
                               "low power/clock state, thermal throttling, or other work on the GPU.",
                               ["amd-smi metric --clock --power --temperature", "amd-smi process"]),
    "smoke.gemm-slow": Fix("Dense GEMM is far below the product's peak: a slow library path (hipBLAS instead "
                           "of hipBLASLt, a fallback kernel for an overridden gfx), low clocks or throttling.",
                           ["amd-smi metric --clock --power --temperature"]),
    "smoke.throughput-unstable": Fix("Throughput varied a lot under sustained load: typical of thermal or "
                                     "power throttling, or of other work sharing the GPU.",
                                     ["amd-smi metric --clock --power --temperature"]),
    "smoke.p2p-failed": Fix("Copies between GPUs failed or corrupted data: check the XGMI/PCIe topology, "
                            "IOMMU mode (iommu=pt) and PCIe ACS settings.", ["amd-smi topology"]),
    "smoke.rccl-failed": Fix("The all-reduce failed or produced wrong sums. Re-run with NCCL_DEBUG=INFO to see "
                             "RCCL's transport choice; check IOMMU (iommu=pt), PCIe ACS and /dev/shm size.",
                             ["NCCL_DEBUG=INFO rocmdoctor smoke --level 2"]),
    "smoke.timeout": Fix("A GPU did not answer within the timeout: a driver call hung. Look for amdgpu errors "
                         "in the kernel log; the GPU may need a reset or the node a reboot.",
                         ["sudo dmesg | grep -iE 'amdgpu|kfd' | tail -n 50"]),
    "smoke.crashed": Fix("The smoke program crashed with an error rocmdoctor does not know; the evidence holds "
                         "the end of its stderr.", []),
}


def __getattr__(name: str) -> Any:
    """``FINDING_IDS`` (for ``check --select``) is computed on first use: it includes the signature table."""
    if name == "FINDING_IDS":
        return finding_ids()
    raise AttributeError(name)


def finding_ids() -> list[str]:
    ids = [*PROCESS_IDS, *(v[0] for v in CHECKS.values())]
    try:
        from rocmdoctor.parse.logs import load_signatures

        ids += [_smoke_id(s.finding) for s in load_signatures()]
    except Exception:  # the signature table is optional here
        pass
    return sorted(set(ids))


def _smoke_id(log_finding: str) -> str:
    return "smoke." + log_finding.split(".", 1)[-1]


# ------------------------------------------------------------------------------------------------ results
@dataclass
class CheckRow:
    """One measured or verified thing on one device, judged."""

    check: str
    status: str  # as the program said: ok | warn | fail | skip | error
    severity: Severity
    detail: str = ""
    value: Optional[float] = None
    unit: Optional[str] = None
    expected: Optional[float] = None  # the product's peak, where the matrix has it
    fraction: Optional[float] = None  # value / expected
    threshold: Optional[float] = None  # warn below this fraction
    extra: dict[str, Any] = field(default_factory=dict)
    cause: Any = None  # a known error signature found in the failure's text (log signature table)
    cause_line: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"check": self.check, "status": self.status, "severity": self.severity.value,
                "value": self.value, "unit": self.unit, "expected": self.expected,
                "fraction_of_peak": self.fraction, "threshold": self.threshold, "detail": self.detail,
                **({"cause": _smoke_id(self.cause.finding)} if self.cause is not None else {}),
                **({"extra": self.extra} if self.extra else {})}


@dataclass
class ProcessRun:
    """One subprocess (a GPU's checks, the p2p pass, or one all-reduce rank) and what it reported."""

    key: str  # "cuda:0", "cpu", "p2p", "allreduce:1"
    kind: str  # device | p2p | allreduce
    argv: list[str]
    index: Optional[int] = None
    name: Optional[str] = None
    arch: Optional[str] = None
    memory_bytes: Optional[int] = None
    compute_units: Optional[int] = None
    product: Optional[str] = None
    peak_share: Optional[float] = None  # this device's share of the product (one GCD / partition)
    pid: Optional[int] = None
    exit_code: Optional[int] = None
    timed_out: bool = False
    elapsed_s: float = 0.0
    records: list[dict[str, Any]] = field(default_factory=list)
    rows: list[CheckRow] = field(default_factory=list)
    fatal: Optional[dict[str, Any]] = None
    stderr: str = ""
    children: list[int] = field(default_factory=list)  # pids a fault injection reported

    @property
    def label(self) -> str:
        if self.kind == "p2p":
            return "GPU pairs"
        if self.kind == "allreduce":
            return f"rank {self.index}"
        if self.key == "cpu":
            return "cpu"
        return f"GPU {self.index}"

    @property
    def signal_name(self) -> Optional[str]:
        if self.exit_code is not None and self.exit_code < 0:
            try:
                return signal.Signals(-self.exit_code).name
            except ValueError:
                return f"signal {-self.exit_code}"
        return None

    @property
    def completed(self) -> bool:
        return not self.timed_out and self.exit_code == 0 and self.fatal is None and any(
            r.get("type") == "done" for r in self.records)

    @property
    def status(self) -> str:
        if self.timed_out:
            return "timeout"
        if self.fatal is not None:
            return str(self.fatal.get("reason", "fatal"))
        if not self.completed:
            return "crashed"
        return "fail" if any(r.severity in (Severity.FAIL, Severity.ERROR) for r in self.rows) else (
            "warn" if any(r.severity == Severity.WARN for r in self.rows) else "ok")

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "kind": self.kind, "index": self.index, "name": self.name, "arch": self.arch,
                "memory_bytes": self.memory_bytes, "compute_units": self.compute_units, "product": self.product,
                "peak_share": self.peak_share, "status": self.status,
                "pid": self.pid, "exit_code": self.exit_code, "signal": self.signal_name,
                "timed_out": self.timed_out, "elapsed_s": round(self.elapsed_s, 3),
                "checks": [r.to_dict() for r in self.rows], "fatal": self.fatal,
                "stderr_tail": self.stderr[-2000:] or None}


@dataclass
class SmokeOptions:
    python: str
    level: int = 1
    devices: Optional[list[int]] = None  # None: every GPU torch sees
    cpu: bool = False  # --device cpu: the developer/test mode
    timeout: Optional[float] = None  # per process; None: DEFAULT_TIMEOUT[level]
    quick: bool = False  # tiny sizes (rocmdoctor's tests)
    duration: Optional[float] = None  # level 3 sustained GEMM seconds
    env: Optional[dict[str, str]] = None

    @property
    def process_timeout(self) -> float:
        """--timeout, or the level's default plus the sustained-GEMM --duration the user asked for (a long
        level-3 run must not be killed and reported as a hung GPU)."""
        if self.timeout is not None:
            return float(self.timeout)
        return DEFAULT_TIMEOUT[self.level] + (float(self.duration or 0.0) if self.level >= 3 else 0.0)


@dataclass
class SmokeReport:
    options: SmokeOptions
    devices: list[ProcessRun] = field(default_factory=list)
    collectives: list[ProcessRun] = field(default_factory=list)
    enumeration: Optional[dict[str, Any]] = None
    findings: list[Finding] = field(default_factory=list)
    elapsed_s: float = 0.0

    @property
    def torch(self) -> Optional[dict[str, Any]]:
        e = self.enumeration
        if not e:
            return None
        return {"version": e.get("torch"), "hip": e.get("hip"), "cuda": e.get("cuda"),
                "arch_list": e.get("arch_list", []), "available": e.get("available"), "count": e.get("count")}

    def to_dict(self) -> dict[str, Any]:
        from rocmdoctor import __version__

        counts = {s.value: 0 for s in Severity}
        for f in self.findings:
            counts[f.severity.value] += 1
        return {"schema": SCHEMA, "tool": f"rocmdoctor {__version__}", "level": self.options.level,
                "mode": "cpu" if self.options.cpu else "gpu", "python": self.options.python,
                "torch": self.torch, "devices": [d.to_dict() for d in self.devices],
                "collectives": [c.to_dict() for c in self.collectives],
                "findings": [f.to_dict() for f in self.findings], "summary": counts,
                "elapsed_s": round(self.elapsed_s, 3)}


# ------------------------------------------------------------------------------------------------ processes
class _Proc:
    """A program in its own session/process group; reader threads feed one event queue."""

    def __init__(self, run: ProcessRun, env: dict[str, str], timeout: float, events: queue.Queue) -> None:
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
        assert self.popen.stderr is not None
        for chunk in iter(lambda: self.popen.stderr.read1(65536), b""):  # type: ignore[union-attr]
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
    events: queue.Queue = queue.Queue()
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


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _argv(opts: SmokeOptions, *extra: str) -> list[str]:
    argv = [opts.python, "-u", str(PROGRAM), "--level", str(opts.level), *extra]
    if opts.quick:
        argv.append("--quick")
    if opts.duration is not None:
        argv += ["--duration", str(opts.duration)]
    return argv


def resolve_python(python: Optional[str]) -> str:
    """The target interpreter as an absolute path; BadInput when it does not exist."""
    if python is None:
        return sys.executable or shutil.which("python3") or "python3"
    if not python.strip():
        raise BadInput("--python: empty interpreter path")
    if os.sep in python or (os.altsep and os.altsep in python):
        if not (os.path.isfile(python) and os.access(python, os.X_OK)):
            raise BadInput(f"--python {python}: not an executable file")
        return os.path.abspath(python)
    found = shutil.which(python)
    if not found:
        raise BadInput(f"--python {python}: not found on PATH")
    return found


def ensure_python3(python: str) -> None:
    """BadInput unless ``python`` runs as a Python 3 interpreter.

    Why: /bin/false or a text file would otherwise surface as "smoke program crashed on GPU 0" (exit 1),
    a GPU finding about something that is a usage error.
    """
    try:
        proc = subprocess.run([python, "-c", "import sys; print(sys.version_info[0])"], capture_output=True,
                              text=True, timeout=30, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError) as exc:
        raise BadInput(f"--python {python}: cannot run it ({exc})") from None
    if proc.returncode != 0 or proc.stdout.strip() != "3":
        raise BadInput(f"--python {python}: not a Python 3 interpreter (exit {proc.returncode})")


# ------------------------------------------------------------------------------------------------ running
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
    thresholds = _thresholds(matrix)
    tol = {d: [thresholds[f"{d}_rtol"], thresholds[f"{d}_atol"]] for d in ("fp32", "fp16", "bf16")}
    tol_arg = ["--tolerances", json.dumps(tol)]

    host_box: dict[str, Optional[Host]] = {"host": host}
    host_thread = None
    if host is None and host_source is not None:
        def _capture() -> None:
            try:
                host_box["host"] = host_source()
            except Exception:  # a failed capture only means "not compared"
                host_box["host"] = None

        host_thread = threading.Thread(target=_capture, daemon=True)
        host_thread.start()

    # Phase 1: the per-device programs, in parallel. The first also enumerates. Without --devices, one
    # process per GPU that sysfs shows starts at once (importing torch takes seconds: starting the others only
    # after the first one's enumeration would pay for it twice); GPUs that the enumeration names beyond
    # that start as soon as it arrives, and guessed ones that torch does not see are dropped.
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

    if host_thread is not None:
        host_thread.join(timeout=opts.process_timeout)
    report.findings = judge(report, host_box["host"], matrix, thresholds)
    report.elapsed_s = time.monotonic() - t0
    return report


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
    extra = ["--mode", "device", "--device", spec, *tol_arg]
    if enumerate_first:
        extra.append("--enumerate")
    index = None if spec == "cpu" else int(spec.split(":")[1])
    return ProcessRun(spec, "device", _argv(opts, *extra), index=index)


def _describe(run: ProcessRun, enum: Optional[dict[str, Any]]) -> None:
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


def _load_matrix() -> Optional[Matrix]:
    try:
        from rocmdoctor import matrix as matrix_mod

        return matrix_mod.load()
    except Exception:  # missing TOML reader, stub, broken cache: no peaks, default thresholds
        return None


def _thresholds(matrix: Optional[Matrix]) -> dict[str, float]:
    out = dict(DEFAULT_THRESHOLDS)
    if matrix is not None:
        for k, v in (matrix.smoke_thresholds or {}).items():
            if isinstance(v, (int, float)):
                out[k] = float(v)
    return out


def peaks_for(matrix: Optional[Matrix], name: Optional[str], arch: Optional[str]) -> tuple[Optional[str], dict]:
    """(product name, {field: peak}) for a device: the longest matrix product name inside torch's device name
    ("AMD Instinct MI300X" -> "MI300X"), preferring the products of the device's gfx target; a gfx target
    with a single product needs no name. Anything else (an NVIDIA GPU, a generic name) has no peak."""
    if matrix is None or not arch or not arch.startswith("gfx"):
        return None, {}
    try:
        target = matrix.gpu(arch)
        own = list(target.products) if target is not None else []
        prod = _name_match(own, name) or _name_match([p for t in matrix.gpus.values() for p in t.products], name)
        if prod is None and len(own) == 1:
            prod = own[0]
    except Exception:
        prod = None
    if prod is None:
        return None, {}
    return prod.name, {f: getattr(prod, f, None) for f, _k in PEAKS.values() if getattr(prod, f, None)}


def _name_match(products: list, name: Optional[str]) -> Any:
    if not name:
        return None
    low = f" {' '.join(name.lower().replace('/', ' ').split())} "  # "AMD Instinct MI250X/MI250": one GCD
    hits = [p for p in products if f" {' '.join(p.name.lower().split())} " in low]
    return max(hits, key=lambda p: len(p.name), default=None)


# ------------------------------------------------------------------------------------------------ judging
_SEV = {"ok": Severity.OK, "warn": Severity.WARN, "fail": Severity.FAIL, "skip": Severity.SKIP,
        "error": Severity.ERROR}


def _rows(run: ProcessRun, matrix: Optional[Matrix], thresholds: dict[str, float]) -> None:
    product, peaks = peaks_for(matrix, run.name, run.arch) if run.kind == "device" else (None, {})
    run.product = product
    full = PRODUCT_CUS.get(product or "")
    if full and run.compute_units and run.compute_units < full:
        run.peak_share = run.compute_units / full
        peaks = {k: v * run.peak_share for k, v in peaks.items()}
    run.rows = []
    for rec in run.records:
        if rec.get("type") != "result" or not isinstance(rec.get("check"), str):
            continue
        status = str(rec.get("status", "error"))
        value = rec.get("value")
        row = CheckRow(check=rec["check"], status=status, severity=_SEV.get(status, Severity.ERROR),
                       detail=str(rec.get("detail", ""))[:2000],
                       value=float(value) if isinstance(value, (int, float)) else None,
                       unit=rec.get("unit") if isinstance(rec.get("unit"), str) else None,
                       extra={k: v for k, v in rec.items()
                              if k not in ("type", "check", "status", "detail", "value", "unit")})
        if row.check in PEAKS and row.status == "ok" and row.value is not None:
            peak_field, key = PEAKS[row.check]
            row.threshold = thresholds.get(key)
            row.expected = peaks.get(peak_field)
            if row.expected:
                row.fraction = row.value / row.expected
                if row.threshold is not None and row.fraction < row.threshold:
                    row.severity = Severity.WARN
            else:
                row.severity = Severity.INFO  # measured, but nothing to compare it with
        if row.severity in (Severity.FAIL, Severity.ERROR) and row.detail:
            # "no kernel image is available", "invalid device function": a failed check whose exception is a
            # known error is that error (wheel/override), not the hardware problem the check's own fix suspects
            hits = [h for h in _scan(row.detail) if h[0].severity == "fail"]
            if hits:
                row.cause, row.cause_line = hits[0]
        if row.check == "stability" and row.status == "ok" and row.value is not None:
            row.threshold = thresholds.get("stability_min_ratio")
            if row.threshold is not None and row.value < row.threshold:
                row.severity = Severity.WARN
        run.rows.append(row)


def judge(report: SmokeReport, host: Optional[Host], matrix: Optional[Matrix],
          thresholds: Optional[dict[str, float]] = None) -> list[Finding]:
    """Turn the processes' records into findings: process problems first, then one finding per check id."""
    thresholds = thresholds or _thresholds(matrix)
    for run in [*report.devices, *report.collectives]:
        _rows(run, matrix, thresholds)
    findings: list[Finding] = []
    findings += _process_findings(report, matrix)
    findings += _enumeration_findings(report, host, thresholds)
    findings += _check_findings(report)
    if not any(r.completed for r in report.devices) and not any(
            f.severity in (Severity.FAIL, Severity.ERROR) for f in findings):
        # Never pretend: no program finished, so nothing was verified, whatever the reason.
        findings.append(Finding("smoke.crashed", Severity.FAIL, "No smoke program finished: nothing was verified",
                                evidence=[f"{r.label}: {r.status}, exit code {r.exit_code}" for r in report.devices],
                                fix=_fix_for("smoke.crashed")))
    return findings


def _no_gpu_why(enum: Optional[dict[str, Any]], python: str) -> tuple[str, Optional[Fix]]:
    """Why torch sees no GPU, as far as the enumeration tells: the build first (a CPU or CUDA wheel can never
    use an AMD GPU, the most common way an environment 'almost works'), else the host's side."""
    base = "torch.cuda.is_available() is False in the target interpreter."
    if not enum:
        return base, _fix_for("smoke.no-gpu")
    version, hip, cuda = enum.get("torch"), enum.get("hip"), enum.get("cuda")
    install = f"rocmdoctor install torch --python {python}"
    if not hip and not cuda:
        return (f"{base} This torch ({version}) is a CPU-only build: it cannot use any GPU.",
                Fix("Replace it with a ROCm build of torch for this host's GPUs and ROCm driver.", [install]))
    if not hip:
        return (f"{base} This torch ({version}) is a CUDA build (CUDA {cuda}): it cannot use an AMD GPU.",
                Fix("On an AMD GPU host, replace it with a ROCm build of torch (on an NVIDIA host, check the "
                    "NVIDIA driver instead).", [install, "rocmdoctor check"]))
    return (f"{base} It is a ROCm build (HIP {hip}), so the driver, permissions or GPU support stop it.",
            _fix_for("smoke.no-gpu"))


def _where(runs: list[ProcessRun]) -> str:
    if runs and all(r.kind == "allreduce" for r in runs):
        return plural(len(runs), "rank")
    labels = [r.label for r in runs]
    return ", ".join(labels) if len(labels) <= 4 else f"{len(labels)} GPUs"


def _fix_for(fid: str) -> Optional[Fix]:
    f = FIXES.get(fid)
    return None if f is None else Fix(f.explanation, list(f.commands), f.url)


def _process_findings(report: SmokeReport, matrix: Optional[Matrix]) -> list[Finding]:
    out: list[Finding] = []
    allruns = [*report.devices, *report.collectives]
    sev_for = {"no-torch": "smoke.no-torch", "torch-import-failed": "smoke.torch-import-failed"}
    for reason, fid in sev_for.items():
        hit = [r for r in allruns if r.fatal and r.fatal.get("reason") == reason]
        if hit:
            what = "has no torch" if reason == "no-torch" else "cannot import torch"
            out.append(Finding(fid, Severity.FAIL, f"The target interpreter {what}: nothing was verified",
                               detail=str(hit[0].fatal.get("detail", "")) if hit[0].fatal else "",
                               evidence=[f"python: {report.options.python}"], fix=_fix_for(fid)))
    enum = report.enumeration
    no_gpu = [r for r in report.devices if r.fatal and r.fatal.get("reason") == "no-gpu"]
    if not report.options.cpu and (no_gpu or (enum is not None and not enum.get("available"))):
        ev = [f"torch {enum.get('torch')} (hip {enum.get('hip')}, cuda {enum.get('cuda')})"] if enum else []
        ev += [f"{k}={v}" for k, v in ((enum or {}).get("env") or {}).items()]
        detail, fix = _no_gpu_why(enum, report.options.python)
        out.append(Finding("smoke.no-gpu", Severity.FAIL, "torch sees no usable GPU: nothing was verified",
                           detail=detail, evidence=ev, fix=fix))

    timed = [r for r in allruns if r.timed_out]
    if timed:
        ev = []
        for r in timed:
            last = next((x for x in reversed(r.records) if x.get("type") == "result"), None)
            after = f"last finished check: {last.get('check')}" if last else "no check had finished"
            ev.append(f"{r.label} (pid {r.pid}): killed after {report.options.process_timeout:g} s; {after}")
        out.append(Finding("smoke.timeout", Severity.FAIL,
                           f"Smoke program hung and was killed at its timeout on {_where(timed)}",
                           evidence=ev, fix=_fix_for("smoke.timeout")))

    # Known error signatures in stderr (and in a fatal record's text): one finding per signature finding id.
    sig_hits: dict[str, tuple[Any, list[str], bool]] = {}
    crashed: list[ProcessRun] = []
    for r in allruns:
        if r.timed_out:
            continue
        failed = (not r.completed and r.fatal is None) or (r.fatal is not None and r.fatal.get("reason") in sev_for)
        text = r.stderr + ("\n" + str(r.fatal.get("detail", "")) if r.fatal else "")
        matches = _scan(text)
        explains = [m for m in matches if m[0].severity == "fail"]  # a warning on stderr explains no crash
        for sig, line in matches:
            fid = _smoke_id(sig.finding)
            prev = sig_hits.get(fid)
            ev = (prev[1] if prev else []) + [f"{r.label}: {line}"]
            ended = failed and sig.severity == "fail"
            sig_hits[fid] = (prev[0] if prev else sig, ev, (prev[2] if prev else False) or ended)
        if (failed and r.fatal is None and not explains) or (r.fatal is not None
                                                            and r.fatal.get("reason") not in HANDLED_FATAL):
            crashed.append(r)
        for row in r.rows:
            if row.cause is not None:
                fid = _smoke_id(row.cause.finding)
                prev = sig_hits.get(fid)
                ev = (prev[1] if prev else []) + [f"{r.label} {row.check}: {row.cause_line}"]
                sig_hits[fid] = (prev[0] if prev else row.cause, ev, True)
    for fid, (sig, ev, failed) in sig_hits.items():
        fix = Fix(sig.explanation, list(sig.commands), sig.url)
        if fid == "smoke.no-binary-for-gpu":
            fix.commands = _no_binary_commands(report, matrix) + fix.commands
        # the signature's own severity (hipBLASLt falling back is info), FAIL only for a fail-level one that ended
        # a run; a fail-level line in a run that still finished is a warning
        sev = {"info": Severity.INFO, "warn": Severity.WARN}.get(sig.severity,
                                                                 Severity.FAIL if failed else Severity.WARN)
        out.append(Finding(fid, sev, sig.title,
                           detail="Seen in the smoke program's output.", evidence=ev[:8], fix=fix))
    if crashed:
        ev = []
        for r in crashed:
            how = r.signal_name or f"exit code {r.exit_code}"
            if r.fatal is not None:
                how = f"{r.fatal.get('reason')}: {r.fatal.get('detail', '')}"
            tail = " | ".join(r.stderr.strip().splitlines()[-3:])[-400:]
            ev.append(f"{r.label}: {how}" + (f"; stderr: {tail}" if tail else ""))
        out.append(Finding("smoke.crashed", Severity.FAIL, f"Smoke program crashed on {_where(crashed)}",
                           evidence=ev, fix=_fix_for("smoke.crashed")))
    return out


def _scan(text: str) -> list[tuple[Any, str]]:
    """(signature, matched line) for each known signature in ``text`` (empty if the table is unavailable).

    The signature comes back with its ``{group}`` placeholders (``{gfx}``, ``{lib}``) filled from the match."""
    if not text.strip():
        return []
    try:
        from rocmdoctor.parse.logs import scan, signature
    except Exception:
        return []
    out = []
    for m in scan(text, "smoke-stderr"):
        sig = signature(m.signature)
        if sig is not None:
            out.append((sig.filled(m.groups or {}), m.text))
    return out


def _no_binary_commands(report: SmokeReport, matrix: Optional[Matrix]) -> list[str]:
    """The override for the GPU's gfx where the matrix knows a working one, and the right-wheel install."""
    cmds = []
    archs = sorted({r.arch for r in report.devices if r.arch and r.arch.startswith("gfx")})
    for arch in archs:
        try:
            target = matrix.gpu(arch) if matrix is not None else None
        except Exception:
            target = None
        if target is not None and target.override and not target.override_broken:
            cmds.append(f"export HSA_OVERRIDE_GFX_VERSION={target.override}  # {arch}: unofficial")
    cmds.append(f"rocmdoctor install torch --python {report.options.python}")
    return cmds


def _enumeration_findings(report: SmokeReport, host: Optional[Host],
                          thresholds: Optional[dict[str, float]] = None) -> list[Finding]:
    enum = report.enumeration
    fid = "smoke.enumeration-mismatch"
    if report.options.cpu:
        return [Finding(fid, Severity.SKIP, "GPU enumeration not checked (--device cpu)")]
    if not enum or not enum.get("available"):
        return []
    devs = [d for d in enum.get("devices") or [] if isinstance(d, dict)]
    ev = [f"torch GPU {d.get('index')}: {d.get('name')} ({d.get('gcn_arch_name') or d.get('arch')}, "
          f"{(d.get('total_memory') or 0) / 2**30:.0f} GiB)" for d in devs]
    ev += [f"{k}={v}" for k, v in (enum.get("env") or {}).items()]
    missing = [r for r in report.devices if r.fatal and r.fatal.get("reason") == "no-such-device"]
    if missing:
        return [Finding(fid, Severity.FAIL, f"Requested GPU(s) not visible to torch: {_where(missing)}",
                        detail=str(missing[0].fatal.get("detail", "")) if missing[0].fatal else "",
                        evidence=ev, fix=_fix_for(fid))]
    title_ok = f"torch sees {plural(len(devs), 'GPU')}: " + ", ".join(sorted({str(d.get('name')) for d in devs}))
    if host is None or not host.gpus or not enum.get("hip"):
        why = ("host model not available" if host is None or not host.gpus
               else "not a ROCm torch: the host model lists AMD GPUs only")
        return [Finding(fid, Severity.OK, title_ok, detail=f"Not compared with the driver's view ({why}).",
                        evidence=ev)]
    host_gfx = sorted(g.gfx or "?" for g in host.gpus)
    torch_gfx = sorted(str(d.get("arch")) for d in devs)
    ev += [f"host GPU {g.index}: {g.name or '?'} ({g.gfx or '?'})" for g in host.gpus]
    visible = {k: v for k, v in (enum.get("env") or {}).items() if k.endswith("VISIBLE_DEVICES")}
    override = (enum.get("env") or {}).get("HSA_OVERRIDE_GFX_VERSION")
    if len(devs) != len(host.gpus):
        why = (f"{', '.join(f'{k}={v}' for k, v in visible.items())} limits what torch sees" if visible
               else "no *_VISIBLE_DEVICES variable explains it")
        return [Finding(fid, Severity.WARN, f"torch sees {plural(len(devs), 'GPU')}, the driver {len(host.gpus)}",
                        detail=why + ".", evidence=ev, fix=_fix_for(fid))]
    if host_gfx != torch_gfx and not override and not visible:
        return [Finding(fid, Severity.WARN, "torch reports other GPU architectures than the driver",
                        detail=f"driver: {', '.join(host_gfx)}; torch: {', '.join(torch_gfx)}.", evidence=ev,
                        fix=_fix_for(fid))]
    gaps = _memory_gaps(devs, host, (thresholds or DEFAULT_THRESHOLDS)["memory_match_tolerance"])
    if gaps and not visible:
        return [Finding(fid, Severity.WARN, "torch reports other GPU memory sizes than the driver",
                        detail="A memory partition mode (NPS), a carve-out setting or a driver problem leaves torch "
                               "with a different amount of memory than the driver reports for the GPU.",
                        evidence=gaps + ev, fix=_fix_for(fid))]
    return [Finding(fid, Severity.OK, title_ok + " — as the driver does", evidence=ev)]


def _memory_gaps(devs: list[dict[str, Any]], host: Host, tolerance: float) -> list[str]:
    """Pairs (torch GPU i, host GPU i) whose memory differs by more than ``tolerance``; APUs and GPUs whose
    VRAM the capture did not record are not compared (an APU's torch memory is its shared pool)."""
    out = []
    for d, g in zip(sorted(devs, key=lambda d: d.get("index") or 0), sorted(host.gpus, key=lambda g: g.index)):
        mem = d.get("total_memory")
        if g.is_apu or not g.vram_bytes or not isinstance(mem, (int, float)) or mem <= 0:
            continue
        if abs(mem - g.vram_bytes) > tolerance * g.vram_bytes:
            out.append(f"GPU {d.get('index')}: torch {mem / 2**30:.1f} GiB, driver {g.vram_bytes / 2**30:.1f} GiB "
                       f"(more than {tolerance:.0%} apart)")
    return out


def _fmt(v: Optional[float]) -> str:
    if v is None:
        return "?"
    return f"{v:.4g}"


def _evidence(run: ProcessRun, row: CheckRow) -> str:
    head = run.label if run.kind != "device" or not run.name else f"{run.label} ({run.name}, {run.arch})"
    if row.check in PEAKS or row.check == "stability":
        if row.expected:
            tail = (f"{_fmt(row.value)} {row.unit} of {_fmt(row.expected)} peak ({row.fraction:.0%}; warn below "
                    f"{row.threshold:.0%})" if row.fraction is not None and row.threshold is not None
                    else f"{_fmt(row.value)} {row.unit}")
            if run.product:
                tail += f"; peak of {run.product}"
            if run.peak_share:
                tail += f" scaled to this device's {run.compute_units} CUs ({run.peak_share:.0%})"
        elif row.check == "stability":
            tail = row.detail + (f" (p10/median {_fmt(row.value)}; warn below {row.threshold})"
                                 if row.threshold is not None else "")
        else:
            tail = row.detail + ("; no peak known for this product" if row.status == "ok" else "")
        return f"{head} {row.check}: {tail}"
    return f"{head} {row.check}: {row.detail}"


def _check_findings(report: SmokeReport) -> list[Finding]:
    """One finding per check id, worst severity across devices, every device's numbers in the evidence."""
    groups: dict[str, list[tuple[ProcessRun, CheckRow]]] = {}
    for run in [*report.devices, *report.collectives]:
        for row in run.rows:
            prefix = row.check.split(":", 1)[0]
            if prefix in CHECKS:
                groups.setdefault(prefix, []).append((run, row))
    out = []
    one_gpu = len([r for r in report.devices if r.completed]) == 1
    if report.options.level >= 2 and one_gpu and not any(c.kind == "p2p" for c in report.collectives):
        fid, what, _bad = CHECKS["p2p"]
        out.append(Finding(fid, Severity.SKIP, f"{what}: not run (one GPU)"))
    for prefix, (fid, what, bad) in CHECKS.items():
        items = groups.get(prefix)
        if not items:
            continue
        sev = max((row.severity for _r, row in items), key=lambda s: s.rank)
        worst_runs = []
        for run, row in items:
            if row.severity == sev and run not in worst_runs:
                worst_runs.append(run)
        if sev in (Severity.WARN, Severity.FAIL, Severity.ERROR):
            title = f"{what}: {bad} on {_where(worst_runs)}"
            detail = next(row.detail for _r, row in items if row.severity == sev)
            fix = _fix_for(fid)
            cause = next((row.cause for _r, row in items if row.severity == sev and row.cause is not None), None)
            if cause is not None:  # the known error explains it: its fix, not the check's hardware advice
                title += f" ({cause.title})"
                fix = Fix(f"See {_smoke_id(cause.finding)}: " + cause.explanation, list(cause.commands), cause.url)
        elif sev == Severity.SKIP:
            title, detail, fix = f"{what}: not run", items[0][1].detail, None
        elif sev == Severity.INFO:
            title, detail, fix = f"{what}: measured (no peak known to compare with)", "", None
        else:
            runs = []
            for run, _row in items:
                if run not in runs:
                    runs.append(run)
            title, detail, fix = f"{what}: passed on {_where(runs)}", "", None
        ordered = sorted(items, key=lambda it: -it[1].severity.rank)
        out.append(Finding(fid, sev, title, detail=detail, evidence=[_evidence(r, row) for r, row in ordered][:24],
                           fix=fix))
    return out


# ------------------------------------------------------------------------------------------------ entry points
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
                        fix=_fix_for("smoke.no-torch"))], None
    report = run_smoke(SmokeOptions(python=py, level=1, timeout=timeout), host=host)
    return report.findings, report


EXPECT_BY_UNIT = {"x tolerance": "≤ 1", "bytes wrong": "0", "words wrong": "0"}


# A program that ended with one of these never had a device to test (no torch, no GPU, no such index).
NO_DEVICE_STATUSES = ("no-torch", "torch-import-failed", "no-gpu", "no-such-device", "spawn-failed")


def table_rows(report: SmokeReport) -> list[dict[str, str]]:
    """Per-GPU result rows for the terminal table: value, expected, % of peak, status."""
    rows = []
    for run in [*report.devices, *report.collectives]:
        if run.status in NO_DEVICE_STATUSES and not run.rows:
            continue  # the process never reached a device: the finding says why, a "GPU 0" row would invent one
        who = run.label if not run.name else f"{run.label} {run.name}"
        if run.status in ("timeout", "crashed", *NO_DEVICE_STATUSES):
            rows.append({"device": who, "check": "(process)", "value": run.status, "expected": "", "peak": "",
                         "status": "fail"})
        for row in run.rows:
            if row.check in PEAKS or row.check in ("stability", "p2p", "allreduce") or row.severity.rank >= 3:
                value = f"{_fmt(row.value)} {row.unit or ''}".strip() if row.value is not None else row.status
                rows.append({
                    "device": who, "check": row.check, "value": value,
                    "expected": f"{_fmt(row.expected)} {row.unit or ''}".strip() if row.expected
                    else EXPECT_BY_UNIT.get(row.unit or "", ""),
                    "peak": f"{row.fraction:.0%}" if row.fraction is not None else "",
                    "status": row.severity.value,
                })
        shown = ("stability", "p2p", "allreduce")  # already a row of their own above
        passed = [r for r in run.rows if r.check not in PEAKS and r.check not in shown and r.severity == Severity.OK]
        if passed:
            rows.append({"device": who, "check": "correctness", "value": f"{len(passed)} passed",
                         "expected": "", "peak": "", "status": "ok"})
    return rows


def main(argv: Optional[list[str]] = None) -> int:
    """``python -m rocmdoctor.smoke``: the stdlib-only entry point (JSON on stdout) for bare machines."""
    import argparse

    p = argparse.ArgumentParser(prog="python -m rocmdoctor.smoke", description=__doc__.splitlines()[0])
    p.add_argument("--python")
    p.add_argument("--level", type=int, choices=(1, 2, 3), default=1)
    p.add_argument("--devices")
    p.add_argument("--device", choices=("cpu",))
    p.add_argument("--timeout", type=float)
    p.add_argument("--duration", type=float)
    p.add_argument("--quick", action="store_true", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    try:
        opts = SmokeOptions(python=resolve_python(a.python), level=a.level, devices=parse_devices(a.devices),
                            cpu=a.device == "cpu", timeout=a.timeout, quick=a.quick, duration=a.duration)
        check_options(opts)
    except BadInput as exc:
        print(f"rocmdoctor: error: {exc}", file=sys.stderr)
        return 2
    report = run_smoke(opts, progress=lambda m: print(f"smoke: {m}", file=sys.stderr))
    print(json.dumps(report.to_dict(), indent=2, ensure_ascii=False))
    return 1 if any(f.severity in (Severity.FAIL, Severity.ERROR) for f in report.findings) else 0


def parse_devices(text: Optional[str]) -> Optional[list[int]]:
    """``"0,2"`` -> [0, 2]; BadInput for anything else."""
    if text is None:
        return None
    out: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part.isdigit() or len(part) > 4:
            raise BadInput(f"--devices {text!r}: expected comma-separated GPU indices like 0,2")
        if int(part) in out:
            raise BadInput(f"--devices {text!r}: GPU {part} listed twice")
        out.append(int(part))
    if not out:
        raise BadInput("--devices: no GPU index given")
    return out


def check_options(opts: SmokeOptions) -> None:
    if opts.cpu and opts.devices:
        raise BadInput("--devices and --device cpu exclude each other")
    if opts.timeout is not None and not (0 < opts.timeout <= 86400):
        raise BadInput(f"--timeout {opts.timeout:g}: expected seconds in (0, 86400]")
    if opts.duration is not None and not (0 < opts.duration <= 86400):
        raise BadInput(f"--duration {opts.duration:g}: expected seconds in (0, 86400]")
    if opts.level not in (1, 2, 3):
        raise BadInput(f"--level {opts.level}: expected 1, 2 or 3")


if __name__ == "__main__":
    sys.exit(main())
