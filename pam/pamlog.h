/*
 * pamlog.h: pam_aisb's log lines.  Each goes to pam_syslog; when no
 * syslog receiver listens on /dev/log (syslog(3) would drop it without
 * a word) and the module runs as root, it is appended to
 * AISB_LOG_DIR/AISB_PAM_LOG as well.  Never to the caller's terminal.
 */
#ifndef AISB_PAMLOG_H
#define AISB_PAMLOG_H

#include <security/pam_modules.h>

void pamlog(pam_handle_t *pamh, int prio, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
