# SPDX-License-Identifier: MIT
# cudaup's framework check, run inside the recorded Python environment by `verify`:
#   python -c "$(this file)" FRAMEWORK[,FRAMEWORK...]     (pytorch, tensorflow, jax)
# It imports every framework of the environment in this one process, in the order given (verify
# runs it again in the other order), and for each GPU each framework sees it multiplies two
# matrices and convolves an image (the cuDNN path) on the GPU, and compares both with the same work
# on the CPU.  Then it reads /proc/self/maps: every CUDA library the process really mapped, its
# path, the file it resolves to, its soname (from the ELF), its version and the distribution whose
# RECORD lists it, and which framework's import and work mapped it first.  It reports what each
# build was made with (CUDA, cuDNN, GPU code) and what it loaded, as one JSON line on stdout;
# verify judges it.  Standard library only, besides the frameworks: no numpy.
import json
import os
import random
import re
import struct
import sys

TOL = 2e-3  # float32 sums of 27 to 32 products of numbers in [-1, 1], tensor cores off


def rnd(seed, n):
    r = random.Random(seed)
    return [r.uniform(-1.0, 1.0) for _ in range(n)]


def flat(x):
    if isinstance(x, (list, tuple)):
        return [z for y in x for z in flat(y)]
    return [float(x)]


def close(got, want):
    a, b = flat(got), flat(want)
    return len(a) == len(b) and all(abs(x - y) <= TOL + TOL * abs(y) for x, y in zip(a, b))


def first_line(e):
    lines = [ln for ln in str(e).strip().splitlines() if ln.strip()]
    return (lines[0] if lines else type(e).__name__)[:300]


def cudnn_text(v):
    """cuDNN's version integer: 90100 for 9.1.0 (9.x), 8902 for 8.9.2 (8.x)."""
    if v is None:
        return None
    v = int(v)
    if v >= 90000:
        return "%d.%d.%d" % (v // 10000, v // 100 % 100, v % 100)
    return "%d.%d.%d" % (v // 1000, v // 100 % 10, v % 100)


def version_text(n, kind):
    """A library's version integer as text: cuDNN's (cudnn_text), cuBLAS's 120804 (12.8.4), CUDA's 12080 (12.8)."""
    if n is None:
        return None
    n = int(n)
    if kind == "cudnn":
        return cudnn_text(n)
    if kind == "cudart":
        return "%d.%d" % (n // 1000, n % 1000 // 10)
    return "%d.%d.%d" % (n // 10000, n // 100 % 100, n % 100)


def loaded_version(kind):
    """What the library of @kind this process mapped says it is (cudaRuntimeGetVersion, cudnnGetVersion)."""
    import ctypes
    for path in mapped():
        base = os.path.basename(path)
        try:
            if kind == "cudart" and base.startswith("libcudart.so"):
                v = ctypes.c_int(0)
                if ctypes.CDLL(path).cudaRuntimeGetVersion(ctypes.byref(v)) == 0:
                    return version_text(v.value, kind)
            if kind == "cudnn" and re.match(r"libcudnn\.so", base):
                f = ctypes.CDLL(path).cudnnGetVersion
                f.restype = ctypes.c_size_t
                return version_text(f(), kind)
        except (OSError, AttributeError):
            continue
    return None


def runtime(out, kind, built, loaded):
    """Note what a framework was built against and what it loaded, where both are known."""
    if built and loaded:
        out.setdefault("runtime", {})[kind] = {"built": str(built), "loaded": str(loaded)}


def torch_probe(out):
    import torch
    out["version"] = torch.__version__
    out["cuda_build"] = torch.version.cuda
    try:
        out["cudnn_build"] = "%d.%d.%d" % tuple(torch._C._cudnn.getCompileVersion())
    except Exception:
        pass
    try:
        out["cudnn_loaded"] = cudnn_text(torch.backends.cudnn.version())
    except Exception as e:
        out["cudnn_error"] = first_line(e)
    try:
        out["arch"] = list(torch.cuda.get_arch_list())
    except Exception:
        out["arch"] = None
    runtime(out, "cudnn", out.get("cudnn_build"), out.get("cudnn_loaded"))
    try:
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
    except Exception:
        pass
    F = torch.nn.functional
    for i in range(torch.cuda.device_count()):
        d = {"index": i}
        out["devices"].append(d)
        try:
            d["name"] = torch.cuda.get_device_name(i)
            d["cc"] = "%d.%d" % tuple(torch.cuda.get_device_capability(i))
            dev = "cuda:%d" % i
            a = torch.tensor(rnd(1, 1024)).reshape(32, 32)
            b = torch.tensor(rnd(2, 1024)).reshape(32, 32)
            got = (a.to(dev) @ b.to(dev)).cpu()
            d["matmul"] = close(got.tolist(), (a @ b).tolist())
            x = torch.tensor(rnd(3, 3 * 16 * 16)).reshape(1, 3, 16, 16)
            w = torch.tensor(rnd(4, 4 * 3 * 3 * 3)).reshape(4, 3, 3, 3)
            got = F.conv2d(x.to(dev), w.to(dev)).cpu()
            d["conv"] = close(got.tolist(), F.conv2d(x, w).tolist())
            d["on_gpu"] = True
        except Exception as e:
            d["error"] = first_line(e)
    runtime(out, "cudart", out.get("cuda_build"), loaded_version("cudart"))


def map_path(line):
    """The file of one /proc/self/maps line, or None (an anonymous mapping, [heap] ...): the sixth field onward,
    spaces and all (the first five are address, mode, offset, device and inode).  The kernel marks a file deleted
    since it was mapped with " (deleted)"; that mark goes, unless a file of that very name is the one mapped
    (its device and inode, fields four and five, are the mapping's): a file may be called "x (deleted)"."""
    parts = line.split(None, 5)
    if len(parts) < 6 or not parts[5].startswith("/"):
        return None
    path = parts[5].rstrip("\n")
    if path.endswith(" (deleted)"):
        try:
            st = os.stat(path)
            major, minor = (int(x, 16) for x in parts[3].split(":"))
            named = (st.st_ino == int(parts[4]) and os.major(st.st_dev) == major and os.minor(st.st_dev) == minor)
        except (OSError, ValueError):
            named = False
        if not named:
            path = path[:-len(" (deleted)")]
    return path


def loaded_libs(maps="/proc/self/maps"):
    """The CUDA runtime and cuDNN this process mapped (TF1 names neither in its build info)."""
    found = {}
    try:
        with open(maps) as f:
            for line in f:
                path = map_path(line) or ""
                base = path.rsplit("/", 1)[-1]
                for lib, key in (("libcudart.so.", "cuda_loaded"), ("libcudnn.so.", "cudnn_loaded")):
                    if base.startswith(lib) and key not in found:
                        real = os.path.realpath(path).rsplit("/", 1)[-1]
                        found[key] = real[len(lib):] if real.startswith(lib) else base[len(lib):]
    except OSError:
        pass
    return found


def tf1_probe(out, tf):
    """TensorFlow 1.x: no tf.sysconfig.get_build_info (2.3+) and no tf.config (2.1+).  The TF1 way:
    tf.test.is_gpu_available(cuda_only=True), the GPUs device_lib lists, and the work in a tf.Session
    on /gpu:N with soft placement off, so that a GPU it has no kernel for is an error, not the CPU."""
    from tensorflow.python.client import device_lib
    out["api"] = "tf1"
    out["gpu_available"] = bool(tf.test.is_gpu_available(cuda_only=True))
    gpus = [d for d in device_lib.list_local_devices() if d.device_type == "GPU"]
    for i, g in enumerate(gpus):
        d = {"index": i}
        out["devices"].append(d)
        desc = getattr(g, "physical_device_desc", "") or ""
        if "compute capability: " in desc:
            d["cc"] = desc.split("compute capability: ")[1].split(",")[0].strip()
        if "name: " in desc:
            d["name"] = desc.split("name: ")[1].split(",")[0].strip()
        try:
            def work():
                a = tf.reshape(tf.constant(rnd(1, 1024)), (32, 32))
                bm = tf.reshape(tf.constant(rnd(2, 1024)), (32, 32))
                x = tf.reshape(tf.constant(rnd(3, 3 * 16 * 16)), (1, 16, 16, 3))
                w = tf.reshape(tf.constant(rnd(4, 4 * 3 * 3 * 3)), (3, 3, 3, 4))
                return tf.matmul(a, bm), tf.nn.conv2d(x, w, strides=1, padding="VALID")
            with tf.device("/cpu:0"):
                ref = work()
            with tf.device("/gpu:%d" % i):
                got = work()
            with tf.Session(config=tf.ConfigProto(allow_soft_placement=False)) as s:
                ref_mm, ref_cv, got_mm, got_cv = (s.run(t) for t in (ref[0], ref[1], got[0], got[1]))
            tolist = (lambda v: v.tolist() if hasattr(v, "tolist") else v)
            d["on_gpu"] = True  # soft placement is off: it ran on /gpu:N or raised
            d["matmul"] = close(tolist(got_mm), tolist(ref_mm))
            d["conv"] = close(tolist(got_cv), tolist(ref_cv))
        except Exception as e:
            d["error"] = first_line(e)
    out.update(loaded_libs())
    if out.get("cudnn_loaded"):
        out["cudnn_loaded"] = ".".join(out["cudnn_loaded"].split(".")[:3])


def tf_probe(out):
    import tensorflow as tf
    out["version"] = tf.__version__
    if tf.__version__.startswith("1."):
        return tf1_probe(out, tf)
    # 2.0-2.2 have no build info: what they loaded is read from the process instead
    b = tf.sysconfig.get_build_info() if hasattr(tf.sysconfig, "get_build_info") else loaded_libs()
    out["cuda_build"] = b.get("cuda_version")
    out["cudnn_build"] = b.get("cudnn_version")
    out["arch"] = b.get("cuda_compute_capabilities")
    try:
        tf.config.experimental.enable_tensor_float_32_execution(False)
    except Exception:
        pass
    # tf.config.list_physical_devices is 2.1+ (data/compat/framework_gpu_check.csv); 2.0 has it under experimental
    listing = getattr(tf.config, "list_physical_devices", None) or tf.config.experimental.list_physical_devices
    for i, g in enumerate(listing("GPU")):
        d = {"index": i}
        out["devices"].append(d)
        try:
            det = tf.config.experimental.get_device_details(g)
            d["name"] = det.get("device_name")
            cc = det.get("compute_capability")
            d["cc"] = "%d.%d" % tuple(cc) if cc else None
            a = tf.reshape(tf.constant(rnd(1, 1024)), (32, 32))
            bm = tf.reshape(tf.constant(rnd(2, 1024)), (32, 32))
            x = tf.reshape(tf.constant(rnd(3, 3 * 16 * 16)), (1, 16, 16, 3))
            w = tf.reshape(tf.constant(rnd(4, 4 * 3 * 3 * 3)), (3, 3, 3, 4))
            with tf.device("/CPU:0"):
                ref_mm = tf.matmul(a, bm)
                ref_cv = tf.nn.conv2d(x, w, strides=1, padding="VALID")
            with tf.device("/GPU:%d" % i):
                got_mm = tf.matmul(a, bm)
                got_cv = tf.nn.conv2d(x, w, strides=1, padding="VALID")
            # Without code for the GPU, TensorFlow quietly places the work on the CPU.
            d["on_gpu"] = "GPU" in got_mm.device and "GPU" in got_cv.device
            d["matmul"] = close(got_mm.numpy().tolist(), ref_mm.numpy().tolist())
            d["conv"] = close(got_cv.numpy().tolist(), ref_cv.numpy().tolist())
        except Exception as e:
            d["error"] = first_line(e)
    runtime(out, "cudnn", out.get("cudnn_build"), loaded_version("cudnn"))  # loaded by the convolution


def guarded(fn, timeout=60):
    """fn() in a forked child, its integer result, or None when it raises, crashes or hangs: without an NVIDIA
    driver a CUDA library asked for its version can crash the process (JAX 0.10.2's cuptiGetVersion does)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        os.environ.pop("CUDAUP_DLTRACE", None)  # what the child loads is not the process's (scripts/record-loads)
        try:
            os.write(w, str(int(fn())).encode())
        except BaseException:
            pass
        os._exit(0)
    os.close(w)
    import select
    import signal
    import time
    data, end = b"", time.time() + timeout
    while time.time() < end:
        ready, _, _ = select.select([r], [], [], max(0.0, end - time.time()))
        if not ready:
            break
        chunk = os.read(r, 64)
        if not chunk:
            break
        data += chunk
    os.close(r)
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass
    os.waitpid(pid, 0)
    return int(data) if data.strip().isdigit() else None


# The libraries JAX's plugin checks at its start (_check_cuda_versions), by the names it gives them, with the
# functions of jax._src.lib.cuda_versions that read them; verify holds each to JAX's own rule
# (data/compat/framework_runtime_checks.csv).
JAX_CHECKS = [("CUDA", "cuda_runtime"), ("cuDNN", "cudnn"), ("cuFFT", "cufft"), ("cuPTI", "cupti"),
              ("cuBLAS", "cublas"), ("cuSPARSE", "cusparse")]


def jax_version_checks(out, cuda_versions):
    checks = []
    for component, stem in JAX_CHECKS:
        get, build = getattr(cuda_versions, stem + "_get_version", None), getattr(cuda_versions, stem + "_build_version", None)
        if not get or not build:
            continue
        checks.append({"component": component, "built": guarded(build), "loaded": guarded(get)})
    out["version_checks"] = checks


def jax_probe(out):
    if os.environ.get("CUDAUP_PROBE_NO_DRIVER"):
        # No NVIDIA driver: JAX's own check of the libraries at the plugin's start may crash the process (a CUDA
        # library asked for its version without a driver); the probe makes the same check, each call apart.
        os.environ.setdefault("JAX_SKIP_CUDA_CONSTRAINTS_CHECK", "1")
    import jax
    import jax.numpy as jnp
    out["version"] = jax.__version__
    try:
        out["backend"] = jax.default_backend()
    except Exception as e:
        out["backend"] = None
        out["backend_error"] = first_line(e)
    try:
        from jax._src.lib import cuda_versions
        out["cudnn_loaded"] = cudnn_text(cuda_versions.cudnn_get_version())
        out["cudnn_build"] = cudnn_text(cuda_versions.cudnn_build_version())
        runtime(out, "cudnn", out["cudnn_build"], out["cudnn_loaded"])
        runtime(out, "cublas", version_text(cuda_versions.cublas_build_version(), "cublas"),
                version_text(cuda_versions.cublas_get_version(), "cublas"))
    except Exception:
        pass
    try:
        from jax._src.lib import cuda_versions
        if cuda_versions is not None:
            jax_version_checks(out, cuda_versions)
    except Exception:
        pass
    try:
        gpus = jax.devices("gpu")
    except Exception:
        gpus = []
    cpu = jax.devices("cpu")[0]
    hi = jax.lax.Precision.HIGHEST
    for i, g in enumerate(gpus):
        d = {"index": i, "name": getattr(g, "device_kind", None)}
        out["devices"].append(d)
        try:
            a = jnp.array(rnd(1, 1024)).reshape(32, 32)
            b = jnp.array(rnd(2, 1024)).reshape(32, 32)
            x = jnp.array(rnd(3, 3 * 16 * 16)).reshape(1, 3, 16, 16)
            w = jnp.array(rnd(4, 4 * 3 * 3 * 3)).reshape(4, 3, 3, 3)
            on = [jax.device_put(v, g) for v in (a, b, x, w)]
            off = [jax.device_put(v, cpu) for v in (a, b, x, w)]
            d["matmul"] = close(jnp.dot(on[0], on[1], precision=hi).tolist(),
                                jnp.dot(off[0], off[1], precision=hi).tolist())
            d["conv"] = close(jax.lax.conv(on[2], on[3], (1, 1), "VALID", precision=hi).tolist(),
                              jax.lax.conv(off[2], off[3], (1, 1), "VALID", precision=hi).tolist())
            d["on_gpu"] = True
        except Exception as e:
            d["error"] = first_line(e)


def pip_libs():
    """The NVIDIA libraries pip installed in this environment, {name: version}: what the framework
    loads when its wheels bring their own CUDA (verify checks them against the support matrix)."""
    try:
        from importlib import metadata
    except ImportError:
        return {}
    libs = {}
    for d in metadata.distributions():
        name = (d.metadata.get("Name") or "").lower().replace("_", "-")
        if name.startswith("nvidia-cudnn"):
            libs[name] = d.version
    return libs


# The CUDA libraries a framework loads (cudart, cuBLAS and cuBLASLt, cuDNN and its sub-libraries,
# nvJitLink, NVRTC, cuSPARSE, cuFFT, cuRAND, cuSOLVER, NCCL, CUPTI, NVTX, cuFile, NVSHMEM), by file name.
CUDA_LIB = re.compile(r"^lib(cudart|cublas|cublasLt|cudnn(_[a-z_]+)?|nvJitLink|nvrtc(-builtins)?|cusparse(Lt)?|"
                      r"cufftw?|curand|cusolver(Mg)?|nccl|cupti|nvToolsExt|cufile|nvshmem_host)\.so(\.[0-9.]+)?$")


def mapped(maps="/proc/self/maps"):
    """Every file this process maps, in the order /proc/self/maps lists them."""
    out = []
    try:
        with open(maps) as f:
            for line in f:
                path = map_path(line)
                if path and path not in out:
                    out.append(path)
    except OSError:
        pass
    return out


def elf_soname(path):
    """DT_SONAME of an ELF64 little-endian shared object (from its section headers), or None."""
    try:
        with open(path, "rb") as f:
            head = f.read(64)
            if head[:4] != b"\x7fELF" or head[4] != 2 or head[5] != 1:
                return None
            shoff, = struct.unpack_from("<Q", head, 0x28)
            shentsize, shnum = struct.unpack_from("<HH", head, 0x3a)
            f.seek(shoff)
            sh = [struct.unpack("<IIQQQQIIQQ", f.read(shentsize)[:64]) for _ in range(shnum)]
            for s in sh:
                if s[1] != 6:  # SHT_DYNAMIC
                    continue
                strtab = sh[s[6]]
                f.seek(s[4])
                dyn = f.read(s[5])
                f.seek(strtab[4])
                strs = f.read(strtab[5])
                for i in range(0, len(dyn) - 15, 16):
                    tag, val = struct.unpack_from("<qQ", dyn, i)
                    if tag == 0:
                        break
                    if tag == 14:  # DT_SONAME
                        return strs[val:strs.index(b"\0", val)].decode()
    except (OSError, ValueError, struct.error, IndexError):
        return None
    return None


def owners():
    """The distribution whose RECORD lists each file, by real path: {path: ["name version", ...]}."""
    try:
        from importlib import metadata
    except ImportError:
        return {}
    own = {}
    for d in metadata.distributions():
        name = (d.metadata.get("Name") or "").lower().replace("_", "-")
        try:
            files = d.files or []
        except Exception:
            files = []
        for f in files:
            if ".so" not in f.name:
                continue
            try:
                p = os.path.realpath(str(f.locate()))
            except Exception:
                continue
            own.setdefault(p, []).append("%s %s" % (name, d.version))
    return own


def libraries(order_of):
    """Every CUDA library mapped now: {name, path, real, soname, version, owners, framework}."""
    own = owners()
    out = []
    for path in mapped():
        base = os.path.basename(path)
        real = os.path.realpath(path)
        if not CUDA_LIB.match(base) and not CUDA_LIB.match(os.path.basename(real)):
            continue
        soname = elf_soname(real) or re.sub(r"(\.so\.[0-9]+).*$", r"\1", base)
        m = re.search(r"\.so\.([0-9][0-9.]*)$", os.path.basename(real))
        o = own.get(real, [])
        version = m.group(1) if m and m.group(1).count(".") >= 1 else (o[0].split()[1] if o else None)
        out.append({"name": soname, "path": path, "real": real, "version": version, "owners": o,
                    "framework": order_of.get(path)})
    return out


def main():
    names = [n for n in (sys.argv[1] if len(sys.argv) > 1 else "").split(",") if n]
    probes = {"pytorch": torch_probe, "tensorflow": tf_probe, "jax": jax_probe}
    if not names or any(n not in probes for n in names):
        sys.stderr.write("fwprobe: unknown framework %r\n" % (sys.argv[1] if len(sys.argv) > 1 else ""))
        return 2
    try:
        import site
        sites = site.getsitepackages()
    except Exception:
        sites = []
    doc = {"order": names, "prefix": sys.prefix, "site": sites, "pip_libs": pip_libs(), "frameworks": [],
           "ld_library_path": os.environ.get("LD_LIBRARY_PATH")}
    first = {}  # path -> the framework whose import and work mapped it first
    for n in names:
        out = {"framework": n, "devices": [], "pip_libs": doc["pip_libs"]}
        # Which framework is at work, on stderr at once: should one kill the process (a signal, os._exit), verify
        # names it from the last of these lines.
        sys.stderr.write("cudaup-fwprobe: start %s\n" % n)
        sys.stderr.flush()
        try:
            probes[n](out)
        except Exception as e:  # one framework that does not import: the others are still judged
            out["import_error"] = "%s: %s" % (type(e).__name__, first_line(e))
        sys.stderr.write("cudaup-fwprobe: done %s\n" % n)
        sys.stderr.flush()
        for path in mapped():
            first.setdefault(path, n)
        doc["frameworks"].append(out)
    doc["libraries"] = libraries(first)
    if len(names) == 1:
        doc.update({k: v for k, v in doc["frameworks"][0].items() if k not in doc})
    sys.stdout.write(json.dumps(doc) + "\n")
    return 0


sys.exit(main())
