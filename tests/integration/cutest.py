# SPDX-License-Identifier: MIT
"""A few helpers for cudaup's integration tests: TAP output, running the
binary, temporary folders (kept when a test fails), fixture machines.

The meson test() sets CUDAUP_BIN, FAKE_NVML, FAKE_CUDA, SRCDIR and
BUILDDIR.  Standard library only.
"""
import atexit
import fcntl
import hashlib
import json
import os
import pty
import re
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import termios
import time
import unicodedata

SRCDIR = os.environ.get("SRCDIR", os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
BUILDDIR = os.environ.get("BUILDDIR", os.path.join(SRCDIR, "build"))
BIN = os.environ.get("CUDAUP_BIN", os.path.join(BUILDDIR, "cli", "cudaup"))
sys.path.insert(0, os.path.join(SRCDIR, "tests", "fixtures"))

import machines  # noqa: E402


class Tap:
    """TAP producer.  Each check is one numbered line; the plan comes last."""

    def __init__(self):
        self.n = 0
        self.failed = 0
        self.tmpdirs = []

    def ok(self, cond, desc, diag=None):
        self.n += 1
        desc = desc.replace("#", "\\#").replace("\n", " ")
        print("%s %d - %s" % ("ok" if cond else "not ok", self.n, desc))
        if not cond:
            self.failed += 1
            if diag is not None:
                for line in str(diag).splitlines() or [""]:
                    print("#   " + line)
        sys.stdout.flush()
        return cond

    def eq(self, got, want, desc, context=None):
        diag = "got:  %r\nwant: %r" % (got, want)
        if context is not None:
            diag += "\n" + str(context)
        return self.ok(got == want, desc, diag)

    def has(self, container, item, desc):
        return self.ok(item in container, desc, "%r not in %r" % (item, container))

    def skip(self, desc, reason):
        self.n += 1
        print("ok %d - %s # SKIP %s" % (self.n, desc, reason))

    def tmpdir(self, tag="t", length=None):
        """A folder of this test's own.  With LENGTH, its path has exactly that many characters on every
        machine (made under /tmp and padded with short folders), for screens whose wrapping depends on a path's length: under
        the build folder that length is the checkout's (CI's clone is elsewhere than a developer's)."""
        base = os.environ.get("CUDAUP_TEST_TMP") or None
        if length:
            base = "/tmp"
        if base:
            os.makedirs(base, exist_ok=True)
        d = tempfile.mkdtemp(prefix="cudaup-%s-" % tag, dir=base)
        self.tmpdirs.append(d)
        if length:
            if len(d) + 2 > length:
                raise ValueError("tmpdir: %s is already longer than %d characters" % (d, length))
            # Padded with short folders, as a checkout's path is made of: a screen may break a path at a '/'.
            pad = ("pppppp/" * length)[:length - len(d) - 1]
            d = os.path.join(d, pad[:-1] + "p" if pad.endswith("/") else pad)
            os.makedirs(d)
        return d

    def done(self):
        print("1..%d" % self.n)
        if self.failed:
            for d in self.tmpdirs:
                print("# kept %s" % d)
        else:
            for d in self.tmpdirs:
                shutil.rmtree(d, ignore_errors=True)
        sys.exit(1 if self.failed else 0)


_HOME = []


def test_home():
    """A home of this test process's own, made once: cudaup's state, cache and config default under it, so
    that no test reads or writes the host's (/var/lib/cudaup, ~/.cache/cudaup, /etc/cudaup/config):
    a resume.json left in the host's state folder once changed test_tui's exit codes (issue 33)."""
    if not _HOME:
        base = os.environ.get("CUDAUP_TEST_TMP") or None
        if base:
            os.makedirs(base, exist_ok=True)
        home = tempfile.mkdtemp(prefix="cudaup-home-", dir=base)
        for sub in ("state", "cache", "config"):
            os.makedirs(os.path.join(home, sub))
        _HOME.append(home)
        atexit.register(shutil.rmtree, home, True)
    return _HOME[0]


def base_env(extra=None):
    home = test_home()
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": home,
        "XDG_STATE_HOME": os.path.join(home, "state"),
        "XDG_CACHE_HOME": os.path.join(home, "cache"),
        "XDG_CONFIG_HOME": os.path.join(home, "config"),
        # As root the state folder is /var/lib/cudaup whatever XDG says: name the test's own.
        "CUDAUP_STATE_DIR": os.path.join(home, "state", "cudaup"),
        "CUDAUP_CONFIG": "/dev/null",
        "LANG": "C.UTF-8",
        "NO_COLOR": "1",
        # Hermetic by default: no driver is planned, and no command outside the prefix can run
        # (tests of the driver set both to their own stand-ins, tests/fakes/syscmd-standin).
        "CUDAUP_DRIVER": "keep",
        "CUDAUP_SYSTEM_BIN": "/nonexistent/cudaup-test-system-bin",
        # Hermetic: a pip (or any https client) that was not pointed at the test's own wheelhouse or
        # index would reach PyPI; through this dead proxy it fails at once instead.  The tests' own
        # servers are on loopback, which no_proxy keeps off it.
        "https_proxy": "http://127.0.0.1:9",
        "HTTPS_PROXY": "http://127.0.0.1:9",
        "no_proxy": "127.0.0.1,localhost,::1",
        "NO_PROXY": "127.0.0.1,localhost,::1",
        # Hermetic: a plan asks the package index for releases newer than the catalog (issue 44), and NVIDIA's
        # server for its manifests.  Offline, it asks neither: every test plans from the catalog alone, as before,
        # with no warning of an index that did not answer and no wait for one.  A --mirror given is still read.
        # The tests of learning (test_learn.py) set it empty.
        "CUDAUP_OFFLINE": "1",
    }
    for k in ("CUDAUP_LOCALEDIR", "TMPDIR"):
        if k in os.environ:
            env[k] = os.environ[k]
    if extra:
        env.update(extra)
    return env


class Result:
    def __init__(self, proc):
        self.rc = proc.returncode
        self.out = proc.stdout
        self.err = proc.stderr

    def json(self):
        try:
            return json.loads(self.out)
        except ValueError:
            return None

    def __repr__(self):
        return "rc=%d\nstdout:\n%s\nstderr:\n%s" % (self.rc, self.out, self.err)


def run(args, env=None, timeout=120, input=None, cwd=None, binary=None):
    proc = subprocess.run([binary or BIN] + list(args), env=base_env(env), capture_output=True,
                          text=True, timeout=timeout, input=input, cwd=cwd)
    return Result(proc)


def machine(t, name):
    """Build fixture machine NAME; returns (root, env for running cudaup on it)."""
    root = os.path.join(t.tmpdir(name), "root")
    machines.build(name, root)
    env = {"FAKE_NVIDIA_CONFIG": os.path.join(root, "fake-nvidia.conf")}
    return root, env


def gpu_doubles():
    """The files of a synthetic mirror to swap for the GPU-library doubles (mkmirror's replace=),
    so that verify's library and GPU checks run against them."""
    def read(var):
        with open(os.environ[var], "rb") as f:
            return f.read()
    return {"lib/libcudart.so.12.6.127": read("FAKE_CUDART"), "lib/libcudnn.so.9.5.1.0": read("FAKE_CUDNN"),
            "lib/libnvrtc.so.12.6.127": read("FAKE_NVRTC")}


def tree(path):
    """Every file and link under @path (cudaup's own .cudaup folder aside): links by their target,
    files by mode and sha256, so that two installs can be compared whole."""
    out = {}
    for dp, dns, fns in os.walk(path):
        for n in dns + fns:
            p = os.path.join(dp, n)
            r = os.path.relpath(p, path)
            if r.startswith(".cudaup"):
                continue
            if os.path.islink(p):
                out[r] = ("l", os.readlink(p))
            elif os.path.isfile(p):
                out[r] = ("f", oct(os.stat(p).st_mode & 0o7777), hashlib.sha256(open(p, "rb").read()).hexdigest())
    return out


# ---- a terminal: what the CLI shows on a pty (test_progress, test_envstage) ----

def cols(s):
    """Columns a terminal gives s (wide CJK characters take two)."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 0 if unicodedata.combining(ch) else 1 for ch in s)


def on_pty(args, env, columns=None, winsize=None, timeout=300, answer=None, interrupt=None):
    """Run cudaup with stdin, stdout and stderr on a pty of winsize (rows, cols); returns (rc, output).
    @answer (bytes): typed once cudaup asks a [y/N] question.  @interrupt (bytes): SIGINT (a Ctrl-C) is sent
    once the output shows it."""
    master, slave = pty.openpty()
    if winsize:
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", winsize[0], winsize[1], 0, 0))
    e = base_env(env)
    e.pop("COLUMNS", None)
    if columns:
        e["COLUMNS"] = str(columns)
    p = subprocess.Popen([BIN] + args, stdin=slave, stdout=slave, stderr=slave, env=e, close_fds=True)
    os.close(slave)
    out = b""
    end = time.time() + timeout
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
            if answer is not None and b"[y/N]" in out:
                os.write(master, answer)
                answer = None
            if interrupt is not None and interrupt in out:
                p.send_signal(signal.SIGINT)
                interrupt = None
        elif p.poll() is not None:
            break
    p.wait(timeout=30)
    os.close(master)
    return p.returncode, out.decode("utf-8", "replace")


def unbreakable(line, width):
    """A line may pass the width only when it holds a word too long for any line (a long path), or a command
    kept whole (`between backticks`, or alone on its line: cudaup never breaks one, so that it pastes as one line)."""
    return (max(len(w) for w in line.split()) > width // 2
            or any(len(c) + 2 > width // 2 for c in re.findall(r"`([^`]+)`", line))
            or re.match(r"\s*(cudaup|python3?|\.) ", line) is not None)  # a command alone on its line, kept whole


def segments(out):
    """What the terminal shows line by line: split at CR and LF, escape sequences removed."""
    out = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", out)
    return [s for s in re.split(r"\r\n|\r|\n", out) if s.strip()]
