"""The typed requests of the container commands: what the typer callbacks build from their flags.

One frozen dataclass per concern instead of 17 positional parameters: where the image's plan comes from
(:class:`PlanRequest`) and the rest of the spec's flags (:class:`ContainerOptions`). How a ``--from`` source
or this machine becomes a :class:`~rocmdoctor.model.Host` is passed in as a :data:`HostReader`, so that this
package never reaches up into the CLI (which owns the ``--from`` spelling: paths and fixture names).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

from rocmdoctor.model import Host

HostReader = Callable[[Optional[str]], Host]
"""``--from SOURCE`` (a bundle dir, .tar.gz or fixture name) -> its Host; ``None`` -> this machine, captured."""


@dataclass(frozen=True)
class PlanRequest:
    """Where the image's locked plan comes from: ``--plan``/``--lock`` files, or resolved here for
    ``--from BUNDLE`` or this host (``--torch``, ``--rocm``, ``--python``, ``--with``, ``--index-url``)."""

    plan_file: Optional[str] = None
    lock_file: Optional[str] = None
    source: Optional[str] = None
    torch: Optional[str] = None
    rocm: Optional[str] = None
    python: Optional[str] = None
    with_: tuple[str, ...] = ()  # NAME==VERSION pins, or torchvision / torchaudio by name
    index_url: Optional[str] = None
    self_install: bool = True  # add rocmdoctor==this version: the image's HEALTHCHECK runs it
    no_hashes: bool = False  # version pins only, no hash lock (and so no index needed after the plan)


@dataclass(frozen=True)
class ContainerOptions:
    """Every flag of ``container dockerfile`` / ``apptainer`` that shapes the spec, as given on the command line.

    ``plan.self_install`` doubles as the HEALTHCHECK switch and ``plan.no_hashes`` as the hash switch, so the
    two can never disagree between the plan and the spec."""

    plan: PlanRequest
    base: Optional[str] = None
    apt_pin: tuple[str, ...] = ()  # NAME=VERSION, parsed by inputs.apt_pins
    os_package: tuple[str, ...] = ()
    app_dir: Optional[str] = None
    user: str = "rocm"
    uid: int = 1000
    source_date_epoch: int = 0
