/*
 * pathsafe.c: who could change what a project root's path leads to.
 * See pathsafe.h.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pathsafe.h"
#include "util.h"

/* Writable by group or other, and not sticky.  A sticky directory
 * (root's /tmp) lets others add names but not rename or remove the
 * entries they do not own, and every entry on the way must be root's. */
static bool
loose(mode_t m)
{
	return (m & 022) && !(m & S_ISVTX);
}

static enum pathsafe_why
dir_unsafe(const char *path, struct pathsafe *u)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return PATHSAFE_OK; /* missing: opening the path says so */
	u->uid = st.st_uid;
	u->mode = st.st_mode & 07777;
	if (S_ISLNK(st.st_mode))
		return st.st_uid != 0 ? PATHSAFE_LINK : PATHSAFE_OK;
	if (st.st_uid != 0)
		return PATHSAFE_OWNER;
	if (loose(st.st_mode))
		return PATHSAFE_MODE;
	return PATHSAFE_OK;
}

bool
pathsafe_above(const char *path, struct pathsafe *u)
{
	_cleanup_free_ char *real = realpath(path, NULL);
	const char *const paths[] = {path, real};

	u->why = PATHSAFE_OK;
	for (size_t i = 0; i < ELEMENTSOF(paths); i++) {
		char *slash;

		if (paths[i] == NULL)
			continue;
		snprintf(u->at, sizeof(u->at), "%s", paths[i]);
		while ((slash = strrchr(u->at, '/')) && slash != u->at) {
			*slash = '\0';
			if ((u->why = dir_unsafe(u->at, u)) != PATHSAFE_OK)
				return true;
		}
	}
	u->why = PATHSAFE_OK;
	return false;
}

bool
pathsafe_root(
    const char *root, const struct stat *st, uid_t agent, struct pathsafe *u)
{
	if (pathsafe_above(root, u))
		return true;
	if (st == NULL)
		return false;
	snprintf(u->at, sizeof(u->at), "%s", root);
	u->uid = st->st_uid;
	u->mode = st->st_mode & 07777;
	if (st->st_uid != 0 && st->st_uid != agent)
		u->why = PATHSAFE_ROOT_OWNER;
	else if (loose(st->st_mode))
		u->why = PATHSAFE_ROOT_MODE;
	return u->why != PATHSAFE_OK;
}

void
pathsafe_text(const struct pathsafe *u, const char *role, const char *path,
    char *buf, size_t n)
{
	switch (u->why) {
	case PATHSAFE_LINK:
		snprintf(buf, n,
		    "'%s' above %s %s is a symlink owned by uid %u, not root",
		    u->at, role, path, (unsigned)u->uid);
		break;
	case PATHSAFE_OWNER:
		snprintf(buf, n,
		    "'%s' above %s %s is owned by uid %u, not root: whoever "
		    "owns it can swap what lies below",
		    u->at, role, path, (unsigned)u->uid);
		break;
	case PATHSAFE_MODE:
		snprintf(buf, n,
		    "'%s' above %s %s is writable by group or other (mode "
		    "%04o)",
		    u->at, role, path, (unsigned)u->mode);
		break;
	case PATHSAFE_ROOT_OWNER:
		snprintf(buf, n,
		    "%s %s is owned by uid %u, neither root nor the agent",
		    role, path, (unsigned)u->uid);
		break;
	case PATHSAFE_ROOT_MODE:
		snprintf(buf, n,
		    "%s %s is writable by group or other (mode %04o)", role,
		    path, (unsigned)u->mode);
		break;
	case PATHSAFE_OK:
		snprintf(buf, n, "%s %s is safe", role, path);
		break;
	}
}

void
pathsafe_fix(const struct pathsafe *u, char *buf, size_t n)
{
	switch (u->why) {
	case PATHSAFE_LINK:
		snprintf(buf, n,
		    "replace it by the directory it points to, or let root "
		    "own it (chown -h root:root %s)",
		    u->at);
		break;
	case PATHSAFE_OWNER:
		snprintf(buf, n, "chown root:root %s", u->at);
		break;
	case PATHSAFE_MODE:
		snprintf(buf, n, "chmod go-w %s", u->at);
		break;
	case PATHSAFE_ROOT_OWNER:
		snprintf(buf, n, "chown it to root or to the agent");
		break;
	case PATHSAFE_ROOT_MODE:
		snprintf(buf, n, "chmod go-w %s", u->at);
		break;
	case PATHSAFE_OK:
		buf[0] = '\0';
		break;
	}
}

/* See pathsafe.h. */
const char *
pathsafe_under(const char *root, const char *path)
{
	size_t n = strlen(root);

	while (n > 1 && root[n - 1] == '/')
		n--;
	if (n == 1 && root[0] == '/')
		return path + 1;
	if (strncmp(path, root, n) != 0 || (path[n] != '/' && path[n] != '\0'))
		return NULL;
	path += n;
	while (*path == '/')
		path++;
	return path;
}
