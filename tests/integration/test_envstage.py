#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The Python environment as a stage of its own (issue 26, item 3): after the archives, the CLI, its
JSON events and the wizard show the venv being made and pip's progress (the package, the file's
size, the bytes so far), and the overall line no longer sits at 99% while pip works."""
import json
import os
import re
import shutil
import sys

from cutest import SRCDIR, Tap, cols, machine, on_pty, run, segments, unbreakable
from httpserver import Server

sys.path.insert(0, os.path.join(SRCDIR, "tests", "fixtures"))
import mkmirror  # noqa: E402
import mkwheels  # noqa: E402

t = Tap()
PY = shutil.which("python3.11", path="/usr/bin:/bin") or shutil.which("python3.11")
if not PY:
    t.skip("the environment's stage", "no python3.11 on this machine")
    t.done()
ROOT, MENV = machine(t, "two-gpus")
# TensorFlow over NVIDIA's archives: both stages, archives then the environment (its [and-cuda] wheels: test_toolkit)
MENV = dict(MENV, CUDAUP_TOOLKIT="system")
MIRROR = os.path.join(t.tmpdir("mirror"), "m")
mkmirror.build(MIRROR)
WHEELS = t.tmpdir("wheels")
PAD = 3 << 20
mkwheels.wheel(WHEELS, "tensorflow", "2.21.0", pad=PAD)
WHEEL_SIZE = os.path.getsize(os.path.join(WHEELS, "tensorflow-2.21.0-py3-none-any.whl"))
# pip reads the wheels' folder listing over HTTP, so that it downloads (and prints the sizes);
# slow enough that the stage is drawn several times.  No index: nothing reaches PyPI.
srv = Server(WHEELS, rate=1 << 20)
PIP = {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": srv.url + "/", "PIP_DISABLE_PIP_VERSION_CHECK": "1",
       "PIP_NO_CACHE_DIR": "1"}


def args(tag):
    d = t.tmpdir(tag)
    home = os.path.join(d, "home")
    os.makedirs(home)
    return ["--root", ROOT, "--mirror", "file://" + MIRROR, "--prefix", os.path.join(d, "p"), "--state-dir",
            os.path.join(d, "s"), "--cache-dir", os.path.join(d, "c"), "--python", "3.11", "--env-tool", "venv",
            "--env-name", "tf", "--env-scope", "none", "--shell-rc", os.path.join(home, ".bashrc")], \
        dict(MENV, HOME=home, XDG_DATA_HOME=os.path.join(home, "data"), PATH="/usr/bin:/bin", **PIP)


# ---- --json: the stages are announced with the totals, and the environment reports its progress ----
a, env = args("json")
r = run(["install", "--yes", "--json"] + a, env=env, timeout=600)
ev = [json.loads(ln) for ln in r.err.splitlines() if ln.startswith("{")]
tot = next((x for x in ev if x.get("event") == "totals"), {})
t.ok(r.rc == 0 and tot.get("stages") == ["archives", "environment"],
     "--json: the totals line names both stages, archives then environment", (r.rc, tot, r.err[-1500:]))
envev = [x for x in ev if x.get("event") == "progress" and x.get("item") == "environment"]
phases = [x["phase"] for x in envev]
t.ok(phases[:1] == ["create"] and "pip-resolve" in phases and "pip-download" in phases and "pip-install" in phases
     and phases[-1] == "pip-done",
     "--json: the environment's events go create, pip-resolve, pip-download, pip-install, pip-done", phases)
dl = [x for x in envev if x["phase"] == "pip-download"]
t.ok(dl and all(x.get("message") == "tensorflow" for x in dl) and
     abs(dl[-1]["total"] - WHEEL_SIZE) <= 50000,  # pip prints tenths of a MB
     "--json: pip's download names the package and its size as pip printed it (%d bytes)" % WHEEL_SIZE, dl[-1:])
inst = next((x for x in envev if x["phase"] == "pip-install"), {})
t.ok(inst.get("files") == 1 and abs(inst.get("so_far", 0) - WHEEL_SIZE) <= 50000,
     "--json: when pip installs, the bytes it downloaded and the packages it installs are counted", inst)
last_archive = max((i for i, x in enumerate(ev) if x.get("event") == "progress" and x.get("item") != "environment"),
                   default=-1)
t.ok(last_archive < ev.index(envev[0]) if envev else False,
     "--json: the environment's stage begins after the last archive's progress", last_archive)

# ---- piped (a CI log): numbered stages, a line when the environment's stage begins and turns ----
a, env = args("piped")
r = run(["install", "--yes"] + a, env=env, timeout=600)
lines = [ln for ln in r.err.splitlines() if "Python environment" in ln]
t.ok(r.rc == 0 and any(re.search(r"\[2/2\] Python environment: creating \S*tf", ln) for ln in lines) and
     any("[2/2] Python environment: pip downloads tensorflow" in ln for ln in lines) and
     any("[2/2] Python environment: pip installs 1 package" in ln for ln in lines),
     "piped: the environment's stage is numbered 2 of 2, and says what it makes, downloads and installs",
     "\n".join(lines) or r.err[-2000:])

# ---- a terminal at 60, 80 and 120 columns: the stage's line fits, and 99% is not what it shows ----
for width in (60, 80, 120):
    a, env = args("pty%d" % width)
    rc, out = on_pty(["install", "--yes"] + a, env, columns=width, winsize=(24, 200), timeout=600)
    segs = segments(out)
    stage = [s for s in segs if "Python environment" in s]
    wide = [s for s in segs if cols(s) >= width and not unbreakable(s, width)]
    first_env = next((i for i, s in enumerate(segs) if "Python environment" in s), len(segs))
    late99 = [s for s in segs[first_env:] if re.match(r"^\s*(\[\d/\d\] )?99% ", s)]
    t.ok(rc == 0 and stage and not wide and not late99,
         "%d columns: the environment's line fits, and no 99%% line follows it" % width,
         "rc=%s\nwide=%s\nlate99=%s\n%s" % (rc, wide[:3], late99[:3], "\n".join(segs[-15:])))
    if width == 120:
        t.ok(any(re.search(r"pip downloads tensorflow \(3\.\d MB\)", s) for s in stage),
             "120 columns: the file pip downloads and its size are shown", stage[:8])
srv.stop()
t.done()
