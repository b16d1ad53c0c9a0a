"""The free-text extractor's rules: one row per fact, a kind, the literals every match holds, a regex.

Data, not code (rocmdoctor.parse.freetext runs them): every regex has bounded quantifiers and looks back at most
one character (the window memo depends on it; tests/test_needles.py checks), and a comment names the thread a
rule came from. The PyTorch and pip rules live in ``freetext_rules_torch`` (:data:`RULES` runs them first), the GPU
rules in ``freetext_rules_gpu``.
"""

from __future__ import annotations

from rocmdoctor.parse.freetext_rule import FREE_TEXT, MAX_PER_RULE, NVIDIA_CUDA_PACKAGE, Rule
from rocmdoctor.parse.freetext_rule import VER as _VER
from rocmdoctor.parse.freetext_rule import rule as _r
from rocmdoctor.parse.freetext_rules_gpu import CODENAME, GPU_RULES
from rocmdoctor.parse.freetext_rules_host import HOST_RULES
from rocmdoctor.parse.freetext_rules_torch import TORCH_RULES

__all__ = ["CODENAME", "FREE_TEXT", "MAX_PER_RULE", "NVIDIA_CUDA_PACKAGE", "RULES", "Rule"]



# One row per fact. The ``v`` group is the value; a rule may match the same fact in many forms.
RULES: tuple[Rule, ...] = (
    *TORCH_RULES,
    # --- other programs and the host, said in their logs ----------------------------------------------------
    # the reporter says the machine has no AMD GPU at all ("a system without any AMD card on purpose",
    # ROCm/rocm-systems#1153)
    _r("gpu.none-said", ("without any AMD", "without an AMD", "no AMD GPU", "no AMD card", "no AMD graphics"),
       r"(?i:(?P<v>\b(?:(?:system|machine|computer|host|laptop|PC) without (?:any |an )?AMD (?:cards?|GPUs?|graphics)"
       r"|(?:there is|there's|has|have|with) no AMD (?:cards?|GPUs?|graphics)(?: (?:in|on) (?:it|this|the|my)\b)?)))"),
    # the report says an XGMI / Infinity Fabric bridge links the GPUs ("4x MI210 GPUs with a Infinity Fabric bridge",
    # ROCm/legacy-rocm-build#2747)
    _r("xgmi.bridge", ("Infinity Fabric", "infinity fabric", "XGMI bridge", "xGMI bridge", "XGMI link"),
       r"(?i:(?P<v>\b(?:infinity fabric|xgmi) (?:bridge|link)s?\b))"),
    # a report about another framework ("tensorflow-rocm", "jaxlib", "onnxruntime"): PyTorch's wheels are beside
    # the point when no torch appears (tensorflow-upstream#1207)
    _r("framework.other", ("tensorflow", "TensorFlow", "jaxlib", "jax_plugins", "jax-rocm", "onnxruntime", "migraphx",
                           "MIGraphX"),
       r"(?P<v>\b(?:tensorflow(?:-rocm)?|TensorFlow|jaxlib|jax_plugins|jax-rocm\w{0,10}|onnxruntime|migraphx|MIGraphX)\b)"),
    # the report installs AMD's own framework wheel ("pip install tensorflow-rocm --upgrade", ROCm/tensorflow-upstream
    # #1305): AMD builds it with its ROCm release, so AMD's GPU list is the verdict on it
    _r("app.amd-wheel", ("tensorflow-rocm",),
       r"\bpip3? install\b[^\n]{0,80}?(?<![\w.-])(?P<v>tensorflow-rocm)(?![\w.-])"),
    # the report's own test of two kernel driver releases: "ROCr init fails ... when using AMDGPU 6.14.14 + ...
    # The same hardware and ROCm user-space works when the kernel module/firmware is AMDGPU 6.12.12." (ROCm/ROCm#5433)
    _r("driver.works-with", ("works when the", "works with the", "worked with the", "works fine with the"),
       r"\b(?:works|worked)(?: fine| again)? (?:when|with) the (?:kernel module(?:/firmware)?|kernel driver|driver|",
       r"amdgpu driver) (?:is |was )?(?:AMDGPU |amdgpu(?:-dkms)? )?(?P<v>\d{1,2}\.\d{1,2}\.\d{1,3})\b"),
    _r("driver.version-named", ("using AMDGPU", "using amdgpu", "installs amdgpu", "installed amdgpu", "with AMDGPU"),
       r"\b(?:using|installs|installed|with) (?:AMDGPU|amdgpu-dkms|amdgpu) (?P<v>\d{1,2}\.\d{1,2}\.\d{1,3})\b"),
    # an in-place upgrade told in prose: "when i updated rocm 3.8 to 3.9,this error has happened" (ROCm/ROCm#1302)
    _r("rocm.upgraded", ("updated ", "upgraded ", "updating ", "upgrading "),
       rf"\b(?:updated|upgraded|updating|upgrading)\s{{1,3}}(?:from\s)?(?:the\s)?(?:ROCm|rocm|ROCM)[ -]?v?(?P<v>{_VER}",
       rf"\s{{1,3}}to\s{{1,3}}(?:ROCm[ -]|rocm[ -]|ROCM[ -])?v?{_VER})\b"),
    # "Today I upgraded to ROCm 2.2 through apt" (ROCm/ROCm#731): the release it went to (value "to ROCm 2.2")
    _r("rocm.upgraded", ("updated to", "upgraded to", "updating to", "upgrading to"),
       r"\b(?:updated|upgraded|updating|upgrading)\s{1,3}",
       rf"(?P<v>to\s{{1,3}}(?:the\s)?(?:ROCm|rocm|ROCM)[ -]?v?{_VER})\b(?![-/]|\.\d)"),
    # a ROCm tool that cannot find a file of its own tree: "/opt/rocm-3.8.0/bin/clang-ocl: line 49:
    # /opt/rocm-3.8.0/llvm/bin/clang: No such file or directory" (ROCm/ROCm#1260: llvm-amdgpu left in /opt/rocm-3.7.0)
    _r("rocm.tree-incomplete", ("/bin/",),
       rf"(?P<v>/opt/rocm-{_VER}/bin/[\w.-]{{1,40}}: line \d{{1,5}}: /opt/rocm-{_VER}/[\w./+-]{{1,160}}: ",
       r"No such file or directory)"),
    # HIP of a newer ROCm release than the HSA runtime it loaded: HIP asks each GPU agent for
    # HSA_AMD_AGENT_INFO_SCRATCH_LIMIT_MAX, which an older libhsa-runtime64 does not know, and drops the device
    # (clr rocdevice.cpp: LogWarning(...); return false): ":2:rocdevice.cpp :1076: ...
    # HSA_AMD_AGENT_INFO_SCRATCH_LIMIT_MAX cannot be queried!" (ROCm/legacy-rocm-build#5924: several ROCm releases
    # installed side by side; reinstalling 7.2.0 alone fixed it)
    _r("hip.hsa-attribute-unknown", ("cannot be queried!",),
       r"\brocdevice\.cpp\s{0,20}:\s{0,3}\d{1,5}\s{0,3}:[^\n]{0,120}?",
       r"(?P<v>HSA_AMD_AGENT_INFO_SCRATCH_LIMIT_MAX cannot be queried!)"),
    # the report saying an upgrade left packages behind: "with the release of 3.8.0 not all packages have been updated"
    _r("rocm.packages-behind", ("packages have been", "packages were", "packages got"),
       r"(?P<v>\bnot all (?:the )?(?:rocm |ROCm )?packages (?:have been|were|got) (?:updated|upgraded)\b)"),
    # LM Studio's ROCm engine failing its hardware survey: "ROCm llama.cpp (Linux) ... an “Error surveying hardware”
    # message appears" (lmstudio-ai/lmstudio-bug-tracker#1306), "ROCm llama.cpp (Linux)\nv1.50.2\nGPU survey
    # unsuccessful" (#1004)
    _r("app.lmstudio-rocm-survey", ("ROCm llama.cpp",),
       r"(?P<v>\bROCm llama\.cpp\b[^\n]{0,200}?(?:\n[^\n]{0,80}){0,2}?[^\n]{0,200}?",
       r"\b(?:GPU survey unsuccessful|Error surveying hardware)\b)"),
    # the report uses hipDF, AMD's port of RAPIDS cuDF ("import hipdf", ROCm/legacy-rocm-build#6383)
    _r("app.hipdf", ("hipdf",), r"(?P<v>^[ \t>]{0,8}(?:import hipdf\b|from hipdf import\b)|\bhipdf\.DataFrame\()"),
    # the report's own remedy, adding the user to the device groups, and the GPU working after it: "sudo usermod -a -G
    # render,video $LOGNAME ... Now, GPU can be used via ROCm or Vulkan backends." (unslothai/unsloth#10466)
    _r("perm.groups-remedy", ("usermod",),
       r"(?P<v>\busermod (?:-a -G|-aG|-G|--append --groups) ?[\w,]{0,40}?\b(?:render|video)\b[^\n]{0,80})",
       r"(?:\n[^\n]{0,300}){0,6}?\n[^\n]{0,60}?\b(?:[Nn]ow,? (?:the )?GPU (?:can be used|works|is (?:used|detected|",
       r"working))|[Nn]ow it works|[Ii]t works now|[Tt]h(?:at|is) fixed it)\b", span=7),
    # HIP's headers found in two trees, the distribution's and AMD's: "find / -name hip_bf16.h" listing
    # /usr/include/hip/hip_bf16.h and /opt/rocm-6.4.3/include/hip/hip_bf16.h (ggml-org/llama.cpp#15196: Ubuntu's
    # libamdhip64-dev beside ROCm 6.4.3; the build then fails with ld.lld's "duplicate symbol: __float2bfloat16")
    _r("hip.headers-distro", ("/usr/include/hip/",), r"^[ \t]{0,4}(?P<v>/usr/include/hip/[\w.]{1,60}\.h)[ \t]*$"),
    _r("hip.headers-amd", ("/include/hip/",),
       r"^[ \t]{0,4}(?P<v>/opt/rocm(?:-\d{1,2}\.\d{1,2}(?:\.\d{1,3})?)?/include/hip/[\w.]{1,60}\.h)[ \t]*$"),
    _r("build.duplicate-symbol", ("duplicate symbol: ",),
       r"(?P<v>\bld(?:\.lld)?: error: duplicate symbol: [^\n]{1,120})"),
    # a launcher printing each task's visible GPU: 'flux run -N 1 -n 24 -g 1  bash -c "echo \$ROCR_VISIBLE_DEVICES"' and
    # one index per task below it (llnl/mpibind#45: 24 tasks on 24 MI300A partitions all got 18-23)
    _r("visible-devices.per-task", ("_VISIBLE_DEVICES",),
       r"^(?P<v>[^\n]{0,200}?\becho \\?\$\{?(?:ROCR|HIP|CUDA)_VISIBLE_DEVICES\b[^\n]{0,60}\n",
       r"(?:[ \t]{0,4}\d{1,3}[ \t]{0,4}\n){4,128})", span=130),
    # the report builds FlashAttention's Composable Kernel extension from source, setuptools saying "building
    # 'flash_attn_2_cuda' extension" (ROCm/flash-attention#111, for a gfx1151); its Triton backend builds no extension
    _r("app.flash-attn-ck", ("flash_attn_2_cuda",), r"(?P<v>\bbuilding 'flash_attn_2_cuda' extension\b)"),
    # the vLLM release a report runs: "ROCm 6.4.1; PyTorch 2.6.0; vLLM 0.8.2" (ROCm/legacy-rocm-build#5007),
    # "vllm==0.8.2", vLLM's own start-up line "vLLM API server version 0.8.2"
    _r("vllm.version", ("vLLM ", "vllm==", "server version"),
       r"(?:\bvLLM v?|^[ \t]{0,8}vllm==|\bvLLM API server version v?)(?P<v>\d{1,2}\.\d{1,3}\.\d{1,3})(?![\w.+-])"),
    # the report runs vLLM: AMD's image ("DOCKER_IMG=rocm/vllm:rocm6.3.1_mi300_...", ROCm/legacy-rocm-build#4447),
    # vLLM's own ROCm image, its server module or CLI ("vllm serve" only as a command, not in prose)
    _r("app.vllm", ("rocm/vllm", "vllm/vllm-openai-rocm", "-m vllm.entrypoints", "vllm serve"),
       r"(?P<v>\brocm/vllm(?:-dev)?:[\w.-]{1,120}|\bvllm/vllm-openai-rocm\b(?::[\w.-]{1,60})?",
       r"|-m vllm\.entrypoints\b|^\s{0,8}(?:\$\s{1,4})?vllm serve\b)"),
    # prebuilts built for a fixed list of targets (matrices/apps.toml): llama.cpp's Windows HIP Radeon release asset
    # "llama-b10107-bin-win-hip-radeon-x64.zip" (ggml-org/llama.cpp#26127), AMD's AlphaFold image
    # "amddcgpuce/rocmalphafold_22_tf29:5.2.0-ub20" (srinivamd/rocminstaller#6)
    _r("app.llamacpp-win-hip-radeon", ("bin-win-hip-radeon",),
       r"(?P<v>\bllama-(?:b\d{3,6}-)?bin-win-hip-radeon-x64)\b"),
    # KoboldCpp-ROCm's banner, its release with YellowRoseCx's "yr" suffix: "Welcome to KoboldCpp - Version
    # 1.85.yr0-ROCm-Build2" (YellowRoseCx/koboldcpp-rocm#116; its Windows builds carry a fixed target list)
    _r("app.koboldcpp-rocm", ("KoboldCpp - Version ",),
       r"\bKoboldCpp - Version (?P<v>1\.\d{1,3}(?:\.\d{1,3})?\.yr\d{1,2}-ROCm)\b"),
    _r("app.amd-alphafold-5.2", ("rocmalphafold_22_tf29:5.2.0",),
       r"(?P<v>\bamddcgpuce/rocmalphafold_22_tf29:5\.2\.0-ub20)\b"),
    # apt fetching a package: "Get:1 http://archive.ubuntu.com/ubuntu noble/universe amd64 rocminfo amd64 5.7.1-3build1"
    # (the same package from the distribution and from repo.radeon.com: ROCm/legacy-rocm-build#3656)
    _r("apt.get", ("Get:",),
       r"\bGet:\d{1,5}\s{1,4}(?P<v>https?://[\w.-]{1,80}/\S{0,120}\s{1,4}\S{1,60}\s{1,4}[\w-]{1,16}\s{1,4}",
       r"[\w.+-]{1,64}\s{1,4}[\w-]{1,16}\s{1,4}[\w.:~+-]{1,60})"),
    # a distribution's own ROCm/PyTorch packages (Arch's pacman/AUR helpers, Fedora's dnf): built with the
    # distribution's target list, not AMD's (ROCm/legacy-rocm-build#887: `sudo pacman -Syy rocm-hip-sdk`,
    # `python-pytorch-rocm`, an RX 5700 running the MNIST example)
    _r("rocm.distro-packages", ("pacman ", "yay ", "paru ", "dnf "),
       r"(?P<v>\b(?:pacman|yay|paru)\s{1,4}-S\w{0,4}\s[^\n]{0,120}?\b(?:rocm-hip-sdk|rocm-hip-runtime|rocm-opencl-sdk|",
       r"python-pytorch-(?:opt-)?rocm|rocblas|miopen-hip|hip-runtime-amd)\b",
       r"|\bdnf\s{1,4}install\s[^\n]{0,120}?\b(?:rocm-hip|rocm-runtime|rocm-opencl|hipblas|rocblas)\b)"),
    # nixpkgs' ROCm: a store path of one of its ROCm packages ("/nix/store/xs85f29k...-hipcc-5.7.0/bin//hipcc.pl",
    # NixOS/nixpkgs#265095), the package set by name (`rocmPackages.hipcc`, `rocmPackages_5.clr`), or a NixOS service
    # built with it ('services.ollama.acceleration = "rocm";', NixOS/nixos-hardware#1240): NixOS builds these itself
    _r("rocm.distro-packages", ("/nix/store/", "rocmPackages", "acceleration"),
       r"(?P<v>/nix/store/[0-9a-z]{32}-(?:hipcc|clr|rocm-runtime|rocm-device-libs|rocm-comgr|rocblas|rocminfo|",
       r"rocm-smi|miopen|hipblas|rocm-opencl-runtime)-\d{1,2}\.\d{1,2}(?:\.\d{1,3})?\b",
       r"|\brocmPackages(?:_\d)?\.[a-z][\w-]{1,30}|\bservices\.\w{1,30}\.acceleration = \"rocm\")"),
    # AMD's own packages, named in a log or in prose ("apt install rocm-dkms", "dpkg: error processing package
    # rock-dkms", 'installed "rocm-dkms" from yum repo': ROCm/ROCm#631, #780): built for the distributions AMD lists
    _r("rocm.amd-packages", ("rocm-dkms", "rock-dkms", "amdgpu-dkms", "amdgpu-install", "repo.radeon.com"),
       r"(?P<v>\b(?:rocm-dkms|rock-dkms|amdgpu-dkms|amdgpu-install)\b",
       # the distribution package repositories (not rocm/manylinux/, whose Python wheels fit any distribution)
       r"|\brepo\.radeon\.com/(?:rocm/(?:apt|yum|rhel\d{0,2}|zyp|sle\w{0,6})|amdgpu(?:-install)?)/)"),
    # vulkaninfo --summary on Mesa: the kernel driver's own ISA for each board, untouched by HSA_OVERRIDE_GFX_VERSION
    # ("GPU id = 1 (Radeon 8060S Graphics (RADV GFX1151))", ROCm/legacy-rocm-build#5696)
    _r("gpu.vulkan", ("(RADV GFX",), r"\((?:RADV|radv) (?P<v>GFX\d{3,4}[A-Fa-f]?)\)"),
    # --- ROCm / HIP versions (paths, URLs, package names) ----------------------------------------------------
    _r("rocm.path", ("/opt/rocm-",), rf"(?P<v>/opt/rocm-{_VER})\b"),
    _r("rocm.path", ("/opt/rocm_sdk_",), r"(?P<v>/opt/rocm_sdk_\d{3})\b"),  # ROCm SDK Builder: 612 = 6.1.2
    # the linker cache listing the HIP runtime: "libamdhip64.so.6 (libc6,x86-64) => /lib64/libamdhip64.so.6" (`ldconfig
    # -p`, Fedora's own rocm-hip package; warpfront/hipfire#64): installed, in the directory named
    _r("rocm.lib-dir", ("libamdhip64.so",),
       r"^[ \t]{0,16}libamdhip64\.so(?:\.\d{1,3}){0,3}[ \t]{1,4}\([\w,.-]{1,40}\)[ \t]{1,4}=>[ \t]{1,4}"
       r"(?P<v>/[\w./+-]{1,200}?)/libamdhip64\.so\b"),
    # the HIP SDK for Windows installs under its release: "C:\Program Files\AMD\ROCm\6.2\bin" (FramePack-ZLUDA#4)
    _r("rocm.path", ("\\AMD\\ROCm\\",), r"(?P<v>\b[A-Za-z]:\\Program Files\\AMD\\ROCm\\\d{1,2}\.\d{1,2})(?=\\|\b)"),
    # "I had rocm-5.7 installed", "ROCm 6.2", "rocm 3.9 to 3.10": a release named in prose (not an index URL)
    _r("rocm.named", ("had ", "installed "),
       rf"\b(?:had|installed)\s{{1,3}}(?:the\s)?(?:ROCm|rocm|ROCM)[ -]v?(?P<v>{_VER})\b(?![-/])"),
    # EasyBuild's version suffix names the ROCm a program was built with and runs on: ".../GROMACS/2025.1-rocm-
    # compilers-19.0.0-ROCm-6.4.1/bin/gmx" (easybuilders/easybuild-easyconfigs#25637: the ROCm/6.4.1 module)
    _r("rocm.named", ("-ROCm-",), rf"/[\w.+-]{{1,80}}?-ROCm-(?P<v>{_VER})(?=/|$)"),
    # the same, written together in prose: "and install rocm7.1.1" (ROCm/ROCm#5861), or apart: "I install rocm 6.1."
    # (ROCm/ROCm#3054)
    _r("rocm.named", ("install rocm", "installed rocm", "install ROCm", "installed ROCm"),
       r"\b(?:and|then|I|i) install(?:ed)? (?:ROCm|rocm) ?(?P<v>\d{1,2}\.\d{1,2}(?:\.\d{1,3})?)\b(?![-/])"),
    # (a parenthesis between: "with ROCm 3.5.1 (`rocm-dkms`) installed", ROCm/ROCm-OpenCL-Runtime#122)
    _r("rocm.named", (" installed", " to "),
       rf"(?<![/\w.])(?:ROCm|rocm|ROCM)[ -]v?(?P<v>{_VER})\s{{1,3}}(?:\([^()\n]{{1,40}}\)\s{{1,3}})?"
       r"(?:installed|to\s\d)"),
    # the release a report sets out to install: "I am trying to install ROCm 1.9.2 on desktop with vega10"
    # (ROCm/legacy-rocm-build#624; its rocminfo ran, so that release is what is installed)
    _r("rocm.named", ("trying to install ", "tried to install ", "try to install "),
       rf"\b(?:trying|tried|try) to install (?:the )?(?:ROCm|rocm|ROCM)[ -]v?(?P<v>{_VER})\b(?![-/]|\.\d)"),
    # "ROCM version is 5.6" (ROCm/legacy-rocm-build#3122)
    _r("rocm.named", ("version is",), rf"\b(?:ROCm|ROCM|rocm) version is v?(?P<v>{_VER})\b(?![-/])"),
    # "I am using ROCm version 6.0.0." (invoke-ai/InvokeAI#5738), "running rocm 6.2"
    _r("rocm.named", tuple(f"{v} {r}" for v in ("using", "running", "have") for r in ("ROCm", "rocm", "ROCM")),
       rf"\b(?:using|running|have) (?:ROCm|rocm|ROCM)(?: version)?[ -]v?(?P<v>{_VER})\b(?![-/])"),
    # one item of the environment the report lists after its verb: "I'm using Ubuntu 20.04.1, ROCM 3.7, RX570."
    # (ROCm/rocHPCG#22)
    _r("rocm.named", (", ROCm ", ", rocm ", ", ROCM ", "and ROCm ", "and rocm "),
       r"\b(?:using|running|on|with)\b[^\n]{0,60}?(?:,|\band\b)[ \t]{1,2}(?:ROCm|rocm|ROCM)[ -]v?",
       rf"(?P<v>{_VER})(?=[ \t]{{0,2}}(?:,|\.(?!\d)|\band\b|$))"),
    _r("rocm.index", ("/whl/",), rf"/whl/(?:nightly/|test/)?rocm(?P<v>{_VER})\b"),
    # the reporter says which torch they installed: "then I tried nightly pip install --pre torch ... --index-url
    # <PyTorch's index>/nightly/cu124" (Comfy-Org/ComfyUI#5138); the last such line is the torch in use
    _r("torch.installed-from", ("/whl/",),
       r"^[^\n`$]{0,80}\bI\b[^\n`$]{0,40}?\b(?:installed|tried|ran|did|used)\b[^\n]{0,60}?\bpip3? install\b",
       r"[^\n]{0,160}?",
       r"--(?:extra-)?index-url[ =]https://download\.pytorch\.org/whl/(?:nightly/|test/)?(?P<v>cu\d{3}|cpu|rocm[\d.]{1,8})\b"),
    # a ROCm component's package file carries its release in five digits after its own version: "rocrand4.2.0_
    # 2.10.9.40200-21_amd64.deb" is ROCm 4.2.0 (ROCm/rocRAND#177); the same in an .rpm's name
    _r("rocm.package-file", ("_amd64.deb", ".x86_64.rpm"),
       r"\b(?:roc|hip|miopen|rccl|hsa|amd|comgr|migraphx|composablekernel)[\w.+-]{0,60}?[_-]",
       r"\d{1,3}\.\d{1,3}\.\d{1,4}\.(?P<v>[3-9]0\d{3})-\d{1,9}[^\s_/]{0,40}",
       r"(?:_amd64\.deb|\.x86_64\.rpm)\b"),
    _r("rocm.core", ("rocm-core",), rf"\brocm-core(?:[ \t]{{1,40}}|/\S{{1,60}}[ \t]{{1,4}}|=)(?P<v>{_VER})"),
    # (TensorFlow's issue template asks "- ROCm/MIOpen version: 4.2.0", ROCm/tensorflow-upstream#1398)
    _r("rocm.version", tuple(f"{p}{s}" for p in ("ROCm", "ROCM", "Rocm", "rocm")
                             for s in (":", " :", "=", "**", " version", " Version", "/MIOpen version")),
       rf"^[\s>*-]{{0,8}}(?:\*\*)?(?:ROCm|ROCM|Rocm|rocm)(?:/MIOpen)?(?: [Vv]ersion)?(?:\*\*)?\s{{0,4}}[:=](?:\*\*)?"
       rf"\s{{0,4}}v?"  # not a speed an app prints per backend: "ROCm : 16.91 tok/sec" (LM Studio, ROCm/ROCm#4722)
       rf"(?P<v>{_VER})\b(?![ \t]{{0,4}}(?:tok|t/s|it/s|tokens))"),
    # a markdown table row: "| **ROCm** | 7.1.1 (Docker: ...) |" (ROCm/amdgpu#213)
    _r("rocm.version", ("| **ROCm**", "| ROCm |", "| ROCm Version", "| **ROCm Version**", "| ROCm version"),
       rf"^\|\s{{0,4}}(?:\*\*)?ROCm(?: [Vv]ersion)?(?:\*\*)?\s{{0,4}}\|\s{{0,4}}v?(?P<v>{_VER})\b"),
    _r("rocm.version", ("ROCm Version",),  # ROCm's GitHub issue template: "### ROCm Version\n\nROCm 6.2.0"
       rf"^#{{2,4}} ROCm Version\s{{0,4}}\n\s{{0,4}}\n?\s{{0,4}}(?:[Rr][Oo][Cc][Mm] ?)?v?(?P<v>{_VER})\b"),
    # `amd-smi version`: "AMDSMI Tool: 24.7.1+8dc45db | AMDSMI Library version: 25.1.0.0 | ROCm version: 6.3.3"
    _r("rocm.version", ("| ROCm version:",), rf"\| ROCm version: (?P<v>{_VER})\b"),
    _r("rocm.version", ("ROCM_VERSION",), rf"\bROCM_VERSION[=:]\s{{0,2}}['\"]?(?P<v>{_VER})"),
    _r("hip.version", ("HIP version",),
       r"^\s{0,8}HIP version\s{0,4}:\s{0,4}(?P<v>\d{1,3}\.\d{1,3}\.\d{1,8}[\w.-]{0,30})"),
    # --- Python ------------------------------------------------------------------------------------------
    _r("python.version", ("Python 3.",), r"^\s{0,8}Python (?P<v>3\.\d{1,2}\.\d{1,3})(?:[\w+]{0,12})?(?: \(|\s*$)"),
    _r("python.version", ("Python version",), r"^\s{0,8}Python version\s{0,4}:\s{0,4}(?P<v>3\.\d{1,2}\.\d{1,3})"),
    # a markdown environment list or table: "- **Python**: 3.12.3", "| **Python** | 3.11.9 |"
    _r("python.version", ("**Python", "| Python"),
       r"^[\s>*|-]{0,8}(?:\*\*)?Python(?: [Vv]ersion)?(?:\*\*)?\s{0,4}[:|]\s{0,4}(?:\*\*)?v?",
       r"(?P<v>3\.\d{1,2}\.\d{1,3})\b"),
    _r("python.version", ("Installing Python",), r"Installing Python (?P<v>3\.\d{1,2}\.\d{1,3})"),
    _r("python.minor", ("py -3.", "python -3."), r"\bpy(?:thon)? -(?P<v>3\.\d{1,2})\b"),
    # prose: "an AMD/ROCm host running Python 3.11 via ..." (vllm#44660)
    _r("python.minor", ("running Python 3.", "on Python 3.", "using Python 3.", "with Python 3."),
       r"\b(?:running|on|using|with) Python (?P<v>3\.\d{1,2})\b(?![.\d])"),
    # "There are no packages for Python 3.8, as of yet" (ROCm/tensorflow-upstream#890): the Python the report uses
    _r("python.minor", ("for Python 3.",),
       r"\b(?:no|any|missing) (?:packages|wheels|builds|binaries) for Python (?P<v>3\.\d{1,2})\b(?![.\d])"),
    # pip refusing a torch/ROCm wheel file for this interpreter: "ERROR: torch-2.0.1+gite19229c-cp310-cp310-
    # linux_x86_64.whl is not a supported wheel on this platform." (evshiron/rocm_lab#6: Python 3.11)
    _r("pip.wheel-refused", ("is not a supported wheel",),
       r"(?P<v>\b(?:torch|torchvision|torchaudio|vllm|pytorch_triton_rocm|triton)-\d[\w.+%]{0,60}-cp\d{2,3}-",
       r"(?:cp\d{2,3}|abi3)-[\w.]{1,60}\.whl) is not a supported wheel on this platform"),
    # a ROCm wheel's file name in an index listing: its CPython tag says which Pythons get it
    _r("wheel.rocm-cp", ("+rocm",),
       r"(?P<v>\b[A-Za-z][\w.-]{0,60}\+rocm[\w.]{1,20}-cp\d{2,3}-(?:cp\d{2,3}|abi3)-\S{1,80}\.whl)"),
    _r("python.minor", ("/lib/python3.",), r"/lib/python(?P<v>3\.\d{1,2})/(?:site|dist)-packages\b"),
    _r("python.minor", ("-cp3",), r"\btorch-\d[\w.%+]{0,60}-cp(?P<v>3\d{1,2})-"),  # "310": see python_minor()
    *HOST_RULES,
    # --- prompts ----------------------------------------------------------------------------------------------
    _r("prompt.venv", ("\n(",),
       r"^\((?P<v>[\w.-]{1,64})\)\s{1,4}(?:[\w.-]{1,64}@[\w.-]{1,64}:|PS |[$#>]|\S{0,200}[$#>] )"),
    _r("prompt.container", ("root@",), r"\broot@(?P<v>[0-9a-f]{12})\b:"),
    # --- GPUs -------------------------------------------------------------------------------------------------
    *GPU_RULES,
    # --- environment, services, containers -------------------------------------------------------------------
    _r("env.override.shell", ("HSA_OVERRIDE_GFX_VERSION",),
       r"(?<![\w=:\"])HSA_OVERRIDE_GFX_VERSION['\"]?\]?\s?=\s?['\"]?(?P<v>\d{1,2}\.\d{1,2}\.\d{1,2})"),
    # the report saying the program runs with an override: "If I use ... HSA_OVERRIDE_GFX_VERSION=11.5.1 / The docker
    # container is running with llama" (a gfx1150 under a gfx1151-only image), "works fine with
    # HSA_OVERRIDE_GFX_VERSION=10.3.0"; not "still not working", "doesn't work"
    # (group 1 set: "works ... with" came first; else the line or the next must say it works after the value; no
    # "not", "n't", "never" or "no longer" on the way: lookbehinds stay one character wide for the window memo)
    _r("env.override.works", ("HSA_OVERRIDE_GFX_VERSION",),
       r"(^(?:(?!\bnot\b|n't\b|\bnever\b)[^\n]){0,200}?\b(?:works|working|runs|running) (?:fine |well )?",
       r"(?:with|using) [`'\"]?)?(?<![\w=:\"])HSA_OVERRIDE_GFX_VERSION['\"]?\s?=\s?['\"]?",
       r"(?P<v>\d{1,2}\.\d{1,2}\.\d{1,2})",
       r"(?(1)|(?:(?!\bnot\b|n't\b|\bnever\b|\blonger\b)[^\n]){0,40}\n?",
       r"(?:(?!\bnot\b|n't\b|\bnever\b|\blonger\b)[^\n]){0,120}?\b(?:works|working|is running|runs fine|run fine)\b)"),
    # the report saying its program needs one: "I always had to start python main.py with
    # HSA_OVERRIDE_GFX_VERSION=10.3.0" (mcmonkeyprojects/SwarmUI#592); not "I never had to ..."
    _r("env.override.works", ("HSA_OVERRIDE_GFX_VERSION",),
       r"^(?:(?!\bnot\b|n't\b|\bnever\b)[^\n]){0,200}?\b(?:had|have|has|need|needs|needed) to (?:start|run|launch)\b",
       r"[^\n]{0,80}?\bwith [`'\"]?HSA_OVERRIDE_GFX_VERSION['\"]?\s?=\s?['\"]?(?P<v>\d{1,2}\.\d{1,2}\.\d{1,2})"),
    # any value, malformed ones included ("HSA_OVERRIDE_GFX_VERSION=gfx1102" in an ollama log, ollama#12071)
    _r("env.override.named", ("HSA_OVERRIDE_GFX_VERSION",),
       r"(?<![\w])HSA_OVERRIDE_GFX_VERSION['\"]?\s?[=:]\s?['\"]?(?P<v>[\w.]{1,12})"),
    _r("env.override.service", ("Environment=",), r"Environment=['\"]?HSA_OVERRIDE_GFX_VERSION=(?P<v>[\d.]{0,12})"),
    # NixOS/nixos-hardware#1240: "services.ollama.rocmOverrideGfx = \"11.0.2\";" is the service's override (nixpkgs'
    # nixos/modules/services/misc/ollama.nix: "This sets the value of `HSA_OVERRIDE_GFX_VERSION`"), not the shell's
    _r("env.override.service", ("rocmOverrideGfx",),
       r"\brocmOverrideGfx\s{0,3}=\s{0,3}\"(?P<v>\d{1,2}\.\d{1,2}\.\d{1,2})\""),
    # a compose file's `environment:` entry is the container's own environment, the process's: "environment:" then
    # "  - HSA_OVERRIDE_GFX_VERSION=11.0.0" (ollama/ollama#5426, a 780M that works), or the mapping form "KEY: "x""
    _r("env.override.process", ("environment:",),
       r"^[ \t]{0,12}environment:[ \t]*\n(?:[ \t]{2,16}[^ \t\n][^\n]{0,200}\n){0,20}?[ \t]{2,16}(?:-[ \t]{1,4})?['\"]?",
       r"HSA_OVERRIDE_GFX_VERSION['\"]?(?:=|:[ \t]{1,4})['\"]?(?P<v>\d{1,2}\.\d{1,2}\.\d{1,2})['\"]?[ \t]*$", span=21),
    _r("env.override.process", ("server config",),
       r"server config[^\n]{0,3000}?\bHSA_OVERRIDE_GFX_VERSION:(?P<v>[\d.]{0,12})"),
    # "I can't list devices as user" ... "But I can do it as root" (ROCm/legacy-rocm-build#1826): the GPU answers root
    # only, a device-permission problem; both halves are needed (perm.root-only in bundle/text.py)
    _r("perm.user-fails", ("as user", "as a user", "as my user", "as normal user", "as a normal user", "without sudo",
                           "as non-root", "as a regular user"),
       r"(?i:(?P<v>\b(?:can(?:'|no)?t|cannot|doesn't|does not|don't|fails?|nothing)\b[^\n]{0,60}?\b"
       r"(?:as (?:a |my |the )?(?:normal |regular |non-root )?user|as non-root|without sudo)\b))"),
    # (markdown may bold it: "But if I run it as **root**, it works as intended", ROCm/ROCm#1080)
    _r("perm.root-works", ("as root", "with sudo", "using sudo", "under sudo", "as **root"),
       r"(?i:(?P<v>\b(?:can|works?|working|does|runs?|lists?|sees?|fine|only)\b[^\n]{0,40}?\b(?:as \*{0,2}root|"
       r"with sudo|using sudo|under sudo)\b))"),
    # the condition first, the outcome after: "But if I run it as **root**, it works as intended" (ROCm/ROCm#1080)
    _r("perm.root-then-works", ("as root", "as **root"),
       r"(?i:(?P<v>\b(?:run|ran|running|start|started|use|used|try|tried)\b[^\n]{0,30}?\bas \*{0,2}root\b\*{0,2},?"
       r"[ \t]{1,4}(?:(?:it|that|this|everything|rocminfo)[ \t]{1,4})?(?:works|worked|runs fine|is fine)\b))"),
    # "the user is already in the `video` group": the groups the report says the user has
    _r("user.in-group", ("video group", "video  group", "render group", "render  group", "video' group",
                         'video" group'),
       r"(?i:\buser (?:is )?(?:already )?(?:in|a member of)\s{1,3}(?:the\s{1,3})?['\"]?(?P<v>video|render)['\"]?"
       r"\s{1,3}group\b)"),
    _r("service", ("systemd[1]", "systemctl ", "journalctl", ".service"),
       r"(?P<v>\bsystemd\[1\]|\bsystemctl (?:edit|restart|status|start) [\w.@-]{1,60}|\bjournalctl\b|\.service\b)"),
    # Distrobox shares the host's /dev with its containers: a GPU missing inside one is the user's access, not a
    # device flag ("No HIP GPUs are available" in a Distrobox, kyuz0/amd-r9700-vllm-toolboxes#1; judge/perm.py)
    _r("container.distrobox", ("istrobox",), r"(?P<v>\b[Dd]istrobox\b)"),
    # the report says the GPU works on the host itself ("LM Studio using rocm engine on host OS is confirmed working")
    _r("host.works", ("on host", "on the host"),
       r"(?P<v>\bon (?:the )?host(?: OS| system| machine)?\b[^\n]{0,40}?\b(?:works?|working|runs? fine)\b)"),
    # AMD's GPU operator loading its amdgpu through Kubernetes' KMM worker ('"Running modprobe" logger="kmm-worker"
    # command="/sbin/modprobe -vd /tmp/opt amdgpu"', ROCm/gpu-operator#330)
    _r("k8s.kmm-amdgpu", ("Running modprobe",),
       r"(?P<v>\"Running modprobe\"[^\n]{0,200}?\bmodprobe\b[^\n]{0,60}?\bamdgpu\b)"),
    _r("container.run", ("docker ", "podman ", "nerdctl "),
       # not prose about a run ("podman run by **user**, all /dev/dri/renderD* devices passed in", ROCm/ROCm#3144);
       # with its continued lines ("docker run -it -v $HOME:$HOME \" then "--device=/dev/kfd --device=/dev/dri \",
       # sgl-project/sglang#15252)
       r"(?P<v>\b(?:docker|podman|nerdctl) (?:container )?(?:run|create)\b",
       r"(?! (?:by|with|as|in|on|from|is|was|and|or|for|to|the|a|an|command|commands|fails?|failed|works?|worked)\b)",
       r"(?:[^\n]{0,300}\\[ \t]{0,4}\n){0,24}[^\n]{0,1500})", span=24),
    # a list or mapping follows the key ("devices: 0" in a torch check's printout is a count,
    # mcmonkeyprojects/SwarmUI#1531)
    _r("container.compose", ("devices:", "group_add:", "runtime:", "deploy:"),
       r"(?P<v>^\s{0,8}(?:(?:devices|group_add|deploy):(?=[ \t]{0,8}(?:$|\[|#))|runtime:))"),
    _r("container.compose-item", ("/dev/kfd", "/dev/dri", "video", "render"),
       r"^\s{0,16}-\s{1,4}['\"]?(?P<v>/dev/(?:kfd|dri)\b\S{0,40}|video|render)['\"]?\s*$"),
)
