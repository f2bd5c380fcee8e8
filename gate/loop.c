/*
 * loop.c: the gate's single-threaded, edge-triggered epoll loop.
 *
 * Objects closed while handling a batch are only marked dead; the
 * ticks that run after every batch free them, so a later event of the
 * same batch never touches freed memory.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "gate.h"
#include "util.h"

#define LOOP_EVENTS 64
#define LOOP_TICK_MS 250

static int epfd = -1;
static const struct gate_opts *opts;

uint64_t
loop_now(void)
{
	return (uint64_t)util_now_ms();
}

const struct gate_opts *
loop_opts(void)
{
	return opts;
}

int
loop_add(int fd, uint32_t events, struct ev *ev)
{
	struct epoll_event e = {.events = events, .data.ptr = ev};

	if (epfd < 0)
		return -EBADF;
	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &e) < 0 ? -errno : 0;
}

void
loop_del(int fd)
{
	if (epfd >= 0 && fd >= 0)
		(void)epoll_ctl(epfd, EPOLL_CTL_DEL, fd, NULL);
}

static void
dispatch(struct ev *ev, uint32_t events, bool *stop)
{
	char b[sizeof(struct signalfd_siginfo)];

	switch (ev->kind) {
	case EV_LISTEN_PROXY:
		conn_accept(*(int *)ev->obj, false);
		break;
	case EV_LISTEN_CAPTURE:
		conn_accept(*(int *)ev->obj, true);
		break;
	case EV_LISTEN_DNS_TCP:
		stub_tcp_accept(*(int *)ev->obj);
		break;
	case EV_DNS_UDP:
		stub_udp_event(*(int *)ev->obj);
		break;
	case EV_DNS_TCP:
		stub_tcp_event(ev->obj, events);
		break;
	case EV_CLIENT:
	case EV_UPSTREAM:
		conn_event(ev->obj, ev->kind == EV_UPSTREAM, events);
		break;
	case EV_RESOLV:
	case EV_RESOLV_TCP:
		resolv_event(ev->obj, ev->kind == EV_RESOLV_TCP, events);
		break;
	case EV_CTL:
		/*
		 * Nothing more is expected on fd 3.  Init may close its end
		 * once the gate is ready: the gate still serves until
		 * SIGTERM from aisb-shell, or SIGKILL when aisb-shell dies.
		 */
		for (;;) {
			ssize_t n =
			    recv(*(int *)ev->obj, b, sizeof(b), MSG_DONTWAIT);

			if (n == 0 ||
			    (n < 0 && errno != EAGAIN && errno != EINTR)) {
				loop_del(*(int *)ev->obj);
				return;
			}
			if (n < 0 && errno == EAGAIN)
				return;
		}
	case EV_SIGNAL:
		/* SIGTERM from aisb-shell at the end of the session. */
		if (read(*(int *)ev->obj, b, sizeof(b)) > 0)
			*stop = true;
		return;
	}
}

int
loop_run(const struct gate_opts *o, int socks[GS_COUNT])
{
	static struct ev evs[GS_COUNT + 2];
	static int fds[GS_COUNT + 2];
	static const enum ev_kind kinds[GS_COUNT] = {
	    [GS_PROXY] = EV_LISTEN_PROXY,
	    [GS_DNS_UDP] = EV_DNS_UDP,
	    [GS_DNS_TCP] = EV_LISTEN_DNS_TCP,
	    [GS_CAPTURE] = EV_LISTEN_CAPTURE,
	};
	struct epoll_event events[LOOP_EVENTS];
	bool stop = false;

	opts = o;
	epfd = epoll_create1(EPOLL_CLOEXEC);
	if (epfd < 0)
		return -errno;
	for (int i = 0; i <= GS_COUNT + 1; i++) {
		int fd = i < GS_COUNT ? socks[i]
		    : i == GS_COUNT   ? o->ctl_fd
		                      : o->sig_fd;
		int fl = fcntl(fd, F_GETFL);

		if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
			return -errno;
		fds[i] = fd;
		evs[i].kind = i < GS_COUNT ? kinds[i]
		    : i == GS_COUNT        ? EV_CTL
		                           : EV_SIGNAL;
		evs[i].obj = &fds[i];
		if (loop_add(fd, EPOLLIN | EPOLLRDHUP | EPOLLET, &evs[i]) < 0)
			return -errno;
	}
	while (!stop) {
		int n = epoll_wait(epfd, events, LOOP_EVENTS, LOOP_TICK_MS);
		uint64_t now;

		if (n < 0 && errno != EINTR)
			return -errno;
		for (int i = 0; i < n && !stop; i++)
			dispatch(events[i].data.ptr, events[i].events, &stop);
		now = loop_now();
		conn_tick(now);
		stub_tick(now);
		resolv_tick(now);
		egress_tick(now);
	}
	conn_close_all();
	conn_tick(loop_now());
	stub_close_all();
	resolv_reset();
	synth_reset();
	suffix_reset();
	close(epfd);
	epfd = -1;
	return 0;
}
