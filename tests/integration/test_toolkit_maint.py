#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""verify, repair, uninstall and mirror of a toolkit that lives in the environment (--toolkit wheels, issue 50 item 2).

A real install into a real venv with real pip from a local index (file://) of stand-in compiler wheels laid out as the
real ones (tests/fixtures/mkcompiler.py: its nvcc fails where a part is missing, prints its release), on an RTX 5090
with driver 580 (CUDA 13.0).  Then: verify checks the environment's toolkit (no "There is no CUDA install"): nvcc of
the activation's CUDA_HOME is the held release and wheel and compiles a kernel for the GPU (sm_120), and says no when
nvcc is gone, when a part it needs is gone, and when the record holds another release; repair puts a deleted nvcc back
at the held version with the environment's pip; uninstall 13.0 refuses (exit 3), naming the environment and `uninstall
env`, which removes the environment and its toolkit; mirror --toolkit wheels holds the compiler wheels in its index and
an install from that mirror, offline, gets them; --toolkit none asks verify for no toolkit.  Every pip call names its
own index (hermetic)."""
import json
import os
import shutil
import subprocess
import sys

from cutest import SRCDIR, Tap, base_env, gpu_doubles, run

sys.path.insert(0, os.path.join(SRCDIR, "tests", "fixtures"))
import machines  # noqa: E402
import mkcompiler  # noqa: E402
import mkindex  # noqa: E402
import mkmirror  # noqa: E402
import mkwheels  # noqa: E402

t = Tap()
PY = shutil.which("python3.11", path="/usr/bin:/bin") or shutil.which("python3.11")
if not PY:
    t.skip("the installs into a venv", "no python3.11 on this machine")
    t.done()
with open(os.path.join(SRCDIR, "data", "catalog.json")) as f:
    CAT = json.load(f)
DIR = t.tmpdir("tkmaint")
RTX5090 = ("0000:01:00.0", "2b85", "0x030000", "nvidia", "12.0", 32607, "NVIDIA GeForce RTX 5090")
ROOT = os.path.join(DIR, "r13")
machines.build_spec({"os": "ubuntu", "driver": "580.95.05", "cuda": 13000, "libs": True, "gpus": [RTX5090]}, ROOT)
M13 = os.path.join(DIR, "m13")
mkmirror.build(M13, cuda="13.0.2", cudnn="9.13.0", replace=gpu_doubles())
HOME = os.path.join(DIR, "home")
os.makedirs(HOME)
ENVS = os.path.join(HOME, "data", "cudaup", "envs")
FW = ["--framework", "pytorch==2.14"]


def args(tag, mirror=M13, env_dir=None):
    a = ["--root", ROOT, "--mirror", "file://" + mirror, "--prefix", os.path.join(DIR, tag, "p"),
         "--state-dir", os.path.join(DIR, tag, "s"), "--cache-dir", os.path.join(DIR, tag, "c")]
    return a + (["--env-dir", env_dir] if env_dir else [])


INST = ["--python", "3.11", "--env-tool", "venv", "--env-scope", "none"]


def cudaup(*a, timeout=600, env=None):
    e = base_env({"FAKE_NVIDIA_CONFIG": os.path.join(ROOT, "fake-nvidia.conf"), "HOME": HOME,
                  "XDG_DATA_HOME": os.path.join(HOME, "data")})
    e.update(env or {})
    return run(list(a), env=e, timeout=timeout)


def check(doc, name):
    return next((c for c in (doc or {}).get("checks", []) if c["name"] == name), None)


# The plan's compiler pins, and stand-ins of them and of torch 2.14.1 (cu130) in a local index.
r = cudaup("plan", "--json", "--offline", *FW, "--toolkit", "wheels", *args("plan"), *INST)
d = r.json() or {}
pins = dict(p.split("==") for p in (d.get("framework") or {}).get("pip", []) if p.startswith("nvidia-"))
t.ok(r.rc == 0 and "nvidia-cuda-nvcc" in pins, "plan --toolkit wheels: the compiler wheels", (r.rc, pins, r.err[-300:]))
REL = (d.get("toolkit") or {}).get("release", "")
WH = os.path.join(DIR, "wh")
os.makedirs(WH)
w = [mkwheels.wheel(WH, "torch", "2.14.1", arch=["sm_120"], cuda="13.0"),
     mkwheels.wheel(WH, "torchvision", "0.29.2", requires=["torch>=2.14.0"])] + mkcompiler.wheels(WH, pins)
IDX = "file://" + mkindex.index_dir(os.path.join(DIR, "index"), w) + "/simple/"

r = cudaup("install", "--yes", "--json", *FW, "--toolkit", "wheels", "--index-url", IDX, *args("i"), *INST, timeout=900)
ENV = os.path.join(ENVS, "cudaup-pytorch")
HOME13 = os.path.join(ENV, "lib", "python3.11", "site-packages", "nvidia", "cu13")
NVCC = os.path.join(HOME13, "bin", "nvcc")
t.ok(r.rc == 0 and os.access(NVCC, os.X_OK), "install --toolkit wheels: nvcc in the environment",
     (r.rc, r.err[-1500:]))
# install proves what it installed as it does with a CUDA folder: verify's checks of the environment, its toolkit's
# among them, in install's JSON (it ran none: no "verify" key).
iv = (r.json() or {}).get("verify") or {}
t.ok(iv.get("status") == "pass" and check(iv, "toolkit") and check(iv, "toolkit")["status"] == "pass" and check(iv, "framework"),
     "install --toolkit wheels runs verify's checks on the environment (toolkit, framework) and reports them",
     (r.rc, iv, r.out[-600:]))
STATE = os.path.join(DIR, "i", "s")
with open(os.path.join(STATE, "pyenv.json")) as f:
    rec = json.load(f)
t.ok(rec.get("toolkit_release") == REL and ("nvidia-cuda-nvcc==" + pins["nvidia-cuda-nvcc"]) in rec.get("toolkit_wheels", []),
     "STATE/pyenv.json records the compiler wheels' release (%s) and pins" % REL, rec)

# ---- verify ---------------------------------------------------------------------------------------------------------
r = cudaup("verify", "--json", *args("i"))
doc = r.json() or {}
tk = check(doc, "toolkit")
t.ok("There is no CUDA install" not in r.out + r.err and tk and tk["status"] == "pass" and "sm_120" in tk["detail"] and
     pins["nvidia-cuda-nvcc"] in tk["detail"] and HOME13 in tk["detail"],
     "verify: the environment's nvcc (%s, in nvidia/cu13) compiles a kernel for the RTX 5090 (sm_120)" % pins["nvidia-cuda-nvcc"],
     (r.rc, doc.get("checks"), r.err[-600:]))
tkk = check(doc, "toolkit-kernel")
t.ok(tkk is not None and tkk["status"] in ("pass", "skip") and doc.get("path") == ENV and doc.get("toolkit") == "wheels",
     "verify: toolkit-kernel runs the kernel on the GPU or says why not; path is the environment", (tkk, doc.get("path")))
t.ok(r.rc == (4 if any(c["status"] == "fail" for c in doc.get("checks", [])) else 0) and check(doc, "framework"),
     "verify: the framework's checks of that environment run too, and the exit code follows the checks",
     (r.rc, doc.get("checks")))
human = cudaup("verify", *args("i"))
t.ok("compiler wheels" in human.out and "toolkit" in human.out, "verify (text) names the wheels' toolkit", human.out)
# verify --env ENV of that same environment: its toolkit is checked too (it ran the framework's checks alone).
r = cudaup("verify", "--json", "--env", ENV, *args("i"))
doc = r.json() or {}
tk = check(doc, "toolkit")
t.ok(tk and tk["status"] == "pass" and pins["nvidia-cuda-nvcc"] in tk["detail"] and doc.get("toolkit") == "wheels" and
     check(doc, "framework") and doc.get("path") == ENV,
     "verify --env ENV: the environment cudaup made with --toolkit wheels gets its toolkit checked too",
     (r.rc, doc.get("checks"), r.err[-400:]))

# A stand-in that says no: nvvm's cicc gone, nvcc fails; the check fails with nvcc's words.
cicc = os.path.join(HOME13, "nvvm", "bin", "cicc")
os.rename(cicc, cicc + ".away")
r = cudaup("verify", "--json", *args("i"))
tk = check(r.json(), "toolkit")
os.rename(cicc + ".away", cicc)
t.ok(r.rc == 4 and tk and tk["status"] == "fail" and "cicc" in tk["detail"],
     "verify: without nvvm's cicc the compile fails, and the check with it (exit 4)", (r.rc, tk))

# The record holds another release than nvcc is: a failure naming both.
bad = dict(rec, toolkit_release="13.1.0")
with open(os.path.join(STATE, "pyenv.json"), "w") as f:
    json.dump(bad, f)
r = cudaup("verify", "--json", *args("i"))
tk = check(r.json(), "toolkit")
with open(os.path.join(STATE, "pyenv.json"), "w") as f:
    json.dump(rec, f)
t.ok(r.rc == 4 and tk and tk["status"] == "fail" and "13.0" in tk["detail"] and "13.1" in tk["detail"],
     "verify: nvcc 13.0 where the record holds the compiler at CUDA 13.1 fails, naming both", (r.rc, tk))

# ---- repair ---------------------------------------------------------------------------------------------------------
os.unlink(NVCC)
r = cudaup("verify", "--json", *args("i"))
tk = check(r.json(), "toolkit")
t.ok(r.rc == 4 and tk and tk["status"] == "fail" and NVCC in tk["detail"] and "repair" in tk.get("fix", ""),
     "verify: nvcc deleted from the environment fails, its fix is repair", (r.rc, tk))
r = cudaup("repair", "--yes", "--json", *args("i"))
rj = r.json() or {}
steps = [(s["installer"], s["action"]) for s in rj.get("steps", [])]
t.ok(r.rc == 0 and os.access(NVCC, os.X_OK) and ("pyenv", "toolkit") in steps,
     "repair: pip installs the compiler wheel again; nvcc is back", (r.rc, steps, r.err[-800:]))
v = subprocess.run([NVCC, "--version"], capture_output=True, text=True).stdout if os.access(NVCC, os.X_OK) else ""
t.ok(v.strip().endswith("V" + pins["nvidia-cuda-nvcc"]), "... at the held version %s" % pins["nvidia-cuda-nvcc"], v)
r = cudaup("verify", "--json", *args("i"))
t.ok((check(r.json(), "toolkit") or {}).get("status") == "pass", "verify passes the toolkit again after the repair", r.out[-600:])
r = cudaup("repair", "--yes", *args("i"))
t.ok(r.rc == 0 and "intact" in r.out, "repair again: nothing to repair", r)

# ---- uninstall ------------------------------------------------------------------------------------------------------
r = cudaup("uninstall", "13.0", "--yes", *args("i"))
t.ok(r.rc == 3 and ENV in r.err and "cudaup uninstall env" in r.err and os.path.isdir(ENV),
     "uninstall 13.0: refused (exit 3), naming the environment that holds the toolkit and `uninstall env`", r)
r = cudaup("uninstall", "13.0", "--yes", "--json", *args("i"))
t.ok(r.rc == 3 and "uninstall env" in (r.json() or {}).get("advice", ""), "... with --json: {error, advice, exit}", r.out)

# ---- mirror --toolkit wheels, and an install from it, offline --------------------------------------------------------
MIR = os.path.join(DIR, "site")
r = cudaup("mirror", MIR, "--json", *FW, "--toolkit", "wheels", "--index-url", IDX, "--python", "3.11",
           "--python-source", "system", *args("mir"),
           timeout=900)
files = sorted(os.listdir(os.path.join(MIR, "pypi", "files"))) if os.path.isdir(os.path.join(MIR, "pypi", "files")) else []
have = {f.split("-")[0].replace("_", "-") for f in files if f.endswith(".whl")}
t.ok(r.rc == 0 and set(pins) <= have, "mirror --toolkit wheels: the site's index holds the compiler wheels %s" % sorted(pins),
     (r.rc, files, r.err[-800:]))
ENV2 = os.path.join(DIR, "envs2")
r = cudaup("install", "--yes", "--json", "--offline", *FW, "--toolkit", "wheels", *args("i2", mirror=MIR, env_dir=ENV2),
           *INST, "--python-source", "system", timeout=900)
n2 = os.path.join(ENV2, "cudaup-pytorch", "lib", "python3.11", "site-packages", "nvidia", "cu13", "bin", "nvcc")
t.ok(r.rc == 0 and os.access(n2, os.X_OK), "install --offline from that mirror alone: the environment gets the compiler wheels",
     (r.rc, r.err[-1200:]))

# A system CUDA 13.0 beside it (--framework none): uninstalling it, the last CUDA install, leaves the environment that
# holds its own toolkit alone (it was made for no CUDA install).
r = cudaup("install", "--yes", "--json", "--framework", "none", "--cudnn", "none", *args("i"), "--env-scope", "none",
           timeout=900)
CUDA = os.path.join(DIR, "i", "p", "cuda-13.0")
t.ok(r.rc == 0 and os.path.isdir(CUDA), "install of a system CUDA 13.0 beside the environment", (r.rc, r.err[-800:]))
r = cudaup("uninstall", "13.0", "--yes", *args("i"))
t.ok(r.rc == 0 and not os.path.exists(CUDA) and os.access(NVCC, os.X_OK) and
     os.path.exists(os.path.join(STATE, "pyenv.json")),
     "uninstall 13.0 of that system CUDA: the environment with its compiler wheels stays", (r, os.path.exists(ENV)))

# ---- uninstall env --------------------------------------------------------------------------------------------------
r = cudaup("uninstall", "env", "--yes", *args("i"))
t.ok(r.rc == 0 and not os.path.exists(ENV) and not os.path.exists(NVCC) and not os.path.exists(os.path.join(STATE, "pyenv.json")),
     "uninstall env: the environment goes, its compiler wheels' toolkit with it", (r, os.path.exists(ENV)))
r = cudaup("uninstall", "env", "--yes", *args("i"))
t.ok(r.rc == 0 and "nothing was removed" in r.out, "uninstall env again: nothing to remove (exit 0)", r)

# ---- --toolkit none: no toolkit asked for ----------------------------------------------------------------------------
ENVN = os.path.join(DIR, "envsn")
r = cudaup("install", "--yes", *FW, "--toolkit", "none", "--index-url", IDX, *args("n", env_dir=ENVN), *INST, timeout=900)
t.ok(r.rc == 0, "install --toolkit none", r.err[-800:])
t.ok("Checked as cudaup verify does:" in r.out and " 0 failed" in r.out,
     "install --toolkit none (text) ends with verify's checks of the environment, as with a CUDA folder", r.out[-800:])
r = cudaup("verify", "--json", *args("n"))
doc = r.json() or {}
tk = check(doc, "toolkit")
t.ok("There is no CUDA install" not in r.err and tk and tk["status"] == "skip" and "--toolkit none" in tk["detail"] and
     check(doc, "toolkit-kernel") is None and not any(c["name"] in ("nvcc", "files") for c in doc.get("checks", [])),
     "verify (--toolkit none): no toolkit is asked for, no nvcc checked", (r.rc, doc.get("checks"), r.err[-400:]))
r = cudaup("repair", "--yes", *args("n"))
t.ok(r.rc == 0 and "intact" in r.out, "repair (--toolkit none): nothing toolkit-related to do", r)
r = cudaup("uninstall", "13.0", "--yes", *args("n"))
t.ok(r.rc == 0 and "nothing was removed" in r.out and os.path.isdir(os.path.join(ENVN, "cudaup-pytorch")),
     "uninstall 13.0 (--toolkit none): no CUDA there, nothing removed, the environment stays", r)
t.done()
