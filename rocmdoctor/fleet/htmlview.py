"""The fleet HTML report: which nodes, why, what to do — at a glance, and still readable at 10,000 nodes.

The page, top to bottom: the drain list; a severity overview (hosts by worst severity, and which check hits
how many nodes); the drift picture (configurations × facts, the reference row marked, every deviating cell
marked); the drill-down; every host. Nodes whose configuration, transport status and findings are the same
fold into one *node class* (``node[0001-9000]``: one ``<details>`` with the findings, evidence and fixes they
share), so a healthy 10,000-node fleet is a handful of drill-downs, not 10,000. Filters by severity, check and
configuration are CSS-only (see :mod:`rocmdoctor.report.htmlpage`): each filterable element carries classes
``s-<severity>`` (every threshold it reaches), ``k<n>`` (check index) and ``g<n>`` (configuration index).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from rocmdoctor.fleet.aggregate import FIELD_TITLES, FINGERPRINT_FIELDS, FleetReport, HostAudit
from rocmdoctor.fleet.hosts import compress
from rocmdoctor.model import Finding, Severity

HOST_MARK = "\x00HOST\x00"  # a host's own name inside its finding text, so that identical nodes fold together
FILTER_SEVERITIES = ("error", "fail", "warn", "info")  # "this severity or worse"
PROBLEM_RANK = Severity.INFO.rank  # info and worse are shown in full; ok/skip as one line each
# Up to this many node classes, each drill-down holds its findings in full. Beyond (nodes that all differ), each
# distinct finding is written once in a catalogue and the drill-downs link to it, so the page grows with the
# number of distinct findings, not nodes x findings (measured: bench/bench_report.py --unique).
INLINE_CLASSES = 300


@dataclass
class NodeClass:
    anchor: str
    hosts: list[str]
    audit: HostAudit  # the first member: its findings stand for all (host name masked)
    config: Optional[int]  # index into the configurations, None when nothing was captured
    hostset: str = ""
    filter_classes: str = ""
    worst: str = "ok"
    problems: list[dict[str, Any]] = field(default_factory=list)
    passed: list[dict[str, Any]] = field(default_factory=list)
    refs: list[dict[str, Any]] = field(default_factory=list)  # catalogue mode: links to the shared findings
    passed_set: Optional[dict[str, Any]] = None


def _mask(text: str, name: str) -> str:
    return text.replace(name, HOST_MARK) if name and text else text


def _finding_key(f: Finding, name: str) -> tuple[Any, ...]:
    fix = (f.fix.explanation, tuple(f.fix.commands), f.fix.url) if f.fix else None
    return (f.id, f.severity.value, _mask(f.title, name), _mask(f.detail, name),
            tuple(_mask(e, name) for e in f.evidence), fix)


def _class_key(a: HostAudit) -> tuple[Any, ...]:
    return (a.group, a.status, tuple(_finding_key(f, a.name) for f in a.findings))


def _view(f: Finding, name: str, shared: bool) -> dict[str, Any]:
    """The finding for the template; in a class of several hosts the member's own name reads ``<host>``."""
    from rocmdoctor.report.htmlpage import finding_view

    d = finding_view(f)
    if shared and name:
        d["title"], d["detail"] = d["title"].replace(name, "<host>"), d["detail"].replace(name, "<host>")
        d["evidence"] = [e.replace(name, "<host>") for e in d["evidence"]]
    return d


def shown_worst(a: HostAudit) -> str:
    """A host's worst severity as a reader means it: a host with nothing worse than ``skip`` is healthy."""
    return a.worst.value if a.worst.rank >= Severity.INFO.rank else "ok"


def _thresholds(worst_rank: int) -> list[str]:
    return [s for s in FILTER_SEVERITIES if worst_rank >= Severity(s).rank]


def _node_classes(report: FleetReport) -> dict[tuple[Any, ...], NodeClass]:
    """Fold the hosts into node classes (same configuration, status and findings), in report order."""
    config_index = {g.id: i for i, g in enumerate(report.groups)}
    classes: dict[tuple[Any, ...], NodeClass] = {}
    for a in report.hosts:
        key = _class_key(a)
        nc = classes.get(key)
        if nc is None:
            nc = classes[key] = NodeClass(anchor=f"n{len(classes) + 1}", hosts=[], audit=a,
                                          config=config_index.get(a.group or ""))
        nc.hosts.append(a.name)
    return classes


def _fill_classes(classes: list[NodeClass], check_index: dict[str, int]) -> dict[str, Any]:
    """Each class's findings (inline, or as links into the catalogue beyond INLINE_CLASSES) and filter marks.

    Returns the catalogue and the passed-check sets (empty when inline)."""
    inline = len(classes) <= INLINE_CLASSES
    catalogue: dict[tuple[Any, ...], dict[str, Any]] = {}
    passed_sets: dict[tuple[Any, ...], dict[str, Any]] = {}
    for nc in classes:
        nc.hostset = compress(nc.hosts)
        nc.worst = shown_worst(nc.audit)
        a, shared = nc.audit, len(nc.hosts) > 1
        shown = [f for f in a.findings if f.severity.rank >= PROBLEM_RANK]
        shown.sort(key=lambda f: -f.severity.rank)
        passed = [f for f in a.findings if f.severity.rank < PROBLEM_RANK]
        if inline:
            nc.problems = [_view(f, a.name, shared) for f in shown]
            nc.passed = [_view(f, a.name, shared) for f in passed]
        else:
            for f in shown:
                e = catalogue.setdefault(_finding_key(f, a.name), {"anchor": f"fd{len(catalogue) + 1}",
                                                                   "first": (f, a.name), "nodes": 0})
                e["nodes"] += len(nc.hosts)
                nc.refs.append(e)
            pkey = tuple(_finding_key(f, a.name) for f in passed)
            nc.passed_set = passed_sets.setdefault(
                pkey, {"anchor": f"ps{len(passed_sets) + 1}", "first": (passed, a.name), "nodes": 0})
            nc.passed_set["nodes"] += len(nc.hosts)
        marks = ["f", *(f"s-{s}" for s in _thresholds(a.worst.rank))]
        marks += [f"k{check_index[i]}" for i in dict.fromkeys(f.id for f in a.findings) if i in check_index]
        if nc.config is not None:
            marks.append(f"g{nc.config}")
        nc.filter_classes = " ".join(marks)
    for e in catalogue.values():
        f, name = e.pop("first")
        e["view"] = _view(f, name, e["nodes"] > 1)
    for e in passed_sets.values():
        items, name = e.pop("first")
        e["entries"] = [_view(f, name, e["nodes"] > 1) for f in items]
    return {"inline": inline,
            "catalogue": sorted(catalogue.values(), key=lambda e: -Severity(e["view"]["severity"]).rank),
            "passed_sets": list(passed_sets.values())}


def _configs(report: FleetReport, n_hosts: int) -> list[dict[str, Any]]:
    """The drift picture: one row per configuration, each fact marked where it deviates from the reference."""
    ref = report.reference or {}
    configs = []
    for i, g in enumerate(report.groups):
        facts = []
        for k in FINGERPRINT_FIELDS:
            mine, theirs = g.fingerprint.get(k), ref.get(k)
            facts.append({"key": k, "value": mine, "ref": theirs or "not captured",
                          "dev": bool(report.reference) and not g.reference and mine != theirs and theirs is not None})
        configs.append({"index": i, "label": f"C{i + 1}", "id": g.id, "n": len(g.hosts),
                        "share": len(g.hosts) / n_hosts, "hostset": compress(g.hosts), "reference": g.reference,
                        "facts": facts,
                        "deviations": sum(1 for f in facts if f["dev"])})
    return configs


def _config_marks(names: list[str], host_class: dict[str, NodeClass]) -> list[str]:
    found = {host_class[h].config for h in names if h in host_class}
    return [f"g{c}" for c in sorted(c for c in found if c is not None)]


def _checks(report: FleetReport, n_hosts: int, check_index: dict[str, int],
            host_class: dict[str, NodeClass]) -> list[dict[str, Any]]:
    checks = []
    for ff in report.findings:
        marks = ["f", *(f"s-{s}" for s in _thresholds(ff.severity.rank)), f"k{check_index[ff.id]}",
                 *_config_marks(ff.hosts, host_class)]
        checks.append({"id": ff.id, "sev": ff.severity.value, "title": ff.title, "n": len(ff.hosts),
                       "share": len(ff.hosts) / n_hosts, "hostset": ff.hostset, "filter_classes": " ".join(marks)})
    return checks


def _drain_groups(report: FleetReport, check_index: dict[str, int],
                  host_class: dict[str, NodeClass]) -> list[dict[str, Any]]:
    """The drain list grouped by the first failing check (the reason starts with its id), worst first."""
    by_reason: dict[str, list[tuple[str, Severity]]] = {}
    for h, r, sev in report.drain:
        by_reason.setdefault(r.split(":", 1)[0], []).append((h, sev))
    rows: list[tuple[Severity, str, list[str]]] = []
    for cid, members in by_reason.items():
        rows.append((max((sev for _, sev in members), key=lambda x: x.rank), cid, [h for h, _ in members]))
    rows.sort(key=lambda row: (-row[0].rank, -len(row[2]), row[1]))
    groups = []
    for worst, cid, names in rows:
        marks = ["f", *(f"s-{x}" for x in _thresholds(worst.rank)),
                 *([f"k{check_index[cid]}"] if cid in check_index else []), *_config_marks(names, host_class)]
        groups.append({"id": cid, "sev": worst.value, "n": len(names), "hostset": compress(names),
                       "anchor": host_class[names[0]].anchor, "filter_classes": " ".join(marks)})
    return groups


def context(report: FleetReport) -> dict[str, Any]:
    """Everything the template draws, computed once (the template only loops and escapes)."""
    n_hosts = max(1, len(report.hosts))
    config_index = {g.id: i for i, g in enumerate(report.groups)}
    check_ids = list(dict.fromkeys(f.id for f in report.findings))
    check_index = {cid: i for i, cid in enumerate(check_ids)}
    classes = _node_classes(report)
    host_class = {h: nc for nc in classes.values() for h in nc.hosts}
    folded = _fill_classes(list(classes.values()), check_index)
    ordered = sorted(classes.values(), key=lambda c: (-c.audit.worst.rank, -len(c.hosts), c.anchor))

    by_worst = {s: 0 for s in ("error", "fail", "warn", "info", "skip", "ok")}
    for a in report.hosts:
        by_worst[shown_worst(a)] += 1
    uncaptured = [a.name for a in report.hosts if a.fingerprint is None]
    drain = [{"host": h, "reason": r, "sev": s.value, "anchor": host_class[h].anchor,
              "filter_classes": host_class[h].filter_classes} for h, r, s in report.drain]
    hosts = [{"name": a.name, "status": str(a.status), "worst": shown_worst(a), "seconds": a.seconds,
              "config": f"C{config_index[a.group] + 1}" if a.group in config_index else "–",
              "anchor": host_class[a.name].anchor, "detail": a.detail} for a in report.hosts]
    return {
        "report": report, "summary": report.summary(), "created": report.created,
        "reference_kind": report.reference_kind,
        "fact_titles": [FIELD_TITLES[k] for k in FINGERPRINT_FIELDS],
        "overview": [{"sev": s, "n": n, "share": n / n_hosts} for s, n in by_worst.items()],
        "configs": _configs(report, n_hosts), "uncaptured": compress(uncaptured), "n_uncaptured": len(uncaptured),
        "checks": _checks(report, n_hosts, check_index, host_class), "check_ids": check_ids, "classes": ordered,
        "drain": drain, "drain_groups": _drain_groups(report, check_index, host_class),
        "hosts": hosts, **folded,
        "filter_severities": FILTER_SEVERITIES,
        "drain_hostset": compress([h for h, _, _ in report.drain]),
    }


def html_text(report: FleetReport) -> str:
    from rocmdoctor.report.htmlpage import render

    return render("fleet.html.j2", **context(report))
