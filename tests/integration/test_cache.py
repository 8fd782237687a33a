#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Installs sharing one --cache-dir (issue 25 item 1): two and three at once, into different prefixes.

A site keeps the cache on NFS and a user runs cudaup twice: each archive is written by one run at a time
(CACHE/archives/SHA.lock, core/fetch/cache.h), the others wait for it and take it whole from the cache, so that
every run ends with the reference tree and nothing half-written stays in the cache.
"""
import fcntl
import os
import pwd
import re
import shutil
import subprocess
import sys
import time

from cutest import BIN, SRCDIR, Tap, base_env, machine, run, tree
from httpserver import Server

sys.path.insert(0, os.path.join(SRCDIR, "tests", "fixtures"))
import mkmirror  # noqa: E402

t = Tap()
ROOT, MENV = machine(t, "two-gpus")
MIRROR = os.path.join(t.tmpdir("mirror"), "m")
mkmirror.build(MIRROR, big={"libcublas": 4})
BL = "/cuda/redist/libcublas/linux-x86_64/libcublas-linux-x86_64-12.4.5.8-archive.tar.xz"


class Box:
    def __init__(self, tag, url, cache):
        d = t.tmpdir(tag)
        self.prefix, self.state, self.home = (os.path.join(d, n) for n in ("p", "s", "h"))
        os.makedirs(self.home)
        self.url, self.cache = url, cache
        self.cuda = os.path.join(self.prefix, "cuda-12.6")

    def argv(self):
        return [BIN, "install", "--yes", "--json", "--root", ROOT, "--mirror", self.url, "--prefix", self.prefix,
                "--state-dir", self.state, "--cache-dir", self.cache, "--framework", "none", "--env-scope", "none"]

    def env(self):
        return base_env(dict(MENV, HOME=self.home, CUDAUP_TEST_NOW="1800000000", CUDAUP_RETRY_BASE_MS="50",
                             CUDAUP_DEBUG="info"))


ref = Box("ref", "file://" + MIRROR, os.path.join(t.tmpdir("ref-cache"), "c"))
r = run(ref.argv()[1:], env=ref.env(), timeout=300)
t.eq(r.rc, 0, "a reference install from file://", r)
REF = tree(ref.cuda)

# 1 MiB/s: the 4 MiB archive takes about 4 s, so the runs started together all want it while it arrives.
srv = Server(MIRROR, rate=1 << 20)


def together(k):
    cache = os.path.join(t.tmpdir("shared-%d" % k), "c")
    boxes = [Box("at-once-%d-%d" % (k, i), srv.url, cache) for i in range(k)]
    procs = []
    for b in boxes:
        procs.append(subprocess.Popen(b.argv(), env=b.env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      text=True))
        time.sleep(0.3)
    outs = [p.communicate(timeout=600) for p in procs]
    rcs = [p.returncode for p in procs]
    t.ok(rcs == [0] * k and all(tree(b.cuda) == REF for b in boxes),
         "%d installs at once sharing one --cache-dir, different prefixes: each ends whole" % k,
         [(rc, err[-800:]) for rc, (_, err) in zip(rcs, outs)])
    arch = os.path.join(cache, "archives")
    left = [n for n in os.listdir(arch) if n.endswith((".partial", ".meta", ".prefix", ".lock"))] if os.path.isdir(arch) else []
    t.eq(left, [], "and nothing half-written stays in the cache, nor a lock (%d at once)" % k)
    return outs


srv.clear()
outs = together(2)
with srv.lock:
    got = [p for (m, p, _) in srv.requests if m == "GET" and p == BL]
t.eq(len(got), 1, "the big archive was fetched once: the second run waited for the first and took it from the cache")
t.ok(any(re.search(r"another cudaup \(process \d+ on \S+\) is downloading it into the cache", err) for _, err in outs),
     "and the waiting run said why it waited, and for whom", [err[-600:] for _, err in outs])
srv.clear()
together(3)

# A lock file that is a link (planted in a shared cache): refused, never followed.
cache = os.path.join(t.tmpdir("link-lock"), "c")
b = Box("link-lock", "file://" + MIRROR, cache)
r = run(["plan", "--json"] + b.argv()[3:], env=b.env())
sha = [d["sha256"] for d in r.json()["downloads"] if d["component"] == "libcublas"][0]
os.makedirs(os.path.join(cache, "archives"))
victim = os.path.join(t.tmpdir("victim"), "f")
open(victim, "w").write("keep\n")
os.symlink(victim, os.path.join(cache, "archives", sha + ".lock"))
r = run(b.argv()[1:], env=b.env(), timeout=300)
t.ok(r.rc != 0 and "symbolic link" in r.err and open(victim).read() == "keep\n",
     "a lock file in the cache that is a link: refused, the file it points at untouched", r)
srv.stop()

# ---- a damaged copy in the cache is downloaded again in the same run (issue 33 item 8) ----
fast = Server(MIRROR)
cache = os.path.join(t.tmpdir("damaged"), "c")
b = Box("damaged-1", fast.url, cache)
t.eq(run(b.argv()[1:], env=b.env(), timeout=300).rc, 0, "an install that fills the cache")
sha = [d["sha256"] for d in run(["plan", "--json"] + b.argv()[3:], env=b.env()).json()["downloads"]
       if d["component"] == "libcublas"][0]
kept = [os.path.join(cache, "archives", n) for n in os.listdir(os.path.join(cache, "archives")) if n.startswith(sha)]
with open(kept[0], "r+b") as f:  # the same size, other bytes: a disk's error
    f.seek(4096)
    f.write(b"\xff" * 64)
fast.clear()
b = Box("damaged-2", fast.url, cache)
env = b.env()
env.pop("CUDAUP_DEBUG")
r = run(b.argv()[1:], env=env, timeout=300)
with fast.lock:
    got = [p for (m, p, _) in fast.requests if m == "GET" and p == BL]
t.ok(r.rc == 0 and tree(b.cuda) == REF and len(got) == 1,
     "a damaged archive in the cache: downloaded again in the same run, the install whole", (r, got))
t.ok(re.search(r"libcublas\S* in the cache was damaged .*downloaded again", r.err), "and the run says so", r.err[-800:])
fast.stop()

# ---- an archive another run holds without progress: who waits for what, and a bound (issue 33 item 9) ----
cache = os.path.join(t.tmpdir("held"), "c")
b = Box("held", "file://" + MIRROR, cache)
os.makedirs(os.path.join(cache, "archives"))
lockf = open(os.path.join(cache, "archives", sha + ".lock"), "w")
fcntl.flock(lockf, fcntl.LOCK_EX)
lockf.write("%d node7\n" % os.getpid())
lockf.flush()
env = b.env()
env.pop("CUDAUP_DEBUG")
env["CUDAUP_CACHE_WAIT_MS"] = "300"  # the bound, injected: the holder here never moves, so the verdict is certain
r = run(b.argv()[1:], env=env, timeout=300)
d = r.json() or {}
t.ok(r.rc == 1 and "process %d on node7" % os.getpid() in d.get("error", "") and "libcublas" in d.get("error", "") and
     cache in d.get("error", "") and "stopped waiting" in d.get("error", "") and not os.path.exists(b.cuda),
     "an archive held by a run that makes no progress: given up after the bound, exit 1, naming the holder, "
     "the archive and the cache", r)
t.ok(re.search(r"libcublas: another cudaup \(process %d on node7\) is downloading it into the cache \S+; waiting for it "
               r"\(giving up after 0\.3 s without progress\)" % os.getpid(), r.err),
     "while it waits, it says for whom and for what, without -v", r.err[-800:])
fcntl.flock(lockf, fcntl.LOCK_UN)
lockf.close()
r = run(b.argv()[1:], env=env, timeout=300)
t.ok(r.rc == 0 and tree(b.cuda) == REF, "once the holder lets go, the same command installs", r)

# ---- another user's cache, or their link as it or as archives/ (issue 33 item 7), refused as for mirror DIR ----
if os.geteuid() != 0:
    t.skip("another user's cache", "these cases need root to give folders to another user (the tests run as root in CI)")
else:
    nobody = pwd.getpwnam("nobody")
    for how in ("owned", "link", "archives-link", "archives-own-link"):
        d = t.tmpdir("foreign-cache-" + how)
        aim = os.path.join(d, "aim")
        os.makedirs(aim)
        os.lchown(aim, nobody.pw_uid, nobody.pw_gid)
        cache = os.path.join(d, "c")
        if how == "owned":
            cache = aim
        elif how == "link":
            os.symlink(aim, cache)
            os.lchown(cache, nobody.pw_uid, nobody.pw_gid)
        else:
            os.makedirs(cache)
            os.symlink(aim, os.path.join(cache, "archives"))
            if how == "archives-link":
                os.lchown(os.path.join(cache, "archives"), nobody.pw_uid, nobody.pw_gid)
        b = Box("foreign-" + how, "file://" + MIRROR, cache)
        r = run(b.argv()[1:], env=b.env(), timeout=300)
        t.ok(r.rc == 1 and "nobody" in r.err and os.listdir(aim) == [] and not os.path.exists(b.prefix),
             "--cache-dir %s: refused before anything is written, naming the owner" % how, r)
t.done()
