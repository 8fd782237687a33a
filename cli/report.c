/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

#include "core/base/i18n.h"
#include "core/base/jsonutil.h"
#include "core/base/mem.h"
#include "core/base/str.h"
#include "term.h"

static const char *const seqs[] = {
    [CU_COLOR_NONE] = "",          [CU_COLOR_RED] = "\033[31m", [CU_COLOR_YELLOW] = "\033[33m",
    [CU_COLOR_GREEN] = "\033[32m", [CU_COLOR_BOLD] = "\033[1m", [CU_COLOR_DIM] = "\033[2m",
};

const char *
cu_color(const struct cu_app *app, enum cu_color c, bool err_stream)
{
    return (err_stream ? app->color_err : app->color) ? seqs[c] : "";
}

const char *
cu_color_reset(const struct cu_app *app, bool err_stream)
{
    return (err_stream ? app->color_err : app->color) ? "\033[0m" : "";
}

void
cu_report_error_line(struct cu_app *app, const struct cu_error *err)
{
    CU_AUTOFREE char *raw = cu_str_sanitize(cu_error_text(err));
    CU_AUTOFREE char *msg = cu_str_sentence(raw);
    const char *advice = cu_error_advice(err);
    if (app->cfg.json) {
        /* With --json, stderr carries JSON lines only (DESIGN "JSON"). */
        json_t *ev = json_object();
        json_object_set_new(ev, "event", json_string("error"));
        json_object_set_new(ev, "message", cu_json_str_or_null(msg)); /* sanitized: valid for JSON */
        json_object_set_new(ev, "advice", cu_json_str_or_null(advice));
        char *line = json_dumps(ev, JSON_COMPACT | JSON_PRESERVE_ORDER);
        if (line)
            fprintf(stderr, "%s\n", line);
        free(line);
        json_decref(ev);
    } else {
        int width = cu_term_width(STDERR_FILENO);
        /* A planned stop (exit 5: reboot, then run cudaup again) is no failure: not in red (issue 49 item 11). */
        fputs(cu_color(app, err->code == CU_E_REBOOT ? CU_COLOR_YELLOW : CU_COLOR_RED, true), stderr);
        cu_print_wrapped(stderr, "cudaup: ", msg, width);
        fputs(cu_color_reset(app, true), stderr);
        if (advice)
            cu_print_wrapped(stderr, "", advice, width);
    }
    if (app->log) {
        /* The log is English, so that it can be shared. */
        CU_AUTOFREE char *raw_en = cu_str_sanitize(cu_error_text_en(err));
        CU_AUTOFREE char *msg_en = cu_str_sentence(raw_en);
        const char *advice_en = cu_error_advice_en(err);
        fprintf(app->log, "error: %s\n", msg_en);
        if (advice_en)
            fprintf(app->log, "advice: %s\n", advice_en);
    }
}

int
cu_report_error(struct cu_app *app, const struct cu_error *err)
{
    int code = cu_status_exit_code(err->code);
    cu_report_error_line(app, err);
    if (app->cfg.json) {
        json_t *doc = json_object();
        json_object_set_new(doc, "status", json_string("error"));
        json_object_set_new(doc, "exit_code", json_integer(code));
        CU_AUTOFREE char *sentence = cu_str_sentence(cu_error_text(err));
        json_object_set_new(doc, "error", json_string(sentence));
        json_object_set_new(doc, "error_code", json_string(cu_status_name(err->code)));
        json_object_set_new(doc, "advice", cu_json_str_or_null(cu_error_advice(err)));
        cu_report_json(app, doc);
    }
    return code;
}

void
cu_report_json(struct cu_app *app, json_t *doc)
{
    (void)app;
    char *s = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    if (s) {
        fputs(s, stdout);
        fputc('\n', stdout);
        free(s);
    }
    json_decref(doc);
    fflush(stdout);
}

void
cu_print_padded(FILE *out, const char *s, int width)
{
    int cols = 0;
    mbstate_t st;
    memset(&st, 0, sizeof(st));
    for (const char *p = s; *p;) {
        wchar_t wc;
        size_t n = mbrtowc(&wc, p, strlen(p), &st);
        if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
            cols++; /* an undecodable byte takes one column in most terminals */
            p++;
            memset(&st, 0, sizeof(st));
            continue;
        }
        int w = wcwidth(wc);
        cols += w > 0 ? w : 0;
        p += n;
    }
    fputs(s, out);
    for (; cols < width; cols++)
        fputc(' ', out);
}

int
cu_report_json_result(struct cu_app *app, json_t *doc, enum cu_status st, const struct cu_error *err)
{
    if (st != CU_OK) {
        json_object_set_new(doc, "exit_code", json_integer(cu_status_exit_code(st)));
        CU_AUTOFREE char *sentence = cu_str_sentence(cu_error_text(err));
        json_object_set_new(doc, "error", json_string(sentence));
        json_object_set_new(doc, "advice", cu_json_str_or_null(cu_error_advice(err)));
    }
    cu_report_json(app, doc);
    if (st != CU_OK)
        cu_report_error_line(app, err);
    return cu_status_exit_code(st);
}
