#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""scripts/list-gpu-code, which read the GPU code rows of data/compat marked as read in the frameworks' wheels:
on a library nvcc builds with known SASS and PTX it lists exactly those, and it says so of a library without
GPU code.  Skipped where no nvcc is found (the CUDA toolkit in /usr/local/cuda or on PATH)."""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from cutest import SRCDIR, Tap  # noqa: E402

t = Tap()
TOOL = os.path.join(SRCDIR, "scripts", "list-gpu-code")
nvcc = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc" if os.access("/usr/local/cuda/bin/nvcc", os.X_OK) else None)
work = t.tmpdir("gpucode")
src = os.path.join(work, "k.cu")
with open(src, "w") as f:
    f.write('__global__ void k(float *x) { x[threadIdx.x] *= 2.0f; }\n'
            'extern "C" void run(float *x) { k<<<1, 32>>>(x); }\n')
lib = os.path.join(work, "libk.so")
built = nvcc and subprocess.run([nvcc, "-shared", "-Xcompiler", "-fPIC", "-gencode", "arch=compute_75,code=sm_75",
                                 "-gencode", "arch=compute_90,code=sm_90", "-gencode", "arch=compute_80,code=compute_80",
                                 src, "-o", lib], capture_output=True, text=True)
if not built or built.returncode != 0:
    t.skip("list-gpu-code on an nvcc-built library", "no nvcc here" if not nvcc else "nvcc failed: " + built.stderr[-300:])
else:
    r = subprocess.run([sys.executable, TOOL, lib], capture_output=True, text=True)
    entries = dict(e.split(":") for e in r.stdout.split()[1:]) if r.returncode == 0 else {}
    t.eq(sorted(entries), ["compute_80", "sm_75", "sm_90"], "SASS sm_75 and sm_90, PTX compute_80: what nvcc was asked for",
         r.stdout + r.stderr)
plain = os.path.join(work, "plain.so")
shutil.copy(sys.executable, plain)
r = subprocess.run([sys.executable, TOOL, plain], capture_output=True, text=True)
t.ok(r.returncode == 0 and "no GPU code" in r.stdout, "a binary without a .nv_fatbin section: no GPU code", r.stdout + r.stderr)
t.done()
