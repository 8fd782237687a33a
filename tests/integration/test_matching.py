#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The framework cudaup plans really runs on the GPU: fixture GPUs x drivers x frameworks.

Every expectation names the row of shared/data (or the release note) it comes from, so
a failure says which fact the resolver broke.  Nothing here reads cudaup's own output to
decide what is right."""
import os
import re

import cutest
from cutest import SRCDIR, Tap


def run(args, *a, **kw):
    """cutest.run with --toolkit system on plan, install and mirror: this file is about which framework build and driver fit each GPU,
    with the system CUDA beside it; the toolkit's default (the compiler
    wheels for frameworks that bring their own CUDA) is test_toolkit's."""
    if args and args[0] in ("plan", "install", "mirror"):
        args = [args[0], "--toolkit", "system"] + list(args[1:])
    return cutest.run(args, *a, **kw)


import machines

t = Tap()
MIRROR = "file://" + os.path.join(SRCDIR, "tests", "fixtures", "nvidia")

# (PCI device, compute capability, NVML name): the GPUs of shared/data/compat/nvidia_pci_devices.csv.
GTX970 = ("13c2", "5.2", "NVIDIA GeForce GTX 970")
GTX680 = ("1180", "3.0", "NVIDIA GeForce GTX 680")
GTX1080 = ("1b80", "6.1", "NVIDIA GeForce GTX 1080")
V100 = ("1db4", "7.0", "Tesla V100-PCIE-16GB")
RTX3090 = ("2204", "8.6", "NVIDIA GeForce RTX 3090")
RTX4090 = ("2684", "8.9", "NVIDIA GeForce RTX 4090")
H100 = ("2330", "9.0", "NVIDIA H100 80GB HBM3")
RTX5090 = ("2b85", "12.0", "NVIDIA GeForce RTX 5090")
GTX780 = ("1004", "3.5", "NVIDIA GeForce GTX 780")
K80 = ("102d", "3.7", "Tesla K80")

_roots = {}


def _cuda_of_branches():
    """{driver branch: the CUDA X.Y its driver API reports}: the newest release whose minimum driver is of that branch
    or an older one (data/catalog.json "cuda", from cuda_toolkit_driver_versions.csv)."""
    import json
    with open(os.path.join(SRCDIR, "data", "catalog.json"), encoding="utf-8") as f:
        rows = json.load(f)["cuda"]
    return sorted((int(r["driver"].split(".")[0]), tuple(int(x) for x in r["version"].split(".")[:2]))
                  for r in rows if r.get("driver"))


_BRANCH_CUDA = _cuda_of_branches()


def driver_cuda(driver):
    """What cuDriverGetVersion reports on this driver (12040 for 12.4): the fixture writes it, so a sentence made
    from it ("which runs CUDA up to 11.4") is checked against the driver's own."""
    if driver is None:
        return 12040
    branch = int(driver.split(".")[0])
    mj, mn = max(v for b, v in _BRANCH_CUDA if b <= branch)
    return mj * 1000 + mn * 10


def machine(gpus, driver):
    """Ubuntu with these GPUs and this driver (None: no driver at all)."""
    key = (tuple(gpus), driver)
    if key not in _roots:
        root = os.path.join(t.tmpdir("m"), "root")
        spec = {"os": "ubuntu", "driver": driver, "cuda": driver_cuda(driver), "libs": True,
                "gpus": [("0000:%02x:00.0" % (i + 1), dev, "0x030000", "nvidia", cc, 8192, name)
                         for i, (dev, cc, name) in enumerate(gpus)]}
        if driver is None:
            del spec["driver"]
        machines.build_spec(spec, root)
        _roots[key] = root
    return _roots[key]


def plan(gpus, driver, *args, cmd="plan", env=None):
    """cudaup plan on that machine; the tests keep its driver (CUDAUP_DRIVER=keep) unless @env says otherwise."""
    root = machine(gpus, driver)
    r = run([cmd, "--json", "--root", root, "--mirror", MIRROR, "--cache-dir", t.tmpdir("c"),
             "--prefix", "/opt/cu", "--state-dir", "/var/tmp/st"] + list(args),
            env=dict({"FAKE_NVIDIA_CONFIG": os.path.join(root, "fake-nvidia.conf")}, **(env or {})))
    d = r.json() or {}
    for x in d.get("reasons", []) + [d.get("error") or ""]:
        if re.search(r"lists every GPU here: No support matrix|listed for every GPU here: No support matrix|"
                     r"support matrix lists every GPU here: No support|release on the mirror needs, so", x):
            CONTRADICTIONS.append((gpus[0][2], driver, args, x))
    return r, d


# Reasons that contradict themselves, gathered from every plan of this file (issue 49 item 7: "the support matrix of
# cuDNN 9.24.0.43 lists every GPU here: No support matrix of cuDNN 9.24.0.43 was read; ...").
CONTRADICTIONS = []


AUTO = {"CUDAUP_DRIVER": "auto"}


def advice_command(d):
    """The command a refusal's advice names ("cudaup install ARGS gives ..."), as a list of ARGS, or None."""
    m = re.search(r"cudaup install (.*?) gives", d.get("advice") or "")
    return m.group(1).split() if m else None


def no_hidden_driver(d, d2):
    """A plan made from the first command of advice @d installs a driver only where that command's sentence says it
    does (the advice may go on with another command, with a newer driver)."""
    installs = (d2.get("driver") or {}).get("action") == "install"
    adv = d.get("advice") or ""
    first = adv.find("cudaup install")
    nxt = adv.find("cudaup install", first + 1) if first >= 0 else -1
    sentence = adv[:nxt] if nxt > 0 else adv
    return installs == ("installs NVIDIA driver" in sentence)


def vkey(v):
    return tuple(int(x) for x in re.findall(r"\d+", v or ""))


def fw(doc):
    return doc.get("framework") or {}


def code(doc, gpu=0):
    for e in fw(doc).get("gpu_code", []):
        if e["gpu"] == gpu:
            return (e["code"], e["target"])
    return None


# --- TensorFlow on a GTX 970 (the user cudaup began with) ---------------------------------
SRC_TF217 = "TF 2.17.0 release notes (Maxwell dropped); tensorflow_wheel_arch.csv 2.18-2.20: sm_60+"
for driver in ("535.183.01", "550.54.14", "580.95.05"):
    r, d = plan([GTX970], driver)
    v = fw(d).get("version")
    t.ok(r.rc == 0 and v and vkey(v) < (2, 17), "GTX 970, driver %s: TensorFlow %s, older than 2.17 [%s]" % (driver, v, SRC_TF217), r)
    t.eq(code(d), ("sass", "sm_50"), "GTX 970, driver %s: runs its sm_50 code [tensorflow_wheel_arch.csv ~2.14-2.17]" % driver)
# The default is the newest release that runs, by the rules a pinned one is planned with: TensorFlow 2.16 needs CUDA
# 12.3 or newer, which driver 535 runs only by minor-version compatibility (12.x from 525.60.13), and its sm_50 code
# needs no JIT; it used to give 2.15 on the 12.2 the driver runs natively (issue 34).
r, d = plan([GTX970], "535.183.01")
t.eq(fw(d).get("version"), "2.16.2", "GTX 970 on 535: TensorFlow 2.16 (its newest patch) by minor-version compatibility, as "
     "tensorflow==2.16 plans [tensorflow_tested_builds_linux_gpu.csv 2.16.1 CUDA 12.3; framework_wheel_gpu_code.csv 2.16.2; "
     "cuda_minor_version_compat.csv 12.x 525.60.13]")
t.ok(fw(d).get("code_confidence") == "read" and not any("inferred" in x for x in d.get("reasons", [])),
     "its GPU code is read, and no reason calls it inferred [tensorflow_gpu_code.csv 2.16.1-2.16.2, read in the wheels]",
     (fw(d), d.get("reasons")))
t.ok(any("runs natively no CUDA 12 release on the mirror that TensorFlow 2.16.2 takes (12.3 or newer)" in x
         for x in d.get("reasons", [])) and not any("older than every CUDA 12 release" in x for x in d.get("reasons", [])),
     "GTX 970 on 535: the CUDA reason says 535 runs 12.2 natively but TensorFlow 2.16 takes 12.3 or newer", d.get("reasons"))

# A pinned patch release of a tested minor plans (it was 'not in cudaup's catalog'); the default takes the newest patch
# read on PyPI, as the set of frameworks does; a patch that was never released is refused.
SRC_TFP = "framework_wheel_gpu_code.csv: tensorflow 2.14.0 and 2.14.1 on PyPI"
r, d = plan([K80], "470.82.01", "--framework", "tensorflow==2.14.1")
t.ok(r.rc == 0 and fw(d).get("pip") == ["tensorflow==2.14.1"] and code(d) == ("sass", "sm_35"),
     "K80, tensorflow==2.14.1: planned, its sm_35 code [%s]" % SRC_TFP, (fw(d), d.get("error")))
r, d = plan([K80], "470.82.01", "--framework", "tensorflow==2.14.0")
t.ok(r.rc == 0 and fw(d).get("pip") == ["tensorflow==2.14.0"], "K80, tensorflow==2.14.0: the pin is kept [%s]" % SRC_TFP, fw(d))
# Each refusal that rests on the record of PyPI names it and the day it was read (issue 42: "JAX 0.12.1 is no release
# on PyPI" was said of a release that was, the record being older than it).
with open(os.path.join(SRCDIR, "data", "catalog.json"), encoding="utf-8") as _f:
    READ = __import__("json").load(_f)["pypi_read"]
r, d = plan([K80], "470.82.01", "--framework", "tensorflow==2.14.7")
t.ok(r.rc == 3 and "TensorFlow 2.14.7 is not in cudaup's record of PyPI (read %s); its 2.14 releases there are 2.14.0, "
     "2.14.1." % READ["tensorflow"] == d.get("error"),
     "tensorflow==2.14.7: no such release, refused, naming the releases of 2.14 [%s]" % SRC_TFP, d)

r, d = plan([GTX970], "580.95.05", "--framework", "tensorflow==2.17")
t.eq(r.rc, 3, "GTX 970, tensorflow==2.17: refused [%s]" % SRC_TF217, r)
t.ok("no code for GPU 0" in d.get("error", "") and "5.2" in d.get("error", ""), "the refusal names the missing code and the GPU", d)
t.ok(re.search(r"--framework tensorflow==2\.1[0-6]", d.get("advice") or ""), "its advice names a TensorFlow that runs here", d)

r, d = plan([GTX970], "535.183.01", "--framework", "tensorflow==1.14")
# Planned from its runfile (test_legacy.py has the whole plan); this machine has no python3.7 for the venv,
# so cudaup brings python-build-standalone's 3.7.9, the newest 3.7 it built.
t.ok(r.rc == 0 and (d.get("python_source") or {}).get("kind") == "cudaup" and
     (d.get("python_source") or {}).get("version") == "3.7.9",
     "GTX 970, tensorflow==1.14 without a python3.7: cudaup brings CPython 3.7.9 "
     "[data/legacy/tensorflow_stacks.csv 1.14.0; data/python/python_build_standalone_full.csv]", r)

# --- PyTorch builds that dropped old architectures -------------------------------------------
r, d = plan([GTX970], "580.95.05", "--framework", "pytorch==2.8")
t.eq(fw(d).get("cuda_build"), "cu126", "GTX 970, pytorch==2.8: cu126 (cu128 starts at sm_70) [pytorch_wheel_arch.csv 2.8.x]")
t.eq(code(d), ("sass", "sm_50"), "GTX 970, pytorch==2.8: its sm_50 code [pytorch_wheel_arch.csv 2.8.x cu126]")
r, d = plan([V100], "580.95.05", "--framework", "pytorch==2.11")
t.eq(fw(d).get("cuda_build"), "cu126", "V100, pytorch==2.11: cu126 (cu128 dropped sm_70 in 2.11) [pytorch_wheel_arch.csv 2.11.x]")
r, d = plan([GTX970, RTX4090], "580.95.05", "--framework", "pytorch")
t.ok(fw(d).get("cuda_build") == "cu126" and code(d, 0) == ("sass", "sm_50") and code(d, 1) == ("sass", "sm_86"),
     "GTX 970 + RTX 4090: the one build with code for both [pytorch_wheel_arch.csv 2.14.x cu126]", fw(d))
r, d = plan([RTX5090], "580.95.05", "--framework", "pytorch")
t.eq(code(d), ("sass", "sm_120"), "RTX 5090, pytorch: a build with sm_120 [pytorch_wheel_arch.csv 2.14.x cu130]")
r, d = plan([RTX5090], "580.95.05", "--framework", "pytorch==2.6")
t.ok(r.rc == 3 and "12.0" in d.get("error", ""), "RTX 5090, pytorch==2.6: refused, no sm_120 and no PTX [pytorch_wheel_arch.csv 2.6.x]", d)
t.ok("--framework pytorch==" in (d.get("advice") or ""), "with the PyTorch that runs here as advice", d)

# --- TensorFlow 2.4 and its CUDA 11.0 ----------------------------------------------------------
r, d = plan([RTX3090], "580.95.05", "--framework", "tensorflow==2.4")
t.ok(r.rc == 0 and d["cuda"]["version"] == "11.0.3" and code(d) == ("ptx-jit", "compute_80"),
     "RTX 3090, tensorflow==2.4: CUDA 11.0.3 from its runfile (it loads libcusolver.so.10, CUDA 11.0's: tensorflow#45848), "
     "PTX compute_80 [data/legacy/tensorflow_stacks.csv 2.4.0]", r)

# --- wheels that bring their own CUDA runtime: NVIDIA's minor-version compatibility ------------
SRC_MVC = "framework_driver_rules.md: cu11x >= 450.80.02, cu12x >= 525.60.13"
r, d = plan([GTX970], "470.82.01", "--framework", "pytorch")
t.ok(r.rc == 0 and fw(d).get("cuda_build") == "cu118" and d["cuda"]["version"].startswith("11."),
     "PyTorch on driver 470: a cu118 build, a CUDA 11 the driver runs [%s]" % SRC_MVC, r)
t.ok(any("minor-version compatibility" in x for x in d.get("reasons", [])), "the reasons explain the runtime it brings", d.get("reasons"))
r, d = plan([RTX3090], "470.82.01", "--framework", "pytorch")
t.ok(fw(d).get("cuda_build") == "cu118" and
     any("cu132) brings its own CUDA 13.2 runtime, which needs NVIDIA driver 580" in x for x in d.get("reasons", [])),
     "RTX 3090 on 470: cu118, and why not the newest: its own CUDA 13.2 runtime needs driver 580 [%s: cu13x >= 580]"
     % SRC_MVC, d.get("reasons"))
r, d = plan([GTX970], "525.60.13", "--framework", "jax")
t.ok(r.rc == 0 and fw(d).get("pip") == ["jax[cuda12]"], "jax[cuda12] on driver 525 [JAX docs: >= 525 for CUDA 12]", r)
t.eq(code(d), ("sass", "sm_50"), "jax[cuda12] runs its sm_50 code on a GTX 970 [jax_wheel_arch.csv 0.10.2-0.11.0]")
# Minor-version compatibility is not skipped because the driver runs natively some release of the major that
# serves nothing here (found by an independent check of issue 34): 470.82 runs 11.4 natively, but TensorFlow 2.13
# needs 11.8; 570.86.15 runs 12.6 natively, which has no sm_120.
r, d = plan([GTX1080], "470.82.01", "--framework", "tensorflow==2.13")
t.ok(r.rc == 0 and (d.get("cuda") or {}).get("version", "").startswith("11.8"),
     "GTX 1080 on 470.82.01, tensorflow==2.13: CUDA 11.8 by minor-version compatibility [%s; tensorflow_stacks 2.13: 11.8]"
     % SRC_MVC, d.get("error") or d.get("cuda"))
r, d = plan([RTX5090], "570.86.15", "--framework", "pytorch")
t.ok(r.rc == 0 and fw(d).get("cuda_build") == "cu128",
     "RTX 5090 on 570.86.15, pytorch: cu128 (sm_120) by minor-version compatibility [%s; pytorch_gpu_code 2.7 cu128]" % SRC_MVC,
     d.get("error") or fw(d))
# The newest PyTorch release that runs is the default, though its runtime needs NVIDIA's minor-version compatibility
# and an older release's own CUDA runs natively (a GTX 970 on 535 got 2.5 cu118; found by an independent check of
# issue 34).  Within one release the build whose CUDA the driver runs natively still comes first.
r, d = plan([GTX970], "535.183.01", "--framework", "pytorch")
t.ok(r.rc == 0 and fw(d).get("version") == "2.14" and fw(d).get("cuda_build") == "cu126" and code(d) == ("sass", "sm_50") and
     any("minor-version compatibility it needs driver 525.60.13" in x for x in d.get("reasons", [])),
     "GTX 970 on 535, pytorch: 2.14 cu126, its sm_50 code, its CUDA 12.6 runtime by minor-version compatibility "
     "[pytorch_gpu_code.csv 2.14 cu126 read; framework_driver_rules.md cu12x >= 525.60.13]", fw(d))
# The default weighs minor-version compatibility within each release, as a pinned release is planned, so it is the
# newest release that runs (issue 34; an independent check found the default preferring an older release whose CUDA
# the driver runs natively): TensorFlow 2.14 (Kepler's last sm_35, read in its wheel) needs CUDA 11.8, which R470 runs by
# minor-version compatibility (11.x from 450.80.02); PyTorch 2.14's cu126 runtime needs 525.60.13, and CUDA 12.9
# for the system too on 525-534, where no CUDA 12 release on the mirror runs natively; its cu132 build runs on
# 580.65.06 with CUDA 13.0 (13.x from 580.65.06).
SRC_MVC34 = "cuda_minor_version_compat.csv (11.x 450.80.02, 12.x 525.60.13, 13.x 580.65.06)"
for gpus, driver, args, want in (
        ([K80], "470.256.02", (), ("2.14.1", None, "11.8.0")),
        ([GTX780], "470.82.01", ("--framework", "tensorflow"), ("2.14.1", None, "11.8.0")),
        ([RTX3090], "470.82.01", ("--framework", "tensorflow"), ("2.14.1", None, "11.8.0")),
        ([GTX970], "525.60.13", ("--framework", "pytorch"), ("2.14", "cu126", "12.9.1")),
        ([RTX3090], "530.30.02", ("--framework", "pytorch"), ("2.14", "cu126", "12.9.1")),
        ([RTX5090], "580.65.06", ("--framework", "pytorch"), ("2.15", "cu132", "13.0.2"))):
    r, d = plan(gpus, driver, *args)
    got = (fw(d).get("version"), fw(d).get("cuda_build"), (d.get("cuda") or {}).get("version"))
    t.eq(got, want, "%s on %s %s: the newest release that runs, by minor-version compatibility [%s]" %
         (gpus[0][2], driver, " ".join(args) or "(default)", SRC_MVC34))
    t.ok(not any("which is not on the mirror" in x for x in d.get("reasons", [])),
         "%s on %s: no reason says a release it planned was passed over" % (gpus[0][2], driver), d.get("reasons"))
# Without a driver, PyTorch 2.15's cu132 (its code read in PyPI's wheel) comes before its cu130 (inferred), with the
# system CUDA 13.0 the mirror has: the reason says the mirror lacks 13.2, not that a driver (there is none) cannot
# run it (it said "driver  does not run CUDA 13.2 natively").
r, d = plan([RTX3090], None, "--framework", "pytorch")
t.ok(r.rc == 0 and fw(d).get("cuda_build") == "cu132" and d["cuda"]["version"] == "13.0.2" and
     any(x.startswith("CUDA 13.0.2 for the system, not 13.2: the mirror has no CUDA 13.2 release.") for x in d.get("reasons", [])),
     "RTX 3090 without a driver, pytorch: 2.15 cu132 with the system CUDA 13.0, saying the mirror lacks 13.2 "
     "[pytorch_gpu_code.csv 2.15 cu132 read, cu130 inferred; tests/fixtures/nvidia lists no 13.2]", (fw(d), d.get("reasons")))
r, d = plan([RTX5090], "560.35.03", "--framework", "pytorch", env=AUTO)
t.ok(r.rc == 0 and fw(d).get("version") == "2.15" and fw(d).get("cuda_build") == "cu132",
     "RTX 5090 on 560, --driver auto: driver 580 and PyTorch 2.15 cu132 [%s]" % SRC_MVC34, fw(d))
# A release passed over for the driver names the driver it would take: by minor-version compatibility, since the
# GPU runs its SASS (TensorFlow 2.15-2.21's CUDA 12 on R470 takes 525.60.13, not 12.x's own 535-575).
r, d = plan([RTX3090], "470.82.01", "--framework", "tensorflow")
t.ok(any(x.startswith("Not TensorFlow 2.21.0: ") and "525.60.13 or newer by NVIDIA's minor-version compatibility" in x
         for x in d.get("reasons", [])), "RTX 3090 on 470.82.01: why not TensorFlow 2.21, naming 525.60.13 [%s]" % SRC_MVC34,
     d.get("reasons"))
r, d = plan([V100], "470.57.02", "--framework", "tensorflow==2.15")
t.ok(r.rc == 3 and "525.60.13 or newer by NVIDIA's minor-version compatibility" in d.get("error", "") and
     "535.104.05" not in d.get("error", ""),
     "V100 on 470.57.02, tensorflow==2.15: the refusal names 525.60.13, the driver CUDA 12 takes by minor-version "
     "compatibility with the V100's sm_70 code [%s; tensorflow_wheel_arch.csv 2.15]" % SRC_MVC34, d)
# The fixture's driver reports its own CUDA (it wrote 12.4 for every driver), so the sentence made from it is checked.
r, d = plan([GTX1080], "535.183.01", "--framework", "none", "--cuda", "12.4")
t.ok(r.rc == 3 and "this machine has 535.183.01, which runs CUDA up to 12.2." in d.get("error", ""),
     "GTX 1080 on 535, --cuda 12.4: refused; the driver runs CUDA up to 12.2 [cuda_toolkit_driver_versions.csv 12.2 535]", d)
# A pinned release without wheels for the Python asked: the refusal names the release, its Pythons and the releases
# that have wheels for it; it said "No PyTorch release that cudaup knows supports Python 3.12" (issue 34).
for pin, py, want in (("pytorch==2.1", "3.12", "PyTorch 2.1 supports Python 3.8 to 3.11, not 3.12; PyTorch 2.2 to 2.15 support Python 3.12."),
                      ("jax==0.4.30", "3.13", "JAX 0.4.30 supports Python 3.9 to 3.12, not 3.13; JAX 0.4.34 to ")):
    r, d = plan([GTX970], "535.183.01", "--framework", pin, "--python", py)
    t.ok(r.rc == 3 and d.get("error", "").startswith(want),
         "%s --python %s: the refusal names the pinned release's Pythons and those that have %s "
         "[pytorch_release_cuda_matrix.csv 2.3-2.14, pytorch_releases.csv 2.15; jax_python.csv]" % (pin, py, py), d)
# Unpinned JAX with a Python the newest release has no wheels for: pip would take the newest JAX with wheels for that
# Python, which for 3.9/3.10 predates jax[cuda13] (from 0.8.0): pip warns of the unknown extra and installs a CPU
# jaxlib.  The plan names the release pip gets and its extra (it planned jax[cuda13] unpinned).
A100_ = ("20b2", "8.0", "NVIDIA A100-SXM4-80GB")
for py, want in (("3.9", "jax[cuda12]==0.4.30"), ("3.10", "jax[cuda12]==0.6.2"), ("3.11", "jax[cuda13]==0.10.2"),
                 ("3.12", "jax[cuda13]")):
    r, d = plan([A100_], "580.95.05", "--framework", "jax", "--python", py)
    t.ok(r.rc == 0 and fw(d).get("pip") == [want],
         "A100 on 580, jax --python %s: %s, the newest JAX with wheels for it that has the extra [jax_python.csv; "
         "jax plugins first_version]" % (py, want), (fw(d).get("pip"), d.get("error")))
r, d = plan([A100_], "580.95.05", "--framework", "jax", "--python", "3.8")
t.ok(r.rc == 3 and "No JAX release with jax[cuda12] has wheels for Python 3.8" in d.get("error", ""),
     "A100 on 580, jax --python 3.8: refused, no JAX with a CUDA plugin has cp38 wheels [jax_python.csv 0.4.20 3.9]", d)
# PyTorch 2.3 on Python 3.12: its release matrix calls 3.12 experimental, and its cp312 wheel (CUDA 12) was read on
# PyPI, so it plans, with its cu121 build, saying so (it was refused as no PyTorch supporting 3.12).
r, d = plan([GTX970], "535.183.01", "--framework", "pytorch==2.3", "--python", "3.12")
t.ok(r.rc == 0 and fw(d).get("cuda_build") == "cu121" and fw(d).get("python") == "3.12" and
     any("calls it experimental for PyTorch 2.3" in x and "torch-2.3.1-cp312" in x for x in d.get("reasons", [])),
     "pytorch==2.3 --python 3.12: its cu121 build, saying 3.12 is experimental upstream [pytorch_release_cuda_matrix.csv "
     "2.3 '(3.12 experimental)'; framework_wheel_requires.csv torch-2.3.1-cp312]", (fw(d), d.get("error")))
why = " ".join(d.get("reasons", []))
t.ok("the mirror has no CUDA 12.1 release" in why and "does not run CUDA 12.1 natively" not in why,
     "pytorch==2.3 cu121 on 535 with the system CUDA 12.2.2: the reason is the mirror (no 12.1), not the driver, which "
     "runs 12.1 natively [cuda_toolkit_driver_versions.csv 12.1 530.30.02]", why[-900:])
r, d = plan([GTX970], "535.183.01", "--framework", "pytorch==2.3")
t.ok(r.rc == 0 and fw(d).get("python") == "3.11", "pytorch==2.3 without --python: Python 3.11, not the experimental 3.12", fw(d))
# (PyTorch 2.5, whose builds' GPU code was all read: for 2.7, cu126's was read in its wheels and cu118's is inferred,
# and a build whose code was read comes first, as a set of frameworks' does.)
r, d = plan([GTX970], "535.183.01", "--framework", "pytorch==2.5")
t.ok(r.rc == 0 and fw(d).get("cuda_build") == "cu121" and d["cuda"]["version"] == "12.2.2" and
     "Not PyTorch 2.5 (cu124): its own CUDA 12.4 runtime would run on driver 535.183.01 only by NVIDIA's minor-version "
     "compatibility, and that of PyTorch 2.5 (cu121) runs natively." in d.get("reasons", []),
     "GTX 970 on 535, pytorch==2.5: its cu121 build, whose CUDA 12.1 the driver runs natively (the system CUDA 12.2.2, "
     "the mirror having no 12.1), before cu124, which it runs only by minor-version compatibility "
     "[cuda_toolkit_driver_versions.csv 12.1 530.30.02, 12.4 550.54.14; pytorch_wheel_arch.csv 2.5.x read]",
     (fw(d), d.get("reasons")))
r, d = plan([GTX970], "535.183.01", "--framework", "pytorch==2.7")
t.ok(r.rc == 0 and fw(d).get("cuda_build") == "cu126" and fw(d).get("code_confidence") == "read",
     "GTX 970 on 535, pytorch==2.7: its cu126 build, whose sm_50 code was read in the wheels (cu118's is inferred) "
     "[pytorch_gpu_code.csv 2.7.x cu126, read in torch-2.7.0/2.7.1 from PyPI]", fw(d))
# jax[cuda12] is an extra from JAX 0.4.22 on (0.4.20 and 0.4.21 had cuda12_pip; jax[cuda12]==0.4.21 installs the CPU
# jaxlib): an older pin is not planned with it (found by an independent check of issue 34).
for pin in ("0.4.21", "0.4.16"):
    r, d = plan([RTX3090], "535.216.01", "--framework", "jax==" + pin)
    t.ok(r.rc == 3 and not (fw(d).get("pip") or []) and "has no jax[cuda12]: that extra came with JAX 0.4.22" in
         (d.get("reason") or d.get("error") or ""),
         "jax==%s: no jax[cuda12] install line, and the reason says why [framework_wheel_requires.csv: cuda12 from 0.4.22]" % pin, d)
r, d = plan([RTX3090], "535.216.01", "--framework", "jax==0.4.22")
t.ok(r.rc == 0 and fw(d).get("pip") == ["jax[cuda12]==0.4.22"], "jax==0.4.22: jax[cuda12] [framework_wheel_requires.csv]", d)
# jax 0.4.22-0.4.25 ask pip for nvidia-cudnn-cu12>=8.9 with no upper bound, so pip would take cuDNN 9, which the jaxlib
# they pin (built with cuDNN 8.9) does not load; 0.4.26 added <9.0 itself (found by an independent check of issue 34).
r, d = plan([RTX3090], "535.216.01", "--framework", "jax==0.4.25")
t.ok(r.rc == 0 and fw(d).get("constraints") == ["nvidia-cudnn-cu12==8.9.7.*"] and
     any("nvidia-cudnn-cu12>=8.9.7.29" in x and "cuDNN 8 only" in x for x in d.get("reasons", [])),
     "jax==0.4.25: pip held to cuDNN 8.9.7, the wheel's own requirement has no bound below 9 "
     "[framework_wheel_requires.csv jax 0.4.25, 0.4.26 <9.0; framework_pip_libraries.csv 0.4.22-0.4.25 inferred]", d)
r, d = plan([RTX3090], "535.216.01", "--framework", "jax==0.4.26")
t.ok(r.rc == 0 and fw(d).get("constraints") == [] and
     any("nvidia-cudnn-cu12>=8.9.2.26,<9.0" in x and "8.9.7" in x for x in d.get("reasons", [])),
     "jax==0.4.26: no constraint, its wheel asks <9.0 itself, and the plan judges cuDNN 8.9.7, not 9 "
     "[framework_wheel_requires.csv jax 0.4.26]", d)
r, d = plan([GTX970], "450.80.02")
t.ok(r.rc == 0 and vkey(fw(d).get("version")) < (2, 15), "TensorFlow on 450.80.02: a CUDA 11 build [%s]" % SRC_MVC, r)
t.ok(any("minor-version compatibility" in w for w in d.get("warnings", [])), "with a warning on what the old driver limits", d)
r, d = plan([GTX970], "450.80.02", "--framework", "pytorch")
t.ok(r.rc == 0 and fw(d).get("cuda_build") == "cu118", "PyTorch on 450.80.02: cu118 [%s]" % SRC_MVC, r)
r, d = plan([GTX970], "450.80.02", "--framework", "jax")
t.ok(r.rc == 3 and "525" in d.get("error", ""), "JAX on 450.80.02: refused, naming driver 525 [JAX docs]", d)
# The tests keep the driver (CUDAUP_DRIVER=keep): JAX itself plans with a newer branch, so that is the advice (issue 34
# item 5), with what it costs.
t.ok(re.search(r"--framework jax --driver 580\b", d.get("advice") or "") and "reboot" in (d.get("advice") or ""),
     "the advice is the branch that makes the request work, with its reboot [driver_generations.csv Maxwell: R580 last]", d)

# --- PTX JIT ------------------------------------------------------------------------------------
r, d = plan([RTX5090], "580.95.05")
t.eq(code(d), ("ptx-jit", "compute_90"), "RTX 5090, TensorFlow: only its compute_90 PTX [tensorflow_wheel_arch.csv 2.18-2.20; tensorflow#97387]")
t.ok(any("PTX" in w and "12.0" in w for w in d.get("warnings", [])), "a warning names the GPU and what JIT means", d.get("warnings"))
# TensorFlow 2.17+ carries sm_90 SASS (read in its wheels; .bazelrc's "compute_90" had been read as PTX alone), so
# an H100 on 550 runs the newest TensorFlow by minor-version compatibility, with no PTX to JIT.
r, d = plan([H100], "550.54.14")
t.ok(fw(d).get("version") == "2.21.0" and code(d) == ("sass", "sm_90"),
     "H100 on 550: TensorFlow 2.21.0 with its sm_90 code [tensorflow_gpu_code.csv 2.17.0-2.21.0, read in the wheels; "
     "cuda_minor_version_compat.csv 12.x 525.60.13]", fw(d))

# A wheel that reaches a GPU only through PTX needs the driver of the CUDA that wrote the PTX, even
# where minor-version compatibility would run the rest (framework_driver_rules.md, limit 1).  No real
# row is like that, so the catalog is a copy with one made-up row: PyTorch 2.8 cu128 with sm_70..sm_86
# and PTX compute_80, for an H100 (9.0) on driver 550 (CUDA 12.8, which wrote the PTX, wants 570).
import json as _json  # noqa: E402
cat = _json.load(open(os.path.join(SRCDIR, "data", "catalog.json")))
for row in cat["gpu_code"]["pytorch"]:
    if row["torch"] == "2.8" and row["tag"] == "cu128":
        row.update(sass=[70, 75, 80, 86], ptx=[80], source="made up for this test")
crafted = os.path.join(t.tmpdir("cat"), "catalog.json")
_json.dump(cat, open(crafted, "w"))
root = machine([H100], "550.54.14")
r = run(["plan", "--json", "--root", root, "--mirror", MIRROR, "--cache-dir", t.tmpdir("c"), "--prefix", "/opt/cu",
         "--framework", "pytorch==2.8"],
        env={"FAKE_NVIDIA_CONFIG": os.path.join(root, "fake-nvidia.conf"), "CUDAUP_CATALOG": crafted})
d = r.json() or {}
t.ok(r.rc == 0 and fw(d).get("cuda_build") == "cu126" and
     any(x.startswith("Not PyTorch 2.8 (cu128)") and "PTX compute_80" in x and "570" in x for x in d.get("reasons", [])),
     "(made-up row) PTX from CUDA 12.8 on driver 550: passed over for cu126's sm_90, naming the driver it needs", d)

# --- cuDNN support rows ----------------------------------------------------------------------------
r, d = plan([GTX1080], "580.95.05")
t.ok(d.get("cudnn") and vkey(d["cudnn"]["version"]) <= (9, 10, 2),
     "GTX 1080: cuDNN 9.10.2 or older (9.17.0's matrix no longer lists 6.1) [cudnn_support_matrix.csv]", d.get("cudnn"))
t.ok(any("9.10.2 is the newest known" in x for x in d.get("reasons", [])), "the plan says why newer cuDNN was passed over", d.get("reasons"))
# A cuDNN the mirror lacks that could not run here anyway: the refusal names the GPU its support matrix drops, as
# --cuda 11.1 on an RTX 4090 names the missing sm_89 (it said "The mirror has no cuDNN 9.17"; issue 34).
r, d = plan([GTX1080], "580.95.05", "--framework", "none", "--cudnn", "9.17")
t.ok(r.rc == 3 and "cuDNN 9.17.0 does not support GPU 0" in d.get("error", "") and "6.1" in d.get("error", ""),
     "GTX 1080, --cudnn 9.17: refused naming the GPU [cudnn_support_matrix.csv 9.17.0: 7.5 and up]", d)
r, d = plan([RTX4090], "580.95.05")
t.ok(d.get("cudnn") and vkey(d["cudnn"]["version"]) > (9, 10, 2), "RTX 4090: a newer cuDNN, both neighbouring matrices list 8.9 [cudnn_support_matrix.csv]", d.get("cudnn"))

# cuDNN 8.9.7's support matrix row lists CUDA 12.0-12.2; paired with 12.4 (TensorFlow 2.16 needs 12.3 or newer), the
# plan says so and on what it pairs them: NVIDIA's archive for CUDA 12 (found by an independent check of issue 34).
r, d = plan([RTX3090], "550.54.14", "--framework", "tensorflow==2.16")
t.ok(r.rc == 0 and (d.get("cudnn") or {}).get("version") == "8.9.7" and
     any(x.startswith("cuDNN 8.9.7's support matrix lists CUDA 12.0 to 12.2, not 12.4") for x in d.get("reasons", [])),
     "RTX 3090, tensorflow==2.16 on CUDA 12.4: the plan says cuDNN 8.9.7's row lists 12.0-12.2 and why it pairs them "
     "[cudnn_support_matrix.csv 8.9.7; cudnn_cuda_variants_from_manifests.csv 8.9.7 cuda12]", d.get("reasons"))
r, d = plan([GTX970], "535.183.01", "--framework", "tensorflow==2.15")
t.ok(r.rc == 0 and d.get("cuda", {}).get("version") == "12.2.2" and not any("support matrix lists CUDA" in x for x in d.get("reasons", [])),
     "GTX 970 on 535, TensorFlow 2.15 on CUDA 12.2: no such sentence, 8.9.7's row lists 12.2", d.get("reasons"))

# --- no build has code for the GPU ---------------------------------------------------------------
r, d = plan([GTX680], "470.82.01")
t.ok(r.rc == 3 and "no code for GPU 0" in d.get("error", "") and "sm_35" in d.get("error", ""),
     "GTX 680 (3.0), TensorFlow: refused; the oldest build carries sm_35 [tensorflow_wheel_arch.csv]", d)
# --- what pip brings with the framework (issue 23) --------------------------------------------------
SRC_PIP = "framework_pip_libraries.csv (jax-cuda12-plugin Requires-Dist nvidia-cudnn-cu12>=9.8,<10.0)"
SRC_MATRIX = "cudnn_support_matrix.csv (9.17.0 lists 7.5 and up; 9.10.2 lists 5.0 to 9.0)"
for gpu in (GTX970, GTX1080, V100):
    for driver in ("525.60.13", "535.183.01", "580.95.05"):
        r, d = plan([gpu], driver, "--framework", "jax")
        t.ok(r.rc == 0 and fw(d).get("constraints") == ["nvidia-cudnn-cu12==9.10.2.*"],
             "%s, driver %s, jax: pip held to cuDNN 9.10.2 [%s; %s]" % (gpu[2], driver, SRC_PIP, SRC_MATRIX), d)
for gpu in (RTX3090, RTX4090):
    r, d = plan([gpu], "570.133.07", "--framework", "jax")
    t.ok(r.rc == 0 and fw(d).get("constraints") == [], "%s, jax: no pin, 9.17.0's matrix lists it [%s]" % (gpu[2], SRC_MATRIX), d)
r, d = plan([GTX970, RTX3090], "580.95.05", "--framework", "jax")
t.eq(fw(d).get("constraints"), ["nvidia-cudnn-cu12==9.10.2.*"], "GTX 970 beside an RTX 3090, jax: the pin serves both")

# Kepler (issue 34): PyTorch 2.4-2.7's cu118 wheels bring cuDNN 9.1.0.70, which has no 3.7; 2.1-2.3's bring 8.7.0.84,
# whose wheel carries sm_35 SASS (first-hand), so the newest PyTorch a K80 runs is 2.3.
for extra in ([], ["--cudnn", "none"]):
    r, d = plan([K80], "470.57.02", "--framework", "pytorch", *extra)
    t.ok(r.rc == 0 and fw(d).get("version") == "2.3" and fw(d).get("cuda_build") == "cu118" and code(d) == ("sass", "sm_37"),
         "K80, pytorch %s: PyTorch 2.3 cu118, its sm_37 code and the cuDNN 8.7.0.84 it pins "
         "[pytorch_release_cuda_matrix.csv 2.3; pytorch_wheel_arch.csv 2.3.x cu118; cudnn_support_matrix.csv 8.7.0 first-hand sm_35]"
         % " ".join(extra), r)
    t.ok(any(x.startswith("Not PyTorch 2.7 (cu118)") and "9.1.0.70" in x and "3.7" in x for x in d.get("reasons", [])),
         "K80, pytorch %s: and why not 2.7 cu118, the newest with sm_37: the cuDNN 9.1.0.70 it pins has no 3.7 "
         "[pytorch_bundled_cudnn.csv; cudnn_support_matrix.csv 9.0.0, 9.2.0 list 5.0 and up]" % " ".join(extra), d.get("reasons"))

r, d = plan([RTX5090], "570.133.07", "--framework", "jax")
t.ok(r.rc == 0 and fw(d).get("pip") == ["jax[cuda12]"] and code(d) == ("sass", "sm_120"),
     "RTX 5090 on driver 570: the newest JAX, whose wheels carry sm_120 SASS, so no PTX of CUDA 12.9 (driver 575) is JIT-compiled "
     "[jax_gpu_code.csv: .nv_fatbin of jax_cuda12_pjrt 0.11.1-0.12.0.1]", d)
t.ok(not any("575.51.03" in x for x in d.get("reasons", [])), "and no reason asks for the driver of that PTX", d.get("reasons"))
# The Pythons a JAX release has wheels for (jaxlib's cp tags on PyPI): a pin with a Python it has none for is
# refused naming the Python, and beside PyTorch the newest JAX that has one is planned.
r, d = plan([H100], "580.95.05", "--framework", "jax==0.12.0.1", "--python", "3.11")
t.ok(r.rc == 3 and "3.11" in d.get("error", "") and "3.12" in d.get("error", ""),
     "H100, jax==0.12.0.1 on Python 3.11: refused, naming the Pythons it has wheels for [jax_python.csv 0.11.1-0.12.0.1: 3.12-3.15]", d)
r, d = plan([H100], "580.95.05", "--framework", "jax==0.10.2", "--python", "3.11")
t.ok(r.rc == 0 and fw(d).get("pip") == ["jax[cuda13]==0.10.2"], "H100, jax==0.10.2 on Python 3.11: planned [jax_python.csv 0.7.1-0.10.2: 3.11-3.14]", d)
for py, want in (("3.11", "0.10.2"), ("3.12", "0.12.1")):
    r, d = plan([H100], "580.95.05", "--framework", "pytorch,jax", "--python", py)
    pips = [p for f in d.get("frameworks") or [] for p in f.get("pip") or []]
    t.ok(r.rc == 0 and any(p.startswith("jax[") and p.endswith("==" + want) for p in pips),
         "H100, pytorch,jax on Python %s: JAX %s, the newest with wheels for it [jax_python.csv; jax_gpu_code.csv]" % (py, want), d)

# The cuDNN pip brings with jax[cuda12] runs with the CUDA runtime pip brings beside it: the plugin asks for
# nvidia-cuda-runtime-cu12>=12.1.105 and pip takes the newest, at least 12.8.90 (torch 2.10.0 pins it, so PyPI holds it).
# cuDNN 9.10.2 serves compute capability 12.0 from CUDA 12.8 on, so a Maxwell + Blackwell box runs JAX (issue 34:
# it was refused, "cuDNN 9.10.2 supports GPU 1 only with CUDA 12.8 or newer, not 12.0").
GTX980 = ("13c0", "5.2", "NVIDIA GeForce GTX 980")
r, d = plan([GTX980, RTX5090], "575.64.05", "--framework", "jax")
t.ok(r.rc == 0 and fw(d).get("constraints") == ["nvidia-cudnn-cu12==9.10.2.*"] and code(d, 0) == ("sass", "sm_50") and
     code(d, 1) in (("sass", "sm_120"), ("ptx-jit", "compute_120")) and
     any("nvidia-cuda-runtime-cu12>=12.1.105" in x and "12.8.90" in x for x in d.get("reasons", [])),
     "GTX 980 + RTX 5090 on 575, jax: planned, cuDNN held to 9.10.2 (its Blackwell row: 12.0 from CUDA 12.8), the runtime "
     "pip brings named [framework_wheel_requires.csv jax-cuda12-plugin runtime >=12.1.105, torch 2.10.0 ==12.8.90; "
     "cudnn_support_matrix.csv 9.10.2 Blackwell row; jax_gpu_code.csv: sm_50 and sm_120 or compute_120]", d)
r, d = plan([GTX970], "450.80.02", "--framework", "none")
t.ok(r.rc == 0 and vkey(d["cuda"]["version"])[0] == 11 and any("minor-version compatibility" in w for w in d.get("warnings", [])),
     "driver 450.80.02, --framework none: CUDA 11 by minor-version compatibility, with its warning [cuda_minor_version_compat.csv 11.x >= 450.80.02]", d)
r, d = plan([K80], "470.57.02", "--framework", "none")
t.ok(r.rc == 0 and d["cuda"]["version"] == "11.8.0" and (d.get("cudnn") or {}).get("version") == "8.7.0",
     "K80, --framework none: CUDA 11.8 (sm_37, by minor-version compatibility) with cuDNN 8.7.0 "
     "[cuda_arch_support.csv 11.8; cudnn_support_matrix.csv 8.7.0 first-hand sm_35; 8.8.0 has none]", r)
r, d = plan([GTX970], "535.183.01", "--cuda", "13.0")
t.ok(r.rc == 3 and "GPU 0" in d.get("error", "") and "5.2" in d.get("error", "") and "TensorFlow" not in d.get("error", ""),
     "GTX 970, --cuda 13.0: the GPU is the blocker, not a TensorFlow release [cuda_arch_support.csv 13.0]", d)
t.ok("needs NVIDIA driver" in d.get("error", ""), "and the driver, which runs CUDA 12.2 at most", d)
r, d = plan([GTX970], "535.183.01", "--python", "2.7")
t.ok(r.rc == 3 and "Python 2.7" in d.get("error", "") and "2.16" not in d.get("error", ""),
     "--python 2.7: the Python is the blocker [tensorflow_tested_builds_linux_gpu.csv]", d)
r, d = plan([GTX970], "580.95.05", "--framework", "none", "--cudnn", "9.14")
t.ok(r.rc == 3 and "--cudnn 9.10" in (d.get("advice") or ""), "GTX 970, --cudnn 9.14: the advice names --cudnn 9.10", d)

# Every refusal's advice plans when run.
for gpus, driver, args in (([GTX780], "470.57.02", ["--framework", "pytorch"]), ([K80], "470.57.02", ["--framework", "jax"]),
                           ([GTX970], "535.183.01", ["--cuda", "13.0"]), ([GTX970], "535.183.01", ["--python", "2.7"]),
                           ([GTX970], "580.95.05", ["--framework", "none", "--cudnn", "9.14"]),
                           ([GTX970], "580.95.05", ["--framework", "tensorflow==2.17"])):
    r, d = plan(gpus, driver, *args)
    m = re.search(r"cudaup install (.*?) gives", d.get("advice") or "")
    t.ok(m, "%s %s: the refusal names a command" % (gpus[0][2], " ".join(args)), d)
    if m:
        r2, d2 = plan(gpus, driver, *m.group(1).split())
        t.eq(r2.rc, 0, "%s %s: its advice '%s' plans" % (gpus[0][2], " ".join(args), m.group(1)), r2)
        t.ok(no_hidden_driver(d, d2), "%s %s: its advice changes the driver only where it says so" % (gpus[0][2], " ".join(args)),
             (d.get("advice"), d2.get("driver")))
# --- issue 34: every feasible stack is planned ------------------------------------------------------
# 1. The default search reaches the legacy stacks: on driver 418 no CUDA 11 runs (11.0 needs 450.51, and
#    minor-version compatibility 450.80.02), so Kepler's newest TensorFlow is 2.3.4 on CUDA 10.1 (418.39).
for gpu in (K80, GTX780):
    r, d = plan([gpu], "418.87.01")
    t.ok(r.rc == 0 and fw(d).get("version") == "2.3.4" and d["cuda"]["version"] == "10.1.243" and
         d["cudnn"]["version"] == "7.6.5" and code(d) == ("sass", "sm_%s" % gpu[1].replace(".", "")),
         "%s, driver 418, tensorflow: the legacy TensorFlow 2.3.4 on CUDA 10.1, its sm_35/sm_37 code "
         "[data/legacy/tensorflow_stacks.csv 2.3; cuda_runfiles.csv 10.1.243 418.39; cudnn_support_matrix.csv 8.0.2 10.x SM 3.0+]"
         % gpu[2], r)
    r, d = plan([gpu], "470.57.02")
    t.ok(r.rc == 0 and fw(d).get("version") == "2.14.1" and d["cuda"]["version"] == "11.8.0" and
         d["cudnn"]["version"] == "8.7.0" and code(d) == ("sass", "sm_35"),
         "%s, driver 470, tensorflow: 2.14.1, the newest with sm_35, with cuDNN 8.7.0 "
         "[tensorflow_gpu_code.csv 2.5.0-2.14.1, read in the wheels; cudnn_support_matrix.csv 8.7.0 first-hand sm_35, "
         "8.8.0 none]" % gpu[2], r)
r, d = plan([GTX780], "418.87.01", "--framework", "pytorch")
t.ok(r.rc == 3 and "--framework tensorflow==2.3.4" in (d.get("advice") or ""),
     "GTX 780, driver 418, pytorch: refused (no build has sm_35), the advice finds the legacy TensorFlow 2.3.4", d)
# 2. The matrices read since: 8.5.0 (NVIDIA, SM 3.5 and later) for PyTorch 2.0 cu117; 9.7.1 (first-hand, sm_120) for 2.7 cu128.
r, d = plan([K80], "470.57.02", "--framework", "pytorch==2.0")
t.ok(r.rc == 0 and fw(d).get("cuda_build") == "cu117" and code(d) == ("sass", "sm_37") and
     any("8.5.0.96" in x and "lists every GPU" in x for x in d.get("reasons", [])),
     "K80, pytorch==2.0: cu117, whose cuDNN 8.5.0.96 NVIDIA's 8.5.0 matrix lists for SM 3.5 and later "
     "[pytorch_release_cuda_matrix.csv 2.0; cudnn_support_matrix.csv 8.5.0 read]", r)
r, d = plan([RTX5090], "580.95.05", "--framework", "pytorch==2.7")
t.ok(r.rc == 0 and fw(d).get("cuda_build") == "cu128" and code(d) == ("sass", "sm_120"),
     "RTX 5090, pytorch==2.7: its cu128 build, whose cuDNN 9.7.1.26 carries sm_120 "
     "[pytorch_wheel_arch.csv 2.7.x cu128; cudnn_support_matrix.csv 9.7.1 Blackwell row first-hand]", r)
# 3. A toolkit alone from every release the catalog holds, refused for the right reason where a GPU lacks code.
for cuda, want, dnn in (("10.2", "10.2.89", "7.6.5"), ("11.1", "11.1.0", "8.2.1"), ("11.3", "11.3.0", "8.2.1")):
    r, d = plan([GTX970], "535.183.01", "--framework", "none", "--cuda", cuda)
    t.ok(r.rc == 0 and d["cuda"]["version"] == want and (d.get("cudnn") or {}).get("version") == dnn and
         any(x["component"] == "cuda_runfile" for x in d.get("downloads", [])) and
         not any("not on the mirror" in x for x in d.get("reasons", [])),
         "GTX 970, --framework none --cuda %s: CUDA %s from its runfile with cuDNN %s, no reason saying it is not on the mirror "
         "[data/legacy/cuda_runfiles.csv, cudnn_tgz.csv; cudnn_support_matrix.csv 8.2.0, 8.0.2]" % (cuda, want, dnn), r)
r, d = plan([RTX4090], "535.183.01", "--framework", "none", "--cuda", "11.1")
t.ok(r.rc == 3 and "8.9" in d.get("error", "") and "11.1" in d.get("error", "") and "mirror" not in d.get("error", ""),
     "RTX 4090, --cuda 11.1: refused because 11.1 has no sm_89, not for the mirror [cuda_arch_support.csv 11.1]", d)
r, d = plan([GTX680], "470.57.02", "--framework", "none")
t.ok(r.rc == 0 and d["cuda"]["version"] == "10.2.89", "GTX 680 (3.0), --framework none: CUDA 10.2, the last with sm_30 "
     "[cuda_runfiles.csv 10.2.89 sm 30; cuda_arch_support.csv 11.0 drops 30]", r)
# 6. Reasons that name the real blocker.
r, d = plan([RTX3090], "470.57.02", "--framework", "pytorch==2.14", "--driver", "keep")
t.ok(r.rc == 3 and "cu126" in d.get("error", "") and "525.60.13" in d.get("error", "") and "cu132" not in d.get("error", ""),
     "RTX 3090 on 470, pytorch==2.14: the build that needs the least driver is named (cu126, 525.60.13), not cu132 "
     "[cuda_minor_version_compat.csv]", d)
r, d = plan([K80], "418.87.01", "--framework", "pytorch", "--driver", "keep")
t.ok(r.rc == 3 and "PyTorch 2.3 (cu118)" in d.get("error", "") and "450.80.02" in d.get("error", ""),
     "K80 on 418, pytorch: the newest build a newer driver would run is named (2.3 cu118), not 2.7, whose cuDNN has no 3.7", d)
r, d = plan([GTX780], "470.57.02", "--framework", "pytorch==1.13")
t.ok(r.rc == 3 and "no code for GPU 0" in d.get("error", "") and "sm_37" in d.get("error", "") and "cuDNN" not in d.get("error", ""),
     "GTX 780, pytorch==1.13: the missing sm_35 is the blocker, not cuDNN 8.3.2's matrix "
     "[data/compat/pytorch_gpu_code.csv 1.13.x: pytorch/builder release/1.13 build_cuda.sh]", d)
r, d = plan([GTX780], "470.57.02", "--framework", "pytorch")
t.ok(r.rc == 3 and "no code for GPU 0" in d.get("error", "") and "it carries sm_37" in d.get("error", "") and
     "cu132" not in d.get("error", ""),
     "GTX 780, pytorch: no build has sm_35; the error names one with the oldest code any carries (sm_37), not the newest "
     "build (cu132), though builds the data is silent on (2.13 cu130) fail too [data/compat/pytorch_gpu_code.csv]", d)
# A --cuda the mirror and the runfiles lack is the blocker, not a framework build it never reached; where that CUDA
# cannot build for a GPU here, the GPU is (found by an independent check of issue 34).
A100 = ("20b2", "8.0", "NVIDIA A100-SXM4-80GB")
r, d = plan([A100], "530.30.02", "--framework", "pytorch", "--cuda", "12.1")
t.ok(r.rc == 3 and d.get("error", "").startswith("CUDA 12.1 is not on the mirror;") and "cu132" not in d.get("error", "") and
     advice_command(d),
     "A100 on 530, pytorch --cuda 12.1: CUDA 12.1 not on the mirror is the blocker, not cu132's driver "
     "[tests/fixtures/nvidia: no 12.1; data/legacy/cuda_runfiles.csv: none]", d)
for cuda in ("12.0", "12.1"):
    r, d = plan([GTX780], "470.57.02", "--framework", "none", "--cuda", cuda)
    t.ok(r.rc == 3 and "no longer builds for GPU 0" in d.get("error", "") and "3.5" in d.get("error", "") and
         "mirror" not in d.get("error", ""),
         "GTX 780, --cuda %s: CUDA 12 has no sm_35, not 'not on the mirror' [cuda_arch_support.csv 12.0]" % cuda, d)
# No build has code for both GPUs: said so, naming a build for each, not one build's missing GPU.
for old in (GTX1080, ("13c0", "5.2", "NVIDIA GeForce GTX 980")):
    r, d = plan([old, RTX5090], "575.64.05", "--framework", "pytorch")
    e = d.get("error", "")
    t.ok(r.rc == 3 and e.startswith("No PyTorch build has code for every GPU here") and "(cu126) has code for GPU 0" in e and
         re.search(r"\(cu1[23]\d\) has code for GPU 1", e) and "2.7 (cu118)" not in e and advice_command(d),
         "%s + RTX 5090, pytorch: no build has code for both, each GPU's build named "
         "[pytorch_gpu_code.csv 2.8+ cu126 sm_50-sm_90, cu128+ sm_70-sm_120]" % old[2], d)
r, d = plan([RTX5090], "570.133.07", "--framework", "jax", "--driver", "keep")
t.ok(r.rc == 0 and not any("0.6.0 to 0.7.1" in x or "older than" in x for x in d.get("reasons", [])) and
     any("sm_120 code" in x for x in d.get("reasons", [])),
     "RTX 5090 on 570, jax, --driver keep: the newest JAX with its sm_120 code, no range of older releases", d.get("reasons"))
r, d = plan([RTX5090], "580.95.05", "--framework", "jax", "--driver", "keep")
t.ok(r.rc == 0 and not any(re.search(r"cuDNN (\d+\.\d+\.\d+) and \1\b", x) for x in d.get("reasons", [])),
     "RTX 5090, jax: no reason names one matrix twice ('9.17.0 and 9.17.0')", d.get("reasons"))
r, d = plan([K80], "470.57.02", "--framework", "jax")
t.ok(r.rc == 3 and "compute capability" in d.get("error", "") and "3.7" in d.get("error", "") and "driver" not in d.get("error", ""),
     "K80, jax: the GPU is the blocker (JAX's plugins need 5.2 and up), not the driver [jax_cuda_plugins.csv min_sm]", d)

# 4. --driver auto replaces a working driver only when the request cannot be met with it.  R410/R418/R440 run
#    CUDA 10.0 (410.48), 10.1 (418.39) and 10.2 (440.33), so the newest TensorFlow on them is a legacy stack.
SRC_DRV = "cuda_toolkit_driver_versions.csv 10.0 410.48, 10.1 418.39; data/legacy/tensorflow_stacks.csv"
T4 = ("1eb8", "7.5", "Tesla T4")
for driver, want, cuda in (("410.104", "2.0.4", "10.0.130"), ("418.87.01", "2.3.4", "10.1.243"), ("440.100", "2.3.4", "10.1.243")):
    for gpu in (K80, T4, GTX1080):
        r, d = plan([gpu], driver, env=AUTO)
        newer = [x for x in d.get("reasons", []) if x.startswith("A newer driver would bring TensorFlow")]
        t.ok(r.rc == 0 and (d.get("driver") or {}).get("action") == "keep" and fw(d).get("version") == want and
             d["cuda"]["version"] == cuda, "%s on %s, --driver auto: keeps the driver, TensorFlow %s on CUDA %s [%s]"
             % (gpu[2], driver, want, cuda, SRC_DRV), (r, d.get("driver")))
        branch = "470" if gpu is K80 else "580"
        t.ok(newer and re.search(r"`cudaup install --driver %s(-proprietary)?` installs NVIDIA driver %s" % (branch, branch), newer[0])
             and "reboot" in newer[0],
             "%s on %s: the plan says what driver %s would bring, with the command that asks for it "
             "[driver_generations.csv: Kepler last R470, Maxwell-Volta last R580]" % (gpu[2], driver, branch), d.get("reasons"))
r, d = plan([T4], "418.87.01", env=AUTO)
t.ok(not any("open" in x and "Driver" in x and "planned" in x for x in d.get("reasons", [])) and
     "--driver 580-proprietary" in " ".join(d.get("reasons", [])),
     "T4 on 418 (proprietary): no flavor switch; the newer driver it names keeps the proprietary modules", d.get("reasons"))
r, d = plan([T4], "418.87.01", "--framework", "tensorflow==2.20", env=AUTO)
dr = d.get("driver") or {}
t.ok(r.rc == 0 and (dr.get("action"), dr.get("branch"), dr.get("flavor")) == ("install", "580", "proprietary") and
     any("not this request" in x and "418.87.01" in x for x in d.get("reasons", [])),
     "T4 on 418, tensorflow==2.20: needs CUDA 12.5 (555.42), so the driver is planned, in the flavor that runs, "
     "and the reasons say why [cuda_toolkit_driver_versions.csv 12.5]", (r, dr))
# 5. Advice that plans and shows its cost.
for drv_env in (AUTO, None):
    r, d = plan([GTX1080, RTX5090], "580.95.05", "--framework", "pytorch", env=drv_env)
    args = advice_command(d)
    r2, d2 = plan([GTX1080, RTX5090], "580.95.05", *args, env=drv_env) if args else (None, {})
    t.ok(r.rc == 3 and args and r2.rc == 0 and ("--driver keep" not in (d.get("advice") or "") or "--driver keep" in " ".join(args)),
         "GTX 1080 + RTX 5090, pytorch (%s): refused; the advice is a command that plans, --driver keep only with one"
         % ("auto" if drv_env else "keep"), (d, r2))
r, d = plan([V100, T4], "470.57.02", "--framework", "jax")
cmds = [c.split() for c in re.findall(r"cudaup install (.*?) gives", d.get("advice") or "")]
args = next((c for c in cmds if "--driver" in c), None)
r2, d2 = plan([V100, T4], "470.57.02", *args) if args else (None, {})
t.ok(r.rc == 3 and args and "--driver" in args and args[args.index("--driver") + 1].startswith("580") and
     "reboot" in d.get("advice", "") and r2.rc == 0 and (d2.get("driver") or {}).get("action") == "install",
     "V100 + T4 on 470, jax, --driver keep: the advice offers --driver 580, which makes the request plan, and says "
     "it installs the driver and reboots [jax_cuda_plugins.csv: driver 525]", (d, d2.get("driver")))
r, d = plan([V100, T4], "470.57.02", "--framework", "jax", env=AUTO)
t.ok(r.rc == 0 and (d.get("driver") or {}).get("branch") == "580" and fw(d).get("name") == "jax",
     "V100 + T4 on 470, jax, --driver auto: driver 580 is planned, since 470 cannot meet the request", r)
r, d = plan([GTX680], None, env=AUTO)
args = advice_command(d)
r2, d2 = plan([GTX680], None, *args, env=AUTO) if args else (None, {})
t.ok(r.rc == 3 and args and r2.rc == 0 and (d2.get("driver") or {}).get("action") == "install" and no_hidden_driver(d, d2),
     "GTX 680 without a driver, tensorflow: the advice (CUDA alone) says that it installs driver 470 first", (d, d2.get("driver")))
# 7. mirror plans the framework plan plans, with the same flags (one resolver, one answer).
for gpu, driver in ((GTX970, "535.183.01"), (K80, "470.57.02"), (RTX5090, "580.95.05")):
    r, d = plan([gpu], driver)
    site = t.tmpdir("site")
    rm, dm = plan([gpu], driver, site, cmd="mirror", env={"PATH": "/usr/bin:/bin"})
    t.ok(r.rc == 0 and dm.get("framework") and dm["framework"].get("pip") == fw(d).get("pip"),
         "%s on %s: mirror asks pip for what plan plans (%s) [tensorflow_gpu_code.csv]" % (gpu[2], driver, fw(d).get("pip")),
         (fw(d).get("pip"), dm.get("framework"), dm.get("error")))

# Several frameworks: mirror --json names each whose wheels the site carries, as plan plans them (it named only the
# first; issue 34).
r, d = plan([A100], "580.95.05", "--framework", "pytorch,tensorflow")
rm, dm = plan([A100], "580.95.05", t.tmpdir("site"), "--framework", "pytorch,tensorflow", cmd="mirror",
              env={"PATH": "/usr/bin:/bin"})
want = [(f.get("name"), f.get("pip")) for f in d.get("frameworks", [])]
t.ok(r.rc == 0 and len(want) == 2 and [(f.get("name"), f.get("pip")) for f in dm.get("frameworks") or []] == want and
     (dm.get("framework") or {}).get("name") == "pytorch",
     "A100, pytorch,tensorflow: mirror --json names both frameworks plan plans", (want, dm.get("frameworks"), dm.get("error")))

# --- a grid: no plan gives a GPU a cuDNN its matrix does not list, directly or through pip, and
# every refusal's advice plans.  The matrix rows are read here from the project's CSV
# (data/compat/cudnn_support_matrix.csv, each row with its source), not from cudaup's catalog.
import csv  # noqa: E402
# Unpinned and pinned JAX are weighed alike (issue 34): each release's cuda13 and cuda12 builds together, the one
# whose system CUDA the driver runs natively first.  On an RTX 3090 with 470, --driver auto plans branch 580, counted
# as 580.65.06, which runs CUDA 12.9 natively and 13.0.2 only by minor-version compatibility (13.0.2 needs 580.95.05).
SRC_JAXMVC = "cuda_toolkit_driver_versions.csv 13.0.2 580.95.05, 12.9 575.57.08; cuda_minor_version_compat.csv 13.x 580.65.06"
builds = []
for spec in ("jax", "jax==0.10.2"):
    r, d = plan([RTX3090], "470.82.01", "--framework", spec, env=AUTO)
    builds.append((fw(d).get("cuda_build"), (d.get("cuda") or {}).get("version")))
    t.ok(r.rc == 0 and any(x.startswith("Not JAX") and "(cuda13): CUDA 13.0.2 needs NVIDIA driver 580.95.05" in x and
                           "minor-version compatibility, and a build of the same release that runs natively comes first" in x
                           for x in d.get("reasons", [])),
         "RTX 3090 on 470, --driver auto, %s: why not cuda13, its CUDA only by minor-version compatibility [%s]"
         % (spec, SRC_JAXMVC), d.get("reasons"))
t.eq(builds, [("cuda12", "12.9.1"), ("cuda12", "12.9.1")],
     "RTX 3090 on 470, --driver auto: jax and jax==0.10.2 plan the same build and CUDA [%s]" % SRC_JAXMVC)
# A newer driver that would bring the same wheels (their own CUDA runtime) with only a newer system CUDA is no
# newer release to name (issue 34: "A newer driver would bring PyTorch 2.3 with CUDA 12.9.1").
for drv, args in (("535.183.01", ("--framework", "pytorch==2.3", "--python", "3.12")), ("535.183.01", ("--framework", "jax")),
                  ("550.54.14", ("--framework", "tensorflow==2.17.0"))):  # TensorFlow: CUDA 12.4.1, or 12.9.1 by 580
    r, d = plan([GTX1080], drv, *args, env=AUTO)
    t.ok(r.rc == 0 and (d.get("driver") or {}).get("action") == "keep" and
         not any(x.startswith("A newer driver would bring") for x in d.get("reasons", [])),
         "GTX 1080 on %s, %s, --driver auto: keeps the driver and names no newer driver for the same wheels"
         % (drv, " ".join(args)),
         d.get("reasons"))

# A newer release passed over only for its inferred GPU code says so, where the newest was passed over for something
# else: on 520 (CUDA 11 alone) PyTorch 2.6/2.7 cu118's arch lists are inferred, 2.5 cu118's read (issue 34).
r, d = plan([GTX970], "520.61.05", "--framework", "pytorch")
t.ok(r.rc == 0 and fw(d).get("cuda_build") == "cu118" and fw(d).get("version") == "2.5" and
     "Not PyTorch 2.7 (cu118): what GPU code it carries is only inferred, while it is read for PyTorch 2.5 (cu118)."
     in d.get("reasons", []),
     "GTX 970 on 520, pytorch: 2.5 cu118 (read), saying why not 2.7 cu118 (inferred) [pytorch_wheel_arch.csv 2.5.x cu118 "
     "read, 2.7.x cu118 inferred]", (fw(d), d.get("reasons")))

# A build whose own CUDA the driver runs natively keeps its place when the mirror lacks that CUDA: PyTorch 2.0's stable
# cu117 beside the system CUDA 11.8, not its experimental cu118 (the fixture mirror has no 11.7; issue 34).
r, d = plan([A100], "535.183.01", "--framework", "pytorch==2.0")
t.ok(r.rc == 0 and fw(d).get("cuda_build") == "cu117" and d["cuda"]["version"] == "11.8.0" and
     any("the mirror has no CUDA 11.7 release" in x for x in d.get("reasons", [])),
     "A100 on 535, pytorch==2.0: its stable cu117 build with the system CUDA 11.8.0 [pytorch_release_cuda_matrix.csv 2.0 "
     "stable 11.7, experimental 11.8; cuda_toolkit_driver_versions.csv 11.7 515.43.04]", (fw(d), d.get("reasons")))

# Where no one driver serves every GPU, the advice does not send the user to a newer driver that drops one of them
# (a K80 ends with R470, an RTX 5090 needs R570 and the open modules; issue 34: it said "install 570.26 or newer").
for drv, args in (("470.82.01", ("--framework", "pytorch")), ("470.82.01", ("--framework", "none")),
                  ("580.95.05", ("--framework", "pytorch"))):
    r, d = plan([K80, RTX5090], drv, *args)
    err, adv = d.get("error") or "", d.get("advice") or ""
    t.ok(r.rc == 3 and "cannot drive that GPU" in err and "No driver serves every GPU here" in err and
         "one driver serves together" in adv and "then run cudaup again" not in adv,
         "K80 + RTX 5090 on %s, %s: the driver cannot drive one of them, and no driver serves both "
         "[driver_generations.csv Kepler last 470, Blackwell from 570, open only]" % (drv, " ".join(args)), d)

# A pinned --cuda plans as the automatic choice does for a framework whose CUDA range the driver runs no release of
# natively (by minor-version compatibility, saying so); a toolkit alone stays native (issue 34: the wizard's list
# marked 12.9.1 'needs 575.57.08' while Automatic chose it).
r, d = plan([H100], "550.54.14", "--cuda", "12.9")
t.ok(r.rc == 0 and d["cuda"]["version"] == "12.9.1" and fw(d).get("version") == "2.21.0" and
     any(x.startswith("CUDA 12.9.1, as asked: driver 550.54.14 runs it by NVIDIA's minor-version compatibility") for x in
         d.get("reasons", [])) and any("minor-version compatibility" in w for w in d.get("warnings", [])),
     "H100 on 550, --cuda 12.9: TensorFlow 2.21.0 by minor-version compatibility, as asked [%s]" % SRC_MVC34,
     (d.get("error"), d.get("reasons")))
r, d = plan([H100], "550.54.14", "--cuda", "12.9", "--framework", "none")
t.ok(r.rc == 3 and "575.57.08" in d.get("error", ""), "H100 on 550, --cuda 12.9 --framework none: refused, naming 575.57.08", d)

# --driver keep where the driver's branch cannot drive a GPU by its generation's own first or last branch (an RTX
# 5090 on R550, a K80 on R535): refused, with --driver auto, which plans a branch that can (it planned PyTorch for
# the RTX 5090 on 550 by minor-version compatibility; issue 34).
for gpu, driver, args, word in ((RTX5090, "550.127.05", ("--framework", "pytorch"), "older than branch 570, the first"),
                                (K80, "535.183.01", ("--framework", "tensorflow"), "newer than branch 470, the last")):
    r, d = plan([gpu], driver, *args)
    r2, d2 = plan([gpu], driver, *args, env=AUTO)
    t.ok(r.rc == 3 and word in d.get("error", "") and "--driver auto" in (d.get("advice") or "") and r2.rc == 0 and
         (d2.get("driver") or {}).get("action") == "install",
         "%s on %s, --driver keep: cannot drive it, refused; --driver auto plans a driver [driver_generations.csv]"
         % (gpu[2], driver), (d.get("error"), d2.get("error")))

# A patch pin is installed as asked where PyPI has it, and refused where it has not (issue 34: pytorch==2.7.0 was
# torch==2.7.*, which installs 2.7.1; pytorch==2.7.9 and jax==0.4.99 were planned).
SRC_REL = "framework_pypi_releases.csv (pip index versions, PyPI)"
r, d = plan([RTX3090], "580.95.05", "--framework", "pytorch==2.7.0")
t.ok(r.rc == 0 and fw(d).get("pip", [None])[0] == "torch==2.7.0", "pytorch==2.7.0: torch==2.7.0, as asked [%s]" % SRC_REL,
     (fw(d), d.get("error")))
REC = "is not in cudaup's record of PyPI (read %s); its "
for pin, want in (("pytorch==2.7.9", "PyTorch 2.7.9 " + REC % READ["pytorch"] + "2.7 releases there are 2.7.0, 2.7.1."),
                  ("pytorch==2.2.3", "PyTorch 2.2.3 " + REC % READ["pytorch"] + "2.2 releases there are 2.2.0, 2.2.1, 2.2.2."),
                  ("tensorflow==2.13.2", "TensorFlow 2.13.2 " + REC % READ["tensorflow"] + "2.13 releases there are 2.13.0, 2.13.1."),
                  ("jax==0.4.99", "JAX 0.4.99 " + REC % READ["jax"] + "0.4 releases there end with 0.4.38."),
                  ("jax==0.12.9", "JAX 0.12.9 " + REC % READ["jax"] + "0.12 releases there end with 0.12.1.")):
    r, d = plan([RTX3090], "580.95.05", "--framework", pin)
    t.ok(r.rc == 3 and d.get("error") == want, "%s: refused, naming the releases there are [%s]" % (pin, SRC_REL), d)
r, d = plan([RTX3090], "580.95.05", "--framework", "jax==0.4.35")
t.ok(r.rc == 0 and fw(d).get("pip") == ["jax[cuda12]==0.4.35"], "jax==0.4.35, a release: planned [%s]" % SRC_REL, d)
r, d = plan([RTX3090], "580.95.05", "--framework", "jax==0.12.1")
t.ok(r.rc == 0 and fw(d).get("pip") == ["jax[cuda13]==0.12.1"],
     "jax==0.12.1 (on PyPI since the record of 2026-12-04): planned with its CUDA 13 plugin, the only one it has "
     "[%s; framework_wheel_requires.csv jax 0.12.1]" % SRC_REL, d)

# --driver keep on a driver older than the first CUDA that builds for the GPU (it predates the GPU): refused, with
# --driver auto (it planned PyTorch for an L4 on 470 and TensorFlow for an RTX 3060 on 450.80.02; third re-check).
L4 = ("27b8", "8.9", "NVIDIA L4")
RTX3060 = ("2503", "8.6", "NVIDIA GeForce RTX 3060")
for gpu, driver, need in ((L4, "470.82.01", "520.61.05, the driver of CUDA 11.8"),
                          (RTX3060, "450.80.02", "455.23, the driver of CUDA 11.1")):
    r, d = plan([gpu], driver, "--framework", "pytorch")
    t.ok(r.rc == 3 and need in d.get("error", "") and "predates that GPU" in d.get("error", ""),
         "%s on %s, --driver keep: the driver predates the GPU, refused [cuda_arch_support.csv; "
         "cuda_toolkit_driver_versions.csv]" % (gpu[2], driver), d)
r, d = plan([GTX970], "390.157", "--framework", "tensorflow==1.14")
t.ok("predates" not in (d.get("error") or ""), "a GTX 970 older than the catalog's CUDA: no floor from it (R390 drives it)", d)

# Where --driver keep is itself refused, the advice does not offer it (P100 + RTX 5090 on 550: no branch serves both,
# and 550 cannot drive the 5090; it advised `--framework jax --driver keep`; third re-check).
P100 = ("15f8", "6.0", "Tesla P100-PCIE-16GB")
r, d = plan([P100, RTX5090], "550.127.05", "--framework", "pytorch", env=AUTO)
t.ok(r.rc == 3 and "--driver keep" not in (d.get("advice") or "") and "one driver serves together" in (d.get("advice") or ""),
     "P100 + RTX 5090 on 550, --driver auto: no --driver keep advice, which would be refused", d)

MATRIX = {}
with open(os.path.join(SRCDIR, "data", "compat", "cudnn_support_matrix.csv")) as fh:
    for row in csv.DictReader(fh):
        ccs = [vkey(x) for x in row["compute_capabilities"].split() if re.match(r"^\d+\.\d+$", x)]
        if ccs and "not captured" not in row["compute_capabilities"] and re.match(r"^\d+\.\d+\.\d+$", row["cudnn_version"]):
            MATRIX.setdefault((vkey(row["cudnn_version"]), row["cuda_variant"][:2]), set()).update(ccs)


def matrix_lists(version, major, cc):
    """@version's own row for CUDA @major lists @cc's architecture (its major, at or above the lowest listed);
    without a row of its own, the nearest newer row decides (else the nearest older one)."""
    v = vkey(version)[:3]
    own = [k for k in MATRIX if k[1] == major and k[0] == v]
    newer = sorted(k for k in MATRIX if k[1] == major and k[0] > v)
    older = sorted((k for k in MATRIX if k[1] == major and k[0] < v), reverse=True)
    rows = own or newer[:1] or older[:1]
    if not rows:
        return None
    listed = MATRIX[rows[0]]
    return any(l[0] == vkey(cc)[0] and l <= vkey(cc) for l in listed) or vkey(cc) > max(listed)


K80G = ("102d", "3.7", "Tesla K80")
GRID_GPUS = [GTX680, GTX780, K80G, GTX970, GTX1080, V100, RTX3090, RTX4090, H100, RTX5090]
GRID_REQUESTS = (["--framework", "tensorflow"], ["--framework", "pytorch"], ["--framework", "jax"], ["--framework", "none"],
                 # the legacy toolkits alone (data/legacy/cuda_runfiles.csv)
                 ["--framework", "none", "--cuda", "10.2"], ["--framework", "none", "--cuda", "11.1"])
for gpu in GRID_GPUS:
    for driver in ("418.87.01", "470.57.02", "535.183.01", "570.133.07", "580.95.05"):
        if vkey(gpu[1]) < (3, 8) and vkey(driver)[0] > 470 or vkey(gpu[1]) >= (10, 0) and vkey(driver)[0] < 570:
            continue  # Kepler's last branch is R470, Blackwell's first R570 (driver_generations.csv)
        for fwargs in GRID_REQUESTS:
            fwname = " ".join(fwargs[1:])
            what = "%s, driver %s, %s" % (gpu[2], driver, fwname)
            r, d = plan([gpu], driver, *fwargs)
            if r.rc == 3 and (d.get("error") or "").startswith("--driver keep: driver %s is older than" % driver):
                # A driver older than the GPU (an RTX 3090 on R418: CUDA 11.1, its first, needs 455.23): kept, nothing
                # runs; the advice is --driver auto, which plans a driver that can (or names what the request cannot).
                r2, d2 = plan([gpu], driver, *fwargs, env=AUTO)
                t.ok("--driver auto" in (d.get("advice") or "") and
                     ((r2.rc == 0 and (d2.get("driver") or {}).get("action") == "install") or
                      (r2.rc == 3 and "cannot build for GPU" in (d2.get("error") or ""))),
                     "%s: the driver predates the GPU; --driver auto plans a driver that can [cuda_arch_support.csv; "
                     "cuda_toolkit_driver_versions.csv]" % what, (d.get("error"), d2.get("error"), d2.get("driver")))
                continue
            if r.rc == 3:
                m = re.search(r"cudaup install (.*?) gives", d.get("advice") or "")
                if not m and re.search(r"needs NVIDIA driver ([\d.]+) or newer", d.get("advice") or ""):
                    # Nothing plans on this driver: the advice names the driver, which must be newer.
                    need = re.search(r"needs NVIDIA driver ([\d.]+) or newer", d["advice"]).group(1)
                    t.ok(vkey(need) > vkey(driver), "%s: refused, the advice names driver %s" % (what, need), d)
                    continue
                r2, d2 = plan([gpu], driver, *m.group(1).split()) if m else (None, {})
                t.ok(m and r2.rc == 0 and no_hidden_driver(d, d2),
                     "%s: refused, and its advice plans, changing the driver only where it says so (%s)"
                     % (what, m.group(1) if m else "none"), (d, d2.get("driver")))
                continue
            t.eq(r.rc, 0, "%s: plans or refuses with advice" % what, r)
            if d.get("cudnn"):
                ok = matrix_lists(d["cudnn"]["version"], d["cudnn"]["cuda_variant"][:2], gpu[1])
                t.ok(ok is not False, "%s: the CUDA folder's cuDNN %s lists %s [cudnn_support_matrix.csv]" % (what, d["cudnn"]["version"], gpu[1]))
            f = fw(d)
            pins = [c.split("==")[1].rstrip(".*") for c in f.get("constraints", []) if c.startswith("nvidia-cudnn")]
            if fwargs[1] == "jax" and f.get("bundled_runtime"):
                major = "13" if "cuda13" in (f.get("cuda_build") or "") else "12"
                version = pins[0] if pins else "99.0.0"  # no pin: pip takes the newest
                t.ok(matrix_lists(version, major, gpu[1]) is not False,
                     "%s: the cuDNN pip brings (%s) lists %s [cudnn_support_matrix.csv]" % (what, pins[0] if pins else "newest", gpu[1]), f)
t.eq(CONTRADICTIONS[:5], [], "no reason of any plan above says a matrix lists a GPU where none of that release was read")
t.done()
