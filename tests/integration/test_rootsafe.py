#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A machine root is trusted no further than a prefix (issue 46, items 1-4 and 6), against fixture trees whose
"host" side is always a scratch folder of this test's (never the real /etc, /usr/local or /var/lib/cudaup):

- item 1: what cudaup writes or removes inside --root DIR resolves inside DIR, the tree's own absolute links
  included (a /etc/profile.d or /var that is an absolute link leads into DIR, not to this host);
- item 2: under --root the prefix and state default to DIR's own (DIR/usr/local, DIR/var/lib/cudaup), the
  cache stays this host's; a user who may not write into DIR names --prefix (exit 2); a file written into
  DIR that would name a path outside it is refused (exit 2); the plan names each path;
- item 3: DIR and every folder on the way to the programs cudaup runs inside it are root's (or this user's),
  and a --root given as another user's link is refused, before anything runs;
- item 4: a state, cache or rc folder inside another user's folder is refused before anything is written;
- item 6: the environment written into DIR names paths as that machine sees them."""
import json
import os
import pwd
import shutil
import subprocess
import sys

from cutest import BIN, SRCDIR, Tap, base_env, gpu_doubles, run

sys.path.insert(0, os.path.join(SRCDIR, "tests", "fixtures"))
import machines  # noqa: E402
import mkmirror  # noqa: E402

t = Tap()
AS_ROOT = os.geteuid() == 0
MIRROR = os.path.join(t.tmpdir("mirror"), "m")
mkmirror.build(MIRROR, replace=gpu_doubles())
RTX4090 = "deb12-rtx4090"
NOBODY = pwd.getpwnam("nobody") if AS_ROOT else None


class Tree:
    """A fixture machine at DIR/root, with scratch folders beside it for what must stay untouched."""

    def __init__(self, tag, name=RTX4090):
        self.dir = t.tmpdir(tag)
        self.root = os.path.join(self.dir, "root")
        machines.build(name, self.root)
        self.cache = os.path.join(self.dir, "cache")

    def path(self, *rel):
        return os.path.join(self.root, *rel)

    def env(self, **extra):
        e = {"FAKE_NVIDIA_CONFIG": self.path("fake-nvidia.conf"), "HOME": os.path.join(self.dir, "home"),
             "CUDAUP_STATE_DIR": ""}  # the state folder's default is what these cases are about
        e.update(extra)
        return e

    def args(self, *extra):
        return ["--root", self.root, "--mirror", "file://" + MIRROR, "--cache-dir", self.cache, "--framework", "none",
                "--cuda", "12.6"] + list(extra)

    def cudaup(self, *args, timeout=300, **env):
        return run(list(args), env=self.env(**env), timeout=timeout)


def canary(path):
    """A scratch folder standing for this host's: what it holds, to be compared before and after."""
    return sorted(os.listdir(path)) if os.path.isdir(path) else None


def read(p):
    return open(p).read() if os.path.exists(p) else None


def as_nobody(args, env, timeout=300):
    """cudaup as uid 65534, with the test's folders readable by it."""
    pr = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", BIN] + args,
                        env=base_env(env), capture_output=True, text=True, timeout=timeout)
    return pr


def open_to_all(d):
    """Let uid 65534 reach and read @d and everything under it (the test's tmp folders are 0700)."""
    for dp, dn, fn in os.walk(d):
        for x in dn + fn:
            p = os.path.join(dp, x)
            if not os.path.islink(p):
                os.chmod(p, os.stat(p).st_mode | 0o005)
    par = d
    while par != "/":
        os.chmod(par, os.stat(par).st_mode | 0o005)
        par = os.path.dirname(par)


# ---- item 1: a tree's absolute links lead inside the tree, never to this host ----
if AS_ROOT:
    tr = Tree("abs-links")
    host_pd = os.path.join(tr.dir, "host-profile.d")   # where DIR/etc/profile.d points, seen from this host
    host_var = os.path.join(tr.dir, "host-var")         # where DIR/var points, seen from this host
    os.makedirs(host_pd)
    os.makedirs(host_var)
    open(os.path.join(host_pd, "keep"), "w").write("the host's\n")
    os.symlink(host_pd, tr.path("etc/profile.d"))
    os.symlink(host_var, tr.path("var"))
    os.makedirs(tr.path(host_var.lstrip("/")))  # inside the tree, /var leads to a folder of its own
    r = tr.cudaup("install", "--yes", *tr.args("--prefix", tr.path("opt/cu"), "--env-scope", "system"))
    t.ok(r.rc in (0, 4), "install --root DIR --env-scope system into a tree with absolute links: done", r)
    t.eq(canary(host_pd), ["keep"], "DIR/etc/profile.d, an absolute link: nothing written into the host's folder it names")
    t.eq(canary(host_var), [], "DIR/var, an absolute link: the default state folder is not the host's (nothing written there)")
    inside_pd = tr.path(host_pd.lstrip("/"), "cudaup.sh")
    inside_state = tr.path(host_var.lstrip("/"), "lib/cudaup")
    t.ok(os.path.exists(inside_pd), "the profile script is where the link leads inside DIR", os.listdir(tr.root))
    t.ok(os.path.exists(os.path.join(inside_state, "env.sh")), "env.sh is in DIR's own state folder, where DIR's /var leads inside it",
         os.listdir(tr.root))
    # ---- item 6: the files written for DIR name paths as DIR sees them ----
    sh = read(os.path.join(inside_state, "env.sh")) or ""
    t.ok("CUDA_HOME='/opt/cu/cuda'" in sh and tr.root not in sh,
         "env.sh in DIR names CUDA_HOME as that machine sees it (/opt/cu/cuda), not this host's path", sh)
    pd = read(inside_pd) or ""
    seen_state = "/" + host_var.lstrip("/") + "/lib/cudaup/env.sh"
    t.ok(("'%s'" % seen_state) in pd and tr.root not in pd,
         "DIR's /etc/profile.d/cudaup.sh sources env.sh as that machine sees it", pd)
    # uninstall removes the tree's file and never the host's file of that name.
    open(os.path.join(host_pd, "cudaup.sh"), "w").write("# the host's own\n")
    r = tr.cudaup("uninstall", "12.6", "--yes", "--root", tr.root, "--prefix", tr.path("opt/cu"), "--cache-dir", tr.cache)
    t.ok(r.rc == 0 and not os.path.exists(inside_pd), "uninstall --root DIR: DIR's profile script removed", r)
    t.eq(read(os.path.join(host_pd, "cudaup.sh")), "# the host's own\n",
         "uninstall --root DIR: the host's file that DIR's absolute link names is left alone")
    # What uninstall says it removes is looked for where it removes it: DIR's script gone, the host's there.
    r = tr.cudaup("install", "--yes", *tr.args("--prefix", tr.path("opt/cu"), "--env-scope", "system"))
    os.unlink(inside_pd)
    r = tr.cudaup("uninstall", "12.6", "--yes", "--json", "--root", tr.root, "--prefix", tr.path("opt/cu"), "--cache-dir", tr.cache)
    said = json.dumps((r.json() or {}).get("removal", {}))
    t.ok(r.rc == 0 and "cudaup.sh" not in said and read(os.path.join(host_pd, "cudaup.sh")) == "# the host's own\n",
         "uninstall --root DIR without DIR's profile script: the host's is neither named nor removed", (r, said))

    # ---- item 6 with the plain layout: explicit --prefix inside DIR ----
    tr = Tree("seen")
    r = tr.cudaup("install", "--yes", *tr.args("--prefix", tr.path("opt/cuda-here"), "--env-scope", "system"))
    sh = read(tr.path("var/lib/cudaup/env.sh")) or ""
    pd = read(tr.path("etc/profile.d/cudaup.sh")) or ""
    t.ok("CUDA_HOME='/opt/cuda-here/cuda'" in sh and "'/opt/cuda-here/cuda/bin'" in sh and tr.root not in sh,
         "env.sh written for DIR: CUDA_HOME and PATH as DIR sees them (not %s/...)" % tr.root, (r, sh))
    t.ok("'/var/lib/cudaup/env.sh'" in pd and tr.root not in pd, "profile.d in DIR sources /var/lib/cudaup/env.sh", pd)
    r = tr.cudaup("plan", *tr.args("--prefix", tr.path("opt/cuda-here"), "--env-scope", "system"))
    t.ok("they name /var/lib/cudaup and /opt/cuda-here/cuda, as that machine sees them" in r.out,
         "the plan says what DIR's files name, as DIR sees it", r)
    # That env.sh is DIR's: this host's shells (an rc file of this host's, a conda environment) cannot use it.
    rc = os.path.join(tr.dir, "host-bashrc")
    for scope, extra in (("user", ["--framework", "none", "--shell-rc", rc]), ("conda", ["--framework", "pytorch", "--env-tool", "conda"])):
        r = tr.cudaup("plan", "--root", tr.root, "--mirror", "file://" + MIRROR, "--cache-dir", tr.cache, "--cuda", "12.6",
                      "--prefix", tr.path("opt/cuda-here"), "--env-scope", scope, *extra)
        t.ok(r.rc == 2 and "--env-scope %s" % scope in r.err and "--state-dir" in r.err and not os.path.exists(rc),
             "--env-scope %s with DIR's own state folder: exit 2, naming --state-dir" % scope, r)
    # A shell start-up file inside DIR is that machine's: not edited from here.
    r = tr.cudaup("plan", *tr.args("--prefix", tr.path("opt/cuda-here"), "--state-dir", os.path.join(tr.dir, "st"),
                                   "--env-scope", "user", "--shell-rc", tr.path("root/.bashrc")))
    t.ok(r.rc == 2 and "--shell-rc" in r.err and "--env-scope system" in r.err, "--shell-rc inside DIR: exit 2", r)
else:
    for d in ("item 1: absolute links of a tree lead inside it", "item 6: paths as the image sees them"):
        t.skip(d, "the tree's folders and a system-wide install need root")


# ---- item 2: the prefix and state default to DIR's own ----
def unshared(args, env, scratch):
    """cudaup with a scratch folder mounted over this host's /usr/local (a mount namespace of its own): what the
    old default would write there lands in @scratch, and the real /usr/local is never touched."""
    cmd = ["unshare", "--mount", "--propagation", "private", "sh", "-c", 'mount --bind "$0" /usr/local && exec "$@"',
           scratch, BIN] + args
    pr = subprocess.run(cmd, env=base_env(env), capture_output=True, text=True, timeout=300)
    return pr


can_unshare = AS_ROOT and shutil.which("unshare") and subprocess.run(
    ["unshare", "--mount", "--propagation", "private", "true"], capture_output=True).returncode == 0
if can_unshare:
    tr = Tree("defaults")
    scratch = os.path.join(tr.dir, "host-usr-local")
    os.makedirs(scratch)
    pr = unshared(["plan", "--json"] + tr.args(), tr.env(), scratch)
    d = json.loads(pr.stdout) if pr.stdout.strip().startswith("{") else {}
    t.eq(d.get("prefix"), tr.path("usr/local"), "plan --root DIR as root: the prefix is DIR/usr/local", pr.stderr)
    steps = " ".join(s.get("detail", "") for s in d.get("steps", []))
    t.ok(tr.path("usr/local/cuda-12.6") in steps and tr.path("var/lib/cudaup/env.sh") in steps
         and tr.path("etc/profile.d/cudaup.sh") in steps, "the plan names each path: DIR's prefix, state and profile.d", steps)
    t.ok(d.get("state_dir") == tr.path("var/lib/cudaup") and d.get("cache_dir") == tr.cache and
         any(x.startswith("Disk: ") and tr.cache in x for x in d.get("reasons", [])),
         "plan --json names the state folder and the cache (this host's), and the Disk reason names the cache", d.get("reasons"))
    pr = unshared(["install", "--yes"] + tr.args(), tr.env(), scratch)
    t.ok(os.path.isdir(tr.path("usr/local/cuda-12.6")) and os.path.islink(tr.path("usr/local/cuda")),
         "install --root DIR as root: the toolkit is unpacked into DIR/usr/local", (pr.returncode, pr.stderr))
    t.eq(canary(scratch), [], "install --root DIR: this host's /usr/local (a scratch folder mounted over it) is untouched")
    t.ok(os.path.isdir(tr.cache), "the cache stays this host's (--cache-dir), not DIR's", os.listdir(tr.dir))
    t.ok(not os.path.exists(tr.path("root/.cache")), "nothing of the cache went into DIR")
    sh = read(tr.path("var/lib/cudaup/env.sh")) or ""
    t.ok("CUDA_HOME='/usr/local/cuda'" in sh, "DIR's env.sh: CUDA_HOME=/usr/local/cuda, as DIR sees it", sh)
    pd = read(tr.path("etc/profile.d/cudaup.sh")) or ""
    t.ok("'/var/lib/cudaup/env.sh'" in pd and tr.root not in pd, "DIR's profile script names /var/lib/cudaup/env.sh", pd)
else:
    t.skip("item 2: the prefix defaults to DIR/usr/local as root", "needs root and unshare to mount a scratch folder over /usr/local")

if AS_ROOT:
    # A named prefix outside DIR, with DIR's state folder: env.sh in DIR could not name it.
    tr = Tree("outside")
    outside = os.path.join(tr.dir, "host-prefix")
    r = tr.cudaup("install", "--yes", *tr.args("--prefix", outside))
    t.ok(r.rc == 2 and "--prefix" in r.err and outside in r.err and not os.path.exists(outside)
         and not os.path.exists(tr.path("var/lib/cudaup/env.sh")),
         "--prefix outside DIR with DIR's own state folder: exit 2 naming --prefix, nothing written", r)
    # --env-scope system with a state folder outside DIR: DIR's profile script could not source it.
    r = tr.cudaup("plan", *tr.args("--prefix", tr.path("opt/cu"), "--state-dir", os.path.join(tr.dir, "st"),
                                   "--env-scope", "system"))
    t.ok(r.rc == 2 and "--state-dir" in r.err, "--env-scope system, --state-dir outside DIR: exit 2 naming --state-dir", r)
    # Not asked for: nothing is set up for DIR, and the plan says why.
    r = tr.cudaup("plan", "--json", *tr.args("--prefix", tr.path("opt/cu"), "--state-dir", os.path.join(tr.dir, "st")))
    d = r.json() or {}
    t.ok(r.rc == 0 and (d.get("environment") or {}).get("scope") == "none"
         and any("state folder" in x for x in d.get("reasons", [])),
         "no --env-scope, state outside DIR: scope none, said in the plan", r)
else:
    t.skip("item 2: paths outside DIR refused", "as root only (the default scope is system)")

if AS_ROOT and shutil.which("setpriv"):
    # A user's own tree: the same defaults.
    tr = Tree("nobody-own")
    home = os.path.join(tr.dir, "home")
    os.makedirs(home)
    mirror = os.path.join(tr.dir, "m")
    shutil.copytree(MIRROR, mirror)
    open_to_all(tr.dir)
    for dp, dn, fn in os.walk(tr.root):
        for x in dn + fn:
            os.lchown(os.path.join(dp, x), 65534, 65534)
    os.lchown(tr.root, 65534, 65534)
    os.chown(home, 65534, 65534)
    env = tr.env(HOME=home, XDG_STATE_HOME=os.path.join(home, "state"), XDG_CACHE_HOME=os.path.join(home, "cache"))
    args = ["plan", "--json", "--root", tr.root, "--mirror", "file://" + mirror, "--framework", "none", "--cuda", "12.6"]
    pr = as_nobody(args, env)
    d = json.loads(pr.stdout) if pr.stdout.strip().startswith("{") else {}
    steps = " ".join(s.get("detail", "") for s in d.get("steps", []))
    t.ok(d.get("prefix") == tr.path("usr/local") and tr.path("var/lib/cudaup/env.sh") in steps,
         "plan --root DIR as a user whose DIR it is: DIR/usr/local and DIR/var/lib/cudaup", (pr.returncode, pr.stdout[-2000:], pr.stderr))
    # Root's tree: the user names --prefix.
    tr2 = Tree("nobody-roots")
    open_to_all(tr2.dir)
    args = ["plan", "--root", tr2.root, "--mirror", "file://" + mirror, "--framework", "none", "--cuda", "12.6"]
    pr = as_nobody(args, env)
    t.ok(pr.returncode == 2 and "--prefix" in pr.stderr and tr2.root in pr.stderr,
         "plan --root DIR as a user who may not write into it: exit 2 naming --prefix", (pr.returncode, pr.stdout, pr.stderr))
else:
    t.skip("item 2: a user's defaults under --root", "needs root and setpriv to run cudaup as another user")


# ---- item 3: a tree another user controls is not chrooted into ----
def static_program(path):
    """A static program that leaves /ran-NAME in the root it runs in (so that a run inside a tree is seen)."""
    src = path + ".c"
    open(src, "w").write('#include <stdio.h>\n#include <string.h>\n#include <libgen.h>\n'
                         'int main(int c, char **v) { char p[256]; (void)c; snprintf(p, sizeof p, "/ran-%s", basename(v[0]));'
                         ' FILE *f = fopen(p, "w"); if (f) fclose(f); return 0; }\n')
    cc = shutil.which("cc") or shutil.which("gcc")
    ok = cc and subprocess.run([cc, "-static", "-o", path, src], capture_output=True).returncode == 0
    os.unlink(src)
    return ok


class AptTree(Tree):
    """A Ubuntu machine with nouveau (the plan installs the driver through apt) whose apt-get, apt-mark and
    dpkg-query are static programs that leave a mark when run, and no stand-ins: the runner's own choice."""

    def __init__(self, tag):
        super().__init__(tag, "u2404-gtx970-nouveau-sb")
        os.makedirs(self.path("etc/apt"), exist_ok=True)
        open(self.path("etc/apt/sources.list"), "w").write("deb http://archive.ubuntu.com/ubuntu noble main restricted universe multiverse\n")
        os.makedirs(self.path("usr/bin"), exist_ok=True)
        self.ok = static_program(self.path("usr/bin/apt-get"))
        for n in ("apt-mark", "dpkg-query"):
            if self.ok:
                shutil.copy2(self.path("usr/bin/apt-get"), self.path("usr/bin", n))

    def env(self, **extra):
        e = super().env(CUDAUP_DRIVER="auto", CUDAUP_SYSTEM_BIN="", CUDAUP_SYSTEM_ROOT="")
        e.update(extra)
        return e

    def ran(self):
        return sorted(x for x in os.listdir(self.root) if x.startswith("ran-"))

    def install(self, root=None):
        return self.cudaup("install", "--yes", "--root", root or self.root, "--mirror", "file://" + MIRROR,
                           "--cache-dir", self.cache, "--framework", "none", "--cuda", "12.6", "--prefix",
                           os.path.join(self.dir, "prefix"), "--state-dir", os.path.join(self.dir, "state"),
                           "--env-scope", "none")


if AS_ROOT:
    probe = AptTree("apt-probe")
    if probe.ok:
        # DIR itself another user's.
        a = AptTree("tree-theirs")
        os.chown(a.root, 65534, 65534)
        r = a.install()
        t.ok(r.rc == 1 and "nobody" in r.err and a.root in r.err, "install --root DIR that nobody owns: refused (exit 1), naming the owner", r)
        t.eq(a.ran(), [], "nothing ran inside nobody's tree as root")
        r = a.cudaup("plan", *a.args("--prefix", os.path.join(a.dir, "p")))
        t.ok(r.rc == 1 and "nobody" in r.err, "plan --root DIR that nobody owns: the same refusal", r)
        # A folder on the way to the programs (usr/bin) another user's.
        b = AptTree("bin-theirs")
        os.chown(b.path("usr/bin"), 65534, 65534)
        r = b.install()
        t.ok(r.rc == 1 and "nobody" in r.err and b.path("usr/bin") in r.err and "Nothing was changed" in r.err,
             "install --root DIR whose usr/bin nobody owns: refused before anything, naming the folder and owner", r)
        t.eq(b.ran(), [], "nothing ran inside that tree")
        t.ok(not os.path.exists(os.path.join(b.dir, "state", "driver.json")) and not os.path.exists(os.path.join(b.dir, "prefix")),
             "nothing was written: no driver record, no prefix", os.listdir(b.dir))
        # A program there another user's.
        c = AptTree("prog-theirs")
        os.chown(c.path("usr/bin/apt-get"), 65534, 65534)
        r = c.install()
        t.ok(r.rc == 1 and "nobody" in r.err and "apt-get" in r.err, "apt-get inside DIR owned by nobody: refused", r)
        t.eq(c.ran(), [], "nothing ran inside that tree")
        # --root given as another user's link to root's tree.
        e = AptTree("link-theirs")
        lnk = os.path.join(e.dir, "their-link")
        os.symlink(e.root, lnk)
        os.lchown(lnk, 65534, 65534)
        r = e.install(root=lnk)
        t.ok(r.rc == 1 and "link owned by nobody" in r.err, "--root as a link nobody owns: refused, naming the owner", r)
        t.eq(e.ran(), [], "nothing ran through nobody's link")
        # A folder on the way to DIR another user's.
        f = AptTree("parent-theirs")
        os.chown(f.dir, 65534, 65534)
        r = f.install()
        t.ok(r.rc == 1 and "nobody" in r.err and f.dir in r.err, "--root DIR inside a folder nobody owns: refused", r)
        t.eq(f.ran(), [], "nothing ran inside that tree")
        os.chown(f.dir, 0, 0)
    else:
        t.skip("item 3: another user's tree", "no C compiler that links statically (cc -static) for the tree's programs")
else:
    t.skip("item 3: another user's tree", "needs root to give folders to another user")


# ---- item 4: a state, cache or rc folder inside another user's folder ----
if AS_ROOT:
    tr = Tree("places")
    theirs = os.path.join(tr.dir, "theirs")
    os.makedirs(theirs)
    os.chown(theirs, 65534, 65534)
    base = ["install", "--yes", "--root", tr.root, "--mirror", "file://" + MIRROR, "--framework", "none", "--cuda", "12.6",
            "--prefix", os.path.join(tr.dir, "prefix")]
    cases = [
        ("--state-dir", ["--state-dir", os.path.join(theirs, "state"), "--cache-dir", tr.cache, "--env-scope", "none"],
         os.path.join(theirs, "state")),
        ("--cache-dir", ["--state-dir", os.path.join(tr.dir, "state"), "--cache-dir", os.path.join(theirs, "cache"),
                         "--env-scope", "none"], os.path.join(theirs, "cache")),
        ("--shell-rc", ["--state-dir", os.path.join(tr.dir, "state2"), "--cache-dir", tr.cache, "--env-scope", "user",
                        "--shell-rc", os.path.join(theirs, "rc", "bashrc")], os.path.join(theirs, "rc")),
    ]
    for what, extra, made in cases:
        r = run(base + extra, env=tr.env())
        t.ok(r.rc == 1 and "nobody" in r.err and theirs in r.err and not os.path.exists(made)
             and not os.path.exists(os.path.join(tr.dir, "prefix", "cuda-12.6")),
             "%s inside a folder nobody owns: refused before anything, naming it and its owner" % what, r)
    # The state folder root's, its backups/ subfolder nobody's: refused before the CUDA folder is put in place (an
    # independent re-check found the install unpacked CUDA, then stopped when it came to write the rc file's backup).
    st3 = os.path.join(tr.dir, "state3")
    os.makedirs(os.path.join(st3, "backups"))
    os.chown(os.path.join(st3, "backups"), 65534, 65534)
    r = run(base + ["--state-dir", st3, "--cache-dir", tr.cache, "--env-scope", "user", "--shell-rc", os.path.join(tr.dir, "rc3")],
            env=tr.env())
    t.ok(r.rc == 1 and "nobody" in r.err and "backups" in r.err and not os.path.exists(os.path.join(tr.dir, "prefix", "cuda-12.6"))
         and not os.path.exists(os.path.join(st3, "env.sh")), "--state-dir whose backups/ nobody owns: refused before anything", r)
    # Root's link on the way that leads into nobody's folder: judged by where it leads.
    os.symlink(theirs, os.path.join(tr.dir, "via"))
    r = run(base + ["--state-dir", os.path.join(tr.dir, "via", "state"), "--cache-dir", tr.cache, "--env-scope", "none"], env=tr.env())
    t.ok(r.rc == 1 and "nobody" in r.err and not os.path.exists(os.path.join(theirs, "state")),
         "--state-dir through root's link into nobody's folder: refused", r)
    # verify changes nothing, but keeps a log in the state folder: never in nobody's.
    r = run(base + ["--state-dir", os.path.join(tr.dir, "ok-state"), "--cache-dir", tr.cache, "--env-scope", "none"], env=tr.env())
    t.ok(r.rc in (0, 4) and os.path.isdir(os.path.join(tr.dir, "prefix", "cuda-12.6")), "install with folders of root's: done", r)
    r = run(["verify", "--root", tr.root, "--prefix", os.path.join(tr.dir, "prefix"), "--state-dir", os.path.join(theirs, "vstate"),
             "12.6"], env=tr.env())
    t.ok("No log is kept" in r.err and "nobody" in r.err and not os.path.exists(os.path.join(theirs, "vstate")),
         "verify --state-dir inside nobody's folder: no log written there, said so", r)
else:
    t.skip("item 4: folders inside another user's", "needs root to give folders to another user")

t.done()
