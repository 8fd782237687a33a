#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""cudaup verify and repair: GPU paths through library doubles, the real CUDA 13.0 here, repairs."""
import json
import os
import re
import shutil
import sys
import time

from cutest import SRCDIR, Tap, gpu_doubles, machine, run
from httpserver import Server

sys.path.insert(0, os.path.join(SRCDIR, "tests", "fixtures"))
import mkmirror  # noqa: E402

t = Tap()
ROOT, MENV = machine(t, "two-gpus")
NOGPU_ROOT, NOGPU_ENV = machine(t, "ada-no-driver")
NOW = {"CUDAUP_TEST_NOW": "1800000000", "CUDAUP_RETRY_BASE_MS": "50"}


# A mirror whose libraries are the GPU-library doubles.
FAKES = gpu_doubles()
MIRROR = os.path.join(t.tmpdir("mirror"), "m")
mkmirror.build(MIRROR, replace=FAKES)
srv = Server(MIRROR)

base = t.tmpdir("box")
prefix, state, cache = (os.path.join(base, n) for n in ("prefix", "state", "cache"))
COMMON = ["--prefix", prefix, "--state-dir", state]
ENV = dict(MENV, **NOW)


def install(env=ENV):
    return run(["install", "--yes", "--json", "--root", ROOT, "--mirror", srv.url, "--cache-dir", cache,
                "--framework", "none", "--env-scope", "none"] + COMMON, env=env)


def verify(*extra, env=ENV, root=ROOT):
    r = run(["verify", "--json", "--root", root] + COMMON + list(extra), env=env)
    d = r.json()
    return r, ({c["name"]: c for c in d["checks"]} if d and "checks" in d else {})


r = install()
t.eq(r.rc, 0, "install with the library doubles", r)
r = run(["install", "--yes", "--root", ROOT, "--mirror", srv.url, "--cache-dir", cache, "--framework", "none",
         "--env-scope", "none"] + COMMON, env=ENV)
t.ok(r.rc == 0 and "Open a new shell" not in r.out and "in each shell run: . %s/env.sh" % state in r.out,
     "--env-scope none: the closing hint says to source env.sh in each shell", r.out)
# The install ends with verify's one line, as the wizard's Validation screen does (issue 35, item 4), not with
# "Then check it with: cudaup verify ...": the checks ran, GPU work included.
last = r.out.strip().splitlines()[-1] if r.out.strip() else ""
t.ok(re.match(r"Checked as cudaup verify does: \d+ passed, 0 failed, \d+ skipped\.$", last) is not None and
     "Then check it with" not in r.out, "install ends with verify's summary line (GPU work done)", r.out)
t.ok(os.path.exists(os.path.join(state, "cudaup.log")) and "gpu-kernel" in open(os.path.join(state, "cudaup.log")).read(),
     "and each check of it is in the log", state)
# Its memory (issue 49 item 22): the checks' libraries and compilers run in processes of their own, and the log says
# cudaup's own peak and the largest process's apart; cudaup stays under 100 MiB (about 20 here).
peaks = re.findall(r"Peak memory: (\d+) MiB in cudaup itself, (\d+) MiB in the largest process it ran",
                   open(os.path.join(state, "cudaup.log")).read())
t.ok(peaks and int(peaks[-1][0]) <= 100 and int(peaks[-1][1]) > 0,
     "install logs its own peak memory (under 100 MiB) apart from the largest process it ran", peaks)
# A check that fails after the install (the GPU refuses work: cuInit fails): its row and fix before the
# summary, and verify's exit 4.
badconf = os.path.join(t.tmpdir("cuinit"), "fake-nvidia.conf")
with open(badconf, "w") as f:
    f.write(re.sub(r"(?m)^cu_init \d+", "cu_init 35", open(MENV["FAKE_NVIDIA_CONFIG"]).read()))
r = run(["install", "--yes", "--root", ROOT, "--mirror", srv.url, "--cache-dir", cache, "--framework", "none",
         "--env-scope", "none"] + COMMON, env=dict(ENV, FAKE_NVIDIA_CONFIG=badconf))
summary = [ln for ln in r.out.splitlines() if ln.startswith("Checked as cudaup verify does: ")]
t.ok(r.rc == 4 and summary and " 1 failed" in summary[0] and "Check again after the fix: cudaup verify --root " in r.out,
     "an install whose GPU refuses work: the failing check, its fix, the summary, and exit 4 as verify's and the "
     "wizard's (it exited 0, issue 49 item 8); the command to run again reads the same machine (--root, found missing "
     "by an independent re-check)", r)
rj = run(["install", "--yes", "--json", "--root", ROOT, "--mirror", srv.url, "--cache-dir", cache, "--framework", "none",
          "--env-scope", "none"] + COMMON, env=dict(ENV, FAKE_NVIDIA_CONFIG=badconf))
dj = rj.json() or {}
t.ok(rj.rc == 4 and dj.get("status") == "problems" and dj.get("exit_code") == 4 and
     dj.get("verify", {}).get("status") == "fail" and "error" not in dj,
     "--json: status problems, exit_code 4, the checks in verify (it said status ok)", rj)
# One cause, said once, with its own fix (issue 35, rough list): the device row names what stood between the
# runtime and the GPU; the GPU work after it is not run (not the same paragraph four times), and no generic
# "cudaup doctor checks..." fix stands beside the device's own.
t.eq(r.out.count("could not reach the GPU"), 1, "the cause is said once", r.out)
t.eq(r.out.count("Fix: "), 1, "with one fix: the device's own", r.out)
t.ok("Fix: put the driver's libcuda.so.1 where the loader looks" in r.out and "cudaup doctor checks the driver" not in r.out,
     "the fix is the one that names what is missing", r.out)
rv = run(["verify", "--json", "--root", ROOT] + COMMON, env=dict(ENV, FAKE_NVIDIA_CONFIG=badconf))
cv = {x["name"]: x for x in (rv.json() or {}).get("checks", [])}
t.ok(cv.get("device", {}).get("status") == "fail" and "Fix:" not in cv["device"]["detail"] and
     cv["device"].get("fix", "").startswith("put the driver's libcuda.so.1") and
     all(cv.get(n, {}).get("status") == "skip" and "device check failed" in cv[n]["detail"]
         for n in ("gpu-kernel", "bandwidth", "cudnn-conv")),
     "verify --json: device fails with its own fix; the GPU work is skipped, naming the device check", cv)
r, c = verify()
t.eq(r.rc, 0, "verify: everything passes", r)
t.ok(r.json() and all(set(x) >= {"name", "status", "detail"} for x in r.json()["checks"]), "checks carry name, status, detail")
for name in ("files", "nvcc", "cudart", "nvrtc", "cudnn", "driver", "device", "gpu-kernel", "bandwidth", "cudnn-conv"):
    t.eq(c.get(name, {}).get("status"), "pass", "verify: %s passes" % name, c.get(name))
t.eq(c["framework"]["status"], "skip", "verify: framework skipped without an environment")
# The same install on a machine whose driver is 535: it runs CUDA 12.6 by NVIDIA's minor-version compatibility,
# as a plan takes it (issue 49 item 2: it failed, "it needs driver 560.35.05", while the plan had taken the
# same by compatibility), with the limit said; exit 0.
import machines  # noqa: E402
import re  # noqa: E402
OLD_ROOT = os.path.join(t.tmpdir("old-driver"), "root")
machines.build_spec(dict(machines.MACHINES["two-gpus"], driver="535.183.01", cuda=12020), OLD_ROOT)
r, c535 = verify(env=dict(ENV, FAKE_NVIDIA_CONFIG=os.path.join(OLD_ROOT, "fake-nvidia.conf")), root=OLD_ROOT)
t.ok(r.rc == 0 and c535.get("driver", {}).get("status") == "pass" and
     "minor-version compatibility (CUDA 12.x on driver 525.60.13 or newer)" in c535["driver"]["detail"] and
     "cannot JIT-compile PTX newer than its own CUDA 12.2" in c535["driver"]["detail"] and
     "driver 560.35.05 or newer" in c535["driver"]["detail"],
     "verify on driver 535: CUDA 12.6 runs by minor-version compatibility, its limit said, exit 0", r)
# On 470 (CUDA 11.x) it does not run: the floor named is NVIDIA's (cuda_major, cuda_toolkit_driver_versions.csv),
# not the driver already there, and the fix is a command that plans a change (unpinned, --driver auto kept the
# driver and planned nothing).
R470 = os.path.join(t.tmpdir("d470"), "root")
machines.build_spec(dict(machines.MACHINES["two-gpus"], driver="470.82.01", cuda=11040), R470)
E470 = dict(ENV, FAKE_NVIDIA_CONFIG=os.path.join(R470, "fake-nvidia.conf"))
r, c470 = verify(env=E470, root=R470)
dr = c470.get("driver", {})
t.ok(r.rc == 4 and dr.get("status") == "fail" and
     "it needs driver 525.60.13 or newer by NVIDIA's minor-version compatibility (CUDA 12.x), 560.35.05 natively" in dr.get("detail", "") and
     dr.get("fix", "").startswith("cudaup plan --cuda 12.6 --driver auto"),
     "verify on driver 470: fails with NVIDIA's floors and a fix that pins the CUDA", dr)
fix = dr.get("fix", "").split(" names ")[0].split()
rp = run(fix[1:] + ["--json", "--root", R470, "--mirror", srv.url, "--cache-dir", cache, "--framework", "none"] + COMMON,
         env=E470)
t.ok(rp.rc == 0 and ((rp.json() or {}).get("driver") or {}).get("action") == "install" and
     (rp.json() or {}).get("cuda", {}).get("version", "").startswith("12.6"),
     "and that command plans a driver for CUDA 12.6: it changes something", rp)
t.ok("every value checked" in c["gpu-kernel"]["detail"], "gpu-kernel: the result is checked", c["gpu-kernel"])
t.ok("GB/s" in c["bandwidth"]["detail"] and "checked" in c["bandwidth"]["detail"], "bandwidth: H2D/D2H/D2D reported")
t.ok("CPU reference" in c["cudnn-conv"]["detail"], "cudnn-conv: against a CPU reference", c["cudnn-conv"])
t.ok("RTX 4090" in c["device"]["detail"] and "8.9" in c["device"]["detail"], "device: name and compute capability", c["device"])
t.ok("12.6" in c["cudart"]["detail"] and "cuDNN 9.5.1" in c["cudnn"]["detail"], "library versions reported")
t.ok("compiled a kernel to PTX" in c["nvcc"]["detail"], "nvcc compiled a kernel", c["nvcc"])
r = run(["verify", "--root", ROOT] + COMMON + ["12.6"], env=ENV)
t.ok(r.rc == 0 and "gpu-kernel" in r.out and " 0 failed, " in r.out, "verify 12.6 as text", r)

# Wrong answers, a hung kernel, a mismatched library: each is a failure with the reason, exit 4.
conf = os.path.join(ROOT, "fake-nvidia.conf")
orig = open(conf).read()
open(conf, "w").write(orig + "kernel_result wrong\n")
r, c = verify()
t.ok(r.rc == 4 and c["gpu-kernel"]["status"] == "fail" and "wrong" in c["gpu-kernel"]["detail"],
     "a kernel computing wrong values: gpu-kernel fails, exit 4", c.get("gpu-kernel"))
t.ok(c["cudnn-conv"]["status"] == "fail" and "differs" in c["cudnn-conv"]["detail"], "a wrong convolution: cudnn-conv fails")
open(conf, "w").write(orig + "hang kernel\n")
t0 = time.time()
r, c = verify("--gpu-timeout", "2")
t.ok(r.rc == 4 and c["gpu-kernel"]["status"] == "fail" and "within 2 s" in c["gpu-kernel"]["detail"]
     and time.time() - t0 < 30, "a hung kernel is stopped after --gpu-timeout", c.get("gpu-kernel"))
# Each GPU library call that can fail, failed in turn: the check that made it fails and says so, exit 4.
WHO = {"cudaGetDeviceCount": "device", "cudaSetDevice": "device", "cudaDeviceGetAttribute": "device",
       "cudaMalloc": "gpu-kernel", "cudaMemcpy": "gpu-kernel", "cudaLibraryLoadData": "gpu-kernel",
       "cudaLibraryGetKernel": "gpu-kernel", "cudaLaunchKernel": "gpu-kernel", "cudaDeviceSynchronize": "gpu-kernel",
       "cudaMemGetInfo": "device", "cudnnCreate": "cudnn-conv", "cudnnGetConvolutionForwardWorkspaceSize": "cudnn-conv",
       "cudnnConvolutionForward": "cudnn-conv"}
missed = []
for call, check in WHO.items():
    open(conf, "w").write(orig + "fail %s 2\n" % call)
    r, c = verify()
    failed = [n for n, x in c.items() if x["status"] == "fail"]
    if r.rc != 4 or check not in failed or not c[check]["detail"]:
        missed.append((call, check, failed, c.get(check)))
t.eq(missed, [], "each of %d GPU library calls, failed in turn: its check fails with the reason, exit 4" % len(WHO))
# The same for the calls added to the doubles later, by name and at the Nth call of one kind.
WHO2 = {("cudnnCreateTensorDescriptor", 0): "cudnn-conv", ("cudnnCreateTensorDescriptor", 1): "cudnn-conv",
        ("cudnnCreateFilterDescriptor", 0): "cudnn-conv", ("cudnnCreateConvolutionDescriptor", 0): "cudnn-conv",
        ("cudnnSetTensor4dDescriptor", 0): "cudnn-conv", ("cudnnSetTensor4dDescriptor", 1): "cudnn-conv",
        ("cudnnSetFilter4dDescriptor", 0): "cudnn-conv", ("cudnnSetConvolution2dDescriptor", 0): "cudnn-conv",
        ("nvrtcCreateProgram", 0): "nvrtc", ("nvrtcCompileProgram", 0): "nvrtc", ("nvrtcGetPTXSize", 0): "nvrtc",
        ("nvrtcGetPTX", 0): "nvrtc"}
missed = []
for (call, after), check in WHO2.items():
    open(conf, "w").write(orig + "fail %s 3 %d\n" % (call, after))
    r, c = verify()
    failed = [n for n, x in c.items() if x["status"] == "fail"]
    if r.rc != 4 or check not in failed or not c[check]["detail"]:
        missed.append((call, after, check, failed, c.get(check)))
t.eq(missed, [], "each of %d more calls, failed in turn: its check fails with the reason, exit 4" % len(WHO2))
open(conf, "w").write(orig + "fail nvrtcCompileProgram 6\n")
r, c = verify()
t.ok("the double was told to fail" in c.get("nvrtc", {}).get("detail", ""), "NVRTC's own log is quoted", c.get("nvrtc"))
# cudaMalloc and cudaMemcpy failing at their 1st, 2nd ... call in each check's process, until a run makes
# no failure: every failure made is a failed check with a reason and exit 4, never a crash or a pass.
flog = os.path.join(t.tmpdir("faillog"), "log")
bad, reached = [], {}
for call in ("cudaMalloc", "cudaMemcpy"):
    for after in range(16):
        if os.path.exists(flog):
            os.unlink(flog)
        open(conf, "w").write(orig + "fail_log %s\nfail %s 2 %d\n" % (flog, call, after))
        r, c = verify()
        if not os.path.exists(flog):
            break
        reached[call] = after + 1
        failed = [n for n, x in c.items() if x["status"] == "fail" and x["detail"]]
        if r.rc != 4 or not failed:
            bad.append((call, after, r.rc, failed))
t.ok(bad == [] and reached.get("cudaMalloc", 0) >= 2 and reached.get("cudaMemcpy", 0) >= 2,
     "cudaMalloc and cudaMemcpy failing at each call: a failed check, exit 4 (calls reached: %s)" % reached, bad)
# A library that is not one, and another library in its place (libm, which lacks every CUDA function):
# the check that loads it fails, naming the file; the install is put back after each.
libdir = os.path.join(prefix, "cuda-12.6", "lib")
libm = next((p for p in ("/lib/x86_64-linux-gnu/libm.so.6", "/usr/lib/x86_64-linux-gnu/libm.so.6",
                         "/lib/aarch64-linux-gnu/libm.so.6", "/lib64/libm.so.6") if os.path.exists(p)), None)
bad, seen = [], []
for check, name in (("cudart", "libcudart.so.12.6.127"), ("nvrtc", "libnvrtc.so.12.6.127"),
                    ("cudnn", "libcudnn.so.9.5.1.0")):
    lp = os.path.join(libdir, name)
    good = open(lp, "rb").read()
    for tag, data in (("not a library", b"not an ELF file\n" * 64), ("libm", open(libm, "rb").read() if libm else None)):
        if data is None:
            continue
        open(lp, "wb").write(data)
        r, c = verify()
        x = c.get(check, {})
        if r.rc != 4 or x.get("status") != "fail" or name.split(".so")[0] not in x.get("detail", ""):
            bad.append((check, tag, r.rc, x))
        seen.append(x.get("detail", ""))
    open(lp, "wb").write(good)
t.eq(bad, [], "cudart, nvrtc and cudnn each replaced by a file that is not a library and by libm: the check fails, "
     "naming the library", seen)
r, c = verify()
t.eq(r.rc, 0, "put back: verify passes again", r)
open(conf, "w").write(orig + "fail cudaMallocHost 2\n")
r, c = verify()
t.ok(r.rc == 0 and c["bandwidth"]["status"] == "pass" and "pageable" in c["bandwidth"]["detail"],
     "no pinned memory: bandwidth is measured with pageable memory and says so", c.get("bandwidth"))
open(conf, "w").write(orig)
r, c = verify(env=dict(ENV, FAKE_CUDART_VERSION="12040"))
t.ok(r.rc == 4 and c["cudart"]["status"] == "fail" and "12.4" in c["cudart"]["detail"], "libcudart of another version: fails", c.get("cudart"))
r, c = verify(env=dict(ENV, FAKE_CUDNN_VERSION="90100"))
t.ok(r.rc == 4 and c["cudnn"]["status"] == "fail", "libcudnn disagreeing with cudnn_version.h: fails", c.get("cudnn"))

# The driver is loaded, but the install's runtime cannot reach it: no "no NVIDIA driver" beside "pass driver";
# the device check fails with the call, its error and its own fix (issue 26, item 4), said once: the GPU work
# after it is not run (issue 35).
bad = []
for code, name, want in ((35, "cudaErrorInsufficientDriver", "libcuda.so.1"), (34, "CUDA_ERROR_STUB_LIBRARY", "stubs")):
    open(conf, "w").write(orig + "fail cudaGetDeviceCount %d\n" % code)
    r, c = verify()
    said = [x["detail"] for x in c.values()]
    dev = c.get("device", {})
    rest = [c.get(n, {}) for n in ("gpu-kernel", "bandwidth", "cudnn-conv")]
    if (r.rc != 4 or c.get("driver", {}).get("status") != "pass" or any("no NVIDIA driver" in d for d in said) or
            not (dev.get("status") == "fail" and "could not reach the GPU" in dev.get("detail", "") and
                 "cudaGetDeviceCount() returned %s (%d" % (name, code) in dev["detail"] and want in dev.get("fix", "")) or
            not all(x.get("status") == "skip" and x.get("detail") == "not run: the device check failed" for x in rest)):
        bad.append((code, r.rc, c.get("driver"), dev, rest))
open(conf, "w").write(orig)
t.eq(bad, [], "driver loaded, runtime cannot reach it (errors 35 and 34): driver passes, the device check fails with the "
     "call, its error and a fix; nothing says no driver is loaded")

# A library the record lists and the tree lacks is damage, not a component left out (item 5).
bad = []
for check, stem in (("nvrtc", "libnvrtc.so"), ("cudart", "libcudart.so"), ("cudnn", "libcudnn.so")):
    moved = []
    for n in os.listdir(libdir):
        if n == stem or n.startswith(stem + "."):
            os.rename(os.path.join(libdir, n), os.path.join(libdir, "..", n + ".away"))
            moved.append(n)
    r, c = verify()
    x = c.get(check, {})
    if not moved or r.rc != 4 or x.get("status") != "fail" or "repair restores it" not in x.get("detail", ""):
        bad.append((check, moved, r.rc, x))
    for n in moved:
        os.rename(os.path.join(libdir, "..", n + ".away"), os.path.join(libdir, n))
t.eq(bad, [], "libnvrtc, libcudart, libcudnn deleted from a recorded install: each check fails, 'repair restores it'")

# Each failed check says what to do next, in the CLI and in JSON; the log holds every check (issue 26).
moved = [n for n in os.listdir(libdir) if n.startswith("libnvrtc.so")]
for n in moved:
    os.rename(os.path.join(libdir, n), os.path.join(libdir, "..", n + ".away"))
open(conf, "w").write(orig + "kernel_result wrong\n")
logf = os.path.join(t.tmpdir("vlog"), "verify.log")
r, c = verify("--log", logf)
rt = run(["verify", "--root", ROOT, "--log", logf] + COMMON, env=ENV)
for n in moved:
    os.rename(os.path.join(libdir, "..", n + ".away"), os.path.join(libdir, n))
open(conf, "w").write(orig)
fails = [x for x in c.values() if x["status"] == "fail"]
t.ok(r.rc == 4 and {"nvrtc", "gpu-kernel"} <= {x["name"] for x in fails} and
     all(x.get("fix") for x in fails) and not any("fix" in x for x in c.values() if x["status"] != "fail"),
     "verify --json: each failed check carries its fix, the others none", fails)
t.ok(re.search(r"cudaup repair (--root \S+ )?--prefix '%s' --state-dir '%s'" % (re.escape(prefix), re.escape(state)), c.get("nvrtc", {}).get("fix", "")) and
     "cudaup doctor" in c.get("gpu-kernel", {}).get("fix", ""),
     "the fixes: repair with this install's options for a lost library, doctor for wrong GPU results",
     [c.get("nvrtc"), c.get("gpu-kernel")])
lines = rt.out.splitlines()
no_fix = [ln for i, ln in enumerate(lines) if re.match(r"\s+fail\s", ln) and
          not any(x.strip().startswith("Fix: ") for x in lines[i + 1:i + 4])]
t.ok(rt.rc == 4 and re.search(r"Fix: cudaup repair (--root \S+ )?--prefix", rt.out) and not no_fix,
     "verify as text: each failed check ends with its fix", rt.out)
flat_out = " ".join(rt.out.split())
t.ok(re.search(r"Fix: cudaup repair (--root \S+ )?--prefix", flat_out) and "repair restores it" not in flat_out,
     "verify as text: the repair is said once, as the Fix line's exact command", rt.out)
log = open(logf).read() if os.path.exists(logf) else ""
missing = [x["name"] for x in c.values()
           if not re.search(r"info verify: %s %s: %s" % (x["status"], re.escape(x["name"]), re.escape(x["detail"][:60])), log)]
t.ok(not missing and "(fix: cudaup repair restores the install from its record)" in log and "failed," in log,
     "the log holds every check: status, name, detail, and each failure's fix", missing or log[-3000:])

# cuDNN's version follows the record, like nvcc's, cudart's and nvrtc's (item 6).
recp = os.path.join(prefix, "cuda-12.6", ".cudaup", "record.json")
rec_good = open(recp, "rb").read()
rec = json.loads(rec_good)
rec["cudnn"]["version"], rec["cudnn"]["full_version"] = "8.9.7", "8.9.7.29"
open(recp, "w").write(json.dumps(rec))
r, c = verify()
open(recp, "wb").write(rec_good)
t.ok(r.rc == 4 and c.get("cudnn", {}).get("status") == "fail" and "8.9.7" in c["cudnn"]["detail"] and
     "9.5.1" in c["cudnn"]["detail"], "libcudnn 9.5.1 in an install recorded as cuDNN 8.9.7: cudnn fails, naming both",
     c.get("cudnn"))
r, c = verify()
t.eq(r.rc, 0, "record put back: verify passes again", r)

# No driver: GPU checks are skipped with the reason; --require-gpu makes them fail.
r, c = verify(root=NOGPU_ROOT, env=dict(NOGPU_ENV, **NOW))
t.ok(r.rc == 0 and all(c[n]["status"] == "skip" and "no NVIDIA driver is loaded" in c[n]["detail"]
                       for n in ("driver", "device", "gpu-kernel", "bandwidth", "cudnn-conv")),
     "no driver: GPU checks skip with the reason, exit 0", r)
t.eq(c["cudart"]["status"], "pass", "no driver: library checks still run")
summary = (r.json() or {}).get("summary", "")
n_skip = sum(1 for x in c.values() if x["status"] == "skip")
n_pass = sum(1 for x in c.values() if x["status"] == "pass")
t.ok(summary.startswith("%d passed, 0 failed, %d skipped: no GPU work was done (" % (n_pass, n_skip)),
     "no driver: the summary says what was proven, and that no GPU work was done", summary)
r = run(["verify", "--root", NOGPU_ROOT] + COMMON, env=dict(NOGPU_ENV, **NOW))
t.ok(r.rc == 0 and "no GPU work was done" in r.out and "All checks passed" not in r.out,
     "no driver, as text: the last line says no GPU work was done", r.out[-300:])
r, c = verify("--require-gpu", root=NOGPU_ROOT, env=dict(NOGPU_ENV, **NOW))
t.ok(r.rc == 4 and c["gpu-kernel"]["status"] == "fail", "--require-gpu: skips become failures, exit 4", r)

# nvcc's own answers: one that fails, one of another release, one that writes no PTX, none at all.
nvcc = os.path.join(prefix, "cuda-12.6", "bin", "nvcc")
nvcc_good = open(nvcc, "rb").read()
bad = []
for tag, script, want in (
        ("fails", "#!/bin/sh\necho 'nvcc: cannot find libnvvm' >&2\nexit 1\n", "cannot find libnvvm"),
        ("another release", "#!/bin/sh\necho 'Cuda compilation tools, release 11.8, V11.8.89'\n", "release 11.8"),
        ("no release", "#!/bin/sh\necho 'something else'\n", "release ?"),
        ("no PTX", "#!/bin/sh\ncase \"$1\" in --version) echo 'Cuda compilation tools, release 12.6, V12.6.127';; "
                   "*) echo 'ptxas fatal' >&2; exit 2;; esac\n", "ptxas fatal")):
    with open(nvcc, "w") as f:
        f.write(script)
    r, c = verify()
    x = c.get("nvcc", {})
    if r.rc != 4 or x.get("status") != "fail" or want not in x.get("detail", ""):
        bad.append((tag, r.rc, x))
os.unlink(nvcc)
r, c = verify()
x = c.get("nvcc", {})
if x.get("status") != "fail" or "repair restores it" not in x.get("detail", ""):
    bad.append(("missing", r.rc, x))
with open(nvcc, "wb") as f:
    f.write(nvcc_good)
os.chmod(nvcc, 0o755)
t.eq(bad, [], "an nvcc that fails, reports another release or none, writes no PTX: fail with its words; "
     "a recorded nvcc deleted: fail, repair restores it")

# A CUDA folder cudaup did not make: its essential headers and libcudart are checked instead of a record;
# a record that is not JSON is a failure that says so.
other = os.path.join(t.tmpdir("unmanaged"), "px")
shutil.copytree(os.path.join(prefix, "cuda-12.6"), os.path.join(other, "cuda-12.6"), symlinks=True)
shutil.rmtree(os.path.join(other, "cuda-12.6", ".cudaup"))


def files_check(pfx):
    r = run(["verify", "--json", "--root", ROOT, "--prefix", pfx, "--state-dir", t.tmpdir("ust"), "12.6"], env=ENV)
    return {x["name"]: x for x in (r.json() or {}).get("checks", [])}.get("files", {})


fc0 = files_check(other)
os.rename(os.path.join(other, "cuda-12.6", "include", "cuda.h"), os.path.join(other, "cuda.h.away"))
fc1 = files_check(other)
os.rename(os.path.join(other, "cuda.h.away"), os.path.join(other, "cuda-12.6", "include", "cuda.h"))
for n in os.listdir(os.path.join(other, "cuda-12.6", "lib")):
    if n.startswith("libcudart.so"):
        os.unlink(os.path.join(other, "cuda-12.6", "lib", n))
fc2 = files_check(other)
t.ok(fc0.get("status") == "pass" and "not installed by cudaup" in fc0.get("detail", "") and
     fc1.get("status") == "fail" and "cuda.h is missing" in fc1.get("detail", "") and
     fc2.get("status") == "fail" and "no libcudart" in fc2.get("detail", ""),
     "a CUDA cudaup did not make: headers and libcudart checked; each missing one named", (fc0, fc1, fc2))
recp = os.path.join(prefix, "cuda-12.6", ".cudaup", "record.json")
rec_good = open(recp, "rb").read()
open(recp, "w").write("{ not json")
fc = files_check(prefix)
open(recp, "wb").write(rec_good)
t.ok(fc.get("status") == "fail" and "record.json" in fc.get("detail", ""), "a record that is not JSON: fail, naming it", fc)

# An nvcc that is there but cannot be run is damage, not "not installed".
nvcc = os.path.join(prefix, "cuda-12.6", "bin", "nvcc")
mode = os.stat(nvcc).st_mode
os.chmod(nvcc, 0o644)
r, c = verify()
t.ok(r.rc == 4 and c["nvcc"]["status"] == "fail" and "0644" in c["nvcc"]["detail"],
     "nvcc without its x bit: fails, naming the mode", c.get("nvcc"))
os.chmod(nvcc, mode)

# Repair: a missing file, an altered one (--deep), a changed mode.
cu = os.path.join(prefix, "cuda-12.6")
os.unlink(os.path.join(cu, "lib/libcublas.so.12.4.5.8"))
r, c = verify()
t.ok(r.rc == 4 and c["files"]["status"] == "fail" and "1 missing" in c["files"]["detail"], "a deleted file: files fails", c.get("files"))
t.eq((r.json() or {}).get("damaged"), [{"path": "lib/libcublas.so.12.4.5.8", "problem": "missing"}],
     "verify --json lists the damaged file with its problem")
rt = run(["verify", "--root", ROOT] + COMMON, env=ENV)
t.ok(rt.rc == 4 and re.search(r"To restore the damaged files: cudaup repair (--root \S+ )?--prefix '%s' --state-dir '%s'" % (re.escape(prefix), re.escape(state)), rt.out),
     "verify as text: a damaged install ends with the repair command for it", rt.out[-600:])
srv.clear()
shutil.rmtree(os.path.join(cache, "archives"))
r = run(["repair", "--yes", "--json", "--root", ROOT, "--cache-dir", cache] + COMMON, env=ENV)
d = r.json()
t.ok(r.rc == 0 and d["changed"] and d["repaired_components"] == ["libcublas"], "repair: only libcublas", r)
t.eq([p for p in srv.gets(".tar.xz")], ["/cuda/redist/libcublas/linux-x86_64/libcublas-linux-x86_64-12.4.5.8-archive.tar.xz"],
     "repair fetched only the archive it needed")
r, c = verify()
t.eq(r.rc, 0, "verify after repair passes")
p = os.path.join(cu, "include/cublas_v2.h")
size = os.path.getsize(p)
open(p, "w").write("X" * size)  # same size, other bytes
r, c = verify()
t.ok(c["files"]["status"] == "fail" or "--deep re-hashes" in c["files"]["detail"],
     "same-size edit: the quick check finds it, or says that it compared sizes and modes only", c.get("files"))
r, c = verify("--deep")
t.ok(r.rc == 4 and "1 altered" in c["files"]["detail"], "--deep re-hashes and finds it", c.get("files"))
srv.clear()
r = run(["repair", "--yes", "--deep", "--json", "--root", ROOT, "--cache-dir", cache] + COMMON, env=ENV)
t.ok(r.rc == 0 and r.json()["repaired_components"] == ["libcublas"] and srv.gets(".tar.xz") == [],
     "repair --deep restores it from the cache, no download", r)
os.chmod(os.path.join(cu, "bin/nvcc"), 0o644)
r, c = verify()
t.ok(r.rc == 4 and "changed mode" in c["files"]["detail"], "a changed mode is found", c.get("files"))
r = run(["repair", "--yes", "--json", "--root", ROOT] + COMMON, env=ENV)
t.ok(r.rc == 0 and r.json()["modes_fixed"] == 1 and r.json()["repaired_components"] == [] and
     os.stat(os.path.join(cu, "bin/nvcc")).st_mode & 0o777 == 0o755, "repair puts the mode back in place", r)
r = run(["repair", "--yes", "--json", "--root", ROOT] + COMMON, env=ENV)
t.ok(r.rc == 0 and r.json()["changed"] is False, "repair of an intact install: changed false", r)
os.unlink(os.path.join(cu, "version.json"))
r = run(["repair", "--yes", "--json", "--root", ROOT, "--cache-dir", cache] + COMMON, env=ENV)
t.ok(r.rc == 0 and os.path.exists(os.path.join(cu, "version.json")), "repair restores cudaup's own files", r)
lock_before = os.path.lexists("/usr/local/.cudaup.lock")
r = run(["repair", "--yes", "--root", ROOT, "--prefix", "/usr/local", "13.0"], env=ENV)
t.ok(r.rc == 3 and "not installed by cudaup" in r.err, "repair of a CUDA cudaup did not make: exit 3", r)
t.ok(lock_before or not os.path.lexists("/usr/local/.cudaup.lock"),
     "... refused before anything is written: no .cudaup.lock left in this host's /usr/local", r)
r = run(["verify", "--root", ROOT] + COMMON + ["11.1"], env=ENV)
t.eq(r.rc, 3, "verify of a version not installed: exit 3")
r = run(["verify", "--root", ROOT] + COMMON + ["x.y"], env=ENV)
t.eq(r.rc, 2, "verify with a malformed version: exit 2")

# This machine's real CUDA 13.0, which cudaup did not install.
if os.path.isdir("/usr/local/cuda-13.0"):
    r = run(["verify", "--json", "--prefix", "/usr/local", "13.0"])
    c = {x["name"]: x for x in (r.json() or {}).get("checks", [])}
    t.ok(r.rc == 0, "real CUDA 13.0: exit 0 (passes, and skips what needs a GPU)", r)
    for name in ("files", "nvcc", "cudart", "nvrtc", "cudnn"):
        t.eq(c.get(name, {}).get("status"), "pass", "real CUDA 13.0: %s passes" % name, c.get(name))
    t.ok("release 13.0" in c["nvcc"]["detail"], "real nvcc compiled a kernel")
    r = run(["verify", "--json", "--prefix", "/usr/local", "13.0", "--require-gpu"])
    t.eq(r.rc, 4, "real CUDA 13.0 with --require-gpu on a machine without a GPU: exit 4")

    # Re-pack its compiler and cuDNN, install them with cudaup, and compile with the result.
    real = os.path.join(t.tmpdir("real"), "m")
    mkmirror.build(real, cuda="13.0.2", cudnn="9.19.0", variant="13", real_src="/usr/local/cuda-13.0", preset=0,
                   only=["cuda_cudart", "cuda_nvcc", "cuda_crt", "libnvvm"])
    rb = t.tmpdir("realbox")
    rargs = ["--root", ROOT, "--mirror", "file://" + real, "--prefix", os.path.join(rb, "p"), "--state-dir",
             os.path.join(rb, "s"), "--cache-dir", os.path.join(rb, "c"), "--framework", "none",
             "--env-scope", "none", "--cuda", "13.0", "--components", "runtime,compiler"]
    r = run(["install", "--yes", "--json"] + rargs, env=ENV, timeout=600)
    # The fixture machine's driver is a double: the real runtime finds no libcuda.so.1 to reach it, so the device
    # check the install runs fails, and the install says so with exit 4 (issue 49 item 8), nothing else failing.
    failed = [x["name"] for x in ((r.json() or {}).get("verify") or {}).get("checks", []) if x["status"] == "fail"]
    t.ok(r.rc == 4 and (r.json() or {}).get("changed") is True and failed == ["device"],
         "install the re-packed real CUDA 13.0 compiler and cuDNN (exit 4: its real runtime cannot reach the "
         "fixture's driver double)", r)
    r = run(["verify", "--json", "--root", NOGPU_ROOT, "--prefix", os.path.join(rb, "p"), "--state-dir",
             os.path.join(rb, "s")], env=dict(NOGPU_ENV, **NOW))
    c = {x["name"]: x for x in (r.json() or {}).get("checks", [])}
    t.ok(c.get("nvcc", {}).get("status") == "pass", "the cudaup-made install's real nvcc compiles a kernel", c.get("nvcc"))
    t.ok(c.get("cudart", {}).get("status") == "pass" and c.get("cudnn", {}).get("status") == "pass",
         "real libcudart and libcudnn load from the cudaup-made install", r)
    t.ok(r.rc == 0, "verify of the cudaup-made real install: exit 0", r)
else:
    t.skip("real CUDA 13.0", "no /usr/local/cuda-13.0 on this machine")

# Every damaged file is listed, each with what is wrong, not only the first.
cu = os.path.join(prefix, "cuda-12.6")
os.unlink(os.path.join(cu, "include/cuda.h"))
with open(os.path.join(cu, "include/cuda_runtime.h"), "a") as f:
    f.write("/* grown */\n")
os.chmod(os.path.join(cu, "bin/nvcc"), 0o700)
r, c = verify()
got = sorted((d["path"], d["problem"]) for d in (r.json() or {}).get("damaged", []))
t.eq(got, [("bin/nvcc", "mode"), ("include/cuda.h", "missing"), ("include/cuda_runtime.h", "altered")],
     "three files damaged three ways: all three in damaged[], each with its problem")

srv.stop()
t.done()
