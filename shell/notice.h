/*
 * notice.h: aisb's own lines on the session's stderr ("aisb: denied
 * registry.example.org:443 (not in network.allow)"), written where they
 * cannot land inside a line the sandbox is writing.
 *
 * With a terminal the outer relays every byte the sandbox writes to the
 * caller's terminal (pty.c), so it knows where the lines are: a notice
 * goes in only right after a newline of that stream, outside any escape
 * sequence or string, and never while the sandbox has the terminal's
 * alternate screen (a full-screen program: vim, less, top) switched on.
 * notice_track follows the stream for that.
 *
 * Without a terminal the sandbox's stderr is the caller's own fd 2,
 * passed through: the outer never sees those bytes.  A notice is then
 * one write(2) of one whole line (under PIPE_BUF, so a pipe takes it
 * whole, between two writes of the sandbox, never inside one), and it
 * never blocks the outer: through a second open file description of the
 * same pipe or terminal with O_NONBLOCK (the caller's descriptor keeps
 * its flags), send(MSG_DONTWAIT) on a socket, a plain write on a file.
 * A notice that finds no room waits for the next try.
 */
#ifndef AISB_NOTICE_H
#define AISB_NOTICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct notice_track {
	bool bol; /* the last byte out ended a line */
	bool alt; /* the alternate screen is on */
	uint8_t st; /* escape parser state */
	bool priv; /* CSI with '?' */
	unsigned param; /* the CSI parameter being read */
	bool alt_param; /* one of its parameters is 47, 1047 or 1049 */
};

/* At the start: at a line boundary, main screen. */
void notice_track_init(struct notice_track *t);

/*
 * Follow n bytes on their way to the terminal.  Returns the offset in
 * p just after the first line boundary where a notice may go (0 when
 * one may go before any of them), or -1 when there is none.
 */
ssize_t notice_track_feed(struct notice_track *t, const char *p, size_t n);

/* May a notice go now, after everything fed so far? */
bool notice_track_ok(const struct notice_track *t);

/*
 * Without a relayed terminal: write one line (no newline in it) to fd
 * 2 as above.  1: written, 0: no room now (try again later), -errno:
 * stderr cannot take notices (gone, /dev/null): drop them.
 */
int notice_stderr(const char *line, size_t n);

/* Is fd 2 the terminal the relay writes to (stdout)? */
bool notice_stderr_is_relayed(void);

#endif
