/*
 * marker.c: a library that says where it ran, for the tests of the entry
 * point (tests/pam/65-pam-env.t, tests/pam/75-entry.t).
 *
 * Whichever way the dynamic loader or the C library is made to load it,
 * it appends one line to witness.log in its own directory:
 *   HOW pid=N uid=N mnt=mnt:[N] exe=PATH
 * HOW is "ctor" (LD_PRELOAD, or any dlopen), "audit" (LD_AUDIT calls
 * la_version), "gconv" (iconv_open through GCONV_PATH), or "ldpath"
 * when built as the stand-in for a library that LD_LIBRARY_PATH finds
 * (MARKER_LDPATH: libconfuse.so.2 in ldpath/, which needs the real one
 * by its absolute path).  mnt tells the host's mount namespace from a
 * sandbox's.  It changes nothing else: a test sees the program work.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void
witness(const char *how)
{
	char dir[4096], line[8192], mnt[64] = "?", exe[4096] = "?";
	const char *slash;
	Dl_info di;
	ssize_t n;
	int fd, len;

	if (!dladdr((void *)witness, &di) || !di.dli_fname ||
	    !(slash = strrchr(di.dli_fname, '/')) ||
	    snprintf(dir, sizeof(dir), "%.*s/witness.log",
	        (int)(slash - di.dli_fname), di.dli_fname) >= (int)sizeof(dir))
		return;
	if ((n = readlink("/proc/self/ns/mnt", mnt, sizeof(mnt) - 1)) > 0)
		mnt[n] = '\0';
	if ((n = readlink("/proc/self/exe", exe, sizeof(exe) - 1)) > 0)
		exe[n] = '\0';
	len = snprintf(line, sizeof(line), "%s pid=%d uid=%u mnt=%s exe=%s\n",
	    how, (int)getpid(), (unsigned)getuid(), mnt, exe);
	fd = open(dir, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
	if (fd < 0)
		return;
	if (len > 0 && (size_t)len < sizeof(line))
		n = write(fd, line, (size_t)len);
	(void)n;
	close(fd);
}

__attribute__((constructor)) static void
marker_ctor(void)
{
#ifdef MARKER_LDPATH
	witness("ldpath");
#else
	witness("ctor");
#endif
}

/* LD_AUDIT: the loader calls this first; any version it offers is ok. */
unsigned int la_version(unsigned int v);
unsigned int
la_version(unsigned int v)
{
	witness("audit");
	return v;
}

/* A gconv module: found, initialised, and then declines the charset. */
int gconv_init(void *step);
int gconv(void *step, void **in, const void *end, void **out, size_t *n,
    int flush, int irreversible);
int
gconv_init(void *step)
{
	(void)step;
	witness("gconv");
	return 1; /* __GCONV_NOCONV */
}

int
gconv(void *step, void **in, const void *end, void **out, size_t *n, int flush,
    int irreversible)
{
	(void)step, (void)in, (void)end, (void)out, (void)n, (void)flush;
	(void)irreversible;
	return 1;
}
