/*
 * registry.h: the session registry (docs/architecture.md, "The session
 * registry").
 *
 * AISB_REGISTRY_DIR (root, mode 1733: anybody may make an entry, nobody
 * but root may list it) holds one directory per agent uid, made by that
 * agent's first session (the uid, 0700, owned by the uid), and in it one
 * file per session, named by the session id: what the session is (user,
 * the outer's pid and start time, project, peer, tty, network mode),
 * what it reached and was refused (the gate's egress record), and how it
 * ended.  The outer aisb-shell rewrites its file (a new file renamed over
 * the old one) while the session runs; nothing inside the sandbox can
 * see the directory (it is hidden from every view and may not be bound
 * into one).
 *
 * The admin forms (--sessions, --end, --egress) read these files as
 * hostile input (registry_parse is a fuzz target) and never take one's
 * word that a session is live: registry_alive asks the kernel.
 */
#ifndef AISB_REGISTRY_H
#define AISB_REGISTRY_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "kvline.h"

#define REGISTRY_VERSION 1
#define REGISTRY_ID_LEN 32 /* hex digits, as the session id */
#define REGISTRY_EGRESS_MAX 2048 /* as the gate's table */
#define REGISTRY_FILE_MAX (8u << 20)
/* Kept: ended sessions for REGISTRY_KEEP_DAYS, at most REGISTRY_KEEP_MAX
 * files per agent (the oldest go first); pruned by each session start. */
#define REGISTRY_KEEP_DAYS 30
#define REGISTRY_KEEP_MAX 200

struct registry_session {
	char id[REGISTRY_ID_LEN + 1];
	char user[64];
	uid_t uid;
	pid_t pid; /* the outer aisb-shell */
	uint64_t pstart; /* its start time, clock ticks since boot */
	char boot[40]; /* /proc/sys/kernel/random/boot_id */
	pid_t init; /* the sandbox's init, as the host sees it */
	time_t started;
	char project[512];
	char peer[128]; /* SSH_CONNECTION's client address:port, or "-" */
	char tty[64]; /* the caller's terminal, or "-" */
	char form[16]; /* shell form */
	char mode[8]; /* network mode: gated or none */
};

struct registry_live {
	uint64_t open, up, down; /* connections now, bytes so far */
	uint64_t hidden; /* notices the rate limit held back */
	time_t updated;
};

/* One name and port (port 0: DNS lookups) of the egress record. */
struct registry_egress {
	char name[256];
	uint16_t port;
	char via[24]; /* proxy,capture,dns */
	char rule[24]; /* the last decision's rule */
	uint64_t allowed, denied, failed, lookups, open, up, down;
	time_t first, last;
	char why[256]; /* printable ASCII */
};

struct registry_end {
	bool ended;
	time_t at;
	int status;
	char how[16]; /* exit, timeout, ended, hangup */
	uid_t by; /* ended: the uid that asked (0) */
	pid_t by_pid;
};

/* A session's file, parsed. */
struct registry_rec {
	struct registry_session s;
	struct registry_live live;
	struct registry_end end;
	uint64_t drop_denied,
	    drop_other; /* decisions the table had no room for */
	struct registry_egress *eg;
	size_t neg;
};

/* ---- the line formats (shared by the outer and the readers) ---- */

/*
 * An egress entry from a kvline (type "egress"): every field checked
 * (the name [a-z0-9._:?-], 1-253 bytes; the rule [a-z._-]; numbers;
 * why without control bytes, non-ASCII as '?').  0 or -EINVAL.
 */
int registry_egress_from(const struct kvline *l, struct registry_egress *e);
/* The entry as one line (no newline) in buf; false if it does not fit. */
bool registry_egress_line(
    const struct registry_egress *e, char *buf, size_t len);

/* A refusal's rule in words ("not in network.allow"). */
const char *registry_rule_text(const char *rule);

/*
 * The whole file for r into a malloc'd buffer (*ret, *ret_len).  0 or
 * -ENOMEM.
 */
int registry_format(const struct registry_rec *r, char **ret, size_t *ret_len);

/*
 * Parse a file's bytes.  0, or -EINVAL for anything malformed (the first
 * line must be "registry version=1" and a "session" line must follow;
 * unknown line types are skipped; at most REGISTRY_EGRESS_MAX entries).
 * out is filled (free with registry_rec_free) only on success.
 */
int registry_parse(const char *buf, size_t len, struct registry_rec *out);
void registry_rec_free(struct registry_rec *r);

/* ---- the outer's side ---- */

/*
 * This uid's directory (made 0700 when missing; an existing one must be
 * a directory owned by uid with no group or other permission), opened.
 * 0 and *ret_dfd, or -errno (-ENOENT: no registry on this host).
 */
int registry_open_dir(uid_t uid, int *ret_dfd);

/* Write the file for id (ID.tmp, then renamed over ID).  0 or -errno. */
int registry_write(int dfd, const char *id, const char *buf, size_t len);

/* Remove what the retention rules say is old; keep never goes. */
void registry_prune(int dfd, const char *keep, time_t now);

/* This process's start time (clock ticks since boot) and the boot id. */
int registry_self(uint64_t *ret_pstart, char boot[40]);

/*
 * Would a bind of fd (an O_PATH descriptor of a host path) show the
 * registry: is the path it names AISB_REGISTRY_DIR, inside it, or one of
 * the directories above it?  Unreadable: true.
 */
bool registry_exposed_by(int fd);

/* ---- the readers' side (root) ---- */

/*
 * Call fn for each session file of each agent's directory (a directory
 * not owned by the uid it is named after, or with group or other
 * permissions, is skipped with a warning on stderr).  uid_filter: only
 * that uid ((uid_t)-1: all).  A file that does not parse is reported on
 * stderr and skipped.  fn returns 0 to go on, else that value ends the
 * scan and is returned.  0, or -errno when the registry cannot be read.
 */
int registry_scan(uid_t uid_filter,
    int (*fn)(const struct registry_rec *r, void *ctx), void *ctx);

/*
 * Is the session's outer alive, as the kernel sees it: the same boot,
 * a process with its pid and start time, of its uid, running aisb-shell
 * (the program this process runs, or a root-owned aisb-shell).
 */
bool registry_alive(const struct registry_session *s);

/* Is pid, by the kernel's account, an aisb-shell of uid started at
 * pstart?  (The same checks without a file.) */
bool registry_proc_is_shell(pid_t pid, uid_t uid, uint64_t pstart);

/* /proc/PID/stat: the parent and start time.  0 or -errno. */
int registry_proc_stat(pid_t pid, pid_t *ret_ppid, uint64_t *ret_start);
/* /proc/PID/status: the real uid.  0 or -errno. */
int registry_proc_uid(pid_t pid, uid_t *ret);

#endif
