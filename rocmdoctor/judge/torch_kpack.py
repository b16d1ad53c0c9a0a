"""torch.arch-missing read from torch's own code-object pack: TheRock's device packages carry torch's GPU code per
target in ``torch_<gfx>[:feature±].kpack`` files, and a report naming one of them beside HIP's refusal to load a code
object (``hipErrorInvalidImage``) says the pack for the GPU cannot be used: torch has no usable code for it.

ROCm/TheRock#7081: Torch 2.12's gfx90a device package shipped empty ``torch_gfx90a:xnack+.kpack`` and
``torch_gfx90a:xnack-.kpack`` stubs; an MI250 (gfx90a:xnack-) picked the empty one and every kernel failed with
hipErrorInvalidImage until they were removed (fixed in ROCm/pytorch#3581).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Optional

from rocmdoctor.judge.facts import finding
from rocmdoctor.model import Finding, Fix, Severity

if TYPE_CHECKING:
    from rocmdoctor.model import Host

_GFX = re.compile(r"gfx[0-9a-f]{3,5}")


def kpack_unusable(host: Host) -> Optional[Finding]:
    """A FAIL when the report names torch's kpack for a target and HIP refused a code object; None otherwise."""
    pack = host.context.get("torch-kpack")
    refused = next((m for m in host.logs if m.finding_id == "log.hip-invalid-image"), None)
    if pack is None or refused is None:
        return None
    target = _GFX.search(pack.value)
    gfx = target.group(0) if target else "its target"
    return finding(
        "torch.arch-missing", Severity.FAIL,
        f"torch's code objects for {gfx} cannot be loaded (the report names {pack.value})",
        f"TheRock's torch device package carries torch's GPU code for {gfx} in {pack.value}; HIP refused the code "
        "object it loaded (hipErrorInvalidImage), so torch has no usable code for this GPU and every kernel fails. "
        "A pack that is empty, or one for another feature variant (xnack±) of the target, does this.",
        [str(pack.source), str(refused.source or refused.text)],
        Fix("Install the torch device package of a release with a working pack for this GPU (or the previous torch "
            "release); moving the unusable .kpack file aside is the stopgap the report found.", []),
    )
