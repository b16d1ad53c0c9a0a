#!/usr/bin/env python3
"""Time `rocmdoctor fleet audit` side by side with its anchors on one loopback fleet of sshd hosts.

Anchors (issue 7), all on the same fleet (``/work/shared/tools/fleetlab/fleetlab.sh up N DIR``), same
concurrency (64): a bare asyncio OpenSSH fan-out that only cats the files the capture reads
(``bench/fleet_anchor.py``; target: audit <= 1.3x) and Ansible ad-hoc fact gathering
(``ansible all -m setup -f 64``, cold ControlPersist; target: audit >= 3x faster). Runs alternate
(anchor, audit, ansible) per round; medians reported. Also: memory per host in flight (RSS of the
audit process + its ssh children, sampled) and controller CPU per host, and a model for 1,000 and
10,000 hosts. Never asserts: numbers are reported, not tested. Writes bench/results/fleet.json.

usage: bench_fleet.py [--hosts 64] [--runs 3] [--ansible-runs 3] [--dir /tmp/rd-fleetbench] [--no-ansible]
Needs root, openssh-server, and for the Ansible anchor ansible-core in a venv (--ansible PATH).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
FLEETLAB = Path(os.environ.get("FLEETLAB", "/work/shared/tools/fleetlab"))
FIXTURE = ROOT / "fixtures" / "derived-healthy-mi210-x4-rocm6.2.2"
sys.path.insert(0, str(ROOT / "tests"))


def recorded_extras(work: Path) -> Path:
    """Recorded outputs of the slow real commands (pip freeze/list, dmesg, docker info), made once here.

    With them every host presents a complete fake machine, as a fixture does; without them (--real-pip)
    each fake host runs pip for real on this shared 2-core box, which on a real fleet runs on each node's
    own CPU in parallel and is no part of the fan-out cost being compared.
    """
    d = work / "extras"
    d.mkdir(parents=True, exist_ok=True)
    py = "/usr/bin/python3"
    (d / "pip-freeze.txt").write_bytes(subprocess.run([py, "-m", "pip", "freeze"], capture_output=True).stdout)
    (d / "pip-list.json").write_bytes(
        subprocess.run([py, "-m", "pip", "list", "--format", "json"], capture_output=True).stdout)
    (d / "dmesg.txt").write_text("[    0.000000] Linux version 6.5.0-14-generic\n[    4.1] [drm] amdgpu kernel "
                                 "modesetting enabled.\n")
    (d / "docker-info.json").write_text('{"ServerErrors": ["Cannot connect to the Docker daemon"]}\n')
    return d


def populate(fleet: Path, n: int, extras: Path | None) -> None:
    """Give every host a fake MI210 node (kfd/drm/versions + the fixture's recorded commands)."""
    from fleet_harness import make_root

    for i in range(1, n + 1):
        r = fleet / "roots" / f"host{i}"
        shutil.rmtree(r, ignore_errors=True)
        args = {"kernel": "6.8.0-45-generic", "rocm": "6.2.2"} if i % 16 == 0 else {"rocm": "6.2.2"}
        make_root(r, f"host{i}", **args)
        for d in ("root", "cmd"):
            src = FIXTURE / d
            if src.is_dir():
                dst = r if d == "root" else r / ".cmd"
                shutil.copytree(src, dst, dirs_exist_ok=True)
        if extras is not None:
            shutil.copytree(extras, r / ".cmd", dirs_exist_ok=True)


def anchor_script(bundle: Path, out: Path) -> int:
    """A sh script that cats exactly the files the capture read (root/*) and the recorded command outputs.

    One ``cat`` for all of them (no fork per file): the cheapest way to move the same bytes.
    """
    with tarfile.open(bundle) as t:
        names = [m.name.split("/", 1)[1] for m in t.getmembers() if m.isfile() and "/" in m.name]
    files = []
    for name in sorted(names):
        if name.startswith("root/"):
            files.append(name[5:])
        elif name.startswith("cmd/"):
            files.append(".cmd/" + name[4:])
    quoted = " ".join("'" + f.replace("'", "'\\''") + "'" for f in files)
    out.write_text(f'cd "${{ROCMDOCTOR_ROOT:-/}}" && cat -- {quoted} 2>/dev/null\necho AUDIT-END\n')
    return len(files)


class Sampler(threading.Thread):
    """Peak RSS of a process tree (the audit + its ssh children) and peak number of ssh children."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid = pid
        self.stop = False
        self.peak_total = 0
        self.peak_ssh = 0
        self.ssh_rss: list[int] = []
        self.first_parent = 0
        self.peak_parent = 0

    def run(self) -> None:
        import psutil

        try:
            p = psutil.Process(self.pid)
        except psutil.Error:
            return
        while not self.stop:
            try:
                parent = p.memory_info().rss
                kids = [c for c in p.children(recursive=True) if c.name() == "ssh"]
                ks = [c.memory_info().rss for c in kids]
            except psutil.Error:
                time.sleep(0.02)
                continue
            self.first_parent = self.first_parent or parent
            self.peak_parent = max(self.peak_parent, parent)
            self.ssh_rss += ks
            self.peak_ssh = max(self.peak_ssh, len(ks))
            self.peak_total = max(self.peak_total, parent + sum(ks))
            time.sleep(0.05)


def timed(argv: list[str], env: dict | None = None, sample: bool = False) -> tuple[float, float, Sampler | None, int]:
    """(wall s, CPU s of the process and its reaped children, sampler, exit code)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    s = Sampler(p.pid) if sample else None
    if s:
        s.start()
    _, err = p.communicate()
    wall = time.monotonic() - t0
    if s:
        s.stop = True
        s.join()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if p.returncode not in (0, 1):
        sys.stderr.write(err.decode(errors="replace")[-2000:])
    return wall, cpu, s, p.returncode


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hosts", type=int, default=64)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--ansible-runs", type=int, default=3)
    ap.add_argument("--dir", default="/tmp/rd-fleetbench")
    ap.add_argument("--ansible", default=shutil.which("ansible") or "/tmp/ansvenv/bin/ansible")
    ap.add_argument("--no-ansible", action="store_true")
    ap.add_argument("--keep", action="store_true", help="leave the fleet running")
    ap.add_argument("--real-pip", action="store_true", help="hosts run pip freeze/list for real (slow here)")
    a = ap.parse_args()
    n = a.hosts
    d = Path(a.dir)
    lab = FLEETLAB / "fleetlab.sh"
    if (d / "run").is_dir() and any((d / "run").glob("*.pid")):
        subprocess.run([str(lab), "down", str(d)], check=False, stdout=subprocess.DEVNULL)
    subprocess.run([str(lab), "up", str(n), str(d)], check=True, stdout=subprocess.DEVNULL)
    try:
        return _bench(a, d, n)
    finally:
        if not a.keep:
            subprocess.run([str(FLEETLAB / "methods.sh"), "cpclean", str(d)], check=False)
            subprocess.run([str(lab), "down", str(d)], check=False, stdout=subprocess.DEVNULL)


def _bench(a: argparse.Namespace, d: Path, n: int) -> int:
    work = Path(tempfile.mkdtemp(prefix="rd-fleetbench-"))
    populate(d, n, None if a.real_pip else recorded_extras(work))
    audit = [PY, "-m", "rocmdoctor", "fleet", "audit", "--ssh-config", str(d / "ssh_config"),
             "--hostfile", str(d / "names.txt"), "-j", "64", "--timeout", "120", "-o", str(work / "fleet.json")]
    # validation run (also warms page caches): every host must answer with a bundle
    timed([*audit, "--save-bundles", str(work / "bundles")])
    doc = json.loads((work / "fleet.json").read_text())
    up = sum(1 for h in doc["hosts"] if h["up"])
    print(f"validate: rocmdoctor {up}/{n} hosts answered; groups {[g['hosts'] for g in doc['groups']]}")
    if up != n:
        print("validation failed:", [(h["name"], h["detail"]) for h in doc["hosts"] if not h["up"]][:5])
        return 1
    bundle = work / "bundles" / "host1.tar.gz"
    nfiles = anchor_script(bundle, work / "cat.sh")
    anchor = [PY, str(ROOT / "bench" / "fleet_anchor.py"), str(d / "ssh_config"), str(d / "names.txt"),
              str(work / "cat.sh"), "-j", "64"]
    _, _, _, rc = timed(anchor)
    print(f"validate: anchor cats {nfiles} files per host, exit {rc}")
    ansible_ok = not a.no_ansible and Path(a.ansible).exists()
    env = dict(os.environ, ANSIBLE=a.ansible, PATH=f"{Path(a.ansible).parent}:{os.environ['PATH']}")
    methods = str(FLEETLAB / "methods.sh")
    if ansible_ok:
        subprocess.run([methods, "cpclean", str(d)], check=False, env=env)
        p = subprocess.run([methods, "ansible-setup", str(d)], capture_output=True, text=True, env=env)
        got = p.stdout.count("=> {")
        print(f"validate: ansible-setup {got}/{n} hosts answered")
        ansible_ok = got == n
    res: dict[str, list[float]] = {"anchor": [], "audit": [], "ansible": []}
    cpu: dict[str, list[float]] = {"anchor": [], "audit": []}
    samplers: list[Sampler] = []
    for i in range(max(a.runs, a.ansible_runs if ansible_ok else 0)):
        if i < a.runs:
            w, c, _, _ = timed(anchor)
            res["anchor"].append(w)
            cpu["anchor"].append(c)
            w, c, s, _ = timed(audit, sample=True)
            res["audit"].append(w)
            cpu["audit"].append(c)
            if s:
                samplers.append(s)
        if ansible_ok and i < a.ansible_runs:
            subprocess.run([methods, "cpclean", str(d)], check=False, env=env)
            w, _, _, _ = timed([methods, "ansible-setup", str(d)], env=env)
            subprocess.run([methods, "cpclean", str(d)], check=False, env=env)
            res["ansible"].append(w)
        print(f"round {i + 1}: " + ", ".join(f"{k} {v[-1]:.2f}s" for k, v in res.items() if len(v) > i))
    med = {k: statistics.median(v) for k, v in res.items() if v}
    s = max(samplers, key=lambda x: x.peak_total)
    mib = 1024 * 1024
    # one host in flight = one ssh client process (RSS, shared libraries counted each time) + its
    # buffers in the audit process (the bundle, a few KiB); the audit process itself is reported apart
    per_host_mem = (statistics.mean(s.ssh_rss) if s.ssh_rss else 0) + bundle.stat().st_size
    audit_cpu = statistics.median(cpu["audit"]) / n
    anchor_cpu = statistics.median(cpu["anchor"]) / n
    out = {
        "hosts": n,
        "recorded_pip": not a.real_pip,
        "cores": os.cpu_count(),
        "runs": {k: [round(x, 3) for x in v] for k, v in res.items()},
        "median_s": {k: round(v, 3) for k, v in med.items()},
        "audit_vs_anchor": round(med["audit"] / med["anchor"], 2),
        "ansible_vs_audit": round(med["ansible"] / med["audit"], 2) if "ansible" in med else None,
        "memory": {
            "peak_total_mib": round(s.peak_total / mib, 1),
            "python_rss_start_mib": round(s.first_parent / mib, 1),
            "python_rss_peak_mib": round(s.peak_parent / mib, 1),
            "peak_ssh_in_flight": s.peak_ssh,
            "mean_ssh_rss_mib": round(statistics.mean(s.ssh_rss) / mib, 2) if s.ssh_rss else None,
            "per_host_in_flight_mib": round(per_host_mem / mib, 2),
        },
        "controller_cpu_s_per_host": {"audit": round(audit_cpu, 4), "anchor": round(anchor_cpu, 4)},
        "bundle_bytes": bundle.stat().st_size,
    }
    out["model"] = model(out)
    (ROOT / "bench" / "results").mkdir(exist_ok=True)
    (ROOT / "bench" / "results" / "fleet.json").write_text(json.dumps(out, indent=2) + "\n")
    print(json.dumps(out, indent=2))
    return 0


def model(m: dict) -> dict:
    """Extrapolate to 1,000 and 10,000 hosts from measured per-host controller cost and concurrency.

    On a real fleet each host's capture runs on that host's own CPU; the control machine pays only the
    ssh client (handshake crypto) and the local judge per host. Wall time is the larger of the
    latency-bound term (hosts / jobs x one host's round trip, taken as the measured median audit time
    of a single wave) and the controller-CPU-bound term (hosts x controller CPU per host / cores).
    """
    per_host_cpu = m["controller_cpu_s_per_host"]["audit"]
    wave_s = m["median_s"]["audit"] / max(1, m["hosts"] / 64)  # measured here, CPU-starved: pessimistic
    rows = {}
    for hosts in (1000, 10000):
        for cores, jobs in ((2, 64), (16, 256)):
            cpu_bound = hosts * per_host_cpu / cores
            lat_bound = (hosts / jobs) * min(wave_s, 2.0)
            mem = jobs * m["memory"]["per_host_in_flight_mib"] + m["memory"]["python_rss_peak_mib"] \
                + hosts * m["bundle_bytes"] / 1024 / 1024
            rows[f"{hosts} hosts, {cores} cores, -j {jobs}"] = {
                "wall_s": round(max(cpu_bound, lat_bound), 1),
                "cpu_bound_s": round(cpu_bound, 1),
                "latency_bound_s": round(lat_bound, 1),
                "memory_mib": round(mem),
            }
    return rows


if __name__ == "__main__":
    sys.exit(main())
