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
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "gate.h"
#include "log.h"

#define LOOP_EVENTS 64
#define LOOP_TICK_MS 250

static int epfd = -1;
static const struct gate_opts *opts;

uint64_t
loop_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
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

/*
 * Decision records, formatted once: "<PRI>Mmm dd hh:mm:ss
 * aisb-gate[PID]: " (what syslog(3) sends with LOG_PID) is rebuilt once
 * a second, the record is written after it and sent on a datagram
 * socket connected to /dev/log before the lockdown.  syslog(3) would
 * format the line a second time (vfprintf, strftime), call getpid and
 * check its connection for every record.  Without a /dev/log at
 * start-up, records go through syslog(3), which keeps trying.
 */
#define REC_PRI (LOG_AUTHPRIV | LOG_INFO)
#define REC_IDENT "aisb-gate"

static int rec_fd = -1;
static bool rec_stderr;
static pid_t rec_pid;
static time_t rec_sec = -1;
static size_t rec_plen;
static char rec_line[1100];

static int
rec_connect(void)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX, .sun_path = "/dev/log"};
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	return fd;
}

void
gate_record_open(bool log_stderr)
{
	struct stat st;

	rec_pid = getpid();
	rec_fd = rec_connect();
	/* The copy for tests: not worth a write when it goes nowhere. */
	rec_stderr = log_stderr &&
	    !(fstat(2, &st) == 0 && S_ISCHR(st.st_mode) &&
	        st.st_rdev == makedev(1, 3));
}

/* The prefix in rec_line for the current second; its length. */
static size_t
rec_prefix(void)
{
	time_t now = time(NULL);
	struct tm tm;
	char ts[32];
	int n;

	if (now == rec_sec)
		return rec_plen;
	localtime_r(&now, &tm);
	strftime(ts, sizeof(ts), "%h %e %T", &tm);
	n = snprintf(rec_line, sizeof(rec_line),
	    "<%d>%s " REC_IDENT "[%d]: ", REC_PRI, ts, (int)rec_pid);
	rec_plen = n > 0 && (size_t)n < 64 ? (size_t)n : 0;
	rec_sec = rec_plen ? now : -1;
	return rec_plen;
}

void
gate_record(const char *fmt, ...)
{
	size_t p = rec_fd >= 0 ? rec_prefix() : 0, len;
	char *msg = rec_line + p;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof(rec_line) - p, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	len = (size_t)n < sizeof(rec_line) - p ? (size_t)n
	                                       : sizeof(rec_line) - p - 1;
	if (rec_fd < 0 || p == 0)
		log_record(LOG_INFO, "%s", msg);
	else if (send(rec_fd, rec_line, p + len, MSG_NOSIGNAL) < 0 &&
	    errno != EINTR) {
		/* syslogd restarted: reconnect once, as syslog(3) does. */
		close(rec_fd);
		rec_fd = rec_connect();
		if (rec_fd >= 0)
			(void)send(rec_fd, rec_line, p + len, MSG_NOSIGNAL);
	}
	if (rec_stderr) {
		struct iovec iov[3] = {
		    {.iov_base = (void *)(uintptr_t)REC_IDENT ": ",
		        .iov_len = sizeof(REC_IDENT ": ") - 1},
		    {.iov_base = msg, .iov_len = len},
		    {.iov_base = (void *)(uintptr_t) "\n", .iov_len = 1},
		};

		(void)!writev(2, iov, 3);
	}
}

bool
gate_rate_ok(struct gate_rate *r)
{
	uint64_t now = loop_now();

	if (!r->started) {
		r->started = true;
		r->tokens = r->burst;
		r->last = now;
	}
	r->tokens += (double)(now - r->last) * r->rate / 1000.0;
	if (r->tokens > r->burst)
		r->tokens = r->burst;
	r->last = now;
	if (r->tokens < 1) {
		r->dropped++;
		return false;
	}
	r->tokens -= 1;
	if (r->dropped) {
		gate_record("%lu %s log lines suppressed (rate limit)",
		    r->dropped, r->what);
		r->dropped = 0;
	}
	return true;
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
	}
	conn_close_all();
	conn_tick(loop_now());
	stub_close_all();
	resolv_reset();
	synth_reset();
	close(epfd);
	epfd = -1;
	return 0;
}
