/* SPDX-License-Identifier: MIT */
/* gettext wrappers: _() translates now, N_() marks a string for later. */
#ifndef CU_I18N_H
#define CU_I18N_H

#ifdef ENABLE_NLS
#include <libintl.h>
#define _(s) dgettext(GETTEXT_PACKAGE, s)
#define ngettext_(s, p, n) dngettext(GETTEXT_PACKAGE, s, p, n)
#else
#define _(s) (s)
#define ngettext_(s, p, n) ((n) == 1 ? (s) : (p))
#endif
#define N_(s) (s)

#endif /* CU_I18N_H */
