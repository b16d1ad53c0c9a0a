"""Derive the per-release torch build table (``matrices/torch_builds.toml``) from pinned upstream excerpts.

Why: the gfx list compiled into a pytorch.org ROCm wheel changes per torch release, not per ROCm index
(gfx1101 joined the rocm6.1 builds only for torch 2.6; gfx1102/gfx1200/gfx1201 the rocm6.2.4 builds only
for 2.7).  A hand-kept table per index got that wrong, so the table is now computed from the upstream
build definitions, stored as small cited excerpts under ``matrices/upstream/`` (see its README):

* ``pytorch/test-infra`` ``generate_binary_build_matrix.py`` at ``release/X.Y``: the ROCm variants and
  Python versions built for torch X.Y (the ``test`` channel of the release branch is the release
  candidate; torch 2.0 is read from the ``release`` channel of release/2.1), and the branch-cut date.
* ``pytorch/builder`` ``manywheel/build_docker.sh`` at ``release/X.Y`` (torch <= 2.4): the ROCm arm that
  sets ``PYTORCH_ROCM_ARCH``; it is evaluated by ``bash`` once per ROCm version, exactly as upstream ran it.
* torch >= 2.5: builder release/2.4's list plus the merged PRs of ``pytorch/pytorch/arch-changes.toml``
  that landed before the release's branch cut; the replay must reproduce ``pytorch/pytorch`` main's
  ``.ci/docker/manywheel/build.sh`` (also an excerpt), which gives the nightly lists.

``render()`` is deterministic; a test re-derives and compares with the committed file.
"""

from __future__ import annotations

import ast
import difflib
import json
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from rocmdoctor.errors import OperationFailed

GENERATED = "matrices/torch_builds.toml"


@dataclass(frozen=True)
class Excerpt:
    """One ``*.excerpt`` file: its ``# key: value`` header and the quoted lines (numbered as upstream)."""

    path: Path
    header: dict[str, str]
    lines: tuple[tuple[int, str], ...]

    @property
    def text(self) -> str:
        return "\n".join(t for _, t in self.lines) + "\n"

    def cite(self) -> str:
        """``<url> : <ref> lines a-b`` in the data files' source format."""
        return f"{self.header['url']} : {self.header['ref']} lines {self.header['lines']}"


@dataclass
class Build:
    torch: str  # "2.6" or "nightly"
    rocm: str  # "6.1"; "multi-arch" for TheRock's one index for every GPU
    gfx: list[str]
    pythons: list[str]
    source: str
    gfx_source: str
    not_credited: list[str] = field(default_factory=list)  # changes whose release is unknown (not counted)
    channel: str = "pytorch"  # "pytorch" | "nightly" | "therock"
    extras: list[str] = field(default_factory=list)  # TheRock: the [device-*] extra per gfx, same order as gfx
    companions: dict[str, str] = field(default_factory=dict)  # TheRock: torchvision/torchaudio series


def read_excerpt(path: Path) -> Excerpt:
    header: dict[str, str] = {}
    lines: list[tuple[int, str]] = []
    body = False
    for raw in path.read_text(encoding="utf-8").splitlines():
        if not body:
            if raw == "---":
                body = True
            elif raw.startswith("# ") and ": " in raw:
                k, _, v = raw[2:].partition(": ")
                header[k.strip()] = v.strip()
            continue
        m = re.match(r"^\s*(\d+)\| ?(.*)$", raw)
        if not m:
            raise OperationFailed(f"{path}: malformed excerpt line {raw[:60]!r}")
        lines.append((int(m.group(1)), m.group(2)))
    for key in ("repo", "path", "commit", "lines", "url", "ref"):
        if key not in header:
            raise OperationFailed(f"{path}: excerpt header lacks {key!r}")
    return Excerpt(path, header, tuple(lines))


def python_dicts(ex: Excerpt) -> dict[str, dict[str, list[str]]]:
    """``NAME = {...}`` literal assignments in a Python excerpt (parsed, never executed)."""
    out: dict[str, dict[str, list[str]]] = {}
    for node in ast.parse(ex.text).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            out[node.targets[0].id] = ast.literal_eval(node.value)
    return out


def eval_rocm_arm(ex: Excerpt, rocm: str) -> list[str]:
    """Run the quoted ``case`` arm in a clean bash with the ROCm version upstream's CI passed; return the list."""
    arm = ex.text
    first = arm.lstrip().split("\n", 1)[0].strip()  # "rocm)" or "manylinux2_28-builder:rocm*)"
    subject = "rocm" if first == "rocm)" else f"manylinux2_28-builder:rocm{rocm}"
    script = (f"GPU_ARCH_VERSION='{rocm}'\nGPU_ARCH_TYPE=rocm\nMANY_LINUX_VERSION=''\n"
              f"case '{subject}' in\n{arm}esac\nprintf '%s' \"$PYTORCH_ROCM_ARCH\"\n")
    if not re.fullmatch(r"\d+(\.\d+){1,2}", rocm):
        raise OperationFailed(f"not a ROCm version: {rocm!r}")
    try:
        r = subprocess.run(["bash", "--noprofile", "--norc", "-c", script], capture_output=True, text=True,
                           timeout=20, env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"}, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise OperationFailed(f"cannot evaluate {ex.path.name}: {exc}") from exc
    if r.returncode != 0 or not r.stdout.strip():
        raise OperationFailed(f"{ex.path}: evaluating the ROCm arm for {rocm} failed: {r.stderr.strip()[:200]}")
    return [g for g in r.stdout.strip().split(";") if g]


def _minor_key(v: str) -> tuple[int, ...]:
    return tuple(int(x) for x in v.split("."))


@dataclass
class Sources:
    test_infra: dict[str, Excerpt]  # "2.6" -> release/2.6 excerpt; "main" -> the nightly one
    builder: dict[str, Excerpt]  # "2.4" -> release/2.4 ROCm arm
    main_build: Excerpt  # pytorch/pytorch main .ci/docker/manywheel/build.sh ROCm arm
    changes: list[dict[str, Any]]
    changes_path: Path
    therock: Optional[Excerpt] = None  # ROCm/TheRock RELEASES.md: index, [device-*] table, torch versions
    therock_legacy: Optional[Excerpt] = None  # legacy_per_family_releases.md: frozen notice, Pythons
    therock_families: tuple[Excerpt, ...] = ()  # per-family index tables (GFX Target -> GFX Family), any date


def load_sources(root: Path) -> Sources:
    """Every excerpt the derivation reads (``root`` = ``matrices/upstream``)."""
    from rocmdoctor.matrix.load import read_toml

    ti: dict[str, Excerpt] = {}
    for p in sorted((root / "pytorch" / "test-infra").glob("*/generate_binary_build_matrix.py.excerpt")):
        name = p.parent.name
        ti["main" if name.startswith("main-") else name.removeprefix("release-")] = read_excerpt(p)
    builder = {p.parent.name.removeprefix("release-"): read_excerpt(p)
               for p in sorted((root / "pytorch" / "builder").glob("release-*/build_docker.sh.excerpt"))}
    mains = sorted((root / "pytorch" / "pytorch").glob("main-*/build.sh.excerpt"))
    changes_path = root / "pytorch" / "pytorch" / "arch-changes.toml"
    if not ti or not builder or len(mains) != 1 or not changes_path.is_file():
        raise OperationFailed(f"incomplete upstream snapshots under {root}")
    rel = sorted((root / "ROCm" / "TheRock").glob("main-*/RELEASES.md.excerpt"))
    leg = sorted((root / "ROCm" / "TheRock").glob("main-*/legacy_per_family_releases.md.excerpt"))
    fam = tuple(read_excerpt(p) for p in sorted((root / "ROCm" / "TheRock").glob("families-*/*.excerpt")))
    return Sources(ti, builder, read_excerpt(mains[0]), list(read_toml(changes_path).get("change", [])),
                   changes_path, read_excerpt(rel[-1]) if rel else None, read_excerpt(leg[-1]) if leg else None,
                   fam)


def _md_rows(ex: Excerpt) -> list[list[str]]:
    """Cells of every markdown table row in an excerpt (blockquote '>' stripped; separator rows dropped)."""
    rows = []
    for _, line in ex.lines:
        t = line.lstrip("> ").strip()
        if t.startswith("|") and not re.fullmatch(r"[|\s:-]+", t):
            rows.append([c.strip() for c in t.strip("|").split("|")])
    return rows


def therock_builds(src: Sources) -> list[Build]:
    """TheRock multi-arch: one Build per torch series of its version table, with the [device-*] extras table."""
    if src.therock is None or src.therock_legacy is None:
        return []
    devices: list[tuple[str, str]] = []
    versions: list[list[str]] = []
    for cells in _md_rows(src.therock):
        if len(cells) == 3 and re.fullmatch(r"gfx[0-9a-f]+", cells[1]):
            devices.append((cells[1], cells[2].strip("`")))
        elif len(cells) == 4 and re.fullmatch(r"\d+\.\d+", cells[0]):
            versions.append(cells)
    pys = re.findall(r"3\.\d+", " ".join(t for _, t in src.therock_legacy.lines if "Python" in t))
    if not devices or not versions or not pys:
        raise OperationFailed(f"{src.therock.path}: the TheRock tables did not parse")
    return [Build(torch=v[0], rocm="multi-arch", gfx=[g for g, _ in devices], pythons=pys,
                  source=src.therock.cite() + " ; " + src.therock_legacy.cite(),
                  gfx_source=src.therock.cite(), channel="therock", extras=[e for _, e in devices],
                  companions={"torchaudio": v[1], "torchvision": v[2]})
            for v in versions]


@dataclass
class Family:
    """One of TheRock's per-family indexes (rocm.nightlies.amd.com/v2/<name>/): the gfx targets it served."""

    name: str  # "gfx110X-dgpu"
    gfx: list[str]
    source: str


def therock_families(src: Sources) -> list[Family]:
    """Every family named in the pinned tables, with the targets listed for it (a family renamed over time,
    gfx110X-dgpu -> gfx110X-all, is two families: an index URL names one of them)."""
    fams: dict[str, Family] = {}
    for ex in src.therock_families:
        for cells in _md_rows(ex):
            if len(cells) >= 3 and re.fullmatch(r"gfx[0-9a-f]+", cells[1]) and re.fullmatch(r"gfx[\w-]+", cells[2]):
                f = fams.setdefault(cells[2], Family(cells[2], [], ex.cite()))
                if cells[1] not in f.gfx:
                    f.gfx.append(cells[1])
    if src.therock_families and not fams:
        raise OperationFailed("the TheRock per-family tables did not parse")
    return sorted(fams.values(), key=lambda f: f.name)


def branch_cut(ex: Excerpt) -> str:
    """ISO date of the release branch cut named in the excerpt header ("<sha> <date> <subject>")."""
    m = re.match(r"[0-9a-f]{40} (\d{4}-\d{2}-\d{2}) ", ex.header.get("branch-cut", ""))
    if not m:
        raise OperationFailed(f"{ex.path}: no branch-cut line")
    return m.group(1)


def _applies_to(change: dict[str, Any], rocm: str) -> bool:
    """False when the change is for other ROCm versions (a per-ROCm path, or a ``min_rocm`` condition)."""
    if "rocm" in change and str(change["rocm"]) != rocm:
        return False
    return not ("min_rocm" in change and _minor_key(rocm) < _minor_key(str(change["min_rocm"])))


def _credited(change: dict[str, Any], minor: str, cut: str, rocm: str) -> Optional[bool]:
    """True/False: in torch ``minor``'s ``rocm`` build or not; None: unknown (the change is then not counted)."""
    if not _applies_to(change, rocm):
        return False
    if "rocm" in change:  # a per-ROCm path that every build of that ROCm version has
        return True
    if "merged" in change:
        return str(change["merged"]) < cut
    after = str(change.get("merged_after", ""))
    if after and _minor_key(minor) <= _minor_key(after):
        return False
    return None


def _apply(base: list[str], change: dict[str, Any]) -> list[str]:
    out = [g for g in base if g not in change.get("remove", [])]
    for g in list(change.get("unconditional", [])) + list(change.get("add", [])):
        if g not in out:
            out.append(g)
    return out


def _changes_cite(src: Sources, used: list[dict[str, Any]]) -> str:
    prs = ", ".join("#" + str(c["pr"]).rsplit("/", 1)[-1] if "pr" in c else f"rocm{c['rocm']} path"
                    for c in used)
    return f" + {prs} (matrices/upstream/pytorch/pytorch/arch-changes.toml)" if used else ""


def derive(src: Sources) -> list[Build]:
    """Every (torch release, ROCm variant) pair upstream built, newest first, then the nightly variants."""
    releases: dict[str, tuple[list[str], list[str], str]] = {}  # minor -> (rocm, pythons, cite)
    for minor, ex in src.test_infra.items():
        if minor == "main":
            continue
        d = python_dicts(ex)
        releases[minor] = (list(d["ROCM_ARCHES_DICT"]["test"]), list(d["PYTHON_ARCHES_DICT"]["test"]), ex.cite())
        prev = f"{minor.split('.')[0]}.{int(minor.split('.')[1]) - 1}"
        if prev not in src.test_infra and prev in src.builder:  # 2.0: named by release/2.1's "release" channel
            releases[prev] = (list(d["ROCM_ARCHES_DICT"]["release"]), list(d["PYTHON_ARCHES_DICT"]["release"]),
                              ex.cite() + " (channel release = torch " + prev + ")")
    last_builder = max(src.builder, key=_minor_key)
    out: list[Build] = []
    for minor in sorted(releases, key=_minor_key, reverse=True):
        rocms, pythons, cite = releases[minor]
        for rocm in rocms:
            if minor in src.builder:
                gfx = eval_rocm_arm(src.builder[minor], rocm)
                gsrc = src.builder[minor].cite()
                unknown: list[str] = []
            else:
                cut = branch_cut(src.test_infra[minor])
                gfx = eval_rocm_arm(src.builder[last_builder], rocm)
                used = [c for c in src.changes if _credited(c, minor, cut, rocm)]
                unknown = [str(c["pr"]) for c in src.changes if _credited(c, minor, cut, rocm) is None]
                for c in used:
                    gfx = _apply(gfx, c)
                gsrc = src.builder[last_builder].cite() + _changes_cite(src, used) + f" merged before the {cut} cut"
            out.append(Build(minor, rocm, gfx, pythons, cite, gsrc, unknown))
    night = python_dicts(src.test_infra["main"])
    for rocm in night["ROCM_ARCHES_DICT"]["nightly"]:
        out.append(Build("nightly", rocm, eval_rocm_arm(src.main_build, rocm),
                         list(night["PYTHON_ARCHES_DICT"]["nightly"]), src.test_infra["main"].cite(),
                         src.main_build.cite(), channel="nightly"))
    return out + therock_builds(src)


@dataclass
class Epoch:
    """The gfx list of the nightlies of one ROCm variant between two recorded merges.

    A nightly ``X.Y.Z.devYYYYMMDD+rocmA.B`` is built from main on that day, not from a release branch, so its
    list is the replay of the changes merged by then (the release rows cut the same replay at a branch cut).
    ``since`` is inclusive (the merge that opened the epoch, or the base's branch cut), ``until`` exclusive
    ("" = still current). ``uncertain``: targets a change adds whose merge date is not in our sources."""

    rocm: str
    since: str
    until: str
    gfx: list[str]
    uncertain: list[str]
    gfx_source: str


def _in_nightly(change: dict[str, Any], since: str, until: str, rocm: str, cuts: dict[str, str]) -> Optional[bool]:
    """True/False: in every ``rocm`` nightly built in [since, until); None: unknown."""
    if not _applies_to(change, rocm):
        return False
    if "rocm" in change:
        return True
    if "merged" in change:
        return str(change["merged"]) <= since
    cut = cuts.get(str(change.get("merged_after", "")))
    if cut and until and until <= cut:  # merged after that release's cut, and the epoch ends before it
        return False
    return None


def nightly_epochs(src: Sources, builds: list[Build]) -> list[Epoch]:
    """Per ROCm variant built after builder's last release (every nightly since then used one of them), the
    gfx list between consecutive merges of ``arch-changes.toml``; epochs with equal lists are joined."""
    base_minor = max(src.builder, key=_minor_key)
    cuts = {m: branch_cut(ex) for m, ex in src.test_infra.items() if m != "main"}
    start = cuts[base_minor]
    rocms = sorted({b.rocm for b in builds if b.channel == "nightly" or (
        b.channel == "pytorch" and _minor_key(b.torch) > _minor_key(base_minor))}, key=_minor_key)
    dates = {str(c["merged"]) for c in src.changes if "merged" in c}
    dates |= {cuts[str(c["merged_after"])] for c in src.changes if str(c.get("merged_after", "")) in cuts}
    bounds = [start, *sorted(d for d in dates if d > start)]
    out: list[Epoch] = []
    for rocm in rocms:
        for i, since in enumerate(bounds):
            until = bounds[i + 1] if i + 1 < len(bounds) else ""
            gfx = eval_rocm_arm(src.builder[base_minor], rocm)
            verdicts = [(c, _in_nightly(c, since, until, rocm, cuts)) for c in src.changes]
            used = [c for c, v in verdicts if v]
            for c in used:
                gfx = _apply(gfx, c)
            unknown = [g for c, v in verdicts if v is None for g in c.get("add", []) if g not in gfx]
            gsrc = src.builder[base_minor].cite() + _changes_cite(src, used) + f" merged by {since}"
            prev = out[-1] if out and out[-1].rocm == rocm else None
            if prev is not None and prev.gfx == gfx and prev.uncertain == unknown:
                prev.until = until
                continue
            out.append(Epoch(rocm, since, until, gfx, unknown, gsrc))
    return out


def replay_to_main(src: Sources, rocm: str = "7.2") -> tuple[list[str], list[str]]:
    """(builder release/2.4 + every recorded change, main's list) for one ROCm version: must be equal sets."""
    gfx = eval_rocm_arm(src.builder[max(src.builder, key=_minor_key)], rocm)
    for c in src.changes:
        if _applies_to(c, rocm):
            gfx = _apply(gfx, c)
    return gfx, eval_rocm_arm(src.main_build, rocm)


def _arr(xs: list[str]) -> str:
    return "[" + ", ".join(json.dumps(x) for x in xs) + "]"


def render(builds: list[Build], epochs: Optional[list[Epoch]] = None,
           families: Optional[list[Family]] = None) -> str:
    """The generated TOML text (deterministic: the test compares it byte for byte)."""
    out = ["# GENERATED by `rocmdoctor matrix update --offline` from matrices/upstream/ (rocmdoctor/matrix/derive.py).",
           "# Do not edit by hand: fix the excerpt or arch-changes.toml and re-derive. One [[build]] per",
           "# (torch release, ROCm variant) that pytorch.org built; torch = \"nightly\" for the nightly channel;",
           "# channel = \"therock\": AMD's multi-arch index, one build per torch series with its [device-*] extras.",
           "schema = 1", ""]
    for b in builds:
        out += ["[[build]]", f"channel = {json.dumps(b.channel)}", f"torch = {json.dumps(b.torch)}",
                f"rocm = {json.dumps(b.rocm)}", f"gfx = {_arr(b.gfx)}", f"pythons = {_arr(b.pythons)}",
                f"source = {json.dumps(b.source)}", f"gfx_source = {json.dumps(b.gfx_source)}"]
        if b.not_credited:
            out.append(f"not_credited = {_arr(b.not_credited)}")
        if b.extras:
            out.append(f"extras = {_arr(b.extras)}")
        for k, v in sorted(b.companions.items()):
            out.append(f"{k} = {json.dumps(v)}")
        out.append("")
    if epochs:
        out += ["# Dated nightlies (X.Y.Z.devYYYYMMDD+rocmA.B): the list of the nightlies built in [since, until)",
                "# (until \"\" = still current), the same replay cut at each merge date instead of a branch cut.", ""]
    for e in epochs or []:
        out += ["[[nightly_epoch]]", f"rocm = {json.dumps(e.rocm)}", f"since = {json.dumps(e.since)}",
                f"until = {json.dumps(e.until)}", f"gfx = {_arr(e.gfx)}", f"uncertain = {_arr(e.uncertain)}",
                f"gfx_source = {json.dumps(e.gfx_source)}", ""]
    if families:
        out += ["# TheRock's per-family indexes (rocm.nightlies.amd.com/v2/<family>/, frozen): the targets of each.",
                ""]
    for f in families or []:
        out += ["[[therock_family]]", f"name = {json.dumps(f.name)}", f"gfx = {_arr(f.gfx)}",
                f"source = {json.dumps(f.source)}", ""]
    return "\n".join(out)


def derive_text(root: Optional[Path] = None) -> str:
    from rocmdoctor.paths import MATRICES_DIR

    src = load_sources(root or Path(MATRICES_DIR) / "upstream")
    builds = derive(src)
    return render(builds, nightly_epochs(src, builds), therock_families(src))


def make_diff(old: str, new: str, path: str = "matrices/torch.toml") -> str:
    """Unified diff (a/ b/ prefixes, `patch -p1` ready); empty when nothing changed."""
    return "".join(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                        fromfile=f"a/{path}", tofile=f"b/{path}"))
