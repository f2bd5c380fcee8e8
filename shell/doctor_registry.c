/*
 * doctor_registry.c: the agent's entry in the session registry.  See
 * doctor.h.
 *
 * AISB_REGISTRY_DIR is root's, mode 1733: every account may make an
 * entry and none may list it.  A session's outer, which runs as the
 * agent, makes AISB_REGISTRY_DIR/UID and uses it only when the agent
 * owns it with no group or other bits (shell/registry.c).  Any other
 * account can make that name first: then the agent cannot remove it
 * (the sticky bit), its sessions start unrecorded (one warning record
 * each), --sessions does not list them and --end cannot end them.  The
 * doctor is where the administrator sees that (docs/admin-guide.md).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "aisb.h"
#include "doctor.h"

#define REG_FIX_TOP "install -d -m 1733 -o root -g root " AISB_REGISTRY_DIR

void
doctor_registry(struct doctor *d, const struct passwd *pw)
{
	char check[300], path[sizeof(AISB_REGISTRY_DIR) + 16], fix[300];
	struct stat st;
	struct passwd *owner;

	snprintf(check, sizeof(check), "registry[%s]", pw->pw_name);
	if (lstat(AISB_REGISTRY_DIR, &st) < 0) {
		doctor_report(d, WARN, check, REG_FIX_TOP,
		    "no " AISB_REGISTRY_DIR ": %s: the agent's sessions run "
		    "unlisted (--sessions, --end and --egress cannot see them)",
		    strerror(errno));
		return;
	}
	if (!S_ISDIR(st.st_mode) || st.st_uid != 0 ||
	    ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))) {
		doctor_report(d, FAIL, check,
		    "rm -rf " AISB_REGISTRY_DIR "; " REG_FIX_TOP,
		    AISB_REGISTRY_DIR
		    " is not a root-owned directory writable "
		    "by others only with the sticky bit: sessions do not use "
		    "it");
		return;
	}
	snprintf(
	    path, sizeof(path), AISB_REGISTRY_DIR "/%u", (unsigned)pw->pw_uid);
	if (lstat(path, &st) < 0) {
		if (errno == ENOENT)
			doctor_report(d, OK, check, NULL,
			    "no entry yet (the first session makes %s)", path);
		else
			doctor_report(d, FAIL, check, NULL, "%s: %s", path,
			    strerror(errno));
		return;
	}
	snprintf(fix, sizeof(fix), "rm -rf %s", path);
	if (!S_ISDIR(st.st_mode)) {
		doctor_report(d, FAIL, check, fix,
		    "%s is not a directory: the agent's sessions run unlisted "
		    "(--sessions, --end and --egress cannot see them)",
		    path);
		return;
	}
	if (st.st_uid != pw->pw_uid) {
		owner = getpwuid(st.st_uid);
		doctor_report(d, FAIL, check, fix,
		    "%s was made by %s, not by '%s': the agent's sessions run "
		    "unlisted (--sessions, --end and --egress cannot see them)",
		    path, owner ? owner->pw_name : "another uid", pw->pw_name);
		return;
	}
	if (st.st_mode & 077) {
		doctor_report(d, FAIL, check, fix,
		    "%s has mode %04o, not 0700: sessions do not use it", path,
		    (unsigned)(st.st_mode & 07777));
		return;
	}
	doctor_report(d, OK, check, NULL, "%s is the agent's, mode 0700", path);
}
