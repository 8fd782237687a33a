#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""GPU containers on a host (issue 48 items 2 and 3): `install --containers` on fixture hosts of the package worlds of
Ubuntu 24.04, Debian 12 and Rocky 9, whose package managers are the pkgworld stand-ins and whose engines are the stand-ins
of tests/fakes/containers.  What the real engines here can judge, they judge: Debian 12's containerd 1.6 reads every
containerd file cudaup writes for version 2 (`containerd config dump`, run by the stand-in where the machine's containerd
is 1.x, and again by this test), and Debian 12's dockerd 20.10 reads the daemon.json cudaup writes (its own check of
directives, made to stop before it starts: see docker_reads).  Versions they do not know (containerd 2.x's version 3,
2.3's refusal of a newer drop-in, dockerd --validate of 23.0 and later) are checked against the recorded rules and golden
files (data/containers/engines.csv, tests/fixtures/containers), and the checks say so."""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

from cutest import SRCDIR, Tap, run

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ctkbox  # noqa: E402
from ctkbox import Box, GOLD  # noqa: E402

t = Tap()
TMP = t.tmpdir("ctk")
MIRROR = ctkbox.mirror(TMP)
CAT = ctkbox.catalog(TMP)
DEB_ROOT_CFG = open(os.path.join(GOLD, "containerd-root-v2-debian12.toml")).read()
USER_DAEMON = '{\n  "log-driver": "journald",\n  "data-root": "/srv/docker"\n}\n'
REAL_CONTAINERD = shutil.which("containerd") or "/usr/bin/containerd"
REAL_DOCKERD = shutil.which("dockerd") or "/usr/sbin/dockerd"
ENGINES = ["--containers", "docker,containerd,podman"]


def step(doc, action, engine=None):
    return [s for s in doc.get("steps", []) if s.get("installer") == "containers" and s.get("action") == action
            and (engine is None or engine in s.get("detail", ""))]


def containerd_reads(path):
    """Debian 12's real containerd 1.6 reads @path: (ok, its dump or its error)."""
    if not os.access(REAL_CONTAINERD, os.X_OK):
        return None, "no containerd here (scripts/bootstrap --test installs Debian 12's)"
    r = subprocess.run([REAL_CONTAINERD, "--config", path, "config", "dump"], capture_output=True, text=True, timeout=60)
    return r.returncode == 0, r.stdout if r.returncode == 0 else r.stderr


def docker_reads(text):
    """Debian 12's real dockerd 20.10 reads daemon.json @text: it checks a file's directives before anything else, so
    a file with one more directive it cannot know ("cudaup-probe") stops it there, naming every directive it does not
    know; the file's own are judged and dockerd starts nothing (measured: it exits at once).  None when it is absent."""
    if not os.access(REAL_DOCKERD, os.X_OK):
        return None, "no dockerd here (scripts/bootstrap --test installs Debian 12's docker.io)"
    doc = json.loads(text)
    doc["cudaup-probe"] = 1
    d = tempfile.mkdtemp(prefix="cudaup-dockerd-", dir=TMP)
    f = os.path.join(d, "daemon.json")
    json.dump(doc, open(f, "w"))
    argv = [REAL_DOCKERD, "--config-file", f, "--data-root", os.path.join(d, "data"), "--exec-root", os.path.join(d, "exec"),
            "--pidfile", os.path.join(d, "pid"), "-H", "unix://" + os.path.join(d, "sock")]
    # A mount namespace of its own: were it to get past its configuration, nothing it mounts outlives it.
    if shutil.which("unshare") and os.geteuid() == 0:
        argv = ["unshare", "-m", "--propagation", "private"] + argv
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=30)
        out = r.stdout + r.stderr
    except subprocess.TimeoutExpired:
        return False, "dockerd did not stop at its configuration"
    want = "the following directives don't match any configuration option: cudaup-probe"
    return want in out and "cudaup-probe," not in out, out.strip().splitlines()[-1] if out.strip() else ""


# ---- the grid: Ubuntu 24.04, Debian 12, Rocky 9, each with Docker, containerd and Podman ----
for world in ("ubuntu2404", "debian12", "rocky9"):
    cfgs = {"/etc/docker/daemon.json": USER_DAEMON}
    if world != "rocky9":
        cfgs["/etc/containerd/config.toml"] = DEB_ROOT_CFG  # Debian's and Ubuntu's packages ship a version 2 root
    b = Box(t, "grid-" + world, world, mirror_dir=MIRROR, cat=CAT, configs=cfgs)
    r, c, doc = b.plan(*ENGINES)
    tk = c.get("toolkit") or {}
    t.ok(r.rc == 0 and [e["name"] for e in c.get("engines", [])] == ["docker", "containerd", "podman"]
         and tk.get("version") == "1.20.0" and (c.get("cdi") or {}).get("path") == "/var/run/cdi/nvidia.yaml",
         "%s: plan --json containers {engines[], toolkit {version, packages[]}, cdi {path, refresh}}: toolkit 1.20.0, the newest the data "
         "vouches for (the repository carries 1.21.0 too)" % world, (r, c))
    r, doc = b.install(*ENGINES)
    t.eq(r.rc, 0, "%s: install --containers docker,containerd,podman runs to its end" % world, (r.err or "")[-3000:])
    inst = b.installed()
    pk = ("nvidia-container-toolkit", "nvidia-container-toolkit-base", "libnvidia-container-tools", "libnvidia-container1")
    t.ok(all(n in inst and inst[n].version.endswith("1.20.0-1") for n in pk),
         "%s: the toolkit's four packages at 1.20.0-1" % world, {n: inst[n].version for n in pk if n in inst})
    # held as the driver is: an upgrade of the system keeps it
    b.sh("apt-get" if world != "rocky9" else "dnf", "upgrade", "-y")
    inst = b.installed()
    t.ok(all(inst[n].version.endswith("1.20.0-1") for n in pk if n in inst),
         "%s: held: the system's upgrade keeps 1.20.0 (1.21.0 is in the repository)" % world, {n: inst[n].version for n in pk if n in inst})
    dj = json.loads(b.read("/etc/docker/daemon.json") or "{}")
    t.ok(dj.get("log-driver") == "journald" and dj.get("data-root") == "/srv/docker"
         and (dj.get("runtimes") or {}).get("nvidia", {}).get("path") == "nvidia-container-runtime"
         and b.read("/etc/docker/daemon.json.cudaup-bak") == USER_DAEMON,
         "%s: daemon.json merged: the user's keys kept, the nvidia runtime added, the old file kept beside it" % world, dj)
    conf = [s["detail"] for s in step(doc, "configure") if "daemon.json" in s["detail"]]
    if world == "debian12":
        t.ok(conf and "compared its keys" in conf[0], "debian12: Docker 20.10 has no --validate: the step says its keys were compared", conf)
        ok, said = docker_reads(b.read("/etc/docker/daemon.json"))
        if ok is None:
            t.skip("debian12: Debian 12's real dockerd 20.10 reads the daemon.json cudaup wrote", said)
        else:
            t.ok(ok, "debian12: Debian 12's real dockerd 20.10 reads the daemon.json cudaup wrote: no directive of it unknown", said)
    else:
        t.ok(conf and "dockerd --validate" in conf[0],
             "%s: Docker >= 23 checked with `dockerd --validate` (the stand-in models it from recorded directives: no real Docker 23 here)" % world, conf)
    cdi = b.read("/var/run/cdi/nvidia.yaml") or ""
    t.ok("kind: nvidia.com/gpu" in cdi and '- name: "0"' in cdi and "580.95.05" in cdi,
         "%s: the CDI spec is generated for this machine's GPU and its driver" % world, cdi[:300])
    t.ok(b.exists("/etc/systemd/system/multi-user.target.wants/nvidia-cdi-refresh.path")
         and b.exists("/etc/systemd/system/multi-user.target.wants/nvidia-cdi-refresh.service"),
         "%s: the toolkit's nvidia-cdi-refresh units are enabled (they keep the spec fresh)" % world)
    root_cfg = os.path.join(b.root, "etc/containerd/config.toml")
    if world == "rocky9":
        dropin = b.read("/etc/containerd/conf.d/99-cudaup-nvidia.toml") or ""
        t.ok("\nversion = 3\n" in dropin and "runtime_type = \"io.containerd.runc.v2\"" in dropin
             and "99-cudaup-nvidia.toml" in (b.read("/etc/containerd/config.toml") or ""),
             "rocky9: containerd 2.3 gets a drop-in of its root's version 3 with runtime_type, imported (judged against the recorded "
             "2.3 rules by the stand-in: no containerd 2 runs here)", dropin)
        t.ok(any("`containerd config dump` read it" in s["detail"] for s in step(doc, "configure")),
             "rocky9: the drop-in was checked with `containerd config dump` before it was put in place", step(doc, "configure"))
    else:
        cfg = b.read("/etc/containerd/config.toml") or ""
        t.ok(cfg.startswith(DEB_ROOT_CFG) and "# BEGIN cudaup" in cfg and not b.exists("/etc/containerd/conf.d/99-cudaup-nvidia.toml"),
             "%s: containerd 1.x (a drop-in's plugin table would replace the root's) gets a marked block in config.toml, the rest as it was" % world)
        ok, dump = containerd_reads(root_cfg)
        if ok is None:
            t.skip("%s: Debian 12's real containerd 1.6 reads the config.toml cudaup wrote" % world, dump)
        else:
            t.ok(ok and 'BinaryName = "/usr/bin/nvidia-container-runtime"' in dump and 'bin_dir = "/usr/lib/cni"' in dump
                 and 'runtime_type = "io.containerd.runc.v2"' in dump,
                 "%s: Debian 12's real containerd 1.6 reads the config.toml cudaup wrote: the nvidia runtime there, and the root's cni "
                 "bin_dir kept (a naive drop-in loses it: tests/fixtures/containers)" % world, dump[-400:])
    restarts = b.restarted()
    t.ok(("reload docker.service" in restarts if world != "rocky9" else "restart docker.service" in restarts)
         and "restart containerd.service" in restarts,
         "%s: Docker reloaded where only its runtimes changed (restarted where CDI was turned on), containerd restarted: neither ran "
         "containers" % world, restarts)
    verify = {x["name"]: x for x in (doc.get("verify") or {}).get("checks", [])}
    notes = (doc.get("containers") or {}).get("notes", [])
    t.ok(any(n.startswith("Docker runs GPU containers now: `docker run") for n in notes)
         and any(n.startswith("containerd has the runtime `nvidia` now") for n in notes),
         "%s: install ends saying that Docker and containerd run GPU containers now, and how" % world, notes)
    t.ok(verify.get("cdi-spec", {}).get("status") == "pass" and verify.get("container", {}).get("status") == "skip"
         and "cannot pull it" in verify.get("container", {}).get("detail", ""),
         "%s: verify: the CDI spec names the GPU for the loaded driver; no image to run a container with, and it says so (not a pass)" % world,
         verify)
    r = b.cudaup("doctor", "--root", b.root, "--state-dir", b.state)
    line = next((x for x in r.out.splitlines() if x.startswith("Containers ")), "")
    t.ok("Docker " in line and "(runtime nvidia)" in line and "containerd " in line and "(GPU through the CDI spec)" in line
         and "CDI spec /var/run/cdi/nvidia.yaml (driver 580.95.05)" in line and "not set up" not in line,
         "%s: doctor's Containers line: each engine with its version, set up for the GPU, and the CDI spec with its driver" % world,
         r.out[-1500:])
    # Again: nothing to do for the engines, nothing restarted.
    before = list(restarts)
    r, doc2 = b.install(*ENGINES)
    c2 = doc2.get("containers") or {}
    t.ok(r.rc == 0 and all(e["configured"] for e in c2.get("engines", [])) and b.restarted() == before and not step(doc2, "configure"),
         "%s: a second install finds every engine configured and restarts none" % world, (r.err or "")[-600:])

# ---- the toolkit's own 2026 default drop-in, on containerd 2.3 (aicr#1688) ----
b = Box(t, "refused", "rocky9", mirror_dir=MIRROR, cat=CAT,
        configs={"/etc/containerd/config.toml": 'version = 2\nimports = ["/etc/containerd/conf.d/*.toml"]\n',
                 "/etc/containerd/conf.d/99-nvidia.toml": open(os.path.join(GOLD, "ctk-1.19.1-default-dropin-v4.toml")).read()})
r = b.sh("containerd", "--config", os.path.join(b.root, "etc/containerd/config.toml"), "config", "dump")
t.ok(r.returncode != 0 and "drop-in config version 4 higher than root config version 2" in r.stderr,
     "the stand-in containerd 2.3 refuses the toolkit's default drop-in as containerd 2.3.2 did (aicr#1688, recorded)", r.stderr)
r = b.cudaup("doctor", "--json", "--root", b.root, "--state-dir", b.state)
codes = [p["code"] for p in (r.json() or {}).get("problems", [])]
t.ok("container-dropin-refused" in codes and r.rc == 3,
     "doctor: a drop-in containerd 2.3 refuses is an error, with its fix", (r.rc, codes))
r, doc = b.install(*ENGINES)
t.ok(r.rc == 0 and b.exists("/etc/containerd/conf.d/99-nvidia.toml.cudaup-disabled") and not b.exists("/etc/containerd/conf.d/99-nvidia.toml")
     and "\nversion = 2\n" in (b.read("/etc/containerd/conf.d/99-cudaup-nvidia.toml") or ""),
     "install: the refused drop-in set aside (kept), cudaup's of the root's version 2 written; containerd 2.3 reads it", (r.err or "")[-1500:])
r = b.sh("containerd", "--config", os.path.join(b.root, "etc/containerd/config.toml"), "config", "dump")
t.ok(r.returncode == 0 and "nvidia-container-runtime" in r.stdout, "the stand-in containerd 2.3 reads the result", r.stderr)
r = b.cudaup("doctor", "--json", "--root", b.root, "--state-dir", b.state)
t.ok("container-dropin-refused" not in [p["code"] for p in (r.json() or {}).get("problems", [])], "doctor: nothing refused any more")
r = b.cudaup("uninstall", "containers", "--yes", "--json", "--root", b.root, "--state-dir", b.state)
t.ok(r.rc == 0 and b.exists("/etc/containerd/conf.d/99-nvidia.toml") and not b.exists("/etc/containerd/conf.d/99-cudaup-nvidia.toml")
     and b.read("/etc/containerd/config.toml") == 'version = 2\nimports = ["/etc/containerd/conf.d/*.toml"]\n',
     "uninstall containers: the set-aside drop-in put back, cudaup's removed, config.toml as it was", r.out[-1500:])

# ---- engines that run containers: never restarted under --yes; asked otherwise; --restart-engines ----
b = Box(t, "busy", "rocky9", mirror_dir=MIRROR, cat=CAT, running={"docker": ["web", "db"], "containerd": {"moby": ["6f1c"]}})
r, c, _ = b.plan(*ENGINES, "--yes")
ys = c.get("user_steps", [])
t.ok(any("web, db" in u and "systemctl restart docker" in u for u in ys) and any("moby/6f1c" in u for u in ys),
     "plan --yes: the engines that run containers are not restarted; the plan names them and leaves the restart to the user", ys)
r, doc = b.install(*ENGINES)
t.ok(r.rc == 0 and not [x for x in b.restarted() if "docker" in x or "containerd" in x],
     "install --yes: Docker and containerd, running containers, were not restarted", b.restarted())
notes = (doc.get("containers") or {}).get("notes", [])
t.ok(any("web, db" in n for n in notes), "install --yes: what is left to the user is said, naming the containers", notes)
t.ok(any(n.startswith("Once Docker has restarted, it runs GPU containers: `docker run --rm --runtime=nvidia --gpus all") for n in notes)
     and any(n.startswith("Once containerd has restarted, it has the runtime `nvidia`") for n in notes)
     and any(n.startswith("Podman runs GPU containers now, through the CDI spec: `podman run --rm --device nvidia.com/gpu=all") for n in notes),
     "install --yes: its last lines say how to start a GPU container with each engine (NVIDIA's guide's samples), "
     "Docker's and containerd's once restarted", notes)
b = Box(t, "busy2", "rocky9", mirror_dir=MIRROR, cat=CAT, running={"docker": ["web"]})
r, doc = b.install(*ENGINES, "--restart-engines")
t.ok(r.rc == 0 and "restart docker.service" in b.restarted(), "install --yes --restart-engines: Docker is restarted all the same", b.restarted())


def on_terminal(box, answers, *argv):
    """cudaup on a pty, each [y/N] question answered in turn from @answers; returns (rc, output, questions asked)."""
    import pty
    import select
    import time
    from cutest import BIN, base_env
    master, slave = pty.openpty()
    p = subprocess.Popen([BIN] + list(argv), stdin=slave, stdout=slave, stderr=slave, env=base_env(box.env()), close_fds=True)
    os.close(slave)
    out, asked, end = b"", 0, time.time() + 300
    while time.time() < end:
        r, _, _ = select.select([master], [], [], 1)
        if r:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
            if out.count(b"[y/N]") > asked:
                os.write(master, ((answers[asked] if asked < len(answers) else "n") + "\n").encode())
                asked += 1
        elif p.poll() is not None:
            break
    p.wait(timeout=30)
    os.close(master)
    return p.returncode, out.decode("utf-8", "replace"), asked


for answer in ("n", "y"):
    # Rocky 9's Docker CE turns CDI on (features.cdi): a restart, not a reload
    b = Box(t, "ask" + answer, "rocky9", engines=("docker",), mirror_dir=MIRROR, cat=CAT, running={"docker": ["web", "db"]})
    rc, out, asked = on_terminal(b, ["y", answer], "install", "--env-scope", "none", *b.args("--containers", "docker"))
    q = [x for x in out.splitlines() if "Restart Docker now" in x]
    t.ok(rc == 0 and asked == 2 and q and "web, db" in q[0], "on a terminal, Docker running web and db: install asks before "
         "restarting it, naming the containers that would stop (answered %s)" % answer, out[-1500:])
    if answer == "n":
        t.ok(not b.restarted() and "Docker was not restarted" in out and "systemctl restart docker" in out
             and "Once Docker has restarted" in out,
             "answered no: Docker is not restarted, and install says how to restart it and what it runs once restarted", out[-1200:])
    else:
        t.ok(b.restarted() == ["restart docker.service"] and "Docker runs GPU containers now" in out,
             "answered yes: Docker is restarted, and install says it runs GPU containers now", (b.restarted(), out[-800:]))

# ---- a driver update makes the CDI spec stale: doctor finds it, repair regenerates it ----
b = Box(t, "stale", "debian12", mirror_dir=MIRROR, cat=CAT, configs={"/etc/containerd/config.toml": DEB_ROOT_CFG})
r, doc = b.install(*ENGINES)
t.eq(r.rc, 0, "stale: the install runs", (r.err or "")[-800:])
r = b.cudaup("doctor", "--json", "--root", b.root, "--state-dir", b.state)
t.ok(not [p for p in (r.json() or {}).get("problems", []) if p["code"].startswith("container-")],
     "stale: doctor finds nothing of the containers to fix after the install", (r.json() or {}).get("problems"))
import machines  # noqa: E402
open(os.path.join(b.root, "proc/driver/nvidia/version"), "w").write(machines.nvrm("580.105.08"))
conf = open(os.path.join(b.root, "fake-nvidia.conf")).read().replace("driver 580.95.05", "driver 580.105.08")
open(os.path.join(b.root, "fake-nvidia.conf"), "w").write(conf)
r = b.cudaup("doctor", "--json", "--root", b.root, "--state-dir", b.state)
st = [p for p in (r.json() or {}).get("problems", []) if p["code"] == "container-cdi-stale"]
t.ok(st and "580.95.05" in st[0]["message"] and "580.105.08" in st[0]["message"] and "cudaup repair" in st[0]["fix"] and r.rc == 3,
     "stale: after a driver update doctor finds the CDI spec stale (its driver against the loaded one), the fix cudaup repair", st)
r = b.cudaup("repair", "--yes", "--json", "--root", b.root, "--state-dir", b.state, "--prefix", os.path.join(b.dir, "prefix"))
t.ok(r.rc == 0 and "580.105.08" in (b.read("/var/run/cdi/nvidia.yaml") or ""), "stale: repair regenerates it for the loaded driver",
     (r.out or "")[-800:])
r = b.cudaup("doctor", "--json", "--root", b.root, "--state-dir", b.state)
t.ok(r.rc == 0 and not [p for p in (r.json() or {}).get("problems", []) if p["code"].startswith("container-")],
     "stale: doctor is content again", (r.json() or {}).get("problems"))
os.unlink(os.path.join(b.root, "var/run/cdi/nvidia.yaml"))  # a reboot empties /var/run
r = b.cudaup("doctor", "--json", "--root", b.root, "--state-dir", b.state)
t.ok("container-cdi-missing" in [p["code"] for p in (r.json() or {}).get("problems", [])], "a missing spec (after a boot without refresh units) is said")

# ---- uninstall containers: exactly the record undone, every file as it was ----
b = Box(t, "undo", "debian12", mirror_dir=MIRROR, cat=CAT,
        configs={"/etc/containerd/config.toml": DEB_ROOT_CFG, "/etc/docker/daemon.json": USER_DAEMON})
r, doc = b.install(*ENGINES)
# the user changes daemon.json after cudaup: uninstall takes cudaup's part out, keeps theirs
dj = json.loads(b.read("/etc/docker/daemon.json"))
dj["debug"] = True
open(os.path.join(b.root, "etc/docker/daemon.json"), "w").write(json.dumps(dj, indent=2))
r = b.cudaup("uninstall", "containers", "--yes", "--json", "--root", b.root, "--state-dir", b.state)
inst = b.installed()
dj = json.loads(b.read("/etc/docker/daemon.json") or "{}")
t.ok(r.rc == 0 and b.read("/etc/containerd/config.toml") == DEB_ROOT_CFG and "nvidia" not in json.dumps(dj)
     and dj.get("debug") is True and dj.get("log-driver") == "journald",
     "uninstall containers: config.toml as it was; daemon.json changed since: cudaup's runtime taken out, the user's later key kept",
     (r.out or "")[-1500:])
t.ok(not [n for n in inst if "nvidia-container" in n or n == "cuda-keyring"] and not b.exists("/var/run/cdi/nvidia.yaml")
     and not b.exists("/etc/systemd/system/multi-user.target.wants/nvidia-cdi-refresh.path")
     and not os.path.exists(os.path.join(b.state, "containers.json")),
     "uninstall containers: the toolkit, its keyring, its spec and its units gone, the record too", sorted(inst))
r = b.cudaup("uninstall", "containers", "--yes", "--root", b.root, "--state-dir", b.state)
t.ok(r.rc != 0 and "no record" in r.err, "uninstall containers again: nothing to undo, said", r.err)

# ---- rootless Docker: the user's own files ----
b = Box(t, "rootless", "ubuntu2404", mirror_dir=MIRROR, cat=CAT, engines=("docker",), configs={"/etc/containerd/config.toml": DEB_ROOT_CFG})
home = os.path.join(b.root, b.home.lstrip("/"))
os.makedirs(os.path.join(home, ".config/systemd/user"), exist_ok=True)
open(os.path.join(home, ".config/systemd/user/docker.service"), "w").write("[Service]\n")
p = os.path.join(b.root, "usr/bin/dockerd-rootless.sh")
open(p, "w").write("#!/bin/sh\n")
os.chmod(p, 0o755)
r, doc = b.install("--containers", "docker")
ud = os.path.join(home, ".config/docker/daemon.json")
c = doc.get("containers") or {}
t.ok(r.rc == 0 and os.path.exists(ud) and "nvidia" in open(ud).read() and not b.exists("/etc/docker/daemon.json")
     and "no-cgroups = true" in (b.read("/etc/nvidia-container-runtime/config.toml") or "")
     and any("systemctl --user restart docker" in u for u in c.get("notes", [])),
     "rootless Docker: ~/.config/docker/daemon.json written, no-cgroups set, the restart left to the user (systemctl --user)",
     ((r.err or "")[-800:], c.get("notes")))

# ---- WSL2: Docker Desktop is not this Linux's; CDI in WSL mode ----
b = Box(t, "wsl", "ubuntu2404", mirror_dir=MIRROR, cat=CAT, engines=("podman",), wsl=True)
os.makedirs(os.path.join(b.root, "mnt/wsl/docker-desktop/cli-tools/usr/bin"), exist_ok=True)
os.symlink("/mnt/wsl/docker-desktop/cli-tools/usr/bin/docker", os.path.join(b.root, "usr/bin/docker"))
r, c, _ = b.plan("--containers", "auto")
t.ok(r.rc == 0 and [e["name"] for e in c.get("engines", [])] == ["podman"]
     and any("Docker Desktop" in x for x in c.get("reasons", [])),
     "WSL2: --containers auto takes Podman and leaves Docker Desktop (a link into /mnt/wsl) to its own settings", c.get("reasons"))
r, c, doc = b.plan("--containers", "docker")
t.ok(r.rc == 3 and "Docker Desktop" in (doc.get("error") or ""), "WSL2: --containers docker is refused, naming Docker Desktop", doc)
r, doc = b.install("--containers", "auto")
cdi = [s for s in step(doc, "cdi")]
t.ok(r.rc == 0 and cdi and "--mode=wsl" in cdi[0]["detail"] and "/dev/dxg" in (b.read("/var/run/cdi/nvidia.yaml") or ""),
     "WSL2: the CDI spec is generated in WSL's mode", ((r.err or "")[-600:], cdi))

# ---- a toolkit without refresh units (a site's catalog holding 1.17.8): cudaup's own unit ----
cat = json.load(open(CAT))
cat["containers"]["toolkit"] = [x for x in cat["containers"]["toolkit"] if x["version"] == "1.17.8"]
OLD = os.path.join(TMP, "catalog-1.17.json")
json.dump(cat, open(OLD, "w"))
b = Box(t, "ownunit", "debian12", mirror_dir=MIRROR, cat=OLD, engines=("podman",))
r, doc = b.install("--containers", "podman")
unit = b.read("/etc/systemd/system/cudaup-cdi-refresh.service") or ""
t.ok(r.rc == 0 and "nvidia-ctk cdi generate --output=/var/run/cdi/nvidia.yaml" in unit
     and b.exists("/etc/systemd/system/multi-user.target.wants/cudaup-cdi-refresh.service")
     and (doc.get("containers") or {}).get("cdi", {}).get("refresh") == "cudaup-cdi-refresh",
     "toolkit 1.17.8 ships no refresh unit: cudaup writes and enables its own", ((r.err or "")[-600:], unit))
r = b.cudaup("uninstall", "containers", "--yes", "--root", b.root, "--state-dir", b.state)
t.ok(r.rc == 0 and not b.exists("/etc/systemd/system/cudaup-cdi-refresh.service"), "uninstall removes cudaup's own unit", r.err[-500:])

# ---- no systemd: what keeps the spec fresh is the user's ----
b = Box(t, "nosystemd", "debian12", mirror_dir=MIRROR, cat=CAT, engines=("podman",))
os.unlink(os.path.join(b.bin, "systemctl"))
r, c, _ = b.plan("--containers", "podman")
t.ok(r.rc == 0 and (c.get("cdi") or {}).get("refresh") == "none" and any("no systemd" in u for u in c.get("user_steps", [])),
     "no systemd: nothing regenerates the spec; the plan says what to run after each boot", c.get("user_steps"))

# ---- refusals, before anything is touched ----
b = Box(t, "bad", "debian12", mirror_dir=MIRROR, cat=CAT, engines=("podman",))
r, c, doc = b.plan("--containers", "docker,lxd")
t.ok(r.rc == 2 and "'lxd' is not an engine" in (doc.get("error") or ""), "--containers docker,lxd: exit 2, naming what is not an engine", doc)
r, c, doc = b.plan("--containers", "docker")
t.ok(r.rc == 3 and "Docker is not installed here" in (doc.get("error") or ""), "--containers docker without Docker: exit 3, said", doc)
r, doc = b.install("--containers", "crio")
QUERIES = ("--version", "dpkg-query", "rpm", "is-active", "ps", "namespaces")
changes = [c for c in b.calls() if not any(q in c for q in QUERIES)]
t.ok(r.rc == 3 and not changes, "an engine not here: nothing but queries was run, nothing changed", b.calls())
b = Box(t, "incontainer", "ubuntu2404", mirror_dir=MIRROR, cat=CAT, engines=("podman",), extra_spec={"container": "docker"})
r, c, doc = b.plan("--containers", "auto")
t.ok(r.rc == 3 and "inside a container" in (doc.get("error") or "") and "on the host" in (doc.get("advice") or ""),
     "inside a container: --containers is refused, the advice names the host", doc)
b = Box(t, "deb13", "debian12", mirror_dir=MIRROR, cat=CAT, engines=("podman",))
osr = open(os.path.join(b.root, "etc/os-release")).read().replace('VERSION_ID="12"', 'VERSION_ID="13"').replace("bookworm", "trixie")
open(os.path.join(b.root, "etc/os-release"), "w").write(osr)
r, c, doc = b.plan("--containers", "podman")
t.ok(r.rc == 3 and "does not carry the NVIDIA Container Toolkit" in (doc.get("error") or "") and "nvidia.github.io" in (doc.get("advice") or ""),
     "Debian 13: NVIDIA's CUDA repository does not carry the toolkit (cuda-repo-management#45): refused, naming NVIDIA's own way", doc)

# ---- mirror --containers: nothing yet, and said ----
r = run(["mirror", "--help"])
t.ok(r.rc == 0 and "--containers" in r.out and "holds nothing for containers yet" in r.out, "mirror --help says the mirror holds nothing for containers yet")

t.done()
