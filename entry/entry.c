/*
 * entry.c: aisb-shell's entry point, installed as BINDIR/aisb-shell.
 * See lib/entry.h and docs/architecture.md, "The entry point".
 *
 * Whoever starts a login shell chooses its environment (sshd, su,
 * pam_env from the agent's ~/.pam_environment, a unit's Environment=),
 * and the dynamic loader and the C library of a dynamic program act on
 * it before and during main().  This program is static and links no
 * library (entry/sys.c), reads nothing from the environment, and only
 *   1. refuses a setuid or setgid install (real and effective ids
 *      differ): aisb-shell needs no privilege, and the outer must not
 *      run with any it did not start with;
 *   2. finds itself through /proc/self/exe, the file the kernel runs,
 *      never argv[0] or AT_EXECFN, which are the caller's words;
 *   3. builds the held environment: ENTRY_MARKER and its own path, then
 *      every caller string with ENTRY_PREFIX in front;
 *   4. execs aisb-shell-main beside it (ENTRY_MAIN_REL) with argv as it
 *      came (so a login argv[0] "-aisb-shell" stays a login).
 * Any failure: one line on stderr, exit 77, nothing else runs.
 */
#include <stddef.h>

#include "aisb.h"
#include "entry.h"
#include "sys.h"

#define PATH_BUF 4096

static unsigned long
slen(const char *s)
{
	unsigned long n = 0;

	while (s[n])
		n++;
	return n;
}

static char *
put(char *d, const char *s)
{
	while (*s)
		*d++ = *s++;
	return d;
}

static void
copy(char *d, const char *s, unsigned long n)
{
	while (n--)
		*d++ = *s++;
}

static int
ends_with(const char *s, unsigned long len, const char *tail)
{
	unsigned long n = slen(tail);

	if (len < n)
		return 0;
	for (unsigned long i = 0; i < n; i++)
		if (s[len - n + i] != tail[i])
			return 0;
	return 1;
}

static char *
put_num(char *d, unsigned long v)
{
	char b[24];
	int i = 0;

	do
		b[i++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	while (i)
		*d++ = b[--i];
	return d;
}

/* "aisb-shell: WHAT[: error text][ (HINT)]" and 77. */
static int
fail(const char *what, const char *arg, long err, const char *hint)
{
	char msg[PATH_BUF + 256], *p = msg;
	const char *text;

	p = put(p, "aisb-shell: ");
	p = put(p, what);
	if (arg) {
		unsigned long n = slen(arg);

		if (n > PATH_BUF)
			n = PATH_BUF;
		for (unsigned long i = 0; i < n; i++)
			*p++ = arg[i];
	}
	if (err < 0) {
		p = put(p, ": ");
		text = sys_strerror((int)-err);
		if (text)
			p = put(p, text);
		else
			p = put_num(put(p, "error "), (unsigned long)-err);
	}
	if (hint) {
		p = put(p, " (");
		p = put(p, hint);
		p = put(p, ")");
	}
	*p++ = '\n';
	sys_write(2, msg, (unsigned long)(p - msg));
	return AISB_EX_HOST;
}

/*
 * target = the directory of self, then ENTRY_MAIN_REL with each leading
 * "../" taken off that directory.  self is what the kernel reports for
 * /proc/self/exe: absolute, without symlinks or "..", so this lexical
 * walk names the same file the kernel would.
 */
static int
main_path(const char *self, char *target, unsigned long size)
{
	const char *rel = ENTRY_MAIN_REL;
	unsigned long end = slen(self), n;

	while (end > 0 && self[end - 1] != '/')
		end--; /* drop the file name, keep the '/' */
	while (rel[0] == '.' && rel[1] == '.' && rel[2] == '/') {
		if (end <= 1)
			return -1;
		end--; /* the '/' */
		while (end > 0 && self[end - 1] != '/')
			end--;
		rel += 3;
	}
	n = slen(rel);
	if (end + n + 1 > size)
		return -1;
	copy(target, self, end);
	copy(target + end, rel, n + 1);
	return 0;
}

int
entry_main(int argc, char **argv, char **envp)
{
	static const char deleted[] = " (deleted)";
	char self[PATH_BUF], target[PATH_BUF + sizeof(ENTRY_MAIN_REL)];
	unsigned long n = 0, bytes, len, plen = slen(ENTRY_PREFIX), i;
	unsigned int ru, eu, su, rg, eg, sg;
	char **held, *p;
	long r;

	(void)argc;
	if (sys_getresuid(&ru, &eu, &su) < 0 ||
	    sys_getresgid(&rg, &eg, &sg) < 0)
		return fail("cannot read the process ids", NULL, 0, NULL);
	if (ru != eu || rg != eg)
		return fail("runs setuid or setgid: refusing", NULL, 0,
		    "aisb-shell needs no privilege: chmod u-s,g-s it");

	r = sys_readlink("/proc/self/exe", self, sizeof(self));
	if (r < 0)
		return fail(
		    "cannot read /proc/self/exe", NULL, r, "is /proc mounted?");
	len = (unsigned long)r;
	if (len >= sizeof(self) || len == 0 || self[0] != '/')
		return fail("cannot name its own file", NULL, 0, NULL);
	self[len] = '\0';
	/* Replaced while it started (a package upgrade): the same path
	 * names the new file, and the new aisb-shell-main beside it. */
	if (ends_with(self, len, deleted) && len > sizeof(deleted) - 1)
		self[len -= sizeof(deleted) - 1] = '\0';
	if (main_path(self, target, sizeof(target)) < 0)
		return fail("no libexec directory beside ", self, 0, NULL);

	/* The held environment: one block, sized exactly. */
	bytes = slen(ENTRY_MARKER) + len + 1;
	for (n = 0; envp && envp[n]; n++)
		bytes += plen + slen(envp[n]) + 1;
	r = sys_mmap_anon((n + 2) * sizeof(char *) + bytes);
	if (r <= 0 && r >= -SYS_ERRNO_MAX) /* an error, or no address */
		return fail("cannot hold the environment", NULL, r, NULL);
	held = (char **)r;
	p = (char *)(held + n + 2);
	held[0] = p;
	p = put(put(p, ENTRY_MARKER), self);
	*p++ = '\0';
	for (i = 0; i < n; i++) {
		held[i + 1] = p;
		p = put(put(p, ENTRY_PREFIX), envp[i]);
		*p++ = '\0';
	}
	held[n + 1] = NULL;

	r = sys_execve(target, argv, held);
	return fail("cannot run ", target, r,
	    r == -SYS_ENOENT      ? "is aisb installed completely?"
	        : r == -SYS_E2BIG ? "the environment is too large once held"
	                          : NULL);
}
