/* SPDX-License-Identifier: MIT */
/*
 * The logger (STYLE 41): levels, one pluggable sink, a tag per file.
 *
 * Each .c that logs defines CU_LOG_TAG before including this header.  The
 * level comes from cu_log_set_level() or CUDAUP_DEBUG (error, warn, info,
 * debug, trace).  The sink may be called from any thread; the default sink
 * writes "cudaup: level: message" to stderr.
 */
#ifndef CU_LOG_H
#define CU_LOG_H

#include <stdarg.h>
#include <stdbool.h>

#include "core/base/macros.h"

enum cu_log_level {
    CU_LOG_ERROR,
    CU_LOG_WARN,
    CU_LOG_INFO,
    CU_LOG_DEBUG,
    CU_LOG_TRACE,
};

/* @msg is in the user's language, @msg_en in English (for the log file; i18n.h). */
typedef void (*cu_log_fn)(void *userdata, enum cu_log_level level, const char *tag,
                          const char *msg, const char *msg_en);
struct cu_error;

/** Install @fn as the sink (NULL restores the default). Call before threads start. */
void cu_log_set_handler(cu_log_fn fn, void *userdata);
void cu_log_set_level(enum cu_log_level level);
enum cu_log_level cu_log_get_level(void);
/** Read CUDAUP_DEBUG; an unknown value is ignored. */
void cu_log_init_from_env(void);
/** Parse "warn" etc.; returns -1 when unknown. */
int cu_log_level_parse(const char *s);
const char *cu_log_level_name(enum cu_log_level level);

void cu_log_msg(enum cu_log_level level, const char *tag, const char *fmt, ...) CU_PRINTF(3, 4);
void cu_log_vmsg(enum cu_log_level level, const char *tag, const char *fmt, va_list ap)
    CU_PRINTF(3, 0);
/**
 * cu_log_msg, but each message (by its English text) only the first time in the process: for a
 * note that every plan or mirror of a run would repeat (the wizard plans several times).
 */
void cu_log_once(enum cu_log_level level, const char *tag, const char *fmt, ...) CU_PRINTF(3, 4);
/** Log @err's message (and its advice in brackets), each in both languages. */
void cu_log_err(enum cu_log_level level, const char *tag, const struct cu_error *err);

#ifndef CU_LOG_TAG
#define CU_LOG_TAG "cudaup"
#endif

/*
 * The tag of a line for the record only: a system command's own output (or a note about it) that the
 * screen already shows through the command's step (core/machine/syscmd.h, on_line).  Sinks write it to
 * the log file and show it nowhere else, so that a screen never shows a package manager's line twice.
 */
#define CU_LOG_TAG_RECORD "output"

/** Whether a message of @tag is for the log file only (CU_LOG_TAG_RECORD). */
bool cu_log_record_only(const char *tag);

/* These forward to a function; they exist only to pass the file's tag. */
#define cu_log_error(...) cu_log_msg(CU_LOG_ERROR, CU_LOG_TAG, __VA_ARGS__)
#define cu_log_warn(...) cu_log_msg(CU_LOG_WARN, CU_LOG_TAG, __VA_ARGS__)
#define cu_log_info(...) cu_log_msg(CU_LOG_INFO, CU_LOG_TAG, __VA_ARGS__)
#define cu_log_debug(...) cu_log_msg(CU_LOG_DEBUG, CU_LOG_TAG, __VA_ARGS__)
#define cu_log_trace(...) cu_log_msg(CU_LOG_TRACE, CU_LOG_TAG, __VA_ARGS__)
#define cu_log_warn_once(...) cu_log_once(CU_LOG_WARN, CU_LOG_TAG, __VA_ARGS__)
#define cu_log_info_once(...) cu_log_once(CU_LOG_INFO, CU_LOG_TAG, __VA_ARGS__)
#define cu_log_error_of(level, err) cu_log_err(level, CU_LOG_TAG, err)

#endif /* CU_LOG_H */
