"""The bundle's one priority table (rocmdoctor.bundle.merge.PRIORITY) and the caps that moved into LIMITS.

Each precedence test puts two sources of one fact into a bundle with different values and asserts that
the source the table ranks higher wins, whichever order the files are read in. The file contents follow
the real formats (os-release(5), lsb_release, uname, /proc/version, pip list --format json, pip freeze);
the values are chosen to differ, not taken from a host.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from rocmdoctor.bundle import load_host
from rocmdoctor.bundle.merge import PRIORITY, rank
from rocmdoctor.limits import LIMITS
from tests.parse_helpers import write_bundle

BUNDLE_DIR = Path(__file__).resolve().parents[1] / "rocmdoctor" / "bundle"
_OFFERS = {"offer": None, "kernel": "kernel", "torch": "torch", "packages": "packages"}


def _offers_in_source() -> list[tuple[str, str, str, int]]:
    """(file, fact, source, line) of every ``acc.offer/kernel/torch/packages`` call with literal arguments."""
    found = []
    for path in sorted(BUNDLE_DIR.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in _OFFERS and isinstance(node.func.value, ast.Name)
                    and node.func.value.id == "acc"):
                continue
            fact = _OFFERS[node.func.attr]
            args = list(node.args)
            if fact is None:
                fact_node, args = args[0], args[1:]
                assert isinstance(fact_node, ast.Constant), f"{path.name}:{node.lineno}: fact is not a literal"
                fact = fact_node.value
            for source in _literal_sources(args[0]):
                found.append((path.name, fact, source, node.lineno))
    return found


def _literal_sources(node: ast.expr) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.IfExp):
        return _literal_sources(node.body) + _literal_sources(node.orelse)
    raise AssertionError(f"line {node.lineno}: a source must be a literal (or a choice of literals)")


def test_every_offered_source_is_ranked_by_the_table():
    offers = _offers_in_source()
    assert len(offers) >= 30  # every handler offers through the table
    missing = [o for o in offers if o[2] not in PRIORITY.get(o[1], ())]
    assert not missing, missing
    used = {(fact, source) for _, fact, source, _ in offers}
    unused = [(f, s) for f, row in PRIORITY.items() if not f.startswith("gpu-") for s in row if (f, s) not in used]
    assert unused == [], unused


def test_free_text_is_last_in_every_row_it_appears_in():
    for fact, row in PRIORITY.items():
        texts = [s for s in row if s.startswith("text")]
        if texts:
            assert list(row[-len(texts):]) == texts, fact


def test_an_unknown_source_is_a_bug_not_a_silent_tie():
    with pytest.raises(ValueError):
        rank("os", "os-releas")
    with pytest.raises(KeyError):
        rank("no-such-fact", "uname-r")


OS_RELEASE = 'NAME="Ubuntu"\nVERSION_ID="22.04"\nID=ubuntu\nPRETTY_NAME="Ubuntu 22.04.4 LTS"\n'
LSB = "Distributor ID:\tUbuntu\nDescription:\tUbuntu 24.04.1 LTS\nRelease:\t24.04\nCodename:\tnoble\n"


def test_etc_os_release_beats_lsb_release(tmp_path):
    host = load_host(write_bundle(tmp_path, {"root/etc/os-release": OS_RELEASE, "cmd/lsb_release.txt": LSB}))
    assert host.os.version_id == "22.04"
    assert host.os.source.file == "root/etc/os-release"


def test_lsb_release_fills_in_when_os_release_is_missing(tmp_path):
    host = load_host(write_bundle(tmp_path, {"cmd/lsb_release.txt": LSB}))
    assert host.os.version_id == "24.04"


def test_uname_r_beats_proc_version(tmp_path):
    files = {"cmd/uname-r.txt": "6.8.0-45-generic\n",
             "root/proc/version": "Linux version 6.5.0-27-generic (buildd@lcy02-amd64-017) (gcc 12.3.0) "
                                  "#28~22.04.1-Ubuntu SMP PREEMPT_DYNAMIC Fri Mar 15 10:51:06 UTC 2\n"}
    host = load_host(write_bundle(tmp_path, files))
    assert host.kernel.release == "6.8.0-45-generic"
    assert host.kernel.version_text is not None  # the loser still fills what the winner lacks


def test_pip_list_beats_pip_freeze(tmp_path):
    files = {"cmd/pip-list.json": json.dumps([{"name": "torch", "version": "2.4.1+rocm6.1"}]),
             "cmd/pip-freeze.txt": "torch==2.3.0\nNumPy==1.26.4\n"}
    host = load_host(write_bundle(tmp_path, files))
    assert host.packages["torch"] == "2.4.1+rocm6.1"
    assert host.packages["numpy"] == "1.26.4"  # freeze still adds what pip list did not tell (PEP 503 name)
    assert host.torch is not None and host.torch.version == "2.4.1+rocm6.1"


def test_gpus_beyond_the_cap_are_cut_and_noted(tmp_path):
    """A hostile rocm_agent_enumerator paste (one gfx name per line, its real format) listing 300 GPUs."""
    most = LIMITS["gpus"]
    paste = tmp_path / "agents.txt"
    paste.write_text("gfx000\n" + "gfx90a\n" * (most + 44))
    host = load_host(paste)
    assert len(host.gpus) == most
    assert f"{most + 44} GPU agents in one source; only the first {most} kept" in host.parse_notes


def test_every_kind_a_command_or_a_paste_can_be_has_a_handler():
    from rocmdoctor.bundle.handlers import CMD_KINDS, KIND_HANDLERS, SCAN_KINDS
    from rocmdoctor.parse.sniff import _MARKERS

    kinds = set(CMD_KINDS.values()) | {kind for kind, _ in _MARKERS} | set(SCAN_KINDS)
    kinds |= {"torch-probe", "docker-info", "amd-smi", "pip-list", "rocm_agent_enumerator", "pip-freeze",
              "rocm-info-version"}  # what sniff returns outside _MARKERS (JSON documents, bare lines)
    assert kinds - set(KIND_HANDLERS) == set()
