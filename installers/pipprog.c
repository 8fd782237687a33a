/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "pipprog.h"

#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/i18n.h"
#include "core/base/mem.h"
#include "core/resolve/plan.h"
#include "core/base/str.h"

static const char *
after(const char *line, const char *word)
{
    size_t n = strlen(word);
    return strncmp(line, word, n) == 0 ? line + n : NULL;
}

/* A size as pip's format_size() prints it: "475.2 MB", "93 kB", "1.5 kB", "812 bytes". */
static uint64_t
pip_size(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || v < 0)
        return 0;
    while (*end == ' ')
        end++;
    double mult = strncmp(end, "GB", 2) == 0 ? 1e9 : strncmp(end, "MB", 2) == 0 ? 1e6
                  : strncmp(end, "kB", 2) == 0 ? 1e3 : strncmp(end, "bytes", 5) == 0 ? 1 : 0;
    return mult ? (uint64_t)(v * mult + 0.5) : 0;
}

/* The size in the last "(…)" of @line, 0 when there is none. */
static uint64_t
paren_size(const char *line)
{
    const char *open = strrchr(line, '(');
    return open && strchr(open, ')') ? pip_size(open + 1) : 0;
}

/* The project of a requirement ("numpy>=1.23 (from tensorflow)") or of a file or URL
 * (".../tensorflow-2.15.0-cp311-….whl (475.2 MB)", "torch-2.6.0+cu118-….whl"). */
static void
package_of(const char *s, bool file, char *out, size_t len)
{
    while (*s == ' ')
        s++;
    size_t n = strcspn(s, " (");
    const char *start = s;
    if (file) {
        for (const char *p = s; p < s + n; p++)
            if (*p == '/')
                start = p + 1;
        n = (size_t)(s + n - start);
        size_t dash = strcspn(start, "-");
        if (dash < n)
            n = dash;
    } else {
        size_t cut = strcspn(s, "<>=!~;[@ (");
        if (cut < n)
            n = cut;
    }
    if (n >= len)
        n = len - 1;
    memcpy(out, start, n);
    out[n] = '\0';
}

/* The file being downloaded is whole: count it. */
static void
file_done(struct cu_pip_progress *pp)
{
    if (pp->phase == CU_PIP_DOWNLOAD) {
        pp->finished += pp->file_total ? pp->file_total : pp->file_done;
        pp->file_done = pp->file_total = 0;
    }
}

bool
cu_pip_progress_line(struct cu_pip_progress *pp, const char *line, bool *log_it)
{
    const char *l = line, *rest;
    *log_it = true;
    while (*l == ' ')
        l++;
    uint64_t cur, tot;
    if (sscanf(l, "Progress %" SCNu64 " of %" SCNu64, &cur, &tot) == 2 && after(l, "Progress ")) {
        *log_it = false; /* four a second: the figures say it */
        if (pp->phase != CU_PIP_DOWNLOAD)
            return false;
        pp->raw = true;
        pp->file_done = cur;
        if (tot)
            pp->file_total = tot;
        return true;
    }
    if ((rest = after(l, "Collecting ")) || (rest = after(l, "Processing "))) {
        file_done(pp);
        pp->phase = CU_PIP_RESOLVE;
        package_of(rest, after(l, "Processing ") != NULL, pp->package, sizeof(pp->package));
        return true;
    }
    if ((rest = after(l, "Downloading ")) || (rest = after(l, "Using cached "))) {
        bool cached = after(l, "Using cached ") != NULL;
        size_t name_len = strcspn(rest, " (");
        if (name_len > 9 && strncmp(rest + name_len - 9, ".metadata", 9) == 0)
            return false; /* pip 23+ fetches a wheel's metadata while it resolves: not a file of the install */
        file_done(pp);
        package_of(rest, true, pp->package, sizeof(pp->package));
        pp->n_files++;
        pp->file_done = 0;
        pp->file_total = paren_size(l);
        pp->phase = cached ? CU_PIP_RESOLVE : CU_PIP_DOWNLOAD; /* pip's cache: nothing to fetch */
        return true;
    }
    if ((rest = after(l, "Installing collected packages: "))) {
        file_done(pp);
        pp->phase = CU_PIP_INSTALL;
        pp->n_installing = 1;
        for (const char *p = rest; *p; p++)
            pp->n_installing += *p == ',';
        pp->package[0] = '\0';
        return true;
    }
    if (after(l, "Successfully installed ")) {
        file_done(pp);
        pp->phase = CU_PIP_DONE;
        return true;
    }
    return false;
}

uint64_t
cu_pip_progress_bytes(const struct cu_pip_progress *pp)
{
    return pp->finished + (pp->phase == CU_PIP_DOWNLOAD ? pp->file_done : 0);
}

unsigned
cu_pip_version_key(const char *v)
{
    unsigned major = 0, minor = 0;
    if (sscanf(v, "%u.%u", &major, &minor) < 1)
        return 0;
    return major * 100 + (minor < 100 ? minor : 99);
}

bool
cu_pip_has_raw_progress(const char *python)
{
    /* ENV/bin/python -> ENV/lib/pythonX.Y/site-packages/pip-A.B.dist-info */
    CU_AUTOFREE char *env = cu_xstrdup(python);
    for (int i = 0; i < 2; i++) {
        char *slash = strrchr(env, '/');
        if (!slash)
            return false;
        *slash = '\0';
    }
    CU_AUTOFREE char *lib = cu_xasprintf("%s/lib", env);
    DIR *d = opendir(lib);
    if (!d)
        return false;
    unsigned best = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (strncmp(de->d_name, "python", 6) != 0)
            continue;
        CU_AUTOFREE char *sp = cu_xasprintf("%s/%s/site-packages", lib, de->d_name);
        DIR *s = opendir(sp);
        if (!s)
            continue;
        struct dirent *e;
        while ((e = readdir(s))) {
            size_t n = strlen(e->d_name);
            if (strncmp(e->d_name, "pip-", 4) == 0 && n > 14 && strcmp(e->d_name + n - 10, ".dist-info") == 0) {
                unsigned k = cu_pip_version_key(e->d_name + 4);
                if (k > best)
                    best = k;
            }
        }
        closedir(s);
    }
    closedir(d);
    return best >= 2401;
}

void
cu_env_figures_update(struct cu_env_figures *f, const char *phase, const char *what, uint64_t done, uint64_t total,
                      uint64_t so_far, unsigned files)
{
    f->begun = true;
    snprintf(f->phase, sizeof(f->phase), "%s", phase ? phase : "");
    if (what && *what)
        snprintf(f->what, sizeof(f->what), "%s", what);
    f->done = done;
    f->total = total;
    f->so_far = so_far;
    f->files = files;
}

double
cu_env_figures_frac(const struct cu_env_figures *f)
{
    if (strcmp(f->phase, "pip-download") != 0 || !f->total || !f->done)
        return -1;
    return f->done >= f->total ? 1.0 : (double)f->done / (double)f->total;
}

void
cu_env_figures_text(const struct cu_env_figures *f, char *head, size_t hl, char *sofar, size_t sl, char *files,
                    size_t fl)
{
    char a[32], b[32];
    double frac = cu_env_figures_frac(f);
    bool dl = strcmp(f->phase, "pip-download") == 0;
    if (strcmp(f->phase, "create") == 0)
        snprintf(head, hl, _("Python environment: creating %s"), f->what);
    else if (dl && frac >= 0)
        snprintf(head, hl, _("Python environment: pip downloads %s, %d%% of %s"), f->what, (int)(frac * 100),
                 cu_format_bytes(f->total, b, sizeof(b)));
    else if (dl && f->total)
        snprintf(head, hl, _("Python environment: pip downloads %s (%s)"), f->what,
                 cu_format_bytes(f->total, b, sizeof(b)));
    else if (dl)
        snprintf(head, hl, _("Python environment: pip downloads %s"), f->what);
    else if (strcmp(f->phase, "pip-install") == 0)
        snprintf(head, hl, ngettext_("Python environment: pip installs %u package",
                                     "Python environment: pip installs %u packages", f->files),
                 f->files);
    else if (strcmp(f->phase, "pip-done") == 0)
        snprintf(head, hl, "%s", _("Python environment: pip has installed the framework"));
    else
        snprintf(head, hl, _("Python environment: pip collects %s"), f->what);
    sofar[0] = files[0] = '\0';
    if (f->so_far)
        snprintf(sofar, sl, _("%s downloaded by pip"), cu_format_bytes(f->so_far, a, sizeof(a)));
    if (f->files && strcmp(f->phase, "pip-install") != 0)
        snprintf(files, fl, ngettext_("%u file", "%u files", f->files), f->files);
}
