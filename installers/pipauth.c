/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "pipauth.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/i18n.h"
#include "core/base/mem.h"
#include "core/base/proc.h"
#include "core/fetch/net.h"
#include "core/base/str.h"
#include "core/machine/sysinfo.h"

extern char **environ;

/* A netrc token: quoted (with backslash escapes) when it holds a blank, a quote, a backslash or '#'. */
static void
put_token(struct cu_buf *b, const char *s)
{
    if (*s && !strpbrk(s, " \t\r\n\"\\#")) {
        cu_buf_puts(b, s);
        return;
    }
    cu_buf_putc(b, '"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            cu_buf_putc(b, '\\');
        cu_buf_putc(b, *s);
    }
    cu_buf_putc(b, '"');
}

/*
 * Remove the private folders of runs that were killed before they could (SIGKILL, a power cut):
 * cudaup-pip-PID-XXXXXX in @tmp, a real folder of this user's whose PID is gone, with the netrc
 * inside.  A pip run may last hours, so age says nothing; the creator's PID does.  Another user's,
 * a link, or a live run's is left alone.
 */
static void
sweep_stale(const char *tmp)
{
    DIR *d = opendir(tmp);
    if (!d)
        return;
    int dfd = dirfd(d);
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        long pid;
        int used = 0;
        struct stat sb;
        if (strncmp(de->d_name, "cudaup-pip-", 11) != 0 ||
            sscanf(de->d_name + 11, "%ld-%*6[A-Za-z0-9]%n", &pid, &used) != 1 || de->d_name[11 + used] != '\0' ||
            pid <= 0 || fstatat(dfd, de->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(sb.st_mode) ||
            sb.st_uid != geteuid() || (pid_t)pid == getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        int fd = openat(dfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
            continue;
        unlinkat(fd, "netrc", 0);
        close(fd);
        unlinkat(dfd, de->d_name, AT_REMOVEDIR);
    }
    closedir(d);
}

/* One netrc entry: "machine HOST login USER password PASS". */
static void
put_entry(struct cu_buf *b, const char *host, const char *userpwd)
{
    const char *colon = strchr(userpwd, ':');
    CU_AUTOFREE char *user = colon ? cu_xstrndup(userpwd, (size_t)(colon - userpwd)) : cu_xstrdup(userpwd);
    cu_buf_puts(b, "machine ");
    put_token(b, host);
    cu_buf_puts(b, "\nlogin ");
    put_token(b, user);
    cu_buf_puts(b, "\npassword ");
    put_token(b, colon ? colon + 1 : "");
    cu_buf_putc(b, '\n');
    explicit_bzero(user, strlen(user));
}

enum cu_status
cu_pip_auth_begin(const struct cu_run_ctx *ctx, struct cu_pip_auth *a, struct cu_error *err)
{
    *a = (struct cu_pip_auth){0};
    /*
     * The hosts pip may ask, with the credentials each came with: the index --index-url named
     * (CUDAUP_INDEX_URL too), then the site mirror.  A host named twice keeps its first entry (netrc's
     * first match is what pip's requests library uses): the index pip is told to read.
     */
    struct netrc_entry {
        char *host;
        const char *userpwd;
    } ent[2];
    size_t n_ent = 0;
    const struct cu_plan_framework *fw = ctx->plan ? ctx->plan->framework : NULL;
    if (fw && fw->index_userpwd && fw->index_url) {
        char *h = cu_url_host(fw->index_url);
        if (*h)
            ent[n_ent++] = (struct netrc_entry){h, fw->index_userpwd};
        else
            free(h);
    }
    if (ctx->net && ctx->net->userpwd && ctx->net->base) {
        char *h = cu_url_host(ctx->net->base);
        bool dup = false;
        for (size_t i = 0; i < n_ent; i++)
            dup |= strcasecmp(ent[i].host, h) == 0;
        if (*h && !dup)
            ent[n_ent++] = (struct netrc_entry){h, ctx->net->userpwd};
        else
            free(h);
    }
    if (n_ent == 0)
        return CU_OK; /* nothing to hide: file:// or no credentials */
    const char *tmp = cu_env_get(ctx->envp, "TMPDIR");
    const char *dir = tmp && *tmp == '/' ? tmp : "/tmp";
    sweep_stale(dir);
    a->dir = cu_xasprintf("%s/cudaup-pip-%ld-XXXXXX", dir, (long)getpid());
    if (!mkdtemp(a->dir)) { /* mode 0700 */
        enum cu_status st = cu_error_set(err, CU_E_IO, errno, _("Cannot make a private folder %s for pip"), a->dir);
        cu_clear_ptr(&a->dir, free);
        for (size_t i = 0; i < n_ent; i++)
            free(ent[i].host);
        return st;
    }
    a->file = cu_xasprintf("%s/netrc", a->dir);
    struct cu_buf b;
    cu_buf_init(&b);
    for (size_t i = 0; i < n_ent; i++) {
        put_entry(&b, ent[i].host, ent[i].userpwd);
        free(ent[i].host);
    }
    int fd = open(a->file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    bool ok = fd >= 0 && write(fd, b.data, b.len) == (ssize_t)b.len;
    int e = errno;
    if (fd >= 0 && close(fd) != 0)
        ok = false;
    explicit_bzero(b.data, b.len);
    cu_buf_fini(&b);
    if (!ok) {
        enum cu_status st = cu_error_set(err, CU_E_IO, e, _("Cannot write %s"), a->file);
        cu_pip_auth_end(a);
        return st;
    }
    const char *const *env = ctx->envp ? ctx->envp : (const char *const *)environ;
    size_t n = 0;
    while (env[n])
        n++;
    a->envp = cu_xcalloc(n + 2, sizeof(*a->envp));
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(env[i], "NETRC=", 6) != 0)
            a->envp[k++] = cu_xstrdup(env[i]);
    a->envp[k] = cu_xasprintf("NETRC=%s", a->file);
    return CU_OK;
}

void
cu_pip_auth_end(struct cu_pip_auth *a)
{
    if (a->file)
        unlink(a->file);
    if (a->dir)
        rmdir(a->dir);
    for (char **e = a->envp; e && *e; e++)
        free(*e);
    free(a->envp);
    free(a->file);
    free(a->dir);
    *a = (struct cu_pip_auth){0};
}
