"""torch.arch-missing while torch itself never loaded: the verdict from a table is then a warning.

A torch wheel whose gfx list (its index, its data row) lacks the GPU's target will abort its kernels, but a report in
which ``import torch`` stopped on one of torch's own libraries (``Error loading "...\\torch\\lib\\fbgemm.dll" or one
of its dependencies``) never ran a kernel: the missing code objects are likely, not shown, and the library that did
not load is what broke the run (fixtures/README.md judging rule 17; ROCm/TheRock#1167, a Radeon 860M, gfx1152, with
the gfx1151 index's torch, where AMD fixed the import by installing the MSVC build tools).
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING, Optional

from rocmdoctor.model import Finding, LogMatch, Severity

if TYPE_CHECKING:
    from rocmdoctor.model import Host

# one of torch's own libraries, under site-packages/torch/lib (Windows or POSIX separators)
_TORCH_LIB = re.compile(r"site-packages[\\/]+torch[\\/]+lib[\\/]+[\w.+-]{1,80}\.(?:dll|so)\b", re.I)


def torch_unloaded(host: Host) -> Optional[LogMatch]:
    """The missing-library line that stopped torch's own libraries from loading, or None."""
    return next((m for m in host.logs if m.finding_id == "log.missing-shared-library" and _TORCH_LIB.search(m.text)),
                None)


def unproven(found: list[Finding], host: Host) -> list[Finding]:
    """``found`` (table-derived torch.arch-missing fails), as warnings when torch never loaded in the report."""
    stop = torch_unloaded(host)
    if stop is None:
        return found
    why = (" torch did not load here (one of its own libraries failed first, the evidence's last line), so no "
           "kernel has run: the missing code objects are likely, not shown.")
    where = str(stop.source) if stop.source else stop.text
    return [dataclasses.replace(f, severity=Severity.WARN, detail=f.detail + why, evidence=[*f.evidence, where])
            if f.severity == Severity.FAIL else f for f in found]
