/*
 * etc.h: the generated /etc files of the sandbox.  Each returns a
 * malloc'd text, or NULL when out of memory.
 */
#ifndef AISB_ETC_H
#define AISB_ETC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* root, the agent (home and shell as seen inside), nobody. */
char *etc_passwd(const char *user, uid_t uid, gid_t gid, const char *home,
    const char *shell);
/* root, the agent's primary group, nogroup. */
char *etc_group(const char *group, gid_t gid);
char *etc_hosts(const char *hostname);
char *etc_hostname(const char *hostname);
/* Gated: the gate's DNS stub on 127.0.0.1.  None: the same address,
 * where nothing listens, so a lookup fails at once. */
char *etc_resolv(bool gated);

/*
 * The system trust bundle the sandbox's runtimes are pointed at when
 * the policy has credentials: "/etc/" and the first of AISB_CA_BUNDLES
 * that is a file under root's /etc, else the first of them (the /etc
 * view then creates it).  Into buf.
 */
const char *etc_ca_bundle(const char *root, char *buf, size_t len);

#endif
