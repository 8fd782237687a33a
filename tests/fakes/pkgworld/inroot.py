# SPDX-License-Identifier: MIT
"""The package world's front ends *inside* a machine root, for cudaup's runner as it really runs there
(issue 46 item 11): `cudaup install --root DIR` without CUDAUP_SYSTEM_BIN enters DIR with `cudaup __chroot`
(a mount namespace of its own, chroot, DIR's own PATH) and runs the dnf, zypper or pacman it finds in DIR.
Only Debian's and Ubuntu's archives can be reached from the machines the suite runs on, so the other
distributions' trees hold these stand-ins as their package managers: `install(root)` puts each front end into
ROOT/usr/bin as a small script, and `command(root, argv)` is the argv that runs cudaup with this host's /usr (the
Python the front ends run with) and this source tree mounted read-only at ROOT/.pkgworld, in a mount namespace of
the test's own (unshare -m: the mounts go away with it and cudaup's own namespace inherits them).

Inside the root the front ends act on "/" (the tree itself), their settings from ROOT/.pkgworld/env.json (the
runner gives a command inside a root none of this host's environment); each logs its argv to
ROOT/.pkgworld/calls.jsonl.  Needs root (chroot, mounts), a static busybox (its sh starts the front end) and
/usr/bin/python3; `why_not()` says which is missing.  The front ends refuse "/" anywhere else: only where
/.pkgworld/env.json and /var/lib/pkgworld/world both exist, as inside such a tree, is "/" a fixture's."""
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
PY = "/usr/bin/python3"
LD = "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"
LIBS = "/usr/lib/x86_64-linux-gnu"


def busybox():
    for p in ("/usr/bin/busybox", "/bin/busybox"):
        if os.path.exists(p):
            r = subprocess.run(["file", "-L", p], capture_output=True, text=True) if shutil.which("file") else None
            if r is None or "statically linked" in r.stdout:
                return p
    return None


def why_not():
    """Why the front ends cannot run inside a root here, or None."""
    if os.geteuid() != 0:
        return "needs root (cudaup enters the tree with chroot; the test mounts this host's /usr into it)"
    if not shutil.which("unshare"):
        return "needs unshare (util-linux)"
    if not busybox():
        return "needs a static busybox (busybox-static) to start the front ends inside the tree"
    if not (os.path.exists(PY) and os.path.exists(LD)):
        return "needs %s and %s" % (PY, LD)
    r = subprocess.run(["unshare", "-m", "true"], capture_output=True, text=True)
    if r.returncode != 0:
        return "no mount namespace here: " + (r.stderr or "").strip()
    return None


def install(root, tools, env=None):
    """Make each of @tools (front-end names) the tree's own command in ROOT/usr/bin; @env: the settings the front
    ends read inside (STANDIN_FAIL, ...).  Returns the log of their calls (a host path)."""
    pw = os.path.join(root, ".pkgworld")
    for d in ("usr", "src"):
        os.makedirs(os.path.join(pw, d), exist_ok=True)
    shutil.copy(busybox(), os.path.join(pw, "busybox"))
    log = os.path.join(pw, "calls.jsonl")
    e = dict(env or {})
    e["STANDIN_LOG"] = "/.pkgworld/calls.jsonl"
    with open(os.path.join(pw, "env.json"), "w") as f:
        json.dump(e, f)
    bindir = os.path.join(root, "usr/bin")
    os.makedirs(bindir, exist_ok=True)
    for t in tools:
        p = os.path.join(bindir, t)
        with open(p, "w") as f:
            f.write("#!/.pkgworld/busybox sh\n# the package world's %s (tests/fakes/pkgworld/inroot.py)\n"
                    "PYTHONHOME=/.pkgworld/usr PYTHONDONTWRITEBYTECODE=1 exec /.pkgworld%s --library-path /.pkgworld%s "
                    "/.pkgworld%s /.pkgworld/src/tests/fakes/pkgworld/inroot.py \"$0\" \"$@\"\n" % (t, LD, LIBS, PY))
        os.chmod(p, 0o755)
    return log


def command(root, argv):
    """The argv that runs @argv (cudaup and its arguments) with the mounts the front ends need in @root."""
    pw = os.path.join(root, ".pkgworld")
    script = ('mount --bind -o ro /usr "$1/usr" && mount -o remount,bind,ro "$1/usr" && '
              'mount --bind "$2" "$1/src" && mount -o remount,bind,ro "$1/src" && shift 2 && exec "$@"')
    return ["unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh", pw, SRC] + list(argv)


def calls(root):
    p = os.path.join(root, ".pkgworld", "calls.jsonl")
    return [json.loads(x) for x in open(p)] if os.path.exists(p) else []


def main(argv):
    """A front end inside the tree: its settings from /.pkgworld/env.json, the machine root "/"."""
    if not (os.path.exists("/.pkgworld/env.json") and os.path.exists("/var/lib/pkgworld/world")):
        sys.stderr.write("pkgworld: not inside a package world's tree; refusing to touch this system\n")
        return 99
    with open("/.pkgworld/env.json") as f:
        os.environ.update(json.load(f))
    os.environ["PKGWORLD_ROOT"] = "/"
    os.environ["PKGWORLD_INROOT"] = "1"
    sys.path.insert(0, HERE)
    import cli  # noqa: E402
    return cli.main(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))  # the front end's own path, then its arguments
