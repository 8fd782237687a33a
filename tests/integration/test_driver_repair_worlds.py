#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`repair` after a kernel update (issue 32, class 3: the commonest driver failure), on a Debian 12 machine
of the package world (tests/fakes/pkgworld: Debian's archive as measured), whose dkms refuses to build for a
kernel without its headers:

- the driver (nvidia-driver, built by DKMS) was installed on 6.1.0-50-amd64 with that kernel's own headers
  (`linux-headers-$(uname -r)`, no headers meta); a kernel update brought 6.1.0-57-amd64 and the machine
  booted it: no module.  repair's plan, shown before it runs, installs linux-headers-6.1.0-57-amd64 and then
  rebuilds with DKMS; the module is there afterwards.
- the running kernel's headers are no longer in the archive (an ABI the archive has moved past): repair
  says so and what to do, instead of "no module" after a rebuild that could not happen."""
import json
import os
import sys

from cutest import SRCDIR, Tap, run

sys.path.insert(0, os.path.join(SRCDIR, "tests", "fixtures"))
sys.path.insert(0, os.path.join(SRCDIR, "tests", "fakes", "pkgworld"))
import machines  # noqa: E402
import machine  # noqa: E402

t = Tap()
SOURCES = machine.DEBIAN12_SOURCES
RTX4090 = [("0000:18:00.0", "2684", "0x030000", None, "8.9", 24564, "NVIDIA GeForce RTX 4090")]


class Box:
    def __init__(self, tag, kernel, installed, synthetic=()):
        self.dir = t.tmpdir(tag)
        self.root = os.path.join(self.dir, "root")
        self.spec = {"os": "debian12", "kernel": kernel, "gpus": RTX4090, "secure_boot": False, "lib_file": "535.309.01"}
        machines.build_spec(self.spec, self.root)
        machine.setup(self.root, "debian-12.csv", repos=SOURCES, installed=installed, synthetic=list(synthetic))
        self.bin = machine.link_bin(os.path.join(self.dir, "bin"))
        self.log = os.path.join(self.dir, "calls.jsonl")

    def env(self):
        return {"CUDAUP_SYSTEM_BIN": self.bin, "CUDAUP_SYSTEM_ROOT": self.root, "STANDIN_LOG": self.log, "CUDAUP_DRIVER": "auto",
                "HOME": self.dir, "FAKE_NVIDIA_CONFIG": os.path.join(self.root, "fake-nvidia.conf"), "CUDAUP_TEST_NOW": "1800000000"}

    def args(self):
        return ["--root", self.root, "--state-dir", os.path.join(self.dir, "state"), "--prefix", os.path.join(self.dir, "prefix"),
                "--cache-dir", os.path.join(self.dir, "cache")]

    def calls(self):
        out = [json.loads(x) for x in open(self.log)] if os.path.exists(self.log) else []
        return [c for c in out if c[0] not in ("dpkg-query", "dpkg") and "status" not in c]

    def module(self, k):
        return os.path.exists(os.path.join(self.root, "lib/modules", k, "updates/pkgworld/nvidia.ko"))


def pos(calls, pred):
    return next((i for i, c in enumerate(calls) if pred(c)), -1)


# ---- a kernel update DKMS could not follow: the new kernel's headers were never installed ----
OLD, NEW = "6.1.0-50-amd64", "6.1.0-57-amd64"
b = Box("deb12-kupdate", NEW, ["linux-image-" + OLD, "linux-headers-" + OLD, "nvidia-driver", "firmware-misc-nonfree",
                               "linux-image-" + NEW])
t.ok(b.module(OLD) and not b.module(NEW), "fixture: the module was built for %s, none for the running %s (no headers)" % (OLD, NEW))
r = run(["doctor", "--json", "--root", b.root], env=b.env())
codes = [p["code"] for p in (r.json() or {}).get("problems", [])]
t.ok("driver-module-missing" in codes, "doctor: no module for the running kernel", codes)

r = run(["repair", "--yes"] + b.args(), env=b.env(), timeout=300)
t.ok("linux-headers-%s" % NEW in r.out and r.out.find("linux-headers-" + NEW) < r.out.find("DKMS")
     and r.out.find("DKMS") < r.out.find("Repair the driver?") if "Repair the driver?" in r.out else
     "linux-headers-%s" % NEW in r.out and r.out.find("linux-headers-" + NEW) < r.out.find("DKMS"),
     "the plan, shown before it runs: the running kernel's headers (linux-headers-%s), then the DKMS rebuild" % NEW, r)
calls = b.calls()
h = pos(calls, lambda c: c[0] == "apt-get" and "install" in c and "linux-headers-" + NEW in c)
d = pos(calls, lambda c: c[0] == "dkms" and c[1] in ("install", "autoinstall") and NEW in c)
t.ok(r.rc in (0, 5) and 0 <= h < d and b.module(NEW),
     "repair installs linux-headers-%s before DKMS builds, and the running kernel has its module" % NEW, (r, calls))

r = run(["repair", "--yes", "--json"] + b.args(), env=b.env(), timeout=300)
d = r.json() or {}
t.ok(d.get("driver_problems") == [] and d.get("driver_plan") == [] and not [c for c in b.calls()[len(calls):] if c[0] in ("apt-get", "dkms")],
     "a second repair: nothing left to do for the driver, no package manager call (and no CUDA install to repair)", r)

# ---- the running kernel's headers are gone from the archive ----
GONE = "6.1.0-26-amd64"
KER = [{"name": "linux-image-" + GONE, "version": "6.1.112-1", "extra": "kernel=" + GONE}]
b = Box("deb12-gone", GONE, ["linux-image-" + OLD, "linux-headers-" + OLD, "nvidia-driver", "firmware-misc-nonfree"], synthetic=KER)
r = run(["repair", "--yes", "--json"] + b.args(), env=b.env(), timeout=300)
d = r.json() or {}
plan = d.get("driver_plan") or []
t.ok(any("linux-headers-" + GONE in p for p in plan) and r.rc != 0 and "linux-headers-" + GONE in (d.get("error") or "") + (d.get("advice") or "")
     and "Boot the newest installed kernel" in (d.get("advice") or "") and not b.module(GONE)
     and not any(c[0] == "dkms" for c in b.calls()),
     "headers the archive no longer has: repair says so and to boot the newest kernel; no DKMS build is tried", r)
t.done()
