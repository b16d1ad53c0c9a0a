"""Free-text fact kinds that only set a context of the report (a word the judge reads), not a fact of the host.

The bundle's text reader turns each fact of these kinds into the context name on the right (``Host.context``);
the judge's verdicts ask for context names ("wsl", "works-said", "nix"), never for the rules that found them, so a
rule can be renamed or split without touching a check. Data, not code: one entry per kind.
"""

from __future__ import annotations

CONTEXT_KINDS: dict[str, str] = {
    "wsl": "wsl", "windows": "windows", "prompt.venv": "venv", "prompt.container": "container",
    "service": "service", "container.run": "container-run", "container.compose": "compose",
    "env.override.shell": "override-shell", "env.override.service": "override-service",
    "env.override.process": "override-process", "pip.no-versions": "pip-no-versions",
    "container.kfd-missing": "kfd-missing", "secureboot": "secureboot",
    "container.video-only": "video-only",
    "torch.no-gpus": "no-gpus", "env.override.named": "override-named",
    "user.in-group": "user-in-group", "container.devices-absent": "devices-absent",
    "framework.other": "other-framework", "xgmi.bridge": "xgmi-bridge", "gpu.none-said": "no-gpu-said",
    "app.vllm": "app-vllm", "app.hipdf": "app-hipdf", "app.flash-attn-ck": "app-flash-attn-ck",
    "app.llamacpp-win-hip-radeon": "app-llamacpp-win-hip-radeon",
    "app.amd-alphafold-5.2": "app-amd-alphafold-5.2", "torch.kpack": "torch-kpack",
    "visible-devices.per-task": "per-task-visible", "triton.nvidia": "triton-nvidia",
    "perm.groups-remedy": "groups-remedy", "torch.cpu-device": "cpu-device",
    "hip.headers-distro": "hip-headers-distro", "hip.headers-amd": "hip-headers-amd",
    "build.duplicate-symbol": "duplicate-symbol",
    "xformers.built-for": "xformers-built-for", "xformers.rocm-ops": "xformers-rocm-ops",
    "run.gpu-ok": "gpu-run-ok", "perf.drops-over-time": "perf-drops",
    "rocm.distro-packages": "distro-rocm",
    "pip.wheel-refused": "wheel-refused", "kfd.absent-said": "kfd-absent",
    "vm.passthrough": "vm-passthrough", "hip.illegal-state": "hip-illegal-state",
    "build.isa-unsupported": "isa-build-error", "env.override.works": "override-works",
    "companion.pinned": "companion-pinned", "gpu.enumerated": "enumerated",
    "container.distrobox": "distrobox", "host.works": "host-works",
    "pip.versions-listed": "pip-versions-listed", "igpu.hiding-works": "igpu-hiding-works",
    "igpu.hiding-no-help": "igpu-hiding-no-help",
    "igpu.device-said": "igpu-device-said", "cpu.apu": "apu-cpu", "run.crash-said": "crash-said",
    "run.works-said": "works-said", "app.koboldcpp-rocm": "app-koboldcpp-rocm",
    "run.no-gpu-said": "no-gpu-said", "k8s.kmm-amdgpu": "kmm-amdgpu", "rocm.amd-packages": "amd-packages",
    "build.extension": "extension-build", "app.lmstudio-rocm-survey": "lmstudio-rocm-survey",
    "driver.works-with": "driver-works-with", "driver.version-named": "driver-named",
    "windows.driver-version": "windows-driver",
    "rocm.upgraded": "rocm-upgraded", "rocm.tree-incomplete": "rocm-tree-incomplete",
    "hip.hsa-attribute-unknown": "hip-hsa-older",
    "rocm.packages-behind": "rocm-packages-behind", "app.amd-wheel": "amd-framework-wheel",
    "vm.vmware": "vmware-guest", "gpu.shown-said": "gpu-shown-said",
    "build.targets": "build-targets", "build.family": "build-family", "vllm.version": "vllm-version",
    "perm.selinux-gpu": "selinux-gpu", "opencl.mesa": "opencl-mesa", "opencl.amd": "opencl-amd",
    "app.gpu-unsupported": "app-gpu-unsupported", "torch.zluda": "zluda",
    "run.python-program": "python-program", "gpu.amd-removed": "amd-removed",
    "hip.conda-rtc-abort": "conda-hiprtc-abort",
    "torchvision.ops-missing": "torchvision-ops-missing", "host.nix": "nix",
    "kernel.ubuntu-build": "kernel-ubuntu-build",
}
