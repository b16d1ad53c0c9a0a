"""A tool's output pasted into a bundle's logs/ is read by its format parser, as the same text is alone.

Real texts: ollama/ollama#8473 (fixtures/field-igpu-granite-ridge-plus-rx7800xt-one-override: lspci of an
RX 7800 XT beside the Granite Ridge iGPU, with a global HSA_OVERRIDE_GFX_VERSION) and the collect_env crash of
fixtures/rocm5.4.2-wheel-collect-env-crash (a traceback only: no GPU list was ever printed).
"""

from __future__ import annotations

from pathlib import Path

from rocmdoctor.bundle import load_host
from rocmdoctor.diagnose import judge_host
from rocmdoctor.model import Severity

ROOT = Path(__file__).resolve().parent.parent
GRANITE = (ROOT / "fixtures" / "field-igpu-granite-ridge-plus-rx7800xt-one-override" / "paste.txt").read_text()
CRASH = (ROOT / "fixtures" / "rocm5.4.2-wheel-collect-env-crash" / "logs" / "collect_env-error.txt").read_text()


def severities(host) -> dict[str, set[Severity]]:  # type: ignore[no-untyped-def]
    out: dict[str, set[Severity]] = {}
    for f in judge_host(host):
        out.setdefault(f.id, set()).add(f.severity)
    return out


def as_log(folder: Path, text: str) -> Path:
    (folder / "logs").mkdir(parents=True)
    (folder / "logs" / "paste.txt").write_text(text)
    return folder


def test_lspci_in_logs_names_the_igpu_and_the_override_cause(tmp_path: Path):
    (tmp_path / "alone.txt").write_text(GRANITE)
    alone = load_host(tmp_path / "alone.txt")
    bundled = load_host(as_log(tmp_path / "b", GRANITE))
    names = [g.name for g in bundled.gpus]
    assert names == [g.name for g in alone.gpus] and len(names) == 2 and "Granite Ridge" in str(names[1]), names
    got = severities(bundled)
    assert Severity.WARN in got["gpu.override-mismatch"]
    assert Severity.WARN in got["gpu.igpu-visible"]
    assert not got.get("gpu.arch-unsupported", set()) - {Severity.OK, Severity.SKIP}


def test_a_captured_lspci_wins_over_a_pasted_copy(tmp_path: Path):
    """The capture's own cmd/lspci output is the truth; an lspci pasted into logs/ is not read again (derived:
    the capture holds only the paste's first lspci line)."""
    b = as_log(tmp_path, GRANITE)
    (b / "cmd").mkdir()
    navi = next(line for line in GRANITE.splitlines() if line.startswith("03:00.0"))  # the capture: dGPU only
    (b / "cmd" / "lspci.txt").write_text(navi + "\n")
    host = load_host(b)
    assert len(host.gpus) == 1 and "Navi 32" in str(host.gpus[0].name)
    assert all(str(s).startswith("cmd/") for g in host.gpus for s in g.sources), [g.sources for g in host.gpus]


def test_a_collect_env_traceback_is_no_gpu_list(tmp_path: Path):
    """collect_env crashed before printing anything: neither alone nor in logs/ is it a GPU source that
    'lists no GPU' (gpu.none-found) or a package listing without torch (torch.not-installed)."""
    (tmp_path / "crash.txt").write_text(CRASH)
    for host in (load_host(tmp_path / "crash.txt"), load_host(as_log(tmp_path / "b", CRASH))):
        assert "collect_env" not in host.captured
        got = severities(host)
        assert Severity.FAIL in got["log.collect-env-crash"]
        assert not got.get("gpu.none-found", set()) - {Severity.OK, Severity.SKIP}
        assert not got.get("torch.not-installed", set()) - {Severity.OK, Severity.SKIP}
