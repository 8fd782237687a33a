/* SPDX-License-Identifier: MIT */
/*
 * GPU containers on a host (issue 48 items 2 and 3), the pure parts: the TOML reader the engines' files are read
 * with, the configuration texts cudaup writes for containerd and Docker, containerd's version rule (the toolkit's own
 * 2026 default drop-in must be found refused; cudaup's must not), the check of `containerd config dump`'s output, and
 * the CDI spec reader.  Goldens: tests/fixtures/containers (README.md says where each comes from).  Version 3 and the
 * "2.3 refuses a newer drop-in" rule are checked here against recorded golden files, not a real containerd 2.3 (none
 * runs here; Debian 12's is 1.6).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/mem.h"
#include "core/base/toml.h"
#include "core/catalog/catalog.h"
#include "core/catalog/ctk_data.h"
#include "core/machine/cdi.h"
#include "core/resolve/containers.h"
#include "testutil.h"

static struct cu_catalog *cat;

static char *
fixture(const char *name)
{
    const char *src = getenv("SRCDIR");
    char path[1024];
    snprintf(path, sizeof(path), "%s/tests/fixtures/containers/%s", src ? src : ".", name);
    char *t = tu_read(path);
    assert_non_null(t);
    return t;
}

static struct cu_version
ver(const char *s)
{
    struct cu_version v;
    assert_true(cu_version_parse(s, &v));
    return v;
}

/* ---- the TOML reader ---- */

static void
toml_reads_what_engines_write(void **state)
{
    (void)state;
    struct cu_toml t;
    struct cu_error err;
    const char *text = "version = 2 # a comment\n"
                       "imports = [\"/etc/containerd/conf.d/*.toml\",\n  'b.toml', # two\n]\n"
                       "[plugins.\"io.containerd.grpc.v1.cri\".cni]\n  bin_dir = \"/usr/lib/cni\"\n"
                       "[plugins.'io.containerd.grpc.v1.cri'.containerd.runtimes.runc.options]\n  SystemdCgroup = true\n"
                       "[a]\nb.c = { d = 0x10, e = \"x\\ty\\u00e9\" }\nf = \"\"\"\nmulti\nline\"\"\"\n";
    assert_ok(cu_toml_parse(text, &t, &err), &err);
    const struct cu_toml_entry *v = cu_toml_get(&t, "version");
    assert_non_null(v);
    assert_int_equal(v->type, CU_TOML_INT);
    assert_int_equal(v->ival, 2);
    assert_true(v->top);
    const struct cu_toml_entry *im = cu_toml_get(&t, "imports");
    assert_non_null(im);
    assert_int_equal(im->line, 2);
    assert_int_equal(im->end_line, 4);
    assert_string_equal(im->items[0], "/etc/containerd/conf.d/*.toml");
    assert_string_equal(im->items[1], "b.toml");
    assert_null(im->items[2]);
    /* single and double quotes make the same key */
    assert_string_equal(cu_toml_get(&t, "plugins.\"io.containerd.grpc.v1.cri\".cni.bin_dir")->value, "/usr/lib/cni");
    assert_string_equal(cu_toml_get(&t, "plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc.options.SystemdCgroup")->value, "true");
    assert_int_equal(cu_toml_get(&t, "a.b.c.d")->ival, 16);
    assert_string_equal(cu_toml_get(&t, "a.b.c.e")->value, "x\ty\xc3\xa9");
    assert_string_equal(cu_toml_get(&t, "a.f")->value, "multi\nline");
    assert_false(cu_toml_get(&t, "a.f")->top);
    assert_true(cu_toml_has_prefix(&t, "plugins.\"io.containerd.grpc.v1.cri\""));
    assert_false(cu_toml_has_prefix(&t, "plugins.\"io.containerd.grpc.v1\""));
    assert_int_equal(t.first_table_line, 5);
    cu_toml_fini(&t);
}

static void
toml_refuses_what_engines_refuse(void **state)
{
    (void)state;
    static const struct {
        const char *text, *msg;
    } bad[] = {
        {"a = \"open\nb = 1\n", "line 1: unterminated string"},
        {"a = 1\na = 2\n", "line 2: the key a is defined twice"},
        {"[x]\n[x]\n", "line 2: the table [x] is defined twice"},
        {"version = 2\n[plugins\n", "line 2: a table header is not closed"},
        {"a = [1, 2\n", "unterminated array"},
        {"a = 1 b\n", "line 1: unexpected text after a value"},
        {"= 1\n", "line 1: a key was expected"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct cu_toml t;
        struct cu_error err;
        assert_status(cu_toml_parse(bad[i].text, &t, &err), CU_E_INPUT, &err);
        if (!strstr(err.msg, bad[i].msg))
            print_error("%s: got '%s'\n", bad[i].text, err.msg);
        assert_non_null(strstr(err.msg, bad[i].msg));
    }
}

/* ---- containerd ---- */

static void
containerd_16_edits_the_root_and_keeps_its_cri_section(void **state)
{
    (void)state;
    CU_AUTOFREE char *root = fixture("containerd-root-v2-debian12.toml");
    struct cu_version v = ver("1.6.20");
    struct cu_ctd_write w;
    struct cu_error err;
    assert_ok(cu_ctd_config(cat->containers, &v, root, NULL, 0, &w, &err), &err);
    assert_string_equal(w.mode, "root-config");
    assert_int_equal(w.root_version, 2);
    assert_false(w.configured);
    assert_null(w.dropin_text);
    /* the old file, byte for byte, then the marked block */
    assert_non_null(w.root_text);
    assert_memory_equal(w.root_text, root, strlen(root));
    struct cu_toml t;
    assert_ok(cu_toml_parse(w.root_text, &t, &err), &err);
    assert_string_equal(cu_toml_get(&t, "plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.nvidia.options.BinaryName")->value,
                        "/usr/bin/nvidia-container-runtime");
    assert_string_equal(cu_toml_get(&t, "plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.nvidia.runtime_type")->value,
                        "io.containerd.runc.v2");
    assert_string_equal(cu_toml_get(&t, "plugins.\"io.containerd.grpc.v1.cri\".cni.bin_dir")->value, "/usr/lib/cni");
    cu_toml_fini(&t);
    /* undone, it is the old file again */
    CU_AUTOFREE char *back = cu_ctd_unblock(w.root_text);
    assert_string_equal(back, root);
    /* and the same file again: configured, nothing to write */
    struct cu_ctd_write w2;
    assert_ok(cu_ctd_config(cat->containers, &v, w.root_text, NULL, 0, &w2, &err), &err);
    assert_true(w2.configured);
    assert_null(w2.root_text);
    cu_ctd_write_fini(&w2);
    cu_ctd_write_fini(&w);
    /* no root config at all: one of the engine's own version */
    assert_ok(cu_ctd_config(cat->containers, &v, NULL, NULL, 0, &w, &err), &err);
    assert_true(cu_str_has_prefix(w.root_text, "version = 2\n"));
    cu_ctd_write_fini(&w);
}

static void
containerd_21_writes_a_dropin_of_the_roots_version(void **state)
{
    (void)state;
    CU_AUTOFREE char *root = fixture("containerd-root-v2-debian12.toml");
    struct cu_version v = ver("2.1.4");
    struct cu_ctd_write w;
    struct cu_error err;
    assert_ok(cu_ctd_config(cat->containers, &v, root, NULL, 0, &w, &err), &err);
    assert_string_equal(w.mode, "drop-in");
    assert_non_null(w.dropin_text);
    assert_non_null(strstr(w.dropin_text, "\nversion = 2\n"));
    assert_non_null(strstr(w.dropin_text, "runtime_type = \"io.containerd.runc.v2\""));
    /* the root gains the import right after its version, every other line as it was */
    assert_non_null(w.root_text);
    assert_true(cu_str_has_prefix(w.root_text, "version = 2\nimports = [\"/etc/containerd/conf.d/99-cudaup-nvidia.toml\"]\n\n[plugins]\n"));
    CU_AUTOFREE char *refused = cu_ctd_refuses(cat->containers, &v, w.root_version, w.dropin_text);
    assert_null(refused);
    cu_ctd_write_fini(&w);
    /* an imports line there already: the drop-in is added to it */
    const char *with = "version = 2\nimports = [\"/opt/x.toml\"]\n";
    assert_ok(cu_ctd_config(cat->containers, &v, with, NULL, 0, &w, &err), &err);
    assert_string_equal(w.root_text, "version = 2\nimports = [\"/opt/x.toml\", \"/etc/containerd/conf.d/99-cudaup-nvidia.toml\"]\n");
    cu_ctd_write_fini(&w);
}

static void
containerd_23_v3_root_gets_a_v3_dropin_with_runtime_type(void **state)
{
    (void)state;
    CU_AUTOFREE char *root = fixture("containerd-root-v3.toml");
    struct cu_version v = ver("2.3.2");
    struct cu_ctd_write w;
    struct cu_error err;
    assert_ok(cu_ctd_config(cat->containers, &v, root, NULL, 0, &w, &err), &err);
    assert_string_equal(w.mode, "drop-in");
    assert_int_equal(w.root_version, 3);
    assert_string_equal(w.plugin, "io.containerd.cri.v1.runtime");
    struct cu_toml t;
    assert_ok(cu_toml_parse(w.dropin_text, &t, &err), &err);
    assert_int_equal(cu_toml_get(&t, "version")->ival, 3);
    /* nvidia-container-toolkit#1956: without runtime_type containerd 2.3.1 fails every container of the runtime */
    assert_non_null(cu_toml_get(&t, "plugins.\"io.containerd.cri.v1.runtime\".containerd.runtimes.nvidia.runtime_type"));
    cu_toml_fini(&t);
    CU_AUTOFREE char *refused = cu_ctd_refuses(cat->containers, &v, 3, w.dropin_text);
    assert_null(refused);
    cu_ctd_write_fini(&w);
}

static void
the_toolkits_2026_default_dropin_is_refused(void **state)
{
    (void)state;
    /* aicr#1688: toolkit 1.19.1 writes a version 4 drop-in (from `containerd config dump`) under a version 2 root, and
     * containerd 2.3.2 exits: "drop-in config version 4 higher than root config version 2". */
    CU_AUTOFREE char *dropin = fixture("ctk-1.19.1-default-dropin-v4.toml");
    CU_AUTOFREE char *root = fixture("containerd-root-v2-debian12.toml");
    struct cu_version v23 = ver("2.3.2"), v22 = ver("2.2.1");
    CU_AUTOFREE char *why = cu_ctd_refuses(cat->containers, &v23, 2, dropin);
    assert_non_null(why);
    assert_non_null(strstr(why, "drop-in config version 4 higher than root config version 2"));
    /* 2.2 does not know version 4 at all */
    CU_AUTOFREE char *why22 = cu_ctd_refuses(cat->containers, &v22, 2, dropin);
    assert_non_null(why22);
    assert_non_null(strstr(why22, "does not read configuration version 4"));
    /* that drop-in imported: containerd is not configured by it, and cudaup writes its own of version 2 */
    char path[] = "/etc/containerd/conf.d/99-nvidia.toml";
    struct cu_engine_file f = {path, dropin, NULL};
    const char *rooted = "version = 2\nimports = [\"/etc/containerd/conf.d/*.toml\"]\n";
    struct cu_ctd_write w;
    struct cu_error err;
    assert_ok(cu_ctd_config(cat->containers, &v23, rooted, &f, 1, &w, &err), &err);
    assert_false(w.configured);
    assert_string_equal(w.mode, "drop-in");
    assert_non_null(strstr(w.dropin_text, "\nversion = 2\n"));
    assert_null(w.root_text); /* the root's conf.d glob imports it already */
    CU_AUTOFREE char *ours = cu_ctd_refuses(cat->containers, &v23, 2, w.dropin_text);
    assert_null(ours);
    cu_ctd_write_fini(&w);
    (void)root;
}

static void
containerd_refuses_what_it_cannot_write(void **state)
{
    (void)state;
    struct cu_ctd_write w;
    struct cu_error err;
    struct cu_version v16 = ver("1.6.20"), v23 = ver("2.3.2");
    /* a version 1.6 does not read */
    assert_status(cu_ctd_config(cat->containers, &v16, "version = 3\n", NULL, 0, &w, &err), CU_E_UNSUPPORTED, &err);
    assert_non_null(strstr(err.msg, "reads configuration versions 1 and 2"));
    /* a version whose layout cudaup does not know */
    assert_status(cu_ctd_config(cat->containers, &v23, "version = 4\n", NULL, 0, &w, &err), CU_E_UNSUPPORTED, &err);
    assert_non_null(strstr(err.msg, "version 4, whose layout cudaup does not know"));
    /* a file containerd would not start with either */
    assert_status(cu_ctd_config(cat->containers, &v16, "version = 2\n[plugins\n", NULL, 0, &w, &err), CU_E_INPUT, &err);
    assert_non_null(strstr(err.msg, "line 2"));
    /* a runtimes table given as a value: new tables under it would break the file */
    assert_status(cu_ctd_config(cat->containers, &v16, "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\".containerd]\nruntimes = {}\n", NULL, 0,
                                &w, &err),
                  CU_E_UNSUPPORTED, &err);
}

static void
containerd_dump_check(void **state)
{
    (void)state;
    /* measured on Debian 12's containerd 1.6.20: the naive drop-in lost the root's cni bin_dir */
    CU_AUTOFREE char *dump = fixture("containerd-1.6-dump-naive-dropin.toml");
    CU_AUTOFREE char *root = fixture("containerd-root-v2-debian12.toml");
    CU_AUTOFREE char *why = cu_ctd_dump_check(dump, root);
    assert_non_null(why);
    assert_non_null(strstr(why, "cni.bin_dir = /usr/lib/cni"));
    /* the nvidia runtime without its runtime_type */
    const char *no_type = "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.nvidia.options]\nBinaryName = \"/usr/bin/nvidia-container-runtime\"\n";
    CU_AUTOFREE char *why2 = cu_ctd_dump_check(no_type, NULL);
    assert_non_null(why2);
    assert_non_null(strstr(why2, "runtime_type"));
    const char *good = "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.nvidia]\nruntime_type = \"io.containerd.runc.v2\"\n"
                       "[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.nvidia.options]\nBinaryName = \"/usr/bin/nvidia-container-runtime\"\n";
    CU_AUTOFREE char *ok = cu_ctd_dump_check(good, NULL);
    assert_null(ok);
}

/* ---- Docker ---- */

static void
docker_daemon_json_keeps_the_users_keys(void **state)
{
    (void)state;
    const char *old = "{\"log-driver\": \"journald\", \"runtimes\": {\"crun\": {\"path\": \"/usr/bin/crun\"}}, \"data-root\": \"/srv/docker\"}";
    struct cu_version v20 = ver("20.10.24"), v27 = ver("27.5.1");
    CU_AUTOFREE char *out = NULL;
    bool changed, only;
    struct cu_error err;
    assert_ok(cu_docker_config(cat->containers, &v20, old, &out, &changed, &only, &err), &err);
    assert_true(changed);
    assert_true(only);
    assert_null(strstr(out, "\"cdi\""));
    CU_AUTOFREE char *why = cu_docker_keys_check(old, out);
    assert_null(why);
    assert_true(cu_docker_configured(cat->containers, &v20, out));
    assert_false(cu_docker_configured(cat->containers, &v27, out)); /* 25 and later: CDI on as well */
    CU_AUTOFREE char *out27 = NULL;
    assert_ok(cu_docker_config(cat->containers, &v27, out, &out27, &changed, &only, &err), &err);
    assert_true(changed);
    assert_false(only);
    assert_non_null(strstr(out27, "\"cdi\": true"));
    /* a key lost is found */
    CU_AUTOFREE char *lost = cu_docker_keys_check(old, "{\"runtimes\": {\"nvidia\": {\"path\": \"x\"}}}");
    assert_non_null(lost);
    /* not an object: refused before anything is written */
    assert_status(cu_docker_config(cat->containers, &v20, "[1]", &out, &changed, &only, &err), CU_E_INPUT, &err);
    assert_status(cu_docker_config(cat->containers, &v20, "{\"a\": ", &out, &changed, &only, &err), CU_E_INPUT, &err);
}

static void
toolkit_no_cgroups(void **state)
{
    (void)state;
    CU_AUTOFREE char *a = cu_ctk_no_cgroups("[nvidia-container-cli]\nenvironment = []\n#no-cgroups = false\nldconfig = \"@/sbin/ldconfig\"\n");
    assert_string_equal(a, "[nvidia-container-cli]\nno-cgroups = true\nenvironment = []\n#no-cgroups = false\nldconfig = \"@/sbin/ldconfig\"\n");
    CU_AUTOFREE char *b = cu_ctk_no_cgroups("[nvidia-container-cli]\nno-cgroups = false\n");
    assert_string_equal(b, "[nvidia-container-cli]\nno-cgroups = true\n");
    assert_null(cu_ctk_no_cgroups("[nvidia-container-cli]\nno-cgroups = true\n"));
    CU_AUTOFREE char *c = cu_ctk_no_cgroups("disable-require = false");
    assert_string_equal(c, "disable-require = false\n\n[nvidia-container-cli]\nno-cgroups = true\n");
}

/* ---- CDI ---- */

static void
cdi_spec_of_the_recorded_output(void **state)
{
    (void)state;
    CU_AUTOFREE char *tmpl = fixture("nvidia-ctk-cdi-generate.yaml.tmpl");
    struct cu_cdi_spec s;
    assert_true(cu_cdi_read("/var/run/cdi/nvidia.yaml", tmpl, &s));
    assert_string_equal(s.kind, "example.com/device");
    assert_int_equal(s.devices.n, 2);
    assert_string_equal(s.devices.v[0], "0");
    assert_string_equal(s.devices.v[1], "all");
    char b[32];
    assert_string_equal(cu_driver_version_format(&s.driver, b, sizeof(b)), "999.88.77");
    assert_false(s.wsl);
    cu_cdi_spec_fini(&s);
    const char *json = "{\"cdiVersion\":\"0.5.0\",\"kind\":\"nvidia.com/gpu\",\"devices\":[{\"name\":\"0\",\"containerEdits\":{\"deviceNodes\":"
                       "[{\"path\":\"/dev/dxg\"}]}},{\"name\":\"all\"}],\"containerEdits\":{\"hooks\":[{\"args\":[\"nvidia-cdi-hook\","
                       "\"enable-cuda-compat\",\"--host-driver-version=580.95.05\"]}]}}";
    assert_true(cu_cdi_read("/etc/cdi/nvidia.json", json, &s));
    assert_string_equal(s.kind, "nvidia.com/gpu");
    assert_int_equal(s.devices.n, 2);
    assert_string_equal(cu_driver_version_format(&s.driver, b, sizeof(b)), "580.95.05");
    assert_true(s.wsl);
    cu_cdi_spec_fini(&s);
    assert_false(cu_cdi_read("/etc/cdi/x.yaml", "not: a spec\n", &s));
}

static int
setup(void **state)
{
    (void)state;
    struct cu_error err;
    return cu_catalog_load(NULL, &cat, &err) == CU_OK ? 0 : -1;
}

static int
teardown(void **state)
{
    (void)state;
    cu_catalog_free(cat);
    return 0;
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(toml_reads_what_engines_write),
        cmocka_unit_test(toml_refuses_what_engines_refuse),
        cmocka_unit_test(containerd_16_edits_the_root_and_keeps_its_cri_section),
        cmocka_unit_test(containerd_21_writes_a_dropin_of_the_roots_version),
        cmocka_unit_test(containerd_23_v3_root_gets_a_v3_dropin_with_runtime_type),
        cmocka_unit_test(the_toolkits_2026_default_dropin_is_refused),
        cmocka_unit_test(containerd_refuses_what_it_cannot_write),
        cmocka_unit_test(containerd_dump_check),
        cmocka_unit_test(docker_daemon_json_keeps_the_users_keys),
        cmocka_unit_test(toolkit_no_cgroups),
        cmocka_unit_test(cdi_spec_of_the_recorded_output),
    };
    if (setup(NULL) != 0)
        return 1;
    int rc = TU_RUN(tests);
    teardown(NULL);
    return rc;
}
