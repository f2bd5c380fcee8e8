/*
 * doctor_groups.c: the agent's supplementary groups.  See doctor.h.
 *
 * A rootless sandbox cannot drop supplementary groups: setgroups(2) is
 * denied in a user namespace that another user's groups are mapped
 * out of (the kernel's rule since 3.19), so the groups stay in the
 * credentials of every process inside.  They show as the overflow gid
 * (nogroup), but the kernel still checks files against them: whatever
 * a group of the agent may read or write on the host, the sandbox may
 * too.  The account's own group and the agents group of the sshd
 * drop-in (ai-agents, or an @group of the agents list) are expected;
 * any other group is reported (docs/admin-guide.md).
 */
#define _GNU_SOURCE
#include <grp.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "doctor.h"
#include "policy.h"

#define AGENTS_GROUP "ai-agents" /* the sshd drop-in's Match Group */
#define MAX_GROUPS 1024

/* Is g the agents group: ai-agents, or an @group of p's agents? */
static bool
agents_group(const struct aisb_policy *p, const char *g)
{
	if (strcmp(g, AGENTS_GROUP) == 0)
		return true;
	for (size_t i = 0; p && i < p->agents.n; i++)
		if (p->agents.v[i][0] == '@' &&
		    strcmp(p->agents.v[i] + 1, g) == 0)
			return true;
	return false;
}

void
doctor_groups(
    struct doctor *d, const struct passwd *pw, const struct aisb_policy *p)
{
	gid_t gids[MAX_GROUPS];
	int n = MAX_GROUPS;
	char check[300], extra[2048] = "", fix[2048] = "";
	size_t nextra = 0;

	snprintf(check, sizeof(check), "groups[%s]", pw->pw_name);
	if (getgrouplist(pw->pw_name, pw->pw_gid, gids, &n) < 0) {
		doctor_report(d, WARN, check,
		    "remove the agent from most groups",
		    "member of more than %d groups: not checked", MAX_GROUPS);
		return;
	}
	for (int i = 0; i < n; i++) {
		struct group *g;
		char num[16];
		const char *name;

		if (gids[i] == pw->pw_gid)
			continue;
		g = getgrgid(gids[i]);
		snprintf(num, sizeof(num), "%u", (unsigned)gids[i]);
		name = g ? g->gr_name : num;
		if (agents_group(p, name))
			continue;
		snprintf(extra + strlen(extra), sizeof(extra) - strlen(extra),
		    "%s%s", nextra ? ", " : "", name);
		snprintf(fix + strlen(fix), sizeof(fix) - strlen(fix),
		    "%sgpasswd -d %s %s", nextra ? "; " : "", pw->pw_name,
		    name);
		nextra++;
	}
	if (nextra == 0)
		doctor_report(d, OK, check, NULL,
		    "no supplementary group but its own and the agents group");
	else
		doctor_report(d, WARN, check, fix,
		    "member of %s: the sandbox cannot drop supplementary "
		    "groups, "
		    "so what %s may read or write on the host, the agent may "
		    "inside",
		    extra, nextra == 1 ? "that group" : "these groups");
}
