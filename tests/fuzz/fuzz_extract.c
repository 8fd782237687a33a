/* SPDX-License-Identifier: MIT */
/*
 * An archive from a hostile mirror: unpacked into a staging folder inside a
 * fenced folder holding a canary, after which the fence must hold only the
 * staging folder and the unchanged canary, and nothing inside may be a
 * device, FIFO or set-id file.  Input that is not xz is taken as tar bytes
 * and wrapped in xz without a check, so that mutations reach the tar reader.
 */
#include "config.h"

#include "fuzz.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lzma.h>

#include "core/unpack/extract.h"

struct mem {
    const uint8_t *p;
    size_t n, off;
};

static ssize_t
mem_read(void *ud, void *buf, size_t len)
{
    struct mem *m = ud;
    size_t k = m->n - m->off < len ? m->n - m->off : len;
    memcpy(buf, m->p + m->off, k);
    m->off += k;
    return (ssize_t)k;
}

static int
rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static int
check_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)path;
    (void)flag;
    (void)ftw;
    if (S_ISCHR(sb->st_mode) || S_ISBLK(sb->st_mode) || S_ISFIFO(sb->st_mode) || S_ISSOCK(sb->st_mode) ||
        (sb->st_mode & (S_ISUID | S_ISGID | S_ISVTX)))
        abort();
    return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char fence[] = "/tmp/cudaup-fuzz-XXXXXX";
    char staging[64];
    if (!mkdtemp(fence))
        return 0;
    char canary[64];
    snprintf(staging, sizeof(staging), "%s/staging", fence);
    snprintf(canary, sizeof(canary), "%s/canary", fence);
    mkdir(staging, 0755);
    FILE *cf = fopen(canary, "w");
    if (cf) {
        fputs("canary\n", cf);
        fclose(cf);
    }
    int dfd = open(staging, O_RDONLY | O_DIRECTORY);
    uint8_t *wrapped = NULL;
    static const uint8_t xz_magic[6] = {0xfd, '7', 'z', 'X', 'Z', 0};
    if (size < 6 || memcmp(data, xz_magic, 6) != 0) {
        size_t cap = size + size / 2 + 4096, pos = 0;
        wrapped = malloc(cap);
        if (!wrapped || lzma_easy_buffer_encode(0, LZMA_CHECK_NONE, NULL, data, size, wrapped, &pos, cap) != LZMA_OK) {
            free(wrapped);
            close(dfd);
            nftw(fence, rm_one, 16, FTW_DEPTH | FTW_PHYS);
            return 0;
        }
        data = wrapped;
        size = pos;
    }
    struct mem m = {data, size, 0};
    struct cu_extract_opts o = {.dirfd = dfd, .what = "fuzz", .max_bytes = 64 << 20, .max_entries = 10000,
                                .memlimit = 64 << 20};
    struct cu_extract_result res = {0};
    struct cu_error err;
    enum cu_status st = cu_extract(&o, mem_read, &m, &res, &err);
    if (st == CU_OK)
        cu_extract_result_fini(&res);
    close(dfd);
    free(wrapped);
    /* The fence: only "staging" and the canary may be in it, whatever the archive said. */
    DIR *d = opendir(fence);
    struct dirent *de;
    while (d && (de = readdir(d)) != NULL)
        if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0 && strcmp(de->d_name, "staging") != 0 &&
            strcmp(de->d_name, "canary") != 0)
            abort();
    if (d)
        closedir(d);
    char text[16] = "";
    struct stat cst;
    cf = fopen(canary, "r");
    if (!cf || lstat(canary, &cst) != 0 || !S_ISREG(cst.st_mode) || !fgets(text, sizeof(text), cf) ||
        strcmp(text, "canary\n") != 0)
        abort();
    fclose(cf);
    nftw(staging, check_one, 16, FTW_PHYS);
    nftw(fence, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    return 0;
}
