/* SPDX-License-Identifier: MIT */
/*
 * pip's progress, read from the lines it prints: the package it is at, the file it downloads (its
 * size from "Downloading … (475.2 MB)", its bytes from pip 24.1's "--progress-bar raw" lines),
 * the bytes downloaded so far, and whether it has gone on to install.  Pure: the lines in, the
 * figures out; pyenv.c turns them into events of the environment's stage.
 */
#ifndef CU_INST_PIPPROG_H
#define CU_INST_PIPPROG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum cu_pip_phase {
    CU_PIP_RESOLVE,  /* reading the index, collecting requirements */
    CU_PIP_DOWNLOAD, /* downloading a file */
    CU_PIP_INSTALL,  /* installing what it collected */
    CU_PIP_DONE,
};

struct cu_pip_progress {
    enum cu_pip_phase phase;
    char package[96];      /* the package collected or downloaded last ("tensorflow") */
    uint64_t file_done;    /* bytes of the file being downloaded (0 without raw progress lines) */
    uint64_t file_total;   /* its size as pip printed it; 0: not printed */
    uint64_t finished;     /* bytes of the files downloaded whole */
    unsigned n_files;      /* files downloaded (or taken from pip's cache), the current one included */
    unsigned n_installing; /* packages in "Installing collected packages: …" */
    bool raw;              /* raw progress lines were seen: file_done is live */
};

/** Feed one line of pip's output (no newline).  True when the figures changed; false for other
 *  lines, which (apart from the raw progress lines) belong in the log. */
bool cu_pip_progress_line(struct cu_pip_progress *pp, const char *line, bool *log_it);

/** Bytes downloaded so far: the whole files and the current one's part. */
uint64_t cu_pip_progress_bytes(const struct cu_pip_progress *pp);

/** Whether @python's environment has a pip that prints raw progress lines (pip 24.1 and later),
 *  read from the version in its site-packages' pip-X.Y.dist-info. */
bool cu_pip_has_raw_progress(const char *python);

/** "M.N" of a pip version string to a comparable number (24.1 -> 2401); 0 when unreadable. */
unsigned cu_pip_version_key(const char *v);

/**
 * The environment's stage as the front ends show it, from the events of item "environment"
 * (cu_env_stage(), cu_pip_run()).  Both the CLI's line and the wizard's gauge read these.
 */
struct cu_env_figures {
    bool begun;
    char phase[16]; /* "create", "pip-resolve", "pip-download", "pip-install", "pip-done" */
    char what[96];  /* the environment's name, or the package pip is at */
    uint64_t done, total, so_far;
    unsigned files;
};

/** Take in one event of the stage. */
void cu_env_figures_update(struct cu_env_figures *f, const char *phase, const char *what, uint64_t done,
                           uint64_t total, uint64_t so_far, unsigned files);

/** The stage in words: @head ("Python environment: pip downloads tensorflow, 25% of 475.2 MB"), and
 *  two parts a narrow line drops first (@files, then @sofar); each "" when there is nothing to say. */
void cu_env_figures_text(const struct cu_env_figures *f, char *head, size_t hl, char *sofar, size_t sl, char *files,
                         size_t fl);

/** The share of the file pip downloads, 0..1; -1 when pip prints none (before pip 24.1). */
double cu_env_figures_frac(const struct cu_env_figures *f);

#endif
