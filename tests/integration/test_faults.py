#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every file-system call of an install failing in turn (issue 16): a fault sweep.

For each kind of call (mkdir, rename, symlink, write, fsync, close) cudaup makes under the install's
folder, the faultfs shim makes the 1st, 2nd ... 16th, 21st, 34th ... such call fail (that one call alone,
so that each call's own check is what must catch it), until a run makes no call of that kind any more.  Whatever call fails, the run must exit 1 with an error, leave no
staging folder or temporary file, and leave either no install, the whole old install, or the whole
new one (never a half one).  After each sweep a run without faults installs from the cache with
nothing downloaded.  The same for the cache's folder (the downloads) and for an install that adds
components to an existing one (the old tree's files move into the new one).
"""
import hashlib
import json
import os
import sys

from cutest import SRCDIR, Tap, machine, run

sys.path.insert(0, os.path.join(SRCDIR, "tests", "fixtures"))
import mkmirror  # noqa: E402

t = Tap()
ROOT, MENV = machine(t, "two-gpus")
NOW = {"CUDAUP_TEST_NOW": "1800000000", "CUDAUP_RETRY_BASE_MS": "50"}
MIRROR = os.path.join(t.tmpdir("mirror"), "m")
mkmirror.build(MIRROR)
STEPS = list(range(16)) + [21, 34, 55, 89, 144, 233, 377]  # every one of the first 16 calls


def tree(path):
    """Type, mode and content of everything under path, the record without its times."""
    if not os.path.isdir(path):
        return None
    out = {}
    for dp, dns, fns in os.walk(path):
        for n in dns + fns:
            p = os.path.join(dp, n)
            r = os.path.relpath(p, path)
            st = os.lstat(p)
            if os.path.islink(p):
                out[r] = ("l", os.readlink(p))
            elif os.path.isdir(p):
                out[r] = ("d", oct(st.st_mode & 0o7777))
            elif r == ".cudaup/record.json":
                rec = json.load(open(p))
                rec.pop("created", None)
                out[r] = json.dumps(rec, sort_keys=True)
            else:
                out[r] = ("f", oct(st.st_mode & 0o7777), hashlib.sha256(open(p, "rb").read()).hexdigest())
    return out


class Box:
    def __init__(self, tag, cache):
        d = t.tmpdir(tag)
        self.prefix, self.state, self.home = (os.path.join(d, n) for n in ("prefix", "state", "home"))
        os.makedirs(self.home)
        self.cache = cache
        self.cuda = os.path.join(self.prefix, "cuda-12.6")

    def install(self, *extra, faults=None):
        env = dict(MENV, **NOW)
        env["HOME"] = self.home
        if faults:
            env.update({"LD_PRELOAD": os.environ["FAULTFS"], "CUDAUP_FAULTS": faults,
                        "ASAN_OPTIONS": "verify_asan_link_order=0:" + os.environ.get("ASAN_OPTIONS", "")})
        return run(["install", "--yes", "--json", "--root", ROOT, "--mirror", "file://" + MIRROR, "--prefix",
                    self.prefix, "--state-dir", self.state, "--cache-dir", self.cache, "--framework", "none",
                    "--env-scope", "user", "--shell-rc", os.path.join(self.home, ".bashrc")] + list(extra), env=env)


def leftovers(prefix):
    if not os.path.isdir(prefix):
        return []
    return [n for n in os.listdir(prefix) if ".cudaup-staging" in n or ".cudaup-tmp-" in n or ".cudaup-trash" in n]


def archives(cache):
    d = os.path.join(cache, "archives")
    return sorted(n for n in os.listdir(d) if not n.endswith(".partial")) if os.path.isdir(d) else []


# Reference trees: the whole install, and the runtime alone.
warm = os.path.join(t.tmpdir("warm"), "cache")
ref = Box("ref", warm)
r = ref.install()
t.eq(r.rc, 0, "a reference install fills the cache", r)
FULL = tree(ref.cuda)
small = Box("ref-small", warm)
r = small.install("--components", "runtime")
t.eq(r.rc, 0, "a reference install of the runtime alone", r)
SMALL = tree(small.cuda)
CACHED = archives(warm)


def sweep(tag, op, errname, part_of, setup=None, old=None, extra=(), want_new=FULL):
    """Fail the Nth OP call under part_of(box) for each N in STEPS until none is made."""
    bad, made = [], 0
    for n in STEPS:
        bx = Box("%s-%s-%d" % (tag, op, n), warm)
        if setup:
            setup(bx)
        r = bx.install(*extra, faults="%s:%s:%s:%d:once" % (op, errname, part_of(bx), n))
        if "faultfs: %s" % op not in r.err:
            if r.rc != 0 or tree(bx.cuda) != want_new:
                bad.append((n, "no fault made, yet", r.rc, r.err[-300:]))
            break
        made += 1
        now = tree(bx.cuda)
        errs = [ln for ln in r.err.splitlines() if ln.startswith("{") and '"error"' in ln]
        if r.rc == 0 and op != "fsync" and now == want_new and not leftovers(bx.prefix):
            continue  # a failed call tried again, and the result is whole: fine
        if r.rc != 1 or not errs:
            bad.append((n, "exit %d" % r.rc, r.err[-300:]))
        elif now not in (old, want_new):
            bad.append((n, "a half install", sorted(set(now or {}) ^ set(want_new or {}))[:5]))
        elif leftovers(bx.prefix):
            bad.append((n, "left over", leftovers(bx.prefix)))
        elif archives(warm) != CACHED:
            bad.append((n, "the cache lost an archive", archives(warm)))
    t.ok(made >= 1 and not bad, "%s: the %s calls failed in turn (%d faults, %s): exit 1 (or 0 after a retry "
         "that made it whole; never for an fsync), no half install, nothing left over, the cache whole"
         % (tag, op, made, errname), bad)
    return made


for op, errname in (("mkdir", "ENOSPC"), ("rename", "EXDEV"), ("symlink", "EIO"), ("write", "ENOSPC"),
                    ("fsync", "EIO"), ("close", "EDQUOT")):
    sweep("fresh", op, errname, lambda bx: bx.prefix)


def add_to_small(bx):
    r = bx.install("--components", "runtime")
    assert r.rc == 0 and tree(bx.cuda) == SMALL, r


# Adding components to an install: the old tree stays whole, or the new one is whole.
for op, errname in (("mkdir", "ENOSPC"), ("rename", "EIO"), ("symlink", "EIO"), ("write", "ENOSPC"),
                    ("fsync", "EIO")):
    sweep("grow", op, errname, lambda bx: bx.prefix, setup=add_to_small, old=SMALL)

# After all of it, a run with no fault installs from the cache alone.
bx = Box("after", warm)
r = bx.install(faults="write:EIO:/no-such-path-part/")
t.ok(r.rc == 0 and tree(bx.cuda) == FULL and archives(warm) == CACHED, "a clean run after the sweeps: installed whole", r)

# The cache's own folder, every call from the Nth on failing (a download tried again would pass a
# single fault): a download that cannot be written or put in place is an error, and a rerun installs.
for op, errname in (("write", "ENOSPC"), ("rename", "EIO"), ("fsync", "EIO"), ("mkdir", "EROFS")):
    bad = []
    for n in (0, 1, 3):
        cold = os.path.join(t.tmpdir("cold-%s-%d" % (op, n)), "cache")
        bx = Box("cold-%s-%d" % (op, n), cold)
        r = bx.install(faults="%s:%s:%s:%d" % (op, errname, cold, n))
        if "faultfs: %s" % op not in r.err:
            break
        if r.rc != 1 or tree(bx.cuda) is not None or leftovers(bx.prefix):
            bad.append((n, r.rc, r.err[-300:]))
            continue
        r = bx.install()
        if r.rc != 0 or tree(bx.cuda) != FULL:
            bad.append((n, "rerun", r.rc, r.err[-300:]))
    t.eq(bad, [], "the cache's %s calls failing (%s): exit 1, nothing installed, a rerun installs" % (op, errname))

# The user's shell file and cudaup's state: a failed edit leaves the user's file as it was or with
# the whole block, never a part of it, and no temporary file beside it; uninstall likewise.
MINE = "# mine\nexport EDITOR=vi\n"


def rc_state(bx):
    text = open(os.path.join(bx.home, ".bashrc")).read()
    if text == MINE:
        return "old"
    if text.startswith(MINE) and text.count("# >>> cudaup >>>") == 1 and text.count("# <<< cudaup <<<") == 1:
        return "new"
    return "torn: %r" % text[-200:]


def temps(d):
    return [n for n in os.listdir(d) if ".cudaup-tmp-" in n]


for cmd in ("install", "uninstall"):
    for op, errname in (("write", "ENOSPC"), ("rename", "EIO"), ("fsync", "EIO"), ("close", "EIO"), ("mkdir", "EROFS")):
        bad, made = [], 0
        for n in (0, 1, 2, 4, 8):
            bx = Box("rc-%s-%s-%d" % (cmd, op, n), warm)
            open(os.path.join(bx.home, ".bashrc"), "w").write(MINE)
            if cmd == "uninstall":
                assert bx.install().rc == 0
            faults = "%s:%s:%s:%d:once;%s:%s:%s:%d:once" % (op, errname, bx.home, n, op, errname, bx.state, n)
            if cmd == "install":
                r = bx.install(faults=faults)
            else:
                env = dict(MENV, **NOW)
                env.update({"HOME": bx.home, "LD_PRELOAD": os.environ["FAULTFS"], "CUDAUP_FAULTS": faults})
                r = run(["uninstall", "12.6", "--yes", "--json", "--prefix", bx.prefix, "--state-dir", bx.state], env=env)
            if "faultfs: %s" % op not in r.err:
                break
            made += 1
            state = rc_state(bx)
            whole = state == ("new" if cmd == "install" else "old")
            if r.rc == 0 and op != "fsync" and whole and not temps(bx.home):
                continue  # tried again and done
            if r.rc != 1 or state.startswith("torn") or temps(bx.home) or (os.path.isdir(bx.state) and temps(bx.state)):
                bad.append((n, r.rc, state, temps(bx.home), r.err[-300:]))
        if made:
            t.eq(bad, [], "%s with the shell file's and the state's %s calls failing in turn (%d faults): exit 1 "
                 "(or 0, done, after a retry), the file whole, old or new, no temporary left" % (cmd, op, made))

# In zh_CN the error is Chinese on the terminal and English in the log, with its advice (issue 14).
import shutil  # noqa: E402
zm = os.path.join(t.tmpdir("zhmirror"), "m")
shutil.copytree(MIRROR, zm)
gone = [os.path.join(dp, n) for dp, _, fns in os.walk(os.path.join(zm, "cuda")) for n in fns if n.startswith("libcublas")]
os.unlink(gone[0])
bx = Box("zh", os.path.join(t.tmpdir("zhcache"), "cache"))
env = dict(MENV, **NOW)
env.update({"HOME": bx.home, "LANGUAGE": "zh_CN", "LANG": "C.UTF-8"})
r = run(["install", "--yes", "--root", ROOT, "--mirror", "file://" + zm, "--prefix", bx.prefix, "--state-dir", bx.state,
         "--cache-dir", bx.cache, "--framework", "none", "--env-scope", "none"], env=env)
logp = os.path.join(bx.state, "cudaup.log")
log = open(logp).read() if os.path.exists(logp) else ""
t.ok(r.rc == 1 and "镜像上没有" in r.err, "zh_CN: the error on the terminal is Chinese", r)
t.ok("%s is not on the mirror; nothing was downloaded." % os.path.basename(gone[0]) in log and "advice: Check that the mirror" in log and
     not [c for c in log if ord(c) >= 0x2e80], "zh_CN: the log has the error and its advice in English", log[-600:])

# mirror DIR when the cache and DIR are on different file systems (link fails: EXDEV, so the
# archives are copied), with each write, fsync, close and rename of the copies failing in turn:
# exit 1, no temporary file in DIR, and a rerun fills DIR with archives whose sha256 is the manifest's.
def mirror_files(d):
    return sorted(os.path.relpath(os.path.join(dp, n), d) for dp, _, fns in os.walk(d) for n in fns)


def run_mirror(site, faults=None):
    env = dict(MENV, **NOW)
    env["HOME"] = t.tmpdir("mhome")
    if faults:
        env.update({"LD_PRELOAD": os.environ["FAULTFS"], "CUDAUP_FAULTS": faults,
                    "ASAN_OPTIONS": "verify_asan_link_order=0:" + os.environ.get("ASAN_OPTIONS", "")})
    return run(["mirror", site, "--json", "--cuda", "12.6", "--framework", "none", "--root", ROOT, "--mirror",
                "file://" + MIRROR, "--cache-dir", warm, "--state-dir", t.tmpdir("mstate")], env=env)


ref_site = os.path.join(t.tmpdir("msite-ref"), "site")
r = run_mirror(ref_site, "link:EXDEV:%s" % ref_site)
t.ok(r.rc == 0 and "faultfs: link" in r.err, "mirror DIR on another file system: the archives are copied", r)
SITE = {f: hashlib.sha256(open(os.path.join(ref_site, f), "rb").read()).hexdigest() for f in mirror_files(ref_site)}
man = json.load(open(os.path.join(MIRROR, "cuda", "redist", "redistrib_12.6.3.json")))
want = {"cuda/redist/" + v["linux-x86_64"]["relative_path"]: v["linux-x86_64"]["sha256"]
        for k, v in man.items() if isinstance(v, dict) and "linux-x86_64" in v}
t.ok(all(SITE.get(f) == h for f, h in want.items() if f in SITE) and len(set(want) & set(SITE)) >= 4,
     "the copies' sha256 are the manifest's", sorted(SITE))
bad = []
for op, errname in (("write", "ENOSPC"), ("fsync", "EIO"), ("close", "EIO"), ("rename", "EXDEV")):
    for n in (0, 1, 3):
        site = os.path.join(t.tmpdir("msite-%s-%d" % (op, n)), "site")
        r = run_mirror(site, "link:EXDEV:%s;%s:%s:%s:%d" % (site, op, errname, site, n))
        if "faultfs: %s" % op not in r.err:
            break
        tmps = [f for f in mirror_files(site) if ".cudaup-tmp-" in f] if os.path.isdir(site) else []
        if r.rc != 1 or tmps:
            bad.append((op, n, r.rc, tmps, r.err[-300:]))
            continue
        r = run_mirror(site)
        got = {f: hashlib.sha256(open(os.path.join(site, f), "rb").read()).hexdigest() for f in mirror_files(site)}
        if r.rc != 0 or got != SITE:
            bad.append((op, n, "rerun", r.rc, sorted(set(got) ^ set(SITE))))
t.eq(bad, [], "mirror DIR with its copies' write, fsync, close and rename failing: exit 1, no temporary left, "
     "a rerun makes the same DIR")

# A real folder at PREFIX/cuda is the user's: left as it is, and said so; a prefix every user can
# write to is refused before anything is made in it.
bx = Box("cuda-folder", warm)
os.makedirs(os.path.join(bx.prefix, "cuda"))
open(os.path.join(bx.prefix, "cuda", "mine"), "w").write("mine\n")
env = dict(MENV, **NOW)
env.update({"HOME": bx.home, "CUDAUP_DEBUG": "info"})
r = run(["install", "--yes", "--json", "--root", ROOT, "--mirror", "file://" + MIRROR, "--prefix", bx.prefix,
         "--state-dir", bx.state, "--cache-dir", bx.cache, "--framework", "none", "--env-scope", "none"], env=env)
t.ok(r.rc == 0 and tree(bx.cuda) == FULL and os.path.isdir(os.path.join(bx.prefix, "cuda")) and
     not os.path.islink(os.path.join(bx.prefix, "cuda")) and "is a folder, not a link" in r.err,
     "a real folder at PREFIX/cuda: installed beside it, the folder left as it is, and said so", r.err[-400:])
# A prefix with ':' cannot go into PATH: refused as bad input before anything is made (it used to be
# found only after the install, when env.sh was written).
bx = Box("colon", warm)
bx.prefix = bx.prefix + ":x"
r = bx.install()
t.ok(r.rc == 2 and "--prefix" in r.err and not os.path.exists(bx.prefix), "a prefix with ':': exit 2, nothing made", r)
bx = Box("open-prefix", warm)
os.makedirs(bx.prefix)
os.chmod(bx.prefix, 0o777)
r = bx.install()
t.ok(r.rc == 1 and "every user" in r.err and os.listdir(bx.prefix) == [],
     "a prefix every user can write to: refused, nothing made in it", r)

t.done()
