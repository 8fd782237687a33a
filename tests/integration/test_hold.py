#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The environment cudaup makes holds pip on the build planned for the machine's GPUs (issue 45 item 2).

A GTX 1080 (6.1) on driver 580: PyTorch 2.15 has no code for it, and PyPI's torch 2.14.1 is the cu130 build, with
none either (pytorch_gpu_code.csv, framework_wheel_requires.csv).  A local index laid out like PyTorch's holds the
cu126 build of 2.14.1 (a local version, +cu126) beside the PyPI-style 2.14.1 and 2.15.0, each a stand-in whose GPU
code is the data's row.  cudaup installs 2.14.1+cu126 into a real venv with real pip; then, as a user would:
`pip install -U torch` (with and without the activation), another package, a torch 2.15 asked for by name -- the
build stays.  The same pip without the hold (emptied, or an upper bound alone) takes a build with no sm_61 code: the
checks can fail.  `cudaup repair` puts a damaged hold back and the held build with it; `cudaup install
--framework pytorch==2.13` moves it.  Every pip call names its own index (hermetic)."""
import glob
import json
import os
import shutil
import subprocess
import sys

import cutest
from cutest import SRCDIR, Tap, base_env, gpu_doubles


def run(args, *a, **kw):
    """cutest.run with --toolkit system on plan, install and mirror: this file is about the
    hold on the environment's build, installed from a local index of its own; the toolkit's default (the compiler
    wheels for frameworks that bring their own CUDA) is test_toolkit's."""
    if args and args[0] in ("plan", "install", "mirror"):
        args = [args[0], "--toolkit", "system"] + list(args[1:])
    return cutest.run(args, *a, **kw)


sys.path.insert(0, os.path.join(SRCDIR, "tests", "fixtures"))
import machines  # noqa: E402
import mkindex  # noqa: E402
import mkmirror  # noqa: E402
import mkwheels  # noqa: E402

t = Tap()
PY = shutil.which("python3.11", path="/usr/bin:/bin") or shutil.which("python3.11")
if not PY:
    t.skip("the hold of a Python environment", "no python3.11 on this machine")
    t.done()
with open(os.path.join(SRCDIR, "data", "catalog.json")) as f:
    CAT = json.load(f)


def code_row(torch, tag):
    """The catalog's GPU code of PyTorch @torch (a minor) built as @tag, as an arch list (pytorch_gpu_code.csv)."""
    e = next(e for e in CAT["gpu_code"]["pytorch"] if e["torch"] == torch and e["tag"] == tag)
    return ["sm_%d" % s for s in e["sass"]] + ["compute_%d" % p for p in e["ptx"]]


def pypi_row(version):
    """PyPI's wheel of torch @version (framework_wheel_requires.csv): its build tag and its cuDNN pin."""
    e = next(e for e in CAT["framework_wheels"] if e["framework"] == "pytorch" and e["version"] == version)
    return e["tag"], e["build_cuda"], next(s for p, s in e["requires"] if p == "nvidia-cudnn-cu13")


def cudnn_of(minor, tag):
    """The cuDNN of PyTorch @minor's @tag build (pytorch_releases.csv)."""
    t_ = next(x for x in CAT["pytorch"] if x["minor"] == minor)
    return next(b["cudnn"] for b in t_["builds"] if b["tag"] == tag)


def runs_on(arch, cc="6.1"):
    """NVIDIA's rule (framework_driver_rules.md): SASS of the GPU's major at an equal or lower minor, or PTX at or
    below it."""
    g = int(cc.replace(".", ""))
    return any((a.startswith("sm_") and int(a[3:]) // 10 == g // 10 and int(a[3:]) <= g) or
               (a.startswith("compute_") and int(a[8:]) <= g) for a in arch)


# ---- the machine, NVIDIA's mirror and an index laid out like PyTorch's --------------------------------------------
DIR = t.tmpdir("hold")
ROOT = os.path.join(DIR, "root")
machines.build_spec({"os": "ubuntu", "driver": "580.95.05", "cuda": 13000, "libs": True,
                     "gpus": [("0000:01:00.0", "1b80", "0x030000", "nvidia", "6.1", 8192, "NVIDIA GeForce GTX 1080")]},
                    ROOT)
# The driver's branch held as cudaup holds it (driver_packages.csv, Ubuntu: apt preferences), so that repair has only
# the environment to see to.
os.makedirs(os.path.join(ROOT, "etc", "apt", "preferences.d"))
with open(os.path.join(ROOT, "etc", "apt", "preferences.d", "cudaup-nvidia-driver"), "w") as f:
    f.write("Package: *nvidia*\nPin: version 580.*\nPin-Priority: 1001\n")
MIRROR = os.path.join(DIR, "mirror")
mkmirror.build(MIRROR, replace=gpu_doubles())
WH = os.path.join(DIR, "wheels")
os.makedirs(WH)
CU126 = code_row("2.14", "cu126")
CU126_13 = code_row("2.13", "cu126")
tag141, cuda141, cudnn141 = pypi_row("2.14.1")  # cu130, 13.0, ==9.24.0.43
tag150, cuda150, cudnn150 = pypi_row("2.15.0")  # cu132, 13.2, ==9.26.0.51
A141, A150 = code_row("2.14", tag141), code_row("2.15", tag150)
t.ok(runs_on(CU126) and not runs_on(A141) and not runs_on(A150),
     "the data: 2.14's cu126 build runs on 6.1, PyPI's %s 2.14.1 and %s 2.15.0 do not [pytorch_gpu_code.csv]"
     % (tag141, tag150), (CU126, A141, A150))
cudnn126 = cudnn_of("2.14", "cu126")  # 9.10.2.21
wheels = [
    mkwheels.wheel(WH, "torch", "2.14.1+cu126", arch=CU126, cuda="12.6", cudnn=cudnn126,
                   requires=["nvidia-cudnn-cu12==%s" % cudnn126]),
    mkwheels.wheel(WH, "torch", "2.14.1", arch=A141, cuda=cuda141, cudnn=cudnn141[2:],
                   requires=["nvidia-cudnn-cu13" + cudnn141]),
    mkwheels.wheel(WH, "torch", "2.15.0", arch=A150, cuda=cuda150, cudnn=cudnn150[2:],
                   requires=["nvidia-cudnn-cu13" + cudnn150]),
    mkwheels.wheel(WH, "torch", "2.13.0+cu126", arch=CU126_13, cuda="12.6", cudnn=cudnn_of("2.13", "cu126"),
                   requires=["nvidia-cudnn-cu12==%s" % cudnn_of("2.13", "cu126")]),
    # torchvision as pytorch_companions.csv has it: 0.29.2 asks torch>=2.14.0, 0.28.0 pins torch==2.13.0.
    mkwheels.wheel(WH, "torchvision", "0.29.2+cu126", requires=["torch>=2.14.0"]),
    mkwheels.wheel(WH, "torchvision", "0.29.2", requires=["torch>=2.14.0"]),
    mkwheels.wheel(WH, "torchvision", "0.28.0+cu126", requires=["torch==2.13.0"]),
    # cuDNN 9.17 for CUDA 12 no longer lists 6.1 (cudnn_support_matrix.csv): a newer wheel pip would take if let.
    mkwheels.wheel(WH, "nvidia-cudnn-cu12", "9.17.0.29"),
    mkwheels.wheel(WH, "requests", "2.32.0"),
]
for v in sorted({cudnn126, cudnn_of("2.13", "cu126")}):
    wheels.append(mkwheels.wheel(WH, "nvidia-cudnn-cu12", v))
for v in sorted({cudnn141[2:], cudnn150[2:]}):
    wheels.append(mkwheels.wheel(WH, "nvidia-cudnn-cu13", v))
INDEX = "file://" + mkindex.index_dir(os.path.join(DIR, "index"), wheels) + "/simple/"
# PyPI as pip sees it by default: no local versions, so its 2.14.1 is another build (the catalog's tag141).
PYPI = "file://" + mkindex.index_dir(os.path.join(DIR, "pypi"), [w for w in wheels if "+cu" not in w]) + "/simple/"

HOME = os.path.join(DIR, "home")
os.makedirs(HOME)
PREFIX, STATE, CACHE = (os.path.join(DIR, n) for n in ("p", "s", "c"))
ENV = os.path.join(HOME, "data", "cudaup", "envs", "cudaup-pytorch")
MENV = base_env({"FAKE_NVIDIA_CONFIG": os.path.join(ROOT, "fake-nvidia.conf"), "HOME": HOME,
                 "XDG_DATA_HOME": os.path.join(HOME, "data")})
ARGS = ["--root", ROOT, "--mirror", "file://" + MIRROR, "--prefix", PREFIX, "--state-dir", STATE, "--cache-dir", CACHE,
        "--python", "3.11", "--env-tool", "venv", "--env-scope", "none", "--index-url", INDEX]


def cudaup(*args, timeout=600):
    return run(list(args), env=MENV, timeout=timeout)


def pip(*args, activate=False, pre=""):
    """The user's pip in the environment: ENV/bin/pip (pip.conf alone), or after `. ENV/bin/activate`."""
    env = {"PATH": "/usr/bin:/bin", "HOME": HOME, "https_proxy": "http://127.0.0.1:9", "PIP_DISABLE_PIP_VERSION_CHECK": "1",
           "FAKE_NVIDIA_CONFIG": MENV["FAKE_NVIDIA_CONFIG"]}
    q = " ".join("'%s'" % a for a in args)
    script = "%s. '%s/bin/activate'; pip %s; rc=$?; echo \"PIP_CONSTRAINT=${PIP_CONSTRAINT-}\"; exit $rc" % (pre, ENV, q) \
        if activate else "'%s/bin/python' -m pip %s" % (ENV, q)
    return subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True, timeout=300)


def torch_now():
    """torch's version and the GPU code of the build installed (the stand-in's arch list), read in the venv."""
    p = subprocess.run([os.path.join(ENV, "bin", "python"), "-c",
                        "import torch, torch.version as v; print(v.__version__); print(' '.join(torch.cuda.get_arch_list()))"],
                       capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"})
    lines = p.stdout.split("\n")
    return (lines[0], lines[1].split()) if p.returncode == 0 and len(lines) > 1 else (None, [])


def text(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


def hold_text():
    return text(os.path.join(ENV, "cudaup-constraints.txt"))


def held(name):
    return [l for l in hold_text().splitlines() if l.startswith(name + "==")]


# ---- the plan says it ---------------------------------------------------------------------------------------------
r = cudaup("plan", "--json", "--framework", "pytorch", *ARGS)
d = r.json() or {}
h = (d.get("environment") or {}).get("hold") or {}
t.ok(r.rc == 0 and h.get("file") == os.path.join(ENV, "cudaup-constraints.txt") and
     h.get("pip_conf") == os.path.join(ENV, "pip.conf") and h.get("packages") == ["torch", "torchvision"] and
     h.get("index_url") == INDEX, "plan --json: environment.hold names the file, pip.conf, what it holds and the index", h)
t.eq((d.get("environments") or [{}])[0].get("hold"), h, "environments[0].hold is the same")
steps = [s for s in d.get("steps", []) if s["installer"] == "framework" and s["action"] == "hold"]
t.ok(len(steps) == 1 and "torch and torchvision" in steps[0]["detail"] and "PIP_CONSTRAINT" in steps[0]["detail"],
     "a framework step 'hold' says what is held and where", d.get("steps"))
reasons = d.get("reasons", [])
t.ok(any(x.startswith("PyTorch 2.15, the newest, has no code for GPU 0 (GeForce GTX 1080)") and "pip install -U torch" in x
         for x in reasons), "the reason: PyTorch 2.15 has no code for the GTX 1080, so pip is held", reasons)
t.ok(any(x.startswith("PyPI's torch 2.14.1 is another build of the same release (%s" % tag141) for x in reasons),
     "the reason an upper bound would not do: PyPI's 2.14.1 is the %s build [framework_wheel_requires.csv]" % tag141, reasons)
t.ok(any("is past the cliff of its generation" in x and "PyTorch 2.14 (cu126" in x and "driver branch 580" in x
         for x in reasons), "the GPU's cliff is a reason of its own [core/catalog/cliff.c]", reasons)

# ---- install: the hold is written, in pip.conf, the hold file, the activation and the record ----------------------
r = cudaup("install", "--yes", "--json", "--framework", "pytorch", *ARGS)
t.eq(r.rc, 0, "install PyTorch for the GTX 1080 from the local index", r)
ver, arch = torch_now()
t.ok(ver == "2.14.1+cu126" and runs_on(arch), "pip installed the cu126 build, with sm_60 code for 6.1", (ver, arch))
t.ok(held("torch") == ["torch==2.14.1+cu126"] and held("torchvision") == ["torchvision==0.29.2+cu126"] and
     held("nvidia-cudnn-cu12") == ["nvidia-cudnn-cu12==%s" % cudnn126],
     "the hold file names the exact builds, local versions included, and the cuDNN wheel", hold_text())
conf = text(os.path.join(ENV, "pip.conf"))
t.ok("index-url = %s" % INDEX in conf and "constraint = %s/cudaup-constraints.txt" % ENV in conf,
     "ENV/pip.conf names the index and the hold file", conf)
rec = json.loads(text(os.path.join(STATE, "pyenv.json")) or "{}")
t.ok((rec.get("hold") or {}).get("packages", {}).get("torch") == "2.14.1+cu126" and rec["hold"]["text"] == hold_text(),
     "STATE/pyenv.json records the hold (what repair puts back)", rec.get("hold"))

# ---- a user's pip --------------------------------------------------------------------------------------------------
p = pip("config", "list")
t.ok("global.index-url='%s'" % INDEX in p.stdout and "global.constraint='%s/cudaup-constraints.txt'" % ENV in p.stdout,
     "the environment's own pip reads them (pip config list)", p.stdout + p.stderr)
# Each pip below names the index that holds every build, as a user's pip.conf pointing at PyTorch's index would.
p = pip("install", "-U", "--index-url", INDEX, "torch")
t.ok(p.returncode == 0 and torch_now()[0] == "2.14.1+cu126",
     "ENV/bin/pip install -U torch (no activation): pip.conf holds it at 2.14.1+cu126", p.stdout[-800:] + p.stderr[-800:])
p = pip("install", "-U", "--index-url", INDEX, "torch", "torchvision", "nvidia-cudnn-cu12", activate=True, pre="PIP_CONSTRAINT=/dev/null; export PIP_CONSTRAINT; ")
ver, arch = torch_now()
t.ok(p.returncode == 0 and ver == "2.14.1+cu126" and runs_on(arch) and
     "PIP_CONSTRAINT=/dev/null %s/cudaup-constraints.txt" % ENV in p.stdout,
     "activated (after a PIP_CONSTRAINT of the user's): pip install -U torch torchvision nvidia-cudnn-cu12 stays",
     p.stdout[-800:] + p.stderr[-800:])
p = pip("install", "--index-url", INDEX, "requests", activate=True)
t.ok(p.returncode == 0 and "Successfully installed requests" in p.stdout and torch_now()[0] == "2.14.1+cu126",
     "another package installs, and torch stays", p.stdout[-600:] + p.stderr[-600:])
p = pip("install", "--index-url", INDEX, "torch==2.15.0", activate=True)
t.ok(p.returncode != 0 and torch_now()[0] == "2.14.1+cu126",
     "torch==2.15.0 asked for by name: pip refuses it (the hold), torch stays", p.stdout[-600:] + p.stderr[-600:])
act = subprocess.run(["bash", "-c", "PIP_CONSTRAINT=/u.txt; export PIP_CONSTRAINT; . '%s/bin/activate'; "
                      "printf '%%s|' \"$PIP_CONSTRAINT\"; deactivate; printf '%%s' \"$PIP_CONSTRAINT\"" % ENV],
                     capture_output=True, text=True, env={"PATH": "/usr/bin:/bin", "HOME": HOME})
t.eq(act.stdout, "/u.txt %s/cudaup-constraints.txt|/u.txt" % ENV, "deactivate puts the user's PIP_CONSTRAINT back")
p = pip("install", "-U", "--index-url", PYPI, "torch", activate=True)
t.ok(p.returncode == 0 and torch_now()[0] == "2.14.1+cu126",
     "pip pointed at PyPI (its 2.14.1 and 2.15.0, no +cu126): install -U torch stays", p.stdout[-600:] + p.stderr[-600:])
p = pip("install", "--force-reinstall", "--index-url", PYPI, "torch", activate=True)
t.ok(p.returncode != 0 and torch_now()[0] == "2.14.1+cu126",
     "torch installed afresh from PyPI: pip finds no build the hold admits and changes nothing",
     p.stdout[-600:] + p.stderr[-600:])

r = cudaup("list", "--json", "--root", ROOT, "--mirror", "file://" + MIRROR, "--prefix", PREFIX, "--state-dir", STATE)
envs = (r.json() or {}).get("environments") or [{}]
t.ok((envs[0].get("hold") or {}).get("packages", {}).get("torch") == "2.14.1+cu126",
     "list --json: the environment's hold, with what it holds", envs)
r = cudaup("list", "--root", ROOT, "--mirror", "file://" + MIRROR, "--prefix", PREFIX, "--state-dir", STATE)
t.ok("pip held at torch 2.14.1+cu126, torchvision 0.29.2+cu126" in " ".join(r.out.split()), "list says it", r)

# ---- without the hold, the same pip leaves the GPU behind (the checks above can fail) -----------------------------
saved = hold_text()
with open(os.path.join(ENV, "cudaup-constraints.txt"), "w") as f:
    f.write("")  # lifted by hand, as the Done text says
ub = os.path.join(DIR, "upper.txt")
with open(ub, "w") as f:
    f.write("torch<2.15\n")
p = pip("install", "--force-reinstall", "--index-url", PYPI, "-c", ub, "torch")
ver, arch = torch_now()
t.ok(p.returncode == 0 and ver == "2.14.1" and not runs_on(arch),
     "an upper bound alone (torch<2.15), torch installed afresh from PyPI: pip takes its 2.14.1, the %s build, with no "
     "code for 6.1" % tag141, (ver, arch))
p = pip("install", "-U", "--index-url", INDEX, "torch")
ver, arch = torch_now()
t.ok(p.returncode == 0 and ver == "2.15.0" and not runs_on(arch),
     "the hold emptied: pip install -U torch takes 2.15.0, with no code for 6.1", (ver, arch))

# ---- repair puts the hold back, and the held build with it --------------------------------------------------------
if os.path.exists(os.path.join(ENV, "pip.conf")):
    os.unlink(os.path.join(ENV, "pip.conf"))
a = text(os.path.join(ENV, "bin", "activate"))
with open(os.path.join(ENV, "bin", "activate"), "w") as f:
    f.write(a.replace("_CUDAUP_HOLD=1", "_CUDAUP_GONE=1"))
r = cudaup("repair", "--yes", "--json", "--root", ROOT, "--prefix", PREFIX, "--state-dir", STATE, "--cache-dir", CACHE,
           "--mirror", "file://" + MIRROR)
ver, arch = torch_now()
t.ok(r.rc == 0 and hold_text() == saved and saved and text(os.path.join(ENV, "pip.conf")) == conf and
     "_CUDAUP_HOLD=1" in text(os.path.join(ENV, "bin", "activate")),
     "cudaup repair puts the hold file, pip.conf and the activation back", r)
t.ok(ver == "2.14.1+cu126" and runs_on(arch), "and brings the held build back (2.14.1+cu126, sm_60)", (ver, r))
# The unheld pip took torch 2.15 with nvidia-cudnn-cu13; the real cuDNN wheels of two CUDA families write the same files
# (issue 47), so the stray one goes and the held one is put back over them.
cudnn = sorted(os.path.basename(x).split("-")[0] for x in glob.glob(os.path.join(ENV, "lib", "python3*", "site-packages",
                                                                                    "nvidia_cudnn_cu1*.dist-info")))
t.ok(cudnn == ["nvidia_cudnn_cu12"] and held("nvidia-cudnn-cu12") and "nvidia-cudnn-cu13" in r.err + r.out,
     "repair removes the cuDNN wheel of another CUDA family the unheld pip left (nvidia-cudnn-cu13), keeping the held one",
     (cudnn, r.err[-800:]))
t.ok(any(s.get("installer") == "pyenv" and s.get("action") == "hold" and s.get("changed") for s in
         (r.json() or {}).get("steps", [])), "repair's steps name what it did (pyenv hold)", r.json())
p = pip("install", "-U", "--index-url", INDEX, "torch")
t.ok(torch_now()[0] == "2.14.1+cu126", "after repair, pip install -U torch stays again", p.stdout[-400:])
r = cudaup("repair", "--yes", "--json", "--root", ROOT, "--prefix", PREFIX, "--state-dir", STATE, "--cache-dir", CACHE,
           "--mirror", "file://" + MIRROR)
t.ok(r.rc == 0 and not any(s.get("action") == "hold" for s in (r.json() or {}).get("steps", [])),
     "a second repair finds the hold whole and changes nothing of it", r.json())

# ---- cudaup install --framework pytorch==2.13 plans another build and moves the hold -----------------------------
r = cudaup("install", "--yes", "--json", "--framework", "pytorch==2.13", *ARGS)
ver, arch = torch_now()
t.ok(r.rc == 0 and ver == "2.13.0+cu126" and runs_on(arch), "install --framework pytorch==2.13: the hold is lifted for "
     "it, and pip takes 2.13.0+cu126", (ver, r))
t.ok(held("torch") == ["torch==2.13.0+cu126"] and held("torchvision") == ["torchvision==0.28.0+cu126"],
     "the hold now names 2.13.0+cu126 and its torchvision", hold_text())
p = pip("install", "-U", "--index-url", INDEX, "torch")
t.eq(torch_now()[0], "2.13.0+cu126", "pip install -U torch stays on it")
# The Done text says where the hold is, what moves it and how to lift it by hand.
r = cudaup("install", "--yes", "--framework", "pytorch==2.13", *ARGS)
t.ok(r.rc == 0 and "%s/cudaup-constraints.txt holds torch and torchvision" % ENV in " ".join(r.out.split()) and
     "to lift it by hand, empty that file" in " ".join(r.out.split()),
     "install's closing text names the hold file and how to lift it by hand", r)

# ---- the wizard: Review shows the hold step, Done says where the hold is and how to lift it ---------------------------
W = os.path.join(DIR, "wizard")
os.makedirs(os.path.join(W, "home"))
keys = os.path.join(W, "keys")
with open(keys, "w") as f:
    f.write("enter\n" * 7 + "end\ndump %s/review.txt\nenter\nenter\nend\ndump %s/done.txt\nenter\n" % (W, W))
WENV = os.path.join(W, "home", "data", "cudaup", "envs", "cudaup-pytorch")
r = run(["--keys-script", keys, "--root", ROOT, "--mirror", "file://" + MIRROR, "--prefix", os.path.join(W, "p"),
         "--state-dir", os.path.join(W, "s"), "--cache-dir", CACHE, "--framework", "pytorch", "--index-url", INDEX,
         "--env-tool", "venv", "--python", "3.11", "--env-scope", "none", "--toolkit", "system"],
        env=dict(MENV, HOME=os.path.join(W, "home"), XDG_DATA_HOME=os.path.join(W, "home", "data"), CUDAUP_TUI_HEADLESS="1",
                 COLUMNS="80", LINES="24", TERM="xterm-256color", SHELL="/bin/bash"), timeout=600)
review = " ".join(text(os.path.join(W, "review.txt")).split())
done = "".join(x.strip().rstrip("▲▼v^").strip() for x in text(os.path.join(W, "done.txt")).split("\n"))
t.ok("hold torch and torchvision, with the CUDA wheels pip brings with them" in review,
     "wizard: Review's Changes name the hold step", text(os.path.join(W, "review.txt")))
t.ok(r.rc == 0 and ("%s/cudaup-constraints.txt" % WENV).replace(" ", "") in done.replace(" ", "") and
     "toliftitbyhand,emptythatfile" in done.replace(" ", ""),
     "wizard: Done names the hold file and how to lift it by hand", (r, text(os.path.join(W, "done.txt"))))
t.ok(text(os.path.join(WENV, "cudaup-constraints.txt")).count("torch==2.14.1+cu126") == 1,
     "the wizard's install holds the environment as install does", text(os.path.join(WENV, "cudaup-constraints.txt")))
t.done()
