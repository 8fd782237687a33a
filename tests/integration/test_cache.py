#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Installs sharing one --cache-dir (issue 25 item 1): two and three at once, into different prefixes.

A site keeps the cache on NFS and a user runs cudaup twice: each archive is written by one run at a time
(CACHE/archives/SHA.lock, core/fetch/cache.h), the others wait for it and take it whole from the cache, so that
every run ends with the reference tree and nothing half-written stays in the cache.
"""
import os
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
t.ok(any("another cudaup is downloading it" in err for _, err in outs), "and the waiting run said why it waited",
     [err[-600:] for _, err in outs])
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
t.done()
