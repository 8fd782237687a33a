#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""cudaup plan and list: file:// and http:// mirrors, the cache, bad input and exit codes."""
import json
import os
import re
import shutil
import sys

from cutest import SRCDIR, Tap, machine, run
from httpserver import Server

sys.path.insert(0, os.path.join(SRCDIR, "tests", "fixtures"))
import mkmirror  # noqa: E402
import machines  # noqa: E402

t = Tap()
FIX = os.path.join(SRCDIR, "tests", "fixtures", "nvidia")
MIRROR = "file://" + FIX


def plan(root, env, *args, mirror=MIRROR, cache=None):
    cache = cache or t.tmpdir("cache")
    return run(["plan", "--json", "--root", root, "--mirror", mirror, "--cache-dir", cache,
                "--prefix", "/opt/cu", "--state-dir", "/var/tmp/st"] + list(args), env=env)


root, env = machine(t, "hopper")
r = plan(root, env)
doc = r.json()
t.eq(r.rc, 0, "hopper: plan exits 0", r)
for k in ("cuda", "cudnn", "framework", "downloads", "download_bytes", "steps", "reasons"):
    t.has(doc, k, "plan JSON has %s" % k)
# TensorFlow 2.21 carries sm_90 (read in its wheel) and needs CUDA 12.5+, which driver 550 runs by minor-version
# compatibility: the newest CUDA 12 on the mirror, 12.9.1, with its cuDNN 9.14.0.
t.eq((doc["cuda"]["version"], doc["cuda"]["path"]), ("12.9.1", "/opt/cu/cuda-12.9"), "hopper: CUDA 12.9.1 in PREFIX/cuda-12.9")
t.eq(doc["cudnn"]["version"], "9.14.0", "hopper: cuDNN release label")
t.eq(doc["cudnn"]["cuda_variant"], "12", "hopper: cuDNN's CUDA 12 build")
t.eq(doc["framework"]["name"], "tensorflow", "default framework is TensorFlow")
t.eq(doc["framework"]["version"], "2.21.0", "hopper on 550: TensorFlow 2.21.0 (CUDA 12.5+ by minor-version compatibility)")
t.ok(doc["framework"]["python"], "a Python version is planned")
d0 = doc["downloads"][0]
t.ok(set(d0) >= {"component", "url", "sha256", "size"}, "downloads carry component, url, sha256, size")
t.ok(all(d["url"].startswith(MIRROR + "/cuda/redist/") or d["url"].startswith(MIRROR + "/cudnn/redist/")
         for d in doc["downloads"]), "download URLs are built from the mirror")
t.eq(sum(d["size"] for d in doc["downloads"]), doc["download_bytes"], "download_bytes is the sum")
t.ok("nvidia_driver" not in [d["component"] for d in doc["downloads"]], "the driver is never planned")
t.ok(all(set(s) >= {"installer", "action", "detail"} for s in doc["steps"]), "steps have installer, action, detail")
t.eq([s["installer"] for s in doc["steps"]][:3], ["cuda", "cuda", "cudnn"], "steps in installer order")
t.ok(any("550.54.14" in x for x in doc["reasons"]), "a reason names the driver", doc["reasons"])

# Where the venv goes follows the prefix the user chose; --env-dir names it outright.
t.eq((doc.get("environment") or {}).get("path"), "/opt/cu/cudaup/envs/cudaup-tensorflow",
     "--prefix /opt/cu: the venv goes under the prefix, not /opt/cudaup/envs")
r = plan(root, env, "--env-dir", "/srv/envs")
t.eq(((r.json() or {}).get("environment") or {}).get("path"), "/srv/envs/cudaup-tensorflow", "--env-dir DIR: DIR/NAME")
r = plan(root, env, "--env-dir", "envs")
t.ok(r.rc == 2 and "--env-dir" in r.err, "a relative --env-dir: exit 2", r)
r = run(["install", "--help"])
t.ok(all(x in r.out for x in ("--env-dir DIR", "(default 4)", "/var/lib/cudaup as root", "default cudaup-FRAMEWORK")),
     "--help shows the defaults and the option for the environment's place", r.out)

# Text output.
r = run(["plan", "--root", root, "--mirror", MIRROR, "--cache-dir", t.tmpdir("c")], env=env)
t.ok(r.rc == 0 and "Steps:" in r.out and "Why:" in r.out and "cuda_cudart" in r.out, "text plan", r)

# The cache: a second run over http fetches the listing, not the manifests again.
srv = Server(FIX)
cache = t.tmpdir("httpcache")
r = plan(root, env, mirror=srv.url, cache=cache)
t.eq(r.rc, 0, "http mirror: plan exits 0", r)
t.ok(r.json() and r.json()["cuda"]["version"] == "12.9.1", "http mirror: same choice as file://")
first = len(srv.gets(".json"))
t.ok(first >= 2, "http mirror: manifests were fetched (%d)" % first)
srv.clear()
r = plan(root, env, mirror=srv.url, cache=cache)
t.eq(r.rc, 0, "http mirror, cached: exit 0")
t.eq(srv.gets(".json"), [], "cached manifests are not downloaded again")

# Transient errors are retried; a captive-portal page is bad input; a truncated manifest too.
srv.clear()
srv.fault("/cuda/redist/redistrib_12.9.1.json", status=[503, 500])
r = plan(root, env, mirror=srv.url)
t.eq(r.rc, 0, "503 then 500 then 200: retried and planned", r)
t.eq(len(srv.gets("redistrib_12.9.1.json")), 3, "three requests for the flaky manifest")
srv.fault("/cuda/redist/redistrib_12.9.1.json", html_body=True)
r = plan(root, env, mirror=srv.url)
t.eq(r.rc, 2, "an HTML page instead of a manifest: exit 2", r)
t.ok("not valid JSON" in r.err, "says the manifest is not valid JSON", r)
srv.fault("/cuda/redist/redistrib_12.9.1.json", truncate=100)
r = plan(root, env, mirror=srv.url, cache=t.tmpdir("c"))
t.ok(r.rc in (1, 2), "a manifest cut short: a clear failure, not a plan", r)
srv.fault("/cuda/redist/redistrib_12.9.1.json", status=[404] * 10)
r = plan(root, env, mirror=srv.url, cache=t.tmpdir("c"))
t.eq(r.rc, 0, "a manifest the mirror lacks is skipped", r)
t.ok(r.json()["cuda"]["version"] != "12.9.1", "12.9.1 was not chosen when missing")
srv.fault("/cuda/redist/redistrib_12.9.1.json", status=[500] * 10)
r = plan(root, env, "--retries", "2", mirror=srv.url, cache=t.tmpdir("c"))
t.eq(r.rc, 1, "a mirror that keeps failing: exit 1", r)
t.ok("HTTP 500" in r.err and "--mirror" in r.err, "names the HTTP status and suggests --mirror", r)
t.ok(r.json() and r.json()["error"].endswith("HTTP 500."), "an error is a sentence: it ends with its full stop",
     (r.json() or {}).get("error"))
srv.fault("/cuda/redist/redistrib_12.9.1.json", redirect="file:///etc/passwd")
r = plan(root, env, mirror=srv.url, cache=t.tmpdir("c"))
t.eq(r.rc, 1, "a redirect to file:// is refused", r)
srv.fault("/cuda/redist/redistrib_12.9.1.json", status=[500] * 10)
r = plan(root, env, "--retries", "2", mirror=srv.url, cache=t.tmpdir("c"))
d = r.json() or {}
t.ok(r.rc == 1 and srv.url in d.get("advice", "") and "is up" in d.get("advice", "") and
     "site mirror with --mirror" not in d.get("advice", ""),
     "a mirror given with --mirror that fails: the advice is about that mirror, not to use one", d)
srv.clear()

# A URL that is not a mirror at all (a doubled /compute, a typo): bad input, exit 2, with what a mirror URL is.
for bad in ("file://" + os.path.join(FIX, "cuda"), srv.url + "/compute/compute"):
    r = plan(root, env, mirror=bad, cache=t.tmpdir("c"))
    d = r.json() or {}
    t.ok(r.rc == 2 and "does not look like a mirror" in d.get("error", "") and "cuda/ and cudnn/" in d.get("advice", ""),
         "%s: not a mirror, exit 2, saying what a mirror's URL is" % bad.split("://")[0], d)

# A site mirror without a listing (nginx without autoindex, object storage), holding a hand-copied subset:
# the catalog's releases are asked for newest first, and the plan comes from what is there (issue 25 item 8).
SUB = os.path.join(t.tmpdir("subset"), "m")
shutil.copytree(FIX, SUB)
for prod, keep in (("cuda", "13.0.2"), ("cudnn", "9.14.0")):
    for n in os.listdir(os.path.join(SUB, prod, "redist")):
        if n.startswith("redistrib_") and n != "redistrib_%s.json" % keep:
            os.unlink(os.path.join(SUB, prod, "redist", n))
bare = Server(SUB)
for prod in ("cuda", "cudnn"):
    bare.fault("/%s/redist/" % prod, status=[404] * 100)
root13, env13 = machine(t, "two-gpus")
r = plan(root13, env13, "--framework", "none", mirror=bare.url, cache=t.tmpdir("c"))
d = r.json() or {}
t.ok(r.rc == 0 and (d.get("cuda") or {}).get("version") == "13.0.2" and (d.get("cudnn") or {}).get("version") == "9.14.0",
     "a mirror without a listing holding CUDA 13.0.2 and cuDNN 9.14.0: planned from what it holds", r)
asked = [p for p in bare.gets("") if "redistrib_" in p]
t.ok(asked and not [p for p in asked if p.startswith("/cuda/redist/redistrib_12.")],
     "asked newest first, and none older than the one it holds (%d manifests asked for)" % len(asked), asked)
r = plan(root13, env13, "--framework", "none", "--cudnn", "9.13.0", mirror=bare.url, cache=t.tmpdir("c"))
d = r.json() or {}
t.ok(r.rc != 0 and r.rc != 2 and "9.13.0" in d.get("error", "") + r.err and "9.14.0" in d.get("error", "") + r.err,
     "a cuDNN the mirror lacks: named, with the one it holds", d)
bare.stop()

# A mirror that is down.
down = Server(FIX)
down_url = down.url
down.stop()
r = plan(root, env, "--retries", "1", mirror=down_url, cache=t.tmpdir("c"))
d = r.json() or {}
t.ok(r.rc == 1 and down_url in d.get("advice", ""), "a mirror that is down: exit 1, the advice names that mirror", d)

# A manifest whose label says it is another release (a replayed old manifest).
fake = t.tmpdir("replay")
shutil.copytree(FIX, os.path.join(fake, "m"))
m = os.path.join(fake, "m", "cuda", "redist")
shutil.copy(os.path.join(m, "redistrib_12.2.2.json"), os.path.join(m, "redistrib_12.9.1.json"))
r = plan(root, env, mirror="file://" + os.path.join(fake, "m"))
t.eq(r.rc, 2, "an old manifest under a new name: exit 2", r)
t.ok("12.2.2" in r.err, "names the release it claims to be", r)

# Exit 3 with the number the user needs; exit 2 for malformed wishes.
r = plan(root, env, "--cuda", "12.9", "--framework", "none")
t.eq(r.rc, 3, "CUDA 12.9 on driver 550: exit 3")
t.ok("575.57.08" in r.err and "550.54.14" in r.err, "names the driver needed and the one present", r)
root2, env2 = machine(t, "pascal-cuda13")
r = plan(root2, env2, "--cuda", "13.0", "--framework", "none")
t.eq(r.rc, 3, "CUDA 13 on Pascal: exit 3")
t.ok("6.1" in r.err and "12.9" in r.err, "says CUDA 13 dropped 6.1 and 12.9 is the last", r)
r = plan(root, env, "--framework", "tensorflow==1.14")
t.eq(r.rc, 3, "TensorFlow 1.14: exit 3")
t.ok("CUDA 10.0" in r.err and "9.0" in r.err, "says CUDA 10.0 predates the H100 (data/legacy: CUDA 10.0's newest sm is 7.5)", r)
for bad, what in ((["--cuda", "12.x"], "--cuda"), (["--cudnn", "latest"], "--cudnn"),
                  (["--framework", "caffe"], "--framework"), (["--python", "three"], "--python"),
                  (["--platform", "win64"], "--platform"), (["--env-scope", "global"], "--env-scope"),
                  (["--env-tool", "pipenv"], "--env-tool"), (["--cudnn", "none"], "cannot go with"),
                  (["--framework", "none", "--env-scope", "conda"], "conda"),
                  (["--components", "a b"], "--components"), (["--components", "bogus"], "bogus"),
                  (["--components", "nvidia_driver"], "never installs"), (["--shell-rc", "rel/path"], "--shell-rc")):
    r = plan(root, env, *bad)
    t.ok(r.rc == 2 and what in r.err, "bad %s: exit 2 naming it" % " ".join(bad), r)
# --cudnn none with JAX: jax[cudaNN] brings cuDNN as a pip package, so the CUDA install needs none (it was
# refused as if JAX loaded it from there); jax[cudaNN-local] does load it from there, and stays refused.
for fw in ("jax", "pytorch,jax"):
    r = plan(root, env, "--framework", fw, "--cudnn", "none")
    t.ok(r.rc == 0 and (r.json() or {}).get("cudnn") is None, "--framework %s --cudnn none: planned without a cuDNN in the CUDA install" % fw, r)
r = plan(root, env, "--framework", "jax[cuda12-local]", "--cudnn", "none")
t.ok(r.rc == 2 and "cannot go with" in r.err, "--framework jax[cuda12-local] --cudnn none: exit 2, it loads cuDNN from the CUDA install", r)
r = plan(root, env, mirror="ftp://example.com/x")
t.ok(r.rc == 2 and "ftp" in r.err, "ftp:// mirror: exit 2", r)
r = plan(root, env, mirror="file:///nonexistent/mirror")
t.ok(r.rc == 2 and "does not exist" in r.err, "missing mirror folder: exit 2", r)
root3, env3 = machine(t, "no-gpu")
r = plan(root3, env3)
t.ok(r.rc == 3 and "--cuda" in r.err, "no GPU and auto: exit 3, suggests --cuda", r)
r = plan(root3, env3, "--cuda", "12.6", "--framework", "pytorch")
t.ok(r.rc == 3 and "--framework none" in (r.json() or {}).get("advice", ""),
     "no GPU with --cuda and a framework: doctor's no-gpu error binds the plan (issue 23), advising --framework none", r)
r = plan(root3, env3, "--cuda", "12.6", "--framework", "none")
t.ok(r.rc == 0 and r.json()["cuda"]["version"] == "12.6.3" and r.json()["warnings"],
     "no GPU with --cuda and --framework none: plans it for building, with a warning", r)

# Frameworks.
root4, env4 = machine(t, "two-gpus")
r = plan(root4, env4, "--framework", "pytorch")
d = r.json()
t.ok(r.rc == 0 and d["framework"]["index_url"].endswith("/cu132") and d["cuda"]["version"] == "13.0.2",
     "pytorch on driver 580: PyTorch 2.15's cu132 build (read; cu130 is inferred) and CUDA 13.0", r)
r = plan(root4, env4, "--framework", "jax", "--toolkit", "system")  # the framework's pip alone (the default adds the compiler's)
t.ok(r.rc == 0 and d and r.json()["framework"]["pip"] == ["jax[cuda13]"], "jax: the CUDA 13 wheels that bring their own CUDA", r)
r = plan(root4, env4, "--framework", "jax[cuda13-local]")
t.ok(r.rc == 0 and r.json()["framework"]["pip"] == ["jax[cuda13-local]"]
     and any("NCCL" in w for w in r.json()["warnings"]), "jax[cuda13-local] when asked, saying it needs NCCL", r)
r = plan(root4, env4, "--framework", "pytorch==2.3.1", "--python", "3.11")
t.ok(r.rc == 0 and r.json()["framework"]["pip"][0] == "torch==2.3.1" and r.json()["cuda"]["version"] == "11.8.0",
     "pytorch 2.3.1: cu118 and CUDA 11.8", r)

# list.
r = run(["list", "--json", "--root", root, "--mirror", MIRROR, "--cache-dir", t.tmpdir("c")], env=env)
d = r.json()
t.eq(r.rc, 0, "list exits 0", r)
t.eq(d["from_mirror_listing"], True, "list: versions from the mirror's folder")
vers = [c["version"] for c in d["cuda"]]
t.eq(vers[0], "13.0.2", "list: newest first")
t.ok("12.4.1" in vers and "11.4.4" in vers, "list: every manifest on the mirror")
c = {x["version"]: x for x in d["cuda"]}
t.eq(c["12.4.0"]["runs_on_driver"], True, "list: 12.4.0 runs on 550.54.14")
# The rule plan and verify judge by (issue 49 item 2): 12.4.1 needs 550.54.15 natively, and 550.54.14 runs it by
# minor-version compatibility; CUDA 13 it does not run at all.
t.ok(c["12.4.1"]["runs_on_driver"] is True and c["12.4.1"]["minor_version_compat"] is True and
     c["12.4.0"]["minor_version_compat"] is False and c["12.4.1"]["driver_min"] == "550.54.15" and
     c["13.0.2"]["runs_on_driver"] is False, "list: 12.4.1 needs 550.54.15 natively, runs by compatibility", c["12.4.1"])
t.eq(c["12.4.0"]["installed"], None, "list: 12.4.0 is not installed")
t.eq(c["12.4.1"]["installed"], "/usr/local/cuda-12.4", "list: 12.4.1 is installed in the fixture")
t.ok(d["cudnn"] and d["cudnn"][0]["version"] == "9.14.0", "list: cuDNN releases")
# Text: no cuDNN row ends with an empty cell (a release whose variants the catalog has not recorded
# says where they come from).
# cuDNN 9.19.0: a release the catalog knows by its manifest's hash only, not its CUDA variants.
M919 = os.path.join(t.tmpdir("m919"), "m")
mkmirror.build(M919, cudnn="9.19.0")
r = run(["list", "--root", root, "--mirror", "file://" + M919, "--cache-dir", t.tmpdir("c")],
        env=dict(env, COLUMNS="200"))
rows = r.out.split("cuDNN releases", 1)[-1].split("\n\n", 1)[0].strip().splitlines()
t.ok(r.rc == 0 and any(x.split()[0] == "9.19.0" for x in rows) and all(len(x.split(None, 1)) == 2 for x in rows),
     "list: every cuDNN row names its CUDA variants or where they are read", rows[:5])
# In the user's words (issue 49 item 18: "CUDA variants not recorded: read from its manifest when planned"), for a
# release the catalog knows by its manifest's hash only (9.21.1 today).
blind = [c["version"] for c in json.load(open(os.path.join(SRCDIR, "data", "catalog.json")))["cudnn"] if not c.get("variants")]
if blind:
    MB = os.path.join(t.tmpdir("mblind"), "m")
    mkmirror.build(MB, cudnn=blind[0])
    r = run(["list", "--root", root, "--mirror", "file://" + MB, "--cache-dir", t.tmpdir("c")], env=dict(env, COLUMNS="200"))
    rows = r.out.split("cuDNN releases", 1)[-1].split("\n\n", 1)[0].strip().splitlines()
    row = [x for x in rows if x.split()[0] == blind[0]]
    t.ok(row and "builds for CUDA: not known until a plan reads its manifest" in row[0] and "variants" not in r.out,
         "list: a cuDNN release whose CUDA builds are not known says so plainly", row)
else:
    t.skip("list: a cuDNN release whose CUDA builds are not known", "the catalog knows every release's CUDA builds")
r = run(["list", "12.4", "--json", "--root", root, "--mirror", MIRROR], env=env)
d = r.json()
t.ok(r.rc == 0 and d["version"] == "12.4.1" and any(x["component"] == "libcublas" for x in d["components"]),
     "list 12.4: the components of 12.4.1", r)
t.ok(any(x["component"] == "nvidia_driver" and not x["installable"] for x in d["components"]),
     "list 12.4: the driver is listed as never installed")
r = run(["list", "12.x", "--root", root, "--mirror", MIRROR], env=env)
t.eq(r.rc, 2, "list with a malformed version: exit 2")
r = run(["list", "--root", root, "--mirror", srv.url], env=env)
t.ok(r.rc == 0 and "13.0.2" in r.out, "list over http reads the HTML listing", r)

srv.stop()
# ---- a mirror held to NVIDIA's pinned manifests (as NVIDIA's own server is) ----
root_o, env_o = machine(t, "two-gpus")
off = os.path.join(t.tmpdir("official"), "nvidia")
shutil.copytree(FIX, off)
env_o = dict(env_o, CUDAUP_TEST_OFFICIAL_BASE="file://" + off)
r = plan(root_o, env_o, "--cuda", "12.6", "--framework", "none", mirror="file://" + off)
t.eq(r.rc, 0, "NVIDIA's manifests as published (official_manifest_sha256.csv): accepted", r)
mp = os.path.join(off, "cuda", "redist", "redistrib_12.6.3.json")
m = json.load(open(mp))
m["release_date"] = "2024-01-01"
json.dump(m, open(mp, "w"), indent=2)
r = plan(root_o, env_o, "--cuda", "12.6", "--framework", "none", mirror="file://" + off, cache=t.tmpdir("c-off"))
t.ok(r.rc == 2 and "does not match the checksum cudaup knows" in r.err,
     "a manifest from the official server that differs from the pinned sha256: refused, exit 2", r)
r = plan(root_o, dict(env_o, CUDAUP_TEST_OFFICIAL_BASE=""), "--cuda", "12.6", "--framework", "none",
         mirror="file://" + off, cache=t.tmpdir("c-site"))
t.ok(r.rc == 0 and "differs from the one NVIDIA published" in r.err, "the same manifest on a site mirror: used, with a warning", r)

# ---- an https mirror signed by a CA of its own (a TLS-inspecting proxy's): --ca-cert ----
import subprocess  # noqa: E402
tlsdir = t.tmpdir("tls")
cert, key = os.path.join(tlsdir, "cert.pem"), os.path.join(tlsdir, "key.pem")
gen = subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
                      "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                     capture_output=True, text=True)
if gen.returncode != 0:
    t.skip("an https mirror with a CA of its own", "openssl could not make a certificate: " + gen.stderr[-200:])
else:
    tsrv = Server(FIX, tls=(cert, key))
    root_t, env_t = machine(t, "two-gpus")
    args = ["--cuda", "12.6", "--framework", "none"]
    r = plan(root_t, env_t, *args, mirror=tsrv.url)
    t.ok(r.rc == 1 and "certificate" in r.err.lower(), "an https mirror with an unknown CA: refused, verification on", r)
    r = plan(root_t, env_t, *args, "--ca-cert", cert, mirror=tsrv.url)
    t.eq(r.rc, 0, "--ca-cert FILE: that CA is trusted", r)
    r = plan(root_t, dict(env_t, SSL_CERT_FILE=cert), *args, mirror=tsrv.url)
    t.eq(r.rc, 0, "SSL_CERT_FILE is honoured", r)
    r = plan(root_t, dict(env_t, CURL_CA_BUNDLE=cert), *args, mirror=tsrv.url)
    t.eq(r.rc, 0, "CURL_CA_BUNDLE is honoured", r)
    r = plan(root_t, env_t, *args, "--ca-cert", os.path.join(tlsdir, "missing.pem"), mirror=tsrv.url)
    t.ok(r.rc == 2 and "--ca-cert" in r.err, "--ca-cert with a file that is not there: exit 2", r)
    tsrv.stop()

# ---- each bad environment option: one sentence naming it, exit 2, nothing made (issue 16) ----
# Kepler (issue 49 item 9): the plan installs branch 470 over a 470.82.01 module that runs without its libcuda.
# It said "this machine has 470.42.01 (the driver this plan installs)": the release it counts on, said as the one here.
root, env = machine(t, "kepler")
r = plan(root, env, "--framework", "none", "--driver", "auto")
why = (r.json() or {}).get("reasons", [])
t.ok(r.rc == 0 and not any("this machine has 470.42.01 (" in x for x in why) and
     any("the driver this plan installs is 470.42.01" in x for x in why) and
     any("470.42.01 or newer (branch 470, which this plan installs; 470.82.01 runs now)" in x for x in why),
     "kepler: the reasons name the driver that runs (470.82.01) and the one the plan installs (470.42.01 or newer)", why)

root, env = machine(t, "hopper")
BAD = [(["--env-scope", "global"], "--env-scope"), (["--env-tool", "pip"], "--env-tool"),
       (["--env-tool", "none"], "--env-tool none"), (["--env-scope", "conda", "--framework", "none"], "--env-scope conda"),
       (["--env-scope", "conda", "--env-tool", "none", "--framework", "none"], "--env-scope conda"),
       (["--env-name", "a/b"], "--env-name"), (["--env-name", "-x"], "--env-name"), (["--env-name", ".x"], "--env-name"),
       (["--python-source", "pyenv"], "--python-source"),
       (["--python-source", "cudaup", "--env-tool", "conda"], "--python-source cudaup"),
       (["--index-url", "ftp://pypi.example/simple"], "--index-url"), (["--env-dir", "envs"], "--env-dir"),
       (["--shell-rc", "bashrc"], "--shell-rc"), (["--state-dir", "/tmp/a\nb"], "--state-dir"),
       (["--env-dir", "/tmp/x\ty"], "--env-dir"), (["--prefix", "/tmp/a:b"], "--prefix")]
bad = []
for args, named in BAD:
    st = os.path.join(t.tmpdir("badopt"), "state")
    r = run(["plan", "--root", root, "--mirror", MIRROR, "--state-dir", st] +
            [a if a != "--state-dir" else "--state-dir" for a in args], env=env)
    line = r.err.strip()
    if r.rc != 2 or named not in line or "\n" in line or not line.endswith(".") or os.path.exists(st):
        bad.append((args, r.rc, line))
t.eq(bad, [], "%d bad environment options: each gets one sentence naming it, exit 2, and nothing is made" % len(BAD))

# ---- the shell file that user scope edits follows $SHELL (and ZDOTDIR for zsh) ----
want = {("/bin/zsh", "/z"): "/z/.zshrc", ("/usr/bin/zsh", None): "/h/.zshrc", ("/usr/bin/fish", None):
        "/h/.config/fish/conf.d/cudaup.fish", ("/bin/bash", None): "/h/.bashrc", ("/bin/sh", None): "/h/.profile",
        (None, None): "/h/.profile"}
got = {}
for (shell, zd), path in want.items():
    e = dict(env, HOME="/h")
    e.pop("SHELL", None)
    if shell:
        e["SHELL"] = shell
    if zd:
        e["ZDOTDIR"] = zd
    r = run(["plan", "--json", "--root", root, "--mirror", MIRROR, "--framework", "none", "--env-scope", "user",
             "--prefix", "/opt/cu", "--state-dir", "/var/tmp/st"], env=e)
    steps = [x["detail"] for x in (r.json() or {}).get("steps", []) if x["installer"] == "envvars"]
    got[(shell, zd)] = path if steps and path in steps[0] else steps
t.eq(got, want, "user scope: zsh's .zshrc (in ZDOTDIR), fish's conf.d, bash's .bashrc, else .profile")
e = dict(env)
e.pop("HOME", None)
r = run(["plan", "--json", "--root", root, "--mirror", MIRROR, "--framework", "none", "--env-scope", "user",
         "--prefix", "/opt/cu", "--state-dir", "/var/tmp/st"], env=dict(e, SHELL="/bin/bash", HOME="relative"))
t.ok(r.rc == 0 and "/root/.bashrc" in json.dumps(r.json()), "a HOME that is not absolute: /root's", r)

# ---- which components and which cuDNN build, as asked ----
root, env = machine(t, "hopper")


def comps(*args):
    r = plan(root, env, "--framework", "none", *args)
    return r, sorted(d["component"] for d in (r.json() or {}).get("downloads", []) if d["component"] != "cudnn")


r0, default = comps()
r1, plus = comps("--components", "default,libcufft")
r2, every = comps("--components", "all")
man = json.load(open(os.path.join(FIX, "cuda", "redist", "redistrib_12.4.1.json")))
with_x86 = {k for k, v in man.items() if isinstance(v, dict) and "linux-x86_64" in v}
t.ok(r1.rc == 0 and plus == sorted(set(default) | {"libcufft"}), "--components default,libcufft: the default set and libcufft",
     (default, plus))
t.ok(r2.rc == 0 and set(default) < set(every) <= with_x86 and "nvidia_driver" not in every and "libcufft" in every,
     "--components all: every package with an archive for this platform, never the driver", every)
r = plan(root, env, "--framework", "none", "--cudnn", "9.1.0.70")
t.ok(r.rc == 0 and r.json()["cudnn"]["version"].startswith("9.1.0"), "--cudnn 9.1.0.70: that exact build", r)
r = plan(root, env, "--framework", "none", "--cudnn", "9.1.0.99")
t.ok(r.rc == 3 and "9.1.0.99" in r.err, "--cudnn 9.1.0.99, a build the mirror lacks: exit 3, naming it", r)
r = plan(root, env, "--framework", "none", "--cudnn", "9.3")
t.ok(r.rc == 0 and r.json()["cudnn"]["version"].startswith("9.3.0"), "--cudnn 9.3: the newest 9.3.x", r)

# ---- where the venv goes: --env-dir, then XDG_DATA_HOME, then the prefix, then root's default ----
def env_of(*args, **envx):
    e = dict(env)
    for k, v in envx.items():
        if v is None:
            e.pop(k, None)
        else:
            e[k] = v
    r = run(["plan", "--json", "--root", root, "--mirror", MIRROR, "--state-dir", "/var/tmp/st"] + list(args), env=e)
    return (r.json() or {}).get("environment") or {}


got = {
    "env-dir": env_of("--prefix", "/opt/cu", "--env-dir", "/srv/envs", XDG_DATA_HOME="/x")["path"],
    "xdg": env_of("--prefix", "/opt/cu", XDG_DATA_HOME="/x")["path"],
    "prefix": env_of("--prefix", "/opt/cu", XDG_DATA_HOME=None)["path"],
    "name": env_of("--prefix", "/opt/cu", "--env-name", "mine", XDG_DATA_HOME=None)["path"],
    "pytorch": env_of("--prefix", "/opt/cu", "--framework", "pytorch", XDG_DATA_HOME=None).get("name"),
}
t.eq(got, {"env-dir": "/srv/envs/cudaup-tensorflow", "xdg": "/x/cudaup/envs/cudaup-tensorflow",
           "prefix": "/opt/cu/cudaup/envs/cudaup-tensorflow", "name": "/opt/cu/cudaup/envs/mine",
           "pytorch": "cudaup-pytorch"},
     "the venv's place: --env-dir, else XDG_DATA_HOME, else PREFIX/cudaup/envs; named after the framework or --env-name")
e2 = env_of("--prefix", "/opt/cu", "--framework", "none")
t.ok(e2.get("tool") == "none" and not e2.get("path"), "--framework none: no environment to make", e2)

# ---- What the user reads, and what -v, JSON and the log add (issue 26) ----
two, tenv = machine(t, "two-gpus")


def plan_text(*args):
    return run(["plan", "--root", two, "--mirror", MIRROR, "--cache-dir", t.tmpdir("cache"), "--prefix", "/opt/cu",
                "--state-dir", "/var/tmp/st"] + list(args), env=tenv)


# Data provenance: the reason in plain words; the data row and its citation behind -v and in JSON.
# (PyTorch 2.6's cu118 build, whose GPU code is inferred: TensorFlow's is read in every wheel since issue 34.)
r = plan(two, tenv, "--framework", "pytorch==2.6", "--cuda", "11.8")
doc = r.json() or {}
prov = doc.get("provenance") or []
SRC26 = "not read at release/2.6"  # pytorch_wheel_arch.csv 2.6.x cu118's source
t.ok(r.rc == 0 and any(SRC26 in x.get("source", "") and x.get("reason") in doc.get("reasons", []) for x in prov),
     "plan --json: provenance[] pairs the reason with its data row's source (pytorch_wheel_arch.csv 2.6.x cu118)", prov)
t.ok(not any(".csv" in x for x in doc.get("reasons", [])), "plan --json: reasons[] stay the words the user reads",
     doc.get("reasons"))
ri = plan_text("--framework", "pytorch==2.6", "--cuda", "11.8")
t.ok(ri.rc == 0 and "is inferred (from neighbouring releases and documentation), not read from its wheels." in ri.out and
     ".csv" not in ri.out and "source:" not in ri.out, "plan: the inferred GPU code in plain words, no data file", ri.out)
rv = plan_text("--framework", "pytorch==2.6", "--cuda", "11.8", "-v")
t.ok(re.search(r"\n +source: [^\n]*" + re.escape(SRC26), rv.out),
     "plan -v: the reason's source under it", rv.out)
rt = plan_text("--framework", "tensorflow==2.15")

# The Python reason names the framework's own upper bound, or cudaup's ceiling when the framework goes further.
t.ok("Python 3.11: the newest TensorFlow 2.15.1 supports." in rt.out and "up to 3.12" not in rt.out,
     "TensorFlow 2.15 stops at Python 3.11: the reason says so, not 'up to 3.12'", rt.out)
r20 = plan_text("--framework", "tensorflow==2.20")
t.ok("Python 3.12: TensorFlow 2.20.0 supports 3.9 to 3.13, and cudaup takes the newest up to 3.12" in r20.out,
     "TensorFlow 2.20 goes to 3.13: the reason names cudaup's ceiling", r20.out)

# The plan table counts the Python cudaup brings, and says what its total leaves out.
rp = plan_text("--framework", "tensorflow==2.15", "--python-source", "cudaup", "--components", "cuda_cudart")
m = re.search(r"^(\d+) downloads?, ([^:]+):\n((?:  .*\n)+)", rp.out, re.M)
rows_ = m.group(3).splitlines() if m else []
t.ok(m and int(m.group(1)) == len(rows_) == 3 and any(x.split()[0] == "python" for x in rows_) and
     "and 1 of unpublished size" in m.group(2), "plan: the brought Python is in the count, and the total says one "
     "size is unpublished", rp.out)

# Errors with a next step (issue 35, item 8): a place no install can go is said to be that, before any disk
# figure ("/proc/nope has 0 B free ... No space left on device"), and each refusal names the option or command.
if os.path.isdir("/proc/self"):
    for opt, val in (("--prefix", "/proc/nope"), ("--state-dir", "/proc/st")):
        r = run(["plan", "--root", root, "--mirror", MIRROR, "--cache-dir", t.tmpdir("cache"), "--framework", "none",
                 "--prefix", "/opt/cu", "--state-dir", "/var/tmp/st", opt, val], env=env)
        t.ok(r.rc == 2 and "cannot be made" in r.err and "free" not in r.err and "No such file" not in r.err and
             "choose another folder with %s" % opt in r.err, "plan %s %s: not a place cudaup can write to, and "
             "the option that chooses another" % (opt, val), r)
    # verify keeps a log in its state folder: one it cannot make is said so, with the option (no open()'s ENOENT).
    # The install is the machine's own (DIR/usr/local/cuda-12.4, issue 46 item 2), named: that tree has no cuda link.
    r = run(["verify", "--root", root, "--state-dir", "/proc/st", "12.4"], env=env)
    t.ok("No log is kept: the state folder /proc/st cannot be made; choose another folder with --state-dir." in r.err
         and "No such file" not in r.err, "verify --state-dir /proc/st: no log, said so with the option", r)
else:
    t.skip("a folder under /proc", "no /proc here")
    t.skip("verify --state-dir under /proc", "no /proc here")
r = run(["verify", "--root", root, "--prefix", "/nonexistent/cu", "--state-dir", t.tmpdir("st")], env=env)
t.ok(r.rc == 3 and "There is no CUDA install at /nonexistent/cu/cuda" in r.err and
     "cudaup list --prefix '/nonexistent/cu'" in r.err and "cudaup install --prefix '/nonexistent/cu'" in r.err,
     "verify where nothing is installed: says where to look and how to put CUDA there", r)
other = t.tmpdir("other")
os.makedirs(os.path.join(other, "cuda-12.4"))
r = run(["repair", "--yes", "--root", root, "--prefix", other, "--state-dir", t.tmpdir("st")], env=env)
t.ok(r.rc == 3 and "Name the version: cudaup repair --prefix '%s' 12.4" % other in r.err,
     "repair without a version where no active link is: names the version that is there", r)

# list's text: no line ends in a space ("CUDA releases on the mirror "); a GPU-less plan says so once (issue 35)
r = run(["list", "--root", root, "--mirror", MIRROR, "--cache-dir", t.tmpdir("c")], env=env)
t.ok(r.rc == 0 and "CUDA releases on the mirror\n" in r.out and not [l for l in r.out.splitlines() if l != l.rstrip()],
     "list: no line with a trailing space", [l for l in r.out.splitlines() if l != l.rstrip()])
ng, ngenv = machine(t, "no-gpu")
r = run(["plan", "--root", ng, "--mirror", MIRROR, "--cache-dir", t.tmpdir("c"), "--cuda", "12.4", "--framework", "none",
         "--prefix", "/opt/cu", "--state-dir", t.tmpdir("st"), "--json"], env=ngenv)
said = [w for w in (r.json() or {}).get("warnings", []) if "No NVIDIA GPU was found" in w]
t.ok(r.rc == 0 and len(said) == 1 and "docker run --gpus all" in said[0], "no GPU: the plan's notes say it once, with the fix", r)

# NVIDIA's manifests from CUDA 13.1 on give cuda_compat a "cuda13.2" level (issue 42): a plan on a driver of
# a branch after 580 reads them; a component of a shape cudaup does not know is left out, and only a plan that
# needs it moves on to an older CUDA (or, pinned, is refused naming the shape), never exit 2.
shapes = t.tmpdir("shapes-mirror")
shutil.copytree(FIX, shapes, dirs_exist_ok=True)
shutil.copy(os.path.join(SRCDIR, "tests", "fixtures", "manifests", "redistrib_13.2.2.json"),
            os.path.join(shapes, "cuda", "redist"))
root595, env595 = machine(t, "u2404-rtx5090-595")
for fw in ("none", "jax", "pytorch"):
    r = plan(root595, env595, "--framework", fw, mirror="file://" + shapes)
    t.ok(r.rc == 0 and (r.json() or {}).get("cuda", {}).get("version") == "13.2.2",
         "driver 595, --framework %s: CUDA 13.2.2 planned from its real manifest" % fw, r)
with open(os.path.join(shapes, "cuda", "redist", "redistrib_13.2.2.json")) as f:
    m = json.load(f)
m["cuda_nvcc"]["linux-x86_64"] = {"cuda13.2-preview": m["cuda_nvcc"]["linux-x86_64"]}
m["cuda_future_tool"] = ["a", "shape", "cudaup", "has", "never", "seen"]
with open(os.path.join(shapes, "cuda", "redist", "redistrib_13.2.2.json"), "w") as f:
    json.dump(m, f)
r = run(["plan", "--json", "-v", "--root", root595, "--mirror", "file://" + shapes, "--cache-dir", t.tmpdir("c"),
         "--prefix", "/opt/cu", "--state-dir", "/var/tmp/st", "--framework", "none"], env=env595)
t.ok(r.rc == 0 and (r.json() or {}).get("cuda", {}).get("version") == "13.0.2" and "cuda_nvcc linux-x86_64" in r.err
     and "left out" in r.err, "nvcc of an unknown shape in 13.2.2: the plan takes 13.0.2, -v says what was left out", r)
r = plan(root595, env595, "--framework", "none", "--cuda", "13.2", mirror="file://" + shapes)
t.ok(r.rc == 3 and "shape cudaup does not know" in r.err and "cuda_nvcc" in r.err,
     "--cuda 13.2 with nvcc of an unknown shape: exit 3, naming the component", r)
r = plan(root595, env595, "--framework", "none", "--cuda", "13.2", "--components", "runtime,math",
         mirror="file://" + shapes)
t.ok(r.rc == 0 and (r.json() or {}).get("cuda", {}).get("version") == "13.2.2",
     "--cuda 13.2 without nvcc: planned, the unknown shapes are not needed", r)

# CUDA 13.4: its manifests name no driver and no source cudaup has read gives its floor (issue 42).  Automatic plans
# never take it while a release whose driver is known fits; asked for, it is planned by minor-version compatibility
# for a framework whose wheels bring their own runtime, said inferred (JSON cuda.inferred), and refused for a toolkit
# alone (which stays native), naming what runs.
for name in ("redistrib_13.3.1.json", "redistrib_13.4.2.json"):
    shutil.copy(os.path.join(SRCDIR, "tests", "fixtures", "manifests", name), os.path.join(shapes, "cuda", "redist"))
root615, env615 = machine(t, "u2404-rtx5090-615")
r = plan(root615, env615, "--framework", "none", mirror="file://" + shapes)
t.ok(r.rc == 0 and r.json()["cuda"]["version"] == "13.3.1" and r.json()["cuda"]["inferred"] is False,
     "driver 615, --framework none: CUDA 13.3.1 (610.43.02), not 13.4.2, whose driver is not known", r)
r = plan(root615, env615, "--framework", "jax", "--cuda", "13.4", mirror="file://" + shapes)
d = r.json() or {}
t.ok(r.rc == 0 and d["cuda"]["version"] == "13.4.2" and d["cuda"]["inferred"] is True and
     any("inferred, not read" in x and "minor-version compatibility" in x for x in d["reasons"]) and
     not any("natively it needs" in x for x in d["reasons"]),
     "--cuda 13.4 with JAX: planned by minor-version compatibility, said inferred", r)
r = plan(root615, env615, "--framework", "none", "--cuda", "13.4", mirror="file://" + shapes)
t.ok(r.rc == 3 and "needs natively" in r.json()["error"] and "13.3.1" in (r.json().get("advice") or ""),
     "--cuda 13.4 alone: refused, naming CUDA 13.3.1, which runs here", r)

# Every manifest NVIDIA has published that ../shared holds, on drivers of the branches after 580: every framework
# plans (they exited 2 on the 13.1+ manifests).
SHARED = os.path.normpath(os.path.join(SRCDIR, "..", "shared", "data", "nvidia", "redistrib"))
if os.path.isdir(SHARED):
    whole = t.tmpdir("shared-mirror")
    for prod in ("cuda", "cudnn"):
        os.makedirs(os.path.join(whole, prod, "redist"))
        for name in os.listdir(os.path.join(SHARED, prod)):
            if name.startswith("redistrib_"):
                os.symlink(os.path.join(SHARED, prod, name), os.path.join(whole, prod, "redist", name))
    bad = []
    for drv in ("590.44.01", "595.71.05", "610.43.02"):
        for fw in ("none", "tensorflow", "pytorch", "jax"):
            spec = dict(machines.MACHINES["u2404-rtx5090-595"], driver=drv)
            rt = t.tmpdir("m%s" % drv)
            machines.build_spec(spec, rt)
            r = plan(rt, {"FAKE_NVIDIA_CONFIG": os.path.join(rt, "fake-nvidia.conf")}, "--framework", fw,
                     mirror="file://" + whole)
            if r.rc != 0:
                bad.append((drv, fw, r.rc, (r.json() or {}).get("error")))
    t.eq(bad, [], "drivers 590, 595, 610: none, tensorflow, pytorch and jax plan on every manifest of ../shared")
else:
    t.skip("drivers 590, 595, 610 plan on every manifest of ../shared", "no ../shared beside the repository")

# A GPU whose compute capability nothing knows (issue 49 item 6): the plan says so in the GPU's line, for the framework's
# code and for cuDNN, with a warning; no reason claims a matrix lists "every GPU here"; --driver auto's refusal does not
# blame generations one driver cannot serve on a one-GPU machine.
rootu, envu = machine(t, "u2404-unknown-gpu")
r = plan(rootu, envu, "--driver", "keep")
d = r.json() or {}
t.ok(r.rc == 0 and any("compute capability unknown" in x for x in d.get("reasons", [])) and
     any("has code for GPU 0 is not known" in x for x in d.get("reasons", [])) and
     any("is not known: its compute capability is unknown" in x for x in d.get("warnings", [])) and
     not any(x.endswith("list every GPU here.") or x.endswith("lists every GPU here.") for x in d.get("reasons", [])),
     "unknown GPU, --driver keep: the unknown compute capability is said in the plan and its reasons", d.get("reasons"))
r = plan(rootu, dict(envu, CUDAUP_DRIVER="auto"))
t.ok(r.rc == 3 and "generations one driver serves" not in (r.json() or {}).get("advice", "") and
     "reports the GPU's compute capability" in (r.json() or {}).get("advice", ""),
     "unknown GPU, --driver auto: the advice is to load a driver first, not GPUs of one generation", r)

t.done()
