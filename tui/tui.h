/* SPDX-License-Identifier: MIT */
/*
 * The ncurses wizard.  One thread (the UI thread, the one that calls
 * tui_run) touches curses; the engine runs on a worker thread and talks to it
 * only through a mutex-protected queue and a wake pipe (STYLE 27-30).  Each
 * screen is a file tui/scr_NAME.c exporting a struct tui_screen_ops.
 */
#ifndef CU_TUI_H
#define CU_TUI_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/catalog/catalog.h"
#include "core/base/cfg.h"
#include "core/doctor/doctor.h"
#include "core/base/event.h"
#include "core/install/exec.h"
#include "core/resolve/plan.h"
#include "core/machine/sysinfo.h"
#include "core/base/sysroot.h"
#include "core/verify/verify.h"
#include "installers/maintain.h"
#include "installers/pipprog.h"
#include "installers/prepare.h"

enum tui_scr {
    SCR_WELCOME,
    SCR_EXISTING,
    SCR_SYSTEM,
    SCR_FRAMEWORK,
    SCR_VERSIONS,
    SCR_COMPONENTS,
    SCR_LOCATION,
    SCR_PYENV,
    SCR_CONTAINERS,
    SCR_REVIEW,
    SCR_PROGRESS,
    SCR_VALIDATION,
    SCR_DONE,
    SCR_COUNT
};

enum tui_job_kind {
    JOB_NONE,
    JOB_CUDA_CHOICES,  /* which CUDA versions fit */
    JOB_CUDNN_CHOICES, /* which cuDNN versions fit the chosen CUDA */
    JOB_PLAN,
    JOB_INSTALL,
    JOB_VERIFY,
    JOB_REPAIR,
    JOB_UNINSTALL,
};

struct tui;
struct tui_msg;

struct tui_screen_ops {
    const char *id;
    /** The title, translated. */
    const char *(*title)(void);
    /** The screen is shown (going forward or back). */
    void (*enter)(struct tui *t);
    void (*draw)(struct tui *t);
    /** Return true when the key was used; otherwise the loop's defaults apply. */
    bool (*key)(struct tui *t, int ch);
    /** An engine message arrived (a job's event, or its end). May be NULL. */
    void (*on_event)(struct tui *t, const struct tui_msg *m);
    /** The screen goes away. May be NULL. */
    void (*leave)(struct tui *t);
    /** What the screen is for and its own keys, translated; NULL for none. */
    const char *(*help)(void);
};

/* What the command line hands the wizard; all of it outlives tui_run. */
struct tui_opts {
    const struct cu_config *cfg; /* flags prefill the answers */
    const struct cu_catalog *catalog;
    const struct cu_facts *facts;
    const struct cu_sysroot *root;
    const char *const *envp;
    const char *prefix, *state_dir, *cache_dir, *self_exe, *profile_d;
    bool is_root;
    atomic_int *signal_cancel; /* set by SIGINT/SIGTERM */
    FILE *log;                 /* the log file (STYLE 42), or NULL */
    const char *log_path;      /* its path, for the screens that point at it */
    long low_speed_time_s, retry_base_ms;
    const char *resumed;       /* after the driver's reboot: what was found, said on the first screen; or NULL */
};

/* One engine message, owned by the queue and then by the UI thread. */
struct tui_msg {
    struct tui_job *job; /* set on the job's last message */
    enum cu_event_type type;
    char *installer, *item, *phase, *message;
    uint64_t done, total;
    uint64_t so_far; /* the environment's stage: bytes pip downloaded, and its files */
    unsigned files;
    enum cu_status status;
    bool changed;
    bool log_warning; /* a warning or error from the logger, replayed after endwin */
};

/*
 * A job: a snapshot of the answers in, results out.  The worker writes only
 * here and into the queue; the UI thread reads it after the job's last
 * message (STYLE 30).
 */
struct tui_job {
    enum tui_job_kind kind;
    struct cu_config cfg; /* the answers at the start */
    char *dir;            /* verify, repair: the install; uninstall: X.Y; or, with env, the environment */
    bool env;             /* verify, repair, uninstall: no CUDA install, the environment that holds its own toolkit
                           * (--toolkit wheels or none), as `cudaup verify`, `repair` and `uninstall env` take it */
    struct cu_plan *plan_in;  /* install: the reviewed plan (borrowed) */
    const struct cu_net *net; /* install: its mirror's (borrowed) */
    /* out */
    enum cu_status status;
    struct cu_error err;
    struct cu_mirror *mirror;
    struct cu_plan *plan;
    struct cu_choice *choices;
    size_t n_choices;
    struct cu_run_ctx ctx;
    struct cu_checks checks;
    struct cu_repair_out repaired;
    struct cu_events evs;
    const struct tui_opts *o; /* immutable while the wizard runs */
    struct tui *t;            /* only for its queue (tui_push) */
};

struct tui_item {
    char *name;
    char phase[16];
    uint64_t done, total; /* downloaded of its size */
    uint64_t unpacked;    /* bytes written out */
    bool finished;        /* checked and unpacked */
    bool unsized;         /* no source publishes its size: the fetch's total is only a limit, never shown */
};

enum { TUI_LOG_LINES = 200, TUI_FIELD_MAX = 512 };

/* Keys above this are characters outside ASCII: the code point is ch - TUI_WCHAR. */
#define TUI_WCHAR 0x1000000

/* The per-screen cursor, reset by tui_goto. */
struct tui_cursor {
    int sel, top, field;
    char edit[TUI_FIELD_MAX]; /* the text field being edited */
    bool editing;
};

struct tui {
    struct tui_opts o;
    const struct tui_screen_ops *const *screens; /* the screens by enum tui_scr (tui.c's table) */
    struct cu_config ans; /* the answers so far (owned strings) */
    enum tui_scr scr;
    enum tui_scr history[SCR_COUNT * 2];
    int n_history;
    bool running;
    int rc;
    bool color, utf8, headless;
    struct tui_cursor cur;
    char message[512]; /* a notice above the footer, wrapped over the rows it needs */
    bool message_bad;
    int keys_rows; /* the rows the keys line took at the last tui_frame (1, or 2 on a narrow screen) */
    /* overlays: help, and one yes/no question at a time */
    bool help;
    bool asking;
    char ask_title[96], ask_text[4096];
    void (*ask_yes)(struct tui *t);
    char ask_tick[512]; /* a tick box under the question ("" for none), toggled with space */
    bool *ask_ticked;

    /* engine */
    pthread_t worker;
    struct tui_job *job; /* running, or NULL */
    pthread_mutex_t mu;
    struct tui_msg *queue; /* under mu */
    size_t n_queue, cap_queue;
    int wake[2];
    atomic_int cancel;

    /* results, owned by the UI thread */
    struct cu_problems problems;
    struct cu_mirror *mirror; /* the reviewed plan's */
    struct cu_plan *plan;
    char *plan_key;           /* the answers the plan was made from */
    char *tk_default;         /* the toolkit a plan without --toolkit took ("system", "wheels"), or NULL not yet seen */
    struct cu_error plan_err;
    bool plan_failed;
    struct cu_choice *cuda_choices, *cudnn_choices;
    size_t n_cuda_choices, n_cudnn_choices;
    char *cuda_key, *cudnn_key; /* the answers the choices were made for */
    struct cu_error choices_err[2]; /* [0] CUDA, [1] cuDNN: why the list could not be made */
    bool choices_failed[2];
    struct cu_checks checks;
    bool checked;
    char *target;   /* the install verify, repair and the Done screen speak of */
    const char *target_tk; /* "wheels" or "none": target is the environment that holds its own toolkit, no CUDA
                            * install (issue 50); NULL: a CUDA install */
    char *existing; /* the managed install found at start (PREFIX/cuda's target), or NULL */
    const char *existing_tk; /* "wheels" or "none": existing is such an environment (no CUDA install there); or NULL */
    struct cu_version existing_version;
    char *existing_state; /* what its record says of it (the menu leads with it), or NULL */
    bool existing_bad;    /* files missing or altered, or the record unreadable */
    int existing_advice;  /* the menu's row for what the state calls for */
    enum tui_job_kind progress_job; /* what the Progress screen runs: install, repair, uninstall */
    char **comp_sel;                /* the components ticked on the Components screen */
    enum tui_job_kind last_job;
    enum cu_status last_status;
    struct cu_error last_err;

    /* progress of the running job */
    struct tui_item *items;
    size_t n_items;
    char *log[TUI_LOG_LINES];
    size_t n_log, log_head;
    char **replay; /* warnings to print after endwin */
    size_t n_replay;
    int64_t started_ms, ended_ms; /* the running (or last) job */
    uint64_t rate_bytes;
    int64_t rate_ms;
    double speed; /* bytes/s, smoothed; 0 once no byte came for a second (it decayed to "4 B/s", issue 49) */
    int idle_samples; /* samples in a row without a byte */
    /* The Python environment's stage (item "environment"): begun, what it does, pip's figures. */
    struct cu_env_figures env;
    char step[160];
    char stage[16]; /* the installer of the step running (or that stopped): "python", "cuda", "pyenv", ... */
    unsigned spin;
    bool containers_offer; /* the Containers screen is part of the flow: a container engine is installed on this
                            * Linux and cudaup does not run inside a container (found at start, files only) */
};

/**
 * Run the wizard until the user leaves.  @keys_script feeds keystrokes
 * (tests); @iterations > 0 ends the loop after that many turns.  Returns the
 * exit status (DESIGN "Exit codes").  Call from the main thread only.
 */
int tui_run(const struct tui_opts *o, const char *keys_script, uint64_t iterations);

/**
 * Is @path a keys script the wizard can run (every line a key or a command)?  Checked before the machine
 * or any resume record is read, so that bad input is exit 2 whatever state the machine is in.
 * Errors: CU_E_USAGE, naming the line, or saying why the file cannot be read.
 */
CU_NODISCARD enum cu_status tui_keys_script_check(const char *path, struct cu_error *err);

/* Navigation (UI thread) */
void tui_goto(struct tui *t, enum tui_scr s);
void tui_back(struct tui *t);
/** The screen after the current one, skipping those that do not apply. */
void tui_next(struct tui *t);
void tui_notice(struct tui *t, bool bad, const char *fmt, ...) CU_PRINTF(3, 4);
/** Start a job on the worker with a snapshot of the answers. False when one is running. */
bool tui_start(struct tui *t, enum tui_job_kind kind, const char *dir);
bool tui_busy(const struct tui *t);
/** Ask a yes/no question over the screen; @yes runs on 'y'. */
void tui_ask(struct tui *t, const char *title, const char *text, void (*yes)(struct tui *t));
/** Add a tick box to the question tui_ask just put up: @label, its state in *@ticked (space toggles it). */
void tui_ask_tick(struct tui *t, const char *label, bool *ticked);
/** Start editing @init in the text field; screens draw it with tui_edit_draw. */
/** Replace an answer (owned copy; NULL or "" clears it). */
void tui_set_answer(struct tui *t, char **field, const char *value);
/** A key identifying the answers that matter to a job, to know when its result is stale. Caller frees. */
char *tui_answers_key(const struct cu_config *a, enum tui_job_kind kind);
/** Whether the result of @kind (JOB_PLAN, JOB_CUDA_CHOICES, JOB_CUDNN_CHOICES) was made for other answers, or not yet. */
bool tui_stale(const struct tui *t, enum tui_job_kind kind);
/** Start @kind when its result is stale and the engine is idle. */
void tui_refresh(struct tui *t, enum tui_job_kind kind);
/** The commands that use what was installed (the Done screen's, printed again after the screen closes), each command
 * between keep marks (core/base/linebreak.h: print cu_line_shown of it). Caller frees. */
char **tui_next_commands(const struct tui *t);
/** Write the screen as text, one row per line (STYLE 38). */
void tui_dump_screen(const char *path);

void tui_edit_begin(struct tui *t, const char *init);
/** Draw the field at (y, x), @w columns: the text being edited, or @value when not editing. */
void tui_edit_draw(struct tui *t, int y, int x, int w, const char *value, bool focus);
/** Feed a key to the field being edited: 1 done (Enter), -1 abandoned (Esc), 0 still editing. */
int tui_edit_key(struct tui *t, int ch);

extern const struct tui_screen_ops scr_welcome_ops, scr_existing_ops, scr_system_ops, scr_framework_ops,
    scr_versions_ops, scr_components_ops, scr_location_ops, scr_pyenv_ops, scr_review_ops, scr_progress_ops,
    scr_validation_ops, scr_done_ops, scr_containers_ops;

#endif /* CU_TUI_H */
