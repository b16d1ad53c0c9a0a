"""Headless Chromium driven over the DevTools protocol on a pipe (``--remote-debugging-pipe``), no network.

One :func:`load` opens a page the way a reader would and returns what the tests and the bench need: the DOM
after load, every console message and uncaught exception, every request the page started (there must be
none: the reports are self-contained), navigation timings, a screenshot (light and dark colour scheme), and
the results of expressions evaluated in the page (DevTools evaluation is not bound by the page's CSP, so the
page itself still runs no script). The browser runs with a fresh empty profile, all background networking
off, and a proxy and resolver that go nowhere, so a request that slipped through would fail, not leak.
"""

from __future__ import annotations

import base64
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or (
    "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-default-apps", "--disable-extensions", "--mute-audio", "--no-default-browser-check",
         "--proxy-server=127.0.0.1:9", "--host-resolver-rules=MAP * ~NOTFOUND"]


@dataclass
class PageResult:
    url: str
    dom: str = ""
    console: list[dict[str, Any]] = field(default_factory=list)  # {"level", "text"}
    requests: list[str] = field(default_factory=list)  # every URL the page asked for but its own
    timing: dict[str, float] = field(default_factory=dict)  # ms since navigation start
    evaluated: dict[str, Any] = field(default_factory=dict)
    screenshots: dict[str, Path] = field(default_factory=dict)
    wall_ms: float = 0.0  # navigate -> load event -> two frames painted, as measured from outside

    @property
    def errors(self) -> list[dict[str, Any]]:
        return [m for m in self.console if m["level"] in ("error", "assert", "exception", "warning")]


class _Pipe:
    def __init__(self, proc: subprocess.Popen, to_chrome: int, from_chrome: int) -> None:
        self.proc, self.wfd, self.rfd = proc, to_chrome, from_chrome
        self.buf = b""
        self.next_id = 0
        self.events: list[dict[str, Any]] = []

    def send(self, method: str, params: Optional[dict] = None, session: Optional[str] = None,
             timeout: float = 60.0) -> dict[str, Any]:
        self.next_id += 1
        msg: dict[str, Any] = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.wfd, json.dumps(msg).encode() + b"\0")
        while True:
            m = self.read(timeout)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m.get("result", {})
            self.events.append(m)

    def read(self, timeout: float) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.rfd], [], [], left)[0]:
                raise TimeoutError("chromium did not answer")
            chunk = os.read(self.rfd, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed the DevTools pipe")
            self.buf += chunk
        raw, _, self.buf = self.buf.partition(b"\0")
        return json.loads(raw)

    def wait_event(self, method: str, timeout: float) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        for i, e in enumerate(self.events):
            if e.get("method") == method:
                return self.events.pop(i)
        while True:
            e = self.read(max(0.01, deadline - time.monotonic()))
            if e.get("method") == method:
                return e
            self.events.append(e)


def load(url: str, workdir: Path, expressions: Optional[dict[str, str]] = None, screenshot: Optional[str] = None,
         width: int = 1280, height: int = 1600, timeout: float = 120.0, dark: bool = True) -> PageResult:
    """Open ``url`` in a fresh headless Chromium and report what happened (see the module docstring)."""
    if CHROMIUM is None:
        raise RuntimeError("no chromium")
    workdir.mkdir(parents=True, exist_ok=True)
    profile = tempfile.mkdtemp(prefix="profile-", dir=workdir)
    to_r, to_w = os.pipe()  # chromium reads commands on fd 3
    from_r, from_w = os.pipe()  # and writes answers on fd 4

    def fds() -> None:
        os.dup2(to_r, 3)
        os.dup2(from_w, 4)

    proc = subprocess.Popen([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "--remote-debugging-pipe",
                             "about:blank"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, preexec_fn=fds, pass_fds=(3, 4))
    os.close(to_r)
    os.close(from_w)
    cdp = _Pipe(proc, to_w, from_r)
    res = PageResult(url=url)
    try:
        targets = cdp.send("Target.getTargets")["targetInfos"]
        page = next(t["targetId"] for t in targets if t["type"] == "page")
        s = cdp.send("Target.attachToTarget", {"targetId": page, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            cdp.send(f"{domain}.enable", session=s)
        cdp.send("Emulation.setDeviceMetricsOverride",
                 {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}, session=s)
        cdp.events.clear()
        t0 = time.perf_counter()
        cdp.send("Page.navigate", {"url": url}, session=s, timeout=timeout)
        cdp.wait_event("Page.loadEventFired", timeout)
        painted = "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(performance.now()))))"
        frames = cdp.send("Runtime.evaluate", {"expression": painted, "awaitPromise": True, "returnByValue": True},
                          session=s, timeout=timeout)["result"]["value"]
        res.wall_ms = (time.perf_counter() - t0) * 1000
        nav = _eval(cdp, s, "JSON.stringify(performance.getEntriesByType('navigation')[0] || {})")
        nav = json.loads(nav or "{}")
        paints = json.loads(_eval(cdp, s, "JSON.stringify(performance.getEntriesByType('paint').map("
                                          "p => [p.name, p.startTime]))") or "[]")
        res.timing = {"domContentLoaded": nav.get("domContentLoadedEventEnd", 0.0),
                      "load": nav.get("loadEventEnd", 0.0), "painted": frames, **dict(paints)}
        for name, expr in (expressions or {}).items():
            res.evaluated[name] = _eval(cdp, s, expr)
        res.dom = _eval(cdp, s, "document.documentElement.outerHTML")
        if screenshot:
            for scheme in ("light", "dark") if dark else ("light",):
                cdp.send("Emulation.setEmulatedMedia",
                         {"features": [{"name": "prefers-color-scheme", "value": scheme}]}, session=s)
                res.evaluated[f"background-{scheme}"] = _eval(cdp, s, "getComputedStyle(document.body).backgroundColor")
                shot = cdp.send("Page.captureScreenshot", {"format": "png"}, session=s, timeout=timeout)
                path = workdir / f"{screenshot}-{scheme}.png"
                path.write_bytes(base64.b64decode(shot["data"]))
                res.screenshots[scheme] = path
        try:  # late events (console messages queued after load)
            while True:
                cdp.events.append(cdp.read(0.2))
        except TimeoutError:
            pass
        _collect(cdp.events, res)
        try:
            cdp.send("Browser.close", timeout=10)
        except (RuntimeError, TimeoutError):
            pass
    finally:
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        os.close(to_w)
        os.close(from_r)
        if proc.stderr:
            proc.stderr.close()
        shutil.rmtree(profile, ignore_errors=True)
    return res


def _eval(cdp: _Pipe, session: str, expr: str) -> Any:
    r = cdp.send("Runtime.evaluate", {"expression": expr, "returnByValue": True}, session=session)
    if "exceptionDetails" in r:
        raise RuntimeError(f"{expr}: {r['exceptionDetails'].get('text')}")
    return r["result"].get("value")


def _collect(events: list[dict[str, Any]], res: PageResult) -> None:
    for e in events:
        m, p = e.get("method"), e.get("params", {})
        if m == "Runtime.consoleAPICalled":
            text = " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", []))
            res.console.append({"level": p.get("type", ""), "text": text})
        elif m == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            res.console.append({"level": "exception",
                                "text": d.get("exception", {}).get("description") or d.get("text", "")})
        elif m == "Log.entryAdded":
            entry = p.get("entry", {})
            res.console.append({"level": entry.get("level", ""), "text": entry.get("text", "")})
        elif m == "Network.requestWillBeSent":
            u = p.get("request", {}).get("url", "")
            if u and u != res.url and not u.startswith("data:"):
                res.requests.append(u)
