#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The wizard's Containers screen (issue 48): shown when a container engine is installed on this Linux, between the
environment's screens and Review; its choice goes into the plan Review shows, and the install carries it out as
`install --containers` does.  The host is a fixture of Debian 12's package world with Docker, containerd and Podman
(tests/integration/ctkbox.py: the stand-in package managers and engines)."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "integration"))
from cutest import SRCDIR, Tap, run  # noqa: E402
import ctkbox  # noqa: E402

t = Tap()
TMP = t.tmpdir("tuictk")
MIRROR = ctkbox.mirror(TMP)
CAT = ctkbox.catalog(TMP)


def wizard(b, keys, size=(80, 24)):
    script = os.path.join(b.dir, "keys")
    dumps = {}
    with open(script, "w") as f:
        for k in keys:
            if k.startswith("DUMP "):
                name = k.split(" ", 1)[1]
                dumps[name] = os.path.join(b.dir, "dump-%s.txt" % name)
                f.write("dump %s\n" % dumps[name])
            else:
                f.write(k + "\n")
    env = b.env(**getattr(b, "env_extra", {}), CUDAUP_TUI_HEADLESS="1", COLUMNS=str(size[0]), LINES=str(size[1]), TERM="xterm-256color", SHELL="/bin/bash")
    r = run(["--keys-script", script, "--root", b.root, "--mirror", "file://" + MIRROR, "--prefix", os.path.join(b.dir, "prefix"),
             "--state-dir", b.state, "--cache-dir", os.path.join(b.dir, "cache"), "--env-scope", "none", "--driver", "keep"],
            env=env, timeout=600)
    return r, {n: open(p).read() if os.path.exists(p) else "" for n, p in dumps.items()}


def flat(d):
    return " ".join(x.strip() for x in d.splitlines())


# framework none: Welcome, System, Framework (none), Versions, Components, Location, then Containers.
HEAD = ["enter", "enter", "down", "down", "down", "enter", "enter", "enter", "enter"]
b = ctkbox.Box(t, "tuictk", "debian12", mirror_dir=MIRROR, cat=CAT,
               configs={"/etc/containerd/config.toml": open(os.path.join(ctkbox.GOLD, "containerd-root-v2-debian12.toml")).read(),
                        "/etc/docker/daemon.json": '{"log-driver": "journald"}\n'})
# Review is read a page at a time: how many lines it takes depends on the length of the paths in it (the test's
# temporary folder), so a first page and the last alone may miss the middle.
PAGES = [k for i in range(8) for k in ("pgdn", "DUMP review-%d" % i)]
r, d = wizard(b, HEAD + ["DUMP containers", "up", "right", "DUMP auto", "enter", "DUMP review"] + PAGES + ["end", "DUMP review-end", "enter",
                         "end", "DUMP validation", "enter", "DUMP done", "enter"])
t.eq(r.rc, 0, "the wizard through the Containers screen and the install: exit 0", (r.err or "")[-2000:])
c = d["containers"]
t.ok("Containers" in c.splitlines()[0] and "Container engines on this machine: Docker, containerd, Podman." in flat(c)
     and "< not now >" in c, "Containers: shown after Location, naming the engines here; not now by default", c)
t.ok(all(len(x) <= 80 for x in c.splitlines()) and len(c.splitlines()) == 24, "Containers: fits 80x24", c)
t.ok("< every engine here >" in d["auto"], "Containers: Right chooses every engine here (auto)", d["auto"])
rv = flat("".join(d[k] for k in ["review"] + ["review-%d" % i for i in range(8)] + ["review-end"]))
t.ok("Containers: The NVIDIA Container Toolkit 1.20.0" in rv and "containers  units" in rv and "nvidia-cdi-refresh" in rv,
     "Review: the containers part is in the plan, its reasons and its steps", rv[-1500:])
dj = json.loads(b.read("/etc/docker/daemon.json") or "{}")
inst = b.installed()
t.ok(dj.get("log-driver") == "journald" and "nvidia" in (dj.get("runtimes") or {}) and "nvidia-container-toolkit" in inst
     and "kind: nvidia.com/gpu" in (b.read("/var/run/cdi/nvidia.yaml") or ""),
     "the wizard's install set the host up: the toolkit, daemon.json (the user's key kept), the CDI spec", (dj, sorted(inst)[:5]))
t.ok("cdi-spec" in d["validation"], "Validation: the containers check is there", d["validation"])

# The containers' stage fails (nvidia-ctk cannot generate the spec): the progress screen says it was that stage.
f = ctkbox.Box(t, "tuictkfail", "debian12", mirror_dir=MIRROR, cat=CAT, engines=("podman",))
f.env_extra = {"STANDIN_FAIL": "nvidia-ctk cdi generate"}
r, d = wizard(f, HEAD + ["up", "right", "enter", "enter", "DUMP failed", "q", "y"])
t.ok("Setting this host up for GPU containers failed" in flat(d["failed"]) and "Installing CUDA" not in d["failed"],
     "a failure in the containers' stage is titled as that stage's, not CUDA's", d["failed"])

# A host without a container engine: no Containers screen, the flow as before.
n = ctkbox.Box(t, "tuinoctk", "debian12", mirror_dir=MIRROR, cat=CAT, engines=())
r, d = wizard(n, HEAD + ["DUMP next", "q", "y"])
t.ok("Review" in d["next"].splitlines()[0] and "Containers" not in d["next"], "no engine here: Location goes on to Review", d["next"])
t.done()
