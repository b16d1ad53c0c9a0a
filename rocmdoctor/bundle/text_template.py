"""An issue template's fixed-list answers beside the report's own words (out of bundle.text for size).

ROCm's GitHub issue template asked the GPU and the ROCm release with dropdowns of fixed options (ROCm/ROCm's
.github/ISSUE_TEMPLATE/issue_report.yml of January 2024: GPUs from the support list, no RX 7600 XT; releases up to
'ROCm 6.0.0', its first option). A card or release outside the list has to be filed under another one, so where
the report's prose says in the first person which GPU it has ("Hi, I have rx 7600 xt") or which release it
installed ("I install rocm 6.1"), and the dropdown's answer differs, the prose is the host (fixtures/README.md
judging rule 27; ROCm/ROCm#3054). The dropdown's answer is then neither a second GPU nor the installed release.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Optional

from rocmdoctor.parse.freetext import product_name

if TYPE_CHECKING:
    from rocmdoctor.parse.freetext import TextFact, TextFacts

# "I have", "I've got", "I own", "my GPU is": the reporter's own card, said before its name on the same line
_HAVE_GPU = re.compile(r"(?i)(?:\bI(?: have|'ve got| own)|\bmy (?:gpu|card|graphics card) is)\s{1,3}"
                       r"(?:an?\s{1,3}|the\s{1,3})?$")
# "I install rocm 6.1", "I installed ROCm 6.2", "I'm using ROCm 6.0", "I have rocm 5.7": the release the reporter runs
_SAID_ROCM = r"\bI(?:'m| am| have)?\s{1,3}(?:install(?:ed)?|us(?:e|ed|ing)|run(?:ning)?|have)\s{1,3}(?:the\s{1,3})?"


def _answers(facts: TextFacts, f: TextFact, heading: str) -> bool:
    """The fact is the answer of the template field ``heading``: the line after its '### <heading>' (a blank line
    between)."""
    line = f.source.line or 0
    return any(h.value == heading and 0 < line - (h.source.line or 0) <= 2 for h in facts.all("md.heading"))


def _norm(name: str) -> str:
    return product_name(name).lower().removeprefix("amd ").removeprefix("radeon ").replace(" ", "")


def _said_had(f: TextFact) -> bool:
    line = f.source.text or ""
    at = line.lower().find(f.value.lower())
    return at > 0 and bool(_HAVE_GPU.search(line[:at]))


def gpu_names(facts: TextFacts, named: list[TextFact]) -> list[TextFact]:
    """The GPU names the report gives, less the template's GPU answer where the prose says in the first person
    that it has another card (and none of the answer's cards)."""
    picked = [f for f in named if _answers(facts, f, "GPU")]
    own = {_norm(f.value) for f in named if f not in picked and _said_had(f)}
    if not picked or not own or own & {_norm(f.value) for f in picked}:
        return named
    return [f for f in named if f not in picked]


def stated_over_template(facts: TextFacts) -> Optional[TextFact]:
    """A release the prose says the reporter installed or runs, where the template's 'ROCm Version' answer names
    another release: the prose's; else None."""
    picked = facts.first("rocm.version")
    if picked is None or not _answers(facts, picked, "ROCm Version"):
        return None
    series = ".".join(picked.value.split(".")[:2])
    for f in facts.all("rocm.named"):
        said = re.search(_SAID_ROCM + r"(?:ROCm|rocm|ROCM)[ -]?v?" + re.escape(f.value) + r"\b", f.source.text or "")
        if said is not None and ".".join(f.value.split(".")[:2]) != series:
            return f
    return None
