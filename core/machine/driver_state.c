/* SPDX-License-Identifier: MIT */
/*
 * The driver's state beyond sysinfo's facts, read through the root: the running kernel, Secure
 * Boot, the loaded module's flavor, the module files for this kernel and their signature,
 * nouveau, the user-space libraries' version, the driver packages and their pin.
 */
#include "config.h"

#include "core/machine/driver_state.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/base/mem.h"
#include "core/base/proc.h"
#include "core/catalog/driver_data.h"
#include "core/machine/sysinfo.h"
#include "core/base/sysroot.h"

/* The UEFI global variable GUID: SecureBoot-<GUID> holds 4 attribute bytes, then 1 when on. */
#define SECURE_BOOT_VAR "/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c"
/* What the kernel's sign-file appends to a signed module. */
#define MODULE_SIG_MAGIC "~Module signature appended~\n"

static char *
read_text(const struct cu_sysroot *root, const char *path, size_t max)
{
    char *data = NULL;
    size_t len;
    struct cu_error e;
    if (cu_sysroot_read(root, path, max, &data, &len, &e) != CU_OK)
        return NULL;
    return data;
}

static char *
kernel_release(const struct cu_sysroot *root)
{
    char *r = cu_sysroot_read_line(root, "/proc/sys/kernel/osrelease");
    if (r && *r)
        return r;
    free(r);
    CU_AUTOFREE char *v = cu_sysroot_read_line(root, "/proc/version");
    const char *p = v && cu_str_has_prefix(v, "Linux version ") ? v + strlen("Linux version ") : NULL;
    return p ? cu_xstrndup(p, strcspn(p, " ")) : NULL;
}

static int
kernel_cmp(const void *a, const void *b)
{
    /* Releases are not versions ("6.1.0-57-amd64"): compared as GNU's strverscmp does, digits as numbers
     * (6.1.0-9 before 6.1.0-10); cu_version_strcmp called them all equal, so "newest" was readdir's order. */
    return strverscmp(*(const char *const *)a, *(const char *const *)b);
}

/* The kernels the root has modules or headers for: lib/modules/NAME, newest last. */
static void
root_kernels(const struct cu_sysroot *root, struct cu_strv *out)
{
    static const char *const bases[] = {"/lib/modules", "/usr/lib/modules"};
    for (size_t i = 0; i < CU_N_ELEMENTS(bases); i++) {
        DIR *d = cu_sysroot_opendir(root, bases[i]);
        struct dirent *de;
        while (d && (de = readdir(d))) {
            if (de->d_name[0] == '.' || cu_strv_contains(out, de->d_name))
                continue;
            CU_AUTOFREE char *p = cu_xasprintf("%s/%s", bases[i], de->d_name);
            if (cu_sysroot_is_dir(root, p))
                cu_strv_push(out, de->d_name);
        }
        if (d)
            closedir(d);
    }
    if (out->n > 1)
        qsort(out->v, out->n, sizeof(char *), kernel_cmp);
}

/* Every KEY=value of os-release (etc/os-release, else usr/lib/os-release, as os-release(5) says to look), in
 * @out as "KEY=value" with the value's quotes and backslash escapes removed; comments and blank lines skipped. */
static void
os_release_read(const struct cu_sysroot *root, struct cu_strv *out)
{
    CU_AUTOFREE char *t = read_text(root, "/etc/os-release", 65536);
    if (!t)
        t = read_text(root, "/usr/lib/os-release", 65536);
    char *save = NULL;
    for (char *line = t ? strtok_r(t, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
        char *eq = strchr(line, '=');
        if (line[0] == '#' || !eq || eq == line || strspn(line, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != (size_t)(eq - line))
            continue;
        struct cu_buf b;
        cu_buf_init(&b);
        cu_buf_append(&b, line, (size_t)(eq - line) + 1);
        const char *v = eq + 1;
        char q = (*v == '"' || *v == '\'') ? *v++ : 0;
        for (; *v && *v != q; v++) {
            if (*v == '\\' && q != '\'' && v[1])
                v++;
            cu_buf_putc(&b, *v);
        }
        cu_strv_push_owned(out, cu_buf_steal(&b));
    }
}

const char *
cu_drv_state_os_value(const struct cu_drv_state *s, const char *key)
{
    size_t kl = strlen(key);
    for (size_t i = 0; s && i < s->os_release.n; i++)
        if (strncmp(s->os_release.v[i], key, kl) == 0 && s->os_release.v[i][kl] == '=')
            return s->os_release.v[i][kl + 1] ? s->os_release.v[i] + kl + 1 : NULL;
    return NULL;
}

static int
secure_boot(const struct cu_sysroot *root)
{
    char *data = NULL;
    size_t len = 0;
    struct cu_error e;
    if (cu_sysroot_read(root, SECURE_BOOT_VAR, 64, &data, &len, &e) != CU_OK)
        return -1;
    int on = len >= 5 ? data[4] == 1 : -1;
    free(data);
    return on;
}

/*
 * The driver's own module file, as each distribution names it: nvidia.ko, Debian's nvidia-current.ko and
 * nvidia-tesla-470.ko (DKMS renames them; modprobe finds them by alias), each maybe compressed; never
 * its companions (-uvm, -drm, -modeset, -peermem).
 */
static bool
module_name(const char *n)
{
    const char *ko = strstr(n, ".ko");
    if (!ko || !(strcmp(ko, ".ko") == 0 || strcmp(ko, ".ko.xz") == 0 || strcmp(ko, ".ko.zst") == 0 || strcmp(ko, ".ko.gz") == 0))
        return false;
    size_t len = (size_t)(ko - n);
    if ((len == 6 && strncmp(n, "nvidia", 6) == 0) || (len == 14 && strncmp(n, "nvidia-current", 14) == 0))
        return true;
    if (!cu_str_has_prefix(n, "nvidia-tesla-") || len <= 13)
        return false;
    for (size_t i = 13; i < len; i++)
        if (n[i] < '0' || n[i] > '9')
            return false;
    return true;
}

/* Look for nvidia.ko* under @dir, a few levels deep (kernel/drivers/video, updates/dkms, ...). */
static char *
find_module(const struct cu_sysroot *root, const char *dir, int depth)
{
    DIR *d = cu_sysroot_opendir(root, dir);
    struct dirent *de;
    char *found = NULL;
    if (!d)
        return NULL;
    while (!found && (de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        CU_AUTOFREE char *p = cu_path_join(dir, de->d_name);
        if (module_name(de->d_name) && !cu_sysroot_is_dir(root, p))
            found = cu_xstrdup(p);
        else if (depth > 0 && cu_sysroot_is_dir(root, p))
            found = find_module(root, p, depth - 1);
    }
    closedir(d);
    return found;
}

/*
 * A compressed module (.ko.xz, .ko.zst, .ko.gz): the signature is appended to the module before it is
 * compressed, so the end of what it decompresses to is read (the last bytes kept as it streams by).
 */
static int
compressed_signed(int fd)
{
    enum { MAGIC = sizeof(MODULE_SIG_MAGIC) - 1 };
    struct archive *a = archive_read_new();
    char tail[MAGIC];
    size_t have = 0;
    int r = -1;
    archive_read_support_filter_all(a);
    archive_read_support_format_raw(a);
    struct archive_entry *e;
    if (archive_read_open_fd(a, fd, 65536) == ARCHIVE_OK && archive_read_next_header(a, &e) == ARCHIVE_OK) {
        char buf[65536];
        la_ssize_t n;
        uint64_t total = 0;
        while ((n = archive_read_data(a, buf, sizeof(buf))) > 0 && total < (1ull << 31)) {
            total += (uint64_t)n;
            if ((size_t)n >= MAGIC) {
                memcpy(tail, buf + n - MAGIC, MAGIC);
                have = MAGIC;
            } else {
                size_t keep = have + (size_t)n > MAGIC ? MAGIC - (size_t)n : have;
                memmove(tail, tail + have - keep, keep);
                memcpy(tail + keep, buf, (size_t)n);
                have = keep + (size_t)n;
            }
        }
        if (n == 0)
            r = have == MAGIC && memcmp(tail, MODULE_SIG_MAGIC, MAGIC) == 0;
    }
    archive_read_free(a);
    return r;
}

static int
module_signed(const struct cu_sysroot *root, const char *path)
{
    int fd = cu_sysroot_open(root, path, O_RDONLY);
    char tail[sizeof(MODULE_SIG_MAGIC) - 1];
    if (fd < 0)
        return -1;
    if (!cu_str_has_suffix(path, ".ko")) {
        int r = compressed_signed(fd);
        close(fd);
        return r;
    }
    off_t end = lseek(fd, 0, SEEK_END);
    int r = 0;
    if (end >= (off_t)sizeof(tail) && pread(fd, tail, sizeof(tail), end - (off_t)sizeof(tail)) == (ssize_t)sizeof(tail))
        r = memcmp(tail, MODULE_SIG_MAGIC, sizeof(tail)) == 0;
    close(fd);
    return r;
}

static bool
dir_blacklists_nouveau(const struct cu_sysroot *root, const char *dir)
{
    DIR *d = cu_sysroot_opendir(root, dir);
    struct dirent *de;
    bool found = false;
    if (!d)
        return false;
    while (!found && (de = readdir(d))) {
        if (!cu_str_has_suffix(de->d_name, ".conf"))
            continue;
        CU_AUTOFREE char *p = cu_path_join(dir, de->d_name);
        CU_AUTOFREE char *t = read_text(root, p, 1 << 20);
        char *save = NULL;
        for (char *line = t ? strtok_r(t, "\n", &save) : NULL; line && !found; line = strtok_r(NULL, "\n", &save)) {
            line += strspn(line, " \t");
            found = cu_str_has_prefix(line, "blacklist") && strstr(line, "nouveau");
        }
    }
    closedir(d);
    return found;
}

/* libnvidia-ml.so.580.95.05 names the user-space release even when NVML cannot start. */
static void
library_version(const struct cu_sysroot *root, struct cu_version *out)
{
    static const char *const dirs[] = {"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64",
                                       "/usr/lib"};
    for (size_t i = 0; i < CU_N_ELEMENTS(dirs) && !out->n; i++) {
        DIR *d = cu_sysroot_opendir(root, dirs[i]);
        struct dirent *de;
        if (!d)
            continue;
        while ((de = readdir(d))) {
            struct cu_version v;
            if (cu_str_has_prefix(de->d_name, "libnvidia-ml.so.") &&
                cu_version_parse(de->d_name + strlen("libnvidia-ml.so."), &v) && v.n >= 2 && v.part[0] >= 100) {
                *out = v;
                break;
            }
        }
        closedir(d);
    }
}

/* Kernel releases in order: "6.8.0-151-generic" after "6.8.0-45-generic" (their runs of digits, as numbers). */
static int
krel_cmp(const char *a, const char *b)
{
    while (*a || *b) {
        while (*a && !(*a >= '0' && *a <= '9'))
            a++;
        while (*b && !(*b >= '0' && *b <= '9'))
            b++;
        if (!*a || !*b)
            return *a ? 1 : *b ? -1 : 0;
        char *ea, *eb;
        unsigned long long x = strtoull(a, &ea, 10), y = strtoull(b, &eb, 10);
        if (x != y)
            return x < y ? -1 : 1;
        a = ea;
        b = eb;
    }
    return 0;
}

/* The kernel packages dpkg lists (image metas, with their Depends; kernel images), for the kernel meta. */
struct kpkgs {
    struct cu_strv metas, meta_deps, images;
};

static void
kernel_package(struct kpkgs *k, const char *pkg, const char *status, const char *depends)
{
    if (!cu_str_has_prefix(pkg, "linux-image-") || !cu_str_has_suffix(status, " installed"))
        return;
    const char *rest = pkg + strlen("linux-image-");
    if (cu_str_has_prefix(rest, "unsigned-"))
        rest += strlen("unsigned-");
    if (*rest >= '0' && *rest <= '9') {
        if (!cu_str_has_suffix(rest, "-dbg") && !cu_str_has_suffix(rest, "-unsigned"))
            cu_strv_push(&k->images, rest);
    } else if (rest == pkg + strlen("linux-image-")) {
        cu_strv_push(&k->metas, rest);
        cu_strv_push(&k->meta_deps, depends ? depends : "");
    }
}

/* Does a Depends field name package @name (as a whole word)? */
static bool
depends_on(const char *deps, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = strstr(deps, name); p; p = strstr(p + 1, name)) {
        bool start = p == deps || p[-1] == ' ' || p[-1] == ',' || p[-1] == '|';
        bool end = !p[n] || p[n] == ' ' || p[n] == ',' || p[n] == '|' || p[n] == '(';
        if (start && end)
            return true;
    }
    return false;
}

/*
 * As ubuntu-drivers' kerneldetection does: the newest installed kernel image, then the installed image
 * meta that depends on it (the greatest name when several do).  NULL when there is none.
 */
static char *
kernel_meta_of(const struct kpkgs *k)
{
    const char *newest = NULL;
    for (size_t i = 0; i < k->images.n; i++)
        if (!newest || krel_cmp(k->images.v[i], newest) > 0)
            newest = k->images.v[i];
    if (!newest)
        return NULL;
    CU_AUTOFREE char *img = cu_xasprintf("linux-image-%s", newest);
    CU_AUTOFREE char *uimg = cu_xasprintf("linux-image-unsigned-%s", newest);
    const char *best = NULL;
    for (size_t i = 0; i < k->metas.n; i++)
        if ((depends_on(k->meta_deps.v[i], img) || depends_on(k->meta_deps.v[i], uimg)) &&
            (!best || strcmp(k->metas.v[i], best) > 0))
            best = k->metas.v[i];
    return best ? cu_xstrdup(best) : NULL;
}

static bool
driver_package(const char *name)
{
    return cu_str_has_prefix(name, "nvidia-") || cu_str_has_prefix(name, "linux-modules-nvidia-") ||
           cu_str_has_prefix(name, "cuda-drivers") || cu_str_has_prefix(name, "libnvidia-compute-") ||
           strcmp(name, "firmware-misc-nonfree") == 0;
}

static void
add_package(struct cu_drv_state *s, const char *pkg, const char *status)
{
    /* Status is "WANT EFLAG STATE": "install ok installed", "hold ok installed" after apt-mark hold. */
    if (!pkg[0] || !cu_str_has_suffix(status, " installed"))
        return;
    cu_strv_push(&s->packages, pkg);
    if (!driver_package(pkg))
        return;
    cu_strv_push(&s->installed, pkg);
    if (cu_str_has_prefix(status, "hold "))
        cu_strv_push(&s->held, pkg);
}

/* dpkg's database as read from its files: one record per package and architecture, the last one read winning. */
struct dpkg_db {
    struct cu_strv keys, pkgs, status, depends; /* keys: "PACKAGE:ARCH" */
};

/* Fold the paragraphs of @t (the status file, or one of dpkg's journal files after it) into @db. */
static void
dpkg_fold(struct dpkg_db *db, char *t)
{
    const char *pkg = NULL, *arch = "", *status = NULL, *depends = "";
    for (char *line = t, *next; line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        if (cu_str_has_prefix(line, "Package: "))
            pkg = line + strlen("Package: ");
        else if (cu_str_has_prefix(line, "Architecture: "))
            arch = line + strlen("Architecture: ");
        else if (cu_str_has_prefix(line, "Status: "))
            status = line + strlen("Status: ");
        else if (cu_str_has_prefix(line, "Depends: "))
            depends = line + strlen("Depends: ");
        if (*line && next)
            continue;
        /* The end of a paragraph (an empty line, or the end of the file). */
        if (pkg && *pkg && status) {
            CU_AUTOFREE char *key = cu_xasprintf("%s:%s", pkg, arch);
            size_t i = 0;
            while (i < db->keys.n && strcmp(db->keys.v[i], key) != 0)
                i++;
            if (i == db->keys.n) {
                cu_strv_push(&db->keys, key);
                cu_strv_push(&db->pkgs, pkg);
                cu_strv_push(&db->status, status);
                cu_strv_push(&db->depends, depends);
            } else {
                free(db->status.v[i]);
                db->status.v[i] = cu_xstrdup(status);
                free(db->depends.v[i]);
                db->depends.v[i] = cu_xstrdup(depends);
            }
        }
        pkg = status = NULL;
        arch = depends = "";
    }
}

static int
journal_cmp(const void *a, const void *b)
{
    const char *x = *(const char *const *)a, *y = *(const char *const *)b;
    size_t lx = strlen(x), ly = strlen(y);
    return lx != ly ? (lx < ly ? -1 : 1) : strcmp(x, y);
}

/*
 * dpkg's database of a machine root, read through the root (no program of this host's or of the root's
 * runs for it, and no root's privileges are needed): the status file, then dpkg's journal of updates
 * not yet folded into it (var/lib/dpkg/updates/NNNN, in order: each record there replaces the package's),
 * as dpkg-query reads them (dpkg(1), FILES).
 */
static void
dpkg_status_file(const struct cu_sysroot *root, struct cu_drv_state *s, struct kpkgs *k)
{
    struct dpkg_db db;
    cu_strv_init(&db.keys);
    cu_strv_init(&db.pkgs);
    cu_strv_init(&db.status);
    cu_strv_init(&db.depends);
    CU_AUTOFREE char *t = read_text(root, "/var/lib/dpkg/status", 256u << 20);
    s->packages_read = t != NULL;
    if (t)
        dpkg_fold(&db, t);
    struct cu_strv journal;
    cu_strv_init(&journal);
    DIR *d = cu_sysroot_opendir(root, "/var/lib/dpkg/updates");
    struct dirent *de;
    while (d && (de = readdir(d)))
        if (de->d_name[0] && strspn(de->d_name, "0123456789") == strlen(de->d_name))
            cu_strv_push(&journal, de->d_name);
    if (d)
        closedir(d);
    if (journal.n)
        qsort(journal.v, journal.n, sizeof(char *), journal_cmp);
    for (size_t i = 0; i < journal.n; i++) {
        CU_AUTOFREE char *p = cu_path_join("/var/lib/dpkg/updates", journal.v[i]);
        CU_AUTOFREE char *u = read_text(root, p, 64u << 20);
        if (u)
            dpkg_fold(&db, u);
    }
    for (size_t i = 0; i < db.keys.n; i++) {
        add_package(s, db.pkgs.v[i], db.status.v[i]);
        kernel_package(k, db.pkgs.v[i], db.status.v[i], db.depends.v[i]);
    }
    cu_strv_fini(&journal);
    cu_strv_fini(&db.keys);
    cu_strv_fini(&db.pkgs);
    cu_strv_fini(&db.status);
    cu_strv_fini(&db.depends);
}

/*
 * This machine's dpkg database, read by dpkg's own reader: dpkg-query on PATH.  False where it cannot be
 * run.  A machine root other than / is never read this way (this host's dpkg-query against another tree,
 * outside the runner: issue 46 item 5); its files are read through the root (dpkg_status_file).
 */
static bool
dpkg_query(const struct cu_sysroot *root, const char *const *envp, struct cu_drv_state *s, struct kpkgs *k)
{
    if (!cu_sysroot_is_host(root))
        return false;
    if (!cu_sysroot_is_dir(root, "/var/lib/dpkg"))
        return true; /* no dpkg on this machine: nothing to read */
    const char *argv[] = {"dpkg-query", "-W", "-f=${Package}\t${Status}\t${Depends}\n", NULL};
    struct cu_exec_opts o = {.envp = envp, .timeout_ms = 60000};
    struct cu_exec_result r;
    struct cu_error e;
    cu_exec_result_init(&r);
    bool ran = cu_exec(argv, &o, &r, &e) == CU_OK && r.exit_code == 0;
    s->packages_read = ran;
    if (ran) {
        for (char *line = r.out.data, *next; line && *line; line = next) {
            next = strchr(line, '\n');
            if (next)
                *next++ = '\0';
            char *tab = strchr(line, '\t');
            if (tab) {
                *tab = '\0';
                char *deps = strchr(tab + 1, '\t');
                if (deps)
                    *deps++ = '\0';
                add_package(s, line, tab + 1);
                kernel_package(k, line, tab + 1, deps);
            }
        }
    }
    cu_exec_result_fini(&r);
    return ran;
}

static bool
file_mentions(const struct cu_sysroot *root, const char *path, const char *a, const char *b)
{
    CU_AUTOFREE char *t = read_text(root, path, 16u << 20);
    return t && strstr(t, a) && (!b || strstr(t, b));
}

/* An apt preferences file that holds nvidia packages to a version (cudaup's "Pin: version 580.*"). */
static bool
apt_pinned(const struct cu_sysroot *root)
{
    DIR *d = cu_sysroot_opendir(root, "/etc/apt/preferences.d");
    struct dirent *de;
    bool found = file_mentions(root, "/etc/apt/preferences", "nvidia", "Pin: version");
    while (!found && d && (de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        CU_AUTOFREE char *p = cu_path_join("/etc/apt/preferences.d", de->d_name);
        found = file_mentions(root, p, "nvidia", "Pin: version");
    }
    if (d)
        closedir(d);
    return found;
}

/* The branch at @p: a driver branch's three digits, not followed by another digit; 0 when there are none. */
static int
branch_at(const char *p)
{
    size_t k = strspn(p, "0123456789");
    uint64_t v;
    char num[8];
    if (k != 3)
        return 0;
    memcpy(num, p, 3);
    num[3] = '\0';
    return cu_parse_u64(num, 999, &v) && v >= 300 ? (int)v : 0;
}

/* Note branch @b of a pin read at @where, when it is the newest seen. */
static void
pin_seen(struct cu_drv_state *s, int b, const char *where)
{
    if (b > s->pin_branch) {
        s->pin_branch = b;
        free(s->pin_file);
        s->pin_file = cu_xstrdup(where);
    }
}

/* The branches the pins of nvidia packages name (issue 45: a pin past the last branch of a GPU here holds the driver
 * on a branch that ignores it).  Each kind as cudaup writes it, and as the tools do (data/driver/driver_packages.csv). */
static void
pin_branches(const struct cu_sysroot *root, struct cu_drv_state *s)
{
    for (size_t i = 0; i < s->held.n; i++) { /* apt-mark hold nvidia-driver-580 */
        const char *dash = strrchr(s->held.v[i], '-');
        if (dash && strstr(s->held.v[i], "nvidia"))
            pin_seen(s, branch_at(dash + 1), "apt-mark hold");
    }
    struct cu_strv files;
    cu_strv_init(&files);
    cu_strv_push(&files, "/etc/apt/preferences");
    DIR *d = cu_sysroot_opendir(root, "/etc/apt/preferences.d");
    struct dirent *de;
    while (d && (de = readdir(d)))
        if (de->d_name[0] != '.')
            cu_strv_push_owned(&files, cu_path_join("/etc/apt/preferences.d", de->d_name));
    if (d)
        closedir(d);
    static const char *const other[] = {"/etc/dnf/plugins/versionlock.list", "/etc/dnf/versionlock.toml",
                                        "/etc/dnf/modules.d/nvidia-driver.module"};
    for (size_t i = 0; i < CU_N_ELEMENTS(other); i++)
        cu_strv_push(&files, other[i]);
    for (size_t f = 0; f < files.n; f++) {
        CU_AUTOFREE char *t = read_text(root, files.v[f], 1u << 20);
        bool apt = cu_str_has_prefix(files.v[f], "/etc/apt/"), module = strstr(files.v[f], "modules.d") != NULL;
        if (!t || (!module && !strstr(t, "nvidia")))
            continue;
        for (char *l = t, *next; l && *l; l = next) {
            next = strchr(l, '\n');
            if (next)
                *next++ = '\0'; /* one line at a time */
            const char *v = NULL;
            if (apt && strncmp(l, "Pin: version ", 13) == 0)
                v = l + 13;                                   /* Pin: version 580.* */
            else if (module && strncmp(l, "stream=", 7) == 0)
                v = l + 7;                                    /* stream=580-open */
            else if (!apt && !module && strstr(l, "nvidia") && strchr(l, ':'))
                v = strchr(l, ':') + 1;                       /* nvidia-driver-3:580.95.05-1.el9.* */
            else if (!apt && !module && strstr(l, "value") && strchr(l, '"'))
                v = strchr(l, '"') + 1;                       /* versionlock.toml: value = "3:580.95.05-1.fc41" */
            if (v && !apt && !module && strchr(v, ':') && strchr(v, ':') < v + 3)
                v = strchr(v, ':') + 1;
            if (v)
                pin_seen(s, branch_at(v), files.v[f]);
        }
    }
    cu_strv_fini(&files);
}

/* NVIDIA's PCI functions other than GPUs (NVSwitch bridges): "DEVICE CLASS". */
static void
nvidia_functions(const struct cu_sysroot *root, struct cu_strv *out)
{
    DIR *d = cu_sysroot_opendir(root, "/sys/bus/pci/devices");
    struct dirent *de;
    while (d && (de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        CU_AUTOFREE char *dir = cu_path_join("/sys/bus/pci/devices", de->d_name);
        CU_AUTOFREE char *vp = cu_path_join(dir, "vendor");
        CU_AUTOFREE char *dp = cu_path_join(dir, "device");
        CU_AUTOFREE char *cp = cu_path_join(dir, "class");
        CU_AUTOFREE char *vendor = cu_sysroot_read_line(root, vp);
        CU_AUTOFREE char *device = cu_sysroot_read_line(root, dp);
        CU_AUTOFREE char *cls = cu_sysroot_read_line(root, cp);
        if (!vendor || !device || !cls || strcasecmp(vendor, "0x10de") != 0 || cu_str_has_prefix(cls, "0x03"))
            continue;
        cu_strv_push_owned(out, cu_xasprintf("%s %s", device, cls));
    }
    if (d)
        closedir(d);
}

/*
 * Each InfiniBand device's VPD as "NAME TEXT": its printable bytes, the others as spaces (VPD is binary: tags
 * and lengths around ASCII fields).  On a fourth-generation NVSwitch board the baseboard's ConnectX-7 carries
 * its management mark there (driver_nvswitch_vpd.csv).  The file is root's to read: an unreadable one is counted
 * in *@unread, so that a plan made as another user can say it could not tell.
 */
static void
infiniband_vpd(const struct cu_sysroot *root, struct cu_strv *out, int *unread)
{
    DIR *d = cu_sysroot_opendir(root, "/sys/class/infiniband");
    struct dirent *de;
    while (d && (de = readdir(d))) {
        if (de->d_name[0] == '.' || strchr(de->d_name, ' '))
            continue;
        CU_AUTOFREE char *p = cu_xasprintf("/sys/class/infiniband/%s/device/vpd", de->d_name);
        CU_AUTOFREE char *data = NULL;
        size_t len = 0;
        struct cu_error e;
        if (cu_sysroot_read(root, p, 65536, &data, &len, &e) != CU_OK) {
            if (cu_sysroot_exists(root, p))
                (*unread)++;
            cu_error_clear(&e);
            continue;
        }
        for (size_t i = 0; i < len; i++)
            if ((unsigned char)data[i] < 0x20 || (unsigned char)data[i] > 0x7e)
                data[i] = ' ';
        cu_strv_push_owned(out, cu_xasprintf("%s %.*s", de->d_name, (int)len, data));
    }
    if (d)
        closedir(d);
}

/* dnf's enabled stream of the nvidia-driver module (etc/dnf/modules.d/nvidia-driver.module). */
static char *
module_stream(const struct cu_sysroot *root)
{
    CU_AUTOFREE char *t = read_text(root, "/etc/dnf/modules.d/nvidia-driver.module", 65536);
    char *stream = NULL, *save = NULL;
    bool enabled = false;
    for (char *line = t ? strtok_r(t, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
        line = cu_str_strip(line);
        if (cu_str_has_prefix(line, "stream=") && line[7]) {
            free(stream);
            stream = cu_xstrdup(line + 7);
        } else if (strcmp(line, "state=enabled") == 0) {
            enabled = true;
        }
    }
    if (!enabled) {
        free(stream);
        return NULL;
    }
    return stream;
}

struct cu_drv_state *
cu_drv_state_probe(const struct cu_sysroot *root, const struct cu_facts *f, const char *const *envp)
{
    struct cu_drv_state *s = cu_xcalloc(1, sizeof(*s));
    cu_strv_init(&s->installed);
    cu_strv_init(&s->held);
    cu_strv_init(&s->packages);
    cu_strv_init(&s->kernels);
    cu_strv_init(&s->nvidia_functions);
    cu_strv_init(&s->infiniband_vpd);
    cu_strv_init(&s->files_present);
    s->kernel_release = kernel_release(root);
    root_kernels(root, &s->kernels);
    s->boot_id = cu_sysroot_read_line(root, "/proc/sys/kernel/random/boot_id");
    if (s->boot_id && !*s->boot_id) {
        free(s->boot_id);
        s->boot_id = NULL;
    }
    /* A machine image: no running kernel to see; its own newest kernel is the one that will run. */
    s->image = !cu_sysroot_is_host(root) && !s->kernel_release;
    if (s->image && s->kernels.n)
        s->kernel_release = cu_xstrdup(s->kernels.v[s->kernels.n - 1]);
    cu_strv_init(&s->os_release);
    os_release_read(root, &s->os_release);
    const char *code = cu_drv_state_os_value(s, "VERSION_CODENAME");
    s->version_codename = code ? cu_xstrdup(code) : NULL;
    s->secure_boot = secure_boot(root);
    CU_AUTOFREE char *ver = read_text(root, "/proc/driver/nvidia/version", 65536);
    if (ver)
        s->flavor = cu_xstrdup(strstr(ver, "Open Kernel Module") ? "open" : "proprietary");
    s->module_for_kernel = -1;
    s->module_signed = -1;
    if (s->kernel_release && !f->os.wsl) {
        static const char *const bases[] = {"/lib/modules", "/usr/lib/modules"};
        for (size_t i = 0; i < CU_N_ELEMENTS(bases) && !s->module_path; i++) {
            CU_AUTOFREE char *dir = cu_xasprintf("%s/%s", bases[i], s->kernel_release);
            s->module_path = find_module(root, dir, 4);
        }
        s->module_for_kernel = s->module_path ? 1 : 0;
        if (s->module_path)
            s->module_signed = module_signed(root, s->module_path);
    }
    s->nouveau_bound = f->driver.kind == CU_DRIVER_NOUVEAU || f->driver.nouveau_loaded;
    for (size_t i = 0; i < f->n_gpus; i++)
        s->nouveau_bound |= f->gpus[i].kernel_driver && strcmp(f->gpus[i].kernel_driver, "nouveau") == 0;
    s->nouveau_blacklisted = dir_blacklists_nouveau(root, "/etc/modprobe.d") ||
                             dir_blacklists_nouveau(root, "/usr/lib/modprobe.d") ||
                             dir_blacklists_nouveau(root, "/lib/modprobe.d");
    if (f->driver.lib_version.n)
        s->lib_version = f->driver.lib_version;
    else
        library_version(root, &s->lib_version);
    struct kpkgs k;
    cu_strv_init(&k.metas);
    cu_strv_init(&k.meta_deps);
    cu_strv_init(&k.images);
    if (!dpkg_query(root, envp, s, &k))
        dpkg_status_file(root, s, &k);
    s->kernel_meta = kernel_meta_of(&k);
    cu_strv_fini(&k.metas);
    cu_strv_fini(&k.meta_deps);
    cu_strv_fini(&k.images);
    if (!s->kernel_meta && s->kernel_release) { /* Arch: the kernel's package names itself in its modules folder */
        static const char *const bases[] = {"/usr/lib/modules", "/lib/modules"};
        for (size_t i = 0; i < CU_N_ELEMENTS(bases) && !s->kernel_meta; i++) {
            CU_AUTOFREE char *p = cu_xasprintf("%s/%s/pkgbase", bases[i], s->kernel_release);
            char *line = cu_sysroot_read_line(root, p);
            if (line && *line && strspn(line, "abcdefghijklmnopqrstuvwxyz0123456789-_.+") == strlen(line))
                s->kernel_meta = line;
            else
                free(line);
        }
    }
    nvidia_functions(root, &s->nvidia_functions);
    infiniband_vpd(root, &s->infiniband_vpd, &s->infiniband_vpd_unread);
    s->module_stream = module_stream(root);
    s->fabricmanager_enabled =
        cu_sysroot_exists(root, "/etc/systemd/system/multi-user.target.wants/nvidia-fabricmanager.service");
    s->pinned = s->held.n > 0 || apt_pinned(root) || file_mentions(root, "/etc/dnf/plugins/versionlock.list", "nvidia", NULL) ||
                file_mentions(root, "/etc/dnf/versionlock.toml", "nvidia", NULL) ||
                file_mentions(root, "/etc/dnf/modules.d/nvidia-driver.module", "state=enabled", "stream=5") ||
                file_mentions(root, "/etc/dnf/modules.d/nvidia-driver.module", "state=enabled", "stream=4") ||
                file_mentions(root, "/etc/zypp/locks", "nvidia", NULL);
    pin_branches(root, s);
    s->reboot_required = cu_sysroot_exists(root, "/var/run/reboot-required") ||
                         cu_sysroot_exists(root, "/run/reboot-required");
    return s;
}

void
cu_drv_state_probe_files(struct cu_drv_state *s, const struct cu_sysroot *root, const struct cu_drv_data *d)
{
    for (size_t i = 0; s && d && i < d->n_nvswitch_vpd; i++) {
        const char *p = d->nvswitch_vpd[i].needs_file;
        if (!cu_strv_contains(&s->files_present, p) && cu_sysroot_exists(root, p))
            cu_strv_push(&s->files_present, p);
    }
}

void
cu_drv_state_free(struct cu_drv_state *s)
{
    if (!s)
        return;
    free(s->kernel_release);
    free(s->version_codename);
    cu_strv_fini(&s->os_release);
    free(s->flavor);
    free(s->module_path);
    free(s->boot_id);
    cu_strv_fini(&s->kernels);
    cu_strv_fini(&s->installed);
    cu_strv_fini(&s->held);
    cu_strv_fini(&s->packages);
    free(s->kernel_meta);
    cu_strv_fini(&s->nvidia_functions);
    cu_strv_fini(&s->infiniband_vpd);
    cu_strv_fini(&s->files_present);
    free(s->module_stream);
    free(s->pin_file);
    free(s);
}
