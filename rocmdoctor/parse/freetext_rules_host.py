"""The free-text extractor's rules for the host: its kernel, OS, WSL and Windows, and the builds and variables that
go with them. Data, not code, under the rules of :mod:`rocmdoctor.parse.freetext_rules` (bounded quantifiers,
one-character lookbehinds, a thread named per rule); :data:`~rocmdoctor.parse.freetext_rules.RULES` runs them in this
order, at this place. Split from freetext_rules (500-line limit).
"""

from __future__ import annotations

from rocmdoctor.parse.freetext_rule import VER as _VER
from rocmdoctor.parse.freetext_rule import Rule
from rocmdoctor.parse.freetext_rule import rule as _r

HOST_RULES: tuple[Rule, ...] = (
    # --- kernel, OS, WSL, Windows -----------------------------------------------------------------------------
    # A distribution kernel release only where it names the running kernel (uname -r's bare line, "Kernel: ..."):
    # dkms and apt logs name every kernel they build for.
    _r("kernel.release", ("-generic", "-lowlatency", "-amd64", "-azure", "-aws", "-gcp", "-oem", ".x86_64"),
       r"(?:^\s{0,8}|(?:^|\s)(?:OS )?[Kk]ernel(?: version| release)?\s{0,4}[:=]\s{0,4}",
       # a markdown list or table: "- **Kernel**: Linux 6.17.0-20-generic", "| **Kernel** | 6.8.0-45-generic |"
       r"|^[\s>*|-]{0,8}(?:\*\*)?(?:Linux )?[Kk]ernel(?: [Vv]ersion| release)?(?:\*\*)?\s{0,4}[:=|](?:\*\*)?\s{0,4}"
       r"(?:Linux )?",
       r"|\buname -r\)?\s{0,4}[:=]?\s{0,4})",
       r"(?P<v>\d\.\d{1,2}\.\d{1,3}-\d{1,4}(?:\.\d{1,4})?-(?:generic|lowlatency|amd64|cloud-amd64|azure|aws|gcp|oem)",
       r"|\d\.\d{1,2}\.\d{1,3}-\d{1,4}\.\w{1,20}\.x86_64)\s*\|?\s*$"),
    # prose: "faults ... on kernel `6.17.0-1017-oem` and ..." (ROCm/amdgpu#213): the first kernel a report names
    _r("kernel.release", ("on kernel ", "on the kernel "),
       r"\bon (?:the )?kernel\s{1,3}(?P<v>\d\.\d{1,2}\.\d{1,3}-\d{1,4}(?:\.\d{1,4})?-"
       r"(?:generic|lowlatency|amd64|cloud-amd64|azure|aws|gcp|oem))\b"),
    # The Ubuntu release a kernel was built for, from its own banner: an HWE kernel's build tag (`uname -a`'s
    # "6.2.0-39-generic #40~22.04.1-Ubuntu") or the series' compiler package in the `Linux version` line
    # (dmesg, /proc/version: "(gcc version 5.4.0 20160609 (Ubuntu 5.4.0-6ubuntu1~16.04.10) ) #165-Ubuntu"):
    # Ubuntu marks a package built for a stable release with "~<release>" (version strings, SRU uploads:
    # https://canonical-ubuntu-project.readthedocs-hosted.com/how-ubuntu-is-made/concepts/version-strings).
    # The value is "<kernel release> <ubuntu release>" (ROCm/legacy-rocm-build#624).
    _r("kernel.ubuntu-build", ("-Ubuntu",),
       r"(?<![\w.-])(?P<v>\d{1,2}\.\d{1,2}\.\d{1,3}-\d{1,5}-[a-z]{2,12} #\d{1,5}~\d{2}\.\d{2})(?:\.\d{1,2})?-Ubuntu\b"),
    _r("kernel.ubuntu-build", ("Linux version ",),
       r"\bLinux version (?P<v>\d{1,2}\.\d{1,2}\.\d{1,3}-\d{1,5}-[a-z]{2,12} \([^()\n]{1,80}\) \(gcc version "
       r"[\d.]{3,12}(?: \d{8})? \(Ubuntu [\w.+-]{1,40}?~\d{2}\.\d{2})(?:\.\d{1,3})?\)[^\n]{0,40}?-Ubuntu\b"),
    # a kernel named in parentheses after the OS: "a clean Ubuntu 18.04 installation (kernel 4.18)" (ROCm/ROCm#753)
    # or after it: "Ubuntu 18.04 with default kernel (4.18)" (ROCm/ROCm#731)
    _r("kernel.release", ("(kernel ", "(Kernel ", "kernel ("),
       r"(?:\([Kk]ernel |\b[Kk]ernel \()(?P<v>\d\.\d{1,2}(?:\.\d{1,3})?)\)"),
    # prose that the DKMS build failed for a kernel: "AMDGPU/ROCm DKMS fails on kernel 6.16" (the title of
    # ROCm/legacy-rocm-build#5110: "AMDGPU DKMS fails to build on Linux 6.16"); "DKMS no longer fails" is no match
    _r("dkms.failed-on", ("DKMS fail", "dkms fail", "DKMS build fail", "dkms build fail"),
       r"\b(?:DKMS|dkms)(?: build)? fail(?:s|ed|ing)?(?: to (?:build|compile|install))?"
       r" (?:on|for|with) (?:the )?(?:(?:[Ll]inux|[Kk]ernel) ){1,2}v?",
       r"(?P<v>\d\.\d{1,2}(?:\.\d{1,3})?(?:-[\w.+]{1,40})?)(?!\w|\.\d)"),
    # "the currently released `amdgpu-dkms_6.16.13...deb` fails to rebuild against 6.18.x" (ROCm/amdgpu#209)
    _r("dkms.failed-on", ("to rebuild against", "to build against", "to compile against"),
       r"\b(?:dkms|DKMS)(?:\b|_)[^\n]{0,200}?\bfail(?:s|ed|ing)? to (?:re)?(?:build|compile) against (?:the )?",
       r"(?:(?:[Ll]inux|[Kk]ernel) ){0,2}v?(?P<v>\d\.\d{1,2}(?:\.\d{1,3})?)(?:\.x)?(?!\w|\.\d)"),
    # the amdgpu-dkms release a report names by its package file or its DKMS tree ("amdgpu-dkms_6.16.13.30300000-
    # 2278356.24.04_all.deb", "/var/lib/dkms/amdgpu/6.16.13-2278356.24.04/build/make.log", ROCm/amdgpu#209)
    _r("dkms.amdgpu-named", ("amdgpu-dkms_", "/dkms/amdgpu/"),
       r"(?:\bamdgpu-dkms_|/var/lib/dkms/amdgpu/)(?P<v>\d{1,2}\.\d{1,2}\.\d{1,3})[.-]\d{1,10}"),
    _r("kernel.release", ("-microsoft-standard",),
       r"\b(?P<v>\d\.\d{1,2}\.\d{1,3}[\w.+~-]{0,40}-microsoft-standard(?:-WSL2)?)\b"),
    # an issue template's OS answered with the kernel in parentheses: "Arch Linux (Linux 6.19.12-arch1-1)"
    # (ROCm/ROCm#6166)
    _r("kernel.release", ("(Linux ",), r"\(Linux (?P<v>\d\.\d{1,2}\.\d{1,3}-[\w.+~-]{1,40})\)"),
    _r("kernel.release", ("Linux version",), r"^\s{0,8}Linux version (?P<v>\d\.\d{1,2}\.\d{1,3}\S{0,60})"),
    # nix-info -m, as nixpkgs' issue template asks: " - host os: `Linux 6.1.59, NixOS, 23.11 (Tapir), 23.11pre-git`"
    # (NixOS/nixpkgs#265095): the running kernel, then the distribution and its release (backticks read as spaces)
    _r("kernel.release", ("host os:",), r"^[ \t]{0,4}- host os:[ \t]{1,3}Linux (?P<v>\d\.\d{1,2}(?:\.\d{1,3})?)(?=,)"),
    _r("os.name", ("host os:",),
       r"^[ \t]{0,4}- host os:[ \t]{1,3}Linux [\d.]{3,12}, (?P<v>NixOS, \d{2}\.\d{2})(?=[ ,(]|$)"),
    _r("kernel.release", ("Linux ",), r"^\s{0,8}Linux [\w.-]{1,64} (?P<v>\d\.\d{1,2}\.\d{1,3}\S{0,60}) #"),
    _r("os.name", ("Ubuntu ", "Debian GNU/Linux ", "Fedora", "Rocky Linux", "AlmaLinux", "Red Hat Enterprise Linux",
                   "RHEL", "CentOS", "openSUSE Leap", "SUSE Linux Enterprise Server", "SLES", "Oracle Linux",
                   "Linux Mint", "Pop!_OS"),
       r"(?P<v>\b(?:Ubuntu(?: (?:Jammy|Noble|Focal|Oracular|Plucky|Questing|Resolute))?|",
       r"Debian GNU/Linux|Fedora(?: Linux)?|Rocky Linux|AlmaLinux|Red Hat Enterprise Linux|",
       r"RHEL|CentOS(?: Stream)?|openSUSE Leap|SUSE Linux Enterprise Server|SLES|Oracle Linux(?: Server)?|Linux Mint|",
       r"Pop!_OS)",
       r"[ \t]{1,4}\d{1,2}(?:\.\d{1,2}){0,2}(?: LTS)?)(?![-\w.~])"),  # not a package version (Ubuntu 9.4.0-1ubuntu1)
    # lower case in an issue template's answer: "### Operating System" then "fedora 41"
    # (or written together with its release: "I clean install an ubuntu24.04 and install rocm7.1.1", ROCm/ROCm#5861)
    _r("os.name", ("ubuntu ", "fedora ", "debian ", "ubuntu2", "ubuntu1"),
       r"(?<![\w./-])(?P<v>(?:ubuntu|fedora|debian) \d{1,2}(?:\.\d{1,2}){0,2}|ubuntu[12]\d\.\d{2}(?:\.\d{1,2})?)",
       r"(?![-\w.~])"),
    # a distribution named in prose with no release: "On Debian with kernels 6.5.0 and 6.6.13, there is this build
    # error" (ROCm/legacy-rocm-build#2451); "on Debian-based" or "Debian 12" are not this rule's
    # (and a rolling or unreleased one: "On Debian/testing" (ROCm/ROCm#631), "on openSUSE Tumbleweed" (ROCm/ROCm#780))
    # (and Talos, a Kubernetes OS: "On Talos `/dev/kfd` isn't present" (ROCm/k8s-device-plugin#23); Raptor's POWER9
    # "Talos II" workstation is no OS)
    _r("os.name", ("On Debian", "on Debian", "On Fedora", "on Fedora", "On openSUSE", "on openSUSE", "On Talos",
                   "on Talos"),
       r"\b[Oo]n (?P<v>Debian(?:[/ ](?:testing|unstable|sid)\b)?|Fedora|openSUSE(?: Tumbleweed\b)?|Talos)",
       r"(?![-\w]| \d| GNU| Linux \d| II\b)"),
    # a rolling release as an issue template's whole answer: "### Operating System", a blank line, "openSUSE
    # Tumbleweed" (ROCm/ROCm#3191)
    _r("os.name", ("openSUSE Tumbleweed",), r"^[ \t]{0,4}(?P<v>openSUSE Tumbleweed)[ \t]*$"),
    # Arch has no release: "Arch Linux (Linux 6.19.12-arch1-1)" as an issue template's OS answer (ROCm/ROCm#6166)
    _r("os.name", ("Arch Linux",), r"(?:^|\b[Oo]n )(?P<v>Arch Linux)\b(?![-\w])"),
    # an Ubuntu LTS named by its release and codename alone: "### Operating System", then "24.04.1 LTS (Noble Numbat)"
    # (ROCm/rocm-install-on-linux#293)
    _r("os.name", ("Numbat)", "Jellyfish)", "Fossa)", "Beaver)"),
       r"(?<![\w.])(?P<v>\d{2}\.04(?:\.\d{1,2})? LTS \((?:Noble Numbat|Jammy Jellyfish|Focal Fossa|Bionic Beaver)\))"),
    _r("os.release-kv", ("NAME=", "VERSION="), r"^(?P<v>(?:NAME|VERSION)=[^\n]{1,120})$"),
    # "Using WSL"; ROCm for WSL's own rocminfo fails "at: ./sources/wsl/tools/rocminfo/rocminfo.cc" (ROCm/ROCm#3413)
    _r("wsl", ("WSL", "microsoft-standard", "/dev/dxg", "wsl.exe", "\\\\wsl", "/sources/wsl/"),
       r"(?P<v>WSL environment detected|microsoft-standard-WSL2|\b(?:on|for|in|under|[Uu]sing) WSL2?\b|\bWSL2\b|",
       r"/dev/dxg\b|/sources/wsl/tools/|",
       r"wsl\.exe|\\\\wsl(?:\.localhost|\$)\\)"),
    # People write it in lower case ("support for wsl2 Ubuntu 24.04", an issue template's "### Operating System"
    # answered "wsl2"); amdgpu-install's WSL usecase is only ever run inside WSL.
    _r("wsl", ("wsl", "Wsl", "Operating System"),
       r"(?P<v>\b(?:on|for|in|under|with|via) [Ww]sl2?\b|",
       r"^#{2,4} Operating System\s{0,4}\n\s{0,4}\n?[^\n]{0,40}\b[Ww]sl2?\b|--usecase[= ][\w,]{0,60}\bwsl\b)"),
    # the Windows driver (Adrenalin, versioned year.month.n) a WSL or Windows report names: "- AMDGPU driver version:
    # 25.5.1" (ROCm/legacy-rocm-build#4809), "Adrenalin 25.3.1 driver"; the month keeps Linux's "23.40.2" out
    _r("windows.driver-version", ("Adrenalin", "driver version"),
       r"(?:\bAdrenalin(?:\s{1,2}Edition)?(?:\s{1,2}driver)?(?:\s{1,2}version)?|\bAMD(?:GPU)? driver version)",
       r":?\s{1,4}v?(?P<v>2\d\.(?:1[0-2]|[1-9])\.\d{1,2})(?![\w.])"),
    # (an issue template's "### OS" answered "Windows" (ollama's); ollama's own Windows GPU discovery,
    # "source=amd_windows.go:90" (ollama/ollama#4962))
    _r("windows", ("Windows 1", "PS ", ":\\", "py -3", "\\Scripts\\", "\\scripts\\", "AMD Software", "HIP SDK",
                   "win_amd64", "Operating System", "### OS", "_windows.go:", "%HIP_PATH%", "-pc-windows-msvc",
                   "[MSC v.", "|Windows|", "| Windows |", "Initializing dynamic library"),
       r"(?P<v>^PS [A-Za-z]:\\[^\n>]{0,200}>|\b[A-Za-z]:\\(?:Users|Program Files|Python\d{0,3}|Windows)\\|",
       r"\bpy -3(?:\.\d{1,2})?\b|\\[Ss]cripts\\(?:python|pip)\.exe|\bAMD Software: Adrenalin|HIP SDK for Windows|",
       # AMD's HIP SDK is the Windows release of ROCm: "I am using HIP SDK 5.7.1" (LostRuins/koboldcpp#655)
       r"\bHIP SDK [5-9]\.\d{1,2}\b|",
       r"win_amd64\.whl|^[\s>*-]{0,8}(?:\*\*)?(?:OS|Operating System)\b[^:\n]{0,40}:(?:\*\*)?\s{0,4}Windows 1[01]\b"
       r"|^#{2,4} Operating System\s{0,4}\n\s{0,4}\n?\s{0,4}Windows 1[01]\b",
       r"|^#{2,4} OS[ \t]{0,4}\n[ \t]{0,4}\n?[ \t]{0,4}Windows(?: 1[01])?[ \t]{0,4}$",
       r"|\bsource=(?:amd|gpu)_windows\.go:\d",
       # cmd.exe's variables and an MSVC build (llama.cpp's "main: built with  for x86_64-pc-windows-msvc", #6509)
       r"|%HIP_PATH%|\b\w{1,12}-pc-windows-msvc\b",
       # KoboldCpp loading its backend DLL: "Initializing dynamic library: koboldcpp_hipblas.dll"
       # (YellowRoseCx/koboldcpp-rocm#116)
       r"|^Initializing dynamic library: [\w.-]{1,60}\.dll\b",
       # CPython's build banner on Windows: "Python version: 3.13.9 (main, ...) [MSC v.1944 64 bit (AMD64)]" (an MSVC
       # build; ROCm/ROCm#4846); an environment table's "|Windows|10 22H2 Build: 19045.6466|"
       r"|\[MSC v\.\d{3,4} (?:32|64) bit \((?:AMD64|ARM64|Intel)\)\]|^\|[ \t]{0,4}Windows[ \t]{0,4}\|[ \t]{0,4}1[01]\b",
       r"|^\|\s{0,4}(?:OS|Operating System)\s{0,4}\|\s{0,4}(?:\*\*)?Windows 1[01]\b)"),  # a markdown table row
    # a markdown heading: a variable listed under "## What doesn't work" was tried, not set (ollama/ollama#14855)
    _r("md.heading", ("\n#",), r"^#{1,4}[ \t]{1,4}(?P<v>[^\n#]{1,100})$"),
    _r("env.visible", ("VISIBLE_DEVICES",),
       r"(?<![\w=:\"])(?P<v>(?:ROCR|HIP|CUDA|GPU_DEVICE_ORDINAL)(?:_VISIBLE_DEVICES)?\s?=\s?['\"]?[\w,-]{0,40})"),
    _r("secureboot", ("Secure Boot", "SecureBoot", "secure boot"),
       r"(?P<v>\b[Ss]ecure ?[Bb]oot[^\n]{0,120}?\b(?:prevent|block|refus|reject|stop)\w{0,4}[^\n]{0,80}"
       r"|\b(?:prevent|block|refus|reject)\w{0,4}[^\n]{0,60}?\b[Ss]ecure ?[Bb]oot\b)"),
    _r("container.group-add", ("--group-add",), r"--group-add[= ](?P<v>[\w-]{1,32})"),
    _r("container.video-only", ("--group-add",),
       r"(?P<v>\bonly (?:adds?|uses?|pass(?:es)?|with|has) [^\n]{0,20}--group-add[= ]video\b)"),
    # "ls -l /dev/kfd" or prose quoting it: "`/dev/kfd` = `crw-rw---- root root`" (Hal0ai/hal0#420)
    _r("dev.kfd-ls", ("/dev/kfd",),
       r"^(?=[^\n]{0,300}/dev/kfd\b)[^\n]{0,200}?\b(?P<v>c[r-][w-][x-][r-][w-][x-][r-][w-][x-][.+]?",
       r"[ \t]{1,8}(?:\d{1,4}[ \t]{1,8})?[a-z_][\w-]{0,31}[ \t]{1,8}[a-z_][\w-]{0,31})\b"),
    # the GPU targets a program is built for, from its configure line: "cmake -G Ninja -DAMDGPU_TARGETS=gfx1100
    # -DLLAMA_HIPBLAS=ON ..." (ggml-org/llama.cpp#6509), "--offload-arch=gfx1030"
    _r("build.targets", ("AMDGPU_TARGETS=", "GPU_TARGETS=", "HIP_ARCHITECTURES=", "--offload-arch="),
       r"(?:-D(?:AMDGPU_TARGETS|GPU_TARGETS|CMAKE_HIP_ARCHITECTURES)=|--offload-arch=)['\"]?",
       r"(?P<v>gfx[0-9a-f]{3,5}(?:[;,]gfx[0-9a-f]{3,5}){0,15})\b"),
    # the same node listed by name only: "ls -la /dev | grep kfd" prints "crw-------   1 root    root    234,   0 Mai 21
    # 05:13 kfd" (ROCm/ROCT-Thunk-Interface#36: a root-only node without ROCm's udev rule)
    _r("dev.kfd-ls", (" kfd",),
       r"^[ \t]{0,4}(?P<v>c[r-][w-][x-][r-][w-][x-][r-][w-][x-][.+]?[ \t]{1,8}\d{1,4}[ \t]{1,8}[a-z_][\w-]{0,31}",
       r"[ \t]{1,8}[a-z_][\w-]{0,31})[ \t]{1,8}\d{1,4},[ \t]{0,8}\d{1,4}[ \t][^\n/]{1,40}[ \t]kfd[ \t]*$"),
    _r("container.kfd-missing", ("custom device",),
       r"(?P<v>adding custom device \"/dev/(?:kfd|dri)[^\"\n]{0,40}\": no such file or directory)"),
    # the compiler refusing a program's GPU code for the target it builds for (vllm-project/vllm#6565, an MI50)
    # a Python extension compiled here (with the system's hipcc): "BUILD_TARGET=rocm python setup.py install"
    # (Dao-AILab/flash-attention#1307), "Building wheel for flash_attn (setup.py)", "pip install --no-build-isolation ."
    _r("build.extension", ("setup.py ", "Building wheel for ", "--no-build-isolation"),
       r"(?P<v>\bsetup\.py\s{1,4}(?:install|build|build_ext|develop|bdist_wheel)\b",
       r"|\bBuilding wheels? for [\w.-]{1,60} \((?:setup\.py|pyproject\.toml)\)",
       r"|\bpip3? install\b[^\n]{0,60}?--no-build-isolation\b)"),
    _r("build.isa-unsupported", ("instruction not supported on this GPU",),
       r"(?P<v>\berror: instruction not supported on this GPU\b)"),
    # a GPU passed through to a virtual machine ("I passthrough a MI 100 GPU to a virtual machine powered by libvirt",
    # pytorch/pytorch#115734): a guest's PCIe path usually offers no atomics
    _r("vm.passthrough", ("passthrough", "pass through", "passed through", "pass-through", "Passthrough"),
       r"(?P<v>\b[Pp]ass(?:ed|ing)?[ -]?through\b[^\n]{0,80}?",
       r"\b(?:virtual machine|VM|libvirt|KVM|QEMU|VFIO|Proxmox|ESXi)\b",
       r"|\b(?:virtual machine|VM|libvirt|KVM|Proxmox|ESXi)\b[^\n]{0,60}?\b[Pp]ass(?:ed)?[ -]?through\b)"),
    # the guest's PCI tree is VMware's: lspci's "00:15.0 PCI bridge: VMware PCI Express Root Port (rev 01)"
    # (ROCm/ROCm#307: ESXi gave the passed-through GPU no PCIe atomics)
    _r("vm.vmware", ("VMware PCI Express Root Port",),
       r"^[0-9a-f:.]{7,13}[ \t]{1,4}PCI bridge: (?P<v>VMware PCI Express Root Port)\b"),
    # the report says its GPU is on the bus: "the GPU shows up in dmesg and lspci:" above an excerpt that stops
    # before the GPU's line (ROCm/ROCm#307)
    _r("gpu.shown-said", ("shows up in", "show up in", "is listed in", "is visible in", "appears in"),
       r"(?P<v>\b(?:GPU|gpu|card|Card)s? (?:shows? up|is listed|is visible|appears) in (?:both )?(?:dmesg|lspci)\b)"),
    # HIP's hipErrorIllegalState on a kernel launch: "HIP error: the operation cannot be performed in the present state"
    _r("hip.illegal-state", ("present state", "hipErrorIllegalState"),
       r"(?P<v>\bHIP error: the operation cannot be performed in the present state|\bhipErrorIllegalState\b)"),
    # the host has no /dev/kfd, said in prose ("the `kfd` device is not present", "On Talos /dev/kfd isn't present":
    # siderolabs/extensions#307, ROCm/k8s-device-plugin#23) or by ROCm's k8s node labeller finding no kfd topology
    # ("Fail to glob topology properties"); "... inside the container" is container.devices-absent's
    _r("kfd.absent-said", ("kfd", "glob topology properties"),
       r"(?P<v>(?<![\w-])(?:/dev/)?kfd(?: {1,3}device)? {1,3}(?:is not|isn't|is missing|does not exist|doesn't exist)",
       r"(?: present| there)?(?![^\n.]{0,40}\b(?:inside|in|into) (?:the |a |my )?(?:container|pod|docker))",
       # "I also see that there is no kfd folder in /dev" (ROCm/ROCm#753)
       r"|\bthere is no (?:/dev/kfd\b|kfd (?:folder|directory|device|file|node) in /dev\b)",
       r"(?![^\n.]{0,40}\b(?:inside|in|into) (?:the |a |my )?(?:container|pod|docker))",
       r"|\bFail to glob topology properties\b)"),
    # prose: "the container only passes --ipc host, so /dev/kfd and /dev/dri are not visible inside the container"
    # (ROCm/TheRock#7705)
    _r("container.devices-absent", ("not visible inside the container", "not available inside the container",
                                    "not visible in the container", "not available in the container",
                                    "not passed to the container", "not passed into the container"),
       r"(?P<v>/dev/kfd(?:,? (?:and|or) /dev/dri)? (?:is|are) not (?:visible|available|passed) (?:inside|in|to|into) "
       r"the container)"),
    # "rocm only works when using sudo" (ROCm/ROCm-docker#36): the GPU answers root only, said in one sentence
    # SELinux keeping a confined service from the GPU's device nodes: "If I temporarily set SELinux to permissive
    # (`sudo setenforce 0`), BOINC immediately detects the GPU", "a small custom SELinux policy with `audit2allow` for
    # access to `/dev/kfd`" (BOINC/boinc#6634)
    _r("perm.selinux-gpu", ("SELinux", "selinux", "audit2allow"),
       r"(?P<v>\b(?:SELinux|selinux)\b[^\n]{0,80}?\b(?:permissive|setenforce 0)\b[^\n]{0,120}?",
       r"\b(?:detects|detected|finds|found|sees|lists|works|worked)\b|\baudit2allow\b[^\n]{0,120}?/dev/kfd\b)"),
    # the OpenCL platforms a report lists: Mesa's ("Platform: rusticl (Mesa/X.org)",
    # FoldingAtHome/fah-client-bastet#425; clinfo's "Platform Name  Clover") and ROCm's ("AMD Accelerated Parallel
    # Processing")
    _r("opencl.mesa", ("rusticl", "Clover"),
       r"^[ \t>*-]{0,8}Platform(?: Name)?:?[ \t]{1,60}(?P<v>rusticl|Clover)\b"),
    _r("opencl.amd", ("AMD Accelerated Parallel Processing",), r"(?P<v>\bAMD Accelerated Parallel Processing\b)"),
    # a program showing the GPU it found as unsupported: 'The GPU is detected by FAH client but shown as "Unsupported"'
    # (FoldingAtHome/fah-client-bastet#425: no ROCm OpenCL beside Mesa's, so Folding@home cannot use the GPU)
    _r("app.gpu-unsupported", ("Unsupported", "unsupported"),
       r"(?P<v>\b(?:shown|shows|listed|marked|flagged|displayed|labell?ed) as [\"'\u201c]?[Uu]nsupported\b)"),
    # the report saying its AMD card is gone, an NVIDIA one in its place: "I had a firepro w7100 but some days ago , i
    # removed it and now i am using an nvidia 3060" (ollama/ollama#2392: the amdgpu module stayed loaded, so ollama
    # looked for an AMD GPU and stopped on /dev/kfd's permissions; removing the module was the fix)
    _r("gpu.amd-removed", ("removed", "took out", "pulled out", "replaced", "Replaced", "swapped", "Swapped"),
       r"(?i:(?P<v>\bI had an? (?:AMD |ATI )?(?:FirePro|Radeon|RX|Vega|Instinct|R9|R7)\b[^\n]{0,80}?",
       r"\b(?:removed|took out|pulled out|replaced|swapped)\b[^\n]{0,80}?\b(?:nvidia|geforce|rtx|gtx)\b",
       r"|\b(?:removed|took out|pulled out|replaced|swapped(?: out)?) (?:my|the|our) (?:old )?(?:AMD |ATI )?",
       r"(?:FirePro|Radeon|RX|Vega|Instinct)\b[^\n]{0,60}?\b(?:with|for|by) (?:an? |my |the )?",
       r"(?:nvidia|geforce|rtx|gtx)\b))"),
    # conda-forge's HIP runtime (its feedstock's build path) aborting in hipRTC: ":0:/home/conda/feedstock_root/
    # build_artifacts/hip_1718643748184/work/clr/hipamd/src/hiprtc/hiprtcInternal.hpp:105 : ... Unable to add internal
    # header" (openmm/openmm#4675: the environment's HIP 6.0 hipRTC and comgr loaded beside the system's newer ROCm;
    # hiding the two conda libraries restored HIP)
    _r("hip.conda-rtc-abort", ("Unable to add internal header",),
       r"(?P<v>/feedstock_root/build_artifacts/hip_\d{1,16}/work/[\w/.-]{1,120}/hiprtcInternal\.hpp:\d{1,5}\b",
       r"[^\n]{0,120}?\bUnable to add internal header\b)"),
    _r("perm.root-only", ("only works", "only work", "only runs"),
       r"(?i:(?P<v>\bonly (?:works?|runs?)\b[^\n]{0,20}?\b(?:as root|for root|with sudo|using sudo|under sudo)\b))"),
    # the build path in an old rocminfo error names its release: ".../compute-rocm-rel-1.8/rocminfo/rocminfo.cc"
    _r("rocm.version", ("compute-rocm-rel-",), rf"/compute-rocm-rel-(?P<v>{_VER})/"),
    # rocminfo's own source path in its error line names the release it was built in: "file: /data/jenkins_workspace/
    # sandbox-centos/rocm-rel-2.1/rocm-2.1-96-20190201/centos/rocminfo/rocminfo.cc" (ROCm/legacy-rocm-build#804)
    _r("rocm.version", ("/rocminfo.cc",),
       rf"/rocm-rel-(?P<v>{_VER})/rocm-[\d.]{{3,12}}-\d{{1,6}}-\d{{8}}/[^\s/]{{1,40}}/rocminfo/rocminfo\.cc\b"),
)
