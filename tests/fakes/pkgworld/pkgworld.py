# SPDX-License-Identifier: MIT
"""pkgworld: stand-in package managers that can say no (issue 32).

A *world* is what a distribution release and its repositories carry (data/driver/worlds/*.csv: packages,
versions, relations, the repository of each, module streams, what enables a repository), each row with
its source.  A *machine* is a fixture root: what is installed (dpkg's status file, or the stand-in's rpm
and pacman databases under var/lib/pkgworld), which repositories are enabled (the machine's own sources,
.repo files and module files), the pins and locks, the kernels.  The front ends (cli.py, linked under
each tool's name) carry out a command on the machine the way the real tool would, and refuse what it
refuses: an unknown name, a package of a repository that is not enabled, a stream not enabled, an unmet
dependency, a conflict, a held lock; a removal takes its reverse dependencies along and says so.

Standard library only.  See README.md for how tests use it.
"""
import csv
import fnmatch
import json
import os
import shutil
import re

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
WORLDS = os.path.join(REPO, "data", "driver", "worlds")


# ---- version orders ---------------------------------------------------------------------------------

def _order(c):
    if c == "~":
        return -1
    if c.isalpha():
        return ord(c)
    return ord(c) + 256


def _deb_part(a, b):
    """dpkg's verrevcmp for one part (upstream or revision)."""
    i = j = 0
    while i < len(a) or j < len(b):
        first = 0
        while (i < len(a) and not a[i].isdigit()) or (j < len(b) and not b[j].isdigit()):
            ac = _order(a[i]) if i < len(a) and not a[i].isdigit() else 0
            bc = _order(b[j]) if j < len(b) and not b[j].isdigit() else 0
            if ac != bc:
                return ac - bc
            i += 1
            j += 1
        while i < len(a) and a[i] == "0":
            i += 1
        while j < len(b) and b[j] == "0":
            j += 1
        while i < len(a) and a[i].isdigit() and j < len(b) and b[j].isdigit():
            if not first:
                first = ord(a[i]) - ord(b[j])
            i += 1
            j += 1
        if i < len(a) and a[i].isdigit():
            return 1
        if j < len(b) and b[j].isdigit():
            return -1
        if first:
            return first
    return 0


def deb_cmp(x, y):
    def split(v):
        e, _, rest = v.partition(":") if ":" in v else ("0", "", v)
        up, _, rev = rest.rpartition("-") if "-" in rest else (rest, "", "0")
        return int(e or 0), up, rev
    ex, ux, rx = split(x)
    ey, uy, ry = split(y)
    if ex != ey:
        return ex - ey
    return _deb_part(ux, uy) or _deb_part(rx, ry)


def rpm_segcmp(a, b):
    """rpmvercmp."""
    if a == b:
        return 0
    sa = re.findall(r"~|\^|[0-9]+|[A-Za-z]+", a)
    sb = re.findall(r"~|\^|[0-9]+|[A-Za-z]+", b)
    for x, y in zip(sa, sb):
        if x == y:
            continue
        if x == "~" or y == "~":
            return -1 if x == "~" else 1
        if x == "^" or y == "^":
            return 1 if x == "^" else -1
        if x.isdigit() and y.isdigit():
            d = int(x) - int(y)
            if d:
                return d
            continue
        if x.isdigit() != y.isdigit():
            return 1 if x.isdigit() else -1
        return -1 if x < y else 1
    if len(sa) == len(sb):
        return 0
    longer = sa[len(sb):] if len(sa) > len(sb) else sb[len(sa):]
    sign = 1 if len(sa) > len(sb) else -1
    if longer[0] == "~":
        return -sign
    if longer[0] == "^":
        return sign if len(sa) > len(sb) and len(longer) else -sign
    return sign


def rpm_cmp(x, y):
    """epoch:version-release (a missing release matches any, as in a dependency without one)."""
    def split(v):
        e, _, rest = v.partition(":") if ":" in v else ("0", "", v)
        ver, _, rel = rest.partition("-")
        return int(e or 0), ver, rel
    ex, vx, rx = split(x)
    ey, vy, ry = split(y)
    if ex != ey:
        return ex - ey
    c = rpm_segcmp(vx, vy)
    if c or not rx or not ry:
        return c
    return rpm_segcmp(rx, ry)


class DebVersion:
    def __init__(self, v):
        self.v = v

    def __lt__(self, o):
        return deb_cmp(self.v, o.v) < 0

    def __eq__(self, o):
        return deb_cmp(self.v, o.v) == 0


# ---- relations --------------------------------------------------------------------------------------

OPS = {"=": lambda c: c == 0, "==": lambda c: c == 0, ">=": lambda c: c >= 0, "<=": lambda c: c <= 0,
       ">>": lambda c: c > 0, "<<": lambda c: c < 0, ">": lambda c: c > 0, "<": lambda c: c < 0}


class Rel:
    """One alternative of a relation: name, optional (op, version), optional condition name (rpm's `if`)."""
    __slots__ = ("name", "op", "ver", "cond")

    def __init__(self, name, op=None, ver=None, cond=None):
        self.name, self.op, self.ver, self.cond = name, op, ver, cond

    def __str__(self):
        s = self.name + (" (%s %s)" % (self.op, self.ver) if self.op else "")
        return s + (" if %s" % self.cond if self.cond else "")


REL_RE = re.compile(r"^\s*(\S+?)\s*(?:\(\s*(>=|<=|>>|<<|=|==|>|<)\s*([^)\s]+)\s*\))?\s*(?:\bif\s+(\S+))?\s*$")


def parse_rels(field):
    """'a (>= 1) | b, c if d' -> [[Rel(a), Rel(b)], [Rel(c, cond=d)]]."""
    out = []
    for part in filter(None, (p.strip() for p in (field or "").split(","))):
        alts = []
        for alt in part.split("|"):
            m = REL_RE.match(alt)
            if not m:
                raise ValueError("bad relation %r" % alt)
            alts.append(Rel(m.group(1), m.group(2), m.group(3), m.group(4)))
        out.append(alts)
    return out


class Pkg:
    __slots__ = ("name", "version", "repo", "depends", "recommends", "provides", "conflicts", "extra", "source",
                 "confidence")

    def __init__(self, row):
        self.name = row["name"]
        self.version = row["version"]
        self.repo = row["repo"]
        self.depends = parse_rels(row.get("depends"))
        self.recommends = parse_rels(row.get("recommends"))
        self.provides = [a[0] for a in parse_rels(row.get("provides"))]
        self.conflicts = [a[0] for a in parse_rels(row.get("conflicts"))]
        self.extra = parse_extra(row.get("extra"))
        self.source = row.get("source", "")
        self.confidence = row.get("confidence", "")

    def __repr__(self):
        return "%s-%s" % (self.name, self.version)


def parse_extra(s):
    d = {}
    for tok in (s or "").split():
        k, eq, v = tok.partition("=")
        d[k] = v if eq else True
    return d


# ---- worlds -----------------------------------------------------------------------------------------

class World:
    """What a release and its repositories carry (one or more CSV files of data/driver/worlds)."""

    def __init__(self, files):
        self.files = files
        self.name = None
        self.meta = {}
        self.pkgs = {}       # name -> [Pkg]
        self.repos = {}      # id -> {"url":..., **extra}
        self.streams = {}    # "module:stream" -> extra
        self.providers = {}  # virtual name -> set(real names)
        for f in files:
            with open(f, newline="", encoding="utf-8") as fh:
                for row in csv.DictReader(fh):
                    self._add(row, f)
        for name, vers in self.pkgs.items():
            for p in vers:
                for pr in p.provides:
                    self.providers.setdefault(pr.name, set()).add(name)

    def _add(self, row, f):
        k = row["kind"]
        if k == "world":
            if self.name is None:
                self.name = row["name"]
                self.meta = parse_extra(row.get("extra"))
                self.meta["date"] = row.get("version")
        elif k == "repo":
            d = parse_extra(row.get("extra"))
            d["url"] = row.get("repo") or ""
            self.repos[row["name"]] = d
        elif k == "stream":
            d = parse_extra(row.get("extra"))
            d["repo"] = row.get("repo") or ""
            self.streams[row["name"]] = d
        elif k == "pkg":
            self.pkgs.setdefault(row["name"], []).append(Pkg(row))
        else:
            raise ValueError("%s: unknown kind %r" % (f, k))

    @property
    def manager(self):
        return self.meta.get("manager")

    def cmp(self, a, b):
        return deb_cmp(a, b) if self.manager == "apt" else rpm_cmp(a, b)

    def satisfies(self, version, op, ver):
        return op is None or OPS[op](self.cmp(version, ver))

    def streams_of(self, p):
        s = p.extra.get("streams")
        return s.split(",") if isinstance(s, str) else []


def find_world(os_id, version_id):
    """The world files for an os-release ID and VERSION_ID (worlds/INDEX.csv)."""
    with open(os.path.join(WORLDS, "INDEX.csv"), newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            if os_id in row["ids"].split() and any(fnmatch.fnmatch(version_id or "", v) for v in row["versions"].split()):
                return [os.path.join(WORLDS, x) for x in row["files"].split()]
    raise LookupError("no world for %s %s" % (os_id, version_id))


# ---- machines ---------------------------------------------------------------------------------------

def read_os_release(root):
    d = {}
    try:
        for line in open(os.path.join(root, "etc/os-release"), encoding="utf-8"):
            k, eq, v = line.strip().partition("=")
            if eq:
                d[k] = v.strip().strip('"').strip("'")
    except OSError:
        pass
    return d


def running_kernel(root):
    for p, fn in (("proc/sys/kernel/osrelease", lambda t: t.strip()),
                  ("proc/version", lambda t: t.split()[2] if t.startswith("Linux version ") else "")):
        try:
            r = fn(open(os.path.join(root, p)).read())
            if r:
                return r
        except (OSError, IndexError):
            pass
    return None


class Problem(Exception):
    """The transaction cannot be done: the tool's message and exit code."""

    def __init__(self, message, code=None, kind="problem"):
        super().__init__(message)
        self.message = message
        self.code = code
        self.kind = kind


class Installed:
    __slots__ = ("name", "version", "auto", "held", "repo")

    def __init__(self, name, version, auto=False, held=False, repo=None):
        self.name, self.version, self.auto, self.held, self.repo = name, version, auto, held, repo


class Machine:
    """The installed set and the managers' settings of a fixture root, and what a transaction does to them."""

    def __init__(self, root, world=None):
        self.root = root
        self.world = world or World(self.world_files())
        self.manager = self.world.manager
        self.installed = {}
        self.synthetic = {}  # installed packages the world does not carry (an older kernel): var/lib/pkgworld/synthetic.json
        t = self.read("var/lib/pkgworld/synthetic.json")
        for row in (json.loads(t) if t else []):
            self.synthetic[(row["name"], row["version"])] = Pkg(row)
        self.load()

    # -- files of the root
    def path(self, rel):
        return os.path.join(self.root, rel.lstrip("/"))

    def read(self, rel, default=None):
        try:
            with open(self.path(rel), encoding="utf-8") as f:
                return f.read()
        except OSError:
            return default

    def write(self, rel, text):
        p = self.path(rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p + ".pkgworld-tmp", "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(p + ".pkgworld-tmp", p)

    def world_files(self):
        env = os.environ.get("PKGWORLD")
        if env:
            return [x if os.path.isabs(x) else os.path.join(WORLDS, x) for x in env.split(",")]
        t = self.read("var/lib/pkgworld/world")
        if t:
            return [x if os.path.isabs(x) else os.path.join(WORLDS, x) for x in t.split()]
        osr = read_os_release(self.root)
        return find_world(osr.get("ID"), osr.get("VERSION_ID"))

    # -- the installed set
    def load(self):
        if self.manager == "apt":
            self._load_dpkg()
        else:
            t = self.read("var/lib/pkgworld/installed.json")
            for name, d in (json.loads(t) if t else {}).items():
                self.installed[name] = Installed(name, d["version"], d.get("auto", False), False, d.get("repo"))

    def _load_dpkg(self):
        t = self.read("var/lib/dpkg/status", "")
        auto = set()
        ext = self.read("var/lib/apt/extended_states", "")
        for para in ext.split("\n\n"):
            d = dict(l.split(": ", 1) for l in para.splitlines() if ": " in l)
            if d.get("Auto-Installed") == "1":
                auto.add(d.get("Package"))
        self.dpkg_paras = {}
        for para in t.split("\n\n"):
            d = {}
            for line in para.splitlines():
                if ": " in line and not line.startswith(" "):
                    k, v = line.split(": ", 1)
                    d[k] = v
            if "Package" not in d:
                continue
            st = d.get("Status", "install ok installed")
            if not st.endswith(" installed"):
                continue
            self.dpkg_paras[d["Package"]] = d
            self.installed[d["Package"]] = Installed(d["Package"], d.get("Version", "0"), d["Package"] in auto,
                                                     st.startswith("hold "))

    def save(self):
        if self.manager == "apt":
            self._save_dpkg()
        else:
            self.write("var/lib/pkgworld/installed.json", json.dumps(
                {n: {"version": i.version, "auto": i.auto, "repo": i.repo} for n, i in sorted(self.installed.items())},
                indent=1, sort_keys=True) + "\n")
            if self.manager == "pacman":
                self._save_pacman_local()
        self._effects()

    def _save_dpkg(self):
        out, ext = [], []
        for name in sorted(self.installed):
            i = self.installed[name]
            p = self.pkg(name, i.version)
            old = self.dpkg_paras.get(name, {})
            d = {"Package": name, "Status": ("hold" if i.held else "install") + " ok installed",
                 "Priority": old.get("Priority", "optional"), "Architecture": old.get("Architecture", "amd64"),
                 "Maintainer": old.get("Maintainer", "pkgworld stand-in <pkgworld@invalid>"), "Version": i.version}
            if p:
                for key, rels in (("Depends", p.depends), ("Recommends", p.recommends), ("Provides", [[x] for x in p.provides]),
                                  ("Conflicts", [[x] for x in p.conflicts])):
                    if rels:
                        d[key] = ", ".join(" | ".join(str(a) for a in alts) for alts in rels)
            else:
                for key in ("Depends", "Pre-Depends", "Recommends", "Provides", "Conflicts", "Breaks"):
                    if key in old:
                        d[key] = old[key]
            d["Description"] = old.get("Description", "%s (pkgworld stand-in)" % name)
            out.append("".join("%s: %s\n" % kv for kv in d.items()))
            if i.auto:
                ext.append("Package: %s\nArchitecture: amd64\nAuto-Installed: 1\n" % name)
        self.write("var/lib/dpkg/status", "\n".join(out))
        self.write("var/lib/apt/extended_states", "\n".join(ext))

    def _save_pacman_local(self):
        base = self.path("var/lib/pacman/local")
        os.makedirs(base, exist_ok=True)
        want = {"%s-%s" % (n, i.version): (n, i.version) for n, i in self.installed.items()}
        for d in os.listdir(base):
            if d not in want and os.path.isdir(os.path.join(base, d)):
                for f in os.listdir(os.path.join(base, d)):
                    os.unlink(os.path.join(base, d, f))
                os.rmdir(os.path.join(base, d))
        for d, (n, v) in want.items():
            self.write("var/lib/pacman/local/%s/desc" % d, "%%NAME%%\n%s\n\n%%VERSION%%\n%s\n\n" % (n, v))

    # -- world lookups
    def pkg(self, name, version):
        for p in self.world.pkgs.get(name, []):
            if p.version == version:
                return p
        return self.synthetic.get((name, version))

    def installed_pkg(self, name):
        i = self.installed.get(name)
        return self.pkg(name, i.version) if i else None

    def provides_of(self, name):
        """What installed package @name provides (its world entry, or dpkg's status paragraph)."""
        p = self.installed_pkg(name)
        if p:
            return p.provides
        para = getattr(self, "dpkg_paras", {}).get(name, {})
        return [a[0] for a in parse_rels(para.get("Provides"))]

    def depends_of(self, name):
        p = self.installed_pkg(name)
        if p:
            return p.depends
        para = getattr(self, "dpkg_paras", {}).get(name, {})
        return parse_rels(", ".join(x for x in (para.get("Pre-Depends"), para.get("Depends")) if x))

    # -- what the managers' settings allow (overridden per manager)
    def enabled_repos(self):
        raise NotImplementedError

    def allowed(self, p):
        """None when @p may be installed, else why not ('repo', 'module', 'lock')."""
        if p.repo not in self.enabled_repos():
            return "repo"
        return None

    def candidates(self, name, op=None, ver=None):
        """The versions of @name that may be installed, best first."""
        out = [p for p in self.world.pkgs.get(name, []) if self.allowed(p) is None and self.world.satisfies(p.version, op, ver)]
        return self.order(out)

    def order(self, pkgs):
        import functools
        return sorted(pkgs, key=functools.cmp_to_key(lambda a, b: self.world.cmp(b.version, a.version)))

    # -- the effects of the installed set on the root (kernels, modules, repositories, services)
    def kernels(self):
        out = []
        for n in self.installed:
            p = self.installed_pkg(n)
            if p and isinstance(p.extra.get("kernel"), str):
                out.append(p.extra["kernel"])
        for k in os.listdir(self.path("lib/modules")) if os.path.isdir(self.path("lib/modules")) else []:
            if k not in out and os.path.isdir(self.path("lib/modules/" + k)):
                out.append(k)
        return out

    def headers(self):
        out = set()
        for n in self.installed:
            p = self.installed_pkg(n)
            if p and isinstance(p.extra.get("headers"), str):
                out.add(p.extra["headers"])
        return out

    def module_sources(self):
        """(package, 'dkms' or a kernel release, signed) for each installed package that carries an nvidia module."""
        out = []
        for n in sorted(self.installed):
            p = self.installed_pkg(n)
            if p and p.extra.get("module"):
                out.append((n, p.extra["module"], bool(p.extra.get("signed"))))
        return out

    def _effects(self):
        # Kernels: each installed kernel package has its modules folder (Arch's names its package in pkgbase).
        for n in self.installed:
            p = self.installed_pkg(n)
            if p and isinstance(p.extra.get("kernel"), str):
                os.makedirs(self.path("lib/modules/%s/kernel" % p.extra["kernel"]), exist_ok=True)
                if isinstance(p.extra.get("pkgbase"), str):
                    self.write("lib/modules/%s/pkgbase" % p.extra["kernel"], p.extra["pkgbase"] + "\n")
        # A headers package makes its kernel's build folder (Debian's linux-headers-K: /lib/modules/K/build),
        # which DKMS looks for; its removal takes it away (the fixture's own build folders stay).
        hdr = self.headers()
        for k in hdr:
            b = self.path("lib/modules/%s/build" % k)
            if not os.path.isdir(b):
                os.makedirs(b)
                self.write("lib/modules/%s/build/.pkgworld" % k, "")
        for k in os.listdir(self.path("lib/modules")) if os.path.isdir(self.path("lib/modules")) else []:
            if k not in hdr and os.path.exists(self.path("lib/modules/%s/build/.pkgworld" % k)):
                shutil.rmtree(self.path("lib/modules/%s/build" % k))
                if os.listdir(self.path("lib/modules/%s" % k)) == []:
                    os.rmdir(self.path("lib/modules/%s" % k))
        # nvidia modules: prebuilt ones for their kernel, DKMS ones for every kernel whose headers are here.
        want = {}
        for name, where, signed in self.module_sources():
            if where == "dkms":
                for k in self.kernels():
                    if k in hdr:
                        want[k] = True
                # DKMS signs what it builds, with a key it makes at the first build when there is none: Ubuntu's
                # update-secureboot-policy MOK, elsewhere /var/lib/dkms/mok.key (dkms 3.0.10's script, measured).
                pair = (("var/lib/shim-signed/mok/MOK.priv", "var/lib/shim-signed/mok/MOK.der")
                        if self.world.meta.get("distro") == "ubuntu" else ("var/lib/dkms/mok.key", "var/lib/dkms/mok.pub"))
                for f in pair:
                    if self.read(f) is None:
                        self.write(f, "pkgworld DKMS signing key\n")
            elif where.startswith("flavor:"):  # a KMP: weak-updates carry it to every kernel of its flavor
                for k in self.kernels():
                    if k.endswith("-" + where.split(":", 1)[1]):
                        want[k] = True
            else:
                want[where] = True
        for k in self.kernels():
            d = self.path("lib/modules/%s/updates/pkgworld" % k)
            f = os.path.join(d, "nvidia.ko")
            if k in want:
                os.makedirs(d, exist_ok=True)
                with open(f, "wb") as fh:
                    fh.write(b"\x7fELF pkgworld nvidia module\n~Module signature appended~\n")
            elif os.path.exists(f):
                os.unlink(f)
        # Packages that enable a repository (epel-release, cuda-keyring) and ship a service unit.
        for n in self.installed:
            p = self.installed_pkg(n)
            if p and isinstance(p.extra.get("enables"), str):
                self.enable_repo(p.extra["enables"], by_package=n)
        # Programs a package puts in place (bin=/usr/bin/nvidia-ctk): a stub each, gone with the package.
        want_bins = {}
        for n in self.installed:
            p = self.installed_pkg(n)
            if p and isinstance(p.extra.get("bin"), str):
                for b in p.extra["bin"].split(","):
                    want_bins[b] = n
        had = json.loads(self.read("var/lib/pkgworld/bins.json", "{}") or "{}")
        for b in had:
            if b not in want_bins and os.path.exists(self.path(b)):
                os.unlink(self.path(b))
        for b, n in want_bins.items():
            if not os.path.exists(self.path(b)):
                self.write(b, "#!/bin/sh\n# %s (pkgworld stand-in)\nexit 0\n" % n)
                os.chmod(self.path(b), 0o755)
        self.write("var/lib/pkgworld/bins.json", json.dumps(want_bins, sort_keys=True) + "\n")
        # "UNIT [MODULE]": the kernel module the unit needs loaded to stay up (service_needs=, FM-START).
        units = set()
        for n in self.installed:
            p = self.installed_pkg(n)
            if p and isinstance(p.extra.get("service"), str):
                needs = p.extra.get("service_needs")
                for u in p.extra["service"].split(","):  # "a.path,a.service": several units of one package
                    units.add(u + (" " + needs if isinstance(needs, str) else ""))
        self.write("var/lib/pkgworld/units", "".join(u + "\n" for u in sorted(units)))

    def enable_repo(self, repo, by_package=None):
        raise NotImplementedError


# ---- transactions -----------------------------------------------------------------------------------

class Transaction:
    """Install @requests on @m: the packages to add (name -> Pkg) and to remove, or a Problem."""

    def __init__(self, m, backtrack_versions):
        self.m = m
        self.w = m.world
        self.add = {}        # name -> Pkg
        self.remove = set()
        self.why = {}        # name -> the package whose dependency brought it
        self.backtrack = backtrack_versions
        self.problems = []

    # state queries
    def version_of(self, name):
        if name in self.add:
            return self.add[name].version
        if name in self.m.installed and name not in self.remove:
            return self.m.installed[name].version
        return None

    def provided(self, rel):
        """Does the planned system satisfy @rel (a real package or a provide)?"""
        v = self.version_of(rel.name)
        if v is not None and self.w.satisfies(v, rel.op, rel.ver):
            return True
        for name in list(self.add) + [n for n in self.m.installed if n not in self.remove and n not in self.add]:
            provs = self.add[name].provides if name in self.add else self.m.provides_of(name)
            for pr in provs:
                if pr.name == rel.name and (rel.op is None or (pr.op in ("=", "==") and self.w.satisfies(pr.ver, rel.op, rel.ver))):
                    return True
        return False

    def cond_holds(self, rel):
        return rel.cond is None or self.provided(Rel(rel.cond))

    # choosing
    def snapshot(self):
        return dict(self.add), set(self.remove), dict(self.why)

    def restore(self, s):
        self.add, self.remove, self.why = dict(s[0]), set(s[1]), dict(s[2])

    def choices(self, rel):
        """Packages that would satisfy @rel, best first: the name itself, then its providers."""
        out = list(self.m.candidates(rel.name, rel.op, rel.ver))
        if not self.backtrack:
            out = out[:1] if out and self.m.candidates(rel.name)[:1] == out[:1] else []
        # A provider that a package of the transaction asks for by name comes first (as libsolv prefers what is
        # required explicitly): nvidia-open names kmod-nvidia-open-dkms, so nvidia-kmod takes that one.
        named = {a.name for q in self.add.values() for alts in q.depends for a in alts}
        for prov in sorted(self.w.providers.get(rel.name, ()), key=lambda x: (x not in named, x)):
            if prov == rel.name:
                continue
            for p in self.m.candidates(prov)[: None if self.backtrack else 1]:
                for pr in p.provides:
                    if pr.name == rel.name and (rel.op is None or (pr.op in ("=", "==") and self.w.satisfies(pr.ver, rel.op, rel.ver))):
                        out.append(p)
                        break
        return out

    def select(self, p, why, depth=0):
        """Add @p and what it needs; False (and a problem noted) when that cannot be."""
        cur = self.version_of(p.name)
        if cur == p.version:
            return True
        if p.name in self.add:
            self.problems.append("%s : conflicts with %s %s to be installed" % (p, p.name, self.add[p.name].version))
            return False
        if depth > 60:
            self.problems.append("%s : dependency chain too deep" % p)
            return False
        self.add[p.name] = p
        self.why[p.name] = why
        if not self.conflict_free(p):
            return False
        for alts in p.depends:
            if not self.need(p, alts, depth):
                return False
        return True

    def need(self, p, alts, depth):
        live = [a for a in alts if self.cond_holds(a)]
        if not live or any(self.provided(a) for a in live):
            return True
        deeper = []
        for a in live:
            for c in self.choices(a):
                s = self.snapshot()
                n = len(self.problems)
                if self.select(c, p.name, depth + 1):
                    return True
                self.restore(s)
                deeper += self.problems[n:]
                del self.problems[n:]
        self.problems.append(deeper[-1] if deeper else self.unmet_text(p, live))
        return False

    def unmet_text(self, p, alts):
        rel = alts[0]
        known = self.w.pkgs.get(rel.name) or self.w.providers.get(rel.name)
        if not known:
            how = "it is not in any repository of this world" if self.m.manager != "apt" else "it is not installable"
        elif not self.m.candidates(rel.name) and not any(self.m.candidates(x) for x in self.w.providers.get(rel.name, ())):
            why = set()
            for x in (self.w.pkgs.get(rel.name, []) + [q for n in self.w.providers.get(rel.name, ()) for q in self.w.pkgs[n]]):
                why.add(self.m.allowed(x) or "version")
            how = "it is not installable" + (" (its repository is not enabled)" if why == {"repo"} else
                                             " (filtered out by the enabled module streams)" if "module" in why else
                                             " (excluded by a version lock)" if "lock" in why else "")
        else:
            v = self.version_of(rel.name)
            how = ("%s is to be installed" % v) if v else "it is not going to be installed"
        return "%s : Depends: %s but %s" % (p, " | ".join(str(a) for a in alts), how)

    def conflict_free(self, p):
        """Conflicts of @p with the planned system: installed ones are removed where the manager does so."""
        others = [(n, self.add[n].version, self.add[n].provides, self.add[n].conflicts) for n in self.add if n != p.name]
        others += [(n, i.version, self.m.provides_of(n), (self.m.installed_pkg(n).conflicts if self.m.installed_pkg(n) else []))
                   for n, i in self.m.installed.items() if n not in self.remove and n not in self.add and n != p.name]
        for n, v, provs, confl in others:
            hit = None
            for c in p.conflicts:
                if (c.name == n and self.w.satisfies(v, c.op, c.ver)) or (c.op is None and any(pr.name == c.name for pr in provs)):
                    if c.name not in [q.name for q in p.provides] or c.name == n:
                        hit = c
            for c in confl:
                if (c.name == p.name and self.w.satisfies(p.version, c.op, c.ver)) or (c.op is None and any(pr.name == c.name for pr in p.provides)):
                    if c.name not in [q.name for q in provs] or c.name == p.name:
                        hit = c
            if hit is None:
                continue
            if n in self.add:
                self.problems.append("%s : Conflicts: %s but %s %s is to be installed" % (p, hit, n, v))
                return False
            self.remove.add(n)
        return True


def install_plan(m, names, backtrack, recommends=True):
    """Resolve an install of @names ([(name, op, ver)] or Pkg objects); (Transaction) or raise Problem."""
    t = Transaction(m, backtrack)
    chosen = []
    for req in names:
        if isinstance(req, Pkg):
            chosen.append(req)
            continue
        name, op, ver = req
        # apt's `NAME=VERSION` makes that version the candidate (NVIDIA's guide installs the toolkit so): any allowed
        # version, not only the best one its dependencies would take.
        c = m.candidates(name, op, ver) if op in ("=", "==") and not backtrack else t.choices(Rel(name, op, ver))
        if not c:
            raise Problem(not_found(m, name, op, ver), kind="notfound")
        chosen.append(c[0])
    for p in chosen:  # every request first, so that one may satisfy another's dependency
        if t.version_of(p.name) != p.version:
            t.add[p.name] = p
            t.why[p.name] = None
    for p in chosen:
        if not t.conflict_free(p):
            raise Problem("\n".join(t.problems), kind="conflict")
        for alts in p.depends:
            if not t.need(p, alts, 0):
                raise Problem(t.problems[-1], kind="unmet")
    if recommends:
        for name in list(t.add):
            for alts in t.add[name].recommends:
                s = t.snapshot()
                n = len(t.problems)
                if not t.need(t.add[name], alts, 1):
                    t.restore(s)
                    del t.problems[n:]
    # What goes because of a conflict takes what needs it along.
    if t.remove:
        t.remove = removal_closure(m, t.remove, keep=set(t.add), planned=t)
    return t


def not_found(m, name, op, ver):
    known = m.world.pkgs.get(name)
    if known and not m.candidates(name):
        reasons = {m.allowed(p) for p in known}
        return {"repo": "repo", "module": "module", "lock": "lock"}.get(
            next(iter(reasons)) if len(reasons) == 1 else ("module" if "module" in reasons else "repo"), "version")
    if known and op:
        return "version"
    return "unknown"


def removal_closure(m, targets, keep=(), planned=None):
    """@targets and every installed package that no longer has what it depends on once they are gone."""
    gone = set(targets)
    changed = True
    while changed:
        changed = False
        for n in m.installed:
            if n in gone or n in keep:
                continue
            for alts in m.depends_of(n):
                live = [a for a in alts if a.cond is None or _has(m, Rel(a.cond), gone, planned)]
                if live and not any(_has(m, a, gone, planned) for a in live):
                    gone.add(n)
                    changed = True
                    break
    return gone


def _has(m, rel, gone, planned=None):
    cands = [(n, i.version) for n, i in m.installed.items() if n not in gone]
    if planned:
        cands += [(n, p.version) for n, p in planned.add.items()]
    for n, v in cands:
        if n == rel.name and m.world.satisfies(v, rel.op, rel.ver):
            return True
        provs = planned.add[n].provides if planned and n in planned.add else m.provides_of(n)
        for pr in provs:
            if pr.name == rel.name and (rel.op is None or (pr.op in ("=", "==") and m.world.satisfies(pr.ver, rel.op, rel.ver))):
                return True
    return False


def unneeded(m, gone):
    """Packages installed as dependencies that nothing left needs (dnf's clean_requirements_on_remove, apt autoremove)."""
    out = set()
    changed = True
    while changed:
        changed = False
        for n, i in m.installed.items():
            if n in gone or n in out or not i.auto:
                continue
            needed = False
            for o in m.installed:
                if o in gone or o in out or o == n:
                    continue
                for alts in m.depends_of(o):
                    if any(a.name == n or any(pr.name == a.name for pr in m.provides_of(n)) for a in alts):
                        needed = True
                        break
                if needed:
                    break
            if not needed:
                out.add(n)
                changed = True
    return out


def apply(m, t):
    """Carry out a resolved transaction on the machine."""
    for n in t.remove:
        m.installed.pop(n, None)
    for n, p in t.add.items():
        old = m.installed.get(n)
        m.installed[n] = Installed(n, p.version, auto=(old.auto if old else t.why.get(n) is not None),
                                   held=old.held if old else False, repo=p.repo)
    m.save()
