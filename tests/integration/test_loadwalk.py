#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""doctor's walk against the real dynamic loader, library by library (issue 47 items 2 and 4).

An environment of PyTorch 2.15.0 and JAX 0.10.2 with their CUDA 13 wheels, each wheel a stand-in built from the
recording of the real one (tests/fixtures/mkrecorded.py: every shared object with its recorded SONAME, DT_NEEDED,
DT_RPATH/DT_RUNPATH, in the recorded layout).  A real process then makes the frameworks' recorded dlopen() calls
(data/compat/framework_loads.csv) from the objects that make them, in each order doctor walks, then the names
NVIDIA's libraries dlopen (cuda_lib_loads.csv: cuDNN's sub-libraries, NVRTC's builtins), and what it mapped
(/proc/self/maps) is the truth: `doctor --json`'s framework_loads must name the same files, every one, and its
problems must name every library mapped from outside the environment, with the variable responsible, and no
library that is not mapped from there (JAX never loads cuRAND).  Twice: LD_LIBRARY_PATH unset, and holding a
system CUDA 13.0's folder (stand-ins of the libraries the real one has)."""
import json
import os
import re
import shutil
import subprocess
import sys

from cutest import SRCDIR, Tap, run

sys.path.insert(0, os.path.join(SRCDIR, "tests", "fixtures"))
import machines  # noqa: E402
import mkelf  # noqa: E402
import mkrecorded  # noqa: E402

t = Tap()
PY = shutil.which("python3.11", path="/usr/bin:/bin") or sys.executable
if not mkelf.CC:
    t.skip("recorded walks", "no C compiler to build the stand-in libraries with")
    t.done()

CACHE = t.tmpdir("elf")
WHEELS = ["torch-2.15.0", "jax-cuda13-plugin-0.10.2", "jax-cuda13-pjrt-0.10.2", "nvidia-cublas-13.4.1.3",
          "nvidia-cuda-cupti-13.2.86", "nvidia-cuda-nvrtc-13.2.86", "nvidia-cuda-runtime-13.2.86",
          "nvidia-cudnn-cu13-9.26.0.51", "nvidia-cufft-12.2.0.57", "nvidia-cufile-1.17.1.22",
          "nvidia-cusolver-12.2.0.11", "nvidia-cusparse-12.7.10.12", "nvidia-cusparselt-cu13-0.8.1",
          "nvidia-nccl-cu13-2.30.7", "nvidia-nvjitlink-13.2.86", "nvidia-nvshmem-cu13-3.7.2", "nvidia-nvtx-13.2.86"]
# A system CUDA 13.0 (the folder a user's LD_LIBRARY_PATH names): what the real one holds of the names above,
# and cuRAND, which no call here loads.
SYSTEM = ["libcudart.so.13", "libcublas.so.13", "libcublasLt.so.13", "libnvJitLink.so.13", "libnvrtc.so.13",
          "libcurand.so.10", "libcudnn_graph.so.9"]
CUDA_LIBS = ("cudart", "cublas", "cublasLt", "cudnn", "nvJitLink", "nvrtc", "nvrtc-builtins", "cusparse", "cusparseLt",
             "cufft", "cufftw", "curand", "cusolver", "cusolverMg", "nccl", "cupti", "nvToolsExt", "cufile",
             "nvshmem_host")

with open(os.path.join(SRCDIR, "data", "catalog.json")) as f:
    CAT = json.load(f)


def loads_of(fw, version, cuda):
    return next(x["loads"] for x in CAT["framework_loads"]
                if x["framework"] == fw and x["version"] == version and x["cuda"] == cuda)


CALLS = {"pytorch": loads_of("pytorch", "2.15.0", 13), "jax": loads_of("jax", "0.10.2", 13)}
PKGS = {(mkrecorded.recording(w)["dist"], mkrecorded.recording(w)["version"]) for w in WHEELS}
LIB_CALLS = [x for x in CAT["cuda_lib_loads"] if (x["package"], x["version"]) in PKGS]

REPLAY = r'''
import ctypes, glob, json, os, sys
sp, plan = sys.argv[1], json.loads(sys.argv[2])
G = os.RTLD_GLOBAL
def loaded(what):
    try:
        return ctypes.CDLL(what, mode=os.RTLD_NOLOAD | G)
    except OSError:
        return None
def path_of(rel):
    hits = sorted(glob.glob(os.path.join(sp, rel)))
    return hits[0] if hits else None
def call(c):
    target = path_of(c["target"]) if c["how"] == "path" else c["target"]
    if not target:
        return
    if c["caller"] == "python":
        try:
            ctypes.CDLL(target, mode=G)
        except OSError:
            pass
        return
    who = c["caller"][7:] if c["caller"].startswith("soname:") else path_of(c["caller"])
    h = loaded(who) if who else None
    if h:
        f = h.cudaup_standin_dlopen
        f.restype = ctypes.c_void_p
        f.argtypes = [ctypes.c_char_p]
        f(target.encode())
for stage in (("import", "use"), ("gpu",)):
    for fw in plan["order"]:
        for c in plan["calls"][fw]:
            if c["stage"] in stage:
                call(c)
for _ in range(4):
    for c in plan["lib_calls"]:
        call({"caller": "soname:" + c["caller"], "how": "name", "target": c["target"]})
maps = set()
for line in open("/proc/self/maps"):
    parts = line.split(None, 5)
    if len(parts) == 6 and parts[5].strip().startswith("/"):
        maps.add(parts[5].strip())
print(json.dumps(sorted(maps)))
'''


def cuda_lib(path):
    name = os.path.basename(path)
    m = re.match(r"lib(.+?)\.so(\.[0-9.]+)?$", name)
    return bool(m) and (m.group(1) in CUDA_LIBS or m.group(1).startswith("cudnn_"))


class Env:
    def __init__(self, name):
        self.name = name
        self.dir = t.tmpdir(name)
        self.root = os.path.join(self.dir, "root")
        machines.build_spec({"os": "ubuntu", "driver": "580.95.05", "cuda": 13000, "libs": True,
                             "gpus": [("0000:01:00.0", "2684", "0x030000", "nvidia", "8.9", 24564,
                                       "NVIDIA GeForce RTX 4090")]}, self.root)
        self.env = self.root + "/env"
        subprocess.run([PY, "-m", "venv", "--without-pip", self.env], check=True)
        self.sp = os.path.join(self.env, "lib", "python3.11", "site-packages")
        if not os.path.isdir(self.sp):
            self.sp = os.path.join(self.env, "lib", "python%d.%d" % sys.version_info[:2], "site-packages")
        mkrecorded.install(self.sp, WHEELS, CACHE, also=["libjax_common.so"])
        # Not recorded: jax's own dist-info and jaxlib's object that dlopens the PJRT plugin.
        mkrecorded.extra(self.sp, "jaxlib/libjax_common.so", CACHE, "jax", "0.10.2")
        for so in SYSTEM:
            mkelf.lib(self.root + "/opt/cuda-13.0/lib64/" + so, so, cache=CACHE, extra_c=mkrecorded.DLOPEN_C)

    def strip(self, p):
        return p[len(self.root):] if p.startswith(self.root + "/") else p

    def truth(self, order, llp):
        env = {k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH", "LD_PRELOAD")}
        if llp:
            env["LD_LIBRARY_PATH"] = self.root + llp
        plan = {"order": order, "calls": CALLS, "lib_calls": LIB_CALLS}
        r = subprocess.run([PY, "-c", REPLAY, self.sp, json.dumps(plan)], capture_output=True, text=True, env=env,
                           timeout=300)
        if r.returncode != 0:
            return None, r.stderr[-2000:]
        return sorted(self.strip(p) for p in json.loads(r.stdout) if cuda_lib(p)), None

    def doctor(self, llp):
        env = {"VIRTUAL_ENV": "/env", "HOME": "/root", "FAKE_NVIDIA_CONFIG": os.path.join(self.root, "fake-nvidia.conf")}
        if llp:
            env["LD_LIBRARY_PATH"] = llp
        r = run(["doctor", "--json", "--root", self.root, "--state-dir", os.path.join(self.dir, "state")], env=env)
        return r.json() or {}


e = Env("torch-jax-cu13")
ORDERS = [["pytorch", "jax"], ["jax", "pytorch"], ["pytorch"], ["jax"]]
for llp in (None, "/opt/cuda-13.0/lib64"):
    label = "LD_LIBRARY_PATH=%s" % llp if llp else "LD_LIBRARY_PATH unset"
    doc = e.doctor(llp)
    walks = doc.get("framework_loads", [])
    outside_mapped = set()
    for order in ORDERS:
        truth, err = e.truth(order, llp)
        walk = next((w for w in walks if w["order"] == order and w["path"] == "/env"), None)
        pred = sorted({l["real"] for l in walk["libraries"]}) if walk else None
        missed = sorted(set(truth or []) - set(pred or []))
        phantom = sorted(set(pred or []) - set(truth or []))
        t.ok(truth is not None and walk is not None and not missed and not phantom,
             "%s, imported in the order %s: doctor predicts the %d CUDA libraries the loader maps, each from the same "
             "file" % (label, ", ".join(order), len(truth or [])),
             err or "missed (mapped, not predicted): %s\nphantom (predicted, not mapped): %s" % (missed, phantom))
        outside_mapped |= {p for p in truth or [] if not p.startswith("/env/")}
    probs = [p for p in doc.get("problems", []) if p["code"].startswith("framework-cud")]
    text = " ".join(p["message"] for p in probs)
    for p in probs:
        print("# %s: [%s] %s\n#   fix: %s" % (label, p["code"], p["message"], p["fix"]))
    if not llp:
        t.ok(not probs and not outside_mapped, "%s: nothing comes from outside the environment and doctor says so"
             % label, json.dumps(probs, indent=1) + "\n" + "\n".join(sorted(outside_mapped)))
        continue
    named = set(re.findall(r"/opt/cuda-13\.0/lib64/lib[^ ,;:()]+", text))
    t.ok(outside_mapped and named == outside_mapped,
         "%s: doctor's problems name every library mapped from the system CUDA, and no other (%d)"
         % (label, len(outside_mapped)),
         "mapped from outside: %s\nnamed: %s\n%s" % (sorted(outside_mapped), sorted(named), json.dumps(probs, indent=1)))
    t.ok("libcurand" not in text, "%s: no problem for cuRAND, which neither framework loads" % label, text)
    t.ok(all("LD_LIBRARY_PATH" in p["message"] for p in probs if "/opt/cuda-13.0" in p["message"]),
         "%s: each problem names LD_LIBRARY_PATH as what makes the loader take it" % label,
         json.dumps(probs, indent=1))
t.done()
