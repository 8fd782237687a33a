#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The wizard with --toolkit wheels (issue 50): Validation and the rerun's menu check, repair and remove the environment
that holds the toolkit, as `cudaup verify`, `repair` and `uninstall env` do, never a CUDA folder that was not made.

Headless (CUDAUP_TUI_HEADLESS) with key scripts, on an RTX 5090 with driver 580 (CUDA 13.0); the answers come from the
flags (pytorch 2.14, --toolkit wheels, a venv of Python 3.11), the wheels from a local index (file://) of stand-in torch
and compiler wheels laid out as the real ones (tests/fixtures/mkcompiler.py: its nvcc fails where a part is missing), as
test_toolkit_maint's.  Every pip call names that index (hermetic)."""
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "integration"))
from cutest import SRCDIR, Tap, gpu_doubles, run  # noqa: E402

sys.path.insert(0, os.path.join(SRCDIR, "tests", "fixtures"))
import machines  # noqa: E402
import mkcompiler  # noqa: E402
import mkindex  # noqa: E402
import mkmirror  # noqa: E402
import mkwheels  # noqa: E402

t = Tap()
PY = shutil.which("python3.11", path="/usr/bin:/bin") or shutil.which("python3.11")
if not PY:
    t.skip("the wizard's install into a venv", "no python3.11 on this machine")
    t.done()
DIR = t.tmpdir("tuitk")
RTX5090 = ("0000:01:00.0", "2b85", "0x030000", "nvidia", "12.0", 32607, "NVIDIA GeForce RTX 5090")
ROOT = os.path.join(DIR, "r13")
machines.build_spec({"os": "ubuntu", "driver": "580.95.05", "cuda": 13000, "libs": True, "gpus": [RTX5090]}, ROOT)
M13 = os.path.join(DIR, "m13")
mkmirror.build(M13, cuda="13.0.2", cudnn="9.13.0", replace=gpu_doubles())
HOME = os.path.join(DIR, "home")
os.makedirs(HOME)
ENV = os.path.join(HOME, "data", "cudaup", "envs", "cudaup-pytorch")
PREFIX, STATE, CACHE = (os.path.join(DIR, n) for n in ("prefix", "state", "cache"))
WHERE = ["--root", ROOT, "--mirror", "file://" + M13, "--prefix", PREFIX, "--state-dir", STATE, "--cache-dir", CACHE]
ENVIRON = {"FAKE_NVIDIA_CONFIG": os.path.join(ROOT, "fake-nvidia.conf"), "HOME": HOME,
           "XDG_DATA_HOME": os.path.join(HOME, "data")}
FW = ["--framework", "pytorch==2.14", "--toolkit", "wheels"]
INST = ["--python", "3.11", "--env-tool", "venv", "--env-scope", "none"]
SIZE = (120, 40)  # every check on one screen

# The plan's compiler pins, and stand-ins of them and of torch 2.14.1 (cu130) in a local index.
r = run(["plan", "--json", "--offline", *FW, *WHERE, *INST], env=ENVIRON)
pins = dict(p.split("==") for p in ((r.json() or {}).get("framework") or {}).get("pip", []) if p.startswith("nvidia-"))
t.ok(r.rc == 0 and "nvidia-cuda-nvcc" in pins, "plan --toolkit wheels: the compiler wheels", (r.rc, pins, r.err[-300:]))
WH = os.path.join(DIR, "wh")
os.makedirs(WH)
w = [mkwheels.wheel(WH, "torch", "2.14.1", arch=["sm_120"], cuda="13.0"),
     mkwheels.wheel(WH, "torchvision", "0.29.2", requires=["torch>=2.14.0"])] + mkcompiler.wheels(WH, pins)
IDX = "file://" + mkindex.index_dir(os.path.join(DIR, "index"), w) + "/simple/"
NVCC = os.path.join(ENV, "lib", "python3.11", "site-packages", "nvidia", "cu13", "bin", "nvcc")

n = 0


def wizard(keys, *args, timeout=900, where=None):
    """Run the wizard with KEYS (script lines; 'DUMP name' takes a screen dump). Returns (result, dumps)."""
    global n
    n += 1
    script, dumps = os.path.join(DIR, "keys%d" % n), {}
    with open(script, "w") as f:
        for k in keys:
            f.write("dump %s\n" % os.path.join(DIR, "%d-%s.txt" % (n, k[5:])) if k.startswith("DUMP ") else k + "\n")
    e = dict(ENVIRON, CUDAUP_TUI_HEADLESS="1", COLUMNS=str(SIZE[0]), LINES=str(SIZE[1]), TERM="xterm-256color",
             SHELL="/bin/bash", CUDAUP_PROFILE_D=os.path.join(DIR, "profile.d"))
    r = run(["--keys-script", script, *(where or WHERE), *args], env=e, timeout=timeout)
    for k in keys:
        if k.startswith("DUMP "):
            p = os.path.join(DIR, "%d-%s.txt" % (n, k[5:]))
            dumps[k[5:]] = open(p, encoding="utf-8").read() if os.path.exists(p) else ""
    return r, dumps


def checks(dump):
    """The Validation screen's rows: {check name: 'pass'|'fail'|'skip'}."""
    out = {}
    for row in dump.split("\n"):
        words = row.replace("│", " ").split()
        if len(words) >= 3 and words[0] in ("✓", "✗", "-", "·", "○") and words[1] in ("pass", "fail", "skip"):
            out[words[2]] = words[1]
    return out


def flat(dump):
    return " ".join(x.replace("│", " ").strip() for x in dump.split("\n") if x.strip())


def verify_cli(where=None):
    r = run(["verify", "--json", *(where or WHERE)], env=ENVIRON, timeout=600)
    return {c["name"]: c["status"] for c in (r.json() or {}).get("checks", [])}


# ---- a first install: Validation checks the environment that holds the toolkit --------------------------------------
r, d = wizard(["DUMP welcome", "enter", "enter", "enter", "enter", "DUMP components", "enter", "enter", "enter",
               "DUMP review", "enter", "DUMP validation", "down", "down", "DUMP toolkit-row", "enter", "DUMP done", "enter"],
              *FW, "--index-url", IDX, *INST)
v = d.get("validation", "")
got = checks(v)
t.ok(os.access(NVCC, os.X_OK) and not os.path.exists(os.path.join(PREFIX, "cuda-13.0")),
     "the wizard installs pytorch with --toolkit wheels: nvcc in the environment, no CUDA folder", (r.rc, r.err[-1500:], d.get("review")))
t.ok(got.get("toolkit") == "pass" and "sm_120" in flat(d.get("toolkit-row", "")),
     "Validation: the toolkit check passes (the environment's nvcc compiles a kernel for the RTX 5090)", d.get("toolkit-row"))
t.ok("cuda-13.0" not in v and "files" not in got and "There is no CUDA" not in v and
     "cudaup-pytorch and the CUDA toolkit of its compiler wheels (Toolkit: wheels)" in v.split("\n")[2],
     "Validation: it checks the environment and its compiler wheels, never the CUDA folder that was not made", v)
cli = verify_cli()
t.eq(got, cli, "Validation shows the checks `cudaup verify` runs, with the same outcomes")
t.eq(r.rc, 4 if "fail" in cli.values() else 0, "the wizard's exit follows the checks")
t.ok("No CUDA folder was installed (Toolkit: wheels)" in flat(d.get("done", "")), "Done: no CUDA folder, the toolkit of the wheels",
     d.get("done"))

# ---- the rerun: the menu knows the environment ----------------------------------------------------------------------
r, d = wizard(["DUMP welcome", "enter", "DUMP menu", "?", "DUMP help", "x", "enter", "DUMP verify", "enter", "DUMP done",
               "enter"])
menu = d.get("menu", "")
t.ok("a Python environment that holds its own" in flat(d.get("help", "")) and
     "cudaup found a CUDA toolkit it installed" not in flat(d.get("help", "")),
     "rerun menu, ?: the help speaks of the environment with its own toolkit too, not of a CUDA toolkit alone",
     d.get("help"))
t.ok(ENV in flat(d.get("welcome", "")).replace(" ", "") or ENV in d.get("welcome", "").replace("\n", ""),
     "rerun: Welcome names the environment that holds its own toolkit", d.get("welcome"))
t.ok("Toolkit: wheels" in flat(menu) and "Verify: check that it works (recommended)" in menu and
     "Uninstall the Python environment" in menu and "Add components" not in menu and "Uninstall CUDA" not in menu,
     "rerun menu: the environment (Toolkit: wheels), Verify recommended, its uninstall; no CUDA folder to add to", menu)
t.ok(checks(d.get("verify", "")).get("toolkit") == "pass" and "cuda-13.0" not in d.get("verify", ""),
     "rerun menu, Verify: the toolkit check passes", d.get("verify"))
t.ok(("The Python environment %s holds its own CUDA toolkit (Toolkit: wheels). Next:" % ENV) in r.out and "CUDA is installed" not in r.out,
     "rerun, after Verify: the text left on leaving names the environment, not a CUDA install", r.out)

# ---- repair from the menu: nvcc deleted comes back --------------------------------------------------------------------
os.unlink(NVCC)
r, d = wizard(["enter", "DUMP menu", "enter", "DUMP validation", "enter", "enter"])
menu = d.get("menu", "")
t.ok("nvcc of its compiler wheels is missing" in flat(menu) and "(recommended)" in menu and
     "Repair: restore what the environment and its toolkit are missing (recommended)" in flat(menu),
     "rerun menu, nvcc deleted: says so, Repair recommended", menu)
t.ok(os.access(NVCC, os.X_OK) and checks(d.get("validation", "")).get("toolkit") == "pass",
     "rerun menu, Repair: pip puts nvcc back, and Validation's toolkit check passes", (r.rc, r.err[-800:], d.get("validation")))

# Validation after a failed check offers r, which repairs the environment's compiler wheels.
if os.path.exists(NVCC):  # (the old code never put it back)
    os.unlink(NVCC)
r, d = wizard(["enter", "home", "enter", "DUMP verify", "r", "DUMP after", "enter", "enter"])
t.ok(checks(d.get("verify", "")).get("toolkit") == "fail" and "r: repair" in d.get("verify", "") and
     "repair the environment and its compiler wheels" in flat(d.get("verify", "")),
     "Validation, nvcc deleted: the toolkit check fails, r offered", d.get("verify"))
t.ok(os.access(NVCC, os.X_OK) and checks(d.get("after", "")).get("toolkit") == "pass",
     "r repairs the compiler wheels and checks again", d.get("after"))

# ---- uninstall from the menu: `uninstall env` ------------------------------------------------------------------------
r, d = wizard(["enter", "end", "up", "DUMP sel", "enter", "DUMP ask", "y", "DUMP done", "enter"])
t.ok("Remove the Python environment" in flat(d.get("ask", "")) and "compiler wheels" in flat(d.get("ask", "")),
     "uninstall asks first, naming the environment and its compiler wheels", d.get("ask"))
t.ok(r.rc == 0 and not os.path.exists(ENV) and not os.path.exists(os.path.join(STATE, "pyenv.json")),
     "uninstall from the menu removes the environment with its toolkit, as `uninstall env` does", (r.rc, d.get("done")))
t.ok("was removed" in flat(d.get("done", "")) and "CUDA  was removed" not in flat(d.get("done", "")),
     "Done says the environment was removed", d.get("done"))

# ---- --toolkit none: the rerun's menu and Validation ask for no toolkit ------------------------------------------------
WN = ["--root", ROOT, "--mirror", "file://" + M13] + sum((["--" + k, os.path.join(DIR, "n", k)] for k in ("prefix", "state-dir",
                                                                                                       "cache-dir")), [])
r = run(["install", "--yes", "--framework", "pytorch==2.14", "--toolkit", "none", "--index-url", IDX, *WN, *INST, "--env-dir",
         os.path.join(DIR, "n", "envs")], env=ENVIRON, timeout=900)
t.ok(r.rc == 0, "install --toolkit none", r.err[-800:])
r, d = wizard(["enter", "DUMP menu", "enter", "DUMP verify", "enter", "enter"], where=WN)
got = checks(d.get("verify", ""))
t.ok("Toolkit: none" in flat(d.get("menu", "")) and "holds no CUDA toolkit" in flat(d.get("menu", "")),
     "rerun menu (--toolkit none): the environment, with no CUDA toolkit", d.get("menu"))
t.ok("(Toolkit: none: no CUDA toolkit)" in d.get("verify", "").split("\n")[2] and got.get("toolkit") == "skip" and
     "files" not in got and got == verify_cli(WN), "Validation (--toolkit none): no toolkit asked for, the checks of `cudaup verify`",
     d.get("verify"))
t.done()
