/* SPDX-License-Identifier: MIT */
/*
 * The image's first boot finishes the job (issue 46 item 12).  An install into a machine image (--root, no running
 * kernel) stops at exit 5 with the module built and the branch held; what is left (the module loading, the other
 * stages, `cudaup verify`) needs the image booted on its GPU machine.  So the plan writes, through the system runner
 * and into the image only:
 *   /etc/systemd/system/cudaup-firstboot.service  a oneshot unit, enabled with the image's own `systemctl enable`
 *                                                 (its multi-user.target.wants link);
 *   /usr/local/sbin/cudaup-firstboot               the shell script the unit runs.
 * At the first boot the script runs the install again as it was given (without --root; paths inside DIR as the
 * image sees them; --state-dir the image's), which resumes from STATE/resume.json, then `cudaup verify`; it writes
 * STATE/firstboot.json (result: done, failed, no-gpu, key-enrolment-needed or no-cudaup; both exit codes; a
 * sentence of what to do) with the two commands' JSON beside it, and removes the unit, its link and itself.  All
 * three files are in driver.json's files, so `cudaup uninstall driver` removes them if the image never booted.
 */
#include "config.h"

#include "driver_int.h"

#include <jansson.h>
#include <string.h>

#include "core/base/i18n.h"
#include "core/base/mem.h"
#include "core/base/str.h"
#include "core/base/sysroot.h"
#include "core/install/exec.h"

/* Options whose value names this host, not the image: dropped (with their value) from the command it runs. */
static const char *const host_only[] = {"--root", "--state-dir", "--cache-dir", "--log-file"};

static bool
host_only_opt(const char *w, bool *takes_next)
{
    *takes_next = false;
    for (size_t i = 0; i < CU_N_ELEMENTS(host_only); i++) {
        size_t n = strlen(host_only[i]);
        if (strncmp(w, host_only[i], n) == 0 && (w[n] == '\0' || w[n] == '=')) {
            *takes_next = w[n] == '\0';
            return true;
        }
    }
    return false;
}

/* @w as the image sees it: an absolute path inside @root (alone or an option's =value) loses DIR. Caller owns. */
static char *
seen_word(const char *root, const char *w)
{
    const char *eq = w[0] == '-' ? strchr(w, '=') : NULL;
    const char *v = eq ? eq + 1 : w;
    char *s = v[0] == '/' ? cu_root_seen_path(root, v) : NULL;
    if (!s)
        return cu_xstrdup(w);
    char *out = eq ? cu_xasprintf("%.*s=%s", (int)(eq - w), w, s) : cu_xstrdup(s);
    free(s);
    return out;
}

/* @w for sh: as is where it is plain, else quoted. Caller owns. */
static char *
word_q(const char *w)
{
    static const char plain[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@";
    return *w && strspn(w, plain) == strlen(w) ? cu_xstrdup(w) : cu_sh_quote(w);
}

/* The install as given, for the image: `install --yes --json --state-dir STATE` and the user's other words. */
static char *
image_command(const struct cu_prepare_in *in, const char *state_seen)
{
    struct cu_buf b;
    cu_buf_init(&b);
    CU_AUTOFREE char *qs = word_q(state_seen);
    const char *verb = in->cfg && in->cfg->command != CU_CMD_NONE ? cu_command_name(in->cfg->command) : NULL;
    cu_buf_printf(&b, "install --yes --json --state-dir %s", qs);
    char *const *g = in->cfg ? in->cfg->given : NULL;
    for (size_t i = 0; g && g[i]; i++) {
        bool next;
        if (host_only_opt(g[i], &next)) {
            i += next && g[i + 1] ? 1 : 0;
            continue;
        }
        if (verb && strcmp(g[i], verb) == 0) {
            verb = NULL; /* the command's word (install, plan): the unit's is install */
            continue;
        }
        if (strcmp(g[i], "--yes") == 0 || strcmp(g[i], "-y") == 0 ||
            strcmp(g[i], "--json") == 0)
            continue;
        CU_AUTOFREE char *w = seen_word(in->root, g[i]);
        CU_AUTOFREE char *q = word_q(w);
        cu_buf_printf(&b, " %s", q);
    }
    return cu_buf_steal(&b);
}

/* Does the image boot with systemd (its pid 1, or at least its systemctl)? */
static bool
has_systemd(const char *root)
{
    static const char *const marks[] = {"/usr/lib/systemd/systemd", "/lib/systemd/systemd", "/usr/bin/systemctl",
                                        "/bin/systemctl"};
    struct cu_sysroot r;
    struct cu_error e;
    if (cu_sysroot_init(&r, root, &e) != CU_OK)
        return false;
    bool yes = false;
    for (size_t i = 0; i < CU_N_ELEMENTS(marks) && !yes; i++)
        yes = cu_sysroot_exists(&r, marks[i]);
    cu_sysroot_fini(&r);
    return yes;
}

void
drv_firstboot_plan(const struct cu_prepare_in *in, struct cu_drv_plan *p)
{
    if (!in->root || !p->image)
        return;
    CU_AUTOFREE char *state = in->state_dir ? cu_root_seen_path(in->root, in->state_dir) : NULL;
    char *why = NULL;
    if (!state)
        why = cu_xasprintf(_("No first-boot unit is written: the state folder %s is outside the image, so the image would not find the record it resumes from. At its first boot, run `cudaup install` there (the same options, without --root)."),
                           in->state_dir ? in->state_dir : "?");
    else if (!has_systemd(in->root))
        why = cu_xasprintf(_("No first-boot unit is written: the image has no systemd (%s has no systemctl). At its first boot, run `cudaup install` there (the same options, without --root), then `cudaup verify`."),
                           in->root);
    if (why) {
        cu_strv_push_owned(&p->reasons, why);
        cu_strv_push(&p->reason_sources, "");
        return;
    }
    p->firstboot_state = cu_xstrdup(state);
    p->firstboot_command = image_command(in, state);
    /* The step goes before the image's end (the last step). */
    p->steps = cu_xrealloc(p->steps, (p->n_steps + 1) * sizeof(*p->steps));
    size_t at = p->n_steps && strcmp(p->steps[p->n_steps - 1].action, "image") == 0 ? p->n_steps - 1 : p->n_steps;
    memmove(&p->steps[at + 1], &p->steps[at], (p->n_steps - at) * sizeof(*p->steps));
    p->n_steps++;
    struct cu_drv_step *s = &p->steps[at];
    memset(s, 0, sizeof(*s));
    s->action = cu_xstrdup("firstboot");
    s->argv = cu_xcalloc(4, sizeof(char *));
    s->argv[0] = cu_xstrdup("systemctl");
    s->argv[1] = cu_xstrdup("enable");
    s->argv[2] = cu_xstrdup("cudaup-firstboot.service");
    s->path = cu_xstrdup(CU_DRV_FIRSTBOOT_UNIT);
    s->why = cu_xasprintf(_("write the image's first-boot unit (%s, running %s) and enable it: once the image boots, it runs `cudaup %s` (the resume) and `cudaup verify`, records the result in %s/firstboot.json and removes itself"),
                          CU_DRV_FIRSTBOOT_UNIT, CU_DRV_FIRSTBOOT_SCRIPT, p->firstboot_command, state);
    cu_strv_push_owned(&p->reasons, cu_xasprintf(_("The image's first boot finishes the job: a systemd unit (%s) runs the install again there (it resumes: the module loads, the other stages go on) and `cudaup verify`, records the result in %s/firstboot.json, and removes itself; without a GPU it records that no GPU work was possible."),
                                                 CU_DRV_FIRSTBOOT_UNIT, state));
    cu_strv_push(&p->reason_sources, "");
}

/* A string as a JSON string (quotes included), shell-quoted: printf '%s' writes it into the record as is. */
static char *
json_sh(const char *s)
{
    json_t *j = json_string(s);
    char *d = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;
    json_decref(j);
    char *q = cu_sh_quote(d ? d : "\"\"");
    free(d);
    return q;
}

static char *
unit_text(void)
{
    return cu_xasprintf("# Written by cudaup (cudaup install --root): the image's first boot finishes the NVIDIA driver's install.\n"
                        "# It runs once: %s removes this unit and itself when done.\n"
                        "[Unit]\n"
                        "Description=cudaup: finish the NVIDIA driver install at the image's first boot\n"
                        "After=network-online.target systemd-modules-load.service\n"
                        "Wants=network-online.target\n"
                        "ConditionPathExists=%s\n"
                        "\n"
                        "[Service]\n"
                        "Type=oneshot\n"
                        "ExecStart=/bin/sh %s\n"
                        "TimeoutStartSec=3h\n"
                        "StandardOutput=journal\n"
                        "\n"
                        "[Install]\n"
                        "WantedBy=multi-user.target\n",
                        CU_DRV_FIRSTBOOT_SCRIPT, CU_DRV_FIRSTBOOT_SCRIPT, CU_DRV_FIRSTBOOT_SCRIPT);
}

static char *
script_text(const struct cu_drv_plan *d)
{
    CU_AUTOFREE char *state = cu_sh_quote(d->firstboot_state);
    CU_AUTOFREE char *cert = cu_sh_quote(d->mok_cert && strcmp(d->secure_boot ? d->secure_boot : "", "signed") != 0
                                             ? d->mok_cert : "");
    CU_AUTOFREE char *again = cu_xasprintf("cudaup %s", d->firstboot_command);
    CU_AUTOFREE char *m_done = json_sh(_("The first boot finished the install and `cudaup verify` passed."));
    CU_AUTOFREE char *m_fail = cu_xasprintf(_("The first boot's install or `cudaup verify` failed: see firstboot-install.json, firstboot-verify.json and firstboot.log beside this record, fix what they name, then run `%s`."), again);
    CU_AUTOFREE char *m_failq = json_sh(m_fail);
    CU_AUTOFREE char *m_gpu = cu_xasprintf(_("No NVIDIA GPU on this machine: no GPU work was possible (the driver's module was not loaded, nothing ran on a GPU). Boot the image on a machine with an NVIDIA GPU and run `%s`."), again);
    CU_AUTOFREE char *m_gpuq = json_sh(m_gpu);
    CU_AUTOFREE char *m_key = cu_xasprintf(_("Key enrolment needed: Secure Boot is on and this machine's firmware does not know the key DKMS signed the module with (%s); a unit cannot enrol it (MokManager needs the console). Run `mokutil --import %s` (choose a one-time password), reboot, and at the blue MokManager screen: Enroll MOK, Continue, Yes, the password, Reboot; then run `%s`."),
                                           d->mok_cert ? d->mok_cert : "", d->mok_cert ? d->mok_cert : "", again);
    CU_AUTOFREE char *m_keyq = json_sh(m_key);
    CU_AUTOFREE char *m_none = cu_xasprintf(_("cudaup is not on this machine's PATH, so the install could not go on: put cudaup there, then run `%s`."), again);
    CU_AUTOFREE char *m_noneq = json_sh(m_none);
    return cu_xasprintf(
        "#!/bin/sh\n"
        "# Written by cudaup (cudaup install --root): run once by cudaup-firstboot.service at the image's first boot.\n"
        "# It runs the install again (it resumes from resume.json) and cudaup verify, records the result in\n"
        "# STATE/firstboot.json, then removes the unit, its link and this script.\n"
        "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\n"
        "export PATH\n"
        "state=%s\n"
        "cert=%s\n"
        "rec=\"$state/firstboot.json\"\n"
        "mkdir -p \"$state\"\n"
        "record() { # RESULT INSTALL_EXIT VERIFY_EXIT MESSAGE(JSON)\n"
        "    printf '{\"format\": 1, \"result\": \"%%s\", \"install_exit\": %%s, \"verify_exit\": %%s, \"gpu\": %%s, \"boot_id\": \"%%s\", \"message\": %%s}\\n' \\\n"
        "        \"$1\" \"$2\" \"$3\" \"$gpu\" \"$(tr -dc 0-9a-f- </proc/sys/kernel/random/boot_id 2>/dev/null)\" \"$4\" >\"$rec.new\" &&\n"
        "        mv -f \"$rec.new\" \"$rec\"\n"
        "}\n"
        "finish() {\n"
        "    rm -f %s %s %s\n"
        "    systemctl daemon-reload 2>/dev/null || :\n"
        "    exit 0\n"
        "}\n"
        "gpu=false\n"
        "for d in /sys/bus/pci/devices/*; do\n"
        "    [ \"$(cat \"$d/vendor\" 2>/dev/null)\" = 0x10de ] || continue\n"
        "    case \"$(cat \"$d/class\" 2>/dev/null)\" in 0x0300*|0x0302*) gpu=true ;; esac\n"
        "done\n"
        "cudaup=$(command -v cudaup) || { record no-cudaup null null %s; finish; }\n"
        "\"$cudaup\" %s >\"$state/firstboot-install.json\" 2>\"$state/firstboot.log\"\n"
        "irc=$?\n"
        "\"$cudaup\" verify --json --state-dir \"$state\" >\"$state/firstboot-verify.json\" 2>>\"$state/firstboot.log\"\n"
        "vrc=$?\n"
        "if [ \"$gpu\" = false ]; then\n"
        "    record no-gpu \"$irc\" \"$vrc\" %s\n"
        "elif [ -n \"$cert\" ] && mokutil --sb-state 2>/dev/null | grep -q 'SecureBoot enabled' &&\n"
        "    mokutil --test-key \"$cert\" 2>/dev/null | grep -q 'is not enrolled'; then\n"
        "    record key-enrolment-needed \"$irc\" \"$vrc\" %s\n"
        "elif [ \"$irc\" = 0 ] && [ \"$vrc\" = 0 ]; then\n"
        "    record done 0 0 %s\n"
        "else\n"
        "    record failed \"$irc\" \"$vrc\" %s\n"
        "fi\n"
        "finish\n",
        state, cert, CU_DRV_FIRSTBOOT_LINK, CU_DRV_FIRSTBOOT_UNIT, CU_DRV_FIRSTBOOT_SCRIPT, m_noneq,
        d->firstboot_command, m_gpuq, m_keyq, m_done, m_failq);
}

enum cu_status
drv_firstboot_write(struct inst_driver_ctx *c, const struct cu_drv_plan *d, const struct cu_drv_step *s,
                    struct cu_error *err)
{
    enum cu_status st;
    if (!d->firstboot_state || !d->firstboot_command || !s->argv)
        return CU_OK;
    CU_AUTOFREE char *script = script_text(d);
    CU_AUTOFREE char *unit = unit_text();
    if ((st = drv_write_step(c, "firstboot", CU_DRV_FIRSTBOOT_SCRIPT, script, err)) != CU_OK ||
        (st = drv_write_step(c, "firstboot", CU_DRV_FIRSTBOOT_UNIT, unit, err)) != CU_OK)
        return st;
    /* The image's own systemctl makes the wants link (it enables offline, in a chroot); the link is recorded as
     * cudaup's file, so that uninstall removes it with the unit. */
    if ((st = drv_run_step(c, "firstboot", (const char *const *)s->argv, false, err)) != CU_OK)
        return st;
    return drv_rec_add_file(c, CU_DRV_FIRSTBOOT_LINK, err);
}
