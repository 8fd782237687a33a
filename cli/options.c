/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "options.h"

#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/base/i18n.h"
#include "core/base/jsonutil.h"
#include "core/base/mem.h"
#include "core/base/near.h"
#include "core/base/parse.h"
#include "core/base/str.h"
#include "term.h"

enum opt_type { OPT_BOOL, OPT_STRING, OPT_U64, OPT_COUNT };

enum opt_flags {
    OPT_ENV = 1 << 0,    /* also read from CUDAUP_<NAME> */
    OPT_FILE = 1 << 1,   /* also read from the config file */
    OPT_REPEAT = 1 << 2, /* given again on the command line, the values are kept, separated by ';' */
};

#define C(x) (1u << (x))
#define WIZ C(CU_CMD_NONE)
#define DOC C(CU_CMD_DOCTOR)
#define PLA C(CU_CMD_PLAN)
#define INS C(CU_CMD_INSTALL)
#define VER C(CU_CMD_VERIFY)
#define REP C(CU_CMD_REPAIR)
#define UNI C(CU_CMD_UNINSTALL)
#define LIS C(CU_CMD_LIST)
#define MIR C(CU_CMD_MIRROR)
#define EVERY (WIZ | DOC | PLA | INS | VER | REP | UNI | LIS | MIR)
#define COMMANDS (EVERY & ~WIZ)
#define PLANNING (WIZ | PLA | INS | MIR)     /* resolve a plan */
#define SETUP (WIZ | PLA | INS)              /* plan this machine's own set-up */
#define FETCHING (WIZ | PLA | INS | REP | LIS | MIR) /* reach the mirror */

/* How --help groups the options, in this order. */
enum opt_group { G_VERSIONS, G_PLACES, G_CHECKS, G_REMOVAL, G_DOWNLOADS, G_OUTPUT, G_WIZARD, G_COUNT };

static const char *const group_titles[G_COUNT] = {
    [G_VERSIONS] = N_("What to install:"), [G_PLACES] = N_("Where:"),     [G_CHECKS] = N_("Checks:"),
    [G_REMOVAL] = N_("Removal:"),          [G_DOWNLOADS] = N_("Downloads:"), [G_OUTPUT] = N_("Output and help:"),
    [G_WIZARD] = N_("The wizard's test options:"),
};

/*
 * The one table of which command reads which option: the parser accepts an option on the commands
 * in @reads and @also, and refuses it elsewhere; --help lists it on the commands in @reads only.
 * @also holds what DESIGN.md promises without the command acting on it: the options every
 * command takes (--mirror, -y, --log, ...) and the plan options `mirror` takes (--env-scope, ...),
 * so that one set of flags serves several commands.
 */
struct opt {
    const char *name;
    char short_name;
    enum opt_type type;
    size_t offset;
    unsigned flags;
    unsigned reads; /* bit per enum cu_command that acts on it */
    unsigned also;  /* bit per enum cu_command that accepts it and ignores it */
    enum opt_group group;
    const char *metavar;
    const char *help;
};

#define F(field) offsetof(struct cu_config, field)

/* Sorted by name: bsearch finds options, and --help lists them in this order within a group. */
static const struct opt options[] = {
    {"allow-inferred", 0, OPT_BOOL, F(allow_inferred), OPT_ENV | OPT_FILE, PLANNING, 0, G_VERSIONS, NULL,
     N_("plan a build whose GPU code is inferred, not read, as one whose code was read: a framework release newer than cudaup's catalog, learned from the package index, is then planned without a pin")},
    {"ca-cert", 0, OPT_STRING, F(ca_cert), OPT_ENV | OPT_FILE, FETCHING, 0, G_DOWNLOADS, "FILE",
     N_("CA certificates to trust for an https mirror (a TLS-inspecting proxy's); CURL_CA_BUNDLE and SSL_CERT_FILE are read too")},
    {"cache-dir", 0, OPT_STRING, F(cache_dir), OPT_ENV | OPT_FILE, FETCHING, EVERY, G_DOWNLOADS, "DIR",
     N_("where downloaded archives and manifests are kept (default $XDG_CACHE_HOME/cudaup, else ~/.cache/cudaup)")},
    {"components", 0, OPT_STRING, F(components), OPT_ENV | OPT_FILE, PLANNING, 0, G_VERSIONS, "LIST",
     N_("CUDA components: default (the default), all, or a comma list (names or groups)")},
    {"containers", 0, OPT_STRING, F(containers), OPT_ENV | OPT_FILE, SETUP, MIR, G_VERSIONS, "ENGINES",
     N_("make this host ready for GPU containers: docker, containerd, crio, podman (comma-separated), auto (every engine installed on this Linux) or none (the default): the NVIDIA Container Toolkit, each engine's configuration, the CDI spec kept fresh")},
    {"cuda", 0, OPT_STRING, F(cuda), OPT_ENV | OPT_FILE, PLANNING, 0, G_VERSIONS, "VER",
     N_("CUDA version: X.Y, an exact release, or auto (the default: the newest that fits)")},
    {"cudnn", 0, OPT_STRING, F(cudnn), OPT_ENV | OPT_FILE, PLANNING, 0, G_VERSIONS, "VER",
     N_("cuDNN version: X.Y, an exact release, auto (the default) or none")},
    {"deep", 0, OPT_BOOL, F(deep), 0, VER | REP, 0, G_CHECKS, NULL,
     N_("re-hash every installed file instead of comparing sizes and modes")},
    {"driver", 0, OPT_STRING, F(driver), OPT_ENV | OPT_FILE, SETUP, MIR, G_VERSIONS, "WHICH",
     N_("the NVIDIA driver: auto (default: install one where the machine has none that fits), keep, none, or a branch such as 580, 580-open, 580-proprietary")},
    {"driver-source", 0, OPT_STRING, F(driver_source), OPT_ENV | OPT_FILE, SETUP, MIR, G_VERSIONS, "SOURCE",
     N_("where the driver's packages come from: distro (the distribution's own) or nvidia (NVIDIA's repository); default: the distribution's where they carry a fitting branch")},
    {"env", 0, OPT_STRING, F(env), 0, VER, 0, G_CHECKS, "PATH|NAME",
     N_("check one Python environment, made by cudaup or not: a venv or conda environment's folder, or a conda environment's name (its frameworks import, and the CUDA libraries they map are the environment's own); no CUDA install is checked")},
    {"env-dir", 0, OPT_STRING, F(env_dir), OPT_ENV | OPT_FILE, SETUP, 0, G_PLACES, "DIR",
     N_("where a venv goes: DIR/NAME (default PREFIX/cudaup/envs when --prefix is given, else /opt/cudaup/envs as root, ~/.local/share/cudaup/envs otherwise)")},
    {"env-name", 0, OPT_STRING, F(env_name), OPT_ENV | OPT_FILE, SETUP, MIR, G_PLACES, "NAME",
     N_("name of the Python environment to create (default cudaup-FRAMEWORK); with --framework given again, one name each, comma-separated")},
    {"env-scope", 0, OPT_STRING, F(env_scope), OPT_ENV | OPT_FILE, SETUP, MIR, G_PLACES, "SCOPE",
     N_("where the environment variables go: user, system, conda or none (default system as root, user otherwise)")},
    {"env-tool", 0, OPT_STRING, F(env_tool), OPT_ENV | OPT_FILE, PLANNING, 0, G_PLACES, "TOOL",
     N_("Python environment tool: conda, mamba, micromamba, venv or none (default: conda or its kin when found, else venv)")},
    {"framework", 0, OPT_STRING, F(framework), OPT_ENV | OPT_FILE | OPT_REPEAT, PLANNING, 0, G_VERSIONS, "NAME[==VER]",
     N_("tensorflow (with Keras, the default), pytorch, jax or none; several, comma-separated, share one environment (pytorch,jax); given again, each gets an environment of its own")},
    {"gpu-timeout", 0, OPT_U64, F(gpu_timeout), OPT_ENV | OPT_FILE, VER | WIZ, 0, G_CHECKS, "SECONDS",
     N_("time limit of each GPU check (default 60)")},
    {"help", 'h', OPT_BOOL, F(help), 0, EVERY, 0, G_OUTPUT, NULL, N_("show this help")},
    {"index-timeout", 0, OPT_U64, F(index_timeout), OPT_ENV | OPT_FILE, PLANNING, 0, G_DOWNLOADS, "SECONDS",
     N_("how long the package index may take to answer, all its requests together, before cudaup plans offline (default 5; each connection gets 3 to be made)")},
    {"index-url", 0, OPT_STRING, F(index_url), OPT_ENV | OPT_FILE, PLANNING, 0, G_DOWNLOADS, "URL",
     N_("the framework's package index (default: PIP_INDEX_URL, else PyPI, and PyTorch's own index for its CUDA builds)")},
    {"iterations", 0, OPT_U64, F(iterations), 0, WIZ, 0, G_WIZARD, "N",
     N_("wizard: stop after N loop turns (for tests)")},
    {"jobs", 0, OPT_U64, F(jobs), OPT_ENV | OPT_FILE, WIZ | INS | REP | MIR, 0, G_DOWNLOADS, "N",
     N_("archives downloaded and unpacked at once (default 4)")},
    {"json", 0, OPT_BOOL, F(json), 0, COMMANDS, EVERY, G_OUTPUT, NULL,
     N_("print the result as one JSON document; progress goes to stderr")},
    {"keep-env", 0, OPT_BOOL, F(keep_env), 0, UNI, 0, G_REMOVAL, NULL,
     N_("keep the Python environment cudaup made for that CUDA (it is removed otherwise)")},
    {"keys-script", 0, OPT_STRING, F(keys_script), 0, WIZ, 0, G_WIZARD, "FILE",
     N_("wizard: read keystrokes from FILE (for tests)")},
    {"log", 0, OPT_STRING, F(log_file), OPT_ENV | OPT_FILE, WIZ | INS | VER | REP | UNI | MIR, EVERY, G_OUTPUT, "FILE",
     N_("write the log to FILE")},
    {"mirror", 0, OPT_STRING, F(mirror), OPT_ENV | OPT_FILE, FETCHING, EVERY, G_DOWNLOADS, "URL",
     N_("download from URL instead of NVIDIA's https://developer.download.nvidia.com/compute (https://, http:// or file://)")},
    {"no-color", 0, OPT_BOOL, F(no_color), OPT_ENV | OPT_FILE, EVERY, 0, G_OUTPUT, NULL,
     N_("do not colour the output")},
    {"non-interactive", 0, OPT_BOOL, F(non_interactive), 0, WIZ, 0, G_WIZARD, NULL,
     N_("never start the wizard")},
    {"offline", 0, OPT_BOOL, F(offline), OPT_ENV | OPT_FILE, PLANNING, 0, G_DOWNLOADS, NULL,
     N_("ask no package index and not NVIDIA's server: plan from cudaup's catalog, its cache and the --mirror given; install refuses a download the cache does not hold")},
    {"package", 0, OPT_STRING, F(package), OPT_ENV | OPT_FILE, MIR, 0, G_PLACES, "FILE",
     N_("mirror: also place cudaup's own package (.deb or .tar.gz from scripts/package) in DIR/cudaup/")},
    {"platform", 0, OPT_STRING, F(platform), OPT_ENV | OPT_FILE, PLANNING | LIS, 0, G_VERSIONS, "NAME",
     N_("linux-x86_64, linux-sbsa or linux-aarch64 (default: this machine)")},
    {"prefix", 0, OPT_STRING, F(prefix), OPT_ENV | OPT_FILE, SETUP | DOC | VER | REP | UNI | LIS, MIR, G_PLACES, "DIR",
     N_("install under DIR/cuda-X.Y (default /usr/local as root, ~/.local otherwise)")},
    {"python", 0, OPT_STRING, F(python), OPT_ENV | OPT_FILE, PLANNING, 0, G_VERSIONS, "VER",
     N_("Python version of the environment, X.Y (default: the newest the framework supports, up to 3.12)")},
    {"python-source", 0, OPT_STRING, F(python_source), OPT_ENV | OPT_FILE, PLANNING, 0, G_VERSIONS, "SOURCE",
     N_("where the venv's Python comes from: auto (default: one installed here, else cudaup brings one), system or cudaup")},
    {"quiet", 'q', OPT_BOOL, F(quiet), OPT_FILE, EVERY, 0, G_OUTPUT, NULL, N_("print only errors")},
    {"require-gpu", 0, OPT_BOOL, F(require_gpu), 0, VER, 0, G_CHECKS, NULL,
     N_("fail, not skip, the checks that need a GPU")},
    {"restart-engines", 0, OPT_BOOL, F(restart_engines), 0, INS, WIZ, G_VERSIONS, NULL,
     N_("with --yes, restart a container engine that runs containers (they stop) so that it reads its new configuration; without it that restart is left to you")},
    {"retries", 0, OPT_U64, F(retries), OPT_ENV | OPT_FILE, FETCHING, 0, G_DOWNLOADS, "N",
     N_("how often a failed download is tried again, waiting 1 s, 2 s, 4 s, ... up to 30 s in between (default 6: about a minute; 0: never); a missing file (404) or a refusal (403) is not retried")},
    {"root", 0, OPT_STRING, F(root), OPT_ENV, EVERY, EVERY, G_PLACES, "DIR",
     N_("read the machine from DIR instead of / (for tests and chroots)")},
    {"shell-rc", 0, OPT_STRING, F(shell_rc), OPT_ENV | OPT_FILE, SETUP | UNI, MIR, G_PLACES, "FILE",
     N_("the shell start-up file that sources the environment, scope user (default: ~/.bashrc, ~/.zshrc or fish's conf.d by $SHELL, else ~/.profile)")},
    {"state-dir", 0, OPT_STRING, F(state_dir), OPT_ENV | OPT_FILE, EVERY, 0, G_PLACES, "DIR",
     N_("where the log and env.sh are kept (default /var/lib/cudaup as root, $XDG_STATE_HOME/cudaup otherwise)")},
    {"toolkit", 0, OPT_STRING, F(toolkit), OPT_ENV | OPT_FILE, PLANNING, 0, G_VERSIONS, "KIND",
     N_("where the CUDA toolkit comes from: system (NVIDIA's archives under PREFIX; the default where a framework loads a system CUDA), wheels (no archive: NVIDIA's compiler wheels in the environment, beside the framework's own CUDA wheels; the default where every framework brings its own CUDA) or none (the framework alone)")},
    {"verbose", 'v', OPT_COUNT, F(verbose), 0, EVERY, 0, G_OUTPUT, NULL,
     N_("say more: the log's info lines and where each fact comes from (twice: debug)")},
    {"version", 0, OPT_BOOL, F(version), 0, EVERY, 0, G_OUTPUT, NULL, N_("print the version")},
    {"yes", 'y', OPT_BOOL, F(yes), 0, INS | REP | UNI, EVERY, G_OUTPUT, NULL,
     N_("answer yes: change the system without asking")},
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
    {"uninstall", CU_CMD_UNINSTALL, "VERSION|driver|containers|env", N_("remove a CUDA version cudaup installed, the driver it installed, its set-up of GPU containers, or an environment that holds its own CUDA toolkit")},
    {"list", CU_CMD_LIST, "[VERSION]", N_("versions known and installed")},
    {"mirror", CU_CMD_MIRROR, "DIR", N_("fill DIR as a site mirror: the plan's archives, the Python and the framework's wheels it needs")},
};

/* Two or three examples per command for --help (CU_CMD_NONE: the overview's). */
static const struct {
    enum cu_command cmd;
    const char *line;
    const char *help;
} examples[] = {
    {CU_CMD_NONE, "cudaup", N_("the setup wizard (on a terminal)")},
    {CU_CMD_NONE, "cudaup doctor", N_("what this machine has, and each problem with its fix")},
    {CU_CMD_NONE, "cudaup install --yes --framework pytorch", N_("CUDA, cuDNN and PyTorch that fit this machine, without asking")},
    {CU_CMD_DOCTOR, "cudaup doctor", N_("what this machine has, and each problem with its fix")},
    {CU_CMD_DOCTOR, "cudaup doctor --json > machine.json", N_("the same as one JSON document, for scripts")},
    {CU_CMD_PLAN, "cudaup plan", N_("the newest CUDA, cuDNN and TensorFlow that fit this machine")},
    {CU_CMD_PLAN, "cudaup plan --framework pytorch --cuda 12.4", N_("PyTorch with CUDA 12.4, or why it cannot be")},
    {CU_CMD_PLAN, "cudaup plan --framework none --json", N_("CUDA and cuDNN alone, as JSON")},
    {CU_CMD_INSTALL, "cudaup install --yes", N_("install what cudaup plan shows, without asking")},
    {CU_CMD_INSTALL, "cudaup install --framework jax --prefix /opt", N_("JAX, with CUDA in /opt/cuda-X.Y")},
    {CU_CMD_INSTALL, "cudaup install --yes --mirror https://mirror.lan/compute", N_("the same from a site mirror")},
    {CU_CMD_VERIFY, "cudaup verify", N_("check the active install (PREFIX/cuda)")},
    {CU_CMD_VERIFY, "cudaup verify 12.4 --deep", N_("check CUDA 12.4, re-hashing every file")},
    {CU_CMD_VERIFY, "cudaup verify --require-gpu --json", N_("fail where no GPU work could be done, as JSON")},
    {CU_CMD_REPAIR, "cudaup repair --yes", N_("restore the active install from its record")},
    {CU_CMD_REPAIR, "cudaup repair 12.4 --deep --yes", N_("re-hash CUDA 12.4's files and restore those that differ")},
    {CU_CMD_UNINSTALL, "cudaup uninstall 12.4 --yes", N_("remove CUDA 12.4, its cuDNN, its environment lines and its Python environment")},
    {CU_CMD_UNINSTALL, "cudaup uninstall 12.4 --keep-env", N_("the same, keeping the Python environment")},
    {CU_CMD_UNINSTALL, "cudaup uninstall env --yes", N_("remove the Python environment that holds its own CUDA toolkit (--toolkit wheels or none)")},
    {CU_CMD_LIST, "cudaup list", N_("the versions known and what is installed")},
    {CU_CMD_LIST, "cudaup list 12.4", N_("the releases of CUDA 12.4 and their components")},
    {CU_CMD_LIST, "cudaup list --mirror https://mirror.lan/compute", N_("what a site mirror holds")},
    {CU_CMD_MIRROR, "cudaup mirror /srv/mirror", N_("the archives of the default plan, laid out like NVIDIA's server")},
    {CU_CMD_MIRROR, "cudaup mirror /srv/mirror --cuda 12.4 --framework pytorch", N_("CUDA 12.4, its cuDNN and PyTorch's wheels")},
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
        /* An empty value is a script's unset variable, never a choice: --mirror "" once meant NVIDIA's
         * public server for an air-gapped site (issue 33).  (An empty CUDAUP_* variable means unset.) */
        if (value && !*value)
            return cu_error_set(err, CU_E_USAGE, 0, strcmp(o->name, "mirror") == 0
                                    ? _("%s--%s is empty: give the mirror's URL, or leave --mirror out to download from NVIDIA's server.")
                                    : _("%s--%s is empty: give it a value, or leave it out for the default."),
                                where, o->name);
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

static const char *nearest_command(const char *typed);
static const struct opt *nearest_option(const char *typed);

static bool
accepts_install(const struct opt *o)
{
    return ((o->reads | o->also) & C(CU_CMD_INSTALL)) != 0;
}

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

static bool
accepts(const struct opt *o, enum cu_command cmd)
{
    /* plan previews install: swapping one for the other in a command line never fails on a flag (issue 35). */
    if (cmd == CU_CMD_PLAN && accepts_install(o))
        return true;
    return ((o->reads | o->also) & C(cmd)) != 0;
}

enum cu_status
cu_options_parse(struct cu_config *cfg, int argc, char **argv, const char *const *envp,
                 struct cu_error *err)
{
    struct cu_strv pos;
    const struct opt **seen = cu_xcalloc((size_t)argc + 1, sizeof(*seen));
    bool dashdash = false;
    enum cu_status st;
    /* The first unknown option: said once the command is known, with the nearest name and that command's help. */
    CU_AUTOFREE char *unknown = NULL;
    const struct opt *near_opt = NULL;

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
                if (!unknown) {
                    unknown = cu_xasprintf("--%s", key);
                    near_opt = nearest_option(key);
                }
                /* `--frmework pytorch`: the word after a typo of an option that takes a value is its value. */
                const struct opt *nr = nearest_option(key);
                if (nr && !eq && (nr->type == OPT_STRING || nr->type == OPT_U64) && i + 1 < argc && argv[i + 1][0] != '-')
                    i++;
                continue;
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
            /* --framework A --framework B: one environment each, kept as "A;B" (an earlier value from the
             * config file or the environment is replaced by the command line's first). */
            bool again = false;
            for (size_t k = 0; k < n_seen && !again; k++)
                again = seen[k] == o && (o->flags & OPT_REPEAT);
            CU_AUTOFREE char *joined = NULL;
            if (again && val && *val) {
                char *old;
                memcpy(&old, (char *)cfg + o->offset, sizeof(old));
                joined = cu_xasprintf("%s;%s", old, val);
                val = joined;
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
                if (!unknown)
                    unknown = cu_xasprintf("-%c", *p);
                continue;
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
    if (unknown) {
        const char *name = cu_command_name(cfg->command);
        st = cu_error_set(err, CU_E_USAGE, 0, _("Unknown option '%s'."), unknown);
        if (near_opt && (cfg->command == CU_CMD_NONE || accepts(near_opt, cfg->command)))
            cfg->command == CU_CMD_NONE
                ? cu_error_advise(err, _("Did you mean '--%s'? 'cudaup --help' lists the options."), near_opt->name)
                : cu_error_advise(err, _("Did you mean '--%s'? 'cudaup %s --help' lists the options of %s."), near_opt->name,
                                  name, name);
        else
            cfg->command == CU_CMD_NONE
                ? cu_error_advise(err, "%s", _("'cudaup --help' lists the options."))
                : cu_error_advise(err, _("'cudaup %s --help' lists the options of %s."), name, name);
        goto out;
    }
    if (!cfg->help && !cfg->version) {
        for (size_t i = 0; i < n_seen; i++) {
            if (!accepts(seen[i], cfg->command)) {
                const char *name = cu_command_name(cfg->command);
                st = cfg->command == CU_CMD_NONE
                         ? cu_error_set(err, CU_E_USAGE, 0, _("Option --%s needs a command."),
                                        seen[i]->name)
                         : cu_error_set(err, CU_E_USAGE, 0,
                                        _("Option --%s does not apply to '%s' ('cudaup %s --help' lists the options it takes)."),
                                        seen[i]->name, name, name);
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
    cu_strv_free(cfg->given);
    cfg->given = cu_xcalloc((size_t)argc, sizeof(char *));
    for (int i = 1; i < argc; i++)
        cfg->given[i - 1] = cu_xstrdup(argv[i]);
    st = CU_OK;
out:
    free(seen);
    cu_strv_fini(&pos);
    return st;
}

/* The option @typed (without its dashes) was most likely meant to be: a typo of at most two letters (of a
 * name longer than three), or the one option it is the start of; NULL when none. */
static const struct opt *
nearest_option(const char *typed)
{
    const struct opt *best = NULL, *prefixed = NULL;
    size_t bd = 3, n_prefixed = 0;
    for (size_t i = 0; i < CU_N_ELEMENTS(options); i++) {
        size_t d = cu_edit_distance(typed, options[i].name);
        if (d < bd && strlen(options[i].name) > 3)
            bd = d, best = &options[i];
        if (strlen(typed) >= 3 && strncmp(options[i].name, typed, strlen(typed)) == 0)
            prefixed = &options[i], n_prefixed++;
    }
    return best ? best : n_prefixed == 1 ? prefixed : NULL;
}

/* The command @typed was most likely meant to be (a typo of at most two letters), or NULL. */
static const char *
nearest_command(const char *typed)
{
    const char *best = NULL;
    size_t bd = 3;
    for (size_t i = 0; i < CU_N_ELEMENTS(commands); i++) {
        size_t d = cu_edit_distance(typed, commands[i].name);
        if (d < bd)
            bd = d, best = commands[i].name;
    }
    return best;
}

bool
cu_options_listed(const char *name, enum cu_command cmd)
{
    const struct opt *o = find_long(name);
    return o && (cmd == CU_CMD_NONE ? ((o->reads | o->also) & COMMANDS) == COMMANDS : (o->reads & C(cmd)) != 0);
}

bool
cu_options_accepted(const char *name, enum cu_command cmd)
{
    const struct opt *o = find_long(name);
    return o && accepts(o, cmd);
}

const char *
cu_options_name(size_t i)
{
    return i < CU_N_ELEMENTS(options) ? options[i].name : NULL;
}

/* An option's help as @cmd reads it: --prefix is where installs go for the commands that plan one, and where
 * they are for those that look at them (issue 35). */
static const char *
option_help(const struct opt *o, enum cu_command cmd)
{
    if (strcmp(o->name, "prefix") == 0 && cmd != CU_CMD_NONE && !(C(cmd) & (PLANNING)))
        return _("where cudaup's installs are: DIR/cuda-X.Y (default /usr/local as root, ~/.local otherwise)");
    return _(o->help);
}

/* A group's heading on @cmd's help: what list shows and what mirror fills are not "what to install". */
static const char *
group_title(enum opt_group g, enum cu_command cmd)
{
    if (g == G_VERSIONS && cmd == CU_CMD_LIST)
        return _("Which releases:");
    if (g == G_VERSIONS && cmd == CU_CMD_MIRROR)
        return _("What the mirror holds:");
    return _(group_titles[g]);
}

/* "  -q, --quiet    print only errors", the help wrapped under itself at @width. */
static void
usage_option(FILE *out, const struct opt *o, enum cu_command cmd, int width)
{
    char left[64];
    snprintf(left, sizeof(left), "%s%c%s--%s%s%s", o->short_name ? "-" : "", o->short_name ? o->short_name : ' ',
             o->short_name ? ", " : " ", o->name, o->metavar ? " " : "", o->metavar ? o->metavar : "");
    const char *shown = o->short_name ? left : left + 2;
    if (width > 0 && width < 72) {
        /* Narrow: the help goes under the option, where a URL in it still fits a line. */
        fprintf(out, "  %s\n      ", shown);
        cu_print_wrapped_at(out, 6, 6, option_help(o, cmd), width);
        return;
    }
    fprintf(out, "  %-28s ", shown);
    cu_print_wrapped_at(out, 31 + (strlen(shown) > 28 ? strlen(shown) - 28 : 0), 31, option_help(o, cmd), width);
}

static void
usage_examples(FILE *out, enum cu_command cmd, int width)
{
    bool any = false;
    for (size_t i = 0; i < CU_N_ELEMENTS(examples); i++) {
        if (examples[i].cmd != cmd)
            continue;
        if (!any)
            fprintf(out, "\n%s\n", _("Examples:"));
        any = true;
        fprintf(out, "  %s\n      ", examples[i].line);
        cu_print_wrapped_at(out, 6, 6, _(examples[i].help), width);
    }
}

void
cu_options_usage(FILE *out, enum cu_command cmd, int width)
{
    if (cmd == CU_CMD_NONE) {
        fprintf(out, "%s\n\n", _("Usage: cudaup [COMMAND] [OPTIONS]"));
        cu_print_wrapped(out, "", _("Without a command, on a terminal, cudaup starts the setup wizard; it takes the options of 'install'."), width);
        fprintf(out, "\n%s\n", _("Commands:"));
        for (size_t i = 0; i < CU_N_ELEMENTS(commands); i++) {
            CU_AUTOFREE char *left = cu_xasprintf("%s %s", commands[i].name, commands[i].args);
            fprintf(out, "  %-22s ", left);
            cu_print_wrapped_at(out, 25, 25, _(commands[i].help), width);
        }
        fprintf(out, "\n%s\n", _("Options every command takes:"));
        /* DESIGN's list: each command takes them, though not each acts on all (see its --help). */
        for (size_t i = 0; i < CU_N_ELEMENTS(options); i++)
            if (cu_options_listed(options[i].name, CU_CMD_NONE))
                usage_option(out, &options[i], cmd, width);
        fprintf(out, "\n%s\n", _("Run 'cudaup COMMAND --help' for the options of a command."));
        usage_examples(out, cmd, width);
        fputc('\n', out);
        cu_print_wrapped(out, "", _("Exit status: 0 success, 1 a step failed, 2 bad usage or input, 3 this system cannot satisfy the request, 4 problems remain, 5 reboot and run cudaup again, 130 interrupted."), width);
        return;
    }
    for (size_t i = 0; i < CU_N_ELEMENTS(commands); i++) {
        if (commands[i].cmd != cmd)
            continue;
        fprintf(out, _("Usage: cudaup %s%s%s [OPTIONS]\n"), commands[i].name, *commands[i].args ? " " : "",
                commands[i].args);
        CU_AUTOFREE char *what = cu_xstrdup(_(commands[i].help));
        what[0] = (char)toupper((unsigned char)what[0]); /* a no-op on CJK */
        CU_AUTOFREE char *line = cu_str_sentence(what);
        cu_print_wrapped(out, "", line, width);
    }
    if (cmd == CU_CMD_UNINSTALL)
        cu_print_wrapped(out, "", _("'cudaup uninstall driver' removes what cudaup's driver install did (its packages, pin, sources and files; the kernels stay); of the options below it takes --root, --state-dir, --yes, --json and the output ones. The options of install (--framework, --cuda, ...) are not uninstall's."), width);
    if (cmd == CU_CMD_MIRROR)
        cu_print_wrapped(out, "", _("--containers is taken so that install's command line works here, but the mirror holds nothing for containers yet: the NVIDIA Container Toolkit's packages come from NVIDIA's repository on each machine (a repository layout of them in the mirror comes later)."), width);
    /* The options this command acts on, group by group; those it only tolerates are left out. */
    for (int g = 0; g < G_COUNT; g++) {
        bool any = false;
        for (size_t i = 0; i < CU_N_ELEMENTS(options); i++) {
            const struct opt *o = &options[i];
            if (o->group != (enum opt_group)g || !(o->reads & C(cmd)))
                continue;
            if (!any)
                fprintf(out, "\n%s\n", group_title((enum opt_group)g, cmd));
            any = true;
            usage_option(out, o, cmd, width);
        }
    }
    if (cmd == CU_CMD_PLAN) {
        /* Accepted and not read: listed apart, so that the help of plan names every flag it takes (issue 35 walk,
         * item 9: --jobs, --log and --yes were accepted but nowhere said). */
        struct cu_buf b;
        cu_buf_init(&b);
        for (size_t i = 0; i < CU_N_ELEMENTS(options); i++)
            if ((options[i].reads & C(CU_CMD_INSTALL)) && !(options[i].reads & C(CU_CMD_PLAN)))
                cu_buf_printf(&b, "%s--%s", b.len ? _(", ") : "", options[i].name);
        if (b.len) {
            CU_AUTOFREE char *also = cu_xasprintf(_("plan also takes install's %s, so that a command line can go from install to plan unchanged; they change nothing here."), b.data);
            fputc('\n', out);
            cu_print_wrapped(out, "", also, width);
        }
        cu_buf_fini(&b);
    }
    usage_examples(out, cmd, width);
}
