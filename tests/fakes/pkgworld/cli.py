# SPDX-License-Identifier: MIT
"""The front ends: apt-get, apt-mark, dpkg, dpkg-query, dnf, rpm, subscription-manager, zypper, pacman,
mokutil, dkms, update-initramfs, dracut, mkinitcpio, modprobe, depmod, systemctl.  Each works on the
machine root PKGWORLD_ROOT (else CUDAUP_SYSTEM_ROOT) and refuses to run without one: it never touches
the real system.  Messages and exit codes are the real tools' (the common ones); what is modelled and
what is not is in README.md."""
import fcntl
import json
import os
import re
import sys
import time

import managers
import pkgworld
from pkgworld import Problem, Rel, apply, install_plan, removal_closure, unneeded

TOOLS = ["apt-get", "apt-mark", "dpkg", "dpkg-query", "dnf", "rpm", "subscription-manager", "zypper", "pacman",
         "mokutil", "dkms", "update-initramfs", "dracut", "mkinitcpio", "modprobe", "depmod", "systemctl"]


def out(s=""):
    sys.stdout.write(s + ("\n" if s and not s.endswith("\n") else ""))


def err(s):
    sys.stderr.write(s + ("\n" if not s.endswith("\n") else ""))


class Exit(Exception):
    def __init__(self, code, message=None):
        super().__init__(message)
        self.code = code
        self.message = message


def root_dir():
    r = os.environ.get("PKGWORLD_ROOT") or os.environ.get("CUDAUP_SYSTEM_ROOT")
    if not r or r == "/" or not os.path.isdir(r):
        raise Exit(99, "pkgworld: no machine root (set PKGWORLD_ROOT or CUDAUP_SYSTEM_ROOT to a fixture root); refusing to touch this system")
    return r


def has_cmd(m, cmd):
    """Is @cmd installed on the machine (a package that ships it)?  Worlds that say nothing: yes."""
    shippers = [n for n, vers in m.world.pkgs.items() for p in vers if cmd in str(p.extra.get("cmd", "")).split(",")]
    return not shippers or any(n in m.installed for n in shippers)


def need_cmd(m, cmd):
    if not has_cmd(m, cmd):
        raise Exit(127, "%s: command not found" % cmd)


# ---- locks -------------------------------------------------------------------------------------------

def flock(path, timeout, what):
    """Take an fcntl lock on @path as apt does; wait up to @timeout seconds (apt's DPkg::Lock::Timeout)."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o640)
    deadline = time.monotonic() + max(0, timeout)
    waited = False
    while True:
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except OSError:
            if time.monotonic() >= deadline:
                os.close(fd)
                raise
            if not waited:
                err("Waiting for cache lock: Could not get lock %s. It is held by another process" % what)
                waited = True
            time.sleep(0.05)


# ---- apt ---------------------------------------------------------------------------------------------

def parse_apt_opts(args):
    o = {"yes": False, "recommends": True, "held": False, "essential": False, "sim": False, "purge": False,
         "autoremove": False, "timeout": 0, "rest": []}
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-y", "--yes", "--assume-yes", "-qq", "-q", "--quiet", "-f", "--fix-broken"):
            o["yes"] |= a in ("-y", "--yes", "--assume-yes")
        elif a in ("-s", "--simulate", "--dry-run", "--just-print"):
            o["sim"] = True
        elif a == "--no-install-recommends":
            o["recommends"] = False
        elif a == "--install-recommends":
            o["recommends"] = True
        elif a == "--allow-change-held-packages":
            o["held"] = True
        elif a == "--allow-remove-essential":
            o["essential"] = True
        elif a == "--purge":
            o["purge"] = True
        elif a == "--autoremove":
            o["autoremove"] = True
        elif a == "-o" or a.startswith("-o"):
            kv = args[i + 1] if a == "-o" else a[2:]
            i += a == "-o"
            k, _, v = kv.partition("=")
            if k.lower() == "dpkg::lock::timeout":
                o["timeout"] = int(v or 0)
            elif k.lower() == "apt::install-recommends":
                o["recommends"] = v.lower() in ("1", "true", "yes")
            elif k.lower() == "apt::get::assume-yes":
                o["yes"] = v.lower() in ("1", "true", "yes")
        elif a.startswith("-"):
            raise Exit(100, "E: Command line option '%s' is not understood in combination with the other options" % a)
        else:
            o["rest"].append(a)
        i += 1
    return o


def apt_lock(m, o, lists=False):
    rel = "var/lib/apt/lists/lock" if lists else "var/lib/dpkg/lock-frontend"
    try:
        return flock(m.path(rel), o["timeout"], "/" + rel)
    except OSError:
        pid = (m.read(rel, "") or "").strip()
        held = " It is held by process %s" % pid if pid.isdigit() else ""
        if lists:
            raise Exit(100, "E: Could not get lock /%s.%s\nE: Unable to lock directory /var/lib/apt/lists/" % (rel, held))
        raise Exit(100, "E: Could not get lock /%s.%s\nN: Be aware that removing the lock file is not a solution and may break your system.\n"
                        "E: Unable to acquire the dpkg frontend lock (/%s), is another process using it?" % (rel, held, rel))


def apt_requests(m, names):
    reqs = []
    for n in names:
        if "/" in n and n.endswith(".deb"):
            # apt runs inside the machine root: the path it is given is read there, never on this host.
            given, n = n, os.path.join(m.root, os.path.relpath(os.path.abspath(n), "/"))
            if not os.path.isfile(n):
                raise Exit(100, "E: Unsupported file %s given on commandline" % given)
            if os.environ.get("STANDIN_DEB_LOG"):  # what a test needs to judge the file apt was handed
                import hashlib
                import stat as st_
                d, lf = os.stat(os.path.dirname(n)), os.lstat(n)
                with open(os.environ["STANDIN_DEB_LOG"], "a") as f:
                    f.write(json.dumps({"path": n, "given": given, "dir_mode": st_.S_IMODE(d.st_mode), "dir_uid": d.st_uid,
                                        "link": st_.S_ISLNK(lf.st_mode), "uid": lf.st_uid,
                                        "sha256": hashlib.sha256(open(n, "rb").read()).hexdigest()}) + "\n")
            base = os.path.basename(n)
            hit = [p for vers in m.world.pkgs.values() for p in vers if p.extra.get("deb") == base]
            if not hit:
                raise Exit(100, "E: Unsupported file %s given on commandline" % given)
            reqs.append(hit[0])
            continue
        name, eq, ver = n.partition("=")
        if name.endswith("-") and m.installed.get(name[:-1]):
            continue
        reqs.append((name, "=" if eq else None, ver or None))
    return reqs


def apt_unmet(msg):
    return Exit(100, "Some packages could not be installed. This may mean that you have\nrequested an impossible situation or if you are using the unstable\n"
                     "distribution that some required packages have not yet been created\nor been moved out of Incoming.\n"
                     "The following information may help to resolve the situation:\n\nThe following packages have unmet dependencies:\n %s\n"
                     "E: Unable to correct problems, you have held broken packages." % msg)


def apt_install(m, o, names):
    reqs = apt_requests(m, names)
    try:
        t = install_plan(m, reqs, backtrack=False, recommends=o["recommends"])
    except Problem as p:
        if p.kind == "notfound":
            name = [r for r in reqs if not isinstance(r, pkgworld.Pkg) and not m.candidates(r[0], r[1], r[2])
                    and not any(m.candidates(x) for x in m.world.providers.get(r[0], ()))]
            r = name[0] if name else reqs[0]
            if r[1]:
                raise Exit(100, "E: Version '%s' for '%s' was not found" % (r[2], r[0]))
            raise Exit(100, "E: Unable to locate package %s" % r[0])
        raise apt_unmet(p.message)
    return t


def apt_show(m, t, o, requested):
    new = sorted(n for n in t.add if n not in m.installed)
    upg = sorted(n for n in t.add if n in m.installed)
    extra = [n for n in new if n not in requested]
    if extra:
        out("The following additional packages will be installed:\n  " + " ".join(extra))
    if t.remove:
        out("The following packages will be REMOVED:\n  " + " ".join(sorted(t.remove)))
    if new:
        out("The following NEW packages will be installed:\n  " + " ".join(new))
    if upg:
        out("The following packages will be upgraded:\n  " + " ".join(upg))
    out("%d upgraded, %d newly installed, %d to remove and 0 not upgraded." % (len(upg), len(new), len(t.remove)))
    held = [n for n in list(t.remove) + upg if m.installed[n].held]
    if held and not o["held"]:
        raise Exit(100, "E: Held packages were changed and -y was used without --allow-change-held-packages.")
    ess = [n for n in t.remove if (m.installed_pkg(n) and m.installed_pkg(n).extra.get("essential")) or
           m.dpkg_paras.get(n, {}).get("Essential") == "yes"]
    if ess and not o["essential"]:
        raise Exit(100, "WARNING: The following essential packages will be removed.\nThis should NOT be done unless you know exactly what you are doing!\n  %s\n"
                        "E: Essential packages were removed and -y was used without --allow-remove-essential." % " ".join(ess))
    if (extra or t.remove) and not o["yes"] and not o["sim"]:
        raise Exit(1, "Do you want to continue? [Y/n] Abort.")


def cmd_apt_get(args):
    o = parse_apt_opts(args)
    if not o["rest"]:
        raise Exit(100, "E: Invalid operation")
    op, names = o["rest"][0], o["rest"][1:]
    m = managers.machine(root_dir())
    if op == "update":
        fd = apt_lock(m, o, lists=True)
        m.update()
        for uri, suite, comps in managers.apt_sources(m):
            out("Hit: %s %s %s" % (uri, suite, " ".join(comps)))
        out("Reading package lists...")
        os.close(fd)
        return 0
    if op in ("install", "reinstall"):
        if not names:
            return 0
        fd = None if o["sim"] else apt_lock(m, o)
        out("Reading package lists...\nBuilding dependency tree...\nReading state information...")
        t = apt_install(m, o, names)
        req = {r.name if isinstance(r, pkgworld.Pkg) else r[0] for r in apt_requests(m, names)}
        for n in sorted(req):
            if n not in t.add and n in m.installed:
                out("%s is already the newest version (%s)." % (n, m.installed[n].version))
        apt_show(m, t, o, req)
        if o["sim"]:
            for n in sorted(t.add):
                out("Inst %s (%s %s)" % (n, t.add[n].version, t.add[n].repo))
            return 0
        apply(m, t)
        for n in sorted(t.add):
            out("Setting up %s (%s) ..." % (n, t.add[n].version))
        if fd is not None:
            os.close(fd)
        return 0
    if op in ("remove", "purge", "autoremove"):
        fd = None if o["sim"] else apt_lock(m, o)
        out("Reading package lists...\nBuilding dependency tree...\nReading state information...")
        targets = set()
        for n in names:
            if n not in m.installed:
                if n not in m.world.pkgs and n not in m.world.providers:
                    raise Exit(100, "E: Unable to locate package %s" % n)
                out("Package '%s' is not installed, so not removed" % n)
            else:
                targets.add(n)
        gone = removal_closure(m, targets) if targets else set()
        if op == "autoremove" or o["autoremove"]:
            gone |= unneeded(m, gone)
        t = pkgworld.Transaction(m, False)
        t.remove = gone
        apt_show(m, t, o, targets)
        if o["sim"]:  # what apt-get -s prints: nothing changes
            for n in sorted(gone):
                out("%s %s [%s]" % ("Purg" if op == "purge" or o["purge"] else "Remv", n, m.installed[n].version))
            return 0
        if gone and len(gone) > len(targets) and not o["yes"]:
            raise Exit(1, "Do you want to continue? [Y/n] Abort.")
        # sudo's own removal script (Debian's and Ubuntu's sudo.prerm) refuses when root has no password (its
        # shadow entry is * or starts with !): dpkg removes the others and stops there (measured in a debootstrap
        # tree by test_driver_debian: "Refusing to remove sudo.").
        refused = "sudo" in gone and sudo_refuses(m)
        if refused:
            t.remove = gone - {"sudo"}
        apply(m, t)
        for n in sorted(t.remove):
            out("Removing %s ..." % n)
        os.close(fd)
        if refused:
            err("You have asked that the sudo package be removed,\nbut no root password has been set.\n"
                "Without sudo, you may not be able to gain administrative privileges.\n\nRefusing to remove sudo.\n"
                "dpkg: error processing package sudo (--%s):\n installed sudo package pre-removal script subprocess returned error exit status 1"
                % ("purge" if op == "purge" else "remove"))
            raise Exit(100, "Errors were encountered while processing:\n sudo\nE: Sub-process /usr/bin/dpkg returned an error code (1)")
        return 0
    if op in ("upgrade", "dist-upgrade", "full-upgrade"):
        fd = apt_lock(m, o)
        changed = upgrade_all(m, backtrack=False, allow_new=op != "upgrade")
        out("%d upgraded, 0 newly installed, 0 to remove and 0 not upgraded." % len(changed))
        os.close(fd)
        return 0
    raise Exit(100, "E: Invalid operation %s" % op)


def sudo_refuses(m):
    """sudo.prerm's check: root's password field in /etc/shadow is '*' or starts with '!', and SUDO_FORCE_REMOVE is not yes."""
    if os.environ.get("SUDO_FORCE_REMOVE") == "yes" or m.world.meta.get("distro") not in ("debian", "ubuntu"):
        return False
    for line in (m.read("etc/shadow") or "").splitlines():
        f = line.split(":")
        if f[0] == "root" and len(f) > 1:
            return f[1] == "*" or f[1].startswith("!")
    return False


def upgrade_all(m, backtrack, allow_new):
    changed = []
    for n in sorted(m.installed):
        i = m.installed[n]
        if getattr(i, "held", False) or n not in m.world.pkgs:
            continue
        c = m.candidates(n)
        if not c or m.world.cmp(c[0].version, i.version) <= 0:
            continue
        try:
            t = install_plan(m, [c[0]], backtrack=backtrack, recommends=False)
        except Problem:
            continue
        if not allow_new and any(x not in m.installed for x in t.add):
            continue
        if any(m.installed[x].held for x in t.remove if x in m.installed):
            continue
        apply(m, t)
        changed.append(n)
    return changed


def cmd_apt_mark(args):
    if not args:
        raise Exit(100, "E: No command given")
    op, names = args[0], [a for a in args[1:] if not a.startswith("-")]
    m = managers.machine(root_dir())
    if op == "showhold":
        for n in sorted(m.installed):
            if m.installed[n].held:
                out(n)
        return 0
    if op in ("hold", "unhold", "auto", "manual"):
        fd = apt_lock(m, {"timeout": 0}) if op in ("hold", "unhold") else None
        for n in names:
            if n not in m.installed and n not in m.world.pkgs:
                raise Exit(100, "E: Unable to locate package %s" % n)
        for n in names:
            i = m.installed.get(n)
            if not i:
                continue
            if op == "hold":
                out("%s set on hold." % n if not i.held else "%s was already set on hold." % n)
                i.held = True
            elif op == "unhold":
                out("Canceled hold on %s." % n if i.held else "%s was already not on hold." % n)
                i.held = False
            else:
                i.auto = op == "auto"
        m.save()
        if fd is not None:
            os.close(fd)
        return 0
    raise Exit(100, "E: Invalid operation %s" % op)


def cmd_dpkg(args):
    if args[:1] == ["--compare-versions"] and len(args) == 4:
        c = pkgworld.deb_cmp(args[1], args[3])
        ok = {"lt": c < 0, "le": c <= 0, "eq": c == 0, "ne": c != 0, "ge": c >= 0, "gt": c > 0,
              "<<": c < 0, "<=": c <= 0, "=": c == 0, ">=": c >= 0, ">>": c > 0}.get(args[2])
        return 0 if ok else 1
    if args[:1] == ["--print-architecture"]:
        out("amd64")
        return 0
    m = managers.machine(root_dir())
    if args[:1] in (["-i"], ["--install"]):
        fd = apt_lock(m, {"timeout": 0})
        reqs = apt_requests(m, args[1:])
        for p in reqs:
            if not isinstance(p, pkgworld.Pkg):
                raise Exit(2, "dpkg: error: cannot access archive '%s': No such file or directory" % p[0])
            t = pkgworld.Transaction(m, False)
            t.add[p.name] = p
            for alts in p.depends:
                if not any(t.provided(a) for a in alts):
                    raise Exit(1, "dpkg: dependency problems prevent configuration of %s:\n %s depends on %s; however:\n  Package %s is not installed."
                                  % (p.name, p.name, " | ".join(str(a) for a in alts), alts[0].name))
            apply(m, t)
            out("Setting up %s (%s) ..." % (p.name, p.version))
        os.close(fd)
        return 0
    if args[:1] in (["-l"], ["--list"]):
        for n in sorted(m.installed):
            out("ii  %s  %s  amd64" % (n, m.installed[n].version))
        return 0
    if args[:1] in (["-s"], ["--status"]):
        return cmd_dpkg_query(["-s"] + args[1:])
    raise Exit(2, "dpkg: error: this stand-in does not model %s" % " ".join(args))


def cmd_dpkg_query(args):
    admin = None
    fmt = "${Package}\t${Version}\n"
    op, names = None, []
    for a in args:
        if a.startswith("--admindir="):
            admin = a.split("=", 1)[1]
        elif a.startswith("-f=") or a.startswith("--showformat="):
            fmt = a.split("=", 1)[1]
        elif a in ("-W", "--show", "-s", "--status", "-l", "--list"):
            op = a
        elif not a.startswith("-"):
            names.append(a)
    root = os.path.dirname(os.path.dirname(os.path.dirname(admin))) if admin else root_dir()
    m = managers.machine(root)
    fmt = fmt.encode().decode("unicode_escape")
    rc = 0
    for n in sorted(m.installed) if not names else names:
        para = m.dpkg_paras.get(n) or ({"Package": n, "Version": m.installed[n].version, "Status": "install ok installed"}
                                       if n in m.installed else None)
        if para is None:
            err("dpkg-query: no packages found matching %s" % n)
            rc = 1
            continue
        if op in ("-s", "--status"):
            out("".join("%s: %s\n" % kv for kv in para.items()))
        else:
            out(re.sub(r"\$\{([^}]+)\}", lambda mm: para.get(mm.group(1), ""), fmt).rstrip("\n") + "\n")
    return rc


# ---- dnf, rpm, subscription-manager ------------------------------------------------------------------

def dnf_not_found(m, name, why):
    msg = {"module": "All matches were filtered out by modular filtering for argument: %s",
           "lock": "All matches were filtered out by exclude filtering for argument: %s"}.get(why, "No match for argument: %s")
    return Exit(1, (msg % name) + "\nError: Unable to find a match: %s" % name)


def dnf_requests(m, names):
    reqs = []
    for n in names:
        if n.startswith(("http://", "https://")) or n.endswith(".rpm"):
            hit = [p for vers in m.world.pkgs.values() for p in vers if p.extra.get("url") == n]
            if not hit:
                raise Exit(1, "Curl error (6): Couldn't resolve host name for %s\nError: Failed to download metadata for %s" % (n, n))
            reqs.append(hit[0])
            continue
        if n in m.world.pkgs or n in m.world.providers:
            reqs.append((n, None, None))
            continue
        if any(c in n for c in "*?["):  # a glob of NAME or NAME-VERSION-RELEASE (dnf's package specs): the best match
            import fnmatch
            hits = [(name, p.version) for name, vers in m.world.pkgs.items() for p in vers
                    if fnmatch.fnmatchcase(name, n) or fnmatch.fnmatchcase("%s-%s" % (name, p.version.split(":")[-1]), n)]
            names = sorted({h[0] for h in hits})
            best = [(name, m.candidates(name, "=", v)) for name, v in hits]
            best = [(name, c[0]) for name, c in best if c]
            if not best:
                raise dnf_not_found(m, n, "repo")
            for name in names:
                cands = m.order([c for nm, c in best if nm == name])
                if cands:
                    reqs.append((name, "=", cands[0].version))
            continue
        mm = re.match(r"^(.+?)-((?:\d+:)?\d[^-]*(?:-[^-]+?)?)(?:\.(?:x86_64|aarch64|noarch))?$", n)  # name-version[-release][.arch]
        if mm and mm.group(1) in m.world.pkgs:
            if not m.candidates(mm.group(1), "=", mm.group(2)):
                raise dnf_not_found(m, n, "repo")
            reqs.append((mm.group(1), "=", mm.group(2)))
        else:
            reqs.append((n, None, None))
    return reqs


def dnf_problem(p):
    return Exit(1, "Error: \n Problem: conflicting requests\n  - %s\n(try to add '--skip-broken' to skip uninstallable packages or '--nobest' to use not only best candidate packages)" % p.message.replace(" : Depends: ", " requires ").replace(" but it is not installable", ", but none of the providers can be installed"))


def cmd_dnf(args):
    o = {"yes": False, "erase": False, "rest": []}
    for a in args:
        if a in ("-y", "--assumeyes"):
            o["yes"] = True
        elif a == "--allowerasing":
            o["erase"] = True
        elif a.startswith("-"):
            continue
        else:
            o["rest"].append(a)
    if not o["rest"]:
        raise Exit(1, "usage: dnf [options] COMMAND")
    m = managers.machine(root_dir())
    dnf5 = m.world.meta.get("dnf") == "5"
    op, names = o["rest"][0], o["rest"][1:]
    if op == "install":
        reqs = dnf_requests(m, names)
        for r in reqs:
            if isinstance(r, pkgworld.Pkg):
                continue
            if not m.candidates(r[0], r[1], r[2]) and not any(m.candidates(x) for x in m.world.providers.get(r[0], ())):
                if r[0] in m.installed and not r[1]:
                    continue
                why = {m.allowed(p) for p in m.world.pkgs.get(r[0], [])}
                raise dnf_not_found(m, r[0], "module" if "module" in why else "lock" if why == {"lock"} else "repo")
        reqs = [r for r in reqs if isinstance(r, pkgworld.Pkg) or not (r[0] in m.installed and not m.candidates(r[0], r[1], r[2]))]
        try:
            t = install_plan(m, reqs, backtrack=True)
        except Problem as p:
            raise dnf_problem(p)
        if t.remove and not o["erase"]:
            n = sorted(t.remove)[0]
            raise Exit(1, "Error: \n Problem: problem with installed package %s-%s\n  - package conflicts with %s\n(try to add '--allowerasing' to command line to replace conflicting packages)"
                          % (n, m.installed[n].version, n))
        if not t.add:
            out("Package %s is already installed.\nDependencies resolved.\nNothing to do.\nComplete!" % " ".join(names))
            return 0
        out("Dependencies resolved.\nInstalling:\n" + "".join(" %s %s %s\n" % (n, p.version, p.repo) for n, p in sorted(t.add.items()) if t.why.get(n) is None)
            + "Installing dependencies:\n" + "".join(" %s %s %s\n" % (n, p.version, p.repo) for n, p in sorted(t.add.items()) if t.why.get(n) is not None)
            + ("Removing:\n" + "".join(" %s\n" % n for n in sorted(t.remove)) if t.remove else ""))
        if not o["yes"]:
            raise Exit(1, "Is this ok [y/N]: Operation aborted.")
        apply(m, t)
        out("Complete!")
        return 0
    if op in ("remove", "erase"):
        targets = {n for n in names if n in m.installed}
        for n in names:
            if n not in m.installed:
                out("No match for argument: %s" % n)
        if not targets:
            raise Exit(1, "Error: No packages marked for removal.")
        gone = removal_closure(m, targets)
        prot = [n for n in gone if (m.installed_pkg(n) and m.installed_pkg(n).extra.get("protected"))]
        if prot:
            raise Exit(1, "Error: \n Problem: The operation would result in removing the following protected packages: %s" % ", ".join(sorted(prot)))
        extra = unneeded(m, gone)
        out("Removing:\n" + "".join(" %s %s\n" % (n, m.installed[n].version) for n in sorted(targets))
            + ("Removing dependent packages:\n" + "".join(" %s %s\n" % (n, m.installed[n].version) for n in sorted(gone - targets)) if gone - targets else "")
            + ("Removing unused dependencies:\n" + "".join(" %s %s\n" % (n, m.installed[n].version) for n in sorted(extra)) if extra else ""))
        if not o["yes"]:
            raise Exit(1, "Is this ok [y/N]: Operation aborted.")
        t = pkgworld.Transaction(m, True)
        t.remove = gone | extra
        apply(m, t)
        out("Complete!")
        return 0
    if op in ("upgrade", "update", "distro-sync"):
        changed = upgrade_all(m, backtrack=True, allow_new=True)
        out("Upgraded: %s\nComplete!" % " ".join(changed) if changed else "Dependencies resolved.\nNothing to do.\nComplete!")
        return 0
    if op == "module":
        return dnf_module(m, o, names)
    if op == "versionlock":
        sub = names[0] if names else "list"
        if sub not in ("add", "delete", "list", "clear", "exclude"):
            if dnf5:
                raise Exit(2, 'Unknown argument "%s" for command "versionlock". Add "--help" for more information about the arguments.' % sub)
            sub, names = "add", ["add"] + names
        pats = names[1:]
        if sub == "add":
            for pat in pats:
                hits = m.add_locks(pat)
                if not hits:
                    raise Exit(1, "Error: No package found for: %s" % pat)
                for n, v in hits:
                    out("Adding versionlock on: %s-%s" % (n, v))
            return 0
        if sub == "delete":
            for pat in pats:
                out("Deleting versionlock for: %s (%d)" % (pat, m.delete_locks(pat)))
            return 0
        if sub == "clear":
            for rel in ("etc/dnf/plugins/versionlock.list", "etc/dnf/versionlock.toml"):
                if m.read(rel) is not None:
                    m.write(rel, "")
            return 0
        for e in m.lock_entries():
            out(e)
        return 0
    if op == "config-manager":
        return dnf_config_manager(m, names, args, dnf5)
    if op in ("makecache", "clean", "check-update"):
        return 0
    if op in ("repolist",):
        for r in sorted(m.enabled_repos()):
            out(r)
        return 0
    if op == "list":
        for n in sorted(m.installed):
            out("%s %s @%s" % (n, m.installed[n].version, m.installed[n].repo or "System"))
        return 0
    raise Exit(1, "No such command: %s." % op)


def dnf_config_manager(m, names, args, dnf5):
    def add_repofile(url):
        hits = [rid for rid, r in m.world.repos.items() if r.get("repofile") == url]
        if not hits:
            raise Exit(1, "Error: Configuration of repo failed: Cannot download '%s': Status code: 404" % url)
        for rid in hits:
            m.enable_repo(rid)
        out("Adding repo from: %s" % url)
        return 0
    if dnf5:
        if names[:1] == ["addrepo"]:
            src = [a.split("=", 1)[1] for a in args if a.startswith("--from-repofile=")]
            if not src:
                raise Exit(2, "Missing --from-repofile")
            return add_repofile(src[0])
        if names[:1] == ["setopt"]:
            for kv in names[1:]:
                rid, _, v = kv.partition(".enabled=")
                if not m.set_repo(rid, v == "1"):
                    raise Exit(1, "No matching repository to modify: %s" % rid)
            return 0
        if any(a.startswith("--add-repo") or a.startswith("--set-enabled") for a in args):
            raise Exit(2, "Unknown argument \"%s\" for command \"config-manager\"." % [a for a in args if a.startswith("--")][0])
        raise Exit(2, "Missing command for config-manager")
    if "--add-repo" in args:
        return add_repofile(args[args.index("--add-repo") + 1])
    for a in args:
        if a.startswith("--add-repo="):
            return add_repofile(a.split("=", 1)[1])
    for flag, on in (("--set-enabled", True), ("--enable", True), ("--set-disabled", False), ("--disable", False)):
        if flag in args:
            for rid in names:
                if not m.set_repo(rid, on):
                    raise Exit(1, "Error: No matching repo to modify: %s." % rid)
            return 0
    raise Exit(1, "Error: Nothing to do.")


def dnf_module(m, o, names):
    sub = names[0] if names else "list"
    specs = names[1:]
    visible = {s for s in m.world.streams if any(p.repo in m.enabled_repos() for vers in m.world.pkgs.values() for p in vers
                                                  if s in m.world.streams_of(p))
               or m.world.streams[s].get("repo") in m.enabled_repos()}

    def parse(spec):
        mod, _, rest = spec.partition(":")
        stream, _, profile = rest.partition("/")
        return mod, stream, profile

    if sub == "list":
        for s in sorted(visible):
            mod, stream, _ = parse(s)
            mark = " [d]" if m.world.streams[s].get("default") else ""
            mark += " [e]" if m.modules().get(mod, {}).get("stream") == stream and m.modules()[mod]["state"] == "enabled" else ""
            out("%s %s%s" % (mod, stream, mark))
        return 0
    if sub in ("enable", "install", "switch-to"):
        for spec in specs:
            mod, stream, profile = parse(spec)
            if "%s:%s" % (mod, stream) not in visible:
                raise Exit(1, "Unable to resolve argument %s\nError: Problems in request:\nmissing groups or modules: %s" % (spec, spec))
            cur = m.modules().get(mod, {})
            if cur.get("state") == "enabled" and cur.get("stream") != stream and sub != "switch-to":
                raise Exit(1, "The operation would result in switching of module '%s' stream '%s' to stream '%s'\n"
                              "Error: It is not possible to switch enabled streams of a module unless explicitly enabled via configuration option module_stream_switch.\n"
                              "It is recommended to rather remove all installed content from the module, and reset the module using 'dnf module reset <module_name>' command. "
                              "After you reset the module, you can install the other stream." % (mod, cur.get("stream"), stream))
            old = cur.get("stream") if cur.get("state") == "enabled" else m.active_stream(mod)
            m.set_module(mod, stream, "enabled")
            if sub == "switch-to" and old and old != stream:
                new = "%s:%s" % (mod, stream)
                gone = set()
                for n in list(m.installed):
                    p = m.installed_pkg(n)
                    if p and any(s.startswith(mod + ":") for s in m.world.streams_of(p)) and new not in m.world.streams_of(p):
                        c = m.candidates(n)
                        if c:
                            apply(m, install_plan(m, [c[0]], backtrack=True, recommends=False))
                        else:
                            gone.add(n)
                if gone:
                    if not o["erase"]:
                        raise Exit(1, "Error: \n Problem: installed packages of stream %s cannot stay: %s\n(try to add '--allowerasing')" % (old, ", ".join(sorted(gone))))
                    t = pkgworld.Transaction(m, True)
                    t.remove = removal_closure(m, gone)
                    apply(m, t)
            out("Enabling module streams:\n %s %s" % (mod, stream))
            if sub == "install":
                prof = m.world.streams["%s:%s" % (mod, stream)].get("profile_" + (profile or "default"))
                if not isinstance(prof, str):
                    raise Exit(1, "Error: Problems in request:\nbroken groups or modules: %s" % spec)
                try:
                    t = install_plan(m, [(n, None, None) for n in prof.split(",")], backtrack=True)
                except Problem as p:
                    raise dnf_problem(p)
                apply(m, t)
        out("Complete!")
        return 0
    if sub in ("reset", "disable"):
        for spec in specs:
            mod = parse(spec)[0]
            if sub == "reset":
                p = m.path("etc/dnf/modules.d/%s.module" % mod)
                if os.path.exists(p):
                    os.unlink(p)
            else:
                m.set_module(mod, "", "disabled")
        out("Complete!")
        return 0
    if sub == "remove":
        for spec in specs:
            mod, stream, _ = parse(spec)
            ins = [n for n in m.installed if m.installed_pkg(n) and any(s.startswith(mod + ":") for s in m.world.streams_of(m.installed_pkg(n)))]
            t = pkgworld.Transaction(m, True)
            t.remove = removal_closure(m, set(ins))
            apply(m, t)
        out("Complete!")
        return 0
    raise Exit(1, "No such command: module %s" % sub)


def cmd_rpm(args):
    if args[:1] == ["-E"] and len(args) == 2:
        m = managers.machine(root_dir())
        osr = pkgworld.read_os_release(m.root)
        out({"%fedora": osr.get("VERSION_ID", ""), "%rhel": osr.get("VERSION_ID", "").split(".")[0]}.get(args[1], args[1]))
        return 0
    m = managers.machine(root_dir())
    qf = None
    names = []
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("--qf", "--queryformat"):
            qf = args[i + 1]
            i += 1
        elif a.startswith("--queryformat=") or a.startswith("--qf="):
            qf = a.split("=", 1)[1]
        elif not a.startswith("-"):
            names.append(a)
        i += 1
    flags = "".join(a[1:] for a in args if a.startswith("-") and not a.startswith("--"))
    if "e" in flags and "--test" in args:
        # rpm -e --test: would erasing these break what another installed package requires? (nothing is erased)
        for n in names:
            if n not in m.installed:
                raise Exit(1, "error: package %s is not installed" % n)
        gone = removal_closure(m, set(names))
        if gone - set(names):
            lines = ["\t%s is needed by (installed) %s" % (str(a), o) for o in sorted(gone - set(names))
                     for alts in m.depends_of(o) for a in alts if a.name in names]
            raise Exit(1, "error: Failed dependencies:\n" + "\n".join(lines or ["\t(a dependency) is needed by (installed) %s" % o
                                                                                for o in sorted(gone - set(names))]))
        return 0
    if "q" not in flags:
        raise Exit(1, "rpm: this stand-in models queries and erase tests only")
    fmt = (qf or "%{NAME}-%{VERSION}\n").encode().decode("unicode_escape")

    def show(n):
        v = m.installed[n].version.split(":")[-1]
        ver, _, rel = v.partition("-")
        out(fmt.replace("%{NAME}", n).replace("%{VERSION}", ver).replace("%{RELEASE}", rel).rstrip("\n") + "\n")
    if "a" in flags:
        for n in sorted(m.installed):
            if not names or any(re.search(x, n) for x in names):
                show(n)
        return 0
    rc = 0
    for n in names:
        if n in m.installed:
            show(n)
        else:
            out("package %s is not installed" % n)
            rc = 1
    return rc


def cmd_subscription_manager(args):
    m = managers.machine(root_dir())
    if args[:1] != ["repos"]:
        raise Exit(1, "subscription-manager: this stand-in models `repos --enable` only")
    ids = []
    for i, a in enumerate(args):
        if a == "--enable":
            ids.append(args[i + 1])
        elif a.startswith("--enable="):
            ids.append(a.split("=", 1)[1])
    for sec in ids:
        hit = [r for r in m.world.repos if m.section(r) == sec]
        if not hit:
            raise Exit(1, "Error: '%s' does not match a valid repository ID. Use \"subscription-manager repos --list\" to see valid repositories." % sec)
        if not m.set_repo(sec, True):
            m.enable_repo(hit[0])
        out("Repository '%s' is enabled for this system." % sec)
    return 0


# ---- zypper ------------------------------------------------------------------------------------------

def zypp_lock(m):
    t = (m.read("run/zypp.pid", "") or "").strip()
    if t.isdigit() and int(t) != os.getpid():
        try:
            os.kill(int(t), 0)
        except OSError:
            return
        wait = int(os.environ.get("ZYPP_LOCK_TIMEOUT", "0") or 0)
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            time.sleep(0.05)
            t2 = (m.read("run/zypp.pid", "") or "").strip()
            if t2 != t:
                return
        raise Exit(7, "System management is locked by the application with pid %s (zypper).\nClose this application before trying again." % t)


def cmd_zypper(args):
    ni = auto_keys = False
    rest = []
    for a in args:
        if a in ("-n", "--non-interactive"):
            ni = True
        elif a == "--gpg-auto-import-keys":
            auto_keys = True
        elif a in ("-q", "--quiet", "--no-refresh", "-x", "--xmlout", "--no-gpg-checks"):
            continue
        else:
            rest.append(a)
    if not rest:
        raise Exit(1, "Usage: zypper [--global-options] <command> [--command-options] [arguments]")
    m = managers.machine(root_dir())
    zypp_lock(m)
    op, a = rest[0], rest[1:]
    opts = [x for x in a if x.startswith("-")]
    pos = [x for x in a if not x.startswith("-")]

    def refresh(aliases=None):
        tr = m.trusted()
        bad = []
        for alias, r in m.repo_defs().items():
            if aliases and alias not in aliases:
                continue
            rid = m.world_repo(r["url"])
            if rid is None:
                bad.append("Error building the cache:\n[%s|%s] Valid metadata not found at specified URL" % (alias, r["url"]))
            elif m.world.repos[rid].get("key") and rid not in tr:
                if auto_keys:
                    tr.add(rid)
                    out("Automatically importing the following key:\n  Repository: %s\n  Key Name: %s" % (alias, m.world.repos[rid]["key"]))
                else:
                    bad.append("New repository or package signing key received:\n\n  Repository:       %s\n  Key Name:         %s\n\n"
                               "Do you want to reject the key, trust temporarily, or trust always? [r/t/a/?] (r): r\n"
                               "Error building the cache:\n[%s|%s] Valid metadata not found at specified URL\nSkipping repository '%s' because of the above error."
                               % (alias, m.world.repos[rid]["key"], alias, r["url"], alias))
        m.write("var/lib/pkgworld/zypp-trusted", " ".join(sorted(tr)) + "\n")
        return bad

    if op in ("addrepo", "ar"):
        if len(pos) < 2:
            raise Exit(3, "Too few arguments.")
        url, alias = pos[0], pos[1]
        if alias in m.repo_defs():
            raise Exit(4, "Repository named '%s' already exists. Please use another alias." % alias)
        refresh_flag = "-f" in opts or "--refresh" in opts
        m.write("etc/zypp/repos.d/%s.repo" % alias, "[%s]\nname=%s\nenabled=1\nautorefresh=%d\nbaseurl=%s\ntype=rpm-md\ngpgcheck=1\n"
                % (alias, alias, refresh_flag, url))
        out("Adding repository '%s' ....[done]\nRepository '%s' successfully added" % (alias, alias))
        return 0
    if op in ("removerepo", "rr"):
        for alias in pos:
            p = m.path("etc/zypp/repos.d/%s.repo" % alias)
            if not os.path.exists(p):
                raise Exit(3, "Repository '%s' not found by alias, number or URI." % alias)
            os.unlink(p)
        return 0
    if op in ("refresh", "ref"):
        bad = refresh(pos or None)
        if bad:
            raise Exit(4, "\n".join(bad) + "\nSome of the repositories have not been refreshed because of an error.")
        out("All repositories have been refreshed.")
        return 0
    if op in ("repos", "lr"):
        for alias, r in m.repo_defs().items():
            out("%s | %s | %s" % (alias, "Yes" if r["enabled"] else "No", r["url"]))
        return 0
    if op in ("addlock", "al"):
        t = m.read("etc/zypp/locks", "") or ""
        for n in pos:
            t += "type: package\nmatch_type: glob\ncase_sensitive: on\nsolvable_name: %s\n\n" % n
        m.write("etc/zypp/locks", t)
        out("Specified lock has been successfully added.")
        return 0
    if op in ("removelock", "rl"):
        t = m.read("etc/zypp/locks", "") or ""
        blocks = [b for b in t.split("\n\n") if b.strip()]
        keep = [b for b in blocks if not any(re.search(r"^solvable_name:\s*%s\s*$" % re.escape(n), b, re.M) for n in pos)]
        m.write("etc/zypp/locks", "".join(b + "\n\n" for b in keep))
        out("%d locks have been successfully removed." % (len(blocks) - len(keep)))
        return 0
    if op in ("locks", "ll"):
        for n in m.locks():
            out(n)
        return 0
    if op in ("install", "in"):
        bad = refresh()
        for b in bad:
            err(b)
        reqs, i = [], 0
        while i < len(pos):
            n = pos[i]
            if i + 2 < len(pos) + 1 and i + 1 < len(pos) and pos[i + 1] in ("==", "=", ">=", "<="):
                reqs.append((n, "=" if pos[i + 1] in ("==", "=") else pos[i + 1], pos[i + 2] if i + 2 < len(pos) else ""))
                i += 3
                continue
            mm = re.match(r"^([^=<>]+?)(==|=|>=|<=)(.+)$", n)
            reqs.append((mm.group(1), "=" if mm.group(2) in ("==", "=") else mm.group(2), mm.group(3)) if mm else (n, None, None))
            i += 1
        for r in reqs:
            if not m.candidates(*zypp_rel(m, r)):
                if any(m.allowed(p) == "lock" for p in m.world.pkgs.get(r[0], [])):
                    raise Exit(4, "Problem: the to be installed %s is locked" % r[0])
                raise Exit(104, "Package '%s' not found." % r[0])
        try:
            t = install_plan(m, [zypp_rel(m, r) for r in reqs], backtrack=True, recommends="--no-recommends" not in opts)
        except Problem as p:
            raise Exit(4, "Problem: 1: %s" % p.message.replace(" : Depends: ", " requires ").replace(" but it is not installable", ", but this requirement cannot be provided"))
        if t.remove:
            raise Exit(4, "Problem: 1: the to be installed packages conflict with installed %s" % ", ".join(sorted(t.remove)))
        out("The following %d NEW packages are going to be installed:\n  %s" % (len(t.add), " ".join(sorted(t.add))))
        if not ni:
            raise Exit(1, "Continue? [y/n/v/...? shows all options] (y): \nAborting.")
        apply(m, t)
        return 0
    if op in ("remove", "rm"):
        targets = {n for n in pos if n in m.installed}
        for n in pos:
            if n not in m.installed:
                out("'%s' not found in package names. Trying capabilities.\nNo provider of '%s' found." % (n, n))
        locked = [n for n in targets if any(re.fullmatch(g.replace("*", ".*"), n) for g in m.locks())]
        if locked:
            raise Exit(4, "Problem: the to be deleted %s is locked" % locked[0])
        gone = removal_closure(m, targets) if targets else set()
        if "--clean-deps" in opts or "-u" in opts:
            gone |= unneeded(m, gone)
        out("The following %d packages are going to be REMOVED:\n  %s" % (len(gone), " ".join(sorted(gone))))
        if not ni:
            raise Exit(1, "Continue? [y/n/v/...? shows all options] (y): \nAborting.")
        t = pkgworld.Transaction(m, True)
        t.remove = gone
        apply(m, t)
        return 0 if targets or not pos else 104
    if op in ("update", "up", "dist-upgrade", "dup"):
        refresh()
        upgrade_all(m, backtrack=True, allow_new=op in ("dist-upgrade", "dup"))
        return 0
    raise Exit(1, "Unknown command '%s'" % op)


def zypp_rel(m, r):
    """zypper's `name == 580.95.05`: the version of a KMP is `580.95.05_k6.4...`, and a bare version matches any release."""
    name, op, ver = r
    if op == "=" and ver:
        vs = [p.version for p in m.world.pkgs.get(name, []) if p.version.split("-")[0] == ver or p.version == ver]
        if vs:
            return (name, "=", vs[0])
    return (name, op, ver)


# ---- pacman ------------------------------------------------------------------------------------------

def cmd_pacman(args):
    m = managers.machine(root_dir())
    flags, targets = "", []
    needed = noconfirm = False
    for a in args:
        if a == "--needed":
            needed = True
        elif a == "--noconfirm":
            noconfirm = True
        elif a == "--print":
            flags += "p"
        elif a.startswith("--"):
            continue
        elif a.startswith("-"):
            flags += a[1:]
        else:
            targets.append(a)
    op = flags[:1]
    if op in ("S", "R") and os.path.exists(m.path("var/lib/pacman/db.lck")):
        raise Exit(1, "error: failed to init transaction (unable to lock database)\nerror: could not lock database: File exists\n"
                      "  if you're sure a package manager is not already running, you can remove /var/lib/pacman/db.lck")
    if op == "Q":
        for n in sorted(m.installed) if not targets else targets:
            if n not in m.installed:
                raise Exit(1, "error: package '%s' was not found" % n)
            out(n if "q" in flags else "%s %s" % (n, m.installed[n].version))
        return 0
    if op == "S":
        if "y" in flags:
            for r in m.world.repos:
                m.write("var/lib/pacman/sync/%s.db" % r, "synced\n")
            out(":: Synchronizing package databases...")
        if "u" in flags:
            upgrade_all(m, backtrack=False, allow_new=True)
        if not targets:
            return 0
        for n in targets:
            if not m.candidates(n) and not m.world.providers.get(n):
                raise Exit(1, "error: target not found: %s" % n)
        reqs = [(n, None, None) for n in targets if not (needed and n in m.installed and m.candidates(n)
                                                           and m.candidates(n)[0].version == m.installed[n].version)]
        try:
            t = install_plan(m, reqs, backtrack=False, recommends=False)
        except Problem as p:
            if p.kind == "conflict":
                raise Exit(1, "error: unresolvable package conflicts detected\nerror: failed to prepare transaction (conflicting dependencies)\n:: %s" % p.message)
            rel = re.search(r"Depends: (\S+)", p.message)
            raise Exit(1, "error: failed to prepare transaction (could not satisfy dependencies)\n:: unable to satisfy dependency '%s' required by %s"
                          % (rel.group(1) if rel else "?", p.message.split(" : ")[0]))
        if t.remove:
            if not noconfirm:
                raise Exit(1, ":: %s and %s are in conflict. Remove %s? [y/N] \nerror: unresolvable package conflicts detected" % (sorted(t.add)[0], sorted(t.remove)[0], sorted(t.remove)[0]))
            raise Exit(1, "error: unresolvable package conflicts detected\nerror: failed to prepare transaction (conflicting dependencies)\n:: %s and %s are in conflict"
                          % (sorted(t.add)[0], sorted(t.remove)[0]))
        if not noconfirm:
            raise Exit(1, ":: Proceed with installation? [Y/n] \nerror: aborted")
        apply(m, t)
        out("(%d/%d) installing %s" % (len(t.add), len(t.add), " ".join(sorted(t.add))))
        return 0
    if op == "R":
        for n in targets:
            if n not in m.installed:
                raise Exit(1, "error: target not found: %s" % n)
        gone = removal_closure(m, set(targets))
        if gone - set(targets) and "c" not in flags:
            other = sorted(gone - set(targets))[0]
            dep = [str(a) for alts in m.depends_of(other) for a in alts if a.name in targets]
            raise Exit(1, "error: failed to prepare transaction (could not satisfy dependencies)\n:: removing %s breaks dependency '%s' required by %s"
                          % (targets[0], dep[0] if dep else targets[0], other))
        if "s" in flags:
            gone |= unneeded(m, gone)
        if "p" in flags:  # --print: the targets, and nothing done
            for n in sorted(gone):
                out(n)
            return 0
        if not noconfirm:
            raise Exit(1, ":: Do you want to remove these packages? [Y/n] \nerror: aborted")
        t = pkgworld.Transaction(m, False)
        t.remove = gone
        apply(m, t)
        out("removing %s" % " ".join(sorted(gone)))
        return 0
    raise Exit(1, "error: this stand-in does not model pacman -%s" % flags)


# ---- kernel and boot tools ---------------------------------------------------------------------------

def secure_boot(m):
    try:
        with open(m.path("sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c"), "rb") as f:
            d = f.read()
        return len(d) >= 5 and d[4] == 1
    except OSError:
        return None


def cmd_mokutil(args):
    m = managers.machine(root_dir())
    need_cmd(m, "mokutil")
    if "--sb-state" in args:
        sb = secure_boot(m)
        if sb is None:
            raise Exit(255, "EFI variables are not supported on this system")
        out("SecureBoot %s" % ("enabled" if sb else "disabled"))
        return 0
    if "--import" in args:
        f = args[args.index("--import") + 1]
        if not os.path.isfile(m.path(f)):
            raise Exit(255, "Failed to open %s" % f)
        m.write("var/lib/pkgworld/mok-pending", f + "\n")
        return 0
    if "--list-new" in args:
        out(m.read("var/lib/pkgworld/mok-pending", "") or "MokNew is empty")
        return 0
    raise Exit(255, "mokutil: this stand-in models --sb-state, --import and --list-new")


def dkms_version(m):
    i = m.installed.get("dkms")
    return i.version if i else None


def cmd_dkms(args):
    m = managers.machine(root_dir())
    v = dkms_version(m)
    if v is None and has_cmd(m, "dkms") is False:
        raise Exit(127, "dkms: command not found")
    need_cmd(m, "dkms")
    op = args[0] if args else ""
    mods = [(n, w) for n, w, _ in m.module_sources() if w == "dkms"]
    if op == "status":
        for n, _ in mods:
            for k in m.kernels():
                if os.path.exists(m.path("lib/modules/%s/updates/pkgworld/nvidia.ko" % k)):
                    out("nvidia/%s, %s, x86_64: installed" % (m.installed[n].version.split("-")[0], k))
        return 0
    if op == "autoinstall":
        k = args[args.index("-k") + 1] if "-k" in args else pkgworld.running_kernel(m.root)
        if not mods:
            return 0
        if k not in m.headers():
            raise Exit(1, "Error! Your kernel headers for kernel %s cannot be found at /lib/modules/%s/build or /lib/modules/%s/source." % (k, k, k))
        d = m.path("lib/modules/%s/updates/pkgworld" % k)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "nvidia.ko"), "wb") as f:
            f.write(b"\x7fELF pkgworld nvidia module\n~Module signature appended~\n")
        return 0
    if op in ("install", "remove", "build") and len(args) >= 2:
        # dkms install|build|remove MODULE/VERSION -k KERNEL: one module for one kernel; a build needs that
        # kernel's headers (/lib/modules/K/build), as autoinstall does.
        k = args[args.index("-k") + 1] if "-k" in args else pkgworld.running_kernel(m.root)
        name = args[1].split("/")[0]
        if not mods or not name.startswith("nvidia"):
            raise Exit(3, "Error! The module/version combo: %s is not located in the DKMS tree." % args[1])
        f = m.path("lib/modules/%s/updates/pkgworld/nvidia.ko" % k)
        if op == "remove":
            if os.path.exists(f):
                os.unlink(f)
            return 0
        if k not in m.headers() and not os.path.isdir(m.path("lib/modules/%s/build" % k)):
            raise Exit(1, "Error! Your kernel headers for kernel %s cannot be found at /lib/modules/%s/build or /lib/modules/%s/source." % (k, k, k))
        if op == "install":
            os.makedirs(os.path.dirname(f), exist_ok=True)
            with open(f, "wb") as fh:
                fh.write(b"\x7fELF pkgworld nvidia module\n~Module signature appended~\n")
        return 0
    if op == "generate_mok":
        if v and m.world.cmp(v, "3.1") < 0:
            raise Exit(1, 'Error! Unknown action specified: "generate_mok"')
        for f in ("var/lib/dkms/mok.key", "var/lib/dkms/mok.pub"):
            if m.read(f) is None:
                m.write(f, "pkgworld DKMS key\n")
        return 0
    raise Exit(1, 'Error! Unknown action specified: "%s"' % op)


def cmd_initramfs(name, args):
    m = managers.machine(root_dir())
    need_cmd(m, name)
    m.write("var/lib/pkgworld/initramfs", "%s %s\n" % (name, " ".join(args)))
    return 0


def cmd_modprobe(args):
    m = managers.machine(root_dir())
    remove = "-r" in args or "--remove" in args
    names = [a for a in args if not a.startswith("-")]
    for n in names:
        mod = m.path("sys/module/" + n)
        if remove:
            if os.path.isdir(mod):
                for f in os.listdir(mod):
                    os.unlink(os.path.join(mod, f))
                os.rmdir(mod)
            continue
        if n != "nvidia" or os.path.isdir(mod):
            continue
        k = pkgworld.running_kernel(m.root)
        f = m.path("lib/modules/%s/updates/pkgworld/nvidia.ko" % k)
        if not os.path.exists(f):
            found = False
            for dp, _, fs in os.walk(m.path("lib/modules/%s" % k)):
                found |= any(x.startswith("nvidia.ko") for x in fs)
            if not found:
                raise Exit(1, "modprobe: FATAL: Module nvidia not found in directory /lib/modules/%s" % k)
        if os.path.isdir(m.path("sys/module/nouveau")):
            raise Exit(1, "modprobe: ERROR: could not insert 'nvidia': No such device")
        os.makedirs(mod, exist_ok=True)
    return 0


def cmd_systemctl(args):
    m = managers.machine(root_dir())
    names = [a for a in args if not a.startswith("-")]
    if not names:
        raise Exit(1, "Too few arguments.")
    suffixes = (".service", ".path", ".socket", ".timer")
    op, units = names[0], [u if u.endswith(suffixes) else u + ".service" for u in names[1:]]
    # Units the installed packages ship, each line "UNIT [MODULE]" (service=NAME, NAME.path): the kernel module it
    # needs loaded to stay up (service_needs=: the fabric manager exits without its NVSwitch driver, FM-START in
    # worlds/SOURCES.md); and unit files an administrator put in place.
    known = {}
    for line in (m.read("var/lib/pkgworld/units", "") or "").splitlines():
        if line.split():
            k = line.split()[0]
            known[k if k.endswith(suffixes) else k + ".service"] = line.split()[1] if len(line.split()) > 1 else None
    for d in ("etc/systemd/system", "lib/systemd/system", "usr/lib/systemd/system"):
        if os.path.isdir(m.path(d)):
            for f in os.listdir(m.path(d)):
                if f.endswith(suffixes):
                    known.setdefault(f, None)
    for u in units:
        base = u
        if op == "reload" and m.read("var/lib/pkgworld/active/" + u) is None:
            raise Exit(1, "%s is not active, cannot reload." % u)
        if op in ("enable", "start", "restart", "reload") and base not in known:
            raise Exit(1 if op == "enable" else 5, ("Failed to enable unit: Unit file %s does not exist." if op == "enable"
                                                     else "Failed to start %s: Unit %s not found.") % (u, u) if op == "enable" else
                       "Failed to start %s: Unit %s not found." % (u, u))
        starts = op in ("start", "restart") or (op == "enable" and "--now" in args)
        needs = known.get(base)
        wants = "etc/systemd/system/multi-user.target.wants/" + u
        if op == "enable":
            m.write(wants, "# enabled (pkgworld stand-in)\n")
        if starts and needs and not os.path.isdir(m.path("sys/module/" + needs)):
            raise Exit(1, "Job for %s failed because the control process exited with error code.\n"
                          "See \"systemctl status %s\" and \"journalctl -xe\" for details." % (u, u))
        if op == "enable":
            if "--now" in args:
                m.write("var/lib/pkgworld/active/" + u, "active\n")
        elif op == "disable":
            if os.path.exists(m.path(wants)):
                os.unlink(m.path(wants))
        elif op in ("start", "restart", "reload"):
            m.write("var/lib/pkgworld/active/" + u, "active\n")
            if os.environ.get("STANDIN_RESTARTS"):  # what a test needs to judge: which engine restarted, in order
                with open(os.environ["STANDIN_RESTARTS"], "a") as f:
                    f.write("%s %s\n" % (op, u))
        elif op == "is-enabled":
            if not os.path.exists(m.path(wants)):
                out("disabled")
                return 1
            out("enabled")
        elif op == "is-active":
            if m.read("var/lib/pkgworld/active/" + u) is None:
                out("inactive")
                return 3
            out("active")
    return 0


# ---- dispatch ----------------------------------------------------------------------------------------

def main(argv):
    name = os.path.basename(argv[0])
    args = argv[1:]
    line = " ".join([name] + args)
    if os.environ.get("STANDIN_LOG"):
        with open(os.environ["STANDIN_LOG"], "a") as f:
            f.write(json.dumps([name] + args) + "\n")
    if os.environ.get("STANDIN_ENV_LOG"):  # the environment a front end ran with, for a test to judge
        with open(os.environ["STANDIN_ENV_LOG"], "a") as f:
            f.write(json.dumps({"tool": name, "DEBIAN_FRONTEND": os.environ.get("DEBIAN_FRONTEND")}) + "\n")
    # STANDIN_HOLD and STANDIN_FAIL match the command as the test names it: apt's "-o OPTION=V" pairs left out.
    named, i = [name], 0
    while i < len(args):
        if name.startswith("apt") and args[i] == "-o" and i + 1 < len(args):
            i += 2
            continue
        named.append(args[i])
        i += 1
    line = " ".join(named)
    hold = os.environ.get("STANDIN_HOLD", "")  # "PREFIX=FILE": say so, then wait (60 s at most) for FILE
    if hold and line.startswith(hold.split("=", 1)[0]):
        out("stand-in: %s holds until %s exists" % (name, hold.split("=", 1)[1]))
        sys.stdout.flush()
        for _ in range(1200):
            if os.path.exists(hold.split("=", 1)[1]):
                break
            time.sleep(0.05)
    for pat in filter(None, os.environ.get("STANDIN_FAIL", "").split(",")):
        if line.startswith(pat):
            err("E: %s failed (stand-in)" % pat)
            return 100
    try:
        if name == "apt-get":
            return cmd_apt_get(args)
        if name == "apt-mark":
            return cmd_apt_mark(args)
        if name == "dpkg":
            return cmd_dpkg(args)
        if name == "dpkg-query":
            return cmd_dpkg_query(args)
        if name == "dnf":
            return cmd_dnf(args)
        if name == "rpm":
            return cmd_rpm(args)
        if name == "subscription-manager":
            return cmd_subscription_manager(args)
        if name == "zypper":
            return cmd_zypper(args)
        if name == "pacman":
            return cmd_pacman(args)
        if name == "mokutil":
            return cmd_mokutil(args)
        if name == "dkms":
            return cmd_dkms(args)
        if name in ("update-initramfs", "dracut", "mkinitcpio"):
            return cmd_initramfs(name, args)
        if name == "modprobe":
            return cmd_modprobe(args)
        if name == "depmod":
            return 0
        if name == "systemctl":
            return cmd_systemctl(args)
        err("pkgworld: no stand-in for %s" % name)
        return 127
    except Exit as e:
        if e.message:
            err(e.message)
        return e.code
    finally:
        sys.stdout.flush()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
