"""gpu.arch-unsupported when the only ROCm known is the one a torch wheel bundles (fixtures/README.md rule 2).

The collect_env block is the real one of pytorch/pytorch#147626 (fixtures/field-healthy-collect-env-debian12-
torch2.5.1-rocm6.2: a working gfx906 under torch 2.5.1+rocm6.2). AMD lists gfx906 as deprecated in ROCm 6.2,
but that is a verdict on an installed ROCm 6.2; the wheel runs every target it was built for. Read alone and
as logs/paste.txt of a bundle, it must be judged the same way; with a system ROCm known, AMD's deprecation
is still reported.
"""

from __future__ import annotations

from pathlib import Path

from rocmdoctor.bundle import load_host
from rocmdoctor.diagnose import judge_host
from rocmdoctor.model import Finding, Severity

ROOT = Path(__file__).resolve().parent.parent
PASTE = (ROOT / "fixtures" / "field-healthy-collect-env-debian12-torch2.5.1-rocm6.2" / "paste.txt").read_text()


def arch(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if f.id == "gpu.arch-unsupported"]


def test_wheel_target_is_ok_alone(tmp_path: Path):
    (tmp_path / "paste.txt").write_text(PASTE)
    got = arch(judge_host(load_host(tmp_path / "paste.txt")))
    assert [f.severity for f in got] == [Severity.OK], got
    assert "gfx906" in got[0].title and "bundles its own ROCm 6.2" in got[0].title
    assert any("built for" in e and "gfx906" in e for e in got[0].evidence), got[0].evidence


def test_bundle_log_is_judged_like_the_paste_alone(tmp_path: Path):
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "paste.txt").write_text(PASTE)
    host = load_host(tmp_path)
    assert [g.gfx for g in host.gpus] == ["gfx906"]  # the collect_env GPU line is read, not only prose
    assert [f.severity for f in arch(judge_host(host))] == [Severity.OK]


def test_a_known_system_rocm_keeps_amds_deprecation(tmp_path: Path):
    (tmp_path / "cmd").mkdir()
    (tmp_path / "cmd" / "collect_env.txt").write_text(PASTE)
    (tmp_path / "root" / "opt" / "rocm" / ".info").mkdir(parents=True)
    (tmp_path / "root" / "opt" / "rocm" / ".info" / "version").write_text("6.2.0-66\n")
    got = arch(judge_host(load_host(tmp_path)))
    assert len(got) == 1 and got[0].severity == Severity.WARN and "deprecated in ROCm 6.2" in got[0].title, got


def test_a_gfx_the_wheel_was_not_built_for_is_not_excused(tmp_path: Path):
    """Derived from the same paste: only the GPU line changed to a Polaris card (gfx803), which the torch
    2.5.1+rocm6.2 wheels do not target; the wheel-only rule must not turn that into ok."""
    text = PASTE.replace("AMD Radeon Graphics (gfx906:sramecc+:xnack-)", "Radeon RX 580 Series (gfx803)")
    assert text != PASTE
    (tmp_path / "paste.txt").write_text(text)
    got = arch(judge_host(load_host(tmp_path / "paste.txt")))
    assert got and all(f.severity != Severity.OK for f in got), got
