"""What a smoke run was asked to do (:class:`SmokeOptions`) and the checks that turn flags into it.

Validation lives here, not in the command, so that ``rocmdoctor smoke``, ``check --live`` and ``fleet`` refuse
the same bad input with the same usage error (exit 2) before any process starts.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from typing import Optional

from rocmdoctor.errors import BadInput

DEFAULT_TIMEOUT = {1: 60.0, 2: 300.0, 3: 1800.0}  # per process; level 1 itself should take < 20 s


@dataclass
class SmokeOptions:
    """What to run: interpreter, level, devices (None: every GPU torch sees), limits."""

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
    """BadInput (exit 2) for options that contradict each other or are out of range."""
    if opts.cpu and opts.devices:
        raise BadInput("--devices and --device cpu exclude each other")
    if opts.timeout is not None and not (0 < opts.timeout <= 86400):
        raise BadInput(f"--timeout {opts.timeout:g}: expected seconds in (0, 86400]")
    if opts.duration is not None and not (0 < opts.duration <= 86400):
        raise BadInput(f"--duration {opts.duration:g}: expected seconds in (0, 86400]")
    if opts.level not in (1, 2, 3):
        raise BadInput(f"--level {opts.level}: expected 1, 2 or 3")
