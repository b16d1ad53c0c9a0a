"""Host lists: ranges (``node[001-128]``), host files, Ansible INI inventories, and folding back.

Every name that reaches ``ssh`` passes :func:`validate_host` first: a name that starts with ``-`` could
be read as an option (``-oProxyCommand=...`` runs a command locally), so it is refused with exit 2
before any connection is made (the transport also puts ``--`` before the destination).
"""

from __future__ import annotations

import itertools
import os
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
MAX_EXPANDED = LIMITS["hosts"]  # the whole list's bound (rocmdoctor.limits)


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
        if hi - lo + len(parts) >= MAX_EXPANDED:
            raise BadInput(f"bad host range {text!r}: more than {MAX_EXPANDED} hosts")
        # Slurm/ClusterShell: the lower bound's digits set the width ("01-10" -> 01..10, "1-10" unpadded)
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


def split_list(text: str) -> list[str]:
    """Split a Slurm host list at the commas that are outside brackets: ``a[1,2],b`` -> ``a[1,2]``, ``b``."""
    out: list[str] = []
    depth, start = 0, 0
    for i, ch in enumerate(text):
        if ch == "[":
            depth += 1
            if depth > 1:
                raise BadInput(f"bad host range {text[:80]!r}: nested brackets")
        elif ch == "]":
            depth -= 1
            if depth < 0:
                raise BadInput(f"bad host range {text[:80]!r}: unbalanced brackets")
        elif ch == "," and depth == 0:
            out.append(text[start:i])
            start = i + 1
    if depth != 0:
        raise BadInput(f"bad host range {text[:80]!r}: unbalanced brackets")
    out.append(text[start:])
    return [w.strip() for w in out if w.strip()] if len(out) > 1 else [text.strip()]


def _expand_one(text: str, budget: HostBudget) -> list[str]:
    """One host pattern with any number of bracket groups (``n[1-2]-ib[3-4]``): their product, in order.

    Iterative, and sized before anything is built: the product of the groups' sizes is charged to
    ``budget`` (one for the whole host list) before a single name is made, so ``n[1-99999][1-99999]``
    is refused without building it.
    """
    if text.startswith("-"):
        validate_host(text)
    groups = list(_RANGE.finditer(text))
    if len(groups) > LIMITS["host-range-groups"]:
        raise LimitExceeded("host-range-groups", f"host pattern {text[:80]!r}... has {len(groups):,} bracket groups")
    pieces: list[list[str]] = []
    pos = 0
    for m in groups:
        pieces.append([text[pos:m.start()]])
        pieces.append(_expand_group(m.group(1), text))
        pos = m.end()
    pieces.append([text[pos:]])
    if any("[" in p[0] or "]" in p[0] for p in pieces[::2]):
        raise BadInput(f"bad host range {text[:200]!r}: unbalanced brackets")
    total = 1
    for p in pieces:
        total *= len(p)
        if total > LIMITS["hosts"]:
            break
    budget.take(total, text)
    return [validate_host("".join(combo)) for combo in itertools.product(*pieces)]


def expand(text: str, budget: Optional[HostBudget] = None) -> list[str]:
    """A Slurm/pdsh host list -> names: ``node[001-003,7],gpu[1-2]`` -> ``node001 node002 node003 node7 gpu1
    gpu2`` (commas separate hosts outside brackets and items inside them; several bracket groups multiply
    out; ``01-10`` keeps the width). At most ``LIMITS["hosts"]`` names for the whole list (``budget``)."""
    budget = budget or HostBudget()
    out: list[str] = []
    for word in split_list(text.strip()):
        out.extend(_expand_one(word, budget))
    return out


def from_environment(env: Optional[dict[str, str]] = None) -> list[str]:
    """``SLURM_JOB_NODELIST`` (inside an allocation, when no hosts are named), expanded; [] outside Slurm."""
    value = (env if env is not None else os.environ).get("SLURM_JOB_NODELIST", "").strip()
    return expand(value) if value else []


def natural_key(name: str) -> tuple:
    # isdecimal, not isdigit: "²" is a digit that int() refuses (hypothesis found it in a host name)
    return tuple((0, int(tok), len(tok)) if tok.isdecimal() else (1, tok, 0) for tok in re.split(r"(\d+)", name))


def natural_sorted(names: list[str]) -> list[str]:
    """node2 before node10."""
    return sorted(names, key=natural_key)


def _spans(nums: list[int], width: int) -> str:
    """``[1, 2, 3, 7]`` -> ``1-3,7`` (zero-padded to ``width``)."""
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
    return ",".join(spans)


def _fold(rows: set[tuple[int, ...]]) -> list[list[tuple[int, ...]]]:
    """Cover a set of index tuples with products of per-axis value sets (each pattern a list of sorted axes).

    Fold the last axis first: rows that share everything before it and the same set of last values form one
    group; the prefixes of each group are folded recursively. Every pattern expands to rows of the set and
    together they expand to exactly the set.
    """
    if not rows:
        return []
    if len(next(iter(rows))) == 1:
        return [[tuple(sorted(r[0] for r in rows))]]
    by_prefix: dict[tuple[int, ...], set[int]] = {}
    for r in rows:
        by_prefix.setdefault(r[:-1], set()).add(r[-1])
    by_last: dict[tuple[int, ...], set[tuple[int, ...]]] = {}
    for prefix, lasts in by_prefix.items():
        by_last.setdefault(tuple(sorted(lasts)), set()).add(prefix)
    out: list[list[tuple[int, ...]]] = []
    for last_values, prefixes in by_last.items():
        out.extend([*pattern, last_values] for pattern in _fold(prefixes))
    return out


def compress(names: list[str]) -> str:
    """Fold host names back into a host list, in every dimension: ``n1-ib3 n1-ib4 n2-ib3 n2-ib4`` ->
    ``n[1-2]-ib[3-4]``, ``node003 node017 node018`` -> ``node[003,017-018]``.

    Names group by their text between digit runs and by each run's zero-padding (``node7`` and ``node007``
    never merge); groups are joined with ``,`` like ClusterShell's nodeset and Slurm.
    """
    shapes: dict[tuple[tuple[str, ...], tuple[int, ...]], set[tuple[int, ...]]] = {}
    plain: list[str] = []
    for name in dict.fromkeys(names):
        parts = re.split(r"(\d+)", name)
        texts, digits = tuple(parts[0::2]), parts[1::2]
        if not digits:
            plain.append(name)
            continue
        widths = tuple(len(d) if d.startswith("0") and len(d) > 1 else 0 for d in digits)
        shapes.setdefault((texts, widths), set()).add(tuple(int(d) for d in digits))
    out: list[tuple[tuple, str]] = []
    for (texts, widths), rows in shapes.items():
        for pattern in _fold(rows):
            text = texts[0]
            for axis, values in enumerate(pattern):
                inner = _spans(list(values), widths[axis])
                text += (inner if len(values) == 1 else f"[{inner}]") + texts[axis + 1]
            out.append((natural_key(text.replace("[", "").replace("]", "")), text))
    return ",".join([t for _k, t in sorted(out)] + sorted(plain))


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
    if not hosts and hostfile is None and inventory is None:
        out.extend(Target(n) for n in from_environment())  # inside a Slurm allocation: its nodes
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
        raise BadInput("no hosts given: name hosts, use -f HOSTFILE or --inventory INI, or run inside a Slurm "
                       "allocation (SLURM_JOB_NODELIST)")
    return list(seen.values())
