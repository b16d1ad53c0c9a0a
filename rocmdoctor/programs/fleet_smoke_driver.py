"""``fleet audit --live`` on a fleet host: run the smoke program once per GPU and tag every line with its device.

Runs under the host's ``python3`` (3.6+) as ``python3 -c SOURCE TIMEOUT [ARGS...]``, with the smoke program on
stdin. rocmdoctor.fleet.live.payload puts the source of ``rocmdoctor.smoke.gpu_count_hint`` in front of this
file (one source of truth for the sysfs guess); nothing else from rocmdoctor is needed on the host.

argv[1] = per-process timeout, argv[2:] = extra program args. One process per GPU that sysfs shows starts at
once (GPU 0 enumerates); GPUs torch counts beyond that start when GPU 0 is done. Each program runs in its own
session so that a hang is killed with its whole group, and nothing already printed by the others is lost.
Exit 86: no importable torch (the audit reports a skip).
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading

prog = sys.stdin.read()
try:
    import importlib.util

    if importlib.util.find_spec("torch") is None:
        raise ImportError
except Exception:
    sys.stderr.write("rocmdoctor: torch not importable by python3\n")
    sys.exit(86)
fd, path = tempfile.mkstemp(suffix=".py")
os.write(fd, prog.encode())
os.close(fd)
limit = float(sys.argv[1])
extra = sys.argv[2:]
env = dict(os.environ, PYTORCH_TUNABLEOP_ENABLED="0")  # no GEMM tuning inside the timed checks
lock = threading.Lock()


def run(dev, first):
    argv = [sys.executable, "-u", path, "--level", "1", "--mode", "device", "--device", f"cuda:{dev}", *extra]
    if first:
        argv.append("--enumerate")
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, start_new_session=True)
    to = False
    try:
        out, err = p.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        to = True
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except OSError:
            pass
        try:
            out, err = p.communicate(timeout=5)
        except subprocess.TimeoutExpired as exc:  # stuck in the driver with its pipes open: keep what it said
            out, err = exc.stdout or b"", exc.stderr or b""
    with lock:
        for line in out.decode("utf-8", "replace").splitlines():
            print(json.dumps({"dev": dev, "line": line}))
        print(json.dumps({"dev": dev, "exit": p.returncode, "timed_out": to,
                          "stderr": err.decode("utf-8", "replace")[-4000:]}))
        sys.stdout.flush()
    return out


try:
    # gpu_count_hint's source is put in front of this file (see the docstring)
    guess = max(1, gpu_count_hint())  # type: ignore[name-defined]  # noqa: F821
    ts = [threading.Thread(target=run, args=(i, False)) for i in range(1, guess)]
    for t in ts:
        t.start()
    first = run(0, True)
    count = 1
    for line in first.decode("utf-8", "replace").splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if isinstance(rec, dict) and rec.get("type") == "enumeration" and rec.get("available"):
            count = int(rec.get("count") or 1)
    more = [threading.Thread(target=run, args=(i, False)) for i in range(guess, count)]
    for t in more:
        t.start()
    for t in ts + more:
        t.join()
finally:
    os.unlink(path)
