#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""cudaup on many machines (issue 13): scripts/package makes a Debian package and a tarball of the same files;
`cudaup mirror --package` places the package on the site mirror, where the Ansible role fetches it."""
import os
import shutil
import subprocess
import sys
import tarfile

from cutest import BUILDDIR, SRCDIR, Tap, run

sys.path.insert(0, os.path.join(SRCDIR, "tests", "fixtures"))
import machines  # noqa: E402
import mkmirror  # noqa: E402

t = Tap()
if not shutil.which("dpkg-deb"):
    t.skip("the Debian package", "dpkg-deb is not installed")
    t.done()
out = t.tmpdir("pkg")
# The test's own build (BUILD_DIR), so the suite does not configure a second one; as it is, since
# the other tests run from it.
p = subprocess.run([os.path.join(SRCDIR, "scripts", "package"), out], capture_output=True, text=True,
                   env=dict(os.environ, BUILD_DIR=BUILDDIR, PACKAGE_NO_BUILD="1"), timeout=600)
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
for want in ("bin/cudaup", "share/man/man1/cudaup.1", "share/doc/cudaup/LICENSE",
             "share/locale/zh_CN/LC_MESSAGES/cudaup.mo"):
    t.ok(any(n.endswith(want) for n in names), "the package holds %s" % want, sorted(names))
with tarfile.open(tars[0]) as tf:
    tfiles = sorted(m.name.lstrip(".") for m in tf.getmembers() if m.isfile())
dfiles = sorted(line.split()[-1].lstrip(".") for line in listing.splitlines() if line.startswith("-"))
t.ok(tfiles and tfiles == dfiles, "the tarball holds the same files as the package", (tfiles, dfiles))
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
t.done()
