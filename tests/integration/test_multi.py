#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Several frameworks in one environment (issue 36): the plans on the new user's machines (PyTorch + JAX
on an RTX 4090, TensorFlow + PyTorch on a GTX 1080, all three on an H100), the clashes named as pip would
name them and what works instead, one environment per framework, bad lists refused, and an install from
stand-in wheels whose Requires-Dist are the real ones (data/compat/framework_wheel_requires.csv, as the
catalog flattens it): pip itself refuses the ResolutionImpossible set and lays two cuDNN wheels over one
file for the two-cuDNN set, while the plan cudaup makes installs one cuDNN and verify proves what loads.
Every expectation names the data row it comes from; every pip call is held to the wheelhouse."""
import csv
import glob
import json
import os
import re
import shutil
import subprocess
import sys

import cutest
from cutest import SRCDIR, Tap


def run(args, *a, **kw):
    """cutest.run with --toolkit system on plan and install: this file is about the CUDA wheels several frameworks hold
    together and the system CUDA beside them (env.sh, the driver it needs); the toolkit's default, the compiler wheels
    for frameworks that bring their own CUDA, is test_toolkit's."""
    if args and args[0] in ("plan", "install"):
        args = [args[0], "--toolkit", "system"] + list(args[1:])
    return cutest.run(args, *a, **kw)

sys.path.insert(0, os.path.join(SRCDIR, "tests", "fixtures"))
import machines  # noqa: E402
import mkmirror  # noqa: E402
import mkwheels  # noqa: E402

t = Tap()
MIRROR = "file://" + os.path.join(SRCDIR, "tests", "fixtures", "nvidia")
with open(os.path.join(SRCDIR, "data", "catalog.json")) as f:
    CAT = json.load(f)
GTX1080 = ("1b80", "6.1", "NVIDIA GeForce GTX 1080")
RTX4090 = ("2684", "8.9", "NVIDIA GeForce RTX 4090")
H100 = ("2330", "9.0", "NVIDIA H100 80GB HBM3")


def wheel_row(framework, version, extra=""):
    """The catalog's framework_wheels row (built from framework_wheel_requires.csv) of a release."""
    for e in CAT["framework_wheels"]:
        if e["framework"] == framework and e["version"] == version and e["extra"] == extra:
            return e
    return None


def req(row, package):
    return dict((p, s) for p, s in row["requires"]).get(package)


def companion(torch, package):
    """The catalog's pytorch_companions row (pytorch_companions.csv, read in the companions' wheels on PyPI)."""
    return next((e for e in CAT["pytorch_companions"] if e["torch"] == torch and e["package"] == package), None)


def companion_pins(doc):
    """{package: requirement} of the torchvision and torchaudio requirements a plan hands pip."""
    return {q.split("==")[0].split(">")[0].split("<")[0]: q for f in doc.get("frameworks", []) for q in f.get("pip", [])
            if q.startswith(("torchvision", "torchaudio"))}


_roots = {}


def machine(gpu, driver):
    if (gpu, driver) not in _roots:
        root = os.path.join(t.tmpdir("m"), "root")
        machines.build_spec({"os": "ubuntu", "driver": driver, "cuda": 12080, "libs": True,
                             "gpus": [("0000:01:00.0", gpu[0], "0x030000", "nvidia", gpu[1], 8192, gpu[2])]}, root)
        _roots[(gpu, driver)] = root
    return _roots[(gpu, driver)]


def plan(gpu, driver, *args):
    root = machine(gpu, driver)
    r = run(["plan", "--json", "--root", root, "--mirror", MIRROR, "--cache-dir", t.tmpdir("c"), "--prefix", "/opt/cu",
             "--state-dir", "/var/tmp/st", "--env-tool", "venv", "--python", "3.12"] + list(args),
            env={"FAKE_NVIDIA_CONFIG": os.path.join(root, "fake-nvidia.conf")})
    return r, r.json() or {}


def fws(doc):
    return [(f["name"], f["version"]) for f in doc.get("frameworks", [])]


def one_cudnn(doc):
    cons = (doc.get("framework") or {}).get("constraints") or []
    return [c for c in cons if c.startswith("nvidia-cudnn-")]


# ---- PyTorch + JAX on an RTX 4090 -------------------------------------------------------------------------
# Driver 580 runs CUDA 13: torch 2.15.0's PyPI wheel (cu132, by minor-version compatibility) pins
# nvidia-cudnn-cu13==9.26.0.51, which jax[cuda13]'s plugin range (>=9.12.0.46,<10) takes.
r, d = plan(RTX4090, "580.95.05", "--framework", "pytorch,jax")
t.ok(r.rc == 0 and fws(d)[:1] == [("pytorch", "2.15.0")] and [n for n, _ in fws(d)] == ["pytorch", "jax"],
     "RTX 4090, driver 580: PyTorch 2.15.0 (the newest torch with read pins, cu132) first, then JAX", r)
jax_v = fws(d)[1][1] if len(fws(d)) > 1 else None
jrow = wheel_row("jax", jax_v or "", "cuda13")
t.eq(one_cudnn(d), ["nvidia-cudnn-cu13==9.26.0.51"],
     "one cuDNN, torch 2.15.0's pin [framework_wheel_requires.csv torch 2.15.0 nvidia-cudnn-cu13 ==9.26.0.51]")
t.ok(jrow is not None and req(jrow, "nvidia-cudnn-cu13") == "<10.0,>=9.12.0.46",
     "JAX %s (cuda13) asks for nvidia-cudnn-cu13<10.0,>=9.12.0.46, which takes 9.26.0.51 [jax-cuda13-plugin rows]" % jax_v)
t.eq(d.get("framework"), d.get("frameworks", [None])[0], "plan's framework stays the first of frameworks[]")
t.eq((d.get("environment") or {}).get("name"), "cudaup-pytorch-jax", "the shared environment is named cudaup-pytorch-jax")
steps = [s["detail"] for s in d.get("steps", []) if s["installer"] == "framework"]
t.ok(any("torch==2.15.0" in s and "download.pytorch.org/whl/cu132" in s for s in steps) and
     any(s.startswith("pip install jax[cuda13]==") and "download.pytorch.org" not in s for s in steps),
     "PyTorch keeps its own index (cu132); JAX comes from pip's own", steps)
# PyTorch 2.15.0, the newest: neither companion is built for it (torchvision 0.29.2 asks torch>=2.14.0 and is built
# for 2.14.1; torchaudio 2.11.1 for 2.11): both left out, said so, never installed unpinned; its CUDA family is held at
# CUDA 13.2.2, the release of the runtime it pins (13.2.86).
t.ok(companion_pins(d) == {} and companion("2.15.0", "torchvision")["version"] is None and
     any(x.startswith("Beside PyTorch 2.15.0: no torchvision") and "no torchaudio" in x for x in d.get("reasons", [])),
     "PyTorch 2.15.0: no torchvision or torchaudio is built for it, so none is installed, and the reasons say so "
     "[pytorch_companions.csv 2.15.0]", (companion_pins(d), d.get("reasons")))
R1322 = next(e for e in CAT["cuda_wheels"] if e["release"] == "13.2.2")
t.ok(all("%s==%s.*" % (pk, R1322["wheels"][pk]) in d["framework"]["constraints"]
         for pk in ("nvidia-nvjitlink", "nvidia-cuda-nvcc", "nvidia-nvvm") if pk in R1322["wheels"]),
     "PyTorch 2.15.0 + JAX: nvJitLink, nvcc and nvvm held at CUDA 13.2.2's releases [cuda_wheel_components.csv 13.2.2]",
     d["framework"]["constraints"])
# nvidia-nvshmem-cu13 (torch 2.15.0 pins it) asks for nvidia-cuda-cccl with no bound: pip took 13.3.5 beside the
# 13.2.86 runtime while the reason said every wheel was held.  cuda-toolkit 13.2.2 pins it at the manifest's 13.2.86
# (the catalog's toolkit_only of that release), so it is held with the family.
t.ok(R1322.get("toolkit_only", {}).get("nvidia-cuda-cccl") == "13.2.86" and
     "nvidia-cuda-cccl==13.2.86.*" in d["framework"]["constraints"],
     "PyTorch 2.15.0 + JAX: nvidia-cuda-cccl held at CUDA 13.2.2's 13.2.86 with the family "
     "[cuda_wheel_components.csv; redistrib_13.2.2.json cuda_cccl 13.2.86]", d["framework"]["constraints"])
t.ok(any(x.startswith("Every nvidia-* wheel of CUDA 13.2.2 is held") for x in d.get("reasons", [])) and
     not any("Not held:" in x for x in d.get("reasons", [])),
     "the reason says every wheel of CUDA 13.2.2 is held, and it is", d.get("reasons"))
# Where the data vouches no version of a wheel of the family in the release held (CUDA 13.3's cccl, whose cuda-toolkit
# pin left the manifest's): a catalog in which 13.2.2's cccl is so.  Not held, and the reason says which and why.
UNHELD = os.path.join(t.tmpdir("cat"), "catalog.json")
alt = json.loads(json.dumps(CAT))
for e in alt["cuda_wheels"]:
    if e["release"] == "13.2.2":
        e["toolkit_only"].pop("nvidia-cuda-cccl")
        e["unheld"] = {"nvidia-cuda-cccl": "cuda_cccl"}
with open(UNHELD, "w") as f:
    json.dump(alt, f)
root = machine(RTX4090, "580.95.05")
r = run(["plan", "--json", "--root", root, "--mirror", MIRROR, "--cache-dir", t.tmpdir("c"), "--prefix", "/opt/cu",
         "--state-dir", "/var/tmp/st", "--env-tool", "venv", "--python", "3.12", "--framework", "pytorch,jax"],
        env={"FAKE_NVIDIA_CONFIG": os.path.join(root, "fake-nvidia.conf"), "CUDAUP_CATALOG": UNHELD})
du = r.json() or {}
cu = (du.get("framework") or {}).get("constraints") or []
fam = [x for x in du.get("reasons", []) if "nvidia-* wheel" in x]
t.ok(r.rc == 0 and "nvidia-nvjitlink==%s.*" % R1322["wheels"]["nvidia-nvjitlink"] in cu and
     not any(c.startswith("nvidia-cuda-cccl") for c in cu) and len(fam) == 1 and
     not fam[0].startswith("Every") and "Not held: nvidia-cuda-cccl (cuda_cccl)." in fam[0] and
     "cuda-toolkit 13.2.2" in fam[0],
     "a wheel of the family with no version vouched in the release held: the rest held, it is not, and the reason "
     "names it and why instead of saying every wheel is held", (r.rc, cu, fam, du.get("error")))
# From CUDA 13.3 on NVIDIA's manifests have no cuda_cccl and cuda-toolkit pins nvidia-cuda-cccl in a numbering of its
# own (13.3.1: ==13.3.3.4.1.*); that pin is the one source of its version, so a CUDA 13.3+ hold holds cccl at it, and
# says which source vouched it.  No torch on PyPI pins a 13.3 runtime yet: a catalog whose torch 2.15.0 wheel pins the
# wheels of CUDA 13.3.1 (as cuda-toolkit 13.3.1 does), on driver 610.43.02, which runs 13.3 natively.
R1331 = next(e for e in CAT["cuda_wheels"] if e["release"] == "13.3.1")
TKPINS = os.path.join(SRCDIR, "data", "compat", "cuda_toolkit_pins.csv")
TKPIN = None
if os.path.exists(TKPINS):
    with open(TKPINS, newline="") as f:
        TKPIN = next((x for x in csv.DictReader(f) if x["cuda_release"] == "13.3.1" and
                      x["package"] == "nvidia-cuda-cccl"), None)
C1331 = os.path.join(t.tmpdir("cat1331"), "catalog.json")
alt = json.loads(json.dumps(CAT))
for e in alt["framework_wheels"]:
    if e["framework"] == "pytorch" and e["version"] == "2.15.0":
        e["requires"] = [[pk, ("<14,>=%s" if sp.startswith("<") else "==%s.*") % R1331["wheels"][pk]]
                         if pk in R1331["wheels"] else [pk, sp] for pk, sp in e["requires"]]
with open(C1331, "w") as f:
    json.dump(alt, f)
root = machine(RTX4090, "610.43.02")
for toolkit in ([], ["--toolkit", "wheels"]):
    r = run(["plan", "--json", "--root", root, "--mirror", MIRROR, "--cache-dir", t.tmpdir("c"), "--prefix", "/opt/cu",
             "--state-dir", "/var/tmp/st", "--env-tool", "venv", "--python", "3.12", "--framework", "pytorch,jax"] +
            toolkit, env={"FAKE_NVIDIA_CONFIG": os.path.join(root, "fake-nvidia.conf"), "CUDAUP_CATALOG": C1331})
    d3 = r.json() or {}
    cu = (d3.get("framework") or {}).get("constraints") or []
    fam = [x for x in d3.get("reasons", []) if "nvidia-* wheel" in x]
    pin = "nvidia-cuda-cccl==%s.*" % (TKPIN or {}).get("version")
    if not toolkit:
        t.ok(r.rc == 0 and TKPIN is not None and TKPIN["specifier"] == "==13.3.3.4.1.*" and
             TKPIN["manifest_version"] == "" and "nvidia-cuda-runtime==%s.*" % R1331["wheels"]["nvidia-cuda-runtime"] in cu
             and pin in cu and len(fam) == 1 and fam[0].startswith("Every nvidia-* wheel of CUDA 13.3.1 is held") and
             "Held at NVIDIA's cuda-toolkit 13.3.1 pins instead, where NVIDIA's manifest of that release gives no "
             "version: %s." % pin in fam[0] and "Not held" not in fam[0],
             "a CUDA 13.3.1 hold holds nvidia-cuda-cccl at cuda-toolkit 13.3.1's pin, and the reason says cuda-toolkit "
             "vouched it [cuda_toolkit_pins.csv 13.3.1 nvidia-cuda-cccl ==13.3.3.4.1.*; redistrib_13.3.1.json: no "
             "cuda_cccl]", (r.rc, TKPIN, cu, fam, d3.get("error")))
        t.ok(R1331.get("vouched_by", {}).get("nvidia-cuda-cccl") == "cuda-toolkit" and
             R1331.get("toolkit_only", {}).get("nvidia-cuda-cccl") == "13.3.3.4.1" and not R1331.get("unheld"),
             "the catalog says which source vouched CUDA 13.3.1's cccl (vouched_by: cuda-toolkit), and leaves no wheel "
             "of it unheld", R1331)
    else:
        tk = d3.get("toolkit") or {}
        t.ok(r.rc == 0 and tk.get("release") == "13.3.1" and pin[:-2] in (tk.get("wheels") or []) and
             not any("No wheel of CUDA" in w and "cuda_cccl" in w for w in d3.get("warnings", [])),
             "--toolkit wheels on a CUDA 13.3.1 hold takes cccl at cuda-toolkit 13.3.1's pin through the catalog, with "
             "no 'no vouched wheel' warning [cuda_toolkit_pins.csv 13.3.1]", (r.rc, tk, d3.get("warnings")))
# PyTorch 2.14.1, pinned: the release built for it, pinned; none of torchaudio is, so it is left out and said so.
r, d = plan(RTX4090, "580.95.05", "--framework", "pytorch==2.14.1,jax")
jax_v = fws(d)[1][1] if len(fws(d)) > 1 else None
tv, ta = companion("2.14.1", "torchvision"), companion("2.14.1", "torchaudio")
t.ok(tv and tv["version"] == "0.29.2" and ta and ta["version"] is None and
     companion_pins(d) == {"torchvision": "torchvision==0.29.2"} and
     "torchvision==0.29.2" in d["framework"]["constraints"],
     "PyTorch 2.14.1: torchvision==0.29.2 pinned (its wheel asks torch>=2.14.0), in pip's requirements and its "
     "constraints; no torchaudio (its newest, 2.11.1, asks torch>=2.11) [pytorch_companions.csv 2.14.1]",
     (companion_pins(d), d["framework"]["constraints"]))
t.ok(any(x.startswith("Beside PyTorch 2.14.1: torchvision 0.29.2") and "no torchaudio" in x and "2.11.1" in x
         for x in d.get("reasons", [])),
     "the reasons say which torchvision goes beside torch 2.14.1 and that torchaudio is left out", d.get("reasons"))
# The CUDA family held together at the release of the runtime torch 2.14.1 pins (13.0.96: CUDA 13.0.2 and 13.0.3; its
# cuBLAS 13.1.1.3 is 13.0.3's): nvJitLink, which torch asks >=13.0.88 and JAX >=13.0.39, and the compiler wheels JAX
# asks with a lower bound or none (nvcc >=13.0.48, nvvm) at 13.0.3's versions in NVIDIA's manifest, not PyPI's 13.5.
R1303 = next(e for e in CAT["cuda_wheels"] if e["release"] == "13.0.3")
cons = d["framework"]["constraints"]
want = ["nvidia-nvjitlink==13.0.88.*", "nvidia-cuda-nvcc==13.0.88.*", "nvidia-nvvm==13.0.88.*", "nvidia-cuda-crt==13.0.88.*"]
t.ok(all(c in cons for c in want) and all(any(c.startswith(p + "==") for c in cons) for p in R1303["wheels"]) and
     [R1303["wheels"][c.split("==")[0]] for c in want] == ["13.0.88"] * 4,
     "RTX 4090 on 580, pytorch,jax: every nvidia-* wheel of CUDA 13.0.3 held, nvJitLink, nvcc, nvvm and crt at 13.0.88 "
     "[cuda_wheel_components.csv; redistrib_13.0.3.json libnvjitlink, cuda_nvcc, libnvvm, cuda_crt 13.0.88]",
     [c for c in cons if "nvjitlink" in c or "nvcc" in c or "nvvm" in c])
t.ok(any(x.startswith("Every nvidia-* wheel of CUDA 13.0.3 is held") and "nvidia-nvjitlink==13.0.88.* (torch==2.14.1 asks "
         "for nvidia-nvjitlink<14,>=13.0.88)" in x for x in d.get("reasons", [])),
     "the reasons say which release holds them and what asked for a lower bound only", d.get("reasons"))
# A part whose wheel asks for a release of one of them that the held CUDA release has not is no set: the newest JAX
# whose wheels take CUDA 13.0.3's nvcc goes with it, and the reasons say why not the newer (a catalog whose JAX
# 0.12.0.1 asked nvcc>=13.1.0).
ALTER = os.path.join(t.tmpdir("cat"), "catalog.json")
alt = json.loads(json.dumps(CAT))
for e in alt["framework_wheels"]:
    if e["framework"] == "jax" and e["version"] == jax_v and e["extra"] == "cuda13":
        e["requires"] = [[p2, ">=13.1.0" if p2 == "nvidia-cuda-nvcc" else sp] for p2, sp in e["requires"]]
with open(ALTER, "w") as f:
    json.dump(alt, f)
root = machine(RTX4090, "580.95.05")
r = run(["plan", "--json", "--root", root, "--mirror", MIRROR, "--cache-dir", t.tmpdir("c"), "--prefix", "/opt/cu",
         "--state-dir", "/var/tmp/st", "--env-tool", "venv", "--python", "3.12", "--framework", "pytorch==2.14.1,jax"],
        env={"FAKE_NVIDIA_CONFIG": os.path.join(root, "fake-nvidia.conf"), "CUDAUP_CATALOG": ALTER})
da = r.json() or {}
t.ok(r.rc == 0 and fws(da)[0] == ("pytorch", "2.14.1") and fws(da)[1][1] != jax_v and
     any("asks for nvidia-cuda-nvcc>=13.1.0, while the CUDA wheels are held together at CUDA 13.0.3" in x
         for x in da.get("reasons", [])),
     "a JAX asking nvcc>=13.1.0 does not go beside torch 2.14.1's CUDA 13.0.3: an older one does, and the reasons say why",
     (fws(da), [x for x in da.get("reasons", []) if x.startswith("Not ")], da.get("error")))
# One framework alone: where its own wheel pins the runtime and asks for nvJitLink with a lower bound only (torch
# 2.13.0, cu130 on an RTX 5090 with 580), the family is held too; a build pinning all of it (torch 2.10 cu128) gets none.
RTX5090 = ("2b85", "12.0", "NVIDIA GeForce RTX 5090")
r, d5 = plan(RTX5090, "580.95.05", "--framework", "pytorch==2.13")
c5 = (d5.get("framework") or {}).get("constraints") or []
t.ok(d5.get("framework", {}).get("index_url", "").endswith("/cu130") and "nvidia-nvjitlink==13.0.88.*" in c5 and
     "nvidia-cuda-nvcc==13.0.88.*" in c5,
     "RTX 5090 on 580, pytorch==2.13 (cu130): its nvJitLink (torch 2.13.0 asks <14,>=13.0.88) held at CUDA 13.0.3's "
     "13.0.88 with the rest of the release [framework_wheel_requires.csv torch 2.13.0]", (d5.get("error"), c5))
r, d5 = plan(RTX5090, "580.95.05", "--framework", "pytorch==2.10")
t.eq([c for c in (d5.get("framework") or {}).get("constraints") or [] if c.startswith("nvidia-")], [],
     "pytorch==2.10 (cu128, every CUDA wheel pinned by its own wheel): nothing more to hold")
# Driver 570 does not run CUDA 13 (jax_cuda_plugins.csv: the cuda13 plugin needs 580): the cu12 releases, one cuDNN.
r, d = plan(RTX4090, "570.133.07", "--framework", "pytorch,jax")
t.ok(r.rc == 0 and fws(d)[0] == ("pytorch", "2.10.0") and fws(d)[1][0] == "jax", "RTX 4090, driver 570: PyTorch 2.10.0 (cu128)", r)
t.eq(one_cudnn(d), ["nvidia-cudnn-cu12==" + req(wheel_row("pytorch", "2.10.0"), "nvidia-cudnn-cu12")[2:]],
     "one cuDNN: torch 2.10.0's pin, 9.10.2.21 [framework_wheel_requires.csv]")
cons = d["framework"]["constraints"]
t.ok("nvidia-nccl-cu12==2.27.5" in cons and "nvidia-cublas-cu12==12.8.4.1" in cons,
     "the constraints hold what torch 2.10.0 pins for the shared libraries (NCCL 2.27.5, cuBLAS 12.8.4.1)", cons)
t.eq(d["cuda"]["version"][:4], "12.8", "the system CUDA is torch's build CUDA, 12.8")
t.ok("nvidia-cuda-nvcc-cu12==12.8.93.*" in cons and "nvidia-nvjitlink-cu12==12.8.93" in cons,
     "RTX 4090 on 570, pytorch,jax: nvcc, which JAX asks >=12.6.85, held at CUDA 12.8.1's 12.8.93, the release of the "
     "runtime torch 2.10.0 pins (12.8.90) [redistrib_12.8.1.json cuda_nvcc 12.8.93]", cons)
t.eq(companion_pins(d), {"torchvision": "torchvision==0.25.0", "torchaudio": "torchaudio==2.10.0"},
     "PyTorch 2.10.0: torchvision==0.25.0 and torchaudio==2.10.0, the releases whose wheels ask torch==2.10.0 "
     "[pytorch_companions.csv 2.10.0]; unpinned, pip took torchaudio 2.11.0, which asks nothing of torch")
# No plan hands pip a companion without its release, alone or beside others, pinned or not.
loose = {}
for spec in ("pytorch", "pytorch==2.9", "pytorch==2.12.1", "pytorch==2.3.1", "tensorflow,pytorch", "pytorch,jax"):
    for drv in ("570.133.07", "580.95.05"):
        r, d = plan(RTX4090, drv, "--framework", spec)
        bad = [q for q in companion_pins(d).values() if "==" not in q]
        tv_ = next((f["version"] for f in d.get("frameworks", []) if f["name"] == "pytorch"), "")
        tv_ = tv_ if tv_.count(".") == 2 else max((v for v in CAT["pypi_releases"]["pytorch"] if v.startswith(tv_ + ".")),
                                                   key=lambda v: [int(x) for x in v.split(".")], default=tv_)
        built = {e["package"] for e in CAT["pytorch_companions"] if e["torch"] == tv_ and e["version"]}
        if r.rc != 0 or bad or set(companion_pins(d)) != built:
            loose[(spec, drv)] = (r.rc, bad, companion_pins(d), sorted(built))
t.eq(loose, {}, "every plan pins each companion built for its torch, and no other (RTX 4090, drivers 570 and 580)")
# A catalog without the companion table: the release matrix's pin where it has the release (torch 2.3.1: torchvision
# 0.18.1, pytorch_previous_versions_wheels.csv), else the companion is left out and the plan says so, never unpinned.
NOCOMP = os.path.join(t.tmpdir("cat"), "catalog.json")
with open(NOCOMP, "w") as f:
    json.dump(dict((k, v) for k, v in CAT.items() if k != "pytorch_companions"), f)
seen = {}
for spec in ("pytorch==2.3.1", "pytorch==2.10"):
    root = machine(RTX4090, "570.133.07")
    r = run(["plan", "--json", "--root", root, "--mirror", MIRROR, "--cache-dir", t.tmpdir("c"), "--prefix", "/opt/cu",
             "--state-dir", "/var/tmp/st", "--env-tool", "venv", "--python", "3.11", "--framework", spec],
            env={"FAKE_NVIDIA_CONFIG": os.path.join(root, "fake-nvidia.conf"), "CUDAUP_CATALOG": NOCOMP})
    dd = r.json() or {}
    seen[spec] = (r.rc, companion_pins(dd), [x for x in dd.get("reasons", []) if x.startswith("Beside")])
t.ok(seen["pytorch==2.3.1"][:2] == (0, {"torchvision": "torchvision==0.18.1", "torchaudio": "torchaudio==2.3.1"}) and
     seen["pytorch==2.10"][:2] == (0, {}) and "left out rather than installed unpinned" in str(seen["pytorch==2.10"][2]),
     "without the companion table: the release matrix's pins (torch 2.3.1), else the companions left out, saying so", seen)
r, d = plan(RTX4090, "570.133.07", "--framework", "pytorch==2.9")
t.ok(companion_pins(d) == {"torchvision": "torchvision==0.24.1", "torchaudio": "torchaudio==2.9.1"} and
     any(x.startswith("Beside PyTorch 2.9 (its newest release on PyPI, 2.9.1)") for x in d.get("reasons", [])),
     "pytorch==2.9 (torch==2.9.*): the companions of its newest release, 2.9.1 [pytorch_companions.csv 2.9.1]",
     (companion_pins(d), [x for x in d.get("reasons", []) if x.startswith("Beside")]))

# ---- JAX beside another framework on a driver older than every JAX plugin needs --------------------------------
# jax[cuda12] needs driver 525 (jax plugins driver_branch): the refusal names that, not unread wheels, and the advice
# with a newer driver keeps both frameworks (it dropped JAX: "--framework tensorflow==2.20.0 --driver 580").
T4 = ("1eb8", "7.5", "Tesla T4")
for pair in ("tensorflow,jax", "pytorch,jax"):
    r, d = plan(T4, "515.65.01", "--framework", pair, "--driver", "keep")
    adv = d.get("advice") or ""
    t.ok(r.rc == 3 and "JAX" in (d.get("error") or "") and "NVIDIA driver 525" in (d.get("error") or "")
         and "cudaup has not read" not in (d.get("error") or "")
         and re.search(r"--framework %s==[0-9.]+,jax==[0-9.]+ .*--driver 580" % pair.split(",")[0], adv),
         "T4 on 515, %s with --driver keep: the driver is named, and the advice keeps both frameworks" % pair,
         (d.get("error"), adv))
    cmd = next((c for c in re.findall(r"cudaup install (.*?) gives", adv) if "--driver" in c), None)
    r2, d2 = plan(T4, "515.65.01", *(cmd.split() if cmd else ["--bad-advice"]))
    t.ok(r2.rc == 0 and [n for n, _ in fws(d2)] == pair.split(","),
         "T4 on 515: the advice for %s plans both frameworks" % pair, (r2.rc, fws(d2), d2.get("error")))

# The blocker is the part that cannot run, not a plugin of a part that can: on 550 JAX runs a GTX 980 (jax[cuda12],
# its sm_50 code), TensorFlow 2.20 has no code for it (sm_60 and up, PTX compute_90: read in its wheel), and the
# refusal named JAX's CUDA 13 plugin.  (The case was an H100, until TensorFlow 2.20's wheel was read: it carries
# sm_90, so it runs there on 550.)
GTX980 = ("13c0", "5.2", "NVIDIA GeForce GTX 980")
r, d = plan(GTX980, "550.127.05", "--framework", "tensorflow==2.20,jax", "--driver", "keep")
t.ok(r.rc == 3 and "TensorFlow 2.20.0 has no code for GPU 0" in (d.get("error") or "")
     and "JAX" not in (d.get("error") or ""),
     "GTX 980 on 550, tensorflow==2.20,jax: the refusal names TensorFlow's missing code, not JAX's CUDA 13 plugin "
     "[tensorflow_gpu_code.csv 2.17.0-2.21.0 sm_60+; jax_wheel_arch.csv cuda12 sm_50]", d.get("error"))

# ---- TensorFlow + PyTorch on a GTX 1080 -------------------------------------------------------------------
# TensorFlow first decides.  2.21.0 asks nvidia-nccl-cu12>=2.27.7, which no cu12 torch pins; 2.20.0 takes torch
# 2.7.1's pins (cu126, the newest torch with code for Pascal: pytorch_wheel_arch.csv, cu128 starts at sm_70), whose
# cuDNN 9.5.1.17 lists 6.1 (cudnn_support_matrix.csv 9.5.1).
r, d = plan(GTX1080, "580.95.05", "--framework", "tensorflow,pytorch")
t.eq(fws(d), [("tensorflow", "2.20.0"), ("pytorch", "2.7.1")], "GTX 1080: TensorFlow 2.20.0 with PyTorch 2.7.1", r)
t.eq(one_cudnn(d), ["nvidia-cudnn-cu12==9.5.1.17"], "one cuDNN, 9.5.1.17 [torch 2.7.1's pin]")
t.eq((d.get("framework") or {}).get("pip"), ["tensorflow[and-cuda]==2.20.0"],
     "TensorFlow with its CUDA wheels (tensorflow[and-cuda]), so that nothing needs LD_LIBRARY_PATH")
why = " ".join(d.get("reasons", []))
t.ok("Not TensorFlow 2.21.0" in why and "nvidia-nccl-cu12" in why and ">=2.27.7" in why,
     "the plan says why not TensorFlow 2.21.0: the NCCL pins [tensorflow 2.21.0 nvidia-nccl-cu12<3.0,>=2.27.7]", why[-1500:])
t.ok(not any("leave LD_LIBRARY_PATH out" not in s["detail"] and "LD_LIBRARY_PATH" in s["detail"] and s["installer"] == "envvars"
             for s in d.get("steps", [])) and any("leave LD_LIBRARY_PATH out" in s["detail"] for s in d.get("steps", [])),
     "env.sh leaves LD_LIBRARY_PATH out: every framework brings its own CUDA wheels", d.get("steps"))

# ---- PyTorch + JAX on a GTX 1080: the newest PyTorch that runs (issue 34) ----------------------------------
# torch 2.7.1's PyPI wheel is cu126, with sm_50-sm_90 SASS read in its libtorch_cuda.so (pytorch_gpu_code.csv 2.7.x
# cu126): beside JAX it is the newest torch with Pascal code and known pins, as with a pin or beside TensorFlow.  It
# planned 2.5.1 while that row was inferred and 2.5.1's read.
SRC_T27 = "pytorch_gpu_code.csv 2.7.x cu126 (read in torch-2.7.0/2.7.1 from PyPI); framework_wheel_requires.csv torch 2.7.1"
seen = {}
for spec in ("pytorch,jax", "pytorch==2.7,jax", "tensorflow,pytorch,jax"):
    r, d = plan(GTX1080, "580.95.05", "--framework", spec)
    seen[spec] = dict(fws(d)).get("pytorch")
t.eq(seen, {"pytorch,jax": "2.7.1", "pytorch==2.7,jax": "2.7.1", "tensorflow,pytorch,jax": "2.7.1"},
     "GTX 1080: PyTorch 2.7.1 beside JAX, pinned or not, and beside TensorFlow too [%s]" % SRC_T27)
# With --python 3.10, no set that has no wheels for 3.10 is named as the one passed over (JAX 0.12 needs 3.12).
r = run(["plan", "--json", "--root", machine(GTX1080, "580.95.05"), "--mirror", MIRROR, "--cache-dir", t.tmpdir("c"),
         "--prefix", "/opt/cu", "--state-dir", "/var/tmp/st", "--env-tool", "venv", "--python", "3.10",
         "--framework", "pytorch,jax"], env={"FAKE_NVIDIA_CONFIG": os.path.join(machine(GTX1080, "580.95.05"), "fake-nvidia.conf")})
d = r.json() or {}
named = re.findall(r"JAX (\d+\.\d+\.\d+(?:\.\d+)?) \(cuda1\d\)", " ".join(x for x in d.get("reasons", []) if x.startswith("Not ")))
t.ok(r.rc == 0 and dict(fws(d)).get("pytorch") == "2.7.1" and named and
     all(tuple(map(int, v.split(".")[:3])) < (0, 7, 0) for v in named),
     "GTX 1080, pytorch,jax --python 3.10: the JAX the reasons name has wheels for 3.10 (jax_python.csv: 0.7 and later "
     "need 3.11, 0.11 and later 3.12)", (fws(d), d.get("reasons")))

# A newer driver that would install the same wheels, only beside a newer system CUDA, is no newer release to name
# (a T4 on 565 with --driver auto: TensorFlow 2.20.0 + PyTorch 2.10.0 cu128 either way; issue 34).
T4 = ("1eb8", "7.5", "Tesla T4")
r, d = plan(T4, "565.57.01", "--framework", "tensorflow,pytorch", "--driver", "auto")
t.ok(r.rc == 0 and (d.get("driver") or {}).get("action") == "keep" and
     not any(x.startswith("A newer driver would bring") for x in d.get("reasons", [])),
     "T4 on 565, tensorflow,pytorch, --driver auto: keeps the driver and names no newer driver for the same wheels",
     d.get("reasons"))

# Why not a newer PyTorch beside JAX: its CUDA 12 builds' pins were not read (2.11+ on PyPI are CUDA 13 wheels), so the
# reasons say so; and a set whose part cannot run on the driver (torch 2.14.1's CUDA 13 wheels on 575) is not named
# for its pins (issue 34, found by a second independent re-check).
r, d = plan(GTX1080, "580.95.05", "--framework", "pytorch,jax")
t.ok(any(x.startswith("Not PyTorch 2.14 (cu126) beside the others: cudaup has not read which CUDA wheels") for x in
         d.get("reasons", [])),
     "GTX 1080, pytorch,jax: says why not PyTorch 2.14 cu126 [framework_wheel_requires.csv: torch 2.14.1 cu13 only]",
     d.get("reasons"))
r, d = plan(H100, "575.64.05", "--framework", "pytorch,jax", "--python", "3.11")
t.ok(r.rc == 0 and not any("(cu130) with JAX" in x for x in d.get("reasons", [])),
     "H100 on 575, pytorch,jax: no set with a CUDA 13 part (needs 580.65.06) is named for its pins "
     "[cuda_minor_version_compat.csv 13.x 580.65.06]", d.get("reasons"))

# A set refused names the real blocker, as the framework alone would, and the advice keeps --python (third re-check
# of issue 34): a GTX 780 has no PyTorch code at all (it named torch 2.13's CUDA 13 wheels); PyTorch 2.3.1's cu118
# runs a K80 but only its PyPI cu121 wheel's pins were read; TensorFlow's releases with read wheels start at 2.14,
# which has no Python 3.8, while 2.13.1 alone has.
K80 = ("102d", "3.7", "Tesla K80")
GTX780 = ("1004", "3.5", "NVIDIA GeForce GTX 780")


def plan_py(gpu, driver, python, *args):
    root = machine(gpu, driver)
    r = run(["plan", "--json", "--root", root, "--mirror", MIRROR, "--cache-dir", t.tmpdir("c"), "--prefix", "/opt/cu",
             "--state-dir", "/var/tmp/st", "--env-tool", "venv", "--python", python] + list(args),
            env={"FAKE_NVIDIA_CONFIG": os.path.join(root, "fake-nvidia.conf")})
    return r, r.json() or {}


r, d = plan(GTX780, "470.82.01", "--framework", "tensorflow,pytorch")
t.ok(r.rc == 3 and "has no code for GPU 0" in (d.get("error") or "") and "CUDA 13" not in (d.get("error") or "") and
     "--framework tensorflow==2.14.1" in (d.get("advice") or ""),
     "GTX 780 on 470, tensorflow,pytorch: PyTorch's missing code is the blocker, TensorFlow 2.14.1 the advice", d)
r, d = plan_py(K80, "470.82.01", "3.11", "--framework", "tensorflow==2.14.1,pytorch==2.3.1")
t.ok(r.rc == 3 and (d.get("error") or "").startswith("PyTorch 2.3.1 (cu118) runs here, but cudaup has not read"),
     "K80, tensorflow==2.14.1,pytorch==2.3.1: its cu118 build runs, its pins were not read [framework_wheel_requires.csv "
     "torch 2.3.1 cu121 only]", d)
r, d = plan_py(K80, "470.82.01", "3.8", "--framework", "tensorflow,pytorch")
t.ok(r.rc == 3 and "on its own, TensorFlow 2.13.1 does" in (d.get("error") or "") and
     (d.get("advice") or "").endswith("--python 3.8."),
     "K80, tensorflow,pytorch --python 3.8: TensorFlow 2.13.1 alone has 3.8; the advice keeps --python", d)

# A pinned JAX that predates the cuda13 plugin is not refused for that plugin's driver (H100 on 570,
# pytorch==2.4.1,jax==0.6.1 blamed "JAX's CUDA 13 plugin needs driver 580"; fourth re-check): what stops it is
# that its own wheel's pins were not read (framework_wheel_requires.csv has 0.5.3 and 0.6.2).
r, d = plan_py(H100, "570.133.07", "3.11", "--framework", "pytorch==2.4.1,jax==0.6.1")
t.ok(r.rc == 3 and "CUDA 13" not in (d.get("error") or "") and "jax==0.6.1" in (d.get("error") or "") and
     "has not read" in (d.get("error") or ""),
     "H100 on 570, pytorch==2.4.1,jax==0.6.1: the blocker is JAX 0.6.1's unread pins, not the cuda13 plugin's driver "
     "[jax_cuda_plugins.csv cuda13 from 0.8.0]", d)

# --driver keep: what runs on the driver as it is (one environment each) comes first, the newer driver after it
# (a T4 on 470 was offered only --driver 580 with its reboot; fourth re-check).
r, d = plan_py(T4, "470.82.01", "3.10", "--framework", "tensorflow,pytorch")
adv = d.get("advice") or ""
t.ok(r.rc == 3 and "one environment each works: cudaup install --framework tensorflow --framework pytorch --python 3.10" in adv
     and "With a newer driver:" in adv and adv.index("one environment each") < adv.index("With a newer driver:"),
     "T4 on 470, tensorflow,pytorch --python 3.10: one environment each first, then the newer driver", adv)

# ---- all three on an H100 ----------------------------------------------------------------------------------
# resolutions.md: torch==2.10.0 tensorflow[and-cuda]==2.20.0 jax[cuda12]==0.12.0.1 resolves to one cuDNN, 9.10.2.21.
r, d = plan(H100, "580.95.05", "--framework", "pytorch,tensorflow,jax")
t.ok(r.rc == 0 and fws(d)[:2] == [("pytorch", "2.10.0"), ("tensorflow", "2.20.0")] and fws(d)[2][0] == "jax",
     "H100: PyTorch 2.10.0, TensorFlow 2.20.0 and JAX", r)
t.eq(one_cudnn(d), ["nvidia-cudnn-cu12==9.10.2.21"], "one cuDNN for the three, 9.10.2.21 [resolutions.md]")
jr = wheel_row("jax", fws(d)[2][1] if len(fws(d)) > 2 else "", "cuda12")
t.ok(jr is not None and not req(jr, "nvidia-cudnn-cu12").startswith("<9"), "JAX's release accepts cuDNN 9", jr and jr["version"])

# ---- clashes: named as pip names them, and what works ----------------------------------------------------------
r, d = plan(H100, "580.95.05", "--framework", "pytorch==2.14,tensorflow==2.21")
err = d.get("error", "")
t.ok(r.rc == 3 and "nvidia-cudnn-cu13==9.24.0.43" in err and "nvidia-cudnn-cu12<10.0,>=9.3.0.75" in err,
     "torch 2.14 + TF 2.21: refused, naming the two cuDNN wheels (CUDA 13 and CUDA 12) that write one file", r)
adv = d.get("advice", "")
t.ok("cudaup install --framework pytorch==2.10.0,tensorflow==2.20.0" in adv and
     "cudaup install --framework pytorch==2.14 --framework tensorflow==2.21" in adv,
     "the advice: releases that share one environment, or one environment each", adv)
r, d = plan(H100, "580.95.05", "--framework", "pytorch==2.10,tensorflow==2.21")
t.ok(r.rc == 3 and "nvidia-nccl-cu12==2.27.5" in d.get("error", "") and "nvidia-nccl-cu12<3.0,>=2.27.7" in d.get("error", "")
     and "ResolutionImpossible" in d.get("error", ""),
     "torch 2.10 + TF 2.21: the NCCL pins that make pip's ResolutionImpossible [resolutions.md]", r)
r, d = plan(H100, "580.95.05", "--framework", "tensorflow==2.13,pytorch")
t.ok(r.rc == 3 and "brings no CUDA wheels of its own" in d.get("error", ""),
     "TF 2.13 (no tensorflow[and-cuda]) cannot share with PyTorch: it needs the CUDA folder in LD_LIBRARY_PATH", r)

# ---- bad lists: one sentence, exit 2, nothing touched ---------------------------------------------------------
for fw, what in [("pytorch,pytorch", "named twice"), ("pytorch,none", "none cannot go with"), ("pytorch,", "not a list"),
                 ("pytorch,caffe", "not one of"), ("pytorch,jax==x", "not a version")]:
    r, d = plan(H100, "580.95.05", "--framework", fw)
    t.ok(r.rc == 2 and what in d.get("error", ""), "--framework %s: exit 2 (%s)" % (fw, what), r)
r, d = plan(H100, "580.95.05", "--framework", "pytorch", "--env-name", "a,b")
t.ok(r.rc == 2 and "names 2 environments" in d.get("error", ""), "--env-name a,b for one environment: exit 2", r)

# ---- one environment per framework ---------------------------------------------------------------------------
r, d = plan(H100, "580.95.05", "--framework", "pytorch", "--framework", "jax")
envs = d.get("environments", [])
t.ok(r.rc == 0 and [e["name"] for e in envs] == ["cudaup-pytorch", "cudaup-jax"] and
     [[f["name"] for f in e["frameworks"]] for e in envs] == [["pytorch"], ["jax"]],
     "--framework pytorch --framework jax: two environments, cudaup-pytorch and cudaup-jax", envs)
r, d = plan(H100, "580.95.05", "--framework", "pytorch", "--framework", "jax", "--env-name", "torchy,jaxy")
t.eq([e["name"] for e in d.get("environments", [])], ["torchy", "jaxy"], "--env-name torchy,jaxy names them in order")
r, d = plan(H100, "580.95.05", "--framework", "pytorch", "--framework", "pytorch==2.8")
t.ok(r.rc == 2 and "cudaup-pytorch" in d.get("error", ""), "two environments of one name: exit 2, naming it", r)
# A second environment whose frameworks bring their own CUDA wheels need not share the first one's CUDA major:
# torch 2.14 (cu130) first, then torch 2.8 (cu128 or cu126), its system CUDA the first one's.
r, d = plan(H100, "580.95.05", "--framework", "pytorch", "--framework", "pytorch==2.8", "--env-name", "new,old")
envs = d.get("environments", [])
t.ok(r.rc == 0 and [e["name"] for e in envs] == ["new", "old"] and envs[1]["frameworks"][0]["version"] == "2.8",
     "--framework pytorch --framework pytorch==2.8: two environments, the second with its own CUDA 12 wheels", r)

# ---- the stand-ins say no as pip does -----------------------------------------------------------------------------
PY = shutil.which("python3.11", path="/usr/bin:/bin")
if not PY:
    t.skip("installs from stand-in wheels", "no python3.11 in /usr/bin to make a venv with")
    t.done()
WH = t.tmpdir("wheels")
CACHE = t.tmpdir("elf")
AIRGAP = {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": WH, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
REAL_LIBS = {  # the stand-in nvidia wheels that carry a real library (the ones the native stand-ins ask for)
    "nvidia-cudnn-cu12": [("cudnn", "libcudnn.so.9")], "nvidia-cudnn-cu13": [("cudnn", "libcudnn.so.9")],
    "nvidia-cuda-runtime-cu12": [("cuda_runtime", "libcudart.so.12")],
    "nvidia-cublas-cu12": [("cublas", "libcublas.so.12"), ("cublas", "libcublasLt.so.12")],
    "nvidia-cusparse-cu12": [("cusparse", "libcusparse.so.12")], "nvidia-nvjitlink-cu12": [("nvjitlink", "libnvJitLink.so.12")],
}
made = set()


def vtuple(v):
    return tuple(int(x) for x in re.findall(r"\d+", v))


def nvidia(pkg, version):
    if (pkg, version) in made:
        return
    made.add((pkg, version))
    libs = [("nvidia/%s/lib/%s" % (d, so), so, ".".join(version.split(".")[:3]), {}) for d, so in REAL_LIBS.get(pkg, [])]
    mkwheels.wheel(WH, pkg, version, extra=mkwheels.nvidia_libs(libs, CACHE) if libs else None)


def versions_for(rows):
    """A release of every nvidia-* distribution the @rows name that satisfies all of them: an exact pin, else the
    highest lower bound; and the newest cuDNN wheel on PyPI in their ranges (to see the constraints hold pip)."""
    out = {}
    for pkg in sorted({p for r in rows for p, _ in r["requires"]}):
        specs = [dict((p, s) for p, s in r["requires"]).get(pkg) for r in rows]
        specs = [s for s in specs if s is not None]
        pins = [re.match(r"==([\d.]+)", s).group(1) for s in specs if re.match(r"==[\d.]+$", s)]
        lows = [re.search(r">=([\d.]+)", s).group(1) for s in specs if re.search(r">=([\d.]+)", s)]
        prefix = [re.match(r"==([\d.]+)\.\*", s).group(1) for s in specs if re.match(r"==[\d.]+\.\*", s)]
        out[pkg] = pins[0] if pins else (prefix[0] + ".0" if prefix else max(lows, key=vtuple) if lows else "1.0")
    return out


def requires(row):
    marker = {"tensorflow": '; extra == "and-cuda"', "jax": '; extra == "%s"' % row["extra"]}.get(row["framework"], "")
    return ["%s%s%s" % (p, s, marker) for p, s in row["requires"]]


def build_set(rows, extra_cudnn=()):
    for pkg, v in versions_for(rows).items():
        nvidia(pkg, v)
    for pkg, v in extra_cudnn:
        nvidia(pkg, v)


# The two pip refusals the issue names, with stand-ins carrying the real pins.
t210, tf221, t215 = wheel_row("pytorch", "2.10.0"), wheel_row("tensorflow", "2.21.0", "and-cuda"), wheel_row("pytorch", "2.15.0")
build_set([t210])
build_set([tf221])
build_set([t215])
mkwheels.wheel(WH, "torch", "2.10.0", cuda="12.8", cudnn="9.10.2", requires=requires(t210))
mkwheels.wheel(WH, "torch", "2.15.0", cuda="13.2", cudnn="9.26.0", requires=requires(t215))
mkwheels.wheel(WH, "tensorflow", "2.21.0", requires=requires(tf221))
scratch = os.path.join(t.tmpdir("venv"), "v")
subprocess.run([PY, "-m", "venv", scratch], check=True)
pip = [os.path.join(scratch, "bin", "python"), "-m", "pip", "install", "--dry-run", "--quiet", "--report", "-"]
p = subprocess.run([x for x in pip if x != "--quiet"] + ["torch==2.10.0", "tensorflow[and-cuda]==2.21.0"],
                   env=dict(os.environ, **AIRGAP), capture_output=True, text=True)
said = p.stdout + p.stderr
t.ok(p.returncode != 0 and "ResolutionImpossible" in said and "nvidia-nccl-cu12" in said,
     "pip refuses the stand-ins torch 2.10.0 + tensorflow[and-cuda] 2.21.0 on their NCCL pins, as on PyPI", said[-1500:])
p = subprocess.run(pip + ["torch==2.15.0", "tensorflow[and-cuda]==2.21.0"], env=dict(os.environ, **AIRGAP),
                   capture_output=True, text=True)
got = [i["metadata"]["name"] for i in json.loads(p.stdout or '{"install": []}')["install"]] if p.returncode == 0 else []
t.ok(sorted(n for n in got if n.startswith("nvidia-cudnn")) == ["nvidia-cudnn-cu12", "nvidia-cudnn-cu13"],
     "pip takes torch 2.15.0 + tensorflow[and-cuda] 2.21.0 with two cuDNN wheels, as on PyPI", p.stderr[-800:])

# ---- PyTorch's own index names its builds with a local version (0.29.2+cu130) -------------------------------------
# That index cannot be reached from here: a folder laid out like it stands in, with the companions as PyPI's wheels ask
# torch (pytorch_companions.csv) and a newer torchvision built for another torch.  The plan's requirements for the
# RTX 4090 on 580 (torch 2.14.1 cu130) take the builds it pins, local versions and all, and no torchaudio (none is
# built for torch 2.14.1: the index's newest, 2.11.1+cu130, asks torch>=2.11, which pip would take unpinned).
PTI = t.tmpdir("pytorch-index")
mkwheels.wheel(PTI, "torch", "2.14.1+cu130")
for pkg, ver, tq in [("torchvision", "0.29.2+cu130", ">=2.14.0"), ("torchvision", "0.29.1+cu130", ">=2.14.0"),
                     ("torchvision", "0.30.0+cu130", ">=2.15.0"), ("torchaudio", "2.11.1+cu130", ">=2.11")]:
    mkwheels.wheel(PTI, pkg, ver, requires=["torch" + tq])
r, d = plan(RTX4090, "580.95.05", "--framework", "pytorch==2.14.1,jax")
tq = [q for q in d["frameworks"][0]["pip"]]
p = subprocess.run(pip + tq, env=dict(os.environ, PIP_NO_INDEX="1", PIP_FIND_LINKS=PTI, PIP_DISABLE_PIP_VERSION_CHECK="1"),
                   capture_output=True, text=True)
got = {i["metadata"]["name"]: i["metadata"]["version"] for i in json.loads(p.stdout or '{"install": []}')["install"]} \
    if p.returncode == 0 else {}
t.eq(got, {"torch": "2.14.1+cu130", "torchvision": "0.29.2+cu130"},
     "pip takes %s from an index laid out like PyTorch's: the pins match its local versions, and no torchaudio" % tq,
     p.stderr[-800:])

# ---- the CUDA family held: pip with the plan's constraints against stand-ins of CUDA 13.0.3 and 13.5 --------------
# Each nvidia-* wheel torch 2.14.1 and jax[cuda13] ask for, at its pinned release or, asked with a range, at CUDA
# 13.0.3's release and at 13.5.37 (PyPI's newest, which pip took: issue 47); nvcc asks for nvvm, crt and the runtime
# unpinned, as its wheel on PyPI does.  Unheld pip takes 13.5.37; with the plan's constraints, 13.0.3's releases.
FAM = t.tmpdir("family")
r, d = plan(RTX4090, "580.95.05", "--framework", "pytorch==2.14.1,jax")
jv13 = fws(d)[1][1] if len(fws(d)) > 1 else "?"
j13 = wheel_row("jax", jv13, "cuda13") or {"requires": [], "framework": "jax", "extra": "cuda13"}
t141 = wheel_row("pytorch", "2.14.1")
pinned = versions_for([t141, j13])
made13 = set()
for pkg in sorted(pinned):
    specs = [sp for row in (t141, j13) for p2, sp in row["requires"] if p2 == pkg]
    vers = {R1303["wheels"].get(pkg, pinned[pkg])}
    if pkg in R1303["wheels"] and not any(sp.startswith("==") for sp in specs):
        vers.add("13.5.37")
    for v in vers:
        deps = ["nvidia-nvvm", "nvidia-cuda-crt", "nvidia-cuda-runtime"] if pkg == "nvidia-cuda-nvcc" else ()
        mkwheels.wheel(FAM, pkg, v, requires=deps)
        made13.add((pkg, v))
for v in (R1303["wheels"]["nvidia-cuda-crt"], "13.5.37"):
    mkwheels.wheel(FAM, "nvidia-cuda-crt", v)
mkwheels.wheel(FAM, "torch", "2.14.1", requires=requires(t141))
mkwheels.wheel(FAM, "torchvision", "0.29.2", requires=["torch>=2.14.0"])
mkwheels.wheel(FAM, "jax", jv13, requires=requires(j13))
cfile = os.path.join(FAM, "constraints.txt")
with open(cfile, "w") as f:
    f.write("".join(c + "\n" for c in d["framework"]["constraints"]))
reqs = [q for fw in d["frameworks"] for q in fw["pip"]]
FENV = dict(os.environ, PIP_NO_INDEX="1", PIP_FIND_LINKS=FAM, PIP_DISABLE_PIP_VERSION_CHECK="1")
got = {}
for held in (False, True):
    p = subprocess.run(pip + (["-c", cfile] if held else []) + reqs, env=FENV, capture_output=True, text=True)
    got[held] = {i["metadata"]["name"]: i["metadata"]["version"] for i in json.loads(p.stdout or '{"install": []}')["install"]
                 if i["metadata"]["name"] in ("nvidia-nvjitlink", "nvidia-cuda-nvcc", "nvidia-nvvm", "nvidia-cuda-crt",
                                              "nvidia-cuda-runtime")} if p.returncode == 0 else p.stderr[-600:]
t.eq(got[False], {"nvidia-nvjitlink": "13.5.37", "nvidia-cuda-nvcc": "13.5.37", "nvidia-nvvm": "13.5.37",
                  "nvidia-cuda-crt": "13.5.37", "nvidia-cuda-runtime": "13.0.96"},
     "unheld, pip takes nvJitLink, nvcc, nvvm and crt 13.5.37 beside the 13.0.96 runtime torch pins, as it did on PyPI")
t.eq(got[True], {"nvidia-nvjitlink": "13.0.88", "nvidia-cuda-nvcc": "13.0.88", "nvidia-nvvm": "13.0.88",
                 "nvidia-cuda-crt": "13.0.88", "nvidia-cuda-runtime": "13.0.96"},
     "with the plan's constraints pip takes CUDA 13.0.3's nvJitLink, nvcc, nvvm and crt (13.0.88) %s" % reqs)

# ---- an install of PyTorch + JAX from stand-ins with the real pins -------------------------------------------------
# The plan on the RTX 4090 with driver 570 (above): torch 2.10.0 (cu128) and a jax[cuda12] release.
root = machine(RTX4090, "570.133.07")
box = t.tmpdir("install")
pfx, st, cache, home = (os.path.join(box, n) for n in ("p", "s", "c", "home"))
os.makedirs(home)
ENV = dict(AIRGAP, HOME=home, PATH="/usr/bin:/bin", XDG_DATA_HOME=os.path.join(home, "data"),
           FAKE_NVIDIA_CONFIG=os.path.join(root, "fake-nvidia.conf"))
args = ["--root", root, "--prefix", pfx, "--state-dir", st, "--json"]
ARCHIVES = os.path.join(t.tmpdir("mirror"), "m")
mkmirror.build(ARCHIVES)  # CUDA 12.6.3 and cuDNN 9.5.1 with real archives: the system CUDA of the same major
inst = ["--mirror", "file://" + ARCHIVES, "--cache-dir", cache, "--python", "3.11", "--env-tool", "venv", "--env-scope", "none",
        "--framework", "pytorch,jax", "--components", "runtime"]
r = run(["plan"] + args + inst, env=ENV, timeout=600)
d = r.json() or {}
jv = fws(d)[1][1] if len(fws(d)) > 1 else "?"
jrow = wheel_row("jax", jv, "cuda12")
build_set([t210, jrow], extra_cudnn=[("nvidia-cudnn-cu12", "9.28.0.42")])  # the newest cuDNN PyPI has: pip's pick
for c in (d.get("framework") or {}).get("constraints") or []:  # the CUDA family held at 12.8.1: on PyPI as on NVIDIA's
    if c.startswith("nvidia-"):
        nvidia(c.split("==")[0], c.split("==")[1].rstrip(".*"))
mkwheels.wheel(WH, "torch", "2.10.0", cuda="12.8", cudnn="9.10.2", requires=requires(t210), native=True, cache=CACHE)
mkwheels.wheel(WH, "jax", jv, cuda="12", cudnn="9.10.2", cublas="12.8.4", requires=requires(jrow), native=True, cache=CACHE)
# The companions as PyPI has them, each asking what its wheel asks of torch (pytorch_companions.csv): the ones built
# for torch 2.10.0, and the newer ones an unpinned requirement would take (torchaudio 2.11.0 asks nothing of torch,
# which is how pip installed it beside torch 2.10.0, where it fails to import).
for pkg, ver, tq in [("torchvision", "0.25.0", "==2.10.0"), ("torchaudio", "2.10.0", "==2.10.0"),
                     ("torchvision", "0.26.0", "==2.11.0"), ("torchaudio", "2.11.0", "")]:
    mkwheels.wheel(WH, pkg, ver, requires=["torch" + tq] if tq else ())
r = run(["install", "--yes"] + args + inst, env=ENV, timeout=900)
t.eq(r.rc, 0, "RTX 4090: install --framework pytorch,jax from the stand-ins", r)
tries = (r.json() or {}).get("tries") or []
t.ok(len(tries) == 2 and "import torch" in tries[0] and "import jax" in tries[1] and (r.json() or {}).get("try") == tries[0],
     "the result's tries: a call for each framework of the environment, PyTorch's first as try (the wizard's Done lists the same)", r)
with open(os.path.join(st, "pyenv.json")) as f:
    rec = json.load(f)
t.eq((rec.get("frameworks"), rec.get("framework"), rec.get("bundled")), (["pytorch", "jax"], "pytorch", True),
     "pyenv.json records both frameworks, the first as framework, and that they bring their CUDA wheels")
sp = glob.glob(os.path.join(rec["path"], "lib", "python3*", "site-packages"))[0]
cudnns = sorted(os.path.basename(p) for p in glob.glob(os.path.join(sp, "nvidia_cudnn_cu*.dist-info")))
t.eq(cudnns, ["nvidia_cudnn_cu12-9.10.2.21.dist-info"],
     "one cuDNN in the environment, 9.10.2.21, not the newest 9.28.0.42 the wheelhouse offers JAX's range")
comps = sorted(b for b in map(os.path.basename, glob.glob(os.path.join(sp, "torch*.dist-info"))) if not b.startswith("torch-"))
t.eq(comps, ["torchaudio-2.10.0.dist-info", "torchvision-0.25.0.dist-info"],
     "the companions built for torch 2.10.0, not torchaudio 2.11.0 (which asks nothing of torch) the wheelhouse offers")
cfile = (d.get("framework") or {}).get("constraints_file") or os.devnull
with open(cfile) as f:
    text = f.read()
t.ok("nvidia-cudnn-cu12==9.10.2.21" in text and "nvidia-nccl-cu12==2.27.5" in text, "the constraints file holds the shared pins", text)
with open(os.path.join(st, "env.sh")) as f:
    t.ok("LD_LIBRARY_PATH" not in f.read(), "env.sh puts no CUDA folder in LD_LIBRARY_PATH")
with open(os.path.join(rec["path"], "bin", "activate")) as f:
    t.ok("_CUDAUP_GUARD" in f.read(), "the venv's activation takes CUDA folders out of LD_LIBRARY_PATH")
r = run(["verify"] + args, env=ENV, timeout=600)
doc = r.json() or {}
checks = [c for c in doc.get("checks", []) if c["name"] in ("framework", "libraries")]
fw_ok = [c for c in checks if c["name"] == "framework" and c["status"] == "pass"]
lib = next((c for c in checks if c["name"] == "libraries"), {})
t.ok(len(fw_ok) == 2 and lib.get("status") == "pass" and "both orders" in lib.get("detail", ""),
     "verify: PyTorch and JAX each pass, and imported in both orders they map each CUDA library once, from the wheels",
     checks)
names = {(l["name"], l["framework"]) for l in doc.get("libraries", [])}
t.ok(("libcudnn.so.9", "pytorch") in names and ("libcublas.so.12", "pytorch") in names,
     "verify's libraries[] names the cuDNN and cuBLAS the frameworks mapped", doc.get("libraries"))

# ---- one environment each: installed, verified and uninstalled together -------------------------------------------
box2 = t.tmpdir("each")
pfx2, st2, home2 = (os.path.join(box2, n) for n in ("p", "s", "home"))
os.makedirs(home2)
ENV2 = dict(ENV, HOME=home2, XDG_DATA_HOME=os.path.join(home2, "data"))
args2 = ["--root", root, "--prefix", pfx2, "--state-dir", st2, "--json"]
each = ["--mirror", "file://" + ARCHIVES, "--cache-dir", cache, "--python", "3.11", "--env-tool", "venv", "--env-scope",
        "none", "--components", "runtime", "--framework", "pytorch", "--framework", "jax", "--env-name", "tp,jx"]
r = run(["plan"] + args2 + each, env=ENV2, timeout=600)
d2 = r.json() or {}
# each plans on its own, as before issue 36 (a PyTorch minor from its index, JAX's newest): plain stand-ins do
for f in (e["frameworks"][0] for e in d2.get("environments", [])):
    v = f["version"] or "0.6.2"
    mkwheels.wheel(WH, "torch" if f["name"] == "pytorch" else "jax", v + ".0" if v.count(".") == 1 else v)
    for q in f.get("pip", []):  # the companions it pins, each asking torch what its wheel asks
        name, _, ver = q.partition("==")
        row = next((e for e in CAT["pytorch_companions"] if e["package"] == name and e["version"] == ver), None)
        if row:
            mkwheels.wheel(WH, name, ver, requires=["torch" + row["requires"]] if row["requires"] else ())
r = run(["install", "--yes"] + [a for a in args2 if a != "--json"] + each, env=ENV2, timeout=900)
t.eq(r.rc, 0, "--framework pytorch --framework jax --env-name tp,jx: installed", r)
said = [ln for ln in r.out.splitlines() if "activate it with" in ln]
t.ok(len(said) == 2 and "PyTorch" in said[0] and "/tp" in said[0] and "JAX" in said[1] and "/jx" in said[1],
     "install's closing lines say how to activate each environment, with its framework", r.out[-1500:])
tries = [ln for ln in r.out.splitlines() if "try it:" in ln]
t.ok(len(tries) == 2 and "torch.cuda.is_available()" in tries[0] and "jax.devices()" in tries[1],
     "install's closing lines give each environment's framework its own line to try", r.out[-1500:])
with open(os.path.join(st2, "pyenv.json")) as f:
    rec2 = json.load(f)
paths = [rec2.get("path")] + [e.get("path") for e in rec2.get("envs", [])]
t.ok([rec2.get("name")] + [e.get("name") for e in rec2.get("envs", [])] == ["tp", "jx"] and all(p and os.path.isdir(p) for p in paths),
     "pyenv.json records both environments, each made", rec2)
r = run(["verify"] + args2, env=ENV2, timeout=600)
fw_checks = [c for c in (r.json() or {}).get("checks", []) if c["name"] == "framework"]
t.ok(len(fw_checks) == 2 and all(c["status"] == "pass" for c in fw_checks) and "JAX" in fw_checks[1]["detail"],
     "verify checks the framework of each environment", fw_checks)
cuda_mm = ".".join(((r.json() or {}).get("path") or "cuda-0.0").rsplit("cuda-", 1)[1].split(".")[:2])
r = run(["uninstall", cuda_mm, "--yes"] + args2, env=ENV2, timeout=600)
t.ok(r.rc == 0 and not any(os.path.exists(p) for p in paths) and not os.path.exists(os.path.join(st2, "pyenv.json")),
     "uninstall removes both environments cudaup made, and their record", r)
t.done()
