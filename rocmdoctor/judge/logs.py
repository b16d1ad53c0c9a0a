"""Known error signatures found in logs, pasted errors and captured stderr.

The signatures (regex, finding id, title, explanation, fix) are data in ``rocmdoctor/data/signatures.toml``;
the parser matches them and this check only turns each match into a finding.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from rocmdoctor.judge.facts import finding
from rocmdoctor.judge.registry import check
from rocmdoctor.model import Finding, Fix, Severity
from rocmdoctor.parse.logs import Placeholders
from rocmdoctor.paths import DATA_DIR

if TYPE_CHECKING:
    from rocmdoctor.matrix import Matrix
    from rocmdoctor.model import Host

CORE_IDS = ("log.no-binary-for-gpu", "log.invalid-device-function", "log.no-hip-gpus",
            "log.kfd-permission-denied", "log.dkms-build-error")


@functools.lru_cache(maxsize=1)
def signatures() -> dict[str, dict[str, Any]]:
    """Signature table keyed by signature id (empty when the data file is missing or unreadable)."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python < 3.11
        import tomli as tomllib  # type: ignore[no-redef]
    try:
        data = tomllib.loads((DATA_DIR / "signatures.toml").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    rows = data.get("signature") or data.get("signatures") or []
    if isinstance(rows, dict):
        rows = [dict(v, id=k) for k, v in rows.items()]
    return {str(r.get("id")): r for r in rows if isinstance(r, dict)}


def _ids() -> tuple[str, ...]:
    ids = list(CORE_IDS)
    for row in signatures().values():
        fid = row.get("finding")
        # any id: a signature may name a root cause of another area (driver.pcie-atomics, gpu.out-of-resources)
        if isinstance(fid, str) and "." in fid and fid not in ids:
            ids.append(fid)
    return tuple(ids)


def _fix(row: dict[str, Any], groups: dict[str, str], wsl: bool = False) -> Fix | None:
    fix = row.get("fix")
    cmds = row.get("commands") or row.get("fix_commands") or []
    if isinstance(fix, dict):
        cmds = fix.get("commands", cmds)
        text = fix.get("explanation") or fix.get("text") or ""
        url = fix.get("url")
    else:
        text, url = (fix or ""), row.get("url")
    if not (text or cmds):
        return None
    fmt = Placeholders(groups)
    commands = [str(c).format_map(fmt) for c in cmds]
    if wsl:  # WSL has no amdgpu module to load: never offer modprobe there
        commands = [c for c in commands if "modprobe" not in c]
    return Fix(str(text).format_map(fmt), commands, url)


def log_matches(host: Host, matrix: Matrix, finding_id: str | None = None) -> list[Finding]:
    """One finding per matched signature (only ``finding_id``'s when given), every matching line as evidence."""
    table = signatures()
    from rocmdoctor.judge.context import shadowed

    by_signature: dict[str, list] = {}
    for m in host.logs:
        if finding_id is not None and m.finding_id != finding_id:
            continue
        if shadowed(host, matrix, m):
            continue  # the line's path says: system libraries loaded (rocm.system-libs-shadow-wheel), not a GPU gap
        by_signature.setdefault(m.signature, []).append(m)
    out: list[Finding] = []
    for signature, matches in by_signature.items():
        first = matches[0]
        row = table.get(signature, {})
        sev = str(row.get("severity", "fail")).lower()
        fmt = Placeholders(first.groups)
        title = str(row.get("title", signature)).format_map(fmt)
        detail = str(row.get("explanation", row.get("detail", ""))).format_map(fmt)
        evidence: list[str] = []
        for m in matches:
            line = str(m.source) if m.source else m.text.strip()
            if line not in evidence:
                evidence.append(line)
        if len(matches) > 1:
            title += f" ({len(matches)} times)"
        out.append(finding(first.finding_id, Severity(sev) if sev in Severity._value2member_map_ else Severity.FAIL,
                           title, detail, evidence, _fix(row, first.groups, host.kernel.is_wsl)))
    return out


def _register() -> None:
    """One check per known error (so each can be selected or skipped by its id)."""
    titles = {str(r.get("finding")): str(r.get("title", "")) for r in signatures().values()}
    for fid in _ids():

        def run(host: Host, matrix: Matrix, fid: str = fid) -> list[Finding]:
            return log_matches(host, matrix, fid)

        label = titles.get(fid) or fid.split(".", 1)[1].replace("-", " ")
        check(fid, title=f"Known error: {label.split('{')[0].strip()}")(run)


_register()
