/*
 * report.h: what the registry reports (--sessions, --end, --egress)
 * share: who may ask, which sessions a target names, how times, sizes
 * and JSON strings are written.
 */
#ifndef AISB_REPORT_H
#define AISB_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

#include "registry.h"

/* Root only; otherwise one line and false. */
bool report_root(const char *what);

/* The shortest start of a session id a target may give. */
#define REPORT_ID_MIN 8

/*
 * A target: a session id, or a unique prefix of at least REPORT_ID_MIN
 * of its hex digits when no user has that name; else a user name.
 */
struct report_target {
	bool by_id;
	char id[REGISTRY_ID_LEN + 1]; /* the prefix */
	uid_t uid;
	char user[64];
};

/* 0, or -ENOENT after one line (no such user). */
int report_target(const char *arg, struct report_target *t);
bool report_match(
    const struct report_target *t, const struct registry_session *s);

/* "2026-12-01 10:00:01" (local time) into buf. */
const char *report_time(time_t t, char *buf, size_t len);
/* 1234 -> "1.2K": bytes in powers of 1024, into buf. */
const char *report_size(uint64_t v, char *buf, size_t len);
/* s as a JSON string (quoted, escaped; non-ASCII as \u00XX). */
void report_json_str(FILE *f, const char *s);
/* ', "key": ' and val as a JSON string: one more field of an object. */
void report_json_field(FILE *f, const char *key, const char *val);

/*
 * T for --since: "30m", "2h", "7d", "@EPOCH", "YYYY-MM-DD" or
 * "YYYY-MM-DD HH:MM[:SS]" (local time, also with a "T").  0 or -EINVAL.
 */
int report_since(const char *s, time_t now, time_t *ret);

#endif
