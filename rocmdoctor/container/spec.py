"""The one typed container spec that every renderer (Dockerfile, Apptainer, compose, run flags, CI) reads.

It is built from the install resolver's :class:`~rocmdoctor.install.plan.Plan`, so a container gets exactly the
wheels ``install torch`` would install, hash-locked. Everything a renderer needs is decided here, once:
renderers only format. All collections are tuples in a fixed order so that the same inputs always
render byte-identical files (no dict-order, time or host leaks into the output).

How rocmdoctor gets into the image (for the HEALTHCHECK and ``container test``): as one more locked
wheel, ``rocmdoctor==<this version>`` with its sha256, from the same index as the plan (the CLI adds it
as ``--with rocmdoctor==X``; its dependencies are part of the plan's lock). It is installed from its
own lock file (``rocmdoctor.lock``) in its own layer after torch's, so upgrading rocmdoctor never
reinstalls torch. A wheel built from a checkout works the same way once it is on an index (the tests
serve one from 127.0.0.1). ``--no-healthcheck`` leaves rocmdoctor out entirely.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Optional

from packaging.utils import canonicalize_name

from rocmdoctor import __version__
from rocmdoctor.errors import BadInput
from rocmdoctor.install.plan import Plan, Requirement

VENV = "/opt/venv"
LOCK_DIR = "/opt/rocmdoctor"
LOCK_FILE = "requirements.lock"  # the plan's wheels (torch & co.), written next to the Dockerfile
TOOL_LOCK_FILE = "rocmdoctor.lock"  # rocmdoctor itself: its own layer, so upgrading it never reinstalls torch
SELF = "rocmdoctor"

# Package-manager families, inferred from the base image's name (as hpccm's baseimage does). Data, not ifs.
PKG_FAMILIES: dict[str, dict[str, Any]] = {
    "apt": {
        "python_packages": ["python{py}", "python{py}-venv"],
        "pin": "{name}={version}",
    },
    "dnf": {
        "python_packages": ["python{py}"],
        "pin": "{name}-{version}",
    },
}
DNF_IMAGE_WORDS = ("almalinux", "centos", "rockylinux", "rocky", "rhel", "ubi8", "ubi9", "fedora", "manylinux",
                   "oraclelinux", "azurelinux")

_NAME_RE = re.compile(r"^[a-z0-9]+(?:[._-][a-z0-9]+)*(?::[0-9]+)?(?:/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*$")
_TAG_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$")
_DIGEST_RE = re.compile(r"^sha256:[0-9a-f]{64}$")
_PKG_RE = re.compile(r"^[a-z0-9][a-z0-9+.-]*$")
_APT_VERSION_RE = re.compile(r"^[A-Za-z0-9.+~:_-]+$")
_ENV_KEY_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_USER_RE = re.compile(r"^[a-z_][a-z0-9_-]{0,31}$")
_PY_RE = re.compile(r"^3\.[0-9]{1,2}$")
_HASH_RE = re.compile(r"^[0-9a-f]{64}$")
_REQ_NAME_RE = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$")
_REQ_VERSION_RE = re.compile(r"^[A-Za-z0-9.+!_-]+$")


@dataclass(frozen=True)
class ImageRef:
    """A base image by name, tag and (when known) digest; the tag survives as a label for humans."""

    name: str  # "rocm/dev-ubuntu-22.04", "localhost:5000/x"
    tag: str  # "6.2"
    digest: Optional[str] = None  # "sha256:<64 hex>"

    @property
    def tagged(self) -> str:
        return f"{self.name}:{self.tag}"

    @property
    def ref(self) -> str:
        """What FROM uses: pinned by digest when we have one (the tag is then informational)."""
        return f"{self.tagged}@{self.digest}" if self.digest else self.tagged


def parse_image(text: str) -> ImageRef:
    """Parse ``NAME:TAG[@sha256:HEX]``; refuse ``latest`` and untagged images (not reproducible)."""
    raw = text.strip()
    if not raw or raw.startswith("-") or any(c.isspace() for c in raw):
        raise BadInput(f"--base {text!r}: not an image reference (expected NAME:TAG[@sha256:DIGEST])")
    ref, _, digest = raw.partition("@")
    last = ref.rsplit("/", 1)[-1]
    if ":" in last:
        name, tag = ref.rsplit(":", 1)
    else:
        name, tag = ref, ""
    if not _NAME_RE.match(name):
        raise BadInput(f"--base {text!r}: {name!r} is not a valid image name (lower-case, registry/path)")
    if not tag:
        raise BadInput(
            f"--base {text!r} has no tag: an untagged image means 'latest', which changes under you; "
            "give NAME:TAG (and @sha256:DIGEST to pin it exactly)"
        )
    if tag == "latest":
        raise BadInput(
            f"--base {text!r}: 'latest' is retagged on every release, so builds are not reproducible; "
            "name a version tag such as rocm/dev-ubuntu-22.04:6.2 (and @sha256:DIGEST)"
        )
    if not _TAG_RE.match(tag):
        raise BadInput(f"--base {text!r}: {tag!r} is not a valid tag")
    if digest and not _DIGEST_RE.match(digest):
        raise BadInput(f"--base {text!r}: digest must be sha256: followed by 64 lower-case hex digits")
    return ImageRef(name=name, tag=tag, digest=digest or None)


def pkg_family(image: ImageRef) -> str:
    """apt or dnf, from the image name (rocm/dev-almalinux-8 -> dnf, rocm/dev-ubuntu-22.04 -> apt)."""
    low = image.name.lower()
    return "dnf" if any(w in low for w in DNF_IMAGE_WORDS) else "apt"


def default_base(rocm: str, python: str) -> ImageRef:
    """AMD's dev image for the plan's ROCm series: Ubuntu 22.04 (the series every ROCm 6.x/7.x supports)."""
    del python  # the dev image carries no pinned Python; the venv is built from the OS package
    return ImageRef(name="rocm/dev-ubuntu-22.04", tag=rocm)


@dataclass(frozen=True)
class OsPackage:
    name: str
    version: Optional[str] = None  # None: not pinned (the renderer says why, and lint knows)


@dataclass(frozen=True)
class LockedWheel:
    name: str
    version: str
    sha256: tuple[str, ...]

    def line(self) -> str:
        hashes = "".join(f" \\\n    --hash=sha256:{h}" for h in self.sha256)
        return f"{self.name}=={self.version}{hashes}\n"


# pip's flags for a lock: hash-checked exact closure, or (--no-hashes) pinned versions whose dependencies
# pip resolves at build time.
HASHED_PIP_FLAGS = "--no-cache-dir --require-hashes --only-binary :all: --no-deps"
PINNED_PIP_FLAGS = "--no-cache-dir --only-binary :all:"
NOT_HASHED_NOTE = (
    "NOT hash-locked (written with --no-hashes): the versions are pinned, but pip does not verify the wheels'",
    "contents, and their dependencies are resolved when the image is built. For a reproducible image, make",
    "the lock where the index is reachable (rocmdoctor install torch --dry-run --json --lock requirements.lock",
    "> plan.json) and generate with --plan plan.json --lock requirements.lock.",
)


@dataclass(frozen=True)
class Lock:
    """One requirements file installed in its own layer: with --require-hashes unless ``hashed`` is False."""

    filename: str
    index_url: str
    find_links: tuple[str, ...]  # AMD's flat wheel directories (the plan's ``find_links``)
    wheels: tuple[LockedWheel, ...]
    hashed: bool = True

    @property
    def pip_flags(self) -> str:
        return HASHED_PIP_FLAGS if self.hashed else PINNED_PIP_FLAGS

    def text(self) -> str:
        what = "hash-locked wheels" if self.hashed else "version-pinned wheels, NOT hash-locked"
        head = [
            f"# Generated by rocmdoctor {__version__}: {what}, installed with",
            f"#   pip install {self.pip_flags.replace('--no-cache-dir ', '')} -r " + self.filename,
            *([] if self.hashed else [f"# {line}" for line in NOT_HASHED_NOTE]),
            f"--index-url {self.index_url}",
            *(f"--find-links {u}" for u in self.find_links),
        ]
        return "\n".join(head) + "\n" + "".join(w.line() for w in self.wheels)


@dataclass(frozen=True)
class ContainerSpec:
    """Everything that defines the image; renderers turn it into text and nothing else."""

    base: ImageRef
    family: str  # key of PKG_FAMILIES
    python: str  # "3.11"
    rocm: str
    os_packages: tuple[OsPackage, ...]
    locks: tuple[Lock, ...]  # plan lock first, then rocmdoctor's own
    env: tuple[tuple[str, str], ...]  # runtime ENV from the plan (sorted): HSA_OVERRIDE_GFX_VERSION, ...
    user: str = "rocm"
    uid: int = 1000
    groups: tuple[str, ...] = ("video", "render")  # by name in the image; host gids are added at run time
    app_dir: Optional[str] = None  # build-context path copied to /app last
    healthcheck: tuple[str, ...] = ("rocmdoctor", "smoke", "--level", "1")
    source_date_epoch: int = 0
    plan_json: str = ""  # compact, key-sorted plan: the io.rocmdoctor.plan label
    labels: tuple[tuple[str, str], ...] = field(default_factory=tuple)

    @property
    def python_exe(self) -> str:
        return f"python{self.python}"

    @property
    def unpinned(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.os_packages if p.version is None)

    def os_install_args(self) -> list[str]:
        pin = PKG_FAMILIES[self.family]["pin"]
        return [pin.format(name=p.name, version=p.version) if p.version else p.name for p in self.os_packages]


def _wheel(req: Requirement, hashed: bool = True) -> LockedWheel:
    if not _REQ_NAME_RE.match(req.name or "") or not _REQ_VERSION_RE.match(req.version or ""):
        raise BadInput(f"plan requirement {req.name!r}=={req.version!r}: not a NAME==VERSION pin")
    if not hashed:  # one unhashed line would make pip refuse the hashed ones: none carries a hash
        return LockedWheel(name=req.name, version=req.version, sha256=())
    hashes = tuple(sorted({h.lower().removeprefix("sha256:") for h in req.sha256}))
    if not hashes:
        raise BadInput(
            f"the plan has no sha256 for {req.pin()}: a container installs with --require-hashes, so the "
            "plan must be locked (pass --lock FILE from `rocmdoctor install torch --lock FILE`), or pass "
            "--no-hashes for a version-pinned file that says it is not hash-locked"
        )
    for h in hashes:
        if not _HASH_RE.match(h):
            raise BadInput(f"{req.pin()}: {h!r} is not a sha256 hex digest")
    return LockedWheel(name=req.name, version=req.version, sha256=hashes)


def plan_label(plan: Plan) -> str:
    """The plan as compact, key-sorted JSON (byte-stable), with the hashes that make it exact."""
    d = plan.to_dict()
    d["requirements"] = sorted(d["requirements"], key=str.lower)  # canonical: plan order is not an input
    d["hashes"] = {r.name: sorted(r.sha256) for r in sorted(plan.requirements, key=lambda r: r.name.lower())}
    return label_json(d)


def label_json(obj: Any) -> str:
    """Compact key-sorted JSON whose *string contents* never hold a raw ``"`` or ``\\`` (written as \\u0022 and
    \\u005c, which JSON readers decode back): the text then survives being quoted once more as a Dockerfile
    LABEL word or an Apptainer label, which real parsers (hadolint's) do not read through doubled escapes."""
    def swap(v: Any) -> Any:
        if isinstance(v, str):
            return v.replace("\\", "\ue001").replace('"', "\ue000")
        if isinstance(v, list):
            return [swap(x) for x in v]
        if isinstance(v, dict):
            return {swap(k): swap(x) for k, x in v.items()}
        return v

    text = json.dumps(swap(obj), sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return text.replace("\\ue000", "\\u0022").replace("\\ue001", "\\u005c")


MAX_EPOCH = 253402300799  # 9999-12-31T23:59:59Z: the last second datetime can print


@dataclass(frozen=True)
class SpecOptions:
    """What shapes the image beyond the plan: the base, OS packages, the user, the app, timestamps, and whether
    rocmdoctor (the HEALTHCHECK) and hashes are in. The defaults are the CLI's."""

    base: Optional[str] = None  # NAME:TAG[@sha256:D]; None: AMD's dev image for the plan's ROCm series
    apt_pins: Mapping[str, str] = field(default_factory=dict)  # OS package -> version
    extra_os_packages: tuple[str, ...] = ()
    app_dir: Optional[str] = None  # build-context path copied to /app last
    user: str = "rocm"
    uid: int = 1000
    source_date_epoch: int = 0
    healthcheck: bool = True
    hashed: bool = True  # False: --no-hashes, version pins only (said in every file)


def build_spec(plan: Plan, options: Optional[SpecOptions] = None, **fields: Any) -> ContainerSpec:
    """Turn a locked plan into a spec, refusing anything that would make the image irreproducible.

    ``options`` or, as a shorthand, its fields by keyword (``build_spec(plan, base=..., hashed=False)``).
    ``hashed=False`` (``--no-hashes``) is the one exception, asked for by name: version pins without
    hashes, said in the lock files, the Dockerfile and the image's description label.
    """
    opts = options if options is not None else SpecOptions(**fields)
    plan = _validated(plan, "plan")
    if not _PY_RE.match(plan.python or ""):
        raise BadInput(f"plan python {plan.python!r}: expected X.Y such as 3.11")
    if not 0 <= opts.source_date_epoch <= MAX_EPOCH:
        raise BadInput(f"--source-date-epoch {opts.source_date_epoch}: seconds since 1970 (0 to {MAX_EPOCH})")
    image = parse_image(opts.base) if opts.base else default_base(plan.rocm, plan.python)
    family = pkg_family(image)
    os_packages = _os_packages(plan.python, family, opts)
    _check_user_and_app(opts)
    for key in plan.env:
        if not _ENV_KEY_RE.match(key):
            raise BadInput(f"plan env {key!r}: not an environment variable name")
    return ContainerSpec(
        base=image,
        family=family,
        python=plan.python,
        rocm=plan.rocm,
        os_packages=os_packages,
        locks=_locks(plan, opts),
        env=tuple(sorted(plan.env.items())),
        user=opts.user,
        uid=opts.uid,
        app_dir=opts.app_dir.rstrip("/") if opts.app_dir else None,
        healthcheck=("rocmdoctor", "smoke", "--level", "1") if opts.healthcheck else (),
        source_date_epoch=opts.source_date_epoch,
        plan_json=plan_label(plan),
        labels=_labels(image, plan, opts),
    )


def _os_packages(python: str, family: str, opts: SpecOptions) -> tuple[OsPackage, ...]:
    """The family's Python packages, then --os-package extras, each pinned where --apt-pin names it."""
    pins = dict(opts.apt_pins)
    for name, version in pins.items():
        if not _PKG_RE.match(name) or not _APT_VERSION_RE.match(version):
            raise BadInput(f"--apt-pin {name + '=' + version!r}: not a package name and version")
    names = [p.format(py=python) for p in PKG_FAMILIES[family]["python_packages"]]
    for extra in opts.extra_os_packages:
        if not _PKG_RE.match(extra):
            raise BadInput(f"--os-package {extra!r}: not a package name")
        if extra not in names:
            names.append(extra)
    unknown = sorted(set(pins) - set(names))
    if unknown:
        raise BadInput(f"--apt-pin for {', '.join(unknown)}: not installed by this spec (add --os-package)")
    return tuple(OsPackage(n, pins.get(n)) for n in names)


def _check_user_and_app(opts: SpecOptions) -> None:
    if not _USER_RE.match(opts.user) or opts.user == "root":
        raise BadInput(f"--user {opts.user!r}: need a non-root user name (lower-case letters, digits, -, _)")
    if not 1 <= opts.uid < 2**31 - 1:
        raise BadInput(f"--uid {opts.uid}: must be a positive, non-root uid")
    app = opts.app_dir
    if app is not None and (not app or app.startswith(("-", "/")) or ".." in app.split("/")
                            or any(c.isspace() or c in "\"'\\$`" for c in app)):
        raise BadInput(f"--app {app!r}: must be a relative path inside the build context")


def _locks(plan: Plan, opts: SpecOptions) -> tuple[Lock, ...]:
    """The plan's wheels, then rocmdoctor's own in a second lock (its own layer), from the plan's index."""
    reqs = sorted(plan.requirements, key=lambda r: canonicalize_name(r.name))
    main = tuple(_wheel(r, opts.hashed) for r in reqs if canonicalize_name(r.name) != SELF)
    tool = tuple(_wheel(r, opts.hashed) for r in reqs if canonicalize_name(r.name) == SELF)
    if opts.healthcheck and not tool:
        raise BadInput(
            f"the plan does not include rocmdoctor, which the image's HEALTHCHECK runs: resolve with "
            f"--with rocmdoctor=={__version__} (or pass --no-healthcheck)"
        )
    links = tuple(getattr(plan, "find_links", ()) or ())
    for url in (plan.index_url, *links):
        if not url or url.startswith("-") or any(c.isspace() for c in url):
            raise BadInput(f"plan index {url!r}: missing or malformed")
    locks = [Lock(LOCK_FILE, plan.index_url, links, main, opts.hashed)]
    if tool:
        locks.append(Lock(TOOL_LOCK_FILE, plan.index_url, links, tool, opts.hashed))
    return tuple(locks)


def _labels(image: ImageRef, plan: Plan, opts: SpecOptions) -> tuple[tuple[str, str], ...]:
    labels = (
        ("org.opencontainers.image.base.name", image.tagged),
        ("org.opencontainers.image.base.digest", image.digest or ""),
        ("org.opencontainers.image.created", _iso(opts.source_date_epoch)),
        ("org.opencontainers.image.title", f"ROCm {plan.rocm} PyTorch (Python {plan.python})"),
        ("org.opencontainers.image.description", "Generated by rocmdoctor from a "
         + ("hash-locked" if opts.hashed else "version-pinned (NOT hash-locked)") + " install plan"),
        ("io.rocmdoctor.version", __version__),
    )
    return tuple((k, v) for k, v in labels if v)


def _iso(epoch: int) -> str:
    import datetime as _dt

    return _dt.datetime.fromtimestamp(epoch, tz=_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


# ------------------------------------------------------------------ plans and locks from files


def read_lock(text: str) -> tuple[Optional[str], list[str], dict[str, tuple[str, list[str]]]]:
    """Parse a pip hash lock -> (index url, find-links, {name: (version, sha256s)})."""
    index: Optional[str] = None
    links: list[str] = []
    out: dict[str, tuple[str, list[str]]] = {}
    joined = re.sub(r"\\\r?\n", " ", text)
    for raw in joined.splitlines():
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        words = line.split()
        if words[0] in ("--index-url", "-i") and len(words) > 1:
            index = words[1]
            continue
        if words[0] in ("--find-links", "-f") and len(words) > 1:
            links.append(words[1])
            continue
        if words[0].startswith("-"):
            continue
        m = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;]+)$", words[0])
        if not m:
            raise BadInput(f"lock line {raw.strip()[:80]!r}: expected NAME==VERSION --hash=sha256:HEX")
        hashes = [w.split("=", 1)[1].removeprefix("sha256:") for w in words[1:] if w.startswith("--hash=")]
        out[m.group(1)] = (m.group(2), hashes)
    return index, links, out


def plan_from_json(data: Any, lock_text: Optional[str] = None) -> Plan:
    """A Plan from ``install torch --json`` output (``rocmdoctor-plan/1``), hashes merged in from its lock."""
    if isinstance(data, dict) and isinstance(data.get("plan"), dict):
        data = data["plan"]
    if not isinstance(data, dict) or not isinstance(data.get("requirements"), list) or data.get("refused"):
        raise BadInput("plan file: expected a rocmdoctor-plan/1 JSON object with 'requirements' (not a refusal)")
    try:
        plan = Plan.from_dict(data)
    except (AttributeError, TypeError, ValueError) as exc:
        raise BadInput(f"plan file: malformed ({exc})") from None
    hashes: dict[str, list[str]] = {}
    if isinstance(data.get("hashes"), dict):  # our own io.rocmdoctor.plan label carries them
        hashes = {canonicalize_name(str(k)): [str(h) for h in v]
                  for k, v in data["hashes"].items() if isinstance(v, list)}
    if lock_text is not None:
        lock_index, links, locked = read_lock(lock_text)
        plan.index_url = plan.index_url or (lock_index or "")
        plan.find_links = plan.find_links or list(links)
        have = {canonicalize_name(r.name) for r in plan.requirements}
        for name, (version, hs) in locked.items():
            hashes[canonicalize_name(name)] = hs
            # the lock is the full closure: its extra pins belong in the image
            if canonicalize_name(name) not in have:
                plan.requirements.append(Requirement(name=name, version=version))
    for req in plan.requirements:
        if not req.name or not req.version:
            raise BadInput(f"plan requirement {req.pin()!r}: expected NAME==VERSION")
        req.sha256 = list(req.sha256) or hashes.get(canonicalize_name(req.name), [])
    return _validated(plan, "plan file")


def _validated(plan: Plan, what: str) -> Plan:
    try:
        return plan.validate()
    except ValueError as exc:
        raise BadInput(f"{what}: malformed ({exc})") from None


def plan_from_lock(lock_text: str, python: str, rocm: str, env: Optional[dict[str, str]] = None) -> Plan:
    """A Plan from a hash lock alone (what ``install --lock`` writes)."""
    index, links, locked = read_lock(lock_text)
    if not locked:
        raise BadInput("lock file: no NAME==VERSION lines")
    reqs = [Requirement(name=n, version=v, sha256=list(h)) for n, (v, h) in locked.items()]
    return _validated(Plan(index_url=index or "", requirements=reqs, python=python, rocm=rocm, env=dict(env or {}),
                           find_links=list(links)), "lock file")
