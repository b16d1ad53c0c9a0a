"""Every bound on input from another machine or person, in one place (data, not scattered constants).

A bundle attached to a bug report, a fleet node's reply and a host file are hostile until proven
otherwise: each is bounded in bytes, names, links, lines, depth and expansion before it costs memory or
time. A violation is a :class:`LimitExceeded` (exit 2) whose message names the limit and its value, so
a user whose legitimate input is too large knows exactly what was refused and why. Limits whose comment says
"cut" or "kept" are not refusals: what lies beyond them is left out (and noted where a user could miss it).
"""

from __future__ import annotations

from rocmdoctor.errors import BadInput

MiB = 1024 * 1024

LIMITS: dict[str, int] = {
    # archives (bundles on disk and fleet replies alike)
    "tar-header-bytes": 64 * 1024,  # one pax / GNU long-name or long-link header (real ones: < 1 KiB)
    "name-bytes": 4096,  # one member name (PATH_MAX)
    "names-total-bytes": 4 * MiB,  # all member names together
    "members": 20_000,  # tar members / directory entries walked
    "links": 2_000,  # hard + symbolic links in one bundle
    "depth": 64,  # path components of one member / nesting of a bundle directory
    "bundle-bytes": 96 * MiB,  # decompressed bytes of the whole archive, including what is skipped
    "file-bytes": 16 * MiB,  # one file is read up to this; the rest is cut (and noted), never refused
    "file-lines": 200_000,  # one file's text is cut after this many lines (and noted)
    "reply-bytes": 64 * MiB,  # compressed bytes one fleet node may send
    "manifest-errors": 50,  # capture errors kept, copied from a bundle's manifest.json into the notes
    # text (parsers cut what is beyond these; nothing is refused)
    "text-chars": 16 * MiB,  # characters of one input a parser looks at
    "line-chars": 4096,  # characters of one line a parser looks at (no real tool output has longer lines)
    # host model, cut (a real node has a few dozen GPU agents; thousands would only make every check slow)
    "gpus": 256,  # GPU records kept per source (bundle) and per health file group (parse.health)
    "text-gpus": 16,  # GPUs taken from free text when no enumeration source listed any
    "bad-page-rows": 1_000_000,  # rows of gpu_vram_bad_pages counted (capture caps the file at 2 MiB)
    "dmesg-lines": 400,  # amdgpu/kfd related dmesg lines kept (the last ones)
    "live-items": 256,  # device holders / containers kept from the live-facts document
    # host lists
    "hosts": 100_000,  # hosts after expanding every range of the whole list (command line + files)
    "host-range-groups": 16,  # bracket groups in one host pattern: node[1-4]-gpu[0-7] has 2
}


class LimitExceeded(BadInput):
    """Input larger than one of :data:`LIMITS`: exit 2, with the limit's name in the message."""

    def __init__(self, limit: str, what: str) -> None:
        self.limit = limit
        super().__init__(f"{what}: refused, over the limit {limit} = {LIMITS[limit]:,}")


def limit(name: str) -> int:
    return LIMITS[name]
