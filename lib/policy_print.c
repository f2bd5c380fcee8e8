/*
 * policy_print.c: the merged policy as text, for people (--print-policy),
 * for programs (--print-policy --json) and for the policy hash.
 *
 * Human form: one line per key, "key = value    # origin", values in
 * aisb.conf syntax.  JSON form (documented in shell/admin.c):
 *
 *	{"user": NAME, "hash": HEX, "files": [FILE...],
 *	 "keys": {KEY: {"value": V, "origin": "FILE:LINE"|"default"
 *	                [, "origins": [..] | {..}]}, ...}}
 *
 * The canonical form (the hash) is the "keys" object without origins.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cidr.h"
#include "hostpat.h"
#include "policy_internal.h"

struct em {
	FILE *out;
	int mode; /* 0 human, 1 JSON, 2 canonical */
	bool first;
	FILE *vf; /* the current value */
	char *vbuf;
	size_t vlen;
	bool lfirst; /* first element of a list */
};

void
policy_fmt_size(uint64_t v, char *buf, size_t len)
{
	static const char suf[] = "KMGT";
	int i;

	for (i = 3; i >= 0; i--) {
		uint64_t m = 1ULL << (10 * (i + 1));

		if (v != 0 && v % m == 0) {
			snprintf(buf, len, "%llu%c",
			    (unsigned long long)(v / m), suf[i]);
			return;
		}
	}
	snprintf(buf, len, "%llu", (unsigned long long)v);
}

/* The inside of a "..." string; pct: write '%' as %% (below). */
static void
qstr_body(FILE *f, const char *s, bool json, bool pct)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20 || c == 0x7f || (json && c >= 0x80))
			fprintf(f, json ? "\\u%04x" : "\\x%02x", c);
		else if (pct && c == '%')
			fputs("%%", f);
		else
			fputc(c, f);
	}
}

static void
qstr(FILE *f, const char *s, bool json)
{
	fputc('"', f);
	qstr_body(f, s, json, false);
	fputc('"', f);
}

/*
 * A string as aisb.conf reads it back (the human form): "..." with
 * backslash escapes, or '...' when it holds a '$', which aisb.conf
 * refuses outside single quotes (there only \\ and \' are escapes; the
 * values that may hold a '$' hold no control character, env.set's no
 * newline).  pct: the key expands %u and %h, so a '%' is written %%.
 */
static void
qconf(FILE *f, const char *s, bool pct)
{
	if (s == NULL)
		s = "";
	if (strchr(s, '$') == NULL) {
		fputc('"', f);
		qstr_body(f, s, false, pct);
		fputc('"', f);
		return;
	}
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'' || *s == '\\')
			fputc('\\', f);
		if (pct && *s == '%')
			fputc('%', f);
		fputc(*s, f);
	}
	fputc('\'', f);
}

static int
begin(struct em *e)
{
	e->vbuf = NULL;
	e->vlen = 0;
	e->vf = open_memstream(&e->vbuf, &e->vlen);
	return e->vf ? 0 : -errno;
}

/* A string value in the current form (pct: see qconf). */
static void
qval(struct em *e, const char *s, bool pct)
{
	if (e->mode != 0)
		qstr(e->vf, s ? s : "", true);
	else
		qconf(e->vf, s, pct);
}

static void
end(struct em *e, const char *key, const struct aisb_policy *p,
    const char *org_json_extra)
{
	const char *org = policy_origin(p, key);
	const struct policy_origin_ent *oe = policy_origin_find(p, key);
	size_t i;

	fclose(e->vf);
	e->vf = NULL;
	if (org == NULL)
		org = "default";
	if (e->mode == 0) {
		char line[64];
		int n = snprintf(line, sizeof(line), "%s = ", key);

		fprintf(e->out, "%s%s", line, e->vbuf ? e->vbuf : "");
		n += (int)e->vlen;
		fprintf(e->out, "%*s# %s\n", n < 44 ? 44 - n : 2, "", org);
	} else {
		fprintf(e->out, "%s\n    ", e->first ? "" : ",");
		qstr(e->out, key, true);
		fprintf(e->out, ": {\"value\": %s", e->vbuf ? e->vbuf : "null");
		if (e->mode == 1) {
			fputs(", \"origin\": ", e->out);
			qstr(e->out, org, true);
			if (org_json_extra != NULL) {
				fputs(org_json_extra, e->out);
			} else if (oe != NULL && oe->elem != NULL) {
				fputs(", \"origins\": [", e->out);
				for (i = 0; i < oe->nelem; i++) {
					if (i)
						fputs(", ", e->out);
					qstr(e->out, oe->elem[i], true);
				}
				fputc(']', e->out);
			}
		}
		fputc('}', e->out);
	}
	e->first = false;
	free(e->vbuf);
	e->vbuf = NULL;
}

static int
k_str(struct em *e, const struct aisb_policy *p, const char *key, const char *v,
    bool pct)
{
	int r = begin(e);

	if (r < 0)
		return r;
	qval(e, v, pct);
	end(e, key, p, NULL);
	return 0;
}

static int
k_num(struct em *e, const struct aisb_policy *p, const char *key, uint64_t v,
    const char *human)
{
	int r = begin(e);

	if (r < 0)
		return r;
	if (e->mode == 0 && human != NULL)
		fputs(human, e->vf);
	else
		fprintf(e->vf, "%llu", (unsigned long long)v);
	end(e, key, p, NULL);
	return 0;
}

static int
k_size(struct em *e, const struct aisb_policy *p, const char *key, uint64_t v)
{
	char buf[32];

	policy_fmt_size(v, buf, sizeof(buf));
	return k_num(e, p, key, v, buf);
}

static int
k_word(
    struct em *e, const struct aisb_policy *p, const char *key, const char *w)
{
	int r = begin(e);

	if (r < 0)
		return r;
	if (e->mode == 0)
		fputs(w, e->vf);
	else
		qstr(e->vf, w, true);
	end(e, key, p, NULL);
	return 0;
}

static int
k_bool(struct em *e, const struct aisb_policy *p, const char *key, bool b)
{
	int r = begin(e);

	if (r < 0)
		return r;
	fputs(b ? "true" : "false", e->vf);
	end(e, key, p, NULL);
	return 0;
}

static void
l_begin(struct em *e)
{
	fputs(e->mode == 0 ? "{" : "[", e->vf);
	e->lfirst = true;
}

static void
l_sep(struct em *e)
{
	if (!e->lfirst)
		fputs(", ", e->vf);
	e->lfirst = false;
}

static void
l_end(struct em *e)
{
	fputs(e->mode == 0 ? "}" : "]", e->vf);
}

static int
k_strv(struct em *e, const struct aisb_policy *p, const char *key,
    const struct aisb_strv *sv, bool pct)
{
	size_t i;
	int r = begin(e);

	if (r < 0)
		return r;
	l_begin(e);
	for (i = 0; i < sv->n; i++) {
		l_sep(e);
		qval(e, sv->v[i], pct);
	}
	l_end(e);
	end(e, key, p, NULL);
	return 0;
}

static int
k_rules(struct em *e, const struct aisb_policy *p, const char *key,
    const struct aisb_hostrule *h, size_t n)
{
	size_t i, j;
	int r = begin(e);

	if (r < 0)
		return r;
	l_begin(e);
	for (i = 0; i < n; i++) {
		char buf[HOST_MAX + 32 * 6 + 2];
		size_t o;

		o = (size_t)snprintf(buf, sizeof(buf), "%s", h[i].host);
		for (j = 0; j < h[i].nports && o < sizeof(buf); j++)
			o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%c%u",
			    j ? ',' : ':', (unsigned)h[i].ports[j]);
		l_sep(e);
		qval(e, buf, false);
	}
	l_end(e);
	end(e, key, p, NULL);
	return 0;
}

static int
k_cidrs(struct em *e, const struct aisb_policy *p, const char *key,
    const struct aisb_cidr *c, size_t n)
{
	size_t i;
	int r = begin(e);

	if (r < 0)
		return r;
	l_begin(e);
	for (i = 0; i < n; i++) {
		char buf[64];

		cidr_format(&c[i], buf, sizeof(buf));
		l_sep(e);
		qval(e, buf, false);
	}
	l_end(e);
	end(e, key, p, NULL);
	return 0;
}

static int
k_ports(struct em *e, const struct aisb_policy *p, const char *key,
    const uint16_t *v, size_t n)
{
	size_t i;
	int r = begin(e);

	if (r < 0)
		return r;
	l_begin(e);
	for (i = 0; i < n; i++) {
		l_sep(e);
		fprintf(e->vf, "%u", (unsigned)v[i]);
	}
	l_end(e);
	end(e, key, p, NULL);
	return 0;
}

/* Human form, a titled section with no entry: a comment, since aisb.conf
 * has no value for "none" (it is the default). */
static int
none(struct em *e, const char *key)
{
	fprintf(e->out, "# %s: none\n", key);
	e->first = false;
	return 0;
}

/*
 * Secrets: human form one line per secret ("env.secret.NAME.file =
 * ..."), JSON one key "env.secret" whose value maps NAME to its file
 * and whose "origins" maps NAME to where its file was set.
 */
static int
k_secrets(struct em *e, const struct aisb_policy *p)
{
	char key[300];
	size_t i;
	int r;

	if (e->mode == 0) {
		if (p->env.nsecrets == 0)
			return none(e, "env.secret");
		for (i = 0; i < p->env.nsecrets; i++) {
			snprintf(key, sizeof(key), "env.secret.%s.file",
			    p->env.secrets[i].name);
			if ((r = k_str(
			         e, p, key, p->env.secrets[i].file, true)) < 0)
				return r;
		}
		return 0;
	}
	{
		char *extra = NULL;
		size_t elen = 0;
		FILE *xf = open_memstream(&extra, &elen);

		if (xf == NULL || begin(e) < 0) {
			if (xf)
				fclose(xf);
			free(extra);
			return -ENOMEM;
		}
		fputc('{', e->vf);
		fputs(", \"origins\": {", xf);
		for (i = 0; i < p->env.nsecrets; i++) {
			const char *o;

			snprintf(key, sizeof(key), "env.secret.%s.file",
			    p->env.secrets[i].name);
			o = policy_origin(p, key);
			fputs(i ? ", " : "", e->vf);
			qstr(e->vf, p->env.secrets[i].name, true);
			fputs(": ", e->vf);
			qstr(e->vf, p->env.secrets[i].file, true);
			fputs(i ? ", " : "", xf);
			qstr(xf, p->env.secrets[i].name, true);
			fputs(": ", xf);
			qstr(xf, o ? o : "default", true);
		}
		fputc('}', e->vf);
		fputc('}', xf);
		fclose(xf);
		end(e, "env.secret", p, extra);
		free(extra);
	}
	return 0;
}

/* A host rule list as aisb.conf writes it, into the current value. */
static void
v_rules(struct em *e, const struct aisb_hostrule *h, size_t n)
{
	size_t i, j;

	l_begin(e);
	for (i = 0; i < n; i++) {
		char buf[HOST_MAX + 32 * 6 + 2];
		size_t o;

		o = (size_t)snprintf(buf, sizeof(buf), "%s", h[i].host);
		for (j = 0; j < h[i].nports && o < sizeof(buf); j++)
			o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%c%u",
			    j ? ',' : ':', (unsigned)h[i].ports[j]);
		l_sep(e);
		qval(e, buf, false);
	}
	l_end(e);
}

/*
 * Credentials: human form one line per key ("credential.NAME.file =
 * ..."), JSON one key "credential" whose value maps NAME to an object
 * of its keys and whose "origins" maps NAME to where its section began.
 * Only the file is shown, never a value.
 */
static int
k_creds(struct em *e, const struct aisb_policy *p)
{
	char key[300];
	size_t i;
	int r;

	if (e->mode == 0) {
		if (p->ncreds == 0)
			return none(e, "credential");
		for (i = 0; i < p->ncreds; i++) {
			const struct aisb_credential *c = &p->creds[i];

			snprintf(
			    key, sizeof(key), "credential.%s.file", c->name);
			if ((r = k_str(e, p, key, c->file, true)) < 0)
				return r;
			snprintf(
			    key, sizeof(key), "credential.%s.hosts", c->name);
			if ((r = k_rules(e, p, key, c->hosts, c->nhosts)) < 0)
				return r;
			snprintf(
			    key, sizeof(key), "credential.%s.header", c->name);
			if ((r = k_str(e, p, key, c->header, false)) < 0)
				return r;
			snprintf(
			    key, sizeof(key), "credential.%s.env", c->name);
			if ((r = k_str(e, p, key, c->env, false)) < 0)
				return r;
		}
		return 0;
	}
	{
		char *extra = NULL;
		size_t elen = 0;
		FILE *xf = open_memstream(&extra, &elen);

		if (xf == NULL || begin(e) < 0) {
			if (xf)
				fclose(xf);
			free(extra);
			return -ENOMEM;
		}
		fputc('{', e->vf);
		fputs(", \"origins\": {", xf);
		for (i = 0; i < p->ncreds; i++) {
			const struct aisb_credential *c = &p->creds[i];
			const char *o;

			snprintf(key, sizeof(key), "credential.%s", c->name);
			o = policy_origin(p, key);
			fputs(i ? ", " : "", e->vf);
			qstr(e->vf, c->name, true);
			fputs(": {\"file\": ", e->vf);
			qstr(e->vf, c->file, true);
			fputs(", \"hosts\": ", e->vf);
			v_rules(e, c->hosts, c->nhosts);
			fputs(", \"header\": ", e->vf);
			qstr(e->vf, c->header, true);
			fputs(", \"env\": ", e->vf);
			qstr(e->vf, c->env, true);
			fputc('}', e->vf);
			fputs(i ? ", " : "", xf);
			qstr(xf, c->name, true);
			fputs(": ", xf);
			qstr(xf, o ? o : "default", true);
		}
		fputc('}', e->vf);
		fputc('}', xf);
		fclose(xf);
		end(e, "credential", p, extra);
		free(extra);
	}
	return 0;
}

int
policy_write(const struct aisb_policy *p, FILE *f, int mode)
{
	struct em e = {.out = f, .mode = mode, .first = true};
	char cpu[32];
	size_t i;
	int r = 0;

	if (mode == 1) {
		fputs("{\n  \"user\": ", f);
		qstr(f, p->user, true);
		fputs(",\n  \"hash\": ", f);
		qstr(f, p->hash, true);
		fputs(",\n  \"files\": [", f);
		for (i = 0; p->prov && i < p->prov->nfiles; i++) {
			fputs(i ? ", " : "", f);
			qstr(f, p->prov->files[i], true);
		}
		fputs("],\n  \"keys\": {", f);
	} else if (mode == 2) {
		fputs("{\"keys\": {", f);
	} else {
		fprintf(f, "# aisb policy for user %s\n", p->user);
		for (i = 0; p->prov && i < p->prov->nfiles; i++)
			fprintf(f, "# read: %s\n", p->prov->files[i]);
		fprintf(f, "# hash: %s\n", p->hash);
	}
#define T(x)                                                                   \
	do {                                                                   \
		if ((r = (x)) < 0)                                             \
			return r;                                              \
	} while (0)
	T(k_str(&e, p, "shell", p->shell, false));
	T(k_str(&e, p, "hostname", p->hostname, false));
	T(k_strv(&e, p, "agents", &p->agents, false));
	T(k_str(&e, p, "project.path", p->project.path, true));
	T(k_strv(&e, p, "project.roots", &p->project.roots, true));
	T(k_str(&e, p, "project.target", p->project.target, false));
	T(k_bool(&e, p, "project.readonly", p->project.readonly));
	T(k_strv(&e, p, "project.protect", &p->project.protect, false));
	T(k_str(
	    &e, p, "home.path", p->home.tmpfs ? "tmpfs" : p->home.path, true));
	T(k_str(&e, p, "filesystem.root", p->fs.root, false));
	T(k_word(&e, p, "filesystem.view",
	    p->fs.view == AISB_VIEW_WHOLE_ROOT ? "whole-root-unsafe"
	                                       : "system"));
	T(k_strv(&e, p, "filesystem.hide", &p->fs.hide, true));
	T(k_strv(&e, p, "filesystem.readonly", &p->fs.readonly, true));
	T(k_strv(&e, p, "filesystem.readwrite", &p->fs.readwrite, true));
	T(k_size(&e, p, "filesystem.tmp_size", p->fs.tmp_size));
	T(k_strv(&e, p, "env.pass", &p->env.pass, false));
	T(k_strv(&e, p, "env.set", &p->env.set, false));
	T(k_secrets(&e, p));
	T(k_word(&e, p, "network.mode",
	    p->net.mode == AISB_NET_NONE ? "none" : "gated"));
	T(k_rules(&e, p, "network.allow", p->net.allow, p->net.nallow));
	T(k_rules(&e, p, "network.deny", p->net.deny, p->net.ndeny));
	T(k_cidrs(&e, p, "network.allow_cidr", p->net.allow_cidr,
	    p->net.nallow_cidr));
	T(k_ports(&e, p, "network.ports", p->net.ports, p->net.nports));
	T(k_bool(&e, p, "network.transparent", p->net.transparent));
	T(k_str(&e, p, "network.resolver", p->net.resolver, false));
	T(k_num(&e, p, "network.proxy_port", p->net.proxy_port, NULL));
	T(k_num(&e, p, "network.suffix_names", p->net.suffix_names, NULL));
	T(k_bool(&e, p, "network.notices", p->net.notices));
	T(k_str(&e, p, "network.ca_file", p->net.ca_file, false));
	T(k_creds(&e, p));
	T(k_size(&e, p, "limits.memory", p->limits.memory));
	T(k_num(&e, p, "limits.pids", p->limits.pids, NULL));
	snprintf(cpu, sizeof(cpu), "%u%%", p->limits.cpu);
	T(k_num(&e, p, "limits.cpu", p->limits.cpu, cpu));
	T(k_num(&e, p, "limits.nofile", p->limits.nofile, NULL));
	T(k_size(&e, p, "limits.fsize", p->limits.fsize));
	T(k_num(&e, p, "limits.timeout", p->limits.timeout, NULL));
	T(k_word(&e, p, "limits.enforce",
	    p->limits.enforce == AISB_ENFORCE_BEST_EFFORT ? "best-effort"
	                                                  : "strict"));
	T(k_word(&e, p, "limits.notices",
	    p->limits.notices == AISB_NOTICES_ALWAYS      ? "always"
	        : p->limits.notices == AISB_NOTICES_NEVER ? "never"
	                                                  : "terminal"));
	T(k_bool(&e, p, "terminal.filter", p->terminal.filter));
	T(k_strv(&e, p, "pam.services", &p->pam.services, false));
#undef T
	if (mode == 1)
		fputs("\n  }\n}\n", f);
	else if (mode == 2)
		fputs("}}\n", f);
	return ferror(f) ? -EIO : 0;
}

int
policy_print(const struct aisb_policy *p, int fd, bool json)
{
	FILE *f;
	int nfd, r;

	if (p == NULL)
		return -EINVAL;
	nfd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (nfd < 0)
		return -errno;
	f = fdopen(nfd, "w");
	if (f == NULL) {
		r = -errno;
		close(nfd);
		return r;
	}
	r = policy_write(p, f, json ? 1 : 0);
	if (fclose(f) != 0 && r == 0)
		r = -errno;
	return r;
}
