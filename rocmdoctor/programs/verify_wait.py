"""The verification interpreter, started while the installer runs so that its start-up is not paid after it.

rocmdoctor runs this text as ``python -B -c <this> <verify_torch.py text>``. It waits for a line on stdin
(``gpu`` / ``nogpu``; end of input: exit), then runs ``argv[1]`` as ``python -c`` would. If the install changed
what a fresh start reads (a .pth file, a sitecustomize or usercustomize in a site directory: added, removed or
rewritten), it starts afresh (exec) instead. ``-B``: it never writes bytecode into the environment pip is
changing. Standard library only; imports nothing from rocmdoctor.
"""

from __future__ import annotations

import os
import sys


def _site_state() -> list[tuple[object, ...]]:
    import site

    dirs = list(site.getsitepackages())
    if site.ENABLE_USER_SITE:
        dirs.append(site.getusersitepackages())
    state: list[tuple[object, ...]] = []
    for d in dirs:
        try:
            names = sorted(os.listdir(d))
        except OSError:
            continue
        for n in names:
            if n.endswith(".pth") or n.split(".")[0] in ("sitecustomize", "usercustomize"):
                try:
                    st = os.stat(os.path.join(d, n))
                    state.append((d, n, st.st_ino, st.st_mtime_ns, st.st_size))
                except OSError:
                    state.append((d, n))
    return state


def _wait_then_run() -> None:
    before = _site_state()
    mode = sys.stdin.readline().strip()
    if not mode:
        return
    code = sys.argv[1]
    if _site_state() != before:
        os.execv(sys.executable, [sys.executable, "-B", "-c", code, mode])
    import importlib

    importlib.invalidate_caches()
    sys.argv = ["-c", mode]
    exec(compile(code, "<string>", "exec"), {"__name__": "__main__", "__builtins__": __builtins__})


if __name__ == "__main__":
    _wait_then_run()
