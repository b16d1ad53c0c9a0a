"""The fan-out under an interrupt, made deterministic: an answer that has arrived is kept.

tests/test_hostile_fleet.py sends SIGTERM to a real audit once only the hung host's ssh is left; on a loaded
machine the good host's reply could still be in its few milliseconds of local validation then, and was lost
as ``interrupted``. Here the validation is slowed on purpose and the fan-out cancelled inside it. The "ssh" is
a small sh script that answers like a host (the real sshd runs in test_fleet_sshd / test_hostile_fleet).
"""

from __future__ import annotations

import asyncio
import io
import tarfile
import threading
import time
from pathlib import Path

import pytest

from rocmdoctor.fleet import transport
from rocmdoctor.fleet.hosts import Target
from rocmdoctor.fleet.status import HostStatus

FAKE_SSH = """#!/bin/sh
# argv: ssh options, then -- DESTINATION 'sh -s'
while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do shift; done
dest=$2
cat > /dev/null
case "$dest" in
  fast) cat "$REPLY_FILE" ;;
  *) exec sleep 30 ;;
esac
"""


def _targz() -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        data = b'{"schema": "rocmdoctor-capture/1"}\n'
        info = tarfile.TarInfo("rocmdoctor-capture/manifest.json")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def test_an_answer_being_validated_when_the_audit_is_interrupted_is_kept(tmp_path: Path, monkeypatch):
    ssh = tmp_path / "ssh"
    ssh.write_text(FAKE_SSH)
    ssh.chmod(0o755)
    reply = tmp_path / "reply.tar.gz"
    reply.write_bytes(_targz())
    monkeypatch.setenv("REPLY_FILE", str(reply))
    real, validating = transport.classify, threading.Event()

    def slow_classify(target, out, timeout):  # type: ignore[no-untyped-def]
        if target.name == "fast":
            validating.set()
            time.sleep(0.5)
        return real(target, out, timeout)

    monkeypatch.setattr(transport, "classify", slow_classify)
    req = transport.FanOutRequest([Target("fast"), Target("slow")], transport.SshSettings(ssh=str(ssh)), b"",
                                  jobs=2, timeout=60, stagger=0)
    results: dict[str, transport.HostResult] = {}

    async def main() -> None:
        task = asyncio.ensure_future(transport.fan_out(req, results))
        t0 = time.monotonic()
        while not validating.is_set():
            assert time.monotonic() - t0 < 30, "the fast host never answered"
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        # recorded by the time the interrupted fan-out returns: it waits for a host whose answer has arrived
        # (gather alone ended at the first cancelled host, 0.5 s before "fast" finished validating)
        assert set(results) == {"fast"}
        await asyncio.sleep(0.3)  # let the killed ssh's exit be read before the loop closes

    t0 = time.monotonic()
    asyncio.run(main())
    assert time.monotonic() - t0 < 20  # the hung host's ssh was killed, not waited for
    assert set(results) == {"fast"} and results["fast"].status == HostStatus.OK
