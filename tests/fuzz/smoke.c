/* SPDX-License-Identifier: MIT */
/*
 * The fuzz-smoke driver: run one target over every seed file and a fixed
 * number of deterministic mutations of each (bit flips, interesting bytes,
 * cuts, copies of a chunk elsewhere).  Not a fuzzer: a regression net that
 * runs in seconds under meson test, with the sanitizers when the build has
 * them.  Prints one TAP line.
 *
 *   smoke NAME RUNS SEED...   (a SEED may be a folder: every file in it)
 */
#include "config.h"

#include "fuzz.h"

#include "core/base/parse.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <lzma.h>

static uint64_t rng = 0x9e3779b97f4a7c15u;

static uint64_t
next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static size_t n_inputs, n_seeds;

static void
mutate_and_run(const uint8_t *seed, size_t len, unsigned runs)
{
    static const uint8_t interesting[] = {0, 1, 0x7f, 0x80, 0xff, '"', '{', '}', '[', ']', ',', ':', '/', '.', '\\'};
    uint8_t *buf = malloc(len * 2 + 64);
    if (!buf)
        return;
    LLVMFuzzerTestOneInput(seed, len);
    n_inputs++;
    for (unsigned r = 0; r < runs; r++) {
        size_t n = len;
        memcpy(buf, seed, len);
        unsigned edits = 1 + (unsigned)(next() % 4);
        for (unsigned e = 0; e < edits && n > 0; e++) {
            size_t at = (size_t)(next() % n);
            switch (next() % 5) {
            case 0: buf[at] ^= (uint8_t)(1u << (next() % 8)); break;
            case 1: buf[at] = interesting[next() % sizeof(interesting)]; break;
            case 2: n = at; break; /* cut short */
            case 3: { /* a chunk copied over another place */
                size_t from = (size_t)(next() % n), k = 1 + (size_t)(next() % 32);
                if (from + k > n)
                    k = n - from;
                if (at + k > n)
                    k = n - at;
                memmove(buf + at, buf + from, k);
                break;
            }
            default: { /* a few bytes inserted */
                size_t k = 1 + (size_t)(next() % 8);
                if (n + k > len * 2 + 64)
                    break;
                memmove(buf + at + k, buf + at, n - at);
                for (size_t i = 0; i < k; i++)
                    buf[at + i] = (uint8_t)next();
                n += k;
                break;
            }
            }
        }
        LLVMFuzzerTestOneInput(buf, n);
        n_inputs++;
    }
    free(buf);
}

static void
run_file(const char *path, unsigned runs)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (len < 0 || len > (32L << 20)) {
        fclose(f);
        return;
    }
    uint8_t *data = malloc((size_t)len + 1);
    if (data && fread(data, 1, (size_t)len, f) == (size_t)len) {
        n_seeds++;
        mutate_and_run(data, (size_t)len, runs);
        /* An xz seed again as the bytes inside, so that mutations reach the next layer. */
        static const uint8_t xz_magic[6] = {0xfd, '7', 'z', 'X', 'Z', 0};
        if (len > 6 && memcmp(data, xz_magic, 6) == 0) {
            size_t cap = (size_t)len * 64 + 65536, in = 0, out = 0;
            uint64_t mem = 64 << 20;
            uint8_t *raw = malloc(cap);
            if (raw && lzma_stream_buffer_decode(&mem, 0, NULL, data, &in, (size_t)len, raw, &out, cap) == LZMA_OK)
                mutate_and_run(raw, out, runs);
            free(raw);
        }
    }
    free(data);
    fclose(f);
}

static size_t n_missing;

static void
run_path(const char *path, unsigned runs)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "smoke: the seed %s is not there\n", path);
        n_missing++;
        return;
    }
    if (!S_ISDIR(st.st_mode)) {
        run_file(path, runs);
        return;
    }
    struct dirent **names;
    int n = scandir(path, &names, NULL, alphasort); /* sorted: the same order, the same mutations */
    for (int i = 0; i < n; i++) {
        if (names[i]->d_name[0] != '.') {
            char p[4096];
            snprintf(p, sizeof(p), "%s/%s", path, names[i]->d_name);
            run_path(p, runs);
        }
        free(names[i]);
    }
    free(names);
}

int
main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s NAME RUNS SEED...\n", argv[0]);
        return 2;
    }
    uint64_t runs;
    const char *env = getenv("FUZZ_SMOKE_RUNS");
    if (!cu_parse_u64(env && *env ? env : argv[2], 1000000, &runs)) {
        fprintf(stderr, "%s: '%s' is not a number of runs\n", argv[0], env && *env ? env : argv[2]);
        return 2;
    }
    for (int i = 3; i < argc; i++)
        run_path(argv[i], (unsigned)runs);
    printf("1..1\n");
    if (n_seeds == 0 || n_missing) {
        /* A smoke test without its seeds proves nothing: that is a failure, not a pass. */
        printf("not ok 1 - %s: %zu seed path(s) missing, %zu seed file(s) read\n", argv[1], n_missing, n_seeds);
        return 1;
    }
    printf("ok 1 - %s: %zu seeds, %zu inputs, no crash, no broken invariant\n", argv[1], n_seeds, n_inputs);
    return 0;
}
