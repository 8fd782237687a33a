/* SPDX-License-Identifier: MIT */
/* The resolver's own state, shared by resolve.c (the search) and its parts, resolve_*.c. */
#ifndef CU_RESOLVE_INT_H
#define CU_RESOLVE_INT_H

#include <stdbool.h>
#include <string.h>

#include "core/catalog/gpucode.h"
#include "core/resolve/resolve.h"
#include "core/base/str.h"

#define DEFAULT_PYTHON_MAX "3.12"
#define PYTORCH_INDEX "https://download.pytorch.org/whl/"

enum spec_kind { SPEC_AUTO, SPEC_NONE, SPEC_PREFIX, SPEC_EXACT };

struct spec {
    enum spec_kind kind;
    struct cu_version v;
};

struct fwspec {
    enum cu_framework fw;
    struct cu_version v; /* n == 0: newest that fits */
    char extra[32];      /* jax[EXTRA] as asked ("cuda12-local"), or "" */
    char pre[16];        /* a pre-release pinned ("rc0" of ==2.22.0rc0), or "" */
};

struct fwopt {
    int cuda_major;                /* 0: any */
    struct cu_version cuda_min;    /* n == 0: none */
    struct cu_version cuda_mm;     /* an exact X.Y wanted (PyTorch's build), n == 0: none */
    int cudnn_major;               /* 0: any */
    struct cu_version cudnn_min, cudnn_max_excl;
    struct cu_version py_min, py_max; /* n == 0: unconstrained */
    char *py_note;                 /* the Python asked is one upstream calls experimental for it, or NULL */
    char *title;                   /* "TensorFlow 2.20.0" */
    char *version;                 /* what the plan records, or NULL */
    char *release;                 /* which release an unpinned option stands for ("newest", "0.4.31..0.5.0"), or NULL: version */
    struct cu_strv pip;
    char *index_url, *tag;
    char *why;                     /* the reason line for the plan */
    char *companions_why;          /* which torchvision and torchaudio go beside it, and which are left out, or NULL */
    /* What the resolver knows of the build's GPU code (rs_judge_code). */
    const struct cu_cat_code *code; /* NULL: the data is silent */
    struct cu_version build_cuda;  /* the CUDA it was built with (the toolkit of its PTX) */
    bool bundled;                  /* the wheel brings its own CUDA runtime */
    struct cu_version cuda_max;    /* the newest CUDA X.Y it loads, n == 0: any */
    const char *cuda_max_why;
    char *local_needs;             /* what else a "-local" JAX needs, or NULL */
    int code_class;                /* enum code_class */
    char *code_why;                /* why it cannot run here (code_class == CODE_NO_FIT) */
    bool no_code;                  /* ... because it has no code at all for a GPU here */
    enum cu_code_fit *fit;         /* per GPU of the facts */
    int *target;
    /* The cuDNN pip brings with it (resolve_lib.c): an exact release (PyTorch), or a range of
     * @lib_pkg that pip fills with its newest (JAX). */
    char *lib_exact;               /* "9.1.0.70", or NULL */
    char *lib_pkg;                 /* "nvidia-cudnn-cu12", or NULL */
    struct cu_version lib_min, lib_max_excl;
    char *lib_row_note;            /* what the framework's own page says of the GPUs, or NULL */
    struct cu_strv constraints;    /* pins for pip's constraints file */
    struct cu_strv lib_reasons;    /* the plan's reasons about them */
    /* Several frameworks in one environment (resolve_multi.c): the option that stands for the set
     * holds its parts, the framework named first first; each part is judged and planned on its own. */
    const struct fwopt *const *parts;
    size_t n_parts;
    enum cu_framework kind;        /* a part's framework (the set's option: the first part's) */
    const struct cu_cat_fw_wheel *wheel; /* a part's pins on pip's CUDA wheels */
};

/* How well the data vouches that a build runs on every GPU here; tried in this order. */
enum code_class {
    CODE_READ,     /* the arch list was read in a source */
    CODE_INFERRED, /* derived from a neighbouring release */
    CODE_SILENT,   /* the data does not say */
    CODE_NO_FIT,   /* it cannot run on a GPU here */
};

struct rs {
    const struct cu_resolve_in *in;
    const struct cu_catalog *cat;
    const struct cu_facts *f;
    struct spec cuda, cudnn;
    struct fwspec fw;
    struct cu_version py_wish;
    const char *platform;
    bool constrained, have_driver;
    bool driver_planned; /* r->driver is the driver this plan installs */
    char driver_text[192]; /* r->driver as the reasons name it ("this machine has %s"), rs_driver_text() */
    struct cu_version driver;
    struct cu_error *err;
    /* What failed, for the one sentence when nothing fits: the candidate that
     * got furthest explains best what the user must change. */
    int stage;
    char why[512];
    struct cu_version min_need; /* the smallest driver that would have done */
    /* How the system CUDA was found for the candidate in hand: 0 the build's own
     * CUDA X.Y, 1 another release of its major (a wheel with its own runtime),
     * 2 a release the driver runs only by minor-version compatibility. */
    int sweep;
    char cudnn_note[300]; /* the picked cuDNN rests on neighbouring support matrices */
    char cudnn_skip[512]; /* why newer cuDNN releases were passed over */
    bool no_advice; /* resolving for advice: do not look for advice again */
    /* Judging an option whose GPU code the data does not record: its failures explain less than
     * those of a build the data vouches for, so they only fill an empty sentence. */
    bool silent;
    bool offline_miss; /* a release was passed over because the cache lacks its manifest (src->offline) */
    /* A framework of a set resolved alone (cu_resolve, handed down by resolve.c so that resolve_multi.c
     * calls nothing back up): its refusal is the set's blocker. */
    enum cu_status (*resolve_alone)(const struct cu_resolve_in *in, struct cu_plan **out, struct cu_error *err);
    /* The newest option's own failure (try_options), for the plan that falls back to an older stack. */
    const char *first_title;
    char first_why[512];
};

/* How far a candidate got before it failed. */
enum stage {
    ST_GPU_CODE = 1,  /* the build has no code a GPU here can run (judged before any CUDA) */
    ST_FRAMEWORK,     /* the framework's or the wishes' constraints */
    ST_GPU,           /* CUDA cannot build for a GPU */
    ST_DRIVER,        /* the driver is too old for it */
    ST_MIRROR,        /* the mirror lacks it or its platform */
    ST_CUDNN_RULE,    /* no cuDNN of the framework's range */
    ST_CUDNN_VARIANT, /* no cuDNN build for this CUDA major */
    ST_CUDNN_DRIVER,
    ST_CUDNN_GPU,
    ST_CUDNN_MIRROR,
};

/* resolve_rs.c: the shared part. */
/** Note why a candidate failed, when it got further than every one before it. */
void rs_fail(struct rs *r, int stage, const char *fmt, ...) CU_PRINTF(3, 4);
/** Like rs_fail(), but a later candidate at the same stage explains better. */
void rs_fail_closer(struct rs *r, int stage, const char *fmt, ...) CU_PRINTF(3, 4);
/** Format a (translated) sentence into @out, its English twin noted. */
void rs_format(char *out, size_t len, const char *fmt, ...) CU_PRINTF(3, 4);
void rs_fwopt_init(struct fwopt *o);
void rs_fwopt_fini(struct fwopt *o);
/**
 * What a JAX option of plugin @p (release @v; none: the newest) is built for: its CUDA major, the toolkit of its
 * PTX (JAX's changelog), the GPU code its wheels carry, @tag (the extra it is installed with), and with @python the Pythons
 * jaxlib has wheels for.
 */
void rs_fwopt_jax_build(struct rs *r, struct fwopt *o, const struct cu_cat_jax_plugin *p, const struct cu_version *v,
                        const char *tag, bool python);
/**
 * Does the support matrix allow cuDNN @v (for CUDA @cuda) on this driver and these GPUs?  When not,
 * *@stage and @why say why (nothing is noted in @r but its cudnn_note and cudnn_skip).
 */
bool rs_cudnn_judge(struct rs *r, const struct cu_version *v, const struct cu_version *cuda, int *stage, char *why,
                    size_t why_len);
/** rs_cudnn_judge(), its failure noted with rs_fail(). */
bool rs_cudnn_row_fits(struct rs *r, const struct cu_version *v, const struct cu_version *cuda);

/* resolve_wish.c: the wishes as the resolver reads them. */
/** --cuda or --cudnn as a spec; @exact_parts parts make a release exact.  False: malformed. */
bool rs_parse_spec(const char *s, bool allow_none, int exact_parts, struct spec *out);
/** --framework; false when malformed, *@bad_version then the version that is not one (or NULL). */
bool rs_parse_framework(const char *s, struct fwspec *out, const char **bad_version);
/** Does release @v match spec @s? */
bool rs_spec_matches(const struct spec *s, const struct cu_version *v);
/** Note that the mirror lacks the --cuda asked for, naming the releases it has of that major (else of each). */
void rs_fail_cuda_absent(struct rs *r, int stage);

/* The cuDNN a candidate takes; m == NULL: none. */
struct cudnn_pick {
    const struct cu_manifest *m;
    const struct cu_package *pkg;
    const struct cu_artifact *art;
    struct cu_version label;
};

/* resolve_judge.c: the judges of a candidate, each noting why it fails with rs_fail(). */
/** 0: CUDA @cuda builds for every GPU here; *@unknown: the catalog does not know for some GPU. */
int rs_gpus_fit_cuda(struct rs *r, const struct cu_version *cuda, bool *unknown);
/** The driver release @v needs; false when the catalog does not know. */
bool rs_cuda_needs_driver(struct rs *r, const struct cu_version *v, struct cu_version *need);
/** Does the driver run CUDA @major by minor-version compatibility?  *@min: the driver it takes. */
bool rs_driver_runs_major(const struct rs *r, int major, struct cu_version *min);
/**
 * Does the driver run CUDA @cuda?  *@need: the driver it needs.  @compat: accept a release the
 * driver runs only by minor-version compatibility.
 */
bool rs_driver_fits(struct rs *r, const struct cu_version *cuda, struct cu_version *need,
                    bool compat);
/**
 * Warn on plan @p that the driver runs CUDA @cuda only by minor-version compatibility, with its limit as
 * verify says it (runs.c); @need: the release's own floor where the plan judged one, else NULL.
 */
void rs_warn_compat(struct rs *r, struct cu_plan *p, const struct cu_version *cuda, const struct cu_version *need);
/**
 * The newest cuDNN that fits option @o and CUDA @cuda.  CU_E_NOT_FOUND when none does; CU_OK and
 * nothing picked for --cudnn none; a manifest source's error as it came.
 */
CU_NODISCARD enum cu_status rs_pick_cudnn(struct rs *r, const struct fwopt *o,
                                          const struct cu_version *cuda, struct cudnn_pick *out);
/** Judge @o's GPU code against every GPU here. */
void rs_judge_code(struct rs *r, struct fwopt *o);
/** Judge a wheel's own CUDA runtime against the driver (after rs_judge_code and rs_judge_libs). */
void rs_judge_runtime(struct rs *r, struct fwopt *o);

/* resolve_plan.c: a candidate that fits, made into a plan. */
bool rs_has_platform(const struct cu_package *p, const char *platform);
/** The components asked for, with what they need.  Errors: CU_E_USAGE, CU_E_UNSUPPORTED. */
CU_NODISCARD enum cu_status rs_pick_components(struct rs *r, const struct cu_manifest *m,
                                               struct cu_strv *out);
/**
 * The plan of option @o with CUDA @cv from manifest @cm (it needs driver @need), @components (their
 * vector is taken) and cuDNN @dn.  The caller owns *@out.
 */
CU_NODISCARD enum cu_status rs_fill_plan(struct rs *r, const struct fwopt *o,
                                         const struct cu_manifest *cm, const struct cu_version *cv,
                                         const struct cu_version *need, struct cu_strv *components,
                                         const struct cudnn_pick *dn, struct cu_plan **out);

/* resolve_advice.c: the refusal's sentence and the advice naming what works. */
/** No option has code for a GPU here: the sentence names the build whose code is oldest. */
void rs_explain_no_code(struct rs *r, const struct fwopt *opts, size_t n_opts);
/** A --cuda or --python that nothing can satisfy, refused before the search (CU_E_UNSUPPORTED). */
CU_NODISCARD enum cu_status rs_check_wishes(struct rs *r, const struct fwopt *opts, size_t n_opts);
/** Nothing fits: the sentence of the candidate that got furthest (CU_E_UNSUPPORTED). */
CU_NODISCARD enum cu_status rs_nothing_fits(struct rs *r);

/* One way to change a refused request: what is dropped or set, tried in order. */
enum dnn_mode { DNN_KEEP, DNN_AUTO, DNN_NONE };

struct variant {
    bool use;             /* worth trying for this request */
    enum cu_framework fw; /* with !@same and !@any_version */
    bool same;            /* the framework asked for, at the version asked for */
    bool any_version;     /* the framework asked for, at any version */
    enum dnn_mode dnn;    /* DNN_AUTO drops a version asked for, and keeps "none" */
    bool keep_cuda, keep_python;
};

/** Request @w0 changed by @v planned @p: advise its exact command and what it gives. */
void rs_advise_plan(const struct rs *r, const struct cu_wishes *w0, const struct variant *v,
                    const struct cu_plan *p, struct cu_error *err);
/** Nothing plans on this driver: advise the driver every GPU here needs. */
void rs_driver_advice(const struct rs *r, struct cu_error *err);

/* resolve_wish.c: lists of frameworks (--framework pytorch,jax, and ';' between environments). */
#define RS_MAX_PARTS 3  /* frameworks in one environment: each of tensorflow, pytorch, jax once */
#define RS_MAX_GROUPS 4 /* environments of one request */
/** Split @s at @sep into trimmed items (pushed to @out); false when one is empty. */
bool rs_split_items(const char *s, const char *sep, struct cu_strv *out);
/** The syntax of a list (or of ';'-separated lists: one environment each).  Errors: CU_E_USAGE. */
CU_NODISCARD enum cu_status rs_multi_check(const char *framework, bool no_cudnn, struct cu_error *err);

/* resolve_multi.c: several frameworks in one environment (--framework pytorch,jax). */
/** Does --framework name several frameworks for one environment? */
bool rs_multi_wanted(const char *framework);
/**
 * One option against the CUDA releases on the mirror, in sweep @only_sweep (0: the build's own CUDA
 * X.Y, 1: another release of its major, 2: minor-version compatibility): resolve.c's search, handed
 * in.  CU_E_NOT_FOUND when nothing fits, the reason noted with rs_fail().
 */
typedef enum cu_status (*rs_try_fn)(struct rs *r, const struct fwopt *o, int only_sweep, struct cu_plan **out);
/** Plan the set: versions of each whose CUDA wheels agree, one cuDNN that fits every GPU.  Errors as cu_resolve(). */
/**
 * TensorFlow alone with --toolkit wheels or none: the options of tf_options() made the releases that bring their CUDA as
 * wheels (tensorflow[and-cuda]), as beside other frameworks, their CUDA wheels held; the others dropped.  With no
 * --toolkit (whose default is then the wheels, rs_plan_toolkit) the same, the others kept over a system CUDA; not with
 * --components or several environments.  No-op for --toolkit system.  Errors: CU_E_USAGE where none is left (naming
 * the releases that would plan so here).
 */
CU_NODISCARD enum cu_status rs_tf_own_cuda(struct rs *r, struct fwopt **opts, size_t *n);
/** The release of TensorFlow's option @o made tensorflow[and-cuda]==X of its wheel @w's row (resolve_tfwheels.c). */
void rs_tf_pins(struct fwopt *o, const struct cu_cat_fw_wheel *w);
/** The row of framework_wheels of @framework (build @tag, or any where NULL) release @v: that one (@exact) or the newest
 * of its X.Y; NULL where none was read. */
const struct cu_cat_fw_wheel *rs_find_wheel(const struct rs *r, const char *framework, const char *tag,
                                            const struct cu_version *v, bool exact);
/** The nvidia-cudnn-* requirement of wheel @w in *@req, and its package; NULL (and *@req NULL) where it asks none. */
const char *rs_cudnn_req(const struct cu_cat_fw_wheel *w, const struct cu_cat_wheel_req **req);
CU_NODISCARD enum cu_status rs_resolve_multi(struct rs *r, rs_try_fn try_option, struct cu_plan **out);
/**
 * The @k-th change to a refused set worth trying for advice (the first framework's pin kept and the
 * others' dropped, every pin dropped), as a --framework value; NULL when there is none.  Caller frees.
 */
char *rs_multi_variant(const char *framework, int k);
/** The advice for a refused set: @shared a --framework that plans (or NULL), @each whether one environment each plans. */
void rs_multi_advise(const char *framework, const struct cu_plan *shared, const char *shared_fw, bool each,
                     const char *python, struct cu_error *err);

/* resolve_lib.c: what pip brings with a build with its own CUDA must list every GPU here. */
void rs_judge_libs(struct rs *r, struct fwopt *o);
/**
 * Hold every nvidia-* wheel of the CUDA family together (the catalog's cuda_wheels): where @constraints or the
 * exact pins of the @n @wheels of the environment hold one, find the CUDA release of the runtime they hold
 * (cu_catalog_cuda_release_held) and append to @constraints "PKG==V.*" for each other wheel of that release, at
 * its version in NVIDIA's manifest.  *@reason gets the sentence that says so (caller frees; NULL when nothing is
 * held).  False, with @why, when a wheel of the environment asks for a release of one of them that the held
 * CUDA release does not have (nothing appended then).  @only_if_asked: hold nothing unless one of the @wheels asks
 * for a wheel of that release without pinning it (one framework alone: its own pins hold the rest).
 */
bool rs_hold_cuda_family(const struct rs *r, const struct cu_cat_fw_wheel *const *wheels, size_t n, bool only_if_asked,
                         struct cu_strv *constraints, char **reason, char *why, size_t len);

/* resolve_fw.c: the framework releases to try, newest first. */
void add_none_option(struct rs *r, struct fwopt **opts, size_t *n);
enum cu_status tf_options(struct rs *r, struct fwopt **opts, size_t *n);
enum cu_status torch_options(struct rs *r, struct fwopt **opts, size_t *n);
/**
 * Pin beside PyTorch option @o, whose torch is @torch (a release, or a minor: its newest release on PyPI), each
 * companion (torchvision, torchaudio) to the release built for that torch (the catalog's pytorch_companions;
 * where it has no row, the release matrix's), in @o's pip requirements and constraints; a companion with none
 * built for it is left out.  Replaces what an earlier call pinned; @o->companions_why says what was done.
 */
void rs_torch_companions(struct rs *r, struct fwopt *o, const struct cu_version *torch);
enum cu_status jax_options(struct rs *r, struct fwopt **opts, size_t *n);

/* resolve_legacy.c: CUDA 10.0-11.3 and TensorFlow 1.13-2.4 from the catalog's legacy rows (runfile + cuDNN .tgz). */
struct cu_cat_legacy_tf;
const struct cu_cat_legacy_tf *rs_legacy_match(const struct rs *r);
enum cu_status rs_legacy_resolve(struct rs *r, const struct cu_cat_legacy_tf *t, struct cu_plan **out);
/**
 * Where nothing newer fits: the newest legacy TensorFlow stack (--framework tensorflow) or toolkit alone
 * (--framework none) that does, within the wishes.  CU_E_NOT_FOUND, its failures noted, when none does.
 */
enum cu_status rs_legacy_search(struct rs *r, struct cu_plan **out);

static inline const char *
V(const struct cu_version *v, char *buf, size_t len)
{
    return cu_version_format(v, 0, buf, len);
}

static inline const char *
D(const struct cu_version *v, char *buf, size_t len)
{
    return cu_driver_version_format(v, buf, len);
}

/* Fill r->driver_text: the machine's driver as the reasons name it; the planned one says so. */
void rs_driver_text(struct rs *r);

/* A version from a string known to be well formed; zero when it is not. */
static inline struct cu_version
vp(const char *s)
{
    struct cu_version v;
    if (!cu_version_parse(s, &v))
        memset(&v, 0, sizeof(v));
    return v;
}

static inline struct cu_version
mm(const struct cu_version *v)
{
    return (struct cu_version){{v->part[0], v->n > 1 ? v->part[1] : 0}, 2};
}

static inline bool
strv_has(char **v, const char *s)
{
    for (; v && *v; v++)
        if (strcmp(*v, s) == 0)
            return true;
    return false;
}

/**
 * Where plan @p's toolkit comes from (--toolkit, issue 50): sets p->toolkit and its reason; for "wheels" and
 * "none" takes NVIDIA's archives (CUDA's, cuDNN's) out of the plan, for "wheels" adds the compiler wheels of the
 * CUDA release of the frameworks' held runtime to the first framework's pip install.  CU_E_USAGE where the
 * choice cannot serve the plan (a framework that loads a system CUDA, none, a --components with no wheel).
 * @fallback: why the default's compiler wheels could not serve TensorFlow's own CUDA wheels, which cu_resolve then
 * planned over a system CUDA (said in the reason), or NULL.
 */
CU_NODISCARD enum cu_status rs_plan_toolkit(const struct cu_resolve_in *in, struct cu_plan *p, const char *fallback,
                                            struct cu_error *err);

#endif
