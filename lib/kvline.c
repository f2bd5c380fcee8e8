/*
 * kvline.c: record lines "TYPE key=value ...".  See kvline.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "kvline.h"

#define NAME_MAX_LEN 31

static bool
plain(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || (c != '\0' && strchr("._-:/@+,*[]()", c));
}

static bool
name_ok(const char *s, size_t n)
{
	if (n == 0 || n > NAME_MAX_LEN)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || s[i] == '_'))
			return false;
	return true;
}

bool
kvline_add(char *buf, size_t len, const char *key, const char *val)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t at = strlen(buf), k = strlen(key);
	size_t i = at;

	if (!name_ok(key, k) || at + 2 + k >= len)
		return false;
	buf[i++] = ' ';
	memcpy(buf + i, key, k);
	i += k;
	buf[i++] = '=';
	for (const unsigned char *p = (const unsigned char *)val; p && *p;
	     p++) {
		if (i + 4 > len) {
			buf[at] = '\0';
			return false;
		}
		if (plain(*p)) {
			buf[i++] = (char)*p;
		} else {
			buf[i++] = '%';
			buf[i++] = hex[*p >> 4];
			buf[i++] = hex[*p & 15];
		}
	}
	if (i >= len) {
		buf[at] = '\0';
		return false;
	}
	buf[i] = '\0';
	return true;
}

bool
kvline_add_u64(char *buf, size_t len, const char *key, uint64_t v)
{
	char n[24];

	snprintf(n, sizeof(n), "%" PRIu64, v);
	return kvline_add(buf, len, key, n);
}

static int
unhex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/*
 * Decode the value at v, which ends at the next space or NUL, in place.
 * Returns where the next pair starts (after the space) and sets *more
 * when a space was there; NULL for a byte or escape that is not ours.
 */
static char *
decode(char *v, bool *more)
{
	char *r = v, *w = v;

	for (; *r && *r != ' '; r++) {
		if (*r == '%') {
			int h = unhex(r[1]), l = h < 0 ? -1 : unhex(r[2]);

			if (h < 0 || l < 0 || (h == 0 && l == 0))
				return NULL;
			*w++ = (char)(h << 4 | l);
			r += 2;
		} else if (plain((unsigned char)*r)) {
			*w++ = *r;
		} else
			return NULL;
	}
	*more = *r == ' ';
	/* w <= r: the terminator may take the separator's place. */
	*w = '\0';
	return *more ? r + 1 : r;
}

int
kvline_parse(char *line, struct kvline *l)
{
	char *p = line, *sp;

	memset(l, 0, sizeof(*l));
	if (strnlen(line, KVLINE_MAX + 1) > KVLINE_MAX)
		return -EINVAL;
	sp = strchr(p, ' ');
	if (!name_ok(p, sp ? (size_t)(sp - p) : strlen(p)))
		return -EINVAL;
	l->type = p;
	if (sp == NULL)
		return 0;
	*sp = '\0';
	p = sp + 1;
	if (*p == '\0')
		return -EINVAL; /* a trailing space */
	while (*p) {
		char *eq = strchr(p, '='), *next;
		bool more = false;

		if (eq == NULL || l->n == KVLINE_PAIRS ||
		    !name_ok(p, (size_t)(eq - p)))
			return -EINVAL;
		*eq = '\0';
		for (size_t i = 0; i < l->n; i++)
			if (strcmp(l->kv[i].key, p) == 0)
				return -EINVAL;
		next = decode(eq + 1, &more);
		if (next == NULL || (more && (*next == '\0' || *next == ' ')))
			return -EINVAL;
		l->kv[l->n].key = p;
		l->kv[l->n].val = eq + 1;
		l->n++;
		p = next;
	}
	return 0;
}

const char *
kvline_get(const struct kvline *l, const char *key)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->kv[i].key, key) == 0)
			return l->kv[i].val;
	return NULL;
}

int
kvline_u64(const struct kvline *l, const char *key, uint64_t max, uint64_t *ret)
{
	const char *s = kvline_get(l, key);
	uint64_t v = 0;
	size_t n;

	if (s == NULL)
		return -ENOENT;
	n = strlen(s);
	if (n == 0 || n > 20 || (s[0] == '0' && n > 1))
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		if (v > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
			return -EINVAL;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (v > max)
		return -EINVAL;
	*ret = v;
	return 0;
}
