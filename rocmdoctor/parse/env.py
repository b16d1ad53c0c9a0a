"""``env.txt``: ``KEY=VALUE`` lines, of which only the allow-listed GPU/Python variables are kept
(a hand-made bundle may contain more; we never carry secrets forward)."""

from __future__ import annotations

import re

from rocmdoctor.parse.text import lines, strip_prompt

ALLOWED_PREFIXES = ("HSA_", "HIP_", "ROCR_", "ROCM_", "GPU_", "PYTORCH_", "AMD_")
ALLOWED_NAMES = frozenset({"LD_LIBRARY_PATH", "PATH", "PYTHONPATH", "VIRTUAL_ENV", "CONDA_PREFIX",
                           "CUDA_VISIBLE_DEVICES"})  # HIP honours it: a mask on ROCm too
_SECRET = re.compile(r"TOKEN|SECRET|PASSW|API_?KEY|ACCESS_?KEY|CREDENTIAL", re.I)
_LINE = re.compile(r"^(?:export\s+|ENV\s+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$")
# Variables that hold a path may hold a space (WSL's PATH, "HIP_PATH=C:\Program Files\AMD\ROCm\5.7\"); the
# others (HSA_OVERRIDE_GFX_VERSION, *_VISIBLE_DEVICES, ...) never do, so in a pasted `VAR=value cmd ...` line
# their value ends at the first blank (llama.cpp#26702: "HSA_OVERRIDE_GFX_VERSION=10.3.0 ~/.../llama-server \").
_PATH_LIKE = re.compile(r"(?:PATH|PREFIX|_ENV|_DIR|_HOME|_ROOT)$")


def allowed(name: str) -> bool:
    if _SECRET.search(name):
        return False
    return name in ALLOWED_NAMES or name.startswith(ALLOWED_PREFIXES)


def parse_env(text: str) -> tuple[dict[str, str], dict[str, int]]:
    """(allow-listed variables, the line number each came from)."""
    env: dict[str, str] = {}
    where: dict[str, int] = {}
    for n, line in lines(text):
        body = strip_prompt(line)[0].strip()
        m = _LINE.match(body)
        if m is None or not allowed(m.group(1)):
            continue
        value = m.group(2)
        if value[:1] not in ("\"", "'") and not _PATH_LIKE.search(m.group(1)):
            value = value.split(None, 1)[0] if value.strip() else ""
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        env[m.group(1)] = value
        where[m.group(1)] = n
    return env, where
