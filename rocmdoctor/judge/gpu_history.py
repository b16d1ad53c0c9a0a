"""ROCm releases older than rocmdoctor's GPU lists: which of them a verdict can still be given for.

The data's per-release GPU lists start at ROCm 5.6; a report on ROCm 4.2 is normally not judged. A GPU family that
no ROCm release ever listed is the exception: whatever the older release, it did not support it either.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from rocmdoctor.judge.facts import finding, gpu_label
from rocmdoctor.judge.gpu_evidence import gpu_evidence, runs_here, works_here
from rocmdoctor.model import Fix, Severity

if TYPE_CHECKING:
    from rocmdoctor.judge.facts import RocmContext
    from rocmdoctor.matrix import GpuTarget, Matrix
    from rocmdoctor.model import Finding, GpuInfo, Host

SUPPORT_URL = "https://rocm.docs.amd.com/projects/install-on-linux/en/latest/reference/system-requirements.html"

#: The GPU families ROCm 2.x-4.x named as officially supported or "enabled" ("GFX7 'Hawaii'", "GFX8 'Fiji' /
#: 'Polaris'", "GFX9 'Vega 10' / 'Vega 7nm'", "CDNA MI100"; "the integrated GPUs of Ryzen are not officially
#: supported targets"): the README of github.com/RadeonOpenCompute/ROCm, section "Hardware and Software Support",
#: from ROCm 2.0 to 4.x. ROCm 5.0's notes add the first RDNA target (Radeon Pro W6800/V620, gfx1030).
OLD_README_FAMILIES = frozenset({"GCN2", "GCN3", "GCN5", "CDNA1"})


def older_than_data(matrix: Matrix, version: str) -> bool:
    """A release before the oldest GPU list the matrix holds (ROCm 1.8 in an old rocminfo path, or 3.5 between the
    2.x entries, which carry OS/kernel lists only (gfx_known = false), and 5.x): never judged."""
    from rocmdoctor.judge.facts import _vkey

    known = [r.version for r in matrix.releases.values() if r.gfx_known]
    return bool(known) and _vkey(version) < min(_vkey(v) for v in known)


def never_listed_family(matrix: Matrix, target: Optional[GpuTarget]) -> bool:
    """A discrete GPU family no ROCm release listed: none of its targets is in any release's list in the data
    (5.6 and later), nor was the family among those ROCm's README named before that (RDNA1: gfx1010-gfx1012)."""
    if target is None or target.is_apu or target.override or not target.family:
        return False
    if target.family in OLD_README_FAMILIES:
        return False
    family = [gfx for gfx, t in matrix.gpus.items() if t.family == target.family]
    return bool(family) and not any(matrix.releases_supporting(gfx=gfx) for gfx in family)


def older_release_never_listed(host: Host, matrix: Matrix, ctx: RocmContext, gpu: GpuInfo, gfx: str,
                               target: Optional[GpuTarget]) -> Optional[Finding]:
    """A ROCm older than the data's GPU lists (ROCm 4.2 in a rocm/tensorflow image) with a GPU whose family no ROCm
    release ever listed (an RX 5600 XT, gfx1010): unsupported, the release's own list notwithstanding. Not where
    the report shows the GPU running, or a distribution's own ROCm build (Arch's packages carry gfx1010)
    (ROCm/tensorflow-upstream#1398: 'ROCm didnot support gfx1010'; AMD: 'GFX 1010 is not supported')."""
    if not never_listed_family(matrix, target) or target is None:
        return None
    if runs_here(host, gpu) or works_here(host) is not None or "distro-rocm" in host.context:
        return None
    return finding(
        "gpu.arch-unsupported", Severity.FAIL,
        f"{gpu_label(gpu)} is not supported by ROCm {ctx.version}",
        f"No ROCm release lists a {target.family} GPU: not ROCm 2.x-4.x (their lists name GFX7/GFX8/GFX9 and MI100), "
        f"nor any release since {first_listing(matrix)}; AMD's libraries carry no {gfx} code ({ctx.why}).",
        gpu_evidence(gpu),
        Fix("No prebuilt ROCm, PyTorch or TensorFlow image supports this GPU: use a supported card, or a build of "
            f"the stack made for {gfx}.", [f"rocmdoctor matrix show --gpu {gfx}"], SUPPORT_URL),
    )


def first_listing(matrix: Matrix) -> str:
    """The oldest ROCm release whose GPU list the data holds (older releases, e.g. 3.x with gfx803, are not in it)."""
    from rocmdoctor.judge.facts import _vkey

    known = [r.version for r in matrix.releases.values() if r.gfx_known]
    return min(known, key=_vkey) if known else "?"
