#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The framework's Python environment under --root DIR (issue 46's rule: nothing cudaup writes reaches the host;
files written for the image name paths as the image sees them):

- the venv defaults inside the machine where cudaup run there would put it (as root with no --prefix,
  DIR/opt/cudaup/envs/NAME, which the image sees as its own /opt/cudaup/envs/NAME), never this
  host's /opt/cudaup/envs or XDG_DATA_HOME; an --env-dir outside DIR, or conda/micromamba (this host's own), are
  refused with exit 2 before anything is touched;
- the venv is made and filled here (a real venv of this host's python3.11, stand-in wheels from a local
  wheelhouse), then relocated: pyvenv.cfg, bin/'s links and scripts, the activation and pip.conf name the image's
  paths, and the venv runs when DIR is entered with chroot (in a mount namespace that lends it this host's /usr);
- a second install puts the host's view back for pip and changes nothing; verify --root skips the framework checks
  of the image's environment, saying why; uninstall removes it.

This host's /opt is a scratch folder mounted over it in a mount namespace of the test's own, so that what the
old default would write there is seen and the real /opt is never touched."""
import json
import os
import shutil
import subprocess
import sys

from cutest import BIN, SRCDIR, Tap, base_env, run

sys.path.insert(0, os.path.join(SRCDIR, "tests", "fixtures"))
import machines  # noqa: E402
import mkmirror  # noqa: E402
import mkpython  # noqa: E402
import mkwheels  # noqa: E402

t = Tap()
PY = "/usr/bin/python3.11"
if os.geteuid() != 0:
    t.skip("the environment under --root", "needs root (the defaults under --root are root's, and chroot)")
    t.done()
if not os.access(PY, os.X_OK) or not shutil.which("unshare") or subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "true"], capture_output=True).returncode != 0:
    t.skip("the environment under --root", "needs /usr/bin/python3.11 and unshare --mount")
    t.done()

MIRROR = os.path.join(t.tmpdir("mirror"), "m")
mkmirror.build(MIRROR)
PB = mkpython.build(t.tmpdir("pbs"))          # a relocatable CPython made from the one running this test
CATALOG = os.path.join(t.tmpdir("catalog"), "catalog.json")
mkpython.serve(PB, MIRROR, CATALOG, SRCDIR)
WHEELS = t.tmpdir("wheels")
mkwheels.build(WHEELS, [("tensorflow", "2.21.0"), ("torch", "2.14.0"),
                        ("torchvision", "0.29.2", {"requires": ["torch>=2.14.0"]})])
AIRGAP = {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": WHEELS, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
ENV_NAME = "cudaup-tensorflow"
SEEN = "/opt/cudaup/envs/" + ENV_NAME


class Tree:
    def __init__(self, tag):
        self.dir = t.tmpdir(tag)
        self.root = os.path.join(self.dir, "root")
        machines.build("deb12-rtx4090", self.root)
        self.cache = os.path.join(self.dir, "cache")
        self.opt = os.path.join(self.dir, "host-opt")        # mounted over this host's /opt
        self.data = os.path.join(self.dir, "host-data")      # XDG_DATA_HOME: this host's
        os.makedirs(self.opt)
        self.venv = self.path("opt/cudaup/envs", ENV_NAME)

    def path(self, *rel):
        return os.path.join(self.root, *rel)

    def env(self):
        e = {"FAKE_NVIDIA_CONFIG": self.path("fake-nvidia.conf"), "HOME": os.path.join(self.dir, "home"),
             "CUDAUP_STATE_DIR": "", "XDG_DATA_HOME": self.data, "CUDAUP_DRIVER": "keep", "CUDAUP_CATALOG": CATALOG,
             # TensorFlow over NVIDIA's archives, as the image's index holds it (its [and-cuda] wheels: test_toolkit)
             "CUDAUP_TOOLKIT": "system"}
        e.update(AIRGAP)
        return e

    def args(self, *extra, python="3.11"):
        return ["--root", self.root, "--mirror", "file://" + MIRROR, "--cache-dir", self.cache, "--framework",
                "tensorflow", "--python", python] + list(extra)

    def cudaup(self, *args, timeout=600, xdg=True):
        """cudaup with a scratch folder over this host's /opt (a mount namespace of its own)."""
        cmd = ["unshare", "--mount", "--propagation", "private", "sh", "-c", 'mount --bind "$0" /opt && exec "$@"',
               self.opt, BIN] + list(args)
        e = base_env(self.env())
        if not xdg:
            e.pop("XDG_DATA_HOME", None)
        pr = subprocess.run(cmd, env=e, capture_output=True, text=True, timeout=timeout)
        return pr

    def host_clean(self, what):
        t.eq(sorted(os.listdir(self.opt)), [], "%s: nothing in this host's /opt (a scratch folder mounted over it)" % what)
        t.ok(not os.path.exists(self.data), "%s: nothing in this host's XDG_DATA_HOME" % what)


def js(pr):
    try:
        return json.loads(pr.stdout)
    except ValueError:
        return {}


def steps(d, installer="pyenv"):
    return {s.get("action"): s for s in d.get("steps", []) if s.get("installer") == installer}


# ---- the plan: the venv inside the machine, and the relocation named ----
tr = Tree("plan")
pr = tr.cudaup("plan", "--json", *tr.args())
d = js(pr)
env = d.get("environment") or {}
t.eq(env.get("path"), tr.venv, "plan --root DIR as root: the venv is DIR/opt/cudaup/envs/NAME (not this host's /opt, not XDG_DATA_HOME)",
     pr.stderr[-2000:])
st = steps(d)
t.ok("relocate" in st and SEEN in st["relocate"].get("detail", "") and tr.root in st["relocate"].get("detail", ""),
     "the plan has the relocation step, naming the venv as the machine sees it", st)
pr = tr.cudaup("plan", "--json", *tr.args(), xdg=False)
t.eq((js(pr).get("environment") or {}).get("path"), tr.venv,
     "plan --root DIR as root without XDG_DATA_HOME: the venv is in DIR (not this host's /opt/cudaup/envs)", pr.stderr[-2000:])
pr = tr.cudaup("plan", *tr.args())
t.ok(pr.returncode == 0 and tr.venv in pr.stdout and "the venv /opt/cudaup" not in pr.stdout, "plan as text names the venv in DIR",
     pr.stdout[-3000:])
tr.host_clean("plan")

# ---- refusals, before anything is touched ----
outside = os.path.join(tr.dir, "host-envs")
pr = tr.cudaup("install", "--yes", *tr.args("--env-dir", outside))
t.ok(pr.returncode == 2 and "--env-dir" in pr.stderr and outside in pr.stderr and not os.path.exists(outside)
     and not os.path.exists(tr.path("var/lib/cudaup")) and not os.path.exists(tr.path("usr/local/cuda")),
     "--env-dir outside DIR: exit 2 naming it, nothing written", (pr.returncode, pr.stderr))
for tool in ("conda", "micromamba"):
    pr = tr.cudaup("install", "--yes", *tr.args("--env-tool", tool))
    t.ok(pr.returncode == 2 and "--env-tool venv" in pr.stderr and not os.path.exists(tr.path("var/lib/cudaup")),
         "--env-tool %s under --root: exit 2 naming --env-tool venv, nothing written" % tool, (pr.returncode, pr.stderr))
# A prefix outside DIR (a host install reading DIR's facts) with the venv inside DIR: its CUDA would be this host's.
pr = tr.cudaup("plan", *tr.args("--prefix", os.path.join(tr.dir, "hp"), "--state-dir", os.path.join(tr.dir, "hs"),
                                "--env-scope", "none", "--env-dir", tr.path("opt/envs")))
t.ok(pr.returncode == 2 and "--env-dir" in pr.stderr and "--prefix" in pr.stderr, "--env-dir inside DIR with --prefix outside: exit 2",
     (pr.returncode, pr.stderr))
# --env-dir inside DIR: taken.
pr = tr.cudaup("plan", "--json", *tr.args("--env-dir", tr.path("opt/envs")))
t.eq((js(pr).get("environment") or {}).get("path"), tr.path("opt/envs", ENV_NAME), "--env-dir inside DIR: taken as given",
     pr.stderr[-1500:])
# A link on the way to the venv inside DIR (DIR/opt/cudaup leading to a folder of this host's): refused.
host_cudaup = os.path.join(tr.dir, "host-cudaup")
os.makedirs(host_cudaup)
os.makedirs(tr.path("opt"), exist_ok=True)
os.symlink(host_cudaup, tr.path("opt/cudaup"))
pr = tr.cudaup("install", "--yes", *tr.args())
t.ok(pr.returncode == 2 and tr.path("opt/cudaup") in pr.stderr and os.listdir(host_cudaup) == []
     and not os.path.exists(tr.path("var/lib/cudaup")), "a link on the way to the venv inside DIR: exit 2 naming it, nothing written",
     (pr.returncode, pr.stderr))
os.unlink(tr.path("opt/cudaup"))
tr.host_clean("refusals")


# ---- the install: made here, relocated for the image ----
def under_root(p, root):
    return root + "/" in p


tr = Tree("install")
pr = tr.cudaup("install", "--yes", "--json", *tr.args())
d = js(pr)
t.ok(pr.returncode in (0, 4) and os.path.exists(os.path.join(tr.venv, "pyvenv.cfg")),
     "install --root DIR --framework tensorflow: the venv is in DIR/opt/cudaup/envs", (pr.returncode, pr.stderr[-3000:]))
tr.host_clean("install")
st = {s["installer"] + "/" + s.get("action", ""): s for s in d.get("steps", [])}
t.ok(st.get("pyenv/relocate", {}).get("changed") is True, "the relocation ran and changed the venv", list(st))
cfg = open(os.path.join(tr.venv, "pyvenv.cfg")).read() if os.path.exists(os.path.join(tr.venv, "pyvenv.cfg")) else ""
t.ok("home = /usr/bin\n" in cfg and tr.root not in cfg, "pyvenv.cfg: home is the image's /usr/bin (its python3.11), no host path", cfg)
bindir = os.path.join(tr.venv, "bin")
links = {n: os.readlink(os.path.join(bindir, n)) for n in os.listdir(bindir) if os.path.islink(os.path.join(bindir, n))} \
    if os.path.isdir(bindir) else {}
t.ok(links.get("python3.11") == "/usr/bin/python3.11" and not any(under_root(v, tr.root) for v in links.values()),
     "bin/python3.11 points at the image's /usr/bin/python3.11; no link in bin/ names DIR", links)
texts = {}
for n in os.listdir(bindir) if os.path.isdir(bindir) else []:
    p = os.path.join(bindir, n)
    if os.path.isfile(p) and not os.path.islink(p):
        b = open(p, "rb").read()
        if b"\0" not in b:
            texts[n] = b.decode("utf-8", "replace")
t.ok(texts and not [n for n, x in texts.items() if tr.root in x], "no script in bin/ names DIR",
     [n for n, x in texts.items() if tr.root in x])
t.ok(texts.get("pip", "").startswith("#!%s/bin/python" % SEEN), "bin/pip's #! line is the image's venv python", texts.get("pip", "")[:200])
act = texts.get("activate", "")
t.ok(SEEN in act and ">>> cudaup >>>" in act, "bin/activate names the venv as the image sees it (VIRTUAL_ENV), with cudaup's block",
     act[-1500:])
for f in ("pip.conf", "cudaup-constraints.txt"):
    p = os.path.join(tr.venv, f)
    if os.path.exists(p):
        t.ok(tr.root not in open(p).read(), "%s names no host path" % f, open(p).read())
conf = os.path.join(tr.venv, "pip.conf")
if os.path.exists(conf):
    t.ok(SEEN + "/cudaup-constraints.txt" in open(conf).read(), "pip.conf's hold names the image's path", open(conf).read())
else:
    t.skip("pip.conf's hold names the image's path", "no hold for this plan")

# The venv runs inside the machine: DIR entered with chroot, this host's /usr lent to it in a mount namespace.
script = ('set -e; for d in usr/bin usr/lib usr/lib64 usr/share; do [ -d "/$d" ] && mkdir -p "$0/$d" && mount --bind "/$d" "$0/$d"; done; '
          'for l in bin lib lib64; do [ -e "$0/$l" ] || ln -s "usr/$l" "$0/$l"; done; '
          'exec "$2" "$0" /bin/sh -c "$1"')
CHROOT = shutil.which("chroot", path="/usr/sbin:/sbin:/usr/bin:/bin")
inner = ('. %s/bin/activate && python -c "import sys, tensorflow; print(tensorflow.__version__, sys.prefix, sys.executable)" '
         '&& pip --version && echo "$VIRTUAL_ENV|${PIP_CONSTRAINT-}"' % SEEN)
pr = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script, tr.root, inner, CHROOT or "chroot"],
                    capture_output=True, text=True, timeout=300, env={"PATH": "/usr/bin:/bin", "HOME": "/root"})
out = pr.stdout.splitlines()
t.ok(pr.returncode == 0 and out and out[0] == "2.21.0 %s %s/bin/python" % (SEEN, SEEN) and len(out) > 2
     and ("from %s/lib/python3.11/site-packages/pip" % SEEN) in out[1] and out[2].startswith(SEEN + "|"),
     "inside DIR (chroot): the venv activates, imports tensorflow from its own site-packages, and its pip runs",
     (pr.returncode, pr.stdout, pr.stderr[-2000:]))
for l in ("bin", "lib", "lib64"):   # what the chroot needed, not cudaup's
    if os.path.islink(tr.path(l)) and os.readlink(tr.path(l)).startswith("usr/"):
        os.unlink(tr.path(l))

# A second install: the host's view is put back for pip, then relocated again; nothing changes.
pr = tr.cudaup("install", "--yes", "--json", *tr.args())
d = js(pr)
st = {s["installer"] + "/" + s.get("action", ""): s for s in d.get("steps", [])}
t.ok(pr.returncode in (0, 4) and st.get("pyenv/relocate", {}).get("changed") is False
     and not st.get("framework/install", {}).get("changed") and not st.get("pyenv/create", {}).get("changed"),
     "a second install: pip runs against the venv again, and nothing changed", (pr.returncode, st, pr.stderr[-2000:]))
cfg2 = open(os.path.join(tr.venv, "pyvenv.cfg")).read() if os.path.exists(os.path.join(tr.venv, "pyvenv.cfg")) else ""
t.eq(cfg2, cfg, "after the second install the venv is as the image sees it again")
tr.host_clean("second install")

# verify --root: the image's environment is not run here; said so.
pr = tr.cudaup("verify", "--json", "--root", tr.root)
checks = {c["name"]: c for c in js(pr).get("checks", [])}
fw = checks.get("framework", {})
t.ok(fw.get("status") == "skip" and tr.root in fw.get("detail", "") and SEEN in fw.get("detail", "")
     and "cudaup verify" in fw.get("detail", ""),
     "verify --root DIR: the framework check of the image's venv is skipped, saying where it runs", (fw, pr.stderr[-1500:]))

rec = json.load(open(tr.path("var/lib/cudaup/pyenv.json")))
t.ok(rec.get("path") == tr.venv and rec.get("seen") == SEEN, "pyenv.json: the venv's host path, and its path as the image sees it", rec)
# As the image sees it: its /usr/local where this host's was, its state folder, and DIR itself gone (a tmpfs over it).
scratch = t.tmpdir("image-view")
if os.path.exists(tr.path("fake-nvidia.conf")):
    shutil.copy(tr.path("fake-nvidia.conf"), os.path.join(scratch, "fake-nvidia.conf"))
os.makedirs(os.path.join(scratch, "state"))
VIEW = ('set -e; r=$0; s=$1; shift; mount --bind "$r/usr/local" /usr/local; if [ -d "$r/opt" ]; then mount --bind "$r/opt" /opt; fi; '
        'mount --bind "$r/var/lib/cudaup" "$s/state"; '
        'mount -t tmpfs none "$r"; exec "$@"')


def as_image(*args):
    """cudaup as the machine under DIR runs it (--prefix /usr/local, its state folder), DIR's own path not there."""
    e = base_env(dict(tr.env(), FAKE_NVIDIA_CONFIG=os.path.join(scratch, "fake-nvidia.conf")))
    return subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", VIEW, tr.root, scratch, BIN]
                          + list(args) + ["--prefix", "/usr/local", "--state-dir", os.path.join(scratch, "state")],
                          env=e, capture_output=True, text=True, timeout=300)


# verify finds the venv at its image path and runs the framework's checks in it.
pr = as_image("verify", "--json")
checks = {c["name"]: c for c in js(pr).get("checks", [])}
fw = checks.get("framework", {})
t.ok("TensorFlow 2.21.0 imports" in fw.get("detail", "") and "machine under" not in fw.get("detail", ""),
     "verify as the image sees it: the framework check runs inside the venv at %s (no driver here: no GPU work)" % SEEN,
     (fw, pr.stderr[-1500:]))


def venv_files():
    return {f: open(os.path.join(tr.venv, f)).read() for f in ("pyvenv.cfg", "pip.conf", "bin/activate", "bin/pip")
            if os.path.exists(os.path.join(tr.venv, f))}


# repair --root: the image's venv is not run here either; it says so and changes nothing in it.
before = venv_files()
pr = tr.cudaup("repair", "--yes", "--root", tr.root, "--cache-dir", tr.cache)
t.ok(pr.returncode == 0 and venv_files() == before and "repaired on that machine" in pr.stderr,
     "repair --root DIR: the image's venv is left as the image sees it, and it says where its hold is repaired",
     (pr.returncode, pr.stdout[-2000:], pr.stderr[-2000:]))
# repair on the image: a lost pip.conf comes back naming the image's paths.
if "pip.conf" in before:
    os.unlink(os.path.join(tr.venv, "pip.conf"))
    pr = as_image("repair", "--yes", "--cache-dir", tr.cache)
    t.ok(pr.returncode == 0 and venv_files() == before,
         "repair as the image sees it: pip.conf put back as the image names it (%s)" % SEEN,
         (pr.returncode, pr.stdout[-1500:], pr.stderr[-1500:], venv_files().get("pip.conf")))
else:
    t.skip("repair as the image sees it", "no hold for this plan")
# uninstall on the image removes the venv.
cudas = sorted(x for x in os.listdir(tr.path("usr/local")) if x.startswith("cuda-"))
pr = as_image("uninstall", cudas[-1][5:] if cudas else "12", "--yes", "--cache-dir", tr.cache)
t.ok(pr.returncode == 0 and not os.path.exists(tr.venv), "uninstall as the image sees it: the venv is removed",
     (pr.returncode, pr.stdout[-1500:], pr.stderr[-1500:]))

# uninstall --root from this host removes it too.
tr = Tree("uninstall")
pr = tr.cudaup("install", "--yes", *tr.args())
t.ok(pr.returncode in (0, 4) and os.path.isdir(tr.venv), "install --root DIR (again, in a new tree)", pr.stderr[-1500:])
t.ok(("is in the venv %s, for the machine under %s; activate it there with: . %s/bin/activate" % (tr.venv, tr.root, SEEN))
     in pr.stdout, "install's closing text: how to activate the venv on that machine, as it names it", pr.stdout[-2000:])
cudas = sorted(x for x in os.listdir(tr.path("usr/local")) if x.startswith("cuda-"))
pr = tr.cudaup("uninstall", cudas[-1][5:] if cudas else "12", "--yes", "--root", tr.root, "--cache-dir", tr.cache)
t.ok(pr.returncode == 0 and not os.path.exists(tr.venv), "uninstall --root DIR: the image's venv is removed",
     (pr.returncode, pr.stdout[-1500:], pr.stderr[-1500:]))
tr.host_clean("uninstall")

# ---- --framework given twice: each environment is the machine's, and relocated ----
tr = Tree("two")
pr = tr.cudaup("install", "--yes", "--json", *tr.args("--framework", "pytorch"))
envs = [tr.venv, tr.path("opt/cudaup/envs/cudaup-pytorch")]
cfgs = [open(os.path.join(v, "pyvenv.cfg")).read() if os.path.exists(os.path.join(v, "pyvenv.cfg")) else "" for v in envs]
t.ok(pr.returncode in (0, 4) and all(c and tr.root not in c for c in cfgs)
     and all(tr.root not in open(os.path.join(v, "bin", "pip")).read() for v in envs if os.path.exists(os.path.join(v, "bin", "pip"))),
     "--framework tensorflow --framework pytorch under --root: both venvs in DIR, both named as the image sees them",
     (pr.returncode, cfgs, pr.stderr[-1500:]))
rec = json.load(open(tr.path("var/lib/cudaup/pyenv.json"))) if os.path.exists(tr.path("var/lib/cudaup/pyenv.json")) else {}
t.ok([e.get("seen") for e in rec.get("envs", [])] == ["/opt/cudaup/envs/cudaup-pytorch"],
     "pyenv.json: the second environment's entry has its image path too", rec)
tr.host_clean("two environments")

# ---- the Python cudaup brings, into DIR's prefix: the venv names it as the image sees it ----
tr = Tree("brought")
MINOR = PB["minor"]
pydir = "/usr/local/cudaup/python/" + MINOR
pr = tr.cudaup("install", "--yes", "--json", *tr.args("--python-source", "cudaup", python=MINOR))
cfg = open(os.path.join(tr.venv, "pyvenv.cfg")).read() if os.path.exists(os.path.join(tr.venv, "pyvenv.cfg")) else ""
t.ok(pr.returncode in (0, 4) and os.path.isdir(tr.path(pydir.lstrip("/"))) and ("home = %s/bin\n" % pydir) in cfg
     and tr.root not in cfg, "--python-source cudaup under --root: Python in DIR's prefix, pyvenv.cfg's home as the image sees it",
     (pr.returncode, cfg, pr.stderr[-2000:]))
bindir = os.path.join(tr.venv, "bin")
links = {n: os.readlink(os.path.join(bindir, n)) for n in os.listdir(bindir) if os.path.islink(os.path.join(bindir, n))} \
    if os.path.isdir(bindir) else {}
t.ok(any(v.startswith(pydir + "/bin/") for v in links.values()) and not any(under_root(v, tr.root) for v in links.values()),
     "bin/'s link to the brought Python names it as the image sees it", links)
tr.host_clean("brought Python")
pr = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script, tr.root,
                     '%s/bin/python -c "import sys, tensorflow; print(tensorflow.__version__, sys.base_prefix)"' % SEEN,
                     CHROOT or "chroot"], capture_output=True, text=True, timeout=300, env={"PATH": "/usr/bin:/bin", "HOME": "/root"})
t.eq(pr.stdout.strip(), "2.21.0 " + pydir, "inside DIR (chroot): the venv runs on the brought Python at its image path", pr.stderr[-1500:])
for l in ("bin", "lib", "lib64"):
    if os.path.islink(tr.path(l)) and os.readlink(tr.path(l)).startswith("usr/"):
        os.unlink(tr.path(l))
pr = tr.cudaup("install", "--yes", "--json", *tr.args("--python-source", "cudaup", python=MINOR))
st = {s["installer"] + "/" + s.get("action", ""): s for s in js(pr).get("steps", [])}
t.ok(pr.returncode in (0, 4) and st.get("pyenv/relocate", {}).get("changed") is False,
     "a second install over it: its Python runs here again for pip (the host's view put back), nothing changed",
     (pr.returncode, st, pr.stderr[-1500:]))
pr = tr.cudaup("verify", "--json", "--root", tr.root)
checks = {c["name"]: c for c in js(pr).get("checks", [])}
t.ok(checks.get("python", {}).get("status") == "skip" and checks.get("framework", {}).get("status") == "skip",
     "verify --root: the brought Python's and the framework's checks of the image's venv are skipped, not failed", checks)
tr.host_clean("brought Python, again")

t.done()
