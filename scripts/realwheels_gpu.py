# SPDX-License-Identifier: MIT
"""scripts/realwheels' check of doctor's GPU-stage predictions on a machine without a GPU (issue 47).

What a framework loads only on GPU work (TSL's GetDsoHandle lists, cuDNN's sub-libraries, ...) never shows in
/proc/self/maps here.  But where a library comes from depends only on who asks and what is already loaded: a small
helper .so carrying the caller's own DT_RUNPATH (or DT_RPATH), put in the caller's folder (so that $ORIGIN is
the caller's), asked to dlopen(name) in a process that has imported the frameworks in the walk's order, is
answered by the real loader exactly as the caller would be (the method of the independent review of issue 47,
scripts/review52).  So, for each order doctor walked:

  - every GPU-stage library doctor predicts (a row of framework_loads) must be the file the helper's dlopen maps;
  - every load doctor says would be found nowhere (a framework-cuda-unresolved problem) must fail in the helper;
  - a row whose call is only inferred (framework_loads.csv's GetDsoHandle rows, confidence `inferred`, or a
    framework walked without its recording) is reported apart as "inferred, not exercised" unless relocations
    show the call: a JUMP_SLOT or GLOB_DAT against tsl's Get<X>DsoHandle for that library, in the caller or in
    another of the framework's objects (the dlopen runs inside the object defining it, with that one's RUNPATH);
  - a call an NVIDIA library is said to make (cuda_lib_loads.csv: the rows of the environment's own copy, which
    doctor applies to a copy from outside too) must be a name that library's own file holds; if not, doctor
    predicts a call that is never made: NOT ASKED, a disagreement;
  - a file found where doctor predicts but which the loader then refuses (an undefined symbol: a system cuDNN's
    sub-library beside the wheel's libcudnn_graph) is a disagreement of its own kind, REFUSED.

A caller outside the environment (a system CUDA) gets its helper in a scratch folder with $ORIGIN spelled out
as the caller's folder: this script writes nothing outside the venv and its scratch folder.

The caller of each row is not in doctor's JSON: it is found as doctor's walk finds it, from the same data: a
GPU-stage library loaded before it that has it in DT_NEEDED, else the framework's recorded call
(data/compat/framework_loads.csv), else an NVIDIA library's recorded call (data/compat/cuda_lib_loads.csv), else
the framework's own key objects (a framework walked without its recording).
"""
import csv
import json
import os
import re
import shutil
import subprocess

HELPER_C = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
static char buf[8192];
/* dlopen(name) as this object's own call: the loader searches this object's DT_RUNPATH (or DT_RPATH). */
const char *rw_try_open(const char *name)
{
    void *h = dlopen(name, RTLD_LAZY | RTLD_LOCAL);
    if (!h) {
        snprintf(buf, sizeof buf, "FAIL %s", dlerror());
        return buf;
    }
    struct link_map *lm = NULL;
    if (dlinfo(h, RTLD_DI_LINKMAP, &lm) != 0 || !lm)
        snprintf(buf, sizeof buf, "FAIL dlinfo");
    else
        snprintf(buf, sizeof buf, "OK %s", lm->l_name);
    return buf;
}
"""

TITLES = {"PyTorch": "pytorch", "TensorFlow": "tensorflow", "JAX": "jax"}
DIST = {"pytorch": "torch", "tensorflow": "tensorflow", "jax": "jax"}
# A framework walked without its recording: the objects doctor's walk (core/doctor/shadow.c) lets ask on GPU work.
KEY_OBJECTS = {"tensorflow": ["tensorflow/libtensorflow_framework.so.2", "tensorflow/libtensorflow_cc.so.2",
                              "tensorflow/python/_pywrap_tensorflow_internal.so"],
               "jax": ["jax_plugins/xla_cuda12/xla_cuda_plugin.so", "jax_plugins/xla_cuda13/xla_cuda_plugin.so"]}
# tsl's DsoLoader::Get<X>DsoHandle names X after the library, save these.
DSO_ALIASES = {"cudart": "cudaruntime", "cuda": "cudadriver", "nvshmemhost": "nvshmem", "nvinfer": "nvinfer"}


def dso_key(soname):
    """'libnccl.so.2' -> 'nccl', 'libcudart.so.12' -> 'cudaruntime': the X of Get<X>DsoHandle, lower case."""
    m = re.match(r"lib(.+?)\.so", soname)
    s = (m.group(1) if m else soname).lower().replace("_", "")
    return DSO_ALIASES.get(s, s)


RELOC = re.compile(r"R_\w+_(?:JUMP_SLOT|GLOB_DAT)\s+\S+\s+(\S*Get([A-Za-z0-9]+?)DsoHandle\S*)")


def dso_calls_of(readelf_r_text):
    """The X of every Get<X>DsoHandle a JUMP_SLOT or GLOB_DAT relocation names (readelf -rW output): {x: symbol}."""
    out = {}
    for line in readelf_r_text.splitlines():
        m = RELOC.search(line)
        if m:
            out.setdefault(m.group(2).lower(), m.group(1))
    return out


def parse_dynamic(readelf_d_text):
    """readelf -dW output -> {'needed': [...], 'runpath': str|None, 'rpath': str|None, 'soname': str|None}."""
    d = {"needed": [], "runpath": None, "rpath": None, "soname": None}
    for line in readelf_d_text.splitlines():
        m = re.search(r"\((NEEDED|RUNPATH|RPATH|SONAME)\)\s+[^\[]*\[(.*)\]\s*$", line)
        if not m:
            continue
        k, v = m.group(1), m.group(2)
        if k == "NEEDED":
            d["needed"].append(v)
        else:
            d[k.lower()] = v
    return d


_DYN, _CALLS = {}, {}


def dynamic(path):
    if path not in _DYN:
        r = subprocess.run(["readelf", "-dW", path], capture_output=True, text=True)
        _DYN[path] = parse_dynamic(r.stdout)
    return _DYN[path]


def dso_calls(path):
    if path not in _CALLS:
        r = subprocess.run(["readelf", "-rW", path], capture_output=True, text=True)
        _CALLS[path] = dso_calls_of(r.stdout)
    return _CALLS[path]


def parse_unresolved(problem):
    """A framework-cuda-unresolved problem (doctor's English message) -> {name, stage, asker (None: Python),
    orders (None: every order walked; else a list of orders, each a list of framework names)}, or None."""
    m = re.search(r"would fail to load (\S+) (at import|on its first use|on GPU work)(?: \((when [^)]*)\))?: (.+?) asks the "
                  r"loader for it", problem.get("message", ""))
    if not m:
        return None
    stage = {"at import": "import", "on its first use": "use", "on GPU work": "gpu"}[m.group(2)]
    orders = None
    if m.group(3):
        orders = []
        for part in m.group(3).split("; "):
            a = re.match(r"when (\w+) is imported alone$", part)
            b = re.match(r"when imported in the order (.+)$", part)
            if a:
                orders.append([TITLES.get(a.group(1), a.group(1).lower())])
            elif b:
                orders.append([TITLES.get(t, t.lower()) for t in b.group(1).split(", ")])
    asker = None if m.group(4) == "Python itself" else m.group(4)
    return {"name": m.group(1), "stage": stage, "asker": asker, "orders": orders}


def load_tables(top):
    def rows(name):
        with open(os.path.join(top, "data", "compat", name)) as f:
            return [r for r in csv.DictReader(f) if r.get("stage") == "gpu"]
    return {"framework": rows("framework_loads.csv"), "lib": rows("cuda_lib_loads.csv")}


def installed_version(sp, fw):
    dist = DIST.get(fw, fw)
    for e in os.listdir(sp):
        m = re.match(r"%s-([^-]+)\.dist-info$" % re.escape(dist), e)
        if m:
            return m.group(1)
    return None


def recorded_calls(tables, sp, fw):
    """The framework's recorded GPU-stage calls doctor uses: those of its installed release, else of a release
    whose callers are all here (a neighbour's recording)."""
    rows = [r for r in tables["framework"] if r["framework"] == fw]
    ver = installed_version(sp, fw)
    same = [r for r in rows if ver and ver.split("+")[0] == r["version"]]
    if same:
        return same, True
    fits = [r for r in rows if os.path.exists(os.path.join(sp, r["caller"]))]
    return fits, bool(fits)


def exercised(caller, name, others=()):
    """(True, why) when relocations show a Get<X>DsoHandle call for @name: the caller's own, or those of the
    framework's other objects (@others).  The dlopen is made inside the object that defines Get<X>DsoHandle (it
    searches that object's RUNPATH), but who calls it may be another: TensorFlow 2.20's libtensorflow_cc.so.2
    calls libtensorflow_framework.so.2's GetNvshmemDsoHandle through its PLT, which has no such relocation."""
    for o in [caller] + [x for x in others if x != caller]:
        sym = dso_calls(o).get(dso_key(name))
        if sym:
            return True, "%s has a relocation against %s" % (os.path.basename(o), sym)
    return False, "no JUMP_SLOT/GLOB_DAT against Get*DsoHandle for %s in %s" % (
        name, ", ".join(os.path.basename(o) for o in [caller] + [x for x in others if x != caller]))


_HOLDS = {}


def holds(path, name, confidence):
    """Does the object at @path hold the name it is said to dlopen?  A name read in a wheel's library
    (cuda_lib_loads.csv, confidence read) as the whole string; one inferred from a versionless string (cuDNN's
    'libcudnn_graph.so', its major appended) as that string.  A library from outside the environment is walked
    with the rows of the environment's own copy: the system's cuDNN 9.19 for CUDA 13 holds libnvrtc.so.13, never
    the libnvrtc.so.12 of the wheel's cuDNN 9.10.2 for CUDA 12."""
    want = name if confidence == "read" else name[:name.index(".so") + 3] if ".so" in name else name
    key = (path, want)
    if key not in _HOLDS:
        import mmap
        try:
            with open(path, "rb") as f:
                m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
                try:
                    _HOLDS[key] = m.find(want.encode() + b"\0") >= 0 or (confidence != "read" and m.find(want.encode()) >= 0)
                finally:
                    m.close()
        except (OSError, ValueError):
            _HOLDS[key] = None
    return _HOLDS[key]


def framework_objects(sp, fw):
    """The framework's own objects whose relocations may show a Get<X>DsoHandle call."""
    return [os.path.realpath(os.path.join(sp, k)) for k in KEY_OBJECTS.get(fw, []) if os.path.exists(os.path.join(sp, k))]


def asks_for(walk, sp, tables, unresolved):
    """What to ask the helpers, in the walk's order: one dict per GPU-stage row of @walk, then one per
    'nowhere' prediction of @unresolved that holds for this order.  Each: name, caller (real path; None: Python),
    expect (real path; None: fails), row, how (why this caller), inferred (the call is not read), exercised
    (inferred and shown by a relocation), why."""
    libs = walk["libraries"]
    order = walk["order"]
    out, not_run = [], set()  # not_run: rows whose load is inferred and not shown (what they bring is not asked)
    for i, l in enumerate(libs):
        if l["stage"] != "gpu":
            continue
        a = {"name": l["name"], "expect": l["real"], "row": l, "inferred": False, "exercised": None, "why": ""}
        parent = next((p for p in reversed(libs[:i]) if p["stage"] == "gpu" and p["name"] != l["name"] and
                       l["name"] in dynamic(p["real"])["needed"]), None)
        fw = l["framework"]
        rec, have_rec = recorded_calls(tables, sp, fw)
        rec = [r for r in rec if r["target"] == l["name"] and os.path.exists(os.path.join(sp, r["caller"]))]
        lib = [(r, p) for r in tables["lib"] if r["target"] == l["name"]
               for p in libs[:i] if p["name"] == r["caller"]]
        if parent:
            a.update(caller=parent["real"], how="DT_NEEDED of %s" % parent["name"])
            if parent["real"] in not_run:
                a.update(inferred=True, exercised=False, why="loaded by %s, itself inferred and not exercised" % parent["name"])
        elif rec:
            r = rec[0]
            a.update(caller=os.path.realpath(os.path.join(sp, r["caller"])), how="%s's recorded call (%s %s, %s)" % (
                r["caller"], r["framework"], r["version"], r["confidence"]))
            if r["confidence"] != "read":
                a["inferred"] = True
                a["exercised"], a["why"] = exercised(a["caller"], l["name"], framework_objects(sp, fw))
        elif lib:
            r, p = lib[0]
            a.update(caller=p["real"], how="%s's recorded call (cuda_lib_loads.csv)" % r["caller"])
            a["holds"] = holds(p["real"], r["target"], r["confidence"])
            if p["real"] in not_run:
                a.update(inferred=True, exercised=False, why="%s is itself inferred and not exercised" % p["name"])
        elif not have_rec and fw in KEY_OBJECTS:
            keys = [os.path.realpath(os.path.join(sp, k)) for k in KEY_OBJECTS[fw] if os.path.exists(os.path.join(sp, k))]
            if keys:
                a.update(caller=keys[0], how="%s, %s walked without its recording" % (os.path.basename(keys[0]), fw),
                         inferred=True)
                a["exercised"], a["why"] = exercised(keys[0], l["name"], keys)
        if "caller" not in a:
            a.update(caller=None, how="no caller found in the data", unknown=True)
        if a["inferred"] and not a["exercised"]:
            not_run.add(l["real"])
        out.append(a)
    for u in unresolved:
        if u["orders"] is not None and order not in u["orders"]:
            continue
        a = {"name": u["name"], "expect": None, "row": None, "caller": u["asker"] and os.path.realpath(u["asker"]),
             "inferred": False, "exercised": None, "why": "", "how": "doctor's asker (framework-cuda-unresolved)"}
        if a["caller"]:
            rel = os.path.relpath(a["caller"], sp)
            rec = [r for r in tables["framework"] if r["caller"] == rel and r["target"] == u["name"]]
            if rec and all(r["confidence"] != "read" for r in rec):
                a["inferred"] = True
                a["exercised"], a["why"] = exercised(a["caller"], u["name"], framework_objects(sp, rec[0]["framework"]))
            elif a["caller"] in not_run:
                a.update(inferred=True, exercised=False, why="its asker is itself inferred and not exercised")
            soname = dynamic(a["caller"])["soname"] if os.path.exists(a["caller"]) else None
            lib = [r for r in tables["lib"] if r["caller"] == soname and r["target"] == u["name"]]
            if not rec and lib:
                a["how"] += "; %s's recorded call (cuda_lib_loads.csv)" % soname
                a["holds"] = holds(a["caller"], u["name"], "read" if any(r["confidence"] == "read" for r in lib) else "inferred")
        out.append(a)
    return out


def helper_for(caller, venv, scratch, built):
    """The helper .so that asks as @caller: its DT_RUNPATH or DT_RPATH, in its folder (inside the venv) or, for a
    caller outside the venv, in @scratch with $ORIGIN spelled out.  Cached in @built by caller."""
    if caller in built:
        return built[caller]
    n = len(built)
    flags = []
    if caller:
        d = dynamic(caller)
        path = d["runpath"] if d["runpath"] is not None else d["rpath"]
        folder = os.path.dirname(caller)
        inside = os.path.realpath(caller).startswith(os.path.realpath(venv) + os.sep)
        if path is not None and not inside:
            path = path.replace("${ORIGIN}", folder).replace("$ORIGIN", folder)
        where = folder if inside else scratch
        if path is not None:
            flags = ["-Wl,--%s-new-dtags,-rpath,%s" % ("enable" if d["runpath"] is not None else "disable", path)]
    else:
        where = scratch
    so = os.path.join(where, "librealwheels-helper-%d-%d.so" % (os.getpid(), n))  # two runs on one venv never clash
    src = os.path.join(scratch, "helper.c")
    if not os.path.exists(src):
        with open(src, "w") as f:
            f.write(HELPER_C)
    r = subprocess.run(["gcc", "-shared", "-fPIC", "-o", so, src, "-ldl"] + flags, capture_output=True, text=True)
    built[caller] = so if r.returncode == 0 else None
    return built[caller]


PROBE = r"""
import ctypes, json, os, sys
code, order, asks = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
sys.argv = ["fwprobe", order]
real_stdout, sys.stdout = sys.stdout, sys.stderr  # the probe's own document is not wanted here
try:
    exec(compile(open(code).read(), code, "exec"), {"__name__": "__main__"})
except SystemExit:
    pass
sys.stdout = real_stdout
libs = {}
for i, (so, name) in enumerate(asks):
    if so not in libs:
        libs[so] = ctypes.CDLL(so)
        libs[so].rw_try_open.restype = ctypes.c_char_p
    r = libs[so].rw_try_open(name.encode()).decode(errors="replace")
    print("realwheels-dlopen " + json.dumps([i, r]), flush=True)
"""


def run_asks(venv, order, env, asks, probe_code, scratch):
    """Ask each helper in one process that first imports the frameworks in @order (verify's probe, as the maps
    were taken).  Returns, per ask, ('ok', real path) | ('nowhere', message) | ('error', message)."""
    built, todo = {}, []
    for a in asks:
        if a.get("unknown") or (a["inferred"] and not a["exercised"]) or a.get("holds") is False:
            continue
        so = helper_for(a["caller"], venv, scratch, built)
        if so:
            todo.append((asks.index(a), so, a["name"]))
    results = {}
    try:
        p = subprocess.run([os.path.join(venv, "bin", "python"), "-c", PROBE, probe_code, ",".join(order),
                            json.dumps([(so, n) for _, so, n in todo])], capture_output=True, text=True, env=env,
                           timeout=1800)
        for line in p.stdout.splitlines():
            if line.startswith("realwheels-dlopen "):
                k, r = json.loads(line[len("realwheels-dlopen "):])
                results[todo[k][0]] = r
        died = None if p.returncode == 0 else "the helper's process exited %d: %s" % (
            p.returncode, (p.stderr.strip().splitlines() or [""])[-1])
    finally:
        for so in built.values():
            if so and os.path.exists(so):
                os.unlink(so)
    out = []
    for i, a in enumerate(asks):
        r = results.get(i)
        if r is None:
            out.append(None if not any(t[0] == i for t in todo) else ("error", died or "no answer"))
        elif r.startswith("OK "):
            out.append(("ok", os.path.realpath(r[3:])))
        elif "cannot open shared object file" in r:
            out.append(("nowhere", r[5:]))
        elif re.match(r"FAIL (/[^:]+): ", r):
            # Found, then refused (an undefined symbol, a wrong class): the file is named first.
            m = re.match(r"FAIL (/[^:]+): (.*)", r)
            out.append(("refused", os.path.realpath(m.group(1)), m.group(2)))
        else:
            out.append(("error", r[5:]))
    return out


def judge(asks, results):
    """(disagreements, lines, counts) for one order."""
    c = {"checked": 0, "outside": 0, "nowhere": 0, "agree": 0, "inferred": 0, "exercised": 0, "unknown": 0,
         "disagree": 0, "refused": 0, "notasked": 0}
    lines = []
    for a, r in zip(asks, results):
        where = "nowhere" if a["expect"] is None else a["expect"]
        if a.get("unknown"):
            c["unknown"] += 1
            lines.append("    UNKNOWN  %s: no caller for it found in doctor's walk or the data" % a["name"])
            continue
        if a.get("holds") is False:
            # The caller's own file holds no such name: doctor predicts a call it never makes.
            c["checked"] += 1
            c["disagree"] += 1
            c["notasked"] += 1
            c["nowhere"] += a["expect"] is None
            c["outside"] += bool(a["row"] and a["row"]["outside"])
            lines.append("    NOT ASKED %s: doctor predicts %s, asked by %s (%s); that file holds no such name, so it never "
                         "asks for it" % (a["name"], where, a["caller"], a["how"]))
            continue
        if a["inferred"] and not a["exercised"]:
            c["inferred"] += 1
            lines.append("    inferred, not exercised: %s (predicted: %s; asked by %s: %s)" % (
                a["name"], where, a["how"], a["why"]))
            continue
        if r is None:
            c["unknown"] += 1
            lines.append("    UNKNOWN  %s: no helper could be built for its caller %s" % (a["name"], a["caller"]))
            continue
        c["checked"] += 1
        c["exercised"] += bool(a["inferred"])
        c["nowhere"] += a["expect"] is None
        c["outside"] += bool(a["row"] and a["row"]["outside"])
        if a["expect"] is None:
            ok = r[0] == "nowhere"
        else:
            ok = r[0] == "ok" and r[1] == a["expect"]
        got = {"ok": lambda: r[1], "nowhere": lambda: "nowhere (%s)" % r[1],
               "refused": lambda: "%s, which it then refuses to load (%s)" % (r[1], r[2]),
               "error": lambda: "error: %s" % r[1]}[r[0]]()
        if r[0] == "refused" and r[1] == a["expect"]:
            # The predicted file, found as predicted; but the loader will not map it: doctor's "would load" is
            # not what happens (the GPU work fails to load it), a disagreement of its own kind.
            c["disagree"] += 1
            c["refused"] += 1
            lines.append("    GPU REFUSED %s: found where doctor predicts, %s, but the loader refuses it (asked as %s, "
                         "%s): %s" % (a["name"], r[1], a["caller"] or "Python", a["how"], r[2]))
            continue
        if ok:
            c["agree"] += 1
            if a["expect"] is None or (a["row"] and a["row"]["outside"]) or a["inferred"]:
                lines.append("    gpu ok   %s from %s, as predicted (asked by %s%s)" % (
                    a["name"], where, a["how"], "; " + a["why"] if a["inferred"] else ""))
        else:
            c["disagree"] += 1
            lines.append("    GPU DIFF %s: doctor predicts %s; the loader, asked as %s (%s), gives %s" % (
                a["name"], where, a["caller"] or "Python", a["how"], got))
    lines.append("    GPU stage, with a helper asking as each caller: %d checked (%d from outside the environment, "
                 "%d predicted nowhere, %d inferred calls shown by relocations), %d agree, %d disagree (%d found where "
                 "predicted but refused by the loader, %d never asked for by their caller); %d inferred, not exercised; "
                 "%d without a caller" % (c["checked"], c["outside"], c["nowhere"], c["exercised"], c["agree"],
                                          c["disagree"], c["refused"], c["notasked"], c["inferred"], c["unknown"]))
    return c["disagree"], lines, c


def check_order(venv, sp, walk, problems, tables, env, probe_code, scratch):
    """The GPU-stage check of one order: (disagreements, lines, counts)."""
    unresolved = [u for u in (parse_unresolved(p) for p in problems if p["code"] == "framework-cuda-unresolved") if u]
    asks = asks_for(walk, sp, tables, unresolved)
    results = run_asks(venv, walk["order"], env, asks, probe_code, scratch)
    return judge(asks, results)


def available():
    """None when the check can run, else why not."""
    for tool in ("gcc", "readelf"):
        if not shutil.which(tool):
            return "%s not found" % tool
    return None


def site_packages(venv):
    lib = os.path.join(venv, "lib")
    for d in sorted(os.listdir(lib)):
        sp = os.path.join(lib, d, "site-packages")
        if os.path.isdir(sp):
            return sp
    return None
