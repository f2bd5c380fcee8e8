/*
 * notice.c: aisb's own lines on the session's stderr.  See notice.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "notice.h"

/* The longest notice line written whole, its newline included: far under
 * PIPE_BUF, so a pipe takes it in one piece. */
#define NOTICE_LINE_MAX 600
/* A CSI parameter stops growing here (the modes that matter are
 * shorter). */
#define CSI_PARAM_CAP 100000

/* The DEC private modes of the alternate screen (CSI ? N h / l). */
enum { ALT_SCREEN = 47, ALT_SCREEN_1047 = 1047, ALT_SCREEN_SAVE = 1049 };

enum { T_TEXT, T_ESC, T_CSI, T_STR, T_STR_ESC };

void
notice_track_init(struct notice_track *t)
{
	memset(t, 0, sizeof(*t));
	t->bol = true;
}

bool
notice_track_ok(const struct notice_track *t)
{
	return t->bol && !t->alt && t->st == T_TEXT;
}

static void
csi_param_end(struct notice_track *t)
{
	if (t->param == ALT_SCREEN || t->param == ALT_SCREEN_1047 ||
	    t->param == ALT_SCREEN_SAVE)
		t->alt_param = true;
	t->param = 0;
}

ssize_t
notice_track_feed(struct notice_track *t, const char *p, size_t n)
{
	ssize_t at = notice_track_ok(t) ? 0 : -1;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];

		switch (t->st) {
		case T_TEXT:
			if (c == 0x1b)
				t->st = T_ESC;
			else if (c == '\n')
				t->bol = true;
			else if (c == '\r' || c == 0x07 || c == 0x0e ||
			    c == 0x0f)
				; /* no character on the line */
			else
				t->bol = false;
			break;
		case T_ESC:
			if (c == '[') {
				t->st = T_CSI;
				t->priv = false;
				t->param = 0;
				t->alt_param = false;
			} else if (c == ']' || c == 'P' || c == '_' ||
			    c == '^' || c == 'X') {
				t->st = T_STR;
			} else if (c >= 0x20 && c <= 0x2f) {
				; /* intermediates: the final byte follows */
			} else {
				if (c == 'c') /* RIS: a full reset */
					t->alt = false;
				else if (c == 'M' || c == 'D' || c == 'E')
					t->bol = false; /* the cursor moved */
				t->st = T_TEXT;
			}
			break;
		case T_CSI:
			if (c == '?' && t->param == 0 && !t->priv) {
				t->priv = true;
			} else if (c >= '0' && c <= '9') {
				if (t->param < CSI_PARAM_CAP)
					t->param = t->param * 10 + (c - '0');
			} else if (c == ';' || c == ':') {
				csi_param_end(t);
			} else if (c >= 0x40 && c <= 0x7e) {
				csi_param_end(t);
				if (t->priv && t->alt_param &&
				    (c == 'h' || c == 'l'))
					t->alt = c == 'h';
				/* Colours keep the line; anything else may
				 * have moved the cursor. */
				if (c != 'm')
					t->bol = false;
				t->st = T_TEXT;
			} else if (c < 0x20 || c > 0x7e) {
				/* Not a sequence after all. */
				t->st = T_TEXT;
				t->bol = false;
			}
			break;
		case T_STR:
			if (c == 0x07)
				t->st = T_TEXT;
			else if (c == 0x1b)
				t->st = T_STR_ESC;
			break;
		case T_STR_ESC:
			t->st = c == '\\' ? T_TEXT : T_STR;
			break;
		}
		if (at < 0 && notice_track_ok(t))
			at = (ssize_t)i + 1;
	}
	return at;
}

/* A descriptor for notices without a relay: see notice.h. */
static int nfd = -2; /* -2: not looked at yet; -1: none */
static bool nsock;

static void
notice_fd_open(void)
{
	struct stat st;

	nfd = -1;
	if (fstat(2, &st) < 0)
		return;
	if (S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3))
		return; /* /dev/null */
	if (S_ISREG(st.st_mode)) {
		nfd = 2; /* a file does not block */
		return;
	}
	if (S_ISSOCK(st.st_mode)) {
		nfd = 2;
		nsock = true;
		return;
	}
	if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode))
		/* A new open file description of the same pipe or
		 * terminal: non-blocking for us only. */
		nfd = open("/proc/self/fd/2",
		    O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
}

int
notice_stderr(const char *line, size_t n)
{
	char buf[NOTICE_LINE_MAX];
	ssize_t w;

	if (nfd == -2)
		notice_fd_open();
	if (nfd < 0)
		return -EBADF;
	if (n + 1 > sizeof(buf))
		n = sizeof(buf) - 1;
	memcpy(buf, line, n);
	buf[n] = '\n';
	if (nsock)
		w = send(nfd, buf, n + 1, MSG_DONTWAIT | MSG_NOSIGNAL);
	else
		w = write(nfd, buf, n + 1);
	if (w == (ssize_t)(n + 1))
		return 1;
	if (w < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (w >= 0)
		return 1; /* a file that took part of it: nothing to redo */
	return -errno;
}

bool
notice_stderr_is_relayed(void)
{
	struct stat e, o;

	return isatty(2) && fstat(2, &e) == 0 && fstat(1, &o) == 0 &&
	    S_ISCHR(e.st_mode) && e.st_rdev == o.st_rdev;
}
