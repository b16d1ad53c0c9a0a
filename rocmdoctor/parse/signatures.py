"""The known-error signature table (``rocmdoctor/data/signatures.toml``), read and typed in ONE place.

``check`` (rocmdoctor.judge.logs), the log scanner (rocmdoctor.parse.logs) and ``smoke`` all read the table
through :func:`load_signatures`, so a title, an explanation or a fix cannot differ between them (two loaders
did drift: issue 15). The table is parsed (the shipped one's parse may come from rocmdoctor.datacache), and
every row validated and its regex compiled, once per process; a row that cannot be used (no id, finding or
pattern, a pattern that does not compile, an unknown severity) is reported in :data:`LOAD_ERRORS` when the
table is loaded (the bundle reader shows them as parse notes), never raised — from a cached parse as well.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any, Optional

from rocmdoctor import datacache
from rocmdoctor.model import Fix, Severity
from rocmdoctor.parse import needles
from rocmdoctor.paths import DATA_DIR

SIGNATURES_FILE = DATA_DIR / "signatures.toml"
LOAD_ERRORS: list[str] = []  # why (part of) the table could not be used; bundle/ turns these into notes


class Placeholders(dict):  # type: ignore[type-arg]
    """``str.format_map`` values where a missing ``{key}`` stays ``{key}`` instead of raising."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


@dataclass(frozen=True)
class Signature:
    """One row of the table: a regex over log lines and the finding it stands for.

    ``title``, ``explanation``, ``fix`` and ``commands`` may hold ``{group}`` placeholders, filled from the
    named groups of a match (:meth:`filled`, :meth:`fix_for`)."""

    id: str
    finding: str  # the finding id a check reports (several signatures may share one)
    regex: str
    title: str
    severity: Severity = Severity.FAIL
    fix: str = ""  # what to do (the Fix text)
    explanation: str = ""  # why it happens (the finding's detail)
    commands: tuple[str, ...] = ()  # exact commands to try
    url: Optional[str] = None
    source: str = ""  # where the message was seen (a thread URL or a capture)
    example: str = ""  # a line as it appears in the cited source
    wsl_severity: Optional[Severity] = None  # the severity under WSL, where the message is expected
    wsl_note: str = ""  # why, shown as the explanation there
    # on native Windows (no amdgpu module, no /dev/kfd, no WSL wheels): the explanation and the fix there
    windows_note: str = ""
    windows_fix: str = ""
    windows_commands: tuple[str, ...] = ()
    windows_url: Optional[str] = None
    flags: int = 0
    # a catch-all ("Fatal error during GPU init"): when a more specific signature of the same finding matched
    # too, its lines become that one's evidence instead of a second finding with the generic fix
    generic: bool = False
    # the severity on a host whose only GPUs are integrated ones (ollama dropping the iGPU is then the problem)
    severity_igpu_only: Optional[Severity] = None
    # signatures whose presence shows this line is not the host's own output (information then, with the note)
    not_here_if: tuple[str, ...] = ()
    not_here_note: str = ""
    # the GPU targets on which the line means something else (information then, with the note): Composable
    # Kernel's XDL ops reject a problem's shape on gfx908+, but every problem on a GPU without matrix cores
    fine_on_gfx: tuple[str, ...] = ()
    fine_on_gfx_note: str = ""
    # False where the line is no missing code object an ISA override could supply (a library's own architecture table
    # lacking the GPU's whole family): gpu.override-needed then does not read it as a run without the override
    override_helps: bool = True
    # a regex: a match whose line also holds it is no match ("torch==2.5.1+rocm6.2" beside --extra-index-url pins the
    # ROCm build itself). Checked per match, after the pattern, so the pattern keeps its literal start (fast search)
    unless_line: str = ""
    # True where the match's ``gfx`` group is the target a program builds for (``TRITON_OVERRIDE_ARCH=gfx1200``): a
    # problem only beside a known GPU of another target, neither its own ISA nor its override's (bundle.merge drops
    # the match otherwise)
    other_gfx_only: bool = False
    # context facts (Host.context keys) beside which the line is the failure itself, whatever ``severity`` says: AMD's
    # GPU operator loading its own amdgpu ("kmm-amdgpu") makes HIP's rejected memory query its driver not in use
    fail_beside: tuple[str, ...] = ()
    # context facts beside which a warning is information: the report says its program works ("works-said",
    # "gpu-run-ok"), so the line is a fallback the run got past (hipBLASLt's lazy library, mudler/LocalAI#10660);
    # the judge keeps the warning where a line of the report shows a run failing
    fine_beside: tuple[str, ...] = ()
    # facts of the report beside which the line is information, failing or not, with ``moot_note`` as its detail:
    # Host.context keys (the report says the AMD card is gone, "amd-removed": a program's search for it met a
    # leftover driver, ollama#2392) and facts the judge reads from the host ("ras-uncorrectable-logged": amdgpu
    # logged an uncorrectable RAS error; "container-started-without-kfd": the report's container has no /dev/kfd)
    moot_beside: tuple[str, ...] = ()
    moot_note: str = ""

    @cached_property
    def unless(self) -> Optional[re.Pattern[str]]:
        """``unless_line`` compiled (None when the row has none)."""
        return re.compile(self.unless_line) if self.unless_line else None

    @cached_property
    def pattern(self) -> re.Pattern[str]:
        """Compiled on first use: the scan's literal prefilter runs a pattern only when its needle is in the
        text, so a paste costs the compile of the few signatures it can match, not of all ~130 (~70 ms)."""
        return re.compile(self.regex, self.flags)

    @property
    def groups(self) -> tuple[str, ...]:
        """The pattern's named groups."""
        return tuple(self.pattern.groupindex)

    def filled(self, groups: dict[str, str]) -> Signature:
        """This signature with ``{group}`` placeholders in its title, explanation and commands filled from a
        match's named groups (one a match lacks stays as written)."""
        fmt = Placeholders(groups)
        return replace(self, title=self.title.format_map(fmt), explanation=self.explanation.format_map(fmt),
                       commands=tuple(c.format_map(fmt) for c in self.commands))

    def fix_for(self, groups: dict[str, str], wsl: bool = False, windows: bool = False) -> Optional[Fix]:
        """The fix a finding for a match shows (placeholders filled; None when the row names none). WSL has no
        amdgpu module to load: a ``modprobe`` command is never offered there; native Windows gets its own fix
        where the row has one."""
        fmt = Placeholders(groups)
        if windows and self.windows_fix:
            return Fix(self.windows_fix.format_map(fmt), [c.format_map(fmt) for c in self.windows_commands],
                       self.windows_url)
        if not (self.fix or self.commands):
            return None
        commands = [c.format_map(fmt) for c in self.commands]
        if wsl:
            commands = [c for c in commands if "modprobe" not in c]
        return Fix(self.fix.format_map(fmt), commands, self.url)


def _text(item: dict[str, Any], key: str, default: str = "") -> str:
    value = item.get(key, default)
    return value if isinstance(value, str) else str(value)


def _required(item: dict[str, Any], key: str) -> str:
    value = item.get(key)
    if not isinstance(value, str) or not value:
        raise ValueError(f"no {key}")
    return value


def _row(item: Any, compiled: bool = True) -> Signature:
    """One typed row; ValueError (with the reason) for a row that cannot be used. ``compiled=False`` skips the
    compile check: only for the shipped table when its cached needles prove every pattern compiled."""
    if not isinstance(item, dict):
        raise ValueError("not a table")
    sig_id, finding, rx = _required(item, "id"), _required(item, "finding"), _required(item, "pattern")
    # ignorecase = true: the emitting program varies its case ("Permission denied" / "permission denied")
    flags = re.IGNORECASE if item.get("ignorecase") is True else 0
    unless = _text(item, "unless_line")
    if compiled:
        try:
            re.compile(rx, flags)
            re.compile(unless)
        except (re.error, OverflowError, RecursionError) as exc:
            raise ValueError(f"pattern does not compile: {exc}") from None
    severity = _text(item, "severity", "fail").lower()
    if severity not in Severity._value2member_map_:
        raise ValueError(f"unknown severity {severity!r}")
    commands = item.get("commands", ())
    if not isinstance(commands, (list, tuple)):
        raise ValueError("commands is not a list")
    url = item.get("url")
    wsl_severity = item.get("wsl_severity")
    if wsl_severity is not None and wsl_severity not in ("ok", "info", "warn", "fail"):
        raise ValueError(f"unknown wsl_severity {wsl_severity!r}")
    igpu_only = item.get("severity_igpu_only")
    if igpu_only is not None and igpu_only not in ("info", "warn", "fail"):
        raise ValueError(f"unknown severity_igpu_only {igpu_only!r}")
    return Signature(id=sig_id, finding=finding, regex=rx, title=_text(item, "title", sig_id),
                     severity=Severity(severity), fix=_text(item, "fix"), explanation=_text(item, "explanation"),
                     commands=tuple(str(c) for c in commands), url=str(url) if url is not None else None,
                     source=_text(item, "source"), example=_text(item, "example"),
                     wsl_severity=Severity(wsl_severity) if wsl_severity is not None else None,
                     wsl_note=_text(item, "wsl_note"), flags=flags, generic=item.get("generic") is True,
                     severity_igpu_only=Severity(igpu_only) if igpu_only is not None else None,
                     not_here_if=tuple(str(x) for x in item.get("not_here_if", ()) if isinstance(x, str)),
                     not_here_note=_text(item, "not_here_note"),
                     windows_note=_text(item, "windows_note"), windows_fix=_text(item, "windows_fix"),
                     windows_commands=tuple(str(c) for c in item.get("windows_commands", ()) if isinstance(c, str)),
                     windows_url=_text(item, "windows_url") or None,
                     fine_on_gfx=tuple(str(x) for x in item.get("fine_on_gfx", ()) if isinstance(x, str)),
                     override_helps=item.get("override_helps") is not False, unless_line=unless,
                     fine_on_gfx_note=_text(item, "fine_on_gfx_note"),
                     other_gfx_only=item.get("other_gfx_only") is True,
                     fail_beside=tuple(str(x) for x in item.get("fail_beside", ()) if isinstance(x, str)),
                     fine_beside=tuple(str(x) for x in item.get("fine_beside", ()) if isinstance(x, str)),
                     moot_beside=tuple(str(x) for x in item.get("moot_beside", ()) if isinstance(x, str)),
                     moot_note=_text(item, "moot_note"))


def load_signatures(path: Optional[str] = None) -> tuple[Signature, ...]:
    """The signature table in file order, read and compiled once per process (and per ``path``: tests load
    broken tables). A row that cannot be used is skipped and reported in :data:`LOAD_ERRORS`, never raised."""
    return _load(str(path or SIGNATURES_FILE))


def by_id(path: Optional[str] = None) -> Mapping[str, Signature]:
    """The table keyed by signature id (the first row of an id wins)."""
    return _by_id(str(path or SIGNATURES_FILE))


_TITLES: dict[str, Mapping[str, str]] = {}  # per table path: its [titles], read with its rows


def finding_titles(path: Optional[str] = None) -> Mapping[str, str]:
    """Each finding id's title from the table's ``[titles]`` (the check's name in ``--list-checks`` and in
    docs/checks.md); a signature's own ``title`` words one match, placeholders filled."""
    load_signatures(path)
    return _TITLES.get(str(path or SIGNATURES_FILE), MappingProxyType({}))


@lru_cache(maxsize=4)
def _load(path: str) -> tuple[Signature, ...]:
    try:  # the shipped table's parse comes from the data-only cache when a trusted one matches the file
        shipped = path == str(SIGNATURES_FILE)
        data = datacache.cached_table("signatures", SIGNATURES_FILE) if shipped else datacache.parse_toml(Path(path))
    except (OSError, ValueError) as exc:
        LOAD_ERRORS.append(f"signature table unreadable: {exc}")
        return ()
    rows = data.get("signature", [])
    titles = data.get("titles", {})
    _TITLES[path] = MappingProxyType({k: v for k, v in titles.items() if isinstance(k, str) and isinstance(v, str)}
                                     if isinstance(titles, dict) else {})
    out = []
    # the shipped table's patterns were compiled when its needles were cached (same table, same code): a fresh
    # cache entry proves they compile, so they are compiled lazily, on first use
    known = _cached_needles() if shipped else None
    proven = known is not None
    for item in rows if isinstance(rows, list) else []:
        try:
            out.append(_row(item, compiled=not proven))
        except ValueError as exc:
            name = item.get("id", "?") if isinstance(item, dict) else "?"
            LOAD_ERRORS.append(f"signature {name!r} skipped: {exc}")
    if shipped:
        _know_needles(out, known)
    return tuple(out)


_NEEDLE_INPUTS = [SIGNATURES_FILE, Path(needles.__file__), Path(__file__)]


def _cached_needles() -> Optional[list[Any]]:
    """The trusted needle cache of the shipped table and this code, when one exists (nothing computed)."""
    data = datacache.peek("signature-needles", _NEEDLE_INPUTS, _needle_entries)
    return data if isinstance(data, list) else None


def _know_needles(rows: list[Signature], known: Optional[list[Any]] = None) -> None:
    """The scan's prefilter literals (rocmdoctor.parse.needles) of the shipped patterns, from the data-only
    cache when a trusted one matches the table and the code: parsing ~100 patterns again costs ~5 ms a run."""
    entries = known if known is not None else datacache.cached(
        "signature-needles", _NEEDLE_INPUTS,
        lambda: [[s.pattern.pattern, s.pattern.flags, needles.pattern_needles(s.pattern)] for s in rows],
        _needle_entries)
    for rx, flags, found in entries:
        needles.KNOWN[(rx, flags)] = None if found is None else tuple(found)


def _needle_entries(data: Any) -> bool:
    """A cached needle list has the shape we write: [pattern, flags, [literal, ...] or null] rows."""
    return isinstance(data, list) and all(
        isinstance(e, list) and len(e) == 3 and isinstance(e[0], str) and type(e[1]) is int
        and (e[2] is None or (isinstance(e[2], list) and all(isinstance(n, str) and n for n in e[2])))
        for e in data)


@lru_cache(maxsize=4)
def _by_id(path: str) -> Mapping[str, Signature]:
    out: dict[str, Signature] = {}
    for sig in _load(path):
        out.setdefault(sig.id, sig)
    return MappingProxyType(out)  # shared by every caller: read-only


def signature(sig_id: str) -> Optional[Signature]:
    """Look a signature up by id (checks and smoke use this for the title, explanation and fix)."""
    return by_id().get(sig_id)
