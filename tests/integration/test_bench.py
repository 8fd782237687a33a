#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The benchmark scripts still run (issue 33 item 18): a short run of each, on a small synthetic mirror and a
fixture machine, with no verdict on the times.  scripts/bench-install once failed unseen: its machine had a
kernel module and no libcuda, which plan rightly refuses (exit 3)."""
import os
import re
import shutil
import subprocess

from cutest import BIN, SRCDIR, Tap

t = Tap()
# What the benchmark's other methods run (scripts/bootstrap --test installs them).
tools = {"curl": shutil.which("curl"), "xz": shutil.which("xz"), "sha256sum": shutil.which("sha256sum"),
         "tar": shutil.which("tar"), "xargs": shutil.which("xargs"), "bash": shutil.which("bash"),
         "GNU time": "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None}
missing = sorted(k for k, v in tools.items() if not v)
if missing:
    t.skip("scripts/bench-install --smoke", "%s not installed (scripts/bootstrap --test installs them)" % ", ".join(missing))
    t.done()
env = dict(os.environ, PATH="/usr/bin:/bin", LANG="C.UTF-8")
for k in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
    env.pop(k, None)
p = subprocess.run([os.path.join(SRCDIR, "scripts", "bench-install"), "--smoke", "--bin", BIN], env=env,
                   capture_output=True, text=True, timeout=600)
t.ok(p.returncode == 0 and "smoke run: every method ran once" in p.stdout,
     "scripts/bench-install --smoke: every method runs (exit 0)", (p.returncode, p.stdout[-1500:], p.stderr[-1500:]))
rows = [ln.split()[0] for ln in p.stdout.splitlines() if ln.split() and ln.split()[0] in ("serial", "parallel", "cudaup", "limit")]
t.eq(rows, ["serial", "parallel", "cudaup", "limit"], "with a row for each method and the limit", p.stdout[-1500:])
# cudaup's own peak memory beside its tree's largest process (issue 49 item 22: the checks' compilers and libraries,
# in processes of their own, were read as the installer's peak).
row = [ln.split() for ln in p.stdout.splitlines() if ln.startswith("cudaup install")]
t.ok(row and re.match(r"^\d+\.\d$", row[0][-1]) and float(row[0][-1]) < 100 and "own MiB" in p.stdout,
     "the cudaup row has its own peak (under 100 MiB) in the own MiB column", p.stdout[-1500:])
t.done()
