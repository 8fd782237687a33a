#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Tried as a new user would (issue 32, "done when"), on an Ubuntu 24.04 machine of the package world
(tests/fakes/pkgworld: Ubuntu's archive as measured) with a GTX 970 on nouveau and Secure Boot on:
first setup (exit 5 for the reboot), a rerun before the reboot ("not rebooted yet", nothing run), the run
after the reboot (it resumes and installs CUDA), a kernel update (an HWE kernel the signed modules' meta
does not follow) and the repair that brings that kernel's module, a repair of one deleted library while
a driver warning stands, and an uninstall that removes exactly what cudaup installed."""
import json
import os
import shutil
import subprocess
import sys

from cutest import SRCDIR, Tap, gpu_doubles, run

sys.path.insert(0, os.path.join(SRCDIR, "tests", "fixtures"))
sys.path.insert(0, os.path.join(SRCDIR, "tests", "fakes", "pkgworld"))
import machines  # noqa: E402
import machine  # noqa: E402
import managers  # noqa: E402
import mkmirror  # noqa: E402

t = Tap()
W = t.tmpdir("walk")
root, state, prefix = os.path.join(W, "root"), os.path.join(W, "state"), os.path.join(W, "prefix")
MIRROR = os.path.join(W, "mirror")
mkmirror.build(MIRROR, replace=gpu_doubles())
spec = dict(machines.MACHINES["u2404-gtx970-nouveau-sb"], kernel="6.8.0-151-generic")
machines.build_spec(spec, root)
machine.setup(root, ["ubuntu-24.04.csv", "nvidia-ubuntu2404.csv"], installed=["linux-image-generic", "initramfs-tools"])
machine.boot(root)
BIN = machine.link_bin(os.path.join(W, "bin"))
LOG = os.path.join(W, "calls.jsonl")
ENV = {"CUDAUP_SYSTEM_BIN": BIN, "CUDAUP_SYSTEM_ROOT": root, "STANDIN_LOG": LOG, "CUDAUP_DRIVER": "auto", "HOME": W,
       "FAKE_NVIDIA_CONFIG": os.path.join(root, "fake-nvidia.conf"), "CUDAUP_TEST_NOW": "1800000000"}
COMMON = ["--root", root, "--state-dir", state, "--prefix", prefix, "--cache-dir", os.path.join(W, "cache"),
          "--mirror", "file://" + MIRROR]
INSTALL = ["install", "--yes", "--json"] + COMMON + ["--framework", "none", "--env-scope", "none", "--cuda", "12.6"]
boots = [0]


def calls():
    """The commands that changed something since the last look (the package queries left out)."""
    out = [json.loads(x) for x in open(LOG)] if os.path.exists(LOG) else []
    if os.path.exists(LOG):
        os.unlink(LOG)
    return [c for c in out if c[0] != "dpkg-query" and "-s" not in c]


def reboot(**changes):
    """The machine reboots into the kernel its boot loader picks; the driver is loaded if a module is there for it."""
    info = machine.boot(root)
    boots[0] += 1
    for d in ("sys", "proc"):
        shutil.rmtree(os.path.join(root, d), ignore_errors=True)
    machines.build_spec(dict(spec, kernel=info["kernel"], boot_id="b0000000-0000-4000-8000-00000000010%d" % boots[0], **changes), root)
    machine.boot(root)
    return info


before = set(managers.machine(root).installed)
r = run(INSTALL, env=ENV, timeout=300)
d = r.json() or {}
first = calls()
t.ok(r.rc == 5 and d.get("status") == "reboot" and [c[:2] for c in first][-1:] == [["update-initramfs", "-u"]],
     "first setup from nouveau on a GTX 970: the driver through apt, nouveau blacklisted, exit 5 for the reboot", (r, first))
rec = json.load(open(os.path.join(state, "driver.json")))
t.ok(sorted(rec["packages"]) == sorted(set(managers.machine(root).installed) - before) and "nvidia-driver-580" in rec["packages"],
     "the record holds exactly what the install added", rec.get("packages"))

r = run(INSTALL, env=ENV, timeout=300)
t.ok(r.rc == 5 and "not been rebooted yet" in ((r.json() or {}).get("error") or "") and calls() == [],
     "a rerun before the reboot: not rebooted yet (exit 5), nothing run", r)

GPUS = [g[:3] + ("nvidia",) + g[4:] for g in spec["gpus"]]
info = reboot(gpus=GPUS, modules=[], driver="580.95.05", cuda=13000, libs=True)
r = run(INSTALL, env=ENV, timeout=300)
d = r.json() or {}
t.ok(info.get("module") and r.rc == 0 and "going on" in (d.get("resumed") or "") and os.path.exists(os.path.join(prefix, "cuda-12.6"))
     and calls() == [], "after the reboot: it resumes (the driver loads, signed) and installs CUDA, no package manager call", r)

# A kernel update: the HWE kernel, which the signed modules' meta (it follows the GA kernel) does not bring.
had = set(managers.machine(root).installed)
subprocess.run([os.path.join(BIN, "apt-get"), "install", "-y", "linux-image-generic-hwe-24.04"], env=dict(os.environ, **ENV),
               capture_output=True, check=True)
users = set(managers.machine(root).installed) - had  # the user's kernel update: not cudaup's
calls()
info = reboot(gpus=GPUS, modules=[], libs=True, lib_file="580.95.05", lib_driver="580.95.05")
r = run(["doctor", "--json", "--root", root], env=ENV)
codes = {p["code"]: p for p in (r.json() or {}).get("problems", [])}
t.ok(info.get("module") is None and "driver-module-missing" in codes and "cudaup install" not in codes.get("no-driver", {}).get("fix", ""),
     "after a kernel update: no module for the new kernel; doctor says so, and does not say to install a driver", codes)
r = run(["repair", "--yes", "--json"] + COMMON, env=ENV, timeout=300)
fixed = calls()
t.ok(r.rc == 0 and any(c[:3] == ["apt-get", "-o", "DPkg::Lock::Timeout=600"] and "linux-modules-nvidia-580-%s" % info["kernel"] in c for c in fixed)
     and machine.boot(root).get("module"), "repair installs the running kernel's own module package; the next boot has a module", (r, fixed))

lib = [os.path.join(dp, f) for dp, dn, fn in os.walk(os.path.join(prefix, "cuda-12.6")) for f in fn if f.startswith("libcudart.so.")][0]
os.unlink(lib)
r = run(["repair", "--yes", "--json"] + COMMON, env=ENV, timeout=300)
t.ok(r.rc == 0 and os.path.exists(lib), "a repair of one deleted library, without naming the version: restored", r)
calls()

r = run(["uninstall", "driver", "--yes", "--json", "--root", root, "--state-dir", state], env=ENV)
after = set(managers.machine(root).installed)
gone = calls()
t.ok(r.rc == 0 and after == before | users and not os.path.exists(os.path.join(root, "etc/modprobe.d/cudaup-blacklist-nouveau.conf"))
     and [c[0] for c in gone][-1:] == ["update-initramfs"], "uninstall: exactly what cudaup installed is gone (the repair's module "
     "package too), the kernels it found stay; the blacklist gone and the initramfs rebuilt", (r, sorted((before | users) ^ after)))
t.done()
