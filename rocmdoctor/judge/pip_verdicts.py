"""pip's own verdicts on wheels, read against the Python it ran: a wheel file refused for its CPython tag, and an
index that serves torch for this Python but lacks a companion.

Both are about which Python a wheel is for; ``python.no-rocm-wheel`` (rocmdoctor.judge.torch) asks these first, so
that a gap in an index is not blamed on the interpreter.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Optional

from rocmdoctor.judge.facts import finding, major_minor
from rocmdoctor.model import Finding, Fix, Severity
from rocmdoctor.sanitize import command

if TYPE_CHECKING:
    from rocmdoctor.model import Fact, Host

# the torch wheel file pip downloaded, whose CPython tag gave the Python version ("torch-2.4.0%2Brocm6.1-cp312-...")
_TORCH_WHEEL = re.compile(r"\btorch-\d{1,2}\.\d{1,3}\.\d{1,3}[\w.%+-]{0,80}?-cp(\d)(\d{1,2})-")


def wheel_refused(host: Host) -> Optional[Finding]:
    """pip refused a torch/ROCm wheel file as 'not a supported wheel on this platform': its CPython tag names the only
    Python it installs on (evshiron/rocm_lab#6: a cp310 wheel under Python 3.11)."""
    fact = host.context.get("wheel-refused")
    tag = re.search(r"-cp(\d)(\d{1,2})-", fact.value) if fact is not None else None
    if fact is None or tag is None:
        return None
    wheel_py = f"{tag.group(1)}.{tag.group(2)}"
    mine = major_minor(host.python.version or "")
    if mine == wheel_py:
        return None  # the Python matches: the platform tag was refused, not the interpreter
    return finding(
        "python.no-rocm-wheel", Severity.FAIL,
        f"The wheel is built for Python {wheel_py} only" + (f"; this is Python {mine}" if mine else ""),
        f"pip refused {fact.value.rsplit('/', 1)[-1]}: its cp{tag.group(1)}{tag.group(2)} tag installs on CPython "
        f"{wheel_py} alone, and the interpreter running pip is another version.",
        [str(fact.source)] + ([str(host.python.source)] if host.python.source else []),
        Fix(f"Create the environment with Python {wheel_py} (or fetch the wheel built for this Python):",
            [f"uv venv --python {wheel_py} .venv"]),
    )


def index_lacks(host: Host, package: str, mm: str, none: Fact[str]) -> Optional[Finding]:
    """pip found no {package} ('from versions: none') from an index that served torch's wheel for this very Python
    (pytorch/pytorch#131793: torch-2.4.0+rocm6.1-cp312 came, torchaudio did not): the index lacks that wheel; a new
    environment with the same Python would change nothing. Information: the error itself is log.no-matching-wheel."""
    served = _TORCH_WHEEL.search(host.python.source.text or "") if host.python.source is not None else None
    index = host.context.get("pip-index")
    if package == "torch" or served is None or f"{served.group(1)}.{served.group(2)}" != mm:
        return None
    return finding(
        "python.no-rocm-wheel", Severity.INFO,
        f"The index serves torch for Python {mm}, but no {package} wheel for it",
        f"pip downloaded torch's Python {mm} wheel from this index, so the Python is one it builds for; it has no "
        f"{package} wheel at all ('from versions: none'): a gap in the index, not this Python.",
        [str(host.python.source), str(none.source)],
        Fix(f"See which {package} releases the index has; until it publishes one for Python {mm}, install the torch "
            f"release whose {package} it has, from the same index, in one command:",
            [command("pip", "index", "versions", package, "--index-url", index.value)] if index is not None else []),
    )


def no_versions(host: Host, mm: str, ev: list[str], none: Fact[str], pythons: tuple[str, ...] = ()) -> Finding:
    """pip saw no release at all of a package ('from versions: none'): the index has no wheel for this Python (and
    OS), unless it served torch's wheel for this very Python (then it lacks the package: :func:`index_lacks`).
    ``pythons``: those the data's ROCm wheels are built for; the fix offers the newest one older than this Python
    (a Python too new for the index is the usual case), never this Python itself."""
    index = host.context.get("pip-index")
    wanted = re.search(r"found for ([A-Za-z][\w.-]{0,60}?)(?:[=<>!~\[ ]|$)", none.value)
    package = wanted.group(1) if wanted else "torch"
    lacks = index_lacks(host, package, mm, none)
    if lacks is not None:
        return lacks
    older = [p for p in pythons if _minor(p) < _minor(mm)]
    other = older[-1] if older else next((p for p in pythons if p != mm), "3.12" if mm != "3.12" else "3.11")
    return finding(
        "python.no-rocm-wheel", Severity.FAIL, f"pip found no {package} wheel for Python {mm} on this platform",
        f"pip saw no {package} release at all for Python {mm} here: the index has no wheel for this Python (and OS)."
        + (" Windows wheels exist only for the Python versions AMD builds them for." if "windows" in host.context
           else ""),
        [*ev, str(none.source)] + ([str(index.source)] if index else []),
        Fix("Use a Python version the index publishes torch for (see the index page), in a new environment:",
            [f"py -{other} -m venv .venv" if "windows" in host.context else f"uv venv --python {other} .venv"]),
    )


def _minor(version: str) -> tuple[int, ...]:
    return tuple(int(x) for x in version.split(".")[:2] if x.isdigit())
