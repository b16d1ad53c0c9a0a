"""``docker info --format '{{json .}}'`` (runtimes, default runtime) and its failure text."""

from __future__ import annotations

from typing import Optional

from rocmdoctor.model import ContainerInfo
from rocmdoctor.parse.smi import load_json
from rocmdoctor.parse.text import lines, src


def parse_docker_info(text: str, file: str = "cmd/docker-info.json", stderr: Optional[str] = None) -> ContainerInfo:
    info = ContainerInfo(source=src(file, None))
    data = load_json(text) if text.strip() else None
    if isinstance(data, dict) and ("Runtimes" in data or "ServerVersion" in data or "DefaultRuntime" in data):
        runtimes = data.get("Runtimes")
        if isinstance(runtimes, dict):
            info.docker_runtimes = sorted(str(k) for k in runtimes)
        default = data.get("DefaultRuntime")
        info.docker_default_runtime = default if isinstance(default, str) else None
        errors = data.get("ServerErrors")
        if isinstance(errors, list) and errors:
            info.docker_error = str(errors[0])[:300]
            info.docker_reachable = False
        else:
            info.docker_reachable = True
        return info
    for n, line in lines(stderr or text):
        low = line.lower()
        if "cannot connect to the docker daemon" in low or "permission denied" in low or "error" in low:
            info.docker_reachable = False
            info.docker_error = line.strip()[:300]
            info.source = src(file if stderr is None else file.rsplit(".", 1)[0] + ".stderr", n, line)
            break
    return info
