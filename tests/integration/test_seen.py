#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What the user sees, round five (issue 49), on the command line: the planned stop for a reboot (exit 5) said
once and not as an error, typos in a flag's value answered with what was meant, and a --cuda the mirror does
not have answered with what it has.  (The progress line, the failures said once and install's confirmation
are in test_progress; the wizard's items in tests/tui/test_seen_tui.py.)"""
import os
import re
import sys

from cutest import SRCDIR, Tap, on_pty, run, segments

sys.path.insert(0, os.path.join(SRCDIR, "tests", "fixtures"))
sys.path.insert(0, os.path.join(SRCDIR, "tests", "fakes", "pkgworld"))
import machine  # noqa: E402
import machines  # noqa: E402
import mkmirror  # noqa: E402

t = Tap()
NOW = {"CUDAUP_TEST_NOW": "1800000000", "CUDAUP_RETRY_BASE_MS": "50"}
MIRROR = os.path.join(t.tmpdir("mirror"), "m")
mkmirror.build(MIRROR)
UBU = "http://archive.ubuntu.com/ubuntu"
COMPS = ["main", "restricted", "universe", "multiverse"]


def words(out):
    return " ".join(" ".join(segments(out)).split())


def gtx970_box(tag):
    """A GTX 970 held by nouveau, Secure Boot on, Ubuntu 24.04 with its package world (tests/fakes/pkgworld)."""
    d = t.tmpdir(tag)
    root = os.path.join(d, "root")
    krel = "6.8.0-45-generic"
    machines.build_spec({"os": "ubuntu2404", "kernel": krel, "secure_boot": True, "modules": ["nouveau"],
                         "gpus": [("0000:01:00.0", "13c2", "0x030000", "nouveau", "5.2", 4096, "NVIDIA GeForce GTX 970")]},
                        root)
    machine.setup(root, ["ubuntu-24.04.csv"], repos=[(UBU, s, COMPS) for s in ("noble", "noble-updates", "noble-security")],
                  synthetic=[{"name": "linux-image-" + krel, "version": "6.8.0.45", "extra": "kernel=" + krel},
                             {"name": "linux-image-generic", "version": "6.8.0.45", "depends": "linux-image-" + krel}])
    env = dict(NOW, CUDAUP_SYSTEM_BIN=machine.link_bin(os.path.join(d, "bin")), CUDAUP_SYSTEM_ROOT=root,
               CUDAUP_DRIVER="auto", FAKE_NVIDIA_CONFIG=os.path.join(root, "fake-nvidia.conf"))
    args = ["--root", root, "--mirror", "file://" + MIRROR, "--prefix", os.path.join(d, "prefix"), "--state-dir",
            os.path.join(d, "state"), "--cache-dir", os.path.join(d, "cache"), "--framework", "none"]
    return env, args


# ---- Item 11 (R2): exit 5 is a planned stop: not in red, and said once ----
env, args = gtx970_box("reboot")
env["NO_COLOR"] = ""  # colour on (an empty NO_COLOR is unset), as on a user's terminal
rc, out = on_pty(["install", "--yes"] + args, env, winsize=(24, 80), timeout=600)
said = words(out)
t.ok(rc == 5 and "\x1b[31m" not in out and said.count("is installed") == 1 and
     "The NVIDIA driver 580 (proprietary) is installed; a reboot is needed" in said and "Reboot now" in said,
     "exit 5 after the driver: yellow, not red, and 'is installed' said once, with what to do", out[-1500:])

# ---- Item 15: a typo in a value gets "did you mean"; a --cuda the mirror lacks is answered with what it has ----
ROOT = os.path.join(t.tmpdir("two"), "root")
machines.build("two-gpus", ROOT)
PENV = dict(NOW, FAKE_NVIDIA_CONFIG=os.path.join(ROOT, "fake-nvidia.conf"))
FIX = "file://" + os.path.join(SRCDIR, "tests", "fixtures", "nvidia")
base = ["plan", "--root", ROOT, "--mirror", FIX, "--prefix", "/opt/cu", "--cache-dir", t.tmpdir("pc")]
for value, meant in (("pytroch", "Did you mean 'pytorch'?"), ("jaxx==0.4.30", "Did you mean 'jax==0.4.30'?"),
                     ("tensorflow,pytroch", "Did you mean 'pytorch'?")):
    r = run(base + ["--framework", value], env=PENV)
    t.ok(r.rc == 2 and meant in r.err, "--framework %s: exit 2, and %s" % (value, meant), r.err)
r = run(base + ["--framework", "caffe"], env=PENV)
t.ok(r.rc == 2 and "Did you mean" not in r.err, "--framework caffe: exit 2, and no guess", r.err)
r = run(base + ["--platform", "linux-x86"], env=PENV)
t.ok(r.rc == 2 and "Did you mean 'linux-x86_64'?" in r.err, "--platform linux-x86: did you mean linux-x86_64", r.err)
r = run(base + ["--framework", "pytroch"], env=dict(PENV, LANGUAGE="zh_CN"))
t.ok(r.rc == 2 and "“pytorch”" in r.err and "Did you mean" not in r.err, "zh_CN: the guess is said in Chinese", r.err)
r = run(base + ["--framework", "none", "--cuda", "11.99"], env=PENV)
said = " ".join(r.err.split())
t.ok(r.rc == 3 and "CUDA 11.99 is not on the mirror; of CUDA 11 it has" in said and "11.4.4" in said and "11.8.0" in said
     and "12.9.1" not in said.split("What runs here")[0],
     "--cuda 11.99: exit 3, naming the CUDA 11 releases the mirror has", r.err)
# The runfiles of CUDA 10.0-11.3 are NVIDIA's, not in the mirror's manifests: said apart, not as the mirror's (an
# independent re-check found 11.0.3-11.3.0 named as what a mirror of 12.6.3 alone "has").
t.ok("it has 11.0.3" not in said and re.search(r"NVIDIA serves [0-9., ]*11\.3\.0 as runfiles \(not in the mirror's manifests\)", said),
     "--cuda 11.99: the runfile releases are said as NVIDIA's, apart from what the mirror's manifests list", r.err)
r = run(base + ["--framework", "none", "--cuda", "14.0"], env=PENV)
said = " ".join(r.err.split())
t.ok(r.rc == 3 and "CUDA 14.0 is not on the mirror; it has CUDA" in said and "13.0.2" in said,
     "--cuda 14.0 (a major the mirror lacks): the newest of each major it has", r.err)

t.done()
