#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What the user sees, round five (issue 49), in the wizard: headless (CUDAUP_TUI_HEADLESS) with key scripts and
screen dumps at 80x24 and 60x20, English and zh_CN.  A driver step's failure titled as the driver's, several
frameworks on the Framework screen, a way forward where nothing fits, the status line of the progress, and the
text left on the terminal when the wizard ends."""
import os
import re
import sys
import unicodedata

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "integration"))
from cutest import SRCDIR, Tap, cols, gpu_doubles, machine, on_pty, run, segments, unbreakable  # noqa: E402
from httpserver import Server  # noqa: E402

sys.path.insert(0, os.path.join(SRCDIR, "tests", "fixtures"))
import mkmirror  # noqa: E402

t = Tap()
NOW = {"CUDAUP_TEST_NOW": "1800000000", "CUDAUP_RETRY_BASE_MS": "50"}
NVIDIA = "file://" + os.path.join(SRCDIR, "tests", "fixtures", "nvidia")
MIRROR = os.path.join(t.tmpdir("mirror"), "m")
mkmirror.build(MIRROR, replace=gpu_doubles())
ZH = {"LANGUAGE": "zh_CN", "LANG": "C.UTF-8"}


def width(s):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 0 if unicodedata.combining(c) else 1 for c in s)


class Box:
    """A prefix, state, cache, home and profile.d of its own, and the wizard run against them."""

    def __init__(self, tag, name="two-gpus", mirror="file://" + MIRROR):
        self.dir = t.tmpdir(tag, length=40)
        self.root, self.menv = machine(t, name)
        self.mirror = mirror
        for n in ("prefix", "state", "cache", "home", "profile.d"):
            setattr(self, n.replace(".", "_"), os.path.join(self.dir, n))
        os.makedirs(self.home)
        os.makedirs(self.profile_d)
        self.n = 0

    def wizard(self, keys, *args, env=None, size=(80, 24), timeout=300):
        """Run the wizard with KEYS (script lines; 'DUMP name' takes a screen dump). Returns (result, dumps)."""
        self.n += 1
        script = os.path.join(self.dir, "keys%d" % self.n)
        names = []
        with open(script, "w") as f:
            for k in keys:
                if k.startswith("DUMP "):
                    names.append(k[5:])
                    f.write("dump %s\n" % os.path.join(self.dir, "%d-%s.txt" % (self.n, k[5:])))
                else:
                    f.write(k + "\n")
        e = dict(self.menv, **NOW)
        e.update({"HOME": self.home, "CUDAUP_TUI_HEADLESS": "1", "CUDAUP_PROFILE_D": self.profile_d,
                  "COLUMNS": str(size[0]), "LINES": str(size[1]), "TERM": "xterm-256color", "SHELL": "/bin/bash"})
        e.update(env or {})
        r = run(["--keys-script", script, "--root", self.root, "--mirror", self.mirror, "--prefix", self.prefix,
                 "--state-dir", self.state, "--cache-dir", self.cache] + list(args), env=e, timeout=timeout)
        dumps = {}
        for name in names:
            p = os.path.join(self.dir, "%d-%s.txt" % (self.n, name))
            dumps[name] = open(p, encoding="utf-8").read() if os.path.exists(p) else ""
        return r, dumps


def rows(dump):
    return dump.split("\n")[:-1]


def flat(dump):
    return " ".join(x.strip() for x in rows(dump) if x.strip())


def fits(dump, cols, lines):
    r = rows(dump)
    return len(r) == lines and all(width(x) <= cols for x in r)


# ---- Item 11 (R14): a driver step that fails is the driver's, not "Installing CUDA ... failed" ----
# The GTX 970 held by nouveau gets a driver in its plan; this machine has no apt-get for the runner, so the
# driver's own check before its first command refuses (nothing is changed).
for lang, extra in (("English", {}), ("zh_CN", ZH)):
    b = Box("df" + lang[:2], name="u2404-gtx970-nouveau-sb")
    r, d = b.wizard(["enter", "enter", "down", "down", "down", "enter", "enter", "enter", "enter", "enter",
                     "DUMP progress", "q", "y"], env=dict(extra, CUDAUP_DRIVER="auto"))
    title = rows(d["progress"])[2] if len(rows(d["progress"])) > 2 else ""
    want = "Installing the NVIDIA driver 580 failed" if not extra else "NVIDIA 驱动 580"
    t.ok(want in title and "CUDA" not in title and "apt-get" in flat(d["progress"]),
         "%s: the driver's refusal is titled as the driver's install" % lang, d["progress"])

# ---- Item 12: several frameworks.  Check boxes, not round marks; the TensorFlow of the default gives way to the
# first framework ticked (it stayed ticked beside it); --framework given twice stays an environment each, and
# Review names every framework of every environment (it named the first alone) ----
b = Box("fw", mirror=NVIDIA)
r, d = b.wizard(["enter", "enter", "DUMP first", "down", "space", "DUMP one", "down", "space", "DUMP two", "q", "y"])
t.ok("[x] TensorFlow" in d["first"] and "(*)" not in d["first"] and "[ ] TensorFlow" in d["one"] and "[x] PyTorch" in d["one"]
     and "[x] PyTorch" in d["two"] and "[x] JAX" in d["two"] and "[ ] TensorFlow" in d["two"],
     "Framework: check boxes; the default TensorFlow gives way to the first framework ticked, the next joins it",
     d["first"] + d["one"] + d["two"])
REVIEW = ["enter", "enter", "enter", "enter", "enter", "enter", "enter", "DUMP review", "q", "y"]
for lang, extra in (("English", {}), ("zh_CN", ZH)):
    r, d = b.wizard(["enter", "enter", "DUMP fw"] + REVIEW, "--framework", "pytorch", "--framework", "jax", "--python", "3.11",
                    "--env-tool", "venv", env=extra)
    each = "An environment each" if not extra else "各"
    review = flat(d["review"])
    t.ok(each in flat(d["fw"]) and re.search(r"PyTorch 2\.[\d.]+\W.*envs/cudaup-pytorch", review) and
         re.search(r"JAX 0\.\d+\.\d+\W.*envs/cudaup-jax", review),
         "%s: --framework given twice: the Framework screen says an environment each, Review names both" % lang,
         d["fw"] + d["review"])
r, d = b.wizard(["enter", "enter"] + REVIEW, "--framework", "pytorch,jax", "--python", "3.11", "--env-tool", "venv")
t.ok(re.search(r"PyTorch 2\.[\d.]+, JAX 0\.\d+\.\d+ with Python 3\.11, in the venv", flat(d["review"])),
     "pytorch,jax: Review names both frameworks of the one environment", d["review"])

# ---- Item 13: where nothing fits, the wizard had no way forward; the CLI's "What runs here" is now a choice ----
# (a GTX 680, compute capability 3.0, on driver 470: no TensorFlow build has code for it; CUDA 10.2 alone runs)
for lang, extra in (("English", {}), ("zh_CN", ZH)):
    b = Box("nf" + lang[:2], name="kepler", mirror=NVIDIA)
    r, d = b.wizard(["enter", "enter", "enter", "DUMP none", "enter", "DUMP taken", "enter", "DUMP next", "q", "y"],
                    env=dict(extra, CUDAUP_DRIVER="keep"))
    en = not extra
    t.ok((("Enter takes what runs here" in flat(d["none"]) and "CUDA and cuDNN alone" in flat(d["none"])) if en
          else "按Enter采用在这里能运行的组合" in flat(d["none"]).replace(" ", "")) and
         re.search(r"✓\s+\S+.*\(10\.2\.89\)", d["taken"]) and ("Components" in d["next"] or "组件" in d["next"]),
         "%s: nothing fits TensorFlow on a GTX 680: the Automatic row offers what runs here; Enter takes it, CUDA "
         "10.2.89 then fits and Enter goes on" % lang, d["none"] + d["taken"] + d["next"])

# ---- Item 16: the status line under the bar keeps each part whole ("elapsed" went alone onto a row), and says no
# speed when no byte comes ("0 B/s" after the downloads, a smoothed speed decayed to "4 B/s") ----
srv = Server(MIRROR)
srv.fault("/cuda/redist/libcublas/linux-x86_64/libcublas-linux-x86_64-12.4.5.8-archive.tar.xz", status=[503] * 60)
for size, lang, extra in (((60, 20), "English", {}), ((80, 24), "English", {}), ((60, 20), "zh_CN", ZH)):
    b = Box("st%d%s" % (size[0], lang[:2]), mirror=srv.url)
    r, d = b.wizard(["enter", "enter", "down", "down", "down", "enter", "enter", "enter", "enter", "enter", "DUMP failed",
                     "q", "y"], "--env-scope", "none", env=extra, size=size)
    rr = rows(d["failed"])
    status = rr[4:6] if len(rr) > 6 else []
    parts = re.split(r"\s{2,}", "  ".join(x.strip() for x in status))
    t.ok(fits(d["failed"], *size) and status and "B/s" not in d["failed"] and
         re.search(r"(\d+m\d\ds elapsed|已用 \d+m\d\ds)", "\n".join(status)) and
         not any(x.strip() in ("elapsed", "已用") for x in status) and
         any(re.match(r"\s*9\d%", x) for x in status),
         "%dx%d %s: a failed download's status rows keep each part whole, and no speed once nothing comes"
         % (size[0], size[1], lang), d["failed"])
srv.stop()

# ---- Item 19: the text left on the terminal wraps between words at its width (the terminal cut it mid-word), a
# command whole on a line of its own; --env-scope system says that a login shell reads /etc/profile.d ----
for lang, extra in (("English", {}), ("zh_CN", ZH)):
    b = Box("ex" + lang[:2])
    script = os.path.join(b.dir, "keys-exit")
    with open(script, "w") as f:
        f.write("\n".join(["enter", "enter", "down", "down", "down", "enter", "enter", "enter", "enter", "enter",
                            "enter", "DUMP", "enter", ""]).replace("DUMP", "dump " + os.path.join(b.dir, "done.txt")))
    e = dict(b.menv, **NOW)
    e.update({"HOME": b.home, "CUDAUP_TUI_HEADLESS": "1", "CUDAUP_PROFILE_D": b.profile_d, "COLUMNS": "80",
              "LINES": "24", "TERM": "xterm-256color"}, **extra)
    rc, out = on_pty(["--keys-script", script, "--root", b.root, "--mirror", b.mirror, "--prefix", b.prefix, "--state-dir",
                      b.state, "--cache-dir", b.cache, "--env-scope", "system"], e, winsize=(24, 80))
    lines = segments(out)
    wide = [x for x in lines if cols(x) > 80 and not unbreakable(x, 80)]
    done = open(os.path.join(b.dir, "done.txt"), encoding="utf-8").read() if os.path.exists(os.path.join(b.dir, "done.txt")) else ""
    login = "login shell" if not extra else "登录"
    said = " ".join(" ".join(lines).split())
    t.ok(rc == 0 and lines and not wide and login in said and login in " ".join(done.split()) and
         "Open a new shell" not in said and ("cudaup verify --root " in out and "--prefix" in out),
         "%s: the exit text fits 80 columns between words (a command whole), and names a login shell for /etc/profile.d"
         % lang, "\n".join(wide) or out[-2500:] + "\n" + done)

# ---- Issue 50: the Components screen chooses where the toolkit comes from (--toolkit), where the plan allows it ----
# PyTorch brings its own CUDA: t goes through system, wheels and none, each with what cudaup downloads for it, the
# plan's choice marked; Review says the toolkit of the choice; TensorFlow 1.x (a system CUDA) says why only system.
TK = ["enter", "enter", "enter", "enter", "DUMP first", "t", "DUMP second", "t", "DUMP third", "t", "DUMP back", "t",
      "enter", "enter", "enter", "DUMP review", "q", "y"]
for lang, extra, size in (("English", {}, (80, 24)), ("zh_CN", ZH, (80, 24)), ("English", {}, (60, 20))):
    b = Box("tk" + lang[:2] + str(size[0]), mirror=NVIDIA)
    r, d = b.wizard(TK, "--framework", "pytorch", "--python", "3.11", "--env-tool", "venv", "--env-scope", "none",
                    env=extra, size=size)
    marked = {}
    for k in ("first", "second", "third", "back"):
        m = re.search(r"\(\*\) (system|wheels|none)", flat(d[k]))
        marked[k] = m.group(1) if m else None
    cycle = ["system", "wheels", "none"]
    first = marked["first"]
    want = cycle[cycle.index(first):] + cycle[:cycle.index(first)] if first in cycle else None
    en = not extra
    sized = all(re.search(r"\(.\) %s \d[\d.]* [kMG]?B" % k, flat(d["first"])) for k in cycle)
    t.ok(want and [marked[k] for k in ("first", "second", "third", "back")] == want + [first] and sized and
         all(fits(d[k], *size) for k in ("first", "second", "third", "back")),
         "%s %dx%d: Components offers the toolkit (t): system, wheels, none with their downloads, the plan's choice (%s) "
         "marked, t goes round them" % (lang, size[0], size[1], first), (marked, d["first"], d["second"]))
    wheels = next((d[k] for k in ("first", "second", "third") if marked[k] == "wheels"), "")
    none_ = next((d[k] for k in ("first", "second", "third") if marked[k] == "none"), "")
    t.ok(re.search(r"nvidia-cuda-nvcc(-cu12)?==\d", wheels) and "[x]" not in wheels and "[x]" not in none_ and
         (("CUDA_HOME" in flat(wheels) and "no nvcc" in flat(none_)) if en else "CUDA_HOME" in flat(wheels)),
         "%s %dx%d: wheels lists the compiler wheels pip installs, none says there is no compiler; no component to tick"
         % (lang, size[0], size[1]), wheels + none_)
    # After the fourth t the choice is the second again (one past the plan's own): Review says that toolkit.
    rv = flat(d["review"])
    chosen = want[1] if want else None
    said = {"wheels": "compiler from NVIDIA's wheels" if en else "wheels", "none": "No CUDA toolkit" if en else "none"}
    t.ok(r.rc == 0 and chosen and said[chosen] in rv and ("Toolkit: " if en else "工具包：") in rv and ("/cuda-12" not in rv.split("Why")[0] if en else True),
         "%s %dx%d: Review carries the choice (%s): the toolkit it installs, not a CUDA folder" % (lang, size[0], size[1], chosen),
         d["review"])
# TensorFlow 2.13 has no [and-cuda] wheel (2.14.1's brings CUDA 11.8 as wheels, and is planned so by default).
b = Box("tktf", mirror=NVIDIA)
r, d = b.wizard(["enter", "enter", "enter", "enter", "DUMP comp", "t", "DUMP said", "q", "y"], "--framework", "tensorflow==2.13",
                "--python", "3.11", "--env-tool", "venv", "--env-scope", "none")
t.ok("wheels and none are not offered" in flat(d["comp"]) and "loads CUDA from a system toolkit" in flat(d["comp"]) and
     "(*)" not in d["comp"] and "t: toolkit" not in d["comp"],
     "a framework that loads a system CUDA: Components says why only NVIDIA's archives are offered", d["comp"] + d["said"])

t.done()
