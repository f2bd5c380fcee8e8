/*
 * admin.c: the admin forms of aisb-shell (--print-policy, --check-config,
 * --version, --help).  See aisb-shell(8).
 *
 * Whose policy: --user NAME (root only), else the invoking user's.
 *
 * Which files: /etc/aisb/aisb.conf then /etc/aisb/users.d/USER.conf.
 * --config FILE replaces the first, and the per-user file is then looked
 * up next to it, as DIR/users.d/USER.conf (DIR = the directory of FILE),
 * so a test or a draft policy is checked with its own overrides and
 * never mixed with the installed ones.  With --config, FILE, users.d
 * and every directory above them may also be owned by the invoking user
 * (never group- or other-writable, never symlinks).
 *
 * Exit status: 0; 78 when the policy is invalid or unsafe (every error
 * is printed, one per line, "FILE:LINE: KEY: message" or "FILE:
 * message"); 2 for a usage error; 1 when memory runs out.
 *
 * --print-policy: one line per key, "key = value    # origin", where
 * origin is FILE:LINE or "default"; lists in aisb.conf syntax.
 *
 * --print-policy --json prints one JSON object:
 *
 *	{
 *	  "user":  "alice",
 *	  "hash":  "<sha256 hex of the merged policy's values>",
 *	  "files": ["/etc/aisb/aisb.conf", "/etc/aisb/users.d/alice.conf"],
 *	  "keys": {
 *	    "shell":         {"value": "/bin/bash", "origin": "default"},
 *	    "limits.memory": {"value": 4294967296, "origin": "FILE:LINE"},
 *	    "network.allow": {"value": ["api.example.org",
 *"*.github.com:22,443"], "origin": "FILE:LINE", "origins": ["FILE:LINE",
 *"FILE:LINE"]}, "env.secret":    {"value": {"NAME": "/path"}, "origin":
 *"FILE:LINE", "origins": {"NAME": "FILE:LINE"}},
 *	    ...
 *	  }
 *	}
 *
 * Every key of aisb.conf(5) is present, by its dotted name.  "origin"
 * is where the key was last assigned ("default" if never); for lists,
 * "origins" gives, per element, the line it came from (a "+=" in the
 * user's file shows there).  Values: strings, booleans, integers
 * (sizes in bytes, limits.cpu in percent, ports), lists as arrays;
 * network.allow/deny entries as canonical "host[:port,...]" strings,
 * network.allow_cidr as "ADDR/PREFIX".  "files" lists the files read.
 */
#define _GNU_SOURCE /* asprintf */
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "aisb.h"
#include "args.h"
#include "policy.h"
#include "util.h"

static const char usage[] =
    "usage: aisb-shell [-l | -i | -s | -c COMMAND [ARG...] | SCRIPT]\n"
    "       aisb-shell [--config FILE] [--user NAME] --print-policy [--json]\n"
    "       aisb-shell [--config FILE] [--user NAME] --check-config\n"
    "       aisb-shell [--config FILE] [--user NAME] --doctor [--jailcheck]\n"
    "       aisb-shell --jailcheck   (inside a session)\n"
    "       aisb-shell --sessions [--json]\n"
    "       aisb-shell --end ID|USER\n"
    "       aisb-shell --egress ID|USER [--since T] [--json]\n"
    "       aisb-shell --version | --help\n"
    "\n"
    "  --config FILE   use FILE instead of /etc/aisb/aisb.conf (and\n"
    "                  DIR/users.d/USER.conf next to it)\n"
    "  --user NAME     the policy of user NAME (root only)\n"
    "  --print-policy  the merged policy, with the origin of each value\n"
    "  --json          ... as one JSON object\n"
    "  --check-config  validate; exit 0, or 78 with every error\n"
    "  --doctor        can this host enforce the policy?\n"
    "  --jailcheck     what does this session expose? (exit 1 if\n"
    "                  anything); with --doctor: run it as each agent\n"
    "  --sessions      the live sessions of every agent (root)\n"
    "  --end ID|USER   end a session as limits.timeout does (root)\n"
    "  --egress ID|USER  what sessions reached and were refused, with\n"
    "                  an allow line to paste (root); --since 2h, 7d,\n"
    "                  @EPOCH or YYYY-MM-DD[ HH:MM]\n"
    "exit: 0 ok, 77 host cannot enforce, 78 policy invalid or unsafe, "
    "2 usage\n";

/*
 * An absolute spelling of FILE without resolving symlinks: the trust
 * check must see (and refuse) a symlinked config, not its target.
 */
static char *
absolute(const char *file)
{
	char cwd[PATH_MAX];
	char *out = NULL;

	if (file[0] == '/')
		return strdup(file);
	if (getcwd(cwd, sizeof(cwd)) == NULL)
		return NULL;
	if (asprintf(&out, "%s/%s", strcmp(cwd, "/") ? cwd : "", file) < 0)
		return NULL;
	return out;
}

static int
load(const struct aisb_args *a, struct aisb_policy **p)
{
	struct policy_opts o = {.trusted_uid = (uid_t)-1};
	struct policy_errs errs = {0};
	_cleanup_free_ char *conf = NULL, *user = NULL;
	_cleanup_free_ char *home = NULL;
	struct passwd *pw;
	size_t i;
	int r;

	if (a->user != NULL && getuid() != 0) {
		fprintf(stderr, "aisb-shell: --user needs root\n");
		return 2;
	}
	pw = a->user ? getpwnam(a->user) : getpwuid(getuid());
	if (pw == NULL) {
		if (a->user)
			fprintf(
			    stderr, "aisb-shell: no such user '%s'\n", a->user);
		else
			fprintf(stderr,
			    "aisb-shell: the invoking uid %u has "
			    "no passwd entry\n",
			    (unsigned)getuid());
		return 2;
	}
	user = strdup(pw->pw_name);
	home = strdup(pw->pw_dir);
	if (user == NULL || home == NULL)
		/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc): see util.h */
		return 1;
	o.user = user;
	o.home = home;
	if (a->config != NULL) {
		/* Absolute, so the loader finds users.d beside it. */
		conf = absolute(a->config);
		if (conf == NULL)
			/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc) */
			return 1;
		o.conf_path = conf;
		o.trusted_uid = getuid();
	}
	r = policy_load(&o, p, &errs);
	for (i = 0; i < errs.n; i++)
		fprintf(stderr, "%s\n", errs.msg[i]);
	policy_errs_free(&errs);
	if (r == -ENOMEM)
		return 1;
	if (r < 0) {
		fprintf(
		    stderr, "aisb-shell: the policy is invalid or unsafe\n");
		return AISB_EX_CONFIG;
	}
	return 0;
}

int
admin_main(const struct aisb_args *a)
{
	struct aisb_policy *p = NULL;
	int r;

	switch (a->action) {
	case ACT_VERSION:
		printf("aisb-shell %s\n", AISB_VERSION);
		return 0;
	case ACT_HELP:
		fputs(usage, stdout);
		return 0;
	case ACT_CHECK_CONFIG:
		if ((r = load(a, &p)) != 0)
			return r;
		printf("aisb-shell: policy for %s is valid (hash %s)\n",
		    p->user, p->hash);
		policy_free(p);
		return 0;
	case ACT_PRINT_POLICY:
		if ((r = load(a, &p)) != 0)
			return r;
		fflush(stdout);
		r = policy_print(p, STDOUT_FILENO, a->json);
		policy_free(p);
		if (r < 0) {
			fprintf(
			    stderr, "aisb-shell: print: %s\n", strerror(-r));
			return 1;
		}
		return 0;
	default:
		fprintf(stderr, "aisb-shell: not implemented yet\n");
		return AISB_EX_HOST;
	}
}
