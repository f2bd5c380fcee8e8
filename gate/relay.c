/*
 * relay.c: moving a connection's bytes between its two sockets without
 * looking at them: splice() through a pipe per direction (zero copy),
 * driven by edge-triggered epoll.  conn.c owns the connection (its
 * sockets, its state, its records) and calls these for each direction
 * it relays: both for a CONNECT tunnel or a captured connection, the
 * origin's side only for plain HTTP (the client's bytes are parsed
 * there).
 *
 * Pipes exist only while bytes flow (relay_pipe, relay_idle), and a
 * direction that has carried GATE_BULK_AFTER bytes may hold a bigger
 * one (grow), at most GATE_BULK_PIPES gate-wide: docs/performance.md.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "gate.h"

#define SPLICE_CHUNK (1 << 16) /* a default pipe's capacity */

static unsigned nbig; /* pipes grown to GATE_BULK_PIPE, gate-wide */

static void
close_fd(int *fd)
{
	if (*fd >= 0) {
		close(*fd);
		*fd = -1;
	}
}

void
relay_sock_init(struct relay_sock *s, int fd)
{
	s->fd = fd;
	s->eof = s->dry = s->full = s->shut = false;
}

void
relay_sock_close(struct relay_sock *s)
{
	close_fd(&s->fd);
	s->eof = s->dry = s->full = s->shut = false;
}

void
relay_sock_event(struct relay_sock *s, uint32_t events)
{
	/*
	 * New bytes (or an end, or an error) to read, new room to write:
	 * the event's mask is the socket's state when it was reported, and
	 * any later change brings another event.
	 */
	bool in = events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR);
	bool out = events & (EPOLLOUT | EPOLLHUP | EPOLLERR);

	s->dry = s->dry && !in;
	s->full = s->full && !out;
}

void
relay_shut(struct relay_sock *s)
{
	if (!s->shut) {
		shutdown(s->fd, SHUT_WR);
		s->shut = true;
	}
}

void
relay_dir_init(
    struct relay_dir *d, struct relay_sock *src, struct relay_sock *dst)
{
	d->src = src;
	d->dst = dst;
	d->pipe[0] = d->pipe[1] = -1;
	d->inpipe = 0;
	d->bytes = 0;
	d->big = false;
}

/* Give a grown pipe's slot back (the pipe is closed or shrunk). */
static void
big_release(struct relay_dir *d)
{
	if (d->big) {
		d->big = false;
		nbig--;
	}
}

void
relay_dir_close(struct relay_dir *d)
{
	big_release(d);
	close_fd(&d->pipe[0]);
	close_fd(&d->pipe[1]);
	d->inpipe = 0;
}

/*
 * A direction that has carried GATE_BULK_AFTER bytes is a bulk transfer:
 * grow its pipe while a slot is free.  A refusal by the kernel (the
 * uid's pipe pages, fs.pipe-max-size) keeps the default pipe: slower,
 * never a failure.
 */
static void
grow(struct relay_dir *d)
{
	if (d->big || nbig >= GATE_BULK_PIPES ||
	    d->bytes + d->inpipe < GATE_BULK_AFTER)
		return;
	if (fcntl(d->pipe[1], F_SETPIPE_SZ, GATE_BULK_PIPE) < 0)
		return;
	d->big = true;
	nbig++;
}

/*
 * A direction's pipe is made when its source has bytes to read (or an
 * EOF to find), not when the connection opens, and relay_idle closes it
 * again once it is empty and quiet: an idle tunnel holds two
 * descriptors and no pipe pages (charged to the agent's uid).  The
 * connection limit still counts six descriptors per connection, so only
 * a host-wide shortage can refuse a pipe here.
 */
int
relay_pipe(struct relay_dir *d)
{
	if (d->pipe[0] >= 0 || d->src->eof || d->src->dry)
		return 0;
	if (pipe2(d->pipe, O_NONBLOCK | O_CLOEXEC) < 0)
		return -errno;
	return 0;
}

/*
 * Move bytes until neither side can.  A splice from the socket that
 * returns EAGAIN marks it dry: nothing is there, or the pipe is full,
 * which only a write to dst changes, and that clears it here.  A write
 * to the socket that takes less than the pipe holds marks it full: the
 * kernel wakes the gate (EPOLLOUT) when there is room again.  (A short
 * read from the socket proves nothing: the pipe may have run out of
 * slots with bytes left in the socket, and no new edge would come.)
 */
int
relay_move(struct relay_dir *d, bool *progress)
{
	struct relay_sock *src = d->src, *dst = d->dst;

	if (d->pipe[0] < 0)
		return 0;
	for (;;) {
		bool did = false;

		if (!src->eof && !src->dry) {
			ssize_t n = splice(src->fd, NULL, d->pipe[1], NULL,
			    d->big ? GATE_BULK_PIPE : SPLICE_CHUNK,
			    SPLICE_F_MOVE | SPLICE_F_NONBLOCK);

			if (n > 0) {
				d->inpipe += (size_t)n;
				grow(d);
				did = true;
			} else if (n == 0) {
				src->eof = true;
				did = true;
			} else if (errno == EAGAIN)
				src->dry = true;
			else if (errno != EINTR)
				return -errno;
		}
		if (d->inpipe > 0 && !dst->full) {
			ssize_t m = splice(d->pipe[0], NULL, dst->fd, NULL,
			    d->inpipe, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);

			if (m > 0) {
				d->inpipe -= (size_t)m;
				d->bytes += (unsigned long long)m;
				src->dry = false; /* room in the pipe */
				did = true;
			} else if (m < 0 && errno != EAGAIN && errno != EINTR)
				return -errno;
			if (d->inpipe > 0 && !(m < 0 && errno == EINTR))
				dst->full = true;
		}
		if (!did)
			return 0;
		*progress = true;
	}
}

bool
relay_drained(const struct relay_dir *d)
{
	return d->src->eof && d->inpipe == 0;
}

/*
 * A direction that has gone quiet: after GATE_BULK_IDLE_MS a grown
 * pipe shrinks back and gives its slot to the next bulk transfer; after
 * GATE_PIPE_IDLE_MS the pipe is closed (relay_pipe makes a new one when
 * bytes come).  A pipe still holding bytes is left alone.
 */
void
relay_idle(struct relay_dir *d, uint64_t quiet)
{
	if (d->pipe[0] < 0 || d->inpipe > 0)
		return;
	if (quiet >= GATE_PIPE_IDLE_MS)
		relay_dir_close(d);
	else if (d->big && quiet >= GATE_BULK_IDLE_MS &&
	    fcntl(d->pipe[1], F_SETPIPE_SZ, SPLICE_CHUNK) >= 0)
		big_release(d);
}
