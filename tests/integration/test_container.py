#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Inside a container (issue 48 item 1): the host's driver serves it, so no driver step is ever planned (no package,
modprobe, nouveau blacklist, initramfs, MOK, hold), whatever --driver says; the plan names the host's driver it sees,
or how to start the container with the GPU, and plans the rest; doctor says the same; install, repair and uninstall
of the driver touch nothing there.  Every container is a machine root with its marker file (tests/fixtures/machines.py:
/.dockerenv, /run/.containerenv), so that no verdict depends on whether the tests themselves run in a container; the
system commands go to tests/fakes/syscmd-standin, recording each call."""
import json
import os
import re
import sys

from cutest import SRCDIR, Tap, gpu_doubles, run

sys.path.insert(0, os.path.join(SRCDIR, "tests", "fixtures"))
import machines  # noqa: E402
import mkmirror  # noqa: E402

t = Tap()
FIX = "file://" + os.path.join(SRCDIR, "tests", "fixtures", "nvidia")
STANDIN = os.path.join(SRCDIR, "tests", "fakes", "syscmd-standin")
COMMANDS = ["apt-get", "apt-mark", "dpkg-query", "dnf", "rpm", "zypper", "pacman", "mokutil", "dkms", "update-initramfs",
            "dracut", "mkinitcpio", "modprobe", "dpkg"]
UBUNTU_SOURCES = "deb http://archive.ubuntu.com/ubuntu noble main restricted universe multiverse\n"
# What a driver step would leave in the plan or on the machine.
DRIVER_WORDS = ("modprobe", "nvidia-driver", "linux-modules-nvidia", "blacklist", "initramfs", "mokutil", "apt-mark hold",
                "preferences.d", "dkms")


class Box:
    """A fixture machine with stand-ins for the system commands (recording their calls) and its own state."""

    def __init__(self, tag, spec):
        self.dir = t.tmpdir(tag)
        self.root = os.path.join(self.dir, "root")
        self.spec = spec
        machines.build_spec(spec, self.root)
        if spec["os"] == "ubuntu2404":
            os.makedirs(os.path.join(self.root, "etc/apt"), exist_ok=True)
            open(os.path.join(self.root, "etc/apt/sources.list"), "w").write(UBUNTU_SOURCES)
        self.bin = os.path.join(self.dir, "bin")
        os.makedirs(self.bin)
        for c in COMMANDS:
            os.symlink(STANDIN, os.path.join(self.bin, c))
        self.log = os.path.join(self.dir, "calls.jsonl")
        self.state = os.path.join(self.dir, "state")
        self.prefix = os.path.join(self.dir, "prefix")

    def env(self, **extra):
        e = {"CUDAUP_SYSTEM_BIN": self.bin, "CUDAUP_SYSTEM_ROOT": self.root, "STANDIN_LOG": self.log,
             "STANDIN_ROOT": self.root, "CUDAUP_DRIVER": "auto", "CUDAUP_TEST_NOW": "1800000000", "HOME": self.dir,
             "FAKE_NVIDIA_CONFIG": os.path.join(self.root, "fake-nvidia.conf")}
        e.update(extra)
        return e

    def cudaup(self, *args, env=None, timeout=300):
        return run(list(args) + ["--root", self.root, "--state-dir", self.state, "--prefix", self.prefix,
                                 "--cache-dir", os.path.join(self.dir, "cache")], env=self.env(**(env or {})), timeout=timeout)

    def plan(self, *args, json_out=True):
        fw = [] if "--framework" in args else ["--framework", "none"]
        r = self.cudaup("plan", *((["--json"] if json_out else []) + ["--mirror", FIX] + fw + list(args)))
        return r, (r.json() or {}) if json_out else {}

    def calls(self):
        return [json.loads(x) for x in open(self.log)] if os.path.exists(self.log) else []

    def touched(self):
        """System files a driver step would write under the root."""
        out = []
        for d in ("etc/modprobe.d", "etc/apt/preferences.d", "etc/apt/sources.list.d", "etc/yum.repos.d"):
            p = os.path.join(self.root, d)
            if os.path.isdir(p):
                out += [os.path.join(d, n) for n in os.listdir(p)]
        return out


def spec(name, **changes):
    return dict(machines.MACHINES[name], **changes)


def driver_steps(doc):
    return [s for s in doc.get("steps", []) if s.get("installer") == "driver"]


def no_driver_words(text):
    return [w for w in DRIVER_WORDS if w in text]


def needs_driver(doc):
    """The driver the plan's CUDA needs, as its reason says it."""
    m = re.search(r"it needs driver (\S+?)(?: or newer|,| and)", " ".join(doc.get("reasons", [])))
    return m.group(1) if m else None


# ---- the bug: a container without the GPU got a driver plan for a kernel it does not run ----
b = Box("docker-nodrv", spec("docker-u2404-rtx4090"))
r, doc = b.plan()
drv = doc.get("driver") or {}
t.eq(r.rc, 0, "container, no driver seen: plans (exit 0)", r)
t.ok(doc.get("container") is True and drv.get("action") == "keep" and drv.get("container") is True
     and drv.get("host_version") is None, "plan JSON: container true, the driver's action keep, no host driver seen", doc.get("driver"))
t.eq(driver_steps(doc), [], "no driver step in the plan", doc.get("steps"))
t.eq(no_driver_words(json.dumps([doc.get("steps"), doc.get("downloads"), {k: v for k, v in drv.items() if k != "reasons"}])), [],
     "no package, modprobe, blacklist, initramfs, MOK or hold anywhere in the plan (its reasons say why not)", drv)
why = " ".join(drv.get("reasons", []))
t.ok("inside a container (Docker, seen in /.dockerenv)" in why and "no driver step is planned" in why,
     "the driver's reasons: inside a container, which engine and why no driver step", drv.get("reasons"))
t.ok("`docker run --gpus all ...`" in why and "`podman run --device nvidia.com/gpu=all ...`" in why
     and "install it on the host, not in this container" in why, "no driver seen: how to start it with the GPU, or install the driver on the host", why)
need = needs_driver(doc)
note = " ".join(doc.get("warnings", []))
t.ok(need and doc.get("cuda", {}).get("version") and "the host's driver to be %s or newer" % need in note,
     "the CUDA it plans (the newest for the GPU) says which driver the host needs: %s" % need, (doc.get("reasons"), note))
t.ok(any("Driver: cudaup runs inside a container" in x for x in doc.get("reasons", [])), "the plan's own reasons carry the driver's", doc.get("reasons"))

# The same machine without the marker: the driver plan as before (the marker alone makes the difference).
h = Box("host-nodrv", spec("docker-u2404-rtx4090", container=None))
r, doc_h = h.plan()
t.ok(r.rc == 0 and doc_h.get("container") is False and (doc_h.get("driver") or {}).get("action") == "install" and driver_steps(doc_h),
     "the same root without /.dockerenv: not a container (whatever this test runs in), a driver is planned", doc_h.get("driver"))

# Text: the head line and the reasons.
r, _ = b.plan(json_out=False)
t.ok(r.rc == 0 and re.search(r"^Driver +the host's; no NVIDIA driver seen in this container", r.out, re.M)
     and "Driver: cudaup runs inside a container (Docker, seen in /.dockerenv)" in r.out and not no_driver_words(r.out.split("Why:")[0]),
     "plan text: the Driver line is the host's, no driver step listed", r.out)

# Every --driver: auto and keep and none plan the same keep; a branch is refused before anything is touched (exit 3).
for mode in ("keep", "none"):
    r, d = b.plan("--driver", mode)
    t.ok(r.rc == 0 and (d.get("driver") or {}).get("action") == "keep" and not driver_steps(d),
         "--driver %s in a container: keep, no driver step" % mode, r)
for mode in ("580", "580-open", "570-proprietary"):
    r, d = b.plan("--driver", mode)
    t.ok(r.rc == 3 and d.get("exit_code") == 3 and "--driver %s: cudaup runs inside a container" % mode in (d.get("error") or "")
         and "--gpus all" in (d.get("advice") or "") and "--driver keep" in (d.get("advice") or ""),
         "--driver %s in a container: refused (exit 3), one sentence, advice: the host, --gpus all, --driver keep" % mode, r)

# Podman: /run/.containerenv names the engine.
p = Box("podman-nodrv", spec("podman-rocky9-h100"))
r, doc = p.plan()
why = " ".join((doc.get("driver") or {}).get("reasons", []))
t.ok(r.rc == 0 and doc.get("container") is True and not driver_steps(doc) and "Podman, seen in /run/.containerenv" in why
     and not no_driver_words(json.dumps(doc.get("steps"))), "Podman (Rocky 9, H100): keep, no dnf or module step", (r, why))

# ---- the host's driver visible: named, and the plan fits it ----
for name, ver, cuda_major in (("docker-u2404-rtx4090-host580", "580.95.05", "13"), ("podman-rocky9-h100-host570", "570.86.15", "12")):
    c = Box(name, spec(name))
    r, doc = c.plan("--framework", "pytorch")
    drv = doc.get("driver") or {}
    why = " ".join(drv.get("reasons", []))
    t.ok(r.rc == 0 and doc.get("container") is True and drv.get("action") == "keep" and drv.get("host_version") == ver
         and "The host's driver is %s (read from /proc/driver/nvidia/version), and this container has its libcuda.so.1." % ver in why,
         "%s: the host's driver %s named, with where it was read" % (name, ver), (r, drv))
    t.ok(doc.get("cuda", {}).get("version", "").startswith(cuda_major + ".") and doc.get("framework")
         and not driver_steps(doc), "%s: CUDA %s.x for that driver, the framework planned, no driver step" % (name, cuda_major),
         doc.get("cuda"))
    r, _ = c.plan("--framework", "pytorch", json_out=False)
    t.ok(re.search(r"^Driver +the host's, %s \(cudaup runs inside a container\)" % re.escape(ver), r.out, re.M),
         "%s: the Driver line names the host's %s" % (name, ver), r.out[:400])

# /proc/driver/nvidia hidden, the libraries put in and starting: the host's driver runs, NVML says which.
lo = Box("libs-only", spec("docker-u2404-rtx4090-host580", driver=None, lib_driver="580.95.05"))
r, doc = lo.plan("--framework", "pytorch")
why = " ".join((doc.get("driver") or {}).get("reasons", []))
t.ok(r.rc == 0 and (doc.get("driver") or {}).get("host_version") == "580.95.05" and "(read from NVML)" in why
     and doc.get("cuda", {}).get("version", "").startswith("13."), "no /proc/driver/nvidia, NVML starts: the host's 580.95.05, read from NVML", (r, why))

# The module visible, its libraries not in the container: the rest is planned (no binding refusal), the plan says how.
n = Box("nolibs", spec("docker-u2404-rtx4090-host580-nolibs"))
r, doc = n.plan("--framework", "pytorch")
why = " ".join((doc.get("driver") or {}).get("reasons", []))
t.ok(r.rc == 0 and doc.get("framework") and (doc.get("driver") or {}).get("host_version") == "580.95.05"
     and "started without its libraries (no libcuda.so.1): start it with the GPU" in why and not driver_steps(doc),
     "module visible, no libcuda: the framework is planned, and how to start the container with the GPU", (r, why))

# nouveau seen from a container (the host's): no blacklist, no initramfs, no MOK; the framework is planned.
nv = Box("nouveau", spec("docker-u2404-gtx970-nouveau"))
r, doc = nv.plan("--framework", "pytorch")
why = " ".join((doc.get("driver") or {}).get("reasons", []))
t.ok(r.rc == 0 and doc.get("framework") and not driver_steps(doc) and "held by nouveau" in why
     and "install the NVIDIA driver on the host (not in this container)" in why
     and not no_driver_words(json.dumps([doc.get("steps"), doc.get("driver", {}).get("steps")])),
     "nouveau on the host: planned without blacklist or initramfs, the fix is the host's", (r, why))

# ---- doctor: inside one, the host's driver, fixes on the host or in how the container starts ----
def doctor(box, text=False):
    r = run(["doctor"] + ([] if text else ["--json"]) + ["--root", box.root], env=box.env())
    return r, (r.json() or {}) if not text else {}


def codes(doc):
    return {p["code"]: p for p in doc.get("problems", [])}


r, d = doctor(b)
cs = codes(d)
fixes = " ".join(p["fix"] for p in d.get("problems", []))
t.ok(r.rc == 3 and d.get("container") == {"engine": "docker", "evidence": "/.dockerenv"} and "container-no-driver" in cs
     and "no-driver" not in cs, "doctor JSON: container {engine, evidence}; no driver seen is container-no-driver (exit 3)", d.get("problems"))
t.ok("--gpus all" in cs.get("container-no-driver", {}).get("fix", "") and "install it on the host, not in this container" in fixes
     and not [w for w in ("modprobe", "initramfs", "blacklist", "ubuntu-drivers", "cudaup install --driver") if w in fixes],
     "doctor: the fix is --gpus all and the host's driver, never a module, initramfs or blacklist of the container's", fixes)
r, _ = doctor(b, text=True)
t.ok(re.search(r"^Container +cudaup runs inside one \(Docker, seen in /\.dockerenv\): the host's driver serves it", r.out, re.M)
     and re.search(r"^Driver +none seen in this container", r.out, re.M) and "Kernel" not in r.out and "Secure Boot" not in r.out,
     "doctor text: a Container line, the driver none seen, no kernel/Secure Boot line (the host's)", r.out)
r, d = doctor(nv)
cs = codes(d)
t.ok(r.rc == 3 and "container-nouveau" in cs and "nouveau" not in cs and "blacklist" not in cs["container-nouveau"]["fix"]
     and "initramfs" not in cs["container-nouveau"]["fix"] and "driver-module-missing" not in cs,
     "doctor, nouveau on the host: container-nouveau, its fix on the host (no blacklist/initramfs for the container)", d.get("problems"))
r, d = doctor(n)
cs = codes(d)
t.ok(r.rc == 3 and "container-no-libcuda" in cs and "no-libcuda" not in cs and "--gpus all" in cs["container-no-libcuda"]["fix"],
     "doctor, module visible without libcuda: container-no-libcuda, fix --gpus all", d.get("problems"))
c = Box("doc-host580", spec("docker-u2404-rtx4090-host580"))
r, d = doctor(c)
t.ok(r.rc == 0 and not [p for p in d.get("problems", []) if p["severity"] == "error"] and d["driver"]["version"] == "580.95.05",
     "doctor, started with the GPU: no error, the host's driver 580.95.05", d.get("problems"))
r, _ = doctor(c, text=True)
t.ok(re.search(r"^Driver +NVIDIA 580\.95\.05 \(the host's\)", r.out, re.M), "doctor text: NVIDIA 580.95.05 (the host's)", r.out)
# The image carries driver libraries of its own (575) that are not the host's module (580).
mm = Box("doc-mismatch", spec("docker-u2404-rtx4090-host580", lib_driver="575.57.08"))
r, d = doctor(mm)
p_ = codes(d).get("container-driver-mismatch", {})
t.ok(r.rc == 3 and "580.95.05" in p_.get("message", "") and "575.57.08" in p_.get("message", "") and "driver-mismatch" not in codes(d)
     and "Remove the driver's packages from the image" in p_.get("fix", "") and "modprobe" not in p_.get("fix", "") and "Reboot" not in p_.get("fix", ""),
     "doctor, the image's own driver libraries: container-driver-mismatch, fixed in the image (no reload, no reboot)", d.get("problems"))
# An RTX 5090 on a host whose driver is 550: the host's driver is to be updated, on the host.
old5090 = Box("doc-5090", spec("u2404-rtx5090-550", container="docker"))
r, d = doctor(old5090)
p_ = codes(d).get("container-driver-too-old-for-gpu", {})
t.ok(r.rc == 3 and "on the host (not in this container)" in p_.get("fix", "") and "driver-too-old-for-gpu" not in codes(d)
     and "ubuntu-drivers" not in p_.get("fix", ""), "doctor, RTX 5090 on the host's 550: update the driver on the host", d.get("problems"))
r, d = doctor(h)
t.ok(d.get("container") is None and "no-driver" in codes(d), "doctor on the same root without the marker: container null, no-driver", d.get("problems"))

# ---- install --yes: no command outside the prefix, no system file, no driver record ----
MIRROR = os.path.join(t.tmpdir("mirror"), "m")
mkmirror.build(MIRROR, replace=gpu_doubles())
i = Box("inst", spec("docker-u2404-rtx4090"))
r = i.cudaup("install", "--yes", "--json", "--mirror", "file://" + MIRROR, "--framework", "none", "--env-scope", "none")
d = r.json() or {}
t.eq(r.rc, 0, "install --yes in a container with no driver seen: exit 0", r)
t.eq(i.calls(), [], "install: no system command ran (no apt-get, modprobe, update-initramfs, mokutil)", i.calls())
t.eq(i.touched(), [], "install: no system file written (blacklist, apt sources or preferences)")
t.ok(not os.path.exists(os.path.join(i.state, "driver.json")) and not os.path.exists(os.path.join(i.state, "resume.json"))
     and os.path.isdir(os.path.join(i.prefix, "cuda-12.6")), "install: CUDA in the prefix, no driver record, no resume", os.listdir(i.state) if os.path.isdir(i.state) else None)
t.eq([s for s in d.get("steps", []) if s.get("installer") == "driver"], [], "install JSON: no driver step", d.get("steps"))
r = i.cudaup("install", "--yes", "--json", "--mirror", "file://" + MIRROR, "--framework", "none", "--env-scope", "none",
             "--driver", "580", "--prefix", os.path.join(i.dir, "prefix2"))
t.ok(r.rc == 3 and (r.json() or {}).get("exit_code") == 3 and i.calls() == [] and not os.path.exists(os.path.join(i.dir, "prefix2")),
     "install --driver 580 in a container: exit 3 before anything is touched", r)

# ---- uninstall driver and repair: a driver cudaup installed before the machine became a container (an image that
# carries it): refused, nothing touched ----
old = Box("was-host", spec("u2404-gtx970-nouveau-sb"))
r = old.cudaup("install", "--yes", "--json", "--mirror", "file://" + MIRROR, "--framework", "none", "--env-scope", "none")
t.ok(r.rc == 5 and os.path.exists(os.path.join(old.state, "driver.json")), "setup: the driver installed on the host (exit 5)", r)
ncalls = len(old.calls())
record = open(os.path.join(old.state, "driver.json")).read()
open(os.path.join(old.root, ".dockerenv"), "w").close()
r = old.cudaup("uninstall", "driver", "--yes", "--json")
d = r.json() or {}
t.ok(r.rc == 3 and "cudaup runs inside a container (Docker, seen in /.dockerenv)" in (d.get("error") or "")
     and "host" in (d.get("advice") or ""), "uninstall driver in a container: refused (exit 3), one sentence", r)
t.ok(len(old.calls()) == ncalls and open(os.path.join(old.state, "driver.json")).read() == record,
     "uninstall driver in a container: no command ran, the record is as it was", old.calls()[ncalls:])
r = old.cudaup("repair", "--yes", "--json")
d = r.json() or {}
t.ok(r.rc == 3 and "container-nouveau" in d.get("driver_problems", []) and "inside a container" in (d.get("error") or ""),
     "repair in a container with nouveau seen: refused (exit 3), the problem named", r)
t.eq(old.calls()[ncalls:], [], "repair in a container: no modprobe, blacklist or initramfs", old.calls()[ncalls:])

t.done()
