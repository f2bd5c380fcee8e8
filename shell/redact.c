/*
 * redact.c: env.secret values out of the streams the outer relays
 * (redact.h).
 *
 * The bytes held back from the last call and the new ones are scanned
 * as one: for each value its next occurrence is found with memmem (and
 * found again only once the scan has passed it), the earliest one
 * (the longest at the same place) becomes the marker, until none is
 * left; then the longest tail that is a proper prefix of a value is
 * kept (found by memchr of each value's first byte in its last
 * len - 1 bytes), and everything before it goes out.  No state but the
 * held tail, so any split of a stream gives the same output.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "redact.h"

#define MARK_NAME_MAX 64

struct pat {
	char *v; /* the value */
	size_t len;
	char mark[sizeof("[aisb: redacted ]") + MARK_NAME_MAX];
	size_t mlen;
	size_t next; /* scan: its next occurrence, or SIZE_MAX */
};

struct redact {
	struct pat *p;
	size_t n;
	size_t minlen, maxlen, maxmark;
	char *hold; /* maxlen - 1 bytes of room */
	size_t held;
	char *w; /* scratch: hold + input */
	size_t wcap;
};

void
redact_free(struct redact *r)
{
	if (r == NULL)
		return;
	for (size_t i = 0; i < r->n; i++) {
		explicit_bzero(r->p[i].v, r->p[i].len);
		free(r->p[i].v);
	}
	free(r->p);
	if (r->hold)
		explicit_bzero(r->hold, r->maxlen);
	free(r->hold);
	if (r->w)
		explicit_bzero(r->w, r->wcap);
	free(r->w);
	free(r);
}

int
redact_new(char *const *env, struct redact **ret)
{
	struct redact *r;
	size_t n = 0;

	*ret = NULL;
	for (size_t i = 0; env && env[i]; i++)
		n++;
	r = calloc(1, sizeof(*r));
	if (r == NULL || (n && (r->p = calloc(n, sizeof(*r->p))) == NULL)) {
		free(r);
		return -ENOMEM;
	}
	r->minlen = SIZE_MAX;
	for (size_t i = 0; i < n; i++) {
		const char *eq = strchr(env[i], '=');
		struct pat *p = &r->p[r->n];
		size_t len;
		int k;

		if (eq == NULL)
			continue;
		len = strlen(eq + 1);
		if (len < REDACT_MIN || len > REDACT_MAX)
			continue;
		p->v = malloc(len);
		if (p->v == NULL) {
			redact_free(r);
			return -ENOMEM;
		}
		memcpy(p->v, eq + 1, len);
		p->len = len;
		k = snprintf(p->mark, sizeof(p->mark), "[aisb: redacted %.*s]",
		    (int)((size_t)(eq - env[i]) > MARK_NAME_MAX
		            ? MARK_NAME_MAX
		            : (size_t)(eq - env[i])),
		    env[i]);
		p->mlen = k > 0 ? (size_t)k : 0;
		if (len < r->minlen)
			r->minlen = len;
		if (len > r->maxlen)
			r->maxlen = len;
		if (p->mlen > r->maxmark)
			r->maxmark = p->mlen;
		r->n++;
	}
	if (r->n == 0) {
		redact_free(r);
		return 0;
	}
	r->hold = malloc(r->maxlen);
	if (r->hold == NULL) {
		redact_free(r);
		return -ENOMEM;
	}
	*ret = r;
	return 0;
}

size_t
redact_room(const struct redact *r, size_t n)
{
	size_t all = r->held + n;

	/* Each marker replaces at least minlen bytes. */
	return all + all / r->minlen * r->maxmark + 1;
}

size_t
redact_room_max(const struct redact *r, size_t n)
{
	size_t all = r->maxlen + n;

	return all + all / r->minlen * r->maxmark + 1;
}

size_t
redact_held(const struct redact *r)
{
	return r->held;
}

static size_t
find(const char *w, size_t from, size_t len, const struct pat *p)
{
	const char *q;

	if (from >= len || len - from < p->len)
		return SIZE_MAX;
	q = memmem(w + from, len - from, p->v, p->len);
	return q ? (size_t)(q - w) : SIZE_MAX;
}

/* The longest tail of w[from..len) that is a proper prefix of a value. */
static size_t
tail(const struct redact *r, const char *w, size_t from, size_t len)
{
	size_t best = 0;

	for (size_t i = 0; i < r->n; i++) {
		const struct pat *p = &r->p[i];
		size_t s = len - from < p->len - 1 ? from : len - (p->len - 1);
		const char *q;

		/* The earliest start that matches is this value's longest. */
		while (
		    s < len && (q = memchr(w + s, p->v[0], len - s)) != NULL) {
			size_t at = (size_t)(q - w);

			if (memcmp(q, p->v, len - at) == 0) {
				if (len - at > best)
					best = len - at;
				break;
			}
			s = at + 1;
		}
	}
	return best;
}

size_t
redact_pass(const struct redact *r, const char *in, size_t n)
{
	size_t m = n, at, end;

	if (r->held > 0)
		return 0;
	/* The scan sends out, as they are, the bytes before the earliest
	 * value; with none, all but the tail it keeps.  A value that
	 * starts before m may end after it. */
	for (size_t i = 0; i < r->n; i++) {
		end =
		    m < n && n - m > r->p[i].len - 1 ? m + r->p[i].len - 1 : n;
		if ((at = find(in, 0, end, &r->p[i])) < m)
			m = at;
	}
	/* A tail that may begin a value, also one that begins before the
	 * earliest value found (a value inside a longer one). */
	end = n - tail(r, in, 0, n);
	return end < m ? end : m;
}

static void
put(char *out, size_t *o, const char *p, size_t n)
{
	memcpy(out + *o, p, n);
	*o += n;
}

/* The scan; final: no more input, nothing is held. */
static void
scan(struct redact *r, const char *in, size_t n, char *out, size_t *outlen,
    bool final)
{
	size_t len = r->held + n, pos = 0, o = 0, k;
	const char *w = in;

	if (r->held > 0) {
		if (len > r->wcap) {
			char *nw = malloc(len);

			if (nw == NULL) {
				/* No room to join: what is held goes out as
				 * it is (a split value then passes). */
				put(out, &o, r->hold, r->held);
				r->held = 0;
				put(out, &o, in, n);
				*outlen = o;
				return;
			}
			if (r->w) {
				explicit_bzero(r->w, r->wcap);
				free(r->w);
			}
			r->w = nw;
			r->wcap = len;
		}
		memcpy(r->w, r->hold, r->held);
		memcpy(r->w + r->held, in, n);
		w = r->w;
	}
	r->held = 0;
	for (size_t i = 0; i < r->n; i++)
		r->p[i].next = find(w, 0, len, &r->p[i]);
	for (;;) {
		struct pat *m = NULL;

		for (size_t i = 0; i < r->n; i++) {
			struct pat *p = &r->p[i];

			if (p->next < pos)
				p->next = find(w, pos, len, p);
			if (p->next != SIZE_MAX &&
			    (m == NULL || p->next < m->next ||
			        (p->next == m->next && p->len > m->len)))
				m = p;
		}
		if (m == NULL)
			break;
		if (!final && (k = tail(r, w, pos, len)) > 0 &&
		    len - k <= m->next) {
			/* A longer value may start at the match or before it
			 * and run to the end (a value inside another): once
			 * complete it covers the match.  Wait for it from its
			 * start. */
			put(out, &o, w + pos, len - k - pos);
			goto keep;
		}
		put(out, &o, w + pos, m->next - pos);
		put(out, &o, m->mark, m->mlen);
		pos = m->next + m->len;
	}
	k = final ? 0 : tail(r, w, pos, len);
	put(out, &o, w + pos, len - pos - k);
keep:
	memcpy(r->hold, w + len - k, k);
	r->held = k;
	*outlen = o;
}

void
redact_feed(
    struct redact *r, const char *in, size_t n, char *out, size_t *outlen)
{
	scan(r, in, n, out, outlen, false);
}

void
redact_flush(struct redact *r, char *out, size_t *outlen)
{
	scan(r, "", 0, out, outlen, true);
	explicit_bzero(r->hold, r->maxlen);
}
