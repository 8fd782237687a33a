#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Stand-ins for the container engines and the NVIDIA Container Toolkit (issue 48), linked under each tool's name into
the folder CUDAUP_SYSTEM_BIN names, beside tests/fakes/pkgworld's package managers.  Each acts on the fixture machine
CUDAUP_SYSTEM_ROOT (it refuses to run without one) and answers as the real tool does, from what the machine has
installed (pkgworld's record: an engine is there only where a package with its `cmd=` is installed, at that package's
version), and says no as the real tool says it.  See README.md for what is real and what is modelled."""
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.realpath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(REPO, "tests", "fakes", "pkgworld"))
import managers  # noqa: E402
import cli as pkgcli  # noqa: E402

TOOLS = ["dockerd", "docker", "containerd", "ctr", "podman", "crio", "crictl", "nvidia-ctk"]
TEMPLATE = os.path.join(REPO, "tests", "fixtures", "containers", "nvidia-ctk-cdi-generate.yaml.tmpl")
REAL_CONTAINERD = "/usr/bin/containerd"  # Debian 12's 1.6 when the tests' set-up installed it
# dockerd's daemon.json keys: its flags' long names (`dockerd --help` of Debian 12's 20.10, measured) and the keys of
# the file alone (docs.docker.com, "Daemon configuration file": runtimes, log-opts, features, ...).
DOCKER_KEYS = set("""add-host allow-nondistributable-artifacts api-cors-header authorization-plugins bip bridge
cgroup-parent containerd containerd-namespace containerd-plugins-namespace cpu-rt-period cpu-rt-runtime cri-containerd
data-root debug default-address-pools default-cgroupns-mode default-gateway default-gateway-v6 default-ipc-mode
default-runtime default-shm-size default-ulimits dns dns-opts dns-search exec-opts exec-root experimental fixed-cidr
fixed-cidr-v6 group host-gateway-ip hosts icc init init-path insecure-registries ip ip-forward ip-masq ip6tables iptables
ipv6 labels live-restore log-driver log-level log-opts max-concurrent-downloads max-concurrent-uploads
max-download-attempts metrics-addr mtu network-control-plane-mtu no-new-privileges node-generic-resources
oom-score-adjust pidfile raw-logs registry-mirrors rootless runtimes seccomp-profile selinux-enabled shutdown-timeout
storage-driver storage-opts swarm-default-advertise-addr tls tlscacert tlscert tlskey tlsverify userland-proxy
userland-proxy-path userns-remap features builder""".split())


class Exit(Exception):
    def __init__(self, code, message=None):
        super().__init__(message)
        self.code, self.message = code, message


def root_dir():
    r = os.environ.get("CUDAUP_SYSTEM_ROOT")
    if not r or r == "/" or not os.path.isdir(r):
        raise Exit(99, "standin: no machine root (CUDAUP_SYSTEM_ROOT); refusing to touch this system")
    return r


def machine():
    return managers.machine(root_dir())


def installed_version(m, cmd):
    """The version of the installed package that ships @cmd (its upstream part), or refuse as a shell would."""
    for name, vers in m.world.pkgs.items():
        for p in vers:
            if cmd in str(p.extra.get("cmd", "")).split(",") and name in m.installed and m.installed[name].version == p.version:
                return name, m.installed[name].version
    raise Exit(127, "%s: command not found" % cmd)


def upstream(v):
    v = v.split(":", 1)[-1]
    return re.split(r"[-~+]", v, 1)[0] if re.match(r"^\d", v) else v


def vtuple(v):
    return tuple(int(x) for x in re.findall(r"\d+", upstream(v))[:3])


def active(m, unit):
    return m.read("var/lib/pkgworld/active/%s.service" % unit) is not None


def running(m):
    t = m.read("var/lib/pkgworld/containers.json")
    return json.loads(t) if t else {}


def host(path):
    """A path the caller gave: on this machine (cudaup gives the stand-ins host paths of the root's files)."""
    return path


# ---- Docker --------------------------------------------------------------------------------------------

def cmd_dockerd(args):
    m = machine()
    pkg, ver = installed_version(m, "dockerd")
    if args[:1] == ["--version"]:
        print("Docker version %s, build 5d6db84" % re.split(r"-", ver.split(":", 1)[-1], 1)[0])
        return 0
    if "--validate" in args:
        if vtuple(ver) < (23,):
            # measured: Debian 12's dockerd 20.10.24
            raise Exit(125, "Status: unknown flag: --validate\nSee 'dockerd --help'., Code: 125")
        f = args[args.index("--config-file") + 1] if "--config-file" in args else "/etc/docker/daemon.json"
        try:
            doc = json.load(open(host(f)))
        except (OSError, ValueError) as e:
            raise Exit(1, "unable to configure the Docker daemon with file %s: %s" % (f, e))
        if not isinstance(doc, dict):
            raise Exit(1, "unable to configure the Docker daemon with file %s: json: cannot unmarshal array into Go value of type map[string]interface {}" % f)
        bad = sorted(k for k in doc if k not in DOCKER_KEYS)
        if bad:
            raise Exit(1, "unable to configure the Docker daemon with file %s: the following directives don't match any configuration option: %s" % (f, ", ".join(bad)))
        for name, r in (doc.get("runtimes") or {}).items():
            if not isinstance(r, dict) or not r.get("path"):
                raise Exit(1, "unable to configure the Docker daemon with file %s: runtime %s has no path" % (f, name))
        print("configuration OK")
        return 0
    raise Exit(1, "standin: dockerd %s is not modelled" % " ".join(args))


def cmd_docker(args):
    m = machine()
    installed_version(m, "docker")
    if args[:1] == ["ps"]:
        if not active(m, "docker"):
            raise Exit(1, "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?")
        for n in running(m).get("docker", []):
            print(n)
        return 0
    if args[:2] == ["image", "inspect"] or args[:1] == ["pull"]:
        raise Exit(1, "Error response from daemon: Get \"https://registry-1.docker.io/v2/\": dial tcp: lookup registry-1.docker.io: no such host")
    raise Exit(1, "standin: docker %s is not modelled" % " ".join(args))


# ---- containerd ------------------------------------------------------------------------------------------

def _toml_load(path):
    import tomllib
    try:
        with open(host(path), "rb") as f:
            return tomllib.load(f)
    except OSError as e:
        raise Exit(1, "containerd: failed to load TOML from %s: %s" % (path, e))
    except tomllib.TOMLDecodeError as e:
        raise Exit(1, "containerd: failed to load TOML: %s: %s" % (path, e))


def _known_versions(ver):
    """containerd's config versions by release: data/containers/engines.csv, the same rows cudaup reads."""
    import csv
    t = vtuple(ver)
    for r in csv.DictReader(open(os.path.join(REPO, "data", "containers", "engines.csv"))):
        if r["engine"] != "containerd" or r["fact"] != "config_versions":
            continue
        lo = tuple(int(x) for x in r["from"].split(".")) if r["from"] else ()
        hi = tuple(int(x) for x in r["to"].split(".")) if r["to"] else None
        if t >= lo and (hi is None or t < hi):
            return [int(x) for x in r["value"].split()]
    return [1, 2]


def _merge(a, b):
    for k, v in b.items():
        if isinstance(v, dict) and isinstance(a.get(k), dict):
            _merge(a[k], v)
        else:
            a[k] = v
    return a


def _emit(d, path=()):
    """A TOML text of a nested dict: scalars of a table, then its sub-tables."""
    out = []
    scal = [(k, v) for k, v in d.items() if not isinstance(v, dict)]
    subs = [(k, v) for k, v in d.items() if isinstance(v, dict)]
    q = lambda k: k if re.fullmatch(r"[A-Za-z0-9_-]+", k) else json.dumps(k)
    if path and scal:
        out.append("[%s]" % ".".join(q(p) for p in path))
    for k, v in scal:
        val = "true" if v is True else "false" if v is False else json.dumps(v) if isinstance(v, (str, list)) else str(v)
        out.append("%s = %s" % (q(k), val))
    for k, v in subs:
        out.append(_emit(v, path + (k,)))
    return "\n".join(x for x in out if x)


def cmd_containerd(args):
    m = machine()
    pkg, ver = installed_version(m, "containerd")
    if args[:1] in (["--version"], ["-v"]):
        if pkg == "containerd.io":
            print("containerd containerd.io v%s 05044ec0a9a75232cad458027ca83437aae3f4da" % upstream(ver))
        else:
            print("containerd github.com/containerd/containerd %s %s" % (ver.split("-")[0], ver))
        return 0
    if "config" in args and "dump" in args:
        cfg = args[args.index("--config") + 1] if "--config" in args else "/etc/containerd/config.toml"
        t = vtuple(ver)
        # The real engine where one of its line runs here: Debian 12's containerd 1.6 reads what a 1.x reads.
        if t < (1, 8) and os.access(REAL_CONTAINERD, os.X_OK):
            os.execv(REAL_CONTAINERD, [REAL_CONTAINERD] + args)
        # containerd 2.x, modelled from recorded facts (data/containers/engines.csv; aicr#1688's refusal, quoted).
        root = _toml_load(cfg)
        rv = root.get("version", 1 if root else 2)
        known = _known_versions(ver)
        if rv not in known:
            raise Exit(1, "containerd: unsupported config version `%s`" % rv)
        merged = json.loads(json.dumps(root))
        import glob
        mroot = root_dir().rstrip("/")
        for pat in root.get("imports", []):
            pat = pat if pat.startswith("/") else os.path.join(os.path.dirname(cfg), pat)
            if not pat.startswith(mroot + "/"):  # a path as the machine sees it: under its root here
                pat = mroot + pat
            for f in sorted(glob.glob(pat)):
                d = _toml_load(f)
                dv = d.get("version", 1 if d else rv)
                if dv not in known:
                    raise Exit(1, "containerd: unsupported config version `%s` in %s" % (dv, f))
                if t >= (2, 3) and dv > rv:
                    raise Exit(1, "containerd: drop-in config version %d higher than root config version %d" % (dv, rv))
                d.pop("version", None)
                d.pop("imports", None)
                _merge(merged, d)
        # a version 2 file is migrated on load: its CRI runtime plugin's tables move to io.containerd.cri.v1.runtime
        plugins = merged.get("plugins", {})
        if rv == 2 and "io.containerd.grpc.v1.cri" in plugins:
            cri = plugins.pop("io.containerd.grpc.v1.cri")
            plugins["io.containerd.cri.v1.runtime"] = _merge(plugins.get("io.containerd.cri.v1.runtime", {}), cri)
        merged["version"] = max(known) if max(known) <= 3 else 3
        merged.pop("imports", None)
        print("version = %d\n%s" % (merged.pop("version"), _emit(merged)))
        return 0
    raise Exit(1, "standin: containerd %s is not modelled" % " ".join(args))


def cmd_ctr(args):
    m = machine()
    installed_version(m, "ctr")
    if not active(m, "containerd"):
        raise Exit(1, "ctr: failed to dial \"/run/containerd/containerd.sock\": context deadline exceeded")
    tasks = running(m).get("containerd", {})
    if args[:2] == ["namespaces", "list"]:
        for ns in sorted(tasks):
            print(ns)
        return 0
    if args[:1] == ["--namespace"] and args[2:4] == ["tasks", "list"]:
        for t in tasks.get(args[1], []):
            print(t)
        return 0
    raise Exit(1, "standin: ctr %s is not modelled" % " ".join(args))


# ---- Podman, CRI-O --------------------------------------------------------------------------------------

def cmd_podman(args):
    m = machine()
    pkg, ver = installed_version(m, "podman")
    if args[:1] == ["--version"]:
        print("podman version %s" % upstream(ver))
        return 0
    if args[:2] == ["image", "exists"]:
        return 1
    if args[:1] == ["pull"]:
        raise Exit(125, "Error: initializing source docker://%s: pinging container registry registry-1.docker.io: Get \"https://registry-1.docker.io/v2/\": dial tcp: lookup registry-1.docker.io: no such host" % (args[-1]))
    raise Exit(125, "standin: podman %s is not modelled (tests/integration/test_ctk_podman.py runs the real one)" % " ".join(args))


def cmd_crio(args):
    m = machine()
    pkg, ver = installed_version(m, "crio")
    if args[:1] == ["--version"]:
        print("crio version %s" % upstream(ver))
        return 0
    if args[-1:] == ["config"]:
        import glob
        import tomllib
        files = []
        if "--config" in args:
            files.append(args[args.index("--config") + 1])
        if "--config-dir" in args:
            files += sorted(glob.glob(os.path.join(args[args.index("--config-dir") + 1], "*")))
        for f in files:
            try:
                tomllib.load(open(f, "rb"))
            except (OSError, tomllib.TOMLDecodeError) as e:
                raise Exit(1, "level=fatal msg=\"validating configuration: %s: %s\"" % (f, e))
        print("[crio]")
        return 0
    raise Exit(1, "standin: crio %s is not modelled" % " ".join(args))


def cmd_crictl(args):
    m = machine()
    if not active(m, "crio"):
        raise Exit(1, "validate service connection: validate CRI v1 runtime API for endpoint \"unix:///run/crio/crio.sock\": rpc error")
    for n in running(m).get("crio", []):
        print(n)
    return 0


# ---- the NVIDIA Container Toolkit -------------------------------------------------------------------------

def driver_version(root):
    try:
        t = open(os.path.join(root, "proc/driver/nvidia/version")).read()
    except OSError:
        return None
    mm = re.search(r"Kernel Module(?: for \S+)?\s+(\d+\.\d+(?:\.\d+)?)", t)
    return mm.group(1) if mm else None


def gpus(root):
    out = []
    base = os.path.join(root, "sys/bus/pci/devices")
    for d in sorted(os.listdir(base)) if os.path.isdir(base) else []:
        try:
            vendor = open(os.path.join(base, d, "vendor")).read().strip()
            cls = open(os.path.join(base, d, "class")).read().strip()
        except OSError:
            continue
        if vendor == "0x10de" and cls.startswith("0x03"):
            out.append(d)
    return out


def cmd_nvidia_ctk(args):
    m = machine()
    root = m.root
    pkg, ver = installed_version(m, "nvidia-ctk")
    if args[:1] == ["--version"]:
        print("NVIDIA Container Toolkit CLI version %s\ncommit: standin" % upstream(ver))
        return 0
    if args[:2] == ["cdi", "generate"]:
        out, mode = None, "auto"
        for a in args[2:]:
            if a.startswith("--output="):
                out = a.split("=", 1)[1]
            elif a.startswith("--mode="):
                mode = a.split("=", 1)[1]
            else:
                raise Exit(1, "Incorrect Usage: flag provided but not defined: %s" % a.split("=")[0])
        if mode == "wsl":
            if not os.path.exists(os.path.join(root, "dev/dxg")):
                raise Exit(1, "ERRO[0000] failed to generate CDI spec: failed to create discoverer: WSL mode requires /dev/dxg")
            drv = "wsl"
        else:
            drv = driver_version(root)
            if not drv:
                raise Exit(1, "ERRO[0000] failed to generate CDI spec: failed to create device CDI specs: failed to initialize NVML: ERROR_LIBRARY_NOT_FOUND")
        text = open(TEMPLATE).read()
        n = len(gpus(root)) or 1
        # The recorded output (one GPU, driver 999.88.77, example.com/device) made this machine's: its GPUs by index,
        # its driver, the vendor and class nvidia-ctk writes by default, paths under the machine root.
        text = text.replace("kind: example.com/device", "kind: nvidia.com/gpu")
        dev0 = text[text.index("    - name: \"0\"\n"):text.index("    - name: all\n")]
        text = text.replace(dev0, "".join(dev0.replace("\"0\"", "\"%d\"" % i).replace("nvidia0", "nvidia%d" % i) for i in range(n)))
        text = text.replace("999.88.77", drv if drv != "wsl" else "1.1")
        if drv == "wsl":
            text = text.replace("/dev/nvidia0", "/dev/dxg")
        text = text.replace("{{ .driverRoot }}", root.rstrip("/"))
        text = text.replace("path: /usr/bin/nvidia-cdi-hook", "path: %s/usr/bin/nvidia-cdi-hook" % root.rstrip("/"))
        if os.path.exists(os.path.join(root, "usr/bin/nvidia-smi")):
            text = text.replace("    mounts:\n", "    mounts:\n        - hostPath: %s/usr/bin/nvidia-smi\n          containerPath: /usr/bin/nvidia-smi\n"
                                "          options:\n            - ro\n            - nosuid\n            - nodev\n            - rbind\n"
                                "            - rprivate\n" % root.rstrip("/"), 1)
        # nvidia-ctk mounts the driver's files it finds: a mount of a file the machine does not have is left out.
        def keep(block):
            m_ = re.match(r"        - hostPath: (\S+)", block)
            return not m_ or os.path.exists(m_.group(1))
        head, sep, rest = text.partition("    mounts:\n")
        if sep:
            blocks = re.split(r"(?m)^(?=        - hostPath: )", rest)
            text = head + sep + "".join(b for b in blocks if keep(b))
            if "        - hostPath: " not in text.partition("    mounts:\n")[2]:
                text = head
        dest = os.path.join(root, (out or "/etc/cdi/nvidia.yaml").lstrip("/"))
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        with open(dest, "w") as f:
            f.write(text)
        sys.stderr.write("INFO[0000] Generated CDI spec with version 0.5.0\n")
        return 0
    if args[:2] == ["cdi", "list"]:
        return 0
    raise Exit(1, "standin: nvidia-ctk %s is not modelled" % " ".join(args))


def main(argv):
    name = os.path.basename(argv[0])
    args = argv[1:]
    if os.environ.get("STANDIN_LOG"):
        with open(os.environ["STANDIN_LOG"], "a") as f:
            f.write(json.dumps([name] + args) + "\n")
    line = " ".join([name] + args)
    for pat in filter(None, os.environ.get("STANDIN_FAIL", "").split(",")):
        if line.startswith(pat):
            sys.stderr.write("E: %s failed (stand-in)\n" % pat)
            return 100
    try:
        fn = {"dockerd": cmd_dockerd, "docker": cmd_docker, "containerd": cmd_containerd, "ctr": cmd_ctr,
              "podman": cmd_podman, "crio": cmd_crio, "crictl": cmd_crictl, "nvidia-ctk": cmd_nvidia_ctk}.get(name)
        if not fn:
            sys.stderr.write("standin: no stand-in for %s\n" % name)
            return 127
        return fn(args)
    except Exit as e:
        if e.message:
            sys.stderr.write(e.message + "\n")
        return e.code
    except pkgcli.Exit as e:
        if e.message:
            sys.stderr.write(e.message + "\n")
        return e.code
    finally:
        sys.stdout.flush()


def link_bin(bin_dir):
    """Link every stand-in into @bin_dir (with pkgworld's own there too)."""
    os.makedirs(bin_dir, exist_ok=True)
    for t in TOOLS:
        p = os.path.join(bin_dir, t)
        if not os.path.lexists(p):
            os.symlink(os.path.realpath(__file__), p)
    return bin_dir


if __name__ == "__main__":
    sys.exit(main(sys.argv))
