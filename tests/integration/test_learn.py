#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Releases newer than the catalog, learned the day they ship (issue 44): a plan asks the package index for them
(PEP 691 JSON or PEP 503 HTML), reads their METADATA from PEP 658 .metadata files or through HTTP Range requests into
real-shaped wheels, names a release whose GPU code was not read and plans it when pinned (or --allow-inferred),
saying what is inferred from what; its pins enter the constraints.  The index down, slow, answering garbage or a
wrong Content-Range: the plan answers from the catalog, said once.  Answers are cached with their validators and
revalidated (304); --offline plans from the catalog and the cache alone; a CUDA release the catalog does not know is
planned by minor-version compatibility, inferred from its predecessor.  Pre-releases only when pinned."""
import hashlib
import json
import os
import shutil
import socket
import sys
import time

import cutest
from cutest import SRCDIR, Tap, machine


def run(args, *a, **kw):
    """cutest.run with --toolkit system on plan, install and mirror: this file is about
    learning releases newer than the catalog and the cache and mirror of the system CUDA's archives; the toolkit's default (the compiler
    wheels for frameworks that bring their own CUDA) is test_toolkit's."""
    if args and args[0] in ("plan", "install", "mirror"):
        args = [args[0], "--toolkit", "system"] + list(args[1:])
    return cutest.run(args, *a, **kw)


from httpserver import Server

sys.path.insert(0, os.path.join(SRCDIR, "tests", "fixtures"))
import mkindex  # noqa: E402

t = Tap()
FIX = os.path.join(SRCDIR, "tests", "fixtures", "nvidia")
MIRROR = t.tmpdir("mirror")
shutil.copytree(FIX, MIRROR, dirs_exist_ok=True)
for name in ("redistrib_13.2.2.json", "redistrib_13.3.1.json", "redistrib_13.4.2.json"):
    shutil.copy(os.path.join(SRCDIR, "tests", "fixtures", "manifests", name), os.path.join(MIRROR, "cuda", "redist"))
ONLINE = {"CUDAUP_OFFLINE": ""}  # base_env plans offline; these tests ask an index of their own
root, env = machine(t, "u2404-rtx5090-615")
env = dict(env, **ONLINE)


def plan(index, *args, cache=None, e=None, root_=None, mirror=None):
    cache = cache or t.tmpdir("cache")
    r = run(["plan", "--json", "--root", root_ or root, "--mirror", mirror or "file://" + MIRROR, "--cache-dir", cache,
             "--prefix", "/opt/cu", "--state-dir", "/var/tmp/st"] + (["--index-url", index] if index else []) +
            list(args), env=dict(e or env))
    return r, r.json() or {}


def fw(d, name=None):
    for f in d.get("frameworks") or ([d["framework"]] if d.get("framework") else []):
        if name is None or f["name"] == name:
            return f
    return {}


def said(d, text):
    return [x for x in d.get("reasons", []) + d.get("warnings", []) if text in x]


# ---- the index in its JSON form, no .metadata files: METADATA read through Range requests -----------------
JSONIDX = mkindex.build(t.tmpdir("idx-json"))
srv = Server(JSONIDX)
srv.validators = True
IDX = srv.url + "/simple/"
r, d = plan(IDX, "--framework", "pytorch")
t.ok(r.rc == 0 and fw(d).get("version") == "2.15" and d.get("offline") is False, "an index with PyTorch 2.16.0: auto keeps 2.15", r)
t.ok(said(d, "Not PyTorch 2.16.0, which is on the package index %s" % IDX) and
     said(d, "planned when pinned (--framework pytorch==2.16.0) or with --allow-inferred"),
     "the plan names 2.16.0, newer than the catalog, and how to plan it", d.get("reasons"))
t.ok(any(a and "application/vnd.pypi.simple.v1+json" in a for a in srv.accepts), "the index was asked for PEP 691 JSON",
     srv.accepts)
ranged = [(p, rg) for (m, p, rg) in srv.requests if rg]  # the suffix ranges (the zip's end) are logged apart: srv.tails
t.ok(ranged and srv.tails and all(p.endswith(".whl") for p in srv.tails) and
     all(p.endswith(".whl") for p, _ in ranged) and len({p for p, _ in ranged} | set(srv.tails)) >= 2 and
     not srv.gets(".metadata") and not any(m == "GET" and p.endswith(".whl") and not rg for (m, p, rg) in srv.requests),
     "no .metadata listed: the wheels' end records, directories and METADATA read by Range requests, no wheel whole",
     srv.requests)

srv.clear()
r, d = plan(IDX, "--framework", "pytorch==2.16.0")
f = fw(d)
t.ok(r.rc == 0 and f.get("version") == "2.16.0" and f.get("pip", [""])[0] == "torch==2.16.0" and f.get("inferred") is True
     and f.get("cuda_build") in ("cu132", "13.2"), "pinned, PyTorch 2.16.0 is planned (its cu132 build), inferred", r)
t.ok(said(d, "its GPU code is inferred from 2.15's build for the same CUDA, not read"),
     "the reason says what is inferred from what", d.get("reasons"))
t.ok(said(d, "supports 3.11 to 3.14"), "its Pythons are its wheels' (cp311-cp314 on PyPI's tags)", d.get("reasons"))
r, d = plan(IDX, "--framework", "pytorch", "--allow-inferred")
t.ok(r.rc == 0 and fw(d).get("version") == "2.16.0" and fw(d).get("inferred") is True,
     "--allow-inferred: PyTorch 2.16.0 without a pin", r)

# Its pins on NVIDIA's wheels enter the constraints of an environment it shares.
r, d = plan(IDX, "--framework", "pytorch==2.16.0,jax==0.12.2")
cons = fw(d, "pytorch").get("constraints") or []
t.ok(r.rc == 0 and "nvidia-cudnn-cu13==9.26.0.51" in cons and "nvidia-cublas==13.4.1.3.*" in cons and
     "nvidia-nccl-cu13==2.30.7" in cons and fw(d, "jax").get("version") == "0.12.2",
     "pytorch==2.16.0,jax==0.12.2: the learned pins (torch's and its cuda-toolkit's) hold pip", r)

# JAX: unpinned, pip is held to the newest release whose code was read, and 0.12.2 is named.
r, d = plan(IDX, "--framework", "jax")
t.ok(r.rc == 0 and fw(d).get("pip") == ["jax[cuda13]==0.12.1"] and said(d, "Not JAX 0.12.2"),
     "jax: held to 0.12.1 (jax[cuda13] alone would take 0.12.2), naming 0.12.2", r)
r, d = plan(IDX, "--framework", "jax==0.12.2")
t.ok(r.rc == 0 and fw(d).get("version") == "0.12.2" and said(d, "inferred from 0.12.1's build for the same CUDA"),
     "jax==0.12.2: planned, inferred from 0.12.1's plugin", r)
t.ok(said(d, "supports 3.12 to 3.15"), "its Pythons are jaxlib 0.12.2's wheels' (to 3.15)", d.get("reasons"))

# ---- the same index in its HTML form with .metadata files (PEP 658/714) ------------------------------------
HTMLIDX = mkindex.build(t.tmpdir("idx-html"), metadata=True)
hsrv = Server(HTMLIDX)  # no content negotiation: index.html answers
r, d = plan(hsrv.url + "/simple/", "--framework", "pytorch==2.16.0")
t.ok(r.rc == 0 and fw(d).get("version") == "2.16.0", "PEP 503 HTML with data-core-metadata: 2.16.0 learned", r)
t.ok(hsrv.gets(".whl.metadata") and not [1 for (m, p, rg) in hsrv.requests if rg],
     "the .metadata files were read, no Range request made", hsrv.requests)
# A .metadata the index lists but answers 404 for (PyPI's answer from these machines): Range requests instead.
hsrv.clear()
for n in os.listdir(os.path.join(HTMLIDX, "files")):
    if n.startswith("torch-2.16.0-cp312-cp312-manylinux") and n.endswith(".metadata"):
        hsrv.fault("/files/" + n, status=[404] * 5)
r, d = plan(hsrv.url + "/simple/", "--framework", "pytorch==2.16.0")
t.ok(r.rc == 0 and fw(d).get("version") == "2.16.0" and [1 for (m, p, rg) in hsrv.requests if rg],
     ".metadata listed but 404: the METADATA read by Range requests instead", r)

# zip64 end records, and a file:// index (a site mirror's folder).
Z64 = mkindex.build(t.tmpdir("idx-z64"), zip64=True)
zsrv = Server(Z64)
zsrv.validators = True
r, d = plan(zsrv.url + "/simple/", "--framework", "pytorch==2.16.0")
t.ok(r.rc == 0 and fw(d).get("version") == "2.16.0", "wheels with zip64 end records: read", r)
r, d = plan("file://" + os.path.join(HTMLIDX, "simple"), "--framework", "pytorch==2.16.0")
t.ok(r.rc == 0 and fw(d).get("version") == "2.16.0", "a file:// index: read from the folder", r)

# ---- the cache: fresh for a while, then revalidated with its ETag (304) -------------------------------------
cache = t.tmpdir("idx-cache")
now = int(time.time())
srv.clear()
r, d = plan(IDX, "--framework", "pytorch", cache=cache, e=dict(env, CUDAUP_TEST_NOW=str(now)))
first = len(srv.requests)
srv.clear()
r, d = plan(IDX, "--framework", "pytorch", cache=cache, e=dict(env, CUDAUP_TEST_NOW=str(now + 60)))
t.ok(r.rc == 0 and first > 0 and srv.requests == [] and said(d, "Not PyTorch 2.16.0"),
     "a minute later: the cached page and METADATA serve, the index is not asked", srv.requests)
r, d = plan(IDX, "--framework", "pytorch", cache=cache, e=dict(env, CUDAUP_TEST_NOW=str(now + 3600)))
t.ok(r.rc == 0 and "/simple/torch/" in srv.not_modified and
     any(p == "/simple/torch/" and inm for (p, inm, ims) in srv.conditional) and
     not [1 for (m, p, rg) in srv.requests if rg] and said(d, "Not PyTorch 2.16.0"),
     "an hour later: the page is asked for again with its ETag, answered 304, the METADATA still cached", srv.requests)
srv.clear()
r, d = plan(IDX, "--framework", "pytorch==2.16.0", "--offline", cache=cache)
t.ok(r.rc == 0 and fw(d).get("version") == "2.16.0" and d.get("offline") is True and srv.requests == [],
     "--offline: planned from the catalog and the cache alone (2.16.0 was cached), the index not asked", r)
r = run(["plan", "--root", root, "--mirror", "file://" + MIRROR, "--cache-dir", cache, "--prefix", "/opt/cu",
         "--framework", "pytorch", "--offline"], env=env)
t.ok(r.rc == 0 and "Planned offline (--offline)" in r.out, "--offline: the text plan says so", r)
r = run(["plan", "--root", root, "--mirror", "file://" + MIRROR, "--cache-dir", cache, "--prefix", "/opt/cu",
         "--framework", "pytorch", "--index-url", IDX], env=env)
t.ok(r.rc == 0 and "Planned offline" not in r.out, "... and not when the index was asked", r)
srv.clear()
r, d = plan(IDX, "--framework", "pytorch==2.16.0", "--offline", cache=t.tmpdir("empty-cache"))
t.ok(r.rc == 3 and "record of PyPI" in d.get("error", "") and srv.requests == [],
     "--offline with nothing cached: 2.16.0 is not known, said from the record", r)

# ---- the index down, slow, answering garbage or a wrong Content-Range --------------------------------------
s = socket.socket()
s.bind(("127.0.0.1", 0))
dead = "http://127.0.0.1:%d/simple/" % s.getsockname()[1]
s.close()  # nothing listens there now
r, d = plan(dead, "--framework", "pytorch")
off = said(d, "Offline:")
t.ok(r.rc == 0 and fw(d).get("version") == "2.15" and d.get("offline") is True and len(off) == 1 and
     "could not be reached" in off[0], "the index down: planned from the catalog, offline, said once", r)
r, d = plan(dead, "--framework", "pytorch,jax")
t.ok(r.rc == 0 and len(said(d, "Offline:")) == 1, "two frameworks, the index down: said once", d.get("warnings"))
# The network gone (no route to PyPI nor NVIDIA): with NVIDIA's manifests cached, an answer at once, not a minute
# of retries; each cached manifest as NVIDIA's server would give it.
ncache = t.tmpdir("nvidia-cache")
h = hashlib.sha256(b"https://developer.download.nvidia.com/compute").hexdigest()[:16]
os.makedirs(os.path.join(ncache, "manifests", h, "cuda"))
for name in ("redistrib_13.3.1.json", "redistrib_13.2.2.json"):
    shutil.copy(os.path.join(MIRROR, "cuda", "redist", name), os.path.join(ncache, "manifests", h, "cuda"))
t0 = time.monotonic()
r = run(["plan", "--json", "--root", root, "--cache-dir", ncache, "--prefix", "/opt/cu", "--framework", "pytorch",
         "--cudnn", "none"],
        env=env, timeout=120)
took = time.monotonic() - t0
d = r.json() or {}
t.ok(r.rc == 0 and d.get("offline") is True and d.get("cuda", {}).get("version") == "13.2.2" and
     len(said(d, "as --offline does")) == 1, "the network gone: planned offline from the catalog and the cached manifests", r)
t.ok(took < 30, "... without a minute of retries (%.1f s)" % took)
t.ok(d.get("downloads") and all(x.get("cached") is False for x in d["downloads"]) and said(d, "not in cudaup's cache"),
     "offline, each download says it is not cached", d.get("downloads"))
pre = t.tmpdir("offline-prefix")
r = run(["install", "--yes", "--json", "--offline", "--root", root, "--cache-dir", ncache, "--prefix", pre,
         "--state-dir", t.tmpdir("st"), "--framework", "pytorch", "--cudnn", "none", "--env-scope", "none"],
        env=env, timeout=120)
d = r.json() or {}
t.ok(r.rc == 3 and "cache does not hold" in d.get("error", "") and "cuda_nvcc" in d.get("error", "") and
     os.listdir(pre) == [], "install --offline: refused (exit 3) naming what the cache lacks, nothing touched", r)
# Offline with none of the manifests the plan needs cached: the cache is the reason, said with what to do, not another
# framework's stack that needs no manifest ("No build of it runs here, but ... TensorFlow 2.4.4", found by a new-user run).
for name in ("fedora-gtx1080", "u2404-rtx5090-595"):
    m, menv = machine(t, name)
    r = run(["plan", "--json", "--offline", "--root", m, "--cache-dir", t.tmpdir("empty-nv"), "--prefix", "/opt/cu",
             "--framework", "pytorch"], env=dict(env, **menv), timeout=120)
    d = r.json() or {}
    t.ok(r.rc == 3 and "cache holds no redistrib_" in d.get("error", "") and "NVIDIA's server can be reached" in
         d.get("advice", "") and "No build" not in d.get("advice", "") and "tensorflow" not in d.get("advice", ""),
         "%s, --offline with no manifest cached: the cache is the reason, and the advice says how to fill it" % name, d)
# Slow: nothing within --index-timeout; the plan does not wait for it.
slow = Server(JSONIDX)
slow.validators = True
slow.fault("/simple/torch/", latency=30)
r, d = plan(slow.url + "/simple/", "--framework", "pytorch", "--index-timeout", "1")
t.ok(r.rc == 0 and d.get("offline") is True and said(d, "did not answer within 1 s"),
     "a slow index: offline after --index-timeout, said so", r)
slow.stop()
# Garbage where the page should be, and a wrong Content-Range: that release is not learned, the plan goes on.
srv.clear()
srv.fault("/simple/torch/", body=b"<<this is not an index>>", times=100)
r, d = plan(IDX, "--framework", "pytorch")
t.ok(r.rc == 0 and fw(d).get("version") == "2.15" and d.get("offline") is False and
     said(d, "could not learn from the package index"), "an index answering garbage: said, planned from the catalog", r)
srv.clear()
srv.faults.clear()
whl = "/files/torch-2.16.0-cp312-cp312-manylinux_2_28_x86_64.whl"
srv.fault(whl, bad_range_start=True, times=100)
r, d = plan(IDX, "--framework", "pytorch==2.16.0")
t.ok(r.rc == 3 and said(d, "where") is not None and "2.16.0" in d.get("error", ""),
     "a wrong Content-Range: the METADATA is not believed, 2.16.0 is not planned", r)
r, d = plan(IDX, "--framework", "pytorch")
t.ok(r.rc == 0 and said(d, "were asked for"), "... and the plan says which bytes came for which", d.get("warnings"))
srv.faults.clear()
srv.fault(whl, ignore_range=True, times=100)
r, d = plan(IDX, "--framework", "pytorch")
t.ok(r.rc == 0 and said(d, "does not honour HTTP Range requests"), "a server that ignores Range: said", d.get("warnings"))
srv.faults.clear()

# ---- pre-releases only when pinned; a build no inference is sound for; a CUDA release the catalog lacks --------
hroot, henv = machine(t, "hopper")
henv = dict(henv, **ONLINE)
r, d = plan(IDX, "--framework", "tensorflow", root_=hroot, e=henv, mirror="file://" + FIX)
t.ok(r.rc == 0 and fw(d).get("version") == "2.21.0" and said(d, "Not TensorFlow 2.22.0rc0, a pre-release"),
     "tensorflow: 2.21.0, the pre-release 2.22.0rc0 named and passed over", r)
r, d = plan(IDX, "--framework", "tensorflow==2.22.0rc0", root_=hroot, e=henv, mirror="file://" + FIX)
t.ok(r.rc == 0 and fw(d).get("version") == "2.22.0rc0" and fw(d).get("pip") == ["tensorflow==2.22.0rc0"] and
     fw(d).get("inferred") is True, "tensorflow==2.22.0rc0 pinned: planned from the index", r)
r, d = plan(None, "--framework", "tensorflow==2.22.0rc0", "--offline", root_=hroot, e=henv, mirror="file://" + FIX)
t.ok(r.rc == 3 and "pre-release" in d.get("error", ""), "offline, the pre-release is refused (exit 3, not 'not a version')",
     r)
NEWCUDA = mkindex.build(t.tmpdir("idx-cu134"), torch_cuda="13.4.2", only={"torch", "cuda-toolkit"})
nsrv = Server(NEWCUDA)
r, d = plan(nsrv.url + "/simple/", "--framework", "pytorch==2.16.0")
t.ok(r.rc == 3 and "cu134" in d.get("error", "") and "nothing about the GPU code it carries can be inferred" in d.get("error", ""),
     "a build for a CUDA no earlier release was built for: refused, saying no inference is sound", r)
r, d = plan(nsrv.url + "/simple/", "--framework", "pytorch")
t.ok(r.rc == 0 and fw(d).get("version") == "2.15" and said(d, "nothing about the GPU code it carries can be inferred"),
     "... and auto names it while planning 2.15", r)
# CUDA 13.5.0 on the mirror, unknown to the catalog: planned only by minor-version compatibility when asked for.
NEW = t.tmpdir("mirror-135")
shutil.copytree(MIRROR, NEW, dirs_exist_ok=True)
with open(os.path.join(NEW, "cuda", "redist", "redistrib_13.4.2.json")) as f:
    m = json.load(f)
m["release_label"] = "13.5.0"
with open(os.path.join(NEW, "cuda", "redist", "redistrib_13.5.0.json"), "w") as f:
    json.dump(m, f)
r, d = plan(None, "--framework", "none", "--offline", mirror="file://" + NEW)
t.ok(r.rc == 0 and d.get("cuda", {}).get("version") == "13.3.1", "CUDA 13.5.0 unknown: auto keeps 13.3.1, whose driver is known", r)
r, d = plan(None, "--framework", "jax", "--cuda", "13.5", mirror="file://" + NEW)
t.ok(r.rc == 0 and d.get("cuda", {}).get("version") == "13.5.0" and d.get("cuda", {}).get("inferred") is True and
     said(d, "inferred from CUDA 13.4.2"), "--cuda 13.5 with JAX: planned by minor-version compatibility, inferred", r)

# ---- a site mirror made by `cudaup mirror`: its index carries each wheel's METADATA (PEP 658/714), and a node with
# no other index learns from it exactly what it holds --------------------------------------------------------
import mkmirror  # noqa: E402
import mkwheels  # noqa: E402

NV = t.tmpdir("nv132")
mkmirror.build(NV, cuda="13.2.2", cudnn="9.14.0", variant="13")
WH = t.tmpdir("upstream-wheels")
wheels = [mkindex.lean_torch(WH), mkwheels.wheel(WH, "torchvision", "0.31.0"), mkwheels.wheel(WH, "torchaudio", "2.16.0"),
          mkwheels.wheel(WH, "nvidia-cuda-runtime", "13.2.86"), mkwheels.wheel(WH, "nvidia-cudnn-cu13", "9.26.0.51")]
UP = mkindex.index_dir(t.tmpdir("upstream"), wheels)
up = Server(UP)
SITE = t.tmpdir("site")
r = run(["mirror", SITE, "--json", "--root", root, "--mirror", "file://" + NV, "--framework", "pytorch==2.16.0",
         "--python", "3.12", "--python-source", "system", "--index-url", up.url + "/simple/", "--cache-dir",
         t.tmpdir("mc")], env=env, timeout=600)
page = os.path.join(SITE, "pypi", "simple", "torch", "index.html")
twhl = os.path.basename(wheels[0])
t.ok(r.rc == 0 and os.path.exists(page), "cudaup mirror: PyTorch 2.16.0, learned from the upstream index, mirrored", r)
meta = os.path.join(SITE, "pypi", "files", twhl + ".metadata")
html_page = open(page).read() if os.path.exists(page) else ""
t.ok(os.path.exists(meta) and 'data-core-metadata="sha256=%s"' % hashlib.sha256(open(meta, "rb").read()).hexdigest()
     in html_page and b"Requires-Dist: nvidia-cudnn-cu13==9.26.0.51" in open(meta, "rb").read(),
     "the mirror's index lists each wheel's METADATA file (data-core-metadata) beside it", html_page)
up.stop()  # the node has no other index: PyPI is behind the dead proxy, the upstream is gone
site = Server(SITE)
r, d = plan(None, "--framework", "pytorch==2.16.0", mirror=site.url)
t.ok(r.rc == 0 and fw(d).get("version") == "2.16.0" and fw(d).get("index_url") == site.url + "/pypi/simple/" and
     said(d, "learned from the package index %s/pypi/simple/" % site.url),
     "a node with no other index learns 2.16.0 from the site mirror and plans it from there", r)
t.ok(site.gets(twhl + ".metadata") and not [1 for (m, p, rg) in site.requests if rg],
     "... reading its .metadata file, no Range request", site.requests)
r, d = plan(None, "--framework", "pytorch", mirror="file://" + SITE)
t.ok(r.rc == 0 and said(d, "Not PyTorch 2.16.0, which is on the package index file://%s/pypi/simple/" % SITE),
     "over file:// too: the release the mirror holds is named", r)
site.stop()
# A cuDNN release the catalog does not know: planned from its manifest, said.
with open(os.path.join(NEW, "cudnn", "redist", "redistrib_9.14.0.json")) as f:
    m = json.load(f)
m["release_label"] = "9.30.0"
m["cudnn"]["version"] = "9.30.0.10"
with open(os.path.join(NEW, "cudnn", "redist", "redistrib_9.30.0.json"), "w") as f:
    json.dump(m, f)
r, d = plan(None, "--framework", "none", "--cudnn", "9.30", "--offline", mirror="file://" + NEW)
t.ok(r.rc == 0 and (d.get("cudnn") or {}).get("version") == "9.30.0" and
     said(d, "cuDNN 9.30.0 is not in cudaup's catalog: the mirror lists it"), "cuDNN 9.30.0 unknown: planned, said", r)
srv.stop()
hsrv.stop()
zsrv.stop()
nsrv.stop()
t.done()
