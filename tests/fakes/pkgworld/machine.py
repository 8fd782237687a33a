# SPDX-License-Identifier: MIT
"""Tests' side: make a fixture root a machine of a world (setup), link the stand-ins (link_bin), and
boot it (boot: the kernel the boot loader would pick, and whether an nvidia module is there for it)."""
import json
import os

import managers
import pkgworld

HERE = os.path.dirname(os.path.abspath(__file__))
STANDIN = os.path.join(HERE, "standin")


def link_bin(bin_dir, tools=None):
    """Link every front end (or @tools) into @bin_dir; point CUDAUP_SYSTEM_BIN there."""
    import cli
    os.makedirs(bin_dir, exist_ok=True)
    for t in tools or cli.TOOLS:
        p = os.path.join(bin_dir, t)
        if not os.path.lexists(p):
            os.symlink(STANDIN, p)
    return bin_dir


def setup(root, world, repos=None, installed=(), synthetic=(), held=(), modules=None, trusted=()):
    """Make @root a machine of @world (file names under data/driver/worlds, or paths).

    repos: the repositories enabled at the start (apt: [(uri, suite, [components])] written to
    etc/apt/sources.list; dnf: repository ids written to .repo files, the world's `default=` rows when
    None; zypper: {alias: url}; pacman: repository names).  installed: names (their best allowed
    version, dependencies resolved) or (name, version) installed on top of the world's `base` packages.
    synthetic: installed packages the world does not carry (rows like the world's: name, version,
    depends, provides, extra), such as the running kernel of an older ABI.  modules: dnf module streams
    enabled at the start ({module: stream}).  Returns the Machine."""
    files = [world] if isinstance(world, str) else list(world)
    w = pkgworld.World([f if os.path.isabs(f) else os.path.join(pkgworld.WORLDS, f) for f in files])
    os.makedirs(os.path.join(root, "var/lib/pkgworld"), exist_ok=True)
    with open(os.path.join(root, "var/lib/pkgworld/world"), "w") as f:
        f.write(" ".join(files) + "\n")
    rows = [dict({"kind": "pkg", "repo": "@System", "depends": "", "recommends": "", "provides": "", "conflicts": "",
                  "extra": "", "source": "fixture", "confidence": "fixture"}, **r) for r in synthetic]
    with open(os.path.join(root, "var/lib/pkgworld/synthetic.json"), "w") as f:
        json.dump(rows, f, indent=1)
    mgr = w.manager
    if mgr == "apt":
        srcs = repos if repos is not None else default_apt_sources(w)
        os.makedirs(os.path.join(root, "etc/apt/sources.list.d"), exist_ok=True)
        with open(os.path.join(root, "etc/apt/sources.list"), "w") as f:
            for uri, suite, comps in srcs:
                f.write("deb %s %s %s\n" % (uri, suite, " ".join(comps)))
        for d in ("var/lib/dpkg/updates", "var/lib/dpkg/info", "var/lib/apt/lists"):
            os.makedirs(os.path.join(root, d), exist_ok=True)
        for fn in ("var/lib/dpkg/status", "var/lib/dpkg/available"):
            open(os.path.join(root, fn), "a").close()
    elif mgr == "dnf":
        ids = repos if repos is not None else [r for r, d in w.repos.items() if d.get("default") in ("enabled", "disabled")]
        byfile = {}
        for rid in ids:
            d = w.repos[rid]
            sec = d.get("section") if isinstance(d.get("section"), str) else rid
            byfile.setdefault(d.get("file") or rid, []).append(
                "[%s]\nname=%s\nbaseurl=%s\nenabled=%d\ngpgcheck=1\n" % (sec, sec, d.get("url", ""), d.get("default") != "disabled"))
        os.makedirs(os.path.join(root, "etc/yum.repos.d"), exist_ok=True)
        for fn, secs in byfile.items():
            with open(os.path.join(root, "etc/yum.repos.d/%s.repo" % fn), "w") as f:
                f.write("\n".join(secs))
        for mod, stream in (modules or {}).items():
            os.makedirs(os.path.join(root, "etc/dnf/modules.d"), exist_ok=True)
            with open(os.path.join(root, "etc/dnf/modules.d/%s.module" % mod), "w") as f:
                f.write("[%s]\nname=%s\nstream=%s\nprofiles=\nstate=enabled\n" % (mod, mod, stream))
    elif mgr == "zypper":
        reps = repos if repos is not None else {r: d["url"] for r, d in w.repos.items() if d.get("default") == "enabled"}
        os.makedirs(os.path.join(root, "etc/zypp/repos.d"), exist_ok=True)
        for alias, url in reps.items():
            with open(os.path.join(root, "etc/zypp/repos.d/%s.repo" % alias), "w") as f:
                f.write("[%s]\nname=%s\nenabled=1\nautorefresh=1\nbaseurl=%s\ntype=rpm-md\ngpgcheck=1\n" % (alias, alias, url))
        with open(os.path.join(root, "var/lib/pkgworld/zypp-trusted"), "w") as f:
            f.write(" ".join(sorted(set(trusted) | {r for r, d in w.repos.items() if d.get("default") == "enabled"})) + "\n")
    elif mgr == "pacman":
        for r in (repos if repos is not None else list(w.repos)):
            os.makedirs(os.path.join(root, "var/lib/pacman/sync"), exist_ok=True)
            open(os.path.join(root, "var/lib/pacman/sync/%s.db" % r), "w").write("synced\n")
    m = managers.machine(root, w)
    if mgr == "apt":
        m.update()
    # The base system: every `base` package at its best allowed version, then the synthetic ones.
    for name, vers in sorted(w.pkgs.items()):
        if any(p.extra.get("base") for p in vers):
            c = m.candidates(name) or [p for p in vers if p.extra.get("base")]
            m.installed[name] = pkgworld.Installed(name, c[0].version, repo=c[0].repo)
    for r in rows:
        m.installed[r["name"]] = pkgworld.Installed(r["name"], r["version"], repo="@System")
    if mgr == "apt":
        m.dpkg_paras = {}
        for r in rows:
            m.dpkg_paras[r["name"]] = {"Package": r["name"], "Status": "install ok installed", "Priority": "optional",
                                       "Architecture": "amd64", "Version": r["version"]}
    m.save()
    for req in installed:
        m = managers.machine(root, w)
        name, ver = (req, None) if isinstance(req, str) else req
        t = pkgworld.install_plan(m, [(name, "=" if ver else None, ver)], backtrack=mgr != "apt", recommends=False)
        pkgworld.apply(m, t)
    if held:
        m = managers.machine(root, w)
        for n in held:
            m.installed[n].held = True
        m.save()
    return managers.machine(root, w)


# Debian 12's apt sources with every component, in all three of its suites (what cudaup's plan enables there).
DEBIAN_ARCHIVE = "http://deb.debian.org/debian"
DEBIAN_COMPONENTS = ["main", "contrib", "non-free", "non-free-firmware"]
DEBIAN12_SOURCES = [(DEBIAN_ARCHIVE, "bookworm", DEBIAN_COMPONENTS), (DEBIAN_ARCHIVE, "bookworm-updates", DEBIAN_COMPONENTS),
                    (DEBIAN_ARCHIVE + "-security", "bookworm-security", DEBIAN_COMPONENTS)]


def default_apt_sources(w):
    """Every suite of the world with every component (Ubuntu's cloud images), main only on Debian."""
    out = {}
    for rid, r in w.repos.items():
        if r.get("flat") or not r.get("suite"):
            continue
        if w.meta.get("distro") == "debian" and r.get("component") != "main":
            continue
        out.setdefault((r["url"], r["suite"]), []).append(r["component"])
    return [(u, s, c) for (u, s), c in sorted(out.items())]


def boot(root, running=None, write=True):
    """Reboot the fixture: the boot loader's kernel (the newest installed; on Arch, the running kernel's
    package), /proc/version rewritten (not with @write false: an image, which has no /proc, only looked at), and
    {kernel, module, signed} of the nvidia module for it."""
    m = managers.machine(root)
    cur = running or pkgworld.running_kernel(root)
    cands = []
    for n, i in m.installed.items():
        p = m.installed_pkg(n)
        if p and isinstance(p.extra.get("kernel"), str):
            cands.append((n, i.version, p.extra["kernel"]))
    pkgbase = m.read("lib/modules/%s/pkgbase" % cur) if cur else None
    if pkgbase:
        same = [c for c in cands if c[0] == pkgbase.strip()]
        cands = same or cands
    k = cur
    if cands:
        best = cands[0]
        for c in cands[1:]:
            if m.world.cmp(c[1], best[1]) > 0:
                best = c
        k = best[2]
    if write:
        with open(os.path.join(root, "proc/version"), "w") as f:
            f.write("Linux version %s (pkgworld) #1 SMP\n" % k)
    osr = os.path.join(root, "proc/sys/kernel/osrelease")
    if write and os.path.exists(osr):
        with open(osr, "w") as f:
            f.write(k + "\n")
    mod = None
    for dp, _, fs in os.walk(os.path.join(root, "lib/modules", k)):
        for f in fs:
            if f.startswith("nvidia.ko"):
                mod = os.path.join(dp, f)
    signed = None
    if mod:
        with open(mod, "rb") as fh:
            signed = fh.read().endswith(b"~Module signature appended~\n")
    return {"kernel": k, "module": mod, "signed": signed}
