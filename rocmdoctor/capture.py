#!/usr/bin/env python3
"""Read a live host into a capture bundle (see capture-format.md): files, command outputs, env.

Why this module is special: it is the one piece of rocmdoctor that runs on *remote* hosts, so it
is standard library only and parses as Python 3.6 (no walrus, no ``from __future__ import
annotations``; annotations are quoted so 3.6 never evaluates them). The fleet audit streams it:

    ssh HOST python3 - --stdout-tar [--redact] < capture.py      # bundle as .tar.gz on stdout

In process, ``rocmdoctor check`` calls :func:`collect` / :func:`capture_to_dir`. Every command
runs concurrently in its own process group with a per-command timeout and an overall budget, so
a host where every tool hangs still answers within the budget. A missing tool is recorded as
missing; an unreadable file is recorded in the manifest's ``errors``; nothing here raises for
what the host looks like.

``ROCMDOCTOR_ROOT`` (or ``root=``) presents a fake machine: files are read below it instead of
``/``, and ``$ROOT/.cmd/<name>.txt`` (or ``.json``) is used as that command's recorded output
instead of running it (``.stderr``/``.exit`` beside it give its stderr and exit status, a
``<name>.missing`` file marks the tool absent). See docs/capture-format-extensions.md.
"""

import errno
import glob
import gzip
import hashlib
import io
import json
import os
import re
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import threading
import time
import typing

FORMAT = "rocmdoctor-capture/1"
# Kept equal to rocmdoctor.__version__ by a test: this file must not import rocmdoctor (remote hosts).
TOOL_VERSION = "0.1.0"
DEFAULT_TIMEOUT = 10.0  # seconds per command
MAX_FILE_BYTES = 2 * 1024 * 1024  # per copied file
MAX_OUTPUT_BYTES = 8 * 1024 * 1024  # per command stream
ROCM_BIN_DIRS = ("/opt/rocm/bin", "/usr/sbin", "/sbin", "/usr/bin", "/bin")

# Files copied verbatim to root/<path>; globs are expanded below the root.
FILE_GLOBS = (
    "/etc/os-release",
    "/usr/lib/os-release",
    "/etc/lsb-release",
    "/proc/version",
    "/proc/cmdline",
    "/proc/modules",
    "/proc/1/cgroup",
    "/.dockerenv",
    "/run/.containerenv",
    "/sys/module/amdgpu/version",
    "/sys/class/kfd/kfd/topology/nodes/*/properties",
    "/sys/class/kfd/kfd/topology/nodes/*/name",
    "/sys/class/kfd/kfd/topology/nodes/*/gpu_id",
    "/opt/rocm*/.info/version",
    "/etc/group",
    "/etc/ld.so.conf.d/*.conf",
    "/etc/modprobe.d/*.conf",
    "/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c",
)
# Per real DRM card (cardN, not connectors like card0-DP-1): files under cardN/device/.
DRM_DEVICE_FILES = (
    "vendor", "device", "revision", "subsystem_vendor", "subsystem_device", "class", "uevent", "boot_vga",
    "current_link_speed", "current_link_width", "max_link_speed", "max_link_width",
    "mem_info_vram_total", "mem_info_vis_vram_total", "product_name", "product_number", "vbios_version",
    "unique_id", "serial_number",
)
# Read only from a GPU that is awake: amdgpu resumes a runtime-suspended GPU to answer these (a laptop's
# sleeping dGPU would be woken by a read-only tool).
DRM_AWAKE_FILES = ("pp_dpm_pcie",)
DRM_AWAKE_GLOBS = ("hwmon/hwmon*/temp*_input", "hwmon/hwmon*/temp*_crit", "hwmon/hwmon*/temp*_label")
# RAS telemetry per real DRM card (globs below cardN/device/): error counters and retired VRAM pages.
DRM_DEVICE_GLOBS = ("ras/*_err_count", "ras/gpu_vram_bad_pages")
# AMD GPUs on the PCI bus whether or not a driver is bound (vendor 0x1002, class 0x03 display / 0x12
# accelerator): the files below, plus the `driver` link in manifest["links"] (absent = no driver bound).
PCI_DEVICE_FILES = ("vendor", "device", "revision", "class", "subsystem_vendor", "subsystem_device")
PCI_CLASSES = ("0x03", "0x12")
# Symlinks worth knowing (which ROCm /opt/rocm points at); recorded in manifest["links"].
LINK_GLOBS = ("/opt/rocm", "/opt/rocm*", "/etc/alternatives/rocm")

ENV_PREFIXES = ("HSA_", "HIP_", "ROCR_", "ROCM_", "GPU_", "PYTORCH_", "AMD_")
# CUDA_VISIBLE_DEVICES: HIP honours it too (after ROCR_VISIBLE_DEVICES' renumbering, vllm#12572)
ENV_NAMES = ("LD_LIBRARY_PATH", "PATH", "PYTHONPATH", "VIRTUAL_ENV", "CONDA_PREFIX", "CUDA_VISIBLE_DEVICES")
ENV_DENY = re.compile(r"(?i)token|secret|key|passw|credential|auth|cookie")

# Commands that make `check` slow and are not needed for a live diagnosis.
QUICK_SKIP = ("pip-freeze", "pip-list", "hipconfig-full", "rocm-smi-productname")

# The torch probe: runs inside the target interpreter, stdlib only, never imports torch.
TORCH_PROBE = r'''
import ast
import json
import os
import platform
import re
import sys
import sysconfig

WANT = re.compile(r"^(torch|torchvision|torchaudio|pytorch-triton-rocm|triton-rocm|triton"
                  r"|rocm([-_].*)?|amdsmi)$")
LIBS = ("libamdhip64*", "libcudart*", "libcuda*", "libnvrtc*", "librocblas*", "libMIOpen*",
        "libhsa-runtime64*", "libcublas*")
def norm(n):
    return re.sub(r"[-_.]+", "-", n).lower()
def dists():
    out = {}
    try:
        from importlib import metadata
        for d in metadata.distributions():
            try:
                name = d.metadata["Name"]
            except Exception:
                continue
            if name and WANT.match(norm(name)) and norm(name) not in out:
                out[norm(name)] = d.version
        return out
    except ImportError:
        pass
    for p in sys.path:
        try:
            entries = os.listdir(p or ".")
        except OSError:
            continue
        for e in entries:
            m = re.match(r"^([A-Za-z0-9_.]+?)-([^-]+?)\.(dist-info|egg-info)$", e)
            if m and WANT.match(norm(m.group(1))) and norm(m.group(1)) not in out:
                out[norm(m.group(1))] = m.group(2)
    return out
def glibc():
    try:
        v = os.confstr("CS_GNU_LIBC_VERSION") or ""
    except (AttributeError, ValueError, OSError):
        return None
    m = re.match(r"glibc (\d+)\.(\d+)", v)
    return (int(m.group(1)), int(m.group(2))) if m else None
def tags():
    impl = {"cpython": "cp", "pypy": "pp"}.get(sys.implementation.name, sys.implementation.name[:2])
    interp = f"{impl}{sys.version_info[0]}{sys.version_info[1]}"
    soabi = sysconfig.get_config_var("SOABI") or ""
    parts = soabi.split("-")
    abi = interp
    if impl == "cp" and len(parts) > 1 and parts[0] == "cpython":
        abi = "cp" + parts[1]
    elif parts and parts[0]:
        abi = parts[0].replace(".", "_").replace("-", "_")
    arch = sysconfig.get_platform().split("-", 1)[-1].replace("-", "_").replace(".", "_")
    plats = []
    g = glibc()
    if sys.platform.startswith("linux") and g and g[0] == 2:
        for minor in range(g[1], 4, -1):
            plats.append(f"manylinux_2_{minor}_{arch}")
            legacy = {17: "manylinux2014", 12: "manylinux2010", 5: "manylinux1"}.get(minor)
            if (legacy and arch in ("x86_64", "i686")) or (legacy == "manylinux2014" and arch in
                                                         ("aarch64", "ppc64le", "s390x", "armv7l")):
                plats.append(f"{legacy}_{arch}")
    plats.append(sysconfig.get_platform().replace("-", "_").replace(".", "_"))
    out = [f"{interp}-{abi}-{p}" for p in plats]
    if impl == "cp":
        out += [f"{interp}-abi3-{p}" for p in plats]
    out += [f"{interp}-none-{p}" for p in plats]
    out += [f"py{sys.version_info[0]}-none-{p}" for p in plats]
    out += [f"{interp}-none-any", f"py{sys.version_info[0]}-none-any"]
    return out
def version_py(path):
    keys = ("__version__", "hip", "cuda", "git_version")
    found = dict.fromkeys(keys)
    try:
        with open(path, "rb") as f:
            tree = ast.parse(f.read().decode("utf-8", "replace"))
    except (OSError, SyntaxError, ValueError):
        return found
    for node in tree.body:
        target = value = None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, getattr(ast, "AnnAssign", ())) and node.value is not None:
            target, value = node.target, node.value
        if isinstance(target, ast.Name) and target.id in keys:
            try:
                v = ast.literal_eval(value)
            except ValueError:
                continue
            found[target.id] = v if isinstance(v, str) or v is None else str(v)
    return found
def torch_info():
    import importlib.util
    try:
        spec = importlib.util.find_spec("torch")
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    locs = list(spec.submodule_search_locations or [])
    loc = locs[0] if locs else (os.path.dirname(spec.origin) if spec.origin else None)
    if not loc:
        return None
    v = version_py(os.path.join(loc, "version.py"))
    libs = []
    try:
        import fnmatch
        for e in sorted(os.listdir(os.path.join(loc, "lib"))):
            if any(fnmatch.fnmatch(e, p) for p in LIBS):
                libs.append(e)
    except OSError:
        pass
    return {"version": v["__version__"], "hip": v["hip"], "cuda": v["cuda"], "git_version": v["git_version"],
            "location": loc, "bundled_libs": libs}
g = glibc()
out = {"python": {"executable": sys.executable, "version": platform.python_version(),
                  "implementation": sys.implementation.name, "tags": tags(),
                  "platform": sysconfig.get_platform(), "machine": platform.machine(),
                  "glibc": f"{g[0]}.{g[1]}" if g else None, "prefix": sys.prefix, "base_prefix":
                  getattr(sys, "base_prefix", sys.prefix)},
       "distributions": dists(), "torch": torch_info()}
sys.stdout.write(json.dumps(out, indent=1, sort_keys=True) + "\n")
'''


class Spec:
    """One command of the bundle: its name (cmd/<name>), file extension and argv (argv[0] looked up)."""

    def __init__(self, name: "str", argv: "list", ext: "str" = "txt", system: "bool" = True,
                 timeout: "float | None" = None) -> None:
        self.name = name
        self.argv = argv
        self.ext = ext
        self.system = system  # a system tool: run with LC_ALL=C; Python commands keep the user's env
        self.timeout = timeout

    @property
    def file(self) -> "str":
        return f"cmd/{self.name}.{self.ext}"


def command_specs(python: "str", collect_env: "bool" = False) -> "list":
    """The commands of a bundle, in manifest order (data, not logic: capture-format.md names them)."""
    specs = [
        Spec("uname-a", ["uname", "-a"]),
        Spec("uname-r", ["uname", "-r"]),
        Spec("id", ["id"]),
        Spec("rocminfo", ["rocminfo"]),
        Spec("rocm-smi", ["rocm-smi"]),
        Spec("rocm-smi-showhw", ["rocm-smi", "--showhw"]),
        Spec("rocm-smi-productname", ["rocm-smi", "--showproductname"]),
        Spec("rocm-smi-rasinfo", ["rocm-smi", "--showrasinfo", "all"]),
        Spec("amd-smi-static", ["amd-smi", "static", "--json"], "json"),
        Spec("amd-smi-metric", ["amd-smi", "metric", "--json"], "json"),
        Spec("rocm_agent_enumerator", ["rocm_agent_enumerator"]),
        Spec("dkms-status", ["dkms", "status"]),
        Spec("hipconfig", ["hipconfig", "--version"]),
        Spec("hipconfig-full", ["hipconfig", "--full"]),
        Spec("lspci", ["lspci", "-nnk", "-d", "1002:"]),
        Spec("dmesg", ["dmesg"]),
        Spec("mokutil-sb-state", ["mokutil", "--sb-state"]),
        Spec("pip-freeze", [python, "-m", "pip", "freeze"], system=False),
        Spec("pip-list", [python, "-m", "pip", "list", "--format", "json"], "json", system=False),
        Spec("torch-probe", [python, "-c", TORCH_PROBE], "json", system=False),
        Spec("docker-info", ["docker", "info", "--format", "{{json .}}"], "json"),
    ]
    if collect_env:
        specs.append(Spec("collect_env", [python, "-m", "torch.utils.collect_env"], system=False,
                          timeout=60.0))
    return specs


def _now_iso() -> "str":
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _under(root: "str", path: "str") -> "str":
    """The real path of host path ``path`` when the machine is presented below ``root``."""
    return path if root == "/" else os.path.join(root, path.lstrip("/"))


def _host_path(root: "str", real: "str") -> "str":
    if root == "/":
        return real
    rel = os.path.relpath(real, root)
    return "/" + rel.replace(os.sep, "/")


def _glob(root: "str", pattern: "str") -> "list":
    if root == "/":
        return sorted(glob.glob(pattern))
    return sorted(glob.glob(os.path.join(glob.escape(root), pattern.lstrip("/"))))


def _which(name: "str") -> "str | None":
    """argv[0] on PATH, then the usual ROCm/sbin places a non-login shell's PATH may lack."""
    if os.sep in name:
        return name if os.path.isfile(name) and os.access(name, os.X_OK) else None
    found = shutil.which(name)
    if found:
        return found
    return shutil.which(name, path=os.pathsep.join(ROCM_BIN_DIRS))


class _Job:
    """A running command: shared between its worker thread and the budget keeper."""

    def __init__(self, spec: "Spec") -> None:
        self.spec = spec
        self.proc = None  # type: subprocess.Popen | None
        self.out = b""
        self.err = b""
        self.exit = None  # type: int | None
        self.timed_out = False
        self.truncated = False
        self.done = threading.Event()
        self.seconds = 0.0
        self.lock = threading.Lock()


def _kill_group(proc: "subprocess.Popen") -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (OSError, ProcessLookupError):
        try:
            proc.kill()
        except OSError:
            pass


def _pump(proc: "subprocess.Popen", until: "float", bufs: "dict", job: "_Job") -> bool:
    """Read stdout/stderr into ``bufs`` (capped: memory stays bounded) until both close or ``until``."""
    sel = selectors.DefaultSelector()
    for stream in bufs:
        if stream is not None and not stream.closed:
            sel.register(stream, selectors.EVENT_READ)
    try:
        while sel.get_map():
            left = until - time.monotonic()
            if left <= 0:
                return False
            for key, _events in sel.select(left):
                try:
                    chunk = os.read(key.fd, 65536)
                except OSError:
                    chunk = b""
                if not chunk:
                    sel.unregister(key.fileobj)
                    continue
                buf = bufs[key.fileobj]
                room = MAX_OUTPUT_BYTES - len(buf)
                if len(chunk) > room:
                    job.truncated = True
                if room > 0:
                    buf += chunk[:room]
        return True
    finally:
        sel.close()


def _run_job(job: "_Job", argv: "list", timeout: "float", env: "dict") -> None:
    """Worker thread body: run, read up to ``timeout``, kill the whole process group on expiry."""
    start = time.monotonic()
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=env, start_new_session=True, close_fds=True)
    except OSError as exc:
        job.err = (f"rocmdoctor: cannot run {argv[0]}: {exc.strerror or exc}\n").encode()
        job.exit = 127
        job.seconds = time.monotonic() - start
        job.done.set()
        return
    with job.lock:
        job.proc = proc
    bufs = {proc.stdout: bytearray(), proc.stderr: bytearray()}
    until = start + max(0.01, timeout)
    try:
        finished = _pump(proc, until, bufs, job)
        if finished:
            try:
                proc.wait(timeout=max(0.01, until - time.monotonic()))
            except subprocess.TimeoutExpired:
                finished = False  # closed its output but kept running
        if not finished:
            job.timed_out = True
            _kill_group(proc)
            _pump(proc, time.monotonic() + 0.5, bufs, job)  # what was written before the kill
            try:
                proc.wait(timeout=1.0)
            except subprocess.TimeoutExpired:
                pass
    finally:
        for stream in (proc.stdout, proc.stderr):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
    job.out, job.err = bytes(bufs[proc.stdout]), bytes(bufs[proc.stderr])
    job.exit = proc.returncode
    job.seconds = time.monotonic() - start
    job.done.set()


def _read_capped(path: "str") -> "bytes":
    with open(path, "rb") as f:
        return f.read(MAX_FILE_BYTES)


def _recorded(root: "str", name: "str") -> "dict | None":
    """A command's recorded output below ``$ROOT/.cmd`` (fixtures, fleet test hosts), if any."""
    if root == "/":
        return None
    base = os.path.join(root, ".cmd", name)
    if os.path.exists(base + ".missing"):
        return {"missing": True}
    for ext in ("txt", "json"):
        if os.path.isfile(base + "." + ext):
            rec = {"out": _read_capped(base + "." + ext), "err": b"", "exit": 0}
            if os.path.isfile(base + ".stderr"):
                rec["err"] = _read_capped(base + ".stderr")
            if os.path.isfile(base + ".exit"):
                try:
                    rec["exit"] = int(_read_capped(base + ".exit").strip() or b"0")
                except ValueError:
                    pass
            return rec
    return None


class Collector:
    """Gathers one bundle into memory: ``files`` (bundle path -> bytes) and the manifest."""

    def __init__(self, root: "str", python: "str", timeout: "float", budget: "float") -> None:
        self.root = root
        self.python = python
        self.timeout = timeout
        self.budget = budget
        self.files = {}  # type: dict
        self.errors = []  # type: list
        self.links = {}  # type: dict
        self.lock = threading.Lock()

    def error(self, what: "str", exc: "object") -> None:
        text = getattr(exc, "strerror", None) or str(exc)
        with self.lock:
            self.errors.append(f"{what}: {text}")

    def add(self, path: "str", data: "bytes") -> None:
        with self.lock:
            self.files[path] = data

    # -- files ---------------------------------------------------------------------------------
    def copy(self, real: "str") -> None:
        host = _host_path(self.root, real)
        try:
            data = _read_capped(real)
        except OSError as exc:
            if exc.errno in (errno.ENOENT, errno.ENOTDIR):
                return
            self.error(host, exc)
            return
        self.add("root" + host, data)

    def read_files(self) -> None:
        """Worker thread: every FILE_GLOBS match, the real DRM cards' device files, the ROCm links."""
        for pattern in FILE_GLOBS:
            for real in _glob(self.root, pattern):
                if os.path.isfile(real):
                    self.copy(real)
        for card in _glob(self.root, "/sys/class/drm/card*"):
            if re.match(r"^card\d+$", os.path.basename(card)):
                for name in DRM_DEVICE_FILES:
                    self.copy(os.path.join(card, "device", name))
                if not self.suspended(card):
                    for name in DRM_AWAKE_FILES:
                        self.copy(os.path.join(card, "device", name))
                    for pattern in DRM_AWAKE_GLOBS:
                        for real in sorted(glob.glob(os.path.join(glob.escape(card), "device", pattern)))[:64]:
                            self.copy(real)
                for pattern in DRM_DEVICE_GLOBS:
                    for real in sorted(glob.glob(os.path.join(glob.escape(card), "device", pattern))):
                        self.copy(real)
        self.read_pci()
        for node in _glob(self.root, "/sys/class/drm/renderD*"):
            if re.match(r"^renderD\d+$", os.path.basename(node)):
                self.copy(os.path.join(node, "device", "uevent"))
        for pattern in LINK_GLOBS:
            for real in _glob(self.root, pattern):
                self.record_link(real)

    @staticmethod
    def suspended(card: "str") -> bool:
        """power/runtime_status says the GPU is runtime-suspended (or suspending)."""
        try:
            with open(os.path.join(card, "device", "power", "runtime_status"), "rb") as f:
                return f.read(64).strip() in (b"suspended", b"suspending")
        except OSError:
            return False

    def record_link(self, real: "str") -> None:
        """Put a symlink's target in manifest["links"] (a bundle keeps no links of its own)."""
        if not os.path.islink(real):
            return
        try:
            with self.lock:
                self.links[_host_path(self.root, real)] = os.readlink(real)
        except OSError as exc:
            self.error(_host_path(self.root, real), exc)

    def pci_devices(self) -> "list":
        """PCI device dirs: udev's enumeration on the live host where pyudev and libudev exist, else sysfs."""
        if self.root in ("", "/"):
            try:
                import pyudev  # optional: remote hosts with only python3 use the sysfs glob below

                names = sorted(d.sys_name for d in pyudev.Context().list_devices(subsystem="pci"))
                return [os.path.join("/sys/bus/pci/devices", n) for n in names]
            except Exception:  # ImportError, no libudev, no /run/udev: the sysfs glob is the fallback
                pass
        return _glob(self.root, "/sys/bus/pci/devices/*")

    def read_pci(self) -> None:
        for dev in self.pci_devices():
            try:
                with open(os.path.join(dev, "vendor"), "rb") as f:
                    vendor = f.read(64).strip().lower()
                with open(os.path.join(dev, "class"), "rb") as f:
                    klass = f.read(64).strip().lower().decode("ascii", "replace")
            except OSError:
                continue
            if vendor != b"0x1002" or not klass.startswith(PCI_CLASSES):
                continue
            for name in PCI_DEVICE_FILES:
                self.copy(os.path.join(dev, name))
            self.record_link(os.path.join(dev, "driver"))

    def stat_dev(self) -> "dict":
        """``stat -c '%n %a %U %G %u %g' /dev/kfd /dev/dri/*`` done with os.stat (no coreutils needed)."""
        names = ["/dev/kfd"] + [_host_path(self.root, p) for p in _glob(self.root, "/dev/dri/*")]
        if os.path.exists(_under(self.root, "/dev/dxg")):
            names.append("/dev/dxg")
        users, groups = _name_tables(self.root)
        out, err, code = [], [], 0
        for name in names:
            try:
                st = os.stat(_under(self.root, name))
            except OSError as exc:
                err.append(f"stat: cannot statx '{name}': {exc.strerror or exc}")
                code = 1
                continue
            owner, group = users.get(st.st_uid, "UNKNOWN"), groups.get(st.st_gid, "UNKNOWN")
            out.append(f"{name} {st.st_mode & 0o7777:o} {owner} {group} {st.st_uid} {st.st_gid}")
        return {"out": "".join(line + "\n" for line in out).encode(),
                "err": "".join(line + "\n" for line in err).encode(), "exit": code}

    def env_text(self) -> "bytes":
        recorded = _recorded(self.root, "env")
        if recorded and not recorded.get("missing"):
            pairs = []
            for line in recorded["out"].decode("utf-8", "replace").splitlines():
                key, sep, value = line.partition("=")
                if sep:
                    pairs.append((key, value))
        else:
            pairs = sorted(os.environ.items())
        keep = [f"{k}={v}\n" for k, v in pairs if _env_allowed(k)]
        return "".join(keep).encode("utf-8", "replace")

    # -- commands ------------------------------------------------------------------------------
    def run(self, specs: "list") -> "list":
        """Run every spec concurrently; returns manifest command entries in spec order."""
        deadline = time.monotonic() + self.budget
        sys_env = dict(os.environ, LC_ALL="C", LANG="C")
        py_env = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1",
                      PYTHONDONTWRITEBYTECODE="1")
        entries = []  # type: list
        jobs = []  # type: list
        for spec in specs:
            entry = {"name": spec.name, "argv": list(spec.argv), "file": spec.file, "exit": None,
                     "seconds": 0.0, "timed_out": False}
            if spec.name == "torch-probe":
                entry["argv"] = [spec.argv[0], "-c", "<rocmdoctor torch probe>"]
            entries.append(entry)
            rec = _recorded(self.root, spec.name)
            if rec is not None:
                self._recorded_entry(entry, spec, rec)
                continue
            exe = _which(spec.argv[0])
            if exe is None:
                entry.update({"file": None, "missing": True})
                continue
            entry["argv"][0] = exe
            job = _Job(spec)
            limit = min(spec.timeout or self.timeout, max(0.01, deadline - time.monotonic()))
            t = threading.Thread(target=_run_job, args=(job, [exe, *spec.argv[1:]], limit,
                                                        sys_env if spec.system else py_env))
            t.daemon = True
            t.start()
            jobs.append((entry, job, t))
        for entry, job, _thread in jobs:
            if not job.done.wait(max(0.0, deadline - time.monotonic())):
                with job.lock:
                    proc = job.proc
                job.timed_out = True
                if proc is not None:
                    _kill_group(proc)
                job.done.wait(0.5)
            self._job_entry(entry, job)
        return entries

    def _recorded_entry(self, entry: "dict", spec: "Spec", rec: "dict") -> None:
        if rec.get("missing"):
            entry.update({"file": None, "missing": True, "recorded": True})
            return
        self.add(spec.file, rec["out"])
        if rec["err"]:
            self.add(f"cmd/{spec.name}.stderr", rec["err"])
        entry.update({"exit": rec["exit"], "recorded": True})

    def _job_entry(self, entry: "dict", job: "_Job") -> None:
        out, err = job.out, job.err
        if job.truncated:
            entry["truncated"] = True
        self.add(job.spec.file, out)
        if err:
            self.add(f"cmd/{job.spec.name}.stderr", err)
        entry.update({"exit": job.exit, "seconds": round(job.seconds, 3), "timed_out": job.timed_out})


def _env_allowed(key: "str") -> "bool":
    if ENV_DENY.search(key):
        return False
    return key in ENV_NAMES or key.startswith(ENV_PREFIXES)


def _name_tables(root: "str") -> "tuple":
    """uid -> user name, gid -> group name, from the (possibly fake) root's /etc/passwd and /etc/group."""
    users = {}  # type: typing.Dict[int, str]
    groups = {}  # type: typing.Dict[int, str]
    for path, table in (("/etc/passwd", users), ("/etc/group", groups)):
        try:
            text = _read_capped(_under(root, path)).decode("utf-8", "replace")
        except OSError:
            continue
        for line in text.splitlines():
            parts = line.split(":")
            if len(parts) >= 3 and parts[2].isdigit():
                table.setdefault(int(parts[2]), parts[0])
    if root == "/":
        try:
            import grp
            import pwd
            for uid in (os.getuid(),):
                users.setdefault(uid, pwd.getpwuid(uid).pw_name)
            for g in grp.getgrall():
                groups.setdefault(g.gr_gid, g.gr_name)
        except (ImportError, KeyError, OSError):
            pass
    return users, groups


def _hostname(root: "str", files: "dict") -> "str":
    for path in ("/proc/sys/kernel/hostname", "/etc/hostname"):
        try:
            name = _read_capped(_under(root, path)).decode("utf-8", "replace").strip()
        except OSError:
            continue
        if name:
            return name
    if root != "/":
        parts = files.get("cmd/uname-a.txt", b"").split()
        if len(parts) > 1:
            return parts[1].decode("utf-8", "replace")
    try:
        return socket.gethostname()
    except OSError:
        return ""


MAX_SECONDS = 86400.0


def _sane_seconds(value: "float", default: "float") -> "float":
    """A usable number of seconds: nan -> default, inf/huge -> a day, <= 0 -> 0.01.

    Why: ``select()`` and ``time_t`` overflow on inf (a traceback in every worker thread), and this module
    also runs remotely as a script where no CLI validated the value first.
    """
    try:
        value = float(value)
    except (TypeError, ValueError):
        return default
    if value != value:
        return default
    return min(max(value, 0.01), MAX_SECONDS)


def collect(python: "str | None" = None, timeout: "float" = DEFAULT_TIMEOUT, root: "str | None" = None,
            budget: "float | None" = None, skip: "tuple" = (), collect_env: "bool" = False,
            redact: "bool" = False) -> "tuple":
    """Gather one bundle in memory: returns (files: {bundle path: bytes}, manifest: dict).

    ``budget`` bounds the whole capture (default ``2 * timeout + 2``): commands still running when it
    ends are killed (process group) and recorded ``timed_out``.
    """
    start = time.monotonic()
    root = root or os.environ.get("ROCMDOCTOR_ROOT") or "/"
    python = python or sys.executable or "python3"
    timeout = _sane_seconds(timeout, DEFAULT_TIMEOUT)
    budget = _sane_seconds(budget, 2 * timeout + 2) if budget is not None else 2 * timeout + 2
    col = Collector(root, python, timeout, budget)
    reader = threading.Thread(target=col.read_files)
    reader.daemon = True
    reader.start()
    specs = [s for s in command_specs(python, collect_env) if s.name not in skip]
    entries = col.run(specs)
    # stat-dev is Python, not a process: recorded like a command (capture-format.md names it).
    stat_argv = ["stat", "-c", "%n %a %U %G %u %g", "/dev/kfd", "/dev/dri/*"]
    stat_entry = {"name": "stat-dev", "argv": stat_argv, "file": "cmd/stat-dev.txt", "exit": 0, "seconds": 0.0,
                  "timed_out": False, "internal": True}  # type: typing.Dict[str, typing.Any]
    rec = _recorded(root, "stat-dev")
    if "stat-dev" in skip:
        pass
    elif rec is not None:
        col._recorded_entry(stat_entry, Spec("stat-dev", stat_argv), rec)
    else:
        t0 = time.monotonic()
        res = col.stat_dev()
        col._recorded_entry(stat_entry, Spec("stat-dev", stat_argv), res)
        stat_entry.pop("recorded", None)
        stat_entry["seconds"] = round(time.monotonic() - t0, 3)
    if "stat-dev" not in skip:
        entries.append(stat_entry)
    col.add("env.txt", col.env_text())
    reader.join(max(0.0, budget - (time.monotonic() - start)))
    if reader.is_alive():
        col.error("files", f"reading files did not finish within the {budget:.1f} s budget")
    with col.lock:
        files = dict(col.files)
        errors = list(col.errors)
        links = dict(col.links)
    manifest = {
        "schema": FORMAT,  # the name every rocmdoctor JSON document uses for its version
        "format": FORMAT,  # the capture contract's name for it (../shared/capture-format.md)
        "created": _now_iso(),
        "tool": f"rocmdoctor {TOOL_VERSION}",
        "hostname": _hostname(root, files),
        "commands": entries,
        "errors": errors,
        "links": links,
        "python": python,
        "redacted": bool(redact),
        "seconds": round(time.monotonic() - start, 3),
        "files": len(files),
    }
    if root != "/":
        manifest["root"] = root
    if redact:
        files, manifest = redact_bundle(files, manifest, root)
    return files, manifest


# -- redaction ---------------------------------------------------------------------------------
# Names that identify nobody and that checks need verbatim (groups, system accounts, os ids).
NOT_SECRET = frozenset((
    "", "root", "nobody", "localhost", "localhost.localdomain", "render", "video", "docker", "users", "admin",
    "sudo", "wheel", "adm", "daemon", "bin", "sys", "none", "n/a", "ubuntu", "debian", "amd", "gpu", "rocm",
    "container", "host", "user", "kfd", "amdgpu", "linux", "gnu", "centos", "fedora", "rhel", "rocky",
    "almalinux", "sles", "suse", "opensuse", "ol", "oracle", "arch", "azurelinux", "mariner", "pi",
))
_UUID_RE = re.compile(rb"(?i)(?<![0-9a-f])[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
                      rb"(?![0-9a-f])")
_AGENT_UUID_RE = re.compile(rb"\b((?:GPU|CPU)-)([0-9A-Fa-f]{6,})\b")
_MAC_RE = re.compile(rb"(?<![0-9A-Fa-f:])(?:[0-9A-Fa-f]{2}:){5}[0-9A-Fa-f]{2}(?![0-9A-Fa-f:])")
# "Serial Number: X", "serial_number": "X", "Unique ID: 0x..", "uuid": "..", "asic_serial": ".."
_KV_RE = re.compile(rb"(?i)(\"?[A-Za-z_ ]*(?:serial(?!i[sz]e)|uuid|unique[ _]?id|guid)[A-Za-z_ ]*\"?\s*[:=](?!=)\s*\"?)"
                    rb"([^\s\",}\]]+)")
# sysfs/kfd "key value" lines: "unique_id 8123412341234", "serial_number 0x1234".
_LINE_KV_RE = re.compile(rb"(?im)^([ \t]*(?:unique_id|uuid|serial|serial_number)[ \t]+)"
                         rb"(0x[0-9a-f]+|[0-9a-f]+)[ \t]*$")
_HOME_RE = re.compile(rb"/(?:home|Users|var/home)/([A-Za-z0-9._-]+)")
_ID_RE = re.compile(r"uid=(\d+)\(([^)]+)\)")
_NO_VALUE = frozenset((b"n/a", b"na", b"none", b"null", b"unknown", b"not", b"0", b"-", b"xx"))
_PLACEHOLDER_RE = re.compile(rb"^(?:[A-Z]+-)?(?:uuid|serial|mac|host|user)-[0-9a-f]{8}$")
_SECRET_FILE_RE = re.compile(r"(?:^|/)(?:serial_number|unique_id|product_serial|board_serial|[^/]*uuid)$")
# https://user:password@host/... (any scheme): the user-info part, wherever it appears (env, pip output, logs)
_URL_CRED_RE = re.compile(rb"(?i)\b([a-z][a-z0-9+.-]{1,15}://)([^/\s:@\"'<>]+(?::[^/\s@\"'<>]*)?)@")
# token=X, api_key: X, secret=X, password=X, auth=X ... (also inside allow-listed variables and URLs' queries)
_SECRET_KV_RE = re.compile(rb"(?i)((?<![A-Za-z0-9])[A-Za-z0-9_.-]*(?:token|secret|passw(?:or)?d|passwd|api[_-]?key"
                           rb"|access[_-]?key|private[_-]?key|(?<![A-Za-z])key|auth(?:orization)?|credentials?"
                           rb"|cookie|session[_-]?(?:id|key|token))(?![a-z])"
                           rb"[A-Za-z0-9_-]*\"?\s*[=:]\s*\"?)([^\s\"'&,;<>]+)")
_IPV4_RE = re.compile(rb"(?<![\w.=:-])((?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d))"
                      rb"(?![\w.-])")
_IPV4_KEEP = re.compile(rb"^(?:127\.|0\.0\.0\.0$|255\.)")
_H4 = rb"[0-9A-Fa-f]{1,4}"
_IPV6_RE = re.compile(rb"(?<![\w:.])(" + rb"(?:" + _H4 + rb":){7}" + _H4 + rb"|(?:" + _H4 + rb":){1,6}:(?:" + _H4
                      + rb"(?::" + _H4 + rb"){0,5})?|::(?:" + _H4 + rb":){0,5}" + _H4 + rb")(?![\w:.])")
# Domain names outside the public vendor/project domains a report legitimately names. Only names that end in a
# common top-level domain count (so libamdhip64.so, version.py and torch.cuda are never taken for hosts).
_FQDN_RE = re.compile(rb"(?i)(?<![\w.-])((?=[a-z])(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+"
                      rb"(?:com|net|org|io|dev|ai|edu|gov|mil|int|info|biz|cloud|app|tech|site|online|xyz|local|lan"
                      rb"|internal|intranet|corp|home|localdomain|arpa|eu|us|uk|de|fr|jp|cn|kr|ru|ca|au|in|nl|se|ch"
                      rb"|it|es|pl|br|tw|sg|fi|no|dk|be|at|cz|il|nz))(?![\w-])")
PUBLIC_DOMAINS = (
    "amd.com", "radeon.com", "pytorch.org", "python.org", "pypi.org", "pythonhosted.org", "github.com",
    "githubusercontent.com", "github.io", "gitlab.com", "kernel.org", "ubuntu.com", "canonical.com",
    "launchpad.net", "debian.org", "redhat.com", "fedoraproject.org", "centos.org", "rockylinux.org",
    "almalinux.org", "opensuse.org", "suse.com", "oracle.com", "microsoft.com", "docker.com", "docker.io",
    "nvidia.com", "huggingface.co", "anaconda.com", "anaconda.org", "conda.io", "readthedocs.io", "intel.com",
    "freedesktop.org", "gnu.org", "llvm.org", "localhost.localdomain",
    "d2awnip2yjpvqn.cloudfront.net",  # AMD TheRock's public per-gfx torch index
)
# An unlabelled serial (a disk's in dmesg): 10+ upper-case letters and digits, at least 3 of each.
_SERIAL_TOKEN_RE = re.compile(rb"(?<![\w.:/-])(?=(?:[A-Z0-9]*[0-9]){3})(?=(?:[A-Z0-9]*[A-Z]){3})[A-Z0-9]{10,40}"
                              rb"(?![\w.:/-])")


class Redactor:
    """Stable placeholders: the same secret always becomes the same ``kind-<hash8>`` within a bundle.

    The hash is keyed with a per-run salt (``ROCMDOCTOR_REDACT_SALT`` fixes it, e.g. to correlate a
    fleet), so a placeholder cannot be reversed by hashing a dictionary of likely host names.
    """

    def __init__(self, salt: "bytes | None" = None) -> None:
        env = os.environ.get("ROCMDOCTOR_REDACT_SALT")
        self.salt = salt if salt is not None else (env.encode() if env else os.urandom(16))
        self.names = {}  # type: dict  # lower-case secret -> kind

    def token(self, kind: "str", value: "bytes") -> "bytes":
        digest = hashlib.sha256(self.salt + b"\0" + value.lower()).hexdigest()[:8]
        return (f"{kind}-{digest}").encode()

    def add_name(self, kind: "str", value: "str") -> None:
        value = value.strip()
        if value.lower() in NOT_SECRET or len(value) < 2 or not re.match(r"^[\w.@-]+$", value):
            return
        self.names.setdefault(value.lower(), kind)
        if kind == "host" and "." in value:
            self.add_name("host", value.split(".", 1)[0])

    def apply(self, data: "bytes") -> "bytes":
        data = _URL_CRED_RE.sub(lambda m: m.group(1) + self.token("cred", m.group(2)) + b"@", data)
        data = _SECRET_KV_RE.sub(self._secret, data)
        data = _IPV4_RE.sub(self._ipv4, data)
        data = _IPV6_RE.sub(self._ipv6, data)
        data = _FQDN_RE.sub(self._fqdn, data)
        data = _SERIAL_TOKEN_RE.sub(lambda m: self.token("serial", m.group(0)), data)
        data = _AGENT_UUID_RE.sub(lambda m: m.group(1) + self.token("uuid", m.group(2)), data)
        data = _UUID_RE.sub(lambda m: self.token("uuid", m.group(0)), data)
        data = _MAC_RE.sub(lambda m: self.token("mac", m.group(0)), data)
        data = _KV_RE.sub(self._kv, data)
        data = _LINE_KV_RE.sub(self._kv, data)
        if self.names:
            alts = b"|".join(re.escape(n.encode("utf-8")) for n in sorted(self.names, key=len, reverse=True))
            pattern = re.compile(rb"(?i)(?<![A-Za-z0-9])(?:" + alts + rb")(?![A-Za-z0-9])")
            data = pattern.sub(self._name, data)
        return data

    def _secret(self, m: "object") -> "bytes":
        key, value = m.group(1), m.group(2)  # type: ignore[attr-defined]
        if _PLACEHOLDER_RE.match(value) or value.lower() in _NO_VALUE or value.startswith((b"secret-", b"$")):
            return m.group(0)  # type: ignore[attr-defined]
        return key + self.token("secret", value)

    def _ipv4(self, m: "object") -> "bytes":
        ip = m.group(1)  # type: ignore[attr-defined]
        return ip if _IPV4_KEEP.match(ip) else self.token("ip", ip)

    def _ipv6(self, m: "object") -> "bytes":
        ip = m.group(1)  # type: ignore[attr-defined]
        if ip in (b"::", b"::1") or ip.count(b":") < 2:
            return ip
        return self.token("ip6", ip)

    def _fqdn(self, m: "object") -> "bytes":
        name = m.group(1).decode("ascii", "replace").lower()  # type: ignore[attr-defined]
        if any(name == d or name.endswith("." + d) for d in PUBLIC_DOMAINS):
            return m.group(1)  # type: ignore[attr-defined]
        return self.token("host", m.group(1))  # type: ignore[attr-defined]

    def _name(self, m: "object") -> "bytes":
        found = m.group(0)  # type: ignore[attr-defined]
        return self.token(self.names.get(found.decode("utf-8", "replace").lower(), "name"), found)

    def _kv(self, m: "object") -> "bytes":
        key, value = m.group(1), m.group(2)  # type: ignore[attr-defined]
        bare = re.sub(rb"^(?:GPU|CPU)-", b"", value).lower()
        if bare in _NO_VALUE or _PLACEHOLDER_RE.match(value):
            return m.group(0)  # type: ignore[attr-defined]
        return key + self.token("serial", value)


def redact_bundle(files: "dict", manifest: "dict", root: "str" = "/", salt: "bytes | None" = None) -> "tuple":
    """Replace host name, user names, UUIDs, serials and MACs in every file and the manifest."""
    r = Redactor(salt)
    r.add_name("host", manifest.get("hostname") or "")
    if root == "/":
        try:
            r.add_name("host", socket.gethostname())
        except OSError:
            pass
        for var in ("USER", "LOGNAME", "SUDO_USER"):
            r.add_name("user", os.environ.get(var, ""))
    system_users = set()
    try:
        for line in _read_capped(_under(root, "/etc/passwd")).decode("utf-8", "replace").splitlines():
            parts = line.split(":")
            if len(parts) >= 3 and parts[2].isdigit():
                if 0 < int(parts[2]) < 1000 or int(parts[2]) >= 65534:
                    system_users.add(parts[0])
                elif int(parts[2]) >= 1000:
                    r.add_name("user", parts[0])
    except OSError:
        pass
    m = _ID_RE.search(files.get("cmd/id.txt", b"").decode("utf-8", "replace"))
    if m and m.group(1) != "0":
        r.add_name("user", m.group(2))
    group = files.get("root/etc/group", b"").decode("utf-8", "replace")
    for line in group.splitlines():
        parts = line.split(":")
        if len(parts) >= 4:
            for member in parts[3].split(","):
                if member.strip() and member.strip() not in system_users:
                    r.add_name("user", member)
    for data in [*files.values(), json.dumps(manifest).encode("utf-8")]:
        for home in _HOME_RE.findall(data):
            r.add_name("user", home.decode("utf-8", "replace"))
    out = {}
    for path, data in files.items():
        if _SECRET_FILE_RE.search(path) and data.strip():
            out[path] = r.token("serial", data.strip()) + b"\n"
        else:
            out[path] = r.apply(data)
    mbytes = r.apply(json.dumps(manifest).encode("utf-8"))
    red_manifest = json.loads(mbytes.decode("utf-8"))
    red_manifest["redacted"] = True
    return out, red_manifest


# -- writing -----------------------------------------------------------------------------------
def _manifest_bytes(manifest: "dict") -> "bytes":
    return (json.dumps(manifest, indent=1, sort_keys=False) + "\n").encode("utf-8")


def write_dir(dest: "str", files: "dict", manifest: "dict") -> None:
    """Write the bundle below ``dest`` (created). Raises OSError when it cannot."""
    os.makedirs(dest, exist_ok=True)
    items = dict(files)
    items["manifest.json"] = _manifest_bytes(manifest)
    for rel, data in sorted(items.items()):
        path = os.path.join(dest, *rel.split("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with atomic_file(path) as f:
            f.write(data)


class atomic_file:
    """``with atomic_file(path) as f``: written to a temp file beside ``path``, renamed over it only when
    complete (fsync'd); on any error the temp file is removed and ``path`` is untouched. A full disk or a
    kill mid-way never leaves a truncated bundle that looks whole."""

    def __init__(self, path: "str") -> None:
        self.path = path
        self.tmp = ""  # the temp file, once entered
        self.f = None  # type: typing.Optional[typing.BinaryIO]

    def __enter__(self) -> "typing.BinaryIO":
        import tempfile

        folder = os.path.dirname(os.path.abspath(self.path))
        fd, self.tmp = tempfile.mkstemp(prefix="." + os.path.basename(self.path) + ".", suffix=".part",
                                        dir=folder)
        f = os.fdopen(fd, "wb")
        self.f = f
        return f

    def __exit__(self, exc_type: "object", exc: "object", tb: "object") -> None:
        f = self.f
        if f is None:  # never entered
            return
        try:
            if exc_type is None:
                f.flush()
                os.fsync(f.fileno())
            f.close()
            if exc_type is None:
                os.chmod(self.tmp, 0o644)
                os.replace(self.tmp, self.path)
                return
        except BaseException:
            self._discard()
            raise
        self._discard()

    def _discard(self) -> None:
        try:
            if self.f is not None:
                self.f.close()
        except (OSError, ValueError):
            pass
        try:
            if self.tmp:
                os.unlink(self.tmp)
        except OSError:
            pass


def write_tar(fileobj: "typing.BinaryIO", files: "dict", manifest: "dict",
              prefix: "str" = "rocmdoctor-capture") -> None:
    """Write the bundle as a .tar.gz stream of one directory ``prefix/`` (owner names left empty)."""
    items = dict(files)
    items["manifest.json"] = _manifest_bytes(manifest)
    now = int(time.time())
    gz = gzip.GzipFile(filename="", mode="wb", fileobj=fileobj, mtime=now)
    with tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar:
        tar.addfile(_tarinfo(prefix, now, directory=True))
        dirs = set()
        for rel in sorted(items):
            parts = rel.split("/")
            for i in range(1, len(parts)):
                d = "/".join(parts[:i])
                if d not in dirs:
                    dirs.add(d)
                    tar.addfile(_tarinfo(prefix + "/" + d, now, directory=True))
            info = _tarinfo(prefix + "/" + rel, now)
            info.size = len(items[rel])
            tar.addfile(info, io.BytesIO(items[rel]))
    gz.close()


def _tarinfo(name: "str", mtime: "int", directory: "bool" = False) -> "tarfile.TarInfo":
    info = tarfile.TarInfo(name)
    info.mtime = mtime
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    if directory:
        info.type = tarfile.DIRTYPE
        info.mode = 0o755
    else:
        info.mode = 0o644
    return info


def capture_to_dir(dest: "str", python: "str | None" = None, redact: "bool" = False,
                   timeout: "float" = DEFAULT_TIMEOUT, root: "str | None" = None,
                   **kwargs: "object") -> "dict":
    """Capture this host (or ``root``) into directory ``dest``; returns the manifest.

    Extra keyword arguments go to :func:`collect` (``budget``, ``skip=QUICK_SKIP``, ``collect_env``).
    """
    files, manifest = collect(python=python, timeout=timeout, root=root, redact=redact, **kwargs)  # type: ignore[arg-type]
    write_dir(dest, files, manifest)
    return manifest


def capture_to_tar(dest: "str", python: "str | None" = None, redact: "bool" = False,
                   timeout: "float" = DEFAULT_TIMEOUT, root: "str | None" = None,
                   **kwargs: "object") -> "dict":
    """Capture into ``dest`` (a .tar.gz path, or ``-`` for stdout); returns the manifest."""
    files, manifest = collect(python=python, timeout=timeout, root=root, redact=redact, **kwargs)  # type: ignore[arg-type]
    if dest == "-":
        out = sys.stdout.buffer
        write_tar(out, files, manifest)
        out.flush()
    else:
        with atomic_file(dest) as f:
            write_tar(f, files, manifest)
    return manifest


def _tool(entry: "dict") -> "str":
    """What to call a command in the summary: the tool, or the command name for the Python ones."""
    argv = entry.get("argv") or ["?"]
    if len(argv) > 1 and argv[1] in ("-m", "-c"):
        return str(entry.get("name") or argv[0])
    return os.path.basename(argv[0])


def summary(manifest: "dict", files_count: "int | None" = None) -> "str":
    """One line for stderr: files, commands run, missing tools, time."""
    cmds = manifest.get("commands", [])
    missing = sorted({_tool(c) for c in cmds if c.get("missing")})
    ran = [c for c in cmds if not c.get("missing")]
    timed = [c for c in cmds if c.get("timed_out")]
    n_files = files_count if files_count is not None else manifest.get("files", "?")
    parts = [f"captured {n_files} files", f"{len(ran)} commands"]
    if missing:
        parts.append(f"{len(missing)} tools missing ({', '.join(missing)})")
    if timed:
        parts.append(f"{len(timed)} timed out")
    if manifest.get("errors"):
        parts.append(f"{len(manifest['errors'])} unreadable")
    return ", ".join(parts) + f" in {manifest.get('seconds', 0.0):.2f} s"


USAGE = """usage: capture.py [-o DIR|FILE.tar.gz | --stdout-tar] [--redact] [--python PATH] [--timeout S]
                  [--budget S] [--collect-env] [--root DIR] [--quick]
Capture this host into a rocmdoctor bundle (standard library only; safe to stream over ssh)."""


def main(argv: "list") -> int:
    """Standalone entry point (``python3 - --stdout-tar < capture.py``). Exit 0 ok, 2 usage/unwritable."""
    opts = {"out": None, "redact": False, "python": None, "timeout": DEFAULT_TIMEOUT, "budget": None,
            "collect_env": False, "root": None, "quick": False}  # type: typing.Dict[str, typing.Any]
    it = iter(argv)
    try:
        for arg in it:
            if arg in ("-h", "--help"):
                sys.stdout.write(USAGE + "\n")
                return 0
            if arg == "--stdout-tar":
                opts["out"] = "-"
            elif arg in ("--redact", "--collect-env", "--quick"):
                opts[arg.lstrip("-").replace("-", "_")] = True
            elif arg in ("-o", "--output", "--python", "--root", "--timeout", "--budget"):
                value = next(it)
                key = {"-o": "out", "--output": "out"}.get(arg, arg.lstrip("-"))
                opts[key] = float(value) if key in ("timeout", "budget") else value
            else:
                raise ValueError(f"unknown argument {arg!r}")
    except (StopIteration, ValueError) as exc:
        sys.stderr.write(f"capture: error: {exc or 'missing value'}\n{USAGE}\n")
        return 2
    if opts["out"] is None:
        sys.stderr.write("capture: error: give -o DIR|FILE.tar.gz or --stdout-tar\n")
        return 2
    kwargs = {"budget": opts["budget"], "collect_env": opts["collect_env"],
              "skip": QUICK_SKIP if opts["quick"] else ()}
    out = str(opts["out"])
    try:
        if out == "-" or out.endswith((".tar.gz", ".tgz")):
            manifest = capture_to_tar(out, opts["python"], bool(opts["redact"]), float(opts["timeout"]),
                                      opts["root"], **kwargs)
        else:
            manifest = capture_to_dir(out, opts["python"], bool(opts["redact"]), float(opts["timeout"]),
                                      opts["root"], **kwargs)
    except OSError as exc:
        sys.stderr.write(f"capture: error: cannot write {out}: {exc.strerror or exc}\n")
        return 2
    sys.stderr.write(f"capture: {summary(manifest)}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
