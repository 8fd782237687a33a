# SPDX-License-Identifier: MIT
"""Reading PyPI the way cudaup's research scripts do (scripts/refresh-pypi, scripts/pypi-check): the PEP 691 JSON
simple index of a project, and a wheel's METADATA without downloading the wheel -- the PEP 658 `.metadata` file where
the index serves one, else the zip's central directory and that one member through HTTP Range requests (PyPI's file
host answers 206; from these machines the index lists no core-metadata and answers 404 for `.metadata`).

Not a module of cudaup itself: the scripts that keep data/compat current import it (stdlib only)."""
import json
import re
import struct
import urllib.error
import urllib.request
import zlib

INDEX = "https://pypi.org/simple/"
UA = "cudaup-research (scripts/pypilib.py)"


def fetch(url, headers=None, timeout=120):
    hdrs = {"User-Agent": UA}
    hdrs.update(headers or {})
    with urllib.request.urlopen(urllib.request.Request(url, headers=hdrs), timeout=timeout) as r:
        return r.read()


def canon(name):
    """PEP 503 normalized project name."""
    return re.sub(r"[-_.]+", "-", name).lower()


def project(name, index=INDEX):
    """The PEP 691 JSON page of @name: {"versions": [...], "files": [{"filename", "url", "hashes", "yanked", ...}]}."""
    return json.loads(fetch(index + canon(name) + "/", {"Accept": "application/vnd.pypi.simple.v1+json"}))


def reachable(index=INDEX):
    try:
        project("pip", index)
        return True
    except (OSError, urllib.error.URLError, ValueError):
        return False


PRE = re.compile(r"(a|b|rc|dev)\d*")


def vkey(v):
    """A sort key for the versions these projects use: 2.22.0rc0 sorts before 2.22.0, 0.12.0.1 after 0.12.0."""
    m = re.match(r"^(\d+(?:\.\d+)*)(?:(a|b|rc|\.dev|dev)(\d*))?(?:\.post\d+)?$", v)
    if not m:
        return ((), 9, 0)
    nums = tuple(int(x) for x in m.group(1).split("."))
    nums = nums + (0,) * (4 - len(nums))
    pre = {"dev": 0, ".dev": 0, "a": 1, "b": 2, "rc": 3, None: 4}[m.group(2)]
    return (nums, pre, int(m.group(3) or 0))


def is_pre(v):
    return bool(re.search(r"(a|b|rc|dev)\d*$", v))


def wheel_files(page, version, name):
    """The wheel files of release @version of project @name (not yanked)."""
    stem = re.sub(r"[-_.]+", "_", name).lower() + "-" + version + "-"
    return [f for f in page["files"]
            if f["filename"].lower().startswith(stem) and f["filename"].endswith(".whl") and not f.get("yanked")]


def _zip_member(url, want):
    """The member of the zip at @url whose name matches the regex @want, read with Range requests."""
    tail = fetch(url, {"Range": "bytes=-65536"})
    i = tail.rfind(b"PK\x05\x06")
    if i < 0:
        raise ValueError("%s: no zip end record in the last 64 KiB" % url)
    cd_size, cd_off = struct.unpack_from("<II", tail, i + 12)
    j = tail.rfind(b"PK\x06\x06")  # zip64 end record
    if j >= 0:
        cd_size, cd_off = struct.unpack_from("<QQ", tail, j + 40)
    cd = fetch(url, {"Range": "bytes=%d-%d" % (cd_off, cd_off + cd_size - 1)})
    if len(cd) != cd_size:
        raise ValueError("%s: the server did not honour the Range request" % url)
    p = 0
    while p + 46 <= len(cd) and cd[p:p + 4] == b"PK\x01\x02":
        method, = struct.unpack_from("<H", cd, p + 10)
        csize, usize = struct.unpack_from("<II", cd, p + 20)
        nlen, elen, clen = struct.unpack_from("<HHH", cd, p + 28)
        off, = struct.unpack_from("<I", cd, p + 42)
        fname = cd[p + 46:p + 46 + nlen].decode("utf-8", "replace")
        extra = cd[p + 46 + nlen:p + 46 + nlen + elen]
        q = 0
        while q + 4 <= len(extra):  # zip64 extended information
            hid, hlen = struct.unpack_from("<HH", extra, q)
            if hid == 1:
                vals = list(struct.unpack_from("<%dQ" % (hlen // 8), extra, q + 4))
                if usize == 0xFFFFFFFF:
                    usize = vals.pop(0)
                if csize == 0xFFFFFFFF:
                    csize = vals.pop(0)
                if off == 0xFFFFFFFF:
                    off = vals.pop(0)
            q += 4 + hlen
        if re.fullmatch(want, fname):
            head = fetch(url, {"Range": "bytes=%d-%d" % (off, off + 29)})
            hn, he = struct.unpack_from("<HH", head, 26)
            start = off + 30 + hn + he
            data = fetch(url, {"Range": "bytes=%d-%d" % (start, start + csize - 1)})
            if method == 8:
                data = zlib.decompress(data, -15)
            elif method != 0:
                raise ValueError("%s: %s is compressed with method %d" % (url, fname, method))
            return data
        p += 46 + nlen + elen + clen
    raise ValueError("%s: no member matches %s" % (url, want))


def wheel_metadata(f):
    """(METADATA text, how it was read) of the wheel file entry @f of a PEP 691 page."""
    if f.get("core-metadata") or f.get("dist-info-metadata"):
        try:
            return fetch(f["url"] + ".metadata").decode("utf-8"), "PEP 658 .metadata file"
        except urllib.error.HTTPError:
            pass
    data = _zip_member(f["url"], r"[^/]+\.dist-info/METADATA")
    return (data.decode("utf-8"),
            "wheel .dist-info/METADATA read by HTTP Range (PyPI serves no .metadata for it)")


def requires_dist(metadata):
    """[(name with extras, specifier, marker)] of the Requires-Dist lines of @metadata."""
    out = []
    for line in metadata.splitlines():
        if not line.startswith("Requires-Dist:"):
            if not line.strip():
                break  # the body starts
            continue
        req = line.split(":", 1)[1].strip()
        marker = ""
        if ";" in req:
            req, marker = [x.strip() for x in req.split(";", 1)]
        m = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*(?:\[[^\]]*\])?)\s*\(?([^)]*)\)?$", req)
        if not m:
            continue
        spec = ",".join(sorted(s.strip() for s in m.group(2).split(",") if s.strip()))
        out.append((m.group(1), spec, marker))
    return out
