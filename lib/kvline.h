/*
 * kvline.h: one record line, "TYPE key=value key=value ...".
 *
 * The gate writes these to aisb-shell (its egress record), and
 * aisb-shell writes them to the session registry, which the admin forms
 * read back (docs/architecture.md, "The session registry").  Both
 * readers treat the bytes as hostile: the gate parses what the sandbox
 * sends, and the registry files belong to the agent's uid.
 *
 * TYPE and keys are [a-z_], at most 31 bytes.  A value is written as its
 * bytes when they are [A-Za-z0-9] or one of "._-:/@+,*[]()", and every
 * other byte (space, '%', '=', quotes, controls, non-ASCII) as %XX; an
 * empty value is "key=".  A line has no newline and is at most
 * KVLINE_MAX bytes.
 */
#ifndef AISB_KVLINE_H
#define AISB_KVLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KVLINE_MAX 2048
#define KVLINE_PAIRS 24

struct kvline {
	char *type;
	size_t n;
	struct {
		char *key;
		char *val; /* decoded, NUL-terminated */
	} kv[KVLINE_PAIRS];
};

/*
 * Append " key=escaped(val)" to buf (a NUL-terminated string of at
 * most len - 1 bytes).  false when it does not fit (buf then unchanged).
 */
bool kvline_add(char *buf, size_t len, const char *key, const char *val);
/* The same with a number. */
bool kvline_add_u64(char *buf, size_t len, const char *key, uint64_t v);

/*
 * Split line (NUL-terminated, modified in place: values are decoded
 * where they are) into l.  0, or -EINVAL for anything that is not a
 * well-formed line: a bad type or key, a duplicate key, more than
 * KVLINE_PAIRS pairs, a byte outside the value set, a bad or NUL %XX,
 * a line longer than KVLINE_MAX.
 */
int kvline_parse(char *line, struct kvline *l);

/* The value of key, or NULL. */
const char *kvline_get(const struct kvline *l, const char *key);

/*
 * The value of key as a decimal number <= max (no sign, no leading
 * zeros but "0", at most 20 digits).  0, -ENOENT when absent, -EINVAL.
 */
int kvline_u64(
    const struct kvline *l, const char *key, uint64_t max, uint64_t *ret);

#endif
