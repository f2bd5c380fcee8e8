/*
 * suffix.c: the bound on names below a "*." allow entry.
 *
 * An exact allow entry names one host.  A "*.example.org" entry lets the
 * agent choose the labels in front of the suffix, and the gate looks
 * each such name up through the host's resolver, so the labels reach
 * that resolver and, through it, the suffix's name servers: a channel
 * out of the sandbox that no connection needs to succeed for.  The
 * channel is bounded here: at most network.suffix_names distinct names
 * below each "*." entry per session (per gate), counted when the DNS
 * stub answers for a name or the proxy or capture port is about to
 * look one up, whichever comes first.  A name already counted is free
 * again; the next new one is refused on all three paths, and the first
 * refusal of each entry is logged (docs/threat-model.md).
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "gate.h"

struct seen {
	uint32_t hash;
	char *name;
};

struct entry {
	struct seen *v;
	size_t n, cap;
	bool logged; /* the first refusal was logged */
};

static const struct aisb_policy *owner; /* the policy counted for */
static struct entry *entries; /* one per network.allow entry */
static size_t nentries;

static uint32_t
hash(const char *s)
{
	uint32_t h = 2166136261u; /* FNV-1a: an index, not a defence */

	while (*s)
		h = (h ^ (uint8_t)*s++) * 16777619u;
	return h;
}

static bool
has(const struct entry *e, uint32_t h, const char *name)
{
	for (size_t i = 0; i < e->n; i++)
		if (e->v[i].hash == h && strcmp(e->v[i].name, name) == 0)
			return true;
	return false;
}

bool
suffix_admit(const struct aisb_policy *p, size_t idx, const char *name)
{
	const struct aisb_hostrule *r = &p->net.allow[idx];
	uint32_t h = hash(name);
	struct entry *e;

	if (p->net.suffix_names == 0 || r->host[0] != '*')
		return true;
	if (entries == NULL || owner != p || nentries != p->net.nallow) {
		suffix_reset();
		entries = calloc(p->net.nallow, sizeof(*entries));
		if (entries == NULL)
			return false; /* fail closed */
		nentries = p->net.nallow;
		owner = p;
	}
	e = &entries[idx];
	if (has(e, h, name))
		return true;
	if (e->n >= p->net.suffix_names) {
		if (!e->logged) {
			e->logged = true;
			record_suffix_bound(
			    r->host, r->src, (unsigned)p->net.suffix_names);
		}
		return false;
	}
	if (e->n == e->cap) {
		size_t cap = e->cap ? e->cap * 2 : 16;
		struct seen *nv = realloc(e->v, cap * sizeof(*nv));

		if (nv == NULL)
			return false;
		e->v = nv;
		e->cap = cap;
	}
	e->v[e->n].name = strdup(name);
	if (e->v[e->n].name == NULL)
		return false;
	e->v[e->n++].hash = h;
	return true;
}

void
suffix_reset(void)
{
	for (size_t i = 0; entries && i < nentries; i++) {
		for (size_t j = 0; j < entries[i].n; j++)
			free(entries[i].v[j].name);
		free(entries[i].v);
	}
	free(entries);
	entries = NULL;
	nentries = 0;
	owner = NULL;
}
