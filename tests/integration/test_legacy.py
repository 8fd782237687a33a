#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""TensorFlow 1.13-2.4 planned from the catalog's legacy rows (data/legacy/): CUDA from NVIDIA's runfiles,
cuDNN from its .tgz, Python and pins per release, on Maxwell, Pascal, Turing and Ampere; refusals."""
import csv
import os
import re
import sys

from cutest import SRCDIR, Tap, on_pty, run, segments

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


def box(gpu, driver, pythons=("3.7", "3.8")):
    key = (gpu, driver, tuple(pythons))
    if key not in roots:
        dev, cc, name = GPUS[gpu]
        ver, cuda = DRIVERS[driver]
        root = os.path.join(t.tmpdir("%s-%s" % key[:2]), "root")
        machines.build_spec({"os": "ubuntu", "gpus": [("0000:01:00.0", dev, "0x030000", "nvidia", cc, 4096, name)],
                             "driver": ver, "cuda": cuda, "libs": True, "pythons": list(pythons)}, root)
        roots[key] = root
    return roots[key]


def plan(gpu, driver, *args, pythons=("3.7", "3.8"), env=None):
    root = box(gpu, driver, pythons)
    env = dict({"FAKE_NVIDIA_CONFIG": os.path.join(root, "fake-nvidia.conf"), "PATH": goodbin + ":/usr/bin:/bin"},
               **(env or {}))
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
    step = next((x.get("detail", "") for x in d.get("steps", []) if x.get("installer") == "cuda"
                 and x.get("action") == "install"), "")
    t.ok("its size not published" in step and "(0 B)" not in step,
         "the cuda step says the runfile's size is not published, not 0 B", step)
    t.ok(any("2 archives' sizes are not published (cuda_runfile, cudnn)" in w for w in d.get("warnings", [])),
         "the plan warns that the room for the runfile and the .tgz could not be checked", d.get("warnings"))

# In Chinese the disk reason keeps its figures in their places (the prefix, then what it takes).
r = plan("maxwell", "580", "--framework", "tensorflow==1.14", env={"LANGUAGE": "zh_CN", "LANG": "C.UTF-8"})
disk = [x for x in (r.json() or {}).get("reasons", []) if x.startswith("磁盘")]
t.ok(disk and "/opt/cu 有 " in disk[0] and "0 B" not in disk[0], "zh_CN: the disk reason names the prefix where the prefix goes (no size is known: no 0 B figure)", disk)

# A build whose GPU code is inferred says so once, not in each GPU's reason and again after them.
# (PyTorch 2.6's cu118 build: TensorFlow's GPU code is read in every wheel since issue 34.)
r = plan("maxwell", "580", "--framework", "pytorch==2.6", "--cuda", "11.8")
why = (r.json() or {}).get("reasons", [])
said = [x for x in why if "inferred" in x and ("GPU code" in x or "what the build carries" in x)]
t.ok(r.rc == 0 and len(said) == 1, "PyTorch 2.6 cu118 on a GTX 970: 'inferred, not read' said once", said or r.err[-800:])

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

# CUDA 11.3's cuDNN (8.2.0, 8.2.1: cudnn_tgz.csv) serves 11.0-11.3: no stack plans 11.3, but TF 2.4 on 11.0 takes
# cuDNN 8.2 when asked; by default it keeps the 8.0 it was built with.
C82 = next(c for c in CUDNN if c["full"] == "8.2.1.32")
r = plan("maxwell", "580", "--framework", "tensorflow==2.4", "--cudnn", "8.2")
d = r.json() or {}
dl = {x["component"]: x for x in d.get("downloads", [])}
t.eq(((d.get("cudnn") or {}).get("version"), (d.get("cudnn") or {}).get("cuda_variant"), dl.get("cudnn", {}).get("sha256"),
      dl.get("cudnn", {}).get("url")),
     ("8.2.1", "11.3", C82["sha256"], MIRROR + "/redist/cudnn/v8.2.1/cudnn-11.3-linux-x64-v8.2.1.32.tgz"),
     "tensorflow==2.4 --cudnn 8.2: cuDNN 8.2.1.32, the CUDA 11.3 build, pinned by two sources", r)
r = plan("maxwell", "580", "--framework", "tensorflow==2.4", "--cudnn", "8.2.0")
t.eq(((r.json() or {}).get("cudnn") or {}).get("version"), "8.2.0", "--cudnn 8.2.0: that release", r)
t.ok(all(c["source_a"].strip() and c["source_b"].strip() for c in CUDNN if c["cuda_variant"] == "11.3") and
     sum(c["cuda_variant"] == "11.3" for c in CUDNN) == 2, "cuDNN for CUDA 11.3: two rows, each with two sources")

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

# No Python 3.7 on the machine: cudaup brings python-build-standalone's 3.7.9, its "full" .tar.zst
# (data/python/python_build_standalone_full.csv), from the mirror's python/ folder, with its size and sha256.
with open(os.path.join(SRCDIR, "data", "python", "python_build_standalone_full.csv"), newline="") as f:
    PY37 = next(r for r in csv.DictReader(f) if r["python"].startswith("3.7.") and r["arch"] == "x86_64")
PY37_FILE = PY37["url"].rsplit("/", 1)[1]
r = plan("maxwell", "580", "--framework", "tensorflow==1.14", "--env-tool", "venv", pythons=())
d = r.json() or {}
src = d.get("python_source") or {}
dl = {x["component"]: x for x in d.get("downloads", [])}
t.eq(r.rc, 0, "GTX 970, no python3.7 here, tensorflow==1.14: planned", r)
t.eq((src.get("kind"), src.get("version"), src.get("build"), src.get("path")),
     ("cudaup", PY37["python"], PY37["build"], "/opt/cu/cudaup/python/3.7"),
     "cudaup brings CPython %s (python-build-standalone %s) into PREFIX/cudaup/python/3.7" % (PY37["python"], PY37["build"]))
t.eq((dl.get("python", {}).get("url"), dl.get("python", {}).get("sha256"), dl.get("python", {}).get("size")),
     (MIRROR + "/python/" + PY37_FILE, PY37["sha256"], int(PY37["size"])),
     "the download row: from the mirror's python/, the pinned sha256 and size")
t.eq(d.get("download_bytes"), int(PY37["size"]), "download_bytes counts the Python's pinned size (the runfile's is unknown)")
root = box("maxwell", "580", ())
r = run(["plan", "--root", root, "--mirror", MIRROR, "--cache-dir", t.tmpdir("cache"), "--prefix", "/opt/cu", "--state-dir",
         "/var/tmp/st", "--framework", "tensorflow==1.14", "--env-tool", "venv"], env={"FAKE_NVIDIA_CONFIG": os.path.join(root, "fake-nvidia.conf")})
t.ok(r.rc == 0 and "3 downloads, 28 MB and 2 of unpublished size:" in r.out and re.search(r"cuda_runfile +10.0.130 +size unpublished", r.out) and re.search(r"python +%s +28 MB" % re.escape(PY37["python"]), r.out),
     "the text plan counts the Python among the downloads, with its size", r.out[:900])
r = plan("maxwell", "580", "--framework", "tensorflow==1.14", "--env-tool", "venv", "--python-source", "system", pythons=())
t.ok(r.rc == 3 and "--python-source cudaup" in (r.json() or {}).get("advice", ""),
     "--python-source system with no python3.7: refused, the advice names --python-source cudaup", r)
r = plan("maxwell", "580", "--framework", "tensorflow==1.14", "--env-tool", "venv")
t.eq(((r.json() or {}).get("python_source") or {}).get("kind"), "system", "a python3.7 here is used as it is", r)
# TensorFlow 2.2 (3.5-3.8) on a machine without those: the newest it names, 3.8, comes as install_only .tar.gz.
r = plan("maxwell", "580", "--framework", "tensorflow==2.2", "--env-tool", "venv", pythons=())
t.ok(r.rc == 0 and ((r.json() or {}).get("python_source") or {}).get("url", "").endswith("install_only_stripped.tar.gz"),
     "tensorflow==2.2 without a Python: 3.8 from an install_only archive, as before", r)
# The sizes NVIDIA does not publish are no promise of 16 GiB each: the plan fits a disk with 1.5 GB free.
if os.environ.get("FAULTFS"):
    r = plan("maxwell", "580", "--framework", "tensorflow==1.14",
             env={"LD_PRELOAD": os.environ["FAULTFS"], "CUDAUP_FAULTS": "free:1500000000:/",
                  "ASAN_OPTIONS": "verify_asan_link_order=0:" + os.environ.get("ASAN_OPTIONS", "")})
    t.eq(r.rc, 0, "1.5 GB free: planned; a runfile's unknown size is not counted as its 16 GiB cap", r)

# ---- The done-when: install the whole stack from a mirror holding the runfile, the cuDNN .tgz and the wheels ----
sys.path.insert(0, os.path.join(SRCDIR, "tests", "security"))
import hashlib  # noqa: E402
import json  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402

import mkrunfile  # noqa: E402
import mkwheels  # noqa: E402

import mkpython  # noqa: E402

if not shutil.which("zstd"):
    t.skip("the legacy install", "no zstd tool to make the stand-in python-build-standalone .tar.zst (scripts/bootstrap --test)")
    t.done()
work = t.tmpdir("install")
M = os.path.join(work, "mirror")
shutil.copytree(os.path.join(SRCDIR, "tests", "fixtures", "nvidia"), M)
RUN_REL = "cuda/10.0/Prod/local_installers/cuda_10.0.130_410.48_linux"
TGZ_REL = "redist/cudnn/v7.4.2/cudnn-10.0-linux-x64-v7.4.2.24.tgz"
import mkmirror  # noqa: E402
# The stand-ins the install's checks run work as mkmirror's do (issue 49 item 8: a check that fails makes the install
# exit 4): nvcc answers for 10.0, and libcudart and libcudnn are the GPU-library doubles, which read their versions
# from these names.
WORKING = {"./bin/nvcc": mkmirror.NVCC % (b"10.0", b"10.0.130"),
           "./lib64/libcudart.so.10.0.130": mkmirror.double("FAKE_CUDART", b"\x7fELF stand-in cudart 10.0.130\n")}
TOOLKIT = [(p, k, WORKING.get(p, d)) for p, k, d in mkrunfile.tree()]
runfile = mkrunfile.runfile("CUDA 10.0.130", mkrunfile.outer_10(mkrunfile.runfile("toolkit", mkrunfile.tar_gz(TOOLKIT))))
tgz = mkrunfile.tar_gz([("cuda/include/cudnn.h", "f", b"#define CUDNN_MAJOR 7\n#define CUDNN_MINOR 4\n#define CUDNN_PATCHLEVEL 2\n"),
                        ("cuda/lib64/libcudnn.so.7.4.2", "f", mkmirror.double("FAKE_CUDNN", b"\x7fELF stand-in cudnn 7.4.2\n")),
                        ("cuda/lib64/libcudnn.so.7", "l", "libcudnn.so.7.4.2"),
                        ("cuda/lib64/libcudnn.so", "l", "libcudnn.so.7"),
                        ("cuda/NVIDIA_SLA_cuDNN_Support.txt", "f", b"license\n")])
for rel, data in ((RUN_REL, runfile), (TGZ_REL, tgz)):
    os.makedirs(os.path.dirname(os.path.join(M, rel)), exist_ok=True)
    with open(os.path.join(M, rel), "wb") as f:
        f.write(data)
# The Python 3.7 the machine lacks: this CPython re-packed in python-build-standalone's full layout
# (python/install/ beside PYTHON.json, build/, licenses/) as a .tar.zst, under 3.7.9's file name.
PB = mkpython.build_full(t.tmpdir("pbs"))
os.makedirs(os.path.join(M, "python"))
shutil.copy(PB["path"], os.path.join(M, "python", PB["file"]))
# The catalog pins NVIDIA's own files; this one pins the fixtures' (CUDAUP_CATALOG, as a site would not).
cat = json.load(open(os.path.join(SRCDIR, "data", "catalog.json")))
for e in cat["legacy"]["cuda"]:
    if e["version"] == "10.0.130":
        e["sha256"] = hashlib.sha256(runfile).hexdigest()
for e in cat["legacy"]["cudnn"]:
    if e["full"] == "7.4.2.24":
        e["sha256"] = hashlib.sha256(tgz).hexdigest()
for e in cat["pythons"]:
    if e["version"] == PY37["python"] and e["arch"] == "x86_64":
        t.eq((e["layout"], e["compression"], e["file"]), ("full", "zstd", PY37_FILE), "the built-in catalog's 3.7.9: full, zstd")
        e.update(file=PB["file"], sha256=PB["sha256"], size=PB["size"])


def catalog(path, **py):
    """The test catalog, with the 3.7.9 entry's fields replaced by @py."""
    c = json.loads(json.dumps(cat))
    for e in c["pythons"]:
        if e["version"] == PY37["python"] and e["arch"] == "x86_64":
            e.update(py)
    json.dump(c, open(path, "w"))
    return path


CAT = catalog(os.path.join(work, "catalog.json"))
WHEELS = os.path.join(work, "wheels")
mkwheels.build(WHEELS, [("tensorflow-gpu", "1.14.0"), ("keras", "2.2.4"), ("protobuf", "3.20.3"),
                        ("h5py", "2.10.0"), ("numpy", "1.18.5")])
ROOT = box("maxwell", "535", pythons=())  # no python3.X at all: the brought Python makes the venv
P, S, C, HOME = (os.path.join(work, n) for n in ("p", "s", "c", "home"))
os.makedirs(HOME)
ENV = {"FAKE_NVIDIA_CONFIG": os.path.join(ROOT, "fake-nvidia.conf"), "PATH": "/usr/bin:/bin", "HOME": HOME,
       "XDG_DATA_HOME": os.path.join(HOME, "data"), "CUDAUP_CATALOG": CAT, "PIP_NO_INDEX": "1",
       "PIP_FIND_LINKS": WHEELS, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
COMMON = ["--root", ROOT, "--prefix", P, "--state-dir", S]


def cu(*args, timeout=600):
    return run(list(args[:1]) + ["--json"] + COMMON + list(args[1:]), env=ENV, timeout=timeout)


# A runfile's and a .tgz's size no source publishes: the plan takes the size the mirror reports (stat here, HEAD's
# Content-Length over http), so that the disk check counts them (issue 35: "more than 20 MB" for a 2 GB stack).
r = cu("plan", "--mirror", "file://" + M, "--cache-dir", C, "--framework", "tensorflow==1.14")
dls = {x["component"]: x for x in (r.json() or {}).get("downloads", [])}
disk = [x for x in (r.json() or {}).get("reasons", []) if x.startswith("Disk: ")]
t.ok(r.rc == 0 and dls.get("cuda_runfile", {}).get("size") is None and dls.get("cuda_runfile", {}).get("size_seen") == len(runfile)
     and dls.get("cudnn", {}).get("size_seen") == len(tgz) and
     not any("not published" in w for w in (r.json() or {}).get("warnings", [])),
     "plan: the runfile's and the .tgz's sizes as the mirror reports them (size_seen), no 'not published' note", r)
from httpserver import Server  # noqa: E402
hs = Server(M)
r = cu("plan", "--mirror", hs.url, "--cache-dir", t.tmpdir("hc"), "--framework", "tensorflow==1.14")
dls = {x["component"]: x for x in (r.json() or {}).get("downloads", [])}
t.ok(r.rc == 0 and dls.get("cuda_runfile", {}).get("size_seen") == len(runfile) and
     any(q[0] == "HEAD" and RUN_REL in q[1] for q in hs.requests if isinstance(q, (tuple, list)) and len(q) >= 2),
     "over http the size comes from HEAD's Content-Length", (r, hs.requests[:8]))
hs.stop()
rt = run(["plan"] + COMMON + ["--mirror", "file://" + M, "--cache-dir", C, "--framework", "tensorflow==1.14"], env=ENV)
t.ok("size unpublished" not in rt.out and "of unpublished size" not in rt.out, "plan's text: sizes, not 'size unpublished'", rt.out)


def wizard(tag, keys, *args, size=(100, 60), env=None):
    """The wizard, headless, on this box and mirror: KEYS (script lines, 'DUMP name' for a screen dump); returns
    (result, {name: dump})."""
    d = t.tmpdir(tag)
    names = []
    with open(os.path.join(d, "keys"), "w") as f:
        for k in keys:
            if k.startswith("DUMP "):
                names.append(k[5:])
                f.write("dump %s\n" % os.path.join(d, k[5:] + ".txt"))
            else:
                f.write(k + "\n")
    e = dict(ENV, HOME=os.path.join(d, "home"), CUDAUP_TUI_HEADLESS="1", COLUMNS=str(size[0]), LINES=str(size[1]),
             TERM="xterm-256color", SHELL="/bin/bash", CUDAUP_PROFILE_D=os.path.join(d, "profile.d"), **(env or {}))
    r = run(["--keys-script", os.path.join(d, "keys"), "--root", ROOT, "--prefix", os.path.join(d, "p"), "--state-dir",
             os.path.join(d, "s"), "--mirror", "file://" + M, "--cache-dir", C] + list(args), env=e, timeout=600)
    return r, {n: open(os.path.join(d, n + ".txt"), encoding="utf-8").read() if os.path.exists(os.path.join(d, n + ".txt")) else ""
               for n in names}


# Review counts the downloads as plan does (issue 35 walk, item 1: "2 archives, 34 GB" for a 20 MB stack: the
# runfile's download cap summed, the brought Python left out), and the Python row's size sits in the size column.
heading = re.search(r"^(\d+ downloads?, [^\n]*):$", rt.out, re.M)
r, d = wizard("review", ["enter"] * 4 + ["DUMP comp"] + ["enter"] * 3 + ["DUMP review", "esc", "esc", "esc", "esc", "esc", "esc", "esc", "q", "y"],
              "--framework", "tensorflow==1.14", "--env-tool", "venv", "--env-scope", "none")
rv = [x.strip() for x in d["review"].split("\n")]
t.ok(heading and heading.group(1).startswith("3 downloads, ") and "unpublished" not in heading.group(1) and heading.group(1) in rv, "Review's download line is plan's: %s" % (heading.group(1) if heading else None), (rt.out[:600], d["review"]))
cols = {m.group(1): m.end(2) for m in (re.match(r"\s*(cuda_runfile|cudnn|python)\s+(\S+ [kM]?B)\s", x) for x in d["review"].split("\n")) if m}
t.ok(len(cols) == 3 and len(set(cols.values())) == 1, "Review: the runfile's, the .tgz's and the Python's sizes end in one column", d["review"])
keyline = d["comp"].rstrip("\n").split("\n")[-1]
t.ok("comes as one installer" in d["comp"] and "Enter: next" in keyline and "Space" not in keyline and "a: all" not in keyline,
     "Components of a runfile-only CUDA: its key line offers no ticking (issue 35 walk, item 9)", d["comp"])
# No size known at all (the files are not on the mirror, the catalog pins no Python size): plan says the sizes are
# unpublished with no "0 B" figure (issue 35 walk, item 8), and names what the mirror lacks.
nosize = json.loads(json.dumps(cat))
for e in nosize["pythons"]:
    if e["version"] == PY37["python"] and e["arch"] == "x86_64":
        e.pop("size", None)
json.dump(nosize, open(os.path.join(work, "cat-nosize.json"), "w"))
r = run(["plan"] + COMMON + ["--mirror", "file://" + t.tmpdir("empty-mirror"), "--cache-dir", t.tmpdir("ec"), "--framework",
                             "tensorflow==1.14", "--env-tool", "venv"], env=dict(ENV, CUDAUP_CATALOG=os.path.join(work, "cat-nosize.json")))
said = segments(r.out)
t.ok(r.rc == 0 and "3 downloads of unpublished size:" in r.out and " 0 B" not in r.out,
     "plan, no size known: '3 downloads of unpublished size', no 0 B figure", r.out)
t.ok(any(l.lstrip(" -").startswith("Disk: no archive's size is published") for l in said), "and the Disk reason says no size is known", r.out)
t.ok(sum("The mirror has no " in l and "is not there" in l for l in said) == 3, "and that the mirror has none of the three", r.out)
r = cu("install", "--yes", "--mirror", "file://" + M, "--cache-dir", C, "--framework", "tensorflow==1.14",
       "--env-tool", "venv", "--env-name", "tf1", "--env-scope", "conda", "--shell-rc", os.path.join(HOME, ".bashrc"))
t.eq(r.rc, 0, "install --framework tensorflow==1.14 from a mirror with the runfile, the .tgz, a Python 3.7 and the wheels", r)
installed = r
PYDIR = os.path.join(P, "cudaup", "python", "3.7")
t.ok(os.path.isfile(os.path.join(PYDIR, "bin", "python3.7")) and os.path.islink(os.path.join(PYDIR, "bin", "python3")) and
     os.path.samefile(os.path.join(PYDIR, "bin", "python3.7"), os.path.join(PYDIR, "bin", "python3.7m")) and
     os.path.isfile(os.path.join(PYDIR, "lib", "python%d.%d" % sys.version_info[:2], "os.py")),
     "the brought Python 3.7: python/install/ of the .tar.zst in PREFIX/cudaup/python/3.7 (bin/python3.7, its hard link, its stdlib)",
     sorted(os.listdir(PYDIR)) if os.path.isdir(PYDIR) else None)
t.eq(sorted(n for n in os.listdir(PYDIR) if n in ("PYTHON.json", "build", "licenses", "install", "python")) if os.path.isdir(PYDIR) else None,
     [], "nothing of the full archive's build: no PYTHON.json, build/, licenses/ or install/ folder")
pyrec = json.load(open(os.path.join(PYDIR, ".cudaup", "record.json"))) if os.path.exists(os.path.join(PYDIR, ".cudaup", "record.json")) else {}
t.eq([(c.get("name"), c.get("sha256"), c.get("archive_layout")) for c in pyrec.get("components", [])],
     [("python", PB["sha256"], "full")], "its record: the archive's sha256 and its full layout (for repair)")
cfg = open(os.path.join(HOME, "data", "cudaup", "envs", "tf1", "pyvenv.cfg")).read() if os.path.exists(
    os.path.join(HOME, "data", "cudaup", "envs", "tf1", "pyvenv.cfg")) else ""
t.ok("home = " + os.path.join(PYDIR, "bin") in cfg, "the venv is made from the brought Python", cfg)
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

# The line the install offers to try runs on TensorFlow 1.14 (issue 35, item 1: tf.config.list_physical_devices
# is 2.1+, an AttributeError on 1.x), in the activated venv as the closing text says.
tryline = (installed.json() or {}).get("try") or ""
out = subprocess.run(["bash", "-c", ". '%s/bin/activate' && %s" % (venv, tryline)], capture_output=True, text=True,
                     env={"PATH": "/usr/bin:/bin", "HOME": HOME, "FAKE_NVIDIA_CONFIG": ENV["FAKE_NVIDIA_CONFIG"]})
t.ok("is_gpu_available" in tryline and out.returncode == 0 and out.stdout.strip() == "True",
     "the install's 'try it' line is one TensorFlow 1.14 has, and it runs there: %s" % tryline, out)

# The closing text on an 80-column terminal (issue 35 walk, items 2 and 7): a command is never broken across lines
# (pasted, "python -c '...;" then "  print(...)'" is an IndentationError), and the checks come before the try line,
# which is offered for after the fix when they failed (the runfile's stand-in libraries do not load here).
P3, S3 = os.path.join(work, "p-pty"), os.path.join(work, "s-pty")
rc, out = on_pty(["install", "--yes", "--root", ROOT, "--prefix", P3, "--state-dir", S3, "--mirror", "file://" + M, "--cache-dir", C, "--framework", "tensorflow==1.14",
                  "--env-tool", "venv", "--env-name", "tf1-pty", "--env-scope", "none"], ENV, winsize=(24, 80))
said = segments(out)
act_line = ". %s/bin/activate" % os.path.join(HOME, "data", "cudaup", "envs", "tf1-pty")
t.ok(rc == 0 and any(l.strip() == tryline or l.endswith(" " + tryline) for l in said) and
     any(l.strip() == act_line or l.endswith(" " + act_line) for l in said),
     "install on 80 columns: the try line and the activation each whole on one line", out)
envline = ". %s" % os.path.join(S3, "env.sh")
t.ok(any(l.strip() == envline or l.endswith(" " + envline) for l in said), "and '. env.sh' whole on one line", out)
summary = [i for i, l in enumerate(said) if l.startswith("Checked as cudaup verify does: ")]
tries = [i for i, l in enumerate(said) if "try it:" in l]
failed = summary and " 0 failed" not in said[summary[0]]
t.ok(summary and tries and tries[0] > summary[0] and (not failed or said[tries[0]].startswith("Once the checks pass, try it:")),
     "the check summary comes before the try line, which waits for the fix when a check failed", out)

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
# repair restores a deleted file of the brought Python from its full archive, the layout read from its record
os.unlink(os.path.join(PYDIR, "lib", "python%d.%d" % sys.version_info[:2], "os.py"))
r = cu("repair", "--yes", "--cache-dir", C, "--mirror", "file://" + M, "10.0")
t.ok(r.rc == 0 and os.path.isfile(os.path.join(PYDIR, "lib", "python%d.%d" % sys.version_info[:2], "os.py")) and
     not os.path.exists(os.path.join(PYDIR, "PYTHON.json")), "repair restores the brought Python's os.py from the .tar.zst", r)
# mirror carries the runfile, the .tgz under NVIDIA's own paths, and the Python 3.7 the nodes lack
D = os.path.join(work, "site")
r = cu("mirror", D, "--mirror", "file://" + M, "--cache-dir", C, "--framework", "tensorflow==1.14")
t.ok(os.path.exists(os.path.join(D, RUN_REL)) and os.path.exists(os.path.join(D, TGZ_REL)),
     "mirror DIR holds the runfile and the cuDNN .tgz where NVIDIA serves them", r)
t.ok((r.json() or {}).get("python") == PB["file"] and os.path.exists(os.path.join(D, "python", PB["file"])) and
     hashlib.sha256(open(os.path.join(D, "python", PB["file"]), "rb").read()).hexdigest() == PB["sha256"],
     "and python/%s, the nodes' Python 3.7" % PB["file"], r)
# ... and a node planning from that site mirror takes its Python from there
r = cu("plan", "--mirror", "file://" + D, "--cache-dir", C, "--framework", "tensorflow==1.14", "--prefix", os.path.join(work, "p2"))
t.eq(((r.json() or {}).get("python_source") or {}).get("url"), "file://%s/python/%s" % (D, PB["file"]),
     "a node planning from the site mirror takes the Python from its python/ folder", r)
# uninstall says what goes, with sizes, and what stays before it asks (issue 35, item 2), as apt and conda do
rc, out = on_pty(["uninstall", "10.0"] + COMMON, ENV, columns=200, answer=b"n\n")
said = segments(out)
t.ok(rc == 1 and os.path.isdir(tree) and "nothing was changed" in out, "uninstall 10.0 on a terminal, answered n: nothing changed", out)
t.ok(any(l.startswith("  - %s (" % tree) and re.search(r"\d [kMG]B\): CUDA 10\.0\.130 and cuDNN 7\.4\.2\.24$", l) for l in said),
     "it names the CUDA folder, its size, and the cuDNN in it", out)
t.ok(any(l.startswith("  - %s (" % venv) and "the venv made for it" in l for l in said) and
     "--keep-env keeps the Python environment." in said,
     "and the venv made for it, with its size and --keep-env", out)
t.ok(any(re.match(r"That frees \d[\d.]* [kMG]B\.$", l) for l in said), "and how much that frees", out)
t.ok(any("Python 3.7" in l and "stays" in l and "`cudaup uninstall python-3.7`" in l for l in said),
     "and that the Python cudaup brought stays, naming uninstall python-3.7", out)
t.ok(said and said[-1].startswith("Remove it? [y/N]") or any(l.startswith("Remove it? [y/N]") for l in said),
     "then it asks", out)
# uninstall removes it; its JSON says what it removed and what stays
r = cu("uninstall", "--yes", "10.0")
rm = (r.json() or {}).get("removal") or {}
t.ok(r.rc == 0 and not os.path.exists(tree), "uninstall 10.0 removes PREFIX/cuda-10.0", r)
t.ok(any(x.startswith(tree + " (") for x in rm.get("removes", [])) and rm.get("bytes", 0) > 0 and
     any("python-3.7" in x for x in rm.get("stays", [])), "uninstall --json: 'removal' lists what went and what stays", rm)

# The toolkit alone from the same runfile and .tgz (issue 34 item 3): planned from the catalog's legacy rows,
# installed and recorded like a TensorFlow stack's, no environment made.
P2 = os.path.join(work, "p-alone")
r = run(["install", "--json", "--yes", "--root", ROOT, "--prefix", P2, "--state-dir", os.path.join(work, "s-alone"),
         "--mirror", "file://" + M, "--cache-dir", C, "--framework", "none", "--cuda", "10.0", "--cudnn", "7.4",
         "--env-scope", "none"], env=ENV, timeout=600)
alone = os.path.join(P2, "cuda-10.0")
t.ok(r.rc == 0 and all(os.path.exists(os.path.join(alone, x)) for x in ("bin/nvcc", "include/cudnn.h", "lib/libcudnn.so.7")) and
     os.path.exists(os.path.join(alone, ".cudaup", "record.json")),
     "install --framework none --cuda 10.0 --cudnn 7.4: CUDA 10.0.130 from its runfile and cuDNN 7.4.2, recorded", r)

# Hostile Python archives: refused before anything is placed (the Python goes first, so CUDA is untouched too).
HOSTILE = {
    "wrong sha256": catalog(os.path.join(work, "cat-badsha.json"), sha256="0" * 64),
    "an escaping path": None,
    "a link out of the tree": None,
}
for what, kind, member in (("an escaping path", "f", ("python/install/../../../../escape", "f", b"x\n")),
                           ("a link out of the tree", "l", ("python/install/lib/evil", "l", "../../../../../../../tmp"))):
    hb = mkpython.build_full(t.tmpdir("pbs-hostile"), stamp="20200823T00%s" % ("f" if kind == "f" else "l"), hostile=[member])
    shutil.copy(hb["path"], os.path.join(M, "python", hb["file"]))
    HOSTILE[what] = catalog(os.path.join(work, "cat-%s.json" % kind), file=hb["file"], sha256=hb["sha256"], size=hb["size"])
for what, cpath in HOSTILE.items():
    hp = t.tmpdir("hostile-prefix")
    canary = os.path.join(hp, "..", "canary.txt")
    open(canary, "w").write("canary\n")
    r = run(["install", "--json", "--yes", "--root", ROOT, "--prefix", os.path.join(hp, "p"), "--state-dir",
             os.path.join(hp, "s"), "--mirror", "file://" + M, "--cache-dir", os.path.join(hp, "c"), "--framework",
             "tensorflow==1.14", "--env-tool", "venv", "--env-scope", "none"], env=dict(ENV, CUDAUP_CATALOG=cpath), timeout=600)
    left = [n for n in os.listdir(os.path.join(hp, "p", "cudaup", "python"))] if os.path.isdir(os.path.join(hp, "p", "cudaup", "python")) else []
    t.ok(r.rc == 1 and not [n for n in left if not n.startswith(".cudaup")] and not os.path.exists(os.path.join(hp, "p", "cuda-10.0"))
         and not os.path.exists(os.path.join(hp, "escape")) and not os.path.exists(os.path.join(hp, "p", "escape"))
         and open(canary).read() == "canary\n",
         "a Python archive with %s: exit 1, nothing placed (no Python, no CUDA), canary unchanged" % what, (r, left))
t.done()
