/*
 * doctor_pam.c: is pam_aisb in the PAM stack of each way into an agent
 * account, with a control that can refuse?  See doctor.h.
 *
 * The stacks are read from /etc/pam.d as libpam reads them, following
 * "@include FILE" and the "include" and "substack" controls.  Also: does
 * a stack of an agent let pam_env read a file in the agent's home?
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* One effective line of a stack. */
struct pam_line {
	const char *file; /* the file it is in */
	const char *type; /* "auth", "account", "session", "password" */
	const char *control;
	const char *module; /* as written: a path or a name */
	const char *args; /* the rest of the line, blanks and all */
};

/* Visit a line; return true to stop the walk. */
typedef bool (*pam_visit)(const struct pam_line *l, void *arg);

static bool
is_module(const char *m, const char *name)
{
	const char *t = strrchr(m, '/');

	return strcmp(t ? t + 1 : m, name) == 0;
}

/*
 * Each line of service's stack in order, of type only (NULL: every
 * type), following "@include FILE" and the "include" and "substack"
 * controls as libpam does.  Returns true when fn stopped the walk.
 */
static bool
pam_walk(
    const char *service, const char *type, pam_visit fn, void *arg, int depth)
{
	_cleanup_free_ char *line = NULL;
	char path[PATH_MAX];
	size_t cap = 0;
	bool stop = false;
	FILE *f;

	if (depth > 8 || strchr(service, '/'))
		return false;
	snprintf(path, sizeof(path), "%s/%s", PAM_DIR, service);
	if (!(f = fopen(path, "re")))
		return false;
	while (!stop && getline(&line, &cap, f) > 0) {
		char *s = line, *t, *c, *m, *save = NULL;
		struct pam_line l;

		s[strcspn(s, "#\n")] = '\0';
		if (!(t = strtok_r(s, " \t", &save)))
			continue;
		if (strcmp(t, "@include") == 0) {
			if ((m = strtok_r(NULL, " \t", &save)))
				stop = pam_walk(m, type, fn, arg, depth + 1);
			continue;
		}
		if (t[0] == '-')
			t++;
		if (type && strcmp(t, type) != 0)
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
			stop = pam_walk(m, t, fn, arg, depth + 1);
			continue;
		}
		l = (struct pam_line){.file = path,
		    .type = t,
		    .control = c,
		    .module = m,
		    .args = save ? save : ""};
		stop = fn(&l, arg);
	}
	fclose(f);
	return stop;
}

/* pam_has: the first pam_aisb.so line, and whether it can refuse. */
static bool
visit_aisb(const struct pam_line *l, void *arg)
{
	bool *strong = arg;

	if (!is_module(l->module, "pam_aisb.so"))
		return false;
	*strong = control_refuses(l->control);
	return true;
}

/*
 * Does the stack of service have a line "TYPE CONTROL .../pam_aisb.so"?
 * *strong: its control refuses (required/requisite).
 */
static bool
pam_has(const char *service, const char *type, bool *strong, int depth)
{
	return pam_walk(service, type, visit_aisb, strong, depth);
}

static bool
visit_common_account(const struct pam_line *l, void *arg)
{
	const char *base = strrchr(l->file, '/');

	(void)arg;
	return base && strcmp(base + 1, "common-account") == 0;
}

/* Does service's account stack take lines from common-account (what
 * pam-auth-update edits)? */
static bool
includes_common_account(const char *service)
{
	return pam_walk(service, "account", visit_common_account, NULL, 0);
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
		if (strncmp(svc[i], "runuser", 7) == 0) {
			/*
			 * util-linux's runuser refuses every caller but root
			 * and runs no PAM auth or account phase for anyone,
			 * so no account line (common-account or its own)
			 * could refuse it: root alone can use it, and root can
			 * act as the agent without it anyway.  Nothing to fix.
			 */
			doctor_report(d, OK, check, NULL,
			    "runuser is root-only: util-linux refuses every "
			    "other caller and runs no PAM account phase for "
			    "it (service %s), so no pam_aisb line applies; "
			    "root can act as the agent without it anyway",
			    svc[i]);
			continue;
		}
		if (includes_common_account(svc[i]))
			snprintf(fix, sizeof(fix),
			    "pam-auth-update --enable aisb, or add \"account "
			    "required pam_aisb.so\" to "
			    "/etc/pam.d/common-account (see pam_aisb(8))");
		else
			snprintf(fix, sizeof(fix),
			    "add \"account required pam_aisb.so\" to %s: it "
			    "does not include common-account, so "
			    "pam-auth-update does not reach it (see "
			    "pam_aisb(8))",
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

/* ---- the agent's own environment file ---------------------------------- */

struct readenv {
	struct doctor *d;
	const struct passwd *pw;
	const char *service;
	char files[4][NAME_MAX + 1]; /* user_envfile names seen */
	size_t nfiles;
	bool found;
};

/* The value of "name=" among the blank-separated words of args. */
static bool
arg_value(const char *args, const char *name, char *out, size_t len)
{
	size_t n = strlen(name);

	for (const char *w = args; *w;) {
		size_t wl;

		w += strspn(w, " \t");
		wl = strcspn(w, " \t");
		if (wl > n && strncmp(w, name, n) == 0 && w[n] == '=') {
			snprintf(
			    out, len, "%.*s", (int)(wl - n - 1), w + n + 1);
			return true;
		}
		w += wl;
	}
	return false;
}

static bool
visit_readenv(const struct pam_line *l, void *arg)
{
	struct readenv *r = arg;
	char v[NAME_MAX + 1], check[300];

	if (!is_module(l->module, "pam_env.so") ||
	    !arg_value(l->args, "user_readenv", v, sizeof(v)) ||
	    strcmp(v, "1") != 0)
		return false;
	if (!arg_value(l->args, "user_envfile", v, sizeof(v)))
		snprintf(v, sizeof(v), "%s", ".pam_environment");
	if (r->nfiles < ELEMENTSOF(r->files) && !strchr(v, '/'))
		snprintf(r->files[r->nfiles++], sizeof(r->files[0]), "%s", v);
	snprintf(check, sizeof(check), "pam env[%s]", r->pw->pw_name);
	doctor_report(r->d, FAIL, check,
	    "take user_readenv=1 off that pam_env.so line (Debian's "
	    "/etc/pam.d/sshd has it on the /etc/default/locale line); the "
	    "agent's own file must not set its login's environment",
	    "the %s stack reads the agent's ~/%s (%s: %s pam_env.so "
	    "user_readenv=1)",
	    r->service, v, l->file, l->type);
	r->found = true;
	return false;
}

void
doctor_pam_readenv(
    struct doctor *d, const struct passwd *pw, const struct aisb_policy *p)
{
	static const char *const def[] = {"sshd", "su", "su-l", "login"};
	struct readenv r = {.d = d, .pw = pw};
	char check[300], path[PATH_MAX];
	size_t n = p ? p->pam.services.n : ELEMENTSOF(def), i;
	struct stat st;

	/* The files pam_env would read: also .pam_environment always. */
	snprintf(r.files[r.nfiles++], sizeof(r.files[0]), ".pam_environment");
	for (i = 0; i < n; i++) {
		r.service = p ? p->pam.services.v[i] : def[i];
		pam_walk(r.service, NULL, visit_readenv, &r, 0);
	}
	snprintf(check, sizeof(check), "pam env[%s]", pw->pw_name);
	if (!r.found)
		doctor_report(d, OK, check, NULL,
		    "no PAM stack of the agent reads a file in its home "
		    "(pam_env user_readenv)");
	snprintf(check, sizeof(check), "env file[%s]", pw->pw_name);
	for (i = 0; i < r.nfiles; i++) {
		bool dup = false;

		for (size_t j = 0; j < i; j++)
			dup |= strcmp(r.files[i], r.files[j]) == 0;
		if (dup)
			continue;
		snprintf(path, sizeof(path), "%s/%s", pw->pw_dir, r.files[i]);
		if (lstat(path, &st) == 0)
			doctor_report(d, FAIL, check,
			    "remove it, and keep the passwd home out of the "
			    "agent's reach (aisb.conf(5), SECURITY "
			    "CONSIDERATIONS)",
			    "%s exists: pam_env sets what it says in the "
			    "agent's login environment",
			    path);
		else
			doctor_report(d, OK, check, NULL, "no %s", path);
	}
}
