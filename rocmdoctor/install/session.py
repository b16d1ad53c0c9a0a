"""The target interpreter as rocmdoctor talks to it: a probe, and a :class:`PipSession` that installs.

Kept apart from the rest of :mod:`rocmdoctor.install` (and light: stdlib only) so that the install command can start the
target interpreter before it imports anything else: the session's start-up then overlaps all of ours.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from typing import TYPE_CHECKING, Callable, Optional

from rocmdoctor.errors import BadInput

if TYPE_CHECKING:
    from rocmdoctor.install.target import Target

#: The program the target interpreter runs (``rocmdoctor/programs/target_session.py``): with no arguments it
#: prints the probe; with ``MODE MARK`` it is the session (see :class:`PipSession`).
TARGET_PROGRAM = "target_session.py"

#: The line the session prefixes its probe with (whatever the interpreter printed before is not it).
SESSION_MARK = "rocmdoctor-target: "

_TEXTS: dict[str, str] = {}


def program_text(name: str) -> str:
    """The source of ``rocmdoctor/programs/<name>``, to run with ``python -c``.

    Why ``-c`` and not the file's path: run as a file, the program's own directory (rocmdoctor's programs/)
    would come first on the target's ``sys.path``; ``-c`` puts the empty entry there instead, which the probe
    drops, so nothing but what the target has installed is importable. Read once per process (a few kB).
    """
    text = _TEXTS.get(name)
    if text is None:
        from rocmdoctor.paths import PROGRAMS_DIR

        text = _TEXTS[name] = (PROGRAMS_DIR / name).read_text(encoding="utf-8")
    return text


def probe(python: str, timeout: float = 60.0) -> Target:
    """Run the probe in ``python``; :class:`BadInput` when it is not a working interpreter."""
    from rocmdoctor.install.target import Target

    if python.startswith("-"):
        raise BadInput(f"--python {python!r} is not an interpreter path")
    try:
        proc = subprocess.run([python, "-c", program_text(TARGET_PROGRAM)], capture_output=True, text=True,
                              timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise BadInput(f"cannot run the target interpreter {python!r}: {exc}") from exc
    try:
        d = json.loads(proc.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError) as exc:
        raise BadInput(f"{python!r} did not answer like a Python 3 interpreter: {proc.stderr.strip()[-300:]}") from exc
    return Target.from_probe(d)


#: pip's environment variables that would add indexes, links or constraints behind our back.
PIP_SCRUB = ("PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS", "PIP_NO_INDEX", "PIP_CONSTRAINT",
             "PIP_REQUIREMENT", "PIP_TARGET", "PIP_PREFIX", "PIP_ROOT", "PIP_USER", "PIP_PRE")


def default_python() -> str:
    """The active virtual environment's interpreter, else the one running rocmdoctor."""
    venv = os.environ.get("VIRTUAL_ENV")
    if venv:
        cand = os.path.join(venv, "bin", "python")
        if os.path.exists(cand):
            return cand
    return sys.executable


def stream_lines(
    proc: subprocess.Popen[str], on_line: Callable[[str], None], lines: list[str],
) -> tuple[int, list[str]]:
    """Read ``proc`` to its end (lines appended to ``lines``); Ctrl-C stops the child before re-raising."""
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            line = line.rstrip()
            lines.append(line)
            if line:
                on_line(line)
        return proc.wait(), lines
    except BaseException:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        raise


def die_with_parent_hook() -> Optional[Callable[[], None]]:
    """A ``preexec_fn`` that makes the child get SIGKILL when rocmdoctor dies (Linux ``PR_SET_PDEATHSIG``), so
    that pip never finishes an unverified install after rocmdoctor was killed. Resolved here, in the parent:
    the hook itself imports nothing and allocates nothing in the forked child."""
    try:
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    args = (ctypes.c_int(1), ctypes.c_ulong(int(signal.SIGKILL)), ctypes.c_ulong(0), ctypes.c_ulong(0),
            ctypes.c_ulong(0))

    def hook() -> None:
        prctl(*args)  # PR_SET_PDEATHSIG = 1

    return hook


class PipSession:
    """The target interpreter, started as early as possible and kept for the install (``programs/target_session.py``).

    One process does what a probe and ``python -m pip install`` did in two: :meth:`target` is the probe's
    answer (the same :class:`Target`); with ``prewarm`` the process then loads pip's install code while
    rocmdoctor captures the host, resolves and takes its snapshot, and :meth:`run` lets it start installing.
    Until :meth:`run` it writes nothing (it runs with ``-B``); :meth:`close` ends it untouched. pip runs exactly
    as ``python -m pip`` would, in the environment :meth:`run` passes, in the interpreter that was probed.
    """

    def __init__(self, python: str, prewarm: bool) -> None:
        if python.startswith("-"):
            raise BadInput(f"--python {python!r} is not an interpreter path")
        self.python = python
        self.prewarm = prewarm
        self.executable: Optional[str] = None  # sys.executable as the process itself reported it
        self._started = False
        env = {k: v for k, v in os.environ.items() if k not in PIP_SCRUB}
        try:
            self.proc = subprocess.Popen(
                [python, "-B", "-c", program_text(TARGET_PROGRAM), "pip" if prewarm else "probe", SESSION_MARK],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, text=True,
                errors="replace", bufsize=1, preexec_fn=die_with_parent_hook())
        except OSError as exc:
            raise BadInput(f"cannot run the target interpreter {python!r}: {exc}") from exc

    @classmethod
    def take_early(cls, python: str, prewarm: bool) -> PipSession:
        """The session :func:`start_early` started for this very ``python`` and mode, else a new one."""
        early = _EARLY.pop() if _EARLY else None
        if early is not None:
            if early.python == python and early.prewarm == prewarm and early.proc.poll() is None:
                return early
            early.close()
        return cls(python, prewarm)

    def target(self, timeout: float = 60.0) -> Target:
        """The probe's answer; :class:`BadInput` when ``python`` is not a working interpreter."""
        import threading

        timer = threading.Timer(timeout, self.proc.kill)
        timer.start()
        before: list[str] = []
        try:
            assert self.proc.stdout is not None
            for line in self.proc.stdout:
                if line.startswith(SESSION_MARK):
                    from rocmdoctor.install.target import Target

                    try:
                        target = Target.from_probe(json.loads(line[len(SESSION_MARK):]))
                    except (ValueError, KeyError, TypeError) as exc:
                        raise BadInput(f"{self.python!r} did not answer like a Python 3 interpreter: {exc}") from exc
                    self.executable = target.executable
                    return target
                before.append(line)
        finally:
            timer.cancel()
        self.close()
        text = "".join(before).strip()[-300:] or f"exited with {self.proc.returncode}"
        raise BadInput(f"{self.python!r} did not answer like a Python 3 interpreter: {text}")

    def can_install(self, target: Target) -> bool:
        """Whether :meth:`run` can install into ``target``: pip loaded, the very interpreter probed, unused."""
        return (self.prewarm and not self._started and target.has_pip and self.executable == target.executable
                and self.proc.poll() is None)

    def run(self, pip_args: list[str], env: dict[str, str], on_line: Callable[[str], None]) -> tuple[int, list[str]]:
        """``python -m pip <pip_args>`` in ``env``, streamed like :func:`run_streaming`."""
        assert self.proc.stdin is not None and not self._started
        self._started = True
        lines: list[str] = []
        try:
            self.proc.stdin.write(json.dumps({"env": env, "args": pip_args}) + "\n")
            self.proc.stdin.close()
        except OSError as exc:  # it died (a Ctrl-C of its own): pip never started
            lines.append(f"the target interpreter exited before pip could start: {exc}")
        return stream_lines(self.proc, on_line, lines)

    def close(self) -> None:
        """End the process if it is still waiting (end of input: it exits having written nothing)."""
        if self._started:
            return
        self._started = True
        with contextlib.suppress(OSError):
            assert self.proc.stdin is not None
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()


#: The session :func:`start_early` started, until the install command takes it or :func:`close_early` ends it.
_EARLY: list[PipSession] = []


def start_early(args: list[str]) -> None:
    """Start the target interpreter for ``install torch`` before the CLI has even parsed its arguments.

    Why: with small wheels the whole install takes half a second, and rocmdoctor's own start-up (typer, click)
    was on its critical path before the target could start loading pip. The session writes nothing until told
    to install, so starting it for a command line that then fails to parse costs one idle process, ended by
    :func:`close_early`. Only the plain case is started early: an explicit ``--python`` (or the default
    interpreter), the pip installer, no ``--from``/``--dry-run``/``--help``; anything unusual is left to the
    command, which starts its own session as before."""
    if args[:2] != ["install", "torch"] or _EARLY:
        return
    python: Optional[str] = None
    rest = args[2:]
    for i, arg in enumerate(rest):
        name, eq, value = arg.partition("=")
        if name in ("--from", "--dry-run", "--help", "-h", "--"):
            return
        if name in ("--python", "--installer"):
            if not eq:
                value = rest[i + 1] if i + 1 < len(rest) else ""
            if not value.strip() or value.startswith("-"):
                return
            if name == "--installer" and value != "pip":
                return
            if name == "--python":
                python = value
    try:
        _EARLY.append(PipSession(python or default_python(), prewarm=True))
    except Exception:  # the command reports it properly when it gets there
        return


def close_early() -> None:
    """End an early session the command did not take (a usage error, --help, a failure before installing)."""
    while _EARLY:
        _EARLY.pop().close()
