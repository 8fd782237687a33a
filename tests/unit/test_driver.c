/* SPDX-License-Identifier: MIT */
/*
 * The driver's plan at its lowest layers (issue 32): the kernel meta read from dpkg's status as
 * ubuntu-drivers reads it, the data's rows chosen for that kernel, the steps in their order (the lock
 * before an unversioned install, EPEL and CRB before a DKMS stream), and apt's sources extended to every
 * suite of the release.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/mem.h"
#include "core/base/str.h"
#include "core/base/sysroot.h"
#include "core/catalog/catalog.h"
#include "core/doctor/doctor.h"
#include "core/doctor/driver_doctor.h"
#include "core/machine/driver_state.h"
#include "core/machine/sysinfo.h"
#include "core/resolve/driver.h"
#include "core/resolve/driver_distro.h"
#include "installers/driver.h"
#include "installers/driver_image.h"
#include "installers/driver_sources.h"
#include "testutil.h"

static const char *const no_path[] = {"PATH=/nonexistent", NULL};

/* A dpkg status paragraph. */
static void
pkg(struct cu_buf *b, const char *name, const char *depends)
{
    cu_buf_printf(b, "Package: %s\nStatus: install ok installed\nVersion: 1\n%s%s%s\n", name, depends ? "Depends: " : "",
                  depends ? depends : "", depends ? "\n" : "");
}

static struct cu_drv_state *
probe(const char *dir, const char *status, const char *krel)
{
    struct cu_sysroot root;
    struct cu_error err;
    struct cu_facts f;
    memset(&f, 0, sizeof(f));
    tu_write(dir, "var/lib/dpkg/status", status);
    tu_write(dir, "proc/sys/kernel/osrelease", krel);
    assert_ok(cu_sysroot_init(&root, dir, &err), &err);
    struct cu_drv_state *s = cu_drv_state_probe(&root, &f, no_path);
    cu_sysroot_fini(&root);
    return s;
}

/* The newest installed kernel image's meta, as ubuntu-drivers' kerneldetection finds it. */
static void
kernel_meta_from_dpkg(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("drv-meta");
    struct cu_buf b;
    cu_buf_init(&b);
    pkg(&b, "linux-image-5.15.0-91-generic", NULL);
    pkg(&b, "linux-image-6.8.0-45-generic", NULL);
    pkg(&b, "linux-image-generic", "linux-image-5.15.0-91-generic, linux-firmware");
    pkg(&b, "linux-image-generic-hwe-22.04", "linux-image-6.8.0-45-generic (= 6.8.0-45.45~22.04.1), linux-firmware");
    struct cu_drv_state *s = probe(dir, b.data, "5.15.0-91-generic\n");
    /* The running kernel is the GA one, but the newest installed kernel comes from the HWE meta. */
    assert_string_equal(s->kernel_meta, "generic-hwe-22.04");
    cu_drv_state_free(s);
    cu_buf_reset(&b);
    pkg(&b, "linux-image-6.8.0-1015-aws", NULL);
    pkg(&b, "linux-image-aws", "linux-image-6.8.0-1015-aws");
    pkg(&b, "linux-image-virtual", "linux-image-6.8.0-49-generic");
    s = probe(dir, b.data, "6.8.0-1015-aws\n");
    assert_string_equal(s->kernel_meta, "aws");
    cu_drv_state_free(s);
    cu_buf_reset(&b);
    pkg(&b, "linux-image-6.8.0-45-generic", NULL);
    s = probe(dir, b.data, "6.8.0-45-generic\n"); /* no meta: none is guessed */
    assert_null(s->kernel_meta);
    cu_drv_state_free(s);
    cu_buf_fini(&b);
    tu_tmpdir_free(dir);
}

struct fx {
    char *dir;
    struct cu_catalog *cat;
};

static int
setup(void **state)
{
    struct fx *x = cu_xcalloc(1, sizeof(*x));
    if (tu_catfx_init("drv", &x->dir, &x->cat) != 0)
        return -1;
    *state = x;
    return 0;
}

static int
teardown(void **state)
{
    struct fx *x = *state;
    tu_catfx_fini(x->dir, x->cat);
    free(x);
    return 0;
}

/* Facts of a machine with one GPU of @cc, no driver, on os @id @ver, kernel @krel, kernel meta @km. */
static void
facts_of(struct cu_facts *f, struct cu_drv_state *s, struct cu_gpu_info *g, const char *id, const char *ver,
         const char *krel, const char *km, const char *cc)
{
    memset(f, 0, sizeof(*f));
    memset(s, 0, sizeof(*s));
    memset(g, 0, sizeof(*g));
    cu_strv_init(&s->installed);
    cu_strv_init(&s->held);
    cu_strv_init(&s->nvidia_functions);
    s->kernel_release = cu_xstrdup(krel);
    s->kernel_meta = km ? cu_xstrdup(km) : NULL;
    s->secure_boot = 0;
    s->module_for_kernel = -1;
    s->module_signed = -1;
    f->os.id = cu_xstrdup(id);
    f->os.version_id = cu_xstrdup(ver);
    snprintf(f->os.machine, sizeof(f->os.machine), "x86_64");
    f->drv = s;
    g->name = cu_xstrdup("GPU");
    assert_true(cu_version_parse(cc, &g->cc));
    f->gpus = g;
    f->n_gpus = 1;
}

static void
facts_fini(struct cu_facts *f, struct cu_drv_state *s, struct cu_gpu_info *g)
{
    free(s->kernel_release);
    free(s->kernel_meta);
    free(f->os.id);
    free(f->os.version_id);
    free(g->name);
}

static struct cu_drv_plan *
choose(const struct cu_catalog *cat, const struct cu_facts *f, const char *driver)
{
    struct cu_drv_wish w = {.driver = driver};
    struct cu_drv_in in = {f, cat, &w};
    return cu_drv_choose(&in);
}

static int
step_at(const struct cu_drv_plan *p, const char *action)
{
    for (size_t i = 0; i < p->n_steps; i++)
        if (strcmp(p->steps[i].action, action) == 0)
            return (int)i;
    return -1;
}

/* Ubuntu: the prebuilt modules of the kernel meta (virtual takes generic's), a DKMS row only for others. */
static void
ubuntu_modules_follow_the_meta(void **state)
{
    struct fx *x = *state;
    struct cu_facts f;
    struct cu_drv_state s;
    struct cu_gpu_info g;
    facts_of(&f, &s, &g, "ubuntu", "22.04", "6.8.0-45-generic", "generic-hwe-22.04", "8.9");
    struct cu_drv_plan *p = choose(x->cat, &f, NULL);
    assert_string_equal(p->action, "install");
    assert_true(cu_strv_contains(&p->packages, "linux-modules-nvidia-580-open-generic-hwe-22.04"));
    cu_drv_plan_free(p);
    facts_fini(&f, &s, &g);
    facts_of(&f, &s, &g, "ubuntu", "24.04", "6.8.0-45-generic", "virtual", "8.9");
    p = choose(x->cat, &f, NULL);
    assert_true(cu_strv_contains(&p->packages, "linux-modules-nvidia-580-open-generic"));
    assert_string_equal(p->kernel_meta, "generic");
    cu_drv_plan_free(p);
    facts_fini(&f, &s, &g);
    facts_of(&f, &s, &g, "ubuntu", "22.04", "5.15.0-1050-kvm", "kvm", "8.9"); /* no prebuilt modules for kvm */
    p = choose(x->cat, &f, NULL);
    assert_true(cu_strv_contains(&p->packages, "linux-headers-kvm"));
    assert_false(cu_strv_contains(&p->packages, "linux-modules-nvidia-580-open-kvm"));
    cu_drv_plan_free(p);
    facts_fini(&f, &s, &g);
}

/* Debian 13 names its kernels with one dash (6.12.48+deb13-amd64): without a kernel meta installed, the flavour is
 * read from that name, and the plan brings the metas DKMS builds with (issue 42: the plan was refused as if no
 * package source carried a branch).  Names without a flavour (Arch, Fedora) give none. */
static void
debian13_kernel_names(void **state)
{
    struct fx *x = *state;
    struct cu_facts f;
    struct cu_drv_state s;
    struct cu_gpu_info g;
    facts_of(&f, &s, &g, "debian", "13", "6.12.48+deb13-amd64", NULL, "6.1");
    assert_string_equal(cu_drv_kernel_meta(&f), "amd64");
    struct cu_drv_plan *p = choose(x->cat, &f, NULL);
    assert_string_equal(p->action, "install");
    assert_string_equal(p->flavor, "proprietary");
    assert_true(p->branch <= 580); /* Pascal's last branch */
    assert_true(cu_strv_contains(&p->packages, "linux-headers-amd64"));
    assert_true(cu_strv_contains(&p->packages, "linux-image-amd64"));
    cu_drv_plan_free(p);
    facts_fini(&f, &s, &g);
    static const char *const names[][2] = {
        {"6.12.48+deb13-cloud-amd64", "cloud-amd64"}, {"6.1.0-26-cloud-amd64", "cloud-amd64"},
        {"6.12.12+bpo-amd64", "amd64"},                {"6.8.0-45-generic-64k", "generic-64k"},
        {"6.4.0-150600.23.25-default", "default"},     {"6.12.10-1-lts", "lts"},
        {"6.17.9-arch1-1", NULL},                     {"6.17.9-zen1-1-zen", NULL},
        {"6.16.7-200.fc43.x86_64", NULL},             {"6.1.112-122.189.amzn2023.x86_64", NULL},
        {"6.12", NULL},
    };
    for (size_t i = 0; i < CU_N_ELEMENTS(names); i++) {
        facts_of(&f, &s, &g, "debian", "13", names[i][0], NULL, "6.1");
        const char *km = cu_drv_kernel_meta(&f);
        if (names[i][1])
            assert_string_equal(km, names[i][1]);
        else
            assert_null(km);
        facts_fini(&f, &s, &g);
    }
}

/* Add branch @b to the first Ubuntu 24.04 row of @flavor made for the generic kernel (the table's rows are
 * the catalog's; the test owns the loaded copy). */
static void
add_branch(struct cu_catalog *cat, const char *flavor, int b)
{
    for (size_t i = 0; i < cat->driver->n_pkgs; i++) {
        struct cu_drv_pkg *r = &cat->driver->pkgs[i];
        if (strcmp(r->distro, "Ubuntu 24.04") == 0 && strcmp(r->flavor, flavor) == 0 && !r->variant &&
            r->signed_modules[0] && strcmp(r->source, "distro") == 0) {
            r->branches = realloc(r->branches, (r->n_branches + 1) * sizeof(int));
            assert_non_null(r->branches);
            r->branches[r->n_branches++] = b;
            return;
        }
    }
    fail_msg("no Ubuntu 24.04 %s row", flavor);
}

/* The branch table (issue 42): 620 is packaged with the open modules only, so no row may plan it proprietary, and
 * the plan counts on the release the table names where NVIDIA's CUDA table names none of the branch. */
static void
branch_table(void **state)
{
    struct fx *x = *state;
    const struct cu_drv_branch *b = cu_drv_branch_for(x->cat->driver, 620);
    assert_non_null(b);
    assert_true(b->open && !b->proprietary);
    assert_string_equal(b->designation, "Long Term Support Branch");
    b = cu_drv_branch_for(x->cat->driver, 580);
    assert_true(b && b->open && b->proprietary && b->end_of_life);
    add_branch(x->cat, "proprietary", 620); /* a row that says more than the branch is packaged in */
    add_branch(x->cat, "open", 620);
    struct cu_facts f;
    struct cu_drv_state s;
    struct cu_gpu_info g;
    facts_of(&f, &s, &g, "ubuntu", "24.04", "6.8.0-45-generic", "generic", "7.5");
    struct cu_drv_plan *p = choose(x->cat, &f, "620-proprietary");
    assert_string_equal(p->action, "refuse");
    cu_drv_plan_free(p);
    p = choose(x->cat, &f, NULL);
    assert_string_equal(p->action, "install");
    assert_int_equal(p->branch, 620);
    assert_string_equal(p->flavor, "open");
    char v[32];
    assert_string_equal(cu_driver_version_format(&p->version, v, sizeof(v)), "620.70.06");
    bool said = false;
    for (size_t i = 0; i < p->reasons.n; i++)
        said |= strstr(p->reasons.v[i], "620.70.06") != NULL;
    assert_true(said);
    assert_true(cu_strv_contains(&p->packages, "linux-modules-nvidia-620-open-generic"));
    cu_drv_plan_free(p);
    facts_fini(&f, &s, &g);
}

/* os-release read whole (issue 43): quotes, escapes and comments as os-release(5) has them. */
static void
os_release_fields(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("drv-osrel");
    tu_write(dir, "etc/os-release",
             "NAME=\"Linux Mint\"\n# a comment\nID=linuxmint\nID_LIKE=\"ubuntu debian\"\nPRETTY_NAME='Mint \\\"22\\\"'\n"
             "VERSION_CODENAME=wilma\nUBUNTU_CODENAME=noble\nEMPTY=\nbad line\n");
    struct cu_drv_state *s = probe(dir, "", "6.8.0-51-generic\n");
    assert_string_equal(cu_drv_state_os_value(s, "ID_LIKE"), "ubuntu debian");
    assert_string_equal(cu_drv_state_os_value(s, "UBUNTU_CODENAME"), "noble");
    assert_string_equal(cu_drv_state_os_value(s, "PRETTY_NAME"), "Mint \\\"22\\\""); /* single quotes keep backslashes */
    assert_string_equal(s->version_codename, "wilma");
    assert_null(cu_drv_state_os_value(s, "EMPTY"));
    assert_null(cu_drv_state_os_value(s, "ID_LIK"));
    cu_drv_state_free(s);
    tu_tmpdir_free(dir);
}

/* Facts of a derivative: os-release's fields besides ID and VERSION_ID ("KEY=value" each). */
static void
os_fields(struct cu_drv_state *s, struct cu_facts *f, const char *pretty, const char *const *kv)
{
    cu_strv_init(&s->os_release);
    for (; *kv; kv++)
        cu_strv_push(&s->os_release, *kv);
    f->os.pretty_name = cu_xstrdup(pretty);
}

static void
os_fields_fini(struct cu_drv_state *s, struct cu_facts *f)
{
    cu_strv_fini(&s->os_release);
    free(f->os.pretty_name);
    f->os.pretty_name = NULL;
}

/* A derivative is planned from the release ID_LIKE and its codename key name (issue 43): Linux Mint 22 from Ubuntu
 * 24.04 (UBUNTU_CODENAME, not its own VERSION_CODENAME wilma), LMDE 6 from Debian 12 (DEBIAN_CODENAME); one whose
 * base release cudaup does not know is refused naming what it read. */
static void
derivatives_by_id_like(void **state)
{
    struct fx *x = *state;
    struct cu_facts f;
    struct cu_drv_state s;
    struct cu_gpu_info g;
    static const char *const mint[] = {"ID_LIKE=ubuntu debian", "VERSION_CODENAME=wilma", "UBUNTU_CODENAME=noble", NULL};
    facts_of(&f, &s, &g, "linuxmint", "22", "6.8.0-51-generic", "generic", "8.6");
    os_fields(&s, &f, "Linux Mint 22", mint);
    struct cu_drv_plan *p = choose(x->cat, &f, NULL);
    assert_string_equal(p->action, "install");
    assert_string_equal(p->manager, "apt");
    assert_string_equal(p->base, "Ubuntu 24.04");
    assert_string_equal(p->codename, "noble");
    assert_string_equal(p->distro, "Linux Mint 22 (Ubuntu 24.04 base)");
    assert_true(cu_strv_contains(&p->packages, "linux-modules-nvidia-580-open-generic"));
    bool said = false;
    for (size_t i = 0; i < p->reasons.n; i++)
        said |= strstr(p->reasons.v[i], "UBUNTU_CODENAME=noble") != NULL;
    assert_true(said);
    cu_drv_plan_free(p);
    /* NVIDIA's repository as on the base: ubuntu2404, its keyring's pinned hash (not "ubuntu22" of Mint's 22) */
    struct cu_drv_wish wn = {.source = "nvidia"};
    struct cu_drv_in inn = {&f, x->cat, &wn};
    p = cu_drv_choose(&inn);
    assert_string_equal(p->action, "install");
    assert_non_null(p->repo);
    assert_non_null(strstr(p->repo, "/repos/ubuntu2404/"));
    int key = step_at(p, "keyring");
    assert_true(key >= 0);
    assert_non_null(p->steps[key].sha256);
    cu_drv_plan_free(p);
    char *hint = cu_drv_distro_hint(&f, x->cat);
    assert_non_null(hint);
    assert_non_null(strstr(hint, "Linux Mint 22 (Ubuntu 24.04 base)"));
    assert_non_null(strstr(hint, "ubuntu-drivers install"));
    free(hint);
    os_fields_fini(&s, &f);
    facts_fini(&f, &s, &g);

    static const char *const lmde[] = {"ID_LIKE=debian", "VERSION_CODENAME=faye", "DEBIAN_CODENAME=bookworm", NULL};
    facts_of(&f, &s, &g, "linuxmint", "6", "6.1.0-26-amd64", "amd64", "8.6");
    os_fields(&s, &f, "LMDE 6 (faye)", lmde);
    p = choose(x->cat, &f, NULL);
    assert_string_equal(p->action, "install");
    assert_string_equal(p->base, "Debian 12");
    assert_string_equal(p->codename, "bookworm");
    cu_drv_plan_free(p);
    os_fields_fini(&s, &f);
    facts_fini(&f, &s, &g);

    static const char *const unknown[] = {"ID_LIKE=ubuntu debian", "VERSION_CODENAME=zara", "UBUNTU_CODENAME=zesty", NULL};
    facts_of(&f, &s, &g, "linuxmint", "99", "6.8.0-51-generic", "generic", "8.6");
    os_fields(&s, &f, "Linux Mint 99", unknown);
    p = choose(x->cat, &f, NULL);
    assert_string_equal(p->action, "refuse");
    assert_non_null(strstr(p->refusal, "UBUNTU_CODENAME=zesty"));
    assert_non_null(strstr(p->refusal, "Ubuntu 24.04 (noble)"));
    cu_drv_plan_free(p);
    os_fields_fini(&s, &f);
    facts_fini(&f, &s, &g);
}

/* An apt preferences pin holds the version glob of its row ({B}.* by default; a derivative's own build, {B}.*pop*):
 * with a plain 580.* pin, apt takes the newest 580 of any origin, so a derivative's own build would lose to its
 * base's newer one (issue 43). */
static void
pin_version_glob(void **state)
{
    struct fx *x = *state;
    struct cu_facts f;
    struct cu_drv_state s;
    struct cu_gpu_info g;
    facts_of(&f, &s, &g, "ubuntu", "24.04", "6.8.0-45-generic", "kvm", "6.1"); /* kvm: the DKMS row */
    struct cu_drv_plan *p = choose(x->cat, &f, NULL);
    int pin = step_at(p, "pin");
    assert_true(pin >= 0);
    assert_non_null(strstr(p->steps[pin].text, "Pin: version 580.*\n"));
    assert_string_equal(p->pin_version, "580.*");
    cu_drv_plan_free(p);
    for (size_t i = 0; i < x->cat->driver->n_pkgs; i++) {
        struct cu_drv_pkg *r = &x->cat->driver->pkgs[i];
        if (strcmp(r->distro, "Ubuntu 24.04") == 0 && strcmp(r->kernels[0], "*") == 0 && !r->pin_version)
            r->pin_version = cu_xstrdup("{B}.*pop*");
    }
    p = choose(x->cat, &f, NULL);
    pin = step_at(p, "pin");
    assert_non_null(strstr(p->steps[pin].text, "Pin: version 580.*pop*\n"));
    assert_string_equal(p->pin, "Pin: version 580.*pop* (*nvidia*)");
    cu_drv_plan_free(p);
    facts_fini(&f, &s, &g);
}

/* The lock on the branch comes before the install of a package without the branch in its name. */
static void
lock_before_install(void **state)
{
    struct fx *x = *state;
    struct cu_facts f;
    struct cu_drv_state s;
    struct cu_gpu_info g;
    facts_of(&f, &s, &g, "fedora", "43", "6.16.7-200.fc43.x86_64", NULL, "6.1");
    struct cu_drv_plan *p = choose(x->cat, &f, NULL);
    assert_string_equal(p->action, "install");
    int pin = step_at(p, "pin"), inst = step_at(p, "install"), repo = step_at(p, "repository");
    assert_true(repo >= 0 && pin > repo && inst > pin);
    assert_string_equal(p->steps[pin].argv[0], "dnf");
    assert_string_equal(p->steps[pin].argv[1], "versionlock");
    cu_drv_plan_free(p);
    facts_fini(&f, &s, &g);
    facts_of(&f, &s, &g, "debian", "12", "6.1.0-26-amd64", "amd64", "8.9");
    struct cu_drv_wish w = {.source = "nvidia"};
    struct cu_drv_in in = {&f, x->cat, &w};
    p = cu_drv_choose(&in);
    pin = step_at(p, "pin");
    inst = step_at(p, "install");
    assert_true(pin >= 0 && inst > pin);
    assert_string_equal(p->steps[pin].argv[3], "nvidia-driver-pinning-580");
    /* the keyring is fetched with its pinned hash */
    int key = step_at(p, "keyring");
    assert_true(key >= 0 && key < pin);
    assert_non_null(p->steps[key].sha256);
    cu_drv_plan_free(p);
    facts_fini(&f, &s, &g);
}

/* RHEL's rebuilds: CRB and EPEL before the DKMS stream; the headers by the meta that follows the kernel. */
static void
epel_before_dkms(void **state)
{
    struct fx *x = *state;
    struct cu_facts f;
    struct cu_drv_state s;
    struct cu_gpu_info g;
    facts_of(&f, &s, &g, "rocky", "9.4", "5.14.0-427.13.1.el9_4.x86_64", NULL, "9.0");
    struct cu_drv_plan *p = choose(x->cat, &f, NULL);
    int crb = step_at(p, "crb"), epel = step_at(p, "epel"), mod = step_at(p, "module"), inst = step_at(p, "install");
    assert_true(crb >= 0 && epel > crb && mod > epel && inst > mod);
    assert_true(cu_strv_contains(&p->packages, "kernel-devel-matched"));
    for (size_t i = 0; i < p->packages.n; i++)
        assert_null(strstr(p->packages.v[i], "427.13.1")); /* never the running kernel's own */
    cu_drv_plan_free(p);
    facts_fini(&f, &s, &g);
    facts_of(&f, &s, &g, "opensuse-tumbleweed", "20250306", "6.17.9-1-default", NULL, "8.9");
    p = choose(x->cat, &f, NULL);
    int repo = step_at(p, "repository");
    assert_true(repo >= 0);
    assert_non_null(strstr(p->steps[repo].argv[4], "/repos/suse16/"));
    assert_true(step_at(p, "refresh") > repo && step_at(p, "match") > step_at(p, "install") &&
                step_at(p, "lock") > step_at(p, "match"));
    cu_drv_plan_free(p);
    facts_fini(&f, &s, &g);
}

/* A module missing on a cloud image's "virtual" kernel: doctor's fix (and repair) name the signed modules
 * of the meta the row maps it to (generic), as the plan does; Ubuntu has no linux-modules-nvidia-*-virtual. */
static void
doctor_module_of_the_row_meta(void **state)
{
    struct fx *x = *state;
    struct cu_facts f;
    struct cu_drv_state s;
    struct cu_gpu_info g;
    facts_of(&f, &s, &g, "ubuntu", "24.04", "6.8.0-45-generic", "virtual", "8.9");
    cu_strv_push(&s.installed, "nvidia-driver-580-open");
    assert_true(cu_version_parse("580.95.05", &s.lib_version));
    s.module_for_kernel = 0;
    s.flavor = cu_xstrdup("open");
    struct cu_problems seen, out;
    cu_problems_init(&seen);
    cu_problems_init(&out);
    cu_drv_doctor(&f, x->cat, &seen, &out);
    const char *fix = NULL;
    for (size_t i = 0; i < out.n; i++)
        if (strcmp(out.v[i].code, "driver-module-missing") == 0)
            fix = out.v[i].fix;
    assert_non_null(fix);
    assert_non_null(strstr(fix, "apt-get install linux-modules-nvidia-580-open-generic`"));
    assert_null(strstr(fix, "-virtual"));
    cu_problems_fini(&out);
    cu_problems_fini(&seen);
    free(s.flavor);
    cu_strv_fini(&s.installed);
    facts_fini(&f, &s, &g);
}

/* Class 3, after a kernel update: repair's plan installs the running kernel's own headers (the data's
 * running_headers, linux-headers-RELEASE on Debian, kernel-devel-RELEASE on Rocky) before the DKMS rebuild,
 * and says so before it runs; a machine image (no kernel runs there) gets no running kernel's headers. */
static void
repair_plans_running_headers(void **state)
{
    struct fx *x = *state;
    const struct {
        const char *id, *ver, *krel, *km, *pkg, *lib, *want;
    } cases[] = {
        {"debian", "12", "6.1.0-57-amd64", "amd64", "nvidia-driver", "535.216.01", "apt-get install -y linux-headers-6.1.0-57-amd64"},
        {"rocky", "9.4", "5.14.0-503.14.1.el9_5.x86_64", NULL, "nvidia-open", "580.95.05",
         "dnf install -y kernel-devel-5.14.0-503.14.1.el9_5.x86_64"},
    };
    for (size_t c = 0; c < CU_N_ELEMENTS(cases); c++)
        for (int image = 0; image < 2; image++) {
            struct cu_facts f;
            struct cu_drv_state s;
            struct cu_gpu_info g;
            facts_of(&f, &s, &g, cases[c].id, cases[c].ver, cases[c].krel, cases[c].km, "8.9");
            cu_strv_push(&s.installed, cases[c].pkg);
            assert_true(cu_version_parse(cases[c].lib, &s.lib_version));
            s.module_for_kernel = 0;
            s.image = image;
            struct cu_problems pr;
            struct cu_strv lines;
            cu_problems_init(&pr);
            cu_strv_init(&lines);
            cu_problems_add(&pr, "driver-module-missing", CU_SEV_ERROR, cu_xstrdup("m"), cu_xstrdup("f"));
            inst_driver_repair_plan(&f, x->cat, &pr, image, &lines);
            int hdr = -1, dkms = -1;
            for (size_t i = 0; i < lines.n; i++) {
                if (strstr(lines.v[i], cases[c].want))
                    hdr = (int)i;
                if (strstr(lines.v[i], "DKMS"))
                    dkms = (int)i;
            }
            assert_true(dkms >= 0);
            if (image)
                assert_int_equal(hdr, -1);
            else
                assert_true(hdr >= 0 && hdr < dkms);
            cu_strv_fini(&lines);
            cu_problems_fini(&pr);
            cu_strv_fini(&s.installed);
            facts_fini(&f, &s, &g);
        }
}

/* An install into a machine image ends only when the branch is held there as the distribution holds it: apt's
 * preferences pinning each of the plan's packages to B.*, NVIDIA's pinning package installed, or apt-mark hold
 * (the old check looked at apt-mark holds only, so a missing preferences file or pinning package passed). */
static void
image_hold(void **state)
{
    (void)state;
    struct cu_drv_plan d;
    struct cu_strv inst, held;
    memset(&d, 0, sizeof(d));
    cu_strv_init(&d.pin_packages);
    cu_strv_init(&inst);
    cu_strv_init(&held);
    d.branch = 535;
    char k1[] = "apt preferences", k2[] = "nvidia pinning package", k3[] = "apt-mark hold";
    d.pin_kind = k1;
    cu_strv_push(&d.pin_packages, "*nvidia*");
    cu_strv_push(&d.pin_packages, "libcuda*");
    const char *good = "# Written by cudaup\nPackage: *nvidia* libcuda*\nPin: version 535.*\nPin-Priority: 990\n";
    assert_null(drv_image_hold_missing(&d, "/img", good, &inst, &held));
    char *why = drv_image_hold_missing(&d, "/img", NULL, &inst, &held);
    assert_non_null(why);
    assert_non_null(strstr(why, "*nvidia*"));
    free(why);
    why = drv_image_hold_missing(&d, "/img", "Package: *nvidia* libcuda*\nPin: version 550.*\n", &inst, &held);
    assert_non_null(why);
    free(why);
    why = drv_image_hold_missing(&d, "/img", "Package: *nvidia*\nPin: version 535.*\n\nPackage: libcuda*\nPin: origin x\n", &inst, &held);
    assert_non_null(why);
    assert_non_null(strstr(why, "libcuda*"));
    free(why);
    cu_strv_fini(&d.pin_packages);
    cu_strv_init(&d.pin_packages);
    d.pin_kind = k2;
    cu_strv_push(&d.pin_packages, "nvidia-driver-pinning-580");
    why = drv_image_hold_missing(&d, "/img", NULL, &inst, &held);
    assert_non_null(why);
    free(why);
    cu_strv_push(&inst, "nvidia-driver-pinning-580");
    assert_null(drv_image_hold_missing(&d, "/img", NULL, &inst, &held));
    d.pin_kind = k3;
    why = drv_image_hold_missing(&d, "/img", NULL, &inst, &held);
    assert_non_null(why);
    free(why);
    cu_strv_push(&held, "nvidia-driver-pinning-580");
    assert_null(drv_image_hold_missing(&d, "/img", NULL, &inst, &held));
    /* dnf and zypper, from the image's own files (issue 46 item 11) */
    char k4[] = "dnf versionlock", k5[] = "dnf module", k6[] = "zypper addlock", stream[] = "nvidia-driver:580-open";
    d.branch = 580;
    d.pin_kind = k4;
    const char *toml = "version = \"1.0\"\n[[packages]]\nname = \"nvidia-driver\"\n[[packages.conditions]]\nkey = \"evr\"\n"
                       "comparator = \"=\"\nvalue = \"3:580.95.05-1.fc43\"\n";
    assert_null(drv_image_hold_files(&d, "/img", toml, NULL));
    assert_null(drv_image_hold_files(&d, "/img", "nvidia-driver-3:580.95.05-1.el9.*\n", NULL));
    why = drv_image_hold_files(&d, "/img", NULL, NULL);
    assert_non_null(why);
    free(why);
    why = drv_image_hold_files(&d, "/img", "nvidia-driver-3:595.58.03-1.el9.*\nkernel-5.580.1\n", NULL);
    assert_non_null(why);
    free(why);
    d.pin_kind = k5;
    d.module_stream = stream;
    assert_null(drv_image_hold_files(&d, "/img", NULL, "[nvidia-driver]\nname=nvidia-driver\nstream=580-open\nstate=enabled\n"));
    why = drv_image_hold_files(&d, "/img", NULL, "[nvidia-driver]\nstream=595-open\nstate=enabled\n");
    assert_non_null(why);
    free(why);
    d.module_stream = NULL;
    d.pin_kind = k6;
    cu_strv_fini(&d.pin_packages);
    cu_strv_init(&d.pin_packages);
    cu_strv_push(&d.pin_packages, "nvidia-compute-utils-G06");
    assert_null(drv_image_hold_files(&d, "/img", "type: package\nsolvable_name: nvidia-compute-utils-G06\n", NULL));
    why = drv_image_hold_files(&d, "/img", "type: package\nsolvable_name: nvidia-compute-utils-G06x\n", NULL);
    assert_non_null(why);
    assert_non_null(strstr(why, "nvidia-compute-utils-G06"));
    free(why);
    cu_strv_fini(&d.pin_packages);
    cu_strv_fini(&inst);
    cu_strv_fini(&held);
}

/* apt's sources: the components go to the release, -updates and -security, each at its own URI. */
static void
sources_every_suite(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("drv-src");
    struct cu_sys sys;
    tu_write(dir, "etc/apt/sources.list",
             "deb http://deb.debian.org/debian bookworm main non-free-firmware\n"
             "deb http://deb.debian.org/debian bookworm-updates main non-free-firmware\n"
             "deb [signed-by=/usr/share/keyrings/x.gpg] https://developer.download.nvidia.com/compute/cuda/repos/debian12/x86_64/ /\n");
    tu_write(dir, "etc/apt/sources.list.d/security.sources",
             "Types: deb\nURIs: http://deb.debian.org/debian-security\nSuites: bookworm-security\nComponents: main contrib\n");
    cu_sys_init(&sys, no_path, dir, false); /* the root's files are read through it */
    char *t = inst_driver_sources_text(&sys, "contrib non-free non-free-firmware", NULL, "bookworm", CU_DRV_SOURCES_FILE);
    assert_non_null(t);
    assert_non_null(strstr(t, "URIs: http://deb.debian.org/debian\nSuites: bookworm\nComponents: contrib non-free\n"));
    assert_non_null(strstr(t, "Suites: bookworm-updates\nComponents: contrib non-free\n"));
    assert_non_null(strstr(t, "URIs: http://deb.debian.org/debian-security\nSuites: bookworm-security\nComponents: non-free non-free-firmware\n"));
    assert_null(strstr(t, "developer.download.nvidia.com"));
    free(t);
    tu_write(dir, "etc/apt/sources.list", "deb http://deb.debian.org/debian bookworm main contrib non-free non-free-firmware\n");
    tu_write(dir, "etc/apt/sources.list.d/security.sources",
             "Types: deb\nURIs: http://deb.debian.org/debian-security\nSuites: bookworm-security\nComponents: main contrib non-free non-free-firmware\n");
    assert_null(inst_driver_sources_text(&sys, "contrib non-free non-free-firmware", NULL, "bookworm", CU_DRV_SOURCES_FILE));
    tu_write(dir, "etc/apt/sources.list", "");
    tu_write(dir, "etc/apt/sources.list.d/security.sources", "");
    t = inst_driver_sources_text(&sys, "contrib", NULL, "bookworm", CU_DRV_SOURCES_FILE);
    assert_string_equal(t, "");
    free(t);
    cu_sys_fini(&sys);
    tu_tmpdir_free(dir);
}

/* A file of @n bytes under @dir (tu_write makes its folders). */
static void
write_bytes(const char *dir, const char *rel, const char *data, size_t n)
{
    tu_write(dir, rel, "");
    char *path = cu_path_join(dir, rel);
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(data, 1, n, fp), n);
    assert_int_equal(fclose(fp), 0);
    free(path);
}

/* A fourth-generation NVSwitch board (HGX B200) has no NVIDIA bridge on PCI: it is known by the SW_MNG mark in the
 * VPD of its ConnectX-7's management PF (binary: tags, lengths and NULs before the mark); a plain NIC has none. */
static void
nvlink5_from_vpd(void **state)
{
    struct fx *x = *state;
    static const char marked[] = "\x82\x05\x00" "CX-7 " "\x90\x14\x00" "PN\x03" "ABC" "V3\x0b" "SMDL=SW_MNG" "\x00\x78";
    static const char plain[] = "\x82\x05\x00" "CX-7 " "\x90\x0a\x00" "PN\x03" "ABC" "\x00\x00\x78";
    write_bytes(x->dir, "sys/class/infiniband/mlx5_8/device/vpd", marked, sizeof(marked) - 1);
    write_bytes(x->dir, "sys/class/infiniband/mlx5_0/device/vpd", plain, sizeof(plain) - 1);
    struct cu_drv_state *s = probe(x->dir, "", "6.8.0-45-generic\n");
    struct cu_facts f;
    memset(&f, 0, sizeof(f));
    f.drv = s;
    const struct cu_drv_nvswitch_vpd *row = NULL;
    assert_int_equal(s->infiniband_vpd.n, 2);
    assert_int_equal(cu_drv_nvlink5_count(&f, x->cat, &row), 1);
    assert_non_null(row);
    assert_string_equal(row->mark, "SW_MNG");
    assert_int_equal(cu_drv_nvswitch_count(&f, x->cat, NULL), 0);
    cu_drv_state_free(s);
    /* The plain NIC alone: no such board. */
    char *p = cu_path_join(x->dir, "sys/class/infiniband/mlx5_8/device/vpd");
    assert_int_equal(remove(p), 0);
    free(p);
    s = probe(x->dir, "", "6.8.0-45-generic\n");
    f.drv = s;
    assert_int_equal(cu_drv_nvlink5_count(&f, x->cat, NULL), 0);
    cu_drv_state_free(s);
}

/* A command a step runs after the install transaction joins it when no installed package ships it (issue 49,
 * item 1): Debian 12 with Secure Boot queues DKMS's key with mokutil, which only shim-signed brings there. */
static void
tools_the_steps_run(void **state)
{
    struct fx *x = *state;
    struct cu_facts f;
    struct cu_drv_state s;
    struct cu_gpu_info g;
    facts_of(&f, &s, &g, "debian", "12", "6.1.0-26-amd64", "amd64", "5.2");
    s.secure_boot = 1;
    cu_strv_init(&s.packages);
    cu_strv_push(&s.packages, "kmod");
    s.packages_read = true;
    struct cu_drv_plan *p = choose(x->cat, &f, NULL);
    assert_string_equal(p->action, "install");
    assert_string_equal(p->secure_boot, "mok");
    int inst = step_at(p, "install"), mok = step_at(p, "mok");
    assert_true(inst >= 0 && mok > inst);
    assert_string_equal(p->steps[mok].argv[0], "mokutil");
    assert_true(cu_strv_contains(&p->packages, "mokutil"));
    size_t n = 0;
    while (p->steps[inst].argv[n])
        n++;
    assert_string_equal(p->steps[inst].argv[n - 1], "mokutil");
    bool said = false;
    for (size_t i = 0; i < p->reasons.n; i++)
        said |= strstr(p->reasons.v[i], "mokutil --import") && strstr(p->reasons.v[i], "not have installed");
    assert_true(said);
    assert_int_equal(p->reasons.n, p->reason_sources.n);
    cu_drv_plan_free(p);
    /* Installed (shim-signed brought it): nothing added. */
    cu_strv_push(&s.packages, "mokutil");
    p = choose(x->cat, &f, NULL);
    assert_false(cu_strv_contains(&p->packages, "mokutil"));
    cu_drv_plan_free(p);
    /* The database could not be read: named, and said so. */
    s.packages_read = false;
    p = choose(x->cat, &f, NULL);
    assert_true(cu_strv_contains(&p->packages, "mokutil"));
    cu_drv_plan_free(p);
    /* Secure Boot off: no key to queue, nothing added. */
    s.secure_boot = 0;
    p = choose(x->cat, &f, NULL);
    assert_int_equal(step_at(p, "mok"), -1);
    assert_false(cu_strv_contains(&p->packages, "mokutil"));
    cu_drv_plan_free(p);
    cu_strv_fini(&s.packages);
    facts_fini(&f, &s, &g);
}

/* The fabric manager exits when it starts with no NVSwitch driver loaded (NVIDIA/gpu-operator#610): its service is
 * started after `modprobe nvidia`, or, with a reboot planned, enabled without --now to start at the next boot. */
static void
fabric_manager_after_the_module(void **state)
{
    struct fx *x = *state;
    struct cu_facts f;
    struct cu_drv_state s;
    struct cu_gpu_info g;
    facts_of(&f, &s, &g, "ubuntu", "24.04", "6.8.0-45-generic", "generic", "9.0");
    cu_strv_push(&s.nvidia_functions, "0x22a3 0x068000");
    struct cu_drv_plan *p = choose(x->cat, &f, NULL);
    assert_string_equal(p->action, "install");
    assert_true(p->fabricmanager.n > 0 && !p->reboot);
    int load = step_at(p, "load"), svc = step_at(p, "service");
    assert_true(load >= 0 && svc == load + 1);
    assert_string_equal(p->steps[svc].argv[2], "--now");
    cu_drv_plan_free(p);
    s.nouveau_bound = true; /* a reboot is planned: enabled, not started */
    p = choose(x->cat, &f, NULL);
    assert_true(p->reboot);
    int reboot = step_at(p, "reboot");
    svc = step_at(p, "service");
    assert_true(svc >= 0 && reboot == svc + 1);
    assert_string_equal(p->steps[svc].argv[1], "enable");
    assert_string_equal(p->steps[svc].argv[2], "nvidia-fabricmanager");
    assert_null(p->steps[svc].argv[3]);
    cu_drv_plan_free(p);
    cu_strv_fini(&s.nvidia_functions);
    facts_fini(&f, &s, &g);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kernel_meta_from_dpkg),
        cmocka_unit_test_setup_teardown(ubuntu_modules_follow_the_meta, setup, teardown),
        cmocka_unit_test_setup_teardown(lock_before_install, setup, teardown),
        cmocka_unit_test_setup_teardown(debian13_kernel_names, setup, teardown),
        cmocka_unit_test_setup_teardown(branch_table, setup, teardown),
        cmocka_unit_test(os_release_fields),
        cmocka_unit_test_setup_teardown(derivatives_by_id_like, setup, teardown),
        cmocka_unit_test_setup_teardown(pin_version_glob, setup, teardown),
        cmocka_unit_test_setup_teardown(epel_before_dkms, setup, teardown),
        cmocka_unit_test_setup_teardown(doctor_module_of_the_row_meta, setup, teardown),
        cmocka_unit_test(sources_every_suite),
        cmocka_unit_test_setup_teardown(repair_plans_running_headers, setup, teardown),
        cmocka_unit_test(image_hold),
        cmocka_unit_test_setup_teardown(nvlink5_from_vpd, setup, teardown),
        cmocka_unit_test_setup_teardown(tools_the_steps_run, setup, teardown),
        cmocka_unit_test_setup_teardown(fabric_manager_after_the_module, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
