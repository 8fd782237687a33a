#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The driver's plans against the package worlds (issue 32): `cudaup install` runs on fixture machines
whose package managers are the stand-ins of tests/fakes/pkgworld, which refuse what the real ones refuse
and keep what was installed in the machine root.  Each install must run to its end in its world, and the
next boot must find an nvidia module for the kernel it boots; a wrong package name, a missing repository
or a wrong order fails.  One check per class of the issue (2 RHEL's EPEL and CRB, 3 kernels, 4 the branch
locked first, 5 openSUSE, 6 NVSwitch, 7 Debian's sources and Kepler; issue 33's keyring hash), then the
grid of machines."""
import csv
import hashlib
import json
import os
import shutil
import sys

from cutest import BUILDDIR, SRCDIR, Tap, gpu_doubles, run

sys.path.insert(0, os.path.join(SRCDIR, "tests", "fixtures"))
sys.path.insert(0, os.path.join(SRCDIR, "tests", "fakes", "pkgworld"))
import machines  # noqa: E402
import mkmirror  # noqa: E402
import machine  # noqa: E402
import managers  # noqa: E402
import pkgworld  # noqa: E402
import cli as pkgcli  # noqa: E402

t = Tap()

# A mirror per CUDA release the planned drivers run: 12.6 (580 and later), 12.4 (550), 12.2 (535), 11.4 (470).
MIRRORS = {}
for v in ("12.6.3", "12.8.1", "12.4.1", "12.2.2", "11.4.4"):
    MIRRORS[v] = os.path.join(t.tmpdir("mirror"), "m")
    if v == "12.6.3":
        mkmirror.build(MIRRORS[v], replace=gpu_doubles())
    else:
        mkmirror.build(MIRRORS[v], cuda=v, cudnn=None)
# NVIDIA's repository files, laid out as NVIDIA serves them (cudaup reads them from the mirror): the .repo
# files name the repository the world's dnf knows.
for m in MIRRORS.values():
    for dist, rid in (("rhel9", "cuda-rhel9-x86_64"), ("rhel8", "cuda-rhel8-x86_64"), ("fedora43", "cuda-fedora43-x86_64")):
        d = os.path.join(m, "cuda/repos/%s/x86_64" % dist)
        os.makedirs(d, exist_ok=True)
        name = "cuda-%s.repo" % dist
        with open(os.path.join(d, name), "w") as f:
            f.write("[%s]\nname=%s\nbaseurl=https://developer.download.nvidia.com/compute/cuda/repos/%s/x86_64\nenabled=1\n"
                    "gpgcheck=1\ngpgkey=https://developer.download.nvidia.com/compute/cuda/repos/%s/x86_64/D42D0685.pub\n"
                    % (rid, rid, dist, dist))

UBU = "http://archive.ubuntu.com/ubuntu"
DEB = "http://deb.debian.org/debian"
ALL_UBU = ["main", "restricted", "universe", "multiverse"]


def ubuntu_sources(code, comps=ALL_UBU):
    return [(UBU, code, comps), (UBU, code + "-updates", comps), (UBU, code + "-security", comps)]


def debian_sources(code, comps=("main", "non-free-firmware")):
    return [(DEB, code, list(comps)), (DEB, code + "-updates", list(comps)), (DEB + "-security", code + "-security", list(comps))]


def ubuntu_kernel(krel, meta):
    """The running kernel (an ABI the archive has moved past) and the image meta that brought it."""
    ver = "%s.%s" % (krel.rsplit("-", 1)[0], krel.split("-")[1])
    return [{"name": "linux-image-" + krel, "version": ver, "extra": "kernel=" + krel},
            {"name": "linux-image-" + meta, "version": ver, "depends": "linux-image-" + krel}]


def debian_kernel(krel, meta):
    return [{"name": "linux-image-" + krel, "version": "6.1.112-1", "extra": "kernel=" + krel},
            {"name": "linux-image-" + meta, "version": "6.1.112-1", "depends": "linux-image-" + krel}]


def gpus(dev, cc, name, n=1, cls="0x030000", mib=24564, driver=None):
    return [("0000:%02x:00.0" % (0x18 + i), dev, cls, driver, cc, mib, name) for i in range(n)]


RTX4090 = gpus("2684", "8.9", "NVIDIA GeForce RTX 4090")
GTX1080 = gpus("1b80", "6.1", "NVIDIA GeForce GTX 1080", mib=8192)
GTX970 = gpus("13c2", "5.2", "NVIDIA GeForce GTX 970", mib=4096)
RTX5090 = gpus("2b85", "12.0", "NVIDIA GeForce RTX 5090", mib=32607)
K80 = gpus("102d", "3.7", "Tesla K80", cls="0x030200", mib=12206)
H100X8 = gpus("2330", "9.0", "NVIDIA H100 80GB HBM3", n=8, cls="0x030200", mib=81559)
A100X8 = gpus("20b2", "8.0", "NVIDIA A100-SXM4-80GB", n=8, cls="0x030200", mib=81920)
# HGX boards: four NVSwitch bridges (pci.ids 10de:22a3 GH100 [H100 NVSwitch], 10de:1af1 GA100 [A100 NVSwitch]).
NVSW_H100 = [("0000:%02x:00.0" % (0x80 + i), "0x10de", "0x22a3", "0x068000", None) for i in range(4)]
NVSW_A100 = [("0000:%02x:00.0" % (0x80 + i), "0x10de", "0x1af1", "0x068000", None) for i in range(4)]

OS = dict(machines.OS)
OS["ubuntu2204"] = 'PRETTY_NAME="Ubuntu 22.04.5 LTS"\nNAME="Ubuntu"\nVERSION_ID="22.04"\nVERSION_CODENAME=jammy\nID=ubuntu\nID_LIKE=debian\n'
OS["debian13"] = 'PRETTY_NAME="Debian GNU/Linux 13 (trixie)"\nNAME="Debian GNU/Linux"\nVERSION_ID="13"\nVERSION_CODENAME=trixie\nID=debian\n'
OS["rhel9"] = 'NAME="Red Hat Enterprise Linux"\nVERSION_ID="9.4"\nID="rhel"\nID_LIKE="fedora"\nPRETTY_NAME="Red Hat Enterprise Linux 9.4 (Plow)"\n'
OS["rocky8"] = 'NAME="Rocky Linux"\nVERSION_ID="8.10"\nID="rocky"\nID_LIKE="rhel centos fedora"\nPRETTY_NAME="Rocky Linux 8.10 (Green Obsidian)"\n'
OS["leap156"] = 'NAME="openSUSE Leap"\nVERSION="15.6"\nID="opensuse-leap"\nID_LIKE="suse opensuse"\nVERSION_ID="15.6"\nPRETTY_NAME="openSUSE Leap 15.6"\n'
OS["tumbleweed"] = 'NAME="openSUSE Tumbleweed"\n# VERSION="20250306"\nID="opensuse-tumbleweed"\nID_LIKE="opensuse suse"\nVERSION_ID="20250306"\nPRETTY_NAME="openSUSE Tumbleweed"\n'
machines.OS.update(OS)


class Box:
    """A fixture machine of a world: its GPUs, kernel and os-release, its packages, the stand-ins."""

    def __init__(self, tag, os_, kernel, world, gpus_, repos=None, synthetic=(), installed=(), modules=None,
                 other_pci=(), secure_boot=None, extra_spec=None, cuda="12.6.3"):
        self.tag = tag
        self.mirror = MIRRORS[cuda]
        self.dir = t.tmpdir(tag)
        self.root = os.path.join(self.dir, "root")
        spec = {"os": os_, "kernel": kernel, "gpus": gpus_, "other_pci": list(other_pci)}
        if secure_boot is not None:
            spec["secure_boot"] = secure_boot
        spec.update(extra_spec or {})
        machines.build_spec(spec, self.root)
        self.m = machine.setup(self.root, world, repos=repos, synthetic=synthetic, installed=installed, modules=modules)
        self.bin = machine.link_bin(os.path.join(self.dir, "bin"))
        self.log = os.path.join(self.dir, "calls.jsonl")
        self.state = os.path.join(self.dir, "state")

    def env(self, **kw):
        e = {"CUDAUP_SYSTEM_BIN": self.bin, "CUDAUP_SYSTEM_ROOT": self.root, "STANDIN_LOG": self.log,
             "CUDAUP_DRIVER": "auto", "CUDAUP_TEST_NOW": "1800000000", "HOME": self.dir,
             "FAKE_NVIDIA_CONFIG": os.path.join(self.root, "fake-nvidia.conf")}
        e.update(kw)
        return e

    def args(self, *extra):
        return ["--root", self.root, "--mirror", "file://" + self.mirror, "--prefix", os.path.join(self.dir, "prefix"),
                "--state-dir", self.state, "--cache-dir", os.path.join(self.dir, "cache"), "--framework", "none",
                "--cudnn", "none"] + list(extra)

    def plan(self, *extra, env=None):
        r = run(["plan", "--json"] + self.args(*extra), env=self.env(**(env or {})))
        return r, (r.json() or {}).get("driver") or {}, r.json() or {}

    def install(self, *extra, env=None):
        r = run(["install", "--yes", "--json", "--env-scope", "none"] + self.args(*extra), env=self.env(**(env or {})),
                timeout=600)
        return r, r.json() or {}

    def installed(self):
        return managers.machine(self.root).installed

    def version(self, name):
        i = self.installed().get(name)
        return i.version if i else None

    def calls(self):
        return [json.loads(x) for x in open(self.log)] if os.path.exists(self.log) else []

    def sh(self, *argv):
        import subprocess
        return subprocess.run([os.path.join(self.bin, argv[0])] + list(argv[1:]), capture_output=True, text=True,
                              env=dict(os.environ, PKGWORLD_ROOT=self.root), timeout=300)

    def driver_versions(self, branch):
        """Installed packages whose version is a driver release ((epoch:)BRANCH.x...), and those not of @branch."""
        import re
        bad = []
        for n, i in self.installed().items():
            m = re.match(r"^(?:\d+:)?(\d{3})\.\d+", i.version)
            # nvidia-modprobe, -settings, -xconfig are versioned on their own (Debian 13's nvidia-modprobe is 570.x)
            if (m and "nvidia" in n and not n.startswith("linux-") and m.group(1) != str(branch)
                    and n not in ("nvidia-modprobe", "nvidia-settings", "nvidia-xconfig")):
                bad.append("%s=%s" % (n, i.version))
        return bad


def ran_to_the_end(b, r, doc, what):
    """The install ran every driver step in its world: exit 5 (a reboot) or 0, and the next boot finds a module."""
    boot = machine.boot(b.root)
    ok = r.rc in (0, 5) and boot["module"] is not None
    return t.ok(ok, "%s: the install runs to its end in its world (exit %d), and the next boot (kernel %s) finds an nvidia module"
                % (what, r.rc, boot["kernel"]), (r.out[-3000:], r.err[-2000:], b.calls()[-6:], boot))


# Every world INDEX.csv names (how a machine's os-release finds its world) exists and loads.
missing, loaded = [], 0
for row in csv.DictReader(open(os.path.join(pkgworld.WORLDS, "INDEX.csv"), newline="")):
    files = [os.path.join(pkgworld.WORLDS, f) for f in row["files"].split()]
    missing += [f for f in files if not os.path.exists(f)]
    if all(os.path.exists(f) for f in files):
        loaded += pkgworld.World(files).name is not None
t.ok(not missing and loaded >= 11, "worlds: each of the %d worlds INDEX.csv names exists and loads" % loaded, missing)

# ---- class 2: RHEL and its rebuilds: EPEL and CRB for the DKMS streams ----
ROCKY9 = ["rocky-9.csv", "el-9.csv", "nvidia-rhel9.csv"]
EL9K = "5.14.0-427.13.1.el9_4.x86_64"
EL9SYN = [{"name": "kernel-core", "version": "5.14.0-427.13.1.el9_4", "extra": "kernel=" + EL9K}]
b = Box("rocky9", "rocky9", EL9K, ROCKY9, gpus("2330", "9.0", "NVIDIA H100 80GB HBM3", cls="0x030200"), synthetic=EL9SYN)
r, d, _ = b.plan()
acts = [s["action"] for s in d.get("steps", [])]
t.ok(acts[:4] == ["crb", "epel", "headers", "repository"] and "dnf config-manager --set-enabled crb" in json.dumps(d)
     and any("EPEL" in (s.get("why") or "") for s in d.get("steps", [])),
     "class 2: Rocky 9's plan enables CRB and EPEL first and says so", acts)
r, doc = b.install()
ran_to_the_end(b, r, doc, "class 2: Rocky 9 + H100 (DKMS stream 580-open, dkms from EPEL)")
t.ok((b.version("dkms") or "").endswith(".el9") and (b.version("nvidia-open") or "").startswith("3:580."),
     "class 2: dkms came from EPEL, nvidia-open from the 580-open stream", b.installed().get("nvidia-open"))
b = Box("rhel9", "rhel9", EL9K, ["rhel-9.csv", "el-9.csv", "nvidia-rhel9.csv"], GTX1080, synthetic=EL9SYN)
r, doc = b.install()
ran_to_the_end(b, r, doc, "class 2: RHEL 9 + GTX 1080 (CRB with subscription-manager, EPEL by its URL, 580-dkms)")
t.ok(["subscription-manager", "repos", "--enable", "codeready-builder-for-rhel-9-x86_64-rpms"] in b.calls()
     and (b.version("kmod-nvidia-latest-dkms") or "").startswith("3:580."),
     "class 2: RHEL's CRB by subscription-manager, the proprietary kmod of 580-dkms", b.calls())

# ---- class 3: headers and modules follow the kernel ----
b = Box("deb12old", "debian12", "6.1.0-26-amd64", "debian-12.csv", RTX4090, repos=debian_sources("bookworm"),
        synthetic=debian_kernel("6.1.0-26-amd64", "amd64"), cuda="12.2.2")
r, d, _ = b.plan()
t.ok("linux-headers-amd64" in d.get("packages", []) and not any(p.startswith("linux-headers-6.1.0-26") for p in d.get("packages", [])),
     "class 3: Debian 12 asks for linux-headers-amd64, not the running ABI's (gone from the archive)", d.get("packages"))
r, doc = b.install()
ran_to_the_end(b, r, doc, "class 3: Debian 12 on a superseded kernel ABI")
b = Box("u2204hwe", "ubuntu2204", "6.8.0-45-generic", ["ubuntu-22.04.csv"], GTX1080, repos=ubuntu_sources("jammy"),
        synthetic=ubuntu_kernel("6.8.0-45-generic", "generic-hwe-22.04"))
r, d, _ = b.plan()
t.eq((d.get("kernel_meta"), d.get("packages")), ("generic-hwe-22.04", ["nvidia-driver-580", "linux-modules-nvidia-580-generic-hwe-22.04"]),
     "class 3: Ubuntu 22.04 on the HWE kernel gets the HWE kernel's signed modules (from the installed kernel meta, as ubuntu-drivers)", d)
r, doc = b.install()
ran_to_the_end(b, r, doc, "class 3: Ubuntu 22.04 HWE kernel")
b = Box("u2404aws", "ubuntu2404", "6.8.0-1015-aws", ["ubuntu-24.04.csv"], gpus("2237", "8.6", "NVIDIA A10G", cls="0x030200"),
        repos=ubuntu_sources("noble"), synthetic=ubuntu_kernel("6.8.0-1015-aws", "aws"))
r, d, _ = b.plan()
t.ok("linux-modules-nvidia-580-open-aws" in d.get("packages", []), "class 3: an AWS kernel gets the -aws signed modules", d.get("packages"))
r, doc = b.install()
ran_to_the_end(b, r, doc, "class 3: Ubuntu 24.04 AWS kernel")
# Independent check chk32b F3: the archive's module meta brings the module for its newest kernel ABI (6.8.0-149
# here), not the running 6.8.0-45: modprobe fails and the install stops for a reboot (exit 5).  The old plan said
# "No reboot is needed ... cudaup loads the module with modprobe"; the plan cannot know the archive's ABI, so it says
# a reboot may be needed.
b = Box("u2204hwesb", "ubuntu2204", "6.8.0-45-generic", ["ubuntu-22.04.csv"], RTX4090, repos=ubuntu_sources("jammy"),
        synthetic=ubuntu_kernel("6.8.0-45-generic", "generic-hwe-22.04"), secure_boot=True)
r, d, _ = b.plan()
reasons = " ".join(d.get("reasons") or [])
t.ok("linux-modules-nvidia-580-open-generic-hwe-22.04" in d.get("packages", []) and "No reboot is needed" not in reasons
     and "A reboot may still be needed" in reasons and "6.8.0-45-generic" in reasons,
     "chk32b F3: Ubuntu 22.04 HWE + RTX 4090, Secure Boot: the plan says a reboot may be needed (the meta brings a newer "
     "kernel's module), not that none is", reasons)
# The summary line says so too (it said "no reboot needed" above the reason), and the JSON's reboot_may.
txt = run(["plan"] + b.args(), env=b.env())
t.ok(d.get("reboot") is False and d.get("reboot_may") is True and "a reboot may be needed" in txt.out
     and "no reboot needed" not in txt.out,
     "chk32c: the plan's Driver line says a reboot may be needed, and driver.reboot_may is true",
     (d.get("reboot_may"), [x for x in txt.out.splitlines() if "Driver" in x]))
r, doc = b.install()
ran_to_the_end(b, r, doc, "chk32b F3: Ubuntu 22.04 HWE + RTX 4090, Secure Boot")
t.eq(r.rc, 5, "chk32b F3: ... and the install does stop for a reboot (the module is for 6.8.0-149)", r.err[-600:])
def follows(world, meta, km, branch, template):
    """Does @template's prebuilt-module meta (of @branch, for kernel meta @km) follow the kernel the image meta
    linux-image-@meta makes the next boot run: do their newest builds depend on the same kernel ABI?"""
    import re

    def abi(name, prefix):
        newest = max(world.pkgs.get(name, []), key=lambda p: pkgworld.DebVersion(p.version), default=None)
        for alts in (newest.depends if newest else []):
            for rel in alts:
                m = re.search(r"(\d+\.\d+\.\d+-\d+)", rel.name)
                if rel.name.startswith(prefix) and m:
                    return m.group(1)
        return None
    mods = template.replace("{B}", branch).replace("{KM}", km)
    img, mod = abi("linux-image-" + meta, "linux-image-"), abi(mods, "linux-modules-nvidia-")
    return img is not None and img == mod, "%s: %s, linux-image-%s: %s" % (mods, mod, meta, img)


# Every prebuilt-module meta a row plans follows its kernel meta in the measured world (linux-modules-nvidia-470-
# generic stopped at 6.8.0-31 on noble while linux-image-generic is at 6.8.0-151: the install brought the old
# kernel, and the kernel the machine boots had no module).
stale, seen = [], 0
for row in csv.DictReader(open(os.path.join(SRCDIR, "data", "driver", "driver_packages.csv"), newline="")):
    if row["manager"] != "apt" or row["source"] != "distro" or "{KM}" not in row["signed_modules"]:
        continue
    world = pkgworld.World(pkgworld.find_world(row["ids"].split()[0], row["versions"].split()[0]))
    for km in row["kernels"].split():
        meta, _, target = km.partition("=")
        for branch in row["branches"].split():
            for template in row["signed_modules"].split():
                ok, why = follows(world, meta, target or meta, branch, template)
                seen += 1
                if not ok:
                    stale.append("%s %s" % (row["distro"], why))
t.ok(seen >= 40 and not stale, "class 3: each of the %d prebuilt-module metas the rows plan follows its kernel meta in the "
     "measured world (else DKMS with the kernel metas)" % seen, stale)
ARCHSYN = lambda krel, pkg, ver: [{"name": pkg, "version": ver, "extra": "kernel=%s pkgbase=%s" % (krel, pkg)}]


def arch_box(tag, krel, pkg, ver, g):
    b = Box(tag, "arch", krel, "arch.csv", g, synthetic=ARCHSYN(krel, pkg, ver))
    os.makedirs(os.path.join(b.root, "lib/modules", krel), exist_ok=True)
    open(os.path.join(b.root, "lib/modules", krel, "pkgbase"), "w").write(pkg + "\n")
    return b


b = arch_box("archlts", "6.12.60-1-lts", "linux-lts", "6.12.60-1", RTX4090)
r, d, _ = b.plan()
t.ok("nvidia-open-lts" in d.get("packages", []) and any(s.get("command", "") and s["command"].startswith("pacman -Syu")
                                                         for s in d.get("steps", [])),
     "class 3: Arch on linux-lts: nvidia-open-lts, installed with pacman -Syu", d.get("steps"))
r, doc = b.install()
ran_to_the_end(b, r, doc, "class 3: Arch linux-lts")

# ---- class 4: the branch is locked before an unversioned package is installed ----
b = Box("fed1080", "fedora", "6.16.7-200.fc43.x86_64", ["fedora-43.csv", "nvidia-fedora43.csv"], GTX1080,
        synthetic=[{"name": "kernel-core", "version": "6.16.7-200.fc43", "extra": "kernel=6.16.7-200.fc43.x86_64"}])
r, doc = b.install()
ran_to_the_end(b, r, doc, "class 4: Fedora 43 + GTX 1080 (cuda-drivers, versionlock first)")
t.ok(not b.driver_versions(580) and (b.version("kmod-nvidia-latest-dkms") or "").startswith("3:580."),
     "class 4: Fedora: everything of the driver is 580, the proprietary kmod (595 does not load on Pascal)", b.driver_versions(580))
b.sh("dnf", "upgrade", "-y")
t.ok(not b.driver_versions(580) and (b.version("nvidia-driver") or "").startswith("3:580."),
     "class 4: Fedora: `dnf upgrade` keeps 580 (the versionlock holds)", b.driver_versions(580))
b = Box("deb12nv", "debian12", "6.1.0-26-amd64", ["debian-12.csv", "nvidia-debian12.csv"], RTX4090,
        repos=debian_sources("bookworm"), synthetic=debian_kernel("6.1.0-26-amd64", "amd64"))
KEYDEB = b"!<arch>\ncuda-keyring fixture for the test\n"
KEYSHA = hashlib.sha256(KEYDEB).hexdigest()
for m in MIRRORS.values():
    for dd in ("debian12", "debian13"):
        krel = os.path.join(m, "cuda/repos/%s/x86_64" % dd)
        os.makedirs(krel, exist_ok=True)
        open(os.path.join(krel, "cuda-keyring_1.1-1_all.deb"), "wb").write(KEYDEB)
# The catalog pins NVIDIA's own keyring; this one pins the fixture's (CUDAUP_CATALOG, as a site would not).
cat = json.load(open(os.path.join(SRCDIR, "data", "catalog.json")))
for k in cat["driver"]["keyrings"]:
    if "debian12" in k["url"] or "debian13" in k["url"]:
        k["sha256"] = KEYSHA
CAT = os.path.join(t.tmpdir("cat"), "catalog.json")
json.dump(cat, open(CAT, "w"))
r, d, _ = b.plan("--driver-source", "nvidia")
steps = [s["action"] for s in d.get("steps", [])]
t.ok("pin" in steps and "install" in steps and steps.index("pin") < steps.index("install")
     and (d.get("packages") or [""])[0] == "nvidia-driver-pinning-580",
     "class 4: NVIDIA's apt repository: nvidia-driver-pinning-580 before nvidia-open", steps)
# A cache folder its group shares (0775): apt must get the checked bytes from a folder nobody else can write.
os.makedirs(os.path.join(b.dir, "cache"), mode=0o775, exist_ok=True)
os.chmod(os.path.join(b.dir, "cache"), 0o775)
DEBLOG = os.path.join(b.dir, "debs.jsonl")
r, doc = b.install("--driver-source", "nvidia", env={"CUDAUP_CATALOG": CAT, "STANDIN_DEB_LOG": DEBLOG})
ran_to_the_end(b, r, doc, "class 4: Debian 12 + RTX 4090 from NVIDIA's repository")
debs = [json.loads(x) for x in open(DEBLOG)] if os.path.exists(DEBLOG) else []
t.ok(debs and all(x["sha256"] == KEYSHA and x["dir_mode"] == 0o700 and x["dir_uid"] == os.geteuid() and not x["link"]
                 and x["uid"] == os.geteuid() and not os.path.exists(x["path"]) and not os.path.exists(os.path.dirname(x["path"]))
                 for x in debs),
     "issue 33: apt gets the keyring's checked bytes from a folder only cudaup's user can write (the cache is the group's), "
     "removed afterwards", debs)
# Under --root, apt runs inside the root and reads the path there: the .deb is written inside the root (through the
# runner) and apt gets the path inside it; nothing of it ever lands in this host's cache (the old code handed apt
# CACHE/keyring-XXXXXX/..., which does not exist inside the root: the stand-in apt, reading inside, refused it).
t.ok(debs and all(x["given"].startswith("/var/cache/cudaup-keyring-") and x["path"].startswith(b.root + "/var/cache/")
                  for x in debs) and not [f for f in os.listdir(os.path.join(b.dir, "cache")) if "keyring" in f]
     and "cuda-keyring" in b.installed(),
     "--root: the keyring .deb is written inside the root and apt is handed the path inside it, never the host's cache",
     debs)
t.ok(not b.driver_versions(580) and (b.version("nvidia-open") or "").startswith("580.")
     and not b.sh("apt-get", "dist-upgrade", "-y").returncode and (b.version("nvidia-open") or "").startswith("580."),
     "class 4: the unbranched nvidia-open is 580 (the pinning package came first), not 590, and stays so through a dist-upgrade",
     b.driver_versions(580))
# issue 33 item 3: the keyring's bytes are checked against the pin before apt sees them.
b2 = Box("deb12nvbad", "debian12", "6.1.0-26-amd64", ["debian-12.csv", "nvidia-debian12.csv"], RTX4090,
         repos=debian_sources("bookworm"), synthetic=debian_kernel("6.1.0-26-amd64", "amd64"))
r, doc = b2.install("--driver-source", "nvidia")
t.ok(r.rc == 2 and "sha256" in (doc.get("error") or "") and not any(c[:2] == ["apt-get", "install"] for c in b2.calls())
     and "cuda-keyring" not in b2.installed(),
     "issue 33: a keyring whose sha256 is not the pinned one is not handed to apt (exit 2)", (doc.get("error"), b2.calls()))
# Independent check chk32b F2: NVIDIA's Debian packages depend on packages Debian keeps in contrib (nvidia-support,
# nvidia-kernel-common, glx-alternative-nvidia, ...): with only `trixie main` listed the plan enables contrib for the
# release, -updates and -security, as NVIDIA's guide does (`add-apt-repository contrib`).  The old plan wrote no
# sources step for NVIDIA's repository, and the stand-in apt refused the install (unmet dependencies).
b = Box("deb13nvmain", "debian13", "6.12.48-amd64", ["debian-13.csv", "nvidia-debian13.csv"], RTX5090,
        repos=[(DEB, "trixie", ["main"])], synthetic=debian_kernel("6.12.48-amd64", "amd64"), cuda="12.8.1")
r, d, _ = b.plan("--driver-source", "nvidia", env={"CUDAUP_CATALOG": CAT})
why = " ".join(s.get("why") or "" for s in d.get("steps", []) if s.get("action") == "sources")
t.ok(d.get("source") == "nvidia" and "contrib" in why and "trixie trixie-updates trixie-security" in why,
     "chk32b F2: Debian 13 + RTX 5090 from NVIDIA's repository: the plan enables contrib for trixie, -updates and -security",
     (d.get("source"), [s.get("action") for s in d.get("steps", [])], why))
r, doc = b.install("--driver-source", "nvidia", env={"CUDAUP_CATALOG": CAT})
src = open(os.path.join(b.root, "etc/apt/sources.list.d/cudaup-nvidia-driver.sources")).read() \
    if os.path.exists(os.path.join(b.root, "etc/apt/sources.list.d/cudaup-nvidia-driver.sources")) else ""
t.ok("Suites: trixie\n" in src and "contrib" in src,
     "chk32b F2: with only `trixie main` listed, the added sources carry contrib for trixie", src)
ran_to_the_end(b, r, doc, "chk32b F2: Debian 13 + RTX 5090 from NVIDIA's repository with only `trixie main`")
t.ok((b.version("nvidia-open") or "").startswith("580.") and "nvidia-support" in b.installed()
     and "nvidia-kernel-common" in b.installed(),
     "chk32b F2: nvidia-open 580 installed, with Debian's contrib packages it needs",
     (b.version("nvidia-open"), b.calls()[-3:]))

# ---- class 5: openSUSE ----
b = Box("tw", "tumbleweed", "6.17.9-1-default", "opensuse-tumbleweed.csv", RTX4090,
        synthetic=[{"name": "kernel-default", "version": "6.17.9-1.1", "extra": "kernel=6.17.9-1-default"}])
r, d, _ = b.plan()
t.ok("/repos/suse16/" in json.dumps(d.get("steps")) and "20250306" not in json.dumps(d.get("steps")),
     "class 5: Tumbleweed takes NVIDIA's suse16 repository by its ID, not its date-like VERSION_ID", d.get("repositories"))
r, doc = b.install()
ran_to_the_end(b, r, doc, "class 5: Tumbleweed + RTX 4090 (G07 signed CUDA KMP)")
kmp, utils = b.version("nvidia-open-driver-G07-signed-cuda-kmp-default"), b.version("nvidia-compute-utils-G07")
t.ok(kmp and utils and kmp.split("_")[0] == utils.split("-")[0],
     "class 5: the user space is at the KMP's version (%s), not the newest (595.112.07)" % (kmp or "?").split("_")[0], (kmp, utils))
locks = open(os.path.join(b.root, "etc/zypp/locks")).read() if os.path.exists(os.path.join(b.root, "etc/zypp/locks")) else ""
t.ok("nvidia-open-driver-G07-signed-cuda-kmp-default" in locks and "nvidia-compute-utils-G07" in locks,
     "class 5: the KMP and the utils are locked together", locks)
b = Box("leap", "leap156", "6.4.0-150600.23.25-default", "opensuse-leap-15.6.csv", RTX4090,
        synthetic=[{"name": "kernel-default", "version": "6.4.0-150600.23.25.1", "extra": "kernel=6.4.0-150600.23.25-default"}])
r, doc = b.install()
ran_to_the_end(b, r, doc, "class 5: Leap 15.6 + RTX 4090 (G06 signed CUDA KMP, key imported)")
t.ok("nvidia-open-driver-G06-signed-cuda-kmp-default" in b.installed() and "nvidia-open-driver-G06-signed-kmp-default" not in b.installed(),
     "class 5: with NVIDIA's CUDA repository the open flavor is the -signed-cuda-kmp build, not the graphics one",
     sorted(n for n in b.installed() if "nvidia" in n))

# ---- class 6: NVSwitch boards get the fabric manager, held and enabled ----
b = Box("hgxu", "ubuntu2404", "6.8.0-45-generic", ["ubuntu-24.04.csv"], H100X8, repos=ubuntu_sources("noble"),
        synthetic=ubuntu_kernel("6.8.0-45-generic", "generic"), other_pci=NVSW_H100)
r, d, _ = b.plan()
t.ok(d.get("nvswitch") == 4 and (d.get("fabricmanager") or {}).get("packages") == ["nvidia-fabricmanager-580"]
     and "nvidia-headless-no-dkms-580-server-open" in d.get("packages", []),
     "class 6: HGX H100 on Ubuntu: 4 NVSwitch bridges, the -server branch and nvidia-fabricmanager-580", d)
r, doc = b.install()
ran_to_the_end(b, r, doc, "class 6: Ubuntu 24.04 HGX H100")
t.ok("nvidia-fabricmanager-580" in b.installed()
     and os.path.exists(os.path.join(b.root, "etc/systemd/system/multi-user.target.wants/nvidia-fabricmanager.service")),
     "class 6: the fabric manager is installed and its service enabled", sorted(n for n in b.installed() if "fabric" in n))


def fm_after_module(b, r, what):
    """The fabric manager asks the NVSwitch driver for its switches when it starts and exits without it
    (NVIDIA/gpu-operator#610; the stand-in systemctl refuses such a start): its service comes after the module
    loads, started (--now) only when modprobe loaded it (exit 0), else enabled to start at the next boot (exit 5)."""
    cs = [c for c in b.calls() if c[0] in ("modprobe", "systemctl")]
    names = [c[0] for c in cs]
    svc = [c for c in cs if c[0] == "systemctl"]
    active = os.path.exists(os.path.join(b.root, "var/lib/pkgworld/active/nvidia-fabricmanager.service"))
    enabled = os.path.exists(os.path.join(b.root, "etc/systemd/system/multi-user.target.wants/nvidia-fabricmanager.service"))
    ok = "modprobe" in names and "systemctl" in names and names.index("modprobe") < names.index("systemctl") and enabled
    if r.rc == 0:
        ok = ok and svc == [["systemctl", "enable", "--now", "nvidia-fabricmanager"]] and active
    else:
        ok = ok and svc == [["systemctl", "enable", "nvidia-fabricmanager"]] and not active
    return t.ok(ok, "class 6: %s: the fabric manager's service after modprobe nvidia, %s" % (
        what, "started with it (exit 0)" if r.rc == 0 else "enabled for the next boot, not started (exit %d)" % r.rc),
        (r.rc, cs, enabled, active, r.err[-1500:]))


fm_after_module(b, r, "Ubuntu 24.04 HGX H100 (the module is for the newer kernel the install brought)")
# The running kernel is the archive's newest: the prebuilt module loads at once, and then the fabric manager starts.
NEW24 = machines.newest_kernel("ubuntu-24.04") + "-generic"  # the archive's newest, as recorded
b = Box("hgxu151", "ubuntu2404", NEW24, ["ubuntu-24.04.csv"], H100X8, repos=ubuntu_sources("noble"),
        installed=["linux-image-generic"], other_pci=NVSW_H100)
r, d, _ = b.plan()
acts = [s["action"] for s in d.get("steps", [])]
t.ok(acts[-2:] == ["load", "service"] and d["steps"][-1]["argv"] == ["systemctl", "enable", "--now", "nvidia-fabricmanager"],
     "class 6: the plan loads the module, then enables and starts the fabric manager", acts)
r, doc = b.install()
t.eq(r.rc, 0, "class 6: HGX H100 on the archive's newest kernel: the module loads at once (exit 0)", (r.err[-2000:], b.calls()[-6:]))
fm_after_module(b, r, "HGX H100 on the archive's newest kernel")
# A planned reboot (nouveau holds the GPUs): the service is enabled, not started, and starts at the next boot.
b = Box("hgxnouv", "ubuntu2404", NEW24, ["ubuntu-24.04.csv"], [g[:3] + ("nouveau",) + g[4:] for g in H100X8], repos=ubuntu_sources("noble"),
        installed=["linux-image-generic"], other_pci=NVSW_H100, extra_spec={"modules": ["nouveau"]})
r, d, _ = b.plan()
acts = [s["action"] for s in d.get("steps", [])]
t.ok(d.get("reboot") and acts[-2:] == ["service", "reboot"] and d["steps"][-2]["argv"] == ["systemctl", "enable", "nvidia-fabricmanager"],
     "class 6: with a reboot planned, the fabric manager's service is enabled without --now before the stop", acts)
b = Box("hgxr", "rocky9", EL9K, ROCKY9, A100X8, synthetic=EL9SYN, other_pci=NVSW_A100)
r, doc = b.install()
ran_to_the_end(b, r, doc, "class 6: Rocky 9 HGX A100")
fm_after_module(b, r, "Rocky 9 HGX A100")
t.ok((b.version("nvidia-fabric-manager") or "").startswith("580.") and "libnvidia-nscq-580" in b.installed(),
     "class 6: Rocky 9: the fm profile's nvidia-fabric-manager and libnvidia-nscq-580", sorted(b.installed()))
# doctor names a missing fabric manager on a machine whose driver runs.
root = os.path.join(t.tmpdir("hgxdoc"), "root")
machines.build_spec({"os": "ubuntu2404", "gpus": [g[:3] + ("nvidia",) + g[4:] for g in H100X8], "other_pci": NVSW_H100,
                     "driver": "580.95.05", "cuda": 13000, "libs": True}, root)
r = run(["doctor", "--json", "--root", root], env={"FAKE_NVIDIA_CONFIG": os.path.join(root, "fake-nvidia.conf")})
p = {x["code"]: x for x in (r.json() or {}).get("problems", [])}.get("fabricmanager-missing")
t.ok(p and "nvidia-fabricmanager" in p["fix"] and "802" in p["message"], "class 6: doctor names the missing fabric manager", (r.json() or {}).get("problems"))

# ---- class 6, fourth generation (HGX B200): the NVSwitches are no NVIDIA PCI function; the baseboard's ConnectX-7
# exposes a management PF per port whose VPD holds SMDL=SW_MNG (siderolabs' nvswitch.go; NVIDIA's gpu-driver-container
# greps SW_MNG), and the fabric manager needs NVIDIA's NVLink Subnet Manager (nvlsm, libnvsdm) ----
B200X8 = gpus("2901", "10.0", "NVIDIA B200", n=8, cls="0x030200", mib=183359)
CX7 = "NVIDIA ConnectX-7 HHHL Adapter Card"
SWMNG = [("mlx5_%d" % (8 + i), "0000:%02x:00.1" % (0xa0 + i),
          machines.vpd(CX7, [("PN", "MCX750500B-0D00"), ("SN", "MT0000X0000%d" % i), ("V3", "SMDL=SW_MNG")])) for i in range(4)]
NIC = [("mlx5_0", "0000:9a:00.0", machines.vpd(CX7, [("PN", "MCX75310AAS-NEAT"), ("SN", "MT0000X00009"), ("V0", "PCIeGen5 x16")]))]
for m in MIRRORS.values():
    krel = os.path.join(m, "cuda/repos/ubuntu2404/x86_64")
    os.makedirs(krel, exist_ok=True)
    open(os.path.join(krel, "cuda-keyring_1.1-1_all.deb"), "wb").write(b"!<arch>\ncuda-keyring fixture (ubuntu2404)\n")
cat = json.load(open(os.path.join(SRCDIR, "data", "catalog.json")))
for k in cat["driver"]["keyrings"]:
    if "ubuntu2404" in k["url"]:
        k["sha256"] = hashlib.sha256(b"!<arch>\ncuda-keyring fixture (ubuntu2404)\n").hexdigest()
CAT2404 = os.path.join(t.tmpdir("cat2404"), "catalog.json")
json.dump(cat, open(CAT2404, "w"))
U2404NV = ["ubuntu-24.04.csv", "nvidia-ubuntu2404.csv"]
b = Box("b200u", "ubuntu2404", "6.8.0-45-generic", U2404NV, B200X8, repos=ubuntu_sources("noble"),
        synthetic=ubuntu_kernel("6.8.0-45-generic", "generic"), extra_spec={"infiniband": SWMNG + NIC}, cuda="12.8.1")
r, d, _ = b.plan(env={"CUDAUP_CATALOG": CAT2404})
fm = d.get("fabricmanager") or {}
svc = [s["argv"] for s in d.get("steps", []) if s["action"] == "service"]
t.ok(d.get("nvlink5") == 4 and d.get("source") == "nvidia" and fm.get("packages") == ["nvidia-fabricmanager-580"]
     and fm.get("nvlsm") == ["nvlsm", "libnvsdm"] and {"nvlsm", "libnvsdm"} <= set(d.get("packages", []))
     and svc == [["systemctl", "enable", "--now", "nvidia-fabricmanager"]] and [s["action"] for s in d["steps"]][-2:] == ["load", "service"]
     and any("NVLink Subnet Manager" in x and "NVIDIA's repository" in x for x in d.get("reasons", [])),
     "class 6: HGX B200 on Ubuntu 24.04 (4 SW_MNG ports, one plain NIC): NVIDIA's repository (Ubuntu's archive has no "
     "nvlsm), nvidia-fabricmanager-580 with nvlsm and libnvsdm, the service enabled, the reason says why", d)
r, doc = b.install(env={"CUDAUP_CATALOG": CAT2404})
ran_to_the_end(b, r, doc, "class 6: Ubuntu 24.04 HGX B200")
fm_after_module(b, r, "Ubuntu 24.04 HGX B200")
t.ok((b.version("libnvsdm") or "").startswith("580.") and b.version("nvlsm") and b.version("nvidia-fabricmanager-580")
     and os.path.exists(os.path.join(b.root, "etc/systemd/system/multi-user.target.wants/nvidia-fabricmanager.service")),
     "class 6: HGX B200 on Ubuntu: nvlsm, libnvsdm 580 and the fabric manager installed, its service enabled",
     sorted(n for n in b.installed() if "nv" in n))
t.ok(not b.sh("apt-get", "dist-upgrade", "-y").returncode and (b.version("libnvsdm") or "").startswith("580."),
     "class 6: HGX B200 on Ubuntu: libnvsdm stays on 580 through a dist-upgrade (the pinning package holds it)",
     b.version("libnvsdm"))
r, _, d = b.plan("--driver-source", "distro", env={"CUDAUP_CATALOG": CAT2404})
t.ok(r.rc == 3 and "NVLink Subnet Manager" in (d.get("error") or "")
     and "--driver-source nvidia" in (d.get("advice") or "") and "nvlsm" in (d.get("advice") or ""),
     "class 6: HGX B200 with --driver-source distro: refused, naming the missing NVLink Subnet Manager and "
     "--driver-source nvidia", (d.get("error"), d.get("advice")))
r = run(["plan", "--json"] + b.args("--driver-source", "distro"), env=b.env(CUDAUP_CATALOG=CAT2404, LANGUAGE="zh_CN", LANG="C.UTF-8",
                                                                           CUDAUP_LOCALEDIR=os.environ.get("CUDAUP_LOCALEDIR") or os.path.join(BUILDDIR, "po")))
zd = r.json() or {}
t.ok("第四代 NVSwitch" in (zd.get("error") or "") and "--driver-source nvidia" in (zd.get("advice") or ""),
     "class 6: the refusal in zh_CN", (zd.get("error"), zd.get("advice")))
# An ordinary ConnectX-7 NIC (no SW_MNG in its VPD) beside the same GPUs: no fabric manager, Ubuntu's own packages.
b = Box("b200nic", "ubuntu2404", "6.8.0-45-generic", U2404NV, B200X8, repos=ubuntu_sources("noble"),
        synthetic=ubuntu_kernel("6.8.0-45-generic", "generic"), extra_spec={"infiniband": NIC}, cuda="12.8.1")
r, d, _ = b.plan(env={"CUDAUP_CATALOG": CAT2404})
t.ok(d.get("action") == "install" and d.get("nvlink5") == 0 and d.get("fabricmanager") is None and d.get("source") == "distro"
     and not [p for p in d.get("packages", []) if "fabric" in p or p in ("nvlsm", "libnvsdm")],
     "class 6: eight B200 with a plain ConnectX-7 NIC: no fabric manager, no nvlsm, Ubuntu's own packages", d)
t.ok(d.get("nvlink5_unread") == 0 and not [x for x in d.get("reasons", []) if "could not be read" in x],
     "class 6: a plain NIC whose VPD was read: nothing said of unread VPD", d.get("reasons"))
# The same board planned by a user who may not read the VPD (Linux makes sysfs vpd 0600 root): it must not pass for a
# plain one.  Root reads any file whatever its mode, so each VPD here is a folder, which no process reads as a file.
b = Box("b200unread", "ubuntu2404", "6.8.0-45-generic", U2404NV, B200X8, repos=ubuntu_sources("noble"),
        synthetic=ubuntu_kernel("6.8.0-45-generic", "generic"), extra_spec={"infiniband": SWMNG + NIC}, cuda="12.8.1")
vpds = [os.path.join(b.root, "sys/class/infiniband", n, "device/vpd") for n in os.listdir(os.path.join(b.root, "sys/class/infiniband"))]
for v in vpds:
    v = os.path.realpath(v)
    os.remove(v)
    os.mkdir(v)
r, d, _ = b.plan(env={"CUDAUP_CATALOG": CAT2404})
t.ok(r.rc == 0 and d.get("nvlink5") == 0 and d.get("nvlink5_unread") == len(vpds) == 5
     and any("could not be read" in x and "root" in x and "NVLink Subnet Manager" in x for x in d.get("reasons", [])),
     "class 6: an HGX B200 whose VPD cannot be read here (not root): the plan says it cannot tell and to run as root",
     (d.get("nvlink5_unread"), d.get("reasons")))
r = run(["doctor", "--json", "--root", b.root, "--state-dir", b.state], env=b.env(CUDAUP_CATALOG=CAT2404))
probs = {x["code"]: x for x in (r.json() or {}).get("problems", [])}
t.ok("nvswitch-unknown" in probs and "sudo cudaup doctor" in probs["nvswitch-unknown"]["fix"],
     "class 6: doctor where the VPD cannot be read: nvswitch-unknown, run it as root", sorted(probs))
# GPUs no fourth-generation board carries (driver_nvswitch_vpd.csv gpu_cc: 10.0, 10.3) with a NIC whose VPD cannot
# be read: nothing to tell, so nothing said (an H100 cloud VM with InfiniBand, planned as a user).
b = Box("h100unread", "ubuntu2404", "6.8.0-45-generic", U2404NV, gpus("2330", "9.0", "NVIDIA H100 80GB HBM3", n=8),
        repos=ubuntu_sources("noble"), synthetic=ubuntu_kernel("6.8.0-45-generic", "generic"), extra_spec={"infiniband": NIC},
        cuda="12.8.1")
for n in os.listdir(os.path.join(b.root, "sys/class/infiniband")):
    v = os.path.realpath(os.path.join(b.root, "sys/class/infiniband", n, "device/vpd"))
    os.remove(v)
    os.mkdir(v)
r, d, _ = b.plan(env={"CUDAUP_CATALOG": CAT2404})
r2 = run(["doctor", "--json", "--root", b.root, "--state-dir", b.state], env=b.env(CUDAUP_CATALOG=CAT2404))
t.ok(r.rc == 0 and d.get("nvlink5_unread") == 1 and not [x for x in d.get("reasons", []) if "could not be read" in x]
     and "nvswitch-unknown" not in {x["code"] for x in (r2.json() or {}).get("problems", [])},
     "class 6: eight H100 with a NIC whose VPD cannot be read: no B200 board is possible, nothing said",
     (d.get("nvlink5_unread"), d.get("reasons")))
b = Box("b200r", "rocky9", EL9K, ROCKY9, B200X8, synthetic=EL9SYN, extra_spec={"infiniband": SWMNG}, cuda="12.8.1")
r, d, _ = b.plan()
t.ok(d.get("nvlink5") == 4 and (d.get("fabricmanager") or {}).get("nvlsm") == ["nvlsm", "libnvsdm-580.*"],
     "class 6: HGX B200 on Rocky 9: the fabric manager with nvlsm and libnvsdm", d.get("fabricmanager"))
r, doc = b.install()
ran_to_the_end(b, r, doc, "class 6: Rocky 9 HGX B200")
fm_after_module(b, r, "Rocky 9 HGX B200")
t.ok((b.version("nvidia-fabric-manager") or "").startswith("580.") and (b.version("libnvsdm") or "").startswith("580.")
     and b.version("nvlsm") and "systemctl" in [c[0] for c in b.calls()],
     "class 6: Rocky 9 HGX B200: nvidia-fabric-manager, nvlsm and libnvsdm 580 installed, the service enabled",
     (sorted(n for n in b.installed() if "nv" in n), b.calls()[-4:]))
# doctor on a B200 board whose driver runs: the fabric manager disabled, then nvlsm missing, then neither.
B200RUN = [g[:3] + ("nvidia",) + g[4:] for g in B200X8]
for tag, fm_on, lsm_on, want in (("nofm", False, True, {"fabricmanager-missing"}), ("nolsm", True, False, {"nvlsm-missing"}),
                                 ("both", True, True, set()), ("nic", False, False, set())):
    root = os.path.join(t.tmpdir("b200doc" + tag), "root")
    machines.build_spec({"os": "ubuntu2404", "gpus": B200RUN, "driver": "580.95.05", "cuda": 13000, "libs": True,
                         "infiniband": NIC if tag == "nic" else SWMNG}, root)
    if fm_on:
        machines.write(os.path.join(root, "etc/systemd/system/multi-user.target.wants/nvidia-fabricmanager.service"), "")
    if lsm_on:
        machines.write(os.path.join(root, "usr/share/nvidia/nvlsm/nvlsm.conf"), "")
    r = run(["doctor", "--json", "--root", root], env={"FAKE_NVIDIA_CONFIG": os.path.join(root, "fake-nvidia.conf")})
    probs = {x["code"]: x for x in (r.json() or {}).get("problems", [])}
    got = {c for c in probs if c in ("fabricmanager-missing", "nvlsm-missing")}
    fix = " ".join(probs[c].get("fix") or "" for c in got)
    t.ok(got == want and (not want or ("nvlsm libnvsdm" in fix and "CUDA_ERROR_SYSTEM_NOT_READY" in
                                       " ".join(probs[c]["message"] for c in got))),
         "class 6: doctor on a running HGX B200 (%s): names %s" % (tag, sorted(want) or "nothing"), (got, fix))

# ---- class 7 (part): Debian's sources and Kepler ----
b = Box("deb12src", "debian12", "6.1.0-26-amd64", "debian-12.csv", RTX4090, repos=debian_sources("bookworm"),
        synthetic=debian_kernel("6.1.0-26-amd64", "amd64"), cuda="12.2.2")
r, doc = b.install()
src = open(os.path.join(b.root, "etc/apt/sources.list.d/cudaup-nvidia-driver.sources")).read() \
    if os.path.exists(os.path.join(b.root, "etc/apt/sources.list.d/cudaup-nvidia-driver.sources")) else ""
t.ok(all("Suites: %s\n" % s in src for s in ("bookworm", "bookworm-updates", "bookworm-security")) and "debian-security" in src,
     "class 7: the added components cover bookworm, -updates and -security (at debian-security)", src)
t.eq(b.version("nvidia-driver"), "535.309.01-0+deb12u1", "class 7: so Debian 12's nvidia-driver is the security release the plan counts on")
# Only the release listed (what debootstrap writes): the added sources carry -updates and -security too, each
# suite once, and the plan says which suites it writes.
for code, os_, krel, world, cuda, want in (("bookworm", "debian12", "6.1.0-26-amd64", "debian-12.csv", "12.2.2", "535.309.01-0+deb12u1"),
                                           ("trixie", "debian13", "6.12.48-amd64", "debian-13.csv", "12.4.1", None)):
    b = Box("%s-only" % code, os_, krel, world, RTX4090, repos=[(DEB, code, ["main"])], synthetic=debian_kernel(krel, "amd64"), cuda=cuda)
    r, d, _ = b.plan()
    why = " ".join(s.get("why") or "" for s in d.get("steps", []) if s.get("action") == "sources")
    t.ok("%s %s-updates %s-security" % (code, code, code) in why, "class 7: %s: the plan's sources step names the suites it writes" % code, why)
    r, doc = b.install()
    path = os.path.join(b.root, "etc/apt/sources.list.d/cudaup-nvidia-driver.sources")
    src = open(path).read() if os.path.exists(path) else ""
    stanzas = [dict(ln.split(": ", 1) for ln in st.strip().splitlines() if ": " in ln) for st in src.split("\n\n") if "Suites:" in st]
    got = sorted((x["URIs"], x["Suites"], x["Components"]) for x in stanzas)
    full = "main contrib non-free non-free-firmware"
    t.eq(got, sorted([(DEB, code, "contrib non-free non-free-firmware"), (DEB, code + "-updates", full),
                      (DEB + "-security", code + "-security", full)]),
         "class 7: %s with only `deb %s %s main`: the added sources carry the release's missing components and -updates and "
         "-security whole, each once" % (code, DEB, code), src)
    ran_to_the_end(b, r, doc, "class 7: %s with only the release listed" % code)
    if want:
        t.eq(b.version("nvidia-driver"), want, "class 7: %s with only the release listed gets the security release of nvidia-driver" % code)
b = Box("deb12k80", "debian12", "6.1.0-26-amd64", "debian-12.csv", K80, repos=debian_sources("bookworm"),
        synthetic=debian_kernel("6.1.0-26-amd64", "amd64"), cuda="11.4.4")
r, d, _ = b.plan()
t.ok(d.get("branch") == "470" and "nvidia-tesla-470-driver" in d.get("packages", []),
     "class 7: Debian 12 carries nvidia-tesla-470-driver for Kepler: planned, not refused", d or r.err)
r, doc = b.install()
ran_to_the_end(b, r, doc, "class 7: Debian 12 + Tesla K80 (nvidia-tesla-470-driver)")
# Kepler on RHEL 8 and its rebuilds: NVIDIA's rhel8 repository carries branch 470 as the stream 470-dkms (issue 32,
# found by an independent check: it was refused).  On EL9 no source cudaup installs from has 470: the refusal names
# ELRepo's kmod-nvidia-470xx, a third-party repository cudaup does not install from.
ROCKY8 = ["rocky-8.csv", "el-8.csv", "nvidia-rhel8.csv"]
EL8K = "4.18.0-513.5.1.el8_9.x86_64"
EL8SYN = [{"name": "kernel-core", "version": "4.18.0-513.5.1.el8_9", "extra": "kernel=" + EL8K}]
T4 = gpus("1eb8", "7.5", "NVIDIA Tesla T4", cls="0x030200", mib=15360)
b = Box("rocky8k80", "rocky8", EL8K, ROCKY8, K80, synthetic=EL8SYN, cuda="11.4.4")
r, d, doc = b.plan()
acts = [s["action"] for s in d.get("steps", [])]
t.ok(r.rc == 0 and (d.get("branch"), d.get("flavor"), d.get("module_stream"), d.get("pin")) ==
     ("470", "proprietary", "nvidia-driver:470-dkms", "dnf -y module enable nvidia-driver:470-dkms")
     and "cuda-drivers" in d.get("packages", []) and acts[:2] == ["crb", "epel"]
     and "dnf config-manager --set-enabled powertools" in json.dumps(d.get("steps")),
     "class 7: Rocky 8 + Tesla K80: NVIDIA's 470-dkms stream, PowerTools and EPEL first, the stream holds the branch",
     (doc.get("error"), d.get("pin"), acts, d.get("packages")))
r, doc = b.install()
ran_to_the_end(b, r, doc, "class 7: Rocky 8 + Tesla K80 (stream 470-dkms, dkms from EPEL)")
calls = [" ".join(c) for c in b.calls()]
at = lambda w: next((i for i, c in enumerate(calls) if c.startswith(w)), -1)
t.ok(0 <= at("dnf config-manager --set-enabled powertools") < at("dnf install -y epel-release") < at("dnf -y module enable nvidia-driver:470-dkms")
     and (b.version("dkms") or "").endswith(".el8") and b.version("cuda-drivers") == "470.256.02-1"
     and (b.version("kmod-nvidia-latest-dkms") or "").startswith("3:470.256.02") and not b.driver_versions(470),
     "class 7: Rocky 8 + K80: PowerTools, then EPEL, then the 470-dkms stream; dkms from EPEL, everything of the driver 470.256.02",
     (calls, b.driver_versions(470)))
b.sh("dnf", "upgrade", "-y")
t.ok(not b.driver_versions(470) and b.version("cuda-drivers") == "470.256.02-1",
     "class 7: Rocky 8 + K80: `dnf upgrade` stays on 470 (the stream holds it; 580 and 595 are in the repository)", b.driver_versions(470))
b = Box("rocky8k80t4", "rocky8", EL8K, ROCKY8, K80 + [("0000:1a:00.0",) + T4[0][1:]], synthetic=EL8SYN, cuda="11.4.4")
r, d, doc = b.plan()
t.eq((d.get("branch"), d.get("flavor"), d.get("module_stream")), ("470", "proprietary", "nvidia-driver:470-dkms"),
     "class 7: Rocky 8 + K80 and T4: 470 proprietary serves both", (doc.get("error"), d.get("packages")))
r, doc = b.install()
ran_to_the_end(b, r, doc, "class 7: Rocky 8 + K80 and T4 (stream 470-dkms)")
for tag, os_, world in (("rocky9k80", "rocky9", ROCKY9), ("rhel9k80", "rhel9", ["rhel-9.csv", "el-9.csv", "nvidia-rhel9.csv"])):
    b = Box(tag, os_, EL9K, world, K80, synthetic=EL9SYN, cuda="11.4.4")
    r, d, doc = b.plan()
    err, adv = doc.get("error") or "", doc.get("advice") or ""
    t.ok(r.rc == 3 and "ELRepo" in err and "kmod-nvidia-470xx" in err and "third-party" in err and "470" in err
         and "ELRepo" in adv and "kmod-nvidia-470xx" in adv and not [c for c in b.calls() if c[:2] == ["dnf", "install"]],
         "class 7: %s + Tesla K80: refused, naming ELRepo's kmod-nvidia-470xx (third-party, not installed by cudaup)" % os_, (err, adv))

# ---- class 7 (part): a held dpkg lock is waited for, and said; apt and dpkg run without debconf questions ----
import fcntl  # noqa: E402
import subprocess  # noqa: E402
from cutest import BIN, base_env  # noqa: E402
b = Box("deb12lock", "debian12", "6.1.0-26-amd64", "debian-12.csv", RTX4090, repos=debian_sources("bookworm"),
        synthetic=debian_kernel("6.1.0-26-amd64", "amd64"), cuda="12.2.2")
ENVLOG = os.path.join(b.dir, "env.jsonl")
lockf = os.path.join(b.root, "var/lib/dpkg/lock-frontend")
os.makedirs(os.path.dirname(lockf), exist_ok=True)
lfd = os.open(lockf, os.O_RDWR | os.O_CREAT, 0o640)
fcntl.lockf(lfd, fcntl.LOCK_EX)  # as unattended-upgrades on a fresh cloud machine holds it
p = subprocess.Popen([BIN, "install", "--yes", "--json", "--env-scope", "none"] + b.args(),
                     env=base_env(b.env(STANDIN_ENV_LOG=ENVLOG)), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
said, seen = None, []
for ln in p.stderr:  # the order of events decides, not the clock: release the lock once cudaup says it waits
    seen.append(ln)
    if "package manager is busy" in ln:
        said = ln
        break
fcntl.lockf(lfd, fcntl.LOCK_UN)
os.close(lfd)
try:
    out, rest = p.communicate(timeout=600)
except subprocess.TimeoutExpired:
    p.kill()
    out, rest = p.communicate()
t.ok(said and "/var/lib/dpkg/lock-frontend" in said and "process %d" % os.getpid() in said,
     "class 7: a held dpkg lock is waited for, and cudaup says who holds it", (said, seen[-5:]))
boot = machine.boot(b.root)
t.ok(p.returncode in (0, 5) and boot["module"] is not None,
     "class 7: once the lock is released the install goes on to its end (exit %s)" % p.returncode, (out[-1500:], rest[-1500:]))
# The package manager's output reaches the screen while it runs (a DKMS build takes minutes): the stand-in
# apt-get prints a line and holds until the test has seen that line among cudaup's events.
b = Box("deb12stream", "debian12", "6.1.0-26-amd64", "debian-12.csv", RTX4090, repos=debian_sources("bookworm"),
        synthetic=debian_kernel("6.1.0-26-amd64", "amd64"), cuda="12.2.2")
go = os.path.join(b.dir, "go")
p = subprocess.Popen([BIN, "install", "--yes", "--json", "--env-scope", "none"] + b.args(),
                     env=base_env(b.env(STANDIN_HOLD="apt-get install=" + go)), stdout=subprocess.PIPE,
                     stderr=subprocess.PIPE, text=True)
streamed, seen = None, []
for ln in p.stderr:
    seen.append(ln)
    if "holds until" in ln:
        streamed = ln
        break
open(go, "w").close()
out, rest = p.communicate(timeout=600)
t.ok(streamed and '"event":"log"' in streamed and "stand-in: apt-get holds until" in streamed,
     "class 7: the package manager's output is on the screen while it runs, line by line", (streamed, seen[-4:]))
t.ok(p.returncode in (0, 5), "class 7: and the install goes on to its end (exit %s)" % p.returncode, rest[-1500:])
# A package step that fails is answered with the package manager's advice, not pip's.
b = Box("deb12fail", "debian12", "6.1.0-26-amd64", "debian-12.csv", RTX4090, repos=debian_sources("bookworm"),
        synthetic=debian_kernel("6.1.0-26-amd64", "amd64"), cuda="12.2.2")
r, doc = b.install(env={"STANDIN_FAIL": "apt-get install"})
t.ok(r.rc != 0 and "package manager" in (doc.get("advice") or "") and "pip" not in (doc.get("advice") or ""),
     "class 7: a failed package step's advice speaks of the package manager, not of pip", (r.rc, doc.get("error"), doc.get("advice")))
envs = [json.loads(x) for x in open(ENVLOG)] if os.path.exists(ENVLOG) else []
apt_envs = [e for e in envs if e["tool"] in ("apt-get", "apt-mark", "dpkg")]
t.ok(apt_envs and all(e["DEBIAN_FRONTEND"] == "noninteractive" for e in apt_envs),
     "class 7: apt-get and dpkg run with DEBIAN_FRONTEND=noninteractive", envs)

# ---- the grid: distributions x kernels x GPUs x starting states; each install runs to its end in its world ----
L4 = gpus("27b8", "8.9", "NVIDIA L4", cls="0x030200", mib=23034)
RTX3090 = gpus("2204", "8.6", "NVIDIA GeForce RTX 3090")
A100 = gpus("20b5", "8.0", "NVIDIA A100 80GB PCIe", cls="0x030200", mib=81920)
V100 = gpus("1db4", "7.0", "NVIDIA Tesla V100-PCIE-16GB", cls="0x030200", mib=16384)
NOUV = lambda g: [x[:3] + ("nouveau",) + x[4:] for x in g]
LOADED = lambda g: [x[:3] + ("nvidia",) + x[4:] for x in g]
FEDSYN = [{"name": "kernel-core", "version": "6.16.7-200.fc43", "extra": "kernel=6.16.7-200.fc43.x86_64"}]
LEAPSYN = [{"name": "kernel-default", "version": "6.4.0-150600.23.25.1", "extra": "kernel=6.4.0-150600.23.25-default"}]
TWSYN = [{"name": "kernel-default", "version": "6.17.9-1.1", "extra": "kernel=6.17.9-1-default"}]
J, N = ["ubuntu-22.04.csv"], ["ubuntu-24.04.csv"]
D12, D13 = "debian-12.csv", "debian-13.csv"
GRID = [
    # name, os, kernel, world, gpus, options, expectation (branch, flavor) or ("refuse", words)
    ("22.04 GA + GTX 970, nouveau, Secure Boot", "ubuntu2204", "5.15.0-91-generic", J, NOUV(GTX970),
     dict(repos=ubuntu_sources("jammy"), synthetic=ubuntu_kernel("5.15.0-91-generic", "generic"), secure_boot=True, extra_spec={"modules": ["nouveau"]}), ("580", "proprietary")),
    ("22.04 HWE + RTX 4090", "ubuntu2204", "6.8.0-45-generic", J, RTX4090,
     dict(repos=ubuntu_sources("jammy"), synthetic=ubuntu_kernel("6.8.0-45-generic", "generic-hwe-22.04")), ("580", "open")),
    ("22.04 lowlatency + RTX 3090", "ubuntu2204", "5.15.0-100-lowlatency", J, RTX3090,
     dict(repos=ubuntu_sources("jammy"), synthetic=ubuntu_kernel("5.15.0-100-lowlatency", "lowlatency")), ("580", "open")),
    ("22.04 GCP + L4", "ubuntu2204", "6.5.0-1020-gcp", J, L4,
     dict(repos=ubuntu_sources("jammy"), synthetic=ubuntu_kernel("6.5.0-1020-gcp", "gcp")), ("580", "open")),
    ("22.04 + GTX 1080 on driver 470", "ubuntu2204", "5.15.0-91-generic", J, LOADED(GTX1080),
     dict(repos=ubuntu_sources("jammy"), synthetic=ubuntu_kernel("5.15.0-91-generic", "generic"),
          extra_spec={"driver": "470.256.02", "cuda": 11040, "libs": True}, args=["--driver", "580"]), ("580", "proprietary")),
    ("22.04 + Tesla K80 (Kepler)", "ubuntu2204", "5.15.0-91-generic", J, K80,
     dict(repos=ubuntu_sources("jammy"), synthetic=ubuntu_kernel("5.15.0-91-generic", "generic"), cuda="11.4.4"), ("470", "proprietary")),
    ("22.04 KVM kernel (no prebuilt modules) + RTX 4090", "ubuntu2204", "5.15.0-1050-kvm", J, RTX4090,
     dict(repos=ubuntu_sources("jammy"), synthetic=ubuntu_kernel("5.15.0-1050-kvm", "kvm")), ("580", "open")),
    ("24.04 + Tesla K80 (Kepler: 470's prebuilt modules stop at 6.8.0-31, so DKMS)", "ubuntu2404", "6.8.0-45-generic", N, K80,
     dict(repos=ubuntu_sources("noble"), synthetic=ubuntu_kernel("6.8.0-45-generic", "generic"), cuda="11.4.4"), ("470", "proprietary")),
    ("24.04 + RTX 5090 on driver 550", "ubuntu2404", "6.8.0-45-generic", N, LOADED(RTX5090),
     dict(repos=ubuntu_sources("noble"), synthetic=ubuntu_kernel("6.8.0-45-generic", "generic"),
          extra_spec={"driver": "550.54.14", "cuda": 12040, "libs": True}, cuda="12.8.1"), ("580", "open")),
    ("24.04 HWE + GTX 1080, Secure Boot", "ubuntu2404", "6.11.0-29-generic", N, GTX1080,
     dict(repos=ubuntu_sources("noble"), synthetic=ubuntu_kernel("6.11.0-29-generic", "generic-hwe-24.04"), secure_boot=True), ("580", "proprietary")),
    ("24.04 Azure + A100", "ubuntu2404", "6.8.0-1010-azure", N, A100,
     dict(repos=ubuntu_sources("noble"), synthetic=ubuntu_kernel("6.8.0-1010-azure", "azure")), ("580", "open")),
    ("24.04 virtual (cloud image) + T4", "ubuntu2404", "6.8.0-45-generic", N, T4,
     dict(repos=ubuntu_sources("noble"), synthetic=ubuntu_kernel("6.8.0-45-generic", "virtual")), ("580", "open")),
    ("24.04 Oracle + V100 (Volta)", "ubuntu2404", "6.8.0-1013-oracle", N, V100,
     dict(repos=ubuntu_sources("noble"), synthetic=ubuntu_kernel("6.8.0-1013-oracle", "oracle")), ("580", "proprietary")),
    ("24.04 restricted not enabled + RTX 4090", "ubuntu2404", "6.8.0-45-generic", N, RTX4090,
     dict(repos=ubuntu_sources("noble", ["main", "universe"]), synthetic=ubuntu_kernel("6.8.0-45-generic", "generic")), ("580", "open")),
    ("Debian 12 + RTX 4090", "debian12", "6.1.0-26-amd64", D12, RTX4090,
     dict(repos=debian_sources("bookworm"), synthetic=debian_kernel("6.1.0-26-amd64", "amd64"), cuda="12.2.2"), ("535", "proprietary")),
    ("Debian 12 + GTX 1080, Secure Boot", "debian12", "6.1.0-26-amd64", D12, GTX1080,
     dict(repos=debian_sources("bookworm"), synthetic=debian_kernel("6.1.0-26-amd64", "amd64"), secure_boot=True, cuda="12.2.2"), ("535", "proprietary")),
    ("Debian 12 cloud kernel + T4", "debian12", "6.1.0-26-cloud-amd64", D12, T4,
     dict(repos=debian_sources("bookworm"), synthetic=debian_kernel("6.1.0-26-cloud-amd64", "cloud-amd64"), cuda="12.2.2"), ("535", "proprietary")),
    ("Debian 12 + RTX 3090, nouveau", "debian12", "6.1.0-26-amd64", D12, NOUV(RTX3090),
     dict(repos=debian_sources("bookworm"), synthetic=debian_kernel("6.1.0-26-amd64", "amd64"), cuda="12.2.2", extra_spec={"modules": ["nouveau"]}), ("535", "proprietary")),
    ("Debian 12 + RTX 5090 (NVIDIA's repository)", "debian12", "6.1.0-26-amd64", [D12, "nvidia-debian12.csv"], RTX5090,
     dict(repos=debian_sources("bookworm"), synthetic=debian_kernel("6.1.0-26-amd64", "amd64"), catalog=True, cuda="12.8.1"), ("580", "open")),
    ("Debian 13 + RTX 4090", "debian13", "6.12.48-amd64", D13, RTX4090,
     dict(repos=debian_sources("trixie"), synthetic=debian_kernel("6.12.48-amd64", "amd64"), cuda="12.4.1"), ("550", "open")),
    ("Debian 13 + GTX 1080", "debian13", "6.12.48-amd64", D13, GTX1080,
     dict(repos=debian_sources("trixie"), synthetic=debian_kernel("6.12.48-amd64", "amd64"), cuda="12.4.1"), ("550", "proprietary")),
    ("Debian 13 + Tesla K80 (no 470 there)", "debian13", "6.12.48-amd64", D13, K80,
     dict(repos=debian_sources("trixie"), synthetic=debian_kernel("6.12.48-amd64", "amd64"), cuda="11.4.4"), ("refuse", "470")),
    ("Rocky 9 + GTX 1080", "rocky9", EL9K, ROCKY9, GTX1080, dict(synthetic=EL9SYN), ("580", "proprietary")),
    ("Rocky 9 + RTX 3090, nouveau", "rocky9", EL9K, ROCKY9, NOUV(RTX3090), dict(synthetic=EL9SYN, extra_spec={"modules": ["nouveau"]}), ("580", "open")),
    ("Rocky 9 with another stream enabled + RTX 4090", "rocky9", EL9K, ROCKY9, RTX4090,
     dict(synthetic=EL9SYN, modules={"nvidia-driver": "595-open"}), ("580", "open")),
    ("Rocky 8 + RTX 4090", "rocky8", EL8K, ROCKY8, RTX4090, dict(synthetic=EL8SYN), ("580", "open")),
    ("Rocky 8 + GTX 780 (Kepler, 470-dkms stream)", "rocky8", EL8K, ROCKY8, gpus("1004", "3.5", "NVIDIA GeForce GTX 780", mib=3072),
     dict(synthetic=EL8SYN, cuda="11.4.4"), ("470", "proprietary")),
    ("Rocky 9 + GTX 780 (no 470 stream for rhel9)", "rocky9", EL9K, ROCKY9, gpus("1004", "3.5", "NVIDIA GeForce GTX 780", mib=3072),
     dict(synthetic=EL9SYN, cuda="11.4.4"), ("refuse", "ELRepo")),
    ("Fedora 43 + RTX 4090", "fedora", "6.16.7-200.fc43.x86_64", ["fedora-43.csv", "nvidia-fedora43.csv"], RTX4090, dict(synthetic=FEDSYN), ("580", "open")),
    ("Fedora 43 + RTX 4090, Secure Boot", "fedora", "6.16.7-200.fc43.x86_64", ["fedora-43.csv", "nvidia-fedora43.csv"], RTX4090,
     dict(synthetic=FEDSYN, secure_boot=True), ("580", "open")),
    ("Leap 15.6 + GTX 1080 (G06 DKMS)", "leap156", "6.4.0-150600.23.25-default", "opensuse-leap-15.6.csv", GTX1080, dict(synthetic=LEAPSYN), ("580", "proprietary")),
    ("Leap 15.6 + RTX 4090, Secure Boot (signed KMP)", "leap156", "6.4.0-150600.23.25-default", "opensuse-leap-15.6.csv", RTX4090,
     dict(synthetic=LEAPSYN, secure_boot=True), ("580", "open")),
    ("Tumbleweed + GTX 1080 (no G06 for suse16)", "tumbleweed", "6.17.9-1-default", "opensuse-tumbleweed.csv", GTX1080, dict(synthetic=TWSYN), ("refuse", "")),
    ("Arch linux + RTX 4090", "arch", "6.17.9-arch1-1", "arch.csv", RTX4090, dict(arch=("linux", "6.17.9.arch1-1")), ("590", "open")),
    ("Arch linux-zen + RTX 3090 (DKMS)", "arch", "6.17.9-zen1-1-zen", "arch.csv", RTX3090, dict(arch=("linux-zen", "6.17.9.zen1-1")), ("590", "open")),
    ("Arch + GTX 1080 (R590 has no Pascal)", "arch", "6.17.9-arch1-1", "arch.csv", GTX1080, dict(arch=("linux", "6.17.9.arch1-1")), ("refuse", "AUR")),
    ("24.04 GTX 970 + RTX 5090 (no flavor serves both)", "ubuntu2404", "6.8.0-45-generic", N, GTX970 + [("0000:1a:00.0",) + RTX5090[0][1:]],
     dict(repos=ubuntu_sources("noble"), synthetic=ubuntu_kernel("6.8.0-45-generic", "generic")), ("refuse", "open")),
]
UPGRADE = {"apt": ["apt-get", "dist-upgrade", "-y"], "dnf": ["dnf", "upgrade", "-y"], "zypper": ["zypper", "--non-interactive", "dup"],
           "pacman": ["pacman", "-Syu", "--noconfirm"]}
held_plans = 0
for i, (name, os_, kernel, world, g, opts, want) in enumerate(GRID):
    opts = dict(opts)
    arch = opts.pop("arch", None)
    use_cat = opts.pop("catalog", False)
    args = opts.pop("args", [])
    if arch:
        opts["synthetic"] = ARCHSYN(kernel, arch[0], arch[1])
    b = Box("grid%d" % i, os_, kernel, world, g, **opts)
    if arch:
        os.makedirs(os.path.join(b.root, "lib/modules", kernel), exist_ok=True)
        open(os.path.join(b.root, "lib/modules", kernel, "pkgbase"), "w").write(arch[0] + "\n")
    extra = (["--driver-source", "nvidia"] if use_cat else []) + args
    env = {"CUDAUP_CATALOG": CAT} if use_cat else None
    r, d, doc = b.plan(*extra, env=env)
    if want[0] == "refuse":
        t.ok(r.rc == 3 and want[1] in (doc.get("error") or "") + (doc.get("advice") or ""),
             "grid: %s: an honest refusal" % name, (doc.get("error"), doc.get("advice"), d.get("packages")))
        continue
    t.eq((d.get("branch"), d.get("flavor")), want, "grid: %s: plans %s %s" % (name, want[0], want[1]),
         (doc.get("error"), d.get("packages")))
    r, idoc = b.install(*extra, env=env)
    if not ran_to_the_end(b, r, idoc, "grid: " + name):
        continue
    # Every command the plan runs is there once its packages are in (issue 49: mokutil on Debian 12): the world
    # says which packages ship it (cmd=), and the stand-ins answer "command not found" without one.
    m = managers.machine(b.root)
    missing_cmds = sorted({s["argv"][0] for s in d.get("steps", []) if s.get("argv") and not pkgcli.has_cmd(m, s["argv"][0])})
    t.ok(not missing_cmds, "grid: %s: every command of the plan's steps is installed after the install" % name,
         (missing_cmds, [s.get("command") for s in d.get("steps", [])]))
    if r.rc == 5:  # chk32b F3: the plan never promised no reboot when the install stops for one
        t.ok(not any("No reboot is needed" in x for x in d.get("reasons") or []) and (d.get("reboot") or d.get("reboot_may")),
             "grid: %s: the install stops for a reboot, and the plan did not promise none (reasons, reboot/reboot_may)"
             % name, (d.get("reboot"), d.get("reboot_may"), d.get("reasons")))
    ins = b.installed()
    missing = [p for p in d.get("packages", []) if p not in ins and not any(p in (x.provides if hasattr(x, "provides") else []) for x in [])]
    bad = b.driver_versions(want[0])
    t.ok(not missing and not bad, "grid: %s: every planned package is installed, all of branch %s" % (name, want[0]), (missing, bad))
    mgr = managers.machine(b.root).manager
    if mgr != "pacman":  # Arch holds no branch (the repositories carry one)
        up = b.sh(*UPGRADE[mgr])
        t.ok(not b.driver_versions(want[0]), "grid: %s: an upgrade keeps branch %s (%s)" % (name, want[0], d.get("pin")),
             (up.stdout[-800:], up.stderr[-800:], b.driver_versions(want[0])))
        held_plans += 1
t.ok(held_plans >= 20, "grid: the branch held through an upgrade in %d worlds" % held_plans)

t.done()
