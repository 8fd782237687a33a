#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""No English sentence on a Chinese screen (issue 26, item 8): every wizard screen of a first install,
the existing-install menu and its dialogs, and the CLI's message paths, in zh_CN; each screen and
each output is searched for a run of English words (product names, versions, paths and commands
are not sentences)."""
import json
import os
import re
import shutil
import subprocess
import sys
import time
import unicodedata

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "integration"))
from cutest import SRCDIR, Tap, gpu_doubles, machine, run  # noqa: E402

sys.path.insert(0, os.path.join(SRCDIR, "tests", "fixtures"))
import mkmirror  # noqa: E402

t = Tap()
if not os.path.exists(os.path.join(os.environ.get("CUDAUP_LOCALEDIR", ""), "zh_CN")):
    t.skip("zh_CN walk", "built without NLS (no zh_CN catalog)")
    t.done()
TWO, TENV = machine(t, "two-gpus")
NOGPU, NENV = machine(t, "ada-no-driver")
NOW = {"CUDAUP_TEST_NOW": "1800000000", "CUDAUP_RETRY_BASE_MS": "50"}
ZH = {"LANGUAGE": "zh_CN", "LANG": "C.UTF-8"}
MIRROR = os.path.join(t.tmpdir("mirror"), "m")
mkmirror.build(MIRROR, replace=gpu_doubles())

# Words that make a run of Latin words a sentence rather than a name, a version or a command.
GLUE = set("""a an the of to is are was were be been in on at for with and or not no nor this that these those it its
from by as has have had can cannot will would should must may might only what when which who where there here
than then so if but any all each every some none nothing more most less your you we our they them their
one two do does did done yet still also just now first last next other another such""".split())
LATIN = re.compile(r"[A-Za-z][A-Za-z'’]*")


def english(text):
    """Runs of three or more Latin words, with at least one of GLUE among them, not broken by CJK or digits."""
    found = []
    for line in text.splitlines():
        # Paths, options, URLs, file names and version numbers are not words of a sentence.
        line = re.sub(r"\S*[/=_]\S*|--?[a-z][\w-]*|\S+\.\S+|`[^`]*`|'[^']*'|\S*\d\S*", " \x00 ", line)
        for chunk in re.split(r"[^A-Za-z'’ ,;:()\-]+", line):
            words = LATIN.findall(chunk)
            if len(words) >= 3 and sum(w.lower() in GLUE for w in words) >= 1:
                found.append(chunk.strip())
    return found


CJK = "\u2e80-\u9fff\u3000-\u303f\uff00-\uffef"
# Choice values that are names, not words to translate.
NAMES = {"conda", "mamba", "micromamba", "venv", "NVIDIA"}
STEP_WORDS = ("install|link|sources|repository|module|pin|hold|blacklist|mok|reboot|load|create|write|"
              "pip-install|pip-constraints")


def layout(text):
    """zh_CN layout faults (issue 26): an ASCII colon right after a CJK character, a choice label left in English
    ('< system >'), a Review step named in English ('cuda      install'), 方 / 向键 split over two rows."""
    found = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        found += ["ASCII colon after CJK: " + m.group(0) for m in re.finditer("[%s]:" % CJK, line)]
        found += ["untranslated choice: " + m.group(0) for m in re.finditer(r"<\s*([A-Za-z][A-Za-z' ]*?)\s*>", line)
                  if m.group(1) not in NAMES]
        if re.match(r"\s+[a-z][a-z-]*\s+(%s)\s" % STEP_WORDS, line):
            found.append("untranslated step: " + line.strip())
        if line.rstrip().endswith("方") and i + 1 < len(lines) and lines[i + 1].strip().startswith("向键"):
            found.append("方 / 向键 split")
        # issue 35, item 6: "修复： 请" (a space after a full-width colon), "但cudaup install" (a Latin word glued
        # to CJK), 'x' beside “x” (ASCII quotes in Chinese text; a command in backticks keeps its own)
        bare = re.sub(r"`[^`]*`", "`…`", line)
        found += ["space after a full-width colon: " + m.group(0) for m in re.finditer("[%s]： [%s]" % (CJK, CJK), bare)]
        found += ["Latin glued to CJK: " + m.group(0) for m in
                  re.finditer(r"[\u4e00-\u9fff](?:cudaup|install|repair|verify|uninstall)\b", bare)]
        found += ["ASCII quote in Chinese text: " + m.group(0) for m in
                  re.finditer(r"[\u4e00-\u9fff] ?'[^'\s]+'|'[^'\s]+' ?[\u4e00-\u9fff]", bare)]
        # round four, item 3: a Chinese sentence that ends with a value ends with "。", not "." ("最高可运行 CUDA
        # 13.0."); a flavor is one word with its noun ("专有内核模块", not "专有 内核模块")
        if re.search("[\u4e00-\u9fff]", bare) and re.search(r"[A-Za-z0-9)]\.$", bare.rstrip()) and "/" not in bare.split()[-1]:
            found.append("ASCII full stop after Chinese text: " + line.strip()[-30:])
        found += ["space after a flavor: " + m.group(0) for m in re.finditer(r"(专有|开源) (内核模块|类型)", bare)]
        # issue 35 walk, cosmetics: a list in Chinese text takes the language's separator ("，"), not ", " (doctor's
        # "6.8.0-45-generic, 安全启动：开启", "（cuda_runfile, cudnn）"), and no space after "。" before a code ("。 [no-cuda]")
        found += ["ASCII comma in Chinese text: " + m.group(0) for m in
                  re.finditer(r"[\u4e00-\u9fff）], |, [\u4e00-\u9fff（]|（[^）\s,]+(?:, [^）\s,]+)+）", bare)]
        found += ["space after 。: " + m.group(0) for m in re.finditer(r"。 \[", bare)]
        # …and the next sentence, or a bracket, follows a full-width stop without a space ("重启。 然后", "。 (`apt")
        found += ["space after 。: " + m.group(0) for m in re.finditer(r"..。 [\u4e00-\u9fff(（]", bare)]
    return found


# No source list on a user's screen (issue 35, item 5): sources are for -v, the JSON and the log.
SOURCES = re.compile(r"来源：|出处：|Source:|source:|README|\.csv\b|shared/data|\(read\)|（read）")


def sources(text):
    return [l.strip() for l in text.splitlines() if SOURCES.search(l)]


def width(s):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)


def ragged(dump, cols):
    """Rows of the welcome's first paragraph that end well short of the edge although the paragraph goes on."""
    rows = dump.split("\n")[2:]
    para = []
    for r in rows:
        if not r.strip():
            break
        para.append(r)
    # Each row but the last reaches to within a Latin word's length (and the breaker's slack) of the edge.
    return [r for r in para[:-1] if width(r.rstrip()) < cols - 2 - min(10, max(4, cols // 8)) - 8]


t.eq(layout("自动: cuDNN 9.5.1"), ["ASCII colon after CJK: 动:"], "the layout check: an ASCII colon after CJK")
t.eq(layout("  环境   < system >"), ["untranslated choice: < system >"], "the layout check: an English choice label")
t.eq(layout("  工具   < venv >\n  cuda      install     CUDA 12.6"), ["untranslated step: cuda      install     CUDA 12.6"],
     "the layout check: a tool's name is not a label; an English Review step is")
t.eq(english("CUDA 12.6 已安装在 /p/cuda-12.6。"), [], "the detector: a product name and a path are not a sentence")
t.eq(english("检查：cudaup verify --prefix '/p'"), [], "the detector: a command is not a sentence")
t.ok(english("无法继续：the install has no libcudart"), "the detector: an English clause is found")
t.eq(len(layout("  修复： 请安装\n它没有能在这里运行的版本，但cudaup install --cuda 12.4\n您是想用 '--framework' 吗？")), 3,
     "the layout check: a space after a full-width colon, a Latin word glued to CJK, ASCII quotes in Chinese")
t.eq(layout("修复：请运行 `echo 'blacklist nouveau' | sudo tee x`"), [], "the layout check: a command keeps its quotes")
t.eq(len(layout("✓ 通过  driver      NVIDIA 580.95.05，最高可运行 CUDA 13.0.\n需要专有 内核模块\n请重启。 然后再运行")), 3,
     "the layout check: an ASCII stop after a Chinese sentence, a space between a flavor and its noun, a space after 。")
t.eq(layout("最高可运行 CUDA 13.0。\n请运行：. /p/state/env.sh"), [], "the layout check: a full-width stop, a shell's . command")
t.ok(sources("驱动：分支 580。来源：shared/data/driver/README.md (read)") != [], "the source check finds a source list")


class Box:
    def __init__(self, tag, root=TWO, env=TENV):
        self.dir = t.tmpdir(tag)
        self.root, self.menv = root, env
        self.prefix, self.state, self.cache, self.home, self.profile_d = (
            os.path.join(self.dir, n) for n in ("prefix", "state", "cache", "home", "profile.d"))
        os.makedirs(self.home)
        os.makedirs(self.profile_d)
        self.n = 0

    def env(self):
        e = dict(self.menv, **NOW)
        e.update(ZH)
        e.update({"HOME": self.home, "CUDAUP_PROFILE_D": self.profile_d})
        return e

    def wizard(self, keys, *args, size=(80, 24)):
        self.n += 1
        script = os.path.join(self.dir, "keys%d" % self.n)
        names = []
        with open(script, "w") as f:
            for k in keys:
                if k.startswith(("DUMP ", "now DUMP ")):  # "now": even while a job runs
                    name = k.split("DUMP ", 1)[1]
                    names.append(name)
                    f.write("%sdump %s\n" % ("now " if k.startswith("now") else "",
                                              os.path.join(self.dir, "%d-%s.txt" % (self.n, name))))
                else:
                    f.write(k + "\n")
        e = self.env()
        e.update({"CUDAUP_TUI_HEADLESS": "1", "COLUMNS": str(size[0]), "LINES": str(size[1]), "TERM": "xterm-256color",
                  "SHELL": "/bin/bash"})
        r = run(["--keys-script", script, "--root", self.root, "--mirror", "file://" + MIRROR, "--prefix", self.prefix,
                 "--state-dir", self.state, "--cache-dir", self.cache] + list(args), env=e, timeout=300)
        dumps = {}
        for name in names:
            p = os.path.join(self.dir, "%d-%s.txt" % (self.n, name))
            dumps[name] = open(p, encoding="utf-8").read() if os.path.exists(p) else ""
        return r, dumps

    def cli(self, *args, root=None):
        return run(list(args[:1]) + ["--root", root or self.root, "--mirror", "file://" + MIRROR, "--prefix", self.prefix,
                                      "--state-dir", self.state, "--cache-dir", self.cache] + list(args[1:]),
                   env=self.env(), timeout=300)


# ---- The wizard: every screen of a first install with TensorFlow's refusal and help overlays ----
b = Box("walk")
WALK = ["DUMP welcome", "?", "DUMP help-welcome", "esc", "enter", "DUMP system", "enter", "DUMP framework",
        "?", "DUMP help-framework", "esc", "down", "down", "down", "enter", "DUMP versions", "enter", "DUMP components",
        "enter", "DUMP location", "enter", "DUMP review", "end", "DUMP review-end", "enter", "DUMP validation", "enter",
        "DUMP done", "enter"]
r, d = b.wizard(WALK, "--env-scope", "user", "--shell-rc", os.path.join(b.home, ".bashrc"))
t.eq(r.rc, 0, "zh_CN: a first install through every screen", r)
# round four, item 4: the files row names the key, as the English screen does, not the CLI's --deep (after "；")
t.ok("--deep" not in d.get("validation", "") and "深度检查（验证屏幕上的d键）会重新计算哈希" in "".join(d.get("validation", "").split()),
     "zh_CN Validation: the files row names the key d, not --deep", d.get("validation", ""))
for name in [w[5:] for w in WALK if w.startswith("DUMP ")]:
    t.eq(english(d.get(name, "")), [], "zh_CN wizard %s: no English sentence" % name, d.get(name, ""))
    t.eq(layout(d.get(name, "")), [], "zh_CN wizard %s: full-width colons, translated labels" % name, d.get(name, ""))

# The same screens, short of installing, at 60x20 and 120x40; the welcome's text fills its rows at each size.
SHORT = ["DUMP welcome", "?", "DUMP help-welcome", "esc", "enter", "DUMP system", "enter", "DUMP framework",
         "down", "down", "down", "enter", "DUMP versions", "tab", "DUMP cudnn", "tab", "enter", "DUMP components",
         "enter", "DUMP location", "enter", "DUMP review", "end", "DUMP review-end", "q", "y"]
for size in ((60, 20), (80, 24), (120, 40)):
    tag = "%dx%d" % size
    r, d = Box("short-%s" % tag).wizard(SHORT, "--env-scope", "user", size=size)
    for name in [w[5:] for w in SHORT if w.startswith("DUMP ")]:
        t.eq(english(d.get(name, "")) + layout(d.get(name, "")), [],
             "zh_CN %s %s: no English sentence, full-width colons, translated labels" % (tag, name), d.get(name, ""))
    t.eq(ragged(d.get("welcome", ""), size[0]), [], "zh_CN %s: the welcome's CJK text fills its rows, not ragged "
         "next to Latin words" % tag, d.get("welcome", ""))

# The framework's own choices: TensorFlow 1.14 refused on the Versions screen, and the Review's reasons.
r, d = Box("tf").wizard(["enter", "enter", "DUMP framework", "enter", "DUMP versions", "enter", "DUMP next", "q", "y"],
                        "--framework", "tensorflow==1.14")
for name in ("framework", "versions", "next"):
    t.eq(english(d.get(name, "")), [], "zh_CN TensorFlow 1.14 %s: no English sentence" % name, d.get(name, ""))
r, d = Box("tf2").wizard(["enter", "enter", "enter", "enter", "enter", "enter", "enter", "DUMP review", "end",
                          "DUMP review-end", "q", "y"], "--framework", "tensorflow")
for name in ("review", "review-end"):
    t.eq(english(d.get(name, "")), [], "zh_CN TensorFlow review %s: no English sentence" % name, d.get(name, ""))

# The existing-install menu, verify, its uninstall dialog.
r, d = b.wizard(["DUMP welcome2", "enter", "DUMP menu", "enter", "DUMP verify", "esc", "down", "down", "down", "down",
                 "enter", "DUMP ask", "n", "q", "y"])
for name in ("welcome2", "menu", "verify", "ask"):
    t.eq(english(d.get(name, "")), [], "zh_CN existing install %s: no English sentence" % name, d.get(name, ""))
    t.eq(layout(d.get(name, "")), [], "zh_CN existing install %s: full-width colons, translated labels" % name,
         d.get(name, ""))
# A damaged install: the menu's state, Validation's failures and Done, at each size.
os.remove(os.path.join(b.prefix, "cuda-12.6", "bin", "nvcc"))
for size in ((60, 20), (80, 24), (120, 40)):
    tag = "%dx%d" % size
    r, d = b.wizard(["DUMP welcome3", "enter", "DUMP menu", "home", "enter", "DUMP verify", "enter", "DUMP done",
                     "q", "y"], size=size)
    for name in ("menu", "verify", "done"):
        t.eq(english(d.get(name, "")) + layout(d.get(name, "")), [],
             "zh_CN %s damaged install %s: no English sentence, full-width colons" % (tag, name), d.get(name, ""))
    t.ok("建议修复" in d.get("menu", "") and "按 r 修复" in d.get("verify", "").replace("\n", ""),
         "zh_CN %s: the menu recommends Repair; Validation names the key" % tag, d.get("menu", "") + d.get("verify", ""))

# ---- The CLI: each command's text, and its errors ----
CLI = [ ("plan", ["plan", "--framework", "none"]),
       ("plan tensorflow", ["plan", "--framework", "tensorflow"]),
       ("plan tensorflow 1.14", ["plan", "--framework", "tensorflow==1.14"]),
       # the cuDNN pip brings: "…列出了这里的每块 GPU。" / "…GPU：…", not "GPU." / "GPU: " (an independent walk)
       ("plan pytorch", ["plan", "--framework", "pytorch"]), ("plan jax", ["plan", "--framework", "jax"]),
       ("install", ["install", "--yes", "--framework", "none", "--env-scope", "none"]),
       ("install again", ["install", "--yes", "--framework", "none", "--env-scope", "none"]),
       ("verify", ["verify"]), ("list", ["list"]), ("repair", ["repair", "--yes"]),
       ("bad version", ["plan", "--cuda", "x.y"]), ("missing version", ["plan", "--cuda", "99.9"]),
       ("unknown option", ["plan", "--bogus"]), ("uninstall", ["uninstall", "12.6", "--yes"]),
       ("uninstall again", ["uninstall", "12.6", "--yes"])]
c = Box("cli")
r = run(["doctor", "--root", TWO], env=c.env())
t.eq(english(r.out + r.err), [], "zh_CN cudaup doctor: no English sentence (exit %d)" % r.rc, r)
for name, args in CLI:
    r = c.cli(*args)
    said = english(r.out + "\n" + r.err)
    t.eq(said, [], "zh_CN cudaup %s: no English sentence (exit %d)" % (name, r.rc), r)
    t.eq(layout(r.out + "\n" + r.err) + sources(r.out + "\n" + r.err), [],
         "zh_CN cudaup %s: Chinese punctuation and spacing, no source list" % name, r)

# TensorFlow 1.14 on a GTX 970 with driver 535 (issue 35): a Versions row names the choice, not "（--cuda）", and the
# automatic row's note joins in Chinese; Components gives cuDNN's .tgz no size that no source gave (not its download
# limit, 17 GB); a Python the mirror lacks: two choices of one screen, the screen named once.
sys.path.insert(0, os.path.join(SRCDIR, "tests", "fixtures"))
import machines  # noqa: E402

G535 = os.path.join(t.tmpdir("gtx535"), "root")
machines.build_spec({"os": "ubuntu", "gpus": [("0000:01:00.0", "13c2", "0x030000", "nvidia", "5.2", 4096, "NVIDIA GeForce GTX 970")],
                     "driver": "535.183.01", "cuda": 12020, "libs": True}, G535)
g5 = Box("gtx535", root=G535, env={"FAKE_NVIDIA_CONFIG": os.path.join(G535, "fake-nvidia.conf")})
r, d = g5.wizard(["enter", "enter", "enter", "DUMP versions", "enter", "DUMP components", "enter", "enter", "enter", "enter",
                  "wait", "DUMP failed", "q", "y"], "--framework", "tensorflow==1.14", "--python-source", "cudaup",
                 "--retries", "0")
nospace = lambda x: "".join(x.split())  # noqa: E731  (rows joined again however the wrapping split them)
t.ok("--cuda" not in d["versions"] and "自动：cuDNN7.4.2，TensorFlow1.14.0" in nospace(d["versions"]),
     "zh_CN Versions of TensorFlow 1.14: no flag, the automatic note joined in Chinese", d["versions"])
t.ok("cuDNN7.4.2.24（大小未公布）" in nospace(d["components"]) and " GB" not in d["components"],
     "zh_CN Components: cuDNN's unpublished size said so, not its download limit", d["components"])
# round four, item 5: CUDA 10.0 comes as one runfile: the screen says so, not "0 个组件，0 B"
t.ok("0 个组件" not in d["components"] and "只有一个安装程序" in nospace(d["components"]) and "整个工具包，" in d["components"],
     "zh_CN Components of a runfile toolkit: one installer, the whole toolkit, not 0 components", d["components"])
t.ok("“Python环境”屏幕上的“来源：本机的”或“工具：conda”" in nospace(d["failed"]),
     "zh_CN: a Python the mirror lacks, the two choices of one screen with the screen once", d["failed"])
t.ok(not re.search(r" [“”]|[“”] ", d["failed"]), "zh_CN failure screen: no space beside a Chinese quote", d["failed"])
# A list in Chinese text takes "，" (issue 35 walk, cosmetics): the archives no size is published for, the Pythons offered.
r = g5.cli("plan", "--framework", "tensorflow==1.14", root=G535)
t.ok("（cuda_runfile，cudnn" in r.out and "cuda_runfile, " not in r.out, "zh_CN plan: the unsized archives listed with ，", r.out)
r, d = g5.wizard(["enter"] * 6 + ["DUMP pyenv", "q", "y"], "--framework", "tensorflow==1.14")
offer = [x for x in d["pyenv"].split("\n") if "可选：" in x]
t.ok(offer and "，" in offer[0] and ", " not in offer[0], "zh_CN Python environment: the choices listed with ，", d["pyenv"])

# ---- The driver's screens and sentences (issue 35, items 5 and 6): the GTX 970 with nouveau, planned with a
# driver; doctor on broken-driver states.  "proprietary"/"open" and the reasons in Chinese, no source list. ----
sys.path.insert(0, os.path.join(SRCDIR, "tests", "fixtures"))
import machines  # noqa: E402
GTX, GENV = machine(t, "u2404-gtx970-nouveau-sb")
GENV = dict(GENV, CUDAUP_DRIVER="auto")
g = Box("gtx970", root=GTX, env=GENV)
for name, args in (("plan", ["plan", "--framework", "none"]), ("plan tensorflow 1.14", ["plan", "--framework", "tensorflow==1.14"]),
                   ("plan -q --driver 580-open", ["plan", "--driver", "580-open"]), ("doctor", ["doctor"])):
    r = g.cli(*args)
    text = r.out + "\n" + r.err
    t.eq(english(text) + layout(text) + sources(text), [],
         "zh_CN GTX 970 with nouveau, cudaup %s: no English sentence, no source list (exit %d)" % (name, r.rc), r)
    if name == "plan":
        t.ok("专有" in r.out and "proprietary" not in r.out, "zh_CN plan: the driver's flavor in Chinese", r.out)
        # round four, item 2: the pin's file is said apart from the pin, in the sentence's language
        t.ok("`Pin: version 580.* (*nvidia*)`" in r.out and ") in /etc" not in r.out
             and "/etc/apt/preferences.d/cudaup-nvidia-driver 中" in r.out, "zh_CN plan: the pin, then its file in Chinese words", r.out)
    if name == "doctor":
        t.ok("proprietary" not in text, "zh_CN doctor: the flavor in the fix that installs the driver in Chinese", text)
r, d = g.wizard(["enter", "DUMP system", "enter", "down", "down", "down", "enter", "enter", "enter", "enter", "DUMP review",
                 "end", "DUMP review-end", "q", "y"])
for name in ("system", "review", "review-end"):
    t.eq(english(d.get(name, "")) + layout(d.get(name, "")) + sources(d.get(name, "")), [],
         "zh_CN wizard on the GTX 970 with nouveau, %s: no English sentence, no source list" % name, d.get(name, ""))
t.ok("专有" in d.get("review", "") + d.get("review-end", "") and "proprietary" not in d.get("review", "") + d.get("review-end", ""),
     "zh_CN Review: the driver's flavor in Chinese", d.get("review", ""))
rv = nospace(d.get("review", "") + d.get("review-end", ""))  # rows joined again however the wrapping split them
t.ok("Pin:version580.*(*nvidia*)" in rv and ")in/" not in rv and "锁定方式：" in rv,
     "zh_CN Review: the pin and its file, no English \"in\" between them", rv)
# A refusal whose advice names a command: spaced from the Chinese before it ("但 cudaup install …", not
# "但cudaup install"), the driver's flavor in Chinese, no space after a full-width stop.
OLD, OENV = machine(t, "maxwell-old-driver")
r = run(["plan", "--framework", "jax", "--root", OLD, "--mirror", "file://" + os.path.join(SRCDIR, "tests", "fixtures", "nvidia"),
         "--prefix", "/opt/cu", "--state-dir", t.tmpdir("st"), "--cache-dir", t.tmpdir("c")], env=dict(OENV, **ZH))
t.ok(r.rc == 3 and "cudaup install --framework jax" in r.err and layout(r.err) == [] and "proprietary" not in r.err and
     "。 " not in r.err and "专有内核模块" in r.err, "zh_CN refusal with advice: spaced, no glued Latin, the flavor translated", r)
U1080 = [("0000:01:00.0", "1b80", "0x030000", "nvidia", "6.1", 8192, "NVIDIA GeForce GTX 1080")]
for tag, spec in (("unpinned", {"os": "ubuntu2404", "gpus": U1080, "driver": "580.95.05", "cuda": 13000, "libs": True,
                                "dpkg": [("nvidia-driver-580", "install ok installed")]}),
                  ("flavor", {"os": "ubuntu2404", "gpus": U1080, "driver": "580.95.05", "cuda": 13000, "libs": True,
                              "flavor": "open", "dpkg": [("nvidia-driver-580-open", "hold ok installed")]})):
    root = os.path.join(t.tmpdir(tag), "root")
    machines.build_spec(spec, root)
    r = run(["doctor", "--root", root], env=dict(ZH, FAKE_NVIDIA_CONFIG=os.path.join(root, "fake-nvidia.conf")))
    text = r.out + "\n" + r.err
    t.eq(english(text) + layout(text) + sources(text), [],
         "zh_CN doctor, driver %s: no English sentence, no source list (exit %d)" % (tag, r.rc), r)
    if tag == "unpinned":
        t.ok("`Pin: version 580.* (*nvidia*)`" in text and ") in /etc" not in text and "cudaup-nvidia-driver 中" in text,
             "zh_CN doctor, driver not held: the pin and its file apart, the sentence in Chinese", text)
r = c.cli("verify", root=NOGPU)
t.eq(english(r.out + r.err), [], "zh_CN verify without a driver: no English sentence", r)
r = c.cli("doctor", root=NOGPU)
t.eq(english(r.out + r.err), [], "zh_CN doctor without a driver: no English sentence", r)

# ---- The driver stage's lines (issue 35 round four, item 1): the runner's own lines ("running …", "writing …")
# in Chinese with the command as it is, and each line of the package manager once (it came twice: the log's
# "apt-get: …" copy and the step's own). ----
DI = os.path.join(t.tmpdir("drvinst"), "root")
machines.build("u2404-gtx970-nouveau-sb", DI)
os.makedirs(os.path.join(DI, "etc/apt"), exist_ok=True)
open(os.path.join(DI, "etc/apt/sources.list"), "w").write("deb http://archive.ubuntu.com/ubuntu noble main restricted universe multiverse\n")
DBIN = os.path.join(t.tmpdir("drvinst-bin"), "bin")
os.makedirs(DBIN)
for cmd in ("apt-get", "apt-mark", "dpkg-query", "update-initramfs", "modprobe", "mokutil", "dkms"):
    os.symlink(os.path.join(SRCDIR, "tests", "fakes", "syscmd-standin"), os.path.join(DBIN, cmd))
di = Box("drvinst-box", root=DI, env={"FAKE_NVIDIA_CONFIG": os.path.join(DI, "fake-nvidia.conf"), "CUDAUP_DRIVER": "auto",
                                      "CUDAUP_SYSTEM_BIN": DBIN, "CUDAUP_SYSTEM_ROOT": DI, "STANDIN_ROOT": DI,
                                      # the archive's packages: the kernel meta brings Ubuntu's signed module for 6.8.0-45
                                      "STANDIN_WORLD": json.dumps({"nvidia-driver-580": [],
                                                                   "linux-modules-nvidia-580-generic": ["linux-modules-nvidia-580-6.8.0-45-generic"],
                                                                   "linux-modules-nvidia-580-6.8.0-45-generic": []})})
# The wizard's Progress screen while another process holds dpkg's lock (a helper that lets go once the screen
# has been dumped): the runner's line in Chinese, the note that the package manager is busy once (it came
# twice: the log's copy and the step's own line).
HOLD = """import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o640)
fcntl.lockf(fd, fcntl.LOCK_EX)
open(sys.argv[3], "w").close()
end = time.monotonic() + 240
while not os.path.exists(sys.argv[2]) and time.monotonic() < end:
    time.sleep(0.1)
"""
os.makedirs(os.path.join(DI, "var/lib/dpkg"), exist_ok=True)
held = os.path.join(di.dir, "held")
holder = subprocess.Popen([sys.executable, "-c", HOLD, os.path.join(DI, "var/lib/dpkg/lock-frontend"),
                           os.path.join(di.dir, "1-progress.txt"), held])
while not os.path.exists(held) and holder.poll() is None:
    time.sleep(0.05)
r, d = di.wizard(["enter", "enter", "down", "down", "down", "enter", "enter", "enter", "enter", "enter", "sleep 4000",
                  "now DUMP progress", "wait", "DUMP after", "enter"], "--env-scope", "none", size=(100, 30))
holder.wait()
pg = d.get("progress", "")
busy = [x for x in pg.splitlines() if "包管理器正忙" in x]
t.ok("正在运行：'apt-get' 'install'" in pg and "）持有它的锁" in "".join(x.strip() for x in pg.splitlines()) and "running '" not in pg and len(busy) == 1,
     "zh_CN Progress during the driver stage: the runner's line in Chinese, the busy note once", pg)
shutil.rmtree(DI)
machines.build("u2404-gtx970-nouveau-sb", DI)
os.makedirs(os.path.join(DI, "etc/apt"), exist_ok=True)
open(os.path.join(DI, "etc/apt/sources.list"), "w").write("deb http://archive.ubuntu.com/ubuntu noble main restricted universe multiverse\n")
shutil.rmtree(di.state, ignore_errors=True)
shutil.rmtree(di.prefix, ignore_errors=True)
for verbose in ([], ["-v"]):
    r = di.cli("install", "--yes", "--framework", "none", "--env-scope", "none", *verbose)
    lines = r.err.splitlines()
    setting = [x for x in lines if "Setting up nvidia-driver-580" in x]
    t.ok(r.rc == 5 and len(setting) == 1, "zh_CN install %s: the package manager's line shown once (exit %d)"
         % (" ".join(verbose) or "(plain)", r.rc), r.err[-3000:])
    t.eq(layout(r.out + r.err), [], "zh_CN install %s on the GTX 970: full-width stops, no space after 。"
         % (" ".join(verbose) or "(plain)"), r.out + r.err[-3000:])
    if verbose:
        t.ok("正在运行：'apt-get' 'install'" in r.err and "正在写入 " in r.err and "running '" not in r.err
             and "writing /" not in r.err, "zh_CN install -v: the runner's lines in Chinese, the command as it is", r.err[-3000:])
    if not verbose:
        # item 4: doctor while the reboot is pending says reboot, not "run cudaup install: it installs the driver"
        r = di.cli("doctor")
        t.ok("请重启以加载 NVIDIA 驱动" in r.out and "它会安装 NVIDIA 驱动" not in r.out and layout(r.out) == [],
             "zh_CN doctor before the reboot: reboot, not install the driver again (exit %d)" % r.rc, r.out)
    if verbose:
        # item 4: `uninstall driver` says what goes (from the record) before it asks, as `uninstall VERSION` does
        r = di.cli("uninstall", "driver", "--yes")
        t.ok(r.rc == 0 and "cudaup 的步骤安装的软件包（apt）：" in r.out and "nvidia-driver-580" in r.out
             and "文件 /etc/apt/preferences.d/cudaup-nvidia-driver" in r.out and "cudaup-blacklist-nouveau.conf" in r.out
             and "随后重建 initramfs" in r.out and english(r.out + r.err) + layout(r.out + r.err) == [],
             "zh_CN uninstall driver: what it undoes, listed before it asks, in Chinese", r)
    # the next run installs again: the machine as it was
    shutil.rmtree(DI)
    machines.build("u2404-gtx970-nouveau-sb", DI)
    os.makedirs(os.path.join(DI, "etc/apt"), exist_ok=True)
    open(os.path.join(DI, "etc/apt/sources.list"), "w").write("deb http://archive.ubuntu.com/ubuntu noble main restricted universe multiverse\n")
    shutil.rmtree(di.state, ignore_errors=True)

# ---- Every message path: each file that marks messages is extracted, and each message has its translation ----
potfiles = [ln.strip() for ln in open(os.path.join(SRCDIR, "po", "POTFILES")) if ln.strip()]
marked = []
for top in ("cli", "core", "installers", "tui"):
    for dp, _, fns in os.walk(os.path.join(SRCDIR, top)):
        for fn in fns:
            if fn.endswith(".c"):
                rel = os.path.relpath(os.path.join(dp, fn), SRCDIR)
                if re.search(r'\b(N_|_|ngettext_)\("', open(os.path.join(SRCDIR, rel), encoding="utf-8").read()):
                    marked.append(rel)
t.eq(sorted(set(marked) - set(potfiles)), [], "po/POTFILES lists every source file that marks messages for translation")
if shutil.which("xgettext") and shutil.which("msgmerge") and shutil.which("msgattrib"):
    tmp = t.tmpdir("pot")
    pot = os.path.join(tmp, "cudaup.pot")
    subprocess.run(["xgettext", "--keyword=_", "--keyword=N_", "--keyword=ngettext_:1,2", "--from-code=UTF-8",
                    "--language=C", "-o", pot, "-D", SRCDIR] + potfiles, check=True, capture_output=True)
    merged = os.path.join(tmp, "zh_CN.po")
    subprocess.run(["msgmerge", "-q", "--no-fuzzy-matching", os.path.join(SRCDIR, "po", "zh_CN.po"), pot, "-o", merged],
                   check=True, capture_output=True)
    left = subprocess.run(["msgattrib", "--untranslated", "--no-obsolete", merged], capture_output=True, text=True).stdout
    fuzzy = subprocess.run(["msgattrib", "--only-fuzzy", "--no-obsolete", merged], capture_output=True, text=True).stdout
    ids = re.findall(r'^msgid "(.+)"$', left + fuzzy, re.M)
    t.eq(ids, [], "zh_CN.po translates every message the sources mark (none untranslated or fuzzy)", left[-3000:])
else:
    t.skip("every message translated", "xgettext, msgmerge or msgattrib is not installed")
t.done()
