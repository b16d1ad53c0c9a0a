"""`rocmdoctor matrix update --offline`: re-derive every generated table from matrices/upstream/ and diff it.

The torch build table (derive.py), the PCI chip table (derive_pci.py) and the Windows HIP SDK lists
(derive_windows.py) are independent derivations; this module runs them all so one command (and one review) keeps
every generated file in sync with its pinned sources.
"""

from __future__ import annotations

from pathlib import Path

from rocmdoctor.matrix import derive, derive_pci, derive_windows


def run_offline(write: bool = False) -> tuple[str, str]:
    """(unified diff of the generated tables, summary); ``write`` replaces the files with the derived text."""
    from rocmdoctor.paths import MATRICES_DIR

    diffs, counts = [], []
    for name, text in (("torch_builds.toml", derive.derive_text), ("pci_chips.toml", derive_pci.derive_text),
                       ("windows.toml", derive_windows.derive_text)):
        path = Path(MATRICES_DIR) / name
        old = path.read_text(encoding="utf-8") if path.is_file() else ""
        new = text()
        diff = derive.make_diff(old, new, path=f"matrices/{name}")
        if write and diff:
            tmp = path.with_suffix(".toml.tmp")
            tmp.write_text(new, encoding="utf-8")
            tmp.replace(path)
        diffs.append(diff)
        counts.append(new)
    diff = "".join(diffs)
    state = "in sync" if not diff else ("rewritten" if write else f"{diff.count(chr(10))} diff lines to review")
    return diff, (f"derived {counts[0].count('[[build]]')} torch builds, {counts[1].count('[[chip]]')} PCI chips and "
                  f"{counts[2].count('[[hip_sdk]]')} Windows HIP SDK lists from matrices/upstream/: {state}")
