/*
 * secret.h: env.secret values, read by the outer before the sandbox
 * exists.  A value never reaches a log line or an error message.
 */
#ifndef AISB_SECRET_H
#define AISB_SECRET_H

#include <sys/types.h>

#include "policy.h"

#define SECRET_MAX 65536 /* bytes per value */

/*
 * Read every env.secret of p.  The file must be a regular file owned by
 * root or uid, not accessible by other, not a symlink, at most
 * SECRET_MAX bytes, without NUL; one trailing newline is dropped.
 * *ret is a NULL-terminated vector of "NAME=value", environment entries
 * like env_build's (wipe and free it with env_free).  0, or
 * -SESSION_EPOLICY (logged, names the file).
 */
int secret_read(const struct aisb_policy *p, uid_t uid, char ***ret);

#endif
