#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The house's layering (tools/checklayers): the tree as it is keeps every folder's "May use:" rule, and
the check does fail, naming the rule, on a planted include, a planted call upward and a planted loop."""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from cutest import BUILDDIR, SRCDIR, Tap  # noqa: E402

t = Tap()
TOOL = os.path.join(SRCDIR, "tools", "checklayers")


def check(*args):
    return subprocess.run([sys.executable, TOOL] + list(args), capture_output=True, text=True)


r = check("--src", SRCDIR, "--build", BUILDDIR)
t.ok(r.returncode == 0 and not r.stdout, "the tree keeps every folder's rule: no include or call against it, no loop",
     r.stdout + r.stderr)

# A copy of the product's sources with one include that goes up: core/base may use no other folder.
src = t.tmpdir("layers")
for top in ("core", "installers", "tui", "cli"):
    shutil.copytree(os.path.join(SRCDIR, top), os.path.join(src, top))
t.eq(check("--src", src).returncode, 0, "the copy alone passes")
victim = os.path.join(src, "core", "base", "str.c")
with open(victim, "a") as f:
    f.write('#include "core/resolve/plan.h"\n')
r = check("--src", src)
t.ok(r.returncode == 1 and "core/base/str.c:" in r.stdout and "includes core/resolve/plan.h" in r.stdout and
     "core/base may use no other folder (core/base/README.md)" in r.stdout,
     "a planted include from base up to resolve fails, naming the rule and where it is written", r.stdout + r.stderr)
os.remove(victim)
shutil.copy(os.path.join(SRCDIR, "core", "base", "str.c"), victim)
with open(os.path.join(src, "core", "catalog", "catalog.h"), "a") as f:
    f.write('#include "core/unpack/extract.h"\n')
r = check("--src", src)
t.ok(r.returncode == 1 and "core/catalog/catalog.h:" in r.stdout and "core/catalog may use core/base" in r.stdout,
     "a planted include between two folders side by side (catalog, unpack) fails", r.stdout + r.stderr)
shutil.copy(os.path.join(SRCDIR, "core", "catalog", "catalog.h"), os.path.join(src, "core", "catalog", "catalog.h"))
with open(os.path.join(src, "core", "base", "parse.h"), "a") as f:
    f.write('#include "core/base/str.h"\n')
with open(os.path.join(src, "core", "base", "str.h"), "a") as f:
    f.write('#include "core/base/parse.h"\n')
r = check("--src", src)
t.ok(r.returncode == 1 and "headers include each other round a ring" in r.stdout, "a planted include ring fails",
     r.stdout + r.stderr)

# Calls: a small tree of the same shape, compiled, with a compile_commands.json as meson writes it.
cc = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc") or shutil.which("clang")
if not cc or not shutil.which("nm"):
    t.skip("a planted call upward fails", "needs a C compiler and nm")
    t.skip("a planted loop fails", "needs a C compiler and nm")
else:
    mini = t.tmpdir("calls")
    build = os.path.join(mini, "build")
    os.makedirs(build)
    files = {
        "core/base/README.md": "# base\n\nMay use: nothing\n",
        "core/resolve/README.md": "# resolve\n\nMay use: core/base\n",
        "installers/README.md": "# installers\n\nMay use: core/base, core/resolve\n",
        "tui/README.md": "# tui\n\nMay use: core/base, core/resolve, installers\n",
        "cli/README.md": "# cli\n\nMay use: core/base, core/resolve, installers, tui\n",
        "core/base/str.c": "void cu_plan_make(void);\nvoid cu_str_x(void);\nvoid cu_str_x(void) { cu_plan_make(); }\n",
        "core/resolve/plan.c": "void cu_plan_make(void);\nvoid cu_plan_make(void) {}\n",
        "installers/a.c": "void inst_b(void);\nvoid inst_a(void);\nvoid inst_a(void) { inst_b(); }\n",
        "installers/b.c": "void inst_a(void);\nvoid inst_b(void);\nvoid inst_b(void) { inst_a(); }\n",
    }
    for rel, text in files.items():
        os.makedirs(os.path.dirname(os.path.join(mini, rel)), exist_ok=True)
        with open(os.path.join(mini, rel), "w") as f:
            f.write(text)
    db = []
    for rel in files:
        if rel.endswith(".c"):
            obj = rel.replace("/", "_") + ".o"
            subprocess.run([cc, "-c", os.path.join("..", rel), "-o", obj], cwd=build, check=True)
            db.append({"directory": build, "file": os.path.join("..", rel), "output": obj,
                       "command": "%s -c ../%s -o %s" % (cc, rel, obj)})
    import json
    with open(os.path.join(build, "compile_commands.json"), "w") as f:
        json.dump(db, f)
    r = check("--src", mini, "--build", build)
    t.ok(r.returncode == 1 and "core/base/str.c: calls cu_plan_make, defined in core/resolve/plan.c, but core/base may "
         "use no other folder (core/base/README.md)" in r.stdout,
         "a planted call from base up to resolve fails, naming the symbol, where it is defined and the rule",
         r.stdout + r.stderr)
    t.ok("source files call each other round a ring: installers/a.c -> installers/b.c (inst_b); "
         "installers/b.c -> installers/a.c (inst_a)" in r.stdout, "a planted loop between two files of one folder fails",
         r.stdout + r.stderr)

# tools/checksrc: no product source over 1,000 lines (a copy of the tool reads the tree it lies in).
big = t.tmpdir("big")
os.makedirs(os.path.join(big, "tools"))
os.makedirs(os.path.join(big, "core", "base"))
shutil.copy(os.path.join(SRCDIR, "tools", "checksrc"), os.path.join(big, "tools", "checksrc"))
with open(os.path.join(big, "core", "base", "big.c"), "w") as f:
    f.write("int x;\n" * 1000)
r = subprocess.run([sys.executable, os.path.join(big, "tools", "checksrc")], capture_output=True, text=True)
t.eq((r.returncode, r.stdout), (0, ""), "checksrc: a source of 1,000 lines passes")
with open(os.path.join(big, "core", "base", "big.c"), "a") as f:
    f.write("int y;\n")
r = subprocess.run([sys.executable, os.path.join(big, "tools", "checksrc")], capture_output=True, text=True)
t.ok(r.returncode == 1 and "core/base/big.c:1001: 1001 lines: no product source over 1000" in r.stdout,
     "checksrc: a source of 1,001 lines fails, saying to split it", r.stdout + r.stderr)
t.done()
