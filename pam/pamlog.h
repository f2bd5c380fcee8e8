/*
 * pamlog.h: pam_aisb's log lines.  Where journald's native socket
 * exists each is a journal record (lib/journal.h): MESSAGE the text
 * pam_syslog would log ("pam_aisb(SERVICE:PHASE): ..."), the loading
 * program's identifier (sshd, su) as pam_syslog's, facility authpriv,
 * and AISB_PROGRAM=pam_aisb, AISB_USER, AISB_SERVICE and AISB_EVENT.
 * Otherwise, or when that send fails, it goes to pam_syslog; when no
 * syslog receiver listens on /dev/log either (syslog(3) would drop it
 * without a word) and the module runs as root, it is appended to
 * AISB_LOG_DIR/AISB_PAM_LOG as well.  Never to the caller's terminal.
 */
#ifndef AISB_PAMLOG_H
#define AISB_PAMLOG_H

#include <security/pam_modules.h>

/* The PAM phase the lines that follow belong to ("account",
 * "session"), as pam_syslog names it: a static string. */
void pamlog_phase(pam_handle_t *pamh, const char *phase);
void pamlog(pam_handle_t *pamh, int prio, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The same with AISB_EVENT (refuse, session-open, ...). */
void pamlog_event(pam_handle_t *pamh, int prio, const char *event,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#endif
