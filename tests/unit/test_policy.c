/*
 * test_policy.c: the policy C API (lib/policy*.c): defaults, value
 * checks, exact provenance, merging, the empty environment, agents.
 * File trust is tested for real in tests/config/ (it needs root-owned
 * and user-owned files).
 */
#include <errno.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "policy.h"
#include "policy_internal.h"

static struct aisb_policy *
load(const char *text, struct policy_errs *errs)
{
	struct aisb_policy *p = NULL;

	memset(errs, 0, sizeof(*errs));
	if (policy_load_buf("t.conf", text, strlen(text), "alice",
	        "/home/alice", &p, errs) < 0)
		return NULL;
	return p;
}

static bool
has_err(const struct policy_errs *e, const char *want)
{
	size_t i;

	for (i = 0; i < e->n; i++)
		if (strcmp(e->msg[i], want) == 0)
			return true;
	for (i = 0; i < e->n; i++)
		printf("#   error: %s\n", e->msg[i]);
	printf("#   wanted: %s\n", want);
	return false;
}

TEST(defaults)
{
	struct policy_errs e;
	struct aisb_policy *p = load("", &e);

	ok(p != NULL && e.n == 0, "empty file is valid");
	if (p == NULL)
		return;
	is_str(p->shell, "/bin/bash", "shell default");
	is_str(p->hostname, "aisb", "hostname default");
	is_str(p->project.path, "/srv/agents/alice/project",
	    "project.path default, %%u expanded");
	ok(p->project.roots.n == 1 &&
	        strcmp(p->project.roots.v[0], "/srv/agents/alice") == 0,
	    "project.roots default");
	is_str(p->project.target, "/project", "project.target default");
	ok(p->project.protect.n == 1 &&
	        !strcmp(p->project.protect.v[0], ".git"),
	    "project.protect default");
	is_str(p->home.path, "/var/lib/aisb/home/alice", "home.path default");
	ok(!p->home.tmpfs, "home not tmpfs");
	ok(p->fs.hide.n >= 22, "filesystem.hide default list");
	ok(p->fs.view == AISB_VIEW_SYSTEM, "filesystem.view default system");
	is_int(p->fs.tmp_size, 1ULL << 30, "tmp_size 1G");
	ok(p->net.mode == AISB_NET_GATED && p->net.nallow == 0 &&
	        p->net.ndeny == 0 && p->net.nallow_cidr == 0,
	    "network gated, deny-all by default");
	ok(p->net.nports == 2 && p->net.ports[0] == 80 &&
	        p->net.ports[1] == 443,
	    "ports 80, 443");
	ok(p->net.transparent, "transparent default");
	is_str(p->net.resolver, "", "resolver default empty");
	is_int(p->net.resolver_family, 0, "host resolver");
	is_int(p->net.proxy_port, 3128, "proxy_port default");
	is_int(p->net.suffix_names, 64, "suffix_names default");
	is_int(p->limits.memory, 4ULL << 30, "memory 4G");
	is_int(p->limits.pids, 1024, "pids");
	is_int(p->limits.cpu, 200, "cpu 200%%");
	is_int(p->limits.nofile, 4096, "nofile");
	is_int(p->limits.fsize, 20ULL << 30, "fsize 20G");
	is_int(p->limits.timeout, 0, "timeout");
	ok(p->limits.enforce == AISB_ENFORCE_STRICT, "enforce strict");
	ok(p->terminal.filter, "terminal.filter default");
	ok(p->pam.services.n == 4, "pam.services default");
	ok(p->agents.n == 1 && strcmp(p->agents.v[0], "@ai-agents") == 0,
	    "agents default");
	ok(p->env.pass.n == 3 && p->env.set.n == 0 && p->env.nsecrets == 0,
	    "env defaults (no env.set: PATH is env.c's default)");
	is_str(policy_origin(p, "network.allow"), "default", "origin default");
	is_int(strlen(p->hash), 64, "hash is sha256 hex");
	for (size_t i = 0; policy_keys[i]; i++)
		if (!ok(policy_origin(p, policy_keys[i]) != NULL ||
		            strcmp(policy_keys[i], "env.secret.file") == 0 ||
		            strncmp(policy_keys[i], "credential.", 11) == 0,
		        "key %s has an origin", policy_keys[i]))
			break;
	policy_free(p);
}

TEST(values)
{
	struct policy_errs e;
	struct aisb_policy *p = load(
	    "# a comment\n" /* 1 */
	    "shell = /bin/sh   // another\n" /* 2 */
	    "/* block\n" /* 3 */
	    "   comment */\n" /* 4 */
	    "network {\n" /* 5 */
	    "  allow = {\"API.Example.ORG.\",\n" /* 6 */
	    "           \"*.github.com:22,443\"}\n" /* 7 */
	    "  allow_cidr = {198.51.100.0/24, \"2001:db8::/32\"}\n" /* 8 */
	    "  resolver = \"[2001:db8::53]:5353\"\n" /* 9 */
	    "  mode = none\n" /* 10 */
	    "}\n" /* 11 */
	    "limits { memory = 512M cpu = \"50%\" timeout = 3600 }\n" /* 12 */
	    "home { path = tmpfs }\n" /* 13 */
	    "env { secret TOKEN { file = \"%h/.tok\" } }\n" /* 14 */
	    "env.set = {}\n",
	    &e); /* 15: invalid */

	ok(p == NULL, "a '.' key path is refused");
	ok(has_err(&e, "t.conf:15: env.set: unknown key"),
	    "dotted key at top level is an unknown key");
	policy_errs_free(&e);

	p = load(
	    "# a comment\n" /* 1 */
	    "shell = /bin/sh   // another\n" /* 2 */
	    "/* block\n" /* 3 */
	    "   comment */\n" /* 4 */
	    "network {\n" /* 5 */
	    "  allow = {\"API.Example.ORG.\",\n" /* 6 */
	    "           \"*.github.com:22,443\"}\n" /* 7 */
	    "  allow_cidr = {198.51.100.0/24, \"2001:db8::/32\"}\n" /* 8 */
	    "  resolver = \"[2001:db8::53]:5353\"\n" /* 9 */
	    "  mode = none\n" /* 10 */
	    "}\n" /* 11 */
	    "limits { memory = 512M cpu = \"50%\" timeout = 3600 }\n" /* 12 */
	    "home { path = tmpfs }\n" /* 13 */
	    "env { secret TOKEN { file = \"%h/.tok\" } }\n" /* 14 */
	    "filesystem { view = whole-root-unsafe }\n",
	    &e); /* 15 */
	ok(p != NULL, "valid config loads");
	if (p == NULL) {
		has_err(&e, "");
		return;
	}
	is_str(p->shell, "/bin/sh", "shell");
	is_str(policy_origin(p, "shell"), "t.conf:2",
	    "line exact after a # comment");
	ok(p->net.nallow == 2, "two allow rules");
	is_str(p->net.allow[0].host, "api.example.org",
	    "host canonical (lower case, trailing dot dropped)");
	is_int(p->net.allow[0].nports, 0, "no ports: network.ports apply");
	is_str(p->net.allow[0].src, "t.conf:6", "first rule from line 6");
	is_str(p->net.allow[1].host, "*.github.com", "wildcard rule");
	ok(p->net.allow[1].nports == 2 && p->net.allow[1].ports[0] == 22 &&
	        p->net.allow[1].ports[1] == 443,
	    "rule ports 22,443");
	is_str(p->net.allow[1].src, "t.conf:7",
	    "second rule from line 7 (multi-line list, after a block "
	    "comment)");
	is_str(policy_origin(p, "network.allow"), "t.conf:6", "key origin");
	ok(p->net.nallow_cidr == 2 && p->net.allow_cidr[1].prefix == 32,
	    "allow_cidr v4 and v6");
	is_str(p->net.resolver, "[2001:db8::53]:5353", "resolver canonical");
	ok(p->net.resolver_family == AF_INET6 && p->net.resolver_port == 5353,
	    "resolver parsed");
	ok(p->net.mode == AISB_NET_NONE, "mode none");
	is_int(p->limits.memory, 512ULL << 20, "512M");
	is_int(p->limits.cpu, 50, "50%%");
	is_int(p->limits.timeout, 3600, "timeout");
	is_str(policy_origin(p, "limits.cpu"), "t.conf:12", "limits line");
	ok(p->home.tmpfs && p->home.path == NULL, "home tmpfs");
	ok(p->env.nsecrets == 1 &&
	        strcmp(p->env.secrets[0].name, "TOKEN") == 0 &&
	        strcmp(p->env.secrets[0].file, "/home/alice/.tok") == 0,
	    "secret with %%h expanded");
	is_str(policy_origin(p, "env.secret.TOKEN.file"), "t.conf:14",
	    "secret origin");
	ok(p->fs.view == AISB_VIEW_WHOLE_ROOT, "view whole-root-unsafe");
	policy_free(p);
}

TEST(errors_all_reported)
{
	struct policy_errs e;
	struct aisb_policy *p = load("shell = bin/sh\n"
	                             "limits {\n"
	                             "  memory = 4X\n"
	                             "  pids = -1\n"
	                             "}\n"
	                             "network {\n"
	                             "  ports = {0, 80, 65536}\n"
	                             "  allow = {\"a.*.org\", \"10.0.0.1\"}\n"
	                             "  allow_cidr = {10.0.0.1/8}\n"
	                             "}\n"
	                             "filesystem { view = \"/\" }\n",
	    &e);

	ok(p == NULL, "invalid config refused");
	is_int(e.n, 9, "every error reported (9)");
	ok(has_err(&e, "t.conf:1: shell: must be an absolute path"),
	    "relative path");
	ok(has_err(&e,
	       "t.conf:3: limits.memory: not a size (a number with "
	       "an optional K, M, G or T suffix, e.g. \"4G\")"),
	    "bad size");
	ok(has_err(&e,
	       "t.conf:4: limits.pids: not a number (a "
	       "non-negative decimal integer)"),
	    "negative count");
	ok(has_err(&e,
	       "t.conf:7: network.ports: port out of range "
	       "1-65535"),
	    "port 0 / 65536");
	ok(has_err(&e,
	       "t.conf:8: network.allow: '*' is allowed only as the "
	       "whole first label (\"*.example.org\")"),
	    "'*' in the middle");
	ok(has_err(&e,
	       "t.conf:8: network.allow: an IP address, not a host "
	       "name (addresses go in network.allow_cidr)"),
	    "IP in allow");
	ok(has_err(&e,
	       "t.conf:9: network.allow_cidr: host bits set after "
	       "the prefix"),
	    "bad CIDR");
	ok(has_err(&e,
	       "t.conf:11: filesystem.view: must be system or "
	       "whole-root-unsafe"),
	    "bad view");
	policy_errs_free(&e);
}

static struct aisb_policy *
merge(const char *a, const char *b, struct policy_errs *e)
{
	struct policy_parse *ps;
	struct aisb_policy *p = NULL;

	memset(e, 0, sizeof(*e));
	ps = policy_parse_new("bob", "/home/bob", e);
	if (ps == NULL)
		return NULL;
	if (policy_parse_text(ps, "sys.conf", a, strlen(a)) == 0 &&
	    policy_parse_text(ps, "bob.conf", b, strlen(b)) == 0)
		(void)policy_parse_finish(ps, &p);
	policy_parse_free(ps);
	return p;
}

TEST(merge)
{
	struct policy_errs e;
	const struct policy_origin_ent *oe;
	struct aisb_policy *p =
	    merge("shell = /bin/sh\n" /* 1 */
	          "network {\n" /* 2 */
	          "  allow = {a.example.org, b.example.org}\n" /* 3 */
	          "  deny = {x.example.org}\n" /* 4 */
	          "  ports = {443}\n" /* 5 */
	          "}\n"
	          "limits { memory = 1G }\n", /* 7 */
	        "\n" /* 1 */
	        "shell = /bin/zsh\n" /* 2 */
	        "network {\n" /* 3 */
	        "  allow += {c.example.org}\n" /* 4 */
	        "  deny = {}\n" /* 5 */
	        "  ports = {8443, 9443}\n" /* 6 */
	        "}\n",
	        &e);

	ok(p != NULL, "merge loads");
	if (p == NULL) {
		has_err(&e, "");
		return;
	}
	is_str(p->shell, "/bin/zsh", "scalar overridden");
	is_str(policy_origin(p, "shell"), "bob.conf:2", "scalar origin");
	ok(p->net.nallow == 3 &&
	        strcmp(p->net.allow[2].host, "c.example.org") == 0,
	    "+= appends");
	is_str(p->net.allow[0].src, "sys.conf:3", "kept entry keeps origin");
	is_str(p->net.allow[2].src, "bob.conf:4", "appended entry origin");
	is_str(policy_origin(p, "network.allow"), "bob.conf:4",
	    "list origin is the last assignment");
	oe = policy_origin_find(p, "network.allow");
	ok(oe && oe->nelem == 3 && strcmp(oe->elem[1], "sys.conf:3") == 0,
	    "element origins");
	is_int(p->net.ndeny, 0, "= {} empties a list");
	is_str(policy_origin(p, "network.deny"), "bob.conf:5",
	    "origin of an emptied list");
	ok(p->net.nports == 2 && p->net.ports[0] == 8443, "= replaces");
	is_str(policy_origin(p, "network.ports"), "bob.conf:6",
	    "replaced list origin");
	is_int(p->limits.memory, 1ULL << 30, "untouched section key kept");
	is_str(policy_origin(p, "limits.memory"), "sys.conf:7",
	    "untouched key origin");
	policy_free(p);

	p = merge("env { secret A { file = /x } }\n",
	    "env { secret A { file = /y } }\n", &e);
	ok(p == NULL &&
	        has_err(&e,
	            "bob.conf:1: env.secret.A: secret "
	            "defined twice"),
	    "a secret defined in both files is an error");
	policy_errs_free(&e);
}

TEST(no_environment)
{
	struct policy_errs e;
	struct policy_parse *ps;
	struct aisb_policy *p;
	const char *t1 = "shell = \"${AISBT_EVIL}\"\n";
	const char *t2 = "env { set = {'A=${AISBT_EVIL}'} }\n";

	setenv("AISBT_EVIL", "/tmp/evil", 1);
	p = load(t1, &e);
	ok(p == NULL &&
	        has_err(&e,
	            "t.conf:1: shell: '$' outside single "
	            "quotes: variable expansion is not supported (write '...' "
	            "for "
	            "a literal '$')"),
	    "'$' refused by the pre-scan");
	policy_errs_free(&e);

	/* Without the pre-scan: libconfuse must see an empty environment. */
	memset(&e, 0, sizeof(e));
	ps = policy_parse_new("alice", "/home/alice", &e);
	policy_parse_allow_dollar(ps);
	policy_parse_text(ps, "t.conf", t1, strlen(t1));
	ok(has_err(&e, "t.conf:1: shell: empty path"),
	    "${AISBT_EVIL} expanded to nothing: environment was empty");
	policy_parse_free(ps);
	policy_errs_free(&e);
	is_str(getenv("AISBT_EVIL"), "/tmp/evil",
	    "our environment is intact afterwards");

	p = load(t2, &e);
	ok(p && p->env.set.n == 1 &&
	        strcmp(p->env.set.v[0], "A=${AISBT_EVIL}") == 0,
	    "single quotes keep '$' literally");
	policy_free(p);
	policy_errs_free(&e);
	unsetenv("AISBT_EVIL");
}

TEST(agents)
{
	struct policy_errs e;
	struct aisb_policy *p = load("agents = {\"daemon\", \"@root\"}\n", &e);

	ok(p != NULL, "agents load");
	if (p == NULL)
		return;
	ok(policy_is_agent(p, "daemon"), "listed by name");
	ok(policy_is_agent(p, "root"), "member of @root (primary group)");
	ok(!policy_is_agent(p, "nobody"), "nobody is not an agent");
	ok(!policy_is_agent(p, "no-such-user-aisbt"), "unknown user is not");
	policy_free(p);
}

TEST(hash)
{
	struct policy_errs e;
	struct aisb_policy *a = load("shell = /bin/sh\n", &e);
	struct aisb_policy *b = load("\n\nshell = \"/bin/sh\"  # same\n", &e);
	struct aisb_policy *c = load("shell = /bin/zsh\n", &e);

	ok(a && b && c, "three loads");
	if (a && b && c) {
		is_str(a->hash, b->hash,
		    "same values, same hash (origins do "
		    "not count)");
		ok(strcmp(a->hash, c->hash) != 0, "different values differ");
	}
	policy_free(a);
	policy_free(b);
	policy_free(c);
}

TEST(bounds)
{
	struct policy_errs e;
	size_t n = POLICY_MAX_FILE + 1;
	char *big = malloc(n + 1), *list;
	struct aisb_policy *p;
	size_t i, o;

	memset(big, '\n', n);
	big[n] = '\0';
	p = load(big, &e);
	ok(p == NULL && e.n == 1 && strstr(e.msg[0], "larger than") != NULL,
	    "a buffer over POLICY_MAX_FILE is refused");
	policy_errs_free(&e);
	free(big);

	list = malloc(8 * 1100 + 64);
	o = (size_t)sprintf(list, "agents = {");
	for (i = 0; i < 1100; i++)
		o += (size_t)sprintf(list + o, "%su%zu", i ? "," : "", i);
	memcpy(list + o, "}\n", sizeof("}\n"));
	p = load(list, &e);
	ok(p == NULL &&
	        has_err(&e,
	            "t.conf:1: agents: list longer than 1024 "
	            "entries"),
	    "list over POLICY_MAX_LIST refused");
	policy_errs_free(&e);
	free(list);
}

/* Write text to path as a file root owns, mode 0644. */
static bool
put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	bool ok = f && fputs(text, f) >= 0;

	if (f && fclose(f) != 0)
		ok = false;
	return ok && chmod(path, 0644) == 0;
}

/* policy_load with --config path for alice; *p is NULL on failure. */
static int
load_file(const char *path, bool system_only, struct aisb_policy **p,
    struct policy_errs *e)
{
	struct policy_opts o = {
	    .user = "alice",
	    .home = "/home/alice",
	    .conf_path = path,
	    .system_only = system_only,
	    .trusted_uid = (uid_t)-1,
	};

	memset(e, 0, sizeof(*e));
	return policy_load(&o, p, e);
}

/*
 * The loader alone finds users.d: beside the config file, never beside
 * its parent or the working directory, and only for an absolute path.
 * Real files, so it needs root (the trust checks want root-owned dirs).
 */
TEST(users_dir)
{
	char top[] = "/var/lib/aisbt-unit.XXXXXX", sys[64], usr[64], sub[64],
	     subsys[64], subusr[64], cwd[4096];
	struct aisb_policy *p = NULL;
	struct policy_errs e;
	int r;

	if (geteuid() != 0 || mkdtemp(top) == NULL) {
		tap_skip("needs root and /var/lib", "users.d beside --config");
		return;
	}
	snprintf(sys, sizeof(sys), "%s/aisb.conf", top);
	snprintf(usr, sizeof(usr), "%s/users.d/alice.conf", top);
	snprintf(sub, sizeof(sub), "%s/sub", top);
	snprintf(subsys, sizeof(subsys), "%s/sub/aisb.conf", top);
	snprintf(subusr, sizeof(subusr), "%s/sub/users.d/alice.conf", top);
	r = chmod(top, 0755);
	snprintf(cwd, sizeof(cwd), "%s/users.d", top);
	r |= mkdir(cwd, 0755) | chmod(cwd, 0755);
	r |= mkdir(sub, 0755) | chmod(sub, 0755);
	snprintf(cwd, sizeof(cwd), "%s/sub/users.d", top);
	r |= mkdir(cwd, 0755) | chmod(cwd, 0755);
	ok(r == 0 && put(sys, "shell = /bin/sh\n") &&
	        put(usr, "shell = /bin/dash\n") &&
	        put(subsys, "hostname = sub\n") &&
	        put(subusr, "\nhostname = alice-sub\n"),
	    "test files written");

	r = load_file(sys, false, &p, &e);
	ok(r == 0 && p && strcmp(p->shell, "/bin/dash") == 0,
	    "DIR/users.d/USER.conf beside --config DIR/aisb.conf is read");
	if (p) {
		char want[80];

		snprintf(want, sizeof(want), "%s:1", usr);
		is_str(policy_origin(p, "shell"), want,
		    "... and named as the origin of what it set");
	}
	policy_free(p);
	policy_errs_free(&e);

	r = load_file(sys, true, &p, &e);
	ok(r == 0 && p && strcmp(p->shell, "/bin/sh") == 0,
	    "system_only: the users.d file is not read");
	policy_free(p);
	policy_errs_free(&e);

	r = load_file(subsys, false, &p, &e);
	ok(r == 0 && p && strcmp(p->hostname, "alice-sub") == 0 &&
	        strcmp(p->shell, "/bin/bash") == 0,
	    "sub/aisb.conf reads sub/users.d, not the parent's users.d");
	policy_free(p);
	policy_errs_free(&e);

	/* Relative spellings that would find the same files are refused. */
	if (getcwd(cwd, sizeof(cwd)) && chdir(top) == 0) {
		r = load_file("aisb.conf", false, &p, &e);
		ok(r == -EINVAL && p == NULL && e.n == 1 &&
		        has_err(&e, "--config needs an absolute path"),
		    "a relative --config is refused, with one message");
		policy_errs_free(&e);
		r = load_file("./sub/aisb.conf", true, &p, &e);
		ok(r == -EINVAL && p == NULL && e.n == 1 &&
		        has_err(&e, "--config needs an absolute path"),
		    "... also with a slash in it, also system_only");
		policy_errs_free(&e);
		r = load_file("", false, &p, &e);
		ok(r == -EINVAL && p == NULL &&
		        has_err(&e, "--config needs an absolute path"),
		    "... and an empty one");
		policy_errs_free(&e);
		ok(chdir(cwd) == 0, "back to the working directory");
	} else
		tap_skip("cannot chdir", "a relative --config is refused");

	unlink(subusr);
	unlink(subsys);
	unlink(usr);
	unlink(sys);
	snprintf(cwd, sizeof(cwd), "%s/sub/users.d", top);
	rmdir(cwd);
	rmdir(sub);
	snprintf(cwd, sizeof(cwd), "%s/users.d", top);
	rmdir(cwd);
	ok(rmdir(top) == 0, "test directory removed");
}

TEST(credentials)
{
	struct policy_errs e;
	struct aisb_policy *p = load(
	    "network { ca_file = \"/etc/aisb/ca.pem\" }\n"
	    "credential anthropic {\n"
	    "  file = \"/etc/aisb/secrets/%u/anthropic\"\n"
	    "  hosts = {\"api.anthropic.com\", \"*.example.org:443,8443\"}\n"
	    "  header = \"x-api-key\"\n"
	    "  env = \"ANTHROPIC_API_KEY\"\n"
	    "}\n"
	    "credential gh {\n"
	    "  file = \"/etc/aisb/secrets/%u/gh\"\n"
	    "  hosts = {\"github.com\"}\n"
	    "  header = \"authorization:basic  x-access-token:%s\"\n"
	    "  env = \"GH_TOKEN\"\n"
	    "}\n"
	    "credential bearer {\n"
	    "  file = \"/f\"  hosts = {\"api.openai.com\"}\n"
	    "  header = \"Authorization: Bearer %s\"  env = "
	    "\"OPENAI_API_KEY\"\n"
	    "}\n",
	    &e);
	const struct aisb_credential *c;

	ok(p != NULL && e.n == 0, "three credentials parse");
	if (p == NULL)
		return;
	is_str(p->net.ca_file, "/etc/aisb/ca.pem", "network.ca_file");
	ok(p->ncreds == 3, "ncreds");
	c = &p->creds[0];
	is_str(c->name, "anthropic", "name from the title");
	is_str(c->file, "/etc/aisb/secrets/alice/anthropic", "%%u expanded");
	ok(c->nhosts == 2 &&
	        strcmp(c->hosts[0].host, "api.anthropic.com") == 0 &&
	        c->hosts[0].nports == 0 && c->hosts[1].nports == 2 &&
	        c->hosts[1].ports[1] == 8443,
	    "hosts with and without ports");
	ok(strcmp(c->hname, "x-api-key") == 0 && strcmp(c->format, "%s") == 0 &&
	        !c->basic,
	    "a bare header is the value itself");
	is_str(c->env, "ANTHROPIC_API_KEY", "env");
	is_str(policy_origin(p, "credential.anthropic.hosts"), "t.conf:4",
	    "origin of hosts");
	is_str(policy_origin(p, "credential.anthropic"), "t.conf:2",
	    "origin of the section");
	c = &p->creds[1];
	ok(c->basic && strcmp(c->hname, "authorization") == 0 &&
	        strcmp(c->format, "x-access-token:%s") == 0,
	    "Basic: the user:%%s part is what is encoded");
	is_str(c->header, "authorization: Basic x-access-token:%s",
	    "canonical header text");
	c = &p->creds[2];
	ok(!c->basic && strcmp(c->format, "Bearer %s") == 0, "Bearer %%s");
	policy_free(p);

	p = load("credential a { file = \"/f\" hosts = {\"h.test\"} "
	         "header = \"h: %s\" env = \"A\" }\n",
	    &e);
	ok(p != NULL && strcmp(p->creds[0].header, "h") == 0,
	    "\"Name: %%s\" is the bare header");
	policy_free(p);
	policy_errs_free(&e);
	p = load("credential a { file = \"/f\" hosts = {\"h.test\"} "
	         "header = \"h: %d\" env = \"A\" }\n",
	    &e);
	ok(p == NULL &&
	        has_err(&e,
	            "t.conf:1: credential.a.header: the header's format "
	            "needs exactly one %s (and no other %), e.g. "
	            "\"Authorization: Bearer %s\""),
	    "a format without %%s is refused");
	policy_errs_free(&e);
	{
		char text[8192];
		size_t o = 0;

		for (int i = 0; i <= POLICY_MAX_CREDS; i++)
			o += (size_t)snprintf(text + o, sizeof(text) - o,
			    "credential c%d { file = \"/f\" hosts = "
			    "{\"h.test\"} header = \"h\" env = \"E%d\" }\n",
			    i, i);
		p = load(text, &e);
		ok(p == NULL &&
		        has_err(&e,
		            "t.conf:17: credential: more than 16 "
		            "credentials"),
		    "at most 16 credentials");
		policy_errs_free(&e);
	}
}

int
main(void)
{
	RUN(defaults);
	RUN(values);
	RUN(errors_all_reported);
	RUN(merge);
	RUN(no_environment);
	RUN(agents);
	RUN(hash);
	RUN(bounds);
	RUN(users_dir);
	RUN(credentials);
	return tap_done();
}
