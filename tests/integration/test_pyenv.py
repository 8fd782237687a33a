#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Python environments and frameworks: a real venv, a conda stand-in, pip from a local wheelhouse."""
import json
import os
import shutil
import subprocess
import sys

import cutest
from cutest import SRCDIR, Tap, machine


def run(args, *a, **kw):
    """cutest.run with --toolkit system on plan, install and mirror: this file is about the
    environment cudaup makes and the index it installs from, with the system CUDA beside it; the toolkit's default (the compiler
    wheels for frameworks that bring their own CUDA) is test_toolkit's."""
    if args and args[0] in ("plan", "install", "mirror"):
        args = [args[0], "--toolkit", "system"] + list(args[1:])
    return cutest.run(args, *a, **kw)


sys.path.insert(0, os.path.join(SRCDIR, "tests", "fixtures"))
import mkmirror  # noqa: E402
import mkwheels  # noqa: E402

t = Tap()
ROOT, MENV = machine(t, "two-gpus")
MIRROR = os.path.join(t.tmpdir("mirror"), "m")
mkmirror.build(MIRROR)
WHEELS = t.tmpdir("wheels")
# 2.21: the newest TensorFlow, its GPU code read in its wheel; torch 2.14's companion, torchvision 0.29.2, asks what its
# wheel on PyPI asks (pytorch_companions.csv 2.14.1); no torchaudio is built for torch 2.14, so plans leave it out.
mkwheels.build(WHEELS, [("tensorflow", "2.21.0"), ("torch", "2.14.0"),
                        ("torchvision", "0.29.2", {"requires": ["torch>=2.14.0"]})])
PY = shutil.which("python3.11", path="/usr/bin:/bin") or shutil.which("python3.11")
if not PY:
    t.skip("Python environments", "no python3.11 on this machine")
    t.done()
PYVER = "3.11"
AIRGAP = {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": WHEELS, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}


class Box:
    def __init__(self, tag):
        self.dir = t.tmpdir(tag)
        self.prefix, self.state, self.cache, self.home = (os.path.join(self.dir, n) for n in ("p", "s", "c", "home"))
        os.makedirs(self.home)

    def env(self, extra=None):
        e = dict(MENV, HOME=self.home, XDG_DATA_HOME=os.path.join(self.home, "data"), **AIRGAP)
        e["PATH"] = "/usr/bin:/bin"
        e.update(extra or {})
        return {k: v for k, v in e.items() if v is not None}  # None: not set at all

    def install(self, *args, env=None):
        return run(["install", "--yes", "--json", "--root", ROOT, "--mirror", "file://" + MIRROR, "--prefix",
                    self.prefix, "--state-dir", self.state, "--cache-dir", self.cache, "--python", PYVER,
                    "--shell-rc", os.path.join(self.home, ".bashrc")] + list(args), env=self.env(env), timeout=600)

    def verify(self, env=None):
        r = run(["verify", "--json", "--root", ROOT, "--prefix", self.prefix, "--state-dir", self.state],
                env=self.env(env))
        return r, {c["name"]: c for c in (r.json() or {}).get("checks", [])}


def steps(r):
    return {s["installer"]: s for s in (r.json() or {}).get("steps", [])}


# ---- A real venv, TensorFlow from the wheelhouse, its activation holding the variables ----
b = Box("venv")
r = b.install("--env-tool", "venv", "--env-name", "tf", "--env-scope", "conda")
t.eq(r.rc, 0, "install with a venv and TensorFlow from a local wheelhouse", r)
venv = os.path.join(b.home, "data", "cudaup", "envs", "tf")
t.ok(os.path.exists(os.path.join(venv, "pyvenv.cfg")), "the venv is in XDG_DATA_HOME/cudaup/envs/NAME")
st = steps(r)
t.ok(st.get("pyenv", {}).get("changed") and st.get("framework", {}).get("changed"), "pyenv and framework changed", st)
out = subprocess.run([os.path.join(venv, "bin", "python"), "-c", "import tensorflow; print(tensorflow.__version__)"],
                     capture_output=True, text=True)
t.eq(out.stdout.strip(), "2.21.0", "tensorflow 2.21.0 imports inside the venv")
state = json.load(open(os.path.join(b.state, "pyenv.json")))
t.ok(state["framework"] == "tensorflow" and state["python"].endswith("/tf/bin/python"), "pyenv.json records the env", state)
ilog = open(os.path.join(b.state, "cudaup.log")).read() if os.path.exists(os.path.join(b.state, "cudaup.log")) else ""
t.ok("info plan: why: TensorFlow 2.21.0 (with Keras): " in ilog and "info plan: why: Python 3.11, as asked." in ilog,
     "install: the log keeps the plan's reasons (each with its data row where it has one)", ilog[:3000])
t.ok(not os.path.exists(os.path.join(b.home, ".bashrc")), "scope conda leaves the rc file alone")
act = subprocess.run(["bash", "-c", ". '%s/bin/activate'; printf '%%s|' \"$CUDA_HOME\" \"${PATH%%%%:*}\"; deactivate; "
                      "printf '%%s|%%s' \"${CUDA_HOME-unset}\" \"${LD_LIBRARY_PATH-unset}\"" % venv],
                     capture_output=True, text=True, env={"PATH": "/usr/bin:/bin", "HOME": b.home})
t.eq(act.stdout, "%s/cuda|%s/cuda/bin|unset|unset" % (b.prefix, b.prefix),
     "activate sets CUDA_HOME and PATH; deactivate undoes them (bash)", act)
if shutil.which("zsh"):
    act = subprocess.run(["zsh", "-c", ". '%s/bin/activate'; printf '%%s|' \"$CUDA_HOME\"; deactivate; printf '%%s' \"${CUDA_HOME-unset}\"" % venv],
                         capture_output=True, text=True, env={"PATH": "/usr/bin:/bin", "HOME": b.home})
    t.eq(act.stdout, "%s/cuda|unset" % b.prefix, "activate/deactivate under zsh", act)
else:
    t.skip("activate/deactivate under zsh", "zsh is not installed (scripts/bootstrap installs it)")
rv, c = b.verify()
t.ok(c.get("framework", {}).get("status") == "pass" and "TensorFlow 2.21.0" in c["framework"]["detail"]
     and "CUDA 12.5" in c["framework"]["detail"] and "on 2 GPUs agree with the CPU" in c["framework"]["detail"],
     "verify: a matrix multiply and a convolution on both GPUs, inside the env, agree with the CPU", c.get("framework"))
rv, c = b.verify(env={"FAKE_FW_GPUS": "0"})
t.ok(rv.rc == 4 and c["framework"]["status"] == "fail" and "the driver sees 2 GPUs and TensorFlow 2.21.0 none"
     in c["framework"]["detail"], "a framework that sees no GPU while the driver sees two: fail, saying so", c.get("framework"))
r = b.install("--env-tool", "venv", "--env-name", "tf", "--env-scope", "conda")
st = steps(r)
t.ok(r.rc == 0 and r.json()["changed"] is False and not st["pyenv"]["changed"] and not st["framework"]["changed"],
     "a second install changes nothing", r)
# The closing text names all of it: cuDNN, the environment, how to activate it, a one-line test (issue 26).
r = run(["install", "--yes", "--root", ROOT, "--mirror", "file://" + MIRROR, "--prefix", b.prefix, "--state-dir", b.state,
         "--cache-dir", b.cache, "--python", PYVER, "--env-tool", "venv", "--env-name", "tf", "--env-scope", "conda"],
        env=b.env())
t.ok(r.rc == 0 and "cuDNN 9.5.1" in r.out and "activate it with: . %s/bin/activate" % venv in r.out and
     ("Once the checks pass, try it: " if " 0 failed, " not in r.out else "Then try it: ") + "python -c 'import tensorflow as tf" in r.out,
     "as text: the closing lines name cuDNN, the venv, its activation and a one-line test (after the checks, for after "
     "the fix when one failed)", r.out)
# list shows the environment and the CUDA it was made for (issue 26, item 7).
r = run(["list", "--json", "--root", ROOT, "--mirror", "file://" + MIRROR, "--prefix", b.prefix, "--state-dir", b.state],
        env=b.env())
envs = (r.json() or {}).get("environments", [])
t.ok(r.rc == 0 and len(envs) == 1 and envs[0]["path"] == venv and envs[0]["cuda"] == os.path.join(b.prefix, "cuda-12.6")
     and envs[0]["made"] is True and envs[0]["framework"] == "tensorflow", "list --json: the venv, its framework and its CUDA", envs)
inst = [i["path"] for i in (r.json() or {}).get("installed", [])]
t.ok(os.path.join(b.prefix, "cuda-12.6") in inst, "list --prefix P with --root: the install cudaup made in P is listed", inst)
r = run(["list", "--root", ROOT, "--mirror", "file://" + MIRROR, "--prefix", b.prefix, "--state-dir", b.state], env=b.env())
t.ok(r.rc == 0 and "Python environments" in r.out and venv in r.out and "cuda-12.6" in r.out.split("Python environments")[1],
     "list as text: the venv and its CUDA", r.out[-600:])
r = run(["uninstall", "12.6", "--yes", "--keep-env", "--prefix", b.prefix, "--state-dir", b.state], env=b.env())
body = open(os.path.join(venv, "bin", "activate")).read() if os.path.exists(os.path.join(venv, "bin", "activate")) else ""
t.ok(r.rc == 0 and ">>> cudaup >>>" not in body and os.path.exists(os.path.join(venv, "pyvenv.cfg")) and
     "stays" in r.out, "uninstall --keep-env: the venv stays, without the block in its activate, and says so", r)
# Installed again, the venv is reused, and still known as cudaup's: a plain uninstall removes it.
r = b.install("--env-tool", "venv", "--env-name", "tf", "--env-scope", "conda")
t.eq(r.rc, 0, "install again over the kept venv", r)
r = run(["uninstall", "12.6", "--yes", "--json", "--prefix", b.prefix, "--state-dir", b.state], env=b.env())
st = [s for s in (r.json() or {}).get("steps", []) if s["installer"] == "pyenv"]
t.ok(r.rc == 0 and not os.path.exists(venv) and not os.path.exists(os.path.join(b.state, "pyenv.json")) and
     any(s["action"] == "remove" and s["changed"] and s["detail"] == venv for s in st),
     "uninstall: the venv made for that CUDA and STATE/pyenv.json are removed, and a step says so", r)

# ---- verify's framework check against stand-ins built for other GPUs, on other machines ----
import glob  # noqa: E402
import zipfile  # noqa: E402

import machines  # noqa: E402


def gpu_root(tag, gpus, extra=""):
    root = os.path.join(t.tmpdir("fw-" + tag), "root")
    machines.build_spec({"os": "ubuntu", "driver": "580.95.05", "cuda": 13000, "libs": True,
                         "gpus": [("0000:%02x:00.0" % (i + 1), dev, "0x030000", "nvidia", cc, 4096, name)
                                  for i, (dev, cc, name) in enumerate(gpus)]}, root)
    if extra:
        with open(os.path.join(root, "fake-nvidia.conf"), "a") as f:
            f.write(extra + "\n")
    return root


def fw_env(tag, framework, wheel, version, **opts):
    """A venv holding one stand-in wheel (unpacked, no pip), recorded in a state dir of its own."""
    wh = t.tmpdir("wh-" + tag)
    path = mkwheels.wheel(wh, wheel, version, **opts)
    venv = os.path.join(t.tmpdir("env-" + tag), "env")
    subprocess.run([PY, "-m", "venv", "--without-pip", venv], check=True)
    zipfile.ZipFile(path).extractall(glob.glob(os.path.join(venv, "lib", "python3*", "site-packages"))[0])
    state = t.tmpdir("st-" + tag)
    with open(os.path.join(state, "pyenv.json"), "w") as f:
        json.dump({"tool": "venv", "name": tag, "path": venv, "python": os.path.join(venv, "bin", "python"),
                   "framework": framework, "framework_version": version, "pip": []}, f)
    return state


fb = Box("fw")
r = fb.install("--framework", "none", "--env-scope", "none")
t.eq(r.rc, 0, "a CUDA install for the framework checks", r)


def fw_check(root, state, *args, env=None):
    e = {"FAKE_NVIDIA_CONFIG": os.path.join(root, "fake-nvidia.conf"), "PATH": "/usr/bin:/bin", "HOME": fb.home}
    e.update(env or {})
    r = run(["verify", "--json", "--root", root, "--prefix", fb.prefix, "--state-dir", state] + list(args), env=e)
    # verify names every problem (issue 47 item 3), one check each: read together, the first's fields first
    fcs = [c for c in (r.json() or {}).get("checks", []) if c["name"] == "framework"]
    if not fcs:
        return r, {}
    one = dict(fcs[0])
    one["status"] = "fail" if any(c["status"] == "fail" for c in fcs) else fcs[0]["status"]
    one["detail"] = " | ".join(c.get("detail", "") for c in fcs)
    return r, one


GTX970 = ("13c2", "5.2", "NVIDIA GeForce GTX 970")
RTX3090 = ("2204", "8.6", "NVIDIA GeForce RTX 3090")
CU128 = ["sm_70", "sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]  # pytorch_wheel_arch.csv 2.8.x cu128
CU126 = ["sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"]   # pytorch_wheel_arch.csv 2.8.x cu126
r970 = gpu_root("970", [GTX970])
r, fc = fw_check(r970, fw_env("cu128", "pytorch", "torch", "2.8.0", arch=CU128, cuda="12.8"))
t.ok(r.rc == 4 and fc.get("status") == "fail" and "has no code for compute capability 5.2" in fc.get("detail", ""),
     "PyTorch cu128 on a GTX 970: fail, the build has no code for compute capability 5.2", fc)
st126 = fw_env("cu126", "pytorch", "torch", "2.8.0", arch=CU126, cuda="12.6", cudnn="9.10.2")
r, fc = fw_check(r970, st126)
t.ok(fc.get("status") == "pass" and "PyTorch 2.8.0, built for CUDA 12.6, cuDNN 9.10.2" in fc.get("detail", ""),
     "PyTorch cu126 on a GTX 970: both kinds of work agree with the CPU", fc)
r, fc = fw_check(r970, st126, env={"FAKE_FW_CUDNN_LOADED": "8.9.7"})
t.ok(fc.get("status") == "fail" and "cuDNN 8.9" in fc.get("detail", ""), "a cuDNN of another major loaded: named", fc)
# A framework that does not import, and one whose probe prints no result: fail, with what it said.
broken = fw_env("broken", "pytorch", "torch", "2.8.0", arch=CU126, cuda="12.6")
bsp = glob.glob(os.path.join(json.load(open(os.path.join(broken, "pyenv.json")))["path"], "lib", "python3*",
                             "site-packages"))[0]
with open(os.path.join(bsp, "torch", "__init__.py"), "w") as f:
    f.write("raise ImportError('libcudnn.so.9: cannot open shared object file: No such file or directory')\n")
r, fc = fw_check(r970, broken)
t.ok(r.rc == 4 and fc.get("status") == "fail" and "PyTorch does not import" in fc.get("detail", "")
     and "libcudnn.so.9: cannot open shared object file" in fc.get("detail", ""),
     "a framework that does not import: fail, quoting the last line of its error", fc)
with open(os.path.join(bsp, "torch", "__init__.py"), "w") as f:
    f.write("import os\nprint('noise, not a result', flush=True)\nos._exit(0)\n")
r, fc = fw_check(r970, broken)
t.ok(r.rc == 4 and fc.get("status") == "fail" and fc.get("detail"), "a probe that prints no result: fail", fc)
r, fc = fw_check(r970, st126, env={"FAKE_FW_CUDNN_LOADED": "9.1.0"})
t.ok(fc.get("status") == "fail" and "cuDNN 9.1 was loaded but PyTorch 2.8.0 needs 9.10 or newer in 9.x" in fc.get("detail", ""),
     "an older cuDNN loaded than the build needs: named", fc)
r, fc = fw_check(gpu_root("wrong", [GTX970], "kernel_result wrong"), st126)
t.ok(fc.get("status") == "fail" and "matrix multiply by PyTorch on GPU 0 differs" in fc.get("detail", ""),
     "a GPU that computes wrong answers: the matrix multiply is named", fc)
r, fc = fw_check(gpu_root("nocuda", [GTX970], "cu_init 100"), st126)
t.ok(fc.get("status") == "fail" and "the driver sees 1 GPU and PyTorch 2.8.0 none" in fc.get("detail", ""),
     "the driver sees a GPU and the framework none: said so", fc)
r, fc = fw_check(gpu_root("hang", [GTX970], "hang kernel"), st126, "--gpu-timeout", "1")
t.ok(fc.get("status") == "fail" and "did not finish its GPU work within 3 s" in fc.get("detail", ""),
     "a hung GPU: the framework check is time-bounded", fc)
r, fc = fw_check(r970, fw_env("tf220", "tensorflow", "tensorflow", "2.20.0"))
t.ok(fc.get("status") == "fail" and "TensorFlow 2.20.0 has no code for compute capability 5.2" in fc.get("detail", "")
     and "sm_60" in fc.get("detail", ""), "TensorFlow 2.20 on a GTX 970: its build list named (tensorflow_wheel_arch.csv)", fc)
r, fc = fw_check(r970, fw_env("tf220b", "tensorflow", "tensorflow", "2.20.0", arch=["sm_60", "sm_70", "sm_80", "sm_89"]
                                                                               + ["sm_52"]))
t.ok(fc.get("status") == "pass", "with sm_52 in its list, the same stand-in computes on the GPU", fc)
r3090 = gpu_root("3090", [RTX3090])
r, fc = fw_check(r3090, fw_env("tfcpu", "tensorflow", "tensorflow", "2.20.0", arch=["sm_90"]))
t.ok(fc.get("status") == "fail" and "has no code for compute capability 8.6" in fc.get("detail", ""),
     "a TensorFlow without code for an RTX 3090: named before its quiet CPU fallback", fc)
tf3090 = fw_env("tf3090", "tensorflow", "tensorflow", "2.20.0")
r, fc = fw_check(r3090, tf3090)
t.ok(fc.get("status") == "pass", "TensorFlow 2.20 on an RTX 3090 (sm_80 code): the work runs on the GPU", fc)
r, fc = fw_check(r3090, tf3090, env={"FAKE_FW_SOFT_PLACEMENT": "1"})
t.ok(fc.get("status") == "fail" and "ran the work for GPU 0 on the CPU" in fc.get("detail", ""),
     "the same TensorFlow placing the work on the CPU: fail, saying so", fc)
r, fc = fw_check(r3090, fw_env("jax", "jax", "jax", "0.10.1"))
t.ok(fc.get("status") == "pass" and "JAX 0.10.1" in fc.get("detail", ""), "JAX: both kinds of work on the GPU", fc)
r, fc = fw_check(r3090, fw_env("jaxnc", "jax", "jax", "0.10.1", arch=["sm_90"]))
t.ok(fc.get("status") == "fail" and "JAX 0.10.1 on GPU 0: CUDA error: no kernel image" in fc.get("detail", ""),
     "JAX without code for the GPU: the kernel error is named", fc)
nodrv = os.path.join(t.tmpdir("fw-nodrv"), "root")
machines.build("ada-no-driver", nodrv)
r, fc = fw_check(nodrv, st126)
t.ok(fc.get("status") == "skip" and "no GPU work was done: no NVIDIA driver is loaded" in fc.get("detail", ""),
     "no driver: skipped, saying no GPU work was done", fc)
r, fc = fw_check(nodrv, st126, "--require-gpu")
t.ok(fc.get("status") == "fail", "no driver with --require-gpu: fail", fc)

# A venv that exists with another Python is not touched.
b2 = Box("clash")
other = os.path.join(b2.home, "data", "cudaup", "envs", "tf")
os.makedirs(os.path.dirname(other))
subprocess.run([sys.executable, "-m", "venv", "--without-pip", other], check=True)
same = subprocess.run([os.path.join(other, "bin", "python"), "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                      capture_output=True, text=True).stdout.strip()
if same != PYVER:
    r = b2.install("--env-tool", "venv", "--env-name", "tf", "--env-scope", "none")
    t.ok(r.rc == 3 and "already exists" in r.err, "a venv with another Python: exit 3, untouched", r)
else:
    t.skip("venv with another Python", "this Python is %s too" % PYVER)

# The same with a stand-in venv whose python says 3.9, so that it runs on every machine; a folder
# that is not a venv is refused too, and neither is touched.
b3 = Box("clash-standin")
envs = os.path.join(b3.home, "data", "cudaup", "envs")
os.makedirs(os.path.join(envs, "old", "bin"))
open(os.path.join(envs, "old", "pyvenv.cfg"), "w").write("home = /usr/bin\nversion = 3.9.18\n")
with open(os.path.join(envs, "old", "bin", "python"), "w") as f:
    f.write("#!/bin/sh\necho 3.9\n")
os.chmod(os.path.join(envs, "old", "bin", "python"), 0o755)
os.makedirs(os.path.join(envs, "plain"))
open(os.path.join(envs, "plain", "notes.txt"), "w").write("mine\n")
r = b3.install("--env-tool", "venv", "--env-name", "old", "--env-scope", "none")
t.ok(r.rc == 3 and "A venv with Python 3.9 already exists" in r.err, "a venv with Python 3.9 where 3.11 is asked: exit 3", r)
r = b3.install("--env-tool", "venv", "--env-name", "plain", "--env-scope", "none")
t.ok(r.rc == 3 and "is not a venv" in r.err and open(os.path.join(envs, "plain", "notes.txt")).read() == "mine\n",
     "a folder that is not a venv: exit 3, its files untouched", r)

# ---- The conda stand-in: scope conda writes activate.d and deactivate.d ----
b = Box("conda")
bindir = os.path.join(b.dir, "bin")
os.makedirs(bindir)
shutil.copy(os.path.join(SRCDIR, "tests", "fakes", "conda-standin"), os.path.join(bindir, "conda"))
croot = os.path.join(b.dir, "miniconda")
cenv = {"PATH": bindir + ":/usr/bin:/bin", "CONDA_STANDIN_ROOT": croot}
r = b.install("--env-tool", "conda", "--env-name", "cu", "--env-scope", "conda", env=cenv)
t.eq(r.rc, 0, "install into a conda environment (stand-in)", r)
env_path = os.path.join(croot, "envs", "cu")
for f in ("activate.d/cudaup.sh", "deactivate.d/cudaup.sh", "activate.d/cudaup.fish", "deactivate.d/cudaup.fish"):
    t.ok(os.path.exists(os.path.join(env_path, "etc", "conda", f)), "conda: etc/conda/%s" % f)
sh = subprocess.run(["sh", "-eu", "-c", "CUDA_HOME=/before; export CUDA_HOME; PATH=/usr/bin:/bin; "
                     ". '%s/etc/conda/activate.d/cudaup.sh'; printf '%%s|%%s|' \"$CUDA_HOME\" \"$PATH\"; "
                     ". '%s/etc/conda/deactivate.d/cudaup.sh'; printf '%%s|%%s|%%s' \"$CUDA_HOME\" \"$PATH\" \"${LD_LIBRARY_PATH-unset}\"" %
                     (env_path, env_path)], capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"})
t.eq(sh.stdout, "%s/cuda|%s/cuda/bin:/usr/bin:/bin|/before|/usr/bin:/bin|unset" % (b.prefix, b.prefix),
     "activate.d sets, deactivate.d puts back the old CUDA_HOME, PATH and LD_LIBRARY_PATH (sh -eu)", sh)
FISH = shutil.which("fish", path="/usr/bin:/bin")
if not FISH:
    t.skip("conda's fish hooks put back what was there (1 check)", "fish is not installed (scripts/bootstrap --test adds it)")
else:
    fi = subprocess.run([FISH, "--no-config", "-c",
                         "set -gx CUDA_HOME /before; set -gx PATH /usr/bin /bin; set -gx LD_LIBRARY_PATH /mine; "
                         "source '%s/etc/conda/activate.d/cudaup.fish'; echo \"H=$CUDA_HOME\"; "
                         "source '%s/etc/conda/deactivate.d/cudaup.fish'; echo \"after=$CUDA_HOME\"; echo \"P=$PATH\"; "
                         "echo \"L=$LD_LIBRARY_PATH\"; set -q CUDA_PATH; or echo no-cuda-path" % (env_path, env_path)],
                        capture_output=True, text=True, timeout=120,
                        env={"PATH": "/usr/bin:/bin", "HOME": b.home, "XDG_CONFIG_HOME": os.path.join(b.home, "fishcfg"),
                             "XDG_DATA_HOME": os.path.join(b.home, "fishdata")})
    t.eq(fi.stdout.splitlines(), ["H=%s/cuda" % b.prefix, "after=/before", "P=/usr/bin:/bin", "L=/mine", "no-cuda-path"],
         "fish: activate.d/cudaup.fish sets, deactivate.d/cudaup.fish puts back the old CUDA_HOME, PATH and "
         "LD_LIBRARY_PATH and leaves unset what was unset", fi)
out = subprocess.run([os.path.join(env_path, "bin", "python"), "-c", "import tensorflow"], capture_output=True)
t.eq(out.returncode, 0, "the framework is installed in the conda environment")
r = run(["doctor", "--json", "--root", "/"], env=dict(cenv, HOME=b.home))
t.ok(r.json() and r.json()["python_envs"] and r.json()["python_envs"]["tool"] == "conda", "doctor finds the conda on PATH", r)
r = run(["uninstall", "12.6", "--yes", "--prefix", b.prefix, "--state-dir", b.state], env=b.env(cenv))
t.ok(r.rc == 0 and not os.path.exists(os.path.join(env_path, "etc", "conda", "activate.d", "cudaup.sh")),
     "uninstall removes the activation scripts", r)
t.ok(not os.path.exists(env_path) and not os.path.exists(os.path.join(b.state, "pyenv.json")) and "removed too" in r.out,
     "uninstall removes the conda environment it made, through conda, and says so", r)

# An existing conda environment of that name with another Python; conda failing to create one;
# micromamba, which cudaup calls with its own arguments.
b = Box("conda-misc")
bindir = os.path.join(b.dir, "bin")
os.makedirs(bindir)
for tool in ("conda", "micromamba"):
    shutil.copy(os.path.join(SRCDIR, "tests", "fakes", "conda-standin"), os.path.join(bindir, tool))
croot = os.path.join(b.dir, "miniconda")
os.makedirs(os.path.join(croot, "envs", "old", "bin"))
with open(os.path.join(croot, "envs", "old", "bin", "python"), "w") as f:
    f.write("#!/bin/sh\necho 3.9\n")
os.chmod(os.path.join(croot, "envs", "old", "bin", "python"), 0o755)
cenv = {"PATH": bindir + ":/usr/bin:/bin", "CONDA_STANDIN_ROOT": croot}
r = b.install("--env-tool", "conda", "--env-name", "old", "--env-scope", "none", env=cenv)
t.ok(r.rc == 3 and "has Python 3.9, not %s" % PYVER in r.err, "a conda environment with another Python: exit 3", r)
open(os.path.join(b.dir, "blocker"), "w").write("")
r = b.install("--env-tool", "conda", "--env-name", "new", "--env-scope", "none",
              env=dict(cenv, CONDA_STANDIN_ROOT=os.path.join(b.dir, "blocker", "root")))
t.ok(r.rc == 1 and "conda failed" in r.err, "conda failing to create the environment: exit 1, naming conda", r)
r = b.install("--env-tool", "micromamba", "--env-name", "mm", "--env-scope", "none", env=cenv)
t.ok(r.rc == 0 and os.path.exists(os.path.join(croot, "envs", "mm", "bin", "python")),
     "micromamba makes the environment", r)

# ---- PyTorch: the user's pip configuration wins over PyTorch's index ----
b = Box("torch")
r = b.install("--framework", "pytorch", "--env-tool", "venv", "--env-scope", "none", env={"CUDAUP_DEBUG": "debug"})
log = open(os.path.join(b.state, "cudaup.log")).read()
t.ok(r.rc == 0 and "download.pytorch.org" not in [l for l in log.splitlines() if "exec:" in l and "pip install" in l][0],
     "PIP_FIND_LINKS set: no --index-url of PyTorch's is added", r)
b = Box("torch2")
r = b.install("--framework", "pytorch", "--env-tool", "venv", "--env-scope", "none",
              env={"CUDAUP_DEBUG": "debug", "PIP_NO_INDEX": None, "PIP_FIND_LINKS": None, "PIP_RETRIES": "0",
                   "PIP_TIMEOUT": "1", "PIP_CONFIG_FILE": "/dev/null"})
log = open(os.path.join(b.state, "cudaup.log")).read()
pip = [l for l in log.splitlines() if "exec:" in l and "pip install" in l]
t.ok(pip and "--index-url https://download.pytorch.org/whl/cu126" in pip[0], "no pip configuration: PyTorch's CUDA index is used", pip)
t.ok(r.rc == 1 and "pip could not install torch" in r.err and "PIP_FIND_LINKS" in r.err,
     "pip failing (no network): exit 1, the reason, and the air-gap advice", r)

# ---- Bad combinations, before anything runs ----
b = Box("bad")
r = b.install("--env-tool", "none")
t.ok(r.rc == 2 and "--env-tool none" in r.err, "a framework with --env-tool none: exit 2", r)
r = b.install("--env-tool", "venv", "--python", "3.99")
t.ok(r.rc == 3 and "3.99" in r.err, "a Python TensorFlow does not support: exit 3", r)
r = b.install("--env-tool", "conda", env={"PATH": "/usr/bin:/bin"})
t.ok(r.rc == 3 and "conda is not on PATH" in r.err, "--env-tool conda without conda: exit 3", r)

t.done()
