"""Secure Boot state: ``mokutil --sb-state`` and the EFI variable ``SecureBoot-<guid>``.

``mokutil --sb-state`` prints ``SecureBoot enabled`` / ``SecureBoot disabled`` (plus ``SecureBoot validation
is disabled in shim`` when shim does not enforce), or ``EFI variables are not supported on this system`` on
a legacy-BIOS boot (no Secure Boot at all). The efivarfs file is 4 attribute bytes followed by one data
byte: 1 = enabled (UEFI spec, "SecureBoot" global variable; read the same way by mokutil).
"""

from __future__ import annotations

import re
from typing import Callable, Optional

from rocmdoctor.model import Fact
from rocmdoctor.parse.text import lines, src

EFIVAR = re.compile(r"^root/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c$")


def parse_mokutil(text: str, file: str = "cmd/mokutil-sb-state.txt") -> Optional[Fact[bool]]:
    """True/False from mokutil's answer; None when it said nothing we know."""
    enforced: Optional[Fact[bool]] = None
    for n, line in lines(text):
        s = line.strip()
        if re.fullmatch(r"SecureBoot enabled", s):
            enforced = Fact(True, src(file, n, s))
        elif re.fullmatch(r"SecureBoot disabled|EFI variables are not supported on this system"
                          r"|This system doesn't support Secure Boot", s):
            return Fact(False, src(file, n, s))
        elif re.fullmatch(r"SecureBoot validation is disabled in shim", s):
            return Fact(False, src(file, n, s))  # shim does not check signatures: modules load
    return enforced


def parse_efivar(text: str, file: str) -> Optional[Fact[bool]]:
    """The data byte after the 4 attribute bytes of the efivarfs file."""
    if len(text) != 5 or text[4] not in "\x00\x01":
        return None
    on = text[4] == "\x01"
    return Fact(on, src(file, None, f"SecureBoot efivar data byte {int(on)}"))


def from_bundle(names: list[str], read: Callable[[str], Optional[str]]) -> Optional[Fact[bool]]:
    """mokutil's answer first (it also knows about shim validation), else the EFI variable."""
    for name in ("cmd/mokutil-sb-state.txt",):
        if name in names:
            fact = parse_mokutil(read(name) or "", name)
            if fact is not None:
                return fact
    for name in names:
        if EFIVAR.match(name):
            fact = parse_efivar(read(name) or "", name)
            if fact is not None:
                return fact
    return None
