/*
 * sessrec.h: the outer's record of its session (docs/architecture.md,
 * "The session registry").
 *
 * The outer keeps the session's file in the registry (registry.h): the
 * session's facts at the start, the gate's egress record while it runs
 * (read from the gate's record socket, every message checked: the gate
 * parses what the sandbox sends, so its words are not trusted either),
 * and how it ended.  It also turns the gate's notices into lines for
 * the session's stderr, which pty.c writes where they cannot break a
 * line (notice.h).  Without a registry on the host (no
 * AISB_REGISTRY_DIR) the notices still work; a registry that cannot be
 * written never stops a session (one warning in the log).
 *
 * An administrator's aisb-shell --end sends SESSREC_SIG_END; pty.c takes
 * it only from root (a kill(2) by uid 0) and ends the session as
 * limits.timeout does.
 */
#ifndef AISB_SESSREC_H
#define AISB_SESSREC_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define SESSREC_SIG_END (SIGRTMIN + 4)
#define SESSREC_EX_ENDED 124 /* as limits.timeout */

struct sessrec;

struct sessrec_info {
	const char *id;
	const char *user;
	uid_t uid;
	pid_t init; /* the sandbox's init */
	const char *project;
	const char *form;
	bool gated;
	int gate_fd; /* the gate's record socket, or -1; taken over */
};

/*
 * After the clone: block SESSREC_SIG_END, write the session's first
 * file, prune old ones.  Never fails: NULL only when out of memory (the
 * session then runs without a record or notices).
 */
struct sessrec *sessrec_start(const struct sessrec_info *info);

/* The socket to poll for the gate's messages, or -1. */
int sessrec_fd(const struct sessrec *r);
/* The socket is readable: take what is there. */
void sessrec_input(struct sessrec *r);
/* About once a second: write the file when something changed. */
void sessrec_tick(struct sessrec *r);

/*
 * The next notice for the caller, a line without its newline ("aisb:
 * ..."), or NULL.  sessrec_notice_done when it went out (shown) or was
 * given up (not shown: counted and said at the end).
 */
const char *sessrec_notice(struct sessrec *r, size_t *len);
void sessrec_notice_done(struct sessrec *r, bool shown);

/* pty.c: an administrator ended the session (uid, pid of the sender). */
void sessrec_ended_by(struct sessrec *r, uid_t uid, pid_t pid);
bool sessrec_was_ended(const struct sessrec *r);

/*
 * The gate is being stopped: read its last messages until it closes the
 * socket (at most ms).  For gatectl_stop.
 */
void sessrec_drain(void *r, int ms);

/*
 * The end: status and how ("exit", "timeout", "ended", "hangup"), the
 * final file, and on stderr one line for the notices that were not
 * shown.  Frees r.
 */
void sessrec_finish(struct sessrec *r, int status, const char *how);

#endif
