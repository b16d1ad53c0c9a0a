"""Facts in free text: what people paste into bug reports besides well-formed tool output.

A report rarely holds a full capture. It holds a REPL session (``torch.__version__`` -> ``'2.6.0+cu124'``),
a pip log (``Looking in indexes``, ``Downloading torch-2.6.0-...whl``, ``nvidia-cublas-cu12``), a shell prompt
(``(.venv) root@c0cb9814a02b:/#``, ``PS C:\\Users\\me>``), an application's GPU list (llama.cpp's
``Device 0: AMD Radeon Graphics, gfx1152``, ollama's ``inference compute`` line), a ``docker run`` line, a
dmesg excerpt with a PCI id, a product name in prose. Each rule below finds one such fact anywhere in the
text; the bundle reader folds them into the same :class:`~rocmdoctor.model.Host` the format parsers fill, at
a lower priority, so a real capture always wins over a sentence.

Why it is built this way:

* Rules are data (:data:`RULES`): a kind, a regex with a ``v`` group, and nothing else. Every regex has
  bounded quantifiers and is run with ``finditer`` over the whole text (linear, in C), at most
  :data:`MAX_PER_RULE` matches each, so a 16 MiB paste costs a few regex passes, not a Python loop per line.
* Facts carry their line as evidence, with ``Source.kind == "free-text"`` (lower confidence).
* Pure and total: ``extract`` never raises, whatever it is given.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from typing import Optional

from rocmdoctor.model import Source
from rocmdoctor.parse.text import MAX_CHARS, clean

FREE_TEXT = "free-text"  # Source.kind of every fact found here
MAX_PER_RULE = 20  # matches kept per rule: a log repeating a line a thousand times needs only a few

_VER = r"\d{1,3}\.\d{1,3}(?:\.\d{1,5})?"
_TORCH_VER = r"\d{1,2}\.\d{1,3}\.\d{1,3}(?:(?:a|b|rc|\.dev|\.post)\d{0,10})?(?:\+[A-Za-z0-9.]{1,40})?"


@dataclass(frozen=True)
class Rule:
    kind: str
    pattern: re.Pattern[str]


def _r(kind: str, pattern: str, flags: int = 0) -> Rule:
    return Rule(kind, re.compile(pattern, flags | re.MULTILINE))


# One row per fact. The ``v`` group is the value; a rule may match the same fact in many forms.
RULES: tuple[Rule, ...] = (
    # --- PyTorch -----------------------------------------------------------------------------------------
    _r("torch.version", rf"torch\.__version__\s{{0,4}}\)?[\s:=>'\",]{{0,12}}(?:\n[>.\s]{{0,8}})?['\"]?(?P<v>{_TORCH_VER})"),  # noqa: E501
    _r("torch.version", rf"^\s{{0,8}}(?:PyTorch|torch) version\s{{0,4}}[:=]\s{{0,4}}(?P<v>{_TORCH_VER})", re.I),
    _r("torch.version", r"^['\"](?P<v>\d{1,2}\.\d{1,3}\.\d{1,3}[\w.]{0,20}\+(?:rocm|cu|cpu)[\w.]{0,30})['\"]\s*$"),
    _r("torch.version", rf"Successfully installed\b[^\n]{{0,2000}}?\btorch-(?P<v>{_TORCH_VER})(?=\s|$)"),
    _r("torch.wheel", r"(?P<v>\btorch-\d{1,2}\.\d{1,3}\.\d{1,3}[\w.%+-]{0,80}?\.whl)"),
    _r("torch.hip", r"torch\.version\.hip\s{0,4}\)?[\s:=>'\",]{0,12}(?:\n[>.\s]{0,8})?['\"]?(?P<v>None|\d{1,2}\.\d{1,2}\.\d{4,6}[\w.-]{0,30})\b"),  # noqa: E501
    _r("torch.cuda", r"torch\.version\.cuda\s{0,4}\)?[\s:=>'\",]{0,12}(?:\n[>.\s]{0,8})?['\"]?(?P<v>None|\d{1,2}\.\d{1,2})"),  # noqa: E501
    _r("torch.available",
       r"(?:torch\.)?cuda\.is_available\(\)\s{0,4}\)?[\s:=>'\",]{0,12}(?:\n[>.\s]{0,8})?(?P<v>True|False)\b"),
    _r("torch.no-nvidia-driver", r"(?P<v>Found no NVIDIA driver on your system|Torch not compiled with CUDA enabled)"),
    _r("torch.gcn-arch", r"gcnArchName='(?P<v>gfx[0-9a-f]{3,5})"),
    # --- pip / uv ----------------------------------------------------------------------------------------
    _r("pip.index", r"Looking in indexes:\s{0,4}(?P<v>[^\n]{1,400})"),
    _r("pip.index", r"--(?:extra-)?index-url[= ](?P<v>\S{1,300})"),
    _r("pip.nvidia", r"(?P<v>\bnvidia-[a-z0-9-]{2,40}-cu1[1-3]\b)"),
    _r("pip.no-versions", r"(?P<v>from versions: none\)?[^\n]{0,10}\n?[^\n]{0,200}No matching distribution found for [^\s]{1,80})"),  # noqa: E501
    _r("pip.no-versions", r"(?P<v>No matching distribution found for torch\S{0,60})"),
    # --- ROCm / HIP versions (paths, URLs, package names) ----------------------------------------------------
    _r("rocm.path", rf"(?P<v>/opt/rocm-{_VER})\b"),
    _r("rocm.index", rf"/whl/(?:nightly/|test/)?rocm(?P<v>{_VER})\b"),
    _r("rocm.core", rf"\brocm-core(?:[ \t]{{1,40}}|/\S{{1,60}}[ \t]{{1,4}}|=)(?P<v>{_VER})"),
    _r("rocm.version", rf"^\s{{0,8}}ROCm(?: version)?\s{{0,4}}[:=]\s{{0,4}}v?(?P<v>{_VER})\b", re.I),
    _r("rocm.version", rf"\bROCM_VERSION[=:]\s{{0,2}}['\"]?(?P<v>{_VER})"),
    _r("hip.version", r"^\s{0,8}HIP version\s{0,4}:\s{0,4}(?P<v>\d{1,3}\.\d{1,3}\.\d{1,8}[\w.-]{0,30})"),
    # --- Python ------------------------------------------------------------------------------------------
    _r("python.version", r"^\s{0,8}Python (?P<v>3\.\d{1,2}\.\d{1,3})(?:[\w+]{0,12})?(?: \(|\s*$)"),
    _r("python.version", r"^\s{0,8}Python version\s{0,4}:\s{0,4}(?P<v>3\.\d{1,2}\.\d{1,3})"),
    _r("python.version", r"Installing Python (?P<v>3\.\d{1,2}\.\d{1,3})"),
    _r("python.minor", r"\bpy(?:thon)? -(?P<v>3\.\d{1,2})\b"),
    _r("python.minor", r"/lib/python(?P<v>3\.\d{1,2})/(?:site|dist)-packages\b"),
    _r("python.minor", r"\btorch-\d[\w.%+]{0,60}-cp(?P<v>3\d{1,2})-"),  # "310": see python_minor()
    # --- kernel, OS, WSL, Windows -----------------------------------------------------------------------------
    _r("kernel.release",
       r"\b(?P<v>\d\.\d{1,2}\.\d{1,3}-\d{1,4}(?:\.\d{1,4})?-(?:generic|lowlatency|amd64|cloud-amd64|azure|aws|gcp|oem|"
       r"microsoft-standard(?:-WSL2)?)\b)"),
    _r("kernel.release", r"\b(?P<v>\d\.\d{1,2}\.\d{1,3}[\w.+~-]{0,40}-microsoft-standard(?:-WSL2)?)\b"),
    _r("kernel.release", r"^\s{0,8}Linux version (?P<v>\d\.\d{1,2}\.\d{1,3}\S{0,60})"),
    _r("kernel.release", r"^\s{0,8}Linux [\w.-]{1,64} (?P<v>\d\.\d{1,2}\.\d{1,3}\S{0,60}) #"),
    _r("os.name",
       r"(?P<v>\b(?:Ubuntu|Debian GNU/Linux|Fedora(?: Linux)?|Rocky Linux|AlmaLinux|Red Hat Enterprise Linux|"
       r"RHEL|CentOS(?: Stream)?|openSUSE Leap|SUSE Linux Enterprise Server|SLES|Oracle Linux|Linux Mint|Pop!_OS)"
       r"[ \t]{1,4}\d{1,2}(?:\.\d{1,2}){0,2}(?:\.\d)?(?: LTS)?)\b"),
    _r("os.release-kv", r"^(?P<v>(?:NAME|VERSION)=[^\n]{1,120})$"),
    _r("wsl", r"(?P<v>WSL environment detected|microsoft-standard-WSL2|\bon WSL2?\b|\bWSL2\b|/dev/dxg\b|"
       r"wsl\.exe|\\\\wsl(?:\.localhost|\$)\\)"),
    _r("windows", r"(?P<v>^PS [A-Z]:\\[^\n>]{0,200}>|\b[A-Z]:\\(?:Users|Program Files|Python\d{0,3}|Windows)\\|"
       r"\bpy -3(?:\.\d{1,2})?\b|\\Scripts\\(?:python|pip)\.exe|\bAMD Software: Adrenalin|HIP SDK for Windows|"
       r"win_amd64\.whl)", re.I),
    # --- prompts ----------------------------------------------------------------------------------------------
    _r("prompt.venv", r"^\((?P<v>[\w.-]{1,64})\)\s{1,4}(?:[\w.-]{1,64}@[\w.-]{1,64}:|PS |[$#>]|\S{0,200}[$#>] )"),
    _r("prompt.container", r"(?:^|\()?\broot@(?P<v>[0-9a-f]{12})\b:"),
    # --- GPUs -------------------------------------------------------------------------------------------------
    _r("gpu.pci", r"\[1002:(?P<v>[0-9a-fA-F]{4})\]"),
    _r("gpu.pci", r"\b(?:PCI_ID=|device |skipped device |name=)1002:(?P<v>[0-9a-fA-F]{4})\b"),
    _r("gpu.pci", r"\bDID (?:0x)?(?P<v>[0-9a-fA-F]{4})\b"),
    _r("gpu.app", r"(?P<v>Device \d{1,3}: [^,\n]{1,120}, gfx[0-9a-f]{3,5}\w{0,20}[^\n]{0,120})"),
    _r("gpu.app", r"(?P<v>inference compute[^\n]{0,400}?\bcompute=gfx[0-9a-f]{3,5}[^\n]{0,400})"),
    _r("gpu.app", r"(?P<v>_CudaDeviceProperties\(name='[^'\n]{1,120}'[^\n)]{0,400}gcnArchName='gfx[0-9a-f]{3,5})"),
    _r("gpu.name",
       r"(?P<v>\b(?:AMD )?(?:Radeon(?:\(TM\))? )?(?:RX|Pro|PRO) (?:Vega \d{2}|[WV]?\d{3,4}[A-Z]?(?: ?(?:XTX|XT|GRE|X))?)\b"  # noqa: E501
       r"|\b(?:AMD )?Radeon(?:\(TM\))? (?:\d{3}M|80[56]0S|VII)\b|\bInstinct MI\d{2,3}[A-Z]{0,2}\b)"),
    _r("gpu.name", r"\bget_device_name\([^)\n]{0,20}\)\)?\s{0,4}[\n>.\s]{0,12}'(?P<v>[^'\n]{3,80})'"),
    # --- environment, services, containers -------------------------------------------------------------------
    _r("env.override.shell", r"(?:^|\bexport |\benv |\s|\$env:)HSA_OVERRIDE_GFX_VERSION\s?=\s?['\"]?(?P<v>[\d.]{0,12})"),  # noqa: E501
    _r("env.override.service", r"Environment=['\"]?HSA_OVERRIDE_GFX_VERSION=(?P<v>[\d.]{0,12})"),
    _r("env.override.process", r"server config[^\n]{0,3000}?\bHSA_OVERRIDE_GFX_VERSION:(?P<v>[\d.]{0,12})"),
    _r("service", r"(?P<v>\bsystemd\[1\]|\bsystemctl (?:edit|restart|status|start) [\w.@-]{1,60}|\bjournalctl\b|"
       r"\.service\b)"),
    _r("container.run", r"(?P<v>\b(?:docker|podman|nerdctl) (?:container )?(?:run|create)\b[^\n]{0,1500})"),
    _r("container.compose", r"(?P<v>^\s{0,8}(?:devices|group_add|runtime|deploy)\s{0,2}:)"),
    _r("container.compose-item", r"^\s{0,16}-\s{1,4}['\"]?(?P<v>/dev/(?:kfd|dri)\b\S{0,40}|video|render|\d{2,5})['\"]?\s*$"),  # noqa: E501
)

# Facts that say "this process runs in a container".
CONTAINER_HINTS = ("prompt.container",)


@dataclass(frozen=True)
class TextFact:
    """One fact found in free text: its kind (a :data:`RULES` kind), value, and line."""

    kind: str
    value: str
    source: Source


@dataclass
class TextFacts:
    facts: list[TextFact] = field(default_factory=list)

    def all(self, kind: str) -> list[TextFact]:
        return [f for f in self.facts if f.kind == kind]

    def first(self, kind: str) -> Optional[TextFact]:
        return next((f for f in self.facts if f.kind == kind), None)

    def kinds(self) -> set[str]:
        return {f.kind for f in self.facts}


def extract(text: str, file: str) -> TextFacts:
    """Every fact :data:`RULES` finds in ``text``, in line order (never raises; bounded time)."""
    out = TextFacts()
    try:
        if not isinstance(text, str) or not text:
            return out
        if len(text) > MAX_CHARS:
            text = text[:MAX_CHARS]
        newlines: Optional[list[int]] = None
        found: list[tuple[int, int, TextFact]] = []
        for order, rule in enumerate(RULES):
            for count, m in enumerate(rule.pattern.finditer(text), 1):
                value = (m.group("v") or "").strip()
                if newlines is None:
                    newlines = [i for i, ch in enumerate(text) if ch == "\n"] if "\n" in text else []
                # the line the value is on (a REPL answer sits on the line after its question)
                at = m.start("v") if m.group("v") is not None else m.start()
                line_no = bisect.bisect_left(newlines, at) + 1
                start = newlines[line_no - 2] + 1 if line_no >= 2 else 0
                end = newlines[line_no - 1] if line_no - 1 < len(newlines) else len(text)
                line = clean(text[start:min(end, start + 4096)]).strip()
                if len(line) > 300:
                    line = line[:297] + "..."
                found.append((line_no, order, TextFact(rule.kind, clean(value)[:400],
                                                        Source(file, line_no, line, FREE_TEXT))))
                if count >= MAX_PER_RULE:
                    break
        found.sort(key=lambda t: (t[0], t[1]))
        out.facts = [f for _, _, f in found]
    except (RecursionError, MemoryError, re.error, ValueError, TypeError):  # pragma: no cover - defensive
        return out
    return out


# ------------------------------------------------------------------------------------ value helpers


def torch_from_wheel(wheel: str) -> Optional[str]:
    """'torch-2.3.0.dev20240101%2Brocm6.0-cp310-cp310-linux_x86_64.whl' -> '2.3.0.dev20240101+rocm6.0'."""
    name = wheel.replace("%2B", "+").replace("%2b", "+")
    m = re.match(r"torch-(\d{1,2}\.\d{1,3}\.\d{1,3}[\w.]{0,30}(?:\+[A-Za-z0-9.]{1,40})?)-", name)
    return m.group(1) if m else None


_APP_LLAMA = re.compile(r"Device (\d{1,3}): ([^,]{1,120}), (gfx[0-9a-f]{3,5})")
_APP_OLLAMA_GFX = re.compile(r"\bcompute=(gfx[0-9a-f]{3,5})")
_APP_OLLAMA_ID = re.compile(r"\b(?:name|id)=1002:([0-9a-fA-F]{4})\b")
_APP_OLLAMA_NAME = re.compile(r"\bdescription=\"([^\"]{1,120})\"")
_APP_TORCH = re.compile(r"name='([^']{1,120})'.{0,400}?gcnArchName='(gfx[0-9a-f]{3,5})")


def app_gpu(value: str) -> Optional[tuple[Optional[str], Optional[str], Optional[str], Optional[str]]]:
    """(index, name, gfx, pci id) of one GPU an application listed; None when the line is not one."""
    m = _APP_LLAMA.search(value)
    if m:
        return m.group(1), m.group(2).strip(), m.group(3), None
    m = _APP_TORCH.search(value)
    if m:
        return None, m.group(1), m.group(2), None
    g = _APP_OLLAMA_GFX.search(value)
    if g:
        pid = _APP_OLLAMA_ID.search(value)
        name = _APP_OLLAMA_NAME.search(value)
        return None, name.group(1) if name else None, g.group(1), ("0x" + pid.group(1).lower()) if pid else None
    return None


def python_minor(value: str) -> str:
    """'3.10' stays; a wheel's tag '310' becomes '3.10'."""
    return value if "." in value else f"{value[0]}.{value[1:]}"
