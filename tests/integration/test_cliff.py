#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""doctor at the cliff of a GPU generation (issue 45 items 1 and 3): a framework, cuDNN or driver installed here that
has no code or support for a GPU here is named, with the last release that has (core/catalog/cliff.c); the driver's
pin is checked against the GPUs' last branch; the plan's GPU lines say where the field left a GPU.  Each expectation
names the data row it comes from; the environments are planted (files only, no pip)."""
import json
import os
import sys

from cutest import SRCDIR, Tap, run

sys.path.insert(0, os.path.join(SRCDIR, "tests", "fixtures"))
import machines  # noqa: E402

t = Tap()
MIRROR = "file://" + os.path.join(SRCDIR, "tests", "fixtures", "nvidia")
GTX1080 = ("1b80", "6.1", "NVIDIA GeForce GTX 1080")
GTX970 = ("13c2", "5.2", "NVIDIA GeForce GTX 970")
RTX4090 = ("2684", "8.9", "NVIDIA GeForce RTX 4090")
RTX5090 = ("2b85", "12.0", "NVIDIA GeForce RTX 5090")
with open(os.path.join(SRCDIR, "data", "catalog.json")) as f:
    CAT = json.load(f)
# driver_generations.csv: Maxwell/Pascal/Volta (5.0-7.2) are driven up to branch 580.
LAST = next(g for g in CAT["driver"]["generations"] if g["cc_min"] == "5.0")["branch_last"]


def put(root, path, text=""):
    full = os.path.join(root, path.lstrip("/"))
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w") as f:
        f.write(text)


def machine(tag, gpus, driver, os_="ubuntu2404", **extra):
    root = os.path.join(t.tmpdir(tag), "root")
    spec = {"os": os_, "driver": driver, "cuda": 13000, "libs": True,
            "gpus": [("0000:%02x:00.0" % (i + 1), dev, "0x030000", "nvidia", cc, 8192, name)
                     for i, (dev, cc, name) in enumerate(gpus)]}
    spec.update(extra)
    machines.build_spec(spec, root)
    return root


def doctor(root, env=None):
    e = {"FAKE_NVIDIA_CONFIG": os.path.join(root, "fake-nvidia.conf"), "HOME": "/home/u"}
    e.update(env or {})
    r = run(["doctor", "--json", "--root", root, "--state-dir", t.tmpdir("st")], env=e)
    return r, r.json() or {}


def problems(d, code, where=""):
    return [p for p in d.get("problems", []) if p["code"] == code and where in p["message"]]


def torch_env(root, env, version, cuda, cudnn=None):
    sp = env + "/lib/python3.12/site-packages"
    put(root, sp + "/torch/version.py", "__version__ = '%s'\ncuda = '%s'\n" % (version, cuda))
    if cudnn:
        major, v = cudnn
        put(root, sp + "/nvidia_cudnn_cu%d-%s.dist-info/METADATA" % (major, v),
            "Metadata-Version: 2.1\nName: nvidia-cudnn-cu%d\nVersion: %s\n" % (major, v))


# ---- a planted environment: PyPI's torch 2.15.0 (cu132) on a GTX 1080 -----------------------------------------------
root = machine("1080", [GTX1080], "580.95.05")
torch_env(root, "/home/u/t215", "2.15.0", "13.2", (13, "9.26.0.51"))       # framework_wheel_requires.csv torch 2.15.0
torch_env(root, "/home/u/t214", "2.14.1+cu126", "12.6", (12, "9.10.2.21"))  # pytorch_releases.csv 2.14 cu126
torch_env(root, "/home/u/tcudnn", "2.14.1+cu126", "12.6", (12, "9.17.0.29"))
put(root, "/home/u/tcudnn/cudaup-constraints.txt", "torch==2.14.1+cu126\n")
r, d = doctor(root, {"VIRTUAL_ENV": "/home/u/t215"})
p = problems(d, "framework-no-gpu-code", "/home/u/t215")
t.ok(p and "compute capability 6.1" in p[0]["message"] and
     "The last release with code for it is PyTorch 2.14 (cu126, 2.14.1)." in p[0]["message"] and
     p[0]["fix"] == "cudaup install --framework pytorch==2.14",
     "torch 2.15 on a GTX 1080: no code for 6.1, and the last release with code, 2.14 (cu126), named "
     "[pytorch_gpu_code.csv 2.15.x cu132, 2.14.x cu126]", d.get("problems"))
t.eq(problems(d, "cudnn-drops-gpu", "/home/u/t215"), [],
     "its cuDNN 9.26 is not a problem of its own there: the framework's says what to do")
env = next((e for e in d.get("framework_envs", []) if e["path"] == "/home/u/t215"), {})
t.ok(env.get("cudnn_wheel") == "9.26.0.51" and env.get("held") is False, "framework_envs: cudnn_wheel and held", env)
r, d = doctor(root, {"VIRTUAL_ENV": "/home/u/t214"})
t.ok(r.rc == 0 and not problems(d, "framework-no-gpu-code") and not problems(d, "cudnn-drops-gpu"),
     "torch 2.14.1+cu126 with its cuDNN 9.10.2.21 on the GTX 1080: no problem", d.get("problems"))
r, d = doctor(root, {"VIRTUAL_ENV": "/home/u/tcudnn"})
p = problems(d, "cudnn-drops-gpu", "/home/u/tcudnn")
t.ok(p and "cuDNN 9.17.0.29" in p[0]["message"] and "support matrix of cuDNN 9.17.0 does not list it" in p[0]["message"]
     and "The last cuDNN that supports it is 9.10.2 for CUDA 12." in p[0]["message"],
     "a newer cuDNN wheel pip brought beside it (9.17): named, with the last that supports 6.1 [cudnn_support_matrix.csv]",
     d.get("problems"))
t.ok(p and p[0]["fix"].startswith("Run `cudaup repair`") and p[0]["fix"].endswith("cudaup install --framework pytorch==2.14"),
     "an environment cudaup holds: the fix is repair, which puts the held release back", p)

# ---- a CUDA install's cuDNN -----------------------------------------------------------------------------------------
root = machine("1080-cuda", [GTX1080], "580.95.05", cuda_installs=[("/usr/local/cuda-12.9", "12.9.1", "9.17.0")],
               cuda_link="/usr/local/cuda-12.9")
r, d = doctor(root)
p = problems(d, "cudnn-drops-gpu", "/usr/local/cuda-12.9")
t.ok(p and "The last cuDNN that supports it is 9.10.2 for CUDA 12." in p[0]["message"] and
     p[0]["fix"] == "Run `cudaup install --cuda 12.9 --cudnn 9.10.2`.",
     "CUDA 12.9 with cuDNN 9.17 on a GTX 1080: named, the fix is the cliff's CUDA and cuDNN", d.get("problems"))
root = machine("4090-cuda", [RTX4090], "580.95.05", cuda_installs=[("/usr/local/cuda-12.9", "12.9.1", "9.17.0")],
               cuda_link="/usr/local/cuda-12.9")
r, d = doctor(root)
t.eq(problems(d, "cudnn-drops-gpu"), [], "the same install on an RTX 4090: cuDNN 9.17 lists 8.9, no problem")

# ---- the driver: a branch past the GPU's last, and a pin that holds one ---------------------------------------------
root = machine("1080-595", [GTX1080], "595.71.05")
r, d = doctor(root)
p = problems(d, "driver-drops-gpu")
t.ok(r.rc == 3 and p and p[0]["severity"] == "error" and "595.71.05 does not drive GPU 0" in p[0]["message"] and
     "branch %d is the last that drives it" % LAST in p[0]["message"] and "cudaup install --driver %d" % LAST in p[0]["fix"],
     "driver 595 on a GTX 1080: an error naming branch %d, the last [driver_generations.csv]; doctor exits 3" % LAST, r)
pr = run(["plan", "--json", "--root", root, "--mirror", MIRROR, "--cache-dir", t.tmpdir("c"), "--framework", "none",
          "--driver", str(LAST)], env={"FAKE_NVIDIA_CONFIG": os.path.join(root, "fake-nvidia.conf")})
drv = (pr.json() or {}).get("driver") or {}
t.ok(pr.rc == 0 and drv.get("action") == "install" and drv.get("branch") == str(LAST),
     "its fix plans driver %d here" % LAST, drv)
root = machine("4090-595", [RTX4090], "595.71.05")
r, d = doctor(root)
t.eq(problems(d, "driver-drops-gpu"), [], "driver 595 on an RTX 4090 drives it: no problem")

root = machine("1080-pin595", [GTX1080], "580.95.05")
put(root, "/etc/apt/preferences.d/nvidia", "Package: *nvidia*\nPin: version 595.*\nPin-Priority: 1001\n")
r, d = doctor(root)
p = problems(d, "driver-pin-drops-gpu")
t.ok(p and "(/etc/apt/preferences.d/nvidia) holds branch 595" in p[0]["message"] and
     "Pin: version %d.*" % LAST in p[0]["fix"] and not problems(d, "driver-unpinned"),
     "an apt pin of 595 on a GTX 1080 driven by 580: the pin is named, and the fix holds %d" % LAST, d.get("problems"))
t.eq((d.get("driver") or {}).get("pin_branch"), 595, "doctor's driver.pin_branch")
put(root, "/etc/apt/preferences.d/nvidia", "Package: *nvidia*\nPin: version %d.*\nPin-Priority: 1001\n" % LAST)
r, d = doctor(root)
t.ok(not problems(d, "driver-pin-drops-gpu") and not problems(d, "driver-unpinned") and
     (d.get("driver") or {}).get("pin_branch") == LAST, "pinned to %d: no problem" % LAST, d.get("problems"))
root = machine("1080-lock", [GTX1080], "580.95.05", os_="fedora")
put(root, "/etc/dnf/plugins/versionlock.list", "# Added lock on Sat Dec  6 2026\nakmod-nvidia-3:595.71.05-1.fc43.*\n")
r, d = doctor(root)
t.ok(problems(d, "driver-pin-drops-gpu", "versionlock.list) holds branch 595"),
     "a dnf versionlock of 595 (epoch 3): named", d.get("problems"))
root = machine("1080-hold", [GTX1080], "580.95.05")
put(root, "/var/lib/dpkg/status", "Package: nvidia-driver-595\nStatus: hold ok installed\nVersion: 595.71.05-0ubuntu1\n"
    "Architecture: amd64\n\n")
r, d = doctor(root)
t.ok(problems(d, "driver-pin-drops-gpu", "(apt-mark hold) holds branch 595"),
     "an apt-mark hold of nvidia-driver-595: named", d.get("problems"))

# ---- the plan's GPU lines ----------------------------------------------------------------------------------------
def plan_reasons(gpus):
    root = machine("plan-%d" % len(gpus), gpus, "580.95.05")
    r = run(["plan", "--json", "--root", root, "--mirror", MIRROR, "--cache-dir", t.tmpdir("c"), "--framework", "none",
             "--prefix", "/opt/cu"], env={"FAKE_NVIDIA_CONFIG": os.path.join(root, "fake-nvidia.conf")})
    return r, (r.json() or {}).get("reasons", [])


r, rs = plan_reasons([GTX970, RTX5090])
cl = [x for x in rs if "is past the cliff of its generation" in x]
t.ok(r.rc == 0 and len(cl) == 1 and cl[0].startswith("GPU 0 (GeForce GTX 970)") and "driver branch %d" % LAST in cl[0]
     and "TensorFlow 2.16.2" in cl[0] and "PyTorch 2.14 (cu126" in cl[0],
     "GTX 970 + RTX 5090: the 970's cliff is said (branch %d, TensorFlow 2.16.2 [tensorflow_gpu_code.csv 2.16], "
     "PyTorch 2.14 cu126), the 5090 has none" % LAST, rs)
r, rs = plan_reasons([RTX4090])
t.ok(r.rc == 0 and not [x for x in rs if "cliff" in x], "an RTX 4090: no cliff", rs)
t.done()
