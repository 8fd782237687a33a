#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""cudaup brings a Python (issue 13): a machine with no fitting python3 and no conda gets a relocatable CPython
(an archive laid out like python-build-standalone's, made here from the CPython running this test, served from
a fixture mirror with its sha256 in a test catalog), recorded like a toolkit, and the venv is made from it."""
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

from cutest import BIN, SRCDIR, Tap, base_env, run

sys.path.insert(0, os.path.join(SRCDIR, "tests", "fixtures"))
import machines  # noqa: E402
import mkmirror  # noqa: E402
import mkpython  # noqa: E402
import mkwheels  # noqa: E402

t = Tap()
work = t.tmpdir("py")
ROOT = os.path.join(work, "root")
spec = dict(machines.MACHINES["two-gpus"], pythons=[])  # no python3.X on this machine's PATH
machines.build_spec(spec, ROOT)
MIRROR = os.path.join(work, "m")
mkmirror.build(MIRROR)
PB = mkpython.build(os.path.join(work, "pbs"))
MINOR = PB["minor"]
CATALOG = os.path.join(work, "catalog.json")
mkpython.serve(PB, MIRROR, CATALOG, SRCDIR)
WHEELS = t.tmpdir("wheels")
mkwheels.build(WHEELS, [("tensorflow", "2.21.0")])
AIRGAP = {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": WHEELS, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}


class Box:
    def __init__(self, tag, mirror=MIRROR):
        self.dir = t.tmpdir(tag)
        self.mirror = mirror
        self.prefix, self.state, self.cache, self.home = (os.path.join(self.dir, n) for n in ("p", "s", "c", "home"))
        os.makedirs(self.home)
        self.rc = os.path.join(self.home, ".bashrc")
        open(self.rc, "w").write("# mine\n")

    def env(self):
        # --toolkit system: TensorFlow over NVIDIA's archives, as these Python tests' mirror and index hold it (the
        # default for TensorFlow 2.15+ is its [and-cuda] wheels: test_toolkit)
        return dict(FAKE_NVIDIA_CONFIG=os.path.join(ROOT, "fake-nvidia.conf"), CUDAUP_CATALOG=CATALOG,
                    PATH="/usr/bin:/bin", HOME=self.home, XDG_DATA_HOME=os.path.join(self.home, "data"),
                    CUDAUP_TOOLKIT="system", **AIRGAP)

    def args(self, *extra):
        return ["--json", "--root", ROOT, "--mirror", "file://" + self.mirror, "--prefix", self.prefix,
                "--state-dir", self.state, "--cache-dir", self.cache, "--python", MINOR, "--shell-rc", self.rc] + list(extra)

    def plan(self, *extra):
        return run(["plan"] + self.args(*extra), env=self.env())

    def install(self, *extra, env=None):
        return run(["install", "--yes"] + self.args(*extra), env=dict(self.env(), **(env or {})), timeout=600)

    def cmd(self, *argv):
        return run(list(argv) + ["--json", "--root", ROOT, "--prefix", self.prefix, "--state-dir", self.state,
                                 "--cache-dir", self.cache], env=self.env(), timeout=600)

    def pydir(self):
        return os.path.join(self.prefix, "cudaup", "python", MINOR)

    def untouched(self):
        return (not os.path.exists(self.prefix) or not [n for n in os.listdir(self.prefix) if n != ".cudaup.lock"
                                                       and n != "cudaup"] and not os.path.exists(self.pydir())) \
            and open(self.rc).read() == "# mine\n"


def steps(r):
    return {s["installer"]: s for s in (r.json() or {}).get("steps", [])}


# ---- The plan says which Python and where it comes from ----
b = Box("plan")
r = b.plan()
d = r.json() or {}
src = d.get("python_source") or {}
t.ok(r.rc == 0 and src.get("kind") == "cudaup" and src.get("version") == PB["version"], "plan: cudaup brings Python", r)
want_url = "file://%s/python/%s" % (MIRROR, PB["file"].replace("+", "%2B"))
t.eq(src.get("url"), want_url, "plan: the Python comes from the mirror's python/ folder")
t.eq(src.get("sha256"), PB["sha256"], "plan: the archive's sha256 is the catalog's")
t.eq(src.get("path"), b.pydir(), "plan: it goes to PREFIX/cudaup/python/X.Y")
dl = [x for x in d.get("downloads", []) if x["component"] == "python"]
t.ok(len(dl) == 1 and dl[0]["sha256"] == PB["sha256"] and dl[0]["size"] is None and dl[0].get("size_seen") == os.path.getsize(PB["path"]),
     "plan: the Python archive is among the downloads, its size unpublished, the mirror's reported (size_seen)", dl)
t.eq([s["installer"] for s in d.get("steps", [])][:1], ["python"], "plan: the Python comes first")
t.ok(any("cudaup brings python-build-standalone" in x for x in d.get("reasons", [])), "plan: a reason says why",
     d.get("reasons"))
r = run(["plan", "--root", ROOT, "--mirror", "file://" + MIRROR, "--python", MINOR, "--prefix", b.prefix,
         "--cache-dir", b.cache], env=b.env())
t.ok(r.rc == 0 and re.search(r"^  python +%s +\S+ [kMG]?B$" % re.escape(PB["version"]), r.out, re.M) is not None and
     "size unpublished" not in r.out, "text plan lists the Python download with the size the mirror reports", r.out[-800:])

# ---- Refusals that name a way that works here, before anything is touched ----
b = Box("refuse")
r = b.install("--python-source", "system")
d = r.json() or {}
t.ok(r.rc == 3 and "no" in d.get("error", "") and "--python-source cudaup" in d.get("advice", ""),
     "--python-source system with no fitting python: exit 3, the advice names --python-source cudaup", r)
t.ok(b.untouched(), "the refusal changed nothing")
r = b.install("--env-tool", "conda")
d = r.json() or {}
t.ok(r.rc == 3 and "conda is not on PATH" in d.get("error", "") and "--env-tool venv: cudaup then brings Python" in d.get("advice", ""),
     "--env-tool conda without conda: the advice is a venv, with the Python cudaup brings", r)
t.ok(b.untouched(), "that refusal changed nothing either")
r = b.install("--python-source", "cudaup", "--env-tool", "conda")
t.ok(r.rc == 2 and "--python-source cudaup makes a venv" in r.err, "--python-source cudaup with conda: bad usage", r)
r = b.install("--python-source", "elsewhere")
t.ok(r.rc == 2 and "--python-source" in r.err, "an unknown --python-source: exit 2", r)

# ---- A python3.X that cannot make a venv (Debian without python3.X-venv) is found before anything changes ----
ROOT2 = os.path.join(work, "root2")
machines.build_spec(dict(machines.MACHINES["two-gpus"], pythons=[MINOR]), ROOT2)
fakebin = t.tmpdir("fakebin")
with open(os.path.join(fakebin, "python" + MINOR), "w") as f:
    f.write("#!/bin/sh\necho \"ModuleNotFoundError: No module named 'ensurepip'\" >&2\nexit 1\n")
os.chmod(os.path.join(fakebin, "python" + MINOR), 0o755)
b = Box("noensurepip")
env2 = dict(b.env(), PATH=fakebin + ":/usr/bin:/bin")
r = run(["plan"] + [ROOT2 if a == ROOT else a for a in b.args()], env=env2)
d = r.json() or {}
t.ok(r.rc == 0 and (d.get("python_source") or {}).get("kind") == "cudaup" and
     any("cannot make a venv" in x and "ensurepip" in x for x in d.get("reasons", [])),
     "python%s without ensurepip: cudaup brings a Python and says why" % MINOR, r)
r = run(["install", "--yes"] + [ROOT2 if a == ROOT else a for a in b.args("--python-source", "system")], env=env2)
d = r.json() or {}
t.ok(r.rc == 3 and "cannot make a venv" in d.get("error", "") and "python%s-venv" % MINOR in d.get("advice", "")
     and "--python-source cudaup" in d.get("advice", ""),
     "with --python-source system: exit 3, the advice names python%s-venv and --python-source cudaup" % MINOR, r)
t.ok(b.untouched(), "and nothing changed")

# pyenv's shim for a python3.X it has not selected prints a multi-line message that ends on a note; the reason
# quotes the line that says what failed (issue 35, item 3), not "Python versions to be found at the same time."
shimbin = t.tmpdir("shimbin")
with open(os.path.join(shimbin, "python" + MINOR), "w") as f:
    f.write("#!/bin/sh\ncat >&2 <<'EOF'\npyenv: python%s: command not found\n\nThe `python%s' command exists in these "
            "Python versions:\n  %s.17\n\nNote: See 'pyenv help global' for tips on allowing both\n"
            "      Python versions to be found at the same time.\nEOF\nexit 127\n" % (MINOR, MINOR, MINOR))
os.chmod(os.path.join(shimbin, "python" + MINOR), 0o755)
r = run(["plan"] + [ROOT2 if a == ROOT else a for a in b.args()], env=dict(env2, PATH=shimbin + ":/usr/bin:/bin"))
why = [x for x in (r.json() or {}).get("reasons", []) if "cannot make a venv" in x]
t.ok(len(why) == 1 and "(pyenv: python%s: command not found)" % MINOR in why[0] and "same time" not in why[0],
     "a pyenv shim: the reason quotes 'command not found', not the note's last line", why or r)

# A python3.X that can make a venv is used as it is; --python-source cudaup brings one all the same.
goodbin = t.tmpdir("goodbin")
with open(os.path.join(goodbin, "python" + MINOR), "w") as f:
    f.write("#!/bin/sh\nexit 0\n")
os.chmod(os.path.join(goodbin, "python" + MINOR), 0o755)
env3 = dict(b.env(), PATH=goodbin + ":/usr/bin:/bin")
r = run(["plan"] + [ROOT2 if a == ROOT else a for a in b.args()], env=env3)
t.ok(r.rc == 0 and (r.json().get("python_source") or {}).get("kind") == "system",
     "python%s that can make a venv: the plan uses it" % MINOR, r)
r = run(["plan"] + [ROOT2 if a == ROOT else a for a in b.args("--python-source", "cudaup")], env=env3)
t.ok(r.rc == 0 and (r.json().get("python_source") or {}).get("kind") == "cudaup",
     "--python-source cudaup: cudaup brings one even so", r)

# ---- PREFIX/cudaup as a link planted by someone else: refused, nothing written through it ----
b = Box("planted")
os.makedirs(b.prefix)
elsewhere = t.tmpdir("elsewhere")
os.symlink(elsewhere, os.path.join(b.prefix, "cudaup"))
r = b.install()
t.ok(r.rc != 0 and "link" in r.err and os.listdir(elsewhere) == [] and not glob.glob(os.path.join(b.prefix, "cuda-*")),
     "PREFIX/cudaup is a symbolic link: refused, nothing written where it leads, no CUDA", r)

# ---- A corrupt archive is refused, and nothing is left in place ----
BAD = os.path.join(work, "bad")
shutil.copytree(MIRROR, BAD)
bad_path = os.path.join(BAD, "python", PB["file"])
data = bytearray(open(bad_path, "rb").read())
for i in range(16):
    data[len(data) // 2 + i] ^= 0xFF  # same size, other bytes
open(bad_path, "wb").write(bytes(data))
b = Box("corrupt", mirror=BAD)
r = b.install()
t.ok(r.rc == 1 and "did not match its checksum" in r.err, "a Python archive with 16 changed bytes: exit 1, checksum", r)
t.ok(b.untouched(), "after the refused archive: no Python, no CUDA, the rc file as it was",
     os.listdir(b.prefix) if os.path.exists(b.prefix) else None)
t.eq(glob.glob(os.path.join(b.cache, "archives", PB["sha256"] + "*")), [], "the bad download is not kept in the cache")

# ---- The install: Python, then the venv made from it, then the framework ----
b = Box("ok")
r = b.install()
st = steps(r)
t.ok(r.rc == 0 and st.get("python", {}).get("changed"), "install: exit 0, the Python installed", r)
rec = json.load(open(os.path.join(b.pydir(), ".cudaup", "record.json")))
t.ok(rec.get("python", {}).get("version") == PB["version"] and rec["components"][0]["sha256"] == PB["sha256"],
     "the Python has its own record, with the archive's sha256", rec.get("components"))
t.ok(any(f["path"] == "bin/python" + MINOR for f in rec["files"]), "the record lists bin/python%s" % MINOR)
venv = os.path.join(b.home, "data", "cudaup", "envs", "cudaup-tensorflow")
cfg = open(os.path.join(venv, "pyvenv.cfg")).read()
t.ok("home = %s/bin" % b.pydir() in cfg, "the venv is made from the Python cudaup brought", cfg)
out = subprocess.run([os.path.join(venv, "bin", "python"), "-c", "import tensorflow; print(tensorflow.__version__)"],
                     capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"})
t.eq(out.stdout.strip(), "2.21.0", "TensorFlow imports inside that venv", out.stderr)
r = b.install()
t.ok(r.rc == 0 and steps(r).get("python", {}).get("changed") is False, "a second install leaves the Python as it is", r)

# ---- verify and repair cover it ----
r = b.cmd("verify")
c = {x["name"]: x for x in (r.json() or {}).get("checks", [])}
t.ok(c.get("python", {}).get("status") == "pass" and PB["version"] in c["python"]["detail"], "verify: the Python passes",
     c.get("python"))
os.unlink(os.path.join(b.pydir(), "lib", "python" + MINOR, "os.py"))
r = b.cmd("verify")
c = {x["name"]: x for x in (r.json() or {}).get("checks", [])}
t.ok(r.rc == 4 and c.get("python", {}).get("status") == "fail" and "os.py" in c["python"]["detail"],
     "verify: a deleted os.py fails the python check", c.get("python"))
r = b.cmd("repair", "--yes")
t.ok(r.rc == 0 and os.path.exists(os.path.join(b.pydir(), "lib", "python" + MINOR, "os.py")),
     "repair puts os.py back (from the cache)", r)
r = b.cmd("verify")
c = {x["name"]: x for x in (r.json() or {}).get("checks", [])}
t.eq(c.get("python", {}).get("status"), "pass", "verify after the repair: the Python passes")
r = b.cmd("verify", "--deep")
c = {x["name"]: x for x in (r.json() or {}).get("checks", [])}
t.ok(c.get("python", {}).get("status") == "pass" and "re-hashed" in c["python"]["detail"], "verify --deep re-hashes it", c.get("python"))
r = run(["verify", "--json", "--root", ROOT, "--prefix", b.prefix, "--state-dir", b.state, "--cache-dir", b.cache],
        env=dict(b.env(), PYTHONHOME="/nonexistent-python-home"))
c = {x["name"]: x for x in (r.json() or {}).get("checks", [])}
t.ok(r.rc == 4 and c.get("python", {}).get("status") == "fail" and "does not run" in c["python"]["detail"],
     "a Python that cannot start (PYTHONHOME pointing at nothing): fail, with its own words", c.get("python"))
prec = os.path.join(b.pydir(), ".cudaup", "record.json")
good_rec = open(prec, "rb").read()
open(prec, "w").write("[]")
r = b.cmd("verify")
c = {x["name"]: x for x in (r.json() or {}).get("checks", [])}
open(prec, "wb").write(good_rec)
t.ok(r.rc == 4 and c.get("python", {}).get("status") == "fail" and b.pydir() in c["python"]["detail"],
     "its record damaged: fail, naming the folder and the way back", c.get("python"))
t.ok("cudaup install" in c.get("python", {}).get("detail", "") and "repair" not in c.get("python", {}).get("fix", ""),
     "its record damaged: the way back is installing again, and no fix beside it says repair", c.get("python"))

# ---- uninstall keeps it while a venv uses it ----
r = b.cmd("uninstall", "python-" + MINOR, "--yes")
t.ok(r.rc == 3 and venv in (r.json() or {}).get("error", "") and os.path.isdir(b.pydir()),
     "uninstall python-X.Y while the venv uses it: refused, naming the venv; the Python stays", r)
shutil.rmtree(venv)
r = b.cmd("uninstall", "python-" + MINOR, "--yes")
t.ok(r.rc == 0 and (r.json() or {}).get("changed") and not os.path.exists(b.pydir()),
     "with the venv gone, uninstall removes the Python", r)
r = b.cmd("uninstall", "python-" + MINOR, "--yes")
t.ok(r.rc == 0 and (r.json() or {}).get("changed") is False, "a second uninstall: exit 0, nothing changed", r)
r = b.cmd("uninstall", "python-3", "--yes")
t.ok(r.rc == 2, "uninstall python-3 (no minor): bad usage", r)
# A folder of that name cudaup did not make, and one that is a link: left alone, exit 3.
os.makedirs(os.path.join(b.pydir(), "bin"))
open(os.path.join(b.pydir(), "bin", "mine"), "w").write("mine\n")
r = b.cmd("uninstall", "python-" + MINOR, "--yes")
t.ok(r.rc == 3 and "not installed by cudaup" in r.err and os.path.exists(os.path.join(b.pydir(), "bin", "mine")),
     "uninstall of a Python folder cudaup did not make: exit 3, untouched", r)
shutil.rmtree(b.pydir())
elsewhere = t.tmpdir("elsewhere")
os.symlink(elsewhere, b.pydir())
r = b.cmd("uninstall", "python-" + MINOR, "--yes")
t.ok(r.rc == 1 and "symbolic link" in r.err and os.path.isdir(elsewhere) and os.path.islink(b.pydir()),
     "uninstall of a Python folder that is a link: refused, nothing followed", r)
os.unlink(b.pydir())

# ---- each mkdir, rename, write and fsync of the Python's install failing in turn: exit 1 (or 0 after a
# retry that made it whole), no half Python, nothing left beside it; then a clean run installs it ----
bad, made = [], 0
for op, errname in (("mkdir", "ENOSPC"), ("rename", "EXDEV"), ("write", "ENOSPC"), ("fsync", "EIO")):
    for n in (0, 1, 2, 4, 8, 16):
        b = Box("pyfault-%s-%d" % (op, n))
        part = os.path.join(b.prefix, "cudaup")
        r = b.install(env={"LD_PRELOAD": os.environ["FAULTFS"], "CUDAUP_FAULTS": "%s:%s:%s:%d:once" % (op, errname, part, n),
                           "ASAN_OPTIONS": "verify_asan_link_order=0:" + os.environ.get("ASAN_OPTIONS", "")})
        if "faultfs: %s" % op not in r.err:
            break
        made += 1
        pyparent = os.path.dirname(b.pydir())
        left = [x for x in os.listdir(pyparent) if x != MINOR] if os.path.isdir(pyparent) else []
        whole = os.path.exists(os.path.join(b.pydir(), ".cudaup", "record.json"))
        if (r.rc not in (0, 1)) or (r.rc == 0 and (op == "fsync" or not whole)) or left or \
                (os.path.exists(b.pydir()) and not whole):
            bad.append((op, n, r.rc, left, whole, r.err[-300:]))
t.ok(made >= 8 and not bad, "the Python's install with each of its calls failing in turn (%d faults): exit 1, no half "
     "Python, nothing left beside it" % made, bad)
b = Box("pyfault-after")
r = b.install()
t.ok(r.rc == 0 and os.path.exists(os.path.join(b.pydir(), ".cudaup", "record.json")), "a clean run installs it", r)

# ---- kill -9 while the Python unpacks: the old state stays; the next install completes it ----
b = Box("kill")
env = dict(b.env(), LD_PRELOAD=os.environ["FAULTFS"], CUDAUP_FAULTS="delay:20:.cudaup-staging-py",
           ASAN_OPTIONS="verify_asan_link_order=0:" + os.environ.get("ASAN_OPTIONS", ""))
p = subprocess.Popen([BIN, "install", "--yes"] + b.args(), env=base_env(env),
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
parent = os.path.join(b.prefix, "cudaup", "python")
deadline = time.time() + 60
seen = False
while time.time() < deadline and p.poll() is None:
    staging = glob.glob(os.path.join(parent, ".cudaup-staging-py-*", "c", "python", "lib", "*"))
    if staging:
        seen = True
        break
    time.sleep(0.05)
p.send_signal(signal.SIGKILL)
p.wait()
t.ok(seen, "the unpack was caught midway")
t.ok(not os.path.exists(b.pydir()) and not glob.glob(os.path.join(b.prefix, "cuda-*")),
     "after kill -9: no half Python in place, and CUDA not started")
r = b.install()
t.ok(r.rc == 0 and os.path.exists(os.path.join(b.pydir(), "bin", "python" + MINOR)) and
     not glob.glob(os.path.join(parent, ".cudaup-staging-*")), "the next install completes and clears the staging", r)
t.done()
