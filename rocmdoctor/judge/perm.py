"""Permission checks: can this user open /dev/kfd and the render nodes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Union

from rocmdoctor.judge.facts import finding, groups_of_user, not_captured, ok
from rocmdoctor.judge.registry import check
from rocmdoctor.model import DeviceNode, Fact, Finding, Fix, LogMatch, Severity
from rocmdoctor.sanitize import command, plausible, word

if TYPE_CHECKING:
    from rocmdoctor.matrix import Matrix
    from rocmdoctor.model import Host, Source

PERM_URL = ("https://rocm.docs.amd.com/projects/install-on-linux/en/latest/install/prerequisites.html"
            "#setting-permissions-for-groups")


def _can_rw(node: DeviceNode, uid: int | None, groups: set) -> bool | None:
    if node.mode is None:
        return None
    try:
        mode = int(node.mode, 8)
    except ValueError:
        return None
    if uid == 0:
        return True
    if uid is not None and node.uid is not None and uid == node.uid and mode & 0o600 == 0o600:
        return True
    if (node.group in groups or str(node.gid) in groups) and mode & 0o060 == 0o060:
        return True
    return mode & 0o006 == 0o006


def _foreign_kfd(kfd: Optional[DeviceNode]) -> Optional[str]:
    """The group of a /dev/kfd that neither render nor video members can open (others have no read-write)."""
    if kfd is None or not kfd.exists or not kfd.group or not kfd.mode or kfd.group in ("render", "video"):
        return None
    other = kfd.mode[-1:]
    return kfd.group if other.isdigit() and int(other) & 6 != 6 else None


def _kfd_group_finding(kfd: DeviceNode, group: str, symptoms: list[LogMatch],
                       root_only: Optional[Fact[str]] = None) -> Finding:
    """/dev/kfd owned by another group (a container or LXC whose device node lost its udev rule): only that
    group's members (often only root) can open it. With the runtime seeing no GPU, or the report saying ROCm runs
    for root only (ROCm/ROCT-Thunk-Interface#36), it is the cause."""
    return finding(
        "perm.kfd-access", Severity.FAIL if symptoms or root_only is not None else Severity.WARN,
        f"/dev/kfd belongs to group {group} (mode {kfd.mode}): render and video members cannot open it",
        "ROCm's users get the GPU through the render (or video) group; a node owned by another group — typically "
        "root:root in a container or LXC whose node was recreated without udev's rule — lets only root in, and "
        "every other process sees no GPU.",
        [str(kfd.source)] + [str(m.source) for m in symptoms[:1] if m.source]
        + ([str(root_only.source)] if root_only is not None else []),
        Fix("Give the node to the render group, and make it survive a reboot (a udev rule on a host; the "
            "container's device configuration otherwise):",
            ["sudo chgrp render /dev/kfd && sudo chmod 660 /dev/kfd",
             "echo 'KERNEL==\"kfd\", GROUP=\"render\", MODE=\"0660\"' | sudo tee /etc/udev/rules.d/70-kfd.rules"],
            PERM_URL),
    )


def _root_only(host: Host) -> Finding:
    """The report says the GPU is seen as root and not as the user: the user cannot open the device nodes."""
    said, works = host.context["root-only"], host.context["root-only-works"]
    member = host.context.get("user-in-group")
    only = f" The report says the user is in the {member.value} group; on current distributions /dev/kfd and " \
        "/dev/dri/renderD* belong to render, so the user needs render as well." if member is not None else ""
    user = word("user", host.user.name if host.user else None, "$USER")
    return finding(
        "perm.kfd-access", Severity.FAIL, "The GPU answers root but not this user: the user cannot open /dev/kfd",
        "The same program finds the GPU as root and nothing as the user, so the driver and the runtime work and "
        "the device nodes' permissions keep the user out." + only,
        list(dict.fromkeys([str(said.source), str(works.source)]))
        + ([str(member.source)] if member is not None else []),
        Fix("Add the user to both groups, then log out and back in:",
            [command("sudo", "usermod", "-aG", "render,video", user), "ls -l /dev/kfd /dev/dri/renderD*"],
            PERM_URL),
    )


def _told(host: Host, no_gpu: list[LogMatch]) -> Optional[Finding]:
    """What the report itself says, with no device nodes captured: SELinux keeping the GPU from a service, a Distrobox
    without the host's groups, the GPU answering root only, or the groups remedy that made the GPU usable."""
    told = _selinux(host, no_gpu) or _distrobox(host, no_gpu)
    if told is not None:
        return told
    if "root-only" in host.context:
        return _root_only(host)
    remedy = host.context.get("groups-remedy")
    ran_without = host.context.get("cpu-device") or (no_gpu[0] if no_gpu else None)
    if remedy is not None and ran_without is not None:
        return _groups_remedy(host, remedy, ran_without)
    return None


def _groups_remedy(host: Host, remedy: Fact[str], ran_without: Union[Fact[str], LogMatch]) -> Finding:
    """The report ran without the GPU (on the CPU, no GPU found) and says adding the user to render/video made the
    GPU usable (unslothai/unsloth#10466): the user could not open the device nodes until then."""
    user = word("user", host.user.name if host.user else None, "$USER")
    return finding(
        "perm.kfd-access", Severity.FAIL, "The user could not open /dev/kfd: adding the groups made the GPU usable",
        "The report's program ran without the GPU, and adding the user to render and video fixed it: without those "
        "groups the user cannot open /dev/kfd and /dev/dri/renderD*, so ROCm sees no GPU and programs fall back to "
        "the CPU. An installer that does not add them leaves every new user there.",
        [str(ran_without.source), str(remedy.source)],
        Fix("Add the user to both groups, then log out and back in (or reboot):",
            [command("sudo", "usermod", "-aG", "render,video", user), "ls -l /dev/kfd /dev/dri/renderD*"], PERM_URL),
    )


def _kfd_absent_on_host(host: Host, said: Optional[Source]) -> Finding:
    """The report says the host has no /dev/kfd. With amdgpu loaded, the kernel was built without its compute
    part (CONFIG_HSA_AMD: Talos before siderolabs/pkgs#893); without, the driver is not loaded."""
    loaded = bool(host.amdgpu_loaded and host.amdgpu_loaded.value) or any(g.pci_driver == "amdgpu" for g in host.gpus)
    why = ("amdgpu drives the GPU, so this kernel was built without KFD, amdgpu's compute part (CONFIG_HSA_AMD): "
           "no user space or device plugin can create it." if loaded else
           "Without /dev/kfd no ROCm program or device plugin can reach a GPU: amdgpu is not loaded, or the kernel "
           "was built without KFD (CONFIG_HSA_AMD).")
    return finding(
        "perm.kfd-missing", Severity.FAIL, "The host has no /dev/kfd (the report says so)", why,
        [str(said)] if said else [],
        Fix("Check the driver and the kernel's KFD option; a kernel without CONFIG_HSA_AMD needs one built with it:",
            ["ls -l /dev/kfd", "lsmod | grep amdgpu", 'grep HSA_AMD "/boot/config-$(uname -r)"']),
    )


def _distrobox(host: Host, no_gpu: list[LogMatch]) -> Optional[Finding]:
    """No GPU inside a Distrobox container while the report says it works on the host (kyuz0/amd-r9700-vllm-
    toolboxes#1): Distrobox shares the host's /dev, so the devices are there and the user's groups are not."""
    box, host_ok = host.context.get("distrobox"), host.context.get("host-works")
    if box is None or host_ok is None or not (no_gpu or "no-gpus" in host.context):
        return None
    return finding(
        "perm.kfd-access", Severity.FAIL, "Inside the Distrobox container this user cannot open the GPU",
        "Distrobox shares the host's /dev, and the GPU works on the host: what differs is the container user's "
        "groups. A named --group-add resolves to the image's render/video GIDs, not the host's, so /dev/kfd and "
        "the render nodes stay closed and HIP enumerates no GPU.",
        [str(box.source), str(host_ok.source)] + [str(m.source) for m in no_gpu[:1] if m.source],
        Fix("Give the container the host's groups: podman keeps them with keep-groups; with docker pass the host's "
            "numeric GIDs:", ['distrobox create --additional-flags "--group-add keep-groups" ...',
                              "stat -c '%g' /dev/kfd /dev/dri/renderD128"], PERM_URL),
    )


def _selinux(host: Host, no_gpu: list[LogMatch]) -> Optional[Finding]:
    """The report says the GPU works once SELinux stops enforcing (or with a policy allowing /dev/kfd): the service's
    SELinux domain may not open the device nodes, whatever their owner and groups (BOINC/boinc#6634, Fedora 43)."""
    told = host.context.get("selinux-gpu")
    if told is None:
        return None
    return finding(
        "perm.kfd-access", Severity.FAIL, "SELinux keeps the program from /dev/kfd and the render node",
        "The report says the GPU is found once SELinux is permissive (or a local policy allows /dev/kfd): the "
        "program's SELinux domain has no permission on the GPU's device nodes, so the runtime finds no GPU.",
        ([str(told.source)] if told.source else []) + [str(m.source) for m in no_gpu[:1] if m.source],
        Fix("Read the denials and allow them with a local policy module (keep SELinux enforcing):",
            ["sudo ausearch -m avc -ts recent | grep -E 'kfd|renderD'",
             "sudo ausearch -m avc -ts recent | audit2allow -M local-gpu", "sudo semodule -i local-gpu.pp"]),
    )


def _amd_removed(host: Host, denied: list[LogMatch]) -> Optional[Finding]:
    """The report says its AMD card is gone, an NVIDIA card in its place: the program looked for an AMD GPU because
    the amdgpu module stayed loaded, and group membership would give access to nothing (ollama/ollama#2392). None
    when the report says nothing of it, or lists an AMD GPU elsewhere than in that line (the card it removed)."""
    removed = host.context.get("amd-removed")
    if removed is None or any((s.file, s.line) != (removed.source.file, removed.source.line)
                              for g in host.gpus for s in g.sources):
        return None
    return finding(
        "perm.kfd-access", Severity.INFO, "No AMD GPU to give access to: the report says its AMD card was removed",
        "A program refused /dev/kfd, but the AMD card is gone: the amdgpu module left loaded made the program look "
        "for an AMD GPU. Unloading the module (or uninstalling the AMD driver) lets it use the other GPU.",
        [str(removed.source)] + [str(m.source) if m.source else m.text for m in denied[:1]],
        Fix("Unload the leftover AMD driver (and its DKMS package, if one is installed):",
            ["lsmod | grep amdgpu", "sudo modprobe -r amdgpu"]),
    )


@check("perm.kfd-access", "perm.kfd-missing", title="Device permissions")
def kfd_access(host: Host, matrix: Matrix) -> list[Finding]:
    nodes = [n for n in host.device_nodes if n.path == "/dev/kfd" or "/dri/renderD" in n.path]
    denied_logs = [m for m in host.logs if m.finding_id == "log.kfd-permission-denied"]
    if not nodes and denied_logs and (gone := _amd_removed(host, denied_logs)) is not None:
        return [gone]
    if not nodes and denied_logs:
        user = word("user", host.user.name if host.user else None, "$USER")
        return [finding(
            "perm.kfd-access", Severity.FAIL, "This user cannot open /dev/kfd (the runtime said so)",
            "The ROCm runtime reported 'Permission denied' on /dev/kfd: the user is not in the group that owns "
            "it (render, or video on older systems), or a container was started without --group-add.",
            [str(m.source) if m.source else m.text for m in denied_logs[:2]],
            Fix("Add the user to the groups and log in again; for containers add the host's groups:",
                [command("sudo", "usermod", "-aG", "render,video", user),
                 "docker run --device /dev/kfd --device /dev/dri --group-add video --group-add render ..."], PERM_URL),
        )]
    groups_added = host.context.get("group-add")
    no_gpu = [m for m in host.logs if m.finding_id in ("log.no-hip-gpus", "log.hip-error-no-device")]
    added = groups_added.value.split(",") if groups_added is not None else []
    video_only = "video" in added and ("render" not in added or "video-only" in host.context)
    if not nodes and groups_added is not None and video_only and (no_gpu or "no-gpus" in host.context):
        return [finding(
            "perm.kfd-access", Severity.FAIL, "The container gets only the video group; the render nodes need render",
            "On current distributions /dev/dri/renderD* belongs to group render (and /dev/kfd to render too): with "
            "only --group-add video the process cannot open them and HIP enumerates no GPU.",
            [str(groups_added.source)] + [str(m.source) for m in no_gpu[:1] if m.source],
            Fix("Add the render group (or the node's numeric GID when the image has no render group):",
                ["docker run --device=/dev/kfd --device=/dev/dri --group-add video --group-add render ...",
                 "stat -c '%G %g' /dev/dri/renderD128"], PERM_URL),
        )]
    told = _told(host, no_gpu) if not nodes else None
    if told is not None:
        return [told]
    said = host.context.get("kfd-absent")
    if not nodes and said is not None and not host.kernel.is_wsl and "wsl" not in host.context \
            and not any(k in host.context for k in ("container", "kfd-missing", "container-run", "devices-absent")):
        return [_kfd_absent_on_host(host, said.source)]
    if not nodes:
        return [not_captured("perm.kfd-access", "Device node permissions (/dev/kfd, /dev/dri)")]
    kfd = next((n for n in nodes if n.path == "/dev/kfd"), None)
    if kfd is not None and not kfd.exists and host.kernel.is_wsl:
        return [finding("perm.kfd-missing", Severity.INFO, "No /dev/kfd: expected under WSL",
                        "WSL reaches the GPU through /dev/dxg and AMD's WSL runtime, never through /dev/kfd.",
                        [str(kfd.source)] if kfd.source else [])]
    if kfd is not None and not kfd.exists:
        return [finding(
            "perm.kfd-missing", Severity.FAIL, "/dev/kfd does not exist",
            "Without /dev/kfd no ROCm program can reach a GPU. On a host: the amdgpu driver is not loaded. "
            "In a container: it was started without --device /dev/kfd.",
            [str(kfd.source)] if kfd.source else [],
            Fix("On the host load amdgpu; for a container pass the devices:",
                ["sudo modprobe amdgpu", "docker run --device /dev/kfd --device /dev/dri --group-add video "
                 "--group-add render ..."]),
        )]
    groups = groups_of_user(host)
    foreign = _foreign_kfd(kfd)
    if groups is None and kfd is not None and foreign is not None:
        return [_kfd_group_finding(kfd, foreign, no_gpu + denied_logs, host.context.get("root-only"))]
    if groups is None:
        return [not_captured("perm.kfd-access", "User and groups (id)")]
    uid = host.user.uid if host.user else None
    denied = [n for n in nodes if n.exists and _can_rw(n, uid, groups) is False]
    if not denied:
        return [ok("perm.kfd-access", f"{host.user.name if host.user else 'user'} can open /dev/kfd and the "
                                      "render nodes", [str(n.source) for n in nodes[:2] if n.source])]
    needed = sorted({n.group for n in denied if n.group} or {"render"})
    user = word("user", host.user.name if host.user else None, "$USER")
    joined = ",".join(sorted({g for g in needed if plausible("group", g)} | {"render", "video"}))
    return [finding(
        "perm.kfd-access", Severity.FAIL,
        f"{(host.user.name if host.user else None) or user} cannot open {', '.join(n.path for n in denied[:3])}",
        f"The device nodes belong to {'group' if len(needed) == 1 else 'groups'} {', '.join(needed)} and the "
        "user is not a member: ROCm reports "
        "'Unable to open /dev/kfd read-write: Permission denied' or sees no GPU.",
        [str(n.source) for n in denied[:3] if n.source]
        + ([str(host.user.source)] if host.user and host.user.source else []),
        Fix("Add the user to the groups, then log out and back in (or reboot):",
            [command("sudo", "usermod", "-aG", joined, user)], PERM_URL),
    )]


@check("perm.render-group", title="render group")
def render_group(host: Host, matrix: Matrix) -> list[Finding]:
    """ROCm's docs use the render group; older distributions (Ubuntu 20.04) only have video."""
    if not host.groups_file:
        return []
    if "render" in host.groups_file:
        return [ok("perm.render-group", f"render group exists (gid {host.groups_file['render']})")]
    return [finding(
        "perm.render-group", Severity.INFO, "There is no 'render' group on this host",
        "The render nodes then belong to 'video': add users to video instead of render.",
        ["root/etc/group"],
    )]
