"""Install a :class:`~rocmdoctor.install.plan.Plan` into a target interpreter — and lose nothing if anything fails.

The steps, each testable on its own:

* :func:`probe` asks the target interpreter (a subprocess) where its packages live and what it holds;
  :class:`PipSession` is that same question asked of a process that then stays, loads pip while rocmdoctor
  reads the host and takes its snapshot, and runs the install: one interpreter start instead of two, and
  pip's start-up off the critical path;
* :class:`Snapshot` records every file under its site-packages (and its scripts directory) and keeps a
  hard-linked backup of each (a copy where links are impossible). Installers unlink files before writing
  them, so the backup keeps the old content for free. :meth:`Snapshot.restore` makes the tree exactly what it
  was: files that were not there are deleted, files that are not the recorded inode are put back. This undoes
  a half-extracted wheel, pip's partial "installed torch, failed on torchaudio", a Ctrl-C and a failed
  verification alike — without the network and without knowing what pip did;
* :func:`install_argv` builds the pip/uv command: ``--index-url`` only, exact pins, a constraints file, and
  the user's configured extra indexes, find-links and constraints neutralised (they let a CUDA torch in);
* :func:`verify` imports torch in a subprocess of the target and checks it is the ROCm build we meant;
* :func:`write_lock` resolves the full closure and writes every pin with the index's sha256 hashes.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Callable, Optional

from rocmdoctor import atomic
from rocmdoctor.errors import BadInput, OperationFailed
from rocmdoctor.install import lock as txn
from rocmdoctor.install.plan import Plan
from rocmdoctor.install.session import PIP_SCRUB, PROBE_SCRIPT, PipSession, _stream, die_with_parent_hook

VERIFY_SCRIPT = r"""
import json, os, sys
out = {}
try:
    import torch
    out["version"] = str(torch.__version__)
    out["hip"] = getattr(torch.version, "hip", None)
    out["cuda"] = getattr(torch.version, "cuda", None)
    try:
        out["libs"] = sorted(os.listdir(os.path.join(os.path.dirname(torch.__file__), "lib")))
    except OSError:
        out["libs"] = []
    if sys.argv[1] == "gpu":
        out["available"] = bool(torch.cuda.is_available())
        out["arch_list"] = list(torch.cuda.get_arch_list())
        if out["available"]:
            out["devices"] = [
                getattr(torch.cuda.get_device_properties(i), "gcnArchName", "")
                for i in range(torch.cuda.device_count())
            ]
except Exception as exc:
    out["error"] = "%s: %s" % (type(exc).__name__, exc)
print(json.dumps(out))
"""

#: The verification interpreter, started while the installer runs so that its start-up is not paid after it:
#: it waits for a line on stdin ("gpu" / "nogpu"; end of input: exit), then runs :data:`VERIFY_SCRIPT` (argv[1])
#: as ``python -c`` would. If the install changed what a fresh start reads (a .pth file, a sitecustomize or
#: usercustomize in a site directory: added, removed or rewritten), it starts afresh (exec) instead. ``-B``: it
#: never writes bytecode into the environment pip is changing.
VERIFY_WAIT = r"""
import os, sys
def _site_state():
    import site
    dirs = list(site.getsitepackages())
    if site.ENABLE_USER_SITE:
        dirs.append(site.getusersitepackages())
    state = []
    for d in dirs:
        try:
            names = sorted(os.listdir(d))
        except OSError:
            continue
        for n in names:
            if n.endswith(".pth") or n.split(".")[0] in ("sitecustomize", "usercustomize"):
                try:
                    st = os.stat(os.path.join(d, n))
                    state.append((d, n, st.st_ino, st.st_mtime_ns, st.st_size))
                except OSError:
                    state.append((d, n))
    return state
_before = _site_state()
_mode = sys.stdin.readline().strip()
if _mode:
    _code = sys.argv[1]
    if _site_state() != _before:
        os.execv(sys.executable, [sys.executable, "-B", "-c", _code, _mode])
    import importlib
    importlib.invalidate_caches()
    sys.argv = ["-c", _mode]
    exec(compile(_code, "<string>", "exec"), {"__name__": "__main__", "__builtins__": __builtins__})
"""

#: uv's environment variables that would add indexes, links or constraints behind our back (pip's: PIP_SCRUB).
UV_SCRUB = ("UV_INDEX_URL", "UV_EXTRA_INDEX_URL", "UV_INDEX", "UV_DEFAULT_INDEX", "UV_FIND_LINKS", "UV_NO_INDEX",
            "UV_TORCH_BACKEND", "UV_CONSTRAINT", "UV_OVERRIDE", "UV_BUILD_CONSTRAINT", "UV_PRERELEASE",
            "UV_INDEX_STRATEGY", "UV_PYTHON", "UV_SYSTEM_PYTHON", "UV_REQUIRE_HASHES")


@dataclass
class Target:
    """What the target interpreter told :func:`probe`."""

    executable: str
    version: str
    implementation: str
    prefix: str
    base_prefix: str
    purelib: str
    platlib: str
    scripts: str
    dists: dict[str, str]
    torch: Optional[dict[str, object]]
    has_pip: bool

    @property
    def torch_build(self) -> Optional[str]:
        """'rocm' | 'cuda' | 'cpu' | None (no torch) for the installed torch, read without importing it."""
        if not self.torch:
            return None
        version = str(self.torch.get("__version__") or self.dists.get("torch") or "")
        libs = [str(x) for x in self.torch.get("libs") or []]  # type: ignore[union-attr]
        if self.torch.get("hip") or "+rocm" in version or any("amdhip" in x for x in libs):
            return "rocm"
        if self.torch.get("cuda") or "+cu" in version or any("cudart" in x for x in libs):
            return "cuda"
        return "cpu"

    @property
    def torch_version(self) -> Optional[str]:
        if not self.torch:
            return None
        return str(self.torch.get("__version__") or self.dists.get("torch") or "unknown")


def probe(python: str, timeout: float = 60.0) -> Target:
    """Run :data:`PROBE_SCRIPT` in ``python``; :class:`BadInput` when it is not a working interpreter."""
    if python.startswith("-"):
        raise BadInput(f"--python {python!r} is not an interpreter path")
    try:
        proc = subprocess.run([python, "-c", PROBE_SCRIPT], capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise BadInput(f"cannot run the target interpreter {python!r}: {exc}") from exc
    try:
        d = json.loads(proc.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError) as exc:
        raise BadInput(f"{python!r} did not answer like a Python 3 interpreter: {proc.stderr.strip()[-300:]}") from exc
    return _target(d)


def _target(d: dict) -> Target:  # type: ignore[type-arg]
    return Target(
        executable=d["executable"], version=d["version"], implementation=d["implementation"], prefix=d["prefix"],
        base_prefix=d["base_prefix"], purelib=d["purelib"], platlib=d["platlib"], scripts=d["scripts"],
        dists=d["dists"], torch=d["torch"], has_pip=d["pip"],
    )


# ---------------------------------------------------------------------------------------------- snapshot
@dataclass(frozen=True)
class _Entry:
    kind: str  # "f" file, "l" symlink, "d" directory
    ino: int = 0
    size: int = 0
    mtime_ns: int = 0
    link: str = ""


def _scan(root: str, shallow: bool) -> dict[str, _Entry]:
    """Every entry below ``root`` by relative path (files only at the top level when ``shallow``)."""
    out: dict[str, _Entry] = {}
    stack = [""]
    while stack:
        rel = stack.pop()
        try:
            it = os.scandir(os.path.join(root, rel) if rel else root)
        except FileNotFoundError:
            continue
        with it:
            for e in it:
                r = f"{rel}/{e.name}" if rel else e.name
                st = e.stat(follow_symlinks=False)
                if stat.S_ISLNK(st.st_mode):
                    out[r] = _Entry("l", link=os.readlink(e.path))
                elif stat.S_ISDIR(st.st_mode):
                    if not shallow:
                        out[r] = _Entry("d")
                        stack.append(r)
                else:
                    out[r] = _Entry("f", st.st_ino, st.st_size, st.st_mtime_ns)
    return out


def _record_files(site: str, names: tuple[str, ...]) -> set[str]:
    """Absolute paths listed in the RECORD of the named distributions installed in ``site``."""
    import csv

    out: set[str] = set()
    wanted = {_normalize(n) for n in names}
    try:
        infos = [e for e in os.scandir(site) if e.name.endswith(".dist-info")]
    except OSError:
        return out
    for info in infos:
        if _normalize(info.name[: -len(".dist-info")].rsplit("-", 1)[0]) not in wanted:
            continue
        try:
            with open(os.path.join(info.path, "RECORD"), newline="") as fh:
                out.update(os.path.normpath(os.path.join(site, row[0])) for row in csv.reader(fh) if row)
        except OSError:
            continue
    return out


class Snapshot:
    """The files of an environment at one moment, with a backup that makes restoring them exact."""

    def __init__(self, roots: list[tuple[str, bool]], backup: str) -> None:
        self.roots = roots  # (directory, shallow)
        self.backup = backup
        self.entries: list[dict[str, _Entry]] = []
        self.saved: list[dict[str, str]] = []  # per root: relative path -> its backup (a flat name in ``backup``)
        self.copied = 0  # files that had to be copied because a hard link was impossible
        self.lock: Optional[txn.EnvLock] = None  # held from take() to discard(): one install per environment
        self.recovered: list[str] = []  # what an earlier, interrupted install left and take() finished

    @classmethod
    def take(cls, target: Target, untouched: tuple[str, ...] = ("pip",)) -> Snapshot:
        """Record and back up site-packages (purelib/platlib) and the top level of the scripts directory.

        The files of the ``untouched`` distributions (the installer's own pip, never part of a torch closure)
        are recorded but not backed up: that halves the cost in a fresh venv. Should they change anyway,
        :meth:`restore` reports it instead of pretending.
        """
        roots: list[tuple[str, bool]] = []
        for d in (target.purelib, target.platlib):
            if d not in [r for r, _ in roots]:
                roots.append((d, False))
        if not any(target.scripts.startswith(r + os.sep) for r, _ in roots):
            roots.append((target.scripts, True))
        parent = os.path.dirname(os.path.abspath(target.purelib))
        env_lock = txn.lock(parent)
        try:
            recovered = txn.recover(parent)
            try:
                backup = tempfile.mkdtemp(prefix=txn.ROLLBACK_PREFIX, dir=parent)
            except OSError:
                backup = tempfile.mkdtemp(prefix="rocmdoctor-rollback-")
            snap = cls(roots, backup)
            snap.lock, snap.recovered = env_lock, recovered
            snap._take(target, untouched)
        except BaseException:
            env_lock.release()
            raise
        return snap

    def _take(self, target: Target, untouched: tuple[str, ...]) -> None:
        snap, roots, backup = self, self.roots, self.backup
        skip = _record_files(target.purelib, untouched)
        for i, (root, shallow) in enumerate(roots):
            entries = _scan(root, shallow)
            snap.entries.append(entries)
            saved: dict[str, str] = {}
            snap.saved.append(saved)
            for rel, e in entries.items():
                if e.kind != "f" or os.path.join(root, rel) in skip:
                    continue
                # Flat: one directory holds every backup. Mirroring the tree cost a mkdir per directory, and a
                # mkdir costs more than the hard links it holds (0.5 ms against 15 us here; torch has thousands).
                dest = os.path.join(backup, f"{i}-{len(saved)}")
                try:
                    os.link(os.path.join(root, rel), dest)
                except OSError:
                    shutil.copy2(os.path.join(root, rel), dest)
                    snap.copied += 1
                saved[rel] = dest
        # the journal last: its presence says the backup is complete and pip may have run since
        txn.write_journal(backup, roots, snap.entries, snap.saved)

    def changed(self) -> bool:
        """Whether anything differs from the snapshot (cheap: inode/kind comparison)."""
        return any(_scan(root, shallow) != before for (root, shallow), before in zip(self.roots, self.entries))

    def restore(self) -> list[str]:
        """Make every root exactly what it was; returns the problems (empty = restored exactly)."""
        problems: list[str] = []
        for i, ((root, shallow), before) in enumerate(zip(self.roots, self.entries)):
            now = _scan(root, shallow)
            # 1. remove what was not there (or changed kind), top-down so a removed directory takes its content
            for rel in sorted(now, key=lambda r: (r.count("/"), r)):
                e = now[rel]
                old = before.get(rel)
                path = os.path.join(root, rel)
                if old is not None and old.kind == e.kind and (e.kind != "l" or old.link == e.link):
                    continue
                if not os.path.lexists(path):
                    continue  # already gone with its directory
                try:
                    if e.kind == "d":
                        shutil.rmtree(path)
                    else:
                        os.unlink(path)
                except OSError as exc:
                    problems.append(f"could not remove {path}: {exc}")
            # 2. put back what was there
            for rel in sorted(before, key=lambda r: (r.count("/"), r)):
                e = before[rel]
                path = os.path.join(root, rel)
                try:
                    if e.kind == "d":
                        os.makedirs(path, exist_ok=True)
                    elif e.kind == "l":
                        if not os.path.lexists(path):
                            os.makedirs(os.path.dirname(path), exist_ok=True)
                            os.symlink(e.link, path)
                    else:
                        self._restore_file(i, rel, e, path, problems)
                except OSError as exc:
                    problems.append(f"could not restore {path}: {exc}")
        return problems

    def _restore_file(self, i: int, rel: str, e: _Entry, path: str, problems: list[str]) -> None:
        try:
            st = os.lstat(path)
            if st.st_ino == e.ino and st.st_size == e.size and st.st_mtime_ns == e.mtime_ns:
                return
        except FileNotFoundError:
            pass
        src = self.saved[i].get(rel, "")
        try:
            bst = os.stat(src)
        except FileNotFoundError:
            problems.append(f"{path} changed, but it belongs to a distribution that was not backed up")
            return
        if bst.st_size != e.size or bst.st_mtime_ns != e.mtime_ns:
            problems.append(f"{path} was modified in place by the installer; its old content is lost")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = f"{path}.rocmdoctor-restore"
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        try:
            os.link(src, tmp)
        except OSError:
            shutil.copy2(src, tmp)
        os.replace(tmp, path)

    def discard(self, background: bool = False) -> None:
        """Drop the backup (after success, or after a restore). ``background``: hand the deletion of the
        (possibly tens of thousands of) links to a detached ``rm`` so the user does not wait for it."""
        try:
            if background and shutil.which("rm"):
                trash = f"{self.backup}.trash"
                try:
                    os.rename(self.backup, trash)
                    subprocess.Popen(["rm", "-rf", "--", trash], stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
                    return
                except OSError:
                    pass
            shutil.rmtree(self.backup, ignore_errors=True)
        finally:
            if self.lock is not None:
                self.lock.release()
                self.lock = None


# ---------------------------------------------------------------------------------------------- commands
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


@contextlib.contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM, SIGHUP (the terminal closed) and SIGQUIT during the install are handled like Ctrl-C: pip is
    stopped, the environment restored, then rocmdoctor exits. (SIGKILL cannot be caught: pip dies with us,
    see :func:`rocmdoctor.install.session.die_with_parent_hook`, and the next run rolls back from the journal.)"""

    def handler(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    saved = {}
    try:
        for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
            saved[sig] = signal.signal(sig, handler)
    except ValueError:  # not the main thread
        pass
    try:
        yield
    finally:
        for sig, old in saved.items():
            signal.signal(sig, old)


@contextlib.contextmanager
def _signals_ignored() -> Iterator[None]:
    """SIGINT/SIGTERM ignored for the duration (main thread only; elsewhere a no-op)."""
    saved = {}
    try:
        for sig in (signal.SIGINT, signal.SIGTERM):
            saved[sig] = signal.signal(sig, signal.SIG_IGN)
    except ValueError:  # not the main thread
        pass
    try:
        yield
    finally:
        for sig, old in saved.items():
            signal.signal(sig, old)


def run_streaming(argv: list[str], env: dict[str, str], on_line: Callable[[str], None]) -> tuple[int, list[str]]:
    """Run ``argv``, passing each output line to ``on_line``; Ctrl-C stops the child before re-raising."""
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                            env=env, text=True, errors="replace", bufsize=1, preexec_fn=die_with_parent_hook())
    return _stream(proc, on_line, [])


# ---------------------------------------------------------------------------------------------- verify
class Verifier:
    """A :data:`VERIFY_WAIT` interpreter of ``python`` in the plan's environment, started ahead of the check."""

    def __init__(self, plan: Plan, python: str) -> None:
        self.proc = subprocess.Popen([python, "-B", "-c", VERIFY_WAIT, VERIFY_SCRIPT], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     env={**os.environ, **plan.env})

    def answer(self, gpu_check: bool, timeout: float) -> dict:  # type: ignore[type-arg]
        """Run the check now; the JSON it printed (OSError, TimeoutExpired, ValueError, IndexError on failure)."""
        try:
            out, _ = self.proc.communicate(("gpu" if gpu_check else "nogpu") + "\n", timeout=timeout)
        except BaseException:
            self.proc.kill()
            self.proc.wait()
            raise
        return json.loads(out.strip().splitlines()[-1])  # type: ignore[no-any-return]

    def close(self) -> None:
        """Let it go unused (end of input: it exits having run nothing)."""
        if self.proc.returncode is not None:
            return
        try:
            self.proc.communicate("", timeout=10)
        except (OSError, ValueError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()


def verify(plan: Plan, python: str, gpu_check: bool, timeout: float = 300.0,
           started: Optional[Verifier] = None) -> list[str]:
    """Problems with the torch now installed in ``python`` (empty = it is the ROCm build we meant).
    ``started``: a :class:`Verifier` of ``python`` for ``plan`` started earlier (else one starts now)."""
    try:
        d = (started or Verifier(plan, python)).answer(gpu_check, timeout)
    except (OSError, subprocess.TimeoutExpired, ValueError, IndexError) as exc:
        return [f"could not run the verification in {python}: {exc}"]
    if "error" in d and "version" not in d:
        return [f"import torch failed: {d['error']}"]
    problems = []
    version = str(d.get("version", ""))
    wanted = next((r.version for r in plan.requirements if r.name == "torch"), "")
    if "+rocm" not in version:
        problems.append(f"torch {version} is not a ROCm build (its version has no +rocm label)")
    elif wanted and not wanted.endswith("*") and version != wanted:
        problems.append(f"torch {version} is installed, but the plan asked for {wanted}")
    if not d.get("hip"):
        problems.append("torch.version.hip is not set: this torch was not built for ROCm")
    if d.get("cuda"):
        problems.append(f"torch.version.cuda is {d['cuda']}: this is a CUDA build")
    cudart = [x for x in d.get("libs", []) if "cudart" in x]
    if cudart:
        problems.append(f"torch/lib bundles the CUDA runtime ({', '.join(cudart)})")
    if "error" in d:
        problems.append(f"torch check failed: {d['error']}")
    elif gpu_check:
        if not d.get("available"):
            problems.append("torch.cuda.is_available() is False: PyTorch cannot see the GPU (run `rocmdoctor check`)")
        override = plan.env.get("HSA_OVERRIDE_GFX_VERSION")
        from rocmdoctor.install.resolve import override_gfx

        expected = {override_gfx(override)} if override else set(plan.gpus)
        archs = {a.split(":")[0] for a in d.get("arch_list", [])}
        missing = sorted(g for g in expected if g and g not in archs)
        if missing:
            problems.append(f"torch.cuda.get_arch_list() lacks {', '.join(missing)} (has {', '.join(sorted(archs))})")
    return problems


# ---------------------------------------------------------------------------------------------- lock
class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, Optional[str]]]) -> None:
        if tag == "a":
            self.hrefs += [v for k, v in attrs if k == "href" and v]


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _file_version(filename: str) -> Optional[tuple[str, str]]:
    """(normalised name, version) of a wheel or sdist file name, None for anything else."""
    from packaging.utils import InvalidSdistFilename, InvalidWheelFilename, parse_sdist_filename, parse_wheel_filename

    try:
        if filename.endswith(".whl"):
            name, version, _, _ = parse_wheel_filename(filename)
        elif filename.endswith((".tar.gz", ".zip")):
            name, version = parse_sdist_filename(filename)
        else:
            return None
    except (InvalidWheelFilename, InvalidSdistFilename):
        return None
    return _normalize(name), str(version)


INDEX_PAGE_MAX_BYTES = 64 * 1024 * 1024  # one simple-index page (PyPI's torch page is a few MB): beyond is hostile


def _fetch(url: str, accept: str) -> tuple[str, bytes]:
    """One index or find-links page: over HTTP(S) through :func:`rocmdoctor.http.session` (the user's proxy
    settings, retries on 429/5xx), a ``file://`` page with urllib; at most :data:`INDEX_PAGE_MAX_BYTES`.
    Raises ``OSError`` (requests' errors are ``OSError`` too) or ``ValueError``."""
    if not url.startswith(("http://", "https://")):
        import urllib.request  # here: its import (http.client, ssl) would delay every install's start

        req = urllib.request.Request(url, headers={"Accept": accept, "User-Agent": "rocmdoctor"})
        with urllib.request.urlopen(req, timeout=60) as resp:
            body = resp.read(INDEX_PAGE_MAX_BYTES + 1)
            ctype = resp.headers.get("Content-Type", "")
    else:
        from rocmdoctor import http

        with http.session().get(url, headers={"Accept": accept}, timeout=60, stream=True) as resp:
            if resp.status_code >= 400:
                raise OSError(f"{url}: HTTP {resp.status_code}")
            body = resp.raw.read(INDEX_PAGE_MAX_BYTES + 1, decode_content=True)
            ctype = resp.headers.get("Content-Type", "")
    if len(body) > INDEX_PAGE_MAX_BYTES:
        raise ValueError(f"{url}: index page larger than {INDEX_PAGE_MAX_BYTES} bytes")
    return ctype, body


def verify_sources(plan: Plan, before: dict[str, str], python: str) -> list[str]:
    """Problems if a distribution the install added or changed is not published by the plan's index or find-links.

    The plan names where every wheel comes from (``index_url``, ``find_links``); pip and uv run isolated from
    any other configuration, and this checks the outcome rather than trusting it: each distribution now in
    ``python`` at a version it did not have before must be offered, at that version, by those pages.
    """
    from concurrent.futures import ThreadPoolExecutor

    from packaging.version import InvalidVersion, Version

    def norm(v: str) -> str:
        try:
            return str(Version(v))
        except InvalidVersion:
            return v

    try:
        now = probe(python).dists
    except (BadInput, OSError, ValueError) as exc:
        return [f"could not list the installed distributions to check where they came from: {exc}"]
    changed = {n: v for n, v in now.items() if before.get(n) != v}
    if not changed:
        return []
    where = " and ".join([plan.index_url, *plan.find_links])
    with ThreadPoolExecutor(max_workers=8) as pool:
        published = dict(zip(changed, pool.map(
            lambda n: {norm(v) for v in index_hashes(plan.index_url, n, tuple(plan.find_links))}, changed)))
    return [f"{name} {version} was installed, but {where} does not publish it: it came from somewhere else"
            for name, version in sorted(changed.items()) if norm(version) not in published[name]]


def index_hashes(index_url: str, name: str, find_links: tuple[str, ...] = ()) -> dict[str, dict[str, str]]:
    """``{version: {filename: sha256}}`` for a project, from a PEP 691 JSON or PEP 503 HTML page
    (and flat find-links pages, whose ``#sha256=`` fragments carry the hashes)."""
    out: dict[str, dict[str, str]] = {}
    project = _normalize(name)
    for page in (f"{index_url.rstrip('/')}/{project}/", *find_links):
        try:
            ctype, body = _fetch(page, "application/vnd.pypi.simple.v1+json, text/html;q=0.1")
        except (OSError, ValueError):
            continue
        for version, files in parse_index_page(body, ctype, project).items():
            out.setdefault(version, {}).update(files)
    return out


def parse_index_page(body: bytes, content_type: str, project: str) -> dict[str, dict[str, str]]:
    """``{version: {filename: sha256}}`` of ``project`` from one PEP 691 JSON / PEP 503 HTML / flat page.
    Never raises: a page it cannot read yields nothing."""
    files: list[tuple[str, object]] = []
    if "json" in content_type:
        try:
            data = json.loads(body)
        except ValueError:
            data = {}
        entries = data.get("files", []) if isinstance(data, dict) else []
        for f in entries if isinstance(entries, list) else []:
            if isinstance(f, dict) and isinstance(f.get("hashes"), dict):
                files.append((str(f.get("filename", "")), f["hashes"].get("sha256")))
    else:
        parser = _Links()
        try:
            parser.feed(body.decode("utf-8", "replace"))
            parser.close()
        except Exception:  # html.parser is lenient, but a page is never worth a crash
            pass
        for href in parser.hrefs:
            path, _, frag = href.partition("#")
            m = re.match(r"sha256=([0-9a-fA-F]{64})", frag)
            files.append((urllib.parse.unquote(path.rsplit("/", 1)[-1]), m.group(1) if m else None))
    out: dict[str, dict[str, str]] = {}
    for fname, digest in files:
        if not isinstance(digest, str) or not re.fullmatch(r"[0-9a-fA-F]{64}", digest):
            continue
        parsed = _file_version(fname)
        if parsed and parsed[0] == _normalize(project):
            out.setdefault(parsed[1], {})[fname] = digest.lower()
    return out


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

def resolve_closure(plan: Plan, installer: str, python: str, python_version: Optional[str], workdir: str,
                    env: dict[str, str], constraints: str) -> list[tuple[str, str]]:
    """Every (name, version) the install would bring, already-installed ones included (for the lock)."""
    if installer == "uv":
        reqs = os.path.join(workdir, "requirements.in")
        Path(reqs).write_text("".join(f"{r.spec()}\n" for r in plan.requirements))
        argv = [find_uv(), "pip", "compile", "--no-config", "--quiet", "--no-header", "--no-annotate",
                "--index-url", plan.index_url, "--index-strategy", "first-index", "-c", constraints, reqs]
        argv += ["--python-version", python_version] if python_version else ["--python", python]
        argv += [x for fl in plan.find_links for x in ("--find-links", fl)]
        if plan.pre:
            argv += ["--prerelease", "allow"]
        proc = subprocess.run(argv, capture_output=True, text=True, env=env)
        if proc.returncode != 0:
            raise OperationFailed(f"could not resolve the lock with uv: {installer_error(proc.stderr)}")
        pins = [line.split("==", 1) for line in proc.stdout.splitlines() if "==" in line and not line.startswith("#")]
        return [(_normalize(n.strip()), v.split()[0].strip()) for n, v in pins]
    report = os.path.join(workdir, "report.json")
    argv = install_argv(plan, "pip", python if not python_version else sys.executable, constraints)
    argv[4:4] = ["--dry-run", "--ignore-installed", "--quiet", "--report", report]
    if python_version:
        argv[4:4] = ["--python-version", python_version, "--implementation", "cp", "--platform", "linux_x86_64",
                     "--platform", "manylinux_2_28_x86_64", "--platform", "manylinux2014_x86_64",
                     "--target", os.path.join(workdir, "target")]  # pip demands a target here; --dry-run writes none
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL)
    if proc.returncode != 0:
        raise OperationFailed(f"could not resolve the lock with pip: {installer_error(proc.stdout + proc.stderr)}")
    data = json.loads(Path(report).read_text())
    return [(_normalize(i["metadata"]["name"]), str(i["metadata"]["version"])) for i in data.get("install", [])]


def write_lock(plan: Plan, closure: list[tuple[str, str]], path: str) -> str:
    """Write a ``--require-hashes`` requirements file; :class:`OperationFailed` when a hash is missing."""
    lines = [
        "# Written by `rocmdoctor install torch --lock`: every package with the sha256 the index publishes.",
        f"# Install with: pip install --require-hashes --index-url {plan.index_url} -r {os.path.basename(path)}",
        f"--index-url {plan.index_url}",
        *(f"--find-links {fl}" for fl in plan.find_links),
    ]
    missing = []
    for name, version in sorted(closure):
        hashes = index_hashes(plan.index_url, name, tuple(plan.find_links)).get(version)
        if not hashes:
            missing.append(f"{name}=={version}")
            continue
        lines.append(f"{name}=={version} \\")
        digests = sorted(set(hashes.values()))
        lines += [f"    --hash=sha256:{d}" + (" \\" if i < len(digests) - 1 else "") for i, d in enumerate(digests)]
    if missing:
        raise OperationFailed(f"the index publishes no sha256 for {', '.join(missing)}: cannot write a hash lock")
    text = "\n".join(lines) + "\n"
    try:
        atomic.write_text(path, text)
    except OSError as exc:
        raise BadInput(f"cannot write the lock file {path}: {exc}") from exc
    return text


# ---------------------------------------------------------------------------------------------- the whole run
@dataclass
class InstallResult:
    ok: bool
    installer_rc: Optional[int] = None
    problems: list[str] = field(default_factory=list)  # verification problems / installer error lines
    restored: bool = False
    restore_problems: list[str] = field(default_factory=list)
    seconds: float = 0.0
    output_tail: list[str] = field(default_factory=list)
    recovered: list[str] = field(default_factory=list)  # an earlier interrupted install, finished first


def _restore_and_check(snap: Snapshot, target: Target) -> list[str]:
    """Restore the files (a second Ctrl-C cannot cut this short), then ask the interpreter again: the
    distribution list must be the one we saw first."""
    with _signals_ignored():
        problems = snap.restore()
    try:
        now = probe(target.executable).dists
    except BadInput as exc:
        return [*problems, f"could not re-read the environment after restoring it: {exc}"]
    for name in sorted(set(now) | set(target.dists)):
        if now.get(name) != target.dists.get(name):
            problems.append(f"{name}: {target.dists.get(name) or 'absent'} before, {now.get(name) or 'absent'} now")
    return problems


def install(
    plan: Plan, target: Target, installer: str = "pip", gpu_check: bool = False, lock: Optional[str] = None,
    on_line: Callable[[str], None] = lambda line: None, workdir: Optional[str] = None,
    session: Optional[PipSession] = None, snapshot: Optional[Snapshot] = None,
) -> InstallResult:
    """Snapshot, install, verify; on any failure or interrupt restore the snapshot exactly.

    ``session``: a :class:`PipSession` of ``target`` that runs pip (else a fresh ``python -m pip``; a session
    that cannot is left alone). ``snapshot``: one :meth:`Snapshot.take` of ``target`` made since nothing else
    changed it (else taken here); either way it is this function's to restore and discard.
    Returns an :class:`InstallResult` (``ok=False`` with ``restored=True`` after a failure); a Ctrl-C
    restores and then re-raises ``KeyboardInterrupt`` (carrying ``restore_problems``).
    """
    start = time.monotonic()
    own_dir = workdir is None
    work: Optional[str] = None
    verifier: Optional[Verifier] = None
    snap = snapshot
    result = InstallResult(ok=False)
    try:
        if installer == "pip" and not target.has_pip:
            raise BadInput(f"{target.executable} has no pip: use --installer uv, "
                           f"or run `{target.executable} -m ensurepip`")
        uv = find_uv() if installer == "uv" else None
        work = workdir or txn.new_workdir()
        constraints = os.path.join(work, "constraints.txt")
        Path(constraints).write_text(plan.constraints())
        empty = os.path.join(work, "no-find-links")
        os.makedirs(empty, exist_ok=True)
        env = install_env(plan, installer, constraints, empty)
        argv = install_argv(plan, installer, target.executable, constraints, lock, uv)
        if snap is None:
            snap = Snapshot.take(target)
        result.recovered = list(snap.recovered)
        for note in snap.recovered:
            on_line(note)
        use_session = session is not None and installer == "pip" and session.can_install(target)
        with _sigterm_as_interrupt():
            try:
                verifier = Verifier(plan, target.executable)  # its start-up overlaps the install
                if use_session:
                    assert session is not None and argv[:3] == [target.executable, "-m", "pip"]
                    rc, lines = session.run(argv[3:], env, on_line)
                else:
                    rc, lines = run_streaming(argv, env, on_line)
                result.installer_rc, result.output_tail = rc, lines[-40:]
                if rc != 0:
                    errors = [x for x in lines if re.match(r"\s*(ERROR|error|cause)\b", x)]
                    result.problems = errors[-6:] or lines[-6:] or [f"{installer} exited with {rc}"]
                else:
                    on_line("verifying the installed torch")
                    result.problems = verify(plan, target.executable, gpu_check, started=verifier)
                    if not result.problems:
                        result.problems = verify_sources(plan, target.dists, target.executable)
                    result.ok = not result.problems
            except KeyboardInterrupt as exc:
                result.restore_problems = _restore_and_check(snap, target)
                result.restored = True
                exc.restore_problems = result.restore_problems  # type: ignore[attr-defined]
                raise
            if not result.ok:
                on_line("restoring the environment")
                result.restore_problems = _restore_and_check(snap, target)
                result.restored = True
    finally:
        if verifier is not None:
            verifier.close()
        if snap is not None:
            snap.discard(background=True)
        if own_dir and work:
            shutil.rmtree(work, ignore_errors=True)
        result.seconds = time.monotonic() - start
    return result
