"""Running pip or uv: the command line, the environment, the output stream, the one-line reason it failed.

:func:`install_argv` builds the pip/uv command: ``--index-url`` only, exact pins, a constraints file, and the
user's configured extra indexes, find-links and constraints neutralised (they let a CUDA torch in);
:func:`install_env` drops every pip/uv setting of the user's; :func:`run_streaming` runs it, passing each line
on and stopping the child on Ctrl-C; :func:`installer_error` turns its output into one line.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from typing import Callable, Optional

from rocmdoctor.errors import BadInput
from rocmdoctor.install.plan import Plan
from rocmdoctor.install.session import PIP_SCRUB, die_with_parent_hook, stream_lines

#: uv's environment variables that would add indexes, links or constraints behind our back (pip's: PIP_SCRUB).
UV_SCRUB = ("UV_INDEX_URL", "UV_EXTRA_INDEX_URL", "UV_INDEX", "UV_DEFAULT_INDEX", "UV_FIND_LINKS", "UV_NO_INDEX",
            "UV_TORCH_BACKEND", "UV_CONSTRAINT", "UV_OVERRIDE", "UV_BUILD_CONSTRAINT", "UV_PRERELEASE",
            "UV_INDEX_STRATEGY", "UV_PYTHON", "UV_SYSTEM_PYTHON", "UV_REQUIRE_HASHES")


def find_uv() -> str:
    """The uv binary: on PATH, or the one the ``uv`` Python package ships."""
    found = shutil.which("uv")
    if found:
        return found
    try:
        from uv import find_uv_bin  # type: ignore[import-not-found]

        return str(find_uv_bin())
    except (ImportError, FileNotFoundError) as exc:
        raise BadInput("--installer uv: uv is not installed (pip install uv, or use --installer pip)") from exc


#: pip's transport settings a user may need behind a proxy or a private CA: carried from the environment to
#: explicit command-line options (nothing else of the user's pip configuration reaches the install).
PIP_TRANSPORT = {"PIP_PROXY": "--proxy", "PIP_CERT": "--cert", "PIP_CLIENT_CERT": "--client-cert",
                 "PIP_TIMEOUT": "--timeout", "PIP_RETRIES": "--retries"}


def install_env(plan: Plan, installer: str, constraints: str, empty_dir: str) -> dict[str, str]:
    """The installer's environment: no pip or uv configuration of the user's at all.

    pip reads ``pip.conf`` from the user's, the global and the *target venv's* own directories and merges
    options such as ``requirement``, ``extra-index-url`` and ``find-links`` into the install: a config file
    could add an index and a package behind the plan's back. ``PIP_CONFIG_FILE=/dev/null`` makes pip skip
    every configuration file, every other ``PIP_*`` variable is dropped, and :func:`install_argv` adds
    ``--isolated``; uv gets ``--no-config`` and none of its variables. What is installed is what the plan says.
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "UV_"))}
    for key in (*PIP_SCRUB, *UV_SCRUB):
        env.pop(key, None)
    if installer == "pip":
        env["PIP_CONFIG_FILE"] = os.devnull
    return env


def _pip_transport() -> list[str]:
    out: list[str] = []
    for var, flag in PIP_TRANSPORT.items():
        value = os.environ.get(var, "").strip()
        if value and "\n" not in value and not value.startswith("-"):
            out += [flag, value]
    return out


def install_argv(
    plan: Plan, installer: str, python: str, constraints: str, lock: Optional[str] = None, uv: Optional[str] = None,
) -> list[str]:
    """The pip or uv command line for ``plan`` (``lock``: install that hash-pinned file instead of the pins)."""
    if installer == "pip":
        argv = [python, "-m", "pip", "install", "--isolated", "--no-input", "--disable-pip-version-check",
                "--no-user", "--progress-bar", "off", "--only-binary", ":all:", *_pip_transport(),
                "--index-url", plan.index_url]
        for fl in plan.find_links:
            argv += ["--find-links", fl]
        if plan.pre:
            argv.append("--pre")
    elif installer == "uv":
        argv = [uv or find_uv(), "pip", "install", "--no-config", "--python", python, "--index-url", plan.index_url,
                "--index-strategy", "first-index", "--only-binary", ":all:"]
        for fl in plan.find_links:
            argv += ["--find-links", fl]
        if plan.pre:
            argv += ["--prerelease", "allow"]
    else:
        raise BadInput(f"--installer must be pip or uv, not {installer!r}")
    argv += ["-c", constraints]
    if lock:
        return [*argv, "--require-hashes", "-r", lock]
    return [*argv, *(r.spec() for r in plan.requirements)]


def run_streaming(argv: list[str], env: dict[str, str], on_line: Callable[[str], None]) -> tuple[int, list[str]]:
    """Run ``argv``, passing each output line to ``on_line``; Ctrl-C stops the child before re-raising."""
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                            env=env, text=True, errors="replace", bufsize=1, preexec_fn=die_with_parent_hook())
    return stream_lines(proc, on_line, [])



_UNREACHABLE = ("Connection refused", "Name or service not known", "Temporary failure in name resolution",
                "Network is unreachable", "No route to host", "timed out")


def installer_error(output: str) -> str:
    """The reason in one line, out of pip's or uv's many (retries, tracebacks, resolver trees).

    Why: the CLI promises one clear line; the last 600 characters of pip's output start mid-word and span lines.
    """
    for phrase in _UNREACHABLE:
        if phrase in output:
            return f"cannot reach the index ({phrase})"
    lines = [ln.strip().lstrip("×").strip() for ln in output.splitlines() if ln.strip()]
    errors = [ln for ln in lines if ln.lower().startswith("error")]
    text = (errors or lines or ["no output"])[0]
    return text if len(text) <= 300 else text[:297] + "..."
