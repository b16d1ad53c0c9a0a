"""torch.arch-missing read from HIP refusing torch's code object (``hipErrorInvalidImage``). From torch's own
code-object pack: TheRock's device packages carry torch's GPU code per
target in ``torch_<gfx>[:feature±].kpack`` files, and a report naming one of them beside HIP's refusal to load a code
object (``hipErrorInvalidImage``) says the pack for the GPU cannot be used: torch has no usable code for it.

ROCm/TheRock#7081: Torch 2.12's gfx90a device package shipped empty ``torch_gfx90a:xnack+.kpack`` and
``torch_gfx90a:xnack-.kpack`` stubs; an MI250 (gfx90a:xnack-) picked the empty one and every kernel failed with
hipErrorInvalidImage until they were removed (fixed in ROCm/pytorch#3581).

Or from the GPU: a target that AMD's torch builds never carry (one that runs another target's code under
HSA_OVERRIDE_GFX_VERSION) refused with hipErrorInvalidImage, no override set. A missing override shows as
hipErrorNoBinaryForGpu or 'invalid device function'; an invalid image is the runtime of a per-GPU-family build
(TheRock's, kpack) finding no usable code for the device in the build installed, and the fix is the build for the GPU's
family (patientx/ComfyUI-Zluda#431: gfx1030/gfx1032 wheels on an RX 6750 XT, gfx1031, "HIP error: device kernel image
is invalid"; the gfx103X-all build runs it, patientx/ComfyUI-Zluda#435).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Optional

from rocmdoctor.judge.facts import discrete_gpus, finding, gpu_label, native_gfx, override_value
from rocmdoctor.model import Finding, Fix, Severity

if TYPE_CHECKING:
    from rocmdoctor.matrix import Matrix
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


def image_refused(host: Host, matrix: Matrix) -> Optional[Finding]:
    """A FAIL when HIP refused a code object (hipErrorInvalidImage) on the one discrete GPU, whose target AMD's torch
    builds carry only through an override, with no override set and no torch arch list naming the target."""
    refused = next((m for m in host.logs if m.finding_id == "log.hip-invalid-image"), None)
    gpus = discrete_gpus(host)
    gfx = native_gfx(gpus[0]) if refused is not None and len(gpus) == 1 else None
    target = matrix.gpu(gfx) if gfx else None
    if refused is None or target is None or not target.override or override_value(host) \
            or "torch-kpack" in host.context:
        return None
    t = host.torch
    if t is not None and any(a.split(":")[0] == gfx for a in t.arch_list):
        return None
    return finding(
        "torch.arch-missing", Severity.FAIL,
        f"The torch build in use has no usable code objects for {gpu_label(gpus[0])}",
        f"HIP refused the code object torch loaded (hipErrorInvalidImage): the build installed carries code for other "
        f"targets, not {gfx}. AMD's torch builds run {gfx} only through HSA_OVERRIDE_GFX_VERSION={target.override} "
        "(another target's code); a per-GPU-family build (TheRock's) that includes it runs it natively.",
        [str(refused.source or refused.text), *(str(s) for s in gpus[0].sources[:1])],
        Fix(f"Install the torch build for this GPU's family (one whose targets include {gfx}), e.g. TheRock's "
            "per-family index:", [f"rocmdoctor matrix show --gpu {gfx}"]),
    )
