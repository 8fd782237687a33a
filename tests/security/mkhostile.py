#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generate the hostile archives of TESTCASES.md 2.1 and their expected outcome.

Usage: mkhostile.py OUTDIR
Writes OUTDIR/NAME.tar.xz (or other containers) and OUTDIR/cases.txt with
lines "NAME EXPECT WHY" where EXPECT is ok, unsafe (CU_E_UNSAFE_PATH) or archive
(CU_E_ARCHIVE), and WHY names the check that must refuse it (test_extract.c maps
each to the sentence of that check; "-" for ok).  Built with Python's tarfile and lzma,
never by hand-edited bytes, so they can be regenerated.
"""
import binascii
import bz2
import gzip
import io
import lzma
import os
import struct
import sys
import tarfile
import zipfile

OUT = sys.argv[1]
os.makedirs(OUT, exist_ok=True)
CASES = []
T = "top"  # every archive's top folder


def ti(name, kind=tarfile.REGTYPE, size=0, mode=0o644, link="", pax=None):
    t = tarfile.TarInfo(name)
    t.type = kind
    t.size = size
    t.mode = mode
    t.linkname = link
    t.mtime = 1700000000
    if pax:
        t.pax_headers = pax
    return t


def tar_bytes(entries, fmt=tarfile.PAX_FORMAT, encoding="utf-8"):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=fmt, encoding=encoding) as tar:
        for e in entries:
            info, data = e if isinstance(e, tuple) else (e, None)
            if data is not None:
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
            else:
                tar.addfile(info)
    return buf.getvalue()


def save(name, expect, data, xz=True, ext=".tar.xz"):
    with open(os.path.join(OUT, name + ext), "wb") as f:
        f.write(lzma.compress(data, preset=1) if xz else data)
    why = "-"
    if " " in expect:
        expect, why = expect.split(" ", 1)
    CASES.append((name + ext, expect, why))


def case(name, expect, entries, **kw):
    save(name, expect, tar_bytes([ti(T + "/", tarfile.DIRTYPE, mode=0o755)] + entries), **kw)


def f(name, data=b"x\n", mode=0o644, pax=None):
    return (ti(name, size=len(data), mode=mode, pax=pax), data)


def link(name, target):
    return ti(name, tarfile.SYMTYPE, link=target, mode=0o777)


def hard(name, target, size=0):
    return ti(name, tarfile.LNKTYPE, link=target, size=size)


# A legitimate component: nested folders, a versioned .so chain (item 13).
case("good", "ok", [ti(T + "/lib/", tarfile.DIRTYPE, mode=0o755), f(T + "/lib/libfoo.so.12.3.4", b"\x7fELF\n", 0o755),
                    link(T + "/lib/libfoo.so.12", "libfoo.so.12.3.4"), link(T + "/lib/libfoo.so", "libfoo.so.12"),
                    f(T + "/include/foo.h"), f(T + "/bin/tool", b"#!/bin/sh\n", 0o755), f(T + "/LICENSE")])

# 1-2 Path shape.
for i, n in enumerate(["/etc/cudaup-canary", "//x", "/../x"]):
    save("abs%d" % i, "unsafe name", tar_bytes([f(n)]))
for i, n in enumerate([T + "/../x", T + "/a/../../x", T + "/a/..", T + "/..", "./../x", T + "/a/./../.."]):
    case("dotdot%d" % i, "unsafe name", [f(n)])
# 3 Names that are only ".", a//b, long components, a long PAX path.
case("dot", "unsafe name", [f(T + "/.")])
case("doubleslash", "unsafe name", [f(T + "/a//b")])
case("longcomp", "unsafe name", [f(T + "/" + "a" * 300)])
case("longpath", "unsafe name", [f(T + "/" + "/".join(["d" * 200] * 30) + "/x")])
# 4 Control characters, backslashes, odd bytes, look-alike dots.
case("newline", "unsafe name", [f(T + "/evil\nname")])
case("escape", "unsafe name", [f(T + "/\x1b[31mred")])
case("backslash", "ok", [f(T + "/a\\..\\b")])
case("fullwidth", "ok", [f(T + "/\uff0e\uff0e/x")])
save("latin1", "ok", tar_bytes([ti(T + "/", tarfile.DIRTYPE, mode=0o755), f(T + "/caf\xe9", b"x")],
                               fmt=tarfile.GNU_FORMAT, encoding="latin-1"))
# 5 PAX disagreeing with ustar (libarchive reads PAX, and so do we), a PAX size override.
case("paxname", "ok", [f(T + "/ustar-name", pax={"path": T + "/pax-name"})])
case("paxevil", "unsafe name", [f(T + "/ok", pax={"path": "../../evil"})])
case("negmtime", "ok", [f(T + "/old", pax={"mtime": "-100"})])
# 6-7 Links out of the tree, and writing through links.
case("linkabs", "unsafe linkout", [link(T + "/d", "/etc"), f(T + "/d/passwd")])
case("linkup", "unsafe linkout", [link(T + "/d", "../../..")])
case("linkdot", "unsafe through", [link(T + "/d", "."), f(T + "/d/x")])
case("linkself", "ok", [link(T + "/d", "d")])
# One level out, from the top and from a folder: the smallest escapes (an off-by-one in the check).
case("linkup1", "unsafe linkout", [link(T + "/d", "../sibling-install")])
case("linkup1deep", "unsafe linkout", [ti(T + "/lib/", tarfile.DIRTYPE, mode=0o755), link(T + "/lib/d", "../../x")])
case("linkinside1", "ok", [ti(T + "/lib/", tarfile.DIRTYPE, mode=0o755), link(T + "/lib/d", "../include")])
# A chain that passes the lexical check: y leads to the top, and esc goes through y and up past it
# (cudaup issue 12); also with the links in the other order, so the way opens after esc is placed.
Y = T + "/include/a/b/c/d/e/f/g/h/y"
case("linkchainout", "unsafe chain", [link(Y, "../../../../../../../../.."),
                                      link(T + "/include/esc", "a/b/c/d/e/f/g/h/y/../../../../../../../../../../etc")])
case("linkchainout2", "unsafe chain", [link(T + "/include/esc", "a/b/c/d/e/f/g/h/y/../../../../../../../../../../etc"),
                                       link(Y, "../../../../../../../../..")])
case("linkinside_through", "unsafe through", [ti(T + "/real/", tarfile.DIRTYPE, mode=0o755), link(T + "/d", "real"), f(T + "/d/x")])
case("linkempty", "unsafe linkout", [link(T + "/e", "")])
# 9 A chain of links, each inside.
case("linkchain", "ok", [link(T + "/l%d" % i, "l%d" % (i + 1)) for i in range(40)])
# 10 Hard links.
case("hardabs", "unsafe name", [hard(T + "/h", "/etc/passwd")])
case("hardup", "unsafe name", [hard(T + "/h", "../x")])
# A hard link that carries data, written so that libarchive parses it (a pax "size" record), so
# that cudaup's own check is what refuses it (CVE-2016-5418 shape).
case("harddata", "unsafe harddata", [f(T + "/a"), (ti(T + "/h", tarfile.LNKTYPE, link=T + "/a", size=5,
                                                      pax={"size": "5"}), b"12345")])
case("hardtolink", "unsafe hardlink", [link(T + "/s", "a"), hard(T + "/h", T + "/s")])
case("hardself", "unsafe hardlink", [hard(T + "/h", T + "/h")])
case("hardlater", "unsafe hardlink", [hard(T + "/h", T + "/later"), f(T + "/later")])
case("hardthroughlink", "unsafe hardlink", [ti(T + "/r/", tarfile.DIRTYPE, mode=0o755), f(T + "/r/a"), link(T + "/L", "r"),
                                   hard(T + "/h", T + "/L/a")])
case("hardgood", "ok", [f(T + "/a", b"shared\n"), hard(T + "/h", T + "/a")])
# 11 A folder, then a link of the same name (the fix-up chmod case), 0777 folder too.
case("dirthenlink", "unsafe linkout", [ti(T + "/x/", tarfile.DIRTYPE, mode=0o777), link(T + "/x", "/tmp/cudaup-canary-target")])
case("dirthenlink2", "unsafe replacedir", [ti(T + "/x/", tarfile.DIRTYPE, mode=0o755), link(T + "/x", "y")])
# 12 The symlink-check cache order of libarchive #745.
case("cacheorder", "unsafe through", [f(T + "/aaa/bbb/ccc"), link(T + "/aaa/bb", "bbb"), f(T + "/aaa/bb/x")])
# 14 Devices, FIFOs.
case("chardev", "unsafe device", [ti(T + "/null", tarfile.CHRTYPE)])
case("blockdev", "unsafe device", [ti(T + "/sda", tarfile.BLKTYPE)])
case("fifo", "unsafe device", [ti(T + "/pipe", tarfile.FIFOTYPE)])
# 15 Set-id bits, odd modes, owners.
case("setuid", "ok", [f(T + "/bin/su", b"x", 0o4755), f(T + "/world", b"x", 0o666), f(T + "/allx", b"x", 0o777)])
case("dir0000", "ok", [ti(T + "/locked/", tarfile.DIRTYPE, mode=0o000), f(T + "/locked/inside")])
# 16 Duplicates.
case("dupfile", "ok", [f(T + "/a", b"first\n"), f(T + "/a", b"second\n")])
case("filethendir", "unsafe dirover", [f(T + "/a"), ti(T + "/a/", tarfile.DIRTYPE, mode=0o755), f(T + "/a/b")])
case("dirthenfile", "unsafe replacedir", [ti(T + "/a/", tarfile.DIRTYPE, mode=0o755), f(T + "/a")])
case("linkthenfile", "ok", [link(T + "/a", "b"), f(T + "/a", b"file wins\n")])
# 17 A tar cut short, a zero-size entry followed by stray bytes.
full = tar_bytes([ti(T + "/", tarfile.DIRTYPE, mode=0o755), f(T + "/big", b"y" * 10000)])
save("truncatedtar", "archive cutshort", full[:512 * 3 + 100])
bad = tar_bytes([ti(T + "/", tarfile.DIRTYPE, mode=0o755), f(T + "/z", b"")])
save("zerothendata", "archive nottar", bad[:1024] + b"JUNK" * 128 + bad[1024:])
# 18 The xz layer.
good_tar = tar_bytes([ti(T + "/", tarfile.DIRTYPE, mode=0o755), f(T + "/a", b"a" * 5000)])
xz = lzma.compress(good_tar)
save("xztrunc", "archive xzend", xz[:len(xz) // 2], xz=False)
corrupt = bytearray(xz)
corrupt[len(corrupt) // 2] ^= 0xFF
save("xzcorrupt", "archive xzcorrupt", bytes(corrupt), xz=False)
save("xznocheck", "ok", lzma.compress(good_tar, check=lzma.CHECK_NONE), xz=False)
save("xzsha256", "ok", lzma.compress(good_tar, check=lzma.CHECK_SHA256), xz=False)
save("xzgarbage", "archive xzend", xz + b"GARBAGE!", xz=False)
half = len(good_tar) // 2
save("xzconcat", "ok", lzma.compress(good_tar[:half]) + lzma.compress(good_tar[half:]), xz=False)
save("xzpadding", "ok", xz + b"\0" * 8, xz=False)
# 19 A dictionary bigger than the memory limit (the block header's LZMA2 byte set to 4 GiB).
hdr_size = (xz[12] + 1) * 4
blk = bytearray(xz[12:12 + hdr_size])
if blk[2] == 0x21 and blk[3] == 1:  # filter flags: LZMA2, one property byte
    blk[4] = 40
    blk[-4:] = struct.pack("<I", binascii.crc32(bytes(blk[:-4])) & 0xFFFFFFFF)
    save("xzmembomb", "archive memlimit", xz[:12] + bytes(blk) + xz[12 + hdr_size:], xz=False)
# A decompression bomb: 300 MiB of zeros.
bomb_tar = ti(T + "/", tarfile.DIRTYPE, mode=0o755).tobuf(format=tarfile.GNU_FORMAT)
member = ti(T + "/zeros", size=300 << 20)
enc = lzma.LZMACompressor(preset=1)
parts = [enc.compress(bomb_tar + member.tobuf(format=tarfile.GNU_FORMAT))]
chunk = b"\0" * (1 << 20)
for _ in range(300):
    parts.append(enc.compress(chunk))
parts.append(enc.compress(b"\0" * 1024))
parts.append(enc.flush())
save("bomb", "archive bomb", b"".join(parts), xz=False)
# 20 Other containers under a .tar.xz name.
save("gzip", "archive notxz", gzip.compress(good_tar), xz=False)
save("bzip2", "archive notxz", bz2.compress(good_tar), xz=False)
save("zstdmagic", "archive notxz", b"\x28\xb5\x2f\xfd" + b"\0" * 100, xz=False)
zb = io.BytesIO()
with zipfile.ZipFile(zb, "w") as z:
    z.writestr("top/a", "x")
save("zip", "archive notxz", zb.getvalue(), xz=False)
save("sevenz", "archive notxz", b"7z\xbc\xaf\x27\x1c" + b"\0" * 100, xz=False)
save("rar", "archive notxz", b"Rar!\x1a\x07\x01\x00" + b"\0" * 100, xz=False)
save("baretar", "archive notxz", good_tar, xz=False)
save("zipinxz", "archive nottar", zb.getvalue())
cpio = b"070701" + b"0" * 104 + b"TRAILER!!!\0"
save("cpioinxz", "archive nottar", cpio)
# 21 Empty, folders only, no common top folder.
save("empty", "archive empty", tar_bytes([]))
case("onlydirs", "ok", [ti(T + "/a/", tarfile.DIRTYPE, mode=0o755), ti(T + "/a/b/", tarfile.DIRTYPE, mode=0o755)])
save("twotops", "unsafe top", tar_bytes([f("one/a"), f("two/b")]))
save("rootfile", "unsafe top", tar_bytes([f("README")]))
# 22 Depth.
case("deep", "unsafe name", [f(T + "/" + "d/" * 100 + "x")])
case("manyentries", "archive entries", [f(T + "/e%d" % i) for i in range(300)])

with open(os.path.join(OUT, "cases.txt"), "w") as fh:
    for name, expect, why in CASES:
        fh.write("%s %s %s\n" % (name, expect, why))
