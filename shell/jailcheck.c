/*
 * jailcheck.c: aisb-shell --jailcheck, an audit of what a session
 * exposes, run from inside it (in the spirit of firejail's jailcheck):
 *
 *	aisb-shell -c 'aisb-shell --jailcheck'
 *
 * One line per check on stdout, "ok", "note" or "FOUND", and exit 1 if
 * anything was FOUND.  It only looks: it opens files read-only, lists
 * directories, reads /proc, and tries a few TCP connects that a sandbox
 * without a route must refuse at once (no packet can leave: an address
 * with no route fails in connect() itself).  Outside a sandbox the same
 * checks report what a plain login would expose, which is the twin the
 * tests compare against.
 *
 * aisb-shell --doctor --jailcheck runs this audit in a real session as
 * each agent (jailcheck_session, at the end) and reports its FOUND
 * lines as the doctor's failures.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <sys/xattr.h>

#include "aisb.h"
#include "args.h"
#include "callerenv.h"
#include "cgroup.h"
#include "doctor.h"
#include "mount.h"
#include "util.h"

/* Bounds of the filesystem walks: the check must end in seconds. */
#define JC_MAX_DEPTH 24
#define JC_MAX_ENTRIES 400000
#define JC_MAX_SOCKETS 20

struct jc {
	int found;
	unsigned long entries; /* walked so far */
	bool truncated;
	unsigned long privileged; /* setuid/setgid/caps on nosuid */
	unsigned long sockets; /* reported under /run, /var/run, /tmp */
};

static void jc_line(struct jc *j, const char *kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
jc_line(struct jc *j, const char *kind, const char *fmt, ...)
{
	va_list ap;

	if (strcmp(kind, "FOUND") == 0)
		j->found++;
	printf("jailcheck: %-5s ", kind);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* A file counts as readable when a byte (or a directory entry) comes. */
static bool
readable(const char *path)
{
	_cleanup_close_ int fd = -1;
	struct stat st;
	char c;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) < 0)
		return false;
	if (S_ISDIR(st.st_mode)) {
		DIR *d = fdopendir(fd);
		struct dirent *e;
		bool any = false;

		if (d == NULL)
			return false;
		(void)TAKE_FD(fd); /* d owns it now */
		while ((e = readdir(d)) != NULL)
			if (strcmp(e->d_name, ".") != 0 &&
			    strcmp(e->d_name, "..") != 0) {
				any = true;
				break;
			}
		closedir(d);
		return any;
	}
	return S_ISREG(st.st_mode) && read(fd, &c, 1) == 1;
}

static void
check_files(struct jc *j)
{
	static const char *const files[] = {
	    "/etc/shadow",
	    "/etc/shadow-",
	    "/etc/gshadow",
	    "/etc/gshadow-",
	    "/etc/sudoers",
	    "/etc/ssh/ssh_host_*_key",
	    "/etc/ssl/private/*",
	    "/root",
	    "/var/log/auth.log",
	    "/var/spool/cron/crontabs",
	    "/proc/1/environ",
	    "/proc/kcore",
	};
	const char *home = getenv("HOME");
	int before = j->found;
	size_t i, k;
	glob_t g;
	DIR *d;

	for (i = 0; i < ELEMENTSOF(files); i++) {
		if (glob(files[i], GLOB_NOSORT, NULL, &g) != 0)
			continue;
		for (k = 0; k < g.gl_pathc; k++)
			if (readable(g.gl_pathv[k]))
				jc_line(j, "FOUND", "file: %s is readable",
				    g.gl_pathv[k]);
		globfree(&g);
	}
	/* Homes other than one's own. */
	if ((d = opendir("/home")) != NULL) {
		struct dirent *e;

		while ((e = readdir(d)) != NULL) {
			char p[PATH_MAX];

			if (e->d_name[0] == '.')
				continue;
			snprintf(p, sizeof(p), "/home/%s", e->d_name);
			if (home && strcmp(p, home) == 0)
				continue;
			if (readable(p))
				jc_line(j, "FOUND",
				    "file: another home, %s, "
				    "is readable",
				    p);
		}
		closedir(d);
	}
	if (j->found == before)
		jc_line(j, "ok",
		    "files: no shadow, sudoers, host key, /root "
		    "or other home is readable");
}

static bool
privileged(int dfd, const char *name, const struct stat *st)
{
	_cleanup_close_ int fd = -1;
	char fp[64];

	if (st->st_mode & (S_ISUID | S_ISGID))
		return true;
	/* A file capability: security.capability on the file itself. */
	fd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return false;
	snprintf(fp, sizeof(fp), "/proc/self/fd/%d", fd);
	return getxattr(fp, "security.capability", NULL, 0) >= 0;
}

/*
 * Walk DFD (PATH) without following symlinks or leaving its device.
 * Sockets under /run, /var/run and /tmp, and setuid, setgid or
 * file-capability regular files are reported; a privileged file on a
 * nosuid mount is only counted (exec ignores the bits there).
 */
static void
walk(struct jc *j, int dfd, const char *path, int depth, dev_t dev)
{
	struct dirent *e;
	DIR *d;

	if (depth > JC_MAX_DEPTH)
		return;
	d = fdopendir(dfd);
	if (d == NULL) {
		close(dfd);
		return;
	}
	while ((e = readdir(d)) != NULL) {
		char sub[PATH_MAX];
		struct stat st;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (++j->entries > JC_MAX_ENTRIES) {
			j->truncated = true;
			break;
		}
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (snprintf(sub, sizeof(sub), "%s/%s",
		        strcmp(path, "/") == 0 ? "" : path,
		        e->d_name) >= (int)sizeof(sub))
			continue;
		if (S_ISSOCK(st.st_mode)) {
			if ((strncmp(sub, "/run/", 5) == 0 ||
			        strncmp(sub, "/var/run/", 9) == 0) &&
			    ++j->sockets <= JC_MAX_SOCKETS)
				jc_line(j, "FOUND",
				    "socket: %s (a host socket"
				    " may accept connect() even on a read-only"
				    " bind)",
				    sub);
			else if (strncmp(sub, "/tmp/", 5) == 0)
				jc_line(j, "note",
				    "socket: %s (the session's "
				    "own /tmp)",
				    sub);
		} else if (S_ISREG(st.st_mode) &&
		    privileged(dirfd(d), e->d_name, &st)) {
			struct statvfs sv;
			_cleanup_close_ int fd = openat(dirfd(d), e->d_name,
			    O_PATH | O_NOFOLLOW | O_CLOEXEC);

			if (fd >= 0 && fstatvfs(fd, &sv) == 0 &&
			    (sv.f_flag & ST_NOSUID))
				j->privileged++;
			else
				jc_line(j, "FOUND",
				    "privileged: %s is %s%s "
				    "on a mount without nosuid",
				    sub,
				    st.st_mode & S_ISUID       ? "setuid"
				        : st.st_mode & S_ISGID ? "setgid"
				                               : "",
				    st.st_mode & (S_ISUID | S_ISGID)
				        ? ""
				        : "file-capability");
		} else if (S_ISDIR(st.st_mode) && st.st_dev == dev) {
			int fd = openat(dirfd(d), e->d_name,
			    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (fd >= 0)
				walk(j, fd, sub, depth + 1, dev);
		} else if (S_ISDIR(st.st_mode)) {
			/* Another mount: walk it with its own device. */
			int fd = openat(dirfd(d), e->d_name,
			    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (fd >= 0 && strcmp(sub, "/proc") != 0 &&
			    strcmp(sub, "/sys") != 0)
				walk(j, fd, sub, depth + 1, st.st_dev);
			else if (fd >= 0)
				close(fd);
		}
		if (j->truncated)
			break;
	}
	closedir(d);
}

static void
check_walk(struct jc *j)
{
	int before = j->found;
	struct stat st;
	int fd;

	fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		jc_line(j, "FOUND", "walk: cannot open /: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	walk(j, fd, "/", 0, st.st_dev);
	if (j->sockets > JC_MAX_SOCKETS)
		jc_line(j, "FOUND", "socket: %lu more under /run",
		    j->sockets - JC_MAX_SOCKETS);
	if (j->truncated)
		jc_line(j, "note", "walk: stopped after %d entries",
		    JC_MAX_ENTRIES);
	if (j->found == before)
		jc_line(j, "ok",
		    "walk: %lu entries, no socket under /run, "
		    "no effective setuid, setgid or file-capability binary "
		    "(%lu on nosuid mounts)",
		    j->entries, j->privileged);
}

/* Is P the directory DIR or below it? */
static bool
in_tree(const char *p, const char *dir)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	return n > 1 && strncmp(p, dir, n) == 0 &&
	    (p[n] == '\0' || p[n] == '/');
}

/*
 * Is mount point MP part of what every session shows: /usr, its
 * merged-/usr links, /etc and everything below them, the fresh /proc,
 * /sys and /dev, /tmp and /run themselves, the home, the project?
 */
static bool
system_mount(const char *mp, const char *home, const char *proj)
{
	char top[256];
	size_t n = strcspn(mp + 1, "/");

	if (strcmp(mp, "/") == 0 || strcmp(mp, "/tmp") == 0 ||
	    strcmp(mp, "/run") == 0)
		return true;
	if (n >= sizeof(top))
		return false;
	memcpy(top, mp + 1, n);
	top[n] = '\0';
	if (mount_system_top(top) || strcmp(top, "proc") == 0 ||
	    strcmp(top, "sys") == 0 || strcmp(top, "dev") == 0)
		return true;
	return (home && home[0] == '/' && in_tree(mp, home)) ||
	    in_tree(mp, "/project") || (proj[0] && in_tree(mp, proj));
}

/* One of the view's covers (or an empty mount point): an empty
 * directory, or an empty file of mode 0. */
static bool
empty_cover(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return true; /* over-mounted or gone: nothing to show */
	if (S_ISREG(st.st_mode))
		return st.st_size == 0 && (st.st_mode & 07777) == 0;
	return S_ISDIR(st.st_mode) && !readable(path) &&
	    access(path, R_OK) == 0;
}

/* Undo mountinfo's octal escapes (\040 for a space) in place. */
static void
unescape(char *s)
{
	char *o = s;

	for (; *s; s++)
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' &&
		    s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 |
			    (s[3] - '0'));
			s += 3;
		} else
			*o++ = *s;
	*o = '\0';
}

/*
 * Every mount the view shows outside the system set: what
 * filesystem.readonly and .readwrite add, and with filesystem.view =
 * "whole-root-unsafe" each top-level entry of the host's root beyond
 * the system set.  The project is /project or the directory this runs
 * from, when that is a mount point (a session starts in its project).
 */
static void
check_view(struct jc *j)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	const char *home = getenv("HOME");
	char line[8192], proj[PATH_MAX] = "", seen[64][256];
	int before = j->found, nseen = 0, more = 0;

	if (f == NULL) {
		jc_line(j, "FOUND", "view: cannot read /proc/self/mountinfo");
		return;
	}
	if (getcwd(proj, sizeof(proj)) == NULL)
		proj[0] = '\0';
	while (fgets(line, sizeof(line), f)) {
		char *mp = NULL, *fstype = NULL, *sep, *save = NULL, *tok;
		int field = 0, k;

		sep = strstr(line, " - ");
		if (sep == NULL)
			continue;
		*sep = '\0';
		fstype = strtok_r(sep + 3, " \n", &save);
		for (tok = strtok_r(line, " ", &save); tok;
		     tok = strtok_r(NULL, " ", &save))
			if (++field == 5)
				mp = tok;
		if (mp == NULL || fstype == NULL)
			continue;
		unescape(mp);
		if (system_mount(mp, home, proj) || empty_cover(mp))
			continue;
		for (k = 0; k < nseen && strcmp(seen[k], mp) != 0; k++)
			;
		if (k < nseen)
			continue;
		if (nseen == (int)ELEMENTSOF(seen)) {
			more++;
			continue;
		}
		snprintf(seen[nseen++], sizeof(seen[0]), "%s", mp);
		jc_line(j, "FOUND",
		    "view: %s is shown (%s): a host path outside the "
		    "system set",
		    mp, fstype);
	}
	fclose(f);
	if (more)
		jc_line(j, "FOUND",
		    "view: %d more mounts outside the system set", more);
	if (j->found == before)
		jc_line(j, "ok",
		    "view: nothing outside the system set (/usr and its "
		    "links, /etc, the home, the project)");
}

static void
check_abstract(struct jc *j)
{
	FILE *f = fopen("/proc/net/unix", "re");
	char line[512];
	int n = 0;

	if (f == NULL) {
		jc_line(j, "note", "sockets: cannot read /proc/net/unix");
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		char *at = strchr(line, '@');

		if (at == NULL)
			continue;
		at[strcspn(at, "\n")] = '\0';
		if (++n <= JC_MAX_SOCKETS)
			jc_line(j, "FOUND",
			    "socket: abstract %s (this network "
			    "namespace)",
			    at);
	}
	fclose(f);
	if (n == 0)
		jc_line(j, "ok",
		    "sockets: no abstract unix socket in this "
		    "network namespace");
}

/*
 * One path p the human's git on the host reads (held read-only inside
 * a session, docs/threat-model.md "The project's git metadata"): report
 * whether this process could change it, or create it when missing.
 */
static void
git_path(struct jc *j, const char *p)
{
	char parent[3 * PATH_MAX];
	char *slash;
	int e;

	e = access(p, W_OK) == 0 ? 0 : errno;
	if (e == ENOENT) {
		snprintf(parent, sizeof(parent), "%s", p);
		slash = strrchr(parent, '/');
		if (slash)
			*slash = '\0';
		if (access(slash ? parent : ".", W_OK) == 0)
			jc_line(j, "FOUND",
			    "git: %s can be created (the human's git reads "
			    "it)",
			    p);
		else
			jc_line(j, "ok", "git: %s cannot be created", p);
	} else if (e == 0)
		jc_line(j, "FOUND",
		    "git: %s is writable (the human's git reads it)", p);
	else
		jc_line(j, "ok", "git: %s read-only (%s)", p, strerror(e));
}

/*
 * The repository git finds from the current directory (a session
 * starts in the project): the nearest .git upwards, or the git
 * directory a gitfile names, and in it what git reads as
 * configuration, hooks or a pointer elsewhere.
 */
static void
check_git(struct jc *j)
{
	static const char *const names[] = {
	    "config", "hooks", "commondir", "config.worktree"};
	char dir[PATH_MAX], dotgit[PATH_MAX + 8], line[PATH_MAX + 16],
	    gd[2 * PATH_MAX + 32], p[3 * PATH_MAX];
	struct stat st;
	size_t i, n;
	FILE *f;

	if (!getcwd(dir, sizeof(dir)) || dir[0] != '/') {
		jc_line(j, "note", "git: no current directory");
		return;
	}
	for (;;) {
		n = strlen(dir);
		snprintf(
		    dotgit, sizeof(dotgit), "%s%s.git", dir, n > 1 ? "/" : "");
		if (lstat(dotgit, &st) == 0)
			break;
		if (errno != ENOENT || n == 1) {
			jc_line(j, "note",
			    "git: no repository above the "
			    "current directory");
			return;
		}
		*strrchr(dir, '/') = '\0';
		if (!*dir)
			snprintf(dir, sizeof(dir), "/");
	}
	snprintf(gd, sizeof(gd), "%s", dotgit);
	if (S_ISREG(st.st_mode)) {
		git_path(j, dotgit);
		f = fopen(dotgit, "re");
		if (!f || !fgets(line, sizeof(line), f) ||
		    strncmp(line, "gitdir: ", 8) != 0) {
			if (f)
				fclose(f);
			jc_line(j, "note", "git: %s is not a gitfile", dotgit);
			return;
		}
		fclose(f);
		line[strcspn(line, "\n")] = '\0';
		/* A relative gitdir starts where the gitfile is. */
		snprintf(gd, sizeof(gd), "%s%s%s", line[8] == '/' ? "" : dir,
		    line[8] == '/' || n == 1 ? "" : "/", line + 8);
	} else if (!S_ISDIR(st.st_mode)) {
		jc_line(j, "note", "git: %s is not a directory", dotgit);
		return;
	}
	for (i = 0; i < ELEMENTSOF(names); i++) {
		snprintf(p, sizeof(p), "%s/%s", gd, names[i]);
		/* config.worktree is read only when the extension is on:
		 * only an existing one is reported. */
		if (i < 3 || access(p, F_OK) == 0)
			git_path(j, p);
	}
}

static void
check_status(struct jc *j)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];

	if (f == NULL) {
		jc_line(j, "FOUND", "status: cannot read /proc/self/status");
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		char *v;

		line[strcspn(line, "\n")] = '\0';
		if ((v = strchr(line, ':')) == NULL)
			continue;
		*v++ = '\0';
		v += strspn(v, " \t");
		if (strncmp(line, "Cap", 3) == 0)
			jc_line(j, strspn(v, "0") == strlen(v) ? "ok" : "FOUND",
			    "caps: %s %s", line, v);
		else if (strcmp(line, "NoNewPrivs") == 0)
			jc_line(j, strcmp(v, "1") == 0 ? "ok" : "FOUND",
			    "no_new_privs: %s", v);
		else if (strcmp(line, "Seccomp") == 0)
			jc_line(j, strcmp(v, "2") == 0 ? "ok" : "FOUND",
			    "seccomp: %s (2 is filter mode)", v);
	}
	fclose(f);
}

/*
 * The line discipline of a pty of one's own: TIOCSETD must be refused
 * (n_gsm, n_hdlc and the others are kernel code the kernel may
 * autoload).  It asks for N_TTY, which the pty has already: where it is
 * allowed, nothing changes.
 */
static void
check_tty(struct jc *j)
{
	_cleanup_close_ int m = -1, sl = -1;
	int ld = N_TTY;

	m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (m < 0 || unlockpt(m) < 0 ||
	    (sl = ioctl(m, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0) {
		jc_line(j, "note", "tty: no pty to try TIOCSETD on: %m");
		return;
	}
	if (ioctl(sl, TIOCSETD, &ld) == 0)
		jc_line(j, "FOUND",
		    "tty: TIOCSETD works (a line discipline can be attached)");
	else
		jc_line(j, errno == EPERM ? "ok" : "note",
		    "tty: TIOCSETD refused (%m)");
}

/*
 * connect() to ADDR:PORT with a 1 s bound.  Returns 0 when it connected,
 * else the errno (ETIMEDOUT when nothing answered).
 */
static int
try_connect(const char *addr, int port)
{
	_cleanup_close_ int fd = -1;
	struct sockaddr_in sin = {.sin_family = AF_INET};
	struct pollfd p;
	socklen_t l = sizeof(int);
	int err = 0;

	sin.sin_port = htons(port);
	if (inet_pton(AF_INET, addr, &sin.sin_addr) != 1)
		return EINVAL;
	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return errno;
	if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)) == 0)
		return 0;
	if (errno != EINPROGRESS)
		return errno;
	p = (struct pollfd){.fd = fd, .events = POLLOUT};
	if (poll(&p, 1, 1000) != 1)
		return ETIMEDOUT;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &l) < 0)
		return errno;
	return err;
}

static void
check_network(struct jc *j)
{
	/*
	 * Documentation (198.51.100.0/24), private and link-local metadata
	 * addresses: none may connect, nor hang (a hang means a route).
	 */
	static const char *const out[] = {
	    "198.51.100.1",
	    "10.0.0.1",
	    "169.254.169.254",
	};
	size_t i;
	int e;

	for (i = 0; i < ELEMENTSOF(out); i++) {
		e = try_connect(out[i], 80);
		if (e == 0 || e == ETIMEDOUT)
			jc_line(j, "FOUND", "network: %s:80 %s", out[i],
			    e ? "did not fail at once (a route out exists)"
			      : "connected");
		else
			jc_line(j, "ok", "network: %s:80 unreachable (%s)",
			    out[i], strerror(e));
	}
	e = try_connect("127.0.0.1", 3128);
	jc_line(j, "note", "network: the gate's proxy 127.0.0.1:3128 %s",
	    e == 0 ? "answers (gated mode)" : strerror(e));
}

int
jailcheck_main(void)
{
	struct jc j = {0};

	setvbuf(stdout, NULL, _IOLBF, 0);
	check_status(&j);
	check_tty(&j);
	check_files(&j);
	check_git(&j);
	check_view(&j);
	check_abstract(&j);
	check_walk(&j);
	check_network(&j);
	if (j.found)
		printf("jailcheck: %d finding%s\n", j.found,
		    j.found == 1 ? "" : "s");
	else
		printf("jailcheck: clean\n");
	return j.found ? 1 : 0;
}

/* ---- --doctor --jailcheck: the audit run as each agent ---------------- */

/*
 * Run a real session as PW (aisb-shell [--config F] -c 'SELF
 * --jailcheck') and report its findings.  The binary must be visible
 * inside (an installed /usr/bin/aisb-shell is; a build tree under a
 * hidden directory is not: that is reported, not guessed around).
 */
/*
 * The fix for a jailcheck session that never ran its check, by status:
 * the session itself refused (77, 78: its own line, in the output, says
 * why), or the inner shell could not run the binary (126, 127).
 */
static const char *
jc_fix(int status, int deleg)
{
	switch (status) {
	case AISB_EX_HOST:
		return deleg < 0
		    ? "the doctor could not delegate a cgroup for the session "
		      "(run it as root on a host with cgroups), or set "
		      "limits.enforce = \"best-effort\"; the session's line "
		      "above says what it could not enforce"
		    : "this host cannot run the agent's sessions as the policy "
		      "asks: fix what the session's line above names";
	case AISB_EX_CONFIG:
		return "correct the policy: aisb-shell --check-config --user "
		       "AGENT";
	case 126:
	case 127:
		return "the session cannot run this aisb-shell: install it "
		       "under /usr (a session's view shows /usr), or name its "
		       "directory in filesystem.readonly";
	default:
		return "run aisb-shell -c 'aisb-shell --jailcheck' as the "
		       "agent to see why";
	}
}

void
jailcheck_session(struct doctor *d, const struct passwd *pw)
{
	/* Through the entry point, as a login would: aisb-shell-main
	 * started directly refuses to run. */
	const char *self = callerenv_entry();
	_cleanup_free_ char *out = NULL;
	char check[300], cmd[PATH_MAX + 32], env_home[PATH_MAX + 8],
	    env_user[300];
	char key[CGROUP_KEYLEN];
	int fds[2], go[2], st = 0, n = 0, deleg, status;
	size_t len = 0;
	pid_t pid;

	snprintf(check, sizeof(check), "jailcheck[%s]", pw->pw_name);
	if (!self || strchr(self, '\'') || !(out = malloc(DOCTOR_MAX_OUT))) {
		doctor_report(d, FAIL, check, NULL, "cannot name this binary");
		return;
	}
	snprintf(cmd, sizeof(cmd), "'%s' --jailcheck", self);
	snprintf(env_home, sizeof(env_home), "HOME=%s", pw->pw_dir);
	snprintf(env_user, sizeof(env_user), "USER=%s", pw->pw_name);
	if (pipe2(fds, O_CLOEXEC) < 0 || pipe2(go, O_CLOEXEC) < 0 ||
	    (pid = fork()) < 0) {
		/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc): see util.h */
		doctor_report(
		    d, FAIL, check, NULL, "fork: %s", strerror(errno));
		return;
	}
	if (pid == 0) {
		char a0[] = "aisb-shell", a1[] = "--config", a3[] = "-c",
		     path[] = "PATH=/usr/local/bin:/usr/bin:/bin",
		     conf[PATH_MAX];
		char *argv[] = {a0, a1, conf, a3, cmd, NULL};
		char *envp[] = {path, env_home, env_user, NULL};
		int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
		char c;

		/* Until the parent has placed us in the delegated cgroup. */
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(126);
		if (null < 0 || dup2(null, 0) < 0 || dup2(fds[1], 1) < 0 ||
		    dup2(fds[1], 2) < 0 ||
		    initgroups(pw->pw_name, pw->pw_gid) < 0 ||
		    setresgid(pw->pw_gid, pw->pw_gid, pw->pw_gid) < 0 ||
		    setresuid(pw->pw_uid, pw->pw_uid, pw->pw_uid) < 0)
			_exit(126);
		snprintf(conf, sizeof(conf), "%s", d->conf ? d->conf : "");
		if (!d->conf) {
			argv[1] = a3;
			argv[2] = cmd;
			argv[3] = NULL;
		}
		execve(self, argv, envp);
		_exit(127);
	}
	close(fds[1]);
	close(go[0]);
	/*
	 * What pam_aisb's session phase gives a login: a delegated cgroup
	 * (lib/cgroup.h), so that the session can enforce the policy's
	 * limits, strict ones too.  Without it (not root, no usable cgroup
	 * hierarchy) the session says why it cannot start, below.
	 */
	deleg = cgroup_delegate(
	    pw->pw_name, pw->pw_uid, pw->pw_gid, pid, key, sizeof(key));
	(void)!write(go[1], "g", 1);
	close(go[1]);
	for (;;) {
		struct pollfd p = {.fd = fds[0], .events = POLLIN};
		ssize_t r;

		if (poll(&p, 1, 120 * 1000) != 1) {
			kill(pid, SIGKILL);
			break;
		}
		r = read(fds[0], out + len, DOCTOR_MAX_OUT - 1 - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
		if (len == DOCTOR_MAX_OUT - 1)
			break;
	}
	out[len] = '\0';
	close(fds[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (deleg == 0)
		(void)cgroup_reap(key);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0 &&
	    strstr(out, "jailcheck: clean")) {
		doctor_report(d, OK, check, NULL,
		    "a session of %s exposes nothing "
		    "unexpected",
		    pw->pw_name);
		return;
	}
	/*
	 * A host path outside the system set is one the policy named (or
	 * the whole-root view): listed as a warning; every other finding
	 * fails.
	 */
	for (char *l = strtok(out, "\n"); l; l = strtok(NULL, "\n")) {
		bool view = strstr(l, "FOUND view: ") != NULL;

		if (!strstr(l, "FOUND") || n++ >= 64)
			continue;
		if (view)
			doctor_report(d, WARN, check,
			    "make sure the agent should see it "
			    "(filesystem.readonly, .readwrite, .view)",
			    "%s", l);
		else
			doctor_report(d, FAIL, check,
			    "tighten the policy "
			    "(filesystem.hide, fewer binds)",
			    "%s", l);
	}
	if (n > 0)
		return;
	/* It did not run: say why, by who stopped it. */
	status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	doctor_report(d, FAIL, check, jc_fix(status, deleg),
	    "the check did not run (status %d)%s%.300s", status,
	    len ? ": " : "", out);
}
