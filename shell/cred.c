/*
 * cred.c: reading the credential files and making their placeholders.
 * See cred.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cred.h"
#include "log.h"
#include "session.h"
#include "util.h"

/* A refusal of c's file: "FILE:LINE: credential.NAME.file: text". */
static int cred_refuse(const struct aisb_policy *p,
    const struct aisb_credential *c, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
cred_refuse(const struct aisb_policy *p, const struct aisb_credential *c,
    const char *fmt, ...)
{
	char key[128], msg[1024];
	const char *org;
	va_list ap;

	snprintf(key, sizeof(key), "credential.%s.file", c->name);
	org = policy_origin(p, key);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return log_errno(
	    -SESSION_EPOLICY, "%s: %s: %s", org ? org : "?", key, msg);
}

/* The value of c into v->value (at most POLICY_CRED_MAX bytes). */
static int
cred_read_one(const struct aisb_policy *p, const struct aisb_credential *c,
    struct cred_value *v)
{
	struct policy_errs errs = {0};
	_cleanup_close_ int fd = -1;
	struct stat st;
	size_t len = 0, i;
	ssize_t n = 0;
	char *buf;
	int r;

	r = policy_open_trusted(c->file, &fd, &errs);
	if (r < 0) {
		if (r != -ENOMEM)
			r = cred_refuse(
			    p, c, "%s", errs.n ? errs.msg[0] : strerror(-r));
		policy_errs_free(&errs);
		return r;
	}
	if (fstat(fd, &st) < 0)
		return log_errno(-errno, "%s: %m", c->file);
	/*
	 * aisb-shell reads it as the agent's uid, so the agent's group
	 * may read it; nobody else needs to.
	 */
	if (st.st_mode & 0007)
		return cred_refuse(p, c,
		    "%s: unsafe: accessible by other (mode %04o); chmod o= it",
		    c->file, (unsigned)(st.st_mode & 07777));
	buf = malloc(POLICY_CRED_MAX + 2);
	if (buf == NULL)
		return -ENOMEM;
	/* To EOF, one byte past the limit to notice a bigger file. */
	while (len <= POLICY_CRED_MAX) {
		n = read(fd, buf + len, POLICY_CRED_MAX + 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	if (n < 0) {
		r = -errno;
		explicit_bzero(buf, POLICY_CRED_MAX + 2);
		free(buf);
		return log_errno(r, "%s: read: %m", c->file);
	}
	if (len > 0 && buf[len - 1] == '\n')
		len--;
	if (len > 0 && buf[len - 1] == '\r')
		len--;
	r = 0;
	if (len > POLICY_CRED_MAX)
		r = cred_refuse(
		    p, c, "%s: larger than %d bytes", c->file, POLICY_CRED_MAX);
	else if (len == 0)
		r = cred_refuse(p, c, "%s: empty", c->file);
	for (i = 0; r == 0 && i < len; i++)
		if ((unsigned char)buf[i] <= 0x20 ||
		    (unsigned char)buf[i] >= 0x7f)
			r = cred_refuse(p, c,
			    "%s: byte %zu is not visible ASCII (a value "
			    "that goes in an HTTP header)",
			    c->file, i + 1);
	if (r < 0) {
		explicit_bzero(buf, POLICY_CRED_MAX + 2);
		free(buf);
		return r;
	}
	buf[len] = '\0';
	v->value = buf;
	v->vlen = len;
	v->dev = st.st_dev;
	v->ino = st.st_ino;
	return 0;
}

static int
random_bytes(unsigned char *b, size_t n)
{
	while (n > 0) {
		ssize_t k = getrandom(b, n, 0);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		b += k;
		n -= (size_t)k;
	}
	return 0;
}

/* A uniform character of set (n < 256 characters), from one byte. */
static int
pick(const char *set, size_t n, char *out)
{
	unsigned char b;
	int r;

	/* Rejection sampling: no bias towards the first characters. */
	do {
		if ((r = random_bytes(&b, 1)) < 0)
			return r;
	} while (b >= 256 - 256 % n);
	*out = set[b % n];
	return 0;
}

int
cred_placeholder(const char *value, size_t len, char *out, size_t outlen)
{
	static const char lower[] = "abcdefghijklmnopqrstuvwxyz";
	static const char upper[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
	static const char digit[] = "0123456789";
	static const char alnum[] = "abcdefghijklmnopqrstuvwxyz"
	                            "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	size_t pre = 0, i, o, nrand = 0, want;
	const char *hex;
	bool hexl, hexu;
	int r = 0;

	if (outlen < len + CRED_MIN_RANDOM + 1)
		return -ENOSPC;
	/* A prefix such as "sk-ant-api03-" or "ghp_": not secret. */
	for (i = 0; i < len && i < 16 && i < len / 3; i++)
		if (value[i] == '-' || value[i] == '_')
			pre = i + 1;
	if (pre > 0)
		memcpy(out, value, pre);
	/*
	 * Hexadecimal (in one case) stays hexadecimal; otherwise each byte
	 * gets a random one of its class (lower, upper, digit).
	 */
	for (i = pre, hexl = hexu = true; i < len; i++) {
		hexl = hexl && strchr("0123456789abcdef", value[i]) != NULL;
		hexu = hexu && strchr("0123456789ABCDEF", value[i]) != NULL;
	}
	hex = hexl ? "0123456789abcdef" : hexu ? "0123456789ABCDEF" : NULL;
	if (hexl && hexu)
		hex = NULL; /* digits only: they stay digits */
	for (i = o = pre; i < len; i++, o++) {
		char c = value[i];

		if (hex != NULL)
			r = pick(hex, 16, &out[o]);
		else if (c >= 'a' && c <= 'z')
			r = pick(lower, sizeof(lower) - 1, &out[o]);
		else if (c >= 'A' && c <= 'Z')
			r = pick(upper, sizeof(upper) - 1, &out[o]);
		else if (c >= '0' && c <= '9')
			r = pick(digit, sizeof(digit) - 1, &out[o]);
		else {
			out[o] = c;
			continue;
		}
		if (r < 0)
			return r;
		nrand++;
	}
	/* Too short to be unique: longer, of the same alphabet. */
	want = nrand < CRED_MIN_RANDOM ? CRED_MIN_RANDOM - nrand : 0;
	for (i = 0; i < want; i++, o++)
		if ((r = hex ? pick(hex, 16, &out[o])
		             : pick(alnum, sizeof(alnum) - 1, &out[o])) < 0)
			return r;
	out[o] = '\0';
	/* Never the value itself (a chance of one in 10^19 or less). */
	if (o == len && memcmp(out, value, len) == 0)
		return cred_placeholder(value, len, out, outlen);
	return (int)o;
}

int
cred_read(const struct aisb_policy *p, struct cred_set *ret)
{
	struct cred_set cs = {0};
	size_t i;
	int r;

	*ret = cs;
	if (p->ncreds == 0)
		return 0;
	cs.v = calloc(p->ncreds, sizeof(*cs.v));
	if (cs.v == NULL)
		return -ENOMEM;
	for (i = 0; i < p->ncreds; i++) {
		struct cred_value *v = &cs.v[i];

		cs.n = i + 1;
		if ((r = cred_read_one(p, &p->creds[i], v)) < 0)
			goto fail;
		v->placeholder = malloc(v->vlen + CRED_MIN_RANDOM + 1);
		if (v->placeholder == NULL) {
			r = -ENOMEM;
			goto fail;
		}
		r = cred_placeholder(v->value, v->vlen, v->placeholder,
		    v->vlen + CRED_MIN_RANDOM + 1);
		if (r < 0) {
			log_errno(r, "getrandom: %m");
			goto fail;
		}
		v->plen = (size_t)r;
	}
	*ret = cs;
	return 0;
fail:
	cred_free(&cs);
	return r;
}

int
cred_check_hidden(const struct aisb_policy *p, const struct cred_set *cs)
{
	for (size_t i = 0; i < cs->n && i < p->ncreds; i++) {
		const struct aisb_credential *c = &p->creds[i];
		struct stat st;

		if (stat(c->file, &st) == 0 && st.st_dev == cs->v[i].dev &&
		    st.st_ino == cs->v[i].ino)
			return cred_refuse(p, c,
			    "%s is visible inside the sandbox: keep "
			    "credential files under a hidden path (such as "
			    "/etc/aisb/secrets)",
			    c->file);
	}
	return 0;
}

int
cred_env(const struct aisb_policy *p, const struct cred_set *cs, char ***ret)
{
	char **v = calloc(cs->n + 1, sizeof(*v));
	size_t i;

	*ret = NULL;
	if (v == NULL)
		return -ENOMEM;
	for (i = 0; i < cs->n && i < p->ncreds; i++)
		if (asprintf(&v[i], "%s=%s", p->creds[i].env,
		        cs->v[i].placeholder) < 0) {
			while (i > 0)
				free(v[--i]);
			free(v);
			return -ENOMEM;
		}
	*ret = v;
	return 0;
}

void
cred_wipe(struct cred_set *cs)
{
	for (size_t i = 0; cs->v && i < cs->n; i++) {
		struct cred_value *v = &cs->v[i];

		if (v->value) {
			explicit_bzero(v->value, POLICY_CRED_MAX + 2);
			free(v->value);
			v->value = NULL;
		}
		v->vlen = 0;
	}
}

void
cred_free(struct cred_set *cs)
{
	cred_wipe(cs);
	for (size_t i = 0; cs->v && i < cs->n; i++)
		free(cs->v[i].placeholder);
	free(cs->v);
	cs->v = NULL;
	cs->n = 0;
}
