"""A real loopback SSH fleet for the fleet tests: one OpenSSH ``sshd`` per host on 127.0.0.x.

Each host gets its own ``sshd_config`` (key-only root login with throw-away keys made by
``ssh-keygen``), ``SetEnv ROCMDOCTOR_ROOT=<its fixture tree>`` so the capture code sees that host's
fake machine, and optionally a ``ForceCommand`` that turns it into a broken host (hangs, cuts the
stream, has no python3, has a python3 that prints garbage). A generated ``ssh_config`` + ``known_hosts``
make the fleet reachable with ``ssh -F``. Daemons are stopped by pid (checked against
``/proc/PID/cmdline``), never by name.
"""

from __future__ import annotations

import getpass
import gzip
import io
import os
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

SSHD = Path("/usr/sbin/sshd")
SSH_KEYGEN = shutil.which("ssh-keygen") or "/usr/bin/ssh-keygen"
FIRST_OCTET = 101  # 127.0.0.101 and up: away from fleetlab's 127.0.0.11+


def sshd_available() -> bool:
    return SSHD.exists() and shutil.which("ssh") is not None


# ------------------------------------------------------------------------------------------ fixture roots
def make_root(
    root: Path,
    hostname: str,
    kernel: str = "6.5.0-14-generic",
    driver: str = "6.3.6",
    rocm: str = "6.0.2",
    gpus: int = 4,
    gfx_target_version: int = 90010,
    pci_device: str = "0x740f",
) -> Path:
    """A fake MI210-class node below ``root`` in the layout capture.py reads (``.cmd/`` = recorded commands)."""

    def put(rel: str, text: str) -> None:
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)

    put("etc/hostname", hostname + "\n")
    put("etc/os-release", 'NAME="Ubuntu"\nVERSION_ID="22.04"\nID=ubuntu\nPRETTY_NAME="Ubuntu 22.04.4 LTS"\n'
        'VERSION="22.04.4 LTS (Jammy Jellyfish)"\n')
    put("etc/group", "root:x:0:\nvideo:x:44:\nrender:x:109:\n")
    put("proc/version", f"Linux version {kernel} (buildd@lcy02) (gcc 11.4.0) #14-Ubuntu SMP\n")
    put("proc/sys/kernel/osrelease", kernel + "\n")
    put("proc/cmdline", f"BOOT_IMAGE=/boot/vmlinuz-{kernel} root=/dev/sda1 ro\n")
    put("proc/modules", "amdgpu 15187968 0 - Live 0x0000000000000000\n" if gpus else "")
    put(".cmd/uname-r.txt", kernel + "\n")
    put(".cmd/uname-a.txt", f"Linux {hostname} {kernel} #14-Ubuntu SMP x86_64 x86_64 x86_64 GNU/Linux\n")
    if driver:
        put("sys/module/amdgpu/version", driver + "\n")
        put("sys/module/amdgpu/initstate", "live\n")
    if rocm:
        put(f"opt/rocm-{rocm}/.info/version", f"{rocm}-115\n")
        put("opt/rocm/.info/version", f"{rocm}-115\n")
    topo = "sys/class/kfd/kfd/topology/nodes"
    put(f"{topo}/0/properties", "cpu_cores_count 64\nsimd_count 0\ngfx_target_version 0\nvendor_id 0\n"
        "device_id 0\n")
    put(f"{topo}/0/name", "\n")
    for i in range(1, gpus + 1):
        put(f"{topo}/{i}/properties",
            f"cpu_cores_count 0\nsimd_count 416\ngfx_target_version {gfx_target_version}\nvendor_id 4098\n"
            f"device_id {int(pci_device, 16)}\nlocation_id {i * 256}\ndrm_render_minor {127 + i}\n")
        n = gfx_target_version
        put(f"{topo}/{i}/name", f"gfx{n // 10000}{(n // 100) % 100:x}{n % 100:x}\n")
        put(f"{topo}/{i}/gpu_id", f"{1000 + i}\n")
        put(f"sys/class/drm/card{i - 1}/device/vendor", "0x1002\n")
        put(f"sys/class/drm/card{i - 1}/device/device", pci_device + "\n")
        put(f"sys/class/drm/card{i - 1}/device/revision", "0x02\n")
    return root


# ------------------------------------------------------------------------------------------ hosts
@dataclass
class HostSpec:
    """One test host. ``kind`` picks the behaviour; ``root_args`` shape its fixture tree."""

    alias: str
    kind: str = "normal"  # normal | nopython | garbage | hang | midstream | refused | badkey | torch | hungtool | reply
    root_args: dict = field(default_factory=dict)
    files: dict = field(default_factory=dict)  # extra files in the fixture tree (relative path -> text)
    reply: str = ""  # kind "reply": this file is the host's whole answer on stdout


@dataclass
class RunningHost:
    spec: HostSpec
    address: str
    port: int
    root: Path
    pid: Optional[int] = None
    config: Optional[Path] = None


def _free_port(addr: str) -> Optional[int]:
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.bind((addr, 0))
            return int(s.getsockname()[1])
    except OSError:
        return None


def _is_our_sshd(pid: int, cfg: Path) -> bool:
    try:
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
    except OSError:
        return False
    # a listening sshd rewrites its title to "sshd: /usr/sbin/sshd -f CFG ... [listener] ..."
    return b"sshd" in cmd and f"-f {cfg} ".encode() in cmd + b" "


class Fleet:
    """Start sshd daemons for ``specs`` under ``base``; ``ssh_config`` reaches them as their aliases."""

    def __init__(self, base: Path, specs: list[HostSpec]) -> None:
        self.base = base
        self.specs = specs
        self.hosts: dict[str, RunningHost] = {}
        self.user = getpass.getuser()
        self.ssh_config = base / "ssh_config"
        self.known_hosts = base / "known_hosts"
        self.key = base / "keys" / "id_ed25519"
        self.pidfiles: list[Path] = []

    # -- setup ---------------------------------------------------------------------------------------
    def _keygen(self, path: Path, comment: str) -> None:
        subprocess.run([SSH_KEYGEN, "-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", str(path)], check=True)

    def _bins(self) -> tuple[Path, Path]:
        """A PATH dir without python3 (sh tools only) and a dir whose python3 prints garbage."""
        nopy = self.base / "bin-nopython"
        nopy.mkdir(exist_ok=True)
        for tool in ("sh", "cat", "mkdir", "mktemp", "dirname", "rm", "tar", "gzip", "head", "tr", "uname",
                     "id", "timeout", "printf"):
            src = shutil.which(tool)
            if src and not (nopy / tool).exists():
                (nopy / tool).symlink_to(src)
        junk = self.base / "bin-junk"
        junk.mkdir(exist_ok=True)
        fake = junk / "python3"
        fake.write_text("#!/bin/sh\ncat >/dev/null\necho 'Segmentation fault: this is not a tar.gz at all'\n"
                        "echo 'garbage garbage garbage'\nexit 0\n")
        fake.chmod(0o755)
        hung = self.base / "bin-hungtool"
        hung.mkdir(exist_ok=True)
        tool = hung / "rocm-smi"
        tool.write_text("#!/bin/sh\nexec sleep 1000\n")  # a tool wedged on a broken GPU
        tool.chmod(0o755)
        return nopy, junk

    def _half_gzip(self) -> Path:
        """The first third of a real, large-enough tar.gz (a stream cut off mid-way)."""
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w:gz") as tar:
            data = os.urandom(20000)
            info = tarfile.TarInfo("rocmdoctor-capture/root/blob")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        whole = buf.getvalue()
        assert gzip.decompress(whole)
        p = self.base / "half.tar.gz"
        p.write_bytes(whole[: len(whole) // 3])
        return p

    def start(self) -> Fleet:
        b = self.base
        (b / "keys").mkdir(parents=True, exist_ok=True)
        os.chmod(b / "keys", 0o700)
        for d in ("run", "logs", "roots", "home", "hosts"):
            (b / d).mkdir(exist_ok=True)
        Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)
        self._keygen(b / "keys" / "host_key", "rd-test-host")
        self._keygen(self.key, "rd-test-user")
        self._keygen(b / "keys" / "alien", "rd-test-alien")
        (b / "keys" / "authorized_keys").write_text((b / "keys" / "id_ed25519.pub").read_text())
        (b / "keys" / "alien_authorized_keys").write_text((b / "keys" / "alien.pub").read_text())
        nopy, junk = self._bins()
        half = self._half_gzip()
        hostkey = " ".join((b / "keys" / "host_key.pub").read_text().split()[:2])
        for i, spec in enumerate(self.specs):
            addr = f"127.0.0.{FIRST_OCTET + i}"
            port = _free_port(addr)
            if port is None:
                addr, port = "127.0.0.1", _free_port("127.0.0.1") or 0
            root = make_root(b / "roots" / spec.alias, spec.alias, **spec.root_args)
            for rel, text in spec.files.items():
                (root / rel).parent.mkdir(parents=True, exist_ok=True)
                (root / rel).write_text(text)
            self.hosts[spec.alias] = RunningHost(spec, addr, port, root)
        for h in self.hosts.values():
            if h.spec.kind != "refused":
                self._start_sshd(h, nopy, junk, half)
        self._wait_up()
        with self.ssh_config.open("w") as f:
            for h in self.hosts.values():
                f.write(f"Host {h.spec.alias}\n  HostName {h.address}\n  Port {h.port}\n")
            f.write(
                f"Host *\n  User {self.user}\n  IdentityFile {self.key}\n  IdentitiesOnly yes\n"
                f"  UserKnownHostsFile {self.known_hosts}\n  GlobalKnownHostsFile /dev/null\n"
                "  StrictHostKeyChecking yes\n  PasswordAuthentication no\n  KbdInteractiveAuthentication no\n"
                "  ControlMaster no\n  LogLevel ERROR\n"
            )
        with self.known_hosts.open("w") as f:
            for h in self.hosts.values():
                f.write(f"[{h.address}]:{h.port} {hostkey}\n")
        return self

    def _start_sshd(self, h: RunningHost, nopy: Path, junk: Path, half: Path) -> None:
        b = self.base
        cfg = b / "hosts" / f"{h.spec.alias}.sshd_config"
        pidfile = b / "run" / f"{h.spec.alias}.pid"
        auth = b / "keys" / ("alien_authorized_keys" if h.spec.kind == "badkey" else "authorized_keys")
        force = {
            "nopython": f'PATH={nopy}; export PATH; exec /bin/sh -c "$SSH_ORIGINAL_COMMAND"',
            "garbage": f'PATH={junk}:$PATH; export PATH; exec /bin/sh -c "$SSH_ORIGINAL_COMMAND"',
            "hungtool": f'PATH={b / "bin-hungtool"}:$PATH; export PATH; exec /bin/sh -c "$SSH_ORIGINAL_COMMAND"',
            "torch": f'PATH={Path(sys.executable).parent}:$PATH; export PATH; exec /bin/sh -c "$SSH_ORIGINAL_COMMAND"',
            "hang": f"echo $$ >> {b / 'run' / (h.spec.alias + '.session.pid')}; exec sleep 1000",
            "midstream": f"cat >/dev/null; exec head -c 100000 {half}",
            "reply": f"cat >/dev/null; exec cat {h.spec.reply}",
        }.get(h.spec.kind)
        lines = [
            f"ListenAddress {h.address}:{h.port}",
            f"HostKey {b / 'keys' / 'host_key'}",
            f"PidFile {pidfile}",
            f"AuthorizedKeysFile {auth}",
            "PermitRootLogin prohibit-password",
            "PubkeyAuthentication yes",
            "PasswordAuthentication no",
            "KbdInteractiveAuthentication no",
            "UsePAM no",
            "StrictModes no",
            "UseDNS no",
            "PrintMotd no",
            "PrintLastLog no",
            "X11Forwarding no",
            "AllowTcpForwarding no",
            "MaxStartups 100:30:200",
            "LogLevel ERROR",
            f"SetEnv ROCMDOCTOR_ROOT={h.root} HOME={b / 'home'}",
        ]
        if force:
            lines.append(f"ForceCommand {force}")
        cfg.write_text("\n".join(lines) + "\n")
        h.config = cfg
        pidfile.unlink(missing_ok=True)
        self.pidfiles.append(pidfile)
        subprocess.run([str(SSHD), "-f", str(cfg), "-E", str(b / "logs" / f"{h.spec.alias}.log")], check=True)

    def _wait_up(self) -> None:
        deadline = time.monotonic() + 10
        for h in self.hosts.values():
            if h.config is None:
                continue
            pidfile = self.base / "run" / f"{h.spec.alias}.pid"
            while not (pidfile.exists() and pidfile.read_text().strip()):
                if time.monotonic() > deadline:
                    log = (self.base / "logs" / f"{h.spec.alias}.log").read_text(errors="replace")
                    raise RuntimeError(f"sshd for {h.spec.alias} did not start: {log[-500:]}")
                time.sleep(0.02)
            h.pid = int(pidfile.read_text().strip())

    # -- teardown ------------------------------------------------------------------------------------
    def stop(self) -> None:
        """SIGTERM exactly our daemons (pid files, checked against their cmdline) and hung sessions."""
        for h in self.hosts.values():
            if h.pid and h.config and _is_our_sshd(h.pid, h.config):
                try:
                    os.kill(h.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
            sess = self.base / "run" / f"{h.spec.alias}.session.pid"
            if sess.exists():
                for line in sess.read_text().split():
                    pid = int(line) if line.isdigit() else 0
                    try:
                        if pid and b"sleep" in Path(f"/proc/{pid}/cmdline").read_bytes():
                            os.kill(pid, signal.SIGTERM)
                    except (OSError, ProcessLookupError):
                        pass

    def host_address(self, alias: str) -> str:
        h = self.hosts[alias]
        return f"{h.address}:{h.port}"
