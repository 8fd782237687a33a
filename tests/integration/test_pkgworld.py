#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The stand-in package managers (tests/fakes/pkgworld) say no where the real ones do: unknown names, a
repository not enabled, sources not updated, unmet dependencies, a second module stream, EPEL without
CRB, a version lock, an untrusted repository key, held locks; a removal takes its reverse dependencies
along and says so; the machine's state (dpkg's status read by the real dpkg-query, module files, the
kernel the next boot picks) follows what was installed."""
import fcntl
import json
import os
import shutil
import subprocess
import sys

from cutest import SRCDIR, Tap

sys.path.insert(0, os.path.join(SRCDIR, "tests", "fakes", "pkgworld"))
import machine  # noqa: E402
import managers  # noqa: E402

t = Tap()


class Box:
    def __init__(self, tag, world, kernel, **kw):
        self.dir = t.tmpdir(tag)
        self.root = os.path.join(self.dir, "root")
        os.makedirs(os.path.join(self.root, "proc"))
        with open(os.path.join(self.root, "proc/version"), "w") as f:
            f.write("Linux version %s (fixture) #1 SMP\n" % kernel)
        self.m = machine.setup(self.root, world, **kw)
        self.bin = machine.link_bin(os.path.join(self.dir, "bin"))

    def run(self, *argv, env=None):
        e = dict(os.environ, PKGWORLD_ROOT=self.root)
        e.pop("CUDAUP_SYSTEM_ROOT", None)
        e.update(env or {})
        return subprocess.run([os.path.join(self.bin, argv[0])] + list(argv[1:]), capture_output=True, text=True, env=e, timeout=120)

    def installed(self):
        return managers.machine(self.root).installed


DEB = "http://deb.debian.org/debian"
KERNEL12 = [{"name": "linux-image-6.1.0-26-amd64", "version": "6.1.0-26", "extra": "kernel=6.1.0-26-amd64"},
            {"name": "linux-image-amd64", "version": "6.1.0-26", "depends": "linux-image-6.1.0-26-amd64"}]

# ---- apt (Debian 12, measured) ----
b = Box("deb12", "debian-12.csv", "6.1.0-26-amd64", repos=[(DEB, "bookworm", ["main"])], synthetic=KERNEL12)
r = b.run("apt-get", "install", "-y", "nvidia-driver")
t.ok(r.returncode == 100 and "E: Unable to locate package nvidia-driver" in r.stderr,
     "apt-get: nvidia-driver is not in main: Unable to locate package (100)", r.stderr)
r = b.run("apt-get", "install", "-y", "linux-headers-6.1.0-26-amd64")
t.ok(r.returncode == 100 and "Unable to locate package linux-headers-6.1.0-26-amd64" in r.stderr,
     "apt-get: the superseded ABI's headers are gone from the archive", r.stderr)
with open(os.path.join(b.root, "etc/apt/sources.list.d/extra.list"), "w") as f:
    f.write("deb %s bookworm main contrib non-free non-free-firmware\n" % DEB)
r = b.run("apt-get", "install", "-y", "nvidia-driver")
t.ok(r.returncode == 100 and "Unable to locate package" in r.stderr, "apt-get: a source added but not updated is not seen yet", r.stderr)
r = b.run("apt-get", "update")
t.eq(r.returncode, 0, "apt-get update", r.stderr)
r = b.run("apt-get", "install", "nvidia-driver")
t.ok(r.returncode == 1 and "Abort." in r.stderr, "apt-get without -y: extra packages, Abort.", r.stderr)
C4 = ["main", "contrib", "non-free", "non-free-firmware"]
b2 = Box("deb12all", "debian-12.csv", "6.1.0-26-amd64", synthetic=KERNEL12,
         repos=[(DEB, "bookworm", C4), (DEB, "bookworm-updates", C4), (DEB + "-security", "bookworm-security", C4)])
r = b2.run("apt-get", "install", "-y", "nvidia-open-kernel-dkms", "nvidia-driver", "firmware-misc-nonfree")
t.ok(r.returncode == 100 and "unmet dependencies" in r.stdout + r.stderr and "firmware-nvidia-gsp (= 535.261.03)" in r.stderr,
     "apt-get: with bookworm-security, Debian 12's open dkms beside its nvidia-driver does not install (unmet, as measured)", r.stderr[-600:])
lock = os.path.join(b.root, "var/lib/dpkg/lock-frontend")
fd = os.open(lock, os.O_RDWR | os.O_CREAT)
fcntl.lockf(fd, fcntl.LOCK_EX)
r = b.run("apt-get", "install", "-y", "nvidia-driver", "firmware-misc-nonfree", "linux-headers-amd64")
t.ok(r.returncode == 100 and "Could not get lock /var/lib/dpkg/lock-frontend" in r.stderr, "apt-get: a held dpkg lock refuses (100)", r.stderr)
r = b.run("apt-mark", "hold", "nvidia-driver")
t.ok(r.returncode == 100 and "Could not get lock" in r.stderr, "apt-mark hold: the dpkg lock too", r.stderr)
os.close(fd)
r = b.run("apt-get", "install", "-y", "nvidia-driver", "firmware-misc-nonfree", "linux-headers-amd64")
ins = b.installed()
t.ok(r.returncode == 0 and ins["nvidia-driver"].version == "535.261.03-1" and "linux-headers-6.1.0-26-amd64" not in ins,
     "apt-get: bookworm alone gives 535.261.03 (the security suite has the newer)", r.stderr[-400:])
boot = machine.boot(b.root)
t.ok(boot["kernel"] == "6.1.0-26-amd64" and boot["module"] is None,
     "headers of the newest ABI and no new kernel: the next boot has no nvidia module", boot)
q = subprocess.run(["dpkg-query", "--admindir=" + os.path.join(b.root, "var/lib/dpkg"), "-W", "-f=${Package}\t${Status}\n", "nvidia-driver"],
                   capture_output=True, text=True) if shutil.which("dpkg-query") else None
if q is None:
    t.skip("the real dpkg-query reads the stand-in's status file", "no dpkg-query here")
else:
    t.eq(q.stdout.strip(), "nvidia-driver\tinstall ok installed", "the real dpkg-query reads the stand-in's status file", q.stderr)
r = b.run("apt-get", "install", "-y", "linux-image-amd64")
boot = machine.boot(b.root)
t.ok(r.returncode == 0 and boot["kernel"] != "6.1.0-26-amd64" and boot["module"] and boot["signed"],
     "the kernel meta brings the kernel the headers are for: DKMS's module is there at the next boot", boot)
r = b.run("apt-mark", "hold", "nvidia-driver")
r2 = b.run("apt-get", "remove", "-y", "nvidia-driver")
t.ok(r.returncode == 0 and r2.returncode == 100 and "Held packages were changed" in r2.stderr, "apt-get remove of a held package refuses", r2.stderr)
b.run("apt-mark", "unhold", "nvidia-driver")
r = b.run("apt-get", "remove", "-y", "nvidia-kernel-dkms")
t.ok(r.returncode == 0 and "The following packages will be REMOVED:" in r.stdout and "nvidia-driver" in r.stdout.split("REMOVED:")[1],
     "apt-get remove nvidia-kernel-dkms takes nvidia-driver along and says so", r.stdout[-600:])

# ---- dnf (Rocky 9) ----
ROCKY = ["rocky-9.csv", "el-9.csv", "nvidia-rhel9.csv"]
KEL = [{"name": "kernel-core", "version": "5.14.0-427.13.1.el9_4", "extra": "kernel=5.14.0-427.13.1.el9_4.x86_64"}]
REPO9 = "https://developer.download.nvidia.com/compute/cuda/repos/rhel9/x86_64/cuda-rhel9.repo"
b = Box("rocky9", ROCKY, "5.14.0-427.13.1.el9_4.x86_64", synthetic=KEL)
r = b.run("dnf", "-y", "module", "enable", "nvidia-driver:580-open")
t.ok(r.returncode == 1 and "missing groups or modules: nvidia-driver:580-open" in r.stderr, "dnf: no stream before NVIDIA's repository", r.stderr)
r = b.run("dnf", "config-manager", "--add-repo", REPO9)
t.eq(r.returncode, 0, "dnf config-manager --add-repo NVIDIA's rhel9 repository", r.stderr)
r = b.run("dnf", "install", "-y", "kmod-nvidia-latest-dkms")
t.ok(r.returncode == 1 and "filtered out by modular filtering" in r.stderr, "dnf: the proprietary kmod is filtered while open-dkms is the default", r.stderr)
r = b.run("dnf", "install", "-y", "kernel-devel-5.14.0-427.13.1.el9_4.x86_64")
t.ok(r.returncode == 1 and "No match for argument: kernel-devel-5.14.0-427.13.1.el9_4.x86_64" in r.stderr,
     "dnf: the running kernel's kernel-devel is not in the repository", r.stderr)
r = b.run("dnf", "-y", "module", "enable", "nvidia-driver:580-open")
r2 = b.run("dnf", "-y", "module", "enable", "nvidia-driver:580-dkms")
t.ok(r.returncode == 0 and r2.returncode == 1 and "not possible to switch enabled streams" in r2.stderr, "dnf: a second stream is refused", r2.stderr)
r = b.run("dnf", "install", "-y", "nvidia-open")
t.ok(r.returncode == 1 and "requires dkms" in r.stderr, "dnf: the DKMS stream needs dkms, which only EPEL carries", r.stderr)
b.run("dnf", "install", "-y", "epel-release")
r = b.run("dnf", "install", "-y", "nvidia-open")
t.ok(r.returncode == 1 and "requires dkms" in r.stderr, "dnf: EPEL without CRB gives nothing", r.stderr)
r = b.run("dnf", "config-manager", "--set-enabled", "crb")
r = b.run("dnf", "install", "-y", "nvidia-open")
ins = b.installed()
t.ok(r.returncode == 0 and ins["nvidia-open"].version.startswith("3:580.") and "dkms" in ins,
     "dnf: with CRB and EPEL, nvidia-open of the 580-open stream installs", r.stderr[-400:])
r = b.run("dnf", "remove", "-y", "kernel-headers")
t.ok(r.returncode == 0 and all(x in r.stdout for x in ("glibc-devel", "gcc", "dkms", "kmod-nvidia-open-dkms", "nvidia-driver"))
     and "Removing dependent packages:" in r.stdout, "dnf remove kernel-headers takes glibc-devel, gcc, dkms, the kmod and the driver along", r.stdout)
r = b.run("dnf", "remove", "-y", "systemd")
t.ok(r.returncode == 1 and "protected packages" in r.stderr, "dnf: a protected package is not removed", r.stderr)

# ---- dnf 5 (Fedora 43): versionlock ----
b = Box("fedora", ["fedora-43.csv", "nvidia-fedora43.csv"], "6.16.7-200.fc43.x86_64",
        synthetic=[{"name": "kernel-core", "version": "6.16.7-200.fc43", "extra": "kernel=6.16.7-200.fc43.x86_64"}])
r = b.run("dnf", "versionlock", "*nvidia*580*")
t.ok(r.returncode == 2 and 'Unknown argument "*nvidia*580*" for command "versionlock"' in r.stderr, "dnf5: versionlock needs `add`", r.stderr)
r = b.run("dnf", "versionlock", "add", "*nvidia*580*")
t.ok(r.returncode == 1 and "No package found" in r.stderr, "dnf5: versionlock add before NVIDIA's repository matches nothing", r.stderr)
b.run("dnf", "config-manager", "addrepo", "--from-repofile=https://developer.download.nvidia.com/compute/cuda/repos/fedora43/x86_64/cuda-fedora43.repo")
r = b.run("dnf", "versionlock", "add", "*nvidia*580*")
r2 = b.run("dnf", "install", "-y", "kmod-nvidia-open-dkms-3:595.71.05-1.fc43")
t.ok(r.returncode == 0 and r2.returncode == 1 and os.path.exists(os.path.join(b.root, "etc/dnf/versionlock.toml")),
     "dnf5: the lock (versionlock.toml) keeps 595 out", r2.stderr)

# ---- zypper (Leap 15.6) ----
b = Box("leap", "opensuse-leap-15.6.csv", "6.4.0-150600.23.25-default",
        synthetic=[{"name": "kernel-default", "version": "6.4.0-150600.23.25.1", "extra": "kernel=6.4.0-150600.23.25-default"}])
r = b.run("zypper", "--non-interactive", "addrepo", "--refresh", "https://developer.download.nvidia.com/compute/cuda/repos/opensuse15/x86_64/", "cuda")
r2 = b.run("zypper", "--non-interactive", "install", "nvidia-open-driver-G06-signed-cuda-kmp-default")
t.ok(r.returncode == 0 and r2.returncode == 104 and "Skipping repository 'cuda'" in r2.stderr,
     "zypper: the repository's key was never imported, so its packages are not found (104)", r2.stderr[-400:])
r = b.run("zypper", "--non-interactive", "--gpg-auto-import-keys", "refresh")
r2 = b.run("zypper", "--non-interactive", "install", "nvidia-open-driver-G06-signed-cuda-kmp-default")
t.ok(r.returncode == 0 and r2.returncode == 0, "zypper: --gpg-auto-import-keys refresh, then the KMP installs", r.stderr + r2.stderr)
r = b.run("zypper", "--non-interactive", "addrepo", "https://developer.download.nvidia.com/compute/cuda/repos/opensuse20250306/x86_64/", "cuda2")
r2 = b.run("zypper", "--non-interactive", "--gpg-auto-import-keys", "refresh")
t.ok(r2.returncode == 4 and "Valid metadata not found" in r2.stderr, "zypper: a repository NVIDIA does not publish fails to refresh", r2.stderr)
os.unlink(os.path.join(b.root, "etc/zypp/repos.d/cuda2.repo"))
holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
try:
    with open(os.path.join(b.root, "run/zypp.pid") if os.path.isdir(os.path.join(b.root, "run")) else
              (os.makedirs(os.path.join(b.root, "run")) or os.path.join(b.root, "run/zypp.pid")), "w") as f:
        f.write("%d\n" % holder.pid)
    r = b.run("zypper", "--non-interactive", "install", "nvidia-compute-utils-G06")
    t.ok(r.returncode == 7 and "System management is locked" in r.stderr, "zypper: the zypp lock held by another process (7)", r.stderr)
finally:
    holder.kill()
    holder.wait()
r = b.run("zypper", "--non-interactive", "install", "nvidia-compute-utils-G06", "==", "580.95.05")
t.ok(r.returncode == 0 and b.installed()["nvidia-compute-utils-G06"].version == "580.95.05-1", "zypper: `name == version` installs that version", r.stderr)

# ---- pacman (Arch) ----
b = Box("arch", "arch.csv", "6.17.9-arch1-1",
        synthetic=[{"name": "linux", "version": "6.17.9.arch1-1", "extra": "kernel=6.17.9-arch1-1 pkgbase=linux"}])
r = b.run("pacman", "-S", "--noconfirm", "nvidia")
t.ok(r.returncode == 1 and "error: target not found: nvidia" in r.stderr, "pacman: nvidia is gone since 590 (target not found)", r.stderr)
r = b.run("pacman", "-S", "--noconfirm", "--needed", "nvidia-open")
boot = machine.boot(b.root)
t.ok(r.returncode == 0 and boot["module"] is None, "pacman -S without -u: nvidia-open's module is for the new linux, the installed one has none", boot)
r = b.run("pacman", "-R", "--noconfirm", "nvidia-utils")
t.ok(r.returncode == 1 and "breaks dependency" in r.stderr, "pacman -R of what another package needs refuses", r.stderr)
r = b.run("pacman", "-Syu", "--noconfirm", "--needed", "nvidia-open", "nvidia-utils")
boot = machine.boot(b.root)
t.ok(r.returncode == 0 and boot["kernel"] == "6.18.2-arch2-1" and boot["module"], "pacman -Syu: the new linux and its module", boot)

# ---- kernel tools ----
b = Box("tools", "debian-12.csv", "6.1.0-26-amd64", repos=[(DEB, "bookworm", ["main"])], synthetic=KERNEL12)
os.makedirs(os.path.join(b.root, "sys/module/nouveau"))
r = b.run("modprobe", "nvidia")
t.ok(r.returncode == 1 and "Module nvidia not found" in r.stderr, "modprobe nvidia without a module for the running kernel", r.stderr)
r = b.run("systemctl", "enable", "--now", "nvidia-fabricmanager")
t.ok(r.returncode == 1 and "does not exist" in r.stderr, "systemctl enable of a unit no package ships", r.stderr)
r = b.run("mokutil", "--import", "/var/lib/dkms/mok.pub")
t.ok(r.returncode == 127 and "command not found" in r.stderr, "mokutil: not installed on Debian 12 (no shim-signed)", r.stderr)
# The fabric manager exits when it starts with no NVSwitch driver loaded (NVIDIA/gpu-operator#610): enabled, not started.
u = Box("fm", ["ubuntu-24.04.csv"], "6.8.0-151-generic", installed=["linux-image-generic"])
r = u.run("apt-get", "install", "-y", "nvidia-fabricmanager-580")
r2 = u.run("systemctl", "enable", "--now", "nvidia-fabricmanager")
wants = os.path.join(u.root, "etc/systemd/system/multi-user.target.wants/nvidia-fabricmanager.service")
active = os.path.join(u.root, "var/lib/pkgworld/active/nvidia-fabricmanager.service")
t.ok(r.returncode == 0 and r2.returncode == 1 and "control process exited with error code" in r2.stderr and os.path.exists(wants)
     and not os.path.exists(active), "systemctl enable --now nvidia-fabricmanager before the nvidia module is loaded: "
     "enabled, its start fails", (r.stderr[-500:], r2.stderr))
os.makedirs(os.path.join(u.root, "sys/module/nvidia"))
r2 = u.run("systemctl", "start", "nvidia-fabricmanager")
t.ok(r2.returncode == 0 and os.path.exists(active), "systemctl start nvidia-fabricmanager once the module is loaded", r2.stderr)
r = b.run("dkms", "generate_mok")
t.ok(r.returncode != 0, "dkms generate_mok: no dkms installed, or dkms 3.0.10 without the action", r.stderr)
r = b.run("apt-get", "install", "-y", "dkms")
r2 = b.run("dkms", "generate_mok")
t.ok(r2.returncode == 1 and 'Unknown action specified: "generate_mok"' in r2.stderr, "Debian 12's dkms 3.0.10 has no generate_mok", r2.stderr)
r = subprocess.run([os.path.join(b.bin, "apt-get"), "update"], capture_output=True, text=True,
                   env={k: v for k, v in os.environ.items() if k not in ("PKGWORLD_ROOT", "CUDAUP_SYSTEM_ROOT")})
t.ok(r.returncode == 99 and "refusing to touch this system" in r.stderr, "without a machine root the stand-ins refuse to run", r.stderr)
log = os.path.join(b.dir, "calls.jsonl")
b.run("apt-get", "update", env={"STANDIN_LOG": log})
r = b.run("modprobe", "nvidia", env={"STANDIN_FAIL": "modprobe"})
t.ok(json.loads(open(log).read().splitlines()[0]) == ["apt-get", "update"] and r.returncode == 100,
     "STANDIN_LOG and STANDIN_FAIL work as with the old stand-in", r.stderr)
t.done()
