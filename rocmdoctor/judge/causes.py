"""Root causes: group the findings that follow from one cause under it, and order the fixes.

A kernel the amdgpu-dkms cannot build on produces four findings (the breakage, the failed build, apport's
crash report, dpkg's error): that is one problem with four pieces of evidence, and its fix is the one to
try. Which finding explains which is data (``rocmdoctor/data/causes.toml``); this module only applies it.
Every finding is kept (JSON consumers see them all); a consequence gets ``Finding.cause`` = its root's id.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Optional

from rocmdoctor import datacache
from rocmdoctor.model import Finding, Severity
from rocmdoctor.paths import DATA_DIR

CAUSES_FILE = DATA_DIR / "causes.toml"
_PROBLEM = (Severity.WARN, Severity.FAIL, Severity.ERROR)
_QUIET = (Severity.OK, Severity.SKIP)


@dataclass(frozen=True)
class Rule:
    cause: str
    explains: frozenset[str]
    why: str = ""
    when: Severity = Severity.WARN  # the least severity of the cause for which the rule holds ("fail": only then)


@functools.lru_cache(maxsize=1)
def rules() -> tuple[Rule, ...]:
    """The rules in file order (empty when the data file is unreadable: findings then stay ungrouped)."""
    try:
        data = datacache.cached_table("causes", CAUSES_FILE)  # the parse; the rows are checked below
    except (OSError, ValueError):
        return ()
    out = []
    for row in data.get("rule", []):
        if isinstance(row, dict) and isinstance(row.get("cause"), str) and isinstance(row.get("explains"), list):
            when = Severity.FAIL if row.get("when") == "fail" else Severity.WARN
            out.append(Rule(row["cause"], frozenset(str(x) for x in row["explains"]), str(row.get("why", "")), when))
    return tuple(out)


def _order(cause_id: str) -> int:
    for i, r in enumerate(rules()):
        if r.cause == cause_id:
            return i
    return len(rules())


def assign(findings: list[Finding]) -> list[Finding]:
    """Set ``cause`` on every finding that follows from another reported problem; return the roots in the
    order their fixes should be tried (the first is the one to try first)."""
    present: dict[str, int] = {}  # reported problem id -> its highest severity rank
    for f in findings:
        if f.severity in _PROBLEM:
            present[f.id] = max(present.get(f.id, 0), f.severity.rank)
    direct: dict[str, str] = {}  # finding id -> the id that explains it
    for r in rules():
        if present.get(r.cause, -1) < r.when.rank:
            continue
        for fid in r.explains:
            if fid != r.cause and fid not in direct:
                direct[fid] = r.cause
    # A cause explained by a cause that is explained by ...: follow to the root (cycle-safe).

    def root(fid: str) -> Optional[str]:
        seen = {fid}
        cur = direct.get(fid)
        while cur is not None and cur in direct and direct[cur] not in seen:
            seen.add(cur)
            cur = direct[cur]
        return cur

    for f in findings:
        if f.severity in _QUIET or f.root:
            continue
        top = root(f.id)
        if top is not None and top != f.id:
            f.cause = top
    roots = [f for f in findings if f.severity in _PROBLEM and f.cause is None]
    roots.sort(key=lambda f: (-f.severity.rank, _order(f.id)))
    return roots


def chain(root: Finding, findings: list[Finding]) -> list[Finding]:
    """The findings that follow from ``root`` (its evidence), problems first."""
    out = [f for f in findings if f.cause == root.id and f is not root]
    out.sort(key=lambda f: -f.severity.rank)
    return out


def problems(findings: list[Finding]) -> list[dict]:
    """The JSON ``problems`` list: one entry per root cause, in the order to try the fixes."""
    roots = assign(findings)
    out: list[dict] = []
    seen: set[str] = set()
    for r in roots:
        if r.id in seen:
            continue
        seen.add(r.id)
        same = [f for f in roots if f.id == r.id]
        follows = chain(r, findings)
        worst = max([f.severity for f in same + follows if f.severity in _PROBLEM], key=lambda s: s.rank)
        out.append({"cause": r.id, "severity": worst.value, "title": r.title,
                    "findings": [f.id for f in same + follows], "try_first": not out})
    return out
