/*
 * doctor.h: the parts of aisb-shell --doctor (shell/doctor*.c, and the
 * --doctor --jailcheck side of shell/jailcheck.c).  Every check reports
 * through doctor_report(); none keeps state outside struct doctor.
 */
#ifndef AISB_DOCTOR_H
#define AISB_DOCTOR_H

#include <pwd.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "policy.h"

#define DOCTOR_MAX_AGENTS 1024
#define DOCTOR_MAX_OUT (256 * 1024) /* bytes kept of a child's output */

enum doctor_level { OK, WARN, FAIL };

struct doctor {
	unsigned n[3];
	const char *conf; /* --config FILE or NULL */
	const char *sshd_config;
	bool pam_session; /* pam_aisb in sshd's session stack */
	bool jailcheck; /* --doctor --jailcheck: a session per agent */
};

/* One line on stdout: "ok|warn|fail: CHECK: DETAIL[; fix: FIX]". */
void doctor_report(struct doctor *d, enum doctor_level l, const char *check,
    const char *fix, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* The first line of a small file into buf; its length or -errno. */
int doctor_read_small(const char *path, char *buf, size_t len);

/*
 * doctor_probe.c: the kernel features tried for real in a forked child
 * with uid/gid, as aisb-shell would run; who names them in messages.
 */
void doctor_probe_userns(
    struct doctor *d, uid_t uid, gid_t gid, const char *who);
/* The kernel's version and the /etc overlay of a session. */
void doctor_probe_kernel(
    struct doctor *d, uid_t uid, gid_t gid, const char *who);
/* A session's network under p, in a new network namespace. */
void doctor_probe_nft(struct doctor *d, uid_t uid, gid_t gid, const char *who,
    const char *check, const struct aisb_policy *p);

/* doctor_pam.c: pam_aisb in the PAM stacks of the ways in. */
void doctor_pam(struct doctor *d);
/*
 * doctor_pam.c: fail when a stack of the agent's services (p's
 * pam.services, or the default ones) has pam_env with user_readenv=1,
 * and when the file it would read (~/.pam_environment, or its
 * user_envfile) exists in the agent's passwd home.
 */
void doctor_pam_readenv(
    struct doctor *d, const struct passwd *pw, const struct aisb_policy *p);

/* doctor_sshd.c: sshd's effective settings for the agent pw. */
void doctor_sshd(struct doctor *d, const struct passwd *pw);

/*
 * doctor_agent.c: the agents to check into names (strdup'd): the
 * users the system policy's agents name, or only user when given.
 * Returns 0, or -1 when the caller has no passwd entry (said on stderr).
 */
int doctor_agent_find(
    struct doctor *d, const char *user, char **names, size_t *n);
/* doctor_view.c: every host path outside the system set that a
 * session under p shows (the agent's name in user). */
void doctor_view(
    struct doctor *d, const char *user, const struct aisb_policy *p);

/* Every per-agent check for pw. */
void doctor_agent_check(struct doctor *d, const struct passwd *pw);

/*
 * doctor_groups.c: a warning when pw belongs to a group other than its
 * own and the agents group (p may be NULL): the sandbox keeps them.
 */
void doctor_groups(
    struct doctor *d, const struct passwd *pw, const struct aisb_policy *p);

/*
 * doctor_registry.c: pw's entry in the session registry is its own
 * (another account that makes it first hides pw's sessions).
 */
void doctor_registry(struct doctor *d, const struct passwd *pw);

/*
 * doctor_disk.c: what bounds the disk pw can fill through its home and
 * project (a quota, or a filesystem of their own); warns when nothing.
 */
void doctor_disk(
    struct doctor *d, const struct passwd *pw, const struct aisb_policy *p);

/*
 * jailcheck.c: a real session as pw running aisb-shell --jailcheck,
 * its findings reported as the doctor's (--doctor --jailcheck).
 */
void jailcheck_session(struct doctor *d, const struct passwd *pw);

#endif
