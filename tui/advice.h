/* SPDX-License-Identifier: MIT */
/*
 * The engine's advice in the wizard's words: screens and keys, not commands and flags
 * (core/base/advice.h says what each kind asks for).  UI thread only.
 */
#ifndef CU_TUI_ADVICE_H
#define CU_TUI_ADVICE_H

#include "core/base/advice.h"
#include "tui.h"

/** What @adv (with @arg) asks for, said by the screen and key that do it; NULL when the kind has no words here. Caller frees. */
char *tui_advice_words(const struct tui *t, enum cu_advice adv, const char *arg);
/** A check's detail as the wizard says it: its fact with the wizard's advice, else the detail with its flags told as choices. Caller frees. */
char *tui_check_detail(const struct tui *t, const struct cu_check *c);
/** A problem's fix as the wizard says it. Caller frees. */
char *tui_problem_fix(const struct tui *t, const struct cu_problem *p);
/** What a request of CU_ADV_REQUEST (its flags, @flags) asks for, in words ("PyTorch 2.14, no cuDNN"). Caller frees. */
char *tui_request_words(const char *flags);
/** Take the request @flags as the answers (framework, CUDA, cuDNN, Python, driver); what it does not name is automatic. */
void tui_take_request(struct tui *t, const char *flags);
/** Reword, once, the advice of the errors the engine handed back (the plan's, the version lists', the last job's). */
void tui_word_errors(struct tui *t);
/** An error's sentence and, on a line of its own, what to do, in the wizard's words. Caller frees. */
char *tui_error_told(const struct tui *t, const struct cu_error *e);

#endif
