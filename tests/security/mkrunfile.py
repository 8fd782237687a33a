#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Build makeself runfiles like NVIDIA's CUDA 10.0 and 11.x ones, and hostile variants.

Usage: mkrunfile.py OUTDIR             the hand-made and hostile runfiles (at build time)
       mkrunfile.py --makeself OUTDIR  those made by Debian's makeself, when it is installed (at test time:
                                       makeself may have come after the build was configured)

The header is hand-made in the style of makeself 2.1 (what CUDA 10.0's runfile carries): a shell
script whose `head -n N "$0"` line gives the payload's offset and whose filesizes= its size.  The
nested toolkit runfile of 10.0 holds a toolkit tree; where this machine has a CUDA toolkit in
/usr/local/cuda, a few of its small real files are re-packed into it (else stand-in bytes).
"""
import gzip
import io
import os
import sys
import tarfile

HEADER = """#!/bin/sh
# This script was generated using Makeself 2.1.5 (a hand-made stand-in for cudaup's tests)
CRCsum="0000000000"
MD5="00000000000000000000000000000000"
TMPROOT=${{TMPDIR:=/tmp}}
label="{label}"
script="./cuda-installer.pl"
scriptargs=""
targetdir="pkg"
filesizes="{size}"
keep="n"
MS_Printf() {{ $print_cmd $print_cmd_arg "$1"; }}
offset=`head -n {lines} "$0" | wc -c | tr -d " "`
echo "this runfile is a test fixture; it installs nothing"
exit 0
"""


def header(label, size, lines=None):
    n = HEADER.count("\n")
    return HEADER.format(label=label, size=size, lines=n if lines is None else lines).encode()


def runfile(label, payload, lines=None, size=None):
    return header(label, len(payload) if size is None else size, lines) + payload


def tar_gz(members, level=9):
    """members: (name, kind, data-or-target). kind: f (file), x (executable), l (symlink), d (dir).
    level 0 stores the tar uncompressed in gzip: its size then depends on the members' sizes only."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.GNU_FORMAT) as t:
        for name, kind, data in members:
            ti = tarfile.TarInfo(name)
            ti.mtime = 1546300800
            if kind == "d":
                ti.type = tarfile.DIRTYPE
                ti.mode = 0o755
                t.addfile(ti)
            elif kind == "l":
                ti.type = tarfile.SYMTYPE
                ti.linkname = data
                t.addfile(ti)
            else:
                ti.mode = 0o755 if kind == "x" else 0o644
                ti.size = len(data)
                t.addfile(ti, io.BytesIO(data))
    return gzip.compress(raw.getvalue(), compresslevel=level, mtime=0)


def local(rel, fallback):
    p = os.path.join("/usr/local/cuda", rel)
    try:
        if os.path.isfile(p) and os.path.getsize(p) < 256 * 1024:
            with open(p, "rb") as f:
                return f.read()
    except OSError:
        pass
    return fallback


def tree(extra=()):
    m = [
        ("./", "d", None),
        ("./bin/", "d", None),
        ("./bin/nvcc", "x", b"\x7fELF stand-in nvcc 10.0.130\n"),
        ("./bin/ptxas", "x", b"\x7fELF stand-in ptxas\n"),
        ("./bin/nvprof", "x", b"\x7fELF profiler: not placed\n"),
        ("./bin/nsight", "x", b"#!/bin/sh\n# not placed\n"),
        ("./lib64/", "d", None),
        ("./lib64/libcudart.so.10.0.130", "f", b"\x7fELF stand-in cudart 10.0.130\n"),
        ("./lib64/libcudart.so.10.0", "l", "libcudart.so.10.0.130"),
        ("./lib64/libcudart.so", "l", "libcudart.so.10.0"),
        ("./lib64/libcublas.so.10.0.130", "f", b"\x7fELF stand-in cublas\n"),
        ("./lib64/libcufft.so.10.0.145", "f", b"\x7fELF stand-in cufft\n"),
        ("./lib64/libcurand.so.10.0.130", "f", b"\x7fELF stand-in curand\n"),
        ("./lib64/libcusolver.so.10.0.130", "f", b"\x7fELF stand-in cusolver\n"),
        ("./lib64/libcusparse.so.10.0.130", "f", b"\x7fELF stand-in cusparse\n"),
        ("./lib64/libnvrtc.so.10.0.130", "f", b"\x7fELF stand-in nvrtc\n"),
        ("./lib64/libnppc.so.10.0.130", "f", b"\x7fELF NPP: not placed\n"),
        ("./lib64/stubs/libcuda.so", "f", b"\x7fELF stub\n"),
        ("./include/", "d", None),
        ("./include/cuda.h", "f", local("include/cuda.h", b"/* cuda.h stand-in */\n")),
        ("./include/cuda_runtime_api.h", "f", local("include/cuda_runtime_api.h", b"/* stand-in */\n")),
        ("./include/cublas_v2.h", "f", local("include/cublas_v2.h", b"/* cublas stand-in */\n")),
        ("./include/npp.h", "f", b"/* NPP: not placed */\n"),
        ("./nvvm/bin/cicc", "x", b"\x7fELF stand-in cicc\n"),
        ("./nvvm/libdevice/libdevice.10.bc", "f", b"BC stand-in\n"),
        ("./extras/CUPTI/lib64/libcupti.so.10.0.130", "f", b"\x7fELF stand-in cupti\n"),
        ("./extras/demo_suite/deviceQuery", "x", b"\x7fELF demo: not placed\n"),
        ("./doc/html/index.html", "f", b"<html>not placed</html>\n"),
        ("./version.txt", "f", b"CUDA Version 10.0.130\n"),
    ]
    return m + list(extra)


def outer_10(inner_run, extra=()):
    return tar_gz([
        ("./", "d", None),
        ("./cuda-installer.pl", "x", b"#!/usr/bin/perl\nprint 'never run';\n"),
        ("./run_files/", "d", None),
        ("./run_files/NVIDIA-Linux-x86_64-410.48.run", "x", runfile("driver", tar_gz([("./nvidia.ko", "f", b"driver: never placed\n")]))),
        ("./run_files/cuda-linux.10.0.130-24817639.run", "x", inner_run),
        ("./run_files/cuda-samples.10.0.130-24817639-linux.run", "x", runfile("samples", tar_gz([("./samples/x.cu", "f", b"not placed\n")]))),
    ] + list(extra))


def makeself(members, label, script):
    """A real makeself archive (Debian's makeself, scripts/bootstrap --test) of @members, or None without it."""
    import shutil
    import subprocess
    import tempfile
    tool = shutil.which("makeself")
    if not tool:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "src")
        os.makedirs(src)
        for name, kind, data in members:
            path = os.path.join(src, name[2:] if name.startswith("./") else name)
            if kind == "d":
                os.makedirs(path, exist_ok=True)
                continue
            os.makedirs(os.path.dirname(path), exist_ok=True)
            if kind == "l":
                os.symlink(data, path)
            else:
                with open(path, "wb") as f:
                    f.write(data)
                os.chmod(path, 0o755 if kind == "x" else 0o644)
        out = os.path.join(tmp, "out.run")
        subprocess.run([tool, "--gzip", "--nomd5", "--nocrc", "--nox11", "--quiet", src, out, label, script],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(out, "rb") as f:
            return f.read()


def write(out, name, data):
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)


def main():
    if sys.argv[1] == "--makeself":
        out = sys.argv[2]
        os.makedirs(out, exist_ok=True)
        return made_by_makeself(out)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    inner = runfile("toolkit", tar_gz(tree()))
    good = runfile("CUDA 10.0.130", outer_10(inner))
    write(out, "good-10.0.run", good)

    builds = tar_gz([
        ("./builds/", "d", None),
        ("./builds/cuda_cudart/lib64/libcudart.so.11.0.221", "f", b"\x7fELF cudart 11.0\n"),
        ("./builds/cuda_cudart/lib64/libcudart.so.11.0", "l", "libcudart.so.11.0.221"),
        ("./builds/cuda_cudart/include/cuda_runtime_api.h", "f", b"/* 11.0 */\n"),
        ("./builds/cuda_nvcc/bin/nvcc", "x", b"\x7fELF nvcc 11.0\n"),
        ("./builds/libcublas/lib64/libcublas.so.11.2.0.252", "f", b"\x7fELF cublas 11\n"),
        ("./builds/libnpp/lib64/libnppc.so.11", "f", b"NPP: not placed\n"),
        ("./builds/cuda_samples/x.cu", "f", b"not placed\n"),
        ("./builds/NVIDIA-Linux-x86_64-450.51.06.run", "x", b"driver: never placed\n"),
        ("./cuda-installer", "x", b"\x7fELF installer: never run\n"),
    ])
    write(out, "good-11.0.run", runfile("CUDA 11.0.3", builds))

    # Hostile: the header lies about where the payload starts, or how long it is.
    payload = outer_10(inner)
    write(out, "lying-offset.run", runfile("CUDA", payload, lines=HEADER.count("\n") - 2))
    write(out, "lying-size.run", runfile("CUDA", payload, size=len(payload) + 4096))
    write(out, "truncated.run", good[:-1000])
    write(out, "not-makeself.run", b"#!/bin/sh\necho hello\nexit 0\n" + payload)
    # Hostile: the toolkit's tree escapes, by name or by link.
    write(out, "escape-name.run", runfile("CUDA", outer_10(runfile("t", tar_gz(tree([("./lib64/../../../evil", "f", b"x\n")]))))))
    write(out, "escape-link.run", runfile("CUDA", outer_10(runfile("t", tar_gz(tree([("./lib64/libcudart.so.10.0.999", "l", "../../../../etc/passwd")]))))))
    write(out, "escape-abs.run", runfile("CUDA", outer_10(runfile("t", tar_gz(tree([("/tmp/cudaup-evil/libcudart.so", "f", b"x\n")]))))))
    # Hostile: a bomb inside the nested runfile (64 MiB of zeros in a few dozen KiB), and a runfile
    # nested once more inside the toolkit's (it must not be descended into).
    write(out, "nested-bomb.run", runfile("CUDA", outer_10(runfile("t", tar_gz(tree([("./lib64/libcublas.so.10.0.999", "f", bytes(64 << 20))]))))))
    deeper = runfile("deeper", tar_gz([("./lib64/libcudart.so.99", "f", b"from a runfile two levels down\n")]))
    write(out, "nested-twice.run", runfile("CUDA", outer_10(runfile("t", tar_gz(tree([("./run_files/cuda-linux.deeper.run", "x", deeper)]))))))
    # A pair of the same size (gzip level 0), bin/nvcc's bytes differing: the file renamed over the
    # path between the hash and the unpacking (test_runfile's swapped_runfile).
    for name, nvcc in (("swap-good.run", b"\x7fELF nvcc the catalog vouches for\n"),
                       ("swap-evil.run", b"\x7fELF nvcc put there meanwhile!!!!\n")):
        write(out, name, runfile("CUDA 11.0.3", tar_gz([
            ("./builds/", "d", None),
            ("./builds/cuda_nvcc/bin/nvcc", "x", nvcc),
            ("./builds/cuda_cudart/lib64/libcudart.so.11.0.221", "f", b"\x7fELF cudart 11.0\n"),
        ], level=0)))
    write(out, "no-toolkit.run", runfile("CUDA", tar_gz([("./cuda-installer.pl", "x", b"#!/usr/bin/perl\n")])))
    return 0


def made_by_makeself(out):
    """The same layouts made by Debian's makeself 2.4 (skip="N" headers), when it is installed."""
    inner_ms = makeself(tree(), "toolkit", "./bin/nvcc")
    if inner_ms:
        write(out, "makeself-10.0.run", makeself([("./cuda-installer.pl", "x", b"#!/usr/bin/perl\n"),
                                                  ("./run_files/cuda-linux.10.0.130-1.run", "x", inner_ms)],
                                                 "CUDA 10.0.130", "./cuda-installer.pl"))
        write(out, "makeself-11.0.run", makeself([("./builds/cuda_cudart/lib64/libcudart.so.11.0.221", "f", b"\x7fELF\n"),
                                                  ("./builds/cuda_nvcc/bin/nvcc", "x", b"\x7fELF\n"),
                                                  ("./builds/libnpp/lib64/libnppc.so.11", "f", b"no\n"),
                                                  ("./cuda-installer", "x", b"\x7fELF\n")],
                                                 "CUDA 11.0.3", "./cuda-installer"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
