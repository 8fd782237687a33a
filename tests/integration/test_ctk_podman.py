#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The CDI path end to end with a real engine (issue 48): Debian 12's Podman runs a container built here (busybox-static's
rootfs, `podman import`, no registry) with the CDI spec cudaup generated through the nvidia-ctk stand-in (the recorded
output of `nvidia-ctk cdi generate`, tests/fixtures/containers), which names a planted device node (/dev/nvidia0, char
195:0) and mounts a stand-in nvidia-smi.  The container must see the node and run nvidia-smi; cudaup's own verify check
starts that container through the system runner.  No GPU is needed.

These machines are themselves containers (cgroup v1 in hybrid mode, no systemd, no CAP_SYS_RESOURCE): Podman runs here
with cgroupfs, vfs storage, no network, runc (crun refuses hybrid cgroups: "cgroups in hybrid mode not supported") and
limits no higher than this process's (a default RLIMIT_NPROC above them is "Operation not permitted"), in a mount
namespace of its own whose /run holds the machine root's CDI folder (Podman reads /etc/cdi and /var/run/cdi) and whose
/var/lib is its own (Podman keeps a blob cache in /var/lib/containers whatever --root says): nothing of this host changes.  Where
it cannot run at all, each check skips with the exact reason."""
import json
import os
import shutil
import subprocess
import sys

from cutest import Tap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ctkbox  # noqa: E402
from ctkbox import Box  # noqa: E402

t = Tap()
NAMES = ["cudaup install --containers podman generates the CDI spec",
         "podman runs the container with the CDI spec cudaup generated: the device node is there",
         "the spec's createContainer hooks ran (runc ran the toolkit's nvidia-cdi-hook: a stand-in here)",
         "nvidia-smi, mounted by the spec, runs in the container and lists the GPU",
         "cudaup's verify starts the container with the GPU through Podman and passes",
         "cudaup's verify without an image that is here or can be pulled: says so and skips"]


def skip_all(reason):
    for n in NAMES:
        t.skip(n, reason)
    t.done()
    sys.exit(0)


podman, runc, busybox, unshare = (shutil.which(x) for x in ("podman", "runc", "busybox", "unshare"))
if os.geteuid() != 0:
    skip_all("Podman's rootful run, mknod and the mount namespace need root here")
missing = [n for n, p in (("podman", podman), ("runc", runc), ("busybox (busybox-static)", busybox), ("unshare", unshare)) if not p]
if missing:
    skip_all("not installed here: %s (scripts/bootstrap --test installs them)" % ", ".join(missing))
if subprocess.run([busybox, "--help"], capture_output=True).returncode not in (0, 1) or "static" not in subprocess.run(
        ["file", "-L", busybox], capture_output=True, text=True).stdout and not os.path.exists("/usr/share/doc/busybox-static"):
    skip_all("%s is not a static busybox (busybox-static), which a container without libraries needs" % busybox)

TMP = t.tmpdir("ctkpod")
STORE = t.tmpdir("pod", length=32)  # Podman wants a runroot under 50 characters
MIRROR = ctkbox.mirror(TMP)
CAT = ctkbox.catalog(TMP)
b = Box(t, "podman", "debian12", mirror_dir=MIRROR, cat=CAT, engines=("podman",))
root = b.root
# The GPU as the spec names it: a device node of the NVIDIA major (195), the driver's library, a stand-in nvidia-smi
# (a shell script run by the image's busybox), and the hook program the spec calls (runc runs it on this host).
os.makedirs(os.path.join(root, "dev"), exist_ok=True)
for name, minor in (("nvidia0", 0), ("nvidiactl", 255)):
    p = os.path.join(root, "dev", name)
    if not os.path.exists(p):
        os.mknod(p, 0o666 | 0o020000, os.makedev(195, minor))
for rel, text in (("usr/bin/nvidia-smi", "#!/bin/sh\necho 'GPU 0: NVIDIA GeForce RTX 4090 (UUID: GPU-5f3a0c0e-0000-4000-8000-000000000001)'\n"),
                  ("usr/bin/nvidia-cdi-hook", "#!/bin/sh\necho \"$@\" >> \"$(dirname \"$0\")/../../hook.log\"\nexit 0\n"),
                  ("lib/x86_64-linux-gnu/libcuda.so.580.95.05", "")):
    p = os.path.join(root, rel)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    open(p, "w").write(text)
    if rel.startswith("usr/bin"):
        os.chmod(p, 0o755)

# Podman as these machines let it run: the root's CDI folder where Podman reads specs, in a mount namespace of its own.
WRAP = os.path.join(b.bin, "podman")
os.unlink(WRAP)
open(WRAP, "w").write("""#!/bin/sh
# The real Podman (tests/integration/test_ctk_podman.py): see that file's note on what these machines allow.
G="--root %(store)s/graph --runroot %(store)s/run --storage-driver vfs --cgroup-manager cgroupfs --events-backend file --runtime %(runc)s"
if [ "$1" = run ]; then
    shift
    set -- run --network none --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 "$@"
fi
exec %(unshare)s -m --propagation private sh -c '
    mount -t tmpfs cudaup-run /run && mkdir -p /run/cdi /run/lock && mount -t tmpfs cudaup-varlib /var/lib &&
    mount --bind "%(root)s/var/run/cdi" /run/cdi && exec %(podman)s '"$G"' "$@"' podman "$@"
""" % {"store": STORE, "runc": runc, "unshare": unshare, "root": root, "podman": podman})
os.chmod(WRAP, 0o755)
os.makedirs(os.path.join(root, "var/run/cdi"), exist_ok=True)

# The image: busybox-static's rootfs, imported under the name verify uses.
rootfs = os.path.join(TMP, "rootfs")
os.makedirs(os.path.join(rootfs, "bin"))
shutil.copy(busybox, os.path.join(rootfs, "bin", "busybox"))
for a in ("sh", "ls", "cat", "echo", "stat"):
    os.symlink("busybox", os.path.join(rootfs, "bin", a))
for d in ("dev", "proc", "sys", "tmp", "usr/bin", "etc"):
    os.makedirs(os.path.join(rootfs, d), exist_ok=True)
tar = os.path.join(TMP, "busybox.tar")
subprocess.run(["tar", "-C", rootfs, "-cf", tar, "."], check=True)
env = dict(os.environ, **b.env())
r = subprocess.run([WRAP, "import", tar, "docker.io/library/busybox:latest"], capture_output=True, text=True, env=env, timeout=300)
if r.returncode != 0:
    skip_all("podman import of busybox-static's rootfs fails here: %s" % (r.stderr.strip().splitlines() or ["?"])[-1])
r = subprocess.run([WRAP, "run", "--rm", "docker.io/library/busybox:latest", "echo", "plain"], capture_output=True, text=True,
                   env=env, timeout=300)
if r.returncode != 0 or "plain" not in r.stdout:
    skip_all("Podman cannot start any container on this machine (without a GPU device either): %s"
             % (r.stderr.strip().splitlines() or ["?"])[-1])

# cudaup sets Podman up: the toolkit, the CDI spec (the stand-in renders the recorded output for this root).
r, doc = b.install("--containers", "podman")
spec = b.read("/var/run/cdi/nvidia.yaml") or ""
t.ok(r.rc == 0 and "kind: nvidia.com/gpu" in spec, NAMES[0], (r.err or "")[-1500:])
out = subprocess.run([WRAP, "run", "--rm", "--device", "nvidia.com/gpu=all", "docker.io/library/busybox:latest", "sh", "-c",
                      "stat -c '%F %t:%T' /dev/nvidia0 /dev/nvidiactl"], capture_output=True, text=True, env=env, timeout=300)
t.ok(out.returncode == 0 and "character special file c3:0" in out.stdout and "character special file c3:ff" in out.stdout,
     NAMES[1] + " (char 195:0) and the control node (195:255)", (out.returncode, out.stdout, out.stderr[-800:]))
hooks = open(os.path.join(root, "hook.log")).read() if os.path.exists(os.path.join(root, "hook.log")) else ""
t.ok("create-symlinks" in hooks and "update-ldcache" in hooks, NAMES[2], hooks)
out = subprocess.run([WRAP, "run", "--rm", "--device", "nvidia.com/gpu=all", "docker.io/library/busybox:latest", "nvidia-smi", "-L"],
                     capture_output=True, text=True, env=env, timeout=300)
t.ok(out.returncode == 0 and out.stdout.startswith("GPU 0: NVIDIA GeForce RTX 4090"), NAMES[3], (out.stdout, out.stderr[-800:]))
checks = {c["name"]: c for c in (doc.get("verify") or {}).get("checks", [])}
run_c = checks.get("container", {})
t.ok(run_c.get("status") == "pass" and "sees 1 GPU" in run_c.get("detail", ""), NAMES[4], run_c)
# Without the image (and no registry to pull from): the check says so, never a pass.
subprocess.run([WRAP, "rmi", "-f", "docker.io/library/busybox:latest"], capture_output=True, env=env, timeout=300)
r = b.cudaup("verify", "--json", "--root", b.root, "--state-dir", b.state, "--prefix", os.path.join(b.dir, "prefix"))
checks = {c["name"]: c for c in (r.json() or {}).get("checks", [])}
run_c = checks.get("container", {})
t.ok(run_c.get("status") == "skip" and "cannot pull it" in run_c.get("detail", ""), NAMES[5], run_c)
t.done()
