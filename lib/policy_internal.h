/*
 * policy_internal.h: pieces of the policy loader shared between
 * lib/policy*.c and the policy tests.  Not part of the library's
 * interface for the shell, gate or module: use policy.h.
 */
#ifndef AISB_POLICY_INTERNAL_H
#define AISB_POLICY_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "policy.h"

/* At most this many error messages are kept per load (bounded). */
#define POLICY_MAX_ERRS 64

/* Append "fmt..." to errs (bounded; the last slot says "too many"). */
void policy_err(struct policy_errs *errs, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * Open path for reading after the trust checks (policy_trust.c): every
 * directory from / down and the file itself, each checked on its
 * opened fd: owned by root or by trusted_uid ((uid_t)-1: root only),
 * not writable by group or other (sticky world-writable directories
 * such as /tmp are refused too, as sshd's StrictModes does), never a
 * symlink, the file a regular file.  Then read at most POLICY_MAX_FILE
 * bytes into *buf (NUL-terminated, *len bytes).
 *
 * Returns 0, -ENOENT when the file does not exist and missing_ok (no
 * error recorded), or a negative errno with the reason in errs as
 * "PATH: text".
 */
int policy_trust_read(const char *path, uid_t trusted_uid, bool missing_ok,
    char **buf, size_t *len, struct policy_errs *errs);

/*
 * The parse of one file's text, shared by policy_load() and the
 * fuzzer: no trust checks.  name is what messages call the file.
 * Calls may be repeated on the same state to merge files.
 */
struct policy_parse;

struct policy_parse *policy_parse_new(
    const char *user, const char *home, struct policy_errs *errs);
/*
 * Test hook: let '$' through the pre-scan so a test can show that
 * libconfuse itself sees an empty environment (the second layer).
 */
void policy_parse_allow_dollar(struct policy_parse *ps);
/* Returns 0 or -EINVAL (errors recorded in errs). */
int policy_parse_text(
    struct policy_parse *ps, const char *name, const char *text, size_t len);
/* Apply defaults, validate across keys, build the policy. */
int policy_parse_finish(struct policy_parse *ps, struct aisb_policy **ret);
void policy_parse_free(struct policy_parse *ps);

/*
 * Parse a buffer as the only config file, no trust checks: the fuzz
 * entry point and the unit tests' way to test values.
 */
int policy_load_buf(const char *name, const char *text, size_t len,
    const char *user, const char *home, struct aisb_policy **ret,
    struct policy_errs *errs);

/* What a dotted key is (policy.c's key table); -1 if unknown. */
enum { PK_SCALAR, PK_LIST, PK_SECTION, PK_TSECTION };
int policy_key_kind(const char *dotted);

/*
 * The pre-scan (policy_lex.c) of one file before libconfuse sees it:
 * refuses NUL bytes, '$' outside single quotes (libconfuse would
 * expand ${VAR} from the environment), NUL escapes, unquoted '*',
 * unknown keys (all of them, not only the first), lists given to
 * single-value keys and '+=' on them, and '|' key paths.  It copies
 * text to blank with every comment replaced by spaces, newlines kept:
 * libconfuse 3.3 miscounts lines after comments, and with the comments
 * gone its line numbers are exact.  For each assignment it calls
 * assign(arg, dotted key, line) so the key's origin is known even when
 * the value is an empty list (which libconfuse reports to nobody).
 */
struct policy_lexctx {
	const char *name; /* file name for messages */
	struct policy_errs *errs;
	void (*assign)(void *arg, const char *key, int line);
	void *arg;
	bool allow_dollar; /* test hook only */
	int bad_lines[POLICY_MAX_ERRS]; /* lines with an error */
	size_t nbad;
};

/* Returns the number of errors found (0: clean). */
size_t policy_lex(
    struct policy_lexctx *lx, const char *text, size_t len, char *blank);
bool policy_lex_bad_line(const struct policy_lexctx *lx, int line);

/*
 * Provenance (policy.c): the origin of each key and of each list
 * element, and the files read.
 */
struct policy_origin_ent {
	char *key; /* dotted key */
	char *origin; /* "FILE:LINE" or "default" */
	char **elem; /* per list element, or NULL */
	size_t nelem;
};

struct policy_prov {
	struct policy_origin_ent *ent;
	size_t n;
	char **files; /* files read, in order */
	size_t nfiles;
};

const struct policy_origin_ent *policy_origin_find(
    const struct aisb_policy *p, const char *key);

/*
 * Serialise p to f: mode 0 human, 1 JSON, 2 canonical (JSON without
 * origins and hash: what the hash covers).  policy_print.c.
 */
int policy_write(const struct aisb_policy *p, FILE *f, int mode);

/* "4G" style formatting of a byte count (exact multiples only). */
void policy_fmt_size(uint64_t v, char *buf, size_t len);

#endif
