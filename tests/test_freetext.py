"""Free-text facts (rocmdoctor.parse.freetext) and how they reach the Host (rocmdoctor.bundle.text).

The sample lines are the ones issue 12 quotes from public bug reports (torch REPL answers, pip logs, prompts,
dmesg/lspci ids, llama.cpp and ollama GPU lines); each test says which fact must come out, and the bundle tests
check that a format parser's fact wins over a free-text one.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rocmdoctor.bundle import load_host
from rocmdoctor.diagnose import judge_host
from rocmdoctor.model import Severity
from rocmdoctor.parse.freetext import FREE_TEXT, RULES, app_gpu, extract, python_minor, torch_from_wheel


def kinds(text: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for f in extract(text, "paste.txt").facts:
        out.setdefault(f.kind, []).append(f.value)
    return out


@pytest.mark.parametrize(("line", "kind", "value"), [
    # markdown environment lists and tables (ROCm/legacy-rocm-build#6146's '- **Kernel**: ...' shape)
    ("- **Python**: 3.12.3", "python.version", "3.12.3"),
    ("| **Python** | 3.11.9 |", "python.version", "3.11.9"),
    ("- **PyTorch**: 2.7.0+rocm6.3", "torch.version", "2.7.0+rocm6.3"),
    ("| **torch** | 2.7.1+rocm6.3 |", "torch.version", "2.7.1+rocm6.3"),
    ("- **Kernel**: Linux 6.17.0-20-generic", "kernel.release", "6.17.0-20-generic"),
    ("| **ROCm** | 7.1.1 (Docker: `rocm/dev-ubuntu-24.04:7.1.1-complete`) |", "rocm.version", "7.1.1"),
    ("torch.__version__: 2.6.0+cu124", "torch.version", "2.6.0+cu124"),
    (">>> torch.__version__\n'2.5.1+rocm6.2'", "torch.version", "2.5.1+rocm6.2"),
    ("torch.version.hip: None", "torch.hip", "None"),
    ("torch.version.hip: 6.2.41133-dd7f95766", "torch.hip", "6.2.41133-dd7f95766"),
    ("Looking in indexes: https://download.pytorch.org/whl/rocm6.2", "pip.index",
     "https://download.pytorch.org/whl/rocm6.2"),
    ("Collecting nvidia-cublas-cu12==12.4.5.8 (from torch)", "pip.nvidia", "nvidia-cublas-cu12"),
    ("py -3.14 -m pip install torch", "python.minor", "3.14"),
    ("Python 3.14.0 (tags/v3.14.0:ebf955d, Oct  7 2025) [MSC v.1944 64 bit (AMD64)] on win32", "python.version",
     "3.14.0"),
    ("Installing Python 3.14.0", "python.version", "3.14.0"),
    ("Ubuntu 22.04 on WSL2", "wsl", "on WSL2"),
    ("Ubuntu 22.04 on WSL2", "os.name", "Ubuntu 22.04"),
    ("WSL environment detected.", "wsl", "WSL environment detected"),
    # pytorch/pytorch#179865: an environment list with markdown code spans
    ("- PyTorch: `2.12.0.dev20260408+rocm7.2`", "torch.version", "2.12.0.dev20260408+rocm7.2"),
    ("- GPU arch: `gfx900`", "gpu.gfx", "gfx900"),
    (" - PyTorch Version (e.g., 1.0): 1.6.0", "torch.version", "1.6.0"),  # pytorch/pytorch#51213
    ("AssertionError: Expected a ROCm torch wheel but got: 2.12.1+cu130.", "torch.version", "2.12.1+cu130"),
    ("> cuda runtime error (35) : CUDA driver version is insufficient for CUDA runtime version at /pytorch/x.cpp:47",
     "torch.no-nvidia-driver", "CUDA driver version is insufficient for CUDA runtime version"),
    ("i have an rx 6600 and a i5 8400", "gpu.name", "rx 6600"),  # ROCm/legacy-rocm-build#2061
    ("### CPU\n\n8845h with 780m", "gpu.name", "780m"),  # ROCm/legacy-rocm-build#4557
    ("### Operating System\n\nfedora 41", "os.name", "fedora 41"),
    ("### ROCm Version\n\nrocm6.3", "rocm.version", "6.3"),
    # ROCm/TheRock#5543: a markdown environment table
    ("| iGPU (also present) | Ryzen 7 7800X3D integrated — gfx1036; enumerates as `cuda:0` |", "gpu.gfx", "gfx1036"),
    ("| torch | `2.10.0+rocm7.13.0a20260508` |", "torch.version", "2.10.0+rocm7.13.0a20260508"),
    ("| OS | Windows 11, build 10.0.26200.8524 |", "windows", "| OS | Windows 11"),
    ("### ROCm Version\n\n6.4.2\n\n### ROCm Component", "rocm.version", "6.4.2"),  # ROCm's issue template
    ("WSL 2 Ubuntu Jammy 22.04.5 LTS", "os.name", "Ubuntu Jammy 22.04.5 LTS"),
    ("  deps           ... torch 2.10.0+cpu detected", "torch.version", "2.10.0+cpu"),  # unslothai/unsloth#8731
    # lemonade-sdk/llamacpp-rocm#96 and ROCm/legacy-rocm-build#5452
    ("one GPU (R9700, gfx1201) and integrated graphics (9950X3D, gfx1036)", "gpu.gfx", "gfx1201"),
    ("TensileLibrary.dat: Illegal seek for GPU arch : gfx1103", "gpu.gfx", "gfx1103"),
    ("**GPU:** gfx1100", "gpu.gfx", "gfx1100"),
    # ROCm/legacy-rocm-build#4064 and #3051: lower case, and amdgpu-install's WSL usecase
    ("Request support for wsl2 Ubuntu 24.04 python 3.12.7", "wsl", "for wsl2"),
    ("Ubuntu 22.04.4 LTS on wsl", "wsl", "on wsl"),
    ("I use amdgpu-install -y --usecase=wsl,rocm --no-dkms", "wsl", "--usecase=wsl"),
    ("sudo amdgpu-install -y --usecase=rocm,wsl", "wsl", "--usecase=rocm,wsl"),
    ("My GPU is an RX 7900 XT", "gpu.name", "RX 7900 XT"),
    ("AMD Ryzen AI Max+ 395 w/ Radeon 8060S", "gpu.name", "Radeon 8060S"),
    ("amdgpu 0000:03:00.0: amdgpu: DID 7340 is missing in supported_devices", "gpu.pci", "7340"),
    ("03:00.0 VGA compatible controller [0300]: Advanced Micro Devices, Inc. [AMD/ATI] Navi 14 [1002:7340] (rev c5)",
     "gpu.pci", "7340"),
    ("pip install --pre torch --index-url https://download.pytorch.org/whl/nightly/rocm5.6", "rocm.index", "5.6"),
    ("torch-2.3.0.dev20240101%2Brocm6.0-cp310-cp310-linux_x86_64.whl", "torch.wheel",
     "torch-2.3.0.dev20240101%2Brocm6.0-cp310-cp310-linux_x86_64.whl"),
    ("OSError: /opt/rocm-6.0.1/lib/libamdhip64.so: cannot open shared object file", "rocm.path", "/opt/rocm-6.0.1"),
    ("root@c0cb9814a02b:/workspace# rocminfo", "prompt.container", "c0cb9814a02b"),
    ("(.venv) user@box:~/proj$ python -c 'import torch'", "prompt.venv", ".venv"),
    ("PS C:\\Users\\me> py -3.12 -m pip install torch", "windows", "PS C:\\Users\\me>"),
    ("  Device 0: AMD Radeon Graphics, gfx1152 (0x1152), VMM: no, Wave Size: 32", "gpu.app",
     "Device 0: AMD Radeon Graphics, gfx1152 (0x1152), VMM: no, Wave Size: 32"),
    ("docker run -it --gpus=all ollama/ollama:rocm", "container.run", "docker run -it --gpus=all ollama/ollama:rocm"),
    ("ERROR: Could not find a version that satisfies the requirement torch (from versions: none)\n"
     "ERROR: No matching distribution found for torch", "pip.no-versions",
     "No matching distribution found for torch"),
    ("$ uname -r\n6.5.0-14-generic", "kernel.release", "6.5.0-14-generic"),
    ("Linux box 5.15.167.4-microsoft-standard-WSL2 #1 SMP x86_64 GNU/Linux", "kernel.release",
     "5.15.167.4-microsoft-standard-WSL2"),
])
def test_each_fact_is_found(line: str, kind: str, value: str):
    assert value in kinds(line).get(kind, []), kinds(line)


@pytest.mark.parametrize(("line", "kind"), [
    ("model name : AMD Ryzen 7 PRO 7840U w/ Radeon 780M Graphics", None),  # PRO 7840U is a CPU
    ("GCC version: (Ubuntu 9.4.0-1ubuntu1~20.04.2) 9.4.0", "os.name"),  # a package version, not Ubuntu 9.4
    ("amdgpu/6.3.6, 6.2.0-39-generic, x86_64: installed", "kernel.release"),  # dkms names other kernels
    ("rocBLAS error: Cannot read TensileLibrary.dat: gfx1030 gfx1100", "gpu.app"),  # a list, not a GPU
])
def test_lookalikes_are_not_facts(line: str, kind: str | None):
    found = kinds(line)
    if kind is None:
        assert "PRO 7840U" not in found.get("gpu.name", []), found
    else:
        assert kind not in found, found


def test_facts_carry_their_line_as_low_confidence_evidence():
    text = "hello\n>>> torch.__version__\n'2.6.0+cu124'\n"
    fact = extract(text, "logs/repl.txt").first("torch.version")
    assert fact is not None
    assert fact.source.kind == FREE_TEXT and fact.source.file == "logs/repl.txt"
    assert fact.source.line == 3 and fact.source.text == "'2.6.0+cu124'"


def test_value_helpers():
    assert torch_from_wheel("torch-2.3.0.dev20240101%2Brocm6.0-cp310-cp310-linux_x86_64.whl") == \
        "2.3.0.dev20240101+rocm6.0"
    assert torch_from_wheel("torchvision-0.1-py3-none-any.whl") is None
    assert python_minor("310") == "3.10" and python_minor("3.14") == "3.14"
    assert app_gpu('msg="inference compute" id=0 library=rocm compute=gfx1031 driver=6.2 name=1002:73df') == \
        (None, None, "gfx1031", "0x73df")
    assert app_gpu("nothing here") is None


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=3000))
def test_extract_never_raises(text: str):
    facts = extract(text, "f")
    assert all(f.kind in {r.kind for r in RULES} for f in facts.facts)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from([
    "torch.__version__", "'2.6.0+cu124'", "Device 0: ", ", gfx1100", "[1002:", "744c]", "docker run ", "--gpus=all",
    "/opt/rocm-", "6.2.0", "\n", " ", "(.venv) ", "root@", "0123456789ab:", "Python 3.", "HSA_OVERRIDE_GFX_VERSION=",
    "server config", "compute=gfx", "\x1b[31m", "\r", "Looking in indexes:", "nvidia-cublas-cu12", "torch-2.",
]), max_size=200).map("".join))
def test_extract_never_raises_on_mangled_fragments(text: str):
    extract(text, "f")


def test_huge_adversarial_input_is_bounded():
    """Near-misses of every rule, repeated to 4 MB: linear (each rule is one C-level scan, matches capped)."""
    chunk = ("torch.__version__ " * 5 + "Device 0: " + "x" * 200 + " [1002:zzzz] docker runx --gpus "
             + "/opt/rocm-" + "9" * 50 + " Looking in indexes:\n")
    text = chunk * (4_000_000 // len(chunk))
    start = time.perf_counter()
    facts = extract(text, "big")
    elapsed = time.perf_counter() - start
    assert len(facts.facts) <= 20 * len(RULES)
    assert elapsed < 30, elapsed  # generous: a bound on pathological backtracking, not a benchmark


_BACKTRACK_PROBE = """
import sys, time
from rocmdoctor.parse.freetext_rules import RULES
block = (sys.argv[1] + "\\n") * 25
for rule in RULES:
    for needle in rule.needles:
        print(rule.kind, repr(needle), rule.regex[:120], flush=True)
        text = needle.lstrip("\\n") + "\\n" + block + needle.lstrip("\\n") + "\\n" + block
        start = time.perf_counter()
        list(rule.pattern.finditer(text))
        if time.perf_counter() - start > 2:
            sys.exit("slow")
print("done", flush=True)
"""


@pytest.mark.parametrize("line", [" " * 14 + "x" * 12, " " * 6 + "- " + " " * 6 + "y" * 8, "\t" * 6 + "z z z z"])
def test_no_rule_backtracks_over_the_lines_after_its_needle(line: str):
    """Every rule on each needle followed by 25 indented near-miss lines: a rule whose lines can be split two ways
    (indentation then "any text", which also takes spaces) tries every split of every line, 8x per line, and never
    returns; an unambiguous rule reads them once. Run in a child process, which a hung regex cannot take down with
    it; the last rule it names is the slow one. A bound on pathological backtracking, not a benchmark."""
    try:
        proc = subprocess.run([sys.executable, "-c", _BACKTRACK_PROBE, line], capture_output=True, text=True,
                              timeout=120, cwd=Path(__file__).resolve().parent.parent)
        out = proc.stdout
    except subprocess.TimeoutExpired as exc:
        out = (exc.stdout.decode() if isinstance(exc.stdout, bytes) else exc.stdout or "") + "\n(timed out)"
    assert out.rstrip().endswith("done"), [ln for ln in out.splitlines() if ln.strip()][-2:]


# ------------------------------------------------------------------------------------- into the Host


def host_of(tmp_path: Path, text: str, name: str = "paste.txt"):
    p = tmp_path / name
    p.write_text(text)
    return load_host(p)


def test_cuda_torch_on_an_amd_host_is_named(tmp_path: Path):
    host = host_of(tmp_path, ">>> import torch\n>>> torch.__version__\n'2.6.0+cu124'\n>>> torch.cuda.is_available()\n"
                             "False\n  Device 0: AMD Radeon RX 7900 XTX, gfx1100 (0x1100), VMM: no, Wave Size: 32\n")
    assert host.torch is not None and host.torch.version == "2.6.0+cu124" and host.torch.build == "cuda"
    assert host.torch.source is not None and host.torch.source.kind == FREE_TEXT
    found = {f.id: f.severity for f in judge_host(host)}
    assert found["torch.not-rocm-build"] == Severity.FAIL


def test_hip_none_proves_not_rocm(tmp_path: Path):
    host = host_of(tmp_path, "torch.version.hip: None\ntorch.version.cuda: 12.4\n")
    assert host.torch is not None and host.torch.build == "cuda"
    host = host_of(tmp_path, "torch.version.hip: None\ntorch.version.cuda: None\n")
    assert host.torch is not None and host.torch.build == "cpu"


def test_pypi_wheel_with_nvidia_deps_is_a_cuda_torch(tmp_path: Path):
    host = host_of(tmp_path, "Collecting torch\n  Downloading torch-2.6.0-cp312-cp312-manylinux_2_28_x86_64.whl "
                             "(766.7 MB)\nCollecting nvidia-cublas-cu12==12.4.5.8 (from torch)\n")
    assert host.torch is not None and host.torch.version == "2.6.0" and host.torch.build == "cuda"
    assert host.python.version == "3.12"


def test_pci_id_names_the_gpu_and_its_gfx(tmp_path: Path):
    host = host_of(tmp_path, "[    4.1] kfd kfd: amdgpu: skipped device 1002:73df, PCI rejects atomics 730<0\n")
    findings = judge_host(host)
    assert [g.gfx for g in host.gpus] == ["gfx1031"]
    assert host.gpus[0].name and host.gpus[0].pci_device_id == "0x73df"
    assert all(f.id != "gpu.none-found" for f in findings)


def test_format_parser_wins_over_free_text(tmp_path: Path):
    bundle = tmp_path / "b"
    (bundle / "cmd").mkdir(parents=True)
    (bundle / "logs").mkdir()
    (bundle / "cmd" / "pip-freeze.txt").write_text("torch==2.5.1+rocm6.2\n")
    (bundle / "logs" / "old.txt").write_text(">>> torch.__version__\n'2.4.0+cu121'\nOS: Ubuntu 20.04.6 LTS\n")
    (bundle / "root" / "etc").mkdir(parents=True)
    (bundle / "root" / "etc" / "os-release").write_text(
        'ID=ubuntu\nVERSION_ID="22.04"\nPRETTY_NAME="Ubuntu 22.04.5 LTS"\n')
    host = load_host(bundle)
    assert host.torch is not None and host.torch.version == "2.5.1+rocm6.2"
    assert host.os.version_id == "22.04"


def test_text_gpus_only_when_no_enumeration_source_lists_one(tmp_path: Path):
    bundle = tmp_path / "b"
    (bundle / "cmd").mkdir(parents=True)
    (bundle / "cmd" / "rocm-smi.txt").write_text(
        "GPU[0]\t\t: Card series: \t\tAMD Instinct MI210\nGPU[0]\t\t: Card model: \t\t0x740f\n")
    (bundle / "logs").mkdir()
    (bundle / "logs" / "chat.txt").write_text("I also have an RX 6800 at home\n")
    host = load_host(bundle)
    assert not any("6800" in (g.name or "") for g in host.gpus)


def test_ollama_server_env_is_the_failing_process_env(tmp_path: Path):
    text = ('time=2024-10-01T10:00:00Z level=INFO source=routes.go:1 msg="server config" env="map[HIP_VISIBLE_DEVICES: '
            'HSA_OVERRIDE_GFX_VERSION: OLLAMA_DEBUG:false]"\n'
            'time=2024-10-01T10:00:01Z level=INFO source=types.go:1 msg="inference compute" id=0 library=rocm '
            'compute=gfx1031 driver=6.2 name=1002:73df total="12.0 GiB"\n'
            "$ export HSA_OVERRIDE_GFX_VERSION=10.3.0\n")
    host = host_of(tmp_path, text)
    assert "env" in host.captured and "HSA_OVERRIDE_GFX_VERSION" not in host.env
    f = next(f for f in judge_host(host) if f.id == "gpu.override-needed")
    assert f.severity == Severity.FAIL
    assert f.fix is not None and any("systemctl edit ollama.service" in c for c in f.fix.commands)
    assert any("HSA_OVERRIDE_GFX_VERSION=10.3.0" in c for c in f.fix.commands)


def test_report_json_marks_free_text_facts(tmp_path: Path):
    from rocmdoctor.report.render import to_json

    host = host_of(tmp_path, "torch.__version__: 2.6.0+cpu\n")
    doc = json.loads(to_json(host, judge_host(host)))
    assert doc["host"]["torch"]["build"] == "cpu"


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from([
    "torch.__version__: 2.6.0+cu124", "torch.version.hip: None", "Device 0: AMD Radeon Graphics, gfx1152 (0x1152)",
    "[1002:73df]", "DID 7340", "docker run --gpus=all x", "root@0123456789ab:/# ", "(.venv) $ ", "PS C:\\Users\\a> ",
    "export HSA_OVERRIDE_GFX_VERSION=10.3.0", "ROCR_VISIBLE_DEVICES=1", "HIP_VISIBLE_DEVICES=1", "WSL2", "RX 7900 XT",
    "/opt/rocm-6.0.0/lib", "I had rocm-5.7 installed", "No HIP GPUs are available", "--group-add video",
    "rocm-sdk targets\ngfx1100;gfx1101", "Python 3.14.0", "Windows 11", "Secure Boot blocked amdgpu", "\n", "x",
]), max_size=40).map("\n".join))
def test_any_mix_of_facts_judges_without_crashing(tmp_path_factory, text: str):
    from rocmdoctor.errors import BadInput

    p = tmp_path_factory.mktemp("mix") / "paste.txt"
    p.write_text(text or "x")
    try:
        findings = judge_host(load_host(p))
    except BadInput:
        return
    assert not [f for f in findings if f.severity == Severity.ERROR], [f.title for f in findings
                                                                      if f.severity == Severity.ERROR]


def _signature_lines() -> list[str]:
    """Real lines from the captures and the field fixtures (every signature has its line somewhere there)."""
    root = Path(__file__).resolve().parent.parent
    out: list[str] = []
    for p in sorted((root / "fixtures").glob("field-*/paste.txt"))[:80]:
        out.extend(p.read_text(encoding="utf-8", errors="replace").splitlines()[:60])
    return out or ["No HIP GPUs are available"]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(_signature_lines()), max_size=30).map("\n".join))
def test_signature_prefilter_changes_nothing(text: str):
    """logs.scan skips a signature whose literal needles are absent: same matches as running every regex."""
    from rocmdoctor.parse.logs import scan

    def key(ms):
        return [(m.signature, m.source.line if m.source else None, m.text) for m in ms]

    assert key(scan(text, "f")) == key(scan(text, "f", prefilter=False))


@pytest.mark.parametrize("line", ["sudo amdgpu-install -y --usecase=rocm --no-dkms", "install wslu and wslview",
                                  "the awsl package", "export WSLENV=win_sdk"])
def test_wsl_is_not_read_into_unrelated_words(line: str) -> None:
    assert "wsl" not in kinds(line), kinds(line)


def test_an_applications_rocm_device_count_is_an_enumeration(tmp_path: Path) -> None:
    """llama.cpp's HIP build (fixtures/field-healthy-llamacpp-8x-mi100-rocm-works) prints 'found 8 ROCm devices'
    with empty names: 8 GPUs the runtime enumerated (gpu.detected ok), none identified (no iGPU verdict)."""
    host = host_of(tmp_path, "ggml_init_cublas: found 2 ROCm devices:\n  Device 0: , compute capability 9.0, VMM: no\n")
    assert len(host.gpus) == 2
    got = {f.id: f.severity for f in judge_host(host)}
    assert got["gpu.detected"] == Severity.OK and got["gpu.igpu-visible"] == Severity.SKIP
    cuda = host_of(tmp_path, "ggml_init_cublas: found 2 CUDA devices:\n", name="cuda.txt")
    assert cuda.gpus == []


def test_targets_listed_in_parentheses_are_not_gpus() -> None:
    assert "gpu.gfx" not in kinds("built for these targets (gfx1100) only")
    assert kinds("one GPU (R9700, gfx1201) and integrated graphics (9950X3D, gfx1036)")["gpu.gfx"] == [
        "gfx1201", "gfx1036"]


def test_a_torch_version_needs_its_build_tag_in_prose() -> None:
    assert "torch.version" not in kinds("we tested torch 2.10.0 yesterday")
    assert "torch.version" not in kinds("see pytorch 2.10.0+cpu")  # not the word torch alone
    # field-stabilitymatrix-comfyui-cuda-torch-rx7900xt: the reporter's fix, not the installed build
    assert "torch.version" not in kinds("pip install torch 2.3.1+rocm6.0 --index-url https://x/rocm6.0")


@pytest.mark.parametrize(("line", "mode", "group"), [
    ("- `/dev/kfd` = `crw-rw---- root root` after boot; `hal0` cannot read it.", "660", "root"),  # Hal0ai/hal0#420
    ("crw-rw---- 1 root render 234, 0 Jan  1 10:00 /dev/kfd", "660", "render"),
    ("crw-rw-rw- 1 root root 238, 0 Jan  1 10:00 /dev/kfd", "666", "root"),
])
def test_kfd_permissions_quoted_in_text_become_its_node(tmp_path: Path, line: str, mode: str, group: str) -> None:
    host = host_of(tmp_path, line + "\n")
    kfd = [n for n in host.device_nodes if n.path == "/dev/kfd"]
    assert [(n.mode, n.group) for n in kfd] == [(mode, group)]


def test_pypi_manylinux_torch_wheel_is_the_cuda_build(tmp_path: Path) -> None:
    """AUTOMATIC1111#9402: PyPI's Linux x86_64 torch (no +rocm/+cpu in the file name) came in beside the ROCm index."""
    host = host_of(tmp_path, "Looking in indexes: https://pypi.org/simple, https://download.pytorch.org/whl/rocm5.2\n"
                             "Using cached torch-2.0.0-cp310-cp310-manylinux1_x86_64.whl (619.9 MB)\n")
    assert host.torch is not None and host.torch.proven_build == "cuda"
    found = {f.id: f.severity for f in judge_host(host)}
    assert found["log.pip-extra-index-url"] == Severity.WARN
    rocm = host_of(tmp_path, "Using cached torch-2.0.0%2Brocm5.4.2-cp310-cp310-linux_x86_64.whl\n", name="r.txt")
    assert rocm.torch is not None and rocm.torch.proven_build != "cuda"


@pytest.mark.parametrize("cpu_line", [
    # VoiceStudio#987
    "However, it falls back to CPU-only due to pytorch trying to compile with an older rocm release.",
    "When launching an Invoke server that was installed with ROCm support, the CPU is selected as the torch device.",
])
def test_a_failed_rocm_install_and_a_cpu_run_prove_the_default_torch_stayed(tmp_path: Path, cpu_line: str) -> None:
    """InvokeAI#7146 / VoiceStudio#987: the installer's ROCm-index install found no wheel; the report says the
    program ran on the CPU: the torch that stayed is not a ROCm build, and the failed install is the root."""
    failed = ("pip install torch==2.4.1 --index-url https://download.pytorch.org/whl/rocm5.6\n"
              "Looking in indexes: https://download.pytorch.org/whl/rocm5.6\n"
              "ERROR: No matching distribution found for torch==2.4.1\n")
    host = host_of(tmp_path, cpu_line + "\n" + failed)
    assert host.torch is not None and host.torch.proven_build == "not-rocm"
    found = {f.id: f for f in judge_host(host)}
    assert found["torch.not-rocm-build"].severity == Severity.FAIL
    assert any("No matching distribution" in e for e in found["torch.not-rocm-build"].evidence)
    # either half alone proves nothing about the wheel: a ROCm torch that sees no GPU runs on the CPU too
    for text, name in ((cpu_line + "\n", "a.txt"), (failed, "b.txt"),
                       (cpu_line + "\nERROR: No matching distribution found for torch==2.4.1\n", "c.txt")):
        alone = host_of(tmp_path, text, name=name)
        assert alone.torch is None or alone.torch.proven_build is None, text


def test_a_templates_example_os_is_not_the_os(tmp_path: Path) -> None:
    """TensorFlow's issue template: 'OS Platform and Distribution (e.g., Linux Ubuntu 16.04): Ubuntu 20.04'."""
    host = host_of(tmp_path, "-   **OS Platform and Distribution (e.g., Linux Ubuntu 16.04)**: Ubuntu 20.04\n")
    assert host.os.version_id == "20.04" or host.os.version == "20.04"


def _with_lines_after(rule, lines: int):
    """A copy of ``rule`` whose windows take ``lines`` lines after the needle's line."""
    import dataclasses

    copy = dataclasses.replace(rule)
    copy.__dict__["lines_after"] = lines  # the cached property's slot
    return copy


def test_a_rule_that_takes_no_newline_finds_the_same_on_its_needles_line_alone() -> None:
    """Most rules read only the needle's line (``lines_after == 0``): exact only if no match can reach the next
    line. On every field paste, each such rule finds what it finds with one line more (the same values at the
    same offsets, where neither hits the per-rule cap; the cap keeps whichever it met first)."""
    from rocmdoctor.parse.freetext import MAX_PER_RULE, _rule_facts

    root = Path(__file__).resolve().parent.parent / "fixtures"
    pastes = [p.read_text(encoding="utf-8", errors="replace").replace("`", " ")
              for p in sorted(root.glob("field-*/paste.txt"))]
    single = [r for r in RULES if r.lines_after == 0]
    assert len(single) > len(RULES) // 2, "most rules read one line"
    compared = 0
    for rule in single:
        wider = _with_lines_after(rule, 1)
        for text in pastes:
            got, want = sorted(_rule_facts(text, rule)), sorted(_rule_facts(text, wider))
            if max(len(got), len(want)) < MAX_PER_RULE:
                assert got == want, (rule.kind, rule.needles)
                compared += bool(want)
    assert compared > 300  # facts were found, and compared
    across = [r for r in RULES if r.lines_after > 0]
    assert any("\\s" in r.regex for r in across)  # the analysis keeps a rule whose \s can take the newline


@pytest.mark.parametrize(("regex", "takes"), [
    (r"a\sb", True), (r"[^x]", True), (r"\D", True), (r"\W", True), (r"(?s).", True), (r"a(?s:.)", True),
    (r"x(?=\s)", True), (r"(?<!\s)x", True), (r"(?P<v>x)(?P=v)", True), (r"[^a-z]", True), (r"[\x00-\x20]", True),
    (r".", False), (r"a[^\n]b", False), (r"\S", False), (r"[a-z]", False), (r"(a|b\d)+", False),
    (r"[^a-z\n]", False), (r"(?i:rx \d{3})", False), (r"\bRX ?\d{4}\b", False), (r"^x$", False),
])
def test_takes_newline(regex: str, takes: bool) -> None:
    from rocmdoctor.parse.freetext_rule import takes_newline

    assert takes_newline(regex) is takes
    assert _exact_takes_newline(regex) is takes  # the oracle agrees on these


def _exact_takes_newline(regex: str) -> bool:
    """The oracle: can any node of the parsed regex (MULTILINE) consume or assert on a newline?"""
    import re
    from re import _parser as sre_parse  # type: ignore[attr-defined]

    newline, no_newline_categories = ord("\n"), {"CATEGORY_NOT_SPACE", "CATEGORY_DIGIT", "CATEGORY_WORD",
                                                  "CATEGORY_NOT_LINEBREAK"}

    def in_class(kind: str, value) -> bool:
        if kind == "LITERAL":
            return value == newline
        if kind == "RANGE":
            return value[0] <= newline <= value[1]
        return kind != "CATEGORY" or str(value) not in no_newline_categories

    def item(op: str, av) -> bool:
        if op == "LITERAL":
            return av == newline
        if op == "NOT_LITERAL":
            return av != newline
        if op in ("AT", "ANY"):
            return False
        if op == "IN":
            items = list(av)
            negate = bool(items) and str(items[0][0]) == "NEGATE"
            return any(in_class(str(k), v) for k, v in items[negate:]) != negate
        if op == "SUBPATTERN":
            return bool(av[1] & re.DOTALL) or seq(av[-1])
        if op == "BRANCH":
            return any(seq(b) for b in av[1])
        if op in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            return seq(av[2])
        if op in ("ASSERT", "ASSERT_NOT"):
            return seq(av[1])
        return True  # back-references and anything else: may

    def seq(items) -> bool:
        return any(item(str(op), av) for op, av in items)

    parsed = sre_parse.parse(regex, re.MULTILINE)
    return bool(parsed.state.flags & re.DOTALL) or seq(list(parsed))


def test_the_cheap_newline_reading_never_under_reads_a_shipped_rule() -> None:
    """Each rule's span comes from its regex's text (no parse on every run); where the parsed regex can take a
    newline, the text reading must say so too (it may say so where it cannot: then the rule reads a line more)."""
    under = [r.regex for r in RULES if _exact_takes_newline(r.regex) and r.lines_after == 0]
    assert under == []
    assert sum(r.lines_after == 0 for r in RULES) > len(RULES) // 2  # and most rules read one line
