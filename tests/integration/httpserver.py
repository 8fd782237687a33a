# SPDX-License-Identifier: MIT
"""A scripted loopback HTTP server for cudaup's tests (TESTCASES.md 2.3).

Serves a folder with directory listings and byte ranges, and can misbehave
per path: status codes (with Retry-After), truncated or oversized bodies,
stalls, a slow rate, HTML error pages, redirects, ignoring Range, a wrong
Content-Range, gzip where identity was asked, refusing HEAD.  Every request
is logged.  A HEAD sees the status the next GET will get and the file as it
is (not the body faults), and uses up no fault meant for the GETs.

    srv = Server(root)                   # starts on 127.0.0.1, a free port
    srv.fault("/cuda/redist/x.tar.xz", status=[503, 503])   # first two requests fail
    srv.url                              # http://127.0.0.1:PORT
    srv.requests                         # [(method, path, range header)]
    srv.tails                            # [path]: suffix ranges (bytes=-N), apart from the downloads
    srv.stop()
"""
import email.utils
import gzip
import html
import mmap
import os
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Fault:
    def __init__(self, status=None, retry_after=None, truncate=None, extra=None, stall=None,
                 rate=None, html_body=False, redirect=None, ignore_range=False, bad_range_start=False,
                 gzip_body=False, close_after=None, times=None, body=None, chunked=False, endless=False,
                 only_ranges=False, corrupt_ranges=False, shift_range=False, etag=None, total_unknown=False,
                 only_whole=False, latency=None, no_head=False):
        self.status = list(status) if isinstance(status, (list, tuple)) else ([status] if status else [])
        self.retry_after = retry_after
        self.truncate = truncate          # send only this many bytes, then close
        self.extra = extra                # bytes appended past the real file
        self.stall = stall                # seconds of silence after the headers
        self.rate = rate                  # bytes per second
        self.html_body = html_body        # 200 with an HTML page instead of the file
        self.redirect = redirect          # Location for a 302
        self.ignore_range = ignore_range  # answer 200 with the whole file to a Range request
        self.bad_range_start = bad_range_start
        self.gzip_body = gzip_body
        self.close_after = close_after    # Content-Length says the full size, close after N
        self.times = times                # apply to this many requests, then behave
        self.body = body                  # serve these bytes instead of the file
        self.chunked = chunked            # no Content-Length: chunked, so curl cannot know the size ahead
        self.endless = endless            # with status: an error page that never ends (until the client goes)
        self.only_ranges = only_ranges    # apply only to requests with a Range header
        self.only_whole = only_whole      # apply only to requests without one
        self.latency = latency            # seconds before the answer (a far server: its first byte comes late)
        self.no_head = no_head            # HEAD is refused (405), as by storage that signs GET alone
        self.corrupt_ranges = corrupt_ranges  # a ranged answer's bytes are flipped (a cache serving bad parts)
        self.shift_range = shift_range    # a ranged answer really starts one byte later, and says so
        self.etag = etag                  # an ETag header to send (a strong "x" or a weak W/"x")
        self.total_unknown = total_unknown  # Content-Range: bytes A-B/* (the total not given)
        self.used = 0


def rng_header_of(handler):
    return handler.headers.get("Range")


class Server:
    def __init__(self, root, host="127.0.0.1", rate=None, tls=None, link=None):
        """tls: (certfile, keyfile) to serve https instead of http."""
        self.root = os.path.abspath(root)
        self.rate = rate  # bytes per second per connection for every file (a CDN's cap), or None
        self.link = link  # bytes per second for all connections together (one shared link), or None
        self.link_free = 0.0  # when the shared link is next free (time.monotonic())
        self.faults = {}
        self.requests = []
        self.tails = []  # paths asked for with a suffix range (bytes=-N): a file's end read before any download
        self.endless_sent = []  # bytes each endless error answer sent before the client hung up
        self.auths = []         # the Authorization header of each request (None when absent)
        self.accepts = []       # the Accept header of each GET (None when absent)
        self.conditional = []   # (path, If-None-Match, If-Modified-Since) of each GET
        self.not_modified = []  # the paths answered 304
        # A package index (tests/fixtures/mkindex.py): a folder's index.json answers a request that accepts PEP 691
        # JSON, and every file gets a strong ETag; If-None-Match and If-Modified-Since are answered 304.
        self.validators = False
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_HEAD(self):
                self.handle_req(head=True)

            def do_GET(self):
                self.handle_req(head=False)

            def handle_req(self, head):
                path = urllib.parse.urlsplit(self.path).path
                # A suffix range (bytes=-N) is a file's end read before any download (an archive's xz index, a
                # wheel's zip directory): like a
                # HEAD it sees the status the next GET will get and the file as it is, uses up no fault meant for
                # the downloads, and is logged apart (server.tails), so that the downloads' log stays theirs.
                tail = not head and (self.headers.get("Range") or "").startswith("bytes=-")
                with server.lock:
                    if tail:
                        server.tails.append(path)
                        f = server.faults.get(path)
                        status = f.status[0] if f and f.status and (f.times is None or f.used < f.times) else None
                        f = None
                if tail:
                    try:
                        self.serve(path, None, status, False)
                    except (BrokenPipeError, ConnectionResetError):
                        pass
                    return
                with server.lock:
                    server.requests.append((self.command, path, self.headers.get("Range")))
                    server.auths.append(self.headers.get("Authorization"))
                    if self.command == "GET":
                        server.accepts.append(self.headers.get("Accept"))
                        server.conditional.append((path, self.headers.get("If-None-Match"),
                                                   self.headers.get("If-Modified-Since")))
                    f = server.faults.get(path)
                    if f and f.only_ranges and not self.headers.get("Range"):
                        f = None
                    if f and f.only_whole and self.headers.get("Range"):
                        f = None
                    if f and f.times is not None and f.used >= f.times:
                        f = None
                    refuse_head = head and f and f.no_head
                    if refuse_head:
                        status = None
                    elif head:
                        # A HEAD (cudaup's check before it downloads) sees the status the next GET
                        # will get, and the file as it is; it uses up no fault meant for the GETs.
                        status = f.status[0] if f and f.status else None
                        f = Fault(retry_after=f.retry_after) if f else None
                    elif f:
                        f.used += 1
                        status = f.status.pop(0) if f.status else None
                    else:
                        status = None
                try:
                    if refuse_head:
                        self.send(405, [("Content-Length", "0"), ("Allow", "GET")], None)
                        return
                    self.serve(path, f, status, head)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def send(self, code, headers, body, f=None):
                if f and f.latency:
                    time.sleep(f.latency)
                self.send_response(code)
                for k, v in headers:
                    self.send_header(k, v)
                self.end_headers()
                if body is None:
                    return
                if f and f.chunked:
                    for i in range(0, len(body), 65536):
                        part = body[i:i + 65536]
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
                    self.wfile.write(b"0\r\n\r\n")
                    return
                if f and f.stall:
                    time.sleep(f.stall)
                if f and f.close_after is not None:
                    body = body[:f.close_after]
                rate = f.rate if f and f.rate else server.rate
                if (rate or server.link) and len(body) > 65536:
                    step = max(1, int(rate / 20)) if rate else 65536
                    if server.link:
                        step = min(step, 65536)
                    t0 = time.monotonic()
                    for i in range(0, len(body), step):
                        piece = body[i:i + step]
                        if server.link:
                            # The shared link carries one connection's piece at a time, in turn.
                            with server.lock:
                                start = max(time.monotonic(), server.link_free)
                                server.link_free = start + len(piece) / server.link
                            wait = start + len(piece) / server.link - time.monotonic()
                            if wait > 0:
                                time.sleep(wait)
                        self.wfile.write(piece)
                        self.wfile.flush()
                        ahead = (i + step) / rate - (time.monotonic() - t0) if rate else 0
                        if ahead > 0:
                            time.sleep(ahead)
                else:
                    self.wfile.write(body)
                if f and (f.close_after is not None or f.truncate is not None):
                    self.close_connection = True

            def serve(self, path, f, status, head):
                if f and f.redirect:
                    self.send(302, [("Location", f.redirect), ("Content-Length", "0")], b"")
                    return
                if status and f.endless and not head:
                    self.send_response(status)
                    self.send_header("Content-Type", "text/html")
                    self.send_header("Connection", "close")
                    self.end_headers()
                    chunk = b"<p>error</p>" * 5000
                    sent, t0 = 0, time.monotonic()
                    try:  # bounded, so that a client that reads forever cannot hang the tests
                        while sent < (2 << 30) and time.monotonic() - t0 < 60:
                            self.wfile.write(chunk)
                            sent += len(chunk)
                    except OSError:
                        pass
                    with server.lock:
                        server.endless_sent.append(sent)
                    self.close_connection = True
                    return
                if status:
                    body = b"<html><body>error %d</body></html>" % status
                    hdrs = [("Content-Type", "text/html"), ("Content-Length", str(len(body)))]
                    if f.retry_after is not None:
                        hdrs.append(("Retry-After", str(f.retry_after)))
                    self.send(status, hdrs, None if head else body)
                    return
                local = os.path.join(server.root, urllib.parse.unquote(path).lstrip("/"))
                local = os.path.normpath(local)
                if not local.startswith(server.root):
                    self.send(403, [("Content-Length", "0")], b"")
                    return
                json_type = None
                if (server.validators and os.path.isdir(local) and os.path.isfile(os.path.join(local, "index.json")) and
                        "application/vnd.pypi.simple.v1+json" in (self.headers.get("Accept") or "")):
                    local = os.path.join(local, "index.json")  # PEP 691's content negotiation
                    json_type = "application/vnd.pypi.simple.v1+json"
                elif os.path.isdir(local) and os.path.isfile(os.path.join(local, "index.html")):
                    local = os.path.join(local, "index.html")  # as nginx and Apache do
                if os.path.isdir(local):
                    names = sorted(os.listdir(local))
                    items = "".join('<a href="%s">%s</a>\n' % (urllib.parse.quote(n), html.escape(n)) for n in names)
                    body = ("<html><body><pre>%s</pre></body></html>" % items).encode()
                    self.send(200, [("Content-Type", "text/html"), ("Content-Length", str(len(body)))],
                              None if head else body, f)
                    return
                if f and f.body is not None:
                    data = f.body
                elif os.path.isfile(local):
                    # Mapped, not read: a range costs its own bytes, as with a real server's sendfile
                    # (reading the whole archive for each chunk of it made the bench's server the bottleneck).
                    with open(local, "rb") as fh:
                        size = os.fstat(fh.fileno()).st_size
                        data = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) if size else b
                else:
                    body = b"<html>not found</html>"
                    self.send(404, [("Content-Length", str(len(body)))], None if head else body)
                    return
                if f and f.html_body:
                    data = b"<html><body>Please log in to the captive portal</body></html>"
                if f and f.extra:
                    data = bytes(data) + f.extra
                total = len(data)
                mtime = email.utils.formatdate(os.path.getmtime(local) if os.path.exists(local) else 0, usegmt=True)
                rng = self.headers.get("Range")
                hdrs = [("Last-Modified", mtime), ("Accept-Ranges", "bytes")]
                if f and f.etag:
                    hdrs.append(("ETag", f.etag))
                elif server.validators and not (f and f.body is not None):
                    import hashlib
                    tag = '"%s"' % hashlib.sha256(bytes(data)).hexdigest()[:32]
                    hdrs.append(("ETag", tag))
                    inm, ims = self.headers.get("If-None-Match"), self.headers.get("If-Modified-Since")
                    fresh = inm is not None and tag in [x.strip() for x in inm.split(",")]
                    if inm is None and ims:
                        try:
                            fresh = email.utils.parsedate_to_datetime(ims).timestamp() >= int(os.path.getmtime(local))
                        except (TypeError, ValueError):
                            fresh = False
                    if fresh and not rng_header_of(self):
                        with server.lock:
                            server.not_modified.append(path)
                        self.send(304, hdrs + [("Content-Length", "0")], None, f)
                        return
                if json_type:
                    hdrs.append(("Content-Type", json_type))
                elif local.endswith(".html"):
                    hdrs.append(("Content-Type", "text/html"))  # pip reads an index page only with it
                code, start = 200, 0
                if rng and not (f and f.ignore_range) and rng.startswith("bytes="):
                    spec = rng[6:].split(",")[0]
                    a, _, b = spec.partition("-")
                    if a:
                        start = int(a)
                        end = int(b) if b else total - 1
                    else:  # a suffix: the last B bytes (RFC 9110 14.1.1)
                        start, end = max(0, total - int(b)), total - 1
                    if start >= total:
                        body = b"<html>416</html>"
                        self.send(416, hdrs + [("Content-Range", "bytes */%d" % total),
                                               ("Content-Length", str(len(body)))], None if head else body)
                        return
                    end = min(end, total - 1)
                    code = 206
                    if f and f.shift_range and start + 1 <= end:
                        start += 1
                    shown = start + 1 if f and f.bad_range_start else start
                    hdrs.append(("Content-Range", "bytes %d-%d/%s" % (shown, end, "*" if f and f.total_unknown else total)))
                    data = data[start:end + 1]
                    if f and f.corrupt_ranges and data:
                        data = bytes([data[0] ^ 0xFF]) + data[1:]
                if f and f.gzip_body:
                    data = gzip.compress(bytes(data))
                    hdrs.append(("Content-Encoding", "gzip"))
                length = len(data)
                if f and f.truncate is not None:
                    data = data[:f.truncate]
                hdrs.append(("Transfer-Encoding", "chunked") if f and f.chunked else ("Content-Length", str(length)))
                self.send(code, hdrs, None if head else data, f)

        self.httpd = ThreadingHTTPServer((host, 0), Handler)
        self.httpd.daemon_threads = True
        self.httpd.handle_error = lambda request, address: None  # clients hang up on purpose
        if tls:
            import ssl
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(*tls)
            self.httpd.socket = ctx.wrap_socket(self.httpd.socket, server_side=True)
        self.url = "%s://%s:%d" % ("https" if tls else "http", host, self.httpd.server_address[1])
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def fault(self, path, **kw):
        with self.lock:
            self.faults[path] = Fault(**kw)

    def clear(self):
        with self.lock:
            self.faults.clear()
            self.requests.clear()
            self.tails.clear()
            self.auths.clear()
            self.accepts.clear()
            self.conditional.clear()
            self.not_modified.clear()

    def gets(self, suffix=""):
        with self.lock:
            return [p for (m, p, r) in self.requests if m == "GET" and p.endswith(suffix)]

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()
