"""Host lists: ranges (``node[001-128]``), host files, Ansible INI inventories, and folding back.

Every name that reaches ``ssh`` passes :func:`validate_host` first: a name that starts with ``-`` could
be read as an option (``-oProxyCommand=...`` runs a command locally), so it is refused with exit 2
before any connection is made (the transport also puts ``--`` before the destination).
"""

from __future__ import annotations

import itertools
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from rocmdoctor.errors import BadInput
from rocmdoctor.limits import LIMITS, LimitExceeded

# one bracket group: node[001-128], node[1,3,5-7], node[01:50] (Ansible uses ':')
_RANGE = re.compile(r"\[([^\[\]]*)\]")
_HOST_OK = re.compile(r"^[A-Za-z0-9_.:@%\[\]-]+$")
MAX_EXPANDED = 100_000


@dataclass(frozen=True)
class Target:
    """One host to audit: the display ``name`` plus how ssh reaches it (None = let ssh_config decide)."""

    name: str
    address: Optional[str] = None  # Ansible ansible_host; None -> ssh resolves ``name`` itself
    port: Optional[int] = None
    user: Optional[str] = None
    identity: Optional[str] = None

    @property
    def destination(self) -> str:
        return self.address or self.name


def validate_host(name: str) -> str:
    """Return ``name`` if it is safe to hand to ssh as a destination, else raise BadInput (exit 2)."""
    if not name:
        raise BadInput("empty host name")
    if name.startswith("-"):
        raise BadInput(f"refusing host {name!r}: it starts with '-' and would be read as an ssh option")
    if not _HOST_OK.match(name) or "/" in name:
        raise BadInput(f"refusing host {name!r}: only letters, digits and . _ - : @ % are allowed")
    return name


def _expand_group(body: str, text: str) -> list[str]:
    parts: list[str] = []
    for item in body.split(","):
        item = item.strip()
        if not item:
            raise BadInput(f"bad host range {text!r}: empty item")
        m = re.fullmatch(r"([0-9]+)(?:[-:]([0-9]+))?", item)
        if not m:
            m2 = re.fullmatch(r"([a-z])[-:]([a-z])", item)  # Ansible allows alphabetic ranges
            if not m2:
                raise BadInput(f"bad host range {text!r}: {item!r} is not N or N-M")
            lo, hi = ord(m2.group(1)), ord(m2.group(2))
            if hi < lo:
                raise BadInput(f"bad host range {text!r}: {item!r} runs backwards")
            parts.extend(chr(c) for c in range(lo, hi + 1))
            continue
        lo_s, hi_s = m.group(1), m.group(2)
        if hi_s is None:
            parts.append(lo_s)
            continue
        lo, hi = int(lo_s), int(hi_s)
        if hi < lo:
            raise BadInput(f"bad host range {text!r}: {item!r} runs backwards")
        if hi - lo >= MAX_EXPANDED:
            raise BadInput(f"bad host range {text!r}: more than {MAX_EXPANDED} hosts")
        width = len(lo_s) if lo_s.startswith("0") and len(lo_s) > 1 else 0
        parts.extend(str(n).zfill(width) for n in range(lo, hi + 1))
    return parts


class HostBudget:
    """How many more hosts the whole list may expand to (the ``hosts`` limit spans every range and file)."""

    def __init__(self) -> None:
        self.left = LIMITS["hosts"]

    def take(self, n: int, text: str) -> None:
        if n > self.left:
            raise LimitExceeded("hosts", f"host list: {text[:80]!r} would bring it to more than "
                                         f"{LIMITS['hosts']:,} hosts")
        self.left -= n


def expand(text: str, budget: Optional[HostBudget] = None) -> list[str]:
    """``node[001-003,7]`` -> ``node001 node002 node003 node7``; several bracket groups multiply out.

    Iterative (no recursion per group) and sized before anything is built: the product of the groups'
    sizes is charged to ``budget`` (one for the whole host list) before a single name is made.
    """
    text = text.strip()
    if text.startswith("-"):
        validate_host(text)
    groups = list(_RANGE.finditer(text))
    if len(groups) > LIMITS["host-range-groups"]:
        raise LimitExceeded("host-range-groups", f"host pattern {text[:80]!r}... has {len(groups):,} bracket groups")
    if not groups:
        if "[" in text or "]" in text:
            raise BadInput(f"bad host range {text[:200]!r}: unbalanced brackets")
        (budget or HostBudget()).take(1, text)
        return [validate_host(text)]
    literals, options, pos = [], [], 0
    for m in groups:
        literals.append(text[pos:m.start()])
        options.append(_expand_group(m.group(1), text))
        pos = m.end()
    literals.append(text[pos:])
    if any("[" in lit or "]" in lit for lit in literals):
        raise BadInput(f"bad host range {text[:200]!r}: unbalanced brackets")
    total = 1
    for opts in options:
        total *= len(opts)
        if total > LIMITS["hosts"]:
            break
    (budget or HostBudget()).take(total, text)
    out: list[str] = []
    for combo in itertools.product(*options):
        name = literals[0] + "".join(piece + lit for piece, lit in zip(combo, literals[1:]))
        out.append(validate_host(name))
    return out


def natural_key(name: str) -> tuple:
    return tuple((0, int(tok), len(tok)) if tok.isdigit() else (1, tok, 0) for tok in re.split(r"(\d+)", name))


def natural_sorted(names: list[str]) -> list[str]:
    """node2 before node10."""
    return sorted(names, key=natural_key)


def compress(names: list[str]) -> str:
    """Fold host names back into ranges: ``node003 node017 node018 node019`` -> ``node[003,017-019]``.

    Names are grouped by the text around their last run of digits and by the digits' width (so
    ``node7`` and ``node007`` never merge); groups are joined with ``,`` like ClusterShell's nodeset.
    """
    groups: dict[tuple[str, str, int], list[int]] = {}
    plain: list[str] = []
    for name in dict.fromkeys(names):
        m = re.match(r"^(.*?)(\d+)(\D*)$", name)
        if not m:
            plain.append(name)
            continue
        prefix, digits, suffix = m.groups()
        width = len(digits) if digits.startswith("0") and len(digits) > 1 else 0
        groups.setdefault((prefix, suffix, width), []).append(int(digits))
    out: list[str] = []
    for (prefix, suffix, width), nums in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2])):
        nums = sorted(set(nums))
        if len(nums) == 1:
            out.append(f"{prefix}{str(nums[0]).zfill(width)}{suffix}")
            continue
        spans: list[str] = []
        start = prev = nums[0]
        for n in [*nums[1:], None]:
            if n is not None and n == prev + 1:
                prev = n
                continue
            a, b = str(start).zfill(width), str(prev).zfill(width)
            spans.append(a if start == prev else f"{a}-{b}")
            if n is not None:
                start = prev = n
        out.append(f"{prefix}[{','.join(spans)}]{suffix}")
    out.extend(sorted(plain))
    return ",".join(out)


def read_hostfile(path: Path, budget: Optional[HostBudget] = None) -> list[Target]:
    """One host (or range) per line; ``#`` comments and blank lines ignored; ``user@host`` kept as is."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise BadInput(f"cannot read host file {path}: {exc.strerror or exc}") from None
    out: list[Target] = []
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        for word in line.split():
            out.extend(Target(name) for name in expand(word, budget))
    return out


_INV_VARS = ("ansible_host", "ansible_port", "ansible_user", "ansible_ssh_private_key_file")


def _target_from_vars(name: str, hostvars: dict[str, str]) -> Target:
    addr = hostvars.get("ansible_host")
    if addr is not None:
        validate_host(addr)
    port_s = hostvars.get("ansible_port")
    port: Optional[int] = None
    if port_s is not None:
        if not port_s.isdigit() or not 0 < int(port_s) < 65536:
            raise BadInput(f"inventory: host {name}: bad ansible_port {port_s!r}")
        port = int(port_s)
    user = hostvars.get("ansible_user")
    if user is not None and (user.startswith("-") or not re.fullmatch(r"[A-Za-z0-9_.][A-Za-z0-9_.-]*", user)):
        raise BadInput(f"inventory: host {name}: bad ansible_user {user!r}")
    key = hostvars.get("ansible_ssh_private_key_file")
    if key is not None and key.startswith("-"):
        raise BadInput(f"inventory: host {name}: bad ansible_ssh_private_key_file {key!r}")
    return Target(name=name, address=addr, port=port, user=user, identity=key)


def read_inventory(path: Path, budget: Optional[HostBudget] = None) -> list[Target]:
    """Hosts of an Ansible INI inventory (every group), with ansible_host/port/user/key honoured.

    ``[group:vars]`` apply to that group's hosts (``[all:vars]`` to all); ``[group:children]``
    sections name groups, not hosts. Ranges use Ansible's ``node[01:50]`` or our ``node[01-50]``.
    """
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise BadInput(f"cannot read inventory {path}: {exc.strerror or exc}") from None
    section = "ungrouped"
    kind = "hosts"
    hosts: dict[str, tuple[list[str], dict[str, str]]] = {}
    group_vars: dict[str, dict[str, str]] = {}
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]"):
            head = line[1:-1].strip()
            section, _, suffix = head.partition(":")
            kind = suffix or "hosts"
            continue
        try:
            words = shlex.split(line, comments=True)
        except ValueError as exc:
            raise BadInput(f"inventory {path}:{lineno}: {exc}") from None
        if not words:
            continue
        if kind == "vars":
            key, _, value = line.partition("=")
            if key.strip() in _INV_VARS:
                group_vars.setdefault(section, {})[key.strip()] = value.strip().strip("'\"")
            continue
        if kind != "hosts":
            continue
        hv = {}
        for w in words[1:]:
            k, eq, v = w.partition("=")
            if eq and k in _INV_VARS:
                hv[k] = v
        for name in expand(words[0], budget):
            groups, merged = hosts.setdefault(name, ([], {}))
            groups.append(section)
            merged.update(hv)
    out: list[Target] = []
    for name, (groups, hv) in hosts.items():
        merged = dict(group_vars.get("all", {}))
        for g in groups:
            merged.update(group_vars.get(g, {}))
        merged.update(hv)
        out.append(_target_from_vars(name, merged))
    return out


def collect_targets(
    hosts: list[str], hostfile: Optional[Path] = None, inventory: Optional[Path] = None
) -> list[Target]:
    """All targets from the command line, a host file and an inventory; duplicates dropped (first wins)."""
    out: list[Target] = []
    budget = HostBudget()  # one bound for the whole list, not per word
    for word in hosts:
        out.extend(Target(n) for n in expand(word, budget))
    if hostfile is not None:
        out.extend(read_hostfile(hostfile, budget))
    if inventory is not None:
        out.extend(read_inventory(inventory, budget))
    seen: dict[str, Target] = {}
    for t in out:
        seen.setdefault(t.name, t)
    if not seen:
        raise BadInput("no hosts given: name hosts, or use -f HOSTFILE or --inventory INI")
    return list(seen.values())
