"""Hypothesis on load_host: any file contents in a bundle, any bytes as a tar or a bare file."""

from __future__ import annotations

import io
import tarfile
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rocmdoctor.bundle import load_host
from rocmdoctor.errors import BadInput
from rocmdoctor.model import Host
from tests.test_parse_fuzz import any_text

FUZZ = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

BUNDLE_FILES = [
    "manifest.json", "env.txt", "logs/a.log", "root/etc/os-release", "root/proc/version", "root/proc/modules",
    "root/sys/module/amdgpu/version", "root/sys/class/kfd/kfd/topology/nodes/1/properties",
    "root/sys/class/kfd/kfd/topology/nodes/1/mem_banks/0/properties",
    "root/sys/class/drm/card0/device/vendor", "root/sys/class/drm/card0/device/device",
    "root/sys/class/drm/card0/device/uevent", "root/sys/class/drm/renderD128/device/uevent",
    "root/opt/rocm/.info/version", "root/etc/group", "root/proc/1/cgroup", "cmd/uname-a.txt", "cmd/uname-r.txt",
    "cmd/id.txt", "cmd/rocminfo.txt", "cmd/rocm-smi.txt", "cmd/amd-smi-static.json", "cmd/rocm_agent_enumerator.txt",
    "cmd/dkms-status.txt", "cmd/dkms-status.stderr", "cmd/hipconfig.txt", "cmd/lspci.txt", "cmd/dmesg.txt",
    "cmd/pip-freeze.txt", "cmd/pip-list.json", "cmd/collect_env.txt", "cmd/torch-probe.json", "cmd/stat-dev.txt",
    "cmd/docker-info.json", "cmd/docker-info.stderr", "cmd/unknown-tool.txt",
]

contents = st.dictionaries(st.sampled_from(BUNDLE_FILES), any_text, min_size=1, max_size=12)


@FUZZ
@given(files=contents)
def test_bundle_with_any_file_contents_never_raises(files):
    with tempfile.TemporaryDirectory() as tmp:
        top = Path(tmp)
        for rel, text in files.items():
            path = top / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(text.encode("utf-8", "surrogatepass"))
        if set(files) == {"manifest.json"}:
            # Only a manifest: a bundle if it is a JSON object, else nothing recognisable.
            try:
                load_host(top)
            except BadInput as exc:
                assert "nothing rocmdoctor recognises" in str(exc)
            return
        host = load_host(top)  # a bundle layout is always accepted: no BadInput, no crash
        assert isinstance(host, Host)
        host.to_dict()


@FUZZ
@given(data=st.binary(max_size=4000), suffix=st.sampled_from([".tar.gz", ".tgz", ".txt", ""]))
def test_any_bytes_as_a_file_give_a_host_or_bad_input(data, suffix):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"input{suffix}"
        path.write_bytes(data)
        try:
            assert isinstance(load_host(path), Host)
        except BadInput as exc:
            assert str(exc)


@FUZZ
@given(members=st.lists(st.tuples(st.text(min_size=1, max_size=40), any_text), min_size=1, max_size=6))
def test_tar_with_any_member_names(members):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "b.tar.gz"
        with tarfile.open(path, "w:gz") as tf:
            for name, text in members:
                data = text.encode("utf-8", "surrogatepass")
                info = tarfile.TarInfo(name)
                info.size = len(data)
                try:
                    tf.addfile(info, io.BytesIO(data))
                except (ValueError, UnicodeEncodeError):
                    continue
        try:
            load_host(path)
        except BadInput as exc:
            assert str(exc)
        assert sorted(p.name for p in Path(tmp).iterdir()) == ["b.tar.gz"]  # nothing was extracted
