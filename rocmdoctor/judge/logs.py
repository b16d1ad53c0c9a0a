"""Known error signatures found in logs, pasted errors and captured stderr.

The signatures (regex, finding id, title, explanation, fix) are data in ``rocmdoctor/data/signatures.toml``;
the parser matches them and this check only turns each match into a finding.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

from rocmdoctor.judge.apps import APP_CONTEXT, app_lacks
from rocmdoctor.judge.facts import finding, native_gfx, override_value
from rocmdoctor.judge.health import UE_LOGGED
from rocmdoctor.judge.registry import check
from rocmdoctor.model import Finding, LogMatch, Severity
from rocmdoctor.parse.kfd import gfx_from_version
from rocmdoctor.parse.signatures import Signature, by_id, finding_titles, load_signatures

if TYPE_CHECKING:
    from rocmdoctor.matrix import Matrix
    from rocmdoctor.model import Host

CORE_IDS = ("log.no-binary-for-gpu", "log.invalid-device-function", "log.no-hip-gpus",
            "log.kfd-permission-denied", "log.dkms-build-error")


def signatures() -> Mapping[str, Signature]:
    """The signature table keyed by signature id (the one typed loader: rocmdoctor.parse.signatures)."""
    return by_id()


def _ids() -> tuple[str, ...]:
    ids = list(CORE_IDS)
    for sig in load_signatures():
        # any id: a signature may name a root cause of another area (driver.pcie-atomics, gpu.out-of-resources)
        if "." in sig.finding and sig.finding not in ids:
            ids.append(sig.finding)
    return tuple(ids)


def _igpu_only(host: Host) -> bool:
    """Every GPU the report names is an integrated one (an APU-only host)."""
    return bool(host.gpus) and all(g.is_apu for g in host.gpus)


def _override_explains(host: Host, matrix: Matrix, m: LogMatch) -> bool:
    """The program's own list of the targets it supports names the one this GPU's documented override maps to
    (TensorFlow ignoring a gfx1031 while listing gfx1030, legacy-rocm-build#2353), and no override is set: the cause
    is gpu.override-needed, and the line is its evidence, not a second failure."""
    gfx, listed = m.groups.get("gfx"), m.groups.get("supported")
    target = matrix.gpu(gfx) if gfx and listed else None
    return (target is not None and target.override is not None and not target.override_broken
            and override_value(host) is None
            and gfx_from_version(target.override) in re.findall(r"gfx[0-9a-f]{3,5}", listed or ""))


# what makes a report one of a run failing, for a signature's ``fine_beside``: the report telling of a crash or of no
# GPU, or a line of a signature whose own severity is fail (log_matches adds "failing-line")
_FAILING = frozenset({"crash-said", "no-gpu-said", "failing-line"})


def _finding(sig_id: str, matches: list[LogMatch], wsl: bool, igpu_only: bool = False,
             present: frozenset[str] = frozenset(), explained: bool = False,
             gfx: frozenset[str] = frozenset(), context: frozenset[str] = frozenset()) -> Finding:
    """One finding for one signature: the first match fills the placeholders, every line is evidence. ``context``:
    the report's context facts (Host.context keys: "windows", what a signature's ``fail_beside`` names)."""
    windows = "windows" in context
    first = matches[0]
    sig = by_id().get(sig_id)
    if explained and sig is not None:
        shown = sig.filled(first.groups)
        return finding(first.finding_id, Severity.INFO, shown.title, "The GPU runs a listed target's ISA: "
                       "the documented override is the fix (see gpu.override-needed).",
                       [str(m.source) if m.source else m.text.strip() for m in matches[:6]], None)
    evidence: list[str] = []
    for m in matches:
        line = str(m.source) if m.source else m.text.strip()
        if line not in evidence:
            evidence.append(line)
    times = f" ({len(matches)} times)" if len(matches) > 1 else ""
    if sig is None:  # a match from outside the table (an old bundle): report it as written
        return finding(first.finding_id, Severity.FAIL, sig_id + times, "", evidence, None)
    shown = sig.filled(first.groups)
    if present & set(sig.not_here_if):  # e.g. native Linux's rocminfo line quoted in a WSL report for comparison
        return finding(first.finding_id, Severity.INFO, shown.title + times, sig.not_here_note or shown.explanation,
                       evidence, None)
    if gfx and sig.fine_on_gfx and gfx <= set(sig.fine_on_gfx):  # every GPU known to have what the line lacks
        return finding(first.finding_id, Severity.INFO, shown.title + times, sig.fine_on_gfx_note or shown.explanation,
                       evidence, None)
    if wsl and sig.wsl_severity is not None:  # a message WSL always prints (amd-smi has no WSL backend)
        return finding(first.finding_id, sig.wsl_severity, shown.title + times, sig.wsl_note or shown.explanation,
                       evidence, None)
    if context & set(sig.moot_beside):  # the report shows why the line means no fault here (ollama#2392)
        return finding(first.finding_id, Severity.INFO, shown.title + times,
                       sig.moot_note or shown.explanation, evidence, None)
    severity = sig.severity_igpu_only if igpu_only and sig.severity_igpu_only is not None else sig.severity
    if context & set(sig.fail_beside):  # what the report says beside the line makes it the failure
        severity = Severity.FAIL
    elif severity == Severity.WARN and context & set(sig.fine_beside) and not context & _FAILING:
        # the report says its program works, and no line shows a run failing: the fallback served it
        return finding(first.finding_id, Severity.INFO, shown.title + times, shown.explanation
                       + " The report says the program works, so the run got past it.", evidence, None)
    why = sig.windows_note if windows and sig.windows_note else shown.explanation
    return finding(first.finding_id, severity, shown.title + times, why, evidence,
                   sig.fix_for(first.groups, wsl, windows))


def log_matches(host: Host, matrix: Matrix, finding_id: str | None = None) -> list[Finding]:
    """One finding per matched signature (only ``finding_id``'s when given), every matching line as evidence."""
    from rocmdoctor.judge.context import shadowed, started_without_kfd

    by_signature: dict[str, list[LogMatch]] = {}
    for m in host.logs:
        if finding_id is not None and m.finding_id != finding_id:
            continue
        if shadowed(host, matrix, m):
            continue  # the line's path says: system libraries loaded (rocm.system-libs-shadow-wheel), not a GPU gap
        by_signature.setdefault(m.signature, []).append(m)
    table = by_id()
    for sig_id in [k for k in by_signature if (s := table.get(k)) is not None and s.generic]:
        specific = next((k for k in by_signature if k != sig_id and (o := table.get(k)) is not None and not o.generic
                         and o.finding == table[sig_id].finding), None)
        if specific is not None:  # the specific one explains it: its lines are evidence, not a second finding
            by_signature[specific] += by_signature.pop(sig_id)
    alone = _igpu_only(host)
    present = frozenset(m.signature for m in host.logs)
    gfx = frozenset(g for g in (native_gfx(x) for x in host.gpus) if g)
    failing = any((s := table.get(m.signature)) is not None and s.severity == Severity.FAIL for m in host.logs)
    judged = {"failing-line": failing,
              # a reset after it is RAS recovery, not a hang
              "ras-uncorrectable-logged": any(UE_LOGGED.search(d.value) for d in host.dmesg),
              # rocminfo in it cannot see the host's module (robertrosenbusch/gfx803_rocm#6)
              "container-started-without-kfd": started_without_kfd(host)}
    context = frozenset(host.context) | {k for k, v in judged.items() if v}
    return [_finding(sig_id, matches, host.kernel.is_wsl, alone, present,
                     all(_override_explains(host, matrix, m) for m in matches), gfx, context)
            for sig_id, matches in by_signature.items()]


APP_FINDINGS = frozenset(fid for _, fid in APP_CONTEXT.values()) - {"torch.arch-missing"}


def _register() -> None:
    """One check per known error (so each can be selected or skipped by its id)."""
    titles = finding_titles()  # the table's [titles]: one per finding id (tests/test_docs.py: docs match)
    for fid in _ids():

        def run(host: Host, matrix: Matrix, fid: str = fid) -> list[Finding]:
            # a GPU library's own list (matrices/apps.toml: hipDF) names the same fault as its error line would
            return log_matches(host, matrix, fid) + (app_lacks(host, matrix, fid) if fid in APP_FINDINGS else [])

        check(fid, title=titles.get(fid) or f"Known error: {fid.split('.', 1)[1].replace('-', ' ')}")(run)


_register()
