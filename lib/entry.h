/*
 * entry.h: the contract between aisb-shell's entry point (entry/, the
 * static program installed as BINDIR/aisb-shell) and the program it
 * starts, aisb-shell-main (shell/).  See docs/architecture.md, "The
 * entry point".
 *
 * aisb-shell-main is dynamically linked, and the dynamic loader and the
 * C library act on the environment a program starts with (LD_PRELOAD,
 * LD_AUDIT, LD_LIBRARY_PATH, GLIBC_TUNABLES before main(); GCONV_PATH,
 * LOCPATH, TZ, ... later).  That environment comes from whoever started
 * the login shell: sshd, su, pam_env (~/.pam_environment), a unit's
 * Environment=.  So the entry point, which runs no code of a library and
 * reads nothing from the environment, hands aisb-shell-main an
 * environment in which no name is the caller's:
 *
 *   ENTRY_MARKER "/path/of/the/entry"      first, exactly once
 *   ENTRY_PREFIX "NAME=value"              each caller entry, in order
 *
 * Every caller string, whatever it is (a name the entry point has never
 * heard of, a string without '=', one that already starts with the
 * prefix or the marker), gets the prefix: the mapping is one-to-one and
 * aisb-shell-main undoes it exactly (shell/callerenv.c), so the values
 * reach env.pass unchanged while nothing in the outer process reads
 * them as configuration.
 *
 * This header is included by freestanding code: no includes, macros
 * only.
 */
#ifndef AISB_ENTRY_H
#define AISB_ENTRY_H

#define ENTRY_MARKER "AISB_ENTRY="
#define ENTRY_PREFIX "AISB_CALLER_"
/* aisb-shell-main, relative to the directory the entry point is in:
 * BINDIR/../libexec/aisb (the Makefile's install checks the layout). */
#define ENTRY_MAIN_REL "../libexec/aisb/aisb-shell-main"
#define ENTRY_MAIN_NAME "aisb-shell-main"

#endif
