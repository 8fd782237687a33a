/* SPDX-License-Identifier: MIT */
/* Mirror URLs: which forms are taken and how they are normalised; which are refused, each with
 * exit code 2 (DESIGN: bad input); credentials never reach a URL that is shown. */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/base/log.h"
#include "core/fetch/net.h"
#include "testutil.h"

static void
accepted(void **state)
{
    (void)state;
    static const struct {
        const char *in, *base, *scheme;
    } ok[] = {
        {"https://mirror.example/compute/", "https://mirror.example/compute", "https"},
        {"HTTP://mirror.example/compute", "HTTP://mirror.example/compute", "http"},
        {"/srv/mirror//", "file:///srv/mirror", "file"},
        {"file://localhost/srv/my%20mirror", "file://localhost/srv/my%20mirror", "file"},
        {"https://user:p%40ss@mirror.example/c", "https://mirror.example/c", "https"},
        {NULL, "https://developer.download.nvidia.com/compute", "https"},
        {"", "https://developer.download.nvidia.com/compute", "https"},
    };
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        struct cu_net net;
        struct cu_error err;
        assert_ok(cu_net_init(&net, ok[i].in, &err), &err);
        assert_string_equal(net.base, ok[i].base);
        assert_string_equal(net.scheme, ok[i].scheme);
        assert_true(net.official == (ok[i].in == NULL || !*ok[i].in));
        cu_net_fini(&net);
    }
    /* user:password@ is kept for curl alone, decoded. */
    struct cu_net net;
    struct cu_error err;
    assert_ok(cu_net_init(&net, "https://user:p%40ss@mirror.example/c", &err), &err);
    assert_string_equal(net.userpwd, "user:p@ss");
    char *u = cu_net_url(&net, "cuda", "redistrib_12.6.3.json");
    assert_string_equal(u, "https://mirror.example/c/cuda/redist/redistrib_12.6.3.json");
    assert_null(strstr(u, "p%40ss"));
    free(u);
    assert_null(cu_net_local_path(&net, "cuda", "x"));
    cu_net_fini(&net);
    /* file:// paths are decoded for the local reads. */
    assert_ok(cu_net_init(&net, "file://localhost/srv/my%20mirror", &err), &err);
    char *p = cu_net_local_path(&net, "cudnn", "cudnn/x.tar.xz");
    assert_string_equal(p, "/srv/my mirror/cudnn/redist/cudnn/x.tar.xz");
    free(p);
    p = cu_net_local_path(&net, "cuda", "");
    assert_string_equal(p, "/srv/my mirror/cuda/redist");
    free(p);
    cu_net_fini(&net);
}

static void
refused(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "mirror.example/compute",        /* no scheme */
        "ftp://mirror.example/compute",  /* not downloaded over */
        "https://mirror.example/c?x=1",  /* a query */
        "https://mirror.example/c#top",  /* a fragment */
        "https://mirror.example/my c",   /* a space */
        "https://",                      /* no host */
        "http:///path",                  /* no host */
        "file://relative/path",          /* not absolute */
        "file:///srv/a%2Fb",             /* an encoded slash */
        "file:///srv/a%00b",             /* an encoded NUL */
        "file:///srv/a%zzb",             /* not hex */
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct cu_net net;
        struct cu_error err;
        enum cu_status st = cu_net_init(&net, bad[i], &err);
        if (st != CU_E_USAGE)
            print_error("accepted '%s'\n", bad[i]);
        assert_int_equal(st, CU_E_USAGE);
        assert_int_equal(cu_status_exit_code(st), 2);
        assert_non_null(strstr(err.msg, "mirror"));
        if (st == CU_OK)
            cu_net_fini(&net);
    }
}

static void
transient(void **state)
{
    (void)state;
    /* curl's codes for what may pass on retry (libcurl-errors(3)): couldn't connect 7,
     * operation timed out 28, send 55, recv 56, partial file 18; not: URL malformed 3. */
    assert_true(cu_net_transient(7));
    assert_true(cu_net_transient(28));
    assert_true(cu_net_transient(56));
    assert_false(cu_net_transient(3));
    assert_false(cu_net_transient(0));
}

static void
backoff(void **state)
{
    (void)state;
    struct cu_net net;
    struct cu_error err;
    assert_ok(cu_net_init(&net, NULL, &err), &err);
    /* The default: 6 retries over 1, 2, 4, 8, 16, 30 s: about a minute (issue 26: ~2 s ended installs). */
    assert_int_equal(net.retries, 6);
    static const long nominal[] = {1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000};
    long lo = 0, mid = 0, hi = 0;
    for (unsigned r = 1; r <= 8; r++) {
        /* rnd 250 is the middle of the jitter (100 %); 0 and 500 its ends (75 % and 125 %). */
        assert_int_equal(cu_net_backoff_ms(&net, r, 0, 250), nominal[r - 1]);
        assert_int_equal(cu_net_backoff_ms(&net, r, 0, 0), nominal[r - 1] * 3 / 4);
        assert_int_equal(cu_net_backoff_ms(&net, r, 0, 500), nominal[r - 1] * 5 / 4);
        assert_int_equal(cu_net_backoff_ms(&net, r, 0, 501), nominal[r - 1] * 3 / 4);
        if (r <= net.retries) {
            lo += cu_net_backoff_ms(&net, r, 0, 0);
            mid += cu_net_backoff_ms(&net, r, 0, 250);
            hi += cu_net_backoff_ms(&net, r, 0, 500);
        }
    }
    assert_int_equal(mid, 61000);
    assert_true(lo >= 45000 && hi <= 77000);
    /* Retry-After: honoured when longer than the back-off, up to a minute. */
    assert_int_equal(cu_net_backoff_ms(&net, 1, 10, 250), 10000);
    assert_int_equal(cu_net_backoff_ms(&net, 6, 10, 250), 30000);
    assert_int_equal(cu_net_backoff_ms(&net, 1, 3600, 250), 60000);
    /* A first back-off given (CUDAUP_RETRY_BASE_MS) doubles the same way. */
    net.retry_base_ms = 50;
    assert_int_equal(cu_net_backoff_ms(&net, 1, 0, 250), 50);
    assert_int_equal(cu_net_backoff_ms(&net, 4, 0, 250), 400);
    /* Random numbers differ from call to call (the jitter spreads machines out): from the system's
     * random source, so two calls in the same microsecond differ too (issue 33: one run in five). */
    uint64_t a = cu_net_jitter(), b = cu_net_jitter();
    assert_true(a != b);
    /* And they spread: over a thousand draws the back-off's factor (75-125 %) reaches both ends' tenths
     * and more than 300 of its 501 steps.  Each bound fails by chance about once in 10^45 runs. */
    long fmin = 1000, fmax = 0;
    bool seen[501] = {false};
    int distinct = 0;
    for (int i = 0; i < 1000; i++) {
        uint64_t r = cu_net_jitter() % 501;
        if (!seen[r])
            seen[r] = true, distinct++;
        fmin = (long)r < fmin ? (long)r : fmin;
        fmax = (long)r > fmax ? (long)r : fmax;
    }
    assert_true(fmin < 50 && fmax > 450);
    assert_true(distinct > 300);
    cu_net_fini(&net);
}

static void
file_path(void **state)
{
    (void)state;
    char *p = cu_url_file_path("file:///srv/my%20mirror/cuda/x.tar.xz");
    assert_string_equal(p, "/srv/my mirror/cuda/x.tar.xz");
    free(p);
    p = cu_url_file_path("file://localhost/srv/m");
    assert_string_equal(p, "/srv/m");
    free(p);
    assert_null(cu_url_file_path("https://mirror.example/x"));
    assert_null(cu_url_file_path("file://relative/x"));
    assert_null(cu_url_file_path("file:///srv/a%2Fb"));
}

static int seen_once;

static void
count_sink(void *userdata, enum cu_log_level level, const char *tag, const char *msg, const char *msg_en)
{
    (void)userdata;
    (void)level;
    (void)tag;
    (void)msg_en;
    if (strstr(msg, "plain http"))
        seen_once++;
}

static void
log_once(void **state)
{
    (void)state;
    /* The wizard plans several times in a run: each plan opens the mirror, and the note was said each time. */
    cu_log_set_handler(count_sink, NULL);
    cu_log_set_level(CU_LOG_INFO);
    for (int i = 0; i < 3; i++) {
        struct cu_net net;
        struct cu_error err;
        assert_ok(cu_net_init(&net, "http://127.0.0.1:1/m", &err), &err);
        cu_net_fini(&net);
    }
    cu_log_set_handler(NULL, NULL);
    assert_int_equal(seen_once, 1);
}

/*
 * A loopback HTTP server for one request: it notes whether an Authorization header came and
 * answers 404 (@found false) or 200 with a few bytes.  Two of them, on 127.0.0.1 and 127.0.0.2,
 * are two hosts.
 */
struct one_shot {
    int fd;
    unsigned short port;
    bool found;
    bool auth; /* an Authorization header arrived */
    bool served;
    pthread_t th;
};

static void *
serve_one(void *arg)
{
    struct one_shot *s = arg;
    int c = accept(s->fd, NULL, NULL);
    if (c < 0)
        return NULL;
    char req[8192];
    size_t n = 0;
    while (n < sizeof(req) - 1) {
        ssize_t k = read(c, req + n, sizeof(req) - 1 - n);
        if (k <= 0)
            break;
        n += (size_t)k;
        req[n] = '\0';
        if (strstr(req, "\r\n\r\n"))
            break;
    }
    req[n] = '\0';
    for (char *line = strstr(req, "\r\n"); line; line = strstr(line + 2, "\r\n"))
        if (strncasecmp(line + 2, "Authorization:", 14) == 0)
            s->auth = true;
    const char *answer = s->found ? "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nConnection: close\r\n\r\nok\n"
                                  : "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
    if (write(c, answer, strlen(answer)) < 0)
        print_error("write: failed\n");
    s->served = true;
    close(c);
    return NULL;
}

static void
one_shot_start(struct one_shot *s, const char *ip, bool found)
{
    memset(s, 0, sizeof(*s));
    s->found = found;
    s->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    assert_true(s->fd >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    assert_int_equal(inet_pton(AF_INET, ip, &a.sin_addr), 1);
    assert_int_equal(bind(s->fd, (struct sockaddr *)&a, sizeof(a)), 0);
    assert_int_equal(listen(s->fd, 4), 0);
    socklen_t l = sizeof(a);
    assert_int_equal(getsockname(s->fd, (struct sockaddr *)&a, &l), 0);
    s->port = ntohs(a.sin_port);
    assert_int_equal(pthread_create(&s->th, NULL, serve_one, s), 0);
}

static void
one_shot_join(struct one_shot *s)
{
    pthread_join(s->th, NULL);
    close(s->fd);
}

/*
 * The mirror's user:password@ go to the mirror's host and port alone: a URL fetched through the
 * mirror's connection elsewhere (NVIDIA's driver repository file) gets no Authorization header, and
 * its 404 does not say "on the mirror" (issue 33 item 4).
 */
static void
credentials_stay_home(void **state)
{
    (void)state;
    static const char *const proxies[] = {"http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy",
                                          "ALL_PROXY"};
    for (size_t i = 0; i < sizeof(proxies) / sizeof(proxies[0]); i++)
        unsetenv(proxies[i]);
    struct one_shot mirror, other, other_port;
    one_shot_start(&mirror, "127.0.0.1", true);
    one_shot_start(&other, "127.0.0.2", false);
    one_shot_start(&other_port, "127.0.0.1", true);
    char base[128], there[128], elsewhere[160], next_door[160];
    snprintf(base, sizeof(base), "http://alice:s3cr3t@127.0.0.1:%u/m", mirror.port);
    snprintf(there, sizeof(there), "http://127.0.0.1:%u/m/cuda/redist/x.json", mirror.port);
    snprintf(elsewhere, sizeof(elsewhere), "http://127.0.0.2:%u/compute/cuda/repos/rhel9/x86_64/cuda-rhel9.repo",
             other.port);
    snprintf(next_door, sizeof(next_door), "http://127.0.0.1:%u/m/x", other_port.port);
    struct cu_net net;
    struct cu_error err;
    struct cu_buf b;
    assert_ok(cu_net_init(&net, base, &err), &err);
    net.retries = 0;
    assert_true(cu_net_same_origin(&net, there));
    assert_false(cu_net_same_origin(&net, elsewhere));
    assert_false(cu_net_same_origin(&net, next_door));
    assert_true(cu_net_on_mirror(&net, there));
    assert_false(cu_net_on_mirror(&net, elsewhere));
    cu_buf_init(&b);
    assert_ok(cu_net_fetch_small(&net, there, 1024, &b, &err), &err);
    enum cu_status st = cu_net_fetch_small(&net, elsewhere, 1024, &b, &err);
    assert_int_equal(st, CU_E_NOT_FOUND);
    if (strstr(err.msg, "on the mirror"))
        print_error("%s\n", err.msg);
    assert_null(strstr(err.msg, "on the mirror"));
    assert_non_null(strstr(err.msg, elsewhere));
    assert_ok(cu_net_fetch_small(&net, next_door, 1024, &b, &err), &err);
    cu_buf_fini(&b);
    one_shot_join(&mirror);
    one_shot_join(&other);
    one_shot_join(&other_port);
    assert_true(mirror.served && other.served && other_port.served);
    assert_true(mirror.auth);      /* the mirror's own host and port: its credentials */
    assert_false(other.auth);      /* another host: none */
    assert_false(other_port.auth); /* the same host on another port: another server, none */
    cu_net_fini(&net);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(accepted),
        cmocka_unit_test(refused),
        cmocka_unit_test(transient),
        cmocka_unit_test(backoff),
        cmocka_unit_test(file_path),
        cmocka_unit_test(log_once),
        cmocka_unit_test(credentials_stay_home),
    };
    return TU_RUN(tests);
}
