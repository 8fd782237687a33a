/* SPDX-License-Identifier: MIT */
/* Inside a container or not (core/machine/container.c, issue 48 item 1): every case is a machine root. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/catalog/catalog.h"
#include "core/machine/container.h"
#include "core/machine/sysinfo.h"
#include "testutil.h"

struct fx {
    char *dir;
    struct cu_sysroot root;
    bool open;
};

static int
setup(void **state)
{
    struct fx *f = calloc(1, sizeof(*f));
    f->dir = tu_tmpdir("container");
    *state = f;
    return f->dir ? 0 : -1;
}

static int
teardown(void **state)
{
    struct fx *f = *state;
    if (f->open)
        cu_sysroot_fini(&f->root);
    tu_tmpdir_free(f->dir);
    free(f);
    return 0;
}

static const struct cu_sysroot *
root(struct fx *f)
{
    struct cu_error err;
    if (!f->open)
        assert_ok(cu_sysroot_init(&f->root, f->dir, &err), &err);
    f->open = true;
    return &f->root;
}

/* pid 1's environment (NUL-separated) at DIR/proc/1/environ. */
static void
write_environ(struct fx *f, const char *bytes, size_t n)
{
    char path[512];
    tu_write(f->dir, "proc/1/environ", "");
    snprintf(path, sizeof(path), "%s/proc/1/environ", f->dir);
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(bytes, 1, n, fp), n);
    assert_int_equal(fclose(fp), 0);
}

/* pid 1's files inside a root that is not "/": what a container host's own pid 1 would say, planted in DIR. */
static void
pid1_files(struct fx *f)
{
    static const char environ[] = "PATH=/usr/bin\0container=lxc\0HOME=/root\0";
    tu_write(f->dir, "proc/1/cgroup", "12:memory:/docker/0123456789abcdef\n0::/\n");
    write_environ(f, environ, sizeof(environ) - 1);
    tu_write(f->dir, "run/systemd/container", "systemd-nspawn\n");
}

/* --root DIR: DIR's own marker files decide, and pid 1 is never read there (an image prepared by a cudaup that
 * runs inside a container is no container), whatever the machine cudaup runs on. */
static void
root_without_markers_is_no_container(void **state)
{
    struct fx *f = *state;
    struct cu_container_info c;
    tu_write(f->dir, "etc/os-release", "ID=debian\n");
    pid1_files(f);
    cu_container_probe(root(f), &c);
    assert_false(c.inside);
    assert_string_equal(c.engine, "");
    assert_string_equal(c.evidence, "");
    assert_null(cu_container_engine_title(&c));
    /* The same files read as pid 1's (the root "/"): container= first. */
    cu_container_detect(root(f), true, &c);
    assert_true(c.inside);
    assert_string_equal(c.engine, "lxc");
    assert_string_equal(c.evidence, "/proc/1/environ");
    assert_string_equal(cu_container_engine_title(&c), "LXC");
}

static void
dockerenv(void **state)
{
    struct fx *f = *state;
    struct cu_container_info c;
    tu_write(f->dir, ".dockerenv", "");
    cu_container_probe(root(f), &c);
    assert_true(c.inside);
    assert_string_equal(c.engine, "docker");
    assert_string_equal(c.evidence, "/.dockerenv");
    assert_string_equal(cu_container_engine_title(&c), "Docker");

    /* The fact, as the probe of the machine gives it. */
    struct cu_catalog *cat = NULL;
    char *cdir = NULL;
    assert_int_equal(tu_catfx_init("container-cat", &cdir, &cat), 0);
    struct cu_error err;
    struct cu_facts *facts = NULL;
    struct cu_probe_opts o = {.root = root(f), .catalog = cat, .no_libs = true};
    assert_ok(cu_facts_probe(&o, &facts, &err), &err);
    assert_true(facts->container.inside);
    assert_string_equal(facts->container.engine, "docker");
    cu_facts_free(facts);
    tu_catfx_fini(cdir, cat);
}

static void
containerenv(void **state)
{
    struct fx *f = *state;
    struct cu_container_info c;
    tu_write(f->dir, "run/.containerenv", "engine=\"podman-4.3.1\"\nname=\"cu\"\nid=\"abc\"\nrootless=0\n");
    cu_container_probe(root(f), &c);
    assert_true(c.inside);
    assert_string_equal(c.engine, "podman");
    assert_string_equal(c.evidence, "/run/.containerenv");
    assert_string_equal(cu_container_engine_title(&c), "Podman");
    /* Empty (a rootless Podman, CRI-O): inside, no engine named. */
    tu_write(f->dir, "run/.containerenv", "");
    cu_container_probe(root(f), &c);
    assert_true(c.inside);
    assert_string_equal(c.engine, "");
    assert_null(cu_container_engine_title(&c));
    /* An engine value that is no plain word is not repeated into sentences. */
    tu_write(f->dir, "run/.containerenv", "engine=\"po`d man\"\n");
    cu_container_probe(root(f), &c);
    assert_true(c.inside);
    assert_string_equal(c.engine, "");
}

static void
pid1_says(void **state)
{
    struct fx *f = *state;
    struct cu_container_info c;
    /* systemd's record of pid 1's container= (readable by every user), where the environment is not. */
    tu_write(f->dir, "run/systemd/container", "systemd-nspawn\n");
    cu_container_detect(root(f), true, &c);
    assert_true(c.inside);
    assert_string_equal(c.engine, "systemd-nspawn");
    assert_string_equal(c.evidence, "/run/systemd/container");
    assert_string_equal(cu_container_engine_title(&c), "systemd-nspawn");
    char path[512];
    snprintf(path, sizeof(path), "%s/run/systemd/container", f->dir);
    assert_int_equal(unlink(path), 0);

    /* The cgroup of pid 1: Docker's cgroupfs and systemd drivers, a pod, and a host (no container). */
    static const struct {
        const char *cgroup, *engine;
    } cases[] = {
        {"12:memory:/docker/0123456789abcdef\n", "docker"},
        {"0::/system.slice/docker-0123456789abcdef.scope\n", "docker"},
        {"0::/kubepods.slice/kubepods-burstable.slice/cri-containerd-0123.scope\n", "kubernetes"},
        {"0::/machine.slice/libpod-0123456789abcdef.scope/container\n", "podman"},
        {"0::/init.scope\n", NULL},
        {"0::/\n", NULL},
        {"garbage without colons docker\n", NULL},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        tu_write(f->dir, "proc/1/cgroup", cases[i].cgroup);
        cu_container_detect(root(f), true, &c);
        assert_int_equal(c.inside, cases[i].engine != NULL);
        if (cases[i].engine) {
            assert_string_equal(c.engine, cases[i].engine);
            assert_string_equal(c.evidence, "/proc/1/cgroup");
        }
        /* Never read under --root. */
        cu_container_probe(root(f), &c);
        assert_false(c.inside);
    }
}

static void
pid1_environ_kubernetes(void **state)
{
    struct fx *f = *state;
    struct cu_container_info c;
    static const char environ[] = "KUBERNETES_SERVICE_HOST=10.96.0.1\0PATH=/bin\0";
    tu_write(f->dir, "proc/1/cgroup", "0::/\n");
    write_environ(f, environ, sizeof(environ) - 1);
    cu_container_detect(root(f), true, &c);
    assert_true(c.inside);
    assert_string_equal(c.engine, "kubernetes");
    assert_string_equal(cu_container_engine_title(&c), "Kubernetes");
    cu_container_probe(root(f), &c);
    assert_false(c.inside);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(root_without_markers_is_no_container, setup, teardown),
        cmocka_unit_test_setup_teardown(dockerenv, setup, teardown),
        cmocka_unit_test_setup_teardown(containerenv, setup, teardown),
        cmocka_unit_test_setup_teardown(pid1_says, setup, teardown),
        cmocka_unit_test_setup_teardown(pid1_environ_kubernetes, setup, teardown),
    };
    return TU_RUN(tests);
}
