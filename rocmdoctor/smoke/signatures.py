"""Known errors in the smoke program's output, and the fix ``rocmdoctor check`` gives for each.

One source of truth: lines are matched by the scanner that ``check`` parses logs with
(:func:`rocmdoctor.parse.logs.scan`), and a match's fix is built by ``check``'s own log check
(:func:`rocmdoctor.judge.logs.log_matches`) on a host that holds only that line. Smoke used to build fixes
from the signature's explanation itself and showed other advice than ``check`` for the same error.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

from rocmdoctor.model import Fix, Host, KernelInfo, LogMatch
from rocmdoctor.parse.logs import Signature, scan, signature

if TYPE_CHECKING:
    from rocmdoctor.matrix import Matrix


@dataclass(frozen=True)
class SignatureHit:
    """One known error found in a run's stderr or a failed check's text."""

    signature: Signature  # its {group} placeholders (``{gfx}``, ``{lib}``) filled from the match
    match: LogMatch

    @property
    def line(self) -> str:
        return self.match.text


def scan_signatures(text: str) -> list[SignatureHit]:
    """Each known signature in ``text``, in line order (a line no signature knows is no hit)."""
    if not text.strip():
        return []
    out = []
    for m in scan(text, "smoke-stderr"):
        sig = signature(m.signature)
        if sig is not None:
            out.append(SignatureHit(sig.filled(m.groups or {}), m))
    return out


def check_fix(hit: SignatureHit, host: Optional[Host], matrix: Optional[Matrix]) -> Optional[Fix]:
    """The fix ``check`` shows for this line: its log check run on a host with only this line (and this host's
    kernel, so that a WSL host is not told to modprobe). None when the table has no fix for it."""
    from rocmdoctor.judge.logs import log_matches

    if matrix is None:
        from rocmdoctor.matrix import load

        matrix = load()
    probe = Host(kernel=host.kernel if host is not None else KernelInfo(), logs=[hit.match])
    found = log_matches(probe, matrix, hit.match.finding_id)
    if not found:  # check reads the line as another problem (a system rocBLAS shadowing the wheel's): the
        wsl = probe.kernel.is_wsl  # signature's own fix, built by the loader exactly as check builds it
        return hit.signature.fix_for(dict(hit.match.groups or {}), wsl=wsl)
    fix = found[0].fix
    return None if fix is None else Fix(fix.explanation, list(fix.commands), fix.url)
