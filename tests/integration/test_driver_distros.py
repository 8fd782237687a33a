#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every distribution release and derivative users run (issue 43), and the driver branches after 580 and Debian 13's
kernel names (issue 42): held-out machines with each distribution's real os-release (tests/fixtures/machines.py says
where each file comes from) plan a driver, and `cudaup install` runs that plan to its end in the machine's package
world (tests/fakes/pkgworld: stand-in package managers that refuse what the real ones refuse, over the packages
recorded in data/driver/worlds), the next boot finding an nvidia module for its kernel; an upgrade keeps the branch."""
import json
import os
import re
import sys

from cutest import Tap, run

from cutest import SRCDIR
sys.path.insert(0, os.path.join(SRCDIR, "tests", "fixtures"))
sys.path.insert(0, os.path.join(SRCDIR, "tests", "fakes", "pkgworld"))
import machines  # noqa: E402
import mkmirror  # noqa: E402
import machine  # noqa: E402
import managers  # noqa: E402

t = Tap()
MIRROR = os.path.join(t.tmpdir("mirror"), "m")
mkmirror.build(MIRROR, cuda="12.6.3", cudnn=None)
UBU = "http://archive.ubuntu.com/ubuntu"
ALL_UBU = ["main", "restricted", "universe", "multiverse"]


def ubuntu_sources(code, uri=UBU, comps=ALL_UBU):
    return [(uri, code, comps), (uri, code + "-updates", comps), (uri, code + "-security", comps)]


def gpus(dev, cc, name, n=1, cls="0x030000", mib=24564, driver=None):
    return [("0000:%02x:00.0" % (0x18 + i), dev, cls, driver, cc, mib, name) for i in range(n)]


class Box:
    """A fixture machine of a world: its GPUs, kernel and os-release, its packages, the stand-ins."""

    def __init__(self, tag, os_, kernel, world, gpus_, repos=None, synthetic=(), installed=(), modules=(), files=None):
        self.dir = t.tmpdir(tag)
        self.root = os.path.join(self.dir, "root")
        machines.build_spec({"os": os_, "kernel": kernel, "gpus": gpus_, "modules": list(modules)}, self.root)
        for rel, text in (files or {}).items():
            machines.write(os.path.join(self.root, rel), text)
        self.m = machine.setup(self.root, world, repos=repos, synthetic=synthetic, installed=installed)
        self.bin = machine.link_bin(os.path.join(self.dir, "bin"))
        self.log = os.path.join(self.dir, "calls.jsonl")

    def env(self):
        return {"CUDAUP_SYSTEM_BIN": self.bin, "CUDAUP_SYSTEM_ROOT": self.root, "STANDIN_LOG": self.log,
                "CUDAUP_DRIVER": "auto", "CUDAUP_TEST_NOW": "1800000000", "HOME": self.dir}

    def args(self, *extra):
        return ["--root", self.root, "--mirror", "file://" + MIRROR, "--prefix", os.path.join(self.dir, "prefix"),
                "--state-dir", os.path.join(self.dir, "state"), "--cache-dir", os.path.join(self.dir, "cache"),
                "--framework", "none", "--cudnn", "none"] + list(extra)

    def plan(self, *extra):
        r = run(["plan", "--json"] + self.args(*extra), env=self.env())
        return r, (r.json() or {}).get("driver") or {}, r.json() or {}

    def plan_text(self, *extra):
        return run(["plan"] + self.args(*extra), env=self.env())

    def install(self, *extra):
        r = run(["install", "--yes", "--json", "--env-scope", "none"] + self.args(*extra), env=self.env(), timeout=600)
        return r, r.json() or {}

    def installed(self):
        return managers.machine(self.root).installed

    def calls(self):
        return [json.loads(x) for x in open(self.log)] if os.path.exists(self.log) else []

    def sh(self, *argv):
        import subprocess
        return subprocess.run([os.path.join(self.bin, argv[0])] + list(argv[1:]), capture_output=True, text=True,
                              env=dict(os.environ, PKGWORLD_ROOT=self.root), timeout=300)

    def off_branch(self, branch):
        """Installed driver packages whose version is a driver release of another branch than @branch."""
        bad = []
        for n, i in self.installed().items():
            m = re.match(r"^(?:\d+:)?(\d{3})\.\d+", i.version)
            if (m and "nvidia" in n and not n.startswith("linux-") and m.group(1) != str(branch)
                    and n not in ("nvidia-modprobe", "nvidia-settings", "nvidia-xconfig")):
                bad.append("%s=%s" % (n, i.version))
        return bad


def runs_to_the_end(b, r, what):
    boot = machine.boot(b.root)
    return t.ok(r.rc in (0, 5) and boot["module"] is not None,
                "%s: the install runs to its end in its world (exit %d), and the next boot (kernel %s) finds an nvidia "
                "module" % (what, r.rc, boot["kernel"]), (r.out[-3000:], r.err[-2000:], b.calls()[-6:], boot))


def holds(b, d, branch, what, upgrade=("apt-get", "dist-upgrade", "-y")):
    ins = b.installed()
    missing = [p for p in d.get("packages", []) if p not in ins]
    t.ok(not missing and not b.off_branch(branch), "%s: every planned package is installed, all of branch %s"
         % (what, branch), (missing, b.off_branch(branch)))
    up = b.sh(*upgrade)
    t.ok(not b.off_branch(branch), "%s: an upgrade keeps branch %s (%s)" % (what, branch, d.get("pin")),
         (up.stdout[-800:], up.stderr[-800:], b.off_branch(branch)))


RTX4090 = gpus("2684", "8.9", "NVIDIA GeForce RTX 4090")
NOUV = lambda g: [x[:3] + ("nouveau",) + x[4:] for x in g]  # noqa: E731

# ---- Ubuntu 26.04 LTS, an RTX 4090 that nouveau holds: the newest branch 26.04 carries for it, prebuilt and signed ----
K2604 = "7.0.0-44-generic"
SYN2604 = [{"name": "linux-image-" + K2604, "version": "7.0.0-44.44", "extra": "kernel=" + K2604},
           {"name": "linux-image-generic", "version": "7.0.0-44.44", "depends": "linux-image-" + K2604}]
# A 26.04 kernel brings dracut (its image Recommends "dracut | linux-initramfs-tool"), which ships update-initramfs.
b = Box("u2604", "ubuntu2604", K2604, "ubuntu-26.04.csv", NOUV(RTX4090), repos=ubuntu_sources("resolute"),
        synthetic=SYN2604, modules=["nouveau"], installed=["dracut"])
r, d, doc = b.plan()
reasons = " ".join(d.get("reasons") or [])
t.ok(r.rc == 0 and (d.get("branch"), d.get("flavor"), d.get("source")) == ("620", "open", "distro")
     and "nvidia-driver-620-open" in d.get("packages", []) and "linux-modules-nvidia-620-open-generic" in d.get("packages", [])
     and d.get("blacklist_nouveau") and d.get("version_min") == "620.70.06",
     "Ubuntu 26.04 + RTX 4090 (nouveau): 620 open from Ubuntu 26.04, its signed modules for the generic kernel, nouveau "
     "blacklisted, counting on 620.70.06", (doc.get("error"), d.get("branch"), d.get("packages"), d.get("version_min")))
t.ok("Long Term Support Branch" in reasons and "September 2029" in reasons,
     "Ubuntu 26.04: the plan says what kind of branch 620 is and how long NVIDIA supports it", d.get("reasons"))
t.ok("multiverse" in (d.get("components") or ""), "Ubuntu 26.04: 620's user space is in multiverse, so the plan enables it",
     d.get("components"))
r, doc = b.install()
if runs_to_the_end(b, r, "Ubuntu 26.04 + RTX 4090"):
    holds(b, d, 620, "Ubuntu 26.04 + RTX 4090")
# The proprietary flavor asked for: 620 has none, 595 is the newest that has.
r, d, doc = b.plan("--driver", "620-proprietary")
t.ok(r.rc == 3, "Ubuntu 26.04: --driver 620-proprietary is refused (620 is packaged with the open modules only)",
     (doc.get("error"), d.get("branch")))
b = Box("u2604v100", "ubuntu2604", K2604, "ubuntu-26.04.csv", gpus("1db4", "7.0", "Tesla V100-PCIE-16GB", cls="0x030200"),
        repos=ubuntu_sources("resolute"), synthetic=SYN2604, installed=["dracut"])
r, d, doc = b.plan()
t.eq((d.get("branch"), d.get("flavor")), ("580", "proprietary"),
     "Ubuntu 26.04 + V100 (Volta): 580 proprietary, the last branch that drives it", (doc.get("error"), d.get("packages")))
r, doc = b.install()
if runs_to_the_end(b, r, "Ubuntu 26.04 + V100"):
    holds(b, d, 580, "Ubuntu 26.04 + V100")

t.done()
