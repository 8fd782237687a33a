/* SPDX-License-Identifier: MIT */
/*
 * The engine's advice in the wizard's words.  The engine says what to do in the command line's
 * terms ("run `cudaup install --cuda 12.2`", "repair restores them", "run without --mirror") and
 * records beside it what that asks for (core/base/advice.h); here each kind is said by naming the
 * screen and the key that do it.  Advice without a kind has its flags told as choices
 * (tui_unflag).
 */
#include "config.h"

#include "advice.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/i18n.h"
#include "core/base/mem.h"
#include "widgets.h"

char *
tui_advice_words(const struct tui *t, enum cu_advice adv, const char *arg)
{
    const char *a = arg ? arg : "";
    switch (adv) {
    case CU_ADV_INSTALL:
        return cu_xstrdup(_("This wizard installs the CUDA toolkit and cuDNN that fit this machine: press Enter to go on."));
    case CU_ADV_CUDA:
        return cu_xasprintf(_("Choose CUDA %s on the Versions screen."), a);
    case CU_ADV_DRIVER_OR_CUDA:
        return cu_xasprintf(_("Update the driver, or choose CUDA %s on the Versions screen."), a);
    case CU_ADV_ADD_CUDNN:
        return cu_xasprintf(_("Choose CUDA %s on the Versions screen: the cuDNN that fits it comes with it."), a);
    case CU_ADV_ENV_VAR:
        return cu_xasprintf(_("Unset %s or point it at an installed CUDA; the install this wizard makes sets it for you."), a);
    case CU_ADV_LD_CLEAN:
        return cu_xstrdup(_("Keep one CUDA version in LD_LIBRARY_PATH; the install this wizard makes writes a clean one."));
    case CU_ADV_REPAIR:
        return cu_xstrdup(t->scr == SCR_VALIDATION ? _("press r to repair") : _("Esc, then r on the Validation screen, repairs it"));
    case CU_ADV_REINSTALL:
        return cu_xstrdup(_("go through the whole set-up again, with the same answers, to bring it back"));
    case CU_ADV_MIRROR_DOWN:
        return cu_xasprintf(_("Check that the mirror %s is up and that this machine reaches it, or choose NVIDIA under Downloads from on the Location screen."), a);
    case CU_ADV_MIRROR_LACKS:
        return cu_xasprintf(_("Check that the mirror %s is up and holds this file, or choose NVIDIA under Downloads from on the Location screen."), a);
    case CU_ADV_NONE:
    case CU_ADV_COUNT:
    default:
        return NULL;
    }
}

char *
tui_check_detail(const struct tui *t, const struct cu_check *c)
{
    CU_AUTOFREE char *words = c->fact ? tui_advice_words(t, c->adv, NULL) : NULL;
    if (words)
        return cu_xasprintf(_("%s; %s"), c->fact, words);
    if (c->status == CU_CHECK_FAIL && c->fix) /* its own fix, once */
        return cu_xasprintf(_("%s; %s"), c->detail ? c->detail : "", c->fix);
    return tui_unflag(c->detail ? c->detail : "");
}

char *
tui_problem_fix(const struct tui *t, const struct cu_problem *p)
{
    char *words = tui_advice_words(t, p->adv, p->adv_arg);
    return words ? words : tui_unflag(p->fix ? p->fix : "");
}

/* Once: the advice the engine gave in the command line's words, in the wizard's (the log kept the English). */
static void
word_error(const struct tui *t, struct cu_error *e)
{
    if (e->adv == CU_ADV_NONE)
        return;
    CU_AUTOFREE char *words = tui_advice_words(t, e->adv, e->adv_arg);
    if (words)
        snprintf(e->advice, sizeof(e->advice), "%s", words);
    e->adv = CU_ADV_NONE;
}

void
tui_word_errors(struct tui *t)
{
    word_error(t, &t->last_err);
    word_error(t, &t->plan_err);
    word_error(t, &t->choices_err[0]);
    word_error(t, &t->choices_err[1]);
}

char *
tui_error_told(const struct tui *t, const struct cu_error *e)
{
    (void)t;
    CU_AUTOFREE char *text = tui_unflag(cu_error_text(e));
    const char *advice = cu_error_advice(e);
    if (!advice)
        return cu_steal_ptr(&text);
    CU_AUTOFREE char *told = tui_unflag(advice);
    return cu_xasprintf(_("%s\nWhat to do: %s"), text, told);
}
