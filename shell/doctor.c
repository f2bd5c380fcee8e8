/*
 * doctor.c: aisb-shell --doctor, host readiness (aisb-shell(8)).
 *
 * One line per check, "ok|warn|fail: CHECK: DETAIL", and for warn and
 * fail "; fix: WHAT TO DO".  Host checks first (the kernel's version and
 * the /etc overlay, user namespaces and the session network probed as
 * the first agent, cgroups, /etc/shells, a syslog receiver, the PAM
 * stacks), then for every agent
 * it can find (the users and @groups of `agents`, or only --user NAME): the
 * policy, the session's network as that policy sets it up (the gated ruleset
 * applied, read back and the capture tried, in a new netns), the login shell,
 * sshd's effective settings for that user, cron.deny/at.deny, home and project.
 * Exit 1 when any check fails, else 0.
 *
 * The parts: doctor_probe.c (probes in a child with the agent's ids),
 * doctor_pam.c (PAM stacks), doctor_sshd.c (sshd -T), doctor_agent.c
 * (finding the agents, the per-agent checks), and jailcheck.c for
 * --doctor --jailcheck (the in-session audit run as each agent).  This
 * file has the report line, the cgroup and /etc/shells checks, and the
 * order of it all.
 *
 * Environment (admin and tests only): AISB_SSHD_CONFIG names the sshd
 * config file to check instead of /etc/ssh/sshd_config.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <linux/magic.h>

#include "aisb.h"
#include "args.h"
#include "doctor.h"
#include "journal.h"
#include "log.h"
#include "loginshell.h"
#include "policy.h"
#include "util.h"

#define SSHD_CONFIG "/etc/ssh/sshd_config"

void
doctor_report(struct doctor *d, enum doctor_level l, const char *check,
    const char *fix, const char *fmt, ...)
{
	static const char *const name[] = {"ok", "warn", "fail"};
	va_list ap;

	d->n[l]++;
	printf("%s: %s: ", name[l], check);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (l != OK && fix)
		printf("; fix: %s", fix);
	putchar('\n');
	fflush(stdout);
}

int
doctor_read_small(const char *path, char *buf, size_t len)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return (int)n;
}

/* ---- host: cgroups and /etc/shells ---------------------------------- */

static bool
is_cgroup_mount(const char *path, long magic)
{
	struct statfs sf;

	return statfs(path, &sf) == 0 && (long)sf.f_type == magic;
}

static void
check_cgroup(struct doctor *d)
{
	static const char *const ctl[] = {"memory", "pids", "cpu"};
	char path[PATH_MAX], buf[512], missing[64] = "";
	bool v2 = is_cgroup_mount("/sys/fs/cgroup", CGROUP2_SUPER_MAGIC);

	for (size_t i = 0; i < ELEMENTSOF(ctl); i++) {
		bool have;

		if (v2) {
			have = doctor_read_small(
			           "/sys/fs/cgroup/cgroup.controllers", buf,
			           sizeof(buf)) > 0;
			if (have) {
				char *s = buf, *tok, *save = NULL;

				have = false;
				while ((tok = strtok_r(s, " ", &save))) {
					s = NULL;
					have |= strcmp(tok, ctl[i]) == 0;
				}
			}
		} else {
			snprintf(
			    path, sizeof(path), "/sys/fs/cgroup/%s", ctl[i]);
			have = is_cgroup_mount(path, CGROUP_SUPER_MAGIC);
		}
		if (!have)
			snprintf(missing + strlen(missing),
			    sizeof(missing) - strlen(missing), " %s", ctl[i]);
	}
	if (missing[0])
		doctor_report(d, FAIL, "cgroup",
		    "mount the controllers (cgroup v2: enable them in "
		    "cgroup.subtree_control; v1: mount each hierarchy), or set "
		    "limits.enforce = \"best-effort\"",
		    "cgroup %s lacks:%s", v2 ? "v2" : "v1", missing);
	else
		doctor_report(d, OK, "cgroup", NULL,
		    "cgroup %s with memory, pids, cpu", v2 ? "v2" : "v1");
}

static void
check_shells(struct doctor *d)
{
	_cleanup_free_ char *line = NULL;
	size_t cap = 0;
	FILE *f = fopen("/etc/shells", "re");
	bool bad = false;

	if (!f) {
		doctor_report(d, OK, "/etc/shells", NULL, "absent");
		return;
	}
	while (getline(&line, &cap, f) > 0) {
		const char *base;

		line[strcspn(line, "\n")] = '\0';
		base = strrchr(line, '/');
		if (line[0] != '#' && base &&
		    strcmp(base + 1, LOGINSHELL_NAME) == 0) {
			doctor_report(d, FAIL, "/etc/shells",
			    "remove that line: a shell in /etc/shells lets "
			    "non-root callers pick another shell (su -s, chsh) "
			    "for the agent",
			    "lists '%s'", line);
			bad = true;
		}
	}
	fclose(f);
	if (!bad)
		doctor_report(
		    d, OK, "/etc/shells", NULL, "aisb-shell not listed");
}

/* ---- host: a syslog receiver ------------------------------------------ */

/*
 * Without one, syslog(3) drops every record without a word: sessions and
 * their gates then keep theirs in AISB_REGISTRY_DIR/UID/ID.log and
 * pam_aisb in AISB_LOG_DIR/AISB_PAM_LOG (slog.h, pam/pamlog.h), which
 * nothing reads or rotates.  A failure once there are agents.
 */
#define SYSLOG_FIX                                                             \
	"install and start a syslog daemon (apt install rsyslog) or "          \
	"systemd-journald"

static void
check_syslog(struct doctor *d, bool agents)
{
	struct stat st;
	int fd;

	/* What log_open picks: the journal's native socket first. */
	if (journal_present() && (fd = journal_connect()) >= 0) {
		close(fd);
		doctor_report(d, OK, "syslog", NULL,
		    "journald listens on " JOURNAL_SOCKET_PATH
		    ": records go to the journal, with their AISB_* fields");
		return;
	}
	if (log_syslog_probe()) {
		doctor_report(d, OK, "syslog", NULL,
		    "a receiver listens on " LOG_SYSLOG_PATH
		    ": records go there (no journal socket "
		    "at " JOURNAL_SOCKET_PATH ")");
		return;
	}
	if (stat(AISB_REGISTRY_DIR, &st) < 0 || !S_ISDIR(st.st_mode))
		doctor_report(d, agents ? FAIL : WARN, "syslog", SYSLOG_FIX,
		    "nothing listens on " LOG_SYSLOG_PATH
		    " or " JOURNAL_SOCKET_PATH
		    " and there is no " AISB_REGISTRY_DIR
		    ": session and gate records are not kept at all, "
		    "pam_aisb's go only to " AISB_LOG_DIR "/" AISB_PAM_LOG);
	else
		doctor_report(d, agents ? FAIL : WARN, "syslog", SYSLOG_FIX,
		    "nothing listens on " LOG_SYSLOG_PATH
		    " or " JOURNAL_SOCKET_PATH
		    ": session, gate and pam_aisb records go only "
		    "to " AISB_REGISTRY_DIR "/UID/ID.log and " AISB_LOG_DIR
		    "/" AISB_PAM_LOG);
}

int
doctor_main(const struct aisb_args *a)
{
	struct doctor d = {.conf = a->config, .jailcheck = a->jailcheck};
	struct passwd *pw;
	char *names[DOCTOR_MAX_AGENTS];
	size_t n;
	uid_t puid = 65534;
	gid_t pgid = 65534;
	char who[300] = "uid 65534";
	bool found = false;

	d.sshd_config = secure_getenv("AISB_SSHD_CONFIG");
	if (!d.sshd_config || d.sshd_config[0] != '/')
		d.sshd_config = SSHD_CONFIG;

	/* The agents: from the system policy, or --user. */
	if (doctor_agent_find(&d, a->user, names, &n) < 0)
		return 1;

	/* Probe as the first agent that exists (as aisb-shell would run). */
	for (size_t i = 0; i < n && !found; i++)
		if ((pw = getpwnam(names[i]))) {
			puid = pw->pw_uid;
			pgid = pw->pw_gid;
			snprintf(who, sizeof(who), "agent '%s'", pw->pw_name);
			found = true;
		}
	doctor_probe_kernel(&d, puid, pgid, who);
	doctor_probe_userns(&d, puid, pgid, who);
	/* Each agent's network is probed with its own policy below; with
	 * no agent yet, the most demanding one: gated, with the capture. */
	if (!found)
		doctor_probe_nft(&d, puid, pgid, who, "nftables",
		    &(struct aisb_policy){
		        .net = {.mode = AISB_NET_GATED, .transparent = true}});
	check_cgroup(&d);
	check_shells(&d);
	check_syslog(&d, found);
	doctor_pam(&d);

	for (size_t i = 0; i < n; i++) {
		struct passwd copy;

		if (!(pw = getpwnam(names[i]))) {
			char check[300];

			snprintf(check, sizeof(check), "account[%s]", names[i]);
			doctor_report(&d, a->user ? FAIL : WARN, check,
			    "useradd it or remove it from agents",
			    "no such user");
			free(names[i]);
			continue;
		}
		copy = *pw;
		copy.pw_name = strdup(pw->pw_name);
		copy.pw_dir = strdup(pw->pw_dir);
		copy.pw_shell = strdup(pw->pw_shell);
		if (copy.pw_name && copy.pw_dir && copy.pw_shell)
			doctor_agent_check(&d, &copy);
		free(copy.pw_name);
		free(copy.pw_dir);
		free(copy.pw_shell);
		free(names[i]);
	}
	printf("aisb doctor: %u ok, %u warn, %u fail\n", d.n[OK], d.n[WARN],
	    d.n[FAIL]);
	return d.n[FAIL] ? 1 : 0;
}
