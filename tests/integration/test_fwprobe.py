#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""verify's framework probe (data/fwprobe.py) reads /proc/self/maps as the kernel writes it (issue 46 item 10): a
mapping's file is the sixth field onward, spaces and all, so that a file called "x libcudart.so.99.1" is not
taken for CUDA 99.1; " (deleted)" is the kernel's mark of a file deleted since it was mapped, told by the
mapping's device and inode from a file that is really called so.  The probe's functions are run on maps
texts written here (its last line, which runs the probe, is left out)."""
import os

from cutest import SRCDIR, Tap

t = Tap()
src = open(os.path.join(SRCDIR, "data", "fwprobe.py")).read()
assert src.rstrip().endswith("sys.exit(main())")
probe = {"__name__": "fwprobe"}
exec(compile(src.rstrip()[:-len("sys.exit(main())")], "fwprobe.py", "exec"), probe)

d = t.tmpdir("fwprobe")


def maps(*lines):
    p = os.path.join(d, "maps")
    with open(p, "w") as f:
        f.write("".join(line + "\n" for line in lines))
    return p


def line(path, dev="08:01", ino=4242):
    return "7f0000000000-7f0000001000 r-xp 00000000 %s %d                      %s" % (dev, ino, path)


# A library whose name holds a space and ends like CUDA's runtime: not CUDA 99.1.
odd = os.path.join(d, "x libcudart.so.99.1")
got = probe["loaded_libs"](maps(line(odd), "7f0000002000-7f0000003000 rw-p 00000000 00:00 0 "))
t.eq(got, {}, "a file named 'x libcudart.so.99.1' is no CUDA runtime")
t.eq(probe["mapped"](maps(line(odd))), [odd], "mapped(): the path whole, spaces and all")

# The real ones, and one deleted since it was mapped (an upgrade under a running process).
rt = os.path.join(d, "lib", "libcudart.so.12.6.77")
dn = os.path.join(d, "lib", "libcudnn.so.9.1.0")
got = probe["loaded_libs"](maps(line(rt), line(dn + " (deleted)")))
t.eq(got, {"cuda_loaded": "12.6.77", "cudnn_loaded": "9.1.0"},
     "libcudart and a libcudnn deleted since it was mapped: their versions, without the kernel's mark")
t.eq(probe["mapped"](maps(line(dn + " (deleted)"))), [dn], "mapped(): the kernel's ' (deleted)' mark goes")

# A file really called "... (deleted)", the very one mapped (its device and inode): its name is kept.
named = os.path.join(d, "libfoo.so.1 (deleted)")
open(named, "w").close()
st = os.stat(named)
dev = "%02x:%02x" % (os.major(st.st_dev), os.minor(st.st_dev))
t.eq(probe["mapped"](maps(line(named, dev, st.st_ino))), [named], "a file named 'libfoo.so.1 (deleted)': its own name")
t.eq(probe["mapped"](maps(line(named, dev, st.st_ino + 1))), [named[:-len(" (deleted)")]],
     "another inode at that name: the mapping's file was deleted, the mark goes")
t.done()
