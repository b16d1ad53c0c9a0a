#!/usr/bin/env python3
"""Maintainer tool: cut the pinned upstream excerpts under ``matrices/upstream/`` from local git mirrors.

Not run by the tests and never on a user's machine.  It copies only the few data lines the torch
derivation reads (the ROCm/Python dicts of test-infra's build matrix, the ROCm arm of the manywheel
docker script), each with a header naming the repository, path, commit and line range, so a reviewer
can open exactly that range upstream.  Usage::

    python scripts/snapshot_upstream.py --test-infra /path/to/test-infra.git --builder /path/to/builder.git

The mirrors must hold the ``release/X.Y`` branches.  Rerun after a new torch branch cut, then run
``rocmdoctor matrix update --offline`` and review the diff of ``matrices/torch_builds.toml``.
"""

from __future__ import annotations

import argparse
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "matrices" / "upstream"
TI_PATH = "tools/scripts/generate_binary_build_matrix.py"
BUILDER_PATH = "manywheel/build_docker.sh"
TI_RELEASES = ["2.1", "2.2", "2.3", "2.4", "2.5", "2.6", "2.7", "2.8", "2.9", "2.10", "2.11", "2.12",
               "2.13", "2.14"]
BUILDER_RELEASES = ["2.0", "2.1", "2.2", "2.3", "2.4"]


def git(repo: str, *args: str) -> str:
    return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True, text=True).stdout


def block(lines: list[str], start_re: str, end_re: str) -> tuple[int, int]:
    """1-based inclusive range from the first line matching start_re to the next matching end_re."""
    for i, line in enumerate(lines):
        if re.match(start_re, line):
            for j in range(i, len(lines)):
                if re.match(end_re, lines[j]):
                    return i + 1, j + 1
    raise SystemExit(f"block {start_re!r} not found")


def write(dest: Path, repo: str, path: str, commit: str, ref: str, spans: list[tuple[int, int]],
          lines: list[str], extra: str = "") -> None:
    head = [f"# repo: {repo}", f"# path: {path}", f"# ref: {ref}", f"# commit: {commit}",
            "# lines: " + ",".join(f"{a}-{b}" for a, b in spans),
            f"# url: https://github.com/{repo}/blob/{commit}/{path}#L{spans[0][0]}-L{spans[-1][1]}"]
    if extra:
        head.append(f"# {extra}")
    body: list[str] = []
    for a, b in spans:
        body += [f"{n:5d}| {lines[n - 1]}" for n in range(a, b + 1)]
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text("\n".join([*head, "---", *body]) + "\n", encoding="utf-8")
    print(dest.relative_to(ROOT.parent.parent))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--test-infra")
    ap.add_argument("--builder")
    ap.add_argument("--therock", help="a ROCm/TheRock mirror (RELEASES.md multi-arch tables)")
    ap.add_argument("--windows-docs", help="a ROCm/rocm-install-on-windows mirror (the HIP SDK's GPU tables)")
    a = ap.parse_args()
    if a.therock:
        therock(a.therock)
    if a.windows_docs:
        windows_docs(a.windows_docs)
    if not (a.test_infra and a.builder):
        return
    for rel in [*TI_RELEASES, "main"]:
        ref = "HEAD" if rel == "main" else f"release/{rel}"
        commit = git(a.test_infra, "rev-parse", ref).strip()
        text = git(a.test_infra, "show", f"{commit}:{TI_PATH}").splitlines()
        py = block(text, r"^PYTHON_ARCHES_DICT = \{", r"^\}")
        rocm = block(text, r"^ROCM_ARCHES_DICT = \{", r"^\}")
        if rel == "main":  # the nightly channel: no branch cut
            write(ROOT / "pytorch" / "test-infra" / f"main-{commit[:8]}" / (TI_PATH.rsplit("/", 1)[1] + ".excerpt"),
                  "pytorch/test-infra", TI_PATH, commit, "main", [py, rocm], text)
            continue
        cut = git(a.test_infra, "log", "--format=%H %cs %s", "--grep", f"Branch Cut for Release {rel}",
                  "-1", ref).strip() or git(a.test_infra, "log", "--format=%H %cs %s", "--reverse",
                                            f"{git(a.test_infra, 'merge-base', 'HEAD', ref).strip()}..{ref}"
                                            ).splitlines()[0]
        write(ROOT / "pytorch" / "test-infra" / f"release-{rel}" / (TI_PATH.rsplit("/", 1)[1] + ".excerpt"),
              "pytorch/test-infra", TI_PATH, commit, ref, [py, rocm], text, extra=f"branch-cut: {cut}")
    for rel in BUILDER_RELEASES:
        ref = f"release/{rel}"
        commit = git(a.builder, "rev-parse", ref).strip()
        text = git(a.builder, "show", f"{commit}:{BUILDER_PATH}").splitlines()
        arm = block(text, r"^    rocm\)$", r"^        ;;$")
        write(ROOT / "pytorch" / "builder" / f"release-{rel}" / "build_docker.sh.excerpt",
              "pytorch/builder", BUILDER_PATH, commit, ref, [arm], text)


def therock(repo: str) -> None:
    """RELEASES.md: the multi-arch index, the [device-*] extras table and the torch version table."""
    commit = git(repo, "rev-parse", "HEAD").strip()
    text = git(repo, "show", f"{commit}:RELEASES.md").splitlines()
    index = block(text, r"^Nightly releases of ROCm and framework Python packages", r"^unified index at ")
    devices = block(text, r"^\| Product Name +\| GFX Target", r"^\| AMD Radeon Pro W5500")
    versions = block(text, r"^>   \| torch version \|", r"^>   \| 2\.11 ")
    write(ROOT / "ROCm" / "TheRock" / f"main-{commit[:8]}" / "RELEASES.md.excerpt", "ROCm/TheRock", "RELEASES.md",
          commit, "main", [index, devices, versions], text)
    legacy = git(repo, "show", f"{commit}:docs/packaging/legacy_per_family_releases.md").splitlines()
    cut = block(legacy, r"^> Per-family releases have been replaced", r"^> \*per-family releases may be deleted")
    pys = block(legacy, r"^We currently support Python", r"^We currently support Python")
    write(ROOT / "ROCm" / "TheRock" / f"main-{commit[:8]}" / "legacy_per_family_releases.md.excerpt",
          "ROCm/TheRock", "docs/packaging/legacy_per_family_releases.md", commit, "main", [cut, pys], legacy)


WINDOWS_PATH = "docs/reference/system-requirements.rst"
WINDOWS_RELEASES = ["6.0.0", "6.0.2", "6.1.0", "6.1.1", "6.1.2", "6.2.0", "6.2.1", "6.2.2", "6.2.4"]


def windows_docs(repo: str) -> None:
    """The HIP SDK for Windows' GPU tables (Name, Architecture, LLVM target, Runtime, HIP SDK) of each release's
    documentation branch (``docs/X.Y.Z``): the input of ``matrices/windows.toml``. The branches before 6.0 live in
    ROCm/ROCm's own docs and the ones after 6.2.4 are not in the mirror."""
    for rel in WINDOWS_RELEASES:
        ref = f"docs/{rel}"
        commit = git(repo, "rev-parse", ref).strip()
        text = git(repo, "show", f"{commit}:{WINDOWS_PATH}").splitlines()
        tables = block(text, r"^\.\. tab-set::", r'^      "AMD Radeon(?:™)? RX 6600",')
        write(ROOT / "ROCm" / "rocm-install-on-windows" / f"docs-{rel}" / "system-requirements.rst.excerpt",
              "ROCm/rocm-install-on-windows", WINDOWS_PATH, commit, ref, [tables], text)


if __name__ == "__main__":
    main()
