#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The end of an install into a machine image (issue 32, "the system runner inside a machine image"), on a
Debian 12 image of the package world (tests/fakes/pkgworld: Debian's archive as measured; no /proc, so no
kernel runs there): the install ends with exit 5 only when the kernel the image boots (its newest) has the
nvidia module and the branch is held as Debian holds it (apt's preferences, Pin: version 535.*).  An image
whose newest kernel has no headers (a kernel the archive has no headers for) gets no module from DKMS: the
install says so, naming that kernel, instead of "the module is built".  The hold's check itself is
tests/unit/test_driver.c image_hold."""
import json
import os
import shutil
import sys

from cutest import SRCDIR, Tap, gpu_doubles, run

sys.path.insert(0, os.path.join(SRCDIR, "tests", "fixtures"))
sys.path.insert(0, os.path.join(SRCDIR, "tests", "fakes", "pkgworld"))
import machines  # noqa: E402
import machine  # noqa: E402
import mkmirror  # noqa: E402

t = Tap()
SOURCES = machine.DEBIAN12_SOURCES
GTX970 = [("0000:01:00.0", "13c2", "0x030000", None, "5.2", 4096, "NVIDIA GeForce GTX 970")]
M122 = os.path.join(t.tmpdir("mirror"), "m")
mkmirror.build(M122, cuda="12.2.2", replace=gpu_doubles())


def image(tag, synthetic=(), installed=()):
    d = t.tmpdir(tag)
    root = os.path.join(d, "root")
    machines.build_spec({"os": "debian12", "kernel": None, "gpus": GTX970}, root)
    machine.setup(root, "debian-12.csv", repos=SOURCES, synthetic=list(synthetic), installed=list(installed))
    shutil.rmtree(os.path.join(root, "proc"))  # an image: no kernel runs there
    bin_ = machine.link_bin(os.path.join(d, "bin"))
    env = {"CUDAUP_SYSTEM_BIN": bin_, "CUDAUP_SYSTEM_ROOT": root, "STANDIN_LOG": os.path.join(d, "calls.jsonl"),
           "CUDAUP_DRIVER": "auto", "HOME": d, "CUDAUP_TEST_NOW": "1800000000"}
    args = ["--root", root, "--state-dir", os.path.join(d, "state"), "--prefix", os.path.join(d, "prefix"),
            "--cache-dir", os.path.join(d, "cache"), "--mirror", "file://" + M122, "--framework", "none", "--env-scope", "none"]
    return root, env, args


def module(root, k):
    return os.path.exists(os.path.join(root, "lib/modules", k, "updates/pkgworld/nvidia.ko"))


# ---- an image whose kernels all get the module: exit 5, the branch held by apt's preferences ----
root, env, args = image("img-ok", installed=["linux-image-amd64"])
r = run(["install", "--yes", "--json"] + args, env=env, timeout=600)
d = r.json() or {}
prefs = os.path.join(root, "etc/apt/preferences.d/cudaup-nvidia-driver")
t.ok(r.rc == 5 and "6.1.0-57-amd64" in (d.get("error") or "") and module(root, "6.1.0-57-amd64")
     and "Pin: version 535.*" in (open(prefs).read() if os.path.exists(prefs) else ""),
     "image: the module is built for its kernel 6.1.0-57-amd64, the branch pinned by apt's preferences: exit 5", r)

# ---- an image that boots a newer kernel the archive has no headers for ----
NEW = "6.1.0-99-amd64"
root, env, args = image("img-newer", synthetic=[{"name": "linux-image-" + NEW, "version": "6.1.300-1", "extra": "kernel=" + NEW}])
r = run(["install", "--yes", "--json"] + args, env=env, timeout=600)
d = r.json() or {}
t.ok(r.rc == 1 and NEW in (d.get("error") or "") and "linux-headers-" + NEW in (d.get("advice") or "") and not module(root, NEW)
     and module(root, "6.1.0-57-amd64") and not os.path.exists(os.path.join(root, "..", "state", "resume.json")),
     "image booting %s (no headers, so no module): the install says so and names the headers, not 'the module is built' "
     "(exit 1, no resume record)" % NEW, r)
t.done()
