"""What became of one host in a fleet audit: one enum, shared by the transport, the audit and the reports.

Kept in its own module (it imports nothing) so that every fleet module can name a status without importing
the transport. The values are the JSON ``status`` of a host in ``rocmdoctor-fleet/1`` and the suffix of the
``fleet.*`` finding ids, so they never change spelling.
"""

from __future__ import annotations

from enum import Enum


class HostStatus(str, Enum):
    """A host's transport outcome; a ``str`` so that JSON, HTML and comparisons with the old strings agree."""

    OK = "ok"
    UNREACHABLE = "unreachable"
    AUTH_FAILED = "auth-failed"
    TIMEOUT = "timeout"
    BAD_CAPTURE = "bad-capture"
    INTERRUPTED = "interrupted"

    def __str__(self) -> str:  # "ok", not "HostStatus.OK", wherever a status is formatted
        return self.value
