/* SPDX-License-Identifier: MIT */
/*
 * The plan's containers part carried out (installers/containers/containers.h): every command and file through the
 * system runner, each engine's file checked by the engine's own parser in a private folder before it is put in place,
 * every change recorded in STATE/containers.json as it happens.
 */
#include "config.h"

#define CU_LOG_TAG "containers"
#include "ctr_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/base/i18n.h"
#include "core/base/log.h"
#include "core/base/mem.h"
#include "core/base/toml.h"
#include "core/install/exec.h"
#include "core/machine/container.h"
#include "core/resolve/driver.h"
#include "installers/driver.h"

/* ---- running -------------------------------------------------------------------------------------------- */

static void
output_line(void *userdata, const char *line)
{
    struct inst_ctr_ctx *c = userdata;
    struct cu_event ev = {.type = CU_EV_LOG, .installer = "containers", .phase = "output", .message = line};
    cu_emit(c->run->events, &ev);
}

static void
names_of(const struct cu_strv *installed, struct cu_strv *out)
{
    for (size_t i = 0; i < installed->n; i++)
        cu_strv_push_owned(out, cu_xstrndup(installed->v[i], strcspn(installed->v[i], "=")));
}

/* Run @argv as a step: events, the run's result, and (@track) the packages it newly installed into @r. */
static enum cu_status
run_cmd(struct inst_ctr_ctx *c, struct ctr_rec *r, const char *action, char *const *argv, bool track, struct cu_error *err)
{
    CU_AUTOFREE char *line = cu_sys_argv_str((const char *const *)argv);
    struct cu_event ev = {.type = CU_EV_STEP_START, .installer = "containers", .message = line};
    cu_emit(c->run->events, &ev);
    struct cu_sys sys = *c->sys;
    sys.on_line = output_line;
    sys.line_userdata = c;
    struct cu_strv before, after, bn, an;
    struct cu_error qe;
    cu_strv_init(&before);
    cu_strv_init(&after);
    cu_strv_init(&bn);
    cu_strv_init(&an);
    bool snap = track && ctr_installed(c->sys, r->manager, &before, &qe) == CU_OK;
    enum cu_status st = cu_sys_run(&sys, (const char *const *)argv, false, NULL, err);
    if (snap && ctr_installed(c->sys, r->manager, &after, &qe) == CU_OK) {
        names_of(&before, &bn);
        names_of(&after, &an);
        for (size_t i = 0; i < an.n; i++)
            if (!cu_strv_contains(&bn, an.v[i]) && !cu_strv_contains(&r->packages, an.v[i]))
                cu_strv_push(&r->packages, an.v[i]);
        struct cu_error se;
        if (ctr_rec_save(c->state_dir, r, &se) != CU_OK && st == CU_OK) {
            *err = se;
            st = se.code;
        }
    }
    cu_strv_fini(&before);
    cu_strv_fini(&after);
    cu_strv_fini(&bn);
    cu_strv_fini(&an);
    cu_run_result(c->run, "containers", action, line, st, st == CU_OK);
    return st;
}

/* The path under which a command the runner runs sees system file @abs: the root's own for a command run inside it
 * (or on this machine), the host's for the tests' stand-ins, which run here on the root's files. */
static char *
command_path(const struct cu_sys *s, const char *abs)
{
    return s->bin_dir ? cu_sys_path(s, abs) : cu_xstrdup(abs);
}

/* ---- checking a file by its engine's own parser ----------------------------------------------------------- */

struct scratch {
    const struct cu_sys *s;
    char *dir;          /* the private folder, as the machine sees it */
    struct cu_strv files; /* written in it, the first made it */
};

static enum cu_status
scratch_put(struct scratch *x, const char *name, const char *text, char **cmd_path, struct cu_error *err)
{
    static unsigned n;
    if (!x->dir)
        x->dir = cu_xasprintf("/var/lib/cudaup-check-%ld-%u", (long)getpid(), n++);
    CU_AUTOFREE char *abs = cu_path_join(x->dir, name);
    /* The first file makes the folder (0700, new: nobody else can put a file there); the others go into it. */
    enum cu_status st = x->files.n ? cu_sys_write(x->s, abs, text, err) : cu_sys_write_new(x->s, abs, text, strlen(text), err);
    if (st != CU_OK)
        return st;
    cu_strv_push(&x->files, abs);
    *cmd_path = command_path(x->s, abs);
    return CU_OK;
}

static void
scratch_fini(struct scratch *x)
{
    struct cu_error e;
    for (size_t i = x->files.n; i-- > 1;)
        if (cu_sys_remove(x->s, x->files.v[i], &e) != CU_OK)
            cu_log_warn("%s", cu_error_text(&e));
    if (x->files.n && cu_sys_remove_new(x->s, x->files.v[0], &e) != CU_OK)
        cu_log_warn("%s", cu_error_text(&e));
    cu_strv_fini(&x->files);
    free(x->dir);
}

/* Run a check command; its failure is the engine refusing the file: CU_E_INPUT with its last line. */
static enum cu_status
run_check(struct inst_ctr_ctx *c, const char *title, const char *const *argv, struct cu_buf *out, struct cu_error *err)
{
    struct cu_buf eb;
    int code = 0;
    cu_buf_init(&eb);
    CU_AUTOFREE char *line = cu_sys_argv_str(argv);
    enum cu_status st = cu_sys_capture(c->sys, argv, out, &eb, &code, err);
    if (st == CU_OK && code != 0) {
        CU_AUTOFREE char *why = cu_str_failure_line(eb.len ? eb.data : out->data);
        st = cu_error_set(err, CU_E_INPUT, 0, _("%s's own parser refuses the configuration cudaup would write (`%s`: %s); nothing of it was put in place."),
                          title, line, why && *why ? why : "?");
        cu_error_advise(err, _("That is the engine's own verdict on the file; fix what it names in its configuration (the file cudaup read is unchanged), then run cudaup again."));
    }
    cu_buf_fini(&eb);
    return st;
}

/* containerd: the candidate root config (its imports as the command sees them, the drop-in's the scratch copy) through
 * `containerd config dump`, whose output must hold the runtime and every setting of the root. */
static enum cu_status
check_containerd(struct inst_ctr_ctx *c, const char *old_root, const char *root, const char *dropin, char **how, struct cu_error *err)
{
    struct scratch x = {c->sys, NULL, {0}};
    struct cu_toml t;
    enum cu_status st;
    cu_strv_init(&x.files);
    CU_AUTOFREE char *dpath = NULL, *rpath = NULL, *candidate = NULL;
    if (dropin && (st = scratch_put(&x, "99-cudaup-nvidia.toml", dropin, &dpath, err)) != CU_OK)
        goto out;
    if ((st = cu_toml_parse(root ? root : "", &t, err)) != CU_OK)
        goto out;
    const struct cu_toml_entry *im = cu_toml_get(&t, "imports");
    if (im && im->type == CU_TOML_ARRAY) {
        struct cu_buf b;
        cu_buf_init(&b);
        cu_buf_puts(&b, "imports = [");
        bool named = false;
        for (char **p = im->items; p && *p; p++) {
            CU_AUTOFREE char *abs = **p == '/' ? cu_xstrdup(*p) : cu_path_join("/etc/containerd", *p);
            bool ours = dpath && strcmp(abs, CU_CTR_CONTAINERD_DROPIN) == 0;
            named |= ours;
            CU_AUTOFREE char *cp = ours ? cu_xstrdup(dpath) : command_path(c->sys, abs);
            CU_AUTOFREE char *q = cu_toml_quote(cp);
            cu_buf_printf(&b, "%s%s", p == im->items ? "" : ", ", q);
        }
        if (dpath && !named) { /* a glob of the root's takes it in once it is there: the check names the copy */
            CU_AUTOFREE char *q = cu_toml_quote(dpath);
            cu_buf_printf(&b, "%s%s", im->items && im->items[0] ? ", " : "", q);
        }
        cu_buf_puts(&b, "]\n");
        /* the imports' lines replaced, every other line as it is */
        struct cu_buf nb;
        cu_buf_init(&nb);
        int line = 1;
        for (const char *p = root; *p; line++) {
            const char *nl = strchr(p, '\n');
            size_t len = nl ? (size_t)(nl - p + 1) : strlen(p);
            if (line == im->line)
                cu_buf_puts(&nb, b.data);
            if (line < im->line || line > im->end_line)
                cu_buf_append(&nb, p, len);
            p += len;
        }
        candidate = cu_buf_steal(&nb);
        cu_buf_fini(&b);
    } else {
        candidate = cu_xstrdup(root ? root : "");
    }
    cu_toml_fini(&t);
    if ((st = scratch_put(&x, "config.toml", candidate, &rpath, err)) != CU_OK)
        goto out;
    const char *argv[] = {"containerd", "--config", rpath, "config", "dump", NULL};
    struct cu_buf out;
    cu_buf_init(&out);
    if ((st = run_check(c, "containerd", argv, &out, err)) == CU_OK) {
        CU_AUTOFREE char *why = cu_ctd_dump_check(out.data, old_root);
        if (why) {
            st = cu_error_set(err, CU_E_INPUT, 0, _("containerd read the configuration cudaup would write, but %s; nothing of it was put in place."), why);
            cu_error_advise(err, _("Report this to cudaup with the file's content; the file cudaup read is unchanged."));
        }
    }
    cu_buf_fini(&out);
    *how = cu_xstrdup(_("`containerd config dump` read it"));
out:
    scratch_fini(&x);
    return st;
}

/* Docker: `dockerd --validate` where Docker has it (23.0), else its keys compared with the old file's. */
static enum cu_status
check_docker(struct inst_ctr_ctx *c, bool validate, const char *old, const char *new_text, char **how, struct cu_error *err)
{
    if (!validate) {
        CU_AUTOFREE char *why = cu_docker_keys_check(old, new_text);
        *how = cu_xstrdup(_("Docker has no --validate before 23.0: cudaup parsed the file and compared its keys with the old file's"));
        if (why)
            return cu_error_set(err, CU_E_INPUT, 0, _("The daemon.json cudaup would write does not hold: %s; nothing was put in place."), why);
        return CU_OK;
    }
    struct scratch x = {c->sys, NULL, {0}};
    cu_strv_init(&x.files);
    CU_AUTOFREE char *p = NULL;
    enum cu_status st = scratch_put(&x, "daemon.json", new_text, &p, err);
    if (st == CU_OK) {
        const char *argv[] = {"dockerd", "--validate", "--config-file", p, NULL};
        struct cu_buf out;
        cu_buf_init(&out);
        st = run_check(c, "Docker", argv, &out, err);
        cu_buf_fini(&out);
    }
    scratch_fini(&x);
    *how = cu_xstrdup(_("`dockerd --validate` read it"));
    return st;
}

/* CRI-O: `crio config` with its drop-ins' folder as it will be (the others copied, cudaup's added). */
static enum cu_status
check_crio(struct inst_ctr_ctx *c, const char *dropin, char **how, struct cu_error *err)
{
    struct scratch x = {c->sys, NULL, {0}};
    cu_strv_init(&x.files);
    CU_AUTOFREE char *first = NULL;
    enum cu_status st = scratch_put(&x, "99-cudaup-nvidia.toml", dropin, &first, err);
    struct cu_engines en;
    struct cu_engines_opts o = {c->sys, c->envp, false, false};
    cu_engines_probe(&o, &en);
    const struct cu_engine_info *e = &en.e[CU_ENGINE_CRIO];
    for (size_t i = 0; st == CU_OK && i < e->n_imports; i++) {
        const char *b = strrchr(e->imports[i].path, '/');
        CU_AUTOFREE char *ignored = NULL;
        if (e->imports[i].text && strcmp(e->imports[i].path, CU_CTR_CRIO_DROPIN) != 0)
            st = scratch_put(&x, b + 1, e->imports[i].text, &ignored, err);
    }
    if (st == CU_OK) {
        CU_AUTOFREE char *dir = command_path(c->sys, x.dir);
        CU_AUTOFREE char *conf = command_path(c->sys, "/etc/crio/crio.conf");
        struct cu_strv av;
        cu_strv_init(&av);
        cu_strv_push(&av, "crio");
        if (e->config.text) {
            cu_strv_push(&av, "--config");
            cu_strv_push(&av, conf);
        }
        cu_strv_push(&av, "--config-dir");
        cu_strv_push(&av, dir);
        cu_strv_push(&av, "config");
        struct cu_buf out;
        cu_buf_init(&out);
        st = run_check(c, "CRI-O", (const char *const *)av.v, &out, err);
        cu_buf_fini(&out);
        cu_strv_fini(&av);
    }
    cu_engines_fini(&en);
    scratch_fini(&x);
    *how = cu_xstrdup(_("`crio config` read it"));
    return st;
}

/* ---- writing ------------------------------------------------------------------------------------------------ */

/* Write @text at @path (kept first at PATH.cudaup-bak when it is there and not kept yet), recorded. */
static enum cu_status
put_file(struct inst_ctr_ctx *c, struct ctr_rec *r, const char *path, const char *kind, const char *engine, const char *text,
         struct ctr_file **entry, struct cu_error *err)
{
    char *old = NULL;
    struct cu_error e;
    enum cu_status st;
    struct ctr_file *f = ctr_rec_file(r, path, kind);
    if (engine && !f->engine)
        f->engine = cu_xstrdup(engine);
    if (!f->sha256 && cu_sys_exists(c->sys, path) && cu_sys_read(c->sys, path, 8u << 20, &old, &e) == CU_OK) {
        /* the first write over the user's file keeps it, once */
        CU_AUTOFREE char *bak = cu_xasprintf("%s%s", path, CTR_BACKUP);
        if (!cu_sys_exists(c->sys, bak) && (st = cu_sys_write(c->sys, bak, old, err)) != CU_OK) {
            free(old);
            return st;
        }
        f->backup = cu_xstrdup(bak);
    }
    free(old);
    char sha[65];
    ctr_sha256(text, sha);
    free(f->sha256);
    f->sha256 = cu_xstrdup(sha);
    /* the record says so before the file is there: an interrupted run's file is still known as cudaup's */
    if ((st = ctr_rec_save(c->state_dir, r, err)) != CU_OK)
        return st;
    st = cu_sys_write(c->sys, path, text, err);
    if (entry)
        *entry = f;
    return st;
}

static char *
read_now(const struct cu_sys *s, const char *path)
{
    char *t = NULL;
    struct cu_error e;
    if (!cu_sys_exists(s, path) || cu_sys_read(s, path, 8u << 20, &t, &e) != CU_OK)
        return NULL;
    return t;
}

/* One engine's files: made again from the files as they are now, checked, then put in place. */
static enum cu_status
configure_engine(struct inst_ctr_ctx *c, struct ctr_rec *r, const struct cu_ctr_plan *p, enum cu_engine_kind k, struct cu_error *err)
{
    const struct cu_ctk_data *d = c->cat->containers;
    struct cu_engines en;
    struct cu_engines_opts o = {c->sys, c->envp, true, false};
    cu_engines_probe(&o, &en);
    const struct cu_engine_info *e = &en.e[k];
    const char *name = cu_engine_name(k);
    enum cu_status st = CU_OK;
    CU_AUTOFREE char *how = NULL;
    /* The drop-ins containerd refuses, set aside first (so that the check reads what containerd will). */
    for (size_t i = 0; i < p->n_steps && st == CU_OK; i++) {
        const struct cu_ctr_step *s = &p->steps[i];
        if (strcmp(s->action, "set-aside") != 0 || !s->engine || strcmp(s->engine, name) != 0)
            continue;
        CU_AUTOFREE char *text = read_now(c->sys, s->path);
        if (!text)
            continue;
        CU_AUTOFREE char *to = cu_xasprintf("%s%s", s->path, CTR_ASIDE);
        struct ctr_file *f = ctr_rec_file(r, s->path, "set-aside");
        free(f->backup);
        f->backup = cu_xstrdup(to);
        if ((st = ctr_rec_save(c->state_dir, r, err)) == CU_OK && (st = cu_sys_write(c->sys, to, text, err)) == CU_OK)
            st = cu_sys_remove(c->sys, s->path, err);
        cu_run_result(c->run, "containers", "set-aside", s->path, st, st == CU_OK);
    }
    if (st != CU_OK)
        goto out;
    if (k == CU_ENGINE_DOCKER) {
        const struct cu_engine_file *f = e->rootless ? &e->user_config : &e->config;
        CU_AUTOFREE char *text = NULL;
        bool changed, runtimes_only;
        if ((st = cu_docker_config(d, &e->version, f->text, &text, &changed, &runtimes_only, err)) != CU_OK || !changed)
            goto out;
        bool validate = e->version.n && cu_ctk_fact_for(d, "docker", "validate", &e->version);
        if ((st = check_docker(c, validate, f->text, text, &how, err)) != CU_OK)
            goto out;
        struct ctr_file *x = NULL;
        bool cdi_before = f->text && strstr(f->text, "\"cdi\"");
        st = put_file(c, r, f->path, "docker", name, text, &x, err);
        if (st == CU_OK && x && !runtimes_only && !cdi_before)
            x->cdi_added = true;
        if (st == CU_OK)
            st = ctr_rec_save(c->state_dir, r, err);
        CU_AUTOFREE char *detail = cu_xasprintf("%s (%s)", f->path, how);
        cu_run_result(c->run, "containers", "configure", detail, st, st == CU_OK);
        if (st == CU_OK && e->rootless) {
            CU_AUTOFREE char *tc = read_now(c->sys, CU_CTR_TOOLKIT_CONFIG);
            CU_AUTOFREE char *nt = cu_ctk_no_cgroups(tc ? tc : "");
            if (nt) {
                st = put_file(c, r, CU_CTR_TOOLKIT_CONFIG, "toolkit-config", NULL, nt, NULL, err);
                cu_run_result(c->run, "containers", "configure", CU_CTR_TOOLKIT_CONFIG, st, st == CU_OK);
            }
        }
    } else if (k == CU_ENGINE_CONTAINERD) {
        struct cu_ctd_write w;
        if ((st = cu_ctd_config(d, &e->version, e->config.text, e->imports, e->n_imports, &w, err)) != CU_OK)
            goto out;
        if (!w.configured && (st = check_containerd(c, e->config.text, w.root_text ? w.root_text : e->config.text, w.dropin_text, &how, err)) == CU_OK) {
            if (w.dropin_text)
                st = put_file(c, r, CU_CTR_CONTAINERD_DROPIN, "containerd-dropin", name, w.dropin_text, NULL, err);
            if (st == CU_OK && w.root_text) {
                struct ctr_file *x = NULL;
                st = put_file(c, r, "/etc/containerd/config.toml", "containerd-root", name, w.root_text, &x, err);
                if (st == CU_OK && x && w.dropin_text) {
                    x->import_added = true;
                    st = ctr_rec_save(c->state_dir, r, err);
                }
            }
            CU_AUTOFREE char *detail = cu_xasprintf("%s (%s)", w.dropin_text ? CU_CTR_CONTAINERD_DROPIN : "/etc/containerd/config.toml", how);
            cu_run_result(c->run, "containers", "configure", detail, st, st == CU_OK);
        }
        cu_ctd_write_fini(&w);
    } else if (k == CU_ENGINE_CRIO) {
        if (cu_crio_configured(&e->config, 1) || cu_crio_configured(e->imports, e->n_imports))
            goto out;
        CU_AUTOFREE char *text = cu_crio_dropin();
        if ((st = check_crio(c, text, &how, err)) == CU_OK) {
            st = put_file(c, r, CU_CTR_CRIO_DROPIN, "crio-dropin", name, text, NULL, err);
            CU_AUTOFREE char *detail = cu_xasprintf("%s (%s)", CU_CTR_CRIO_DROPIN, how);
            cu_run_result(c->run, "containers", "configure", detail, st, st == CU_OK);
        }
    }
out:
    cu_engines_fini(&en);
    return st;
}

/* ---- the order ------------------------------------------------------------------------------------------------ */

static const struct cu_ctr_engine *
plan_engine(const struct cu_ctr_plan *p, const char *name)
{
    for (size_t i = 0; i < p->n_engines; i++)
        if (strcmp(cu_engine_name(p->engines[i].kind), name) == 0)
            return &p->engines[i];
    return NULL;
}

static void
note(struct inst_ctr_ctx *c, const char *text)
{
    if (c->notes && !cu_strv_contains(c->notes, text))
        cu_strv_push(c->notes, text);
}

static enum cu_status
restart(struct inst_ctr_ctx *c, struct ctr_rec *r, const struct cu_ctr_plan *p, const struct cu_ctr_step *s, bool *declined,
        struct cu_error *err)
{
    const struct cu_ctr_engine *x = plan_engine(p, s->engine);
    enum cu_engine_kind k = x ? x->kind : CU_ENGINE_DOCKER;
    CU_AUTOFREE char *cmd = cu_ctr_step_line(s);
    if (s->ask) {
        CU_AUTOFREE char *names = x ? cu_strv_join(&x->running, ", ") : cu_xstrdup("");
        CU_AUTOFREE char *q = x && x->running.n ? cu_tr_asprintf(_("Restart %s now, so that it reads its new configuration? Its running containers stop: %s."),
                                                                 cu_engine_title(k), names)
                                                : cu_tr_asprintf(_("Restart %s now, so that it reads its new configuration? (It runs no container now.)"),
                                                                 cu_engine_title(k));
        if (!c->confirm || !c->confirm(c->confirm_userdata, q)) {
            CU_AUTOFREE char *n = cu_tr_asprintf(_("%s was not restarted: restart it when you can, so that it reads its new configuration: `%s`."),
                                                 cu_engine_title(k), cmd);
            note(c, n);
            cu_run_result(c->run, "containers", "restart", n, CU_OK, false);
            declined[k] = true;
            return CU_OK;
        }
    }
    return run_cmd(c, r, s->action, s->argv, false, err);
}

/* How to use what is now in place, one line per engine: NVIDIA's guide's own sample commands (CTK-GUIDE in
 * data/containers/SOURCES.md); an engine whose restart is left to the user is ready once it has restarted. */
static void
ready_notes(struct inst_ctr_ctx *c, const struct cu_ctr_plan *p, const bool *declined)
{
    for (size_t i = 0; i < p->n_engines; i++) {
        const struct cu_ctr_engine *x = &p->engines[i];
        bool later = declined[x->kind] || (x->apply && strcmp(x->apply, "user") == 0);
        CU_AUTOFREE char *n = NULL;
        switch (x->kind) {
        case CU_ENGINE_DOCKER:
            n = later ? cu_tr_asprintf(_("Once Docker has restarted, it runs GPU containers: `%s`."), "docker run --rm --runtime=nvidia --gpus all ubuntu nvidia-smi")
                      : cu_tr_asprintf(_("Docker runs GPU containers now: `%s`."), "docker run --rm --runtime=nvidia --gpus all ubuntu nvidia-smi");
            break;
        case CU_ENGINE_PODMAN:
            n = cu_tr_asprintf(_("Podman runs GPU containers now, through the CDI spec: `%s`."),
                               "podman run --rm --device nvidia.com/gpu=all --security-opt=label=disable ubuntu nvidia-smi -L");
            break;
        case CU_ENGINE_CONTAINERD:
        case CU_ENGINE_CRIO:
            n = later ? cu_tr_asprintf(_("Once %s has restarted, it has the runtime `nvidia` (a Kubernetes RuntimeClass names it as its handler)."),
                                       cu_engine_title(x->kind))
                      : cu_tr_asprintf(_("%s has the runtime `nvidia` now (a Kubernetes RuntimeClass names it as its handler)."),
                                       cu_engine_title(x->kind));
            break;
        default:
            break;
        }
        if (n)
            note(c, n);
    }
}

enum cu_status
inst_containers_install(struct inst_ctr_ctx *c, const struct cu_plan *plan, const struct cu_facts *facts, struct cu_error *err)
{
    const struct cu_ctr_plan *p = plan->containers;
    enum cu_status st = CU_OK;
    (void)facts;
    if (!p || strcmp(p->action, "install") != 0) {
        for (size_t i = 0; p && i < p->user_steps.n; i++)
            note(c, p->user_steps.v[i]);
        if (p && strcmp(p->action, "keep") == 0) {
            bool none[CU_N_ENGINES] = {false};
            ready_notes(c, p, none);
        }
        return CU_OK;
    }
    struct cu_container_info ci;
    if (c->sys->files_open) {
        cu_container_probe(&c->sys->files, &ci);
        if (ci.inside)
            return cu_error_set(err, CU_E_UNSUPPORTED, 0, _("cudaup runs inside a container: GPU containers are set up on the host; nothing was changed."));
    }
    struct ctr_rec r;
    bool exists;
    ctr_rec_init(&r);
    if ((st = ctr_rec_load(c->state_dir, c->envp, &r, &exists, err)) != CU_OK)
        goto out;
    if (!r.manager)
        r.manager = cu_xstrdup(p->manager);
    /* NVIDIA's repository: the driver stage's own steps, recorded in STATE/containers/driver.json. */
    struct cu_drv_step ds[4];
    size_t nds = 0;
    memset(ds, 0, sizeof(ds));
    for (size_t i = 0; i < p->n_steps && nds < CU_N_ELEMENTS(ds); i++) {
        const struct cu_ctr_step *s = &p->steps[i];
        if (strcmp(s->action, "keyring") != 0 && strcmp(s->action, "repository") != 0 && strcmp(s->action, "refresh") != 0)
            continue;
        ds[nds] = (struct cu_drv_step){.action = s->action, .argv = s->argv, .path = s->path, .url = s->url, .sha256 = s->sha256, .why = s->why};
        nds++;
    }
    if (nds) {
        CU_AUTOFREE char *repo_state = cu_path_join(c->state_dir, CTR_REPO_DIR);
        struct inst_driver_ctx dc = {c->sys, c->net, repo_state, c->cache_dir, c->run, c->cat, NULL};
        if ((st = inst_driver_repository(&dc, p->manager, ds, nds, err)) != CU_OK)
            goto out;
    }
    bool configured[CU_N_ENGINES] = {false}, pending[CU_N_ENGINES] = {false};
    for (size_t i = 0; i < p->n_steps && st == CU_OK; i++) {
        const struct cu_ctr_step *s = &p->steps[i];
        const char *a = s->action;
        if (strcmp(a, "keyring") == 0 || strcmp(a, "repository") == 0 || strcmp(a, "refresh") == 0 || strcmp(a, "check") == 0) {
            continue; /* the repository is done; each check runs with its engine's files */
        } else if (strcmp(a, "update") == 0 || strcmp(a, "prereq") == 0 || strcmp(a, "install") == 0) {
            st = run_cmd(c, &r, a, s->argv, true, err);
            if (st == CU_OK && strcmp(a, "install") == 0) {
                free(r.toolkit);
                r.toolkit = cu_xstrdup(p->toolkit);
                st = ctr_rec_save(c->state_dir, &r, err);
            }
        } else if (strcmp(a, "hold") == 0) {
            if ((st = run_cmd(c, &r, a, s->argv, false, err)) == CU_OK) {
                for (size_t k = 0; k < p->names.n; k++)
                    if (!cu_strv_contains(&r.held, p->names.v[k]))
                        cu_strv_push(&r.held, p->names.v[k]);
                st = ctr_rec_save(c->state_dir, &r, err);
            }
        } else if ((strcmp(a, "configure") == 0 || strcmp(a, "set-aside") == 0) && s->engine) {
            enum cu_engine_kind k;
            if (cu_engine_parse(s->engine, &k) && !configured[k]) {
                configured[k] = true;
                st = configure_engine(c, &r, p, k, err);
            }
        } else if (strcmp(a, "configure") == 0 && s->path && s->text) {
            /* cudaup's own refresh unit */
            st = put_file(c, &r, s->path, "unit", NULL, s->text, NULL, err);
            cu_run_result(c->run, "containers", a, s->path, st, st == CU_OK);
        } else if (strcmp(a, "cdi") == 0) {
            bool had = cu_sys_exists(c->sys, p->cdi_path);
            if (!had) {
                ctr_rec_file(&r, p->cdi_path, "cdi");
                st = ctr_rec_save(c->state_dir, &r, err);
            }
            if (st == CU_OK)
                st = run_cmd(c, &r, a, s->argv, false, err);
        } else if (strcmp(a, "units") == 0) {
            if ((st = run_cmd(c, &r, a, s->argv, false, err)) == CU_OK) {
                for (char **u = s->argv + 2; *u; u++)
                    if (!cu_strv_contains(&r.units, *u))
                        cu_strv_push(&r.units, *u);
                st = ctr_rec_save(c->state_dir, &r, err);
            }
        } else if (strcmp(a, "restart") == 0) {
            st = restart(c, &r, p, s, pending, err);
        } else if (strcmp(a, "reload") == 0) {
            st = run_cmd(c, &r, a, s->argv, false, err);
        }
    }
    for (size_t i = 0; st == CU_OK && i < p->user_steps.n; i++)
        note(c, p->user_steps.v[i]);
    if (st == CU_OK)
        ready_notes(c, p, pending);
out:
    ctr_rec_fini(&r);
    return st;
}
