/*
 * sessrec.c: the outer's record of its session.  See sessrec.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "aisb.h"
#include "kvline.h"
#include "log.h"
#include "notice.h"
#include "registry.h"
#include "sessrec.h"
#include "slog.h"
#include "util.h"

#define WRITE_EVERY_MS 1000
#define NOTICE_QUEUE 32
#define NOTICE_LEN 512
#define INDEX_SIZE 4096 /* power of two, > REGISTRY_EGRESS_MAX */
#define WHY_SHOWN 120

struct sessrec {
	struct registry_rec rec;
	int dfd; /* this uid's registry directory, or -1 */
	int gate_fd; /* the gate's record socket, or -1 */
	bool dirty, write_failed, bad_logged;
	int64_t written_at;
	int32_t index[INDEX_SIZE]; /* rec.eg position + 1, by name and port */
	char queue[NOTICE_QUEUE][NOTICE_LEN];
	size_t qhead, qlen;
	uint64_t unshown; /* notices this side could not show */
	bool ended;
	uid_t by;
	pid_t by_pid;
};

static int64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Printable ASCII only, at most len - 1 bytes: what reaches a terminal. */
static void
shown(char *dst, size_t len, const char *src)
{
	size_t i;

	for (i = 0; src && src[i] && i + 1 < len; i++) {
		unsigned char c = (unsigned char)src[i];

		dst[i] = c < 0x20 || c >= 0x7f ? '?' : (char)c;
	}
	dst[i] = '\0';
}

static void
write_file(struct sessrec *r)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0;
	int e;

	r->dirty = false;
	r->written_at = now_ms();
	if (r->dfd < 0)
		return;
	r->rec.live.updated = time(NULL);
	e = registry_format(&r->rec, &buf, &len);
	if (e == 0)
		e = registry_write(r->dfd, r->rec.s.id, buf, len);
	if (e < 0 && !r->write_failed) {
		r->write_failed = true;
		errno = -e;
		log_record(LOG_WARNING,
		    "session %s: cannot write its registry file in %s: %m",
		    r->rec.s.id, AISB_REGISTRY_DIR);
	}
}

struct sessrec *
sessrec_start(const struct sessrec_info *info)
{
	struct sessrec *r = calloc(1, sizeof(*r));
	struct registry_session *s;
	sigset_t set;
	int e;

	if (r == NULL) {
		if (info->gate_fd >= 0)
			close(info->gate_fd);
		return NULL;
	}
	/* pty.c reads it from a signalfd; blocked until then, so that an
	 * early one waits instead of killing the outer. */
	sigemptyset(&set);
	sigaddset(&set, SESSREC_SIG_END);
	sigprocmask(SIG_BLOCK, &set, NULL);
	r->gate_fd = info->gate_fd;
	r->dfd = -1;
	s = &r->rec.s;
	snprintf(s->id, sizeof(s->id), "%s", info->id);
	snprintf(s->user, sizeof(s->user), "%s", info->user);
	s->uid = info->uid;
	s->pid = getpid();
	s->init = info->init;
	s->started = time(NULL);
	shown(s->project, sizeof(s->project), info->project);
	slog_peer(s->peer, sizeof(s->peer));
	slog_tty(s->tty, sizeof(s->tty));
	snprintf(s->form, sizeof(s->form), "%s", info->form);
	snprintf(
	    s->mode, sizeof(s->mode), "%s", info->gated ? "gated" : "none");
	e = registry_self(&s->pstart, s->boot);
	if (e == 0)
		e = registry_open_dir(info->uid, &r->dfd);
	if (e == -ENOENT)
		log_debug("no session registry (%s): not recorded",
		    AISB_REGISTRY_DIR);
	else if (e == -EPERM || e == -EACCES)
		log_record(LOG_WARNING,
		    "session %s: no registry entry: %s/%u is not this "
		    "account's own (or %s is not root's), so --sessions and "
		    "--end cannot see the session; aisb-shell --doctor names "
		    "the fix",
		    s->id, AISB_REGISTRY_DIR, (unsigned)info->uid,
		    AISB_REGISTRY_DIR);
	else if (e < 0) {
		errno = -e;
		log_record(LOG_WARNING,
		    "session %s: no registry entry: %s/%u: %m", s->id,
		    AISB_REGISTRY_DIR, (unsigned)info->uid);
	}
	write_file(r);
	if (r->dfd >= 0)
		registry_prune(r->dfd, s->id, time(NULL));
	return r;
}

int
sessrec_fd(const struct sessrec *r)
{
	return r ? r->gate_fd : -1;
}

static uint32_t
key_hash(const char *name, uint16_t port)
{
	uint32_t h = 2166136261u;

	for (; *name; name++)
		h = (h ^ (uint8_t)*name) * 16777619u;
	return (h ^ port) * 16777619u;
}

static void
upsert(struct sessrec *r, const struct registry_egress *e)
{
	uint32_t h = key_hash(e->name, e->port) & (INDEX_SIZE - 1);

	for (;; h = (h + 1) & (INDEX_SIZE - 1)) {
		int32_t i = r->index[h] - 1;

		if (i < 0)
			break;
		if (r->rec.eg[i].port == e->port &&
		    strcmp(r->rec.eg[i].name, e->name) == 0) {
			r->rec.eg[i] = *e;
			return;
		}
	}
	if (r->rec.neg >= REGISTRY_EGRESS_MAX) {
		/* More than the gate itself keeps: its word is not ours. */
		r->rec.drop_other++;
		return;
	}
	if (r->rec.eg == NULL) {
		r->rec.eg = calloc(REGISTRY_EGRESS_MAX, sizeof(*r->rec.eg));
		if (r->rec.eg == NULL)
			return;
	}
	r->rec.eg[r->rec.neg] = *e;
	r->index[h] = (int32_t)++r->rec.neg;
}

static void
queue_notice(struct sessrec *r, const char *line)
{
	if (r->qlen == NOTICE_QUEUE) {
		r->unshown++;
		return;
	}
	snprintf(r->queue[(r->qhead + r->qlen) % NOTICE_QUEUE], NOTICE_LEN,
	    "%s", line);
	r->qlen++;
}

static int
take_notice(struct sessrec *r, const struct kvline *l)
{
	const char *kind = kvline_get(l, "kind"), *name = kvline_get(l, "name"),
	           *rule = kvline_get(l, "rule"), *why = kvline_get(l, "why");
	char line[NOTICE_LEN], w[WHY_SHOWN + 1], port[8] = "";
	uint64_t p;

	/* The name, as an egress entry's: [a-z0-9._:?-]. */
	if (kind == NULL || name == NULL || rule == NULL || why == NULL ||
	    strlen(name) == 0 || strlen(name) > 253 ||
	    strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789._:?-") !=
	        strlen(name) ||
	    strspn(rule, "abcdefghijklmnopqrstuvwxyz._-") != strlen(rule) ||
	    kvline_u64(l, "port", 65535, &p) < 0)
		return -EINVAL;
	if (p)
		snprintf(port, sizeof(port), ":%u", (unsigned)p);
	shown(w, sizeof(w), why);
	if (strcmp(kind, "deny") == 0 && p)
		snprintf(line, sizeof(line), "aisb: denied %s%s (%s)", name,
		    port, registry_rule_text(rule));
	else if (strcmp(kind, "deny") == 0)
		snprintf(line, sizeof(line), "aisb: denied %s (DNS lookup; %s)",
		    name, registry_rule_text(rule));
	else if (strcmp(kind, "unresolved") == 0)
		snprintf(line, sizeof(line), "aisb: %s does not resolve", name);
	else if (strcmp(kind, "unreachable") == 0)
		snprintf(line, sizeof(line), "aisb: cannot reach %s%s (%s)",
		    name, port, w);
	else
		return -EINVAL;
	queue_notice(r, line);
	return 0;
}

static int
take(struct sessrec *r, char *msg)
{
	struct kvline l;
	struct registry_egress e;
	uint64_t v[4];

	if (kvline_parse(msg, &l) < 0)
		return -EINVAL;
	if (strcmp(l.type, "egress") == 0) {
		if (registry_egress_from(&l, &e) < 0)
			return -EINVAL;
		upsert(r, &e);
	} else if (strcmp(l.type, "notice") == 0) {
		return take_notice(r, &l);
	} else if (strcmp(l.type, "totals") == 0) {
		if (kvline_u64(&l, "open", UINT32_MAX, &v[0]) < 0 ||
		    kvline_u64(&l, "up", INT64_MAX, &v[1]) < 0 ||
		    kvline_u64(&l, "down", INT64_MAX, &v[2]) < 0 ||
		    kvline_u64(&l, "hidden", INT64_MAX, &v[3]) < 0)
			return -EINVAL;
		r->rec.live.open = v[0];
		r->rec.live.up = v[1];
		r->rec.live.down = v[2];
		r->rec.live.hidden = v[3];
	} else if (strcmp(l.type, "dropped") == 0) {
		if (kvline_u64(&l, "denied", INT64_MAX, &v[0]) < 0 ||
		    kvline_u64(&l, "other", INT64_MAX, &v[1]) < 0)
			return -EINVAL;
		r->rec.drop_denied = v[0];
		r->rec.drop_other = v[1];
	} else
		return -EINVAL;
	r->dirty = true;
	return 0;
}

void
sessrec_input(struct sessrec *r)
{
	char msg[KVLINE_MAX + 1];

	while (r && r->gate_fd >= 0) {
		ssize_t n = recv(
		    r->gate_fd, msg, sizeof(msg) - 1, MSG_DONTWAIT | MSG_TRUNC);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0) {
			/* The gate is gone: its record is complete. */
			close(r->gate_fd);
			r->gate_fd = -1;
			r->dirty = true;
			return;
		}
		if ((size_t)n > sizeof(msg) - 1 ||
		    memchr(msg, '\0', (size_t)n) ||
		    (msg[n] = '\0', take(r, msg) < 0)) {
			if (!r->bad_logged)
				log_record(LOG_WARNING,
				    "session %s: a malformed record from the "
				    "egress gate, ignored",
				    r->rec.s.id);
			r->bad_logged = true;
		}
	}
}

void
sessrec_tick(struct sessrec *r)
{
	if (r && r->dirty && now_ms() - r->written_at >= WRITE_EVERY_MS)
		write_file(r);
}

const char *
sessrec_notice(struct sessrec *r, size_t *len)
{
	const char *q;

	if (r == NULL || r->qlen == 0)
		return NULL;
	q = r->queue[r->qhead];
	*len = strlen(q);
	return q;
}

void
sessrec_notice_done(struct sessrec *r, bool was_shown)
{
	if (r == NULL || r->qlen == 0)
		return;
	if (!was_shown)
		r->unshown++;
	r->qhead = (r->qhead + 1) % NOTICE_QUEUE;
	r->qlen--;
}

void
sessrec_ended_by(struct sessrec *r, uid_t uid, pid_t pid)
{
	if (r == NULL)
		return;
	r->ended = true;
	r->by = uid;
	r->by_pid = pid;
}

bool
sessrec_was_ended(const struct sessrec *r)
{
	return r && r->ended;
}

void
sessrec_drain(void *arg, int ms)
{
	struct sessrec *r = arg;
	int64_t until = now_ms() + ms;

	while (r && r->gate_fd >= 0) {
		int64_t left = until - now_ms();
		struct timeval tv;
		char msg[KVLINE_MAX + 1];
		ssize_t n;

		if (left <= 0)
			break;
		tv.tv_sec = left / 1000;
		tv.tv_usec = (left % 1000) * 1000;
		(void)setsockopt(
		    r->gate_fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		n = recv(r->gate_fd, msg, sizeof(msg) - 1, MSG_TRUNC);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n <= 0) {
			close(r->gate_fd);
			r->gate_fd = -1;
			break;
		}
		if ((size_t)n <= sizeof(msg) - 1 &&
		    !memchr(msg, '\0', (size_t)n)) {
			msg[n] = '\0';
			(void)take(r, msg);
		}
	}
}

void
sessrec_finish(struct sessrec *r, int status, const char *how)
{
	char line[300];
	uint64_t hidden;

	if (r == NULL)
		return;
	sessrec_input(r);
	/* Notices still waiting (a caller's line never ended): now, at
	 * the end, they cannot break anything. */
	while (r->qlen > 0) {
		size_t n;
		const char *q = sessrec_notice(r, &n);

		sessrec_notice_done(r, notice_stderr(q, n) == 1);
	}
	hidden = r->rec.live.hidden + r->unshown;
	if (hidden > 0) {
		snprintf(line, sizeof(line),
		    "aisb: %llu more refused or failed connections were not "
		    "shown; an administrator can list them all with "
		    "aisb-shell --egress %s",
		    (unsigned long long)hidden, r->rec.s.id);
		(void)notice_stderr(line, strlen(line));
	}
	r->rec.end.ended = true;
	r->rec.end.at = time(NULL);
	r->rec.end.status = status;
	snprintf(r->rec.end.how, sizeof(r->rec.end.how), "%s",
	    r->ended ? "ended" : how);
	r->rec.end.by = r->by;
	r->rec.end.by_pid = r->by_pid;
	write_file(r);
	if (r->gate_fd >= 0)
		close(r->gate_fd);
	if (r->dfd >= 0)
		close(r->dfd);
	registry_rec_free(&r->rec);
	free(r);
}
