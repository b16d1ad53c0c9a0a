"""gpu.override-needed for a GPU the report never names: a prebuilt Python GPU stack (a pip PyTorch) says it has no
code object for the GPU, and nothing in the report set an override or built the stack itself.

The prebuilt ROCm wheels carry the flagship target of each consumer generation (gfx1030, gfx1100) and the Instinct
ones; the consumer cards that hit 'hipErrorNoBinaryForGpu' with them are, overwhelmingly, their siblings (an RX 6700
XT, an RX 7600 XT, a Steam Deck), which run the flagship's code under HSA_OVERRIDE_GFX_VERSION. Maintainers answer
such a report with the override before they know the card (oobabooga/textgen#5: "Can you try running this command
before starting the webui? export HSA_OVERRIDE_GFX_VERSION=10.3.0", confirmed by the reporter), and so did the
threads of ROCm/legacy-rocm-build#1815 (a Steam Deck), #2914 (an RX 7600 XT, 11.0.0) and gbtb/nix-stable-diffusion#10
(an RX 5700 XT). Split from judge/gpu.py (500-line limit).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from rocmdoctor.judge.facts import finding
from rocmdoctor.judge.gpu_evidence import override_helps
from rocmdoctor.model import Finding, Fix, Severity

if TYPE_CHECKING:
    from rocmdoctor.model import Host

# what says the stack was not a prebuilt one, or that the override cannot apply: another framework built from source,
# the report's own build targets or extension build, a distribution's ROCm (it builds the sibling targets itself),
# native Windows, WSL and ZLUDA (nothing reads the override there)
_NOT_PREBUILT = ("other-framework", "build-targets", "extension-build", "isa-build-error", "distro-rocm",
                 "windows", "wsl", "zluda")


def override_unnamed(host: Host) -> Optional[Finding]:
    """No GPU named; a prebuilt Python program's missing-code error, with no gfx in it and no override anywhere in
    the report: the GPU is most likely a consumer sibling of a wheel target, run with the override."""
    if host.gpus or "python-program" not in host.context:
        return None
    if any(k in host.context for k in _NOT_PREBUILT) or any(k.startswith("override-") for k in host.context):
        return None
    errors = [m for m in host.logs if m.finding_id == "log.no-binary-for-gpu" and override_helps(m)
              and not (m.groups.get("gfx") or m.groups.get("arch"))]
    if not errors:
        return None
    said = host.context["python-program"]
    line = errors[0]
    return finding(
        "gpu.override-needed", Severity.FAIL,
        "The prebuilt PyTorch has no code for this GPU: a consumer GPU off its list runs with "
        "HSA_OVERRIDE_GFX_VERSION (the report does not name the GPU)",
        "The ROCm wheels carry one target per consumer generation (gfx1030 for RDNA2, gfx1100 for RDNA3); their "
        "siblings (gfx1031-gfx1036, gfx1101-gfx1103) have no code objects in them but run that target's code under "
        "the override. The report names no GPU and no override: check the GPU's target first (an old "
        "GCN card (gfx803) or a generation newer than the wheel needs a build that carries it instead).",
        [str(line.source) if line.source else line.text, str(said.source) if said.source else str(said.value)],
        Fix("Find the GPU's target, then run the program with the override of its generation (RDNA2: 10.3.0, "
            "RDNA3: 11.0.0):",
            ["rocminfo | grep -m1 -E 'Name: +gfx'", "export HSA_OVERRIDE_GFX_VERSION=10.3.0"],
            "https://rocm.docs.amd.com/projects/install-on-linux/en/latest/reference/system-requirements.html"),
    )
