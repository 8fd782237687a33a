/* SPDX-License-Identifier: MIT */
#include "fakegpu.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct fake_config cfg;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void
load(void)
{
    const char *path = getenv("FAKE_NVIDIA_CONFIG");
    char line[512];
    FILE *f;

    snprintf(cfg.driver, sizeof(cfg.driver), "550.54.14");
    cfg.cuda = 12040;
    if (!path || !(f = fopen(path, "r")))
        return;
    while (fgets(line, sizeof(line), f)) {
        line[strcspn(line, "\n")] = '\0';
        if (strncmp(line, "driver ", 7) == 0) {
            snprintf(cfg.driver, sizeof(cfg.driver), "%.63s", line + 7);
        } else if (strncmp(line, "cuda ", 5) == 0) {
            cfg.cuda = (int)strtol(line + 5, NULL, 10);
        } else if (strncmp(line, "nvml_init ", 10) == 0) {
            cfg.nvml_init = (int)strtol(line + 10, NULL, 10);
        } else if (strncmp(line, "cu_init ", 8) == 0) {
            cfg.cu_init = (int)strtol(line + 8, NULL, 10);
        } else if (strcmp(line, "kernel_result wrong") == 0) {
            cfg.wrong_results = 1;
        } else if (strcmp(line, "hang kernel") == 0) {
            cfg.hang_kernel = 1;
        } else if (strncmp(line, "fail_log ", 9) == 0) {
            snprintf(cfg.fail_log, sizeof(cfg.fail_log), "%.255s", line + 9);
        } else if (strncmp(line, "fail ", 5) == 0) {
            if (sscanf(line + 5, "%63s %d %d", cfg.fail_call, &cfg.fail_code, &cfg.fail_after) < 2)
                cfg.fail_call[0] = '\0';
        } else if (strncmp(line, "gpu ", 4) == 0 && cfg.n_gpus < FAKE_MAX_GPUS) {
            struct fake_gpu *g = &cfg.gpus[cfg.n_gpus];
            int off = 0;
            if (sscanf(line + 4, "%31s %x %d.%d %llu %n", g->bus, &g->device_id, &g->cc_major,
                       &g->cc_minor, &g->mem_mib, &off) >= 5) {
                snprintf(g->name, sizeof(g->name), "%.95s", line + 4 + off);
                cfg.n_gpus++;
            }
        }
    }
    fclose(f);
}

const struct fake_config *
fake_config(void)
{
    pthread_once(&once, load);
    return &cfg;
}

int
fake_fail(const char *call)
{
    static int calls;
    const struct fake_config *c = fake_config();
    if (!c->fail_call[0] || strcmp(c->fail_call, call) != 0)
        return 0;
    if (__atomic_fetch_add(&calls, 1, __ATOMIC_SEQ_CST) < c->fail_after)
        return 0;
    FILE *log = c->fail_log[0] ? fopen(c->fail_log, "a") : NULL;
    if (log) {
        fprintf(log, "%s\n", call);
        fclose(log);
    }
    return c->fail_code;
}

/* An object of this file, which each double links in: dladdr() names the library that holds it. */
static const char here;

int
fake_version_from_name(const char *stem, unsigned v[3])
{
    Dl_info info;
    char real[PATH_MAX];
    if (!dladdr(&here, &info) || !info.dli_fname || !realpath(info.dli_fname, real))
        return 0;
    const char *base = strrchr(real, '/');
    base = base ? base + 1 : real;
    size_t n = strlen(stem);
    if (strncmp(base, stem, n) != 0)
        return 0;
    v[0] = v[1] = v[2] = 0;
    int got = sscanf(base + n, "%u.%u.%u", &v[0], &v[1], &v[2]);
    return got >= 2 ? got : 0;
}
