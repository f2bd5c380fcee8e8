/*
 * policy_parse.c: config text into one libconfuse state, with the origin
 * ("FILE:LINE") of every value.  See policy_internal.h and aisb.conf(5).
 *
 * Order for each file: trust checks on the opened fd (policy_trust.c,
 * called by policy_load()), the pre-scan (policy_lex.c: '$', unknown
 * keys, comments blanked so libconfuse's line numbers are exact), then
 * libconfuse with an empty environment.  Every value goes through a
 * parse callback that checks it (policy_value.c), expands %u and %h
 * where the key allows, checks the result again and hands libconfuse
 * the canonical text, recording "FILE:LINE".  A value that fails is
 * reported and parsing goes on, so every value error of a file is
 * listed.  libconfuse stops at its own syntax errors (an unknown key, a
 * brace out of place); the pre-scan has already listed every such
 * problem it can see, so the report is still complete for the usual
 * mistakes.
 *
 * Merging: the user file is parsed into the same cfg_t after the system
 * file.  libconfuse then does what aisb.conf(5) promises: a scalar
 * overrides, "key = {...}" replaces a list, "key += {...}" appends, a
 * section is merged key by key.  A secret or credential name defined
 * twice (also across the two files) is an error (CFGF_NO_TITLE_DUPES).
 *
 * All options are declared as libconfuse strings: the types (sizes,
 * ports, booleans, ...) are ours, checked by our callbacks, so a wrong
 * type reads "limits.pids: not a number" rather than a generic message.
 *
 * policy_parse_finish() hands the state to policy_build() (policy.c),
 * which applies the defaults and builds the policy.
 */
#define _GNU_SOURCE /* asprintf */
#include <confuse.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy_internal.h"
#include "util.h"

extern char **environ;

struct policy_assign { /* where a key was last assigned */
	char *key;
	char *origin;
};

/* libconfuse has no user pointer for callbacks; parsing is serial. */
static __thread struct policy_parse *cur;

static char *
xstrdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* ---- provenance bookkeeping ---------------------------------------- */

struct policy_slot *
policy_parse_slot(struct policy_parse *ps, const cfg_opt_t *opt)
{
	struct policy_slot *ns;
	size_t i;

	for (i = 0; i < ps->nslots; i++)
		if (ps->slots[i].opt == opt)
			return &ps->slots[i];
	ns = realloc(ps->slots, (ps->nslots + 1) * sizeof(*ns));
	if (ns == NULL)
		return NULL;
	ps->slots = ns;
	memset(&ns[ps->nslots], 0, sizeof(*ns));
	ns[ps->nslots].opt = opt;
	return &ns[ps->nslots++];
}

/* Element idx of opt came from origin; later elements are gone. */
static void
slot_set(struct policy_parse *ps, const cfg_opt_t *opt, size_t idx,
    const char *origin)
{
	struct policy_slot *s = policy_parse_slot(ps, opt);
	char **no;

	if (s == NULL)
		return;
	while (s->n > idx)
		free(s->org[--s->n]);
	no = realloc(s->org, (idx + 1) * sizeof(*no));
	if (no == NULL)
		return;
	s->org = no;
	while (s->n < idx)
		s->org[s->n++] = NULL;
	s->org[s->n++] = xstrdup(origin);
}

static void
on_assign(void *arg, const char *key, int line)
{
	struct policy_parse *ps = arg;
	struct policy_assign *na;
	char *o = NULL;
	size_t i;

	if (asprintf(&o, "%s:%d", ps->fname, line) < 0)
		return;
	for (i = 0; i < ps->nasg; i++)
		if (strcmp(ps->asg[i].key, key) == 0) {
			free(ps->asg[i].origin);
			ps->asg[i].origin = o;
			return;
		}
	na = realloc(ps->asg, (ps->nasg + 1) * sizeof(*na));
	if (na == NULL || (na[ps->nasg].key = strdup(key)) == NULL) {
		if (na != NULL)
			ps->asg = na;
		free(o);
		return;
	}
	ps->asg = na;
	na[ps->nasg++].origin = o;
}

const char *
policy_parse_assigned(const struct policy_parse *ps, const char *key)
{
	size_t i;

	for (i = 0; i < ps->nasg; i++)
		if (strcmp(ps->asg[i].key, key) == 0)
			return ps->asg[i].origin;
	return NULL;
}

/* ---- libconfuse callbacks ------------------------------------------ */

static size_t
nopts(const cfg_t *cfg)
{
	size_t n = 0;

	while (cfg->opts[n].name != NULL)
		n++;
	return n;
}

/* Dotted key of opt in section cfg ("network.allow"). */
static void
dotted(const cfg_t *cfg, const cfg_opt_t *opt, char *buf, size_t len)
{
	if (cfg->name == NULL || strcmp(cfg->name, "root") == 0)
		snprintf(buf, len, "%s", opt->name);
	else if (strcmp(cfg->name, "secret") == 0)
		snprintf(buf, len, "env.secret.%s.%s",
		    cfg->title ? cfg->title : "?", opt->name);
	else if (strcmp(cfg->name, "credential") == 0)
		snprintf(buf, len, "credential.%s.%s",
		    cfg->title ? cfg->title : "?", opt->name);
	else
		snprintf(buf, len, "%s.%s", cfg->name, opt->name);
}

static void
verr(struct policy_parse *ps, int line, const char *key, const char *why)
{
	if (ps->lx != NULL && policy_lex_bad_line(ps->lx, line))
		return; /* the pre-scan already said it */
	policy_err(ps->errs, "%s:%d: %s: %s", ps->fname, line, key, why);
}

static int
on_value(cfg_t *cfg, cfg_opt_t *opt, const char *value, void *result)
{
	struct policy_parse *ps = cur;
	const struct policy_keydef *kd;
	char key[256], origin[PATH_MAX + 16];
	const char *why = NULL;
	char *canon = NULL;
	size_t idx;
	int r;

	*(const char **)result = value;
	if (ps == NULL || value == NULL)
		return -1;
	dotted(cfg, opt, key, sizeof(key));
	idx = opt->nvalues ? opt->nvalues - 1 : 0;
	if (opt < cfg->opts || opt >= cfg->opts + nopts(cfg)) {
		verr(ps, cfg->line, opt->name,
		    "'|' key paths are not "
		    "supported: write sections");
		return 0;
	}
	if (idx >= POLICY_MAX_LIST) {
		/* Stop here: bounded memory, and the file is wrong anyway. */
		verr(ps, cfg->line, key, "list longer than 1024 entries");
		return -1;
	}
	kd = policy_key_find(key);
	if (kd == NULL) {
		verr(ps, cfg->line, key, "unknown key");
		return 0;
	}
	r = policy_value_check(ps, kd->kind, value, &canon, &why);
	if (r == -ENOMEM)
		return -1;
	if (r < 0) {
		verr(ps, cfg->line, key, why ? why : "invalid value");
		return 0;
	}
	snprintf(origin, sizeof(origin), "%s:%d", ps->fname, cfg->line);
	slot_set(ps, opt, idx, origin);
	free(ps->scratch);
	ps->scratch = canon;
	*(const char **)result = canon;
	return 0;
}

static void
on_error(cfg_t *cfg, const char *fmt, va_list ap)
{
	struct policy_parse *ps = cur;
	char msg[512], arg[256] = "";
	const char *sec;

	if (ps == NULL)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	/*
	 * libconfuse stops at its first syntax error; when the pre-scan
	 * has already found what is wrong with this file, that error is a
	 * consequence (or a repeat) and would only confuse.
	 */
	if (ps->lx != NULL && ps->lx->nbad > 0)
		return;
	sec = cfg->name && strcmp(cfg->name, "root") != 0 ? cfg->name : NULL;
	if (sec != NULL && strcmp(sec, "secret") == 0)
		sec = "env.secret";
	if (sscanf(msg, "no such option '%255[^']'", arg) == 1)
		policy_err(ps->errs, "%s:%d: %s%s%s: unknown key", ps->fname,
		    cfg->line, sec ? sec : "", sec ? "." : "", arg);
	else if (sscanf(msg, "found duplicate title '%255[^']'", arg) == 1 &&
	    sec != NULL && strcmp(sec, "env") == 0)
		policy_err(ps->errs,
		    "%s:%d: env.secret.%s: secret defined "
		    "twice",
		    ps->fname, cfg->line, arg);
	else if (sscanf(msg, "found duplicate title '%255[^']'", arg) == 1)
		policy_err(ps->errs,
		    "%s:%d: credential.%s: credential defined "
		    "twice",
		    ps->fname, cfg->line, arg);
	else
		policy_err(ps->errs, "%s:%d: %s%ssyntax error: %s", ps->fname,
		    cfg->line, sec ? sec : "", sec ? ": " : "", msg);
}

/* ---- the libconfuse schema ------------------------------------------ */

#define S(n) CFG_STR_CB(n, NULL, CFGF_NODEFAULT, on_value)
#define L(n) CFG_STR_LIST_CB(n, NULL, CFGF_NODEFAULT, on_value)

static cfg_opt_t project_opts[] = {
    S("path"), L("roots"), S("target"), S("readonly"), L("protect"), CFG_END()};
static cfg_opt_t home_opts[] = {S("path"), CFG_END()};
static cfg_opt_t fs_opts[] = {S("root"), S("view"), L("hide"), L("readonly"),
    L("readwrite"), S("tmp_size"), CFG_END()};
static cfg_opt_t secret_opts[] = {S("file"), CFG_END()};
static cfg_opt_t env_opts[] = {L("pass"), L("set"),
    CFG_SEC(
        "secret", secret_opts, CFGF_MULTI | CFGF_TITLE | CFGF_NO_TITLE_DUPES),
    CFG_END()};
static cfg_opt_t net_opts[] = {S("mode"), L("allow"), L("deny"),
    L("allow_cidr"), L("ports"), S("transparent"), S("resolver"),
    S("proxy_port"), S("suffix_names"), S("notices"), S("ca_file"), CFG_END()};
static cfg_opt_t cred_opts[] = {
    S("file"), L("hosts"), S("header"), S("env"), CFG_END()};
static cfg_opt_t limits_opts[] = {S("memory"), S("pids"), S("cpu"), S("nofile"),
    S("fsize"), S("timeout"), S("enforce"), S("notices"), CFG_END()};
static cfg_opt_t terminal_opts[] = {S("filter"), CFG_END()};
static cfg_opt_t pam_opts[] = {L("services"), CFG_END()};
static cfg_opt_t root_opts[] = {S("shell"), S("hostname"), L("agents"),
    CFG_SEC("project", project_opts, CFGF_NONE),
    CFG_SEC("home", home_opts, CFGF_NONE),
    CFG_SEC("filesystem", fs_opts, CFGF_NONE),
    CFG_SEC("env", env_opts, CFGF_NONE),
    CFG_SEC("network", net_opts, CFGF_NONE),
    CFG_SEC(
        "credential", cred_opts, CFGF_MULTI | CFGF_TITLE | CFGF_NO_TITLE_DUPES),
    CFG_SEC("limits", limits_opts, CFGF_NONE),
    CFG_SEC("terminal", terminal_opts, CFGF_NONE),
    CFG_SEC("pam", pam_opts, CFGF_NONE), CFG_END()};

/* ---- parse ------------------------------------------------------------ */

struct policy_parse *
policy_parse_new(const char *user, const char *home, struct policy_errs *errs)
{
	struct policy_parse *ps = calloc(1, sizeof(*ps));

	if (ps == NULL)
		return NULL;
	ps->user = user;
	ps->home = home;
	ps->errs = errs;
	/*
	 * No CFGF_IGNORE_UNKNOWN (an unknown key is an error, never
	 * skipped) and no include function (a policy file never names
	 * another file to read).
	 */
	ps->cfg = cfg_init(root_opts, CFGF_NONE);
	if (ps->cfg == NULL) {
		free(ps);
		return NULL;
	}
	cfg_set_error_function(ps->cfg, on_error);
	return ps;
}

void
policy_parse_allow_dollar(struct policy_parse *ps)
{
	ps->allow_dollar = true;
}

int
policy_parse_text(
    struct policy_parse *ps, const char *name, const char *text, size_t len)
{
	struct policy_lexctx lx;
	_cleanup_free_ char *blank = NULL;
	char *empty_env[1] = {NULL}, **saved_env, **nf;
	size_t nerr, before = ps->errs->n;
	FILE *f;
	int r;

	if (ps->failed)
		return -EINVAL;
	if (len > POLICY_MAX_FILE) {
		policy_err(ps->errs,
		    "%s: larger than %d bytes: not a policy "
		    "file",
		    name, POLICY_MAX_FILE);
		ps->failed = true;
		return -EINVAL;
	}
	nf = realloc(ps->files, (ps->nfiles + 1) * sizeof(*nf));
	if (nf == NULL)
		return -ENOMEM;
	ps->files = nf;
	if ((ps->files[ps->nfiles] = strdup(name)) == NULL)
		return -ENOMEM;
	ps->fname = ps->files[ps->nfiles++];
	blank = malloc(len + 1);
	if (blank == NULL)
		return -ENOMEM;
	memset(&lx, 0, sizeof(lx));
	lx.name = ps->fname;
	lx.errs = ps->errs;
	lx.assign = on_assign;
	lx.arg = ps;
	lx.allow_dollar = ps->allow_dollar;
	nerr = policy_lex(&lx, text, len, blank);
	blank[len] = '\0';
	if (nerr > 0 && memchr(text, '\0', len) != NULL) {
		ps->failed = true;
		return -EINVAL;
	}
	if (len == 0)
		return 0;
	f = fmemopen(blank, len, "r");
	if (f == NULL)
		return -errno;
	ps->lx = &lx;
	cur = ps;
	/*
	 * libconfuse replaces ${VAR} with getenv("VAR") in unquoted and
	 * double-quoted values.  The pre-scan refuses '$' already; as a
	 * second layer the parse sees an empty environment.  We swap the
	 * pointer rather than clearenv(): this runs inside sshd or su
	 * through pam_aisb.so, whose environment must stay intact.
	 */
	saved_env = environ;
	environ = empty_env;
	r = cfg_parse_fp(ps->cfg, f);
	environ = saved_env;
	cur = NULL;
	ps->lx = NULL;
	fclose(f);
	if (r != CFG_SUCCESS) {
		/* A syntax error stops libconfuse; make sure it is said. */
		if (ps->errs->n == before)
			policy_err(ps->errs, "%s:%d: syntax error", ps->fname,
			    ps->cfg->line);
		ps->failed = true;
		return -EINVAL;
	}
	return ps->errs->n > before ? -EINVAL : 0;
}

void
policy_parse_free(struct policy_parse *ps)
{
	size_t i, j;

	if (ps == NULL)
		return;
	if (ps->cfg)
		cfg_free(ps->cfg);
	for (i = 0; i < ps->nslots; i++) {
		for (j = 0; j < ps->slots[i].n; j++)
			free(ps->slots[i].org[j]);
		free(ps->slots[i].org);
	}
	free(ps->slots);
	for (i = 0; i < ps->nasg; i++) {
		free(ps->asg[i].key);
		free(ps->asg[i].origin);
	}
	free(ps->asg);
	for (i = 0; i < ps->nfiles; i++)
		free(ps->files[i]);
	free(ps->files);
	free(ps->scratch);
	free(ps);
}

int
policy_parse_finish(struct policy_parse *ps, struct aisb_policy **ret)
{
	*ret = NULL;
	if (ps->failed || ps->errs->n > 0)
		return -EINVAL;
	return policy_build(ps, ret);
}
