#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""TensorFlow 1.13-2.4 planned from the catalog's legacy rows (data/legacy/): CUDA from NVIDIA's runfiles,
cuDNN from its .tgz, Python and pins per release, on Maxwell, Pascal, Turing and Ampere; refusals."""
import csv
import os
import sys

from cutest import SRCDIR, Tap, run

sys.path.insert(0, os.path.join(SRCDIR, "tests", "fixtures"))
import machines  # noqa: E402

t = Tap()
MIRROR = "file://" + os.path.join(SRCDIR, "tests", "fixtures", "nvidia")
LEGACY = os.path.join(SRCDIR, "data", "legacy")


def rows(name):
    with open(os.path.join(LEGACY, name), newline="") as f:
        return list(csv.DictReader(f))


RUNFILES = {r["cuda"]: r for r in rows("cuda_runfiles.csv")}
CUDNN = rows("cudnn_tgz.csv")

# A python3.X that can make a venv, on PATH (the machine's root lists the names; this runs).
goodbin = t.tmpdir("goodbin")
for v in ("3.7", "3.8"):
    with open(os.path.join(goodbin, "python" + v), "w") as f:
        f.write("#!/bin/sh\nexit 0\n")
    os.chmod(os.path.join(goodbin, "python" + v), 0o755)

GPUS = {
    "maxwell": ("13c2", "5.2", "NVIDIA GeForce GTX 970"),
    "pascal": ("1b80", "6.1", "NVIDIA GeForce GTX 1080"),
    "turing": ("1e07", "7.5", "NVIDIA GeForce RTX 2080 Ti"),
    "ampere": ("2204", "8.6", "NVIDIA GeForce RTX 3090"),
    "kepler": ("1180", "3.0", "NVIDIA GeForce GTX 680"),
}
DRIVERS = {"535": ("535.183.01", 12020), "580": ("580.95.05", 13000), "390": ("390.157", 9010)}
roots = {}


def box(gpu, driver):
    key = (gpu, driver)
    if key not in roots:
        dev, cc, name = GPUS[gpu]
        ver, cuda = DRIVERS[driver]
        root = os.path.join(t.tmpdir("%s-%s" % key), "root")
        machines.build_spec({"os": "ubuntu", "gpus": [("0000:01:00.0", dev, "0x030000", "nvidia", cc, 4096, name)],
                             "driver": ver, "cuda": cuda, "libs": True, "pythons": ["3.7", "3.8"]}, root)
        roots[key] = root
    return roots[key]


def plan(gpu, driver, *args):
    root = box(gpu, driver)
    env = {"FAKE_NVIDIA_CONFIG": os.path.join(root, "fake-nvidia.conf"), "PATH": goodbin + ":/usr/bin:/bin"}
    return run(["plan", "--json", "--root", root, "--mirror", MIRROR, "--cache-dir", t.tmpdir("cache"),
                "--prefix", "/opt/cu", "--state-dir", "/var/tmp/st"] + list(args), env=env)


# The issue's own case: a GTX 970 on driver 535 and 580, TensorFlow 1.14 with Keras 2.2.4.
for drv in ("535", "580"):
    r = plan("maxwell", drv, "--framework", "tensorflow==1.14")
    d = r.json() or {}
    fw = d.get("framework") or {}
    t.eq(r.rc, 0, "GTX 970, driver %s, tensorflow==1.14: planned" % drv, r)
    t.eq((d.get("cuda") or {}).get("version"), "10.0.130", "CUDA 10.0.130 (tensorflow_stacks.csv 1.14.0 -> CUDA 10.0)")
    t.eq((d.get("cuda") or {}).get("path"), "/opt/cu/cuda-10.0", "into PREFIX/cuda-10.0")
    t.eq(((d.get("cudnn") or {}).get("version"), (d.get("cudnn") or {}).get("cuda_variant")), ("7.4.2", "10.0"),
         "cuDNN 7.4.2 for CUDA 10.0 (the 7.4 it was built with; cudnn_tgz.csv)")
    t.eq(fw.get("python"), "3.7", "Python 3.7")
    t.eq(fw.get("pip"), ["tensorflow-gpu==1.14.0", "keras==2.2.4", "protobuf<=3.20.3", "h5py<3", "numpy<1.19"],
         "tensorflow-gpu 1.14.0 with Keras 2.2.4 and the pins (pins.csv)")
    t.eq([(g.get("code"), g.get("target")) for g in fw.get("gpu_code", [])], [("sass", "sm_52")],
         "runs with its sm_52 code (GPU code row)")
    dl = {x["component"]: x for x in d.get("downloads", [])}
    t.eq(dl.get("cuda_runfile", {}).get("sha256"), RUNFILES["10.0.130"]["sha256"], "the runfile's pinned sha256")
    t.eq(dl.get("cuda_runfile", {}).get("url"),
         MIRROR + "/cuda/10.0/Prod/local_installers/cuda_10.0.130_410.48_linux",
         "the runfile from the mirror, under NVIDIA's own path")
    t.eq(dl.get("cudnn", {}).get("url"), MIRROR + "/redist/cudnn/v7.4.2/cudnn-10.0-linux-x64-v7.4.2.24.tgz",
         "the cuDNN .tgz from the mirror, under NVIDIA's own path")
    t.ok(any("410.48" in x for x in d.get("reasons", [])), "a reason names CUDA 10.0's driver floor", d.get("reasons"))
    t.eq([dl.get(k, {}).get("size", "absent") for k in ("cuda_runfile", "cudnn")], [None, None],
         "sizes NVIDIA does not publish are null, not made up (cuda_runfiles.csv size column empty)")

# Each release 1.13-2.4 on Maxwell, Pascal and Turing: CUDA, cuDNN, Python and the package, each a data row.
EXPECT = {
    # version asked: (CUDA, cuDNN label, cuDNN variant, Python, first pip spec, Keras or None)
    "1.13": ("10.0.130", "7.4.2", "10.0", "3.7", "tensorflow-gpu==1.13.1", "keras==2.2.4"),
    "1.14": ("10.0.130", "7.4.2", "10.0", "3.7", "tensorflow-gpu==1.14.0", "keras==2.2.4"),
    "1.15": ("10.0.130", "7.4.2", "10.0", "3.7", "tensorflow-gpu==1.15.5", "keras==2.3.1"),
    "2.0": ("10.0.130", "7.4.2", "10.0", "3.7", "tensorflow-gpu==2.0.4", None),
    "2.1": ("10.1.243", "7.6.5", "10.1", "3.7", "tensorflow==2.1.4", None),
    "2.2": ("10.1.243", "7.6.5", "10.1", "3.8", "tensorflow==2.2.3", None),
    "2.3": ("10.1.243", "7.6.5", "10.1", "3.8", "tensorflow==2.3.4", None),
    "2.4": ("11.0.3", "8.0.5", "11.0", "3.8", "tensorflow==2.4.4", None),
}
for gpu in ("maxwell", "pascal", "turing"):
    for v, (cuda, cudnn, variant, py, pkg, keras) in EXPECT.items():
        r = plan(gpu, "580", "--framework", "tensorflow==" + v)
        d = r.json() or {}
        fw = d.get("framework") or {}
        got = ((d.get("cuda") or {}).get("version"), (d.get("cudnn") or {}).get("version"),
               (d.get("cudnn") or {}).get("cuda_variant"), fw.get("python"), (fw.get("pip") or [None])[0],
               keras in (fw.get("pip") or []) if keras else not any(p.startswith("keras") for p in fw.get("pip") or []))
        t.eq(got, (cuda, cudnn, variant, py, pkg, True), "%s, tensorflow==%s" % (gpu, v), r)

# Turing has no sm_75 in the 1.x wheels: Volta's sm_70 runs on it (same major, NVIDIA's rule).
r = plan("turing", "580", "--framework", "tensorflow==1.15")
d = r.json() or {}
t.eq([(g.get("code"), g.get("target")) for g in (d.get("framework") or {}).get("gpu_code", [])], [("sass", "sm_70")],
     "RTX 2080 Ti, 1.15: its sm_70 code")

# An exact release inside a row is that release; --cudnn picks 7.6.5 for 1.15 (7.4-7.6).
r = plan("maxwell", "580", "--framework", "tensorflow==1.15.2", "--cudnn", "7.6")
d = r.json() or {}
t.eq(((d.get("framework") or {}).get("pip") or [None])[0], "tensorflow-gpu==1.15.2", "tensorflow==1.15.2: that release")
t.eq((d.get("cudnn") or {}).get("version"), "7.6.5", "--cudnn 7.6: cuDNN 7.6.5 for CUDA 10.0")

# --components means what it says for a runfile too: only those pieces are placed (test_runfile: components_chosen).
r = plan("maxwell", "580", "--framework", "tensorflow==1.14", "--components", "runtime,math")
t.eq((r.json() or {}).get("cuda", {}).get("components"),
     ["cuda_cudart", "libcublas", "libcufft", "libcurand", "libcusolver", "libcusparse"], "--components runtime,math", r)
r = plan("maxwell", "580", "--framework", "tensorflow==1.14", "--components", "nsight")
t.ok(r.rc == 2 and "runfile holds none" in (r.json() or {}).get("error", ""), "--components nsight: exit 2, naming what it holds", r)

# Ampere: CUDA 10 and cuDNN 7 predate it; TF1 is refused naming nvidia-tensorflow (its data vouches for cc >= 6.0).
r = plan("ampere", "535", "--framework", "tensorflow==1.14")
d = r.json() or {}
t.eq(r.rc, 3, "RTX 3090, tensorflow==1.14: refused, exit 3", r)
t.ok("8.6" in d.get("error", "") and "CUDA 10.0" in d.get("error", ""), "the refusal names the GPU and the CUDA", d)
t.ok("nvidia-tensorflow==1.15.5+nv23.03" in d.get("advice", "") and "nvidia-pyindex" in d.get("advice", ""),
     "the advice names NVIDIA's TF1 build", d)
# ... while 2.4 (CUDA 11.0, PTX compute_80) runs there by JIT.
r = plan("ampere", "535", "--framework", "tensorflow==2.4")
d = r.json() or {}
t.ok(r.rc == 0 and d["cuda"]["version"] == "11.0.3" and
     [(g["code"], g["target"]) for g in d["framework"]["gpu_code"]] == [("ptx-jit", "compute_80")],
     "RTX 3090, tensorflow==2.4: CUDA 11.0.3, PTX JIT of compute_80", r)

# Kepler 3.0: no code at all, and not a GPU nvidia-tensorflow vouches for: refused without naming it.
r = plan("kepler", "535", "--framework", "tensorflow==1.14")
d = r.json() or {}
t.ok(r.rc == 3 and "3.0" in d.get("error", "") and "nvidia-tensorflow" not in (d.get("advice") or ""),
     "GTX 680, tensorflow==1.14: refused, and nvidia-tensorflow is not offered", r)

# A driver older than CUDA 10.0's floor (410.48), bad combinations: exit 3 with the number needed.
r = plan("maxwell", "390", "--framework", "tensorflow==1.14")
t.ok(r.rc == 3 and "410.48" in (r.json() or {}).get("error", ""), "driver 390: refused, naming 410.48", r)
r = plan("maxwell", "580", "--framework", "tensorflow==1.14", "--cuda", "11.0")
t.ok(r.rc == 3 and "10.0" in (r.json() or {}).get("error", ""), "--cuda 11.0 with TF 1.14: refused", r)
r = plan("maxwell", "580", "--framework", "tensorflow==1.14", "--python", "3.8")
t.ok(r.rc == 3 and "3.7" in (r.json() or {}).get("error", ""), "--python 3.8 with TF 1.14: refused", r)

# list names the runfiles, their driver floor and whether the driver here runs them.
for drv, want in (("580", True), ("390", False)):
    root = box("maxwell", drv)
    r = run(["list", "--json", "--root", root, "--mirror", MIRROR, "--cache-dir", t.tmpdir("cache")],
            env={"FAKE_NVIDIA_CONFIG": os.path.join(root, "fake-nvidia.conf")})
    leg = {e["version"]: e for e in (r.json() or {}).get("legacy_cuda", [])}
    t.ok(sorted(leg) == sorted(RUNFILES) and leg.get("10.0.130", {}).get("driver_min") == "410.48" and
         leg.get("10.0.130", {}).get("runs_on_driver") is want,
         "list, driver %s: the runfiles of cuda_runfiles.csv, 10.0.130 from driver 410.48 (runs here: %s)" % (drv, want), r)

# Unchanged: without a version, TensorFlow is the newest that fits (not a legacy stack).
r = plan("maxwell", "580")
t.ok(r.rc == 0 and r.json()["cuda"]["version"] not in RUNFILES and
     not any(x["component"] == "cuda_runfile" for x in r.json()["downloads"]),
     "no version asked: the newest TensorFlow that fits, from the redist archives as before", r)

# ---- The done-when: install the whole stack from a mirror holding the runfile, the cuDNN .tgz and the wheels ----
sys.path.insert(0, os.path.join(SRCDIR, "tests", "security"))
import hashlib  # noqa: E402
import json  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402

import mkrunfile  # noqa: E402
import mkwheels  # noqa: E402

PY = shutil.which("python3.11", path="/usr/bin:/bin")
if not PY:
    t.skip("the legacy install", "no python3.11 on this machine to stand in for python3.7")
    t.done()
work = t.tmpdir("install")
M = os.path.join(work, "mirror")
shutil.copytree(os.path.join(SRCDIR, "tests", "fixtures", "nvidia"), M)
RUN_REL = "cuda/10.0/Prod/local_installers/cuda_10.0.130_410.48_linux"
TGZ_REL = "redist/cudnn/v7.4.2/cudnn-10.0-linux-x64-v7.4.2.24.tgz"
runfile = mkrunfile.runfile("CUDA 10.0.130", mkrunfile.outer_10(mkrunfile.runfile("toolkit", mkrunfile.tar_gz(mkrunfile.tree()))))
tgz = mkrunfile.tar_gz([("cuda/include/cudnn.h", "f", b"#define CUDNN_MAJOR 7\n#define CUDNN_MINOR 4\n#define CUDNN_PATCHLEVEL 2\n"),
                        ("cuda/lib64/libcudnn.so.7.4.2", "f", b"\x7fELF stand-in cudnn 7.4.2\n"),
                        ("cuda/lib64/libcudnn.so.7", "l", "libcudnn.so.7.4.2"),
                        ("cuda/lib64/libcudnn.so", "l", "libcudnn.so.7"),
                        ("cuda/NVIDIA_SLA_cuDNN_Support.txt", "f", b"license\n")])
for rel, data in ((RUN_REL, runfile), (TGZ_REL, tgz)):
    os.makedirs(os.path.dirname(os.path.join(M, rel)), exist_ok=True)
    with open(os.path.join(M, rel), "wb") as f:
        f.write(data)
# The catalog pins NVIDIA's own files; this one pins the fixtures' (CUDAUP_CATALOG, as a site would not).
cat = json.load(open(os.path.join(SRCDIR, "data", "catalog.json")))
for e in cat["legacy"]["cuda"]:
    if e["version"] == "10.0.130":
        e["sha256"] = hashlib.sha256(runfile).hexdigest()
for e in cat["legacy"]["cudnn"]:
    if e["full"] == "7.4.2.24":
        e["sha256"] = hashlib.sha256(tgz).hexdigest()
CAT = os.path.join(work, "catalog.json")
json.dump(cat, open(CAT, "w"))
WHEELS = os.path.join(work, "wheels")
mkwheels.build(WHEELS, [("tensorflow-gpu", "1.14.0"), ("keras", "2.2.4"), ("protobuf", "3.20.3"),
                        ("h5py", "2.10.0"), ("numpy", "1.18.5")])
pybin = os.path.join(work, "bin")
os.makedirs(pybin)
os.symlink(PY, os.path.join(pybin, "python3.7"))  # a Python that makes venvs, under the name TF 1.14 asks for
ROOT = box("maxwell", "535")
P, S, C, HOME = (os.path.join(work, n) for n in ("p", "s", "c", "home"))
os.makedirs(HOME)
ENV = {"FAKE_NVIDIA_CONFIG": os.path.join(ROOT, "fake-nvidia.conf"), "PATH": pybin + ":/usr/bin:/bin", "HOME": HOME,
       "XDG_DATA_HOME": os.path.join(HOME, "data"), "CUDAUP_CATALOG": CAT, "PIP_NO_INDEX": "1",
       "PIP_FIND_LINKS": WHEELS, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
COMMON = ["--root", ROOT, "--prefix", P, "--state-dir", S]


def cu(*args, timeout=600):
    return run(list(args[:1]) + ["--json"] + COMMON + list(args[1:]), env=ENV, timeout=timeout)


r = cu("install", "--yes", "--mirror", "file://" + M, "--cache-dir", C, "--framework", "tensorflow==1.14",
       "--env-tool", "venv", "--env-name", "tf1", "--env-scope", "conda", "--shell-rc", os.path.join(HOME, ".bashrc"))
t.eq(r.rc, 0, "install --framework tensorflow==1.14 from a mirror with the runfile, the .tgz and the wheels", r)
tree = os.path.join(P, "cuda-10.0")
t.ok(all(os.path.exists(os.path.join(tree, x)) for x in ("bin/nvcc", "lib/libcudart.so.10.0.130", "lib/libcublas.so.10.0.130",
                                                        "include/cuda.h", "nvvm/bin/cicc", "include/cudnn.h", "lib/libcudnn.so.7")),
     "the toolkit's files from the nested runfile and cuDNN's from the .tgz, in PREFIX/cuda-10.0", sorted(os.listdir(tree)) if os.path.isdir(tree) else None)
t.eq(os.readlink(os.path.join(tree, "lib/libcudnn.so.7")) if os.path.islink(os.path.join(tree, "lib/libcudnn.so.7")) else None,
     "libcudnn.so.7.4.2", "cuDNN's links kept")
t.ok(not any(os.path.exists(os.path.join(tree, x)) for x in ("bin/nvprof", "lib/libnppc.so.10.0.130", "doc", "cuda-installer.pl",
                                                            "nvidia.ko", "samples", "run_files")),
     "no driver, samples, installer, NPP or profiler")
rec = json.load(open(os.path.join(tree, ".cudaup", "record.json"))) if os.path.exists(os.path.join(tree, ".cudaup", "record.json")) else {}
t.ok("lib/libcudart.so.10.0.130" in json.dumps(rec) and "cuda_runfile" in json.dumps(rec), "the record lists the runfile's files", rec.keys())
venv = os.path.join(HOME, "data", "cudaup", "envs", "tf1")
out = subprocess.run([os.path.join(venv, "bin", "python"), "-c",
                      "import tensorflow as tf, keras, h5py; print(tf.__version__, keras.__version__, h5py.__version__, "
                      "tf.test.is_gpu_available(cuda_only=True))"],
                     capture_output=True, text=True, env={"FAKE_NVIDIA_CONFIG": ENV["FAKE_NVIDIA_CONFIG"]})
t.eq(out.stdout.strip(), "1.14.0 2.2.4 2.10.0 True", "tensorflow-gpu 1.14.0, Keras 2.2.4 and h5py 2.10 import; the TF1 check sees the GPU double", out)
act = subprocess.run(["bash", "-c", ". '%s/bin/activate'; printf '%%s' \"$LD_LIBRARY_PATH\"; deactivate; printf '|%%s' \"${LD_LIBRARY_PATH-unset}\"" % venv],
                     capture_output=True, text=True, env={"PATH": "/usr/bin:/bin", "HOME": HOME})
t.ok(act.stdout.split("|")[0].split(":")[0] in (os.path.join(P, "cuda", "lib64"), os.path.join(P, "cuda", "lib")) and
     act.stdout.endswith("|unset"), "activation puts this CUDA's libraries on LD_LIBRARY_PATH for TF1; deactivate takes them off", act)

# verify the TF1 way on the GPU doubles: is_gpu_available, then a matmul and a convolution in a tf.Session on /gpu:0
r = cu("verify")
checks = {c["name"]: c for c in (r.json() or {}).get("checks", [])}
fwc = checks.get("framework", {})
t.ok(fwc.get("status") == "pass" and "TensorFlow 1.14.0" in fwc.get("detail", "") and "1 GPU" in fwc.get("detail", ""),
     "verify: TensorFlow 1.14.0's matmul and 2-D convolution in a tf.Session on /gpu:0 agree with the CPU", checks)
# ... and a GTX 680 (3.0), which the 1.x wheels have no code for, is named, not run on the CPU
with open(ENV["FAKE_NVIDIA_CONFIG"]) as f:
    conf = f.read()
with open(ENV["FAKE_NVIDIA_CONFIG"], "w") as f:
    f.write(conf.replace(" 5.2 ", " 3.0 "))
r = cu("verify")
fwc = {c["name"]: c for c in (r.json() or {}).get("checks", [])}.get("framework", {})
t.ok(fwc.get("status") == "fail" and "3.0" in fwc.get("detail", ""), "verify: a GPU the TF1 build has no kernel for fails, named", fwc)
with open(ENV["FAKE_NVIDIA_CONFIG"], "w") as f:
    f.write(conf)

# repair restores a deleted file of the CUDA 10.0 tree from the runfile (in the cache)
os.unlink(os.path.join(tree, "lib", "libcublas.so.10.0.130"))
r = cu("repair", "--yes", "--cache-dir", C, "--mirror", "file://" + M, "10.0")
t.ok(r.rc == 0 and os.path.exists(os.path.join(tree, "lib", "libcublas.so.10.0.130")),
     "repair restores lib/libcublas.so.10.0.130 from the runfile", r)
# mirror carries the runfile and the .tgz under NVIDIA's own paths
D = os.path.join(work, "site")
r = cu("mirror", D, "--mirror", "file://" + M, "--cache-dir", C, "--framework", "tensorflow==1.14")
t.ok(os.path.exists(os.path.join(D, RUN_REL)) and os.path.exists(os.path.join(D, TGZ_REL)),
     "mirror DIR holds the runfile and the cuDNN .tgz where NVIDIA serves them", r)
# uninstall removes it
r = cu("uninstall", "--yes", "10.0")
t.ok(r.rc == 0 and not os.path.exists(tree), "uninstall 10.0 removes PREFIX/cuda-10.0", r)
t.done()
