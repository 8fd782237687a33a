# SPDX-License-Identifier: MIT
"""Reading wheels' metadata from PyPI without downloading them (for scripts/pytorch-companions and
scripts/cuda-wheel-components): PEP 691 JSON pages of the simple index, and each wheel's
.dist-info/METADATA read with HTTP Range requests (the zip's end record and central directory, then
that one member), since PyPI serves no PEP 658 .metadata files to these machines."""
import json
import re
import struct
import time
import urllib.error
import urllib.request
import zlib

SIMPLE = "https://pypi.org/simple/%s/"


class Unreachable(Exception):
    """PyPI could not be reached (network), as opposed to an answer not understood."""


def fetch(url, headers=None):
    req = urllib.request.Request(url, headers=dict(headers or {}, **{"User-Agent": "cudaup-data-scripts"}))
    for attempt in range(4):
        try:
            with urllib.request.urlopen(req, timeout=120) as r:
                return r.read()
        except urllib.error.HTTPError:
            raise
        except (urllib.error.URLError, OSError) as e:
            if attempt == 3:
                raise Unreachable("%s: %s" % (url, e))
            time.sleep(2 * (attempt + 1))


def vkey(v):
    return tuple(int(p) for p in re.findall(r"\d+", v))


def final(v):
    return re.fullmatch(r"\d+(\.\d+)*", v) is not None


def files(project):
    """The files of @project, as PyPI's PEP 691 JSON page lists them."""
    return json.loads(fetch(SIMPLE % project, {"Accept": "application/vnd.pypi.simple.v1+json"})).get("files", [])


def wheels(project, platform=r"([^-]*linux[^-]*x86_64[^-]*)"):
    """{version: [(file name, url), ...]} of @project's final releases' wheels whose platform tag matches
    @platform (default: Linux x86_64), yanked files left out."""
    out = {}
    for f in files(project):
        m = re.match(r"[^-]+-([^-]+)-([^-]+)-([^-]+)-%s\.whl$" % platform, f["filename"])
        if not m or f.get("yanked") or not final(m.group(1)):
            continue
        out.setdefault(m.group(1), []).append((f["filename"], f["url"]))
    return out


def metadata(url):
    """The .dist-info/METADATA text of the wheel at @url, read with HTTP Range requests."""
    tail = fetch(url, {"Range": "bytes=-65536"})
    i = tail.rfind(b"PK\x05\x06")
    if i < 0:
        raise ValueError("%s: no zip end record" % url)
    cd_size, cd_off = struct.unpack_from("<II", tail, i + 12)
    j = tail.rfind(b"PK\x06\x06")  # zip64
    if j >= 0:
        cd_size, cd_off = struct.unpack_from("<QQ", tail, j + 40)
    cd = fetch(url, {"Range": "bytes=%d-%d" % (cd_off, cd_off + cd_size - 1)})
    k = 0
    while k + 46 <= len(cd) and cd[k:k + 4] == b"PK\x01\x02":
        method, = struct.unpack_from("<H", cd, k + 10)
        csize, = struct.unpack_from("<I", cd, k + 20)
        nlen, xlen, clen = struct.unpack_from("<HHH", cd, k + 28)
        off, = struct.unpack_from("<I", cd, k + 42)
        name = cd[k + 46:k + 46 + nlen].decode()
        if re.fullmatch(r"[^/]+\.dist-info/METADATA", name):
            head = fetch(url, {"Range": "bytes=%d-%d" % (off, off + 29)})
            ln, lx = struct.unpack_from("<HH", head, 26)
            start = off + 30 + ln + lx
            data = fetch(url, {"Range": "bytes=%d-%d" % (start, start + csize - 1)})
            return (data if method == 0 else zlib.decompress(data, -15)).decode("utf-8", "replace")
        k += 46 + nlen + xlen + clen
    raise ValueError("%s: no METADATA" % url)


def canon(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def requires(meta):
    """[(name, specifier, marker)] of the Requires-Dist lines of @meta (name normalized, specifier without
    spaces or parentheses)."""
    out = []
    for line in meta.splitlines():
        if not line.startswith("Requires-Dist:"):
            continue
        req, _, marker = line.split(":", 1)[1].partition(";")
        m = re.match(r"\s*([A-Za-z0-9_.-]+)(\[[^\]]*\])?\s*(.*)$", req)
        if m:
            out.append((canon(m.group(1)), re.sub(r"[\s()]", "", m.group(3)), marker.strip()))
    return out
