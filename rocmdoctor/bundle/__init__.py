"""Capture bundles in, one :class:`~rocmdoctor.model.Host` out: the public face of the bundle layer.

The work is done in submodules named for what they hold: :mod:`.archive` (safe, bounded reading of a
directory, tar or pasted file), :mod:`.tarstream` (the bounded tar reader), :mod:`.handlers` (one handler per
kind of output, chosen from tables), :mod:`.sysfs` (GPUs from ``root/sys``), :mod:`.layout` (which file of a
bundle goes to which handler), :mod:`.text` (free-text facts, folded in last), :mod:`.merge` (the one
priority table deciding which source of a fact wins) and :mod:`.load` (:func:`load_host`). This module only
re-exports; submodules never import it.
"""

from __future__ import annotations

from rocmdoctor.bundle.load import load_host

__all__ = ["load_host"]
