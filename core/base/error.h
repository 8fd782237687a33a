/* SPDX-License-Identifier: MIT */
/*
 * One error type for the whole engine (STYLE 14-17).
 *
 * Every fallible function returns enum cu_status and takes a struct cu_error *
 * last.  The message is for the user: one clear sentence, no library jargon.
 */
#ifndef CU_ERROR_H
#define CU_ERROR_H

#include "core/base/advice.h"
#include "core/base/i18n.h"
#include "core/base/macros.h"

/* X(name, default message, exit-class) */
#define CU_STATUS_CODES(X)                                                        \
    X(CU_OK, N_("success"), 0)                                                        \
    X(CU_E_NOMEM, N_("out of memory"), 1)                                             \
    X(CU_E_IO, N_("a file could not be read or written"), 1)                          \
    X(CU_E_NETWORK, N_("a download failed"), 1)                                       \
    X(CU_E_CHECKSUM, N_("a download did not match its checksum"), 1)                  \
    X(CU_E_ARCHIVE, N_("an archive could not be unpacked"), 1)                        \
    X(CU_E_UNSAFE_PATH, N_("a path leads somewhere cudaup will not write (a link, or outside its folder)"), 1) \
    X(CU_E_DRIVER, N_("a GPU library could not be used"), 1)                          \
    X(CU_E_TOOL, N_("an external tool failed"), 1)                                    \
    X(CU_E_BUSY, N_("another cudaup is working on the same folder"), 1)               \
    X(CU_E_USAGE, N_("bad usage"), 2)                                                 \
    X(CU_E_INPUT, N_("malformed input"), 2)                                           \
    X(CU_E_UNSUPPORTED, N_("this system cannot satisfy the request"), 3)              \
    X(CU_E_NOT_FOUND, N_("not found"), 3)                                             \
    X(CU_E_PROBLEMS, N_("problems remain"), 4)                                        \
    X(CU_E_REBOOT, N_("the driver was installed; reboot and run cudaup again"), 5)         \
    X(CU_E_CANCELLED, N_("interrupted"), 130)

enum cu_status {
#define CU_X_ENUM(name, msg, exitc) name,
    CU_STATUS_CODES(CU_X_ENUM)
#undef CU_X_ENUM
        CU_STATUS_COUNT
};

struct cu_error {
    enum cu_status code;
    int sys_errno;
    char msg[512];
    char advice[512]; /* what to do instead, naming what works here; "" for the code's default */
    char msg_en[512]; /* the same two in English, for the log (i18n.h) */
    char advice_en[512];
    enum cu_advice adv;  /* what the advice asks for, for a front end to word (CU_ADV_NONE: as written) */
    char adv_arg[256];   /* its argument (the mirror's URL) */
};

/** Reset @err to CU_OK with an empty message. NULL is allowed. */
void cu_error_clear(struct cu_error *err);

/**
 * Record an error.  @sys_errno is 0 when no system call is involved; when it
 * is set, ": <description>" is appended to the message.
 * @return @code, so callers can write `return cu_error_set(...)`.
 */
enum cu_status cu_error_set(struct cu_error *err, enum cu_status code, int sys_errno,
                            const char *fmt, ...) CU_PRINTF(4, 5);

/** Prefix the existing message with "context: ". */
void cu_error_prefix(struct cu_error *err, const char *fmt, ...) CU_PRINTF(2, 3);

/** The code's default message (never NULL, static). */
const char *cu_status_str(enum cu_status code);

/** The code's name ("CU_E_IO"), for logs and tests. */
const char *cu_status_name(enum cu_status code);

/** The detailed message when set, else the code's default (STYLE 16). Borrowed. */
const char *cu_error_text(const struct cu_error *err);

/** Set the advice of an error already recorded (cleared again by cu_error_set). */
void cu_error_advise(struct cu_error *err, const char *fmt, ...) CU_PRINTF(2, 3);

/**
 * cu_error_advise, and what the advice asks for: @adv with its argument @arg (or NULL), so that
 * the wizard can say it in its own words (advice.h).
 */
void cu_error_advise_as(struct cu_error *err, enum cu_advice adv, const char *arg, const char *fmt, ...) CU_PRINTF(4, 5);

/** The error's own advice when set, else advice for codes that have one ("check the network or use --mirror"), or NULL. */
const char *cu_error_advice(const struct cu_error *err);

/** cu_error_text and cu_error_advice in English, for the log. */
const char *cu_error_text_en(const struct cu_error *err);
const char *cu_error_advice_en(const struct cu_error *err);

/** The process exit status for @code, from DESIGN.md "Exit codes". */
int cu_status_exit_code(enum cu_status code);

/** strerror replacement that is thread safe; returns a static or buf string. */
const char *cu_strerror(int errnum, char *buf, size_t len);

#endif /* CU_ERROR_H */
