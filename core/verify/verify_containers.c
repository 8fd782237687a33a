/* SPDX-License-Identifier: MIT */
/* verify's checks of GPU containers on a host (core/verify/verify_containers.h). */
#include "config.h"

#include "core/verify/verify_containers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/i18n.h"
#include "core/base/mem.h"
#include "core/base/proc.h"
#include "core/base/str.h"
#include "core/catalog/ctk_data.h"
#include "core/machine/cdi.h"
#include "core/machine/engines.h"

static void
cdi_check(const struct cu_facts *f, const struct cu_sys *sys, struct cu_checks *out)
{
    const struct cu_driver_info *d = &f->driver;
    bool wsl = d->kind == CU_DRIVER_WSL || f->os.wsl;
    if (!((d->kind == CU_DRIVER_NVIDIA && d->version.n) || wsl)) {
        cu_checks_add(out, "cdi-spec", CU_CHECK_SKIP, "%s", _("no NVIDIA driver is loaded, so no CDI spec can be of it"));
        return;
    }
    struct cu_cdi cdi;
    memset(&cdi, 0, sizeof(cdi));
    if (sys->files_open)
        cu_cdi_probe(&sys->files, &cdi);
    char b1[32], b2[32];
    if (!cdi.n) {
        cu_checks_add_fix(out, "cdi-spec", CU_CHECK_FAIL,
                          cu_xstrdup(_("no CDI spec of the GPUs is in /etc/cdi or /var/run/cdi: `--device nvidia.com/gpu=all` finds no device")),
                          cu_xstrdup(_("`cudaup repair` generates it; the toolkit's nvidia-cdi-refresh units keep it fresh")));
        cu_cdi_fini(&cdi);
        return;
    }
    for (size_t i = 0; i < cdi.n; i++) {
        const struct cu_cdi_spec *s = &cdi.v[i];
        size_t named = 0;
        for (size_t g = 0; g < f->n_gpus; g++) {
            char idx[16];
            snprintf(idx, sizeof(idx), "%d", f->gpus[g].index);
            named += cu_strv_contains(&s->devices, idx);
        }
        if (!wsl && s->driver.n && cu_version_cmp(&s->driver, &d->version) != 0)
            cu_checks_add_fix(out, "cdi-spec", CU_CHECK_FAIL,
                              cu_tr_asprintf(_("%s is of the NVIDIA driver %s, but driver %s is loaded"), s->path,
                                             cu_driver_version_format(&s->driver, b1, sizeof(b1)), cu_driver_version_format(&d->version, b2, sizeof(b2))),
                              cu_xstrdup(_("`cudaup repair` regenerates it")));
        else if (!wsl && named < f->n_gpus)
            cu_checks_add_fix(out, "cdi-spec", CU_CHECK_FAIL,
                              cu_tr_asprintf(_("%s names %zu of this machine's %zu GPUs"), s->path, named, f->n_gpus),
                              cu_xstrdup(_("`cudaup repair` regenerates it")));
        else
            cu_checks_add(out, "cdi-spec", CU_CHECK_PASS, _("%s names the %zu GPU(s) of this machine, for the driver that runs (%s)"), s->path,
                          wsl ? (size_t)1 : f->n_gpus, wsl ? "WSL2" : cu_driver_version_format(&d->version, b1, sizeof(b1)));
    }
    cu_cdi_fini(&cdi);
}

/* Run @argv through the runner; its output in *@out, its exit status returned (-1: it could not run). */
static int
ask(const struct cu_sys *sys, const char *const *argv, char **out)
{
    struct cu_buf b, e;
    struct cu_error err;
    int code = -1;
    cu_buf_init(&b);
    cu_buf_init(&e);
    if (cu_sys_capture(sys, argv, &b, &e, &code, &err) != CU_OK) {
        code = -1;
        cu_buf_puts(&e, cu_error_text(&err));
    }
    if (out) {
        if (e.len)
            cu_buf_append(&b, e.data, e.len);
        *out = b.data ? cu_buf_steal(&b) : cu_xstrdup("");
    }
    cu_buf_fini(&b);
    cu_buf_fini(&e);
    return code;
}

static void
run_check(const struct cu_facts *f, const struct cu_catalog *cat, const struct cu_sys *sys, const char *const *envp, struct cu_checks *out)
{
    struct cu_engines en;
    struct cu_engines_opts o = {sys, envp, true, false};
    cu_engines_probe(&o, &en);
    bool podman = en.e[CU_ENGINE_PODMAN].installed, docker = en.e[CU_ENGINE_DOCKER].installed;
    const char *img = cu_env_get(envp, "CUDAUP_CONTAINER_IMAGE");
    if (!img || !*img)
        img = CU_VERIFY_CONTAINER_IMAGE;
    if (!podman && !docker) {
        cu_checks_add(out, "container", CU_CHECK_SKIP, "%s",
                      _("neither Podman nor Docker is here to start a container with (containerd and CRI-O are checked through their configuration and the CDI spec)"));
        cu_engines_fini(&en);
        return;
    }
    const char *prog = podman ? "podman" : "docker", *title = podman ? "Podman" : "Docker";
    bool docker_cdi = !podman && en.e[CU_ENGINE_DOCKER].version.n && cu_ctk_fact_for(cat->containers, "docker", "cdi", &en.e[CU_ENGINE_DOCKER].version);
    const char *have_pm[] = {"podman", "image", "exists", img, NULL};
    const char *have_dk[] = {"docker", "image", "inspect", img, NULL};
    CU_AUTOFREE char *said = NULL;
    if (ask(sys, podman ? have_pm : have_dk, NULL) != 0) {
        const char *pull[] = {prog, "pull", img, NULL};
        if (ask(sys, pull, &said) != 0) {
            CU_AUTOFREE char *why = cu_str_failure_line(said);
            cu_checks_add(out, "container", CU_CHECK_SKIP,
                          _("no container was started: the image %s is not here and %s cannot pull it (%s); name one it has with CUDAUP_CONTAINER_IMAGE"),
                          img, title, why && *why ? why : "?");
            cu_engines_fini(&en);
            return;
        }
    }
    /* The GPU's device node and nvidia-smi come into the container from the host (the CDI spec, or the runtime hook). */
    const char *script = "ls /dev/nvidia* >/dev/null && nvidia-smi -L";
    const char *pm[] = {"podman", "run", "--rm", "--device", "nvidia.com/gpu=all", img, "sh", "-c", script, NULL};
    const char *dk_cdi[] = {"docker", "run", "--rm", "--device", "nvidia.com/gpu=all", img, "sh", "-c", script, NULL};
    const char *dk[] = {"docker", "run", "--rm", "--gpus", "all", img, "sh", "-c", script, NULL};
    const char *const *argv = podman ? pm : docker_cdi ? dk_cdi : dk;
    free(said);
    said = NULL;
    int code = ask(sys, argv, &said);
    size_t seen = 0;
    for (const char *p = said; p && (p = strstr(p, "GPU ")); p += 4)
        seen += p == said || p[-1] == '\n';
    size_t want = f->n_gpus ? f->n_gpus : 1;
    CU_AUTOFREE char *line = cu_sys_argv_str(argv);
    if (code == 0 && seen >= want) {
        cu_checks_add(out, "container", CU_CHECK_PASS, _("a container started by %s with the GPU sees %zu GPU(s) (`%s`)"), title, seen, line);
    } else {
        CU_AUTOFREE char *why = cu_str_failure_line(said);
        cu_checks_add_fix(out, "container", CU_CHECK_FAIL,
                          cu_tr_asprintf(_("a container started by %s with the GPU sees %zu of %zu GPU(s) (`%s` exited %d: %s)"), title, seen, want,
                                         line, code, why && *why ? why : "?"),
                          cu_xstrdup(_("`cudaup doctor` says what of the engine's configuration or the CDI spec is wrong, with its fix")));
    }
    cu_engines_fini(&en);
}

void
cu_verify_containers(const struct cu_facts *f, const struct cu_catalog *cat, const struct cu_sys *sys, const char *const *envp,
                     struct cu_checks *out)
{
    if (f->container.inside) {
        cu_checks_add(out, "cdi-spec", CU_CHECK_SKIP, "%s", _("cudaup runs inside a container: the host's GPU containers are checked on the host"));
        return;
    }
    cdi_check(f, sys, out);
    run_check(f, cat, sys, envp, out);
}
