/* SPDX-License-Identifier: MIT */
/*
 * What the dynamic loader would load (core/machine/ldpath.c), on real ELF objects built with the
 * compiler: their DT_SONAME, DT_NEEDED, DT_RPATH and DT_RUNPATH; ld.so.conf and its includes; the
 * search in the loader's order; the start-up file that sets a folder in LD_LIBRARY_PATH.  And verify's
 * judge of the libraries a framework mapped (core/verify/verify_loaded.c) for the two issue-36 cases a
 * real process cannot show in a test, a system CUDA in ld.so.conf.d and a distribution's library in a
 * default folder: the probe's view of them, as its /proc/self/maps would give it.
 */
#include "config.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/base/mem.h"
#include "core/base/sysroot.h"
#include "core/catalog/catalog.h"
#include "core/machine/ldpath.h"
#include "core/machine/ldwalk.h"
#include "core/verify/checks.h"
#include "core/verify/verify.h"
#include "core/verify/verify_loaded.h"
#include "testutil.h"

static bool have_cc;

/* Build @dir/@rel, a shared object named @soname that asks for @needed, with DT_RUNPATH or DT_RPATH @path. */
static void
build_so(const char *dir, const char *rel, const char *soname, const char *needed, const char *path, bool rpath)
{
    char *src = cu_xasprintf("%s/src-%s.c", dir, soname), *out = cu_xasprintf("%s/%s", dir, rel);
    char *stub = cu_xasprintf("%s/stub-%s.so", dir, soname);
    tu_write(dir, strrchr(src, '/') + 1, "int cudaup_x(void) { return 1; }\n");
    char *dirpart = cu_xstrdup(out);
    *strrchr(dirpart, '/') = '\0';
    const char *mk[] = {"mkdir", "-p", dirpart, NULL};
    assert_int_equal(tu_spawn(mk), 0);
    char *son = cu_xasprintf("-Wl,-soname,%s", soname), *nson = needed ? cu_xasprintf("-Wl,-soname,%s", needed) : NULL;
    char *rp = path ? cu_xasprintf("-Wl,-rpath,%s", path) : NULL;
    if (needed) {
        const char *st[] = {"cc", "-shared", "-fPIC", "-o", stub, src, nson, NULL};
        assert_int_equal(tu_spawn(st), 0);
    }
    const char *argv[] = {"cc", "-shared", "-fPIC", "-o", out, src, son, "-Wl,--no-as-needed",
                          rpath ? "-Wl,--disable-new-dtags" : "-Wl,--enable-new-dtags", needed ? stub : "-lc",
                          rp ? rp : "-lc", NULL};
    assert_int_equal(tu_spawn(argv), 0);
    free(src);
    free(out);
    free(stub);
    free(dirpart);
    free(son);
    free(nson);
    free(rp);
}

static void
elf_read(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("elf");
    struct cu_sysroot root;
    struct cu_error err;
    assert_ok(cu_sysroot_init(&root, dir, &err), &err);
    build_so(dir, "a/libtorch_cuda.so", "libtorch_cuda.so", "libcudnn.so.9", "$ORIGIN/../nvidia/cudnn/lib", false);
    build_so(dir, "b/libold.so", "libold.so.1", "libcublas.so.12", "/opt/old/lib", true);
    struct cu_elf_dyn d;
    assert_ok(cu_elf_dyn_read(&root, "/a/libtorch_cuda.so", &d, &err), &err);
    assert_string_equal(d.soname, "libtorch_cuda.so");
    assert_true(d.n_needed >= 1);
    assert_string_equal(d.needed[0], "libcudnn.so.9");
    assert_string_equal(d.runpath, "$ORIGIN/../nvidia/cudnn/lib");
    assert_null(d.rpath);
    cu_elf_dyn_fini(&d);
    assert_ok(cu_elf_dyn_read(&root, "/b/libold.so", &d, &err), &err);
    assert_string_equal(d.rpath, "/opt/old/lib");
    assert_null(d.runpath);
    cu_elf_dyn_fini(&d);
    tu_write(dir, "c/not-elf.so", "hello\n");
    assert_status(cu_elf_dyn_read(&root, "/c/not-elf.so", &d, &err), CU_E_INPUT, &err);
    assert_status(cu_elf_dyn_read(&root, "/c/missing.so", &d, &err), CU_E_IO, &err);
    cu_sysroot_fini(&root);
    tu_tmpdir_free(dir);
}

/* The loader's order: DT_RPATH (without DT_RUNPATH), LD_LIBRARY_PATH, DT_RUNPATH, ld.so.conf, defaults. */
static void
search_order(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("ld");
    struct cu_sysroot root;
    struct cu_error err;
    assert_ok(cu_sysroot_init(&root, dir, &err), &err);
    build_so(dir, "env/torch/lib/libtorch_cuda.so", "libtorch_cuda.so", "libq.so.1", "$ORIGIN/../../nvidia/q/lib", false);
    build_so(dir, "old/libold.so", "libold.so", "libq.so.1", "/rp", true);
    tu_write(dir, "env/nvidia/q/lib/libq.so.1", "x");
    tu_write(dir, "llp/libq.so.1", "x");
    tu_write(dir, "rp/libq.so.1", "x");
    tu_write(dir, "usr/local/cuda-11.2/lib64/libq.so.1", "x");
    tu_write(dir, "usr/lib/x86_64-linux-gnu/libq.so.1", "x");
    tu_write(dir, "etc/ld.so.conf", "include ld.so.conf.d/*.conf\n/opt/a # a comment\n");
    tu_write(dir, "etc/ld.so.conf.d/10-cuda.conf", "# NVIDIA's\n/usr/local/cuda-11.2/lib64/\n");
    tu_write(dir, "etc/ld.so.conf.d/README", "/not/read\n");
    struct cu_ldconf conf;
    cu_ldconf_read(&root, NULL, &conf);
    assert_int_equal(conf.n, 2);
    assert_string_equal(conf.dirs[0], "/usr/local/cuda-11.2/lib64");
    assert_string_equal(cu_ldconf_file(&conf, "/usr/local/cuda-11.2/lib64"), "/etc/ld.so.conf.d/10-cuda.conf");
    assert_string_equal(cu_ldconf_file(&conf, "/opt/a/"), "/etc/ld.so.conf");
    assert_null(cu_ldconf_file(&conf, "/not/read"));

    struct cu_elf_dyn t, o;
    struct cu_ld_hit hit;
    const char *obj = "/env/torch/lib/libtorch_cuda.so";
    assert_ok(cu_elf_dyn_read(&root, obj, &t, &err), &err);
    assert_ok(cu_elf_dyn_read(&root, "/old/libold.so", &o, &err), &err);
    /* LD_LIBRARY_PATH comes before DT_RUNPATH */
    assert_true(cu_ld_find(&root, "libq.so.1", obj, &t, "/nowhere:/llp", &conf, &hit));
    assert_string_equal(hit.path, "/llp/libq.so.1");
    assert_int_equal(hit.via, CU_LD_ENV);
    free(hit.path);
    assert_true(cu_ld_find(&root, "libq.so.1", obj, &t, NULL, &conf, &hit));
    assert_string_equal(hit.path, "/env/torch/lib/../../nvidia/q/lib/libq.so.1");
    assert_int_equal(hit.via, CU_LD_RUNPATH);
    free(hit.path);
    /* DT_RPATH (no DT_RUNPATH) comes before LD_LIBRARY_PATH */
    assert_true(cu_ld_find(&root, "libq.so.1", "/old/libold.so", &o, "/llp", &conf, &hit));
    assert_int_equal(hit.via, CU_LD_RPATH);
    free(hit.path);
    /* Without DT_RUNPATH's file: the cache's folders, naming the file; then the defaults. */
    char *p = cu_xasprintf("%s/env/nvidia/q/lib/libq.so.1", dir);
    unlink(p);
    free(p);
    assert_true(cu_ld_find(&root, "libq.so.1", obj, &t, NULL, &conf, &hit));
    assert_int_equal(hit.via, CU_LD_CACHE);
    assert_string_equal(hit.file, "/etc/ld.so.conf.d/10-cuda.conf");
    free(hit.path);
    assert_true(cu_ld_find(&root, "libq.so.1", obj, &t, NULL, NULL, &hit));
    assert_int_equal(hit.via, CU_LD_DEFAULT);
    assert_string_equal(hit.path, "/usr/lib/x86_64-linux-gnu/libq.so.1");
    free(hit.path);
    assert_false(cu_ld_find(&root, "libnone.so.1", obj, &t, "/llp", &conf, &hit));
    assert_true(cu_ld_cuda_lib("libcudnn.so.9") && cu_ld_cuda_lib("libcudnn_ops.so.9") &&
                cu_ld_cuda_lib("libnvJitLink.so.12") && cu_ld_cuda_lib("libcublasLt.so.12.8.4.1"));
    assert_false(cu_ld_cuda_lib("libcuda.so.1") || cu_ld_cuda_lib("libdxcore.so") || cu_ld_cuda_lib("libcudnn.so.x"));
    cu_elf_dyn_fini(&t);
    cu_elf_dyn_fini(&o);
    cu_ldconf_fini(&conf);
    cu_sysroot_fini(&root);
    tu_tmpdir_free(dir);
}

static void
env_file(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("envf");
    struct cu_sysroot root;
    struct cu_error err;
    assert_ok(cu_sysroot_init(&root, dir, &err), &err);
    tu_write(dir, "home/u/.bashrc", "alias ll='ls -l'\nexport LD_LIBRARY_PATH=$CONDA_PREFIX/lib:/opt/x/lib64\n");
    tu_write(dir, "etc/profile.d/cuda.sh", "export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}\n");
    const char *envp[] = {"HOME=/home/u", "CONDA_PREFIX=/opt/conda", NULL};
    char *f = cu_ld_env_file(&root, envp, NULL, "/opt/conda/lib");
    assert_string_equal(f, "/home/u/.bashrc");
    free(f);
    f = cu_ld_env_file(&root, envp, NULL, "/usr/local/cuda/lib64/");
    assert_string_equal(f, "/etc/profile.d/cuda.sh");
    free(f);
    assert_null(cu_ld_env_file(&root, envp, NULL, "/opt/x/lib")); /* a prefix of another folder is not it */
    assert_null(cu_ld_env_file(&root, envp, NULL, "/opt/y/lib"));
    cu_sysroot_fini(&root);
    tu_tmpdir_free(dir);
}

static const struct cu_catalog *judge_cat; /* the rules of the frameworks' own, when a test sets it */

/* The probe's view (what /proc/self/maps gave) judged: one check, "libraries", with the cause and its fix. */
static struct cu_check *
judge(const char *root_dir, const char *probe, bool bundled, struct cu_checks *out)
{
    struct cu_sysroot root;
    struct cu_error err;
    json_error_t je;
    assert_ok(cu_sysroot_init(&root, root_dir, &err), &err);
    json_t *run = json_loads(probe, 0, &je);
    assert_non_null(run);
    const char *envp[] = {"HOME=/home/u", NULL};
    struct cu_verify_opts o = {.dir = "/opt/cudaup/cuda-12.4", .envp = envp, .ld_root = &root, .cat = judge_cat};
    memset(out, 0, sizeof(*out));
    const json_t *runs[1] = {run};
    cu_verify_judge_libraries(&o, "env", bundled, runs, 1, out);
    json_decref(run);
    cu_sysroot_fini(&root);
    for (size_t i = 0; i < out->n; i++)
        if (strcmp(out->v[i].name, "libraries") == 0)
            return &out->v[i];
    fail();
    return NULL;
}

#define PROBE(path, loaded)                                                                                            \
    "{\"order\": [\"tensorflow\"], \"prefix\": \"/env\", \"site\": [\"/env/lib/python3.11/site-packages\"],"             \
    " \"ld_library_path\": null, \"frameworks\": [{\"framework\": \"tensorflow\", \"runtime\": {\"cudnn\":"              \
    " {\"built\": \"8.6\", \"loaded\": \"" loaded "\"}}}], \"libraries\": [{\"name\": \"libcudnn.so.8\", \"path\": \""  \
    path "\", \"real\": \"" path "\", \"version\": \"" loaded "\", \"owners\": [], \"framework\": \"tensorflow\"}]}"

static void
judge_conf_and_default(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("judge");
    tu_write(dir, "etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n");
    tu_write(dir, "etc/ld.so.conf.d/cuda-11-2.conf", "/usr/local/cuda-11.2/targets/x86_64-linux/lib\n");
    struct cu_checks c;
    /* A TensorFlow without CUDA wheels of its own, given an older cuDNN by the loader's cache. */
    struct cu_check *k = judge(dir, PROBE("/usr/local/cuda-11.2/targets/x86_64-linux/lib/libcudnn.so.8", "8.1.0"), false, &c);
    assert_int_equal(k->status, CU_CHECK_FAIL);
    assert_non_null(strstr(k->detail, "TensorFlow was built against cuDNN 8.6 but loaded 8.1.0 from /usr/local/cuda-11.2/"));
    assert_non_null(strstr(k->detail, "/etc/ld.so.conf.d/cuda-11-2.conf puts /usr/local/cuda-11.2/targets/x86_64-linux/lib"));
    assert_non_null(strstr(k->fix, "ldconfig"));
    assert_int_equal(json_array_size(c.libraries), 1);
    cu_checks_fini(&c);
    /* ... or by a default folder, where a package of the distribution put it. */
    k = judge(dir, PROBE("/usr/lib/x86_64-linux-gnu/libcudnn.so.8", "8.1.0"), false, &c);
    assert_int_equal(k->status, CU_CHECK_FAIL);
    assert_non_null(strstr(k->detail, "default folders"));
    assert_non_null(strstr(k->fix, "dpkg -S"));
    cu_checks_fini(&c);
    /* The plan's own CUDA install serves a framework without wheels: that passes... */
    k = judge(dir, PROBE("/opt/cudaup/cuda-12.4/lib64/libcudnn.so.8", "8.9.7"), false, &c);
    assert_int_equal(k->status, CU_CHECK_PASS);
    cu_checks_fini(&c);
    /* ... and is outside for frameworks that bring their own wheels. */
    k = judge(dir, PROBE("/opt/cudaup/cuda-12.4/lib64/libcudnn.so.8", "8.9.7"), true, &c);
    assert_int_equal(k->status, CU_CHECK_FAIL);
    assert_non_null(strstr(k->detail, "outside the environment"));
    cu_checks_fini(&c);
    tu_tmpdir_free(dir);
}

/*
 * ld.so.conf as input (issue 46 item 9): files that include each other are read once each (not N^8 times), a
 * FIFO where a file is expected is passed over (never waited on: the walk runs in a child that an alarm would
 * end, so the old wait shows as a failure, not a hang), and a set cancel flag stops the walk.
 */
/*
 * LD_LIBRARY_PATH names a folder through a link (a system CUDA's lib64, a link to lib; issue 47, measured with real
 * wheels: verify blamed /etc/ld.so.conf.d for what LD_LIBRARY_PATH had put first, the mapped file's real path being
 * .../lib).  The variable is blamed, in the user's own spelling.
 */
static void
judge_llp_through_link(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("judgelink");
    tu_write(dir, "opt/cuda-13.0/lib/libcudnn.so.8", "x");
    tu_write(dir, "etc/ld.so.conf", "/opt/cuda-13.0/lib\n");
    char *link = cu_xasprintf("%s/opt/cuda-13.0/lib64", dir);
    assert_int_equal(symlink("lib", link), 0);
    free(link);
    struct cu_checks c;
    struct cu_check *k = judge(dir,
        "{\"order\": [\"tensorflow\"], \"prefix\": \"/env\", \"site\": [\"/env/lib/python3.11/site-packages\"],"
        " \"ld_library_path\": \"/opt/cuda-13.0/lib64\", \"frameworks\": [{\"framework\": \"tensorflow\", \"runtime\":"
        " {\"cudnn\": {\"built\": \"8.6\", \"loaded\": \"8.1.0\"}}}], \"libraries\": [{\"name\": \"libcudnn.so.8\", \"path\":"
        " \"/opt/cuda-13.0/lib/libcudnn.so.8\", \"real\": \"/opt/cuda-13.0/lib/libcudnn.so.8\", \"version\": \"8.1.0\","
        " \"owners\": [], \"framework\": \"tensorflow\"}]}", false, &c);
    assert_int_equal(k->status, CU_CHECK_FAIL);
    assert_non_null(strstr(k->detail, "LD_LIBRARY_PATH holds /opt/cuda-13.0/lib64"));
    assert_null(strstr(k->detail, "ld.so.conf"));
    assert_non_null(strstr(k->fix, "out of LD_LIBRARY_PATH"));
    cu_checks_fini(&c);
    tu_tmpdir_free(dir);
}

/*
 * Each framework by its own rule (issue 47 item 3; data/compat/framework_runtime_checks.csv, read in the wheels): JAX
 * 0.10.2 holds cuBLAS to 12.1 or newer and cuDNN to its build's major.minor (scale 100).  cudaup's three-framework plan
 * gave it the pinned cuBLAS 12.8.4 though it was built against 12.9.1, which verify failed on a rule stricter than
 * JAX's; that passes now, and what JAX itself refuses still fails, naming its rule.
 */
#define JAXPROBE(cublas_built, cublas_loaded, cudnn_built, cudnn_loaded, rt_built, rt_loaded)                      \
    "{\"order\": [\"jax\"], \"prefix\": \"/env\", \"site\": [\"/env/lib/python3.11/site-packages\"],"               \
    " \"ld_library_path\": null, \"frameworks\": [{\"framework\": \"jax\", \"version\": \"0.10.2\","                   \
    " \"cuda_build\": \"12\", \"runtime\": {\"cublas\": {\"built\": \"" rt_built "\", \"loaded\": \"" rt_loaded "\"}},"  \
    " \"version_checks\": [{\"component\": \"cuBLAS\", \"built\": " cublas_built ", \"loaded\": " cublas_loaded "},"     \
    " {\"component\": \"cuDNN\", \"built\": " cudnn_built ", \"loaded\": " cudnn_loaded "}]}],"                          \
    " \"libraries\": [{\"name\": \"libcublas.so.12\", \"path\": \"/env/lib/python3.11/site-packages/nvidia/cublas/lib/"  \
    "libcublas.so.12\", \"real\": \"/env/lib/python3.11/site-packages/nvidia/cublas/lib/libcublas.so.12\","             \
    " \"version\": \"" rt_loaded "\", \"owners\": [\"nvidia-cublas-cu12 12.8.4.1\"], \"framework\": \"jax\"}]}"

static void
judge_own_rules(void **state)
{
    (void)state;
    char *dir = NULL;
    struct cu_catalog *cat = NULL;
    assert_int_equal(tu_catfx_init("judgerules", &dir, &cat), 0);
    judge_cat = cat;
    struct cu_checks c;
    struct cu_check *k = judge(dir, JAXPROBE("120901", "120804", "91000", "91002", "12.9.1", "12.8.4"), true, &c);
    assert_int_equal(k->status, CU_CHECK_PASS);
    cu_checks_fini(&c);
    k = judge(dir, JAXPROBE("120901", "120004", "91000", "91002", "12.9.1", "12.0.4"), true, &c);
    assert_int_equal(k->status, CU_CHECK_FAIL);
    assert_non_null(strstr(k->detail, "JAX holds cuBLAS to 120100 or newer"));
    assert_string_equal(k->framework, "jax");
    cu_checks_fini(&c);
    /* JAX's own arithmetic (build // scale against the unscaled version): cuDNN 9.8 beside a 9.10 build passes it,
     * as it passes JAX's _check_cuda_versions itself; a stricter reading would be a false alarm. */
    k = judge(dir, JAXPROBE("120901", "120804", "91000", "90800", "12.9.1", "12.8.4"), true, &c);
    assert_int_equal(k->status, CU_CHECK_PASS);
    cu_checks_fini(&c);
    judge_cat = NULL;
    tu_catfx_fini(dir, cat);
}

/* One library mapped twice, one copy from LD_LIBRARY_PATH (JAX's libnvJitLink.so.13 with a system CUDA first, measured
 * with real wheels): one problem with the cause's fix, not that and "loaded from outside" again for the same file. */
static void
judge_twice_once(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("judgetwice");
    tu_write(dir, "opt/cuda-13.0/lib64/libnvJitLink.so.13", "x");
    struct cu_checks c;
    judge(dir,
          "{\"order\": [\"jax\"], \"prefix\": \"/env\", \"site\": [\"/env/lib/python3.11/site-packages\"],"
          " \"ld_library_path\": \"/opt/cuda-13.0/lib64\", \"frameworks\": [{\"framework\": \"jax\"}], \"libraries\": ["
          "{\"name\": \"libnvJitLink.so.13\", \"path\": \"/env/lib/python3.11/site-packages/nvidia/cu13/lib/libnvJitLink.so.13\","
          " \"real\": \"/env/lib/python3.11/site-packages/nvidia/cu13/lib/libnvJitLink.so.13\", \"version\": \"13.2.86\","
          " \"owners\": [\"nvidia-nvjitlink 13.2.86\"], \"framework\": \"jax\"},"
          "{\"name\": \"libnvJitLink.so.13\", \"path\": \"/opt/cuda-13.0/lib64/libnvJitLink.so.13\","
          " \"real\": \"/opt/cuda-13.0/lib64/libnvJitLink.so.13\", \"version\": \"13.0.88\", \"owners\": [],"
          " \"framework\": \"jax\"}]}",
          true, &c);
    size_t fails = 0;
    for (size_t i = 0; i < c.n; i++) {
        if (strcmp(c.v[i].name, "libraries") != 0)
            continue;
        assert_int_equal(c.v[i].status, CU_CHECK_FAIL);
        assert_non_null(strstr(c.v[i].detail, "mapped twice"));
        assert_non_null(strstr(c.v[i].detail, "LD_LIBRARY_PATH holds /opt/cuda-13.0/lib64"));
        assert_non_null(strstr(c.v[i].fix, "out of LD_LIBRARY_PATH"));
        fails++;
    }
    assert_int_equal(fails, 1);
    cu_checks_fini(&c);
    tu_tmpdir_free(dir);
}

static void
conf_walk_bounded(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("ldconf-loop");
    struct cu_sysroot root;
    struct cu_error err;
    assert_ok(cu_sysroot_init(&root, dir, &err), &err);
    tu_write(dir, "etc/ld.so.conf", "include ld.so.conf.d/*.conf\n/opt/top\n");
    tu_write(dir, "etc/ld.so.conf.d/a.conf", "include /etc/ld.so.conf.d/*.conf\n/opt/a\n");
    tu_write(dir, "etc/ld.so.conf.d/b.conf", "include /etc/ld.so.conf.d/*.conf\n/opt/b\n");
    tu_write(dir, "etc/ld.so.conf.d/c.conf", "include /etc/ld.so.conf\n/opt/c\n");
    tu_write(dir, "etc/ld.so.conf.d/d.conf/x", ""); /* a folder named like a file: not configuration */
    char *fifo = cu_xasprintf("%s/etc/ld.so.conf.d/fifo.conf", dir);
    assert_int_equal(mkfifo(fifo, 0644), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        alarm(120);
        struct cu_ldconf conf;
        cu_ldconf_read(&root, NULL, &conf);
        /* Each folder once, in the order the lines are met (an include where it stands): a.conf includes b.conf,
         * which includes c.conf, whose own line comes first; then b's, a's and ld.so.conf's own. */
        bool ok = conf.n == 4 && strcmp(conf.dirs[0], "/opt/c") == 0 && strcmp(conf.dirs[1], "/opt/b") == 0 &&
                  strcmp(conf.dirs[2], "/opt/a") == 0 && strcmp(conf.dirs[3], "/opt/top") == 0;
        if (!ok)
            fprintf(stderr, "ld.so.conf walk: %zu folders\n", conf.n);
        cu_ldconf_fini(&conf);
        _exit(ok ? 0 : 1);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    /* Cancelled before it starts: nothing read. */
    atomic_int cancel = 1;
    struct cu_ldconf conf;
    cu_ldconf_read(&root, &cancel, &conf);
    assert_int_equal(conf.n, 0);
    cu_ldconf_fini(&conf);
    free(fifo);
    cu_sysroot_fini(&root);
    tu_tmpdir_free(dir);
}

/* A name the loader finds nowhere (issue 47 review: cuDNN 9.10.2's sub-libraries have DT_RUNPATH $ORIGIN/../../nvrtc/lib,
 * the nvrtc wheel installs nvidia/cuda_nvrtc/lib, so TensorFlow alone cannot load libnvrtc.so.12): noted with the
 * object that asks, by dlopen and by DT_NEEDED, once; not when it is already loaded (torch preloads it by path) or
 * LD_LIBRARY_PATH has it; nothing noted while note_misses is off. */
static void
walk_misses(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("ldmiss");
    struct cu_sysroot root;
    struct cu_error err;
    assert_ok(cu_sysroot_init(&root, dir, &err), &err);
    build_so(dir, "env/nvidia/cudnn/lib/libcudnn_graph.so.9", "libcudnn_graph.so.9", NULL, "$ORIGIN/../../nvrtc/lib", false);
    build_so(dir, "env/nvidia/cudnn/lib/libcudnn_adv.so.9", "libcudnn_adv.so.9", "libnvrtc.so.12", "$ORIGIN/../../nvrtc/lib",
             false);
    tu_write(dir, "env/nvidia/cuda_nvrtc/lib/libnvrtc.so.12", "x");
    struct cu_ldconf conf;
    cu_ldconf_read(&root, NULL, &conf);
    struct cu_ldsim s;
    cu_ldsim_init(&s, &root, NULL, &conf);
    int g = cu_ldsim_dlopen(&s, "/env/nvidia/cudnn/lib/libcudnn_graph.so.9", -1);
    assert_true(g >= 0);
    assert_int_equal(cu_ldsim_dlopen(&s, "libnvrtc.so.12", g), -1);
    assert_int_equal(s.n_miss, 0); /* not noted unless asked to */
    s.note_misses = true;
    s.tag = 2;
    assert_int_equal(cu_ldsim_dlopen(&s, "libnvrtc.so.12", g), -1);
    assert_int_equal(cu_ldsim_dlopen(&s, "libnvrtc.so.12", g), -1);
    int a = cu_ldsim_dlopen(&s, "/env/nvidia/cudnn/lib/libcudnn_adv.so.9", -1);
    assert_true(a >= 0);
    /* (libc.so.6, which the scratch root lacks, is noted too: the caller judges which names matter.) */
    size_t k = 0;
    for (size_t i = 0; i < s.n_miss; i++) {
        if (strcmp(s.miss[i].name, "libnvrtc.so.12") != 0)
            continue;
        assert_int_equal(s.miss[i].by, k == 0 ? g : a); /* by its dlopen, then by its DT_NEEDED */
        assert_int_equal(s.miss[i].tag, 2);
        k++;
    }
    assert_int_equal(k, 2);
    cu_ldsim_fini(&s);
    /* Loaded before by its path (torch's _load_global_deps): the name is that object. */
    cu_ldsim_init(&s, &root, NULL, &conf);
    s.note_misses = true;
    assert_true(cu_ldsim_dlopen(&s, "/env/nvidia/cuda_nvrtc/lib/libnvrtc.so.12", -1) >= 0);
    g = cu_ldsim_dlopen(&s, "/env/nvidia/cudnn/lib/libcudnn_graph.so.9", -1);
    assert_true(cu_ldsim_dlopen(&s, "libnvrtc.so.12", g) >= 0);
    for (size_t i = 0; i < s.n_miss; i++)
        assert_string_not_equal(s.miss[i].name, "libnvrtc.so.12");
    cu_ldsim_fini(&s);
    /* LD_LIBRARY_PATH names its folder. */
    cu_ldsim_init(&s, &root, "/env/nvidia/cuda_nvrtc/lib", &conf);
    s.note_misses = true;
    g = cu_ldsim_dlopen(&s, "/env/nvidia/cudnn/lib/libcudnn_graph.so.9", -1);
    assert_true(cu_ldsim_dlopen(&s, "libnvrtc.so.12", g) >= 0);
    for (size_t i = 0; i < s.n_miss; i++)
        assert_string_not_equal(s.miss[i].name, "libnvrtc.so.12");
    cu_ldsim_fini(&s);
    cu_ldconf_fini(&conf);
    cu_sysroot_fini(&root);
    tu_tmpdir_free(dir);
}

int
main(void)
{
    have_cc = access("/usr/bin/cc", X_OK) == 0;
    if (!have_cc)
        return tu_skip_all("ldpath", "no C compiler (cc, which scripts/bootstrap installs) to build the ELF objects with");
    const struct CMUnitTest tests[] = {cmocka_unit_test(elf_read), cmocka_unit_test(search_order), cmocka_unit_test(env_file), cmocka_unit_test(judge_llp_through_link), cmocka_unit_test(judge_own_rules), cmocka_unit_test(judge_twice_once),
                                       cmocka_unit_test(judge_conf_and_default), cmocka_unit_test(conf_walk_bounded), cmocka_unit_test(walk_misses)};
    return TU_RUN(tests);
}
