/*
 * test_gate_relay.c: one relay direction (gate/relay.c) between two
 * socket pairs standing in for the client and the origin: the pipe made
 * only once bytes may come, every byte carried in order, the bulk pipe
 * after GATE_BULK_AFTER, the edge-triggered flags, the end passed on,
 * and an idle pipe shrunk and then closed (but never one holding bytes).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tap.h"
#include "gate.h"

#define TOTAL (3u << 20)

/* [0]: the program's end, [1]: the gate's */
static int cli[2] = {-1, -1}, org[2] = {-1, -1};
static struct relay_sock cs, us;
static struct relay_dir cu;

static uint8_t
pattern(size_t i)
{
	return (uint8_t)(i * 7 % 251);
}

/* Bytes waiting in the origin's end, drained; -1 on a wrong byte. */
static long
drain(size_t *at)
{
	uint8_t buf[65536];
	long got = 0;
	ssize_t n;

	while ((n = recv(org[0], buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
		for (ssize_t i = 0; i < n; i++)
			if (buf[i] != pattern(*at + (size_t)i))
				return -1;
		*at += (size_t)n;
		got += n;
	}
	return got;
}

/* Fresh client and origin sockets (the pipe, if any, stays). */
static int
pairs(void)
{
	relay_sock_close(&cs);
	relay_sock_close(&us);
	if (cli[0] >= 0)
		close(cli[0]);
	if (org[0] >= 0)
		close(org[0]);
	cli[0] = org[0] = -1;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, cli) < 0 ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, org) < 0)
		return -errno;
	relay_sock_init(&cs, cli[1]);
	relay_sock_init(&us, org[1]);
	return 0;
}

TEST(carry)
{
	uint8_t chunk[65536];
	size_t sent = 0, seen = 0;
	bool progress = false, grew_early = false, bad = false;
	unsigned long long grew_at = 0;
	int rounds = 0;

	cs.dry = true; /* a read found nothing */
	is_int(relay_pipe(&cu), 0, "no pipe while the source is dry");
	is_int(relay_move(&cu, &progress), 0, "... and nothing to move");
	ok(cu.pipe[0] < 0 && !progress, "... no pipe made, no progress");
	relay_sock_event(&cs, EPOLLOUT);
	ok(cs.dry, "an EPOLLOUT event leaves the source dry");
	relay_sock_event(&cs, EPOLLIN);
	ok(!cs.dry, "an EPOLLIN event clears it");
	is_int(relay_pipe(&cu), 0, "now a pipe is made");
	ok(cu.pipe[0] >= 0, "... it is there");

	while (seen < TOTAL && rounds++ < 100000) {
		long got;

		while (sent < TOTAL) {
			size_t k = TOTAL - sent < sizeof(chunk) ? TOTAL - sent
			                                        : sizeof(chunk);
			ssize_t w;

			for (size_t i = 0; i < k; i++)
				chunk[i] = pattern(sent + i);
			w = send(cli[0], chunk, k, MSG_DONTWAIT);
			if (w <= 0)
				break;
			sent += (size_t)w;
		}
		/* What epoll would report: new bytes, new room. */
		relay_sock_event(&cs, EPOLLIN);
		relay_sock_event(&us, EPOLLOUT);
		if (relay_move(&cu, &progress) < 0)
			break;
		if (cu.big && grew_at == 0)
			grew_at = cu.bytes + cu.inpipe;
		if (cu.big && cu.bytes + cu.inpipe < GATE_BULK_AFTER)
			grew_early = true;
		got = drain(&seen);
		if (got < 0) {
			bad = true;
			break;
		}
	}
	ok(!bad, "every byte arrives in order");
	is_int((long long)seen, TOTAL, "all %u bytes arrive", TOTAL);
	is_int((long long)cu.bytes, TOTAL, "the direction counts them");
	ok(cu.big && !grew_early && grew_at >= GATE_BULK_AFTER,
	    "the pipe grows once the direction has carried %u bytes (at %llu)",
	    GATE_BULK_AFTER, grew_at);
	is_int(fcntl(cu.pipe[1], F_GETPIPE_SZ), GATE_BULK_PIPE,
	    "... to GATE_BULK_PIPE");
	ok(!relay_drained(&cu), "the client has not ended: not drained");
}

TEST(end)
{
	bool progress = false;
	char c;

	shutdown(cli[0], SHUT_WR);
	relay_sock_event(&cs, EPOLLIN | EPOLLRDHUP);
	is_int(relay_move(&cu, &progress), 0, "the client's end is read");
	ok(cs.eof && relay_drained(&cu), "... and the direction is drained");
	ok(recv(org[0], &c, 1, MSG_DONTWAIT) < 0 && errno == EAGAIN,
	    "before relay_shut the origin sees no end");
	relay_shut(&us);
	ok(us.shut && recv(org[0], &c, 1, MSG_DONTWAIT) == 0,
	    "relay_shut passes the end on");
}

TEST(idle)
{
	bool progress = false;
	char c = 'x';

	relay_idle(&cu, GATE_BULK_IDLE_MS - 1);
	ok(cu.big, "a grown pipe quiet for less than GATE_BULK_IDLE_MS stays");
	relay_idle(&cu, GATE_BULK_IDLE_MS);
	ok(!cu.big && cu.pipe[0] >= 0 &&
	        fcntl(cu.pipe[1], F_GETPIPE_SZ) == 65536,
	    "after GATE_BULK_IDLE_MS it shrinks back and stays open");
	relay_idle(&cu, GATE_PIPE_IDLE_MS);
	ok(cu.pipe[0] < 0 && cu.pipe[1] < 0,
	    "after GATE_PIPE_IDLE_MS it is closed");

	/* A pipe that holds bytes the origin has no room for stays. */
	if (pairs() < 0) {
		ok(0, "socketpair: %s", strerror(errno));
		return;
	}
	us.full = true; /* a write to the origin took less than offered */
	(void)!write(cli[0], &c, 1);
	is_int(relay_pipe(&cu), 0, "a new pipe when bytes come");
	is_int(relay_move(&cu, &progress), 0, "one byte moves into it");
	is_int((long long)cu.inpipe, 1, "... and waits there (origin full)");
	relay_idle(&cu, GATE_PIPE_IDLE_MS);
	ok(cu.pipe[0] >= 0, "a quiet pipe that holds bytes is not closed");
	relay_sock_event(&us, EPOLLIN);
	ok(us.full, "an EPOLLIN event leaves the origin full");
	relay_sock_event(&us, EPOLLOUT);
	is_int(relay_move(&cu, &progress), 0, "room again: the byte goes on");
	ok(cu.inpipe == 0 && recv(org[0], &c, 1, MSG_DONTWAIT) == 1,
	    "... and arrives");
	relay_dir_close(&cu);
	ok(cu.pipe[0] < 0 && cu.inpipe == 0 && !cu.big,
	    "relay_dir_close closes the pipe");
}

int
main(void)
{
	/* As the gate (harden_early): a write after a shutdown is EPIPE. */
	signal(SIGPIPE, SIG_IGN);
	relay_sock_init(&cs, -1);
	relay_sock_init(&us, -1);
	if (pairs() < 0) {
		printf("1..0 # SKIP socketpair: %s\n", strerror(errno));
		return 0;
	}
	relay_dir_init(&cu, &cs, &us);
	RUN(carry);
	RUN(end);
	RUN(idle);
	relay_dir_close(&cu);
	relay_sock_close(&cs);
	relay_sock_close(&us);
	return tap_done();
}
