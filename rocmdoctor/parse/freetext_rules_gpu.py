"""Free-text rules for GPUs: PCI ids, names, gfx targets, what applications enumerate, runs that finished or crashed.

Data (see :mod:`rocmdoctor.parse.freetext_rule`); :data:`rocmdoctor.parse.freetext_rules.RULES` runs them in its
GPU section. Every regex has bounded quantifiers and looks back at most one character (tests/test_needles.py
checks), and a comment names the thread a rule came from.
"""

from __future__ import annotations

import re

from rocmdoctor.parse.freetext_rule import Rule
from rocmdoctor.parse.freetext_rule import rule as _r

# chip codenames the PCI ID Repository names devices by ("Navi 22"): a GPU named this way is the chip, not a board
_CODENAMES = (r"(?:Navi ?[1-4]\d|Vega ?[12]0|Polaris ?[12]\d|Ellesmere|Baffin|Aldebaran|Arcturus|Aqua Vanjaram"
              r"|Strix Halo)")
CODENAME = re.compile(_CODENAMES)

GPU_RULES: tuple[Rule, ...] = (
    _r("gpu.pci", ("[1002:",), r"\[1002:(?P<v>[0-9a-fA-F]{4})\]"),
    _r("gpu.pci", ("PCI_ID=1002:", "device 1002:", "name=1002:"),
       r"\b(?:PCI_ID=|device |name=)1002:(?P<v>[0-9a-fA-F]{4})\b"),
    _r("gpu.pci", ("DID ",), r"\bDID (?:0x)?(?P<v>[0-9a-fA-F]{4})\b"),
    # the Kubernetes node labeller's label (ROCm/gpu-operator#266: "amd.com/gpu.device-id=74b5", an MI300X VF)
    _r("gpu.pci", ("amd.com/gpu.device-id=",), r"\bamd\.com/gpu\.device-id=(?P<v>[0-9a-fA-F]{4})\b"),
    # an EasyBuild test report's host line: "nid005107 - Linux SLES 15.6, x86_64, ..., 1 x AMD AMD INSTINCT MI200 (MCM)
    # OAM LC MBA HPE C2 (model: 0x7408, driver: 6.10.5), Python 3.13.4" (easybuilders/easybuild-easyconfigs#25637)
    _r("gpu.pci", ("(model: 0x",), r"\b\d{1,2} x AMD [^\n]{1,120}?\(model: 0x(?P<v>[0-9a-fA-F]{4}), driver: "),
    _r("gpu.app", ("Device ",), r"(?P<v>Device \d{1,3}: [^,\n]{1,120}, gfx[0-9a-f]{3,5}\w{0,20}[^\n]{0,120})"),
    # ggml's HIP build counts the devices the ROCm runtime enumerated (its CUDA build says "CUDA devices")
    # a program reporting that it ran on the GPU: ollama/llama.cpp offloading layers ("offloaded 15/49 layers to
    # GPU"), rccl-tests/nccl-tests checking its results ("# Out of bounds values : 0 OK"), AMD's
    # pytorch-micro-benchmarking ("OK: finished running benchmark..")
    # llama-bench's result row on the ROCm backend ("| qwen2 1.5B F16 | ... | ROCm,BLAS | 8 | 512 | pp512 |
    # 188.64 ± 0.00 |", ggml-org/llama.cpp#26454)
    # MIOpenDriver checking the GPU's result against the CPU's ("Forward Convolution Verifies on CPU and GPU (2.2e-08)",
    # ROCm/MIOpen#161)
    # a report's generation speed on the ROCm backend: "llama.cpp Bonsai-1.8B ROCM - 88.7tps" (lemonade-sdk/lemonade
    # #2186, an 860M), LM Studio's "ROCm : 16.91 tok/sec" (ROCm/ROCm#4722)
    _r("run.gpu-ok", ("layers to GPU", "Out of bounds values", "OK: finished running benchmark", ", GPU ID: ",
                      "| ROCm", "Verifies on CPU and GPU", "ROCM -", "ROCm -", "ROCm :", "ROCM :", "ROCm:", "ROCM:",
                      "100% GPU"),
       r"(?P<v>\boffloaded [1-9]\d{0,3}/\d{1,4} layers to GPU\b",
       r"|\bROC[Mm][ \t]{0,2}[-:][ \t]{0,4}[1-9][\d.]{0,8}[ \t]{0,2}(?:tps|tok/sec|tok/s|t/s|tokens/s)\b",
       r"|^\|[^\n]{1,200}\|[ \t]{0,40}ROCm(?:,BLAS)?[ \t]{0,40}\|[^\n]{0,200}\|[ \t]{0,40}(?:pp|tg)\d{1,6}"
       r"[ \t]{0,40}\|[ \t]{0,40}[1-9][\d.]{0,10} ± [\d.]{1,10}[ \t]{0,4}\|",
       r"|\b(?:Forward|Backward) [\w ]{1,40} Verifies on CPU and GPU\b",
       r"|^#[ \t]{0,4}Out of bounds values[ \t]{0,4}:[ \t]{0,4}0 OK|^OK: finished running benchmark",
       # rocprof-compute's roofline micro-benchmarks measuring a GPU (ROCm/rocm-systems#3506)
       r"|^Peak [\w ()-]{1,40}, GPU ID: \d{1,2},[^\n]{0,200}\bmean:[1-9][\d.]{0,12} G(?:FLOP|B|IOP)S\b",
       # `ollama ps`: a model loaded whole into the GPU's memory, "mistral-small3.1:latest    b9aaf0c2586a    26 GB
       # 100% GPU     4 minutes from now" (ollama/ollama#6282; NAME, 12-digit ID, SIZE, PROCESSOR; a split load is
       # "48%/52% CPU/GPU")
       r"|^[\w.:/-]{1,120}[ \t]{1,40}[0-9a-f]{12}[ \t]{1,40}[\d.]{1,8} ?[KMGT]i?B[ \t]{1,40}100% GPU\b)"),
    # a ROCm library's own GPU test binary passing its tests, gtest's summary then the binary's "command line:"
    # ("[  PASSED  ] 38680 tests." ... "command line: ./build/release/clients/staging/hipblaslt-test",
    # ROCm/rocm-libraries#485; rocblas-test under ctest, "2: [ PASSED   ] 98937 tests.", ROCm/TheRock#6529)
    _r("run.gpu-ok", ("PASSED ",),
       r"^(?P<v>(?:\d{1,3}: )?\[ {1,4}PASSED {1,4}\] [1-9]\d{0,7} tests?\.)[ \t]*\n(?:[^\n]{0,200}\n){0,3}?",
       r"(?:\d{1,3}: )?command line: [^\n]{0,200}?\b(?:rocblas|hipblaslt|hipblas|rocsolver|hipsolver|rocfft|hipfft|",
       r"rocsparse|hipsparse|rocrand|hiprand|rocprim|hipcub|rocthrust|miopen|rccl|rocalution|rocwmma)-test\b",
       span=4),
    # HIP's own directed tests under ctest, nearly all passing: "99% tests passed, 3 tests failed out of 403", the
    # failures listed as "103 - directed_tests/ipc/hipMultiProcIpcMem.tst (Timeout)" (ROCm/hip#2449, Debian's
    # packaged HIP: hundreds of tests that each ran on the GPU; a summary without HIP's test names says nothing)
    _r("run.gpu-ok", ("tests passed, ",),
       r"^(?P<v>(?:9\d|100)% tests passed, \d{1,5} tests? failed out of [1-9]\d{1,5})[ \t]*\n(?:[^\n]{0,200}\n){0,8}?",
       r"[ \t]{0,8}\d{1,5} - directed_tests/[\w/.-]{1,160}\.tst\b", span=10),
    # SGLang's gsm8k benchmark finishing against its server: "Accuracy: 0.000" / "Invalid: 1.000" / "Latency: 80.200 s"
    # / "Output throughput: 8420.568 token/s" (sgl-project/sglang#12819, an MI30x image): the server generated on the
    # GPU; a wrong answer rate is the model's or a kernel library's, not a setup that cannot run
    _r("run.gpu-ok", ("Accuracy: ",),
       r"^Accuracy: [01]\.\d{1,4}[ \t]*\nInvalid: [01]\.\d{1,4}[ \t]*\nLatency: \d{1,6}\.\d{1,4} s[ \t]*\n",
       r"(?P<v>Output throughput: [1-9]\d{0,6}\.\d{1,4} token/s)\b", span=3),
    # the report saying the GPU program it built runs: "The resulting binary did not crash for me, the build seems
    # fine." (ggml-org/llama.cpp#5966, a hipBLAS build for gfx900 with Fedora's clang 17); not "if the resulting binary
    # runs", "... runs, but only on the CPU"
    _r("run.gpu-ok", ("resulting binary", "built binary", "compiled binary", "resulting executable"),
       r"(?:^|[.!?][ \t]{1,3})(?:(?!\bnot\b|n't\b|\bnever\b|\b[Ii]f\b|\b[Ww]hether\b)[^\n.!?]){0,80}?",
       r"(?P<v>\b[Tt]he (?:resulting|built|compiled) (?:binary|executable) (?:did not crash|didn't crash|runs fine",
       r"|works fine|runs|works)\b)(?![^\n]{0,40}\b(?:but|except|only|on (?:the )?CPU)\b)"),
    # the report saying its ROCm build of PyTorch works: "I have ROCm but it is installed into the system, not into
    # `/opt/rocm` ... ROCm PyTorch is working fine." (deepspeedai/DeepSpeed#2080, Gentoo); not "is not working"
    _r("run.gpu-ok", ("ROCm PyTorch", "ROCm pytorch", "ROCm torch", "rocm pytorch", "ROCm build of PyTorch"),
       r"(?:^|[.!?][ \t]{1,3})(?:(?!\bnot\b|n't\b|\bnever\b|\b[Ii]f\b|\b[Ww]hether\b)[^\n.!?]){0,200}?",
       r"(?P<v>\b(?:ROCm|rocm) (?:build of )?(?:PyTorch|pytorch|torch)",
       r" (?:is |was |itself )?(?:working|works|runs) (?:fine|well|perfectly)\b)"),
    # a progress bar that completed ("100%|████| 30/30 [01:12<00:00,  2.42s/it]"): work finished; it proves the GPU ran
    # only where the program names the GPU as its device (bundle.text: ComfyUI's "Device: cuda:0 AMD Radeon ...")
    _r("run.steps-done", ("100%|",), r"(?P<v>^[ \t]{0,8}100%\|[^\n|]{0,400}\|[ \t]{0,4}([1-9]\d{0,4})/\2 \[)"),
    # ComfyUI placing its models on a torch GPU device: "CLIP/text encoder model load device: cuda:0, offload device:
    # cpu" (Comfy-Org/ComfyUI#15674, an RX 9070 XT); on the CPU it says "load device: cpu"
    _r("run.torch-device", ("load device: cuda:",), r"\bmodel load device: (?P<v>cuda:\d{1,2})\b"),
    # performance that falls after minutes of sustained load and stays down, said in prose: the usual cause is a
    # thermal or power limit (ROCm/legacy-rocm-build#564: "After about 190 seconds, the performance starts to drop
    # and never recovers", closed as thermal throttling: jlgreathouse, Radeon fans cap at an acoustic limit)
    _r("perf.drops-over-time", ("performance", "Performance"),
       r"(?P<v>\b[Aa]fter (?:about |around |roughly )?\d{1,5} ?(?:s|sec|secs|seconds|min|mins|minutes)\b,? "
       r"(?:the )?(?:performance|throughput|speed) (?:starts? to |begins? to )?(?:drop|decrease|degrade|fall)s?\b"
       r"[^.\n]{0,60})"),
    # an APU named by AMD's marketing name, "AMD Ryzen 5 3400G with Radeon Vega Graphics" (ROCm/ROCm#3401): its iGPU
    # is there beside any discrete GPU unless the firmware hides it
    _r("cpu.apu", ("with Radeon",),
       r"(?P<v>\bRyzen(?: AI)?(?: [3579]| Threadripper)? [\w+-]{2,12}(?: [\w+-]{1,8})? with Radeon(?: Vega)? ",
       r"Graphics)\b"),
    # an AMD CPU named by its model number: "* CPU: 7800X3D" (ollama/ollama#2054), "AMD Ryzen 9 7950X 16-Core
    # Processor"; whether the model carries an iGPU is the data's word (data/cpu_igpu.toml, read by the bundle)
    _r("cpu.model", ("Ryzen", "CPU:"),
       r"(?:\bCPU:[ \t]{0,4}(?:AMD[ \t]{1,2})?|\b(?=Ryzen ))",
       r"(?P<v>(?:Ryzen(?: [3579])?(?: PRO)? )?[2-9]\d{3}[A-Za-z0-9]{0,4})(?![\w-])",
       r"(?![ \t]{0,2}(?:[MGK]Hz|MB|GB|MiB|GiB|mhz|ghz)\b)"),
    # the report telling of a crash: "demucs causes Python 3.11 and 3.9 to crash" (pytorch/pytorch#111355), "the
    # kernel crashes pretty badly" (ROCm/rocm-systems#3531); not "the kernel no longer crashes"
    _r("run.crash-said", ("to crash", "keeps crashing", "keep crashing", "kernel crashes", "kernel crashed"),
       r"(?P<v>\b(?:causes?|caused|makes?|made)\b[^\n]{0,40}?\bto crash\b|\bkeeps? crashing\b",
       r"|^(?:(?!\bnot\b|n't\b|\bnever\b|\blonger\b)[^\n]){0,200}?\bkernel crash(?:es|ed)\b)"),
    # the report telling of a crash at a step of the run: "the ollama server crashes when loading any model"
    # (ollama/ollama#2054); not "it no longer crashes when loading", "if it crashes while running"
    _r("run.crash-said", ("crashes when", "crashed when", "crashes while", "crashed while"),
       r"(?P<v>^(?:(?!\bnot\b|n't\b|\bnever\b|\blonger\b|\b[Ii]f\b)[^\n]){0,200}?\bcrash(?:es|ed) (?:when|while) ",
       r"(?:loading|running|starting|launching|generating|trying|I (?:load|run|start|launch|try))\b)"),
    # the report saying its program works: "While from what I can tell everything works I think it's failing to find
    # this file and using a fallback instead?" (mudler/LocalAI#10660), "I got it to work by adding
    # OLLAMA_IGPU_ENABLE=1" (ollama/ollama#9184), "llama3:8b loaded fully in vram" (ollama/ollama#5426), a test report's
    # "GGUF Inference (4 models, all PASS)" (unslothai/unsloth#4720); not "nothing works", "if everything works",
    # nor "it works, but ..." or "... only on the CPU"
    _r("run.works-said", ("everything", "got it", "all PASS", "all tests pass", "loaded fully in"),
       r"(?:^|[.!?][ \t]{1,3})(?:(?!\bnot\b|n't\b|\bnever\b|\b[Ii]f\b|\b[Ww]hether\b|\bnothing\b|\b[Uu]nless\b)",
       r"[^\n.!?]){0,200}?",
       r"(?P<v>\b(?:everything (?:works|is working|runs)|I got it (?:to work|working)|all PASS(?:ED)?",
       r"|all tests pass(?:ed)?|loaded fully in (?:vram|VRAM|the GPU|GPU))\b)",
       r"(?![^\n]{0,40}\b(?:but|except|only|on (?:the )?CPU)\b)"),
    # the report telling that ROCm does not work on its GPU at all: "To my surprise I couldn't get hip and rocm to work"
    # (an RX 6800M, ROCm/legacy-rocm-build#1848, fixed by the override); not "I could get rocm to work"
    _r("run.crash-said", ("to work", "to run"),
       r"(?i:(?P<v>\b(?:could ?n[o']t|can ?n[o']t|cannot|unable to|failed to) (?:get|make) (?:[\w.+-]{1,20} "
       r"(?:and |or |& )?){0,4}?(?:hip|rocm|pytorch|torch|the gpu|my gpu)\b[^\n]{0,30}?\bto (?:work|run)\b))"),
    # the report telling that only one engine works, the others failing: "In text-to-speech, I can use successfully
    # only Piper models" (mkiol/dsnote#296: the ROCm engines failed on an RX 6700 XT, Piper runs on the CPU); a named
    # engine or device ("I can only use the CPU"), not an amount ("I can only use 4 GB")
    _r("run.crash-said", ("use only", "only use", "successfully only"),
       r"(?P<v>\b(?:I|[Ww]e) can (?:(?:successfully )?use (?:successfully )?only|only (?:successfully )?use) ",
       r"(?:the )?[A-Z][\w.+-]{1,30}\b[^\n.]{0,60})"),
    # the report saying ROCm's own tools see no GPU: "`clinfo`, `rocminfo`, and `torch.cuda.is_available()` show 0
    # gpus" (ROCm/ROCm#2119: four RX 480s under ROCm 5.4.2); not "no GPU problems"
    _r("run.no-gpu-said", ("0 gpu", "0 GPU", "no gpu", "no GPU", "zero gpu", "zero GPU"),
       r"(?i:(?P<v>\b(?:rocminfo|clinfo|rocm-smi|is_available\(\))`?(?:,? (?:and |or )?`?[\w.()-]{1,40}`?){0,3}",
       r"[ \t]{1,4}(?:shows?|reports?|lists?|finds?|sees?|returns?) (?:0|zero|no) gpus?\b",
       r"(?![ \t]{1,4}(?:problems?|issues?|errors?))))"),
    # an IPython session whose first tensor moved to the GPU raised: "In [9]: torch.rand(3, 3).to(device)" then
    # "Out[9]: ----...", "RuntimeError    Traceback (most recent call last)" (ROCm/ROCm#2536)
    _r("run.crash-said", (".to(", ".cuda("),
       r"(?P<v>\.(?:to|cuda)\([^)\n]{0,30}\)[ \t]{0,4}\nOut\[\d{1,4}\]:[ \t]{0,4}-{20,120}[ \t]{0,4}\n",
       r"[A-Za-z]{0,40}Error[ \t]{2,80}Traceback \(most recent call last\))"),
    # the report says the program works once the iGPU is hidden: "I have to use an environment variable to block the
    # knowledge of the IGPU from llama.cpp and then it works" (ggml-org/llama.cpp#23152)
    _r("igpu.hiding-works", ("iGPU", "igpu", "IGPU", "integrated", "Integrated", "INTEGRATED"),
       r"(?i:(?P<v>\b(?:block|hid|hiding|disabl|exclud)\w{0,4}\b[^\n]{0,60}?\b(?:igpu|integrated (?:gpu|graphics))\b",
       r"[^\n]{0,80}?\b(?:then it works|it works|works fine|fixe[sd] it|solved it)\b))"),
    # the report says hiding the other GPUs changed nothing: "I've set it only visible to the GPU with the
    # ROCR_VISIBLE_DEVICES environment variable, but the error is the same as above" (lamikr/rocm_sdk_builder#246)
    _r("igpu.hiding-no-help", ("_VISIBLE_DEVICES",),
       r"(?i:(?P<v>\b(?:ROCR|HIP|CUDA)_VISIBLE_DEVICES\b[^\n]{0,120}?\b(?:the (?:error|problem|issue) (?:is|was|stays|",
       r"remains|remained) (?:still )?the same|(?:did|does)(?: not|n't|nt) (?:help|change anything)|no difference|",
       r"nothing changed)\b))"),
    # the report saying ROCm enumerates the iGPU as a device of its own: "the discrete GPU will be ROCm Device 0, and
    # the iGPU ROCm Device 1" (oobabooga/textgen#7319, a Ryzen 9000's iGPU beside an AMD dGPU; AMD: "a known issue
    # when ROCm enumerates both"); not "the iGPU is disabled", "no iGPU device"
    _r("igpu.device-said", ("iGPU", "igpu", "IGPU", "integrated", "Integrated"),
       r"(?i:(?P<v>\b(?:igpu|integrated (?:gpu|graphics))(?:,)?(?: (?:is|will be|becomes|shows up as|appears as|as))?",
       r"(?: the)? (?:rocm|hip) device \d{1,2}\b))"),
    # a prebuilt named for the GPU family it carries code for: unsloth's "`rocm-gfx110X` prebuilt" of llama.cpp
    # (unslothai/unsloth#7272), lemonade-sdk/llamacpp-rocm's "llama-b1025-ubuntu-rocm-gfx110X-x64.zip" (its README:
    # gfx110X is the RX 7900 to RX 7600 dGPUs and the 780M/760M/740M iGPUs)
    _r("build.family", ("rocm-gfx",), r"\brocm-(?P<v>gfx\d{2,3}[0-9a-fX]{1,2})(?![\w])"),
    _r("gpu.rocm-count", ("ROCm devices",), r"\bfound (?P<v>[1-9]\d{0,2}) ROCm devices?\b"),
    # AMD's container toolkit listing the GPUs it gives containers: "amd-ctk cdi list" prints "Found 8 AMD GPU devices"
    # then "amd.com/gpu=0" and its render node per GPU (bottlerocket-os/bottlerocket-core-kit#778)
    _r("gpu.rocm-count", ("AMD GPU devices",), r"^Found (?P<v>[1-9]\d{0,2}) AMD GPU devices?[ \t]*$"),
    # the report naming the host by its count of AMD GPUs: "successfully launched it on hardware with 8 AMD GPUs"
    # (bottlerocket-os/bottlerocket-kernel-kit#326), "on the 8 AMD-GPU node using exactly 8 MPI ranks" (BLAST-WarpX/
    # warpx#4594); not "without", not a count to buy or wished for ("need 8 AMD GPUs" has no "on"/"with")
    _r("gpu.rocm-count", ("AMD GPUs", "AMD-GPU", "AMD GPU node"),
       r"(?<!\w)(?:on|with)(?: (?:the|an?|our|my|one|a single))? (?:(?:node|machine|server|host|system|hardware) ",
       r"with )?(?P<v>[1-9]\d{0,2})(?: ?x)?[ -]AMD[ -](?:GPUs\b|GPU (?:node|machine|server|host|system)\b|",
       r"GPU-(?:node|machine|server|host|system)\b)(?![^\n.]{0,40}\b(?:to buy|I want|would|could)\b)"),
    # a Kubernetes node's capacity as AMD's device plugin advertises it, one count per resource: "Capacity:" then
    # "  amd.com/gpu:        8", or one resource per partition mode ("amd.com/spx_nps1:   63", ROCm/gpu-operator#382,
    # partitions that ROCm enumerates as GPUs); a count of 0 says nothing, another resource may carry the GPUs
    _r("gpu.rocm-count", ("Capacity:",),
       r"^Capacity:[ \t]*\n(?:[ \t]{1,8}[^ \t\n][^\n]{0,80}\n){0,12}?",
       r"[ \t]{1,8}amd\.com/(?:gpu|[cdqs]px_nps[1-8]):[ \t]{1,24}",
       r"(?P<v>[1-9]\d{0,3})[ \t]*$", span=14),
    _r("gpu.app", ("inference compute",),
       r"(?P<v>inference compute[^\n]{0,400}?\bcompute=gfx[0-9a-f]{3,5}[^\n]{0,400})"),
    # ollama 0.30+'s discovery lines name the device too: 'msg="dropping integrated GPU; ..." library=ROCm
    # compute=gfx1100 name=ROCm0 description="AMD Radeon 890M Graphics"' (project-nomad#1074)
    _r("gpu.app", ("library=ROCm compute=",),
       r"(?P<v>library=ROCm compute=gfx[0-9a-f]{3,5}[^\n]{0,400}?\bdescription=\"[^\"\n]{1,120}\")"),
    _r("gpu.app", ("_CudaDeviceProperties",),
       r"(?P<v>_CudaDeviceProperties\(name='[^'\n]{1,120}'[^\n)]{0,400}gcnArchName='gfx[0-9a-f]{3,5})"),
    _r("gpu.name", ("RX", "Radeon", "radeon", "Instinct MI", "XT", "GRE", "rx ", "rx4", "rx5", "rx6", "rx7", "rx9",
                    " xt", "0xt", "0M", "Navi", "Vega", "Polaris", "Ellesmere", "Baffin", "Aldebaran", "Arcturus",
                    "Aqua Vanjaram", "Strix Halo"),
       # (not the first model of the PCI ID Repository's list, "Ellesmere [Radeon RX 470/480/570/570X/580/580X/590]":
       # one board, ROCm/ROCm#2119)
       # (nor a family: "RX 7000 series", FoldingAtHome/containers#36)
       r"(?P<v>\b(?:AMD )?(?:Radeon(?:\(TM\))? )?RX ?(?:Vega \d{2}|\d{3,4}[A-Z]?(?: ?(?:XTX|XT|GRE|X))?)\b",
       r"(?!/| [Ss]eries)",
       r"|\brx ?(?:vega \d{2}|\d{3,4}(?: ?(?:xtx|xt|XTX|XT))?)\b(?! [Ss]eries)",  # "i have an rx 6600" (#2061)
       r"|(?<![\w.-])\d{4} ?(?:XTX|XT|GRE|xtx|xt)\b",  # "a 6700/6700 xt/6750" (stable-diffusion-rocm#4)
       r"|\b(?:AMD )?Radeon(?:\(TM\))? (?:Pro|PRO) (?:Vega \d{2}|[WV]?\d{3,4}[A-Z]?(?: ?(?:XTX|XT|X))?)\b",
       # (a CPU name pasted with its double space: "AMD Ryzen 7 7840U w/ Radeon  780M Graphics", ollama/ollama#6282)
       r"|\b(?:AMD )?Radeon(?:\(TM\))?[ \t]{1,2}(?:\d{3}M(?!/)|80[56]0S|VII)\b|\bInstinct MI\d{2,3}[A-Z]{0,2}\b",
       # the GCN1-3 era: "Radeon HD 8750M", "amd radeon hd 8750m", "Radeon R7 M265" (ROCm/legacy-rocm-build#3897)
       r"|\b(?:AMD |amd )?(?:Radeon|radeon) (?:HD|hd|R[579]|r[579]) M?m?\d{3,4}[A-Za-z]{0,2}\b",
       # chip codenames the PCI ID Repository names devices by: "Navi 22 isn't supported" (stable-diffusion-rocm#4)
       rf"|\b{_CODENAMES}\b",
       # a mobile Radeon by its number: "the AMD 6700M GPU is not supported" (ollama#6152)
       r"|\bAMD [5-9]\d{2}0M\b)"),
    # the bare names people write: a mobile RX by its number ("My device is 6800m", ROCm/legacy-rocm-build#2353), an
    # RX Vega by its size ("Vega 64"), an Instinct by its model ("8x MI300X node", "on the Mi50",
    # ROCm/flash-attention#29)
    _r("gpu.name", ("0m", "0M", "Vega 56", "Vega 64", "MI1", "MI2", "MI3", "MI5", "MI6", "Mi1", "Mi2", "Mi3", "Mi5",
                    "Mi6"),
       # (not the second name of a PCI ID Repository pair, "[Radeon 760M/780M]": one board)
       r"(?P<v>(?<![\w./-])[5-7]\d{2}0[mM]\b|(?<![\w.-])Vega (?:56|64)\b",  # "RX Vega 64" twice: one GPU
       # (and the series without its suffix, as people write them: "a recipe for MI300 and MI355", vllm-project/recipes
       # #561; MI300A and MI300X are both gfx942, MI325X, MI350X and MI355X have one board each)
       r"|\bM[Ii](?:25|50|60|100|210|250[Xx]?|300[AXax]?|308[Xx]|325[Xx]?|350[Xx]?|355[Xx]?)\b)"),
    # an APU's iGPU by the PCI ID Repository's codename in an lspci line cut from its bus address: "My iGPU is an: VGA
    # compatible controller: Advanced Micro Devices, Inc. [AMD/ATI] Barcelo (rev c1)" (ROCm/hip#3282; 0x15e7, gfx90c).
    # Only after "[AMD/ATI]": in prose these are CPU codenames as often as GPUs
    _r("gpu.name", ("[AMD/ATI] ",),
       r"\[AMD/ATI\] (?P<v>Barcelo|Renoir|Cezanne|Lucienne|Rembrandt|Raphael|Mendocino|Phoenix[1-3]?)\b(?! \w)"),
    # an Instinct in lower case after the vendor, as issue templates get answered: "gpu: amd mi250" (Syllo/nvtop#300)
    _r("gpu.name", ("amd mi", "AMD mi"),
       r"\b(?:amd|AMD) (?P<v>mi(?:25|50|60|100|210|250x?|300[ax]|308x|325x|350x|355x))\b"),
    # an APU's iGPU by its bare name: "8845h with 780m", an issue template's "### GPU" answered "780m"
    _r("gpu.name", ("with ", "GPU"),
       r"(?:\bwith (?:an? |the )?|^#{2,4} GPU\s{0,4}\n\s{0,4}\n?\s{0,4})(?P<v>[6-9][0-9]0[mM])\b"),
    # an issue template's "### GPU" answered with the target alone: "### GPU", a blank line, "GFX1151"
    # (ROCm/flash-attention#111; the value is lowered where GPUs are built)
    _r("gpu.gfx", ("# GPU",),
       r"^#{2,4} GPU[ \t]{0,4}\n[ \t]{0,4}\n?[ \t]{0,4}(?P<v>[gG][fF][xX][0-9a-fA-F]{3,5})[ \t]*$"),
    # ROCm's own device list, printed under its command: "PS C:\\...> & '...\\bin\\amdgpu-arch.exe'" then "gfx1036"
    # (ROCm/ROCm#4390: the HIP SDK presenting the Ryzen's iGPU, not the RX 6800 XT); the runtime's order
    _r("gpu.enumerated", ("amdgpu-arch", "offload-arch", "rocm_agent_enumerator"),
       r"(?:amdgpu-arch|offload-arch|rocm_agent_enumerator)(?:\.exe)?['\"]?[ \t]{0,4}\n",
       r"(?P<v>[ \t]{0,4}gfx[0-9a-f]{3,5}(?:[ \t]{0,4}\n[ \t]{0,4}gfx[0-9a-f]{3,5}){0,15})[ \t]*$"),
    # a device's ISA; not the targets a binary carries, which HIP lists under "Bundled Code Objects:" as
    # "hipv4-amdgcn-amd-amdhsa--gfx900:xnack- - [code object v4 is amdgcn-amd-amdhsa--gfx900:xnack-]" (ROCm/rocRAND#177)
    _r("gpu.gfx", ("amdgcn-amd-amdhsa--gfx",),
       r"^(?![^\n]{0,300}\bcode object v\d{1,2} is )[^\n]{0,300}?(?<![-\w])amdgcn-amd-amdhsa--",
       r"(?P<v>gfx[0-9a-f]{3,5})\b"),
    _r("gpu.gfx", ("override gfx",), r"\boverride (?P<v>gfx[0-9a-f]{3,5}) (?:to|as|with)\b"),
    # a Tensile kernel that rocprof saw dispatched carries the ISA it runs on: 'dispatch[0], gpu-id(2), ...,
    # kernel-name("Cijk_Ailk_Bjlk_SB_MT64x32x32_..._ISA90a_IU1_...")' is a gfx90a (ROCm/legacy-rocm-build#3122)
    _r("gpu.tensile-isa", ("kernel-name(\"Cijk_",),
       r"^[> \t]{0,4}dispatch\[\d{1,9}\], gpu-id\(\d{1,3}\)[^\n]{0,600}?kernel-name\(\"Cijk_[^\"\n]{0,1200}?_ISA",
       r"(?P<v>[0-9a-f]{3,5})_"),
    # "It is a gfx1032 GPU", "Radeon 860M (gfx1152)": a gfx that names the reporter's GPU (not a list of targets)
    _r("gpu.gfx", ("gfx",), r"\b(?P<v>gfx[0-9a-f]{3,5}) (?:GPU|card|APU|iGPU|dGPU)\b"),
    # "It seems that it is using a gfx1150", "I have a gfx1031" (ROCm/legacy-rocm-build: strix toolbox fixture)
    _r("gpu.gfx", (" a gfx", " an gfx"), r"\b(?:using|have|has|got|own|is) an? (?P<v>gfx[0-9a-f]{3,5})\b(?![-\w])"),
    # and the second GPU of the same sentence: "It has a gfx90c (not supported) and a gfx1032 (supported)"
    # (ROCm/rocprofiler#138: an iGPU beside a dGPU)
    _r("gpu.gfx", (" and a gfx", " and an gfx"),
       r"\b(?:using|have|has|got|own|is) an? gfx[0-9a-f]{3,5}\b[^\n.;]{0,40}? and an? ",
       r"(?P<v>gfx[0-9a-f]{3,5})\b(?![-\w])"),
    # "on a device with only gfx1151" (ROCm/TheRock#1079)
    _r("gpu.gfx", (" with only gfx", " with a gfx", " with one gfx"),
       r"\b(?:device|machine|system|computer|laptop|host|GPU|card) with (?:only|an?|one) (?P<v>gfx[0-9a-f]{3,5})\b"),
    # the reporter's own sentence: "On gfx1201, I am getting unusually poor performance" (ROCm/rocm-libraries#10861)
    _r("gpu.gfx", ("On gfx",), r"(?:^|[.!?] )On (?P<v>gfx[0-9a-f]{3,5}),? I\b"),
    # ("The GPU is a AMD Ryzen 3 PRO 2300U w (gfx902)", rocm-arch/python-pytorch-rocm#26)
    _r("gpu.gfx", ("gfx",), r"(?:Radeon|RX|Instinct|GPU:|GPU is an?)[^\n(]{1,40}\((?P<v>gfx[0-9a-f]{3,5})\)"),
    # prose naming each GPU with its target: "one GPU (R9700, gfx1201) and integrated graphics (9950X3D, gfx1036)"
    _r("gpu.gfx", ("gfx",), r"\b(?:GPU|GPUs|graphics|iGPU|dGPU|APU|card)\s{0,3}\((?:[^()\n,]{1,30},\s{0,2})?",
       r"(?P<v>gfx[0-9a-f]{3,5})\)"),
    # a markdown table row per GPU: "| iGPU (also present) | Ryzen 7 7800X3D integrated — gfx1036; ... |"
    _r("gpu.gfx", ("GPU",), r"^\|\s{0,4}(?:\*\*)?(?:[di]?GPU|APU|Graphics)\b[^|\n]{0,40}\|[^|\n]{0,120}?\b",
       r"(?P<v>gfx[0-9a-f]{3,5})\b"),
    # ollama names the GPU it rejected: 'msg="amdgpu is not supported (supported types:[...])" gpu_type=gfx1031 gpu=0'
    # (ollama/ollama#8772)
    _r("gpu.gfx", ("gpu_type=gfx",), r"\bgpu_type=(?P<v>gfx[0-9a-f]{3,5})\b"),
    # rocBLAS names the GPU it runs on: "... TensileLibrary.dat: Illegal seek for GPU arch : gfx1103"
    _r("gpu.gfx", ("GPU arch",), r"\bfor GPU arch ?: ?(?P<v>gfx[0-9a-f]{3,5})\b"),
    # an environment list's "GPU arch: gfx900" / "gfx target: gfx1151" / "GPU: gfx1100"
    _r("gpu.gfx", ("gfx",), r"^[\s>*-]{0,8}(?:\*\*)?(?:GPU(?: arch(?:itecture)?| target| ISA)?|gfx target|LLVM target)",
       r"(?:\*\*)?\s{0,2}:(?:\*\*)?\s{0,4}(?P<v>gfx[0-9a-f]{3,5})\b"),
    # ComfyUI's "AMD arch: gfx1100" (the GPU torch runs on; utensils/comfyui-nix#46)
    _r("gpu.gfx", ("AMD arch:",), r"^[^\n]{0,40}?\bAMD arch:[ \t]{0,4}(?P<v>gfx[0-9a-f]{3,5})\b"),
    # TensorFlow names the GPU it will not use: "Ignoring visible gpu device (...) with AMDGPU version : gfx1031. The
    # supported AMDGPU versions are gfx1030, ..." (ROCm/legacy-rocm-build#2353, ROCm/tensorflow-upstream#2404)
    _r("gpu.gfx", ("AMDGPU version",), r"\bwith AMDGPU version ?: ?(?P<v>gfx[0-9a-f]{3,5})\b"),
    # the UI's own line for the torch's HIP: "Torch backend: AMD ROCm HIP 6.0.32830-d62f6a171" (bmaltais/kohya_ss#2667)
    _r("torch.hip", ("ROCm HIP ",),
       r"\bTorch backend: AMD ROCm HIP (?P<v>\d{1,2}\.\d{1,2}\.\d{1,6}(?:-[0-9a-f]{6,12})?)\b"),
    _r("gpu.name", ("get_device_name(",),
       r"\bget_device_name\([^)\n]{0,20}\)\)?\s{0,4}[\n>.\s]{0,12}'(?P<v>[^'\n]{3,80})'"),
)
