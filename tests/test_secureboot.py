"""secureboot.module-rejected from captured data (mokutil --sb-state, the SecureBoot efivar, dmesg, dkms).

Real strings: mokutil's own output lines (lcp/mokutil src/mokutil.c prints "SecureBoot enabled" /
"SecureBoot disabled" / "SecureBoot validation is disabled in shim"; quoted in many public setup notes),
and the kernel refusal "Key was rejected by service" as systemd-modules-load logged it in
https://github.com/google/gasket-driver/issues/11 ("Failed to insert module 'gasket': Key was rejected by
service"). The amdgpu variant is derived: module name gasket -> amdgpu (same kernel path, EKEYREJECTED).
"""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from rocmdoctor.bundle import load_host
from rocmdoctor.diagnose import judge_host
from rocmdoctor.parse import secureboot

GASKET = ("Apr 22 18:10:16 host systemd-modules-load[602]: Failed to insert module 'gasket': "
          "Key was rejected by service\n")
AMDGPU = GASKET.replace("'gasket'", "'amdgpu'")  # derived
DKMS_INSTALLED = "amdgpu/6.3.6-1697589.22.04, 6.5.0-14-generic, x86_64: installed\n"
EFIVAR = "root/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c"


def judged(tmp: Path, files: dict[str, str]) -> tuple[str, str]:
    for rel, text in files.items():
        p = tmp / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    (tmp / "manifest.json").write_text(json.dumps({"format": "rocmdoctor-capture/1"}))
    (f,) = judge_host(load_host(tmp), select=["secureboot.module-rejected"])
    return f.severity.value, f.title


def test_mokutil_states():
    assert secureboot.parse_mokutil("SecureBoot enabled\n").value is True
    assert secureboot.parse_mokutil("\x1b[32mSecureBoot enabled\n\x1b[0m").value is True  # coloured build
    assert secureboot.parse_mokutil("SecureBoot disabled\nPlatform is in Setup Mode\n").value is False
    assert secureboot.parse_mokutil("SecureBoot enabled\nSecureBoot validation is disabled in shim\n").value is False
    assert secureboot.parse_mokutil("EFI variables are not supported on this system\n").value is False
    assert secureboot.parse_mokutil("mokutil: command not found\n") is None


def test_rejected_module_in_the_log_fails(tmp_path):
    sev, title = judged(tmp_path, {"cmd/dmesg.txt": AMDGPU, "cmd/mokutil-sb-state.txt": "SecureBoot enabled\n"})
    assert sev == "fail" and "Secure Boot" in title


def test_dkms_installed_not_loaded_under_secure_boot_fails(tmp_path):
    sev, _ = judged(tmp_path, {"cmd/dkms-status.txt": DKMS_INSTALLED, "root/proc/modules": "snd 1 0 - Live 0x0\n",
                               EFIVAR: "\x06\x00\x00\x00\x01"})
    assert sev == "fail"


def test_loaded_module_under_secure_boot_is_fine(tmp_path):
    sev, _ = judged(tmp_path, {"cmd/dkms-status.txt": DKMS_INSTALLED,
                               "root/proc/modules": "amdgpu 15187968 0 - Live 0x0\n",
                               "cmd/mokutil-sb-state.txt": "SecureBoot enabled\n"})
    assert sev == "ok"


def test_secure_boot_off(tmp_path):
    sev, _ = judged(tmp_path, {"cmd/dkms-status.txt": DKMS_INSTALLED, EFIVAR: "\x06\x00\x00\x00\x00"})
    assert sev == "ok"


def test_unknown_state_with_dkms_is_not_captured(tmp_path):
    sev, _ = judged(tmp_path, {"cmd/dkms-status.txt": DKMS_INSTALLED})
    assert sev == "skip"


@given(st.text(max_size=300))
def test_parsers_never_raise(text):
    secureboot.parse_mokutil(text)
    secureboot.parse_efivar(text, "x")


def test_lockdown_refusal_in_dmesg_is_kept_and_fails(tmp_path):
    # security/lockdown/lockdown.c: "Lockdown: %s: %s is restricted; see man kernel_lockdown.7" with the reason
    # "unsigned module loading" (security/security.c lockdown_reasons)
    line = "[    5.123456] Lockdown: modprobe: unsigned module loading is restricted; see man kernel_lockdown.7\n"
    sev, _ = judged(tmp_path, {"cmd/dmesg.txt": "[    1.0] Linux version 6.8.0\n" + line})
    assert sev == "fail"
