"""Secure Boot: an amdgpu-dkms module that the kernel refuses to load because it is not signed with an
enrolled key ("Key was rejected by service"). Nothing else explains it: the module built and installed,
``dkms status`` says installed, and yet no GPU appears.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rocmdoctor.judge.facts import finding, not_captured, ok
from rocmdoctor.judge.registry import check
from rocmdoctor.model import Finding, Fix, Severity

if TYPE_CHECKING:
    from rocmdoctor.matrix import Matrix
    from rocmdoctor.model import Host

FID = "secureboot.module-rejected"
_REJECTED = re.compile(r"Key was rejected by service|Lockdown: .{0,40}unsigned module loading is restricted", re.I)
MOK_URL = "https://wiki.debian.org/SecureBoot#Enrolling_your_key"
MOK_FIX = Fix(
    "Enroll the key DKMS signs modules with (then reboot and confirm it in the blue MOK manager screen), or "
    "disable Secure Boot in the firmware:",
    ["mokutil --sb-state", "sudo mokutil --import /var/lib/dkms/mok.pub", "sudo reboot"], MOK_URL)


def _amdgpu_dkms(host: Host) -> bool:
    return bool(host.dkms and any(e.module == "amdgpu" and e.status.startswith("installed")
                                  for e in host.dkms.entries))


@check(FID, title="Secure Boot and the amdgpu module")
def module_rejected(host: Host, matrix: Matrix) -> list[Finding]:
    rejected = [d for d in host.dmesg if _REJECTED.search(d.value)]
    sb = host.secure_boot
    if rejected:
        return [finding(
            FID, Severity.FAIL, "The kernel refused to load a module: Secure Boot rejected its signature",
            "With Secure Boot on, the kernel loads only modules signed by a key in its keyring or the enrolled MOK "
            "list; an amdgpu-dkms module signed with a key that was never enrolled is refused and no GPU appears.",
            [str(d.source or d.value) for d in rejected[:3]] + ([str(sb.source)] if sb else []),
            MOK_FIX,
        )]
    if sb is None:
        return [not_captured(FID, "Secure Boot state (mokutil --sb-state, efivars)")] if _amdgpu_dkms(host) else []
    if not sb.value:
        return [ok(FID, "Secure Boot is off: module signatures are not enforced", [str(sb.source)])]
    loaded = host.amdgpu_loaded.value if host.amdgpu_loaded else None
    if _amdgpu_dkms(host) and loaded is False:
        return [finding(
            FID, Severity.FAIL, "Secure Boot is on and the installed amdgpu-dkms module is not loaded",
            "dkms built and installed amdgpu, but it is not running: under Secure Boot the usual cause is that its "
            "signing key was never enrolled (modprobe says 'Key was rejected by service').",
            [str(sb.source), *(str(e.source) for e in host.dkms.entries if e.source)][:3] if host.dkms else
            [str(sb.source)],
            Fix(MOK_FIX.explanation, ["sudo modprobe amdgpu  # shows the reason", *MOK_FIX.commands], MOK_URL),
        )]
    return [ok(FID, "Secure Boot is on and no module was refused", [str(sb.source)])]
