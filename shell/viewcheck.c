/*
 * viewcheck.c: the filesystem view read back.  See viewcheck.h.
 *
 * Every path is resolved in the view's root (openat2 RESOLVE_IN_ROOT),
 * as mount_setup resolved it while building the view, so the check
 * reads what the inner will see even when run on a directory that is
 * not "/".
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "log.h"
#include "util.h"
#include "viewcheck.h"

#define MAX_DEPTH 64 /* directories walked below a hidden one */

struct vc {
	const struct viewcheck *v;
	const struct aisb_policy *p;
	int rfd;
	const char *root; /* prefix for glob(3): "" for "/" */
	char **placed; /* mounts placed over the hide list on purpose */
	size_t nplaced;
	size_t first_extra; /* placed[first_extra..]: filesystem.readonly
	                     * and .readwrite */
};

/* Made fresh by mount_setup, never from the host: a hide entry naming
 * one of them covers nothing (its contents are hidden entry by entry). */
static const char *const fresh_top[] = {"/proc", "/dev", "/sys", "/tmp"};

/* The files mount_setup generates in /etc. */
static const char *const gen_etc[] = {
    "/etc/passwd",
    "/etc/group",
    "/etc/hostname",
    "/etc/hosts",
    "/etc/resolv.conf",
};

static bool
is_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* Is path base or below it?  Components compared, runs of '/' as one. */
static bool
path_under(const char *path, const char *base)
{
	const char *p = path, *b = base;
	size_t pl, bl;

	for (;;) {
		p += strspn(p, "/");
		b += strspn(b, "/");
		if (!*b)
			return true;
		if (!*p)
			return false;
		pl = strcspn(p, "/");
		bl = strcspn(b, "/");
		if (pl != bl || strncmp(p, b, pl) != 0)
			return false;
		p += pl;
		b += bl;
	}
}

static bool
path_same(const char *a, const char *b)
{
	return path_under(a, b) && path_under(b, a);
}

/* At or below a placed mount? */
static bool
placed_over(const struct vc *c, const char *path)
{
	size_t i;

	for (i = 0; i < c->nplaced; i++)
		if (path_under(path, c->placed[i]))
			return true;
	return false;
}

/* A parent of a placed mount (the way to it)? */
static bool
leads_to_placed(const struct vc *c, const char *path)
{
	size_t i;

	for (i = 0; i < c->nplaced; i++)
		if (path_under(c->placed[i], path))
			return true;
	return false;
}

static int
open_in(const struct vc *c, const char *path, int flags)
{
	struct open_how how = {
	    .flags = (uint64_t)(flags | O_CLOEXEC),
	    .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	long fd = syscall(SYS_openat2, c->rfd, path, &how, sizeof(how));

	return fd < 0 ? -errno : (int)fd;
}

/* The path fd stands for, inside the view (symlinks resolved): the
 * kernel's name for it, without the root's prefix.  0 or -errno. */
static int
resolved(const struct vc *c, int fd, char *out, size_t n)
{
	char link[64], buf[4096];
	size_t rl = strlen(c->root);
	ssize_t k;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	k = readlink(link, buf, sizeof(buf) - 1);
	if (k < 0)
		return -errno;
	buf[k] = '\0';
	if (rl &&
	    (strncmp(buf, c->root, rl) != 0 ||
	        (buf[rl] != '/' && buf[rl] != '\0')))
		return -EXDEV;
	snprintf(out, n, "%s", buf[rl] ? buf + rl : "/");
	return 0;
}

/* fn for pat, or for each path it matches in the view. */
static int
each_match(struct vc *c, const char *pat, int (*fn)(struct vc *, const char *))
{
	size_t j, rl = strlen(c->root);
	char full[8192];
	glob_t g;
	int r;

	if (!is_glob(pat))
		return fn(c, pat);
	snprintf(full, sizeof(full), "%s%s", c->root, pat);
	memset(&g, 0, sizeof(g));
	r = glob(full, GLOB_NOSORT, NULL, &g);
	if (r == GLOB_NOSPACE) {
		globfree(&g);
		return log_errno(-ENOMEM, "view check: glob %s: %m", pat);
	}
	for (j = 0, r = 0; r >= 0 && j < g.gl_pathc; j++)
		r = fn(c, g.gl_pathv[j] + rl);
	globfree(&g);
	return r;
}

/* A placed mount, by the path it resolves to in the view when it does
 * (hidden paths are compared resolved too: /var/run is /run). */
static int
add_placed(struct vc *c, const char *path)
{
	char **v = realloc(c->placed, (c->nplaced + 1) * sizeof(*v));
	char real[4096];
	int fd;

	if (!v)
		return log_errno(-ENOMEM, "view check: %m");
	c->placed = v;
	fd = open_in(c, path, O_PATH);
	if (fd < 0 || resolved(c, fd, real, sizeof(real)) < 0)
		snprintf(real, sizeof(real), "%s", path);
	if (fd >= 0)
		close(fd);
	if (!(v[c->nplaced] = strdup(real)))
		return log_errno(-ENOMEM, "view check: %m");
	c->nplaced++;
	return 0;
}

/* filesystem.readonly / .readwrite: "PATH" or "SRC:DST", globs bound at
 * the same path. */
static int
add_extras(struct vc *c, const struct aisb_strv *l)
{
	size_t i;
	int r;

	for (i = 0; i < l->n; i++) {
		const char *colon = strchr(l->v[i], ':');

		r = colon ? add_placed(c, colon + 1)
		          : each_match(c, l->v[i], add_placed);
		if (r < 0)
			return r;
	}
	return 0;
}

static int
collect_placed(struct vc *c)
{
	size_t i;
	int r;

	if ((r = add_placed(c, c->v->home_in)) < 0 ||
	    (r = add_placed(c, c->p->project.target)) < 0)
		return r;
	for (i = 0; i < ELEMENTSOF(gen_etc); i++)
		if ((r = add_placed(c, gen_etc[i])) < 0)
			return r;
	c->first_extra = c->nplaced;
	if ((r = add_extras(c, &c->p->fs.readonly)) < 0 ||
	    (r = add_extras(c, &c->p->fs.readwrite)) < 0)
		return r;
	return 0;
}

/* Below an extra bind (placed after the home and the project)? */
static bool
under_extra(const struct vc *c, const char *path)
{
	size_t i;

	for (i = c->first_extra; i < c->nplaced; i++)
		if (path_under(path, c->placed[i]))
			return true;
	return false;
}

static bool
same_id(const struct stat *st, const struct viewcheck_id *id)
{
	return id->set && st->st_dev == id->dev && st->st_ino == id->ino;
}

static int
check_root(const struct vc *c)
{
	struct statvfs sv;

	if (fstatvfs(c->rfd, &sv) < 0)
		return log_errno(-errno, "view check: /: %m");
	if (!(sv.f_flag & ST_RDONLY))
		return log_errno(-EPERM, "view check: / is not read-only");
	return 0;
}

static int
check_project(const struct vc *c)
{
	const char *t = c->p->project.target;
	_cleanup_close_ int fd = -1;
	struct statvfs sv;
	struct stat st;

	if (under_extra(c, t))
		return 0;
	fd = open_in(c, t, O_PATH | O_DIRECTORY);
	if (fd < 0)
		return log_errno(
		    -EPERM, "view check: the project %s: %s", t, strerror(-fd));
	if (fstat(fd, &st) < 0 || fstatvfs(fd, &sv) < 0)
		return log_errno(-errno, "view check: %s: %m", t);
	if (!same_id(&st, &c->v->project))
		return log_errno(
		    -EPERM, "view check: %s is not the project", t);
	if (c->p->project.readonly && !(sv.f_flag & ST_RDONLY))
		return log_errno(-EPERM,
		    "view check: the project at %s is not read-only", t);
	return 0;
}

static int
check_home(const struct vc *c)
{
	const char *h = c->v->home_in;
	bool tmpfs = c->p->home.tmpfs || !c->p->home.path;
	_cleanup_close_ int fd = -1;
	struct statfs sf;
	struct stat st;

	if (path_under(h, c->p->project.target) || under_extra(c, h))
		return 0;
	fd = open_in(c, h, O_PATH | O_DIRECTORY);
	if (fd < 0)
		return log_errno(
		    -EPERM, "view check: the home %s: %s", h, strerror(-fd));
	if (fstat(fd, &st) < 0 || fstatfs(fd, &sf) < 0)
		return log_errno(-errno, "view check: %s: %m", h);
	if (same_id(&st, &c->v->home_host))
		return log_errno(
		    -EPERM, "view check: %s shows the passwd home", h);
	if (tmpfs && sf.f_type != TMPFS_MAGIC)
		return log_errno(
		    -EPERM, "view check: the home %s is not a tmpfs", h);
	if (!tmpfs && !same_id(&st, &c->v->home))
		return log_errno(-EPERM, "view check: %s is not home.path %s",
		    h, c->p->home.path);
	return 0;
}

/* A hidden directory: nothing in it but the way to placed mounts. */
static int
check_dir(struct vc *c, const char *path, int depth)
{
	struct dirent *de;
	char child[4096];
	DIR *d;
	int fd, r = 0;

	if (depth > MAX_DEPTH)
		return log_errno(-ELOOP, "view check: %s: %m", path);
	fd = open_in(c, path, O_RDONLY | O_DIRECTORY);
	if (fd == -EACCES)
		return 0; /* cannot be listed inside either */
	if (fd < 0)
		return log_errno(fd, "view check: %s: %m", path);
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return log_errno(-errno, "view check: %s: %m", path);
	}
	while (r >= 0 && (errno = 0, de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (snprintf(child, sizeof(child), "%s/%s",
		        path_same(path, "/") ? "" : path,
		        de->d_name) >= (int)sizeof(child)) {
			r = log_errno(-ENAMETOOLONG,
			    "view check: hidden %s: a name in it is too long "
			    "to check",
			    path);
			break;
		}
		if (placed_over(c, child))
			continue;
		if (leads_to_placed(c, child))
			r = check_dir(c, child, depth + 1);
		else
			r = log_errno(-EPERM, "view check: hidden %s shows %s",
			    path, child);
	}
	if (r >= 0 && errno)
		r = log_errno(-errno, "view check: readdir %s: %m", path);
	closedir(d);
	return r;
}

static int
check_hidden(struct vc *c, const char *path)
{
	_cleanup_close_ int fd = -1;
	struct stat st;
	size_t i;
	char real[4096];
	int r;

	fd = open_in(c, path, O_PATH);
	if (fd == -ENOENT || fd == -ENOTDIR || fd == -EACCES)
		return 0;
	if (fd < 0)
		return log_errno(fd, "view check: %s: %m", path);
	if ((r = resolved(c, fd, real, sizeof(real))) < 0)
		return log_errno(r, "view check: %s: %m", path);
	for (i = 0; i < ELEMENTSOF(fresh_top); i++)
		if (path_same(real, fresh_top[i]))
			return 0;
	if (placed_over(c, path) || placed_over(c, real))
		return 0;
	if (fstat(fd, &st) < 0)
		return log_errno(-errno, "view check: %s: %m", path);
	if (S_ISDIR(st.st_mode))
		return check_dir(c, real, 0);
	if (S_ISREG(st.st_mode) && st.st_size == 0)
		return 0;
	return log_errno(-EPERM, "view check: hidden %s is not empty", path);
}

int
viewcheck_expect(struct viewcheck *v, const struct aisb_policy *p,
    int project_fd, const char *home_in, const char *home_host)
{
	struct stat st;
	int fd;

	*v = (struct viewcheck){.pol = p, .home_in = home_in};
	if (fstat(project_fd, &st) < 0)
		return log_errno(-errno, "view check: the project: %m");
	v->project = (struct viewcheck_id){true, st.st_dev, st.st_ino};
	if (!p->home.tmpfs && p->home.path) {
		fd = open(p->home.path,
		    O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0 && fstat(fd, &st) == 0)
			v->home =
			    (struct viewcheck_id){true, st.st_dev, st.st_ino};
		if (fd >= 0)
			close(fd);
	}
	if (home_host && home_host[0] == '/' && !path_same(home_host, "/") &&
	    stat(home_host, &st) == 0)
		v->home_host =
		    (struct viewcheck_id){true, st.st_dev, st.st_ino};
	return 0;
}

int
viewcheck_run(const struct viewcheck *v, const char *root)
{
	struct vc c = {.v = v, .p = v->pol, .rfd = -1};
	char rootbuf[4096];
	size_t i, n;
	int r;

	snprintf(rootbuf, sizeof(rootbuf), "%s", root);
	for (n = strlen(rootbuf); n > 0 && rootbuf[n - 1] == '/'; n--)
		rootbuf[n - 1] = '\0';
	c.root = rootbuf;
	c.rfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (c.rfd < 0)
		return log_errno(-errno, "view check: %s: %m", root);
	r = collect_placed(&c);
	if (r >= 0)
		r = check_root(&c);
	if (r >= 0)
		r = check_project(&c);
	if (r >= 0)
		r = check_home(&c);
	for (i = 0; r >= 0 && i < c.p->fs.hide.n; i++)
		r = each_match(&c, c.p->fs.hide.v[i], check_hidden);
	for (i = 0; i < c.nplaced; i++)
		free(c.placed[i]);
	free(c.placed);
	close(c.rfd);
	return r;
}
