"""Tell what a bare pasted file is from its content (``rocmdoctor check --from FILE``).

A paste may hold several outputs at once (``rocminfo`` then ``rocm-smi`` then ``groups``), so
:func:`sniff` returns every kind it recognises; each parser ignores what is not its own.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache
from typing import Any, Optional

from rocmdoctor.parse.kernel import JOURNAL_KERNEL_PREFIX
from rocmdoctor.parse.needles import line_shapes, may_match
from rocmdoctor.parse.smi import load_json
from rocmdoctor.parse.smi_monitor import HEADER_START

# kind -> regex that is enough to recognise it anywhere in the text (MULTILINE).
_MARKERS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(rx, re.M))
    for kind, rx in (
        ("rocminfo", r"HSA Agents|HSA System Attributes|ROCk module|^\s*(?:\S+[:-])?\s*Name:\s+gfx[0-9a-f]{3,5}\s*$"
                     r"|amdgcn-amd-amdhsa--gfx|^\s*Marketing Name:\s|\brocminfo\b.{0,200}\n.{0,200}Permission denied"),
        # (vLLM's collect_env pads its keys: "ROCM used to build PyTorch   : 7.2.53211", vllm-project/vllm#45372)
        ("collect_env", r"^(?:PyTorch version|Is debug build|ROCM used to build PyTorch|CUDA used to build PyTorch)"
                        r"[ \t]{0,40}:|torch/utils/collect_env\.py|^Collecting environment information"),
        ("rocm-smi", r"ROCm System Management Interface|={3,200} ROCm SMI|^\s*GPU\[\d+\]\s*:\s"),
        ("dkms", r"^[\w.+-]+(?:/|,\s*)[^,\s:]+(?:,\s*[^,\s:]+)?(?:,\s*[\w-]+)?:\s*(?:installed|built|added)\b"
                 r"|Could not locate dkms\.conf|Bad return status for module build"
                 r"|^\s*(?:\$\s*)?(?:sudo\s+)?dkms status"),
        ("lspci", r"^(?:[A-Za-z][\w ]{0,15}[:\uff1a]\s+)?(?:[0-9a-f]{4}:)?[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]\s+"
                  r"(?:VGA compatible controller|Display controller|3D controller|Processing accelerators|Host bridge"
                  r"|PCI bridge)"),
        # one line: "Linux Ubuntu 22.04" ending a template answer is not uname -a ('#' is the next heading)
        ("uname", r"^[ \t]*(?:\$[ \t]*)?Linux[ \t]+\S+[ \t]+\d+\.\d+\S*[ \t]+#"),
        ("proc-version", r"^Linux version \d"),
        ("os-release", r"^(?:PRETTY_NAME|VERSION_ID|ID_LIKE)="),
        ("lsb_release", r"^Distributor ID:\s|^DISTRIB_ID="),
        ("dmesg", r"^\s*\[\s*\d+\.\d+\]\s"
                  r"|^\s*\[(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4}\]\s"  # dmesg -T
                  rf"|^{JOURNAL_KERNEL_PREFIX} "),  # journalctl -k, syslog
        # amd-smi static without --json: "GPU: 0" then indented sections ("    ASIC:", "    BUS:", ...)
        ("amd-smi", r"^GPU: \d{1,3}\s*\n[ \t]+"
                    r"(?:ASIC|BUS|BOARD|VBIOS|IFWI|DRIVER|VRAM|LIMIT|RAS|NUMA|CACHE_INFO):\s*$"),
        # amd-smi monitor's table header ("TIMESTAMP  GPU  POWER  GPU_TEMP  MEM_TEMP ...", ROCm/amdsmi)
        ("amd-smi-monitor", HEADER_START),
        ("id", r"uid=\d{1,10}\([^)\s]{0,64}\)\s+gid=\d"),
        ("stat-dev", r"^/dev/(?:kfd|dri/\S+|dxg)\s+[0-7]{3,4}\s+\S+\s+\S+\s+\d+\s+\d+\s*$"),
        ("modules", r"^amdgpu\s+\d+\s+\d+(?:\s|$)"),
        ("hipconfig", r"^HIP version\s*:|^== hipconfig|^HIP_PATH\s*:"),
        ("rocm-bandwidth-test", r"^\s*Data Path Validation\s*$"),
        ("kfd-properties", r"^gfx_target_version\s+\d+\s*$"),
        ("pip-show", r"^Name:\s+\S+\s*\nVersion:\s+\S+"),
        ("lscpu", r"^Model name:\s+\S.*$"),
        ("env", r"^(?:export\s+)?(?:HSA|HIP|ROCR|ROCM|PYTORCH)_[A-Z0-9_]+="),
    )
)
_ENUMERATOR_LINE = re.compile(r"^gfx[0-9a-f]{3,5}$")
_FREEZE_LINE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*(?:\[[^\]]*\])?\s*(?:==|===| @ )\S")
_UNAME_R = re.compile(r"^\d+\.\d+(?:\.\d+)?(?:-[\w.+~]+)+$")
_ROCM_VERSION = re.compile(r"^\d+\.\d+\.\d+(?:-\d+)?$")


def _json_kind(data: Any) -> list[str]:
    if isinstance(data, dict):
        if "torch" in data or "distributions" in data or ("python" in data and isinstance(data["python"], dict)):
            return ["torch-probe"]
        if "Runtimes" in data or "ServerVersion" in data or "DefaultRuntime" in data:
            return ["docker-info"]
        if "gpu_data" in data or ("gpu" in data and ("asic" in data or "bus" in data or "vram" in data)):
            return ["amd-smi"]
        return []
    if isinstance(data, list) and data and all(isinstance(d, dict) for d in data[:50]):
        if all("name" in d and "version" in d for d in data[:50]):
            return ["pip-list"]
        if any("gpu" in d for d in data[:50]):
            return ["amd-smi"]
    return []


@lru_cache(maxsize=64)
def _after_newline(rx: re.Pattern[str]) -> Optional[re.Pattern[str]]:
    """``\\n(?:rx)`` when every match of ``rx`` must start at a line start (each top-level alternative begins
    with ``^``), else None. The regex engine tries ``^`` at every character of a 1 MiB paste but jumps from
    newline to newline for a literal ``\\n`` prefix: about ten times faster, same answer."""
    if not rx.flags & re.MULTILINE:
        return None  # without MULTILINE ``^`` is the start of the text only
    try:
        try:
            from re import _parser as sre_parse  # type: ignore[attr-defined]  # Python >= 3.11
        except ImportError:  # pragma: no cover - Python < 3.11
            import sre_parse  # type: ignore[no-redef]
        parsed = list(sre_parse.parse(rx.pattern, rx.flags))
    except Exception:  # any parser quirk means: search as written
        return None
    branches = [parsed]
    if len(parsed) == 1 and str(parsed[0][0]) == "BRANCH":
        branches = [list(b) for b in parsed[0][1][1]]
    if not all(b and str(b[0][0]) == "AT" and str(b[0][1]) == "AT_BEGINNING" for b in branches):
        return None
    return re.compile(r"\n(?:" + rx.pattern + ")", rx.flags)


def _found(rx: re.Pattern[str], text: str) -> bool:
    """``rx.search(text)`` is not None (MULTILINE markers anchored at line starts take the fast path)."""
    if not may_match(text, rx):
        return False
    nl = _after_newline(rx)
    if nl is None:
        return rx.search(text) is not None
    return rx.match(text) is not None or nl.search(text) is not None


def sniff(text: str) -> list[str]:
    """Every kind of output recognised in ``text`` (empty: free text only)."""
    head = text[:4 * 1024 * 1024]
    stripped = head.strip()
    if stripped[:1] in ("{", "[") or re.match(r"^[^\n{\[]{0,200}\n\s*[{\[]", stripped):
        kinds = _json_kind(load_json(head))
        if kinds:
            return kinds
    no_cr = head.replace("\r", "") if "\r" in head else head
    kinds = [kind for kind, rx in _MARKERS if _found(rx, no_cr)]
    body = _body(no_cr)  # distinct non-empty lines (no prompt lines) and how often each occurs
    n_body = sum(body.values())
    if body and all(_ENUMERATOR_LINE.match(ln) for ln in body):
        return ["rocm_agent_enumerator"]
    if body and _mostly_freeze(body, n_body):
        kinds.append("pip-freeze")
    if n_body == 1 and not kinds:
        only = next(iter(body))
        if _ROCM_VERSION.match(only):
            kinds.append("rocm-info-version")
        elif _UNAME_R.match(only):
            kinds.append("uname")
    if "env" in kinds and "os-release" in kinds:
        kinds.remove("env")
    return kinds


def _body(text: str) -> Counter[str]:
    """The stripped, non-empty lines that are not a prompt, counted, each with its digits read as 0 (a log
    repeating a line, or stamping each with its time, is tested once per shape). Every test of the body is
    blind to which digit a line holds: _ENUMERATOR_LINE, _FREEZE_LINE, _ROCM_VERSION and _UNAME_R have their
    digits only in classes that hold all ten (``[0-9a-f]``, ``\\d``, ``\\w``, ``\\S``...), and strip() and the
    prompt prefixes see no digit; tests/test_sniff_shapes.py holds them to it."""
    out: Counter[str] = Counter()
    for raw, n in line_shapes(text).items():
        ln = raw.strip()
        if ln and not ln.startswith(("$ ", "λ ", "# ", "> ", "❯ ")):
            out[ln] += n
    return out


def _mostly_freeze(body: Counter[str], n_body: int) -> bool:
    """At least 60% of the lines look like ``pip freeze`` (stops as soon as the answer is known: a log says
    no after a few lines)."""
    need = max(1, n_body * 0.6)
    spare = n_body - need  # how many other lines the answer yes allows
    got = 0
    for ln, n in body.items():
        if _FREEZE_LINE.match(ln):
            got += n
            if got >= need:
                return True
        else:
            spare -= n
            if spare < 0:
                return False
    return got >= need
