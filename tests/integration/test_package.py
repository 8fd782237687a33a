#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""cudaup on many machines (issue 13): scripts/package makes a Debian package and a tarball of the same files;
`cudaup mirror --package` places the package on the site mirror, where the Ansible role fetches it."""
import io
import os
import re
import shutil
import subprocess
import sys
import tarfile

from cutest import BIN, BUILDDIR, SRCDIR, Tap, base_env, run

sys.path.insert(0, os.path.join(SRCDIR, "tests", "fixtures"))
import machines  # noqa: E402
import mkmirror  # noqa: E402

t = Tap()
if not shutil.which("dpkg-deb"):
    t.skip("the Debian package", "dpkg-deb is not installed")
    t.done()
out = t.tmpdir("pkg")
# A release build of its own, as scripts/package makes it (prefix /usr: lintian refuses /usr/local), kept
# in the suite's build folder so that the next run only rebuilds what changed.
p = subprocess.run([os.path.join(SRCDIR, "scripts", "package"), out], capture_output=True, text=True,
                   env=dict(os.environ, BUILD_DIR=os.path.join(BUILDDIR, "package-build")), timeout=1200)
paths = p.stdout.split()
debs = [x for x in paths if x.endswith(".deb")]
tars = [x for x in paths if x.endswith(".tar.gz")]
t.ok(p.returncode == 0 and len(debs) == 1 and len(tars) == 1, "scripts/package prints a .deb and a .tar.gz", p.stderr)
if not debs:
    t.done()
deb = debs[0]
info = subprocess.run(["dpkg-deb", "-f", deb, "Package", "Version", "Architecture", "Depends"], capture_output=True,
                      text=True).stdout
t.ok("Package: cudaup" in info and "Version: 0.1.0" in info, "the package is cudaup 0.1.0", info)
depends = info.split("Depends:")[1] if "Depends:" in info else ""
for dep in ("libcurl4", "libarchive13", "libjansson4", "libncursesw6"):
    t.ok(dep in depends, "it declares %s" % dep, depends)
listing = subprocess.run(["dpkg-deb", "-c", deb], capture_output=True, text=True).stdout
names = {line.split()[-1].lstrip(".") for line in listing.splitlines() if line.strip()}
for want in ("bin/cudaup", "share/man/man1/cudaup.1.gz", "share/doc/cudaup/copyright",
             "share/doc/cudaup/changelog.gz", "share/locale/zh_CN/LC_MESSAGES/cudaup.mo"):
    t.ok(any(n.endswith(want) for n in names), "the package holds %s" % want, sorted(names))
with tarfile.open(tars[0]) as tf:
    tfiles = sorted(m.name.lstrip(".") for m in tf.getmembers() if m.isfile())
dfiles = sorted(line.split()[-1].lstrip(".") for line in listing.splitlines() if line.startswith("-"))
t.ok(tfiles and tfiles == dfiles, "the tarball holds the same files as the package", (tfiles, dfiles))
# Debian's own linter finds nothing, info tags included; its one override is the dpkg database's, and
# says why (issue 33).
if shutil.which("lintian"):
    li = subprocess.run(["lintian", "-I", "--tag-display-limit", "0", deb], capture_output=True, text=True, timeout=600)
    tags = [ln for ln in (li.stdout + li.stderr).splitlines() if re.match(r"^[EWIXPO]: ", ln)]
    t.ok(li.returncode == 0 and tags == [], "lintian -I: no tag", li.stdout + li.stderr)
else:
    t.skip("lintian -I: no tag", "lintian is not installed (scripts/bootstrap --test installs it)")
ov = subprocess.run(["dpkg-deb", "--fsys-tarfile", deb], capture_output=True).stdout
with tarfile.open(fileobj=io.BytesIO(ov)) as tf:
    overrides = [m for m in tf.getmembers() if "lintian/overrides" in m.name and m.isfile()]
    text = tf.extractfile(overrides[0]).read().decode() if overrides else ""
rules = [ln for ln in text.splitlines() if ln and not ln.startswith("#")]
t.ok(rules == ["cudaup: uses-dpkg-database-directly [usr/bin/cudaup]"] and "dpkg-query" in text,
     "one lintian override, the dpkg database's, with its reason", text)
x = t.tmpdir("x")
subprocess.run(["dpkg-deb", "-x", deb, x], check=True)
exe = [os.path.join(x, n.lstrip("/")) for n in names if n.endswith("bin/cudaup")][0]
r = subprocess.run([exe, "--version"], capture_output=True, text=True)
t.eq(r.stdout.strip(), "cudaup 0.1.0", "the packaged binary runs")

# The site mirror carries it, under its own name and as cudaup_ARCH.deb for the Ansible role.
root = os.path.join(t.tmpdir("m"), "root")
machines.build("two-gpus", root)
nv = os.path.join(t.tmpdir("nv"), "m")
mkmirror.build(nv)
site = t.tmpdir("site")
r = run(["mirror", site, "--json", "--root", root, "--mirror", "file://" + nv, "--framework", "none", "--package", deb,
         "--cache-dir", t.tmpdir("c")], env={"FAKE_NVIDIA_CONFIG": os.path.join(root, "fake-nvidia.conf")})
arch = subprocess.run(["dpkg-deb", "-f", deb, "Architecture"], capture_output=True, text=True).stdout.strip()
placed = os.path.join(site, "cudaup", os.path.basename(deb))
stable = os.path.join(site, "cudaup", "cudaup_%s.deb" % arch)
t.ok(r.rc == 0 and (r.json() or {}).get("package") == os.path.basename(deb), "mirror --package: exit 0", r)
t.ok(os.path.exists(placed) and open(placed, "rb").read() == open(deb, "rb").read(), "the package is in DIR/cudaup/")
t.ok(os.path.exists(stable) and open(stable, "rb").read() == open(deb, "rb").read(),
     "and as cudaup_%s.deb, the name the Ansible role fetches" % arch)
r = run(["mirror", t.tmpdir("site2"), "--root", root, "--mirror", "file://" + nv, "--framework", "none",
         "--package", os.path.join(out, "nothing.deb")], env={"FAKE_NVIDIA_CONFIG": os.path.join(root, "fake-nvidia.conf")})
t.ok(r.rc == 2 and "--package" in r.err, "mirror --package with a missing file: exit 2", r)

# What --package takes (issue 25 item 5): a Debian package or the release tarball, checked by what it holds,
# never another user's link, and copied as a stream.
NVENV = {"FAKE_NVIDIA_CONFIG": os.path.join(root, "fake-nvidia.conf")}


def mirror_pkg(pkg, tag):
    d = t.tmpdir(tag)
    return d, run(["mirror", d, "--root", root, "--mirror", "file://" + nv, "--framework", "none", "--package", pkg,
                   "--cache-dir", t.tmpdir("c-" + tag)], env=NVENV)


fake = os.path.join(t.tmpdir("fake"), "cudaup_%s.deb" % arch)
open(fake, "w").write("not a deb\n")
d, r = mirror_pkg(fake, "site-fake")
t.ok(r.rc == 2 and "not a Debian package" in r.err and not os.path.exists(os.path.join(d, "cudaup")),
     "a file named .deb that is not a Debian package: exit 2, nothing published", r)
faketgz = os.path.join(t.tmpdir("faketgz"), "cudaup-0.1.0.tar.gz")
with tarfile.open(faketgz, "w:gz") as tf:
    tf.add(fake, arcname="notes.txt")
d, r = mirror_pkg(faketgz, "site-faketgz")
t.ok(r.rc == 2 and "release tarball" in r.err and not os.path.exists(os.path.join(d, "cudaup")),
     "a .tar.gz without cudaup in it: exit 2, nothing published", r)
d, r = mirror_pkg(tars[0], "site-tgz")
t.ok(r.rc == 0 and open(os.path.join(d, "cudaup", os.path.basename(tars[0])), "rb").read() == open(tars[0], "rb").read(),
     "the release tarball: published", r)
if os.geteuid() == 0:
    import pwd
    nobody = pwd.getpwnam("nobody")
    secret = os.path.join(t.tmpdir("secret"), "cudaup_0.1.0_%s.deb" % arch)
    shutil.copy(deb, secret)
    os.chmod(secret, 0o600)
    lnk = os.path.join(t.tmpdir("lnk"), "cudaup_0.1.0_%s.deb" % arch)
    os.symlink(secret, lnk)
    os.lchown(lnk, nobody.pw_uid, nobody.pw_gid)
    d, r = mirror_pkg(lnk, "site-link")
    t.ok(r.rc == 2 and "owned by nobody" in r.err and not os.path.exists(os.path.join(d, "cudaup")),
         "--package a link owned by nobody to root's file: refused, nothing published", r)
else:
    t.skip("--package as another user's link", "needs root to make a link owned by nobody")
# A big package (160 MiB: the real one with an extra member dpkg ignores): the copy's memory stays small.
big = os.path.join(t.tmpdir("big"), "cudaup_0.1.0_%s.deb" % arch)
shutil.copy(deb, big)
with open(big, "ab") as f:
    size = 160 << 20
    if f.tell() % 2:
        f.write(b"\n")
    f.write(b"_pad/".ljust(16) + b"0".ljust(12) + b"0".ljust(6) + b"0".ljust(6) + b"100644".ljust(8) +
            str(size).encode().ljust(10) + b"`\n")
    f.flush()
    f.truncate(f.tell() + size)
d = t.tmpdir("site-big")
probe = ("import resource, subprocess, sys; p = subprocess.run(sys.argv[1:], capture_output=True); "
         "print(p.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
p = subprocess.run([sys.executable, "-c", probe, BIN, "mirror", d, "--root", root, "--mirror", "file://" + nv,
                    "--framework", "none", "--package", big, "--cache-dir", t.tmpdir("c-big")],
                   env=base_env(NVENV), capture_output=True, text=True)
rc, rss = (p.stdout.split() + ["?", "0"])[:2]
placed = os.path.join(d, "cudaup", os.path.basename(big))
t.ok(rc == "0" and os.path.getsize(placed) == os.path.getsize(big) and int(rss) < 100 << 10,
     "a 160 MiB package is published with at most 100 MiB of memory (%s KiB at most)" % rss, p.stderr[-500:])
t.done()
