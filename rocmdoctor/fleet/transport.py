"""The agentless transport: the system OpenSSH client as asyncio subprocesses, bounded and staggered.

Why the system ``ssh`` and not a Python SSH library: it honours ``~/.ssh/config``, ProxyJump,
ControlMaster, certificates and the agent exactly as the operator's own shell does (paramiko and
parallel-ssh do not). We force only what a fan-out needs: ``BatchMode=yes`` (never prompt) and a
``ConnectTimeout``. Host-key checking is left to the user's config unless ``accept_new_host_keys``
is set. Every failure mode of a host (refused, auth, hang, garbage, cut-off stream) becomes a
:class:`HostResult` status; nothing here raises for one bad host, and a slow host never delays the rest.
"""

from __future__ import annotations

import asyncio
import gzip
import io
import os
import signal
import time
from collections.abc import Awaitable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Callable, Literal, Optional, TypeVar, cast

from rocmdoctor.fleet.hosts import Target, validate_host
from rocmdoctor.fleet.status import HostStatus
from rocmdoctor.limits import LIMITS

MAX_BUNDLE_BYTES = LIMITS["reply-bytes"]
MAX_STDERR_BYTES = 64 * 1024
DEFAULT_STAGGER_S = 0.01  # at most ~100 new connections a second: keeps a bastion's MaxStartups happy

# the statuses by their old names (callers and tests use transport.OK & co.)
OK = HostStatus.OK
UNREACHABLE = HostStatus.UNREACHABLE
AUTH_FAILED = HostStatus.AUTH_FAILED
TIMEOUT = HostStatus.TIMEOUT
BAD_CAPTURE = HostStatus.BAD_CAPTURE
INTERRUPTED = HostStatus.INTERRUPTED

_AUTH_PATTERNS = (
    "permission denied",
    "too many authentication failures",
    "host key verification failed",
    "remote host identification has changed",
    "no matching host key type",
)


@dataclass(frozen=True)
class SshSettings:
    """How ssh is invoked for every host (the same for all of them)."""

    ssh: str = "ssh"
    config: Optional[Path] = None  # -F FILE only when the user asked for it
    connect_timeout: int = 10
    accept_new_host_keys: bool = False  # StrictHostKeyChecking=accept-new; never 'no'


def ssh_argv(settings: SshSettings, target: Target, remote_command: str = "sh -s") -> list[str]:
    """argv for one host; the destination always comes after ``--`` so it can never be an option."""
    validate_host(target.destination)
    argv = [settings.ssh]
    if settings.config is not None:
        argv += ["-F", str(settings.config)]
    argv += ["-o", "BatchMode=yes", "-o", f"ConnectTimeout={max(1, int(settings.connect_timeout))}"]
    if settings.accept_new_host_keys:
        argv += ["-o", "StrictHostKeyChecking=accept-new"]
    if target.port is not None:
        argv += ["-p", str(int(target.port))]
    if target.user is not None:
        argv += ["-l", target.user]
    if target.identity is not None:
        argv += ["-o", "IdentitiesOnly=yes", "-i", target.identity]
    argv += ["--", target.destination, remote_command]
    return argv


@dataclass
class Outcome:
    """What came back from one ssh subprocess."""

    rc: Optional[int]
    stdout: bytes
    stderr: str
    seconds: float
    timed_out: bool = False
    truncated: bool = False  # stdout exceeded the cap
    interrupted: bool = False  # Ctrl-C/SIGTERM came while the finished ssh's pipes were being drained


@dataclass
class HostResult:
    """One host's audit transport result: status, the bundle bytes when ok, and why when not."""

    target: Target
    status: HostStatus
    bundle: bytes = b""
    detail: str = ""
    seconds: float = 0.0
    rc: Optional[int] = None
    extra: dict[str, Any] = field(default_factory=dict)  # "live": the --live smoke findings


async def _read_capped(stream: Optional[asyncio.StreamReader], cap: int) -> tuple[bytes, bool]:
    if stream is None:
        return b"", False
    buf = bytearray()
    over = False
    while True:
        chunk = await stream.read(65536)
        if not chunk:
            break
        if len(buf) + len(chunk) > cap:
            over = True
            continue  # keep draining so ssh never blocks on a full pipe
        buf += chunk
    return bytes(buf), over


async def _feed(stdin: Optional[asyncio.StreamWriter], payload: bytes) -> None:
    if stdin is None:
        return
    try:
        stdin.write(payload)
        await stdin.drain()
    except (BrokenPipeError, ConnectionResetError):
        pass
    finally:
        try:
            stdin.close()
        except (BrokenPipeError, ConnectionResetError, RuntimeError):
            pass


def _exited(proc: asyncio.subprocess.Process) -> bool:
    """True once ssh has exited, even before asyncio has noticed: its child watcher reaps the process in a
    thread and reports the exit a loop turn later, and an interrupt in that gap must not call a finished
    host interrupted. ``WNOWAIT`` looks without reaping; ECHILD means the watcher has reaped it already."""
    if proc.returncode is not None:
        return True
    try:
        return os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True
    except (OSError, AttributeError):  # AttributeError: no waitid on this platform
        return False


def _kill(proc: asyncio.subprocess.Process) -> None:
    if proc.returncode is None:
        try:
            proc.kill()
        except ProcessLookupError:
            pass


async def run_ssh(argv: list[str], payload: bytes, timeout: float, max_bytes: int = MAX_BUNDLE_BYTES) -> Outcome:
    """Run one ssh, feed ``payload``, collect stdout/stderr; kill it at ``timeout`` seconds."""
    t0 = time.monotonic()
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,  # Ctrl-C goes to us; we decide what to kill
        )
    except OSError as exc:
        return Outcome(rc=None, stdout=b"", stderr=f"cannot run {argv[0]}: {exc}", seconds=0.0)
    work = asyncio.gather(
        _feed(proc.stdin, payload),
        _read_capped(proc.stdout, max_bytes),
        _read_capped(proc.stderr, MAX_STDERR_BYTES),
        proc.wait(),
    )
    # mark the gather's outcome as retrieved even when it ends cancelled (timeout, Ctrl-C)
    work.add_done_callback(lambda f: f.cancelled() or f.exception())
    interrupted = False
    try:
        # asyncio.wait, not wait_for: neither a timeout nor an interrupt may cancel the reads of an ssh that has
        # already exited, whose answer is complete in its pipes
        done, _ = await asyncio.wait({work}, timeout=timeout)
    except asyncio.CancelledError:
        if not _exited(proc):
            _kill(proc)
            work.cancel()
            raise
        # ssh had already exited: only its pipes were being drained when the interrupt came. Keep the answer (the
        # caller records the host, then stops) instead of calling a finished host interrupted.
        interrupted = True
        try:
            done, _ = await asyncio.wait({work}, timeout=5.0)
        except BaseException:
            work.cancel()
            raise
        if not done:
            work.cancel()
            raise asyncio.CancelledError from None
    except BaseException:
        _kill(proc)
        work.cancel()
        raise
    if not done:
        _kill(proc)
        work.cancel()
        await proc.wait()
        return Outcome(rc=proc.returncode, stdout=b"", stderr="", seconds=time.monotonic() - t0, timed_out=True)
    try:
        _, (out, over), (err, _), rc = work.result()
    except BaseException:
        _kill(proc)
        raise
    return Outcome(
        rc=rc,
        stdout=out,
        stderr=err.decode("utf-8", "replace"),
        seconds=time.monotonic() - t0,
        truncated=over,
        interrupted=interrupted,
    )


def check_targz(data: bytes) -> Optional[str]:
    """None if ``data`` is a complete, readable tar.gz; otherwise a short reason (why it is garbage).

    Decompressed as a stream under the bundle limits (:mod:`rocmdoctor.bundle.tarstream`), never whole: a gzip
    bomb from one node costs at most one member's worth of memory and is refused by name. Callers run
    this off the event loop (it is CPU work).
    """
    from rocmdoctor.bundle import tarstream
    from rocmdoctor.errors import BadInput

    if not data:
        return "the host sent nothing on stdout"
    if data[:2] != b"\x1f\x8b":
        head = data[:60].decode("utf-8", "replace").strip().splitlines()
        return "not a tar.gz: the host printed " + repr(head[0][:60] if head else data[:20])
    count = 0
    try:
        for _ in tarstream.members(cast(BinaryIO, gzip.GzipFile(fileobj=io.BytesIO(data), mode="rb")), "reply"):
            count += 1
    except tarstream.CorruptArchive as exc:
        return f"the stream ended early or is corrupt ({str(exc).split('archive (', 1)[-1].rstrip(')')[:80]})"
    except BadInput as exc:  # a limit: the message names it
        return str(exc).replace("reply: ", "", 1)
    except tarstream.STREAM_ERRORS as exc:
        return f"the stream ended early or is corrupt ({type(exc).__name__}: {str(exc)[:80]})"
    if not count:
        return "an empty archive"
    return None


def _last_line(text: str) -> str:
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1][:200] if lines else ""


def classify(target: Target, out: Outcome, timeout: float) -> HostResult:
    """Map an ssh outcome to a status (ok / unreachable / auth-failed / timeout / bad-capture)."""

    def result(status: HostStatus, detail: str = "", bundle: bytes = b"") -> HostResult:
        return HostResult(target=target, status=status, bundle=bundle, detail=detail, seconds=out.seconds,
                          rc=out.rc)

    if out.timed_out:
        return result(TIMEOUT, f"no complete answer within {timeout:g} s; killed")
    low = out.stderr.lower()
    if out.rc is None:
        return result(UNREACHABLE, _last_line(out.stderr))
    if out.rc == 255 and not out.stdout:
        if any(p in low for p in _AUTH_PATTERNS):
            return result(AUTH_FAILED, _last_line(out.stderr))
        return result(UNREACHABLE, _last_line(out.stderr) or "ssh exit 255")
    if out.truncated:
        return result(BAD_CAPTURE, f"bundle larger than {MAX_BUNDLE_BYTES} bytes")
    problem = check_targz(out.stdout)
    if problem is not None:
        why = problem
        if out.rc not in (0, None):
            why += f"; remote exit {out.rc}"
        tail = _last_line(out.stderr)
        if tail:
            why += f"; stderr: {tail}"
        return result(BAD_CAPTURE, why)
    return result(OK, bundle=out.stdout)


class Pacer:
    """Spaces out new connections by ``interval`` seconds (the stagger)."""

    def __init__(self, interval: float) -> None:
        self.interval = max(0.0, interval)
        self._next = 0.0
        self._lock = asyncio.Lock()

    async def wait(self) -> None:
        if self.interval <= 0:
            return
        async with self._lock:
            now = time.monotonic()
            if self._next > now:
                await asyncio.sleep(self._next - now)
            self._next = max(now, self._next) + self.interval


ProgressHook = Callable[[Literal["start", "done"], Target, Optional[HostResult]], None]


HostStep = Callable[[HostResult], Awaitable[None]]


@dataclass(frozen=True)
class FanOutRequest:
    """One fan-out: who, how (ssh settings, payload, limits) and what to do with each host's result.

    ``after`` runs (inside the host's slot) for each ok host, e.g. the ``--live`` smoke programs;
    ``post`` runs for every host after its slot is freed (local judging overlaps the fan-out).
    """

    targets: list[Target]
    settings: SshSettings
    payload: bytes
    jobs: int = 64
    timeout: float = 60.0
    hook: Optional[ProgressHook] = None
    stagger: float = DEFAULT_STAGGER_S
    after: Optional[HostStep] = None
    post: Optional[HostStep] = None


_T = TypeVar("_T")


async def _to_the_end(step: Awaitable[_T]) -> tuple[_T, bool]:
    """Await ``step`` to its end even when the fan-out is interrupted meanwhile (Ctrl-C, SIGTERM): an answer that
    has arrived is kept, not turned into ``interrupted`` by a signal during its few milliseconds of local work.
    Returns the result and whether an interrupt came in (the caller stops after recording the host)."""
    task = asyncio.ensure_future(step)
    interrupted = False
    while True:
        try:
            return await asyncio.shield(task), interrupted
        except asyncio.CancelledError:
            if task.cancelled():
                raise
            interrupted = True


async def fan_out(req: FanOutRequest, results: dict[str, HostResult]) -> dict[str, HostResult]:
    """Audit every target with at most ``req.jobs`` ssh processes at once; fill ``results`` as hosts finish.

    ``results`` is filled in place so that an interrupted run still has everything gathered so far.
    """
    sem = asyncio.Semaphore(max(1, req.jobs))
    pacer = Pacer(req.stagger)

    async def one(t: Target) -> None:
        async with sem:
            await pacer.wait()
            if req.hook:
                req.hook("start", t, None)
            out = await run_ssh(ssh_argv(req.settings, t), req.payload, req.timeout)
            # decompressing and validating a reply is CPU work: off the loop, so other hosts' timeouts hold
            res, stop = await _to_the_end(asyncio.get_running_loop().run_in_executor(
                None, classify, t, out, req.timeout))
            stop = stop or out.interrupted
            if req.after is not None and res.status == OK and not stop:  # no new ssh after an interrupt
                await req.after(res)
        if req.post is not None:
            _, cancelled = await _to_the_end(req.post(res))
            stop = stop or cancelled
        results[t.name] = res
        if req.hook:
            req.hook("done", t, res)
        if stop:
            raise asyncio.CancelledError

    tasks = [asyncio.ensure_future(one(t)) for t in req.targets]
    try:
        await asyncio.gather(*tasks)
    except asyncio.CancelledError:
        # gather ends at the first cancelled host, while a host whose answer has arrived is still being judged
        # (``_to_the_end``): wait for those to be recorded before the loop closes; a second Ctrl-C stops at once
        await asyncio.wait(tasks)
        raise
    return results


def raise_fd_limit(jobs: int) -> None:
    """Each host in flight holds 3 pipe ends here (ssh's stdin/stdout/stderr); -j 512 needs more
    than the usual soft limit of 1024 open files, so lift the soft limit toward the hard one."""
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        want = 64 + 4 * jobs
        if soft != resource.RLIM_INFINITY and soft < want:
            new = want if hard == resource.RLIM_INFINITY else min(want, hard)
            resource.setrlimit(resource.RLIMIT_NOFILE, (new, hard))
    except (ImportError, ValueError, OSError):
        pass


def run_fan_out(req: FanOutRequest) -> tuple[dict[str, HostResult], bool]:
    """Run :func:`fan_out` to completion; on Ctrl-C return what was gathered and ``interrupted=True``."""
    raise_fd_limit(req.jobs)
    results: dict[str, HostResult] = {}
    interrupted = False
    loop = asyncio.new_event_loop()
    task = loop.create_task(fan_out(req, results))
    handled: list[signal.Signals] = []
    for sig in (signal.SIGINT, signal.SIGTERM):  # SIGTERM (a batch scheduler, kill) keeps the partial report too
        try:
            loop.add_signal_handler(sig, task.cancel)
            handled.append(sig)
        except (NotImplementedError, RuntimeError, ValueError):
            pass
    try:
        loop.run_until_complete(task)
    except (asyncio.CancelledError, KeyboardInterrupt):
        interrupted = True
        task.cancel()
        try:
            loop.run_until_complete(task)
        except (asyncio.CancelledError, KeyboardInterrupt, Exception):
            pass
    finally:
        for sig in handled:
            loop.remove_signal_handler(sig)
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()
    return results, interrupted


def ssh_available(ssh: str = "ssh") -> bool:
    """True if the ssh client can be found on PATH (or at the given path)."""
    import shutil

    return bool(shutil.which(ssh)) or (os.path.sep in ssh and os.access(ssh, os.X_OK))
