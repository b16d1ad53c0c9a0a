"""Real parts for the container tests: a local Debian base image, a wheel of this checkout, a PEP 503 index.

No registry is reachable here, so the base image is made from Debian packages with ``debootstrap`` and
``docker import``ed once; later runs find it by tag and skip the minutes that costs. The wheel index is
served on 127.0.0.1 from a fixed port when that port is free, so that the generated Dockerfile (which
names the index URL) stays byte-identical across test runs and Docker's layer cache keeps the torch
layer between runs too.
"""

from __future__ import annotations

import base64
import hashlib
import http.server
import re
import shutil
import subprocess
import tempfile
import threading
import urllib.parse
import zipfile
from pathlib import Path
from typing import Callable, ClassVar, Optional

REPO = Path(__file__).resolve().parent.parent
BASE_TAG = "rocmdoctor-test-base:bookworm"
BASE_PYTHON = "3.11"
# debootstrap does not follow --include dependencies fully: python3.11-venv needs these named too.
BASE_PACKAGES = ("python3.11", "python3.11-venv", "python3-distutils", "python3-lib2to3", "python3-pip-whl",
                 "python3-setuptools-whl")
# Reproducible zip timestamps (1980-01-01, the zip epoch) for the self-wheel.
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)
# Every image the suite makes carries this label: scripts/test.sh removes the ones a run added.
TEST_LABEL = "io.rocmdoctor.test"
INDEX_PORT = 47613  # fixed so Dockerfiles (and so Docker's cache) are stable across runs; falls back to any


def docker_client():  # -> docker.DockerClient | None
    """A client for the local daemon, or None when it cannot be reached (tests then skip, saying why)."""
    try:
        import docker

        client = docker.from_env(timeout=600)
        client.ping()
        return client
    except Exception:
        return None


def debian_mirror() -> str:
    """The Debian mirror this machine's apt uses (deb822 or one-line sources), else deb.debian.org."""
    for path in sorted(Path("/etc/apt/sources.list.d").glob("*.sources")):
        for line in path.read_text(errors="replace").splitlines():
            m = re.match(r"URIs:\s*(\S+)", line)
            if m and m.group(1).rstrip("/").endswith("/debian"):
                return m.group(1)
    for path in [Path("/etc/apt/sources.list"), *sorted(Path("/etc/apt/sources.list.d").glob("*.list"))]:
        if path.is_file():
            for line in path.read_text(errors="replace").splitlines():
                m = re.match(r"deb\s+(?:\[[^]]*\]\s+)?(\S+/debian)\s+bookworm\b", line)
                if m:
                    return m.group(1)
    return "http://deb.debian.org/debian"


def ensure_base_image(client) -> str:  # client: docker.DockerClient
    """Return the image id of the local Debian base, building it with debootstrap only if missing.

    The image has python3.11 + venv and an empty apt source list, so ``apt-get update`` inside a
    build touches no network and ``apt-get install pkg=<installed version>`` resolves from dpkg's
    status alone: the build uses loopback only.
    """
    import docker

    try:
        return client.images.get(BASE_TAG).id
    except docker.errors.ImageNotFound:
        pass
    if shutil.which("debootstrap") is None:
        raise RuntimeError("debootstrap is not installed (apt-get install -y debootstrap)")
    with tempfile.TemporaryDirectory(prefix="rocmdoctor-base-") as tmp:
        root = Path(tmp) / "root"
        boot = subprocess.run(
            ["debootstrap", "--variant=minbase", "--include=" + ",".join(BASE_PACKAGES),
             "bookworm", str(root), debian_mirror()],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace",
        )
        if boot.returncode != 0:
            tail = [ln for ln in boot.stdout.splitlines() if not ln.startswith("I:")][-5:]
            raise RuntimeError("debootstrap failed: " + " | ".join(tail))
        (root / "etc/apt/sources.list").write_text("# emptied by rocmdoctor's tests: builds stay offline\n")
        for sub in ("var/cache/apt/archives", "var/lib/apt/lists"):
            for f in (root / sub).glob("*"):
                if f.is_file():
                    f.unlink()
        tar = subprocess.Popen(["tar", "-C", str(root), "-c", "."], stdout=subprocess.PIPE)
        assert tar.stdout is not None
        imp = subprocess.run(["docker", "import", "--change", f"LABEL {TEST_LABEL}=1", "-", BASE_TAG],
                             stdin=tar.stdout, capture_output=True)
        tar.stdout.close()
        tar.wait()
        if imp.returncode != 0 or tar.returncode != 0:
            raise RuntimeError(f"docker import failed: {imp.stderr.decode(errors='replace')}")
    return client.images.get(BASE_TAG).id


REGISTRY_PORT = 47614  # a real registry (Debian's docker-registry) on loopback: gives the base a repo digest
REGISTRY_DIR = Path("/var/tmp/rocmdoctor-test-registry")


def _repo_digest(client, repo: str) -> Optional[str]:
    image = client.images.get(BASE_TAG)
    for d in image.attrs.get("RepoDigests") or []:
        if d.startswith(repo + "@"):
            return d.split("@", 1)[1]
    return None


def ensure_base_digest(client) -> Optional[str]:
    """``REPO:TAG@sha256:...`` for the local base, pushed once to a loopback registry to get a real digest.

    A digest reference only resolves locally when the daemon's reference store knows it, which needs
    one push to a registry (an image id is not a manifest digest). After that push the digest stays
    in the daemon, so later runs need neither the registry nor the push. None when no registry binary.
    """
    repo = f"127.0.0.1:{REGISTRY_PORT}/rocmdoctor-test-base"
    ensure_base_image(client)
    digest = _repo_digest(client, repo)
    if digest:
        return f"{repo}:bookworm@{digest}"
    if shutil.which("docker-registry") is None:
        return None
    REGISTRY_DIR.mkdir(parents=True, exist_ok=True)
    config = REGISTRY_DIR / "config.yml"
    config.write_text(
        "version: 0.1\nstorage:\n  filesystem:\n    rootdirectory: " + str(REGISTRY_DIR / "data") + "\n"
        f"http:\n  addr: 127.0.0.1:{REGISTRY_PORT}\n"
    )
    proc = subprocess.Popen(["docker-registry", "serve", str(config)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        import time
        import urllib.request

        for _ in range(100):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{REGISTRY_PORT}/v2/", timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        client.images.get(BASE_TAG).tag(repo, "bookworm")
        for line in client.api.push(repo, tag="bookworm", stream=True, decode=True):
            if "error" in line:
                raise RuntimeError(f"push to the loopback registry failed: {line['error']}")
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    digest = _repo_digest(client, repo)
    return f"{repo}:bookworm@{digest}" if digest else None


def installed_versions(client, image: str, packages: list[str]) -> dict[str, str]:
    """The dpkg versions of ``packages`` in ``image``: the pins a real user would write for this base."""
    fmt = "${Package}=${Version}\\n"
    out = client.containers.run(image, ["dpkg-query", "-W", f"-f={fmt}", *packages], remove=True)
    pins = {}
    for line in out.decode().splitlines():
        name, _, ver = line.partition("=")
        if name and ver:
            pins[name] = ver
    return pins


# ---------------------------------------------------------------------------------------- wheels


def _record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def write_wheel(dest: Path, name: str, version: str, files: dict[str, bytes], metadata_extra: str = "",
                entry_points: str = "") -> Path:
    """Write a real, installable, byte-reproducible wheel (py3-none-any) from ``files``."""
    dist = f"{name.replace('-', '_')}-{version}"
    info = f"{dist}.dist-info"
    members = dict(files)
    members[f"{info}/METADATA"] = (
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n{metadata_extra}"
    ).encode()
    members[f"{info}/WHEEL"] = (
        b"Wheel-Version: 1.0\nGenerator: rocmdoctor-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    )
    if entry_points:
        members[f"{info}/entry_points.txt"] = entry_points.encode()
    record = "".join(f"{p},{_record_hash(d)},{len(d)}\n" for p, d in sorted(members.items()))
    record += f"{info}/RECORD,,\n"
    members[f"{info}/RECORD"] = record.encode()
    dest.mkdir(parents=True, exist_ok=True)
    path = dest / f"{dist}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for p in sorted(members):
            zi = zipfile.ZipInfo(p, _ZIP_TIME)
            zi.external_attr = 0o644 << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(zi, members[p])
    return path


def self_wheel(dest: Path) -> Path:
    """A wheel of this checkout laid out as pyproject maps it (matrices/ inside the package).

    Built by hand rather than with ``pip wheel`` so that it is fast and byte-identical while the sources
    are unchanged (Docker then keeps the layer that installs it) and includes every subpackage present.
    """
    from rocmdoctor import __version__

    files: dict[str, bytes] = {}
    for src, prefix in ((REPO / "rocmdoctor", "rocmdoctor"), (REPO / "matrices", "rocmdoctor/matrices")):
        if not src.is_dir():
            continue
        for f in sorted(src.rglob("*")):
            if f.is_file() and "__pycache__" not in f.parts and f.suffix != ".pyc":
                files[f"{prefix}/{f.relative_to(src).as_posix()}"] = f.read_bytes()
    for pkg in ("rocmdoctor/matrices/__init__.py",):
        files.setdefault(pkg, b"")
    return write_wheel(
        dest, "rocmdoctor", __version__, files,
        metadata_extra="Requires-Python: >=3.9\n",
        entry_points="[console_scripts]\nrocmdoctor = rocmdoctor.cli.app:main\n",
    )


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def wheel_name_version(path: Path) -> tuple[str, str]:
    parts = path.name.split("-")
    return parts[0], parts[1]


# ---------------------------------------------------------------------------------------- index


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


class _IndexHandler(http.server.BaseHTTPRequestHandler):
    wheels: ClassVar[dict[str, list[Path]]] = {}

    def log_message(self, format: str, *args: object) -> None:  # quiet
        pass

    def do_GET(self) -> None:
        parts = [urllib.parse.unquote(p) for p in self.path.split("?")[0].split("/") if p]
        if len(parts) == 2 and parts[0] == "simple":
            files = self.wheels.get(_normalize(parts[1]))
            if files is None:
                self.send_error(404)
                return
            links = "".join(
                f'<a href="/files/{urllib.parse.quote(f.name)}#sha256={sha256_file(f)}">{f.name}</a>\n' for f in files
            )
            body = f"<!DOCTYPE html><html><body>\n{links}</body></html>\n".encode()
            self._send(body, "text/html")
        elif len(parts) == 2 and parts[0] == "files":
            for files in self.wheels.values():
                for f in files:
                    if f.name == parts[1]:
                        self._send(f.read_bytes(), "application/octet-stream")
                        return
            self.send_error(404)
        else:
            self.send_error(404)

    def _send(self, body: bytes, ctype: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def serve_wheels(wheels: list[Path], port: Optional[int] = INDEX_PORT) -> tuple[str, Callable[[], None]]:
    """Serve ``wheels`` as a PEP 503 simple index on 127.0.0.1; returns (index url, stop)."""
    table: dict[str, list[Path]] = {}
    for w in wheels:
        table.setdefault(_normalize(wheel_name_version(w)[0]), []).append(w)
    handler = type("Handler", (_IndexHandler,), {"wheels": table})
    try:
        server = http.server.ThreadingHTTPServer(("127.0.0.1", port or 0), handler)
    except OSError:
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()

    def stop() -> None:
        server.shutdown()
        server.server_close()

    return f"http://127.0.0.1:{server.server_address[1]}/simple", stop


def local_wheel(pattern: str) -> Optional[Path]:
    """A wheel from this machine's on-disk PyPI mirror (/opt/pypi/files, /opt/wheels), newest name first."""
    for d in ("/opt/wheels", "/opt/pypi/files", "/opt/pypi-more/files"):
        found = sorted(Path(d).glob(pattern)) if Path(d).is_dir() else []
        if found:
            return found[-1]
    return None


if __name__ == "__main__":  # `python tests/container_helpers.py` pre-builds the base image (CI warm-up)
    c = docker_client()
    if c is None:
        raise SystemExit("docker daemon not reachable")
    print(ensure_base_image(c))
    print(ensure_base_digest(c))
