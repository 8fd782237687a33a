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
SYSTEM = [("/opt/cuda-13.0/lib64", so) for so in
          ("libcudart.so.13", "libcublas.so.13", "libcublasLt.so.13", "libnvJitLink.so.13", "libnvrtc.so.13",
           "libcurand.so.10", "libcudnn_graph.so.9")]
CUDA_LIBS = ("cudart", "cublas", "cublasLt", "cudnn", "nvJitLink", "nvrtc", "nvrtc-builtins", "cusparse", "cusparseLt",
             "cufft", "cufftw", "curand", "cusolver", "cusolverMg", "nccl", "cupti", "nvToolsExt", "cufile",
             "nvshmem_host")

LDSO = next(([p, "--inhibit-cache"] for p in ("/lib64/ld-linux-x86-64.so.2", "/lib/ld-linux-aarch64.so.1")
             if os.path.exists(p)), [])
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
failed = set()
class DlInfo(ctypes.Structure):
    _fields_ = [("fname", ctypes.c_char_p), ("fbase", ctypes.c_void_p), ("sname", ctypes.c_char_p),
                ("saddr", ctypes.c_void_p)]
def file_of(f):
    info = DlInfo()
    ok = ctypes.CDLL(None).dladdr(ctypes.cast(f, ctypes.c_void_p), ctypes.byref(info))
    return os.path.realpath(info.fname.decode()) if ok and info.fname else ""
def call(c, own=False):
    target = path_of(c["target"]) if c["how"] == "path" else c["target"]
    if not target:
        return
    if c["caller"] == "python":
        try:
            ctypes.CDLL(target, mode=G)
        except OSError:
            failed.add(target)
        return
    who = c["caller"][7:] if c["caller"].startswith("soname:") else path_of(c["caller"])
    h = loaded(who) if who else None
    if h:
        f = h.cudaup_standin_dlopen
        if own and not file_of(f).startswith(os.path.realpath(sp) + "/"):
            return  # a wheel's rows say what that wheel's file asks for; a file from outside is another file
        f.restype = ctypes.c_void_p
        f.argtypes = [ctypes.c_char_p]
        if not f(target.encode()):
            failed.add(target)
for stage in (("import", "use"), ("gpu",)):
    for fw in plan["order"]:
        for c in plan["calls"][fw]:
            if c["stage"] in stage:
                call(c)
for _ in range(4):
    for c in plan["lib_calls"]:
        call({"caller": "soname:" + c["caller"], "how": "name", "target": c["target"]}, own=True)
maps = set()
for line in open("/proc/self/maps"):
    parts = line.split(None, 5)
    if len(parts) == 6 and parts[5].strip().startswith("/"):
        maps.add(parts[5].strip())
print(json.dumps({"maps": sorted(maps), "failed": sorted(failed)}))
'''


def cuda_lib(path):
    name = os.path.basename(path)
    m = re.match(r"lib(.+?)\.so(\.[0-9.]+)?$", name)
    return bool(m) and (m.group(1) in CUDA_LIBS or m.group(1).startswith("cudnn_"))


class Env:
    def __init__(self, name, wheels=WHEELS, system=SYSTEM, calls=None, lib_calls=None):
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
        self.calls = calls or CALLS
        self.lib_calls = LIB_CALLS if lib_calls is None else lib_calls
        if wheels is WHEELS:
            mkrecorded.install(self.sp, WHEELS, CACHE, also=["libjax_common.so"])
            # Not recorded: jax's own dist-info and jaxlib's object that dlopens the PJRT plugin.
            mkrecorded.extra(self.sp, "jaxlib/libjax_common.so", CACHE, "jax", "0.10.2")
        else:
            mkrecorded.install(self.sp, wheels, CACHE)
        for folder, so in system:
            mkelf.lib(self.root + folder + "/" + so, so, cache=CACHE, extra_c=mkrecorded.DLOPEN_C)

    def strip(self, p):
        return p[len(self.root):] if p.startswith(self.root + "/") else p

    def truth(self, order, llp):
        env = {k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH", "LD_PRELOAD")}
        if llp:
            env["LD_LIBRARY_PATH"] = self.root + llp
        plan = {"order": order, "calls": self.calls, "lib_calls": self.lib_calls}
        # The loader without this host's /etc/ld.so.cache (glibc's --inhibit-cache): doctor reads the machine root's,
        # which has none; this host's names a CUDA 13.0 of its own (libnccl.so.2), which no walk of the root can see.
        r = subprocess.run(LDSO + [PY, "-c", REPLAY, self.sp, json.dumps(plan)], capture_output=True, text=True, env=env,
                           timeout=300)
        if r.returncode != 0:
            return None, r.stderr[-2000:]
        out = json.loads(r.stdout)
        self.failed = out["failed"]
        return sorted(self.strip(p) for p in out["maps"] if cuda_lib(p)), None

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
    # One fact, one problem (issue 47 review: libnvJitLink.so.13 was both framework-cuda-shadowed and -duplicate).
    twice = sorted(lib for lib in outside_mapped
                   if sum(1 for p in probs if re.search(re.escape(lib) + r"(?![\w.])", p["message"])) != 1)
    t.ok(not twice, "%s: each library from outside is named by one problem, not two" % label,
         "%s\n%s" % (twice, json.dumps(probs, indent=1)))

# No cause that is none: an ld.so.conf.d file naming the system CUDA's folder too serves nothing here (every object
# that asks finds the wheels' copies on its DT_RUNPATH before the cache), so no problem may name it.
CONF13 = "/etc/ld.so.conf.d/cuda-13-0.conf"
os.makedirs(e.root + "/etc/ld.so.conf.d", exist_ok=True)
with open(e.root + "/etc/ld.so.conf", "w") as f:
    f.write("include /etc/ld.so.conf.d/*.conf\n")
with open(e.root + CONF13, "w") as f:
    f.write("/opt/cuda-13.0/lib64\n")
probs = [p for p in e.doctor("/opt/cuda-13.0/lib64").get("problems", []) if p["code"].startswith("framework-cud")]
t.ok(probs and not [p for p in probs if CONF13 in p["message"] + p["fix"]],
     "LD_LIBRARY_PATH and %s, which serves nothing the walk loads: no problem names the file" % CONF13,
     json.dumps(probs, indent=1))

# TensorFlow 2.20 alone with its CUDA 12 wheels (issue 47 review): cuDNN 9.10.2's libraries have DT_RUNPATH
# $ORIGIN/../../nvrtc/lib, the nvrtc wheel installs nvidia/cuda_nvrtc/lib, so cuDNN's dlopen of libnvrtc.so.12 on GPU
# work finds it nowhere.  doctor must predict every recorded load the real loader fails, naming the library, who asks
# and at which stage, with a fix, and no other; and with LD_LIBRARY_PATH and an ld.so.conf.d file both holding
# libnccl.so.2, name both causes, the variable first, with both fixes.
TF_WHEELS = ["tensorflow-2.20.0", "nvidia-cublas-cu12-12.8.4.1", "nvidia-cuda-cupti-cu12-12.8.90",
             "nvidia-cuda-nvrtc-cu12-12.8.93", "nvidia-cuda-runtime-cu12-12.8.90", "nvidia-cudnn-cu12-9.10.2.21",
             "nvidia-cufft-cu12-11.3.3.83", "nvidia-cusolver-cu12-11.7.3.90", "nvidia-cusparse-cu12-12.5.8.93",
             "nvidia-nccl-cu12-2.27.5", "nvidia-nvjitlink-cu12-12.8.93", "nvidia-nvshmem-cu12-3.4.5"]
TF_PKGS = {(mkrecorded.recording(w)["dist"], mkrecorded.recording(w)["version"]) for w in TF_WHEELS}
TF_LIB_CALLS = [x for x in CAT["cuda_lib_loads"] if (x["package"], x["version"]) in TF_PKGS]
t.ok(any(x["target"] == "libnvrtc.so.12" and x["package"] == "nvidia-cudnn-cu12" for x in TF_LIB_CALLS),
     "cuda_lib_loads.csv records cuDNN 9.10.2's own dlopen of libnvrtc.so.12 (libcudnn_engines_precompiled.so.9)",
     json.dumps(TF_LIB_CALLS, indent=1)[-2000:])
CONF = "/etc/ld.so.conf.d/nccl.conf"
tf = Env("tf-cu12", wheels=TF_WHEELS, system=[("/opt/cuda-12.9/lib64", "libnccl.so.2"), ("/opt/nccl/lib", "libnccl.so.2")],
         calls={"tensorflow": loads_of("tensorflow", "2.20.0", 12)}, lib_calls=TF_LIB_CALLS)
truth, err = tf.truth(["tensorflow"], None)
failed = sorted(n for n in tf.failed if cuda_lib(n))
doc = tf.doctor(None)
walk = next((w for w in doc.get("framework_loads", []) if w["order"] == ["tensorflow"]), None)
pred = sorted({l["real"] for l in walk["libraries"]}) if walk else None
t.ok(truth is not None and pred == truth, "TensorFlow 2.20 alone: doctor predicts the %d CUDA libraries the loader maps"
     % len(truth or []), err or "missed: %s\nphantom: %s" % (sorted(set(truth or []) - set(pred or [])),
                                                          sorted(set(pred or []) - set(truth or []))))
unres = [p for p in doc.get("problems", []) if p["code"] == "framework-cuda-unresolved"]
for p in unres:
    print("# TensorFlow alone: [%s] %s\n#   fix: %s" % (p["code"], p["message"], p["fix"]))
named = sorted({re.search(r"would fail to load (\S+)", p["message"]).group(1) for p in unres})
t.ok("libnvrtc.so.12" in failed and named == failed,
     "TensorFlow 2.20 alone: doctor names every recorded load the real loader fails (%s), and no other" % ", ".join(failed),
     "failed: %s\nnamed: %s\n%s" % (failed, named, json.dumps(unres, indent=1)))
nvrtc = next((p for p in unres if "load libnvrtc.so.12" in p["message"]), {})
t.ok(has := all(x in nvrtc.get("message", "") for x in ("TensorFlow 2.20.0", "on GPU work", "libcudnn_engines_precompiled.so.9",
                                                          "$ORIGIN/../../nvrtc/lib")) and
     "nvidia/cuda_nvrtc/lib" in nvrtc.get("fix", "") and "LD_LIBRARY_PATH" in nvrtc.get("fix", ""),
     "TensorFlow 2.20 alone: libnvrtc.so.12 named with who asks (cuDNN's sub-library and its DT_RUNPATH), the stage, and "
     "a fix naming the wheel's folder", json.dumps(nvrtc, indent=1))
# TensorFlow 2.20 builds NCCL in and never calls TSL's GetNcclDsoHandle (no relocation against it in
# libtensorflow_framework.so.2; the reviewer's real-wheel check): with LD_LIBRARY_PATH and an ld.so.conf.d file both
# holding libnccl.so.2, it loads none, and doctor names no libnccl.so.2 and proposes no edit of /etc.  Nor NVSHMEM,
# reached only from XLA's experimental collectives.
t.ok(not any(x["target"] in ("libnccl.so.2", "libnvshmem_host.so.3") for x in loads_of("tensorflow", "2.20.0", 12)),
     "framework_loads.csv: TensorFlow 2.20 dlopens neither libnccl.so.2 nor libnvshmem_host.so.3 on ordinary GPU work",
     json.dumps(loads_of("tensorflow", "2.20.0", 12), indent=1)[-3000:])
os.makedirs(tf.root + "/etc/ld.so.conf.d", exist_ok=True)
with open(tf.root + "/etc/ld.so.conf", "w") as f:
    f.write("include /etc/ld.so.conf.d/*.conf\n")
with open(tf.root + CONF, "w") as f:
    f.write("/opt/nccl/lib\n")
truth, err = tf.truth(["tensorflow"], "/opt/cuda-12.9/lib64")
doc = tf.doctor("/opt/cuda-12.9/lib64")
nccl = [p for p in doc.get("problems", []) if "libnccl.so.2" in p["message"] or CONF in p.get("fix", "")]
t.ok(truth is not None and not any("libnccl" in p for p in truth) and not nccl,
     "TensorFlow 2.20 alone, LD_LIBRARY_PATH and %s both holding libnccl.so.2: the loader maps none, and no problem "
     "names it or proposes an edit of %s" % (CONF, CONF), err or json.dumps(nccl, indent=1))
# A library from outside judged by the wheel's rows (the reviewer's check with a real CUDA 13.0 + cuDNN 9.19 on
# LD_LIBRARY_PATH): the system's libcudnn_engines_precompiled.so.9 is another file than the cu12 wheel's 9.10.2 one
# and asks for libnvrtc.so.13, not the wheel's libnvrtc.so.12; doctor must not say it asks for libnvrtc.so.12.
SYS13 = "/opt/cuda-13.0/lib"
mkelf.lib(tf.root + SYS13 + "/libcudnn_engines_precompiled.so.9", "libcudnn_engines_precompiled.so.9", cache=CACHE,
          extra_c=mkrecorded.DLOPEN_C)
truth, err = tf.truth(["tensorflow"], SYS13)
failed = sorted(n for n in tf.failed if cuda_lib(n))
doc = tf.doctor(SYS13)
unres = [p for p in doc.get("problems", []) if p["code"] == "framework-cuda-unresolved"]
for p in unres:
    print("# TensorFlow alone, LD_LIBRARY_PATH=%s: [%s] %s" % (SYS13, p["code"], p["message"]))
named = sorted({re.search(r"would fail to load (\S+)", p["message"]).group(1) for p in unres})
t.ok(truth is not None and SYS13 + "/libcudnn_engines_precompiled.so.9" in truth and named == failed and
     not any(SYS13 in p["message"] and "libnvrtc.so.12" in p["message"] for p in unres),
     "TensorFlow 2.20 alone with a system cuDNN's engines on LD_LIBRARY_PATH: the system file is not judged by the "
     "wheel's rows (no 'asks for libnvrtc.so.12'), and doctor names exactly the loads that fail (%s)" % failed,
     err or "failed: %s\nnamed: %s\n%s" % (failed, named, json.dumps(unres, indent=1)))
# With LD_LIBRARY_PATH and an ld.so.conf.d file both holding libnvrtc.so.12 (which cuDNN's engines ask for and the
# wheel's copy cannot serve: a folder nothing searches), name both causes, the variable first, with both fixes.
for folder in ("/opt/cuda-12.9/lib64", "/opt/nccl/lib"):
    mkelf.lib(tf.root + folder + "/libnvrtc.so.12", "libnvrtc.so.12", cache=CACHE, extra_c=mkrecorded.DLOPEN_C)
truth, err = tf.truth(["tensorflow"], "/opt/cuda-12.9/lib64")
doc = tf.doctor("/opt/cuda-12.9/lib64")
nv = [p for p in doc.get("problems", []) if p["code"].startswith("framework-cud") and "libnvrtc.so.12" in p["message"]]
for p in nv:
    print("# TensorFlow, LD_LIBRARY_PATH and %s: [%s] %s\n#   fix: %s" % (CONF, p["code"], p["message"], p["fix"]))
m = nv[0]["message"] if len(nv) == 1 else ""
fx = nv[0]["fix"] if len(nv) == 1 else ""
t.ok(truth and "/opt/cuda-12.9/lib64/libnvrtc.so.12" in truth and "/opt/cuda-12.9/lib64/libnvrtc.so.12" in m and
     "LD_LIBRARY_PATH holds /opt/cuda-12.9/lib64" in m and CONF in m and
     m.index("LD_LIBRARY_PATH holds") < m.index(CONF) and "/opt/nccl/lib" in m and
     "LD_LIBRARY_PATH" in fx and CONF in fx and fx.index("LD_LIBRARY_PATH") < fx.index(CONF),
     "libnvrtc.so.12 from LD_LIBRARY_PATH (as the real loader maps it) and, without it, from %s: one problem naming "
     "both causes in the loader's order, with both fixes" % CONF, err or json.dumps(nv, indent=1))
# Without both causes the loader finds it nowhere: no fix may promise that the wheel then serves it.
t.ok("find it nowhere" in m and "wheels then serve it" not in fx,
     "the chain ends nowhere: the fixes do not say the environment's own wheels then serve libnvrtc.so.12", fx)
# PyTorch 2.10 beside it (CUDA 12 wheels): torch loads libnvrtc.so.12 by its path at import, so cuDNN's dlopen by name
# finds it in either order; only TensorFlow imported alone fails, and doctor says so, naming that order alone.
BOTH = TF_WHEELS + ["torch-2.10.0", "nvidia-curand-cu12-10.3.9.90", "nvidia-cufile-cu12-1.13.1.3",
                    "nvidia-cusparselt-cu12-0.7.1", "nvidia-nvtx-cu12-12.8.90"]
PKGS2 = {(mkrecorded.recording(w)["dist"], mkrecorded.recording(w)["version"]) for w in BOTH}
both = Env("torch-tf-cu12", wheels=BOTH, system=[],
           calls={"pytorch": loads_of("pytorch", "2.10.0", 12), "tensorflow": loads_of("tensorflow", "2.20.0", 12)},
           lib_calls=[x for x in CAT["cuda_lib_loads"] if (x["package"], x["version"]) in PKGS2])
fails = {}
for order in (["pytorch", "tensorflow"], ["tensorflow", "pytorch"], ["tensorflow"]):
    truth, err = both.truth(order, None)
    fails[",".join(order)] = "libnvrtc.so.12" in both.failed if truth is not None else err
doc = both.doctor(None)
nv = [p for p in doc.get("problems", []) if p["code"] == "framework-cuda-unresolved" and "load libnvrtc.so.12" in p["message"]]
t.ok(fails == {"pytorch,tensorflow": False, "tensorflow,pytorch": False, "tensorflow": True} and len(nv) == 1 and
     "when TensorFlow is imported alone" in nv[0]["message"] and "in the order" not in nv[0]["message"],
     "PyTorch 2.10 and TensorFlow 2.20: libnvrtc.so.12 fails only when TensorFlow is imported alone (as the real loader "
     "has it), and doctor names that order alone", "%s\n%s" % (fails, json.dumps(nv, indent=1)))
t.done()
