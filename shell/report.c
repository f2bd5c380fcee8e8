/*
 * report.c: what the registry reports share.  See report.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report.h"

/* A relative age ("10m", "3d") is fewer units than this. */
#define SINCE_AGE_MAX 100000000

bool
report_root(const char *what)
{
	if (getuid() == 0 && geteuid() == 0)
		return true;
	fprintf(stderr, "aisb-shell: %s needs root\n", what);
	return false;
}

static bool
hex(const char *s)
{
	return *s && strspn(s, "0123456789abcdef") == strlen(s);
}

int
report_target(const char *arg, struct report_target *t)
{
	struct passwd *pw;
	size_t n = strlen(arg);

	memset(t, 0, sizeof(*t));
	pw = n == REGISTRY_ID_LEN && hex(arg) ? NULL : getpwnam(arg);
	if (pw == NULL && hex(arg) && n >= REPORT_ID_MIN &&
	    n <= REGISTRY_ID_LEN) {
		t->by_id = true;
		memcpy(t->id, arg, n + 1);
		return 0;
	}
	if (pw == NULL) {
		fprintf(stderr,
		    "aisb-shell: '%s' is neither a session id (at least %d of "
		    "its hex digits) nor a user\n",
		    arg, REPORT_ID_MIN);
		return -ENOENT;
	}
	t->uid = pw->pw_uid;
	snprintf(t->user, sizeof(t->user), "%s", pw->pw_name);
	return 0;
}

bool
report_match(const struct report_target *t, const struct registry_session *s)
{
	if (t->by_id)
		return strncmp(s->id, t->id, strlen(t->id)) == 0;
	return s->uid == t->uid;
}

const char *
report_time(time_t t, char *buf, size_t len)
{
	struct tm tm;

	if (t <= 0 || localtime_r(&t, &tm) == NULL ||
	    strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm) == 0)
		snprintf(buf, len, "-");
	return buf;
}

const char *
report_size(uint64_t v, char *buf, size_t len)
{
	static const char unit[] = "KMGTPE";
	double d = (double)v / 1024;
	int u = 0;

	if (v < 1024) {
		snprintf(buf, len, "%llu", (unsigned long long)v);
		return buf;
	}
	while (d >= 1024 && u < 5) {
		d /= 1024;
		u++;
	}
	snprintf(buf, len, "%.1f%c", d, unit[u]);
	return buf;
}

void
report_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p >= 0x7f)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

void
report_json_field(FILE *f, const char *key, const char *val)
{
	fprintf(f, ", \"%s\": ", key);
	report_json_str(f, val);
}

int
report_since(const char *s, time_t now, time_t *ret)
{
	struct tm tm;
	char *end;
	const char *e;
	long long v;

	if (s[0] == '@') {
		errno = 0;
		v = strtoll(s + 1, &end, 10);
		if (errno || end == s + 1 || *end || v < 0)
			return -EINVAL;
		*ret = (time_t)v;
		return 0;
	}
	if (s[0] >= '0' && s[0] <= '9') {
		errno = 0;
		v = strtoll(s, &end, 10);
		if (!errno && end != s && end[0] && !end[1] && v >= 0 &&
		    v < SINCE_AGE_MAX) {
			long long mul = end[0] == 's' ? 1
			    : end[0] == 'm'           ? 60
			    : end[0] == 'h'           ? 3600
			    : end[0] == 'd'           ? 86400
			                              : 0;

			if (mul == 0)
				return -EINVAL;
			*ret = now - (time_t)(v * mul);
			return 0;
		}
	}
	memset(&tm, 0, sizeof(tm));
	e = strptime(s, "%Y-%m-%d", &tm);
	if (e && (*e == ' ' || *e == 'T'))
		e = strptime(e + 1, "%H:%M", &tm);
	if (e && *e == ':')
		e = strptime(e + 1, "%S", &tm);
	if (e == NULL || *e)
		return -EINVAL;
	tm.tm_isdst = -1;
	*ret = mktime(&tm);
	return *ret == (time_t)-1 ? -EINVAL : 0;
}
