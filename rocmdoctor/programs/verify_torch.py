"""Import torch in the target interpreter and say what it is, as one JSON line on stdout.

``argv[1]``: ``gpu`` (also ask whether the GPU is usable and which gfx targets the wheel carries) or ``nogpu``.
rocmdoctor runs this text with ``python -c`` (directly, or through :mod:`verify_wait`); it imports nothing from
rocmdoctor: the target interpreter need not have rocmdoctor installed. Any exception is reported in ``error``,
never raised: rocmdoctor judges the answer.
"""

from __future__ import annotations

import json
import os
import sys


def _check(mode: str) -> dict[str, object]:
    out: dict[str, object] = {}
    try:
        import torch

        out["version"] = str(torch.__version__)
        out["hip"] = getattr(torch.version, "hip", None)
        out["cuda"] = getattr(torch.version, "cuda", None)
        try:
            out["libs"] = sorted(os.listdir(os.path.join(os.path.dirname(torch.__file__), "lib")))
        except OSError:
            out["libs"] = []
        if mode == "gpu":
            out["available"] = bool(torch.cuda.is_available())
            out["arch_list"] = list(torch.cuda.get_arch_list())
            if out["available"]:
                out["devices"] = [
                    getattr(torch.cuda.get_device_properties(i), "gcnArchName", "")
                    for i in range(torch.cuda.device_count())
                ]
    except Exception as exc:
        out["error"] = f"{type(exc).__name__}: {exc}"
    return out


if __name__ == "__main__":
    print(json.dumps(_check(sys.argv[1])))
