#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The wizard on a real terminal: tmux runs it at 80x24, send-keys types,
capture-pane reads the screen.  Resizing, NO_COLOR, zh_CN, Ctrl-C, and a
whole install with the GPU-library doubles."""
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import unicodedata

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "integration"))
from cutest import BIN, SRCDIR, Tap, base_env, gpu_doubles, machine  # noqa: E402

sys.path.insert(0, os.path.join(SRCDIR, "tests", "fixtures"))
import mkmirror  # noqa: E402
import mkwheels  # noqa: E402
from httpserver import Server  # noqa: E402

if not shutil.which("tmux"):
    print("1..0 # SKIP tmux is not installed")
    sys.exit(0)

t = Tap()
ROOT, MENV = machine(t, "two-gpus")
SOCK = "cudaup-test-%d" % os.getpid()
# What tmux itself sets inside its panes, where the terminfo entry exists.
TERM = next((n for n in ("tmux-256color", "screen-256color", "screen")
             if subprocess.run(["infocmp", n], capture_output=True).returncode == 0), "screen")


MIRROR = os.path.join(t.tmpdir("mirror"), "m")
mkmirror.build(MIRROR, replace=gpu_doubles())


def tmux(*args, check=True):
    return subprocess.run(["tmux", "-L", SOCK, "-f", "/dev/null"] + list(args), capture_output=True, text=True,
                          check=check)


def width(s):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)


class Term:
    """cudaup in a tmux window of its own; the exit status lands in a file."""

    def __init__(self, tag, env=None, args=(), size=(80, 24)):
        self.dir = t.tmpdir(tag)
        self.status = os.path.join(self.dir, "status")
        home = os.path.join(self.dir, "home")
        os.makedirs(home)
        e = base_env(dict(MENV, HOME=home, CUDAUP_PROFILE_D=os.path.join(self.dir, "profile.d"),
                          CUDAUP_TEST_NOW="1800000000"))
        e.pop("NO_COLOR", None)
        e["TERM"] = TERM
        e.update(env or {})
        cmd = ["env", "-i"] + ["%s=%s" % kv for kv in sorted(e.items())] + [
            BIN, "--root", ROOT, "--mirror", "file://" + MIRROR, "--prefix", os.path.join(self.dir, "prefix"),
            "--state-dir", os.path.join(self.dir, "state"), "--cache-dir", os.path.join(self.dir, "cache"),
            "--env-scope", "none"] + list(args)
        line = " ".join(shlex.quote(c) for c in cmd) + "; echo $? > " + shlex.quote(self.status) + "; sleep 60"
        self.name = tag
        tmux("new-session", "-d", "-s", tag, "-x", str(size[0]), "-y", str(size[1]), line)

    def screen(self, escapes=False):
        r = tmux("capture-pane", "-p", "-t", self.name, *(["-e"] if escapes else []), check=False)
        return r.stdout

    def wait(self, text, timeout=30):
        end = time.time() + timeout
        while time.time() < end:
            s = self.screen()
            if text in s:
                return s
            time.sleep(0.1)
        return None

    def keys(self, *keys):
        for k in keys:
            tmux("send-keys", "-t", self.name, k)
            time.sleep(0.15)

    def exit_status(self, timeout=30):
        end = time.time() + timeout
        while time.time() < end:
            if os.path.exists(self.status) and open(self.status).read().strip():
                return int(open(self.status).read())
            time.sleep(0.1)
        return None

    def close(self):
        tmux("kill-session", "-t", self.name, check=False)


try:
    # One idle session for the whole test keeps the tmux server up: otherwise killing the last window
    # stops the server, and the next new-session can race it down ("server exited unexpectedly").
    tmux("new-session", "-d", "-s", "keepalive", "sleep 3600")
    w = Term("walk")
    s = w.wait("Welcome")
    t.ok(s is not None, "tmux 80x24: the welcome screen", w.screen())
    w.keys("Enter")
    s = w.wait("Step 1 of 10")
    t.ok(s is not None and "GeForce RTX 4090" in s, "Enter: the system screen with the GPUs", w.screen())
    tmux("resize-window", "-t", "walk", "-x", "100", "-y", "30")
    time.sleep(0.5)
    rows = w.screen().split("\n")
    t.ok(rows[0].rstrip().endswith("Step 1 of 10") and width(rows[0].rstrip()) >= 99,
         "resized to 100x30: the title bar is redrawn to the new width", rows[0])
    tmux("resize-window", "-t", "walk", "-x", "80", "-y", "24")
    time.sleep(0.5)
    rows = w.screen().split("\n")
    t.ok(79 <= width(rows[0].rstrip()) <= 80 and all(width(r) <= 80 for r in rows), "back to 80x24", rows[0])
    w.keys("Enter", "Down", "Down", "Down", "Enter")
    s = w.wait("Automatic: the newest that fits (12.6.3)")
    t.ok(s is not None, "framework none, then the versions from the engine's worker", w.screen())
    # The chosen version (issue 26): marked, and bold on a real terminal; the others are not bold.
    esc = w.screen(escapes=True).split("\n")
    chosen = [r for r in esc if "Automatic: the newest that fits" in r]
    bold = re.compile(r"\x1b\[(?:[0-9;]*;)?1(?:;[0-9;]*)?m")
    t.ok(len(chosen) == 1 and "●" in chosen[0] and bold.search(chosen[0]) is not None,
         "tmux: the chosen version's row is marked ● and drawn bold", repr(chosen))
    others = [r for r in esc if re.search(r"✓  12\.\d", r)]
    t.ok(others and not any(bold.search(r) for r in others), "tmux: the other rows are not bold", repr(others[:3]))
    w.keys("Escape")
    t.ok(w.wait("Which framework") is not None, "Esc goes back", w.screen())
    w.keys("q")
    t.ok(w.wait("Quit cudaup?") is not None, "q asks first", w.screen())
    w.keys("y")
    t.eq(w.exit_status(), 0, "y: the wizard exits 0")
    w.close()

    # Colour: on by default, off with NO_COLOR; the screen reads the same either way.
    c = Term("color")
    c.wait("Welcome")
    sgr = c.screen(escapes=True)
    t.ok(re.search(r"\x1b\[[0-9;]*(4[0-7]|3[0-7])[;m]", sgr) is not None, "with colour: colour escapes on screen")
    c.keys("q", "y")
    c.close()
    n = Term("nocolor", env={"NO_COLOR": "1"})
    n.wait("Welcome")
    sgr = n.screen(escapes=True)
    t.ok(re.search(r"\x1b\[[0-9;]*(4[0-7]|3[0-7]|38;5;[0-9]+|48;5;[0-9]+)[;m]", sgr) is None,
         "NO_COLOR: no colour escapes, only reverse and bold", repr(sgr[:400]))
    t.ok("\x1b[7m" in sgr or "\x1b[1m" in sgr or ";7m" in sgr, "NO_COLOR: the title bar still stands out (reverse/bold)")
    n.keys("q", "y")
    n.close()

    # zh_CN with CJK: translated and laid out by display width.
    z = Term("zh", env={"LANGUAGE": "zh_CN"})
    s = z.wait("欢迎")
    t.ok(s is not None, "zh_CN: the welcome screen in Chinese", z.screen())
    z.keys("Enter")
    s = z.wait("第 1 步")
    t.ok(s is not None and all(width(r) <= 80 for r in s.split("\n")), "zh_CN: the system screen fits 80 columns", s)
    z.keys("q")
    t.ok(z.wait("退出 cudaup 吗？") is not None, "zh_CN: the quit question", z.screen())
    z.keys("y")
    t.eq(z.exit_status(), 0, "zh_CN: exits 0")
    z.close()

    # Ctrl-C with nothing running: exit 130.
    k = Term("ctrlc")
    k.wait("Welcome")
    k.keys("C-c")
    t.eq(k.exit_status(), 130, "Ctrl-C: exit 130")
    k.close()

    # A whole install on the real terminal: the worker's events drive the screen.
    i = Term("install", args=("--framework", "none"))
    i.wait("Welcome")
    i.keys("Enter", "Enter", "Enter")
    i.wait("Automatic: the newest")
    i.keys("Enter")
    i.wait("Components of CUDA")
    i.keys("Enter")
    i.wait("[ Continue ]")
    i.keys("Enter")
    i.wait(" downloads, ")
    i.keys("Enter")
    s = i.wait(" 0 failed, ", timeout=120)
    t.ok(s is not None and "gpu-kernel" in s, "install in tmux: validation passes, GPU checks included", i.screen())
    i.keys("Enter")
    t.ok(i.wait("cudaup verify") is not None, "the done screen names the next commands", i.screen())
    i.keys("Enter")
    t.eq(i.exit_status(), 0, "install in tmux: exit 0")
    t.ok(os.path.isdir(os.path.join(i.dir, "prefix", "cuda-12.6")), "the install is in place")
    i.close()

    # The Python environment is a stage of its own on the Progress screen (issue 26, item 3): after
    # the archives' bar is full, a second bar and line say what pip does.  pip reads a stand-in
    # wheel's folder over HTTP (no index: nothing reaches PyPI), slowly enough to be seen.
    py311 = shutil.which("python3.11", path="/usr/bin:/bin") or shutil.which("python3.11")
    if py311:
        wheels = t.tmpdir("wheels")
        mkwheels.wheel(wheels, "tensorflow", "2.20.0", pad=2 << 20)
        wsrv = Server(wheels, rate=1 << 20)
        # --toolkit system: both stages, the archives then the environment (TensorFlow's [and-cuda] wheels have one)
        fw = Term("envstage", size=(80, 24), args=("--framework", "tensorflow==2.20", "--python", "3.11",
                                                     "--env-tool", "venv", "--env-name", "tf", "--toolkit", "system"),
                  env={"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": wsrv.url + "/", "PIP_NO_CACHE_DIR": "1",
                       "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PATH": "/usr/bin:/bin"})
        fw.wait("Welcome")
        seen = None
        end = time.time() + 180
        while time.time() < end and seen is None:  # Enter through the screens until Progress shows pip
            s = fw.screen()
            if "[2/2] Python environment: pip" in s:
                seen = s
            elif "Progress" not in s.split("\n", 2)[0] and "Validation" not in s.split("\n", 2)[0]:
                fw.keys("Enter")
            time.sleep(0.2)
        t.ok(seen is not None and re.search(r"\[1/2\] 100%", seen) and "tensorflow" in seen,
             "wizard: the environment is stage 2 of 2, the archives' bar full, pip's package named", fw.screen())
        starts = [ln.strip() for ln in (seen or "").splitlines() if re.fullmatch(r"(pyenv|framework): \S+", ln.strip())]
        t.ok(seen is not None and len(starts) == len(set(starts)),
             "wizard: a step's start is the status line, not also a line of the log below it", starts)
        t.ok(fw.wait(" 0 failed, ", timeout=180) is not None, "wizard: the install with TensorFlow validates",
             fw.screen())
        fw.close()
        wsrv.stop()
    else:
        t.skip("the environment's stage in the wizard", "no python3.11 on this machine")
finally:
    tmux("kill-server", check=False)

t.done()
