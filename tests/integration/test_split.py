#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""One archive over several connections (issue 15 item 3): a per-connection-capped server, a big archive.

When the other archives are done and connections are free, the big archive's rest is split into
ranges fetched at once into the same cache file.  Whatever the server does with those ranges (serves
them, ignores Range, fails, answers another range, sends other bytes), the install ends with the
reference tree or a checksum refusal, never with a wrong byte; a kill midway resumes from what is
whole.  CUDAUP_SPLIT_MIN (README "Settings") lowers the size worth splitting to the fixture's.
"""
import json
import os
import re
import signal
import subprocess
import sys
import time

from cutest import BIN, SRCDIR, Tap, base_env, machine, run, tree
from httpserver import Server

sys.path.insert(0, os.path.join(SRCDIR, "tests", "fixtures"))
import mkmirror  # noqa: E402

t = Tap()
ROOT, MENV = machine(t, "two-gpus")
# CUDAUP_TEST_PART_WAIT_MS (README "Settings"): the first-byte wait that sizes the chunks is given, not
# measured, so that a busy machine (whose slow answers would make the chunks grow, as designed) cannot
# change the sizes asserted here.  0: a near server, chunks stay CUDAUP_SPLIT_MIN.
NOW = {"CUDAUP_TEST_NOW": "1800000000", "CUDAUP_RETRY_BASE_MS": "50", "CUDAUP_SPLIT_MIN": str(1 << 20),
       "CUDAUP_TEST_PART_WAIT_MS": "0"}
MIRROR = os.path.join(t.tmpdir("mirror"), "m")
mkmirror.build(MIRROR, big={"libcublas": 6})
BL = "/cuda/redist/libcublas/linux-x86_64/libcublas-linux-x86_64-12.4.5.8-archive.tar.xz"
BIG = os.path.getsize(os.path.join(MIRROR, BL.lstrip("/")))


class Box:
    def __init__(self, tag, url):
        d = t.tmpdir(tag)
        self.prefix, self.state, self.cache, self.home = (os.path.join(d, n) for n in ("p", "s", "c", "h"))
        os.makedirs(self.home)
        self.url = url
        self.cuda = os.path.join(self.prefix, "cuda-12.6")

    def args(self):
        return ["--root", ROOT, "--mirror", self.url, "--prefix", self.prefix, "--state-dir", self.state,
                "--cache-dir", self.cache, "--framework", "none", "--env-scope", "none"]

    def env(self, extra=None):
        e = dict(MENV, **NOW)
        e["HOME"] = self.home
        e.update(extra or {})
        return e

    def install(self, extra=None):
        return run(["install", "--yes", "--json"] + self.args(), env=self.env(extra), timeout=300)


ref = Box("ref", "file://" + MIRROR)
r = ref.install()
t.eq(r.rc, 0, "a reference install from file:// (never split: a local file has no connection to save)", r)
REF = tree(ref.cuda)

# A CDN's cap of 2 MiB/s per connection.
srv = Server(MIRROR, rate=2 << 20)


def stepped_back(err, item="libcublas"):
    """The download progress events (JSON lines on stderr) of @item whose count is below the one before."""
    last, back, seen = 0, [], 0
    for line in err.splitlines():
        try:
            e = json.loads(line)
        except ValueError:
            continue
        if e.get("event") == "progress" and e.get("phase") == "download" and e.get("item") == item:
            seen += 1
            if e["done"] < last:
                back.append((last, e["done"]))
            last = max(last, e["done"])
    return back if seen else ["no progress events at all"]


def spans(rgs):
    """Ranges "bytes=A-Z" as sorted (A, Z)."""
    return sorted((int(a), int(z)) for a, _, z in (rg[6:].partition("-") for rg in rgs))


def ranges(path=BL, server=None):
    server = server or srv
    with server.lock:
        return [rg for (m, p, rg) in server.requests if m == "GET" and p == path and rg]


# Each answer 0.3 s late, as on a busy machine: with the wait given as none (CUDAUP_TEST_PART_WAIT_MS=0
# above), the chunks below stay 1 MiB however late the answers come (measured, they grew to 4 MiB).
srv.fault(BL, latency=0.3)
b = Box("split", srv.url)
r = b.install({"CUDAUP_DEBUG": "info"})
parts = [rg for rg in ranges() if "-" in rg and not rg.endswith("-")]
t.ok(r.rc == 0 and tree(b.cuda) == REF, "a capped server: the install is the reference tree", r)
t.ok(len(parts) >= 2, "the big archive's rest was fetched as %d ranges at once" % len(parts), ranges())
cover = spans(parts)
t.ok(cover and max(z for _, z in cover) == BIG - 1 and len({a for a, _ in cover}) == len(cover) and
     all(0 < a <= z < BIG for a, z in cover), "each range starts elsewhere, and they reach the archive's last byte", cover)
t.ok("more connections for the rest" in r.err, "the log says so", r.err[-400:])
# In chunks (CUDAUP_SPLIT_MIN, 1 MiB here), each connection taking the next in line when its own is in:
# the bytes the unpacking reads next come over every connection, not one.  The last takes what is left
# when that is under a chunk and a half.
sizes = [z - a + 1 for a, z in cover]
t.ok(len(cover) >= 3 and max(sizes) < (3 << 20) // 2 and
     all(a2 == z1 + 1 for (_, z1), (a2, _) in zip(cover, cover[1:])),
     "the rest went in chunks of about 1 MiB, one after another", sizes)
t.eq([n for n in os.listdir(os.path.join(b.cache, "archives")) if n.endswith((".prefix", ".partial"))], [],
     "nothing of the split is left in the cache")

# The first connection slow, the parts fast: chunks after its own come in first, wait, and are joined to
# it only once it has reached them (joined earlier, its bytes would land past where they belong).
srv.clear()
srv.fault(BL, only_whole=True, rate=256 << 10)
b = Box("split-slow-head", srv.url)
r = b.install({"CUDAUP_DEBUG": "info"})
t.ok(r.rc == 0 and tree(b.cuda) == REF and len(ranges()) >= 3,
     "a slow first connection and fast parts: the reference tree, from %d ranges" % len(ranges()), r.err[-600:])

# A far server (each ranged answer starts 0.3 s late), two connections, a 16 MiB archive: after the first
# chunks, the chunks grow to 8 first-byte waits at a connection's rate, so that the waits cost an eighth of
# the time on the wire or less.  The wait counted for a part is given (0.6 s; the head's counts as none), so
# that only the measured rate varies with the machine's load: 2 MiB/s x 0.6 s x 8 is about 10 MiB, and
# the bound below (1.5 MiB) holds down to a rate of 0.32 MiB/s.
FAR = os.path.join(t.tmpdir("mirror-far"), "m")
mkmirror.build(FAR, big={"libcublas": 16})
srv_far = Server(FAR, rate=2 << 20)
srv_far.fault(BL, only_ranges=True, latency=0.3)
b = Box("split-far", srv_far.url)
r = run(["install", "--yes", "--json", "--jobs", "2"] + b.args(),
        env=b.env({"CUDAUP_DEBUG": "debug", "CUDAUP_TEST_PART_WAIT_MS": "600"}), timeout=300)
far = spans(ranges(server=srv_far))
srv_far.stop()
grew = [int(n) for n in re.findall(r"libcublas: chunks of (\d+) bytes from here", r.err)]
t.ok(r.rc == 0 and far and far[0][1] - far[0][0] < (3 << 20) // 2 and grew and min(grew) > (3 << 20) // 2 and
     max(z - a + 1 for a, z in far) > (3 << 20) // 2,
     "a far server: the first chunks of 1 MiB, then bigger ones, as the log says", (far, grew, r.err[-600:]))
t.eq(len(far) and far[-1][1], os.path.getsize(os.path.join(FAR, BL.lstrip("/"))) - 1, "and the ranges reach the end")
t.ok(r.rc == 0 and os.path.isfile(os.path.join(b.cuda, "lib", "libcudart.so.12.6.127")), "installed", r)

# A CUDAUP_SPLIT_MIN that is not a number is the default (8 MiB): this 6 MB archive is then not split.
srv.clear()
b = Box("split-min-garbage", srv.url)
r = b.install({"CUDAUP_SPLIT_MIN": "lots"})
t.ok(r.rc == 0 and tree(b.cuda) == REF and ranges() == [], "CUDAUP_SPLIT_MIN=lots: the default, no split here", ranges())

# What a server can do wrong with the ranges: each ends in the reference tree, on one connection.
for tag, kw in (("ignores Range", {"ignore_range": True}), ("fails them", {"status": [500] * 50}),
                ("answers another range", {"bad_range_start": True}), ("serves another range", {"shift_range": True}),
                ("hangs up", {"truncate": 1000}), ("gives no total", {"total_unknown": True}),
                # 512 KiB over 4 s, then gone: the count showed them, and must not take them back
                ("trickles then hangs up", {"rate": 128 << 10, "truncate": 512 << 10, "times": 1})):
    srv.clear()
    srv.fault(BL, only_ranges=True, **kw)
    b = Box("split-" + tag.replace(" ", "-"), srv.url)
    r = b.install({"CUDAUP_DEBUG": "info"})
    t.ok(r.rc == 0 and tree(b.cuda) == REF and "going on with one" in r.err,
         "a server that %s for the parts: back to one connection, the reference tree" % tag, r.err[-600:])
    # The bytes the parts brought past the whole prefix are fetched again: the count waits, never drops.
    t.eq(stepped_back(r.err), [], "and the download's progress never stepped back")

# A server with a strong ETag (the parts ask If-Range with it) and one with a weak ETag (Last-Modified is
# used instead): split and installed either way.
for tag, etag in (("strong", '"cublas-v1"'), ("weak", 'W/"cublas-v1"')):
    srv.clear()
    srv.fault(BL, etag=etag)
    b = Box("split-etag-" + tag, srv.url)
    r = b.install()
    t.ok(r.rc == 0 and tree(b.cuda) == REF and len(ranges()) >= 1, "a %s ETag: split and installed" % tag, r)

# Other bytes in a part: the sha256 of the whole archive refuses it, and nothing is kept.
srv.clear()
srv.fault(BL, only_ranges=True, corrupt_ranges=True)
b = Box("split-corrupt", srv.url)
r = b.install()
t.ok(r.rc == 1 and "did not match its checksum" in r.err and not os.path.exists(b.cuda),
     "a part with other bytes: refused by the archive's sha256, exit 1, nothing installed", r)
t.eq([n for n in os.listdir(os.path.join(b.cache, "archives")) if n.endswith((".prefix", ".partial", ".tar.xz"))
      and os.path.getsize(os.path.join(b.cache, "archives", n)) == BIG], [], "and the bad archive is not kept")
srv.clear()
r = b.install()
t.ok(r.rc == 0 and tree(b.cuda) == REF, "the rerun against a good server installs", r)

# Killed while the parts arrive: the rerun trusts only what PARTIAL.prefix says is whole, and finishes.
srv.clear()
srv.fault(BL, rate=512 << 10, etag='"cublas-v1"')  # slow enough that the kill lands while the parts arrive
b = Box("split-kill", srv.url)
p = subprocess.Popen([BIN, "install", "--yes"] + b.args(), env=base_env(b.env()),
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
t0 = time.time()
while len(ranges()) < 2 and time.time() - t0 < 60 and p.poll() is None:
    time.sleep(0.05)
time.sleep(0.3)
p.send_signal(signal.SIGKILL)
p.wait()
arch = os.path.join(b.cache, "archives")
left = os.listdir(arch) if os.path.isdir(arch) else []
t.ok([n for n in left if n.endswith(".prefix")], "killed mid-split: PARTIAL.prefix records what is whole", left)
srv.clear()
srv.fault(BL, etag='"cublas-v1"')  # the same file: the resume's If-Range holds
r = b.install()
t.ok(r.rc == 0 and tree(b.cuda) == REF, "the rerun resumes and installs the reference tree", r)
t.eq([n for n in os.listdir(arch) if n.endswith((".prefix", ".partial"))], [], "nothing of the split is left")

# A PARTIAL.prefix that is not a number, or says more than the file holds: started over, still right.
for tag, text in (("garbage", "x\n"), ("beyond", "%d\n" % (BIG * 2))):
    srv.clear()
    b = Box("split-prefix-" + tag, srv.url)
    r = run(["plan", "--json"] + b.args(), env=b.env())
    sha = [d["sha256"] for d in r.json()["downloads"] if d["component"] == "libcublas"][0]
    os.makedirs(os.path.join(b.cache, "archives"))
    with open(os.path.join(b.cache, "archives", sha + ".partial"), "wb") as f:
        f.write(b"\0" * (1 << 20))
    with open(os.path.join(b.cache, "archives", sha + ".partial.prefix"), "w") as f:
        f.write(text)
    r = b.install()
    t.ok(r.rc == 0 and tree(b.cuda) == REF, "a PARTIAL.prefix that is %s: the download starts over, installed" % tag, r)
srv.stop()
t.done()
