#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Tried as a new user would (issue 32, "done when"), on an Ubuntu 24.04 machine of the package world
(tests/fakes/pkgworld: Ubuntu's archive as measured) with a GTX 970 on nouveau and Secure Boot on:
first setup (exit 5 for the reboot), a rerun before the reboot ("not rebooted yet", nothing run), the run
after the reboot (it resumes and installs CUDA), a kernel update (an HWE kernel the signed modules' meta
does not follow) and the repair that brings that kernel's module, a repair of one deleted library while
a driver warning stands, and an uninstall that removes exactly what cudaup installed.

Then the seed's own machine (issue 49, "done when"): a GTX 970 on nouveau, Debian 12 with Secure Boot and no
mokutil (Debian's world: only shim-signed brings it), from nouveau to a passing verify with the reboot the plan
announced, through a Ctrl-C during the package transaction and a key enrolment that failed once."""
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import time

from cutest import BIN as CUDAUP, SRCDIR, Tap, base_env, gpu_doubles, on_pty, run

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

# ---- The seed's machine (issue 49): Debian 12, Secure Boot, a GTX 970 on nouveau ----
S = t.tmpdir("seed")
sroot, sstate, sprefix = os.path.join(S, "root"), os.path.join(S, "state"), os.path.join(S, "prefix")
SMIRROR = os.path.join(S, "mirror")
# CUDA 12.2, which driver 535 runs as it is, with the GPU-library doubles under 12.2's file names.
mkmirror.build(SMIRROR, cuda="12.2.2", replace={k.replace("12.6.127", "12.2.127"): v for k, v in gpu_doubles().items()})
sspec = dict(machines.MACHINES["deb12-gtx970-nouveau-sb"])
machines.build_spec(sspec, sroot)
DEB = "http://deb.debian.org/debian"
COMPS = ["main", "non-free-firmware"]  # what Debian 12's installer enables
machine.setup(sroot, ["debian-12.csv"], repos=[(DEB, "bookworm", COMPS), (DEB, "bookworm-updates", COMPS),
                                               (DEB + "-security", "bookworm-security", COMPS)],
              installed=["linux-image-amd64", "initramfs-tools"])
SBIN = machine.link_bin(os.path.join(S, "bin"))
SLOG = os.path.join(S, "calls.jsonl")
SENV = {"CUDAUP_SYSTEM_BIN": SBIN, "CUDAUP_SYSTEM_ROOT": sroot, "STANDIN_LOG": SLOG, "CUDAUP_DRIVER": "auto", "HOME": S,
        "FAKE_NVIDIA_CONFIG": os.path.join(sroot, "fake-nvidia.conf"), "CUDAUP_TEST_NOW": "1800000000",
        "FAKE_CUDART_VERSION": "12020", "FAKE_NVRTC_VERSION": "12.2"}
SCOMMON = ["--root", sroot, "--state-dir", sstate, "--prefix", sprefix, "--cache-dir", os.path.join(S, "cache"),
           "--mirror", "file://" + SMIRROR, "--framework", "none", "--cuda", "12.2"]
SINSTALL = ["install", "--yes", "--env-scope", "none"] + SCOMMON
MOK = ["mokutil", "--import", "/var/lib/dkms/mok.pub"]


def scalls():
    out = [json.loads(x) for x in open(SLOG)] if os.path.exists(SLOG) else []
    if os.path.exists(SLOG):
        os.unlink(SLOG)
    return [c for c in out if c[0] != "dpkg-query" and "-s" not in c]


def resume():
    p = os.path.join(sstate, "resume.json")
    return json.load(open(p)) if os.path.exists(p) else {}


r = run(["plan", "--json"] + SCOMMON, env=SENV)
d = (r.json() or {}).get("driver") or {}
steps = d.get("steps") or []
inst = [s for s in steps if s["action"] == "install"]
t.ok(r.rc == 0 and d.get("secure_boot") == "mok" and d.get("reboot") and "mokutil" in d.get("packages", [])
     and inst and inst[0]["argv"][-1] == "mokutil" and [s["action"] for s in steps][-4:] == ["blacklist", "initramfs", "mok", "reboot"]
     and any("mokutil" in x and "not have installed" in x for x in d.get("reasons", [])),
     "seed plan: Debian 12 has no mokutil, and the plan installs it with the driver 535 (the step that queues DKMS's "
     "key needs it), says why, and announces the reboot", (r.rc, d.get("packages"), [s.get("command") for s in steps]))

# Ctrl-C while apt-get's transaction runs: said at once, the transaction let finish, nothing after it done.
release = os.path.join(S, "release-apt")
p = subprocess.Popen([CUDAUP] + SINSTALL, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                     env=base_env(dict(SENV, STANDIN_HOLD="apt-get install=" + release)))
err, said_at_once = b"", False
deadline = time.time() + 300
while time.time() < deadline and p.poll() is None:
    ready, _, _ = select.select([p.stderr], [], [], 1)
    if ready:
        chunk = os.read(p.stderr.fileno(), 65536)
        err += chunk
    if b"holds until" in err and not os.path.exists(release + ".sent"):
        p.send_signal(signal.SIGINT)
        open(release + ".sent", "w").close()
        sent = time.time()
    if os.path.exists(release + ".sent") and b"waiting for apt-get to finish its transaction" in err:
        said_at_once = True
        break
    if os.path.exists(release + ".sent") and time.time() - sent > 30:
        break  # it said nothing: the transaction is let go on, and the checks below fail
open(release, "w").close()
out, rest = p.communicate(timeout=300)
err = (err + rest).decode("utf-8", "replace")
first = scalls()
rec = resume()
t.ok(said_at_once, "seed: Ctrl-C during the package transaction says at once that it waits for apt-get to finish", err[-2000:])
t.ok(p.returncode == 130 and not os.path.exists(os.path.join(sroot, "etc/modprobe.d/cudaup-blacklist-nouveau.conf"))
     and not any(c[0] in ("update-initramfs", "mokutil") for c in first) and "Still to do" in err
     and rec.get("stopped") == "interrupted" and any(x.startswith("install apt-get install") for x in rec.get("driver_done", [])),
     "seed: then it stops (exit 130) with the packages in: no blacklist, no initramfs, no key, and resume.json says where",
     (p.returncode, [c[:2] for c in first], rec, err[-1500:]))

# The next run finishes the blacklist and the initramfs first (and says so); the key's enrolment fails once.
rc, out = on_pty(SINSTALL, dict(SENV, STANDIN_FAIL="mokutil"))
second = scalls()
t.ok("interrupted after `apt-get install" in " ".join(out.split()) and not any(c[:2] == ["apt-get", "-o"] and "install" in c for c in second)
     and os.path.exists(os.path.join(sroot, "etc/modprobe.d/cudaup-blacklist-nouveau.conf"))
     and [c[0] for c in second][:2] == ["update-initramfs", "mokutil"],
     "seed: the next run says it goes on after the interrupted transaction, and does the blacklist and the "
     "initramfs without running apt-get install again", ([c[:3] for c in second], out[-2000:]))
t.ok(rc == 1 and resume().get("stopped") == "failed", "seed: mokutil failing stops the run (exit 1) and resume.json says so",
     (rc, resume(), out[-1500:]))

# The run after that starts from the step that failed.
rc, out = on_pty(SINSTALL, SENV)
third = scalls()
pending = open(os.path.join(sroot, "var/lib/pkgworld/mok-pending")).read().strip() \
    if os.path.exists(os.path.join(sroot, "var/lib/pkgworld/mok-pending")) else None
t.ok(rc == 5 and third == [MOK] and "going on from there" in " ".join(out.split()) and pending == "/var/lib/dkms/mok.pub"
     and "MokManager" in out, "seed: the rerun starts at the step that failed (mokutil --import, nothing before it), "
     "queues the key and stops for the reboot (exit 5)", (rc, third, out[-2000:]))

r = run(["install", "--yes", "--json", "--env-scope", "none"] + SCOMMON, env=SENV, timeout=300)
t.ok(r.rc == 5 and "not been rebooted yet" in ((r.json() or {}).get("error") or "") and scalls() == [],
     "seed: a rerun before the reboot: not rebooted yet (exit 5), nothing run", r)

# The reboot: MokManager enrols the queued key, the boot loader picks the newest kernel, DKMS's signed module loads.
info = machine.boot(sroot)
for dd in ("sys", "proc"):
    shutil.rmtree(os.path.join(sroot, dd), ignore_errors=True)
machines.build_spec(dict(sspec, kernel=info["kernel"], boot_id="b0000000-0000-4000-8000-000000000201", modules=[],
                         gpus=[g[:3] + ("nvidia",) + g[4:] for g in sspec["gpus"]], driver="535.309.01", cuda=12020,
                         libs=True), sroot)
r = run(["install", "--yes", "--json", "--env-scope", "none"] + SCOMMON, env=SENV, timeout=300)
d = r.json() or {}
t.ok(info.get("module") and info.get("signed") and r.rc == 0 and "going on" in (d.get("resumed") or "")
     and os.path.exists(os.path.join(sprefix, "cuda-12.2")) and (d.get("verify") or {}).get("status") == "pass"
     and scalls() == [], "seed: after the reboot it resumes (the signed module loads) and installs CUDA 12.2; its checks pass",
     (info, r.rc, d.get("verify"), r.err[-1500:]))
r = run(["verify", "--json", "--prefix", sprefix, "--root", sroot, "--state-dir", sstate], env=SENV)
t.ok(r.rc == 0 and not [c for c in (r.json() or {}).get("checks", []) if c.get("status") == "fail"],
     "seed: verify passes on the seed's machine", (r.rc, [c for c in (r.json() or {}).get("checks", []) if c.get("status") != "pass"]))
t.done()
