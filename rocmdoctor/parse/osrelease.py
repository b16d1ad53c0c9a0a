"""``/etc/os-release``, ``lsb_release -a`` and the ``OS:`` line of collect_env, as :class:`OsInfo`."""

from __future__ import annotations

import re
from typing import Optional

from rocmdoctor.model import OsInfo
from rocmdoctor.parse.text import lines, src, strip_prompt

_KV = re.compile(r"^([A-Z_][A-Z0-9_]*)=(.*)$")
_VERSION_IN_TEXT = re.compile(r"(?:\b|(?<=[a-z]))(\d+(?:\.\d+){0,2})\b")  # "ubuntu24.04" too

# Distribution names as they appear in prose ("Ubuntu 22.04.5 LTS") -> os-release ID.
_PROSE_IDS = (
    ("red hat enterprise linux", "rhel"),
    ("rhel", "rhel"),
    ("ubuntu", "ubuntu"),
    ("debian", "debian"),
    ("rocky", "rocky"),
    ("almalinux", "almalinux"),
    ("oracle linux", "ol"),
    ("sles", "sles"),
    ("suse linux enterprise", "sles"),
    ("opensuse tumbleweed", "opensuse-tumbleweed"),
    ("opensuse", "opensuse-leap"),
    ("centos", "centos"),
    ("fedora", "fedora"),
    ("azure linux", "azurelinux"),
    ("arch linux", "arch"),
    ("linux mint", "linuxmint"),
    ("pop!_os", "pop"),
    ("talos", "talos"),
    ("nixos", "nixos"),
    # Ubuntu's LTS codenames, as an issue template's OS answer gives them: "24.04.1 LTS (Noble Numbat)"
    ("noble numbat", "ubuntu"),
    ("jammy jellyfish", "ubuntu"),
    ("focal fossa", "ubuntu"),
    ("bionic beaver", "ubuntu"),
)


def _unquote(v: str) -> str:
    v = v.strip()
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "\"'":
        v = v[1:-1]
    return v.replace('\\"', '"').replace("\\\\", "\\")


def _major_minor(full: Optional[str]) -> Optional[str]:
    """'22.04' from '22.04.5', '9.4' from '9.4'."""
    if not full:
        return None
    parts = full.split(".")
    return ".".join(parts[:2])


def parse_os_release(text: str, file: str = "root/etc/os-release") -> OsInfo:
    """KEY=VALUE lines of os-release; VERSION's leading number gives the full version ("22.04.5")."""
    kv: dict[str, tuple[str, int, str]] = {}
    for n, line in lines(text):
        line, _ = strip_prompt(line)
        m = _KV.match(line.strip())
        if m and m.group(1) not in kv:
            kv[m.group(1)] = (_unquote(m.group(2)), n, line)
    info = OsInfo()
    if not kv:
        return info
    if "ID" in kv:
        info.id = kv["ID"][0].lower() or None
    if "VERSION_ID" in kv:
        info.version_id = kv["VERSION_ID"][0] or None
    if "PRETTY_NAME" in kv:
        info.pretty_name = kv["PRETTY_NAME"][0] or None
    if "ID_LIKE" in kv:
        info.id_like = kv["ID_LIKE"][0].lower().split()
    for key in ("VERSION", "PRETTY_NAME"):
        if key in kv:
            m = _VERSION_IN_TEXT.search(kv[key][0])
            if m and info.version_id and m.group(1).startswith(info.version_id):
                info.version = m.group(1)
                break
    if info.version is None:
        info.version = info.version_id
    first = kv.get("ID") or kv.get("VERSION_ID") or next(iter(kv.values()))
    info.source = src(file, first[1], first[2])
    return info


def os_from_prose(text: str, file: str, line: Optional[int] = None) -> OsInfo:
    """'Ubuntu 22.04.5 LTS (x86_64)' -> id ubuntu, version_id 22.04, version 22.04.5."""
    info = OsInfo()
    low = text.lower()
    for needle, os_id in _PROSE_IDS:
        if needle in low:
            info.id = os_id
            break
    if info.id is None:
        return info
    m = _VERSION_IN_TEXT.search(text)
    rolling = re.search(r"\b(testing|unstable|sid)\b", low) if info.id == "debian" else None
    if rolling:  # Debian's rolling suites: no release number, and no ROCm release lists them
        info.version = info.version_id = rolling.group(1)
    elif m:
        info.version = m.group(1)
        if info.id == "ubuntu":  # "Ubuntu 24.4 Noble" (ROCm/ROCm#3656): an April release is YY.04
            info.version = re.sub(r"^(\d{2})\.4(?=\.|$)", r"\1.04", info.version)
        info.version_id = _major_minor(info.version) if info.id == "ubuntu" else m.group(1)
        if info.id in ("rhel", "rocky", "almalinux", "ol", "centos"):
            info.version_id = _major_minor(m.group(1))
    # (nix-info's "NixOS, 24.11 (Vicuna)": the comma is the list's, not the name's)
    info.pretty_name = re.sub(r"\s*\([^)]{0,100}\)\s*$", "", text.strip()).replace(", ", " ") or None
    if info.id == "ubuntu" and "ubuntu" not in low and info.pretty_name:  # named by its codename alone
        info.pretty_name = "Ubuntu " + info.pretty_name
    info.source = src(file, line, text)
    return info


def parse_lsb_release(text: str, file: str) -> OsInfo:
    """``lsb_release -a``: 'Description:' gives the full name, 'Release:' the version."""
    desc = None
    release = None
    for n, line in lines(text):
        line, _ = strip_prompt(line)
        if line.startswith("Description:"):
            desc = (line.split(":", 1)[1].strip(), n, line)
        elif line.startswith("Release:"):
            release = line.split(":", 1)[1].strip()
    if desc is None:
        return OsInfo()
    info = os_from_prose(desc[0], file, desc[1])
    if release and info.id == "ubuntu" and re.fullmatch(r"\d+\.\d+", release):
        info.version_id = release
    return info
