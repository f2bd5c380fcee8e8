/*
 * lockdown.h: the privilege drop before exec, and init's own drop.
 */
#ifndef AISB_LOCKDOWN_H
#define AISB_LOCKDOWN_H

/*
 * init, in the first-level user namespace, after /proc is mounted:
 * max_user_namespaces = 1, so the inner's second-level userns uses the
 * only slot (the bubblewrap method).  0 or -errno (logged).
 */
int lockdown_limit_userns(void);

/*
 * Inner, last step before exec: default signal dispositions and an
 * empty signal mask (init_signals_reset); enter a second-level user namespace
 * (uid mapped to itself), check that a further one cannot be made,
 * capng_lock, clear and apply ALL capability sets, no_new_privs, the
 * seccomp filter (every arch the binary can be called with), close
 * every fd above 2, then verify CapEff/CapPrm/CapInh/CapBnd/CapAmb = 0,
 * NoNewPrivs = 1, Seccomp = 2 from /proc/self/status.  0 or -errno
 * (logged; the session exits 77).
 */
int lockdown_inner(void);

/* init, after forking the inner: drop every capability, not dumpable;
 * both read back.  0 or -errno (logged). */
int lockdown_init(void);

#endif
