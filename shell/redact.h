/*
 * redact.h: the env.secret values taken out of a byte stream that the
 * outer relays to the caller (docs/architecture.md, "Redaction").
 *
 * Each occurrence of a value becomes a marker, "[aisb: redacted NAME]";
 * every other byte passes as it is, in order, so a binary stream stays
 * byte-identical except where a value's exact bytes were.  A value split
 * over two reads is still found: the longest tail of the bytes fed that
 * is the start of some value is held back until the next bytes (or
 * redact_flush) show whether it is one.  Values shorter than
 * REDACT_MIN bytes are not redacted (they would garble ordinary output).
 *
 * Best effort against a secret printed by accident: an agent that means
 * to show a secret can encode it first.  Secrets the agent must not see
 * at all are credentials (aisb.conf(5)), which never enter the sandbox.
 */
#ifndef AISB_REDACT_H
#define AISB_REDACT_H

#include <stddef.h>

#define REDACT_MIN 8 /* bytes: shorter values pass as they are */
#define REDACT_MAX 65536 /* bytes of one value */

struct redact;

/*
 * A redactor for the "NAME=value" strings of env (NULL-terminated, as
 * secret_read gives them); the values are copied (redact_free wipes
 * them).  *ret is NULL when no value is long enough: nothing to do.
 * 0 or -errno.
 */
int redact_new(char *const *env, struct redact **ret);
void redact_free(struct redact *r);

/*
 * Feed in[0..n): what may go out is written to out, which has room for
 * redact_room(r, n) bytes; *outlen is set to the bytes written.  Bytes
 * that may begin a value stay in r until the next call or redact_flush.
 */
void redact_feed(
    struct redact *r, const char *in, size_t n, char *out, size_t *outlen);
size_t redact_room(const struct redact *r, size_t n);
/*
 * How many leading bytes of in[0..n) a feed of it would send out first,
 * as they are: when nothing is held, those before the first value and
 * before any tail that may begin one; 0 when bytes are held.  Nothing
 * changes in r: the caller passes in[0..m) on itself (no copy through
 * out) and feeds in[m..n) next, and the output is what a feed of all of
 * in gives.
 */
size_t redact_pass(const struct redact *r, const char *in, size_t n);
/* redact_room's bound whatever is held: room for any feed of n bytes. */
size_t redact_room_max(const struct redact *r, size_t n);
/* Bytes held back now (0: everything fed is out). */
size_t redact_held(const struct redact *r);
/*
 * No more input (or a quiet moment): the held bytes go out to out (room
 * of redact_room(r, 0)), a value among them still redacted, and nothing
 * stays held; *outlen is set to the bytes written.
 */
void redact_flush(struct redact *r, char *out, size_t *outlen);

#endif
