"""What runs on each host: one POSIX ``sh`` script fed to ``ssh HOST sh -s`` on stdin.

The script runs rocmdoctor's stdlib-only capture (``rocmdoctor/capture.py``, embedded as a quoted
here-document and handed to ``python3 -``) when the host has ``python3``; otherwise it falls back to
copying the raw files with ``sh`` + ``tar``. Either way a ``.tar.gz`` bundle comes back on stdout and
nothing is installed on the host. The script is built from constants only: no user input ends up in it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from rocmdoctor.paths import PROGRAMS_DIR

CAPTURE_PY = Path(__file__).resolve().parent.parent / "capture.py"
_PY_EOF = "__ROCMDOCTOR_CAPTURE_PY_EOF__"

# Raw files the sh fallback copies (globs are expanded below $ROCMDOCTOR_ROOT by the shell).
FALLBACK_FILES = (
    "etc/os-release", "etc/hostname", "etc/group", "etc/lsb-release",
    "proc/version", "proc/cmdline", "proc/modules", "proc/sys/kernel/osrelease",
    "sys/module/amdgpu/version", "sys/module/amdgpu/initstate",
    "sys/class/kfd/kfd/topology/nodes/*/properties", "sys/class/kfd/kfd/topology/nodes/*/name",
    "sys/class/kfd/kfd/topology/nodes/*/gpu_id",
    "sys/class/drm/card*/device/vendor", "sys/class/drm/card*/device/device",
    "sys/class/drm/card*/device/revision", "sys/class/drm/card*/device/subsystem_device",
    "sys/class/drm/card*/device/current_link_speed", "sys/class/drm/card*/device/current_link_width",
    "sys/class/drm/card*/device/max_link_speed", "sys/class/drm/card*/device/max_link_width",
    "opt/rocm/.info/version", "opt/rocm-*/.info/version",
    # node health (RAS counters, retired pages) and Secure Boot, as capture.py copies them; not pp_dpm_pcie
    # or hwmon, which capture.py reads only from awake GPUs (a read could resume a runtime-suspended one)
    "sys/class/drm/card*/device/ras/*_err_count", "sys/class/drm/card*/device/ras/gpu_vram_bad_pages",
    "sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c",
)
# name -> command line (constant strings, run only on a real host when no recorded output exists)
FALLBACK_COMMANDS = (
    ("uname-r", "uname -r"),
    ("uname-a", "uname -a"),
    ("id", "id"),
    ("rocminfo", "rocminfo"),
    ("rocm_agent_enumerator", "rocm_agent_enumerator"),
    ("dkms-status", "dkms status"),
    ("lspci", "lspci -nn"),
    ("dmesg", "dmesg"),
    ("mokutil-sb-state", "mokutil --sb-state"),
)

FALLBACK_SH = PROGRAMS_DIR / "capture_fallback.sh"  # a template: @FILES@, @COMMANDS@, @CMD_TIMEOUT@


def command_timeout(host_timeout: float) -> int:
    """Per-command limit on the host: well inside the host's own timeout, so that one hung tool
    (rocm-smi on a wedged GPU) still yields a bundle that says so instead of a fleet.timeout."""
    return max(1, min(10, int(host_timeout / 3)))


def fallback_script(host_timeout: float = 60.0) -> str:
    """The POSIX sh capture used when the host has no python3 (raw files + recorded/real commands)."""
    files = " ".join(FALLBACK_FILES)
    cmds = "\n".join(f"rd_cmd {name} {argv}" for name, argv in FALLBACK_COMMANDS)
    template = FALLBACK_SH.read_text(encoding="utf-8")
    return (template.replace("@FILES@", files).replace("@COMMANDS@", cmds)
            .replace("@CMD_TIMEOUT@", str(command_timeout(host_timeout))))


def capture_source() -> Optional[str]:
    """rocmdoctor/capture.py as text, or None while it does not exist (then only the sh fallback runs)."""
    try:
        return CAPTURE_PY.read_text(encoding="utf-8")
    except OSError:
        return None


def capture_script(timeout: float) -> bytes:
    """The whole stdin payload for one host: python3 capture if possible, else the sh fallback.

    ``timeout`` is the host's whole budget; each command on the host gets :func:`command_timeout`.
    """
    src = capture_source()
    parts: list[str] = []
    if src is not None and f"\n{_PY_EOF}\n" not in f"\n{src}\n":
        t = command_timeout(timeout)
        parts.append(
            "if command -v python3 >/dev/null 2>&1; then\n"
            f"python3 - --stdout-tar --timeout {t} <<'{_PY_EOF}'\n{src}\n{_PY_EOF}\n"
            "exit $?\nfi\n"
        )
    parts.append(fallback_script(timeout))
    return "".join(parts).encode("utf-8")
