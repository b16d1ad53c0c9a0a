"""What runs on each host: one POSIX ``sh`` script fed to ``ssh HOST sh -s`` on stdin.

The script runs rocmdoctor's stdlib-only capture (``rocmdoctor/capture.py``, embedded as a quoted
here-document and handed to ``python3 -``) when the host has ``python3``; otherwise it falls back to
copying the raw files with ``sh`` + ``tar``. Either way a ``.tar.gz`` bundle comes back on stdout and
nothing is installed on the host. The script is built from constants only: no user input ends up in it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

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

_FALLBACK = r"""
R="${ROCMDOCTOR_ROOT:-}"
P=$(mktemp -d 2>/dev/null) || P="/tmp/rocmdoctor-capture.$$"
trap 'rm -rf "$P"' EXIT HUP INT TERM
T="$P/rocmdoctor-capture"
mkdir -p "$T/root" "$T/cmd" || exit 97
for pat in @FILES@; do
  for f in "$R"/$pat; do
    [ -f "$f" ] || continue
    rel=${f#"$R"/}
    mkdir -p "$T/root/$(dirname "$rel")" && cat "$f" > "$T/root/$rel" 2>/dev/null
  done
done
rd_cmd() {  # name command...
  n=$1; shift
  if [ -n "$R" ] && [ -f "$R/.cmd/$n.txt" ]; then cat "$R/.cmd/$n.txt" > "$T/cmd/$n.txt"; return; fi
  if [ -n "$R" ] && [ -f "$R/.cmd/$n.json" ]; then cat "$R/.cmd/$n.json" > "$T/cmd/$n.json"; return; fi
  command -v "$1" >/dev/null 2>&1 || { echo "$1" >> "$P/missing"; return; }
  if command -v timeout >/dev/null 2>&1; then timeout @CMD_TIMEOUT@ "$@" > "$T/cmd/$n.txt" 2> "$T/cmd/$n.stderr"
  else "$@" > "$T/cmd/$n.txt" 2> "$T/cmd/$n.stderr"; fi
  [ -s "$T/cmd/$n.stderr" ] || rm -f "$T/cmd/$n.stderr"
}
@COMMANDS@
h=$(cat "$R/etc/hostname" 2>/dev/null || uname -n 2>/dev/null)
h=$(printf '%s' "$h" | head -n 1 | tr -cd 'A-Za-z0-9._-')
{ printf '{"schema": "rocmdoctor-capture/1", "format": "rocmdoctor-capture/1", "tool": "rocmdoctor-sh-fallback", '
  printf '"hostname": "%s", "commands": [], ' "$h"
  printf '"errors": ["no python3 on this host: raw files only (sh fallback)"]}\n'; } > "$T/manifest.json"
command -v tar >/dev/null 2>&1 || { echo "rocmdoctor: no python3 and no tar on this host" >&2; exit 98; }
cd "$P" && tar -cf - rocmdoctor-capture | gzip -c
"""


def command_timeout(host_timeout: float) -> int:
    """Per-command limit on the host: well inside the host's own timeout, so that one hung tool
    (rocm-smi on a wedged GPU) still yields a bundle that says so instead of a fleet.timeout."""
    return max(1, min(10, int(host_timeout / 3)))


def fallback_script(host_timeout: float = 60.0) -> str:
    """The POSIX sh capture used when the host has no python3 (raw files + recorded/real commands)."""
    files = " ".join(FALLBACK_FILES)
    cmds = "\n".join(f"rd_cmd {name} {argv}" for name, argv in FALLBACK_COMMANDS)
    return (_FALLBACK.replace("@FILES@", files).replace("@COMMANDS@", cmds)
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
