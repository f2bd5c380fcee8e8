/*
 * loginshell.c: the login-shell check of pam_aisb and --doctor.
 * See loginshell.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "entry.h"
#include "loginshell.h"
#include "util.h"

/*
 * Root-owned and not writable by group or other.  A sticky directory
 * (/tmp) may be: nobody but root can rename or remove root's entries.
 */
static int
root_only(const char *path, const struct stat *st, char *why, size_t whylen)
{
	if (st->st_uid != 0) {
		snprintf(why, whylen, "'%s' is owned by uid %u, not root", path,
		    (unsigned)st->st_uid);
		return -EPERM;
	}
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) &&
	    !(S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX))) {
		snprintf(why, whylen,
		    "'%s' is writable by group or other (mode %04o)", path,
		    (unsigned)(st->st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

/*
 * real (a path without symlinks or "..") is a regular executable file,
 * and it and every directory above it are root's alone: whoever can
 * write one can swap the binary.
 */
static int
root_file(char *real, char *why, size_t whylen)
{
	struct stat st;
	char *slash;
	int r;

	if (stat(real, &st) < 0) {
		r = -errno;
		snprintf(why, whylen, "'%s': %s", real, strerror(-r));
		return r;
	}
	if (!S_ISREG(st.st_mode) || !(st.st_mode & 0111)) {
		snprintf(why, whylen, "'%s' is not an executable regular file",
		    real);
		return -EACCES;
	}
	if ((r = root_only(real, &st, why, whylen)) < 0)
		return r;
	while ((slash = strrchr(real, '/')) != NULL) {
		if (slash == real)
			slash[1] = '\0';
		else
			*slash = '\0';
		if (stat(real, &st) < 0) {
			r = -errno;
			snprintf(why, whylen, "'%s': %s", real, strerror(-r));
			return r;
		}
		if ((r = root_only(real, &st, why, whylen)) < 0)
			return r;
		if (slash == real)
			break;
	}
	return 0;
}

/*
 * The program the entry point runs: ENTRY_MAIN_REL from the entry's
 * directory (lib/entry.h), under the same rules as the entry itself.
 */
static int
check_main(const char *entry, char *why, size_t whylen)
{
	char path[PATH_MAX + sizeof(ENTRY_MAIN_REL)];
	_cleanup_free_ char *real = NULL;
	size_t n = (size_t)(strrchr(entry, '/') - entry);
	int r;

	/* entry is canonical: ".." is its directory's parent. */
	while (n > 0 && entry[n - 1] != '/')
		n--;
	if (n == 0) {
		snprintf(why, whylen, "'%s' has no directory above it", entry);
		return -EINVAL;
	}
	snprintf(path, sizeof(path), "%.*s%s", (int)n, entry,
	    &ENTRY_MAIN_REL[strlen("../")]);
	real = realpath(path, NULL);
	if (!real) {
		r = -errno;
		snprintf(why, whylen, "'%s' (what aisb-shell runs): %s", path,
		    strerror(-r));
		return r;
	}
	return root_file(real, why, whylen);
}

int
loginshell_check(const char *path, char *why, size_t whylen)
{
	_cleanup_free_ char *real = NULL;
	char entry[PATH_MAX];
	const char *base;
	int r;

	if (!path || path[0] != '/') {
		snprintf(why, whylen, "'%s' is not an absolute path",
		    path ? path : "");
		return -EINVAL;
	}
	base = strrchr(path, '/') + 1;
	if (strcmp(base, LOGINSHELL_NAME) != 0) {
		snprintf(why, whylen, "'%s' is not %s", path, LOGINSHELL_NAME);
		return -EINVAL;
	}
	/* realpath(3) with a NULL buffer is thread-safe. */
	real = realpath(path, NULL);
	if (!real) {
		r = -errno;
		snprintf(why, whylen, "'%s': %s", path, strerror(-r));
		return r;
	}
	/* A link named aisb-shell to bash is not aisb-shell. */
	if (strcmp(strrchr(real, '/') + 1, LOGINSHELL_NAME) != 0) {
		snprintf(why, whylen, "'%s' resolves to '%s', not %s", path,
		    real, LOGINSHELL_NAME);
		return -EINVAL;
	}
	snprintf(entry, sizeof(entry), "%s", real); /* root_file cuts real */
	if ((r = root_file(real, why, whylen)) < 0)
		return r;
	return check_main(entry, why, whylen);
}
