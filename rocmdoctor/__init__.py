"""rocmdoctor: a doctor and installer for AMD GPU (ROCm) machines."""

__version__ = "0.1.0"
