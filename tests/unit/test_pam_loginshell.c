/*
 * test_pam_loginshell.c: lib/loginshell.c, the "is this login shell
 * aisb-shell?" question pam_aisb's account phase and --doctor share.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "loginshell.h"

static char dir[] = "/tmp/aisb-loginshell.XXXXXX";

static int
check(const char *path)
{
	char why[512];
	int r = loginshell_check(path, why, sizeof(why));

	if (r < 0)
		printf("# %s: %s\n", path ? path : "(null)", why);
	return r;
}

static void
mkfile(const char *path, mode_t mode, uid_t uid)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs("#!/bin/sh\n", f);
		fclose(f);
	}
	if (chmod(path, mode) < 0 || chown(path, uid, 0) < 0)
		perror(path);
}

TEST(names)
{
	is_int(check("aisb-shell"), -EINVAL, "a relative path is refused");
	is_int(check("/bin/bash"), -EINVAL, "/bin/bash is refused by name");
	is_int(check("/nonexistent/aisb-shell"), -ENOENT,
	    "a missing aisb-shell is refused");
	is_int(check(NULL), -EINVAL, "no shell at all is refused");
}

TEST(files)
{
	char bin[256], p[300], lx[256], m[300], sub[256], ln[300];

	if (geteuid() != 0) {
		tap_skip("needs root (root-owned files)", "ownership checks");
		return;
	}
	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		return;
	}
	chmod(dir, 0755);
	/* The installed layout: bin/aisb-shell, libexec/aisb/aisb-shell-main.
	 */
	snprintf(bin, sizeof(bin), "%s/bin", dir);
	mkdir(bin, 0755);
	snprintf(p, sizeof(p), "%s/aisb-shell", bin);
	snprintf(lx, sizeof(lx), "%s/libexec", dir);
	mkdir(lx, 0755);
	snprintf(lx, sizeof(lx), "%s/libexec/aisb", dir);
	mkdir(lx, 0755);
	snprintf(m, sizeof(m), "%s/aisb-shell-main", lx);

	mkfile(p, 0755, 0);
	is_int(check(p), -ENOENT,
	    "aisb-shell without aisb-shell-main beside it refused");
	mkfile(m, 0755, 0);
	is_int(check(p), 0, "root-owned 0755 aisb-shell in /tmp/DIR accepted");
	mkfile(p, 0775, 0);
	is_int(check(p), -EPERM, "group-writable binary refused");
	mkfile(p, 0644, 0);
	is_int(check(p), -EACCES, "non-executable file refused");
	mkfile(p, 0755, 65534);
	is_int(check(p), -EPERM, "binary owned by another user refused");
	mkfile(p, 0755, 0);

	/* What the entry point runs is held to the same rules. */
	mkfile(m, 0775, 0);
	is_int(check(p), -EPERM, "group-writable aisb-shell-main refused");
	mkfile(m, 0755, 65534);
	is_int(
	    check(p), -EPERM, "aisb-shell-main owned by another user refused");
	mkfile(m, 0644, 0);
	is_int(check(p), -EACCES, "non-executable aisb-shell-main refused");
	mkfile(m, 0755, 0);
	chmod(lx, 0777);
	is_int(check(p), -EPERM,
	    "aisb-shell-main in a world-writable dir refused");
	chmod(lx, 0755);
	is_int(check(p), 0, "... accepted again");

	/* A directory others can write: the binary could be swapped. */
	snprintf(sub, sizeof(sub), "%s/open", dir);
	mkdir(sub, 0777);
	chmod(sub, 0777);
	snprintf(ln, sizeof(ln), "%s/aisb-shell", sub);
	mkfile(ln, 0755, 0);
	is_int(check(ln), -EPERM, "aisb-shell in a world-writable dir refused");
	chmod(sub, 01777);
	is_int(check(ln), 0, "... accepted once the dir is sticky");
	unlink(ln);
	rmdir(sub);

	/* Both the login shell's name and the resolved file's must match. */
	snprintf(ln, sizeof(ln), "%s/bash", dir);
	if (symlink(p, ln) == 0)
		is_int(check(ln), -EINVAL,
		    "a link to aisb-shell named bash refused");
	unlink(ln);
	snprintf(sub, sizeof(sub), "%s/bin2", dir);
	mkdir(sub, 0755);
	snprintf(ln, sizeof(ln), "%s/aisb-shell", sub);
	if (symlink(p, ln) == 0)
		is_int(check(ln), 0,
		    "a link named aisb-shell to a good binary accepted");
	unlink(ln);
	if (symlink("/bin/bash", ln) == 0)
		is_int(check(ln), -EINVAL,
		    "a link named aisb-shell to bash refused (it must resolve "
		    "to an aisb-shell too)");
	unlink(ln);
	rmdir(sub);
	unlink(p);
	unlink(m);
	rmdir(lx);
	snprintf(lx, sizeof(lx), "%s/libexec", dir);
	rmdir(lx);
	rmdir(bin);
	rmdir(dir);
}

int
main(void)
{
	RUN(names);
	RUN(files);
	return tap_done();
}
