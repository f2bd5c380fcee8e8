/*
 * doctor_pam.c: is pam_aisb in the PAM stack of each way into an agent
 * account, with a control that can refuse?  See doctor.h.
 *
 * The stacks are read from /etc/pam.d as libpam reads them, following
 * "@include FILE" and the "include" and "substack" controls.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "doctor.h"
#include "util.h"

#define PAM_DIR "/etc/pam.d"

/*
 * Does a PAM control make PAM_PERM_DENIED fail the stack?  required and
 * requisite do; "[...]" does when perm_denied (or, without it, default)
 * maps to die or bad.
 */
static bool
control_refuses(const char *c)
{
	const char *act;

	if (strcmp(c, "required") == 0 || strcmp(c, "requisite") == 0)
		return true;
	if (c[0] != '[')
		return false;
	if ((act = strstr(c, "perm_denied=")))
		act += strlen("perm_denied=");
	else if ((act = strstr(c, "default=")))
		act += strlen("default=");
	else
		return false;
	return strncmp(act, "die", 3) == 0 || strncmp(act, "bad", 3) == 0;
}

/*
 * Does the stack of service have a line "TYPE CONTROL .../pam_aisb.so",
 * following "@include FILE" and "include"/"substack" controls?
 * *strong: its control refuses (required/requisite).
 */
static bool
pam_has(const char *service, const char *type, bool *strong, int depth)
{
	_cleanup_free_ char *line = NULL;
	char path[PATH_MAX];
	size_t cap = 0;
	bool found = false;
	FILE *f;

	if (depth > 8 || strchr(service, '/'))
		return false;
	snprintf(path, sizeof(path), "%s/%s", PAM_DIR, service);
	if (!(f = fopen(path, "re")))
		return false;
	while (!found && getline(&line, &cap, f) > 0) {
		char *s = line, *t, *c, *m, *save = NULL;

		s[strcspn(s, "#\n")] = '\0';
		if (!(t = strtok_r(s, " \t", &save)))
			continue;
		if (strcmp(t, "@include") == 0) {
			if ((m = strtok_r(NULL, " \t", &save)))
				found = pam_has(m, type, strong, depth + 1);
			continue;
		}
		if (t[0] == '-')
			t++;
		if (strcmp(t, type) != 0)
			continue;
		/* The control: a word, or "[value=action ...]" with blanks. */
		s = save + strspn(save, " \t");
		if (*s == '[') {
			char *end = strchr(s, ']');

			if (!end)
				continue;
			c = s;
			*end = '\0';
			save = end + 1;
		} else if (!(c = strtok_r(NULL, " \t", &save)))
			continue;
		if (!(m = strtok_r(NULL, " \t", &save)))
			continue;
		if (strcmp(c, "include") == 0 || strcmp(c, "substack") == 0) {
			found = pam_has(m, type, strong, depth + 1);
			continue;
		}
		t = strrchr(m, '/');
		if (strcmp(t ? t + 1 : m, "pam_aisb.so") == 0) {
			found = true;
			*strong = control_refuses(c);
		}
	}
	fclose(f);
	return found;
}

void
doctor_pam(struct doctor *d)
{
	/*
	 * The first three start the login shell (account and session); the
	 * rest run commands without it and are refused only by the account
	 * line (docs/architecture.md, "PAM, sshd and su": cron, at, sudo,
	 * runuser, systemd --user).
	 */
	static const char *const svc[] = {"sshd", "su", "su-l", "cron", "atd",
	    "sudo", "runuser", "runuser-l", "systemd-user"};
	char check[64], fix[PATH_MAX + 200];

	for (size_t i = 0; i < ELEMENTSOF(svc); i++) {
		char path[PATH_MAX];
		bool strong = false;

		snprintf(path, sizeof(path), "%s/%s", PAM_DIR, svc[i]);
		if (access(path, F_OK) < 0)
			continue;
		snprintf(check, sizeof(check), "pam %s account", svc[i]);
		snprintf(fix, sizeof(fix),
		    "pam-auth-update --enable aisb, or add \"account required "
		    "pam_aisb.so\" to /etc/pam.d/common-account, or to %s if "
		    "it does not include that (see pam_aisb(8))",
		    path);
		if (!pam_has(svc[i], "account", &strong, 0))
			doctor_report(d, i < 3 ? FAIL : WARN, check, fix,
			    "%s has no pam_aisb account line", path);
		else if (!strong)
			doctor_report(d, FAIL, check,
			    "use \"account required pam_aisb.so\"",
			    "pam_aisb in %s cannot refuse (control is not "
			    "required/requisite)",
			    path);
		else
			doctor_report(d, OK, check, NULL,
			    "pam_aisb refuses agents on services not in "
			    "pam.services");
		if (i >= 3)
			continue;
		snprintf(check, sizeof(check), "pam %s session", svc[i]);
		if (pam_has(svc[i], "session", &strong, 0)) {
			doctor_report(d, OK, check, NULL,
			    "pam_aisb prepares home, /run/aisb and the session "
			    "cgroup");
			if (i == 0)
				d->pam_session = true;
		} else
			doctor_report(d, WARN, check,
			    "pam-auth-update --enable aisb, or add \"session "
			    "optional pam_aisb.so\" (see pam_aisb(8))",
			    "%s has no pam_aisb session line: no home made, no "
			    "delegated cgroup for limits",
			    path);
	}
}
