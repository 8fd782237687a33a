#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`uninstall driver` and the package manager's locks on the distributions whose archives cannot be reached
here, against the stand-ins that say no (tests/fakes/pkgworld: package worlds from data/driver/worlds):

- Rocky 9: an install that failed at its first step leaves nothing to remove (never `dnf remove ...
  kernel-devel kernel-headers`, which takes glibc-devel and gcc with it); after a full install, uninstall
  removes exactly what cudaup's steps installed (rpm -e --test first, dnf remove without its
  clean_requirements_on_remove), resets the module stream it enabled and removes the repository file it
  wrote, and keeps the headers, compiler and EPEL that were there; a package of the user's that needs the
  driver makes it refuse by name, removing nothing.
- Debian 12: an install that brought a kernel (linux-image-amd64 and its newest image, the headers metas):
  uninstall keeps the kernels and what they need (the machine boots them; the meta brings the kernel's security
  updates), says so before it runs, and removes the headers unless another DKMS module builds against them.
- Arch: a pacman database lock (db.lck) another process holds is said and waited for."""
import json
import os
import subprocess
import sys

from cutest import BIN, SRCDIR, Tap, base_env, gpu_doubles, run

sys.path.insert(0, os.path.join(SRCDIR, "tests", "fixtures"))
sys.path.insert(0, os.path.join(SRCDIR, "tests", "fakes", "pkgworld"))
import machines  # noqa: E402
import machine  # noqa: E402
import managers  # noqa: E402
import mkmirror  # noqa: E402

t = Tap()
EL9 = ["rocky-9.csv", "el-9.csv", "nvidia-rhel9.csv"]
BEFORE = ["kernel-headers", "kernel-devel", "glibc-devel", "gcc"]


class Box:
    def __init__(self, tag, spec, world, installed=(), synthetic=(), repos=None):
        self.dir = t.tmpdir(tag)
        self.root = os.path.join(self.dir, "root")
        machines.build_spec(spec, self.root)
        machine.setup(self.root, world, repos=repos, installed=list(installed), synthetic=list(synthetic))
        self.bin = machine.link_bin(os.path.join(self.dir, "bin"))
        self.log = os.path.join(self.dir, "calls.jsonl")
        self.state = os.path.join(self.dir, "state")

    def env(self, **extra):
        e = {"CUDAUP_SYSTEM_BIN": self.bin, "CUDAUP_SYSTEM_ROOT": self.root, "STANDIN_LOG": self.log, "CUDAUP_DRIVER": "auto",
             "HOME": self.dir, "FAKE_NVIDIA_CONFIG": os.path.join(self.root, "fake-nvidia.conf")}
        e.update(extra)
        return e

    def sh(self, *argv):
        """A package-manager command run by the test itself (the user, or a past install)."""
        return subprocess.run([os.path.join(self.bin, argv[0])] + list(argv[1:]), env=dict(os.environ, **self.env(STANDIN_LOG="")),
                              capture_output=True, text=True)

    def installed(self):
        return set(managers.machine(self.root).installed)

    def calls(self):
        """What changed the system: the package queries (rpm -qa, rpm -e --test) left out."""
        out = []
        for c in (json.loads(x) for x in open(self.log)) if os.path.exists(self.log) else []:
            if c[0] == "rpm" or c[0] == "dpkg-query" or "--print" in c:
                continue
            out.append(c)
        return out

    def args(self):
        return ["--root", self.root, "--state-dir", self.state, "--prefix", os.path.join(self.dir, "prefix"),
                "--cache-dir", os.path.join(self.dir, "cache"), "--framework", "none", "--env-scope", "none"]


MIRROR = os.path.join(t.tmpdir("mirror"), "m")
mkmirror.build(MIRROR, replace=gpu_doubles())
KERNEL = [{"name": "kernel-core", "version": "5.14.0-427.13.1.el9_4", "extra": "kernel=5.14.0-427.13.1.el9_4.x86_64"}]

# ---- Rocky 9: the first step fails (NVIDIA's repository cannot be reached): nothing to remove ----
b = Box("el9-fail", machines.MACHINES["rocky9-h100"], EL9, installed=BEFORE, synthetic=KERNEL)
before = b.installed()
r = run(["install", "--yes", "--json", "--cuda", "12.6", "--mirror", "file://" + MIRROR] + b.args(), env=b.env(STANDIN_FAIL="dnf config-manager"), timeout=300)
r2 = run(["uninstall", "driver", "--yes", "--json", "--root", b.root, "--state-dir", b.state], env=b.env())
t.ok(r.rc == 1 and "config-manager" in ((r.json() or {}).get("error") or "") and not os.path.exists(os.path.join(b.state, "driver.json")),
     "Rocky 9: the install stops at its first step (CRB cannot be enabled): no record", r)
t.ok(r2.rc == 3 and not any(c[:2] == ["dnf", "remove"] for c in b.calls()) and b.installed() == before
     and {"kernel-headers", "glibc-devel", "gcc"} <= b.installed(),
     "Rocky 9: uninstall after it removes nothing (no dnf remove of kernel-headers, glibc-devel, gcc)", (r2, b.calls()))

# ---- Rocky 9: after a full install, exactly what it added goes ----
b = Box("el9-full", machines.MACHINES["rocky9-h100"], EL9, installed=BEFORE, synthetic=KERNEL)
for cmd in (["dnf", "-y", "install", "epel-release"], ["dnf", "config-manager", "--set-enabled", "crb"]):
    b.sh(*cmd)  # the user's EPEL and CRB, there before cudaup
before = b.installed()
repo = os.path.join(b.root, "etc/yum.repos.d/cuda-rhel9.repo")
open(repo, "w").write("[cuda-rhel9-x86_64]\nname=cuda-rhel9-x86_64\n"
                      "baseurl=https://developer.download.nvidia.com/compute/cuda/repos/rhel9/x86_64\nenabled=1\ngpgcheck=1\n")
for cmd in (["dnf", "-y", "module", "enable", "nvidia-driver:580-open"], ["dnf", "-y", "install", "nvidia-open"],
            ["dnf", "versionlock", "add", "*nvidia*580*"]):
    p = b.sh(*cmd)
added = sorted(b.installed() - before)
os.makedirs(b.state)
# What cudaup's steps recorded (driver_record.c): the stream, the repository file, the packages new after each step.
json.dump({"format": 2, "manager": "dnf", "branch": 580, "flavor": "open", "source": "nvidia", "packages": added,
           "kept_config": [], "held": [], "versionlock": [], "module_streams": ["nvidia-driver:580-open"], "repositories": [],
           "files": ["/etc/yum.repos.d/cuda-rhel9.repo"], "initramfs": None}, open(os.path.join(b.state, "driver.json"), "w"))
t.ok("nvidia-open" in added and "dkms" in added and "kernel-headers" not in added, "Rocky 9: the install added the driver and dkms", added)
# A package of the user's that needs the driver: the removal would take it, so nothing is removed.
b.sh("dnf", "-y", "install", "nvidia-fabric-manager")
r = run(["uninstall", "driver", "--yes", "--json", "--root", b.root, "--state-dir", b.state], env=b.env())
t.ok(r.rc == 3 and "nvidia-fabric-manager" in ((r.json() or {}).get("error") or "") and "nvidia-open" in b.installed()
     and b.calls() == [], "Rocky 9: a package of the user's needs the driver: uninstall refuses by name, nothing removed", (r, b.calls()))
b.sh("dnf", "-y", "remove", "nvidia-fabric-manager")
r = run(["uninstall", "driver", "--yes", "--json", "--root", b.root, "--state-dir", b.state], env=b.env())
calls = b.calls()
rm = [c for c in calls if c[:2] == ["dnf", "remove"]]
t.ok(r.rc == 0 and len(rm) == 1 and "--setopt=clean_requirements_on_remove=False" in rm[0]
     and sorted(x for x in rm[0][2:] if not x.startswith("-")) == added,
     "Rocky 9: uninstall removes exactly what the install added, with dnf's own autoremove off", (r, calls))
t.ok(["dnf", "-y", "module", "reset", "nvidia-driver"] in calls and not os.path.exists(repo),
     "Rocky 9: the module stream is reset and NVIDIA's repository file removed", calls)
t.ok(b.installed() == before and {"kernel-headers", "kernel-devel", "glibc-devel", "gcc", "epel-release"} <= b.installed(),
     "Rocky 9: the headers, the compiler and EPEL that were there stay; nothing else is gone", sorted(before ^ b.installed()))

# ---- Debian 12: the kernels the install brought stay; the headers go unless another DKMS module needs them ----
DEBSRC = machine.DEBIAN12_SOURCES
DEB12 = {"os": "debian12", "kernel": "6.1.0-26-amd64", "gpus": [("0000:01:00.0", "2684", "0x030000", None, "8.9", 24564, "NVIDIA GeForce RTX 4090")]}
OLDK = [{"name": "linux-image-6.1.0-26-amd64", "version": "6.1.112-1", "extra": "kernel=6.1.0-26-amd64"}]
for other_dkms in (False, True):
    # sudo, as the install brings it in a tree without it (dkms recommends it; seen in the real Debian tree): the
    # world has no row of sudo, so it is a synthetic package here, counted as one the install added.
    SUDO = [{"name": "sudo", "version": "1.9.13p3-1+deb12u1"}]
    b = Box("deb12-kernel%s" % ("-zfs" if other_dkms else ""), DEB12, ["debian-12.csv"], synthetic=OLDK + SUDO, repos=DEBSRC)
    # root has no password (as in a debootstrap tree or a cloud image): sudo's removal script refuses then
    open(os.path.join(b.root, "etc/shadow"), "w").write("root:*:19000:0:99999:7:::\n")
    if other_dkms:  # the user's own DKMS module (zfs-dkms registers /var/lib/dkms/zfs/VERSION)
        os.makedirs(os.path.join(b.root, "var/lib/dkms/zfs/2.1.11"))
    before = b.installed() - {"sudo"}
    # What cudaup's steps installed (the plan's headers step brings the kernel's image and headers metas).
    p = b.sh("apt-get", "install", "-y", "linux-image-amd64", "linux-headers-amd64", "nvidia-driver", "firmware-misc-nonfree")
    added = sorted(b.installed() - before)
    kernels = {"linux-image-amd64", "linux-image-6.1.0-57-amd64"}
    os.makedirs(b.state)
    json.dump({"format": 2, "manager": "apt", "branch": 535, "flavor": "proprietary", "source": "distro", "packages": added,
               "kept_config": [], "held": [], "versionlock": [], "module_streams": [], "repositories": [], "files": [],
               "initramfs": None}, open(os.path.join(b.state, "driver.json"), "w"))
    if not other_dkms:
        t.ok(p.returncode == 0 and kernels <= set(added) and "nvidia-driver" in added, "Debian 12: the install brought a kernel "
             "(linux-image-amd64, linux-image-6.1.0-57-amd64) with the driver", (p.stderr[-2000:], added))
        r = run(["uninstall", "driver", "--root", b.root, "--state-dir", b.state], env=b.env(), input="n\n")
        t.ok("It keeps the kernels the install brought" in r.out and "linux-image-6.1.0-57-amd64" in r.out
             and "Uninstalling the NVIDIA driver undoes what cudaup did:" in r.out
             and "nvidia-driver" in r.out.split("undoes what cudaup did:")[1].split("It keeps")[0] and b.calls() == [],
             "Debian 12: before it asks, uninstall says what it removes and that it keeps the kernels; declined, nothing ran", r)
    if not other_dkms:
        # A removal the package manager stops part-way: the advice speaks of the removal, not of an interrupted install.
        r = run(["uninstall", "driver", "--yes", "--json", "--root", b.root, "--state-dir", b.state], env=b.env(STANDIN_FAIL="apt-get purge"))
        adv = (r.json() or {}).get("advice") or ""
        t.ok(r.rc != 0 and "stopped part-way through the removal" in adv and "cudaup uninstall driver" in adv
             and "dpkg --configure -a" not in adv, "Debian 12: a removal the package manager stops part-way: the advice says so "
             "and to run uninstall again (not dpkg --configure -a for an interrupted install)", r)
    r = run(["uninstall", "driver", "--yes", "--json", "--root", b.root, "--state-dir", b.state], env=b.env())
    d = r.json() or {}
    after = b.installed()
    headers = {"linux-headers-amd64", "linux-headers-6.1.0-57-amd64"}
    if not other_dkms:
        t.ok("sudo" in added and "sudo" in after and "sudo" in (d.get("keeps") or []) and r.rc == 0,
             "Debian 12: the install brought sudo; uninstall keeps it (its removal script refuses "
             "when root has no password, and removing it could lock the administrator out)", (r, d.get("keeps")))
        t.ok(r.rc == 0 and kernels <= after and kernels <= set(d.get("keeps") or []) and not (headers & after)
             and "nvidia-driver" not in after and after == before | set(d.get("keeps") or []),
             "Debian 12: uninstall keeps the kernels it brought and what they need, removes the driver and the headers "
             "(no other DKMS module)", (r, sorted(after ^ before), d.get("keeps")))
    else:
        t.ok(r.rc == 0 and kernels <= after and headers <= after and headers <= set(d.get("keeps") or [])
             and "nvidia-driver" not in after and after == before | set(d.get("keeps") or []),
             "Debian 12 with another DKMS module registered (zfs): the headers the install brought stay too, with what they need",
             (r, sorted(after ^ before), d.get("keeps")))

# ---- Ubuntu 22.04: the install upgraded the kernel meta that was there (Kepler: 470 with DKMS) ----
# linux-image-generic, the user's, now depends on the kernel, microcode and firmware the install brought, and
# the kernel image only recommends initramfs-tools: all of them stay, and the meta is never taken along.
UBUSRC = [("http://archive.ubuntu.com/ubuntu", s, ["main", "restricted", "universe", "multiverse"]) for s in ("jammy", "jammy-updates", "jammy-security")]
machines.OS.setdefault("ubuntu2204", 'PRETTY_NAME="Ubuntu 22.04.5 LTS"\nNAME="Ubuntu"\nVERSION_ID="22.04"\nVERSION_CODENAME=jammy\n'
                       'ID=ubuntu\nID_LIKE=debian\n')
U22 = {"os": "ubuntu2204", "kernel": "5.15.0-91-generic", "gpus": [("0000:01:00.0", "102d", "0x030200", None, "3.7", 12206, "Tesla K80")]}
U22K = [{"name": "linux-image-5.15.0-91-generic", "version": "5.15.0-91.101", "extra": "kernel=5.15.0-91-generic"},
        {"name": "linux-image-generic", "version": "5.15.0.91.88", "depends": "linux-image-5.15.0-91-generic"}]
for user_tool in (False, True):
    # user-tool: a package of the user's that needs dkms, which the install brings
    b = Box("u22-kepler%s" % ("-user" if user_tool else ""), U22, ["ubuntu-22.04.csv"], repos=UBUSRC,
            synthetic=U22K + ([{"name": "user-tool", "version": "1.0", "depends": "dkms"}] if user_tool else []))
    before = b.installed()
    p = b.sh("apt-get", "install", "-y", "nvidia-driver-470", "linux-image-generic", "linux-headers-generic")  # the plan's command
    added = sorted(b.installed() - before)
    os.makedirs(b.state)
    json.dump({"format": 2, "manager": "apt", "branch": 470, "flavor": "proprietary", "source": "distro", "packages": added,
               "kept_config": [], "held": [], "versionlock": [], "module_streams": [], "repositories": [], "files": [],
               "initramfs": "update-initramfs -u"}, open(os.path.join(b.state, "driver.json"), "w"))
    r = run(["uninstall", "driver", "--yes", "--json", "--root", b.root, "--state-dir", b.state], env=b.env())
    d, after = r.json() or {}, b.installed()
    if not user_tool:
        NEW22 = "linux-image-%s-generic" % machines.newest_kernel("ubuntu-22.04")  # the archive's newest, as recorded
        kept = {"linux-image-generic", NEW22, "amd64-microcode", "intel-microcode", "initramfs-tools"}
        t.ok(p.returncode == 0 and NEW22 in added and "amd64-microcode" in added, "Ubuntu 22.04: the "
             "install upgraded linux-image-generic, bringing its new kernel and the microcode it now depends on", (p.stderr[-1500:], added))
        t.ok(r.rc == 0 and kept <= after and "nvidia-driver-470" not in after and "dkms" not in after and before <= after,
             "Ubuntu 22.04: uninstall keeps the kernel meta that was there and what it and the kernels need (microcode, "
             "initramfs-tools), removes the driver", (r.rc, d.get("error"), d.get("advice"), sorted(before - after), d.get("keeps")))
    else:
        adv = d.get("advice") or ""
        t.ok(r.rc == 3 and "user-tool" in (d.get("error") or "") and "user-tool needs dkms" in adv and "depend on the driver" not in adv
             and "nvidia-driver-470" in after, "Ubuntu 22.04: a package of the user's needs dkms, which the removal takes: refused "
             "by name, and the advice says what it needs (not that it depends on the driver)", (r.rc, d.get("error"), adv))

# `uninstall --help` shows what `uninstall driver` takes: --root among its options, and the driver form.
r = run(["uninstall", "--help"])
t.ok(r.rc == 0 and "  --root DIR" in r.out and "cudaup uninstall driver' removes" in r.out and "--state-dir, --yes, --json" in r.out,
     "uninstall --help lists --root and says what the driver form takes", r.out)

# ---- Arch: pacman's database lock, said and waited for ----
arch = {"os": "arch", "kernel": "6.12.1-arch1-1",
        "gpus": [("0000:01:00.0", "2684", "0x030000", None, "8.9", 24564, "NVIDIA GeForce RTX 4090")]}
# the kernel package that brought the running kernel (its pkgbase decides the module package)
b = Box("arch-lock", arch, ["arch.csv"], synthetic=[{"name": "linux", "version": "6.12.1.arch1-1", "extra": "kernel=6.12.1-arch1-1 pkgbase=linux"}])
lock = os.path.join(b.root, "var/lib/pacman/db.lck")
os.makedirs(os.path.dirname(lock), exist_ok=True)
open(lock, "w").close()
p = subprocess.Popen([BIN, "install", "--yes", "--cuda", "12.6", "--mirror", "file://" + MIRROR] + b.args(), env=base_env(b.env()), stdout=subprocess.PIPE,
                     stderr=subprocess.PIPE, text=True)
said, seen = False, []
for line in p.stderr:
    seen.append(line)
    if "package manager is busy" in line:
        said = True
        break
os.unlink(lock)  # the other pacman is done: removed only once cudaup has said it waits
out, rest = p.communicate(timeout=300)
seen.append(rest)
pac = [c for c in b.calls() if c[0] == "pacman"]
t.ok(said and pac and "unable to lock database" not in "".join(seen),
     "Arch: pacman's database is locked by another process: cudaup says so, waits, then runs pacman", "".join(seen)[-2000:])
t.done()
