/*
 * cred.h: the values of the policy's credential sections, read by the
 * outer before the sandbox exists, and their placeholders
 * (docs/architecture.md, "Credentials").
 *
 * The real value goes to the gate only (gatectl_send_creds) and is
 * wiped before init is cloned: neither init nor the inner ever holds
 * it.  Inside, the credential's variable holds a placeholder: random
 * for each session, of the value's shape (its prefix up to the first
 * separator, the same length and character classes), so that a client
 * that checks a prefix or a length still starts.  The gate puts the
 * value in place of the placeholder in requests to the credential's
 * hosts.
 */
#ifndef AISB_CRED_H
#define AISB_CRED_H

#include <stddef.h>
#include <sys/types.h>

#include "policy.h"

/* One credential: placeholder and value, NUL-terminated, same order as
 * the policy's creds. */
struct cred_value {
	char *placeholder;
	size_t plen;
	char *value; /* wiped by cred_wipe */
	size_t vlen;
	dev_t dev; /* the file's (cred_check_hidden) */
	ino_t ino;
};

struct cred_set {
	struct cred_value *v;
	size_t n;
};

/*
 * Read every credential of p.  Each file must pass the policy's trust
 * checks (root-owned, as every directory above it, not writable by group
 * or other, not a symlink), give no access to other, hold at most
 * POLICY_CRED_MAX bytes of visible ASCII (one trailing newline or CR LF
 * dropped) and not be empty.  Otherwise -SESSION_EPOLICY, logged as
 * "FILE:LINE: credential.NAME.file: PATH: reason" (never the value).
 * 0, -SESSION_EPOLICY or -errno.
 */
int cred_read(const struct aisb_policy *p, struct cred_set *ret);

/*
 * A placeholder for value (len bytes) into out (outlen bytes, at least
 * len + CRED_MIN_RANDOM + 1): at least CRED_MIN_RANDOM random
 * characters, so a short value gets a longer placeholder: the value's leading
 * prefix when one ends in '-' or '_' within its first third and 16 bytes
 * ("sk-ant-api03-", "ghp_"), then for each byte a random one of its class
 * (lower case, upper case, digit; other bytes kept).  Returns its length, or
 * -errno.
 */
#define CRED_MIN_RANDOM 16
int cred_placeholder(const char *value, size_t len, char *out, size_t outlen);

/*
 * init, in the finished view: no credential file may be visible inside
 * under its own path (a file outside the hidden paths, which the agent
 * could read as its uid reads it).  0, or -SESSION_EPOLICY (logged).
 */
int cred_check_hidden(const struct aisb_policy *p, const struct cred_set *cs);

/* "ENV=placeholder" for each credential, NULL-terminated (env_free). */
int cred_env(
    const struct aisb_policy *p, const struct cred_set *cs, char ***ret);

/* Wipe the values (the placeholders stay). */
void cred_wipe(struct cred_set *cs);
/* Wipe and free everything. */
void cred_free(struct cred_set *cs);

#endif
