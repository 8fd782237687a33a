/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "mirror_pkg.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/fsutil.h"
#include "core/base/i18n.h"
#include "core/base/mem.h"
#include "core/base/proc.h"
#include "core/base/str.h"

static enum cu_status
refuse(struct cu_error *err, const char *pkg, const char *why)
{
    return cu_error_set(err, CU_E_USAGE, 0, _("--package: %s %s; give the .deb or .tar.gz that scripts/package made."),
                        pkg, why);
}

static bool
read_at(int fd, off_t at, void *buf, size_t len)
{
    ssize_t n = pread(fd, buf, len, at);
    return n == (ssize_t)len;
}

/* An ar archive whose first member is debian-binary holding "2.x". */
static bool
is_deb(int fd)
{
    char h[8 + 60 + 4];
    if (!read_at(fd, 0, h, sizeof(h)) || memcmp(h, "!<arch>\n", 8) != 0)
        return false;
    const char *name = h + 8;
    return (memcmp(name, "debian-binary   ", 16) == 0 || memcmp(name, "debian-binary/  ", 16) == 0) &&
           memcmp(h + 8 + 58, "`\n", 2) == 0 && memcmp(h + 8 + 60, "2.", 2) == 0;
}

/* A gzip'd tar that holds bin/cudaup. */
static bool
is_release_tarball(int fd)
{
    unsigned char magic[2];
    if (!read_at(fd, 0, magic, 2) || magic[0] != 0x1f || magic[1] != 0x8b || lseek(fd, 0, SEEK_SET) != 0)
        return false;
    struct archive *a = archive_read_new();
    archive_read_support_filter_gzip(a);
    archive_read_support_format_tar(a);
    bool found = false;
    if (archive_read_open_fd(a, fd, 1 << 16) == ARCHIVE_OK) {
        struct archive_entry *e;
        while (!found && archive_read_next_header(a, &e) == ARCHIVE_OK) {
            const char *p = archive_entry_pathname(e);
            found = p && archive_entry_filetype(e) == AE_IFREG && cu_str_has_suffix(p, "bin/cudaup");
        }
    }
    archive_read_free(a);
    return found && lseek(fd, 0, SEEK_SET) == 0;
}

enum cu_status
cu_mirror_pkg_open(const char *pkg, const char *const *envp, int *out, struct cu_error *err)
{
    struct stat ls, sb;
    char owner[64];
    *out = -1;
    if (lstat(pkg, &ls) != 0)
        return refuse(err, pkg, _("does not exist"));
    /* Another user's link would choose what root publishes world-readable. */
    if (S_ISLNK(ls.st_mode) && ls.st_uid != geteuid() && ls.st_uid != 0)
        return cu_error_set(err, CU_E_USAGE, 0,
                            _("--package: %s is a symbolic link owned by %s; cudaup will not follow another user's link."),
                            pkg, cu_user_name(ls.st_uid, owner, sizeof(owner)));
    int fd = open(pkg, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return refuse(err, pkg, _("cannot be read"));
    bool deb = cu_str_has_suffix(pkg, ".deb"), tgz = cu_str_has_suffix(pkg, ".tar.gz");
    enum cu_status st = CU_OK;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode))
        st = refuse(err, pkg, _("is not a plain file"));
    else if (!deb && !tgz)
        st = refuse(err, pkg, _("is named neither .deb nor .tar.gz"));
    else if (deb && !is_deb(fd))
        st = refuse(err, pkg, _("is not a Debian package (no ar archive with debian-binary first)"));
    else if (tgz && !is_release_tarball(fd))
        st = refuse(err, pkg, _("is not cudaup's release tarball (a gzip'd tar holding bin/cudaup)"));
    CU_AUTOFREE char *dpkg = deb && st == CU_OK ? cu_which("dpkg-deb", envp) : NULL;
    if (dpkg) {
        const char *argv[] = {dpkg, "--info", pkg, NULL};
        struct cu_exec_opts o = {.envp = envp, .timeout_ms = 60000};
        struct cu_exec_result res;
        struct cu_error e;
        cu_exec_result_init(&res);
        if (cu_exec(argv, &o, &res, &e) != CU_OK || res.exit_code != 0)
            st = refuse(err, pkg, _("is refused by dpkg-deb --info"));
        cu_exec_result_fini(&res);
    }
    if (st != CU_OK) {
        close(fd);
        return st;
    }
    *out = fd;
    return CU_OK;
}

/* Stream @fd from its start into @dst: a temporary beside it, fsync, rename. */
static enum cu_status
stream_to(int fd, const char *dst, struct cu_error *err)
{
    cu_clean_stale_tmp(dst);
    CU_AUTOFREE char *tmp = cu_tmp_template(dst);
    int out = mkostemp(tmp, O_CLOEXEC);
    if (out < 0)
        return cu_error_set(err, CU_E_IO, errno, _("Cannot write %s"), dst);
    char buf[1 << 16];
    off_t at = 0;
    ssize_t n;
    int e = 0;
    while ((n = pread(fd, buf, sizeof(buf), at)) > 0) {
        for (ssize_t w = 0; w < n;) {
            ssize_t k = write(out, buf + w, (size_t)(n - w));
            if (k < 0 && errno == EINTR)
                continue;
            if (k < 0) {
                e = errno;
                break;
            }
            w += k;
        }
        if (e)
            break;
        at += n;
    }
    if (n < 0 && !e)
        e = errno;
    if (!e && (fchmod(out, 0644) != 0 || fsync(out) != 0))
        e = errno;
    if (close(out) != 0 && !e)
        e = errno;
    if (!e && rename(tmp, dst) != 0)
        e = errno;
    if (e) {
        unlink(tmp);
        return cu_error_set(err, CU_E_IO, e, _("Cannot write %s"), dst);
    }
    return CU_OK;
}

enum cu_status
cu_mirror_pkg_place(int fd, const char *pkg, const char *dir, bool *changed, struct cu_error *err)
{
    CU_AUTOFREE char *dest_dir = cu_path_join(dir, "cudaup");
    const char *base = strrchr(pkg, '/') ? strrchr(pkg, '/') + 1 : pkg;
    enum cu_status st = cu_mkdir_p(dest_dir, 0755, err);
    CU_AUTOFREE char *named = cu_path_join(dest_dir, base);
    if (st == CU_OK)
        st = stream_to(fd, named, err);
    /* cudaup_0.1.0_amd64.deb -> cudaup_amd64.deb */
    const char *arch = cu_str_has_suffix(base, ".deb") ? strrchr(base, '_') : NULL;
    if (st == CU_OK && arch) {
        CU_AUTOFREE char *stable = cu_xasprintf("%s/cudaup%s", dest_dir, arch);
        st = stream_to(fd, stable, err);
    }
    *changed |= st == CU_OK;
    return st;
}
