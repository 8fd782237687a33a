/* SPDX-License-Identifier: MIT */
/*
 * gettext wrappers: _() translates now, N_() marks a string for later.
 *
 * The screen speaks the user's language; the log is English, so that it can be shared (issue
 * 14).  Every translation _() hands out is remembered with its English original, so that an
 * error or a log line formatted from translated text can be formatted once more in English
 * (cu_vformat_en): its format and each translated string argument are taken back to English.
 */
#ifndef CU_I18N_H
#define CU_I18N_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/base/macros.h"

#ifdef ENABLE_NLS
#include <libintl.h>
const char *cu_gettext(const char *msgid) CU_FORMAT_ARG(1);
const char *cu_ngettext(const char *msgid, const char *plural, unsigned long n) CU_FORMAT_ARG(1) CU_FORMAT_ARG(2);
#define _(s) cu_gettext(s)
#define ngettext_(s, p, n) cu_ngettext(s, p, n)
#else
#define _(s) (s)
#define ngettext_(s, p, n) ((n) == 1 ? (s) : (p))
#endif
#define N_(s) (s)

/** The English original of @s when @s is a translation _() handed out, else @s itself. */
const char *cu_english(const char *s);

/** True once any text was translated in this process (an English-only run needs no second format). */
bool cu_i18n_active(void);

/**
 * Format @fmt (a translated format) into @out in English: the English original of @fmt, with each
 * %s argument that is a translation replaced by its original.  Without translations in play, the
 * same as vsnprintf.
 */
void cu_vformat_en(char *out, size_t len, const char *fmt, va_list ap) CU_PRINTF(3, 0);

/** Remember that @translated (a text formatted from translations) reads @english in English. */
void cu_i18n_note(const char *translated, const char *english);

/** vsnprintf into @out, and the same in English into @out_en (both @len long; a copy when no
 * translation is in play). */
void cu_vformat_pair(char *out, char *out_en, size_t len, const char *fmt, va_list ap) CU_PRINTF(4, 0);

/** cu_vformat_pair, and the two noted as a pair (for text that may be copied into other messages). */
void cu_vformat_both(char *out, char *out_en, size_t len, const char *fmt, va_list ap) CU_PRINTF(4, 0);

/**
 * Note the English twin of @formatted, the text @fmt (a translated format) made from @ap, so that a
 * log line quoting it can be written in English.  A no-op when no translation is in play.  @ap is
 * not consumed (pass a va_copy).
 */
void cu_i18n_note_formatted(const char *formatted, const char *fmt, va_list ap) CU_PRINTF(2, 0);

struct cu_strv;
/** Format @fmt with @ap (a translated message), note its English twin for the log as
 * cu_i18n_note_formatted does, and push the text onto @to (a plan's reasons). */
void cu_i18n_push_noted(struct cu_strv *to, const char *fmt, va_list ap) CU_PRINTF(2, 0);

/** cu_xasprintf of a translated format, its English twin noted (cut at 2 KiB). Caller frees. */
char *cu_tr_asprintf(const char *fmt, ...) CU_PRINTF(1, 2);

/** strerror in English, whatever the locale. */
const char *cu_strerror_en(int errnum);

#endif /* CU_I18N_H */
