/*
 * lim_tool.c: the runaway workloads of tests/limits, each bounded on its
 * own so that a broken limit fails a test instead of hurting the host.
 *
 *   lim_tool hog MB          touch MB MiB of anonymous memory, 1 MiB at a
 *                            time; prints "hog N" as it goes
 *   lim_tool forkbomb MAX S  fork until refused or MAX; children exit
 *                            after S seconds; prints "forks N errno NAME"
 *   lim_tool fill PATH MB    write PATH in 1 MiB chunks up to MB with
 *                            SIGXFSZ ignored; prints "wrote N errno NAME"
 *   lim_tool nofile N        open /dev/null up to N times; prints
 *                            "opened N errno NAME"
 *   lim_tool spin S          burn one CPU for S seconds of wall time
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>

static const char *
errname(int e)
{
	switch (e) {
	case 0:
		return "0";
	case EAGAIN:
		return "EAGAIN";
	case ENOMEM:
		return "ENOMEM";
	case EFBIG:
		return "EFBIG";
	case ENOSPC:
		return "ENOSPC";
	case EMFILE:
		return "EMFILE";
	case ENFILE:
		return "ENFILE";
	case EDQUOT:
		return "EDQUOT";
	default:
		return strerrorname_np(e) ? strerrorname_np(e) : "?";
	}
}

static int
hog(long mb)
{
	long i;

	for (i = 1; i <= mb; i++) {
		char *m = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (m == MAP_FAILED) {
			printf("hog mmap %s\n", errname(errno));
			return 1;
		}
		memset(m, 0x5a, 1 << 20);
		if (i % 16 == 0) {
			printf("hog %ld\n", i);
			fflush(stdout);
		}
	}
	printf("hog done %ld\n", mb);
	return 0;
}

static int
forkbomb(long max, long secs)
{
	long n;
	int e = 0;

	/* If the pids limit fails, the alarm still ends everything. */
	alarm((unsigned)secs + 10);
	for (n = 0; n < max; n++) {
		pid_t p = fork();

		if (p < 0) {
			e = errno;
			break;
		}
		if (p == 0) {
			sleep((unsigned)secs);
			_exit(0);
		}
	}
	printf("forks %ld errno %s\n", n, errname(e));
	fflush(stdout);
	while (wait(NULL) > 0)
		;
	return 0;
}

static int
fill(const char *path, long mb)
{
	static char buf[1 << 20];
	long long total = 0;
	int fd, e = 0;
	long i;

	signal(SIGXFSZ, SIG_IGN);
	memset(buf, 'x', sizeof(buf));
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		printf("open %s\n", errname(errno));
		return 1;
	}
	for (i = 0; i < mb && !e; i++) {
		size_t off = 0;

		while (off < sizeof(buf)) {
			ssize_t w = write(fd, buf + off, sizeof(buf) - off);

			if (w < 0) {
				e = errno;
				break;
			}
			off += (size_t)w;
			total += w;
		}
	}
	if (!e && fsync(fd) < 0)
		e = errno;
	close(fd);
	printf("wrote %lld errno %s\n", total, errname(e));
	return 0;
}

static int
nofile(long max)
{
	long n;
	int e = 0;

	for (n = 0; n < max; n++)
		if (open("/dev/null", O_RDONLY | O_CLOEXEC) < 0) {
			e = errno;
			break;
		}
	printf("opened %ld errno %s\n", n, errname(e));
	return 0;
}

static int
spin(long secs)
{
	struct timespec t0, t;
	volatile unsigned long x = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		int i;

		for (i = 0; i < 100000; i++)
			x++;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec < secs);
	printf("spun %ld\n", secs);
	return 0;
}

int
main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && strcmp(argv[1], "hog") == 0)
		return hog(atol(argv[2]));
	if (argc == 4 && strcmp(argv[1], "forkbomb") == 0)
		return forkbomb(atol(argv[2]), atol(argv[3]));
	if (argc == 4 && strcmp(argv[1], "fill") == 0)
		return fill(argv[2], atol(argv[3]));
	if (argc == 3 && strcmp(argv[1], "nofile") == 0)
		return nofile(atol(argv[2]));
	if (argc == 3 && strcmp(argv[1], "spin") == 0)
		return spin(atol(argv[2]));
	fprintf(stderr,
	    "usage: lim_tool hog MB | forkbomb MAX S | fill PATH MB"
	    " | nofile N | spin S\n");
	return 2;
}
