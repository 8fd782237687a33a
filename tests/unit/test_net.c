/* SPDX-License-Identifier: MIT */
/* Mirror URLs: which forms are taken and how they are normalised; which are refused, each with
 * exit code 2 (DESIGN: bad input); credentials never reach a URL that is shown. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/net.h"
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

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(accepted),
        cmocka_unit_test(refused),
        cmocka_unit_test(transient),
    };
    return TU_RUN(tests);
}
