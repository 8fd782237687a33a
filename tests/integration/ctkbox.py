# SPDX-License-Identifier: MIT
"""Fixture hosts for GPU containers (issue 48): a machine root of a package world with its engines installed, the
stand-in package managers (tests/fakes/pkgworld) and engines (tests/fakes/containers), NVIDIA's repository files on a
file:// mirror.  Shared by test_ctk.py and test_ctk_podman.py."""
import hashlib
import json
import os
import shutil
import sys

from cutest import SRCDIR, gpu_doubles, run

sys.path.insert(0, os.path.join(SRCDIR, "tests", "fixtures"))
sys.path.insert(0, os.path.join(SRCDIR, "tests", "fakes", "pkgworld"))
sys.path.insert(0, os.path.join(SRCDIR, "tests", "fakes", "containers"))
import machines  # noqa: E402
import mkmirror  # noqa: E402
import machine  # noqa: E402
import managers  # noqa: E402
import standin  # noqa: E402

CTK_WORLDS = os.path.join(SRCDIR, "data", "containers", "worlds")
GOLD = os.path.join(SRCDIR, "tests", "fixtures", "containers")
KEYDEB = b"!<arch>\ncuda-keyring fixture (containers)\n"

OS = dict(machines.OS)
OS["rocky9"] = machines.OS["rocky9"]
UBU = "http://archive.ubuntu.com/ubuntu"
DEB = "http://deb.debian.org/debian"

# Each world: the distribution's and NVIDIA's files (data/driver/worlds), the toolkit's and the engines' (data/containers/worlds).
WORLDS = {
    "ubuntu2404": {"os": "ubuntu2404", "kernel": "6.8.0-45-generic",
                   "files": ["ubuntu-24.04.csv", "nvidia-ubuntu2404.csv", CTK_WORLDS + "/nvidia-ctk-ubuntu2404.csv",
                             CTK_WORLDS + "/engines-ubuntu2404.csv"],
                   "repos": [(UBU, s, ["main", "restricted", "universe", "multiverse"]) for s in ("noble", "noble-updates", "noble-security")],
                   "engines": {"docker": "docker.io", "containerd": "containerd", "podman": "podman"}},
    "debian12": {"os": "debian12", "kernel": "6.1.0-26-amd64",
                 "files": ["debian-12.csv", "nvidia-debian12.csv", CTK_WORLDS + "/nvidia-ctk-debian12.csv", CTK_WORLDS + "/engines-debian12.csv"],
                 "repos": [(DEB, "bookworm", ["main"]), (DEB, "bookworm-updates", ["main"]), (DEB + "-security", "bookworm-security", ["main"])],
                 "engines": {"docker": "docker.io", "containerd": "containerd", "podman": "podman"}},
    "rocky9": {"os": "rocky9", "kernel": "5.14.0-427.13.1.el9_4.x86_64",
               "files": ["rocky-9.csv", "el-9.csv", "nvidia-rhel9.csv", CTK_WORLDS + "/nvidia-ctk-rhel9.csv", CTK_WORLDS + "/engines-el9.csv"],
               "repos": None,
               "engines": {"docker": "docker-ce", "containerd": "containerd.io", "podman": "podman"}},
}
PROGRAMS = {"docker": "usr/bin/dockerd", "containerd": "usr/bin/containerd", "podman": "usr/bin/podman", "crio": "usr/bin/crio"}
RTX4090 = [("0000:01:00.0", "2684", "0x030000", "nvidia", "8.9", 24564, "NVIDIA GeForce RTX 4090")]


def mirror(tmp):
    """A file:// mirror with CUDA 12.6 and NVIDIA's repository files (the keyrings, the .repo file)."""
    m = os.path.join(tmp, "m")
    mkmirror.build(m, replace=gpu_doubles())  # the GPU-library doubles: verify's checks pass on what is installed
    for dist in ("ubuntu2404", "debian12"):
        d = os.path.join(m, "cuda/repos/%s/x86_64" % dist)
        os.makedirs(d, exist_ok=True)
        open(os.path.join(d, "cuda-keyring_1.1-1_all.deb"), "wb").write(KEYDEB)
    d = os.path.join(m, "cuda/repos/rhel9/x86_64")
    os.makedirs(d, exist_ok=True)
    open(os.path.join(d, "cuda-rhel9.repo"), "w").write(
        "[cuda-rhel9-x86_64]\nname=cuda-rhel9-x86_64\nbaseurl=https://developer.download.nvidia.com/compute/cuda/repos/rhel9/x86_64\n"
        "enabled=1\ngpgcheck=1\ngpgkey=https://developer.download.nvidia.com/compute/cuda/repos/rhel9/x86_64/D42D0685.pub\n")
    return m


def catalog(tmp):
    """The built-in catalog with the fixture keyring pinned (as a site would not): CUDAUP_CATALOG."""
    cat = json.load(open(os.path.join(SRCDIR, "data", "catalog.json")))
    for k in cat["driver"]["keyrings"]:
        k["sha256"] = hashlib.sha256(KEYDEB).hexdigest()
    p = os.path.join(tmp, "catalog.json")
    json.dump(cat, open(p, "w"))
    return p


class Box:
    """A host of a world with its engines, the driver loaded, the stand-ins."""

    def __init__(self, t, tag, world, engines=("docker", "containerd", "podman"), driver="580.95.05", running=None,
                 configs=None, mirror_dir=None, cat=None, wsl=False, extra_spec=None, active=("docker", "containerd")):
        self.t = t
        w = WORLDS[world]
        self.world = world
        self.dir = t.tmpdir(tag)
        self.root = os.path.join(self.dir, "root")
        spec = {"os": w["os"], "kernel": w["kernel"], "gpus": [] if wsl else RTX4090, "libs": not wsl, "cuda": 13000}
        if driver:
            spec["driver"] = driver
        if wsl:
            spec.update({"wsl": True, "wsl_gpus": [("0000:01:00.0", "2684", "8.9", 24564, "NVIDIA GeForce RTX 4090")], "driver": "566.36"})
        spec.update(extra_spec or {})
        machines.build_spec(spec, self.root)
        installed = [w["engines"][e] for e in engines]
        self.m = machine.setup(self.root, w["files"], repos=w["repos"], installed=installed)
        self.bin = machine.link_bin(os.path.join(self.dir, "bin"))
        standin.link_bin(self.bin)
        for e in engines:
            p = os.path.join(self.root, PROGRAMS[e])
            os.makedirs(os.path.dirname(p), exist_ok=True)
            open(p, "w").write("#!/bin/sh\n# %s (fixture)\n" % e)
            os.chmod(p, 0o755)
        for rel, text in (configs or {}).items():
            p = os.path.join(self.root, rel.lstrip("/"))
            os.makedirs(os.path.dirname(p), exist_ok=True)
            open(p, "w").write(text)
        for u in active:
            if u in engines:
                self.m.write("var/lib/pkgworld/active/%s.service" % u, "active\n")
        self.m.write("var/lib/pkgworld/containers.json", json.dumps(running or {}))
        self.log = os.path.join(self.dir, "calls.jsonl")
        self.restarts = os.path.join(self.dir, "restarts.log")
        self.state = os.path.join(self.dir, "state")
        self.mirror = mirror_dir
        self.cat = cat
        self.home = os.path.join(self.dir, "home")
        os.makedirs(self.home, exist_ok=True)

    def env(self, **kw):
        e = {"CUDAUP_SYSTEM_BIN": self.bin, "CUDAUP_SYSTEM_ROOT": self.root, "STANDIN_LOG": self.log, "CUDAUP_DRIVER": "keep",
             "CUDAUP_TEST_NOW": "1800000000", "HOME": self.home, "STANDIN_RESTARTS": self.restarts,
             "FAKE_NVIDIA_CONFIG": os.path.join(self.root, "fake-nvidia.conf")}
        if self.cat:
            e["CUDAUP_CATALOG"] = self.cat
        e.update(kw)
        return e

    def args(self, *extra):
        return ["--root", self.root, "--mirror", "file://" + self.mirror, "--prefix", os.path.join(self.dir, "prefix"),
                "--state-dir", self.state, "--cache-dir", os.path.join(self.dir, "cache"), "--framework", "none",
                "--cudnn", "none"] + list(extra)

    def cudaup(self, *argv, env=None, timeout=600):
        return run(list(argv), env=self.env(**(env or {})), timeout=timeout)

    def plan(self, *extra, env=None):
        r = self.cudaup("plan", "--json", *self.args(*extra), env=env)
        return r, (r.json() or {}).get("containers") or {}, r.json() or {}

    def install(self, *extra, env=None):
        r = self.cudaup("install", "--yes", "--json", "--env-scope", "none", *self.args(*extra), env=env)
        return r, r.json() or {}

    def read(self, rel):
        try:
            return open(os.path.join(self.root, rel.lstrip("/"))).read()
        except OSError:
            return None

    def exists(self, rel):
        return os.path.lexists(os.path.join(self.root, rel.lstrip("/")))

    def installed(self):
        return managers.machine(self.root).installed

    def calls(self):
        return [json.loads(x) for x in open(self.log)] if os.path.exists(self.log) else []

    def restarted(self):
        return open(self.restarts).read().split("\n")[:-1] if os.path.exists(self.restarts) else []

    def sh(self, *argv):
        import subprocess
        return subprocess.run([os.path.join(self.bin, argv[0])] + list(argv[1:]), env=dict(os.environ, **self.env()),
                              capture_output=True, text=True, timeout=300)
