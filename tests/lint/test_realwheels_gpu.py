#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""scripts/realwheels_gpu.py, realwheels' check of doctor's GPU-stage predictions (issue 47), hermetic: the
pure parts (doctor's unresolved sentence, Get<X>DsoHandle relocations, the caller of a row) on fixed text, and
the helper against the real loader on small libraries gcc builds here: a prediction that matches what the loader
maps agrees, one that does not (a wrong file, a false 'nowhere') disagrees, a caller outside the environment
gets its $ORIGIN spelled out, an inferred call is exercised only when a relocation shows it.  No network.
Skipped where gcc or readelf is missing."""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from cutest import SRCDIR, Tap  # noqa: E402

sys.path.insert(0, os.path.join(SRCDIR, "scripts"))
import realwheels_gpu as g  # noqa: E402

t = Tap()

# doctor's English sentence (core/doctor/shadow.c say_unresolved), as real TensorFlow 2.20 drew it.
msg = ("TensorFlow 2.20.0 in /v would fail to load libnccl.so.2 on GPU work (when TensorFlow is imported alone; when "
       "imported in the order JAX, PyTorch): /v/lib/python3.11/site-packages/tensorflow/libtensorflow_framework.so.2 "
       "asks the loader for it, and neither a library already loaded, its DT_RUNPATH $ORIGIN/../x, LD_LIBRARY_PATH, "
       "the loader's cache nor the default folders have it.")
u = g.parse_unresolved({"code": "framework-cuda-unresolved", "message": msg})
t.eq(u, {"name": "libnccl.so.2", "stage": "gpu", "asker": "/v/lib/python3.11/site-packages/tensorflow/libtensorflow_framework.so.2",
         "orders": [["tensorflow"], ["jax", "pytorch"]]}, "doctor's unresolved sentence: name, stage, asker, orders")
u = g.parse_unresolved({"message": "JAX 0.10.2 in /v would fail to load libx.so.1 on its first use: Python itself asks "
                                   "the loader for it, and ..."})
t.eq(u, {"name": "libx.so.1", "stage": "use", "asker": None, "orders": None}, "every order, asked by Python")

reloc = ("000000001234  0000004500000007 R_X86_64_JUMP_SLOT     0000000000000000 _ZN3tsl8internal9DsoLoader16GetNcclDsoHandleEv + 0\n"
         "000000001240  0000004600000006 R_X86_64_GLOB_DAT      0000000000000000 _ZN3tsl8internal15CachedDsoLoader22GetCudaRuntimeDsoHandleEv + 0\n"
         "000000001250  0000004700000001 R_X86_64_64            0000000000000000 _ZN3tsl8internal9DsoLoader17GetCufftDsoHandleEv + 0\n")
calls = g.dso_calls_of(reloc)
t.eq(sorted(calls), ["cudaruntime", "nccl"], "JUMP_SLOT and GLOB_DAT count, a plain data relocation does not")
t.eq([g.dso_key(n) for n in ("libnccl.so.2", "libcudart.so.12", "libcublasLt.so.12", "libnvshmem_host.so.3")],
     ["nccl", "cudaruntime", "cublaslt", "nvshmem"], "the X of Get<X>DsoHandle for a soname")

if not shutil.which("gcc") or not shutil.which("readelf"):
    t.skip("the helper against the real loader", "no gcc or readelf here")
    t.done()
    sys.exit(0)

w = t.tmpdir("rwgpu")
venv = os.path.join(w, "venv")
sp = os.path.join(venv, "lib", "python3.11", "site-packages")
for d in ("fw", "nvidia/dep/lib", "other"):
    os.makedirs(os.path.join(sp, d))
os.makedirs(os.path.join(venv, "bin"))
os.symlink(sys.executable, os.path.join(venv, "bin", "python"))
sysdir = os.path.join(w, "system", "lib")
os.makedirs(sysdir)
os.makedirs(os.path.join(w, "system", "dep"))


def cc(out, src, *flags):
    c = out + ".c"
    with open(c, "w") as f:
        f.write(src)
    r = subprocess.run(["gcc", "-shared", "-fPIC", "-o", out, c] + list(flags), capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    os.unlink(c)


dep = os.path.join(sp, "nvidia/dep/lib/libdep.so.1")
cc(dep, "int dep(void) { return 1; }\n", "-Wl,-soname,libdep.so.1")
cc(os.path.join(w, "system", "dep", "libdep.so.1"), "int dep(void) { return 2; }\n", "-Wl,-soname,libdep.so.1")
# The framework's object: finds libdep.so.1 through its own RUNPATH; and calls GetDepDsoHandle through the PLT.
caller = os.path.join(sp, "fw", "libfw.so")
cc(caller, 'extern void *h(void) __asm__("_ZN3tsl8internal9DsoLoader15GetDepDsoHandleEv");\nvoid *f(void) { return h(); }\n',
   "-Wl,--enable-new-dtags,-rpath,$ORIGIN/../nvidia/dep/lib")
# One with the same RUNPATH and no such call.
silent = os.path.join(sp, "fw", "libsilent.so")
cc(silent, "int s(void) { return 0; }\n", "-Wl,--enable-new-dtags,-rpath,$ORIGIN/../nvidia/dep/lib")
# A system library outside the environment, RUNPATH $ORIGIN/../dep, asking for libdep.so.1 (cuDNN's pattern).
outside = os.path.join(sysdir, "libsys.so.9")
cc(outside, 'const char *s = "libdep.so.1";\n', "-Wl,-soname,libsys.so.9", "-Wl,--enable-new-dtags,-rpath,$ORIGIN/../dep")
# Another system library said (by the rows of the wheel's copy) to ask for libdep.so.1, whose file holds no such name.
mute = os.path.join(sysdir, "libmute.so.9")
cc(mute, 'const char *s = "libdep.so.2";\n', "-Wl,-soname,libmute.so.9")
probe = os.path.join(w, "probe.py")
with open(probe, "w") as f:
    f.write("import sys\nsys.exit(0)\n")  # stands for verify's probe: imports nothing here

t.eq(g.dynamic(caller)["runpath"], "$ORIGIN/../nvidia/dep/lib", "readelf -dW: the caller's own RUNPATH")
t.ok(g.exercised(caller, "libdep.so.1")[0] and not g.exercised(silent, "libdep.so.1")[0],
     "a JUMP_SLOT against GetDepDsoHandle shows the call; no relocation, no call")


def row(name, real, stage="gpu", out=False):
    return {"name": name, "path": real, "real": real, "stage": stage, "framework": "fw", "outside": out, "wheel": None}


def check(libs, rows, problems=(), llp=None):
    tables = {"framework": rows, "lib": [{"caller": "libsys.so.9", "package": "p", "version": "1", "stage": "gpu",
                                          "target": "libdep.so.1", "confidence": "read"}]}
    env = dict(os.environ)
    env.pop("LD_LIBRARY_PATH", None)
    if llp:
        env["LD_LIBRARY_PATH"] = llp
    return g.check_order(venv, sp, {"order": ["fw"], "libraries": libs}, list(problems), tables, env, probe, w)


rec = [{"framework": "fw", "version": "1", "caller": "fw/libfw.so", "target": "libdep.so.1", "confidence": "read"}]
bad, lines, _ = check([row("libdep.so.1", dep)], rec)
t.ok(bad == 0 and "1 checked" in lines[-1] and "1 agree" in lines[-1], "a recorded call, predicted from its wheel: agrees",
     "\n".join(lines))
bad, lines, _ = check([row("libdep.so.1", os.path.join(w, "system", "dep", "libdep.so.1"), out=True)], rec)
t.ok(bad == 1 and "GPU DIFF libdep.so.1" in "\n".join(lines), "predicted from another file than the loader maps: "
     "a disagreement", "\n".join(lines))
# Found where predicted, but the loader refuses it (a symbol its neighbour lacks: the system cuDNN 9.19 engines
# beside the wheel's 9.26 libcudnn_graph): not the load doctor predicts.
bad_so = os.path.join(sp, "nvidia/dep/lib/libbad.so.2")
cc(bad_so, "extern int missing_sym;\nint *p = &missing_sym;\n", "-Wl,-soname,libbad.so.2")
rec2 = rec + [{"framework": "fw", "version": "1", "caller": "fw/libfw.so", "target": "libbad.so.2", "confidence": "read"}]
bad, lines, _ = check([row("libdep.so.1", dep), row("libbad.so.2", bad_so)], rec2)
t.ok(bad == 1 and "GPU REFUSED libbad.so.2" in "\n".join(lines) and "1 found where predicted but refused" in lines[-1],
     "the predicted file, which the loader refuses (undefined symbol): a disagreement of its own kind", "\n".join(lines))
left = [f for f in os.listdir(os.path.join(sp, "fw")) if "helper" in f]
t.eq(left, [], "the helpers put in the caller's folder are removed")

nowhere = ("FW 1 in %s would fail to load %%s on GPU work: %s asks the loader for it, and neither ..." % (venv, caller))
bad, lines, _ = check([], rec, [{"code": "framework-cuda-unresolved", "message": nowhere % "libdep.so.1"}])
t.ok(bad == 1 and "nowhere" in "\n".join(lines), "a false 'found nowhere' (the loader finds it): a disagreement",
     "\n".join(lines))
bad, lines, _ = check([], rec, [{"code": "framework-cuda-unresolved", "message": nowhere % "libabsent.so.3"}])
t.ok(bad == 0 and "1 predicted nowhere" in lines[-1] and "1 agree" in lines[-1], "a true 'found nowhere': agrees",
     "\n".join(lines))

# Inferred calls: the silent caller is not exercised (not asked, listed apart); the one with the relocation is.
inf = [{"framework": "fw", "version": "1", "caller": "fw/libsilent.so", "target": "libdep.so.1", "confidence": "inferred"}]
bad, lines, _ = check([row("libdep.so.1", os.path.join(w, "wrong.so"))], inf)
t.ok(bad == 0 and "1 inferred, not exercised" in lines[-1] and "0 checked" in lines[-1],
     "an inferred call without a relocation: listed apart, not judged", "\n".join(lines))
inf[0]["caller"] = "fw/libfw.so"
bad, lines, _ = check([row("libdep.so.1", dep)], inf)
t.ok(bad == 0 and "1 inferred calls shown by relocations" in lines[-1], "an inferred call a relocation shows: judged",
     "\n".join(lines))

# A caller outside the environment, found through LD_LIBRARY_PATH, asking by its recorded call (cuDNN's
# pattern): $ORIGIN is its folder, its helper lives in the scratch folder, nothing is written beside it.
sysdep = os.path.join(w, "system", "dep", "libdep.so.1")
sysrec = [{"framework": "fw", "version": "1", "caller": "fw/libfw.so", "target": "libsys.so.9", "confidence": "read"}]
before = sorted(os.listdir(sysdir))
bad, lines, _ = check([row("libsys.so.9", outside, out=True), row("libdep.so.1", sysdep, out=True)], sysrec, llp=sysdir)
t.ok(bad == 0 and "2 checked (2 from outside" in lines[-1], "a system library through LD_LIBRARY_PATH, and what it "
     "asks for through its own RUNPATH $ORIGIN/../dep: agree", "\n".join(lines))
bad, lines, _ = check([row("libsys.so.9", outside, out=True), row("libdep.so.1", dep)], sysrec, llp=sysdir)
t.ok(bad == 1 and "GPU DIFF libdep.so.1" in "\n".join(lines), "predicted from the wheel where the system library's "
     "RUNPATH gives its neighbour: a disagreement", "\n".join(lines))
tables_mute = [{"framework": "fw", "version": "1", "caller": "fw/libfw.so", "target": "libmute.so.9", "confidence": "read"}]
lib_rows = [{"caller": "libmute.so.9", "package": "p", "version": "1", "stage": "gpu", "target": "libdep.so.1",
             "confidence": "read"}]
env = dict(os.environ, LD_LIBRARY_PATH=sysdir)
bad, lines, _ = g.judge(*(lambda asks: (asks, g.run_asks(venv, ["fw"], env, asks, probe, w)))(g.asks_for(
    {"order": ["fw"], "libraries": [row("libmute.so.9", mute, out=True)]}, sp, {"framework": tables_mute, "lib": lib_rows},
    [g.parse_unresolved({"message": nowhere.replace(caller, mute) % "libdep.so.1"})])))
t.ok(bad == 1 and "NOT ASKED libdep.so.1" in "\n".join(lines) and "1 never asked for" in lines[-1],
     "'nowhere' said of a system library whose own file never names it (judged by the wheel copy's rows): a "
     "disagreement", "\n".join(lines))
t.eq(sorted(os.listdir(sysdir)), before, "nothing written in the folder of a caller outside the environment")
t.done()
