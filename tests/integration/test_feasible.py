#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every feasible stack is planned, and no plan is wrong (issue 34): a grid of the catalog's GPUs (one per
compute capability of its PCI table) x drivers x requests, each plan judged, and each refusal searched for a
stack that would have worked, by an oracle written here from the data tables alone -- NVIDIA's CUDA driver
floors and arch lists, the runfiles', the cuDNN support matrix (data/compat/cudnn_support_matrix.csv), the
manifests on the mirror, the frameworks' builds and GPU code -- without cudaup's code or output.

Outcomes: "planned" (and right), "wrong" (a GPU without code, a CUDA or cuDNN a matrix does not list, a driver
too old for what the plan runs), "refused although feasible" (the oracle found a stack), "refused rightly"
(nothing in the data runs; the refusal's advice must then plan, and change the driver only where it says so).
The driver is kept (as everywhere in the tests) and, on the old drivers, --driver auto: then a driver is planned
only where the request cannot be met with the one that runs, and a refusal means nothing runs even with the newest
branch the GPUs' generations allow.  The default run takes a third of the drivers for each GPU, rotating;
FEASIBLE_GRID=full takes them all.
Every failure names the data the oracle judged by."""
import csv
import json
import os
import re

from cutest import SRCDIR, Tap, run
import machines

t = Tap()
MIRROR_DIR = os.path.join(SRCDIR, "tests", "fixtures", "nvidia")
MIRROR = "file://" + MIRROR_DIR
CAT = json.load(open(os.path.join(SRCDIR, "data", "catalog.json")))


def vk(v):
    return tuple(int(x) for x in re.findall(r"\d+", v or ""))


def mm(v):
    return vk(v)[:2]


def rows(*path):
    with open(os.path.join(SRCDIR, *path), newline="") as f:
        return list(csv.DictReader(f))


def ccn(cc):
    a, b = vk(cc)[:2]
    return a * 10 + b


# ---- the data ------------------------------------------------------------------------------------------
# CUDA: the least driver of each release (NVIDIA's table), of each X.Y (its first release), the minor-version floors.
CUDA_DRIVER = {r["version"]: r["driver"] for r in CAT["cuda"] if r["driver"]}
MINOR_DRIVER = {}
for v, d in sorted(CUDA_DRIVER.items(), key=lambda x: vk(x[0]), reverse=True):
    MINOR_DRIVER[mm(v)] = d  # newest first: the last written is the minor's first release
MVC = {int(k): v["min_driver"] for k, v in CAT["cuda_major"].items()}
# What each CUDA X.Y builds for: the arch table, and the runfiles' own lists before it.
ARCH = {mm(k): set(v["sm"]) for k, v in CAT["cuda_sm"].items()}
RUNFILES = rows("data", "legacy", "cuda_runfiles.csv")
for r in RUNFILES:
    ARCH.setdefault(mm(r["cuda"]), {int(x) for x in r["sm"].split()})
TGZ = rows("data", "legacy", "cudnn_tgz.csv")
STACKS = rows("data", "legacy", "tensorflow_stacks.csv")
GENS = rows("data", "driver", "driver_generations.csv")
CHIP_CC = {}
for chip, (arch, cc) in CAT["chips"].items():
    CHIP_CC.setdefault(arch, set()).add(cc)

# The mirror: its CUDA releases, and for each cuDNN release the CUDA majors it has a linux-x86_64 build for.
MIRROR_CUDA = sorted((f[10:-5] for f in os.listdir(os.path.join(MIRROR_DIR, "cuda", "redist")) if f.startswith("redistrib_")),
                     key=vk, reverse=True)
MIRROR_CUDNN = {}
for f in os.listdir(os.path.join(MIRROR_DIR, "cudnn", "redist")):
    if f.startswith("redistrib_"):
        m = json.load(open(os.path.join(MIRROR_DIR, "cudnn", "redist", f)))["cudnn"]
        MIRROR_CUDNN[m["version"]] = {int(x[4:]) for x in m.get("linux-x86_64", []) if x.startswith("cuda")}


# cuDNN's support matrix, read from the project's CSV: (first, last release, CUDA major) -> capabilities, driver.
def matrix_ccs(r):
    cell = r["compute_capabilities"]
    if "not captured" in cell:
        return []
    ccs = [x for x in cell.split() if re.match(r"^\d+\.\d+$", x)]
    later = re.match(r"SM (\d+\.\d+) and later", cell)
    if later:
        lo = vk(later.group(1))
        if r["architectures"].strip():
            pool = {c for a in r["architectures"].split() for arch, cs in CHIP_CC.items() if arch.startswith(a) for c in cs}
        else:  # "SM 3.5 and later" of what its CUDA releases build for
            pool = {"%d.%d" % (s // 10, s % 10) for t in re.findall(r"\b(\d+\.\d+)\b", r["cuda_toolkit_versions"])
                    for s in ARCH.get(vk(t), set())}
        ccs = [later.group(1)] + [c for c in pool if vk(c) >= lo]
    return [vk(c) for c in ccs]


MATRIX = {}
for r in rows("data", "compat", "cudnn_support_matrix.csv"):
    vs = re.findall(r"\d+\.\d+\.\d+", r["cudnn_version"])
    major = re.match(r"(\d+)", r["cuda_variant"])
    ccs = matrix_ccs(r)
    if not vs or not major or not ccs:
        continue
    e = MATRIX.setdefault((vk(vs[0]), vk(vs[-1]), int(major.group(1))), {"base": set(), "bw": {}, "driver": None})
    if "Blackwell row" in r["cuda_variant"]:
        # NVIDIA's "Blackwell row": those capabilities only from the row's first CUDA on.
        lowest = min(vk(x) for x in re.findall(r"\b(\d+\.\d+)\b", r["cuda_toolkit_versions"]))
        for c in ccs:
            e["bw"][c] = lowest
        continue
    e["base"] |= set(ccs)
    if re.match(r"^\d+\.\d+", r["linux_driver_min"]):
        d = vk(r["linux_driver_min"])
        e["driver"] = min(e["driver"], d) if e["driver"] else d


def row_lists(e, cc, cuda=None):
    listed = set(e["base"]) | {c for c, need in e["bw"].items() if not cuda or cuda >= need}
    return bool(listed) and vk(cc) >= min(listed) and vk(cc)[0] <= max(listed)[0]


def cudnn_lists(version, major, cc, cuda=None):
    """Does the matrix list @cc for cuDNN @version built for CUDA @major?  Its own row; without one, the
    newer neighbour (or the only one).  None: no row for that major at all.  Returns (verdict, why)."""
    v = vk(version)[:3]
    own = [k for k in MATRIX if k[2] == major and k[0] <= v <= k[1]]
    if own:
        return row_lists(MATRIX[own[0]], cc, cuda), "cudnn_support_matrix.csv %s" % ".".join(map(str, own[0][0]))
    below = sorted((k for k in MATRIX if k[2] == major and k[1] < v), reverse=True)
    above = sorted(k for k in MATRIX if k[2] == major and k[0] > v)
    near = above[0] if above else below[0] if below else None
    if not near:
        return None, "no cuDNN matrix row for CUDA %d" % major
    return row_lists(MATRIX[near], cc, cuda), "cudnn_support_matrix.csv %s (neighbour)" % ".".join(map(str, near[0]))


def cudnn_driver(version, major):
    v = vk(version)[:3]
    own = [k for k in MATRIX if k[2] == major and k[0] <= v <= k[1]]
    return MATRIX[own[0]]["driver"] if own else None


def code_runs(sass, ptx, cc, driver, built):
    """How a build runs on @cc: 'sass', 'ptx' (its PTX JIT needs the driver of @built, the CUDA X.Y that wrote it), or None."""
    g = ccn(cc)
    if any(s // 10 == g // 10 and s <= g for s in sass):
        return "sass"
    if any(p <= g for p in ptx) and built and MINOR_DRIVER.get(built) and vk(driver) >= vk(MINOR_DRIVER[built]):
        return "ptx"
    return None


def runs_cuda(driver, cuda):
    """Does the driver run CUDA release @cuda: natively, or (11 and newer) by minor-version compatibility?"""
    need = CUDA_DRIVER.get(cuda) or MINOR_DRIVER.get(mm(cuda))
    if need and vk(driver) >= vk(need):
        return True
    floor = MVC.get(vk(cuda)[0])
    return bool(floor) and vk(driver) >= vk(floor)


def builds_for(cuda, cc):
    return ccn(cc) in ARCH.get(mm(cuda), set())


def gen_of(cc):
    return next((g for g in GENS if vk(g["cc_min"]) <= vk(cc) <= vk(g["cc_max"])), None)


# The system CUDA releases cudaup can install (the mirror's and the runfiles'), and the cuDNN for each.
ALL_CUDA = MIRROR_CUDA + [r["cuda"] for r in RUNFILES]


def cudnns_for(cuda):
    """(version, CUDA major of the build) of every cuDNN that can go into CUDA @cuda's folder."""
    out = []
    if cuda in MIRROR_CUDA:
        out += [(v, vk(cuda)[0]) for v, majors in MIRROR_CUDNN.items() if vk(cuda)[0] in majors]
    else:
        out += [(r["cudnn"], vk(cuda)[0]) for r in TGZ if vk(r["cuda_min"]) <= mm(cuda) <= vk(r["cuda_max"])]
    return out


def cuda_ok(cuda, gpus, driver):
    return all(builds_for(cuda, cc) for cc in gpus) and runs_cuda(driver, cuda)


def cudnn_ok(version, major, cuda, gpus, driver):
    d = cudnn_driver(version, major)
    return (not d or vk(driver) >= d) and all(cudnn_lists(version, major, cc, mm(cuda))[0] is not False for cc in gpus)


def folder_ok(cuda, gpus, driver, dnn_min=None, dnn_major=None):
    """A cuDNN for CUDA @cuda's folder that the matrix lists for the GPUs (of @dnn_major at @dnn_min or newer)."""
    for v, major in cudnns_for(cuda):
        if dnn_major and vk(v)[0] != dnn_major or dnn_min and vk(v) < dnn_min:
            continue
        if cudnn_ok(v, major, cuda, gpus, driver):
            return v
    return None


# Frameworks.
TF_CODE = [(vk(r["from"]), vk(r["to"]), r["sass"] or [], r["ptx"]) for r in CAT["gpu_code"]["tensorflow"]]


def tf_code(v):
    for lo, hi, sass, ptx in TF_CODE:
        if lo <= vk(v) <= hi:
            return sass, ptx
    for s in STACKS:
        if vk(s["tf_from"]) <= vk(v) <= vk(s["tf_to"]):
            return [int(x) for x in s["sass"].split()], [int(x) for x in s["ptx"].split()]
    return None


def tf_builds():
    """Every TensorFlow cudaup plans: the tested builds with archives, and the legacy stacks."""
    out = []
    for r in CAT["tensorflow"]:
        if vk(r["version"]) >= (2, 5):
            out.append({"version": r["version"], "cuda": vk(r["cuda"]), "cudnn": vk(r["cudnn"]), "cuda_max": None})
    for s in STACKS:
        out.append({"version": s["version"], "cuda": vk(s["cuda"]), "cudnn": vk(s["cudnn"]), "cuda_max": vk(s["cuda"])})
    return out


def tf_stack(t, gpus, driver):
    """A (CUDA, cuDNN) that runs TensorFlow build @t here, or None."""
    code = tf_code(t["version"])
    if not code or not all(code_runs(code[0], code[1], cc, driver, t["cuda"]) for cc in gpus):
        return None
    if t["cuda_max"] and any(ccn(cc) // 10 > max(ARCH[t["cuda_max"]]) // 10 for cc in gpus):
        return None  # the toolkit's libraries predate the GPU
    for cuda in ALL_CUDA:
        if vk(cuda)[0] != t["cuda"][0] or mm(cuda) < t["cuda"] or (t["cuda_max"] and mm(cuda) > t["cuda_max"]):
            continue
        if cuda_ok(cuda, gpus, driver):
            dn = folder_ok(cuda, gpus, driver, t["cudnn"], t["cudnn"][0])
            if dn:
                return cuda, dn
    return None


TORCH_PIN = {}
for m in CAT["pytorch"]:
    for b in m["builds"]:
        TORCH_PIN[(m["minor"], b["tag"])] = b


def torch_code(version, tag):
    rows_ = CAT["gpu_code"]["pytorch"]
    for r in rows_:
        if r["tag"] == tag and r["exact"] and r["torch"] == version:
            return r["sass"], r["ptx"]
    for r in rows_:
        if r["tag"] == tag and not r["exact"] and r["torch"] == ".".join(version.split(".")[:2]):
            return r["sass"], r["ptx"]
    return None


def torch_stack(minor, tag, gpus, driver, need_folder=True):
    b = TORCH_PIN.get((minor, tag))
    code = torch_code(minor, tag)
    if not b or not code:
        return None
    cuda_b = vk(b["cuda"])
    if not all(code_runs(code[0], code[1], cc, driver, cuda_b) for cc in gpus):
        return None
    if not runs_cuda(driver, "%d.%d.0" % cuda_b):
        return None
    if not b["cudnn"] or not all(cudnn_lists(b["cudnn"], cuda_b[0], cc)[0] is not False for cc in gpus):
        return None
    for cuda in ALL_CUDA:
        if vk(cuda)[0] == cuda_b[0] and cuda_ok(cuda, gpus, driver):
            if not need_folder or folder_ok(cuda, gpus, driver):
                return cuda
    return None


def jax_history_built(version):
    """The CUDA X.Y the JAX release at or before @version was built with (its changelog)."""
    best = None
    for h in CAT["jax"]["history"]:
        if h.get("built_with") and vk(h["version"]) <= vk(version) and (not best or vk(h["version"]) > vk(best[0])):
            best = (h["version"], vk(h["built_with"]))
    return best[1] if best else None


def jax_pip_cudnn(major, version):
    for l in CAT["pip_libraries"]:
        if l["cuda_major"] == major and vk(l["from"]) <= vk(version) <= vk(l["to"]):
            return vk(l["min"]), vk(l["max_exclusive"]) if l["max_exclusive"] else None
    return None


KNOWN_CUDNN = [c["version"] for c in CAT["cudnn"]]


def jax_stack(gpus, driver, row=None):
    """A JAX build (plugin major, code row) that runs here, or None.  @row: judge that one only."""
    for p in CAT["jax"]["plugins"]:
        major = int(p["cuda_major"])
        if any(vk(cc) < vk(p["min_sm"]) for cc in gpus) or vk(driver)[0] < p["driver_branch"]:
            continue
        for r in CAT["gpu_code"]["jax"]:
            if major not in r["cuda_major"] or (row and r is not row):
                continue
            built = jax_history_built(r["to"]) or (major, 0)
            if not all(code_runs(r["sass"], r["ptx"], cc, driver, built) for cc in gpus):
                continue
            rng = jax_pip_cudnn(major, r["to"])
            if rng and not any(rng[0] <= vk(v) and (not rng[1] or vk(v) < rng[1]) and
                               all(cudnn_lists(v, major, cc)[0] is not False for cc in gpus) for v in KNOWN_CUDNN):
                continue
            for cuda in ALL_CUDA:
                if vk(cuda)[0] == major and cuda_ok(cuda, gpus, driver) and folder_ok(cuda, gpus, driver):
                    return major, r
    return None


def feasible(req, gpus, driver):
    """What the oracle finds for request @req here, or None."""
    if req == "tensorflow":
        for tb in tf_builds():
            s = tf_stack(tb, gpus, driver)
            if s:
                return "TensorFlow %s on CUDA %s, cuDNN %s" % (tb["version"], s[0], s[1])
    elif req == "pytorch":
        for (minor, tag) in TORCH_PIN:
            cuda = torch_stack(minor, tag, gpus, driver)
            if cuda:
                return "PyTorch %s %s on CUDA %s" % (minor, tag, cuda)
    elif req == "jax":
        s = jax_stack(gpus, driver)
        if s:
            return "JAX cuda%d %s-%s" % (s[0], s[1]["from"], s[1]["to"])
    else:
        for cuda in ALL_CUDA:
            if cuda_ok(cuda, gpus, driver) and (req == "none-nodnn" or folder_ok(cuda, gpus, driver)):
                return "CUDA %s" % cuda
    return None


def wrong(d, gpus, driver):
    """Why plan @d is wrong by the data, or None."""
    drv = d.get("driver") or {}
    if drv.get("action") == "install":
        driver = drv.get("version_min") or driver
        for cc in gpus:
            g = gen_of(cc)
            b = int(drv.get("branch") or 0)
            if g and (drv.get("flavor") not in g["flavors"].split() or (g["branch_min"] and b < int(g["branch_min"])) or
                      (g["branch_last"] and b > int(g["branch_last"]))):
                return "driver %s %s does not serve %s [driver_generations.csv %s]" % (b, drv.get("flavor"), cc, g["generation"])
    cuda = (d.get("cuda") or {}).get("version")
    if not cuda:
        return "no CUDA in the plan"
    for cc in gpus:
        if not builds_for(cuda, cc):
            return "CUDA %s does not build for %s [cuda_arch_support.csv / cuda_runfiles.csv]" % (cuda, cc)
    if not runs_cuda(driver, cuda):
        return "driver %s runs CUDA %s neither natively nor by minor-version compatibility" % (driver, cuda)
    dn = d.get("cudnn")
    if dn:
        major = vk(dn["cuda_variant"])[0]
        if not cudnn_ok(dn["version"], major, cuda, gpus, driver):
            why = [cudnn_lists(dn["version"], major, cc, mm(cuda))[1] for cc in gpus]
            return "cuDNN %s (CUDA %d) is not listed for every GPU, or needs a newer driver [%s]" % (dn["version"], major, why)
    f = d.get("framework") or {}
    if f.get("name") == "tensorflow":
        tb = next((b for b in tf_builds() if vk(b["version"])[:2] == vk(f["version"])[:2]), None)
        code = tf_code(f["version"])
        if not tb or not code:
            return None  # the data says nothing to judge by
        for cc in gpus:
            if not code_runs(code[0], code[1], cc, driver, tb["cuda"]):
                return "TensorFlow %s has no code %s can run [tensorflow_gpu_code.csv / tensorflow_stacks.csv]" % (f["version"], cc)
        if f.get("bundled_runtime"):
            # tensorflow[and-cuda] (the default toolkit is the wheels, issue 50): its CUDA runtime and cuDNN are the ones
            # its wheel asks pip for (framework_wheel_requires.csv), the plan's archives none of them.
            w = next((e for e in CAT["framework_wheels"] if e["framework"] == "tensorflow" and e["version"] == f["version"]), None)
            if not w or not (f.get("pip") or [""])[0].startswith("tensorflow[and-cuda]=="):
                return "TensorFlow %s brings its CUDA, but not from an [and-cuda] wheel the catalog read" % f["version"]
            req = dict(w["requires"])
            lo = lambda spec: next((x.lstrip("=>") for x in spec.split(",") if x.startswith(("==", ">="))), None)
            rt = lo(req.get("nvidia-cuda-runtime-cu12", "") or req.get("nvidia-cuda-runtime-cu11", ""))
            if not rt or not runs_cuda(driver, rt):
                return "driver %s cannot run the CUDA %s runtime TensorFlow %s's wheel asks for" % (driver, rt, f["version"])
            dnn_pkg = next((k for k in req if k.startswith("nvidia-cudnn-cu")), None)
            dnn_spec = req.get(dnn_pkg, "") if dnn_pkg else ""
            dnn_v = lo(dnn_spec)
            if not dnn_v or vk(dnn_v)[0] != tb["cudnn"][0]:
                return "TensorFlow %s's wheel asks cuDNN %s, not %s" % (f["version"], dnn_v, tb["cudnn"])
            held = [c.split("==")[1].rstrip(".*") for c in f.get("constraints", []) if c.startswith("nvidia-cudnn")]
            if held:  # the plan holds it
                dnn_v = held[0]
            elif not dnn_spec.startswith("=="):  # a range: pip takes the newest release in it (KNOWN_CUDNN: newest first)
                hi = next((x.lstrip("<") for x in dnn_spec.split(",") if x.startswith("<")), None)
                dnn_v = next((v for v in KNOWN_CUDNN if vk(v) >= vk(dnn_v) and (not hi or vk(v) < vk(hi))), dnn_v)
            for cc in gpus:
                if cudnn_lists(dnn_v, int(dnn_pkg[len("nvidia-cudnn-cu"):]), cc)[0] is False:
                    return "the cuDNN %s TensorFlow %s's wheel asks for does not list %s" % (dnn_v, f["version"], cc)
            return None
        if vk(cuda)[0] != tb["cuda"][0] or mm(cuda) < tb["cuda"] or (tb["cuda_max"] and mm(cuda) > tb["cuda_max"]):
            return "TensorFlow %s was built with CUDA %s, not for %s" % (f["version"], tb["cuda"], cuda)
        if not dn or vk(dn["version"])[0] != tb["cudnn"][0] or vk(dn["version"]) < tb["cudnn"]:
            return "TensorFlow %s needs cuDNN %s, not %s" % (f["version"], tb["cudnn"], dn)
    elif f.get("name") == "pytorch":
        minor = ".".join((f.get("version") or "").split(".")[:2])
        b = TORCH_PIN.get((minor, f.get("cuda_build")))
        code = torch_code(f.get("version"), f.get("cuda_build"))
        if not b:
            return "PyTorch %s %s is not a build of the catalog" % (f.get("version"), f.get("cuda_build"))
        cuda_b = vk(b["cuda"])
        if code:
            for cc in gpus:
                if not code_runs(code[0], code[1], cc, driver, cuda_b):
                    return "PyTorch %s %s has no code %s can run [pytorch_wheel_arch.csv]" % (minor, b["tag"], cc)
        if not runs_cuda(driver, "%d.%d.0" % cuda_b):
            return "driver %s cannot run the CUDA %s runtime PyTorch %s brings" % (driver, b["cuda"], b["tag"])
        if b["cudnn"]:
            for cc in gpus:
                if cudnn_lists(b["cudnn"], cuda_b[0], cc)[0] is False:
                    return "the cuDNN %s PyTorch %s %s pins does not list %s" % (b["cudnn"], minor, b["tag"], cc)
    elif f.get("name") == "jax" and f.get("bundled_runtime"):
        major = 13 if "cuda13" in (f.get("cuda_build") or "") else 12
        pip = (f.get("pip") or [""])[0]
        lo = re.search(r">=([\d.]+)", pip)
        hi = re.search(r"<([\d.]+)", pip)
        rows_ = [r for r in CAT["gpu_code"]["jax"] if major in r["cuda_major"]]
        if lo:
            rows_ = [r for r in rows_ if vk(r["from"]) <= vk(lo.group(1)) <= vk(r["to"])] or rows_
        else:
            rows_ = sorted(rows_, key=lambda r: vk(r["to"]), reverse=True)[:1]
        for r in rows_[:1]:
            built = jax_history_built(r["to"] if not hi else lo.group(1)) or (major, 0)
            for cc in gpus:
                if not code_runs(r["sass"], r["ptx"], cc, driver, built):
                    return "JAX %s (cuda%d) has no code %s can run on driver %s [jax_wheel_arch.csv]" % (r["to"], major, cc, driver)
        pins = [c.split("==")[1].rstrip(".*") for c in f.get("constraints", []) if c.startswith("nvidia-cudnn")]
        version = pins[0] if pins else next((v for v in KNOWN_CUDNN), "99.0.0")
        for cc in gpus:
            if cudnn_lists(version, major, cc)[0] is False:
                return "the cuDNN pip brings JAX (%s) does not list %s" % (version, cc)
    return None


# ---- the grid -------------------------------------------------------------------------------------------
GPUS = {}
for dev, (name, chip, cc) in sorted(CAT["pci"].items()):
    if cc and vk(cc) != (11, 0) and cc not in GPUS and name and not re.search(r"\b(GA|GH|GP|GK|GM|TU|AD|GB|GV)\d", name):
        GPUS[cc] = (dev, cc, name)
DRIVERS = ["410.104", "418.87.01", "440.100", "450.80.02", "470.57.02", "525.60.13", "535.183.01", "550.54.14",
           "560.35.03", "570.133.07", "580.95.05"]
REQUESTS = {"tensorflow": ["--framework", "tensorflow"], "pytorch": ["--framework", "pytorch"],
            "jax": ["--framework", "jax"], "none": ["--framework", "none"],
            "none-nodnn": ["--framework", "none", "--cudnn", "none"]}
PAIRS = [("5.2", "8.6"), ("7.0", "7.5"), ("3.7", "7.0"), ("6.1", "8.9"), ("3.5", "3.7")]
FULL = os.environ.get("FEASIBLE_GRID") == "full"


def possible(gpus, driver):
    """Can this driver run these GPUs at all: within their generation's branches (a K80 stops at R470, a
    Blackwell starts at R570), and as new as the first CUDA that builds for them (an RTX 3090 needs 11.1's 455)?"""
    for cc in gpus:
        g = gen_of(cc)
        if not g:
            return False
        if g["branch_last"] and vk(driver)[0] > int(g["branch_last"]) or g["branch_min"] and vk(driver)[0] < int(g["branch_min"]):
            return False
        if not any(ccn(cc) in sms and MINOR_DRIVER.get(m) and vk(driver) >= vk(MINOR_DRIVER[m]) for m, sms in ARCH.items()):
            return False
    return True


_roots = {}


def plan(gpus, driver, args):
    key = (tuple(gpus), driver)
    if key not in _roots:
        root = os.path.join(t.tmpdir("m"), "root")
        flavor = "open" if all(vk(cc) >= (10, 0) for cc in gpus) else "proprietary"
        machines.build_spec({"os": "ubuntu", "driver": driver, "cuda": 12040, "libs": True, "flavor": flavor,
                             "gpus": [("0000:%02x:00.0" % (i + 1), GPUS[cc][0], "0x030000", "nvidia", cc, 8192, GPUS[cc][2])
                                      for i, cc in enumerate(gpus)]}, root)
        _roots[key] = root
    root = _roots[key]
    r = run(["plan", "--json", "--root", root, "--mirror", MIRROR, "--cache-dir", t.tmpdir("c"), "--prefix", "/opt/cu",
             "--state-dir", "/var/tmp/st"] + list(args), env={"FAKE_NVIDIA_CONFIG": os.path.join(root, "fake-nvidia.conf")})
    return r, r.json() or {}


cases = []
ccs = sorted(GPUS, key=vk)
for i, cc in enumerate(ccs):
    for k, driver in enumerate(DRIVERS):
        if FULL or (i + k) % 3 == 0:
            cases.append(([cc], driver))
for i, pair in enumerate(PAIRS):
    for k, driver in enumerate(DRIVERS):
        if FULL or (i + k) % 3 == 0:
            cases.append((list(pair), driver))

counts = {"planned": 0, "wrong": 0, "refused although feasible": 0, "refused rightly": 0, "impossible machine": 0}
for gpus, driver in cases:
    if not possible(gpus, driver):
        counts["impossible machine"] += len(REQUESTS)
        continue
    for req, args in REQUESTS.items():
        what = "%s, driver %s, %s" % (" + ".join(GPUS[cc][2] for cc in gpus), driver, " ".join(args))
        r, d = plan(gpus, driver, args)
        if r.rc == 0:
            why = wrong(d, gpus, driver)
            counts["wrong" if why else "planned"] += 1
            t.ok(not why, "%s: planned %s, right by the data%s" % (what, (d.get("framework") or {}).get("version") or
                                                                    d["cuda"]["version"], ": " + why if why else ""), d if why else None)
            continue
        found = feasible(req, gpus, driver)
        if found:
            counts["refused although feasible"] += 1
            t.ok(False, "%s: refused although the data has %s" % (what, found), d)
            continue
        counts["refused rightly"] += 1
        m = re.search(r"cudaup install (.*?) gives", d.get("advice") or "")
        need = re.search(r"needs NVIDIA driver ([\d.]+) or newer", d.get("advice") or "")
        if m:
            r2, d2 = plan(gpus, driver, m.group(1).split())
            # The first command's own sentence (the advice may go on with a newer driver's command).
            adv = d.get("advice", "")
            nxt = adv.find("cudaup install", adv.find("cudaup install") + 1)
            hidden = ((d2.get("driver") or {}).get("action") == "install") != ("installs NVIDIA driver" in
                                                                              (adv[:nxt] if nxt > 0 else adv))
            t.ok(r2.rc == 0 and not hidden, "%s: refused rightly (nothing in the data runs), its advice plans (%s)%s"
                 % (what, m.group(1), ", with a hidden driver change" if hidden else ""), (d, r2))
        else:
            t.ok(r.rc == 3 and (need or d.get("advice")), "%s: refused rightly, with advice" % what, d)

# ---- --driver auto: the driver is replaced only when the request cannot be met with it -------------------
# The branch an Ubuntu machine can get (data/driver/driver_packages.csv, Ubuntu's own rows for the fixture's
# 22.04): the newest its GPUs' generations allow, counted at its first release in NVIDIA's CUDA table (what a
# plan may count on).
UBUNTU = sorted({int(b) for r in rows("data", "driver", "driver_packages.csv")
                 if r["ids"].split() == ["ubuntu"] and r["source"] == "distro" and "22.04" in r["versions"].split()
                 for b in r["branches"].split()})


def newest_driver(gpus):
    hi = min([int(gen_of(cc)["branch_last"]) for cc in gpus if gen_of(cc)["branch_last"]] or [max(UBUNTU)])
    b = max(x for x in UBUNTU if x <= hi)
    return min((d for d in CUDA_DRIVER.values() if vk(d)[0] == b), key=vk)


AUTO_DRIVERS = ["410.104", "418.87.01", "440.100", "470.57.02"] if not FULL else DRIVERS
for gpus, driver in [(g, d) for g, d in cases if d in AUTO_DRIVERS]:
    if not possible(gpus, driver):
        continue
    for req, args in REQUESTS.items():
        what = "%s, driver %s, --driver auto %s" % (" + ".join(GPUS[cc][2] for cc in gpus), driver, " ".join(args))
        r, d = plan(gpus, driver, ["--driver", "auto"] + args)
        here = feasible(req, gpus, driver)
        installs = (d.get("driver") or {}).get("action") == "install"
        if r.rc == 0:
            why = wrong(d, gpus, driver) or ("the driver is replaced though %s runs on it" % here if installs and here else None)
            counts["wrong" if why else "planned"] += 1
            t.ok(not why, "%s: planned %s%s" % (what, "with driver %s" % d["driver"]["branch"] if installs else "on this driver",
                                                ": " + why if why else ""), d if why else None)
            continue
        found = here or feasible(req, gpus, newest_driver(gpus))
        counts["refused although feasible" if found else "refused rightly"] += 1
        t.ok(not found, "%s: refused%s" % (what, " although the data has " + found if found else " rightly"), d)

print("# %s" % ", ".join("%s: %d" % kv for kv in counts.items()))
t.ok(counts["wrong"] == 0 and counts["refused although feasible"] == 0,
     "the grid: %d cases (%d machines no driver runs left out), 0 wrong, 0 refused although feasible"
     % (sum(counts.values()) - counts["impossible machine"], counts["impossible machine"]), counts)
t.done()
