"""Open a capture bundle — a directory, a ``.tar.gz`` of one, or one bare pasted file — as a :class:`Host`.

The pipeline of this package in one place: :mod:`.archive` reads the input safely into a tree (bounded,
never extracted), :mod:`.layout` hands each file to its handler (:mod:`.handlers`), :mod:`.text` folds in
the facts found in free text, and :mod:`.merge` picks the best source of every fact by its one priority
table. Only an unusable *path* (missing, unreadable, corrupt or unsafe archive, nothing recognisable)
raises :class:`~rocmdoctor.errors.BadInput` (exit 2).

Standard library only (and :mod:`packaging` for package names, loaded when a package list is read): this is
on the path of ``rocmdoctor check --from``, which must stay fast.
"""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Union

from rocmdoctor.bundle.archive import dir_tree, is_tar, pasted_text, tar_tree
from rocmdoctor.bundle.layout import read_pasted, read_tree
from rocmdoctor.bundle.merge import Acc, finish
from rocmdoctor.bundle.text import fold
from rocmdoctor.errors import BadInput
from rocmdoctor.model import Host


def load_host(path: Union[str, Path]) -> Host:
    """A :class:`Host` from a bundle directory, a ``.tar.gz`` of one, or one bare pasted file.

    Raises :class:`BadInput` (exit 2) for a missing or unreadable path, a corrupt or unsafe archive,
    an empty or binary file, or a directory with nothing rocmdoctor recognises.
    """
    p = Path(path)
    try:
        st = p.stat()
    except FileNotFoundError:
        raise BadInput(f"{path}: no such file or directory") from None
    except OSError as exc:
        raise BadInput(f"{path}: cannot read ({exc.strerror or exc})") from None
    if stat.S_ISDIR(st.st_mode):
        tree = dir_tree(p)
    elif not stat.S_ISREG(st.st_mode):
        raise BadInput(f"{path}: not a regular file or directory")
    elif is_tar(p):
        tree = tar_tree(p)
    else:
        return _from_pasted(p, str(path))
    acc = Acc(str(path))
    read_tree(acc, tree, str(path))
    fold(acc, acc.text)
    return finish(acc, tree.links, tree.notes)


def _from_pasted(path: Path, origin: str) -> Host:
    text, notes = pasted_text(path)
    acc = Acc(origin)
    acc.host.parse_notes.extend(notes)
    if not read_pasted(acc, text, path.name):
        acc.host.parse_notes.append(f"{path.name}: read as free text (no known command output recognised)")
    fold(acc, acc.text)
    return finish(acc, {}, [])
