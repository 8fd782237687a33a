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
    # a planned package is a name, or (dnf) a name-version-release.arch spec of the running kernel's own
    missing = [p for p in d.get("packages", []) if p not in ins and
               not any(p in (n + "-" + i.version, n + "-" + i.version + ".x86_64") for n, i in ins.items())]
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

# ---- derivatives: the release ID_LIKE and its codename key name, and the derivative's own packages ----
RTX3090 = gpus("2204", "8.6", "NVIDIA GeForce RTX 3090")


def ubuntu_kernel(krel, meta):
    """The running kernel (an ABI the archive has moved past) and the image meta that brought it."""
    ver = "%s.%s" % (krel.rsplit("-", 1)[0], krel.split("-")[1])
    return [{"name": "linux-image-" + krel, "version": ver, "extra": "kernel=" + krel},
            {"name": "linux-image-" + meta, "version": ver, "depends": "linux-image-" + krel}]


# Linux Mint 22 (ID_LIKE="ubuntu debian", UBUNTU_CODENAME=noble, VERSION_CODENAME=wilma): Ubuntu 24.04's packages, its
# signed modules; Mint's sources list its own repository (wilma) beside Ubuntu's suites, and restricted is off here,
# so the plan must enable it for noble's suites, not for Mint's.
MINT_SOURCES = [("http://packages.linuxmint.com", "wilma", ["main", "upstream", "import", "backport"])] + \
    ubuntu_sources("noble", comps=["main", "universe", "multiverse"])
b = Box("mint22", "mint22", "6.8.0-45-generic", "ubuntu-24.04.csv", RTX3090, repos=MINT_SOURCES,
        synthetic=ubuntu_kernel("6.8.0-45-generic", "generic"))
r, d, doc = b.plan()
t.ok(r.rc == 0 and (d.get("branch"), d.get("flavor"), d.get("base")) == ("580", "open", "Ubuntu 24.04")
     and d.get("os") == "Linux Mint 22 (Ubuntu 24.04 base)" and "linux-modules-nvidia-580-open-generic" in d.get("packages", []),
     "Linux Mint 22 + RTX 3090: Ubuntu 24.04's 580 open and its signed modules, the plan naming Mint's Ubuntu base",
     (doc.get("error"), d.get("os"), d.get("packages")))
t.ok(any("UBUNTU_CODENAME=noble" in x for x in d.get("reasons") or []),
     "Linux Mint 22: the plan says which os-release field named its base", d.get("reasons"))
r, dn, doc = b.plan("--driver-source", "nvidia")
t.ok(r.rc == 0 and "/repos/ubuntu2404/" in (dn.get("repo") or "") and "nvidia-open" in dn.get("packages", []),
     "Linux Mint 22 --driver-source nvidia: NVIDIA's ubuntu2404 repository, as on its base", (doc.get("error"), dn.get("repo")))
text = b.plan_text().out
t.ok("from Linux Mint 22 (Ubuntu 24.04 base) with apt" in text, "Linux Mint 22: the plan's summary line names the base",
     text[:600])
r = run(["doctor", "--root", b.root], env=b.env())
t.ok("On Linux Mint 22 (Ubuntu 24.04 base): `sudo ubuntu-drivers install`, then reboot." in r.out,
     "Linux Mint 22: doctor's by-hand hint is Ubuntu's, naming the base", r.out[-1500:])
r, doc = b.install()
src = open(os.path.join(b.root, "etc/apt/sources.list.d/cudaup-nvidia-driver.sources")).read() \
    if os.path.exists(os.path.join(b.root, "etc/apt/sources.list.d/cudaup-nvidia-driver.sources")) else ""
t.ok("noble" in src and "restricted" in src and "wilma" not in src,
     "Linux Mint 22: restricted is enabled for noble's suites, not for Mint's own repository", src)
if runs_to_the_end(b, r, "Linux Mint 22 + RTX 3090"):
    holds(b, d, 580, "Linux Mint 22 + RTX 3090")

# Pop!_OS 24.04: System76's own driver packages (DKMS, for System76's own kernels), pinned by Pop above Ubuntu's.
POP_SOURCES = ubuntu_sources("noble", uri="http://apt.pop-os.org/ubuntu") + [("http://apt.pop-os.org/release", "noble", ["main"])]
POP_PIN = {"etc/apt/preferences.d/pop-default-settings": "Package: *\nPin: release o=pop-os-release\nPin-Priority: 1001\n"}
KPOP = "7.1.5-76070105-generic"
b = Box("pop2404", "pop2404", KPOP, ["ubuntu-24.04.csv", "pop-24.04.csv"], RTX4090, repos=POP_SOURCES, files=POP_PIN,
        installed=["linux-image-generic"])
r = run(["doctor", "--root", b.root], env=b.env())
t.ok("On Pop!_OS 24.04 LTS (Ubuntu 24.04 base): `sudo apt install system76-driver-nvidia`, then reboot." in r.out,
     "Pop!_OS 24.04: doctor's by-hand hint is System76's own", r.out[-1500:])
r, d, doc = b.plan()
pk = d.get("packages", [])
t.ok(r.rc == 0 and (d.get("branch"), d.get("flavor"), d.get("source")) == ("580", "open", "distro")
     and d.get("os") == "Pop!_OS 24.04 LTS (Ubuntu 24.04 base)" and "nvidia-driver-580-open" in pk
     and "linux-headers-generic" in pk and not any(p.startswith("linux-modules-nvidia") for p in pk),
     "Pop!_OS 24.04 + RTX 4090: Pop's own 580 open, built with DKMS for Pop's kernel (no Ubuntu prebuilt modules)",
     (doc.get("error"), d.get("os"), pk))
t.ok(any("own packages" in x and "apt.pop-os.org" in x for x in d.get("reasons") or []),
     "Pop!_OS 24.04: the plan says the driver comes from Pop's own repository and the rest from Ubuntu 24.04",
     d.get("reasons"))
r, doc = b.install()
if runs_to_the_end(b, r, "Pop!_OS 24.04 + RTX 4090"):
    v = (b.installed().get("nvidia-driver-580-open") or managers.pkgworld.Installed("", "")).version
    t.ok("pop" in v, "Pop!_OS 24.04: the installed driver is System76's build (%s), not Ubuntu's" % v, v)
    holds(b, d, 580, "Pop!_OS 24.04 + RTX 4090")
    v = (b.installed().get("nvidia-driver-580-open") or managers.pkgworld.Installed("", "")).version
    t.ok("pop" in v, "Pop!_OS 24.04: after the upgrade the driver is still System76's build (%s)" % v, v)

# ---- Amazon Linux 2023 (ID=amzn, ID_LIKE=fedora: no codename names a Fedora release, and its own rows serve it), an
# A10G (g5 instance): NVIDIA's amzn2023 repository, its nvidia-driver module streams, dkms from Amazon Linux ----
d = os.path.join(MIRROR, "cuda/repos/amzn2023/x86_64")
os.makedirs(d, exist_ok=True)
with open(os.path.join(d, "cuda-amzn2023.repo"), "w") as f:  # as NVIDIA serves it (cudaup reads it from the mirror)
    f.write("[cuda-amzn2023-x86_64]\nname=cuda-amzn2023-x86_64\nbaseurl=https://developer.download.nvidia.com/compute/cuda/"
            "repos/amzn2023/x86_64\nenabled=1\ngpgcheck=1\ngpgkey=https://developer.download.nvidia.com/compute/cuda/repos/"
            "amzn2023/x86_64/D42D0685.pub\n")
A10G = gpus("2237", "8.6", "NVIDIA A10G", cls="0x030200", mib=23028)
KAL = "6.1.158-180.294.amzn2023.x86_64"
AL = ["amzn-2023.csv", "nvidia-amzn2023.csv"]
b = Box("al2023", "amzn2023", KAL, AL, A10G, repos=["amazonlinux"], installed=["kernel"])
r = run(["doctor", "--root", b.root], env=b.env())
t.ok("On Amazon Linux 2023.10.20260216: `sudo dnf config-manager --add-repo https://developer.download.nvidia.com/compute/"
     "cuda/repos/amzn2023/x86_64/cuda-amzn2023.repo" in r.out,
     "Amazon Linux 2023: doctor's by-hand hint is NVIDIA's amzn2023 repository and its module stream", r.out[-1500:])
r, d, doc = b.plan()
pk = d.get("packages", [])
acts = [s_["action"] for s_ in d.get("steps", [])]
t.ok(r.rc == 0 and (d.get("branch"), d.get("flavor"), d.get("source"), d.get("manager")) == ("595", "open", "nvidia", "dnf")
     and d.get("module_stream") == "nvidia-driver:595-open" and "nvidia-open" in pk and "kernel-devel-" + KAL in pk
     and not d.get("base") and acts.index("repository") < acts.index("module") < acts.index("install"),
     "Amazon Linux 2023 + A10G: 595 open from NVIDIA's amzn2023 repository, its module stream enabled before the install, "
     "the running kernel's devel package for DKMS", (doc.get("error"), d.get("branch"), pk, acts))
r, doc = b.install()
if runs_to_the_end(b, r, "Amazon Linux 2023 + A10G"):
    holds(b, d, 595, "Amazon Linux 2023 + A10G", upgrade=("dnf", "upgrade", "-y"))
    t.ok((b.installed().get("dkms") or managers.pkgworld.Installed("", "")).version != "",
         "Amazon Linux 2023: dkms came without EPEL (Amazon Linux's own or NVIDIA's)", sorted(b.installed())[:40])
# A Pascal GPU there: 580 proprietary, the 580-dkms stream.
b = Box("al2023p", "amzn2023", KAL, AL, gpus("1bb3", "6.1", "Tesla P4", cls="0x030200", mib=7680), repos=["amazonlinux"],
        installed=["kernel"])
r, d, doc = b.plan()
t.ok((d.get("branch"), d.get("flavor"), d.get("module_stream")) == ("580", "proprietary", "nvidia-driver:580-dkms"),
     "Amazon Linux 2023 + Tesla P4 (Pascal): 580 proprietary, the 580-dkms stream", (doc.get("error"), d.get("packages")))
r, doc = b.install()
if runs_to_the_end(b, r, "Amazon Linux 2023 + Tesla P4"):
    holds(b, d, 580, "Amazon Linux 2023 + Tesla P4", upgrade=("dnf", "upgrade", "-y"))

# ---- Debian 13 with no kernel meta package installed (issue 42): its kernels are named 6.12.48+deb13-amd64, one
# dash; a GTX 1080 (Pascal) gets a branch that still drives Pascal, Debian's own 550, built with DKMS for the
# kernel the amd64 metas bring ----
DEB = "http://deb.debian.org/debian"
DEB13_SOURCES = [(DEB, "trixie", ["main", "non-free-firmware"]), (DEB, "trixie-updates", ["main", "non-free-firmware"]),
                 (DEB + "-security", "trixie-security", ["main", "non-free-firmware"])]
K13 = "6.12.48+deb13-amd64"
GTX1080 = gpus("1b80", "6.1", "NVIDIA GeForce GTX 1080", mib=8192)
b = Box("deb13", "debian13real", K13, "debian-13.csv", GTX1080, repos=DEB13_SOURCES,
        synthetic=[{"name": "linux-image-" + K13, "version": "6.12.48-1", "extra": "kernel=" + K13}])
r, d, doc = b.plan()
pk = d.get("packages", [])
t.ok(r.rc == 0 and (d.get("branch"), d.get("flavor"), d.get("source")) == ("550", "proprietary", "distro")
     and d.get("kernel_meta") == "amd64" and "linux-headers-amd64" in pk and "linux-image-amd64" in pk,
     "Debian 13 (kernel %s, no kernel meta) + GTX 1080: Debian's 550 proprietary, with the amd64 metas DKMS builds for"
     % K13, (doc.get("error"), d.get("branch"), pk))
r, doc = b.install()
if runs_to_the_end(b, r, "Debian 13 + GTX 1080, no kernel meta"):
    holds(b, d, 550, "Debian 13 + GTX 1080, no kernel meta")

t.done()
