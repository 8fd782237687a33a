#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The packages cudaup plans for Debian 12 resolve in Debian's own archive: `apt-get install -s` against a
throwaway apt configuration (bookworm, -updates, -security; main contrib non-free non-free-firmware).
It needs the network, so it runs only with CUDAUP_TEST_NETWORK=1 and apt-get, and is skipped with its
reason otherwise (the default suite stays hermetic)."""
import os
import shutil
import subprocess

from cutest import Tap, machine, run

t = Tap()
KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"
if os.environ.get("CUDAUP_TEST_NETWORK") != "1":
    t.skip("Debian 12's packages resolve", "needs Debian's archive: set CUDAUP_TEST_NETWORK=1")
elif not shutil.which("apt-get") or not os.path.exists(KEYRING):
    t.skip("Debian 12's packages resolve", "needs apt-get and %s" % KEYRING)
else:
    root, env = machine(t, "deb12-rtx4090")
    r = run(["plan", "--json", "--root", root, "--framework", "none", "--mirror",
             "file://" + os.path.join(os.environ["SRCDIR"], "tests", "fixtures", "nvidia"), "--cache-dir", t.tmpdir("c")],
            env=dict(env, CUDAUP_DRIVER="auto"))
    pk = [p for p in ((r.json() or {}).get("driver") or {}).get("packages", []) if not p.startswith("linux-headers-")]
    t.ok(pk, "the plan has Debian 12's driver packages", r)
    d = t.tmpdir("apt")
    for sub in ("lists/partial", "cache/archives/partial", "etc/sources.list.d", "etc/preferences.d"):
        os.makedirs(os.path.join(d, sub))
    open(os.path.join(d, "status"), "w").close()
    with open(os.path.join(d, "etc/sources.list"), "w") as f:
        for suite, base in (("bookworm", "debian"), ("bookworm-updates", "debian"), ("bookworm-security", "debian-security")):
            f.write("deb [signed-by=%s] http://deb.debian.org/%s %s main contrib non-free non-free-firmware\n" % (KEYRING, base, suite))
    opts = ["-o", "Dir::Etc=%s/etc" % d, "-o", "Dir::State::Lists=%s/lists" % d, "-o", "Dir::Cache=%s/cache" % d,
            "-o", "Dir::State::status=%s/status" % d, "-o", "Debug::NoLocking=1"]
    up = subprocess.run(["apt-get"] + opts + ["update"], capture_output=True, text=True, timeout=600)
    if up.returncode != 0:
        t.skip("Debian 12's packages resolve", "Debian's archive cannot be reached: " + up.stderr[-200:])
    else:
        sim = subprocess.run(["apt-get"] + opts + ["install", "-s"] + pk, capture_output=True, text=True, timeout=600)
        t.ok(sim.returncode == 0 and "Inst nvidia-driver " in sim.stdout,
             "apt-get install -s %s resolves in Debian 12's archive" % " ".join(pk), sim.stdout[-1500:] + sim.stderr[-1500:])
t.done()
