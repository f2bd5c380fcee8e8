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
 * The keys (policy_key.c): the table of every key aisb.conf(5) knows.
 * PK_TSECTION is a titled section (env.secret NAME { ... },
 * credential NAME { ... }); the keys inside it are listed without the
 * title ("credential.file").
 */
enum { PK_SCALAR, PK_LIST, PK_SECTION, PK_TSECTION };

/* The kinds of value; each has its check in policy_value.c. */
enum policy_kind {
	PV_NONE, /* a section: no value */
	PV_PATH, /* absolute path */
	PV_PATHX, /* absolute path, %u and %h expanded */
	PV_GLOBX, /* the same, glob characters allowed */
	PV_HOMEPATH, /* PV_PATHX or "tmpfs" */
	PV_RELPATH, /* relative to the project */
	PV_HOSTNAME,
	PV_AGENT, /* user name or @group */
	PV_BOOL,
	PV_SIZE, /* bytes, K/M/G/T suffix */
	PV_TMPSIZE, /* a size of at least 1M */
	PV_COUNT,
	PV_PIDS,
	PV_NOFILE,
	PV_TIMEOUT, /* seconds */
	PV_PCT, /* "200%" */
	PV_PORT,
	PV_HOSTRULE, /* "host" or "host:22,443" */
	PV_CIDR,
	PV_ENVGLOB, /* environment name or glob */
	PV_ENVSET, /* NAME=value */
	PV_NETMODE,
	PV_ENFORCE,
	PV_NOTICES, /* "terminal", "always" or "never" */
	PV_VIEW, /* "system" or "whole-root-unsafe" */
	PV_RESOLVER, /* "", ADDR, ADDR:PORT or [V6]:PORT */
	PV_SERVICE, /* PAM service name */
	PV_OPTPATH, /* "" or an absolute path */
	PV_ENVNAME, /* an environment name, no glob */
	PV_CREDHEADER, /* "Name" or "Name: FORMAT" with one %s */
};

struct policy_keydef {
	const char *key; /* dotted */
	int type; /* PK_* */
	enum policy_kind kind;
	const char *def; /* scalar default (NULL: required/none) */
	const char *const *defl; /* list default, NULL-terminated */
};

extern const struct policy_keydef policy_key_table[];
extern const size_t policy_key_count;

/* The entry of a dotted key ("env.secret.NAME.file" too); NULL if unknown. */
const struct policy_keydef *policy_key_find(const char *dotted);
/* What a dotted key is (PK_*); -1 if unknown. */
int policy_key_kind(const char *dotted);

/*
 * The parse state of one policy (policy_parse.c): one libconfuse state
 * that every file is parsed into, in order, and the origin of each
 * value.  policy.c builds the policy from it.
 */
struct cfg_t;
struct cfg_opt_t;
struct policy_assign;

struct policy_slot { /* element origins of one libconfuse option */
	const struct cfg_opt_t *opt;
	char **org;
	size_t n;
};

struct policy_parse {
	struct cfg_t *cfg;
	const char *user, *home;
	struct policy_errs *errs;
	const char *fname; /* file being parsed */
	struct policy_lexctx *lx; /* its pre-scan */
	bool failed; /* a file failed to parse */
	bool allow_dollar;
	struct policy_slot *slots;
	size_t nslots;
	struct policy_assign *asg; /* where each key was last assigned */
	size_t nasg;
	char **files;
	size_t nfiles;
	char *scratch; /* canonical value for libconfuse */
	char why[160]; /* dynamic reason text */
	struct aisb_policy *p; /* being built (policy_build) */
	struct policy_prov *prov;
};

/*
 * The parse of one file's text, shared by policy_load() and the
 * fuzzer: no trust checks.  name is what messages call the file.
 * Calls may be repeated on the same state to merge files.
 */
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

/* The element origins of opt (created empty if new); NULL: no memory. */
struct policy_slot *policy_parse_slot(
    struct policy_parse *ps, const struct cfg_opt_t *opt);
/* "FILE:LINE" where a dotted key was last assigned, or NULL. */
const char *policy_parse_assigned(
    const struct policy_parse *ps, const char *key);

/*
 * policy.c: the defaults, each key converted into the policy with its
 * origin, the secrets, the cross-key checks and the hash.  Called by
 * policy_parse_finish() once every file parsed cleanly.
 */
int policy_build(struct policy_parse *ps, struct aisb_policy **ret);

/*
 * The value checks (policy_value.c).  policy_value_check() checks one
 * value of kind k as written; on success *out is the canonical text
 * (malloc) that libconfuse stores and policy_build() converts without
 * further errors, else *why says what is wrong (-EINVAL) or -ENOMEM.
 * It expands %u and %h from ps (and may build *why in ps->why).
 */
int policy_value_check(struct policy_parse *ps, enum policy_kind k,
    const char *in, char **out, const char **why);
/* The converters, shared with policy_build(): 0 or -EINVAL with *why. */
int policy_value_size(const char *in, uint64_t *v, const char **why);
int policy_value_port(const char *in, uint16_t *port, const char **why);
int policy_value_bool(const char *in, bool *b); /* "true" or "false" */
/* host: HOST_MAX + 1 bytes; ports: room for 32. */
int policy_value_hostrule(const char *in, char *host, uint16_t *ports,
    size_t *nports, const char **why);
/* canon: the canonical spelling; family 0 for "" (host resolver). */
int policy_value_resolver(const char *in, int *family, uint8_t addr[16],
    uint16_t *port, char *canon, size_t clen, const char **why);
/* [A-Za-z_][A-Za-z0-9_]*, with * and ? when glob. */
bool policy_value_env_name(const char *s, bool glob);
/*
 * A credential's header (canonical text): its name (at most 64 token
 * characters, into name[65]) and the value's format (with one "%s",
 * into fmt[257]); basic: "Name: Basic FORMAT", the format's text sent
 * base64-encoded.  A bare "Name" is the format "%s".
 */
int policy_value_credheader(
    const char *in, char *name, char *fmt, bool *basic, const char **why);
/* A credential's title: [A-Za-z0-9][A-Za-z0-9_.-]{0,63}. */
bool policy_value_cred_name(const char *s);

/*
 * Parse a buffer as the only config file, no trust checks: the fuzz
 * entry point and the unit tests' way to test values.
 */
int policy_load_buf(const char *name, const char *text, size_t len,
    const char *user, const char *home, struct aisb_policy **ret,
    struct policy_errs *errs);

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
 * Provenance (built by policy.c): the origin of each key and of each
 * list element, and the files read.
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
 * policy_home.c, run by policy_load() for an agent whose passwd home is
 * known: none of project.path, project.roots, filesystem.readwrite (a
 * source, or what a glob matches) and home.path may equal or contain
 * home, as written or with symlinks resolved.  0, or -EINVAL with one
 * "FILE:LINE: KEY: ..." error in errs per offending value.  Not part of
 * policy_load_buf(): it looks at the file system.
 */
int policy_home_check(
    const struct aisb_policy *p, const char *home, struct policy_errs *errs);

/*
 * Serialise p to f: mode 0 human, 1 JSON, 2 canonical (JSON without
 * origins and hash: what the hash covers).  policy_print.c.
 */
int policy_write(const struct aisb_policy *p, FILE *f, int mode);

/* "4G" style formatting of a byte count (exact multiples only). */
void policy_fmt_size(uint64_t v, char *buf, size_t len);

#endif
