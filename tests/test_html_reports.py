"""HTML reports: fleet (synthetic fleet of real fixture bundles), single host (check), smoke (measured vs peak).

The first half reads the generated HTML as text/DOM (escaping, folding identical nodes, deviations marked,
filters wired, jinja2 off the `check` path). The second half loads every kind of report in a real headless
Chromium with the network cut (tests/browser.py): no console error, no request, the key elements in the DOM
after load, the CSS-only filters really hiding what they should, and a screenshot (light and dark) kept
under tests/artifacts/ (git-ignored) for a person to look at.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import browser
import pytest
from fleet_synth import synthetic_report
from hypothesis import given, settings
from hypothesis import strategies as st

from rocmdoctor.fleet import report as report_mod
from rocmdoctor.fleet.aggregate import HostAudit, aggregate
from rocmdoctor.model import Finding, Fix, Severity

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = Path(os.environ.get("ROCMDOCTOR_TEST_ARTIFACTS", ROOT / "tests" / "artifacts"))
HOSTILE = "evil<script>alert(1)</script>\x1b[2J\u202egnp.exe\x07"


class _Dom(HTMLParser):
    """Elements by id, and (tag, classes, attrs) of every element, from the serialized DOM."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.ids: dict[str, str] = {}
        self.elements: list[tuple[str, set[str], dict[str, str]]] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list) -> None:
        a = {k: v or "" for k, v in attrs}
        self.elements.append((tag, set(a.get("class", "").split()), a))
        if "id" in a:
            self.ids[a["id"]] = tag

    def count(self, tag: str, cls: str) -> int:
        return sum(1 for t, c, _ in self.elements if t == tag and cls in c)


def rd(*args: str, env: dict | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rocmdoctor", *args], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **(env or {})}, cwd=ROOT)


@pytest.fixture(scope="module")
def fleet1000():
    return synthetic_report(1000)


def _hostile_report():
    bad = Finding("perm.kfd-access", Severity.FAIL, f"title {HOSTILE}", detail=f"detail {HOSTILE}",
                  evidence=[f"evidence {HOSTILE}"],
                  fix=Fix(explanation=HOSTILE, commands=[f"echo {HOSTILE}"], url="javascript:alert(1)"))
    return aggregate([HostAudit(name=f"n1{HOSTILE}", status="ok", findings=[bad]),
                      HostAudit(name="n2", status="unreachable", detail=f"ssh: {HOSTILE}")])


# ------------------------------------------------------------------------------------------- as text
def test_host_strings_are_escaped_and_control_characters_stripped():
    for page in (report_mod.html_text(_hostile_report()),):
        assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
        assert "\x1b" not in page and "\u202e" not in page and "\x07" not in page
        assert 'href="javascript:' not in page  # a hostile URL stays text
        assert "http://" not in page.replace("http://www.w3.org/2000/svg", "")  # nothing to fetch
    from rocmdoctor.report.html import to_html

    page = to_html(None, _hostile_report().hosts[0].findings)
    assert "<script>" not in page and "\x1b" not in page and "\u202e" not in page


def test_fleet_page_folds_identical_nodes_and_keeps_every_host(fleet1000):
    page = report_mod.html_text(fleet1000)
    dom = _Dom(page)
    classes = dom.count("details", "node")
    # 1000 nodes of 5 fixture variants + 1 unreachable (its own name in its detail is masked, so it folds too)
    assert 2 <= classes <= 10
    rows = [a for t, _, a in dom.elements if t == "a" and a.get("href", "").startswith("#n")]
    assert len(rows) >= 1000  # every host has a row linking to its node class
    for a in fleet1000.hosts:
        assert f">{a.name}</a>" in page
    assert "<script" not in page and "default-src 'none'" in page  # no script; the browser may fetch nothing
    # the drain list comes first, then the overview, the drift picture, the drill-down, all hosts
    order = [page.index(f'id="{i}"') for i in ("drain", "overview", "checks", "drift", "nodes-h", "hosts")]
    assert order == sorted(order)
    drain_table = page[page.index('<table id="drain"'):]
    drain_table = drain_table[:drain_table.index("</table>")]
    assert drain_table.count("<tr class=") == len(fleet1000.drain) > 0


def test_drift_table_marks_every_deviation_and_the_majority(fleet1000):
    page = report_mod.html_text(fleet1000)
    ref = next(g for g in fleet1000.groups if g.reference)
    deviating = 0
    for g in fleet1000.groups:
        if g.reference:
            continue
        for k, v in g.fingerprint.items():
            if v != ref.fingerprint.get(k) and ref.fingerprint.get(k) is not None:
                deviating += 1
    assert deviating > 0
    assert page.count('<td class="dev"') == deviating
    assert page.count("(differs from the majority:") == deviating  # said in words, not only in colour
    assert "★ majority" in page


def test_filters_are_wired_to_every_check_and_configuration(fleet1000):
    page = report_mod.html_text(fleet1000)
    ids = list(dict.fromkeys(f.id for f in fleet1000.findings))
    for i, cid in enumerate(ids):
        assert f'<option value="k{i}">{cid}</option>' in page
        assert f'option[value="k{i}"]:checked) ~ section .f:not(.k{i})' in page
    for i in range(len(fleet1000.groups)):
        assert f'option[value="g{i}"]:checked) ~ section :is(.f,.fg):not(.g{i})' in page


def test_check_html_output_and_exit_code(tmp_path):
    out = tmp_path / "r.html"
    r = rd("check", "--from", "fixtures/rx7900xtx-dkms-build-fails-kernel-6.5", "--format", "html", "-o", str(out))
    j = rd("check", "--from", "fixtures/rx7900xtx-dkms-build-fails-kernel-6.5", "--json")
    assert r.returncode == j.returncode == 1 and r.stdout == ""
    assert f"report written to {out}" in r.stderr
    page = out.read_text()
    fails = [f for f in json.loads(j.stdout)["findings"] if f["severity"] == "fail"]
    assert fails
    for f in fails:  # every problem with its fix commands
        assert f"<code class=\"muted\">{f['id']}</code>" in page
        for c in (f["fix"] or {}).get("commands", []):
            assert f"$ {c}".replace("'", "&#39;").replace('"', "&#34;").replace(">", "&gt;") in page
    bad = rd("check", "--from", "fixtures/rx7900xtx-dkms-build-fails-kernel-6.5", "--format", "html",
             "-o", str(tmp_path / "missing" / "dir" / "r.html"))
    assert bad.returncode == 2 and "--output" in bad.stderr


def test_check_without_html_never_imports_jinja2():
    code = ("import sys, runpy; sys.argv = ['rocmdoctor', 'check', '--from', "
            "'fixtures/derived-healthy-mi210-x4-rocm6.2.2', '--json']\n"
            "try:\n    runpy.run_module('rocmdoctor', run_name='__main__')\nexcept SystemExit:\n    pass\n"
            "print('JINJA', 'jinja2' in sys.modules, file=sys.stderr)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert "JINJA False" in r.stderr


def _smoke_report():
    """Two MI300X devices judged against the real matrix peaks (as tests/test_smoke_judge.py builds them)."""
    from test_smoke_judge import MATRIX, _dev, _device_run, _enum, _report

    from rocmdoctor.smoke import judge

    runs = []
    for i, (bw, tf) in enumerate([(4200.0, 700.0), (1000.0, 150.0)]):
        runs.append(_device_run(i, [
            {"type": "result", "check": "bandwidth", "status": "ok", "detail": "copy", "value": bw, "unit": "GB/s"},
            {"type": "result", "check": "tflops:bf16", "status": "ok", "detail": "", "value": tf, "unit": "TFLOPS"}]))
    rep = _report(runs, _enum([_dev(0), _dev(1)]))
    rep.findings = judge(rep, None, MATRIX)
    return rep, MATRIX


def test_smoke_bars_are_measured_against_peak_and_threshold():
    from rocmdoctor.smoke import measured_vs_peak

    rep, m = _smoke_report()
    peak = m.product("MI300X").peak_hbm_bw_gbs
    gpus = measured_vs_peak(rep)
    bw0 = next(r for r in gpus[0]["rows"] if r["check"] == "bandwidth")
    bw1 = next(r for r in gpus[1]["rows"] if r["check"] == "bandwidth")
    assert bw0["x_peak"] == pytest.approx(100.0) and bw0["w_value"] == pytest.approx(100 * 4200 / peak)
    assert bw1["severity"] == "warn" and bw1["x_threshold"] == pytest.approx(50.0)  # warn below 50 %


def test_root_causes_are_drawn_when_findings_carry_one():
    from rocmdoctor.report.html import to_html

    head = Finding("driver.dkms-failed", Severity.FAIL, "amdgpu-dkms failed to build")
    follow = Finding("log.dpkg-error", Severity.WARN, "dpkg returned an error")
    follow.cause = "driver.dkms-failed"  # type: ignore[attr-defined]  # issue 12's field, where present
    page = to_html(None, [head, follow])
    assert 'id="causes"' in page and "1 finding that follow" in page
    assert 'id="causes"' not in to_html(None, [head])  # absent: no section


# ------------------------------------------------------------------------------------------- in Chromium
needs_chromium = pytest.mark.skipif(browser.CHROMIUM is None, reason="needs chromium (apt-get install chromium)")

VISIBLE = "[...document.querySelectorAll('{sel}')].filter(e => getComputedStyle(e).display != 'none').length"


def _load(path: Path, name: str, **kw) -> browser.PageResult:
    res = browser.load(path.resolve().as_uri(), ARTIFACTS, screenshot=name, **kw)
    print(f"screenshots: {', '.join(str(p) for p in res.screenshots.values())}")
    assert res.errors == [], res.errors
    assert res.requests == [], res.requests
    assert res.timing["load"] > 0
    if "background-dark" in res.evaluated:  # prefers-color-scheme is honoured
        assert res.evaluated["background-dark"] != res.evaluated["background-light"]
    return res


@needs_chromium
def test_browser_detects_requests_and_console_errors(tmp_path):
    """The checks below can fail: a page that fetches or logs an error is caught."""
    bad = tmp_path / "bad.html"
    bad.write_text('<html><body><img src="http://example.invalid/x.png">'
                   '<script>console.error("boom"); undefined_fn()</script></body></html>')
    res = browser.load(bad.as_uri(), tmp_path)
    assert "http://example.invalid/x.png" in res.requests
    texts = " ".join(m["text"] for m in res.errors)
    assert "boom" in texts and "undefined_fn" in texts


@needs_chromium
def test_fleet_report_in_chromium(fleet1000, tmp_path):
    path = tmp_path / "fleet.html"
    report_mod.write_html(fleet1000, path)
    ids = list(dict.fromkeys(f.id for f in fleet1000.findings))
    k_gpu = ids.index("fleet.gpu-missing")
    exprs = {
        "nodes": VISIBLE.format(sel="details.node"),
        "drain_rows": VISIBLE.format(sel="#drain tbody tr"),
        "fail_nodes": f"document.querySelector('#fs').value = 'fail'; {VISIBLE.format(sel='details.node')}",
        "gpu_drain": (f"document.querySelector('#fs').value = ''; document.querySelector('#fk').value = 'k{k_gpu}';"
                      f" {VISIBLE.format(sel='#drain tbody tr')}"),
        "reset": f"document.querySelector('#filters').reset(); {VISIBLE.format(sel='#drain tbody tr')}",
    }
    res = _load(path, "fleet-1000", expressions=exprs)
    dom = _Dom(res.dom)
    for i in ("summary", "drain", "overview", "checks", "drift", "hosts", "filters", "fs", "fk", "fg"):
        assert i in dom.ids, i
    assert res.evaluated["drain_rows"] == len(fleet1000.drain)
    worst_fail = {a.name for a in fleet1000.hosts if a.worst.rank >= Severity.FAIL.rank}
    assert 0 < res.evaluated["fail_nodes"] < res.evaluated["nodes"]
    gpu_missing = next(f for f in fleet1000.findings if f.id == "fleet.gpu-missing").hosts
    assert res.evaluated["gpu_drain"] == len(set(gpu_missing) & worst_fail) == len(gpu_missing)
    assert res.evaluated["reset"] == len(fleet1000.drain)


@needs_chromium
def test_hostile_fleet_report_in_chromium(tmp_path):
    path = tmp_path / "hostile.html"
    report_mod.write_html(_hostile_report(), path)
    res = _load(path, "fleet-hostile", dark=False)
    assert "alert(1)" in res.dom and "<script>" not in res.dom.split("</style>", 1)[1]


@needs_chromium
@pytest.mark.parametrize("fixture", ["rx7900xtx-dkms-build-fails-kernel-6.5", "derived-healthy-mi210-x4-rocm6.2.2",
                                     "derived-igpu-780m-plus-rx7900xtx"])
def test_check_report_in_chromium(fixture, tmp_path):
    out = tmp_path / "check.html"
    r = rd("check", "--from", f"fixtures/{fixture}", "--format", "html", "-o", str(out))
    assert r.returncode in (0, 1), r.stderr
    res = _load(out, f"check-{fixture}")
    dom = _Dom(res.dom)
    assert {"title", "summary", "facts"} <= set(dom.ids)
    doc = json.loads(rd("check", "--from", f"fixtures/{fixture}", "--json").stdout)
    for f in doc["findings"]:
        if f["severity"] in ("warn", "fail", "error"):
            assert f["title"].replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;") in res.dom


@needs_chromium
def test_smoke_report_in_chromium(tmp_path):
    from rocmdoctor.report.html import to_html

    rep, _ = _smoke_report()
    path = tmp_path / "smoke.html"
    path.write_text(to_html(None, rep.findings, smoke=rep))
    res = _load(path, "smoke-mi300x", expressions={"bars": "document.querySelectorAll('#smoke svg.chart').length"})
    assert res.evaluated["bars"] == 4  # 2 GPUs x (bandwidth, bf16 TFLOPS)
    assert "4200 GB/s of" in res.dom and "warn below 50%" in res.dom


@needs_chromium
@pytest.mark.slow
def test_real_cpu_smoke_html_in_chromium(tmp_path):
    """`smoke --format html -o` end to end with the real CPU torch (developer mode: no peak to draw)."""
    pytest.importorskip("torch")
    out = tmp_path / "smoke.html"
    r = rd("smoke", "--device", "cpu", "--quick", "--format", "html", "-o", str(out))
    assert r.returncode == 0, r.stderr
    res = _load(out, "smoke-cpu", dark=False)
    assert 'id="smoke"' in res.dom and "smoke-table" in res.dom


def test_nodes_that_all_differ_link_to_one_catalogue_of_findings(monkeypatch):
    """Past INLINE_CLASSES drill-downs, each distinct finding is written once and every drill-down links to it."""
    from rocmdoctor.fleet import htmlview

    report = synthetic_report(120)
    for i, h in enumerate(report.hosts):
        h.findings.append(Finding("fleet.unique", Severity.INFO, "distinct per node", detail=f"value {i}"))
    monkeypatch.setattr(htmlview, "INLINE_CLASSES", 10)
    page = report_mod.html_text(report)
    dom = _Dom(page)
    assert dom.count("details", "node") == 120 and "catalogue-h" in dom.ids
    links = {a["href"][1:] for t, _, a in dom.elements if t == "a" and a.get("href", "").startswith(("#fd", "#ps"))}
    entries = {a["id"] for t, c, a in dom.elements if "entry" in c}
    assert links == entries  # every link lands, every entry is linked
    assert page.count("value 7<") == 1  # a node's own finding once, in full
    ids = {f.id for h in report.hosts for f in h.findings if f.severity.rank >= Severity.INFO.rank}
    assert all(f"({i})</a>" in page for i in ids)


@needs_chromium
@pytest.mark.slow
def test_check_live_html_has_the_smoke_section(tmp_path):
    """`check --live --format html`: this machine's capture and its level-1 smoke run, in one page."""
    pytest.importorskip("torch")
    out = tmp_path / "live.html"
    r = rd("check", "--live", "--format", "html", "-o", str(out))
    assert r.returncode in (0, 1), r.stderr
    doc = json.loads(rd("check", "--live", "--json").stdout)
    smoke_ids = {f["id"] for f in doc["findings"] if f["id"].startswith("smoke.")}
    res = _load(out, "check-live", dark=False)
    assert 'id="smoke"' in res.dom and smoke_ids and all(i in res.dom for i in smoke_ids)


TEMPLATE_TAGS = {"!DOCTYPE", "html", "head", "meta", "title", "style", "body", "main", "header", "h1", "h2", "h3",
                 "h4", "p", "b", "span", "time", "nav", "a", "form", "label", "select", "option", "button", "small",
                 "section", "code", "table", "caption", "thead", "tbody", "tr", "th", "td", "ul", "li", "svg", "rect",
                 "details", "summary", "article", "pre", "br", "div", "footer", "dl", "dt", "dd", "line"}


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=60), st.text(max_size=200))
def test_any_host_text_stays_text(name, detail):
    """Whatever a host sends, the page has only the templates' tags and no control or bidi characters."""
    from rocmdoctor.report.html import to_html
    from rocmdoctor.report.htmlpage import _CONTROL

    f = Finding("gpu.x", Severity.FAIL, detail, detail=detail, evidence=[detail], fix=Fix(detail, [detail], detail))
    report = aggregate([HostAudit(name=name or "n", status="ok", findings=[f]),
                        HostAudit(name="n2", status="timeout", detail=detail)])
    for page in (report_mod.html_text(report), to_html(None, [f])):
        tags = set(re.findall(r"</?([!A-Za-z][A-Za-z0-9]*)", page))
        assert tags <= TEMPLATE_TAGS, tags - TEMPLATE_TAGS
        assert not _CONTROL.search(page)
