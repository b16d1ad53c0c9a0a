"""One-line node verdicts for schedulers: Slurm ``HealthCheckProgram``/NHC wrappers and Kubernetes
node-problem-detector (NPD) custom plugins.

Both expect the same shape: exit 0 = healthy, 1 = a problem (drain / NodeCondition true), anything else
= the check itself could not run ("Unknown" for NPD); and one short line on stdout that becomes the
drain reason or the condition message (NPD cuts it at ``max_output_length``, 80 by default). The
verdict comes from the same checks as ``rocmdoctor check``.
"""

from __future__ import annotations

from rocmdoctor.model import Finding, Severity

PREFIX = "rocmdoctor:"  # like NHC's "NHC:" note prefix: a wrapper only clears drains it set itself


def verdict(findings: list[Finding], strict: bool = False, max_len: int = 80) -> tuple[int, str]:
    """(exit code, one line): the worst finding first, then how many more problems there are."""
    floor = Severity.WARN if strict else Severity.FAIL
    bad = sorted((f for f in findings if f.severity.rank >= floor.rank), key=lambda f: -f.severity.rank)
    if not bad:
        warns = sum(1 for f in findings if f.severity == Severity.WARN)
        line = f"{PREFIX} ok" + (f" ({warns} warning{'s' if warns != 1 else ''})" if warns else "")
        return 0, _cut(line, max_len)
    first = bad[0]
    more = f" (+{len(bad) - 1} more)" if len(bad) > 1 else ""
    head = f"{PREFIX} {first.severity.value} {first.id}"
    title = " ".join(first.title.split())
    room = max_len - len(head) - len(more) - 2
    line = f"{head}: {_cut(title, room)}{more}" if room >= 8 else f"{head}{more}"
    return 1, _cut(line, max_len)


def _cut(text: str, n: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: max(0, n - 3)].rstrip() + "..."
