/*
 * loginshell.h: is an account's login shell a trustworthy aisb-shell?
 * Shared by pam_aisb.so (account phase) and aisb-shell --doctor, so both
 * answer the same question the same way.  Library code: no exit, no
 * printing.
 */
#ifndef AISB_LOGINSHELL_H
#define AISB_LOGINSHELL_H

#include <stddef.h>

#define LOGINSHELL_NAME "aisb-shell"

/*
 * path is accepted when it is absolute, its last component is
 * "aisb-shell", and it resolves (symlinks followed) to a file also named
 * aisb-shell that is a regular,
 * executable file owned by root and not writable by group or other, in
 * directories that are all root-owned and not writable by group or other
 * (sticky ones such as /tmp excepted); and so is the program that
 * entry point runs, aisb-shell-main in ../libexec/aisb beside it
 * (lib/entry.h).
 * So an installed /usr/bin/aisb-shell and a root-built tree's
 * build/bin/aisb-shell both pass, while /bin/bash or a copy the agent
 * owns does not.  Returns 0, or -errno and one line in why (whylen > 0)
 * saying what is wrong.
 */
int loginshell_check(const char *path, char *why, size_t whylen);

#endif
