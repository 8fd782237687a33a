/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "options.h"

#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/i18n.h"
#include "core/jsonutil.h"
#include "core/mem.h"
#include "core/parse.h"
#include "core/str.h"

enum opt_type { OPT_BOOL, OPT_STRING, OPT_U64, OPT_COUNT };

enum opt_flags {
    OPT_ENV = 1 << 0,  /* also read from CUDAUP_<NAME> */
    OPT_FILE = 1 << 1, /* also read from the config file */
};

#define C(x) (1u << (x))
#define ALL_CMDS 0xffffu
#define PLANNING (C(CU_CMD_NONE) | C(CU_CMD_PLAN) | C(CU_CMD_INSTALL) | C(CU_CMD_MIRROR))
#define ON_INSTALL (C(CU_CMD_NONE) | C(CU_CMD_VERIFY) | C(CU_CMD_REPAIR) | C(CU_CMD_UNINSTALL) | \
                    C(CU_CMD_LIST))
#define DOWNLOADING (C(CU_CMD_NONE) | C(CU_CMD_PLAN) | C(CU_CMD_INSTALL) | C(CU_CMD_MIRROR) | \
                     C(CU_CMD_REPAIR) | C(CU_CMD_LIST))

struct opt {
    const char *name;
    char short_name;
    enum opt_type type;
    size_t offset;
    unsigned flags;
    unsigned commands; /* bit per enum cu_command that accepts it */
    const char *metavar;
    const char *help;
};

#define F(field) offsetof(struct cu_config, field)

/* Sorted by name: bsearch finds options, and --help lists them in this order. */
static const struct opt options[] = {
    {"ca-cert", 0, OPT_STRING, F(ca_cert), OPT_ENV | OPT_FILE, ALL_CMDS, "FILE",
     N_("CA certificates to trust for an https mirror (a TLS-inspecting proxy's); CURL_CA_BUNDLE and SSL_CERT_FILE are read too")},
    {"cache-dir", 0, OPT_STRING, F(cache_dir), OPT_ENV | OPT_FILE, ALL_CMDS, "DIR",
     N_("where downloaded archives and manifests are kept (default $XDG_CACHE_HOME/cudaup, else ~/.cache/cudaup)")},
    {"components", 0, OPT_STRING, F(components), OPT_ENV | OPT_FILE, PLANNING, "LIST",
     N_("CUDA components: default (the default), all, or a comma list (names or groups)")},
    {"cuda", 0, OPT_STRING, F(cuda), OPT_ENV | OPT_FILE, PLANNING, "VER",
     N_("CUDA version: X.Y, an exact release, or auto (the default: the newest that fits)")},
    {"cudnn", 0, OPT_STRING, F(cudnn), OPT_ENV | OPT_FILE, PLANNING, "VER",
     N_("cuDNN version: X.Y, an exact release, auto (the default) or none")},
    {"deep", 0, OPT_BOOL, F(deep), 0, C(CU_CMD_VERIFY) | C(CU_CMD_REPAIR), NULL,
     N_("re-hash every installed file instead of comparing sizes and modes")},
    {"driver", 0, OPT_STRING, F(driver), OPT_ENV | OPT_FILE, PLANNING, "WHICH",
     N_("the NVIDIA driver: auto (default: install one where the machine has none that fits), keep, none, or a branch such as 580, 580-open, 580-proprietary")},
    {"driver-source", 0, OPT_STRING, F(driver_source), OPT_ENV | OPT_FILE, PLANNING, "SOURCE",
     N_("where the driver's packages come from: distro (the distribution's own) or nvidia (NVIDIA's repository); default: the distribution's where they carry a fitting branch")},
    {"env-dir", 0, OPT_STRING, F(env_dir), OPT_ENV | OPT_FILE, PLANNING, "DIR",
     N_("where a venv goes: DIR/NAME (default PREFIX/cudaup/envs when --prefix is given, else /opt/cudaup/envs as root, ~/.local/share/cudaup/envs otherwise)")},
    {"env-name", 0, OPT_STRING, F(env_name), OPT_ENV | OPT_FILE, PLANNING, "NAME",
     N_("name of the Python environment to create (default cudaup-FRAMEWORK)")},
    {"env-scope", 0, OPT_STRING, F(env_scope), OPT_ENV | OPT_FILE, PLANNING, "SCOPE",
     N_("where the environment variables go: user, system, conda or none (default system as root, user otherwise)")},
    {"env-tool", 0, OPT_STRING, F(env_tool), OPT_ENV | OPT_FILE, PLANNING, "TOOL",
     N_("Python environment tool: conda, mamba, micromamba, venv or none (default: conda or its kin when found, else venv)")},
    {"framework", 0, OPT_STRING, F(framework), OPT_ENV | OPT_FILE, PLANNING, "NAME[==VER]",
     N_("tensorflow (with Keras, the default), pytorch, jax or none")},
    {"gpu-timeout", 0, OPT_U64, F(gpu_timeout), OPT_ENV | OPT_FILE, C(CU_CMD_VERIFY) | C(CU_CMD_NONE),
     "SECONDS", N_("time limit of each GPU check")},
    {"help", 'h', OPT_BOOL, F(help), 0, ALL_CMDS, NULL, N_("show this help")},
    {"index-url", 0, OPT_STRING, F(index_url), OPT_ENV | OPT_FILE, PLANNING, "URL",
     N_("the framework's package index (default: PIP_INDEX_URL, else PyPI, and PyTorch's own index for its CUDA builds)")},
    {"iterations", 0, OPT_U64, F(iterations), 0, C(CU_CMD_NONE), "N",
     N_("wizard: stop after N loop turns (for tests)")},
    {"jobs", 0, OPT_U64, F(jobs), OPT_ENV | OPT_FILE, DOWNLOADING, "N",
     N_("archives downloaded and unpacked at once (default 4)")},
    {"json", 0, OPT_BOOL, F(json), 0, ALL_CMDS, NULL,
     N_("print the result as one JSON document; progress goes to stderr")},
    {"keep-env", 0, OPT_BOOL, F(keep_env), 0, C(CU_CMD_UNINSTALL), NULL,
     N_("keep the Python environment cudaup made for that CUDA (it is removed otherwise)")},
    {"keys-script", 0, OPT_STRING, F(keys_script), 0, C(CU_CMD_NONE), "FILE",
     N_("wizard: read keystrokes from FILE (for tests)")},
    {"log", 0, OPT_STRING, F(log_file), OPT_ENV | OPT_FILE, ALL_CMDS, "FILE",
     N_("write the log to FILE")},
    {"mirror", 0, OPT_STRING, F(mirror), OPT_ENV | OPT_FILE, ALL_CMDS, "URL",
     N_("download from URL instead of NVIDIA's https://developer.download.nvidia.com/compute (https://, http:// or file://)")},
    {"no-color", 0, OPT_BOOL, F(no_color), OPT_ENV | OPT_FILE, ALL_CMDS, NULL,
     N_("do not colour the output")},
    {"non-interactive", 0, OPT_BOOL, F(non_interactive), 0, C(CU_CMD_NONE), NULL,
     N_("never start the wizard")},
    {"package", 0, OPT_STRING, F(package), OPT_ENV | OPT_FILE, C(CU_CMD_MIRROR), "FILE",
     N_("mirror: also place cudaup's own package (.deb or .tar.gz from scripts/package) in DIR/cudaup/")},
    {"platform", 0, OPT_STRING, F(platform), OPT_ENV | OPT_FILE, PLANNING, "NAME",
     N_("linux-x86_64, linux-sbsa or linux-aarch64 (default: this machine)")},
    {"prefix", 0, OPT_STRING, F(prefix), OPT_ENV | OPT_FILE, PLANNING | ON_INSTALL, "DIR",
     N_("install under DIR/cuda-X.Y (default /usr/local as root, ~/.local otherwise)")},
    {"python", 0, OPT_STRING, F(python), OPT_ENV | OPT_FILE, PLANNING, "VER",
     N_("Python version of the environment, X.Y (default: the newest the framework supports, up to 3.12)")},
    {"python-source", 0, OPT_STRING, F(python_source), OPT_ENV | OPT_FILE, PLANNING, "SOURCE",
     N_("where the venv's Python comes from: auto (default: one installed here, else cudaup brings one), system or cudaup")},
    {"quiet", 'q', OPT_BOOL, F(quiet), OPT_FILE, ALL_CMDS, NULL, N_("print only errors")},
    {"require-gpu", 0, OPT_BOOL, F(require_gpu), 0, C(CU_CMD_VERIFY), NULL,
     N_("fail, not skip, the checks that need a GPU")},
    {"retries", 0, OPT_U64, F(retries), OPT_ENV | OPT_FILE, DOWNLOADING, "N",
     N_("how often a failed download is tried again, waiting 1 s, 2 s, 4 s, ... up to 30 s in between (default 6: about a minute; 0: never); a missing file (404) or a refusal (403) is not retried")},
    {"root", 0, OPT_STRING, F(root), OPT_ENV, ALL_CMDS, "DIR",
     N_("read the machine from DIR instead of / (for tests and chroots)")},
    {"shell-rc", 0, OPT_STRING, F(shell_rc), OPT_ENV | OPT_FILE, PLANNING, "FILE",
     N_("the shell start-up file that sources the environment, scope user (default: ~/.bashrc, ~/.zshrc or fish's conf.d by $SHELL, else ~/.profile)")},
    {"state-dir", 0, OPT_STRING, F(state_dir), OPT_ENV | OPT_FILE, ALL_CMDS, "DIR",
     N_("where the log and env.sh are kept (default /var/lib/cudaup as root, $XDG_STATE_HOME/cudaup otherwise)")},
    {"verbose", 'v', OPT_COUNT, F(verbose), 0, ALL_CMDS, NULL, N_("say more (twice: debug)")},
    {"version", 0, OPT_BOOL, F(version), 0, ALL_CMDS, NULL, N_("print the version")},
    {"yes", 'y', OPT_BOOL, F(yes), 0, ALL_CMDS, NULL, N_("answer yes: change the system without asking")},
};

static const struct {
    const char *name;
    enum cu_command cmd;
    const char *args;
    const char *help;
} commands[] = {
    {"doctor", CU_CMD_DOCTOR, "", N_("detect the GPU, driver, CUDA and problems, each with its fix")},
    {"plan", CU_CMD_PLAN, "", N_("show what install would do; changes nothing")},
    {"install", CU_CMD_INSTALL, "", N_("carry the plan out")},
    {"verify", CU_CMD_VERIFY, "[VERSION]", N_("check an install with real GPU work")},
    {"repair", CU_CMD_REPAIR, "[VERSION]", N_("restore what is missing or altered in an install")},
    {"uninstall", CU_CMD_UNINSTALL, "VERSION", N_("remove a CUDA version cudaup installed")},
    {"list", CU_CMD_LIST, "[VERSION]", N_("versions known and installed")},
    {"mirror", CU_CMD_MIRROR, "DIR", N_("download a plan's archives into DIR for a site mirror")},
};

enum cu_command
cu_command_parse(const char *name)
{
    for (size_t i = 0; i < CU_N_ELEMENTS(commands); i++)
        if (strcmp(commands[i].name, name) == 0)
            return commands[i].cmd;
    return CU_CMD_COUNT;
}

static int
cmp_opt(const void *key, const void *elem)
{
    return strcmp(key, ((const struct opt *)elem)->name);
}

static const struct opt *
find_long(const char *name)
{
    return bsearch(name, options, CU_N_ELEMENTS(options), sizeof(options[0]), cmp_opt);
}

static const struct opt *
find_short(char c)
{
    for (size_t i = 0; i < CU_N_ELEMENTS(options); i++)
        if (options[i].short_name == c)
            return &options[i];
    return NULL;
}

static bool
parse_bool(const char *s, bool *out)
{
    static const char *const yes[] = {"1", "true", "yes", "on"};
    static const char *const no[] = {"0", "false", "no", "off", ""};
    for (size_t i = 0; i < CU_N_ELEMENTS(yes); i++)
        if (strcasecmp(s, yes[i]) == 0)
            return (*out = true), true;
    for (size_t i = 0; i < CU_N_ELEMENTS(no); i++)
        if (strcasecmp(s, no[i]) == 0)
            return (*out = false), true;
    return false;
}

/* Store @value (NULL for a bare flag) into the field of @o. @where names the source. */
static enum cu_status
store(struct cu_config *cfg, const struct opt *o, const char *value, const char *where,
      struct cu_error *err)
{
    char *field = (char *)cfg + o->offset;
    switch (o->type) {
    case OPT_BOOL: {
        bool b = true;
        if (value && !parse_bool(value, &b))
            return cu_error_set(err, CU_E_USAGE, 0, _("%s--%s: '%s' is not yes or no."), where,
                                o->name, value);
        memcpy(field, &b, sizeof(b));
        return CU_OK;
    }
    case OPT_COUNT: {
        int n;
        memcpy(&n, field, sizeof(n));
        n++;
        memcpy(field, &n, sizeof(n));
        return CU_OK;
    }
    case OPT_U64: {
        uint64_t v;
        if (!value || !cu_parse_u64(value, 1000000, &v))
            return cu_error_set(err, CU_E_USAGE, 0, _("%s--%s: '%s' is not a whole number."),
                                where, o->name, value ? value : "");
        memcpy(field, &v, sizeof(v));
        return CU_OK;
    }
    case OPT_STRING: {
        char *old;
        memcpy(&old, field, sizeof(old));
        free(old);
        char *copy = cu_xstrdup(value);
        memcpy(field, &copy, sizeof(copy));
        return CU_OK;
    }
    }
    return CU_OK;
}

/* Edit distance of @a and @b (at most 32 characters each; longer is far). */
static size_t
distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), row[33];
    if (la > 32 || lb > 32)
        return 99;
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t prev = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t cur = row[j];
            size_t sub = prev + (a[i - 1] != b[j - 1]);
            size_t best = row[j] + 1 < row[j - 1] + 1 ? row[j] + 1 : row[j - 1] + 1;
            row[j] = sub < best ? sub : best;
            prev = cur;
        }
    }
    return row[lb];
}

static const char *nearest_command(const char *typed);

static char *
env_name_of(const struct opt *o)
{
    char *s = cu_xasprintf("CUDAUP_%s", o->name);
    for (char *p = s; *p; p++)
        *p = *p == '-' ? '_' : (char)toupper((unsigned char)*p);
    return s;
}

static enum cu_status
read_config_file(struct cu_config *cfg, const char *path, bool must_exist, struct cu_error *err)
{
    CU_AUTOFCLOSE FILE *f = fopen(path, "r");
    char line[4096];
    int lineno = 0;

    if (!f) {
        if (!must_exist && errno == ENOENT)
            return CU_OK;
        return cu_error_set(err, CU_E_USAGE, errno, _("Cannot read the config file %s"), path);
    }
    free(cfg->config_file);
    cfg->config_file = cu_xstrdup(path);
    while (fgets(line, sizeof(line), f)) {
        lineno++;
        char *s = cu_str_strip(line);
        if (!*s || *s == '#')
            continue;
        char *eq = strchr(s, '=');
        if (!eq)
            return cu_error_set(err, CU_E_USAGE, 0, _("%s line %d: expected 'name = value'."), path,
                                lineno);
        *eq = '\0';
        char *key = cu_str_strip(s), *val = cu_str_strip(eq + 1);
        size_t vl = strlen(val);
        if (vl >= 2 && (val[0] == '"' || val[0] == '\'') && val[vl - 1] == val[0]) {
            val[vl - 1] = '\0';
            val++;
        }
        const struct opt *o = find_long(key);
        if (!o || !(o->flags & OPT_FILE))
            return cu_error_set(err, CU_E_USAGE, 0, _("%s line %d: '%s' is not a setting cudaup knows."),
                                path, lineno, key);
        CU_AUTOFREE char *where = cu_xasprintf("%s line %d: ", path, lineno);
        enum cu_status st = store(cfg, o, val, where, err);
        if (st != CU_OK)
            return st;
    }
    return CU_OK;
}

static enum cu_status
read_config(struct cu_config *cfg, const char *const *envp, struct cu_error *err)
{
    const char *explicit_path = NULL;
    for (const char *const *e = envp; e && *e; e++)
        if (strncmp(*e, "CUDAUP_CONFIG=", 14) == 0)
            explicit_path = *e + 14;
    if (explicit_path && *explicit_path)
        return read_config_file(cfg, explicit_path, true, err);
    enum cu_status st = read_config_file(cfg, "/etc/cudaup/config", false, err);
    if (st != CU_OK)
        return st;
    const char *xdg = NULL, *home = NULL;
    for (const char *const *e = envp; e && *e; e++) {
        if (strncmp(*e, "XDG_CONFIG_HOME=", 16) == 0)
            xdg = *e + 16;
        else if (strncmp(*e, "HOME=", 5) == 0)
            home = *e + 5;
    }
    CU_AUTOFREE char *user = NULL;
    if (xdg && xdg[0] == '/')
        user = cu_xasprintf("%s/cudaup/config", xdg);
    else if (home && home[0] == '/')
        user = cu_xasprintf("%s/.config/cudaup/config", home);
    return user ? read_config_file(cfg, user, false, err) : CU_OK;
}

static enum cu_status
read_env(struct cu_config *cfg, const char *const *envp, struct cu_error *err)
{
    for (size_t i = 0; i < CU_N_ELEMENTS(options); i++) {
        const struct opt *o = &options[i];
        if (!(o->flags & OPT_ENV))
            continue;
        CU_AUTOFREE char *name = env_name_of(o);
        size_t n = strlen(name);
        for (const char *const *e = envp; e && *e; e++) {
            if (strncmp(*e, name, n) != 0 || (*e)[n] != '=')
                continue;
            const char *v = *e + n + 1;
            if (!*v && o->type != OPT_BOOL)
                continue; /* an empty variable means unset */
            CU_AUTOFREE char *where = cu_xasprintf("%s: ", name);
            enum cu_status st = store(cfg, o, v, where, err);
            if (st != CU_OK)
                return st;
        }
    }
    /* https://no-color.org: any non-empty NO_COLOR turns colour off. */
    for (const char *const *e = envp; e && *e; e++)
        if (strncmp(*e, "NO_COLOR=", 9) == 0 && (*e)[9])
            cfg->no_color = true;
    return CU_OK;
}

static const struct opt *
applies(const struct opt *o, enum cu_command cmd)
{
    return (o->commands & C(cmd)) ? o : NULL;
}

enum cu_status
cu_options_parse(struct cu_config *cfg, int argc, char **argv, const char *const *envp,
                 struct cu_error *err)
{
    struct cu_strv pos;
    const struct opt **seen = cu_xcalloc((size_t)argc + 1, sizeof(*seen));
    bool dashdash = false;
    enum cu_status st;

    cu_strv_init(&pos);
    if ((st = read_config(cfg, envp, err)) != CU_OK || (st = read_env(cfg, envp, err)) != CU_OK)
        goto out;

    /* argv: options anywhere, the first operand is the command. */
    size_t n_seen = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (dashdash || a[0] != '-' || a[1] == '\0') {
            cu_strv_push(&pos, a);
            continue;
        }
        if (strcmp(a, "--") == 0) {
            dashdash = true;
            continue;
        }
        if (a[1] == '-') {
            const char *name = a + 2;
            const char *eq = strchr(name, '=');
            CU_AUTOFREE char *key = eq ? cu_xstrndup(name, (size_t)(eq - name)) : cu_xstrdup(name);
            const struct opt *o = find_long(key);
            if (!o) {
                st = cu_error_set(err, CU_E_USAGE, 0,
                                  _("Unknown option '--%s'. Run 'cudaup --help' to see the options."),
                                  key);
                goto out;
            }
            const char *val = eq ? eq + 1 : NULL;
            if ((o->type == OPT_STRING || o->type == OPT_U64) && !val) {
                if (i + 1 >= argc) {
                    st = cu_error_set(err, CU_E_USAGE, 0, _("Option --%s needs a value (%s)."), o->name,
                                      o->metavar);
                    goto out;
                }
                if (strncmp(argv[i + 1], "--", 2) == 0) {
                    /* `--cuda --prefix X` forgot the version: never take the next option as it. */
                    st = cu_error_set(err, CU_E_USAGE, 0,
                                      _("Option --%s needs a value (%s), but the next word is the option %s (write --%s=VALUE for a value that starts with --)."),
                                      o->name, o->metavar, argv[i + 1], o->name);
                    goto out;
                }
                val = argv[++i];
            } else if (o->type == OPT_COUNT && val) {
                st = cu_error_set(err, CU_E_USAGE, 0, _("Option --%s takes no value."), o->name);
                goto out;
            }
            if ((st = store(cfg, o, val, "", err)) != CU_OK)
                goto out;
            seen[n_seen++] = o;
            continue;
        }
        /* -qvy bundles; -x VALUE is not used by any short option. */
        for (const char *p = a + 1; *p; p++) {
            const struct opt *o = find_short(*p);
            if (!o) {
                st = cu_error_set(err, CU_E_USAGE, 0,
                                  _("Unknown option '-%c'. Run 'cudaup --help' to see the options."),
                                  *p);
                goto out;
            }
            if ((st = store(cfg, o, NULL, "", err)) != CU_OK)
                goto out;
            seen[n_seen++] = o;
        }
    }

    cfg->command = CU_CMD_NONE;
    size_t first = 0;
    if (pos.n > 0) {
        cfg->command = cu_command_parse(pos.v[0]);
        if (cfg->command == CU_CMD_COUNT) {
            st = cu_error_set(err, CU_E_USAGE, 0,
                              _("Unknown command '%s'. Commands: doctor, plan, install, verify, repair, uninstall, list, mirror."),
                              pos.v[0]);
            const char *near = nearest_command(pos.v[0]);
            if (near)
                cu_error_advise(err, _("Did you mean '%s'?"), near);
            goto out;
        }
        first = 1;
    }
    if (!cfg->help && !cfg->version) {
        for (size_t i = 0; i < n_seen; i++) {
            if (!applies(seen[i], cfg->command)) {
                st = cfg->command == CU_CMD_NONE
                         ? cu_error_set(err, CU_E_USAGE, 0, _("Option --%s needs a command."),
                                        seen[i]->name)
                         : cu_error_set(err, CU_E_USAGE, 0,
                                        _("Option --%s does not apply to '%s'."), seen[i]->name,
                                        cu_command_name(cfg->command));
                goto out;
            }
        }
    }
    if (cfg->jobs == 0) {
        st = cu_error_set(err, CU_E_USAGE, 0, _("--jobs 0 would fetch nothing; give 1 or more."));
        goto out;
    }
    cu_strv_free(cfg->args);
    cfg->args = cu_xcalloc(pos.n + 1, sizeof(char *));
    cfg->n_args = 0;
    for (size_t i = first; i < pos.n; i++)
        cfg->args[cfg->n_args++] = cu_xstrdup(pos.v[i]);
    st = CU_OK;
out:
    free(seen);
    cu_strv_fini(&pos);
    return st;
}

/* The command @typed was most likely meant to be (a typo of at most two letters), or NULL. */
static const char *
nearest_command(const char *typed)
{
    const char *best = NULL;
    size_t bd = 3;
    for (size_t i = 0; i < CU_N_ELEMENTS(commands); i++) {
        size_t d = distance(typed, commands[i].name);
        if (d < bd)
            bd = d, best = commands[i].name;
    }
    return best;
}

void
cu_options_usage(FILE *out, enum cu_command cmd)
{
    if (cmd == CU_CMD_NONE) {
        fprintf(out, "%s\n\n", _("Usage: cudaup [COMMAND] [OPTIONS]"));
        fprintf(out, "%s\n\n",
                _("Without a command, on a terminal, cudaup starts the setup wizard."));
        fprintf(out, "%s\n", _("Commands:"));
        for (size_t i = 0; i < CU_N_ELEMENTS(commands); i++) {
            CU_AUTOFREE char *left = cu_xasprintf("%s %s", commands[i].name, commands[i].args);
            fprintf(out, "  %-22s %s\n", left, _(commands[i].help));
        }
        fprintf(out, "\n%s\n", _("Options every command takes:"));
    } else {
        for (size_t i = 0; i < CU_N_ELEMENTS(commands); i++)
            if (commands[i].cmd == cmd)
                fprintf(out, _("Usage: cudaup %s%s%s [OPTIONS]\n%s\n\n"), commands[i].name, *commands[i].args ? " " : "",
                        commands[i].args, _(commands[i].help));
        fprintf(out, "%s\n", _("Options:"));
    }
    for (size_t i = 0; i < CU_N_ELEMENTS(options); i++) {
        const struct opt *o = &options[i];
        bool every = o->commands == ALL_CMDS;
        if (cmd == CU_CMD_NONE ? !every : !(o->commands & C(cmd)))
            continue;
        char left[64];
        snprintf(left, sizeof(left), "%s%c%s--%s%s%s", o->short_name ? "-" : "",
                 o->short_name ? o->short_name : ' ', o->short_name ? ", " : " ", o->name,
                 o->metavar ? " " : "", o->metavar ? o->metavar : "");
        fprintf(out, "  %-28s %s\n", o->short_name ? left : left + 2, _(o->help));
    }
    if (cmd == CU_CMD_NONE) {
        fprintf(out, "\n%s\n", _("Run 'cudaup COMMAND --help' for the options of a command."));
        fprintf(out, "%s\n", _("Exit status: 0 success, 1 a step failed, 2 bad usage or input, 3 this system cannot satisfy the request, 4 problems remain, 130 interrupted."));
    }
}
