# SPDX-License-Identifier: MIT
# cudaup's framework check, run inside the recorded Python environment by `verify`:
#   python -c "$(this file)" pytorch|tensorflow|jax
# For each GPU the framework sees it multiplies two matrices and convolves an image
# (the cuDNN path) on the GPU, and compares both with the same work on the CPU.  It
# reports what the build was made with (CUDA, cuDNN, GPU code) and what it loaded, as
# one JSON line on stdout; verify judges it.  Standard library only, besides the
# framework: no numpy.
import json
import random
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


def loaded_libs():
    """The CUDA runtime and cuDNN this process mapped (TF1 names neither in its build info)."""
    found = {}
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.split()[-1] if len(line.split()) >= 6 else ""
                base = path.rsplit("/", 1)[-1]
                for lib, key in (("libcudart.so.", "cuda_loaded"), ("libcudnn.so.", "cudnn_loaded")):
                    if base.startswith(lib) and key not in found:
                        import os
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


def jax_probe(out):
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


def main():
    out = {"framework": sys.argv[1] if len(sys.argv) > 1 else "", "devices": []}
    probe = {"pytorch": torch_probe, "tensorflow": tf_probe, "jax": jax_probe}.get(out["framework"])
    if not probe:
        sys.stderr.write("fwprobe: unknown framework %r\n" % out["framework"])
        return 2
    out["pip_libs"] = pip_libs()
    probe(out)
    sys.stdout.write(json.dumps(out) + "\n")
    return 0


sys.exit(main())
