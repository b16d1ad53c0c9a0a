"""What the target interpreter is and holds, as its probe (``rocmdoctor/programs/target_session.py``) told us.

Kept apart from the code that asks (:mod:`rocmdoctor.install.session`) so that the install's later steps
(snapshot, verify, flow) share one typed answer and import nothing that starts processes.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any, Optional

from rocmdoctor.model import TorchBuild  # the one torch-build kind (re-exported for install.flow)


class _StrEnum(str, Enum):
    """A ``str`` enum that prints as its value (``enum.StrEnum`` is 3.11+; the package supports 3.9)."""

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)


class Installer(_StrEnum):
    """Which installer runs the install (``--installer``)."""

    PIP = "pip"
    UV = "uv"


@dataclass
class Target:
    """What the target interpreter told the probe."""

    executable: str
    version: str
    implementation: str
    prefix: str
    base_prefix: str
    purelib: str
    platlib: str
    scripts: str
    dists: dict[str, str]
    torch: Optional[dict[str, Any]]
    has_pip: bool

    @classmethod
    def from_probe(cls, d: dict[str, Any]) -> Target:
        """The probe's JSON object (``KeyError``/``TypeError`` when it is not one)."""
        return cls(
            executable=d["executable"], version=d["version"], implementation=d["implementation"],
            prefix=d["prefix"], base_prefix=d["base_prefix"], purelib=d["purelib"], platlib=d["platlib"],
            scripts=d["scripts"], dists=d["dists"], torch=d["torch"], has_pip=d["pip"],
        )

    @property
    def torch_build(self) -> Optional[TorchBuild]:
        """ROCm, CUDA or CPU for the installed torch (None: no torch), read without importing it."""
        if not self.torch:
            return None
        version = str(self.torch.get("__version__") or self.dists.get("torch") or "")
        libs = [str(x) for x in self.torch.get("libs") or []]
        if self.torch.get("hip") or "+rocm" in version or any("amdhip" in x for x in libs):
            return TorchBuild.ROCM
        if self.torch.get("cuda") or "+cu" in version or any("cudart" in x for x in libs):
            return TorchBuild.CUDA
        return TorchBuild.CPU

    @property
    def torch_version(self) -> Optional[str]:
        """The installed torch's version (None: no torch)."""
        if not self.torch:
            return None
        return str(self.torch.get("__version__") or self.dists.get("torch") or "unknown")
