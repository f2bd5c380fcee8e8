/*
 * test_gate_ctl.c: shell/gatectl.c's process side: the child gets its
 * socket as fd 3 and nothing else, an empty environment and its own
 * session; gatectl_check and gatectl_stop see a gate that died.
 */
#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "gatectl.h"

TEST(spawn)
{
	/* fd 3 a socket, no fd 4..9, no environment, a session leader. */
	const char *const av[] = {"sh", "-c",
	    "case $(readlink /proc/$$/fd/3) in socket:*) ;; *) exit 10;; "
	    "esac; for f in 4 5 6 7 8 9; do [ -e /proc/$$/fd/$f ] && "
	    "exit 11; done; [ -z \"$HOME$USER$TERM\" ] || exit 12; "
	    "[ \"$(ps -o sid= -p $$ | tr -d ' ')\" = $$ ] || exit 13; "
	    "exit 0",
	    NULL};
	const char *const sleeper[] = {"sleep", "30", NULL};
	pid_t pid;
	int fd, st = -1;

	is_int(gatectl_spawn_path("/bin/sh", av, &pid, &fd), 0, "spawn");
	waitpid(pid, &st, 0);
	ok(WIFEXITED(st), "the child ran");
	is_int(WEXITSTATUS(st), 0, "fd 3 only, empty environment, own session");
	close(fd);

	is_int(gatectl_spawn_path("/bin/sleep", sleeper, &pid, &fd), 0,
	    "spawn a gate that keeps running");
	is_int(gatectl_check(pid), 0, "gatectl_check: running");
	kill(pid, SIGKILL);
	usleep(200000);
	is_int(gatectl_check(pid), -ESRCH, "gatectl_check: it died (logged)");
	is_int(gatectl_check(pid), -ESRCH, "... and it is not reaped by it");
	is_int(gatectl_stop(pid, NULL, NULL), -ESRCH,
	    "gatectl_stop reports the death");
	close(fd);

	is_int(gatectl_spawn_path("/bin/sleep", sleeper, &pid, &fd), 0,
	    "spawn again");
	is_int(gatectl_stop(pid, NULL, NULL), 0,
	    "gatectl_stop ends a running gate");
	close(fd);
	is_int(gatectl_spawn_path("/nonexistent/aisb-gate", sleeper, &pid, &fd),
	    -ENOENT,
	    "a missing gate is an error, not a session "
	    "without one");
}

int
main(void)
{
	RUN(spawn);
	return tap_done();
}
