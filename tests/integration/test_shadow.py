#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Ten shadowing cases from the public reports (issue 36), and an eleventh that only where-it-came-from
catches, each planted with real ELF shared objects
(tests/fixtures/mkelf.py: the soname, DT_NEEDED, DT_RUNPATH and version entry points the real library
has) that the real dynamic loader loads: `verify` runs the framework probe in the environment and must
fail naming the library, where it was loaded from, what made the loader take it and the fix; `doctor`
must find the same without importing anything.  Two cases need the system's own /etc (ld.so.conf.d, a
distribution's default folder), which a test cannot plant for a real process: doctor finds them in a
fixture root, and test_ldpath (unit) judges the probe's view of them.  One case is a negative: the
WSL driver folder in LD_LIBRARY_PATH shadows nothing.

Each case: (name, source, what is planted, doctor's expectation, verify's expectation)."""
import json
import os
import shutil
import subprocess
import sys
import zipfile

from cutest import SRCDIR, Tap, run

sys.path.insert(0, os.path.join(SRCDIR, "tests", "fixtures"))
import machines  # noqa: E402
import mkelf  # noqa: E402
import mkwheels  # noqa: E402

t = Tap()
PY = shutil.which("python3.11", path="/usr/bin:/bin")
if not PY or not mkelf.CC:
    t.skip("shadowing cases", "no python3.11 in /usr/bin or no C compiler to build the libraries with")
    t.done()

CACHE = t.tmpdir("elf")
WH = t.tmpdir("wheels")


def nv(pkg, so, ver, **o):
    return ("nvidia/%s/lib/%s" % (pkg, so), so, ver, o)


def nvwheel(dist, version, libs):
    return mkwheels.wheel(WH, dist, version, extra=mkwheels.nvidia_libs(libs, CACHE))


def cudnn_libs(ver):
    """cuDNN 9's wheel as the real one is laid out (tests/fixtures/wheels/nvidia-cudnn-cu12-9.10.2.21.json): libcudnn.so.9
    with DT_RUNPATH $ORIGIN, and the sub-libraries it dlopens on GPU work (data/compat/cuda_lib_loads.csv) beside it."""
    subs = ["libcudnn_graph.so.9", "libcudnn_ops.so.9", "libcudnn_cnn.so.9", "libcudnn_adv.so.9", "libcudnn_heuristic.so.9",
            "libcudnn_engines_precompiled.so.9", "libcudnn_engines_runtime_compiled.so.9"]
    return [nv("cudnn", "libcudnn.so.9", ver, runpath="$ORIGIN")] + [
        nv("cudnn", so, ver, runpath="$ORIGIN:$ORIGIN/../../cublas/lib:$ORIGIN/../../nvrtc/lib") for so in subs]


# The stand-in frameworks' wheels and the nvidia-* wheels they load, as the real ones lay them out.
W = {
    "torch": mkwheels.wheel(WH, "torch", "2.8.0", cuda="12.8", cudnn="9.10.2", native=True, cache=CACHE),
    "torch-cudnn95": None,
    "jax": mkwheels.wheel(WH, "jax", "0.4.25", cuda="12", cudnn="9.10.2", cublas="12.3.4", native=True, cache=CACHE),
    "tf212": mkwheels.wheel(WH, "tensorflow", "2.12.0", cuda="11.8", cudnn="8.6", native=True, cache=CACHE),
    "cudnn": nvwheel("nvidia-cudnn-cu12", "9.10.2.21", cudnn_libs("9.10.2")),
    "cudnn95": nvwheel("nvidia-cudnn-cu12", "9.5.1.17", cudnn_libs("9.5.1")),
    "cudnn13": nvwheel("nvidia-cudnn-cu13", "9.26.0.51", cudnn_libs("9.26.0")),
    "cudart": nvwheel("nvidia-cuda-runtime-cu12", "12.8.90", [nv("cuda_runtime", "libcudart.so.12", "12.8.90")]),
    "cublas": nvwheel("nvidia-cublas-cu12", "12.8.4.1", [nv("cublas", "libcublas.so.12", "12.8.4"),
                                                         nv("cublas", "libcublasLt.so.12", "12.8.4")]),
    "cublas123": nvwheel("nvidia-cublas-cu12", "12.3.4.1", [nv("cublas", "libcublas.so.12", "12.3.4"),
                                                            nv("cublas", "libcublasLt.so.12", "12.3.4")]),
    "cusparse": nvwheel("nvidia-cusparse-cu12", "12.5.8.93",
                        [nv("cusparse", "libcusparse.so.12", "12.5.8", needed=["libnvJitLink.so.12"],
                            runpath="$ORIGIN/../../nvjitlink/lib:$ORIGIN", uses=["__nvJitLinkComplete_12_8"])]),
    "nvjitlink": nvwheel("nvidia-nvjitlink-cu12", "12.8.93", [nv("nvjitlink", "libnvJitLink.so.12", "12.8.93")]),
    "jaxplugin": mkwheels.wheel(WH, "jax-cuda12-plugin", "0.4.25"),
}
W["torch-cudnn95"] = mkwheels.wheel(t.tmpdir("wheels95"), "torch", "2.7.1", cuda="12.6", cudnn="9.5.1", native=True,
                                    cache=CACHE)
TORCH_SET = ["cudart", "cublas", "cudnn", "cusparse", "nvjitlink", "torch"]


class Case:
    """A machine root holding one environment (ROOT/env) and what shadows it, seen two ways: by doctor
    through --root (paths as the machine names them) and by verify, whose probe is a real process (host
    paths)."""

    def __init__(self, name):
        self.name = name
        self.dir = t.tmpdir(name)
        self.root = os.path.join(self.dir, "root")
        machines.build_spec({"os": "ubuntu", "driver": "580.95.05", "cuda": 13000, "libs": True,
                             "gpus": [("0000:01:00.0", "2330", "0x030200", "nvidia", "9.0", 81559,
                                       "NVIDIA H100 80GB HBM3")]}, self.root)
        self.env = self.host("/env")
        subprocess.run([PY, "-m", "venv", "--without-pip", self.env], check=True)
        self.sp = os.path.join(self.env, "lib", "python3.11", "site-packages")
        self.llp = []      # folders in LD_LIBRARY_PATH, as the machine names them
        self.vars = {}     # other variables of the shell
        self.home = "/home/u"
        os.makedirs(self.host(self.home), exist_ok=True)
        self.frameworks = ["pytorch"]
        self.bundled = True
        self.state_dir_doctor = os.path.join(self.dir, "state-doctor")
        self.state_dir_verify = os.path.join(self.dir, "state-verify")

    def host(self, p):
        return self.root + p

    def install(self, *keys):
        for k in keys:
            zipfile.ZipFile(W[k]).extractall(self.sp)
            if k == "jax":
                zipfile.ZipFile(W["jaxplugin"]).extractall(self.sp)
        return self

    def tf_build_info(self):
        """What TensorFlow's wheel says it was built with (tensorflow/python/platform/build_info.py)."""
        self.frameworks = ["tensorflow"]
        self.bundled = False
        os.makedirs(os.path.join(self.sp, "tensorflow", "python", "platform"), exist_ok=True)
        with open(os.path.join(self.sp, "tensorflow", "python", "platform", "build_info.py"), "w") as f:
            f.write("build_info = {'cuda_version': '11.8', 'cudnn_version': '8.6', 'is_cuda_build': True, "
                    "'cuda_compute_capabilities': ['sm_90']}\n")
        return self

    def lib(self, folder, so, ver, **opts):
        mkelf.lib(self.host(folder) + "/" + so, so, ver, cache=CACHE, **opts)
        return self

    def file(self, path, text, host_too=True):
        """A start-up file naming folders by the machine's paths (doctor) and by the host's (verify)."""
        os.makedirs(os.path.dirname(self.host(path)), exist_ok=True)
        lines = text
        if host_too:
            lines += text.replace("=/", "=" + self.root + "/").replace(":/", ":" + self.root + "/")
        with open(self.host(path), "w") as f:
            f.write(lines)
        return self

    def envsh(self, folder):
        """cudaup's own env.sh of a CUDA-alone install, putting @folder in LD_LIBRARY_PATH."""
        for sd, f in ((self.state_dir_doctor, folder), (self.state_dir_verify, self.host(folder))):
            os.makedirs(sd, exist_ok=True)
            with open(os.path.join(sd, "env.sh"), "w") as fh:
                fh.write("CUDA_HOME='/x'\nexport CUDA_HOME\ncase \":${LD_LIBRARY_PATH:-}:\" in\n*':%s:'*) ;;\n"
                         "*) LD_LIBRARY_PATH='%s'\"${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}\" ;;\nesac\n"
                         "export LD_LIBRARY_PATH\n" % (f, f))
        return self

    def doctor(self):
        env = {"VIRTUAL_ENV": "/env", "HOME": self.home,
               "FAKE_NVIDIA_CONFIG": os.path.join(self.root, "fake-nvidia.conf")}
        if self.llp:
            env["LD_LIBRARY_PATH"] = ":".join(self.llp)
        env.update({k: v for k, v in self.vars.items()})
        r = run(["doctor", "--json", "--root", self.root, "--state-dir", self.state_dir_doctor], env=env)
        return r, (r.json() or {}).get("problems", [])

    def verify(self):
        prefix = os.path.join(self.dir, "prefix")
        os.makedirs(os.path.join(prefix, "cuda-12.8", "lib64"), exist_ok=True)
        with open(os.path.join(prefix, "cuda-12.8", "version.json"), "w") as f:
            json.dump({"cuda": {"name": "CUDA SDK", "version": "12.8.1"}}, f)
        if not os.path.islink(os.path.join(prefix, "cuda")):
            os.symlink("cuda-12.8", os.path.join(prefix, "cuda"))
        os.makedirs(self.state_dir_verify, exist_ok=True)
        with open(os.path.join(self.state_dir_verify, "pyenv.json"), "w") as f:
            json.dump({"tool": "venv", "name": "case-env", "path": self.env, "python": os.path.join(self.env, "bin", "python"),
                       "framework": self.frameworks[0], "frameworks": self.frameworks, "bundled": self.bundled}, f)
        env = {"HOME": self.host(self.home), "FAKE_NVIDIA_CONFIG": os.path.join(self.root, "fake-nvidia.conf")}
        if self.llp:
            env["LD_LIBRARY_PATH"] = ":".join(self.host(d) for d in self.llp)
        env.update({k: (self.host(v) if v.startswith("/") else v) for k, v in self.vars.items()})
        r = run(["verify", "--json", "--prefix", prefix, "--state-dir", self.state_dir_verify, "--root", self.root],
                env=env, timeout=300)
        doc = r.json() or {}
        checks = [c for c in doc.get("checks", []) if c["name"] in ("libraries", "framework")]
        return r, doc, checks


def problem(problems, code):
    return next((p for p in problems if p["code"] == code), None)


def has_all(text, *parts):
    return text is not None and all(p in text for p in parts)


def expect_doctor(c, code, *parts, fix=None):
    r, probs = c.doctor()
    p = problem(probs, code)
    t.ok(p is not None and has_all(p["message"], *parts) and (fix is None or has_all(p["fix"], fix)),
         "%s: doctor says %s, naming %s" % (c.name, code, ", ".join(parts)), json.dumps(probs, indent=1)[-3000:])
    return p


def expect_verify(c, *parts, fix=None, check="libraries"):
    r, doc, checks = c.verify()
    fails = [x for x in checks if x["status"] == "fail" and x["name"] == check]
    ok = r.rc == 4 and any(has_all(x["detail"], *parts) and (fix is None or has_all(x.get("fix"), fix)) for x in fails)
    t.ok(ok, "%s: verify fails its %s check naming %s" % (c.name, check, ", ".join(parts)),
         json.dumps(checks, indent=1)[-3000:])
    return doc


# 1. pytorch/pytorch issues ("PyTorch was compiled against (8, 7, 0) but found runtime version (8, 2, 4)"): an older
#    cuDNN in a system CUDA folder that ~/.bashrc puts in LD_LIBRARY_PATH comes before the wheel's (the loader reads
#    LD_LIBRARY_PATH before DT_RUNPATH).
c = Case("llp-cudnn").install(*TORCH_SET).lib("/usr/local/cuda-12.1/lib64", "libcudnn.so.9", "9.1.0")
c.llp = ["/usr/local/cuda-12.1/lib64"]
c.file(c.home + "/.bashrc", "export LD_LIBRARY_PATH=/usr/local/cuda-12.1/lib64:$LD_LIBRARY_PATH\n")
expect_doctor(c, "framework-cuda-shadowed", "libcudnn.so.9", "/usr/local/cuda-12.1/lib64/libcudnn.so.9",
              "LD_LIBRARY_PATH holds /usr/local/cuda-12.1/lib64, set in /home/u/.bashrc", fix=".bashrc")
doc = expect_verify(c, "PyTorch was built against cuDNN 9.10.2 but loaded 9.1.0", "LD_LIBRARY_PATH holds",
                    ".bashrc", fix="out of LD_LIBRARY_PATH")
libs = doc.get("libraries", [])
cudnn = next((l for l in libs if l["name"] == "libcudnn.so.9"), {})
t.ok(cudnn.get("path", "").endswith("/usr/local/cuda-12.1/lib64/libcudnn.so.9") and cudnn.get("framework") == "pytorch"
     and cudnn.get("owner", "").endswith("/usr/local/cuda-12.1/lib64"),
     "llp-cudnn: verify's libraries[] lists the cuDNN really mapped, its folder as owner, and the framework", libs)
cublas = next((l for l in libs if l["name"] == "libcublas.so.12"), {})
t.eq((cublas.get("owner"), cublas.get("version")), ("nvidia-cublas-cu12 12.8.4.1", "12.8.4.1"),
     "llp-cudnn: the libraries the wheels served are listed with their wheel and version")

# 2. pytorch/pytorch#152783 (undefined symbol __nvJitLink*): an older nvJitLink in LD_LIBRARY_PATH comes before the
#    wheel's for cuSPARSE, whose DT_RUNPATH ($ORIGIN) does not reach nvjitlink/lib; `import torch` fails.
c = Case("llp-nvjitlink").install(*TORCH_SET).lib("/usr/local/cuda-12.1/lib64", "libnvJitLink.so.12", "12.1.105")
c.llp = ["/usr/local/cuda-12.1/lib64"]
expect_doctor(c, "framework-cuda-shadowed", "libnvJitLink.so.12", "/usr/local/cuda-12.1/lib64/libnvJitLink.so.12",
              "LD_LIBRARY_PATH holds /usr/local/cuda-12.1/lib64")
expect_verify(c, "undefined symbol: __nvJitLinkComplete_12_8", check="framework")
expect_verify(c, "libcusparse.so.12 needs libnvJitLink.so.12", "/usr/local/cuda-12.1/lib64/libnvJitLink.so.12",
              "LD_LIBRARY_PATH holds", fix="out of LD_LIBRARY_PATH")

# 3. jax-ml/jax#17497 ("JAX uses the first CUDA libraries found in LD_LIBRARY_PATH"; "Found cuBLAS version 120205, but
#    JAX was built against 120304"): an older cuBLAS in LD_LIBRARY_PATH.
c = Case("llp-jax-cublas").install("cudart", "cublas123", "cudnn", "jax")
c.lib("/opt/cuda-12.2/lib64", "libcublas.so.12", "12.2.5").lib("/opt/cuda-12.2/lib64", "libcublasLt.so.12", "12.2.5")
c.frameworks = ["jax"]
c.llp = ["/opt/cuda-12.2/lib64"]
expect_doctor(c, "framework-cuda-shadowed", "libcublas", "/opt/cuda-12.2/lib64", "LD_LIBRARY_PATH")
expect_verify(c, "JAX was built against cuBLAS 12.3.4 but loaded 12.2.5", "/opt/cuda-12.2/lib64/libcublas.so.12")

# 4. An /etc/ld.so.conf.d file of a system CUDA (NVIDIA's cuda-toolkit debs write cuda-11-2.conf and the like): a
#    TensorFlow without CUDA wheels of its own dlopens libcudnn.so.8 by name and the loader's cache gives it the
#    toolkit's, older than it was built with ("Loaded runtime CuDNN library: 8.1.0 but source was compiled with: 8.6.0").
c = Case("ldconf-tf").install("tf212")
c.tf_build_info()
c.lib("/usr/local/cuda-11.2/targets/x86_64-linux/lib", "libcudnn.so.8.1.0", "8.1.0")
os.symlink("libcudnn.so.8.1.0", c.host("/usr/local/cuda-11.2/targets/x86_64-linux/lib/libcudnn.so.8"))
c.file("/etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n", host_too=False)
c.file("/etc/ld.so.conf.d/cuda-11-2.conf", "/usr/local/cuda-11.2/targets/x86_64-linux/lib\n", host_too=False)
expect_doctor(c, "framework-cuda-shadowed", "built with cuDNN 8.6 but would load cuDNN 8.1.0",
              "/usr/local/cuda-11.2/targets/x86_64-linux/lib/libcudnn.so.8", "/etc/ld.so.conf.d/cuda-11-2.conf puts",
              fix="ldconfig")
t.skip("ldconf-tf: verify", "the loader of a real process reads the host's /etc/ld.so.cache, which a test may not "
       "change; unit test test_ldpath judges the probe's view of this case")

# 5. cudaup's own env.sh (a CUDA-alone install, its rc block in every shell) puts its CUDA folder in LD_LIBRARY_PATH,
#    ahead of an environment cudaup did not make.
c = Case("envsh").install(*TORCH_SET).lib("/opt/cudaup/cuda-12.4/lib64", "libcudnn.so.9", "9.1.0")
c.envsh("/opt/cudaup/cuda-12.4/lib64")
expect_doctor(c, "framework-cuda-shadowed", "libcudnn.so.9", "/opt/cudaup/cuda-12.4/lib64", "cudaup's own",
              fix="activate")
c.llp = ["/opt/cudaup/cuda-12.4/lib64"]  # a shell that sourced it
expect_verify(c, "loaded 9.1.0", "put there by cudaup's own", fix="activate")

# 6. TensorFlow's pip guide (2.11-2.13) told conda users to write
#    `export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$CONDA_PREFIX/lib/` into activate.d/env_vars.sh: conda's older cuDNN in
#    the environment's lib/ then comes before the wheel's.
c = Case("conda-activate-d").install(*TORCH_SET).lib("/env/lib", "libcudnn.so.9", "9.1.0")
c.file("/env/etc/conda/activate.d/env_vars.sh", "export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$CONDA_PREFIX/lib/\n",
       host_too=False)
c.vars = {"CONDA_PREFIX": "/env"}
c.llp = ["/env/lib"]
expect_doctor(c, "framework-cuda-shadowed", "libcudnn.so.9", "/env/lib/libcudnn.so.9", "activate.d/env_vars.sh")
expect_verify(c, "loaded 9.1.0", "/env/lib/libcudnn.so.9", "activate.d/env_vars.sh")

# 7. torch 2.15 + tensorflow[and-cuda] 2.21 on PyPI today: nvidia-cudnn-cu13 and nvidia-cudnn-cu12 both install
#    nvidia/cudnn/lib/libcudnn.so.9, the second over the first (framework_wheel_requires.csv, resolutions.md).
c = Case("two-cudnn").install(*TORCH_SET).install("cudnn13")
expect_doctor(c, "framework-cudnn-two", "nvidia-cudnn-cu12 9.10.2.21", "nvidia-cudnn-cu13 9.26.0.51")
expect_verify(c, "belongs to two distributions", "nvidia-cudnn-cu12 9.10.2.21", "nvidia-cudnn-cu13 9.26.0.51")

# 8. jax-ml/jax#19004 ("the first one to load it wins"): PyTorch's wheel cuDNN 9.5 and a JAX plugin that carries its own
#    9.10 beside it, found by its DT_RUNPATH $ORIGIN; imported after PyTorch, JAX gets PyTorch's.
c = Case("first-wins").install("cudart", "cublas", "cudnn95", "cusparse", "nvjitlink", "torch-cudnn95", "jax")
plugin = os.path.join(c.sp, "jax_plugins", "xla_cuda12")
mkelf.lib(os.path.join(plugin, "xla_cuda_plugin.so"), "xla_cuda_plugin.so", needed=["libcudart.so.12", "libcublas.so.12",
          "libcudnn.so.9"], runpath="$ORIGIN:$ORIGIN/../../nvidia/cuda_runtime/lib:$ORIGIN/../../nvidia/cublas/lib", cache=CACHE)
mkelf.lib(os.path.join(plugin, "libcudnn.so.9"), "libcudnn.so.9", "9.10.2", cache=CACHE)
c.frameworks = ["pytorch", "jax"]
expect_doctor(c, "framework-cuda-duplicate", "libcudnn.so.9", "nvidia/cudnn/lib/libcudnn.so.9", "jax_plugins/xla_cuda12")
expect_verify(c, "JAX was built against cuDNN 9.10.2 but loaded 9.5.1", "which PyTorch, imported before it, had loaded",
              fix="environment of its own")

# 9. A distribution's cuDNN in a default folder, older than a TensorFlow without CUDA wheels was built with
#    (tensorflow/tensorflow reports: "Loaded runtime CuDNN library: 8.1.0 but source was compiled with: 8.6.0").
c = Case("default-dir").install("tf212")
c.tf_build_info()
c.lib("/usr/lib/x86_64-linux-gnu", "libcudnn.so.8.1.0", "8.1.0")
os.symlink("libcudnn.so.8.1.0", c.host("/usr/lib/x86_64-linux-gnu/libcudnn.so.8"))
expect_doctor(c, "framework-cuda-shadowed", "built with cuDNN 8.6 but would load cuDNN 8.1.0",
              "/usr/lib/x86_64-linux-gnu/libcudnn.so.8", "default folders", fix="package")
t.skip("default-dir: verify", "a real process's loader reads the host's default folders, which a test may not change; "
       "unit test test_ldpath judges the probe's view of this case")

# 11. A system CUDA newer than the wheels (cuBLAS 12.9 in LD_LIBRARY_PATH before torch's 12.8.4): no framework reports
#     an older runtime, yet the library is not the environment's own, and the next `pip install` of a wheel built
#     against the newer one, or a system CUDA older than that, breaks it; verify fails on where it came from.
c = Case("llp-newer").install(*TORCH_SET)
c.lib("/usr/local/cuda-12.9/lib64", "libcublas.so.12", "12.9.1").lib("/usr/local/cuda-12.9/lib64", "libcublasLt.so.12", "12.9.1")
c.llp = ["/usr/local/cuda-12.9/lib64"]
expect_doctor(c, "framework-cuda-shadowed", "libcublas.so.12", "/usr/local/cuda-12.9/lib64", "LD_LIBRARY_PATH")
expect_verify(c, "libcublas.so.12 was loaded from", "/usr/local/cuda-12.9/lib64/libcublas.so.12", "outside the environment",
              "LD_LIBRARY_PATH holds", fix="out of LD_LIBRARY_PATH")

# 10. Negative: WSL's driver folder (libcuda.so.1, libdxcore.so) in LD_LIBRARY_PATH shadows nothing; the environment's
#     activation keeps it, and neither doctor nor verify complains.
c = Case("wsl-lib").install(*TORCH_SET).lib("/usr/lib/wsl/lib", "libcuda.so.1", None).lib("/usr/lib/wsl/lib", "libdxcore.so", None)
c.llp = ["/usr/lib/wsl/lib"]
r, probs = c.doctor()
t.ok(not [p for p in probs if p["code"].startswith("framework-cud")], "wsl-lib: doctor finds no shadowing",
     json.dumps(probs, indent=1)[-2000:])
r, doc, checks = c.verify()
lib = next((x for x in checks if x["name"] == "libraries"), {})
t.ok(lib.get("status") == "pass" and "nvidia-cudnn-cu12 9.10.2.21" in lib.get("detail", ""),
     "wsl-lib: verify's libraries check passes, each from the wheels", checks)


# `verify --env PATH|NAME` (issue 47 item 3): any venv or conda environment, made by cudaup or not (no pyenv.json,
# no CUDA install); each check about one framework says which in --json.
def verify_env(c, target, extra=None, args=()):
    env = {"HOME": c.host(c.home), "FAKE_NVIDIA_CONFIG": os.path.join(c.root, "fake-nvidia.conf")}
    if c.llp:
        env["LD_LIBRARY_PATH"] = ":".join(c.host(d) for d in c.llp)
    env.update(extra or {})
    r = run(["verify", "--json", "--env", target, "--root", c.root, "--state-dir", os.path.join(c.dir, "state-env")] + list(args),
            env=env, timeout=300)
    return r, r.json() or {}


r, doc = verify_env(c, c.env)
fw = [x for x in doc.get("checks", []) if x["name"] in ("framework", "libraries")]
t.ok(r.rc == 0 and doc.get("path") == os.path.realpath(c.env) and len(fw) == 2 and
     all(x["status"] == "pass" and x.get("framework") == "pytorch" for x in fw),
     "verify --env PATH: a venv cudaup did not make passes; its framework and libraries checks carry framework",
     "%r\n%s" % (r, json.dumps(doc.get("checks"), indent=1)))
envs = os.path.join(c.dir, "conda-envs")
os.makedirs(envs, exist_ok=True)
os.symlink(c.env, os.path.join(envs, "mytorch"))
r, doc = verify_env(c, "mytorch", {"CONDA_ENVS_PATH": envs})
t.ok(r.rc == 0 and doc.get("path") == os.path.realpath(c.env), "verify --env NAME: found in CONDA_ENVS_PATH", r)
r, doc = verify_env(c, "no-such-env", {"CONDA_ENVS_PATH": envs})
t.ok(r.rc == 2 and "There is no conda environment or venv 'no-such-env'" in doc.get("error", "") and
     "conda env list" in doc.get("advice", ""), "verify --env NAME that is none: exit 2, one sentence and what to give", r)
r, doc = verify_env(c, c.dir)
t.ok(r.rc == 2 and "has no Python of its own" in doc.get("error", ""), "verify --env of a folder that is no environment: "
     "exit 2", r)
r, doc = verify_env(c, c.env, args=["12.8"])
t.ok(r.rc == 2 and "leave out '12.8'" in doc.get("error", ""), "verify --env with a CUDA version: exit 2", r)

# Every problem named (issue 47 item 3; it named the first only): an older cuDNN and a newer cuBLAS both in
# LD_LIBRARY_PATH, each a failed libraries check of its own with its own fix.
c = Case("llp-two").install(*TORCH_SET).lib("/usr/local/cuda-12.1/lib64", "libcudnn.so.9", "9.1.0")
c.lib("/usr/local/cuda-12.9/lib64", "libcublas.so.12", "12.9.1").lib("/usr/local/cuda-12.9/lib64", "libcublasLt.so.12", "12.9.1")
c.llp = ["/usr/local/cuda-12.1/lib64", "/usr/local/cuda-12.9/lib64"]
r, doc = verify_env(c, c.env)
fails = [x for x in doc.get("checks", []) if x["status"] == "fail" and x["name"] == "libraries"]
t.ok(r.rc == 4 and any("built against cuDNN 9.10.2 but loaded 9.1.0" in x["detail"] for x in fails) and
     any("libcublas.so.12 was loaded from" in x["detail"] and "/usr/local/cuda-12.9/lib64" in x["detail"] for x in fails)
     and all(x.get("fix") and x.get("framework") == "pytorch" for x in fails),
     "llp-two: verify --env names both problems, each with its fix and framework", json.dumps(doc.get("checks"), indent=1))
# A framework whose import kills its process (issue 47 review: JAX crashed with a signal and nothing on stderr, and
# verify said "PyTorch does not import: ?", titled with the first framework, with no framework key): the check names
# the one whose probe died and how (the signal), carries framework in --json, and the others are still judged.
c = Case("crash").install(*TORCH_SET).install("jax")
with open(os.path.join(c.sp, "jax", "__init__.py")) as f:
    body = f.read()
with open(os.path.join(c.sp, "jax", "__init__.py"), "w") as f:
    f.write("import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n" + body)
c.frameworks = ["pytorch", "jax"]
r, doc, checks = c.verify()
fails = [x for x in checks if x["status"] == "fail" and x["name"] == "framework"]
torch_ok = [x for x in checks if x["name"] == "framework" and x.get("framework") == "pytorch" and x["status"] == "pass"]
t.ok(r.rc == 4 and len(fails) == 1 and fails[0].get("framework") == "jax" and
     has_all(fails[0]["detail"], "JAX", "imported after PyTorch", "signal 11 (SIGSEGV)", "nothing on its standard error")
     and "PyTorch does not import" not in json.dumps(checks) and torch_ok,
     "crash: verify names JAX, whose import was killed by SIGSEGV, with framework jax in --json; PyTorch is still "
     "judged (passes)", json.dumps(checks, indent=1))
t.done()
