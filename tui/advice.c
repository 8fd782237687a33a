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
#include "core/base/str.h"
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
    case CU_ADV_REQUEST: /* the sentence as written (its flags told as choices); Versions offers it (tui_take_request) */
    case CU_ADV_NONE:
    case CU_ADV_COUNT:
    default:
        return NULL;
    }
}

/* Each "--flag value" pair of @flags in turn: *@flag and *@value (owned by @words), false at the end. */
static bool
next_flag(const struct cu_strv *words, size_t *i, const char **flag, const char **value)
{
    while (*i + 1 < words->n && strncmp(words->v[*i], "--", 2) != 0)
        (*i)++;
    if (*i + 1 >= words->n)
        return false;
    *flag = words->v[*i] + 2;
    *value = words->v[*i + 1];
    *i += 2;
    return true;
}

char *
tui_request_words(const char *flags)
{
    struct cu_strv words, said;
    cu_strv_init(&words);
    cu_strv_init(&said);
    cu_strv_split(&words, flags ? flags : "", " ");
    const char *flag, *value;
    for (size_t i = 0; next_flag(&words, &i, &flag, &value);) {
        if (strcmp(flag, "framework") == 0 && strcmp(value, "none") == 0) {
            cu_strv_push(&said, _("CUDA and cuDNN alone, no framework"));
        } else if (strcmp(flag, "framework") == 0) {
            /* "pytorch==2.14,jax": PyTorch 2.14, JAX */
            struct cu_buf b;
            cu_buf_init(&b);
            for (const char *p = value; *p; p += strcspn(p, ","), p += *p == ',') {
                CU_AUTOFREE char *one = cu_xstrndup(p, strcspn(p, ","));
                CU_AUTOFREE char *name = cu_xstrndup(one, strcspn(one, "=["));
                const char *ver = strstr(one, "==");
                cu_buf_printf(&b, "%s%s%s%s", b.len ? _(", ") : "", cu_framework_title(name), ver ? " " : "", ver ? ver + 2 : "");
            }
            cu_strv_push(&said, b.data ? b.data : "");
            cu_buf_fini(&b);
        } else if (strcmp(flag, "cuda") == 0) {
            cu_strv_push_owned(&said, cu_xasprintf(_("CUDA %s"), value));
        } else if (strcmp(flag, "cudnn") == 0) {
            cu_strv_push_owned(&said, strcmp(value, "none") == 0 ? cu_xstrdup(_("no cuDNN")) : cu_xasprintf(_("cuDNN %s"), value));
        } else if (strcmp(flag, "python") == 0) {
            cu_strv_push_owned(&said, cu_xasprintf(_("Python %s"), value));
        } else if (strcmp(flag, "driver") == 0) {
            cu_strv_push_owned(&said, strcmp(value, "keep") == 0 ? cu_xstrdup(_("the driver as it is"))
                                                                 : cu_xasprintf(_("NVIDIA driver %s"), value));
        }
    }
    char *out = cu_strv_join(&said, _(", "));
    cu_strv_fini(&said);
    cu_strv_fini(&words);
    return out;
}

void
tui_take_request(struct tui *t, const char *flags)
{
    struct cu_strv words;
    cu_strv_init(&words);
    cu_strv_split(&words, flags ? flags : "", " ");
    const char *flag, *value;
    /* What the request does not name goes back to automatic; --framework given twice is an environment each. */
    struct cu_buf fw;
    cu_buf_init(&fw);
    tui_set_answer(t, &t->ans.cuda, NULL);
    tui_set_answer(t, &t->ans.cudnn, NULL);
    for (size_t i = 0; next_flag(&words, &i, &flag, &value);) {
        if (strcmp(flag, "framework") == 0)
            cu_buf_printf(&fw, "%s%s", fw.len ? ";" : "", value);
        else if (strcmp(flag, "cuda") == 0)
            tui_set_answer(t, &t->ans.cuda, value);
        else if (strcmp(flag, "cudnn") == 0)
            tui_set_answer(t, &t->ans.cudnn, value);
        else if (strcmp(flag, "python") == 0)
            tui_set_answer(t, &t->ans.python, value);
        else if (strcmp(flag, "driver") == 0)
            tui_set_answer(t, &t->ans.driver, value);
    }
    if (fw.len)
        tui_set_answer(t, &t->ans.framework, fw.data);
    cu_buf_fini(&fw);
    cu_strv_fini(&words);
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
