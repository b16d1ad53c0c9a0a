"""Who runs the GPU code and what the device nodes allow: ``id``, ``stat -c '%n %a %U %G %u %g'`` of
``/dev/kfd`` and ``/dev/dri/*``, and ``/etc/group``."""

from __future__ import annotations

import re
from typing import Optional

from rocmdoctor.model import DeviceNode, UserInfo
from rocmdoctor.parse.text import lines, src, strip_prompt

_ID = re.compile(
    r"uid=(\d{1,10})(?:\(([^)\s]{0,64})\))?\s+gid=(\d{1,10})(?:\(([^)\s]{0,64})\))?(?:\s+groups=(\S{1,8192}))?"
)
_GROUP_ITEM = re.compile(r"(\d{1,10})(?:\(([^)\s]{0,64})\))?")
_STAT = re.compile(r"^(/dev/\S+)\s+([0-7]{3,4})\s+(\S+)\s+(\S+)\s+(\d+)\s+(\d+)\s*$")
_STAT_MISSING = re.compile(r"cannot stat\w*\s+['‘\"]?(/dev/[^'’\"\s:]+)['’\"]?:\s*No such file", re.I)
_GROUP_LINE = re.compile(r"^([A-Za-z_][\w.-]*\$?):[^:]*:(\d+):")


def parse_id(text: str, file: str = "cmd/id.txt") -> Optional[UserInfo]:
    for n, line in lines(text):
        m = _ID.search(line)
        if m is None:
            continue
        user = UserInfo(name=m.group(2) or None, uid=int(m.group(1)), source=src(file, n, line))
        primary_gid, primary = int(m.group(3)), m.group(4)
        if m.group(5):
            for item in _GROUP_ITEM.finditer(m.group(5)):
                gid = int(item.group(1))
                if gid not in user.gids:
                    user.gids.append(gid)
                    if item.group(2):
                        user.groups.append(item.group(2))
        if primary_gid not in user.gids:
            user.gids.insert(0, primary_gid)
            if primary:
                user.groups.insert(0, primary)
        return user
    return None


def parse_stat_dev(text: str, file: str = "cmd/stat-dev.txt") -> list[DeviceNode]:
    out: list[DeviceNode] = []
    for n, line in lines(text):
        body = strip_prompt(line)[0].strip()
        m = _STAT.match(body)
        if m:
            out.append(
                DeviceNode(
                    path=m.group(1),
                    mode=m.group(2)[-3:],
                    owner=m.group(3),
                    group=m.group(4),
                    uid=int(m.group(5)),
                    gid=int(m.group(6)),
                    source=src(file, n, body),
                )
            )
            continue
        m = _STAT_MISSING.search(body)
        if m:
            out.append(DeviceNode(path=m.group(1), exists=False, source=src(file, n, body)))
    return out


def parse_group_file(text: str) -> dict[str, int]:
    """``/etc/group``: name -> gid."""
    out: dict[str, int] = {}
    for _, line in lines(text):
        m = _GROUP_LINE.match(line.strip())
        if m and m.group(1) not in out:
            out[m.group(1)] = int(m.group(2))
    return out
