/*
 * etcview.c: /etc in the view, an overlay over the root's /etc.  See
 * etcview.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/openat2.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <unistd.h>

#include "aisb.h"
#include "etcview.h"
#include "hide.h"
#include "log.h"
#include "session.h"
#include "util.h"
#include "viewfs.h"

/* The layers' tmpfs in the skeleton, while it is filled, and the two
 * layers in it (etcview.h: over the root's /etc, "m" under "t"). */
#define ETC_TOP ".aisb-etc"
#define ETC_T "t"
#define ETC_M "m"

/* The layers while they are filled (etcview_mount). */
struct etcview_layers {
	int low; /* the root's /etc (O_PATH) */
	int top; /* layer t: generated files and covers */
	int mid; /* layer m: the whiteouts under t's empty directories */
};

/* openat(O_PATH | O_DIRECTORY) of comp in each of n directory fds,
 * replacing them; 0 or -errno (the fds then stay as they were). */
static int
etcview_descend(int *fds, int n, const char *comp)
{
	int next[3], i;

	for (i = 0; i < n; i++) {
		next[i] = openat(fds[i], comp,
		    O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next[i] < 0) {
			int r = -errno;

			while (i-- > 0)
				close(next[i]);
			return r;
		}
	}
	for (i = 0; i < n; i++) {
		close(fds[i]);
		fds[i] = next[i];
	}
	return 0;
}

/* A cover for vpath in the layers when it lies below /etc and every
 * parent is a real directory in the lower /etc; else nothing (hide_path
 * covers it later, on the overlay). */
static int
etcview_whiteout(struct viewfs *c, const char *vpath, void *arg)
{
	const struct etcview_layers *layers = arg;
	_cleanup_free_ char *rel = NULL;
	/* low, top, mid: the same directory in each */
	int fd[3] = {-1, -1, -1};
	char *comp, *next, *sp = NULL;
	struct stat st;
	int i, r = 0;

	(void)c;
	if (strncmp(vpath, "/etc/", 5) != 0)
		return 0;
	rel = strdup(vpath + 5);
	if (!rel)
		return -ENOMEM;
	fd[0] = openat(layers->low, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	fd[1] = openat(layers->top, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	fd[2] = openat(layers->mid, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd[0] < 0 || fd[1] < 0 || fd[2] < 0) {
		/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc): see util.h */
		r = -errno;
		goto out;
	}
	for (comp = strtok_r(rel, "/", &sp); comp; comp = next) {
		next = strtok_r(NULL, "/", &sp);
		if (strcmp(comp, ".") == 0 || strcmp(comp, "..") == 0)
			goto out;
		if (!next)
			break;
		if (fstatat(fd[0], comp, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISDIR(st.st_mode))
			goto out;
		if ((mkdirat(fd[1], comp, 0755) < 0 && errno != EEXIST) ||
		    (mkdirat(fd[2], comp, 0755) < 0 && errno != EEXIST)) {
			r = -errno;
			goto out;
		}
		if ((r = etcview_descend(fd, 3, comp)) < 0)
			goto out;
	}
	if (!comp)
		goto out;
	/*
	 * As the covers elsewhere: a directory shows empty, a file as
	 * empty and unreadable (mode 0), a missing name stays missing even
	 * if the host creates it later (a whiteout: a 0/0 character
	 * device, which a user namespace may make since Linux 5.8).
	 *
	 * The empty directory needs no opaque xattr (user.overlay.opaque,
	 * which tmpfs takes only from Linux 6.6): overlayfs merges a
	 * directory of t with the same name in the layers below until one
	 * holds a whiteout there, so an empty directory in t over a
	 * whiteout in m shows empty whatever the host's /etc holds under
	 * that name, as an opaque one would.
	 */
	if (fstatat(fd[0], comp, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (mknodat(fd[1], comp, S_IFCHR | 0, 0) < 0 && errno != EEXIST)
			r = -errno;
	} else if (S_ISDIR(st.st_mode)) {
		if ((mkdirat(fd[1], comp, 0755) < 0 && errno != EEXIST) ||
		    (mknodat(fd[2], comp, S_IFCHR | 0, 0) < 0 &&
		        errno != EEXIST))
			r = -errno;
	} else {
		int f = openat(
		    fd[1], comp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0);

		if (f < 0 && errno != EEXIST)
			r = -errno;
		if (f >= 0) {
			r = fchmod(f, 0) < 0 ? -errno : 0;
			close(f);
		}
	}
out:
	for (i = 0; i < 3; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	return r;
}

static int
etcview_topfile(int top, const char *name, const char *content)
{
	_cleanup_close_ int fd = -1;
	size_t n = strlen(content);

	fd = openat(top, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, content, n) != (ssize_t)n)
		return -errno;
	return 0;
}

/* Make rel's parent directories in the top layer (mkdir -p). */
static int
etcview_topdirs(int top, const char *rel)
{
	char d[PATH_MAX];
	size_t n = strlen(rel);

	if (n >= sizeof(d))
		return -ENAMETOOLONG;
	memcpy(d, rel, n + 1);
	for (char *s = strchr(d, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (mkdirat(top, d, 0755) < 0 && errno != EEXIST)
			return -errno;
		*s = '/';
	}
	return 0;
}

#define ETC_BUNDLE_MAX (8 << 20) /* bytes of a system trust bundle */

/*
 * Read rel from the lower /etc when it is a regular file reached
 * without symlinks: 1 with *ret (malloc, *ret_len bytes), 0 when it is
 * not there (or not a plain file), -errno.
 */
static int
etcview_lowfile(int low, const char *rel, char **ret, size_t *ret_len)
{
	struct open_how how = {
	    .flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK,
	    .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH};
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *b = NULL;
	struct stat st;
	size_t n = 0;

	fd = (int)syscall(SYS_openat2, low, rel, &how, sizeof(how));
	if (fd < 0)
		return errno == ENOENT || errno == ELOOP || errno == ENOTDIR ||
		        errno == EXDEV
		    ? 0
		    : -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || st.st_size > ETC_BUNDLE_MAX)
		return 0;
	b = malloc((size_t)st.st_size + 1);
	if (b == NULL)
		return -ENOMEM;
	while (n < (size_t)st.st_size) {
		ssize_t k = read(fd, b + n, (size_t)st.st_size - n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			break;
		n += (size_t)k;
	}
	*ret = TAKE_PTR(b);
	*ret_len = n;
	return 1;
}

/* rel in the top layer: the lower bundle b (n bytes), then the CA. */
static int
etcview_bundle(
    int top, const char *rel, const char *b, size_t n, const char *ca)
{
	_cleanup_close_ int fd = -1;
	size_t calen = strlen(ca);
	int r;

	if ((r = etcview_topdirs(top, rel)) < 0)
		return r;
	fd = openat(top, rel, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if ((n > 0 && write(fd, b, n) != (ssize_t)n) ||
	    (n > 0 && b[n - 1] != '\n' && write(fd, "\n", 1) != 1) ||
	    write(fd, ca, calen) != (ssize_t)calen)
		return errno ? -errno : -EIO;
	return 0;
}

/*
 * With credentials: the session CA in the trust store the sandbox sees
 * (the host's stays as it is).  Each system bundle of AISB_CA_BUNDLES
 * that the lower /etc has as a regular file is shown with the CA
 * appended (the first one is made if none is there); the CA alone is
 * AISB_SESSION_CA, with HASH.N beside it for the programs that look
 * certificates up by subject hash in /etc/ssl/certs.
 */
static int
etcview_ca(const struct mount_opts *o, int low, int top)
{
	static const char *const bundles[] = {AISB_CA_BUNDLES};
	const char *ca = &AISB_SESSION_CA[5]; /* below /etc */
	bool made = false;
	char link[64];
	struct stat st;
	size_t i;
	int r = 0;

	for (i = 0; i < ELEMENTSOF(bundles) && r >= 0; i++) {
		_cleanup_free_ char *b = NULL;
		size_t n = 0;

		r = etcview_lowfile(low, bundles[i], &b, &n);
		if (r > 0) {
			r = etcview_bundle(top, bundles[i], b, n, o->ca_pem);
			made = true;
		}
	}
	if (r >= 0 && !made)
		r = etcview_bundle(top, bundles[0], NULL, 0, o->ca_pem);
	if (r < 0)
		return r;
	if ((r = etcview_topdirs(top, ca)) < 0 ||
	    (r = etcview_topfile(top, ca, o->ca_pem)) < 0)
		return r;
	for (i = 0; i < 10; i++) {
		snprintf(link, sizeof(link), "ssl/certs/%s.%zu", o->ca_hash, i);
		if (fstatat(low, link, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return symlinkat(strrchr(ca, '/') + 1, top, link) < 0
			    ? -errno
			    : 0;
	}
	return 0;
}

/*
 * The root's /etc/profile with the session's PATH set again at its end.
 * A login shell of the sh family (su -, an interactive ssh login) reads
 * /etc/profile, and Debian's sets PATH for every user, then its
 * profile.d scripts may add to it: without this the PATH of env.set (or
 * aisb's default) would hold only for the non-login forms.  The agent's
 * own ~/.profile runs after this and may still change it: that is the
 * agent's word inside its sandbox.  No profile in the root: nothing to
 * override.
 */
static int
etcview_profile(const struct mount_opts *o, int low, int top)
{
	static const char head[] =
	    "\n# aisb: the session's PATH (env.set, or aisb's default) wins "
	    "over the lines above\nPATH='";
	static const char tail[] = "'\nexport PATH\n";
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *b = NULL;
	size_t n = 0;
	bool ok;
	int r;

	r = etcview_lowfile(low, "profile", &b, &n);
	if (r <= 0)
		return r;
	fd = openat(
	    top, "profile", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	ok = (n == 0 || write(fd, b, n) == (ssize_t)n) &&
	    write(fd, head, sizeof(head) - 1) == (ssize_t)(sizeof(head) - 1);
	/* Single quotes: each ' of the value becomes '\''. */
	for (const char *s = o->path; ok && *s; s++) {
		size_t k = strcspn(s, "'");

		ok = k == 0 || write(fd, s, k) == (ssize_t)k;
		s += k;
		if (!*s)
			break;
		ok = ok && write(fd, "'\\''", 4) == 4;
	}
	ok = ok &&
	    write(fd, tail, sizeof(tail) - 1) == (ssize_t)(sizeof(tail) - 1);
	return ok ? 0 : errno ? -errno : -EIO;
}

/* "lowerdir" wants ':' and '\\' escaped. */
static void
etcview_escape(char *dst, size_t n, const char *src)
{
	size_t i = 0;

	for (; *src && i + 2 < n; src++) {
		if (*src == ':' || *src == '\\' || *src == ',')
			dst[i++] = '\\';
		dst[i++] = *src;
	}
	dst[i] = '\0';
}

int
etcview_mount(struct viewfs *c)
{
	const struct mount_opts *o = c->o;
	char low[4200], lowesc[8500], opt[8600];
	const char *opts[] = {"lowerdir", opt, "userxattr", NULL, NULL, NULL};
	_cleanup_close_ int lowfd = -1, tmpfd = -1, topfd = -1, midfd = -1;
	struct etcview_layers l;
	int r;

	if (!c->etc_deferred)
		return 0;
	snprintf(
	    low, sizeof(low), "%s/etc", strcmp(c->root, "/") ? c->root : "");
	lowfd = open(low, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (lowfd < 0)
		return log_errno(-errno, "%s: %m", low);
	/* One tmpfs holds the top layer (the generated files and, with
	 * credentials, copies of the system trust bundles, a few hundred
	 * KiB each) and the middle layer of whiteouts. */
	r = viewfs_tmpfs_at(c, c->rfd, ETC_TOP, "0755",
	    o->ca_pem ? 6 * ETC_BUNDLE_MAX : 1 << 20, VIEWFS_RW, false, &tmpfd);
	if (r < 0)
		return log_errno(r, "/etc layers: %m");
	if (mkdirat(tmpfd, ETC_T, 0755) < 0 || mkdirat(tmpfd, ETC_M, 0755) < 0)
		return log_errno(-errno, "/etc layers: %m");
	topfd = openat(tmpfd, ETC_T, O_PATH | O_DIRECTORY | O_CLOEXEC);
	midfd = openat(tmpfd, ETC_M, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (topfd < 0 || midfd < 0)
		return log_errno(-errno, "/etc layers: %m");
	l = (struct etcview_layers){.low = lowfd, .top = topfd, .mid = midfd};
	if ((r = etcview_topfile(topfd, "passwd", o->passwd)) < 0 ||
	    (r = etcview_topfile(topfd, "group", o->group)) < 0 ||
	    (r = etcview_topfile(topfd, "hostname", o->hostname)) < 0 ||
	    (r = etcview_topfile(topfd, "hosts", o->hosts)) < 0 ||
	    (r = etcview_topfile(topfd, "resolv.conf", o->resolv)) < 0 ||
	    (o->ca_pem && (r = etcview_ca(o, lowfd, topfd)) < 0) ||
	    (o->path && (r = etcview_profile(o, lowfd, topfd)) < 0) ||
	    (r = hide_walk(c, etcview_whiteout, &l)) < 0)
		return log_errno(r, "/etc layers: %m");
	etcview_escape(lowesc, sizeof(lowesc), low);
	snprintf(opt, sizeof(opt),
	    VIEWFS_AT "/" ETC_TOP "/" ETC_T ":" VIEWFS_AT "/" ETC_TOP "/" ETC_M
	              ":%s",
	    lowesc);
	/* No weaker fallback (binds over the host's files come off when the
	 * host replaces one by rename): without overlayfs there is no
	 * session.  Every kernel aisb runs on has it (README). */
	r = viewfs_fsmount("overlay", opts, VIEWFS_RO, c->rfd, "etc");
	if (r < 0)
		return log_errno(r,
		    "/etc: cannot mount the overlay (the kernel must offer "
		    "overlayfs in a user namespace, Linux 5.11 or later): %m");
	c->etc_overlay = true;
	/* The overlay holds its own reference to the layers. */
	if (umount2(VIEWFS_AT "/" ETC_TOP, MNT_DETACH) < 0 ||
	    unlinkat(c->rfd, ETC_TOP, AT_REMOVEDIR) < 0)
		return log_errno(-errno, "detach the /etc layers: %m");
	return 0;
}

/* One try of etcview_genfile: 0, 1 when vpath cannot be made, or -errno. */
static int
etcview_genattach(struct viewfs *c, const char *skel, const char *vpath)
{
	_cleanup_close_ int tfd = -1;
	int r;

	r = viewfs_mkpath(c, vpath, false, false, &tfd);
	if (r < 0) {
		log_debug("%s: %s", vpath, strerror(-r));
		return 1;
	}
	return viewfs_bind(
	    c->rfd, skel, false, VIEWFS_RO | MOUNT_ATTR_NOEXEC, tfd, "");
}

/* Write content into the scratch directory and bind it read-only at
 * vpath. */
static int
etcview_genfile(
    struct viewfs *c, const char *vpath, const char *content, bool required)
{
	char skel[64];
	const char *base = strrchr(vpath, '/') + 1;
	_cleanup_close_ int fd = -1;
	size_t n = strlen(content);
	int try, r = 0;

	snprintf(skel, sizeof(skel), VIEWFS_SCRATCH "/%s", base);
	fd =
	    openat(c->rfd, skel, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, content, n) != (ssize_t)n)
		return log_errno(-errno, "write %s: %m", skel);
	for (try = 0; try < VIEWFS_ATTACH_TRIES; try++)
		if ((r = etcview_genattach(c, skel, vpath)) != -ENOENT)
			break;
	if (r == 1 && required)
		return log_errno(-SESSION_EPOLICY,
		    "filesystem.root has no usable %s", vpath);
	if (r < 0)
		return log_errno(r, "bind %s: %m", vpath);
	/* The bind holds the file; the scratch name must go before the
	 * skeleton turns read-only (mount_setup checks it is gone). */
	if (unlinkat(c->rfd, skel, 0) < 0)
		return log_errno(-errno, "unlink %s: %m", skel);
	return 0;
}

/*
 * Without the overlay, with credentials: each system bundle the view
 * has gets a bound copy with the CA appended.  Nothing can be created
 * below the read-only /etc, so AISB_SESSION_CA and the hash link are
 * missing (NODE_EXTRA_CA_CERTS then names nothing: Node refuses the
 * gate's certificates, it does not go around them).
 */
static int
etcview_ca_binds(struct viewfs *c)
{
	static const char *const bundles[] = {AISB_CA_BUNDLES};
	const char *ca = c->o->ca_pem;
	char low[4200], vpath[128];
	_cleanup_close_ int lowfd = -1;
	int r;

	snprintf(
	    low, sizeof(low), "%s/etc", strcmp(c->root, "/") ? c->root : "");
	lowfd = open(low, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (lowfd < 0)
		return log_errno(-errno, "%s: %m", low);
	for (size_t i = 0; i < ELEMENTSOF(bundles); i++) {
		char *b = NULL, *text = NULL;
		size_t n = 0;

		r = etcview_lowfile(lowfd, bundles[i], &b, &n);
		if (r < 0)
			return log_errno(r, "/etc/%s: %m", bundles[i]);
		if (r == 0)
			continue;
		r = asprintf(&text, "%.*s%s%s", (int)n, b,
		    n && b[n - 1] != '\n' ? "\n" : "", ca);
		free(b);
		if (r < 0)
			return log_errno(-ENOMEM, "out of memory");
		snprintf(vpath, sizeof(vpath), "/etc/%s", bundles[i]);
		r = etcview_genfile(c, vpath, text, false);
		free(text);
		if (r < 0)
			return r;
	}
	return 0;
}

int
etcview_files(struct viewfs *c)
{
	const struct mount_opts *o = c->o;
	int r;

	if (c->etc_overlay)
		return 0;
	if ((r = etcview_genfile(c, "/etc/passwd", o->passwd, true)) < 0 ||
	    (r = etcview_genfile(c, "/etc/group", o->group, true)) < 0 ||
	    (r = etcview_genfile(c, "/etc/hostname", o->hostname, false)) < 0 ||
	    (r = etcview_genfile(c, "/etc/hosts", o->hosts, false)) < 0 ||
	    (r = etcview_genfile(c, "/etc/resolv.conf", o->resolv, false)) < 0)
		return r;
	if (o->ca_pem)
		return etcview_ca_binds(c);
	return 0;
}
