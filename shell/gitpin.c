/*
 * gitpin.c: hold a repository's git metadata read-only in the view.
 * See gitpin.h; what each path is and why it is held (or left
 * writable): docs/threat-model.md, "The project's git metadata".
 *
 * One concern, and longer than most files for it: the walk of what git
 * reads from one repository (its git directory, configuration and
 * includes, hooks, linked worktrees, submodules), which must see every
 * path git would follow to be worth anything.  pin.c holds each path;
 * lib/gitconf.c parses the configuration.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gitconf.h"
#include "gitpin.h"
#include "log.h"
#include "session.h"
#include "util.h"

#define PATHN 4096
/* core.hooksPath values remembered per git directory. */
#define MAX_HOOKS 8
/* git's own limit on nested includes (MAX_INCLUDE_DEPTH). */
#define MAX_INCLUDE 10
/* How deep submodule names (which may hold '/') go below modules/. */
#define MAX_MODNAME 8

/* A directory already handled: a git directory with what its
 * configuration said, or a worktree. */
struct seen {
	dev_t dev;
	ino_t ino;
	bool worktree;
	bool wtconfig; /* extensions.worktreeConfig */
	char *hooks[MAX_HOOKS]; /* core.hooksPath values as written */
	unsigned nhooks;
	char *cworktree; /* core.worktree as written */
};

struct gitpin {
	struct pin *c;
	struct seen *seen;
	size_t nseen;
};

static int worktree(struct gitpin *g, const char *wt, bool top, unsigned d);
static int gitdir(struct gitpin *g, const char *gd, const char *wt, unsigned d);

/* "project.protect HOSTPATH/REL" for log lines. */
static const char *
what(const struct gitpin *g, const char *rel, char *buf, size_t n)
{
	/* A long path is cut short: it is for a log line. */
	if (snprintf(buf, n, "project.protect %s%s%s",
	        g->c->host[0] ? g->c->host : "the project", *rel ? "/" : "",
	        rel) < 0)
		buf[0] = '\0';
	return buf;
}

/* The entry for the directory fd, or NULL; a new one when add.  A full
 * table refuses (78) through *err. */
static struct seen *
seen_get(struct gitpin *g, int fd, bool wt, bool add, int *err)
{
	struct stat st;
	size_t i;

	*err = 0;
	if (fstat(fd, &st) < 0) {
		*err = -errno;
		return NULL;
	}
	for (i = 0; i < g->nseen; i++)
		if (g->seen[i].dev == st.st_dev &&
		    g->seen[i].ino == st.st_ino && g->seen[i].worktree == wt)
			return &g->seen[i];
	if (!add)
		return NULL;
	if (g->nseen >= GITPIN_MAX_DIRS) {
		*err = log_errno(-SESSION_EPOLICY,
		    "project.protect: more than %u git directories and "
		    "worktrees in the project; refusing",
		    GITPIN_MAX_DIRS);
		return NULL;
	}
	g->seen[g->nseen].dev = st.st_dev;
	g->seen[g->nseen].ino = st.st_ino;
	g->seen[g->nseen].worktree = wt;
	return &g->seen[g->nseen++];
}

static void
seen_free(struct gitpin *g)
{
	size_t i;
	unsigned k;

	for (i = 0; i < g->nseen; i++) {
		for (k = 0; k < g->seen[i].nhooks; k++)
			free(g->seen[i].hooks[k]);
		free(g->seen[i].cworktree);
	}
	free(g->seen);
}

/* lstat of rel in the project without following symlinks: 0 with st,
 * -ENOENT, or another -errno. */
static int
look(struct gitpin *g, const char *rel, struct stat *st)
{
	_cleanup_free_ char *copy = strdup(rel);
	_cleanup_close_ int cur = -1;
	char *comp, *next, *sp = NULL;

	memset(st, 0, sizeof(*st));
	if (!copy)
		return -ENOMEM;
	cur = fcntl(g->c->pfd, F_DUPFD_CLOEXEC, 3);
	if (cur < 0)
		/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc): see util.h */
		return -errno;
	if (!*rel)
		return fstat(cur, st) < 0 ? -errno : 0;
	for (comp = strtok_r(copy, "/", &sp); comp; comp = next) {
		int flags = O_PATH | O_NOFOLLOW | O_CLOEXEC;
		int fd;

		next = strtok_r(NULL, "/", &sp);
		fd = openat(cur, comp, flags | (next ? O_DIRECTORY : 0));
		if (fd < 0)
			return -errno;
		close(cur);
		cur = fd;
	}
	return fstat(cur, st) < 0 ? -errno : 0;
}

/* Pin rel (flags as pin_path) and read it when it is a file: its text
 * in *ret (malloc'd, NUL-terminated; NULL when missing or a directory),
 * its length (which counts any NUL in it) in *ret_len. */
static int
pin_text(struct gitpin *g, const char *rel, unsigned flags, const char *content,
    size_t max, char **ret, size_t *ret_len)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *buf = NULL;
	char w[PATHN + 64];
	struct stat st;
	long k;
	int r;

	*ret = NULL;
	*ret_len = 0;
	what(g, rel, w, sizeof(w));
	if ((r = pin_path(g->c, rel, flags, content, w, &fd)) < 0)
		return r;
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	buf = malloc(max + 1);
	if (!buf)
		return -ENOMEM;
	k = pin_read(fd, buf, max);
	if (k == -EFBIG)
		return log_errno(-SESSION_EPOLICY,
		    "%s: larger than %zu bytes; refusing", w, max);
	if (k < 0)
		return log_errno((int)k, "%s: read: %s", w, strerror((int)-k));
	*ret_len = (size_t)k;
	*ret = TAKE_PTR(buf);
	return 0;
}

/*
 * A pointer file's text as git takes it: trailing newlines and carriage
 * returns (all of git's white space when all) cut from the whole of its
 * len bytes, then the text up to the first NUL.  ("x\n\0" is "x\n" to
 * git, as a C string cut before the trim would not be.)
 */
static void
trim_eol(char *s, size_t len, bool all)
{
	while (len &&
	    (s[len - 1] == '\n' || s[len - 1] == '\r' ||
	        (all && (s[len - 1] == ' ' || s[len - 1] == '\t'))))
		len--;
	s[len] = '\0';
}

/* An open failure inside the project: what its content decides refuses
 * the session as a policy problem (the agent can cause it). */
static int
open_err_policy(int e)
{
	return e == EACCES || e == ENOTDIR || e == ELOOP || e == ENAMETOOLONG
	    ? -SESSION_EPOLICY
	    : -e;
}

/* Would git take this HEAD as one (validate_headref): "ref: refs/..."
 * or an object name in hex? */
static bool
headref(const char *t)
{
	size_t n = 0;

	if (!strncmp(t, "ref:", 4)) {
		t += 4;
		while (*t == ' ' || *t == '\t' || *t == '\n' || *t == '\r')
			t++;
		return !strncmp(t, "refs/", 5);
	}
	while ((t[n] >= '0' && t[n] <= '9') || (t[n] >= 'a' && t[n] <= 'f') ||
	    (t[n] >= 'A' && t[n] <= 'F'))
		n++;
	return n >= 40;
}

/* ---- configuration ---- */

struct scan {
	struct gitpin *g;
	struct seen *s; /* the git directory the configuration is of */
	char dir[PATHN]; /* directory of the file read (for includes) */
	const char *file;
	unsigned depth;
};

static int scan_file(struct gitpin *g, struct seen *s, const char *rel,
    bool create, unsigned depth);

static int
remember(char **slot, const char *value)
{
	char *v = strdup(value);

	if (!v)
		return -ENOMEM;
	free(*slot);
	*slot = v;
	return 0;
}

static int
scan_var(const char *var, const char *value, void *data)
{
	struct scan *sc = data;
	char w[PATHN + 64], rel[PATHN];
	int r;

	if (!strcmp(var, "extensions.worktreeconfig")) {
		sc->s->wtconfig = true;
		return 0;
	}
	if (!strcmp(var, "core.worktree")) {
		if (!value)
			return 0;
		return remember(&sc->s->cworktree, value);
	}
	if (!strcmp(var, "core.hookspath")) {
		if (!value)
			/* git refuses a hooksPath without a value. */
			return log_errno(-SESSION_EPOLICY,
			    "%s: core.hooksPath has no value",
			    what(sc->g, sc->file, w, sizeof(w)));
		if (sc->s->nhooks >= MAX_HOOKS)
			return log_errno(-SESSION_EPOLICY,
			    "%s: more than %d core.hooksPath settings",
			    what(sc->g, sc->file, w, sizeof(w)), MAX_HOOKS);
		return remember(&sc->s->hooks[sc->s->nhooks++], value);
	}
	if (strcmp(var, "include.path") != 0 &&
	    !gitconf_key(var, "includeif", "path", NULL, NULL))
		return 0;
	/* An include: whatever its condition, the file it names is read
	 * as configuration when the condition holds. */
	what(sc->g, sc->file, w, sizeof(w));
	if (!value)
		return log_errno(
		    -SESSION_EPOLICY, "%s: %s has no value", w, var);
	r = pin_resolve(
	    sc->g->c, sc->dir, value, PIN_R_CONFIG, w, rel, sizeof(rel));
	if (r <= 0)
		return r;
	if (sc->depth + 1 > MAX_INCLUDE)
		return log_errno(-SESSION_EPOLICY,
		    "%s: includes nest deeper than %d", w, MAX_INCLUDE);
	return scan_file(sc->g, sc->s, rel, true, sc->depth + 1);
}

/* Hold the configuration file rel read-only (created empty when create
 * and missing) and follow what it says. */
static int
scan_file(struct gitpin *g, struct seen *s, const char *rel, bool create,
    unsigned depth)
{
	_cleanup_free_ char *text = NULL;
	struct scan sc = {.g = g, .s = s, .file = rel, .depth = depth};
	char w[PATHN + 64];
	unsigned line = 0;
	size_t len;
	int r;

	r = pin_text(g, rel,
	    PIN_RO | PIN_FILE | (create ? PIN_CREATE : PIN_OPTIONAL), NULL,
	    GITCONF_MAX, &text, &len);
	if (r < 0 || !text)
		return r;
	pin_dirname(rel, sc.dir, sizeof(sc.dir));
	/* The whole text: git reads past a NUL (which only ends a value
	 * for its callers), and so must this. */
	r = gitconf_parse(text, len, scan_var, &sc, &line);
	if (r == -EINVAL)
		return log_errno(-SESSION_EPOLICY,
		    "%s: line %u is not valid git configuration (git "
		    "refuses it too); refusing",
		    what(g, rel, w, sizeof(w)), line);
	return r;
}

/* Hold the core.hooksPath directories of s, relative ones from base
 * (the worktree, or a bare repository's git directory); none when base
 * is NULL (a worktree outside the project). */
static int
pin_hooks(struct gitpin *g, const struct seen *s, const char *base)
{
	char w[PATHN + 64], rel[PATHN];
	unsigned k;
	int r;

	for (k = 0; k < s->nhooks; k++) {
		if (!base && s->hooks[k][0] != '/')
			continue;
		snprintf(w, sizeof(w), "project.protect core.hooksPath %s",
		    s->hooks[k]);
		r = pin_resolve(g->c, base ? base : "", s->hooks[k],
		    PIN_R_CONFIG, w, rel, sizeof(rel));
		if (r < 0)
			return r;
		if (r == 0)
			continue;
		if ((r = pin_path(g->c, rel, PIN_RO | PIN_DIR, NULL, w, NULL)) <
		    0)
			return r;
	}
	return 0;
}

/* ---- submodules ---- */

struct modscan {
	struct gitpin *g;
	const char *wt;
	int err;
};

static int
modules_var(const char *var, const char *value, void *data)
{
	struct modscan *m = data;
	char rel[PATHN], w[PATHN + 64];
	struct stat st;
	int r;

	if (!gitconf_key(var, "submodule", "path", NULL, NULL) || !value ||
	    !*value || value[0] == '/')
		return 0;
	/* .gitmodules is the agent's: a path git would not use as a
	 * submodule's is skipped, never an error. */
	snprintf(w, sizeof(w), "project.protect submodule %s", value);
	if (pin_resolve(m->g->c, m->wt, value, 0, w, rel, sizeof(rel)) != 1)
		return 0;
	if (look(m->g, rel, &st) < 0 || !S_ISDIR(st.st_mode))
		return 0;
	r = worktree(m->g, rel, false, 1);
	if (r < 0)
		m->err = r;
	return r;
}

/* The submodules a worktree's .gitmodules names (read, not held: it is
 * a tracked file the agent edits; git takes no program from it). */
static int
gitmodules(struct gitpin *g, const char *wt)
{
	_cleanup_free_ char *text = NULL;
	_cleanup_close_ int fd = -1;
	struct modscan m = {g, wt, 0};
	char rel[PATHN];
	struct stat st;
	long k;
	int r;

	/* wt is held: no component of rel but the last can change. */
	if (pin_join(wt, ".gitmodules", rel, sizeof(rel)) < 0 ||
	    look(g, rel, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	fd = openat(g->c->pfd, rel, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	text = malloc(GITCONF_MAX + 1);
	if (!text)
		return -ENOMEM;
	k = pin_read(fd, text, GITCONF_MAX);
	if (k < 0)
		return 0;
	r = gitconf_parse(text, (size_t)k, modules_var, &m, NULL);
	return m.err < 0 ? m.err : (r == -ENOMEM ? r : 0);
}

/* Does the directory rel look like a git directory (git wants HEAD,
 * objects and refs)?  Loosely: any of them, a config or a commondir
 * makes it one here. */
static bool
looks_gitdir(struct gitpin *g, const char *rel)
{
	static const char *const sig[] = {
	    "HEAD", "objects", "refs", "config", "commondir"};
	char p[PATHN];
	struct stat st;
	size_t i;

	for (i = 0; i < ELEMENTSOF(sig); i++)
		if (pin_join(rel, sig[i], p, sizeof(p)) == 0 &&
		    look(g, p, &st) == 0)
			return true;
	return false;
}

/* Each git directory below gd/modules (names may hold '/'). */
static int
modules(struct gitpin *g, const char *dir, unsigned level, unsigned d)
{
	_cleanup_close_ int fd = -1;
	int dfd;
	DIR *dp;
	struct dirent *e;
	char rel[PATHN];
	int r = 0;

	fd = openat(
	    g->c->pfd, dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		char w[PATHN + 64];
		int en = errno;

		return en == ENOENT
		    ? 0
		    : log_errno(open_err_policy(en), "%s: %s",
		          what(g, dir, w, sizeof(w)), strerror(en));
	}
	dfd = TAKE_FD(fd);
	dp = fdopendir(dfd);
	if (!dp) {
		r = -errno;
		close(dfd);
		return r;
	}
	while ((e = readdir(dp))) {
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (pin_join(dir, e->d_name, rel, sizeof(rel)) < 0) {
			r = -ENAMETOOLONG;
			break;
		}
		if ((r = look(g, rel, &st)) < 0)
			break;
		if (S_ISLNK(st.st_mode)) {
			char w[PATHN + 64];

			r = log_errno(-SESSION_EPOLICY,
			    "%s: a symlink among the submodules' git "
			    "directories; refusing",
			    what(g, rel, w, sizeof(w)));
			break;
		}
		if (!S_ISDIR(st.st_mode))
			continue;
		if (looks_gitdir(g, rel))
			r = gitdir(g, rel, NULL, d + 1);
		else if (level < MAX_MODNAME)
			r = modules(g, rel, level + 1, d);
		if (r < 0)
			break;
	}
	closedir(dp);
	return r;
}

/* ---- git directories ---- */

/* A linked worktree's own files in gd (cs: what its common directory's
 * configuration says): the pointer back to its worktree and its
 * per-worktree configuration; wt its worktree when known. */
static int
linked(struct gitpin *g, const char *gd, const struct seen *cs, const char *wt,
    unsigned d)
{
	_cleanup_free_ char *text = NULL;
	char rel[PATHN], wtl[PATHN], w[PATHN + 64];
	struct seen own = {0};
	const char *where = wt;
	unsigned k;
	size_t len;
	int r;

	if (pin_join(gd, "gitdir", rel, sizeof(rel)) < 0)
		return -ENAMETOOLONG;
	r = pin_text(
	    g, rel, PIN_RO | PIN_FILE | PIN_OPTIONAL, NULL, PATHN, &text, &len);
	if (r < 0)
		return r;
	if (!where && text) {
		/* The worktree's .git file, as git wrote it: held too when
		 * it is in the project. */
		char dotgit[PATHN];
		const char *base;

		trim_eol(text, len, true);
		r = *text
		    ? pin_resolve(g->c, gd, text, 0, what(g, rel, w, sizeof(w)),
		          dotgit, sizeof(dotgit))
		    : 0;
		if (r < 0)
			return r;
		base = strrchr(dotgit, '/');
		if (r == 1 && !strcmp(base ? base + 1 : dotgit, ".git")) {
			pin_dirname(dotgit, wtl, sizeof(wtl));
			if ((r = worktree(g, wtl, false, d + 1)) < 0)
				return r;
			where = wtl;
		}
	}
	if (pin_join(gd, "config.worktree", rel, sizeof(rel)) < 0)
		return -ENAMETOOLONG;
	/* Per-worktree configuration is read when the common one turns
	 * it on; it may also set core.hooksPath and include files. */
	if ((r = scan_file(g, &own, rel, cs->wtconfig, 0)) < 0)
		goto out;
	/* Relative hooksPath values start at the worktree: unknown or
	 * outside the project, only absolute ones can reach it. */
	if ((r = pin_hooks(g, cs, where)) < 0 ||
	    (r = pin_hooks(g, &own, where)) < 0)
		goto out;
out:
	for (k = 0; k < own.nhooks; k++)
		free(own.hooks[k]);
	free(own.cworktree);
	return r;
}

/* A main git directory (not a linked worktree's): its configuration,
 * hooks and legacy remotes, its worktrees and its submodules; wt its
 * worktree when known. */
static int
main_gitdir(struct gitpin *g, const char *gd, struct seen *s, const char *wt,
    unsigned d)
{
	static const char *const dirs[] = {"hooks", "remotes", "branches"};
	_cleanup_close_ int wfd = -1;
	char rel[PATHN], mwt[PATHN], w[PATHN + 64];
	const char *where = wt;
	bool elsewhere = false; /* the worktree is outside the project */
	DIR *dp;
	struct dirent *e;
	size_t i;
	int r;

	if (pin_join(gd, "config", rel, sizeof(rel)) < 0)
		return -ENAMETOOLONG;
	if ((r = scan_file(g, s, rel, true, 0)) < 0)
		return r;
	if (pin_join(gd, "config.worktree", rel, sizeof(rel)) < 0)
		return -ENAMETOOLONG;
	if ((r = scan_file(g, s, rel, s->wtconfig, 0)) < 0)
		return r;
	/* hooks: run by git.  remotes, branches: legacy remote
	 * definitions, read for a remote the configuration lacks. */
	for (i = 0; i < ELEMENTSOF(dirs); i++) {
		if (pin_join(gd, dirs[i], rel, sizeof(rel)) < 0)
			return -ENAMETOOLONG;
		if ((r = pin_path(g->c, rel, PIN_RO | PIN_DIR, NULL,
		         what(g, rel, w, sizeof(w)), NULL)) < 0)
			return r;
	}
	if (s->cworktree) {
		/* core.worktree (relative to the git directory) puts the
		 * worktree, where a relative hooksPath starts, elsewhere; a
		 * submodule's git directory names its worktree so. */
		r = pin_resolve(g->c, gd, s->cworktree, PIN_R_CONFIG,
		    what(g, gd, w, sizeof(w)), mwt, sizeof(mwt));
		if (r < 0)
			return r;
		if (r == 1) {
			struct stat st;

			if (!wt && look(g, mwt, &st) == 0 &&
			    S_ISDIR(st.st_mode) &&
			    (r = worktree(g, mwt, false, d + 1)) < 0)
				return r;
			where = mwt;
		} else {
			elsewhere = true;
		}
	}
	if (!where && !elsewhere) {
		/* A ".git" directory's worktree is its parent. */
		const char *base = strrchr(gd, '/');

		if (!strcmp(base ? base + 1 : gd, ".git")) {
			pin_dirname(gd, mwt, sizeof(mwt));
			where = mwt;
		}
	}
	if ((r = pin_hooks(g, s, elsewhere ? NULL : where ? where : gd)) < 0)
		return r;
	if (where && (r = gitmodules(g, where)) < 0)
		return r;

	/* Linked worktrees. */
	if (pin_join(gd, "worktrees", rel, sizeof(rel)) < 0)
		return -ENAMETOOLONG;
	wfd = openat(
	    g->c->pfd, rel, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (wfd < 0 && errno != ENOENT) {
		int en = errno;

		return log_errno(open_err_policy(en), "%s: %s",
		    what(g, rel, w, sizeof(w)), strerror(en));
	}
	if (wfd >= 0) {
		int dfd = TAKE_FD(wfd);

		dp = fdopendir(dfd);
		if (!dp) {
			r = -errno;
			close(dfd);
			return r;
		}
		while ((e = readdir(dp))) {
			char wd[PATHN], cdf[PATHN];
			struct stat st;

			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			if (pin_join(rel, e->d_name, wd, sizeof(wd)) < 0 ||
			    pin_join(wd, "commondir", cdf, sizeof(cdf)) < 0) {
				r = -ENAMETOOLONG;
				break;
			}
			if ((r = look(g, wd, &st)) < 0)
				break;
			if (S_ISLNK(st.st_mode)) {
				r = log_errno(-SESSION_EPOLICY,
				    "%s: a symlink among the worktrees; "
				    "refusing",
				    what(g, wd, w, sizeof(w)));
				break;
			}
			if (!S_ISDIR(st.st_mode))
				continue;
			if (look(g, cdf, &st) == -ENOENT)
				/* Not a worktree git knows: held as it is. */
				r = pin_path(g->c, wd, PIN_RO | PIN_DIR, NULL,
				    what(g, wd, w, sizeof(w)), NULL);
			else
				r = gitdir(g, wd, NULL, d + 1);
			if (r < 0)
				break;
		}
		closedir(dp);
		if (r < 0)
			return r;
	}
	if (pin_join(gd, "modules", rel, sizeof(rel)) < 0)
		return -ENAMETOOLONG;
	return modules(g, rel, 0, d);
}

/*
 * The first step into the directory rel (a worktree when wt, else a git
 * directory) at depth d: refuses too deep a nesting, holds it (the agent
 * cannot rename it away and put another there) with *fd open on it, and
 * gives its new entry in *s.  1 then; 0 when it is missing or was
 * handled already; a negative errno on failure.
 */
static int
enter_once(struct gitpin *g, const char *rel, bool wt, unsigned d, int *fd,
    struct seen **s)
{
	char w[PATHN + 64];
	int r;

	*s = NULL;
	if (d > GITPIN_MAX_DEPTH)
		return log_errno(-SESSION_EPOLICY,
		    "%s: %s nest deeper than %d; refusing",
		    what(g, rel, w, sizeof(w)),
		    wt ? "worktrees" : "git directories", GITPIN_MAX_DEPTH);
	if ((r = pin_path(g->c, rel, PIN_DIR | PIN_OPTIONAL, NULL,
	         what(g, rel, w, sizeof(w)), fd)) < 0)
		return r;
	if (*fd < 0)
		return 0;
	if (seen_get(g, *fd, wt, false, &r) || r < 0)
		return r;
	*s = seen_get(g, *fd, wt, true, &r);
	if (*s == NULL)
		return r < 0 ? r : 0;
	return 1;
}

/*
 * The git directory gd (relative to the project), for the worktree wt
 * when known.  Its commondir says whether it is a main git directory
 * or a linked worktree's; a main one without commondir gets ".".
 */
static int
gitdir(struct gitpin *g, const char *gd, const char *wt, unsigned d)
{
	_cleanup_close_ int fd = -1, cfd = -1;
	_cleanup_free_ char *text = NULL;
	char rel[PATHN], cd[PATHN], w[PATHN + 64];
	struct seen *s, *cs;
	struct stat a, b;
	size_t len;
	int r;

	if ((r = enter_once(g, gd, false, d, &fd, &s)) <= 0)
		return r;
	if (pin_join(gd, "commondir", rel, sizeof(rel)) < 0)
		return -ENAMETOOLONG;
	r = pin_text(
	    g, rel, PIN_RO | PIN_FILE | PIN_CREATE, ".\n", PATHN, &text, &len);
	if (r < 0)
		return r;
	what(g, rel, w, sizeof(w));
	if (!text)
		/* Missing, and the directory is read-only: no commondir, and
		 * none can be made. */
		return main_gitdir(g, gd, s, wt, d);
	trim_eol(text, len, false);
	if (!*text)
		return log_errno(-SESSION_EPOLICY,
		    "%s: empty (git refuses it); refusing", w);
	r = pin_resolve(g->c, gd, text, 0, w, cd, sizeof(cd));
	if (r < 0)
		return r;
	if (r == 0)
		return log_errno(-SESSION_EPOLICY,
		    "%s: points outside the project (%s); refusing", w, text);
	if ((r = look(g, cd, &a)) < 0 || (r = fstat(fd, &b) < 0 ? -errno : 0))
		return log_errno(-SESSION_EPOLICY,
		    "%s: points to %s, which is not there (%s); refusing", w,
		    text, strerror(-r));
	if (a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		return main_gitdir(g, gd, s, wt, d);
	/* A linked worktree's git directory: its common one first (for
	 * what its configuration says), then its own files. */
	if (!S_ISDIR(a.st_mode))
		return log_errno(-SESSION_EPOLICY,
		    "%s: points to %s, not a directory; refusing", w, text);
	if ((r = gitdir(g, cd, NULL, d + 1)) < 0)
		return r;
	cfd = openat(g->c->pfd, *cd ? cd : ".",
	    O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	cs = cfd >= 0 ? seen_get(g, cfd, false, false, &r) : NULL;
	if (!cs)
		return log_errno(r < 0 ? r : -EIO, "%s: lost %s", w, cd);
	return linked(g, gd, cs, wt, d);
}

int
gitpin_gitfile(struct pin *c, const char *dotgit, char *out, size_t n)
{
	struct gitpin g = {.c = c};
	_cleanup_free_ char *text = NULL;
	char dir[PATHN], w[PATHN + 64];
	size_t len;
	int r;

	if (n)
		out[0] = '\0';
	what(&g, dotgit, w, sizeof(w));
	r = pin_text(
	    &g, dotgit, PIN_RO | PIN_FILE, NULL, 1U << 20, &text, &len);
	if (r < 0)
		return r;
	if (!text)
		return log_errno(-SESSION_EPOLICY, "%s: unreadable", w);
	/* As git reads it: "gitdir: " first, newlines cut at the end,
	 * then up to a NUL, relative to the file's directory. */
	if (strncmp(text, "gitdir: ", 8) != 0)
		return log_errno(-SESSION_EPOLICY,
		    "%s: a file that does not start with \"gitdir: \" (git "
		    "refuses it too); refusing",
		    w);
	trim_eol(text, len, false);
	if (!text[8])
		return log_errno(
		    -SESSION_EPOLICY, "%s: names no directory; refusing", w);
	pin_dirname(dotgit, dir, sizeof(dir));
	return pin_resolve(c, dir, text + 8, 0, w, out, n);
}

/*
 * With .git a directory (or none), git on the host falls back to the
 * worktree directory itself as a bare repository when .git is not valid
 * (the agent can break HEAD), and the agent could make one there: HEAD,
 * objects, refs and a config of its own.  A HEAD held there (an empty
 * directory when missing) rules that out; a HEAD git would take (a
 * bare repository as the worktree, or a file that reads as one) makes
 * the directory a git directory to hold as well.
 */
static int
guard_head(struct gitpin *g, const char *wt, unsigned d)
{
	_cleanup_free_ char *text = NULL;
	char head[PATHN], w[PATHN + 64];
	struct stat st;
	size_t len;
	int r;

	if (pin_join(wt, "HEAD", head, sizeof(head)) < 0)
		return -ENAMETOOLONG;
	what(g, head, w, sizeof(w));
	r = look(g, head, &st);
	if (r == 0 && S_ISREG(st.st_mode)) {
		r = pin_text(
		    g, head, PIN_RO | PIN_FILE, NULL, 1U << 20, &text, &len);
		if (r < 0)
			return r;
		if (text && headref(text))
			return gitdir(g, wt, NULL, d + 1);
		return 0;
	}
	return pin_path(g->c, head, PIN_RO, NULL, w, NULL);
}

/*
 * The worktree directory wt: whatever its .git is.  top: the project
 * or a repository the policy names, where a missing .git is held as an
 * empty directory (so none can be made); a submodule's or linked
 * worktree's missing .git is left alone.
 */
static int
worktree(struct gitpin *g, const char *wt, bool top, unsigned d)
{
	_cleanup_close_ int fd = -1;
	char dotgit[PATHN], gd[PATHN], w[PATHN + 64];
	struct seen *s;
	struct stat st;
	int r;

	if ((r = enter_once(g, wt, true, d, &fd, &s)) <= 0)
		return r;
	if (pin_join(wt, ".git", dotgit, sizeof(dotgit)) < 0)
		return -ENAMETOOLONG;
	what(g, dotgit, w, sizeof(w));
	r = look(g, dotgit, &st);
	if (r == -ENOENT) {
		if (!top)
			return 0;
		/* No repository: an empty .git, held, so none can be
		 * made inside. */
		r = pin_path(g->c, dotgit, PIN_RO | PIN_DIR, NULL, w, NULL);
		if (r < 0)
			return r;
	} else if (r < 0) {
		return log_errno(
		    open_err_policy(-r), "%s: %s", w, strerror(-r));
	} else if (S_ISLNK(st.st_mode)) {
		return log_errno(-SESSION_EPOLICY,
		    "%s: a symlink; refusing (the host would follow it; "
		    "remove it, or drop the entry)",
		    w);
	} else if (S_ISDIR(st.st_mode)) {
		/* An empty .git (the placeholder of an earlier session, or
		 * left by hand) is no repository to git: held as it is. */
		r = looks_gitdir(g, dotgit)
		    ? gitdir(g, dotgit, wt, d + 1)
		    : pin_path(g->c, dotgit, PIN_RO | PIN_DIR, NULL, w, NULL);
		if (r < 0)
			return r;
	} else if (S_ISREG(st.st_mode)) {
		/* A gitfile: "gitdir: PATH".  Held read-only, and so is
		 * the git directory it names, which must be in the
		 * project: one elsewhere cannot be held from here. */
		r = gitpin_gitfile(g->c, dotgit, gd, sizeof(gd));
		if (r < 0)
			return r;
		if (r == 0)
			return log_errno(-SESSION_EPOLICY,
			    "%s: a gitfile naming a git directory outside the "
			    "project; refusing (make the project the "
			    "repository itself, or its superproject)",
			    w);
		r = look(g, gd, &st);
		if (r == -ENOENT)
			/* Held empty: git on the host refuses it, and the
			 * agent cannot make it. */
			return pin_path(
			    g->c, gd, PIN_RO | PIN_DIR, NULL, w, NULL);
		if (r < 0 || !S_ISDIR(st.st_mode))
			return log_errno(-SESSION_EPOLICY,
			    "%s: names %s, which is not a directory; refusing",
			    w, gd);
		/* A gitfile is fatal to git when it leads nowhere: no
		 * fallback to the worktree directory, no guard needed. */
		return gitdir(g, gd, wt, d + 1);
	} else {
		return log_errno(-SESSION_EPOLICY,
		    "%s: neither a directory nor a file; refusing", w);
	}
	return guard_head(g, wt, d);
}

int
gitpin_repo(struct pin *c, const char *wt)
{
	struct gitpin g = {.c = c};
	int r;

	g.seen = calloc(GITPIN_MAX_DIRS, sizeof(*g.seen));
	if (!g.seen)
		return -ENOMEM;
	r = worktree(&g, wt, true, 0);
	seen_free(&g);
	return r;
}
