"""`rocmdoctor matrix show|explain|update` through the real CLI, and `update` against a real local index."""

from __future__ import annotations

import json
import re
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import quote

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from rocmdoctor.cli.app import app
from rocmdoctor.matrix.update import parse_index_page, propose, scan_names

REPO = Path(__file__).resolve().parent.parent
WHEEL_NAMES = REPO.parent / "shared" / "captures" / "_wheel_names.txt"
runner = CliRunner()


def _run(*args: str):
    return runner.invoke(app, list(args))


def test_show_json_is_versioned_and_filtered():
    r = _run("matrix", "show", "--gpu", "0x744c", "--torch", "2.5", "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["schema"] == "rocmdoctor-matrix/1"
    assert [g["gfx"] for g in data["gpus"]] == ["gfx1100"]
    assert {t["rocm"] for t in data["torch"]} == {"6.1", "6.2"}
    assert all(t["torch"].startswith("2.5") for t in data["torch"])


def test_show_tables_by_product_name_and_rocm():
    r = _run("matrix", "show", "--gpu", "RX 7900 XTX", "--rocm", "6.2")
    assert r.exit_code == 0, r.output
    assert "gfx1100" in r.output and "6.2.4" in r.output and "ROCm releases" in r.output


def test_show_rejects_unknown_values_with_exit_2():
    for args in (("--rocm", "9.9"), ("--gpu", "GeForce RTX 4090"), ("--torch", "0.1")):
        r = _run("matrix", "show", *args)
        assert r.exit_code != 0
        assert "Traceback" not in r.output


def test_explain_exit_codes_and_citations():
    ok = _run("matrix", "explain", "--gpu", "gfx1100", "--rocm", "6.2", "--os", "ubuntu 22.04",
              "--kernel", "6.8.0-40-generic")
    assert ok.exit_code == 0, ok.output
    assert "supports gfx1100" in ok.output and "compatibility-matrix-historical-6.0.csv" in ok.output
    bad = _run("matrix", "explain", "--gpu", "RX 6700 XT", "--rocm", "6.2")
    assert bad.exit_code == 1
    assert "HSA_OVERRIDE_GFX_VERSION=10.3.0" in bad.output
    gone = _run("matrix", "explain", "--gpu", "MI50", "--rocm", "7.0", "--json")
    assert gone.exit_code == 1
    body = json.loads(gone.output)
    assert body["works"] is False and any("no longer supports gfx906" in s for s in body["explanation"])
    dkms = _run("matrix", "explain", "--gpu", "gfx1100", "--rocm", "6.0.2", "--os", "ubuntu 22.04",
                "--kernel", "6.5.0-17-generic")
    assert dkms.exit_code == 1 and "issues/2886" in dkms.output


# ---- matrix update against a real HTTP server on 127.0.0.1 -----------------------------------------

def _wheel_names() -> list[str]:
    names = []
    for line in WHEEL_NAMES.read_text(encoding="utf-8").splitlines():
        first = line.split()[0] if line.strip() and not line.startswith("#") else ""
        if first.endswith(".whl"):
            names.append(first.rsplit("/", 1)[-1].replace("%2B", "+"))
    return names


def _build_index(root: Path) -> None:
    """A download.pytorch.org-like tree: /whl/ lists rocm variants; each has PEP 503 project pages.

    Names come from ../shared/captures/_wheel_names.txt plus names built from the installers.md table
    (torch 2.5.1+rocm6.2 / 2.5.1+rocm6.1, and a release the matrix does not know yet).
    """
    wheels: dict[str, dict[str, list[str]]] = {}
    for n in _wheel_names():  # the capture's repo.radeon.com names carry +rocm6.2.3
        wheels.setdefault("6.2.3", {}).setdefault(n.split("-")[0].replace("_", "-"), []).append(n)
    for rocm in ("6.1", "6.2"):
        for py in ("39", "310", "311", "312"):
            wheels.setdefault(rocm, {}).setdefault("torch", []).append(
                f"torch-2.5.1+rocm{rocm}-cp{py}-cp{py}-linux_x86_64.whl")
        wheels[rocm].setdefault("pytorch-triton-rocm", []).append(
            "pytorch_triton_rocm-3.1.0-cp312-cp312-linux_x86_64.whl")
    for py in ("310", "313"):  # a future release: must be proposed as a new row
        wheels["6.2"]["torch"].append(f"torch-2.99.0+rocm6.2-cp{py}-cp{py}-manylinux_2_28_x86_64.whl")
    wheels["6.1"]["torch"].append("torch-2.99.0+rocm6.1-cp311-cp311-manylinux_2_28_x86_64.whl")  # JSON-only page
    wheels["6.2"]["torch"].append("torch-2.99.0.dev20250101+rocm6.2-cp312-cp312-linux_x86_64.whl")  # skipped
    wheels["6.2"]["torch"].append("not-a-wheel.tar.gz")
    (root / "whl").mkdir(parents=True)
    (root / "whl" / "index.html").write_text(
        "<html><body>" + "".join(f'<a href="rocm{r}/">rocm{r}</a>' for r in wheels) + "</body></html>")
    for rocm, pkgs in wheels.items():
        for pkg, files in pkgs.items():
            d = root / "whl" / f"rocm{rocm}" / pkg
            d.mkdir(parents=True)
            links = []
            for f in files:
                meta = ' data-core-metadata="true"' if f.startswith("torch-2.99.0+") else ""
                links.append(f'<a href="/files/{quote(f)}#sha256=00"{meta}>{f}</a><br/>')
                if meta:
                    (root / "files").mkdir(exist_ok=True)
                    (root / "files" / (f + ".metadata")).write_text(
                        "Metadata-Version: 2.1\nName: torch\nVersion: 2.99.0+rocm6.2\n"
                        "Requires-Dist: triton-rocm==3.9.0; platform_system == \"Linux\"\n")
            if rocm == "6.1" and pkg == "torch":  # this page only speaks PEP 691 JSON
                (d / "index.json").write_text(json.dumps({"meta": {"api-version": "1.0"}, "name": pkg, "files": [
                    {"filename": f, "url": f"/files/{quote(f)}", "hashes": {}} for f in files]}))
                continue
            (d / "index.html").write_text("<html><body>" + "".join(links) + "</body></html>")


@pytest.fixture(scope="module")
def index_server(tmp_path_factory):
    root = tmp_path_factory.mktemp("index")
    _build_index(root)

    class Quiet(SimpleHTTPRequestHandler):
        """Static files, plus PEP 691 JSON where a directory holds index.json and the client asks for it."""

        def do_GET(self):
            target = root / self.path.split("?")[0].lstrip("/") / "index.json"
            if self.path.endswith("/") and target.is_file() and "pypi.simple.v1+json" in self.headers.get("Accept", ""):
                body = target.read_bytes()
                self.send_response(200)
                self.send_header("Content-Type", "application/vnd.pypi.simple.v1+json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            super().do_GET()

        def log_message(self, *args):  # keep test output clean
            pass

    srv = ThreadingHTTPServer(("127.0.0.1", 0), partial(Quiet, directory=str(root)))
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{srv.server_address[1]}/whl"
    srv.shutdown()
    srv.server_close()


@pytest.mark.skipif(not WHEEL_NAMES.is_file(), reason="../shared/captures not present")
def test_update_writes_a_reviewable_diff(index_server, tmp_path):
    before = (REPO / "matrices" / "torch.toml").read_text(encoding="utf-8")
    out = tmp_path / "torch.diff"
    r = _run("matrix", "update", "--index-url", index_server, "-o", str(out), "--timeout", "5")
    assert r.exit_code == 0, r.output
    diff = out.read_text(encoding="utf-8")
    assert diff.startswith("--- a/matrices/torch.toml\n+++ b/matrices/torch.toml\n")
    added = [line for line in diff.splitlines() if line.startswith("+") and not line.startswith("+++")]
    assert '+torch = "2.99.0"' in added
    assert '+triton_package = "triton-rocm"' in added and '+triton_version = "3.9.0"' in added
    block = diff[diff.index('+torch = "2.99.0"'):].split("+[[wheel]]")[0]
    assert '+rocm = ["6.1", "6.2"]' in block  # rocm6.1 came from the PEP 691 JSON page
    assert '+pythons = ["3.10", "3.11", "3.13"]' in block
    assert not any("dev2025" in line for line in added)
    # 2.5.1 (seen on the JSON-only rocm6.1 page and the HTML rocm6.2 page) already says exactly that: no change
    assert not any(line.startswith(('-torch = "2.5.1"', '+torch = "2.5.1"')) for line in diff.splitlines())
    # the capture's torch-2.3.0+rocm6.2.3 wheel adds a variant to the reviewed 2.3.0 row; nothing is removed
    assert '+rocm = ["5.7", "6.0", "6.2.3"]' in added
    assert not [line for line in diff.splitlines() if line.startswith("-") and not line.startswith("---")
                and not line.startswith(("-rocm = ", "-pythons = "))]
    # the data file itself is untouched
    assert (REPO / "matrices" / "torch.toml").read_text(encoding="utf-8") == before


def test_update_refuses_bad_urls_and_dead_servers():
    r = _run("matrix", "update", "--index-url", "ftp://example.invalid/whl")
    assert r.exit_code != 0 and "Traceback" not in r.output
    r = _run("matrix", "update", "--index-url", "http://127.0.0.1:9/whl", "--timeout", "2")
    assert r.exit_code != 0


def test_pep691_json_pages_are_understood():
    body = json.dumps({"meta": {"api-version": "1.1"}, "files": [
        {"filename": "torch-2.6.0+rocm6.2.4-cp313-cp313-manylinux_2_28_x86_64.whl", "url": "../../f/t.whl",
         "core-metadata": True}, {"filename": 5}]})
    files = parse_index_page(body, "application/vnd.pypi.simple.v1+json", "http://127.0.0.1/whl/rocm6.2.4/torch/")
    assert len(files) == 1 and files[0].has_metadata and files[0].url == "http://127.0.0.1/whl/f/t.whl"
    scan = scan_names("6.2.4", {"torch": files})
    assert scan.torch == {"2.6.0": {"3.13"}}


def test_propose_keeps_unchanged_rows_byte_identical():
    from rocmdoctor.matrix import read_toml
    from rocmdoctor.paths import MATRICES_DIR

    path = Path(MATRICES_DIR) / "torch.toml"
    text = path.read_text(encoding="utf-8")
    assert propose(text, read_toml(path), []) == text


@settings(max_examples=60, deadline=None)
@given(st.text(), st.sampled_from(["text/html", "application/vnd.pypi.simple.v1+json"]))
def test_index_page_parser_never_crashes(body, ctype):
    files = parse_index_page(body, ctype, "http://127.0.0.1/x/")
    scan_names("6.2", {"torch": files})


def test_wheel_name_python_tags():
    scan = scan_names("7.2", {"torch": parse_index_page(
        '<a href="torch-2.11.0%2Brocm7.2-cp314-cp314t-manylinux_2_28_x86_64.whl">x</a>'
        '<a href="torch-2.11.0%2Brocm7.2-cp312-cp312-manylinux_2_28_x86_64.whl"></a>',
        "text/html", "http://127.0.0.1/whl/rocm7.2/torch/")})
    assert scan.torch == {"2.11.0": {"3.14t", "3.12"}}
    assert re.match(r"\d", next(iter(scan.torch)))
