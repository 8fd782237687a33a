#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""cudaup doctor on fixture machines, on this machine's real CUDA, and with bad input."""
import os

from cutest import Tap, machine, run

t = Tap()


def doctor(name, *extra):
    root, env = machine(t, name)
    r = run(["doctor", "--json", "--root", root] + list(extra), env=env)
    return root, r, r.json()


def codes(doc):
    return [p["code"] for p in doc["problems"]] if doc else []


def check_keys(doc, name):
    ok = doc is not None and all(k in doc for k in
                                 ("gpus", "driver", "cuda_installs", "python_envs", "env", "problems"))
    t.ok(ok, "%s: doctor JSON has every documented key" % name, doc)
    if not ok:
        return
    for g in doc["gpus"]:
        t.ok(all(k in g for k in ("index", "name", "pci_id", "bus", "compute_capability",
                                  "memory_mib", "source")), "%s: gpu %d has its keys" % (name, g["index"]))
    t.ok(all(k in doc["driver"] for k in ("kind", "version", "cuda_max")), "%s: driver keys" % name)
    for p in doc["problems"]:
        t.ok(set(p) >= {"code", "severity", "message", "fix"} and p["message"] and p["fix"],
             "%s: problem %s has a message and a fix" % (name, p["code"]))


# Maxwell on an old driver: the GPU is known, the driver runs CUDA 11.4 (NVML says 11040).
root, r, doc = doctor("maxwell-old-driver")
check_keys(doc, "maxwell")
t.eq(r.rc, 0, "maxwell: no error-level problem, exit 0")
t.eq(doc["gpus"][0]["compute_capability"], "5.2", "maxwell: GTX 970 is compute capability 5.2")
t.eq(doc["gpus"][0]["pci_id"], "10de:13c2", "maxwell: pci id")
t.eq(doc["gpus"][0]["bus"], "0000:01:00.0", "maxwell: bus id")
t.eq(doc["gpus"][0]["source"], "pci+nvml", "maxwell: found in sysfs and confirmed by NVML")
t.eq(doc["gpus"][0]["memory_mib"], 4096, "maxwell: memory from NVML")
t.eq(doc["driver"]["kind"], "nvidia", "maxwell: nvidia driver")
t.eq(doc["driver"]["version"], "470.82.01", "maxwell: driver version from /proc")
t.eq(doc["driver"]["cuda_max"], "11.4", "maxwell: driver runs CUDA up to 11.4")
t.has(codes(doc), "driver-update-available", "maxwell: says a newer driver would allow newer CUDA")
t.has(codes(doc), "no-cuda", "maxwell: notes that no CUDA is installed")

# Ada without a driver.
root, r, doc = doctor("ada-no-driver")
check_keys(doc, "ada")
t.eq(r.rc, 3, "ada without driver: exit 3")
t.eq(doc["driver"]["kind"], "none", "ada: driver kind none")
t.eq(doc["gpus"][0]["compute_capability"], "8.9", "ada: RTX 4090 is 8.9 from the catalog alone")
t.eq(doc["gpus"][0]["source"], "pci", "ada: found in sysfs only")
p = [p for p in doc["problems"] if p["code"] == "no-driver"]
t.ok(p and p[0]["severity"] == "error", "ada: no-driver is an error")
t.ok(p and p[0]["message"] == "No NVIDIA driver is loaded.", "ada: says no NVIDIA driver is loaded",
     p)
t.ok(p and "insufficient" not in (p[0]["message"] + p[0]["fix"]).lower(),
     "ada: never CUDA's misleading 'driver version is insufficient'")
t.ok(p and "ubuntu-drivers" in p[0]["fix"] and "or newer" in p[0]["fix"],
     "ada: the fix names a driver version and the Ubuntu way", p)

# nouveau holds the GPU.
root, r, doc = doctor("nouveau")
check_keys(doc, "nouveau")
t.eq(r.rc, 3, "nouveau: exit 3")
t.eq(doc["driver"]["kind"], "nouveau", "nouveau: driver kind nouveau")
t.has(codes(doc), "nouveau", "nouveau: problem reported")
t.ok("blacklist" in [p for p in doc["problems"] if p["code"] == "nouveau"][0]["fix"],
     "nouveau: the fix blacklists nouveau")
t.eq(doc["os"]["id"], "fedora", "nouveau: reads etc/os-release")

# Hopper with CUDA 12.4 and cuDNN installed, /usr/local/cuda linked.
root, r, doc = doctor("hopper")
check_keys(doc, "hopper")
t.eq(r.rc, 0, "hopper: exit 0", r)
t.eq(doc["gpus"][0]["name"], "H100 80GB HBM3", "hopper: NVML's name wins over pci.ids")
t.eq(doc["gpus"][0]["compute_capability"], "9.0", "hopper: 9.0")
t.eq(doc["driver"]["cuda_max"], "12.4", "hopper: cuda_max 12.4")
t.eq(doc["driver"]["cuda_max_source"], "libcuda", "hopper: cuda_max from the driver API")
# The newer driver named is one a source gives: the newest CUDA whose floor is known (13.3, 610.43.02), not 13.4,
# whose manifests name none (the update line vanished when 13.4 came into the catalog: issue 42).
upd = [p for p in doc["problems"] if p["code"] == "driver-update-available"]
t.ok(upd and "CUDA 13.3 would need driver 610.43.02" in upd[0]["message"],
     "hopper: a newer driver is named, for the newest CUDA whose driver floor is known", doc["problems"])
inst = doc["cuda_installs"]
t.eq(len(inst), 1, "hopper: one install (the link is not counted twice)")
t.eq(inst[0]["path"], "/usr/local/cuda-12.4", "hopper: install path")
t.eq(inst[0]["version"], "12.4.1", "hopper: version from version.json")
t.eq(inst[0]["cudnn"], {"version": "9.1.0"}, "hopper: cuDNN from cudnn_version.h")
t.eq(inst[0]["links"], ["/usr/local/cuda"], "hopper: /usr/local/cuda links to it")
t.eq(inst[0]["managed"], False, "hopper: not made by cudaup")

# Two GPUs.
root, r, doc = doctor("two-gpus")
check_keys(doc, "two-gpus")
t.eq([g["index"] for g in doc["gpus"]], [0, 1], "two gpus: both listed in bus order")
t.eq([g["compute_capability"] for g in doc["gpus"]], ["8.9", "8.6"], "two gpus: each its own cc")
t.eq(doc["driver"]["cuda_max"], "13.0", "two gpus: driver 580 runs CUDA 13.0")

# WSL2: no PCI device, the GPU comes from the Windows driver's NVML.
root, r, doc = doctor("wsl2")
check_keys(doc, "wsl2")
t.eq(doc["driver"]["kind"], "wsl", "wsl2: driver kind wsl")
t.eq(doc["os"]["wsl"], True, "wsl2: detected from proc/version")
t.eq(len(doc["gpus"]), 1, "wsl2: the GPU comes from NVML")
t.ok(doc["gpus"] and doc["gpus"][0]["source"] == "nvml", "wsl2: source nvml")
t.ok(doc["driver"]["nvml"] and "/usr/lib/wsl/lib/" in doc["driver"]["nvml"], "wsl2: NVML from /usr/lib/wsl/lib")
t.eq(r.rc, 0, "wsl2: exit 0", r)
# The driver line names the Windows driver's version, from its NVML in /usr/lib/wsl/lib; without that NVML it
# says why the version is unread (issue 49 item 21: it said "NVIDIA ? (through WSL2)").
wenv = {"FAKE_NVIDIA_CONFIG": os.path.join(root, "fake-nvidia.conf")}
rt = run(["doctor", "--root", root], env=wenv)
drv = [ln for ln in rt.out.splitlines() if ln.startswith("Driver")]
t.ok(drv and "NVIDIA 566.36, the Windows driver (through WSL2), runs CUDA up to 12.7" in drv[0] and doc["driver"]["version"] == "566.36",
     "wsl2 as text: the Windows driver's version, read by NVML", drv)
os.unlink(os.path.join(root, "usr/lib/wsl/lib/libnvidia-ml.so.1"))
rt = run(["doctor", "--root", root], env=wenv)
drv = [ln for ln in rt.out.splitlines() if ln.startswith("Driver")]
t.ok(rt.rc == 0 and drv and "?" not in drv[0] and "its version is unread: /usr/lib/wsl/lib has no libnvidia-ml.so.1" in drv[0],
     "wsl2 without NVML: the line says why the version is unread, not '?'", rt.out[:500])

# No NVIDIA GPU (an Intel GPU and an NVIDIA audio function do not count).
root, r, doc = doctor("no-gpu")
check_keys(doc, "no-gpu")
t.eq(doc["gpus"], [], "no-gpu: the audio function and the Intel GPU are not NVIDIA GPUs")
t.eq(r.rc, 3, "no-gpu: exit 3")
t.has(codes(doc), "no-gpu", "no-gpu: problem reported")

# A new GPU on an old driver; a driver whose libraries differ from its module; Kepler.
root, r, doc = doctor("blackwell-old-driver")
t.has(codes(doc), "driver-too-old-for-gpu", "blackwell on driver 550: driver too old for this GPU")
t.eq(r.rc, 3, "blackwell on driver 550: exit 3")
msg = [p for p in doc["problems"] if p["code"] == "driver-too-old-for-gpu"][0]
t.ok("12.8" in msg["message"] and "570.26" in msg["fix"], "blackwell: names CUDA 12.8 and driver 570.26", msg)
root, r, doc = doctor("driver-mismatch")
t.has(codes(doc), "driver-mismatch", "mismatch: kernel module and NVML differ")
t.ok("Reboot" in [p for p in doc["problems"] if p["code"] == "driver-mismatch"][0]["fix"],
     "mismatch: the fix is a reboot")
root, r, doc = doctor("kepler")
t.has(codes(doc), "gpu-too-old", "kepler 3.0: no CUDA with archives supports it")
t.eq(doc["driver"]["cuda_max_source"], "table", "kepler: cuda_max from the driver table without libs")
t.eq(doc["driver"]["cuda_max"], "11.4", "kepler: driver 470.82.01 runs 11.4 by the table")
nl = [p for p in doc["problems"] if p["code"] == "no-libcuda"]
t.ok(len(nl) == 1 and nl[0]["severity"] == "error" and "470.82.01" in nl[0]["message"] and
     "libnvidia-compute-470" in nl[0]["fix"], "kepler: a kernel module without libcuda.so.1 is an error with its fix", nl)
r = run(["doctor", "--root", root], env={"FAKE_NVIDIA_CONFIG": os.path.join(root, "fake-nvidia.conf")})
t.ok("without libcuda.so.1" in r.out and "runs CUDA up to" not in r.out,
     "kepler as text: the driver line says no CUDA program can run, not what CUDA it runs", r.out)
root, r, doc = doctor("hopper")
t.ok(not [p for p in doc["problems"] if p["code"] == "no-libcuda"], "hopper with its libraries: no no-libcuda problem")
root, r, doc = doctor("pascal-cuda13")
t.has(codes(doc), "cuda-drops-gpu", "pascal with CUDA 13: CUDA 13 cannot build for 6.1")
t.ok("12.9" in [p for p in doc["problems"] if p["code"] == "cuda-drops-gpu"][0]["fix"],
     "pascal: suggests CUDA 12.9")

# Translated text: zh_CN ships with cudaup; codes stay the same in every language.
if os.environ.get("CUDAUP_LOCALEDIR"):
    root, env = machine(t, "ada-no-driver")
    env.update({"LANGUAGE": "zh_CN", "LANG": "C.UTF-8"})
    r = run(["doctor", "--root", root], env=env)
    t.ok("未加载 NVIDIA 驱动" in r.out and "[no-driver]" in r.out, "zh_CN: doctor speaks Chinese, codes unchanged", r)
    t.ok("驱动     " in r.out, "zh_CN: labels are padded by display width, not bytes", r)
    r = run(["doctor", "--bogus"], env={"LANGUAGE": "zh_CN"})
    t.ok("未知选项" in r.err, "zh_CN: usage errors are translated", r)
else:
    t.skip("zh_CN translation", "built without NLS")

# Text output and the environment checks.
root, env = machine(t, "hopper")
env.update({"CUDA_HOME": "/opt/cuda-gone", "LD_LIBRARY_PATH": "/usr/local/cuda-12.4/lib64::/usr/local/cuda-11.8/lib64"})
r = run(["doctor", "--root", root], env=env)
t.ok("GPU" in r.out and "H100" in r.out and "12.4.1" in r.out, "text output lists GPU and CUDA", r)
t.ok("env-missing-folder" in r.out, "text: CUDA_HOME pointing nowhere is reported", r)
t.ok("env-ld-empty-entry" in r.out, "text: empty LD_LIBRARY_PATH entry is reported", r)
t.ok("env-mixed-cuda" in r.out, "text: two CUDA versions in LD_LIBRARY_PATH are reported", r)
t.ok("\033[" not in r.out, "text: NO_COLOR means no escape sequences")
r = run(["doctor", "--root", root, "-q"], env=env)
t.eq(r.out, "", "-q prints nothing when there is no error")

# This machine's real toolkit, read through the real root.
if os.path.isdir("/usr/local/cuda-13.0"):
    r = run(["doctor", "--json"])
    doc = r.json()
    real = [i for i in (doc or {}).get("cuda_installs", []) if i["path"] == "/usr/local/cuda-13.0"]
    t.ok(real and real[0]["version"].startswith("13.0"), "real /usr/local/cuda-13.0 is CUDA 13.0", r)
    t.ok(real and real[0]["cudnn"] and real[0]["cudnn"]["version"] == "9.19.0",
         "real cuDNN 9.19.0 found in its headers", real)
    t.ok(real and real[0]["nvcc"], "real nvcc found")
else:
    t.skip("real /usr/local/cuda-13.0", "not on this machine")

# Bad flags and bad roots: one sentence, exit 2.
r = run(["doctor", "--root", "/nonexistent/root"])
t.eq(r.rc, 2, "missing root: exit 2")
t.ok("/nonexistent/root" in r.err and r.err.count("\n") <= 2, "missing root: one clear sentence", r)
f = os.path.join(t.tmpdir("file"), "plain")
open(f, "w").close()
r = run(["doctor", "--root", f])
t.eq(r.rc, 2, "root that is a file: exit 2")
r = run(["doctor", "--bogus"])
t.eq(r.rc, 2, "unknown flag: exit 2")
t.ok("--bogus" in r.err, "unknown flag is named", r)
# A typo of a command gets the command it was meant to be; --jobs 0 is refused; usage has one space (issue 26).
r = run(["instal"])
t.ok(r.rc == 2 and "Did you mean 'install'?" in r.err, "'cudaup instal': did you mean 'install'?", r)
r = run(["frobnicate"])
t.ok(r.rc == 2 and "Did you mean" not in r.err, "a word far from every command: no guess", r)
r = run(["install", "--jobs", "0"])
t.ok(r.rc == 2 and "--jobs 0" in r.err, "--jobs 0 is bad input, exit 2", r)
r = run(["doctor", "--help"])
t.ok(r.rc == 0 and "Usage: cudaup doctor [OPTIONS]" in r.out, "doctor's usage line has one space before [OPTIONS]", r.out[:200])
r = run(["doctor", "--cuda", "12.4"])
t.eq(r.rc, 2, "--cuda does not apply to doctor: exit 2")
t.ok("does not apply" in r.err, "says the option does not apply", r)
r = run(["doctor", "extra"])
t.eq(r.rc, 2, "doctor with an argument: exit 2")
r = run(["frobnicate"])
t.eq(r.rc, 2, "unknown command: exit 2")
r = run(["doctor", "--root"])
t.eq(r.rc, 2, "--root without a value: exit 2")
r = run(["doctor", "--json", "--bogus"])
t.ok(r.rc == 2 and r.json() and r.json()["status"] == "error", "--json errors are a JSON document too", r)
r = run([])
t.eq(r.rc, 2, "no command and no terminal: exit 2")
t.ok("headless" in r.err, "no command: says how to run headless", r)
r = run(["--version"])
t.ok(r.rc == 0 and r.out.startswith("cudaup "), "--version", r)
r = run(["--help"])
t.ok(r.rc == 0 and "doctor" in r.out and "--mirror" in r.out, "--help lists commands and options")

# A malformed catalog is bad input: exit 2, naming the file.
bad = os.path.join(t.tmpdir("cat"), "catalog.json")
with open(bad, "w") as fh:
    fh.write('{"schema": 1, "pci": {"zz": 3}}')
r = run(["doctor"], env={"CUDAUP_CATALOG": bad})
t.eq(r.rc, 2, "malformed catalog: exit 2")
t.ok(bad in r.err, "malformed catalog: names the file", r)
with open(bad, "w") as fh:
    fh.write('{"schema": 1, ')
r = run(["doctor"], env={"CUDAUP_CATALOG": bad})
t.ok(r.rc == 2 and "not valid JSON" in r.err, "truncated catalog: exit 2, not valid JSON", r)

# The config file and the environment feed the same table.
cfgdir = t.tmpdir("cfg")
cfg = os.path.join(cfgdir, "config")
with open(cfg, "w") as fh:
    fh.write("# comment\nno-color = yes\nbogus-key = 1\n")
r = run(["doctor"], env={"CUDAUP_CONFIG": cfg})
t.ok(r.rc == 2 and "line 3" in r.err and "bogus-key" in r.err, "config file: unknown key named with its line", r)
r = run(["doctor", "--root", "/"], env={"CUDAUP_ROOT": "/nonexistent"})
t.ok(r.rc != 2 and "/nonexistent" not in r.err, "argv --root wins over CUDAUP_ROOT", r)
r = run(["doctor"], env={"CUDAUP_ROOT": "/nonexistent"})
t.eq(r.rc, 2, "CUDAUP_ROOT is read when --root is absent")

# ---- frameworks already installed: read from what the packages installed, judged here ----
import sys  # noqa: E402
sys.path.insert(0, os.path.join(os.environ.get("SRCDIR", "."), "tests", "fixtures"))
import machines  # noqa: E402


def put(root, path, text, mode=0o644):
    full = os.path.join(root, path.lstrip("/"))
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w") as f:
        f.write(text)
    os.chmod(full, mode)


def torch_env(root, env, version, cuda):
    put(root, env + "/lib/python3.11/site-packages/torch/version.py",
        "from typing import Optional\n__version__ = '%s'\ndebug = False\ncuda: Optional[str] = %s\n"
        % (version, "'%s'" % cuda if cuda else "None"))


def tf_env(root, env, version, arch, cuda, cudnn):
    sp = env + "/lib/python3.11/site-packages"
    put(root, sp + "/tensorflow-%s.dist-info/METADATA" % version, "Name: tensorflow\nVersion: %s\n" % version)
    put(root, sp + "/tensorflow/python/platform/build_info.py",
        "build_info = {'cpu_compiler': '/usr/lib/llvm-17/bin/clang', 'cuda_compute_capabilities': %r, "
        "'cuda_version': '%s', 'cudnn_version': '%s', 'is_cuda_build': True, 'is_rocm_build': False}\n"
        % (arch, cuda, cudnn))


def gpu_machine(tag, gpus, driver, extra=None):
    root = os.path.join(t.tmpdir("fw-" + tag), "root")
    spec = {"os": "ubuntu", "driver": driver, "cuda": 12040, "libs": True,
            "gpus": [("0000:%02x:00.0" % (i + 1), dev, "0x030000", "nvidia", cc, 4096, name)
                     for i, (dev, cc, name) in enumerate(gpus)]}
    spec.update(extra or {})
    machines.build_spec(spec, root)
    return root


def fw_doctor(root, env=None):
    e = {"FAKE_NVIDIA_CONFIG": os.path.join(root, "fake-nvidia.conf"), "HOME": "/home/u", "PATH": "/usr/bin:/bin"}
    e.update(env or {})
    r = run(["doctor", "--json", "--root", root, "--state-dir", t.tmpdir("st")], env=e)
    return r, r.json() or {}


def problem(doc, code, where):
    return [p for p in doc.get("problems", []) if p["code"] == code and where in p["message"]]


# A branch that is not held (issue 49 item 9): the fix named `sudo apt-mark hold` and no package, on Fedora too.
# With the driver's packages installed through dpkg and no data row for the branch, the hold names them (the kernel
# module's package follows each kernel); where no package of the branch can be named, no command that holds nothing.
root = gpu_machine("p550", [("1b80", "6.1", "NVIDIA GeForce GTX 1080")], "550.54.14",
                   {"dpkg": [("nvidia-driver-550", "install ok installed"), ("libnvidia-compute-550", "install ok installed"),
                             ("linux-modules-nvidia-550-generic", "install ok installed")]})
r, doc = fw_doctor(root)
up = [p for p in doc.get("problems", []) if p["code"] == "driver-unpinned"]
t.ok(len(up) == 1 and "`sudo apt-mark hold libnvidia-compute-550 nvidia-driver-550`" in up[0]["fix"],
     "doctor: the hold names the driver's installed packages", up)
root = gpu_machine("k-fedora", [("1180", "3.0", "NVIDIA GeForce GTX 680")], "470.82.01", {"os": "fedora"})
r, doc = fw_doctor(root)
up = [p for p in doc.get("problems", []) if p["code"] == "driver-unpinned"]
t.ok(len(up) == 1 and "apt-mark" not in up[0]["fix"] and "cannot name them" in up[0]["fix"] and
     "`cudaup repair` does it" not in up[0]["fix"],
     "doctor on Fedora, branch 470 of no data row: no apt-mark, no hold of nothing, no repair that cannot", up)

# A CUDA tree built from NVIDIA's wheels (no version.json; dist-info folders, as this machine's /usr/local/cuda-13.0):
# nvcc's wheel is 13.0.88, which is no CUDA release (13.0.1 and 13.0.2 both ship it); doctor said "13.0.88" where
# plan and list say 13.0.2.  It is said as the release's X.Y (issue 49 item 18).
root = gpu_machine("wheeltree", [("2684", "8.9", "NVIDIA GeForce RTX 4090")], "580.95.05", {"cuda": 13000})
put(root, "/usr/local/cuda-13.0/bin/nvcc", "#!/bin/sh\n", 0o755)
put(root, "/usr/local/cuda-13.0/include/cuda.h", "#define CUDA_VERSION 13000\n")
for dist in ("nvidia_cuda_nvcc-13.0.88", "nvidia_cuda_runtime-13.0.96", "nvidia_cudnn_cu13-9.19.0.56"):
    put(root, "/usr/local/cuda-13.0/dist-info/%s.dist-info/METADATA" % dist, "Name: x\n")
r, doc = fw_doctor(root)
wi = [i for i in doc.get("cuda_installs", []) if i["path"] == "/usr/local/cuda-13.0"]
rt = run(["doctor", "--root", root, "--state-dir", t.tmpdir("st")],
         env={"FAKE_NVIDIA_CONFIG": os.path.join(root, "fake-nvidia.conf"), "HOME": "/home/u", "PATH": "/usr/bin:/bin"})
t.ok(wi and wi[0]["version"] == "13.0" and "13.0.88" not in rt.out and "13.0  /usr/local/cuda-13.0" in rt.out,
     "doctor: a wheel-built CUDA tree is CUDA 13.0, not its nvcc's 13.0.88", (wi, rt.out[:400]))

# An install the driver runs by NVIDIA's minor-version compatibility (CUDA 12.9 on 535, as the seed's default plan
# takes it): no warning that it needs 575.57.08, as the plan and verify say (issue 49 item 2); its limit, said once.
root = gpu_machine("535-129", [("2684", "8.9", "NVIDIA GeForce RTX 4090")], "535.183.01",
                   {"cuda": 12020, "cuda_installs": [("/usr/local/cuda-12.9", "12.9.1", "9.10.2")]})
r, doc = fw_doctor(root)
cp = [p for p in doc.get("problems", []) if p["code"] == "cuda-minor-version-compat"]
t.ok("cuda-too-new-for-driver" not in codes(doc) and len(cp) == 1 and cp[0]["severity"] == "info" and
     "cannot JIT-compile PTX newer than its own CUDA 12.2" in cp[0]["message"] and "575.57.08" in cp[0]["fix"],
     "doctor: CUDA 12.9 on driver 535 runs by minor-version compatibility, its limit said, no warning", doc.get("problems"))
# Across a major it does not run: the warning names NVIDIA's floor for its major.
root = gpu_machine("470-126", [("2684", "8.9", "NVIDIA GeForce RTX 4090")], "470.82.01",
                   {"cuda": 11040, "cuda_installs": [("/usr/local/cuda-12.6", "12.6.3", None)]})
r, doc = fw_doctor(root)
tn = [p for p in doc.get("problems", []) if p["code"] == "cuda-too-new-for-driver"]
t.ok(len(tn) == 1 and "needs driver 525.60.13 or newer" in tn[0]["message"],
     "doctor: CUDA 12.6 on driver 470 needs 12.x's floor, 525.60.13", doc.get("problems"))

root = gpu_machine("970", [("13c2", "5.2", "NVIDIA GeForce GTX 970")], "580.95.05")
base = "/home/u/miniconda3"
put(root, base + "/bin/conda", "#!/bin/sh\n", 0o755)
os.makedirs(os.path.join(root, base.lstrip("/"), "conda-meta"), exist_ok=True)
torch_env(root, base + "/envs/t128", "2.8.0+cu128", "12.8")
torch_env(root, base + "/envs/t126", "2.8.0+cu126", "12.6")
tf_env(root, base + "/envs/tf", "2.20.0", ["sm_60", "sm_70", "sm_80", "sm_89", "compute_90"], "12.5.1", "9")
torch_env(root, "/home/u/venv", "2.8.0+cpu", None)
r, d = fw_doctor(root, {"VIRTUAL_ENV": "/home/u/venv"})
envs = {e["path"]: e for e in d.get("framework_envs", [])}
t.ok(set(envs) >= {base + "/envs/t128", base + "/envs/t126", base + "/envs/tf", "/home/u/venv"},
     "doctor finds the frameworks in conda's envs and in $VIRTUAL_ENV", sorted(envs))
# As text (issue 49 item 18): "Frameworks" overflowed the 8-column label, so its text began two columns right of
# every other entry's; each entry's text now starts in one column.
e = {"FAKE_NVIDIA_CONFIG": os.path.join(root, "fake-nvidia.conf"), "HOME": "/home/u", "PATH": "/usr/bin:/bin",
     "VIRTUAL_ENV": "/home/u/venv"}
rt = run(["doctor", "--root", root, "--state-dir", t.tmpdir("st")], env=e)
head = rt.out.split("\nProblems:", 1)[0].splitlines()
labelled = [ln for ln in head if ln[:1].strip()]
cols = {len(ln) - len(ln.split(None, 1)[1]) for ln in labelled if len(ln.split(None, 1)) == 2}
t.ok(any(ln.startswith("Frameworks ") for ln in labelled) and len(cols) == 1,
     "doctor as text: the Frameworks label fits its column, and every entry's text starts in the same one", head)
p = problem(d, "framework-no-gpu-code", "/envs/t128")
t.ok(p and "compute capability 5.2" in p[0]["message"] and "sm_70" in p[0]["message"],
     "PyTorch cu128 on a GTX 970: no code for 5.2 [pytorch_wheel_arch.csv 2.8.x cu128]", d.get("problems"))
t.ok(p and p[0]["fix"] == "cudaup install --framework pytorch==2.14",
     "its fix: the PyTorch whose cu126 build has sm_50 [pytorch_wheel_arch.csv 2.14.x cu126]", p)
t.eq(problem(d, "framework-no-gpu-code", "/envs/t126"), [], "PyTorch cu126 on the same GPU: no problem")
t.eq(envs.get(base + "/envs/t126", {}).get("gpu_code"), [{"gpu": 0, "code": "sass"}], "its gpu_code says sass")
p = problem(d, "framework-no-gpu-code", "/envs/tf")
t.ok(p and "sm_60" in p[0]["message"] and p[0]["fix"] == "cudaup install --framework tensorflow==2.16.2",
     "TensorFlow 2.20 on a GTX 970: its own build_info names sm_60 up; the fix is 2.16.2 (sm_50, read in its wheel)", p)
p = problem(d, "framework-no-gpu-code", "/home/u/venv")
t.ok(p and "CPU-only" in p[0]["message"], "a CPU-only PyTorch in $VIRTUAL_ENV: said so", d.get("problems"))
# Each fix works: the plan it names, on this machine, puts real code on the GPU.
MIRROR = "file://" + os.path.join(os.environ.get("SRCDIR", "."), "tests", "fixtures", "nvidia")
for fix in sorted({x["fix"] for x in d.get("problems", []) if x["code"].startswith("framework-")}):
    args = fix.split()[2:]
    pr = run(["plan", "--json", "--root", root, "--mirror", MIRROR, "--cache-dir", t.tmpdir("c"),
              "--prefix", "/opt/cu"] + args, env={"FAKE_NVIDIA_CONFIG": os.path.join(root, "fake-nvidia.conf")})
    gc = ((pr.json() or {}).get("framework") or {}).get("gpu_code")
    t.ok(pr.rc == 0 and gc == [{"gpu": 0, "code": "sass", "target": "sm_50"}],
         "the fix '%s' plans a build with sm_50 code for the GTX 970" % fix, pr)

root = gpu_machine("3090-470", [("2204", "8.6", "NVIDIA GeForce RTX 3090")], "470.82.01")
torch_env(root, "/home/u/venv", "2.5.1+cu124", "12.4")
r, d = fw_doctor(root, {"VIRTUAL_ENV": "/home/u/venv"})
p = problem(d, "framework-driver-too-old", "/home/u/venv")
t.ok(p and "525.60.13" in p[0]["message"], "PyTorch cu124 on driver 470: needs 525.60.13 [framework_driver_rules.md]",
     d.get("problems"))
t.ok(p and p[0]["fix"] == "cudaup install --framework pytorch==2.5",
     "its fix: the newest PyTorch with a read cu118 build [pytorch_wheel_arch.csv 2.5.x cu118]", p)

root = gpu_machine("hopper", [("2330", "9.0", "NVIDIA H100 80GB HBM3")], "550.54.14",
                   {"cuda_installs": [("/usr/local/cuda-12.4", "12.4.1", "9.1.0")], "cuda_link": "/usr/local/cuda-12.4"})
tf_env(root, "/home/u/venv", "2.15.0", ["sm_50", "sm_60", "sm_70", "sm_80", "compute_90"], "12.2", "8")
r, d = fw_doctor(root, {"VIRTUAL_ENV": "/home/u/venv"})
p = problem(d, "framework-cudnn-mismatch", "/home/u/venv")
t.ok(p and "cuDNN 8" in p[0]["message"] and "9.1.0" in p[0]["message"],
     "TensorFlow built with cuDNN 8 loading a CUDA with cuDNN 9.1: named", d.get("problems"))
t.eq(problem(d, "framework-no-gpu-code", "/home/u/venv"), [], "an H100 reaches its compute_90 PTX on driver 550: no code problem")

# More environments of each framework, judged from their own files (issue 16: fwenv's paths).
def put_jax(root, env, jax, plugin=None, jaxlib=None):
    sp = env + "/lib/python3.11/site-packages"
    put(root, sp + "/jax-%s.dist-info/METADATA" % jax, "Name: jax\n")
    if plugin:
        put(root, sp + "/%s.dist-info/METADATA" % plugin, "Name: plugin\n")
    if jaxlib:
        put(root, sp + "/jaxlib-%s.dist-info/METADATA" % jaxlib, "Name: jaxlib\n")


root = gpu_machine("kepler", [("1004", "3.5", "NVIDIA GeForce GTX 780")], "470.82.01")
base = "/home/u/miniconda3"
put(root, base + "/bin/conda", "#!/bin/sh\n", 0o755)
os.makedirs(os.path.join(root, base.lstrip("/"), "conda-meta"), exist_ok=True)
put_jax(root, base, "0.4.30", plugin="jax_cuda12_plugin-0.4.30")              # the base environment
put_jax(root, base + "/envs/oldjax", "0.4.13", jaxlib="0.4.13+cuda11.cudnn86")  # jaxlib carrying CUDA
put_jax(root, base + "/envs/cpujax", "0.4.30", jaxlib="0.4.30")                # no CUDA at all
sp = base + "/envs/cputf/lib/python3.11/site-packages"
put(root, sp + "/tensorflow-2.15.0.dist-info/METADATA", "Name: tensorflow\n")
put(root, sp + "/tensorflow/python/platform/build_info.py",
    "build_info = {'cuda_version': '12.2', 'is_cuda_build': False}\n")
put(root, base + "/envs/.hidden/lib/python3.11/site-packages/torch/version.py", "__version__ = '2.8.0+cu126'\n")
os.makedirs(os.path.join(root, (base + "/envs/nosp/lib/python3.11").lstrip("/")), exist_ok=True)
put(root, base + "/envs/oddtorch/lib/python3.11/site-packages/torch/version.py",
    "__version__ = 2\ncuda = '12.1\n")  # a version that is no string, a quote never closed
r, d = fw_doctor(root)
envs = {e["path"]: e for e in d.get("framework_envs", [])}
t.ok(set(envs) == {base, base + "/envs/oldjax", base + "/envs/cpujax", base + "/envs/cputf", base + "/envs/oddtorch"},
     "conda's base and each env are scanned once; hidden and empty ones are not", sorted(envs))
t.ok(envs.get(base, {}).get("cuda_build") == "12" and envs.get(base + "/envs/oldjax", {}).get("cuda_build") == "11",
     "JAX's CUDA: from its plugin's name, or from jaxlib's +cuda11 local version", envs)
t.ok(envs.get(base + "/envs/cpujax", {}).get("cpu_only") is True and envs.get(base + "/envs/cputf", {}).get("cpu_only") is True,
     "JAX without a plugin and TensorFlow with is_cuda_build False are CPU-only", envs)
t.ok(envs.get(base + "/envs/oddtorch", {}).get("version") is None and envs[base + "/envs/oddtorch"]["cpu_only"],
     "an unreadable torch/version.py gives no version and no CUDA, not garbage", envs.get(base + "/envs/oddtorch"))
p = problem(d, "framework-no-gpu-code", base + " ")
t.ok(p and "compute capability 3.5" in p[0]["message"],
     "JAX 0.4.30's plugin on a GTX 780 (3.5): no code [jax_wheel_arch.csv 0.4.21-0.4.31: sm_50 up]", d.get("problems"))
t.ok(p and p[0]["fix"].startswith("No JAX build cudaup knows runs on the GPUs here"),
     "no JAX plugin runs on Kepler: said so, with CUDA alone as the way out", p)
p = problem(d, "framework-no-gpu-code", "/envs/cputf")
t.ok(p and "CPU-only" in p[0]["message"], "CPU-only TensorFlow: said so", p)
t.eq([g["code"] for g in envs.get(base + "/envs/cputf", {}).get("gpu_code", [])], ["none"], "its gpu_code: none")

root = gpu_machine("h100-535", [("2330", "9.0", "NVIDIA H100 80GB HBM3")], "535.54.03",
                   {"cuda_installs": [("/usr/local/cuda-12.2", "12.2.2", None)], "cuda_link": "/usr/local/cuda-12.2"})
tf_env(root, "/home/u/tfptx", "2.16.1", ["sm_80", "compute_90"], "12.3", "8")
tf_env(root, "/home/u/tfnocudnn", "2.15.0", ["sm_80", "sm_90"], "12.2", "8")
tf_env(root, "/home/u/tfpip", "2.15.0", ["sm_80", "sm_90"], "12.2", "8")
put(root, "/home/u/tfpip/lib/python3.11/site-packages/nvidia/cudnn/__init__.py", "")
torch_env(root, "/home/u/pypi", "2.3.0", "12.1")
r, d = fw_doctor(root, {"CONDA_PREFIX": "/home/u/tfptx", "VIRTUAL_ENV": "/home/u/tfnocudnn"})
for extra in ("/home/u/tfpip", "/home/u/pypi"):
    r2, d2 = fw_doctor(root, {"VIRTUAL_ENV": extra})
    d.setdefault("problems", []).extend(d2.get("problems", []))
    d.setdefault("framework_envs", []).extend(d2.get("framework_envs", []))
envs = {e["path"]: e for e in d.get("framework_envs", [])}
p = problem(d, "framework-no-gpu-code", "/home/u/tfptx")
t.ok(p and "only through its PTX compute_90" in p[0]["message"],
     "TensorFlow built with CUDA 12.3, reaching an H100 only by PTX, on driver 535 (12.3 needs 545): said so "
     "[cuda_toolkit_driver_versions.csv]", d.get("problems"))
p = problem(d, "framework-cudnn-mismatch", "/home/u/tfnocudnn")
t.ok(p and "has no cuDNN" in p[0]["message"], "TensorFlow loading a system CUDA that has no cuDNN: said so", d.get("problems"))
t.eq(problem(d, "framework-cudnn-mismatch", "/home/u/tfpip"), [], "TensorFlow with pip's cuDNN: the system's does not matter")
t.eq(envs.get("/home/u/pypi", {}).get("gpu_code"), [{"gpu": 0, "code": "sass"}],
     "a PyPI PyTorch 2.3.0 (no +cu tag, CUDA 12.1): judged as cu121, which has sm_90 [pytorch_wheel_arch.csv]")

# Each NVML and libcuda call failing in turn (issue 16): doctor still lists both GPUs from the PCI bus,
# its JSON is whole, and it never crashes; a failed per-device call loses only that detail.
rootf, envf = machine(t, "two-gpus")
conff = os.path.join(rootf, "fake-nvidia.conf")
origf = open(conff).read()
CALLS = ["nvmlSystemGetDriverVersion", "nvmlSystemGetCudaDriverVersion_v2", "nvmlDeviceGetCount_v2",
         "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetName", "nvmlDeviceGetPciInfo_v3",
         "nvmlDeviceGetCudaComputeCapability", "nvmlDeviceGetMemoryInfo", "cuDriverGetVersion", "cuDeviceGetCount",
         "cuDeviceGet", "cuDeviceGetName", "cuDeviceGetAttribute", "cuDeviceTotalMem_v2", "cuDeviceGetPCIBusId"]
bad = []
for call in CALLS:
    for after in (0, 1):
        open(conff, "w").write(origf + "fail %s 999 %d\n" % (call, after))
        r = run(["doctor", "--json", "--root", rootf], env=envf)
        d = r.json() or {}
        gpus = d.get("gpus", [])
        if r.rc not in (0, 3, 4) or len(gpus) != 2 or not all(g.get("compute_capability") for g in gpus):
            bad.append((call, after, r.rc, [(g.get("name"), g.get("compute_capability")) for g in gpus], r.err[-200:]))
open(conff, "w").write(origf)
t.eq(bad, [], "%d NVML and libcuda calls failing at their 1st and 2nd call: both GPUs still listed with their "
     "compute capability (from the PCI table), JSON whole, no crash" % len(CALLS))

# No driver: the way to get one follows the distribution in /etc/os-release, from its row of
# data/driver/distributions.csv (issue 43; each distribution's documented command: ubuntu-drivers, Debian's
# nvidia-driver from non-free, NVIDIA's repository and its module streams on RHEL and its rebuilds and on Fedora,
# Arch's nvidia-open since 590), whatever the release; a distribution the data has no row of gets the general one.
rootd, envd = machine(t, "ada-no-driver")
HINTS = {"ubuntu": "ubuntu-drivers install", "pop": "apt install system76-driver-nvidia", "debian": "apt install nvidia-driver",
         "fedora": "dnf install -y nvidia-open", "rocky": "dnf module enable -y nvidia-driver:open-dkms",
         "almalinux": "dnf module enable -y nvidia-driver:open-dkms", "arch": "pacman -Syu nvidia-open",
         "manjaro": "distribution's NVIDIA driver package", "gentoo": "distribution's NVIDIA driver package"}
got = {}
for osid, hint in HINTS.items():
    with open(os.path.join(rootd, "etc", "os-release"), "w") as f:
        f.write('NAME="X"\nID=%s\nVERSION_ID="1"\n' % osid)
    r = run(["doctor", "--json", "--root", rootd, "--state-dir", t.tmpdir("st-" + osid)], env=envd)
    fixes = [p.get("fix") or "" for p in (r.json() or {}).get("problems", []) if p["code"] == "no-driver"]
    got[osid] = hint if fixes and hint in fixes[0] else (r.rc, fixes, r.err[-300:])
t.eq(got, HINTS, "no driver: the fix names the distribution's own way to install one")

# The environment's own mistakes: variables pointing at nothing, two CUDA releases on the library
# path, an empty entry, every GPU hidden.  Each is named, with what to change.
rootv, envv = machine(t, "hopper")
os.makedirs(os.path.join(rootv, "usr/local/cuda-12.4/lib64"), exist_ok=True)
os.makedirs(os.path.join(rootv, "usr/local/cuda-11.8/lib64"), exist_ok=True)
ev = dict(envv, CUDA_HOME="/opt/gone", CUDA_PATH="/opt/gone2", CUDA_VISIBLE_DEVICES="-1",
          PATH="/usr/local/cuda-9.0/bin:/usr/bin:/bin",
          LD_LIBRARY_PATH="/usr/local/cuda-12.4/lib64:/usr/local/cuda-11.8/lib64::/usr/local/cuda-10.2/lib64")
r = run(["doctor", "--json", "--root", rootv], env=ev)
d = r.json() or {}
msgs = {p["code"]: [] for p in d.get("problems", [])}
for p in d.get("problems", []):
    msgs[p["code"]].append(p["message"])
missing = " ".join(msgs.get("env-missing-folder", []))
t.ok(all(x in missing for x in ("CUDA_HOME points at /opt/gone", "CUDA_PATH points at /opt/gone2",
                                "PATH lists /usr/local/cuda-9.0/bin", "LD_LIBRARY_PATH lists /usr/local/cuda-10.2/lib64")),
     "variables and PATH entries that point at nothing: each named", msgs.get("env-missing-folder"))
t.ok(any("cuda-12.4 and cuda-11.8" in m for m in msgs.get("env-mixed-cuda", [])),
     "two CUDA releases on LD_LIBRARY_PATH: named, first one wins", msgs.get("env-mixed-cuda"))
t.ok("env-ld-empty-entry" in msgs and "env-no-visible-devices" in msgs,
     "an empty LD_LIBRARY_PATH entry and CUDA_VISIBLE_DEVICES=-1: each a warning", sorted(msgs))
r = run(["doctor", "--json", "--root", rootv], env=dict(ev, CUDA_VISIBLE_DEVICES=""))
t.ok("env-no-visible-devices" in codes(r.json()), "CUDA_VISIBLE_DEVICES set but empty: hides every GPU too", r)
r = run(["doctor", "--json", "--root", rootv], env=dict(envv, CUDA_VISIBLE_DEVICES="0"))
t.ok("env-no-visible-devices" not in codes(r.json()), "CUDA_VISIBLE_DEVICES=0: fine", r)

# CUDAUP_NVML_LIB / CUDAUP_LIBCUDA_LIB name the libraries to load (a container's own layout): used as
# given, and one that is not there is a driver problem said as such, not a crash.
rooto, envo = machine(t, "hopper")
r = run(["doctor", "--json", "--root", rooto],
        env=dict(envo, CUDAUP_NVML_LIB=os.environ["FAKE_NVML"], CUDAUP_LIBCUDA_LIB=os.environ["FAKE_CUDA"]))
d = r.json() or {}
t.ok(r.rc in (0, 4) and d.get("driver", {}).get("version") and len(d.get("gpus", [])) >= 1,
     "CUDAUP_NVML_LIB and CUDAUP_LIBCUDA_LIB: the named libraries are loaded", r)
r = run(["doctor", "--json", "--root", rooto],
        env=dict(envo, CUDAUP_NVML_LIB="/nonexistent/libnvidia-ml.so.1", CUDAUP_LIBCUDA_LIB="/nonexistent/libcuda.so.1"))
d = r.json() or {}
t.ok(r.rc in (0, 3, 4) and d.get("gpus") is not None and d.get("problems") is not None,
     "named libraries that are not there: doctor still reports, from the PCI bus", r)

# A GPU whose PCI device id no table knows, with no driver to ask: listed, its compute capability
# unknown (null), and doctor says what it cannot judge rather than guessing.
rootu = os.path.join(t.tmpdir("unknown-gpu"), "root")
machines.build_spec({"os": "ubuntu", "gpus": [("0000:01:00.0", "1fff", "0x030000", None, None, 0, "?")]}, rootu)
r = run(["doctor", "--json", "--root", rootu], env={"FAKE_NVIDIA_CONFIG": os.path.join(rootu, "fake-nvidia.conf")})
d = r.json() or {}
g = (d.get("gpus") or [{}])[0]
t.ok(r.rc in (3, 4) and g.get("pci_id") == "10de:1fff" and g.get("compute_capability") is None and
     "no-driver" in codes(d), "an unknown GPU without a driver: listed with compute capability null, no guess", d)

# -q: the errors alone (issue 14): no GPU table, no warnings, each error with its fix.
rootq, envq = machine(t, "no-gpu")
r = run(["doctor", "-q", "--root", rootq], env=envq)
t.ok(r.rc == 3 and "[no-gpu]" in r.out and "fix:" in r.out and
     not [ln for ln in r.out.splitlines() if ln.startswith(("GPU", "Driver", "CUDA", "Problems"))],
     "doctor -q on a machine with an error: the error and its fix, nothing else", r)
rootq, envq = machine(t, "hopper")
r = run(["doctor", "-q", "--root", rootq], env=envq)
t.ok(r.rc == 0 and r.out.strip() == "", "doctor -q with no error: silent", r)
r = run(["doctor", "--json", "--root", "/nonexistent-root"])
t.ok(r.rc == 2 and all(l.startswith("{") for l in r.err.splitlines() if l.strip()),
     "with --json, stderr carries JSON lines only (an error too)", r)

# The driver's packages of another machine root come from its dpkg files, read through the root: the status
# file and dpkg's journal of updates not yet folded into it, as dpkg-query reads them.  No dpkg-query runs for
# it: this host's (on PATH, outside the runner and CUDAUP_SYSTEM_BIN) read another tree (issue 46 item 5).
rootd, envd = machine(t, "hopper")
os.makedirs(os.path.join(rootd, "var/lib/dpkg/updates"), exist_ok=True)
with open(os.path.join(rootd, "var/lib/dpkg/status"), "w") as f:
    f.write("Package: nvidia-driver-580\nStatus: install ok installed\nVersion: 580.95.05-0ubuntu1\n"
            "Architecture: amd64\nMaintainer: x <x@example.org>\nDescription: x\n\n"
            "Package: nvidia-utils-580\nStatus: install ok installed\nArchitecture: amd64\n\n")
with open(os.path.join(rootd, "var/lib/dpkg/updates/0001"), "w") as f:
    f.write("Package: nvidia-driver-580\nStatus: hold ok installed\nVersion: 580.95.05-0ubuntu1\n"
            "Architecture: amd64\nMaintainer: x <x@example.org>\nDescription: x\n\n")
with open(os.path.join(rootd, "var/lib/dpkg/updates/0002"), "w") as f:
    f.write("Package: nvidia-utils-580\nStatus: purge ok not-installed\nArchitecture: amd64\n\n")
fakebin = t.tmpdir("fake-dpkg-query")
marker = os.path.join(fakebin, "ran")
with open(os.path.join(fakebin, "dpkg-query"), "w") as f:
    f.write("#!/bin/sh\necho \"$@\" >> '%s'\nexit 1\n" % marker)
os.chmod(os.path.join(fakebin, "dpkg-query"), 0o755)
for path in (fakebin + ":/usr/bin:/bin", "/nonexistent"):
    r = run(["doctor", "--json", "--root", rootd], env=dict(envd, PATH=path))
    drv = (r.json() or {}).get("driver", {})
    t.ok("nvidia-driver-580" in drv.get("packages", []) and "nvidia-utils-580" not in drv.get("packages", [])
         and drv.get("pinned") is True,
         "PATH=%s: the root's dpkg files with their journal: nvidia-driver-580 held, nvidia-utils-580 purged" % path, drv)
t.ok(not os.path.exists(marker), "no dpkg-query (this host's, on PATH) ran for the machine root",
     open(marker).read() if os.path.exists(marker) else "")

t.done()
