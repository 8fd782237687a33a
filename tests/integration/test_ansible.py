#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""contrib/ansible against localhost with Debian's ansible-core: a site mirror
made by `cudaup mirror`, served over http; the first play installs and
verifies, the second changes nothing; failures carry cudaup's message."""
import json
import os
import shutil
import subprocess
import sys

from cutest import BIN, SRCDIR, Tap, gpu_doubles, machine, run
from httpserver import Server

sys.path.insert(0, os.path.join(SRCDIR, "tests", "fixtures"))
import mkmirror  # noqa: E402

PLAYBOOK = shutil.which("ansible-playbook")
if not PLAYBOOK:
    print("1..0 # SKIP ansible-playbook is not installed (apt-get install ansible-core)")
    sys.exit(0)

t = Tap()
ROOT, MENV = machine(t, "two-gpus")
SITE_YML = os.path.join(SRCDIR, "contrib", "ansible", "site.yml")


# Upstream (NVIDIA's layout, the GPU-library doubles inside), then the site mirror from it.
up = os.path.join(t.tmpdir("upstream"), "m")
mkmirror.build(up, replace=gpu_doubles())
work = t.tmpdir("ansible")
site = os.path.join(work, "site")
r = run(["mirror", site, "--json", "--cuda", "12.6", "--framework", "none", "--root", ROOT, "--mirror", "file://" + up,
         "--cache-dir", os.path.join(work, "mcache"), "--state-dir", os.path.join(work, "mstate")], env=MENV)
t.ok(r.rc == 0 and r.json()["changed"], "cudaup mirror made the site mirror", r)
srv = Server(site)

home = os.path.join(work, "home")
os.makedirs(home)
prefix, state, cache = (os.path.join(work, n) for n in ("prefix", "state", "cache"))


def play(tag, **extra):
    """Run site.yml on localhost; returns (rc, stats for localhost, failure messages, the whole JSON)."""
    v = {
        "cudaup_hosts": "localhost", "cudaup_become": False, "cudaup_binary": BIN, "cudaup_mirror": srv.url,
        "cudaup_root": ROOT, "cudaup_prefix": prefix, "cudaup_state_dir": state, "cudaup_cache_dir": cache,
        "cudaup_cuda": "12.6", "cudaup_framework": "none", "cudaup_env_scope": "none",
        "cudaup_environment": dict(MENV, CUDAUP_TEST_NOW="1800000000", HOME=home, CUDAUP_DRIVER="keep",
                                   CUDAUP_SYSTEM_BIN="/nonexistent/cudaup-test-system-bin"),
    }
    v.update(extra)
    vars_file = os.path.join(work, "vars-%s.json" % tag)
    with open(vars_file, "w") as f:
        json.dump(v, f)
    adir = os.path.join(work, "ansible-home")
    env = {"PATH": "/usr/bin:/bin", "HOME": home, "LANG": "C.UTF-8", "ANSIBLE_HOME": adir,
           "ANSIBLE_LOCAL_TEMP": os.path.join(adir, "tmp"), "ANSIBLE_REMOTE_TEMP": os.path.join(adir, "rtmp"),
           "ANSIBLE_STDOUT_CALLBACK": "cudaup_json",
           "ANSIBLE_CALLBACK_PLUGINS": os.path.join(os.path.dirname(os.path.abspath(__file__)), "ansible_plugins"), "ANSIBLE_NOCOLOR": "1", "ANSIBLE_RETRY_FILES_ENABLED": "0",
           "ANSIBLE_PYTHON_INTERPRETER": "/usr/bin/python3", "ANSIBLE_DEPRECATION_WARNINGS": "0"}
    p = subprocess.run([PLAYBOOK, "-i", "localhost,", "-c", "local", SITE_YML, "-e", "@" + vars_file], env=env,
                       capture_output=True, text=True, timeout=600)
    try:
        doc = json.loads(p.stdout)
    except ValueError:
        return p.returncode, {}, [p.stdout[-2000:] + p.stderr[-2000:]], None
    stats = doc.get("stats", {}).get("localhost", {})
    msgs = []
    for pl in doc.get("plays", []):
        for task in pl.get("tasks", []):
            res = task.get("hosts", {}).get("localhost", {})
            if res.get("failed"):
                msgs.append(res.get("msg", ""))
    return p.returncode, stats, msgs, doc


def task_result(doc, name):
    for pl in (doc or {}).get("plays", []):
        for task in pl.get("tasks", []):
            if task["task"]["name"].split(" : ")[-1] == name:
                return task["hosts"].get("localhost", {})
    return {}


rc, stats, msgs, doc = play("first")
t.eq(rc, 0, "first play: succeeds", msgs)
t.ok(stats.get("changed") == 1 and stats.get("failures") == 0, "first play: one change (the install), no failure", stats)
t.ok(task_result(doc, "Install with cudaup").get("changed") is True, "the install task reports changed from cudaup's JSON")
t.ok("CUDA 12.6.3 in %s/cuda-12.6" % prefix in task_result(doc, "Show what cudaup installed").get("msg", ""),
     "the play says what was installed", task_result(doc, "Show what cudaup installed"))
t.ok(task_result(doc, "Verify with cudaup").get("rc") == 0, "verify ran and passed")
t.ok(os.path.isfile(os.path.join(prefix, "cuda-12.6", "lib64", "libcudart.so.12")), "CUDA is in the prefix")
t.ok(len(srv.gets(".tar.xz")) == 6, "the archives came from the site mirror over http", srv.gets(".tar.xz"))

srv.clear()
rc, stats, msgs, doc = play("second")
t.ok(rc == 0 and stats.get("changed") == 0 and stats.get("failures") == 0, "second play: changes nothing", (stats, msgs))
t.eq(srv.gets(".tar.xz"), [], "second play: downloads nothing")

rc, stats, msgs, doc = play("bad", cudaup_cuda="12.99")
t.ok(rc != 0 and stats.get("failures") == 1, "a CUDA the mirror lacks: the play fails", stats)
t.ok(any("cudaup install failed (exit 3)" in m and "12.99" in m for m in msgs), "with cudaup's sentence and exit code", msgs)

rc, stats, msgs, doc = play("badflag", cudaup_install_args=["--env-tool", "pip"])
t.ok(rc != 0 and any("exit 2" in m and "--env-tool" in m for m in msgs), "a bad flag: exit 2 and cudaup's message", msgs)

conf = os.path.join(ROOT, "fake-nvidia.conf")
orig = open(conf).read()
open(conf, "w").write(orig + "kernel_result wrong\n")
rc, stats, msgs, doc = play("verifyfail")
# The install's own checks find it first (issue 49 item 8: install exits 4 when a check it ran failed).
t.ok(rc != 0 and any("cudaup install failed (exit 4)" in m and "gpu-kernel" in m for m in msgs),
     "a GPU computing wrong answers: the play fails at the install, naming the check", msgs)
open(conf, "w").write(orig)

# A host without a driver (Ubuntu 24.04, GTX 970, nouveau bound: a reboot is needed): cudaup installs it
# with the package manager (stand-ins here) and exits 5.  With cudaup_reboot false the play stops there with
# cudaup's words; the reboot module itself is never run by a test.
droot = os.path.join(t.tmpdir("drvhost"), "root")
import machines  # noqa: E402
machines.build_spec(machines.MACHINES["u2404-gtx970-nouveau-sb"], droot)
# the archive a real Ubuntu host has (the plan adds the driver's components to it, or finds them there)
os.makedirs(os.path.join(droot, "etc/apt"), exist_ok=True)
open(os.path.join(droot, "etc/apt/sources.list"), "w").write("deb http://archive.ubuntu.com/ubuntu noble main restricted universe multiverse\n")
dbin = os.path.join(t.tmpdir("drvbin"), "bin")
os.makedirs(dbin)
for c in ("apt-get", "apt-mark", "dpkg-query", "update-initramfs", "modprobe"):
    os.symlink(os.path.join(SRCDIR, "tests", "fakes", "syscmd-standin"), os.path.join(dbin, c))
calls = os.path.join(work, "drv-calls.jsonl")
rc, stats, msgs, doc = play("driver", cudaup_root=droot, cudaup_driver="auto", cudaup_reboot=False,
                            cudaup_state_dir=os.path.join(work, "drvstate"), cudaup_prefix=os.path.join(work, "drvprefix"),
                            cudaup_environment=dict(MENV, HOME=home, CUDAUP_SYSTEM_BIN=dbin, CUDAUP_SYSTEM_ROOT=droot,
                                                    STANDIN_LOG=calls, STANDIN_ROOT=droot))
t.ok(rc != 0 and any("exit 5" in m and "reboot" in m for m in msgs), "a driver installed, cudaup_reboot false: the play stops with exit 5 and cudaup's words", msgs)
t.ok(os.path.exists(calls) and any(c[0] == "apt-get" and "install" in c for c in map(json.loads, open(calls))),
     "the driver came through the package manager (stand-in)")
t.eq(task_result(doc, "Reboot for the NVIDIA driver cudaup installed").get("skipped"), True, "the reboot task is skipped when cudaup_reboot is false")

p = subprocess.run([PLAYBOOK, "--syntax-check", "-i", "localhost,", SITE_YML], capture_output=True, text=True,
                   env={"PATH": "/usr/bin:/bin", "HOME": home, "ANSIBLE_HOME": os.path.join(work, "ansible-home")})
t.eq(p.returncode, 0, "site.yml passes ansible-playbook --syntax-check", p.stderr)
srv.stop()
t.done()
