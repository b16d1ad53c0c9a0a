"""Why no wheel fits, and what to do instead: :class:`Refused` and the sentences it carries.

Split from :mod:`rocmdoctor.install.resolve` (which decides) because a refusal is the part a user reads
most closely: the root cause first (no build for this Python, no code objects for this GPU, GPUs that need
different overrides), then the alternatives in the order worth trying.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from typing import Optional

from rocmdoctor.errors import OperationFailed
from rocmdoctor.install.plan import Rejected
from rocmdoctor.matrix import Matrix, TorchVariant
from rocmdoctor.model import GpuInfo


class Reject(Enum):
    """Why a candidate build was rejected; the set of these over all candidates picks the refusal's root cause."""

    PYTHON = "python"  # no wheel for the target Python
    GPU = "gpu"  # no code objects for a GPU, natively or through an override
    MIXED = "mixed"  # the GPUs need different overrides (one global setting)
    DRIVER = "driver"  # the kernel driver is outside the ROCm release's support window
    COMPANION = "companion"  # no torchvision/torchaudio build published with it


class Refused(OperationFailed):
    """No wheel fits this host: the message says why; ``alternatives`` say what to do instead (exit 1)."""

    def __init__(self, message: str, rejected: list[Rejected], alternatives: list[str]) -> None:
        super().__init__(message)
        self.rejected = rejected
        self.alternatives = alternatives

    def to_dict(self) -> dict[str, object]:
        """The ``--json`` form of a refusal (same schema name as a plan, ``refused: true``)."""
        return {
            "schema": "rocmdoctor-plan/1",
            "refused": True,
            "error": str(self),
            "alternatives": list(self.alternatives),
            "rejected": [{"candidate": r.candidate, "reason": r.reason} for r in self.rejected],
        }


def refusal_for(
    python: str, targets: list[GpuInfo], rejected: list[Rejected], kinds: set[Reject], variants: list[TorchVariant],
    spec_text: str,
) -> Refused:
    if not variants:
        return Refused(
            f"No PyTorch ROCm release in the matrix matches {spec_text}.",
            [], ["relax --torch / --rocm / --channel", "run `rocmdoctor matrix` to see the known releases"],
        )
    if kinds == {Reject.PYTHON} or (Reject.PYTHON in kinds and not any(python in v.pythons for v in variants)):
        # No build at all for this Python: that is the root cause, whatever else was rejected.
        pythons = sorted({p for v in variants for p in v.pythons if re.fullmatch(r"\d+\.\d+", p)},
                         key=lambda p: tuple(int(x) for x in p.split(".")))
        return Refused(
            f"No PyTorch ROCm wheel exists for Python {python}. Wheels exist for Python {', '.join(pythons)}.",
            rejected,
            [f"create a virtual environment with Python {pythons[-1]} (e.g. `python{pythons[-1]} -m venv .venv`) "
             "and run again with --python .venv/bin/python"],
        )
    if Reject.GPU in kinds:
        missing = sorted({g.gfx for g in targets if g.gfx and not any(g.gfx.lower() in v.gfx for v in variants)})
        supported = sorted({g for v in variants for g in v.gfx})
        what = ", ".join(missing) if missing else "the GPU(s)"
        return Refused(
            f"No PyTorch ROCm wheel ({spec_text}) has code objects for {what}, and no known "
            "HSA_OVERRIDE_GFX_VERSION makes one work. rocmdoctor will not install a CPU-only wheel instead.",
            rejected,
            [
                f"build PyTorch from source with PYTORCH_ROCM_ARCH={missing[0] if missing else 'gfxNNNN'} "
                "(https://github.com/ROCm/pytorch, see its README)",
                f"use a GPU that the wheels support ({', '.join(supported)})",
                "if you only need the CPU, install the CPU wheel yourself: it will not use this GPU",
            ],
        )
    if Reject.MIXED in kinds:
        return Refused(
            "The visible GPUs need different gfx targets and at least one needs HSA_OVERRIDE_GFX_VERSION, which is a "
            "single global setting: it would break the other GPUs.",
            rejected,
            ["hide the GPUs you will not use with HIP_VISIBLE_DEVICES/ROCR_VISIBLE_DEVICES and run again",
             "run one process per GPU type, each with its own visible devices and override"],
        )
    return Refused(
        f"No PyTorch ROCm build matching {spec_text} fits this host (see the rejected candidates).",
        rejected,
        ["relax --torch / --rocm", "update the kernel driver (amdgpu-dkms) to a ROCm release the wheels support"],
    )


@dataclass(frozen=True)
class RefusalContext:
    """What the alternatives depend on: the matrix, the user's options, the Python, the GPUs' gfx targets."""

    matrix: Matrix
    python: str
    need: list[str]  # lower-case gfx targets of the GPUs the wheel must run on
    torch_spec: Optional[str]  # the user's --torch, --rocm and --channel
    rocm: Optional[str]
    channel: str


def add_alternatives(refusal: Refused, ctx: RefusalContext, kinds: set[Reject]) -> None:
    """Put the ways forward that other builds offer first: a torch release that carries the GPU, TheRock."""
    matrix, python = ctx.matrix, ctx.python
    if Reject.GPU in kinds and ctx.torch_spec:
        # the gfx list is per torch release: say which release of this channel does carry the GPU
        need = set(ctx.need)
        later = [v for v in matrix.torch_variants(rocm=ctx.rocm, channel=ctx.channel)
                 if need <= set(v.gfx) and python in v.pythons]
        if later:
            refusal.alternatives.insert(0, (
                f"torch {later[0].torch} (ROCm {later[0].rocm}) on the {ctx.channel} channel has code for "
                f"{', '.join(sorted(need))}: run again with --torch {'.'.join(later[0].torch.split('.')[:2])}"))
    if Reject.GPU in kinds and ctx.channel != "therock":
        missing = sorted(set(ctx.need))
        rock = [g for g in missing if matrix.torch_variants(gfx=g, channel="therock")]
        if rock:
            only = not any(matrix.torch_variants(gfx=g, channel="pytorch") for g in rock)
            refusal.alternatives.insert(0 if only else len(refusal.alternatives), (
                f"use AMD's TheRock channel (--channel therock): its multi-arch index has code for {', '.join(rock)} "
                f"via the extra torch[{','.join('device-' + g for g in rock)}]"))
