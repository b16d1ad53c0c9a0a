"""The target interpreter's side of ``rocmdoctor install torch``: a probe, and a session that runs pip.

rocmdoctor runs this text with ``python -c`` in the interpreter it installs into (never as a file: ``-c``
keeps ``sys.path[0]`` empty, which the probe then drops, so nothing from rocmdoctor's or the user's working
directory is importable). Standard library only, and it imports nothing from rocmdoctor: the target may be
any Python 3 without rocmdoctor (or ``packaging``) installed.

* no arguments: print the probe (what the interpreter is and holds, without importing torch) as one JSON line;
* ``MODE MARK``: print ``MARK`` + the probe, then with ``MODE == "pip"`` import pip's install machinery while
  rocmdoctor resolves and snapshots, and wait. Run with ``-B``: until it is told to go it writes nothing. One
  JSON line on stdin ``{"env", "args"}`` runs ``python -m pip <args>`` in that environment; end of input makes
  it exit untouched.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import re
import sys
import sysconfig

if sys.path and sys.path[0] == "":  # `-c` puts the working directory first: what is installed is not in it
    del sys.path[0]

#: PEP 503 name normalisation, a local copy of ``packaging.utils.canonicalize_name`` (same regex): this
#: program runs in the target interpreter, where ``packaging`` may not be installed.
_NAME_SEPARATORS = re.compile(r"[-_.]+")


def _canonical(name: str) -> str:
    return _NAME_SEPARATORS.sub("-", name).lower()


def _dists() -> dict[str, str]:
    try:
        from importlib import metadata

        dists = {}
        for d in metadata.distributions():
            name = d.metadata["Name"]
            if name:
                dists[_canonical(name)] = d.version
    except Exception:
        dists = {}
    return dists


def _torch() -> dict[str, object] | None:
    """Where torch is and what its version.py says, read as text: importing torch takes seconds."""
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        return None
    base = next(iter(spec.submodule_search_locations))
    torch: dict[str, object] = {"location": base, "libs": []}
    try:
        with open(os.path.join(base, "version.py")) as fh:
            text = fh.read()
        for key in ("__version__", "hip", "cuda"):
            m = re.search(r"^" + re.escape(key) + r"\s*(?::[^=]*)?=\s*['\"]([^'\"]*)['\"]", text, re.M)
            torch[key] = m.group(1) if m else None
    except OSError:
        pass
    try:
        torch["libs"] = sorted(os.listdir(os.path.join(base, "lib")))
    except OSError:
        pass
    return torch


def _probe() -> dict[str, object]:
    """What the target interpreter is and holds (stdlib only, never imports torch)."""
    paths = sysconfig.get_paths()
    return {
        "executable": sys.executable, "version": ".".join(str(x) for x in sys.version_info[:3]),
        "implementation": sys.implementation.name, "prefix": sys.prefix, "base_prefix": sys.base_prefix,
        "purelib": paths["purelib"], "platlib": paths["platlib"], "scripts": paths["scripts"],
        "dists": _dists(), "torch": _torch(), "pip": importlib.util.find_spec("pip") is not None,
    }


def _session(mode: str, mark: str) -> None:
    """Answer the probe at once; with ``mode == "pip"`` load pip, then run it when told (see the docstring)."""
    sys.stdout.write(f"{mark}{json.dumps(_probe())}\n")
    sys.stdout.flush()
    if mode != "pip":
        return
    for name in ("pip._internal.cli.main", "pip._internal.commands.install",
                 "pip._internal.resolution.resolvelib.resolver"):
        try:
            importlib.import_module(name)
        except Exception:
            break
    line = sys.stdin.readline()
    if line.strip():
        go = json.loads(line)
        os.environ.clear()
        os.environ.update(go["env"])
        sys.argv = ["pip"] + go["args"]
        import runpy

        runpy.run_module("pip", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    if len(sys.argv) >= 3:
        _session(sys.argv[1], sys.argv[2])
    else:
        print(json.dumps(_probe()))
