/* SPDX-License-Identifier: MIT */
/* The resolver as a pure function: in-memory facts and manifests in, a plan out. */
#include "config.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/catalog/catalog.h"
#include "core/base/jsonutil.h"
#include "core/base/log.h"
#include "core/base/mem.h"
#include "core/resolve/resolve.h"
#include "core/base/str.h"
#include "testutil.h"

/* Does some line of @v contain @sub? */
static bool
cu_strv_contains_sub(const struct cu_strv *v, const char *sub)
{
    for (size_t i = 0; i < v->n; i++)
        if (strstr(v->v[i], sub))
            return true;
    return false;
}

/* ---- an in-memory manifest source over tests/fixtures/nvidia ---- */

struct memsrc {
    char *labels[2][64];
    size_t n[2];
    struct cu_manifest *m[2][64];
    const char *broken; /* a label whose manifest is malformed */
    const char *missing; /* a label listed but not served */
};

static int
desc(const void *a, const void *b)
{
    return cu_version_strcmp(*(char *const *)b, *(char *const *)a);
}

static void
memsrc_load(struct memsrc *s)
{
    const char *src = getenv("SRCDIR");
    assert_non_null(src);
    for (int p = 0; p < 2; p++) {
        char dir[4096];
        snprintf(dir, sizeof(dir), "%s/tests/fixtures/nvidia/%s/redist", src, p ? "cudnn" : "cuda");
        DIR *d = opendir(dir);
        assert_non_null(d);
        struct dirent *de;
        while ((de = readdir(d))) {
            if (strncmp(de->d_name, "redistrib_", 10) != 0)
                continue;
            s->labels[p][s->n[p]++] = strndup(de->d_name + 10, strlen(de->d_name) - 15);
        }
        closedir(d);
        qsort(s->labels[p], s->n[p], sizeof(char *), desc);
    }
}

static void
memsrc_fini(struct memsrc *s)
{
    for (int p = 0; p < 2; p++)
        for (size_t i = 0; i < s->n[p]; i++) {
            free(s->labels[p][i]);
            cu_manifest_free(s->m[p][i]);
        }
}

static enum cu_status
ms_index(void *ctx, enum cu_product p, char *const **labels, size_t *n, struct cu_error *err)
{
    (void)err;
    struct memsrc *s = ctx;
    *labels = s->labels[p];
    *n = s->n[p];
    return CU_OK;
}

static enum cu_status
ms_get(void *ctx, enum cu_product p, const char *label, const struct cu_manifest **out,
       struct cu_error *err)
{
    struct memsrc *s = ctx;
    if (s->missing && strcmp(label, s->missing) == 0)
        return cu_error_set(err, CU_E_NOT_FOUND, 0, "redistrib_%s.json is not on the mirror", label);
    if (s->broken && strcmp(label, s->broken) == 0) {
        struct cu_manifest *m;
        return cu_manifest_parse(p, label, "{\"x\": [", 7, &m, err);
    }
    for (size_t i = 0; i < s->n[p]; i++) {
        if (strcmp(s->labels[p][i], label) != 0)
            continue;
        if (!s->m[p][i]) {
            char path[4096];
            snprintf(path, sizeof(path), "%s/tests/fixtures/nvidia/%s/redist/redistrib_%s.json", getenv("SRCDIR"),
                     p ? "cudnn" : "cuda", label);
            char *data = tu_read(path);
            enum cu_status st = cu_manifest_parse(p, label, data, strlen(data), &s->m[p][i], err);
            free(data);
            if (st != CU_OK)
                return st;
        }
        *out = s->m[p][i];
        return CU_OK;
    }
    return cu_error_set(err, CU_E_NOT_FOUND, 0, "no %s", label);
}

/* ---- facts ---- */

static struct cu_facts *
facts(const char *driver, int n, ...)
{
    struct cu_facts *f = cu_xcalloc(1, sizeof(*f));
    snprintf(f->os.machine, sizeof(f->os.machine), "x86_64");
    f->gpus = cu_xcalloc((size_t)n + 1, sizeof(*f->gpus));
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++) {
        const char *name = va_arg(ap, const char *);
        const char *cc = va_arg(ap, const char *);
        f->gpus[i].index = i;
        f->gpus[i].name = cu_xstrdup(name);
        f->gpus[i].source = cu_xstrdup("test");
        assert_true(cu_version_parse(cc, &f->gpus[i].cc));
    }
    va_end(ap);
    f->n_gpus = (size_t)n;
    if (driver) {
        f->driver.kind = CU_DRIVER_NVIDIA;
        assert_true(cu_version_parse(driver, &f->driver.version));
    }
    return f;
}

struct fx {
    struct cu_catalog *cat;
    struct memsrc src;
    struct cu_manifest_source ms;
};

static int
setup(void **state)
{
    struct fx *x = calloc(1, sizeof(*x));
    struct cu_error err;
    if (cu_catalog_load(NULL, &x->cat, &err) != CU_OK)
        return -1;
    memsrc_load(&x->src);
    x->ms = (struct cu_manifest_source){&x->src, "https://mirror.test/compute", ms_index, ms_get, NULL};
    *state = x;
    return 0;
}

static int
teardown(void **state)
{
    struct fx *x = *state;
    memsrc_fini(&x->src);
    cu_catalog_free(x->cat);
    free(x);
    return 0;
}

static enum cu_status
resolve(struct fx *x, struct cu_facts *f, struct cu_wishes w, struct cu_plan **p, struct cu_error *err)
{
    struct cu_resolve_in in = {f, x->cat, &w, &x->ms, "/opt/p"};
    return cu_resolve(&in, p, err);
}

static char *
vs(const struct cu_version *v)
{
    static char buf[4][32];
    static int k;
    k = (k + 1) % 4;
    return cu_version_format(v, 0, buf[k], sizeof(buf[k]));
}

static void
hopper_tensorflow(void **state)
{
    struct fx *x = *state;
    struct cu_facts *f = facts("550.54.14", 1, "H100", "9.0");
    struct cu_plan *p = NULL;
    struct cu_error err;
    assert_ok(resolve(x, f, (struct cu_wishes){0}, &p, &err), &err);
    /* TensorFlow 2.21 carries sm_90 (read in its wheel) and needs CUDA 12.5 or newer, which driver 550 runs by
     * minor-version compatibility: the newest CUDA 12 on the mirror.  Its [and-cuda] wheels ask nvcc 12.5 or newer,
     * above the driver's CUDA 12.4 that the compiler wheels keep to: the default plans it over NVIDIA's archives. */
    assert_string_equal(vs(&p->cuda), "12.9.1");
    assert_string_equal(p->toolkit->kind, "system");
    assert_non_null(strstr(p->toolkit->reason, "tensorflow[and-cuda]"));
    assert_string_equal(p->cuda_path, "/opt/p/cuda-12.9");
    assert_true(p->has_cudnn);
    assert_string_equal(p->cudnn_variant, "12");
    assert_int_equal(p->cudnn.part[0], 9); /* TF 2.21 was tested with cuDNN 9.3 */
    assert_string_equal(p->framework->name, "tensorflow");
    assert_string_equal(p->framework->pip[0], "tensorflow==2.21.0");
    uint64_t sum = 0;
    for (size_t i = 0; i < p->n_downloads; i++) {
        sum += p->downloads[i].size;
        assert_true(strncmp(p->downloads[i].url, "https://mirror.test/compute/", 28) == 0);
        assert_int_equal(strlen(p->downloads[i].sha256), 64);
    }
    assert_int_equal(sum, p->download_bytes);
    bool why = false;
    for (size_t i = 0; i < p->reasons.n; i++)
        why |= strstr(p->reasons.v[i], "CUDA 12.9.1: driver 550.54.14") != NULL &&
               strstr(p->reasons.v[i], "minor-version compatibility") != NULL;
    assert_true(why);

    /* The archives: the default components (gen-catalog's list) that 12.9.1's manifest has for
     * linux-x86_64, and cuDNN; named here, not read back from the program. */
    static const char *const want[] = {"cuda_cccl", "cuda_cudart", "cuda_cupti", "cuda_nvcc", "cuda_nvrtc",
                                       "cuda_nvtx", "cuda_profiler_api", "cudnn", "libcublas", "libcufft",
                                       "libcurand", "libcusolver", "libcusparse", "libnvjitlink"};
    assert_int_equal(p->n_downloads, CU_N_ELEMENTS(want));
    for (size_t k = 0; k < CU_N_ELEMENTS(want); k++) {
        bool found = false;
        for (size_t i = 0; i < p->n_downloads; i++)
            found |= strcmp(p->downloads[i].component, want[k]) == 0;
        if (!found)
            fail_msg("the plan lacks %s", want[k]);
    }
    cu_plan_free(p);
    cu_facts_free(f);
}

/* The default's wheels for TensorFlow alone keep every wish (an independent review of issue 50's default found each of
 * these broken): --cuda X.Y takes the release whose [and-cuda] wheel asks for X.Y, not the newest with X.Y's archives
 * beside its own CUDA wheels; where none fits, the refusal --toolkit system gives; --cudnn in the plan over the
 * archives where the wheels cannot serve. */
static void
tf_default_keeps_wishes(void **state)
{
    struct fx *x = *state;
    struct cu_facts *f = facts("550.54.14", 1, "H100", "9.0");
    struct cu_plan *p = NULL;
    struct cu_error err;
    assert_ok(resolve(x, f, (struct cu_wishes){.cuda = "12.2"}, &p, &err), &err);
    assert_string_equal(p->framework->pip[0], "tensorflow[and-cuda]==2.15.1"); /* its wheel pins CUDA 12.2's runtime */
    assert_string_equal(p->toolkit->kind, "wheels");
    assert_string_equal(vs(&p->toolkit->release), "12.2.2");
    assert_int_equal(p->n_downloads, 0);
    cu_plan_free(p);
    p = NULL;
    assert_status(resolve(x, f, (struct cu_wishes){.cuda = "12.2", .framework = "tensorflow==2.21"}, &p, &err),
                  CU_E_UNSUPPORTED, &err);
    assert_null(p);
    assert_non_null(strstr(err.msg, "12.5"));
    assert_ok(resolve(x, f, (struct cu_wishes){.cudnn = "9.10"}, &p, &err), &err);
    assert_string_equal(p->toolkit->kind, "system"); /* 2.21's wheels ask nvcc 12.5+, above driver 550's CUDA */
    assert_string_equal(p->framework->pip[0], "tensorflow==2.21.0");
    assert_int_equal(p->cudnn.part[0], 9);
    assert_int_equal(p->cudnn.part[1], 10);
    cu_plan_free(p);
    cu_facts_free(f);
}

static void
driver_too_old(void **state)
{
    struct fx *x = *state;
    struct cu_facts *f = facts("550.54.14", 1, "H100", "9.0");
    f->driver.cuda_max = (struct cu_version){{12, 4}, 2};
    struct cu_plan *p = NULL;
    struct cu_error err;
    assert_status(resolve(x, f, (struct cu_wishes){.cuda = "12.9", .framework = "none"}, &p, &err),
                  CU_E_UNSUPPORTED, &err);
    assert_null(p);
    assert_non_null(strstr(err.msg, "575.57.08")); /* the number the user needs */
    assert_non_null(strstr(err.msg, "550.54.14"));
    assert_non_null(strstr(err.msg, "12.4"));
    cu_facts_free(f);
}

static void
gpu_dropped(void **state)
{
    struct fx *x = *state;
    struct cu_facts *f = facts("580.95.05", 1, "GeForce GTX 1080", "6.1");
    struct cu_plan *p = NULL;
    struct cu_error err;
    assert_status(resolve(x, f, (struct cu_wishes){.cuda = "13.0", .framework = "none"}, &p, &err),
                  CU_E_UNSUPPORTED, &err);
    assert_non_null(strstr(err.msg, "6.1"));
    assert_non_null(strstr(err.msg, "12.9"));
    /* auto skips CUDA 13 for Pascal, and cuDNN 9.14 lists Pascal under 5.0-9.0 rows */
    assert_ok(resolve(x, f, (struct cu_wishes){.framework = "none"}, &p, &err), &err);
    assert_string_equal(vs(&p->cuda), "12.9.1");
    cu_plan_free(p);
    cu_facts_free(f);
}

static void
tf_without_archives(void **state)
{
    struct fx *x = *state;
    struct cu_facts *f = facts("550.54.14", 1, "RTX", "8.6");
    struct cu_plan *p = NULL;
    struct cu_error err;
    assert_status(resolve(x, f, (struct cu_wishes){.framework = "tensorflow==1.14"}, &p, &err), CU_E_UNSUPPORTED,
                  &err);
    /* TensorFlow 1.x from a runfile (data/legacy), but CUDA 10.0 and cuDNN 7 predate an 8.6 GPU */
    assert_non_null(strstr(err.msg, "CUDA 10.0"));
    assert_non_null(strstr(err.msg, "8.6"));
    assert_non_null(strstr(err.advice, "nvidia-tensorflow"));
    assert_status(resolve(x, f, (struct cu_wishes){.framework = "keras==2.99"}, &p, &err), CU_E_UNSUPPORTED, &err);
    /* The version as written, whatever the name: "keras" is shorter than "tensorflow" (ASan found a read past it). */
    assert_non_null(strstr(err.msg, "TensorFlow 2.99 is not in cudaup's catalog"));
    assert_status(resolve(x, f, (struct cu_wishes){.framework = "tf==2.98"}, &p, &err), CU_E_UNSUPPORTED, &err);
    assert_non_null(strstr(err.msg, "TensorFlow 2.98 is not"));
    cu_facts_free(f);
}

static void
pytorch_and_jax(void **state)
{
    struct fx *x = *state;
    struct cu_facts *f = facts("580.95.05", 2, "RTX 4090", "8.9", "RTX 3090", "8.6");
    struct cu_plan *p = NULL;
    struct cu_error err;
    /* PyTorch 2.15's cu132 build (its code read in PyPI's wheel; cu130's is inferred) on 580 by minor-version
     * compatibility, the system CUDA 13.0. */
    assert_ok(resolve(x, f, (struct cu_wishes){.framework = "pytorch"}, &p, &err), &err);
    assert_string_equal(vs(&p->cuda), "13.0.2");
    assert_string_equal(p->framework->cuda_tag, "cu132");
    assert_string_equal(p->framework->index_url, "https://download.pytorch.org/whl/cu132");
    cu_plan_free(p);
    assert_ok(resolve(x, f, (struct cu_wishes){.framework = "torch==2.3.1"}, &p, &err), &err);
    assert_string_equal(vs(&p->cuda), "11.8.0");
    assert_string_equal(p->framework->pip[1], "torchvision==0.18.1");
    assert_string_equal(p->framework->python, "3.11");
    cu_plan_free(p);
    /* JAX's docs recommend the wheels that bring CUDA and cuDNN as pip packages. */
    assert_ok(resolve(x, f, (struct cu_wishes){.framework = "jax", .cuda = "12"}, &p, &err), &err);
    assert_string_equal(vs(&p->cuda), "12.9.1");
    assert_string_equal(p->framework->pip[0], "jax[cuda12]");
    assert_true(p->framework->bundled_runtime);
    cu_plan_free(p);
    /* The -local wheel only when asked, with what else it needs said. */
    assert_ok(resolve(x, f, (struct cu_wishes){.framework = "jax[cuda12-local]"}, &p, &err), &err);
    assert_string_equal(vs(&p->cuda), "12.9.1");
    assert_string_equal(p->framework->pip[0], "jax[cuda12-local]");
    assert_false(p->framework->bundled_runtime);
    assert_true(cu_version_strcmp(vs(&p->cudnn), "9.8") >= 0);
    assert_true(cu_strv_contains_sub(&p->warnings, "NCCL"));
    cu_plan_free(p);
    assert_status(resolve(x, f, (struct cu_wishes){.framework = "jax[cuda99]"}, &p, &err), CU_E_USAGE, &err);
    assert_non_null(strstr(err.msg, "jax[cuda99] is not a JAX extra"));
    assert_status(resolve(x, f, (struct cu_wishes){.framework = "pytorch==2.9", .cuda = "11.8"}, &p, &err),
                  CU_E_UNSUPPORTED, &err);
    assert_non_null(strstr(err.msg, "needs CUDA 12, not 11.8"));
    cu_facts_free(f);
}

static void
components(void **state)
{
    struct fx *x = *state;
    struct cu_facts *f = facts("580.95.05", 1, "H100", "9.0");
    struct cu_plan *p = NULL;
    struct cu_error err;
    assert_ok(resolve(x, f, (struct cu_wishes){.framework = "none", .cudnn = "none"}, &p, &err), &err);
    bool crt = false, driver = false;
    for (char **c = p->components; *c; c++) {
        crt |= strcmp(*c, "cuda_crt") == 0;
        driver |= strcmp(*c, "nvidia_driver") == 0;
    }
    assert_true(crt && !driver);
    assert_false(p->has_cudnn);
    cu_plan_free(p);
    assert_ok(resolve(x, f, (struct cu_wishes){.framework = "none", .components = "cuda_nvcc", .cuda = "13.0"}, &p,
                      &err),
              &err);
    /* nvcc brings what it cannot compile without */
    size_t n = 0;
    for (char **c = p->components; *c; c++)
        n++;
    assert_int_equal(n, 4);
    cu_plan_free(p);
    assert_status(resolve(x, f, (struct cu_wishes){.framework = "none", .components = "runtime,fabricmanager"}, &p,
                          &err),
                  CU_E_USAGE, &err);
    assert_status(resolve(x, f, (struct cu_wishes){.framework = "none", .components = "libnvjitlink", .cuda = "11.8"},
                          &p, &err),
                  CU_E_USAGE, &err);
    cu_facts_free(f);
}

static void
no_gpu_and_mirror_mode(void **state)
{
    struct fx *x = *state;
    struct cu_facts *f = facts(NULL, 0);
    struct cu_plan *p = NULL;
    struct cu_error err;
    assert_status(resolve(x, f, (struct cu_wishes){0}, &p, &err), CU_E_UNSUPPORTED, &err);
    assert_non_null(strstr(err.msg, "--cuda"));
    assert_ok(resolve(x, f, (struct cu_wishes){.cuda = "12.4", .framework = "none"}, &p, &err), &err);
    assert_string_equal(vs(&p->cuda), "12.4.1");
    assert_true(p->warnings.n > 0);
    cu_plan_free(p);
    assert_ok(resolve(x, f, (struct cu_wishes){.unconstrained = true}, &p, &err), &err);
    assert_string_equal(vs(&p->cuda), "12.9.1");
    cu_plan_free(p);
    cu_facts_free(f);
}

static void
mirror_gaps(void **state)
{
    struct fx *x = *state;
    struct cu_facts *f = facts("580.95.05", 1, "H100", "9.0");
    struct cu_plan *p = NULL;
    struct cu_error err;
    x->src.missing = "13.0.2";
    assert_ok(resolve(x, f, (struct cu_wishes){.framework = "none"}, &p, &err), &err);
    assert_string_equal(vs(&p->cuda), "12.9.1"); /* listed but not served: the next one */
    cu_plan_free(p);
    x->src.missing = NULL;
    x->src.broken = "13.0.2";
    assert_status(resolve(x, f, (struct cu_wishes){.framework = "none"}, &p, &err), CU_E_INPUT, &err);
    x->src.broken = NULL;
    assert_status(resolve(x, f, (struct cu_wishes){.cuda = "12.4.7"}, &p, &err), CU_E_UNSUPPORTED, &err);
    assert_non_null(strstr(err.msg, "12.4.7"));
    cu_facts_free(f);
}

/* Issue 34: the legacy toolkits and TensorFlow stacks are reached where nothing newer fits. */
static void
legacy_reach(void **state)
{
    struct fx *x = *state;
    struct cu_plan *p = NULL;
    struct cu_error err;
    /* A toolkit alone from its runfile, with the newest .tgz cuDNN serving it (data/legacy). */
    struct cu_facts *f = facts("535.183.01", 1, "GTX 970", "5.2");
    assert_ok(resolve(x, f, (struct cu_wishes){.framework = "none", .cuda = "10.2"}, &p, &err), &err);
    assert_string_equal(vs(&p->cuda), "10.2.89");
    assert_string_equal(vs(&p->cudnn), "7.6.5");
    assert_string_equal(p->downloads[0].component, "cuda_runfile");
    /* What was asked is planned; no reason says it is "not on the mirror" (nothing newer was passed over). */
    assert_false(cu_strv_contains_sub(&p->reasons, "not on the mirror"));
    cu_plan_free(p);
    assert_ok(resolve(x, f, (struct cu_wishes){.framework = "none", .cuda = "11.2"}, &p, &err), &err);
    assert_string_equal(vs(&p->cuda), "11.2.2");
    assert_string_equal(vs(&p->cudnn), "8.2.1");
    cu_plan_free(p);
    /* NVIDIA's runfiles are for x86_64 only. */
    assert_status(resolve(x, f, (struct cu_wishes){.framework = "none", .cuda = "10.2", .platform = "linux-sbsa"}, &p,
                          &err),
                  CU_E_UNSUPPORTED, &err);
    assert_non_null(strstr(err.msg, "linux-x86_64 only"));
    cu_facts_free(f);
    /* A GPU the toolkit has no code for is the reason, not the mirror. */
    f = facts("535.183.01", 1, "RTX 4090", "8.9");
    assert_status(resolve(x, f, (struct cu_wishes){.framework = "none", .cuda = "11.1"}, &p, &err), CU_E_UNSUPPORTED,
                  &err);
    assert_non_null(strstr(err.msg, "cannot build for GPU 0"));
    cu_facts_free(f);
    /* Kepler on driver 418: CUDA 11 needs 450, so the newest TensorFlow is the 2.3 stack on CUDA 10.1. */
    f = facts("418.87.01", 1, "Tesla K80", "3.7");
    assert_ok(resolve(x, f, (struct cu_wishes){0}, &p, &err), &err);
    assert_string_equal(p->framework->version, "2.3.4");
    assert_string_equal(vs(&p->cuda), "10.1.243");
    assert_true(cu_strv_contains_sub(&p->reasons, "Not TensorFlow 2.21.0"));
    cu_plan_free(p);
    /* ... the plan of the toolkit alone too; and PyTorch names the newest build a newer driver would run. */
    assert_ok(resolve(x, f, (struct cu_wishes){.framework = "none"}, &p, &err), &err);
    assert_string_equal(vs(&p->cuda), "10.1.243");
    cu_plan_free(p);
    assert_status(resolve(x, f, (struct cu_wishes){.framework = "pytorch"}, &p, &err), CU_E_UNSUPPORTED, &err);
    assert_non_null(strstr(err.msg, "PyTorch 2.3 (cu118)"));
    cu_facts_free(f);
}

/* Issue 34 item 6: the refusal names the real blocker. */
static void
real_blocker(void **state)
{
    struct fx *x = *state;
    struct cu_plan *p = NULL;
    struct cu_error err;
    struct cu_facts *f = facts("470.57.02", 1, "RTX 3090", "8.6");
    assert_status(resolve(x, f, (struct cu_wishes){.framework = "pytorch==2.14"}, &p, &err), CU_E_UNSUPPORTED, &err);
    assert_non_null(strstr(err.msg, "PyTorch 2.14 (cu126)"));
    assert_non_null(strstr(err.msg, "525.60.13"));
    cu_facts_free(f);
    f = facts("470.57.02", 1, "Tesla K80", "3.7");
    assert_status(resolve(x, f, (struct cu_wishes){.framework = "jax"}, &p, &err), CU_E_UNSUPPORTED, &err);
    assert_non_null(strstr(err.msg, "compute capability 5.2"));
    assert_null(strstr(err.msg, "driver"));
    cu_facts_free(f);
    f = facts("470.57.02", 1, "GTX 780", "3.5");
    assert_status(resolve(x, f, (struct cu_wishes){.framework = "pytorch==1.13"}, &p, &err), CU_E_UNSUPPORTED, &err);
    assert_non_null(strstr(err.msg, "no code for GPU 0"));
    /* Any PyTorch on 3.5: no build has code for it; the sentence names a build with the oldest code any
     * carries (sm_37, data/compat/pytorch_gpu_code.csv), not the newest build (cu132, sm_75 and up), though
     * some builds the data is silent on (2.13 cu130) fail too. */
    assert_status(resolve(x, f, (struct cu_wishes){.framework = "pytorch"}, &p, &err), CU_E_UNSUPPORTED, &err);
    assert_non_null(strstr(err.msg, "no code for GPU 0"));
    assert_non_null(strstr(err.msg, "it carries sm_37"));
    cu_facts_free(f);
}

/* Issue 34, the second round (an independent check): stacks that work are planned, refusals name the blocker. */
static void
blockers_named(void **state)
{
    struct fx *x = *state;
    struct cu_plan *p = NULL;
    struct cu_error err;
    /* JAX's pip cuDNN runs with the runtime pip brings (>= 12.8.90, which torch 2.10.0 pins), so 9.10.2's
     * Blackwell row (12.0 from CUDA 12.8) serves an RTX 5090 beside a GTX 980. */
    struct cu_facts *f = facts("575.64.05", 2, "GTX 980", "5.2", "RTX 5090", "12.0");
    assert_ok(resolve(x, f, (struct cu_wishes){.framework = "jax"}, &p, &err), &err);
    assert_non_null(p->framework->constraints);
    assert_string_equal(p->framework->constraints[0], "nvidia-cudnn-cu12==9.10.2.*");
    cu_plan_free(p);
    p = NULL;
    /* No PyTorch build has code for both: said so, a build named per GPU. */
    assert_status(resolve(x, f, (struct cu_wishes){.framework = "pytorch"}, &p, &err), CU_E_UNSUPPORTED, &err);
    assert_non_null(strstr(err.msg, "No PyTorch build has code for every GPU here"));
    assert_null(strstr(err.msg, "2.7 (cu118)"));
    cu_facts_free(f);
    /* A --cuda the mirror lacks is the blocker, not the driver of a build the request never reached. */
    f = facts("530.30.02", 1, "A100", "8.0");
    assert_status(resolve(x, f, (struct cu_wishes){.framework = "pytorch", .cuda = "12.1"}, &p, &err), CU_E_UNSUPPORTED,
                  &err);
    /* ...and it names what the mirror has of that major (issue 49 item 15). */
    if (strncmp(err.msg, "CUDA 12.1 is not on the mirror; of CUDA 12 it has 12.", 53) != 0)
        print_error("%s\n", err.msg);
    assert_int_equal(strncmp(err.msg, "CUDA 12.1 is not on the mirror; of CUDA 12 it has 12.", 53), 0);
    cu_facts_free(f);
    /* ...and where it cannot build for a GPU here, the GPU is. */
    f = facts("470.57.02", 1, "GTX 780", "3.5");
    assert_status(resolve(x, f, (struct cu_wishes){.framework = "none", .cuda = "12.0"}, &p, &err), CU_E_UNSUPPORTED,
                  &err);
    assert_non_null(strstr(err.msg, "CUDA 12.0 no longer builds for GPU 0"));
    cu_facts_free(f);
    /* The newest release that runs: 2.14 cu126 by minor-version compatibility, not 2.5 cu118 natively. */
    f = facts("535.183.01", 1, "GTX 970", "5.2");
    assert_ok(resolve(x, f, (struct cu_wishes){.framework = "pytorch"}, &p, &err), &err);
    assert_string_equal(p->framework->version, "2.14");
    assert_string_equal(p->framework->cuda_tag, "cu126");
    cu_plan_free(p);
    p = NULL;
    cu_facts_free(f);
    /* jax 0.4.25's wheel asks nvidia-cudnn-cu12>=8.9.7.29 with no bound; its build loads cuDNN 8 only. */
    f = facts("535.183.01", 1, "RTX 3090", "8.6");
    assert_ok(resolve(x, f, (struct cu_wishes){.framework = "jax==0.4.25"}, &p, &err), &err);
    assert_non_null(p->framework->constraints);
    assert_string_equal(p->framework->constraints[0], "nvidia-cudnn-cu12==8.9.7.*");
    cu_plan_free(p);
    cu_facts_free(f);
}

static void
wishes_syntax(void **state)
{
    (void)state;
    struct cu_error err;
    struct cu_wishes bad[] = {
        {.cuda = "12.x"},          {.cuda = "none"},           {.cudnn = "nine"},
        {.framework = "caffe"},    {.framework = "jax==abc"},  {.framework = "none==1"},
        {.python = "3"},           {.python = "python3.11"},   {.platform = "windows-x86_64"},
        {.components = "a b"},     {.components = ",x"},
        /* TensorFlow over the CUDA install (its [and-cuda] wheels, which bring cuDNN, are the default's: resolved) */
        {.cudnn = "none", .framework = "tensorflow", .toolkit = "system"},
        {.cudnn = "none", .components = "runtime"},
        {.framework = "jax[CUDA12]"},      {.framework = "jax[cuda12 x]"}, {.framework = "pytorch[cuda12]"},
        {.framework = "jax[aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa]"},
        {.python = "4.1"},                 {.python = "1.5"},              {.python = "3.11.2"},
        {.cudnn = "none", .framework = "jax[cuda12-local]"}, /* JAX's -local loads cuDNN from the CUDA install */
    };
    /* Each names the option it is about. */
    static const char *const names[] = {"--cuda", "--cuda", "--cudnn", "--framework", "--framework", "--framework",
                                        "--python", "--python", "--platform", "--components", "--components",
                                        "--cudnn none", "--cudnn none", "--framework", "--framework", "--framework",
                                        "--framework", "--python", "--python", "--python", "--cudnn none"};
    assert_int_equal(CU_N_ELEMENTS(names), CU_N_ELEMENTS(bad));
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_status(cu_wishes_check(&bad[i], &err), CU_E_USAGE, &err);
        if (!strstr(err.msg, names[i]))
            print_error("case %zu: %s\n", i, err.msg);
        assert_non_null(strstr(err.msg, names[i]));
    }
    struct cu_wishes good[] = {
        {.cuda = "12.4.1", .cudnn = "9.1.0.70", .framework = "pytorch==2.3.1", .python = "3.11",
         .platform = "linux-sbsa", .components = "runtime,math"},
        {.cuda = "auto", .cudnn = "auto", .framework = "jax[cuda12-local]==0.4.30", .platform = "linux-aarch64"},
        {.cuda = "", .cudnn = "none", .framework = "torch", .components = "all"},
        {.framework = "Keras"}, {.framework = "tf==2.15"}, {.framework = "none", .cudnn = "none", .python = "2.7"},
        {.framework = "JAX[cuda12]"},
        {.cudnn = "none", .framework = "jax"}, /* jax[cudaNN], JAX's default, brings cuDNN as a pip package */
    };
    for (size_t i = 0; i < CU_N_ELEMENTS(good); i++)
        assert_ok(cu_wishes_check(&good[i], &err), &err);
}

/* A value that is one typo from a known one is answered with it (issue 49 item 15); one that is none gets no guess. */
static void
wishes_typos(void **state)
{
    (void)state;
    struct cu_error err;
    static const struct {
        struct cu_wishes w;
        const char *meant; /* NULL: no guess */
    } cases[] = {
        {{.framework = "pytroch"}, "Did you mean 'pytorch'?"},
        {{.framework = "PyTroch"}, "Did you mean 'pytorch'?"},
        {{.framework = "tensorflw==2.15"}, "Did you mean 'tensorflow==2.15'?"},
        {{.framework = "jaxx==0.4.30"}, "Did you mean 'jax==0.4.30'?"},
        {{.framework = "tensorflow,pytroch"}, "Did you mean 'pytorch'?"},
        {{.framework = "pytorch;jaz"}, "Did you mean 'jax'?"},
        {{.platform = "linux-x86"}, "Did you mean 'linux-x86_64'?"},
        {{.platform = "linux-aarch"}, "Did you mean 'linux-aarch64'?"},
        {{.framework = "caffe"}, NULL},
        {{.platform = "windows-x86_64"}, NULL},
    };
    for (size_t i = 0; i < CU_N_ELEMENTS(cases); i++) {
        assert_status(cu_wishes_check(&cases[i].w, &err), CU_E_USAGE, &err);
        const char *adv = cu_error_advice(&err);
        if (cases[i].meant ? !adv || strcmp(adv, cases[i].meant) != 0 : adv && strstr(adv, "Did you mean") != NULL)
            print_error("case %zu: %s / %s\n", i, err.msg, adv ? adv : "(no advice)");
        if (cases[i].meant)
            assert_string_equal(adv ? adv : "", cases[i].meant);
        else
            assert_true(!adv || !strstr(adv, "Did you mean"));
    }
}

static void
capture(void *ud, enum cu_log_level level, const char *tag, const char *msg, const char *msg_en)
{
    (void)level;
    (void)msg;
    if (strcmp(tag, "plan") == 0)
        cu_strv_push(ud, msg_en);
}

/* A reason resting on inferred data: the user reads it without the data row; JSON and the log carry the row. */
static void
provenance(void **state)
{
    struct fx *x = *state;
    struct cu_facts *f = facts("550.54.14", 1, "H100", "9.0");
    struct cu_plan *p = NULL;
    struct cu_error err;
    /* PyTorch 2.6's cu118 build, whose GPU code is inferred (pytorch_wheel_arch.csv 2.6.x cu118). */
    assert_ok(resolve(x, f, (struct cu_wishes){.framework = "pytorch==2.6", .cuda = "11.8"}, &p, &err), &err);
    assert_int_equal(p->reason_sources.n, p->reasons.n);
    size_t k = p->reasons.n;
    for (size_t i = 0; i < p->reasons.n; i++) {
        assert_null(strstr(p->reasons.v[i], ".csv"));
        if (strstr(p->reason_sources.v[i], "not read at release/2.6"))
            k = i;
    }
    assert_true(k < p->reasons.n);
    assert_non_null(strstr(p->reasons.v[k], "inferred (from neighbouring releases"));

    json_t *doc = cu_plan_to_json(p);
    json_t *prov = json_object_get(doc, "provenance");
    assert_int_equal(json_array_size(prov), 1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(prov, 0), "source")), p->reason_sources.v[k]);
    assert_string_equal(json_string_value(json_object_get(json_array_get(prov, 0), "reason")), p->reasons.v[k]);
    json_decref(doc);

    struct cu_strv lines;
    cu_strv_init(&lines);
    cu_log_set_level(CU_LOG_INFO);
    cu_log_set_handler(capture, &lines);
    cu_plan_log_reasons(p);
    cu_log_set_handler(NULL, NULL);
    assert_int_equal(lines.n, p->reasons.n);
    assert_non_null(strstr(lines.v[k], "(source: inferred from builder main build_cuda.sh"));
    cu_strv_fini(&lines);
    cu_plan_free(p);
    cu_facts_free(f);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(hopper_tensorflow, setup, teardown),
        cmocka_unit_test_setup_teardown(provenance, setup, teardown),
        cmocka_unit_test_setup_teardown(tf_default_keeps_wishes, setup, teardown),
        cmocka_unit_test_setup_teardown(driver_too_old, setup, teardown),
        cmocka_unit_test_setup_teardown(gpu_dropped, setup, teardown),
        cmocka_unit_test_setup_teardown(tf_without_archives, setup, teardown),
        cmocka_unit_test_setup_teardown(pytorch_and_jax, setup, teardown),
        cmocka_unit_test_setup_teardown(components, setup, teardown),
        cmocka_unit_test_setup_teardown(no_gpu_and_mirror_mode, setup, teardown),
        cmocka_unit_test_setup_teardown(mirror_gaps, setup, teardown),
        cmocka_unit_test_setup_teardown(legacy_reach, setup, teardown),
        cmocka_unit_test_setup_teardown(real_blocker, setup, teardown),
        cmocka_unit_test_setup_teardown(blockers_named, setup, teardown),
        cmocka_unit_test(wishes_syntax),
        cmocka_unit_test(wishes_typos),
    };
    return TU_RUN(tests);
}
