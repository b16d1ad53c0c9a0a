"""The flags a ROCm container needs at run time, for docker/podman, the AMD Container Toolkit and Apptainer.

The image cannot know the host's ``render`` gid (AMD's own images bake 109; hosts differ), and
``--group-add video`` alone leaves ``/dev/kfd`` unopenable on hosts where it belongs to ``render``
(ROCm/ROCm-docker#116). So the gid is read from the host — a bundle's ``/etc/group`` / ``stat-dev`` or
the live machine — and passed by number.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from typing import Optional

from rocmdoctor.errors import BadInput

ACCESS_MODES = ("devices", "runtime", "cdi")
ENGINES = ("docker", "podman")
DEVICES = ("/dev/kfd", "/dev/dri")


@dataclass(frozen=True)
class RunOptions:
    engine: str = "docker"
    access: str = "devices"  # devices: --device kfd/dri; runtime: --runtime=amd; cdi: --device amd.com/gpu=all
    render_gid: Optional[int] = None  # host's render gid, by number
    shm_size: str = "16g"
    gpus: str = "all"  # AMD_VISIBLE_DEVICES / CDI selector: all | 0,1 | 0-3 | UUID
    devices: tuple[str, ...] = DEVICES
    notes: tuple[str, ...] = field(default_factory=tuple)  # why something was left out


MAX_GID = 4294967294  # (gid_t)-1 is 'no group'


def validate(opts: RunOptions) -> None:
    if opts.engine not in ENGINES:
        raise BadInput(f"--engine {opts.engine!r}: one of {', '.join(ENGINES)}")
    if opts.access not in ACCESS_MODES:
        raise BadInput(f"--access {opts.access!r}: one of {', '.join(ACCESS_MODES)}")
    if not opts.shm_size or not opts.shm_size[:-1].isdigit() or opts.shm_size[-1].lower() not in "bkmg0123456789":
        raise BadInput(f"--shm-size {opts.shm_size!r}: a size such as 16g")
    if not opts.gpus or not all(c.isalnum() or c in ",-" for c in opts.gpus):
        raise BadInput(f"--gpus {opts.gpus!r}: all, 0,1, 0-3 or a GPU UUID")
    if opts.render_gid is not None and not 0 <= opts.render_gid <= MAX_GID:
        raise BadInput(f"--render-gid {opts.render_gid}: a group id between 0 and {MAX_GID}")


def run_flags(opts: RunOptions) -> list[str]:
    """The docker/podman run flags, as an argv fragment (never a shell string)."""
    validate(opts)
    flags: list[str] = []
    if opts.access == "devices":
        for dev in opts.devices:
            flags += ["--device", dev]
    elif opts.access == "runtime":
        flags += ["--runtime=amd", "-e", f"AMD_VISIBLE_DEVICES={opts.gpus}"]
    else:
        flags += ["--device", f"amd.com/gpu={opts.gpus}"]
    if opts.engine == "podman":
        # Rootless podman passes the user's own supplementary groups (render, video) through; podman
        # refuses keep-groups together with any other --group-add, so it stands alone.
        flags += ["--group-add", "keep-groups"]
    else:
        if opts.render_gid is not None:
            flags += ["--group-add", str(opts.render_gid)]
        flags += ["--group-add", "video"]
    flags += ["--security-opt", "seccomp=unconfined", "--ipc=host", "--shm-size", opts.shm_size]
    return flags


def run_argv(opts: RunOptions, image: str, command: tuple[str, ...] = ()) -> list[str]:
    """A complete ``docker run`` argv for ``image``."""
    if not image or image.startswith("-"):
        raise BadInput(f"image {image!r}: expected an image name (not an option)")
    return [opts.engine, "run", "--rm", *run_flags(opts), image, *command]


def apptainer_argv(image: str, command: tuple[str, ...] = ()) -> list[str]:
    """Apptainer: ``--rocm`` binds /dev/dri and the host's ROCm libraries; groups come with the user."""
    if not image or image.startswith("-"):
        raise BadInput(f"image {image!r}: expected an image file or URI (not an option)")
    return ["apptainer", "run", "--rocm", image, *command] if command else ["apptainer", "run", "--rocm", image]


def pin_note(image: str) -> Optional[str]:
    """A note when ``image`` is a registry reference that is not pinned (untagged or ``latest``, no digest).

    Running such an image is allowed (it may be the user's own), but a CI job that runs it is not
    reproducible: the same command pulls something else after the next push."""
    ref, _, digest = image.partition("@")
    if digest or image.startswith((".", "/")) or image.endswith(".sif") or "://" in image:
        return None  # pinned, or a local file / URI (Apptainer)
    last = ref.rsplit("/", 1)[-1]
    tag = last.rsplit(":", 1)[1] if ":" in last else ""
    if tag and tag != "latest":
        return None
    what = "has no tag (so it means 'latest')" if not tag else "uses 'latest'"
    return (f"{image} {what}, which moves with every push: pin a version tag and @sha256:DIGEST for "
            "reproducible runs")


def render_text(opts: RunOptions, image: str, command: tuple[str, ...] = ()) -> str:
    """Human output: the docker/podman line, then the toolkit and apptainer alternatives, shell-quoted."""
    lines = [shlex.join(run_argv(opts, image, command))]
    pin = pin_note(image)
    for note in (*opts.notes, *([pin] if pin else [])):
        lines.append(f"# {note}")
    return "\n".join(lines) + "\n"


def render_json(opts: RunOptions, image: str, command: tuple[str, ...] = ()) -> dict[str, object]:
    """Every variant, for scripts (versioned)."""
    variants = {}
    for access in ACCESS_MODES:
        o = RunOptions(engine=opts.engine, access=access, render_gid=opts.render_gid, shm_size=opts.shm_size,
                       gpus=opts.gpus, devices=opts.devices)
        variants[access] = run_argv(o, image, command)
    return {
        "schema": "rocmdoctor-run-args/1",
        "engine": opts.engine,
        "access": opts.access,
        "render_gid": opts.render_gid,
        "flags": run_flags(opts),
        "argv": run_argv(opts, image, command),
        "variants": variants,
        "apptainer": apptainer_argv(image, command),
        "notes": [*opts.notes, *filter(None, [pin_note(image)])],
    }


def render_gid_from_host(host: object) -> tuple[Optional[int], str]:
    """The host's render gid and where it came from: /dev/kfd's group (stat-dev) first, then /etc/group."""
    nodes = getattr(host, "device_nodes", None) or []
    for node in nodes:
        if getattr(node, "path", "") == "/dev/kfd" and getattr(node, "exists", True) and node.gid is not None \
                and node.gid != 0:
            return int(node.gid), f"/dev/kfd is group {node.group or node.gid} (stat-dev)"
    groups = getattr(host, "groups_file", None) or {}
    if "render" in groups:
        return int(groups["render"]), "render group in /etc/group"
    return None, "no render group in the host capture"


def render_gid_live(root: str = "/") -> tuple[Optional[int], str]:
    """The same, read from this machine: the gid owning /dev/kfd, else ``render`` in /etc/group."""
    import os

    kfd = os.path.join(root, "dev/kfd")
    try:
        st = os.stat(kfd)
        if st.st_gid != 0:
            return st.st_gid, f"{kfd} is owned by gid {st.st_gid}"
    except OSError:
        pass
    try:
        with open(os.path.join(root, "etc/group"), encoding="utf-8", errors="replace") as f:
            for line in f:
                parts = line.strip().split(":")
                if len(parts) >= 3 and parts[0] == "render" and parts[2].isdigit():
                    return int(parts[2]), "render group in /etc/group"
    except OSError:
        pass
    return None, "this host has no render group (no AMD GPU driver installed?)"
