"""Rendering findings: terminal (flutter-doctor style), JSON (``rocmdoctor-report/1``) and Markdown.

Renderers are pure ``(Host, findings) -> str`` functions (the terminal one writes to a rich Console) so
that ``check``, ``smoke``, ``fleet`` and ``container test`` print the same way. JSON output never
imports rich: ``check --json`` must stay fast.
"""

from __future__ import annotations

import json
import sys
from typing import IO, Any, Optional

from rocmdoctor import __version__
from rocmdoctor.judge.facts import gpu_sources_captured, gpu_summary
from rocmdoctor.model import Finding, Host, Severity
from rocmdoctor.words import plural

SCHEMA = "rocmdoctor-report/1"

BOX = {"ok": "[✓]", "info": "[•]", "skip": "[-]", "warn": "[!]", "fail": "[✗]", "error": "[☠]"}
BOX_ASCII = {"ok": "[+]", "info": "[i]", "skip": "[-]", "warn": "[!]", "fail": "[x]", "error": "[E]"}
STYLE = {"ok": "green", "info": "cyan", "skip": "dim", "warn": "yellow", "fail": "red", "error": "magenta"}
PROBLEMS = (Severity.WARN, Severity.FAIL, Severity.ERROR)
_ASCII_TEXT = str.maketrans({"—": "-", "–": "-", "×": "x", "…": "...", "’": "'"})


def worst(findings: list[Finding]) -> Optional[Severity]:
    return max((f.severity for f in findings), key=lambda s: s.rank, default=None)


def area_status(items: list[Finding]) -> Severity:
    """An area's box: its worst problem; else ✓ if anything passed; else info; else not judged."""
    problem = worst([f for f in items if f.severity in PROBLEMS])
    if problem is not None:
        return problem
    for s in (Severity.OK, Severity.INFO):
        if any(f.severity == s for f in items):
            return s
    return Severity.SKIP


def exit_code(findings: list[Finding], strict: bool = False) -> int:
    """0 when nothing failed; 1 when a check failed or crashed (or warned, with ``strict``)."""
    bad = {Severity.FAIL, Severity.ERROR} | ({Severity.WARN} if strict else set())
    return 1 if any(f.severity in bad for f in findings) else 0


def summary(findings: list[Finding]) -> dict[str, int]:
    counts = {s.value: 0 for s in Severity}
    for f in findings:
        counts[f.severity.value] += 1
    return counts


def host_summary(host: Host) -> dict[str, Any]:
    """The stable, compact host part of the JSON report."""
    t = host.torch
    return {
        "hostname": host.hostname,
        "origin": host.origin,
        "os": {"id": host.os.id, "version": host.os.version or host.os.version_id, "pretty_name": host.os.pretty_name},
        "kernel": host.kernel.release,
        "wsl": host.kernel.is_wsl,
        "gpus": [
            {"index": g.index, "name": g.name, "gfx": g.gfx, "gfx_by_source": dict(g.gfx_by_source),
             "pci_device_id": g.pci_device_id, "is_apu": g.is_apu}
            for g in host.gpus
        ],
        "amdgpu_loaded": host.amdgpu_loaded.value if host.amdgpu_loaded else None,
        "rocm": {"version": host.rocm_version.value if host.rocm_version else None,
                 "installs": [{"path": r.path, "version": r.version} for r in host.rocm_installs]},
        "python": host.python.version,
        "torch": None if t is None else {"version": t.version, "build": t.build.value, "hip": t.hip, "cuda": t.cuda},
        "captured": sorted(host.captured),
    }


def to_json(host: Optional[Host], findings: list[Finding], **extra: Any) -> str:
    doc: dict[str, Any] = {
        "schema": SCHEMA,
        "tool": f"rocmdoctor {__version__}",
        "host": host_summary(host) if host is not None else None,
        "findings": [f.to_dict() for f in findings],
        "problems": _problems(findings),
        "summary": summary(findings),
    }
    doc.update(extra)
    from rocmdoctor.sanitize import json_inert

    return json.dumps(json_inert(doc), indent=2, ensure_ascii=False)


def _problems(findings: list[Finding]) -> list[dict[str, Any]]:
    from rocmdoctor.judge.causes import problems

    return problems(findings)


def _group(findings: list[Finding]) -> list[tuple[str, list[Finding]]]:
    from rocmdoctor.judge.registry import AREA_ORDER, AREA_TITLES

    groups: dict[str, list[Finding]] = {}
    for f in findings:
        groups.setdefault(f.area, []).append(f)
    order = sorted(groups, key=lambda a: (AREA_ORDER.index(a) if a in AREA_ORDER else len(AREA_ORDER), a))
    return [(AREA_TITLES.get(a, a), groups[a]) for a in order]


def _use_ascii(stream: IO[str]) -> bool:
    enc = (getattr(stream, "encoding", None) or "").lower().replace("-", "")
    return enc not in ("utf8", "utf16", "utf32")


def _no_gpu_words(host: Host) -> str:
    """No GPU in the model: absent only when a GPU source was captured and lists none; else not captured."""
    return "no AMD GPU found" if gpu_sources_captured(host) else "GPUs not captured"


def render_terminal(host: Optional[Host], findings: list[Finding], verbose: bool = False,
                    file: Optional[IO[str]] = None, ascii_only: Optional[bool] = None,
                    header: Optional[str] = None, quiet: bool = False) -> None:
    """flutter-doctor-like: one line per area, problems and their fixes below, details with ``-v``.

    ``quiet`` (``-q``): only the areas with problems and the summary line; no header.
    """
    from rich.console import Console

    from rocmdoctor.sanitize import rich_text as escape  # host text: controls stripped, markup escaped

    stream = file or sys.stdout
    plain = ascii_only if ascii_only is not None else _use_ascii(stream)
    boxes = BOX_ASCII if plain else BOX
    con = Console(file=stream, highlight=False, soft_wrap=True)

    def emit(text: str = "") -> None:
        """One line; on ASCII-only terminals the typographic characters become ASCII (the rest degrades to '?')."""
        con.print(text.translate(_ASCII_TEXT) if plain else text)

    if header is None and host is not None:
        gpus = gpu_summary(host) or _no_gpu_words(host)
        where = host.hostname or host.origin or "this host"
        header = f"rocmdoctor {__version__} — {where}: {gpus}"
    if header and not quiet:
        emit(escape(header) if verbose else escape(header) + "  [dim](details: -v)[/dim]")
    from rocmdoctor.judge.causes import assign, chain

    roots = assign(findings)
    first = roots[0] if len(roots) > 1 else None  # with one problem there is nothing to order
    for title, items in _group(findings):
        sev = area_status(items)
        if quiet and sev not in PROBLEMS:
            continue
        shown = [f for f in items if verbose or f.severity in PROBLEMS or f.severity == Severity.INFO]
        head = f"[{STYLE[sev.value]}]{escape(boxes[sev.value])}[/] [bold]{escape(title)}[/bold]"
        if sev not in PROBLEMS:
            lead = next(f for f in items if f.severity == sev)
            more = len([f for f in items if f.severity == sev]) - 1
            head += f" [dim]— {escape(lead.title)}{f' (+{more} more)' if more else ''}[/dim]"
            shown = [f for f in shown if f is not lead]
        elif not verbose and all(f.cause for f in items if f.severity in PROBLEMS):
            causes = sorted({f.cause or "" for f in items if f.severity in PROBLEMS})
            head += f" [dim]— follows from {escape(', '.join(causes))} (-v shows it)[/dim]"
        emit(head)
        for f in shown:
            if f.cause is not None and not verbose:
                continue  # shown under its root cause
            mark = boxes[f.severity.value][1]
            follows = f"  [dim](follows from {escape(f.cause)})[/dim]" if f.cause else ""
            emit(f"    [{STYLE[f.severity.value]}]{escape(mark)}[/] {escape(f.title)}  [dim]{escape(f.id)}[/dim]"
                 + follows)
            consequences = chain(f, findings) if f.cause is None and f.severity in PROBLEMS else []
            if consequences:
                if verbose:
                    for c in consequences:
                        emit(f"      [dim]↳ {escape(c.title)}  {escape(c.id)}[/dim]")
                else:
                    emit(f"      [dim]↳ {plural(len(consequences), 'more finding', 'more findings')} follow"
                         f"{'s' if len(consequences) == 1 else ''} from this (-v shows them)[/dim]")
            if f.severity in PROBLEMS or verbose:
                if f.detail:
                    emit(f"      [dim]{escape(f.detail)}[/dim]")
                if verbose:
                    for ev in f.evidence[:6]:
                        emit(f"      [dim]evidence: {escape(ev)}[/dim]")
            if f.fix and f.severity in PROBLEMS:
                label = "Fix (try this first)" if f is first else "Fix"
                if f.fix.explanation:
                    emit(f"      [bold]{label}:[/bold] {escape(f.fix.explanation)}")
                elif f is first:
                    emit(f"      [bold]{label}:[/bold]")
                for cmd in f.fix.commands:
                    emit(f"        [cyan]$ {escape(cmd)}[/cyan]")
                if f.fix.url:
                    emit(f"      [dim]{escape(f.fix.url)}[/dim]")
    emit()
    emit(summary_line(findings))


def summary_line(findings: list[Finding]) -> str:
    c = summary(findings)
    problems = [f for f in findings if f.severity in PROBLEMS]
    if not problems and not c["ok"]:
        # only notes (information, such as "the distribution's own ROCm packages"): something was read, nothing passed
        said = (f"No problem found, but little could be judged: {plural(c['info'], 'note')}, {c['skip']} checks not "
                "covered" if c["info"] else f"Nothing could be judged: the input covers none of the {c['skip']} checks")
        return f"• {said}. For a full picture run `rocmdoctor capture -o host.tar.gz` on the machine and judge that " \
               "bundle."
    if not problems:
        return f"• No issues found! ({plural(c['ok'], 'check')} passed, {c['skip']} not judged)"
    from rocmdoctor.judge.causes import assign

    roots = assign(findings)
    causes = len({f.id for f in roots})
    parts = [f"{c[k]} {n}" for k, n in (("fail", "failed"), ("error", "crashed")) if c[k]]
    if c["warn"]:
        parts.append(plural(c["warn"], "warning"))
    return (f"! rocmdoctor found {plural(causes, 'problem')} "
            f"({plural(len(problems), 'finding')}: {', '.join(parts)}).")


def _md_id(fid: str) -> str:
    from rocmdoctor.sanitize import one_line

    return "`" + one_line(fid).replace("`", "'") + "`"


def to_markdown(host: Optional[Host], findings: list[Finding]) -> str:
    """For pasting into a bug report: host table, then each problem with its fix.

    Host text is inert here (:mod:`rocmdoctor.sanitize`): no control characters, no links or HTML, no
    table-cell break, and code fences longer than any backtick run in what they hold.
    """
    from rocmdoctor.sanitize import md_fence, md_text, one_line, strip_controls

    lines = [f"## rocmdoctor {__version__} report", ""]
    if host is not None:
        h = host_summary(host)
        gpus = ", ".join("{} ({})".format(g["name"] or "GPU", g["gfx"]) for g in h["gpus"]) or "none seen"
        lines += ["| | |", "|---|---|",
                  f"| OS | {md_text(h['os']['pretty_name'] or h['os']['id'] or 'not captured')} |",
                  f"| Kernel | {md_text(h['kernel'] or 'not captured')} |",
                  f"| GPUs | {md_text(gpus)} |",
                  f"| ROCm | {md_text(h['rocm']['version'] or 'not found')} |",
                  f"| Python | {md_text(h['python'] or 'not captured')} |",
                  f"| torch | {md_text((h['torch'] or {}).get('version') or 'not found')} |", ""]
    lines += ["| status | check | finding |", "|---|---|---|"]
    for f in findings:
        if f.severity in (Severity.OK, Severity.SKIP):
            continue
        lines.append(f"| {f.severity.value} | {_md_id(f.id)} | {md_text(f.title)} |")
    for f in findings:
        if f.severity not in PROBLEMS:
            continue
        lines += ["", f"### {_md_id(f.id)}: {md_text(f.title)}", "", md_text(f.detail)]
        if f.evidence:
            evidence = [strip_controls(str(e), multiline=True) for e in f.evidence]
            fence = md_fence(evidence)
            lines += ["", "<details><summary>evidence</summary>", "", fence, *evidence, fence, "</details>"]
        if f.fix:
            lines += ["", f"**Fix:** {md_text(f.fix.explanation)}".rstrip()]
            if f.fix.commands:
                commands = [one_line(c) for c in f.fix.commands]
                fence = md_fence(commands)
                lines += [fence + "sh", *commands, fence]
            if f.fix.url:
                lines.append(md_text(f.fix.url))
    lines += ["", summary_line(findings)]
    return "\n".join(lines) + "\n"
