#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The facts age: data/catalog.json is what scripts/gen-catalog makes of the tables today, every NVIDIA manifest
in ../shared is in it, and every release in the recorded PyPI snapshot (data/compat/framework_pypi_releases.csv,
kept current by scripts/refresh-pypi) is one the catalog can plan or names.  A new release in the snapshot, or a
manifest dropped into ../shared, fails here until its rows are added (issue 42).  The checks that need ../shared
skip with that reason where it is not beside the repository; the snapshot checks read data/ only."""
import csv
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from cutest import SRCDIR, Tap  # noqa: E402

t = Tap()
SHARED = os.path.normpath(os.path.join(SRCDIR, "..", "shared", "data"))
with open(os.path.join(SRCDIR, "data", "catalog.json"), encoding="utf-8") as f:
    CAT = json.load(f)


def vkey(v):
    return tuple(int(x) for x in re.findall(r"\d+", v))


def rows(name):
    with open(os.path.join(SRCDIR, "data", "compat", name), newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


# ---- the catalog is today's ----
if os.path.isdir(SHARED):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "catalog.json")
        r = subprocess.run([sys.executable, os.path.join(SRCDIR, "scripts", "gen-catalog"), SHARED, out],
                           capture_output=True, text=True)
        same = r.returncode == 0 and open(out, encoding="utf-8").read() == open(
            os.path.join(SRCDIR, "data", "catalog.json"), encoding="utf-8").read()
    t.ok(same, "data/catalog.json is what scripts/gen-catalog makes of ../shared and data/ (run it and commit)",
         r.stderr[-2000:])

    # ---- every manifest of ../shared is in the catalog (gaps are NVIDIA's: only the files there count) ----
    cuda = {c["version"]: c for c in CAT["cuda"]}
    cudnn = {c["version"]: c for c in CAT["cudnn"]}
    missing = []
    for prod in ("cuda", "cudnn"):
        folder = os.path.join(SHARED, "nvidia", "redistrib", prod)
        for name in sorted(os.listdir(folder)):
            m = re.fullmatch(r"redistrib_(\d+\.\d+\.\d+)\.json", name)
            if not m:
                continue
            v = m.group(1)
            if prod == "cuda" and not (v in cuda and cuda[v].get("archives")):
                missing.append("CUDA " + v)
            if prod == "cudnn" and not (v in cudnn and cudnn[v].get("variants")):
                missing.append("cuDNN " + v)
            if prod == "cuda" and v in cuda and not cuda[v].get("driver") and not cuda[v].get("driver_unknown"):
                missing.append("CUDA %s's driver floor (or that no source gives one)" % v)
    t.eq(missing, [], "every manifest in ../shared/data/nvidia/redistrib is in the catalog with its archives")
    sm = CAT["cuda_sm"]
    t.eq(sorted({".".join(v.split(".")[:2]) for v in cuda if cuda[v].get("archives")} - set(sm), key=vkey), [],
         "every CUDA X.Y with archives says which GPUs it builds for (cuda_arch_support.csv)")
else:
    for what in ("data/catalog.json is what scripts/gen-catalog makes", "every manifest in ../shared is in the catalog",
                 "every CUDA X.Y with archives says which GPUs it builds for"):
        t.skip(what, "no ../shared beside the repository")

# ---- every release of the PyPI snapshot is in the catalog ----
snap = {"pytorch": [], "jax": []}
pre = []
for r in rows("framework_pypi_releases.csv"):
    (pre if re.search(r"(a|b|rc|dev)\d*$", r["version"]) else snap[r["framework"]]).append(r["version"])
t.eq(sorted(set(snap["pytorch"]), key=vkey), sorted(set(CAT["pypi_releases"]["pytorch"]), key=vkey),
     "the catalog's PyTorch releases are the snapshot's (framework_pypi_releases.csv)")
t.eq(sorted(set(snap["jax"]), key=vkey), sorted(set(CAT["pypi_releases"]["jax"]), key=vkey),
     "the catalog's JAX releases are the snapshot's")
minors = {".".join(v.split(".")[:2]) for v in snap["pytorch"] if vkey(v) >= (1, 12)}
known = {e["minor"] for e in CAT["pytorch"]}
t.eq(sorted(minors - known, key=vkey), [],
     "every PyTorch minor on PyPI from 1.12 on has its builds in the catalog (pytorch_releases.csv for those after "
     "shared/data's matrix)")
code = {(e["torch"], e["tag"]) for e in CAT["gpu_code"]["pytorch"]}
nocode = sorted(("%s %s" % (e["minor"], b["tag"])) for e in CAT["pytorch"] for b in e["builds"]
                if not any(c[1] == b["tag"] and (c[0] == e["minor"] or c[0].startswith(e["minor"] + ".")) for c in code))
t.eq([x for x in nocode if vkey(x.split()[0]) >= (2, 11)], [],
     "every PyTorch build from 2.11 on says what GPU code it carries (pytorch_gpu_code.csv, read or inferred)")
jpy = CAT["jax"]["python"]
newest_py_row = max((vkey(r["to"]) for r in jpy), default=())
t.eq([v for v in snap["jax"] if vkey(v) > newest_py_row], [],
     "every JAX release on PyPI says which Pythons it has wheels for (jax_python.csv)")
jcode = CAT["gpu_code"]["jax"]
t.eq([v for v in snap["jax"] if vkey(v) >= (0, 4, 20) and
      not any(vkey(e["from"]) <= vkey(v) <= vkey(e["to"]) for e in jcode)], [],
     "every JAX release from 0.4.20 on says what GPU code its plugins carry (jax_gpu_code.csv)")
t.ok(all(not re.search(r"(a|b|rc|dev)", v) for k in snap for v in CAT["pypi_releases"][k]),
     "pre-releases are recorded (%s) but the catalog never plans one unpinned" % (", ".join(pre) or "none now"))
t.done()
