"""A small Dockerfile linter: the hadolint rules that matter for reproducible ROCm images, as our own code.

Rules (ids and meaning as hadolint's, so a user can look them up and ``# hadolint ignore=`` works):

* DL3006 tag the base image explicitly (an untagged image is ``latest``)
* DL3007 do not use the ``latest`` tag
* DL3008 pin apt package versions (``apt-get install pkg=version``)
* DL3013 pin pip package versions (``pkg==version``, or install from a requirements/lock file)
* DL3015 ``apt-get install`` with ``--no-install-recommends``
* DL3042 ``pip install`` with ``--no-cache-dir`` (or ``ENV PIP_NO_CACHE_DIR``)
* DL4006 ``SHELL ["/bin/bash", "-o", "pipefail", "-c"]`` before a ``RUN`` that pipes

The real hadolint is a Haskell binary that is not always installable; the tests run it too when present.
The linter never raises on any input text: unknown syntax is skipped, not guessed.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass
from typing import Optional

RULES: dict[str, tuple[str, str]] = {
    "DL3006": ("warning", "Always tag the version of an image explicitly"),
    "DL3007": ("warning", "Using latest is prone to errors if the image will ever update; pin a version tag"),
    "DL3008": ("warning", "Pin versions in apt-get install: apt-get install <package>=<version>"),
    "DL3013": ("warning", "Pin versions in pip: pip install <package>==<version>, or -r <requirements file>"),
    "DL3015": ("info", "Avoid additional packages by specifying --no-install-recommends"),
    "DL3042": ("warning", "Avoid use of cache directory with pip: use pip install --no-cache-dir <package>"),
    "DL4006": ("warning", "Set the SHELL option -o pipefail before RUN with a pipe in it"),
}

_OPERATORS = {"&&", "||", "|", ";", "&", "|&", ";;", "(", ")", "\n"}
_PIP_RE = re.compile(r"^(?:.*/)?pip(?:3(?:\.\d+)?)?$")
_PY_RE = re.compile(r"^(?:.*/)?python(?:3(?:\.\d+)?)?$")
_PIP_VALUE_OPTS = {
    "-r", "--requirement", "-c", "--constraint", "-e", "--editable", "-i", "--index-url", "--extra-index-url",
    "-f", "--find-links", "-t", "--target", "--prefix", "--root", "--platform", "--python-version",
    "--implementation", "--abi", "--only-binary", "--no-binary", "--progress-bar", "--trusted-host",
    "--cache-dir", "--src", "--upgrade-strategy", "--global-option", "--config-settings", "-C", "--log",
    "--proxy", "--retries", "--timeout", "--exists-action", "--cert", "--client-cert", "--report", "--python",
    "--hash",
}
_APT_VALUE_OPTS = {"-o", "--option", "-t", "--target-release", "-c", "--config-file", "-a", "--host-architecture"}
_VERSION_MARKS = ("==", ">=", "<=", "~=", "!=", "<", ">", "@")


@dataclass(frozen=True)
class LintIssue:
    code: str
    line: int  # 1-based line of the instruction
    severity: str  # error | warning | info | style
    message: str

    def to_dict(self) -> dict[str, object]:
        return {"code": self.code, "line": self.line, "level": self.severity, "message": self.message}


@dataclass(frozen=True)
class Instruction:
    line: int
    keyword: str  # upper-case: FROM, RUN, ...
    args: str
    ignored: frozenset[str]


def parse(text: str) -> list[Instruction]:
    """Instructions with their first line number; continuations joined; ``# hadolint ignore=`` attached."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    out: list[Instruction] = []
    pending_ignore: set[str] = set()
    i = 0
    while i < len(lines):
        raw = lines[i]
        stripped = raw.strip()
        if not stripped:
            i += 1
            continue
        if stripped.startswith("#"):
            m = re.match(r"#\s*hadolint\s+ignore\s*=\s*([A-Z0-9, ]+)", stripped)
            if m:
                pending_ignore |= {c.strip() for c in m.group(1).split(",") if c.strip()}
            i += 1
            continue
        start = i
        parts = [stripped]
        while parts[-1].endswith("\\") and i + 1 < len(lines):
            parts[-1] = parts[-1][:-1]
            i += 1
            nxt = lines[i].strip()
            while nxt.startswith("#") and i + 1 < len(lines):  # comments inside a continuation are dropped
                i += 1
                nxt = lines[i].strip()
            parts.append(nxt)
        i += 1
        joined = " ".join(p.strip() for p in parts)
        word, _, rest = joined.partition(" ")
        out.append(Instruction(start + 1, word.upper(), rest.strip(), frozenset(pending_ignore)))
        pending_ignore = set()
    return out


def _tokens(command: str) -> list[str]:
    """Shell tokens with operators as their own tokens; falls back to whitespace on unbalanced quotes."""
    try:
        lex = shlex.shlex(command, posix=True, punctuation_chars=";&|()")
        lex.whitespace_split = True
        lex.commenters = ""
        return list(lex)
    except ValueError:
        return command.split()


def _commands(tokens: list[str]) -> list[list[str]]:
    cmds: list[list[str]] = [[]]
    for t in tokens:
        if t in _OPERATORS:
            cmds.append([])
        else:
            cmds[-1].append(t)
    out = []
    for c in cmds:
        while c and (re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", c[0]) or c[0] in ("sudo", "env", "exec", "then", "do")):
            c = c[1:]
        if c:
            out.append(c)
    return out


def _run_body(args: str) -> tuple[list[list[str]], bool]:
    """(simple commands, has a pipe) of a RUN's arguments (shell or exec form)."""
    while args.startswith("--"):  # RUN --mount=... --network=...
        _, _, args = args.partition(" ")
        args = args.lstrip()
    if args.startswith("["):
        try:
            argv = json.loads(args)
            if isinstance(argv, list) and all(isinstance(a, str) for a in argv):
                return [argv], False
        except ValueError:
            pass
    toks = _tokens(args)
    return _commands(toks), any(t in ("|", "|&") for t in toks)


def _args_after(cmd: list[str], word: str) -> Optional[list[str]]:
    try:
        return cmd[cmd.index(word) + 1:]
    except ValueError:
        return None


def _positional(args: list[str], value_opts: set[str]) -> list[str]:
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
            continue
        if a.startswith("-"):
            if a in value_opts:
                skip = True
            continue
        out.append(a)
    return out


def _apt_install(cmd: list[str]) -> Optional[list[str]]:
    if not cmd or cmd[0].rsplit("/", 1)[-1] not in ("apt-get", "apt"):
        return None
    return _args_after(cmd, "install")


def _pip_install(cmd: list[str]) -> Optional[list[str]]:
    if not cmd:
        return None
    if _PIP_RE.match(cmd[0]):
        return _args_after(cmd, "install")
    if _PY_RE.match(cmd[0]) and cmd[1:3] == ["-m", "pip"]:
        return _args_after(cmd, "install")
    return None


def _pinned_pip(arg: str) -> bool:
    if any(m in arg for m in _VERSION_MARKS):
        return True
    return "/" in arg or arg.startswith(".") or arg.endswith((".whl", ".tar.gz", ".zip")) or "://" in arg


def _stage_alias(args: str) -> Optional[str]:
    m = re.search(r"\s+[Aa][Ss]\s+(\S+)\s*$", args)
    return m.group(1).lower() if m else None


def lint(text: str) -> list[LintIssue]:
    """All issues for a Dockerfile's text, in line order."""
    issues: list[LintIssue] = []
    stages: set[str] = set()
    pipefail = False
    no_cache_env = False

    def report(ins: Instruction, code: str, detail: str = "") -> None:
        if code in ins.ignored:
            return
        sev, msg = RULES[code]
        issues.append(LintIssue(code, ins.line, sev, msg + (f" ({detail})" if detail else "")))

    for ins in parse(text):
        if ins.keyword == "FROM":
            pipefail, no_cache_env = False, False
            words = [w for w in ins.args.split() if not w.startswith("--")]
            image = words[0] if words else ""
            alias = _stage_alias(ins.args)
            if image and "$" not in image and image.lower() != "scratch" and image.lower() not in stages:
                ref, _, digest = image.partition("@")
                last = ref.rsplit("/", 1)[-1]
                tag = last.rsplit(":", 1)[1] if ":" in last else ""
                if not tag and not digest:
                    report(ins, "DL3006", image)
                if tag == "latest":
                    report(ins, "DL3007", image)
            if alias:
                stages.add(alias)
        elif ins.keyword == "SHELL":
            try:
                argv = json.loads(ins.args)
            except ValueError:
                argv = []
            pipefail = isinstance(argv, list) and "-o" in argv and "pipefail" in argv
            if isinstance(argv, list) and argv and isinstance(argv[0], str) and \
                    not re.search(r"(ba|z|k|a|da)?sh$", argv[0]):
                pipefail = True  # not a POSIX shell (pwsh, cmd): the rule does not apply
        elif ins.keyword == "ENV":
            if re.search(r"(^|\s)PIP_NO_CACHE_DIR[= ]\s*\"?(1|true|yes|on)\"?", ins.args, re.I):
                no_cache_env = True
        elif ins.keyword == "RUN":
            cmds, piped = _run_body(ins.args)
            if piped and not pipefail:
                report(ins, "DL4006")
            for cmd in cmds:
                apt = _apt_install(cmd)
                if apt is not None:
                    pkgs = _positional(apt, _APT_VALUE_OPTS)
                    unpinned = [p for p in pkgs if "=" not in p and not p.endswith(".deb")]
                    if unpinned:
                        report(ins, "DL3008", " ".join(unpinned))
                    if "--no-install-recommends" not in apt and "APT::Install-Recommends=false" not in apt:
                        report(ins, "DL3015")
                pip = _pip_install(cmd)
                if pip is not None:
                    pkgs = _positional(pip, _PIP_VALUE_OPTS)
                    unpinned = [p for p in pkgs if not _pinned_pip(p)]
                    if unpinned:
                        report(ins, "DL3013", " ".join(unpinned))
                    if "--no-cache-dir" not in pip and not no_cache_env:
                        report(ins, "DL3042")
    return issues


def render_text(path: str, issues: list[LintIssue]) -> str:
    """hadolint's tty format: ``FILE:LINE CODE level: message``."""
    return "".join(f"{path}:{i.line} {i.code} {i.severity}: {i.message}\n" for i in issues)
