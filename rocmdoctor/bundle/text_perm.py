"""Free text about who may use the GPU: a runtime failure beside "it works as root" (out of bundle.text for size)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Optional

from rocmdoctor.model import Fact, Source

if TYPE_CHECKING:
    from rocmdoctor.bundle.merge import Acc
    from rocmdoctor.parse.freetext import TextFact, TextFacts

# the runtime refusing to start or to open the GPU: what "it works as root" answers
_RUNTIME_REFUSED = frozenset({"log.hsa-out-of-resources", "log.kfd-permission-denied", "log.no-hip-gpus",
                              "log.hip-error-no-device", "log.hsa-init-failed"})


def failure_then_root(acc: Acc, facts: TextFacts, works: Optional[TextFact]) -> None:
    """The runtime's failure shown, then "if I run it as root, it works" (ROCm/ROCm#1080): the user half of
    root-only is the failure itself. Only an outcome counts ("works as root", "run it as root, it works"), not the
    condition alone ("run it as root")."""
    host = acc.host
    outcome = facts.first("perm.root-then-works")
    if outcome is None and works is not None and re.match(r"(?i)(?:works?|working|fine|lists?|sees?|can)\b",
                                                          works.value):
        outcome = works
    refused = [m for m in host.logs if m.finding_id in _RUNTIME_REFUSED]
    failed = host.context.get("rocminfo-failed") or (Fact(refused[0].text, refused[0].source or Source("?"))
                                                     if refused else None)
    if outcome is not None and failed is not None:
        host.context["root-only"] = Fact(f"{failed.value} / {outcome.value}", failed.source)
        host.context["root-only-works"] = Fact(outcome.value, outcome.source)


def root_only(acc: Acc, facts: TextFacts) -> None:
    """The GPU answers root but not the user, as the report tells it: both halves said ("I can't list devices as
    user" ... "But I can do it as root", ROCm/legacy-rocm-build#1826), or one sentence ("rocm only works when using
    sudo", ROCm/ROCm-docker#36), or the failure shown and root said to work (:func:`failure_then_root`)."""
    host = acc.host
    fails, works = facts.first("perm.user-fails"), facts.first("perm.root-works")
    said = facts.first("perm.root-only")
    if fails is not None and works is not None:
        host.context["root-only"] = Fact(f"{fails.value} / {works.value}", fails.source)
        host.context["root-only-works"] = Fact(works.value, works.source)
    elif said is not None:
        host.context["root-only"] = host.context["root-only-works"] = Fact(said.value, said.source)
    else:
        failure_then_root(acc, facts, works)
