/*
 * test_sandbox_parts.c: the pure parts of a session: the inner argv
 * (form.c), the environment (env.c), the generated /etc files (etc.c),
 * secret files (secret.c), protect entries (projview.c) and project
 * selection (project.c, on real directories).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "env.h"
#include "etc.h"
#include "form.h"
#include "log.h"
#include "policy.h"
#include "project.h"
#include "projview.h"
#include "secret.h"
#include "session.h"
#include "slog.h"

static const char *
get(char **env, const char *name)
{
	size_t n = strlen(name);

	for (; env && *env; env++)
		if (strncmp(*env, name, n) == 0 && (*env)[n] == '=')
			return *env + n + 1;
	return NULL;
}

TEST(form)
{
	struct form f;
	char *c[] = {"-c", "echo hi", "zero", "one"};
	char *s[] = {"script.sh", "a"};
	char *l[] = {"-l"};
	char *lc[] = {"-lc", "true"};

	is_int(form_build(false, 4, c, "/bin/bash", &f), 0, "-c form builds");
	is_str(f.argv[0], "bash", "argv[0] is the shell's base name");
	is_str(f.argv[1], "-c", "-c passes through");
	is_str(f.argv[2], "echo hi", "the command passes through");
	is_str(f.argv[4], "one", "arguments pass through");
	ok(f.argv[5] == NULL, "argv is NULL-terminated");
	is_str(f.mode, "command", "named command");
	form_free(&f);
	is_int(form_build(true, 0, NULL, "/bin/bash", &f), 0, "login form");
	is_str(f.argv[0], "-bash", "login: argv[0] is -bash");
	ok(f.login && strcmp(f.mode, "shell") == 0, "login shell");
	form_free(&f);
	form_build(false, 2, s, "/bin/bash", &f);
	is_str(f.mode, "script", "a file operand is a script");
	form_free(&f);
	form_build(false, 1, l, "/bin/bash", &f);
	ok(f.login && strcmp(f.argv[1], "-l") == 0, "-l is a login form");
	form_free(&f);
	form_build(false, 2, lc, "/bin/bash", &f);
	ok(f.login && strcmp(f.mode, "command") == 0, "-lc is login + command");
	form_free(&f);
}

TEST(env)
{
	char *pass[] = {"TERM", "LC_*", "LD_LIBRARY_PATH", "X*"};
	char *set[] = {"PATH=/opt/bin", "FOO=bar"};
	struct aisb_policy p = {0};
	char *caller[] = {"TERM=xterm", "LC_ALL=C", "LD_PRELOAD=/x.so",
	    "LD_LIBRARY_PATH=/l", "SECRETISH=1", "HOME=/evil", "XA=1",
	    "XDG_RUNTIME_DIR=/run/user/1", "AISB_SESSION=forged", "FOO=caller",
	    "noequals", NULL};
	char *secrets[] = {"TOKEN=s3cret", NULL};
	struct env_opts o = {
	    .pol = &p,
	    .caller = caller,
	    .secrets = secrets,
	    .user = "agent",
	    .home = "/home/agent",
	    .pwd = "/project",
	    .session_id = "00112233445566778899aabbccddeeff",
	};
	char **e = NULL;

	p.shell = "/bin/bash";
	p.env.pass.v = pass;
	p.env.pass.n = 4;
	p.env.set.v = set;
	p.env.set.n = 2;
	p.net.mode = AISB_NET_NONE;
	is_int(env_build(&o, &e), 0, "env builds");
	is_str(get(e, "TERM"), "xterm", "a named variable passes");
	is_str(get(e, "LC_ALL"), "C", "a glob passes a matching name");
	ok(get(e, "LD_PRELOAD") == NULL, "LD_PRELOAD is not passed");
	is_str(get(e, "LD_LIBRARY_PATH"), "/l",
	    "an unsafe name passes when named exactly");
	ok(get(e, "XDG_RUNTIME_DIR") == NULL,
	    "a glob (X*) never passes an unsafe name");
	is_str(get(e, "XA"), "1", "the same glob passes a safe name");
	ok(get(e, "SECRETISH") == NULL, "an unnamed variable is dropped");
	is_str(get(e, "HOME"), "/home/agent", "HOME is ours, not the caller's");
	is_str(get(e, "AISB_SESSION"), "00112233445566778899aabbccddeeff",
	    "AISB_SESSION cannot be forged");
	is_str(get(e, "FOO"), "bar", "env.set wins over the caller");
	is_str(get(e, "PATH"), "/opt/bin", "env.set PATH is kept");
	is_str(get(e, "TOKEN"), "s3cret", "a secret is set");
	is_str(get(e, "SHELL"), "/bin/bash", "SHELL is the inner shell");
	is_str(get(e, "PWD"), "/project", "PWD is the project");
	is_str(get(e, "USER"), "agent", "USER");
	is_str(get(e, "LOGNAME"), "agent", "LOGNAME");
	ok(get(e, "HTTP_PROXY") == NULL, "no proxy variables without the gate");
	env_free(e);
	p.env.set.n = 0;
	p.net.mode = AISB_NET_GATED;
	p.net.proxy_port = 3128;
	is_int(env_build(&o, &e), 0, "env builds (gated)");
	is_str(get(e, "PATH"), "/home/agent" ENV_HOME_BIN ":" ENV_DEFAULT_PATH,
	    "the default PATH: the home's .local/bin, then the system's");
	is_str(env_get(e, "PATH"), get(e, "PATH"), "env_get finds PATH");
	ok(env_get(e, "PAT") == NULL, "env_get: a prefix is not a name");
	is_str(get(e, "HTTPS_PROXY"), "http://127.0.0.1:3128",
	    "gated: the proxy is announced");
	is_str(get(e, "NODE_USE_ENV_PROXY"), "1", "gated: node uses it");
	env_free(e);
}

TEST(etc)
{
	char *s;

	s = etc_passwd("agent", 1001, 1002, "/home/agent", "/bin/bash");
	ok(s && strstr(s, "\nagent:x:1001:1002:agent:/home/agent:/bin/bash\n"),
	    "passwd has the agent");
	ok(s && strncmp(s, "root:x:0:0:", 11) == 0, "passwd starts with root");
	ok(s && strstr(s, "\nnobody:x:65534:"), "passwd has nobody");
	free(s);
	s = etc_passwd("a:b", 1001, 1001, "/h\nx", "/bin/bash");
	ok(s && !strstr(s, "a:b") && !strstr(s, "\nx"),
	    "a name with ':' or newline cannot corrupt passwd");
	free(s);
	s = etc_group("agents", 1002);
	ok(s && strstr(s, "\nagents:x:1002:\n"), "group has the agent's group");
	free(s);
	s = etc_hosts("aisb");
	ok(s && strstr(s, "127.0.1.1\taisb\n"), "hosts names the host");
	free(s);
	s = etc_resolv(true);
	ok(s && strncmp(s, "nameserver 127.0.0.1\n", 21) == 0,
	    "resolv.conf points at 127.0.0.1");
	free(s);
}

static char tmpdir[] = "/tmp/aisb-unit-sbx.XXXXXX";

static void
put_file(const char *name, const char *content, mode_t mode)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd >= 0) {
		if (write(fd, content, strlen(content)) < 0)
			perror("write");
		fchmod(fd, mode);
		close(fd);
	}
}

TEST(secret)
{
	struct aisb_secret sec[1];
	struct aisb_policy p = {0};
	char path[512], **v = NULL;

	snprintf(path, sizeof(path), "%s/tok", tmpdir);
	sec[0].name = "TOK";
	sec[0].file = path;
	p.env.secrets = sec;
	p.env.nsecrets = 1;
	put_file("tok", "abc\n", 0600);
	is_int(secret_read(&p, getuid(), &v), 0, "a 0600 secret reads");
	is_str(v ? v[0] : NULL, "TOK=abc", "one trailing newline dropped");
	env_free(v);
	/* The whole file is the value (aisb.conf(5)), not its first line:
	 * a PEM key or a JSON credential keeps its lines. */
	put_file("tok", "line1\nline2\n", 0600);
	is_int(secret_read(&p, getuid(), &v), 0, "a two-line secret reads");
	is_str(v ? v[0] : NULL, "TOK=line1\nline2",
	    "the whole file, less one trailing newline");
	env_free(v);
	put_file("tok", "abc\r\n", 0600);
	is_int(secret_read(&p, getuid(), &v), 0, "a CR LF secret reads");
	is_str(v ? v[0] : NULL, "TOK=abc", "a trailing CR LF is dropped");
	env_free(v);
	put_file("tok", "abc\n\n", 0600);
	is_int(secret_read(&p, getuid(), &v), 0, "two trailing newlines read");
	is_str(v ? v[0] : NULL, "TOK=abc\n", "only one trailing newline goes");
	env_free(v);
	put_file("tok", "abc", 0604);
	is_int(secret_read(&p, getuid(), &v), -SESSION_EPOLICY,
	    "readable by other: refused");
	put_file("tok", "abc", 0640);
	is_int(secret_read(&p, 4242, &v), getuid() == 0 ? 0 : -SESSION_EPOLICY,
	    "owned by root or the agent only");
	if (getuid() == 0)
		env_free(v);
	put_file("tok", "a\0b", 0600);
	{
		int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);

		if (fd >= 0) {
			if (write(fd, "a\0b", 3) != 3)
				perror("write");
			close(fd);
		}
	}
	is_int(secret_read(&p, getuid(), &v), -SESSION_EPOLICY,
	    "a NUL byte: refused");
	unlink(path);
	is_int(secret_read(&p, getuid(), &v), -SESSION_EPOLICY,
	    "missing: refused");
	snprintf(path, sizeof(path), "%s/link", tmpdir);
	if (symlink("/etc/hostname", path) < 0)
		perror("symlink");
	is_int(secret_read(&p, getuid(), &v), -SESSION_EPOLICY,
	    "a symlink: refused");
}

TEST(protect)
{
	ok(projview_protect_valid(".git/hooks"), ".git/hooks is valid");
	ok(projview_protect_valid(".git/hooks/"), "a trailing / is fine");
	ok(!projview_protect_valid("/etc"), "absolute: invalid");
	ok(!projview_protect_valid("a/../b"), "'..': invalid");
	ok(!projview_protect_valid("./a"), "'.': invalid");
	ok(!projview_protect_valid("a//b"), "an empty component: invalid");
	ok(!projview_protect_valid(""), "empty: invalid");
}

TEST(project)
{
	struct aisb_policy p = {0};
	struct project_sel s;
	char root[600], proj[600], out[600], link[600], *roots[1];
	int fd;

	snprintf(root, sizeof(root), "%s/root", tmpdir);
	snprintf(proj, sizeof(proj), "%s/root/proj", tmpdir);
	snprintf(out, sizeof(out), "%s/out", tmpdir);
	snprintf(link, sizeof(link), "%s/root/link", tmpdir);
	mkdir(root, 0755);
	mkdir(proj, 0755);
	mkdir(out, 0755);
	if (symlink(out, link) < 0)
		perror("symlink");
	roots[0] = root;
	p.project.roots.v = roots;
	p.project.roots.n = 1;
	p.project.path = proj;
	unsetenv("AISB_PROJECT");
	if (chdir("/") < 0)
		perror("chdir");
	unsetenv("PWD");
	is_int(project_select(&p, &s), 0, "default project");
	is_str(s.how, "project.path", "chosen by project.path");
	is_str(s.rel, "proj", "relative to its root");
	project_sel_free(&s);
	setenv("AISB_PROJECT", link, 1);
	is_int(project_select(&p, &s), -SESSION_EPOLICY,
	    "AISB_PROJECT via a symlink out: refused");
	snprintf(out, sizeof(out), "%s/root/../out", tmpdir);
	setenv("AISB_PROJECT", out, 1);
	is_int(project_select(&p, &s), -SESSION_EPOLICY,
	    "AISB_PROJECT with '..' out: refused");
	setenv("AISB_PROJECT", "/etc", 1);
	is_int(project_select(&p, &s), -SESSION_EPOLICY,
	    "AISB_PROJECT outside the roots: refused");
	setenv("AISB_PROJECT", "relative", 1);
	is_int(project_select(&p, &s), -SESSION_EPOLICY,
	    "a relative AISB_PROJECT: refused");
	setenv("AISB_PROJECT", root, 1);
	is_int(project_select(&p, &s), 0, "the root itself is selectable");
	is_str(s.rel, ".", "as '.'");
	fd = -1;
	is_int(project_open(&s, &fd), 0, "and opens");
	ok(fd >= 0, "to an fd");
	close(fd);
	project_sel_free(&s);
	unsetenv("AISB_PROJECT");
	if (chdir(proj) < 0)
		perror("chdir");
	is_int(project_select(&p, &s), 0, "cwd under the root");
	is_str(s.how, "cwd", "chosen by the cwd");
	project_sel_free(&s);
	if (chdir(link) < 0)
		perror("chdir");
	setenv("PWD", link, 1);
	is_int(project_select(&p, &s), -SESSION_EPOLICY,
	    "a cwd through a symlink out: refused");
	if (chdir("/") < 0)
		perror("chdir");
	unsetenv("PWD");
	p.project.path = out;
	is_int(project_select(&p, &s), -SESSION_EPOLICY,
	    "a default path with '..' out of its root: refused");
}

TEST(slog)
{
	char a[SLOG_ID_LEN + 1], b[SLOG_ID_LEN + 1];

	is_int(slog_new_id(a), 0, "an id");
	is_int(slog_new_id(b), 0, "another id");
	ok(strlen(a) == 32 && strspn(a, "0123456789abcdef") == 32,
	    "32 hex digits");
	ok(strcmp(a, b) != 0, "ids differ");
}

int
main(void)
{
	char cmd[600];

	log_open("test", 0);
	if (!mkdtemp(tmpdir))
		return 1;
	RUN(form);
	RUN(env);
	RUN(etc);
	RUN(secret);
	RUN(protect);
	RUN(project);
	RUN(slog);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		perror("rm");
	return tap_done();
}
