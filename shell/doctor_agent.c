/*
 * doctor_agent.c: which agents the doctor checks, and the checks made
 * for each: the merged policy loads, the login shell, the network as
 * that policy sets it up, sshd, cron.deny/at.deny, home and project,
 * the host paths shown outside the system set (and with --jailcheck a
 * real session's audit).  See doctor.h.
 *
 * The agents are the users the system policy's agents names (members
 * and primary members of each @group too), or only --user NAME.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "callerenv.h"
#include "doctor.h"
#include "loginshell.h"
#include "pathsafe.h"
#include "policy.h"
#include "util.h"

/* Is user in FILE (one name a line)?  -ENOENT when FILE is absent. */
static int
listed(const char *file, const char *user)
{
	_cleanup_free_ char *line = NULL;
	size_t cap = 0;
	int r = 0;
	FILE *f = fopen(file, "re");

	if (!f)
		return -errno;
	while (!r && getline(&line, &cap, f) > 0) {
		line[strcspn(line, " \t\r\n")] = '\0';
		r = strcmp(line, user) == 0;
	}
	fclose(f);
	return r;
}

static void
check_deny(struct doctor *d, const char *user, const char *what,
    const char *allow, const char *deny)
{
	char check[300], fix[300];

	snprintf(check, sizeof(check), "%s[%s]", what, user);
	snprintf(fix, sizeof(fix), "echo %s >> %s", user, deny);
	if (listed(allow, user) == 0) /* allow file exists, agent not in */
		doctor_report(d, OK, check, NULL,
		    "%s exists and does not list the agent", allow);
	else if (listed(allow, user) == 1)
		doctor_report(d, FAIL, check,
		    "remove the agent from the allow file",
		    "%s lists the agent: its jobs run without aisb-shell",
		    allow);
	else if (listed(deny, user) == 1)
		doctor_report(d, OK, check, NULL, "listed in %s", deny);
	else
		doctor_report(d, FAIL, check, fix,
		    "not in %s: jobs run by /bin/sh, not by aisb-shell", deny);
}

/* One failure line that says which condition failed, with its fix: the
 * session refuses with the same text (pathsafe.h). */
static void
report_unsafe(struct doctor *d, const char *check, const char *path,
    const char *role, const struct pathsafe *u)
{
	char fix[PATH_MAX + 100], text[3 * PATH_MAX];

	pathsafe_fix(u, fix, sizeof(fix));
	pathsafe_text(u, role, path, text, sizeof(text));
	doctor_report(d, FAIL, check, fix, "%s", text);
}

/*
 * The project roots: the directories above each must be root's; the
 * root itself may be the agent's or root's, and writable by nobody else
 * (pathsafe.h).  False when any line failed.
 */
static bool
check_roots(struct doctor *d, const struct passwd *pw,
    const struct aisb_policy *p, const char *check)
{
	bool good = true;

	for (size_t i = 0; i < p->project.roots.n; i++) {
		const char *root = p->project.roots.v[i];
		struct pathsafe u;
		struct stat st;
		/* Only a root that holds the project must exist. */
		bool there = stat(root, &st) == 0 && S_ISDIR(st.st_mode);

		if (pathsafe_root(root, there ? &st : NULL, pw->pw_uid, &u)) {
			report_unsafe(d, check, root, "project root", &u);
			good = false;
		}
	}
	return good;
}

static void
check_dir(struct doctor *d, const struct passwd *pw, const char *what,
    const char *path, const struct aisb_policy *p, bool made_at_login)
{
	char check[300], fix[PATH_MAX + 100];
	struct pathsafe u;
	struct stat st;
	bool in_root = false;

	snprintf(check, sizeof(check), "%s[%s]", what, pw->pw_name);
	/* A project under a root: the root's parents are what matter. */
	if (p) {
		for (size_t i = 0; i < p->project.roots.n; i++)
			in_root |=
			    pathsafe_under(p->project.roots.v[i], path) != NULL;
		if (!check_roots(d, pw, p, check))
			return;
	}
	if (!in_root && pathsafe_above(path, &u)) {
		report_unsafe(d, check, path, what, &u);
		return;
	}
	if (lstat(path, &st) < 0) {
		/* The group by name, as an admin would type it. */
		const struct group *g = getgrgid(pw->pw_gid);
		char gnum[16];

		snprintf(gnum, sizeof(gnum), "%u", (unsigned)pw->pw_gid);
		snprintf(fix, sizeof(fix), "install -d -o %s -g %s -m 0700 %s",
		    pw->pw_name, g ? g->gr_name : gnum, path);
		if (made_at_login)
			doctor_report(d, WARN, check, fix,
			    "%s does not exist yet (pam_aisb makes it at the "
			    "first login)",
			    path);
		else
			doctor_report(d, FAIL, check, fix,
			    "%s does not exist (aisb-shell refuses the "
			    "session, exit 78)",
			    path);
		return;
	}
	if (!S_ISDIR(st.st_mode))
		doctor_report(d, FAIL, check, "make it a directory",
		    "%s is not a directory", path);
	else if (st.st_uid != pw->pw_uid && st.st_uid != 0)
		doctor_report(d, FAIL, check, "chown it to the agent",
		    "%s is owned by uid %u", path, (unsigned)st.st_uid);
	else if (st.st_mode & 002)
		doctor_report(
		    d, FAIL, check, "chmod o-w", "%s is world-writable", path);
	else
		doctor_report(d, OK, check, NULL, "%s (uid %u, mode %04o)",
		    path, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
}

static int
load(const struct doctor *d, const struct passwd *pw, bool with_user,
    struct aisb_policy **ret, struct policy_errs *errs)
{
	struct policy_opts o = {
	    .user = pw->pw_name,
	    .home = pw->pw_dir,
	    .conf_path = d->conf, /* users.d beside it: the loader's rule */
	    .system_only = !with_user,
	    .trusted_uid = d->conf ? getuid() : (uid_t)-1,
	};

	/* Cleared first: the caller reads and frees errs on every failure. */
	memset(errs, 0, sizeof(*errs));
	return policy_load(&o, ret, errs);
}

void
doctor_agent_check(struct doctor *d, const struct passwd *pw)
{
	struct aisb_policy *p = NULL;
	struct policy_errs errs;
	char check[300], why[512], fix[PATH_MAX];

	snprintf(check, sizeof(check), "policy[%s]", pw->pw_name);
	if (load(d, pw, true, &p, &errs) < 0) {
		for (size_t i = 0; i < errs.n && i < 8; i++)
			doctor_report(d, FAIL, check,
			    "correct the file (aisb.conf(5)); aisb-shell "
			    "--check-config --user AGENT",
			    "%s", errs.msg[i]);
		if (errs.n == 0)
			doctor_report(d, FAIL, check,
			    "aisb-shell --check-config", "does not load");
		policy_errs_free(&errs);
	} else {
		policy_errs_free(&errs);
		doctor_report(d, OK, check, NULL, "loads (%s)",
		    d->conf ? d->conf : AISB_CONF_PATH);
		if (!policy_is_agent(p, pw->pw_name))
			doctor_report(d, WARN, check,
			    "list it in agents (or drop --user)",
			    "'%s' is not in agents", pw->pw_name);
	}

	snprintf(check, sizeof(check), "login shell[%s]", pw->pw_name);
	{
		/* Suggest the entry point that is running: the installed one.
		 */
		const char *self = callerenv_entry();

		snprintf(fix, sizeof(fix), "usermod -s %s %s",
		    self ? self : "/usr/bin/aisb-shell", pw->pw_name);
	}
	if (loginshell_check(pw->pw_shell, why, sizeof(why)) == 0)
		doctor_report(d, OK, check, NULL, "%s", pw->pw_shell);
	else
		doctor_report(d, FAIL, check, fix, "%s", why);

	snprintf(check, sizeof(check), "nftables[%s]", pw->pw_name);
	snprintf(why, sizeof(why), "agent '%s'", pw->pw_name);
	if (p)
		doctor_probe_nft(d, pw->pw_uid, pw->pw_gid, why, check, p);
	else
		doctor_report(d, WARN, check, "correct the policy first",
		    "not probed: the policy does not load");

	doctor_sshd(d, pw);
	doctor_pam_readenv(d, pw, p);
	check_deny(
	    d, pw->pw_name, "cron.deny", "/etc/cron.allow", "/etc/cron.deny");
	check_deny(d, pw->pw_name, "at.deny", "/etc/at.allow", "/etc/at.deny");
	doctor_groups(d, pw, p);
	doctor_registry(d, pw);
	if (p) {
		if (p->home.path && !p->home.tmpfs)
			check_dir(
			    d, pw, "home", p->home.path, NULL, d->pam_session);
		if (p->project.path)
			check_dir(d, pw, "project", p->project.path, p, false);
		doctor_disk(d, pw, p);
		doctor_view(d, pw->pw_name, p);
	}
	policy_free(p);
	if (d->jailcheck)
		jailcheck_session(d, pw);
}

/* ---- finding the agents ---------------------------------------------- */

static bool
names_has(char **names, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(names[i], s) == 0)
			return true;
	return false;
}

static void
names_add(char **names, size_t *n, const char *s)
{
	if (*n < DOCTOR_MAX_AGENTS && !names_has(names, *n, s))
		if ((names[*n] = strdup(s)))
			(*n)++;
}

/* Users named by agents: "name" and the members of "@group" (primary too). */
static size_t
find_agents(const struct aisb_policy *p, char **names)
{
	size_t n = 0;

	for (size_t i = 0; i < p->agents.n; i++) {
		const char *a = p->agents.v[i];
		struct group *g;
		struct passwd *pw;

		if (a[0] != '@') {
			names_add(names, &n, a);
			continue;
		}
		if (!(g = getgrnam(a + 1)))
			continue;
		for (char **m = g->gr_mem; *m; m++)
			names_add(names, &n, *m);
		setpwent();
		while ((pw = getpwent()))
			if (pw->pw_gid == g->gr_gid)
				names_add(names, &n, pw->pw_name);
		endpwent();
	}
	return n;
}

int
doctor_agent_find(struct doctor *d, const char *user, char **names, size_t *np)
{
	struct aisb_policy *p = NULL;
	struct policy_errs errs;
	struct passwd *pw, self;
	size_t n = 0;

	/* The agents: from the system policy, or --user. */
	if (!(pw = getpwuid(getuid()))) {
		fprintf(stderr, "aisb-shell: --doctor: who am I?\n");
		return -1;
	}
	self = *pw;
	self.pw_name = strdup(pw->pw_name);
	self.pw_dir = strdup(pw->pw_dir);
	if (load(d, &self, false, &p, &errs) < 0) {
		for (size_t i = 0; i < errs.n && i < 8; i++)
			doctor_report(d, FAIL, "policy",
			    "correct the file (aisb.conf(5))", "%s",
			    errs.msg[i]);
		if (errs.n == 0)
			doctor_report(d, FAIL, "policy",
			    "aisb-shell --check-config", "%s does not load",
			    d->conf ? d->conf : AISB_CONF_PATH);
		policy_errs_free(&errs);
	} else {
		policy_errs_free(&errs);
		n = find_agents(p, names);
	}
	policy_free(p);
	free(self.pw_name);
	free(self.pw_dir);
	if (user) {
		for (size_t i = 0; i < n; i++)
			free(names[i]);
		n = 0;
		names_add(names, &n, user);
	}
	if (n == 0)
		doctor_report(d, WARN, "agents",
		    "list users or @groups in agents of aisb.conf",
		    "no agent account found");
	*np = n;
	return 0;
}
