/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "core/base/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/base/i18n.h"

static const struct {
    const char *name;
    const char *msg;
    int exit_code;
} status_info[] = {
#define CU_X_INFO(name, msg, exitc) {#name, msg, exitc},
    CU_STATUS_CODES(CU_X_INFO)
#undef CU_X_INFO
};

void
cu_error_clear(struct cu_error *err)
{
    if (!err)
        return;
    err->code = CU_OK;
    err->sys_errno = 0;
    err->msg[0] = '\0';
    err->advice[0] = '\0';
    err->msg_en[0] = '\0';
    err->advice_en[0] = '\0';
    err->adv = CU_ADV_NONE;
    err->adv_arg[0] = '\0';
}

const char *
cu_strerror(int errnum, char *buf, size_t len)
{
    /* GNU strerror_r may return a static string instead of filling buf. */
#if defined(_GNU_SOURCE) && !defined(__ANDROID__)
    return strerror_r(errnum, buf, len);
#else
    if (strerror_r(errnum, buf, len) != 0)
        snprintf(buf, len, "error %d", errnum);
    return buf;
#endif
}

/*
 * "msg: cause", the cause whole: a message too long for both (a path near PATH_MAX) is cut, at a
 * character's start, and marked with "...", so that what went wrong always shows.
 */
static void
add_cause(char *msg, size_t cap, const char *cause)
{
    size_t n = strlen(msg), c = strlen(cause);
    if (n && n + 2 + c >= cap) {
        size_t keep = cap > c + 6 ? cap - c - 6 : 0;
        while (keep > 0 && ((unsigned char)msg[keep] & 0xc0) == 0x80)
            keep--;
        memcpy(msg + keep, "...", 4);
        n = keep + 3;
    }
    snprintf(msg + n, cap - n, "%s%s", n ? ": " : "", cause);
}

enum cu_status
cu_error_set(struct cu_error *err, enum cu_status code, int sys_errno, const char *fmt, ...)
{
    if (!err)
        return code;
    cu_error_clear(err); /* the texts and their English twins, empty */
    err->code = code;
    err->sys_errno = sys_errno;
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        cu_vformat_pair(err->msg, err->msg_en, sizeof(err->msg), fmt, ap);
        va_end(ap);
    }
    if (sys_errno) {
        char buf[128];
        add_cause(err->msg, sizeof(err->msg), cu_strerror(sys_errno, buf, sizeof(buf)));
        add_cause(err->msg_en, sizeof(err->msg_en), cu_strerror_en(sys_errno));
    }
    cu_i18n_note(err->msg, err->msg_en);
    return code;
}

/* "pre: old", both halves cut to fit: a long path must not hide the reason. */
static void
join_prefix(char *msg, size_t len, const char *pre)
{
    char old[512];
    snprintf(old, sizeof(old), "%s", msg);
    if (old[0])
        snprintf(msg, len, "%.200s: %.300s", pre, old);
    else
        snprintf(msg, len, "%.250s", pre);
}

void
cu_error_prefix(struct cu_error *err, const char *fmt, ...)
{
    char pre[256], pre_en[256];
    va_list ap;

    if (!err)
        return;
    va_start(ap, fmt);
    cu_vformat_pair(pre, pre_en, sizeof(pre), fmt, ap);
    va_end(ap);
    join_prefix(err->msg, sizeof(err->msg), pre);
    join_prefix(err->msg_en, sizeof(err->msg_en), pre_en);
    cu_i18n_note(err->msg, err->msg_en);
}

const char *
cu_status_str(enum cu_status code)
{
    if ((unsigned)code >= CU_STATUS_COUNT)
        return "unknown error";
    return _(status_info[code].msg);
}

const char *
cu_status_name(enum cu_status code)
{
    if ((unsigned)code >= CU_STATUS_COUNT)
        return "CU_E_UNKNOWN";
    return status_info[code].name;
}

const char *
cu_error_text(const struct cu_error *err)
{
    if (!err)
        return cu_status_str(CU_OK);
    return err->msg[0] ? err->msg : cu_status_str(err->code);
}

/* The code's own advice, untranslated; NULL when it has none. */
static const char *
default_advice(const struct cu_error *err)
{
    switch (err->code) {
    case CU_E_NETWORK:
        return N_("Check the network connection, or point cudaup at a site mirror with --mirror URL.");
    case CU_E_CHECKSUM:
        return N_("The damaged file was deleted; run the command again to download it afresh.");
    case CU_E_BUSY:
        return N_("Wait for the other cudaup to finish, then run this command again.");
    case CU_E_TOOL:
        return N_("That is the command's own error (its output is in the log); fix what it says, then run the command again.");
    case CU_E_IO:
        if (err->sys_errno == ENOSPC)
            return N_("Free some disk space or choose another folder with --prefix or --cache-dir.");
        if (err->sys_errno == EACCES || err->sys_errno == EPERM || err->sys_errno == EROFS)
            return N_("Choose a folder you can write to with --prefix, or run cudaup as root.");
        return NULL;
    default:
        return NULL;
    }
}

const char *
cu_error_advice(const struct cu_error *err)
{
    if (!err)
        return NULL;
    if (err->advice[0])
        return err->advice;
    const char *a = default_advice(err);
    return a ? _(a) : NULL;
}

const char *
cu_error_advice_en(const struct cu_error *err)
{
    if (!err)
        return NULL;
    if (err->advice_en[0])
        return err->advice_en;
    if (err->advice[0])
        return err->advice;
    return default_advice(err);
}

const char *
cu_error_text_en(const struct cu_error *err)
{
    if (!err)
        return status_info[CU_OK].msg;
    if (err->msg_en[0])
        return err->msg_en;
    if (err->msg[0])
        return err->msg;
    return (unsigned)err->code < CU_STATUS_COUNT ? status_info[err->code].msg : "unknown error";
}

/* The advice, its English twin and its kind (the wizard words the kind: advice.h). */
static void CU_PRINTF(4, 0)
advise(struct cu_error *err, enum cu_advice adv, const char *arg, const char *fmt, va_list ap)
{
    cu_vformat_both(err->advice, err->advice_en, sizeof(err->advice), fmt, ap);
    err->adv = adv;
    snprintf(err->adv_arg, sizeof(err->adv_arg), "%s", arg ? arg : "");
}

void
cu_error_advise(struct cu_error *err, const char *fmt, ...)
{
    if (!err)
        return;
    va_list ap;
    va_start(ap, fmt);
    advise(err, CU_ADV_NONE, NULL, fmt, ap);
    va_end(ap);
}

void
cu_error_advise_as(struct cu_error *err, enum cu_advice adv, const char *arg, const char *fmt, ...)
{
    if (!err)
        return;
    va_list ap;
    va_start(ap, fmt);
    advise(err, adv, arg, fmt, ap);
    va_end(ap);
}

int
cu_status_exit_code(enum cu_status code)
{
    if ((unsigned)code >= CU_STATUS_COUNT)
        return 1;
    return status_info[code].exit_code;
}
