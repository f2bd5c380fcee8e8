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
 * --check-config as root without --user checks the whole tree: the
 * system file alone, every DIR/users.d/NAME.conf merged for its user, and
 * every agent's merged policy with what a session would refuse on it
 * (an agent that is root, a missing project.path or env.secret file, an
 * unsafe directory above the project: pathsafe.h).
 * Every problem is printed; the status is 78 if there is any.
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
#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "aisb.h"
#include "args.h"
#include "pathsafe.h"
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

/* ---- --check-config of the whole tree (root, no --user) ------------- */

struct tree {
	const char *conf; /* absolute --config FILE, or NULL */
	uid_t trusted;
	size_t problems;
	char *seen[256]; /* users already checked */
	size_t nseen;
};

static void problem(struct tree *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
problem(struct tree *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	t->problems++;
}

/* Load for user (NULL: the system file alone); errors are problems. */
static int
tree_load(
    struct tree *t, const char *user, const char *home, struct aisb_policy **p)
{
	struct policy_opts o = {
	    .user = user ? user : "root",
	    .home = home ? home : "/root",
	    .conf_path = t->conf,
	    .system_only = user == NULL,
	    .trusted_uid = t->trusted,
	};
	struct policy_errs errs = {0};
	int r = policy_load(&o, p, &errs);

	for (size_t i = 0; i < errs.n; i++)
		problem(t, "%s", errs.msg[i]);
	if (r < 0 && r != -ENOMEM && errs.n == 0)
		problem(t, "%s: does not load (%s)",
		    t->conf ? t->conf : AISB_CONF_PATH, strerror(-r));
	policy_errs_free(&errs);
	return r;
}

static bool
tree_seen(struct tree *t, const char *user)
{
	for (size_t i = 0; i < t->nseen; i++)
		if (strcmp(t->seen[i], user) == 0)
			return true;
	if (t->nseen < sizeof(t->seen) / sizeof(t->seen[0]) &&
	    (t->seen[t->nseen] = strdup(user)) != NULL)
		t->nseen++;
	return false;
}

/*
 * The project's root, or the project outside every root, as the session
 * checks it before it starts (shell/project.c, pathsafe.h): the first
 * root that holds project.path, else the directories above the path.
 */
static void
tree_project_path(
    struct tree *t, const struct passwd *pw, const struct aisb_policy *p)
{
	const char *d = p->project.path, *root = NULL, *key = "project.path";
	char text[3 * PATH_MAX];
	struct pathsafe u;
	struct stat st;
	bool bad;

	for (size_t i = 0; i < p->project.roots.n && !root; i++)
		if (pathsafe_under(p->project.roots.v[i], d))
			root = p->project.roots.v[i];
	if (root) {
		key = "project.roots";
		if (stat(root, &st) < 0 || !S_ISDIR(st.st_mode))
			return; /* the missing project says so */
		bad = pathsafe_root(root, &st, pw->pw_uid, &u);
	} else
		bad = pathsafe_above(d, &u);
	if (!bad)
		return;
	pathsafe_text(&u, root ? "project root" : "project", root ? root : d,
	    text, sizeof(text));
	problem(t, "%s: %s: %s (agent %s); a session refuses it",
	    policy_origin(p, key), key, text, pw->pw_name);
}

/* What a session of agent pw would refuse on its merged policy. */
static void
tree_session(
    struct tree *t, const struct passwd *pw, const struct aisb_policy *p)
{
	const char *d = p->project.path;
	struct stat st;

	if (pw->pw_uid == 0)
		problem(t, "%s: agents: %s is root; sessions never run as root",
		    policy_origin(p, "agents"), pw->pw_name);
	if (d && *d && (stat(d, &st) < 0 || !S_ISDIR(st.st_mode)))
		problem(t, "%s: project.path: %s (agent %s) %s",
		    policy_origin(p, "project.path"), d, pw->pw_name,
		    errno == ENOENT ? "does not exist" : "is not a directory");
	else if (d && *d)
		tree_project_path(t, pw, p);
	for (size_t i = 0; i < p->env.nsecrets; i++) {
		const struct aisb_secret *s = &p->env.secrets[i];

		if (stat(s->file, &st) < 0 || !S_ISREG(st.st_mode))
			problem(t,
			    "%s: env.secret %s: %s (agent %s) is not a "
			    "readable file",
			    policy_origin(p, "env.secret"), s->name, s->file,
			    pw->pw_name);
	}
}

static void
tree_agent(struct tree *t, const char *name)
{
	struct aisb_policy *p = NULL;
	struct passwd *pw = getpwnam(name);

	if (pw == NULL || tree_seen(t, name))
		return;
	if (tree_load(t, pw->pw_name, pw->pw_dir, &p) == 0)
		tree_session(t, pw, p);
	policy_free(p);
}

/* Every agents entry: a user, or each member of @group (primary too). */
static void
tree_agents(struct tree *t, const struct aisb_policy *sys)
{
	for (size_t i = 0; i < sys->agents.n; i++) {
		const char *a = sys->agents.v[i];
		char **names = NULL;
		size_t n = 0, cap = 0;
		struct group *g;
		struct passwd *pw;

		if (a[0] != '@') {
			tree_agent(t, a);
			continue;
		}
		if (!(g = getgrnam(a + 1)))
			continue;
		for (char **m = g->gr_mem; *m; m++)
			tree_agent(t, *m);
		/* getpwent's buffer is reused: the names first, then load. */
		setpwent();
		while ((pw = getpwent())) {
			if (pw->pw_gid != g->gr_gid)
				continue;
			if (n == cap) {
				char **v = realloc(names,
				    (cap = cap ? 2 * cap : 16) * sizeof(*v));
				if (!v)
					break;
				names = v;
			}
			if ((names[n] = strdup(pw->pw_name)))
				n++;
		}
		endpwent();
		for (size_t j = 0; j < n; j++) {
			tree_agent(t, names[j]);
			free(names[j]);
		}
		free(names);
	}
}

/* Each DIR/users.d/NAME.conf, merged for NAME. */
static void
tree_usersd(struct tree *t)
{
	const char *conf = t->conf ? t->conf : AISB_CONF_PATH;
	_cleanup_free_ char *dir = NULL;
	struct dirent **ents = NULL;
	const char *slash = strrchr(conf, '/');
	int n;

	if (asprintf(&dir, "%.*s/users.d", (int)(slash - conf), conf) < 0) {
		dir = NULL;
		return;
	}
	n = scandir(dir, &ents, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		char *name = ents[i]->d_name;
		size_t l = strlen(name);
		struct aisb_policy *p = NULL;
		struct passwd *pw;

		if (l > 5 && strcmp(name + l - 5, ".conf") == 0) {
			name[l - 5] = '\0';
			pw = getpwnam(name);
			if (!tree_seen(t, name)) {
				if (tree_load(t, name,
				        pw ? pw->pw_dir : "/nonexistent",
				        &p) == 0 &&
				    pw && policy_is_agent(p, name))
					tree_session(t, pw, p);
				policy_free(p);
			}
		}
		free(ents[i]);
	}
	free(ents);
}

static int
check_tree(const struct aisb_args *a)
{
	struct tree t = {.trusted = (uid_t)-1};
	_cleanup_free_ char *conf = NULL;
	struct aisb_policy *sys = NULL;
	size_t nagents = 0;

	if (a->config != NULL) {
		if (!(conf = absolute(a->config)))
			return 1;
		t.conf = conf;
		t.trusted = getuid();
	}
	if (tree_load(&t, NULL, NULL, &sys) == 0) {
		struct aisb_policy *own = NULL;
		struct passwd *pw = getpwuid(0);

		/* Root's own merge: users.d itself is judged even when empty.
		 */
		tree_seen(&t, pw ? pw->pw_name : "root");
		tree_load(&t, pw ? pw->pw_name : "root",
		    pw ? pw->pw_dir : "/root", &own);
		policy_free(own);
		tree_usersd(&t);
		tree_agents(&t, sys);
		nagents = sys->agents.n;
	}
	policy_free(sys);
	for (size_t i = 0; i < t.nseen; i++)
		free(t.seen[i]);
	if (t.problems) {
		fprintf(
		    stderr, "aisb-shell: the policy is invalid or unsafe\n");
		return AISB_EX_CONFIG;
	}
	printf("aisb-shell: the policy is valid (%s, every users.d file, "
	       "%zu agents entr%s)\n",
	    t.conf ? t.conf : AISB_CONF_PATH, nagents,
	    nagents == 1 ? "y" : "ies");
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
		if (a->user == NULL && getuid() == 0)
			return check_tree(a);
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
