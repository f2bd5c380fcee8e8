/*
 * doctor_view.c: the doctor's list of the host paths a session of an
 * agent shows outside the system set (docs/architecture.md stage 6),
 * read from the policy alone: what filesystem.readonly and .readwrite
 * name, and with filesystem.view = "whole-root-unsafe" every top-level
 * entry of filesystem.root that is not hidden.  See doctor.h.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "doctor.h"
#include "hide.h"
#include "mount.h"

void
doctor_view(struct doctor *d, const char *user, const struct aisb_policy *p)
{
	char check[300];
	unsigned n = 0;
	size_t i;

	snprintf(check, sizeof(check), "view[%s]", user);
	if (p->fs.view == AISB_VIEW_WHOLE_ROOT) {
		DIR *dir = opendir(p->fs.root);
		const struct dirent *e;

		if (dir == NULL)
			doctor_report(d, FAIL, check, "correct filesystem.root",
			    "cannot list %s", p->fs.root);
		while (dir && (e = readdir(dir)) != NULL) {
			const char *nm = e->d_name;

			/* A recreated symlink shows nothing by itself. */
			if (e->d_type == DT_LNK || strcmp(nm, ".") == 0 ||
			    strcmp(nm, "..") == 0 || strcmp(nm, "proc") == 0 ||
			    strcmp(nm, "sys") == 0 || strcmp(nm, "dev") == 0 ||
			    strcmp(nm, "tmp") == 0 || mount_system_top(nm) ||
			    hide_top(p, nm))
				continue;
			n++;
			doctor_report(d, WARN, check,
			    "filesystem.view = \"system\", and name what the "
			    "agent needs in filesystem.readonly",
			    "/%s is shown (filesystem.view = "
			    "\"whole-root-unsafe\")",
			    nm);
		}
		if (dir)
			closedir(dir);
	}
	for (i = 0; i < p->fs.readonly.n; i++, n++)
		doctor_report(d, OK, check, NULL,
		    "%s is shown read-only (filesystem.readonly)",
		    p->fs.readonly.v[i]);
	for (i = 0; i < p->fs.readwrite.n; i++, n++)
		doctor_report(d, OK, check, NULL,
		    "%s is shown read-write: the agent can change it "
		    "(filesystem.readwrite)",
		    p->fs.readwrite.v[i]);
	if (n == 0)
		doctor_report(d, OK, check, NULL,
		    "the system set only: /usr and its links, /etc (filtered), "
		    "the home, the project");
}
