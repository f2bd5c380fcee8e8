/*
 * callerenv.h: the environment aisb-shell was started with, as data.
 *
 * aisb-shell-main is started by the entry point (entry/, lib/entry.h)
 * with every caller string held under ENTRY_PREFIX, so that the dynamic
 * loader and the C library find none of the caller's names.
 * callerenv_take() undoes that into a private list, which only aisb's
 * own code reads: env.pass (env_build), AISB_PROJECT and PWD (project
 * selection), SSH_CONNECTION (the session record).  For a session the
 * process environment then stays empty; the admin forms get the
 * caller's back (shell/main.c).
 */
#ifndef AISB_CALLERENV_H
#define AISB_CALLERENV_H

/*
 * Take the held environment envp (the process's environ at start).
 * Returns 0, or -EPERM when envp is not what the entry point makes (the
 * marker first, then only held strings): the program was started some
 * other way, and must not run.  -ENOMEM.
 */
int callerenv_take(char **envp);

/* The caller's value of NAME, or NULL.  Before callerenv_take (unit
 * tests): the process environment's. */
const char *callerenv_get(const char *name);

/* Every caller string, in order, NULL-terminated (the same fallback). */
char **callerenv_all(void);

/* The entry point's path (from its marker), or NULL before the take. */
const char *callerenv_entry(void);

#endif
