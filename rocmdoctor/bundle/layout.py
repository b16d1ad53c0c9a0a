"""Read a :class:`~rocmdoctor.bundle.archive.Tree` as a capture bundle (``manifest.json``, ``root/``, ``cmd/``,
``env.txt``, ``logs/``: ``../shared/capture-format.md``) or as a folder of loose pasted files.

Every file is optional and every parser is total: what cannot be read becomes "not captured" plus a note
in ``Host.parse_notes``, never an exception. Which handler reads a file comes from the tables in
:mod:`rocmdoctor.bundle.handlers`; what wins when several files tell one fact, from
:data:`rocmdoctor.bundle.merge.PRIORITY`.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import PurePosixPath
from typing import Any

from rocmdoctor.bundle.archive import LAYOUT_DIRS, Tree
from rocmdoctor.bundle.handlers import (
    CMD_KINDS,
    CONTAINER_MARKERS,
    KIND_HANDLERS,
    ROOT_FILES,
    SCAN_KINDS,
    read_docker_info,
    rocm_install_version,
)
from rocmdoctor.bundle.merge import Acc
from rocmdoctor.bundle.sysfs import SysfsGpus
from rocmdoctor.errors import BadInput
from rocmdoctor.limits import LIMITS
from rocmdoctor.model import Fact
from rocmdoctor.parse import dkms, health, secureboot
from rocmdoctor.parse import logs as logscan
from rocmdoctor.parse.text import is_binary, src, without_code_spans, without_removed_lines

_LAYOUT_TOP = ("manifest.json", "env.txt")
_IGNORED_LOOSE = re.compile(r"(?i)\.md$|^expected\.json$|^\.|\.(?:png|jpe?g|gif|pdf|zip|whl)$")
_ROCM_INFO_VERSION = re.compile(r"/opt/(rocm[^/]*)/\.info/version")
_MANIFEST_ERROR_CHARS = 300  # a capture error copied from the manifest is cut to this length
Entries = dict[str, dict[str, Any]]  # cmd name -> its manifest entry


def read_tree(acc: Acc, tree: Tree, label: str) -> None:
    """Offer everything ``tree`` holds to ``acc``; BadInput when nothing in it is recognised."""
    names = tree.names()
    if any(n in _LAYOUT_TOP or (n.split("/", 1)[0] in LAYOUT_DIRS and "/" in n) for n in names):
        # Any file where a bundle keeps its parts makes this a bundle (everything in it is optional).
        acc.recognised = any(n == "env.txt" or n.split("/", 1)[0] in LAYOUT_DIRS for n in names)
        _read_bundle(acc, tree, names)
    else:
        _read_loose(acc, tree, names)
    if not acc.recognised:
        raise BadInput(
            f"{label}: nothing rocmdoctor recognises (expected a capture bundle with manifest.json, root/, cmd/, "
            "env.txt or logs/, or pasted rocminfo / collect_env / dkms status / error output)"
        )


def _read_bundle(acc: Acc, tree: Tree, names: list[str]) -> None:
    entries = _read_manifest(acc, tree)
    _read_root(acc, tree)
    _read_cmds(acc, tree, entries)
    _read_stderr(acc, tree)
    env_text = tree.text("env.txt")
    if env_text is not None:
        KIND_HANDLERS["env"](acc, env_text, "env.txt")
    _read_logs(acc, tree)
    acc.host.health[:0] = health.from_bundle(names, tree.text)  # before what a pasted log's parser added
    if acc.host.health:
        acc.saw("health")
    if acc.host.secure_boot is None:  # mokutil's answer (read with cmd/) first, else the efivar
        acc.host.secure_boot = secureboot.from_bundle(names, tree.text)


def _read_loose(acc: Acc, tree: Tree, names: list[str]) -> None:
    """A directory of loose pasted files (a bug report's attachments): each one is read exactly as it would be
    alone (`check --from paste.txt`), free text included; if nothing in them can be judged, `check` says so
    (exit 2) instead of this loader refusing what a single file would accept."""
    for name in names:
        if "/" in name or _IGNORED_LOOSE.search(name):
            continue
        text = tree.text(name)
        if text is None or not text.strip() or is_binary(text):
            continue
        read_pasted(acc, text, name)
        acc.recognised = True


def _read_manifest(acc: Acc, tree: Tree) -> Entries:
    """Manifest facts; returns ``{cmd name: manifest entry}``."""
    text = tree.text("manifest.json")
    if text is None:
        return {}
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        acc.host.parse_notes.append("manifest.json: not valid JSON; ignored")
        return {}
    if not isinstance(data, dict):
        acc.host.parse_notes.append("manifest.json: not a JSON object; ignored")
        return {}
    acc.recognised = True
    for key in ("hostname", "created", "tool"):
        if isinstance(data.get(key), str):
            if key == "hostname":
                acc.offer("hostname", "manifest", data[key] or None)
            else:
                setattr(acc.host, key, data[key])
    links = data.get("links")
    if isinstance(links, dict):
        for k, v in links.items():
            if isinstance(k, str) and isinstance(v, str):
                tree.links.setdefault(k, v)
    errors = data.get("errors")
    if isinstance(errors, list):
        acc.host.parse_notes.extend(f"capture: {e}"[:_MANIFEST_ERROR_CHARS]
                                    for e in errors[:LIMITS["manifest-errors"]] if isinstance(e, str))
    commands = data.get("commands")
    return _manifest_commands(acc, commands) if isinstance(commands, list) else {}


def _manifest_commands(acc: Acc, commands: list[Any]) -> Entries:
    """The manifest's command entries by output name; the tools that were missing go to ``commands_missing``."""
    entries: Entries = {}
    for entry in commands:
        if not isinstance(entry, dict):
            continue
        argv = entry.get("argv") if isinstance(entry.get("argv"), list) else []
        file = entry.get("file") if isinstance(entry.get("file"), str) else None
        name = PurePosixPath(file).name.rsplit(".", 1)[0] if file else None
        if entry.get("missing") is True or entry.get("exit") == 127:
            tool = os.path.basename(str(argv[0])) if argv else (name or "?")
            if tool not in acc.host.commands_missing:
                acc.host.commands_missing.append(tool)
        if name:
            entries[name] = entry
    return entries


def _read_root(acc: Acc, tree: Tree) -> None:
    """Host files under ``root/``: sysfs GPU objects, ROCm installs, the files in ROOT_FILES, container markers."""
    sysfs = SysfsGpus()
    for name in tree.names():
        if not name.startswith("root/"):
            continue
        host_path = name[4:]
        if sysfs.take(tree, name, host_path):
            continue
        m = _ROCM_INFO_VERSION.fullmatch(host_path)
        if m:
            rocm_install_version(acc, tree.text(name) or "", name, m.group(1))
            continue
        handler = ROOT_FILES.get(host_path)
        if handler is not None:
            text = tree.text(name)
            if text is not None:
                handler(acc, text, name)
        elif host_path in CONTAINER_MARKERS:
            acc.in_container(src(name, None, f"{host_path} exists"))
    sysfs.read(acc, tree)


def _cmd_outputs(tree: Tree) -> list[tuple[str, str]]:
    """``(file, base name)`` of every ``cmd/<base>.txt|.json``, a link to an output already listed left out."""
    seen: set[str] = set()
    out = []
    for name in tree.names():
        if not name.startswith("cmd/") or name.count("/") != 1:
            continue
        if tree.canonical(name) in seen:
            continue  # a link to an output already read
        seen.add(tree.canonical(name))
        base, _, ext = name[4:].rpartition(".")
        if base and ext in ("txt", "json"):
            out.append((name, base))
    return out


def _read_cmds(acc: Acc, tree: Tree, entries: Entries) -> None:
    for name, base in _cmd_outputs(tree):
        entry = entries.get(base, {})
        if entry.get("missing") is True:
            continue
        text = tree.text(name)
        if text is None:
            continue
        stderr = tree.text(f"cmd/{base}.stderr")
        kind = CMD_KINDS.get(base)
        for k in [kind] if kind else _sniff(text):
            if k == "docker-info":
                read_docker_info(acc, text, name, stderr)
            else:
                KIND_HANDLERS[k](acc, text, name)
            if k in SCAN_KINDS:
                acc.host.logs.extend(logscan.scan(text, name))
        acc.scan_text(text, name)
        if entry.get("timed_out"):
            acc.host.parse_notes.append(f"{name}: the command timed out; its output may be cut off")
        if base == "dkms-status" and isinstance(entry.get("exit"), int) and entry["exit"] not in (0, 127):
            acc.dkms_info().errors.append(
                Fact(f"dkms status exited with status {entry['exit']}", src(name, None, "exit status"))
            )


def _read_stderr(acc: Acc, tree: Tree) -> None:
    """``cmd/<name>.stderr``: error lines, and what dkms and docker said there."""
    for name in tree.names():
        if name.startswith("cmd/") and name.endswith(".stderr"):
            text = tree.text(name)
            if text:
                acc.host.logs.extend(logscan.scan(text, name))
                acc.scan_text(text, name)
                if name == "cmd/dkms-status.stderr":
                    KIND_HANDLERS["dkms"](acc, text, name)
                elif name == "cmd/docker-info.stderr" and not tree.has("cmd/docker-info.json"):
                    read_docker_info(acc, "", "cmd/docker-info.json", text)


def _read_logs(acc: Acc, tree: Tree) -> None:
    seen: set[str] = set()
    for name in tree.names():
        if not name.startswith("logs/"):
            continue
        if tree.canonical(name) in seen:
            continue  # a link to a log already read: the same text is scanned once
        seen.add(tree.canonical(name))
        text = tree.text(name)
        if text is None:
            continue
        text = without_code_spans(text)
        acc.saw("logs")
        _read_log_formats(acc, text, name)
        acc.host.logs.extend(logscan.scan(text, name))
        acc.scan_text(text, name)
        _dkms_build_log(acc, text, name)


def _read_log_formats(acc: Acc, text: str, name: str) -> None:
    """A tool's output pasted into ``logs/`` (collect_env, lspci, dmesg, rocminfo) is read by its format parser,
    exactly as the same text is when pasted alone (:func:`read_pasted`): otherwise a bundle judges a paste on
    its prose only and misses what the alone path sees (a GPU line, an iGPU in lspci). A kind the capture
    itself already provided (``cmd/``, ``root/``) is not read again: the capture's own output wins."""
    for k in _sniff(text):
        if k not in acc.host.captured:
            KIND_HANDLERS[k](acc, text, name)


def _dkms_build_log(acc: Acc, text: str, name: str) -> None:
    """A log that holds a DKMS build failure is read as dkms output too (the build error is the cause)."""
    info = dkms.parse_dkms(dkms.log_lines(text), name) if dkms.may_hold_build_failure(text) else None
    if info is not None and info.build_failures:
        KIND_HANDLERS["dkms"](acc, text, name)


def _sniff(text: str) -> list[str]:
    from rocmdoctor.parse.sniff import sniff  # only bare files and unknown commands need it

    return sniff(text)


def read_pasted(acc: Acc, text: str, file: str) -> list[str]:
    """Treat one pasted file as the parts of a bundle that its content shows; returns the kinds recognised."""
    text = without_code_spans(without_removed_lines(text))
    kinds = _sniff(text)
    for k in kinds:
        KIND_HANDLERS[k](acc, text, file)
    matches = logscan.scan(text, file)
    acc.host.logs.extend(matches)
    acc.scan_text(text, file)
    if not kinds:
        acc.host.captured.add("logs")
        if matches:
            acc.recognised = True
    if "dkms" not in kinds:  # a DKMS build failure below a pasted rocminfo is still the cause
        _dkms_build_log(acc, text, file)
    return kinds


