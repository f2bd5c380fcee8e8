/*
 * registry.c: the session registry's files.  See registry.h.
 *
 * A file, one kvline (lib/kvline.h) a line:
 *
 *   registry version=1
 *   session id= user= uid= pid= pstart= boot= init= started= project=
 *           peer= tty= form= mode=
 *   live open= up= down= hidden= updated=
 *   egress name= port= via= rule= allowed= denied= failed= lookups=
 *          open= up= down= first= last= why=        (one per name and port)
 *   dropped denied= other=
 *   end at= status= how= [by= by_pid=]                (once it has ended)
 *
 * One concern past 800 lines: this file format, written by the outer
 * and read back (as untrusted bytes) by the admin commands; the
 * writer and the reader stay together so that they cannot drift.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "aisb.h"
#include "hostpat.h"
#include "kvline.h"
#include "registry.h"
#include "util.h"

#define NUM_MAX ((uint64_t)INT64_MAX)
/* A ".tmp" file this old is a leftover of a session that died while
 * writing it. */
#define TMP_STALE_S 3600
#define DAY_S 86400

/* ---- fields ---- */

static bool
chars_in(const char *s, const char *extra, size_t min, size_t max)
{
	size_t n = strlen(s);

	if (n < min || n > max)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		        strchr(extra, c)))
			return false;
	}
	return true;
}

/* Copy a field that is shown to people: printable ASCII, else '?'. */
static int
text(char *dst, size_t len, const char *src)
{
	size_t i;

	if (src == NULL)
		return -EINVAL;
	for (i = 0; src[i] && i + 1 < len; i++) {
		unsigned char c = (unsigned char)src[i];

		if (c < 0x20 || c == 0x7f)
			return -EINVAL;
		dst[i] = c >= 0x80 ? '?' : (char)c;
	}
	if (src[i])
		return -EINVAL; /* too long */
	dst[i] = '\0';
	return 0;
}

int
registry_egress_from(const struct kvline *l, struct registry_egress *e)
{
	const char *name = kvline_get(l, "name"), *via = kvline_get(l, "via"),
	           *rule = kvline_get(l, "rule");
	uint64_t port, first, last;

	memset(e, 0, sizeof(*e));
	if (strcmp(l->type, "egress") != 0 || name == NULL || via == NULL ||
	    rule == NULL || !chars_in(name, "._:?-", 1, HOST_MAX) ||
	    !chars_in(via, ",", 0, sizeof(e->via) - 1) ||
	    !chars_in(rule, "._-", 0, sizeof(e->rule) - 1))
		return -EINVAL;
	/* via: a list of the three path names. */
	for (const char *p = via; *p;) {
		size_t k = strcspn(p, ",");

		if (!((k == 5 && strncmp(p, "proxy", 5) == 0) ||
		        (k == 7 && strncmp(p, "capture", 7) == 0) ||
		        (k == 3 && strncmp(p, "dns", 3) == 0)))
			return -EINVAL;
		p += k;
		if (*p == ',' && *++p == '\0')
			return -EINVAL;
	}
	if (kvline_u64(l, "port", 65535, &port) < 0 ||
	    kvline_u64(l, "allowed", NUM_MAX, &e->allowed) < 0 ||
	    kvline_u64(l, "denied", NUM_MAX, &e->denied) < 0 ||
	    kvline_u64(l, "failed", NUM_MAX, &e->failed) < 0 ||
	    kvline_u64(l, "lookups", NUM_MAX, &e->lookups) < 0 ||
	    kvline_u64(l, "open", NUM_MAX, &e->open) < 0 ||
	    kvline_u64(l, "up", NUM_MAX, &e->up) < 0 ||
	    kvline_u64(l, "down", NUM_MAX, &e->down) < 0 ||
	    kvline_u64(l, "first", NUM_MAX, &first) < 0 ||
	    kvline_u64(l, "last", NUM_MAX, &last) < 0 ||
	    text(e->why, sizeof(e->why), kvline_get(l, "why")) < 0)
		return -EINVAL;
	snprintf(e->name, sizeof(e->name), "%s", name);
	snprintf(e->via, sizeof(e->via), "%s", via);
	snprintf(e->rule, sizeof(e->rule), "%s", rule);
	e->port = (uint16_t)port;
	e->first = (time_t)first;
	e->last = (time_t)last;
	return 0;
}

bool
registry_egress_line(const struct registry_egress *e, char *buf, size_t len)
{
	if (len < 8)
		return false;
	snprintf(buf, len, "egress");
	return kvline_add(buf, len, "name", e->name) &&
	    kvline_add_u64(buf, len, "port", e->port) &&
	    kvline_add(buf, len, "via", e->via) &&
	    kvline_add(buf, len, "rule", e->rule) &&
	    kvline_add_u64(buf, len, "allowed", e->allowed) &&
	    kvline_add_u64(buf, len, "denied", e->denied) &&
	    kvline_add_u64(buf, len, "failed", e->failed) &&
	    kvline_add_u64(buf, len, "lookups", e->lookups) &&
	    kvline_add_u64(buf, len, "open", e->open) &&
	    kvline_add_u64(buf, len, "up", e->up) &&
	    kvline_add_u64(buf, len, "down", e->down) &&
	    kvline_add_u64(buf, len, "first", (uint64_t)e->first) &&
	    kvline_add_u64(buf, len, "last", (uint64_t)e->last) &&
	    kvline_add(buf, len, "why", e->why);
}

const char *
registry_rule_text(const char *rule)
{
	static const struct {
		const char *rule, *text;
	} t[] = {
	    {"network.allow", "not in network.allow"},
	    {"network.deny", "in network.deny"},
	    {"network.ports", "this port is not allowed for it"},
	    {"network.suffix_names",
	        "too many names below its *. entry: network.suffix_names"},
	    {"network.allow_cidr", "address not in network.allow_cidr"},
	    {"special-address", "resolves only to special-purpose addresses"},
	    {"invalid-host", "not a valid host name"},
	    {"synthetic", "an address the DNS stub never gave out"},
	    {"ip-literal", "an IP address, not a name"},
	    {"unresolved", "does not resolve"},
	    {"unreachable", "unreachable"},
	};

	for (size_t i = 0; i < ELEMENTSOF(t); i++)
		if (strcmp(rule, t[i].rule) == 0)
			return t[i].text;
	return "refused";
}

/* ---- the whole file ---- */

struct out {
	char *b;
	size_t len, cap;
	bool oom;
};

static void
out_line(struct out *o, const char *line)
{
	size_t n = strlen(line);

	if (o->oom)
		return;
	if (o->len + n + 2 > o->cap) {
		size_t cap = o->cap ? o->cap * 2 : 8192;
		char *b;

		while (cap < o->len + n + 2)
			cap *= 2;
		b = realloc(o->b, cap);
		if (b == NULL) {
			o->oom = true;
			return;
		}
		o->b = b;
		o->cap = cap;
	}
	memcpy(o->b + o->len, line, n);
	o->len += n;
	o->b[o->len++] = '\n';
	o->b[o->len] = '\0';
}

int
registry_format(const struct registry_rec *r, char **ret, size_t *ret_len)
{
	const struct registry_session *s = &r->s;
	struct out o = {0};
	char l[KVLINE_MAX];
	bool ok;

	snprintf(l, sizeof(l), "registry version=%d", REGISTRY_VERSION);
	out_line(&o, l);
	snprintf(l, sizeof(l), "session");
	ok = kvline_add(l, sizeof(l), "id", s->id) &&
	    kvline_add(l, sizeof(l), "user", s->user) &&
	    kvline_add_u64(l, sizeof(l), "uid", s->uid) &&
	    kvline_add_u64(l, sizeof(l), "pid", (uint64_t)s->pid) &&
	    kvline_add_u64(l, sizeof(l), "pstart", s->pstart) &&
	    kvline_add(l, sizeof(l), "boot", s->boot) &&
	    kvline_add_u64(l, sizeof(l), "init", (uint64_t)s->init) &&
	    kvline_add_u64(l, sizeof(l), "started", (uint64_t)s->started) &&
	    kvline_add(l, sizeof(l), "project", s->project) &&
	    kvline_add(l, sizeof(l), "peer", s->peer) &&
	    kvline_add(l, sizeof(l), "tty", s->tty) &&
	    kvline_add(l, sizeof(l), "form", s->form) &&
	    kvline_add(l, sizeof(l), "mode", s->mode);
	if (!ok) {
		free(o.b);
		return -EINVAL;
	}
	out_line(&o, l);
	snprintf(l, sizeof(l), "live");
	if (kvline_add_u64(l, sizeof(l), "open", r->live.open) &&
	    kvline_add_u64(l, sizeof(l), "up", r->live.up) &&
	    kvline_add_u64(l, sizeof(l), "down", r->live.down) &&
	    kvline_add_u64(l, sizeof(l), "hidden", r->live.hidden) &&
	    kvline_add_u64(l, sizeof(l), "updated", (uint64_t)r->live.updated))
		out_line(&o, l);
	for (size_t i = 0; i < r->neg; i++)
		if (registry_egress_line(&r->eg[i], l, sizeof(l)))
			out_line(&o, l);
	if (r->drop_denied || r->drop_other) {
		snprintf(l, sizeof(l), "dropped");
		if (kvline_add_u64(l, sizeof(l), "denied", r->drop_denied) &&
		    kvline_add_u64(l, sizeof(l), "other", r->drop_other))
			out_line(&o, l);
	}
	if (r->end.ended) {
		snprintf(l, sizeof(l), "end");
		ok = kvline_add_u64(l, sizeof(l), "at", (uint64_t)r->end.at) &&
		    kvline_add_u64(l, sizeof(l), "status",
		        (uint64_t)(r->end.status < 0 ? 255 : r->end.status)) &&
		    kvline_add(l, sizeof(l), "how", r->end.how);
		if (ok && strcmp(r->end.how, "ended") == 0)
			ok = kvline_add_u64(l, sizeof(l), "by", r->end.by) &&
			    kvline_add_u64(l, sizeof(l), "by_pid",
			        (uint64_t)r->end.by_pid);
		if (ok)
			out_line(&o, l);
	}
	if (o.oom) {
		free(o.b);
		return -ENOMEM;
	}
	*ret = o.b;
	*ret_len = o.len;
	return 0;
}

static int
parse_session(const struct kvline *l, struct registry_session *s)
{
	const char *id = kvline_get(l, "id"), *user = kvline_get(l, "user"),
	           *boot = kvline_get(l, "boot"), *form = kvline_get(l, "form"),
	           *mode = kvline_get(l, "mode");
	uint64_t uid, pid, init, started;

	if (id == NULL || !chars_in(id, "", REGISTRY_ID_LEN, REGISTRY_ID_LEN) ||
	    strspn(id, "0123456789abcdef") != REGISTRY_ID_LEN || user == NULL ||
	    !chars_in(user, "._-", 1, sizeof(s->user) - 1) || boot == NULL ||
	    !chars_in(boot, "-", 1, sizeof(s->boot) - 1) || form == NULL ||
	    !chars_in(form, "-", 1, sizeof(s->form) - 1) || mode == NULL ||
	    !chars_in(mode, "", 1, sizeof(s->mode) - 1) ||
	    kvline_u64(l, "uid", UINT32_MAX - 1, &uid) < 0 ||
	    kvline_u64(l, "pid", INT32_MAX, &pid) < 0 || pid < 2 ||
	    kvline_u64(l, "pstart", NUM_MAX, &s->pstart) < 0 ||
	    kvline_u64(l, "init", INT32_MAX, &init) < 0 ||
	    kvline_u64(l, "started", NUM_MAX, &started) < 0 ||
	    text(s->project, sizeof(s->project), kvline_get(l, "project")) <
	        0 ||
	    text(s->peer, sizeof(s->peer), kvline_get(l, "peer")) < 0 ||
	    text(s->tty, sizeof(s->tty), kvline_get(l, "tty")) < 0)
		return -EINVAL;
	memcpy(s->id, id, REGISTRY_ID_LEN + 1);
	snprintf(s->user, sizeof(s->user), "%s", user);
	snprintf(s->boot, sizeof(s->boot), "%s", boot);
	snprintf(s->form, sizeof(s->form), "%s", form);
	snprintf(s->mode, sizeof(s->mode), "%s", mode);
	s->uid = (uid_t)uid;
	s->pid = (pid_t)pid;
	s->init = (pid_t)init;
	s->started = (time_t)started;
	return 0;
}

static int
parse_line(char *line, struct registry_rec *r, bool *have_session)
{
	struct kvline l;
	uint64_t v[5];

	if (kvline_parse(line, &l) < 0)
		return -EINVAL;
	if (strcmp(l.type, "session") == 0) {
		if (*have_session)
			return -EINVAL;
		*have_session = true;
		return parse_session(&l, &r->s);
	}
	if (!*have_session)
		return -EINVAL;
	if (strcmp(l.type, "live") == 0) {
		if (kvline_u64(&l, "open", NUM_MAX, &r->live.open) < 0 ||
		    kvline_u64(&l, "up", NUM_MAX, &r->live.up) < 0 ||
		    kvline_u64(&l, "down", NUM_MAX, &r->live.down) < 0 ||
		    kvline_u64(&l, "hidden", NUM_MAX, &r->live.hidden) < 0 ||
		    kvline_u64(&l, "updated", NUM_MAX, &v[0]) < 0)
			return -EINVAL;
		r->live.updated = (time_t)v[0];
		return 0;
	}
	if (strcmp(l.type, "egress") == 0) {
		struct registry_egress *e;

		if (r->neg >= REGISTRY_EGRESS_MAX)
			return -EINVAL;
		e = reallocarray(r->eg, r->neg + 1, sizeof(*e));
		if (e == NULL)
			return -ENOMEM;
		r->eg = e;
		if (registry_egress_from(&l, &r->eg[r->neg]) < 0)
			return -EINVAL;
		r->neg++;
		return 0;
	}
	if (strcmp(l.type, "dropped") == 0)
		return kvline_u64(&l, "denied", NUM_MAX, &r->drop_denied) < 0 ||
		        kvline_u64(&l, "other", NUM_MAX, &r->drop_other) < 0
		    ? -EINVAL
		    : 0;
	if (strcmp(l.type, "end") == 0) {
		const char *how = kvline_get(&l, "how");

		if (r->end.ended || how == NULL ||
		    !chars_in(how, "-", 1, sizeof(r->end.how) - 1) ||
		    kvline_u64(&l, "at", NUM_MAX, &v[0]) < 0 ||
		    kvline_u64(&l, "status", 255, &v[1]) < 0)
			return -EINVAL;
		if (kvline_u64(&l, "by", UINT32_MAX, &v[2]) < 0)
			v[2] = 0;
		if (kvline_u64(&l, "by_pid", INT32_MAX, &v[3]) < 0)
			v[3] = 0;
		r->end.ended = true;
		r->end.at = (time_t)v[0];
		r->end.status = (int)v[1];
		snprintf(r->end.how, sizeof(r->end.how), "%s", how);
		r->end.by = (uid_t)v[2];
		r->end.by_pid = (pid_t)v[3];
		return 0;
	}
	return 0; /* a later version's line: not ours to judge */
}

int
registry_parse(const char *buf, size_t len, struct registry_rec *out)
{
	struct registry_rec r = {0};
	char line[KVLINE_MAX + 1];
	bool have_session = false, first = true;
	size_t at = 0;
	int rc = 0;

	if (len > REGISTRY_FILE_MAX || (len > 0 && buf[len - 1] != '\n'))
		return -EINVAL;
	while (at < len && rc == 0) {
		const char *nl = memchr(buf + at, '\n', len - at);
		size_t n = (size_t)(nl - (buf + at));

		if (n > KVLINE_MAX || memchr(buf + at, '\0', n)) {
			rc = -EINVAL;
			break;
		}
		memcpy(line, buf + at, n);
		line[n] = '\0';
		at += n + 1;
		if (first) {
			first = false;
			if (strcmp(line, "registry version=1") != 0)
				rc = -EINVAL;
			continue;
		}
		rc = parse_line(line, &r, &have_session);
	}
	if (rc == 0 && !have_session)
		rc = -EINVAL;
	if (rc < 0) {
		registry_rec_free(&r);
		return rc;
	}
	*out = r;
	return 0;
}

void
registry_rec_free(struct registry_rec *r)
{
	free(r->eg);
	r->eg = NULL;
	r->neg = 0;
}

/* ---- the outer's side ---- */

int
registry_open_dir(uid_t uid, int *ret_dfd)
{
	_cleanup_close_ int top = -1, dfd = -1;
	char name[16];
	struct stat st;

	/* O_PATH: mode 1733 lets the agent search it, not read it. */
	top = open(
	    AISB_REGISTRY_DIR, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (top < 0)
		return -errno;
	/* Root's, and writable by others only with the sticky bit. */
	if (fstat(top, &st) < 0)
		return -errno;
	if (st.st_uid != 0 ||
	    ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX)))
		return -EPERM;
	snprintf(name, sizeof(name), "%u", (unsigned)uid);
	if (mkdirat(top, name, 0700) < 0 && errno != EEXIST)
		return -errno;
	dfd =
	    openat(top, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	if (fstat(dfd, &st) < 0)
		return -errno;
	if (st.st_uid != uid || (st.st_mode & 077))
		return -EPERM;
	*ret_dfd = TAKE_FD(dfd);
	return 0;
}

int
registry_write(int dfd, const char *id, const char *buf, size_t len)
{
	char tmp[REGISTRY_ID_LEN + 8];
	_cleanup_close_ int fd = -1;
	size_t done = 0;

	snprintf(tmp, sizeof(tmp), "%s.tmp", id);
	fd = openat(dfd, tmp,
	    O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	while (done < len) {
		ssize_t n = write(fd, buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int r = n < 0 ? -errno : -EIO;

			(void)unlinkat(dfd, tmp, 0);
			return r;
		}
		done += (size_t)n;
	}
	if (renameat(dfd, tmp, dfd, id) < 0) {
		int r = -errno;

		(void)unlinkat(dfd, tmp, 0);
		return r;
	}
	return 0;
}

static bool
is_id(const char *s)
{
	return strlen(s) == REGISTRY_ID_LEN &&
	    strspn(s, "0123456789abcdef") == REGISTRY_ID_LEN;
}

struct aged {
	char name[REGISTRY_ID_LEN + 1];
	time_t mtime;
};

static int
by_age(const void *a, const void *b)
{
	const struct aged *x = a, *y = b;

	return x->mtime < y->mtime ? -1 : x->mtime > y->mtime;
}

void
registry_prune(int dfd, const char *keep, time_t now)
{
	struct aged *v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d;
	int fd = dup(dfd);

	if (fd < 0 || (d = fdopendir(fd)) == NULL) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		struct stat st;
		size_t k = strlen(de->d_name);

		if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		/* A leftover of a session that died while writing. */
		if (k == REGISTRY_ID_LEN + 4 &&
		    strcmp(de->d_name + REGISTRY_ID_LEN, ".tmp") == 0 &&
		    now - st.st_mtime > TMP_STALE_S &&
		    strncmp(de->d_name, keep, REGISTRY_ID_LEN) != 0) {
			(void)unlinkat(dfd, de->d_name, 0);
			continue;
		}
		/* A session's fallback log (slog.h): kept as long as its
		 * record, and goes with it below. */
		if (k == REGISTRY_ID_LEN + 4 &&
		    strcmp(de->d_name + REGISTRY_ID_LEN, ".log") == 0 &&
		    now - st.st_mtime > (time_t)REGISTRY_KEEP_DAYS * 86400 &&
		    strncmp(de->d_name, keep, REGISTRY_ID_LEN) != 0) {
			(void)unlinkat(dfd, de->d_name, 0);
			continue;
		}
		if (!is_id(de->d_name) || strcmp(de->d_name, keep) == 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		if (now - st.st_mtime > (time_t)REGISTRY_KEEP_DAYS * DAY_S) {
			(void)unlinkat(dfd, de->d_name, 0);
			continue;
		}
		if (n == cap) {
			struct aged *w =
			    reallocarray(v, cap ? cap * 2 : 64, sizeof(*v));

			if (w == NULL)
				break;
			v = w;
			cap = cap ? cap * 2 : 64;
		}
		memcpy(v[n].name, de->d_name, REGISTRY_ID_LEN + 1);
		v[n].mtime = st.st_mtime;
		n++;
	}
	closedir(d);
	/* The newest REGISTRY_KEEP_MAX - 1 stay, with this session's. */
	if (n >= REGISTRY_KEEP_MAX) {
		qsort(v, n, sizeof(*v), by_age);
		for (size_t i = 0; i + REGISTRY_KEEP_MAX - 1 < n; i++) {
			char lf[REGISTRY_ID_LEN + 5];

			(void)unlinkat(dfd, v[i].name, 0);
			snprintf(lf, sizeof(lf), "%s.log", v[i].name);
			(void)unlinkat(dfd, lf, 0);
		}
	}
	free(v);
}

static int
read_small(const char *path, char *buf, size_t len)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return (int)n;
}

static int
boot_id(char boot[40])
{
	char b[64];
	int n = read_small("/proc/sys/kernel/random/boot_id", b, sizeof(b));

	if (n < 0)
		return n;
	b[strcspn(b, "\n")] = '\0';
	if (!chars_in(b, "-", 1, 39))
		return -EINVAL;
	memcpy(boot, b, strlen(b) + 1);
	return 0;
}

int
registry_proc_stat(pid_t pid, pid_t *ret_ppid, uint64_t *ret_start)
{
	char path[64], b[1024], *p;
	unsigned long long start = 0;
	int ppid = 0, n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	n = read_small(path, b, sizeof(b));
	if (n < 0)
		return n;
	/* "PID (COMM) S PPID ..." and COMM may hold anything: after the
	 * last ')'; the start time is field 22. */
	p = strrchr(b, ')');
	if (p == NULL ||
	    sscanf(p + 1,
	        " %*c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d "
	        "%*d %*d %*d %*d %*d %llu",
	        &ppid, &start) != 2)
		return -EINVAL;
	if (ret_ppid)
		*ret_ppid = (pid_t)ppid;
	if (ret_start)
		*ret_start = start;
	return 0;
}

int
registry_self(uint64_t *ret_pstart, char boot[40])
{
	int r = boot_id(boot);

	if (r < 0)
		return r;
	return registry_proc_stat(getpid(), NULL, ret_pstart);
}

/* The real uid of pid, from its status (its /proc directory's owner is
 * root for a process that is not dumpable). */
int
registry_proc_uid(pid_t pid, uid_t *ret)
{
	char path[64], b[4096], *u;
	unsigned ruid;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (read_small(path, b, sizeof(b)) < 0)
		return -ESRCH;
	u = strstr(b, "\nUid:");
	if (u == NULL || sscanf(u + 5, "%u", &ruid) != 1)
		return -EINVAL;
	*ret = (uid_t)ruid;
	return 0;
}

/* Does pid run aisb-shell: the file this process runs, or (after an
 * upgrade replaced it) a root-owned program named aisb-shell. */
static bool
runs_aisb_shell(pid_t pid)
{
	char path[64], link[PATH_MAX];
	struct stat st, self;
	const char *base;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return false;
	if (stat("/proc/self/exe", &self) == 0 && st.st_dev == self.st_dev &&
	    st.st_ino == self.st_ino)
		return true;
	if (st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH)))
		return false;
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return false;
	link[n] = '\0';
	if (n > 10 && strcmp(link + n - 10, " (deleted)") == 0)
		link[n - 10] = '\0';
	base = strrchr(link, '/');
	base = base ? base + 1 : link;
	return strcmp(base, "aisb-shell") == 0 ||
	    strcmp(base, "aisb-shell-main") == 0;
}

bool
registry_proc_is_shell(pid_t pid, uid_t uid, uint64_t pstart)
{
	uint64_t start;
	uid_t u;

	if (pid < 2 || registry_proc_stat(pid, NULL, &start) < 0 ||
	    start != pstart)
		return false;
	if (registry_proc_uid(pid, &u) < 0 || u != uid)
		return false;
	return runs_aisb_shell(pid);
}

bool
registry_alive(const struct registry_session *s)
{
	char boot[40];

	if (boot_id(boot) < 0 || strcmp(boot, s->boot) != 0)
		return false;
	return registry_proc_is_shell(s->pid, s->uid, s->pstart);
}

bool
registry_exposed_by(int fd)
{
	static const char reg[] = AISB_REGISTRY_DIR;
	char path[64], at[PATH_MAX];
	size_t n, k = sizeof(reg) - 1;
	ssize_t len;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	len = readlink(path, at, sizeof(at) - 1);
	if (len <= 0)
		return true;
	at[len] = '\0';
	n = (size_t)len;
	/* at under reg (or reg itself) */
	if (n >= k && strncmp(at, reg, k) == 0 &&
	    (at[k] == '\0' || at[k] == '/'))
		return true;
	/* reg under at: "/" holds everything */
	if (strcmp(at, "/") == 0)
		return true;
	return n < k && strncmp(reg, at, n) == 0 && reg[n] == '/';
}

/* ---- the readers' side ---- */

static int
load(int dfd, const char *name, uid_t uid, struct registry_rec *out)
{
	_cleanup_close_ int fd = -1;
	char *buf;
	struct stat st;
	size_t have = 0;
	int r;

	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || st.st_uid != uid ||
	    (size_t)st.st_size > REGISTRY_FILE_MAX)
		return -EINVAL;
	buf = malloc((size_t)st.st_size + 1);
	if (buf == NULL)
		return -ENOMEM;
	while (have < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + have, (size_t)st.st_size - have);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += (size_t)n;
	}
	r = registry_parse(buf, have, out);
	free(buf);
	if (r == 0 && (out->s.uid != uid || strcmp(out->s.id, name) != 0)) {
		registry_rec_free(out);
		return -EINVAL;
	}
	return r;
}

static int
scan_uid(int top, const char *dname, uid_t uid,
    int (*fn)(const struct registry_rec *r, void *ctx), void *ctx)
{
	struct stat st;
	struct dirent *de;
	DIR *d;
	int dfd, r = 0;

	dfd =
	    openat(top, dname, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return 0;
	if (fstat(dfd, &st) < 0 || st.st_uid != uid || (st.st_mode & 077)) {
		fprintf(stderr,
		    "aisb-shell: %s/%s is not uid %u's own directory (mode "
		    "0700): skipped\n",
		    AISB_REGISTRY_DIR, dname, (unsigned)uid);
		close(dfd);
		return 0;
	}
	d = fdopendir(dfd);
	if (d == NULL) {
		close(dfd);
		return -errno;
	}
	while (r == 0 && (de = readdir(d)) != NULL) {
		struct registry_rec rec;

		if (!is_id(de->d_name))
			continue;
		if (load(dirfd(d), de->d_name, uid, &rec) < 0) {
			fprintf(stderr,
			    "aisb-shell: %s/%s/%s is not a session record: "
			    "skipped\n",
			    AISB_REGISTRY_DIR, dname, de->d_name);
			continue;
		}
		r = fn(&rec, ctx);
		registry_rec_free(&rec);
	}
	closedir(d);
	return r;
}

int
registry_scan(uid_t uid_filter,
    int (*fn)(const struct registry_rec *r, void *ctx), void *ctx)
{
	_cleanup_close_ int top = -1;
	struct dirent *de;
	DIR *d;
	int r = 0;

	top = open(
	    AISB_REGISTRY_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (top < 0)
		return -errno;
	d = fdopendir(dup(top));
	if (d == NULL)
		return -errno;
	while (r == 0 && (de = readdir(d)) != NULL) {
		char *end;
		unsigned long u;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		errno = 0;
		u = strtoul(de->d_name, &end, 10);
		if (errno || *end || u >= UINT32_MAX ||
		    (de->d_name[0] == '0' && de->d_name[1]))
			continue;
		if (uid_filter != (uid_t)-1 && (uid_t)u != uid_filter)
			continue;
		r = scan_uid(top, de->d_name, (uid_t)u, fn, ctx);
	}
	closedir(d);
	return r;
}
