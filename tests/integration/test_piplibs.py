#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The libraries pip brings with a framework fit the GPU: a stand-in JAX whose metadata asks for
nvidia-cudnn-cu12>=9.8 (as jax-cuda12-plugin 0.6.0 to 0.10.0 do: data/compat/framework_pip_libraries.csv),
and a wheelhouse offering cuDNN 9.10.2 and 9.17.  NVIDIA's support matrix (shared/data/compat/
cudnn_support_matrix.csv) lists compute capability 6.1 for 9.10.2 and not for 9.17.0, and 8.9 for both:
the plan pins 9.10.2 on Pascal, takes 9.17 on Ada, and verify fails when Pascal's venv holds 9.17.
Every pip call here is held to the wheelhouse (PIP_NO_INDEX)."""
import glob
import json
import os
import shutil
import subprocess
import sys

import cutest
from cutest import SRCDIR, Tap


def run(args, *a, **kw):
    """cutest.run with --toolkit system on plan and install: this file is about the cuDNN wheel pip brings and the hold on it,
    installed from a wheelhouse of its own; the toolkit's default (the compiler
    wheels for frameworks that bring their own CUDA) is test_toolkit's."""
    if args and args[0] in ("plan", "install"):
        args = [args[0], "--toolkit", "system"] + list(args[1:])
    return cutest.run(args, *a, **kw)


sys.path.insert(0, os.path.join(SRCDIR, "tests", "fixtures"))
import machines  # noqa: E402
import mkmirror  # noqa: E402
import mkwheels  # noqa: E402

t = Tap()
PY = shutil.which("python3.11", path="/usr/bin:/bin")
if not PY:
    t.skip("pip's libraries", "no python3.11 in /usr/bin to make a venv with")
    t.done()
MIRROR = os.path.join(t.tmpdir("mirror"), "m")
mkmirror.build(MIRROR)
WHEELS = t.tmpdir("wheels")
REQ = ["nvidia-cudnn-cu12>=9.8; extra == 'cuda12'", "nvidia-cudnn-cu13>=9.12; extra == 'cuda13'"]
# JAX 0.10.2: the newest release with wheels for Python 3.11 (jax_python.csv), which the plan names for --python 3.11.
mkwheels.build(WHEELS, [("jax", "0.10.2", {"requires": REQ}),
                        ("nvidia-cudnn-cu12", "9.10.2.21"), ("nvidia-cudnn-cu12", "9.17.1.4")])
AIRGAP = {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": WHEELS, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
GTX1080 = ("1b80", "6.1", "NVIDIA GeForce GTX 1080")
RTX4090 = ("2684", "8.9", "NVIDIA GeForce RTX 4090")


class Box:
    def __init__(self, tag, gpu, driver):
        self.dir = t.tmpdir(tag)
        self.root = os.path.join(self.dir, "root")
        machines.build_spec({"os": "ubuntu", "driver": driver, "cuda": 12080, "libs": True,
                             "gpus": [("0000:01:00.0", gpu[0], "0x030000", "nvidia", gpu[1], 8192, gpu[2])]},
                            self.root)
        self.prefix, self.state, self.cache, self.home = (os.path.join(self.dir, n) for n in ("p", "s", "c", "home"))
        os.makedirs(self.home)

    def env(self):
        return dict(AIRGAP, HOME=self.home, PATH="/usr/bin:/bin", XDG_DATA_HOME=os.path.join(self.home, "data"),
                    FAKE_NVIDIA_CONFIG=os.path.join(self.root, "fake-nvidia.conf"))

    def cmd(self, verb, *args):
        common = ["--root", self.root, "--prefix", self.prefix, "--state-dir", self.state, "--json"]
        if verb in ("plan", "install"):
            common += ["--mirror", "file://" + MIRROR, "--cache-dir", self.cache, "--python", "3.11",
                       "--env-tool", "venv", "--env-name", "jx", "--env-scope", "none", "--framework", "jax"]
        return run([verb] + (["--yes"] if verb == "install" else []) + common + list(args), env=self.env(),
                   timeout=600)

    def venv(self):
        with open(os.path.join(self.state, "pyenv.json")) as fh:
            return json.load(fh)["path"]

    def cudnn_in_venv(self):
        found = glob.glob(os.path.join(self.venv(), "lib", "python3*", "site-packages", "nvidia_cudnn_cu12-*.dist-info"))
        return [os.path.basename(p)[len("nvidia_cudnn_cu12-"):-len(".dist-info")] for p in found]


def framework(r):
    return (r.json() or {}).get("framework") or {}


# ---- Pascal: pip would take 9.17, whose matrix starts at 7.5; the plan holds it to 9.10.2 ------
pas = Box("pascal", GTX1080, "580.95.05")
r = pas.cmd("plan")
f = framework(r)
t.ok(r.rc == 0 and f.get("pip") == ["jax[cuda12]==0.10.2"],
     "GTX 1080: jax[cuda12] (the cuda13 plugin needs 7.5: jax_cuda_plugins.csv), at 0.10.2, the newest JAX with wheels "
     "for Python 3.11 [jax_python.csv 0.7.1-0.10.2]", r)
t.eq(f.get("constraints"), ["nvidia-cudnn-cu12==9.10.2.*"],
     "GTX 1080: pip is held to cuDNN 9.10.2 [cudnn_support_matrix.csv 9.10.2 lists 6.1; 9.17.0 does not]")
t.ok(f.get("constraints_file", "").startswith(pas.state + "/"), "the constraints file is kept in the state folder", f)
reasons = " ".join((r.json() or {}).get("reasons", []))
t.ok("nvidia-cudnn-cu12==9.10.2.*" in reasons and "GeForce GTX 1080" in reasons,
     "the plan's reasons say why pip is held, naming the GPU", reasons[-800:])
t.ok("5.2 and up" in reasons, "and that JAX's own page says more than NVIDIA's matrix vouches for", reasons[-800:])
r = pas.cmd("install")
t.eq(r.rc, 0, "GTX 1080: the install with the constraints", r)
t.eq(pas.cudnn_in_venv(), ["9.10.2.21"], "pip installed cuDNN 9.10.2, not the newest 9.17 the wheelhouse offers")
with open(framework(pas.cmd("plan")).get("constraints_file") or os.devnull) as fh:
    t.ok("nvidia-cudnn-cu12==9.10.2.*" in fh.read(), "the constraints file holds the pin")
r = pas.cmd("verify")
fc = {c["name"]: c for c in (r.json() or {}).get("checks", [])}.get("framework", {})
t.ok(fc.get("status") == "pass", "verify: the framework passes with cuDNN 9.10.2 on the GTX 1080", fc)

# The environment's hold (issue 45) keeps pip from that upgrade; lifted by hand, as install's closing text says (the
# hold file emptied), the venv then holds 9.17: verify names the GPU and the cuDNN.
venv_py = os.path.join(pas.venv(), "bin", "python")
p = subprocess.run([venv_py, "-m", "pip", "install", "-q", "--no-deps", "nvidia-cudnn-cu12==9.17.1.4"],
                   env=dict(os.environ, **AIRGAP), capture_output=True, text=True)
t.ok(p.returncode != 0 and "9.17.1.4" in p.stderr, "the environment's hold refuses cuDNN 9.17 on the GTX 1080", p.stderr)
with open(os.path.join(pas.venv(), "cudaup-constraints.txt"), "w") as fh:
    fh.write("")
p = subprocess.run([venv_py, "-m", "pip", "install", "-q", "--no-deps", "nvidia-cudnn-cu12==9.17.1.4"],
                   env=dict(os.environ, **AIRGAP), capture_output=True, text=True)
t.eq(p.returncode, 0, "pip upgrades the venv's cuDNN to 9.17 (from the wheelhouse)", p.stderr)
r = pas.cmd("verify")
fc = {c["name"]: c for c in (r.json() or {}).get("checks", [])}.get("framework", {})
t.ok(r.rc == 4 and fc.get("status") == "fail" and "9.17.1.4" in fc.get("detail", "")
     and "GeForce GTX 1080" in fc.get("detail", "") and "6.1" in fc.get("detail", ""),
     "verify fails on cuDNN 9.17 on Pascal, naming the cuDNN and the GPU", fc)

# ---- Ada: both list 8.9; pip takes the newest ----------------------------------------------------
ada = Box("ada", RTX4090, "570.133.07")
r = ada.cmd("plan")
f = framework(r)
t.ok(r.rc == 0 and f.get("pip") == ["jax[cuda12]==0.10.2"] and f.get("constraints") == [],
     "RTX 4090 on driver 570: jax[cuda12] with no pin [cudnn_support_matrix.csv 9.17.0 lists 8.9]", r)
r = ada.cmd("install")
t.eq(r.rc, 0, "RTX 4090: the install", r)
t.eq(ada.cudnn_in_venv(), ["9.17.1.4"], "pip took cuDNN 9.17 on Ada")
r = ada.cmd("verify")
fc = {c["name"]: c for c in (r.json() or {}).get("checks", [])}.get("framework", {})
t.ok(fc.get("status") == "pass", "verify: cuDNN 9.17 passes on Ada", fc)
t.done()
