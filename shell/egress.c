/*
 * egress.c: aisb-shell --egress ID|USER [--since T] [--json] (root;
 * aisb-shell(8)): what a session reached and was refused, from its file
 * in the session registry, and for the refused names one
 * "network { allow += {...} }" line for users.d that the administrator
 * may paste after reading it.  Nothing is ever applied: the policy stays
 * the administrator's.
 *
 * A suggestion names exactly what was refused: "name:port" for a
 * connection (several ports of a name as "name:80,443"), the bare name
 * (network.ports then) for a DNS lookup that never came to a
 * connection.  Names come from the file, so each one is checked again
 * as a host name (hostpat_canon) before it is printed; what an allow
 * entry cannot fix (network.deny, IP literals, special-purpose
 * addresses) is said in a comment instead.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "aisb.h"
#include "args.h"
#include "hostpat.h"
#include "registry.h"
#include "report.h"
#include "util.h"

struct found {
	struct registry_rec *v;
	size_t n, cap;
	const struct report_target *t;
	time_t since;
	bool oom;
};

static int
collect(const struct registry_rec *r, void *ctx)
{
	struct found *f = ctx;
	struct registry_rec *c;

	if (!report_match(f->t, &r->s))
		return 0;
	if (f->since && r->end.ended && r->end.at < f->since)
		return 0;
	if (f->n == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 8;
		struct registry_rec *v = reallocarray(f->v, cap, sizeof(*v));

		if (v == NULL)
			goto oom;
		f->v = v;
		f->cap = cap;
	}
	c = &f->v[f->n];
	*c = *r;
	c->eg = NULL;
	c->neg = 0;
	if (r->neg) {
		c->eg = calloc(r->neg, sizeof(*c->eg));
		if (c->eg == NULL)
			goto oom;
		for (size_t i = 0; i < r->neg; i++)
			if (!f->since || r->eg[i].last >= f->since)
				c->eg[c->neg++] = r->eg[i];
	}
	f->n++;
	return 0;
oom:
	f->oom = true;
	return -ENOMEM;
}

static int
by_start(const void *a, const void *b)
{
	const struct registry_rec *x = a, *y = b;

	return x->s.started < y->s.started ? -1 : x->s.started > y->s.started;
}

static const char *
state_of(const struct registry_rec *r)
{
	if (r->end.ended)
		return "ended";
	return registry_alive(&r->s) ? "live" : "lost";
}

/* "3 allowed, 1 open, 2 denied" */
static void
decisions(const struct registry_egress *e, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
#define PART(v, what)                                                          \
	if ((v) && at < len)                                                   \
		at += (size_t)snprintf(buf + at, len - at, "%s%llu " what,     \
		    at ? ", " : "", (unsigned long long)(v));
	PART(e->allowed, "allowed")
	PART(e->open, "open")
	PART(e->denied, "denied")
	PART(e->failed, "failed")
	PART(e->lookups, "lookups")
#undef PART
	if (buf[0] == '\0')
		snprintf(buf, len, "-");
}

static const char *
rule_of(const struct registry_egress *e)
{
	if (e->denied || e->failed)
		return strcmp(e->rule, "unreachable") == 0 && e->why[0]
		    ? e->why
		    : registry_rule_text(e->rule);
	return e->why[0] ? e->why : e->rule;
}

static void
print_session(const struct registry_rec *r)
{
	char a[32], b[32], target[300], dec[160], bytes[48];
	const char *st = state_of(r);

	printf("session %s (user %s, uid %u)\n", r->s.id, r->s.user,
	    (unsigned)r->s.uid);
	printf("  started %s", report_time(r->s.started, a, sizeof(a)));
	if (strcmp(st, "ended") == 0)
		printf(", ended %s (%s, status %d)",
		    report_time(r->end.at, b, sizeof(b)), r->end.how,
		    r->end.status);
	else if (strcmp(st, "live") == 0)
		printf(", live");
	else
		printf(", gone without closing its record (killed or "
		       "crashed; last update %s)",
		    report_time(r->live.updated, b, sizeof(b)));
	printf("\n  peer %s, tty %s, network %s, project %s\n", r->s.peer,
	    r->s.tty, r->s.mode, r->s.project);
	printf("  bytes up %llu, down %llu; %llu connections open\n",
	    (unsigned long long)r->live.up, (unsigned long long)r->live.down,
	    (unsigned long long)r->live.open);
	if (r->neg == 0)
		printf("  no egress recorded\n");
	else
		printf("  %-40s %-28s %-21s %-17s %-19s %s\n", "NAME:PORT",
		    "DECISIONS", "BYTES UP/DOWN", "VIA", "LAST", "RULE");
	for (size_t i = 0; i < r->neg; i++) {
		const struct registry_egress *e = &r->eg[i];

		if (e->port)
			snprintf(target, sizeof(target), "%s:%u", e->name,
			    (unsigned)e->port);
		else
			snprintf(target, sizeof(target), "%s (dns)", e->name);
		decisions(e, dec, sizeof(dec));
		if (e->up || e->down)
			snprintf(bytes, sizeof(bytes), "%llu/%llu",
			    (unsigned long long)e->up,
			    (unsigned long long)e->down);
		else
			snprintf(bytes, sizeof(bytes), "-");
		printf("  %-40s %-28s %-21s %-17s %-19s %s\n", target, dec,
		    bytes, e->via, report_time(e->last, a, sizeof(a)),
		    rule_of(e));
	}
	if (r->drop_denied || r->drop_other)
		printf("  not recorded (the record holds %d names and ports): "
		       "%llu refused and %llu other decisions\n",
		    REGISTRY_EGRESS_MAX, (unsigned long long)r->drop_denied,
		    (unsigned long long)r->drop_other);
	if (r->live.hidden)
		printf("  %llu refusals were not shown on the session's "
		       "stderr (rate limit)\n",
		    (unsigned long long)r->live.hidden);
}

/* ---- the suggestion ---- */

struct sugg {
	char name[HOST_MAX + 1];
	uint16_t ports[16];
	size_t nports;
	bool bare; /* a DNS refusal only */
};

struct suggs {
	struct sugg *v;
	size_t n, cap;
	char **notes;
	size_t nnotes;
};

static struct sugg *
sugg_get(struct suggs *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i].name, name) == 0)
			return &s->v[i];
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		struct sugg *v = reallocarray(s->v, cap, sizeof(*v));

		if (v == NULL)
			return NULL;
		s->v = v;
		s->cap = cap;
	}
	memset(&s->v[s->n], 0, sizeof(s->v[0]));
	snprintf(s->v[s->n].name, sizeof(s->v[0].name), "%s", name);
	return &s->v[s->n++];
}

static void
note(struct suggs *s, const char *fmt, const char *name, unsigned port)
{
	char buf[400], **v;

	snprintf(buf, sizeof(buf), fmt, name, port);
	for (size_t i = 0; i < s->nnotes; i++)
		if (strcmp(s->notes[i], buf) == 0)
			return;
	v = reallocarray(s->notes, s->nnotes + 1, sizeof(*v));
	if (v == NULL)
		return;
	s->notes = v;
	if ((s->notes[s->nnotes] = strdup(buf)) != NULL)
		s->nnotes++;
}

static void
suggest(struct suggs *s, const struct registry_egress *e)
{
	char canon[HOST_MAX + 1];
	const char *why;
	struct sugg *g;

	if (e->denied == 0)
		return;
	if (strcmp(e->rule, "network.deny") == 0) {
		note(s,
		    "# %s (port %u) is refused by network.deny: an allow "
		    "entry does not override it",
		    e->name, e->port);
		return;
	}
	if (strcmp(e->rule, "network.allow_cidr") == 0 ||
	    strcmp(e->rule, "ip-literal") == 0 ||
	    hostpat_is_ip_literal(e->name, strlen(e->name))) {
		note(s,
		    "# %s (port %u) is an IP address: only "
		    "network.allow_cidr admits one",
		    e->name, e->port);
		return;
	}
	if (strcmp(e->rule, "special-address") == 0) {
		note(s,
		    "# %s (port %u) resolves only to special-purpose "
		    "addresses: see network.allow_cidr",
		    e->name, e->port);
		return;
	}
	/* A name past network.suffix_names is fixed by an exact entry too:
	 * exact entries never count against the bound. */
	if (strcmp(e->rule, "network.allow") != 0 &&
	    strcmp(e->rule, "network.ports") != 0 &&
	    strcmp(e->rule, "network.suffix_names") != 0)
		return;
	/* From a file the agent's uid wrote: only a real host name. */
	if (hostpat_canon(e->name, strlen(e->name), false, canon, &why) < 0 ||
	    strcmp(canon, e->name) != 0)
		return;
	g = sugg_get(s, canon);
	if (g == NULL)
		return;
	if (e->port == 0) {
		g->bare = true;
		return;
	}
	for (size_t i = 0; i < g->nports; i++)
		if (g->ports[i] == e->port)
			return;
	if (g->nports < ELEMENTSOF(g->ports))
		g->ports[g->nports++] = e->port;
}

static int
by_name(const void *a, const void *b)
{
	return strcmp(
	    ((const struct sugg *)a)->name, ((const struct sugg *)b)->name);
}

static int
by_port(const void *a, const void *b)
{
	return (int)*(const uint16_t *)a - (int)*(const uint16_t *)b;
}

/* The allow line into buf (empty when there is nothing to allow). */
static void
allow_line(struct suggs *s, char *buf, size_t len)
{
	size_t at = 0, k = 0;

	buf[0] = '\0';
	/* In name order: the same record gives the same line. */
	if (s->n > 1)
		qsort(s->v, s->n, sizeof(*s->v), by_name);
	for (size_t i = 0; i < s->n; i++) {
		struct sugg *g = &s->v[i];
		int w;

		if (g->nports == 0 && !g->bare)
			continue;
		w = snprintf(buf + at, len - at, "%s\"%s",
		    k++ ? ", " : "network { allow += {", g->name);
		if (w < 0 || (size_t)w >= len - at)
			goto full;
		at += (size_t)w;
		if (g->nports > 1)
			qsort(
			    g->ports, g->nports, sizeof(g->ports[0]), by_port);
		for (size_t j = 0; j < g->nports; j++) {
			w = snprintf(buf + at, len - at, "%c%u", j ? ',' : ':',
			    (unsigned)g->ports[j]);
			if (w < 0 || (size_t)w >= len - at)
				goto full;
			at += (size_t)w;
		}
		if (at + 1 >= len)
			goto full;
		buf[at++] = '"';
		buf[at] = '\0';
	}
	if (k && at + 4 < len)
		snprintf(buf + at, len - at, "} }");
	else if (k)
		goto full;
	return;
full:
	/* Too many names for one line: say so rather than cut one. */
	snprintf(buf, len,
	    "# too many refused names for one line: see the "
	    "list above");
}

static void
suggs_free(struct suggs *s)
{
	for (size_t i = 0; i < s->nnotes; i++)
		free(s->notes[i]);
	free(s->notes);
	free(s->v);
}

static void
print_json(const struct found *f, const char *allow, const struct suggs *s)
{
	printf("{\"sessions\": [");
	for (size_t i = 0; i < f->n; i++) {
		const struct registry_rec *r = &f->v[i];

		printf("%s\n {\"id\": ", i ? "," : "");
		report_json_str(stdout, r->s.id);
		report_json_field(stdout, "user", r->s.user);
		printf(", \"uid\": %u, \"pid\": %d, \"started\": %lld, "
		       "\"state\": \"%s\"",
		    (unsigned)r->s.uid, (int)r->s.pid, (long long)r->s.started,
		    state_of(r));
		if (r->end.ended) {
			printf(", \"ended\": {\"at\": %lld, \"status\": %d, "
			       "\"how\": ",
			    (long long)r->end.at, r->end.status);
			report_json_str(stdout, r->end.how);
			printf("}");
		} else
			printf(", \"ended\": null");
		report_json_field(stdout, "peer", r->s.peer);
		report_json_field(stdout, "tty", r->s.tty);
		report_json_field(stdout, "network", r->s.mode);
		report_json_field(stdout, "project", r->s.project);
		printf(", \"up\": %llu, \"down\": %llu, \"open\": %llu, "
		       "\"hidden\": %llu, \"dropped\": {\"denied\": %llu, "
		       "\"other\": %llu}, \"egress\": [",
		    (unsigned long long)r->live.up,
		    (unsigned long long)r->live.down,
		    (unsigned long long)r->live.open,
		    (unsigned long long)r->live.hidden,
		    (unsigned long long)r->drop_denied,
		    (unsigned long long)r->drop_other);
		for (size_t j = 0; j < r->neg; j++) {
			const struct registry_egress *e = &r->eg[j];

			printf("%s\n  {\"name\": ", j ? "," : "");
			report_json_str(stdout, e->name);
			printf(", \"port\": %u, \"via\": ", (unsigned)e->port);
			report_json_str(stdout, e->via);
			report_json_field(stdout, "rule", e->rule);
			printf(", \"allowed\": %llu, \"denied\": %llu, "
			       "\"failed\": %llu, \"lookups\": %llu, "
			       "\"open\": %llu, \"up\": %llu, \"down\": %llu, "
			       "\"first\": %lld, \"last\": %lld, \"why\": ",
			    (unsigned long long)e->allowed,
			    (unsigned long long)e->denied,
			    (unsigned long long)e->failed,
			    (unsigned long long)e->lookups,
			    (unsigned long long)e->open,
			    (unsigned long long)e->up,
			    (unsigned long long)e->down, (long long)e->first,
			    (long long)e->last);
			report_json_str(stdout, e->why);
			printf("}");
		}
		printf("]}");
	}
	printf("%s], \"suggestion\": ", f->n ? "\n" : "");
	if (allow[0] && allow[0] != '#')
		report_json_str(stdout, allow);
	else
		printf("null");
	printf(", \"notes\": [");
	for (size_t i = 0; i < s->nnotes; i++) {
		printf("%s", i ? ", " : "");
		report_json_str(stdout, s->notes[i]);
	}
	printf("]}\n");
}

int
egress_main(const struct aisb_args *a)
{
	struct report_target t;
	struct found f = {0};
	struct suggs s = {0};
	char allow[8192];
	const char *user = NULL;
	int r;

	if (!report_root("--egress"))
		return 2;
	if (report_target(a->target, &t) < 0)
		return 2;
	f.t = &t;
	if (a->since && report_since(a->since, time(NULL), &f.since) < 0) {
		fprintf(stderr,
		    "aisb-shell: --since '%s': want 30m, 2h, 7d, @EPOCH or "
		    "YYYY-MM-DD[ HH:MM[:SS]]\n",
		    a->since);
		return 2;
	}
	r = registry_scan(t.by_id ? (uid_t)-1 : t.uid, collect, &f);
	if (r < 0 && !f.oom) {
		fprintf(stderr, "aisb-shell: %s: %s\n", AISB_REGISTRY_DIR,
		    strerror(-r));
		return 1;
	}
	if (f.oom) {
		fprintf(stderr, "aisb-shell: out of memory\n");
		r = 1;
		goto out;
	}
	if (f.n == 0) {
		fprintf(stderr, "aisb-shell: no session record of %s%s\n",
		    a->target, a->since ? " in that time" : "");
		r = 1;
		goto out;
	}
	if (t.by_id && f.n > 1) {
		fprintf(stderr,
		    "aisb-shell: %s is the start of %zu sessions' ids: give "
		    "more of it\n",
		    a->target, f.n);
		r = 2;
		goto out;
	}
	if (f.n > 1)
		qsort(f.v, f.n, sizeof(*f.v), by_start);
	for (size_t i = 0; i < f.n; i++)
		for (size_t j = 0; j < f.v[i].neg; j++)
			suggest(&s, &f.v[i].eg[j]);
	allow_line(&s, allow, sizeof(allow));
	user = f.v[0].s.user;
	if (a->json) {
		print_json(&f, allow, &s);
	} else {
		for (size_t i = 0; i < f.n; i++) {
			if (i)
				printf("\n");
			print_session(&f.v[i]);
		}
		if (allow[0] || s.nnotes)
			printf("\nRefused names; to allow them, add this to "
			       "/etc/aisb/users.d/%s.conf after reading it\n"
			       "(aisb-shell never changes the policy "
			       "itself):\n\n",
			    user);
		for (size_t i = 0; i < s.nnotes; i++)
			printf("%s\n", s.notes[i]);
		if (allow[0])
			printf("%s\n", allow);
	}
	r = 0;
out:
	for (size_t i = 0; i < f.n; i++)
		registry_rec_free(&f.v[i]);
	free(f.v);
	suggs_free(&s);
	return r;
}
