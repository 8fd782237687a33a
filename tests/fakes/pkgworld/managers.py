# SPDX-License-Identifier: MIT
"""The machine's side of each package manager: which repositories are enabled, what pins, locks and
module streams allow, and what enabling a repository writes (pkgworld.py has the shared model)."""
import configparser
import fnmatch
import functools
import json
import os
import re

from pkgworld import Machine, Rel, parse_rels


def _ini(text):
    cp = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        cp.read_string(text or "")
    except configparser.Error:
        pass
    return cp


# ---- apt ---------------------------------------------------------------------------------------------

def apt_sources(m):
    """[(uri, suite, [components])] of the machine's one-line and deb822 sources."""
    out = []
    files = ["etc/apt/sources.list"]
    d = m.path("etc/apt/sources.list.d")
    if os.path.isdir(d):
        files += ["etc/apt/sources.list.d/" + f for f in sorted(os.listdir(d))]
    for rel in files:
        text = m.read(rel, "")
        if rel.endswith(".sources"):
            for stanza in re.split(r"\n\s*\n", text):
                f = {}
                for line in stanza.splitlines():
                    if ":" in line and not line.lstrip().startswith("#"):
                        k, v = line.split(":", 1)
                        f[k.strip().lower()] = v.split()
                if "deb" not in f.get("types", []) or f.get("enabled", ["yes"])[0] == "no":
                    continue
                for uri in f.get("uris", []):
                    for suite in f.get("suites", []):
                        out.append((uri.rstrip("/"), suite, f.get("components", [])))
        elif rel.endswith(".list") or rel == "etc/apt/sources.list":
            for line in text.splitlines():
                line = re.sub(r"\[[^\]]*\]", "", line.split("#", 1)[0]).split()
                if len(line) >= 3 and line[0] == "deb":
                    out.append((line[1].rstrip("/"), line[2], line[3:]))
    return out


def apt_repos_from_sources(m):
    en = set()
    for uri, suite, comps in apt_sources(m):
        for rid, r in m.world.repos.items():
            if r.get("flat"):
                if suite == "/" and uri == r["url"].rstrip("/"):
                    en.add(rid)
            elif r.get("suite") == suite and r.get("component") in comps:
                en.add(rid)
    return en


def apt_preferences(m):
    """[(package globs, version glob, priority)] of etc/apt/preferences(.d)."""
    out = []
    files = ["etc/apt/preferences"]
    d = m.path("etc/apt/preferences.d")
    if os.path.isdir(d):
        files += ["etc/apt/preferences.d/" + f for f in sorted(os.listdir(d))]
    for rel in files:
        for stanza in re.split(r"\n\s*\n", m.read(rel, "")):
            f = {}
            for line in stanza.splitlines():
                if ":" in line and not line.lstrip().startswith("#"):
                    k, v = line.split(":", 1)
                    f[k.strip().lower()] = v.strip()
            pin = f.get("pin", "")
            if "package" in f and pin.startswith("version ") and "pin-priority" in f:
                out.append((f["package"].split(), pin.split(None, 1)[1], int(f["pin-priority"])))
    return out


class AptMachine(Machine):
    def enabled_repos(self):
        t = self.read("var/lib/pkgworld/apt-lists")
        return set(json.loads(t)) if t is not None else apt_repos_from_sources(self)

    def update(self):
        """apt-get update: the lists follow the sources now."""
        self.write("var/lib/pkgworld/apt-lists", json.dumps(sorted(apt_repos_from_sources(self))) + "\n")

    def priority(self, p):
        prio = 500
        r = self.world.repos.get(p.repo, {})
        if r.get("priority") and self.read(r.get("priority_file", "")) is not None:
            prio = int(r["priority"])
        for globs, vglob, pr in apt_preferences(self):
            if any(fnmatch.fnmatchcase(p.name, g) for g in globs) and fnmatch.fnmatchcase(p.version, vglob):
                prio = pr
        for n in self.installed:  # NVIDIA's pinning packages hold their repository's packages to a branch
            q = self.installed_pkg(n)
            if q and isinstance(q.extra.get("pin_branch"), str) and p.repo == q.repo and re.match(r"^\d+\.", p.version):
                prio = 1000 if p.version.startswith(q.extra["pin_branch"] + ".") else min(prio, 100)
        return prio

    def allowed(self, p):
        if p.repo not in self.enabled_repos():
            return "repo"
        return "lock" if self.priority(p) < 0 else None

    def order(self, pkgs):
        def key(a, b):
            pa, pb = self.priority(a), self.priority(b)
            return pb - pa if pa != pb else self.world.cmp(b.version, a.version)
        return sorted(pkgs, key=functools.cmp_to_key(key))

    def enable_repo(self, repo, by_package=None):
        r = self.world.repos.get(repo)
        p = self.installed_pkg(by_package) if by_package else None
        if not r or not p or not isinstance(p.extra.get("sources"), str):
            return
        if self.read(p.extra["sources"]) is None:
            self.write(p.extra["sources"], "deb [signed-by=/usr/share/keyrings/cuda-archive-keyring.gpg] %s/ /\n" % r["url"].rstrip("/"))
        if r.get("priority_file") and self.read(r["priority_file"]) is None:
            self.write(r["priority_file"], "Package: *\nPin: origin developer.download.nvidia.com\nPin-Priority: %s\n" % r["priority"])


# ---- dnf ---------------------------------------------------------------------------------------------

class DnfMachine(Machine):
    def repo_files(self):
        d = self.path("etc/yum.repos.d")
        return ["etc/yum.repos.d/" + f for f in sorted(os.listdir(d)) if f.endswith(".repo")] if os.path.isdir(d) else []

    def section(self, rid):
        """The .repo section of a world repository (RHEL names CRB codeready-builder-for-rhel-9-x86_64-rpms)."""
        s = self.world.repos.get(rid, {}).get("section")
        return s if isinstance(s, str) else rid

    def repo_states(self):
        """{world repository: enabled?} of the sections the machine's .repo files have."""
        secs = {}
        for rel in self.repo_files():
            cp = _ini(self.read(rel, ""))
            for sec in cp.sections():
                secs[sec] = cp.get(sec, "enabled", fallback="1").strip() in ("1", "true", "yes")
        return {rid: secs[self.section(rid)] for rid in self.world.repos if self.section(rid) in secs}

    def enabled_repos(self):
        st = self.repo_states()
        return {r for r, on in st.items() if on and self._needs_met(r, st)}

    def _needs_met(self, rid, st):
        need = self.world.repos.get(rid, {}).get("needs")
        return not isinstance(need, str) or any(st.get(x) for x in need.split(","))

    def set_repo(self, section, on):
        """Enable a section by its name (config-manager, subscription-manager); False when no file has it."""
        for rel in self.repo_files():
            cp = _ini(self.read(rel, ""))
            if cp.has_section(section):
                cp.set(section, "enabled", "1" if on else "0")
                self.write(rel, _ini_text(cp))
                return True
        return False

    def enable_repo(self, repo, by_package=None):
        if repo in self.repo_states():
            return
        r = self.world.repos.get(repo, {})
        sec = self.section(repo)
        rel = "etc/yum.repos.d/%s.repo" % (r.get("file") or repo)
        cp = _ini(self.read(rel, ""))
        if not cp.has_section(sec):
            cp.add_section(sec)
        cp.set(sec, "name", sec)
        cp.set(sec, "baseurl", r.get("url", ""))
        cp.set(sec, "enabled", "1")
        cp.set(sec, "gpgcheck", "1")
        self.write(rel, _ini_text(cp))

    # module streams
    def modules(self):
        out = {}
        d = self.path("etc/dnf/modules.d")
        for f in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            cp = _ini(self.read("etc/dnf/modules.d/" + f, ""))
            for sec in cp.sections():
                out[sec] = {"stream": cp.get(sec, "stream", fallback=""), "state": cp.get(sec, "state", fallback="")}
        return out

    def active_stream(self, module):
        st = self.modules().get(module)
        if st and st["state"] == "enabled" and st["stream"]:
            return st["stream"]
        if st and st["state"] == "disabled":
            return None
        for s, e in self.world.streams.items():
            mod, _, stream = s.partition(":")
            if mod == module and e.get("default"):
                return stream
        return None

    def set_module(self, module, stream, state):
        self.write("etc/dnf/modules.d/%s.module" % module,
                   "[%s]\nname=%s\nstream=%s\nprofiles=\nstate=%s\n" % (module, module, stream, state))

    # version locks (DNF 4's versionlock.list; DNF 5's versionlock.toml)
    def lock_entries(self):
        out = []
        for line in (self.read("etc/dnf/plugins/versionlock.list", "") or "").splitlines():
            line = line.strip()
            if line and not line.startswith("#") and not line.startswith("!"):
                out.append(line)
        toml = self.read("etc/dnf/versionlock.toml", "") or ""
        for block in re.split(r"^\[\[packages\]\]\s*$", toml, flags=re.M)[1:]:
            name = re.search(r'^name\s*=\s*"([^"]+)"', block, re.M)
            ver = re.search(r'^value\s*=\s*"([^"]+)"', block, re.M)
            if name and ver:
                out.append("%s-%s" % (name.group(1), ver.group(1)))
        return out

    def locked_versions(self, name):
        """The versions the lock entries allow @name: "name-[epoch:]version-release[.arch|.*]"."""
        vs = []
        for e in self.lock_entries():
            if not e.startswith(name + "-") or not e[len(name) + 1:][:1].isdigit():
                continue
            rest = e[len(name) + 1:]
            for suffix in (".*", ".x86_64", ".aarch64", ".noarch"):
                if rest.endswith(suffix):
                    rest = rest[: -len(suffix)]
            if re.match(r"^[^-]+-[^-]+$", rest.split(":")[-1]):  # a version and a release, not a longer name
                vs.append(rest)
        return vs

    def allowed(self, p):
        if p.repo not in self.enabled_repos():
            return "repo"
        streams = self.world.streams_of(p)
        if streams:
            mods = {s.partition(":")[0] for s in streams}
            if not any(self.active_stream(mod) and "%s:%s" % (mod, self.active_stream(mod)) in streams for mod in mods):
                return "module"
        lv = self.locked_versions(p.name)
        if lv and not any(p.version == v or p.version.split(":")[-1] == v.split(":")[-1] for v in lv):
            return "lock"
        return None

    def add_locks(self, pattern):
        """dnf versionlock add PATTERN: installed matches first, else what the enabled repositories offer."""
        def nevr(n, v):
            e, _, rest = v.partition(":") if ":" in v else ("0", "", v)
            return "%s-%s:%s" % (n, e, rest)
        hits = [(n, i.version) for n, i in self.installed.items() if fnmatch.fnmatchcase("%s-%s" % (n, i.version), pattern)
                or fnmatch.fnmatchcase(nevr(n, i.version), pattern)]
        if not hits:
            for n, vers in self.world.pkgs.items():
                for p in vers:
                    if p.repo in self.enabled_repos() and self.allowed_but_lock(p) and (
                            fnmatch.fnmatchcase("%s-%s" % (n, p.version), pattern) or fnmatch.fnmatchcase(nevr(n, p.version), pattern)):
                        hits.append((n, p.version))
        if not hits:
            return []
        if self.world.meta.get("dnf") == "5":
            t = self.read("etc/dnf/versionlock.toml", "") or "version = \"1.0\"\n"
            for n, v in hits:
                t += '[[packages]]\nname = "%s"\n[[packages.conditions]]\nkey = "evr"\ncomparator = "="\nvalue = "%s"\n' % (n, v)
            self.write("etc/dnf/versionlock.toml", t)
        else:
            t = self.read("etc/dnf/plugins/versionlock.list", "") or ""
            for n, v in hits:
                t += "%s-%s.*\n" % (n, v if ":" in v else "0:" + v)
            self.write("etc/dnf/plugins/versionlock.list", t)
        return hits

    def allowed_but_lock(self, p):
        return self.allowed(p) in (None, "lock")

    def delete_locks(self, pattern):
        n = 0
        t = self.read("etc/dnf/plugins/versionlock.list")
        if t is not None:
            keep = [l for l in t.splitlines() if not fnmatch.fnmatchcase(l.rstrip(".*"), pattern) and not fnmatch.fnmatchcase(l, pattern)]
            n += len(t.splitlines()) - len(keep)
            self.write("etc/dnf/plugins/versionlock.list", "".join(l + "\n" for l in keep))
        toml = self.read("etc/dnf/versionlock.toml")
        if toml is not None:
            blocks = re.split(r"(?=\[\[packages\]\])", toml)
            keep = [b for b in blocks if not (re.search(r'name\s*=\s*"([^"]+)"', b) and
                                               fnmatch.fnmatchcase(re.search(r'name\s*=\s*"([^"]+)"', b).group(1) + "-" +
                                                                   (re.search(r'value\s*=\s*"([^"]+)"', b) or re.search("", "")).group(0), pattern))]
            n += len(blocks) - len(keep)
            self.write("etc/dnf/versionlock.toml", "".join(keep))
        return n


def _ini_text(cp):
    out = []
    for sec in cp.sections():
        out.append("[%s]\n%s\n" % (sec, "".join("%s=%s\n" % kv for kv in cp.items(sec))))
    return "\n".join(out)


# ---- zypper ------------------------------------------------------------------------------------------

class ZypperMachine(Machine):
    def repo_defs(self):
        out = {}
        d = self.path("etc/zypp/repos.d")
        for f in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            cp = _ini(self.read("etc/zypp/repos.d/" + f, ""))
            for sec in cp.sections():
                out[sec] = {"url": cp.get(sec, "baseurl", fallback="").rstrip("/"),
                            "enabled": cp.get(sec, "enabled", fallback="1") == "1"}
        return out

    def world_repo(self, url):
        for rid, r in self.world.repos.items():
            if r["url"].rstrip("/") == url.rstrip("/") or (isinstance(r.get("repofile"), str) and r["repofile"] == url):
                return rid
        return None

    def trusted(self):
        return set((self.read("var/lib/pkgworld/zypp-trusted", "") or "").split())

    def enabled_repos(self):
        out = set()
        tr = self.trusted()
        for alias, r in self.repo_defs().items():
            rid = self.world_repo(r["url"])
            if rid and r["enabled"] and (rid in tr or not self.world.repos[rid].get("key")):
                out.add(rid)
        return out

    def locks(self):
        return re.findall(r"^solvable_name:\s*(\S+)", self.read("etc/zypp/locks", "") or "", re.M)

    def allowed(self, p):
        if p.repo not in self.enabled_repos():
            return "repo"
        if any(fnmatch.fnmatchcase(p.name, g) for g in self.locks()):
            i = self.installed.get(p.name)
            if not i or i.version != p.version:
                return "lock"
        return None

    def enable_repo(self, repo, by_package=None):
        pass


# ---- pacman ------------------------------------------------------------------------------------------

class PacmanMachine(Machine):
    def enabled_repos(self):
        return {r for r in self.world.repos if os.path.exists(self.path("var/lib/pacman/sync/%s.db" % r))}

    def enable_repo(self, repo, by_package=None):
        pass


CLASSES = {"apt": AptMachine, "dnf": DnfMachine, "zypper": ZypperMachine, "pacman": PacmanMachine}


def machine(root, world=None):
    """The machine of @root, as its world's manager sees it."""
    base = Machine.__new__(Machine)
    base.root = root
    files = base.world_files() if world is None else None
    from pkgworld import World
    w = world or World(files)
    return CLASSES[w.manager](root, w)


def rels(text):
    return parse_rels(text)


__all__ = ["machine", "AptMachine", "DnfMachine", "ZypperMachine", "PacmanMachine", "Rel", "rels"]
