#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The driver installed into a real Debian 12 tree through the real apt and DKMS (issue 32, "a real Debian";
issue 33 item 1): `cudaup install --root TREE` runs apt-get, apt-mark and dpkg-query inside the tree
(chroot), never on this host; DKMS builds the module for the tree's own kernel; the branch is held; the
record holds exactly what the install added; `uninstall driver` takes that away again but for the kernel the
install brought (and what it needs), waiting for a dpkg lock another process holds; an install whose first step fails leaves nothing to remove.

The tree is `debootstrap --variant=minbase bookworm` with linux-headers-amd64 (the image's kernel) and sudo, made
once per machine (about 20 minutes on a 2-core machine) and kept in CUDAUP_TEST_CACHE (default
/var/cache/cudaup-tests), keyed by its package list, the archive and the date of the archive's Release file, so that
a second run of the suite, or a fresh clone's, takes minutes; a key that changed makes a new tree and removes the
old.  Each case works on a copy.  It needs root
(chroot), debootstrap (scripts/bootstrap --test installs it) and Debian's archive: the archive is probed
first and the cases skip with the reason when it cannot be reached."""
import hashlib
import fcntl
import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request

from cutest import BIN, SRCDIR, Tap, gpu_doubles, run

sys.path.insert(0, os.path.join(SRCDIR, "tests", "fixtures"))
import machines  # noqa: E402
import mkmirror  # noqa: E402

t = Tap()
ARCHIVE = "http://deb.debian.org/debian"
CACHE = os.environ.get("CUDAUP_TEST_CACHE") or "/var/cache/cudaup-tests"
DEBS = os.path.join(CACHE, "debian-bookworm-debs")
TREE = None  # CACHE/debian-bookworm-KEY, once the archive's Release date is known (probe)
CASES = ["the plan for a Debian 12 image", "install into the tree: exit 5, the image's first boot goes on",
         "the module is built for the tree's kernel", "the branch is held", "the record holds exactly what the install added",
         "this host's packages are untouched", "a rerun before the image boots: not booted yet",
         "doctor reads the tree's driver", "uninstall waits for a held dpkg lock and says so",
         "uninstall removes what the install added, but the kernel it brought", "a failed first step: nothing to remove",
         "the image's first-boot unit is enabled in the tree and systemd-analyze verify accepts it",
         "the image's first boot without a GPU: the unit's command in a chroot records that no GPU work was possible"]


def skip_all(why):
    for c in CASES:
        t.skip(c, why)
    t.done()
    sys.exit(0)


RELEASE_DATE = []


def probe():
    """Why the cases cannot run here, or None."""
    if os.geteuid() != 0:
        return "needs root (the tree is entered with chroot)"
    for tool in ("debootstrap", "dpkg-query"):
        if not shutil.which(tool):
            return "needs %s (scripts/bootstrap --test installs it)" % tool
    try:
        with urllib.request.urlopen(ARCHIVE + "/dists/bookworm/Release", timeout=20) as r:
            head = r.read(4096).decode("utf-8", "replace")
    except Exception as e:  # noqa: BLE001 - any failure to reach it is the reason
        return "Debian's archive cannot be reached (%s): %s" % (ARCHIVE, e)
    RELEASE_DATE.extend(ln.split(":", 1)[1].strip() for ln in head.splitlines() if ln.startswith("Date:"))
    return None


def chroot(root, *cmd):
    """A command inside @root, as cudaup's runner does it (a mount namespace of its own, the root's /proc)."""
    return subprocess.run(["unshare", "-m", "sh", "-c", 'mount -t proc proc "$0/proc" && exec chroot "$0" "$@"', root]
                          + list(cmd), capture_output=True, text=True, timeout=1800,
                          env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "DEBIAN_FRONTEND": "noninteractive", "LC_ALL": "C"})


# The tree is a system as users have them: the kernel's headers, and sudo (Debian's installer and cloud images
# have it).  Without sudo, the driver's install brings it (dkms recommends it) and its removal fails in sudo's own
# removal script where root has no password ("Refusing to remove sudo"): a finding of this test, reported.
BASE = ["linux-headers-amd64", "sudo"]
MARK = "debootstrap --variant=minbase bookworm + " + " ".join(BASE) + "\n"


def make_tree():
    """The shared tree, made once per machine and key: minbase bookworm and BASE.  Two suites at once (fresh
    clones side by side) wait for each other's tree rather than make two."""
    global TREE
    key = hashlib.sha256((MARK + ARCHIVE + "\n" + "".join(RELEASE_DATE)).encode()).hexdigest()[:12]
    TREE = os.path.join(CACHE, "debian-bookworm-" + key)
    os.makedirs(CACHE, exist_ok=True)
    with open(os.path.join(CACHE, ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if os.path.exists(os.path.join(TREE, ".cudaup-test-tree")):
            print("# the Debian 12 tree of this machine: %s (made earlier, reused)" % TREE, flush=True)
            return None
        print("# making the Debian 12 tree in %s: debootstrap and apt, about 20 minutes the first time on a machine"
              % TREE, flush=True)
        why = build_tree()
        for old in os.listdir(CACHE):  # trees of another key: the package list, archive or release changed
            if old.startswith("debian-bookworm-") and old != os.path.basename(TREE) and old != os.path.basename(DEBS):
                shutil.rmtree(os.path.join(CACHE, old), ignore_errors=True)
        return why


def build_tree():
    tmp = TREE + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    r = subprocess.run(["debootstrap", "--variant=minbase", "bookworm", tmp, ARCHIVE], capture_output=True, text=True, timeout=1800)
    if r.returncode != 0:
        return "debootstrap failed: " + (r.stderr or r.stdout)[-300:]
    r = chroot(tmp, "sh", "-c", "apt-get update -q && apt-get install -y -q " + " ".join(BASE) + " && apt-get clean")
    if r.returncode != 0:
        return "the kernel headers did not install into the tree: " + (r.stderr or r.stdout)[-300:]
    open(os.path.join(tmp, ".cudaup-test-tree"), "w").write(MARK)
    shutil.rmtree(TREE, ignore_errors=True)
    os.rename(tmp, TREE)
    return None


def copy_tree(tag):
    """A copy of the tree for one case, with a GTX 970 seen through it (its PCI device, as an image built for it)."""
    d = os.path.join(t.tmpdir(tag), "tree")
    subprocess.run(["cp", "-a", TREE, d], check=True)
    machines.pci_device(d, "0000:01:00.0", "0x10de", "13c2", "0x030000", None)
    # The packages downloaded by an earlier run: the case needs the network only for what is new.
    if os.path.isdir(DEBS):
        for f in os.listdir(DEBS):
            shutil.copy(os.path.join(DEBS, f), os.path.join(d, "var/cache/apt/archives", f))
    return d


def keep_debs(tree):
    os.makedirs(DEBS, exist_ok=True)
    src = os.path.join(tree, "var/cache/apt/archives")
    for f in os.listdir(src):
        if f.endswith(".deb") and not os.path.exists(os.path.join(DEBS, f)):
            shutil.copy(os.path.join(src, f), os.path.join(DEBS, f))


def packages(tree):
    """{package: status} from the tree's own database."""
    r = subprocess.run(["dpkg-query", "--admindir=" + os.path.join(tree, "var/lib/dpkg"), "-W", "-f=${Package}\t${Status}\n"],
                       capture_output=True, text=True)
    out = {}
    for line in r.stdout.splitlines():
        name, _, st = line.partition("\t")
        if st.split(" ")[-1] not in ("not-installed", "config-files"):
            out[name] = st
    return out


def host_state():
    """What this host has installed (package names) and which apt sources it has: what the install into the tree
    must not change.  Compared by what cudaup could have done (a package the tree gained, a sources file of
    cudaup's), not by a hash of the whole database: another process may install on this host during the 40
    minutes of the case (a fresh clone's suite beside it installs test tools), which is not cudaup's doing."""
    r = subprocess.run(["dpkg-query", "-W", "-f=${Package}\t${Status}\n"], capture_output=True, text=True)
    pkgs = {ln.split("\t")[0] for ln in r.stdout.splitlines() if ln.endswith(" installed")}
    d = "/etc/apt/sources.list.d"
    return pkgs, set(os.listdir(d)) if os.path.isdir(d) else set()


def cudaup(args, tree, state, extra_env=None, timeout=3000):
    env = {"CUDAUP_SYSTEM_BIN": "", "CUDAUP_SYSTEM_ROOT": "", "CUDAUP_DRIVER": "auto"}
    env.update(extra_env or {})
    return run(args + ["--root", tree, "--state-dir", state], env=env, timeout=timeout)


why = probe()
if why:
    skip_all(why)
why = make_tree()
if why:
    skip_all(why)

# The archives of the CUDA that Debian's 535 runs (12.2), synthetic: every URL is asked for before the first change.
M122 = os.path.join(t.tmpdir("mirror"), "m")
mkmirror.build(M122, cuda="12.2.2", replace=gpu_doubles())
FIX = "file://" + M122

# ---- install into a copy of the tree ----
tree = copy_tree("install")
# The image boots systemd (issue 46 item 12: its first-boot unit), and has the libraries the cudaup of this host
# needs (this host is Debian 12 too), so that the unit's command can run the real cudaup inside it.
FB_PKGS = ["systemd", "libcurl4", "libarchive13", "libncursesw6"]
fbprep = chroot(tree, "sh", "-c", "apt-get update -q && apt-get install -y -q --no-install-recommends " + " ".join(FB_PKGS))
state = os.path.join(tree, "var/lib/cudaup")  # the image's own state folder and prefix (item 2's defaults)
before = packages(tree)
host_before = host_state()
common = ["--framework", "none", "--mirror", FIX, "--cache-dir", os.path.join(os.path.dirname(tree), "cache"),
          "--prefix", os.path.join(tree, "usr/local")]
r = cudaup(["plan", "--json"] + common, tree, state)
d = (r.json() or {}).get("driver") or {}
t.ok(r.rc == 0 and d.get("action") == "install" and d.get("image") is True and d.get("manager") == "apt"
     and "nvidia-driver" in d.get("packages", []) and any(s.get("action") == "image" for s in (r.json() or {}).get("steps", [])),
     CASES[0] + ": apt's nvidia-driver, inside the image, no reboot point", r)

t0 = time.monotonic()
r = cudaup(["install", "--yes", "--json"] + common, tree, state)
took = time.monotonic() - t0
doc = r.json() or {}
t.ok(r.rc == 5 and doc.get("status") == "reboot" and "image" in (doc.get("error") or "") and "first boot" in (doc.get("advice") or ""),
     CASES[1] + " (%.0f s)" % took, r)
keep_debs(tree)
# The kernels with headers: lib/modules/ABI/build is a link to /usr/src/... inside the tree (lexists: not followed on this host).
abi = [k for k in sorted(os.listdir(os.path.join(tree, "lib/modules"))) if os.path.lexists(os.path.join(tree, "lib/modules", k, "build"))]
mods = [os.path.join(tree, "lib/modules", k, "updates/dkms/nvidia-current.ko") for k in abi]
t.ok(abi and all(os.path.exists(m) for m in mods), CASES[2] + " (%s: updates/dkms/nvidia-current.ko)" % ", ".join(abi),
     os.listdir(os.path.join(tree, "lib/modules")))
after = packages(tree)
PREFS = "etc/apt/preferences.d/cudaup-nvidia-driver"
prefs = open(os.path.join(tree, PREFS)).read() if os.path.exists(os.path.join(tree, PREFS)) else ""
t.ok("Pin: version 535.*" in prefs and "nvidia" in prefs,
     CASES[3] + ": apt's preferences in the tree pin the branch (535.*)", prefs)
rec = json.load(open(os.path.join(state, "driver.json"))) if os.path.exists(os.path.join(state, "driver.json")) else {}
added = sorted(set(after) - set(before))
t.ok(rec.get("packages") and sorted(rec["packages"]) == added and "linux-headers-amd64" not in rec["packages"]
     and rec.get("held") == [] and "/" + PREFS in rec.get("files", []),
     CASES[4] + " (%d packages, dependencies included; the headers that were there are not)" % len(added),
     {"recorded_not_added": sorted(set(rec.get("packages", [])) - set(added)), "added_not_recorded": sorted(set(added) - set(rec.get("packages", [])))})
host_after = host_state()
t.ok(not ((host_after[0] - host_before[0]) & set(added)) and not (host_before[0] - host_after[0]) and
     not [f for f in host_after[1] - host_before[1] if "cudaup" in f or "nvidia" in f or "cuda" in f],
     CASES[5] + ": it gained none of the tree's new packages, lost none of its own, and no apt source of cudaup's",
     {"gained": sorted(host_after[0] - host_before[0]), "lost": sorted(host_before[0] - host_after[0]),
      "sources": sorted(host_after[1] ^ host_before[1])})

r = cudaup(["install", "--yes", "--json"] + common, tree, state)
t.ok(r.rc == 5 and "not booted yet" in ((r.json() or {}).get("error") or ""), CASES[6], r)

r = run(["doctor", "--json", "--root", tree], env={"CUDAUP_SYSTEM_BIN": ""})
dd = (r.json() or {}).get("driver") or {}
t.ok(dd.get("module_for_running_kernel") is True and dd.get("pinned") is True and "nvidia-driver" in dd.get("packages", [])
     and abi and dd.get("kernel_release") == abi[-1], CASES[7] + ": the image's kernel, its module, the hold", dd)

# ---- the image's first boot (issue 46 item 12) ----
# This host cannot boot the image (it is a container without systemd as pid 1: systemd-nspawn --boot needs one), so
# the unit is checked by the tree's own systemctl and systemd-analyze, and its command runs in a chroot of a copy of
# the tree with this host's /proc and /sys mounted: a first boot on a machine without an NVIDIA GPU (this one has
# none), with the real cudaup (this build's, copied into the image's /usr/local/bin).
UNIT = "/etc/systemd/system/cudaup-firstboot.service"
if fbprep.returncode != 0:
    t.skip(CASES[11], "systemd did not install into the tree: " + (fbprep.stderr or fbprep.stdout)[-300:])
    t.skip(CASES[12], "systemd did not install into the tree")
else:
    en = chroot(tree, "systemctl", "is-enabled", "cudaup-firstboot.service")
    va = chroot(tree, "systemd-analyze", "verify", UNIT)
    t.ok(en.stdout.strip() == "enabled" and va.returncode == 0 and "cudaup-firstboot" not in va.stderr
         and os.path.exists(os.path.join(tree, "usr/local/sbin/cudaup-firstboot")),
         CASES[11] + " (systemctl is-enabled: %s)" % en.stdout.strip(), (en.stdout, en.stderr, va.stdout, va.stderr))
    fbtree = os.path.join(t.tmpdir("firstboot"), "tree")
    subprocess.run(["cp", "-a", tree, fbtree], check=True)
    shutil.copy(BIN, os.path.join(fbtree, "usr/local/bin/cudaup"))
    fb = subprocess.run(["unshare", "-m", "sh", "-c", 'mount -t proc proc "$0/proc" && mount -t sysfs sysfs "$0/sys" && '
                         'exec chroot "$0" /bin/sh /usr/local/sbin/cudaup-firstboot', fbtree],
                        capture_output=True, text=True, timeout=1800, env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin"})
    try:
        fbrec = json.load(open(os.path.join(fbtree, "var/lib/cudaup/firstboot.json")))
    except (OSError, ValueError) as e:
        fbrec = {"unreadable": str(e)}
    fbleft = [f for f in (UNIT, "/etc/systemd/system/multi-user.target.wants/cudaup-firstboot.service",
                          "/usr/local/sbin/cudaup-firstboot") if os.path.lexists(fbtree + f)]
    fbinst = open(os.path.join(fbtree, "var/lib/cudaup/firstboot-install.json")).read() if os.path.exists(
        os.path.join(fbtree, "var/lib/cudaup/firstboot-install.json")) else ""
    t.ok(fb.returncode == 0 and fbrec.get("result") == "no-gpu" and fbrec.get("gpu") is False
         and isinstance(fbrec.get("install_exit"), int) and fbrec.get("install_exit") != 127
         and isinstance(fbrec.get("verify_exit"), int) and "no GPU work was possible" in (fbrec.get("message") or "")
         and not fbleft,
         CASES[12] + " (chroot, not nspawn: the real cudaup ran there, install exit %s, verify exit %s; the unit, its link "
         "and its script removed)" % (fbrec.get("install_exit"), fbrec.get("verify_exit")),
         (fb.returncode, fb.stderr[-1500:], fbrec, fbleft, fbinst[-1500:]))
    shutil.rmtree(os.path.dirname(fbtree), ignore_errors=True)

# ---- uninstall, with dpkg's lock held by another process until cudaup says it waits ----
lock = os.open(os.path.join(tree, "var/lib/dpkg/lock-frontend"), os.O_RDWR | os.O_CREAT, 0o640)
fcntl.lockf(lock, fcntl.LOCK_EX)
env = dict(os.environ, CUDAUP_SYSTEM_BIN="", CUDAUP_SYSTEM_ROOT="", LANGUAGE="", LC_ALL="C")
p = subprocess.Popen([BIN, "uninstall", "driver", "--yes", "--root", tree, "--state-dir", state], env=env,
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
said, err_lines = False, []
for line in p.stderr:
    err_lines.append(line)
    if "package manager is busy" in line:
        said = True
        fcntl.lockf(lock, fcntl.LOCK_UN)  # released only once cudaup has said it waits: no clock decides
        break
if not said:
    fcntl.lockf(lock, fcntl.LOCK_UN)
os.close(lock)
out, rest = p.communicate(timeout=1800)
err_lines.append(rest)
t.ok(said and p.returncode == 0, CASES[8], "".join(err_lines)[-3000:])
gone = packages(tree)
left = set(gone) - set(before)
# The kernel the install brought (linux-image-amd64 and its image, for the headers the tree had) stays, with what
# it needs: the image boots it.  Everything else the install added is gone, and the real apt finds the tree whole.
check = chroot(tree, "apt-get", "check")
t.ok(not set(before) - set(gone) and left <= set(added) and ("linux-image-amd64" in left or "linux-image-amd64" in before)
     and not [n for n in left if "nvidia" in n or n in ("dkms", "firmware-misc-nonfree")]
     and check.returncode == 0 and not any(os.path.exists(m) for m in mods)
     and not os.path.exists(os.path.join(tree, "etc/apt/sources.list.d/cudaup-nvidia-driver.sources"))
     and not os.path.exists(os.path.join(tree, PREFS)) and not os.path.exists(os.path.join(state, "driver.json")),
     CASES[9] + ": the tree's packages are those it had and the kernel the install brought (%d packages: linux-image-amd64 and "
     "what it needs), `apt-get check` passes; the driver, module, sources file and pin gone" % len(left),
     {"left": sorted(left), "lost": sorted(set(before) - set(gone)), "apt-get check": (check.stdout + check.stderr)[-800:]})

# ---- the first step fails: an archive that cannot be reached ----
tree2 = copy_tree("failfirst")
state2 = os.path.join(os.path.dirname(tree2), "state")
open(os.path.join(tree2, "etc/apt/sources.list"), "w").write("deb http://127.0.0.1:9/debian bookworm main\n")
before2 = packages(tree2)
common2 = common[:-1] + [os.path.join(os.path.dirname(tree2), "prefix")]  # beside the state folder, outside the tree
r = cudaup(["install", "--yes", "--json"] + common2, tree2, state2)
r2 = cudaup(["uninstall", "driver", "--yes", "--json"], tree2, state2)
steps = [s.get("action") for s in (r2.json() or {}).get("steps", [])]
t.ok(r.rc == 1 and "apt-get" in ((r.json() or {}).get("error") or "") and "package manager" in ((r.json() or {}).get("advice") or "")
     and r2.rc == 0 and "remove" not in [s.get("action") for s in (r2.json() or {}).get("steps", []) if "apt-get" in (s.get("detail") or "")]
     and packages(tree2) == before2,
     CASES[10] + ": apt-get update failed, uninstall removes no package (only the sources file cudaup wrote)", (r, r2, steps))
t.done()
