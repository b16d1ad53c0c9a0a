"""The shared requests session: retries on transient answers, proxies from the environment (real local
HTTP servers on 127.0.0.1, one of them acting as the proxy)."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from rocmdoctor.http import session


def serve(handler_cls):
    srv = ThreadingHTTPServer(("127.0.0.1", 0), handler_cls)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


def test_retries_503_then_succeeds():
    hits = []

    class H(BaseHTTPRequestHandler):
        def do_GET(self):
            hits.append(self.path)
            code = 503 if len(hits) < 3 else 200
            self.send_response(code)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *a):
            pass

    srv = serve(H)
    try:
        r = session(backoff=0.01).get(f"http://127.0.0.1:{srv.server_port}/simple/torch/", timeout=5)
        assert r.status_code == 200 and len(hits) == 3
    finally:
        srv.shutdown()


def test_404_is_an_answer_not_retried():
    hits = []

    class H(BaseHTTPRequestHandler):
        def do_GET(self):
            hits.append(1)
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *a):
            pass

    srv = serve(H)
    try:
        assert session(backoff=0.01).get(f"http://127.0.0.1:{srv.server_port}/x/", timeout=5).status_code == 404
        assert len(hits) == 1
    finally:
        srv.shutdown()


def test_proxy_from_the_environment_is_used(monkeypatch):
    seen = []

    class Proxy(BaseHTTPRequestHandler):
        def do_GET(self):
            seen.append(self.path)  # absolute-form request line: the client talks to a proxy
            self.send_response(200)
            self.send_header("Content-Length", "5")
            self.end_headers()
            self.wfile.write(b"proxy")

        def log_message(self, *a):
            pass

    srv = serve(Proxy)
    try:
        monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{srv.server_port}")
        monkeypatch.delenv("NO_PROXY", raising=False)
        monkeypatch.delenv("no_proxy", raising=False)
        r = session().get("http://download.pytorch.invalid/whl/rocm6.2/torch/", timeout=5)
        assert r.text == "proxy" and seen == ["http://download.pytorch.invalid/whl/rocm6.2/torch/"]
    finally:
        srv.shutdown()


def test_matrix_update_fetcher_uses_it():
    pytest.importorskip("requests")
    from requests.adapters import HTTPAdapter

    from rocmdoctor.matrix.update import Fetcher

    adapter = Fetcher(5.0).session.get_adapter("https://download.pytorch.org/")
    assert isinstance(adapter, HTTPAdapter) and adapter.max_retries.total == 3


def test_installer_index_pages_go_through_it_with_retries_and_a_size_bound(monkeypatch):
    """The installer's index queries (hash lock, source verification) use the same session: a busy index that
    answers 503 twice still yields the page, and a page over the bound is refused, not read whole."""
    from rocmdoctor.install import index as installer

    hits = []
    page = (b'<html><body><a href="torch-2.5.1%2Brocm6.2-cp311-cp311-linux_x86_64.whl#sha256=' + b"ab" * 32
            + b'">torch-2.5.1+rocm6.2-cp311-cp311-linux_x86_64.whl</a></body></html>')

    class H(BaseHTTPRequestHandler):
        def do_GET(self):
            hits.append(self.path)
            code = 503 if len(hits) < 3 else 200
            body = page if code == 200 else b""
            self.send_response(code)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *a):
            pass

    srv = serve(H)
    try:
        monkeypatch.setattr("rocmdoctor.http.session.__defaults__", (3, 0.01))
        got = installer.index_hashes(f"http://127.0.0.1:{srv.server_port}/simple", "torch")
        assert got == {"2.5.1+rocm6.2": {"torch-2.5.1+rocm6.2-cp311-cp311-linux_x86_64.whl": "ab" * 32}}
        assert len(hits) == 3
        monkeypatch.setattr(installer, "INDEX_PAGE_MAX_BYTES", 16)
        with pytest.raises(ValueError, match="larger than 16 bytes"):
            installer._fetch(f"http://127.0.0.1:{srv.server_port}/simple/torch/", "text/html")
    finally:
        srv.shutdown()
