#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A site mirror that carries the whole stack (issue 13): `cudaup mirror DIR` stores NVIDIA's archives, the
Python cudaup brings, and the framework's wheels as a PEP 503 index; the upstream index is then stopped and
nodes with no Python and no route outside install everything from the site mirror alone, over http and file://."""
import base64
import glob
import hashlib
import os
import shutil
import subprocess
import sys
import threading
import time

from cutest import SRCDIR, Tap, run
from httpserver import Server

sys.path.insert(0, os.path.join(SRCDIR, "tests", "fixtures"))
import machines  # noqa: E402
import mkmirror  # noqa: E402
import mkpython  # noqa: E402
import mkwheels  # noqa: E402

t = Tap()
work = t.tmpdir("site")
ROOT = os.path.join(work, "root")
machines.build_spec(dict(machines.MACHINES["two-gpus"], pythons=[]), ROOT)
NVIDIA = os.path.join(work, "nvidia")
mkmirror.build(NVIDIA)
PB = mkpython.build(os.path.join(work, "pbs"))
MINOR = PB["minor"]
CATALOG = os.path.join(work, "catalog.json")
mkpython.serve(PB, NVIDIA, CATALOG, SRCDIR)


def sha256(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def pep503(top, wheels):
    """The upstream index, written here independently of cudaup: simple/PROJECT/ pages linking ../../files/."""
    files = os.path.join(top, "files")
    os.makedirs(files)
    projects = {}
    for w in wheels:
        shutil.copy(w, files)
        name = os.path.basename(w)
        projects.setdefault(name.split("-")[0].replace("_", "-").lower(), []).append(name)
    for proj, names in projects.items():
        d = os.path.join(top, "simple", proj)
        os.makedirs(d)
        with open(os.path.join(d, "index.html"), "w") as f:
            for n in names:
                f.write('<a href="../../files/%s#sha256=%s">%s</a><br>\n' % (n, sha256(os.path.join(files, n)), n))
    with open(os.path.join(top, "simple", "index.html"), "w") as f:
        f.write("".join('<a href="%s/">%s</a>\n' % (p, p) for p in projects))


WH = t.tmpdir("wh")
tf = mkwheels.wheel(WH, "tensorflow", "2.20.0", requires=["nvidia-cublas-cu12>=12.5"])
cublas = mkwheels.wheel(WH, "nvidia-cublas-cu12", "12.5.3")
other = mkwheels.wheel(WH, "torch", "2.14.0")  # on the index, not needed by the plan
# The companions as PyPI has them (pytorch_companions.csv): torchvision 0.29.0 asks torch==2.14.0; torchaudio's newest,
# 2.11.1, asks torch>=2.11 but is built for 2.11, so a plan of torch 2.14.0 leaves it out (unpinned, pip took it).
vision = mkwheels.wheel(WH, "torchvision", "0.29.0", requires=["torch==2.14.0"])
audio = mkwheels.wheel(WH, "torchaudio", "2.11.1", requires=["torch>=2.11"])
UP = os.path.join(work, "upstream")
pep503(UP, [tf, cublas, other, vision, audio])
upstream = Server(UP)

SITE = os.path.join(work, "site")
# --toolkit system: the site mirror of NVIDIA's archives and TensorFlow over them (the default for TensorFlow 2.15+ is
# its [and-cuda] wheels, whose mirror test_toolkit checks)
base = dict(FAKE_NVIDIA_CONFIG=os.path.join(ROOT, "fake-nvidia.conf"), CUDAUP_CATALOG=CATALOG, PATH="/usr/bin:/bin",
            CUDAUP_TOOLKIT="system")
r = run(["mirror", SITE, "--json", "--root", ROOT, "--mirror", "file://" + NVIDIA, "--framework", "tensorflow==2.20.0",
         "--python", MINOR, "--index-url", upstream.url + "/simple/", "--cache-dir", t.tmpdir("mc")],
        env=dict(base, HOME=t.tmpdir("mh")), timeout=600)
d = r.json() or {}
t.ok(r.rc == 0 and d.get("wheels") == 2 and d.get("python") == PB["file"], "mirror: exit 0, 2 wheels and the Python", r)
t.eq(sorted(n for n in os.listdir(os.path.join(SITE, "pypi", "files")) if n.endswith(".whl")),
     sorted(os.path.basename(w) for w in (tf, cublas)), "mirror collects exactly the wheels the plan needs")
t.eq(sorted(n for n in os.listdir(os.path.join(SITE, "pypi", "files")) if not n.endswith(".whl")),
     sorted(os.path.basename(w) + ".metadata" for w in (tf, cublas)),
     "and beside each its METADATA, which the index lists (PEP 658/714, issue 44)")
page = open(os.path.join(SITE, "pypi", "simple", "tensorflow", "index.html")).read()
t.ok("../../files/%s#sha256=%s" % (os.path.basename(tf), sha256(tf)) in page, "the index links carry each wheel's sha256",
     page)
t.ok(os.path.exists(os.path.join(SITE, "pypi", "simple", "nvidia-cublas-cu12", "index.html")),
     "project folders use PEP 503's normalized names")
t.eq(sha256(os.path.join(SITE, "python", PB["file"])), PB["sha256"], "the site mirror holds the Python archive")
t.ok(glob.glob(os.path.join(SITE, "cuda", "redist", "redistrib_*.json")) and
     glob.glob(os.path.join(SITE, "cudnn", "redist", "redistrib_*.json")), "and NVIDIA's manifests")
t.ok(any("/simple/tensorflow/" in p for p in upstream.gets("")), "pip read the upstream index given with --index-url")

# One environment per --framework (issue 36): the site mirror carries the wheels of every one of them.
SITE2 = os.path.join(work, "site-each")
r = run(["mirror", SITE2, "--json", "--root", ROOT, "--mirror", "file://" + NVIDIA, "--framework", "tensorflow==2.20.0",
         "--framework", "pytorch==2.14.0", "--python", MINOR, "--index-url", upstream.url + "/simple/", "--cache-dir",
         t.tmpdir("mc-each")], env=dict(base, HOME=t.tmpdir("mh-each")), timeout=600)
t.eq(sorted(n for n in os.listdir(os.path.join(SITE2, "pypi", "files")) if n.endswith(".whl")) if r.rc == 0 else r,
     sorted(os.path.basename(w) for w in (tf, cublas, other, vision)),
     "mirror --framework tensorflow --framework pytorch collects the wheels of both environments: torch 2.14.0 with "
     "torchvision 0.29.0, no torchaudio (none is built for it) [pytorch_companions.csv 2.14.0]")
# Its summary names both, as --json's "frameworks" does (issue 34: it named the first alone).
r = run(["mirror", SITE2, "--root", ROOT, "--mirror", "file://" + NVIDIA, "--framework", "tensorflow==2.20.0",
         "--framework", "pytorch==2.14.0", "--python", MINOR, "--index-url", upstream.url + "/simple/", "--cache-dir",
         t.tmpdir("mc-each")], env=dict(base, HOME=t.tmpdir("mh-each"), LANG="C.UTF-8"), timeout=600)
t.ok(r.rc == 0 and "TensorFlow, PyTorch and their dependencies for Python %s: 4 wheels" % MINOR in r.out,
     "mirror's summary names every framework whose wheels it holds", r)

# An upstream without the Python (issue 25 item 9): nodes told to use their own Python or conda need none,
# and the site mirror is filled without it; nodes that need it get advice that fits a mirror being filled.
NOPY = os.path.join(work, "nopy")
shutil.copytree(NVIDIA, NOPY, ignore=lambda d, names: ["python"] if d == NVIDIA else [])
for extra in (["--python-source", "system"], ["--env-tool", "conda"]):
    site3 = t.tmpdir("site-nopy")
    r = run(["mirror", site3, "--json", "--root", ROOT, "--mirror", "file://" + NOPY, "--framework", "tensorflow==2.20.0",
             "--python", MINOR, "--index-url", upstream.url + "/simple/", "--cache-dir", t.tmpdir("mc3")] + extra,
            env=dict(base, HOME=t.tmpdir("mh3")), timeout=600)
    t.ok(r.rc == 0 and (r.json() or {}).get("wheels") == 2 and not os.path.exists(os.path.join(site3, "python")),
         "mirror %s from an upstream without the Python: the wheels, no Python" % " ".join(extra), r)
r = run(["mirror", t.tmpdir("site-nopy-auto"), "--json", "--root", ROOT, "--mirror", "file://" + NOPY,
         "--framework", "tensorflow==2.20.0", "--python", MINOR, "--index-url", upstream.url + "/simple/",
         "--cache-dir", t.tmpdir("mc4")], env=dict(base, HOME=t.tmpdir("mh4")), timeout=600)
adv = (r.json() or {}).get("advice") or ""
t.ok(r.rc == 1 and "--python-source system" in adv and "fills one" not in adv and "upstream" in adv,
     "mirror for nodes that need the Python, from an upstream without it: exit 1, advice for the upstream", r)
upstream.stop()

NOPIP = t.tmpdir("nopip")
r = run(["mirror", NOPIP, "--json", "--root", ROOT, "--mirror", "file://" + NVIDIA,
         "--framework", "tensorflow==2.20.0", "--python", MINOR, "--cache-dir", t.tmpdir("mc2")],
        env=dict(base, PATH=t.tmpdir("emptypath"), HOME=t.tmpdir("mh2")))
d = r.json() or {}
t.ok(r.rc == 3 and "python3-pip" in (d.get("advice") or "") and "--framework none" in d.get("advice", "") and
     os.listdir(NOPIP) == [],
     "mirror with a framework but no pip here: exit 3 before any download, naming pip and --framework none", r)


class Node:
    def __init__(self, tag, url):
        self.dir = t.tmpdir(tag)
        self.url = url
        self.prefix, self.state, self.cache, self.home = (os.path.join(self.dir, n) for n in ("p", "s", "c", "h"))
        os.makedirs(self.home)

    def install(self):
        return run(["install", "--yes", "--json", "--root", ROOT, "--mirror", self.url, "--prefix", self.prefix,
                    "--state-dir", self.state, "--cache-dir", self.cache, "--framework", "tensorflow==2.20.0",
                    "--python", MINOR, "--env-scope", "none"],
                   env=dict(base, HOME=self.home, XDG_DATA_HOME=os.path.join(self.home, "d")), timeout=600)

    def venv_python(self):
        return os.path.join(self.home, "d", "cudaup", "envs", "cudaup-tensorflow", "bin", "python")


site = Server(SITE)
for label, url in (("http", site.url), ("file://", "file://" + SITE)):
    n = Node("node-" + label.strip(":/"), url)
    r = n.install()
    t.ok(r.rc == 0, "node over %s: CUDA, cuDNN, Python and TensorFlow from the site mirror alone" % label, r)
    out = subprocess.run([n.venv_python(), "-c", "import tensorflow, nvidia_cublas_cu12; print(tensorflow.__version__)"],
                         capture_output=True, text=True)
    t.eq(out.stdout.strip(), "2.20.0", "node over %s: TensorFlow and its dependency import" % label, out.stderr)
    v = run(["verify", "--json", "--root", ROOT, "--prefix", n.prefix, "--state-dir", n.state],
            env=dict(base, HOME=n.home))
    checks = {c["name"]: c["status"] for c in (v.json() or {}).get("checks", [])}
    t.ok(checks.get("python") == "pass" and checks.get("framework") == "pass" and checks.get("files") == "pass",
         "node over %s: verify passes the files, the Python and the framework on the GPUs" % label, v)
    p = run(["plan", "--json", "--root", ROOT, "--mirror", url, "--framework", "tensorflow==2.20.0", "--python", MINOR,
             "--prefix", n.prefix, "--cache-dir", n.cache], env=dict(base, HOME=n.home))
    fw = (p.json() or {}).get("framework") or {}
    t.ok(fw.get("index_url") == url + "/pypi/simple/" and
         any("site mirror's index" in x for x in (p.json() or {}).get("reasons", [])),
         "node over %s: the plan says the framework comes from the mirror's index" % label, p)
t.ok(any("/pypi/files/" in g for g in site.gets("")), "the http node fetched the wheels from the site mirror")

# A mirror with a password (issue 25 items 2 and 3): it reaches the server in the request headers, and
# nowhere else: not in any process's argv while the run goes on (pip's included), not in a file, JSON
# document or log the run writes, not on stdout or stderr.
# The password is this run's own (the pid in it): watch_argv reads every process on the machine, and another
# checkout's run of this test, at the same time, has its own password on its own plan's command line.
PW = "Pw-9f3kq1Zt-%d" % os.getpid()
cred_url = site.url.replace("http://", "http://alice:%s@" % PW)
n = Node("node-creds", cred_url)
TMP = os.path.join(n.dir, "tmp")
os.makedirs(TMP)
seen_argv = []
watching = threading.Event()


def watch_argv():
    """Every process's command line, read as any local user can, while the install runs."""
    while not watching.is_set():
        for pid in os.listdir("/proc"):
            try:
                with open("/proc/%s/cmdline" % pid, "rb") as f:
                    cmd = f.read()
            except OSError:
                continue
            if PW.encode() in cmd:
                seen_argv.append(cmd.replace(b"\0", b" ").decode(errors="replace")[:300])
        time.sleep(0.02)


# What a killed run left (issue 25, left from item 6): its private folder, with the netrc and the
# password in it.  The next run removes it, as its creator is gone; a live run's folder is spared.
dead = subprocess.Popen(["true"])
dead.wait()
STALE = os.path.join(TMP, "cudaup-pip-%d-Ab12Cd" % dead.pid)
LIVE = os.path.join(TMP, "cudaup-pip-%d-Xy34Zw" % os.getpid())
for d, text in ((STALE, "machine 127.0.0.1\nlogin alice\npassword %s\n" % PW), (LIVE, "machine elsewhere\n")):
    os.mkdir(d, 0o700)
    with open(os.open(os.path.join(d, "netrc"), os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
        f.write(text)
site.clear()
w = threading.Thread(target=watch_argv)
w.start()
# CUDAUP_MIRROR: the password is on no command line to begin with, cudaup's own included.
r = run(["install", "--yes", "--json", "--root", ROOT, "--prefix", n.prefix, "--state-dir", n.state,
         "--cache-dir", n.cache, "--framework", "tensorflow==2.20.0", "--python", MINOR, "--env-scope", "none"],
        env=dict(base, HOME=n.home, XDG_DATA_HOME=os.path.join(n.home, "d"), TMPDIR=TMP, CUDAUP_DEBUG="debug",
                 CUDAUP_MIRROR=cred_url),
        timeout=600)
watching.set()
w.join()
t.ok(r.rc == 0 and os.path.exists(n.venv_python()), "a mirror with a password: CUDA, the Python and TensorFlow installed", r)
p = run(["plan", "--json", "--root", ROOT, "--mirror", cred_url, "--framework", "tensorflow==2.20.0", "--python", MINOR,
         "--prefix", t.tmpdir("creds-plan"), "--cache-dir", t.tmpdir("creds-plan-cache")],
        env=dict(base, HOME=n.home, TMPDIR=TMP))
t.ok(p.rc == 0 and (p.json() or {}).get("framework", {}).get("index_url") == site.url + "/pypi/simple/" and
     (p.json() or {}).get("python_source", {}).get("url", "").startswith(site.url + "/python/"),
     "plan --json names the mirror's index and Python without the password", p)
with site.lock:
    got = list(zip(site.requests, site.auths))
basic = "Basic " + base64.b64encode(("alice:" + PW).encode()).decode()
t.ok(any("/pypi/simple/" in q[1] and a == basic for q, a in got) and
     any("/pypi/files/" in q[1] and a == basic for q, a in got) and
     any("/python/" in q[1] and a == basic for q, a in got),
     "the password reached the server in the Authorization header, pip's requests and the Python's included",
     [(q[1], a) for q, a in got][:12])
t.eq(seen_argv, [], "no process had the password on its command line while the run went on")
found = []
for top in (n.dir,):
    for dp, dns, fns in os.walk(top):
        for fn in fns:
            fp = os.path.join(dp, fn)
            if os.path.islink(fp) or not os.path.isfile(fp):
                continue
            with open(fp, "rb") as f:
                if PW.encode() in f.read():
                    found.append(os.path.relpath(fp, top))
t.eq(found, [], "no file the run wrote holds the password (prefix, records, state, log, cache, environment, home)")
t.ok(PW not in r.out + r.err and PW not in p.out + p.err, "nor its JSON, its progress lines or plan --json",
     [x for x in (r.out + r.err + p.out + p.err).splitlines() if PW in x][:5])
t.eq(os.listdir(TMP), [os.path.basename(LIVE)],
     "the netrc pip read is gone with its folder, and so is a killed run's; a live run's is spared")
site.stop()

# A password in --index-url (issue 33 item 5): given as CUDAUP_INDEX_URL, and to plan as --index-url, it reaches
# the index in the Authorization header (pip's private netrc, as the site mirror's does) and is on no command
# line (pip's included), in no plan --json (framework.index_url, the reasons), log, file or message.
IPW = "Ix-7d2Lw0Qe-%d" % os.getpid()
up2 = Server(UP)
icred = up2.url.replace("http://", "http://bob:%s@" % IPW) + "/simple/"
n = Node("node-index-creds", "file://" + NVIDIA)
TMP = os.path.join(n.dir, "tmp")
os.makedirs(TMP)
seen_argv.clear()
PW = IPW  # what watch_argv looks for
watching.clear()
w = threading.Thread(target=watch_argv)
w.start()
r = run(["install", "--yes", "--json", "--root", ROOT, "--mirror", n.url, "--prefix", n.prefix, "--state-dir", n.state,
         "--cache-dir", n.cache, "--framework", "tensorflow==2.20.0", "--python", MINOR, "--env-scope", "none",
         "--log", os.path.join(n.dir, "install.log")],
        env=dict(base, HOME=n.home, XDG_DATA_HOME=os.path.join(n.home, "d"), TMPDIR=TMP, CUDAUP_DEBUG="debug",
                 CUDAUP_INDEX_URL=icred),
        timeout=600)
watching.set()
w.join()
t.ok(r.rc == 0 and os.path.exists(n.venv_python()), "an index with a password (CUDAUP_INDEX_URL): TensorFlow installed", r)
with up2.lock:
    got = list(zip(up2.requests, up2.auths))
basic = "Basic " + base64.b64encode(("bob:" + IPW).encode()).decode()
t.ok(any("/simple/tensorflow/" in q[1] and a == basic for q, a in got) and any("/files/" in q[1] and a == basic for q, a in got),
     "the index's password reached it in the Authorization header, the wheels' requests included",
     [(q[1], a) for q, a in got][:8])
t.eq(seen_argv, [], "no process had the index's password on its command line (pip's included)")
p = run(["plan", "--json", "-v", "--root", ROOT, "--mirror", n.url, "--framework", "tensorflow==2.20.0", "--python", MINOR,
         "--index-url", icred, "--prefix", t.tmpdir("icreds-plan"), "--cache-dir", t.tmpdir("icreds-plan-cache")],
        env=dict(base, HOME=n.home, TMPDIR=TMP))
t.ok(p.rc == 0 and (p.json() or {}).get("framework", {}).get("index_url") == up2.url + "/simple/" and IPW not in p.out + p.err
     and "bob" not in p.out, "plan --json -v with --index-url names the index without its user and password", p)
r2 = run(["plan", "--root", ROOT, "--mirror", n.url, "--framework", "tensorflow==2.20.0", "--index-url",
          "ftp://bob:%s@example.invalid/simple/" % IPW], env=dict(base, HOME=n.home))
t.ok(r2.rc == 2 and IPW not in r2.out + r2.err, "a refused --index-url is shown without its password", r2)
found = []
for dp, dns, fns in os.walk(n.dir):
    for fn in fns:
        fp = os.path.join(dp, fn)
        if not os.path.islink(fp) and os.path.isfile(fp) and IPW.encode() in open(fp, "rb").read():
            found.append(os.path.relpath(fp, n.dir))
t.eq(found, [], "no file the run wrote holds the index's password (the log at debug level included)")
t.ok(IPW not in r.out + r.err, "nor its JSON or progress lines", [x for x in (r.out + r.err).splitlines() if IPW in x][:5])
t.eq(os.listdir(TMP), [], "the netrc pip read is gone with its folder")
up2.stop()

# A wheel on the site mirror whose bytes differ from its index's hash: pip refuses it.
BAD = os.path.join(work, "bad")
shutil.copytree(SITE, BAD)
victim = os.path.join(BAD, "pypi", "files", os.path.basename(tf))
os.unlink(victim)
shutil.copy(mkwheels.wheel(t.tmpdir("other"), "tensorflow", "2.20.0", requires=["nvidia-cublas-cu12>=12.5"],
                           arch=["sm_90"]), victim)
t.ok(sha256(victim) != sha256(tf), "the tampered wheel differs")
n = Node("node-bad", "file://" + BAD)
r = n.install()
t.ok(r.rc == 1 and "hash" in (r.err + r.out).lower() and not os.path.exists(os.path.join(
    os.path.dirname(n.venv_python()), "..", "lib", "python" + MINOR, "site-packages", "tensorflow")),
    "a wheel whose hash differs is refused by pip: exit 1, not installed", r)
t.done()
