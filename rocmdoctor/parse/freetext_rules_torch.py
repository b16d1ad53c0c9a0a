"""Free-text rules for PyTorch and pip/uv: the torch build, its version and companions, what pip installed.

Data (see :mod:`rocmdoctor.parse.freetext_rule`); :data:`rocmdoctor.parse.freetext_rules.RULES` runs them first.
Every regex has bounded quantifiers and looks back at most one character (tests/test_needles.py checks), and a
comment names the thread a rule came from.
"""

from __future__ import annotations

from rocmdoctor.parse.freetext_rule import NVIDIA_CUDA_PACKAGE, Rule
from rocmdoctor.parse.freetext_rule import TORCH_VER as _TORCH_VER
from rocmdoctor.parse.freetext_rule import rule as _r

# "torch.x: v", "print(torch.x)\nv", ">>> x\n'v'", IPython's "In [2]: torch.x" then "Out[2]: 'v'" (ROCm/ROCm#2536)
_TORCH_Q = r"\s{0,4}\)?[\s:=>'\",]{0,12}(?:\n[>.\s]{0,8}|\n{1,2}Out\[\d{1,4}\]:[ \t]{0,4})?['\"]?"

TORCH_RULES: tuple[Rule, ...] = (
    # --- PyTorch -----------------------------------------------------------------------------------------
    _r("torch.version", ("torch.__version__",), r"torch\.__version__", _TORCH_Q, rf"(?P<v>{_TORCH_VER})"),
    # a `pip freeze` line on its own: "torch==2.6.0.dev20241015+rocm6.2" (ROCm/hipBLASLt#1243)
    _r("torch.version", ("torch==",), rf"^torch==(?P<v>{_TORCH_VER})[ \t]*$"),
    # uv's resolver summary: " - torch==2.11.0+rocm7.13.0" then " + torch==2.10.0" (unslothai/unsloth#7275): the "+"
    # line is the torch left installed
    _r("torch.version", ("+ torch==",), rf"^[ \t]{{0,8}}\+ torch==(?P<v>{_TORCH_VER})[ \t]*$"),
    # SD.Next's installer on Windows leaving PyTorch's CPU wheel (vladmandic/sdnext#3108)
    _r("torch.cpu-installed", ("no Torch release for Windows",),
       r"(?P<v>HIP SDK is detected, but no Torch release for Windows available)"),
    _r("torch.replaced", ("- torch==",), r"^[ \t]{0,8}- torch==\d[\w.]{0,30}\+rocm[\w.]{1,30}[ \t]*\n",
       rf"[ \t]{{0,8}}\+ torch==(?P<v>{_TORCH_VER})[ \t]*$"),
    # pip resolving torch as another package's dependency and fetching PyPI's wheel (no +rocm label): "Collecting
    # torch>=1.1.0 (from torchvision)" then "Downloading https://files.pythonhosted.org/.../torch-1.1.0-cp36-cp36m-
    # manylinux1_x86_64.whl" (ROCm/pytorch#411: it replaces the ROCm build)
    _r("torch.pulled", ("Collecting torch",),
       r"^[ \t]{0,8}Collecting torch(?:[<>=!~][^\s(]{0,40})? \(from [\w.-]{1,60}[^)\n]{0,60}\)[ \t]*\n",
       r"[ \t]{0,8}(?:Downloading|Using cached) (?:\S{0,300}/)?",
       r"(?P<v>torch-\d{1,2}\.\d{1,3}\.\d{1,3}[\w.]{0,40}-cp\d{2,3}-\w{2,12}-(?:manylinux|linux)\S{0,60}\.whl)",
       span=2),
    # a `pip list` row: "torch                  2.0.0+rocm5.4.2" (pytorch/pytorch#99234, under `pip3 list | grep torch`)
    _r("torch.version", ("\ntorch ",), rf"^torch[ \t]{{2,40}}(?P<v>{_TORCH_VER})[ \t]*$"),
    # an install step pinning a tagged torch: "pip install -v torch==2.5.1+rocm6.2 --index-url ..." (Dao-AILab/
    # flash-attention#1307): the torch the report runs when nothing prints its version
    _r("torch.pinned", ("torch==",),
       r"\bpip3? install\b[^\n]{0,120}?(?<![\w-])torch==(?P<v>\d{1,2}\.\d{1,3}\.\d{1,3}(?:\.dev\d{8})?",
       r"\+(?:rocm|cu|cpu)[\w.]{0,20})(?![\w.+])"),
    # an issue template's "Pytorch: 2.0.0" / "PyTorch：2.0.0" (full-width colon; pytorch/pytorch#96964)
    _r("torch.version", ("orch:", "orch：", "orch :"),
       rf"^\s{{0,8}}(?:PyTorch|Pytorch|pytorch|torch|Torch)\s{{0,2}}[:：]\s{{0,16}}(?P<v>{_TORCH_VER})\s*$"),
    _r("torch.version", ("orch version",),
       rf"^\s{{0,8}}(?:PyTorch|Pytorch|torch|Torch) version\s{{0,4}}[:=]\s{{0,4}}(?P<v>{_TORCH_VER})"),
    # ComfyUI's start-up lines: "pytorch version: 2.10.0+rocm7.1", "[INFO] pytorch version: ..."
    # (utensils/comfyui-nix#46)
    _r("torch.version", ("pytorch version:",),
       rf"^[^\n]{{0,40}}?(?<![\w.])pytorch version:[ \t]{{0,4}}(?P<v>{_TORCH_VER})"),
    # an installer's "torch 2.10.0+cpu detected": a version with a build tag names the installed wheel (not on an
    # install command line: "pip install torch==2.3.1+rocm6.0" is a fix being suggested, not the state)
    # (and a UI's start-up log: "15:45:16-129105 INFO     Torch 2.3.0+rocm6.0", kohya_ss, SD.Next;
    # bmaltais/kohya_ss#2667); prose may put "build"/"wheel" and quotes between: "installs the lockfile CUDA torch
    # build (`2.8.0+cu128`)" (debpalash/VoiceStudio#1665)
    _r("torch.version", ("torch ", "Torch "),
       r"^(?![^\n]{0,200}\binstall\b)[^\n]{0,200}?(?<![\w.-])[Tt]orch (?:(?:build|wheel) {1,2}[(`'\" ]{0,3})?",
       r"(?P<v>\d{1,2}\.\d{1,3}\.\d{1,3}[\w.]{0,30}\+(?:cpu|cu\d{2,3}|rocm\d[\d.]{0,10})\b)"),
    # a markdown environment list or table with bold keys: "- **PyTorch**: 2.7.0+rocm6.3", "| **torch** | 2.7.1 |"
    _r("torch.version", ("orch**", "orch version**", "orch Version**"),
       rf"^[\s>*|-]{{0,8}}\*\*(?:PyTorch|Pytorch|pytorch|torch|Torch)(?: [Vv]ersion)?\*\*\s{{0,4}}[:|]\s{{0,4}}v?"
       rf"(?P<v>{_TORCH_VER})"),
    # a markdown environment table: "| torch | 2.10.0+rocm7.13.0a20260508 |" (ROCm/TheRock#5543)
    _r("torch.version", ("| torch", "| PyTorch", "| Torch"),
       r"^\|\s{0,4}(?:\*\*)?(?:PyTorch|Pytorch|torch|Torch)(?: version)?(?:\*\*)?\s{0,4}\|\s{0,4}",
       rf"(?P<v>{_TORCH_VER})\s{{0,4}}\|"),
    # PyTorch's old issue template: " - PyTorch Version (e.g., 1.0): 1.6.0" (pytorch/pytorch#51213)
    _r("torch.version", ("PyTorch Version (e.g.",),
       rf"^[\s-]{{0,8}}PyTorch Version \(e\.g\., [\d.]{{1,8}}\):\s{{0,4}}(?P<v>{_TORCH_VER})"),
    # an installer's own check: "AssertionError: Expected a ROCm torch wheel but got: 2.12.1+cu130."
    _r("torch.version", ("torch wheel but got",),
       r"torch wheel but got:? (?P<v>\d{1,2}\.\d{1,3}\.\d{1,3}[\w.]{0,30}\+(?:cpu|cu\d{2,3}|rocm\d[\d.]{0,10}))"),
    # an issue's environment list: "- PyTorch: 2.12.0.dev20260408+rocm7.2" (a build tag makes it a torch version)
    _r("torch.version", ("orch:",),
       r"^[\s>*-]{0,8}(?:\*\*)?(?:PyTorch|Pytorch|torch|Torch)(?:\*\*)?\s{0,2}:(?:\*\*)?\s{0,4}",
       r"(?P<v>\d{1,2}\.\d{1,3}\.\d{1,3}[\w.]{0,30}\+(?:rocm|cu|cpu)[\w.]{0,30})\s*$"),
    # ZLUDA running a CUDA torch on an AMD GPU: "::  ZLUDA detected, disabling non-supported functions.",
    # "Device: cuda:0 AMD Radeon RX 7800 XT [ZLUDA] : native" (patientx/ComfyUI-Zluda#29): the +cu build is the setup
    _r("torch.zluda", ("ZLUDA",), r"(?P<v>\bZLUDA detected\b|\bcuda:\d{1,2} [^\n]{1,80}?\[ZLUDA\])"),
    # a JSON dependency list: InvokeAI's issue template, '  "torch": "2.4.1+cu121",' (invoke-ai/InvokeAI#7520)
    _r("torch.version", ('"torch": "',), rf'^[ \t]{{0,8}}"torch": "(?P<v>{_TORCH_VER})",?[ \t]*$'),
    _r("torch.version", ("+cu", "+rocm", "+cpu"),
       r"^['\"](?P<v>\d{1,2}\.\d{1,3}\.\d{1,3}[\w.]{0,20}\+(?:rocm|cu|cpu)[\w.]{0,30})['\"]\s*$"),
    # prose naming what an install produced: "This line causes the following version of torch to be installed on
    # our CI nodes:" then "`1.13.1+cu117`" (deepspeedai/DeepSpeed#2796); a build tag makes it a torch version
    _r("torch.version", ("version of torch", "version of PyTorch", "torch version", "PyTorch version"),
       r"\b(?:version of (?:torch|PyTorch)|(?:torch|PyTorch) version)\b[^\n]{0,80}?\b(?:installed|got|pulled)\b",
       r"[^\n]{0,60}?:?[ \t]{0,4}\n?[ \t>]{0,8}",
       r"(?P<v>\d{1,2}\.\d{1,3}\.\d{1,3}[\w.]{0,30}\+(?:cpu|cu\d{2,3}|rocm\d[\d.]{0,10}))(?![\w.+])"),
    _r("torch.version", ("Successfully installed",),
       rf"Successfully installed\b[^\n]{{0,2000}}?\btorch-(?P<v>{_TORCH_VER})(?=\s|$)"),
    _r("torch.wheel", ("torch-",), r"(?P<v>\btorch-\d{1,2}\.\d{1,3}\.\d{1,3}[\w.%+-]{0,80}?\.whl)"),
    _r("torch.hip", ("torch.version.hip",), r"torch\.version\.hip", _TORCH_Q,
       r"(?P<v>None|\d{1,2}\.\d{1,2}\.\d{4,6}[\w.-]{0,30})\b"),
    _r("torch.cuda", ("torch.version.cuda",), r"torch\.version\.cuda", _TORCH_Q, r"(?P<v>None|\d{1,2}\.\d{1,2})"),
    # DeepSpeed's ds_report: "torch version ......... 2.3.0+cu121", "torch cuda version ......... 12.1",
    # "torch hip version ......... 5.1.20531-cacfa990" or "None" (deepspeedai/DeepSpeed#1906, #6762)
    _r("torch.version", ("torch version ...",), rf"^torch version \.{{3,40}} (?P<v>{_TORCH_VER})[ \t]*$"),
    _r("torch.hip", ("torch hip version ...",),
       r"^torch hip version \.{3,40} (?P<v>None|\d{1,2}\.\d{1,2}\.\d{4,6}[\w.-]{0,30})[ \t]*$"),
    _r("torch.cuda", ("torch cuda version ...",), r"^torch cuda version \.{3,40} (?P<v>None|\d{1,2}\.\d{1,2})[ \t]*$"),
    _r("torch.available", ("is_available()",), r"cuda\.is_available\(\)", _TORCH_Q, r"(?P<v>True|False)\b"),
    # how many GPUs torch sees: "torch.cuda.device_count()" answered in a REPL, or the list of device objects a REPL
    # prints ("[<torch.cuda.device object at 0x7f2132935e80>, ...]", spack/spack#31115: eight GPUs)
    _r("torch.device-count", ("device_count()",), r"cuda\.device_count\(\)", _TORCH_Q, r"(?P<v>\d{1,3})[ \t]*$"),
    _r("torch.device-objects", ("torch.cuda.device object",),
       r"^\[(?P<v>(?:<torch\.cuda\.device object at 0x[0-9a-f]{6,16}>(?:, )?){1,64})\][ \t]*$"),
    # also paraphrased: 'the "No Nvidia drivers found on your system" error' (HAMM3REXTREME/ComfyUI-Installer#15)
    _r("torch.no-nvidia-driver", ("NVIDIA driver", "Nvidia driver", "nvidia driver",
                                  "Torch not compiled with CUDA",
                                  "CUDA driver version"),
       r"(?P<v>(?:Found no|No) (?:NVIDIA|Nvidia|nvidia) drivers? (?:found )?on your system",
       r"|Torch not compiled with CUDA enabled",
       r"|CUDA driver version is insufficient for CUDA runtime version)"),
    _r("torch.arch-list", ("rocm-sdk targets",),
       r"rocm-sdk targets\s{0,4}\n(?P<v>gfx[0-9a-f]{3,5}(?:;gfx[0-9a-f]{3,5}){0,40})"),
    _r("torch.arch-list", ("get_arch_list()",),
       r"get_arch_list\(\)", _TORCH_Q,
       r"\[?(?P<v>'gfx[0-9a-f]{3,5}[^'\n]{0,20}'(?:, 'gfx[0-9a-f]{3,5}[^'\n]{0,20}'){0,40})"),
    # a ROCm runtime library inside the torch wheel named in an error: ".../site-packages/torch/lib/rocblas/library/
    # TensileLibrary.dat" (pytorch/pytorch#96964): only a ROCm build ships those
    _r("torch.rocm-lib", ("packages/torch/lib",),
       r"(?P<v>[/\\](?:site|dist)-packages[/\\]torch[/\\]lib[/\\](?:rocblas|hipblaslt|libamdhip64|libMIOpen|libhsa-runtime64)"
       r"[\w./\\-]{0,120})"),
    # Inductor's ROCm (CK) backend on a stack, which torch selects only when torch.version.hip is set: py-spy's
    # "ensure_dll_loaded (torch/_inductor/codegen/rocm/rocm_benchmark_request.py:136)" (pytorch/pytorch#143687, a
    # gfx90a autotuning CK GEMMs) or a traceback's 'File ".../torch/_inductor/codegen/rocm/ck_template.py", line 8'
    _r("torch.rocm-lib", ("_inductor/codegen/rocm/",),
       r"(?P<v>(?:^[ \t]{0,12}\w{1,80} \((?:[\w.+-]{1,80}/){0,12}|^[ \t]{0,12}File \"(?:[\w.+-]{0,80}/){0,16})",
       r"torch/_inductor/codegen/rocm/\w{1,80}\.py(?::\d{1,6}\)|\", line \d{1,6}))"),
    # the failing program is a prebuilt Python GPU stack (a pip/conda PyTorch): a Python session importing torch
    # (ROCm/legacy-rocm-build#1815), a ROCm wheel's "+rocm5.2" tag (oobabooga/textgen#5), a library inside the torch
    # wheel (ROCm/legacy-rocm-build#2914), a Python script run at a shell prompt (gbtb/nix-stable-diffusion#10)
    _r("run.python-program", (">>> import torch", "packages/torch/", "+rocm", "python"),
       r"(?P<v>^[> \t]{0,8}>>> import torch\b|[/\\](?:site|dist)-packages[/\\]torch[/\\]|\+rocm\d{1,2}\.\d",
       r"|^[^\n$#]{0,80}?[$#][ \t]{1,4}python3?(?:\.\d{1,2})?[ \t]{1,4}[\w./-]{1,120}\.py\b)"),
    _r("torch.hip-error", ("HIP error: ", "hipError"), r"(?P<v>\bHIP error: [^\n]{1,120}|\bhipError\w{1,60})"),
    # the report names PyTorch at all: a bare HIP error proves a ROCm torch only then (rccl-tests, Blender, TensorFlow
    # and rocRAND print the same hipError names: ROCm/rccl-tests#16, ROCm/hip#3353)
    # (torch's own "Compile with `TORCH_USE_HIP_DSA` to enable device-side assertions." counts: Comfy-Org/ComfyUI#2842)
    _r("torch.named", ("torch", "Torch", "TORCH_USE_HIP_DSA"),
       r"(?P<v>\b(?:[Tt]orch|PyTorch|pytorch|TORCH_USE_HIP_DSA)\b)"),
    _r("torch.no-gpus", ("GPUs are available",), r"(?P<v>No (?:HIP|CUDA) GPUs are available)"),
    _r("torch.gcn-arch", ("gcnArchName",), r"gcnArchName='(?P<v>gfx[0-9a-f]{3,5})"),
    # torch's code-object pack for one target in TheRock's device package, named by the report:
    # "torch_gfx90a:xnack-.kpack" (ROCm/TheRock#7081: empty xnack kpack stubs in Torch 2.12's gfx90a package, every
    # kernel hipErrorInvalidImage)
    _r("torch.kpack", (".kpack",), r"\b(?P<v>torch_gfx[0-9a-f]{3,5}(?::(?:sramecc|xnack)[+-]){0,2}\.kpack)\b"),
    # TheRock's per-family index in a URL or its libraries package: "--index-url=https://.../v2/gfx110X-dgpu",
    # "rocm-sdk-libraries-gfx110X-all==6.5.0rc..." (ROCm/TheRock#1079): the torch from there has only that family
    _r("torch.therock-family", ("/v2/gfx", "rocm-sdk-libraries-gfx"),
       r"(?:/v2/|rocm-sdk-libraries-)(?P<v>gfx\d[0-9a-fA-FX]{1,4}(?:-[a-z]{2,8})?)(?![\w-])"),
    # xFormers' load failure names the torch it was built for and the one installed (facebookresearch/xformers#1070:
    # "xFormers was built for:" then "    PyTorch 2.3.1+cu121 with CUDA 1201 (you have 2.3.1+rocm6.0)")
    # pip's resolver: "torchvision 0.26.0 requires torch==2.11.0,\n  but you have torch 2.12.0.dev20260411+rocm7.1
    # which is incompatible." (pytorch/torchtitan#3002): the companion's C++ ops were built for another torch
    _r("companion.pinned", ("requires torch==",),
       r"(?P<v>\b(?:torchvision|torchaudio) \d[\w.+]{0,40} requires torch==[\w.+]{1,40},?\s{1,12}but you have ",
       rf"torch {_TORCH_VER})"),
    # an environment list's "torchvision:  0.24.1" (ROCm/pytorch#3109), "torchvision==0.24.1" on a line of its own
    _r("companion.version", ("torchvision", "torchaudio"),
       r"^[\s>*|-]{0,8}(?P<v>(?:torchvision|torchaudio)(?: version)?\s{0,2}(?::|==)\s{0,16}",
       r"\d{1,2}\.\d{1,3}\.\d{1,3}[\w.+]{0,60})\s*$"),
    _r("xformers.built-for", ("xFormers was built for",),
       rf"xFormers was built for:?[ \t]{{0,4}}\n[ \t]{{0,8}}PyTorch (?P<v>{_TORCH_VER}) with CUDA"),
    # `python -m xformers.info` on a ROCm build: the Composable Kernel attention ops load (ROCm/xformers#21); its
    # cutlass/smallk lines say "unavailable" on every ROCm build and are not a fault
    _r("xformers.rocm-ops", ("memory_efficient_attention.ck",),
       r"^[ \t]{0,8}(?P<v>memory_efficient_attention\.ck\w{1,20}):[ \t]{1,60}available[ \t]{0,8}$"),
    _r("torch.version", ("(you have ",),
       rf"^[ \t]{{0,8}}PyTorch {_TORCH_VER} with CUDA (?:None|\d{{1,5}}) \(you have (?P<v>{_TORCH_VER})\)"),
    # Triton's NVIDIA backend at work (PTX, ptxas): on an AMD GPU, the CUDA triton instead of the ROCm one
    # ("Internal Triton PTX codegen error" / "ptxas fatal : Value 'sm_110'": gfx1100 as sm_110, ROCm/ROCm#3060)
    _r("triton.nvidia", ("Triton PTX", "ptxas fatal"),
       r"(?P<v>Internal Triton PTX codegen error|ptxas fatal\s{0,8}:\s{0,4}Value 'sm_\d{2,3}a?' is not defined)"),
    # torchvision's C++ ops never registered: "RuntimeError: operator torchvision::nms does not exist" (its _C.so did
    # not load: another torch's ABI, or libraries it cannot load; utensils/comfyui-nix#46, pytorch/vision#8187)
    _r("torchvision.ops-missing", ("torchvision::",), r"(?P<v>\boperator torchvision::\w{1,30} does not exist)"),
    # the program runs under Nix: "nix run github:utensils/comfyui-nix#rocm", "nix develop", "nix-shell", or the
    # host said to be NixOS ("- NixOS 25.11 unstable, kernel 6.19.10", utensils/comfyui-nix#46)
    _r("host.nix", ("nix run", "nix develop", "nix shell", "nix-shell", "NixOS "),
       r"(?P<v>(?:^|(?<=[\s`$]))nix(?: run| develop| shell|-shell)\b|\bNixOS \d{2}\.\d{2}\b)"),
    # --- pip / uv ----------------------------------------------------------------------------------------
    _r("pip.index", ("Looking in indexes",), r"Looking in indexes:\s{0,4}(?P<v>[^\n]{1,400})"),
    _r("pip.index", ("index-url",), r"--(?:extra-)?index-url[= ](?P<v>\S{1,300})"),
    _r("pip.nvidia", ("nvidia-",), rf"(?P<v>\b{NVIDIA_CUDA_PACKAGE}\b)"),
    _r("pip.no-versions", ("No matching distribution found for",),
       r"(?P<v>No matching distribution found for \S{1,80})"),
    # the report telling pip's failure in prose: "pip encounters an error because there is no python 3.12 or 3.11
    # build of this package available for this version of pytorch" (AUTOMATIC1111/stable-diffusion-webui#14530);
    # the Python it names first is the one running (python.minor below)
    _r("pip.no-versions", ("no python 3", "no Python 3"),
       r"(?P<v>\bno [Pp]ython 3\.\d{1,2}(?: or 3\.\d{1,2})? (?:build|wheel|package)s? (?:of|for) "
       r"(?:this package|torch|pytorch|PyTorch)\b[^\n]{0,60}?\bavailable\b)"),
    _r("python.minor", ("no python 3", "no Python 3"),
       r"\bno [Pp]ython (?P<v>3\.\d{1,2})(?: or 3\.\d{1,2})? (?:build|wheel|package)s? (?:of|for) "
       r"(?:this package|torch|pytorch|PyTorch)\b[^\n]{0,60}?\bavailable\b"),
    _r("pip.no-versions", ("No solution found when resolving",), r"(?P<v>No solution found when resolving \w{1,20})"),
    # pip listing the versions the index has ("(from versions: 0.0.1, ..., 2.1.0)"): the index serves this Python,
    # only not the pinned version (a dependency of a wheel file installed without its index, pytorch/pytorch#118233)
    _r("pip.versions-listed", ("(from versions: ",), r"\(from versions: (?P<v>(?!none\))[^)\n]{1,400})\)"),
    # a report's own words that the program ran on the CPU: "it falls back to CPU-only" (VoiceStudio#987), "the CPU
    # is selected as the torch device" (InvokeAI#7146). Alone it proves nothing about the wheel (a ROCm torch
    # that sees no GPU runs on the CPU too); beside a failed ROCm-index install it shows which torch stayed.
    # ... and "Uses CPU only (confirmed via htop ...)" (unslothai/unsloth#10466)
    _r("torch.cpu-device", ("back to CPU", "back to the CPU", "CPU is selected", "back to cpu", "CPU only"),
       r"(?P<v>\b(?:falls?|falling|fell) back to (?:the )?(?:CPU|cpu)\b[\w-]{0,6}"
       r"|\b(?:the )?CPU is selected as the (?:torch |PyTorch )?device|\b[Uu]ses? (?:the )?CPU only\b)"),
)
