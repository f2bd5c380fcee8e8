/*
 * aisb-euid: print "ruid euid rgid egid".  The escape suite installs a
 * root-owned 4755 copy where the sandbox can see it: inside, euid must
 * stay the caller's (nosuid mounts, no_new_privs).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <unistd.h>

int
main(void)
{
	printf("%u %u %u %u\n", (unsigned)getuid(), (unsigned)geteuid(),
	    (unsigned)getgid(), (unsigned)getegid());
	return 0;
}
