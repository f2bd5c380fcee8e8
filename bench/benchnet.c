/*
 * benchnet.c: the origin and the clients of the gate benchmarks
 * (bench/gate.sh, bench/connrate.sh, bench/memory.sh).
 *
 *   benchnet serve ADDR PORT
 *	An HTTP/1.1 origin on one epoll loop: GET /bytes/N answers N bytes
 *	(sendfile from a memfd, so the origin is never what limits a
 *	transfer), keep-alive unless HTTP/1.0 without "keep-alive" or
 *	"Connection: close".  Any other path: 404.  Connections that send
 *	nothing are held open (idle tunnels).
 *
 *   benchnet get ADDR PORT HOST:PORT PATH [connect|absolute]
 *	One GET of PATH, to ADDR:PORT directly (HOST:PORT is the Host
 *	header), or through the proxy at ADDR:PORT with a CONNECT tunnel to
 *	HOST:PORT, or with an absolute-URI request.  Reads the whole body
 *	into one reused buffer and prints "BYTES SECONDS" (connect to last
 *	byte).  Exit 1 on any error or short body.
 *
 *   benchnet hold ADDR PORT HOST:PORT N
 *	Opens N CONNECT tunnels through the proxy at ADDR:PORT, one after
 *	the other, and keeps those that answered 200 open.  Prints "held K
 *	failed F [first error]" and then sleeps until killed.
 *
 * Bench code, not product code: it trusts its arguments and its peers.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define PAT_SIZE (4 << 20) /* the memfd sendfile serves from */
#define HEAD_MAX 8192
#define MAX_FDS 65536

struct sconn {
	char in[HEAD_MAX];
	size_t ilen;
	char out[256];
	size_t olen, ooff;
	unsigned long long left; /* body bytes still to send */
	off_t poff;
	bool close_after, active;
};

static struct sconn *sc[MAX_FDS];
static int patfd = -1;

static void
raise_nofile(void)
{
	struct rlimit r;

	if (getrlimit(RLIMIT_NOFILE, &r) == 0) {
		r.rlim_cur = r.rlim_max;
		setrlimit(RLIMIT_NOFILE, &r);
	}
}

static int
addr_of(const char *a, const char *p, struct sockaddr_in *sin)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_port = htons((uint16_t)atoi(p));
	return inet_pton(AF_INET, a, &sin->sin_addr) == 1 ? 0 : -1;
}

static void
sc_free(int efd, int fd)
{
	epoll_ctl(efd, EPOLL_CTL_DEL, fd, NULL);
	close(fd);
	free(sc[fd]);
	sc[fd] = NULL;
}

/* Parse the head at c->in; queue the response.  -1: close. */
static int
sc_request(struct sconn *c, size_t hlen)
{
	unsigned long long n = 0;
	bool found = false, v10, ka = false, cl = false;
	char *line, *save = NULL;

	c->in[hlen - 2] = '\0';
	line = strtok_r(c->in, "\r\n", &save);
	if (line == NULL)
		return -1;
	v10 = strstr(line, "HTTP/1.0") != NULL;
	if (strncmp(line, "GET /bytes/", 11) == 0) {
		n = strtoull(line + 11, NULL, 10);
		found = true;
	}
	while ((line = strtok_r(NULL, "\r\n", &save)) != NULL) {
		if (strncasecmp(line, "Connection:", 11) == 0) {
			if (strcasestr(line, "keep-alive"))
				ka = true;
			if (strcasestr(line, "close"))
				cl = true;
		}
	}
	c->close_after = cl || (v10 && !ka);
	c->left = found ? n : 0;
	c->poff = 0;
	c->olen = (size_t)snprintf(c->out, sizeof(c->out),
	    "HTTP/1.1 %s\r\nContent-Length: %llu\r\n"
	    "Content-Type: application/octet-stream\r\nConnection: %s\r\n\r\n",
	    found ? "200 OK" : "404 Not Found", c->left,
	    c->close_after ? "close" : "keep-alive");
	c->ooff = 0;
	c->active = true;
	return 0;
}

/* Send what can be sent; 1 when the response is complete. */
static int
sc_send(struct sconn *c, int fd)
{
	while (c->ooff < c->olen) {
		ssize_t w = send(fd, c->out + c->ooff, c->olen - c->ooff,
		    MSG_NOSIGNAL | (c->left ? MSG_MORE : 0));

		if (w < 0)
			return errno == EAGAIN ? 0 : -1;
		c->ooff += (size_t)w;
	}
	while (c->left > 0) {
		size_t k = PAT_SIZE - (size_t)c->poff;
		ssize_t w;

		if (k > c->left)
			k = (size_t)c->left;
		w = sendfile(fd, patfd, &c->poff, k);
		if (w < 0)
			return errno == EAGAIN ? 0 : -1;
		c->left -= (unsigned long long)w;
		if (c->poff >= PAT_SIZE)
			c->poff = 0;
	}
	c->active = false;
	return 1;
}

/* Handle readable/writable fd: serve requests while there are some. */
static void
sc_event(int efd, int fd)
{
	struct sconn *c = sc[fd];

	for (;;) {
		char *end;
		int r;

		if (c->active) {
			r = sc_send(c, fd);
			if (r < 0) {
				sc_free(efd, fd);
				return;
			}
			if (r == 0)
				return;
			if (c->close_after) {
				shutdown(fd, SHUT_WR);
				sc_free(efd, fd);
				return;
			}
		}
		end = memmem(c->in, c->ilen, "\r\n\r\n", 4);
		if (end != NULL) {
			size_t hlen = (size_t)(end - c->in) + 4;

			if (sc_request(c, hlen) < 0) {
				sc_free(efd, fd);
				return;
			}
			memmove(c->in, c->in + hlen, c->ilen - hlen);
			c->ilen -= hlen;
			continue;
		}
		if (c->ilen == sizeof(c->in)) {
			sc_free(efd, fd);
			return;
		}
		ssize_t n = recv(
		    fd, c->in + c->ilen, sizeof(c->in) - c->ilen, MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno != EAGAIN)) {
			sc_free(efd, fd);
			return;
		}
		if (n < 0)
			return;
		c->ilen += (size_t)n;
	}
}

static int
serve(const char *a, const char *p)
{
	struct sockaddr_in sin;
	struct epoll_event ev, evs[256];
	int one = 1, lfd, efd;
	char *buf;
	bool wrote;

	raise_nofile();
	signal(SIGPIPE, SIG_IGN);
	patfd = memfd_create("benchnet-pattern", MFD_CLOEXEC);
	buf = malloc(PAT_SIZE);
	if (patfd < 0 || buf == NULL) {
		free(buf);
		return 1;
	}
	for (size_t i = 0; i < PAT_SIZE; i++)
		buf[i] = (char)(i % 251);
	wrote = write(patfd, buf, PAT_SIZE) == PAT_SIZE;
	free(buf);
	if (!wrote)
		return 1;
	if (addr_of(a, p, &sin) < 0)
		return 2;
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&sin, sizeof(sin)) < 0 ||
	    listen(lfd, 4096) < 0) {
		perror("benchnet serve");
		return 1;
	}
	efd = epoll_create1(EPOLL_CLOEXEC);
	ev.events = EPOLLIN;
	ev.data.fd = lfd;
	epoll_ctl(efd, EPOLL_CTL_ADD, lfd, &ev);
	printf("serving %s:%s\n", a, p);
	fflush(stdout);
	for (;;) {
		int n = epoll_wait(efd, evs, 256, -1);

		for (int i = 0; i < n; i++) {
			int fd = evs[i].data.fd;

			if (fd != lfd) {
				if (sc[fd] != NULL)
					sc_event(efd, fd);
				continue;
			}
			for (;;) {
				int cfd = accept4(lfd, NULL, NULL,
				    SOCK_NONBLOCK | SOCK_CLOEXEC);

				if (cfd < 0)
					break;
				if (cfd >= MAX_FDS ||
				    (sc[cfd] = calloc(1, sizeof(**sc))) ==
				        NULL) {
					close(cfd);
					continue;
				}
				setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one,
				    sizeof(one));
				ev.events =
				    EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
				ev.data.fd = cfd;
				epoll_ctl(efd, EPOLL_CTL_ADD, cfd, &ev);
				sc_event(efd, cfd);
			}
		}
	}
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int
dial(const char *a, const char *p)
{
	struct sockaddr_in sin;
	struct timeval tv = {10, 0};
	int fd;

	if (addr_of(a, p, &sin) < 0)
		return -1;
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static int
send_all(int fd, const char *s, size_t n)
{
	while (n > 0) {
		ssize_t w = send(fd, s, n, MSG_NOSIGNAL);

		if (w <= 0)
			return -1;
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

/*
 * Read a response head byte-group by byte-group into h (NUL-terminated);
 * the bytes after it are left in h + return .. *got.  Returns the head
 * length or -1.
 */
static int
read_head(int fd, char *h, size_t cap, size_t *got)
{
	*got = 0;
	for (;;) {
		char *e;
		ssize_t n = recv(fd, h + *got, cap - 1 - *got, 0);

		if (n <= 0)
			return -1;
		*got += (size_t)n;
		h[*got] = '\0';
		e = strstr(h, "\r\n\r\n");
		if (e != NULL)
			return (int)(e - h) + 4;
		if (*got >= cap - 1)
			return -1;
	}
}

static int
tunnel(int fd, const char *host, char *err, size_t errlen)
{
	char req[512], h[HEAD_MAX];
	size_t got;
	int n = snprintf(req, sizeof(req),
	    "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", host, host);

	if (send_all(fd, req, (size_t)n) < 0 ||
	    read_head(fd, h, sizeof(h), &got) < 0) {
		snprintf(err, errlen, "CONNECT: %s", strerror(errno));
		return -1;
	}
	if (strncmp(h, "HTTP/1.1 200", 12) != 0 &&
	    strncmp(h, "HTTP/1.0 200", 12) != 0) {
		snprintf(
		    err, errlen, "CONNECT: %.*s", (int)strcspn(h, "\r\n"), h);
		return -1;
	}
	return 0;
}

static int
get(int argc, char **argv)
{
	const char *a = argv[2], *p = argv[3], *host = argv[4], *path = argv[5],
	           *mode = argc > 6 ? argv[6] : "direct";
	static char body[1 << 20];
	char req[1024], h[HEAD_MAX], err[256];
	unsigned long long want, have;
	size_t got;
	double t0 = now();
	int fd, hl, n;
	char *cl;

	fd = dial(a, p);
	if (fd < 0) {
		perror("benchnet get: connect");
		return 1;
	}
	if (strcmp(mode, "connect") == 0 &&
	    tunnel(fd, host, err, sizeof(err)) < 0) {
		fprintf(stderr, "benchnet get: %s\n", err);
		return 1;
	}
	n = snprintf(req, sizeof(req),
	    "GET %s%s%s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n",
	    strcmp(mode, "absolute") == 0 ? "http://" : "",
	    strcmp(mode, "absolute") == 0 ? host : "", path, host);
	if (send_all(fd, req, (size_t)n) < 0 ||
	    (hl = read_head(fd, h, sizeof(h), &got)) < 0) {
		perror("benchnet get: request");
		return 1;
	}
	cl = strcasestr(h, "\r\nContent-Length:");
	if (strncmp(h + 9, "200", 3) != 0 || cl == NULL) {
		fprintf(
		    stderr, "benchnet get: %.*s\n", (int)strcspn(h, "\r\n"), h);
		return 1;
	}
	want = strtoull(cl + 17, NULL, 10);
	have = got - (size_t)hl;
	while (have < want) {
		ssize_t r = recv(fd, body, sizeof(body), 0);

		if (r <= 0)
			break;
		have += (unsigned long long)r;
	}
	if (have != want) {
		fprintf(stderr, "benchnet get: short body: %llu of %llu\n",
		    have, want);
		return 1;
	}
	printf("%llu %.6f\n", have, now() - t0);
	return 0;
}

static int __attribute__((noreturn)) hold(char **argv)
{
	const char *a = argv[2], *p = argv[3], *host = argv[4];
	long want = atol(argv[5]), held = 0, failed = 0;
	char err[200], first[256] = "";

	raise_nofile();
	for (long i = 0; i < want; i++) {
		int fd = dial(a, p);

		if (fd < 0) {
			snprintf(
			    err, sizeof(err), "connect: %s", strerror(errno));
		} else if (tunnel(fd, host, err, sizeof(err)) == 0) {
			held++;
			continue;
		} else
			close(fd);
		if (failed++ == 0)
			snprintf(
			    first, sizeof(first), "(first error: %s)", err);
	}
	printf("held %ld failed %ld %s\n", held, failed, first);
	fflush(stdout);
	for (;;)
		pause();
}

int
main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "serve") == 0)
		return serve(argv[2], argv[3]);
	if ((argc == 6 || argc == 7) && strcmp(argv[1], "get") == 0)
		return get(argc, argv);
	if (argc == 6 && strcmp(argv[1], "hold") == 0)
		return hold(argv);
	fprintf(stderr,
	    "usage: benchnet serve ADDR PORT\n"
	    "       benchnet get ADDR PORT HOST:PORT PATH [connect|absolute]\n"
	    "       benchnet hold ADDR PORT HOST:PORT N\n");
	return 2;
}
