#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""--toolkit system|wheels|none (issue 50): a framework that brings its own CUDA wheels needs no NVIDIA archive.

The plan with each choice: what it downloads (the archives, or none), the compiler wheels it adds to pip (those of the
CUDA release of the runtime the framework holds, read from the catalog's cuda_wheels and the framework's own wheel
pins; never above the driver's CUDA), what the activation sets; the refusals (a framework that loads a system CUDA,
--framework none, a --components without a wheel, --toolkit none with --components).  Then real installs into real
venvs with real pip from a local index (file://) of stand-in wheels laid out as the real ones are
(tests/fixtures/mkcompiler.py: CUDA 13's one nvidia/cu13 folder, CUDA 12's folder per component): the activation's
CUDA_HOME and PATH, the stand-in nvcc compiling a kernel for the GPU from there, deactivation undoing it; nothing
downloaded from the mirror.  Every pip call names its own index (hermetic)."""
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
with open(os.path.join(SRCDIR, "data", "catalog.json")) as f:
    CAT = json.load(f)
GROUPS = CAT["components"]["groups"]
COMPILER = set(GROUPS["compiler"] + GROUPS["cccl"] + GROUPS["runtime"])


def vkey(v):
    return tuple(int(x) for x in v.split("."))


def fw_wheel(framework, version):
    return next(e for e in CAT["framework_wheels"] if e["framework"] == framework and e["version"] == version)


def held_release(pins):
    """The newest CUDA release of cuda_wheels whose runtime wheel is the one @pins ({package: "==V.*"}) pin."""
    for e in CAT["cuda_wheels"]:  # newest first
        rt = e["runtime"]
        if rt in pins and e["wheels"][rt].startswith(pins[rt].lstrip("=").rstrip(".*")):
            return e
    return None


def compiler_pins(release, runtime=True):
    """The compiler's wheels of @release: those held with the family, and those whose pin equals the manifest's in that
    release alone (toolkit_only: CUDA 13.0-13.2's cccl)."""
    every = dict(release["wheels"], **release.get("toolkit_only", {}))
    return sorted("%s==%s" % (p, v) for p, v in every.items()
                  if release["components"].get(p) in COMPILER and (runtime or p != release["runtime"]))


# ---- the data ---------------------------------------------------------------------------------------------------
rows = [e for e in CAT["cuda_wheels"] if e["release"].startswith("13.0.")]
t.ok(rows and all(e["components"].get("nvidia-cuda-nvcc") == "cuda_nvcc" and e["components"].get("nvidia-nvvm") == "libnvvm"
                  and e["components"].get("nvidia-cuda-crt") == "cuda_crt" for e in rows),
     "the catalog's cuda_wheels say which manifest component each wheel carries [cuda_wheel_components.csv]",
     [e.get("components") for e in rows][:1])
W214 = fw_wheel("pytorch", "2.14.1")  # PyPI's torch 2.14.1: the cu130 build, its runtime pinned
REL = held_release({p: s for p, s in W214["requires"] if s.startswith("==")})
t.ok(REL is not None and REL["release"].startswith(W214["build_cuda"] + "."),
     "torch 2.14.1 pins the runtime of CUDA %s [framework_wheel_requires.csv]" % (REL or {}).get("release"), W214["requires"])
WANT13 = compiler_pins(REL)

# ---- machines: an RTX 5090 on driver 580 (CUDA 13.0), NVIDIA's mirror with CUDA 13.0.2 ------------------------------
DIR = t.tmpdir("toolkit")


def machine(name, gpu, driver):
    root = os.path.join(DIR, name)
    machines.build_spec({"os": "ubuntu", "driver": driver, "cuda": 13000, "libs": True, "gpus": [gpu]}, root)
    return root


RTX5090 = ("0000:01:00.0", "2b85", "0x030000", "nvidia", "12.0", 32607, "NVIDIA GeForce RTX 5090")
GTX1080 = ("0000:01:00.0", "1b80", "0x030000", "nvidia", "6.1", 8192, "NVIDIA GeForce GTX 1080")
ROOT13 = machine("r13", RTX5090, "580.95.05")
ROOT12 = machine("r12", GTX1080, "580.95.05")
M13, M12 = os.path.join(DIR, "m13"), os.path.join(DIR, "m12")
mkmirror.build(M13, cuda="13.0.2", cudnn="9.13.0", replace=gpu_doubles())
mkmirror.build(M12, replace=gpu_doubles())  # CUDA 12.6.3, cuDNN 9.5.1
# A component no wheel carries (cuda_gdb: cuda_wheel_components.csv names none), as NVIDIA's manifests have it.
_man = os.path.join(M13, "cuda", "redist", "redistrib_13.0.2.json")
with open(_man) as f:
    _m = json.load(f)
_m["cuda_gdb"] = dict(_m["cuda_nvrtc"], name="CUDA-GDB")
with open(_man, "w") as f:
    json.dump(_m, f)
HOME = os.path.join(DIR, "home")
os.makedirs(HOME)


def args(root, mirror, tag):
    return ["--root", root, "--mirror", "file://" + mirror, "--prefix", os.path.join(DIR, tag, "p"),
            "--state-dir", os.path.join(DIR, tag, "s"), "--cache-dir", os.path.join(DIR, tag, "c"),
            "--python", "3.11", "--env-tool", "venv", "--env-scope", "none"]


def cudaup(root, *a, timeout=600, env=None):
    e = base_env({"FAKE_NVIDIA_CONFIG": os.path.join(root, "fake-nvidia.conf"), "HOME": HOME,
                  "XDG_DATA_HOME": os.path.join(HOME, "data")})
    e.update(env or {})
    return run(list(a), env=e, timeout=timeout)


def plan(root, mirror, *a):
    r = cudaup(root, "plan", "--json", "--offline", *a, *args(root, mirror, "plan"))
    return r, r.json() or {}


def archives(d):
    return [x for x in d.get("downloads", []) if not x["url"].endswith((".tar.gz",)) or "cudnn" in x["component"]]


def cuda_dl(d):
    return [x for x in d.get("downloads", []) if x["component"] != "python"]


def toolkit_pins(d):
    return sorted(p for p in (d.get("framework") or {}).get("pip", []) if p.startswith("nvidia-"))


# ---- plans: the default, system, none, wheels ---------------------------------------------------------------------
FW = ["--framework", "pytorch==2.14"]
r, d = plan(ROOT13, M13, *FW)
tk = d.get("toolkit") or {}
DEFAULT_WHY = next((x for x in d.get("reasons", []) if x.startswith("Toolkit:")), "")
t.ok(r.rc == 0 and tk.get("kind") == "wheels" and tk.get("asked") is False and cuda_dl(d) == [] and
     toolkit_pins(d) == WANT13 and "the default where every framework brings its own CUDA" in DEFAULT_WHY and
     tk.get("reason") == DEFAULT_WHY,
     "plan: the default toolkit for PyTorch (its own CUDA wheels) is the compiler wheels, no NVIDIA archive, and the "
     "plan says so and why", (r.rc, tk, r.err[-400:]))
b = tk.get("bytes") or {}
t.ok(b.get("system") is not None and b["system"] > b.get("wheels", -1) and b.get("wheels") == b.get("none") and
     "--toolkit system would add NVIDIA's archives" in DEFAULT_WHY,
     "... with the bytes of each choice (toolkit.bytes) and what --toolkit system would add", (b, DEFAULT_WHY))
for fwa, why in ((["--framework", "none"], "no framework is planned that brings a CUDA of its own"),):
    r, d = plan(ROOT13, M13, *fwa)
    tk = d.get("toolkit") or {}
    t.ok(r.rc == 0 and tk.get("kind") == "system" and tk.get("asked") is False and cuda_dl(d) and why in tk.get("reason", ""),
         "plan %s: the default stays the system's, saying why" % " ".join(fwa), (r.rc, tk))
r, d = plan(ROOT13, M13, *FW, "--framework", "jax")
tk = d.get("toolkit") or {}
t.ok(r.rc == 0 and tk.get("kind") == "system" and tk.get("asked") is False and "several environments" in tk.get("reason", "")
     and not [p for e in d.get("environments", []) for f in e.get("frameworks", []) for p in f.get("pip", [])
              if p.startswith("nvidia-cuda-nvcc")] and len(d.get("environments", [])) == 2,
     "plan --framework pytorch --framework jax (two environments, one toolkit for both): the default is the system's, "
     "saying why, and neither environment gets the compiler wheels", (r.rc, tk, r.err[-300:]))
r, d = plan(ROOT13, M13, *FW, "--cudnn", "9.13")
tk = d.get("toolkit") or {}
t.ok(r.rc == 0 and tk.get("kind") == "system" and tk.get("asked") is False and d.get("cudnn") and
     "cannot serve this plan" in tk.get("reason", "") and "9.24" in tk.get("reason", ""),
     "plan --cudnn 9.13 (torch's wheel pins another cuDNN): the default is the system's, with cuDNN 9.13's archive, and "
     "the plan says why", (r.rc, tk))
r, d = plan(ROOT13, M13, *FW, "--toolkit", "system")
tk = d.get("toolkit") or {}
t.ok(r.rc == 0 and tk.get("kind") == "system" and tk.get("asked") is True and cuda_dl(d) and d["cuda"]["components"],
     "plan --toolkit system: NVIDIA's archives (%d downloads)" % len(cuda_dl(d)), (r.rc, tk, r.err[-400:]))
SYS_BYTES = sum(x["size"] or 0 for x in cuda_dl(d))
b = tk.get("bytes") or {}
t.ok(b.get("system") is not None and b["system"] - b.get("none", -1) == SYS_BYTES and b.get("wheels") == b.get("none"),
     "plan --json toolkit.bytes: system downloads the archives' %d bytes more than wheels and none" % SYS_BYTES, b)
t.ok(any(x.startswith("Toolkit: NVIDIA's archives under") and "--toolkit wheels" in x for x in d.get("reasons", [])),
     "the plan says which toolkit and why, naming the other choices", d.get("reasons"))
t.ok(r.rc == 0 and toolkit_pins(d) == [], "system: no compiler wheel in pip's install", toolkit_pins(d))

r, d = plan(ROOT13, M13, *FW, "--toolkit", "none")
tk = d.get("toolkit") or {}
t.ok(r.rc == 0 and tk.get("kind") == "none" and tk.get("asked") and cuda_dl(d) == [] and d["cuda"]["components"] == []
     and d.get("cudnn") is None, "plan --toolkit none: no archive, no cuDNN", (r.rc, tk, cuda_dl(d), r.err[-400:]))
steps = [(s["installer"], s["action"]) for s in d.get("steps", [])]
t.ok(r.rc == 0 and ("cuda", "install") not in steps and ("cudnn", "install") not in steps and ("envvars", "write") not in steps
     and toolkit_pins(d) == [], "none: no CUDA step, no env.sh, no compiler wheel", d.get("steps"))

r, d = plan(ROOT13, M13, *FW, "--toolkit", "wheels")
tk = d.get("toolkit") or {}
t.ok(r.rc == 0 and tk.get("kind") == "wheels" and cuda_dl(d) == [] and d.get("cudnn") is None,
     "plan --toolkit wheels: no NVIDIA archive, cuDNN's included", (r.rc, tk, r.err[-400:]))
t.eq(toolkit_pins(d), WANT13, "wheels: pip installs the compiler wheels of CUDA %s, the release of the runtime torch "
     "2.14.1 pins, at their versions in NVIDIA's manifest" % REL["release"], d.get("framework"))
t.ok(tk.get("release") == REL["release"] and tk.get("home") == "nvidia/cu13" and tk.get("view") is False and
     sorted(tk.get("wheels", [])) == WANT13, "toolkit.release, .home (nvidia/cu13: CUDA 13's one folder) and .wheels", tk)
cons = (d.get("framework") or {}).get("constraints", [])
t.ok(not any(c.split("==")[0] in {p.split("==")[0] for p in WANT13} and c not in WANT13 for c in cons),
     "no constraint holds a compiler wheel at another version than its pin", cons)
t.ok(any(s["installer"] == "pyenv" and "CUDA_HOME" in s["detail"] and "compiler wheels" in s["detail"]
         for s in d.get("steps", [])), "a pyenv step says the activation sets CUDA_HOME to the wheels' toolkit",
     d.get("steps"))
cccl = REL.get("toolkit_only", {}).get("nvidia-cuda-cccl")
t.ok(cccl and ("nvidia-cuda-cccl==" + cccl) in WANT13 and not any("cuda_cccl" in w for w in d.get("warnings", [])),
     "CUDA %s's cccl (%s: not held with the family, its pin equal to the manifest's in this release) is among them: "
     "torch's headers include thrust" % (REL["release"], cccl), d.get("warnings"))

# Never above the driver's CUDA: torch 2.15 (cu132) holds CUDA 13.2's runtime, driver 580 runs 13.0 natively.
r, d = plan(ROOT13, M13, "--framework", "pytorch==2.15", "--toolkit", "wheels")
tk = d.get("toolkit") or {}
W215 = fw_wheel("pytorch", "2.15.0")
REL215 = held_release({p: s for p, s in W215["requires"] if s.startswith("==")})
low = next((e for e in CAT["cuda_wheels"] if e["release"].startswith("13.0.")), None)
t.ok(r.rc == 0 and REL215 and not REL215["release"].startswith("13.0.") and tk.get("release") == low["release"] and
     toolkit_pins(d) == compiler_pins(low, runtime=False),
     "torch 2.15 (runtime of CUDA %s) on driver 580: the compiler of CUDA %s, the newest the driver runs natively; the "
     "framework's runtime stays" % ((REL215 or {}).get("release"), low["release"]), (r.rc, tk, toolkit_pins(d), r.err[-300:]))
t.ok(any("older than the CUDA" in w for w in d.get("warnings", [])), "... and says so", d.get("warnings"))

# ---- refusals (exit 2, one sentence naming what works) ------------------------------------------------------------
r, _ = plan(ROOT13, M13, "--framework", "none", "--toolkit", "wheels")
t.ok(r.rc == 2 and "--toolkit system" in r.err, "--framework none --toolkit wheels: refused, naming --toolkit system", r)
r, _ = plan(ROOT13, M13, *FW, "--toolkit", "wheels", "--components", "cuda_nvcc,cuda_gdb")
t.ok(r.rc == 2 and "cuda_gdb" in r.err and "--toolkit system" in r.err,
     "--components with a component no wheel carries (cuda_gdb): refused, naming --toolkit system", r)
r, d = plan(ROOT13, M13, *FW, "--toolkit", "wheels", "--components", "cuda_nvcc,cuda_nvrtc")
t.ok(r.rc == 0 and any(p.startswith("nvidia-cuda-nvrtc==") for p in toolkit_pins(d)),
     "--components with wheels for each: their wheels join the compiler's", (r.rc, toolkit_pins(d), r.err[-300:]))
r, _ = plan(ROOT13, M13, *FW, "--toolkit", "none", "--components", "cuda_nvcc")
t.ok(r.rc == 2 and "--toolkit none" in r.err, "--toolkit none with --components: refused", r)
r, _ = plan(ROOT13, M13, *FW, "--toolkit", "conda")
t.ok(r.rc == 2 and "system, wheels or none" in r.err, "--toolkit conda: refused with the three choices", r)
# TensorFlow 2.15.0: cudaup has read the [and-cuda] wheel of 2.15.1 alone, so a pin of that patch is planned over a
# system CUDA (12.2 and cuDNN 8.9 on this mirror), and the default toolkit is the system's.
M122 = os.path.join(DIR, "m122")
mkmirror.build(M122, cuda="12.2.2", cudnn="8.9.7")
r, d = plan(ROOT12, M122, "--framework", "tensorflow==2.15.0")
fws = d.get("frameworks") or []
if r.rc == 0 and fws and not all(f["bundled_runtime"] for f in fws):
    tk = d.get("toolkit") or {}
    t.ok(tk.get("kind") == "system" and tk.get("asked") is False and fws[0]["pip"] == ["tensorflow==2.15.0"] and
         "a framework planned loads CUDA from a system toolkit" in tk.get("reason", ""),
         "TensorFlow %s on the GTX 1080 (no [and-cuda] wheel of that patch read): the default stays the system's, "
         "saying why" % fws[0]["version"], tk)
else:
    t.ok(False, "TensorFlow 2.15.0's plan on the GTX 1080 loads a system CUDA", (r.rc, fws, r.err[-300:]))

# ---- TensorFlow alone with --toolkit wheels or none: tensorflow[and-cuda], as beside other frameworks ----------------
# An RTX 4090 on driver 580, NVIDIA's mirror with CUDA 12.6.3 (the default plan's system CUDA).  The releases whose
# [and-cuda] wheel's pins were read (framework_wheel_requires.csv); the newest final one is what an unpinned plan takes.
RTX4090 = ("0000:01:00.0", "2684", "0x030000", "nvidia", "8.9", 24564, "NVIDIA GeForce RTX 4090")
ROOT89 = machine("r89", RTX4090, "580.95.05")
TFROWS = sorted({e["version"] for e in CAT["framework_wheels"] if e["framework"] == "tensorflow"
                 and all(x.isdigit() for x in e["version"].split("."))}, key=vkey, reverse=True)
TFNEW = TFROWS[0]
W215 = fw_wheel("tensorflow", "2.15.1")  # pins its CUDA 12.2 wheels exactly
REL215 = held_release({p: s for p, s in W215["requires"] if s.startswith("==")})


def fw_of(d):
    return d.get("framework") or {}


for how, extra in (("--toolkit wheels", ["--toolkit", "wheels"]), ("no --toolkit (the default)", [])):
    r, d = plan(ROOT89, M12, "--framework", "tensorflow", *extra)
    tk = d.get("toolkit") or {}
    rel = next((e for e in CAT["cuda_wheels"] if e["release"] == tk.get("release")), None)
    steps = " ".join(x.get("detail", "") for x in d.get("steps", []))
    t.ok(r.rc == 0 and fw_of(d).get("pip", [None])[0] == "tensorflow[and-cuda]==" + TFNEW and
         fw_of(d).get("bundled_runtime") is True and tk.get("kind") == "wheels" and tk.get("asked") is bool(extra) and
         cuda_dl(d) == [] and rel is not None and toolkit_pins(d) == compiler_pins(rel) and
         "write no env.sh" in steps and "LD_LIBRARY_PATH)" not in steps and
         (extra or "the default where every framework brings its own CUDA" in tk.get("reason", "")),
         "RTX 4090, %s: TensorFlow alone is tensorflow[and-cuda]==%s (its CUDA as wheels), the compiler wheels of CUDA "
         "%s, no NVIDIA archive, no env.sh" % (how, TFNEW, tk.get("release")), (r.rc, fw_of(d).get("pip"), tk, r.err[-600:]))
for how, extra, why in (("--toolkit system", ["--toolkit", "system"], "as asked"),
                        ("--components", ["--components", "runtime,math"], "the default here: --components chooses parts of them")):
    r, d = plan(ROOT89, M12, "--framework", "tensorflow", *extra)
    tk = d.get("toolkit") or {}
    t.ok(r.rc == 0 and fw_of(d).get("pip") == ["tensorflow==" + fw_of(d).get("version", "?")] and
         fw_of(d).get("bundled_runtime") is False and tk.get("kind") == "system" and cuda_dl(d) and why in tk.get("reason", ""),
         "RTX 4090, %s: TensorFlow %s alone is tensorflow==X over NVIDIA's archives, saying why" % (how, fw_of(d).get("version")),
         (r.rc, fw_of(d), tk, r.err[-300:]))
# --cudnn none (no cuDNN archive): TensorFlow's [and-cuda] wheels bring cuDNN themselves, so it is the default's plan;
# a release without them loads cuDNN from the CUDA install, refused naming those that bring it (it was refused for
# every TensorFlow, "it loads cuDNN from the CUDA install", which the default no longer does).
r, d = plan(ROOT89, M12, "--framework", "tensorflow", "--cudnn", "none")
t.ok(r.rc == 0 and fw_of(d).get("pip", [None])[0] == "tensorflow[and-cuda]==" + TFNEW and cuda_dl(d) == [] and
     d.get("cudnn") is None, "--cudnn none: tensorflow[and-cuda]==%s, its cuDNN from pip, no archive" % TFNEW,
     (r.rc, fw_of(d).get("pip"), r.err[-400:]))
r, _ = plan(ROOT89, M12, "--framework", "tensorflow==2.13", "--cudnn", "none")
t.ok(r.rc == 2 and "--cudnn none" in r.err and TFNEW in r.err and r.err.count("\"event\":\"error\"") == 1,
     "--framework tensorflow==2.13 --cudnn none: exit 2, it loads cuDNN from the CUDA install; names the releases that "
     "bring their own", r)
# Driver 535 (CUDA 12.2): the compiler wheels never go above the driver's CUDA, but TensorFlow's newest [and-cuda] wheels
# ask pip for nvcc >=12.5.82: the two could not be installed together.  --toolkit wheels says so (exit 2); the default
# plans TensorFlow over a system CUDA instead, as before 2.15, saying why (not its CUDA twice, nor a pip conflict).
ROOT535 = machine("r535", RTX4090, "535.104.05")
NVCC_ASK = dict(fw_wheel("tensorflow", TFNEW)["requires"]).get("nvidia-cuda-nvcc-cu12", "")
r, _ = plan(ROOT535, M12, "--framework", "tensorflow", "--toolkit", "wheels")
t.ok(r.rc == 2 and "tensorflow[and-cuda]==" + TFNEW in r.err and "nvidia-cuda-nvcc-cu12" in r.err and
     "--toolkit system" in r.err and r.err.count("\"event\":\"error\"") == 1,
     "driver 535, --toolkit wheels: exit 2, TensorFlow %s's wheel asks nvcc %s, above the driver's CUDA 12.2" % (TFNEW, NVCC_ASK), r)
r, d = plan(ROOT535, M12, "--framework", "tensorflow")
tk = d.get("toolkit") or {}
t.ok(r.rc == 0 and fw_of(d).get("pip") == ["tensorflow==" + TFNEW] and fw_of(d).get("bundled_runtime") is False and
     tk.get("kind") == "system" and tk.get("asked") is False and cuda_dl(d) and
     "tensorflow[and-cuda]" in tk.get("reason", "") and "nvidia-cuda-nvcc-cu12" in tk.get("reason", "") and
     tk.get("reason") in d.get("reasons", []),
     "driver 535, no --toolkit: tensorflow==%s over NVIDIA's archives, the reason naming why the wheels could not serve"
     % TFNEW, (r.rc, fw_of(d).get("pip"), tk, r.err[-300:]))
r, d = plan(ROOT89, M12, "--framework", "tensorflow==2.15", "--toolkit", "wheels")
tk = d.get("toolkit") or {}
cons = fw_of(d).get("constraints", [])
t.ok(r.rc == 0 and fw_of(d).get("pip", [None])[0] == "tensorflow[and-cuda]==2.15.1" and REL215 is not None and
     tk.get("release") == REL215["release"] and toolkit_pins(d) == compiler_pins(REL215) and
     "nvidia-nvtx-cu12==%s.*" % REL215["wheels"]["nvidia-nvtx-cu12"] in cons,
     "--framework tensorflow==2.15 --toolkit wheels: 2.15.1's wheel pins CUDA %s's runtime, so the compiler wheels are "
     "that release's and the rest of its CUDA family is held there (as beside other frameworks)" % (REL215 or {}).get("release"),
     (r.rc, fw_of(d).get("pip"), cons, tk.get("release"), r.err[-600:]))
r, d = plan(ROOT89, M12, "--framework", "tensorflow", "--toolkit", "none")
tk = d.get("toolkit") or {}
t.ok(r.rc == 0 and fw_of(d).get("pip") == ["tensorflow[and-cuda]==" + TFNEW] and fw_of(d).get("bundled_runtime") is True
     and tk.get("kind") == "none" and cuda_dl(d) == [],
     "RTX 4090, --toolkit none: tensorflow[and-cuda]==%s alone, no compiler wheels, no archive" % TFNEW,
     (r.rc, fw_of(d).get("pip"), tk, r.err[-600:]))
for pin, kind in (("2.13", "wheels"), ("2.15.0", "none")):
    r, _ = plan(ROOT89, M12, "--framework", "tensorflow==" + pin, "--toolkit", kind)
    t.ok(r.rc == 2 and "tensorflow[and-cuda]" in r.err and "--toolkit system" in r.err and TFNEW in r.err and
         "2.15.1" in r.err and r.err.count("\"event\":\"error\"") == 1,
         "--framework tensorflow==%s --toolkit %s (no [and-cuda] wheel of it read): exit 2, naming --toolkit system and "
         "the releases whose [and-cuda] wheel runs here (%s to 2.15.1)" % (pin, kind, TFNEW), r)

# ---- --cudnn VER with wheels or none: the frameworks' nvidia-cudnn-cuNN wheel, pinned; no cuDNN archive ----------------
DNN13 = next(e["versions"] for e in CAT["cudnn_wheels"] if e["package"] == "nvidia-cudnn-cu13")  # PyPI's, newest first
TORCH_DNN = dict(W214["requires"])["nvidia-cudnn-cu13"].lstrip("=")  # torch 2.14.1 pins its cuDNN wheel exactly


def newest(prefix):
    return next(v for v in DNN13 if v == prefix or v.startswith(prefix + "."))


def dnn_pins(d):
    return [p for p in (d.get("framework") or {}).get("pip", []) if p.startswith("nvidia-cudnn-")]


torch_mm = ".".join(TORCH_DNN.split(".")[:2])
r, d = plan(ROOT13, M13, *FW, "--toolkit", "wheels", "--cudnn", torch_mm)
tk = d.get("toolkit") or {}
t.ok(r.rc == 0 and dnn_pins(d) == ["nvidia-cudnn-cu13==" + TORCH_DNN] and tk.get("cudnn") == dnn_pins(d)[0]
     and cuda_dl(d) == [] and any(x.startswith("cuDNN: nvidia-cudnn-cu13==") for x in d.get("reasons", [])),
     "--cudnn %s --toolkit wheels: pip gets nvidia-cudnn-cu13==%s (the one torch 2.14.1 admits), no archive, though the "
     "mirror holds no cuDNN %s archive" % (torch_mm, TORCH_DNN, torch_mm), (r.rc, dnn_pins(d), tk, r.err[-500:]))
# The same without --toolkit: the default is the wheels here (torch brings its CUDA), so the cuDNN asked is the wheel's,
# and no archive of it is looked for (it was refused, exit 3: the mirror has no cuDNN %s archive).
r, d = plan(ROOT13, M13, *FW, "--cudnn", torch_mm)
tk = d.get("toolkit") or {}
t.ok(r.rc == 0 and tk.get("kind") == "wheels" and tk.get("asked") is False and
     dnn_pins(d) == ["nvidia-cudnn-cu13==" + TORCH_DNN] and cuda_dl(d) == [],
     "--cudnn %s with the default toolkit (wheels here): the wheel pinned, no archive looked for" % torch_mm,
     (r.rc, dnn_pins(d), tk, r.err[-500:]))
JAXW = CAT["framework_wheels"]
r, d = plan(ROOT13, M13, "--framework", "jax", "--toolkit", "wheels", "--cudnn", "9.13")
cons = (d.get("framework") or {}).get("constraints", [])
t.ok(r.rc == 0 and dnn_pins(d) == ["nvidia-cudnn-cu13==" + newest("9.13")] and
     not any(c.startswith("nvidia-cudnn-cu13") for c in cons),
     "--cudnn 9.13 with JAX (its wheel asks a range): pinned at %s, the newest 9.13 wheel on PyPI; no other hold on it"
     % newest("9.13"), (r.rc, dnn_pins(d), cons, r.err[-500:]))
r, d = plan(ROOT13, M13, "--framework", "jax", "--toolkit", "none", "--cudnn", "9.14.0")
t.ok(r.rc == 0 and dnn_pins(d) == ["nvidia-cudnn-cu13==" + newest("9.14.0")] and cuda_dl(d) == [],
     "--cudnn 9.14.0 --toolkit none: the wheel pinned too", (r.rc, dnn_pins(d), r.err[-500:]))
r, _ = plan(ROOT13, M13, "--framework", "jax", "--toolkit", "wheels", "--cudnn", "9.5")
minors = sorted({".".join(v.split(".")[:2]) for v in DNN13}, key=vkey)
t.ok(r.rc == 2 and "no nvidia-cudnn-cu13 wheel of cuDNN 9.5" in r.err and all(m in r.err for m in minors)
     and "--toolkit system" in r.err and r.err.count("\"event\":\"error\"") == 1,
     "--cudnn 9.5 --toolkit wheels (no CUDA 13 wheel of it): exit 2, one sentence naming the cuDNN wheels there are "
     "(%s to %s) and --toolkit system" % (minors[0], minors[-1]), r)
r, _ = plan(ROOT13, M13, *FW, "--toolkit", "wheels", "--cudnn", "9.13")
t.ok(r.rc == 2 and ("nvidia-cudnn-cu13==" + TORCH_DNN) in r.err and "--toolkit system" in r.err,
     "--cudnn 9.13 with torch 2.14.1 (whose wheel pins cuDNN %s): exit 2, naming that pin" % TORCH_DNN, r)

# ---- installs into real venvs ----------------------------------------------------------------------------------
if not PY:
    t.skip("the installs into a venv", "no python3.11 on this machine")
    t.done()
ENVS = os.path.join(HOME, "data", "cudaup", "envs")


def bash(script):
    env = {"PATH": "/usr/bin:/bin", "HOME": HOME}
    return subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True, timeout=120)


def index(tag, wheels):
    return "file://" + mkindex.index_dir(os.path.join(DIR, tag + "-index"), wheels) + "/simple/"


def downloaded(tag):
    a = os.path.join(DIR, tag, "c", "archives")
    return sorted(os.listdir(a)) if os.path.isdir(a) else []


KERNEL = os.path.join(DIR, "k.cu")
with open(KERNEL, "w") as f:
    f.write("__global__ void k(float *x) { x[threadIdx.x] *= 2; }\n")

# CUDA 13: torch 2.14.1 (cu130) and the compiler wheels of its runtime's release, one folder.
WH = os.path.join(DIR, "wh13")
os.makedirs(WH)
pins13 = dict(p.split("==") for p in WANT13)
w13 = [mkwheels.wheel(WH, "torch", "2.14.1", arch=["sm_120"], cuda=W214["build_cuda"]),
       mkwheels.wheel(WH, "torchvision", "0.29.2", requires=["torch>=2.14.0"])] + mkcompiler.wheels(WH, pins13)
IDX13 = index("i13", w13)
r = cudaup(ROOT13, "install", "--yes", "--json", *FW, "--toolkit", "wheels", "--index-url", IDX13,
           *args(ROOT13, M13, "i13"), timeout=900)
ENV = os.path.join(ENVS, "cudaup-pytorch")
home13 = os.path.join(ENV, "lib", "python3.11", "site-packages", "nvidia", "cu13")
t.ok(r.rc == 0 and (r.json() or {}).get("toolkit") == "wheels" and os.access(os.path.join(home13, "bin", "nvcc"), os.X_OK),
     "install --toolkit wheels: pip put the compiler wheels' nvcc in ENV/.../nvidia/cu13/bin", (r.rc, r.out[-1500:], r.err[-1500:]))
t.ok(not os.path.exists(os.path.join(DIR, "i13", "p", "cuda-13.0")) and downloaded("i13") == [],
     "nothing from NVIDIA's mirror: no PREFIX/cuda-13.0, no archive in the cache", downloaded("i13"))
a = bash(". '%s/bin/activate'; echo \"H=$CUDA_HOME\"; command -v nvcc; nvcc --version | tail -1; "
         "nvcc -arch=sm_120 -o '%s/k13' '%s' && cuobjdump --list-elf '%s/k13'; deactivate; echo \"after=${CUDA_HOME-unset} $PATH\""
         % (ENV, DIR, KERNEL, DIR))
lines = a.stdout.splitlines()
t.ok(("H=" + home13) in lines and os.path.join(home13, "bin", "nvcc") in lines,
     "activation: CUDA_HOME is the wheels' nvidia/cu13, nvcc on PATH from there", a.stdout + a.stderr)
t.ok(any(l.endswith("V" + pins13["nvidia-cuda-nvcc"]) for l in lines) and any("sm_120" in l for l in lines),
     "the environment's nvcc (%s) compiles a kernel for the GPU (sm_120)" % pins13["nvidia-cuda-nvcc"], a.stdout + a.stderr)
t.ok("after=unset /usr/bin:/bin" in lines, "deactivate takes CUDA_HOME and the wheels' bin/ away again", lines[-1:])
rec = {}
try:
    with open(os.path.join(DIR, "i13", "s", "pyenv.json")) as f:
        rec = json.load(f)
except OSError:
    pass
t.ok(rec.get("toolkit") == "wheels" and rec.get("cuda_home") == home13,
     "STATE/pyenv.json records the toolkit and CUDA_HOME inside the environment", rec)
r = cudaup(ROOT13, "list", *[x for x in args(ROOT13, M13, "i13") if x not in ("--python", "3.11", "--env-tool", "venv", "--env-scope", "none")])
envline = next((l for l in r.out.splitlines() if ENV in l), "")
t.ok(r.rc == 0 and "for its own CUDA compiler wheels (--toolkit wheels)" in envline and "cuda-13.0" not in envline,
     "list: the environment's CUDA is its own compiler wheels, not a PREFIX/cuda-13.0 that is not there", r.out)
held = open(os.path.join(ENV, "cudaup-constraints.txt")).read() if os.path.exists(os.path.join(ENV, "cudaup-constraints.txt")) else ""
t.ok(all(("%s==%s" % (p, v)) in held for p, v in pins13.items()), "the hold keeps the compiler at its pins", held)
# A stand-in nvcc says no where a part is missing: without the nvvm wheel it fails (the check above can fail).
nv = os.path.join(home13, "nvvm", "bin", "cicc")
os.rename(nv, nv + ".away")
a = bash(". '%s/bin/activate'; nvcc -arch=sm_120 -o '%s/k13b' '%s'" % (ENV, DIR, KERNEL))
os.rename(nv + ".away", nv)
t.ok(a.returncode != 0 and "cicc" in a.stderr, "the stand-in nvcc fails without nvvm's cicc, as the real one", a)

# CUDA 12: the GTX 1080 takes torch 2.14's cu126 build; the wheels keep a folder each, cudaup links a view.
r, d = plan(ROOT12, M12, "--framework", "pytorch", "--toolkit", "wheels")
tk = d.get("toolkit") or {}
pins12 = dict(p.split("==") for p in toolkit_pins(d))
t.ok(r.rc == 0 and tk.get("view") is True and tk.get("home") == "cudaup-toolkit" and
     {"nvidia-cuda-nvcc-cu12", "nvidia-cuda-runtime-cu12"} <= set(pins12),
     "CUDA 12 (cu126 build): the -cu12 compiler wheels, CUDA_HOME a view inside the environment", (r.rc, tk, r.err[-300:]))
rel12 = next((e for e in CAT["cuda_wheels"] if e["release"] == tk.get("release")), {})
t.eq(sorted(toolkit_pins(d)), compiler_pins(rel12) if rel12 else None,
     "... at their versions in NVIDIA's manifest of CUDA %s" % tk.get("release"))
WH12 = os.path.join(DIR, "wh12")
os.makedirs(WH12)
w12 = [mkwheels.wheel(WH12, "torch", "2.14.1+cu126", arch=["sm_60", "sm_70"], cuda="12.6"),
       mkwheels.wheel(WH12, "torchvision", "0.29.2+cu126", requires=["torch>=2.14.0"])] + mkcompiler.wheels(WH12, pins12)
IDX12 = index("i12", w12)
ENV12 = os.path.join(DIR, "envs12")
r = cudaup(ROOT12, "install", "--yes", "--json", "--framework", "pytorch", "--toolkit", "wheels", "--index-url", IDX12,
           "--env-dir", ENV12, *args(ROOT12, M12, "i12"), timeout=900)
E12 = os.path.join(ENV12, "cudaup-pytorch")
view = os.path.join(E12, "cudaup-toolkit")
t.ok(r.rc == 0 and os.path.islink(os.path.join(view, "bin", "nvcc")) and os.path.isdir(os.path.join(view, "nvvm")) and
     os.path.exists(os.path.join(view, "include", "cuda_runtime.h")) and os.path.exists(os.path.join(view, "lib64")),
     "install (CUDA 12): the view ENV/cudaup-toolkit links nvcc, nvvm, the runtime's headers, lib64",
     (r.rc, r.err[-1500:], sorted(os.listdir(view)) if os.path.isdir(view) else None))
a = bash(". '%s/bin/activate'; echo \"H=$CUDA_HOME\"; nvcc -arch=sm_61 -o '%s/k12' '%s' && cuobjdump --list-elf '%s/k12'"
         % (E12, DIR, KERNEL, DIR))
t.ok(("H=" + view) in a.stdout.splitlines() and "sm_61" in a.stdout,
     "activation: CUDA_HOME is the view, and its nvcc compiles for the GTX 1080 (sm_61)", a.stdout + a.stderr)
t.ok(downloaded("i12") == [], "nothing from NVIDIA's mirror", downloaded("i12"))

# Scope conda (the conda stand-in): activate.d sets CUDA_HOME and PATH to the wheels' toolkit, deactivate.d puts back
# what was there; env.sh is not sourced (there is none).
CB = os.path.join(DIR, "cbin")
os.makedirs(CB)
shutil.copy(os.path.join(SRCDIR, "tests", "fakes", "conda-standin"), os.path.join(CB, "conda"))
CROOT = os.path.join(DIR, "miniconda")
a = [x for x in args(ROOT13, M13, "ic") if x not in ("venv", "none", "--env-tool", "--env-scope")]
r = cudaup(ROOT13, "install", "--yes", *FW, "--toolkit", "wheels", "--index-url", IDX13, "--env-tool", "conda",
           "--env-name", "cu", "--env-scope", "conda", *a, env={"PATH": CB + ":/usr/bin:/bin", "CONDA_STANDIN_ROOT": CROOT},
           timeout=900)
CE = os.path.join(CROOT, "envs", "cu")
chome = os.path.join(CE, "lib", "python3.11", "site-packages", "nvidia", "cu13")
sh = subprocess.run(["sh", "-eu", "-c", "CUDA_HOME=/before; export CUDA_HOME; PATH=/usr/bin:/bin; "
                     ". '%s/etc/conda/activate.d/cudaup.sh'; printf '%%s|%%s|' \"$CUDA_HOME\" \"$PATH\"; nvcc --version | tail -1; "
                     ". '%s/etc/conda/deactivate.d/cudaup.sh'; printf '%%s|%%s' \"$CUDA_HOME\" \"$PATH\"" % (CE, CE)],
                    capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"})
t.ok(r.rc == 0 and sh.stdout.startswith("%s|%s/bin:/usr/bin:/bin|" % (chome, chome)) and
     sh.stdout.endswith("\n/before|/usr/bin:/bin") and ("V" + pins13["nvidia-cuda-nvcc"]) in sh.stdout,
     "conda: activate.d points CUDA_HOME and PATH at the wheels' nvidia/cu13 (its nvcc runs), deactivate.d puts back "
     "the old CUDA_HOME and PATH (sh -eu)", (r.rc, sh.stdout, sh.stderr, r.err[-800:]))

# ---- fish, and one environment after another --------------------------------------------------------------------
# fish's activation (the venv's bin/activate.fish, conda's activate.d/cudaup.fish) does what bash's does, and its
# deactivation puts back the CUDA_HOME that was there; activating a second environment without deactivating the first
# (a venv's activate does not run the wrapped deactivate; `conda activate --stack`) leaves nothing of the first's.
FISH = shutil.which("fish", path="/usr/bin:/bin")
BIN13, BIN12 = os.path.join(home13, "bin"), os.path.join(view, "bin")
HOLD13, HOLD12 = os.path.join(ENV, "cudaup-constraints.txt"), os.path.join(E12, "cudaup-constraints.txt")


def fish(script):
    env = {"PATH": "/usr/bin:/bin", "HOME": HOME, "XDG_CONFIG_HOME": os.path.join(HOME, "fishcfg"),
           "XDG_DATA_HOME": os.path.join(HOME, "fishdata")}
    return subprocess.run([FISH, "--no-config", "-c", script], env=env, capture_output=True, text=True, timeout=120)


if not FISH:
    t.skip("fish's activation with --toolkit wheels (4 checks)", "fish is not installed (scripts/bootstrap --test adds it)")
else:
    for tag, env_, home_ in (("CUDA 13, nvidia/cu13", ENV, home13), ("CUDA 12, the view", E12, view)):
        a = fish("set -gx CUDA_HOME /before; source '%s/bin/activate.fish'; echo \"H=$CUDA_HOME\"; command -v nvcc; "
                 "echo \"PC=$PIP_CONSTRAINT\"; deactivate; echo \"after=$CUDA_HOME\"; echo \"P=$PATH\"; "
                 "set -q PIP_CONSTRAINT; or echo no-pc; functions -q deactivate; or echo no-deactivate" % env_)
        lines = a.stdout.splitlines()
        t.ok(("H=" + home_) in lines and os.path.join(home_, "bin", "nvcc") in lines and
             ("PC=" + os.path.join(env_, "cudaup-constraints.txt")) in lines and "after=/before" in lines and
             "P=/usr/bin:/bin" in lines and "no-pc" in lines and "no-deactivate" in lines,
             "fish (%s): the venv's activate.fish points CUDA_HOME, PATH and the hold at the environment's; "
             "deactivate puts CUDA_HOME and PATH back and leaves no function behind" % tag, (a.stdout, a.stderr[-800:]))
    a = fish("set -gx CUDA_HOME /before; set -gx PATH /usr/bin /bin; source '%s/etc/conda/activate.d/cudaup.fish'; "
             "echo \"H=$CUDA_HOME\"; echo \"P=$PATH\"; nvcc --version | tail -1; "
             "source '%s/etc/conda/deactivate.d/cudaup.fish'; echo \"after=$CUDA_HOME\"; echo \"P=$PATH\"" % (CE, CE))
    lines = a.stdout.splitlines()
    t.ok(lines[:2] == ["H=" + chome, "P=%s/bin:/usr/bin:/bin" % chome] and ("V" + pins13["nvidia-cuda-nvcc"]) in a.stdout
         and lines[-2:] == ["after=/before", "P=/usr/bin:/bin"],
         "fish (conda): activate.d/cudaup.fish sets CUDA_HOME and PATH to the wheels' nvidia/cu13, deactivate.d/cudaup.fish "
         "puts back the CUDA_HOME that was there", (a.stdout, a.stderr[-800:]))
    a = fish("source '%s/bin/activate.fish'; source '%s/bin/activate.fish'; echo \"H=$CUDA_HOME\"; command -v nvcc; "
             "echo \"P=$PATH\"; echo \"PC=$PIP_CONSTRAINT\"; deactivate; echo \"after=$CUDA_HOME\"; echo \"P=$PATH\"" % (ENV, E12))
    lines = a.stdout.splitlines()
    t.ok(lines[:4] == ["H=" + view, os.path.join(BIN12, "nvcc"), "P=%s:%s/bin:/usr/bin:/bin" % (BIN12, E12), "PC=" + HOLD12]
         and lines[4:] == ["after=", "P=/usr/bin:/bin"],
         "fish: the CUDA 13 venv, then the CUDA 12 one: CUDA_HOME, nvcc, PATH and the hold are the second's alone; "
         "deactivate leaves none of either", (a.stdout, a.stderr[-800:]))
a = bash(". '%s/bin/activate'; . '%s/bin/activate'; echo \"H=$CUDA_HOME\"; command -v nvcc; echo \"P=$PATH\"; "
         "echo \"PC=$PIP_CONSTRAINT\"; deactivate; echo \"after=${CUDA_HOME-unset} $PATH ${PIP_CONSTRAINT-unset}\""
         % (ENV, E12))
lines = a.stdout.splitlines()
t.ok(lines[:4] == ["H=" + view, os.path.join(BIN12, "nvcc"), "P=%s:%s/bin:/usr/bin:/bin" % (BIN12, E12), "PC=" + HOLD12]
     and lines[4:] == ["after=unset /usr/bin:/bin unset"],
     "bash: the CUDA 13 venv, then the CUDA 12 one without deactivate: CUDA_HOME, nvcc, PATH and the hold are the "
     "second's alone (not the first's CUDA_HOME with neither nvcc); deactivate leaves none of either",
     (a.stdout, a.stderr[-800:]))
sh = subprocess.run(["sh", "-eu", "-c", "PATH=/usr/bin:/bin; CUDA_HOME=/before; export CUDA_HOME; "
                     ". '%s/etc/conda/activate.d/cudaup.sh'; . '%s/bin/activate'; printf '%%s|%%s|' \"$CUDA_HOME\" \"$PATH\"; "
                     "command -v nvcc" % (CE, E12)], capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"})
t.eq(sh.stdout, "%s|%s:%s/bin:/usr/bin:/bin|%s\n" % (view, BIN12, E12, os.path.join(BIN12, "nvcc")),
     "sh -eu: a conda environment's wheels, then a venv's over it (as `conda activate --stack` leaves them): CUDA_HOME "
     "and PATH are the venv's alone")

# TensorFlow alone, --toolkit wheels: tensorflow[and-cuda]==2.15.1 and its CUDA 12.2 wheels (stand-ins at its wheel's own
# pins) with the compiler wheels of that release; the view, no archive, no env.sh.
r, d = plan(ROOT89, M12, "--framework", "tensorflow==2.15", "--toolkit", "wheels")
pinsTF = dict(p.split("==") for p in toolkit_pins(d))
WHT = os.path.join(DIR, "whtf")
os.makedirs(WHT)
wtf = [mkwheels.wheel(WHT, "tensorflow", "2.15.1", arch=["sm_80", "sm_89", "compute_90"], cuda="12.2", cudnn="8.9",
                      requires=["%s%s; extra == 'and-cuda'" % (p, s) for p, s in W215["requires"]])]
wtf += mkcompiler.wheels(WHT, pinsTF)
wtf += [mkwheels.wheel(WHT, p, s.lstrip("=")) for p, s in W215["requires"] if p not in pinsTF]
IDXTF = index("itf", wtf)
ENVTF = os.path.join(DIR, "envstf")
r = cudaup(ROOT89, "install", "--yes", "--json", "--framework", "tensorflow==2.15", "--toolkit", "wheels",
           "--index-url", IDXTF, "--env-dir", ENVTF, *args(ROOT89, M12, "itf"), timeout=900)
ETF = os.path.join(ENVTF, "cudaup-tensorflow")
vtf = os.path.join(ETF, "cudaup-toolkit")
a = bash(". '%s/bin/activate'; echo \"H=$CUDA_HOME\"; python -c 'import tensorflow; print(\"tf\", tensorflow.__version__)'; "
         "pip list --format=freeze 2>/dev/null | grep -i '^nvidia-cublas-cu12=='; nvcc -arch=sm_89 -o '%s/ktf' '%s' && "
         "cuobjdump --list-elf '%s/ktf'" % (ETF, DIR, KERNEL, DIR))
t.ok(r.rc == 0 and ("H=" + vtf) in a.stdout and "tf 2.15.1" in a.stdout and
     ("nvidia-cublas-cu12==" + dict(W215["requires"])["nvidia-cublas-cu12"].lstrip("=")) in a.stdout and "sm_89" in a.stdout
     and downloaded("itf") == [] and not os.path.exists(os.path.join(DIR, "itf", "s", "env.sh")),
     "install TensorFlow 2.15 --toolkit wheels: tensorflow[and-cuda] 2.15.1 with its CUDA wheels from the index, CUDA_HOME "
     "the view of the CUDA %s compiler wheels, nvcc compiles for the RTX 4090 (sm_89); no archive, no env.sh"
     % (REL215 or {}).get("release"), (r.rc, a.stdout, a.stderr[-600:], downloaded("itf"), r.err[-1500:]))
# CUDA 12's view checked and repaired as CUDA 13's one folder is (test_toolkit_maint): install's own checks, then
# verify after the view's nvcc link is gone, then repair.
ck = lambda doc, name: next((c for c in (doc or {}).get("checks", []) if c["name"] == name), None)  # noqa: E731
tk = ck((r.json() or {}).get("verify"), "toolkit") or {}
t.ok(tk.get("status") == "pass" and vtf in tk.get("detail", "") and "sm_89" in tk.get("detail", ""),
     "install TensorFlow 2.15 --toolkit wheels: its checks compile with the view's nvcc for sm_89", tk)
os.unlink(os.path.join(vtf, "bin", "nvcc"))
VARGS = args(ROOT89, M12, "itf")[:10]  # the machine, mirror and folders: what verify and repair take
r = cudaup(ROOT89, "verify", "--json", *VARGS)
tk = ck(r.json(), "toolkit") or {}
t.ok(r.rc == 4 and tk.get("status") == "fail" and "repair" in tk.get("fix", ""),
     "verify: the view's nvcc gone, the toolkit check fails and names repair", (r.rc, tk))
r = cudaup(ROOT89, "repair", "--yes", "--json", *VARGS, timeout=900)
v = cudaup(ROOT89, "verify", "--json", *VARGS)
t.ok(r.rc == 0 and os.access(os.path.join(vtf, "bin", "nvcc"), os.X_OK) and
     (ck(v.json(), "toolkit") or {}).get("status") == "pass",
     "repair: the view's nvcc is back, and verify passes the toolkit", (r.rc, r.err[-800:], v.out[-600:]))

# none: the framework alone.
ENVN = os.path.join(DIR, "envsn")
r = cudaup(ROOT13, "install", "--yes", "--json", *FW, "--toolkit", "none", "--index-url", IDX13, "--env-dir", ENVN,
           *args(ROOT13, M13, "in"), timeout=900)
EN = os.path.join(ENVN, "cudaup-pytorch")
a = bash(". '%s/bin/activate'; echo \"H=${CUDA_HOME-unset}\"; command -v nvcc || echo no-nvcc" % EN)
t.ok(r.rc == 0 and os.path.exists(os.path.join(EN, "bin", "python")) and "H=unset" in a.stdout and
     "no-nvcc" in a.stdout and downloaded("in") == [] and not os.path.exists(os.path.join(DIR, "in", "s", "env.sh")),
     "install --toolkit none: the framework alone; no CUDA_HOME, no nvcc, no archive, no env.sh",
     (r.rc, a.stdout, downloaded("in"), r.err[-800:]))
t.done()
