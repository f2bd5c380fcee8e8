/*
 * etc.c: generated /etc files.  See etc.h.  The names come from the
 * host's passwd and group databases; a ':' or newline in them would
 * corrupt the file, so such a name is replaced by the numeric id.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "aisb.h"
#include "etc.h"
#include "util.h"

static const char *
field(const char *s, char *buf, size_t n, unsigned id)
{
	if (!s || !*s || strpbrk(s, ":\n\r")) {
		snprintf(buf, n, "%u", id);
		return buf;
	}
	return s;
}

char *
etc_passwd(
    const char *user, uid_t uid, gid_t gid, const char *home, const char *shell)
{
	char b[3][32], *out;

	if (asprintf(&out,
	        "root:x:0:0:root:/root:/usr/sbin/nologin\n"
	        "%s:x:%u:%u:%s:%s:%s\n"
	        "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n",
	        field(user, b[0], sizeof(b[0]), (unsigned)uid), (unsigned)uid,
	        (unsigned)gid, field(user, b[1], sizeof(b[1]), (unsigned)uid),
	        field(home, b[2], sizeof(b[2]), 0), shell) < 0)
		return NULL;
	return out;
}

char *
etc_group(const char *group, gid_t gid)
{
	char b[32], *out;

	if (gid == 0 || gid == 65534) {
		if (asprintf(&out, "root:x:0:\nnogroup:x:65534:\n") < 0)
			return NULL;
		return out;
	}
	if (asprintf(&out, "root:x:0:\n%s:x:%u:\nnogroup:x:65534:\n",
	        field(group, b, sizeof(b), (unsigned)gid), (unsigned)gid) < 0)
		return NULL;
	return out;
}

char *
etc_hosts(const char *hostname)
{
	char *out;

	if (asprintf(&out,
	        "127.0.0.1\tlocalhost\n"
	        "127.0.1.1\t%s\n"
	        "::1\tlocalhost ip6-localhost ip6-loopback\n",
	        hostname) < 0)
		return NULL;
	return out;
}

char *
etc_hostname(const char *hostname)
{
	char *out;

	if (asprintf(&out, "%s\n", hostname) < 0)
		return NULL;
	return out;
}

char *
etc_resolv(bool gated)
{
	(void)gated;
	return strdup("nameserver 127.0.0.1\noptions edns0\n");
}

const char *
etc_ca_bundle(const char *root, char *buf, size_t len)
{
	static const char *const bundles[] = {AISB_CA_BUNDLES};
	const char *r = strcmp(root, "/") == 0 ? "" : root;
	struct stat st;

	for (size_t i = 0; i < ELEMENTSOF(bundles); i++) {
		snprintf(buf, len, "%s/etc/%s", r, bundles[i]);
		if (stat(buf, &st) == 0 && S_ISREG(st.st_mode)) {
			snprintf(buf, len, "/etc/%s", bundles[i]);
			return buf;
		}
	}
	snprintf(buf, len, "/etc/%s", bundles[0]);
	return buf;
}
