/*
 * bwrite.h: writes to the caller that cannot hold the outer.
 *
 * The caller's terminal or pipe may stop being read (a harness whose
 * pipe is full, a stalled ssh link); the outer must still end the
 * session on time (limits.timeout, SIGTERM, SIGHUP).  Its writes there
 * are bounded in time instead of blocking.
 */
#ifndef AISB_BWRITE_H
#define AISB_BWRITE_H

#include <stddef.h>
#include <sys/types.h>

/*
 * Write up to n bytes of buf to fd, giving up after ms milliseconds
 * (0: what fits now; at least one attempt).  fd keeps its flags (it is
 * shared with the caller's processes, so never made non-blocking): a
 * write that blocks is cut short by an interval timer.  Returns the
 * bytes written (maybe fewer than n), or -errno when fd failed before
 * any byte went (EIO, EPIPE: the caller is gone).  Uses SIGALRM and
 * ITIMER_REAL for the call, and gives both back as they were.
 */
ssize_t bwrite(int fd, const void *buf, size_t n, int ms);

/*
 * A log line for stderr (log_set_stderr_writer): bounded by bwrite;
 * after one line that did not go through, stderr is left alone (the
 * lines still go to syslog).
 */
void bwrite_stderr(const char *line, size_t n);

#endif
