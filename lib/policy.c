/*
 * policy.c: the policy loader (policy.h) and the building of a policy
 * from a finished parse.  See aisb.conf(5).
 *
 * policy_load() reads the config file and the user's file in the
 * users.d beside it (policy_trust.c), parses both into one state, the
 * second merged over the first (policy_parse.c), and builds the
 * policy: each key's final values or its default, converted into
 * struct aisb_policy with the origin of each, then the secrets, the
 * checks that need more than one key and the hash over the canonical
 * form (policy_print.c).
 *
 * One concern past 800 lines: building a policy from a parse, one
 * function per section over the shared value lists (struct vals).
 * The credential sections are the largest; they move to their own
 * file once struct vals and its helpers are shared through
 * policy_internal.h.
 */
#define _GNU_SOURCE /* asprintf */
#include <arpa/inet.h>
#include <confuse.h>
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "aisb.h"
#include "cidr.h"
#include "hostpat.h"
#include "policy_internal.h"
#include "sha256.h"
#include "util.h"

/* ---- finish: defaults, conversion, cross-checks ---------------------- */

/* The final values of one key: canonical strings and their origins. */
struct vals {
	char **v;
	char **org;
	size_t n;
	const char *origin; /* of the key */
};

static void
vals_free(struct vals *vs)
{
	size_t i;

	for (i = 0; i < vs->n; i++) {
		free(vs->v[i]);
		free(vs->org[i]);
	}
	free(vs->v);
	free(vs->org);
	memset(vs, 0, sizeof(*vs));
}

static int
vals_add(struct vals *vs, const char *v, const char *org)
{
	char **a, **b;

	a = realloc(vs->v, (vs->n + 1) * sizeof(*a));
	if (a == NULL)
		return -ENOMEM;
	vs->v = a;
	b = realloc(vs->org, (vs->n + 1) * sizeof(*b));
	if (b == NULL)
		return -ENOMEM;
	vs->org = b;
	vs->v[vs->n] = strdup(v);
	vs->org[vs->n] = strdup(org);
	if (vs->v[vs->n] == NULL || vs->org[vs->n] == NULL) {
		free(vs->v[vs->n]);
		free(vs->org[vs->n]);
		return -ENOMEM;
	}
	vs->n++;
	return 0;
}

static cfg_t *
section_of(struct policy_parse *ps, const char *key, const char **name)
{
	const char *dot = strchr(key, '.');
	char sec[32];

	if (dot == NULL) {
		*name = key;
		return ps->cfg;
	}
	snprintf(sec, sizeof(sec), "%.*s", (int)(dot - key), key);
	*name = dot + 1;
	return cfg_getsec(ps->cfg, sec);
}

static int
gather(struct policy_parse *ps, const struct policy_keydef *kd, struct vals *vs)
{
	const char *org = policy_parse_assigned(ps, kd->key), *name, *why;
	cfg_t *sec;
	cfg_opt_t *opt;
	struct policy_slot *sl;
	size_t i, n;
	int r;

	memset(vs, 0, sizeof(*vs));
	if (org != NULL) {
		sec = section_of(ps, kd->key, &name);
		opt = sec ? cfg_getopt(sec, name) : NULL;
		if (opt == NULL)
			return -EINVAL;
		sl = policy_parse_slot(ps, opt);
		n = cfg_opt_size(opt);
		vs->origin = org;
		for (i = 0; i < n; i++) {
			const char *v = cfg_opt_getnstr(opt, (unsigned)i);
			const char *o =
			    sl && i < sl->n && sl->org[i] ? sl->org[i] : org;

			if (v != NULL && (r = vals_add(vs, v, o)) < 0)
				return r;
		}
		return 0;
	}
	vs->origin = "default";
	for (i = 0; kd->defl ? kd->defl[i] != NULL : i < 1; i++) {
		const char *d = kd->defl ? kd->defl[i] : kd->def;
		_cleanup_free_ char *c = NULL;

		if (d == NULL)
			break;
		r = policy_value_check(ps, kd->kind, d, &c, &why);
		if (r < 0) {
			policy_err(ps->errs,
			    "default: %s: %s (the default "
			    "needs a value for %%u or %%h; set the key)",
			    kd->key, why ? why : "invalid");
			return r;
		}
		if ((r = vals_add(vs, c, "default")) < 0)
			return r;
	}
	return 0;
}

static int
strv_set(struct aisb_strv *sv, const struct vals *vs)
{
	size_t i;

	sv->v = calloc(vs->n + 1, sizeof(char *));
	if (sv->v == NULL)
		return -ENOMEM;
	for (i = 0; i < vs->n; i++)
		if ((sv->v[i] = strdup(vs->v[i])) == NULL)
			return -ENOMEM;
	sv->n = vs->n;
	return 0;
}

static int
prov_add(struct policy_prov *pv, const char *key, const struct vals *vs,
    bool list, const char *origin)
{
	struct policy_origin_ent *ne, *e;
	size_t i;

	ne = realloc(pv->ent, (pv->n + 1) * sizeof(*ne));
	if (ne == NULL)
		return -ENOMEM;
	pv->ent = ne;
	e = &ne[pv->n];
	memset(e, 0, sizeof(*e));
	e->key = strdup(key);
	e->origin = strdup(origin ? origin : vs->origin);
	if (e->key == NULL || e->origin == NULL) {
		free(e->key);
		free(e->origin);
		return -ENOMEM;
	}
	pv->n++;
	if (list) {
		e->elem = calloc(vs->n + 1, sizeof(char *));
		if (e->elem == NULL)
			return -ENOMEM;
		for (i = 0; i < vs->n; i++)
			if ((e->elem[i] = strdup(vs->org[i])) == NULL)
				return -ENOMEM;
		e->nelem = vs->n;
	}
	return 0;
}

static uint64_t
u64_of(const char *s)
{
	uint64_t v = 0;
	const char *why;

	if (policy_value_size(s, &v, &why) < 0)
		return 0;
	return v;
}

static int
hostrules(const struct vals *vs, struct aisb_hostrule **out, size_t *n)
{
	size_t i;

	*out = calloc(vs->n + 1, sizeof(**out));
	if (*out == NULL)
		return -ENOMEM;
	*n = vs->n; /* zeroed entries free cleanly on failure */
	for (i = 0; i < vs->n; i++) {
		struct aisb_hostrule *h = &(*out)[i];
		char host[HOST_MAX + 1];
		uint16_t ports[32];
		size_t np;
		const char *why;

		if (policy_value_hostrule(vs->v[i], host, ports, &np, &why) < 0)
			return -EINVAL;
		h->host = strdup(host);
		h->src = strdup(vs->org[i]);
		if (np > 0) {
			h->ports = calloc(np, sizeof(uint16_t));
			if (h->ports == NULL)
				return -ENOMEM;
			memcpy(h->ports, ports, np * sizeof(uint16_t));
		}
		h->nports = np;
		if (h->host == NULL || h->src == NULL)
			return -ENOMEM;
	}
	return 0;
}

/* Convert key kd's values into the policy struct. */
static int
apply(struct policy_parse *ps, const struct policy_keydef *kd,
    const struct vals *vs)
{
	struct aisb_policy *p = ps->p;
	const char *k = kd->key, *v = vs->n ? vs->v[0] : "";
	const char *why;
	size_t i;
	bool b = false;

	if (kd->kind == PV_BOOL)
		(void)policy_value_bool(v, &b);
#define IS(name) (strcmp(k, name) == 0)
	if (IS("shell"))
		return (p->shell = strdup(v)) ? 0 : -ENOMEM;
	if (IS("hostname"))
		return (p->hostname = strdup(v)) ? 0 : -ENOMEM;
	if (IS("agents"))
		return strv_set(&p->agents, vs);
	if (IS("project.path"))
		return (p->project.path = strdup(v)) ? 0 : -ENOMEM;
	if (IS("project.roots"))
		return strv_set(&p->project.roots, vs);
	if (IS("project.target"))
		return (p->project.target = strdup(v)) ? 0 : -ENOMEM;
	if (IS("project.readonly")) {
		p->project.readonly = b;
		return 0;
	}
	if (IS("project.protect"))
		return strv_set(&p->project.protect, vs);
	if (IS("home.path")) {
		p->home.tmpfs = strcmp(v, "tmpfs") == 0;
		if (p->home.tmpfs)
			return 0;
		return (p->home.path = strdup(v)) ? 0 : -ENOMEM;
	}
	if (IS("filesystem.root"))
		return (p->fs.root = strdup(v)) ? 0 : -ENOMEM;
	if (IS("filesystem.view")) {
		p->fs.view = strcmp(v, "whole-root-unsafe") == 0
		    ? AISB_VIEW_WHOLE_ROOT
		    : AISB_VIEW_SYSTEM;
		return 0;
	}
	if (IS("filesystem.hide"))
		return strv_set(&p->fs.hide, vs);
	if (IS("filesystem.readonly"))
		return strv_set(&p->fs.readonly, vs);
	if (IS("filesystem.readwrite"))
		return strv_set(&p->fs.readwrite, vs);
	if (IS("filesystem.tmp_size")) {
		p->fs.tmp_size = u64_of(v);
		return 0;
	}
	if (IS("env.pass"))
		return strv_set(&p->env.pass, vs);
	if (IS("env.set"))
		return strv_set(&p->env.set, vs);
	if (IS("network.mode")) {
		p->net.mode =
		    strcmp(v, "none") == 0 ? AISB_NET_NONE : AISB_NET_GATED;
		return 0;
	}
	if (IS("network.allow"))
		return hostrules(vs, &p->net.allow, &p->net.nallow);
	if (IS("network.deny"))
		return hostrules(vs, &p->net.deny, &p->net.ndeny);
	if (IS("network.allow_cidr")) {
		p->net.allow_cidr = calloc(vs->n + 1, sizeof(struct aisb_cidr));
		if (p->net.allow_cidr == NULL)
			return -ENOMEM;
		for (i = 0; i < vs->n; i++)
			if (cidr_parse(vs->v[i], &p->net.allow_cidr[i], &why) <
			    0)
				return -EINVAL;
		p->net.nallow_cidr = vs->n;
		return 0;
	}
	if (IS("network.ports")) {
		p->net.ports = calloc(vs->n + 1, sizeof(uint16_t));
		if (p->net.ports == NULL)
			return -ENOMEM;
		for (i = 0; i < vs->n; i++)
			if (policy_value_port(
			        vs->v[i], &p->net.ports[i], &why) < 0)
				return -EINVAL;
		p->net.nports = vs->n;
		return 0;
	}
	if (IS("network.transparent")) {
		p->net.transparent = b;
		return 0;
	}
	if (IS("network.notices")) {
		p->net.notices = b;
		return 0;
	}
	if (IS("network.resolver")) {
		char canon[INET6_ADDRSTRLEN + 16];

		if (policy_value_resolver(v, &p->net.resolver_family,
		        p->net.resolver_addr, &p->net.resolver_port, canon,
		        sizeof(canon), &why) < 0)
			return -EINVAL;
		return (p->net.resolver = strdup(canon)) ? 0 : -ENOMEM;
	}
	if (IS("network.proxy_port"))
		return policy_value_port(v, &p->net.proxy_port, &why);
	if (IS("network.suffix_names")) {
		uint64_t n = u64_of(v);

		p->net.suffix_names = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
		return 0;
	}
	if (IS("network.ca_file"))
		return (p->net.ca_file = strdup(v)) ? 0 : -ENOMEM;
	if (IS("limits.memory")) {
		p->limits.memory = u64_of(v);
		return 0;
	}
	if (IS("limits.pids")) {
		p->limits.pids = u64_of(v);
		return 0;
	}
	if (IS("limits.cpu")) {
		p->limits.cpu = (unsigned)strtoul(v, NULL, 10);
		return 0;
	}
	if (IS("limits.nofile")) {
		p->limits.nofile = u64_of(v);
		return 0;
	}
	if (IS("limits.fsize")) {
		p->limits.fsize = u64_of(v);
		return 0;
	}
	if (IS("limits.timeout")) {
		p->limits.timeout = u64_of(v);
		return 0;
	}
	if (IS("limits.enforce")) {
		p->limits.enforce = strcmp(v, "best-effort") == 0
		    ? AISB_ENFORCE_BEST_EFFORT
		    : AISB_ENFORCE_STRICT;
		return 0;
	}
	if (IS("limits.notices")) {
		p->limits.notices = strcmp(v, "always") == 0
		    ? AISB_NOTICES_ALWAYS
		    : strcmp(v, "never") == 0 ? AISB_NOTICES_NEVER
		                              : AISB_NOTICES_TERMINAL;
		return 0;
	}
	if (IS("terminal.filter")) {
		p->terminal.filter = b;
		return 0;
	}
	if (IS("pam.services"))
		return strv_set(&p->pam.services, vs);
#undef IS
	return -EINVAL;
}

static int
secrets(struct policy_parse *ps)
{
	struct aisb_policy *p = ps->p;
	cfg_t *env = cfg_getsec(ps->cfg, "env");
	size_t n = env ? cfg_size(env, "secret") : 0, i;
	const char *last = NULL;
	char key[256];
	int r, bad = 0;

	p->env.secrets = calloc(n + 1, sizeof(*p->env.secrets));
	if (p->env.secrets == NULL)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		cfg_t *s = cfg_getnsec(env, "secret", (unsigned)i);
		const char *title = s ? cfg_title(s) : NULL;
		const char *file, *org, *forg;
		cfg_opt_t *fo;
		struct policy_slot *sl;
		struct vals vs = {0};

		if (s == NULL || title == NULL)
			continue;
		snprintf(key, sizeof(key), "env.secret.%s", title);
		org = policy_parse_assigned(ps, key);
		if (org == NULL)
			org = "?";
		last = org;
		if (!policy_value_env_name(title, false)) {
			policy_err(ps->errs,
			    "%s: env.secret: '%s' is not an "
			    "environment name ([A-Za-z_][A-Za-z0-9_]*)",
			    org, title);
			bad++;
			continue;
		}
		fo = cfg_getopt(s, "file");
		file = fo && cfg_opt_size(fo) ? cfg_opt_getnstr(fo, 0) : NULL;
		if (file == NULL) {
			policy_err(
			    ps->errs, "%s: %s: 'file' is required", org, key);
			bad++;
			continue;
		}
		sl = policy_parse_slot(ps, fo);
		forg = sl && sl->n && sl->org[0] ? sl->org[0] : org;
		p->env.secrets[p->env.nsecrets].name = strdup(title);
		p->env.secrets[p->env.nsecrets].file = strdup(file);
		if (p->env.secrets[p->env.nsecrets].name == NULL ||
		    p->env.secrets[p->env.nsecrets].file == NULL)
			return -ENOMEM;
		p->env.nsecrets++;
		vs.origin = org;
		if ((r = prov_add(ps->prov, key, &vs, false, NULL)) < 0)
			return r;
		snprintf(key, sizeof(key), "env.secret.%s.file", title);
		vs.origin = forg;
		if ((r = prov_add(ps->prov, key, &vs, false, NULL)) < 0)
			return r;
	}
	{
		struct vals vs = {0};

		vs.origin = last ? last : "default";
		if ((r = prov_add(ps->prov, "env.secret", &vs, false, NULL)) <
		    0)
			return r;
	}
	return bad ? -EINVAL : 0;
}

/* One key of a credential section: its option, the values and origins. */
static int
cred_key(struct policy_parse *ps, cfg_t *s, const char *title,
    const char *opt_name, const char *sec_org, struct vals *vs)
{
	cfg_opt_t *o = cfg_getopt(s, opt_name);
	struct policy_slot *sl;
	char key[256];
	size_t i, n;
	int r;

	memset(vs, 0, sizeof(*vs));
	/* The caller frees each vs[k] (vals_free), also on errors. */
	/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc): see util.h */
	n = o ? cfg_opt_size(o) : 0;
	snprintf(key, sizeof(key), "credential.%s.%s", title, opt_name);
	vs->origin = policy_parse_assigned(ps, key);
	if (vs->origin == NULL)
		vs->origin = sec_org;
	sl = o && n ? policy_parse_slot(ps, o) : NULL;
	for (i = 0; i < n; i++) {
		const char *v = cfg_opt_getnstr(o, (unsigned)i);
		const char *org =
		    sl && i < sl->n && sl->org[i] ? sl->org[i] : vs->origin;

		if (v != NULL && (r = vals_add(vs, v, org)) < 0)
			return r;
	}
	return 0;
}

/*
 * The credential NAME { file hosts header env } sections: every key is
 * required, hosts not empty; at most POLICY_MAX_CREDS.
 */
static int
credentials(struct policy_parse *ps)
{
	static const char *const keys[] = {"file", "hosts", "header", "env"};
	struct aisb_policy *p = ps->p;
	size_t n = cfg_size(ps->cfg, "credential"), i, k;
	const char *last = NULL;
	char key[256];
	int r, bad = 0;

	p->creds = calloc(n + 1, sizeof(*p->creds));
	if (p->creds == NULL)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		cfg_t *s = cfg_getnsec(ps->cfg, "credential", (unsigned)i);
		const char *title = s ? cfg_title(s) : NULL, *org, *why;
		struct aisb_credential *c = &p->creds[p->ncreds];
		struct vals vs[4];
		char hname[65], fmt[257];
		bool missing = false;

		if (s == NULL || title == NULL)
			continue;
		snprintf(key, sizeof(key), "credential.%s", title);
		org = policy_parse_assigned(ps, key);
		if (org == NULL)
			org = "?";
		last = org;
		if (!policy_value_cred_name(title)) {
			policy_err(ps->errs,
			    "%s: credential: '%s' is not a credential name "
			    "([A-Za-z0-9][A-Za-z0-9_.-]*, at most 64)",
			    org, title);
			bad++;
			continue;
		}
		if (p->ncreds == POLICY_MAX_CREDS) {
			policy_err(ps->errs,
			    "%s: credential: more than %d credentials", org,
			    POLICY_MAX_CREDS);
			bad++;
			break;
		}
		memset(vs, 0, sizeof(vs));
		for (k = 0; k < ELEMENTSOF(keys); k++) {
			if (cred_key(ps, s, title, keys[k], org, &vs[k]) < 0)
				goto nomem;
			if (vs[k].n == 0) {
				policy_err(ps->errs,
				    "%s: %s: '%s' is required%s", vs[k].origin,
				    key, keys[k],
				    k == 1 ? " (at least one host)" : "");
				missing = true;
			}
		}
		if (missing) {
			bad++;
			for (k = 0; k < ELEMENTSOF(keys); k++)
				vals_free(&vs[k]);
			continue;
		}
		if (policy_value_credheader(
		        vs[2].v[0], hname, fmt, &c->basic, &why) < 0) {
			for (k = 0; k < ELEMENTSOF(keys); k++)
				vals_free(&vs[k]);
			return -EINVAL; /* checked when parsed */
		}
		c->name = strdup(title);
		c->file = strdup(vs[0].v[0]);
		c->header = strdup(vs[2].v[0]);
		c->hname = strdup(hname);
		c->format = strdup(fmt);
		c->env = strdup(vs[3].v[0]);
		c->src = strdup(org);
		p->ncreds++;
		r = hostrules(&vs[1], &c->hosts, &c->nhosts);
		if (r == 0 &&
		    (!c->name || !c->file || !c->header || !c->hname ||
		        !c->format || !c->env || !c->src))
			r = -ENOMEM;
		if (r == 0) {
			struct vals sv = {.origin = org};

			r = prov_add(ps->prov, key, &sv, false, NULL);
		}
		for (k = 0; k < ELEMENTSOF(keys) && r == 0; k++) {
			snprintf(key, sizeof(key), "credential.%s.%s", title,
			    keys[k]);
			r = prov_add(ps->prov, key, &vs[k], k == 1, NULL);
		}
		for (k = 0; k < ELEMENTSOF(keys); k++)
			vals_free(&vs[k]);
		if (r < 0)
			return r;
		continue;
	nomem:
		for (k = 0; k < ELEMENTSOF(keys); k++)
			vals_free(&vs[k]);
		return -ENOMEM;
	}
	{
		struct vals vs = {0};

		vs.origin = last ? last : "default";
		if ((r = prov_add(ps->prov, "credential", &vs, false, NULL)) <
		    0)
			return r;
	}
	return bad ? -EINVAL : 0;
}

/* Checks that need more than one key. */
static int
cross_check(struct policy_parse *ps)
{
	struct aisb_policy *p = ps->p;
	int bad = 0;

	for (size_t i = 0; i < p->ncreds; i++) {
		const struct aisb_credential *c = &p->creds[i];
		char key[128];

		snprintf(key, sizeof(key), "credential.%s.env", c->name);
		if (p->net.mode != AISB_NET_GATED) {
			policy_err(ps->errs,
			    "%s: credential.%s: needs network.mode = "
			    "\"gated\" (the gate adds it to requests)",
			    c->src, c->name);
			bad++;
		}
		for (size_t j = 0; j < p->env.nsecrets; j++)
			if (strcmp(p->env.secrets[j].name, c->env) == 0) {
				policy_err(ps->errs,
				    "%s: %s: %s is also an env.secret",
				    policy_origin(p, key), key, c->env);
				bad++;
			}
		for (size_t j = 0; j < i; j++)
			if (strcmp(p->creds[j].env, c->env) == 0) {
				policy_err(ps->errs,
				    "%s: %s: %s is also the variable of "
				    "credential.%s",
				    policy_origin(p, key), key, c->env,
				    p->creds[j].name);
				bad++;
			}
	}
	if (p->net.proxy_port == 53 || p->net.proxy_port == AISB_CAPTURE_PORT) {
		policy_err(ps->errs,
		    "%s: network.proxy_port: %u is used by "
		    "the gate itself (DNS 53, capture %d)",
		    policy_origin(p, "network.proxy_port"),
		    (unsigned)p->net.proxy_port, AISB_CAPTURE_PORT);
		bad++;
	}
	return bad ? -EINVAL : 0;
}

int
policy_build(struct policy_parse *ps, struct aisb_policy **ret)
{
	struct aisb_policy *p;
	char *text = NULL;
	size_t tlen = 0, i;
	FILE *f;
	int r = 0, bad = 0;

	*ret = NULL;
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return -ENOMEM;
	p->prov = calloc(1, sizeof(*p->prov));
	if (p->prov == NULL || (p->user = strdup(ps->user)) == NULL) {
		policy_free(p);
		return -ENOMEM;
	}
	ps->p = p;
	ps->prov = p->prov;
	for (i = 0; i < policy_key_count; i++) {
		const struct policy_keydef *kd = &policy_key_table[i];
		struct vals vs;

		if (kd->type == PK_SECTION || kd->type == PK_TSECTION ||
		    strncmp(kd->key, "env.secret.", 11) == 0 ||
		    strncmp(kd->key, "credential.", 11) == 0)
			continue;
		r = gather(ps, kd, &vs);
		if (r == 0)
			r = apply(ps, kd, &vs);
		if (r == 0)
			r = prov_add(
			    p->prov, kd->key, &vs, kd->type == PK_LIST, NULL);
		vals_free(&vs);
		if (r == -ENOMEM)
			goto fail;
		if (r < 0)
			bad++;
	}
	r = secrets(ps);
	if (r == -ENOMEM)
		goto fail;
	if (r < 0)
		bad++;
	r = credentials(ps);
	if (r == -ENOMEM)
		goto fail;
	if (r < 0)
		bad++;
	p->prov->files = calloc(ps->nfiles + 1, sizeof(char *));
	if (p->prov->files == NULL) {
		r = -ENOMEM;
		goto fail;
	}
	for (i = 0; i < ps->nfiles; i++)
		if ((p->prov->files[p->prov->nfiles++] =
		            strdup(ps->files[i])) == NULL) {
			r = -ENOMEM;
			goto fail;
		}
	if (bad == 0 && cross_check(ps) < 0)
		bad++;
	if (bad > 0 || ps->errs->n > 0) {
		if (ps->errs->n == 0)
			policy_err(ps->errs,
			    "policy: internal error while "
			    "building the policy");
		r = -EINVAL;
		goto fail;
	}
	/* The hash covers the canonical form: values, not origins. */
	f = open_memstream(&text, &tlen);
	if (f == NULL) {
		r = -errno;
		goto fail;
	}
	r = policy_write(p, f, 2);
	if (fclose(f) != 0 && r == 0)
		r = -errno;
	if (r < 0) {
		free(text);
		goto fail;
	}
	sha256_hex(text, tlen, p->hash);
	free(text);
	ps->p = NULL;
	*ret = p;
	return 0;
fail:
	ps->p = NULL;
	policy_free(p);
	return r;
}

/* ---- public API ------------------------------------------------------- */

int
policy_load_buf(const char *name, const char *text, size_t len,
    const char *user, const char *home, struct aisb_policy **ret,
    struct policy_errs *errs)
{
	struct policy_parse *ps;
	int r;

	*ret = NULL;
	ps = policy_parse_new(user ? user : "nobody", home, errs);
	if (ps == NULL)
		return -ENOMEM;
	r = policy_parse_text(ps, name, text, len);
	if (r == 0)
		r = policy_parse_finish(ps, ret);
	policy_parse_free(ps);
	return r == -ENOMEM ? r : r < 0 ? -EINVAL : 0;
}

static char *
lookup_home(const char *user)
{
	struct passwd pw, *res = NULL;
	char buf[4096];

	if (getpwnam_r(user, &pw, buf, sizeof(buf), &res) != 0 || res == NULL)
		return NULL;
	return strdup(pw.pw_dir);
}

/*
 * The users.d directory that goes with the config file conf: DIR/users.d
 * beside it (DIR = the directory of conf), so /etc/aisb/users.d for the
 * installed AISB_CONF_PATH and the same shape for --config FILE, which
 * must be absolute.  This is the only place that rule is written: the
 * shell, the gate and the module all load through here, so a session
 * and its gate read the same files.
 */
static int
users_dir_for(const char *conf, char **udir, struct policy_errs *errs)
{
	const char *slash = strrchr(conf, '/');

	if (conf[0] != '/' || slash == NULL) {
		policy_err(errs, "--config needs an absolute path");
		return -EINVAL;
	}
	if (asprintf(udir, "%.*s/users.d", (int)(slash - conf), conf) < 0) {
		*udir = NULL;
		return -ENOMEM;
	}
	return 0;
}

int
policy_load(const struct policy_opts *opts, struct aisb_policy **ret,
    struct policy_errs *errs)
{
	struct policy_parse *ps = NULL;
	_cleanup_free_ char *buf = NULL, *home = NULL, *upath = NULL;
	_cleanup_free_ char *udir = NULL;
	const char *conf;
	size_t len;
	int r;

	*ret = NULL;
	if (opts == NULL || opts->user == NULL || opts->user[0] == '\0') {
		policy_err(errs, "policy: no user to load the policy for");
		return -EINVAL;
	}
	conf = opts->conf_path ? opts->conf_path : AISB_CONF_PATH;
	r = users_dir_for(conf, &udir, errs);
	if (r < 0)
		return r;
	if (opts->home == NULL)
		home = lookup_home(opts->user);
	/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc): see util.h */
	ps = policy_parse_new(opts->user, opts->home ? opts->home : home, errs);
	if (ps == NULL)
		return -ENOMEM;
	r = policy_trust_read(conf, opts->trusted_uid, false, &buf, &len, errs);
	if (r < 0)
		goto out;
	r = policy_parse_text(ps, conf, buf, len);
	free(buf);
	buf = NULL;
	if (r == -ENOMEM)
		goto out;
	/* The user's own file: absent is fine, present must be safe. */
	if (!opts->system_only && !ps->failed) {
		const char *u = opts->user;

		if (strchr(u, '/') != NULL || u[0] == '.') {
			policy_err(errs,
			    "policy: user name '%s' cannot name a "
			    "file in %s",
			    u, udir);
			r = -EINVAL;
			goto out;
		}
		if (asprintf(&upath, "%s/%s.conf", udir, u) < 0) {
			upath = NULL;
			r = -ENOMEM;
			goto out;
		}
		r = policy_trust_read(
		    upath, opts->trusted_uid, true, &buf, &len, errs);
		if (r == 0)
			r = policy_parse_text(ps, upath, buf, len);
		else if (r == -ENOENT)
			r = 0;
		if (r == -ENOMEM)
			goto out;
	}
	r = policy_parse_finish(ps, ret);
	if (r == 0 && policy_home_check(*ret, ps->home, errs) < 0) {
		policy_free(*ret);
		*ret = NULL;
		r = -EINVAL;
	}
out:
	policy_parse_free(ps);
	if (r == -ENOMEM)
		return r;
	return r < 0 || errs->n > 0 ? -EINVAL : 0;
}

static void
strv_free(struct aisb_strv *sv)
{
	size_t i;

	if (sv->v == NULL)
		return;
	for (i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
}

static void
rules_free(struct aisb_hostrule *r, size_t n)
{
	size_t i;

	if (r == NULL)
		return;
	for (i = 0; i < n; i++) {
		free(r[i].host);
		free(r[i].ports);
		free(r[i].src);
	}
	free(r);
}

void
policy_free(struct aisb_policy *p)
{
	size_t i, j;

	if (p == NULL)
		return;
	free(p->user);
	free(p->shell);
	free(p->hostname);
	strv_free(&p->agents);
	free(p->project.path);
	strv_free(&p->project.roots);
	free(p->project.target);
	strv_free(&p->project.protect);
	free(p->home.path);
	free(p->fs.root);
	strv_free(&p->fs.hide);
	strv_free(&p->fs.readonly);
	strv_free(&p->fs.readwrite);
	strv_free(&p->env.pass);
	strv_free(&p->env.set);
	for (i = 0; p->env.secrets && i < p->env.nsecrets; i++) {
		free(p->env.secrets[i].name);
		free(p->env.secrets[i].file);
	}
	free(p->env.secrets);
	for (i = 0; p->creds && i < p->ncreds; i++) {
		struct aisb_credential *c = &p->creds[i];

		free(c->name);
		free(c->file);
		rules_free(c->hosts, c->nhosts);
		free(c->header);
		free(c->hname);
		free(c->format);
		free(c->env);
		free(c->src);
	}
	free(p->creds);
	rules_free(p->net.allow, p->net.nallow);
	rules_free(p->net.deny, p->net.ndeny);
	free(p->net.ca_file);
	free(p->net.allow_cidr);
	free(p->net.ports);
	free(p->net.resolver);
	strv_free(&p->pam.services);
	if (p->prov != NULL) {
		for (i = 0; i < p->prov->n; i++) {
			struct policy_origin_ent *e = &p->prov->ent[i];

			free(e->key);
			free(e->origin);
			for (j = 0; j < e->nelem; j++)
				free(e->elem[j]);
			free(e->elem);
		}
		free(p->prov->ent);
		for (i = 0; i < p->prov->nfiles; i++)
			free(p->prov->files[i]);
		free(p->prov->files);
		free(p->prov);
	}
	free(p);
}

void
policy_errs_free(struct policy_errs *errs)
{
	size_t i;

	if (errs == NULL)
		return;
	for (i = 0; i < errs->n; i++)
		free(errs->msg[i]);
	free(errs->msg);
	errs->msg = NULL;
	errs->n = 0;
}

const struct policy_origin_ent *
policy_origin_find(const struct aisb_policy *p, const char *key)
{
	size_t i;

	if (p == NULL || p->prov == NULL || key == NULL)
		return NULL;
	for (i = 0; i < p->prov->n; i++)
		if (strcmp(p->prov->ent[i].key, key) == 0)
			return &p->prov->ent[i];
	return NULL;
}

const char *
policy_origin(const struct aisb_policy *p, const char *key)
{
	const struct policy_origin_ent *e = policy_origin_find(p, key);

	return e ? e->origin : NULL;
}

/*
 * Is user one of the agents: listed by name, or a member (primary or
 * supplementary) of a listed "@group"?  Unknown users and groups never
 * match.  Uses the _r lookups: this also runs inside sshd via the PAM
 * module.
 */
bool
policy_is_agent(const struct aisb_policy *p, const char *user)
{
	struct passwd pw, *pwr = NULL;
	char pbuf[4096];
	gid_t groups[256];
	int ngroups = (int)ELEMENTSOF(groups);
	bool have_groups = false;
	size_t i;

	if (p == NULL || user == NULL)
		return false;
	for (i = 0; i < p->agents.n; i++) {
		const char *a = p->agents.v[i];
		struct group gr, *grr = NULL;
		char gbuf[16384];
		int j;

		if (a[0] != '@') {
			if (strcmp(a, user) == 0)
				return true;
			continue;
		}
		if (!have_groups) {
			if (getpwnam_r(user, &pw, pbuf, sizeof(pbuf), &pwr) !=
			        0 ||
			    pwr == NULL)
				return false;
			/* Too many groups to list: fail towards "agent". */
			if (getgrouplist(user, pw.pw_gid, groups, &ngroups) < 0)
				return true;
			have_groups = true;
		}
		if (getgrnam_r(a + 1, &gr, gbuf, sizeof(gbuf), &grr) != 0 ||
		    grr == NULL)
			continue;
		for (j = 0; j < ngroups; j++)
			if (groups[j] == gr.gr_gid)
				return true;
	}
	return false;
}
