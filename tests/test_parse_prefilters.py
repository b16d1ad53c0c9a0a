"""The literal guards that let the line parsers skip work on a long paste change how fast it is read, never what
is read: each guarded parser is compared with its plain form (every regex searched on every line) on real
capture lines, on the same lines stamped with a time (a journal: no line repeats) and on generated lines built
from the words the guards look for, in other letter cases and with the Unicode letters that case-insensitive
regexes fold ('ſ' matches 's', the Kelvin sign 'k')."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rocmdoctor.parse import dkms, rocminfo, smi
from rocmdoctor.parse import needles as needles_mod
from rocmdoctor.parse.text import clean, lines, lines_holding, strip_prompt
from tests.parse_helpers import CAPTURES

ROOT = Path(__file__).resolve().parent.parent


def _real_lines() -> list[str]:
    out: list[str] = []
    for p in sorted(CAPTURES.rglob("*.txt")) if CAPTURES.is_dir() else []:
        out.extend(p.read_text(encoding="utf-8", errors="replace").splitlines()[:400])
    for p in sorted((ROOT / "fixtures").glob("*/paste.txt")):
        out.extend(p.read_text(encoding="utf-8", errors="replace").splitlines()[:200])
    assert len(out) > 200, "no real lines found: fixtures/ is part of the repository"
    return out


LINES = _real_lines()
_WORDS = ["Error!", "ERROR!", "error processing package", "Error occurred:", "amdgpu-dkms", "rock-dkms", "BAD",
          "Bad return status for module build on kernel: 6.5.0-14-generic", "(bad exit status: 2)", "dkms.conf",
          "DKMS.CONF does not exist", "dkm\u017f.conf could not", "\u212a", "Loading new amdgpu-6.3.6 DKMS files",
          "Building module for 6.5.0", "for kernel 6.2.0-generic", "amdgpu/6.3.6, 6.5.0, x86_64: installed",
          "Could not locate dkms.conf", "  ", ":", "$ ", "for", "bad"]
_LINE = st.one_of(st.sampled_from(LINES), st.lists(st.sampled_from(_WORDS), min_size=1, max_size=4).map(" ".join))


def _plain_read_line(body: str) -> dkms._Line:
    """dkms._read_line as it was before its guards: every regex searched."""
    lm = dkms._LOADING.search(body)
    km = dkms._BUILD_FAIL_KERNEL.search(body)
    loading = (lm.group("mod") or lm.group("mod3") or lm.group("mod4"),
               lm.group("ver") or lm.group("ver3") or lm.group("ver4")) if lm else None
    kernel = km.group(1) if km else None
    if lm is not None and lm.group("mod4"):
        return dkms._Line(body, loading, kernel, "makelog")
    cm = dkms._CONSULT.search(body)
    if cm:
        return dkms._Line(body, loading, None, "consult", entry=(cm["mod"], cm["ver"], None, None, "build-failed"))
    if dkms._MAKE_ERROR.match(body):
        return dkms._Line(body, loading, None, "make-error")
    fm = dkms._BUILD_FAIL.search(body)
    if fm:
        return dkms._Line(body, loading, kernel, "failed", failed_kernel=fm.group(1))
    if dkms._DPKG_DKMS.search(body) and "error" in body.lower():
        return dkms._Line(body, loading, kernel, "build-failure")
    if dkms._TREE_ERROR.search(body):
        return dkms._Line(body, loading, kernel, "error")
    m = dkms._NEW.match(body) or dkms._OLD.match(body)
    sm = dkms._STATUS.match(m.group("status").strip()) if m else None
    if m is None or sm is None:
        return dkms._Line(body, loading, kernel, "")
    entry = (m.group("mod"), m.group("ver"), m.group("kernel"), m.group("arch"), sm.group(1).lower())
    return dkms._Line(body, loading, kernel, "entry", entry=entry)


def _plain_log_lines(text: str) -> str:
    rows = text.split("\n")
    keep = {ln for ln in rows if not ln.isascii() or any(w in ln.lower() for w in dkms._WORDS)}
    return "\n".join(ln if ln in keep else "" for ln in rows)


def _body(raw: str) -> str:
    return strip_prompt(clean(raw))[0].strip()


def test_dkms_guards_on_every_real_line() -> None:
    for raw in LINES:
        body = _body(raw)
        assert dkms._read_line(body) == _plain_read_line(body), body
        stamped = f"Nov 30 12:00:01.000001 {body}"
        assert dkms._read_line(stamped) == _plain_read_line(stamped), stamped


def test_the_guards_do_not_hide_a_case_folded_match() -> None:
    """'ſ' is 's' to a case-insensitive regex but not to str.lower(): a non-ASCII line is searched in full."""
    body = "DKM\u017f.CONF does not exist"
    assert dkms._TREE_ERROR.search(body)
    assert dkms._read_line(body).kind == "error" == _plain_read_line(body).kind


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_LINE, min_size=1, max_size=30))
def test_dkms_parse_equals_the_plain_parse(lines: list[str]) -> None:
    text = "\n".join(lines)
    assert dkms.log_lines(text) == _plain_log_lines(text)
    for body in map(_body, lines):
        assert dkms._read_line(body) == _plain_read_line(body), body


def test_a_long_journal_reads_as_its_plain_parse(monkeypatch) -> None:
    text = "\n".join(f"Nov 30 {i // 60 % 60:02d}:{i % 60:02d}.{i:06d} {ln}" for i, ln in enumerate(LINES * 2))
    assert dkms.log_lines(text) == _plain_log_lines(text)
    got = dkms.parse_dkms(dkms.log_lines(text), "j.log")
    monkeypatch.setattr(dkms, "_read_line", _plain_read_line)
    assert got == dkms.parse_dkms(_plain_log_lines(text), "j.log")
    assert got.build_failures and got.entries  # the journal does hold a build failure and a status line


# ------------------------------------------------------------------ lines_holding, rocminfo, rocm-smi

_TEXT_PIECES = st.sampled_from(["\n", "\r\n", "\r", "\x00", "\x1b[1m", " ", "\t", "Na", "me", "Name", "Node: 1",
                                "GPU", "GPU[0] : Card series: Radeon", "Device  Node  IDs", "card[1]", "ROCk module",
                                "x" * 4100, "  Marketing Name: AMD Radeon", "Agent 2", "====== END ======", "0 "])


def _plain_holding(text: str, needles: tuple[str, ...]) -> list[tuple[int, str]]:
    return [(n, line) for n, line in lines(text) if any(w in line for w in needles)]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(st.lists(st.one_of(_TEXT_PIECES, st.sampled_from(LINES)), max_size=40).map("".join),
       st.sampled_from([("Name",), ("Name", "Node", "Agent"), ("ROCk module", "GPU", "Device"), ("\r",)]),
       st.booleans())
def test_lines_holding_is_lines_filtered(monkeypatch, text: str, needles: tuple[str, ...], digest: bool) -> None:
    """CR and NUL that clean() removes may join a needle ("Na\\x00me"), escapes too: still the same lines."""
    monkeypatch.setattr(needles_mod, "MIN_DIGEST", 0 if digest else 64 * 1024)
    monkeypatch.setattr(needles_mod, "_last", None)
    assert list(lines_holding(text, needles)) == _plain_holding(text, needles)


@pytest.mark.parametrize("text", ["a\nNa\x00me: x\nb", "a\r\nNa\rme: x\r\n", "x\nNa\x1b[1mme: y\n",
                                  "Name" + " " * 5000])
def test_what_clean_removes_may_join_a_needle(monkeypatch, text: str) -> None:
    monkeypatch.setattr(needles_mod, "MIN_DIGEST", 0)
    monkeypatch.setattr(needles_mod, "_last", None)
    assert list(lines_holding(text, ("Name",))) == _plain_holding(text, ("Name",))
    assert _plain_holding(text, ("Name",))  # the example does hold it once cleaned


def test_lines_holding_gives_up_searching_where_most_lines_hold_a_needle() -> None:
    text = "Name: x\n" * 1000
    assert list(lines_holding(text, ("Name",))) == _plain_holding(text, ("Name",))


def _stamped_text(lines_: list[str]) -> str:
    return "\n".join(f"Nov 30 {i // 60 % 60:02d}:{i % 60:02d}.{i:06d} {ln}" for i, ln in enumerate(lines_))


def _texts() -> list[str]:
    out = [p.read_text(encoding="utf-8", errors="replace") for p in sorted(CAPTURES.rglob("*.txt"))]
    out += [p.read_text(encoding="utf-8", errors="replace") for p in sorted((ROOT / "fixtures").glob("*/paste.txt"))]
    out += [p.read_text(encoding="utf-8", errors="replace")
            for p in sorted((ROOT / "fixtures").glob("*/cmd/rocm*.txt"))]
    return [*out, _stamped_text(LINES), "noise\n" * 50 + "\n".join(LINES)]


def test_rocminfo_and_rocm_smi_read_as_their_plain_parse(monkeypatch) -> None:
    """The same GPUs from every real text as when every line is read (the plain loops, by monkeypatching)."""
    texts = _texts()
    got = [(rocminfo.parse_rocminfo(t, "f"), smi.parse_rocm_smi(t, "f")) for t in texts]
    monkeypatch.setattr(rocminfo, "lines_holding", lambda text, needles: lines(text))
    monkeypatch.setattr(smi, "_first_line", lambda text: 1)
    plain = [(rocminfo.parse_rocminfo(t, "f"), smi.parse_rocm_smi(t, "f")) for t in texts]
    assert got == plain
    assert sum(len(r.gpus) for r, _ in got) > 5 and sum(len(s) for _, s in got) > 3  # real GPUs were read


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(_TEXT_PIECES, st.sampled_from(LINES)), max_size=40).map("".join))
def test_rocm_smi_starts_no_later_than_its_first_key_line_or_header(text: str) -> None:
    first = smi._first_line(text)
    for n, line in lines(text):
        stripped = line.strip()
        if smi._KEYLINE.match(line) or (stripped.split()[:1] in (["GPU"], ["Device"])):
            assert first is not None and first <= n, (first, n, line)
            break


def test_the_line_filter_never_changes_the_parse() -> None:
    """log_lines only drops lines no dkms regex could match: an all-caps tree error (the regexes ignore case)
    reads the same filtered or not (found by H10's comparison: the filter was case-sensitive)."""
    text = "\n".join(["ERROR! Could not locate dkms.conf file.", "AMDGPU/6.3.6, 6.5.0-14-GENERIC, X86_64: INSTALLED",
                      "noise line"])
    assert dkms.parse_dkms(dkms.log_lines(text), "x.log") == dkms.parse_dkms(text, "x.log")
    assert dkms.parse_dkms(text, "x.log").errors
