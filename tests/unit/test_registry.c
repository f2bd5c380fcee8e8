/*
 * test_registry.c: the session registry's record lines (lib/kvline.c)
 * and files (shell/registry.c): a file written is read back the same;
 * hostile bytes are refused (controls, bad escapes, NUL, duplicate
 * keys, bad ids, too many entries); liveness is the kernel's word (this
 * process is alive as itself, not with another start time, pid or uid);
 * what a bind must not show; and the retention rules.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "aisb.h"
#include "kvline.h"
#include "registry.h"

static const char id[] = "0123456789abcdef0123456789abcdef";

static bool
parses(const char *line)
{
	char b[KVLINE_MAX + 8];
	struct kvline l;

	snprintf(b, sizeof(b), "%s", line);
	return kvline_parse(b, &l) == 0;
}

TEST(kvline)
{
	char b[KVLINE_MAX];
	struct kvline l;
	uint64_t v;

	snprintf(b, sizeof(b), "egress");
	ok(kvline_add(b, sizeof(b), "why", "a b%c=\"\x01\xc3\xa9"),
	    "a value with every kind of byte");
	is_str(b, "egress why=a%20b%25c%3D%22%01%C3%A9", "... is escaped");
	ok(kvline_add_u64(b, sizeof(b), "n", 42), "a number");
	ok(kvline_parse(b, &l) == 0, "the line parses");
	is_str(kvline_get(&l, "why"), "a b%c=\"\x01\xc3\xa9",
	    "... the value decodes back");
	ok(kvline_u64(&l, "n", 100, &v) == 0 && v == 42, "... the number");
	ok(kvline_u64(&l, "n", 41, &v) == -EINVAL,
	    "... above a maximum: refused");
	ok(kvline_u64(&l, "x", 41, &v) == -ENOENT, "a missing key");
	ok(parses("t"), "a bare type");
	ok(parses("t a= b=-"), "empty and '-' values");
	ok(!parses("t a=1 a=2"), "a duplicate key: refused");
	ok(!parses("t a=1 "), "a trailing space: refused");
	ok(!parses("t a=1  b=2"), "two spaces: refused");
	ok(!parses("t a=%00"), "an escaped NUL: refused");
	ok(!parses("t a=%4"), "a short escape: refused");
	ok(!parses("t a=%zz"), "a bad escape: refused");
	ok(!parses("t a=x\x1b[31m"), "a raw control byte: refused");
	ok(!parses("t a=\"x\""), "a raw quote: refused");
	ok(!parses("T a=1"), "an upper-case type: refused");
	ok(!parses("t A=1"), "an upper-case key: refused");
	ok(!parses("t a"), "a key without '=': refused");
	ok(!parses(" t"), "a leading space: refused");
	snprintf(b, sizeof(b), "t");
	for (int i = 0; i < KVLINE_PAIRS + 1; i++) {
		char k[8];

		snprintf(k, sizeof(k), "k%c", 'a' + i);
		(void)kvline_add(b, sizeof(b), k, "1");
	}
	ok(kvline_parse(b, &l) == -EINVAL,
	    "more than KVLINE_PAIRS pairs: refused");
}

static void
sample(struct registry_rec *r, struct registry_egress *eg)
{
	memset(r, 0, sizeof(*r));
	memcpy(r->s.id, id, sizeof(id));
	snprintf(r->s.user, sizeof(r->s.user), "agent");
	r->s.uid = 1001;
	r->s.pid = 4242;
	r->s.pstart = 123456;
	snprintf(r->s.boot, sizeof(r->s.boot),
	    "8c1f0e3c-2b7a-4b61-9d3e-0f5b0c1d2e3f");
	r->s.init = 4243;
	r->s.started = 1700000000;
	snprintf(
	    r->s.project, sizeof(r->s.project), "/srv/agents/agent/my project");
	snprintf(r->s.peer, sizeof(r->s.peer), "127.0.0.1:51234");
	snprintf(r->s.tty, sizeof(r->s.tty), "-");
	snprintf(r->s.form, sizeof(r->s.form), "command");
	snprintf(r->s.mode, sizeof(r->s.mode), "gated");
	r->live.up = 10;
	r->live.down = 2000;
	memset(eg, 0, 2 * sizeof(*eg));
	snprintf(eg[0].name, sizeof(eg[0].name), "api.example.test");
	eg[0].port = 443;
	snprintf(eg[0].via, sizeof(eg[0].via), "proxy,capture");
	snprintf(eg[0].rule, sizeof(eg[0].rule), "network.allow");
	eg[0].allowed = 3;
	eg[0].down = 123457;
	eg[0].first = 1700000001;
	eg[0].last = 1700000002;
	snprintf(eg[0].why, sizeof(eg[0].why),
	    "network.allow entry api.example.test (/etc/aisb/aisb.conf:3)");
	snprintf(eg[1].name, sizeof(eg[1].name), "evil.example");
	eg[1].port = 0;
	snprintf(eg[1].via, sizeof(eg[1].via), "dns");
	snprintf(eg[1].rule, sizeof(eg[1].rule), "network.allow");
	eg[1].denied = 20;
	r->eg = eg;
	r->neg = 2;
	r->drop_denied = 7;
	r->end.ended = true;
	r->end.at = 1700000100;
	r->end.status = 124;
	snprintf(r->end.how, sizeof(r->end.how), "ended");
	r->end.by_pid = 99;
}

/* Parse text (a file's bytes); 0 or -errno. */
static int
parse_text(const char *text)
{
	struct registry_rec r;
	int rc = registry_parse(text, strlen(text), &r);

	if (rc == 0)
		registry_rec_free(&r);
	return rc;
}

TEST(file)
{
	struct registry_egress eg[2];
	struct registry_rec r, back;
	char *buf = NULL, *bad;
	size_t len = 0;

	sample(&r, eg);
	ok(registry_format(&r, &buf, &len) == 0, "a record formats");
	ok(registry_parse(buf, len, &back) == 0, "... and parses back");
	is_str(back.s.id, id, "the id");
	is_str(back.s.project, "/srv/agents/agent/my project",
	    "the project (a space)");
	is_int(back.s.pid, 4242, "the outer's pid");
	is_int((long long)back.s.pstart, 123456, "its start time");
	is_int(back.neg, 2, "both entries");
	is_str(back.eg[0].via, "proxy,capture", "an entry's paths");
	is_int((long long)back.eg[0].down, 123457, "an entry's bytes down");
	is_str(back.eg[0].why,
	    "network.allow entry api.example.test (/etc/aisb/aisb.conf:3)",
	    "an entry's rule sentence");
	is_int((long long)back.eg[1].denied, 20, "the DNS entry's refusals");
	is_int((long long)back.drop_denied, 7, "what did not fit");
	ok(back.end.ended && back.end.status == 124 &&
	        strcmp(back.end.how, "ended") == 0 && back.end.by_pid == 99,
	    "the end");
	registry_rec_free(&back);

	ok(parse_text("") == -EINVAL, "an empty file: refused");
	ok(parse_text("registry version=1\n") == -EINVAL,
	    "no session line: refused");
	ok(parse_text("registry version=2\n") == -EINVAL,
	    "another version: refused");
	bad = strdup(buf);
	bad[len - 1] = 'x';
	ok(registry_parse(bad, len, &back) == -EINVAL,
	    "a last line without its newline: refused");
	free(bad);
	ok(registry_parse(buf, len - 1, &back) == -EINVAL,
	    "... a cut file too");
	{
		char t[4096];

		snprintf(t, sizeof(t), "%sfuture thing=1\n", buf);
		ok(parse_text(t) == 0, "an unknown line type: skipped");
		snprintf(t, sizeof(t), "%s%s", buf, strchr(buf, '\n') + 1);
		ok(parse_text(t) == -EINVAL, "a second session line: refused");
	}
	free(buf);
}

/* One session line with one field replaced. */
static int
session_with(const char *field)
{
	char t[2048];

	snprintf(t, sizeof(t),
	    "registry version=1\nsession id=%s user=agent uid=1001 pid=4242 "
	    "pstart=1 boot=b init=0 started=1 project=/p peer=- tty=- "
	    "form=command mode=none%s\n",
	    id, field);
	return parse_text(t);
}

static int
egress_with(const char *line)
{
	char t[4096];

	snprintf(t, sizeof(t),
	    "registry version=1\nsession id=%s user=agent uid=1001 pid=4242 "
	    "pstart=1 boot=b init=0 started=1 project=/p peer=- tty=- "
	    "form=command mode=none\n%s\n",
	    id, line);
	return parse_text(t);
}

#define EG                                                                     \
	"egress name=a.test port=443 via=proxy rule=network.allow allowed=1 "  \
	"denied=0 failed=0 lookups=0 open=0 up=1 down=2 first=1 last=2 why="

TEST(hostile)
{
	ok(session_with("") == 0, "the base session line parses");
	ok(session_with(" x=1") == 0, "an extra key: ignored");
	{
		char t[1024];

		snprintf(t, sizeof(t),
		    "registry version=1\nsession id=%.31s user=agent uid=1 "
		    "pid=2 pstart=1 boot=b init=0 started=1 project=/p peer=- "
		    "tty=- form=c mode=none\n",
		    id);
		ok(parse_text(t) == -EINVAL, "a short id: refused");
	}
	ok(egress_with(EG) == 0, "the base egress line parses");
	ok(egress_with(EG "%1B[2J") == -EINVAL,
	    "an escape sequence in a shown field: refused");
	ok(egress_with(EG "%C3%A9") == 0, "non-ASCII in a shown field ...");
	ok(egress_with("egress name=A.test port=1 via=dns rule=x allowed=0 "
	               "denied=0 failed=0 lookups=0 open=0 up=0 down=0 "
	               "first=0 last=0 why=") == -EINVAL,
	    "an upper-case name: refused");
	ok(egress_with("egress name=a%20b port=1 via=dns rule=x allowed=0 "
	               "denied=0 failed=0 lookups=0 open=0 up=0 down=0 "
	               "first=0 last=0 why=") == -EINVAL,
	    "a name with a space: refused");
	ok(egress_with("egress name=a.test port=70000 via=dns rule=x "
	               "allowed=0 denied=0 failed=0 lookups=0 open=0 up=0 "
	               "down=0 first=0 last=0 why=") == -EINVAL,
	    "a port above 65535: refused");
	ok(egress_with("egress name=a.test port=1 via=ftp rule=x allowed=0 "
	               "denied=0 failed=0 lookups=0 open=0 up=0 down=0 "
	               "first=0 last=0 why=") == -EINVAL,
	    "an unknown path: refused");
	ok(egress_with("egress name=a.test port=1 via=dns rule=x allowed=-1 "
	               "denied=0 failed=0 lookups=0 open=0 up=0 down=0 "
	               "first=0 last=0 why=") == -EINVAL,
	    "a negative count: refused");
	ok(egress_with("egress name=a.test port=1 via=dns rule=x allowed=01 "
	               "denied=0 failed=0 lookups=0 open=0 up=0 down=0 "
	               "first=0 last=0 why=") == -EINVAL,
	    "a leading zero: refused");
	{
		size_t n = (REGISTRY_EGRESS_MAX + 1) * (sizeof(EG) + 1) + 512;
		char *t = malloc(n), *p = t;

		p += sprintf(p,
		    "registry version=1\nsession id=%s user=agent uid=1001 "
		    "pid=4242 pstart=1 boot=b init=0 started=1 project=/p "
		    "peer=- tty=- form=command mode=none\n",
		    id);
		for (int i = 0; i <= REGISTRY_EGRESS_MAX; i++)
			p += sprintf(p, "%s\n", EG);
		ok(parse_text(t) == -EINVAL,
		    "more than REGISTRY_EGRESS_MAX entries: refused");
		free(t);
	}
}

TEST(alive)
{
	struct registry_session s = {0};

	ok(registry_self(&s.pstart, s.boot) == 0,
	    "this process's start time and boot id");
	s.pid = getpid();
	s.uid = getuid();
	ok(registry_alive(&s), "this process is alive as itself");
	s.pstart++;
	ok(!registry_alive(&s),
	    "... not with another start time (a reused pid)");
	s.pstart--;
	s.uid++;
	ok(!registry_alive(&s), "... not as another uid");
	s.uid--;
	s.boot[0] = s.boot[0] == 'a' ? 'b' : 'a';
	ok(!registry_alive(&s), "... not from another boot");
	ok(registry_self(&s.pstart, s.boot) == 0, "again");
	s.pid = getppid();
	ok(!registry_alive(&s),
	    "... another process with our start time: not us");
}

static int
path_fd(const char *p)
{
	return open(p, O_PATH | O_CLOEXEC);
}

TEST(exposed)
{
	int fd;

	fd = path_fd("/");
	ok(registry_exposed_by(fd), "binding / would show the registry");
	close(fd);
	fd = path_fd("/var");
	ok(registry_exposed_by(fd), "... so would /var (above it)");
	close(fd);
	fd = path_fd("/usr");
	ok(!registry_exposed_by(fd), "/usr would not");
	close(fd);
	fd = path_fd("/var/log");
	ok(!registry_exposed_by(fd), "/var/log would not");
	close(fd);
	ok(registry_exposed_by(-1),
	    "an unreadable descriptor counts as showing it");
}

TEST(prune)
{
	char dir[] = "/tmp/aisbt-regprune.XXXXXX", name[64];
	time_t now = time(NULL);
	int dfd, n = 0, bad = 0;

	if (mkdtemp(dir) == NULL) {
		ok(0, "mkdtemp");
		return;
	}
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	for (int i = 0; i < REGISTRY_KEEP_MAX + 10; i++) {
		struct timespec ts[2];

		snprintf(name, sizeof(name), "%032x", i);
		bad += registry_write(dfd, name, "x\n", 2) < 0;
		ts[0].tv_sec = ts[1].tv_sec = now - 100000 + i;
		ts[0].tv_nsec = ts[1].tv_nsec = 0;
		utimensat(dfd, name, ts, 0);
	}
	is_int(bad, 0, "%d files written", REGISTRY_KEEP_MAX + 10);
	snprintf(name, sizeof(name), "%032x", 999);
	(void)registry_write(dfd, name, "x\n", 2);
	{
		struct timespec ts[2] = {
		    {now - 40 * 86400, 0}, {now - 40 * 86400, 0}};

		utimensat(dfd, name, ts, 0);
		/* Fallback logs (slog.h): of the oldest, which goes; of a
		 * kept one; one older than the days, alone. */
		for (int i = 0; i < 3; i++) {
			int fd;

			snprintf(name, sizeof(name), "%032x.log",
			    i == 0       ? 1
			        : i == 1 ? 2 + REGISTRY_KEEP_MAX
			                 : 998);
			fd = openat(
			    dfd, name, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
			if (fd >= 0)
				close(fd);
			if (i == 2)
				utimensat(dfd, name, ts, 0);
		}
	}
	registry_prune(dfd, "00000000000000000000000000000000", now);
	snprintf(name, sizeof(name), "%032x.log", 1);
	ok(faccessat(dfd, name, F_OK, 0) < 0,
	    "a pruned session's .log went with it");
	snprintf(name, sizeof(name), "%032x.log", 2 + REGISTRY_KEEP_MAX);
	ok(faccessat(dfd, name, F_OK, 0) == 0, "a kept session's .log stays");
	snprintf(name, sizeof(name), "%032x.log", 998);
	ok(faccessat(dfd, name, F_OK, 0) < 0, "a .log older than %d days went",
	    REGISTRY_KEEP_DAYS);
	for (int i = 0; i < REGISTRY_KEEP_MAX + 10; i++) {
		snprintf(name, sizeof(name), "%032x", i);
		n += faccessat(dfd, name, F_OK, 0) == 0;
	}
	is_int(n, REGISTRY_KEEP_MAX, "at most REGISTRY_KEEP_MAX files stay");
	snprintf(name, sizeof(name), "%032x", 0);
	ok(faccessat(dfd, name, F_OK, 0) == 0,
	    "... the one being kept among them");
	snprintf(name, sizeof(name), "%032x", 1);
	ok(faccessat(dfd, name, F_OK, 0) < 0, "... the oldest others went");
	snprintf(name, sizeof(name), "%032x", 999);
	ok(faccessat(dfd, name, F_OK, 0) < 0, "a file older than %d days went",
	    REGISTRY_KEEP_DAYS);
	close(dfd);
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		(void)!system(cmd);
	}
}

int
main(void)
{
	RUN(kvline);
	RUN(file);
	RUN(hostile);
	RUN(alive);
	RUN(exposed);
	RUN(prune);
	return tap_done();
}
