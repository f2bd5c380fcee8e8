/*
 * envprobe: a dynamic program that lets the C library act on its
 * environment, and prints what it started with (tests/pam/75-entry.t).
 *
 * Run directly, it is the control: LD_PRELOAD, LD_AUDIT, LD_LIBRARY_PATH
 * (it needs libconfuse.so.2), GCONV_PATH (iconv_open of a charset only
 * a GCONV_PATH module defines) and GLIBC_TUNABLES (malloc perturbation)
 * all take effect.  Copied where aisb-shell-main would be, behind a copy
 * of the entry point, it shows that none does.  Output, one per line:
 *   argv[N]=...  env[N]=...  (bytes outside printable ASCII as \xNN)
 *   iconv=opened|refused  perturb=XX
 */
#define _GNU_SOURCE
#include <confuse.h>
#include <iconv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

/* Keeps libconfuse.so.2 among the needed libraries (--as-needed). */
void *volatile envprobe_keep;

static void
show(const char *what, int i, const char *s)
{
	printf("%s[%d]=", what, i);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c >= 0x7f || c == '\\')
			printf("\\x%02x", c);
		else
			putchar(c);
	}
	putchar('\n');
}

int
main(int argc, char **argv)
{
	unsigned char *p;
	iconv_t cd;
	int i;

	envprobe_keep = (void *)cfg_init;
	for (i = 0; i < argc; i++)
		show("argv", i, argv[i]);
	for (i = 0; environ[i]; i++)
		show("env", i, environ[i]);
	cd = iconv_open("UTF-8", "AISBT-MARKER");
	printf("iconv=%s\n", cd == (iconv_t)-1 ? "refused" : "opened");
	if (cd != (iconv_t)-1)
		iconv_close(cd);
	/*
	 * glibc.malloc.perturb=N fills a chunk with N ^ 0xff when malloc
	 * carves it (4000 bytes: past the thread cache, which skips it).
	 */
	p = malloc(4000);
	if (!p)
		return 1;
	/* Reading what malloc left there is the point. */
	/* NOLINTNEXTLINE(clang-analyzer-core.CallAndMessage) */
	printf("perturb=%02x\n", ((volatile unsigned char *)p)[100]);
	free(p);
	return 0;
}
